//! `--format gradescope`: the `results.json` of Gradescope's autograder
//! specification, on standard output when the suite ends (the report for
//! people goes on beside it, on standard error, as under `--format junit`).
//! Each test is worth its `-- points: N` (default 1) and has its
//! `-- visibility: V` (default visible); a failure's output is what the
//! human report shows under it, without the diff when the test's expected
//! output is not visible (`TestResult::for_students`). The autograder's own
//! output (the human report, which keeps every diff) is hidden from
//! students when any test is.

use std::io::{self, Write};
use std::time::Instant;

use serde_json::{Value, json};

use super::human::{Human, print_outcome};
use super::{Reporter, TestEvent};
use crate::suite::Verdict;
use crate::suite::plan::{self, Visibility};
use crate::suite::points::Points;

pub(crate) struct Gradescope<'a> {
    json: &'a mut dyn Write,
    people: Human<'a>,
    tests: Vec<Value>,
    score: Points,
    /// Whether a test's expected output is hidden from students.
    hiding: bool,
    /// What is said once, before the tests: the results' own output.
    notes: Vec<String>,
    /// Why the build failed, the results' own output.
    build: Option<String>,
    start: Instant,
}

impl<'a> Gradescope<'a> {
    pub(crate) fn new(json: &'a mut dyn Write, people: Human<'a>) -> Gradescope<'a> {
        Gradescope {
            json,
            people,
            tests: Vec::new(),
            score: Points::ZERO,
            hiding: false,
            notes: Vec::new(),
            build: None,
            start: Instant::now(),
        }
    }
}

impl Reporter for Gradescope<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        // People's report: it may be closed, the results count.
        let _ = self.people.report(event);
        match *event {
            TestEvent::Started { build, notes, .. } => {
                self.notes = notes.to_vec();
                self.build = build.map(|b| b.lines().join("\n") + "\n");
                Ok(())
            }
            TestEvent::Finished { test, result, .. } => {
                if let Verdict::Skipped(_) = result.verdict {
                    return Ok(());
                }
                let max = plan::points(&test.trace);
                let visibility = plan::visibility(&test.trace);
                self.hiding |= visibility != Visibility::Visible;
                let passed = result.verdict == Verdict::Pass;
                let score = if passed { max } else { Points::ZERO };
                self.score = self.score + score;
                let mut output = Vec::new();
                if !passed {
                    print_outcome(&mut output, test, &result.for_students(visibility), false)?;
                }
                self.tests.push(json!({
                    "name": test.name,
                    "score": score.json(),
                    "max_score": max.json(),
                    "status": if passed { "passed" } else { "failed" },
                    "visibility": visibility.name(),
                    "output": String::from_utf8_lossy(&output),
                }));
                Ok(())
            }
            TestEvent::Done { ref report } => {
                let stdout = if self.hiding { "hidden" } else { "visible" };
                let mut results = json!({
                    "score": self.score.json(),
                    "visibility": Visibility::Visible.name(),
                    "stdout_visibility": stdout,
                    "execution_time": self.start.elapsed().as_secs(),
                    "tests": std::mem::take(&mut self.tests),
                });
                let mut output: String = self.notes.iter().map(|n| format!("{n}\n")).collect();
                if let Some(build) = self.build.take() {
                    output.push_str(&build);
                } else if report.total == 0 {
                    output.push_str(&format!("{}\n", super::NO_TEST_RAN));
                } else if let Some(said) = super::out_of_time(report) {
                    output.push_str(&format!("{said}\n"));
                }
                if let Some(said) = super::unlogged(report) {
                    output.push_str(&format!("{said}\n"));
                }
                if !output.is_empty() {
                    results["output"] = output.into();
                }
                serde_json::to_writer_pretty(&mut *self.json, &results)?;
                self.json.write_all(b"\n")?;
                self.json.flush()
            }
        }
    }
}
