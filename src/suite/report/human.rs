//! The report for people: the suite run when tictac chose it, a line per
//! test, what a failure needs under it, the closing line. `--quiet` leaves
//! out the passes, and the first line unless it warns.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{BuildFailed, Heading, Reporter, TestEvent, summary};
use crate::suite::{Diff, Test, TestResult, Verdict};

pub(crate) struct Human<'a> {
    out: Box<dyn Write + 'a>,
    color: bool,
    quiet: bool,
    heading: Option<Heading>,
    /// The failures held back while every test so far failed the same way.
    same: Same,
}

impl<'a> Human<'a> {
    pub(crate) fn new(
        out: Box<dyn Write + 'a>,
        color: bool,
        quiet: bool,
        heading: Option<Heading>,
    ) -> Human<'a> {
        Human { out, color, quiet, heading, same: Same::Holding(Vec::new()) }
    }
}

/// Failures the same from the first test on (the same headline, the same
/// standard error: a program started from the wrong folder, an interpreter
/// missing) are held back, to be said once, in one line before their
/// diffs: `The program failed the same way on all 46 tests: ...`.
enum Same {
    Holding(Vec<(Test, TestResult)>),
    /// A test ended otherwise, or too much was held: each as it comes.
    Broken,
}

/// Held back at most this many failures, or this many bytes of them.
const HOLD: usize = 1_000;
const HOLD_BYTES: usize = 16 << 20;

/// Whether a failure may be one of a kind: its run went wrong (not only
/// its output), and it said something on standard error.
fn telling(result: &TestResult) -> bool {
    matches!(result.verdict, Verdict::Broke(..) | Verdict::CannotRun(_))
        && !result.stderr.is_empty()
}

/// Whether two failures are the same: both telling, with the same headline
/// and the same end of standard error.
fn alike(a: &TestResult, b: &TestResult) -> bool {
    telling(a) && telling(b) && a.verdict.headline() == b.verdict.headline() && a.stderr == b.stderr
}

impl Human<'_> {
    /// The failures held, after the line saying they failed the same way
    /// (of `all` of them, or the first ones) when they are more than one.
    fn release(&mut self, all: bool) -> io::Result<()> {
        let Same::Holding(held) = std::mem::replace(&mut self.same, Same::Broken) else {
            return Ok(());
        };
        if let Some((_, first)) = held.first().filter(|_| held.len() > 1) {
            let which = if all { "all" } else { "the first" };
            let last = first.stderr.last().map(String::as_str).unwrap_or_default();
            writeln!(
                self.out,
                "The program failed the same way on {which} {} tests: {}, its standard error ending: {last}",
                held.len(),
                first.verdict.headline().unwrap_or_default()
            )?;
        }
        for (test, result) in &held {
            print_outcome(&mut *self.out, test, result, self.color)?;
        }
        Ok(())
    }

    /// Holds a failure like those held so far; false when it is not one.
    fn hold(&mut self, test: &Test, result: &TestResult) -> bool {
        let Same::Holding(held) = &mut self.same else { return false };
        let like = match held.first() {
            None => telling(result),
            Some((_, first)) => alike(first, result),
        };
        if !like {
            return false;
        }
        held.push((test.clone(), result.clone()));
        true
    }

    /// Whether the failures held are past what is held back.
    fn holds_too_much(&self) -> bool {
        match &self.same {
            Same::Holding(held) => {
                held.len() >= HOLD
                    || held.iter().map(|(_, r)| r.weight()).sum::<usize>() > HOLD_BYTES
            }
            Same::Broken => false,
        }
    }
}

