//! A `tictac fuzz` session as a user meets it (issues 29 and 22): each
//! divergence told with its trace and the line that differs, kinds of one
//! cause told once, Ctrl-C and SIGTERM ending it with what it found, and a
//! program that fails on every trace stopping it after five. That a
//! default session ends within two minutes is checked on the release build
//! (bench/check-fuzz.sh), as is the bound on the stop with `--timeout 1`.

use crate::common::{
    BIN, assert_signal_not_ignored, ended_within, fuzz, fuzz_started, path, saved, script,
    temp_dir, text, tictac,
};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// tictac, with the first board row after each `undo` that is `___`
/// printed as `???`: one mistake that shows in every kind of undo.
fn undo_marked(dir: &Path, exit: u8) -> String {
    let awk =
        r#"/^->undo/ { u = 3 } u > 0 { u--; if (u == 0 && $0 == "  ___") $0 = "  ???" } { print }"#;
    script(dir, "undo.sh", &format!("{BIN} \"$@\" | awk '{awk}'\nexit {exit}"))
}

#[test]
fn a_divergence_is_told_with_its_trace_and_the_line_that_differs() {
    let scratch = temp_dir();
    let program = undo_marked(scratch.path(), 3);
    let out = scratch.path().join("o");
    let o = fuzz(
        &["--program", &program, "--runs", "20", "--seed", "1", "-j", "1"]
            .into_iter()
            .chain(["--out", &path(&out)])
            .collect::<Vec<_>>(),
    );
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    let names = saved(&out);
    assert_eq!(names.len(), 1, "{said}");
    let file = out.join(&names[0]);
    let trace = fs::read_to_string(&file).expect("read");
    // The header, the trace one command a line as its file holds it, the
    // line that differs, the file.
    let report: String = trace.lines().map(|l| format!("    {l}\n")).collect();
    let at = said.find("Divergence: undo-").expect("a report");
    let body = &said[at..];
    let trace_at = body.find(":\n").expect("header") + 2;
    assert!(body[trace_at..].starts_with(&report), "{said}\nthe trace:\n{trace}");
    let rest = &body[trace_at + report.len()..];
    let line = rest.lines().next().unwrap_or_default();
    assert!(line.starts_with("  output line ") && line.ends_with(':'), "{said}");
    // Its exit status 3 is no part of it without --check-status (S9).
    assert!(
        rest.contains(":\n    expected: \"  ___\"\n    got:      \"  ???\"\n  saved: "),
        "{said}"
    );
    assert!(!said.contains("exit status"), "{said}");
    assert!(rest.contains(&format!("  saved: {}\n", path(&file))), "{said}");
    let last = said.lines().last().unwrap_or_default();
    assert!(last.starts_with("Fuzz Results: 20 runs, "), "{said}");
    assert!(last.ends_with(" 1 divergence found."), "{said}");
}

#[test]
fn kinds_of_one_cause_are_one_report() {
    let scratch = temp_dir();
    let program = undo_marked(scratch.path(), 0);
    let out = scratch.path().join("o");
    let o = fuzz(&[
        "--program",
        &program,
        "--runs",
        "60",
        "--seed",
        "1",
        "-j",
        "2",
        "--out",
        &path(&out),
    ]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    // One report, or, when two workers shrank kinds of it at once (timing,
    // at -j 2), a second that replaced the first in fewer events.
    let told = said.matches("Divergence: ").count();
    assert_eq!(told - said.matches(": this report replaces it").count(), 1, "{said}");
    assert!(said.contains("\nAlso undo-"), "{said}");
    assert_eq!(saved(&out).len(), 1, "{said}");
    // The summary lists the kinds it showed on one line.
    let listed =
        said.lines().skip_while(|l| *l != "Found 1 divergence:").nth(1).unwrap_or_default();
    assert!(listed.matches("undo-").count() >= 2, "{said}");
    assert!(said.ends_with(" 1 divergence found.\n"), "{said}");
}

/// Starts `tictac fuzz ARGS`, sends `signal` once it has printed a line
/// starting with `after` (and run a moment longer), and gives what it
/// printed, its status, and how long it took to end after the signal.
fn interrupted(args: &[&str], after: &str, signal: &str) -> (String, Option<i32>, Duration) {
    let mut child = fuzz_started(args);
    // Every line it prints, as it comes (a reader that went away would stop
    // it too).
    let (lines, printed) = mpsc::channel();
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let _ = lines.send(line.expect("read"));
        }
    });
    let mut said = String::new();
    while !said.lines().any(|l| l.starts_with(after)) {
        let line = printed.recv_timeout(Duration::from_secs(60)).expect("a line");
        said.push_str(&line);
        said.push('\n');
    }
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    let kill = Command::new("kill").args([signal, &child.id().to_string()]).status().expect("kill");
    assert!(kill.success());
    let status = ended_within(&mut child, Duration::from_secs(20), signal);
    let took = sent.elapsed();
    for line in printed.iter() {
        said.push_str(&line);
        said.push('\n');
    }
    (said, status.code(), took)
}

