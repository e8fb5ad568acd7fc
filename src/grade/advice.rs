//! What the table alone may not make plain to the instructor: a `--command`
//! that started no student's program (a typo), or one that names nothing in
//! the students' folders, so that every student ran the same program (a
//! bare `ttt` is looked for on `PATH` on Unix, not in the folder); tests no
//! student passed (a wrong expected file, or a `-- run:` file missing where
//! tictac runs). Notes, not errors: the grades stand as the command was given.

use std::path::{Path, PathBuf};

use super::book::{Column, Row, first_names};
use crate::cli::Python3;

/// The notes to print under the table (`built`: under `--build`, which may
/// make the program in a copy of each folder, not the folder itself).
pub(crate) fn notes(
    command: &[String],
    built: bool,
    students: &[(String, PathBuf)],
    columns: &[Column],
    rows: &[Row],
) -> Vec<String> {
    let shown = command.join(" ");
    let mut notes = Vec::new();
    let failures = || rows.iter().flat_map(|row| row.failures.iter());
    let none_started = failures().next().is_some()
        && failures().all(|f| f.as_ref().is_some_and(|f| f.kind == "could not start"));
    let theirs = |p: &Path| students.iter().map(|(_, dir)| dir.join(p)).find(|p| p.is_file());
    if none_started && let Some(runs_it) = crate::cli::command_in_folder(command, theirs) {
        notes.push(format!(
            "warning: no student's program could start with --command '{shown}': \
             '{}' is a file in the students' folders, and a bare name is looked for on PATH: \
             --command {runs_it} in each student's folder",
            command[0]
        ));
    } else if none_started
        && let Some(python3) = crate::cli::python3_instead(command, |p| theirs(p).is_some())
    {
        notes.push(format!(
            "warning: no student's program could start with --command '{shown}': {}",
            match python3 {
                Python3::RunsIt(runs_it) => {
                    format!("'python' is not on PATH; python3 is: --command {runs_it}")
                }
                Python3::NoFile(file) => format!(
                    "'python' is not on PATH (python3 is); and no student's folder has a file '{file}'"
                ),
            }
        ));
    } else if none_started {
        notes.push(format!(
            "warning: no student's program could start with --command '{shown}': \
             check it (it runs inside each student's folder: a program there is `./ttt` on Unix)"
        ));
    } else if let [program] = command
        && !built
        && !names_a_student_file(program, students)
    {
        notes.push(format!(
            "note: --command '{shown}' names no file in a student's folder: \
             every student ran the same program (a bare name is looked for on PATH; \
             a program in the student's folder is `./ttt` on Unix)"
        ));
    }
    if !none_started && rows.len() > 1 {
        notes.extend(failed_by_all(columns, rows));
    }
    notes.extend(not_graded(rows));
    notes
}

/// The students none of whose tests ran, for trouble that is not their
/// program's: their 0 is no grade (grading exits 1 then).
pub(crate) fn not_graded(rows: &[Row]) -> Option<String> {
    let ungraded: Vec<(&str, &str)> =
        rows.iter().filter_map(|row| Some((row.student.as_str(), row.not_graded()?))).collect();
    let (_, why) = ungraded.first()?;
    let names: Vec<&str> = ungraded.iter().map(|(name, _)| *name).collect();
    let n = names.len();
    Some(crate::suite::escape_controls(&format!(
        "warning: {n} student{} not graded, no test of theirs run: {} ({why}): their cells in \
         the gradebook are empty, no grade; make their folder smaller (2,000 entries or 32 MiB, its top \
         .git not counted) and regrade them with --update",
        if n == 1 { "" } else { "s" },
        first_names(&names),
    )))
}

/// Tests every student failed, when some are.
fn failed_by_all(columns: &[Column], rows: &[Row]) -> Option<String> {
    let failed = |k: usize| rows.iter().all(|row| row.failures.get(k).is_some_and(Option::is_some));
    let names: Vec<&str> = columns
        .iter()
        .enumerate()
        .filter(|(k, _)| failed(*k))
        .map(|(_, c)| c.name.as_str())
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "note: no student passed {}: check the test before the students (its expected \
             output; a file its `-- run:` line names is read beside the trace)",
            first_names(&names)
        )
    })
}

