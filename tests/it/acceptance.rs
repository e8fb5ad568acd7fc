//! Runs every trace in `acceptance/` through the `tictac test` runner code and
//! requires byte-exact output: once in-process, once through the built
//! executable (`--program`), which also exercises output files and piped
//! shells. The customer's examples in `../shared/oracle` run too, when that
//! folder exists. A trace's first line may say how to run it (see docs/guide/test.md).

use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{BIN, path, text, tictac};
use tictac::suite::{self as runner, Options};

fn acceptance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance")
}

/// Runs a suite and fails with the runner's own report if any test fails.
fn suite(paths: Vec<PathBuf>) -> runner::Report {
    let options = Options { paths, jobs: 2, ..Options::default() };
    let mut printed = Vec::new();
    let report = runner::run(&options, &mut printed, false).expect("the suite runs");
    let printed = String::from_utf8_lossy(&printed);
    assert!(report.all_passed(), "{printed}");
    report
}

#[test]
fn acceptance_traces_match_in_process() {
    let report = suite(vec![acceptance_dir()]);
    assert!(report.total >= 25, "only {} acceptance traces", report.total);
}

/// The same suite, each trace run by the executable (`--program`), with the
/// runner in a process of its own: a runner that starts programs becomes
/// their subreaper and reaps the children it did not start, which here would
/// be the other tests' children (their waits would find them gone).
fn suite_through_the_executable(dir: &Path) {
    let o = tictac(&["test", "-j", "2", "--program", BIN, &path(dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn acceptance_traces_match_through_the_executable() {
    suite_through_the_executable(&acceptance_dir());
}

#[test]
fn the_customers_oracle_examples_match_when_present() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle");
    if !dir.is_dir() {
        assert!(std::env::var_os("CI").is_none(), "{} is missing under CI", dir.display());
        eprintln!("no {}: skipped", dir.display());
        return;
    }
    suite(vec![dir.clone()]);
    suite_through_the_executable(&dir);
}

fn traces(dir: &Path) -> Vec<PathBuf> {
    runner::discover(&[dir.to_path_buf()]).expect("traces").into_iter().map(|t| t.trace).collect()
}

fn expected_path(trace: &Path) -> PathBuf {
    trace.with_extension("expected.txt")
}

/// Every message and hint of the SPEC appears in some expected output.
#[test]
fn every_message_of_the_spec_is_covered() {
    let dir = acceptance_dir();
    let mut all = Vec::new();
    for trace in traces(&dir) {
        all.extend(fs::read(expected_path(&trace)).unwrap_or_default());
    }
    let all = String::from_utf8_lossy(&all);
    let needed = [
        "  ok:  => start new game\n",
        " plays next\n",
        ": => play again or start new game\n",
        "names of players must be different",
        "name must start with A-Z or a-z",
        "no such player",
        "game is finished",
        "not this player's turn",
        "button already taken",
        "there is a winner",
        "game ended in a tie",
        "finish this game first",
        "Syntax Error: specification of command executions cannot be parsed\nparse error (Line ",
        "\nUnknown identifier ",
        "\nInvalid number for 64-bit integer ",
        "Type Error: specification of command executions is not type-correct\n",
        " does not conform to declaration new_game(player1: NAME = STRING ; player2: NAME = STRING)\n",
        " does not conform to declaration play(player: NAME = STRING ; press: BUTTON = 1 .. 9)\n",
        " does not conform to declaration play_again\n",
        " does not conform to declaration undo\n",
        " does not conform to declaration redo\n",
        "Error: unknown event name ",
        "Error: a window [start, end) should be such that start <= end\n",
        "Error: when the start of a window is non-positive, its end must be a non-positive number\n",
        "Error: the end of window is neither a valid integer nor '_'\n",
        "\nRun 'tictac -help' to see more details\n",
        "\n->",
    ];
    let missing: Vec<&&str> = needed.iter().filter(|m| !all.contains(**m)).collect();
    assert!(missing.is_empty(), "not covered by any acceptance trace: {missing:?}");
}
