//! Finding the tests: traces `NAME.txt` with `NAME.expected.txt` beside them.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::path::{Component, Path, PathBuf};

use walkdir::WalkDir;

use super::SuiteError;
pub(crate) use crate::cli::shown::escape_controls;
use crate::platform::files;
use crate::run::FileError;

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
/// Built from the name's bytes: a name that is not UTF-8 must not lead to a
/// look-alike file.
pub(crate) fn sibling(trace: &Path, kind: &str) -> PathBuf {
    let name = trace.file_name().unwrap_or_default();
    // The stem is what precedes the last dot: for a name ending in `.txt`
    // (`.txt` alone aside) exactly the name without it, bytes kept.
    let mut file = match name.as_encoded_bytes() {
        b".txt" => OsString::new(),
        bytes if bytes.ends_with(b".txt") => {
            Path::new(name).file_stem().unwrap_or_default().to_os_string()
        }
        _ => name.to_os_string(),
    };
    file.push(format!(".{kind}.txt"));
    trace.with_file_name(file)
}

/// A test's name as reports print it: not UTF-8 shown as U+FFFD, control
/// characters as `\xNN`, so no name can start a line of its own.
fn display_name(path: &Path) -> String {
    let text = path.to_string_lossy();
    escape_controls(text.strip_suffix(".txt").unwrap_or(&text))
}

/// Files that are outputs (`--log` writes `.actual.txt` and `.stderr.txt`),
/// never traces.
fn is_output(name: &str) -> bool {
    [".expected.txt", ".actual.txt", ".stderr.txt"].iter().any(|end| name.ends_with(end))
}

/// The expected files beside the tests' traces that no trace has
/// (`b.expected.txt` with no `b.txt`): a test written and never run (its
/// trace saved as `b.TXT`, renamed `c.trace`, deleted). Each with why,
/// naming a file of its name with another ending when there is one.
pub(crate) fn orphans(tests: &[Test]) -> Vec<(PathBuf, String)> {
    let folders: std::collections::BTreeSet<&Path> =
        tests.iter().map(|t| t.trace.parent().unwrap_or(Path::new(""))).collect();
    let orphans = folders.into_iter().flat_map(orphans_in);
    orphans.map(|orphan| (orphan.expected.clone(), orphan.why())).collect()
}

/// An expected file with no trace beside it.
struct Orphan {
    expected: PathBuf,
    /// The trace it needs (`b.txt`).
    trace: String,
    /// A file of the trace's name with another ending (`b.TXT`), if any.
    near: Option<String>,
}

impl Orphan {
    fn why(&self) -> String {
        let mut why = format!("has no trace '{}' beside it, so no test runs it", self.trace);
        if let Some(near) = &self.near {
            why.push_str(&format!(" ('{near}' is beside it: {})", self.naming()));
        }
        escape_controls(&why)
    }

    /// How a trace is named, with what its near name got wrong.
    fn naming(&self) -> &'static str {
        match &self.near {
            Some(near) if near.eq_ignore_ascii_case(&self.trace) => {
                "a trace is named NAME.txt, .txt in lower case"
            }
            _ => "a trace is named NAME.txt",
        }
    }
}

/// The expected files in `folder` with no trace beside them, in natural
/// order.
fn orphans_in(folder: &Path) -> Vec<Orphan> {
    let mut names = names_in(folder);
    names.sort_by(|a, b| natural(a, b));
    let mut found = Vec::new();
    for name in &names {
        let Some(stem) = name.strip_suffix(".expected.txt") else { continue };
        let trace = format!("{stem}.txt");
        if stem.is_empty()
            || stem.starts_with('.')
            || fs::symlink_metadata(folder.join(&trace)).is_ok()
        {
            continue;
        }
        let start = format!("{}.", stem.to_lowercase());
        let near = names.iter().find(|n| {
            let lower = n.to_lowercase();
            lower.starts_with(&start) && !is_output(&lower)
        });
        found.push(Orphan { expected: folder.join(name), trace, near: near.cloned() });
    }
    found
}

