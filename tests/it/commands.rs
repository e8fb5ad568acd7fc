//! The commands (`test`, `grade`, `fuzz`, `verify`, `serve`, `completions`,
//! `course-suite`) from
//! outside: each answers `--help`, takes the usual option forms, suggests
//! a near miss, and completes in bash.

use std::path::Path;
use std::process::Command;

use crate::common::{BIN, file, temp_dir, text, tictac};

/// The commands the top-level help lists, read from it.
fn commands_listed() -> Vec<String> {
    let help = text(&tictac(&["-help"]));
    let section = help.split("Subcommands").nth(1).expect("a list of subcommands");
    let rows = section.lines().skip(1).take_while(|l| !l.trim().is_empty());
    let mut names: Vec<String> =
        rows.map(|l| l.split_whitespace().nth(1).expect("a command").to_string()).collect();
    names.dedup();
    names
}

#[test]
fn the_top_level_help_lists_every_command() {
    let all =
        ["test", "grade", "fuzz", "verify", "serve", "completions", "course-suite", "autograder"];
    assert_eq!(commands_listed(), all);
    let help = text(&tictac(&["-help"]));
    assert!(help.contains("tictac fuzz --program <CMD>  "), "{help}");
    assert!(help.contains("tictac test --course --program <CMD>  "), "{help}");
    assert!(help.contains("tictac grade --command <CMD> <SUITE|SUBMISSION_DIR>...  "), "{help}");
    assert!(help.contains("tictac completions <SHELL>  "), "{help}");
    assert!(help.contains("tictac course-suite <DIR>  "), "{help}");
}

#[test]
fn every_command_answers_help_on_standard_output() {
    for command in commands_listed() {
        for flag in ["--help", "-h"] {
            let o = tictac(&[&command, flag]);
            let help = text(&o);
            assert_eq!(o.status.code(), Some(0), "{command} {flag}: {help}");
            assert!(o.stderr.is_empty(), "{command} {flag}");
            assert!(!help.contains("Error:"), "{command} {flag}: {help}");
            assert!(help.contains(&format!("\nUsage: tictac {command}")), "{help}");
            assert!(help.contains("-h, --help"), "{command} {flag}: {help}");
        }
    }
    // What the issue found missing: every option test parses is listed.
    let help = text(&tictac(&["test", "--help"]));
    for option in ["--jobs <N>", "-q, --quiet", "--coverage", "--format <FORMAT>", "[PATH]..."] {
        assert!(help.contains(option), "{option}:\n{help}");
    }
    assert!(text(&tictac(&["fuzz", "--help"])).contains("--save-traces <FILE>"));
}

#[test]
fn jobs_take_the_usual_forms() {
    let dir = temp_dir();
    file(dir.path(), "t.txt", b"new_game(\"a\",\"b\")\n");
    let suite = dir.path().to_string_lossy().into_owned();
    assert_eq!(tictac(&["test", "--bless", &suite]).status.code(), Some(0));
    for jobs in [&["-j2"][..], &["--jobs=2"], &["-j", "2"], &["--jobs", "2"]] {
        let args: Vec<&str> =
            ["test"].iter().chain(jobs).chain([&suite.as_str()]).copied().collect();
        let o = tictac(&args);
        assert_eq!(o.status.code(), Some(0), "{jobs:?}: {}", text(&o));
        assert!(text(&o).ends_with("Test Results: 1/1 passed.\n"), "{jobs:?}: {}", text(&o));
    }
    let o = tictac(&["test", "--filter=t", "--format=tap", &suite]);
    assert!(text(&o).starts_with("TAP version 13\n1..1\nok 1 - t"), "{}", text(&o));
}

#[test]
fn a_mistyped_option_gets_a_suggestion() {
    let o = tictac(&["test", "--jbos", "2"]);
    assert_eq!(
        text(&o),
        "Error: unknown option '--jbos' for the 'test' mode\n\
         Run 'tictac test --help' to see more details\n\
         Did you mean '--jobs'?\n"
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stderr.is_empty(),
        "clap printed its own error: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = tictac(&["serve", "--prot", "0"]);
    assert!(text(&o).ends_with("\nDid you mean '--port'?\n"), "{}", text(&o));
    let o = tictac(&["verify", "--strategy", "perfec", "--as", "X"]);
    assert!(text(&o).ends_with("\nDid you mean 'perfect'?\n"), "{}", text(&o));
}

/// Whether bash can be run; under CI its absence fails the test.
fn bash_available() -> bool {
    let found = Command::new("bash").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("CI").is_none(), "bash is missing under CI");
        eprintln!("bash is not installed: the completion test is skipped");
    }
    found
}

/// What bash's completion offers for `line` (the word under the cursor
/// being its last), with the script `tictac completions bash` prints
/// loaded as a user would, tictac being on the PATH.
fn bash_completes(line: &str) -> Vec<String> {
    let bin_dir = Path::new(BIN).parent().expect("the executable's folder");
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    // COMP_WORDS and COMP_CWORD as bash sets them, then the function that
    // `complete -p tictac` names, called as bash calls it.
    let script = r#"
        source <(tictac completions bash) || exit 3
        spec=$(complete -p tictac) || exit 4
        function=${spec##*-F }; function=${function%% *}
        read -ra COMP_WORDS <<< "$LINE"
        [[ $LINE == *' ' ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        COMP_LINE=$LINE; COMP_POINT=${#LINE}
        "$function" tictac "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
    "#;
    let o = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .env("PATH", path)
        .env("LINE", line)
        .output()
        .expect("run bash");
    assert!(o.status.success(), "{line}: {}", String::from_utf8_lossy(&o.stderr));
    text(&o).lines().map(String::from).collect()
}

#[test]
fn bash_completes_commands_options_and_values() {
    if !bash_available() {
        return;
    }
    assert_eq!(bash_completes("tictac te"), ["test"]);
    assert_eq!(bash_completes("tictac test --jo"), ["--jobs"]);
    assert_eq!(bash_completes("tictac verify --strategy p"), ["perfect"]);
    // The ETF modes too: their options, and a file after -b.
    let dashed = bash_completes("tictac -");
    for mode in ["-i", "-g", "-b", "-w", "-l", "--bot", "--seed", "--record"] {
        assert!(dashed.contains(&mode.to_string()), "{mode} not offered: {dashed:?}");
    }
    // Run where Cargo.toml is (cargo test's folder).
    assert_eq!(bash_completes("tictac -b Cargo.t"), ["Cargo.toml"]);
    let all = bash_completes("tictac ");
    for command in commands_listed() {
        assert!(all.contains(&command), "{command} not offered: {all:?}");
    }
}

#[test]
fn every_shell_gets_a_script() {
    for (shell, mark) in [
        ("bash", "complete -F _tictac"),
        ("zsh", "#compdef tictac"),
        ("fish", "complete -c tictac"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let o = tictac(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let script = text(&o);
        assert!(script.contains(mark), "{shell}: {script}");
        for command in ["test", "fuzz", "verify", "serve", "completions"] {
            assert!(script.contains(command), "{shell} lacks {command}");
        }
    }
}
