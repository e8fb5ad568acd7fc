//! `--format junit`: the suite as JUnit XML, the form the test reporters of
//! Jenkins, GitLab and GitHub Actions read.
//!
//! The `<testsuite>` element carries the counts, so it can only be written
//! when the suite ends: until then each `<testcase>` waits in a `Spool`
//! (memory up to 1 MiB, then a temporary file), so a large suite costs
//! constant memory. quick-xml writes the elements and escapes `<`, `&` and
//! quotes; what XML 1.0 cannot carry at all (control characters other than
//! tab, newline and carriage return, U+FFFE, U+FFFF) is replaced here first
//! by `\xNN`, as the diffs show them, and so is a carriage return in text
//! (a parser reads it as a newline); in an attribute (a student's name) tab,
//! newline and carriage return are character references, so that the name
//! read back is the one the CSV and JSON give. Test names that were
//! not UTF-8 arrive already replaced.

use std::borrow::Cow;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use quick_xml::Writer;
use quick_xml::events::attributes::Attribute;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::name::QName;

use super::human::Human;
use super::{Reporter, TestEvent};
use crate::platform::spool::Spool;
use crate::suite::{Test, TestResult, Trouble, Verdict};

/// The suite's name in the report unless named (and the class of
/// top-level tests).
const SUITE: &str = "tictac test";

/// The XML's writer: testcases written so far, and their counts; the
/// report for people goes on beside it.
pub(crate) struct Junit<'a> {
    /// The suite's name: `tictac test`, or the student graded.
    name: String,
    xml: Box<dyn Write + 'a>,
    people: Human<'a>,
    /// Whether the report for people failing to write stops the run (it
    /// is a file under `tictac grade`; standard error under `--format junit`).
    people_count: bool,
    cases: Writer<Spool>,
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
    /// Why the build failed, under each test it kept from running.
    build: Vec<String>,
    start: Instant,
}

impl Reporter for Junit<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        // People's report: standard error may be closed, the XML counts.
        let people = self.people.report(event);
        if self.people_count {
            people?;
        }
        match *event {
            TestEvent::Started { build, .. } => {
                self.build = build.map(super::BuildFailed::lines).unwrap_or_default();
                Ok(())
            }
            TestEvent::Finished { test, result, .. } => self.add(test, result),
            TestEvent::Done { ref report } => {
                if report.total == 0 {
                    self.no_test_ran()?;
                }
                self.finish()
            }
        }
    }
}

