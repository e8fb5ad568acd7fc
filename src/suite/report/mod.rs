//! How `tictac test` reports. The runner emits `TestEvent`s in the order of the
//! tests; each format is one `Reporter` that consumes them (as nextest's
//! reporters consume its test events): `human` (with `--quiet`, without the
//! passes), `tap`, `junit`, `gradescope`. A new format is one file here and one arm of
//! `for_format`.

mod gradescope;
mod human;
mod junit;
mod tap;

use std::io::{self, Write};

use super::build::BuildFailed;
use super::{Report, Test, TestResult};
use crate::cli::options::Format;

/// What the runner tells its reporter.
pub(crate) enum TestEvent<'a> {
    /// Before any test runs; `build` when the build step failed (then
    /// every test is `NotBuilt`); `notes`, said once before the tests (a
    /// program not where its command names it).
    Started { tests: usize, build: Option<&'a BuildFailed>, notes: &'a [String] },
    /// A test ended; the events come in the tests' sorted order, `number`
    /// counting from 1.
    Finished { number: usize, test: &'a Test, result: &'a TestResult },
    /// After the last test.
    Done { report: Report },
}

/// The first line of the report when tictac chose the suite (no PATH, or
/// `--course`): `Running acceptance/ (12 tests).`, with why or a warning
/// after the count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Heading {
    /// `acceptance/`, `the built-in course suite`.
    pub(crate) suite: String,
    /// Said after the count: `""`, `": no acceptance/ ... here"`.
    pub(crate) then: String,
    /// Said under `--quiet` too: it tells what the command line did not.
    pub(crate) warns: bool,
}

impl Heading {
    pub(crate) fn line(&self, tests: usize) -> String {
        let plural = if tests == 1 { "" } else { "s" };
        format!("Running {} ({tests} test{plural}){}.", self.suite, self.then)
    }
}

/// One report format. An error is the output's: the run stops at it.
pub(crate) trait Reporter {
    fn report(&mut self, event: &TestEvent) -> io::Result<()>;
}

/// The reporter for `format`, writing to `out`; `people` takes the report
/// for people when `out` gets a document (JUnit).
pub(crate) fn for_format<'a>(
    format: Format,
    quiet: bool,
    color: bool,
    heading: Option<&Heading>,
    out: &'a mut dyn Write,
    people: &'a mut dyn Write,
) -> Box<dyn Reporter + 'a> {
    let heading = heading.cloned();
    match format {
        Format::Human => Box::new(human::Human::new(Box::new(out), color, quiet, heading)),
        // A comment after the plan: the document stays TAP.
        Format::Tap => Box::new(tap::Tap { out, heading }),
        Format::Junit => {
            let people = human::Human::new(Box::new(people), color, quiet, heading);
            Box::new(junit::Junit::new(Box::new(out), people))
        }
        Format::Gradescope => {
            let people = human::Human::new(Box::new(people), color, quiet, heading);
            Box::new(gradescope::Gradescope::new(out, people))
        }
    }
}

/// The human report into `people` and a JUnit document into `xml` whose
/// suite is named `name` (one per student under `tictac grade`, who owns
/// the files): a write that fails in either stops the run.
pub(crate) fn junit_named<'a>(
    name: &str,
    xml: Box<dyn Write + 'a>,
    people: Box<dyn Write + 'a>,
) -> Box<dyn Reporter + 'a> {
    let people = human::Human::new(people, false, false, None);
    Box::new(junit::Junit::new(xml, people).named(name))
}

/// Said before the closing line when the whole run's time (`--total-time`)
/// ran out before some tests: how many, and how many timed out before.
fn out_of_time(report: &Report) -> Option<String> {
    let (limit, unrun) = report.out_of_time?;
    let tests = |n: usize| if n == 1 { "1 test".to_string() } else { format!("{n} tests") };
    let timed_out = match report.timed_out {
        0 => String::new(),
        n => format!(
            " The program timed out on {} of those that ran: make it end on every trace.",
            tests(n)
        ),
    };
    Some(format!(
        "Not every test ran: the run's time limit, {} s, ran out before the last {} of the {} could start, and each of them fails.{timed_out}",
        limit.as_secs_f64(),
        tests(unrun),
        report.total,
    ))
}

/// Said before the closing line when `--log` files could not be written
/// (a folder removed, made read-only, a full disk, after the run began):
/// how many tests' logs, and why the first's, once. The run exits 2.
fn unlogged(report: &Report) -> Option<String> {
    let (tests, first) = report.unlogged.as_ref()?;
    Some(match tests {
        1 => format!("error: the log of 1 test could not be written (--log): {first}"),
        n => {
            format!("error: the logs of {n} tests could not be written (--log); the first, {first}")
        }
    })
}

/// The closing line, `Test Results: P/N passed.`, N the tests run, and
/// `, S skipped` before the period when some were skipped.
fn summary(report: &Report) -> String {
    let Report { passed, total, skipped, .. } = *report;
    let line = match skipped {
        0 => format!("Test Results: {passed}/{total} passed."),
        _ => format!("Test Results: {passed}/{total} passed, {skipped} skipped."),
    };
    match total {
        0 => format!("{line} {NO_TEST_RAN}"),
        _ => line,
    }
}

/// Said when every test was skipped: each format says it as a failure
/// (TAP's `Bail out!`, a JUnit `<error>`, Gradescope's `output`).
const NO_TEST_RAN: &str = "No test ran: every one was skipped, so nothing was checked.";

#[cfg(test)]
mod tests;
