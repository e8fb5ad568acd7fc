//! Output files appear whole or not at all (`-b IN OUT`, `-w`/`-l ... OUT`,
//! `verify --trace-out`): a signal mid-run, a write that fails (a file size
//! limit standing in for a full disk) or a file that appears meanwhile leaves
//! no OUT, and no temporary file either, except after SIGKILL.
//!
//! A run is held mid-way by giving it a FIFO as its trace and keeping the
//! FIFO open: it has started OUT's temporary file and waits for more input.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{BIN, assert_signal_not_ignored, run, temp_dir};
use rustix::process::{Pid, Signal, kill_process};

const GAME: &str = "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5) play(\"Bob\",1)\nundo\nredo\n";

/// What is in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn is_temp_of(name: &str, out: &str) -> bool {
    name.starts_with(&format!(".{out}.tictac-"))
}

/// A run of tictac reading a FIFO that the test writes.
struct HeldRun {
    dir: tempfile::TempDir,
    child: Child,
    fifo: Option<File>,
}

impl HeldRun {
    /// Starts `tictac ARGS` (`IN` and `OUT` stand for the FIFO and
    /// `out.txt`), through `sh -c PREFIX` when one is given, and waits
    /// until OUT's temporary file exists.
    fn start(prefix: Option<&str>, args: &[&str]) -> HeldRun {
        let dir = temp_dir();
        let fifo_path = dir.path().join("in.fifo");
        let made = Command::new("mkfifo").arg(&fifo_path).status().expect("run mkfifo");
        assert!(made.success());
        let path = |p: &str| dir.path().join(p).to_string_lossy().into_owned();
        let args: Vec<String> = args
            .iter()
            .map(|&a| match a {
                "IN" => path("in.fifo"),
                "OUT" => path("out.txt"),
                other => other.to_string(),
            })
            .collect();
        let mut command = match prefix {
            None => Command::new(BIN),
            Some(script) => {
                let mut sh = Command::new("sh");
                sh.arg("-c").arg(format!("{script}; exec \"$0\" \"$@\"")).arg(BIN);
                sh
            }
        };
        let child = command
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start tictac");
        // Opening blocks until tictac opens the other end.
        let mut fifo = File::options().write(true).open(&fifo_path).expect("open fifo");
        // A comment: the same transcript however the trace is read.
        fifo.write_all(b"-- the rest comes later\n").expect("write fifo");
        let run = HeldRun { dir, child, fifo: Some(fifo) };
        run.wait_for_temp();
        run
    }

    fn wait_for_temp(&self) {
        let start = Instant::now();
        while !entries(self.dir.path()).iter().any(|n| is_temp_of(n, "out.txt")) {
            assert!(start.elapsed() < Duration::from_secs(20), "no temporary file appeared");
            sleep(Duration::from_millis(10));
        }
    }

    fn signal(&self, signal: Signal) {
        kill_process(Pid::from_child(&self.child), signal).expect("send signal");
    }

    /// Writes the rest of the trace and closes the FIFO.
    fn finish_input(&mut self, rest: &str) {
        let mut fifo = self.fifo.take().expect("fifo still open");
        fifo.write_all(rest.as_bytes()).expect("write fifo");
    }

    fn wait(mut self) -> (Output, tempfile::TempDir) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().expect("wait").is_none() {
            assert!(Instant::now() < deadline, "tictac did not end");
            sleep(Duration::from_millis(10));
        }
        drop(self.fifo.take());
        (self.child.wait_with_output().expect("output"), self.dir)
    }
}

/// The transcript of `-b IN OUT` for `trace`, run from a regular file.
fn chunks_transcript(trace: &str) -> Vec<u8> {
    let dir = temp_dir();
    let (input, out) = (dir.path().join("t.txt"), dir.path().join("o.txt"));
    fs::write(&input, trace).expect("write trace");
    let o = run(Command::new(BIN).arg("-b").arg(&input).arg(&out), None);
    assert!(o.status.success());
    fs::read(out).expect("read out")
}

