//! `--record FILE`: what a played session ran, appended to a file, so the
//! session becomes a trace (and, with `tictac test --bless`, a test).

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use super::RunError;

/// Keeps the lines that ran, so a played session becomes a trace.
#[derive(Default)]
pub struct Recorder {
    file: Option<File>,
}

impl Recorder {
    /// Appends to `path` (created if need be); records nothing without one.
    pub fn open(path: Option<&Path>) -> Result<Recorder, RunError> {
        let Some(path) = path else { return Ok(Recorder::default()) };
        let file = File::options().append(true).create(true).open(path);
        let file = file.map_err(|e| RunError::OutputFailed(path.display().to_string(), e))?;
        Ok(Recorder { file: Some(file) })
    }

    pub fn keep(&mut self, lines: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.write_all(lines),
            None => Ok(()),
        }
    }
}
