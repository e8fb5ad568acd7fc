//! The coordinator of a session: the one owner of what the workers find,
//! and of the work they do. It hands each worker its work over the
//! worker's own channel (`schedule`: a trace, a shrinking candidate, a
//! timed-out run again alone, or the end); workers send it events over one
//! channel (a run's result, a shrunk divergence, a failure, what they ask
//! to run). It keeps the counts, the coverage, the reports and the traces
//! the program stalled on, decides when the session stops, and tells the
//! reporter each divergence and the progress.

use std::collections::HashSet;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::expect::{Expected, Kind};
use super::progress::Progress;
use super::report::{self, Reports, Telling, falsifying};
use super::reporter::{FuzzEvent, FuzzReporter, Summary};
use super::saved::{self, TracesFile, save};
use super::schedule::{Drawn, Grant, Schedule};
use super::trace::Trace;
use super::worker::Found;
use super::{FuzzError, Options, STALLS, Stop, counted};
use crate::behaviour::Coverage;
use crate::platform::signals::StopRequest;

/// How often the progress is told, and the time, a signal and a closed
/// output looked at.
const TICK: Duration = Duration::from_millis(250);

/// What a worker tells the coordinator.
pub(super) enum Event {
    /// A run ended: what its trace covers, and the divergence it showed, if
    /// any; then the worker waits for the `Verdict` on it.
    Ran { worker: usize, run: u64, coverage: Coverage, divergence: Option<(Trace, Box<Found>)> },
    /// The worker asks to run a shrinking candidate (`Note::Go`).
    Next(usize),
    /// The worker's run timed out: it asks to run it again alone
    /// (`Note::Alone`).
    TimedOut(usize),
    /// The worker's run alone ended; `flaky`: it finished this time;
    /// `cut`: the session stopped it.
    RanAlone { worker: usize, flaky: bool, cut: bool },
    /// A divergence the coordinator asked for, shrunk.
    Shrunk(Box<Shrunk>),
    /// The oracle failed on a trace (the message): the session ends.
    OracleFailed(String),
    /// tictac's own trouble (a trace not written, the folder not copied, no
    /// open files left to start a program): the session ends.
    Trouble(FuzzError),
    /// The program could not be started, twice (why): the session ends.
    CannotStart(String),
}

/// What the coordinator tells a worker. Its channel closed: the session
/// is over for it.
pub(super) enum Note {
    /// Run this trace; a timeout of the program is run again alone before
    /// it counts while no hang has been found (`true`).
    Run(Drawn, bool),
    /// Run the shrinking candidate asked for.
    Go,
    /// Run the timed-out run again: no other program runs.
    Alone,
    /// What to do with the divergence the worker told.
    Verdict(Verdict),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// A new kind: shrink it and send it back (`Event::Shrunk`).
    Shrink,
    /// Known already, or counted with a report of the same cause.
    Known,
}

/// A new kind of divergence, shrunk by a worker.
pub(super) struct Shrunk {
    pub(super) worker: usize,
    pub(super) run: u64,
    /// The events of the trace it was found on.
    pub(super) from: usize,
    /// When the shrinking began.
    pub(super) began: Instant,
    pub(super) small: Trace,
    pub(super) found: Found,
    /// The session was stopped while shrinking.
    pub(super) cut: bool,
    /// The test to save (for an exit status, with its `-- status:` line)
    /// and its expected output (none if the oracle failed on it).
    pub(super) text: Vec<u8>,
    pub(super) wanted: Option<Vec<u8>>,
}

/// What the session knows, kept by the coordinator alone.
pub(super) struct Coordinator<'a> {
    options: &'a Options,
    /// Raised when the session stops: the programs running stop at once.
    /// A flag, not a message: a worker's program is waited on by the
    /// process core (`platform::process::run`), which looks at a flag
    /// between its waits, as for an interrupt from a signal handler; a
    /// message would be read only once the run is over.
    interrupt: &'a AtomicBool,
    /// Each worker's way to hear back (none once told its work is over).
    notes: Vec<Option<mpsc::Sender<Note>>>,
    /// Who runs what, when.
    schedule: Schedule,
    /// A hang was reported: timeouts need no confirming any more.
    hang_found: bool,
    /// Where each trace is kept (`--save-traces`).
    saved: Option<TracesFile>,
    covered: Coverage,
    /// Only what a `-b` run can show counts, less what is excluded.
    exclude: Coverage,
    total: usize,
    kinds: HashSet<Kind>,
    /// The divergences reported, kinds of one cause together.
    reports: Reports,
    /// The different traces the program hung on or was killed on silently
    /// (at most `STALLS`), with what they showed.
    stalls: Vec<(Trace, Found)>,
    /// A divergence from the very start of the output was reported: one
    /// fault, whatever kind later traces would name it.
    root_found: bool,
    /// A run of the program printed something: it does not fail on every
    /// trace, and stalls no longer count.
    printed: bool,
    /// Shrinks going on of kinds whose tries cost no timeout (all but a
    /// hang): a session stopped for stalls waits for them.
    cheap_shrinks: usize,
    runs: u64,
    /// Traces handed out to run.
    started: u64,
    /// Runs in which the program finished (did not time out): only these
    /// checked something, and only their traces count as covered.
    finished: u64,
    /// Runs that timed out, then finished when run again alone.
    flaky: u64,
    /// Runs that timed out and wait to be run again alone, or whose run
    /// alone the session stopped: whether they hang is not known.
    unconfirmed: u64,
    /// Why the session is over (the first reason).
    why: Option<Stop>,
    /// The first of each failure that ends the session with an error.
    oracle_failure: Option<String>,
    trouble: Option<FuzzError>,
    save_failed: Option<FuzzError>,
    cannot_start: Option<String>,
    /// The first error writing the output; the session stops at it.
    write_error: Option<io::Error>,
}

