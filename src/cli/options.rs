//! The options of the commands (`test`, `fuzz`, `verify`, `serve`): plain
//! data, what to run, read by the front ends that run it. Each default is
//! written here once; the command-line description (`commands.rs`) and the
//! `Default` the tests build on both read it.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::behaviour::Behaviour;
use crate::bots::Strategy;
use crate::game::Mark;

/// `-j` runs at most this many tests (or fuzz runs) at once.
pub(crate) const MAX_JOBS: usize = 256;

/// Tests (or fuzz runs) at once unless `-j` says: one per core.
pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// An external program may take this long on one trace by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a build step (`--build`) may take.
pub(crate) const DEFAULT_BUILD_TIMEOUT: Duration = Duration::from_secs(120);
/// How long `run_autograder` may take, build and tests, unless `tictac
/// autograder --total-time` says: 8 minutes, well under Gradescope's
/// default autograder timeout of 10.
pub(crate) const DEFAULT_AUTOGRADER_TIME: Duration = Duration::from_secs(480);

/// `fuzz --runs` unless given.
pub(crate) const DEFAULT_RUNS: u64 = 10_000;

/// `fuzz --time` when neither it nor `--runs` is given: a session ends by
/// itself, soon, whatever the program's speed.
pub(crate) const DEFAULT_FUZZ_TIME: Duration = Duration::from_secs(60);

/// `fuzz --out` unless given.
pub(crate) const DEFAULT_FUZZ_OUT: &str = "fuzz-found";

/// `fuzz --max-lines` unless given, and its cap.
pub(crate) const DEFAULT_MAX_LINES: usize = 60;
pub(crate) const MAX_LINES: usize = 100_000;

/// Where `tictac serve` listens unless told: loopback only, port 8080.
pub(crate) const DEFAULT_BIND: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);
pub(crate) const DEFAULT_PORT: u16 = 8080;

/// A request to `tictac serve` still running after this answers 503.
pub(crate) const DEFAULT_SERVE_TIMEOUT: Duration = Duration::from_secs(5);

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
    /// Run the course suite built into the executable.
    pub course: bool,
    pub paths: Vec<PathBuf>,
    /// The folder `program` runs in (a student's, under `tictac grade`);
    /// without it, this process's.
    pub dir: Option<PathBuf>,
    /// When `dir` is tictac's own private built copy (`--build` as another
    /// user), the folder it was built from, as messages name it.
    pub built_from: Option<PathBuf>,
    /// Run once in that folder before the tests (`--build`).
    pub build: Option<Vec<String>>,
    /// How long the build may take.
    pub build_timeout: Duration,
    /// The whole run's time, build and tests (`--total-time`): a test
    /// starts only while it can end, at its timeout, within it.
    pub total_time: Option<Duration>,
    /// The user `program` runs as (`--user`, or `tictac grade` as root);
    /// without it, this process's.
    pub user: Option<crate::platform::process::RunAs>,
}

impl TestOptions {
    /// The longest one test may take: its program's timeout, and as long
    /// again for its oracle.
    pub(crate) fn test_time(&self) -> Duration {
        let runs = if self.oracle.is_some() { 2 } else { 1 };
        self.timeout.saturating_mul(runs)
    }
}

/// How `tictac test` reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A line per test, diffs under failures, the closing line.
    #[default]
    Human,
    /// TAP version 13 (Test Anything Protocol), a line per test as it ends.
    Tap,
    /// JUnit XML on standard output when the suite ends; the report for
    /// people on standard error.
    Junit,
    /// Gradescope's results.json on standard output when the suite ends
    /// (each test worth its `-- points: N`, default 1); the report on standard
    /// error.
    Gradescope,
}

impl Default for TestOptions {
    fn default() -> Self {
        TestOptions {
            bless: false,
            program: None,
            oracle: None,
            log: None,
            jobs: default_jobs(),
            timeout: DEFAULT_TIMEOUT,
            quiet: false,
            format: Format::Human,
            filter: None,
            coverage: false,
            course: false,
            paths: Vec::new(),
            build: None,
            built_from: None,
            build_timeout: DEFAULT_BUILD_TIMEOUT,
            total_time: None,
            dir: None,
            user: None,
        }
    }
}

/// `tictac grade --out` unless given.
pub(crate) const DEFAULT_GRADE_OUT: &str = "grades";

/// What `tictac grade` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GradeOptions {
    /// The folder of traces; `None` for the built-in course suite.
    pub(crate) suite: Option<PathBuf>,
    /// One folder per student, named by the folder's name.
    pub(crate) submissions: Vec<PathBuf>,
    /// Run in each student's folder as `CMD -b TRACE`.
    pub(crate) command: Vec<String>,
    pub(crate) jobs: usize,
    pub(crate) timeout: Duration,
    /// The new (or empty) folder the gradebook and reports go to.
    pub(crate) out: PathBuf,
    /// Run once in each student's folder before their tests.
    pub(crate) build: Option<Vec<String>>,
    pub(crate) build_timeout: Duration,
    /// Regrade the students named into the gradebook `out` holds.
    pub(crate) update: bool,
    /// The user programs run as (`--user`; as root, nobody without it).
    pub(crate) user: Option<crate::platform::process::RunAs>,
}

/// What `tictac autograder` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AutograderOptions {
    /// The folder of traces; `None` for the built-in course suite.
    pub(crate) suite: Option<PathBuf>,
    /// Run in the submission's folder as `CMD -b TRACE`.
    pub(crate) command: Vec<String>,
    /// Run once in the submission's folder before the tests.
    pub(crate) build: Option<Vec<String>>,
    pub(crate) timeout: Duration,
    /// The time `run_autograder` takes at most, build and tests.
    pub(crate) total_time: Duration,
    /// The zip to write (a new file).
    pub(crate) out: PathBuf,
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

/// What `tictac verify` checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VerifyOptions {
    /// One strategy playing one mark, instead of the whole table.
    pub(crate) one: Option<(Strategy, Mark)>,
    /// Where to write the first lost game as a trace.
    pub(crate) trace_out: Option<PathBuf>,
}

/// Where `tictac serve` listens, and how long a request may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServeOptions {
    pub(crate) bind: IpAddr,
    /// 0 picks a free port.
    pub(crate) port: u16,
    /// A request still running after this answers 503.
    pub(crate) timeout: Duration,
    /// On loopback, the names the `Host` header may give besides
    /// `localhost` and the address (`--allow-host`), as `values` wrote them.
    pub(crate) allowed_hosts: Vec<String>,
}
