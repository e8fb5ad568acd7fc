//! `tictac test`: runs acceptance traces and compares their output with the
//! expected output, byte for byte, as ETF's regression scripts do.

mod diff;
mod discover;
mod plan;

pub use diff::unified;
pub use discover::{Test, discover};
pub use plan::{Source, produce};

use std::borrow::Cow;
use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What `tictac test` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Write each expected file from the actual output.
    pub bless: bool,
    /// Run `PROGRAM... -b TRACE` instead of the engine in this process.
    pub program: Option<Vec<String>>,
    /// Take the expected output from `ORACLE... -b TRACE`.
    pub oracle: Option<Vec<String>>,
    /// Save every actual output as `DIR/NAME.actual.txt`.
    pub log: Option<PathBuf>,
    /// Tests run at once (at least 1).
    pub jobs: usize,
    /// How long an external program or oracle may take on one trace.
    pub timeout: Duration,
    pub paths: Vec<PathBuf>,
}

/// An external program may take this long on one trace by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for Options {
    fn default() -> Self {
        Options {
            bless: false,
            program: None,
            oracle: None,
            log: None,
            jobs: 1,
            timeout: DEFAULT_TIMEOUT,
            paths: Vec::new(),
        }
    }
}

/// Why the runner could not run the suite.
#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// Nothing to run under the paths named (listed in the message).
    #[error(
        "error: no tests found (a test is NAME.txt with NAME.expected.txt beside it; looked in {0})"
    )]
    NoTests(String),
    #[error("error: '{0}' does not exist")]
    Missing(String),
    #[error("error: '{0}' is not readable")]
    Unreadable(String),
    #[error("error: the log folder '{0}' cannot be created: {1}")]
    LogFolder(String, io::Error),
    #[error(transparent)]
    Write(#[from] io::Error),
}

/// The verdict on one test.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Outputs differ: the rendered diff.
    Differs(String),
    /// No expected output and no `--bless`.
    NoExpected(PathBuf),
    /// The program or the oracle could not run.
    CannotRun(String),
}

/// One test's result.
#[derive(Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub elapsed: Duration,
    /// Notes to print under the result line (blessed files, logs).
    pub notes: Vec<String>,
}

/// The tally of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    pub passed: usize,
    pub total: usize,
}

impl Report {
    pub fn all_passed(&self) -> bool {
        self.passed == self.total
    }
}