/// Whether a command of one word (`./ttt`, `ttt.bat` on Windows) names a
/// file in some student's folder. Of several words nothing is said: what an
/// interpreter makes of them (`python3 -m ttt`, `java Main`) is its own.
fn names_a_student_file(program: &str, students: &[(String, PathBuf)]) -> bool {
    let program = Path::new(program);
    program.is_relative() && students.iter().any(|(_, dir)| dir.join(program).exists())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::book::Failed;

    fn words(command: &str) -> Vec<String> {
        command.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_command_that_started_nothing_or_names_nothing_of_theirs_is_noted() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(dir.path().join("ttt.py"), "").expect("write");
        let students = [("ann".to_string(), dir.path().to_path_buf())];
        let failed = |kind| Some(Failed { kind, headline: String::new() });
        let mut row = Row::new("ann");
        row.failures = vec![failed("could not start"), failed("could not start")];
        let columns = [column("a"), column("b")];
        let notes =
            |command: &str, rows: &[Row]| notes(&words(command), false, &students, &columns, rows);
        let typo = notes("./tt", std::slice::from_ref(&row));
        assert!(typo[0].starts_with("warning: no student's program could start"), "{typo:?}");
        // A file of theirs named bare, looked for on PATH: what runs it.
        let py = notes("ttt.py", std::slice::from_ref(&row));
        assert!(py[0].ends_with("'ttt.py' is a file in the students' folders, and a bare name is looked for on PATH: --command \"python3 ttt.py\" runs it in each student's folder"), "{py:?}");
        std::fs::write(dir.path().join("ttt"), "").expect("write");
        let bare = notes("ttt -x", std::slice::from_ref(&row));
        assert!(
            bare[0].ends_with(
                ": --command \"./ttt -x\" runs it after chmod +x ttt in each student's folder"
            ),
            "{bare:?}"
        );
        row.failures[1] = None;
        assert_eq!(notes("python3 ttt.py", std::slice::from_ref(&row)), [""; 0]);
        assert_eq!(notes("python3 -m ttt", std::slice::from_ref(&row)), [""; 0], "its own");
        let same = notes("tictac", std::slice::from_ref(&row));
        assert!(
            same[0].starts_with("note: --command 'tictac' names no file in a student's folder"),
            "{same:?}"
        );
        assert_eq!(notes("/usr/bin/tictac", std::slice::from_ref(&row)).len(), 1);
        // Under --build, made in a copy of the folder: not looked for.
        let passed = failing("ann", &[false, false]);
        let built = super::notes(&words("./made"), true, &students, &columns, &[passed]);
        assert_eq!(built, [""; 0]);
        let passed = failing("ann", &[false, false]);
        assert_eq!(super::notes(&words("./made"), false, &students, &columns, &[passed]).len(), 1);
        // Test a failed by both students: the test is suspect, not them.
        let both = notes("python3 ttt.py", &[row, failing("bo", &[true, false])]);
        assert_eq!(both.len(), 1, "{both:?}");
        assert!(both[0].starts_with("note: no student passed a: check the test"), "{both:?}");
    }

    #[test]
    fn tests_failed_by_all_are_named_three_at_most() {
        let columns: Vec<Column> = ["a", "b", "c", "d", "e"].map(column).into();
        let rows = [failing("ann", &[true; 5]), failing("bo", &[true, true, true, true, false])];
        let note = failed_by_all(&columns, &rows).expect("a note");
        assert!(note.starts_with("note: no student passed a, b, c (+1 more): "), "{note}");
        assert_eq!(failed_by_all(&columns, &[failing("cy", &[false; 5])]), None);
    }

    fn column(name: &str) -> Column {
        Column {
            name: name.into(),
            points: crate::suite::points::Points::ONE,
            visibility: crate::suite::plan::Visibility::Visible,
        }
    }

    fn failing(student: &str, failed: &[bool]) -> Row {
        let failure =
            |f: &bool| f.then(|| Failed { kind: "output differs", headline: String::new() });
        let mut row = Row::new(student);
        row.failures = failed.iter().map(failure).collect();
        row
    }
}
