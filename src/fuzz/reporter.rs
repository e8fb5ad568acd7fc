//! What a session tells as it goes, as events, and the reporter that turns
//! them into text: the opening line, each divergence when found, the
//! progress line, the summary. The session only emits events (as
//! `suite::report` does for `tictac test`); a new format is one more
//! `FuzzReporter`.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use super::counted;
use super::progress::Progress;
use super::report::Reports;

/// One thing a session has to tell.
pub(crate) enum FuzzEvent<'a> {
    Started(&'a Opening),
    /// A divergence's report, or a note on one (already joined to another).
    Found(&'a str),
    /// Where the session stands (sent every quarter of a second).
    Progress(&'a Progress),
    /// No more progress: the line is taken away before what follows.
    Stopped,
    Finished(&'a Summary<'a>),
}

/// What the opening line says.
pub(crate) struct Opening {
    pub(crate) program: String,
    /// `the engine`, or the oracle's command in quotes.
    pub(crate) against: String,
    pub(crate) seed: u64,
    /// `N runs`, or `N runs or S s`.
    pub(crate) bounds: String,
    pub(crate) jobs: usize,
}

/// How the session ended.
pub(crate) struct Summary<'a> {
    /// Why it stopped early, when a program failed on every trace.
    pub(crate) stalled: Option<String>,
    /// What a session that found nothing left unchecked, when it did.
    pub(crate) unchecked: Option<&'a str>,
    /// The signal that stopped it, and after how long.
    pub(crate) signal: Option<(&'a str, Duration)>,
    /// Runs that timed out, then finished when run again alone; and the
    /// timeout.
    pub(crate) flaky: (u64, Duration),
    pub(crate) reports: &'a Reports,
    pub(crate) runs: u64,
    pub(crate) covered: usize,
    pub(crate) total: usize,
}

/// Turns a session's events into its report.
pub(crate) trait FuzzReporter {
    fn report(&mut self, event: &FuzzEvent) -> io::Result<()>;
}

/// The report people read: on a terminal the progress line is redrawn in
/// place; elsewhere (a log, a pipe) it is a line of its own every `every`.
pub(crate) struct Human<'w> {
    out: &'w mut dyn Write,
    terminal: bool,
    every: Duration,
    last: Instant,
}

/// How often the progress line is printed when it cannot be redrawn.
pub(crate) const LOGGED_EVERY: Duration = Duration::from_secs(10);

/// Clears the terminal's line the progress is drawn on.
const CLEAR: &str = "\r\x1b[2K";

impl<'w> Human<'w> {
    pub(crate) fn new(out: &'w mut dyn Write, terminal: bool, every: Duration) -> Human<'w> {
        Human { out, terminal, every, last: Instant::now() }
    }

    fn clear(&self) -> &'static str {
        if self.terminal { CLEAR } else { "" }
    }
}

impl FuzzReporter for Human<'_> {
    fn report(&mut self, event: &FuzzEvent) -> io::Result<()> {
        let text = match event {
            FuzzEvent::Started(o) => format!(
                "Fuzzing '{}' against {}: seed {}, up to {}, {}\n",
                o.program,
                o.against,
                o.seed,
                o.bounds,
                counted(o.jobs as u64, "job", "jobs")
            ),
            FuzzEvent::Found(message) => format!("{}{message}\n", self.clear()),
            FuzzEvent::Progress(progress) if self.terminal => format!("{CLEAR}{}", progress.line()),
            FuzzEvent::Progress(progress) if self.last.elapsed() >= self.every => {
                self.last = Instant::now();
                format!("{}\n", progress.line())
            }
            FuzzEvent::Progress(_) => return Ok(()),
            FuzzEvent::Stopped => self.clear().to_string(),
            FuzzEvent::Finished(summary) => summary_text(summary),
        };
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }
}

