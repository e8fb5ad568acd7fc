//! `tictac test`: runs acceptance traces and compares their output with the
//! expected output, byte for byte, as ETF's regression scripts do.

mod ahead;
mod bless;
pub(crate) mod build;
pub(crate) mod course;
mod diff;
pub(crate) mod discover;
pub(crate) mod exposure;
pub(crate) mod files;
mod header;
pub(crate) mod in_process;
pub(crate) mod leftovers;
mod pairs;
pub(crate) mod plan;
pub(crate) mod points;
pub(crate) mod pool;
pub(crate) mod report;
pub(crate) mod workdir;

pub(crate) use diff::{Diff, Labels};
pub(crate) use discover::escape_controls;
pub use discover::{Test, discover};
pub(crate) use plan::{Folder, Produced, Producer, Trouble, produce};
pub(crate) use report::{Heading, Reporter, TestEvent};

use std::fs;
use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::platform::files::Shortage;
use crate::platform::{self, process::Capture};
use crate::run::{Encoding, FileError};
use crate::status::{Status, WriteError};

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
    /// Nothing to run, but expected files with no trace beside them (said
    /// by `discover::misnamed`).
    #[error("error: no tests found: {0}")]
    Misnamed(String),
    /// No PATH, and no default folder here: a student's first try, in a
    /// folder of their own program.
    #[error(
        "error: no tests here (looked in {0}): to check your program on the course suite built into tictac, tictac test --course --program CMD (e.g. --program \"python3 ttt.py\"); to see it pass on tictac itself, tictac test --course; a suite of your own is a folder of NAME.txt with NAME.expected.txt beside each, named as PATH"
    )]
    NoSuiteHere(String),
    /// A path named on the command line that cannot be read.
    #[error(transparent)]
    File(#[from] FileError),
    /// `--log DIR` that cannot be made, or written in (said before any
    /// test runs: the logs were asked for).
    #[error("error: the log folder '{0}' {1}")]
    LogFolder(String, String),
    /// A file named on the command line that is not `NAME.txt`.
    #[error("error: '{0}' is not a trace (a test is NAME.txt with NAME.expected.txt beside it)")]
    NotATrace(String),
    #[error("error: no test name contains '{0}' (--filter)")]
    NoneMatch(String),
    /// `tictac course-suite DIR` cannot write there (or the scratch copy).
    #[error("error: cannot write the course suite to '{0}': {1}")]
    CourseDir(String, String),
    #[error("error: cannot start the test threads: {0} (try a smaller -j)")]
    Threads(io::Error),
    /// No folder of its own can be made in the temporary folder.
    #[error("error: cannot make a scratch folder in the temporary folder '{}': {error}", std::env::temp_dir().display())]
    Scratch { error: io::Error },
    /// A test could not run for want of what the machine gives (disk in
    /// the temporary folder, files, processes), for longer than any
    /// program's run lasts: not the program's failure.
    #[error("error: test {test} could not run, and not for its program's doing: {why}\n{advice}")]
    RanOut { test: String, why: String, advice: String },
    /// The output went away, or writing it failed: the shared
    /// `status::WriteError`, its source (so not transparent: `app` finds it
    /// there).
    #[error("{0}")]
    Write(#[from] WriteError),
}

/// A failed write is the shared `WriteError`.
impl From<io::Error> for SuiteError {
    fn from(e: io::Error) -> SuiteError {
        WriteError::from(e).into()
    }
}

/// What to do when the system ran out for a test: what each run takes of
/// the temporary folder (the copy of the folder the program runs in, and
/// its output past what is held in memory), named.
pub(crate) fn ran_out_advice() -> String {
    let each = (workdir::MAX_BYTES + MIN_CAP + (1 << 20)) >> 20;
    format!(
        "The system ran out of it for longer than any program's run lasts: free it (disk space \
         in the temporary folder {}: up to {each} MiB for each of the -j runs, the copy of the \
         program's folder and its output; open files: `ulimit -n`; processes: `ulimit -u`), \
         or run with a smaller -j.",
        std::env::temp_dir().display()
    )
}

/// The verdict on one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    Pass,
    /// Not run: the trace tests what only tictac does (why), and a program
    /// is under test.
    Skipped(String),
    /// Outputs differ: the rendered diff. The program ended by itself with
    /// status 0 or the status the test expects (`-- status: N`, else the
    /// oracle's for that trace: `tictac -b` exits 1 after a syntax error).
    Differs(Diff),
    /// The output is right, the exit status is not the one `-- status: N`
    /// asks for (a normal exit: a crash is `Broke`): the diff says both.
    StatusDiffers(Diff),
    /// The program's run went wrong (crashed, killed, timed out, could
    /// not start); the diff of what it printed, when it ended by itself and
    /// that differs, or, when it was stopped (timed out, printed too much),
    /// of what it printed until then (`diff::partial`).
    Broke(Trouble, Option<Diff>),
    /// No expected output and no `--bless`: which file is missing, and how
    /// to make it (`missing`).
    NoExpected(String),
    /// The program or the oracle could not run.
    CannotRun(String),
    /// Not run: the build step (`--build`) failed, which the reports say
    /// once, before the tests.
    NotBuilt,
    /// Not run: the whole run's time (`--total-time`, this long) ran out
    /// before the test could start and end within it.
    OutOfTime(Duration),
}

