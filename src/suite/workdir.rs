//! The folder a program under test runs in: a private copy of its folder
//! (the student's under `tictac grade`, the one `tictac test` runs in)
//! made for each run, so that runs going on at the same time never share
//! the scratch files a program writes there (`cp "$2" last_trace.txt`),
//! and no run finds what an earlier one left. A copy is whole or not made:
//! a folder too large to copy for every run, or holding what this user
//! cannot read, is run in as it is, one run at a time.
//!
//! A path leaving the folder means in the copy what it means in the
//! folder: a relative symbolic link whose target leaves it is copied as
//! the absolute path it resolves to, and so is a word of the command that
//! is a relative path leaving it (`../w/good.sh`, `sh ../ttt.py`).

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::SystemTime;

use walkdir::WalkDir;

use crate::platform::files;

/// The most entries (files, folders, links) a folder copied for each run
/// may hold.
pub(crate) const MAX_ENTRIES: usize = 2_000;
/// The most bytes its files may hold together.
pub(crate) const MAX_BYTES: u64 = 32 << 20;

/// Why a folder is run in as it is rather than copied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Uncopied {
    /// Past `MAX_ENTRIES` or `MAX_BYTES`.
    TooLarge,
    /// This path in it cannot be read by this user (an execute-only
    /// program, a folder that cannot be listed).
    Unreadable(PathBuf),
}

