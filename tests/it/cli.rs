//! The executable from outside: invocation and file errors, exit statuses,
//! output files, closed pipes and hostile bytes.

use crate::common::{BIN, file, temp_dir, text, tictac, tictac_with_input};
use std::fs;
use std::io::Read;
use std::process::{Command, Stdio};

const HELP_LINE: &str = "Run 'tictac -help' to see more details\n";

fn usage_error(args: &[&str], message: &str) {
    let o = tictac(args);
    assert_eq!(text(&o), format!("{message}\n{HELP_LINE}"), "{args:?}");
    assert_eq!(o.status.code(), Some(2), "{args:?}");
}

/// A mistake in a command's options points to that command's help.
fn command_error(args: &[&str], message: &str) {
    let o = tictac(args);
    let help = format!("Run 'tictac {} --help' to see more details\n", args[0]);
    assert_eq!(text(&o), format!("{message}\n{help}"), "{args:?}");
    assert_eq!(o.status.code(), Some(2), "{args:?}");
}

#[test]
fn invocation_errors_name_the_problem_and_exit_2() {
    usage_error(&[], "Error: a mode is not specified");
    usage_error(&["-x"], "Error: '-x' is not a valid mode");
    usage_error(&["b", "t"], "Error: 'b' is not a valid mode");
    for args in [
        &["-b"][..],
        &["-b", "a", "b", "c"],
        &["-i", "x"],
        &["-l"],
        &["-w", "1", "2"],
        &["-help", "x"],
    ] {
        usage_error(args, &format!("Error: wrong number of arguments for the '{}' mode", args[0]));
    }
}

#[test]
fn window_errors_are_checked_before_files() {
    usage_error(&["-w", "a", "2", "missing"], "Error: the start of window is not a valid integer");
    usage_error(
        &["-w", "1", "x", "missing"],
        "Error: the end of window is neither a valid integer nor '_'",
    );
    usage_error(
        &["-w", "3", "2", "missing"],
        "Error: a window [start, end) should be such that start <= end",
    );
    usage_error(
        &["-w", "-1", "2", "missing"],
        "Error: when the start of a window is non-positive, its end must be a non-positive number",
    );
}

