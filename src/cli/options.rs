//! The options of `tictac test` and `tictac fuzz`: plain data, what to run,
//! read by the front ends that run it.

use std::path::PathBuf;
use std::time::Duration;

use crate::behaviour::Behaviour;

/// What `tictac test` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOptions {
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
    /// Print only failures and the closing line.
    pub quiet: bool,
    /// How results are reported.
    pub format: Format,
    /// Run only the tests whose name contains this.
    pub filter: Option<String>,
    /// Report which behaviours the tests reach instead of running them.
    pub coverage: bool,
    pub paths: Vec<PathBuf>,
}

/// How `tictac test` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// A line per test, diffs under failures, the closing line.
    #[default]
    Human,
    /// TAP version 13 (Test Anything Protocol), a line per test as it ends.
    Tap,
    /// JUnit XML when the suite ends; the human report goes to `progress`.
    Junit,
}

/// An external program may take this long on one trace by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

impl Default for TestOptions {
    fn default() -> Self {
        TestOptions {
            bless: false,
            program: None,
            oracle: None,
            log: None,
            jobs: 1,
            timeout: DEFAULT_TIMEOUT,
            quiet: false,
            format: Format::Human,
            filter: None,
            coverage: false,
            paths: Vec::new(),
        }
    }
}

/// What `tictac fuzz` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FuzzOptions {
    /// Run as `PROGRAM... -b TRACE`.
    pub(crate) program: Vec<String>,
    /// Take the expected output from `ORACLE... -b TRACE`, not the engine.
    pub(crate) oracle: Option<Vec<String>>,
    pub(crate) runs: u64,
    pub(crate) time: Option<Duration>,
    pub(crate) seed: Option<u64>,
    pub(crate) out: PathBuf,
    pub(crate) jobs: usize,
    pub(crate) timeout: Duration,
    pub(crate) max_lines: usize,
    pub(crate) exclude: Vec<Behaviour>,
    /// Compare exit statuses too.
    pub(crate) check_status: bool,
    /// Append every generated trace to this file, each as its length in
    /// bytes, a newline, then the trace: for a loop that only starts the
    /// program on the same traces (bench/check-fuzz.sh, examples/spawn_loop.rs).
    pub(crate) save_traces: Option<PathBuf>,
}

impl FuzzOptions {
    /// The time a session takes at most without `--runs` or `--time`.
    pub(crate) const DEFAULT_TIME: Duration = Duration::from_secs(60);
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            program: Vec::new(),
            oracle: None,
            runs: 10_000,
            time: None,
            seed: None,
            out: PathBuf::from("fuzz-found"),
            jobs: 1,
            timeout: Duration::from_secs(10),
            max_lines: 60,
            exclude: Vec::new(),
            check_status: false,
            save_traces: None,
        }
    }
}
