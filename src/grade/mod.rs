//! `tictac grade`: one suite against every student's program, each run
//! inside the student's folder exactly as `tictac test --program` runs it
//! (the suite's execution and reporters are `suite`'s), into a gradebook:
//! `grades.csv`, `grades.json`, `tests.csv`, per student the human report and a JUnit file named after
//! the student, and a table on standard output.

mod advice;
mod autograder;
mod book;
mod contain;
mod digest;
mod files;
mod folders;
mod progress;
mod update;

use std::fs;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use std::sync::atomic::AtomicBool;

use book::{Column, Recorder, Row};
use files::{Replace, Shared, write_whole};
use folders::{Claim, REPORT, holds_the_program, out_apart, prepare_out, students};
use progress::Progress;

use crate::cli::GradeOptions;
use crate::platform::process::RunAs;
use crate::run::{Encoding, LOOKED_AT};
use crate::status::Status;
use crate::suite::build::{Build, BuildFailed, build};
use crate::suite::leftovers::{self, Left};
use crate::suite::{
    self, Options, Report, Reporter, SuiteError, Test, TestEvent, TestResult, Verdict, course,
    plan, pool,
};

/// Why the class could not be graded (a usage or file error: exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum GradeError {
    #[error(transparent)]
    Suite(#[from] SuiteError),
    #[error("error: --out '{0}' {1}")]
    Out(String, String),
    #[error("error: the submission '{0}' {1}")]
    Submission(String, String),
    #[error(
        "error: the suite '{0}' holds {1}, the program --command runs: it looks like a student's folder \
         (to grade with the built-in course suite, write --course: then every folder named is a student)"
    )]
    LooksLikeAStudent(String, String),
    #[error(
        "error: the suite '{0}' is inside the folder of the student '{1}', where their program runs \
         (it could read or change the answers)"
    )]
    SuiteInAStudent(String, String),
    #[error(
        "error: no tests found in the suite '{0}' (the first folder named is the suite, unless --course \
         grades with the built-in course suite)"
    )]
    NoTests(String),
    #[error(
        "error: --out '{out}' holds the grades of another suite ({held}; this one is {suite}): \
         --update regrades only with the suite a gradebook was graded with (grade into a new --out)"
    )]
    OtherSuite { out: String, held: String, suite: String },
    #[error(
        "error: the test '{0}' has the name of one of grades.csv's first columns ({1}): \
         rename its trace and expected file (a spreadsheet reading the columns by name would mix them up)"
    )]
    TestNamedAsColumn(String, String),
    #[error(
        "error: --out '{out}' was graded with {held}; this regrade gives {given}: \
         --update regrades with the commands, limits and user a gradebook was graded with, so \
         that every row is graded alike (give those, or grade the class again into a new --out)"
    )]
    OtherCommand { out: String, held: String, given: String },
    #[error("error: the expected file '{0}' {1}")]
    Expected(String, String),
    #[error(
        "error: {0}: every submission would fail its test (mend the suite, then write the zip again)"
    )]
    UnreadableAnswer(String),
    #[error("error: the test '{0}' cannot run as written: {1}")]
    Trace(String, String),
    #[error("error: cannot write '{0}': {1}")]
    Write(String, io::Error),
    #[error("error: --user: {0}")]
    User(String),
    #[error(
        "error: {0}: grading as root runs every program as that user (install it where that user \
         can run it, or name another user with --user NAME)"
    )]
    NotRunnable(String),
    #[error(
        "error: the temporary folder '{0}' is closed to the user {1}, whose programs run in copies \
         made there: set TMPDIR to a folder every user can enter, such as /tmp"
    )]
    TempClosed(String, String),
    #[error(
        "error: every test in '{0}' is tictac's own (--bot, --seed, its messages): none for a student's program"
    )]
    OnlyTictacs(String),
    /// A failure that is not the student's program's: grading stops rather
    /// than charge it to the student.
    #[error(
        "error: grading stopped at {student}'s test {test}, on trouble that is not the program's: {why}\n\
         No grades were written. {advice}"
    )]
    NotTheProgram { student: String, test: String, why: String, advice: String },
}

