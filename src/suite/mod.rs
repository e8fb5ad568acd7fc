//! `tictac test`: runs acceptance traces and compares their output with the
//! expected output, byte for byte, as ETF's regression scripts do.

mod bless;
mod diff;
mod discover;
pub(crate) mod files;
pub(crate) mod in_process;
mod pairs;
pub(crate) mod plan;
mod report;

pub(crate) use diff::{Diff, Labels};
pub use discover::{Test, discover};
pub(crate) use plan::{Producer, produce};
use report::{Reporter, TestEvent};

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::platform::process::Capture;
use crate::run::FileError;
use crate::status::{Closed, Status, Stopped, closed_pipe, write_failed};

pub(crate) use crate::cli::options::Format;
/// Tests never run at once beyond this, whatever `-j` (or `Options`) says.
use crate::cli::options::MAX_JOBS;
pub use crate::cli::options::TestOptions as Options;

/// Why the runner could not run the suite.
#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    /// Nothing to run under the paths named (listed in the message).
    #[error(
        "error: no tests found (a test is NAME.txt with NAME.expected.txt beside it; looked in {0})"
    )]
    NoTests(String),
    /// A path named on the command line that cannot be read.
    #[error(transparent)]
    File(#[from] FileError),
    #[error("error: the log folder '{0}' cannot be created: {1}")]
    LogFolder(String, io::Error),
    /// A file named on the command line that is not `NAME.txt`.
    #[error("error: '{0}' is not a trace (a test is NAME.txt with NAME.expected.txt beside it)")]
    NotATrace(String),
    #[error("error: no test name contains '{0}' (--filter)")]
    NoneMatch(String),
    /// `--program` or `--oracle` names nothing that can run.
    #[error("error: cannot run '{0}': {1}")]
    Program(String, String),
    #[error("error: cannot start the test threads: {0} (try a smaller -j)")]
    Threads(io::Error),
    /// Standard output was closed (`tictac test | head -1`), with what the
    /// suite had earned by then (`Failed` once a failure was known).
    #[error(transparent)]
    Closed(#[from] Closed),
    #[error("error: writing the output failed: {0}")]
    Write(#[from] io::Error),
}

impl Stopped for SuiteError {
    fn closed(&self) -> Option<Status> {
        match self {
            SuiteError::Closed(Closed(earned)) => Some(*earned),
            SuiteError::Write(e) => closed_pipe(e, Status::Ran),
            _ => None,
        }
    }
}

/// The verdict on one test.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    /// Outputs differ: the rendered diff.
    Differs(Diff),
    /// No expected output and no `--bless`.
    NoExpected(PathBuf),
    /// The program or the oracle could not run.
    CannotRun(String),
}

/// One test's result.
#[derive(Debug)]
pub(crate) struct TestResult {
    pub(crate) verdict: Verdict,
    pub(crate) elapsed: Duration,
    /// Notes to print under the result line (blessed files, logs).
    pub(crate) notes: Vec<String>,
    /// The start of a failing program's standard error, as lines to show.
    pub(crate) stderr: Vec<String>,
}

/// The tally of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub(crate) passed: usize,
    pub total: usize,
}

impl Report {
    pub fn all_passed(&self) -> bool {
        self.passed == self.total
    }

    /// `Failed` once a test failed.
    pub(crate) fn status(&self) -> Status {
        Status::failed_if(!self.all_passed())
    }
}

/// Captured output never stops below this many bytes.
pub(crate) const MIN_CAP: u64 = 16 << 20;

/// An oracle's output is kept up to this many bytes (on disk past 1 MiB).
pub(crate) const ORACLE_CAP: u64 = 256 << 20;

/// Runs the suite, printing a line per test (in sorted order, each as soon
/// as it and every test before it are done) and the closing
/// `Test Results: P/T passed.` Every program started is stopped before it
/// returns. With `--format junit` that report goes to standard error and
/// the XML to `out`.
pub fn run(options: &Options, out: &mut dyn Write, color: bool) -> Result<Report, SuiteError> {
    run_watching(options, out, &mut io::stderr(), color, &|| false)
}