#[test]
fn a_signal_stops_the_session_with_the_summary_so_far() {
    assert_signal_not_ignored("INT", 2);
    let scratch = temp_dir();
    // Something found: status 1, the file kept, the summary.
    let program = undo_marked(scratch.path(), 0);
    let out = scratch.path().join("o");
    let args = ["--program", &program, "--runs", "1000000", "--seed", "1", "--out", &path(&out)];
    let (said, status, took) = interrupted(&args, "Divergence: ", "-INT");
    assert!(took < Duration::from_secs(10), "{took:?}\n{said}");
    assert_eq!(status, Some(1), "{said}");
    assert!(said.contains("\nStopped by SIGINT after "), "{said}");
    assert!(said.contains("\nFound 1 divergence:\n  undo-"), "{said}");
    assert!(said.ends_with(" 1 divergence found.\n"), "{said}");
    let names = saved(&out);
    assert_eq!(names.len(), 1, "{said}");
    assert!(said.contains(&path(&out.join(&names[0]))), "{said}");
    // Nothing found: 130, whichever of the two signals.
    let args = ["--program", BIN, "--runs", "1000000", "--out", &path(&out.join("none"))];
    let (said, status, took) = interrupted(&args, "Fuzzing ", "-TERM");
    assert!(took < Duration::from_secs(10), "{took:?}\n{said}");
    assert_eq!(status, Some(130), "{said}");
    assert!(said.contains("\nStopped by SIGTERM after "), "{said}");
    assert!(said.lines().last().is_some_and(|l| l.starts_with("Fuzz Results: ")), "{said}");
    assert!(said.ends_with(" 0 divergences found.\n"), "{said}");
}

#[test]
fn a_program_that_hangs_or_crashes_on_every_trace_stops_the_session_after_five() {
    let scratch = temp_dir();
    let cases = [
        ("hangs.sh", "sleep 100", "did not finish in 0.3 s"),
        (
            "crashes.sh",
            "kill -SEGV $$",
            "was killed by signal 11 (SIGSEGV) before printing anything",
        ),
    ];
    for (name, body, what) in cases {
        let program = script(scratch.path(), name, body);
        let out = scratch.path().join(name.replace(".sh", ""));
        let began = Instant::now();
        let o = fuzz(&[
            "--program",
            &program,
            "--runs",
            "1000",
            "--time",
            "40",
            "--timeout",
            "0.3",
            "-j",
            "2",
            "--out",
            &path(&out),
        ]);
        let took = began.elapsed();
        let said = text(&o);
        assert_eq!(o.status.code(), Some(1), "{said}");
        assert!(
            said.contains(&format!("\nStopped: the program {what} on 5 different traces, and no run of it has finished with output: ")),
            "{said}"
        );
        assert!(took < Duration::from_secs(15), "{took:?}\n{said}");
        let names = saved(&out);
        assert_eq!(names.len(), 1, "{said}");
        assert!(
            said.contains(&format!(
                "The smallest trace it failed on is saved above: {}\n",
                path(&out.join(&names[0]))
            )),
            "{said}"
        );
        assert!(said.lines().last().is_some_and(|l| l.starts_with("Fuzz Results: ")), "{said}");
    }
}

