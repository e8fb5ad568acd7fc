//! The README, the user guide (`docs/guide/`) and the behaviour reference
//! ship in the repository and agree with the program: their printed examples
//! are what tictac prints, their links lead somewhere, and the README starts
//! with the commands its users run.

use crate::common::{temp_dir, text, tictac, tictac_with_input};

pub(crate) fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).expect(path)
}

/// The indented block (four spaces in Markdown, six for the nested one)
/// that starts with `first`, unindented, `␣` read as a space.
pub(crate) fn block(doc: &str, first: &str) -> String {
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
pub(crate) fn session_block(doc: &str, first: &str) -> Vec<String> {
    let lines: Vec<&str> = doc.lines().map(str::trim).collect();
    let start = lines.iter().position(|l| *l == format!("$ {first}")).expect(first) + 1;
    lines[start..]
        .iter()
        .take_while(|l| !l.starts_with('$') && !l.is_empty())
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn the_guide_bot_example_is_what_the_bot_plays() {
    let guide = read("docs/guide/shell-and-board.md");
    let trace = session_block(&guide, "cat hal.txt");
    let shown = session_block(&guide, "tictac -b hal.txt --bot Hal=tla | grep -e '->'");
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
fn the_guide_coverage_example_is_what_coverage_prints() {
    let guide = read("docs/guide/test.md");
    let args = "test --coverage acceptance/course/01_x_wins.txt acceptance/tictac/24_window_middle.txt acceptance/tictac/29_interactive_session.txt";
    let shown = session_block(&guide, &format!("tictac {args}"));
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
            panic!("guide line not printed in order: {line:?}\n{printed:#?}")
        };
        at += k + 1;
    }
    assert!(shown.len() > 8, "the example is there: {shown:?}");
}

/// The commands of the README's first code block, comments cut off.
fn first_commands(readme: &str) -> Vec<String> {
    let lines: Vec<&str> = readme.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("    ")).expect("a code block");
    lines[start..]
        .iter()
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.split(" # ").next().unwrap_or("").trim().to_string())
        .collect()
}

/// What a reader sees without scrolling: the title and the screen under it.
const FIRST_SCREEN: usize = 24;

#[test]
fn the_readme_starts_with_the_commands_its_users_run() {
    let readme = read("README.md");
    assert_eq!(first_commands(&readme)[..2], ["cargo run --release -- -i", "cargo test"]);
    let ci = read(".ci/run");
    assert!(ci.lines().any(|l| l.starts_with("cargo test ")), ".ci/run runs the README's tests");
    let screen: Vec<&str> = readme.lines().take(FIRST_SCREEN).map(str::trim).collect();
    for student in [
        r#"tictac test --course --program "python3 ttt.py""#,
        r#"tictac fuzz --program "python3 ttt.py""#,
    ] {
        assert!(screen.contains(&student), "not on the README's first screen: {student}");
    }
}

#[test]
fn the_readme_is_short_and_the_guide_holds_a_page_a_command() {
    let readme = read("README.md");
    assert!(readme.lines().count() <= 400, "README: {} lines", readme.lines().count());
    assert!(readme.contains("(docs/guide/index.md)"), "the README links the guide");
    let index = read("docs/guide/index.md");
    let dir = format!("{}/docs/guide", env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<String> = std::fs::read_dir(&dir)
        .expect("docs/guide")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md") && name != "index.md")
        .collect();
    pages.sort();
    for page in &pages {
        assert!(index.contains(&format!("]({page})")), "the index does not link {page}");
    }
    for page in ["modes", "shell-and-board", "test", "grade", "fuzz", "verify", "serve"] {
        assert!(pages.contains(&format!("{page}.md")), "no guide page {page}.md: {pages:?}");
    }
}

/// GitHub's anchor for a heading: lower case, spaces to hyphens, the other
/// punctuation dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(doc: &str) -> Vec<String> {
    let mut fenced = false;
    let mut found = Vec::new();
    for line in doc.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The Markdown files users read: the README, the changelog, docs/ and the guide.
fn markdown_files() -> Vec<String> {
    let mut files = vec!["README.md".to_string(), "CHANGELOG.md".to_string()];
    for dir in ["docs", "docs/guide"] {
        let full = format!("{}/{dir}", env!("CARGO_MANIFEST_DIR"));
        let mut here: Vec<String> = std::fs::read_dir(&full)
            .expect(dir)
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("{dir}/{name}"))
            .collect();
        here.sort();
        files.extend(here);
    }
    files
}

/// The targets of a document's inline links `[text](target)`, outside code.
fn links(doc: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in doc.lines().filter(|l| !l.starts_with("    ")) {
        // Code spans may hold `](`: only the text between them counts.
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 1 {
                continue;
            }
            let mut rest = part;
            while let Some(at) = rest.find("](") {
                let target = &rest[at + 2..];
                let Some(end) = target.find(')') else { break };
                found.push(target[..end].to_string());
                rest = &target[end..];
            }
        }
    }
    found
}

