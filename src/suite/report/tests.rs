//! Every format's report of the same suite, as snapshots (`cargo insta
//! review` shows a change). Times are fixed here, and the suite's own time
//! is redacted.

use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::suite::{Diff, Trouble, Verdict};

/// A pass, a difference, a missing expected file, a program that could
/// not run (with notes and standard error), a name TAP must escape, a
/// skipped test, and each way a program's run goes wrong: crashed (with
/// its diff, command and the end of its standard error), killed by a
/// signal, timed out (with what it printed until then), could not start.
fn suite() -> Vec<(Test, TestResult)> {
    let test = |name: &str| Test { trace: PathBuf::from(format!("{name}.txt")), name: name.into() };
    let result = |verdict, ms, notes: &[&str], stderr: &[&str]| TestResult {
        elapsed: Duration::from_micros(ms),
        notes: notes.iter().map(|n| n.to_string()).collect(),
        stderr: stderr.iter().map(|n| n.to_string()).collect(),
        ..TestResult::new(verdict)
    };
    let ran = |verdict, stderr: &[&str]| TestResult {
        command: Some("python3 'dan smith/ttt.py' -w 3 5 t/t.txt".into()),
        ..result(verdict, 2000, &[], stderr)
    };
    let crash_diff = Diff {
        text: "line 9 differs:\n-  ok\n+(missing)\n".into(),
        marks: Vec::new(),
        from_line: None,
    };
    let diff = Diff {
        text: "line 2 differs:\n-  ok\n+  error\n".into(),
        marks: Vec::new(),
        from_line: None,
    };
    let partial = Diff {
        text: format!("{}\n--- expected\n+++ actual\n-  ok\n", crate::suite::diff::PARTIAL),
        marks: Vec::new(),
        from_line: None,
    };
    vec![
        (test("01_x_wins"), result(Verdict::Pass, 1250, &[], &[])),
        (test("d/02_<tie>&"), result(Verdict::Differs(diff), 20_000, &["logged"], &[])),
        (
            test("03_new"),
            result(
                Verdict::NoExpected(
                    "t/03_new.expected.txt is missing (run with --bless to create it)".into(),
                ),
                300,
                &[],
                &[],
            ),
        ),
        (
            test("04 #1"),
            result(
                Verdict::CannotRun("ran longer than 5 s\n(stopped)".into()),
                5_000_000,
                &["blessed t/04.expected.txt"],
                &["thread 'main' panicked", "\\x01"],
            ),
        ),
        (
            test("05_bot"),
            result(Verdict::Skipped("--bot is tictac's own # option".into()), 0, &[], &[]),
        ),
        (
            test("06_traceback"),
            ran(
                Verdict::Broke(Trouble::Exited(3), Some(crash_diff)),
                &["... 2 lines before these", "  File \"ttt.py\", line 9", "TypeError: bad"],
            ),
        ),
        (test("07_killed"), ran(Verdict::Broke(Trouble::Signal(9), None), &[])),
        (
            test("08_slow"),
            ran(Verdict::Broke(Trouble::TimedOut(Duration::from_millis(2500)), Some(partial)), &[]),
        ),
        (
            test("09_missing"),
            ran(Verdict::Broke(Trouble::CouldNotStart("python3: No such file".into()), None), &[]),
        ),
        (
            test("10_diff"),
            ran(
                Verdict::Differs(Diff {
                    text: "-a\n+b\n".into(),
                    marks: Vec::new(),
                    from_line: None,
                }),
                &[],
            ),
        ),
    ]
}

/// What `format` writes to the output and for people.
fn reported(format: Format, quiet: bool, color: bool) -> String {
    let (mut out, mut people) = (Vec::new(), Vec::new());
    let tests = suite();
    {
        let mut reporter = for_format(format, quiet, color, None, &mut out, &mut people);
        reporter
            .report(&TestEvent::Started { tests: tests.len(), build: None, notes: &[] })
            .expect("vec");
        for (k, (test, result)) in tests.iter().enumerate() {
            let event = TestEvent::Finished { number: k + 1, test, result };
            reporter.report(&event).expect("vec");
        }
        let report = Report { passed: 1, total: tests.len() - 1, skipped: 1, ..Report::new(0) };
        reporter.report(&TestEvent::Done { report }).expect("vec");
    }
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    match people.is_empty() {
        true => text(out),
        false => format!("{}\n--- for people ---\n{}", text(out), text(people)),
    }
}

fn snapshot(name: &str, text: &str) {
    insta::with_settings!({
        prepend_module_to_snapshot => false,
        // The suite's time (its testcases' are fixed).
        filters => vec![
            (r#"skipped="1" time="[0-9.]+""#, r#"skipped="1" time="[time]""#),
            (r#""execution_time": [0-9]+"#, r#""execution_time": [time]"#),
        ],
    }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn human() {
    snapshot("human", &reported(Format::Human, false, false));
}

#[test]
fn human_quiet() {
    snapshot("human_quiet", &reported(Format::Human, true, false));
}

#[test]
fn human_color() {
    snapshot("human_color", &reported(Format::Human, false, true).replace('\x1b', "\\e"));
}

#[test]
fn tap() {
    snapshot("tap", &reported(Format::Tap, false, false));
}

#[test]
fn junit() {
    snapshot("junit", &reported(Format::Junit, false, false));
}

#[test]
fn junit_quiet() {
    snapshot("junit_quiet", &reported(Format::Junit, true, false));
}

#[test]
fn gradescope() {
    snapshot("gradescope", &reported(Format::Gradescope, true, false));
}

/// The first line of `format`'s report of one passing test under `heading`.
fn first_line(format: Format, quiet: bool, heading: &Heading) -> String {
    let (mut out, mut people) = (Vec::new(), Vec::new());
    let test = Test { trace: PathBuf::from("a.txt"), name: "a".into() };
    let result = TestResult { elapsed: Duration::from_millis(1), ..TestResult::new(Verdict::Pass) };
    {
        let mut reporter = for_format(format, quiet, false, Some(heading), &mut out, &mut people);
        reporter.report(&TestEvent::Started { tests: 1, build: None, notes: &[] }).expect("vec");
        let event = TestEvent::Finished { number: 1, test: &test, result: &result };
        reporter.report(&event).expect("vec");
    }
    let text = String::from_utf8(if people.is_empty() { out } else { people }).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    match format {
        Format::Tap => lines.get(2).copied().unwrap_or_default().to_string(),
        _ => lines.first().copied().unwrap_or_default().to_string(),
    }
}

#[test]
fn a_suite_tictac_chose_is_named_first() {
    let found = Heading { suite: "acceptance/".into(), then: String::new(), warns: false };
    assert_eq!(first_line(Format::Human, false, &found), "Running acceptance/ (1 test).");
    assert_eq!(first_line(Format::Human, true, &found), "", "-q leaves it (and the pass) out");
    assert_eq!(first_line(Format::Tap, true, &found), "# Running acceptance/ (1 test).");
    assert_eq!(first_line(Format::Junit, false, &found), "Running acceptance/ (1 test).");
    let itself = Heading {
        suite: "the built-in course suite".into(),
        then: " on tictac itself".into(),
        warns: true,
    };
    let warned = "Running the built-in course suite (1 test) on tictac itself.";
    assert_eq!(first_line(Format::Human, true, &itself), warned, "a warning stays under -q");
    assert_eq!(first_line(Format::Gradescope, true, &itself), warned);
}
