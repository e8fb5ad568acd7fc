//! The report for people: a line per test, what a failure needs under it,
//! the closing line. `--quiet` leaves out the passes.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{Reporter, TestEvent, summary};
use crate::suite::{Test, TestResult, Verdict};

pub(crate) struct Human<'a> {
    pub(crate) out: &'a mut dyn Write,
    pub(crate) color: bool,
    pub(crate) quiet: bool,
}

impl Reporter for Human<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        match *event {
            TestEvent::Started { .. } => return Ok(()),
            TestEvent::Finished { test, result, .. } => {
                if self.quiet && result.verdict == Verdict::Pass {
                    return Ok(());
                }
                print_outcome(self.out, test, result, self.color)?;
            }
            TestEvent::Done { passed, total } => writeln!(self.out, "{}", summary(passed, total))?,
        }
        self.out.flush()
    }
}

/// One test: `PASS name (1.2 ms)` or `FAIL ...`, then its notes, the start
/// of its standard error and why it failed, indented.
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
        Verdict::Differs(diff) if color => ("FAIL", Some(Cow::Owned(diff.painted()))),
        Verdict::Differs(diff) => ("FAIL", Some(Cow::Borrowed(diff.text.as_str()))),
        Verdict::NoExpected(path) => (
            "FAIL",
            Some(Cow::Owned(format!(
                "no expected output: {} is missing (run with --bless to create it)",
                path.display()
            ))),
        ),
        Verdict::CannotRun(why) => ("FAIL", Some(Cow::Borrowed(why.as_str()))),
    };
    let word = match (color, word) {
        (false, w) => w.to_string(),
        (true, "PASS") => word.green().to_string(),
        (true, w) => w.red().bold().to_string(),
    };
    writeln!(out, "{word} {} ({ms:.1} ms)", test.name)?;
    for note in &outcome.notes {
        writeln!(out, "     {note}")?;
    }
    if !outcome.stderr.is_empty() {
        writeln!(out, "     standard error:")?;
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
