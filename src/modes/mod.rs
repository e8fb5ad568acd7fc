//! The front ends. Each drives the same `Engine` and prints with the same
//! view, so their outputs agree byte for byte.

pub(crate) mod batch;
mod driver;
mod files;
pub(crate) mod fuzz;
mod input;
pub(crate) mod interactive;
mod output_file;
mod record;
pub(crate) mod runner;
pub(crate) mod serve;
pub(crate) mod shell;
mod sink;
pub(crate) mod tape;
pub(crate) mod tui;
pub(crate) mod verify;
pub(crate) mod window;

use std::io::{self, Write};
use std::path::Path;

pub use crate::cli::Job;
pub use driver::Driver;
pub(crate) use driver::{show_step, step};
pub(crate) use files::{FileError, STDIN, describe, is_stdin, open_input};
pub(crate) use input::Input;
pub(crate) use output_file::{OutputError, OutputFile};
pub use sink::Sink;

use crate::bots::Autopilot;
use crate::cli::Session;

/// How a run that got going ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// The trace ran (game errors such as `button already taken` included).
    Ran,
    /// A syntax or type error message was printed.
    Rejected,
    /// A session asked to stop by a signal (Ctrl-C) stopped before it found
    /// anything: 130, as a shell reports a command ended by Ctrl-C.
    Interrupted,
}

/// Why a run could not go on; printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// IN cannot be read.
    #[error(transparent)]
    Input(#[from] FileError),
    /// OUT (or `verify --trace-out`) was not made.
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("Error: recording file {0} already exists! --record makes a new file")]
    RecordingExists(String),
    #[error("error: reading '{0}' failed: {1}")]
    Read(String, io::Error),
    /// The spool that keeps what a run needs between reading and printing
    /// could not be written or read back (a full disk, among others).
    #[error("error: keeping the trace in a temporary file failed: {0}")]
    Spool(io::Error),
    /// The output went away (a closed pipe) after the run had earned this
    /// outcome; the program ends quietly with its exit status.
    #[error("the output was closed")]
    Closed(RunOutcome),
    /// `-g` without a terminal to draw on.
    #[error("error: the board (-g) needs a terminal; -i and -b work without one")]
    NoTerminal,
    /// Writing the output failed (a closed pipe among others).
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

impl RunOutcome {
    /// 0 the trace ran, 1 a syntax or type error was printed (SPEC §5).
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            RunOutcome::Ran => 0,
            RunOutcome::Rejected => 1,
            RunOutcome::Interrupted => 130,
        }
    }
}

impl RunError {
    /// The status the program ends with: the one the run had earned when
    /// the output went away, otherwise 2, an invocation or file error.
    pub(crate) fn exit_code(&self) -> u8 {
        match self {
            RunError::Closed(outcome) => outcome.exit_code(),
            RunError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            RunError::Input(e) => e.exit_code(),
            RunError::Output(e) => e.exit_code(),
            _ => 2,
        }
    }

    /// Whether the output went away (a closed pipe): nothing more is
    /// printed, the program ends quietly.
    pub(crate) fn output_closed(&self) -> bool {
        match self {
            RunError::Closed(_) => true,
            RunError::Write(e) => e.kind() == io::ErrorKind::BrokenPipe,
            _ => false,
        }
    }
}

/// Kept lines per chunk in `-b IN OUT` (here, below the batch front end and
/// the coverage replay, which both need it).
pub(crate) const CHUNK_LINES: usize = 100;

/// Runs a trace file as `job` says, writing the output to `out`; bots (in
/// the batch jobs) answer as the trace plays.
pub fn run_job(
    job: Job,
    input: &Path,
    out: &mut dyn Write,
    autopilot: Autopilot,
) -> Result<RunOutcome, RunError> {
    run_input(job, open_input(input)?, out, autopilot)
}

/// Runs a trace opened for its one read (a file, standard input, or bytes
/// in memory) as `job` says: the one place batch and window runs are made,
/// for the command line and the web server.
pub(crate) fn run_input(
    job: Job,
    input: Input,
    out: &mut dyn Write,
    autopilot: Autopilot,
) -> Result<RunOutcome, RunError> {
    let mut driver = Driver::new(autopilot);
    let mut sink = Sink::new(out);
    let ran = match job {
        Job::Whole => batch::run_whole(input, &mut sink, &mut driver),
        Job::Chunks => batch::run_chunks(input, &mut sink, &mut driver),
        Job::Window(w) => window::run(w, input, &mut sink),
    };
    let finished = ran.and_then(|outcome| Ok(sink.finish().map(|()| outcome)?));
    match finished {
        Err(RunError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            Err(RunError::Closed(sink.outcome()))
        }
        other => other,
    }
}

/// The session as played on a terminal (`-i` there, `-g`): a `random` bot
/// without `--seed` gets a fresh seed, shown on standard error so that the
/// session can be repeated.
pub(crate) fn on_terminal(session: &Session) -> Session {
    let mut session = session.clone();
    if let Some(seed) = session.fresh_seed() {
        eprintln!("random seed: {seed}");
    }
    session
}