impl Verdict {
    /// What went wrong, in the words every report format uses to tell
    /// failures apart: "output differs", "exit status differs", "exited
    /// with status 1", "killed by signal 9", "timed out after 10 s", "could
    /// not start: ...".
    pub(crate) fn headline(&self) -> Option<String> {
        match self {
            Verdict::Pass | Verdict::Skipped(_) => None,
            Verdict::Differs(_) => Some("output differs".into()),
            Verdict::StatusDiffers(_) => Some(STATUS_DIFFERS.into()),
            Verdict::Broke(trouble, _) => Some(trouble.to_string()),
            Verdict::NoExpected(_) => Some("no expected output".into()),
            Verdict::CannotRun(why) => Some(why.lines().next().unwrap_or_default().into()),
            Verdict::NotBuilt => Some(NOT_BUILT.into()),
            Verdict::OutOfTime(total) => Some(out_of_time(*total)),
        }
    }

    pub(crate) fn failed(&self) -> bool {
        !matches!(self, Verdict::Pass | Verdict::Skipped(_))
    }
}

/// One test's result.
#[derive(Clone, Debug)]
pub(crate) struct TestResult {
    pub(crate) verdict: Verdict,
    pub(crate) elapsed: Duration,
    /// The command line run, shown under a failure.
    pub(crate) command: Option<String>,
    /// Notes to print under the result line (blessed files, logs).
    pub(crate) notes: Vec<String>,
    /// The end of a failing program's standard error, as lines to show.
    pub(crate) stderr: Vec<String>,
    /// The failure is not the program's: the trace's, the suite's or the
    /// runner's (an expected file that cannot be read, the system out of
    /// files, disk or memory). `tictac grade` stops at it.
    pub(crate) not_the_programs: bool,
    /// What the system ran out of (processes, files, disk, memory).
    pub(crate) ran_out: Option<Shortage>,
    /// Why its `--log` files could not be written, when they could not.
    pub(crate) unlogged: Option<String>,
}

impl TestResult {
    /// A result that is its verdict alone: no time taken, no command, notes
    /// or standard error to show, the program's if anything's.
    pub(crate) fn new(verdict: Verdict) -> TestResult {
        TestResult {
            verdict,
            elapsed: Duration::ZERO,
            command: None,
            notes: Vec::new(),
            stderr: Vec::new(),
            not_the_programs: false,
            ran_out: None,
            unlogged: None,
        }
    }

    /// Whether the program ran tictac itself, which refused to answer for
    /// it (under `--user`, `tictac grade`).
    pub(crate) fn ran_tictac(&self) -> bool {
        self.notes.iter().any(|note| note == RAN_TICTAC)
    }

    /// The result as a student may see it when `visibility` hides the
    /// test's expected output: the verdict, the line where the outputs
    /// first differ and the program's own standard error stay; the diff,
    /// which quotes the expected text, goes.
    pub(crate) fn for_students(&self, visibility: plan::Visibility) -> TestResult {
        let mut shown = self.clone();
        if visibility == plan::Visibility::Visible {
            return shown;
        }
        let hide = |diff: &mut Diff| {
            let Some(line) = diff.from_line else { return };
            let text = format!(
                "the output differs from line {line} on (this test's expected output is hidden)\n"
            );
            *diff = Diff { text, marks: Vec::new(), from_line: Some(line) };
        };
        match &mut shown.verdict {
            Verdict::Differs(diff) | Verdict::Broke(_, Some(diff)) => hide(diff),
            // It says only the statuses.
            _ => {}
        }
        shown
    }

    /// About what the result holds in memory, its texts mostly.
    fn weight(&self) -> usize {
        let diff =
            |d: &Diff| d.text.len() + d.marks.iter().map(|(_, r)| 32 + r.len() * 16).sum::<usize>();
        let verdict = match &self.verdict {
            Verdict::Pass => 0,
            Verdict::Skipped(text) | Verdict::CannotRun(text) => text.len(),
            Verdict::Differs(d) | Verdict::StatusDiffers(d) | Verdict::Broke(_, Some(d)) => diff(d),
            Verdict::Broke(_, None) | Verdict::NotBuilt | Verdict::OutOfTime(_) => 0,
            Verdict::NoExpected(why) => why.len(),
        };
        let texts = |lines: &[String]| lines.iter().map(|l| 24 + l.len()).sum::<usize>();
        std::mem::size_of::<TestResult>()
            + verdict
            + self.command.as_ref().map_or(0, String::len)
            + texts(&self.notes)
            + texts(&self.stderr)
    }
}

/// The tally of a run: `total` counts the tests run, skipped ones apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub(crate) passed: usize,
    pub total: usize,
    pub skipped: usize,
    /// The tests that timed out.
    pub(crate) timed_out: usize,
    /// The tests left unrun when the whole run's time (`--total-time`, the
    /// first) ran out, when some were.
    pub(crate) out_of_time: Option<(Duration, usize)>,
    /// The tests whose `--log` files could not be written, and why the
    /// first could not, when some could not.
    pub(crate) unlogged: Option<(usize, String)>,
}

impl Report {
    /// Before any of `tests` ran.
    pub(crate) fn new(tests: usize) -> Report {
        let unlogged = None;
        Report { passed: 0, total: tests, skipped: 0, timed_out: 0, out_of_time: None, unlogged }
    }

    /// One more result: a skipped test is no longer counted as run.
    pub(crate) fn count(&mut self, verdict: &Verdict) {
        self.passed += usize::from(*verdict == Verdict::Pass);
        match verdict {
            Verdict::Skipped(_) => {
                self.total -= 1;
                self.skipped += 1;
            }
            Verdict::Broke(Trouble::TimedOut(_), _) => self.timed_out += 1,
            Verdict::OutOfTime(total) => {
                let (_, unrun) = self.out_of_time.get_or_insert((*total, 0));
                *unrun += 1;
            }
            _ => {}
        }
    }

    /// Whether every test run passed, and one ran at least: a run in
    /// which every test was skipped checked nothing.
    pub fn all_passed(&self) -> bool {
        self.total > 0 && self.passed == self.total
    }

