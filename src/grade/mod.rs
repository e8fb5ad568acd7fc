//! `tictac grade`: one suite against every student's program, each run
//! inside the student's folder exactly as `tictac test --program` runs it
//! (the suite's execution and reporters are `suite`'s), into a gradebook:
//! `grades.csv`, `grades.json`, `tests.csv`, per student the human report and a JUnit file named after
//! the student, and a table on standard output.

mod advice;
mod book;
mod files;
mod progress;

use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Component, Path, PathBuf};

use std::sync::atomic::AtomicBool;

use book::{Column, Recorder, Row};
use files::{Shared, write_new};
use progress::Progress;

use crate::cli::GradeOptions;
use crate::status::{Status, Stopped};
use crate::suite::{
    self, Options, Report, Reporter, SuiteError, Test, TestEvent, TestResult, course, plan, pool,
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
    #[error("error: the test '{0}' cannot run as written: {1}")]
    Trace(String, String),
    #[error("error: cannot write '{0}': {1}")]
    Write(String, io::Error),
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
    NotTheProgram { student: String, test: String, why: String, advice: &'static str },
}

impl Stopped for GradeError {
    fn closed(&self) -> Option<Status> {
        match self {
            GradeError::Suite(e) => e.closed(),
            _ => None,
        }
    }
}

/// What to do when the system ran out while grading (the test was tried
/// again while another program's run could have held what ran out).
const RAN_OUT: &str = "The system ran out of it for longer than any program's run lasts: \
    free it (disk space in the temporary folder: up to 17 MiB for each of the -j runs; \
    open files: `ulimit -n`; processes: `ulimit -u`), or grade with a smaller -j, into a new --out.";

/// The folder of the gradebook that holds the course suite under `--course`.
const COURSE_SUITE: &str = "course-suite";

/// Grades every student, writes the gradebook, prints the table.
pub(crate) fn run(options: &GradeOptions, out: &mut dyn Write) -> Result<Status, GradeError> {
    let students = students(&options.submissions)?;
    // The traces by absolute path: the programs run in other folders. A
    // suite named is read before anything is written.
    let named = match &options.suite {
        Some(path) => {
            let path = absolute(path).map_err(|e| suite_error(path, e))?;
            // A student's files would be taken for tests (worth what they say).
            if let Some((_, dir)) = students.iter().find(|(_, dir)| dir.starts_with(&path)) {
                let why =
                    format!("is inside the suite '{}': its files would be tests", path.display());
                return Err(GradeError::Submission(shown(dir.display()), why));
            }
            // Their program runs there: it could read or change the answers.
            if let Some((name, _)) = students.iter().find(|(_, dir)| path.starts_with(dir)) {
                return Err(GradeError::SuiteInAStudent(shown(path.display()), shown(name)));
            }
            // `--course` forgotten: the first student's folder would be the suite.
            if let Some(program) = holds_the_program(&path, &options.command, &students) {
                return Err(GradeError::LooksLikeAStudent(shown(path.display()), shown(program)));
            }
            let tests = suite::discover(std::slice::from_ref(&path)).map_err(|e| match e {
                SuiteError::NoTests(_) => GradeError::NoTests(shown(path.display())),
                e => e.into(),
            })?;
            // A directive or points mistyped would stop grading midway, or
            // grade wrongly: refused before anything runs.
            for test in &tests {
                plan::check(&test.trace)
                    .map_err(|why| GradeError::Trace(shown(test.trace.display()), shown(why)))?;
            }
            Some((path, tests))
        }
        None => None,
    };
    out_apart(&options.out, named.as_ref().map(|(path, _)| path.as_path()), &students)?;
    prepare_out(&options.out)?;
    // The course suite is written into the gradebook once grading is done,
    // so that every command a report shows can be run again as it stands;
    // meanwhile the runs read it from the executable, so no program finds
    // its answers there, nor changes them for the students after it.
    let course_at = options.out.join(COURSE_SUITE);
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
        .map(|t| Column { name: t.name.clone(), points: plan::points(&t.trace) })
        .collect();
    let rows = grade_class(options, &tests, &students)?;
    if options.suite.is_none() {
        course::write_out(&course_at)?;
    }
    let mut csv = Vec::new();
    book::write_csv(&mut csv, &columns, &rows).map_err(SuiteError::Write)?;
    write_new(&options.out.join("grades.csv"), &csv)?;
    let mut json = serde_json::to_vec_pretty(&book::json(&columns, &rows))
        .map_err(|e| SuiteError::Write(e.into()))?;
    json.push(b'\n');
    write_new(&options.out.join("grades.json"), &json)?;
    let mut tests_csv = Vec::new();
    book::write_tests_csv(&mut tests_csv, &columns, &rows).map_err(SuiteError::Write)?;
    write_new(&options.out.join("tests.csv"), &tests_csv)?;
    book::write_table(out, &columns, &rows).map_err(SuiteError::Write)?;
    for note in advice::notes(&options.command, &students, &columns, &rows) {
        writeln!(out, "{note}").map_err(SuiteError::Write)?;
    }
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (of, suite) = match options.suite {
        None => ("the course suite".to_string(), ", and the course suite"),
        Some(_) => (format!("'{}'", suite_path.display()), ""),
    };
    writeln!(
        out,
        "Graded {} on {} of {of}: {} holds grades.csv, grades.json, tests.csv, each student's report and JUnit file{suite}.",
        plural(rows.len(), "student"),
        plural(columns.len(), "test"),
        options.out.display()
    )
    .map_err(SuiteError::Write)?;
    Ok(Status::Ran)
}

/// The student's file the command names (`./ttt`, or `ttt.py` in `python3
/// ttt.py`), when the suite folder holds a file of that name as the
/// students' folders do: the suite is then one more student's. A bare first
/// word (`python3`) is a program on PATH, an option (`-m`) no file, and a
/// word that goes up (`../grader/run.sh`) or a file only the suite holds
/// (the instructor's own) says nothing of it.
fn holds_the_program(
    suite: &Path,
    command: &[String],
    students: &[(String, PathBuf)],
) -> Option<String> {
    let bare = |word: &String| Path::new(word).components().count() == 1;
    let up = |word: &String| Path::new(word).components().any(|c| c == Component::ParentDir);
    let (first, rest) = command.split_first()?;
    let words = std::iter::once(first).filter(|w| !bare(w)).chain(rest);
    words
        .filter(|word| !word.starts_with('-') && !up(word) && Path::new(word).is_relative())
        .filter(|word| suite.join(word).is_file())
        .find(|word| students.iter().any(|(_, dir)| dir.join(word).is_file()))
        .map(|word| word.to_string())
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
/// next student has tests to run. Each student's report and JUnit file are
/// written as their results come in, in order.
fn grade_class(
    options: &GradeOptions,
    tests: &[Test],
    students: &[(String, PathBuf)],
) -> Result<Vec<Row>, GradeError> {
    let each: Vec<Options> = students
        .iter()
        .map(|(_, dir)| Options {
            program: Some(options.command.clone()),
            timeout: options.timeout,
            dir: Some(dir.to_path_buf()),
            course: options.suite.is_none(),
            ..Options::default()
        })
        .collect();
    let run = |k: usize, stop: &AtomicBool| {
        suite::guarded_run(&tests[k % tests.len()], &each[k / tests.len()], stop)
    };
    let count = students.len() * tests.len();
    let jobs = pool::Jobs { count, threads: options.jobs, run: &run };
    let mut class = Class {
        tests,
        students,
        out: &options.out,
        graded: None,
        rows: Vec::with_capacity(students.len()),
        progress: Progress::new(count, students.len(), io::stderr().is_terminal()),
    };
    let stop = AtomicBool::new(false);
    let graded = pool::run(&jobs, &mut class, &|| false, &stop);
    // Nothing a student's program started outlives the grading.
    crate::platform::process::stop_all();
    class.progress.finish();
    graded?;
    Ok(class.rows)
}

/// The class as its results come in: the student being written, the rows
/// of those done.
struct Class<'a> {
    tests: &'a [Test],
    students: &'a [(String, PathBuf)],
    out: &'a Path,
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
            None => self.start(name)?,
        };
        if result.not_the_programs {
            return Err(GradeError::NotTheProgram {
                student: shown(name),
                test: self.tests[t].name.clone(),
                why: result.verdict.headline().unwrap_or_default(),
                advice: match result.ran_out {
                    true => RAN_OUT,
                    false => "Mend the suite, then grade again into a new --out.",
                },
            });
        }
        let write = |graded: &Graded, e: io::Error| GradeError::Write(graded.files.clone(), e);
        graded.report.count(&result.verdict);
        let finished = TestEvent::Finished { number: t + 1, test: &self.tests[t], result: &result };
        graded.recorder.report(&finished).map_err(|e| write(&graded, e))?;
        if t + 1 < self.tests.len() {
            self.graded = Some(graded);
            return Ok(());
        }
        let done = TestEvent::Done { report: graded.report };
        graded.recorder.report(&done).map_err(|e| write(&graded, e))?;
        let Graded { recorder, report, report_file, junit_file, .. } = graded;
        let Recorder { row, reports } = recorder;
        drop(reports);
        for (file, path) in [report_file, junit_file] {
            file.persist(&path)?;
        }
        self.progress.student_done(name, report);
        self.rows.push(row);
        Ok(())
    }
}

