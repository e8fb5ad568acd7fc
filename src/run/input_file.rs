//! Opening the input, with the SPEC's messages (output files: `output_file`).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
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

/// Opens a trace for its one read, or says why it cannot be read.
pub(crate) fn open_input(path: &Path) -> Result<Input<'static>, FileError> {
    let name = path.display().to_string();
    let mut input = if path.as_os_str() == STDIN {
        Input::new(name, Box::new(BufReader::with_capacity(INPUT_BUFFER, io::stdin())))
    } else {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => FileError::Missing(name.clone()),
            _ => FileError::Unreadable(name.clone()),
        })?;
        if meta.is_dir() {
            return Err(FileError::Unreadable(name));
        }
        let file = File::open(path).map_err(|_| FileError::Unreadable(name.clone()))?;
        let input = Input::new(name, Box::new(BufReader::with_capacity(INPUT_BUFFER, file)));
        if meta.is_file() { input.never_waits() } else { input }
    };
    // Some files open and then fail (/proc files): find out before anything
    // runs. What this reads stays in the buffer for the run.
    match input.fill_buf() {
        Ok(_) => Ok(input),
        Err(_) => Err(FileError::Unreadable(input.into_name())),
    }
}
