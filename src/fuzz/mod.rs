//! `tictac fuzz`: differential testing of any ETF-style program against the
//! engine (or another oracle), with traces generated to reach every
//! behaviour, and each new kind of divergence shrunk to a small trace
//! written as a ready acceptance test.

mod expect;
mod generate;
mod program;
mod progress;
mod report;
mod reporter;
mod saved;
mod shrink;
mod trace;
mod workplace;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock, mpsc};
use std::time::{Duration, Instant};

use crate::behaviour::{Behaviour, Coverage};
use crate::platform::signals;
use crate::status::{Status, WriteError};
use expect::{Expected, Kind, first_difference};
use generate::{Settings, generate, rng_for};
use program::{Exit, Guarded, Launched, Launcher, Limits};
use progress::Progress;
use report::{Ended, Reports, Symptom, Telling, falsifying};
use reporter::{FuzzEvent, FuzzReporter, Human, LOGGED_EVERY, Opening, Summary};
use saved::{TracesFile, check_out, save};
use trace::Trace;
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
}

impl Fuzzed {
    /// 1 once a divergence was found (or the program failed on every
    /// trace); 130 for a session a signal stopped before it found any.
    pub(crate) fn status(&self) -> Status {
        match self.stopped {
            _ if self.divergences > 0 => Status::Failed,
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

/// How long a program that could not be started is given before it is
/// tried once more (a rebuild replacing it), before the session ends.
const RESTART_AFTER: Duration = Duration::from_secs(1);

/// Different traces the program hangs on, or is killed on before printing
/// anything, before the session stops: it fails on every trace, and each
/// hang costs a timeout.
const STALLS: usize = 5;

/// Output past this size (beyond the expected one) is a divergence of its own.
const MIN_CAP: usize = 16 << 20;

/// What the workers share.
struct Shared {
    covered: Mutex<Coverage>,
    /// Where each trace is kept (`--save-traces`), and the first failure to
    /// write there, which ends the session.
    saved: Option<Mutex<TracesFile>>,
    save_failed: Mutex<Option<FuzzError>>,
    kinds: Mutex<HashSet<Kind>>,
    /// The divergences reported, kinds of one cause together.
    reports: Mutex<Reports>,
    /// The different traces of the session the program hung on or was
    /// killed on silently (at most `STALLS`), with what they showed.
    stalls: Mutex<Vec<(Trace, Found)>>,
    /// A divergence from the very start of the output was reported: one
    /// fault, whatever kind later traces would name it.
    root_found: AtomicBool,
    /// A run of the program printed something.
    printed: AtomicBool,
    runs: AtomicU64,
    /// The session is over: no new run, and running programs are stopped.
    stop: AtomicBool,
    /// Why it is over (the first reason).
    why: Mutex<Option<Stop>>,
    /// Every run holds this shared; a timeout is confirmed holding it alone.
    alone: RwLock<()>,
    /// Runs that timed out, then finished when run again alone.
    flaky: AtomicU64,
    /// The first failure of the oracle, which ends the session.
    oracle_failure: Mutex<Option<String>>,
    /// The first trace that could not be written, or copy of the folder
    /// that could not be made, which ends the session.
    not_written: Mutex<Option<FuzzError>>,
    /// Why the program could not be started on a trace, twice, which ends
    /// the session.
    cannot_start: Mutex<Option<String>>,
    /// The traces drawn ahead, in run order; taken away (so the drawing
    /// thread stops) when the last worker leaves.
    queue: Mutex<Option<mpsc::Receiver<Drawn>>>,
    /// Workers still at work.
    working: AtomicUsize,
}

/// A run's number, its trace and what the engine makes of it.
type Drawn = (u64, Trace, Expected);

/// Traces drawn ahead of the workers (per worker): enough that a worker
/// never waits for one, few enough that a session stopped by `--time`
/// drops little.
const AHEAD: usize = 4;

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
    let mut exclude: Coverage = options.exclude.iter().copied().collect();
    if options.oracle.is_some() {
        exclude = exclude
            .union(Behaviour::ALL.iter().copied().filter(|b| b.departs_from_etf()).collect());
    }
    let settings = Settings { max_lines: options.max_lines, exclude };
    let scratch = scratch_dir().map_err(FuzzError::Scratch)?;
    // The time counts from here: the checks that the programs start are
    // part of the session (a program that hangs on every trace).
    let deadline = options.time.map(|t| Instant::now() + t);
    let timeout = options.time.map_or(options.timeout, |t| t.min(options.timeout));
    let limits = Limits { timeout, cap: MIN_CAP };
    let started = Guarded { stop: Some(interrupt.flag()) };
    let mut place = Workplace::new(&options.program, scratch.path(), "probe");
    let room = place.enter()?;
    probe(started, &room, scratch.path(), limits).map_err(FuzzError::Program)?;
    let in_place = room.note.clone();
    drop((room, place));
    if let Some(oracle) = &options.oracle {
        let here = Room::here(oracle);
        probe(started, &here, scratch.path(), limits).map_err(FuzzError::Oracle)?;
    }
    let saved = match &options.save_traces {
        Some(path) => Some(Mutex::new(TracesFile::open(path)?)),
        None => None,
    };
    let mut reporter = Human::new(out, terminal, LOGGED_EVERY);
    let opening = Opening {
        program: options.program.join(" "),
        against: options
            .oracle
            .as_ref()
            .map_or("the engine".to_string(), |o| format!("'{}'", o.join(" "))),
        seed,
        bounds: match options.time {
            Some(time) => format!("{} runs or {} s", options.runs, time.as_secs_f64()),
            None => format!("{} runs", options.runs),
        },
        jobs: options.jobs,
    };
    reporter
        .report(&FuzzEvent::Started(&opening))
        .map_err(|e| WriteError::earned(e, Status::Ran))?;
    if let Some(note) = &in_place {
        reporter.report(&FuzzEvent::Found(note)).map_err(|e| WriteError::earned(e, Status::Ran))?;
    }

    let shared = Shared {
        covered: Mutex::new(Coverage::default()),
        saved,
        save_failed: Mutex::new(None),
        kinds: Mutex::new(HashSet::new()),
        reports: Mutex::new(Reports::default()),
        stalls: Mutex::new(Vec::new()),
        root_found: AtomicBool::new(false),
        printed: AtomicBool::new(false),
        runs: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        why: Mutex::new(None),
        alone: RwLock::new(()),
        flaky: AtomicU64::new(0),
        oracle_failure: Mutex::new(None),
        not_written: Mutex::new(None),
        cannot_start: Mutex::new(None),
        queue: Mutex::new(None),
        working: AtomicUsize::new(options.jobs.max(1)),
    };
    let (feed, queue) = mpsc::sync_channel::<Drawn>(AHEAD * options.jobs.max(1));
    *lock(&shared.queue) = Some(queue);
    let start = Instant::now();
    let (sender, found) = mpsc::channel::<String>();
    // Only what a `-b` run can show counts: the mode behaviours are
    // `tictac test --coverage`'s.
    let total = Coverage::batch().len() - exclude.intersection(Coverage::batch()).len();
    // The first error writing `out`; the session stops at it.
    let mut write_error: Option<io::Error> = None;
    // Each worker's trace file, open before any starts.
    let files = (0..options.jobs.max(1))
        .map(|worker| {
            let file = scratch.path().join(format!("trace-{worker}.txt"));
            let handle = OpenOptions::new().read(true).write(true).create_new(true).open(&file)?;
            Ok((file, handle))
        })
        .collect::<io::Result<Vec<_>>>()
        .map_err(FuzzError::Scratch)?;
    std::thread::scope(|scope| {
        // Traces are drawn on a thread of their own, ahead of the runs, so
        // a worker only writes, runs and compares.
        {
            let (shared, settings) = (&shared, &settings);
            scope.spawn(move || draw_ahead(options, settings, shared, seed, deadline, &feed));
        }
        for (worker, (file, handle)) in files.into_iter().enumerate() {
            let sender = sender.clone();
            let (shared, settings) = (&shared, &settings);
            let place = RefCell::new(Workplace::new(
                &options.program,
                scratch.path(),
                &format!("work-{worker}"),
            ));
            scope.spawn(move || {
                let worker = Worker { options, settings, shared, file, handle, place, deadline };
                worker.work(&sender);
            });
        }
        drop(sender);
        // Until every worker is done: once stopped, they end within moments.
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                shared.halt(Stop::Time);
            }
            if let Some(signal) = interrupt.signal() {
                shared.halt(Stop::Signal(signal));
            }
            if write_error.is_none() && closed() {
                write_error = Some(io::ErrorKind::BrokenPipe.into());
                shared.halt(Stop::Other);
            }
            let message = match found.recv_timeout(Duration::from_millis(250)) {
                Ok(message) => Some(message),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            // Each lock only for its read (a struct literal would hold both).
            let covered = lock(&shared.covered).len();
            let divergences = lock(&shared.reports).len();
            let progress = Progress {
                runs: shared.runs.load(Ordering::Relaxed),
                all_runs: options.runs,
                elapsed: start.elapsed(),
                time_left: deadline.map(|d| d.saturating_duration_since(Instant::now())),
                covered,
                total,
                divergences,
            };
            let told = message
                .iter()
                .map(|m| FuzzEvent::Found(m))
                .chain([FuzzEvent::Progress(&progress)])
                .try_for_each(|event| reporter.report(&event));
            if write_error.is_none()
                && let Err(e) = told
            {
                write_error = Some(e);
                shared.halt(Stop::Other);
            }
        }
    });
    let stopped = *lock(&shared.why);
    if let Some(e) = write_error {
        return Err(
            WriteError::earned(e, Status::failed_if(lock(&shared.reports).len() > 0)).into()
        );
    }
    reporter.report(&FuzzEvent::Stopped)?;
    if let Some(failure) = lock(&shared.oracle_failure).take() {
        return Err(FuzzError::OracleFailed(failure));
    }
    if let Some(e) = lock(&shared.not_written).take() {
        return Err(e);
    }
    if let Some(failed) = lock(&shared.save_failed).take() {
        return Err(failed);
    }
    // Before the reports are locked here: saying it may add one.
    let stalled = (stopped == Some(Stop::Stalled)).then(|| stalled(options, &shared));
    let reports = lock(&shared.reports);
    let divergences = reports.len();
    let runs = shared.runs.load(Ordering::Relaxed);
    let summary = Summary {
        stalled,
        signal: match stopped {
            Some(Stop::Signal(name)) => Some((name, began.elapsed())),
            _ => None,
        },
        flaky: (shared.flaky.load(Ordering::Relaxed), options.timeout),
        reports: &reports,
        runs,
        covered: lock(&shared.covered)
            .iter()
            .filter(|b| b.in_batch() && !exclude.contains(*b))
            .count(),
        total,
    };
    reporter
        .report(&FuzzEvent::Finished(&summary))
        .map_err(|e| WriteError::earned(e, Status::failed_if(divergences > 0)))?;
    // The summary counts the runs that ran; the session did not do its work.
    if let Some(why) = lock(&shared.cannot_start).take() {
        let again = RESTART_AFTER.as_secs_f64();
        return Err(FuzzError::Program(format!(
            "{why} (after {runs} runs, and again {again} s later)"
        )));
    }
    Ok(Fuzzed { runs, divergences, stopped })
}

/// Says why a session stopped on a program that failed on every trace, and
/// names the smallest trace it failed on: the report that holds it, or
/// else that trace saved as it was (shrinking it would cost a timeout a
/// try).
fn stalled(options: &Options, shared: &Shared) -> String {
    let stalls = lock(&shared.stalls);
    // Each way it failed, with how many traces it failed on so.
    let mut ways: Vec<(String, usize)> = Vec::new();
    for (_, found) in stalls.iter() {
        let how = found.symptom.failed_how(options.timeout);
        match ways.iter_mut().find(|(h, _)| *h == how) {
            Some((_, n)) => *n += 1,
            None => ways.push((how, 1)),
        }
    }
    let what = match &ways[..] {
        [(how, _)] => how.clone(),
        _ => ways.iter().map(|(how, n)| format!("{how} ({n})")).collect::<Vec<_>>().join(" or "),
    };
    let mut text = format!(
        "Stopped: the program {what} on {} different traces: it seems to fail on every trace, and more runs would only show that again.\n",
        stalls.len()
    );
    // What it said on the last of them that said anything: why it fails.
    if let Some((_, found)) = stalls.iter().rev().find(|s| !s.1.symptom.stderr.is_empty()) {
        let heading = "Its standard error on the last of them";
        text.push_str(&report::stderr_tail(&found.symptom.stderr, "", heading));
    }
    let Some((trace, found)) = stalls.iter().min_by_key(|s| s.0.len()) else { return text };
    let mut reports = lock(&shared.reports);
    let kind = found.kind;
    let said = match reports.saved_for(kind, found.root) {
        Some(path) => format!("The smallest trace it failed on is saved above: {}", path.display()),
        None => {
            let trace = trace.text();
            let saved = save(&options.out, kind.id(), &trace, &found.wanted);
            let said = match &saved {
                Ok(path) => format!(
                    "The smallest trace it failed on, saved as it was (not shrunk): {}",
                    path.display()
                ),
                Err(why) => format!("The smallest trace it failed on could not be saved: {why}"),
            };
            reports.add((kind, found.root), trace, found.symptom.clone(), saved.ok());
            said
        }
    };
    text.push_str(&said);
    text.push('\n');
    text
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Ends the session: no new run, running programs stopped. The first
    /// reason given is the one kept.
    fn halt(&self, why: Stop) {
        lock(&self.why).get_or_insert(why);
        self.stop.store(true, Ordering::Relaxed);
    }
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

/// Fails when the program cannot be started at all.
fn probe(launcher: Guarded, room: &Room, scratch: &Path, limits: Limits) -> Result<(), String> {
    let file = scratch.join("probe.txt");
    fs::write(&file, b"").map_err(|e| e.to_string())?;
    match launcher.launch(&room.command, room.dir.as_deref(), &file, limits) {
        Launched::CannotStart(why) => Err(why),
        _ => Ok(()),
    }
}

/// A divergence a run showed, with what the oracle printed.
#[derive(Clone)]
struct Found {
    kind: Kind,
    /// The output differs from its first byte, or at the initial state.
    root: bool,
    wanted: Vec<u8>,
    /// What its report shows: the line that differs, how the program ended.
    symptom: Symptom,
}

/// What one run on a trace says.
enum Outcome {
    Agrees,
    Diverges(Box<Found>),
    /// Nothing: the session was stopped during the run.
    Unknown,
    /// The trace could not be written, or the folder copied (a full or
    /// size-limited disk).
    NotWritten(FuzzError),
    /// The oracle failed on the trace (why).
    OracleFailed(String),
    /// The program could not be started (why): deleted, no longer
    /// executable, being rebuilt.
    CannotStart(String),
}

/// Draws the traces of the session in run order, steered by what those
/// drawn before reach (each drawn trace is run, so with one job this is the
/// coverage of the runs before), until the runs or the time are spent, the
/// session stops, or the workers are gone.
fn draw_ahead(
    options: &Options,
    settings: &Settings,
    shared: &Shared,
    seed: u64,
    deadline: Option<Instant>,
    feed: &mpsc::SyncSender<Drawn>,
) {
    let mut drawn = Coverage::default();
    for run in 0..options.runs {
        let out_of_time = deadline.is_some_and(|d| Instant::now() >= d);
        if out_of_time || shared.stop.load(Ordering::Relaxed) {
            return;
        }
        let uncovered = Coverage::from_bits(!drawn.bits()).intersection(Coverage::batch());
        let (trace, expected) = generate(&mut rng_for(seed, run), settings, uncovered);
        drawn = drawn.union(expected.coverage);
        if feed.send((run, trace, expected)).is_err() {
            return;
        }
    }
}

/// Dropped when a worker leaves (also by a panic): the last one takes the
/// queue away, so the drawing thread is not left waiting on a full queue.
struct Leaving<'a>(&'a Shared);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        if self.0.working.fetch_sub(1, Ordering::AcqRel) == 1 {
            drop(lock(&self.0.queue).take());
        }
    }
}

