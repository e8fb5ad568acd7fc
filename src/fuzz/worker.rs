//! A worker of a session: it runs the program (and the oracle) on each
//! trace the coordinator hands it, compares, and tells the coordinator what
//! it saw; it shrinks a divergence the coordinator asks it to report. It
//! starts a program only when the coordinator says so (a trace, a shrinking
//! candidate, a timed-out run again alone), and shares nothing with the
//! other workers: only the interrupt flag, which stops its program at once.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc;
use std::time::Instant;

use super::coordinator::{Event, Note, Shrunk, Verdict};
use super::expect::{self, Expected, Kind, first_difference};
use super::generate::Settings;
use super::program::{Exit, Guarded, Launched, Launcher, Limits};
use super::report::{self, Ended, Symptom};
use super::schedule::Drawn;
use super::trace::Trace;
use super::workplace::Workplace;
use super::{FuzzError, MIN_CAP, Options, RESTART_AFTER, shrink};
use crate::behaviour::Behaviour;

/// A divergence a run showed, with what the oracle printed.
#[derive(Clone)]
pub(super) struct Found {
    pub(super) kind: Kind,
    /// The output differs from its first byte, or at the initial state.
    pub(super) root: bool,
    pub(super) wanted: Vec<u8>,
    /// What its report shows: the line that differs, how the program ended.
    pub(super) symptom: Symptom,
}

/// What one run on a trace says.
enum Outcome {
    Agrees,
    Diverges(Box<Found>),
    /// Nothing: the session was stopped during the run.
    Unknown,
    /// tictac's own trouble: the trace could not be written, the folder
    /// copied (a full or size-limited disk), or a program started (no open
    /// files left).
    Trouble(FuzzError),
    /// The oracle failed on the trace (why).
    OracleFailed(String),
    /// The program could not be started (why): deleted, no longer
    /// executable, being rebuilt.
    CannotStart(String),
}

/// One worker: it runs the traces the coordinator hands it and tells it
/// what each showed; it shrinks a divergence when the coordinator asks.
pub(super) struct Worker<'a> {
    pub(super) id: usize,
    pub(super) options: &'a Options,
    pub(super) settings: &'a Settings,
    /// Raised by the coordinator when the session stops: the program
    /// running is stopped at once (see `Coordinator::interrupt`).
    pub(super) interrupt: &'a AtomicBool,
    pub(super) events: mpsc::Sender<Event>,
    /// What the coordinator tells this worker; closed when its work is over.
    pub(super) notes: mpsc::Receiver<Note>,
    /// This worker saw the oracle fail: its shrinking ends.
    pub(super) oracle_failed: Cell<bool>,
    /// A run of this worker's shrinking was refused or stopped: the
    /// session is over.
    pub(super) stopped: Cell<bool>,
    /// The worker's own trace file, rewritten for every run.
    pub(super) file: PathBuf,
    /// That file, open: rewritten in place, without a path lookup or a
    /// truncation each run.
    pub(super) handle: fs::File,
    /// Where the program runs: the worker's copy of the folder.
    pub(super) place: RefCell<Workplace>,
}

