//! `tictac autograder` (issue 34): the zip unpacked with `unzip` into a
//! layout as Gradescope's (`ROOT/source`, `ROOT/submission`,
//! `ROOT/results`), `setup.sh` run in `ROOT/source`, `run_autograder`
//! copied to `ROOT` and run there, as root: a correct submission scores
//! full, a wrong one partly, a hidden test's expected output is nowhere in
//! results.json, and a submission that reads the suite cannot.

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{BIN, autograder, lean_tictac, path, run, script, temp_dir, text, tictac};

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
    let o = autograder(&[&suite, "--command", "./ttt", "--timeout", "5", "--out", &out]);
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
    let running = fs::read(lean_tictac()).expect("read");
    assert!(exe == running, "the zip's tictac is not the running one");
    let mut script = String::new();
    zip.by_name("run_autograder").expect("entry").read_to_string(&mut script).expect("read");
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(script.contains("--timeout 5 --total-time 480 --format gradescope"), "{script}");

    // An existing --out is never written over.
    let before = fs::read(&out).expect("read");
    let o = autograder(&[&suite, "--command", "./ttt", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains(&format!("error: --out '{out}' exists")), "{}", text(&o));
    assert!(fs::read(&out).expect("read") == before);
    // A folder without tests writes nothing.
    let empty = home.path().join("empty");
    fs::create_dir(&empty).expect("mkdir");
    let other = path(&home.path().join("other.zip"));
    let o = autograder(&[&path(&empty), "--command", "./ttt", "--out", &other]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no tests found"), "{}", text(&o));
    let left: Vec<_> =
        fs::read_dir(home.path()).expect("list").flatten().map(|e| e.file_name()).collect();
    assert_eq!(left.len(), 3, "only suite, empty and ag.zip: {left:?}");
}

/// `run_autograder` in `root` on a submission whose `ttt` is `body`: the
/// results.json it wrote.
fn grade(root: &Path, body: &str) -> serde_json::Value {
    submit(root, &[("ttt", body)])
}

/// `run_autograder` in `root` on a submission of the scripts `files`
/// (name, body): the results.json it wrote.
fn submit(root: &Path, files: &[(&str, &str)]) -> serde_json::Value {
    submit_with_mode(root, files, 0o755)
}

/// [`submit`] with the scripts' mode `mode` (0o644: as a zip made on
/// Windows, or a browser upload, arrives).
fn submit_with_mode(root: &Path, files: &[(&str, &str)], mode: u32) -> serde_json::Value {
    let submission = root.join("submission");
    let _ = fs::remove_dir_all(&submission);
    let _ = fs::remove_dir_all(root.join("results"));
    fs::create_dir(&submission).expect("mkdir");
    for (name, body) in files {
        let file = script(&submission, name, body);
        fs::set_permissions(file, fs::Permissions::from_mode(mode)).expect("chmod");
    }
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

/// The zip `zip` installed as Gradescope installs it, in `home/autograder`:
/// unzipped into `source`, `setup.sh` run there, `run_autograder` copied up.
/// Its root, its source, and the model program (examples/mutant.rs) where
/// nobody may run it: a tictac started under --user answers nothing.
fn install(home: &Path, zip: &str) -> (PathBuf, PathBuf, String) {
    let root = home.join("autograder");
    let source = root.join("source");
    fs::create_dir_all(&source).expect("mkdir");
    let o = run(Command::new("unzip").args(["-q", zip, "-d", &path(&source)]), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(Command::new("./setup.sh").current_dir(&source), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(text(&o).contains("submissions will run as nobody"), "{}", text(&o));
    assert_eq!(fs::metadata(&source).expect("stat").permissions().mode() & 0o777, 0o700);
    fs::copy(source.join("run_autograder"), root.join("run_autograder")).expect("copy");
    let engine = root.join("engine");
    let mutant = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    fs::copy(&mutant, &engine).expect("copy");
    fs::set_permissions(&engine, fs::Permissions::from_mode(0o755)).expect("chmod");
    (root, source, path(&engine))
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
    let o = autograder(&[&suite, "--command", "./ttt", "--out", &zip]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));

    let (root, source, engine) = install(home.path(), &zip);

    let correct = grade(&root, &format!("exec '{}' none \"$@\"", engine));
    assert_eq!(correct["score"].as_f64(), Some(3.0), "{correct:#}");
    // Uploaded without its executable bit: run_autograder gives it one (it
    // failed every test "not an executable file").
    let unmarked = [("ttt", &format!("exec '{}' none \"$@\"", engine)[..])];
    let correct = submit_with_mode(&root, &unmarked, 0o644);
    assert_eq!(correct["score"].as_f64(), Some(3.0), "{correct:#}");

    // Right on the visible test; on the hidden one it prints the answers,
    // if it can read them (it cannot), and who it runs as.
    let expected = path(&source.join("suite/secret.expected.txt"));
    let body = format!(
        "case \"$2\" in *secret*) id -un >&2; cat '{expected}';; *) exec '{}' none \"$@\";; esac",
        engine
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

/// `--course` and `--build` inside the zip: the course suite, read from the
/// zip's tictac, graded after the submission's build, run as nobody; a
/// build that fails scores 0 and says why, with no test run.
#[test]
fn the_autograder_grades_the_course_suite_after_a_build() {
    if !can_run_as_gradescope() {
        return;
    }
    let home = temp_dir();
    fs::set_permissions(home.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    let zip = path(&home.path().join("ag.zip"));
    let args = ["--course", "--command", "./ttt", "--build", "sh build.sh"];
    let o = autograder(&[&args[..], &["--out", &zip]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("and the built-in course suite."), "{}", text(&o));
    let (root, _, engine) = install(home.path(), &zip);
    let script = fs::read_to_string(root.join("run_autograder")).expect("read");
    assert!(script.contains("test --course --program ./ttt"), "{script}");
    assert!(script.contains("--build 'sh build.sh'"), "{script}");

    // The build writes `ttt` (as nobody, in the submission's copy).
    let build = format!("printf '#!/bin/sh\\nexec {engine} none \"$@\"\\n' > ttt\nchmod +x ttt");
    let built = submit(&root, &[("build.sh", &build)]);
    let tests = built["tests"].as_array().expect("tests");
    assert!(tests.len() >= 40, "the course suite: {built:#}");
    assert!(tests.iter().all(|t| t["status"] == "passed"), "{built:#}");
    assert_eq!(built["score"].as_f64(), Some(tests.len() as f64), "{built:#}");

    let broken = submit(&root, &[("build.sh", "echo 'ttt.c:1: error: expected ;' >&2; exit 1")]);
    assert_eq!(broken["score"].as_f64(), Some(0.0), "{broken:#}");
    let json = broken.to_string();
    assert!(json.contains("build failed"), "{broken:#}");
    assert!(json.contains("ttt.c:1: error: expected ;"), "{broken:#}");
}

/// The guide's session (docs/guide/grade.md, "On Gradescope") is what
/// `tictac autograder`, `setup.sh` and `run_autograder` print and write,
/// run as it shows on the guide's suite, `/autograder` standing for the
/// folder the test unpacks into.
#[test]
fn the_guides_autograder_session_is_what_it_prints() {
    if !can_run_as_gradescope() {
        return;
    }
    let home = temp_dir();
    fs::set_permissions(home.path(), fs::Permissions::from_mode(0o755)).expect("chmod");
    crate::grade::demo_suite(home.path());
    let guide = crate::docs::read("docs/guide/grade.md");
    let session = |command: &str| crate::docs::session_block(&guide, command);
    let root = home.path().join("autograder");
    let printed = |o: &std::process::Output| -> Vec<String> {
        let shown = text(o).replace(&path(&root), "/autograder");
        let shown = shown.replace(&path(home.path()), "/tmp/demo");
        shown.lines().map(|l| l.trim().to_string()).collect()
    };
    let command = "tictac autograder suite --command ./ttt --out ttt-autograder.zip";
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let o = run(Command::new(lean_tictac()).current_dir(home.path()).args(words), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(printed(&o), session(command));
    let zip = path(&home.path().join("ttt-autograder.zip"));
    assert_eq!(session("unzip -q ttt-autograder.zip -d /autograder/source"), [""; 0]);
    let source = root.join("source");
    fs::create_dir_all(&source).expect("mkdir");
    let o = run(Command::new("unzip").args(["-q", &zip, "-d", &path(&source)]), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&mut Command::new(source.join("setup.sh")), None);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(printed(&o), session("/autograder/source/setup.sh"));
    // Alice's submission: the model program (a tictac under --user answers nothing).
    let engine = root.join("engine");
    let mutant = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    fs::copy(&mutant, &engine).expect("copy");
    let submit = "cp /autograder/source/run_autograder /autograder/ && /autograder/run_autograder 2>/dev/null";
    assert_eq!(session(submit), [""; 0]);
    fs::copy(source.join("run_autograder"), root.join("run_autograder")).expect("copy");
    let results = grade(&root, &format!("exec '{}' none \"$@\"", path(&engine)));
    assert_eq!(results["score"].as_f64(), Some(6.75), "{results:#}");
    let written = fs::read_to_string(root.join("results/results.json")).expect("results.json");
    let scores: Vec<String> =
        written.lines().filter(|l| l.contains("\"score\"")).map(|l| l.trim().to_string()).collect();
    assert_eq!(scores, session("grep '\"score\"' /autograder/results/results.json"));
}

/// The whole run's time (the tester's C11): a program that hangs on every
/// trace would outlast Gradescope's own limit, which then writes no grade
/// at all. Under `--total-time` a test starts only if it can end, at its
/// timeout, within that time: the rest fail, not run, results.json saying
/// why at its top; the zip's run_autograder is given one (8 minutes unless
/// said); and a time in which no test could run is refused.
#[test]
fn the_whole_run_ends_within_its_total_time_with_a_grade_and_the_reason() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    for name in ["a", "b", "c"] {
        fs::write(suite.join(format!("{name}.txt")), "new_game(\"a\",\"b\")\n").expect("write");
    }
    let o = tictac(&["test", "--bless", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    script(home.path(), "hang", "sleep 30");
    // The first test ends by 0.6 s; a second could not end within 1 s.
    let args = ["test", &path(&suite), "--program", "./hang", "--timeout", "0.6"];
    let args = [&args[..], &["--total-time", "1", "-j", "1", "--format", "gradescope"]].concat();
    let start = std::time::Instant::now();
    let o = run(Command::new(BIN).current_dir(home.path()).args(&args), None);
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(took.as_secs_f64() < 5.0, "{took:?}");
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("results.json");
    let output = results["output"].as_str().expect("output");
    assert!(
        output.starts_with(
            "Not every test ran: the run's time limit, 1 s, ran out before the last 2 tests of the 3 could start, and each of them fails. The program timed out on 1 test of those that ran"
        ),
        "{results:#}"
    );
    let tests = results["tests"].as_array().expect("tests");
    let said: Vec<&str> = tests.iter().map(|t| t["output"].as_str().expect("output")).collect();
    assert!(said[0].contains("timed out after 0.6 s"), "{results:#}");
    for unrun in &said[1..] {
        assert!(
            unrun.contains("not run: the run's time limit, 1 s (--total-time), ran out"),
            "{results:#}"
        );
    }
    assert_eq!(results["score"].as_f64(), Some(0.0), "{results:#}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("Not every test ran"));

    // No test could run in less than its timeout (and the build's).
    let o = tictac(&["test", &path(&suite), "--program", "./hang", "--total-time", "5"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "--total-time 5 leaves no time for a test: a test may take 10 s (--timeout): give at least that"
        ),
        "{}",
        text(&o)
    );
    let zip = path(&home.path().join("ag.zip"));
    let o = autograder(&[&path(&suite), "--command", "./t", "--build", "make"]);
    assert_eq!(o.status.code(), Some(2), "no --out: {}", text(&o));
    let o = autograder(&[
        &path(&suite),
        "--command",
        "./t",
        "--build",
        "make",
        "--total-time",
        "60",
        "--out",
        &zip,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("the build may take 120 s (--build-timeout) and a test 10 s (--timeout): give at least 130 s"), "{}", text(&o));
    let o = autograder(&[&path(&suite), "--command", "./t", "--out", &zip]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("run_autograder ends within 480 s (--total-time)"), "{}", text(&o));
    let mut zip = zip::ZipArchive::new(fs::File::open(&zip).expect("open")).expect("a zip");
    let mut script = String::new();
    zip.by_name("run_autograder").expect("entry").read_to_string(&mut script).expect("read");
    assert!(script.contains("--timeout 10 --total-time 480 --format gradescope"), "{script}");
}

/// A submission uploaded as its folder (`project/ttt`, not `ttt`; the
/// tester's C13 f): results.json says so once, at the top of its output,
/// rather than only `could not start: ./ttt: no such file` on every test;
/// `tictac test` run there names the file it found in its refusal.
#[test]
fn a_submission_uploaded_as_its_folder_is_told_once_where_its_program_is() {
    let home = temp_dir();
    let suite = crate::common::suite();
    let submission = home.path().join("submission");
    fs::create_dir_all(submission.join("project")).expect("mkdir");
    script(&submission.join("project"), "ttt", "exit 0");
    let args = ["test", &path(suite.path()), "--program", "./ttt", "--format", "gradescope"];
    let o = run(Command::new(BIN).current_dir(&submission).args(args), None);
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("results.json");
    assert_eq!(
        results["output"].as_str(),
        Some(
            "./ttt is not at the top of your submission; found project/ttt: upload the files themselves, not their folder\n"
        ),
        "{results:#}"
    );
    assert_eq!(results["score"].as_f64(), Some(0.0), "{results:#}");
    let o = run(Command::new(BIN).current_dir(&submission).args(&args[..4]), None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "cannot run './ttt': no such file; found project/ttt below this folder: run from the folder that holds it, or name it so"
        ),
        "{}",
        text(&o)
    );
}

/// A symbolic-link loop in a suite folder (the tester's C13 i): `tictac
/// test` runs the suite's tests, and the autograder, which said "no tests
/// found", now zips them too; both name each link left out, in one warning.
#[test]
fn a_link_loop_in_the_suite_is_named_and_left_out_of_the_zip() {
    let home = temp_dir();
    let suite = suite(home.path());
    let dir = Path::new(&suite);
    std::os::unix::fs::symlink(dir.join("loop2"), dir.join("loop1")).expect("link");
    std::os::unix::fs::symlink(dir.join("loop1"), dir.join("loop2")).expect("link");
    let o = tictac(&["test", &suite]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{}{err}", text(&o));
    let warning =
        format!("warning: the suite's '{}' cannot be followed (", path(&dir.join("loop1")));
    assert!(err.contains(&warning) && err.contains("): left out of the run"), "{err}");
    let zip = path(&home.path().join("ag.zip"));
    let o = autograder(&[&suite, "--command", "./ttt", "--out", &zip]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{}{err}", text(&o));
    // The same warning, naming the link as the autograder walked it (the
    // suite by its absolute path).
    let warning = warning.replace(&suite, &path(&fs::canonicalize(dir).expect("real path")));
    assert!(err.contains(&warning) && err.contains("): left out of the zip"), "{err}");
    let zip = zip::ZipArchive::new(fs::File::open(&zip).expect("open")).expect("a zip");
    let names: Vec<String> = zip
        .file_names()
        .map(|n| n.expect("name").into_owned())
        .filter(|n| n.starts_with("suite/"))
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
}

/// An expected file that is a link to nothing (or a FIFO, a folder) is
/// refused before the zip is written: `tictac grade` stops at such a test,
/// but on Gradescope `tictac test` failed it for every submission, telling
/// each student to bless the suite.
#[test]
fn an_expected_file_no_run_can_read_refuses_the_zip() {
    let home = temp_dir();
    let suite = suite(home.path());
    let expected = Path::new(&suite).join("secret.expected.txt");
    fs::remove_file(&expected).expect("remove");
    std::os::unix::fs::symlink(home.path().join("gone.txt"), &expected).expect("link");
    let zip = home.path().join("ag.zip");
    let o = autograder(&[&suite, "--command", "./ttt", "--out", &path(&zip)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains(
            "secret.expected.txt is a broken symbolic link (what it points to does not exist): \
             every submission would fail its test (mend the suite, then write the zip again)"
        ),
        "{}",
        text(&o)
    );
    assert!(!zip.exists());
}