impl<'a> Junit<'a> {
    pub(crate) fn new(xml: Box<dyn Write + 'a>, people: Human<'a>) -> Junit<'a> {
        Junit {
            name: SUITE.into(),
            xml,
            people,
            people_count: false,
            cases: Writer::new(Spool::default()),
            tests: 0,
            failures: 0,
            errors: 0,
            skipped: 0,
            build: Vec::new(),
            start: Instant::now(),
        }
    }

    /// The same, its suite named `name`, the report for people a file
    /// that must be written whole.
    pub(crate) fn named(self, name: &str) -> Junit<'a> {
        Junit { name: name.into(), people_count: true, ..self }
    }

    /// One `<testcase>`: a difference, a crash (with its diff) or a
    /// missing expected file is a `<failure>`; a program that could not
    /// start, timed out or printed too much is an `<error>` (the check itself
    /// could not be made); a skipped test has `<skipped>`. The message says
    /// which (`exited with status 1`, `output differs`), the text starts with the
    /// command line run.
    fn add(&mut self, test: &Test, outcome: &TestResult) -> io::Result<()> {
        self.tests += 1;
        let (folder, _) = test.name.rsplit_once('/').unwrap_or((&self.name, ""));
        let folder = folder.to_string();
        let headline = outcome.verdict.headline().unwrap_or_default();
        let with_command = |body: &str| match &outcome.command {
            Some(command) => Cow::Owned(format!("command: {command}\n{body}")),
            None => Cow::Owned(body.to_string()),
        };
        let problem = match &outcome.verdict {
            Verdict::Pass => None,
            Verdict::Skipped(why) => Some(("skipped", why.as_str(), "skipped", Cow::Borrowed(""))),
            Verdict::Differs(diff) => {
                Some(("failure", headline.as_str(), "diff", with_command(&diff.text)))
            }
            Verdict::StatusDiffers(diff) => {
                Some(("failure", headline.as_str(), "status", with_command(&diff.text)))
            }
            Verdict::Broke(trouble, diff) => {
                let (kind, type_) = match trouble {
                    Trouble::Exited(_) => ("failure", "exited"),
                    Trouble::Exception(_) => ("failure", "crashed"),
                    Trouble::Signal(_) => ("failure", "killed-by-signal"),
                    Trouble::TimedOut(_) => ("error", "timed-out"),
                    Trouble::Frozen(_) => ("error", "stopped"),
                    Trouble::TooMuch(_) => ("error", "printed-too-much"),
                    Trouble::CouldNotStart(_) => ("error", "could-not-start"),
                };
                let body = diff.as_ref().map_or("", |d| d.text.as_str());
                Some((kind, headline.as_str(), type_, with_command(body)))
            }
            Verdict::NoExpected(why) => Some((
                "failure",
                "no expected output",
                "no-expected-output",
                Cow::Borrowed(why.as_str()),
            )),
            Verdict::CannotRun(why) => {
                let first = why.lines().next().unwrap_or_default();
                Some(("error", first, "cannot-run", Cow::Borrowed(why.as_str())))
            }
            Verdict::NotBuilt => Some((
                "error",
                crate::suite::NOT_BUILT,
                "build-failed",
                Cow::Owned(self.build.join("\n")),
            )),
            Verdict::OutOfTime(_) => {
                Some(("error", headline.as_str(), "out-of-time", Cow::Borrowed("")))
            }
        };
        match problem {
            Some(("failure", ..)) => self.failures += 1,
            Some(("skipped", ..)) => self.skipped += 1,
            Some(_) => self.errors += 1,
            None => {}
        }
        let element = self.cases.create_element("testcase").with_attributes([
            attribute("name", &test.name),
            attribute("classname", &folder),
            attribute("time", &seconds(outcome.elapsed)),
        ]);
        if problem.is_none() && outcome.notes.is_empty() && outcome.stderr.is_empty() {
            element.write_empty()?;
            return Ok(());
        }
        element.write_inner_content(|w| {
            match problem {
                Some(("skipped", why, ..)) => {
                    w.create_element("skipped")
                        .with_attribute(attribute("message", why))
                        .write_empty()?;
                }
                Some((kind, message, type_, body)) => {
                    let attributes = [attribute("message", message), attribute("type", type_)];
                    w.create_element(kind)
                        .with_attributes(attributes)
                        .write_text_content(BytesText::new(&clean(&body, false)))?;
                }
                None => {}
            }
            for (tag, lines) in [("system-out", &outcome.notes), ("system-err", &outcome.stderr)] {
                if !lines.is_empty() {
                    let text = lines.iter().map(|l| format!("{l}\n")).collect::<String>();
                    w.create_element(tag)
                        .write_text_content(BytesText::new(&clean(&text, false)))?;
                }
            }
            Ok(())
        })?;
        Ok(())
    }

    /// A testcase holding an `<error>` when every test was skipped: a CI
    /// reads a suite of skips as a success.
    fn no_test_ran(&mut self) -> io::Result<()> {
        self.tests += 1;
        self.errors += 1;
        let attributes = [attribute("name", "no test ran"), attribute("classname", &self.name)];
        self.cases.create_element("testcase").with_attributes(attributes).write_inner_content(
            |w| {
                let error =
                    [attribute("message", super::NO_TEST_RAN), attribute("type", "no-test-ran")];
                w.create_element("error").with_attributes(error).write_empty()?;
                Ok(())
            },
        )?;
        Ok(())
    }

    /// The whole document: declaration, counts, then the testcases.
    fn finish(&mut self) -> io::Result<()> {
        let counts = [
            ("tests", self.tests.to_string()),
            ("failures", self.failures.to_string()),
            ("errors", self.errors.to_string()),
            ("skipped", self.skipped.to_string()),
            ("time", seconds(self.start.elapsed())),
        ];
        let attributes = || {
            std::iter::once(attribute("name", &self.name))
                .chain(counts.iter().map(|(k, v)| attribute(k, v)))
        };
        let mut w = Writer::new(&mut *self.xml);
        w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
        w.get_mut().write_all(b"\n")?;
        let cases = std::mem::replace(&mut self.cases, Writer::new(Spool::default()));
        let cases = cases.into_inner();
        w.create_element("testsuites").with_attributes(attributes()).write_inner_content(|w| {
            w.create_element("testsuite").with_attributes(attributes()).write_inner_content(
                |w| {
                    io::copy(&mut cases.reader()?, w.get_mut())?;
                    Ok(())
                },
            )?;
            Ok(())
        })?;
        self.xml.write_all(b"\n")?;
        self.xml.flush()
    }
}