impl Worker<'_> {
    /// Runs the traces the coordinator hands out, until it says no more.
    pub(super) fn work(&self) {
        while let Ok(Note::Run(drawn, confirm)) = self.notes.recv() {
            if !self.run(drawn, confirm) {
                return;
            }
        }
    }

    /// Runs one trace and tells the coordinator what it showed; a new kind
    /// of divergence is shrunk here. False once this worker is done: the
    /// session stopped, or something ended it.
    fn run(&self, (run, trace, expected): Drawn, confirm: bool) -> bool {
        let divergence = match self.try_trace_again(&trace, &expected, confirm) {
            Outcome::Unknown => return false,
            Outcome::CannotStart(why) => return self.end(Event::CannotStart(why)),
            Outcome::Trouble(e) => return self.end(Event::Trouble(e)),
            Outcome::OracleFailed(why) => return self.end(self.oracle_failed(&why, &trace)),
            Outcome::Agrees => None,
            Outcome::Diverges(divergence) => Some(divergence),
        };
        let told = divergence.as_ref().map(|found| (trace.clone(), found.clone()));
        let ran =
            Event::Ran { worker: self.id, run, coverage: expected.coverage, divergence: told };
        if !self.tell(ran) {
            return false;
        }
        let Some(found) = divergence else { return true };
        // A new kind is shrunk and reported; a known one is done with.
        match self.notes.recv() {
            Ok(Note::Verdict(Verdict::Shrink)) => {
                self.tell(Event::Shrunk(Box::new(self.shrunk(run, trace, *found))))
            }
            Ok(Note::Verdict(Verdict::Known)) => true,
            _ => false,
        }
    }

    /// Tells the coordinator; false once it is gone.
    fn tell(&self, event: Event) -> bool {
        self.events.send(event).is_ok()
    }

    /// Tells the coordinator what ends this worker's session; false.
    fn end(&self, event: Event) -> bool {
        self.tell(event);
        false
    }

    /// Asks the coordinator to start a program, and waits for its word:
    /// false when the session is over.
    fn may_run(&self, asking: Event, answer: fn(&Note) -> bool) -> bool {
        self.tell(asking) && self.notes.recv().is_ok_and(|note| answer(&note))
    }

    /// What to tell the coordinator when the oracle failed on `trace`: the
    /// session ends. This worker's shrinking ends too.
    fn oracle_failed(&self, why: &str, trace: &Trace) -> Event {
        let oracle = self.options.oracle.as_deref().unwrap_or_default().join(" ");
        // Shown whole: it is saved nowhere.
        let (lines, escaped) = report::trace_shown(&trace.text(), usize::MAX);
        let mut message = format!(
            "the oracle '{oracle}' failed on a trace ({why}), so no verdict on the program can be given; the trace:\n{}",
            lines.trim_end()
        );
        if escaped {
            message.push_str(
                "\n  (control and invisible characters, and bytes that are not UTF-8, are escaped above)",
            );
        }
        self.oracle_failed.set(true);
        Event::OracleFailed(message)
    }

    /// Runs the oracle (none: the engine's `expected`) and the program on the
    /// trace in `self.file`, the program in its room.
    fn launch_both(&self, limits: Limits) -> Result<(Option<Launched>, Launched), FuzzError> {
        let launcher = Guarded { stop: Some(self.interrupt) };
        let oracle =
            self.options.oracle.as_ref().map(|o| launcher.launch(o, None, &self.file, limits));
        let room = self.place.borrow_mut().enter()?;
        let program = room.run(|command, dir| launcher.launch(command, dir, &self.file, limits))?;
        Ok((oracle, room.as_in_folder(program)))
    }

    /// `try_trace`, once more `RESTART_AFTER` later if the program could not
    /// be started (a rebuild replacing it): the session does not go on
    /// without it, counting runs that never ran.
    fn try_trace_again(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        let why = match self.try_trace(trace, expected, confirm) {
            Outcome::CannotStart(why) => why,
            outcome => return outcome,
        };
        std::thread::sleep(RESTART_AFTER);
        match self.try_trace(trace, expected, confirm) {
            // Stopped meanwhile: it had not started.
            Outcome::Unknown => Outcome::CannotStart(why),
            outcome => outcome,
        }
    }

    /// `try_trace_in_copy`, again on a new copy of the folder when it
    /// diverged on a copy the workplace does not trust (`Workplace::current`:
    /// made while a rebuild may have been writing the program). Never for a
    /// hang: it is run again alone instead.
    fn try_trace(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        loop {
            let outcome = self.try_trace_in_copy(trace, expected, confirm);
            match &outcome {
                Outcome::Diverges(found) if found.kind != Kind::Hang => {}
                _ => return outcome,
            }
            if self.place.borrow_mut().current() {
                return outcome;
            }
        }
    }

    /// Runs the program (and the oracle) on a trace. A timeout is run again
    /// alone, when the coordinator lets no other program run, before it
    /// counts (the oracle's always, the program's when `confirm`): on a
    /// loaded machine a run can miss its time without hanging.
    fn try_trace_in_copy(&self, trace: &Trace, expected: &Expected, confirm: bool) -> Outcome {
        if let Err(e) = self.rewrite(&trace.text()) {
            return Outcome::Trouble(FuzzError::TraceNotWritten(e));
        }
        let cap = MIN_CAP.max(expected.output.len() + (1 << 20));
        let limits = Limits { timeout: self.options.timeout, cap };
        let timed_out = |(oracle, program): &(Option<Launched>, Launched)| {
            matches!(oracle, Some(Launched::TimedOut))
                || (confirm && *program == Launched::TimedOut)
        };
        let mut ran = self.launch_both(limits);
        if ran.as_ref().is_ok_and(timed_out) {
            if !self.may_run(Event::TimedOut(self.id), |n| matches!(n, Note::Alone)) {
                return Outcome::Unknown;
            }
            ran = self.launch_both(limits);
            let cut = ran.as_ref().is_ok_and(|r| matches!(r.1, Launched::Stopped));
            let flaky = !cut && ran.as_ref().is_ok_and(|r| !timed_out(r));
            self.tell(Event::RanAlone { worker: self.id, flaky, cut });
        }
        let (oracle, program) = match ran {
            Ok(ran) => ran,
            Err(e) => return Outcome::Trouble(e),
        };
        let (wanted, wanted_status) = match oracle {
            // Borrowed: a copy only for a divergence.
            None => (Cow::Borrowed(expected.output.as_slice()), Some(expected.status)),
            Some(oracle) => match self.oracle_answer(oracle, expected) {
                Ok((output, status)) => (Cow::Owned(output), status),
                Err(outcome) => return outcome,
            },
        };
        let compare = |output: &[u8]| {
            let kind = first_difference(expected, &wanted, output)?;
            let root = kind == Kind::Behaviour(Behaviour::InitialState)
                || (!wanted.is_empty() && wanted.first() != output.first());
            Some((kind, root))
        };
        let mut stderr = Vec::new();
        let (found, output, ended) = match program {
            Launched::TimedOut => (Some((Kind::Hang, false)), Vec::new(), Ended::TimedOut),
            Launched::Frozen(how) => (Some((Kind::Hang, false)), Vec::new(), Ended::Frozen(how)),
            Launched::Stopped => return Outcome::Unknown,
            Launched::CannotStart(why) => return Outcome::CannotStart(why),
            Launched::RanOut(why) => return Outcome::Trouble(FuzzError::RanOut(why)),
            Launched::TooMuch(output) => (compare(&output), output, Ended::TooMuch),
            Launched::Finished { output, exit, stderr: err } => {
                stderr = err;
                // A crash is a divergence whatever the output; another
                // status only with --check-status.
                let found = compare(&output).or_else(|| match &exit {
                    Exit::Crashed(_) => Some((Kind::Crash, false)),
                    Exit::Status(status) => (self.options.check_status
                        && Some(*status) != wanted_status)
                        .then_some((Kind::ExitStatus, false)),
                });
                (found, output, Ended::Exited(exit))
            }
        };
        match found {
            None => Outcome::Agrees,
            Some((kind, root)) => {
                let symptom = match ended {
                    Ended::TimedOut | Ended::Frozen(_) => Symptom::unfinished(ended),
                    _ => Symptom::of(&wanted, &output, ended, wanted_status)
                        .with_stderr(stderr)
                        .rejected_at(expect::rejected_at(&trace.text(), &wanted, &output)),
                };
                let wanted = wanted.into_owned();
                Outcome::Diverges(Box::new(Found { kind, root, wanted, symptom }))
            }
        }
    }

    /// The oracle's output and status, or why it failed: it could not start,
    /// did not finish (twice), printed past the cap or nothing at all, was
    /// killed by a signal, or exited non-zero on a trace the engine runs (the
    /// ETF oracle always exits 0).
    fn oracle_answer(
        &self,
        oracle: Launched,
        expected: &Expected,
    ) -> Result<(Vec<u8>, Option<i32>), Outcome> {
        let failed = |why: String| Err(Outcome::OracleFailed(why));
        match oracle {
            Launched::Finished { exit: Exit::Crashed(how), .. } => failed(format!("it was {how}")),
            Launched::Finished { exit: Exit::Status(code), .. }
                if code != 0 && expected.status == 0 =>
            {
                failed(format!("it exited with status {code} on a trace without an error"))
            }
            // Every trace prints something: its first state, or an error.
            Launched::Finished { output, .. } if output.is_empty() => {
                failed("it printed nothing (any trace prints its first state or an error)".into())
            }
            Launched::Finished { output, exit: Exit::Status(status), .. } => {
                Ok((output, Some(status)))
            }
            Launched::TimedOut => failed(format!(
                "it did not finish in {} s, run alone too",
                self.options.timeout.as_secs_f64()
            )),
            Launched::Frozen(how) => failed(format!("it did not finish: {how}")),
            Launched::TooMuch(_) => failed("it printed far more than the engine does".into()),
            Launched::CannotStart(why) => failed(why),
            Launched::RanOut(why) => Err(Outcome::Trouble(FuzzError::RanOut(why))),
            Launched::Stopped => Err(Outcome::Unknown),
        }
    }

    /// Makes the worker's file hold `text`: written over the old text, then
    /// cut to its length (pages are freed only when the trace got shorter).
    fn rewrite(&self, text: &[u8]) -> io::Result<()> {
        crate::platform::files::write_at_start(&self.handle, text)?;
        self.handle.set_len(text.len() as u64)
    }

    /// A new kind of divergence shrunk, with the test to write for it (an
    /// exit status's test says the status); the coordinator reports it.
    /// Once the session is stopped (the coordinator lets no more candidate
    /// run, or stopped one) the shrinking ends with the smallest trace
    /// found so far.
    fn shrunk(&self, run: u64, trace: Trace, found: Found) -> Shrunk {
        let kind = found.kind;
        let from = trace.len();
        let began = Instant::now();
        let (small, found) = self.shrink(trace, found);
        let cut = self.stopped.get() || self.oracle_failed.get();
        let (text, wanted) = if kind == Kind::ExitStatus {
            // The test says which status the program must end with; the
            // expected output is the oracle's for the file as saved.
            let status = found.symptom.wanted_status.unwrap_or(0);
            let text = [format!("-- status: {status}\n").into_bytes(), small.text()].concat();
            let wanted = self.wanted_for(&text);
            (text, wanted)
        } else {
            (small.text(), Some(found.wanted.clone()))
        };
        Shrunk { worker: self.id, run, from, began, small, found, cut, text, wanted }
    }

    /// The smallest trace that still shows `found`'s kind, and what it shows.
    fn shrink(&self, trace: Trace, found: Found) -> (Trace, Found) {
        let exclude = self.settings.exclude;
        let kind = found.kind;
        // The passes meet the same candidate again (the last round of
        // passes tries them all once more): each is run once.
        let mut seen: HashMap<Vec<u8>, bool> = HashMap::new();
        // What each trace kept on the way showed.
        let mut shown: HashMap<Vec<u8>, Found> = HashMap::new();
        shown.insert(trace.text(), found.clone());
        let small = shrink::shrink(trace, |candidate| {
            if self.stopped.get() || self.oracle_failed.get() {
                return false;
            }
            let text = candidate.text();
            if let Some(&known) = seen.get(&text) {
                return known;
            }
            let expected = Expected::of(&text);
            // A divergence is named by the behaviour of the step where it
            // starts: a trace without that step cannot show it.
            let possible = match kind {
                Kind::Behaviour(b) => expected.steps.iter().any(|s| s.1 == b),
                _ => true,
            };
            if !possible || expected.coverage.iter().any(|b| exclude.contains(b)) {
                seen.insert(text, false);
                return false;
            }
            if !self.may_run(Event::Next(self.id), |n| matches!(n, Note::Go)) {
                self.stopped.set(true);
                return false;
            }
            let shows = match self.try_trace(candidate, &expected, kind == Kind::Hang) {
                Outcome::Unknown => {
                    self.stopped.set(true);
                    false
                }
                Outcome::Diverges(f) if f.kind == kind => {
                    shown.insert(text.clone(), *f);
                    true
                }
                Outcome::OracleFailed(why) => {
                    self.tell(self.oracle_failed(&why, candidate));
                    false
                }
                _ => false,
            };
            seen.insert(text, shows);
            shows
        });
        // The trace kept last was kept with what it showed.
        let found = shown.remove(&small.text()).unwrap_or(found);
        (small, found)
    }

    /// The expected output of `text`: the engine's, or the oracle's (none if
    /// it fails).
    fn wanted_for(&self, text: &[u8]) -> Option<Vec<u8>> {
        let Some(oracle) = &self.options.oracle else { return Some(Expected::of(text).output) };
        self.rewrite(text).ok()?;
        let limits = Limits { timeout: self.options.timeout, cap: MIN_CAP };
        match Guarded::default().launch(oracle, None, &self.file, limits) {
            Launched::Finished { output, .. } => Some(output),
            _ => None,
        }
    }
}
