//! `tictac fuzz`: differential testing of any ETF-style program against the
//! engine (or another oracle), with traces generated to reach every
//! behaviour, and each new kind of divergence shrunk to a small trace
//! written as a ready acceptance test.

mod expect;
mod generate;
mod program;
mod shrink;
mod trace;

use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use crate::behaviour::{Behaviour, Coverage};
use expect::{Expected, Kind, first_difference};
use generate::{Settings, generate, rng_for};
use program::{Guarded, Launched, Launcher, Limits};
use trace::Trace;

pub use crate::cli::options::FuzzOptions as Options;

/// Why the fuzzer could not run.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    #[error("error: the program cannot be started: {0}")]
    Program(String),
    #[error("error: the oracle cannot be started: {0}")]
    Oracle(String),
    #[error("error: no scratch folder: {0}")]
    Scratch(io::Error),
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

impl FuzzError {
    /// The status the program ends with: 0 once the output went away (a
    /// closed pipe), otherwise 2, the session could not run.
    pub fn exit_code(&self) -> u8 {
        if self.output_closed() { 0 } else { 2 }
    }

    /// Whether the output went away (a closed pipe): the program ends
    /// quietly.
    pub fn output_closed(&self) -> bool {
        matches!(self, FuzzError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// The tally of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub runs: u64,
    pub divergences: usize,
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
    runs: AtomicU64,
    next: AtomicU64,
    stop: AtomicBool,
}

/// Runs a session, printing progress and each divergence found, then the
/// closing `Fuzz Results: ...` line.
pub fn run(options: &Options, out: &mut dyn Write, terminal: bool) -> Result<Report, FuzzError> {
    let seed = options.seed.unwrap_or_else(|| fastrand::u64(..));
    let mut exclude: Coverage = options.exclude.iter().copied().collect();
    if options.oracle.is_some() {
        exclude = exclude
            .union(Behaviour::ALL.iter().copied().filter(|b| b.departs_from_etf()).collect());
    }
    let settings = Settings { max_lines: options.max_lines, exclude };
    let scratch = scratch_dir().map_err(FuzzError::Scratch)?;
    let limits = Limits { timeout: options.timeout, cap: MIN_CAP };
    probe(&options.program, scratch.path(), limits).map_err(FuzzError::Program)?;
    if let Some(oracle) = &options.oracle {
        probe(oracle, scratch.path(), limits).map_err(FuzzError::Oracle)?;
    }
    let against =
        options.oracle.as_ref().map_or("the engine".to_string(), |o| format!("'{}'", o.join(" ")));
    writeln!(
        out,
        "Fuzzing '{}' against {against}: seed {seed}, up to {} runs, {} jobs",
        options.program.join(" "),
        options.runs,
        options.jobs
    )?;
    out.flush()?;
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
        runs: AtomicU64::new(0),
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
    };
    let start = Instant::now();
    let (sender, found) = mpsc::channel::<String>();
    // Only what a `-b` run can show counts: the mode behaviours are
    // `tictac test --coverage`'s.
    let total = Coverage::batch().len() - exclude.intersection(Coverage::batch()).len();
    let mut divergences = 0;
    std::thread::scope(|scope| -> Result<(), FuzzError> {
        for worker in 0..options.jobs.max(1) {
            let sender = sender.clone();
            let (shared, settings) = (&shared, &settings);
            let file = scratch.path().join(format!("trace-{worker}.txt"));
            let handle = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&file)
                .map_err(FuzzError::Scratch)?;
            scope.spawn(move || {
                let job = Job { options, settings, shared, file, handle, seed, start };
                job.work(&sender);
            });
        }
        drop(sender);
        let mut last_line = Instant::now();
        loop {
            match found.recv_timeout(Duration::from_millis(250)) {
                Ok(message) => {
                    divergences += 1;
                    if terminal {
                        write!(out, "\r\x1b[2K")?;
                    }
                    writeln!(out, "{message}")?;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            let every = if terminal { Duration::ZERO } else { Duration::from_secs(10) };
            if last_line.elapsed() >= every {
                last_line = Instant::now();
                let runs = shared.runs.load(Ordering::Relaxed);
                let rate = runs as f64 / start.elapsed().as_secs_f64().max(1e-9);
                let covered = lock(&shared.covered).len();
                let line = format!(
                    "{runs} runs, {rate:.0} runs/s, {covered}/{total} behaviours covered, {divergences} divergences"
                );
                if terminal {
                    write!(out, "\r\x1b[2K{line}")?;
                } else {
                    writeln!(out, "{line}")?;
                }
            }
            out.flush()?;
        }
        Ok(())
    })
    .inspect_err(|_| shared.stop.store(true, Ordering::Relaxed))?;
    if terminal {
        write!(out, "\r\x1b[2K")?;
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
    writeln!(
        out,
        "Fuzz Results: {runs} runs, {covered}/{total} behaviours covered, {divergences} divergences found."
    )?;
    Ok(Report { runs, divergences })
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
    match Guarded.launch(command, &file, limits) {
        Launched::CannotStart(why) => Err(why),
        _ => Ok(()),
    }
}

/// One worker's view of the session.
struct Job<'a> {
    options: &'a Options,
    settings: &'a Settings,
    shared: &'a Shared,
    /// The worker's own trace file, rewritten for every run.
    file: PathBuf,
    /// That file, open: rewritten in place, without a path lookup or a
    /// truncation each run.
    handle: fs::File,
    seed: u64,
    start: Instant,
}

impl Job<'_> {
    fn work(&self, found: &mpsc::Sender<String>) {
        let shared = self.shared;
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
            let verdict = self.try_trace(&trace, &expected);
            {
                let mut covered = lock(&shared.covered);
                *covered = covered.union(expected.coverage);
            }
            shared.runs.fetch_add(1, Ordering::Relaxed);
            let Some(kind) = verdict else { continue };
            if !lock(&shared.kinds).insert(kind) {
                continue;
            }
            let message = self.report(trace, kind, run);
            if found.send(message).is_err() {
                return;
            }
        }
    }

