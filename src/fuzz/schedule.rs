//! What runs when: the coordinator's hand-out of work. A worker starts a
//! program only when told to: a trace to run (drawn here, in run order), a
//! shrinking candidate it asked to run, or a timed-out run to run again
//! alone. A run alone waits until no other program runs: no work is handed
//! out meanwhile, the runs going on end, then it alone runs, then the work
//! resumes. Once the session stops, every worker waiting for work is told
//! to stop. Nothing here is shared: the coordinator alone holds it.

use std::collections::VecDeque;

use super::expect::Expected;
use super::generate::{Settings, generate, rng_for};
use super::trace::Trace;
use crate::behaviour::Coverage;

/// A run's number, its trace and what the engine makes of it.
pub(super) type Drawn = (u64, Trace, Expected);

/// Traces drawn ahead (per worker): enough that a worker is never kept
/// waiting for one, few enough that a session stopped by `--time` drops
/// little.
const AHEAD: usize = 4;

/// The traces of a session in run order, each steered by what those drawn
/// before reach (each drawn trace is run, so with one job this is the
/// coverage of the runs before): a seed gives the same traces in the same
/// order whatever the jobs.
pub(super) struct Draws {
    seed: u64,
    settings: Settings,
    /// The runs the session makes at most, and the next one's number.
    runs: u64,
    next: u64,
    drawn: Coverage,
    ahead: VecDeque<Drawn>,
    room: usize,
}

impl Draws {
    pub(super) fn new(seed: u64, settings: Settings, runs: u64, jobs: usize) -> Draws {
        let room = AHEAD * jobs;
        let (drawn, ahead) = (Coverage::default(), VecDeque::with_capacity(room));
        Draws { seed, settings, runs, next: 0, drawn, ahead, room }
    }

    /// Draws one more trace ahead, if there is room and a run left for it;
    /// whether it did.
    pub(super) fn draw_ahead(&mut self) -> bool {
        if self.ahead.len() >= self.room || self.next >= self.runs {
            return false;
        }
        let run = self.next;
        let uncovered = Coverage::from_bits(!self.drawn.bits()).intersection(Coverage::batch());
        let (trace, expected) = generate(&mut rng_for(self.seed, run), &self.settings, uncovered);
        self.drawn = self.drawn.union(expected.coverage);
        self.ahead.push_back((run, trace, expected));
        self.next += 1;
        true
    }

    /// The next trace in run order (drawn now if none is ahead); none once
    /// the runs are spent.
    fn take(&mut self) -> Option<Drawn> {
        if self.ahead.is_empty() {
            self.draw_ahead();
        }
        self.ahead.pop_front()
    }
}

/// What a worker is told to do.
#[derive(Debug)]
pub(super) enum Grant {
    /// Run this trace.
    Run(Drawn),
    /// Run the shrinking candidate it asked to run.
    Go,
    /// Run its timed-out run again: no other program runs.
    Alone,
    /// The session is over for it.
    Stop,
}

/// What a worker is doing, as the coordinator knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for a trace.
    Idle,
    /// Running a program.
    Running,
    /// Working without a program: waiting for a verdict, or shrinking
    /// between two candidates.
    Working,
    /// Asking to run a shrinking candidate.
    Asking,
    /// Asking to run a timed-out run again, alone.
    WantsAlone,
    /// Told to stop.
    Stopped,
}

/// The hand-out of a session's work to its workers.
pub(super) struct Schedule {
    states: Vec<State>,
    /// The workers waiting to run alone, in the order they asked.
    queue: VecDeque<usize>,
    /// The worker running alone, if one is.
    alone: Option<usize>,
    stopping: bool,
    draws: Draws,
}

impl Schedule {
    pub(super) fn new(workers: usize, draws: Draws) -> Schedule {
        let states = vec![State::Idle; workers];
        Schedule { states, queue: VecDeque::new(), alone: None, stopping: false, draws }
    }

