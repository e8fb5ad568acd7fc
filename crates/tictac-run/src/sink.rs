//! The transcript's output buffer.

use std::io::{self, BufWriter, Write};

use crate::command::Command;
use crate::engine::Engine;
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

    /// A state shown on its own (its names may be others than the last
    /// state's: commands may have run unseen).
    pub(crate) fn state(&mut self, engine: &Engine) -> io::Result<()> {
        self.view.forget_names();
        self.view.write(&mut self.out, engine.game())
    }

    /// A transcript step (see `show_step`): the command's line, then the
    /// state. Only a new game changes the players' names.
    #[inline]
    pub(crate) fn step(&mut self, command: &Command, engine: &Engine) -> io::Result<()> {
        if let Command::NewGame { .. } = command {
            self.view.forget_names();
        }
        command.write_line(&mut self.out)?;
        self.view.write(&mut self.out, engine.game())
    }

    /// A command ran unseen (before a window): it may have changed the names.
    pub(crate) fn unseen(&mut self) {
        self.view.forget_names();
    }

    /// Hands on what is left, reporting a failure (drop cannot).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
