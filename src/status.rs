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
    pub(crate) fn code(self) -> u8 {
        match self {
            Status::Ran => 0,
            Status::Failed => 1,
            Status::Error => 2,
            Status::Interrupted => 130,
        }
    }

    /// `Failed` when `failed`, else `Ran`.
    pub(crate) fn failed_if(failed: bool) -> Status {
        if failed { Status::Failed } else { Status::Ran }
    }
}

/// The output went away (a closed pipe, `tictac ... | head -1`) after the
/// run had earned this status: the program ends quietly with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the output was closed")]
pub struct Closed(pub Status);

/// The status a write error leaves when it says the reader went away; a
/// front end's error answers `closed()` with it.
pub(crate) fn closed_pipe(e: &io::Error, earned: Status) -> Option<Status> {
    (e.kind() == io::ErrorKind::BrokenPipe).then_some(earned)
}

/// A write error as a front end's error: a closed pipe carries the status
/// the run had earned by then, anything else is the write error itself.
pub(crate) fn write_failed<E: From<Closed> + From<io::Error>>(e: io::Error, earned: Status) -> E {
    if e.kind() == io::ErrorKind::BrokenPipe { Closed(earned).into() } else { e.into() }
}

/// An error that stopped a front end. Every error is `Status::Error` and is
/// printed, except one that says the output went away: then nothing is
/// printed and the status is the one the run had earned.
pub(crate) trait Stopped {
    /// The status earned before the output went away, if that is why the
    /// run stopped.
    fn closed(&self) -> Option<Status>;
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
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(closed_pipe(&pipe, Status::Failed), Some(Status::Failed));
        let full = io::Error::other("disk full");
        assert_eq!(closed_pipe(&full, Status::Ran), None);
    }
}
