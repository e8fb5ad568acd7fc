//! The run pipeline below the front ends: batch and window runs of a trace
//! (`-b`, `-w`, `-l`), the input and output files, the sink, the tape, the
//! driver, the recorder and the shell's plain line protocol. Every front
//! end drives the same `Engine` through it and prints with the same view,
//! so their outputs agree byte for byte.

pub(crate) mod batch;
mod driver;
pub(crate) mod encoding;
pub(crate) mod input;
mod input_file;
mod output_file;
pub mod protocol;
pub(crate) mod record;
mod sink;
pub(crate) mod tape;
mod watch;
pub(crate) mod windowed;

use std::io::{self, Write};
use std::path::Path;

pub use crate::cli::Job;
pub use driver::Driver;
pub(crate) use driver::{show_step, step};
pub(crate) use encoding::Encoding;
pub(crate) use input::Input;
pub(crate) use input_file::{FileError, STDIN, describe, is_stdin, open_input};
pub(crate) use output_file::{OutputError, OutputFile};
pub use record::Recorder;
pub use sink::Sink;
pub(crate) use watch::{Message, Showing, Unit, Watch};

use crate::bots::Autopilot;
use crate::cli::Session;
use crate::status::{Status, WriteError};

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
    /// `-g` without a terminal to draw on.
    #[error("error: the board (-g) needs a terminal; -i and -b work without one")]
    NoTerminal,
    /// The output went away, or writing it failed: the shared
    /// `status::WriteError`, its source (so not transparent: `app` finds it
    /// there).
    #[error("{0}")]
    Write(#[from] WriteError),
}

/// A failed write is the shared `WriteError`.
impl From<io::Error> for RunError {
    fn from(e: io::Error) -> RunError {
        WriteError::from(e).into()
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
) -> Result<Status, RunError> {
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
) -> Result<Status, RunError> {
    let mut sink = Sink::new(out);
    let ran = run_watched(job, input, &mut sink, autopilot);
    let finished = ran.and_then(|outcome| Ok(sink.finish().map(|()| outcome)?));
    match finished {
        Err(RunError::Write(WriteError::Failed(e))) => {
            Err(WriteError::earned(e, sink.outcome()).into())
        }
        other => other,
    }
}

/// Runs a trace as `job` says, telling `watch` what each step did: the
/// one pass of the modes that printing (`run_input`) and coverage
/// (`test::coverage`) both consume.
pub(crate) fn run_watched(
    job: Job,
    input: Input,
    watch: &mut impl Watch,
    autopilot: Autopilot,
) -> Result<Status, RunError> {
    let mut driver = Driver::new(autopilot);
    match job {
        Job::Whole => batch::run_whole(input, watch, &mut driver),
        Job::Chunks => batch::run_chunks(input, watch, &mut driver),
        Job::Window(w) => windowed::run(w, input, watch),
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
