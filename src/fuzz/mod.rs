//! `tictac fuzz`: differential testing of any ETF-style program against the
//! engine (or another oracle), with traces generated to reach every
//! behaviour, and each new kind of divergence shrunk to a small trace
//! written as a ready acceptance test.

mod coordinator;
mod expect;
mod generate;
mod program;
mod progress;
mod report;
mod reporter;
mod saved;
mod schedule;
mod shrink;
mod trace;
mod worker;
mod workplace;

use std::cell::{Cell, RefCell};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::behaviour::{Behaviour, Coverage};
use crate::platform::signals;
use crate::status::{Status, WriteError};
use coordinator::{Coordinator, Watch};
use generate::Settings;
use program::{Guarded, Launched, Launcher, Limits};
use reporter::{FuzzEvent, FuzzReporter, Human, LOGGED_EVERY, Opening};
use saved::{TracesFile, check_out};
use schedule::{Draws, Schedule};
use worker::Worker;
use workplace::{Room, Workplace};

pub(crate) use crate::cli::options::FuzzOptions as Options;

/// Why the fuzzer could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FuzzError {
    #[error("error: the program cannot be started: {0}")]
    Program(String),
    #[error("error: the oracle cannot be started: {0}")]
    Oracle(String),
    #[error("error: no scratch folder: {0}")]
    Scratch(io::Error),
    /// `--out` cannot be the folder of the tests (checked before fuzzing).
    #[error("error: --out '{0}' {1}")]
    Out(String, String),
    /// `--save-traces` cannot be appended to (checked before fuzzing).
    #[error("error: --save-traces '{0}' {1}")]
    SaveTraces(String, String),
    /// The oracle failed on a trace: nothing can be said about the program.
    #[error("error: {0}")]
    OracleFailed(String),
    /// A trace could not be written for the program to read: the session
    /// stops rather than skip runs without a word.
    #[error("error: a trace could not be written to the scratch folder: {0}")]
    TraceNotWritten(io::Error),
    /// The system ran out of what tictac needs to start a program (open
    /// files: `ulimit -n`, processes, memory): not the program's doing.
    #[error(
        "error: the session could not go on, and not for the program's doing: {0}\ntictac ran out of what the system lets it have (open files: `ulimit -n`; processes: `ulimit -u`; memory): raise the limit, or run with a smaller -j."
    )]
    RanOut(String),
    /// The folder could not be copied for the program (a full disk).
    #[error("error: cannot copy {0} for the program: {1}")]
    FolderNotCopied(String, io::Error),
    /// The program's folder could not be entered, or left.
    #[error("error: cannot run the program in {0}: {1}")]
    FolderNotEntered(String, io::Error),
    /// The output went away, or writing it failed: the shared
    /// `status::WriteError`, its source (so not transparent: `app` finds it
    /// there).
    #[error("{0}")]
    Write(#[from] WriteError),
}

/// A failed write is the shared `WriteError`.
impl From<io::Error> for FuzzError {
    fn from(e: io::Error) -> FuzzError {
        WriteError::from(e).into()
    }
}

/// What a session did: its runs, the divergences found, why it stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fuzzed {
    pub(crate) runs: u64,
    pub(crate) divergences: usize,
    /// Why it stopped before its runs were done, if it did.
    pub(crate) stopped: Option<Stop>,
    /// It found nothing, but runs it did not finish leave that untrue:
    /// no run finished, or timeouts were not run again alone.
    pub(crate) unchecked: bool,
}

impl Fuzzed {
    /// 1 once a divergence was found (or the program failed on every
    /// trace, or nothing was checked: no run finished, or a timeout was
    /// not run again); 130 for a session a signal stopped before it found any.
    pub(crate) fn status(&self) -> Status {
        match self.stopped {
            _ if self.divergences > 0 => Status::Failed,
            _ if self.unchecked => Status::Failed,
            Some(Stop::Stalled) => Status::Failed,
            Some(Stop::Signal(_)) => Status::Interrupted,
            _ => Status::Ran,
        }
    }
}

