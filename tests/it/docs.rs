//! The behaviour reference ships in the repository and agrees with the
//! program: its printed examples are what tictac prints.

use crate::common::{temp_dir, text, tictac, tictac_with_input};

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
    text(&tictac_with_input(&["-i"], input.as_bytes()))
}

#[test]
fn readme_links_the_reference_and_says_how_to_install() {
    let readme = read("README.md");
    assert!(readme.contains("(docs/BEHAVIOUR.md)"));
    assert!(readme.contains("cargo install --locked --path ."));
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
    let dir = temp_dir();
    let path = dir.path().join("hal.txt");
    std::fs::write(&path, trace.join("\n") + "\n").expect("write");
    let out = tictac(&["-b", &path.to_string_lossy(), "--bot", "Hal=tla"]);
    let printed = String::from_utf8_lossy(&out.stdout);
    let commands: Vec<&str> = printed.lines().filter(|l| l.contains("->")).collect();
    assert_eq!(commands, shown);
    assert!(shown.iter().any(|l| l.starts_with("->play(\"Hal\"")), "the bot plays");
}

/// The reference's table of windows on a trace of two lines is what tictac
/// prints: each phrase of its second column stands for a part of the
/// transcript.
#[test]
fn the_window_examples_print_what_the_reference_says() {
    let doc = read("docs/BEHAVIOUR.md");
    let dir = temp_dir();
    let trace = dir.path().join("two.txt");
    std::fs::write(&trace, "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n").expect("write");
    let trace = trace.to_string_lossy().into_owned();
    let whole = text(&tictac(&["-b", &trace]));
    let last = |n: usize| {
        let lines: Vec<&str> = whole.lines().collect();
        lines[lines.len() - n..].iter().map(|l| format!("{l}\n")).collect::<String>()
    };
    let header = doc.lines().position(|l| l == "| window | prints |").expect("the table");
    let mut windows = 0;
    for row in doc.lines().skip(header + 2).take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let expected = match cells[2] {
            "nothing" => String::new(),
            "the final state" => last(6),
            "the state before line 2, then line 2" => last(13),
            other => panic!("a phrase the test does not know: {other}"),
        };
        for window in cells[1].split(", ") {
            let words: Vec<&str> = window.trim_matches('`').split(' ').collect();
            let o = tictac(&[words[0], words[1], words[2], &trace]);
            assert_eq!(text(&o), expected, "{window}: {}", cells[2]);
            windows += 1;
        }
    }
    assert_eq!(windows, 5);
}

#[test]
fn the_readme_coverage_example_is_what_coverage_prints() {
    let readme = read("README.md");
    let args = "test --coverage acceptance/course/01_x_wins.txt acceptance/tictac/24_window_middle.txt acceptance/tictac/29_interactive_session.txt";
    let shown = session_block(&readme, &format!("tictac {args}"));
    let root = env!("CARGO_MANIFEST_DIR");
    let full: Vec<String> = args
        .split(' ')
        .map(|a| if a.starts_with("acceptance/") { format!("{root}/{a}") } else { a.to_string() })
        .collect();
    let full: Vec<&str> = full.iter().map(String::as_str).collect();
    let printed = text(&tictac(&full));
    let printed: Vec<&str> = printed.lines().map(str::trim).collect();
    let mut at = 0;
    for line in shown.iter().filter(|l| *l != "...") {
        let found = printed[at..].iter().position(|p| p == line);
        let Some(k) = found else {
            panic!("README line not printed in order: {line:?}\n{printed:#?}")
        };
        at += k + 1;
    }
    assert!(shown.len() > 8, "the example is there: {shown:?}");
}
