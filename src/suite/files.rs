//! Opening traces, expected files and OUT files without trusting them: a
//! FIFO, a device or a folder fails its test with a message, and is never
//! opened in a way that could block.

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use crate::platform::{files, signals};

pub(crate) use crate::run::describe;

/// A scratch folder, removed when dropped and by a fatal signal meanwhile:
/// a signal ends the process without running drops, and SIGTERM left each
/// running test's folder (a private copy of its trace) and the course
/// suite's in the temporary folder.
pub(crate) struct Scratch {
    dir: std::path::PathBuf,
    _on_signal: signals::Registration,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        files::remove_tree(&self.dir);
    }
}

/// The folder scratch folders are made in while programs run as another
/// user (`Holder`), if they are.
static HOLDER: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

fn holder() -> std::sync::MutexGuard<'static, Option<std::path::PathBuf>> {
    HOLDER.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// While programs run as another user, this process's scratch folders are
/// made in a folder of its own in the temporary folder, its owner's (mode
/// 711: that user reaches the scratch folder given to it, and lists
/// nothing there): so what that user owns at the top of the temporary
/// folder is only ever what its programs made (`leftovers`), never a run's
/// scratch folder, this tictac's or another's.
pub(crate) struct Holder {
    _folder: Scratch,
}

impl Holder {
    /// Scratch folders are made in a new holder until it is dropped.
    pub(crate) fn new() -> io::Result<Holder> {
        let made = Scratch::made(|| tempfile::Builder::new().prefix(".tictac-").tempdir())?;
        files::make_passable(made.path())?;
        *holder() = Some(made.path().to_path_buf());
        Ok(Holder { _folder: made })
    }
}

impl Drop for Holder {
    fn drop(&mut self) {
        *holder() = None;
    }
}

impl Scratch {
    /// A new scratch folder in the system's temporary folder (in the
    /// `Holder` there, while there is one).
    /// Its owner's alone (tempfile leaves it as the umask says).
    pub(crate) fn new() -> io::Result<Scratch> {
        let holder = holder().clone();
        let scratch = match holder {
            Some(holder) => Scratch::made(|| tempfile::tempdir_in(&holder))?,
            None => Scratch::made(tempfile::tempdir)?,
        };
        files::make_private(scratch.path())?;
        Ok(scratch)
    }

    /// A new hidden scratch folder `.PREFIXxxxx` in `parent` (to be renamed
    /// into place there).
    pub(crate) fn in_folder(parent: &Path, prefix: &str) -> io::Result<Scratch> {
        Scratch::made(|| tempfile::Builder::new().prefix(prefix).tempdir_in(parent))
    }

    fn made(make: impl FnOnce() -> io::Result<tempfile::TempDir>) -> io::Result<Scratch> {
        let (dir, on_signal) = signals::register_with(|| {
            // Removed by `Drop` or the cleanup, whatever a program left in it.
            let dir = make()?.keep();
            let path = dir.clone();
            let cleanup: signals::Cleanup = Box::new(move || files::remove_tree(&path));
            Ok::<_, io::Error>((dir, cleanup))
        })?;
        Ok(Scratch { dir, _on_signal: on_signal })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }
}

/// Why a file could not be read, and whether that is the system's (out of
/// open files or memory) rather than the file's.
#[derive(Debug)]
pub(crate) struct Unreadable {
    pub(crate) why: String,
    pub(crate) ran_out: Option<files::Shortage>,
}

impl From<Unreadable> for String {
    fn from(unreadable: Unreadable) -> String {
        unreadable.why
    }
}

impl From<String> for Unreadable {
    fn from(why: String) -> Unreadable {
        Unreadable { why, ran_out: None }
    }
}

/// `cannot read PATH: e`, ran out or not.
fn cannot_read(path: &Path, e: &io::Error) -> Unreadable {
    Unreadable { why: format!("cannot read {}: {e}", path.display()), ran_out: files::shortage(e) }
}

/// Opens `path` for reading if it is a regular file (after symlinks);
/// otherwise a message saying what it is.
pub(crate) fn open_regular(path: &Path) -> Result<File, String> {
    Ok(open_checked(path)?)
}

/// `open_regular`, saying whether the system ran out.
pub(crate) fn open_checked(path: &Path) -> Result<File, Unreadable> {
    let shown = path.display();
    // Opening a FIFO never waits for a writer.
    let file =
        files::open_without_waiting(OpenOptions::new().read(true), path).map_err(|e| {
            match e.kind() {
                io::ErrorKind::NotFound if is_link(path) => {
                    format!("{shown} is a broken symbolic link (what it points to does not exist)")
                        .into()
                }
                io::ErrorKind::NotFound => format!("{shown} does not exist").into(),
                _ if files::is_loop(&e) => format!("{shown} is a symbolic link that loops").into(),
                _ => cannot_read(path, &e),
            }
        })?;
    let kind = file.metadata().map_err(|e| cannot_read(path, &e))?.file_type();
    if !kind.is_file() {
        return Err(format!("{shown} is {}, not a regular file", describe(kind)).into());
    }
    // Back to blocking reads for a regular file (O_NONBLOCK is moot there).
    files::blocking_again(&file);
    Ok(file)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Reads at most `limit` bytes of a regular file; an error past it.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    Ok(read_checked(path, limit)?)
}

/// `read_bounded`, saying whether the system ran out.
pub(crate) fn read_checked(path: &Path, limit: u64) -> Result<Vec<u8>, Unreadable> {
    let file = open_checked(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).map_err(|e| cannot_read(path, &e))?;
    if bytes.len() as u64 > limit {
        return Err(format!("{} is larger than {limit} bytes", path.display()).into());
    }
    Ok(bytes)
}

/// Writes `bytes` to a new file at `path`.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create_new(path)?;
    io::Write::write_all(&mut file, bytes)
}

// Symbolic links, FIFOs and modes as Unix has them.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("f.txt");
        // mkfifo(1): rustix has no mkfifoat on macOS.
        assert!(
            std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success()
        );
        let e = open_regular(&fifo).expect_err("a FIFO");
        assert!(e.ends_with("f.txt is a FIFO, not a regular file"), "{e}");
        let e = open_regular(dir.path()).expect_err("a folder");
        assert!(e.ends_with("is a folder, not a regular file"), "{e}");
        let e = open_regular(Path::new("/dev/zero")).expect_err("a device");
        assert_eq!(e, "/dev/zero is a device, not a regular file");
        assert!(open_regular(&dir.path().join("none")).expect_err("").ends_with("does not exist"));
        std::fs::write(dir.path().join("r.txt"), "abc").expect("write");
        assert_eq!(read_bounded(&dir.path().join("r.txt"), 3).expect("read"), b"abc");
        assert!(read_bounded(&dir.path().join("r.txt"), 2).is_err());
        let (broken, l1, l2) =
            (dir.path().join("b.txt"), dir.path().join("l1"), dir.path().join("l2"));
        std::os::unix::fs::symlink("gone", &broken).expect("symlink");
        std::os::unix::fs::symlink(&l2, &l1).expect("symlink");
        std::os::unix::fs::symlink(&l1, &l2).expect("symlink");
        let e = open_regular(&broken).expect_err("broken");
        assert!(
            e.ends_with("b.txt is a broken symbolic link (what it points to does not exist)"),
            "{e}"
        );
        let e = open_regular(&l1).expect_err("a loop");
        assert!(e.ends_with("l1 is a symbolic link that loops"), "{e}");
    }
}