    /// The next run's number and trace, unless the session is over.
    fn draw(&self) -> Option<(u64, Trace, Expected)> {
        let shared = self.shared;
        let run = shared.next.fetch_add(1, Ordering::Relaxed);
        let out_of_time = self.options.time.is_some_and(|t| self.start.elapsed() >= t);
        if run >= self.options.runs || out_of_time || shared.stop.load(Ordering::Relaxed) {
            return None;
        }
        let uncovered =
            Coverage::from_bits(!lock(&shared.covered).bits()).intersection(Coverage::batch());
        let (trace, expected) = generate(&mut rng_for(self.seed, run), self.settings, uncovered);
        Some((run, trace, expected))
    }

    /// Runs the program (and the oracle) on a trace, written to the
    /// worker's file: the kind of divergence.
    fn try_trace(&self, trace: &Trace, expected: &Expected) -> Option<Kind> {
        if self.rewrite(&trace.text()).is_err() {
            return None;
        }
        let file = self.file.as_path();
        let cap = MIN_CAP.max(expected.output.len() + (1 << 20));
        let limits = Limits { timeout: self.options.timeout, cap };
        let oracle_output;
        let (wanted, wanted_status) = match &self.options.oracle {
            None => (&expected.output, Some(expected.status)),
            Some(oracle) => match Guarded.launch(oracle, file, limits) {
                Launched::Finished { output, status } => {
                    oracle_output = output;
                    (&oracle_output, status)
                }
                // An oracle that fails says nothing about the program.
                _ => return None,
            },
        };
        match Guarded.launch(&self.options.program, file, limits) {
            Launched::TimedOut => Some(Kind::Hang),
            Launched::TooMuch(output) => first_difference(expected, wanted, &output),
            Launched::CannotStart(_) => None,
            Launched::Finished { output, status } => first_difference(expected, wanted, &output)
                .or_else(|| {
                    (self.options.check_status && status != wanted_status)
                        .then_some(Kind::ExitStatus)
                }),
        }
    }

    /// Makes the worker's file hold `text`: written over the old text, then
    /// cut to its length (pages are freed only when the trace got shorter).
    fn rewrite(&self, text: &[u8]) -> io::Result<()> {
        self.handle.write_all_at(text, 0)?;
        self.handle.set_len(text.len() as u64)
    }

    /// Shrinks a new kind of divergence, writes it as a test, and says so.
    fn report(&self, trace: Trace, kind: Kind, run: u64) -> String {
        let exclude = self.settings.exclude;
        let from = trace.len();
        let began = Instant::now();
        // The passes meet the same candidate again (the last round of
        // passes tries them all once more): each is run once.
        let mut seen: HashMap<Vec<u8>, bool> = HashMap::new();
        let small = shrink::shrink(trace, |candidate| {
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
            let shows = possible
                && !expected.coverage.iter().any(|b| exclude.contains(b))
                && self.try_trace(candidate, &expected) == Some(kind);
            seen.insert(text, shows);
            shows
        });
        let text = small.text();
        let wanted = match &self.options.oracle {
            None => Some(Expected::of(&text).output),
            Some(oracle) => {
                let _ = self.rewrite(&text);
                let limits = Limits { timeout: self.options.timeout, cap: MIN_CAP };
                match Guarded.launch(oracle, &self.file, limits) {
                    Launched::Finished { output, .. } => Some(output),
                    _ => None,
                }
            }
        };
        let written = wanted
            .ok_or_else(|| "the oracle failed on the shrunk trace".to_string())
            .and_then(|wanted| save(&self.options.out, kind.id(), &text, &wanted));
        let secs = began.elapsed().as_secs_f64();
        let head = format!(
            "Divergence: {} ({}), run {run}, shrunk from {from} to {} events in {secs:.2} s",
            kind.id(),
            kind.description(),
            small.len()
        );
        match written {
            Ok(path) => format!("{head}: {}", path.display()),
            Err(why) => format!("{head}; not saved: {why}\n{}", String::from_utf8_lossy(&text)),
        }
    }
}

/// Writes `DIR/NAME-N.txt` and `DIR/NAME-N.expected.txt` for the first N
/// with neither file present; never overwrites.
fn save(dir: &Path, name: &str, trace: &[u8], expected: &[u8]) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for n in 1.. {
        let path = dir.join(format!("{name}-{n}.txt"));
        let expected_path = dir.join(format!("{name}-{n}.expected.txt"));
        if expected_path.exists() {
            continue;
        }
        let new = |p: &Path| OpenOptions::new().write(true).create_new(true).open(p);
        let mut file = match new(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", path.display())),
        };
        let mut expected_file = match new(&expected_path) {
            Ok(file) => file,
            Err(e) => {
                let _ = fs::remove_file(&path);
                if e.kind() == io::ErrorKind::AlreadyExists {
                    continue;
                }
                return Err(format!("cannot create {}: {e}", expected_path.display()));
            }
        };
        file.write_all(trace)
            .and_then(|()| expected_file.write_all(expected))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        return Ok(path);
    }
    Err("no free name".into())
}
