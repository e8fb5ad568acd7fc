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

#[cfg(unix)]
mod system {
    use rustix::termios::{OptionalActions, Termios, tcgetattr, tcgetpgrp, tcsetattr};

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
