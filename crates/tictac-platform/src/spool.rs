//! The one byte store for "memory up to a bound, then a temporary file":
//! whatever a run must keep between reading its input and printing (the
//! commands of a trace, its type errors, the outcome of each window line,
//! JUnit's testcases) and what a program printed (`process::Capture`, a
//! spool with a cap) cost constant memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The core's bound: one definition for both crates.
pub use tictac_core::store::MEMORY_BOUND;

/// Buffer size for the temporary file, both ways.
const FILE_BUFFER: usize = 64 * 1024;

#[derive(Debug)]
pub struct Spool {
    /// Everything written, while the spool is in memory; once on disk, what
    /// was written since the last block went to the file.
    memory: Vec<u8>,
    file: Option<File>,
    /// Bytes in the file.
    in_file: u64,
    bound: usize,
}

impl Default for Spool {
    fn default() -> Self {
        Spool::with_bound(MEMORY_BOUND)
    }
}

impl Spool {
    /// A spool that moves to a file past `bound` bytes (tests use small ones).
    pub fn with_bound(bound: usize) -> Self {
        Spool { memory: Vec::new(), file: None, in_file: 0, bound }
    }

    /// A spool holding a whole file already written (a regular file,
    /// read from its start, never written).
    pub fn of_file(file: File) -> io::Result<Self> {
        let in_file = file.metadata()?.len();
        Ok(Spool { memory: Vec::new(), file: Some(file), in_file, bound: MEMORY_BOUND })
    }

    /// How many bytes were written.
    pub fn len(&self) -> u64 {
        self.in_file + self.memory.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the spool has moved to a temporary file.
    #[cfg(test)]
    pub fn on_disk(&self) -> bool {
        self.file.is_some()
    }

    /// Forgets everything written after the first `len` bytes, so a writer
    /// can take back what turned out not to be wanted (a window line found
    /// wrong after its first commands). Cheap while those bytes are still
    /// in memory, which is nearly always.
    pub fn truncate(&mut self, len: u64) -> io::Result<()> {
        if len >= self.len() {
            return Ok(());
        }
        if len >= self.in_file {
            self.memory.truncate((len - self.in_file) as usize);
            return Ok(());
        }
        if let Some(file) = &mut self.file {
            file.set_len(len)?;
            file.seek(SeekFrom::Start(len))?;
        }
        self.in_file = len;
        self.memory.clear();
        Ok(())
    }

    /// Everything written, from the start.
    pub fn reader(mut self) -> io::Result<SpoolReader> {
        match self.file.take() {
            None => Ok(SpoolReader::Memory(Cursor::new(self.memory))),
            Some(mut file) => {
                file.write_all(&self.memory)?;
                file.seek(SeekFrom::Start(0))?;
                Ok(SpoolReader::File(BufReader::with_capacity(FILE_BUFFER, file)))
            }
        }
    }

    /// Everything written, on the temporary file (made now if need be), at
    /// its start: for a reader that keeps no buffer of its own.
    pub fn into_file(mut self) -> io::Result<File> {
        self.move_to_file()?;
        let mut file = self.file.take().ok_or_else(|| io::Error::other("the spool has no file"))?;
        file.seek(SeekFrom::Start(0))?;
        Ok(file)
    }

    /// Past the bound: what is in memory goes to the file, and so does
    /// `data` if it is large (a long name: never copied into memory, where
    /// the caller holds it already).
    #[cold]
    fn write_past_limit(&mut self, data: &[u8]) -> io::Result<()> {
        if data.len() <= FILE_BUFFER {
            self.memory.extend_from_slice(data);
            return self.move_to_file();
        }
        self.move_to_file()?;
        if let Some(file) = &mut self.file {
            file.write_all(data)?;
            self.in_file += data.len() as u64;
        }
        Ok(())
    }

    /// Everything written so far, from the start, leaving the spool as it
    /// is (it can be read again).
    pub fn read_back(&mut self) -> io::Result<Box<dyn Read + '_>> {
        match &mut self.file {
            None => Ok(Box::new(self.memory.as_slice())),
            Some(file) => {
                file.seek(SeekFrom::Start(0))?;
                // A file that grows meanwhile is read to its length then.
                let file = BufReader::with_capacity(FILE_BUFFER, file).take(self.in_file);
                Ok(Box::new(file.chain(self.memory.as_slice())))
            }
        }
    }

