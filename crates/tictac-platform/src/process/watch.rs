//! Whether a program changed the folder it ran in, told without listing
//! it: on Linux an inotify instance watches the folder and every folder
//! under it (links not followed) for what changes a listing (an entry made,
//! removed or renamed, a file written, truncated, closed after being
//! opened for writing, its times or permissions changed); a run that set
//! off none of these left the folder as it was. One read a run, where a
//! listing costs a `statx` per file (the fuzzer's copy of a score of
//! files: a fifth of its own time a run). Elsewhere, or when the system
//! gives no more watches, there is no watch, and the caller lists.

use std::path::Path;

/// A watch on a folder and the folders under it.
pub struct FolderWatch {
    #[cfg(target_os = "linux")]
    inotify: std::os::fd::OwnedFd,
}

impl FolderWatch {
    /// Watches `folder` and every folder under it, as they are now; none
    /// where that cannot be done (not Linux, no more inotify instances or
    /// watches, a folder that cannot be read).
    pub fn new(folder: &Path) -> Option<FolderWatch> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::inotify::{self, CreateFlags, WatchFlags};
            let inotify = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            let changes = WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::MOVED_FROM
                | WatchFlags::MOVED_TO
                | WatchFlags::MODIFY
                | WatchFlags::ATTRIB
                | WatchFlags::CLOSE_WRITE
                | WatchFlags::DELETE_SELF
                | WatchFlags::MOVE_SELF
                | WatchFlags::ONLYDIR
                | WatchFlags::DONT_FOLLOW;
            for entry in walkdir::WalkDir::new(folder).follow_links(false) {
                let entry = entry.ok()?;
                if entry.file_type().is_dir() {
                    inotify::add_watch(&inotify, entry.path(), changes).ok()?;
                }
            }
            Some(FolderWatch { inotify })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = folder;
            None
        }
    }

    /// Whether nothing that could change the folder's listing happened in
    /// it since the watch began or this was last asked (what happened is
    /// forgotten once told). A folder made under it since is not watched:
    /// after a no, make a new watch.
    pub fn untouched(&self) -> bool {
        #[cfg(target_os = "linux")]
        {
            let mut events = [0u8; 4096];
            let mut untouched = true;
            loop {
                match rustix::io::read(&self.inotify, &mut events) {
                    Ok(0) => return untouched,
                    Ok(_) => untouched = false,
                    Err(rustix::io::Errno::AGAIN) => return untouched,
                    Err(rustix::io::Errno::INTR) => {}
                    Err(_) => return false,
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn every_change_a_listing_sees_is_told_and_reading_is_not() {
        let dir = tempfile::tempdir().expect("dir");
        let folder = dir.path();
        fs::create_dir(folder.join("lib")).expect("mkdir");
        fs::write(folder.join("lib").join("ttt.py"), "print()").expect("write");
        fs::write(folder.join("notes"), "x").expect("write");
        let watch = FolderWatch::new(folder);
        if !cfg!(target_os = "linux") {
            assert!(watch.is_none());
            return;
        }
        let watch = watch.expect("a watch on Linux");
        assert!(watch.untouched());
        // Reading, listing and running what is there change nothing.
        fs::read(folder.join("lib").join("ttt.py")).expect("read");
        fs::read_dir(folder.join("lib")).expect("list").for_each(drop);
        assert!(watch.untouched());
        let changes: [&dyn Fn(&Path); 6] = [
            &|f| fs::write(f.join("lib").join("scratch.out"), "").expect("a file made deeper"),
            &|f| fs::remove_file(f.join("lib").join("scratch.out")).expect("a file removed"),
            &|f| fs::write(f.join("notes"), "y").expect("a file rewritten, same length"),
            &|f| {
                let file = fs::File::options().append(true).open(f.join("notes")).expect("open");
                file.set_modified(std::time::SystemTime::UNIX_EPOCH).expect("its time changed")
            },
            &|f| fs::rename(f.join("notes"), f.join("lib").join("notes")).expect("a file moved"),
            &|f| fs::create_dir(f.join("new")).expect("a folder made"),
        ];
        for change in changes {
            change(folder);
            assert!(!watch.untouched());
            // Told once.
            assert!(watch.untouched());
        }
    }
}