/// Why a session stopped before its runs were done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// `--time`, or the default time, ran out.
    Time,
    /// A signal asked it to stop (its name).
    Signal(&'static str),
    /// The program hung or was killed silently on `STALLS` traces.
    Stalled,
    /// Its output was closed, the oracle failed, `--save-traces` failed:
    /// each said elsewhere, or not at all.
    Other,
}

impl Stop {
    /// Why a shrink was cut short, as its report says.
    fn cut_short(self) -> String {
        match self {
            Stop::Time => "the time ran out".into(),
            Stop::Signal(name) => format!("stopped by {name}"),
            Stop::Stalled => format!("the program failed on {STALLS} traces"),
            Stop::Other => "the session stopped".into(),
        }
    }
}

/// `n` and the word for its count (`1 run`, `2 runs`).
pub(crate) fn counted(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// How long a program that could not be started is given before it is
/// tried once more (a rebuild replacing it), before the session ends.
const RESTART_AFTER: Duration = Duration::from_secs(1);

/// Different traces the program hangs on, or is killed on before printing
/// anything, before the session stops: it fails on every trace, and each
/// hang costs a timeout.
const STALLS: usize = 5;

/// Output past this size (beyond the expected one) is a divergence of its own.
const MIN_CAP: usize = 16 << 20;

/// Runs a session, printing progress and each divergence found, then what
/// was found and the closing `Fuzz Results: ...` line. `closed` says
/// whether the reader of `out` has gone: the session then stops at once.
/// The first SIGINT or SIGTERM stops it too, and what it found is said.
pub(crate) fn run(
    options: &Options,
    out: &mut dyn Write,
    terminal: bool,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Fuzzed, FuzzError> {
    // The session's age as its user counts it: the programs' first start
    // (the probe, up to --timeout) included.
    let began = Instant::now();
    check_out(&options.out)?;
    let interrupt = signals::stop_request();
    let seed = options.seed.unwrap_or_else(|| fastrand::u64(..));
    let settings = Settings { max_lines: options.max_lines, exclude: excluded(options) };
    let scratch = scratch_dir().map_err(FuzzError::Scratch)?;
    // The time counts from here: the checks that the programs start are
    // part of the session (a program that hangs on every trace).
    let deadline = options.time.map(|t| Instant::now() + t);
    let in_place = probe_both(options, &interrupt, scratch.path())?;
    let saved = options.save_traces.as_deref().map(TracesFile::open).transpose()?;
    let mut reporter = Human::new(out, terminal, LOGGED_EVERY);
    open(options, seed, in_place.as_deref(), &mut reporter)
        .map_err(|e| WriteError::earned(e, Status::Ran))?;
    let jobs = options.jobs.max(1);
    let files = trace_files(scratch.path(), jobs).map_err(FuzzError::Scratch)?;
    let interrupt_runs = AtomicBool::new(false);
    let watch = Watch { start: Instant::now(), deadline, interrupt: &interrupt, closed };
    let (events, taken) = mpsc::channel();
    let (notes, heard): (Vec<_>, Vec<_>) = files.iter().map(|_| mpsc::channel()).unzip();
    let schedule = Schedule::new(jobs, Draws::new(seed, settings, options.runs, jobs));
    let mut coordinator =
        Coordinator::new(options, &interrupt_runs, notes, schedule, saved, settings.exclude);
    std::thread::scope(|scope| {
        let mut workers = Vec::new();
        for (id, ((file, handle), notes)) in files.into_iter().zip(heard).enumerate() {
            let place = Workplace::new(&options.program, scratch.path(), &format!("work-{id}"));
            let worker = Worker {
                id,
                options,
                settings: &settings,
                interrupt: &interrupt_runs,
                events: events.clone(),
                notes,
                oracle_failed: Cell::new(false),
                stopped: Cell::new(false),
                file,
                handle,
                place: RefCell::new(place),
            };
            workers.push(scope.spawn(move || worker.work()));
        }
        drop(events);
        // Until every worker is done: once stopped, they end within moments.
        coordinator.coordinate(&taken, &watch, &mut reporter);
        crate::suite::pool::join(workers);
    });
    coordinator.finish(&mut reporter, began)
}

/// The behaviours no trace may reach: those excluded, and with an oracle
/// those where tictac departs from the ETF oracle.
fn excluded(options: &Options) -> Coverage {
    let exclude: Coverage = options.exclude.iter().copied().collect();
    match options.oracle {
        Some(_) => {
            exclude.union(Behaviour::ALL.iter().copied().filter(|b| b.departs_from_etf()).collect())
        }
        None => exclude,
    }
}

/// Checks that the program (in a copy of its folder) and the oracle start;
/// the note on the copy of the folder, if any.
fn probe_both(
    options: &Options,
    interrupt: &signals::StopRequest,
    scratch: &Path,
) -> Result<Option<String>, FuzzError> {
    let timeout = options.time.map_or(options.timeout, |t| t.min(options.timeout));
    let limits = Limits { timeout, cap: MIN_CAP };
    let started = Guarded { stop: Some(interrupt.flag()) };
    let mut place = Workplace::new(&options.program, scratch, "probe");
    let room = place.enter()?;
    probe(started, &room, scratch, limits, FuzzError::Program)?;
    let in_place = room.note.clone();
    drop((room, place));
    if let Some(oracle) = &options.oracle {
        let here = Room::here(oracle);
        probe(started, &here, scratch, limits, FuzzError::Oracle)?;
    }
    Ok(in_place)
}

/// The opening line, and the note on the copy of the program's folder.
fn open(
    options: &Options,
    seed: u64,
    in_place: Option<&str>,
    reporter: &mut dyn FuzzReporter,
) -> io::Result<()> {
    let opening = Opening {
        program: options.program.join(" "),
        against: options
            .oracle
            .as_ref()
            .map_or("the engine".to_string(), |o| format!("'{}'", o.join(" "))),
        seed,
        bounds: match options.time {
            Some(time) => {
                format!("{} or {} s", counted(options.runs, "run", "runs"), time.as_secs_f64())
            }
            None => counted(options.runs, "run", "runs"),
        },
        jobs: options.jobs,
    };
    reporter.report(&FuzzEvent::Started(&opening))?;
    match in_place {
        Some(note) => reporter.report(&FuzzEvent::Found(note)),
        None => Ok(()),
    }
}

/// Each worker's trace file, open before any starts.
fn trace_files(scratch: &Path, jobs: usize) -> io::Result<Vec<(PathBuf, fs::File)>> {
    (0..jobs)
        .map(|worker| {
            let file = scratch.join(format!("trace-{worker}.txt"));
            let handle = OpenOptions::new().read(true).write(true).create_new(true).open(&file)?;
            Ok((file, handle))
        })
        .collect()
}

/// A folder for the trace files, rewritten at every run: in memory (tmpfs)
/// where there is one, since rewriting a file on a disk's file system can
/// cost more than the run itself (ext4 writes a truncated file back at
/// close: 3 ms a run, measured); otherwise the usual temporary folder.
fn scratch_dir() -> io::Result<tempfile::TempDir> {
    let builder = tempfile::Builder::new().prefix("tictac-fuzz-").to_owned();
    let memory = Path::new("/dev/shm");
    match memory.is_dir().then(|| builder.tempdir_in(memory)) {
        Some(Ok(dir)) => Ok(dir),
        _ => builder.tempdir(),
    }
}

/// Fails when the program cannot be started at all (`cannot`: its error),
/// or tictac could not start it for want of files or processes.
fn probe(
    launcher: Guarded,
    room: &Room,
    scratch: &Path,
    limits: Limits,
    cannot: fn(String) -> FuzzError,
) -> Result<(), FuzzError> {
    let file = scratch.join("probe.txt");
    fs::write(&file, b"").map_err(FuzzError::Scratch)?;
    match launcher.launch(&room.command, room.dir.as_deref(), &file, limits) {
        Launched::CannotStart(why) => Err(cannot(why)),
        Launched::RanOut(why) => Err(FuzzError::RanOut(why)),
        _ => Ok(()),
    }
}