    /// `Failed` once a test failed; `Error` when logs that were asked for
    /// (`--log`) could not be written, whatever the tests did.
    pub(crate) fn status(&self) -> Status {
        match self.unlogged {
            Some(_) => Status::Error,
            None => Status::failed_if(!self.all_passed()),
        }
    }

    /// One more test whose logs could not be written, for `why`.
    fn unlogged(&mut self, why: &str) {
        let (tests, _) = self.unlogged.get_or_insert_with(|| (0, why.to_owned()));
        *tests += 1;
    }
}

/// The headline of a right output that ended with the wrong exit status.
pub(crate) const STATUS_DIFFERS: &str = "exit status differs";

/// What a test says when the build failed.
pub(crate) const NOT_BUILT: &str = "not run: the build failed";

/// What a test says when the whole run's time, `total`, ran out before it.
fn out_of_time(total: Duration) -> String {
    format!("not run: the run's time limit, {} s (--total-time), ran out", total.as_secs_f64())
}

/// A test's result when it is not run (`verdict`: the build failed, the
/// run's time ran out): a trace of tictac's own is skipped as ever.
pub(crate) fn unrun(test: &Test, options: &Options, verdict: Verdict) -> TestResult {
    let verdict = match plan::tictac_only(&test.trace).filter(|_| options.program.is_some()) {
        Some(why) => Verdict::Skipped(why),
        None => verdict,
    };
    TestResult::new(verdict)
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
    run_watching(options, None, out, &mut io::stderr(), color, &|| false)
}

/// `run`, with `progress` for the human report under `--format junit`,
/// asking `closed` now and then whether the reader of `out` has gone
/// (`tictac test | head -1`): then the running programs are stopped and the
/// run ends at once. `heading` names the suite when tictac chose it.
pub(crate) fn run_watching(
    options: &Options,
    heading: Option<&Heading>,
    out: &mut dyn Write,
    progress: &mut dyn Write,
    color: bool,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Report, SuiteError> {
    // The whole run's time counts from here, the build's included.
    let deadline = options.total_time.map(|total| (Instant::now() + total, total));
    let mut unfollowed = Vec::new();
    let mut tests = discover::discover_noting(&options.paths, &mut unfollowed)?;
    for link in unfollowed {
        // As the one below: standard error, what it changes is told.
        let _ = writeln!(progress, "{}", link.warning("left out of the run"));
    }
    for (orphan, why) in discover::orphans(&tests) {
        let shown = discover::escape_controls(&orphan.display().to_string());
        // A warning on standard error: one that cannot be written changes
        // nothing the report says.
        let _ = writeln!(progress, "warning: '{shown}' {why}");
    }
    if let Some(text) = &options.filter {
        tests.retain(|t| t.name.contains(text.as_str()));
        if tests.is_empty() {
            return Err(SuiteError::NoneMatch(text.clone()));
        }
    }
    if let Some(dir) = &options.log {
        check_log_folder(dir)?;
        workdir::leave_out(dir);
    }
    // Run as another user (`--user`), as under `tictac grade`: a tictac the
    // program starts answers nothing for it.
    // Its runs' scratch folders apart from what its programs leave in the
    // shared folders (`/tmp`), removed when it fills the disk.
    let _holder = match &options.user {
        Some(user) => {
            platform::process::mark_grader();
            let holder = files::Holder::new().map_err(|error| SuiteError::Scratch { error })?;
            leftovers::watch(user);
            Some(holder)
        }
        None => None,
    };
    let stop = AtomicBool::new(false);
    // Each program run stops all it started before it returns (see
    // `process`); a signal stops them all.
    // Under TAP every test has its line: --quiet leaves none out.
    let quiet = options.quiet && options.format != Format::Tap;
    let mut reporter = report::for_format(options.format, quiet, color, heading, out, progress);
    // The build, run in the folder the program runs in, before any test.
    // As another user, in a private copy: the tests run in copies of it.
    let built = options.build.as_ref().map(|command| {
        build::build(command, options.dir.as_deref(), options.build_timeout, options.user.as_ref())
    });
    let in_built;
    let options = match built.as_ref().and_then(|b| b.folder_or(None)) {
        Some(folder) => {
            let from = options.dir.clone().or_else(|| std::env::current_dir().ok());
            in_built = Options { dir: Some(folder), built_from: from, ..options.clone() };
            &in_built
        }
        None => options,
    };
    let failed = built.as_ref().and_then(|b| b.failed.as_ref());
    let notes: Vec<String> =
        failed.is_none().then(|| misplaced(options)).flatten().into_iter().collect();
    let before = Before { build: failed, notes: &notes, deadline };
    let report = run_all(&tests, options, before, &mut *reporter, closed, &stop);
    // What the programs left in the shared folders goes, whatever happened.
    let left = options.user.as_ref().and_then(|_| leftovers::take());
    let report = report?;
    let status = report.status();
    let done = TestEvent::Done { report: report.clone() };
    reporter.report(&done).map_err(|e| WriteError::earned(e, status))?;
    drop(reporter);
    if let Some(left) = left {
        writeln!(progress, "note: {}", left.told()).map_err(|e| WriteError::earned(e, status))?;
    }
    Ok(report)
}

/// What is known before the tests run.
struct Before<'a> {
    /// Why the build failed, when it did: then no test runs.
    build: Option<&'a build::BuildFailed>,
    /// Said once, before the tests.
    notes: &'a [String],
    /// When the whole run must end (`--total-time`, the second).
    deadline: Option<(Instant, Duration)>,
}