/// The folder of the gradebook that holds the course suite under `--course`.
const COURSE_SUITE: &str = "course-suite";

pub(crate) use autograder::run as write_autograder;

/// Grades every student, writes the gradebook, prints the table: plan
/// (every check, before anything runs), grade, write.
pub(crate) fn run(options: &GradeOptions, out: &mut dyn Write) -> Result<Status, GradeError> {
    // The claim is held until the gradebook is written: a second run on it
    // is refused.
    let (mut plan, _claim) = plan(options)?;
    let graded = grade_class(
        options,
        &plan.tests,
        &plan.columns,
        &plan.students,
        plan.replace,
        plan.user.as_ref(),
    )?;
    let regraded = graded.len();
    let rows = match options.update {
        true => update::merge(std::mem::take(&mut plan.kept), graded),
        false => graded,
    };
    write(options, &plan, &rows, regraded, out)?;
    Ok(Status::failed_if(advice::not_graded(&rows).is_some()))
}

/// What grading does, found before any program runs: the students, the
/// suite and its tests, the user programs run as, and under `--update` the
/// rows kept from the gradebook.
struct Plan {
    students: Vec<(String, PathBuf)>,
    /// The suite's folder (the gradebook's `course-suite` under `--course`).
    suite_path: PathBuf,
    tests: Vec<Test>,
    columns: Vec<Column>,
    /// The suite's identity, kept in grades.json.
    digest: String,
    user: Option<RunAs>,
    /// Under `--update`, the other students' rows.
    kept: Vec<Row>,
    replace: Replace,
}

/// Every check made before anything runs or is written, then the gradebook
/// claimed for this run.
fn plan(options: &GradeOptions) -> Result<(Plan, Claim), GradeError> {
    let students = students(&options.submissions)?;
    // The traces by absolute path: the programs run in other folders. A
    // suite named is read before anything is written.
    let named = match &options.suite {
        Some(path) => Some(named_suite(options, path, &students)?),
        None => None,
    };
    out_apart(&options.out, named.as_ref().map(|(path, _)| path.as_path()), &students)?;
    // As root, the programs run as an unprivileged user, kept from the
    // suite, the gradebook, the other students and tictac itself.
    let user = contain::programs_user(options)?;
    if let Some(user) = &user {
        let suite = named.as_ref().map(|(path, _)| path.as_path());
        let tests = named.as_ref().map_or(&[][..], |(_, tests)| tests.as_slice());
        for warning in contain::check(options, user, suite, tests, &students)? {
            eprintln!("{warning}");
        }
    }
    let claim = prepare_out(&options.out, options.update)?;
    if user.is_some() {
        crate::platform::files::make_private(&options.out)
            .map_err(|e| GradeError::Write(shown(options.out.display()), e))?;
        crate::platform::process::mark_grader();
    }
    // The course suite is written into the gradebook once grading is done,
    // so that every command a report shows can be run again as it stands;
    // meanwhile the runs read it from the executable, so no program finds
    // its answers there, nor changes them for the students after it.
    let (suite_path, mut tests) = match named {
        Some(named) => named,
        None => {
            let out = absolute(&options.out).map_err(|e| suite_error(&options.out, e))?;
            (out.join(COURSE_SUITE), course_tests(&out.join(COURSE_SUITE))?)
        }
    };
    // What only tictac does (`--bot`) is no student's to pass. (The course
    // suite, not written yet, has no such trace and no points lines: its
    // files read as missing, `tictac_only` gives None and `points` 1.)
    tests.retain(|t| plan::tictac_only(&t.trace).is_none());
    if tests.is_empty() {
        return Err(GradeError::OnlyTictacs(shown(suite_path.display())));
    }
    let columns: Vec<Column> = tests
        .iter()
        .map(|t| Column {
            name: t.name.clone(),
            points: plan::points(&t.trace),
            visibility: plan::visibility(&t.trace),
        })
        .collect();
    if let [name, ..] = book::tests_named_as_columns(&columns)[..] {
        return Err(GradeError::TestNamedAsColumn(shown(name), book::CSV_HEAD.join(",")));
    }
    let digest = digest::of_suite(&tests, options.suite.is_none());
    // A regrade reads the gradebook before anything runs: another suite's
    // is refused.
    let (kept, replace) = match options.update {
        true => (update::rows_of(&options.out, &digest, &ran(options), &columns)?, Replace::Whole),
        false => (Vec::new(), Replace::Never),
    };
    let plan = Plan { students, suite_path, tests, columns, digest, user, kept, replace };
    Ok((plan, claim))
}

