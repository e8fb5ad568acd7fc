//! `tictac test` reports for people and for CI: what `--bless` changed,
//! the diff's labels and pairing, and JUnit XML.

use crate::common::{BIN, Tmux, one_test, path, script, temp_dir, text, tictac, tmux_available};
use std::fs;
use std::process::{Command, Stdio};

/// A folder with traces `a` and `b` (their expected files not yet written).
fn traces() -> tempfile::TempDir {
    let dir = temp_dir();
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
    let tools = temp_dir();
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
    let tools = temp_dir();
    let wrong = script(tools.path(), "wrong.sh", "echo wrong");
    let o =
        tictac(&["test", "--program", &wrong, "--oracle", BIN, "--filter", "b", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("     --- oracle\n     +++ program\n     @@ -1,"), "{out}");
    assert!(!out.contains("expected"), "{out}");
}

/// The testcases of a JUnit document: name, classname, and the kind,
/// message and text of its failure or error, if any.
type Case = (String, String, Option<(String, String, String)>);

/// Parses a JUnit report (strictly: roxmltree refuses characters XML 1.0
/// forbids) into the suite's counts and its testcases.
fn parse_junit(xml: &str) -> (Vec<(String, String)>, Vec<Case>) {
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{e}: {xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 1, "{xml}");
    let suite = suites[0];
    assert_eq!(suite.tag_name().name(), "testsuite");
    let counts = ["tests", "failures", "errors", "skipped"]
        .iter()
        .map(|k| (k.to_string(), suite.attribute(*k).expect("a count").to_string()))
        .collect();
    assert!(suite.attribute("time").expect("time").parse::<f64>().is_ok());
    let cases = suite
        .children()
        .filter(|n| n.is_element())
        .map(|case| {
            assert_eq!(case.tag_name().name(), "testcase");
            assert!(case.attribute("time").expect("time").parse::<f64>().is_ok());
            let problem = case
                .children()
                .find(|n| ["failure", "error"].contains(&n.tag_name().name()))
                .map(|p| {
                    let message = p.attribute("message").expect("a message").to_string();
                    (p.tag_name().name().to_string(), message, p.text().unwrap_or("").to_string())
                });
            let name = case.attribute("name").expect("name").to_string();
            (name, case.attribute("classname").expect("classname").to_string(), problem)
        })
        .collect();
    (counts, cases)
}

#[test]
fn junit_reports_every_test_once_the_suite_ends() {
    let dir = temp_dir();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).expect("mkdir");
    // a passes, b differs (with bytes XML cannot carry), c times out, d has
    // no expected file, and a name with markup and a control character.
    let odd = "q<&\"\u{1}";
    for (name, expected) in
        [("a", Some("A\n")), ("b", Some("B\n")), ("c", Some("C\n")), ("d", None)]
    {
        fs::write(dir.path().join(format!("{name}.txt")), "undo\n").expect("write");
        if let Some(text) = expected {
            fs::write(dir.path().join(format!("{name}.expected.txt")), text).expect("write");
        }
    }
    fs::write(sub.join(format!("{odd}.txt")), "undo\n").expect("write");
    fs::write(sub.join(format!("{odd}.expected.txt")), "Q\n").expect("write");
    let tools = temp_dir();
    // The others print their answer, found in the suite by the trace's name
    // (a program gets a private copy of its trace, with no answer beside it).
    let answer = format!(
        "name=\"${{2##*/}}\"; name=\"${{name%.txt}}\"\n\
         for d in '{0}' '{0}/sub'; do [ -f \"$d/$name.txt\" ] && exec cat \"$d/$name.expected.txt\"; done",
        dir.path().display()
    );
    let body = format!(
        "case \"$2\" in\n*/b.txt) printf '<x> & \\001\\377\\r\\n'; echo oops >&2;;\n\
         */c.txt) exec sleep 30;;\n*) {answer};;\nesac"
    );
    let program = script(tools.path(), "p.sh", &body);
    let o = tictac(&[
        "test",
        "--format",
        "junit",
        "--program",
        &program,
        "--timeout",
        "0.5",
        &path(dir.path()),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let xml = String::from_utf8(o.stdout.clone()).expect("the report is UTF-8");
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "), "{xml}");
    let (counts, cases) = parse_junit(&xml);
    let count = |k: &str| counts.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(
        [count("tests"), count("failures"), count("errors"), count("skipped")],
        [Some("5"), Some("2"), Some("1"), Some("0")],
        "{xml}"
    );
    let names: Vec<&str> = cases.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "sub/q<&\"\\x01"], "{xml}");
    assert_eq!(cases[0].2, None);
    assert_eq!(cases[4].1, "sub");
    assert_eq!(cases[4].2, None);
    let (kind, message, diff) = cases[1].2.clone().expect("b fails");
    assert_eq!((kind.as_str(), message.as_str()), ("failure", "output differs"));
    let command = format!("command: {program} -b {}\n", path(&dir.path().join("b.txt")));
    assert!(diff.starts_with(&format!("{command}--- expected\n+++ actual\n@@ -1,1 +1,1 @@\n")));
    assert!(diff.contains("-    1       | B\n"), "{diff}");
    assert!(diff.contains("+          1 | <x> & \\x01\\xff␍\n"), "{diff}");
    let (kind, message, _) = cases[2].2.clone().expect("c errs");
    assert_eq!(kind, "error");
    assert_eq!(message, "timed out after 0.5 s");
    let (kind, message, text) = cases[3].2.clone().expect("d fails");
    assert_eq!((kind.as_str(), message.as_str()), ("failure", "no expected output"));
    // Under --program, the way to make it is tictac's answer (S3).
    assert!(text.contains("d.expected.txt is missing (tictac's answer makes it: tictac test "));
    assert!(
        text.ends_with(
            " --bless, without --program, which would take your program's own output as the answer)"
        ),
        "{text}"
    );
    let doc = roxmltree::Document::parse(&xml).expect("parsed");
    let b = doc.descendants().find(|n| n.attribute("name") == Some("b")).expect("b");
    let err = b.children().find(|n| n.has_tag_name("system-err")).expect("b's stderr");
    assert_eq!(err.text(), Some("oops\n"));
    // The report for people goes to standard error.
    let people = String::from_utf8_lossy(&o.stderr);
    assert!(people.contains("PASS a (") && people.contains("FAIL b ("), "{people}");
    assert!(people.ends_with("Test Results: 2/5 passed.\n"), "{people}");
}

