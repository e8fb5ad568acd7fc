//! The folder a program runs in and the user it runs as (issue 33, items 6
//! and 7): each run in a private copy of its folder, whatever `-j`; under
//! `tictac grade` run as root, programs as an unprivileged user, kept from
//! the suite, the other students and tictac itself.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{BIN, path, run, script, temp_dir, text};

/// A folder every user may enter, read and write (a class's, a grader's).
fn open_dir() -> tempfile::TempDir {
    let dir = temp_dir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).expect("chmod");
    dir
}

fn open_folder(parent: &Path, name: &str) -> PathBuf {
    let folder = parent.join(name);
    fs::create_dir(&folder).expect("mkdir");
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o777)).expect("chmod");
    folder
}

/// The example model program (a correct one with `none`), where every user
/// can run it: tictac's own folder may be a private one.
fn model(dir: &Path) -> String {
    let built = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    assert!(built.exists(), "{} is built by cargo test", built.display());
    let at = dir.join("model");
    if fs::hard_link(&built, &at).is_err() {
        fs::copy(&built, &at).expect("copy the model program");
    }
    path(&at)
}

/// A suite of three traces with their expected outputs, every user may
/// read (a non-root grader's).
fn suite(parent: &Path) -> PathBuf {
    let suite = open_folder(parent, "suite");
    for (name, trace) in [
        ("a", "new_game(\"a\",\"b\")\nplay(\"a\",5)\n"),
        ("b", "undo\n"),
        ("c", "new_game(\"x\",\"y\")\nplay(\"x\",1)\nplay(\"y\",2)\nundo\n"),
    ] {
        fs::write(suite.join(format!("{name}.txt")), trace).expect("write");
    }
    let o = run(Command::new(BIN).args(["test", "--bless", &path(&suite)]), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for entry in fs::read_dir(&suite).expect("suite").flatten() {
        fs::set_permissions(entry.path(), fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    suite
}

/// A correct program that copies its input into its folder first, as a
/// student does while debugging, and fails if a copy is there already (an
/// earlier or a simultaneous run's: a scratch file shared).
fn copying_student(folder: &Path, model: &str) -> String {
    let body = format!(
        "if [ -e last_trace.txt ]; then echo 'last_trace.txt is there already' >&2; exit 9; fi\n\
         cp \"$2\" last_trace.txt || exit 8\nexec '{model}' none \"$@\""
    );
    script(folder, "ttt", &body)
}

fn is_root() -> bool {
    rustix::process::getuid().is_root()
}

/// `tictac ARGS` as the user `nobody` (a grader who is not root).
fn as_nobody(args: &[&str], cwd: &Path) -> Output {
    let mut command = Command::new("setpriv");
    command.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
    run(command.args(args).current_dir(cwd).env_remove("TMPDIR"), None)
}

fn as_self(args: &[&str], cwd: &Path) -> Output {
    run(Command::new(BIN).args(args).current_dir(cwd), None)
}

/// A way to run tictac in a folder.
type Tictac = fn(&[&str], &Path) -> Output;

/// Who can run tictac here: root and nobody when this is root, else this
/// user alone (a test that needs root fails under CI without it).
fn graders() -> Vec<(&'static str, Tictac)> {
    match is_root() {
        true => vec![("root", as_self), ("nobody", as_nobody)],
        false => {
            assert!(std::env::var_os("CI").is_none(), "these tests need root under CI");
            vec![("this user", as_self)]
        }
    }
}

#[test]
fn a_program_that_copies_its_input_into_its_folder_passes_every_test_whatever_j() {
    let home = open_dir();
    let model = model(home.path());
    let suite = suite(home.path());
    let student = open_folder(home.path(), "alice");
    copying_student(&student, &model);
    for (who, tictac) in graders() {
        for jobs in ["1", "3"] {
            let args = ["test", &path(&suite), "--program", "./ttt", "-j", jobs];
            let o = tictac(&args, &student);
            assert_eq!(o.status.code(), Some(0), "as {who}, -j {jobs}: {}", text(&o));
            assert!(text(&o).contains("3/3 passed"), "as {who}, -j {jobs}: {}", text(&o));
        }
        // Its copies were its own: nothing was left in its folder.
        assert!(!student.join("last_trace.txt").exists(), "as {who}");
    }
}

#[test]
fn a_class_of_programs_that_copy_their_input_scores_full_marks_whatever_j() {
    let home = open_dir();
    let model = model(home.path());
    let suite = suite(home.path());
    let students: Vec<PathBuf> = ["alice", "bob"]
        .iter()
        .map(|name| {
            let folder = open_folder(home.path(), name);
            copying_student(&folder, &model);
            folder
        })
        .collect();
    for (k, (who, tictac)) in graders().into_iter().enumerate() {
        let out = home.path().join(format!("book{k}"));
        let (suite, book) = (path(&suite), path(&out));
        let mut args = vec!["grade", &suite, "--command", "./ttt", "-j", "3"];
        args.extend(["--out", &book]);
        let names: Vec<String> = students.iter().map(|s| path(s)).collect();
        args.extend(names.iter().map(String::as_str));
        let o = tictac(&args, home.path());
        assert_eq!(o.status.code(), Some(0), "as {who}: {}", text(&o));
        let csv = fs::read_to_string(out.join("grades.csv")).expect("grades.csv");
        let reports = ["alice", "bob"].map(|name| {
            fs::read_to_string(out.join(format!("{name}.report.txt"))).unwrap_or_default()
        });
        assert!(
            csv.contains("\nalice,3,3,") && csv.contains("\nbob,3,3,"),
            "as {who}: {csv}{reports:?}"
        );
    }
}
