//! What the table alone may not make plain to the instructor: a `--command`
//! that started no student's program (a typo), or one that names nothing in
//! the students' folders, so that every student ran the same program (a
//! bare `ttt` is looked for on `PATH` on Unix, not in the folder). Notes, not
//! errors: the grades stand as the command was given.

use std::path::{Path, PathBuf};

use super::book::Row;

/// The notes to print under the table.
pub(crate) fn notes(
    command: &[String],
    students: &[(String, PathBuf)],
    rows: &[Row],
) -> Vec<String> {
    let shown = command.join(" ");
    let mut notes = Vec::new();
    let failures = || rows.iter().flat_map(|row| row.failures.iter());
    let none_started = failures().next().is_some()
        && failures().all(|f| f.as_ref().is_some_and(|f| f.kind == "could not start"));
    if none_started {
        notes.push(format!(
            "warning: no student's program could start with --command '{shown}': \
             check it (it runs inside each student's folder: a program there is `./ttt` on Unix)"
        ));
    } else if !names_a_student_file(command, students) {
        notes.push(format!(
            "note: no word of --command '{shown}' names a file in a student's folder: \
             every student ran the same program (a bare name is looked for on PATH; \
             a program in the student's folder is `./ttt` on Unix)"
        ));
    }
    notes
}

/// Whether a word of the command names a file or folder in some student's
/// folder (`./ttt`, `ttt.py` in `python3 ttt.py`, `ttt.bat` on Windows).
fn names_a_student_file(command: &[String], students: &[(String, PathBuf)]) -> bool {
    let relative = command.iter().map(Path::new).filter(|word| word.is_relative());
    relative
        .flat_map(|word| students.iter().map(move |(_, dir)| dir.join(word)))
        .any(|path| path.exists())
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
        let typo = notes(&words("./tt"), &students, std::slice::from_ref(&row));
        assert!(typo[0].starts_with("warning: no student's program could start"), "{typo:?}");
        row.failures[1] = None;
        assert_eq!(notes(&words("python3 ttt.py"), &students, std::slice::from_ref(&row)), [""; 0]);
        let same = notes(&words("tictac"), &students, std::slice::from_ref(&row));
        assert!(
            same[0].starts_with("note: no word of --command 'tictac' names a file"),
            "{same:?}"
        );
        assert_eq!(notes(&words("/usr/bin/tictac"), &students, &[row]).len(), 1);
    }
}
