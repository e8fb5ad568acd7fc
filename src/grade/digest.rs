//! The suite's identity, kept in `grades.json` so that a regrade
//! (`--update`) adds to a gradebook only the grades of the suite it holds:
//! a SHA-256 of every test graded, in order, each its name, its trace, its
//! expected file (directives, points and visibility are in the trace) and
//! the file its `-- run:` line names, when it names one (`-b data.in`).

use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::suite::{Test, course, files, plan};

/// `sha256:HEX` of the tests, read from the executable under `--course`.
pub(super) fn of_suite(tests: &[Test], course: bool) -> String {
    let mut hash = Sha256::new();
    for test in tests {
        add(&mut hash, b"test", test.name.as_bytes());
        for path in [test.trace.clone(), test.expected_path()] {
            let builtin = course.then(|| path.file_name().and_then(course::file)).flatten();
            match builtin {
                Some(bytes) => add(&mut hash, b"file", bytes),
                None => add_file(&mut hash, &path),
            }
        }
        // Only a trace that names one adds it: other suites' digests stay.
        if let Some(input) = plan::named_input(&test.trace) {
            hash.update(b"input");
            add_file(&mut hash, &input);
        }
    }
    let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// `kind`, then `bytes`, each after its length: no two suites run together.
fn add(hash: &mut Sha256, kind: &[u8], bytes: &[u8]) {
    hash.update(kind);
    hash.update((bytes.len() as u64).to_le_bytes());
    hash.update(bytes);
}

/// The file's bytes as it streams, after its kind; a file that cannot be
/// read, or is no regular file (a FIFO would block), counts as its own
/// kind (its test stops grading when it runs).
fn add_file(hash: &mut Sha256, path: &Path) {
    let Ok(mut file) = files::open_checked(path) else {
        hash.update(b"none");
        return;
    };
    hash.update(b"file");
    let mut buffer = vec![0; 64 * 1024];
    let mut length = 0u64;
    loop {
        match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                hash.update(&buffer[..n]);
                length += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => {
                hash.update(b"unreadable");
                break;
            }
        }
    }
    hash.update(length.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_changes_with_any_trace_expected_file_or_name() {
        let dir = tempfile::tempdir().expect("dir");
        let test =
            |name: &str| Test { trace: dir.path().join(format!("{name}.txt")), name: name.into() };
        std::fs::write(dir.path().join("a.txt"), "undo\n").expect("write");
        std::fs::write(dir.path().join("a.expected.txt"), "x\n").expect("write");
        let first = of_suite(&[test("a")], false);
        assert!(first.starts_with("sha256:") && first.len() == 7 + 64, "{first}");
        assert_eq!(of_suite(&[test("a")], false), first, "the same suite");
        std::fs::write(dir.path().join("a.expected.txt"), "y\n").expect("write");
        let other = of_suite(&[test("a")], false);
        assert_ne!(other, first);
        std::fs::write(dir.path().join("a.txt"), "-- points: 2\nundo\n").expect("write");
        assert_ne!(of_suite(&[test("a")], false), other);
        std::fs::copy(dir.path().join("a.txt"), dir.path().join("b.txt")).expect("copy");
        std::fs::copy(dir.path().join("a.expected.txt"), dir.path().join("b.expected.txt"))
            .expect("copy");
        assert_ne!(of_suite(&[test("b")], false), of_suite(&[test("a")], false), "names count");
    }

    /// The file a `-- run:` line names is part of the test (the tester's
    /// C13 g): a regrade after it changed would mix two versions.
    #[test]
    fn the_digest_changes_with_the_file_a_run_line_names() {
        let dir = tempfile::tempdir().expect("dir");
        let test = [Test { trace: dir.path().join("a.txt"), name: "a".into() }];
        std::fs::write(dir.path().join("a.txt"), "-- run: -b data.in\n").expect("write");
        std::fs::write(dir.path().join("a.expected.txt"), "x\n").expect("write");
        std::fs::write(dir.path().join("data.in"), "undo\n").expect("write");
        let first = of_suite(&test, false);
        assert_eq!(of_suite(&test, false), first, "the same suite");
        std::fs::write(dir.path().join("data.in"), "redo\n").expect("write");
        assert_ne!(of_suite(&test, false), first);
    }
}
