//! `tictac fuzz` from outside: against deliberately wrong programs (the
//! independent model of `examples/mutant.rs`, one mistake each, and a shell
//! script that alters tictac's output with sed) it finds each mistake within
//! a small budget and shrinks it to at most two commands more than the
//! shortest trace that shows it; against correct programs it finds nothing.
//! The 10,000-run check and the timings are in bench/check-fuzz.sh.

use crate::common::{BIN, fuzz, temp_dir, text, tictac};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Each mistake of the model, with the length (in commands) of the shortest
/// trace that shows it.
const MUTANTS: [(&str, usize); 7] = [
    // new_game, play, undo, a new play, redo (which must do nothing)
    ("redo-kept", 5),
    // new_game, five moves to a win by X, play_again (O must start)
    ("same-starter", 7),
    // new_game, play, the same play again (not this player's turn)
    ("precedence", 3),
    // new_game, X on 3, 5, 7 with two O moves between
    ("no-diagonal", 6),
    // one line that does not parse
    ("column", 1),
    // one line with a multi-byte character before its syntax error
    ("chars", 1),
    // one line with a tab before its syntax error
    ("tabs", 1),
];

pub(crate) fn mutant() -> PathBuf {
    let dir = Path::new(BIN).parent().expect("target folder");
    let exe = dir.join("examples").join("mutant");
    assert!(exe.exists(), "{} is built by cargo test (examples/mutant.rs)", exe.display());
    exe
}

/// The traces written to a folder, with their lengths in kept lines (the
/// shrinker leaves one event per line).
fn found(dir: &Path) -> Vec<(PathBuf, usize)> {
    let mut traces: Vec<(PathBuf, usize)> = fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".txt"))
        .filter(|p| !p.to_string_lossy().ends_with(".expected.txt"))
        .map(|p| {
            // Bytes: the fuzzer writes traces that are not UTF-8.
            let body = fs::read(&p).expect("read trace");
            let lines = body
                .split(|&b| b == b'\n')
                .map(<[u8]>::trim_ascii)
                .filter(|l| !l.is_empty() && !l.starts_with(b"--"))
                .count();
            (p, lines)
        })
        .collect();
    traces.sort();
    traces
}

