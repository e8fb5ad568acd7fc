//! The input is read exactly once, whatever it is: a regular file, a pipe,
//! a FIFO, `/dev/stdin`, process substitution or `-` give the same output in
//! every mode; a closed output pipe keeps the exit status already earned;
//! an answer that does not need the end of the input comes at once.

use crate::common::{BIN, PATIENCE, finish, run, temp_dir, tictac_with_input};
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A trace with every kind of line, a string across lines, and more than
/// 256 distinct names (past what was ever kept in memory for a run).
fn trace_text() -> Vec<u8> {
    let mut t =
        String::from("-- a game\nnew_game(\"Ann\",\n\"Bob\")\n\n  ?\nplay(\"Ann\", 5) undo redo\n");
    for k in 0..300 {
        t.push_str(&format!("new_game(\"P{k}\",\"Q{k}\") play(\"P{k}\", {})\n", k % 9 + 1));
    }
    t.push_str("play_again\nundo\n");
    t.into_bytes()
}

fn write_trace(dir: &Path) -> PathBuf {
    let path = dir.join("trace.txt");
    fs::write(&path, trace_text()).expect("write trace");
    path
}

/// The modes, with `IN` (and `OUT`) to fill in.
const MODES: [&[&str]; 5] = [
    &["-b", "IN"],
    &["-b", "IN", "OUT"],
    &["-l", "IN"],
    &["-w", "3", "7", "IN"],
    &["-w", "-4", "_", "IN", "OUT"],
];

/// What a mode prints (or writes to OUT) with `input` as IN.
fn output_of(mode: &[&str], input: &str, dir: &Path, feed: impl FnOnce() -> Output) -> Vec<u8> {
    let out = dir.join("out.txt");
    let _ = fs::remove_file(&out);
    let o = feed();
    assert!(o.status.success(), "{mode:?} with {input}: {:?}", o.status);
    if mode.contains(&"OUT") { fs::read(&out).expect("OUT written") } else { o.stdout }
}

fn argv(mode: &[&str], input: &str, dir: &Path) -> Vec<String> {
    let out = dir.join("out.txt").to_string_lossy().into_owned();
    mode.iter()
        .map(|a| match *a {
            "IN" => input.to_string(),
            "OUT" => out.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn expected(mode: &[&str], dir: &Path) -> Vec<u8> {
    let file = write_trace(dir);
    let file = file.to_string_lossy().into_owned();
    let args = argv(mode, &file, dir);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let bytes = output_of(mode, &file, dir, || tictac_with_input(&args, b""));
    assert!(bytes.len() > 200, "{mode:?}: {}", String::from_utf8_lossy(&bytes));
    bytes
}

/// `tictac ARGS` with the trace on standard input: a pipe, or a socket
/// (which cannot be opened by name, as `/dev/stdin` is otherwise).
fn trace_on_stdin(args: &[String], socket: bool) -> Output {
    if !socket {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        return tictac_with_input(&args, &trace_text());
    }
    let (mut ours, theirs) = std::os::unix::net::UnixStream::pair().expect("socket pair");
    let child = Command::new(BIN)
        .args(args)
        .stdin(std::os::fd::OwnedFd::from(theirs))
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let writer = thread::spawn(move || {
        let _ = ours.write_all(&trace_text());
        let _ = ours.shutdown(std::net::Shutdown::Write);
    });
    let out = finish(child);
    writer.join().expect("writer");
    out
}

#[test]
fn a_pipe_or_a_socket_as_dev_stdin_or_dash_gives_what_the_file_gives() {
    let dir = temp_dir();
    for mode in MODES {
        let want = expected(mode, dir.path());
        for (input, socket) in
            [("/dev/stdin", false), ("-", false), ("/dev/stdin", true), ("-", true)]
        {
            let args = argv(mode, input, dir.path());
            let got = output_of(mode, input, dir.path(), || trace_on_stdin(&args, socket));
            let what = if socket { "a socket" } else { "a pipe" };
            assert!(
                got == want,
                "{mode:?} with {input}, {what}:\n{}",
                String::from_utf8_lossy(&got)
            );
        }
    }
}

#[test]
fn a_fifo_is_read_once_without_hanging() {
    let dir = temp_dir();
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let fifo_name = fifo.to_string_lossy().into_owned();
    for mode in MODES {
        let want = expected(mode, dir.path());
        let args = argv(mode, &fifo_name, dir.path());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = output_of(mode, &fifo_name, dir.path(), || {
            let child =
                Command::new(BIN).args(&args).stdout(Stdio::piped()).spawn().expect("run tictac");
            let path = fifo.clone();
            // Written once, as a program writes into a FIFO, then closed.
            let writer = thread::spawn(move || {
                if let Ok(mut f) = fs::OpenOptions::new().write(true).open(path) {
                    let _ = f.write_all(&trace_text());
                }
            });
            let out = finish(child);
            writer.join().expect("writer");
            out
        });
        assert!(got == want, "{mode:?} with a FIFO:\n{}", String::from_utf8_lossy(&got));
    }
}

#[test]
fn process_substitution_gives_what_the_file_gives() {
    let dir = temp_dir();
    for mode in MODES {
        let want = expected(mode, dir.path());
        let file = dir.path().join("trace.txt").to_string_lossy().into_owned();
        let substituted = format!("<(cat '{file}')");
        let args = argv(mode, &substituted, dir.path());
        let got = output_of(mode, &substituted, dir.path(), || {
            let script = format!("exec '{BIN}' {}", args.join(" "));
            finish(
                Command::new("bash")
                    .arg("-c")
                    .arg(script)
                    .stdout(Stdio::piped())
                    .spawn()
                    .expect("bash"),
            )
        });
        assert!(got == want, "{mode:?} with <(cat):\n{}", String::from_utf8_lossy(&got));
    }
}

/// A second read of the input would see something else (here: nothing, as
/// a pipe gives once it is read, or a file truncated after its first read);
/// the run must not depend on it.
#[test]
fn what_the_input_holds_after_its_first_read_changes_nothing() {
    let dir = temp_dir();
    let want = expected(&["-b", "IN"], dir.path());
    let o = tictac_with_input(&["-b", "/dev/stdin"], &trace_text());
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout == want, "{}", String::from_utf8_lossy(&o.stdout));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("changed while"));
}

#[test]
fn dash_is_standard_input_and_a_missing_file_is_still_missing() {
    let o = tictac_with_input(&["-b", "-"], b"new_game(\"Ann\",\"Bob\")\n");
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stdout).contains("->new_game(\"Ann\",\"Bob\")\n"));
    let o = tictac_with_input(&["-b", "./-"], b"");
    assert_eq!(String::from_utf8_lossy(&o.stdout), "error: './-' does not exist\n");
    assert_eq!(o.status.code(), Some(2));
}

