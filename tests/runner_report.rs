//! `tictac test` reports for people and for CI: what `--bless` changed,
//! the diff's labels and pairing, and JUnit XML.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tictac");

fn tictac(args: &[&str]) -> Output {
    Command::new(BIN).args(args).stdin(Stdio::null()).output().expect("run tictac")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn path(dir: &Path) -> String {
    dir.to_string_lossy().into_owned()
}

/// An executable shell script standing in for a program or an oracle.
fn script(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    fs::write(&p, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).expect("chmod");
    path(&p)
}

/// A folder with traces `a` and `b` (their expected files not yet written).
fn traces() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    fs::write(dir.path().join("a.txt"), "new_game(\"a\",\"b\")\nplay(\"a\",5)\n").expect("write");
    fs::write(dir.path().join("b.txt"), "undo\n").expect("write");
    dir
}

#[test]
fn bless_says_per_file_what_it_changed() {
    let dir = traces();
    let shown = |name: &str| path(&dir.path().join(name));
    let o = tictac(&["test", "--bless", "-j", "1", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let out = text(&o);
    for name in ["a", "b"] {
        let file = format!("{name}.expected.txt");
        let lines = fs::read_to_string(dir.path().join(&file)).expect("read").lines().count();
        assert!(out.contains(&format!("     created {} ({lines} lines)\n", shown(&file))), "{out}");
    }
    let b = fs::read_to_string(dir.path().join("b.expected.txt")).expect("read");
    fs::write(dir.path().join("b.expected.txt"), b.replacen("___", "_X_", 1) + "extra\n")
        .expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    let out = text(&o);
    assert!(out.contains(&format!("     unchanged {}\n", shown("a.expected.txt"))), "{out}");
    assert!(
        out.contains(&format!(
            "     updated {}: 3 lines differ (2 removed, 1 added)\n",
            shown("b.expected.txt")
        )),
        "{out}"
    );
    assert_eq!(fs::read_to_string(dir.path().join("b.expected.txt")).expect("read"), b);
}

#[test]
fn bless_with_a_program_says_whose_output_it_recorded() {
    let dir = traces();
    let tools = tempfile::tempdir().expect("temp dir");
    let oracle = script(tools.path(), "oracle.sh", "echo \"the oracle's answer\"");
    let o = tictac(&["test", "--bless", "--program", &oracle, "--filter", "b", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let b = path(&dir.path().join("b.expected.txt"));
    assert!(
        text(&o).contains(&format!("     created {b} from the output of {oracle} (1 line)\n")),
        "{}",
        text(&o)
    );
    assert_eq!(fs::read_to_string(&b).expect("read"), "the oracle's answer\n");
    let o = tictac(&["test", "--bless", "--program", &oracle, "--filter", "b", &path(dir.path())]);
    assert!(
        text(&o).contains(&format!("     unchanged {b}: already the output of {oracle}\n")),
        "{}",
        text(&o)
    );
}

#[test]
fn with_an_oracle_the_diff_says_oracle_and_program() {
    let dir = traces();
    let tools = tempfile::tempdir().expect("temp dir");
    let wrong = script(tools.path(), "wrong.sh", "echo wrong");
    let o =
        tictac(&["test", "--program", &wrong, "--oracle", BIN, "--filter", "b", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("     --- oracle\n     +++ program\n     @@ -1,"), "{out}");
    assert!(!out.contains("expected"), "{out}");
}
