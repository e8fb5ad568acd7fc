//! How `tictac fuzz` reports: the session emits `FuzzEvent`s and a
//! `FuzzReporter` writes them. On a terminal the progress line is redrawn in
//! place; elsewhere (a pipe, a CI log) it is a line every ten seconds.

use std::io::{self, Write};
use std::time::{Duration, Instant};

/// What a session tells its reporter.
pub(crate) enum FuzzEvent<'a> {
    /// Before the first run: what is fuzzed against what, and how.
    Started { program: &'a str, against: &'a str, seed: u64, runs: u64, jobs: usize },
    /// A new kind of divergence, as its message.
    Found(&'a str),
    /// Where the session stands (asked about four times a second).
    Progress { runs: u64, rate: f64, covered: usize, total: usize, divergences: usize },
    /// The runs are over (or were stopped): the progress line goes.
    Stopped,
    /// The summary.
    Done {
        flaky: u64,
        timeout: Duration,
        runs: u64,
        covered: usize,
        total: usize,
        divergences: usize,
    },
}

/// One way to report a session. An error is the output's: the session
/// stops at it.
pub(crate) trait FuzzReporter {
    fn report(&mut self, event: &FuzzEvent, out: &mut dyn Write) -> io::Result<()>;
}

/// The report for people.
pub(crate) struct Human {
    /// The progress line is redrawn in place.
    terminal: bool,
    last_line: Instant,
}

impl Human {
    pub(crate) fn new(terminal: bool) -> Human {
        Human { terminal, last_line: Instant::now() }
    }

    /// How often a progress line is written.
    fn every(&self) -> Duration {
        if self.terminal { Duration::ZERO } else { Duration::from_secs(10) }
    }
}

/// Clears the terminal's line.
const CLEAR: &str = "\r\x1b[2K";

impl FuzzReporter for Human {
    fn report(&mut self, event: &FuzzEvent, out: &mut dyn Write) -> io::Result<()> {
        match *event {
            FuzzEvent::Started { program, against, seed, runs, jobs } => {
                writeln!(
                    out,
                    "Fuzzing '{program}' against {against}: seed {seed}, up to {runs} runs, {jobs} jobs"
                )?;
                self.last_line = Instant::now();
            }
            FuzzEvent::Found(message) => {
                let clear = if self.terminal { CLEAR } else { "" };
                writeln!(out, "{clear}{message}")?;
            }
            FuzzEvent::Progress { runs, rate, covered, total, divergences } => {
                if self.last_line.elapsed() < self.every() {
                    return Ok(());
                }
                self.last_line = Instant::now();
                let line = format!(
                    "{runs} runs, {rate:.0} runs/s, {covered}/{total} behaviours covered, {divergences} divergences"
                );
                if self.terminal {
                    write!(out, "{CLEAR}{line}")?;
                } else {
                    writeln!(out, "{line}")?;
                }
            }
            FuzzEvent::Stopped if self.terminal => write!(out, "{CLEAR}")?,
            FuzzEvent::Stopped => {}
            FuzzEvent::Done { flaky, timeout, runs, covered, total, divergences } => {
                if flaky > 0 {
                    writeln!(
                        out,
                        "{flaky} {} not finish in {} s, then did when run again alone: a busy machine, no divergence.",
                        if flaky == 1 { "run did" } else { "runs did" },
                        timeout.as_secs_f64()
                    )?;
                }
                writeln!(
                    out,
                    "Fuzz Results: {runs} runs, {covered}/{total} behaviours covered, {divergences} divergences found."
                )?;
            }
        }
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session with a divergence and two flaky runs, as `terminal` or not
    /// reports it (escape and carriage return shown as `\e`, `\r`).
    fn reported(terminal: bool) -> String {
        let mut out = Vec::new();
        let mut human = Human::new(terminal);
        let progress = |runs| FuzzEvent::Progress {
            runs,
            rate: 1234.4,
            covered: 50,
            total: 64,
            divergences: usize::from(runs > 10),
        };
        let events = [
            FuzzEvent::Started {
                program: "./a.out -b",
                against: "the engine",
                seed: 7,
                runs: 1000,
                jobs: 2,
            },
            progress(10),
            FuzzEvent::Found("divergence (output): saved t/fuzz_1.txt"),
            progress(20),
            FuzzEvent::Stopped,
            FuzzEvent::Done {
                flaky: 2,
                timeout: Duration::from_millis(2500),
                runs: 1000,
                covered: 60,
                total: 64,
                divergences: 1,
            },
        ];
        for event in &events {
            human.report(event, &mut out).expect("vec");
        }
        String::from_utf8(out).expect("UTF-8").replace('\x1b', "\\e").replace('\r', "\\r")
    }

    #[test]
    fn on_a_terminal() {
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("fuzz_terminal", reported(true));
        });
    }

    #[test]
    fn in_a_log() {
        // The progress lines wait ten seconds: none in a moment.
        insta::with_settings!({ prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!("fuzz_log", reported(false));
        });
    }
}
