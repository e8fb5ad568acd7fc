//! The file system and the standard streams where systems differ: opening
//! a file that may be a FIFO without waiting, what a file's kind is called,
//! a file's identity, its permission bits, writing at an offset, and the
//! standard output pipe. The rest of the program is the same everywhere.

use std::fs::{self, File, FileType, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// What the system ran out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortage {
    /// Disk space, a disk quota or memory: what files take.
    Room,
    /// Open files or processes.
    Handles,
}

/// Whether the system ran out of something (files, disk, memory,
/// processes), not what was asked for being wrong.
pub fn is_exhaustion(e: &io::Error) -> bool {
    shortage(e).is_some()
}

#[cfg(unix)]
mod system {
    use super::*;
    use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};

    /// The identity of the file at `path` (device and inode).
    pub type FileId = (u64, u64);

    pub fn id(path: &Path) -> Option<FileId> {
        fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }

    pub fn open_without_waiting(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
        // O_NONBLOCK: opening a FIFO never waits for the other side.
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)
    }

    pub fn blocking_again(file: &File) {
        let _ = rustix::io::ioctl_fionbio(file, false);
    }

    /// A read-only file is removed with its folder here.
    pub fn make_removable(_path: &Path) {}

    /// A symbolic link at `at` to `target`.
    pub fn symlink(target: &Path, at: &Path) -> io::Result<()> {
        std::os::unix::fs::symlink(target, at)
    }

    /// A folder a program locked (`chmod 000`) is its owner's to open again.
    pub(super) fn open_up(path: &Path) {
        let _ = make_private(path);
    }

    /// A folder its owner's alone (mode 700).
    pub fn make_private(path: &Path) -> io::Result<()> {
        fs::set_permissions(path, fs::Permissions::from_mode(0o700))
    }

    /// Whether the file has an execute permission bit (for anyone).
    pub fn has_execute_bit(path: &Path) -> bool {
        fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
    }

    /// A folder its owner's, that others pass through to what is given to
    /// them inside, and list nothing of (mode 711).
    pub fn make_passable(path: &Path) -> io::Result<()> {
        fs::set_permissions(path, fs::Permissions::from_mode(0o711))
    }

    /// What the system ran out of, if that is why `e` happened (not what
    /// was asked for being wrong).
    pub fn shortage(e: &io::Error) -> Option<Shortage> {
        use rustix::io::Errno;
        let code = Errno::from_raw_os_error(e.raw_os_error()?);
        match code {
            Errno::NOSPC | Errno::DQUOT | Errno::NOMEM => Some(Shortage::Room),
            Errno::MFILE | Errno::NFILE | Errno::AGAIN => Some(Shortage::Handles),
            _ => None,
        }
    }

    pub fn is_loop(e: &io::Error) -> bool {
        e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
    }

    /// The user who owns the file `metadata` describes.
    pub fn owner(metadata: &Metadata) -> Option<u32> {
        Some(metadata.uid())
    }

    /// The folders every user may write in and files outlive a process:
    /// the temporary folder (TMPDIR), `/tmp`, `/var/tmp`, `/dev/shm`.
    pub fn shared_temp_folders() -> Vec<std::path::PathBuf> {
        let named = [std::env::temp_dir(), "/tmp".into(), "/var/tmp".into(), "/dev/shm".into()];
        let mut folders: Vec<std::path::PathBuf> = Vec::new();
        for folder in named.iter().filter_map(|f| fs::canonicalize(f).ok()) {
            if !folders.contains(&folder) {
                folders.push(folder);
            }
        }
        folders
    }

    pub fn special_kind(kind: FileType) -> Option<&'static str> {
        if kind.is_fifo() {
            Some("a FIFO")
        } else if kind.is_char_device() || kind.is_block_device() {
            Some("a device")
        } else if kind.is_socket() {
            Some("a socket")
        } else {
            None
        }
    }

    pub fn permissions_for(existing: Option<&Metadata>) -> Option<fs::Permissions> {
        let mode = existing.map_or(0o644, |m| m.permissions().mode() & 0o7777);
        Some(fs::Permissions::from_mode(mode))
    }

    pub fn write_at_start(file: &File, bytes: &[u8]) -> io::Result<()> {
        file.write_all_at(bytes, 0)
    }

    pub fn is_stdin(path: &Path) -> bool {
        let same = |a: &rustix::fs::Stat, b: &rustix::fs::Stat| {
            (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        };
        match (rustix::fs::stat(path), rustix::fs::fstat(io::stdin())) {
            (Ok(named), Ok(stdin)) => same(&named, &stdin),
            _ => false,
        }
    }

    pub fn widen_stdout_pipe() {
        #[cfg(target_os = "linux")]
        {
            let _ = rustix::pipe::fcntl_setpipe_size(io::stdout(), 1 << 20);
        }
    }

    pub fn stdout_closed() -> bool {
        use rustix::event::{PollFd, PollFlags, Timespec};
        let stdout = io::stdout();
        let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
        let now = Timespec { tv_sec: 0, tv_nsec: 0 };
        rustix::event::poll(&mut fds, Some(&now)).is_ok()
            && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
    }
}

#[cfg(windows)]
mod system {
    use super::*;
    use std::os::windows::fs::FileExt;

    /// ERROR_CANT_RESOLVE_FILENAME: a chain of symbolic links that loops.
    const CANT_RESOLVE_FILENAME: i32 = 1921;

    /// The identity of the file at `path`: its full name, links resolved
    /// (std gives no stable file index on Windows).
    pub type FileId = std::path::PathBuf;

    pub fn id(path: &Path) -> Option<FileId> {
        fs::canonicalize(path).ok()
    }

