//! `--format gradescope`: the `results.json` of Gradescope's autograder
//! specification, on standard output when the suite ends (the report for
//! people goes on beside it, on standard error, as under `--format junit`).
//! Each test is worth its `-- points: N` (default 1); a failure's output is
//! what the human report shows under it.

use std::io::{self, Write};
use std::time::Instant;

use serde_json::{Value, json};

use super::human::{Human, print_outcome};
use super::{Reporter, TestEvent};
use crate::suite::{Verdict, plan};

pub(crate) struct Gradescope<'a> {
    json: &'a mut dyn Write,
    people: Human<'a>,
    tests: Vec<Value>,
    score: u64,
    start: Instant,
}

impl<'a> Gradescope<'a> {
    pub(crate) fn new(json: &'a mut dyn Write, people: Human<'a>) -> Gradescope<'a> {
        Gradescope { json, people, tests: Vec::new(), score: 0, start: Instant::now() }
    }
}

impl Reporter for Gradescope<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        // People's report: it may be closed, the results count.
        let _ = self.people.report(event);
        match *event {
            TestEvent::Started { .. } => Ok(()),
            TestEvent::Finished { test, result, .. } => {
                if let Verdict::Skipped(_) = result.verdict {
                    return Ok(());
                }
                let max = plan::points(&test.trace);
                let passed = result.verdict == Verdict::Pass;
                let score = if passed { max } else { 0 };
                self.score += score;
                let mut output = Vec::new();
                if !passed {
                    print_outcome(&mut output, test, result, false)?;
                }
                self.tests.push(json!({
                    "name": test.name,
                    "score": score,
                    "max_score": max,
                    "status": if passed { "passed" } else { "failed" },
                    "output": String::from_utf8_lossy(&output),
                }));
                Ok(())
            }
            TestEvent::Done { .. } => {
                let results = json!({
                    "score": self.score,
                    "execution_time": self.start.elapsed().as_secs(),
                    "tests": std::mem::take(&mut self.tests),
                });
                serde_json::to_writer_pretty(&mut *self.json, &results)?;
                self.json.write_all(b"\n")?;
                self.json.flush()
            }
        }
    }
}