/// Why `roots` hold no test when they hold expected files whose traces
/// are misnamed (every one `.TXT`, as a Windows tool saved them, or
/// `.trace`) or gone: how many, and one near name, as each orphan's
/// warning says when some tests are found.
fn misnamed(roots: &[PathBuf]) -> Option<String> {
    let folders = roots
        .iter()
        .filter(|root| root.is_dir())
        .flat_map(|root| walker(root).flatten().filter(|e| e.file_type().is_dir()));
    let orphans: Vec<Orphan> = folders.flat_map(|folder| orphans_in(folder.path())).collect();
    let shown =
        |path: &Path| escape_controls(&path.file_name().unwrap_or_default().to_string_lossy());
    let example = orphans.iter().find(|o| o.near.is_some()).or(orphans.first())?;
    let expected = shown(&example.expected);
    let which = match &example.near {
        Some(near) => format!("'{near}' is beside '{expected}': {}", example.naming()),
        None => format!("'{expected}' needs '{}' beside it", example.trace),
    };
    let looked: Vec<String> = roots.iter().map(|p| format!("'{}'", p.display())).collect();
    let (count, files) = match orphans.len() {
        1 => ("1".to_string(), "expected file with no trace beside it"),
        n => (n.to_string(), "expected files with no trace beside them"),
    };
    Some(escape_controls(&format!("{} holds {count} {files} ({which})", looked.join(", "))))
}

/// A file beside `expected` (`d.expected.txt`, missing) named nearly so
/// (`d.expected`, `D.Expected.txt`), when there is one.
pub(crate) fn near_expected(expected: &Path) -> Option<String> {
    let name = expected.file_name()?.to_str()?;
    let start = name.strip_suffix(".txt")?.to_lowercase();
    let folder = expected.parent().unwrap_or(Path::new(""));
    let mut names = names_in(folder);
    names.sort_by(|a, b| natural(a, b));
    names
        .into_iter()
        .find(|n| n != name && n.to_lowercase().starts_with(&start))
        .map(|n| escape_controls(&n))
}

/// The names in `folder` that are UTF-8 (none when it cannot be listed).
fn names_in(folder: &Path) -> Vec<String> {
    let listed = if folder.as_os_str().is_empty() { Path::new(".") } else { folder };
    let entries = fs::read_dir(listed).into_iter().flatten().flatten();
    entries.filter_map(|e| e.file_name().into_string().ok()).collect()
}

/// The folders searched when no path is given.
pub(crate) const DEFAULT_ROOTS: [&str; 2] = ["acceptance", "tests/acceptance"];

/// The first of `DEFAULT_ROOTS` that is a folder here: the suite run when
/// no path is given.
pub(crate) fn default_root() -> Option<&'static str> {
    DEFAULT_ROOTS.into_iter().find(|root| Path::new(root).is_dir())
}

/// The tests under the given paths (each a trace or a folder searched
/// recursively, following symbolic links), sorted by path; with no path,
/// the first default folder that exists. A file reached by several paths
/// (links, loops, a folder named twice) is one test, named by the first path
/// in sorted order; a folder reached again is not searched again, so links
/// can neither loop nor multiply the search.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Test>, SuiteError> {
    discover_noting(paths, &mut Vec::new())
}