/// One worker's view of the session.
struct Worker<'a> {
    options: &'a Options,
    settings: &'a Settings,
    shared: &'a Shared,
    /// The worker's own trace file, rewritten for every run.
    file: PathBuf,
    /// That file, open: rewritten in place, without a path lookup or a
    /// truncation each run.
    handle: fs::File,
    /// Where the program runs: the worker's copy of the folder.
    place: RefCell<Workplace>,
    /// When `--time` runs out.
    deadline: Option<Instant>,
}

impl Worker<'_> {
    fn work(&self, found: &mpsc::Sender<String>) {
        let shared = self.shared;
        let _leaving = Leaving(shared);
        while let Some((run, trace, expected)) = self.draw() {
            if let Some(saved) = &shared.saved
                && let Err(e) = lock(saved).append(&trace.text())
            {
                lock(&shared.save_failed).get_or_insert(e);
                shared.halt(Stop::Other);
            }
            // A timeout is confirmed until a hang has been found.
            let confirm = !lock(&shared.kinds).contains(&Kind::Hang);
            let found_one = match self.try_trace_again(&trace, &expected, confirm) {
                Outcome::Unknown => continue,
                Outcome::CannotStart(why) => {
                    lock(&shared.cannot_start).get_or_insert(why);
                    shared.halt(Stop::Other);
                    return;
                }
                Outcome::NotWritten(e) => {
                    lock(&shared.not_written).get_or_insert(e);
                    shared.halt(Stop::Other);
                    return;
                }
                Outcome::OracleFailed(why) => {
                    self.oracle_failed(&why, &trace);
                    return;
                }
                Outcome::Agrees => None,
                Outcome::Diverges(divergence) => Some(*divergence),
            };
            {
                let mut covered = lock(&shared.covered);
                *covered = covered.union(expected.coverage);
            }
            shared.runs.fetch_add(1, Ordering::Relaxed);
            // Until a run prints something, printing nothing is failing
            // on every trace too (a program started in the wrong folder).
            let silent = |d: &Found| d.symptom.silent() || d.symptom.ended == Ended::TimedOut;
            if !found_one.as_ref().is_some_and(silent) {
                shared.printed.store(true, Ordering::Relaxed);
            }
            let Some(divergence) = found_one else { continue };
            if divergence.symptom.stalled()
                || (divergence.symptom.silent() && !shared.printed.load(Ordering::Relaxed))
            {
                self.stalled(&trace, &divergence);
            }
            // One fault at the root shows as many kinds: reported once.
            if divergence.root && shared.root_found.swap(true, Ordering::Relaxed) {
                continue;
            }
            if !lock(&shared.kinds).insert(divergence.kind) {
                continue;
            }
            let message = self.report(trace, divergence, run);
            if found.send(message).is_err() {
                return;
            }
        }
    }

    /// Counts a trace the program hung on or was killed on silently (or
    /// printed nothing on, before any run printed something); the
    /// `STALLS`th different one ends the session.
    fn stalled(&self, trace: &Trace, found: &Found) {
        let mut stalls = lock(&self.shared.stalls);
        if stalls.len() < STALLS && stalls.iter().all(|(t, _)| t != trace) {
            stalls.push((trace.clone(), found.clone()));
            if stalls.len() == STALLS {
                self.shared.halt(Stop::Stalled);
            }
        }
    }

    /// The next run's number and trace, unless the session is over.
    fn draw(&self) -> Option<Drawn> {
        let shared = self.shared;
        let out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
        if out_of_time || shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        lock(&shared.queue).as_ref()?.recv().ok()
    }

    /// Ends the session: the oracle failed on `trace`.
    fn oracle_failed(&self, why: &str, trace: &Trace) {
        let oracle = self.options.oracle.as_deref().unwrap_or_default().join(" ");
        let message = format!(
            "the oracle '{oracle}' failed on a trace ({why}), so no verdict on the program can be given; the trace:\n{}",
            String::from_utf8_lossy(&trace.text()).trim_end()
        );
        lock(&self.shared.oracle_failure).get_or_insert(message);
        self.shared.halt(Stop::Other);
    }

    /// Runs the oracle (none: the engine's `expected`) and the program on the
    /// trace in `self.file`, the program in its room.
    fn launch_both(&self, limits: Limits) -> Result<(Option<Launched>, Launched), FuzzError> {
        let launcher = Guarded { stop: Some(&self.shared.stop) };
        let oracle =
            self.options.oracle.as_ref().map(|o| launcher.launch(o, None, &self.file, limits));
        let room = self.place.borrow_mut().enter()?;
        let program = room.run(|command, dir| launcher.launch(command, dir, &self.file, limits))?;
        Ok((oracle, room.as_in_folder(program)))
    }

    /// `try_trace`, once more `RESTART_AFTER` later if the program could not
    /// be started (a rebuild replacing it): the session does not go on
    /// without it, counting runs that never ran.
    fn try_trace_again(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        let why = match self.try_trace(trace, expected, confirm) {
            Outcome::CannotStart(why) => why,
            outcome => return outcome,
        };
        std::thread::sleep(RESTART_AFTER);
        if self.shared.stop.load(Ordering::Relaxed) {
            return Outcome::CannotStart(why);
        }
        match self.try_trace(trace, expected, confirm) {
            // Stopped meanwhile: it had not started.
            Outcome::Unknown => Outcome::CannotStart(why),
            outcome => outcome,
        }
    }

    /// Runs the program (and the oracle) on a trace. A timeout is run again
    /// with no other run going before it counts (the oracle's always, the
    /// program's when `confirm`): on a loaded machine a run can miss its
    /// time without hanging.
    fn try_trace(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        if let Err(e) = self.rewrite(&trace.text()) {
            return Outcome::NotWritten(FuzzError::TraceNotWritten(e));
        }
        let cap = MIN_CAP.max(expected.output.len() + (1 << 20));
        let limits = Limits { timeout: self.options.timeout, cap };
        let timed_out = |(oracle, program): &(Option<Launched>, Launched)| {
            matches!(oracle, Some(Launched::TimedOut))
                || (confirm && *program == Launched::TimedOut)
        };
        let ran = {
            let _shared = self.shared.alone.read().unwrap_or_else(|e| e.into_inner());
            self.launch_both(limits)
        };
        let mut ran = match ran {
            Ok(ran) => ran,
            Err(e) => return Outcome::NotWritten(e),
        };
        if timed_out(&ran) {
            let _alone = self.shared.alone.write().unwrap_or_else(|e| e.into_inner());
            ran = match self.launch_both(limits) {
                Ok(ran) => ran,
                Err(e) => return Outcome::NotWritten(e),
            };
            if !timed_out(&ran) && !matches!(ran.1, Launched::Stopped) {
                self.shared.flaky.fetch_add(1, Ordering::Relaxed);
            }
        }
        let (oracle, program) = ran;
        let (wanted, wanted_status) = match oracle {
            // Borrowed: a copy only for a divergence.
            None => (Cow::Borrowed(expected.output.as_slice()), Some(expected.status)),
            Some(oracle) => match self.oracle_answer(oracle, expected) {
                Ok((output, status)) => (Cow::Owned(output), status),
                Err(outcome) => return outcome,
            },
        };
        let compare = |output: &[u8]| {
            let kind = first_difference(expected, &wanted, output)?;
            let root = kind == Kind::Behaviour(Behaviour::InitialState)
                || (!wanted.is_empty() && wanted.first() != output.first());
            Some((kind, root))
        };
        let mut stderr = Vec::new();
        let (found, output, ended) = match program {
            Launched::TimedOut => (Some((Kind::Hang, false)), Vec::new(), Ended::TimedOut),
            Launched::Stopped => return Outcome::Unknown,
            Launched::CannotStart(why) => return Outcome::CannotStart(why),
            Launched::TooMuch(output) => (compare(&output), output, Ended::TooMuch),
            Launched::Finished { output, exit, stderr: err } => {
                stderr = err;
                // A crash is a divergence whatever the output; another
                // status only with --check-status.
                let found = compare(&output).or_else(|| match &exit {
                    Exit::Crashed(_) => Some((Kind::Crash, false)),
                    Exit::Status(status) => (self.options.check_status
                        && Some(*status) != wanted_status)
                        .then_some((Kind::ExitStatus, false)),
                });
                (found, output, Ended::Exited(exit))
            }
        };
        match found {
            None => Outcome::Agrees,
            Some((kind, root)) => {
                let symptom = match ended {
                    Ended::TimedOut => Symptom::timed_out(),
                    _ => Symptom::of(&wanted, &output, ended, wanted_status)
                        .with_stderr(stderr)
                        .rejected_at(expect::rejected_at(&trace.text(), &wanted, &output)),
                };
                let wanted = wanted.into_owned();
                Outcome::Diverges(Box::new(Found { kind, root, wanted, symptom }))
            }
        }
    }

    /// The oracle's output and status, or why it failed: it could not start,
    /// did not finish (twice), printed past the cap or nothing at all, was
    /// killed by a signal, or exited non-zero on a trace the engine runs (the
    /// ETF oracle always exits 0).
    fn oracle_answer(
        &self,
        oracle: Launched,
        expected: &Expected,
    ) -> Result<(Vec<u8>, Option<i32>), Outcome> {
        let failed = |why: String| Err(Outcome::OracleFailed(why));
        match oracle {
            Launched::Finished { exit: Exit::Crashed(how), .. } => failed(format!("it was {how}")),
            Launched::Finished { exit: Exit::Status(code), .. }
                if code != 0 && expected.status == 0 =>
            {
                failed(format!("it exited with status {code} on a trace without an error"))
            }
            // Every trace prints something: its first state, or an error.
            Launched::Finished { output, .. } if output.is_empty() => {
                failed("it printed nothing (any trace prints its first state or an error)".into())
            }
            Launched::Finished { output, exit: Exit::Status(status), .. } => {
                Ok((output, Some(status)))
            }
            Launched::TimedOut => failed(format!(
                "it did not finish in {} s, run alone too",
                self.options.timeout.as_secs_f64()
            )),
            Launched::TooMuch(_) => failed("it printed far more than the engine does".into()),
            Launched::CannotStart(why) => failed(why),
            Launched::Stopped => Err(Outcome::Unknown),
        }
    }

    /// Makes the worker's file hold `text`: written over the old text, then
    /// cut to its length (pages are freed only when the trace got shorter).
    fn rewrite(&self, text: &[u8]) -> io::Result<()> {
        crate::platform::files::write_at_start(&self.handle, text)?;
        self.handle.set_len(text.len() as u64)
    }

    /// Reports a new kind of divergence: shrunk, written as a test, and
    /// told as Hypothesis tells a falsifying example; or, when a report of
    /// the same cause was made (the same shrunk trace, the same differing
    /// lines), counted there. Once the session is stopped the shrinking
    /// ends with the smallest trace found so far.
    fn report(&self, trace: Trace, found: Found, run: u64) -> String {
        let shared = self.shared;
        let kind = found.kind;
        // Lines that differ as in a report made: no need to shrink.
        {
            let mut reports = lock(&shared.reports);
            if let Some((k, how)) = reports.same_cause(&trace.text(), &found.symptom) {
                return reports.join(k, kind, run, &how);
            }
        }
        let from = trace.len();
        let began = Instant::now();
        let (mut small, mut found) = self.shrink(trace, found);
        let cut =
            shared.stop.load(Ordering::Relaxed).then(|| lock(&shared.why).unwrap_or(Stop::Other));
        // Stopped because the program fails on every trace: the smallest
        // trace it failed on, shrunk or not (a try costs a timeout).
        let mut not_shrunk = false;
        if cut == Some(Stop::Stalled) {
            let stalls = lock(&shared.stalls);
            let same = |s: &&(Trace, Found)| s.1.kind == kind || (s.1.root && found.root);
            let smaller = stalls.iter().filter(same).min_by_key(|s| s.0.len());
            if let Some((trace, stalled)) = smaller.filter(|s| s.0.len() < small.len()) {
                (small, found, not_shrunk) = (trace.clone(), stalled.clone(), true);
            }
        }
        let small_text = small.text();
        let (text, wanted) = if kind == Kind::ExitStatus {
            // The test says which status the program must end with; the
            // expected output is the oracle's for the file as saved.
            let status = found.symptom.wanted_status.unwrap_or(0);
            let text = [format!("-- status: {status}\n").into_bytes(), small_text.clone()].concat();
            let wanted = self.wanted_for(&text);
            (text, wanted)
        } else {
            (small_text.clone(), Some(found.wanted))
        };
        // Held until the report is made, so two of one cause are one.
        let mut reports = lock(&shared.reports);
        if let Some((k, how)) = reports.same_cause(&small_text, &found.symptom) {
            return reports.join(k, kind, run, &how);
        }
        let written = wanted
            .ok_or_else(|| "the oracle failed on the shrunk trace".to_string())
            .and_then(|wanted| save(&self.options.out, kind.id(), &text, &wanted));
        let secs = began.elapsed().as_secs_f64();
        let mut head = format!("Divergence: {} ({}), run {run}", kind.id(), kind.description());
        if not_shrunk {
            head.push_str(&format!(
                ", not shrunk: the smallest of the {STALLS} traces the program failed on"
            ));
        } else {
            head.push_str(&format!(
                ", shrunk from {from} to {} events in {secs:.2} s",
                small.len()
            ));
            if let Some(why) = cut {
                head.push_str(&format!(" (not fully shrunk: {})", why.cut_short()));
            }
        }
        let telling =
            Telling { timeout: self.options.timeout, statuses: self.options.check_status };
        let message = falsifying(&head, &text, &found.symptom, telling, &written);
        reports.add((kind, found.root), small_text, found.symptom, written.ok());
        message
    }

    /// The smallest trace that still shows `found`'s kind, and what it shows.
    fn shrink(&self, trace: Trace, found: Found) -> (Trace, Found) {
        let shared = self.shared;
        let exclude = self.settings.exclude;
        let kind = found.kind;
        // The passes meet the same candidate again (the last round of
        // passes tries them all once more): each is run once.
        let mut seen: HashMap<Vec<u8>, bool> = HashMap::new();
        // What each trace kept on the way showed.
        let mut shown: HashMap<Vec<u8>, Found> = HashMap::new();
        shown.insert(trace.text(), found.clone());
        let small = shrink::shrink(trace, |candidate| {
            if shared.stop.load(Ordering::Relaxed) {
                return false;
            }
            let text = candidate.text();
            if let Some(&known) = seen.get(&text) {
                return known;
            }
            let expected = Expected::of(&text);
            // A divergence is named by the behaviour of the step where it
            // starts: a trace without that step cannot show it.
            let possible = match kind {
                Kind::Behaviour(b) => expected.steps.iter().any(|s| s.1 == b),
                _ => true,
            };
            if !possible || expected.coverage.iter().any(|b| exclude.contains(b)) {
                seen.insert(text, false);
                return false;
            }
            let shows = match self.try_trace(candidate, &expected, kind == Kind::Hang) {
                Outcome::Diverges(f) if f.kind == kind => {
                    shown.insert(text.clone(), *f);
                    true
                }
                Outcome::OracleFailed(why) => {
                    self.oracle_failed(&why, candidate);
                    false
                }
                _ => false,
            };
            seen.insert(text, shows);
            shows
        });
        // The trace kept last was kept with what it showed.
        let found = shown.remove(&small.text()).unwrap_or(found);
        (small, found)
    }

    /// The expected output of `text`: the engine's, or the oracle's (none if
    /// it fails).
    fn wanted_for(&self, text: &[u8]) -> Option<Vec<u8>> {
        let Some(oracle) = &self.options.oracle else { return Some(Expected::of(text).output) };
        self.rewrite(text).ok()?;
        let limits = Limits { timeout: self.options.timeout, cap: MIN_CAP };
        match Guarded::default().launch(oracle, None, &self.file, limits) {
            Launched::Finished { output, .. } => Some(output),
            _ => None,
        }
    }
}