/// `-` as OUT is standard output: the run prints what it would write to a
/// new OUT (the chunks transcript for `-b`), and no file named `-` appears.
#[test]
fn dash_as_out_prints_what_out_would_hold() {
    let dir = temp_dir();
    for mode in MODES.iter().filter(|m| m.contains(&"OUT")) {
        let want = expected(mode, dir.path());
        let file = dir.path().join("trace.txt").to_string_lossy().into_owned();
        for input in [file.as_str(), "-"] {
            let args: Vec<&str> = mode
                .iter()
                .map(|a| match *a {
                    "IN" => input,
                    "OUT" => "-",
                    other => other,
                })
                .collect();
            let o = Command::new(BIN)
                .args(&args)
                .current_dir(dir.path())
                .stdin(fs::File::open(&file).expect("trace"))
                .output()
                .expect("run tictac");
            assert_eq!(o.status.code(), Some(0), "{args:?}");
            assert!(o.stdout == want, "{args:?}:\n{}", String::from_utf8_lossy(&o.stdout));
            assert!(!dir.path().join("-").exists(), "{args:?} made a file named -");
        }
    }
    // The chunks transcript is not the whole-trace one: a parse error in
    // the second chunk leaves the first chunk's run in place.
    let mut text = "undo\n".repeat(100);
    text.push_str("play(\n");
    let o = tictac_with_input(&["-b", "-", "-"], text.as_bytes());
    let printed = String::from_utf8_lossy(&o.stdout);
    assert!(
        printed.starts_with("  ok:") && printed.ends_with("parse error (Line 2, Column 1)\n"),
        "{printed}"
    );
    assert_eq!(o.status.code(), Some(1));
    // A file named `-` is still reachable as `./-`, and stays no-clobber.
    fs::write(dir.path().join("-"), "mine").expect("write");
    let o = run(Command::new(BIN).args(["-b", "trace.txt", "./-"]).current_dir(dir.path()), None);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Error: output file ./- already exists!\n");
    assert_eq!(fs::read_to_string(dir.path().join("-")).expect("read"), "mine");
}

/// Reads one line of tictac's output, then closes the pipe.
fn read_one_line_then_close(args: &[&str]) -> (String, Option<i32>) {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let mut first = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout).read_line(&mut first).expect("a line");
    let out = finish(child);
    (first, out.status.code())
}