impl Reporter for Human<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        match *event {
            TestEvent::Started { tests, build, notes } => {
                match &self.heading {
                    Some(heading) if heading.warns || !self.quiet => {
                        writeln!(self.out, "{}", heading.line(tests))?
                    }
                    _ => {}
                }
                for note in notes {
                    writeln!(self.out, "{note}")?;
                }
                for line in build.map(BuildFailed::lines).unwrap_or_default() {
                    writeln!(self.out, "{line}")?;
                }
            }
            TestEvent::Finished { test, result, .. } => {
                if self.hold(test, result) {
                    if self.holds_too_much() {
                        self.release(false)?;
                    }
                    return self.out.flush();
                }
                self.release(false)?;
                if self.quiet && !result.verdict.failed() {
                    return Ok(());
                }
                print_outcome(&mut *self.out, test, result, self.color)?;
            }
            TestEvent::Done { ref report } => {
                self.release(true)?;
                if let Some(said) = super::out_of_time(report) {
                    writeln!(self.out, "{said}")?;
                }
                if let Some(said) = super::unlogged(report) {
                    writeln!(self.out, "{said}")?;
                }
                writeln!(self.out, "{}", summary(report))?
            }
        }
        self.out.flush()
    }
}

/// One test: `PASS name (1.2 ms)`, `SKIP name: why` or `FAIL ...`, then
/// what failed (`exited with status 3`, `output differs`, `exit status
/// differs`), the command line run,
/// its notes, the end of its standard error and the diff or why, indented.
pub(super) fn print_outcome(
    out: &mut dyn Write,
    test: &Test,
    outcome: &TestResult,
    color: bool,
) -> io::Result<()> {
    use crossterm::style::Stylize;
    let ms = outcome.elapsed.as_secs_f64() * 1000.0;
    let (word, detail) = match &outcome.verdict {
        Verdict::Pass => ("PASS", None),
        Verdict::Skipped(why) => {
            let word = if color { "SKIP".yellow().to_string() } else { "SKIP".into() };
            return writeln!(out, "{word} {}: {why}", test.name);
        }
        Verdict::Differs(diff) | Verdict::StatusDiffers(diff) | Verdict::Broke(_, Some(diff)) => {
            ("FAIL", Some(shown(diff, color)))
        }
        Verdict::Broke(_, None) => ("FAIL", None),
        Verdict::NoExpected(why) => {
            ("FAIL", Some(Cow::Owned(format!("no expected output: {why}"))))
        }
        Verdict::CannotRun(why) => ("FAIL", Some(Cow::Borrowed(why.as_str()))),
        Verdict::NotBuilt => ("FAIL", Some(Cow::Borrowed(crate::suite::NOT_BUILT))),
        Verdict::OutOfTime(_) => ("FAIL", outcome.verdict.headline().map(Cow::Owned)),
    };
    let word = match (color, word) {
        (false, w) => w.to_string(),
        (true, "PASS") => word.green().to_string(),
        (true, w) => w.red().bold().to_string(),
    };
    writeln!(out, "{word} {} ({ms:.1} ms)", test.name)?;
    if let (Verdict::Differs(_) | Verdict::StatusDiffers(_) | Verdict::Broke(..), Some(headline)) =
        (&outcome.verdict, outcome.verdict.headline())
    {
        writeln!(out, "     {headline}")?;
    }
    if let Some(command) = &outcome.command {
        writeln!(out, "     command: {command}")?;
    }
    for note in &outcome.notes {
        writeln!(out, "     {note}")?;
    }
    if !outcome.stderr.is_empty() {
        let last = match outcome.stderr.first() {
            Some(first) if first.starts_with("... ") => " (its last lines)",
            _ => "",
        };
        writeln!(out, "     standard error{last}:")?;
        for line in &outcome.stderr {
            writeln!(out, "       {line}")?;
        }
    }
    if let Some(detail) = detail {
        for line in detail.lines() {
            writeln!(out, "     {line}")?;
        }
    }
    Ok(())
}

/// A diff as the report shows it: painted on a terminal.
fn shown(diff: &Diff, color: bool) -> Cow<'_, str> {
    match color {
        true => Cow::Owned(diff.painted()),
        false => Cow::Borrowed(diff.text.as_str()),
    }
}
