//! Where a trace comes from: a file named on the command line (a regular
//! file, a pipe, a FIFO, standard input), or bytes already in memory (a
//! request to the web server). Every run reads its input exactly once, the
//! same way whatever it is, so their outputs agree byte for byte.

use std::io::{self, BufRead, BufReader, Read};

use crate::RunError;

/// A buffered reader that can tell what it holds without reading more.
pub trait Buffered: BufRead {
    fn buffered(&self) -> &[u8];
}

impl<R: Read> Buffered for BufReader<R> {
    fn buffered(&self) -> &[u8] {
        self.buffer()
    }
}

impl Buffered for &[u8] {
    fn buffered(&self) -> &[u8] {
        self
    }
}

/// A trace opened for its one read.
pub struct Input<'a> {
    name: String,
    reader: Box<dyn Buffered + 'a>,
    /// Whether a read may wait for a writer (not a regular file's).
    may_wait: bool,
}

impl<'a> Input<'a> {
    pub fn new(name: String, reader: Box<dyn Buffered + 'a>) -> Self {
        Input { name, reader, may_wait: true }
    }

    /// A trace read from `reader` (a file, a pipe), buffered `capacity`
    /// bytes at a time, its start read in first until the encoding it shows
    /// is decided (`Encoding::undecided`), whatever the edges of its reads: a
    /// pipe may give a byte order mark's three bytes in two. `encoding` then
    /// answers as for the whole file. Fails as the first read fails.
    pub fn reading(name: String, mut reader: impl Read + 'a, capacity: usize) -> io::Result<Self> {
        let mut start = vec![0; crate::encoding::LOOKED_AT];
        let mut len = 0;
        loop {
            let n = match reader.read(&mut start[len..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                read => read?,
            };
            len += n;
            if n == 0 || !crate::Encoding::undecided(&start[..len]) {
                break;
            }
        }
        start.truncate(len);
        let mut reader = BufReader::with_capacity(capacity, io::Cursor::new(start).chain(reader));
        reader.fill_buf()?;
        Ok(Input::new(name, Box::new(reader)))
    }

    /// The same input, known never to keep a read waiting (a regular file,
    /// bytes in memory): nothing need be flushed before reading it.
    pub fn never_waits(self) -> Self {
        Input { may_wait: false, ..self }
    }

    /// A trace already in memory.
    pub fn memory(bytes: &'a [u8]) -> Self {
        Input::new("the trace".into(), Box::new(bytes)).never_waits()
    }

    /// Whether a whole line is already read in: if not, the next line may
    /// keep the reader waiting (a pipe or FIFO whose writer is slow), so a
    /// run flushes what it printed before asking for it.
    pub(crate) fn holds_a_line(&self) -> bool {
        memchr::memchr(b'\n', self.reader.buffered()).is_some()
    }

    /// Whether the next read may wait: nothing is read in, and the input
    /// is not a regular file.
    pub(crate) fn may_wait(&self) -> bool {
        self.may_wait && self.reader.buffered().is_empty()
    }

    /// The encoding its first bytes show, if it is one a trace should not
    /// be in (a UTF-8 byte order mark, UTF-16); what is read in is looked
    /// at, nothing more is read.
    pub fn encoding(&self) -> Option<crate::Encoding> {
        crate::Encoding::of(self.reader.buffered())
    }

    /// What the command line writes on standard error about a trace in such
    /// an encoding, before it runs it: the line (without its end) naming the
    /// encoding and how to save the file as plain UTF-8.
    pub fn hint(&self) -> Option<String> {
        self.encoding().map(|e| format!("tictac: {}", e.hint(&self.name)))
    }

    /// The name messages give the trace.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A reading failure, as a run reports it.
    pub(crate) fn read_error(&self, e: io::Error) -> RunError {
        RunError::Read(self.name.clone(), e)
    }

    /// The name, once the input is no longer needed.
    pub fn into_name(self) -> String {
        self.name
    }
}

impl Buffered for Input<'_> {
    fn buffered(&self) -> &[u8] {
        self.reader.buffered()
    }
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl BufRead for Input<'_> {
    #[inline]
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        self.reader.consume(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Encoding;
    use crate::encoding::tests::utf16;

    /// A reader that gives its bytes in reads of the sizes `cuts` says,
    /// then the rest.
    struct Cut<'a> {
        bytes: &'a [u8],
        cuts: Vec<usize>,
    }

    impl Read for Cut<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = if self.cuts.is_empty() { self.bytes.len() } else { self.cuts.remove(0) };
            let n = n.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// The encoding named is the whole file's, at any read edge: the start
    /// cut once anywhere in its first 130 bytes, or read a byte at a time;
    /// and the bytes read are the file's. (A UTF-16 file whose first byte
    /// comes alone is not waited on: that byte is answered at once.)
    #[test]
    fn the_encoding_is_decided_on_the_whole_start_at_every_cut() {
        let trace = "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n".repeat(4);
        let files: Vec<Vec<u8>> = vec![
            [&b"\xEF\xBB\xBF"[..], trace.as_bytes()].concat(),
            [&[0xFF, 0xFE][..], &utf16(&trace, true)].concat(),
            [&[0xFE, 0xFF][..], &utf16(&trace, false)].concat(),
            utf16(&trace, true),
            utf16(&trace, false),
            trace.clone().into_bytes(),
            b"\xEF\xBB".to_vec(),
            b"\xEFundo\n".to_vec(),
            b"u\0ndo redo undo redo\n".to_vec(),
            Vec::new(),
        ];
        for file in &files {
            let whole = Encoding::of(file);
            let utf16 = matches!(whole, Some(Encoding::Utf16 { .. }));
            let first = if utf16 { 2 } else { 1 };
            let mut one_at_a_time = vec![1; file.len()];
            if utf16 {
                one_at_a_time[0] = 2;
            }
            let cuts = (first..=file.len().min(130)).map(|k| vec![k]).chain([one_at_a_time]);
            for cuts in cuts {
                let shown = format!("{file:?} read as {cuts:?}");
                let mut input =
                    Input::reading("t".into(), Cut { bytes: file, cuts }, 64 << 10).expect("read");
                assert_eq!(input.encoding(), whole, "{shown}");
                let mut read = Vec::new();
                input.read_to_end(&mut read).expect("read");
                assert_eq!(&read, file, "{shown}");
            }
        }
        // A first byte that is answered at once is not waited on.
        for first in [&b"\xFF"[..], b"\xFE", b"\0", b")"] {
            let input = Input::reading("t".into(), first.chain(Waits), 64 << 10).expect("read");
            assert_eq!(input.encoding(), None);
        }
    }

    /// A writer that stays open and sends nothing more.
    struct Waits;

    impl Read for Waits {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            panic!("read on, waiting for a writer that sends nothing more")
        }
    }
}