/// Where one run of a program happens.
pub(crate) enum Place {
    /// A whole private copy of the folder, at this path.
    Copy(PathBuf),
    /// The folder itself, held for this run alone, and why (`note`).
    Itself(MutexGuard<'static, ()>, Uncopied),
}

/// The folders found not to copy so far, and why: tried once.
static UNCOPIED: Mutex<Vec<(PathBuf, Uncopied)>> = Mutex::new(Vec::new());

/// What tictac itself writes while programs run (`--log DIR`), left out
/// of every copy and of its measure: logs growing in the folder a program
/// runs in would otherwise make it too large to copy (finding 2).
static OURS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Leaves `path`, a folder tictac writes in while programs run, out of
/// every copy from now on.
pub(crate) fn leave_out(path: &Path) {
    let path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    OURS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(path);
}

/// Where a run of a program in `folder` happens: a whole copy of it made
/// at `to` (inside `scratch`, which is never counted nor copied), or the
/// folder itself, one run at a time, when it cannot be copied whole. The
/// system running out (of disk, of files) is an error.
pub(crate) fn place(folder: &Path, to: &Path, scratch: &Path) -> io::Result<Place> {
    let known = {
        let uncopied = UNCOPIED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        uncopied.iter().find(|(f, _)| f == folder).map(|(_, why)| why.clone())
    };
    let why = match known {
        Some(why) => why,
        // Measured first: a large folder is found out without copying it.
        None if !fits(folder, scratch) => remember(folder, Uncopied::TooLarge),
        None => match copy(folder, to, scratch)? {
            Ok(()) => return Ok(Place::Copy(to.to_path_buf())),
            Err(why) => remember(folder, why),
        },
    };
    Ok(Place::Itself(in_place(), why))
}

/// Keeps in mind that `folder` is not to be copied, and why.
fn remember(folder: &Path, why: Uncopied) -> Uncopied {
    let mut uncopied = UNCOPIED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    uncopied.push((folder.to_path_buf(), why.clone()));
    why
}

/// Whether `folder` is small enough to copy for each run (`MAX_ENTRIES`,
/// `MAX_BYTES`) as it is now; `skip` is not counted. Reads at most
/// `MAX_ENTRIES` entries.
pub(crate) fn fits(folder: &Path, skip: &Path) -> bool {
    let (mut entries, mut bytes) = (0, 0);
    for entry in walk(folder, skip).flatten() {
        entries += 1;
        if entry.file_type().is_file() {
            bytes += entry.metadata().map_or(0, |m| m.len());
        }
        if entries > MAX_ENTRIES || bytes > MAX_BYTES {
            return false;
        }
    }
    true
}

/// The command's words as they run in a copy of `folder`: a word that is
/// a relative path leaving the folder is made absolute against the folder.
pub(crate) fn command_in_copy(program: &[String], folder: &Path) -> Vec<String> {
    let folder = std::path::absolute(folder).unwrap_or_else(|_| folder.to_path_buf());
    let word = |word: &String| match leaves(Path::new(""), Path::new(word)) {
        true => folder.join(word).to_str().map_or_else(|| word.clone(), str::to_owned),
        false => word.clone(),
    };
    program.iter().map(word).collect()
}

/// What a program run in a copy wrote (its standard error), with each
/// `copy` path in it named as what it copies, `folder` (`can't open file
/// '/home/ann/ttt.py'`, not a scratch folder's): the student knows the
/// folder, not the copy, and two runs that failed the same way then say
/// the same thing. `tictac test`, `grade` and `fuzz` show it so; a copy of
/// a file (the trace) is named as that file the same way.
pub(crate) fn as_in_folder(bytes: &[u8], copy: &Path, folder: &Path) -> Vec<u8> {
    let (from, to) = (copy.as_os_str().as_encoded_bytes(), folder.as_os_str().as_encoded_bytes());
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = memchr::memmem::find(rest, from).filter(|_| !from.is_empty()) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// Whether `path`, relative, read in the folder `at` inside a folder,
/// names something outside that folder (`..` past its top).
fn leaves(at: &Path, path: &Path) -> bool {
    if !path.is_relative() {
        return false;
    }
    let mut depth = at.components().count();
    for component in path.components() {
        match component {
            Component::ParentDir if depth == 0 => return true,
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    false
}

/// Copies `from` into `to`, a new folder: folders, regular files (with
/// their permission bits and modification times) and symbolic links (one
/// leaving the folder by a relative path made absolute). FIFOs, sockets
/// and devices are left out. A folder past the limits, or holding what
/// cannot be read, is not copied (the reason is the inner error); the
/// system running out (of disk, of files) is an error.
fn copy(from: &Path, to: &Path, skip: &Path) -> io::Result<Result<(), Uncopied>> {
    fs::create_dir(to)?;
    let absolute = std::path::absolute(from)?;
    let (mut entries, mut bytes) = (0, 0);
    for entry in walk(from, skip) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                let path = e.path().unwrap_or(from).to_path_buf();
                return match e.into_io_error() {
                    Some(e) if files::is_exhaustion(&e) => Err(e),
                    _ => Ok(Err(Uncopied::Unreadable(path))),
                };
            }
        };
        entries += 1;
        if entries > MAX_ENTRIES {
            return Ok(Err(Uncopied::TooLarge));
        }
        let Ok(inside) = entry.path().strip_prefix(from) else { continue };
        let at = to.join(inside);
        let kind = entry.file_type();
        let copied = if kind.is_dir() {
            fs::create_dir(&at)
        } else if kind.is_file() {
            let metadata = entry.metadata().map_err(io::Error::from);
            bytes += metadata.as_ref().map_or(0, fs::Metadata::len);
            if bytes > MAX_BYTES {
                return Ok(Err(Uncopied::TooLarge));
            }
            metadata.and_then(|metadata| copy_file(entry.path(), &at, &metadata))
        } else if kind.is_symlink() {
            fs::read_link(entry.path()).and_then(|target| {
                let here = inside.parent().unwrap_or(Path::new(""));
                match leaves(here, &target) {
                    true => files::symlink(&absolute.join(here).join(&target), &at),
                    false => files::symlink(&target, &at),
                }
            })
        } else {
            Ok(())
        };
        match copied {
            Err(e) if files::is_exhaustion(&e) => return Err(e),
            Err(_) => return Ok(Err(Uncopied::Unreadable(entry.path().to_path_buf()))),
            Ok(()) => {}
        }
    }
    Ok(Ok(()))
}

/// A copy of the regular file `from` at `to`, with its permission bits and
/// modification time (a make-on-run wrapper finds nothing to rebuild).
fn copy_file(from: &Path, to: &Path, metadata: &fs::Metadata) -> io::Result<()> {
    let mut source = fs::File::open(from)?;
    // A program's copy, open for writing: no program starts meanwhile
    // (`writing_program`). Other files are never started: copied freely.
    let _writing = files::has_execute_bit(from).then(crate::platform::process::writing_program);
    let mut copy = fs::File::create_new(to)?;
    io::copy(&mut source, &mut copy)?;
    copy.set_modified(metadata.modified()?)?;
    copy.set_permissions(metadata.permissions())
}

/// What tells whether a folder changed: its folders, files and links by
/// name, in order, and each file's length, permission bits and
/// modification time. A copy made by `place` has its folder's listing
/// (FIFOs, sockets and devices, not copied, are not listed); a scratch file
/// a program wrote there, or a file changed, added or removed in the
/// folder (a rebuild), changes it. Reads the folder's entries, not its
/// files.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Listing(Vec<Listed>);

impl Listing {
    /// When the file of it last modified was.
    pub(crate) fn newest(&self) -> Option<SystemTime> {
        self.0.iter().filter_map(|(_, _, file)| file.as_ref()?.2).max()
    }
}

/// One entry of a listing: its path inside the folder, its type, and for a
/// file its length, permission bits and modification time.
type Listed = (PathBuf, fs::FileType, Option<(u64, fs::Permissions, Option<SystemTime>)>);

/// The listing of `folder`, `skip` left out as `place` leaves it out; none
/// when an entry cannot be read.
pub(crate) fn listing(folder: &Path, skip: &Path) -> Option<Listing> {
    let mut listed = Vec::new();
    for entry in walk(folder, skip) {
        let entry = entry.ok()?;
        let kind = entry.file_type();
        if !(kind.is_dir() || kind.is_file() || kind.is_symlink()) {
            continue;
        }
        let file = match kind.is_file() {
            true => {
                let m = entry.metadata().ok()?;
                Some((m.len(), m.permissions(), m.modified().ok()))
            }
            false => None,
        };
        listed.push((entry.path().strip_prefix(folder).ok()?.to_path_buf(), kind, file));
    }
    Some(Listing(listed))
}

/// A version control's history at the folder's top, which no program
/// needs to run: left out of every copy and of its measure, so that a
/// course repository's `.git` (thousands of files) does not make its folder
/// too large to copy (finding A11). The folder itself keeps it.
pub(crate) const LEFT_OUT: &str = ".git";

/// Everything under `folder` but itself, in the order of names, links not followed, `skip`,
/// `LEFT_OUT` and what they hold left out.
fn walk<'a>(
    folder: &Path,
    skip: &'a Path,
) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> + 'a {
    let ours = OURS.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
    // A folder of tictac's own, by its real path (a folder of its name
    // only is looked up).
    let is_ours = move |entry: &walkdir::DirEntry| {
        entry.file_type().is_dir()
            && ours.iter().any(|o| {
                o.file_name() == Some(entry.file_name())
                    && fs::canonicalize(entry.path()).is_ok_and(|real| real == *o)
            })
    };
    WalkDir::new(folder)
        .follow_links(false)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |entry| {
            let history = entry.depth() == 1 && entry.file_name() == LEFT_OUT;
            entry.path() != skip && !history && !is_ours(entry)
        })
}