#[test]
fn help_and_version() {
    let o = tictac(&["-help"]);
    assert!(o.status.success());
    assert!(text(&o).contains("tictac -b IN"), "{}", text(&o));
    let o = tictac(&["-version"]);
    assert_eq!(text(&o), format!("tictac {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn input_file_errors_run_nothing() {
    let dir = temp_dir();
    let missing = dir.path().join("missing.txt");
    let missing = missing.to_string_lossy();
    let o = tictac(&["-b", &missing]);
    assert_eq!(text(&o), format!("error: '{missing}' does not exist\n"));
    assert_eq!(o.status.code(), Some(2));
    let folder = dir.path().to_string_lossy();
    let o = tictac(&["-l", &folder]);
    assert_eq!(text(&o), format!("error: '{folder}' is not readable\n"));
    assert_eq!(o.status.code(), Some(2));
    // The input is checked before the output is created.
    let out = dir.path().join("out.txt");
    tictac(&["-b", &missing, &out.to_string_lossy()]);
    assert!(!out.exists());
}

#[test]
fn an_existing_output_file_is_never_touched() {
    let dir = temp_dir();
    let t = file(dir.path(), "t.txt", b"new_game(\"a\",\"b\")\n");
    let out = dir.path().join("out.txt");
    fs::write(&out, b"precious").expect("write");
    let out_name = out.to_string_lossy().into_owned();
    for args in
        [vec!["-b", &t, &out_name], vec!["-l", &t, &out_name], vec!["-w", "1", "_", &t, &out_name]]
    {
        let o = tictac(&args);
        assert_eq!(text(&o), format!("Error: output file {out_name} already exists!\n"));
        assert_eq!(o.status.code(), Some(2));
    }
    assert_eq!(fs::read(&out).expect("read"), b"precious");
    let nowhere = dir.path().join("no/such/dir/out.txt");
    let o = tictac(&["-b", &t, &nowhere.to_string_lossy()]);
    assert!(text(&o).starts_with(&format!("error: '{}' cannot be created: ", nowhere.display())));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn exit_status_tells_ran_from_rejected() {
    let dir = temp_dir();
    let good = file(dir.path(), "good.txt", b"new_game(\"a\",\"b\")\nplay(\"b\",1)\n");
    assert_eq!(tictac(&["-b", &good]).status.code(), Some(0));
    let bad = file(dir.path(), "bad.txt", b"new_game(\"a\",\"b\")\nplay(\"b\",1\n");
    assert_eq!(tictac(&["-b", &bad]).status.code(), Some(1));
    let typed = file(dir.path(), "typed.txt", b"undo(1)\n");
    assert_eq!(tictac(&["-b", &typed]).status.code(), Some(1));
    assert_eq!(tictac(&["-l", &typed]).status.code(), Some(1));
    let out = dir.path().join("o.txt");
    assert_eq!(tictac(&["-b", &typed, &out.to_string_lossy()]).status.code(), Some(1));
    // An error before the window is not shown, and not counted.
    let early = file(dir.path(), "early.txt", b"undo(1)\nundo\n");
    let o = tictac(&["-l", &early]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).starts_with("  ok:  => start new game\n"));
}

#[test]
fn names_are_bytes_echoed_unchanged() {
    let dir = temp_dir();
    let t = file(
        dir.path(),
        "bytes.txt",
        b"new_game(\"A\xff\x00\xc3\",\"B\xe2\x82\xac\")\nplay(\"A\xff\x00\xc3\",5)\n",
    );
    let o = tictac(&["-b", &t]);
    assert_eq!(o.status.code(), Some(0));
    let out = o.stdout;
    let needle = b"->play(\"A\xff\x00\xc3\",5)\n  ok: => B\xe2\x82\xac plays next\n";
    assert!(out.windows(needle.len()).any(|w| w == needle));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = temp_dir();
    let body = "new_game(\"a\",\"b\")\n".to_string() + &"undo\n".repeat(200_000);
    let t = file(dir.path(), "long.txt", body.as_bytes());
    let mut child = Command::new(BIN)
        .args(["-b", &t])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 100];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let o = child.wait_with_output().expect("wait");
    assert_eq!(String::from_utf8_lossy(&o.stderr), "");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn piped_shell_ends_at_end_of_input_without_quit() {
    let o = tictac_with_input(&["-i"], b"new_game(\"a\",\"b\")\r\nundo");
    assert!(o.status.success());
    let out = text(&o);
    assert!(out.ends_with("  0: score for \"b\" (as O)\n->"), "{out}");
    assert_eq!(out.matches("->").count(), 3);
}

#[test]
fn piped_shell_answers_a_long_line_with_an_early_error_once() {
    // The error is at column 1 of a line of 300,000 bytes: the line is read in
    // pieces, and what follows the error is still that line, never run.
    for line in [format!("#{}undo", " ".repeat(300_000)), format!("undo #{}", "a".repeat(300_000))]
    {
        let input = format!("new_game(\"A\",\"B\")\nplay(\"A\",1)\n{line}\n");
        let o = tictac_with_input(&["-i"], input.as_bytes());
        let out = text(&o);
        let after = out.rsplit_once("->").map_or("", |(head, _)| head);
        let last = after.rsplit_once("->").map_or("", |(_, answer)| answer);
        assert!(last.contains("parse error (Line 1, Column "), "{last}");
        assert_eq!(out.matches("->").count(), 4, "one answer per line: {out}");
        assert!(!out.contains("Type Error"), "{out}");
    }
}

#[test]
fn a_trace_too_big_for_the_tape_is_read_again_with_the_same_result() {
    // 300 distinct names are more than the tape keeps: the run re-reads.
    let dir = temp_dir();
    let mut body = String::from("new_game(\"Ann\",\"Bob\")\n");
    for k in 0..300 {
        body.push_str(&format!(
            "play(\"P{k}\",{})\nplay(\"Ann\",{})\nundo\n",
            k % 9 + 1,
            k % 9 + 1
        ));
    }
    let t = file(dir.path(), "names.txt", body.as_bytes());
    let whole = tictac(&["-b", &t]);
    let line_by_line = tictac(&["-w", "1", "_", &t]);
    assert_eq!(whole.status.code(), Some(0));
    assert_eq!(text(&whole), text(&line_by_line));
    assert!(text(&whole).contains("->play(\"P299\",3)\n  no such player: => Ann plays next\n"));
}

#[test]
fn the_board_needs_a_terminal() {
    let o = tictac(&["-g"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o), "error: the board (-g) needs a terminal; -i and -b work without one\n");
}

#[test]
fn help_and_version_take_the_usual_forms_too() {
    let help = text(&tictac(&["-help"]));
    for form in ["--help", "-h"] {
        let o = tictac(&[form]);
        assert_eq!(text(&o), help, "{form}");
        assert!(o.status.success());
    }
    assert!(help.contains("the last line, with the state before and after it"), "{help}");
    let o = tictac(&["--version"]);
    assert_eq!(text(&o), format!("tictac {}\n", env!("CARGO_PKG_VERSION")));
    usage_error(&["--help", "x"], "Error: wrong number of arguments for the '--help' mode");
}

#[test]
fn bots_that_could_never_play_are_usage_errors() {
    let dir = temp_dir();
    let t = file(dir.path(), "t.txt", b"new_game(\"Hal\",\"Ann\")\n");
    let never = |name: &str| {
        format!("Error: the bot name '{name}' can never play: names start with A-Z or a-z")
    };
    usage_error(&["-b", &t, "--bot", "=perfect"], &never(""));
    usage_error(&["-b", &t, "--bot", "9Hal=perfect"], &never("9Hal"));
    usage_error(&["--bot", "_Hal=tla", "-i"], &never("_Hal"));
    usage_error(
        &["-b", &t, "--bot", "Hal=perfect", "--bot", "Hal=elm"],
        "Error: two bots are named 'Hal'",
    );
    usage_error(
        &["-b", &t, "--seed", "7"],
        "Error: --seed makes the bots' choices random, so it needs a --bot",
    );
    // The same with a bot runs.
    let o = tictac(&["-b", &t, "--seed", "7", "--bot", "Hal=random"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("->play(\"Hal\","), "{}", text(&o));
}

/// An output that cannot be written (a full device) is an error on standard
/// error with exit 2, in every mode that prints to standard output. (`>&-`
/// cannot be told apart: Rust's runtime opens /dev/null on a closed
/// standard output before `main`; docs/DECISIONS.md.)
// /dev/full is Linux's.
#[cfg(target_os = "linux")]
#[test]
fn an_output_that_cannot_be_written_is_an_error() {
    let dir = temp_dir();
    let t = file(dir.path(), "t.txt", b"new_game(\"a\",\"b\")\nplay(\"a\",5)\n");
    let suite = dir.path().to_string_lossy().into_owned();
    let runs: [&[&str]; 6] = [
        &["-b", &t],
        &["-w", "1", "2", &t],
        &["-l", &t],
        &["-b", &t, "-"],
        &["test", &suite],
        // One strategy's row: the whole table's exploration costs seconds
        // of a debug build's CPU, and its lines go out the same way.
        &["verify", "--strategy", "elm", "--as", "X"],
    ];
    for args in runs {
        let full = fs::File::create("/dev/full").expect("/dev/full");
        let o = Command::new(BIN).args(args).stdout(full).output().expect("run tictac");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            stderr.starts_with("error: writing the output failed: No space left on device"),
            "{args:?}: {stderr}"
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

/// A number too large for an option says so and gives the maximum; a count
/// that is capped anyway (`-j`, `--max-lines`) takes any size.
#[test]
fn numbers_too_large_say_so_and_give_the_maximum() {
    let big = "18446744073709551616";
    let seconds = |option: &str, v: &str| {
        format!("Error: {option} takes at most 1000000000 seconds, not '{v}'")
    };
    let u64_max =
        |option: &str| format!("Error: {option} takes at most 18446744073709551615, not '{big}'");
    let cases: [(&[&str], String); 10] = [
        (&["test", "--timeout", big], seconds("--timeout", big)),
        (&["test", "--timeout", "1e300"], seconds("--timeout", "1e300")),
        (&["serve", "--timeout", big], seconds("--timeout", big)),
        (&["fuzz", "--program", "x", "--timeout", "inf"], seconds("--timeout", "inf")),
        (&["fuzz", "--program", "x", "--time", big], seconds("--time", big)),
        (&["fuzz", "--program", "x", "--runs", big], u64_max("--runs")),
        (&["fuzz", "--program", "x", "--seed", big], u64_max("--seed")),
        (&["-b", "t.txt", "--bot", "Ann=random", "--seed", big], u64_max("--seed")),
        (
            &["serve", "--port", big],
            format!("Error: --port takes a port number from 0 to 65535, not '{big}'"),
        ),
        // The window's messages are the oracle's (SPEC 5.1).
        (&["-w", big, "1", "t.txt"], "Error: the start of window is not a valid integer".into()),
    ];
    for (args, message) in cases {
        match args[0].starts_with('-') {
            true => usage_error(args, &message),
            false => command_error(args, &message),
        }
    }
    // Not too large: still refused for what they are.
    command_error(
        &["test", "--timeout", "0"],
        "Error: --timeout takes a positive number of seconds, not '0'",
    );
    command_error(&["test", "-j", "0"], "Error: --jobs takes a positive whole number, not '0'");
    // Capped counts: a huge one is the cap.
    let dir = temp_dir();
    file(dir.path(), "a.txt", b"undo\n");
    let suite = dir.path().to_string_lossy().into_owned();
    assert_eq!(tictac(&["test", "--bless", "-j", big, &suite]).status.code(), Some(0));
    assert_eq!(tictac(&["test", "-j", big, &suite]).status.code(), Some(0));
}