/// The note said once before the tests when the program's command names a
/// file by a relative path (`./ttt`) that is not in the folder it runs in
/// but in a folder below (`project/ttt`): a submission uploaded with its
/// folder, whose every test would say `could not start: ./ttt: no such file`.
fn misplaced(options: &Options) -> Option<String> {
    let word = options.program.as_ref()?.first()?;
    let folder = options.dir.clone().or_else(|| std::env::current_dir().ok())?;
    let found = crate::cli::nested::nested_program(&folder, word)?;
    let found = discover::escape_controls(&found.display().to_string());
    let word = discover::escape_controls(word);
    Some(match options.format {
        Format::Gradescope => format!(
            "{word} is not at the top of your submission; found {found}: upload the files themselves, not their folder"
        ),
        _ => format!(
            "note: {word} is not in the folder the program runs in; found {found}: run from the folder that holds it, or name it so"
        ),
    })
}

/// Runs the tests on `options.jobs` threads and reports each result in
/// sorted order, as soon as it and every test before it are done. A test
/// starts only if it can end, at its timeout, by the deadline of the whole
/// run: the rest are not run.
fn run_all(
    tests: &[Test],
    options: &Options,
    before: Before,
    reporter: &mut dyn Reporter,
    closed: &(dyn Fn() -> bool + Sync),
    stop: &AtomicBool,
) -> Result<Report, SuiteError> {
    let Before { build, notes, deadline } = before;
    reporter
        .report(&TestEvent::Started { tests: tests.len(), build, notes })
        .map_err(|e| WriteError::earned(e, Status::Ran))?;
    let late = |(at, _): &(Instant, Duration)| Instant::now() + options.test_time() > *at;
    let run = |k: usize, stop: &AtomicBool| match (build, deadline.filter(late)) {
        (Some(_), _) => unrun(&tests[k], options, Verdict::NotBuilt),
        (None, Some((_, total))) => unrun(&tests[k], options, Verdict::OutOfTime(total)),
        (None, None) => guarded_run(&tests[k], options, stop),
    };
    let jobs = pool::Jobs { count: tests.len(), threads: options.jobs, run: &run };
    let mut tally = Tally { tests, reporter, report: Report::new(tests.len()) };
    pool::run(&jobs, &mut tally, closed, stop)?;
    Ok(tally.report)
}

/// The results of a suite, counted and reported as they come in order.
pub(crate) struct Tally<'a> {
    pub(crate) tests: &'a [Test],
    pub(crate) reporter: &'a mut dyn Reporter,
    pub(crate) report: Report,
}

impl pool::Results for Tally<'_> {
    type Error = SuiteError;

    fn in_order(
        &mut self,
        k: usize,
        result: TestResult,
        failed_so_far: bool,
    ) -> Result<(), SuiteError> {
        // The machine's trouble, not the program's: no verdict (finding 10).
        if result.ran_out.is_some() {
            return Err(SuiteError::RanOut {
                test: self.tests[k].name.clone(),
                why: result.verdict.headline().unwrap_or_default(),
                advice: ran_out_advice(),
            });
        }
        self.report.count(&result.verdict);
        if let Some(why) = &result.unlogged {
            self.report.unlogged(&format!("{}: {why}", self.tests[k].name));
        }
        let finished = TestEvent::Finished { number: k + 1, test: &self.tests[k], result: &result };
        self.reporter
            .report(&finished)
            .map_err(|e| WriteError::earned(e, Status::failed_if(failed_so_far)).into())
    }
}

/// Runs one test; a bug that panics fails that test, not the suite.
/// A test whose run found the system out of processes, files, disk or
/// memory is run again, every `RETRY_AFTER`, for as long as another
/// program's run may last (its timeout, twice): what another program took
/// is given back when its run is stopped; what stays taken is the machine's.
pub(crate) fn guarded_run(test: &Test, options: &Options, stop: &AtomicBool) -> TestResult {
    let start = Instant::now();
    let window = options.timeout.saturating_mul(2).saturating_add(Duration::from_secs(1));
    loop {
        let sweeps = leftovers::sweeps();
        let result = guarded_run_once(test, options, stop);
        let Some(shortage) = result.ran_out else { return result };
        if start.elapsed() > window || stop.load(Ordering::Relaxed) {
            return result;
        }
        // What the programs of another user left in the shared folders
        // (`/tmp`), removed: tried again at once.
        if !(options.user.is_some() && leftovers::sweep_after(sweeps, shortage)) {
            std::thread::sleep(RETRY_AFTER);
        }
    }
}

const RETRY_AFTER: Duration = Duration::from_millis(200);

fn guarded_run_once(test: &Test, options: &Options, stop: &AtomicBool) -> TestResult {
    let start = Instant::now();
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(test, options, Some(stop))))
        .unwrap_or_else(|_| TestResult {
            elapsed: start.elapsed(),
            not_the_programs: true,
            ..TestResult::new(Verdict::CannotRun(
                "the runner failed on this test (a bug: it panicked)".into(),
            ))
        })
}

/// Lines of a failing program's standard error shown under its result:
/// the last ones, where a crash says why.
const STDERR_LINES: usize = 20;

/// What a test's run left besides its verdict.
#[derive(Default)]
struct Ran {
    command: Option<String>,
    /// See `TestResult::not_the_programs`.
    not_the_programs: bool,
    ran_out: Option<Shortage>,
    notes: Vec<String>,
    stderr: Vec<u8>,
    /// Lines of standard error before `stderr`, read and not kept.
    stderr_dropped: u64,
    /// Why its `--log` files could not be written.
    unlogged: Option<String>,
    /// Said when the test fails: how its program ran (in its folder
    /// itself), and what the runner saw of its end (`plan::Produced`).
    if_failed: Vec<String>,
}

/// Said under a test whose program ran tictac under `tictac grade`.
const RAN_TICTAC: &str = "note: the program ran tictac itself (by PATH, by its path or by /proc/PID/exe), \
    which answers nothing for a program under grading: the test fails";