/// `run`, with `progress` for the human report under `--format junit`,
/// asking `closed` now and then whether the reader of `out` has gone
/// (`tictac test | head -1`): then the running programs are stopped and the
/// run ends at once.
pub(crate) fn run_watching(
    options: &Options,
    out: &mut dyn Write,
    progress: &mut dyn Write,
    color: bool,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Report, SuiteError> {
    let mut tests = discover(&options.paths)?;
    if let Some(text) = &options.filter {
        tests.retain(|t| t.name.contains(text.as_str()));
        if tests.is_empty() {
            return Err(SuiteError::NoneMatch(text.clone()));
        }
    }
    if let Some(dir) = &options.log {
        fs::create_dir_all(dir).map_err(|e| SuiteError::LogFolder(dir.display().to_string(), e))?;
    }
    for command in options.program.iter().chain(&options.oracle) {
        check_program(command)?;
    }
    let stop = AtomicBool::new(false);
    // Each program run stops all it started before it returns (see
    // `process`); a signal stops them all.
    // Under TAP every test has its line: --quiet leaves none out.
    let quiet = options.quiet && options.format != Format::Tap;
    let mut reporter = report::for_format(options.format, quiet, color, out, progress);
    let report = run_all(&tests, options, &mut *reporter, closed, &stop)?;
    let done = TestEvent::Done { passed: report.passed, total: report.total };
    reporter.report(&done).map_err(|e| write_failed::<SuiteError>(e, report.status()))?;
    Ok(report)
}

/// How often the closed-output check runs while results are awaited.
const LOOK_AT_OUTPUT: Duration = Duration::from_millis(100);

/// Runs the tests on `options.jobs` threads and reports each result in
/// sorted order, as soon as it and every test before it are done.
fn run_all(
    tests: &[Test],
    options: &Options,
    reporter: &mut dyn Reporter,
    closed: &(dyn Fn() -> bool + Sync),
    stop: &AtomicBool,
) -> Result<Report, SuiteError> {
    reporter
        .report(&TestEvent::Started { tests: tests.len() })
        .map_err(|e| write_failed::<SuiteError>(e, Status::Ran))?;
    let next = AtomicUsize::new(0);
    let (sender, results) = mpsc::channel::<(usize, TestResult)>();
    let mut report = Report { passed: 0, total: tests.len() };
    // No test starts until every thread has: a thread that cannot be started
    // is an error before anything runs (and none has finished and freed its
    // stack, which would make the failure depend on timing).
    let gate = std::sync::RwLock::new(());
    std::thread::scope(|scope| -> Result<(), SuiteError> {
        let closed_gate = gate.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        for _ in 0..options.jobs.clamp(1, MAX_JOBS).min(tests.len()) {
            let sender = sender.clone();
            let (next, gate) = (&next, &gate);
            let worker = move || {
                drop(gate.read());
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(test) = tests.get(k) else { break };
                    if sender.send((k, guarded_run(test, options, stop))).is_err() {
                        break;
                    }
                }
            };
            if let Err(e) =
                std::thread::Builder::new().name("test".into()).spawn_scoped(scope, worker)
            {
                stop.store(true, Ordering::Relaxed);
                return Err(SuiteError::Threads(e));
            }
        }
        drop(closed_gate);
        drop(sender);
        // Print in sorted order: hold results that arrive early.
        let mut waiting: Vec<Option<TestResult>> = tests.iter().map(|_| None).collect();
        let mut failed_early = false;
        let mut printed = 0;
        loop {
            let (k, outcome) = match results.recv_timeout(LOOK_AT_OUTPUT) {
                Ok(result) => result,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) if closed() => {
                    stop.store(true, Ordering::Relaxed);
                    return Err(Closed(Status::failed_if(failed_early)).into());
                }
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
            };
            failed_early |= outcome.verdict != Verdict::Pass;
            waiting[k] = Some(outcome);
            while let Some(outcome) = waiting.get_mut(printed).and_then(Option::take) {
                report.passed += usize::from(outcome.verdict == Verdict::Pass);
                let finished = TestEvent::Finished {
                    number: printed + 1,
                    test: &tests[printed],
                    result: &outcome,
                };
                if let Err(e) = reporter.report(&finished) {
                    stop.store(true, Ordering::Relaxed);
                    return Err(write_failed(e, Status::failed_if(failed_early)));
                }
                printed += 1;
            }
        }
        Ok(())
    })?;
    Ok(report)
}

/// Runs one test; a bug that panics fails that test, not the suite.
fn guarded_run(test: &Test, options: &Options, stop: &AtomicBool) -> TestResult {
    let start = Instant::now();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(test, options, Some(stop))))
        .unwrap_or_else(|_| TestResult {
            verdict: Verdict::CannotRun(
                "the runner failed on this test (a bug: it panicked)".into(),
            ),
            elapsed: start.elapsed(),
            notes: Vec::new(),
            stderr: Vec::new(),
        })
}

/// A program that cannot be started at all is one error before any test:
/// its name must be an executable file, found as the system finds it.
fn check_program(command: &[String]) -> Result<(), SuiteError> {
    let Some(exe) = command.first() else {
        return Err(SuiteError::Program(String::new(), "an empty command".into()));
    };
    crate::platform::process::runnable(exe)
        .map_err(|why| SuiteError::Program(exe.clone(), why.into()))
}

/// Lines of a failing program's standard error shown under its result.
const STDERR_LINES: usize = 10;

/// Runs one test: its actual output, its expected output, the verdict.
pub(crate) fn run_one(test: &Test, options: &Options, stop: Option<&AtomicBool>) -> TestResult {
    let start = Instant::now();
    let mut notes = Vec::new();
    let mut stderr = Vec::new();
    let verdict = verdict(test, options, stop, &mut notes, &mut stderr);
    let stderr = if verdict == Verdict::Pass { Vec::new() } else { show_stderr(&stderr) };
    TestResult { verdict, elapsed: start.elapsed(), notes, stderr }
}