    /// Writes what is in memory to the file (made now, the first time):
    /// from then on memory holds at most about `FILE_BUFFER` bytes.
    #[cold]
    fn move_to_file(&mut self) -> io::Result<()> {
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(temporary_file(&std::env::temp_dir())?),
        };
        // A `read_back` may have moved the position.
        file.seek(SeekFrom::Start(self.in_file))?;
        file.write_all(&self.memory)?;
        self.in_file += self.memory.len() as u64;
        if self.memory.capacity() > 2 * FILE_BUFFER {
            self.memory = Vec::with_capacity(FILE_BUFFER);
        } else {
            self.memory.clear();
        }
        Ok(())
    }
}

impl Write for Spool {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        let limit = if self.file.is_some() { FILE_BUFFER } else { self.bound };
        if self.memory.len() + data.len() <= limit {
            self.memory.extend_from_slice(data);
            return Ok(());
        }
        self.write_past_limit(data)
    }

    /// Nothing to do: what is in memory is written when read back.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The trace language keeps its type errors (and, for now, long tokens and
/// blanks) on spools: `tictac::main` makes this the core's store.
impl tictac_core::store::Store for Spool {
    fn len(&self) -> u64 {
        Spool::len(self)
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        Spool::truncate(self, len)
    }

    fn reader(self: Box<Self>) -> io::Result<Box<dyn BufRead + Send>> {
        Ok(Box::new(Spool::reader(*self)?))
    }
}

/// A store for the core: a spool that moves to a temporary file past `bound`.
pub fn store(bound: usize) -> Box<dyn tictac_core::store::Store> {
    Box::new(Spool::with_bound(bound))
}

/// Reads a spool back.
pub enum SpoolReader {
    Memory(Cursor<Vec<u8>>),
    File(BufReader<File>),
}

impl io::Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            SpoolReader::Memory(c) => c.read(buf),
            SpoolReader::File(f) => f.read(buf),
        }
    }
}

impl BufRead for SpoolReader {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            SpoolReader::Memory(c) => c.fill_buf(),
            SpoolReader::File(f) => f.fill_buf(),
        }
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        match self {
            SpoolReader::Memory(c) => c.consume(n),
            SpoolReader::File(f) => f.consume(n),
        }
    }
}

/// A new temporary file in `folder`, removed when closed; an error names
/// the folder (a stale TMPDIR, a cluster job's or a macOS session's, names
/// one that is gone) and what to do.
fn temporary_file(folder: &Path) -> io::Result<File> {
    let variable = if cfg!(windows) { "TMP" } else { "TMPDIR" };
    tempfile::tempfile_in(folder).map_err(|e| {
        let why = format!(
            "the temporary folder '{}' cannot hold a new file: {e}; set {variable} to a folder \
             you can write",
            folder.display()
        );
        io::Error::new(e.kind(), why)
    })
}

/// What the folder temporary files go to (`TMPDIR` on Unix, `TMP` on
/// Windows) has free for this user, and the unit its space is given in;
/// `None` when it cannot be measured (the folder does not exist).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FreeSpace {
    pub bytes: u64,
    pub block: u64,
}

pub fn free_space() -> Option<FreeSpace> {
    let stats = fs4::statvfs(std::env::temp_dir()).ok()?;
    Some(FreeSpace { bytes: stats.available_space(), block: stats.allocation_granularity() })
}

