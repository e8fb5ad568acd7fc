//! `tictac test` from outside: verdicts, diffs, bless, external programs and
//! oracles, logs, recording a session, and the exit statuses.

use crate::common::{BIN, path, script, temp_dir, text, tictac, tictac_with_input};
use std::fs;

/// A suite folder with two traces and their (correct) expected outputs.
fn suite() -> tempfile::TempDir {
    let dir = temp_dir();
    fs::write(dir.path().join("a.txt"), "new_game(\"a\",\"b\")\nplay(\"a\",5)\n").expect("write");
    fs::write(dir.path().join("b.txt"), "undo\n").expect("write");
    let o = tictac(&["test", "--bless", &dir.path().to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    dir
}

#[test]
fn all_pass() {
    let dir = suite();
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o);
    assert!(out.starts_with("PASS a ("), "{out}");
    assert!(out.contains("\nPASS b ("), "{out}");
    assert!(out.ends_with("\nTest Results: 2/2 passed.\n"), "{out}");
}

#[test]
fn a_failure_shows_a_numbered_diff_with_invisible_characters() {
    let dir = suite();
    let expected = dir.path().join("b.expected.txt");
    let good = fs::read_to_string(&expected).expect("read");
    fs::write(&expected, good.replacen("  ___\n", "  ___ \n", 1)).expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.contains("FAIL b ("), "{out}");
    assert!(out.contains("--- expected\n     +++ actual\n     @@ -1,"), "{out}");
    assert!(out.contains("-    2       |   ___·\n"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("     +") && l.ends_with("|   ___")), "{out}");
    assert!(out.ends_with("Test Results: 1/2 passed.\n"), "{out}");
    assert!(!out.contains('\x1b'), "no colours off a terminal");
}

#[test]
fn a_missing_expected_file_fails_until_blessed() {
    let dir = suite();
    fs::write(dir.path().join("c.txt"), "redo\n").expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("FAIL c ("));
    assert!(text(&o).contains("c.expected.txt is missing (run with --bless to create it)"));
}

#[test]
fn bless_creates_and_updates_expected_files_but_never_traces() {
    let dir = suite();
    fs::write(dir.path().join("c.txt"), "redo\n").expect("write");
    fs::write(dir.path().join("b.expected.txt"), "stale\n").expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0));
    let out = text(&o);
    assert!(out.contains("updated ") && out.contains("b.expected.txt"), "{out}");
    assert!(out.contains("created ") && out.contains("c.expected.txt"), "{out}");
    assert!(out.contains("unchanged ") && out.contains("a.expected.txt"), "{out}");
    assert_eq!(fs::read_to_string(dir.path().join("c.txt")).expect("read"), "redo\n");
    assert_eq!(tictac(&["test", &path(dir.path())]).status.code(), Some(0));
}

