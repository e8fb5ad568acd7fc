//! Jobs on threads, their results handed on in the jobs' order: the
//! execution under `tictac test` (a job per test) and `tictac grade` (a job
//! per student and test, so that no thread waits for a student to finish
//! while another has tests left). Each result is handed on as soon as it
//! and every job before it are done; `ahead` bounds what waits.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::ahead::{AHEAD_BYTES, Ahead};
use super::{MAX_JOBS, SuiteError, TestResult};
use crate::status::{Status, WriteError};

/// What is run: `count` jobs on at most `threads` threads, job `k` by
/// `run(k, stop)`.
pub(crate) struct Jobs<'a> {
    pub(crate) count: usize,
    pub(crate) threads: usize,
    pub(crate) run: &'a (dyn Fn(usize, &AtomicBool) -> TestResult + Sync),
}

/// Where the results go, on the calling thread.
pub(crate) trait Results {
    /// What stops the run: the suite's errors and the caller's own.
    type Error: From<SuiteError>;

    /// Job `k` ended (in any order): for progress.
    fn arrived(&mut self, _k: usize, _result: &TestResult) {}

    /// Job `k`'s result, in the jobs' order; `failed_so_far` says whether a
    /// result arrived so far failed (the status a write error ends with).
    /// An error stops the run.
    fn in_order(
        &mut self,
        k: usize,
        result: TestResult,
        failed_so_far: bool,
    ) -> Result<(), Self::Error>;
}

/// How often the closed-output check runs while results are awaited.
const LOOK_AT_OUTPUT: Duration = Duration::from_millis(100);

/// Runs the jobs, handing each result to `results` in order. `closed` is
/// asked now and then whether the reader has gone: then `stop` is raised
/// (every running program stops) and the run ends with `Closed`.
pub(crate) fn run<R: Results>(
    jobs: &Jobs,
    results: &mut R,
    closed: &(dyn Fn() -> bool + Sync),
    stop: &AtomicBool,
) -> Result<(), R::Error> {
    let next = AtomicUsize::new(0);
    let ahead = Ahead::new(AHEAD_BYTES);
    let (sender, arrivals) = mpsc::channel::<(usize, TestResult)>();
    // No job starts until every thread has: a thread that cannot be started
    // is an error before anything runs (and none has finished and freed its
    // stack, which would make the failure depend on timing).
    let gate = std::sync::RwLock::new(());
    std::thread::scope(|scope| -> Result<(), R::Error> {
        let closed_gate = gate.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut workers = Vec::new();
        let mut started = Ok(());
        for _ in 0..jobs.threads.clamp(1, MAX_JOBS).min(jobs.count) {
            let sender = sender.clone();
            let (next, gate, ahead) = (&next, &gate, &ahead);
            let worker = move || {
                drop(gate.read());
                while !stop.load(Ordering::Relaxed) {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= jobs.count || !ahead.wait_turn(k, stop) {
                        break;
                    }
                    if sender.send((k, (jobs.run)(k, stop))).is_err() {
                        break;
                    }
                }
            };
            match std::thread::Builder::new().name("test".into()).spawn_scoped(scope, worker) {
                Ok(handle) => workers.push(handle),
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    started = Err(SuiteError::Threads(e).into());
                    break;
                }
            }
        }
        drop(closed_gate);
        drop(sender);
        let handed_on = started.and_then(|()| hand_on(&arrivals, &ahead, results, closed));
        if handed_on.is_err() {
            stop.store(true, Ordering::Relaxed);
        }
        join(workers);
        handed_on
    })
}

/// Hands each result that arrives on to `results`, in the jobs' order,
/// until every worker is done (or `closed` says the reader has gone).
fn hand_on<R: Results>(
    arrivals: &mpsc::Receiver<(usize, TestResult)>,
    ahead: &Ahead,
    results: &mut R,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<(), R::Error> {
    // Results that arrive early wait for those before them.
    let mut waiting: std::collections::BTreeMap<usize, TestResult> = Default::default();
    let mut failed_so_far = false;
    let mut handed = 0;
    loop {
        let (k, result) = match arrivals.recv_timeout(LOOK_AT_OUTPUT) {
            Ok(arrival) => arrival,
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            Err(mpsc::RecvTimeoutError::Timeout) if closed() => {
                return Err(
                    SuiteError::from(WriteError::Closed(Status::failed_if(failed_so_far))).into()
                );
            }
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
        };
        failed_so_far |= result.verdict.failed();
        results.arrived(k, &result);
        ahead.received(result.weight());
        waiting.insert(k, result);
        while let Some(result) = waiting.remove(&handed) {
            let weight = result.weight();
            results.in_order(handed, result, failed_so_far)?;
            handed += 1;
            ahead.reported(handed, weight);
        }
    }
}

/// Waits for each thread to have ended, not only its work: `scope` waits
/// for the work alone, and a thread still ending when the process exits
/// can crash it (wine 8 at exit, docs/RELIABILITY.md, "Windows"). A panic
/// in one is passed on, as `scope` would.
pub(crate) fn join<T>(threads: Vec<std::thread::ScopedJoinHandle<'_, T>>) {
    let mut panicked = None;
    for thread in threads {
        if let Err(panic) = thread.join() {
            panicked.get_or_insert(panic);
        }
    }
    if let Some(panic) = panicked {
        std::panic::resume_unwind(panic);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Verdict;

    struct Count(usize);

    impl Results for Count {
        type Error = SuiteError;

        fn in_order(&mut self, _: usize, _: TestResult, _: bool) -> Result<(), SuiteError> {
            self.0 += 1;
            Ok(())
        }
    }

    /// Threads that ran a job, and those whose thread-local was dropped
    /// since (as each thread ends).
    static STARTED: AtomicUsize = AtomicUsize::new(0);
    static ENDED: AtomicUsize = AtomicUsize::new(0);

    struct EndsSlowly;

    impl EndsSlowly {
        fn new() -> EndsSlowly {
            STARTED.fetch_add(1, Ordering::SeqCst);
            EndsSlowly
        }
    }

    impl Drop for EndsSlowly {
        fn drop(&mut self) {
            std::thread::sleep(Duration::from_millis(50));
            ENDED.fetch_add(1, Ordering::SeqCst);
        }
    }

    thread_local! {
        static ENDING: EndsSlowly = EndsSlowly::new();
    }

    #[test]
    fn every_thread_has_ended_when_the_results_are_in() {
        let job = |_: usize, _: &AtomicBool| {
            ENDING.with(|_| {});
            TestResult::new(Verdict::Pass)
        };
        let jobs = Jobs { count: 6, threads: 3, run: &job };
        let mut count = Count(0);
        super::run(&jobs, &mut count, &|| false, &AtomicBool::new(false)).expect("ran");
        assert_eq!(count.0, 6);
        // Each thread ends only after its thread-locals are dropped: 50 ms
        // after its last job, which `scope` alone does not wait for.
        let started = STARTED.load(Ordering::SeqCst);
        assert!(started > 0);
        assert_eq!(ENDED.load(Ordering::SeqCst), started, "a thread still ending");
    }
}
