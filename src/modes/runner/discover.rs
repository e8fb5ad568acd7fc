//! Finding the tests: traces `NAME.txt` with `NAME.expected.txt` beside them.

use std::fs;
use std::path::{Path, PathBuf};

use super::RunnerError;

/// One test: the trace, and its name for the report (the path under the
/// folder it was found in, without `.txt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Test {
    pub trace: PathBuf,
    pub name: String,
}

impl Test {
    /// `NAME.expected.txt` beside `NAME.txt` (or `FILE.expected.txt`).
    pub fn expected_path(&self) -> PathBuf {
        sibling(&self.trace, "expected")
    }
}

/// `a/NAME.txt` → `a/NAME.KIND.txt`; a name without `.txt` just gains `.KIND.txt`.
pub fn sibling(trace: &Path, kind: &str) -> PathBuf {
    let name = trace.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".txt").unwrap_or(&name);
    trace.with_file_name(format!("{stem}.{kind}.txt"))
}

/// Files that are outputs, never traces.
fn is_output(name: &str) -> bool {
    name.ends_with(".expected.txt") || name.ends_with(".actual.txt")
}

/// The folders searched when no path is given.
pub const DEFAULT_ROOTS: [&str; 2] = ["acceptance", "tests/acceptance"];

/// The tests under the given paths (each a trace or a folder searched
/// recursively), sorted by path; with no path, the first default folder that
/// exists.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Test>, RunnerError> {
    let roots: Vec<PathBuf> = if paths.is_empty() {
        let found = DEFAULT_ROOTS.iter().map(PathBuf::from).find(|p| p.is_dir());
        vec![found.ok_or_else(|| RunnerError::NoTests(DEFAULT_ROOTS.join("/ and ") + "/"))?]
    } else {
        paths.to_vec()
    };
    let mut tests = Vec::new();
    for root in &roots {
        if root.is_dir() {
            let mut traces = Vec::new();
            walk(root, &mut traces)?;
            for trace in traces {
                let relative = trace.strip_prefix(root).unwrap_or(&trace);
                let name = relative.to_string_lossy();
                let name = name.strip_suffix(".txt").unwrap_or(&name).to_string();
                tests.push(Test { trace, name });
            }
        } else if root.is_file() {
            let file =
                root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if is_output(&file) {
                continue;
            }
            let name = file.strip_suffix(".txt").unwrap_or(&file).to_string();
            tests.push(Test { trace: root.clone(), name });
        } else {
            return Err(RunnerError::Missing(root.display().to_string()));
        }
    }
    tests.sort_by(|a, b| a.trace.cmp(&b.trace));
    tests.dedup_by(|a, b| a.trace == b.trace);
    if tests.is_empty() {
        let looked: Vec<String> = roots.iter().map(|p| p.display().to_string()).collect();
        return Err(RunnerError::NoTests(looked.join(", ")));
    }
    Ok(tests)
}

fn walk(dir: &Path, traces: &mut Vec<PathBuf>) -> Result<(), RunnerError> {
    let unreadable = |_| RunnerError::Unreadable(dir.display().to_string());
    for entry in fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if path.is_dir() {
            walk(&path, traces)?;
        } else if name.ends_with(".txt") && !is_output(&name) {
            traces.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_never_traces_and_order_is_sorted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        fs::create_dir(root.join("sub")).expect("mkdir");
        for f in ["b.txt", "a.txt", "a.expected.txt", "a.actual.txt", "notes.md", "sub/c.txt"] {
            fs::write(root.join(f), "undo\n").expect("write");
        }
        let tests = discover(&[root.to_path_buf()]).expect("found");
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "sub/c"]);
        assert_eq!(tests[0].expected_path(), root.join("a.expected.txt"));
        assert!(matches!(discover(&[root.join("nope")]), Err(RunnerError::Missing(_))));
        let empty = tempfile::tempdir().expect("temp dir");
        assert!(matches!(discover(&[empty.path().to_path_buf()]), Err(RunnerError::NoTests(_))));
    }

    #[test]
    fn siblings_replace_or_extend_the_txt_ending() {
        assert_eq!(sibling(Path::new("d/x.txt"), "expected"), Path::new("d/x.expected.txt"));
        assert_eq!(sibling(Path::new("d/session"), "actual"), Path::new("d/session.actual.txt"));
    }
}