/// Runs the suite, printing a line per test (in sorted order, as results
/// come in) and the closing `Test Results: P/T passed.`
pub fn run(options: &Options, out: &mut dyn Write, color: bool) -> Result<Report, RunnerError> {
    let tests = discover(&options.paths)?;
    if let Some(dir) = &options.log {
        fs::create_dir_all(dir)
            .map_err(|e| RunnerError::LogFolder(dir.display().to_string(), e))?;
    }
    let next = AtomicUsize::new(0);
    let (sender, results) = mpsc::channel::<(usize, Outcome)>();
    let mut passed = 0;
    std::thread::scope(|scope| -> Result<(), RunnerError> {
        for _ in 0..options.jobs.clamp(1, tests.len()) {
            let sender = sender.clone();
            let (tests, next) = (&tests, &next);
            scope.spawn(move || {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(test) = tests.get(k) else { break };
                    if sender.send((k, run_one(test, options))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        // Print in sorted order: hold results that arrive early.
        let mut waiting: Vec<Option<Outcome>> = tests.iter().map(|_| None).collect();
        let mut printed = 0;
        for (k, outcome) in results {
            waiting[k] = Some(outcome);
            while let Some(outcome) = waiting.get_mut(printed).and_then(Option::take) {
                passed += usize::from(outcome.verdict == Verdict::Pass);
                print_outcome(out, &tests[printed], &outcome, color)?;
                printed += 1;
            }
        }
        Ok(())
    })?;
    let report = Report { passed, total: tests.len() };
    writeln!(out, "Test Results: {}/{} passed.", report.passed, report.total)?;
    Ok(report)
}

fn print_outcome(
    out: &mut dyn Write,
    test: &Test,
    outcome: &Outcome,
    color: bool,
) -> io::Result<()> {
    use crossterm::style::Stylize;
    let ms = outcome.elapsed.as_secs_f64() * 1000.0;
    let (word, detail) = match &outcome.verdict {
        Verdict::Pass => ("PASS", None),
        Verdict::Differs(diff) => ("FAIL", Some(Cow::Borrowed(diff.as_str()))),
        Verdict::NoExpected(path) => (
            "FAIL",
            Some(Cow::Owned(format!(
                "no expected output: {} is missing (run with --bless to create it)",
                path.display()
            ))),
        ),
        Verdict::CannotRun(why) => ("FAIL", Some(Cow::Borrowed(why.as_str()))),
    };
    let word = match (color, word) {
        (false, w) => w.to_string(),
        (true, "PASS") => word.green().to_string(),
        (true, w) => w.red().bold().to_string(),
    };
    writeln!(out, "{word} {} ({ms:.1} ms)", test.name)?;
    for note in &outcome.notes {
        writeln!(out, "     {note}")?;
    }
    if let Some(detail) = detail {
        for line in detail.lines() {
            let line = if color { diff::paint(line) } else { line.to_string() };
            writeln!(out, "     {line}")?;
        }
    }
    Ok(())
}

/// Runs one test: its actual output, its expected output, the verdict.
pub fn run_one(test: &Test, options: &Options) -> Outcome {
    let start = Instant::now();
    let mut notes = Vec::new();
    let timeout = options.timeout;
    let source = options
        .program
        .as_deref()
        .map_or(Source::InProcess, |command| Source::Program { command, timeout });
    let actual = produce(source, &test.trace);
    let verdict = match actual {
        Err(why) => Verdict::CannotRun(why),
        Ok(actual) => {
            if let Some(dir) = &options.log {
                notes.extend(log(dir, test, &actual));
            }
            judge(test, options, &actual, &mut notes)
        }
    };
    Outcome { verdict, elapsed: start.elapsed(), notes }
}

fn judge(test: &Test, options: &Options, actual: &[u8], notes: &mut Vec<String>) -> Verdict {
    let expected_path = test.expected_path();
    if let Some(oracle) = &options.oracle {
        let source = Source::Program { command: oracle, timeout: options.timeout };
        return match produce(source, &test.trace) {
            Err(why) => Verdict::CannotRun(format!("oracle: {why}")),
            Ok(expected) => compare(&expected, actual),
        };
    }
    let expected = fs::read(&expected_path).ok();
    if options.bless {
        if expected.as_deref() != Some(actual) {
            let verb = if expected.is_some() { "updated" } else { "created" };
            match fs::write(&expected_path, actual) {
                Ok(()) => notes.push(format!("{verb} {}", expected_path.display())),
                Err(e) => {
                    return Verdict::CannotRun(format!(
                        "cannot write {}: {e}",
                        expected_path.display()
                    ));
                }
            }
        }
        return Verdict::Pass;
    }
    match expected {
        None => Verdict::NoExpected(expected_path),
        Some(expected) => compare(&expected, actual),
    }
}

fn compare(expected: &[u8], actual: &[u8]) -> Verdict {
    if expected == actual {
        Verdict::Pass
    } else {
        // The diff is rendered plain here and coloured when printed, if at all.
        Verdict::Differs(unified(expected, actual))
    }
}

/// Saves the actual output as `DIR/NAME.actual.txt`.
fn log(dir: &std::path::Path, test: &Test, actual: &[u8]) -> Option<String> {
    let path = dir.join(format!("{}.actual.txt", test.name));
    let saved =
        path.parent().map_or(Ok(()), fs::create_dir_all).and_then(|()| fs::write(&path, actual));
    saved.err().map(|e| format!("cannot log to {}: {e}", path.display()))
}
