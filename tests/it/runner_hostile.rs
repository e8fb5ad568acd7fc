//! `tictac test` against programs and suites built to break it: programs
//! that print forever, leave children holding the pipe, escape with
//! `setsid`, fork; FIFOs and devices among the traces; symlink loops; a
//! reader that goes away. Leftover processes are looked for in /proc by a
//! marker unique to each test (the temporary folder of its scripts).

use crate::common::hostile_script as script;
use crate::common::{
    BIN, assert_none_left, assert_signal_not_ignored, path, run, suite, temp_dir, text, tictac,
    wait_for_sleepers,
};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `tictac test DIR --program PROGRAM ARGS...` with `TICTAC` set for the
/// program's scripts: its output and how long it took.
fn test_suite_with(dir: &Path, program: &str, args: &[&str]) -> (std::process::Output, Duration) {
    let start = Instant::now();
    let o = run(
        Command::new(BIN)
            .args(["test", "--program", program])
            .args(args)
            .arg(path(dir))
            .env("TICTAC", BIN),
        None,
    );
    (o, start.elapsed())
}

#[test]
fn a_background_child_holding_the_pipe_cannot_hold_the_suite() {
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    let bg = script(tools.path(), "bg.sh", "\"$me\" child &\nexec \"$TICTAC\" \"$@\"");
    let (o, took) = test_suite_with(dir.path(), &bg, &["--timeout", "20"]);
    assert!(took < Duration::from_secs(10), "the suite waited for the child");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_none_left(&marker);
}

#[test]
fn escaped_descendants_holding_the_pipe_cannot_hold_the_suite() {
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    // Each leaves the group with setsid and is orphaned at once, keeping the
    // output pipe open: one sleeper, and a shell with a sleeping child.
    let body = "(setsid \"$me\" child &)\n(setsid /bin/sh -c '\"$0\" child & \"$0\" child' \"$me\" &)\nexec \"$TICTAC\" \"$@\"";
    let esc = script(tools.path(), "esc.sh", body);
    let (o, took) = test_suite_with(dir.path(), &esc, &["--timeout", "20", "-j", "2"]);
    assert!(took < Duration::from_secs(10), "the suite waited for the escapees");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_none_left(&marker);
}

