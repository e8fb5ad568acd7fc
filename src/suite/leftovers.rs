//! What programs run as another user (`--user`; `tictac grade` as root)
//! leave where tictac does not clean up after them: files in the folders
//! every user may write and that outlive a process (`/tmp`, `/var/tmp`,
//! `/dev/shm`, the temporary folder). Told apart by their owner, that user,
//! among the entries that were not there when the watch began (a service's
//! own, run as the same user, stay); measured and removed (`sweep`) when a
//! run finds the system out of something, and when a student is done with
//! their disk full or nearly, so that one student's files never fill the
//! disk under the next one's runs.
//! A grader who is not root cannot tell a program's files from anyone
//! else's: nothing is watched then.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::platform::files::{self, Shortage};
use crate::platform::process::RunAs;

/// What a student's programs left, and was removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Left {
    /// The bytes its files held.
    pub(crate) bytes: u64,
    /// Each file or folder found at the top of a shared folder.
    pub(crate) paths: Vec<PathBuf>,
    /// The disk was full, or nearly, when it was found.
    pub(crate) filled: bool,
}

/// The user watched, the shared folders, and that user's entries there
/// before the watch began.
struct Watch {
    uid: u32,
    folders: Vec<PathBuf>,
    before: HashSet<PathBuf>,
    /// What was removed since the last `take`.
    swept: Option<Left>,
    /// Whether the last sweep removed anything.
    freed: bool,
}

/// The watch, and how many sweeps were done: each sweep lists every
/// shared folder (thousands of entries in a busy `/tmp`), so the runs that
/// ran out while one was under way are served by it, not each by its own.
struct Sweeper {
    watch: Mutex<Option<Watch>>,
    sweeps: AtomicU64,
}

static SWEEPER: Sweeper = Sweeper::new();

/// Begins watching what the programs of `user` leave: what that user owns
/// in the shared folders now is left alone.
pub(crate) fn watch(user: &RunAs) {
    SWEEPER.watch(files::shared_temp_folders(), user.uid);
}

/// How many sweeps were done so far: taken before a run, for
/// `sweep_after` should it run out.
pub(crate) fn sweeps() -> u64 {
    SWEEPER.sweeps.load(Ordering::Relaxed)
}

/// After a run that found the system short of something, begun when
/// `seen` sweeps were done: what the watched user's programs left since
/// the watch began, removed (kept for `take`), when files are what ran
/// short: room on a disk or in memory, not open files or processes. A
/// sweep done since the run began serves it. Whether anything was removed
/// (the run may be tried again at once).
pub(crate) fn sweep_after(seen: u64, shortage: Shortage) -> bool {
    SWEEPER.sweep_after(seen, shortage)
}

/// What was removed since the last call, swept once more first when a
/// shared folder's disk is full or nearly: what a student's programs left
/// and the next student would run out of room for, once they are done.
/// (Files that take no room the next student needs are left alone: other
/// processes of the same user may own them.)
pub(crate) fn take() -> Option<Left> {
    SWEEPER.take()
}

impl Sweeper {
    const fn new() -> Sweeper {
        Sweeper { watch: Mutex::new(None), sweeps: AtomicU64::new(0) }
    }

    fn watching(&self) -> MutexGuard<'_, Option<Watch>> {
        self.watch.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn watch(&self, folders: Vec<PathBuf>, uid: u32) {
        let before = owned(&folders, uid).collect();
        *self.watching() = Some(Watch { uid, folders, before, swept: None, freed: false });
    }

    fn sweep_after(&self, seen: u64, shortage: Shortage) -> bool {
        if shortage != Shortage::Room {
            return false;
        }
        let mut watching = self.watching();
        let Some(watch) = watching.as_mut() else { return false };
        if self.sweeps.load(Ordering::Relaxed) == seen {
            self.sweep(watch);
        }
        watch.freed
    }

