//! How far the test threads may run ahead of the report. Results are
//! reported in sorted order, so a finished result waits in memory for every
//! test before it; behind one slow test, thousands of failing ones (each
//! with its diff and standard error) grew the runner without bound. Threads
//! start a test only while the results waiting hold less than a bound, or
//! when it is the first one not yet reported (so the report always moves
//! on); passing tests weigh little, so a slow first test still leaves the
//! others running.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// What results waiting for their turn may hold together (about 200
/// failures with full diffs); a thread may start one test past it.
pub(crate) const AHEAD_BYTES: usize = 8 << 20;

/// How often a waiting thread looks at the stop flag.
const LOOK_AT_STOP: Duration = Duration::from_millis(100);

pub(crate) struct Ahead {
    held: Mutex<Held>,
    turn: Condvar,
    bound: usize,
}

#[derive(Default)]
struct Held {
    /// Tests reported so far: test `printed` is the first one waited for.
    printed: usize,
    /// What the results received and not yet reported weigh.
    bytes: usize,
}

impl Ahead {
    pub(crate) fn new(bound: usize) -> Ahead {
        Ahead { held: Mutex::default(), turn: Condvar::new(), bound }
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits until test `k` may start; false if `stop` was set meanwhile.
    pub(crate) fn wait_turn(&self, k: usize, stop: &AtomicBool) -> bool {
        let mut held = self.lock();
        loop {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            if k <= held.printed || held.bytes < self.bound {
                return true;
            }
            held = match self.turn.wait_timeout(held, LOOK_AT_STOP) {
                Ok((held, _)) => held,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
    }

    /// A result received, weighing `bytes`, until it is reported.
    pub(crate) fn received(&self, bytes: usize) {
        self.lock().bytes += bytes;
    }

    /// A result reported: it weighed `bytes`, and `printed` tests are now.
    pub(crate) fn reported(&self, printed: usize, bytes: usize) {
        let mut held = self.lock();
        held.printed = printed;
        held.bytes = held.bytes.saturating_sub(bytes);
        drop(held);
        self.turn.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_wait_past_the_bound_except_for_the_first_test_not_reported() {
        let ahead = Ahead::new(100);
        let go = AtomicBool::new(false);
        assert!(ahead.wait_turn(5, &go), "under the bound, any test starts");
        ahead.received(100);
        assert!(ahead.wait_turn(0, &go), "the first not reported always starts");
        let stop = AtomicBool::new(true);
        assert!(!ahead.wait_turn(5, &stop), "past the bound a later one waits (here: stopped)");
        std::thread::scope(|s| {
            let waiter = s.spawn(|| ahead.wait_turn(5, &go));
            std::thread::sleep(Duration::from_millis(50));
            assert!(!waiter.is_finished(), "it waits for the report");
            ahead.reported(1, 100);
            assert!(waiter.join().expect("no panic"));
        });
    }
}