#[test]
fn an_external_program_is_run_with_dash_b() {
    let dir = suite();
    let tools = temp_dir();
    let o = tictac(&["test", "--program", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // A program that prints its arguments: it is called as PROGRAM -b TRACE,
    // TRACE a copy of the suite's under the same name.
    let echo = script(tools.path(), "echo.sh", "echo \"$@\"");
    let o = tictac(&["test", "--program", &echo, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.contains("+          1 | -b /") && out.contains("/a.txt\n"), "{out}");
    // The command shown to rerun names the suite's own trace.
    let shown = format!("command: {echo} -b {}", dir.path().join("a.txt").display());
    assert!(out.contains(&shown), "{out}");
}

#[test]
fn a_program_gets_a_private_copy_of_its_trace() {
    let dir = suite();
    let before = |name: &str| fs::read(dir.path().join(name)).expect("read");
    let (trace, expected) = (before("a.txt"), before("a.expected.txt"));
    let tools = temp_dir();
    // A program that looks for the answer beside its trace, prints it, then
    // tries to change the trace and the answer for whoever runs next.
    let cheat = script(
        tools.path(),
        "cheat.sh",
        "answer=\"${2%.txt}.expected.txt\"\n\
         cat \"$answer\" || echo \"no answer beside $2\"\n\
         ls -l \"$2\" >&2\n\
         echo changed > \"$2\" 2>/dev/null\n\
         echo changed > \"$answer\" 2>/dev/null",
    );
    let o = tictac(&["test", "--program", &cheat, &path(dir.path())]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "the answer was not there to copy: {out}");
    assert!(out.contains("no answer beside /"), "{out}");
    // Its own copy, to change as it likes (a read-only one failed programs
    // that copy it beside them, from their second test on).
    assert!(out.contains("-rw-"), "{out}");
    assert_eq!(before("a.txt"), trace, "the suite's trace is unchanged");
    assert_eq!(before("a.expected.txt"), expected, "the suite's answer is unchanged");
}

#[test]
fn a_program_that_cannot_start_is_one_error_before_any_test() {
    let dir = suite();
    let tools = temp_dir();
    let plain = tools.path().join("plain.sh");
    fs::write(&plain, "echo hi\n").expect("write");
    let cases = [
        ("/no/such/program".to_string(), "'/no/such/program': no such file"),
        ("no-such-program-on-path".to_string(), "'no-such-program-on-path': not found on PATH"),
        ("'no such/program' -x".to_string(), "'no such/program': no such file"),
        (
            path(&plain),
            &format!("'{0}': not an executable file: chmod +x {0} makes it one", path(&plain)),
        ),
    ];
    for (program, why) in cases {
        for option in ["--program", "--oracle"] {
            let o = tictac(&["test", option, &program, &path(dir.path())]);
            assert_eq!(o.status.code(), Some(2), "{}", text(&o));
            let expected = format!(
                "Error: {option} cannot run {why}\nRun 'tictac test --help' to see more details\n"
            );
            assert_eq!(text(&o), expected);
        }
        let o = tictac(&["fuzz", "--program", &program]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).starts_with(&format!("Error: --program cannot run {why}\n")));
    }
    // A command that cannot be split is refused as it is read.
    let o = tictac(&["test", "--program", "python3 'dan smith/t.py", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).starts_with(
            "Error: --program cannot be split into words, 'python3 'dan smith/t.py': a quote is not closed"
        ),
        "{}",
        text(&o)
    );
}

#[test]
fn an_oracle_program_gives_the_expected_output() {
    let dir = suite();
    for f in ["a.expected.txt", "b.expected.txt"] {
        fs::remove_file(dir.path().join(f)).expect("rm");
    }
    let o = tictac(&["test", "--oracle", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let tools = temp_dir();
    let wrong = script(tools.path(), "wrong.sh", "echo wrong");
    let o = tictac(&["test", "--program", &wrong, "--oracle", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("+          1 | wrong"), "{}", text(&o));
}

#[test]
fn log_saves_every_actual_output() {
    let dir = suite();
    let logs = temp_dir();
    let log_dir = logs.path().join("logs");
    let o = tictac(&["test", "--log", &path(&log_dir), "-j", "1", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0));
    let saved = fs::read(log_dir.join("b.actual.txt")).expect("logged");
    assert_eq!(saved, fs::read(dir.path().join("b.expected.txt")).expect("read"));
    assert!(log_dir.join("a.actual.txt").is_file());
}

#[test]
fn no_tests_and_usage_errors_exit_2() {
    let empty = temp_dir();
    let o = tictac(&["test", &path(empty.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with("error: no tests found"), "{}", text(&o));
    let o = tictac(&["test", "--frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o),
        "Error: unknown option '--frobnicate' for the 'test' mode\n\
         Run 'tictac test --help' to see more details\n\
         Did you mean '--format'?\n"
    );
    let o = tictac(&["test", "/no/such/folder"]);
    assert_eq!(
        (o.status.code(), text(&o)),
        (Some(2), "error: '/no/such/folder' does not exist\n".into())
    );
}

#[test]
fn a_recorded_session_becomes_an_acceptance_test() {
    let dir = temp_dir();
    let record = dir.path().join("session.txt");
    let typed = "new_game(\"a\",\"b\")\nplay(\"a\"\nman\n\nplay(\"a\",5) undo\nquit\nredo\n";
    let o = tictac_with_input(&["-i", "--record", &path(&record)], typed.as_bytes());
    assert!(o.status.success());
    assert_eq!(
        fs::read_to_string(&record).expect("recorded"),
        "new_game(\"a\",\"b\")\nplay(\"a\",5) undo\n"
    );
    let o = tictac(&["test", "--bless", &path(&record)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let expected = fs::read_to_string(dir.path().join("session.expected.txt")).expect("blessed");
    assert!(expected.ends_with("->undo\n  ok: => a plays next\n  ___\n  ___\n  ___\n  0: score for \"a\" (as X)\n  0: score for \"b\" (as O)\n"));
    assert_eq!(tictac(&["test", &path(&record)]).status.code(), Some(0));
}

#[test]
fn a_program_that_hangs_is_stopped_and_fails_its_test() {
    let dir = suite();
    let tools = temp_dir();
    let hang = script(tools.path(), "hang.sh", "exec sleep 30");
    let start = std::time::Instant::now();
    let o = tictac(&["test", "--program", &hang, "--timeout", "0.3", "-j", "2", &path(dir.path())]);
    assert!(start.elapsed() < std::time::Duration::from_secs(10), "the runner waited for it");
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.contains("\n     timed out after 0.3 s\n     command: "), "{out}");
    assert!(out.ends_with("Test Results: 0/2 passed.\n"), "{out}");
}

#[test]
fn what_a_timed_out_program_printed_is_shown_as_a_part_and_logged() {
    let dir = suite();
    let tools = temp_dir();
    let half = script(tools.path(), "half.sh", "echo 'the first line'\nexec sleep 30");
    let log = tools.path().join("log");
    let args = ["test", "--program", &half, "--timeout", "0.5", "--log", &path(&log)];
    let o = tictac(&[&args[..], &["--filter", "a", &path(dir.path())]].concat());
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    let heading = "\n     timed out after 0.5 s\n     command: ";
    assert!(out.contains(heading), "{out}");
    let shown = "\n     what it printed before it was stopped (not its whole output):\n     --- expected\n     +++ actual\n";
    assert!(out.contains(shown), "{out}");
    assert!(out.contains("\n     +          1 | the first line\n"), "{out}");
    let logged = fs::read_to_string(log.join("a.actual.txt")).expect("logged");
    assert_eq!(logged, "the first line\n");
}

#[test]
fn outputs_that_differ_only_in_line_endings_say_so_in_one_line() {
    let dir = suite();
    let tools = temp_dir();
    let body = format!("'{BIN}' \"$@\" | sed 's/$/\\r/'");
    let windows = script(tools.path(), "crlf.sh", &body);
    let o = tictac(&["test", "--program", &windows, "--filter", "a", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    let said = "\n     output differs\n     command: ";
    assert!(out.contains(said), "{out}");
    let said = "\n     the outputs differ only in line endings: expected LF (\\n), actual CRLF (\\r\\n)\nTest Results: 0/1 passed.\n";
    assert!(out.ends_with(said), "{out}");
}

#[test]
fn a_shell_session_is_typed_into_an_external_program() {
    // More output than a pipe holds, before the program has read its input.
    let dir = temp_dir();
    let mut session = String::from("-- run: -i\nnew_game(\"a\",\"b\")\n");
    session.push_str(&"undo\n".repeat(2000));
    fs::write(dir.path().join("long.txt"), &session).expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0));
    let o = tictac(&["test", "--program", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_log_folder_that_cannot_be_made_is_a_usage_error() {
    let dir = suite();
    let file = dir.path().join("a.txt");
    let o = tictac(&["test", "--log", &path(&file.join("logs")), &path(dir.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with("error: the log folder '"), "{}", text(&o));
    let o = tictac(&["test", "--log", &path(&file), &path(dir.path())]);
    let said = format!("error: the log folder '{}' exists and is not a folder\n", path(&file));
    assert_eq!((o.status.code(), text(&o)), (Some(2), said));
}

/// A log folder that is there but cannot be written in (read-only; as
/// root, who writes anywhere, run as nobody) is refused before any test
/// runs: the logs were asked for (attack E8: "2/2 passed", exit 0, no log).
#[test]
fn a_log_folder_that_cannot_be_written_in_is_refused_before_any_test() {
    use std::os::unix::fs::PermissionsExt;
    let dir = suite();
    let logs = dir.path().join("logs");
    fs::create_dir(&logs).expect("mkdir");
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).expect("chmod");
    fs::set_permissions(&logs, fs::Permissions::from_mode(0o555)).expect("chmod");
    let mut command = match rustix::process::getuid().is_root() {
        true => {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
            c
        }
        false => std::process::Command::new(BIN),
    };
    let o = crate::common::run(
        command.args(["test", "--log", &path(&logs), "--filter", "a", &path(dir.path())]),
        None,
    );
    let out = text(&o);
    let said = format!("error: the log folder '{}' cannot be written in: ", path(&logs));
    assert!(out.starts_with(&said) && out.ends_with("(os error 13)\n"), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert_eq!(fs::read_dir(&logs).expect("logs").count(), 0);
}

/// Logs that cannot be written once the run has begun (DIR removed, here
/// by the program under test; made read-only; a full disk) are counted and
/// said once, before the closing line, with why the first could not be,
/// and the run exits 2: it said "2/2 passed", exit 0, with no log, the
/// tests' own notes hidden under -q.
#[test]
fn logs_that_cannot_be_written_during_the_run_are_said_once_and_exit_2() {
    let dir = suite();
    let tools = temp_dir();
    let logs = tools.path().join("logs");
    let body = format!("rm -rf '{}'\nexec '{BIN}' \"$@\"", path(&logs));
    let program = script(tools.path(), "removes-the-logs.sh", &body);
    let (log_dir, suite) = (path(&logs), path(dir.path()));
    let run = |extra: &[&str]| {
        let mut args = vec!["test", "--log", &log_dir, "--program", &program, "-j", "1"];
        args.extend(extra);
        args.push(&suite);
        tictac(&args)
    };
    let cannot = |name: &str| {
        let file = logs.join(format!("{name}.actual.txt"));
        format!("cannot write {}: No such file or directory (os error 2)", path(&file))
    };
    let o = run(&["-q"]);
    let said = format!(
        "error: the logs of 2 tests could not be written (--log); the first, a: {}\n\
         Test Results: 2/2 passed.\n",
        cannot("a")
    );
    assert_eq!((o.status.code(), text(&o)), (Some(2), said));
    let o = run(&["--filter", "b"]);
    let out = text(&o);
    assert!(out.contains(&format!("\n     not logged: {}\n", cannot("b"))), "{out}");
    let said = format!(
        "\nerror: the log of 1 test could not be written (--log): b: {}\nTest Results: 1/1 passed.\n",
        cannot("b")
    );
    assert!(out.ends_with(&said), "{out}");
    assert_eq!(o.status.code(), Some(2), "{out}");
    // TAP says it as a comment; a failing test does not make it 1.
    fs::write(dir.path().join("a.expected.txt"), "wrong\n").expect("write");
    let o = run(&["--format", "tap"]);
    let out = text(&o);
    let said = "\n# error: the logs of 2 tests could not be written (--log); the first, a: ";
    assert!(out.contains(said) && out.ends_with("\n# Test Results: 1/2 passed.\n"), "{out}");
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(!logs.exists());
}

#[test]
fn quiet_filter_and_natural_order() {
    let dir = temp_dir();
    for name in ["t10", "t2", "t1", "u3"] {
        fs::write(dir.path().join(format!("{name}.txt")), "undo\n").expect("write");
    }
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", &path(dir.path())]);
    let out = text(&o);
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("PASS "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert_eq!(names, ["t1", "t2", "t10", "u3"]);
    fs::write(dir.path().join("t2.expected.txt"), "wrong\n").expect("write");
    let o = tictac(&["test", "--quiet", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.starts_with("FAIL t2 ("), "{out}");
    assert!(!out.contains("PASS"), "{out}");
    assert!(out.ends_with("Test Results: 3/4 passed.\n"), "{out}");
    let o = tictac(&["test", "-q", "--filter", "t1", &path(dir.path())]);
    assert_eq!((o.status.code(), text(&o)), (Some(0), "Test Results: 2/2 passed.\n".into()));
    let o = tictac(&["test", "--filter", "zz", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o), "error: no test name contains 'zz' (--filter)\n");
}

#[test]
fn a_malformed_directive_and_a_file_that_is_not_a_trace_are_errors() {
    let dir = suite();
    fs::write(dir.path().join("c.txt"), "--run: -b IN OUT\nundo\n").expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("FAIL c ("), "{}", text(&o));
    assert!(text(&o).contains("line 1, `--run: -b IN OUT`, is not a valid directive"));
    assert!(!dir.path().join("c.expected.txt").exists(), "nothing blessed");
    let notes = dir.path().join("notes.md");
    fs::write(&notes, "undo\n").expect("write");
    let o = tictac(&["test", &path(&notes)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with(&format!("error: '{}' is not a trace", path(&notes))));
}

#[test]
fn tap_reports_a_line_per_test_with_the_plan_first() {
    let dir = suite();
    fs::write(dir.path().join("b.expected.txt"), "wrong\n").expect("write");
    let o = tictac(&["test", "--format", "tap", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(
        out.starts_with(
            "TAP version 13\n1..2\nok 1 - a\nnot ok 2 - b\n# output differs\n# command: tictac -b "
        ),
        "{out}"
    );
    assert!(out.contains("b.txt\n# --- expected\n"), "{out}");
    assert!(out.contains("\n# -    1       | wrong\n"), "{out}");
    assert!(out.ends_with("\n# Test Results: 1/2 passed.\n"), "{out}");
    let o = tictac(&["test", "--format", "xml", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).starts_with("Error: --format takes human, tap, junit or gradescope, not 'xml'\n")
    );
}

/// A name that is not UTF-8 finds its own expected file (by its bytes), and
/// control characters in names are shown escaped: a name cannot start a
/// report line of its own.
#[test]
fn odd_names_find_their_own_files_and_cannot_forge_report_lines() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = temp_dir();
    let trace = dir.path().join(OsStr::from_bytes(b"t3\x01\xff.txt"));
    fs::write(&trace, "new_game(\"a\",\"b\")\n").expect("write");
    fs::write(dir.path().join(OsStr::from_bytes(b"t3\x01\xff.expected.txt")), "garbage\n")
        .expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).starts_with("FAIL t3\\x01\u{fffd} ("), "{}", text(&o));
    assert!(!text(&o).contains("missing"), "the expected file is found: {}", text(&o));
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let files = fs::read_dir(dir.path()).expect("list").count();
    assert_eq!(files, 2, "blessing wrote no look-alike file");

    let forged = dir.path().join("nl\nPASS fake.txt");
    fs::write(&forged, "undo\n").expect("write");
    let o = tictac(&["test", &path(&forged)]);
    assert!(text(&o).starts_with("FAIL nl\\x0aPASS fake ("), "{}", text(&o));
    assert_eq!(text(&o).lines().filter(|l| l.starts_with("PASS")).count(), 0, "{}", text(&o));
}

#[test]
fn a_hash_in_a_name_is_escaped_in_tap() {
    let dir = temp_dir();
    fs::write(dir.path().join("x # TODO later.txt"), "undo\n").expect("write");
    fs::write(dir.path().join("x # TODO later.expected.txt"), "wrong\n").expect("write");
    let o = tictac(&["test", "--format", "tap", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("\nnot ok 1 - x \\# TODO later\n"), "{}", text(&o));
}

/// `--bless --program` records no output of a program that crashed; a
/// program that exited with another status than 0 answered, as an oracle
/// under `--oracle` does (`tictac -b` exits 1 after a syntax error), and
/// is blessed, saying so; one that printed nothing is blessed with a
/// warning (finding 9).
#[test]
fn bless_records_an_exit_status_as_an_answer_and_nothing_from_a_crash() {
    let dir = temp_dir();
    fs::write(dir.path().join("t.txt"), "undo\n").expect("write");
    let crash = script(dir.path(), "crash.sh", "echo partial; kill -SEGV $$");
    let trace = path(&dir.path().join("t.txt"));
    let expected = dir.path().join("t.expected.txt");
    let o = tictac(&["test", "--bless", "--program", &crash, &trace]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("killed by signal 11: nothing blessed"), "{}", text(&o));
    assert!(!expected.exists(), "nothing written");

    let failing = script(dir.path(), "failing.sh", "echo answer; exit 1");
    let o = tictac(&["test", "--bless", "--program", &failing, &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("from the output of"), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "note: {failing} printed this, exiting with status 1: an exit status is part of an answer"
        )),
        "{}",
        text(&o)
    );
    assert_eq!(fs::read_to_string(&expected).expect("blessed"), "answer\n");

    let silent = script(dir.path(), "silent.sh", "exit 0");
    let o = tictac(&["test", "--bless", "--program", &silent, &trace]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o)
            .contains(&format!("warning: {silent} printed nothing: the expected file is empty")),
        "{}",
        text(&o)
    );
    assert_eq!(fs::read_to_string(&expected).expect("blessed"), "");
}

/// A missing expected file under `--program` names the way to make it
/// with tictac's answer, never `--bless` alone, which would record the
/// student's own output (finding S3).
#[test]
fn a_missing_expected_file_under_a_program_names_tictacs_answer() {
    let dir = suite();
    fs::write(dir.path().join("c.txt"), "redo\n").expect("write");
    let model = crate::common::model_program();
    let o = tictac(&["test", &path(dir.path()), "--program", &model]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let folder = shell_words::quote(&path(dir.path())).into_owned();
    let hint = format!(
        "c.expected.txt is missing (tictac's answer makes it: tictac test {folder} --bless, \
         without --program, which would take your program's own output as the answer)"
    );
    assert!(text(&o).contains(&hint), "{}", text(&o));
    assert!(!text(&o).contains("run with --bless"), "{}", text(&o));
}

#[test]
fn only_a_newline_ends_a_line_in_diffs_and_bless_counts() {
    let dir = suite();
    let expected = dir.path().join("a.expected.txt");
    let mut good = fs::read(&expected).expect("read");
    let lines = good.iter().filter(|&&b| b == b'\n').count();
    good.extend_from_slice(b"x\ry\n");
    fs::write(&expected, &good).expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(&format!("-{:>5}       | x␍y\n", lines + 1)), "{out}");
    assert!(!out.contains("no newline"), "{out}");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert!(text(&o).contains("1 line differs (1 removed, 0 added)"), "{}", text(&o));
    // A name holding a CR: the lines after it keep their true numbers.
    let trace = dir.path().join("c.txt");
    fs::write(&trace, "new_game(\"A\rn\",\"Bob\")\nplay(\"A\rn\",5)\nplay(\"Bob\",1)\n")
        .expect("w");
    let o = tictac(&["test", "--bless", &path(&trace)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let expected = dir.path().join("c.expected.txt");
    let good = fs::read(&expected).expect("read");
    assert!(good.contains(&b'\r'), "the name shows in the output");
    let lines = good.iter().filter(|&&b| b == b'\n').count();
    let mut bad = good.clone();
    bad.truncate(bad.len() - 1);
    bad.extend_from_slice(b"!\n");
    fs::write(&expected, &bad).expect("write");
    let o = tictac(&["test", &path(&trace)]);
    let out = text(&o);
    assert!(out.contains(&format!("-{lines:>5}       | ")), "{out}");
    assert!(out.contains(&format!("+{:>11} | ", lines)), "{out}");
    let o = tictac(&["test", "--bless", &path(&trace)]);
    assert!(text(&o).contains("2 lines differ (1 removed, 1 added)"), "{}", text(&o));
}

/// Under `--program`, a trace of tictac's own features (`--bot`, an
/// invocation error naming tictac) is skipped with why, and counted apart:
/// `1/1 passed, 2 skipped.`; the engine runs them all.
#[test]
fn traces_of_tictac_s_own_features_are_skipped_under_a_program() {
    let dir = temp_dir();
    fs::write(dir.path().join("a.txt"), "new_game(\"a\",\"b\")\n").expect("write");
    fs::write(dir.path().join("b.txt"), "-- run: -b IN --bot Hal=elm\nnew_game(\"Hal\",\"b\")\n")
        .expect("write");
    fs::write(dir.path().join("c.txt"), "-- run: -x IN\n").expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", &path(dir.path())]);
    assert!(text(&o).ends_with("Test Results: 3/3 passed.\n"), "{}", text(&o));
    let o = tictac(&["test", "--program", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("\nSKIP b: --bot is tictac's own option, not the ETF framework's\n"));
    assert!(out.contains("\nSKIP c: an invocation error: its message names tictac\n"), "{out}");
    assert!(out.ends_with("Test Results: 1/1 passed, 2 skipped.\n"), "{out}");
    let o = tictac(&["test", "-q", "--program", BIN, &path(dir.path())]);
    assert_eq!(text(&o), "Test Results: 1/1 passed, 2 skipped.\n");
    let o = tictac(&["test", "--format", "tap", "--program", BIN, &path(dir.path())]);
    assert!(text(&o).contains("\nok 2 - b # SKIP --bot is tictac's own option"), "{}", text(&o));
    let o = tictac(&["test", "--format", "junit", "--program", BIN, &path(dir.path())]);
    assert!(text(&o).contains(" tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"2\" "));
}

/// An expected file with no trace (`b.expected.txt` beside `b.TXT`, `c.trace`)
/// is a test nobody runs: `test` warns, naming the near file; `grade` and
/// `autograder` refuse the suite; a missing expected file's hint names a
/// near one (`d.expected`) (the tester's C6: all were silent).
#[test]
fn an_expected_file_with_no_trace_is_warned_about_or_refused_naming_the_near_file() {
    let dir = temp_dir();
    let suite = dir.path().join("s");
    fs::create_dir(&suite).expect("mkdir");
    for (name, body) in [("a.txt", "undo\n"), ("b.TXT", "undo\n"), ("c.trace", "undo\n")] {
        fs::write(suite.join(name), body).expect("write");
    }
    let o = tictac(&["test", "--bless", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for name in ["b", "c"] {
        fs::copy(suite.join("a.expected.txt"), suite.join(format!("{name}.expected.txt")))
            .expect("copy");
    }
    let o = tictac(&["test", &path(&suite)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let shown = path(&suite);
    for (name, near) in [
        ("b", "b.TXT' is beside it: a trace is named NAME.txt, .txt in lower case"),
        ("c", "c.trace' is beside it: a trace is named NAME.txt"),
    ] {
        let warning = format!(
            "warning: '{shown}/{name}.expected.txt' has no trace '{name}.txt' beside it, so no \
             test runs it ('{near})\n"
        );
        assert!(err.contains(&warning), "{err}");
    }
    let (alice, out) = (dir.path().join("alice"), path(&dir.path().join("g")));
    fs::create_dir(&alice).expect("mkdir");
    let o = tictac(&["grade", &shown, &path(&alice), "--command", "./ttt", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "error: the expected file '{shown}/b.expected.txt' has no trace 'b.txt' beside it"
        )),
        "{}",
        text(&o)
    );
    for name in ["b.expected.txt", "c.expected.txt"] {
        fs::remove_file(suite.join(name)).expect("rm");
    }
    fs::write(suite.join("d.txt"), "undo\n").expect("write");
    fs::copy(suite.join("a.expected.txt"), suite.join("d.expected")).expect("copy");
    let o = tictac(&["test", &shown]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains(
            "d.expected.txt is missing (run with --bless to create it; d.expected is beside it: \
             an expected file is named NAME.expected.txt)"
        ),
        "{}",
        text(&o)
    );
    // Every trace misnamed (saved as .TXT by a Windows tool): no test is
    // found, and the refusal says why, as each warning does (attack 39's D8).
    let misnamed = dir.path().join("s2");
    fs::create_dir(&misnamed).expect("mkdir");
    for name in ["a", "b"] {
        fs::write(misnamed.join(format!("{name}.TXT")), "undo\n").expect("write");
        fs::copy(suite.join("a.expected.txt"), misnamed.join(format!("{name}.expected.txt")))
            .expect("copy");
    }
    let said = format!(
        "error: no tests found: '{}' holds 2 expected files with no trace beside them ('a.TXT' \
         is beside 'a.expected.txt': a trace is named NAME.txt, .txt in lower case)\n",
        path(&misnamed)
    );
    let o = tictac(&["test", &path(&misnamed)]);
    assert_eq!((o.status.code(), text(&o)), (Some(2), said.clone()));
    let o =
        tictac(&["grade", &path(&misnamed), &path(&alice), "--command", "./ttt", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).starts_with(&said), "{}", text(&o));
}