/// What the session is bounded by and watches while it runs.
pub(super) struct Watch<'a> {
    pub(super) start: Instant,
    pub(super) deadline: Option<Instant>,
    pub(super) interrupt: &'a StopRequest,
    pub(super) closed: &'a (dyn Fn() -> bool + Sync),
}

impl<'a> Coordinator<'a> {
    pub(super) fn new(
        options: &'a Options,
        interrupt: &'a AtomicBool,
        notes: Vec<mpsc::Sender<Note>>,
        schedule: Schedule,
        saved: Option<TracesFile>,
        exclude: Coverage,
    ) -> Coordinator<'a> {
        Coordinator {
            options,
            interrupt,
            notes: notes.into_iter().map(Some).collect(),
            schedule,
            hang_found: false,
            saved,
            covered: Coverage::default(),
            exclude,
            total: Coverage::batch().len() - exclude.intersection(Coverage::batch()).len(),
            kinds: HashSet::new(),
            reports: Reports::default(),
            stalls: Vec::new(),
            root_found: false,
            printed: false,
            cheap_shrinks: 0,
            runs: 0,
            started: 0,
            finished: 0,
            flaky: 0,
            unconfirmed: 0,
            why: None,
            oracle_failure: None,
            trouble: None,
            save_failed: None,
            cannot_start: None,
            write_error: None,
        }
    }

    /// Hands out the work and takes the workers' events until every worker
    /// is done, telling each divergence and the progress; traces are drawn
    /// ahead while no event waits. The time, a signal and a closed output
    /// stop the session.
    pub(super) fn coordinate(
        &mut self,
        events: &mpsc::Receiver<Event>,
        watch: &Watch,
        reporter: &mut dyn FuzzReporter,
    ) {
        self.look(watch);
        let mut tick = Instant::now() + TICK;
        let mut drawing = true;
        loop {
            self.hand_out(watch.deadline);
            let wait = if drawing {
                Duration::ZERO
            } else {
                tick.saturating_duration_since(Instant::now())
            };
            let found = match events.recv_timeout(wait) {
                Ok(event) => {
                    // It may have taken traces: there may be room again.
                    drawing = true;
                    self.take(event)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    drawing = self.schedule.draw_ahead();
                    None
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let due = Instant::now() >= tick;
            if found.is_some() || due {
                self.tell(found.as_deref(), watch, reporter);
            }
            if due {
                self.look(watch);
                tick = Instant::now() + TICK;
            }
        }
    }

    /// Stops the session when its time is up, a signal asks, or the reader
    /// of the output has gone.
    fn look(&mut self, watch: &Watch) {
        if watch.deadline.is_some_and(|d| Instant::now() >= d) {
            self.halt(Stop::Time);
        }
        if let Some(signal) = watch.interrupt.signal() {
            self.halt(Stop::Signal(signal));
        }
        if self.write_error.is_none() && (watch.closed)() {
            self.write_error = Some(io::ErrorKind::BrokenPipe.into());
            self.halt(Stop::Other);
        }
    }

    /// Tells each worker what to do now (a trace, with its number and
    /// text saved when `--save-traces` asks); none once `--time` is up.
    fn hand_out(&mut self, deadline: Option<Instant>) {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            self.halt(Stop::Time);
        }
        for (worker, grant) in self.schedule.grants() {
            let note = match grant {
                Grant::Run(drawn) => {
                    self.started += 1;
                    self.save(&drawn.1);
                    Note::Run(drawn, !self.hang_found)
                }
                Grant::Go => Note::Go,
                Grant::Alone => Note::Alone,
                Grant::Stop => {
                    self.notes[worker] = None;
                    continue;
                }
            };
            self.tell_worker(worker, note);
        }
    }

    /// Keeps a trace handed out in `--save-traces`' file; a failure ends
    /// the session.
    fn save(&mut self, trace: &Trace) {
        if let Some(Err(e)) = self.saved.as_mut().map(|saved| saved.append(&trace.text())) {
            self.save_failed.get_or_insert(e);
            self.halt(Stop::Other);
        }
    }

    fn tell_worker(&self, worker: usize, note: Note) {
        // A worker gone (a panic) needs no word.
        if let Some(notes) = &self.notes[worker] {
            let _ = notes.send(note);
        }
    }

    /// Ends the session: no new run, running programs stopped. The first
    /// reason given is the one kept.
    fn halt(&mut self, why: Stop) {
        self.why.get_or_insert(why);
        self.schedule.stop();
        self.interrupt.store(true, Ordering::Relaxed);
    }

    /// Tells a divergence's report (if any) and where the session stands.
    fn tell(&mut self, found: Option<&str>, watch: &Watch, reporter: &mut dyn FuzzReporter) {
        let progress = Progress {
            runs: self.runs,
            all_runs: self.options.runs,
            elapsed: watch.start.elapsed(),
            time_left: watch.deadline.map(|d| d.saturating_duration_since(Instant::now())),
            covered: self.covered.len(),
            total: self.total,
            divergences: self.reports.len(),
        };
        let told = found
            .iter()
            .map(|m| FuzzEvent::Found(m))
            .chain([FuzzEvent::Progress(&progress)])
            .try_for_each(|event| reporter.report(&event));
        if self.write_error.is_none()
            && let Err(e) = told
        {
            self.write_error = Some(e);
            self.halt(Stop::Other);
        }
    }

    /// Takes one event; what it found to tell, if anything.
    fn take(&mut self, event: Event) -> Option<String> {
        match event {
            Event::Ran { worker, run, coverage, divergence } => {
                let answer = self.ran(run, coverage, divergence);
                self.schedule.ran(worker, matches!(answer, Some((Verdict::Shrink, _))));
                let (verdict, found) = answer?;
                self.tell_worker(worker, Note::Verdict(verdict));
                found
            }
            Event::Next(worker) => {
                self.schedule.asks(worker);
                None
            }
            Event::TimedOut(worker) => {
                self.schedule.timed_out(worker);
                self.unconfirmed += 1;
                None
            }
            Event::RanAlone { worker, flaky, cut } => {
                self.schedule.ran_alone(worker);
                self.flaky += u64::from(flaky);
                self.unconfirmed = self.unconfirmed.saturating_sub(u64::from(!cut));
                None
            }
            Event::Shrunk(shrunk) => {
                self.schedule.shrunk(shrunk.worker);
                if shrunk.found.kind != Kind::Hang {
                    self.cheap_shrinks = self.cheap_shrinks.saturating_sub(1);
                }
                let told = self.report(*shrunk);
                if self.stalls.len() == STALLS {
                    self.stop_stalled();
                }
                Some(told)
            }
            Event::OracleFailed(message) => {
                self.oracle_failure.get_or_insert(message);
                self.halt(Stop::Other);
                None
            }
            Event::Trouble(e) => {
                self.trouble.get_or_insert(e);
                self.halt(Stop::Other);
                None
            }
            Event::CannotStart(why) => {
                self.cannot_start.get_or_insert(why);
                self.halt(Stop::Other);
                None
            }
        }
    }

    /// Counts a run; for a divergence, whether it is a new kind to shrink,
    /// and the note to tell when it joins a report of the same cause. None
    /// when there was no divergence (no verdict is waited for).
    fn ran(
        &mut self,
        run: u64,
        coverage: Coverage,
        divergence: Option<(Trace, Box<Found>)>,
    ) -> Option<(Verdict, Option<String>)> {
        self.runs += 1;
        // A trace the program never finished covers nothing.
        if !divergence.as_ref().is_some_and(|(_, d)| d.kind == Kind::Hang) {
            self.finished += 1;
            self.covered = self.covered.union(coverage);
        }
        // Until a run prints something, printing nothing is failing on
        // every trace too (a program started in the wrong folder).
        let silent = |d: &Found| d.symptom.silent() || d.symptom.did_not_finish();
        if !divergence.as_ref().is_some_and(|(_, d)| silent(d)) {
            self.printed = true;
        }
        let (trace, found) = divergence?;
        // Until a run prints something, a trace it hung on, or printed
        // nothing on, counts towards the stop; after, such a trace is a
        // divergence like another (a hang on some traces, a crash on a tab).
        if !self.printed && silent(&found) {
            self.stalled(&trace, &found);
        }
        // One fault at the root shows as many kinds: reported once.
        if found.root && std::mem::replace(&mut self.root_found, true) {
            return Some((Verdict::Known, None));
        }
        if !self.kinds.insert(found.kind) {
            return Some((Verdict::Known, None));
        }
        self.hang_found |= found.kind == Kind::Hang;
        // Lines that differ as in a report made: no need to shrink, unless
        // this trace shows them sooner than the report's shrunk trace (C4:
        // `Jo\"e` misprinted after a round of 6 plays, then in the first
        // new_game): shrunk, it may point at the cause in fewer events.
        match self.reports.same_cause(&trace.text(), &found.symptom) {
            Some((k, how)) if reached_within(&trace, found.kind) >= self.reports.events(k) => {
                Some((Verdict::Known, Some(self.reports.join(k, found.kind, run, &how))))
            }
            _ => {
                self.cheap_shrinks += usize::from(found.kind != Kind::Hang);
                Some((Verdict::Shrink, None))
            }
        }
    }

    /// Counts a trace the program hung on or printed nothing on, before
    /// any run printed something; the `STALLS`th different one ends the
    /// session.
    fn stalled(&mut self, trace: &Trace, found: &Found) {
        if self.stalls.len() < STALLS && self.stalls.iter().all(|(t, _)| t != trace) {
            self.stalls.push((trace.clone(), found.clone()));
            if self.stalls.len() == STALLS {
                self.stop_stalled();
            }
        }
    }

    /// Ends a session whose program failed on its first `STALLS` different
    /// traces and printed nothing on any: once no shrink whose tries cost
    /// no timeout is going on (a crash's tries take milliseconds: it is
    /// shrunk to its end, and the runs meanwhile may show the program
    /// does not fail on every trace, which calls the stop off). A hang's
    /// shrink is cut: each of its tries costs a timeout.
    fn stop_stalled(&mut self) {
        if !self.printed && self.cheap_shrinks == 0 {
            self.halt(Stop::Stalled);
        }
    }

    /// Reports a new kind of divergence, shrunk: written as a test and
    /// told as Hypothesis tells a falsifying example; or, when a report of
    /// the same cause was made meanwhile (the same shrunk trace, the same
    /// differing lines), counted there.
    fn report(&mut self, shrunk: Shrunk) -> String {
        let Shrunk { run, from, began, mut small, mut found, cut, mut text, mut wanted, .. } =
            shrunk;
        let kind = found.kind;
        let cut = cut.then(|| self.why.unwrap_or(Stop::Other));
        // Stopped because the program fails on every trace: the smallest
        // trace it failed on, shrunk or not (a try costs a timeout).
        let mut not_shrunk = false;
        if cut == Some(Stop::Stalled) {
            let same = |s: &&(Trace, Found)| s.1.kind == kind || (s.1.root && found.root);
            let smaller = self.stalls.iter().filter(same).min_by_key(|s| s.0.len());
            if let Some((trace, stalled)) = smaller.filter(|s| s.0.len() < small.len()) {
                (small, found, not_shrunk) = (trace.clone(), stalled.clone(), true);
                (text, wanted) = (small.text(), Some(found.wanted.clone()));
            }
        }
        let small_text = small.text();
        // The same divergence as a report's: joined to it, or, shown in
        // fewer events, told again in its place (its test replaced).
        let mut smaller_than = None;
        if let Some((k, how)) = self.reports.same_cause(&small_text, &found.symptom) {
            if small.len() >= self.reports.events(k) {
                return self.reports.join(k, kind, run, &how);
            }
            smaller_than = Some((k, how));
        }
        let written = wanted
            .ok_or_else(|| "the oracle failed on the shrunk trace".to_string())
            .and_then(|wanted| save(&self.options.out, kind.id(), &text, &wanted));
        let secs = began.elapsed().as_secs_f64();
        let mut head = format!("Divergence: {} ({}), run {run}", kind.id(), kind.description());
        if not_shrunk {
            head.push_str(&format!(
                ", not shrunk: the smallest of the {STALLS} traces the program failed on"
            ));
        } else {
            head.push_str(&format!(
                ", shrunk from {from} to {} in {secs:.2} s",
                counted(small.len() as u64, "event", "events")
            ));
            if let Some(why) = cut {
                head.push_str(&format!(" (not fully shrunk: {})", why.cut_short()));
            }
        }
        let telling =
            Telling { timeout: self.options.timeout, statuses: self.options.check_status };
        let mut message = falsifying(&head, &text, &found.symptom, telling, &written);
        let shrunk = (small_text, small.len());
        let Some((k, how)) = smaller_than else {
            self.reports.add((kind, found.root), shrunk, found.symptom, written.ok());
            return message;
        };
        let events = counted(self.reports.events(k) as u64, "event", "events");
        let (named, old) = self.reports.replace(k, kind, shrunk, found.symptom, written.ok());
        message.push_str(&format!(
            "\n  the same divergence as {} above ({how}), which took {events}: this report replaces it",
            named.id()
        ));
        match old.map(|path| (saved::remove(&path), path)) {
            Some((Ok(()), path)) => {
                message.push_str(&format!(", and its test {} is removed", path.display()))
            }
            Some((Err(e), path)) => message
                .push_str(&format!("; its test {} could not be removed: {e}", path.display())),
            None => {}
        }
        message
    }

    /// Ends the session's report: the stop, the summary and the closing
    /// line; the session's error, if it could not do its work.
    pub(super) fn finish(
        mut self,
        reporter: &mut dyn FuzzReporter,
        began: Instant,
    ) -> Result<super::Fuzzed, FuzzError> {
        let stopped = self.why;
        if let Some(e) = self.write_error.take() {
            let earned = crate::status::Status::failed_if(self.reports.len() > 0);
            return Err(crate::status::WriteError::earned(e, earned).into());
        }
        reporter.report(&FuzzEvent::Stopped)?;
        if let Some(failure) = self.oracle_failure.take() {
            return Err(FuzzError::OracleFailed(failure));
        }
        if let Some(e) = self.trouble.take().or(self.save_failed.take()) {
            return Err(e);
        }
        let stalled = (stopped == Some(Stop::Stalled)).then(|| self.say_stalled());
        let unchecked = self.unchecked(stopped);
        let divergences = self.reports.len();
        let runs = self.runs;
        let summary = Summary {
            stalled,
            unchecked: unchecked.as_deref(),
            signal: match stopped {
                Some(Stop::Signal(name)) => Some((name, began.elapsed())),
                _ => None,
            },
            flaky: (self.flaky, self.options.timeout),
            reports: &self.reports,
            runs,
            covered: self
                .covered
                .iter()
                .filter(|b| b.in_batch() && !self.exclude.contains(*b))
                .count(),
            total: self.total,
        };
        let earned = crate::status::Status::failed_if(divergences > 0 || unchecked.is_some());
        reporter
            .report(&FuzzEvent::Finished(&summary))
            .map_err(|e| crate::status::WriteError::earned(e, earned))?;
        // The summary counts the runs that ran; the session did not do its work.
        if let Some(why) = self.cannot_start.take() {
            let again = super::RESTART_AFTER.as_secs_f64();
            return Err(FuzzError::Program(format!(
                "{why} (after {}, and again {again} s later)",
                counted(runs, "run", "runs")
            )));
        }
        Ok(super::Fuzzed { runs, divergences, stopped, unchecked: unchecked.is_some() })
    }

    /// What a session that found nothing left unchecked, when that makes
    /// its "no divergence" untrue: no run finished at all, or runs that
    /// timed out were not run again alone before the time ran out.
    fn unchecked(&self, stopped: Option<Stop>) -> Option<String> {
        if self.reports.len() > 0 || !matches!(stopped, None | Some(Stop::Time)) {
            return None;
        }
        let timeout = self.options.timeout.as_secs_f64();
        let unconfirmed = self.unconfirmed;
        if self.finished > 0 {
            return (unconfirmed > 0).then(|| {
                format!(
                    "{} not finish in {timeout} s and {} being run again alone when the time ran out: whether the program hangs there is not known, so this is no pass; give the session more --time.\n",
                    counted(unconfirmed, "run did", "runs did"),
                    if unconfirmed == 1 { "was" } else { "were" },
                )
            });
        }
        let mut what = Vec::new();
        if self.started == 0 {
            what.push(
                "the time ran out before the first run, while checking that the program starts (a run on an empty trace)".to_string(),
            );
        }
        if unconfirmed > 0 {
            what.push(format!(
                "the program did not finish in {timeout} s on {}, and was being run again alone (to tell a hang from a busy machine) when the time ran out",
                counted(unconfirmed, "trace", "traces")
            ));
        }
        let running = self.started.saturating_sub(self.runs + unconfirmed);
        if running > 0 {
            what.push(format!(
                "{} still going when the time ran out",
                counted(running, "run was", "runs were")
            ));
        }
        let within = match self.options.time {
            Some(time) => format!(" within the session's {} s", time.as_secs_f64()),
            None => String::new(),
        };
        Some(format!(
            "No run finished{within}, so nothing was checked: {}. Give the session more --time, or find out why the program is slow or hangs: run it yourself as `{} -b TRACE`.\n",
            what.join("; "),
            self.options.program.join(" ")
        ))
    }

    /// Says why a session stopped on a program that failed on every trace,
    /// and names the smallest trace it failed on: the report that holds it,
    /// or else that trace saved as it was (shrinking it would cost a
    /// timeout a try).
    fn say_stalled(&mut self) -> String {
        let stalls = &self.stalls;
        // Each way it failed, with how many traces it failed on so.
        let mut ways: Vec<(String, usize)> = Vec::new();
        for (_, found) in stalls {
            let how = found.symptom.failed_how(self.options.timeout);
            match ways.iter_mut().find(|(h, _)| *h == how) {
                Some((_, n)) => *n += 1,
                None => ways.push((how, 1)),
            }
        }
        let what = match &ways[..] {
            [(how, _)] => how.clone(),
            _ => {
                ways.iter().map(|(how, n)| format!("{how} ({n})")).collect::<Vec<_>>().join(" or ")
            }
        };
        let mut text = format!(
            "Stopped: the program {what} on {} different traces, and no run of it has finished with output: it seems to fail on every trace, and more runs would only show that again.\n",
            stalls.len()
        );
        // What it said on the last of them that said anything: why it fails.
        if let Some((_, found)) = stalls.iter().rev().find(|s| !s.1.symptom.stderr.is_empty()) {
            let heading = "Its standard error on the last of them";
            text.push_str(&report::stderr_tail(&found.symptom.stderr, "", heading));
        }
        let Some((trace, found)) = stalls.iter().min_by_key(|s| s.0.len()) else { return text };
        let kind = found.kind;
        let said = match self.reports.saved_for(kind, found.root) {
            Some(path) => {
                format!("The smallest trace it failed on is saved above: {}", path.display())
            }
            None => {
                let events = trace.len();
                let trace = trace.text();
                let saved = save(&self.options.out, kind.id(), &trace, &found.wanted);
                let said = match &saved {
                    Ok(path) => format!(
                        "The smallest trace it failed on, saved as it was (not shrunk): {}",
                        path.display()
                    ),
                    Err(why) => {
                        format!("The smallest trace it failed on could not be saved: {why}")
                    }
                };
                let shrunk = (trace, events);
                self.reports.add((kind, found.root), shrunk, found.symptom.clone(), saved.ok());
                said
            }
        };
        text.push_str(&said);
        text.push('\n');
        text
    }
}