#[test]
fn every_link_in_the_docs_leads_somewhere() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    for file in markdown_files() {
        let doc = read(&file);
        let here = std::path::Path::new(&file).parent().expect("folder").to_path_buf();
        for link in links(&doc) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target =
                if path.is_empty() { std::path::PathBuf::from(&file) } else { here.join(path) };
            assert!(root.join(&target).exists(), "{file}: ({link}) leads nowhere");
            if !fragment.is_empty() {
                let text = std::fs::read_to_string(root.join(&target)).expect("linked file");
                assert!(
                    anchors(&text).iter().any(|a| a == fragment),
                    "{file}: ({link}): no such heading in {}",
                    target.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 30, "the links were found: {checked}");
}

#[test]
fn no_stale_text_in_the_docs_the_workflows_or_the_installers() {
    let mut files = markdown_files();
    files.extend([".github/workflows/ci.yml", ".github/workflows/release.yml"].map(String::from));
    files.extend(["dist/install.sh", "dist/install.ps1"].map(String::from));
    for file in files {
        let text = read(&file);
        for stale in [
            "OWNER/REPO",
            "once the Windows port lands",
            "does not build on Windows yet",
            "In this session",
        ] {
            assert!(!text.contains(stale), "{file} still says {stale:?}");
        }
    }
}

#[test]
fn the_changelog_keeps_a_heading_for_what_is_not_released() {
    let changelog = read("CHANGELOG.md");
    let headings: Vec<&str> = changelog.lines().filter(|l| l.starts_with('#')).collect();
    assert_eq!(headings[..2], ["# Changelog", "## Unreleased"]);
    let unreleased = changelog.split("## Unreleased").nth(1).expect("Unreleased");
    let before_a_release = unreleased.split("\n## ").next().unwrap_or("");
    assert!(before_a_release.lines().any(|l| l.starts_with("- ")), "no entries under Unreleased");
}

#[test]
fn the_readme_transcript_is_what_tictac_prints() {
    let readme = read("README.md");
    let trace = session_block(&readme, "cat game.txt");
    let shown = session_block(&readme, "tictac -b game.txt");
    let dir = temp_dir();
    let path = dir.path().join("game.txt");
    std::fs::write(&path, trace.join("\n") + "\n").expect("write");
    let printed = text(&tictac(&["-b", &path.to_string_lossy()]));
    let printed: Vec<&str> = printed.lines().map(str::trim).collect();
    assert_eq!(printed, shown);
    assert!(shown.len() > 30, "the example is there: {shown:?}");
}

/// The guide's first course-suite run, with the model program standing in
/// for a student's: the count it prints follows the suite.
#[cfg(unix)]
#[test]
fn the_guide_course_suite_example_is_what_test_prints() {
    let doc = read("docs/guide/test.md");
    let command = r#"tictac test --course --program "./mutant none" -q"#;
    let shown = session_block(&doc, command);
    let program = format!("{} none", crate::differential::mutant().display());
    let printed = text(&tictac(&["test", "--course", "--program", &program, "-q"]));
    let printed: Vec<&str> = printed.lines().map(str::trim).collect();
    assert_eq!(printed, shown);
}

/// The numbers that stand right after `before` and right before `after`
/// anywhere in `doc`.
fn numbers_between(doc: &str, before: &str, after: &str) -> Vec<usize> {
    doc.match_indices(before)
        .filter_map(|(at, _)| {
            let rest = &doc[at + before.len()..];
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            rest[digits.len()..].starts_with(after).then(|| digits.parse().ok()).flatten()
        })
        .collect()
}

/// What the docs say of the course suite's size follows the suite.
#[test]
fn the_docs_count_the_course_suite_as_it_is() {
    let folder = format!("{}/acceptance/course", env!("CARGO_MANIFEST_DIR"));
    let traces = std::fs::read_dir(&folder)
        .expect("acceptance/course")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".txt") && !name.ends_with(".expected.txt"))
        .count();
    let mut counts = Vec::new();
    for file in ["README.md", "docs/guide/test.md", "docs/guide/grade.md"] {
        let doc = read(file).split_whitespace().collect::<Vec<_>>().join(" ");
        for (before, after) in [
            ("course suite built into tictac (", " traces"),
            ("course suite (", " tests"),
            ("must print (", " of them"),
            (" on ", " tests of the course suite"),
        ] {
            counts.extend(numbers_between(&doc, before, after).into_iter().map(|n| (file, n)));
        }
    }
    assert!(counts.len() >= 4, "the counts were found: {counts:?}");
    for (file, n) in counts {
        assert_eq!(n, traces, "{file} counts {n} course traces; the suite has {traces}");
    }
}