#[test]
fn a_closed_pipe_keeps_the_exit_status_already_earned() {
    let dir = temp_dir();
    // Megabytes of type errors: the pipe closes while they are written.
    let bad = dir.path().join("bad.txt");
    fs::write(&bad, "undo(1)\n".repeat(200_000)).expect("write");
    let bad = bad.to_string_lossy().into_owned();
    let (first, status) = read_one_line_then_close(&["-b", &bad]);
    assert!(first.starts_with("Type Error"), "{first}");
    assert_eq!(status, Some(1));
    // A window whose first line fails, then megabytes of transcript.
    let window = dir.path().join("window.txt");
    let mut text = String::from("play(\"a\")\nnew_game(\"Ann\",\"Bob\")\n");
    text.push_str(&"undo\n".repeat(200_000));
    fs::write(&window, text).expect("write");
    let window = window.to_string_lossy().into_owned();
    let (first, status) = read_one_line_then_close(&["-w", "1", "_", &window]);
    assert!(first.starts_with("Type Error"), "{first}");
    assert_eq!(status, Some(1));
    // A good run stays 0.
    let good = dir.path().join("good.txt");
    fs::write(&good, "undo\n".repeat(200_000)).expect("write");
    let (_, status) = read_one_line_then_close(&["-b", &good.to_string_lossy()]);
    assert_eq!(status, Some(0));
}

#[test]
fn an_endless_input_gets_its_parse_error_at_once() {
    for args in [&["-b", "/dev/zero"][..], &["-w", "1", "2", "/dev/zero"]] {
        let o = tictac_with_input(args, b"");
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            "Syntax Error: specification of command executions cannot be parsed\nparse error (Line 1, Column 1)\n",
            "{args:?}"
        );
        assert_eq!(o.status.code(), Some(1));
    }
    // The answer does not wait for the end of the input.
    let mut child = Command::new(BIN)
        .args(["-b", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(b"undo\nplay(\"a\" 1)\n").expect("write");
    let mut answer = String::new();
    child.stdout.take().expect("stdout").read_to_string(&mut answer).expect("read");
    assert!(answer.ends_with("parse error (Line 2, Column 10)\n"), "{answer}");
    drop(input);
    assert_eq!(finish(child).status.code(), Some(1));
}

#[test]
fn a_window_to_the_end_answers_an_endless_first_line_at_once() {
    // `-w 1 _` reads on to find line 2, which never comes; line 1's answer
    // is out before that.
    let mut child = Command::new(BIN)
        .args(["-w", "1", "_", "/dev/zero"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let (sender, answer) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().expect("stdout");
    thread::spawn(move || {
        let mut lines = BufReader::new(stdout).lines();
        let two: Vec<String> = lines.by_ref().take(2).map_while(Result::ok).collect();
        let _ = sender.send(two.join("\n"));
    });
    let got = answer.recv_timeout(PATIENCE);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        got.as_deref(),
        Ok(
            "Syntax Error: specification of command executions cannot be parsed\nparse error (Line 1, Column 1)"
        )
    );
}

/// Runs tictac on a FIFO whose writer writes `bytes` and then stays open:
/// what tictac prints, or a failure if it has not finished within `PATIENCE`
/// (it must not wait for the writer to close).
fn answer_with_the_writer_open(args: &[&str], bytes: &'static [u8]) -> Output {
    let dir = temp_dir();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let fifo_name = fifo.to_string_lossy().into_owned();
    let args: Vec<&str> =
        args.iter().map(|&a| if a == "FIFO" { fifo_name.as_str() } else { a }).collect();
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    // Opening blocks until tictac opens its end; then the writer stays open.
    let mut writer = fs::OpenOptions::new().write(true).open(&fifo).expect("open the FIFO");
    writer.write_all(bytes).expect("write");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still waits for the writer to close after {PATIENCE:?}");
        }
        thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    drop(writer);
    out
}

#[test]
fn an_answer_known_at_the_first_bad_byte_does_not_wait_for_the_writer() {
    let parse_error = |at: &str| {
        format!(
            "Syntax Error: specification of command executions cannot be parsed\nparse error ({at})\n"
        )
    };
    let cases: [(&[&str], &[u8], &str); 12] = [
        (&["-b", "FIFO"], b"\0", "Line 1, Column 1"),
        // The last token is whole, and no text after it can change the error.
        (&["-b", "FIFO"], b"undo)", "Line 1, Column 5"),
        (&["-b", "FIFO"], b"undo 5", "Line 1, Column 6"),
        (&["-b", "FIFO"], b"undo\n  play(\"Ann\" 5", "Line 2, Column 14"),
        (&["-b", "FIFO"], b"undo(1 ]", "Line 1, Column 8"),
        (&["-b", "FIFO"], b"undo,", "Line 1, Column 5"),
        (&["-w", "1", "2", "FIFO"], b"redo()", "Line 1, Column 6"),
        (&["-b", "FIFO"], b"\xff", "Line 1, Column 1"),
        (&["-w", "1", "2", "FIFO"], b"\0", "Line 1, Column 1"),
        (&["-b", "FIFO"], b"undo\n\0", "Line 2, Column 1"),
        (&["-b", "FIFO"], b"-- c\n  play(\"Ann\", 5) ; ", "Line 1, Column 18"),
        (&["-b", "FIFO"], b"undo\n  new_game(\"a\", \"b\") # ", "Line 2, Column 22"),
    ];
    for (args, bytes, at) in cases {
        let o = answer_with_the_writer_open(args, bytes);
        assert_eq!(String::from_utf8_lossy(&o.stdout), parse_error(at), "{args:?} {bytes:?}");
        assert_eq!(o.status.code(), Some(1), "{args:?} {bytes:?}");
    }
}

/// A window counted from the start prints each line as it runs: with the
/// writer of a FIFO still open, what the lines so far printed is already
/// out (it waited in the output buffer for the end of the input).
#[test]
fn a_window_from_the_start_prints_before_the_writer_closes() {
    let dir = temp_dir();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let mut child = Command::new(BIN)
        .args(["-w", "2", "_", &fifo.to_string_lossy()])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let mut writer = fs::OpenOptions::new().write(true).open(&fifo).expect("open the FIFO");
    writer.write_all(b"new_game(\"a\",\"b\")\nplay(\"a\",1)\nplay(\"b\",2)\n").expect("write");
    let stdout = child.stdout.take().expect("stdout");
    let (sender, lines) = std::sync::mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.expect("a line")).is_err() {
                return;
            }
        }
    });
    // The state before line 2, then lines 2 and 3 with their states.
    let mut seen = Vec::new();
    while seen.len() < 20 {
        match lines.recv_timeout(PATIENCE) {
            Ok(line) => seen.push(line),
            Err(_) => {
                let _ = child.kill();
                panic!("with the writer open, only {} lines came: {seen:?}", seen.len());
            }
        }
    }
    assert_eq!(seen[6], "->play(\"a\",1)");
    assert_eq!(seen[13], "->play(\"b\",2)");
    drop(writer);
    assert!(child.wait().expect("wait").success());
}