#[test]
fn a_fatal_signal_leaves_no_output_and_kills_with_that_signal() {
    let cases: [(&[&str], Signal, i32); 5] = [
        (&["-b", "IN", "OUT"], Signal::TERM, 15),
        (&["-b", "IN", "OUT"], Signal::INT, 2),
        (&["-b", "IN", "OUT"], Signal::HUP, 1),
        (&["-l", "IN", "OUT"], Signal::TERM, 15),
        (&["-w", "1", "_", "IN", "OUT"], Signal::INT, 2),
    ];
    assert_signal_not_ignored("INT", 2);
    for (args, signal, number) in cases {
        let run = HeldRun::start(None, args);
        run.signal(signal);
        let (o, dir) = run.wait();
        assert_eq!(o.status.signal(), Some(number), "{args:?}: {:?}", o.status);
        assert_eq!(entries(dir.path()), ["in.fifo"], "{args:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains("out.txt' was not written"), "{args:?}: {stderr}");
    }
}

#[test]
fn every_catchable_fatal_signal_leaves_no_output() {
    let signals = [
        (Signal::QUIT, 3),
        (Signal::USR1, 10),
        (Signal::USR2, 12),
        (Signal::ALARM, 14),
        (Signal::XCPU, 24),
        (Signal::VTALARM, 26),
        (Signal::PROF, 27),
    ];
    assert_signal_not_ignored("QUIT", 3);
    for (signal, number) in signals {
        // No core file for the signals whose default action dumps one.
        let run = HeldRun::start(Some("ulimit -c 0"), &["-b", "IN", "OUT"]);
        run.signal(signal);
        let (o, dir) = run.wait();
        assert_eq!(o.status.signal(), Some(number), "{signal:?}: {:?}", o.status);
        assert_eq!(entries(dir.path()), ["in.fifo"], "{signal:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.contains("out.txt' was not written"), "{signal:?}: {stderr}");
    }
}

#[test]
fn sigkill_leaves_at_most_the_hidden_temporary_file() {
    let run = HeldRun::start(None, &["-b", "IN", "OUT"]);
    run.signal(Signal::KILL);
    let (o, dir) = run.wait();
    assert_eq!(o.status.signal(), Some(9));
    let names = entries(dir.path());
    assert!(!names.contains(&"out.txt".to_string()), "{names:?}");
    assert!(names.iter().all(|n| n == "in.fifo" || is_temp_of(n, "out.txt")), "{names:?}");
}

#[test]
fn a_signal_ignored_at_start_stays_ignored() {
    let mut run = HeldRun::start(Some("trap '' HUP"), &["-b", "IN", "OUT"]);
    run.signal(Signal::HUP);
    sleep(Duration::from_millis(300));
    run.finish_input(GAME);
    let (o, dir) = run.wait();
    assert_eq!(o.status.code(), Some(0), "{:?}", o.status);
    let out = fs::read(dir.path().join("out.txt")).expect("OUT was written");
    assert_eq!(out, chunks_transcript(GAME));
    assert_eq!(entries(dir.path()), ["in.fifo", "out.txt"]);
}

#[test]
fn a_file_that_appears_meanwhile_is_not_replaced() {
    let mut run = HeldRun::start(None, &["-b", "IN", "OUT"]);
    fs::write(run.dir.path().join("out.txt"), "theirs").expect("write");
    run.finish_input(GAME);
    let (o, dir) = run.wait();
    let out_path = dir.path().join("out.txt");
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("Error: output file {} already exists!\n", out_path.display())
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(fs::read(&out_path).expect("read"), b"theirs");
    assert_eq!(entries(dir.path()), ["in.fifo", "out.txt"]);
}

/// `ulimit -f` makes writes past a size fail (EFBIG) as a full disk would
/// (ENOSPC; bench/check-full-disk.sh tries a real one), and sends SIGXFSZ,
/// whose default action would kill the process: tictac catches it.
fn run_size_limited(kib: u32, args: &[&Path]) -> Output {
    run(
        Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -f {kib}; exec \"$0\" \"$@\""))
            .arg(BIN)
            .args(args),
        None,
    )
}