/// The suite named, by its absolute path, and its tests, checked against
/// the students' folders and for directives that would grade wrongly.
fn named_suite(
    options: &GradeOptions,
    path: &Path,
    students: &[(String, PathBuf)],
) -> Result<(PathBuf, Vec<Test>), GradeError> {
    let path = absolute(path).map_err(|e| suite_error(path, e))?;
    // A student's files would be taken for tests (worth what they say).
    if let Some((_, dir)) = students.iter().find(|(_, dir)| dir.starts_with(&path)) {
        let why = format!("is inside the suite '{}': its files would be tests", path.display());
        return Err(GradeError::Submission(shown(dir.display()), why));
    }
    // Their program runs there: it could read or change the answers.
    if let Some((name, _)) = students.iter().find(|(_, dir)| path.starts_with(dir)) {
        return Err(GradeError::SuiteInAStudent(shown(path.display()), shown(name)));
    }
    // `--course` forgotten: the first student's folder would be the suite.
    // Under --build the program is made, the sources are there.
    let built = options.build.iter().map(|b| holds_the_program(&path, b, students));
    let held = std::iter::once(holds_the_program(&path, &options.command, students));
    if let Some(program) = held.chain(built).flatten().next() {
        return Err(GradeError::LooksLikeAStudent(shown(path.display()), shown(program)));
    }
    let mut unfollowed = Vec::new();
    let mut found = suite::discover::discover_noting(std::slice::from_ref(&path), &mut unfollowed);
    // A trace that is a broken link fails its test under `tictac test`;
    // here it would stop the grading at the first student: left out, and
    // told, as the suite's other links that cannot be followed.
    if let Ok(tests) = &mut found {
        tests.retain(|test| match fs::metadata(&test.trace) {
            Err(why) if fs::symlink_metadata(&test.trace).is_ok() => {
                unfollowed.push(suite::discover::Unfollowed::broken(&test.trace, &why));
                false
            }
            _ => true,
        });
        if tests.is_empty() {
            found = Err(SuiteError::NoTests(path.display().to_string()));
        }
    }
    // As `tictac test` warns: what a link left out may be tests.
    for link in unfollowed {
        eprintln!("{}", link.warning("left out of the grading"));
    }
    let tests = found.map_err(|e| match e {
        SuiteError::NoTests(_) => GradeError::NoTests(shown(path.display())),
        e => e.into(),
    })?;
    checked_suite(&tests)?;
    Ok((path, tests))
}

/// A suite's tests checked as they will run, before anything does (by
/// grade, and by autograder before it zips them): a directive or points
/// mistyped, or an expected file missing, would stop grading midway; an
/// expected file saved with Windows line endings (every line CRLF), with a
/// byte order mark or as UTF-16 would fail every student.
fn checked_suite(tests: &[Test]) -> Result<(), GradeError> {
    // An answer with no question: a test the instructor wrote, never run.
    if let Some((orphan, why)) = suite::discover::orphans(tests).into_iter().next() {
        let why = format!("{why}: name the trace so, or remove the expected file");
        return Err(GradeError::Expected(shown(orphan.display()), why));
    }
    for test in tests {
        plan::check(&test.trace)
            .map_err(|why| GradeError::Trace(shown(test.trace.display()), shown(why)))?;
        let expected = test.expected_path();
        let refuse = |why: &str| GradeError::Expected(shown(expected.display()), why.into());
        // Read as the run reads it: one that cannot be (a FIFO, a folder)
        // says why when its test runs.
        if fs::symlink_metadata(&expected).is_err() {
            let near = suite::discover::near_expected(&expected).map_or(String::new(), |near| {
                format!("; {near} is beside it: an expected file is named NAME.expected.txt")
            });
            return Err(refuse(&format!(
                "does not exist: each trace needs its expected output beside it \
                 (tictac test --bless writes it{near})"
            )));
        }
        let Ok(file) = suite::files::open_checked(&expected) else { continue };
        let mut file = io::BufReader::new(file);
        let start = file.fill_buf().unwrap_or_default();
        if let Some(found) = Encoding::of(&start[..start.len().min(LOOKED_AT)]) {
            let why = "its bytes are expected as they are, which no ETF program prints, so no \
                       program would pass it";
            let bless = "; or bless it again (tictac test --bless)";
            return Err(refuse(&format!("{}{bless}", found.told(why))));
        }
        if all_crlf(file).ok() == Some(true) {
            return Err(refuse(
                "has Windows line endings (CRLF) on every line, where tictac's output has LF \
                 alone, so no program would pass it: save it with LF line endings, or bless it \
                 again (tictac test --bless)",
            ));
        }
    }
    Ok(())
}

