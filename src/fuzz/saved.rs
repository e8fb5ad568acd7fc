//! The tests a session writes: `--out` checked before fuzzing, and each
//! divergence saved as a trace and its expected output, both or neither,
//! never over a file that is there; and the `--save-traces` file, which
//! keeps every trace run.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::FuzzError;
use crate::run::{OutputError, OutputFile};

/// `--out` must be a folder or nothing yet: found before fuzzing, not at
/// the first save.
pub(super) fn check_out(dir: &Path) -> Result<(), FuzzError> {
    let name = dir.display().to_string();
    // The folder where files will be made: DIR, or the nearest folder
    // above it that is there (DIR is made at the first save).
    let mut made_in = match fs::metadata(dir) {
        Ok(m) if m.is_dir() => dir.to_path_buf(),
        Ok(_) => return Err(FuzzError::Out(name, "is not a folder".into())),
        Err(_) if fs::symlink_metadata(dir).is_ok() => {
            return Err(FuzzError::Out(name, "is a symbolic link to nothing".into()));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => dir.to_path_buf(),
        Err(e) => return Err(FuzzError::Out(name, format!("cannot be used: {e}"))),
    };
    while !made_in.is_dir() {
        match made_in.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => made_in = parent.to_path_buf(),
            _ => made_in = PathBuf::from("."),
        }
    }
    // A file made and dropped there: a read-only or full disk is said
    // now, not at the first divergence.
    tempfile::tempfile_in(&made_in).map(drop).map_err(|e| {
        FuzzError::Out(name, format!("cannot be written in ({}: {e})", made_in.display()))
    })
}

/// The `--save-traces` file: each trace run, as its length in bytes on a
/// line, then the trace. Appended to unbuffered, a trace at a time, so
/// that a session that is killed keeps what ran; a write that fails (a
/// full disk writes short) is cut back to the traces written whole.
pub(super) struct TracesFile {
    file: fs::File,
    path: PathBuf,
    /// Its length: whole traces only.
    kept: u64,
}

impl TracesFile {
    /// Opens `path` to append without waiting (a FIFO with no reader would
    /// block the session before it starts), and only if it is a regular
    /// file.
    pub(super) fn open(path: &Path) -> Result<TracesFile, FuzzError> {
        let name = || path.display().to_string();
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        let file = crate::platform::files::open_without_waiting(&mut options, path)
            .map_err(|e| FuzzError::SaveTraces(name(), format!("cannot be opened: {e}")))?;
        match file.metadata() {
            Ok(m) if m.is_file() => {
                crate::platform::files::blocking_again(&file);
                Ok(TracesFile { file, path: path.to_path_buf(), kept: m.len() })
            }
            Ok(_) => Err(FuzzError::SaveTraces(name(), "is not a regular file".into())),
            Err(e) => Err(FuzzError::SaveTraces(name(), format!("cannot be used: {e}"))),
        }
    }

    /// Appends one trace; an error names the file.
    pub(super) fn append(&mut self, trace: &[u8]) -> Result<(), FuzzError> {
        let record = [format!("{}\n", trace.len()).into_bytes(), trace.to_vec()].concat();
        let Err(e) = self.file.write_all(&record) else {
            self.kept += record.len() as u64;
            return Ok(());
        };
        let cut = match self.file.set_len(self.kept) {
            Ok(()) => String::new(),
            Err(cut) => format!(" (and its last trace may be cut short: {cut})"),
        };
        let why = format!("could not be written: {e}{cut}");
        Err(FuzzError::SaveTraces(self.path.display().to_string(), why))
    }
}

/// Writes `DIR/NAME-N.txt` and `DIR/NAME-N.expected.txt` for the first N
/// with neither file present; never overwrites. Both are written whole or
/// not at all (each through a temporary file moved into place), and the
/// trace is removed again if its expected output cannot be put beside it.
pub(super) fn save(
    dir: &Path,
    name: &str,
    trace: &[u8],
    expected: &[u8],
) -> Result<PathBuf, String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let written = |path: &Path, bytes: &[u8]| -> Result<OutputFile, OutputError> {
        let mut file = OutputFile::create(path)?;
        match file.write_all(bytes).and_then(|()| file.flush()) {
            Ok(()) => Ok(file),
            Err(e) => Err(file.write_failed(e)),
        }
    };
    for n in 1.. {
        let path = dir.join(format!("{name}-{n}.txt"));
        let expected_path = dir.join(format!("{name}-{n}.expected.txt"));
        let taken = |p: &Path| fs::symlink_metadata(p).is_ok();
        if taken(&path) || taken(&expected_path) {
            continue;
        }
        let both = written(&path, trace).and_then(|t| Ok((t, written(&expected_path, expected)?)));
        let (trace_file, expected_file) = match both {
            Ok(files) => files,
            Err(OutputError::Exists(_)) => continue,
            Err(e) => return Err(e.to_string()),
        };
        match trace_file.persist_noclobber() {
            Ok(()) => {}
            Err(OutputError::Exists(_)) => continue,
            Err(e) => return Err(e.to_string()),
        }
        match expected_file.persist_noclobber() {
            Ok(()) => return Ok(path),
            Err(e) => {
                let _ = fs::remove_file(&path);
                if !matches!(e, OutputError::Exists(_)) {
                    return Err(e.to_string());
                }
            }
        }
    }
    Err("no free name".into())
}

/// Removes a test `save` wrote (`NAME-N.txt`), its expected file first.
pub(super) fn remove(path: &Path) -> io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let expected =
        name.strip_suffix(".txt").map(|stem| path.with_file_name(format!("{stem}.expected.txt")));
    if let Some(expected) = expected {
        fs::remove_file(expected)?;
    }
    fs::remove_file(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_test_is_both_files_or_neither() {
        let dir = tempfile::tempdir().expect("temp dir");
        let saved = save(dir.path(), "undo", b"undo\n", b"expected\n").expect("save");
        assert_eq!(saved, dir.path().join("undo-1.txt"));
        assert_eq!(fs::read(dir.path().join("undo-1.expected.txt")).expect("read"), b"expected\n");
        // A name the trace's file can take and the expected file cannot
        // (over 255 bytes): neither stays.
        let long = "k".repeat(242);
        let e = save(dir.path(), &long, b"undo\n", b"expected\n").expect_err("too long");
        assert!(e.contains(".expected.txt"), "{e}");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["undo-1.expected.txt", "undo-1.txt"]);
    }

    #[test]
    #[cfg(unix)] // symbolic links, FIFOs and modes as Unix has them
    fn out_must_be_a_folder_or_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(check_out(dir.path()).is_ok());
        assert!(check_out(&dir.path().join("new")).is_ok());
        let file = dir.path().join("file");
        fs::write(&file, "").expect("write");
        let e = check_out(&file).expect_err("a file").to_string();
        assert!(e.ends_with("is not a folder"), "{e}");
        assert!(check_out(&file.join("sub")).is_err());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).expect("symlink");
        assert!(check_out(&link).is_err());
    }
}