/// Seconds with millisecond precision, as JUnit reporters read `time`.
fn seconds(elapsed: Duration) -> String {
    format!("{:.3}", elapsed.as_secs_f64())
}

/// An attribute, its value escaped: tab, newline and carriage return as
/// character references (written as they are, a parser reads them as
/// spaces).
fn attribute<'a>(key: &'a str, value: &str) -> Attribute<'a> {
    let escaped = quick_xml::escape::escape(clean(value, true));
    let value = escaped.replace('\t', "&#9;").replace('\n', "&#10;").replace('\r', "&#13;");
    Attribute { key: QName(key), value: Cow::Owned(value) }
}

/// `text` with every character XML 1.0 forbids written as `\xNN` (or
/// `\u{FFFE}`); in text also a carriage return, which a parser would turn
/// into a newline (an attribute carries it as a reference, see `attribute`).
fn clean(text: &str, attribute: bool) -> Cow<'_, str> {
    let bad = |c: char| match c {
        '\n' | '\t' => false,
        '\r' => !attribute,
        '\u{FFFE}' | '\u{FFFF}' => true,
        c => c < ' ',
    };
    if !text.contains(bad) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !bad(c) => shown.push(c),
            c if u32::from(c) < 0x100 => shown.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => shown.push_str(&format!("\\u{{{:X}}}", u32::from(c))),
        }
    }
    Cow::Owned(shown)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::Diff;
    use std::io;
    use std::path::PathBuf;

    #[test]
    fn forbidden_characters_become_visible() {
        assert_eq!(clean("a\u{1}b\tc\nd\re", false), "a\\x01b\tc\nd\\x0de");
        assert_eq!(clean("a\tb\nc\rd\u{1b}", true), "a\tb\nc\rd\\x1b");
        let name = attribute("name", "a\tb\nc\r<d>\u{7}");
        assert_eq!(name.value, "a&#9;b&#10;c&#13;&lt;d&gt;\\x07");
        assert_eq!(clean("x\u{FFFE}\u{FFFF}\u{7f}é", false), "x\\u{FFFE}\\u{FFFF}\u{7f}é");
        assert!(matches!(clean("plain <&>", true), Cow::Borrowed(_)));
    }

    #[test]
    fn a_suite_is_one_document_with_its_counts() {
        let mut out = Vec::new();
        let mut people = io::sink();
        let people = Human::new(Box::new(&mut people), false, false, None);
        let mut junit = Junit::new(Box::new(&mut out), people);
        let test =
            |name: &str| Test { trace: PathBuf::from(format!("{name}.txt")), name: name.into() };
        let outcome = |verdict| TestResult {
            elapsed: Duration::from_millis(1500),
            ..TestResult::new(verdict)
        };
        junit.add(&test("a"), &outcome(Verdict::Pass)).expect("add");
        junit
            .add(
                &test("d/b"),
                &outcome(Verdict::Differs(Diff {
                    text: "-x\n+<y>&\u{0}\n".into(),
                    marks: Vec::new(),
                    from_line: None,
                })),
            )
            .expect("add");
        junit.add(&test("c"), &outcome(Verdict::CannotRun("p ran too long".into()))).expect("add");
        junit.finish().expect("finish");
        drop(junit);
        let xml = String::from_utf8(out).expect("UTF-8");
        assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tictac test\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\""), "{xml}");
        assert!(
            xml.contains("<testcase name=\"a\" classname=\"tictac test\" time=\"1.500\"/>"),
            "{xml}"
        );
        assert!(xml.contains("<testcase name=\"d/b\" classname=\"d\" time=\"1.500\"><failure message=\"output differs\" type=\"diff\">-x\n+&lt;y&gt;&amp;\\x00\n</failure></testcase>"), "{xml}");
        assert!(
            xml.contains(
                "<error message=\"p ran too long\" type=\"cannot-run\">p ran too long</error>"
            ),
            "{xml}"
        );
        assert!(xml.ends_with("</testsuite></testsuites>\n"), "{xml}");
    }
}
