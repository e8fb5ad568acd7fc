//! Opening the input, with the SPEC's messages (output files: `output_file`).

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use super::RunError;

/// Opens a trace for reading, or says why it cannot be read.
pub fn open_input(path: &Path) -> Result<BufReader<File>, RunError> {
    let name = || path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => RunError::Missing(name()),
        _ => RunError::Unreadable(name()),
    })?;
    if meta.is_dir() {
        return Err(RunError::Unreadable(name()));
    }
    let file = File::open(path).map_err(|_| RunError::Unreadable(name()))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    // Opening is not reading: some files open and then fail (a directory on
    // some systems, /proc files); find out before anything runs.
    reader.fill_buf().map_err(|_| RunError::Unreadable(name()))?;
    Ok(reader)
}