/// `discover`, adding to `unfollowed` what under the folders searched
/// cannot be followed, and so holds no test (`tictac test` warns of each).
pub(crate) fn discover_noting(
    paths: &[PathBuf],
    unfollowed: &mut Vec<Unfollowed>,
) -> Result<Vec<Test>, SuiteError> {
    let roots: Vec<PathBuf> = if paths.is_empty() {
        let found = default_root().map(PathBuf::from);
        vec![found.ok_or_else(|| SuiteError::NoSuiteHere(DEFAULT_ROOTS.join("/ and ") + "/"))?]
    } else {
        paths.to_vec()
    };
    let mut seen = SeenTraces::default();
    // Each test with the folder its name is relative to.
    let mut found: Vec<(Test, &Path)> = Vec::new();
    for root in &roots {
        if root.is_dir() {
            for trace in walk(root, &mut seen, unfollowed)? {
                let relative = trace.strip_prefix(root).unwrap_or(&trace);
                let name = display_name(relative);
                found.push((Test { trace, name }, root));
            }
        } else if fs::symlink_metadata(root).is_ok() {
            let file =
                root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if !file.ends_with(".txt") {
                return Err(SuiteError::NotATrace(root.display().to_string()));
            }
            if is_output(&file) || !seen.first(root) {
                continue;
            }
            let name = display_name(Path::new(&file));
            let folder = root.parent().filter(|p| !p.as_os_str().is_empty());
            found.push((Test { trace: root.clone(), name }, folder.unwrap_or(Path::new("."))));
        } else {
            return Err(FileError::Missing(root.display().to_string()).into());
        }
    }
    found.sort_by(|a, b| natural_path(&a.0.trace, &b.0.trace));
    found.dedup_by(|a, b| a.0.trace == b.0.trace);
    if found.is_empty() {
        if let Some(why) = misnamed(&roots) {
            return Err(SuiteError::Misnamed(why));
        }
        let looked: Vec<String> = roots.iter().map(|p| p.display().to_string()).collect();
        return Err(SuiteError::NoTests(looked.join(", ")));
    }
    name_apart(&mut found);
    Ok(found.into_iter().map(|(test, _)| test).collect())
}

/// Tests of one name from different folders (`tictac test A B`, each with
/// `a.txt`) named by as many of their folder's last names as tell them
/// apart (`A/a`, `B/a`; `x/A/a`, `y/A/a`), so that every report and `--log`
/// keep each: never `..` nor a path from the root, so that a name stays
/// below `--log`'s folder.
fn name_apart(found: &mut [(Test, &Path)]) {
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (k, (test, _)) in found.iter().enumerate() {
        by_name.entry(test.name.clone()).or_default().push(k);
    }
    let taken: HashSet<String> = by_name.keys().cloned().collect();
    for group in by_name.into_values().filter(|group| group.len() > 1) {
        let folders: Vec<Vec<OsString>> = group.iter().map(|&k| folder_names(found[k].1)).collect();
        let deepest = folders.iter().map(Vec::len).max().unwrap_or(0);
        for depth in 1..=deepest {
            let names: Vec<String> = group
                .iter()
                .zip(&folders)
                .map(|(&k, names)| {
                    let kept = &names[names.len().saturating_sub(depth)..];
                    let relative = found[k].0.trace.strip_prefix(found[k].1).ok();
                    let file = relative.unwrap_or(Path::new(&found[k].0.name));
                    let path: PathBuf = kept.iter().collect();
                    display_name(&path.join(file))
                })
                .collect();
            let apart = names.iter().collect::<HashSet<_>>().len() == names.len()
                && names.iter().all(|name| !taken.contains(name));
            if apart || depth == deepest {
                for (&k, name) in group.iter().zip(names) {
                    found[k].0.name = name;
                }
                break;
            }
        }
    }
}

/// The names of the folders down to `folder`, from the root: its path made
/// absolute, links resolved, `.` and `..` gone.
fn folder_names(folder: &Path) -> Vec<OsString> {
    let full = fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
    full.components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name.to_os_string()),
            _ => None,
        })
        .collect()
}

/// Paths in natural order, a component at a time (`t2` before `t10`).
fn natural_path(a: &Path, b: &Path) -> Ordering {
    let parts = |p: &Path| -> Vec<String> {
        p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect()
    };
    let (a, b) = (parts(a), parts(b));
    a.iter()
        .zip(&b)
        .map(|(x, y)| natural(x, y))
        .find(|o| o.is_ne())
        .unwrap_or(a.len().cmp(&b.len()))
}