/// A program that crashes on some traces only (a scanner that dies on a
/// tab), even when the first five traces all hold a tab (seed 3): its
/// crash is shrunk to its end before any stop (attack 37's A5: stopped
/// after 5 runs, the crash left a trace of 30 lines).
#[test]
fn a_crash_on_some_traces_is_shrunk_and_does_not_stop_the_session() {
    let scratch = temp_dir();
    let body = format!("grep -q \"$(printf '\\t')\" \"$2\" && kill -SEGV $$\nexec {BIN} \"$@\"");
    let program = script(scratch.path(), "segvtab.sh", &body);
    let out = scratch.path().join("o");
    let args = ["--program", &program, "--runs", "30", "--seed", "3", "-j", "2", "--out"];
    let o = fuzz(&[&args[..], &[&path(&out)]].concat());
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    // Stopped or not (the first traces without a tab may come after the
    // shrink and five more crashes), the crash is shrunk to its end.
    assert!(said.contains(" to 1 event in "), "{said}");
    assert!(!said.contains("not shrunk") && !said.contains("not fully shrunk"), "{said}");
    let names = saved(&out);
    assert_eq!(names.len(), 1, "{said}");
    let trace = fs::read(out.join(&names[0])).expect("saved");
    assert!(trace.contains(&b'\t') && trace.iter().filter(|&&b| b == b'\n').count() <= 1, "{said}");
    assert!(said.ends_with(" 1 divergence found.\n"), "{said}");
}

/// tictac out of open files (its own `ulimit -n`) is tictac's trouble, not
/// the program's: said so, exit 2, nothing blamed on the program (attack
/// 37's A12: "the program cannot be started").
#[test]
fn tictac_out_of_open_files_is_not_the_programs_doing() {
    let scratch = temp_dir();
    let program = script(scratch.path(), "ok.sh", &format!("exec {BIN} \"$@\""));
    let out = path(&scratch.path().join("o"));
    let limited = "ulimit -n 12 && exec \"$@\"";
    let args = ["fuzz", "--program", &program, "--runs", "20", "-j", "2", "--out", &out];
    let o =
        crate::common::run(Command::new("sh").args(["-c", limited, "sh", BIN]).args(args), None);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.contains(
            "error: the session could not go on, and not for the program's doing: cannot run "
        ),
        "{said}"
    );
    assert!(said.contains("Too many open files") && said.contains("`ulimit -n`"), "{said}");
    assert!(!said.contains("the program cannot be started"), "{said}");
}

/// A session in which no run finished checked nothing (attack 37's A4):
/// it says why in words a student acts on and exits 1, never "0
/// divergences found" and 0.
#[test]
fn a_session_in_which_no_run_finished_says_nothing_was_checked() {
    let scratch = temp_dir();
    let never = script(scratch.path(), "never.sh", "sleep 100");
    let slow = script(scratch.path(), "slow.sh", &format!("sleep 3\nexec {BIN} \"$@\""));
    let out = path(&scratch.path().join("o"));
    let starting = "the time ran out before the first run, while checking that the program starts";
    // The check that it starts takes 1 s (--timeout); the runs started
    // then are still going at 1.6 s (on a loaded machine, perhaps not
    // started yet).
    let cases = [
        (&never, "1.6", "1", ["2 runs were still going when the time ran out", starting]),
        (&slow, "1", "10", [starting, starting]),
    ];
    for (program, time, timeout, what) in cases {
        let o = fuzz(&[
            "--program",
            program,
            "--time",
            time,
            "--timeout",
            timeout,
            "-j",
            "2",
            "--out",
            &out,
        ]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(1), "{said}");
        let no_run = |what| {
            format!(
                "\nNo run finished within the session's {time} s, so nothing was checked: {what}"
            )
        };
        assert!(what.iter().any(|what| said.contains(&no_run(what))), "{said}");
        assert!(said.contains(". Give the session more --time, or find out why the program is slow or hangs: run it yourself as `"), "{said}");
        assert!(
            said.ends_with("Fuzz Results: 0 runs, 0/66 behaviours covered, 0 divergences found.\n"),
            "{said}"
        );
    }
}

/// A run that timed out and whose run alone the time cut is not "no
/// divergence"; a trace the program never finished covers nothing.
#[test]
fn a_timeout_not_run_again_is_no_pass_and_a_hung_run_covers_nothing() {
    let scratch = temp_dir();
    // The check that it starts and the first run finish; every later run
    // hangs: the second times out before 1.8 s (started before 0.8 s, in
    // 0.1 to 0.2 s at load 13 here), and its run alone, which would take
    // 1 s more, is cut at 1.8 s.
    let count = path(&scratch.path().join("count"));
    let body = format!(
        "echo >> {count}\nif [ \"$(wc -l < {count})\" -gt 2 ]; then sleep 100; fi\nexec {BIN} \"$@\""
    );
    let later = script(scratch.path(), "later.sh", &body);
    let out = path(&scratch.path().join("o"));
    let o =
        fuzz(&["--program", &later, "--time", "1.8", "--timeout", "1", "-j", "1", "--out", &out]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("\n1 run did not finish in 1 s and was being run again alone when the time ran out: whether the program hangs there is not known, so this is no pass; give the session more --time.\n"), "{said}");
    assert!(said.contains("Fuzz Results: 1 run, "), "{said}");
    // One run, confirmed a hang: nothing covered. A trace of one line, so
    // that shrinking it is one more hung run, not fifty.
    let never = script(scratch.path(), "never.sh", "sleep 100");
    let o = fuzz(&[
        "--program",
        &never,
        "--runs",
        "1",
        "--timeout",
        "0.3",
        "--max-lines",
        "1",
        "--out",
        &out,
    ]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("Divergence: hang"), "{said}");
    assert!(said.contains("Fuzz Results: 1 run, 0/66 behaviours covered, "), "{said}");
}