/// Whether a tictac started by the program refused to answer for it, or
/// the program tried this process's `/proc/PID/exe` (closed to it).
fn ran_tictac(stderr: &[u8]) -> bool {
    let exe = format!("/proc/{}/exe", std::process::id());
    let holds = |needle: &[u8]| stderr.windows(needle.len()).any(|w| w == needle);
    let refusal = platform::process::REFUSAL.as_bytes();
    (!refusal.is_empty() && holds(refusal)) || holds(exe.as_bytes())
}

/// Said under a test whose program printed nothing, or little, on standard
/// output and the expected output's lines on standard error (`print(...,
/// file=sys.stderr)`, `System.err`): "output differs" alone does not tell
/// a student where the transcript went. None when the expected output is
/// empty, when standard error holds fewer of its lines, in its order, than
/// a state has (`STATE_LINES`: a debug print of a board row or a score is
/// not a transcript), or when most of standard error is not its lines (a
/// traceback).
fn on_standard_error(expected: &mut Capture, actual: &Capture, ran: &Ran) -> Option<String> {
    /// The lines of one state: its status, three board rows, two scores.
    const STATE_LINES: usize = 6;
    let wanted = expected.bytes_up_to(diff::MAX_DIFFED).ok().flatten()?;
    if wanted.is_empty() || actual.len().saturating_mul(4) >= wanted.len() as u64 {
        return None;
    }
    // Where each of the expected output's lines is, to match standard
    // error's lines to them in order: a line matches its next place after
    // the last line matched.
    let mut places: std::collections::HashMap<&[u8], Vec<usize>> = Default::default();
    let wanted_lines = wanted.split(|&b| b == b'\n').filter(|line| !line.is_empty());
    let mut count = 0;
    for (at, line) in wanted_lines.enumerate() {
        places.entry(line).or_default().push(at);
        count = at + 1;
    }
    let printed = ran.stderr.split(|&b| b == b'\n').filter(|line| !line.is_empty());
    let (mut theirs, mut all, mut next) = (0, 0, 0);
    for line in printed {
        all += 1;
        let Some(at) = places.get(line) else { continue };
        if let Some(&place) = at.get(at.partition_point(|&place| place < next)) {
            theirs += 1;
            next = place + 1;
        }
    }
    if theirs < STATE_LINES.min(count) || theirs * 2 < all {
        return None;
    }
    let plural = |n: u64, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let stdout = match actual.len() {
        0 => "nothing".to_owned(),
        n => format!("only {}", plural(n, "byte")),
    };
    let lines = plural(all as u64 + ran.stderr_dropped, "line");
    let on_stderr = if theirs == all && ran.stderr_dropped == 0 {
        format!("{lines} of the expected output")
    } else {
        format!("{lines}, mostly the expected output's,")
    };
    Some(format!(
        "note: your program printed {stdout} on standard output, and {on_stderr} on standard \
         error: print the transcript on standard output"
    ))
}

/// Runs one test: its actual output, its expected output, the verdict.
pub(crate) fn run_one(test: &Test, options: &Options, stop: Option<&AtomicBool>) -> TestResult {
    let start = Instant::now();
    let Judged { verdict, ran } = verdict(test, options, stop);
    let failed = verdict.failed();
    let mut notes = ran.notes;
    if failed {
        notes.extend(ran.if_failed);
        notes.extend(encodings(test, options));
    }
    TestResult {
        elapsed: start.elapsed(),
        command: ran.command.filter(|_| failed),
        notes,
        stderr: if failed { show_stderr(&ran.stderr, ran.stderr_dropped) } else { Vec::new() },
        not_the_programs: failed
            && (ran.not_the_programs || matches!(verdict, Verdict::NoExpected(_))),
        ran_out: ran.ran_out.filter(|_| failed),
        unlogged: ran.unlogged,
        verdict,
    }
}

/// A test's verdict, and what its run left beside it.
struct Judged {
    verdict: Verdict,
    ran: Ran,
}

impl Judged {
    /// A verdict reached with no run to tell of.
    fn of(verdict: Verdict) -> Judged {
        Judged { verdict, ran: Ran::default() }
    }

    /// Not run through: the program's doing, or not (the oracle's, the
    /// suite's, the system's).
    fn unrun(unrun: plan::Unrun) -> Judged {
        let ran = Ran {
            not_the_programs: unrun.blame != plan::Blame::Program,
            ran_out: match unrun.blame {
                plan::Blame::RanOut(shortage) => Some(shortage),
                _ => None,
            },
            ..Ran::default()
        };
        Judged { verdict: Verdict::CannotRun(unrun.why), ran }
    }
}

/// The expected output, before the program runs: an oracle's answer, the
/// course suite's file, or the suite's (none when missing).
struct Expected {
    output: Option<Capture>,
    labels: Labels,
    /// The oracle's exit status, its answer as much as its output.
    oracle_status: Option<i32>,
}

/// What the program printed, how it ended, and what else its run left.
struct Actual {
    output: Capture,
    trouble: Option<Trouble>,
    /// The status `-- status: N` wants, and the one it ended with.
    status: Option<(i32, Option<i32>)>,
    ran: Ran,
}

