//! TAP version 13 (the Test Anything Protocol): the plan first (then the
//! suite run, when tictac chose it, as a comment), a line per test as it
//! ends, a failure's details as comments.

use std::io::{self, Write};

use super::human::print_outcome;
use super::{Heading, Reporter, TestEvent, summary};
use crate::suite::{Test, TestResult, Verdict};

pub(crate) struct Tap<'a> {
    pub(crate) out: &'a mut dyn Write,
    pub(crate) heading: Option<Heading>,
}

impl Reporter for Tap<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        match *event {
            TestEvent::Started { tests, build, notes } => {
                writeln!(self.out, "TAP version 13\n1..{tests}")?;
                if let Some(heading) = &self.heading {
                    writeln!(self.out, "# {}", heading.line(tests))?;
                }
                for note in notes {
                    writeln!(self.out, "# {note}")?;
                }
                for line in build.map(super::BuildFailed::lines).unwrap_or_default() {
                    writeln!(self.out, "# {}", line.trim_start())?;
                }
            }
            TestEvent::Finished { number, test, result } => {
                print_tap(self.out, number, test, result)?
            }
            TestEvent::Done { ref report } => {
                if let Some(said) = super::out_of_time(report) {
                    writeln!(self.out, "# {said}")?;
                }
                if let Some(said) = super::unlogged(report) {
                    writeln!(self.out, "# {said}")?;
                }
                writeln!(self.out, "# {}", summary(report))?;
                // A harness counts a bail-out as a failure; a plan of skips, as a pass.
                if report.total == 0 {
                    writeln!(self.out, "Bail out! {}", super::NO_TEST_RAN)?;
                }
            }
        }
        self.out.flush()
    }
}

/// One test as a TAP line; a failure's details follow as comments.
fn print_tap(
    out: &mut dyn Write,
    number: usize,
    test: &Test,
    outcome: &TestResult,
) -> io::Result<()> {
    // A `#` would start a TAP directive (`# TODO` makes a failure pass).
    let name = test.name.replace('#', "\\#");
    if let Verdict::Skipped(why) = &outcome.verdict {
        return writeln!(out, "ok {number} - {name} # SKIP {}", why.replace('#', "\\#"));
    }
    let mut shown = Vec::new();
    print_outcome(&mut shown, test, outcome, false)?;
    let ok = if outcome.verdict.failed() { "not ok" } else { "ok" };
    writeln!(out, "{ok} {number} - {name}")?;
    // The human report's lines after its first, as comments.
    for line in String::from_utf8_lossy(&shown).lines().skip(1) {
        writeln!(out, "# {}", line.strip_prefix("     ").unwrap_or(line))?;
    }
    Ok(())
}