#[test]
fn an_out_folder_that_cannot_be_written_in_is_said_before_fuzzing() {
    // /proc refuses new files even to root.
    let o = fuzz(&["--program", BIN, "--runs", "5", "--out", "/proc/self/found"]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.starts_with("error: --out '/proc/self/found' cannot be written in (/proc/self: "),
        "{said}"
    );
    assert!(!said.contains("Fuzzing"), "{said}");
}

#[test]
fn a_trace_that_cannot_be_written_stops_the_session_with_an_error() {
    // A file size limit of 1 KiB: longer traces cannot be written, and the
    // session must not skip them without a word (nor end with 0 runs, 0).
    let scratch = temp_dir();
    let line = format!(
        "ulimit -f 2; exec {BIN} fuzz --program {BIN} --runs 200 --max-lines 200 --seed 1 --out {}",
        path(&scratch.path().join("found"))
    );
    let o = crate::common::run(Command::new("sh").args(["-c", &line]), None);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains("error: a trace could not be written to the scratch folder: "), "{said}");
}

#[test]
fn a_save_traces_file_that_is_a_fifo_is_refused_at_once() {
    // Opening a FIFO with no reader to write would wait for one for ever.
    let scratch = temp_dir();
    let fifo = scratch.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().expect("mkfifo").success());
    let began = Instant::now();
    let o = fuzz(&["--program", BIN, "--runs", "5", "--save-traces", &path(&fifo)]);
    let said = text(&o);
    assert!(began.elapsed() < Duration::from_secs(20), "{said}");
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.starts_with(&format!("error: --save-traces '{}' ", path(&fifo))), "{said}");
}

/// A program writing a scratch file in its folder, run two at a time, as
/// `tictac test` runs it: each worker's runs happen in a private copy of
/// the folder the session was started in, so no run reads another's file
/// (no false divergence), and nothing is left in the folder (finding 6).
/// A folder too large to copy is run in as it is, one run at a time, and
/// the session says so (in 8 runs: run one at a time, they share nothing).
#[test]
fn runs_at_once_never_share_a_scratch_file_nor_leave_one_in_the_folder() {
    let body = format!("{BIN} \"$@\" > scratch.out; sleep 0.0$(($$ % 10)); cat scratch.out");
    for (large, runs) in [(false, "40"), (true, "8")] {
        let (folder, found) = (temp_dir(), temp_dir());
        script(folder.path(), "scratch.sh", &body);
        if large {
            for k in 0..2001 {
                fs::write(folder.path().join(format!("{k}.txt")), "").expect("write");
            }
        }
        let o = crate::common::run(
            Command::new(BIN)
                .args(["fuzz", "--program", "./scratch.sh", "--runs", runs, "--seed", "1"])
                .args(["-j", "2", "--out", &path(&found.path().join("o"))])
                .current_dir(folder.path()),
            None,
        );
        let said = text(&o);
        assert_eq!(o.status.code(), Some(0), "{said}");
        assert!(said.ends_with(" 0 divergences found.\n"), "{said}");
        let note = format!(
            "\nnote: the program ran in {} itself, one run at a time: it holds more than 2000 files",
            path(folder.path())
        );
        assert_eq!(said.contains(&note), large, "{said}");
        if !large {
            let left: Vec<_> = fs::read_dir(folder.path())
                .expect("list")
                .map(|e| e.expect("entry").file_name())
                .collect();
            assert_eq!(left, ["scratch.sh"], "{said}");
        }
    }
}

