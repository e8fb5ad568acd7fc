//! The gradebook's files appear whole or not at all (`run::OutputFile`): a
//! student's report and JUnit file are written as the results come in, and
//! are moved into place when the student's last result is in; a signal, an
//! error or a full disk leaves no half-written file for a grade.

use std::cell::RefCell;
use std::io::{self, Write};
use std::path::Path;
use std::rc::Rc;

use super::GradeError;
use crate::run::{OutputError, OutputFile};

/// A gradebook file being written, shared by the reporter that writes it
/// and the grader that moves it into place.
#[derive(Clone)]
pub(crate) struct Shared(Rc<RefCell<OutputFile>>);

impl Shared {
    /// Starts the new file at `path` (one that exists is never replaced).
    pub(crate) fn create(path: &Path) -> Result<Shared, GradeError> {
        let file = OutputFile::create(path).map_err(refused)?;
        Ok(Shared(Rc::new(RefCell::new(file))))
    }

    /// Moves the whole file into place; every other handle must be gone.
    pub(crate) fn persist(self, path: &Path) -> Result<(), GradeError> {
        let file = Rc::try_unwrap(self.0).map_err(|_| {
            let busy = io::Error::other("still being written (a bug)");
            GradeError::Write(path.display().to_string(), busy)
        })?;
        file.into_inner().persist_noclobber().map_err(refused)
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

/// Writes `bytes` as the new file `path`, whole or not at all.
pub(crate) fn write_new(path: &Path, bytes: &[u8]) -> Result<(), GradeError> {
    let mut file = OutputFile::create(path).map_err(refused)?;
    match file.write_all(bytes) {
        Ok(()) => file.persist_noclobber().map_err(refused),
        Err(e) => Err(refused(file.write_failed(e))),
    }
}

fn refused(e: OutputError) -> GradeError {
    let path = match &e {
        OutputError::Exists(p) | OutputError::Create(p, _) | OutputError::Write(p, _) => p.clone(),
    };
    GradeError::Write(path, e.into_reason())
}
