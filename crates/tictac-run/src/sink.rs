//! The transcript's output buffer.

use std::io::{self, BufWriter, Write};

use crate::command::Command;
use crate::engine::Engine;
use crate::show_echo;
use crate::status::Status;
use crate::view::View;

/// The transcript's output: a `BufWriter` (batch runs write millions of
/// small pieces; its buffer is a concrete type, so each piece is an inlined
/// copy, not a call through `dyn Write`) and whether an error message was
/// written, for the exit status.
pub struct Sink<'w> {
    out: BufWriter<&'w mut dyn Write>,
    /// Whether a syntax or type error message was written: the run has
    /// earned exit status 1 even if the reader goes away later.
    rejected: bool,
    /// The view, its pieces kept from step to step.
    view: View,
}

impl<'w> Sink<'w> {
    const BLOCK: usize = 256 * 1024;

    pub fn new(out: &'w mut dyn Write) -> Self {
        Sink {
            out: BufWriter::with_capacity(Self::BLOCK, out),
            rejected: false,
            view: View::default(),
        }
    }
}

impl Write for Sink<'_> {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.out.write(data)
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.out.write_all(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Sink<'_> {
    /// Notes that an error message is being written.
    pub(crate) fn mark_rejected(&mut self) {
        self.rejected = true;
    }

    /// What the run has earned so far.
    pub(crate) fn outcome(&self) -> Status {
        if self.rejected { Status::Failed } else { Status::Ran }
    }

    /// The state as the transcript shows it.
    pub(crate) fn state(&mut self, engine: &Engine) -> io::Result<()> {
        self.view.write(&mut self.out, engine.game())
    }

    /// A transcript step (see `show_step`): the command's echo, then the state.
    pub(crate) fn step(&mut self, command: &Command, engine: &Engine) -> io::Result<()> {
        show_echo(command, &mut self.out)?;
        self.state(engine)
    }

    /// Hands on what is left, reporting a failure (drop cannot).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
