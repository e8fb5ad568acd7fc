//! The gradebook's files appear whole or not at all (`run::OutputFile`): a
//! student's report and JUnit file are written as the results come in, and
//! are moved into place when the student's last result is in; a signal, an
//! error or a full disk leaves no half-written file for a grade. A regrade
//! (`--update`) replaces the files it rewrites, each at once by a rename.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;
use std::rc::Rc;

use super::GradeError;
use crate::run::{OutputError, OutputFile};

/// A gradebook file being written, shared by the reporter that writes it
/// and the grader that moves it into place.
#[derive(Clone)]
pub(crate) struct Shared(Rc<RefCell<OutputFile>>, Replace);

/// Whether a file may replace one of its name (a regrade's) or must be new.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Replace {
    Never,
    Whole,
}

impl Shared {
    /// Starts the file at `path`: new, or under `Replace::Whole` to
    /// replace what is there when it is moved into place.
    pub(crate) fn create(path: &Path, replace: Replace) -> Result<Shared, GradeError> {
        let file = start(path, replace)?;
        Ok(Shared(Rc::new(RefCell::new(file)), replace))
    }

    /// Moves the whole file into place; every other handle must be gone.
    pub(crate) fn persist(self, path: &Path) -> Result<(), GradeError> {
        let file = Rc::try_unwrap(self.0).map_err(|_| {
            let busy = io::Error::other("still being written (a bug)");
            GradeError::Write(path.display().to_string(), busy)
        })?;
        persist(file.into_inner(), self.1)
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

/// Writes `bytes` as the file `path` (new, or replacing one under
/// `Replace::Whole`), whole or not at all.
pub(crate) fn write_whole(path: &Path, bytes: &[u8], replace: Replace) -> Result<(), GradeError> {
    let mut file = start(path, replace)?;
    match file.write_all(bytes) {
        Ok(()) => persist(file, replace),
        Err(e) => Err(refused(file.write_failed(e))),
    }
}

fn start(path: &Path, replace: Replace) -> Result<OutputFile, GradeError> {
    match replace {
        Replace::Never => OutputFile::create(path),
        Replace::Whole => OutputFile::replacing(path),
    }
    .map_err(refused)
}

fn persist(file: OutputFile, replace: Replace) -> Result<(), GradeError> {
    match replace {
        Replace::Never => file.persist_noclobber(),
        Replace::Whole => file.persist_replace(),
    }
    .map_err(refused)
}

fn refused(e: OutputError) -> GradeError {
    let path = match &e {
        OutputError::Exists(p) | OutputError::Create(p, _) | OutputError::Write(p, _) => p.clone(),
    };
    GradeError::Write(path, e.into_reason())
}