    /// A worker's run ended; it now shrinks what it found, or waits for work.
    pub(super) fn ran(&mut self, worker: usize, shrinks: bool) {
        self.states[worker] = if shrinks { State::Working } else { State::Idle };
    }

    /// A worker asks to run a shrinking candidate.
    pub(super) fn asks(&mut self, worker: usize) {
        self.states[worker] = State::Asking;
    }

    /// A worker's run timed out: it asks to run it again alone.
    pub(super) fn timed_out(&mut self, worker: usize) {
        self.states[worker] = State::WantsAlone;
        self.queue.push_back(worker);
    }

    /// A worker's run alone ended.
    pub(super) fn ran_alone(&mut self, worker: usize) {
        self.states[worker] = State::Working;
        if self.alone == Some(worker) {
            self.alone = None;
        }
    }

    /// A worker is done shrinking: it waits for work.
    pub(super) fn shrunk(&mut self, worker: usize) {
        self.states[worker] = State::Idle;
    }

    /// The session is over: nothing more is handed out.
    pub(super) fn stop(&mut self) {
        self.stopping = true;
    }

    /// Draws one more trace ahead, unless the session is over.
    pub(super) fn draw_ahead(&mut self) -> bool {
        !self.stopping && self.draws.draw_ahead()
    }

    /// What to tell the workers now: once stopping, every waiting worker
    /// stops; while a run alone waits, nothing until no program runs, then
    /// that run; otherwise each candidate asked for, and a trace to each
    /// idle worker (a stop once the runs are spent).
    pub(super) fn grants(&mut self) -> Vec<(usize, Grant)> {
        if self.stopping {
            self.queue.clear();
            return self.each(|state, _| match state {
                State::Idle | State::Asking | State::WantsAlone => Some(Grant::Stop),
                _ => None,
            });
        }
        if self.alone.is_some() {
            return Vec::new();
        }
        if let Some(&worker) = self.queue.front() {
            if self.states.contains(&State::Running) {
                return Vec::new();
            }
            self.queue.pop_front();
            self.alone = Some(worker);
            self.states[worker] = State::Running;
            return vec![(worker, Grant::Alone)];
        }
        self.each(|state, draws| match state {
            State::Asking => Some(Grant::Go),
            State::Idle => Some(draws.take().map_or(Grant::Stop, Grant::Run)),
            _ => None,
        })
    }