fn verdict(
    test: &Test,
    options: &Options,
    stop: Option<&AtomicBool>,
    notes: &mut Vec<String>,
    stderr: &mut Vec<u8>,
) -> Verdict {
    let timeout = options.timeout;
    let expected_path = test.expected_path();
    // The expected output first: its size sets the cap on the actual one.
    let mut labels = Labels::default();
    let mut expected = match &options.oracle {
        Some(oracle) => {
            labels = Labels { expected: "oracle", actual: "program" };
            let producer = Producer::Program { command: oracle, timeout };
            match produce(producer, &test.trace, ORACLE_CAP, stop) {
                Ok(produced) => Some(produced.output),
                Err(why) => return Verdict::CannotRun(format!("oracle: {why}")),
            }
        }
        None => match fs::symlink_metadata(&expected_path) {
            Err(_) => None,
            Ok(_) => match files::open_regular(&expected_path).and_then(|f| {
                Capture::of_file(f)
                    .map_err(|e| format!("cannot read {}: {e}", expected_path.display()))
            }) {
                Ok(capture) => Some(capture),
                Err(why) if !options.bless => return Verdict::CannotRun(why),
                Err(_) => None,
            },
        },
    };
    let cap = expected.as_ref().map_or(0, Capture::len).saturating_add(1 << 20).max(MIN_CAP);
    let producer = options
        .program
        .as_deref()
        .map_or(Producer::InProcess { timeout }, |command| Producer::Program { command, timeout });
    let (mut actual, failed, status) = match produce(producer, &test.trace, cap, stop) {
        Err(why) => return Verdict::CannotRun(why),
        Ok(produced) => {
            *stderr = produced.stderr;
            let status = produced.wanted_status.map(|wanted| (wanted, produced.status));
            (produced.output, produced.failed, status)
        }
    };
    if let Some(dir) = &options.log {
        notes.extend(log(dir, test, &mut actual));
    }
    if options.bless {
        // A crashed program's output is no answer to record.
        if let Some(how) = failed {
            return Verdict::CannotRun(format!("{how}: nothing blessed"));
        }
        let program = options.program.as_ref().map(|words| words.join(" "));
        return match bless::bless(&expected_path, &mut actual, program.as_deref()) {
            Ok(note) => {
                notes.push(note);
                Verdict::Pass
            }
            Err(why) => Verdict::CannotRun(why),
        };
    }
    let Some(expected) = expected.as_mut() else {
        return Verdict::NoExpected(expected_path);
    };
    match diff::describe(expected, &mut actual, labels) {
        Ok(None) => match status {
            Some((wanted, got)) if got != Some(wanted) => {
                Verdict::Differs(Diff::status(wanted, got))
            }
            _ => Verdict::Pass,
        },
        Ok(Some(diff)) => Verdict::Differs(diff),
        Err(e) => Verdict::CannotRun(format!("comparing the outputs: {e}")),
    }
}

/// The first lines of a program's standard error, under its result.
fn show_stderr(stderr: &[u8]) -> Vec<String> {
    let mut shown = Vec::new();
    if stderr.is_empty() {
        return shown;
    }
    let lines: Vec<&[u8]> = stderr.split(|&b| b == b'\n').collect();
    let lines = lines.strip_suffix(&[&b""[..]]).unwrap_or(&lines);
    for line in lines.iter().take(STDERR_LINES) {
        shown.push(diff::visible(line));
    }
    if lines.len() > STDERR_LINES {
        shown.push(format!("... and {} more lines", lines.len() - STDERR_LINES));
    }
    shown
}

/// Saves the actual output as `DIR/NAME.actual.txt`, as `--bless` writes
/// an expected file: whole or not at all, and never through a symbolic
/// link, there or in a folder of NAME below DIR.
fn log(dir: &Path, test: &Test, actual: &mut Capture) -> Option<String> {
    let path = dir.join(format!("{}.actual.txt", test.name));
    let saved = log_folders(dir, &path)
        .and_then(|()| bless::writable(&path, "--log"))
        .and_then(|existing| bless::write_whole(&path, existing.as_ref(), actual));
    saved.err().map(|e| format!("not logged: {e}"))
}

/// Makes the folders of `path` below `dir` (DIR itself was made at the
/// start), refusing any that is a symbolic link or not a folder.
fn log_folders(dir: &Path, path: &Path) -> Result<(), String> {
    let Some(below) = path.parent().and_then(|p| p.strip_prefix(dir).ok()) else {
        return Ok(());
    };
    let mut folder = dir.to_path_buf();
    for part in below.components() {
        folder.push(part);
        match fs::symlink_metadata(&folder) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                let shown = folder.display();
                return Err(format!("{shown} is a symbolic link (--log never writes through one)"));
            }
            Ok(_) => return Err(format!("{} is not a folder", folder.display())),
            // Made meanwhile by another test's log is fine; a link is not.
            Err(_) => fs::create_dir(&folder)
                .or_else(|e| match fs::symlink_metadata(&folder) {
                    Ok(m) if m.is_dir() => Ok(()),
                    _ => Err(e),
                })
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?,
        }
    }
    Ok(())
}
