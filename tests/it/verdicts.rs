//! Verdicts that say what happened (issue 33): a crash is never a pass, a
//! normal exit is no crash, an oracle's exit status is its answer, a run
//! that ran no test is no success.

use std::fs;

use crate::common::{BIN, one_test, path, script, temp_dir, text, tictac, tictac_with_input};

/// A program that prints the expected output and then dies of a signal
/// fails, saying so, unless `-- status:` asks for exactly that end (128 +
/// N, as a shell reports it).
#[test]
fn the_right_output_then_a_crash_is_no_pass() {
    let dir = temp_dir();
    fs::write(dir.path().join("t.expected.txt"), "right\n").expect("write");
    let tools = temp_dir();
    let segv = script(tools.path(), "segv.sh", "echo right; kill -SEGV $$");
    let abort = script(tools.path(), "abort.sh", "echo right; kill -ABRT $$");
    let test = |trace: &str, program: &str| {
        fs::write(dir.path().join("t.txt"), trace).expect("write");
        let o = tictac(&["test", "--program", program, &path(dir.path())]);
        (o.status.code(), text(&o))
    };
    let (status, out) = test("undo\n", &segv);
    assert_eq!(status, Some(1), "{out}");
    assert!(out.starts_with("FAIL t ("), "{out}");
    assert!(out.contains("\n     killed by signal 11\n"), "{out}");
    assert!(out.contains("\n     the output is right, but then the program was killed by signal 11 (a trace expecting that says `-- status: 139`): a crash fails the test\n"), "{out}");
    let (status, out) = test("undo\n", &abort);
    assert_eq!(status, Some(1), "{out}");
    assert!(out.contains("killed by signal 6 (a trace expecting that says `-- status: 134`)"));
    // Asked for exactly: a pass; asked for another end: the status differs.
    let (status, out) = test("-- status: 139\nundo\n", &segv);
    assert_eq!((status, out.starts_with("PASS t (")), (Some(0), true), "{out}");
    let (status, out) = test("-- status: 134\nundo\n", &segv);
    assert_eq!(status, Some(1), "{out}");
    assert!(
        out.contains("expected 134 (`-- status: 134`), got 139 (killed by signal 11)"),
        "{out}"
    );
    // A normal exit after the right output still passes without a status line.
    let exits = script(tools.path(), "exits.sh", "echo right; exit 1");
    let (status, out) = test("undo\n", &exits);
    assert_eq!((status, out.starts_with("PASS t (")), (Some(0), true), "{out}");
}

/// A wrong output and a normal exit with another status than 0 is no
/// crash: `exited with status 1`, in every format.
#[test]
fn a_normal_exit_is_no_crash_in_any_format() {
    let dir = one_test("undo\n", "right\n");
    let tools = temp_dir();
    let program = script(tools.path(), "p.sh", "echo wrong; echo 'Error: bad' >&2; exit 1");
    for (format, line) in [
        ("human", "\n     exited with status 1\n"),
        ("tap", "\n# exited with status 1\n"),
        ("junit", "<failure message=\"exited with status 1\" type=\"exited\">"),
        ("gradescope", "\\n     exited with status 1\\n     command: "),
    ] {
        let o = tictac(&["test", "--format", format, "--program", &program, &path(dir.path())]);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert!(out.contains(line), "{format}: {out}");
        assert!(!words(&out).any(|w| w.contains("crash")), "{format}: {out}");
    }
}

/// The words of `out` that are not paths (no `/`): the folders a report
/// names (the run's, the program's, a checkout's) may hold any word.
fn words(out: &str) -> impl Iterator<Item = &str> {
    out.split(|c: char| c.is_whitespace() || "\"'<>=".contains(c)).filter(|w| !w.contains('/'))
}

