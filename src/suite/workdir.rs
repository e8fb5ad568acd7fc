//! The folder a program under test runs in: a private copy of its folder
//! (the student's under `tictac grade`, the one `tictac test` runs in)
//! made for each run, so that runs going on at the same time never share
//! the scratch files a program writes there (`cp "$2" last_trace.txt`),
//! and no run finds what an earlier one left. A folder too large to copy
//! for every run is run in as it is, one run at a time.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use walkdir::WalkDir;

use crate::platform::files;

/// The most entries (files, folders, links) a folder copied for each run
/// may hold.
pub(crate) const MAX_ENTRIES: usize = 2_000;
/// The most bytes its files may hold together.
pub(crate) const MAX_BYTES: u64 = 32 << 20;

/// The folders measured so far, and whether each fits: measured once.
static MEASURED: Mutex<Vec<(PathBuf, bool)>> = Mutex::new(Vec::new());

/// Whether `folder` is small enough to copy for each run (`MAX_ENTRIES`,
/// `MAX_BYTES`); `skip` (the scratch folder, when it lies inside it) is
/// not counted. Reads at most `MAX_ENTRIES` entries, the first time.
pub(crate) fn fits(folder: &Path, skip: &Path) -> bool {
    let mut measured = MEASURED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, fits)) = measured.iter().find(|(f, _)| f == folder) {
        return fits;
    }
    let fits = measure(folder, skip);
    measured.push((folder.to_path_buf(), fits));
    fits
}

fn measure(folder: &Path, skip: &Path) -> bool {
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

/// Copies `from` into `to`, a new folder: folders, regular files (with
/// their permission bits) and symbolic links as they are. FIFOs, sockets
/// and devices are left out, and so is what cannot be read; the system
/// running out (of disk, of files) is an error. At most `MAX_ENTRIES`
/// entries and `MAX_BYTES` bytes are copied, whatever the folder grew to
/// since `fits` said yes.
pub(crate) fn copy(from: &Path, to: &Path, skip: &Path) -> io::Result<()> {
    fs::create_dir(to)?;
    let _writing = crate::platform::process::writing_programs();
    let (mut entries, mut bytes) = (0, 0);
    for entry in walk(from, skip) {
        let entry = match entry {
            Ok(entry) => entry,
            // A folder that could not be listed: the system out of files
            // stops the copy (left out, the program would seem missing).
            Err(e) => match e.io_error().and_then(io::Error::raw_os_error) {
                Some(code) if files::is_exhaustion(&io::Error::from_raw_os_error(code)) => {
                    return Err(io::Error::from_raw_os_error(code));
                }
                _ => continue,
            },
        };
        entries += 1;
        let Ok(inside) = entry.path().strip_prefix(from) else { continue };
        let at = to.join(inside);
        let kind = entry.file_type();
        let copied = if kind.is_dir() {
            fs::create_dir(&at)
        } else if kind.is_file() {
            let size = entry.metadata().map_or(0, |m| m.len());
            bytes += size;
            if bytes > MAX_BYTES {
                break;
            }
            fs::copy(entry.path(), &at).map(drop).or_else(|e| match e.kind() {
                // Kept unreadable: a test may be about the program's message.
                io::ErrorKind::PermissionDenied => unreadable_copy(&entry, &at),
                _ => Err(e),
            })
        } else if kind.is_symlink() {
            fs::read_link(entry.path()).and_then(|target| files::symlink(&target, &at))
        } else {
            Ok(())
        };
        match copied {
            Err(e) if files::is_exhaustion(&e) => return Err(e),
            _ if entries >= MAX_ENTRIES => break,
            _ => {}
        }
    }
    Ok(())
}

/// An empty file with the permission bits of the one at `entry`, which
/// could not be read.
fn unreadable_copy(entry: &walkdir::DirEntry, at: &Path) -> io::Result<()> {
    fs::File::create_new(at)?;
    fs::set_permissions(at, entry.metadata()?.permissions())
}

/// Everything under `folder` but itself, links not followed, `skip` and
/// what it holds left out.
fn walk<'a>(
    folder: &Path,
    skip: &'a Path,
) -> impl Iterator<Item = walkdir::Result<walkdir::DirEntry>> + 'a {
    WalkDir::new(folder)
        .follow_links(false)
        .min_depth(1)
        .into_iter()
        .filter_entry(move |entry| entry.path() != skip)
}

/// Held while a program runs in a folder too large to copy: one run at a
/// time there.
static IN_PLACE: Mutex<()> = Mutex::new(());

/// Waits for the folders run in as they are to be free.
pub(crate) fn in_place() -> MutexGuard<'static, ()> {
    IN_PLACE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a failing test says when its program ran in `folder` itself.
pub(crate) fn in_place_note(folder: &Path) -> String {
    format!(
        "note: the program ran in {} itself, one test at a time: it holds more than {MAX_ENTRIES} \
         files or {} MiB, too many to copy for each test (what one test leaves there, the next finds)",
        folder.display(),
        MAX_BYTES >> 20
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_holds_files_folders_and_links_and_leaves_the_original_alone() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("alice");
        fs::create_dir_all(from.join("lib")).expect("mkdir");
        fs::write(from.join("ttt.py"), "print()").expect("write");
        fs::write(from.join("lib").join("m.py"), "x = 1").expect("write");
        let _ = files::symlink(Path::new("ttt.py"), &from.join("link.py"));
        let to = dir.path().join("copy");
        assert!(measure(&from, &to));
        copy(&from, &to, &to).expect("copy");
        assert_eq!(fs::read(to.join("lib").join("m.py")).expect("read"), b"x = 1");
        assert_eq!(fs::read(to.join("link.py")).expect("read through the link"), b"print()");
        fs::write(to.join("ttt.py"), "changed").expect("write");
        assert_eq!(fs::read(from.join("ttt.py")).expect("read"), b"print()");
    }

    #[test]
    fn a_folder_past_the_limits_does_not_fit_and_its_copy_stops_at_them() {
        let dir = tempfile::tempdir().expect("dir");
        let from = dir.path().join("big");
        fs::create_dir(&from).expect("mkdir");
        for k in 0..=MAX_ENTRIES {
            fs::write(from.join(k.to_string()), "").expect("write");
        }
        let to = dir.path().join("copy");
        assert!(!measure(&from, &to));
        copy(&from, &to, &to).expect("copy");
        assert_eq!(fs::read_dir(&to).expect("copy").count(), MAX_ENTRIES);
        // The scratch folder inside the folder is never counted nor copied.
        fs::remove_dir_all(&to).expect("rm");
        assert!(measure(dir.path(), &from));
    }
}