/// Whether every line `file` holds ends in `\r\n` (saved on Windows),
/// read a piece at a time.
fn all_crlf(mut file: impl io::BufRead) -> io::Result<bool> {
    let (mut before, mut lines) = (0u8, 0usize);
    loop {
        let piece = file.fill_buf()?;
        let Some(&last) = piece.last() else { return Ok(lines > 0) };
        for (k, &b) in piece.iter().enumerate() {
            if b == b'\n' {
                let previous = if k == 0 { before } else { piece[k - 1] };
                if previous != b'\r' {
                    return Ok(false);
                }
                lines += 1;
            }
        }
        before = last;
        let read = piece.len();
        file.consume(read);
    }
}

/// The gradebook's files (the course suite under `--course`, grades.csv,
/// grades.json, tests.csv), each whole, then the table, what `advice`
/// finds amiss, and the closing line.
fn write(
    options: &GradeOptions,
    plan: &Plan,
    rows: &[Row],
    regraded: usize,
    out: &mut dyn Write,
) -> Result<(), GradeError> {
    let Plan { columns, replace, .. } = plan;
    let course_at = options.out.join(COURSE_SUITE);
    if options.suite.is_none() && !course_at.exists() {
        course::write_out(&course_at)?;
    }
    let mut csv = Vec::new();
    book::write_csv(&mut csv, columns, rows).map_err(SuiteError::from)?;
    write_whole(&options.out.join("grades.csv"), &csv, *replace)?;
    let mut json =
        serde_json::to_vec_pretty(&book::json(&plan.digest, &ran(options), columns, rows))
            .map_err(|e| SuiteError::from(io::Error::from(e)))?;
    json.push(b'\n');
    write_whole(&options.out.join(update::GRADES_JSON), &json, *replace)?;
    let mut tests_csv = Vec::new();
    book::write_tests_csv(&mut tests_csv, columns, rows).map_err(SuiteError::from)?;
    write_whole(&options.out.join("tests.csv"), &tests_csv, *replace)?;
    book::write_table(out, columns, rows).map_err(SuiteError::from)?;
    for note in
        advice::notes(&options.command, options.build.is_some(), &plan.students, columns, rows)
    {
        writeln!(out, "{note}").map_err(SuiteError::from)?;
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (of, suite) = match options.suite {
        None => ("the course suite".to_string(), ", and the course suite"),
        Some(_) => (format!("'{}'", shown(plan.suite_path.display())), ""),
    };
    match options.update {
        false => writeln!(
            out,
            "Graded {} on {} of {of} ({}): {} holds grades.csv, grades.json, tests.csv, each student's report and JUnit file{suite}.",
            plural(rows.len(), "student"),
            plural(columns.len(), "test"),
            book::worth(columns),
            options.out.display()
        ),
        true => writeln!(
            out,
            "Regraded {} on {} of {of} ({}) into {}, which now holds the grades of {}.",
            plural(regraded, "student"),
            plural(columns.len(), "test"),
            book::worth(columns),
            options.out.display(),
            plural(rows.len(), "student"),
        ),
    }
    .map_err(SuiteError::from)?;
    Ok(())
}

/// The commands the class is graded with and their limits, as the
/// gradebook keeps them.
fn ran(options: &GradeOptions) -> book::Ran {
    book::Ran {
        command: options.command.clone(),
        build: options.build.clone(),
        timeout: options.timeout.as_secs_f64(),
        build_timeout: options.build.as_ref().map(|_| options.build_timeout.as_secs_f64()),
        user: options.user.as_ref().map(|user| user.name().to_owned()),
    }
}

/// The course suite's tests, named by where the gradebook will hold them
/// (`at`): found in a scratch copy of its traces, as `discover` finds them.
fn course_tests(at: &Path) -> Result<Vec<Test>, GradeError> {
    let scratch = course::unpacked()?;
    let mut tests = suite::discover(&[scratch.path().to_path_buf()])?;
    for test in &mut tests {
        let name = test.trace.file_name().unwrap_or_default();
        test.trace = at.join(name);
    }
    Ok(tests)
}

/// Runs every (student, test) pair on one pool of `-j` threads, students in
/// order: a student's last slow test never leaves a thread idle while the
/// next student has tests to run. Programs run as another `user` are
/// graded one student at a time instead (a pool each), so that no two
/// students' programs, of one user, ever run at once. Each student's report
/// and JUnit file are written as their results come in, in order.
fn grade_class(
    options: &GradeOptions,
    tests: &[Test],
    columns: &[Column],
    students: &[(String, PathBuf)],
    replace: Replace,
    user: Option<&RunAs>,
) -> Result<Vec<Row>, GradeError> {
    // What each student's programs leave in the shared folders (`/tmp`) is
    // removed when it fills the disk: the next student's runs find room.
    // Runs' scratch folders are in a holder: what the user owns in /tmp is
    // what its programs made.
    let _holder = match user {
        Some(user) => {
            let holder =
                suite::files::Holder::new().map_err(|error| SuiteError::Scratch { error })?;
            leftovers::watch(user);
            Some(holder)
        }
        None => None,
    };
    // As another user, each student's build is a private copy their tests
    // run in; the builds, held until grading is done, say why they failed.
    let (builds, left) = build_all(options, students, user);
    let built: Vec<Option<BuildFailed>> = builds.iter().map(|b| b.failed.clone()).collect();
    let each: Vec<Options> = students
        .iter()
        .zip(&builds)
        .map(|((_, dir), build)| Options {
            program: Some(options.command.clone()),
            timeout: options.timeout,
            dir: build.folder_or(Some(dir)),
            built_from: build.folder.as_ref().map(|_| dir.clone()),
            course: options.suite.is_none(),
            user: user.cloned(),
            ..Options::default()
        })
        .collect();
    let run = |k: usize, stop: &AtomicBool| {
        let (s, t) = (k / tests.len(), k % tests.len());
        match built[s] {
            Some(_) => suite::unrun(&tests[t], &each[s], Verdict::NotBuilt),
            None => suite::guarded_run(&tests[t], &each[s], stop),
        }
    };
    let count = students.len() * tests.len();
    let jobs = pool::Jobs { count, threads: options.jobs, run: &run };
    let mut class = Class {
        tests,
        built: &built,
        columns,
        students,
        out: &options.out,
        replace,
        left,
        graded: None,
        rows: Vec::with_capacity(students.len()),
        progress: Progress::new(count, students.len(), io::stderr().is_terminal()),
    };
    let stop = AtomicBool::new(false);
    let graded = match user {
        None => pool::run(&jobs, &mut class, &|| false, &stop),
        Some(_) => (0..students.len()).try_for_each(|s| {
            let first = s * tests.len();
            let one = |k: usize, stop: &AtomicBool| run(first + k, stop);
            let jobs = pool::Jobs { count: tests.len(), threads: options.jobs, run: &one };
            let graded = pool::run(&jobs, &mut From { class: &mut class, first }, &|| false, &stop);
            // Nothing of this student's outlives their grading.
            crate::platform::process::stop_all();
            graded
        }),
    };
    // Nothing a student's program started outlives the grading.
    crate::platform::process::stop_all();
    class.progress.finish();
    graded?;
    Ok(class.rows)
}

/// Runs `--build` in each student's folder, `-j` at once, as their
/// programs run; as another `user`, one student at a time (their programs
/// are one user: no build may reach another's), each in a private copy,
/// with what it left in the shared folders (`/tmp`), removed.
fn build_all(
    options: &GradeOptions,
    students: &[(String, PathBuf)],
    user: Option<&RunAs>,
) -> (Vec<Build>, Vec<Option<Left>>) {
    let none = || students.iter().map(|_| Build { failed: None, folder: None }).collect();
    let nothing_left = || students.iter().map(|_| None).collect();
    let Some(command) = &options.build else { return (none(), nothing_left()) };
    let jobs = if user.is_some() { 1 } else { options.jobs.clamp(1, students.len().max(1)) };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let built: std::sync::Mutex<(Vec<Build>, Vec<Option<Left>>)> =
        std::sync::Mutex::new((none(), nothing_left()));
    let work = || {
        loop {
            let s = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((_, dir)) = students.get(s) else { break };
            let build = build(command, Some(dir), options.build_timeout, user);
            let left = user.and_then(|_| leftovers::take());
            let mut built = built.lock().unwrap_or_else(|p| p.into_inner());
            (built.0[s], built.1[s]) = (build, left);
        }
    };
    // This thread builds too: a helper that cannot be started leaves it
    // the builds, never a student unbuilt.
    std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        for _ in 1..jobs {
            match std::thread::Builder::new().name("build".into()).spawn_scoped(scope, work) {
                Ok(helper) => helpers.push(helper),
                Err(_) => break,
            }
        }
        work();
        pool::join(helpers);
    });
    built.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// The class as its results come in: the student being written, the rows