/// One rule for a failure's headline, in every format: the right output
/// and the wrong status is `exit status differs`; a wrong output with the
/// status the test expects (`-- status: N`, else the oracle's: `tictac -b`
/// exits 1 after a syntax error) is `output differs`; with another status
/// than 0, `exited with status N`.
#[test]
fn the_headline_names_what_differs_in_every_format() {
    let dir = temp_dir();
    let tools = temp_dir();
    let right = script(tools.path(), "right.sh", "echo right");
    let wrong1 = script(tools.path(), "wrong1.sh", "echo wrong; exit 1");
    let wrong2 = script(tools.path(), "wrong2.sh", "echo wrong; exit 2");
    let cases = [
        ("-- status: 139\nundo\n", &right, "exit status differs", "status"),
        // A syntax error: `tictac -b` exits 1 there.
        ("undo(\n", &wrong1, "output differs", "diff"),
        ("undo(\n", &wrong2, "exited with status 2", "exited"),
        ("-- status: 2\nundo\n", &wrong2, "output differs", "diff"),
        ("undo\n", &wrong1, "exited with status 1", "exited"),
    ];
    for (trace, program, headline, type_) in cases {
        fs::write(dir.path().join("t.txt"), trace).expect("write");
        fs::write(dir.path().join("t.expected.txt"), "right\n").expect("write");
        for (format, line) in [
            ("human", format!("\n     {headline}\n")),
            ("tap", format!("\n# {headline}\n")),
            ("junit", format!("<failure message=\"{headline}\" type=\"{type_}\">")),
            ("gradescope", format!("\\n     {headline}\\n     command: ")),
        ] {
            let o = tictac(&["test", "--format", format, "--program", program, &path(dir.path())]);
            let out = text(&o);
            assert_eq!(o.status.code(), Some(1), "{trace:?} {format}: {out}");
            assert!(out.contains(&line), "{trace:?} {format}: {out}");
        }
    }
}

