//! The run pipeline below the front ends: its pure part (batch and window
//! runs of a trace, the tape, the driver, the sink, what a run did told
//! once) is the crate `tictac-run`, named here; this module adds what
//! touches files and the terminal: the input and output files, the
//! recorder, the shell's line protocol. Every front end drives the same
//! `Engine` through it and prints with the same view, so their outputs
//! agree byte for byte.

mod input_file;
mod output_file;
pub mod protocol;
pub(crate) mod record;

use std::io::{self, Write};
use std::path::Path;

// The pure pipeline (crates/tictac-run), named here as before.
pub(crate) use input_file::{FileError, STDIN, describe, is_stdin, open_input};
pub(crate) use output_file::{OutputError, OutputFile};
pub use record::Recorder;
/// What stops the pure pipeline (a read, the spool, the output): named
/// apart from this layer's `RunError`, which carries it.
pub use tictac_run::RunError as PipelineError;
pub use tictac_run::{
    Driver, Encoding, Input, Job, LOOKED_AT, Message, Showing, Sink, Unit, Watch, input, run_input,
    run_watched, show_step, spool, step, tape, windowed,
};

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
    /// `-g` without a terminal to draw on.
    #[error("error: the board (-g) needs a terminal; -i and -b work without one")]
    NoTerminal,
    /// `-g` on a terminal whose `TERM` says it understands no escape codes.
    #[error(
        "error: the board (-g) needs a terminal that understands escape codes; TERM is dumb: use -i"
    )]
    DumbTerminal,
    /// The shell (`-i`) could not read the terminal it was typed on.
    #[error("error: reading the terminal failed: {0}")]
    Terminal(io::Error),
    /// What stopped the pipeline: a read, the spool, the output.
    #[error(transparent)]
    Run(#[from] PipelineError),
}

/// A failed or closed output is the pipeline's.
impl From<WriteError> for RunError {
    fn from(e: WriteError) -> RunError {
        PipelineError::from(e).into()
    }
}

/// A failed write is the shared `WriteError`.
impl From<io::Error> for RunError {
    fn from(e: io::Error) -> RunError {
        WriteError::from(e).into()
    }
}

/// Runs a trace file as `job` says, writing the output to `out`; bots (in
/// the batch jobs) answer as the trace plays.
pub fn run_job(
    job: Job,
    input: &Path,
    out: &mut dyn Write,
    autopilot: Autopilot,
) -> Result<Status, RunError> {
    Ok(run_input(job, open_input(input)?, out, autopilot)?)
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