/// Whether a spool's write failed because its file system (or the user's
/// quota, or the file size limit) is full: nothing the request did wrong.
pub fn is_full(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded | io::ErrorKind::FileTooLarge
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_temporary_folder_that_is_gone_is_named() {
        let gone = tempfile::tempdir().expect("dir").path().join("gone");
        let e = temporary_file(&gone).expect_err("no such folder");
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let said = e.to_string();
        assert!(
            said.starts_with(&format!(
                "the temporary folder '{}' cannot hold a new file: ",
                gone.display()
            )) && said.ends_with(" to a folder you can write"),
            "{said}"
        );
    }

    #[test]
    fn a_spool_reads_back_what_was_written_in_memory_or_on_disk() {
        for bound in [0, 10, 1 << 20] {
            let mut spool = Spool::with_bound(bound);
            let mut expected = Vec::new();
            for k in 0..1000u32 {
                let piece = k.to_string();
                spool.write_all(piece.as_bytes()).expect("write");
                expected.extend_from_slice(piece.as_bytes());
            }
            assert_eq!(spool.on_disk(), bound < expected.len());
            assert_eq!(spool.len(), expected.len() as u64);
            let mut back = Vec::new();
            spool.reader().expect("reader").read_to_end(&mut back).expect("read");
            assert_eq!(back, expected);
        }
    }

    #[test]
    fn a_truncated_spool_reads_back_only_what_was_kept() {
        for bound in [0, 10, 5000, 1 << 20] {
            let mut spool = Spool::with_bound(bound);
            let mut expected = Vec::new();
            for k in 0..3000u32 {
                let mark = spool.len();
                let piece = format!("{k},");
                spool.write_all(piece.as_bytes()).expect("write");
                // Every third piece is taken back, with more written after it.
                if k % 3 == 1 {
                    spool.write_all(&vec![b'x'; (k as usize * 37) % 70_000]).expect("write");
                    spool.truncate(mark).expect("truncate");
                    assert_eq!(spool.len(), mark);
                } else {
                    expected.extend_from_slice(piece.as_bytes());
                }
            }
            assert_eq!(spool.len(), expected.len() as u64);
            let mut back = Vec::new();
            spool.reader().expect("reader").read_to_end(&mut back).expect("read");
            assert!(back == expected, "bound {bound}");
        }
    }

    /// A write larger than the bound goes to the file as it is: the spool
    /// never holds a copy of it (a long name is held once, by its writer).
    #[test]
    fn a_spool_ends_as_its_file_read_from_the_start() {
        let mut spool = Spool::with_bound(1 << 20);
        spool.write_all(b"in memory, then on disk").expect("write");
        let mut text = String::new();
        spool.into_file().expect("a file").read_to_string(&mut text).expect("read");
        assert_eq!(text, "in memory, then on disk");
    }

    #[test]
    fn a_large_write_goes_to_the_file_without_a_copy() {
        let mut spool = Spool::with_bound(1000);
        spool.write_all(b"head,").expect("write");
        spool.write_all(&vec![b'n'; 3 * FILE_BUFFER]).expect("write");
        assert!(spool.on_disk());
        // Its memory never grew to take the large write.
        assert!(spool.memory.capacity() < 64, "{}", spool.memory.capacity());
        spool.write_all(b",tail").expect("write");
        let mut back = Vec::new();
        spool.reader().expect("reader").read_to_end(&mut back).expect("read");
        assert_eq!(back.len(), 5 + 3 * FILE_BUFFER + 5);
        assert!(back.starts_with(b"head,n") && back.ends_with(b"n,tail"));
    }

    #[test]
    fn a_spool_reads_back_again_and_again_and_goes_on() {
        for bound in [0, 10, 1 << 20] {
            let mut spool = Spool::with_bound(bound);
            let mut expected = Vec::new();
            for k in 0..2000u32 {
                let piece = k.to_string();
                spool.write_all(piece.as_bytes()).expect("write");
                expected.extend_from_slice(piece.as_bytes());
                if k % 500 == 0 {
                    let mut back = Vec::new();
                    spool.read_back().expect("read back").read_to_end(&mut back).expect("read");
                    assert!(back == expected, "bound {bound}, after {k}");
                }
            }
            let mut back = Vec::new();
            spool.reader().expect("reader").read_to_end(&mut back).expect("read");
            assert!(back == expected, "bound {bound}");
        }
    }
}
