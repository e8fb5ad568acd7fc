//! `--record FILE`: what a played session ran, written to a new file, so the
//! session becomes a trace (and, with `tictac test --bless`, a test).
//! Lines are written as they run; the shell and the board refuse what a
//! trace file could not replay (see `lang::writable`).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{OutputError, RunError};

/// Keeps the lines that ran, so a played session becomes a trace.
#[derive(Default)]
pub struct Recorder {
    file: Option<(File, PathBuf)>,
    /// What the file holds: whole lines only.
    kept: u64,
    /// Why recording stopped, once a write failed.
    failed: Option<(io::ErrorKind, String)>,
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
            _ => OutputError::Create(name(), e).into(),
        })?;
        Ok(Recorder { file: Some((file, path.to_path_buf())), ..Recorder::default() })
    }

    /// Whether lines are being recorded.
    pub(crate) fn is_on(&self) -> bool {
        self.file.is_some()
    }

    /// Appends lines that ran, straight to the file (no buffer), so a
    /// session that is killed keeps what ran. A failure names the file, and
    /// cuts off what part of `lines` it wrote (a full disk writes short):
    /// the recording holds whole lines only, and replays. After a failure
    /// nothing more is recorded (a line missing in the middle would replay
    /// another session): every later call fails the same way.
    pub fn keep(&mut self, lines: &[u8]) -> io::Result<()> {
        let Some((file, path)) = &mut self.file else { return Ok(()) };
        if let Some((kind, why)) = &self.failed {
            return Err(io::Error::new(*kind, why.clone()));
        }
        let Err(e) = file.write_all(lines) else {
            self.kept += lines.len() as u64;
            return Ok(());
        };
        let shown = path.display();
        let why = match file.set_len(self.kept) {
            Ok(()) => format!("recording to {shown}: {e}"),
            Err(cut) => {
                format!("recording to {shown}: {e} (and its last line may be cut short: {cut})")
            }
        };
        self.failed = Some((e.kind(), why.clone()));
        Err(io::Error::new(e.kind(), why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_names_the_recording() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("session.txt");
        std::fs::write(&path, "").expect("a file");
        // Opened for reading only, so every write fails.
        let file = File::open(&path).expect("open");
        let mut recorder = Recorder { file: Some((file, path.clone())), ..Recorder::default() };
        let e = recorder.keep(b"undo\n").expect_err("read-only");
        assert!(e.to_string().starts_with(&format!("recording to {}: ", path.display())), "{e}");
        assert!(Recorder::default().keep(b"undo\n").is_ok());
    }
}
