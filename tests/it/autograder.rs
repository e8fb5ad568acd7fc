//! `tictac autograder` (issue 34): the zip unpacked with `unzip` into a
//! layout as Gradescope's (`ROOT/source`, `ROOT/submission`,
//! `ROOT/results`), `setup.sh` run in `ROOT/source`, `run_autograder`
//! copied to `ROOT` and run there, as root: a correct submission scores
//! full, a wrong one partly, a hidden test's expected output is nowhere in
//! results.json, and a submission that reads the suite cannot.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common::{BIN, path, run, script, temp_dir, text, tictac};

/// A suite of two: `visible` worth 2, `secret` hidden, whose expected
/// output names a player nobody else names.
fn suite(home: &Path) -> String {
    let suite = home.join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(
        suite.join("visible.txt"),
        "-- points: 2\nnew_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n",
    )
    .expect("write");
    fs::write(
        suite.join("secret.txt"),
        "-- visibility: hidden\nnew_game(\"Zanzibar\",\"Quokka\")\nplay(\"Zanzibar\",1)\n",
    )
    .expect("write");
    let o = tictac(&["test", "--bless", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    path(&suite)
}

/// Whether this machine can run the layout as Gradescope does (root,
/// setpriv, unzip); under CI it must.
fn can_run_as_gradescope() -> bool {
    let root = rustix::process::getuid().is_root();
    let tools = ["unzip"].iter().all(|tool| {
        Command::new(tool)
            .arg("--help")
            .output()
            .is_ok_and(|o| o.status.success() || tool == &"unzip")
    });
    if !(root && tools) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run the autograder as Gradescope does: as root, with unzip"
        );
        eprintln!("skipped: needs root and unzip");
    }
    root && tools
}

