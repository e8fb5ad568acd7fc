//! Signals on Unix (signal-hook): the fatal ones are waited for on a thread
//! of their own, and the process ends by the signal that came.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

pub(super) use signal_hook::consts::signal::*;
use signal_hook::iterator::Signals;

use super::{asks_to_stop, die};

/// The signals after which a run is abandoned: each whose default action
/// ends the process and that a process may catch, except SIGPIPE (Rust's
/// runtime ignores it: a write to a closed pipe fails, and that failure is
/// handled where it happens) and the faults of this process itself
/// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT: a bug, after
/// which nothing can be trusted). Linux's SIGIO, SIGPWR and SIGSTKFLT and
/// the real-time signals keep their default action (the C library reserves
/// some real-time ones, differently in glibc and musl, and the others could
/// not be raised again to end the process as they would have): like
/// SIGKILL, they leave at most the hidden temporary file.
const FATAL: [i32; 10] =
    [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGVTALRM, SIGPROF];

/// A write past the file size limit (`ulimit -f`) fails with EFBIG, and is
/// reported as a full disk's would be, instead of killing the process
/// (SIGXFSZ's default action) and leaving a hidden temporary file. Caught,
/// not ignored: a program this process starts gets the default back when
/// it is executed. Left as it is when ignored at start.
pub fn survive_file_size_limit() {
    if !is_set(ignored_at_start(), SIGXFSZ) {
        let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    }
}

/// Handles the fatal signals that are not ignored, on a thread of their own
/// (not in a signal handler, so a cleanup may do anything).
pub(super) fn install() {
    let ignored = ignored_at_start();
    let wanted: Vec<i32> = FATAL.into_iter().filter(|&s| !is_set(ignored, s)).collect();
    let (ready, registered) = std::sync::mpsc::channel();
    // Registered on the thread that waits, so that without a thread nothing
    // is registered: the default actions stay in force, and a signal leaves
    // the hidden temporary file, never a partial output.
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
        let signals = Signals::new(&wanted);
        let _ = ready.send(());
        let Ok(mut signals) = signals else { return };
        if let Some(signal) = signals.forever().find(|&s| !asks_to_stop(s)) {
            die(signal)
        }
    });
    if spawned.is_ok() {
        // Handlers in place before the first cleanup is registered.
        let _ = registered.recv();
    }
}

/// Runs `pause` before this process stops on SIGTSTP (Ctrl-Z, `kill
/// -TSTP`) and `resume` once it is continued (SIGCONT), on a thread of its
/// own. Called once by each user of it for the life of the process (the
/// process seam's set-up, the board): each call adds a thread; SIGTSTP
/// ignored at start stays ignored.
pub fn on_suspend(pause: impl Fn() + Send + 'static, resume: impl Fn() + Send + 'static) {
    if is_set(ignored_at_start(), SIGTSTP) {
        return;
    }
    let Ok(mut signals) = Signals::new([SIGTSTP]) else { return };
    let _ = std::thread::Builder::new().name("suspend".into()).spawn(move || {
        for _ in signals.forever() {
            pause();
            // Stops this process (SIGSTOP) until SIGCONT.
            let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
            resume();
        }
    });
}

/// Stops this process as Ctrl-Z typed at a shell does (SIGTSTP to itself,
/// so what `on_suspend` registered runs first): for a full-screen program
/// that reads Ctrl-Z as a key. Nothing happens where SIGTSTP was ignored
/// at start (no job control to resume it).
pub fn suspend() {
    if !is_set(ignored_at_start(), SIGTSTP) {
        let _ = signal_hook::low_level::raise(SIGTSTP);
    }
}

/// Waits for what stops `tictac serve`: Ctrl-C (SIGINT) or SIGTERM.
pub async fn server_stop() {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = tokio::signal::ctrl_c();
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = interrupt => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = interrupt.await;
        }
    }
}

/// Ends this process as `signal` would have by default.
pub(super) fn end_by(signal: i32) -> ! {
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // Only if the signal could not be raised again: the shell's convention.
    std::process::exit(128 + signal)
}

/// The signals ignored when the program started (`nohup`, `trap '' HUP`),
/// as a mask whose bit `s - 1` stands for signal `s`. Read from Linux's
/// /proc (no `unsafe` needed); elsewhere none are taken as ignored.
fn ignored_at_start() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| parse_mask(&status, "SigIgn:"))
        .unwrap_or(0)
}

fn parse_mask(status: &str, field: &str) -> Option<u64> {
    let hex = status.lines().find_map(|line| line.strip_prefix(field))?;
    u64::from_str_radix(hex.trim(), 16).ok()
}

fn is_set(mask: u64, signal: i32) -> bool {
    (1..=64).contains(&signal) && mask >> (signal - 1) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ignored_mask_is_read_from_the_status_lines() {
        let status = "Name:\ttictac\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000001\n";
        let mask = parse_mask(status, "SigIgn:").expect("a mask");
        assert!(is_set(mask, SIGHUP));
        assert!(!is_set(mask, SIGINT));
        assert!(!is_set(mask, SIGTERM));
        assert_eq!(parse_mask("Name:\tx\n", "SigIgn:"), None);
        assert!(!is_set(u64::MAX, 0));
    }
}
