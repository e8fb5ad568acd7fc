//! `--bless`: an expected file replaced whole, atomically (`OutputFile`: a
//! hidden file in the same folder, renamed over it, removed on a signal),
//! and never through a symbolic link.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

use super::diff;
use super::files;
use crate::platform::process::Capture;
use crate::run::{OutputError, OutputFile};

/// Writes `actual` as the expected file unless it already says that; the
/// note for the report saying what changed (created with N lines, updated
/// with the lines that differ, or unchanged), and whose output it is when a
/// `--program` produced it. Or why it was not written.
pub(crate) fn bless(
    expected: &Path,
    actual: &mut Capture,
    program: Option<&str>,
) -> Result<String, String> {
    let shown = expected.display();
    let not = |why: String| format!("not blessed: {why}");
    let existing = writable(expected, "--bless").map_err(not)?;
    let whose = program.map(|p| format!(" from the output of {p}")).unwrap_or_default();
    let change = match &existing {
        None => None,
        Some(_) => {
            let mut old = files::open_regular(expected)
                .and_then(|f| Capture::of_file(f).map_err(|e| e.to_string()))
                .map_err(not)?;
            match diff::change_count(&mut old, actual).map_err(|e| not(e.to_string()))? {
                None => {
                    let already = program.map(|p| format!(": already the output of {p}"));
                    return Ok(format!("unchanged {shown}{}", already.unwrap_or_default()));
                }
                Some(change) => Some(change),
            }
        }
    };
    write_whole(expected, existing.as_ref(), actual).map_err(not)?;
    Ok(match change {
        None => {
            let lines = line_count(actual).map_err(|e| not(e.to_string()))?;
            format!("created {shown}{whose} ({})", plural(lines, "line"))
        }
        Some(diff::Change::Lines { removed, added }) => {
            let verb = if removed + added == 1 { "differs" } else { "differ" };
            format!(
                "updated {shown}{whose}: {} {verb} ({removed} removed, {added} added)",
                plural(removed + added, "line")
            )
        }
        Some(diff::Change::From(line)) => {
            format!("updated {shown}{whose}: it differs from line {line} on")
        }
    })
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

/// Lines in a capture, a last one without its newline included; streamed.
fn line_count(content: &mut Capture) -> io::Result<usize> {
    let mut reader = content.reader()?;
    let (mut lines, mut last) = (0, b'\n');
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok(lines + usize::from(last != b'\n'));
        }
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count();
        last = buf[n - 1];
    }
}

/// What is at `path` if it may be replaced by `who` (`--bless`, `--log`):
/// nothing, or a regular file; never a symbolic link (which would be
/// written through, or replaced when its target was meant).
pub(super) fn writable(path: &Path, who: &str) -> Result<Option<fs::Metadata>, String> {
    let shown = path.display();
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {shown}: {e}")),
        Ok(m) if m.file_type().is_symlink() => {
            Err(format!("{shown} is a symbolic link ({who} never writes through one)"))
        }
        Ok(m) if !m.is_file() => {
            Err(format!("{shown} is {}, not a regular file", files::describe(m.file_type())))
        }
        Ok(m) => Ok(Some(m)),
    }
}

/// Writes `content` as the file at `path` (what `writable` found there:
/// its mode is kept), whole or not at all.
pub(super) fn write_whole(
    path: &Path,
    existing: Option<&fs::Metadata>,
    content: &mut Capture,
) -> Result<(), String> {
    let permissions = crate::platform::files::permissions_for(existing);
    replace(path, content, permissions).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn replace(
    path: &Path,
    content: &mut Capture,
    permissions: Option<fs::Permissions>,
) -> io::Result<()> {
    // A hidden file beside it, removed on an error or a fatal signal; the
    // rename replaces a name: a link put there meanwhile is replaced, never
    // followed.
    let mut file = OutputFile::replacing(path).map_err(OutputError::into_reason)?;
    if let Err(e) = io::copy(&mut content.reader()?, &mut file) {
        return Err(file.write_failed(e).into_reason());
    }
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    file.persist_replace().map_err(OutputError::into_reason)
}

// Symbolic links, FIFOs and modes as Unix has them.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    /// A capture of bytes in memory.
    fn captured(bytes: Vec<u8>) -> Capture {
        Capture::of_bytes(&bytes).expect("a spool in memory")
    }

    #[test]
    fn blessing_replaces_whole_files_and_refuses_links() {
        let dir = tempfile::tempdir().expect("temp dir");
        let expected = dir.path().join("a.expected.txt");
        let shown = expected.display();
        let note = bless(&expected, &mut captured(b"one\n".to_vec()), None).expect("blessed");
        assert_eq!(note, format!("created {shown} (1 line)"));
        let note = bless(&expected, &mut captured(b"one\n".to_vec()), None).expect("blessed");
        assert_eq!(note, format!("unchanged {shown}"));
        let two = b"two\nthree\nfour".to_vec();
        let note = bless(&expected, &mut captured(two), Some("./o")).expect("blessed");
        assert_eq!(
            note,
            format!("updated {shown} from the output of ./o: 4 lines differ (1 removed, 3 added)")
        );
        assert_eq!(fs::read(&expected).expect("read"), b"two\nthree\nfour");
        let note = bless(&expected, &mut captured(b"two\nthree\nfour".to_vec()), Some("./o"));
        assert_eq!(note, Ok(format!("unchanged {shown}: already the output of ./o")));
        // Only `\n` ends a line: `a\rb` is one line, not two.
        let note = bless(&expected, &mut captured(b"a\rb\n".to_vec()), None).expect("blessed");
        assert_eq!(note, format!("updated {shown}: 4 lines differ (3 removed, 1 added)"));
        let note = bless(&expected, &mut captured(b"a\rb\nc\n".to_vec()), None).expect("blessed");
        assert_eq!(note, format!("updated {shown}: 1 line differs (0 removed, 1 added)"));
        let target = dir.path().join("elsewhere");
        fs::write(&target, "keep").expect("write");
        let link = dir.path().join("b.expected.txt");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let e = bless(&link, &mut captured(b"x\n".to_vec()), None).expect_err("a link");
        assert!(e.contains("is a symbolic link"), "{e}");
        assert_eq!(fs::read(&target).expect("read"), b"keep");
        let leftovers = fs::read_dir(dir.path()).expect("list").count();
        assert_eq!(leftovers, 3, "no temporary file left behind");
    }
}
