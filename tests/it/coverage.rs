//! The project's own acceptance suite reaches every behaviour of the
//! catalogue (`crates/tictac-core/src/behaviour.rs`): as `tictac test --coverage` counts them
//! (the mode behaviours included), and, for the behaviours a `-b` run can
//! show, by the course suite alone (`acceptance/course/`, plain `-b IN`
//! traces) through the engine, which notes what each command showed.

use std::fs;
use std::path::Path;

use crate::common::{temp_dir, text, tictac};
use tictac::behaviour::{Behaviour, Coverage, kept_lines, of_rejected};
use tictac::engine::Engine;

/// What a whole text shows when run as one trace.
fn shown(text: &[u8]) -> Coverage {
    let kept = kept_lines(text);
    match tictac::lang::check(&kept) {
        Err(_) => of_rejected(&kept).map(|(_, all)| all).unwrap_or_default(),
        Ok(commands) => {
            let mut engine = Engine::new();
            commands.iter().for_each(|c| engine.run(c));
            engine.seen()
        }
    }
}

#[test]
fn the_course_suite_is_plain_traces_that_reach_every_batch_behaviour() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance/course");
    let mut covered = Coverage::default();
    let mut names: Vec<_> = fs::read_dir(&dir)
        .expect("acceptance folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| !p.to_string_lossy().ends_with(".expected.txt"))
        .collect();
    names.sort();
    assert!(names.len() >= 40, "only {} course traces", names.len());
    for path in names {
        let text = fs::read(&path).expect("read trace");
        let first = String::from_utf8_lossy(&text).lines().next().unwrap_or("").to_string();
        assert!(
            !first.trim().starts_with("-- run:"),
            "{}: a course trace runs as -b IN",
            path.display()
        );
        assert!(!first.trim().starts_with("-- status:"), "{}: no status", path.display());
        covered = covered.union(shown(&text));
    }
    let missing: Vec<&str> = Behaviour::ALL
        .iter()
        .filter(|b| b.in_batch() && !covered.contains(**b))
        .map(|b| b.id())
        .collect();
    assert!(missing.is_empty(), "no course trace reaches: {missing:?}");
}

#[test]
fn test_coverage_of_the_acceptance_suite_is_complete() {
    let o = tictac(&["test", "--coverage", "acceptance"]);
    let all = Behaviour::ALL.len();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let said = text(&o);
    assert!(said.ends_with(&format!("\nCoverage: {all}/{all} behaviours.\n")), "{said}");
    assert!(!said.contains("NOT REACHED") && !said.contains("not measured"), "{said}");
    // Every behaviour has its line, in catalogue order, with the tests.
    let rows: Vec<&str> = said.lines().skip(1).take(all).collect();
    for (row, b) in rows.iter().zip(Behaviour::ALL) {
        assert!(row.trim_start().starts_with(&format!("{} ", b.id())), "{row} for {}", b.id());
    }
    let row =
        |id: &str| rows.iter().find(|r| r.trim_start().starts_with(&format!("{id} "))).copied();
    assert!(row("shell-crlf").is_some_and(|r| r.contains("52_shell_crlf")), "{said}");
    assert!(row("initial-state").is_some_and(|r| r.contains(" more")), "{said}");
}

#[test]
fn test_coverage_names_the_gaps_and_still_exits_0() {
    let dir = temp_dir();
    fs::write(dir.path().join("a.txt"), "new_game(\"A\",\"B\")\n").expect("write");
    fs::write(dir.path().join("b.txt"), "-- run: -w 1 _ IN\nundo\n").expect("write");
    fs::write(dir.path().join("c.txt"), "-- run: -b IN OUT\n").expect("write");
    fs::write(dir.path().join("bad.txt"), "--run: -b IN\n").expect("write");
    let path = dir.path().to_string_lossy().into_owned();
    let o = tictac(&["test", "--coverage", &path]);
    assert_eq!(o.status.code(), Some(0));
    let said = text(&o);
    assert!(said.starts_with("bad: not measured: line 1, `--run: -b IN`"), "{said}");
    let line = |id: &str| said.lines().find(|l| l.trim_start().starts_with(&format!("{id} ")));
    assert!(line("new-game-first").is_some_and(|l| l.ends_with("  1  a")), "{said}");
    assert!(line("initial-state").is_some_and(|l| l.ends_with("  3  a, b, c")), "{said}");
    assert!(line("undo-before-game").is_some_and(|l| l.ends_with("  1  b")), "{said}");
    assert!(line("tie").is_some_and(|l| l.contains("0  NOT REACHED: the board is full")), "{said}");
    // initial-state, new-game-first, window-from-start, window-end-open,
    // undo-before-game, chunks-empty.
    let all = Behaviour::ALL.len();
    assert!(said.contains(&format!("Not reached by any test ({}):\n", all - 6)), "{said}");
    assert!(said.ends_with(&format!("Coverage: 6/{all} behaviours.\n")), "{said}");
    // initial-state, chunks-empty.
    let quiet = text(&tictac(&["test", "--coverage", "-q", "--filter", "c", &path]));
    assert!(quiet.starts_with(&format!("Not reached by any test ({}):\n", all - 2)), "{quiet}");
    assert!(quiet.ends_with(&format!("Coverage: 2/{all} behaviours.\n")), "{quiet}");
}