/// A program that prints the right output, then dies of a signal: a
/// divergence without --check-status, its signal named, saved as a test
/// that `tictac test` fails (finding 7).
#[test]
fn a_crash_after_the_right_output_is_a_divergence_naming_its_signal() {
    let scratch = temp_dir();
    let program = script(scratch.path(), "sigafter.sh", &format!("{BIN} \"$@\"; kill -SEGV $$"));
    let out = path(&scratch.path().join("o"));
    let o = fuzz(&["--program", &program, "--runs", "20", "--seed", "1", "-j", "1", "--out", &out]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("Divergence: crash (the right output, then a crash), run "), "{said}");
    assert!(
        said.contains("\n  the program was killed by signal 11 (SIGSEGV)\n  saved: "),
        "{said}"
    );
    assert!(said.contains("\n  crash: killed by signal 11 (SIGSEGV), "), "{said}");
    assert!(said.ends_with(" 1 divergence found.\n"), "{said}");
    let o = tictac(&["test", &out, "--program", &program]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// A program that fails the same way on every trace (started in the wrong
/// folder: python's `can't open file`) stops the session after five
/// traces, its standard error shown with the folder's path, not the
/// private copy's (S2). Printing nothing on some traces once others
/// printed something (no error message after a syntax error) does not.
#[test]
fn a_program_failing_alike_on_every_trace_stops_the_session_showing_its_standard_error() {
    let folder = temp_dir();
    let body = "echo \"python3: can't open file '$PWD/ttt.py'\" >&2; exit 2";
    script(folder.path(), "wrong.sh", body);
    let out = path(&folder.path().join("found"));
    let began = Instant::now();
    let o = crate::common::run(
        Command::new(BIN)
            .args(["fuzz", "--program", "./wrong.sh", "--runs", "10000", "--out", &out])
            .current_dir(folder.path()),
        None,
    );
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(began.elapsed() < Duration::from_secs(30), "{said}");
    let shown = format!("python3: can't open file '{}/ttt.py'\n", path(folder.path()));
    assert!(said.contains(&format!("\n  standard error:\n    {shown}")), "{said}");
    assert!(
        said.contains(&format!(
            "\nStopped: the program printed nothing and exited with status 2 on 5 different traces, and no run of it has finished with output: it seems to fail on every trace, and more runs would only show that again.\nIts standard error on the last of them:\n  {shown}"
        )),
        "{said}"
    );
    // Silent on syntax errors alone: found, never a reason to stop.
    let body = format!("out=$({BIN} \"$@\") && printf '%s\\n' \"$out\"; exit 0");
    let program = script(folder.path(), "quiet.sh", &body);
    let o =
        fuzz(&["--program", &program, "--runs", "150", "--seed", "1", "-j", "1", "--out", &out]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(!said.contains("Stopped:"), "{said}");
    assert!(said.contains("Fuzz Results: 150 runs, "), "{said}");
}

/// A program that reads its input as text, bytes that are not UTF-8
/// dropped on the way (`iconv -c`, as Python's `errors="replace"` or a
/// Java `Reader` changes them), is right on every UTF-8 trace: the fuzzer
/// finds it only by writing such bytes (in names, comments, stray bytes).
/// Each saved test holds them exactly, its expected file is what `-b`
/// prints for it, and the report shows them readably (`\xNN`).
#[test]
fn a_program_reading_its_input_as_text_is_found_by_bytes_that_are_not_utf8() {
    let scratch = temp_dir();
    let body = format!("iconv -c -f UTF-8 -t UTF-8 \"$2\" 2>/dev/null | exec {BIN} -b /dev/stdin");
    let program = script(scratch.path(), "lossy.sh", &body);
    let out = scratch.path().join("found");
    let o = fuzz(&[
        "--program",
        &program,
        "--runs",
        "40",
        "--time",
        "30",
        "--seed",
        "4",
        "-j",
        "2",
        "--out",
        &path(&out),
    ]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("\\x"), "the bytes shown as \\xNN:\n{said}");
    let names = saved(&out);
    assert!(!names.is_empty(), "{said}");
    for name in names {
        let trace = fs::read(out.join(&name)).expect("saved");
        assert!(std::str::from_utf8(&trace).is_err(), "{name} is UTF-8:\n{said}");
        let expected = out.join(name.replace(".txt", ".expected.txt"));
        let ran = tictac(&["-b", &path(&out.join(&name))]);
        assert_eq!(fs::read(expected).expect("expected file"), ran.stdout, "{name}");
    }
}
