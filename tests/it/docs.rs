//! The behaviour reference ships in the repository and agrees with the
//! program: its printed examples are what tictac prints.

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_tictac");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
}

/// The indented block (four spaces in Markdown, six for the nested one)
/// that starts with `first`, unindented, `␣` read as a space.
fn block(doc: &str, first: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines.iter().position(|l| l.trim() == first).expect(first);
    let indent = lines[start].len() - lines[start].trim_start().len();
    let mut text = String::new();
    for line in &lines[start..] {
        if line.len() <= indent || !line[..indent].trim().is_empty() {
            break;
        }
        text.push_str(&line[indent..].replace('␣', " "));
        text.push('\n');
    }
    text
}

fn shell(input: &str) -> String {
    let mut child = Command::new(BIN)
        .arg("-i")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start tictac");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn readme_links_the_reference_and_says_how_to_install() {
    let readme = read("README.md");
    assert!(readme.contains("(docs/BEHAVIOUR.md)"));
    assert!(readme.contains("cargo install --path ."));
    assert!(!read("docs/BEHAVIOUR.md").contains("../shared"), "the reference stands alone");
}

#[test]
fn the_reference_prints_what_tictac_prints() {
    let doc = read("docs/BEHAVIOUR.md");
    let initial = block(&doc, "ok:  => start new game");
    let shown = shell("");
    assert_eq!(
        shown,
        format!("{}->", initial.lines().map(|l| format!("  {l}\n")).collect::<String>())
    );
    let man = block(&doc, "new_game(");
    assert_eq!(shell("man\n"), format!("{shown}{man}->"));
}

/// The lines after `$ first` up to the next `$ ` line, unindented.
fn session_block(doc: &str, first: &str) -> Vec<String> {
    let lines: Vec<&str> = doc.lines().map(str::trim).collect();
    let start = lines.iter().position(|l| *l == format!("$ {first}")).expect(first) + 1;
    lines[start..]
        .iter()
        .take_while(|l| !l.starts_with('$') && !l.is_empty())
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn the_readme_bot_example_is_what_the_bot_plays() {
    let readme = read("README.md");
    let trace = session_block(&readme, "cat hal.txt");
    let shown = session_block(&readme, "tictac -b hal.txt --bot Hal=tla | grep -e '->'");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hal.txt");
    std::fs::write(&path, trace.join("\n") + "\n").expect("write");
    let out = Command::new(BIN)
        .args(["-b", &path.to_string_lossy(), "--bot", "Hal=tla"])
        .output()
        .expect("run tictac");
    let printed = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = printed.lines().filter(|l| l.contains("->")).collect();
    assert_eq!(commands, shown);
    assert!(shown.iter().any(|l| l.starts_with("->play(\"Hal\"")), "the bot plays");
}