#[test]
fn descendants_that_leave_the_group_are_stopped_too() {
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    // Escapes by setsid, at once and from a grandchild, then exits; the last
    // also sheds its tag, so the runner (its subreaper) stops it at the end.
    let body = "setsid \"$me\" child &\n(setsid \"$me\" child &) &\n(setsid env -i /bin/sh -c '\"$0\" child; exit' \"$me\" >/dev/null 2>&1 &) &\nsleep 0.1\nexec \"$TICTAC\" \"$@\"";
    let esc = script(tools.path(), "esc.sh", body);
    let (o, _) = test_suite_with(dir.path(), &esc, &["-j", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_none_left(&marker);
}

#[test]
fn on_timeout_the_whole_tree_is_stopped_even_a_bounded_fork_flood() {
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    let body = "for k in 1 2 3 4 5 6 7 8 9 10; do \"$me\" child & setsid \"$me\" child & done\n\"$me\" child";
    let flood = script(tools.path(), "flood.sh", body);
    let start = Instant::now();
    let o =
        tictac(&["test", "--program", &flood, "--timeout", "0.5", "-j", "2", &path(dir.path())]);
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("timed out after 0.5 s"), "{}", text(&o));
    assert_none_left(&marker);
}

#[test]
fn a_program_that_prints_forever_is_stopped_at_the_cap() {
    let dir = suite();
    let tools = temp_dir();
    let yes = script(tools.path(), "yes.sh", "exec yes");
    let start = Instant::now();
    let o = tictac(&["test", "--program", &yes, "-j", "2", &path(dir.path())]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    assert!(out.contains("     printed more than 16777216 bytes and was stopped\n"), "{out}");
    assert!(out.contains(&format!("     command: {yes} -b ")), "{out}");
    assert!(out.ends_with("Test Results: 0/2 passed.\n"), "{out}");
}

#[test]
fn a_signal_to_the_runner_stops_every_program_first() {
    // Each fatal signal that may be caught (QUIT and XCPU dump a core file:
    // in the temporary folder, if the limit allows one).
    assert_signal_not_ignored("INT", 2);
    assert_signal_not_ignored("QUIT", 3);
    for signal in ["INT", "TERM", "HUP", "QUIT", "USR1", "USR2", "ALRM", "XCPU"] {
        let dir = suite();
        let tools = temp_dir();
        let marker = path(tools.path());
        let hang = script(tools.path(), "hang.sh", "setsid \"$me\" child &\n\"$me\" child");
        let mut runner = Command::new(BIN)
            .args(["test", "--program", &hang, "-j", "2", &path(dir.path())])
            .current_dir(tools.path())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn");
        wait_for_sleepers(&marker, &format!("SIG{signal}"));
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &runner.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let start = Instant::now();
        let ended = runner.wait().expect("wait");
        assert!(start.elapsed() < Duration::from_secs(5), "SIG{signal}");
        assert!(!ended.success(), "SIG{signal}");
        assert_none_left(&marker);
    }
}

#[test]
fn traces_and_expected_files_that_are_not_regular_files_fail_their_test() {
    let dir = suite();
    let mkfifo =
        |p: &Path| assert!(Command::new("mkfifo").arg(p).status().expect("mkfifo").success());
    mkfifo(&dir.path().join("c.txt"));
    fs::write(dir.path().join("d.txt"), "undo\n").expect("write");
    mkfifo(&dir.path().join("d.expected.txt"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("e.txt")).expect("symlink");
    fs::write(dir.path().join("f.txt"), "-- run: -b /dev/zero\nundo\n").expect("write");
    let tools = temp_dir();
    for program in [None, Some(script(tools.path(), "p.sh", "exec \"$TICTAC\" \"$@\""))] {
        let mut args = vec!["test".to_string(), "--timeout".into(), "2".into()];
        if let Some(p) = &program {
            args.extend(["--program".to_string(), p.clone()]);
        }
        args.push(path(dir.path()));
        let start = Instant::now();
        let o = run(Command::new(BIN).args(&args).env("TICTAC", BIN), None);
        assert!(start.elapsed() < Duration::from_secs(20));
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains("c.txt is a FIFO, not a regular file"), "{out}");
        assert!(out.contains("d.expected.txt is a FIFO, not a regular file"), "{out}");
        assert!(out.contains("e.txt is a device, not a regular file"), "{out}");
        if program.is_none() {
            assert!(out.contains("`-- run:` names /dev/zero, which is a device"), "{out}");
            assert!(out.ends_with("Test Results: 2/6 passed.\n"), "{out}");
        } else {
            // The program reads /dev/zero as it likes; the runner survives it.
            assert!(out.contains("FAIL f ("), "{out}");
            assert!(out.ends_with("Test Results: 2/6 passed.\n"), "{out}");
        }
    }
}

#[test]
fn symlink_loops_and_shared_folders_run_each_test_once() {
    let dir = suite();
    let root = dir.path();
    fs::create_dir(root.join("sub")).expect("mkdir");
    fs::rename(root.join("b.txt"), root.join("sub/b.txt")).expect("mv");
    fs::rename(root.join("b.expected.txt"), root.join("sub/b.expected.txt")).expect("mv");
    for k in 0..8 {
        std::os::unix::fs::symlink(root, root.join(format!("sub/up{k}"))).expect("symlink");
        std::os::unix::fs::symlink(root.join("sub"), root.join(format!("link{k}"))).expect("link");
    }
    let start = Instant::now();
    let o = tictac(&["test", &path(root)]);
    assert!(start.elapsed() < Duration::from_secs(10));
    let out = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS link0/b ("), "{out}");
    assert!(out.ends_with("Test Results: 2/2 passed.\n"), "{out}");
}

#[test]
fn bless_never_writes_through_a_symlink() {
    let dir = suite();
    let elsewhere = temp_dir();
    let target = elsewhere.path().join("precious");
    fs::write(&target, "keep me\n").expect("write");
    let expected = dir.path().join("b.expected.txt");
    fs::remove_file(&expected).expect("rm");
    std::os::unix::fs::symlink(&target, &expected).expect("symlink");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("b.expected.txt is a symbolic link (--bless never writes through one)")
    );
    assert_eq!(fs::read_to_string(&target).expect("read"), "keep me\n");
}

#[test]
fn many_jobs_are_capped_and_threads_that_cannot_start_are_an_error() {
    let dir = suite();
    for k in 0..300 {
        fs::write(dir.path().join(format!("t{k}.txt")), "undo\n").expect("write");
        fs::copy(dir.path().join("b.expected.txt"), dir.path().join(format!("t{k}.expected.txt")))
            .expect("copy");
    }
    let o = tictac(&["test", "-j", "1000", &path(dir.path())]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{}\n{stderr}", text(&o));
    // Little address space: most of 256 thread stacks cannot be mapped.
    // One malloc arena, so that the threads that do start take no 64 MiB
    // arena each, which left the error's own allocations none at random.
    let o = run(
        Command::new("sh")
            .args([
                "-c",
                "ulimit -v 200000 && exec \"$0\" test -j 1000 \"$1\"",
                BIN,
                &path(dir.path()),
            ])
            .env("MALLOC_ARENA_MAX", "1"),
        None,
    );
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("error: cannot start the test threads:"), "{out}");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
}

#[test]
fn each_result_is_printed_as_soon_as_it_is_known() {
    let dir = suite();
    let tools = temp_dir();
    let slow = script(
        tools.path(),
        "slow.sh",
        "case \"$2\" in *b.txt) sleep 3;; esac\nexec \"$TICTAC\" \"$@\"",
    );
    let start = Instant::now();
    let mut runner = Command::new(BIN)
        .args(["test", "--program", &slow, "-j", "1", &path(dir.path())])
        .env("TICTAC", BIN)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut lines = BufReader::new(runner.stdout.take().expect("stdout")).lines();
    let first = lines.next().expect("a line").expect("read");
    assert!(first.starts_with("PASS a ("), "{first}");
    assert!(start.elapsed() < Duration::from_secs(2), "the first result waited for the second");
    assert!(runner.wait().expect("wait").success());
}

#[test]
fn a_closed_output_stops_the_programs_and_keeps_the_status_earned() {
    let dir = suite();
    fs::write(dir.path().join("a.expected.txt"), "wrong\n").expect("write");
    fs::write(dir.path().join("c.txt"), "undo\n").expect("write");
    let tools = temp_dir();
    let marker = path(tools.path());
    let body = "case \"$2\" in *a.txt) exec \"$TICTAC\" \"$@\";; esac\n\"$me\" child";
    let prog = script(tools.path(), "p.sh", body);
    let start = Instant::now();
    let mut runner = Command::new(BIN)
        .args(["test", "--program", &prog, "-j", "1", &path(dir.path())])
        .env("TICTAC", BIN)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut lines = BufReader::new(runner.stdout.take().expect("stdout")).lines();
    let first = lines.next().expect("a line").expect("read");
    assert!(first.starts_with("FAIL a ("), "{first}");
    drop(lines); // as `| head -1` does
    let status = runner.wait().expect("wait");
    assert!(start.elapsed() < Duration::from_secs(5), "the runner went on after its reader left");
    assert_eq!(status.code(), Some(1));
    assert_none_left(&marker);
}

#[test]
fn large_failures_give_a_bounded_diff_in_bounded_time() {
    let dir = temp_dir();
    let tools = temp_dir();
    // A shuffled 15,000-line output (under the line-diff limits), and a
    // 200,000-line one (over it).
    let lines: Vec<String> = (0..15_000).map(|k| format!("line {k}")).collect();
    let mut shuffled = lines.clone();
    let mut rng = fastrand::Rng::with_seed(7);
    rng.shuffle(&mut shuffled);
    fs::write(dir.path().join("s.txt"), "undo\n").expect("write");
    fs::write(dir.path().join("s.expected.txt"), lines.join("\n") + "\n").expect("write");
    fs::write(tools.path().join("s.out"), shuffled.join("\n") + "\n").expect("write");
    let big: String = (0..200_000).map(|k| format!("row {k}\n")).collect();
    fs::write(dir.path().join("t.txt"), "undo\n").expect("write");
    fs::write(dir.path().join("t.expected.txt"), &big).expect("write");
    fs::write(tools.path().join("t.out"), big.replace("row 5", "ROW 5")).expect("write");
    let out_dir = path(tools.path());
    let cat = script(
        tools.path(),
        "cat.sh",
        &format!("n=$(basename \"$2\" .txt)\nexec cat \"{out_dir}/$n.out\""),
    );
    let start = Instant::now();
    let o = tictac(&["test", "--program", &cat, "-j", "2", &path(dir.path())]);
    assert!(start.elapsed() < Duration::from_secs(15), "took {:?}", start.elapsed());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.lines().count() < 2 * 210, "{} lines", out.lines().count());
    assert!(
        out.contains("     --- expected\n     +++ actual\n     outputs differ from line 6\n"),
        "{out}"
    );
    assert!(out.contains("     -    6 | row 5\n     +    6 | ROW 5\n"), "{out}");
}

#[test]
fn broken_and_looping_links_fail_only_their_own_test_or_are_ignored() {
    use std::os::unix::fs::symlink;
    let dir = suite();
    let root = dir.path();
    // What Emacs leaves while a file is edited, and loops named anyhow.
    symlink("root@vm.1234:1700000000", root.join(".#a.txt")).expect("symlink");
    symlink("gone", root.join("notes")).expect("symlink");
    symlink("l2", root.join("l1")).expect("symlink");
    symlink("l1", root.join("l2")).expect("symlink");
    let o = tictac(&["test", &path(root)]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(".#a.txt is a broken symbolic link"), "{out}");
    assert!(out.ends_with("Test Results: 2/3 passed.\n"), "{out}");
    fs::remove_file(root.join(".#a.txt")).expect("rm");
    let o = tictac(&["test", &path(root)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).ends_with("Test Results: 2/2 passed.\n"), "{}", text(&o));
    symlink("t2.txt", root.join("t1.txt")).expect("symlink");
    symlink("t1.txt", root.join("t2.txt")).expect("symlink");
    let o = tictac(&["test", &path(root)]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("t1.txt is a symbolic link that loops"), "{out}");
    assert!(out.contains("t2.txt is a symbolic link that loops"), "{out}");
    assert!(out.ends_with("Test Results: 2/4 passed.\n"), "{out}");
    let o = tictac(&["test", "--coverage", &path(root)]);
    let out = format!("{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
    assert_ne!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("t1.txt is a symbolic link that loops"), "{out}");
}

#[test]
fn logs_never_write_through_links_and_replace_files_whole() {
    use std::os::unix::fs::symlink;
    let dir = suite();
    fs::create_dir(dir.path().join("sub")).expect("mkdir");
    fs::write(dir.path().join("sub/c.txt"), "undo\n").expect("write");
    fs::copy(dir.path().join("b.expected.txt"), dir.path().join("sub/c.expected.txt"))
        .expect("copy");
    let elsewhere = temp_dir();
    let (precious, linked) = (elsewhere.path().join("precious"), elsewhere.path().join("linked"));
    fs::write(&precious, "keep me\n").expect("write");
    fs::write(&linked, "keep me too\n").expect("write");
    let logs = temp_dir();
    let log_dir = logs.path();
    // A symbolic link to a file outside, a hard link to one (truncating it in
    // place would change it), and a folder of a test's name that is a link.
    symlink(&precious, log_dir.join("a.actual.txt")).expect("symlink");
    fs::hard_link(&linked, log_dir.join("b.actual.txt")).expect("hard link");
    symlink(elsewhere.path(), log_dir.join("sub")).expect("symlink");
    let o = tictac(&["test", "--log", &path(log_dir), "-j", "1", &path(dir.path())]);
    let out = text(&o);
    // Logs asked for and not kept: counted once, exit 2.
    assert_eq!(o.status.code(), Some(2), "{out}");
    let shown = path(log_dir);
    let said = format!(
        "\nerror: the logs of 2 tests could not be written (--log); the first, a: {shown}/a.actual.txt is a symbolic link"
    );
    assert!(out.contains(&said), "{out}");
    assert!(
        out.contains(&format!(
            "not logged: {shown}/a.actual.txt is a symbolic link (--log never writes through one)"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "not logged: {shown}/sub is a symbolic link (--log never writes through one)"
        )),
        "{out}"
    );
    assert_eq!(fs::read_to_string(&precious).expect("read"), "keep me\n");
    assert_eq!(fs::read_to_string(&linked).expect("read"), "keep me too\n");
    assert!(!elsewhere.path().join("c.actual.txt").exists());
    let logged = fs::read(log_dir.join("b.actual.txt")).expect("logged");
    assert_eq!(logged, fs::read(dir.path().join("b.expected.txt")).expect("read"));
    let mut names: Vec<String> = fs::read_dir(log_dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.actual.txt", "b.actual.txt", "sub"], "no hidden file left");
}

#[test]
fn hard_linked_traces_are_tests_of_their_own() {
    // b.txt is a hard link to a.txt, with an expected file of its own that
    // is wrong: it must run and fail, not pass as a.txt's copy.
    let dir = suite();
    let root = dir.path();
    fs::remove_file(root.join("b.txt")).expect("rm");
    fs::hard_link(root.join("a.txt"), root.join("b.txt")).expect("ln");
    let o = tictac(&["test", &path(root)]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL b"), "{out}");
    assert!(out.ends_with("Test Results: 1/2 passed.\n"), "{out}");
}

/// The runner stopped by SIGSTOP (which it cannot catch, unlike Ctrl-Z)
/// past a program's deadline, while the program ended on time: resumed, it
/// reads the program's output and passes it (it reported a timeout). Each
/// step waits for the one before it, not for a guessed time, so that a
/// loaded machine only makes it slower: the program is told to run once
/// the runner is stopped, and the runner is resumed once the program has
/// exited (a zombie the stopped runner cannot reap, or gone) and its
/// deadline has passed.
#[test]
fn a_runner_stopped_past_the_deadline_still_reads_a_program_that_ended() {
    let dir = suite();
    let marks = temp_dir();
    let [started, go] = ["started", "go"].map(|m| marks.path().join(m));
    // The program says its pid, then waits for `go` (at most 60 s, so that
    // a failed test leaves nothing running) and becomes tictac.
    let body = format!(
        "echo $$ > '{started}.new' && mv '{started}.new' '{started}'\n\
         n=0\nwhile [ ! -e '{go}' ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done\n\
         exec \"$TICTAC\" \"$@\"",
        started = path(&started),
        go = path(&go),
    );
    let program = crate::common::script(marks.path(), "program", &body);
    let timeout = Duration::from_secs(2);
    let child = Command::new(BIN)
        .args(["test", "--program", &program, "--timeout", "2", "-j", "1", "--filter", "a"])
        .arg(path(dir.path()))
        .env("TICTAC", BIN)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start");
    let runner = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    // Resumes the runner however the test ends, so that it finishes.
    struct Resume(rustix::process::Pid);
    impl Drop for Resume {
        fn drop(&mut self) {
            let _ = rustix::process::kill_process(self.0, rustix::process::Signal::CONT);
        }
    }
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        let began = Instant::now();
        while !done() {
            assert!(began.elapsed() < Duration::from_secs(60), "{what} never came");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_until("the program's start", &|| started.exists());
    let spawned = Instant::now(); // the deadline counts from before this
    let program_pid = fs::read_to_string(&started).expect("pid").trim().to_string();
    rustix::process::kill_process(runner, rustix::process::Signal::STOP).expect("stop");
    let resume = Resume(runner);
    fs::write(&go, "").expect("go");
    let exited = || match fs::read_to_string(format!("/proc/{program_pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        }
    };
    wait_until("the program's end", &exited);
    std::thread::sleep((timeout + Duration::from_millis(500)).saturating_sub(spawned.elapsed()));
    drop(resume);
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("PASS a"), "{}", text(&o));
}

/// A temporary folder too full to copy the program's folder into is the
/// machine's trouble, not the program's: `tictac test` stops with exit 2,
/// naming the folder and what a run takes of it, as `grade` does, rather
/// than fail every test as the student's (finding 10). Run as root in a
/// private mount namespace, on a 256 KiB tmpfs as TMPDIR.
#[test]
fn a_full_temporary_folder_stops_the_run_with_exit_2_naming_it() {
    if !rustix::process::getuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "CI runs this as root, to mount a tmpfs");
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    }
    let home = temp_dir();
    let dir = suite();
    let work = home.path().join("work");
    let tmp = home.path().join("tmp");
    fs::create_dir(&work).expect("mkdir");
    fs::create_dir(&tmp).expect("mkdir");
    fs::write(work.join("data.bin"), vec![0u8; 1 << 20]).expect("write");
    let shell = format!(
        "mount -t tmpfs -o size=256k tmpfs '{}' && TMPDIR='{}' exec '{BIN}' test '{}' \
         --program '{BIN}' --timeout 0.5",
        path(&tmp),
        path(&tmp),
        path(dir.path())
    );
    let o =
        run(Command::new("unshare").args(["--mount", "sh", "-c", &shell]).current_dir(&work), None);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.starts_with(
            "error: test a could not run, and not for its program's doing: cannot copy "
        ),
        "{said}"
    );
    assert!(said.contains("No space left on device"), "{said}");
    assert!(
        said.contains(&format!("disk space in the temporary folder {}: up to 49 MiB", path(&tmp))),
        "{said}"
    );
    assert!(!said.contains("FAIL"), "no test failed as the program's: {said}");
}