/// Fuzzes the model with one mistake: found within 100 runs, shrunk to at
/// most two commands more than its shortest trace, and each saved test fails
/// against the model and passes against the engine.
fn finds_and_shrinks(name: &str, shortest: usize, seed: u64, scratch: &Path) {
    let out = scratch.join(format!("{name}-{seed}"));
    let program = format!("{} {name}", mutant().display());
    let seed = seed.to_string();
    let args = ["--program", &program, "--runs", "100", "--seed", &seed, "-j", "2"];
    let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{name}, seed {seed}: {said}");
    let traces = found(&out);
    let best = traces.iter().map(|t| t.1).min().unwrap_or(usize::MAX);
    assert!(
        best <= shortest + 2,
        "{name}, seed {seed}: shortest found {best} > {shortest} + 2\n{said}"
    );
    assert!(said.lines().last().is_some_and(|l| l.starts_with("Fuzz Results: 100 runs, ")));
    let o = tictac(&["test", &out.to_string_lossy(), "--program", &program]);
    assert_eq!(o.status.code(), Some(1), "{name}: {}", text(&o));
    assert!(text(&o).ends_with(&format!("Test Results: 0/{} passed.\n", traces.len())));
    let o = tictac(&["test", &out.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{name}: {}", text(&o));
}

/// A shell script that alters tictac's tie message, fuzzed with two jobs
/// (which run finds the tie first, and so what is shrunk, depends on
/// scheduling): the tie is shrunk to at most new_game, nine moves and two.
fn finds_the_altered_tie(seed: u64, scratch: &Path) {
    let script = scratch.join("wrong.sh");
    if !script.exists() {
        let body = format!("#!/bin/sh\n{BIN} \"$@\" | sed 's/game ended in a tie/tie/'\n");
        fs::write(&script, body).expect("write script");
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let out = scratch.join(format!("tie-{seed}"));
    let seed = seed.to_string();
    let args = ["--program", &script.to_string_lossy(), "--runs", "60", "--seed", &seed, "-j", "2"];
    let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "seed {seed}: {said}");
    let traces = found(&out);
    let tie = traces.iter().find(|t| t.0.to_string_lossy().contains("/tie-1.txt"));
    // new_game and nine moves.
    assert!(tie.is_some_and(|t| t.1 <= 10 + 2), "seed {seed}: {said}");
}

#[test]
fn finds_each_mistake_and_shrinks_it_near_its_shortest_trace() {
    let scratch = temp_dir();
    for (name, shortest) in MUTANTS {
        finds_and_shrinks(name, shortest, 11, scratch.path());
    }
}

/// Every mistake over many seeds (bench/check-fuzz.sh runs it: too slow for
/// cargo test). Seeds from env FUZZ_SEEDS (`FIRST-LAST`), 1-12 by default.
#[test]
#[ignore = "slow: run by bench/check-fuzz.sh"]
fn every_mistake_over_many_seeds() {
    let seeds = std::env::var("FUZZ_SEEDS").unwrap_or_else(|_| "1-12".into());
    let (first, last) = seeds
        .split_once('-')
        .and_then(|(a, b)| Some((a.parse::<u64>().ok()?, b.parse::<u64>().ok()?)))
        .expect("FUZZ_SEEDS is FIRST-LAST");
    let scratch = temp_dir();
    for seed in first..=last {
        for (name, shortest) in MUTANTS {
            finds_and_shrinks(name, shortest, seed, scratch.path());
        }
        finds_the_altered_tie(seed, scratch.path());
    }
}

/// Columns counted in characters, or a tab counted as several columns (the
/// mistakes Python's and Java's strings and an editor's view invite): each
/// found in a one-line trace named after what it exercises, the trace shown
/// with its tab escaped, the saved file holding the tab itself.
#[test]
fn columns_counted_in_characters_or_screen_columns_are_found_in_one_line() {
    let scratch = temp_dir();
    for (name, kind) in [("chars", "syntax-column-multibyte"), ("tabs", "syntax-column-tab")] {
        let out = scratch.path().join(name);
        let program = format!("{} {name}", mutant().display());
        let args = ["--program", &program, "--runs", "100", "--seed", "2", "-j", "2"];
        let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
        let said = text(&o);
        assert_eq!(o.status.code(), Some(1), "{said}");
        let head = format!("Divergence: {kind} (");
        let report = said.split(&head).nth(1).unwrap_or_else(|| panic!("{name}: {said}"));
        assert!(report.contains(" to 1 event in "), "{name}: {said}");
        let trace = report.lines().nth(1).unwrap_or_default();
        assert!(!trace.contains('\t'), "{name}: a raw tab reads as a space: {said}");
        let saved = fs::read(out.join(format!("{kind}-1.txt"))).expect("saved");
        if name == "tabs" {
            assert!(trace.contains("\\t"), "{said}");
            assert!(saved.contains(&b'\t'), "the file holds the tab itself");
            assert!(report.contains("(the file holds the exact bytes; "), "{said}");
        } else {
            assert!(saved.iter().any(|b| *b > 0x7f), "{said}");
        }
    }
}

/// A name's escaped quote printed bare (`Jo\"e` as `Jo"e`, a scanner that
/// decodes escapes) shows under every behaviour that echoes a name: one
/// mistake, one report, its other kinds listed under it.
#[test]
fn one_text_printed_wrongly_under_several_behaviours_is_one_report() {
    let (also, said) = one_report("unescape", "300", "2", |l| {
        l.contains("(the same text printed wrongly: `\\` as nothing); not saved again")
    });
    assert!(also >= 1, "{said}");
}

/// Fuzzes the mutant `mode` (`runs` runs, `jobs` jobs, seed 2), checks that
/// it is one divergence saved once, and counts the lines `Also ...` that
/// `also` accepts; gives that count and what the session said.
fn one_report(mode: &str, runs: &str, jobs: &str, also: impl Fn(&str) -> bool) -> (usize, String) {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    let program = format!("{} {mode}", mutant().display());
    let args = ["--program", &program, "--runs", runs, "--seed", "2", "-j", jobs];
    let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("\nFound 1 divergence:\n"), "{said}");
    assert_eq!(found(&out).len(), 1, "{said}");
    let count = said.lines().filter(|l| l.starts_with("Also ") && also(l)).count();
    (count, said)
}

/// A carriage return that is no blank to the program (a scanner written on
/// Linux, a trace saved on Windows) makes it reject traces at that `\r`
/// where tictac shows the initial state, a column, an end of input, ...:
/// one mistake, one report, each kind it showed listed under it (S6: four
/// reports, nine over 1,500 runs, before).
#[test]
fn a_character_the_program_rejects_under_several_behaviours_is_one_report() {
    let (also, said) = one_report("cr", "400", "1", |l| {
        l.ends_with(
            "(the program rejects the trace at a `\\r` where tictac does not); not saved again",
        )
    });
    assert!(also >= 3, "{said}");
}

/// (Four runs, one job: five traces that hang would end the session before
/// the hang is shrunk, tests/it/fuzz_session.rs.)
#[test]
fn a_program_that_hangs_is_a_divergence_of_its_own() {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    let program = format!("{} hang", mutant().display());
    let o = fuzz(&[
        "--program",
        &program,
        "--runs",
        "4",
        "-j",
        "1",
        "--seed",
        "3",
        "--timeout",
        "0.2",
        "--out",
        &out.to_string_lossy(),
    ]);
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("Divergence: hang (the program did not finish in time)"), "{said}");
    let hang = found(&out).into_iter().find(|t| t.0.to_string_lossy().contains("hang-1"));
    assert!(hang.is_some_and(|t| t.1 <= 2 + 2), "{said}");
}

