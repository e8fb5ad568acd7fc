//! Dying of a signal cleanly: the seam for signal handling (a port fills
//! `on_fatal_signal`, `stop_request` and `survive_file_size_limit` with its
//! own events, such as Windows' console control events). On a fatal signal
//! (`FATAL`: SIGINT, SIGTERM, SIGHUP and every other that ends a process by
//! default and may be caught) the registered cleanups run (removing
//! half-written temporary files, stopping children, giving the terminal
//! back), then the process ends by that same signal with its default
//! action, so the shell sees how it ended. A signal ignored at start
//! (`nohup`) stays ignored. Nothing is installed until the first cleanup is
//! registered, so the modes that never need one keep the default
//! dispositions. A session that stops by itself and reports (`tictac fuzz`)
//! asks instead to be told: while its `StopRequest` lives, the first SIGINT
//! or SIGTERM only raises a flag.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};

use signal_hook::consts::signal::*;
use signal_hook::iterator::Signals;

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
pub(crate) fn survive_file_size_limit() {
    if !is_set(ignored_at_start(), SIGXFSZ) {
        let _ = signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)));
    }
}

pub(crate) type Cleanup = Box<dyn FnMut() + Send>;

struct Cleanups {
    next: u64,
    actions: BTreeMap<u64, Cleanup>,
}

static CLEANUPS: Mutex<Cleanups> = Mutex::new(Cleanups { next: 0, actions: BTreeMap::new() });
static INSTALL: Once = Once::new();

fn cleanups() -> MutexGuard<'static, Cleanups> {
    // A cleanup that panicked must not stop the others from running.
    CLEANUPS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A cleanup waiting for a fatal signal; dropping it withdraws it.
#[must_use = "the cleanup is withdrawn when this is dropped"]
pub(crate) struct Registration(u64);

/// Runs `action` if a fatal signal arrives while the returned registration
/// lives, then dies of that signal.
pub(crate) fn on_fatal_signal(action: impl FnMut() + Send + 'static) -> Registration {
    INSTALL.call_once(install);
    let mut c = cleanups();
    let id = c.next;
    c.next += 1;
    c.actions.insert(id, Box::new(action));
    Registration(id)
}

/// Runs `make`, then registers the cleanup it returns, as one step: a fatal
/// signal arriving meanwhile is handled after both, so whatever `make`
/// created is always cleaned up (never left behind by a signal that came
/// between its creation and its registration).
pub(crate) fn register_with<T, E>(
    make: impl FnOnce() -> Result<(T, Cleanup), E>,
) -> Result<(T, Registration), E> {
    INSTALL.call_once(install);
    let mut c = cleanups();
    let (made, action) = make()?;
    let id = c.next;
    c.next += 1;
    c.actions.insert(id, action);
    Ok((made, Registration(id)))
}

impl Registration {
    /// Runs `step` and withdraws the cleanup as one: a signal arriving
    /// meanwhile is handled after both, so it never finds the step half done
    /// (a file moved into place, then removed by its cleanup).
    pub(crate) fn retire_after<T>(self, step: impl FnOnce() -> T) -> T {
        let mut c = cleanups();
        let result = step();
        c.actions.remove(&self.0);
        result
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        cleanups().actions.remove(&self.0);
    }
}

/// How many `StopRequest`s live; the signal that asked to stop (0 none yet).
static STOP_ASKERS: AtomicUsize = AtomicUsize::new(0);
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);
static STOP_ASKED: AtomicBool = AtomicBool::new(false);

/// While it lives, the first SIGINT or SIGTERM asks to stop instead of
/// ending the process: the holder stops on its own and says what it had
/// done. A second one ends the process as usual (cleanups, then the signal).
#[must_use = "signals end the process again once this is dropped"]
pub(crate) struct StopRequest(());

/// Starts taking SIGINT and SIGTERM as requests to stop.
pub(crate) fn stop_request() -> StopRequest {
    INSTALL.call_once(install);
    STOP_SIGNAL.store(0, Ordering::SeqCst);
    STOP_ASKED.store(false, Ordering::SeqCst);
    STOP_ASKERS.fetch_add(1, Ordering::SeqCst);
    StopRequest(())
}

impl StopRequest {
    /// Raised when a signal asked to stop (for code that polls a flag).
    pub(crate) fn flag(&self) -> &'static AtomicBool {
        &STOP_ASKED
    }

    /// The signal that asked to stop, if one did.
    pub(crate) fn signal(&self) -> Option<&'static str> {
        match STOP_SIGNAL.load(Ordering::SeqCst) {
            SIGINT => Some("SIGINT"),
            SIGTERM => Some("SIGTERM"),
            _ => None,
        }
    }
}

impl Drop for StopRequest {
    fn drop(&mut self) {
        STOP_ASKERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether `signal` is taken as a request to stop: the first SIGINT or
/// SIGTERM while a `StopRequest` lives.
fn asks_to_stop(signal: i32) -> bool {
    let taken = (signal == SIGINT || signal == SIGTERM)
        && STOP_ASKERS.load(Ordering::SeqCst) > 0
        && STOP_SIGNAL.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst).is_ok();
    if taken {
        STOP_ASKED.store(true, Ordering::SeqCst);
    }
    taken
}

/// Handles the fatal signals that are not ignored, on a thread of their own
/// (not in a signal handler, so a cleanup may do anything).
fn install() {
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

/// Runs every cleanup, then dies of `signal`. The lock is held to the end so
/// no file is moved into place after its cleanup ran.
fn die(signal: i32) -> ! {
    let mut c = cleanups();
    for action in c.actions.values_mut() {
        action();
    }
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

    #[test]
    fn a_withdrawn_cleanup_is_gone() {
        let registered = |id| cleanups().actions.contains_key(&id);
        let kept = on_fatal_signal(|| {});
        let retired = on_fatal_signal(|| {});
        let (kept_id, retired_id) = (kept.0, retired.0);
        assert!(registered(kept_id) && registered(retired_id));
        assert_eq!(retired.retire_after(|| 7), 7);
        assert!(!registered(retired_id));
        drop(kept);
        assert!(!registered(kept_id));
    }

    #[test]
    fn only_the_first_interrupt_while_asked_is_a_request_to_stop() {
        assert!(!asks_to_stop(SIGINT), "no request: the signal ends the process");
        let request = stop_request();
        assert!(!request.flag().load(Ordering::SeqCst));
        assert_eq!(request.signal(), None);
        assert!(!asks_to_stop(SIGHUP));
        assert!(asks_to_stop(SIGTERM));
        assert!(request.flag().load(Ordering::SeqCst));
        assert_eq!(request.signal(), Some("SIGTERM"));
        assert!(!asks_to_stop(SIGINT), "a second one ends the process");
        drop(request);
        assert!(!asks_to_stop(SIGINT));
    }
}
