//! What a run keeps between reading its input and printing (the commands of
//! a trace, the outcome of each window line): memory up to a bound, then
//! the store the program gave the core (`tictac_core::store`: tictac's
//! spool, a temporary file; in WebAssembly, memory still). Writes below the
//! bound, nearly all of them, are a copy into a `Vec`.

use std::io::{self, BufRead, BufReader, Cursor, Read, Write};

use crate::store::{self, MEMORY_BOUND, Store};

/// Once in the store, writes go to it, and reads come from it, in blocks
/// this large: a command's byte or two is a copy, not a call through `dyn`.
const BLOCK: usize = 64 * 1024;

pub(crate) struct Spool {
    /// Everything written while there is no store; then what was written
    /// since the last block went to it.
    memory: Vec<u8>,
    /// Where the bytes go once there were more than the bound.
    stored: Option<Box<dyn Store>>,
    /// How much `memory` holds before a write goes past it: the bound,
    /// then `BLOCK`.
    limit: usize,
}

impl Default for Spool {
    fn default() -> Self {
        Spool::with_bound(MEMORY_BOUND)
    }
}

impl Spool {
    /// A spool that moves to the store past `bound` bytes (tests use small ones).
    pub(crate) fn with_bound(bound: usize) -> Self {
        Spool { memory: Vec::new(), stored: None, limit: bound }
    }

    /// How many bytes were written.
    pub(crate) fn len(&self) -> u64 {
        self.stored.as_ref().map_or(0, |s| s.len()) + self.memory.len() as u64
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets everything written after the first `len` bytes, so a writer
    /// can take back what turned out not to be wanted (a window line found
    /// wrong after its first commands). Cheap while those bytes are still
    /// in memory, which is nearly always.
    pub(crate) fn truncate(&mut self, len: u64) -> io::Result<()> {
        let in_store = self.stored.as_ref().map_or(0, |s| s.len());
        match (len.checked_sub(in_store), &mut self.stored) {
            (Some(kept), _) => self.memory.truncate(usize::try_from(kept).unwrap_or(usize::MAX)),
            (None, Some(stored)) => {
                stored.truncate(len)?;
                self.memory.clear();
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// Everything written, from the start.
    pub(crate) fn reader(self) -> io::Result<SpoolReader> {
        match self.stored {
            None => Ok(SpoolReader::Memory(Cursor::new(self.memory))),
            Some(mut stored) => {
                stored.write_all(&self.memory)?;
                Ok(SpoolReader::Stored(BufReader::with_capacity(BLOCK, stored.reader()?)))
            }
        }
    }

    /// Past the limit: what is in memory goes to the store (made now, the
    /// first time), and so does `data` if it is large; from then on memory
    /// holds at most a block.
    #[cold]
    fn write_past_limit(&mut self, data: &[u8]) -> io::Result<()> {
        let stored = self.stored.get_or_insert_with(|| store::make(0));
        stored.write_all(&self.memory)?;
        if self.memory.capacity() > 2 * BLOCK {
            self.memory = Vec::with_capacity(BLOCK);
        } else {
            self.memory.clear();
        }
        self.limit = BLOCK;
        if data.len() > BLOCK {
            return stored.write_all(data);
        }
        self.memory.extend_from_slice(data);
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
        if self.memory.len() + data.len() <= self.limit {
            self.memory.extend_from_slice(data);
            return Ok(());
        }
        self.write_past_limit(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `n` in 7-bit groups, low first (LEB128).
pub(crate) fn write_varint(out: &mut (impl Write + ?Sized), mut n: u64) -> io::Result<()> {
    let mut bytes = [0u8; 10];
    let mut k = 0;
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            bytes[k] = low;
            return out.write_all(&bytes[..=k]);
        }
        bytes[k] = low | 0x80;
        k += 1;
    }
}

/// Reads what `write_varint` wrote.
pub(crate) fn read_varint(input: &mut (impl BufRead + ?Sized)) -> io::Result<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = read_byte(input)?.ok_or_else(truncated)?;
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(n);
        }
    }
    Err(truncated())
}

/// The next byte, or `None` at the end.
#[inline]
pub(crate) fn read_byte(input: &mut (impl BufRead + ?Sized)) -> io::Result<Option<u8>> {
    let b = input.fill_buf()?.first().copied();
    if b.is_some() {
        input.consume(1);
    }
    Ok(b)
}

/// A store that ends in the middle of a record: only a failed write does that.
pub fn truncated() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the spool ends mid-record")
}

/// A spool read back: from memory, or from its store.
pub(crate) enum SpoolReader {
    Memory(Cursor<Vec<u8>>),
    Stored(BufReader<Box<dyn BufRead + Send>>),
}

impl Read for SpoolReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            SpoolReader::Memory(c) => c.read(buf),
            SpoolReader::Stored(s) => s.read(buf),
        }
    }
}

impl BufRead for SpoolReader {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            SpoolReader::Memory(c) => c.fill_buf(),
            SpoolReader::Stored(s) => s.fill_buf(),
        }
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        match self {
            SpoolReader::Memory(c) => c.consume(n),
            SpoolReader::Stored(s) => s.consume(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let values = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut bytes = Vec::new();
        values.iter().for_each(|&v| write_varint(&mut bytes, v).expect("vec"));
        let mut input = &bytes[..];
        for v in values {
            assert_eq!(read_varint(&mut input).expect("read"), v);
        }
        assert!(read_varint(&mut &[0x80u8][..]).is_err());
    }

    #[test]
    fn a_spool_past_its_bound_reads_back_what_was_kept_after_truncations() {
        for bound in [0, 10, 5000, 1 << 20] {
            let mut spool = Spool::with_bound(bound);
            let mut expected = Vec::new();
            // Past a block of 64 KiB, taken back into the store now and then.
            for k in 0..40_000u32 {
                let piece = k.to_string();
                spool.write_all(piece.as_bytes()).expect("write");
                expected.extend_from_slice(piece.as_bytes());
                let len = match k % 9_000 {
                    8_999 => expected.len() / 2,
                    n if n % 7 == 3 => expected.len() - piece.len(),
                    _ => continue,
                };
                spool.truncate(len as u64).expect("truncate");
                expected.truncate(len);
            }
            assert_eq!(spool.len(), expected.len() as u64);
            let mut back = Vec::new();
            spool.reader().expect("reader").read_to_end(&mut back).expect("read");
            assert!(back == expected, "bound {bound}");
        }
    }
}