/// of those done.
struct Class<'a> {
    tests: &'a [Test],
    /// Per student, why their build failed, if it did.
    built: &'a [Option<BuildFailed>],
    columns: &'a [Column],
    students: &'a [(String, PathBuf)],
    out: &'a Path,
    /// Whether a student's report and JUnit file replace theirs (`--update`).
    replace: Replace,
    /// Per student, what their build left in the shared folders (`/tmp`).
    left: Vec<Option<Left>>,
    graded: Option<Graded>,
    rows: Vec<Row>,
    progress: Progress,
}

/// One student's results so far, and the reports they go to.
struct Graded {
    recorder: Recorder<'static>,
    report: Report,
    /// The report and the JUnit file, and where they go when whole.
    report_file: (Shared, PathBuf),
    junit_file: (Shared, PathBuf),
    /// Both paths, for messages.
    files: String,
}

impl pool::Results for Class<'_> {
    type Error = GradeError;

    fn arrived(&mut self, _k: usize, _result: &TestResult) {
        self.progress.test_done();
    }

    fn in_order(&mut self, k: usize, result: TestResult, _failed: bool) -> Result<(), GradeError> {
        let (s, t) = (k / self.tests.len(), k % self.tests.len());
        let name = &self.students[s].0;
        let mut graded = match self.graded.take() {
            Some(graded) => graded,
            None => self.start(s)?,
        };
        if result.not_the_programs {
            return Err(GradeError::NotTheProgram {
                student: shown(name),
                test: self.tests[t].name.clone(),
                why: result.verdict.headline().unwrap_or_default(),
                advice: match result.ran_out.is_some() {
                    true => format!("{} Grade again into a new --out.", suite::ran_out_advice()),
                    false => "Mend the suite, then grade again into a new --out.".into(),
                },
            });
        }
        let write = |graded: &Graded, e: io::Error| GradeError::Write(graded.files.clone(), e);
        graded.report.count(&result.verdict);
        // What the student receives shows no hidden expected output.
        let result = result.for_students(self.columns[t].visibility);
        let finished = TestEvent::Finished { number: t + 1, test: &self.tests[t], result: &result };
        graded.recorder.report(&finished).map_err(|e| write(&graded, e))?;
        if t + 1 < self.tests.len() {
            self.graded = Some(graded);
            return Ok(());
        }
        // Their programs are done: what they left in the shared folders
        // (`/tmp`), filling the disk, goes before their report is written
        // whole (on that disk, maybe) and the next student starts.
        let left = match self.left[s].take() {
            Some(built) => Some(built.and(leftovers::take())),
            None => leftovers::take(),
        };
        let done = TestEvent::Done { report: graded.report.clone() };
        graded.recorder.report(&done).map_err(|e| write(&graded, e))?;
        if let Some(left) = &left {
            let mut report = graded.report_file.0.clone();
            writeln!(report, "note: {}", left.told()).map_err(|e| write(&graded, e))?;
        }
        let Graded { recorder, report, report_file, junit_file, .. } = graded;
        let Recorder { mut row, reports } = recorder;
        drop(reports);
        row.left = left.map(|left| left.note());
        for (file, path) in [report_file, junit_file] {
            file.persist(&path)?;
        }
        self.progress.student_done(name, report, row.not_graded().is_none());
        self.rows.push(row);
        Ok(())
    }
}