impl Class<'_> {
    /// Opens a student's report (`NAME.report.txt`) and JUnit file
    /// (`NAME.junit.xml`), both new.
    fn start(&self, name: &str) -> Result<Graded, GradeError> {
        let report_path = self.out.join(format!("{name}{REPORT}"));
        let junit_path = self.out.join(format!("{name}.junit.xml"));
        let report = Shared::create(&report_path)?;
        let junit = Shared::create(&junit_path)?;
        let files = shown(format!("{} or {}", report_path.display(), junit_path.display()));
        let mut recorder = Recorder {
            row: Row::new(name),
            reports: suite::report::junit_named(
                name,
                Box::new(junit.clone()),
                Box::new(report.clone()),
            ),
        };
        let started = TestEvent::Started { tests: self.tests.len() };
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

/// Each student's name (the folder's) and folder (absolute), in the order
/// given; two students of the same name would share their reports.
fn students(submissions: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, GradeError> {
    let mut students: Vec<(String, PathBuf)> = Vec::new();
    for path in submissions {
        let refuse = |why: String| GradeError::Submission(shown(path.display()), shown(why));
        if !path.is_dir() {
            return Err(refuse("is not a folder (each student is a folder)".into()));
        }
        let dir = absolute(path).map_err(|e| refuse(e.to_string()))?;
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.is_empty() {
            return Err(refuse("has no name to grade it by".into()));
        }
        // NAME.report.txt must be a file name the system takes (255 bytes).
        if name.len() + REPORT.len() > 255 {
            return Err(refuse(format!(
                "has a name too long for its report's file name ({} bytes with `{REPORT}`, at most 255)",
                name.len() + REPORT.len()
            )));
        }
        if students.iter().any(|(other, _)| *other == name) {
            return Err(refuse(format!("has the name of another student's folder, '{name}'")));
        }
        students.push((name, dir));
    }
    Ok(students)
}

/// The end of a student's report's name (the longest of their files').
const REPORT: &str = ".report.txt";

/// Refuses an `--out` inside the suite (the next grading would take its
/// reports for tests) or inside a student's folder (their program runs
/// there, and could change the grades).
fn out_apart(
    out: &Path,
    suite: Option<&Path>,
    students: &[(String, PathBuf)],
) -> Result<(), GradeError> {
    let refuse = |why: String| GradeError::Out(shown(out.display()), shown(why));
    // `alice/x/..` with no `alice/x`: made, it would be `alice` itself.
    let Some(resolved) = where_it_would_be(out) else {
        return Err(refuse(
            "goes up (`..`) from a folder that does not exist: name the folder itself".into(),
        ));
    };
    if let Some(suite) = suite.filter(|suite| resolved.starts_with(suite)) {
        let why = format!(
            "is inside the suite '{}' (the next grading would take its reports for tests)",
            suite.display()
        );
        return Err(refuse(why));
    }
    if let Some((name, _)) = students.iter().find(|(_, dir)| resolved.starts_with(dir)) {
        return Err(refuse(format!(
            "is inside the folder of the student '{name}', where their program runs"
        )));
    }
    Ok(())
}

/// Where `path` is or would be made, from the root: its nearest folder that
/// exists, links resolved, then the names still to make (`alice/x/y` with
/// no `alice/x` is inside `alice`). None when that cannot be told (`..`
/// after a name that does not exist, which the system would make first).
fn where_it_would_be(path: &Path) -> Option<PathBuf> {
    let mut missing = Vec::new();
    let mut at = path.to_path_buf();
    loop {
        if let Ok(found) = absolute(&at) {
            return Some(missing.iter().rev().fold(found, |path, name| path.join(name)));
        }
        missing.push(at.file_name()?.to_owned());
        at = match at.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
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

/// Why `--out` must be new or empty.
const NEVER: &str = "(grades never overwrite a file: name a new or empty folder)";

/// The output folder: made if missing; one that exists must be empty.
fn prepare_out(dir: &Path) -> Result<(), GradeError> {
    let refuse = |why: &str| GradeError::Out(shown(dir.display()), shown(why));
    // A link to a folder is that folder (as `DIR/` would be).
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(dir).is_ok() => {
            return Err(refuse("is a symbolic link to nothing"));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(&e.to_string())),
        Ok(m) if !m.is_dir() => return Err(refuse(&format!("exists and is not a folder {NEVER}"))),
        Ok(_) => {
            let mut entries = fs::read_dir(dir).map_err(|e| refuse(&e.to_string()))?;
            if entries.next().is_some() {
                return Err(refuse(&format!("is a folder that is not empty {NEVER}")));
            }
        }
    }
    fs::create_dir_all(dir).map_err(|e| refuse(&format!("cannot be created: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_suite_is_taken_for_a_student_only_if_it_holds_their_program() {
        let root = tempfile::tempdir().expect("dir");
        let (suite, bob) = (root.path().join("alice"), root.path().join("bob"));
        for (dir, files) in [(&suite, ["ttt", "run.sh", "-m"]), (&bob, ["ttt", "x", "y"])] {
            fs::create_dir(dir).expect("mkdir");
            for file in files {
                fs::write(dir.join(file), "").expect("write");
            }
        }
        let students = [("bob".to_string(), bob.clone())];
        let held = |command: &str| {
            let words: Vec<String> = command.split(' ').map(String::from).collect();
            holds_the_program(&suite, &words, &students)
        };
        assert_eq!(held("./ttt"), Some("./ttt".into()));
        assert_eq!(held("sh ttt"), Some("ttt".into()));
        assert_eq!(held("sh run.sh"), None, "the instructor's own, in the suite only");
        assert_eq!(held("sh ../alice/ttt"), None, "going up names no student's file");
        assert_eq!(held("python3 -m ttt.py"), None);
        assert_eq!(held("ttt"), None, "a bare name is looked for on PATH");
    }

    #[test]
    fn the_output_folder_is_new_or_empty() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("grades");
        prepare_out(&out).expect("new");
        prepare_out(&out).expect("empty");
        fs::write(out.join("grades.csv"), "x").expect("write");
        let e = prepare_out(&out).expect_err("not empty").to_string();
        assert!(e.ends_with("is a folder that is not empty (grades never overwrite a file: name a new or empty folder)"), "{e}");
        assert_eq!(fs::read_to_string(out.join("grades.csv")).expect("kept"), "x");
    }
}
