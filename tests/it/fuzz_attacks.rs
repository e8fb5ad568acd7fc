//! `tictac fuzz` against what an attacker found (issue 11): a saved
//! `exit-status` test that fails, a failing oracle reported as such, a
//! timeout under load confirmed before it is a hang, `--time` kept while
//! shrinking, a closed output, `--out` checked first, `initial-state` not
//! excludable, and one fault at the root of the output reported once.

use crate::common::{
    BIN, ended_within, fuzz, fuzz_started, path, saved, script, temp_dir, text, tictac,
};
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::{Duration, Instant};

#[test]
fn an_exit_status_divergence_is_saved_as_a_test_that_fails() {
    let scratch = temp_dir();
    let exit3 = script(scratch.path(), "exit3.sh", &format!("{BIN} \"$@\"; exit 3"));
    let out = path(&scratch.path().join("o"));
    let o = fuzz(&[
        "--program",
        &exit3,
        "--check-status",
        "--runs",
        "30",
        "--seed",
        "3",
        "-j",
        "1",
        "--out",
        &out,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(saved(Path::new(&out)), ["exit-status-1.txt"], "{}", text(&o));
    let trace = fs::read_to_string(Path::new(&out).join("exit-status-1.txt")).expect("read");
    assert!(trace.starts_with("-- status: 0\n"), "{trace}");
    let o = tictac(&["test", &out, "--program", &exit3]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("the exit status is not: expected 0 (`-- status: 0`), got 3"),
        "{}",
        text(&o)
    );
    // The engine itself passes it.
    let o = tictac(&["test", &out, "--program", BIN]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn a_status_line_is_checked_in_process_too() {
    let dir = temp_dir();
    fs::write(dir.path().join("a.txt"), "-- status: 1\nundo\n").expect("write");
    let o = tictac(&["test", &path(dir.path()), "--bless"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("expected 1 (`-- status: 1`), got 0"), "{}", text(&o));
    fs::write(dir.path().join("a.txt"), "-- status: 0\nundo\n").expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    fs::write(dir.path().join("a.txt"), "-- status: one\nundo\n").expect("write");
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("`-- status: one` is not a valid directive"), "{}", text(&o));
}

#[test]
fn a_failing_oracle_is_reported_and_never_blames_the_program() {
    let scratch = temp_dir();
    let out = path(&scratch.path().join("o"));
    // (On a trace with an error, an oracle exiting 1 is within its rights,
    // but it still printed nothing: which of the two is said depends on the
    // first trace.)
    let oracles: [(&str, &str, &[&str]); 3] = [
        ("hangs.sh", "sleep 100", &["did not finish in 1 s, run alone too"]),
        (
            "silent.sh",
            "exit 1",
            &["exited with status 1 on a trace without an error", "it printed nothing"],
        ),
        ("killed.sh", "kill -9 $$", &["it was killed by signal 9 (SIGKILL)"]),
    ];
    for (name, body, why) in oracles {
        let oracle = script(scratch.path(), name, body);
        let o = fuzz(&[
            "--program",
            BIN,
            "--oracle",
            &oracle,
            "--runs",
            "20",
            "--seed",
            "1",
            "--timeout",
            "1",
            "--out",
            &out,
        ]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(2), "{said}");
        assert!(
            said.contains(&format!("error: the oracle '{oracle}' failed on a trace")),
            "{said}"
        );
        assert!(why.iter().any(|why| said.contains(why)), "{said}");
        assert!(!said.contains("Divergence"), "{said}");
        assert!(!Path::new(&out).exists(), "{said}");
    }
}

/// The trace an oracle failed on is saved nowhere: the message shows it as
/// the reports show a trace, a byte that is not UTF-8 as `\xNN`, not as
/// U+FFFD (one trace in four holds such bytes).
#[test]
fn a_failing_oracle_shows_its_trace_as_the_reports_do() {
    let scratch = temp_dir();
    let body =
        format!("iconv -f UTF-8 -t UTF-8 \"$2\" >/dev/null 2>&1 || exit 1\nexec {BIN} \"$@\"");
    let oracle = script(scratch.path(), "utf8-only.sh", &body);
    let out = path(&scratch.path().join("o"));
    let args =
        ["--program", BIN, "--oracle", &oracle, "--runs", "50", "--seed", "1", "--out", &out];
    let o = fuzz(&args);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(said.contains(&format!("error: the oracle '{oracle}' failed on a trace")), "{said}");
    assert!(said.contains("\\x") && !said.contains('\u{fffd}'), "{said}");
    assert!(said.contains("bytes that are not UTF-8, are escaped above"), "{said}");
}

/// A program stopped by a signal (SIGSTOP) and never resumed is told so,
/// as `tictac test` tells it, not as one that did not finish in time.
#[test]
fn a_program_stopped_by_a_signal_is_told_so() {
    let scratch = temp_dir();
    let program = script(scratch.path(), "stop.sh", "kill -STOP $$");
    let out = path(&scratch.path().join("o"));
    // Each run lasts its timeout: short, and -j 5 for the 5 that stop the session.
    let args = ["--program", &program, "--runs", "20", "--timeout", "1", "-j", "5", "--out", &out];
    let o = fuzz(&args);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    let how = "stopped by signal 19 (SIGSTOP) and never resumed";
    assert!(said.contains(&format!("\n  the program did not finish: {how}\n")), "{said}");
    assert!(said.contains(&format!("Stopped: the program did not finish ({how}) on 5")), "{said}");
    assert!(said.contains(&format!("\n  hang: {how}, ")), "{said}");
    assert!(!said.contains("in 1 s"), "{said}");
}

#[test]
fn a_timeout_that_does_not_repeat_alone_is_no_hang() {
    let scratch = temp_dir();
    let count = path(&scratch.path().join("count"));
    // Slow on its second run only (the first is the check that it starts),
    // as a loaded machine makes a run.
    let body = format!(
        "n=$(($(cat {count} 2>/dev/null || echo 0) + 1)); echo $n > {count}\n\
         if [ $n = 2 ]; then sleep 10; fi\nexec {BIN} \"$@\""
    );
    let program = script(scratch.path(), "slow-once.sh", &body);
    let out = path(&scratch.path().join("o"));
    let o =
        fuzz(&["--program", &program, "--runs", "5", "-j", "1", "--timeout", "2", "--out", &out]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(0), "{said}");
    assert!(said.contains("1 run did not finish in 2 s, then did when run again alone"), "{said}");
    assert!(said.ends_with(" 0 divergences found.\n"), "{said}");
}

#[test]
fn time_is_kept_while_shrinking() {
    let scratch = temp_dir();
    let body = format!("if grep -q play_again \"$2\"; then sleep 100; fi\nexec {BIN} \"$@\"");
    let program = script(scratch.path(), "hangs-on-again.sh", &body);
    let out = path(&scratch.path().join("o"));
    let began = Instant::now();
    let o = fuzz(&[
        "--program",
        &program,
        "--time",
        "3",
        "--timeout",
        "1",
        "--seed",
        "5",
        "-j",
        "2",
        "--out",
        &out,
    ]);
    let took = began.elapsed();
    let said = text(&o);
    assert!(took < Duration::from_millis(5500), "{took:?}\n{said}");
    assert!(said.contains("Divergence: hang"), "{said}");
    assert!(said.contains("Fuzz Results: "), "{said}");
    assert_eq!(saved(Path::new(&out)), ["hang-1.txt"], "{said}");
    // The check that it starts is part of the session too.
    let always = script(scratch.path(), "hangs.sh", "sleep 100");
    let began = Instant::now();
    let o = fuzz(&["--program", &always, "--time", "2", "--out", &out]);
    assert!(began.elapsed() < Duration::from_millis(4500), "{:?}\n{}", began.elapsed(), text(&o));
}

#[test]
fn a_closed_output_stops_the_session() {
    let scratch = temp_dir();
    let exit3 = script(scratch.path(), "exit3.sh", &format!("{BIN} \"$@\"; exit 3"));
    let out = path(&scratch.path().join("o"));
    let mut child = fuzz_started(&["--program", &exit3, "--runs", "100000", "--out", &out]);
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("read");
    assert!(first.starts_with("Fuzzing '"), "{first}");
    // The reader is gone: dropped with the BufReader.
    let status = ended_within(&mut child, Duration::from_secs(10), "its output was closed");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn out_is_checked_before_fuzzing_and_initial_state_cannot_be_excluded() {
    let scratch = temp_dir();
    let file = scratch.path().join("file");
    fs::write(&file, "").expect("write");
    let o = fuzz(&["--program", BIN, "--runs", "5", "--out", &path(&file)]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(text(&o), format!("error: --out '{}' is not a folder\n", path(&file)));
    let o = fuzz(&["--program", BIN, "--exclude", "initial-state"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with("Error: initial-state cannot be excluded"), "{}", text(&o));
}

#[test]
fn a_fault_at_the_start_of_the_output_is_one_divergence() {
    let scratch = temp_dir();
    // `yes` fills the output's limit on every run (about 27 ms of CPU a run
    // in a debug build): 20 runs, over 60 behaviours, still repeat its fault.
    let programs = [
        ("stderr.sh", format!("exec {BIN} \"$@\" 1>&2"), "150"),
        ("closes.sh", "exec 1>&-; sleep 0".to_string(), "150"),
        ("forever.sh", "yes".to_string(), "20"),
    ];
    for (name, body, runs) in programs {
        let program = script(scratch.path(), name, &body);
        let out = scratch.path().join(name.replace(".sh", ""));
        let o = fuzz(&["--program", &program, "--runs", runs, "--seed", "4", "--out", &path(&out)]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(1), "{said}");
        assert_eq!(said.matches("Divergence: ").count(), 1, "{said}");
        assert!(said.ends_with(" 1 divergence found.\n"), "{said}");
        assert_eq!(saved(&out).len(), 1, "{said}");
    }
}
