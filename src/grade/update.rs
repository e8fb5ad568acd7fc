//! A regrade (`--update`): the students named are graded again into a
//! gradebook `tictac grade` wrote with the same suite. Every other
//! student's row is read back from its `grades.json`, so that the files
//! rewritten hold it as they did, byte for byte.

use std::fs;
use std::io;
use std::path::Path;

use serde_json::Value;

use super::book::{Column, Failed, Ran, Row};
use super::{GradeError, shown};
use crate::suite::build::BuildFailed;

/// The gradebook's file that a regrade reads back.
pub(super) const GRADES_JSON: &str = "grades.json";

/// The students' rows of the gradebook in `out`, graded on the suite whose
/// digest is `suite` (with these `columns`) by the commands `ran`: refused
/// when it holds no grades of `tictac grade`, the grades of another suite,
/// or grades made with another `--command`, `--build`, `--timeout`,
/// `--build-timeout` or `--user`.
pub(super) fn rows_of(
    out: &Path,
    suite: &str,
    ran: &Ran,
    columns: &[Column],
) -> Result<Vec<Row>, GradeError> {
    let refuse = |why: String| GradeError::Out(shown(out.display()), why);
    let path = out.join(GRADES_JSON);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(refuse(format!(
                "holds no {GRADES_JSON} to update (--update regrades students into a gradebook tictac grade wrote)"
            )));
        }
        Err(e) => return Err(refuse(format!("has a {GRADES_JSON} that cannot be read: {e}"))),
    };
    let changed = |what: &str| {
        refuse(format!(
            "has a {GRADES_JSON} that tictac grade did not write as it stands ({what}): grade into a new --out"
        ))
    };
    let book: Value = serde_json::from_str(&text).map_err(|e| changed(&e.to_string()))?;
    match book.get("suite").and_then(Value::as_str) {
        Some(held) if held == suite => {}
        Some(held) => {
            return Err(GradeError::OtherSuite {
                out: shown(out.display()),
                held: held.into(),
                suite: suite.into(),
            });
        }
        None => return Err(changed("no suite digest")),
    }
    // What a gradebook written before grades.json kept its commands or
    // limits lacks is taken as graded with these: they are kept from now on.
    let mut held = serde_json::to_value(ran).map_err(|e| changed(&e.to_string()))?;
    if let Some(held) = held.as_object_mut() {
        for (key, value) in held.iter_mut() {
            if let Some(kept) = book.get(key) {
                value.clone_from(kept);
            }
        }
    }
    let held: Ran =
        serde_json::from_value(held).map_err(|e| changed(&format!("its commands: {e}")))?;
    if held != *ran {
        return Err(GradeError::OtherCommand {
            out: shown(out.display()),
            held: shown(said(&held)),
            given: shown(said(ran)),
        });
    }
    let names: Option<Vec<&str>> = book["tests"]
        .as_array()
        .map(|tests| tests.iter().map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    let expected: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    if names.as_ref() != Some(&expected) {
        return Err(changed("its tests are not the suite's"));
    }
    let students = book["students"].as_array().ok_or_else(|| changed("no students"))?;
    students
        .iter()
        .map(|student| row_of(student, columns.len()).ok_or_else(|| changed("a student's row")))
        .collect()
}

/// The commands and limits as given on the command line (`--command
/// './ttt' --build 'make ttt' --build-timeout 60, --timeout 10, --user
/// nobody`), each word as the shell would take it back.
fn said(ran: &Ran) -> String {
    let words = |w: &[String]| shell_words::join(w);
    let command = format!("--command {}", quoted(&words(&ran.command)));
    let build = match (&ran.build, ran.build_timeout) {
        (Some(build), Some(limit)) => {
            format!(" --build {} --build-timeout {limit}", quoted(&words(build)))
        }
        (Some(build), None) => format!(" --build {}", quoted(&words(build))),
        (None, _) => " and no --build".into(),
    };
    let user = ran.user.as_ref().map_or(String::new(), |user| format!(", --user {user}"));
    format!("{command}{build}, --timeout {}{user}", ran.timeout)
}

/// `text` in single quotes, as the messages show a command.
fn quoted(text: &str) -> String {
    format!("'{text}'")
}

/// One student's row as `book::json` wrote it.
fn row_of(student: &Value, tests: usize) -> Option<Row> {
    let mut row = Row::new(student["student"].as_str()?);
    if let Some(build) = student.get("build") {
        let lines = build["output"].as_array()?.iter().map(|l| l.as_str().map(String::from));
        row.build = Some(BuildFailed {
            headline: build["failure"].as_str()?.into(),
            command: build["command"].as_str()?.into(),
            output: lines.collect::<Option<Vec<String>>>()?,
        });
    }
    row.left = student.get("left").and_then(Value::as_str).map(String::from);
    let results = student["tests"].as_array()?;
    if results.len() != tests {
        return None;
    }
    for result in results {
        // `passed` is null for a student not graded, whose tests say why.
        let failed = match result["passed"].as_bool() {
            Some(true) => None,
            _ => Some(Failed::read(result["kind"].as_str()?, result["failure"].as_str()?)?),
        };
        row.failures.push(failed);
    }
    Some(row)
}

/// The gradebook's rows with `graded` in them: a student already there
/// keeps their place, a new one goes before the first row whose name sorts
/// after theirs (so a class listed in order stays in order).
pub(super) fn merge(mut rows: Vec<Row>, graded: Vec<Row>) -> Vec<Row> {
    for row in graded {
        match rows.iter().position(|r| r.student == row.student) {
            Some(k) => rows[k] = row,
            None => {
                let k = rows.iter().position(|r| r.student > row.student).unwrap_or(rows.len());
                rows.insert(k, row);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regraded_student_keeps_their_place_and_a_new_one_goes_in_order() {
        let rows = |names: &[&str]| names.iter().map(|n| Row::new(n)).collect::<Vec<_>>();
        let mut bob = Row::new("bob");
        bob.failures.push(None);
        let merged = merge(rows(&["alice", "bob", "dan"]), vec![bob, Row::new("carol")]);
        let names: Vec<&str> = merged.iter().map(|r| r.student.as_str()).collect();
        assert_eq!(names, ["alice", "bob", "carol", "dan"]);
        assert_eq!(merged[1].failures, [None]);
        let merged = merge(rows(&["bob", "alice"]), rows(&["zed", "abe"]));
        let names: Vec<&str> = merged.iter().map(|r| r.student.as_str()).collect();
        assert_eq!(names, ["abe", "bob", "alice", "zed"]);
    }
}