/// Reads tictac's output lines as they come, on a thread of their own.
fn lines_as_they_come(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("stdout");
    let (sender, lines) = std::sync::mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.expect("a line")).is_err() {
                return;
            }
        }
    });
    lines
}

/// Waits for lines until one satisfies `done`; fails past `PATIENCE`.
fn wait_for(
    lines: &std::sync::mpsc::Receiver<String>,
    child: &mut Child,
    what: &str,
    mut done: impl FnMut(&str) -> bool,
) {
    let mut seen = 0;
    loop {
        match lines.recv_timeout(PATIENCE) {
            Ok(line) if done(&line) => return,
            Ok(_) => seen += 1,
            Err(_) => {
                let _ = child.kill();
                panic!("with the writer open, {what} did not come ({seen} lines did)");
            }
        }
    }
}

/// `-b IN -` validates and runs each chunk of 100 kept lines as a unit: with
/// the writer of a FIFO still open, a chunk's output comes once its last
/// line is read (it waited in the output buffer for the end of the input),
/// and a parse error as soon as the bytes decide it, before the rest of its
/// chunk is read.
#[test]
fn chunks_print_each_chunk_before_the_writer_closes() {
    let dir = temp_dir();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let mut child = Command::new(BIN)
        .args(["-b", &fifo.to_string_lossy(), "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run tictac");
    let mut writer = fs::OpenOptions::new().write(true).open(&fifo).expect("open the FIFO");
    let lines = lines_as_they_come(&mut child);
    let mut first = String::from("new_game(\"a\",\"b\")\n");
    first.push_str(&"undo\n".repeat(99));
    writer.write_all(first.as_bytes()).expect("write");
    let mut undos = 0;
    wait_for(&lines, &mut child, "the first chunk", |line| {
        undos += usize::from(line == "->undo");
        undos == 99
    });
    // The second chunk: a parse error on its second line, the writer open.
    writer.write_all(b"undo\nredo)").expect("write");
    wait_for(&lines, &mut child, "the parse error", |line| {
        line == "parse error (Line 2, Column 5)"
    });
    drop(writer);
    assert_eq!(finish(child).status.code(), Some(1));
}