/// An oracle that exits 1 after a syntax error, or 2 on a file it cannot
/// read, answered: tictac agrees with itself as oracle and program, on the
/// project's acceptance suite.
#[test]
fn an_oracles_exit_status_is_its_answer() {
    let acceptance = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance/tictac");
    let o =
        tictac(&["test", "-q", "-j", "2", "--program", BIN, "--oracle", BIN, &path(&acceptance)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("oracle"), "{}", text(&o));
    let o = tictac(&["test", "-q", "-j", "2", "--course", "--program", BIN, "--oracle", BIN]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // A crashing oracle is still no answer.
    let dir = temp_dir();
    fs::write(dir.path().join("t.txt"), "undo\n").expect("write");
    let oracle = script(dir.path(), "oracle.sh", "echo half; kill -SEGV $$");
    let o =
        tictac(&["test", "--program", BIN, "--oracle", &oracle, &path(&dir.path().join("t.txt"))]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("oracle killed by signal 11: "), "{}", text(&o));
}

/// A run in which every test was skipped (tictac's own options, for a
/// program) checked nothing: exit 1, saying so, in every format, even with
/// `--program false`.
#[test]
fn a_run_that_ran_no_test_is_no_success() {
    let dir = one_test("-- run: -b IN --bot Hal=elm\nundo\n", "right\n");
    let said = "Test Results: 0/0 passed, 1 skipped. No test ran: every one was skipped, so nothing was checked.\n";
    for format in ["human", "tap", "junit"] {
        let o = tictac(&["test", "--format", format, "--program", "false", &path(dir.path())]);
        // Under JUnit the report for people is on standard error.
        let people = String::from_utf8_lossy(if format == "junit" { &o.stderr } else { &o.stdout });
        assert_eq!(o.status.code(), Some(1), "{format}: {people}");
        assert!(people.contains(said), "{format}: {people}");
        // And the document a harness or a CI reads says so as a failure.
        let document = text(&o);
        match format {
            "tap" => assert!(document.ends_with("\nBail out! No test ran: every one was skipped, so nothing was checked.\n"), "{document}"),
            "junit" => assert!(document.contains("errors=\"1\" skipped=\"1\"") && document.contains("<error message=\"No test ran: every one was skipped, so nothing was checked.\" type=\"no-test-ran\"/>"), "{document}"),
            _ => {}
        }
    }
    let o = tictac(&["test", "--format", "gradescope", "--program", "false", &path(dir.path())]);
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("results.json");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(results["output"], "No test ran: every one was skipped, so nothing was checked.\n");
    // In-process the trace runs: a pass.
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Two tests of one name from two folders (`tictac test A B`) are named by
/// folder and file in every report, and `--log` keeps both.
#[test]
fn tests_of_one_name_from_two_folders_are_told_apart() {
    let dir = temp_dir();
    for (folder, trace) in [("A", "undo\n"), ("B", "redo\n")] {
        fs::create_dir(dir.path().join(folder)).expect("mkdir");
        fs::write(dir.path().join(folder).join("a.txt"), trace).expect("write");
        fs::write(dir.path().join(folder).join("a.expected.txt"), "right\n").expect("write");
    }
    let tools = temp_dir();
    let program = script(tools.path(), "p.sh", "cat \"$2\"");
    let log = tools.path().join("log");
    let (a, b) = (path(&dir.path().join("A")), path(&dir.path().join("B")));
    let run = |format: &str| {
        let args =
            ["test", "--format", format, "--log", &path(&log), "--program", &program, &a, &b];
        let o = tictac(&args);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        text(&o)
    };
    let human = run("human");
    assert!(human.contains("FAIL A/a (") && human.contains("FAIL B/a ("), "{human}");
    for (folder, trace) in [("A", "undo\n"), ("B", "redo\n")] {
        let actual = fs::read_to_string(log.join(folder).join("a.actual.txt")).expect("logged");
        assert_eq!(actual, trace);
        fs::remove_dir_all(log.join(folder)).expect("rm");
    }
    let tap = run("tap");
    assert!(tap.contains("not ok 1 - A/a\n") && tap.contains("not ok 2 - B/a\n"), "{tap}");
    let junit = run("junit");
    let names =
        ["<testcase name=\"A/a\" classname=\"A\"", "<testcase name=\"B/a\" classname=\"B\""];
    assert!(names.iter().all(|name| junit.contains(name)), "{junit}");
    let gradescope = run("gradescope");
    assert!(gradescope.contains("\"name\": \"A/a\"") && gradescope.contains("\"name\": \"B/a\""));
}

/// `--record` on a file system that fills (a file size limit: the write
/// past it is short, then fails, as on a full disk) keeps whole lines only,
/// which replay.
#[test]
fn a_recording_cut_short_by_a_full_disk_holds_whole_lines() {
    let dir = temp_dir();
    let recording = dir.path().join("rec.txt");
    let mut typed = String::from("new_game(\"Ann\",\"Bob\")\n");
    typed.push_str(&"play(\"Ann\",5)\nundo\n".repeat(200));
    let line = format!("ulimit -f 1; exec \"$0\" -i --record '{}'", path(&recording));
    let o = crate::common::run(
        std::process::Command::new("sh").args(["-c", &line, BIN]),
        Some(typed.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = format!("recording to {}: ", path(&recording));
    assert!(text(&o).contains(&said), "{}", text(&o));
    let kept = fs::read_to_string(&recording).expect("recording");
    assert!(kept.len() > 100 && kept.ends_with('\n'), "{kept:?}");
    assert!(typed.starts_with(&kept), "{kept:?}");
    let replay = tictac(&["-b", &path(&recording)]);
    assert_eq!(replay.status.code(), Some(0), "{}", text(&replay));
}

/// Two `tictac grade` runs on one `--out` at once: the second is refused,
/// saying the gradebook is being written by another run; the first goes on.
#[test]
fn a_second_grade_run_on_one_gradebook_is_told_it_is_taken() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("t.txt"), "undo\n").expect("write");
    fs::write(suite.join("t.expected.txt"), "right\n").expect("write");
    let student = home.path().join("ann");
    fs::create_dir(&student).expect("mkdir");
    // Slow enough for the second run to come while the first grades.
    script(&student, "ttt", "sleep 2; echo right");
    let out = home.path().join("grades");
    let grade = || {
        let mut command = std::process::Command::new(BIN);
        command.args(["grade", "--command", "./ttt", "--out", &path(&out), &path(&suite)]);
        command.arg(&student);
        command
    };
    let first = grade()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start");
    let began = std::time::Instant::now();
    while !out.join(".tictac-grading").exists() {
        assert!(began.elapsed() < crate::common::PATIENCE, "the first run never claimed --out");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let second = crate::common::run(&mut grade(), None);
    let said = text(&second);
    assert_eq!(second.status.code(), Some(2), "{said}");
    assert!(said.contains("is being written by another tictac grade run"), "{said}");
    assert!(!said.contains("exists"), "{said}");
    let first = crate::common::finish(first);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first));
    assert!(fs::read_to_string(out.join("grades.csv")).expect("csv").contains("ann,1,1,1"));
    assert!(!out.join(".tictac-grading").exists(), "the claim goes with the run");
}

/// A program that stops being runnable mid-session (it deletes itself, or
/// `chmod -x`s itself) ends the session with exit 2 and the cause after one
/// short retry, whatever its bound; the summary counts only the runs that
/// ran.
#[test]
fn a_fuzz_session_ends_when_its_program_can_no_longer_start() {
    for (how, bound) in
        [("rm -f", &["--runs", "1000"][..]), ("chmod -x", &["--time", "60"]), ("rm -f", &[])]
    {
        let dir = temp_dir();
        // The probe at the start is its first run; past the sixth it is gone.
        let body = format!(
            "n=$(( $(cat \"$0.n\" 2>/dev/null || echo 0) + 1 )); echo $n > \"$0.n\"\n\
             if [ $n -ge 6 ]; then {how} \"$0\"; fi\nexec '{BIN}' \"$@\""
        );
        let program = script(dir.path(), "p.sh", &body);
        let out = path(&dir.path().join("found"));
        let args = [&["--program", &program, "-j", "1", "--out", &out][..], bound].concat();
        let began = std::time::Instant::now();
        let o = crate::common::fuzz(&args);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{how} {bound:?}: {said}");
        assert!(began.elapsed() < std::time::Duration::from_secs(30), "{how} {bound:?}: {said}");
        assert!(said.contains("error: the program cannot be started: "), "{said}");
        assert!(said.contains(program.as_str()), "{said}");
        assert!(said.contains("(after 5 runs, and again 1 s later)"), "{said}");
        assert!(said.contains("Fuzz Results: 5 runs"), "{said}");
    }
}

/// `fuzz --save-traces FILE` on a disk that fills (a file size limit, whose
/// write past it is short as a full disk's is) names FILE, and FILE holds
/// whole traces only.
#[test]
fn a_save_traces_file_that_fills_is_named_and_holds_whole_traces() {
    let dir = temp_dir();
    let saved = dir.path().join("traces.txt");
    let line = format!(
        "ulimit -f 2; exec '{BIN}' fuzz --program '{BIN}' --runs 500 --max-lines 5 --seed 1 --save-traces '{}' --out '{}'",
        path(&saved),
        path(&dir.path().join("found"))
    );
    let o = crate::common::run(std::process::Command::new("sh").args(["-c", &line]), None);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    let named = format!("error: --save-traces '{}' could not be written: ", path(&saved));
    assert!(said.contains(&named), "{said}");
    let mut rest = &fs::read(&saved).expect("saved")[..];
    assert!(rest.len() > 100, "{} bytes", rest.len());
    while !rest.is_empty() {
        let end = rest.iter().position(|&b| b == b'\n').expect("a length line");
        let length: usize =
            std::str::from_utf8(&rest[..end]).expect("utf-8").parse().expect("a length");
        assert!(
            rest.len() > end + length,
            "a trace cut short: {:?}",
            String::from_utf8_lossy(rest)
        );
        rest = &rest[end + 1 + length..];
    }
}

/// A program that exits while a process it started (a stray `&`) still
/// holds its standard output fails with a note saying so: what that
/// process would have printed is never read (the tester's C2).
#[test]
fn a_process_left_holding_the_output_is_named() {
    let dir = one_test("undo\n", "right\nlate\n");
    let tools = temp_dir();
    let program = script(tools.path(), "bg.sh", "echo right; (sleep 2; echo late) &");
    let o = tictac(&["test", "--program", &program, "--timeout", "5", &path(dir.path())]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("\n     output differs\n"), "{out}");
    let note = "\n     note: the program exited while a process it started (";
    assert!(out.contains(note), "{out}");
    assert!(out.contains(", pid "), "{out}");
    assert!(out.contains(") still held its standard output; that process was stopped, and what it would have printed is not counted: wait for it (no `&`), or `exec` it\n"), "{out}");
    // Waited for, nothing is said: it passes.
    let waits = script(tools.path(), "waits.sh", "echo right; (sleep 0.1; echo late) & wait");
    let o = tictac(&["test", "--program", &waits, "--timeout", "5", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// A program that stops itself (SIGSTOP) is said to be stopped, not to
/// have run out of time; one whose child stopped names that child; a
/// timeout says the CPU time used (the tester's C3, C13 j; Linux).
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_program_is_told_from_a_slow_one() {
    let dir = one_test("undo\n", "right\n");
    let tools = temp_dir();
    // Stopped or not, a run lasts its timeout: long enough for a shell to
    // get to its `kill` on a loaded machine, short enough to be cheap.
    let run = |program: &str, timeout: &str| {
        let o = tictac(&["test", "--program", program, "--timeout", timeout, &path(dir.path())]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        text(&o)
    };
    let out = run(&script(tools.path(), "stop.sh", "echo right; kill -STOP $$"), "1");
    assert!(out.contains("\n     stopped by signal 19 (SIGSTOP) and never resumed\n"), "{out}");
    assert!(out.contains("\n     it had printed the whole expected output, and did not end\n"));
    let out = run(&script(tools.path(), "child.sh", "echo right; sh -c 'kill -STOP $$'"), "1");
    assert!(out.contains("\n     a process it started (sh, pid "), "{out}");
    assert!(out.contains(") was stopped by a signal and never resumed\n"), "{out}");
    let out = run(&script(tools.path(), "slow.sh", "echo right; sleep 5"), "0.5");
    assert!(out.contains("\n     timed out after 0.5 s\n"), "{out}");
    assert!(out.contains("\n     note: it had used ") && out.contains(" of CPU in 0.5 s"), "{out}");
}

/// An output in UTF-16 is said in one line, with what it holds decoded
/// (the tester's C13 b); a line of a diff cut short says how many more
/// bytes it had, as standard error's lines do (C13 c).
#[test]
fn an_output_in_utf16_is_named_and_a_cut_line_counts_the_rest() {
    let dir = one_test("undo\n", "right\n");
    let tools = temp_dir();
    let test = |program: &str| {
        let o = tictac(&["test", "--program", program, &path(dir.path())]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        text(&o)
    };
    let utf16 = r"printf '\377\376r\000i\000g\000h\000t\000\n\000'";
    let out = test(&script(tools.path(), "utf16.sh", utf16));
    let said = "\n     the actual output is UTF-16 (little-endian, by its byte order mark): print UTF-8, as the expected output is\n     decoded from UTF-16, it is the expected output\n";
    assert!(out.contains(said), "{out}");
    assert!(!out.contains("\\x00"), "{out}");
    // Past 1 MiB the first differing line is shown, cut, with its length.
    let long = "echo right; head -c 1100000 /dev/zero | tr '\\0' a";
    let out = test(&script(tools.path(), "long.sh", long));
    let cut =
        format!("\n     +    2 | {} ... (1099800 more bytes on this line)\n", "a".repeat(200));
    assert!(out.contains(&cut), "{}", &out[..out.len().min(2000)]);
}

/// A flood on standard error is counted whole, not only the 64 KiB kept
/// (the tester's A10).
#[test]
fn a_flood_on_standard_error_is_counted_whole() {
    let dir = one_test("undo\n", "right\n");
    let tools = temp_dir();
    let flood = "yes 'error line' | head -n 100000 >&2; echo wrong";
    let program = script(tools.path(), "flood.sh", flood);
    let o = tictac(&["test", "--program", &program, &path(dir.path())]);
    let out = text(&o);
    assert!(out.contains("\n       ... 99980 lines before these\n       error line\n"), "{out}");
}

/// A program that prints the transcript on standard error, not standard
/// output, is told so in `test`'s report and in `grade`'s, once; a program
/// whose standard error is not the transcript (a traceback) is not (attack
/// 41's E7: it was told only that the output "differs").
#[test]
fn a_transcript_printed_on_standard_error_is_named() {
    let trace = "new_game(\"a\",\"b\")\nplay(\"a\",5)\nundo\n";
    let right = tictac_with_input(&["-b", "/dev/stdin"], trace.as_bytes());
    let expected = String::from_utf8(right.stdout).expect("utf-8");
    let lines = expected.lines().count();
    let dir = one_test(trace, &expected);
    let tools = temp_dir();
    let on_stderr = script(tools.path(), "stderr.sh", &format!("'{BIN}' \"$@\" >&2"));
    let a_little = script(tools.path(), "little.sh", &format!("echo hi; '{BIN}' \"$@\" >&2"));
    let traceback = script(tools.path(), "crash.sh", "echo 'Traceback: line 1' >&2; exit 1");
    let said = |program: &str| {
        let o = tictac(&["test", "--program", program, &path(dir.path())]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        text(&o)
    };
    let told = format!(
        "\n     note: your program printed nothing on standard output, and {lines} lines of the \
         expected output on standard error: print the transcript on standard output\n"
    );
    let out = said(&on_stderr);
    assert_eq!(out.matches(&told).count(), 1, "{out}");
    let out = said(&a_little);
    let little = format!(
        "\n     note: your program printed only 3 bytes on standard output, and {lines} lines of \
         the expected output on standard error: print the transcript on standard output\n"
    );
    assert!(out.contains(&little), "{out}");
    let out = said(&traceback);
    assert!(!out.contains("on standard error: print"), "{out}");
    // A debug print of a board row, or of a state's first five lines, and a
    // crash: not a transcript (attack 41's F1: it was told it printed its
    // transcript there).
    let row = script(tools.path(), "row.sh", "echo '  ___' >&2; exit 3");
    let five = format!("'{BIN}' \"$@\" | head -n 5 >&2; exit 3");
    let five = script(tools.path(), "five.sh", &five);
    for program in [&row, &five] {
        let out = said(program);
        assert!(out.contains("exited with status 3"), "{out}");
        assert!(!out.contains("on standard error: print"), "{out}");
    }
    // An expected output of one line, printed on standard error: "1 line".
    let one = one_test("undo\n", "right\n");
    let echo = script(tools.path(), "one.sh", "echo right >&2");
    let o = tictac(&["test", "--program", &echo, &path(one.path())]);
    let one_line =
        "nothing on standard output, and 1 line of the expected output on standard error";
    assert!(text(&o).contains(one_line), "{}", text(&o));
    // grade: the student's report says it alike.
    let home = temp_dir();
    let student = home.path().join("ann");
    fs::create_dir(&student).expect("mkdir");
    // tictac answers nothing for a program under grading: its transcript.
    fs::write(student.join("out"), &expected).expect("write");
    script(&student, "ttt", "cat out >&2");
    let grades = home.path().join("grades");
    let o = tictac(&[
        "grade",
        "--command",
        "./ttt",
        "--out",
        &path(&grades),
        &path(dir.path()),
        &path(&student),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report = fs::read_to_string(grades.join("ann.report.txt")).expect("report");
    assert_eq!(report.matches(&told).count(), 1, "{report}");
}
