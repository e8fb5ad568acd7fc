//! `tictac grade`: one suite against every student's program, each run
//! inside the student's folder exactly as `tictac test --program` runs it
//! (the suite's execution and reporters are `suite`'s), into a gradebook:
//! `grades.csv`, `grades.json`, `tests.csv`, per student the human report and a JUnit file named after
//! the student, and a table on standard output.

mod book;

use std::fs::{self, File};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use book::{Column, Recorder, Row};

use crate::cli::GradeOptions;
use crate::status::{Status, Stopped};
use crate::suite::{self, Options, SuiteError, Test, course, plan};

/// Why the class could not be graded (a usage or file error: exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum GradeError {
    #[error(transparent)]
    Suite(#[from] SuiteError),
    #[error("error: --out '{0}' {1} (grades never overwrite a file: name a new or empty folder)")]
    Out(String, String),
    #[error("error: the submission '{0}' {1}")]
    Submission(String, String),
    #[error("error: cannot write '{0}': {1}")]
    Write(String, io::Error),
}

impl Stopped for GradeError {
    fn closed(&self) -> Option<Status> {
        match self {
            GradeError::Suite(e) => e.closed(),
            _ => None,
        }
    }
}

/// Grades every student, writes the gradebook, prints the table.
pub(crate) fn run(options: &GradeOptions, out: &mut dyn Write) -> Result<Status, GradeError> {
    let students = students(&options.submissions)?;
    // The traces by absolute path: the programs run in other folders.
    let unpacked = match &options.suite {
        None => Some(course::unpacked()?),
        Some(_) => None,
    };
    let suite_path = match (&options.suite, &unpacked) {
        (Some(path), _) => absolute(path).map_err(|e| suite_error(path, e))?,
        (None, Some(scratch)) => scratch.path().to_path_buf(),
        (None, None) => unreachable!("the course suite is unpacked when no suite is named"),
    };
    let mut tests = suite::discover(&[suite_path])?;
    // What only tictac does (`--bot`) is no student's to pass.
    tests.retain(|t| plan::tictac_only(&t.trace).is_none());
    prepare_out(&options.out)?;
    let columns: Vec<Column> = tests
        .iter()
        .map(|t| Column { name: t.name.clone(), points: plan::points(&t.trace) })
        .collect();
    let progress = io::stderr().is_terminal();
    let mut rows = Vec::new();
    let start = std::time::Instant::now();
    for (k, (name, dir)) in students.iter().enumerate() {
        if progress {
            // The students so far give the pace of the rest.
            let left = match k {
                0 => String::new(),
                _ => {
                    let each = start.elapsed().as_secs_f64() / k as f64;
                    format!(", about {:.0} s left", (each * (students.len() - k) as f64).ceil())
                }
            };
            eprintln!("grading {name} ({} of {}{left})", k + 1, students.len());
        }
        rows.push(grade_one(options, &tests, name, dir)?);
    }
    // Nothing a student's program started outlives the grading.
    crate::platform::process::stop_all();
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
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "Graded {} on {}: {} holds grades.csv, grades.json, tests.csv and each student's report and JUnit file.",
        plural(rows.len(), "student"),
        plural(columns.len(), "test"),
        options.out.display()
    )
    .map_err(SuiteError::Write)?;
    Ok(Status::Ran)
}

/// Runs the suite in one student's folder, writing the student's report
/// (`NAME.report.txt`) and JUnit file (`NAME.junit.xml`).
fn grade_one(
    options: &GradeOptions,
    tests: &[Test],
    name: &str,
    dir: &Path,
) -> Result<Row, GradeError> {
    let test_options = Options {
        program: Some(options.command.clone()),
        jobs: options.jobs,
        timeout: options.timeout,
        dir: Some(dir.to_path_buf()),
        ..Options::default()
    };
    let report_path = options.out.join(format!("{name}.report.txt"));
    let junit_path = options.out.join(format!("{name}.junit.xml"));
    let mut report = BufWriter::new(create_new(&report_path)?);
    let mut junit = BufWriter::new(create_new(&junit_path)?);
    let mut row = Row::new(name);
    let mut recorder = Recorder {
        row: &mut row,
        reports: suite::report::junit_named(name, &mut junit, &mut report),
    };
    suite::run_tests(tests, &test_options, &mut recorder)?;
    drop(recorder);
    report.flush().map_err(|e| GradeError::Write(report_path.display().to_string(), e))?;
    junit.flush().map_err(|e| GradeError::Write(junit_path.display().to_string(), e))?;
    Ok(row)
}

/// Each student's name (the folder's) and folder (absolute), in the order
/// given; two students of the same name would share their reports.
fn students(submissions: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, GradeError> {
    let mut students: Vec<(String, PathBuf)> = Vec::new();
    for path in submissions {
        let refuse = |why: String| GradeError::Submission(path.display().to_string(), why);
        if !path.is_dir() {
            return Err(refuse("is not a folder (each student is a folder)".into()));
        }
        let dir = absolute(path).map_err(|e| refuse(e.to_string()))?;
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.is_empty() {
            return Err(refuse("has no name to grade it by".into()));
        }
        if students.iter().any(|(other, _)| *other == name) {
            return Err(refuse(format!("has the name of another student's folder, '{name}'")));
        }
        students.push((name, dir));
    }
    Ok(students)
}

/// `path` from the root, links resolved.
fn absolute(path: &Path) -> io::Result<PathBuf> {
    fs::canonicalize(path)
}

fn suite_error(path: &Path, e: io::Error) -> SuiteError {
    SuiteError::NoTests(format!("{} ({e})", path.display()))
}

/// The output folder: made if missing; one that exists must be empty.
fn prepare_out(dir: &Path) -> Result<(), GradeError> {
    let refuse = |why: &str| GradeError::Out(dir.display().to_string(), why.into());
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(&e.to_string())),
        Ok(m) if !m.is_dir() => return Err(refuse("exists and is not a folder")),
        Ok(_) => {
            let mut entries = fs::read_dir(dir).map_err(|e| refuse(&e.to_string()))?;
            if entries.next().is_some() {
                return Err(refuse("is a folder that is not empty"));
            }
        }
    }
    fs::create_dir_all(dir).map_err(|e| refuse(&format!("cannot be created: {e}")))
}

/// A new file: never one that exists.
fn create_new(path: &Path) -> Result<File, GradeError> {
    File::create_new(path).map_err(|e| GradeError::Write(path.display().to_string(), e))
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), GradeError> {
    let mut file = create_new(path)?;
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(|e| GradeError::Write(path.display().to_string(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

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