#[test]
fn output_altered_by_a_script_is_found_and_named_after_the_behaviour() {
    let scratch = temp_dir();
    finds_the_altered_tie(5, scratch.path());
}

#[test]
fn correct_programs_show_no_divergence() {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    let model = format!("{} none", mutant().display());
    for program in [BIN, model.as_str()] {
        let o = fuzz(&["--program", program, "--runs", "80", "--out", &out.to_string_lossy()]);
        let said = text(&o);
        assert_eq!(o.status.code(), Some(0), "{said}");
        assert!(said.lines().next().is_some_and(|l| l.contains(": seed ")), "{said}");
        assert!(said.ends_with(" 0 divergences found.\n"), "{said}");
        assert!(!out.exists(), "nothing is written when nothing is found");
    }
}

#[test]
fn with_seed_runs_and_one_job_a_session_repeats() {
    let scratch = temp_dir();
    let program = format!("{} precedence", mutant().display());
    let run = |dir: &str| {
        let out = scratch.path().join(dir);
        let args = ["--program", &program, "--runs", "60", "--seed", "9", "-j", "1"];
        let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
        let found: Vec<(String, String)> = found(&out)
            .into_iter()
            .map(|(p, _)| {
                let name = p.file_name().expect("name").to_string_lossy().into_owned();
                (name, fs::read_to_string(&p).expect("read"))
            })
            .collect();
        (o.status.code(), found)
    };
    let first = run("a");
    assert_eq!(first.0, Some(1));
    assert_eq!(first, run("b"));
}

