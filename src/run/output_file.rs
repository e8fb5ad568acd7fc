//! Output files that appear whole or not at all. The text goes to a hidden
//! temporary file beside the target (`.OUT.tictac-XXXXXX`, in the same
//! folder so the final move is a rename), which is moved into place only
//! once complete. A full disk or an error removes it; so does SIGINT,
//! SIGTERM or SIGHUP (see `signals`); even SIGKILL leaves only that hidden
//! file, never a partial OUT.
//!
//! Use: `OutputFile::create(path)`, write to it, then `persist_noclobber`
//! (a new file: one that appeared meanwhile is never replaced) or
//! `persist_replace` (rewrite a file atomically, replacing it or a symlink
//! in its place, never writing through the symlink). Dropping it unfinished
//! removes the temporary file.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::{NamedTempFile, TempPath};

use crate::platform::signals::{self, Registration};

const BUFFER: usize = 64 * 1024;

/// Why an output file was not made; each message names the file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("Error: output file {0} already exists!")]
    Exists(String),
    #[error("error: '{0}' cannot be created: {1}")]
    Create(String, io::Error),
    #[error("error: writing '{0}' failed, so it was not created: {1}")]
    Write(String, io::Error),
}

impl OutputError {
    /// The system's reason alone, for callers that name the file themselves.
    pub(crate) fn into_reason(self) -> io::Error {
        match self {
            OutputError::Exists(_) => io::ErrorKind::AlreadyExists.into(),
            OutputError::Create(_, e) | OutputError::Write(_, e) => e,
        }
    }
}

/// A file being written; it appears under its name only when persisted.
pub(crate) struct OutputFile {
    target: PathBuf,
    /// The plain file, so write errors read as the system gives them.
    writer: BufWriter<fs::File>,
    /// Removes the temporary file when dropped.
    temp: TempPath,
    /// Removes the temporary file on a fatal signal.
    cleanup: Registration,
}

impl OutputFile {
    /// Starts a new file at `target`, refusing one that already exists (a
    /// dangling symlink included) before anything is written.
    pub(crate) fn create(target: &Path) -> Result<OutputFile, OutputError> {
        if fs::symlink_metadata(target).is_ok() {
            return Err(OutputError::Exists(target.display().to_string()));
        }
        OutputFile::replacing(target)
    }

    /// Starts a file that will replace whatever is at `target` (a symlink
    /// there is replaced, never followed), or be new; see `persist_replace`.
    pub(crate) fn replacing(target: &Path) -> Result<OutputFile, OutputError> {
        let name = target.display().to_string();
        let dir = match target.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        // Created and registered as one: a signal in between cannot leave it.
        let shown = name.clone();
        let ((file, temp), cleanup) = signals::register_with(|| {
            let (file, temp) = create_temp(target, dir)?.into_parts();
            let path = temp.to_path_buf();
            let action: signals::Cleanup = Box::new(move || {
                if fs::remove_file(&path).is_ok() {
                    eprintln!("tictac: stopped by a signal; '{shown}' was not written");
                }
            });
            Ok(((file, temp), action))
        })
        .map_err(|e| OutputError::Create(name.clone(), without_temp_path(e)))?;
        Ok(OutputFile {
            target: target.to_path_buf(),
            writer: BufWriter::with_capacity(BUFFER, file),
            temp,
            cleanup,
        })
    }

    /// Moves the whole text into place, unless a file appeared at the
    /// target meanwhile: then that file is left alone and this one removed.
    pub(crate) fn persist_noclobber(self) -> Result<(), OutputError> {
        self.persist(false)
    }

    /// Moves the whole text into place, replacing what is there at once.
    /// The text is synced to disk first: the old file is gone after the
    /// rename, so a crash must not leave an empty one in its place.
    pub(crate) fn persist_replace(mut self) -> Result<(), OutputError> {
        let synced = self.writer.flush().and_then(|()| self.writer.get_ref().sync_all());
        match synced {
            Ok(()) => self.persist(true),
            Err(e) => Err(self.write_failed(e)),
        }
    }

    /// Gives the file these permission bits (an expected file keeps its
    /// own when it is replaced).
    pub(crate) fn set_permissions(&self, permissions: fs::Permissions) -> io::Result<()> {
        self.writer.get_ref().set_permissions(permissions)
    }

    /// Abandons the file after `error` while writing it; the error names it.
    pub(crate) fn write_failed(self, error: io::Error) -> OutputError {
        OutputError::Write(self.name(), error)
    }

    fn name(&self) -> String {
        self.target.display().to_string()
    }

