//! Runs every trace in `acceptance/` and compares the output byte for byte
//! with its `.expected.txt`; also the customer's examples in
//! `../shared/oracle` when that folder exists.
//!
//! A trace's first line may say how to run it (it is a comment, so the
//! trace itself does not see it):
//!   `-- run: -b IN` (the default), `-- run: -b IN OUT` (compare OUT),
//!   `-- run: -w 2 4 IN`, `-- run: -l IN`, `-- run: -i` (the rest of the
//!   file is typed into the shell).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tictac");

fn traces(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.ends_with(".txt") && !name.ends_with(".expected.txt")
        })
        .collect();
    found.sort();
    found
}

fn expected_path(trace: &Path) -> PathBuf {
    trace.with_extension("expected.txt")
}

/// Runs one trace as its first line says; returns what it printed.
fn run(trace: &Path) -> Vec<u8> {
    let text = fs::read(trace).expect("read trace");
    let first = text.split(|&b| b == b'\n').next().unwrap_or_default();
    let directive = String::from_utf8_lossy(first);
    let args: Vec<String> = directive
        .trim()
        .strip_prefix("-- run:")
        .unwrap_or("-b IN")
        .split_whitespace()
        .map(String::from)
        .collect();
    let scratch = tempfile::tempdir().expect("temp dir");
    let out_path = scratch.path().join("out.txt");
    let argv: Vec<PathBuf> = args
        .iter()
        .map(|a| match a.as_str() {
            "IN" => trace.to_path_buf(),
            "OUT" => out_path.clone(),
            other => PathBuf::from(other),
        })
        .collect();
    let mut command = Command::new(BIN);
    command.args(&argv).stdout(Stdio::piped());
    let output = if args.first().map(String::as_str) == Some("-i") {
        let typed = text
            .splitn(2, |&b| b == b'\n')
            .nth(1)
            .unwrap_or_default()
            .to_vec();
        command.stdin(Stdio::piped());
        let mut child = command.spawn().expect("spawn tictac");
        let mut stdin = child.stdin.take().expect("stdin");
        std::io::Write::write_all(&mut stdin, &typed).expect("type into the shell");
        drop(stdin);
        child.wait_with_output().expect("run tictac")
    } else {
        command.stdin(Stdio::null()).output().expect("run tictac")
    };
    if args.iter().any(|a| a == "OUT") {
        assert!(
            output.stdout.is_empty(),
            "{}: stdout not empty with OUT",
            trace.display()
        );
        fs::read(&out_path).unwrap_or_else(|e| panic!("{}: no OUT: {e}", trace.display()))
    } else {
        output.stdout
    }
}

/// The first line where the two outputs differ, for the failure message.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let e: Vec<&[u8]> = expected.split_inclusive(|&b| b == b'\n').collect();
    let a: Vec<&[u8]> = actual.split_inclusive(|&b| b == b'\n').collect();
    let k = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let show = |l: Option<&&[u8]>| {
        l.map_or("<end>".into(), |l| {
            format!("{:?}", String::from_utf8_lossy(l))
        })
    };
    format!(
        "line {}: expected {} got {}",
        k + 1,
        show(e.get(k)),
        show(a.get(k))
    )
}

fn check_all(dir: &Path) -> (usize, Vec<String>) {
    let mut failures = Vec::new();
    let all = traces(dir);
    for trace in &all {
        let expected = match fs::read(expected_path(trace)) {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{}: no expected output: {e}", trace.display()));
                continue;
            }
        };
        let actual = run(trace);
        if actual != expected {
            failures.push(format!(
                "{}: {}",
                trace.display(),
                first_difference(&expected, &actual)
            ));
        }
    }
    (all.len(), failures)
}

#[test]
fn acceptance_traces_match_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
    let (count, failures) = check_all(&dir);
    assert!(count >= 25, "only {count} acceptance traces");
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_customers_oracle_examples_match_when_present() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/oracle");
    if !dir.is_dir() {
        eprintln!("no {}: skipped", dir.display());
        return;
    }
    let (count, failures) = check_all(&dir);
    assert!(count > 0, "no oracle examples in {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every message and hint of the SPEC appears in some expected output.
#[test]
fn every_message_of_the_spec_is_covered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
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
        "\n->",
    ];
    let missing: Vec<&&str> = needed.iter().filter(|m| !all.contains(**m)).collect();
    assert!(
        missing.is_empty(),
        "not covered by any acceptance trace: {missing:?}"
    );
}