/// Held while a program runs in a folder not copied: one run at a time
/// there.
static IN_PLACE: Mutex<()> = Mutex::new(());

/// Waits for the folders run in as they are to be free.
fn in_place() -> MutexGuard<'static, ()> {
    IN_PLACE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl std::fmt::Display for Uncopied {
    /// Why a folder is not copied: "it holds more than ...".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Uncopied::TooLarge => write!(
                f,
                "it holds more than {MAX_ENTRIES} files or {} MiB, too many to copy for each test",
                MAX_BYTES >> 20
            ),
            Uncopied::Unreadable(path) => {
                write!(f, "{} cannot be read by this user, so it cannot be copied", path.display())
            }
        }
    }
}

/// What a failing test says when its program ran in `folder` itself.
pub(crate) fn note(folder: &Path, why: &Uncopied) -> String {
    let because = why;
    format!(
        "note: the program ran in {} itself, one test at a time: {because} (what one test \
         leaves there, the next finds)",
        folder.display()
    )
}

/// What a failing test says when its program ran in the build of
/// `folder` itself (`--build` as another user): tictac's own copy, given
/// to the program's user for each test.
pub(crate) fn note_built(folder: &Path, why: &Uncopied) -> String {
    format!(
        "note: the program ran in its build of {} itself, one test at a time: {why} (what one \
         test leaves there, the next finds)",
        folder.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_files_folders_links_and_times_and_leaves_the_original_alone() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("alice");
        fs::create_dir_all(from.join("lib")).expect("mkdir");
        fs::write(from.join("ttt.py"), "print()").expect("write");
        fs::write(from.join("lib").join("m.py"), "x = 1").expect("write");
        let then = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        fs::File::options()
            .write(true)
            .open(from.join("ttt.py"))
            .expect("open")
            .set_modified(then)
            .expect("touch");
        let _ = files::symlink(Path::new("ttt.py"), &from.join("link.py"));
        let to = dir.path().join("copy");
        assert_eq!(copy(&from, &to, &to).expect("copy"), Ok(()));
        assert_eq!(fs::read(to.join("lib").join("m.py")).expect("read"), b"x = 1");
        assert_eq!(fs::read(to.join("link.py")).expect("read through the link"), b"print()");
        let modified = fs::metadata(to.join("ttt.py")).and_then(|m| m.modified());
        assert_eq!(modified.expect("mtime"), then, "the modification time is kept");
        fs::write(to.join("ttt.py"), "changed").expect("write");
        assert_eq!(fs::read(from.join("ttt.py")).expect("read"), b"print()");
    }

    #[test]
    fn a_path_leaving_the_folder_names_in_the_copy_what_it_names_in_the_folder() {
        let dir = tempfile::tempdir().expect("dir");
        let (from, w) = (dir.path().join("f1"), dir.path().join("w"));
        fs::create_dir_all(from.join("sub")).expect("mkdir");
        fs::create_dir(&w).expect("mkdir");
        fs::write(w.join("good.sh"), "good").expect("write");
        if files::symlink(Path::new("../w/good.sh"), &from.join("prog")).is_err() {
            return; // no symbolic links here (Windows without the right)
        }
        files::symlink(Path::new("../../w/good.sh"), &from.join("sub").join("prog")).expect("link");
        files::symlink(Path::new("../prog"), &from.join("sub").join("up")).expect("link");
        let to = dir.path().join("scratch").join("copy");
        fs::create_dir(dir.path().join("scratch")).expect("mkdir");
        assert_eq!(copy(&from, &to, &to).expect("copy"), Ok(()));
        for link in ["prog", "sub/prog", "sub/up"] {
            assert_eq!(fs::read(to.join(link)).expect(link), b"good", "{link}");
        }
        // A link inside the folder stays relative: it names the copy's file.
        assert_eq!(fs::read_link(to.join("sub").join("up")).expect("link"), Path::new("../prog"));
        let words = ["sh", "../w/good.sh", "./x", "a/../../b", "-v", ".."].map(String::from);
        let absolute = std::path::absolute(&from).expect("absolute");
        let at = |word: &str| absolute.join(word).to_str().expect("utf-8").to_owned();
        assert_eq!(
            command_in_copy(&words, &from),
            ["sh", &at("../w/good.sh"), "./x", &at("a/../../b"), "-v", &at("..")]
        );
    }

    #[test]
    fn a_folder_past_the_limits_is_not_copied_and_run_in_as_it_is() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("big");
        fs::create_dir(&from).expect("mkdir");
        for k in 0..=MAX_ENTRIES {
            fs::write(from.join(k.to_string()), "").expect("write");
        }
        let to = dir.path().join("copy");
        assert!(!fits(&from, &to));
        assert_eq!(copy(&from, &to, &to).expect("copy"), Err(Uncopied::TooLarge));
        let Place::Itself(guard, why) = place(&from, &dir.path().join("c2"), &to).expect("place")
        else {
            panic!("a copy past the limits")
        };
        drop(guard);
        assert!(note(&from, &why).contains("too many to copy"), "{why}");
        // The scratch folder inside the folder is never counted nor copied.
        fs::remove_dir_all(&to).expect("rm");
        let to = from.join("scratch");
        fs::create_dir(&to).expect("mkdir");
        fs::remove_file(from.join("0")).expect("rm");
        assert_eq!(copy(&from, &to.join("copy"), &to).expect("copy"), Ok(()));
    }

    #[test]
    fn a_history_at_the_top_is_left_out_of_the_copy_and_its_measure() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("repo");
        let objects = from.join(LEFT_OUT).join("objects");
        fs::create_dir_all(&objects).expect("mkdir");
        for k in 0..=MAX_ENTRIES {
            fs::write(objects.join(k.to_string()), "").expect("write");
        }
        // Only at the top: a program's own `lib/.git` is copied.
        fs::create_dir_all(from.join("lib").join(LEFT_OUT)).expect("mkdir");
        fs::write(from.join("ttt"), "x").expect("write");
        let to = dir.path().join("copy");
        assert!(fits(&from, &to));
        assert_eq!(copy(&from, &to, &to).expect("copy"), Ok(()));
        assert!(to.join("ttt").is_file() && to.join("lib").join(LEFT_OUT).is_dir());
        assert!(!to.join(LEFT_OUT).exists(), "the history is not copied");
        assert!(objects.join("0").is_file(), "the folder keeps it");
    }
}
