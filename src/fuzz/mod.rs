//! `tictac fuzz`: differential testing of any ETF-style program against the
//! engine (or another oracle), with traces generated to reach every
//! behaviour, and each new kind of divergence shrunk to a small trace
//! written as a ready acceptance test.

mod expect;
mod generate;
mod program;
mod report;
mod shrink;
mod trace;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock, mpsc};
use std::time::{Duration, Instant};

use crate::behaviour::{Behaviour, Coverage};
use crate::run::{OutputError, OutputFile};
use crate::status::{Closed, Status, Stopped, closed_pipe, write_failed};
use expect::{Expected, Kind, first_difference};
use generate::{Settings, generate, rng_for};
use program::{Guarded, Launched, Launcher, Limits};
use report::{FuzzEvent, FuzzReporter, Human};
use trace::Trace;

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
    /// The oracle failed on a trace: nothing can be said about the program.
    #[error("error: {0}")]
    OracleFailed(String),
    /// Standard output was closed (`tictac fuzz ... | head -1`), with what
    /// the session had earned (`Failed` once a divergence was found).
    #[error(transparent)]
    Closed(#[from] Closed),
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

impl Stopped for FuzzError {
    fn closed(&self) -> Option<Status> {
        match self {
            FuzzError::Closed(Closed(earned)) => Some(*earned),
            FuzzError::Write(e) => closed_pipe(e, Status::Ran),
            _ => None,
        }
    }
}

/// What a session did: its runs and the divergences found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fuzzed {
    pub(crate) runs: u64,
    pub(crate) divergences: usize,
}

impl Fuzzed {
    /// `Failed` once a divergence was found.
    pub(crate) fn status(&self) -> Status {
        Status::failed_if(self.divergences > 0)
    }
}

/// Output past this size (beyond the expected one) is a divergence of its own.
const MIN_CAP: usize = 16 << 20;

