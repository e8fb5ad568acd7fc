//! The transcript's output buffer.

use std::io::{self, Write};

use super::RunOutcome;

/// The transcript's own output buffer. Batch runs write millions of small
/// pieces; writing them into a concrete `Vec` (inlined copies) and handing
/// the writer big blocks is much cheaper than a call through `dyn Write`
/// for each piece.
pub struct Sink<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
    /// Whether a syntax or type error message was written: the run has
    /// earned exit status 1 even if the reader goes away later.
    rejected: bool,
}

impl<'w> Sink<'w> {
    const BLOCK: usize = 256 * 1024;

    pub fn new(out: &'w mut dyn Write) -> Self {
        Sink { out, buf: Vec::with_capacity(Self::BLOCK + 1024), rejected: false }
    }
}

impl Write for Sink<'_> {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= Self::BLOCK {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_block()?;
        self.out.flush()
    }
}

impl Sink<'_> {
    /// Notes that an error message is being written.
    pub(crate) fn mark_rejected(&mut self) {
        self.rejected = true;
    }

    /// What the run has earned so far.
    pub(crate) fn outcome(&self) -> RunOutcome {
        if self.rejected { RunOutcome::Rejected } else { RunOutcome::Ran }
    }

    /// Hands on what is left, reporting a failure (drop cannot).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.flush_block()
    }

    #[cold]
    fn flush_block(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl Drop for Sink<'_> {
    /// Hands on what is left; a failure here was already reported by the
    /// run's own flush, or the run failed for another reason first.
    fn drop(&mut self) {
        let _ = self.flush_block();
    }
}