    fn persist(self, replace: bool) -> Result<(), OutputError> {
        let name = self.name();
        let OutputFile { target, writer, temp, cleanup } = self;
        // Returning early drops `temp`, which removes the file.
        writer.into_inner().map_err(|e| OutputError::Write(name.clone(), e.into_error()))?;
        let moved = cleanup.retire_after(|| {
            if replace { temp.persist(&target) } else { temp.persist_noclobber(&target) }
        });
        moved.map_err(|e| match e.error.kind() {
            io::ErrorKind::AlreadyExists => OutputError::Exists(name),
            _ => OutputError::Create(name, e.error),
        })
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

/// The system's reason alone: tempfile adds the temporary file's path to
/// the errors it gives, and the message names the file the user gave.
fn without_temp_path(e: io::Error) -> io::Error {
    let Some(inner) = e.get_ref() else { return e };
    let text = inner.to_string();
    match text.rfind(" at path ") {
        Some(k) => io::Error::new(e.kind(), &text[..k]),
        None => e,
    }
}

/// `.NAME.tictac-XXXXXX` in `dir`: hidden, and saying whose it is. Made
/// with the permissions a plain new file gets (0666 less the umask), not 0600.
fn create_temp(target: &Path, dir: &Path) -> io::Result<NamedTempFile> {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // Keep room for the rest within a file name's 255 bytes.
    let short: String = name.chars().take(64).collect();
    let prefix = format!(".{short}.tictac-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).rand_bytes(6);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("read dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_text_appears_only_when_persisted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.txt");
        let mut file = OutputFile::create(&target).expect("create");
        file.write_all(b"whole\n").expect("write");
        file.flush().expect("flush");
        let names = entries(dir.path());
        assert_eq!(names.len(), 1);
        assert!(names[0].starts_with(".out.txt.tictac-"), "{names:?}");
        file.persist_noclobber().expect("persist");
        assert_eq!(entries(dir.path()), ["out.txt"]);
        assert_eq!(fs::read(&target).expect("read"), b"whole\n");
    }

    #[test]
    fn an_unfinished_file_leaves_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut file = OutputFile::create(&dir.path().join("out.txt")).expect("create");
        file.write_all(&[b'x'; 3 * BUFFER]).expect("write");
        drop(file);
        assert!(entries(dir.path()).is_empty());
        let file = OutputFile::create(&dir.path().join("out.txt")).expect("create");
        let error = file.write_failed(io::Error::from(io::ErrorKind::StorageFull));
        assert!(error.to_string().contains("out.txt"), "{error}");
        assert!(entries(dir.path()).is_empty());
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn an_existing_file_is_refused_and_one_that_appears_is_kept() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.txt");
        fs::write(&target, "theirs").expect("write");
        assert!(matches!(OutputFile::create(&target), Err(OutputError::Exists(_))));
        fs::remove_file(&target).expect("remove");
        let mut file = OutputFile::create(&target).expect("create");
        file.write_all(b"ours").expect("write");
        fs::write(&target, "theirs").expect("write");
        assert!(matches!(file.persist_noclobber(), Err(OutputError::Exists(_))));
        assert_eq!(fs::read(&target).expect("read"), b"theirs");
        assert_eq!(entries(dir.path()), ["out.txt"]);
        // A dangling symlink is a file there too.
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).expect("symlink");
        assert!(matches!(OutputFile::create(&link), Err(OutputError::Exists(_))));
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn replacing_swaps_a_symlink_not_what_it_points_to() {
        let dir = tempfile::tempdir().expect("temp dir");
        let victim = dir.path().join("victim.txt");
        fs::write(&victim, "keep").expect("write");
        let link = dir.path().join("expected.txt");
        std::os::unix::fs::symlink(&victim, &link).expect("symlink");
        let mut file = OutputFile::create(&dir.path().join("new.txt")).expect("create");
        file.write_all(b"new").expect("write");
        file.persist_replace().expect("persist");
        let mut file = OutputFile::create(&dir.path().join("other.txt")).expect("create");
        file.write_all(b"blessed").expect("write");
        // Moving onto `expected.txt` replaces the link itself.
        let file = OutputFile { target: link.clone(), ..file };
        file.persist_replace().expect("persist");
        assert_eq!(fs::read(&victim).expect("read"), b"keep");
        assert_eq!(fs::read(&link).expect("read"), b"blessed");
        assert!(!fs::symlink_metadata(&link).expect("stat").file_type().is_symlink());
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn a_replacement_keeps_the_mode_it_is_given() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("a.expected.txt");
        fs::write(&target, "old").expect("write");
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).expect("chmod");
        let mut file = OutputFile::replacing(&target).expect("start");
        file.write_all(b"new").expect("write");
        file.set_permissions(fs::Permissions::from_mode(0o640)).expect("chmod");
        file.persist_replace().expect("persist");
        assert_eq!(fs::read(&target).expect("read"), b"new");
        let mode = fs::metadata(&target).expect("stat").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(entries(dir.path()), ["a.expected.txt"]);
    }

    #[test]
    fn a_missing_folder_is_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("no/such/out.txt");
        let Err(OutputError::Create(name, reason)) = OutputFile::create(&target) else {
            panic!("should fail");
        };
        assert_eq!(name, target.display().to_string());
        assert_eq!(reason.to_string(), "No such file or directory (os error 2)");
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn the_file_gets_ordinary_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("out.txt");
        OutputFile::create(&target).expect("create").persist_noclobber().expect("persist");
        let plain = dir.path().join("plain.txt");
        fs::File::create(&plain).expect("create");
        let mode = |p: &Path| fs::metadata(p).expect("stat").permissions().mode();
        assert_eq!(mode(&target), mode(&plain));
    }
}