/// What the workers share.
struct Shared {
    covered: Mutex<Coverage>,
    /// Where each trace is kept (`--save-traces`), and whether that failed.
    saved: Option<Mutex<io::BufWriter<fs::File>>>,
    save_failed: AtomicBool,
    kinds: Mutex<HashSet<Kind>>,
    /// A divergence from the very start of the output was reported: one
    /// fault, whatever kind later traces would name it.
    root_found: AtomicBool,
    runs: AtomicU64,
    /// The session is over: no new run, and running programs are stopped.
    stop: AtomicBool,
    /// It is over because `--time` ran out.
    time_up: AtomicBool,
    /// Every run holds this shared; a timeout is confirmed holding it alone.
    alone: RwLock<()>,
    /// Runs that timed out, then finished when run again alone.
    flaky: AtomicU64,
    /// The first failure of the oracle, which ends the session.
    oracle_failure: Mutex<Option<String>>,
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

/// Runs a session, printing progress and each divergence found, then the
/// closing `Fuzz Results: ...` line. `closed` says whether the reader of
/// `out` has gone: the session then stops at once.
pub(crate) fn run(
    options: &Options,
    out: &mut dyn Write,
    terminal: bool,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Fuzzed, FuzzError> {
    check_out(&options.out)?;
    let seed = options.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut exclude: Coverage = options.exclude.iter().copied().collect();
    if options.oracle.is_some() {
        exclude = exclude
            .union(Behaviour::ALL.iter().copied().filter(|b| b.departs_from_etf()).collect());
    }
    let settings = Settings { max_lines: options.max_lines, exclude };
    let scratch = scratch_dir().map_err(FuzzError::Scratch)?;
    // `--time` counts from here: the checks that the programs start are
    // part of the session (a program that hangs on every trace).
    let deadline = options.time.map(|t| Instant::now() + t);
    let timeout = options.time.map_or(options.timeout, |t| t.min(options.timeout));
    let limits = Limits { timeout, cap: MIN_CAP };
    probe(&options.program, scratch.path(), limits).map_err(FuzzError::Program)?;
    if let Some(oracle) = &options.oracle {
        probe(oracle, scratch.path(), limits).map_err(FuzzError::Oracle)?;
    }
    let against =
        options.oracle.as_ref().map_or("the engine".to_string(), |o| format!("'{}'", o.join(" ")));
    let mut reporter = Human::new(terminal);
    let program = options.program.join(" ");
    let started = FuzzEvent::Started {
        program: &program,
        against: &against,
        seed,
        runs: options.runs,
        jobs: options.jobs,
    };
    reporter.report(&started, out).map_err(|e| write_failed::<FuzzError>(e, Status::Ran))?;
    let saved = match &options.save_traces {
        Some(path) => Some(Mutex::new(
            OpenOptions::new().append(true).create(true).open(path).map(io::BufWriter::new)?,
        )),
        None => None,
    };

    let shared = Shared {
        covered: Mutex::new(Coverage::default()),
        saved,
        save_failed: AtomicBool::new(false),
        kinds: Mutex::new(HashSet::new()),
        root_found: AtomicBool::new(false),
        runs: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        time_up: AtomicBool::new(false),
        alone: RwLock::new(()),
        flaky: AtomicU64::new(0),
        oracle_failure: Mutex::new(None),
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
    let mut divergences = 0;
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
        for (file, handle) in files {
            let sender = sender.clone();
            let (shared, settings) = (&shared, &settings);
            scope.spawn(move || {
                let worker = Worker { options, settings, shared, file, handle, deadline };
                worker.work(&sender);
            });
        }
        drop(sender);
        // Until every worker is done: once stopped, they end within moments.
        loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                shared.time_up.store(true, Ordering::Relaxed);
                shared.stop.store(true, Ordering::Relaxed);
            }
            if write_error.is_none() && closed() {
                write_error = Some(io::ErrorKind::BrokenPipe.into());
                shared.stop.store(true, Ordering::Relaxed);
            }
            let found = match found.recv_timeout(Duration::from_millis(250)) {
                Ok(message) => {
                    divergences += 1;
                    Some(message)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let runs = shared.runs.load(Ordering::Relaxed);
            let progress = FuzzEvent::Progress {
                runs,
                rate: runs as f64 / start.elapsed().as_secs_f64().max(1e-9),
                covered: lock(&shared.covered).len(),
                total,
                divergences,
            };
            let found = found.as_deref().map(FuzzEvent::Found);
            for event in found.iter().chain([&progress]) {
                if write_error.is_none()
                    && let Err(e) = reporter.report(event, out)
                {
                    write_error = Some(e);
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    if let Some(e) = write_error {
        return Err(write_failed(e, Status::failed_if(divergences > 0)));
    }
    reporter.report(&FuzzEvent::Stopped, out)?;
    if let Some(failure) = lock(&shared.oracle_failure).take() {
        return Err(FuzzError::OracleFailed(failure));
    }
    if let Some(saved) = &shared.saved {
        lock(saved).flush()?;
    }
    if shared.save_failed.load(Ordering::Relaxed) {
        return Err(io::Error::other("writing the --save-traces file failed").into());
    }
    let runs = shared.runs.load(Ordering::Relaxed);
    let covered =
        lock(&shared.covered).iter().filter(|b| b.in_batch() && !exclude.contains(*b)).count();
    let flaky = shared.flaky.load(Ordering::Relaxed);
    let done =
        FuzzEvent::Done { flaky, timeout: options.timeout, runs, covered, total, divergences };
    reporter
        .report(&done, out)
        .map_err(|e| write_failed::<FuzzError>(e, Status::failed_if(divergences > 0)))?;
    Ok(Fuzzed { runs, divergences })
}

/// `--out` must be a folder or nothing yet: found before fuzzing, not at
/// the first save.
fn check_out(dir: &Path) -> Result<(), FuzzError> {
    let name = dir.display().to_string();
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(FuzzError::Out(name, "is not a folder".into())),
        Err(_) if fs::symlink_metadata(dir).is_ok() => {
            Err(FuzzError::Out(name, "is a symbolic link to nothing".into()))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(FuzzError::Out(name, format!("cannot be used: {e}"))),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
fn probe(command: &[String], scratch: &Path, limits: Limits) -> Result<(), String> {
    let file = scratch.join("probe.txt");
    fs::write(&file, b"").map_err(|e| e.to_string())?;
    match Guarded::default().launch(command, &file, limits) {
        Launched::CannotStart(why) => Err(why),
        _ => Ok(()),
    }
}

/// A divergence a run showed, with what the oracle printed.
struct Found {
    kind: Kind,
    /// The output differs from its first byte, or at the initial state.
    root: bool,
    wanted: Vec<u8>,
    wanted_status: Option<i32>,
}

/// What one run on a trace says.
enum Outcome {
    Agrees,
    Diverges(Found),
    /// Nothing: the session was stopped during the run, or the trace could
    /// not be written.
    Unknown,
    /// The oracle failed on the trace (why).
    OracleFailed(String),
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
    /// When `--time` runs out.
    deadline: Option<Instant>,
}

impl Worker<'_> {
    fn work(&self, found: &mpsc::Sender<String>) {
        let shared = self.shared;
        let _leaving = Leaving(shared);
        while let Some((run, trace, expected)) = self.draw() {
            if let Some(saved) = &shared.saved {
                let text = trace.text();
                let mut saved = lock(saved);
                let wrote = writeln!(saved, "{}", text.len()).and_then(|()| saved.write_all(&text));
                if wrote.is_err() {
                    shared.save_failed.store(true, Ordering::Relaxed);
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            // A timeout is confirmed until a hang has been found.
            let confirm = !lock(&shared.kinds).contains(&Kind::Hang);
            let found_one = match self.try_trace(&trace, &expected, confirm) {
                Outcome::Unknown => continue,
                Outcome::OracleFailed(why) => {
                    self.oracle_failed(&why, &trace);
                    return;
                }
                Outcome::Agrees => None,
                Outcome::Diverges(divergence) => Some(divergence),
            };
            {
                let mut covered = lock(&shared.covered);
                *covered = covered.union(expected.coverage);
            }
            shared.runs.fetch_add(1, Ordering::Relaxed);
            let Some(divergence) = found_one else { continue };
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
        self.shared.stop.store(true, Ordering::Relaxed);
    }

    /// Runs the oracle (none: the engine's `expected`) and the program on the
    /// trace in `self.file`.
    fn launch_both(&self, limits: Limits) -> (Option<Launched>, Launched) {
        let launcher = Guarded { stop: Some(&self.shared.stop) };
        let oracle = self.options.oracle.as_ref().map(|o| launcher.launch(o, &self.file, limits));
        (oracle, launcher.launch(&self.options.program, &self.file, limits))
    }

    /// Runs the program (and the oracle) on a trace. A timeout is run again
    /// with no other run going before it counts (the oracle's always, the
    /// program's when `confirm`): on a loaded machine a run can miss its
    /// time without hanging.
    fn try_trace(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        if self.rewrite(&trace.text()).is_err() {
            return Outcome::Unknown;
        }
        let cap = MIN_CAP.max(expected.output.len() + (1 << 20));
        let limits = Limits { timeout: self.options.timeout, cap };
        let timed_out = |(oracle, program): &(Option<Launched>, Launched)| {
            matches!(oracle, Some(Launched::TimedOut))
                || (confirm && *program == Launched::TimedOut)
        };
        let mut ran = {
            let _shared = self.shared.alone.read().unwrap_or_else(|e| e.into_inner());
            self.launch_both(limits)
        };
        if timed_out(&ran) {
            let _alone = self.shared.alone.write().unwrap_or_else(|e| e.into_inner());
            ran = self.launch_both(limits);
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
        let found = match program {
            Launched::TimedOut => Some((Kind::Hang, false)),
            Launched::Stopped | Launched::CannotStart(_) => return Outcome::Unknown,
            Launched::TooMuch(output) => compare(&output),
            Launched::Finished { output, status } => compare(&output).or_else(|| {
                (self.options.check_status && status != wanted_status)
                    .then_some((Kind::ExitStatus, false))
            }),
        };
        match found {
            None => Outcome::Agrees,
            Some((kind, root)) => {
                let wanted = wanted.into_owned();
                Outcome::Diverges(Found { kind, root, wanted, wanted_status })
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
            Launched::Finished { status: None, .. } => failed("it was killed by a signal".into()),
            Launched::Finished { status: Some(code), .. } if code != 0 && expected.status == 0 => {
                failed(format!("it exited with status {code} on a trace without an error"))
            }
            // Every trace prints something: its first state, or an error.
            Launched::Finished { output, .. } if output.is_empty() => {
                failed("it printed nothing (any trace prints its first state or an error)".into())
            }
            Launched::Finished { output, status } => Ok((output, status)),
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
        self.handle.write_all_at(text, 0)?;
        self.handle.set_len(text.len() as u64)
    }

    /// Shrinks a new kind of divergence, writes it as a test, and says so.
    /// Once the session is stopped (`--time` is up) the shrinking ends with
    /// the smallest trace found so far.
    fn report(&self, trace: Trace, found: Found, run: u64) -> String {
        let shared = self.shared;
        let exclude = self.settings.exclude;
        let kind = found.kind;
        let from = trace.len();
        let began = Instant::now();
        // The passes meet the same candidate again (the last round of
        // passes tries them all once more): each is run once.
        let mut seen: HashMap<Vec<u8>, bool> = HashMap::new();
        // What the oracle printed for each trace kept on the way.
        let mut answers: HashMap<Vec<u8>, (Vec<u8>, Option<i32>)> = HashMap::new();
        answers.insert(trace.text(), (found.wanted, found.wanted_status));
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
                    answers.insert(text.clone(), (f.wanted, f.wanted_status));
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
        let cut = shared.stop.load(Ordering::Relaxed);
        let mut text = small.text();
        let mut wanted = answers.remove(&text);
        if kind == Kind::ExitStatus {
            // The test says which status the program must end with; the
            // expected output is the oracle's for the file as saved.
            let status = wanted.as_ref().and_then(|w| w.1).unwrap_or(0);
            text = [format!("-- status: {status}\n").into_bytes(), text].concat();
            wanted = None;
        }
        let wanted = match (wanted, &self.options.oracle) {
            (Some((output, _)), _) => Some(output),
            (None, None) => Some(Expected::of(&text).output),
            (None, Some(oracle)) => {
                let _ = self.rewrite(&text);
                let limits = Limits { timeout: self.options.timeout, cap: MIN_CAP };
                match Guarded::default().launch(oracle, &self.file, limits) {
                    Launched::Finished { output, .. } => Some(output),
                    _ => None,
                }
            }
        };
        let written = wanted
            .ok_or_else(|| "the oracle failed on the shrunk trace".to_string())
            .and_then(|wanted| save(&self.options.out, kind.id(), &text, &wanted));
        let secs = began.elapsed().as_secs_f64();
        let mut head = format!(
            "Divergence: {} ({}), run {run}, shrunk from {from} to {} events in {secs:.2} s",
            kind.id(),
            kind.description(),
            small.len()
        );
        if cut {
            let why = if shared.time_up.load(Ordering::Relaxed) {
                "--time ran out"
            } else {
                "the session stopped"
            };
            head.push_str(&format!(" (not fully shrunk: {why})"));
        }
        match written {
            Ok(path) => format!("{head}: {}", path.display()),
            Err(why) => format!("{head}; not saved: {why}\n{}", String::from_utf8_lossy(&text)),
        }
    }
}

/// Writes `DIR/NAME-N.txt` and `DIR/NAME-N.expected.txt` for the first N
/// with neither file present; never overwrites. Both are written whole or
/// not at all (each through a temporary file moved into place), and the
/// trace is removed again if its expected output cannot be put beside it.
fn save(dir: &Path, name: &str, trace: &[u8], expected: &[u8]) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let written = |path: &Path, bytes: &[u8]| -> Result<OutputFile, OutputError> {
        let mut file = OutputFile::create(path)?;
        match file.write_all(bytes).and_then(|()| file.flush()) {
            Ok(()) => Ok(file),
            Err(e) => Err(file.write_failed(e)),
        }
    };
    for n in 1.. {
        let path = dir.join(format!("{name}-{n}.txt"));
        let expected_path = dir.join(format!("{name}-{n}.expected.txt"));
        let taken = |p: &Path| fs::symlink_metadata(p).is_ok();
        if taken(&path) || taken(&expected_path) {
            continue;
        }
        let both = written(&path, trace).and_then(|t| Ok((t, written(&expected_path, expected)?)));
        let (trace_file, expected_file) = match both {
            Ok(files) => files,
            Err(OutputError::Exists(_)) => continue,
            Err(e) => return Err(e.to_string()),
        };
        match trace_file.persist_noclobber() {
            Ok(()) => {}
            Err(OutputError::Exists(_)) => continue,
            Err(e) => return Err(e.to_string()),
        }
        match expected_file.persist_noclobber() {
            Ok(()) => return Ok(path),
            Err(e) => {
                let _ = fs::remove_file(&path);
                if !matches!(e, OutputError::Exists(_)) {
                    return Err(e.to_string());
                }
            }
        }
    }
    Err("no free name".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_test_is_both_files_or_neither() {
        let dir = tempfile::tempdir().expect("temp dir");
        let saved = save(dir.path(), "undo", b"undo\n", b"expected\n").expect("save");
        assert_eq!(saved, dir.path().join("undo-1.txt"));
        assert_eq!(fs::read(dir.path().join("undo-1.expected.txt")).expect("read"), b"expected\n");
        // A name the trace's file can take and the expected file cannot
        // (over 255 bytes): neither stays.
        let long = "k".repeat(242);
        let e = save(dir.path(), &long, b"undo\n", b"expected\n").expect_err("too long");
        assert!(e.contains(".expected.txt"), "{e}");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["undo-1.expected.txt", "undo-1.txt"]);
    }

    #[test]
    fn out_must_be_a_folder_or_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(check_out(dir.path()).is_ok());
        assert!(check_out(&dir.path().join("new")).is_ok());
        let file = dir.path().join("file");
        fs::write(&file, "").expect("write");
        let e = check_out(&file).expect_err("a file").to_string();
        assert!(e.ends_with("is not a folder"), "{e}");
        assert!(check_out(&file.join("sub")).is_err());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).expect("symlink");
        assert!(check_out(&link).is_err());
    }
}
