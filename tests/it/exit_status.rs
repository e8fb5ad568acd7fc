//! Each layer's error and the status the program ends with (`app` maps them
//! in one place): the message byte for byte and the status, for the errors
//! other modules do not check; an output that cannot be written; an output
//! closed before anything is written, which ends quietly with the status
//! the run had earned.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{BIN, file, finish, run, temp_dir, text};

/// `tictac ARGS` in `dir`, its output going to `stdout`.
fn run_into(dir: &Path, args: &[&str], stdout: impl Into<Stdio>) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    finish(child)
}

/// `tictac ARGS` in `dir`, its output captured.
fn run_in(dir: &Path, args: &[&str]) -> Output {
    run(Command::new(BIN).args(args).current_dir(dir), None)
}

/// A folder with a passing test and a failing one, traces, and an existing
/// file.
fn setup() -> tempfile::TempDir {
    let dir = temp_dir();
    let good = "new_game(\"a\",\"b\")\nplay(\"a\",5)\n";
    file(dir.path(), "good.txt", good);
    file(dir.path(), "typed.txt", "new_game(1,\"b\")\n");
    file(dir.path(), "exists.txt", "");
    let tests = dir.path().join("tests");
    fs::create_dir(&tests).expect("mkdir");
    let expected = run_in(dir.path(), &["-b", "good.txt"]).stdout;
    for (name, expected) in [("pass", &expected[..]), ("fail", b"nope\n")] {
        file(&tests, &format!("{name}.txt"), good);
        file(&tests, &format!("{name}.expected.txt"), expected);
    }
    dir
}

#[test]
fn errors_of_every_layer_print_their_message_and_exit_2() {
    let dir = setup();
    let cases: &[(&[&str], &str)] = &[
        (
            &["fuzz", "--program", "true", "--oracle", "/nonexistent/o", "--runs", "1"],
            "Error: --oracle cannot run '/nonexistent/o': no such file\nRun 'tictac fuzz --help' to see more details\n",
        ),
        (
            &["fuzz", "--program", "/nonexistent/p", "--runs", "1"],
            "Error: --program cannot run '/nonexistent/p': no such file\nRun 'tictac fuzz --help' to see more details\n",
        ),
        (&["test", "--coverage", "nonexistent"], "error: 'nonexistent' does not exist\n"),
        (
            &["test", "--coverage", "--filter", "zzz", "tests"],
            "error: no test name contains 'zzz' (--filter)\n",
        ),
        (&["test", "tests/none.txt"], "error: 'tests/none.txt' does not exist\n"),
        (&["-w", "1", "_", "none.txt"], "error: 'none.txt' does not exist\n"),
        (&["-l", "tests", "out.txt"], "error: 'tests' is not readable\n"),
        (&["-b", "good.txt", "exists.txt"], "Error: output file exists.txt already exists!\n"),
        (
            &["-i", "--record", "nodir/rec.txt"],
            "error: 'nodir/rec.txt' cannot be created: No such file or directory (os error 2)\n",
        ),
        (
            &["-i", "--record", "exists.txt"],
            "Error: recording file exists.txt already exists! --record makes a new file\n",
        ),
        (
            &["verify", "--strategy", "tla", "--as", "x", "--trace-out", "exists.txt"],
            "Error: output file exists.txt already exists!\n",
        ),
        (&["-g"], "error: the board (-g) needs a terminal; -i and -b work without one\n"),
    ];
    for (args, message) in cases {
        let o = run_in(dir.path(), args);
        assert_eq!(text(&o), *message, "{args:?}");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    assert!(!dir.path().join("out.txt").exists());
}

// /dev/full is Linux's.
#[cfg(target_os = "linux")]
#[test]
fn an_output_that_cannot_be_written_is_an_error_on_standard_error() {
    let dir = setup();
    let fuzz_out = crate::common::path(&dir.path().join("found"));
    let cases: &[&[&str]] = &[
        &["-b", "good.txt"],
        &["-b", "typed.txt"],
        &["-w", "-1", "_", "good.txt"],
        &["-help"],
        &["-x"],
        &["-b", "none.txt"],
        &["test", "tests"],
        &["test", "--format", "tap", "tests"],
        &["test", "--coverage", "tests"],
        &["fuzz", "--program", "true", "--runs", "2", "--seed", "1", "-j", "1", "--out", &fuzz_out],
        &["serve", "--port", "0"],
    ];
    for args in cases {
        let full = fs::File::create("/dev/full").expect("/dev/full, on every Linux");
        let o = run_into(dir.path(), args, full);
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "error: writing the output failed: No space left on device (os error 28)\n",
            "{args:?}"
        );
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn a_closed_output_ends_quietly_with_the_status_earned() {
    let dir = setup();
    let cases: &[(&[&str], i32)] = &[
        (&["-b", "good.txt"], 0),
        (&["-b", "typed.txt"], 1),
        (&["-l", "typed.txt"], 1),
        (&["-help"], 0),
        (&["test", "--coverage", "tests"], 0),
        (&["test", "tests/pass.txt"], 0),
    ];
    for (args, status) in cases {
        // A pipe nobody reads: the first write fails.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let o = run_into(dir.path(), args, writer);
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?}");
        assert_eq!(o.status.code(), Some(*status), "{args:?}");
    }
}
