//! Opening the input, with the SPEC's messages (output files: `output_file`).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::Input;

/// Read the input in blocks this large.
const INPUT_BUFFER: usize = 64 * 1024;

/// The path that names standard input.
pub(crate) const STDIN: &str = "-";

/// A file named on the command line that cannot be read, in the SPEC's
/// words (`-b IN` and the paths of `tictac test` alike).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("error: '{0}' does not exist")]
    Missing(String),
    #[error("error: '{0}' is not readable")]
    Unreadable(String),
}

/// What a file is, for messages ("is a FIFO, not a regular file").
pub(crate) fn describe(kind: std::fs::FileType) -> &'static str {
    if kind.is_file() {
        "a file"
    } else if kind.is_dir() {
        "a folder"
    } else if let Some(special) = crate::platform::files::special_kind(kind) {
        special
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Whether `path` is this process's standard input (`/dev/stdin`,
/// `/dev/fd/0`, a link to either, or the file it was opened from).
pub(crate) fn is_stdin(path: &Path) -> bool {
    crate::platform::files::is_stdin(path)
}

/// Opens a trace for its one read, or says why it cannot be read.
pub(crate) fn open_input(path: &Path) -> Result<Input<'static>, FileError> {
    let name = path.display().to_string();
    let stdin = || -> (Box<dyn Read>, bool) { (Box::new(io::stdin()), false) };
    let (reader, regular) = if path.as_os_str() == STDIN {
        stdin()
    } else {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => FileError::Missing(name.clone()),
            _ => FileError::Unreadable(name.clone()),
        })?;
        if meta.is_dir() {
            return Err(FileError::Unreadable(name));
        }
        match File::open(path) {
            Ok(file) => (Box::new(file) as Box<dyn Read>, meta.is_file()),
            // A socket cannot be opened by name: `/dev/stdin` that is one
            // is read as `-` is.
            Err(_) if is_stdin(path) => stdin(),
            Err(_) => return Err(FileError::Unreadable(name)),
        }
    };
    // Some files open and then fail (/proc files): the start is read now,
    // before anything runs (and stays in the buffer for the run), until the
    // encoding it shows is decided at any edge of the reads.
    match Input::reading(name.clone(), reader, INPUT_BUFFER) {
        Ok(input) if regular => Ok(input.never_waits()),
        Ok(input) => Ok(input),
        Err(_) => Err(FileError::Unreadable(name)),
    }
}