    /// The grant `grant` makes for each worker in its state, the state
    /// changed to what the grant starts.
    fn each(
        &mut self,
        mut grant: impl FnMut(State, &mut Draws) -> Option<Grant>,
    ) -> Vec<(usize, Grant)> {
        let mut grants = Vec::new();
        for (worker, state) in self.states.iter_mut().enumerate() {
            if let Some(g) = grant(*state, &mut self.draws) {
                *state = match g {
                    Grant::Stop => State::Stopped,
                    _ => State::Running,
                };
                grants.push((worker, g));
            }
        }
        grants
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(workers: usize, runs: u64) -> Schedule {
        Schedule::new(workers, Draws::new(1, Settings::default(), runs, workers))
    }

    /// The workers told to run something, and how.
    fn told(grants: &[(usize, Grant)]) -> Vec<(usize, &'static str)> {
        let how = |g: &Grant| match g {
            Grant::Run(_) => "run",
            Grant::Go => "go",
            Grant::Alone => "alone",
            Grant::Stop => "stop",
        };
        grants.iter().map(|(w, g)| (*w, how(g))).collect()
    }

    #[test]
    fn a_run_alone_waits_for_the_runs_going_on_and_nothing_starts_beside_it() {
        let mut s = schedule(3, 100);
        assert_eq!(told(&s.grants()), [(0, "run"), (1, "run"), (2, "run")]);
        s.timed_out(0);
        assert!(s.grants().is_empty(), "workers 1 and 2 still run");
        // Worker 1 ends its run: no new trace for it while the run alone waits.
        s.ran(1, false);
        assert!(s.grants().is_empty());
        // Worker 2's run shows a divergence to shrink; it asks for a candidate.
        s.ran(2, true);
        s.asks(2);
        assert_eq!(told(&s.grants()), [(0, "alone")]);
        assert!(s.grants().is_empty(), "nothing beside the run alone");
        s.ran_alone(0);
        assert_eq!(told(&s.grants()), [(1, "run"), (2, "go")]);
        s.ran(0, false);
        assert_eq!(told(&s.grants()), [(0, "run")]);
    }

    #[test]
    fn runs_alone_go_one_at_a_time_in_the_order_asked() {
        let mut s = schedule(2, 100);
        s.grants();
        s.timed_out(1);
        s.timed_out(0);
        assert_eq!(told(&s.grants()), [(1, "alone")]);
        assert!(s.grants().is_empty());
        s.ran_alone(1);
        assert_eq!(told(&s.grants()), [(0, "alone")]);
        s.ran_alone(0);
        s.ran(0, false);
        s.ran(1, false);
        assert_eq!(told(&s.grants()), [(0, "run"), (1, "run")]);
    }

    /// Workers end runs, ask for candidates and time out in a random order;
    /// whenever a worker runs alone, no other program runs.
    #[test]
    fn no_run_ever_overlaps_a_run_alone() {
        for seed in 0..50 {
            let mut rng = fastrand::Rng::with_seed(seed);
            let mut s = schedule(3, 60);
            let mut running: Vec<Option<bool>> = vec![None; 3]; // Some(alone)
            let mut ended = [false; 3];
            while !ended.iter().all(|e| *e) {
                for (w, grant) in s.grants() {
                    match grant {
                        Grant::Stop => ended[w] = true,
                        grant => running[w] = Some(matches!(grant, Grant::Alone)),
                    }
                }
                if let Some(alone) = running.iter().position(|r| *r == Some(true)) {
                    let mut others = running.iter().enumerate().filter(|(w, _)| *w != alone);
                    assert!(others.all(|(_, r)| r.is_none()), "seed {seed}: {running:?}");
                }
                let busy: Vec<usize> = (0..3).filter(|w| running[*w].is_some()).collect();
                let Some(&w) = busy.get(rng.usize(..busy.len().max(1))) else { continue };
                match (running[w].take(), rng.u8(..4)) {
                    (Some(true), _) => {
                        s.ran_alone(w);
                        s.ran(w, false);
                    }
                    (_, 0) => s.timed_out(w),
                    (_, 1) => s.asks(w),
                    (_, 2) => {
                        s.ran(w, true);
                        s.shrunk(w);
                    }
                    _ => s.ran(w, false),
                }
            }
        }
    }

    #[test]
    fn once_stopping_every_waiting_worker_stops_and_nothing_is_drawn() {
        let mut s = schedule(3, 100);
        s.grants();
        s.ran(0, false);
        s.timed_out(1);
        s.stop();
        assert_eq!(told(&s.grants()), [(0, "stop"), (1, "stop")]);
        s.ran(2, true);
        s.asks(2);
        assert_eq!(told(&s.grants()), [(2, "stop")]);
        assert!(!s.draw_ahead());
    }

    #[test]
    fn the_runs_spent_each_worker_stops_and_a_seed_draws_the_same_traces_whatever_the_jobs() {
        let mut s = schedule(2, 3);
        let first: Vec<_> = s.grants().into_iter().map(|(_, g)| g).collect();
        s.ran(0, false);
        let second = s.grants();
        s.ran(0, false);
        s.ran(1, false);
        assert_eq!(told(&s.grants()), [(0, "stop"), (1, "stop")]);
        let runs: Vec<Trace> = first
            .into_iter()
            .chain(second.into_iter().map(|(_, g)| g))
            .map(|g| match g {
                Grant::Run((_, trace, _)) => trace,
                other => panic!("{other:?}"),
            })
            .collect();
        let mut one = Draws::new(1, Settings::default(), 3, 1);
        let alone: Vec<Trace> = std::iter::from_fn(|| one.take().map(|d| d.1)).collect();
        assert_eq!(runs, alone);
    }
}
