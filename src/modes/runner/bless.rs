//! `--bless`: an expected file replaced whole, atomically (`OutputFile`: a
//! hidden file in the same folder, renamed over it, removed on a signal),
//! and never through a symbolic link.

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::diff;
use super::files;
use crate::modes::{OutputError, OutputFile};
use crate::process::Capture;

/// Writes `actual` as the expected file unless it already says that; the
/// note for the report when it changed, or why it was not written.
pub(crate) fn bless(expected: &Path, actual: &mut Capture) -> Result<Option<String>, String> {
    let shown = expected.display();
    let not = |why: String| format!("not blessed: {why}");
    let existing = match fs::symlink_metadata(expected) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(not(format!("cannot read {shown}: {e}"))),
        Ok(m) if m.file_type().is_symlink() => {
            return Err(not(format!(
                "{shown} is a symbolic link (--bless never writes through one)"
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(not(format!(
                "{shown} is {}, not a regular file",
                files::describe(m.file_type())
            )));
        }
        Ok(m) => Some(m),
    };
    if existing.is_some() {
        let mut old = files::open_regular(expected)
            .and_then(|f| Capture::of_file(f).map_err(|e| e.to_string()))
            .map_err(not)?;
        let same = diff::first_difference(
            &mut *old.reader().map_err(|e| e.to_string())?,
            &mut *actual.reader().map_err(|e| e.to_string())?,
        )
        .map_err(|e| not(e.to_string()))?
        .is_none();
        if same {
            return Ok(None);
        }
    }
    let mode = existing.as_ref().map_or(0o644, |m| m.permissions().mode() & 0o7777);
    replace(expected, actual, mode).map_err(|e| not(format!("cannot write {shown}: {e}")))?;
    let verb = if existing.is_some() { "updated" } else { "created" };
    Ok(Some(format!("{verb} {shown}")))
}

fn replace(path: &Path, content: &mut Capture, mode: u32) -> io::Result<()> {
    // A hidden file beside it, removed on an error or a fatal signal; the
    // rename replaces a name: a link put there meanwhile is replaced, never
    // followed.
    let mut file = OutputFile::replacing(path).map_err(OutputError::into_reason)?;
    if let Err(e) = io::copy(&mut content.reader()?, &mut file) {
        return Err(file.write_failed(e).into_reason());
    }
    file.set_mode(mode)?;
    file.persist_replace().map_err(OutputError::into_reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blessing_replaces_whole_files_and_refuses_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let expected = dir.path().join("a.expected.txt");
        let note = bless(&expected, &mut Capture::of(b"one\n".to_vec())).expect("blessed");
        assert!(note.expect("a note").starts_with("created "));
        assert_eq!(bless(&expected, &mut Capture::of(b"one\n".to_vec())), Ok(None));
        let note = bless(&expected, &mut Capture::of(b"two\n".to_vec())).expect("blessed");
        assert!(note.expect("a note").starts_with("updated "));
        assert_eq!(fs::read(&expected).expect("read"), b"two\n");
        let target = dir.path().join("elsewhere");
        fs::write(&target, "keep").expect("write");
        let link = dir.path().join("b.expected.txt");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let e = bless(&link, &mut Capture::of(b"x\n".to_vec())).expect_err("a link");
        assert!(e.contains("is a symbolic link"), "{e}");
        assert_eq!(fs::read(&target).expect("read"), b"keep");
        let leftovers = fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(leftovers, 3, "no temporary file left behind");
    }
}