#[test]
fn a_write_that_fails_leaves_no_output_and_names_the_file() {
    let dir = temp_dir();
    let input = dir.path().join("big.txt");
    let mut trace = String::from("new_game(\"Ann\",\"Bob\")\n");
    trace.push_str(&"play(\"Ann\",5) undo\n".repeat(20_000));
    fs::write(&input, trace).expect("write trace");
    let out = dir.path().join("out.txt");
    let cases: [Vec<&Path>; 3] = [
        vec![Path::new("-b"), &input, &out],
        vec![Path::new("-w"), Path::new("1"), Path::new("_"), &input, &out],
        vec![Path::new("-w"), Path::new("-30000"), Path::new("0"), &input, &out],
    ];
    for args in cases {
        let o = run_size_limited(64, &args);
        let stdout = String::from_utf8_lossy(&o.stdout);
        let expected =
            format!("error: writing '{}' failed, so it was not created: ", out.display());
        assert!(stdout.starts_with(&expected), "{args:?}: {stdout}");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_eq!(entries(dir.path()), ["big.txt"], "{args:?}");
    }
}

fn verify(args: &[&str], trace_out: &Path) -> Output {
    run(Command::new(BIN).arg("verify").args(args).arg("--trace-out").arg(trace_out), None)
}

#[test]
fn verify_checks_its_trace_file_first_and_writes_it_whole() {
    let dir = temp_dir();
    let lost = dir.path().join("lost.txt");
    fs::write(&lost, "precious").expect("write");
    let o = verify(&["--strategy", "elm", "--as", "X"], &lost);
    // Refused before exploring: no figures printed.
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("Error: output file {} already exists!\n", lost.display())
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(fs::read(&lost).expect("read"), b"precious");

    fs::remove_file(&lost).expect("remove");
    let o = verify(&["--strategy", "elm", "--as", "X"], &lost);
    assert!(o.status.success());
    let replay = run(Command::new(BIN).arg("-b").arg(&lost), None);
    assert!(String::from_utf8_lossy(&replay.stdout).contains("1: score for \"Rival\" (as O)"));
    assert_eq!(entries(dir.path()), ["lost.txt"]);

    // No lost game: nothing written, no temporary file left.
    let none = dir.path().join("none.txt");
    let o = verify(&["--strategy", "perfect", "--as", "O"], &none);
    assert!(String::from_utf8_lossy(&o.stdout).contains("not written"));
    assert_eq!(entries(dir.path()), ["lost.txt"]);

    let o = verify(&["--strategy", "elm", "--as", "X"], &dir.path().join("no/such/lost.txt"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("cannot be created"));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn help_says_output_files_are_whole() {
    let o = run(Command::new(BIN).arg("-help"), None);
    assert!(String::from_utf8_lossy(&o.stdout).contains("it appears whole or not at all"));
}

/// A file that cannot be created is named as the user gave it; the hidden
/// temporary file it would have been written through is not mentioned.
#[test]
fn a_file_that_cannot_be_created_is_named_as_given() {
    let dir = temp_dir();
    let trace = dir.path().join("t.txt");
    fs::write(&trace, GAME).expect("write");
    let target = dir.path().join("no/such/dir/x.txt");
    let want = format!(
        "error: '{}' cannot be created: No such file or directory (os error 2)\n",
        target.display()
    );
    let out = verify(&["--strategy", "perfect", "--as", "X"], &target);
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert_eq!(out.status.code(), Some(2));
    for args in [&["-b"][..], &["-w", "1", "2"], &["-l"]] {
        let o = Command::new(BIN)
            .args(args)
            .args([&trace, &target])
            .stdin(Stdio::null())
            .output()
            .expect("run tictac");
        assert_eq!(String::from_utf8_lossy(&o.stdout), want, "{args:?}");
        assert_eq!(o.status.code(), Some(2));
    }
}

/// OUT named as a folder that is a file (`new.txt/`, a trailing slash) is
/// refused in the words of every other creation failure, `error:` in
/// lower case (attack 38's C13 d), and nothing is made.
#[test]
fn an_output_named_with_a_trailing_slash_is_refused_in_lower_case() {
    let dir = temp_dir();
    fs::write(dir.path().join("t.txt"), GAME).expect("write");
    let o = Command::new(BIN)
        .current_dir(dir.path())
        .args(["-b", "t.txt", "new.txt/"])
        .stdin(Stdio::null())
        .output()
        .expect("run tictac");
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.starts_with("error: 'new.txt/' cannot be created: "), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
    assert_eq!(o.status.code(), Some(2));
    let left: Vec<_> =
        fs::read_dir(dir.path()).expect("list").map(|e| e.expect("entry").file_name()).collect();
    assert_eq!(left, ["t.txt"], "nothing made beside the trace");
}
