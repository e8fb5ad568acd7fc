//! The terminal this process was started from, kept as it was. A program
//! run here leads a session of its own, so it cannot make the terminal its
//! controlling terminal nor take the foreground; but it can still open the
//! device by name (through `/proc/PPID/fd/0`, say: `guard` makes this
//! process non-dumpable on Linux, which closes that path to programs of the
//! same user, not to root's) and change its modes (echo off, Ctrl-C off)
//! or its window size. The modes and the size seen when the first program
//! starts are kept: while programs run, a watcher looks at the modes every
//! `WATCH_EVERY` and puts them back at once when they changed (so that
//! Ctrl-C, turned off by a program, works again within a fraction of a
//! second, and a Ctrl-C typed while it was off is found in the input and
//! acted on); when everything is stopped, modes and size are put back. Both
//! only if this process is in the foreground (from the background, setting
//! them would stop it: SIGTTOU).

use std::fs::File;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use rustix::termios::{
    LocalModes, OptionalActions, SpecialCodeIndex, Termios, Winsize, tcgetattr, tcgetpgrp,
    tcgetwinsize, tcsetattr, tcsetwinsize,
};

/// How often the modes are looked at while programs run.
const WATCH_EVERY: Duration = Duration::from_millis(100);

struct Saved {
    tty: File,
    modes: Termios,
    size: Option<Winsize>,
}

static SAVED: OnceLock<Option<Saved>> = OnceLock::new();
/// Runs going on; the watcher looks only while there is one.
static RUNS: Mutex<usize> = Mutex::new(0);
static RUNS_CHANGED: Condvar = Condvar::new();

/// Remembers the modes and window size of this process's controlling
/// terminal, if any, and starts the watcher that keeps the modes while
/// runs go on.
pub(super) fn remember() {
    SAVED.get_or_init(|| {
        let tty = open_tty()?;
        let modes = tcgetattr(&tty).ok()?;
        let size = tcgetwinsize(&tty).ok();
        let _ = std::thread::Builder::new().name("terminal".into()).spawn(watch);
        Some(Saved { tty, modes, size })
    });
}

/// A run began: the watcher looks at the modes until it ends.
pub(super) fn run_began() {
    *runs() += 1;
    RUNS_CHANGED.notify_all();
}

/// A run ended (its programs are stopped).
pub(super) fn run_ended() {
    let mut runs = runs();
    *runs = runs.saturating_sub(1);
}

fn runs() -> std::sync::MutexGuard<'static, usize> {
    RUNS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The watcher: idle while no run goes on, else puts the modes back every
/// `WATCH_EVERY` if a program changed them.
fn watch() {
    loop {
        let mut runs = runs();
        while *runs == 0 {
            runs = RUNS_CHANGED.wait(runs).unwrap_or_else(PoisonError::into_inner);
        }
        drop(runs);
        std::thread::sleep(WATCH_EVERY);
        if let Some(Some(saved)) = SAVED.get() {
            put_back_modes(saved);
        }
    }
}

/// Puts back the modes and the window size `remember` saw, if they changed.
/// (A window resized by its user while programs ran is set back too: the
/// terminal's size cannot say who changed it.)
pub(super) fn put_back() {
    let Some(Some(saved)) = SAVED.get() else { return };
    if !put_back_modes(saved) {
        return;
    }
    if let (Some(size), Ok(now)) = (saved.size, tcgetwinsize(&saved.tty))
        && !same_size(&size, &now)
    {
        let _ = tcsetwinsize(&saved.tty, size);
    }
}

/// Puts back the modes if they changed; whether this process is in the
/// foreground (and may set the terminal).
fn put_back_modes(saved: &Saved) -> bool {
    let Ok(now) = tcgetattr(&saved.tty) else { return false };
    let foreground = tcgetpgrp(&saved.tty).is_ok_and(|group| group == rustix::process::getpgrp());
    if foreground && !same(&saved.modes, &now) {
        let lost_keys = saved.modes.local_modes.contains(LocalModes::ISIG)
            && !now.local_modes.contains(LocalModes::ISIG);
        let typed = if lost_keys { take_typed(saved) } else { Vec::new() };
        let _ = tcsetattr(&saved.tty, OptionalActions::Now, &saved.modes);
        raise_typed(&saved.modes, &typed);
    }
    foreground
}

/// What was typed while a program had the signal keys off (Ctrl-C sat in
/// the input as a byte): read at once, the line not waited for. Type-ahead
/// is lost, which nothing here reads anyway.
fn take_typed(saved: &Saved) -> Vec<u8> {
    use std::io::Read;
    let mut now = saved.modes.clone();
    now.local_modes.remove(LocalModes::ICANON | LocalModes::ECHO);
    now.special_codes[SpecialCodeIndex::VMIN] = 0;
    now.special_codes[SpecialCodeIndex::VTIME] = 0;
    let mut typed = Vec::new();
    if tcsetattr(&saved.tty, OptionalActions::Now, &now).is_ok() {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = (&saved.tty).read(&mut buf) {
            typed.extend_from_slice(&buf[..n]);
            if typed.len() > 1 << 16 {
                break;
            }
        }
    }
    typed
}

/// Sends this process's group the signal of each signal key typed, as the
/// terminal would have with its signal keys on.
fn raise_typed(modes: &Termios, typed: &[u8]) {
    use rustix::process::{Signal, getpgrp, kill_process_group};
    let keys = [
        (SpecialCodeIndex::VINTR, Signal::INT),
        (SpecialCodeIndex::VQUIT, Signal::QUIT),
        (SpecialCodeIndex::VSUSP, Signal::TSTP),
    ];
    for (key, signal) in keys {
        let code = modes.special_codes[key];
        if code != 0 && typed.contains(&code) {
            let _ = kill_process_group(getpgrp(), signal);
        }
    }
}

fn same(a: &Termios, b: &Termios) -> bool {
    a.input_modes == b.input_modes
        && a.output_modes == b.output_modes
        && a.control_modes == b.control_modes
        && a.local_modes == b.local_modes
        && KEYS.iter().all(|&key| a.special_codes[key] == b.special_codes[key])
}

/// The special characters a program could undefine (Ctrl-C's among them).
const KEYS: [SpecialCodeIndex; 8] = [
    SpecialCodeIndex::VINTR,
    SpecialCodeIndex::VQUIT,
    SpecialCodeIndex::VSUSP,
    SpecialCodeIndex::VEOF,
    SpecialCodeIndex::VERASE,
    SpecialCodeIndex::VKILL,
    SpecialCodeIndex::VMIN,
    SpecialCodeIndex::VTIME,
];

fn same_size(a: &Winsize, b: &Winsize) -> bool {
    (a.ws_row, a.ws_col, a.ws_xpixel, a.ws_ypixel) == (b.ws_row, b.ws_col, b.ws_xpixel, b.ws_ypixel)
}

fn open_tty() -> Option<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // Not blocking on a terminal that is gone; never acquired as one's own.
    let flags = (rustix::fs::OFlags::NOCTTY | rustix::fs::OFlags::NONBLOCK).bits();
    File::options().read(true).write(true).custom_flags(flags as i32).open("/dev/tty").ok()
}
