//! The report for people: the suite run when tictac chose it, a line per
//! test, what a failure needs under it, the closing line. `--quiet` leaves
//! out the passes, and the first line unless it warns.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{BuildFailed, Heading, Reporter, TestEvent, summary};
use crate::suite::{Diff, Test, TestResult, Verdict};

pub(crate) struct Human<'a> {
    pub(crate) out: Box<dyn Write + 'a>,
    pub(crate) color: bool,
    pub(crate) quiet: bool,
    pub(crate) heading: Option<Heading>,
}

impl Reporter for Human<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        match *event {
            TestEvent::Started { tests, build } => {
                match &self.heading {
                    Some(heading) if heading.warns || !self.quiet => {
                        writeln!(self.out, "{}", heading.line(tests))?
                    }
                    _ => {}
                }
                for line in build.map(BuildFailed::lines).unwrap_or_default() {
                    writeln!(self.out, "{line}")?;
                }
            }
            TestEvent::Finished { test, result, .. } => {
                if self.quiet && !result.verdict.failed() {
                    return Ok(());
                }
                print_outcome(&mut *self.out, test, result, self.color)?;
            }
            TestEvent::Done { report } => writeln!(self.out, "{}", summary(report))?,
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
