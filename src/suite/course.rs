//! The course suite, compiled into the executable: `acceptance/course/`,
//! the `-b IN` traces any ETF tic-tac-toe program must pass, with their
//! expected outputs. `tictac test --course` runs it from a scratch folder
//! of its traces alone; `tictac grade --course` writes it into the gradebook
//! once grading is done; `tictac course-suite DIR` writes it out for a course
//! to publish or extend. While it runs, each trace and expected output is
//! read from the executable (`file`), never from a file a program under
//! test could find, read for its answers, or change for the students after
//! it (options.course).

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};

use super::SuiteError;
pub(crate) use super::discover::default_root;
use super::files::Scratch;

static COURSE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/acceptance/course");

/// How many tests the course suite holds (its traces: each has its
/// expected file beside it).
pub(crate) fn tests() -> usize {
    COURSE.files().filter(|f| !is_expected(f.path())).count()
}

fn is_expected(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".expected.txt")
}

/// Whether a run of `tictac test` with no PATH falls back to the course
/// suite: it tests a program, and no default folder is here.
pub(crate) fn is_default(program_given: bool) -> bool {
    program_given && default_root().is_none()
}

/// A file of the course suite (`NAME.txt`, `NAME.expected.txt`) by name,
/// as the executable holds it.
pub(crate) fn file(name: &OsStr) -> Option<&'static [u8]> {
    COURSE.get_file(Path::new(name)).map(|file| file.contents())
}

/// The course suite's traces in a new scratch folder, gone when dropped:
/// no expected output lies there for a program to find.
pub(crate) fn unpacked() -> Result<Scratch, SuiteError> {
    let scratch = Scratch::new().map_err(|e| course_error(Path::new("a scratch folder"), e))?;
    write_files(scratch.path(), false).map_err(|e| course_error(scratch.path(), e))?;
    Ok(scratch)
}

/// Writes the course suite to `dir` (`DIR/NAME.txt`, `DIR/NAME.expected.txt`),
/// which must not exist or be an empty folder; the files appear all at once
/// (written in a hidden folder beside it, then renamed), never half of them.
pub(crate) fn write_out(dir: &Path) -> Result<usize, SuiteError> {
    let refuse = |why: &str| SuiteError::CourseDir(dir.display().to_string(), why.into());
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(refuse(&e.to_string())),
        Ok(m) if !m.is_dir() => return Err(refuse("it exists and is not a folder")),
        Ok(_) => {
            let mut entries = fs::read_dir(dir).map_err(|e| refuse(&e.to_string()))?;
            if entries.next().is_some() {
                return Err(refuse("it is a folder that is not empty"));
            }
        }
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let staged =
        Scratch::in_folder(&parent, ".course-suite").map_err(|e| refuse(&e.to_string()))?;
    write_files(staged.path(), true).map_err(|e| refuse(&e.to_string()))?;
    // Onto a new name, or over the empty folder (rename's own rule).
    fs::rename(staged.path(), dir).map_err(|e| refuse(&e.to_string()))?;
    Ok(tests())
}

/// Writes the traces into `dir`, and their expected outputs when asked.
fn write_files(dir: &Path, expected_too: bool) -> io::Result<()> {
    for file in COURSE.files().filter(|f| expected_too || !is_expected(f.path())) {
        fs::write(dir.join(file.path()), file.contents())?;
    }
    Ok(())
}

fn course_error(dir: &Path, e: io::Error) -> SuiteError {
    SuiteError::CourseDir(dir.display().to_string(), e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suite_is_plain_traces_each_with_its_expected_output() {
        assert!(tests() >= 40, "{}", tests());
        for file in COURSE.files().filter(|f| !is_expected(f.path())) {
            let name = file.path().to_string_lossy();
            let expected = name.replace(".txt", ".expected.txt");
            assert!(COURSE.get_file(&expected).is_some(), "{name} has no {expected}");
            let text = file.contents_utf8().expect("UTF-8");
            assert!(!text.starts_with("-- run:") && !text.starts_with("-- status:"), "{name}");
        }
        assert_eq!(COURSE.dirs().count(), 0, "one flat folder");
        assert_eq!(file(OsStr::new("no_such.txt")), None);
    }

    #[test]
    fn a_scratch_copy_holds_no_answers() {
        let scratch = unpacked().expect("unpacked");
        let names: Vec<_> = fs::read_dir(scratch.path()).expect("list").flatten().collect();
        assert_eq!(names.len(), tests());
        for entry in names {
            assert!(!is_expected(&entry.path()), "{}", entry.path().display());
            let name = entry.file_name();
            assert_eq!(file(&name), Some(&fs::read(entry.path()).expect("read")[..]));
        }
    }

    #[test]
    fn it_is_written_to_a_new_or_empty_folder_only() {
        let root = tempfile::tempdir().expect("dir");
        let new = root.path().join("new");
        assert_eq!(write_out(&new).expect("written"), tests());
        assert_eq!(fs::read_dir(&new).expect("list").count(), 2 * tests());
        let refused = write_out(&new).expect_err("not empty").to_string();
        assert!(refused.ends_with("it is a folder that is not empty"), "{refused}");
        let empty = root.path().join("empty");
        fs::create_dir(&empty).expect("mkdir");
        write_out(&empty).expect("an empty folder is fine");
        let file = root.path().join("file");
        fs::write(&file, "x").expect("write");
        let refused = write_out(&file).expect_err("a file").to_string();
        assert!(refused.ends_with("it exists and is not a folder"), "{refused}");
        // Nothing staged is left behind.
        let left: Vec<_> = fs::read_dir(root.path()).expect("list").flatten().collect();
        assert_eq!(left.len(), 3, "{left:?}");
    }
}