/// The events of `trace` up to the first command that shows `kind`'s
/// behaviour: no shrunk trace of that kind needs more (a kind that names
/// no behaviour, or a rejected trace, may need them all).
fn reached_within(trace: &Trace, kind: Kind) -> usize {
    let Kind::Behaviour(behaviour) = kind else { return trace.len() };
    let expected = Expected::of(&trace.text());
    match expected.steps.iter().position(|&(_, b)| b == behaviour) {
        // Step 0 is the initial state; step k the k-th command.
        Some(k) if expected.status == 0 => k,
        _ => trace.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::program::Exit;
    use crate::fuzz::report::Ended;
    use crate::fuzz::schedule::Draws;
    use crate::fuzz::trace::Item;

    fn options() -> Options {
        Options {
            program: vec!["prog".into()],
            oracle: None,
            runs: 100,
            time: None,
            seed: Some(1),
            out: "out".into(),
            jobs: 2,
            timeout: Duration::from_secs(1),
            max_lines: 10,
            exclude: Vec::new(),
            check_status: false,
            save_traces: None,
        }
    }

    fn trace(events: usize) -> Trace {
        Trace { items: (0..events).map(|_| Item::new("undo", "\n")).collect() }
    }

    /// A divergence of `kind` (a hang times out).
    fn found(kind: Kind, root: bool) -> Box<Found> {
        let wanted = b"  ok\n".to_vec();
        let symptom = match kind {
            Kind::Hang => report::Symptom::unfinished(Ended::TimedOut),
            _ => report::Symptom::of(&wanted, b"  no\n", Ended::Exited(Exit::Status(0)), Some(0)),
        };
        Box::new(Found { kind, root, wanted, symptom })
    }

    fn diverged(events: usize, kind: Kind, root: bool) -> Event {
        let divergence = Some((trace(events), found(kind, root)));
        Event::Ran { worker: 1, run: events as u64, coverage: Coverage::default(), divergence }
    }

    /// A coordinator of two workers, and what each hears.
    fn coordinator<'a>(
        options: &'a Options,
        interrupt: &'a AtomicBool,
    ) -> (Coordinator<'a>, Vec<mpsc::Receiver<Note>>) {
        let (channels, receivers): (Vec<_>, Vec<_>) = (0..2).map(|_| mpsc::channel()).unzip();
        let draws = Draws::new(1, Default::default(), options.runs, 2);
        let schedule = Schedule::new(2, draws);
        (
            Coordinator::new(options, interrupt, channels, schedule, None, Coverage::default()),
            receivers,
        )
    }

    /// The verdicts a worker heard.
    fn verdicts(notes: &mpsc::Receiver<Note>) -> Vec<Verdict> {
        let verdict = |note| match note {
            Note::Verdict(v) => Some(v),
            _ => None,
        };
        notes.try_iter().filter_map(verdict).collect()
    }

    /// Whether the traces a worker was handed have their timeouts run again alone.
    fn confirmed(notes: &mpsc::Receiver<Note>) -> Vec<bool> {
        let run = |note| match note {
            Note::Run(_, confirm) => Some(confirm),
            _ => None,
        };
        notes.try_iter().filter_map(run).collect()
    }

    #[test]
    fn each_new_kind_is_shrunk_once_and_a_root_fault_once_whatever_its_kind() {
        let (options, stop) = (options(), AtomicBool::new(false));
        let (mut coordinator, receivers) = coordinator(&options, &stop);
        let first = Kind::Behaviour(crate::behaviour::Behaviour::ALL[0]);
        let other = Kind::Behaviour(crate::behaviour::Behaviour::ALL[1]);
        for event in [
            diverged(3, first, true),
            diverged(4, first, false),
            diverged(5, other, true),
            diverged(6, Kind::Crash, false),
        ] {
            assert_eq!(coordinator.take(event), None);
        }
        let shrink_known = [Verdict::Shrink, Verdict::Known, Verdict::Known, Verdict::Shrink];
        assert_eq!(verdicts(&receivers[1]), shrink_known);
        assert_eq!(coordinator.runs, 4);
        assert!(!stop.load(Ordering::Relaxed));
    }

    #[test]
    fn once_a_hang_is_found_timeouts_are_no_longer_run_again() {
        let (options, stop) = (options(), AtomicBool::new(false));
        let (mut coordinator, receivers) = coordinator(&options, &stop);
        coordinator.hand_out(None);
        assert_eq!((confirmed(&receivers[0]), confirmed(&receivers[1])), (vec![true], vec![true]));
        coordinator.take(Event::Ran {
            worker: 0,
            run: 0,
            coverage: Coverage::default(),
            divergence: None,
        });
        coordinator.take(diverged(3, Kind::Hang, false));
        coordinator.hand_out(None);
        assert_eq!(confirmed(&receivers[0]), [false]);
        assert_eq!(verdicts(&receivers[1]), [Verdict::Shrink]);
    }

    #[test]
    fn the_stalls_th_different_trace_the_program_hangs_on_stops_the_session() {
        let (options, stop) = (options(), AtomicBool::new(false));
        let (mut coordinator, _receivers) = coordinator(&options, &stop);
        // The same trace twice is one stall.
        for events in [1, 1].into_iter().chain(2..STALLS) {
            coordinator.take(diverged(events, Kind::Hang, false));
        }
        assert!(!stop.load(Ordering::Relaxed));
        assert_eq!(coordinator.why, None);
        coordinator.take(diverged(STALLS, Kind::Hang, false));
        assert!(stop.load(Ordering::Relaxed));
        assert_eq!(coordinator.why, Some(Stop::Stalled));
        coordinator.take(Event::RanAlone { worker: 1, flaky: true, cut: false });
        coordinator.take(Event::CannotStart("gone".into()));
        // The first reason stays.
        assert_eq!((coordinator.why, coordinator.flaky), (Some(Stop::Stalled), 1));
    }

    /// A run that printed something: the program does not fail on every
    /// trace, and its hangs are divergences like others (attack 37's A5:
    /// a program hanging on one run in five was told it fails on all).
    #[test]
    fn once_a_run_printed_hangs_never_stop_the_session() {
        let (options, stop) = (options(), AtomicBool::new(false));
        let (mut coordinator, _receivers) = coordinator(&options, &stop);
        coordinator.take(diverged(1, Kind::Hang, false));
        let passed =
            Event::Ran { worker: 0, run: 0, coverage: Coverage::default(), divergence: None };
        coordinator.take(passed);
        for events in 2..=2 * STALLS {
            coordinator.take(diverged(events, Kind::Hang, false));
        }
        assert_eq!(coordinator.why, None);
        assert!(!stop.load(Ordering::Relaxed));
    }

    /// A crash's shrink (its tries take milliseconds) goes on to its end
    /// when the program failed on its first traces; the stop comes after
    /// it, unless a run printed meanwhile (A5: a crash on a tab was left a
    /// trace of 30 lines).
    #[test]
    fn a_crash_being_shrunk_is_shrunk_to_its_end_before_the_stop() {
        let dir = tempfile::tempdir().expect("dir");
        let options = Options { out: dir.path().join("found"), ..options() };
        let silent = |events: usize| {
            let wanted = b"  ok\n".to_vec();
            let crashed = Ended::Exited(Exit::Crashed("killed by signal 11 (SIGSEGV)".into()));
            let symptom = report::Symptom::of(&wanted, b"", crashed, Some(0));
            let kind = Kind::Behaviour(crate::behaviour::Behaviour::InitialState);
            (trace(events), Found { kind, root: true, wanted, symptom })
        };
        let ran = |events: usize| {
            let divergence = Some((silent(events).0, Box::new(silent(events).1)));
            Event::Ran { worker: 1, run: events as u64, coverage: Coverage::default(), divergence }
        };
        for printed_meanwhile in [false, true] {
            let stop = AtomicBool::new(false);
            let (mut coordinator, receivers) = coordinator(&options, &stop);
            for events in 1..=STALLS {
                coordinator.take(ran(events));
            }
            assert_eq!(verdicts(&receivers[1])[0], Verdict::Shrink);
            assert_eq!(coordinator.why, None, "the shrink goes on");
            if printed_meanwhile {
                let passed = Event::Ran {
                    worker: 0,
                    run: 9,
                    coverage: Coverage::default(),
                    divergence: None,
                };
                coordinator.take(passed);
            }
            let (small, found) = silent(1);
            let text = small.text();
            let shrunk = Shrunk {
                worker: 1,
                run: 1,
                from: 1,
                began: Instant::now(),
                small,
                wanted: Some(found.wanted.clone()),
                found,
                cut: false,
                text,
            };
            coordinator.take(Event::Shrunk(Box::new(shrunk)));
            let stopped = (!printed_meanwhile).then_some(Stop::Stalled);
            assert_eq!(coordinator.why, stopped);
            assert_eq!(stop.load(Ordering::Relaxed), !printed_meanwhile);
        }
    }

    /// A divergence reported shrunk to 7 events, met again by another kind
    /// whose first command shows it (the same text printed wrongly), is
    /// shrunk again and told in its report's place, its test replacing
    /// the larger one (attack 38's C4: `Jo\"e` misprinted was reported
    /// after a finished round of 6 plays). Met again in more events, it
    /// joins the report as before.
    #[test]
    fn the_same_divergence_met_in_fewer_events_replaces_its_report() {
        use crate::behaviour::Behaviour;
        let dir = tempfile::tempdir().expect("dir");
        let options = Options { out: dir.path().join("found"), ..options() };
        let stop = AtomicBool::new(false);
        let (mut coordinator, receivers) = coordinator(&options, &stop);
        let misprinted = |behaviour: Behaviour| {
            let wanted = b"  ok\n->new_game(\"Jo\\\"e\",\"A b\")\n".to_vec();
            let got = b"  ok\n->new_game(\"Jo\"e\",\"A b\")\n";
            let symptom =
                report::Symptom::of(&wanted, got, Ended::Exited(Exit::Status(0)), Some(0));
            Found { kind: Kind::Behaviour(behaviour), root: false, wanted, symptom }
        };
        let ran = |run: u64, trace: &Trace, found: Found| Event::Ran {
            worker: 1,
            run,
            coverage: Coverage::default(),
            divergence: Some((trace.clone(), Box::new(found))),
        };
        let shrunk = |run: u64, small: Trace, found: Found| {
            Event::Shrunk(Box::new(Shrunk {
                worker: 1,
                run,
                from: 50,
                began: Instant::now(),
                text: small.text(),
                small,
                wanted: Some(found.wanted.clone()),
                found,
                cut: false,
            }))
        };
        coordinator.take(ran(3, &trace(50), misprinted(Behaviour::NewGameAfterRound)));
        let told = coordinator.take(shrunk(3, trace(7), misprinted(Behaviour::NewGameAfterRound)));
        assert!(told.expect("told").starts_with("Divergence: new-game-after-round"));
        let first = Trace {
            items: vec![Item::new("new_game(\"Jo\\\"e\",\"A b\")", "\n"), Item::new("undo", "\n")],
        };
        assert_eq!(coordinator.take(ran(99, &first, misprinted(Behaviour::NewGameFirst))), None);
        assert_eq!(verdicts(&receivers[1]), [Verdict::Shrink, Verdict::Shrink]);
        let small = Trace { items: first.items[..1].to_vec() };
        let told = coordinator.take(shrunk(99, small, misprinted(Behaviour::NewGameFirst)));
        let told = told.expect("told");
        let found = options.out.display();
        assert!(told.starts_with("Divergence: new-game-first"), "{told}");
        assert!(
            told.ends_with(&format!(
                "\n  the same divergence as new-game-after-round above (the same line of output differs the same way), which took 7 events: this report replaces it, and its test {found}/new-game-after-round-1.txt is removed"
            )),
            "{told}"
        );
        let mut left: Vec<_> = std::fs::read_dir(&options.out)
            .expect("found")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["new-game-first-1.expected.txt", "new-game-first-1.txt"]);
        // Met again in more events: one report still, named as it now is.
        let told = coordinator.take(ran(120, &trace(50), misprinted(Behaviour::NewGameInPlay)));
        assert!(told.expect("told").contains("the same divergence as new-game-first above"));
        assert_eq!(
            coordinator.reports.recap(),
            format!(
                "Found 1 divergence:\n  new-game-first, new-game-after-round, new-game-in-play: output line 2, {found}/new-game-first-1.txt\n"
            )
        );
    }
}