/// Runs one test and judges it: the expected output, the program's, then
/// the two compared (or the actual one blessed).
fn verdict(test: &Test, options: &Options, stop: Option<&AtomicBool>) -> Judged {
    if options.program.is_some()
        && let Some(why) = plan::tictac_only(&test.trace)
    {
        return Judged::of(Verdict::Skipped(why));
    }
    // The course suite's trace as the executable holds it (`course`).
    let trace_text = options.course.then(|| course::file(test.trace.file_name()?)).flatten();
    let expected = match expected(test, options, trace_text, stop) {
        Ok(expected) => expected,
        Err(unrun) => return Judged::unrun(unrun),
    };
    // The expected output's size sets the cap on the actual one.
    let cap = expected.output.as_ref().map_or(0, Capture::len);
    let cap = cap.saturating_add(1 << 20).max(MIN_CAP);
    let mut actual = match actual(test, options, trace_text, cap, stop) {
        Ok(actual) => actual,
        Err(unrun) => return Judged::unrun(unrun),
    };
    if let Some(dir) = &options.log {
        let unlogged = log(dir, test, &mut actual.output, &actual.ran.stderr);
        actual.ran.notes.extend(unlogged.iter().map(|why| format!("not logged: {why}")));
        actual.ran.unlogged = unlogged;
    }
    judge(test, options, expected, actual, trace_text, stop)
}

/// The expected output: `--oracle`'s answer, the course suite's file, or
/// the suite's; not the program's fault when it cannot be had.
fn expected(
    test: &Test,
    options: &Options,
    trace_text: Option<&[u8]>,
    stop: Option<&AtomicBool>,
) -> Result<Expected, plan::Unrun> {
    let expected_path = test.expected_path();
    let read = |output| Expected { output, labels: Labels::default(), oracle_status: None };
    let Some(oracle) = &options.oracle else {
        if trace_text.is_some() {
            // Each is a few hundred bytes: held in memory.
            let builtin = expected_path.file_name().and_then(course::file);
            return Ok(read(builtin.and_then(|b| Capture::of_bytes(b).ok())));
        }
        if fs::symlink_metadata(&expected_path).is_err() {
            return Ok(read(None));
        }
        let opened = files::open_checked(&expected_path).and_then(|f| {
            Capture::of_file(f).map_err(|e| files::Unreadable {
                why: format!("cannot read {}: {e}", expected_path.display()),
                ran_out: platform::files::shortage(&e),
            })
        });
        return match opened {
            Ok(capture) => Ok(read(Some(capture))),
            // --bless writes it anew.
            Err(_) if options.bless => Ok(read(None)),
            Err(unreadable) => Err(unreadable.into()),
        };
    };
    // Beside a program run as another user, in a folder of its own: never
    // in the program's (a student's), as this process's user.
    let folder = if options.user.is_some() { Folder::Apart } else { Folder::Here };
    let producer =
        Producer::Program { command: oracle, timeout: options.timeout, folder, user: None };
    match produce(producer, &test.trace, trace_text, ORACLE_CAP, stop) {
        // Its exit status is part of its answer (`tictac -b` exits 1 after
        // a syntax error, 2 on a file it cannot read); a crash, a hang or a
        // flood is no answer.
        Ok(Produced { trouble: Some(trouble), command, .. })
            if !matches!(trouble, Trouble::Exited(_)) =>
        {
            Err(format!("oracle {trouble}: {command}").into())
        }
        Ok(produced) => Ok(Expected {
            output: Some(produced.output),
            labels: Labels { expected: "oracle", actual: "program" },
            oracle_status: produced.status,
        }),
        // Whatever the trouble, not the program's.
        Err(why) => Err(format!("oracle: {why}").into()),
    }
}

/// The program's run (tictac's own, in-process, without `--program`),
/// each in a copy of its folder: the student's, or the one tictac runs in.
fn actual(
    test: &Test,
    options: &Options,
    trace_text: Option<&[u8]>,
    cap: u64,
    stop: Option<&AtomicBool>,
) -> Result<Actual, plan::Unrun> {
    let timeout = options.timeout;
    let here = std::env::current_dir().ok();
    let folder = match (options.dir.as_deref().or(here.as_deref()), &options.built_from) {
        (Some(copy), Some(of)) if options.user.is_some() => Folder::Built { copy, of },
        (Some(dir), _) => Folder::CopyOf(dir),
        (None, _) => Folder::Here,
    };
    let producer = options.program.as_deref().map_or(Producer::InProcess { timeout }, |command| {
        Producer::Program { command, timeout, folder, user: options.user.as_ref() }
    });
    let produced = produce(producer, &test.trace, trace_text, cap, stop)?;
    let notes = match ran_tictac(&produced.stderr) {
        true => vec![RAN_TICTAC.to_string()],
        false => Vec::new(),
    };
    let ran = Ran {
        command: Some(discover::escape_controls(&produced.command)),
        notes,
        stderr: produced.stderr,
        stderr_dropped: produced.stderr_dropped,
        if_failed: produced.notes,
        ..Ran::default()
    };
    let status = produced.wanted_status.map(|wanted| (wanted, produced.status));
    Ok(Actual { output: produced.output, trouble: produced.trouble, status, ran })
}

/// The verdict on the program's output and ending against the expected
/// output, or, under `--bless`, the output blessed.
fn judge(
    test: &Test,
    options: &Options,
    expected: Expected,
    actual: Actual,
    trace_text: Option<&[u8]>,
    stop: Option<&AtomicBool>,
) -> Judged {
    let Expected { output: mut expected, labels, oracle_status } = expected;
    let Actual { output: mut actual, trouble, status, mut ran } = actual;
    let trouble = match trouble {
        // A run that never started printed nothing to compare; one that was
        // stopped, the start of its output: shown, headed as only a part.
        Some(trouble) if !trouble.ended_by_itself() => {
            let partial = match expected.as_mut() {
                Some(expected) if trouble.cut_short() => {
                    diff::partial(expected, &mut actual, labels).ok()
                }
                _ => None,
            };
            return Judged { verdict: Verdict::Broke(trouble, partial), ran };
        }
        trouble => trouble,
    };
    if options.bless {
        let (verdict, notes) = blessed(test, options, &mut actual, trouble);
        ran.notes.extend(notes);
        return Judged { verdict, ran };
    }
    let Some(expected) = expected.as_mut() else {
        return Judged { verdict: Verdict::NoExpected(missing(test, options)), ran };
    };
    let diff = match diff::describe(expected, &mut actual, labels) {
        Ok(diff) => diff,
        Err(e) => {
            // A program's OUT may be a trap (a link to a file that cannot be
            // read): its own doing.
            ran.not_the_programs = options.program.is_none();
            return Judged {
                verdict: Verdict::CannotRun(format!("comparing the outputs: {e}")),
                ran,
            };
        }
    };
    let verdict = match diff {
        None => right_output(status, trouble),
        Some(diff) => {
            ran.if_failed.extend(on_standard_error(expected, &actual, &ran));
            let expects =
                || expected_status(test, options, status, oracle_status, trace_text, stop);
            wrong_output(diff, trouble, expects)
        }
    };
    Judged { verdict, ran }
}

