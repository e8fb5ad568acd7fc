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

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::platform::files;
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
    before: Vec<PathBuf>,
    /// What was removed since the last `take`.
    swept: Option<Left>,
}

static WATCH: Mutex<Option<Watch>> = Mutex::new(None);

fn watching() -> MutexGuard<'static, Option<Watch>> {
    WATCH.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Begins watching what the programs of `user` leave: what that user owns
/// in the shared folders now is left alone.
pub(crate) fn watch(user: &RunAs) {
    let folders = files::shared_temp_folders();
    let before = owned(&folders, user.uid);
    *watching() = Some(Watch { uid: user.uid, folders, before, swept: None });
}

/// The entries at the top of `folders` that `uid` owns.
fn owned(folders: &[PathBuf], uid: u32) -> Vec<PathBuf> {
    let entries = folders.iter().filter_map(|folder| fs::read_dir(folder).ok()).flatten();
    let theirs =
        |entry: &fs::DirEntry| entry.metadata().is_ok_and(|m| files::owner(&m) == Some(uid));
    entries.flatten().filter(theirs).map(|entry| entry.path()).collect()
}

/// Removes what the watched user's programs left since the watch began,
/// keeping it for `take`; whether anything was there to remove.
pub(crate) fn sweep() -> bool {
    let mut watching = watching();
    let Some(watch) = watching.as_mut() else { return false };
    // Runs' scratch folders are in a `Holder`, not the user's.
    let found: Vec<PathBuf> = owned(&watch.folders, watch.uid)
        .into_iter()
        .filter(|path| !watch.before.contains(path))
        .collect();
    if found.is_empty() {
        return false;
    }
    let swept = watch.swept.get_or_insert_with(Left::default);
    swept.filled |= found.iter().filter_map(|path| path.parent()).any(files::is_full);
    for path in found {
        swept.bytes = swept.bytes.saturating_add(bytes(&path));
        remove(&path);
        swept.paths.push(path);
    }
    true
}

/// What was removed since the last call, swept once more first when a
/// shared folder's disk is full or nearly: what a student's programs left
/// and the next student would run out of room for, once they are done.
/// (Files that take no room the next student needs are left alone: other
/// processes of the same user may own them.)
pub(crate) fn take() -> Option<Left> {
    let full = watching().as_ref().is_some_and(|w| w.folders.iter().any(|f| files::is_full(f)));
    if full {
        sweep();
    }
    watching().as_mut().and_then(|watch| watch.swept.take())
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