fn summary_text(s: &Summary) -> String {
    let mut text = String::new();
    if let Some(stalled) = &s.stalled {
        text.push_str(stalled);
    }
    if let Some((name, after)) = s.signal {
        text.push_str(&format!(
            "Stopped by {name} after {:.1} s; what was found so far is kept.\n",
            after.as_secs_f64()
        ));
    }
    let (flaky, timeout) = s.flaky;
    if flaky > 0 {
        text.push_str(&format!(
            "{} not finish in {} s, then did when run again alone: the machine was busy, or the program hangs only now and then (a race, a read that waits for input); {} counted as a divergence.\n",
            counted(flaky, "run did", "runs did"),
            timeout.as_secs_f64(),
            if flaky == 1 { "not" } else { "none" },
        ));
    }
    text.push_str(s.unchecked.unwrap_or_default());
    text.push_str(&s.reports.recap());
    text.push_str(&format!(
        "Fuzz Results: {}, {}/{} behaviours covered, {} found.\n",
        counted(s.runs, "run", "runs"),
        s.covered,
        s.total,
        counted(s.reports.len() as u64, "divergence", "divergences")
    ));
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::behaviour::Behaviour;
    use crate::fuzz::expect::Kind;
    use crate::fuzz::program::Exit;
    use crate::fuzz::report::{Ended, Symptom};

    fn progress(runs: u64, divergences: usize) -> Progress {
        Progress {
            runs,
            all_runs: 1000,
            elapsed: Duration::from_secs(runs / 100),
            time_left: Some(Duration::from_secs(60 - runs / 100)),
            covered: 40 + runs as usize / 100,
            total: 64,
            divergences,
        }
    }

    /// A session that finds one divergence, another of the same cause, and
    /// is stopped by a signal, told to a terminal or to a log.
    fn session(terminal: bool) -> String {
        let opening = Opening {
            program: "python3 ttt.py".into(),
            against: "the engine".into(),
            seed: 7,
            bounds: "10000 runs or 60 s".into(),
            jobs: 2,
        };
        let mut reports = Reports::default();
        let symptom = Symptom::of(
            b"  ok\n  game ended in a tie\n",
            b"  ok\n  tie\n",
            Ended::Exited(Exit::Status(0)),
            Some(0),
        );
        let kind = Kind::Behaviour(Behaviour::ALL[0]);
        reports.add(
            (kind, false),
            (b"undo\n".to_vec(), 1),
            symptom,
            Some(PathBuf::from("fuzz-found/t-1.txt")),
        );
        let summary = Summary {
            stalled: None,
            unchecked: None,
            signal: Some(("SIGINT", Duration::from_millis(4200))),
            flaky: (2, Duration::from_secs(10)),
            reports: &reports,
            runs: 420,
            covered: 44,
            total: 64,
        };
        let mut out = Vec::new();
        let mut human = Human::new(&mut out, terminal, Duration::ZERO);
        let events = [
            FuzzEvent::Started(&opening),
            FuzzEvent::Progress(&progress(100, 0)),
            FuzzEvent::Found(
                "Divergence: tie (…), run 150, shrunk from 12 to 1 events in 0.01 s:\n    undo",
            ),
            FuzzEvent::Progress(&progress(200, 1)),
            FuzzEvent::Found("Also tie-again (…), run 300: the same divergence as tie above"),
            FuzzEvent::Progress(&progress(400, 1)),
            FuzzEvent::Stopped,
            FuzzEvent::Finished(&summary),
        ];
        for event in &events {
            human.report(event).expect("a Vec takes all");
        }
        String::from_utf8(out).expect("text")
    }

    #[test]
    fn a_session_told_to_a_log() {
        insta::assert_snapshot!("fuzz_log", session(false));
    }

    #[test]
    fn a_session_told_to_a_terminal() {
        // The escapes shown: each progress line is redrawn over the last.
        let text = session(true).replace('\r', "<CR>").replace('\x1b', "<ESC>");
        insta::assert_snapshot!("fuzz_terminal", text);
    }

    #[test]
    fn in_a_log_the_progress_is_a_line_every_so_often() {
        let mut out = Vec::new();
        let mut human = Human::new(&mut out, false, Duration::from_secs(3600));
        human.report(&FuzzEvent::Progress(&progress(100, 0))).expect("vec");
        human.report(&FuzzEvent::Found("Divergence: x")).expect("vec");
        assert_eq!(String::from_utf8(out).expect("text"), "Divergence: x\n");
    }
}
