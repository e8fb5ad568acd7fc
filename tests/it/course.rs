//! The built-in course suite as a student meets it (issue 27's "done
//! when"): a correct program passes `tictac test --course --program CMD` with
//! no false failure, from a folder whose path has a space; one with a planted
//! mistake (no win on the 3-5-7 diagonal, where it stops with status 3) fails,
//! and the failure shows the command, `exited with status 3` and the end of
//! standard error.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common::{BIN, path, run, script, temp_dir, text, tictac};

/// The example model program (examples/mutant.rs) with `mistake`, as a
/// script in a folder named with a space, quoted as a shell quotes it.
fn student(home: &Path, mistake: &str) -> String {
    let mutant = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    assert!(mutant.exists(), "{} is built by cargo test", mutant.display());
    let folder = home.join("dan smith");
    fs::create_dir_all(&folder).expect("mkdir");
    let body = format!("exec '{}' {mistake} \"$@\"", path(&mutant));
    let program = script(&folder, &format!("{mistake}.sh"), &body);
    format!("sh '{program}'")
}

#[test]
fn a_correct_program_passes_the_course_suite_from_a_path_with_a_space() {
    let home = temp_dir();
    let program = student(home.path(), "none");
    let o = tictac(&["test", "--course", "--program", &program]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with("Running the built-in course suite ("), "{out}");
    assert!(
        first.ends_with(
            "tests); `tictac course-suite DIR` writes it out, to rerun a failure's command on it."
        ),
        "{out}"
    );
    assert!(!out.contains("FAIL") && !out.contains("SKIP"), "{out}");
    let total = out.lines().filter(|l| l.starts_with("PASS ")).count();
    assert!(total >= 40, "{out}");
    assert!(out.ends_with(&format!("Test Results: {total}/{total} passed.\n")), "{out}");
}

#[test]
fn a_planted_mistake_fails_with_its_command_status_and_the_end_of_stderr() {
    let home = temp_dir();
    let program = student(home.path(), "crash-on-diagonal");
    // No suite in the working folder: `--program` alone runs the built-in one.
    let o =
        run(Command::new(BIN).current_dir(home.path()).args(["test", "--program", &program]), None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(first.starts_with("Running the built-in course suite ("), "{out}");
    assert!(
        first.ends_with(
            "tests): no acceptance/ or tests/acceptance/ here; `tictac course-suite DIR` writes it out, to rerun a failure's command on it."
        ),
        "{out}"
    );
    let failure = out.split("FAIL 61_x_wins_on_the_357_diagonal (").nth(1).expect("61 fails");
    let failure = failure.split("\nPASS ").next().unwrap_or_default();
    let script = program.trim_start_matches("sh '").trim_end_matches('\'');
    assert!(failure.contains("\n     exited with status 3\n"), "{failure}");
    assert!(failure.contains(&format!("\n     command: sh '{script}' -b /")), "{failure}");
    assert!(failure.contains("61_x_wins_on_the_357_diagonal.txt\n"), "{failure}");
    assert!(
        failure
            .contains("     standard error (its last lines):\n       ... 5 lines before these\n")
    );
    assert!(
        failure.contains("       AssertionError: the 3-5-7 line is not checked\n"),
        "{failure}"
    );
    assert!(!failure.contains("frame 5 "), "only the last 20 lines: {failure}");
    let never_printed = "\n     -   42       | ->play(\"Ann\",7)\n";
    assert!(failure.contains(never_printed), "the diff shows what was never printed: {failure}");
    assert!(out.contains("FAIL 40_x_wins_on_every_line ("), "{out}");
    assert!(out.ends_with(" passed.\n") && !out.contains("skipped"), "{out}");
}

/// Columns counted in characters (Python's and Java's strings) or a tab
/// counted to the next tab stop (an editor's view) fail the course suite, on
/// the traces written for them, and nothing else does.
#[test]
fn columns_counted_in_characters_or_with_tab_stops_fail_the_course_suite() {
    let home = temp_dir();
    for (mistake, fails) in [
        ("chars", "73_syntax_error_column_counts_bytes"),
        ("tabs", "74_syntax_error_column_counts_a_tab_as_one"),
    ] {
        let program = student(home.path(), mistake);
        let o = tictac(&["test", "--course", "-q", "--program", &program]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let out = text(&o);
        let failed: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("FAIL "))
            .map(|l| l.split(' ').next().unwrap_or_default())
            .collect();
        assert_eq!(failed, [fails], "{mistake}: {out}");
        // A failure's command names a trace in a scratch folder, gone after
        // the run: the line saying how to have it stays under -q (S5).
        assert!(
            out.starts_with("Running the built-in course suite (")
                && out.lines().next().unwrap_or_default().ends_with(
                    "`tictac course-suite DIR` writes it out, to rerun a failure's command on it."
                ),
            "{out}"
        );
    }
}

#[test]
fn the_course_suite_written_out_runs_as_it_is() {
    let home = temp_dir();
    let dir = home.path().join("published");
    let o = tictac(&["course-suite", &path(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).starts_with(&format!("Wrote the course suite to {}: ", path(&dir))));
    let o = tictac(&["test", "-q", &path(&dir)]);
    let traces = fs::read_dir(&dir).expect("list").count() / 2;
    assert_eq!(text(&o), format!("Test Results: {traces}/{traces} passed.\n"));
    let o = tictac(&["course-suite", &path(&dir)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).ends_with("': it is a folder that is not empty\n"), "{}", text(&o));
}

#[test]
fn the_course_suite_on_tictac_itself_says_so_even_quietly() {
    let o = tictac(&["test", "--course", "-q", "--filter", "61_"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(
        text(&o),
        "Running the built-in course suite (1 test) on tictac itself, not on your program: to check yours, add --program CMD.\nTest Results: 1/1 passed.\n"
    );
    let o = tictac(&["test", "--course", "--coverage", "-q"]);
    assert!(
        text(&o).starts_with("Running the built-in course suite (46 tests).\n"),
        "{}",
        text(&o)
    );
    assert!(!text(&o).contains("--program"), "coverage refuses it: {}", text(&o));
}

#[test]
fn the_folder_run_for_want_of_a_path_is_named_first() {
    let home = temp_dir();
    let suite = home.path().join("acceptance");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "undo\n").expect("write");
    fs::write(suite.join("b.txt"), "undo\n").expect("write");
    let in_home = |args: &[&str]| run(Command::new(BIN).current_dir(home.path()).args(args), None);
    assert_eq!(in_home(&["test", "--bless"]).status.code(), Some(0));
    let o = in_home(&["test"]);
    assert!(text(&o).starts_with("Running acceptance/ (2 tests).\nPASS a ("), "{}", text(&o));
    // Named, or under -q, it is not said.
    assert!(in_home(&["test", "acceptance"]).stdout.starts_with(b"PASS a ("));
    assert_eq!(text(&in_home(&["test", "-q"])), "Test Results: 2/2 passed.\n");
    let o = in_home(&["test", "--format", "tap"]);
    assert!(text(&o).starts_with("TAP version 13\n1..2\n# Running acceptance/ (2 tests).\nok 1"));
}