    fn take(&self) -> Option<Left> {
        let mut watching = self.watching();
        let watch = watching.as_mut()?;
        if watch.folders.iter().any(|f| files::is_full(f)) {
            self.sweep(watch);
        }
        watch.swept.take()
    }

    /// One sweep, counted: under the lock, so that the count a run sees
    /// before it begins tells whether a sweep was done since.
    fn sweep(&self, watch: &mut Watch) {
        watch.freed = watch.sweep();
        self.sweeps.fetch_add(1, Ordering::Relaxed);
    }
}

impl Watch {
    /// Removes what the watched user's programs left since the watch
    /// began, keeping it for `take`; whether anything was there to remove.
    fn sweep(&mut self) -> bool {
        // Runs' scratch folders are in a `Holder`, not the user's.
        let found: Vec<PathBuf> =
            owned(&self.folders, self.uid).filter(|path| !self.before.contains(path)).collect();
        if found.is_empty() {
            return false;
        }
        let swept = self.swept.get_or_insert_with(Left::default);
        swept.filled |= found.iter().filter_map(|path| path.parent()).any(files::is_full);
        for path in found {
            swept.bytes = swept.bytes.saturating_add(bytes(&path));
            remove(&path);
            swept.paths.push(path);
        }
        true
    }
}

/// The entries at the top of `folders` that `uid` owns.
fn owned(folders: &[PathBuf], uid: u32) -> impl Iterator<Item = PathBuf> {
    let entries = folders.iter().filter_map(|folder| fs::read_dir(folder).ok()).flatten();
    let theirs =
        move |entry: &fs::DirEntry| entry.metadata().is_ok_and(|m| files::owner(&m) == Some(uid));
    entries.flatten().filter(theirs).map(|entry| entry.path())
}

/// The bytes the files of `path` and all it holds hold (links not
/// followed): what the programs wrote there.
fn bytes(path: &Path) -> u64 {
    let entries = walkdir::WalkDir::new(path).follow_links(false).into_iter().flatten();
    let files = entries.filter(|entry| entry.file_type().is_file());
    files.filter_map(|entry| entry.metadata().ok()).map(|m| m.len()).sum()
}

/// `path` gone, whatever it is (a link itself, not what it names).
fn remove(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => files::remove_tree(path),
        Ok(_) => drop(fs::remove_file(path)),
        Err(_) => {}
    }
}

impl Left {
    /// Both, as one: a student's build's and their tests'.
    pub(crate) fn and(self, other: Option<Left>) -> Left {
        let Some(other) = other else { return self };
        let mut paths = self.paths;
        paths.extend(other.paths);
        Left {
            bytes: self.bytes.saturating_add(other.bytes),
            paths,
            filled: self.filled || other.filled,
        }
    }