/// `--bless`: the actual output written as the expected file, and what the
/// test says of it. A crash's output is no answer to record; an exit
/// status is part of one, as an oracle's is (`tictac -b` exits 1 after a
/// syntax error).
fn blessed(
    test: &Test,
    options: &Options,
    actual: &mut Capture,
    trouble: Option<Trouble>,
) -> (Verdict, Vec<String>) {
    if let Some(trouble) = trouble.as_ref().filter(|t| !matches!(t, Trouble::Exited(_))) {
        return (Verdict::CannotRun(format!("{trouble}: nothing blessed")), Vec::new());
    }
    let program = options.program.as_ref().map(|words| words.join(" "));
    match bless::bless(&test.expected_path(), actual, program.as_deref()) {
        Ok(note) => {
            let warning = program.and_then(|p| blessed_warning(&p, actual, trouble));
            (Verdict::Pass, std::iter::once(note).chain(warning).collect())
        }
        Err(why) => (Verdict::CannotRun(why), Vec::new()),
    }
}

/// The right output. Without `-- status: N` only a crash counts then: a
/// program that printed the right answer and exited 1 passes.
fn right_output(status: Option<(i32, Option<i32>)>, trouble: Option<Trouble>) -> Verdict {
    match (status, trouble) {
        (Some((wanted, got)), trouble) if got != Some(wanted) => {
            let diff = Diff::status(wanted, &ending(got, trouble.as_ref()));
            match trouble {
                Some(trouble) if trouble.crashed() => Verdict::Broke(trouble, Some(diff)),
                _ => Verdict::StatusDiffers(diff),
            }
        }
        // A crash is no pass, whatever it printed before, unless the
        // trace's `-- status:` asks for exactly that end.
        (None, Some(trouble)) if trouble.crashed() => {
            let diff = Diff::crashed(&crash(&trouble));
            Verdict::Broke(trouble, Some(diff))
        }
        _ => Verdict::Pass,
    }
}

/// A wrong output: a normal exit with the status the test expects (asked
/// of `expects` only then) is no news beside it (`tictac -b` exits 1 after
/// a syntax error).
fn wrong_output(
    diff: Diff,
    trouble: Option<Trouble>,
    expects: impl Fn() -> Option<i32>,
) -> Verdict {
    match trouble {
        None => Verdict::Differs(diff),
        Some(Trouble::Exited(code)) if expects() == Some(code) => Verdict::Differs(diff),
        Some(trouble) => Verdict::Broke(trouble, Some(diff)),
    }
}

/// What a test blessed from `--program`'s output says besides what it
/// wrote: the status the program exited with, kept as its answer, and a
/// warning when it printed nothing (every `-b` run of the oracle prints
/// the initial state; a window may print nothing).
fn blessed_warning(program: &str, actual: &Capture, trouble: Option<Trouble>) -> Option<String> {
    let exited = match trouble {
        Some(Trouble::Exited(code)) => format!(", exiting with status {code}"),
        _ => String::new(),
    };
    if actual.is_empty() {
        return Some(format!(
            "warning: {program} printed nothing{exited}: the expected file is empty; \
             check that this is the answer (a -b run prints at least the initial state)"
        ));
    }
    (!exited.is_empty()).then(|| {
        format!(
            "note: {program} printed this{exited}: an exit status is part of an answer, \
             as under --oracle"
        )
    })
}

/// A missing expected file, and how to make it. Under `--program` the
/// hint is never `--bless` alone, which would record the student's own
/// output as the answer their program is then checked against.
fn missing(test: &Test, options: &Options) -> String {
    let expected = test.expected_path();
    let near = discover::near_expected(&expected).map_or(String::new(), |near| {
        format!("; {near} is beside it: an expected file is named NAME.expected.txt")
    });
    if options.program.is_none() {
        return format!("{} is missing (run with --bless to create it{near})", expected.display());
    }
    let folder = match test.trace.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".into(),
    };
    format!(
        "{} is missing (tictac's answer makes it: tictac test {} --bless, without --program, \
         which would take your program's own output as the answer{near})",
        expected.display(),
        shell_words::quote(&folder)
    )
}

/// The exit status a test expects of a program: its `-- status: N`, else
/// the oracle's for that trace (`--oracle`'s, or tictac's own, run here:
/// `tictac -b` exits 1 after a syntax or type error, 2 on a file it cannot
/// read). None when tictac's own run could not say.
fn expected_status(
    test: &Test,
    options: &Options,
    status: Option<(i32, Option<i32>)>,
    oracle_status: Option<i32>,
    trace_text: Option<&[u8]>,
    stop: Option<&AtomicBool>,
) -> Option<i32> {
    if let Some((wanted, _)) = status {
        return Some(wanted);
    }
    if options.oracle.is_some() {
        return oracle_status;
    }
    let ours = Producer::InProcess { timeout: options.timeout };
    produce(ours, &test.trace, trace_text, MIN_CAP, stop).ok()?.status
}