/// A report line without what varies from run to run: a test's time, and the
/// scratch folder in a command line (`-b /tmp/.tmpXXXX/NAME.txt`).
#[cfg(unix)]
fn without_what_varies(line: &str) -> String {
    let mut line = line.to_string();
    if line.ends_with(" ms)")
        && let Some(at) = line.rfind(" (")
    {
        line.truncate(at);
    }
    if line.starts_with("command:")
        && let (Some(b), Some(slash)) = (line.find(" -b "), line.rfind('/'))
    {
        line = format!("{}{}", &line[..b + 4], &line[slash + 1..]);
    }
    line
}

/// The guide's failing test, read line by line under it, is what a failing
/// program gets: every line it shows is printed, in order (`...` stands for
/// lines left out).
#[cfg(unix)]
#[test]
fn the_guide_failure_example_is_what_test_prints() {
    let doc = read("docs/guide/test.md");
    let args = ["test", "--program", "./mutant crash-on-diagonal", "-q", "--filter", "61"];
    let shown =
        session_block(&doc, &format!(r#"tictac test --program "{}" -q --filter 61"#, args[2]));
    // A folder with no suite in it, the model program there as ./mutant.
    let dir = temp_dir();
    std::os::unix::fs::symlink(crate::differential::mutant(), dir.path().join("mutant"))
        .expect("symlink");
    let out = crate::common::run(
        std::process::Command::new(crate::common::BIN).args(args).current_dir(dir.path()),
        None,
    );
    assert_eq!(out.status.code(), Some(1), "the test fails");
    let printed: Vec<String> = text(&out).lines().map(|l| without_what_varies(l.trim())).collect();
    let mut at = 0;
    for line in shown.iter().filter(|l| *l != "...").map(|l| without_what_varies(l)) {
        let Some(k) = printed[at..].iter().position(|p| *p == line) else {
            panic!("guide line not printed in order: {line:?}\n{printed:#?}")
        };
        at += k + 1;
    }
    assert!(shown.len() > 20, "the example is there: {shown:?}");
}

/// What the README and the guide say of the behaviour catalogue's size (the
/// fuzzer's `C/T behaviours covered`, coverage's `C/T behaviours.`) follows
/// the catalogue.
#[test]
fn the_docs_count_the_behaviours_as_the_catalogue_does() {
    use tictac::behaviour::Behaviour;
    let all = Behaviour::ALL.len();
    let batch = Behaviour::ALL.iter().filter(|b| b.in_batch()).count();
    let mut found = 0;
    for file in
        markdown_files().iter().filter(|f| !f.starts_with("docs/") || f.starts_with("docs/guide/"))
    {
        let doc = read(file).split_whitespace().collect::<Vec<_>>().join(" ");
        for n in numbers_between(&doc, "/", " behaviours covered") {
            assert_eq!(
                n, batch,
                "{file}: {n} behaviours a -b run can show; the catalogue has {batch}"
            );
            found += 1;
        }
        for n in numbers_between(&doc, "the ", " a `-b` run can show") {
            assert_eq!(
                n, batch,
                "{file}: {n} behaviours a -b run can show; the catalogue has {batch}"
            );
            found += 1;
        }
        for n in numbers_between(&doc, "/", " behaviours.") {
            assert_eq!(n, all, "{file}: {n} behaviours in all; the catalogue has {all}");
            found += 1;
        }
    }
    assert!(found >= 4, "the counts were found: {found}");
}

/// The reference's examples of where a boolean and a `-` go wrong are what
/// tictac prints for them.
#[test]
fn the_reference_says_where_booleans_and_a_bad_minus_fail() {
    let doc = read("docs/BEHAVIOUR.md").split_whitespace().collect::<Vec<_>>().join(" ");
    let dir = temp_dir();
    let run = |trace: &str| {
        let file = dir.path().join("t.txt");
        std::fs::write(&file, format!("{trace}\n")).unwrap();
        text(&tictac(&["-b", &file.to_string_lossy()]))
    };
    assert!(doc.contains("So `play(\"a\", TRUE)` is a type error (§1.3)"), "the reference");
    assert!(run("play(\"a\", TRUE)").starts_with("Type Error:"));
    for (trace, error) in
        [("TRUE", "(Line 1, Column 1)"), ("play(\"a\", -x)", "(Line 1, Column 11)")]
    {
        assert!(
            doc.contains(&format!("`{trace}` is `parse error {error}`"))
                || doc.contains(&format!("`{trace}` alone is `parse error {error}`")),
            "{trace}"
        );
        assert!(run(trace).ends_with(&format!("parse error {error}\n")), "{trace}");
    }
}

/// The fuzz page describes the shrunk trace as the report shows it: the
/// file's lines, quotes and backslashes as written.
#[test]
fn the_fuzz_page_says_how_the_shrunk_trace_is_shown() {
    let doc = read("docs/guide/fuzz.md").split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(!doc.contains("one command a line"));
    assert!(doc.contains("the saved file's lines as they are, the first 50"));
    assert!(doc.contains("backslashes `\\` as written"));
    assert!(doc.contains("`\"` as `\\\"`, `\\` as `\\\\`"));
}
