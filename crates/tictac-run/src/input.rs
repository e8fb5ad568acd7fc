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