    /// The shared folders it was in: `/tmp`, `/tmp and /dev/shm`.
    fn folders(&self) -> String {
        let mut folders: Vec<String> = Vec::new();
        for folder in self.paths.iter().filter_map(|p| p.parent()) {
            let folder = folder.display().to_string();
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        folders.join(" and ")
    }

    /// The table's note: `filled /tmp (7.5 MiB left there, removed)`.
    pub(crate) fn note(&self) -> String {
        let (size, folders) = (size(self.bytes), self.folders());
        match self.filled {
            true => format!("filled {folders} ({size} left there, removed)"),
            false => format!("left {size} in {folders} (removed)"),
        }
    }

    /// What the student reads in their report, and acts on.
    pub(crate) fn told(&self) -> String {
        let (size, folders) = (size(self.bytes), self.folders());
        let first = self.paths.first().map(|p| p.display().to_string()).unwrap_or_default();
        let more = match self.paths.len() {
            0 | 1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        let removed = match self.filled {
            true => {
                ", which filled the disk: tictac removed it, so that the runs after it found room"
            }
            false => ", and a run then found the system out of room: tictac removed it",
        };
        format!(
            "your programs wrote {size} to {folders} and left it there ({first}{more}){removed}. \
             A program must remove the files it writes outside its folder."
        )
    }
}

/// `bytes` as people read a size: `512 bytes`, `12 KiB`, `7.5 MiB`.
fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let shown = format!("{value:.1}");
    let shown = shown.strip_suffix(".0").unwrap_or(&shown);
    format!("{shown} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1023), "1023 bytes");
        assert_eq!(size(12 << 10), "12 KiB");
        assert_eq!(size(7_864_320), "7.5 MiB");
        assert_eq!(size(3 << 30), "3 GiB");
    }

    /// A sweeper watching what this process's user leaves in a folder of
    /// its own, as `grade` watches `nobody`'s in `/tmp`.
    fn watching(dir: &Path) -> Sweeper {
        let uid = files::owner(&fs::metadata(dir).expect("stat")).expect("an owner");
        let sweeper = Sweeper::new();
        sweeper.watch(vec![dir.to_path_buf()], uid);
        sweeper
    }

    #[test]
    fn one_sweep_serves_the_runs_that_ran_out_while_it_was_under_way() {
        let dir = tempfile::tempdir().expect("temp dir");
        let kept = dir.path().join("kept");
        fs::write(&kept, "there before").expect("write");
        let sweeper = watching(dir.path());
        let seen = sweeper.sweeps.load(Ordering::Relaxed);
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        fs::write(&one, "12345").expect("write");
        // Two runs begun before any sweep ran out of room: the first to
        // come sweeps, the other waited for it and is served by it.
        assert!(sweeper.sweep_after(seen, Shortage::Room));
        assert!(!one.exists());
        fs::write(&two, "").expect("write");
        assert!(sweeper.sweep_after(seen, Shortage::Room), "freed by the sweep it waited for");
        assert!(two.exists(), "swept again for a run the last sweep served");
        // A run begun since sweeps.
        assert!(sweeper.sweep_after(sweeper.sweeps.load(Ordering::Relaxed), Shortage::Room));
        assert!(!two.exists() && kept.exists());
        let left = sweeper.take().expect("what was swept");
        assert_eq!((left.paths, left.bytes), (vec![one, two], 5));
    }

    #[test]
    fn running_out_of_open_files_or_processes_neither_sweeps_nor_waits_for_a_sweep() {
        let dir = tempfile::tempdir().expect("temp dir");
        let sweeper = watching(dir.path());
        let left = dir.path().join("left");
        fs::write(&left, "").expect("write");
        let seen = sweeper.sweeps.load(Ordering::Relaxed);
        // Another run's sweep under way.
        let under_way = sweeper.watching();
        let (tell, told) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| tell.send(sweeper.sweep_after(seen, Shortage::Handles)));
            let answer = told.recv_timeout(std::time::Duration::from_secs(10));
            drop(under_way);
            assert_eq!(answer, Ok(false), "waited for the sweep under way");
        });
        assert!(left.exists(), "swept when open files or processes ran out");
        assert!(sweeper.sweep_after(seen, Shortage::Room) && !left.exists());
    }

    #[test]
    fn what_was_left_is_said_with_its_folders_and_first_file() {
        let left = Left {
            bytes: 7_864_320,
            paths: vec!["/tmp/hog.1".into(), "/tmp/hog.2".into(), "/dev/shm/x".into()],
            filled: true,
        };
        assert_eq!(left.note(), "filled /tmp and /dev/shm (7.5 MiB left there, removed)");
        assert!(
            left.told().starts_with(
                "your programs wrote 7.5 MiB to /tmp and /dev/shm and left it there (/tmp/hog.1 \
                 and 2 more), which filled the disk"
            ),
            "{}",
            left.told()
        );
        let small = Left { bytes: 4096, paths: vec!["/tmp/log".into()], filled: false };
        assert_eq!(small.note(), "left 4 KiB in /tmp (removed)");
        let both = small.clone().and(Some(left));
        assert_eq!((both.bytes, both.paths.len(), both.filled), (7_868_416, 4, true));
    }
}
