//! The terminal this process was started from, kept as it was. A program
//! run here leads a session of its own, so it cannot make the terminal its
//! controlling terminal nor take the foreground; but it can still open the
//! device by name (through `/proc/PPID/fd/0`, say) and change its modes
//! (echo off). The modes seen when the first program starts are put back
//! when everything is stopped, if they changed and this process is in the
//! foreground (from the background, setting them would stop it: SIGTTOU).

use std::fs::File;
use std::sync::OnceLock;

use rustix::termios::{OptionalActions, Termios, tcgetattr, tcgetpgrp, tcsetattr};

static SAVED: OnceLock<Option<(File, Termios)>> = OnceLock::new();

/// Remembers the modes of this process's controlling terminal, if any.
pub(super) fn remember() {
    SAVED.get_or_init(|| {
        let tty = open_tty()?;
        let modes = tcgetattr(&tty).ok()?;
        Some((tty, modes))
    });
}

/// Puts back the modes `remember` saw, if they changed.
pub(super) fn put_back() {
    let Some(Some((tty, saved))) = SAVED.get() else { return };
    let Ok(now) = tcgetattr(tty) else { return };
    let foreground = tcgetpgrp(tty).is_ok_and(|group| group == rustix::process::getpgrp());
    if foreground && !same(saved, &now) {
        let _ = tcsetattr(tty, OptionalActions::Now, saved);
    }
}

fn same(a: &Termios, b: &Termios) -> bool {
    a.input_modes == b.input_modes
        && a.output_modes == b.output_modes
        && a.control_modes == b.control_modes
        && a.local_modes == b.local_modes
}

fn open_tty() -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Not blocking on a terminal that is gone; never acquired as one's own.
    let flags = (rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::NONBLOCK).bits();
    File::options().read(true).write(true).custom_flags(flags as i32).open("/dev/tty").ok()
}