#[test]
fn existing_files_are_never_overwritten() {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    fs::create_dir(&out).expect("mkdir");
    fs::write(out.join("play-wrong-turn-taken-1.txt"), "mine").expect("write");
    let program = format!("{} precedence", mutant().display());
    let o = fuzz(&[
        "--program",
        &program,
        "--runs",
        "60",
        "--seed",
        "1",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(fs::read_to_string(out.join("play-wrong-turn-taken-1.txt")).expect("read"), "mine");
    assert!(out.join("play-wrong-turn-taken-2.txt").exists(), "{}", text(&o));
}

#[test]
fn usage_errors_and_a_program_that_cannot_start() {
    let o = fuzz(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).starts_with("Error: fuzz needs --program <CMD>\nRun 'tictac fuzz --help'"),
        "{}",
        text(&o)
    );
    let o = fuzz(&["--program", BIN, "--exclude", "no-such-thing"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with("Error: unknown behaviour 'no-such-thing'"));
    let o = fuzz(&["--program", BIN, "--runs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    let o = fuzz(&["--program", "/no/such/program", "--runs", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).starts_with("Error: --program cannot run '/no/such/program'"), "{}", text(&o));
}

#[test]
fn excluded_behaviours_are_not_generated() {
    // The model's only mistake is in the excluded behaviour: nothing found.
    let program = format!("{} precedence", mutant().display());
    let scratch = temp_dir();
    let o = fuzz(&[
        "--program",
        &program,
        "--runs",
        "80",
        "--exclude",
        "play-wrong-turn-taken",
        "--out",
        &scratch.path().join("f").to_string_lossy(),
    ]);
    let said = text(&o);
    assert!(said.ends_with("/65 behaviours covered, 0 divergences found.\n"), "{said}");
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn another_oracle_gives_the_expected_output() {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    let wrong = format!("{} precedence", mutant().display());
    let right = format!("{} none", mutant().display());
    let run = |program: &str, oracle: &str| {
        fuzz(&[
            "--program",
            program,
            "--oracle",
            oracle,
            "--runs",
            "60",
            "--seed",
            "2",
            "--out",
            &out.to_string_lossy(),
        ])
    };
    // The model without mistakes agrees with tictac as its oracle; the ETF
    // departures (wrong arities) are left out, so 64 behaviours count.
    let o = run(&right, BIN);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).lines().next().is_some_and(|l| l.contains(&format!("against '{BIN}'"))));
    assert!(text(&o).ends_with("/64 behaviours covered, 0 divergences found.\n"), "{}", text(&o));
    // With the wrong model as the oracle, tictac is the one that differs.
    let o = run(BIN, &wrong);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let expected = fs::read_to_string(out.join("play-wrong-turn-taken-1.expected.txt"))
        .expect("the oracle's output is saved");
    assert!(expected.contains("button already taken"), "{expected}");
}

/// The same mistake met first after a finished round (7 events), then in
/// the first `new_game` of a trace: the smaller trace is told in the
/// report's place and its test replaces the larger one, so the headline and
/// the saved test point at the cause (attack 38's C4).
#[test]
fn the_same_divergence_met_in_fewer_events_is_the_one_saved() {
    let scratch = temp_dir();
    let out = scratch.path().join("found");
    let program = format!("{} unescape", mutant().display());
    let args = ["--program", &program, "--runs", "60", "--seed", "2", "-j", "1"];
    let o = fuzz(&[&args[..], &["--out", &out.to_string_lossy()]].concat());
    let said = text(&o);
    assert_eq!(o.status.code(), Some(1), "{said}");
    assert!(said.contains("which took 7 events: this report replaces it"), "{said}");
    assert!(said.contains("\nFound 1 divergence:\n  new-game-first, "), "{said}");
    assert_eq!(found(&out), [(out.join("new-game-first-1.txt"), 1)], "{said}");
    let saved = fs::read_to_string(out.join("new-game-first-1.txt")).expect("saved");
    assert!(saved.starts_with("new_game(") && saved.contains("\\\""), "{saved}");
}
