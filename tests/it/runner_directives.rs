//! `-- run:` lines at their edges: `-` (the trace itself, never the
//! runner's own standard input), an OUT under any name (a scratch file, for
//! the engine and `--program` alike), forms that run no trace, and the
//! timeout of a run in-process.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, finish, path, run, script, temp_dir, text, tictac};

const TRACE: &str = "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n";

/// What `tictac -b` prints for `trace`.
fn transcript(trace: &str) -> String {
    let dir = temp_dir();
    let file = dir.path().join("t.txt");
    fs::write(&file, trace).expect("write");
    text(&tictac(&["-b", &path(&file)]))
}

#[test]
fn dash_is_the_trace_itself_never_the_runners_standard_input() {
    let dir = temp_dir();
    let trace = format!("-- run: -b -\n{TRACE}");
    fs::write(dir.path().join("r.txt"), &trace).expect("write");
    // The runner's standard input holds a secret: it must not be read.
    let o = run(Command::new(BIN).args(["test", "--bless", &path(dir.path())]), Some(b"undo\n"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let blessed = fs::read_to_string(dir.path().join("r.expected.txt")).expect("blessed");
    assert_eq!(blessed, transcript(TRACE), "the trace's own transcript");
    // The same for `/dev/stdin`, and for a program: it reads the trace there.
    fs::write(dir.path().join("s.txt"), format!("-- run: -b /dev/stdin\n{TRACE}")).expect("write");
    fs::copy(dir.path().join("r.expected.txt"), dir.path().join("s.expected.txt")).expect("copy");
    let o = run(Command::new(BIN).args(["test", &path(dir.path())]), Some(b"undo\n"));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", "--program", BIN, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let tools = temp_dir();
    let echo = script(tools.path(), "echo.sh", "exec cat");
    let o = tictac(&["test", "--program", &echo, &path(&dir.path().join("r.txt"))]);
    assert!(text(&o).contains("| -- run: -b -\n"), "it read no trace:\n{}", text(&o));
}

#[test]
fn dash_never_waits_for_a_standard_input_that_stays_open() {
    let dir = temp_dir();
    fs::write(dir.path().join("r.txt"), format!("-- run: -b -\n{TRACE}")).expect("write");
    let mut child = Command::new(BIN)
        .args(["test", "--bless", &path(dir.path())])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    // The writer stays open (and says nothing) until the runner ends.
    let writer = child.stdin.take();
    let o = finish(child);
    drop(writer);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("created"), "{}", text(&o));
}

#[test]
fn a_run_in_process_has_the_programs_timeout() {
    let dir = temp_dir();
    // A million lines, each run for a window near the end: seconds in a
    // debug build.
    let big = dir.path().join("big.data");
    fs::write(&big, "undo\n".repeat(1_000_000)).expect("write");
    fs::write(dir.path().join("w.txt"), format!("-- run: -w -3 -2 {}\n", path(&big)))
        .expect("write");
    let start = Instant::now();
    let o = tictac(&["test", "--timeout", "0.1", &path(dir.path())]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("ran longer than 0.1 s and was stopped"), "{out}");
    assert!(start.elapsed() < Duration::from_secs(20), "{:?}", start.elapsed());
}

#[test]
fn out_under_any_name_is_a_scratch_file_compared_in_process_and_with_a_program() {
    let dir = temp_dir();
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    let elsewhere = path(&dir.path().join("elsewhere.txt"));
    // A trace named out.txt: its private copy is not the program's OUT.
    let outs = [("a", "made.txt"), ("b", elsewhere.as_str()), ("c", "IN"), ("out", "OUT")];
    for (name, out) in outs {
        let trace = format!("-- run: -b IN {out}\n{TRACE}");
        fs::write(suite.join(format!("{name}.txt")), trace).expect("write");
    }
    let work = dir.path().join("work");
    fs::create_dir(&work).expect("mkdir");
    let in_work = |args: &[&str]| run(Command::new(BIN).args(args).current_dir(&work), None);
    let o = in_work(&["test", "--bless", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let expected = fs::read_to_string(suite.join("a.expected.txt")).expect("blessed");
    assert!(expected.contains("->play(\"Ann\",5)"), "the chunks' transcript:\n{expected}");
    let o = in_work(&["test", "--program", BIN, &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(fs::read_dir(&work).expect("ls").count(), 0, "a file was made in the folder");
    assert!(!dir.path().join("elsewhere.txt").exists(), "a file was made elsewhere");
    assert_eq!(fs::read_to_string(suite.join("c.txt")).expect("read").lines().count(), 3);
}

#[test]
fn a_form_that_runs_no_trace_is_refused_in_plain_words() {
    let dir = temp_dir();
    for (name, line) in [("a", "test"), ("b", "-g"), ("c", "-help"), ("d", "-i --record x.txt")] {
        fs::write(dir.path().join(format!("{name}.txt")), format!("-- run: {line}\nundo\n"))
            .expect("write");
    }
    for program in [None, Some(BIN)] {
        let mut args = vec!["test"];
        args.extend(program.map(|p| ["--program", p]).into_iter().flatten());
        let folder = path(dir.path());
        args.push(&folder);
        let o = run(Command::new(BIN).args(&args).current_dir(dir.path()), None);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.ends_with("Test Results: 0/4 passed.\n"), "{out}");
        assert!(!out.contains('{') && !out.contains("Options"), "debug output:\n{out}");
        for line in ["test", "-g", "-help", "-i --record x.txt"] {
            let said = format!("line 1, `-- run: {line}`, runs no trace: a `-- run:` line takes");
            assert!(out.contains(&said), "{said}\n{out}");
        }
        assert!(out.contains("`-b IN [OUT]`, `-w M N IN [OUT]`, `-l IN [OUT]` or `-i`"), "{out}");
        assert!(!dir.path().join("x.txt").exists(), "a recording was made");
    }
}

#[test]
fn a_link_to_standard_input_is_refused_in_process() {
    let dir = temp_dir();
    let secret = dir.path().join("secret.data");
    fs::write(&secret, "new_game(\"Sec\",\"Ret\")\n").expect("write");
    let link = dir.path().join("link.data");
    std::os::unix::fs::symlink("/dev/stdin", &link).expect("symlink");
    let suite = dir.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("r.txt"), format!("-- run: -b {}\nundo\n", path(&link))).expect("write");
    let stdin = fs::File::open(&secret).expect("open");
    let child = Command::new(BIN)
        .args(["test", "--bless", &path(&suite)])
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let o = finish(child);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("which is the runner's own standard input: write `-`"), "{out}");
    assert!(!suite.join("r.expected.txt").exists(), "blessed:\n{out}");
}

#[test]
fn a_link_to_standard_input_is_never_read_for_a_program_either() {
    let dir = temp_dir();
    std::os::unix::fs::symlink("/dev/stdin", dir.path().join("in2.txt")).expect("link");
    fs::write(dir.path().join("t.txt"), "-- run: -b in2.txt\nundo\n").expect("write");
    fs::write(dir.path().join("t.expected.txt"), "x\n").expect("write");
    let secret = dir.path().join("secret.txt");
    fs::write(&secret, "TOP SECRET\n").expect("write");
    let tools = temp_dir();
    let cat = script(tools.path(), "cat.sh", "cat \"$2\"");
    // Standard input a regular file, as `< secret.txt` makes it.
    let o = Command::new(BIN)
        .current_dir(dir.path())
        .args(["test", "t.txt", "--program", &cat])
        .stdin(fs::File::open(&secret).expect("open"))
        .output()
        .expect("run");
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(!out.contains("TOP SECRET"), "{out}");
    assert!(out.contains("which is the runner's own standard input"), "{out}");
}
