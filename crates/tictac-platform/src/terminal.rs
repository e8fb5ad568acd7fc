//! The terminal's line modes, put back when a fatal signal ends a session
//! that had them changed: the shell (`-i`) lets its line editor set the
//! terminal raw at each prompt (no echo, no line editing, Enter sending
//! `\r`, Ctrl-C a key), and a SIGTERM or SIGHUP there used to end the
//! process with the terminal left so. On Unix the modes standard input had
//! when the session began are set again (only from the foreground: from the
//! background, setting them would stop this process); on Windows the
//! console's line input, echo and Ctrl-C processing are turned back on.

use crate::signals::{self, Registration};

/// Takes the terminal's modes as they are now, and puts them back if a
/// fatal signal arrives while the returned registration lives (then the
/// process dies of the signal). `None` when standard input is no terminal.
pub fn put_back_on_fatal_signal() -> Option<Registration> {
    let modes = system::Modes::now()?;
    Some(signals::on_fatal_signal(move || modes.put_back()))
}

/// Drops what waits to be read on the terminal (standard input), until it
/// has been quiet for `quiet`: the rest of a paste, or lines typed ahead.
/// Returns how many bytes were dropped. Nothing on Windows, whose console
/// input the line editor reads event by event.
pub fn drop_pending_input(quiet: std::time::Duration) -> usize {
    system::drop_pending_input(quiet)
}

#[cfg(unix)]
mod system {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use rustix::termios::{
        OptionalActions, QueueSelector, Termios, tcflush, tcgetattr, tcgetpgrp, tcsetattr,
    };

    pub(super) fn drop_pending_input(quiet: std::time::Duration) -> usize {
        let stdin = std::io::stdin();
        let timeout = Timespec::try_from(quiet).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 0 });
        let mut dropped = 0;
        let mut scratch = [0u8; 4096];
        loop {
            let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
            let ready = poll(&mut fds, Some(&timeout)).is_ok_and(|n| n > 0)
                && fds[0].revents().contains(PollFlags::IN);
            // Unread and quiet (in line mode, a line not yet ended is not
            // readable): dropped whole.
            if !ready {
                let _ = tcflush(&stdin, QueueSelector::IFlush);
                return dropped;
            }
            match rustix::io::read(&stdin, &mut scratch) {
                Ok(n) if n > 0 => dropped += n,
                _ => return dropped,
            }
        }
    }

    pub(super) struct Modes(Termios);

    impl Modes {
        pub(super) fn now() -> Option<Modes> {
            tcgetattr(std::io::stdin()).ok().map(Modes)
        }

        pub(super) fn put_back(&self) {
            let stdin = std::io::stdin();
            let foreground = tcgetpgrp(&stdin).is_ok_and(|g| g == rustix::process::getpgrp());
            if foreground {
                let _ = tcsetattr(&stdin, OptionalActions::Now, &self.0);
            }
        }
    }
}

#[cfg(windows)]
mod system {
    use std::io::IsTerminal;

    pub(super) struct Modes;

    pub(super) fn drop_pending_input(_: std::time::Duration) -> usize {
        0
    }

    impl Modes {
        pub(super) fn now() -> Option<Modes> {
            std::io::stdin().is_terminal().then_some(Modes)
        }

        /// Line input, echo and Ctrl-C processing on, the rest as it is.
        pub(super) fn put_back(&self) {
            let _ = crossterm::terminal::disable_raw_mode();
        }
    }
}
