//! What a run earned: the one type every front end returns, below them all.
//! `app` makes it the exit status (SPEC §5), once.

use std::io;

/// What a run earned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// The trace ran (game errors such as `button already taken` included),
    /// every test passed, no divergence was found.
    Ran,
    /// A syntax or type error was printed, a test failed, a divergence was
    /// found.
    Failed,
    /// The invocation or a file was wrong, or the run could not go on.
    Error,
    /// A session asked to stop by a signal (Ctrl-C) stopped before it found
    /// anything: 130, as a shell reports a command ended by Ctrl-C.
    Interrupted,
}

impl Status {
    /// 0, 1 or 2 (SPEC §5); 130 for a session stopped by a signal.
    pub fn code(self) -> u8 {
        match self {
            Status::Ran => 0,
            Status::Failed => 1,
            Status::Error => 2,
            Status::Interrupted => 130,
        }
    }

    /// `Failed` when `failed`, else `Ran`.
    pub fn failed_if(failed: bool) -> Status {
        if failed { Status::Failed } else { Status::Ran }
    }
}

/// What stops any front end on its output, defined once: the output went
/// away (a closed pipe, `tictac ... | head -1`) after the run had earned a
/// status, or writing it failed. Every layer's error carries it as one
/// variant, `Write` (with `From<io::Error>`, so `?` on a write converts), and `app`
/// finds it there, whatever the layer: no layer answers for it.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// The reader went away after the run had earned this status: the
    /// program ends quietly with it.
    #[error("the output was closed")]
    Closed(Status),
    /// Writing the output failed (a closed pipe among others).
    #[error("error: writing the output failed: {0}")]
    Failed(#[from] io::Error),
}

impl WriteError {
    /// A write error once the run had earned `earned`: a closed pipe is
    /// the output gone with that status, anything else the write error.
    pub fn earned(e: io::Error, earned: Status) -> WriteError {
        if e.kind() == io::ErrorKind::BrokenPipe {
            WriteError::Closed(earned)
        } else {
            WriteError::Failed(e)
        }
    }

    /// The status earned before the output went away, if it did: a closed
    /// pipe met where no status was known yet leaves `Ran`.
    pub fn closed(&self) -> Option<Status> {
        match self {
            WriteError::Closed(earned) => Some(*earned),
            WriteError::Failed(e) => (e.kind() == io::ErrorKind::BrokenPipe).then_some(Status::Ran),
        }
    }
}

/// The shared error of the first layer below `error` (itself included)
/// that stopped on its output: each layer holds `WriteError` as the
/// source of its `Write` variant (a layer nesting another forwards it,
/// `#[error(transparent)]`), so the one place that asks needs no layer's
/// help.
pub fn output_error<'a>(error: &'a (dyn std::error::Error + 'static)) -> Option<&'a WriteError> {
    std::iter::successors(Some(error), |e| e.source()).find_map(|e| e.downcast_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codes_are_specs() {
        let all = [Status::Ran, Status::Failed, Status::Error, Status::Interrupted];
        assert_eq!(all.map(Status::code), [0, 1, 2, 130]);
        assert_eq!(Status::failed_if(true), Status::Failed);
        assert_eq!(Status::failed_if(false), Status::Ran);
    }

    #[test]
    fn only_a_closed_pipe_is_a_closed_output() {
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(WriteError::earned(pipe(), Status::Failed).closed(), Some(Status::Failed));
        assert_eq!(WriteError::from(pipe()).closed(), Some(Status::Ran));
        let full = || io::Error::other("disk full");
        assert_eq!(WriteError::earned(full(), Status::Failed).closed(), None);
        assert_eq!(WriteError::from(full()).closed(), None);
    }
}