#[test]
fn the_zip_holds_the_scripts_the_suite_and_tictac_with_their_modes() {
    let home = temp_dir();
    let suite = suite(home.path());
    let out = path(&home.path().join("ag.zip"));
    let o = tictac(&["autograder", &suite, "--command", "./ttt", "--timeout", "5", "--out", &out]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).starts_with(&format!("Wrote {out}: setup.sh, run_autograder, tictac")),
        "{}",
        text(&o)
    );
    let mut zip = zip::ZipArchive::new(fs::File::open(&out).expect("open")).expect("a zip");
    let mut modes = Vec::new();
    for i in 0..zip.len() {
        let entry = zip.by_index(i).expect("entry");
        modes.push((entry.name().expect("name").to_string(), entry.unix_mode().map(|m| m & 0o777)));
    }
    let expected = [
        ("setup.sh", 0o755),
        ("run_autograder", 0o755),
        ("tictac", 0o755),
        ("suite/", 0o755),
        ("suite/secret.expected.txt", 0o644),
        ("suite/secret.txt", 0o644),
        ("suite/visible.expected.txt", 0o644),
        ("suite/visible.txt", 0o644),
    ];
    let expected: Vec<_> = expected.iter().map(|(n, m)| (n.to_string(), Some(*m))).collect();
    assert_eq!(modes, expected);
    // The executable is the one that ran, whole.
    let mut exe = Vec::new();
    zip.by_name("tictac").expect("tictac").read_to_end(&mut exe).expect("read");
    assert!(exe == fs::read(BIN).expect("read"), "the zip's tictac is not the running one");
    let mut script = String::new();
    zip.by_name("run_autograder").expect("entry").read_to_string(&mut script).expect("read");
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(script.contains("--timeout 5 --format gradescope"), "{script}");

    // An existing --out is never written over.
    let before = fs::read(&out).expect("read");
    let o = tictac(&["autograder", &suite, "--command", "./ttt", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(&format!("error: --out '{out}' exists")), "{}", text(&o));
    assert!(fs::read(&out).expect("read") == before);
    // A folder without tests writes nothing.
    let empty = home.path().join("empty");
    fs::create_dir(&empty).expect("mkdir");
    let other = path(&home.path().join("other.zip"));
    let o = tictac(&["autograder", &path(&empty), "--command", "./ttt", "--out", &other]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no tests found"), "{}", text(&o));
    let left: Vec<_> =
        fs::read_dir(home.path()).expect("list").flatten().map(|e| e.file_name()).collect();
    assert_eq!(left.len(), 3, "only suite, empty and ag.zip: {left:?}");
}

/// `run_autograder` in `root` on a submission whose `ttt` is `body`: the
/// results.json it wrote.
fn grade(root: &Path, body: &str) -> serde_json::Value {
    let submission = root.join("submission");
    let _ = fs::remove_dir_all(&submission);
    let _ = fs::remove_dir_all(root.join("results"));
    fs::create_dir(&submission).expect("mkdir");
    script(&submission, "ttt", body);
    let o = run(Command::new(root.join("run_autograder")).current_dir("/"), None);
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
    let json = fs::read_to_string(root.join("results/results.json")).expect("results.json");
    assert!(
        !json.contains("Zanzibar"),
        "the hidden test's expected output reached the student:\n{json}"
    );
    serde_json::from_str(&json).expect("json")
}

fn score(results: &serde_json::Value, test: &str) -> f64 {
    let tests = results["tests"].as_array().expect("tests");
    let test = tests.iter().find(|t| t["name"] == test).expect("the test");
    test["score"].as_f64().expect("score")
}

#[test]
fn the_autograder_unpacked_as_gradescope_does_grades_a_submission_as_nobody() {
    if !can_run_as_gradescope() {
        return;
    }
    let home = temp_dir();
    // Gradescope's /autograder is open to all; the program runs as nobody.
    fs::set_permissions(home.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let suite = suite(home.path());
    let zip = path(&home.path().join("ag.zip"));
    let o = tictac(&["autograder", &suite, "--command", "./ttt", "--out", &zip]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let root = home.path().join("autograder");
    let source = root.join("source");
    fs::create_dir_all(&source).expect("mkdir");
    let o = run(Command::new("unzip").args(["-q", &zip, "-d", &path(&source)]), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(Command::new("./setup.sh").current_dir(&source), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text(&o).contains("submissions will run as nobody"), "{}", text(&o));
    assert_eq!(fs::metadata(&source).expect("stat").permissions().mode() & 0o777, 0o700);
    fs::copy(source.join("run_autograder"), root.join("run_autograder")).expect("copy");
    // The tictac the students' `ttt` runs, where nobody may run it.
    // (the model program: a tictac started under --user answers nothing)
    let engine = root.join("engine");
    let mutant = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    fs::copy(&mutant, &engine).expect("copy");
    fs::set_permissions(&engine, fs::Permissions::from_mode(0o755)).expect("chmod");

    let correct = grade(&root, &format!("exec '{}' none \"$@\"", path(&engine)));
    assert_eq!(correct["score"].as_f64(), Some(3.0), "{correct:#}");

    // Right on the visible test; on the hidden one it prints the answers,
    // if it can read them (it cannot), and who it runs as.
    let expected = path(&source.join("suite/secret.expected.txt"));
    let body = format!(
        "case \"$2\" in *secret*) id -un >&2; cat '{expected}';; *) exec '{}' none \"$@\";; esac",
        path(&engine)
    );
    let wrong = grade(&root, &body);
    assert_eq!(wrong["score"].as_f64(), Some(2.0), "{wrong:#}");
    assert_eq!(score(&wrong, "secret"), 0.0);
    let tests = wrong["tests"].as_array().expect("tests");
    let secret = tests.iter().find(|t| t["name"] == "secret").expect("secret");
    assert_eq!(secret["visibility"], "hidden");
    let output = secret["output"].as_str().expect("output");
    assert!(output.contains("nobody"), "{output}");
    assert!(output.contains("Permission denied"), "{output}");
}