/// Names in natural order: runs of digits compare as numbers, the rest as
/// text; ties (`t02`, `t2`) fall back to plain order.
pub(crate) fn natural(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    while let (Some(&p), Some(&q)) = (x.first(), y.first()) {
        let order = if p.is_ascii_digit() && q.is_ascii_digit() {
            let (m, rest_x) = digits(x);
            let (n, rest_y) = digits(y);
            (x, y) = (rest_x, rest_y);
            let (m, n) = (trim_zeros(m), trim_zeros(n));
            m.len().cmp(&n.len()).then(m.cmp(n))
        } else {
            (x, y) = (&x[1..], &y[1..]);
            p.cmp(&q)
        };
        if order.is_ne() {
            return order;
        }
    }
    x.len().cmp(&y.len()).then(a.cmp(b))
}

fn digits(s: &[u8]) -> (&[u8], &[u8]) {
    let k = s.iter().position(|c| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(k)
}

fn trim_zeros(s: &[u8]) -> &[u8] {
    let k = s.iter().position(|&c| c != b'0').unwrap_or(s.len());
    &s[k..]
}

/// Folders met so far, by their identity (device and inode): a folder
/// reached again through a link is searched once.
#[derive(Default)]
struct Seen(HashSet<files::FileId>);

impl Seen {
    /// Whether `path` is met for the first time (a path that cannot be
    /// looked at counts as new: its test will say what is wrong).
    fn first(&mut self, path: &Path) -> bool {
        files::id(path).is_none_or(|id| self.0.insert(id))
    }
}

/// Traces met so far, by the path they resolve to: one reached again
/// through a link runs once, but hard links are files of their own names,
/// each with its own expected file beside it, so each is a test.
#[derive(Default)]
struct SeenTraces(HashSet<PathBuf>);

impl SeenTraces {
    fn first(&mut self, path: &Path) -> bool {
        self.0.insert(fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// Something in a suite's folder that cannot be followed (a link in a
/// loop, or to nothing; a folder that cannot be listed): no test, and what
/// it leads to is left out. Told by one warning, `tictac test`'s, `tictac
/// grade`'s and the autograder's.
#[derive(Debug)]
pub(crate) struct Unfollowed {
    /// Its path as the walk met it: below the suite's folder as the
    /// command walked it (as named, or made absolute by grade).
    path: PathBuf,
    why: String,
}

impl Unfollowed {
    /// What `error`, met walking `root`, says of its path (`root` itself
    /// when the error names none).
    pub(crate) fn new(error: &walkdir::Error, root: &Path) -> Unfollowed {
        let path = error.path().unwrap_or(root);
        let why = match error.loop_ancestor() {
            Some(_) => "a link back to a folder above it".to_string(),
            None => error.io_error().map_or_else(|| error.to_string(), ToString::to_string),
        };
        Unfollowed { path: path.to_path_buf(), why }
    }

    /// A trace at `path` that is a link `why` cannot be followed.
    pub(crate) fn broken(path: &Path, why: &std::io::Error) -> Unfollowed {
        Unfollowed { path: path.to_path_buf(), why: why.to_string() }
    }

    /// The warning, ending with what became of it (`left`: "left out of
    /// the zip").
    pub(crate) fn warning(&self, left: &str) -> String {
        let path = escape_controls(&self.path.display().to_string());
        format!("warning: the suite's '{path}' cannot be followed ({}): {left}", self.why)
    }
}

/// The traces under `root`, in sorted order, each file and folder once;
/// what cannot be followed there added to `unfollowed`.
fn walk(
    root: &Path,
    seen: &mut SeenTraces,
    unfollowed: &mut Vec<Unfollowed>,
) -> Result<Vec<PathBuf>, SuiteError> {
    let mut traces = Vec::new();
    for entry in walker(root) {
        let entry = match entry {
            Ok(entry) => entry,
            // A loop back to a folder above: already being searched, and
            // nothing left out.
            Err(e) if e.loop_ancestor().is_some() => continue,
            // Something that cannot be looked at (a broken or looping link,
            // a folder that cannot be listed): a trace by its name fails
            // its own test saying why; anything else is no test, but may
            // stand for tests (a folder of them), so it is told.
            Err(e) if e.depth() == 0 => {
                let at = e.path().unwrap_or(root);
                return Err(FileError::Unreadable(at.display().to_string()).into());
            }
            Err(e) => {
                match e.path().filter(|p| is_trace_name(p)) {
                    Some(path) if seen.first(path) => traces.push(path.to_path_buf()),
                    Some(_) => {}
                    None => unfollowed.push(Unfollowed::new(&e, root)),
                }
                continue;
            }
        };
        if !entry.file_type().is_dir() && is_trace_name(entry.path()) && seen.first(entry.path()) {
            traces.push(entry.into_path());
        }
    }
    Ok(traces)
}

/// A suite's folder walked, by `walk` for its traces and by `misnamed` for
/// its folders alike: links followed, in natural order, each folder once
/// (by its identity: links can neither loop nor multiply the search), and
/// hidden names below the root left out, which are no tests: macOS's
/// `._NAME.txt` (unzipped resource forks), editors' `.#NAME.txt` locks,
/// `.git/`.
fn walker(root: &Path) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> {
    let mut folders = Seen::default();
    WalkDir::new(root)
        .follow_links(true)
        .sort_by(|a, b| natural(&a.file_name().to_string_lossy(), &b.file_name().to_string_lossy()))
        .into_iter()
        .filter_entry(move |e| {
            let hidden = e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
            !hidden && (!e.file_type().is_dir() || folders.first(e.path()))
        })
}

/// `NAME.txt` and not an output.
fn is_trace_name(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    name.ends_with(".txt") && !is_output(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_never_traces_and_order_is_sorted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        fs::create_dir(root.join("sub")).expect("mkdir");
        fs::create_dir(root.join(".git")).expect("mkdir");
        for f in ["b.txt", "a.txt", "a.expected.txt", "a.actual.txt", "notes.md", "sub/c.txt"] {
            fs::write(root.join(f), "undo\n").expect("write");
        }
        for hidden in ["._b.txt", ".#a.txt", ".git/d.txt"] {
            fs::write(root.join(hidden), "\0\x05junk").expect("write");
        }
        let tests = discover(&[root.to_path_buf()]).expect("found");
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "sub/c"], "hidden names are no tests");
        let named = discover(&[root.join("._b.txt")]).expect("named");
        assert_eq!(named[0].name, "._b", "a hidden trace named is run");
        assert_eq!(tests[0].expected_path(), root.join("a.expected.txt"));
        assert!(matches!(
            discover(&[root.join("nope")]),
            Err(SuiteError::File(FileError::Missing(_)))
        ));
        let empty = tempfile::tempdir().expect("temp dir");
        assert!(matches!(discover(&[empty.path().to_path_buf()]), Err(SuiteError::NoTests(_))));
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn links_and_loops_give_each_file_once_under_its_first_name() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        fs::create_dir(root.join("sub")).expect("mkdir");
        fs::write(root.join("sub/t.txt"), "undo\n").expect("write");
        fs::write(root.join("z.txt"), "undo\n").expect("write");
        symlink(root, root.join("sub/loop")).expect("symlink");
        symlink(root, root.join("sub/loop2")).expect("symlink");
        symlink(root.join("sub"), root.join("a-link")).expect("symlink");
        symlink(root.join("sub"), root.join("b-link")).expect("symlink");
        symlink(root.join("z.txt"), root.join("y.txt")).expect("symlink");
        // Links that cannot be followed: a loop of links, a link to nothing.
        symlink(root.join("loop2"), root.join("loop1")).expect("symlink");
        symlink(root.join("loop1"), root.join("loop2")).expect("symlink");
        symlink(root.join("gone"), root.join("sub/to-nothing")).expect("symlink");
        let mut unfollowed = Vec::new();
        let paths = [root.to_path_buf(), root.join("z.txt")];
        let tests = discover_noting(&paths, &mut unfollowed).expect("found");
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a-link/t", "y"]);
        // Each told, the loops back to a folder above (nothing left out) not.
        let told: Vec<String> = unfollowed.iter().map(|u| u.warning("left out")).collect();
        let at = |name: &str| {
            format!("warning: the suite's '{}' cannot be followed (", root.join(name).display())
        };
        assert_eq!(told.len(), 3, "{told:?}");
        for (warning, name) in told.iter().zip(["a-link/to-nothing", "loop1", "loop2"]) {
            assert!(
                warning.starts_with(&at(name)) && warning.ends_with("): left out"),
                "{warning}"
            );
        }
    }

    #[test]
    fn names_that_collide_are_told_apart_by_their_folders() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        for f in ["A/a.txt", "B/a.txt", "B/b.txt", "x/C/c.txt", "y/C/c.txt", "z/a.txt"] {
            let file = root.join(f);
            fs::create_dir_all(file.parent().expect("folder")).expect("mkdir");
            fs::write(file, "undo\n").expect("write");
        }
        let names = |paths: &[&str]| -> Vec<String> {
            let paths: Vec<PathBuf> = paths.iter().map(|p| root.join(p)).collect();
            discover(&paths).expect("found").into_iter().map(|t| t.name).collect()
        };
        assert_eq!(names(&["A", "B"]), ["A/a", "B/a", "b"], "only colliding names change");
        assert_eq!(names(&["x/C", "y/C"]), ["x/C/c", "y/C/c"], "as many folders as it takes");
        assert_eq!(names(&["A/a.txt", "B/a.txt"]), ["A/a", "B/a"], "traces named as files");
        assert_eq!(names(&["A", "z/a.txt"]), ["A/a", "z/a"]);
        assert_eq!(names(&["A", "A/a.txt"]), ["a"], "one file named twice is one test");
        // Folders as they are, never `..` (a name is a path below `--log`).
        assert_eq!(names(&["A", "A/../B"]), ["B/a", "b", "A/a"], "in the order of their paths");
    }

    #[test]
    fn names_sort_naturally() {
        let mut names = ["t10", "t2", "t1", "a", "t02", "t2b", "b1", "b10"];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(names, ["a", "b1", "b10", "t1", "t02", "t2", "t2b", "t10"]);
        assert_eq!(natural_path(Path::new("d/t9.txt"), Path::new("d/t10.txt")), Ordering::Less);
        assert_eq!(natural_path(Path::new("a/z"), Path::new("a-b")), Ordering::Less);
    }

    #[test]
    fn controls_and_bidi_controls_are_shown_escaped() {
        assert_eq!(escape_controls("a\nb\x1b[2J"), "a\\x0ab\\x1b[2J");
        assert_eq!(escape_controls("li\u{202e}ce 42/42"), "li\\u{202e}ce 42/42");
        assert_eq!(escape_controls("\u{2066}x\u{2069}\u{200f}"), "\\u{2066}x\\u{2069}\\u{200f}");
        assert_eq!(escape_controls("ali\u{200b}ce"), "ali\\u{200b}ce");
        assert_eq!(escape_controls("李小龙 مرحبا"), "李小龙 مرحبا", "letters of any script stay");
    }

    #[test]
    fn siblings_replace_or_extend_the_txt_ending() {
        assert_eq!(sibling(Path::new("d/x.txt"), "expected"), Path::new("d/x.expected.txt"));
        assert_eq!(sibling(Path::new("d/session"), "actual"), Path::new("d/session.actual.txt"));
    }
}