    /// Windows has no FIFOs in the file system: a plain open.
    pub fn open_without_waiting(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
        options.open(path)
    }

    pub fn blocking_again(_file: &File) {}

    /// What the system ran out of, if that is why `e` happened (not what
    /// was asked for being wrong).
    pub fn shortage(e: &io::Error) -> Option<Shortage> {
        match e.raw_os_error()? {
            // ERROR_NOT_ENOUGH_MEMORY, _OUTOFMEMORY, _HANDLE_DISK_FULL, _DISK_FULL.
            8 | 14 | 39 | 112 => Some(Shortage::Room),
            // ERROR_TOO_MANY_OPEN_FILES, _NO_SYSTEM_RESOURCES.
            4 | 1450 => Some(Shortage::Handles),
            _ => None,
        }
    }

    /// A read-only file cannot be deleted on Windows: writable again, so
    /// that its scratch folder goes with it.
    pub fn make_removable(path: &Path) {
        if let Ok(metadata) = fs::metadata(path) {
            let mut permissions = metadata.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            permissions.set_readonly(false);
            let _ = fs::set_permissions(path, permissions);
        }
    }

    /// A symbolic link at `at` to `target` (a file's kind of link: a
    /// folder's fails to open, as a link needing privileges fails to be made).
    pub fn symlink(target: &Path, at: &Path) -> io::Result<()> {
        std::os::windows::fs::symlink_file(target, at)
    }

    pub fn is_loop(e: &io::Error) -> bool {
        e.raw_os_error() == Some(CANT_RESOLVE_FILENAME)
    }

    /// A read-only folder or file: writable again.
    pub(super) fn open_up(path: &Path) {
        make_removable(path);
    }

    /// No user ids on Windows (programs never run as another user there).
    pub fn owner(_metadata: &Metadata) -> Option<u32> {
        None
    }

    /// None: programs never run as another user on Windows, so no file
    /// there is told apart as theirs.
    pub fn shared_temp_folders() -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// Folders keep the permissions they inherit on Windows.
    pub fn make_private(_path: &Path) -> io::Result<()> {
        Ok(())
    }

    /// Windows has no execute permission: any file may be run.
    pub fn has_execute_bit(_path: &Path) -> bool {
        true
    }

    pub fn make_passable(_path: &Path) -> io::Result<()> {
        Ok(())
    }

    pub fn special_kind(_kind: FileType) -> Option<&'static str> {
        None
    }

    /// A replaced file keeps its read-only flag; a new one gets the default.
    pub fn permissions_for(existing: Option<&Metadata>) -> Option<fs::Permissions> {
        existing.map(Metadata::permissions)
    }

    pub fn write_at_start(file: &File, mut bytes: &[u8]) -> io::Result<()> {
        let mut at = 0;
        while !bytes.is_empty() {
            match file.seek_write(bytes, at) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => {
                    bytes = &bytes[n..];
                    at += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// `CONIN$` is the console's input; a named file is never taken for
    /// standard input (std cannot compare the two without `unsafe`).
    pub fn is_stdin(path: &Path) -> bool {
        path.as_os_str().eq_ignore_ascii_case("CONIN$")
    }

    /// A pipe's size is set by its maker on Windows.
    pub fn widen_stdout_pipe() {}

    /// Not known in advance on Windows: a write to a closed pipe fails,
    /// and that failure ends the run quietly.
    pub fn stdout_closed() -> bool {
        false
    }
}

/// Whether the disk that holds `path` is full, or nearly: less than 1 MiB,
/// or a hundredth of it, left for a user other than root.
pub fn is_full(path: &Path) -> bool {
    fs4::statvfs(path).is_ok_and(|s| s.available_space() < (1 << 20).max(s.total_space() / 100))
}

/// Removes a folder and all it holds, as far as its owner can: a program
/// may leave a folder there that cannot be listed or entered (`chmod 000`
/// as a user other than root), which plain removal cannot empty. Each
/// round opens up what could not be read, then tries again.
pub fn remove_tree(path: &Path) {
    const ROUNDS: usize = 8;
    for _ in 0..ROUNDS {
        match fs::remove_dir_all(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {}
            _ => return,
        }
        system::open_up(path);
        for entry in walkdir::WalkDir::new(path).follow_links(false) {
            match entry {
                Ok(entry) if entry.file_type().is_dir() => system::open_up(entry.path()),
                Ok(entry) => make_removable(entry.path()),
                Err(e) => {
                    if let Some(path) = e.path() {
                        system::open_up(path);
                    }
                }
            }
        }
    }
}

pub use system::{
    FileId, blocking_again, has_execute_bit, id, is_loop, is_stdin, make_passable, make_private,
    make_removable, open_without_waiting, owner, permissions_for, shared_temp_folders, shortage,
    special_kind, stdout_closed, symlink, widen_stdout_pipe, write_at_start,
};

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use rustix::io::Errno;

    #[test]
    fn room_that_files_take_is_told_from_open_files_and_processes() {
        let of = |errno: Errno| shortage(&io::Error::from_raw_os_error(errno.raw_os_error()));
        for errno in [Errno::NOSPC, Errno::DQUOT, Errno::NOMEM] {
            assert_eq!(of(errno), Some(Shortage::Room), "{errno:?}");
        }
        for errno in [Errno::MFILE, Errno::NFILE, Errno::AGAIN] {
            assert_eq!(of(errno), Some(Shortage::Handles), "{errno:?}");
        }
        assert_eq!(of(Errno::NOENT), None);
        assert!(!is_exhaustion(&io::Error::other("not an errno")));
    }
}