#[test]
fn junit_with_all_passing_exits_0_and_a_closed_output_keeps_the_status_earned() {
    let dir = traces();
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", "--format", "junit", "-q", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0));
    let (counts, cases) = parse_junit(&text(&o));
    assert_eq!(counts[0], ("tests".to_string(), "2".to_string()));
    assert_eq!(cases.len(), 2);
    assert_eq!(String::from_utf8_lossy(&o.stderr), "Test Results: 2/2 passed.\n");
    // Nobody reads the report: the runner stops at once, 1 for a known failure.
    fs::write(dir.path().join("a.expected.txt"), "wrong\n").expect("write");
    let tools = temp_dir();
    // `a` leaves a mark when it has answered, so the output is closed only
    // once its failure is earned (not before the runner has heard of it).
    let mark = tools.path().join("a-ran");
    let body = format!(
        "case \"$2\" in */b.txt) exec sleep 30;; *) echo A; : > '{}';; esac",
        mark.display()
    );
    let program = script(tools.path(), "p.sh", &body);
    let start = std::time::Instant::now();
    let mut runner = Command::new(BIN)
        .args(["test", "--format", "junit", "-j", "1", "--program", &program, &path(dir.path())])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    while !mark.exists() && start.elapsed() < std::time::Duration::from_secs(8) {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    drop(runner.stdout.take());
    let mut people = String::new();
    std::io::Read::read_to_string(&mut runner.stderr.take().expect("stderr"), &mut people)
        .expect("read");
    let status = runner.wait().expect("wait");
    assert!(start.elapsed() < std::time::Duration::from_secs(10), "it waited for the program");
    assert_eq!(status.code(), Some(1), "{people}");
}

/// A suite whose one test `b` fails on two changed rows of the board.
fn failing_board() -> tempfile::TempDir {
    let dir = traces();
    fs::remove_file(dir.path().join("a.txt")).expect("rm");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let expected = dir.path().join("b.expected.txt");
    let good = fs::read_to_string(&expected).expect("read");
    let bad = good.replacen("  ___\n  ___\n", "  X__\n  _O_\n", 1);
    assert_ne!(good, bad);
    fs::write(&expected, bad).expect("write");
    dir
}

#[test]
fn a_changed_row_is_shown_right_above_the_row_replacing_it() {
    let dir = failing_board();
    let o = tictac(&["test", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o);
    let changed: Vec<&str> =
        out.lines().map(str::trim_start).filter(|l| l.starts_with(['-', '+'])).skip(2).collect();
    assert_eq!(changed.len(), 4, "{out}");
    let signs: String = changed.iter().map(|l| &l[..1]).collect();
    assert_eq!(signs, "-+-+", "{out}");
    assert!(changed[0].ends_with("|   X__") && changed[1].ends_with("|   ___"), "{out}");
    assert!(changed[2].ends_with("|   _O_") && changed[3].ends_with("|   ___"), "{out}");
    assert!(!out.contains('\x1b'), "no colour off a terminal: {out}");
}

#[test]
fn on_a_terminal_the_changed_characters_are_highlighted_unless_no_color() {
    if !tmux_available() {
        return;
    }
    let dir = failing_board();
    for (name, env, marked) in [("colour", "", true), ("nocolour", "NO_COLOR=1 ", false)] {
        let command = format!("{env}{BIN} test {}; echo DONE; sleep 30", path(dir.path()));
        let tmux = Tmux::start(name, 100, 40, &command);
        tmux.wait_for("DONE");
        let screen = tmux.run(&["capture-pane", "-p", "-e", "-t", "t"]);
        // Reverse video (SGR 7) marks the changed characters only.
        assert_eq!(screen.contains("\x1b[7m"), marked, "{screen:?}");
        assert_eq!(screen.contains("\x1b["), marked, "{screen:?}");
    }
}

/// A failure explains itself in every format: the command line run, how
/// the program ended, the last 20 lines of its standard error (the end,
/// where a traceback says why), which `--log` keeps whole beside the output.
#[test]
fn a_failure_shows_its_command_status_and_the_end_of_standard_error() {
    let dir = temp_dir();
    fs::write(dir.path().join("exits.txt"), "undo\n").expect("write");
    fs::write(dir.path().join("exits.expected.txt"), "right\n").expect("write");
    fs::write(dir.path().join("killed.txt"), "undo\n").expect("write");
    fs::write(dir.path().join("killed.expected.txt"), "right\n").expect("write");
    let tools = temp_dir();
    let body = "case \"$2\" in\n*/exits.txt) echo wrong; for k in $(seq 1 30); do echo \"err $k\" >&2; done; exit 3;;\n\
                *) kill -9 $$;;\nesac";
    let program = script(tools.path(), "p.sh", body);
    let log = tools.path().join("log");
    let run = |format: &str| {
        let args = ["test", "--format", format, "--log", &path(&log), "--program", &program];
        let o = tictac(&[&args[..], &[&path(dir.path())]].concat());
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        text(&o)
    };
    let human = run("human");
    let command = format!("{program} -b {}", path(&dir.path().join("exits.txt")));
    assert!(human.starts_with("FAIL exits ("), "{human}");
    let exits = human.split("FAIL killed").next().expect("exits first");
    assert!(
        exits.contains(&format!("\n     exited with status 3\n     command: {command}\n")),
        "{exits}"
    );
    assert!(exits.contains("     standard error (its last lines):\n       ... 10 lines before these\n       err 11\n"), "{exits}");
    assert!(exits.contains("       err 30\n") && !exits.contains("err 10\n"), "{exits}");
    assert!(exits.contains("+          1 | wrong\n"), "{exits}");
    assert!(human.contains("FAIL killed (") && human.contains("\n     killed by signal 9\n"));
    assert!(human.ends_with("Test Results: 0/2 passed.\n"), "{human}");
    let stderr = fs::read_to_string(log.join("exits.stderr.txt")).expect("stderr logged");
    assert!(stderr.starts_with("err 1\nerr 2\n") && stderr.ends_with("err 30\n"), "{stderr}");
    assert_eq!(fs::read_to_string(log.join("exits.actual.txt")).expect("logged"), "wrong\n");
    assert!(!log.join("killed.stderr.txt").exists(), "no standard error, no file");
    fs::remove_dir_all(&log).expect("rm");

    let tap = run("tap");
    assert!(tap.contains("not ok 1 - exits\n# exited with status 3\n# command: "), "{tap}");
    assert!(tap.contains("not ok 2 - killed\n# killed by signal 9\n"), "{tap}");
    fs::remove_dir_all(&log).expect("rm");

    let args = ["test", "--format", "junit", "--program", &program, &path(dir.path())];
    let o = tictac(&args);
    let (_, cases) = parse_junit(&text(&o));
    let (kind, message, body) = cases[0].2.clone().expect("exits fails");
    assert_eq!((kind.as_str(), message.as_str()), ("failure", "exited with status 3"));
    assert!(body.starts_with(&format!("command: {command}\n")), "{body}");
    let (kind, message, _) = cases[1].2.clone().expect("killed fails");
    assert_eq!((kind.as_str(), message.as_str()), ("failure", "killed by signal 9"));
}

/// A program that fails before it writes OUT (`-- run: -b IN OUT`) is
/// reported by how it ended, not as a missing file.
#[test]
fn an_exit_before_out_is_written_is_the_news() {
    let dir = one_test("-- run: -b IN OUT\nundo\n", "right\n");
    let tools = temp_dir();
    let program = script(tools.path(), "p.sh", "echo 'Traceback: boom' >&2; exit 1");
    let o = tictac(&["test", "--program", &program, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    assert!(out.contains("\n     exited with status 1\n     command: "), "{out}");
    assert!(out.contains("\n       Traceback: boom\n"), "{out}");
    assert!(!out.contains("wrote no OUT file"), "{out}");
}
