//! `--record FILE`: what a played session ran, appended to a file, so the
//! session becomes a trace (and, with `tictac test --bless`, a test).
//! Lines are written as they run; the shell and the board refuse what a
//! trace file could not replay (see `lang::writable`).

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
    /// Creates `path`, which must not exist yet, so a recording is exactly
    /// one session; records nothing without one.
    pub fn open(path: Option<&Path>) -> Result<Recorder, RunError> {
        let Some(path) = path else { return Ok(Recorder::default()) };
        let name = || path.display().to_string();
        let file = File::options().write(true).create_new(true).open(path);
        let file = file.map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => RunError::RecordingExists(name()),
            _ => RunError::OutputFailed(name(), e),
        })?;
        Ok(Recorder { file: Some(file) })
    }

    /// Whether lines are being recorded.
    pub fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// Appends lines that ran, straight to the file (no buffer), so a
    /// session that is killed keeps what ran.
    pub fn keep(&mut self, lines: &[u8]) -> io::Result<()> {
        match &mut self.file {
            Some(file) => file.write_all(lines),
            None => Ok(()),
        }
    }
}