/// What a failing test's trace and expected file are, when one is saved as
/// UTF-16 or with a UTF-8 byte order mark (Notepad, Windows PowerShell's
/// `>`): said, with how to save it as plain UTF-8. The course suite's files
/// are plain; an oracle's answer is no file.
fn encodings(test: &Test, options: &Options) -> Vec<String> {
    if options.course {
        return Vec::new();
    }
    let start = |path: &Path| {
        let mut bytes = Vec::new();
        let file = files::open_checked(path).ok()?;
        file.take(128).read_to_end(&mut bytes).ok()?;
        Encoding::of(&bytes)
    };
    let mut notes = Vec::new();
    if let Some(found) = start(&test.trace) {
        notes.push(found.hint(&test.trace.display().to_string()));
    }
    let expected = test.expected_path();
    if let Some(found) = start(&expected).filter(|_| options.oracle.is_none()) {
        notes.push(found.hint_expected(&expected.display().to_string()));
    }
    notes.iter().map(|note| discover::escape_controls(note)).collect()
}

/// How a run ended, beside `-- status: N`: its status as a shell reports
/// it, and the signal when one killed it (`139 (killed by signal 11)`).
fn ending(status: Option<i32>, trouble: Option<&Trouble>) -> String {
    match (status, trouble) {
        (Some(status), Some(Trouble::Signal(signal))) => {
            format!("{status} (killed by signal {signal})")
        }
        (Some(status), Some(trouble @ Trouble::Exception(_))) => format!("{status} ({trouble})"),
        (Some(status), _) => status.to_string(),
        (None, _) => "none".into(),
    }
}

/// A crash after the right output, in words: "was killed by signal 11 (a
/// trace expecting that says `-- status: 139`)", "crashed (exception ...)".
fn crash(trouble: &Trouble) -> String {
    match trouble {
        Trouble::Signal(signal) => format!(
            "was killed by signal {signal} (a trace expecting that says `-- status: {}`)",
            128 + signal
        ),
        trouble => trouble.to_string(),
    }
}

/// The last lines of a program's standard error, under its result, after
/// the count of those before them (`dropped` of which were not kept).
fn show_stderr(stderr: &[u8], dropped: u64) -> Vec<String> {
    let mut shown = Vec::new();
    if stderr.is_empty() {
        return shown;
    }
    let lines: Vec<&[u8]> = stderr.split(|&b| b == b'\n').collect();
    let lines = lines.strip_suffix(&[&b""[..]]).unwrap_or(&lines);
    let left_out = lines.len().saturating_sub(STDERR_LINES);
    let before = left_out as u64 + dropped;
    if before > 0 {
        shown.push(format!("... {before} lines before these"));
    }
    shown.extend(lines[left_out..].iter().map(|line| stderr_line(line)));
    shown
}

/// A line of standard error is shown up to this many bytes.
const STDERR_LINE: usize = 400;

/// One line of standard error as shown: cut past `STDERR_LINE` bytes (at
/// a character's start), saying how much was left out.
fn stderr_line(line: &[u8]) -> String {
    diff::cut_line(line, STDERR_LINE, 0)
}

/// Saves the actual output as `DIR/NAME.actual.txt`, and what the program
/// wrote to standard error (its end, when it wrote any) as
/// `DIR/NAME.stderr.txt`, as `--bless` writes an expected file: whole or
/// not at all, and never through a symbolic link, there or in a folder of
/// NAME below DIR. Why not, when not (said under the test, and counted
/// in the report: the logs were asked for).
fn log(dir: &Path, test: &Test, actual: &mut Capture, stderr: &[u8]) -> Option<String> {
    let save = |kind: &str, bytes: &mut Capture| {
        let path = dir.join(format!("{}.{kind}.txt", test.name));
        log_folders(dir, &path)
            .and_then(|()| bless::writable(&path, "--log"))
            .and_then(|existing| bless::write_whole(&path, existing.as_ref(), bytes))
    };
    let mut saved = save("actual", actual);
    if saved.is_ok() && !stderr.is_empty() {
        let mut kept = Capture::new(stderr.len() as u64);
        saved =
            kept.push(stderr).map_err(|e| e.to_string()).and_then(|_| save("stderr", &mut kept));
    }
    saved.err()
}

/// Makes `--log DIR` and writes a file in it (removed at once), before any
/// test runs: a folder that is read-only, or another user's, is refused
/// now, not found out test by test under reports that pass.
fn check_log_folder(dir: &Path) -> Result<(), SuiteError> {
    let refuse = |why: String| SuiteError::LogFolder(dir.display().to_string(), why);
    if fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(refuse("exists and is not a folder".into()));
    }
    fs::create_dir_all(dir).map_err(|e| refuse(format!("cannot be created: {e}")))?;
    tempfile::tempfile_in(dir).map(drop).map_err(|e| refuse(format!("cannot be written in: {e}")))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A long line of standard error is cut, saying how much was (finding
    /// 11: 5 MB on one line were shown whole).
    #[test]
    fn a_long_standard_error_line_is_cut_saying_how_much() {
        let mut stderr = "é".repeat(300).into_bytes();
        stderr.extend_from_slice(b"\nshort\n");
        let shown = show_stderr(&stderr, 0);
        assert_eq!(shown.len(), 2, "{shown:?}");
        assert_eq!(shown[0], format!("{} ... (200 more bytes on this line)", "é".repeat(200)));
        assert_eq!(shown[1], "short");
        let exact = vec![b'x'; STDERR_LINE];
        assert_eq!(show_stderr(&exact, 0), [String::from_utf8(exact).expect("ascii")]);
    }
}
