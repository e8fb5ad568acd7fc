//! Dying of a signal cleanly: the seam for signal handling (a port fills
//! `on_fatal_signal`, `stop_request` and `survive_file_size_limit` with its
//! own events: `unix` with signals, `windows` with console control events). On a fatal signal
//! (`FATAL`: SIGINT, SIGTERM, SIGHUP and every other that ends a process by
//! default and may be caught) the registered cleanups run (removing
//! half-written temporary files, stopping children, giving the terminal
//! back), then the process ends by that same signal with its default
//! action, so the shell sees how it ended. A signal ignored at start
//! (`nohup`) stays ignored. Nothing is installed until the first cleanup is
//! registered, so the modes that never need one keep the default
//! dispositions. A session that stops by itself and reports (`tictac fuzz`)
//! asks instead to be told: while its `StopRequest` lives, the first SIGINT
//! or SIGTERM only raises a flag. Once a fatal signal is being handled, no
//! thread may report what it cut short nor exit first
//! (`await_death_if_dying`). On Unix, `on_suspend` lets the runner stop its
//! programs before Ctrl-Z stops it, and resume them after, and the board
//! give the terminal back and take it again; `suspend` is Ctrl-Z for a
//! program that reads it as a key.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as system;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as system;

use system::{SIGINT, SIGTERM};
/// Ctrl-Z: what stops the runs (or gives the terminal back) before this
/// process stops, and resumes them after; `suspend` stops it as Ctrl-Z
/// would (Windows has no such signal: both do nothing there).
pub use system::{on_suspend, server_stop, survive_file_size_limit, suspend};

pub type Cleanup = Box<dyn FnMut() + Send>;

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
pub struct Registration(u64);

/// Runs `action` if a fatal signal arrives while the returned registration
/// lives, then dies of that signal.
pub fn on_fatal_signal(action: impl FnMut() + Send + 'static) -> Registration {
    INSTALL.call_once(system::install);
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
pub fn register_with<T, E>(
    make: impl FnOnce() -> Result<(T, Cleanup), E>,
) -> Result<(T, Registration), E> {
    INSTALL.call_once(system::install);
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
    pub fn retire_after<T>(self, step: impl FnOnce() -> T) -> T {
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
pub struct StopRequest(());

/// Starts taking SIGINT and SIGTERM as requests to stop.
pub fn stop_request() -> StopRequest {
    INSTALL.call_once(system::install);
    STOP_SIGNAL.store(0, Ordering::SeqCst);
    STOP_ASKED.store(false, Ordering::SeqCst);
    STOP_ASKERS.fetch_add(1, Ordering::SeqCst);
    StopRequest(())
}

impl StopRequest {
    /// Raised when a signal asked to stop (for code that polls a flag).
    pub fn flag(&self) -> &'static AtomicBool {
        &STOP_ASKED
    }

    /// The signal that asked to stop, if one did.
    pub fn signal(&self) -> Option<&'static str> {
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

/// Set once a fatal signal is being handled: the process is dying.
static DYING: AtomicBool = AtomicBool::new(false);

/// If a fatal signal is being handled, waits here for the process to die of
/// it, and never returns: nothing done after the signal's cleanups began
/// (a run's result, when they stopped its program; the process's exit with
/// a status of its own) may be reported or happen. Otherwise returns at once.
pub fn await_death_if_dying() {
    while DYING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

/// Runs every cleanup, then dies of `signal`. The lock is held to the end so
/// no file is moved into place after its cleanup ran. Marked dying first,
/// before any cleanup stops a program.
fn die(signal: i32) -> ! {
    DYING.store(true, Ordering::SeqCst);
    let mut c = cleanups();
    for action in c.actions.values_mut() {
        action();
    }
    system::end_by(signal)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!asks_to_stop(system::SIGHUP));
        assert!(asks_to_stop(SIGTERM));
        assert!(request.flag().load(Ordering::SeqCst));
        assert_eq!(request.signal(), Some("SIGTERM"));
        assert!(!asks_to_stop(SIGINT), "a second one ends the process");
        drop(request);
        assert!(!asks_to_stop(SIGINT));
    }
}
