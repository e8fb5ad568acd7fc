//! tictac's run pipeline, pure: batch and window runs of a trace (`-b`,
//! `-w`, `-l`), the tape that keeps a trace's commands between its
//! validating read and its run, the driver (the engine and the bots that
//! answer in it), the sink, and what a run did, told once (`watch`). No
//! files, threads, processes or clocks: it builds for
//! `wasm32-unknown-unknown`, and the command line (`tictac`, which opens
//! the files) and the static site's engine (`tictac-web`, a trace in
//! memory) run the modes through the same functions, so their outputs
//! agree byte for byte.

// The core's modules, named here as in the core and in `tictac`.
use tictac_core::{bots, command, engine, game, lang, store, window};

mod batch;
mod driver;
mod encoding;
pub mod input;
mod sink;
pub mod spool;
pub mod status;
pub mod tape;
mod view;
mod watch;
pub mod windowed;

use std::io;

pub use driver::{Driver, show_step, step};
pub use encoding::{Encoding, LOOKED_AT};
pub use input::Input;
pub use sink::Sink;
pub use watch::{Message, Showing, Unit, Watch};

use crate::bots::Autopilot;
use crate::status::{Status, WriteError};
use crate::window::Window;

/// How a trace is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// `-b IN`: validate all, then run all.
    Whole,
    /// `-b IN OUT`: chunks of 100 lines.
    Chunks,
    /// `-w M N IN [OUT]`, `-l IN [OUT]`.
    Window(Window),
}

/// Why a run of the pipeline could not go on; printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("error: reading '{0}' failed: {1}")]
    Read(String, io::Error),
    /// The spool that keeps what a run needs between reading and printing
    /// could not be written or read back (a full disk, among others).
    #[error("error: keeping the trace in a temporary file failed: {0}")]
    Spool(io::Error),
    /// The output went away, or writing it failed: the shared
    /// `status::WriteError`, its source (so not transparent: `app` finds it
    /// there).
    #[error("{0}")]
    Write(#[from] WriteError),
}

impl RunError {
    /// Whether the trace was refused for an event over 1 MiB: said on
    /// standard error, nothing on standard output (SPEC §5).
    pub fn is_event_too_long(&self) -> bool {
        matches!(self, RunError::Read(_, e) if e.get_ref().is_some_and(|e| e.is::<tictac_core::lang::TooLong>()))
    }
}

/// A read error of a text that starts at the file's kept line `first` (a
/// chunk, a window line): an event too long is named by its line in the
/// file, as `-b IN` names it.
pub(crate) fn in_file(e: io::Error, first: usize) -> io::Error {
    match e.get_ref().and_then(|e| e.downcast_ref::<tictac_core::lang::TooLong>()) {
        Some(too_long) => io::Error::new(e.kind(), too_long.in_file(first)),
        None => e,
    }
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

/// Runs a trace opened for its one read (a file, standard input, or bytes
/// in memory) as `job` says, writing the output to `out`; bots (in the
/// batch jobs) answer as the trace plays: the one place batch and window
/// runs are made, for the command line, the web server and the static site.
pub fn run_input(
    job: Job,
    input: Input,
    out: &mut dyn io::Write,
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
pub fn run_watched(
    job: Job,
    input: Input,
    watch: &mut impl Watch,
    autopilot: Autopilot,
) -> Result<Status, RunError> {
    let mut driver = Driver::new(autopilot);
    if !watch.reads_behaviours() {
        driver.engine.skip_behaviours();
    }
    match job {
        Job::Whole => batch::run_whole(input, watch, &mut driver),
        Job::Chunks => batch::run_chunks(input, watch, &mut driver),
        Job::Window(w) => windowed::run(w, input, watch),
    }
}