#[test]
fn test_coverage_measures_the_engine_so_no_program_runs() {
    let clashes = [
        ["--program", "cat"],
        ["--oracle", "cat"],
        ["--log", "x"],
        ["--format", "tap"],
        ["--format", "junit"],
    ];
    for extra in clashes {
        let o = tictac(&["test", "--coverage", extra[0], extra[1], "acceptance"]);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let said = text(&o);
        assert!(
            said.starts_with("Error: --coverage measures the engine's behaviours, running no program, so it cannot go with --"),
            "{said}"
        );
    }
    let o = tictac(&["test", "--coverage", "--bless", "acceptance"]);
    assert_eq!(o.status.code(), Some(2));
    let o = tictac(&["test", "--coverage", "no/such/folder"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o), "error: 'no/such/folder' does not exist\n");
}

#[test]
fn fuzz_cannot_exclude_a_mode_behaviour() {
    let o = tictac(&["fuzz", "--program", "cat", "--exclude", "tie", "window-inside"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).starts_with(
            "Error: 'window-inside' is not a behaviour a '-b' run can show, so fuzz never generates it\n"
        ),
        "{}",
        text(&o)
    );
}

/// The replay agrees with what the modes print, where a behaviour says what
/// the whole output is: for every acceptance trace, checked on its expected
/// output.
#[test]
fn what_coverage_says_a_test_shows_is_what_it_prints() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
    let states = |text: &str| {
        text.lines().filter(|l| l.contains(": score for ") && l.ends_with("(as O)")).count()
    };
    let mut checked = 0;
    for test in tictac::suite::discover(&[dir]).expect("tests") {
        let reached = tictac::test::coverage::reached(&test).expect("measured");
        let has = |id: &str| reached.contains(Behaviour::from_id(id).expect(id));
        let expected = fs::read_to_string(test.expected_path()).expect("expected");
        let name = &test.name;
        if has("window-past-the-end") || has("window-empty-trace") {
            assert_eq!(expected, "", "{name}");
            checked += 1;
        }
        if has("window-empty") || has("window-final-state") || has("window-ends-before-start") {
            assert_eq!((states(&expected), expected.contains("->")), (1, false), "{name}");
            checked += 1;
        }
        if has("window-all-fail") {
            assert_eq!(states(&expected), 0, "{name}");
            checked += 1;
        }
        if has("window-first-line-fails") {
            assert!(
                expected.starts_with("Syntax Error") || expected.starts_with("Type Error"),
                "{name}"
            );
            checked += 1;
        }
        if has("chunks-all-fail") || has("chunks-empty") {
            assert_eq!(states(&expected), 1, "{name}");
            checked += 1;
        }
        if has("shell-man") {
            assert!(expected.contains("\nplay_again\nundo\nredo\n->"), "{name}");
            checked += 1;
        }
        if has("shell-quit") || has("shell-end-of-input") {
            assert!(expected.ends_with("->"), "{name}");
            checked += 1;
        }
        // Every command shown is echoed once in a transcript, so a test that
        // reaches no command behaviour echoes nothing.
        let commands = reached.iter().filter(|b| b.in_batch() && *b != Behaviour::InitialState);
        let shell = has("shell-line") || has("shell-error") || has("shell-empty-line");
        if !shell && commands.count() == 0 {
            assert!(!expected.contains("\n->") && !expected.starts_with("->"), "{name}");
        }
    }
    assert!(checked >= 12, "only {checked} checks");
}
