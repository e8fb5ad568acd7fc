//! Where grading reads and writes, checked before anything runs: each
//! student's folder and name, the suite apart from them (not inside one,
//! not one of theirs), and `--out` apart from both, new or empty.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::{GradeError, absolute, shown};
use crate::platform::signals;

/// Each student's name (the folder's) and folder (absolute), in the order
/// given; two students of the same name would share their reports.
pub(super) fn students(submissions: &[PathBuf]) -> Result<Vec<(String, PathBuf)>, GradeError> {
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
pub(super) const REPORT: &str = ".report.txt";

/// Refuses an `--out` inside the suite (the next grading would take its
/// reports for tests) or inside a student's folder (their program runs
/// there, and could change the grades).
pub(super) fn out_apart(
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

/// The student's file the command names (`./ttt`, or `ttt.py` in `python3
/// ttt.py`), when the suite folder holds a file of that name as the
/// students' folders do: the suite is then one more student's. A bare first
/// word (`python3`) is a program on PATH, an option (`-m`) no file, and a
/// word that goes up (`../grader/run.sh`) or a file only the suite holds
/// (the instructor's own) says nothing of it.
pub(super) fn holds_the_program(
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

/// Why `--out` must be new or empty.
const NEVER: &str = "(a new grading never overwrites a file: name a new or empty folder, \
    or add --update to regrade the students named into it)";

/// The file that marks a gradebook being written: made new in `--out`
/// before anything is written there, removed when grading ends (or a
/// signal ends it), so that a second run on the same `--out` is told so.
pub(super) const BUSY: &str = ".tictac-grading";

/// A gradebook folder claimed by this run: its `BUSY` file, removed when
/// this is dropped (or by a fatal signal's cleanup).
pub(super) struct Claim {
    busy: PathBuf,
    _on_signal: signals::Registration,
}

impl Drop for Claim {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.busy);
    }
}

/// The output folder: made if missing; one that exists must be empty.
/// Claimed for this run (`BUSY`): two runs at once on one folder would
/// each find the other's files, so the second is refused, saying why.
/// Under `--update` it must be a folder that exists (its `grades.json` is
/// read next), claimed the same way.
/// The hidden files a gradebook's writer leaves when killed outright
/// (SIGKILL) while it writes a file in `dir`: `.NAME.tictac-XXXXXX`, each
/// renamed into place once whole (`run::output_file`).
fn half_written(dir: &Path) -> Vec<String> {
    let named = |name: &str| {
        let name = name.as_bytes();
        name.starts_with(b".")
            && name.len() > ".tictac-XXXXXX".len()
            && name[..name.len() - 6].ends_with(b".tictac-")
    };
    let entries = fs::read_dir(dir).into_iter().flatten().flatten();
    let names = entries.filter_map(|e| e.file_name().into_string().ok());
    let mut left: Vec<String> = names.filter(|name| named(name)).collect();
    left.sort();
    left
}

/// The shell words that name `half_written`'s files.
fn leftovers(dir: &Path) -> String {
    let dir = crate::platform::command_line::join(&[dir.as_os_str().to_os_string()]);
    format!("{}/.*.tictac-*", shown(dir))
}

pub(super) fn prepare_out(dir: &Path, update: bool) -> Result<Claim, GradeError> {
    let refuse = |why: &str| GradeError::Out(shown(dir.display()), shown(why));
    let busy = dir.join(BUSY);
    let taken = || {
        let left = match half_written(dir).len() {
            0 => String::new(),
            n => format!(
                " and the {n} hidden half-written file{} it left, `rm -f {}`",
                if n == 1 { "" } else { "s" },
                leftovers(dir)
            ),
        };
        refuse(&format!(
            "is being written by another tictac grade run ({} marks it; if no other run is going, one was killed: remove that file{left}, or name another folder)",
            busy.display()
        ))
    };
    // A link to a folder is that folder (as `DIR/` would be).
    match fs::metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(dir).is_ok() => {
            return Err(refuse("is a symbolic link to nothing"));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && update => {
            return Err(refuse(&format!("cannot be updated: {e}")));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(&e.to_string())),
        Ok(m) if !m.is_dir() => return Err(refuse(&format!("exists and is not a folder {NEVER}"))),
        Ok(_) => {
            let mut entries = fs::read_dir(dir).map_err(|e| refuse(&e.to_string()))?;
            if fs::symlink_metadata(&busy).is_ok() {
                return Err(taken());
            }
            if !update && entries.next().is_some() {
                let left = half_written(dir);
                if fs::read_dir(dir).is_ok_and(|all| all.count() == left.len()) {
                    return Err(refuse(&format!(
                        "holds only the {} hidden half-written file{} of a grading that was killed \
                         ({}): `rm -f {}` empties it",
                        left.len(),
                        if left.len() == 1 { "" } else { "s" },
                        shown(left.join(", ")),
                        leftovers(dir)
                    )));
                }
                return Err(refuse(&format!("is a folder that is not empty {NEVER}")));
            }
        }
    }
    fs::create_dir_all(dir).map_err(|e| refuse(&format!("cannot be created: {e}")))?;
    let claimed = signals::register_with(|| {
        fs::File::options().write(true).create_new(true).open(&busy)?;
        let removed = busy.clone();
        let cleanup: signals::Cleanup = Box::new(move || drop(fs::remove_file(&removed)));
        Ok::<_, io::Error>(((), cleanup))
    });
    match claimed {
        Ok(((), on_signal)) => Ok(Claim { busy, _on_signal: on_signal }),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(taken()),
        Err(e) => Err(refuse(&format!("cannot be written in: {e}"))),
    }
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
        assert!(prepare_out(&out, true).is_err(), "--update: no folder");
        drop(prepare_out(&out, false).expect("new"));
        drop(prepare_out(&out, false).expect("empty"));
        fs::write(out.join("grades.csv"), "x").expect("write");
        let e = prepare_out(&out, false).err().expect("not empty").to_string();
        assert!(e.ends_with("is a folder that is not empty (a new grading never overwrites a file: name a new or empty folder, or add --update to regrade the students named into it)"), "{e}");
        let claim = prepare_out(&out, true).expect("--update");
        assert!(prepare_out(&out, true).is_err(), "one update at a time");
        drop(claim);
        assert_eq!(fs::read_to_string(out.join("grades.csv")).expect("kept"), "x");
    }

    #[test]
    fn a_folder_being_written_by_another_run_is_refused_saying_so() {
        let dir = tempfile::tempdir().expect("dir");
        let out = dir.path().join("grades");
        let claim = prepare_out(&out, false).expect("new");
        let e = prepare_out(&out, false).err().expect("claimed").to_string();
        assert!(e.contains("is being written by another tictac grade run"), "{e}");
        fs::write(out.join("grades.csv"), "x").expect("write");
        let e = prepare_out(&out, false).err().expect("claimed").to_string();
        assert!(e.contains("is being written by another tictac grade run"), "{e}");
        drop(claim);
        assert!(!out.join(BUSY).exists(), "the claim goes with the run");
        let e = prepare_out(&out, false).err().expect("not empty").to_string();
        assert!(e.contains("is a folder that is not empty"), "{e}");
    }
}
