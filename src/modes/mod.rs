//! The front ends. Each drives the same `Engine` and prints with the same
//! view, so their outputs agree byte for byte.

pub mod batch;
pub mod interactive;
pub mod runner;
pub mod shell;
pub mod tape;
pub mod tui;
pub mod verify;
pub mod window;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use crate::bots::Autopilot;
use crate::command::Command;
use crate::engine::Engine;
use crate::game::view::write_state;

/// How a run that got going ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The trace ran (game errors such as `button already taken` included).
    Ran,
    /// A syntax or type error message was printed.
    Rejected,
}

/// Why a run could not go on; printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("error: '{0}' does not exist")]
    Missing(String),
    #[error("error: '{0}' is not readable")]
    Unreadable(String),
    #[error("Error: output file {0} already exists!")]
    OutputExists(String),
    #[error("error: '{0}' cannot be created: {1}")]
    OutputFailed(String, io::Error),
    #[error("error: reading '{0}' failed: {1}")]
    Read(String, io::Error),
    #[error("error: '{0}' changed while it was being run")]
    Changed(String),
    /// The test runner could not run (no tests, a missing path).
    #[error("{0}")]
    Runner(String),
    /// Writing the output failed (a closed pipe among others).
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

/// The ways a trace file can be run into an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// `-b IN`: validate all, then run all.
    Whole,
    /// `-b IN OUT`: chunks of 100 lines.
    Chunks,
    /// `-w M N IN [OUT]`, `-l IN [OUT]`.
    Window(crate::cli::Window),
}

/// Runs a trace file as `job` says, writing the output to `out`; bots (in
/// the batch jobs) answer as the trace plays.
pub fn run_job(
    job: Job,
    input: &Path,
    out: &mut dyn Write,
    autopilot: Autopilot,
) -> Result<Outcome, RunError> {
    let mut driver = Driver::new(autopilot);
    let mut sink = Sink::new(out);
    let outcome = match job {
        Job::Whole => batch::run_whole(input, &mut sink, &mut driver),
        Job::Chunks => batch::run_chunks(input, &mut sink, &mut driver),
        Job::Window(w) => window::run(w, input, &mut sink),
    }?;
    sink.flush_block()?;
    Ok(outcome)
}

/// Opens a trace for reading, or says why it cannot be read.
pub fn open_input(path: &Path) -> Result<BufReader<File>, RunError> {
    let name = || path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => RunError::Missing(name()),
        _ => RunError::Unreadable(name()),
    })?;
    if meta.is_dir() {
        return Err(RunError::Unreadable(name()));
    }
    let file = File::open(path).map_err(|_| RunError::Unreadable(name()))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    // Opening is not reading: some files open and then fail (a directory on
    // some systems, /proc files); find out before anything runs.
    reader.fill_buf().map_err(|_| RunError::Unreadable(name()))?;
    Ok(reader)
}

/// Creates the output file, which must not exist yet.
pub fn create_output(path: &Path) -> Result<File, RunError> {
    let name = || path.display().to_string();
    File::options().write(true).create_new(true).open(path).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => RunError::OutputExists(name()),
        _ => RunError::OutputFailed(name(), e),
    })
}

/// The engine of a run and the bots that play in it.
#[derive(Default)]
pub struct Driver {
    pub engine: Engine,
    pub autopilot: Autopilot,
}

impl Driver {
    pub fn new(autopilot: Autopilot) -> Self {
        Driver { engine: Engine::new(), autopilot }
    }

    /// Runs a command, then each move the bots make in answer; `after` sees
    /// every command so run (the person's first) and the game after it.
    pub fn act<E>(
        &mut self,
        command: &Command,
        mut after: impl FnMut(&Command, &Engine) -> Result<(), E>,
    ) -> Result<(), E> {
        self.engine.run(command);
        after(command, &self.engine)?;
        self.autopilot.follow(&mut self.engine, command, |engine, bot_command| {
            engine.run(bot_command);
            after(bot_command, engine)
        })
    }

    /// One transcript step (see `show_step`) for the command and for each
    /// move the bots make in answer.
    pub fn step<W: Write + ?Sized>(&mut self, command: &Command, out: &mut W) -> io::Result<()> {
        self.act(command, |c, engine| show_step(c, engine, out))
    }
}

/// Runs a command and shows it as a transcript step.
pub fn step<W: Write + ?Sized>(
    engine: &mut Engine,
    command: &Command,
    out: &mut W,
) -> io::Result<()> {
    engine.run(command);
    show_step(command, engine, out)
}

/// A transcript step for a command that just ran: `->` and its echo, then
/// the state after it.
pub fn show_step<W: Write + ?Sized>(
    command: &Command,
    engine: &Engine,
    out: &mut W,
) -> io::Result<()> {
    out.write_all(b"->")?;
    command.write_echo(out)?;
    out.write_all(b"\n")?;
    write_state(out, engine.game())
}

/// The transcript's own output buffer. Batch runs write millions of small
/// pieces; writing them into a concrete `Vec` (inlined copies) and handing
/// the writer big blocks is much cheaper than a call through `dyn Write`
/// for each piece.
pub struct Sink<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
}

impl<'w> Sink<'w> {
    const BLOCK: usize = 256 * 1024;

    pub fn new(out: &'w mut dyn Write) -> Self {
        Sink { out, buf: Vec::with_capacity(Self::BLOCK + 1024) }
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