/// The class's results, for a pool over one student's tests from the
/// `first` pair on.
struct From<'c, 'a> {
    class: &'c mut Class<'a>,
    first: usize,
}

impl pool::Results for From<'_, '_> {
    type Error = GradeError;

    fn arrived(&mut self, k: usize, result: &TestResult) {
        pool::Results::arrived(self.class, self.first + k, result);
    }

    fn in_order(&mut self, k: usize, result: TestResult, failed: bool) -> Result<(), GradeError> {
        self.class.in_order(self.first + k, result, failed)
    }
}

impl Class<'_> {
    /// Opens a student's report (`NAME.report.txt`) and JUnit file
    /// (`NAME.junit.xml`), both new.
    fn start(&self, s: usize) -> Result<Graded, GradeError> {
        let name = &self.students[s].0;
        let report_path = self.out.join(format!("{name}{REPORT}"));
        let junit_path = self.out.join(format!("{name}.junit.xml"));
        let report = Shared::create(&report_path, self.replace)?;
        let junit = Shared::create(&junit_path, self.replace)?;
        let files = shown(format!("{} or {}", report_path.display(), junit_path.display()));
        let mut recorder = Recorder {
            row: Row::new(name),
            reports: suite::report::junit_named(
                name,
                Box::new(junit.clone()),
                Box::new(report.clone()),
            ),
        };
        let build = self.built[s].as_ref();
        recorder.row.build = build.cloned();
        let started = TestEvent::Started { tests: self.tests.len(), build, notes: &[] };
        recorder.report(&started).map_err(|e| GradeError::Write(files.clone(), e))?;
        Ok(Graded {
            recorder,
            report: Report::new(self.tests.len()),
            report_file: (report, report_path),
            junit_file: (junit, junit_path),
            files,
        })
    }
}

/// A name or path as a message shows it: its control characters (a folder
/// named with terminal escapes) as `\xNN`, never sent to the terminal.
fn shown(text: impl std::fmt::Display) -> String {
    suite::escape_controls(&text.to_string())
}

/// `path` from the root, links resolved.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    fs::canonicalize(path)
}

fn suite_error(path: &Path, e: io::Error) -> SuiteError {
    SuiteError::NoTests(format!("{} ({e})", path.display()))
}

#[cfg(test)]
mod tests {
    use super::all_crlf;
    use std::io;

    #[test]
    fn an_expected_file_is_windows_when_every_line_ends_in_crlf() {
        let crlf = |bytes: &[u8]| all_crlf(bytes).expect("read");
        assert!(crlf(b"a\r\nb\r\n"));
        assert!(!crlf(b"a\r\nb\n"), "one line a name's own \\r");
        assert!(!crlf(b"a\nb\n"));
        assert!(!crlf(b""));
        assert!(!crlf(b"\n"));
        // A \r\n across two pieces of the file.
        let split = io::BufReader::with_capacity(2, &b"ab\r\ncd\r\n"[..]);
        assert!(all_crlf(split).expect("read"));
    }
}
