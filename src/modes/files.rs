//! Opening the input, with the SPEC's messages (output files: `output_file`).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use super::{Input, RunError};

/// Read the input in blocks this large.
const INPUT_BUFFER: usize = 64 * 1024;

/// The path that names standard input.
pub const STDIN: &str = "-";

/// Opens a trace for its one read, or says why it cannot be read.
pub fn open_input(path: &Path) -> Result<Input<'static>, RunError> {
    let name = path.display().to_string();
    let mut input = if path.as_os_str() == STDIN {
        Input::new(name, Box::new(BufReader::with_capacity(INPUT_BUFFER, io::stdin())))
    } else {
        let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => RunError::Missing(name.clone()),
            _ => RunError::Unreadable(name.clone()),
        })?;
        if meta.is_dir() {
            return Err(RunError::Unreadable(name));
        }
        let file = File::open(path).map_err(|_| RunError::Unreadable(name.clone()))?;
        Input::new(name, Box::new(BufReader::with_capacity(INPUT_BUFFER, file)))
    };
    // Some files open and then fail (/proc files): find out before anything
    // runs. What this reads stays in the buffer for the run.
    match input.fill_buf() {
        Ok(_) => Ok(input),
        Err(_) => Err(RunError::Unreadable(input.into_name())),
    }
}
