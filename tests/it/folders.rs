//! The folder a program runs in and the user it runs as (issue 33, items 6
//! and 7): each run in a private copy of its folder, whatever `-j`; under
//! `tictac grade` run as root, programs as an unprivileged user, kept from
//! the suite, the other students and tictac itself.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{BIN, path, run, script, temp_dir, text};

/// A folder root's alone (mode 700).
fn private_dir() -> tempfile::TempDir {
    let dir = temp_dir();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).expect("chmod");
    dir
}

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
/// earlier or a simultaneous run's: a scratch file shared); it writes in
/// HOME and TMPDIR too (a file of its own in TMPDIR, removed after: a
/// `t.$$` could meet one another user's run left there under the same pid).
fn copying_student(folder: &Path, model: &str) -> String {
    let body = format!(
        "if [ -e last_trace.txt ]; then echo 'last_trace.txt is there already' >&2; exit 9; fi\n\
         cp \"$2\" last_trace.txt || exit 8\n\
         t=$(mktemp \"${{TMPDIR:-/tmp}}/t.XXXXXX\") && echo home > \"$HOME/h\" && echo tmp > \"$t\" && rm -f \"$t\" || exit 7\n\
         exec '{model}' none \"$@\""
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
    // HOME as nobody would have it: somewhere it may write.
    let command = command.args(args).current_dir(cwd).env_remove("TMPDIR");
    run(command.env("HOME", std::env::temp_dir()), None)
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

/// What most tests here start from: an open home (a class's) holding the
/// model program (`model`, a correct one with `none`), the three-trace
/// suite, and a student's open folder (`home/NAME`, its parents open too).
struct Class {
    home: tempfile::TempDir,
    model: String,
    suite: String,
    student: PathBuf,
}

impl Class {
    fn new(student: &str) -> Class {
        let home = open_dir();
        let model = model(home.path());
        let suite = path(&suite(home.path()));
        let mut folder = home.path().to_path_buf();
        for name in student.split('/') {
            folder = open_folder(&folder, name);
        }
        Class { home, model, suite, student: folder }
    }

    /// `tictac test SUITE ARGS`, run as this user in the student's folder.
    fn test(&self, args: &[&str]) -> Output {
        as_self(&[&["test", self.suite.as_str()][..], args].concat(), &self.student)
    }

    /// `tictac grade SUITE STUDENT --command COMMAND ARGS --out HOME/book`,
    /// run as this user (root: the programs as nobody) from home: what it
    /// printed and the student's report (empty when none was written).
    fn grade(&self, command: &str, args: &[&str]) -> (Output, String) {
        let (student, out) = (path(&self.student), self.home.path().join("book"));
        let book = path(&out);
        let head = ["grade", self.suite.as_str(), &student, "--command", command, "--out", &book];
        let o = as_self(&[&head[..], args].concat(), self.home.path());
        let name = self.student.file_name().expect("a name").to_string_lossy();
        let report = fs::read_to_string(out.join(format!("{name}.report.txt")));
        (o, report.unwrap_or_default())
    }
}

#[test]
fn a_program_that_copies_its_input_into_its_folder_passes_every_test_whatever_j() {
    let class = Class::new("alice");
    let student = &class.student;
    copying_student(student, &class.model);
    for (who, tictac) in graders() {
        for jobs in ["1", "3"] {
            let args = ["test", &class.suite, "--program", "./ttt", "-j", jobs];
            let o = tictac(&args, student);
            assert_eq!(o.status.code(), Some(0), "as {who}, -j {jobs}: {}", text(&o));
            assert!(text(&o).contains("3/3 passed"), "as {who}, -j {jobs}: {}", text(&o));
        }
        // Its copies were its own: nothing was left in its folder.
        assert!(!student.join("last_trace.txt").exists(), "as {who}");
    }
}

#[test]
fn a_class_of_programs_that_copy_their_input_scores_full_marks_whatever_j() {
    let class = Class::new("alice");
    let home = class.home.path();
    let students = [class.student.clone(), open_folder(home, "bob")];
    for folder in &students {
        copying_student(folder, &class.model);
    }
    for (k, (who, tictac)) in graders().into_iter().enumerate() {
        let out = home.join(format!("book{k}"));
        let book = path(&out);
        let mut args = vec!["grade", &class.suite, "--command", "./ttt", "-j", "3"];
        args.extend(["--out", &book]);
        let names: Vec<String> = students.iter().map(|s| path(s)).collect();
        args.extend(names.iter().map(String::as_str));
        let o = tictac(&args, home);
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

/// Only root can run programs as another user: elsewhere these tests have
/// nothing to check (and fail under CI, which must run them).
fn root_or_skip() -> bool {
    if !is_root() {
        assert!(std::env::var_os("CI").is_none(), "these tests need root under CI");
    }
    is_root()
}

/// A folder only root may enter (the suite closed) whose files are links
/// to the open `suite`'s: its answers open through the links.
fn linked_suite(home: &Path, suite: &str) -> PathBuf {
    let linked = home.join("linked");
    fs::create_dir(&linked).expect("mkdir");
    fs::set_permissions(&linked, fs::Permissions::from_mode(0o700)).expect("chmod");
    for entry in fs::read_dir(suite).expect("suite").flatten() {
        std::os::unix::fs::symlink(entry.path(), linked.join(entry.file_name())).expect("link");
    }
    linked
}

/// Three traces of the course suite, in a folder only root can read.
fn course_traces(parent: &Path) -> PathBuf {
    let suite = parent.join("suite");
    let o = run(Command::new(BIN).args(["course-suite", &path(&suite)]), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    for entry in fs::read_dir(&suite).expect("suite").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !["01_", "03_", "10_"].iter().any(|p| name.starts_with(p)) {
            fs::remove_file(entry.path()).expect("rm");
        }
    }
    suite
}

#[test]
fn as_root_programs_that_take_tictac_s_answers_score_0_and_an_honest_one_full_marks() {
    if !root_or_skip() {
        return;
    }
    let home = open_dir();
    let model = model(home.path());
    // tictac on PATH, where nobody finds it.
    let bin = open_folder(home.path(), "bin");
    std::os::unix::fs::symlink(BIN, bin.join("tictac")).expect("link");
    let private = private_dir();
    let suite = course_traces(private.path());
    let class = open_folder(home.path(), "class");
    let honest = open_folder(&class, "honest");
    copying_student(&honest, &model);
    for (name, body) in [
        (
            "suite_out",
            "d=$(mktemp -d); /proc/$PPID/exe course-suite \"$d/s\"; \
             cat \"$d/s/$(basename \"$2\" .txt).expected.txt\"",
        ),
        ("on_path", "exec tictac \"$@\""),
        ("parent_exe", "exec /proc/$PPID/exe \"$@\""),
    ] {
        script(&open_folder(&class, name), "ttt", body);
    }
    let out = private.path().join("book");
    let names = ["honest", "suite_out", "on_path", "parent_exe"].map(|n| path(&class.join(n)));
    let path_var = format!("{}:{}", path(&bin), std::env::var("PATH").unwrap_or_default());
    let o = run(
        Command::new(BIN)
            .env("PATH", path_var)
            .args(["grade", &path(&suite), "--command", "./ttt", "-j", "2", "--out", &path(&out)])
            .args(&names),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = fs::read_to_string(out.join("grades.csv")).expect("grades.csv");
    for row in ["honest,3,3,3,", "suite_out,0,3,0,", "on_path,0,3,0,", "parent_exe,0,3,0,"] {
        assert!(csv.contains(&format!("\n{row}")), "{row}: {csv}");
    }
    let report = fs::read_to_string(out.join("on_path.report.txt")).expect("report");
    assert!(report.contains("note: the program ran tictac itself"), "{report}");
    // The table tells a refused tictac from a crash (the tester's A20).
    let table = text(&o);
    let row = table.lines().find(|l| l.starts_with("on_path ")).unwrap_or_default();
    assert!(row.ends_with("ran tictac itself (3 tests)"), "{table}");
    let json = fs::read_to_string(out.join("grades.json")).expect("grades.json");
    assert!(json.contains("\"kind\": \"ran tictac\""), "{json}");
    // The folder given to the programs' user was not the gradebook's.
    let mode = fs::metadata(&out).expect("book").permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "the gradebook is root's alone");
}

#[test]
fn as_root_a_command_the_programs_user_cannot_run_is_refused_before_grading() {
    if !root_or_skip() {
        return;
    }
    // An interpreter under a folder only root may enter (a pyenv shim in /root).
    let private = private_dir();
    let shim = script(private.path(), "fakepy", "exec true");
    let class = Class::new("alice");
    let home = class.home.path();
    let out = path(&home.join("book"));
    let path_var =
        format!("{}:{}", path(private.path()), std::env::var("PATH").unwrap_or_default());
    for command in [shim.as_str(), "fakepy"] {
        let command = format!("{command} ttt.py");
        let args = ["grade", &class.suite, "--command", &command, "--out", &out];
        let o = run(Command::new(BIN).env("PATH", &path_var).args(args).arg(&class.student), None);
        let err = format!("{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{command}: {err}");
        assert!(err.contains(&shim) && err.contains("the user nobody cannot run"), "{err}");
        assert!(!home.join("book").exists(), "nothing written");
    }
}

#[test]
fn as_root_a_suite_the_programs_user_could_read_is_warned_about() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("alice");
    let (home, suite, student) = (class.home.path(), &class.suite, &class.student);
    copying_student(student, &class.model);
    let (o, _) = class.grade("./ttt", &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let warning = format!(
        "warning: the user nobody can read the suite '{suite}', whose expected files are the \
         answers: `chmod 700 '{suite}'`"
    );
    assert!(err.contains(&warning), "{err}");
    // A closed suite whose files are links to that folder: the same answers,
    // open through the links (the tester's C5).
    let linked = linked_suite(home, suite);
    let out = path(&temp_dir().path().join("book"));
    let o = run(
        Command::new(BIN)
            .args(["grade", &path(&linked), "--command", "./ttt", "--out", &out])
            .arg(student),
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let warning = format!(
        "warning: the user nobody can read '{0}/a.txt' ({1}/a.txt links there) (and 5 more files \
         the suite links to), which the programs could read whatever the suite's folder allows: \
         `chmod 700 '{0}'` keeps it from them",
        suite,
        path(&linked)
    );
    assert!(err.contains(&warning), "{err}");
    assert!(!err.contains("can read the suite"), "{err}");
}

#[test]
fn tictac_test_runs_a_program_as_its_user_unless_user_says_another() {
    let class = Class::new("alice");
    let student = &class.student;
    script(student, "who", "echo \"I am $(id -un)\" >&2; exit 3");
    let me = String::from_utf8_lossy(&Command::new("id").arg("-un").output().expect("id").stdout)
        .trim()
        .to_string();
    let o = class.test(&["--program", "./who", "-j", "1"]);
    assert!(text(&o).contains(&format!("I am {me}")), "{}", text(&o));
    if root_or_skip() {
        let o = class.test(&["--program", "./who", "--user", "nobody"]);
        assert!(text(&o).contains("I am nobody"), "{}", text(&o));
        // Run as another user, as under `tictac grade`, a program that runs
        // tictac itself gets no answer from it.
        script(student, "oracle", &format!("exec '{BIN}' \"$@\""));
        let o = class.test(&["--program", "./oracle", "--user", "nobody"]);
        assert!(text(&o).contains("note: the program ran tictac itself"), "{}", text(&o));
        // Nor through a shell it named as the grader is named.
        let body = format!(
            "cp /bin/sh \"$TMPDIR/tictac-grader\" && \"$TMPDIR/tictac-grader\" -c '\"$0\" \"$@\"; exit $?' '{BIN}' \"$@\""
        );
        script(student, "named", &body);
        let o = class.test(&["--program", "./named", "--user", "nobody"]);
        assert!(text(&o).contains("note: the program ran tictac itself"), "{}", text(&o));
        // The grader's own oracle, run as the grader, answers: a right
        // program passes against it.
        script(student, "right", &format!("exec '{}' none \"$@\"", class.model));
        let o = class.test(&["--program", "./right", "--user", "nobody", "--oracle", BIN]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(text(&o).contains("3/3 passed"), "{}", text(&o));
    }
}

#[test]
fn a_program_named_by_a_path_leaving_its_folder_runs_as_it_does_by_hand() {
    let class = Class::new("f1");
    let w = open_folder(class.home.path(), "w");
    script(&w, "good.sh", &format!("exec '{}' none \"$@\"", class.model));
    std::os::unix::fs::symlink("../w/good.sh", class.student.join("prog")).expect("link");
    for program in ["../w/good.sh", "sh ../w/good.sh", "./prog"] {
        let o = class.test(&["--program", program, "-j", "2"]);
        assert_eq!(o.status.code(), Some(0), "{program}: {}", text(&o));
        assert!(text(&o).contains("3/3 passed"), "{program}: {}", text(&o));
    }
    // grade: a command leaving each student's folder (a grader's script).
    let (o, report) = class.grade("sh ../w/good.sh", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = fs::read_to_string(class.home.path().join("book/grades.csv")).expect("grades.csv");
    assert!(csv.contains("\nf1,3,3,"), "{csv}{report}");
}

#[test]
fn a_folder_this_user_cannot_read_whole_is_run_in_as_it_is_never_copied_in_part() {
    let class = Class::new("alice");
    let student = &class.student;
    // Execute-only: the folder cannot be listed, the program not read.
    fs::copy(&class.model, student.join("ttt")).expect("copy");
    fs::set_permissions(student.join("ttt"), fs::Permissions::from_mode(0o711)).expect("chmod");
    fs::set_permissions(student, fs::Permissions::from_mode(0o711)).expect("chmod");
    for (who, tictac) in graders() {
        let o = tictac(&["test", &class.suite, "--program", "./ttt none"], student);
        assert_eq!(o.status.code(), Some(0), "as {who}: {}", text(&o));
        assert!(text(&o).contains("3/3 passed"), "as {who}: {}", text(&o));
    }
}

/// `--log` inside the folder the program runs in never makes that folder
/// too large to copy: tictac leaves its own logs out of every copy and its
/// measure, so each test runs in a copy however the logs grow (finding 2).
/// The logs folder holds past the copy limit's 32 MiB already (a sparse
/// file: no disk taken, nothing copied): counted, the folder would be run
/// in as it is, which the program tells (it fails there).
#[test]
fn logs_written_in_the_programs_folder_are_left_out_of_its_copies() {
    let class = Class::new("work");
    let (model, folder) = (&class.model, &class.student);
    let logs = open_folder(folder, "logs");
    let big = fs::File::create(logs.join("big.bin")).expect("create");
    big.set_len((32 << 20) + 1).expect("a sparse file past the limit");
    let body = format!(
        "if [ \"$PWD\" = '{}' ]; then echo 'ran in the folder itself' >&2; exit 9; fi\nexec '{model}' none \"$@\"",
        path(folder)
    );
    script(folder, "ttt", &body);
    let o = class.test(&["--program", "./ttt", "--log", "logs"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("3/3 passed"), "{}", text(&o));
    assert_eq!(fs::read_dir(&logs).expect("logs").count(), 4, "a log per test, and big.bin");
}

/// Graded as root, a build that leaves its folder past the copy limits
/// (cargo's `target/`, `node_modules/`) is run in itself, tictac's own
/// copy given to the programs' user for each test, one at a time: the
/// student is graded, and a failing test names the student's build, not a
/// scratch folder (the tester's C12: no test ran).
#[test]
fn as_root_a_built_folder_past_the_copy_limits_is_run_in_itself_given_to_the_user() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("class/alice");
    let (model, student) = (&class.model, &class.student);
    // Each run leaves a file: the next finds it, and the last fails.
    let build = format!(
        "mkdir target && i=0; while [ $i -le 2000 ]; do : > target/f$i; i=$((i+1)); done\n\
         printf '#!/bin/sh\\n[ -e ran2 ] && exit 3; [ -e ran1 ] && : > ran2; : > ran1\\n\
         exec {model} none \"$@\"\\n' > ttt && chmod +x ttt"
    );
    fs::write(student.join("build.sh"), build).expect("write");
    let (o, report) = class.grade("./ttt", &["--build", "sh build.sh"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(report.contains("Test Results: 2/3 passed."), "{report}");
    assert!(report.contains("exited with status 3"), "{report}");
    let note = format!(
        "note: the program ran in its build of {} itself, one test at a time: it holds more \
         than 2000 files",
        path(student)
    );
    assert!(report.contains(&note), "{report}");
    assert!(!report.contains(".tictac-"), "no scratch folder named: {report}");
    assert_eq!(fs::read_dir(student).expect("alice").count(), 1, "her folder is left alone");
}

/// `test --user` checks the program as `grade` does, whatever the format:
/// a relative one (`./who`) is the folder's, run in a copy the user owns,
/// so a folder closed to the user is no reason to refuse it; one found by
/// its path from the root that the user cannot run is the grader's setup,
/// refused under `--format gradescope` too (the tester's A2).
#[test]
fn as_root_test_user_checks_the_program_as_grade_does_in_every_format() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("alice");
    let (home, suite) = (class.home.path(), &class.suite);
    let private = private_dir();
    let who = script(private.path(), "who", "echo \"I am $(id -un)\" >&2; exit 3");
    for format in ["human", "gradescope"] {
        let args = ["test", suite, "--program", "./who", "--user", "nobody"];
        let o =
            as_self(&[&args[..], &["--format", format, "--filter", "b"]].concat(), private.path());
        let all = format!("{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(1), "{format}: {all}");
        assert!(all.contains("I am nobody"), "{format}: {all}");
        let args = ["test", suite, "--program", &who, "--user", "nobody"];
        let o = as_self(&[&args[..], &["--format", format]].concat(), home);
        let all = format!("{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{format}: {all}");
        let refused = format!("{who}, which the user nobody cannot run");
        assert!(all.contains(&refused), "{format}: {all}");
        // The path is said once.
        assert_eq!(all.matches(who.as_str()).count(), 1, "{format}: {all}");
    }
}

/// `test --user` judges the suite as the programs' user would reach it,
/// from the root through links, as grade does: a link to a suite in a folder
/// only root may enter is closed to nobody, and nothing is said (it said
/// "the user nobody can read the suite"); a link there to an open suite is
/// open (it said nothing); a suite inside the folder the programs run in is
/// copied with it, theirs whatever its mode (it said `chmod 700 'suite'`,
/// which keeps nothing from them).
#[test]
fn as_root_test_user_judges_the_suite_as_the_programs_would_reach_it() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("alice");
    let (home, suite, student) = (class.home.path(), &class.suite, &class.student);
    let ttt = script(student, "ttt", "exit 3");
    let closed = private_dir();
    let inside = closed.path().join("suite");
    fs::create_dir(&inside).expect("mkdir");
    for entry in fs::read_dir(suite).expect("suite").flatten() {
        fs::copy(entry.path(), inside.join(entry.file_name())).expect("copy");
    }
    let warnings = |suite: &str, cwd: &Path| {
        let args = ["test", suite, "--program", &ttt, "--user", "nobody", "--filter", "b"];
        let o = as_self(&args, cwd);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{err}");
        err.lines().filter(|l| l.starts_with("warning:")).map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(warnings(&path(&inside), student), Vec::<String>::new());
    let to_closed = home.join("to-closed");
    std::os::unix::fs::symlink(&inside, &to_closed).expect("link");
    assert_eq!(warnings(&path(&to_closed), student), Vec::<String>::new());
    let to_open = closed.path().join("to-open");
    std::os::unix::fs::symlink(suite, &to_open).expect("link");
    let warning = format!(
        "warning: the user nobody can read the suite '{suite}', whose expected files are the \
         answers: `chmod 700 '{suite}'` keeps them from the programs"
    );
    assert_eq!(warnings(&path(&to_open), student), [warning]);
    let warning = format!(
        "warning: the suite '{}' is inside '{}', the folder the programs run in: each runs in a \
         copy of it that the user nobody owns, expected files, the answers, included; run tictac \
         from a folder that does not hold the suite",
        path(&inside),
        path(closed.path())
    );
    assert_eq!(warnings("suite", closed.path()), [warning]);
}

/// `test --user` warns of what grade warns of: a suite the user could read
/// (the tester's A13).
#[test]
fn as_root_test_user_warns_of_a_suite_the_user_could_read() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("alice");
    let (home, suite, student) = (class.home.path(), &class.suite, &class.student);
    script(student, "ttt", "exit 3");
    let o = class.test(&["--program", "./ttt", "--user", "nobody", "--filter", "b"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let warning = format!("warning: the user nobody can read the suite '{suite}'");
    assert!(err.contains(&warning), "{err}");

    // A closed suite whose files link to that folder: warned as grade warns
    // (the tester's C5, through suite::exposure; A13).
    let linked = linked_suite(home, suite);
    let args = ["test", &path(&linked), "--program", "./ttt", "--user", "nobody", "--filter", "b"];
    let o = as_self(&args, student);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let warning = format!(
        "warning: the user nobody can read '{0}/a.txt' ({1}/a.txt links there) (and 5 more files \
         the suite links to)",
        suite,
        path(&linked)
    );
    assert!(err.contains(&warning), "{err}");

    // The oracle, as root, runs in a folder of its own, not the student's
    // (A13): it prints where it ran, which is no folder of the student's.
    let oracle = script(home, "oracle", "pwd; ls");
    fs::write(student.join("secret"), "the student's own").expect("write");
    let o = class.test(&[
        "--program",
        "./ttt",
        "--oracle",
        &oracle,
        "--user",
        "nobody",
        "--filter",
        "b",
    ]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("exited with status 3"), "{out}");
    assert!(!out.contains(&path(student)) && !out.contains("secret"), "{out}");
    // Named by a relative path, it would be the student's folder's file.
    let o = class.test(&["--program", "./ttt", "--oracle", "./oracle", "--user", "nobody"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o)
            .contains("--oracle cannot run './oracle': with --user it runs in a folder of its own"),
        "{}",
        text(&o)
    );
}

/// A student's folder the programs' user could change: another student's
/// program, graded before, could rewrite that submission; grading warns,
/// naming it, and names no folder that user cannot change (the tester's A18).
#[test]
fn as_root_a_student_folder_the_programs_user_could_change_is_warned_about() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("bb");
    let open = &class.student;
    let closed = class.home.path().join("aa");
    fs::create_dir(&closed).expect("mkdir");
    for folder in [open, &closed] {
        script(folder, "ttt", "exit 3");
    }
    let (o, _) = class.grade("./ttt", &[&path(&closed)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let warning = format!(
        "warning: the user nobody can change '{}': a program graded before its student's could \
         rewrite that submission",
        path(open)
    );
    assert!(err.contains(&warning), "{err}");
}

/// An `--out` that belongs to the programs' user (made in /tmp by an
/// earlier grading's program, say) is refused before anything runs: its
/// owner could write in the gradebook whatever its mode (the tester's A17).
#[test]
fn as_root_an_out_folder_of_the_programs_user_is_refused() {
    if !root_or_skip() {
        return;
    }
    let class = Class::new("alice");
    script(&class.student, "ttt", "exit 3");
    let out = class.home.path().join("book");
    fs::create_dir(&out).expect("mkdir");
    std::os::unix::fs::chown(&out, Some(65534), Some(65534)).expect("chown");
    let (o, _) = class.grade("./ttt", &[]);
    let err = format!("{}{}", text(&o), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("belongs to the user nobody, whom the programs run as"), "{err}");
    assert_eq!(fs::read_dir(&out).expect("out").count(), 0, "nothing written");
}
