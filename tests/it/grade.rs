//! `tictac grade` on a class with planted mistakes (issue 28's "done
//! when"): one correct student, one wrong in undo, one whose program
//! stops with a long traceback, one in a folder whose name has a space.
//! Every student's folder holds the same `ttt` script, which reads its
//! mistake from `mistake.txt` in the folder it runs in: so a student graded
//! with another's folder, or outside it, would show.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{BIN, model_program, path, run, script, temp_dir, text, tictac};

/// The example model program (examples/mutant.rs), built by cargo test.
fn mutant() -> PathBuf {
    let mutant = Path::new(BIN).parent().expect("target").join("examples").join("mutant");
    assert!(mutant.exists(), "{} is built by cargo test", mutant.display());
    mutant
}

/// The class in `home/class`: each student a folder with `ttt` and the
/// mistake it makes.
fn class(home: &Path) -> Vec<String> {
    let students = [
        ("alice", "none"),
        ("bob", "redo-kept"),
        ("carol", "crash-on-diagonal"),
        ("dan smith", "none"),
    ];
    let mut folders = Vec::new();
    for (name, mistake) in students {
        let folder = home.join("class").join(name);
        fs::create_dir_all(&folder).expect("mkdir");
        fs::write(folder.join("mistake.txt"), mistake).expect("write");
        let body = format!("exec '{}' \"$(cat mistake.txt)\" \"$@\"", path(&mutant()));
        script(&folder, "ttt", &body);
        folders.push(path(&folder));
    }
    folders
}

/// The CSV's rows, as fields (no field of this class needs quotes).
fn rows(csv: &str) -> Vec<Vec<&str>> {
    csv.lines().map(|l| l.split(',').collect()).collect()
}

#[test]
fn a_class_with_planted_mistakes_is_graded_into_a_gradebook() {
    let home = temp_dir();
    let students = class(home.path());
    let out = home.path().join("grades");
    let (o, csv, json) = graded(home.path(), &students, "1", "grades");

    // The guide's session is this one: its table is what was printed, up to
    // the last line's folder (given here as a full path).
    let guide = crate::docs::read("docs/guide/grade.md");
    let shown =
        crate::docs::session_block(&guide, "tictac grade --course submissions/* --command ./ttt");
    let printed: Vec<String> = text(&o).lines().map(|l| l.trim().to_string()).collect();
    let upto_folder = |l: &String| l.split(": ").next().unwrap_or("").to_string();
    assert_eq!(printed.len(), shown.len(), "{printed:#?}\nthe guide shows {shown:#?}");
    let last = shown.len() - 1;
    assert_eq!(printed[..last], shown[..last], "docs/guide/grade.md's table");
    assert_eq!(upto_folder(&printed[last]), upto_folder(&shown[last]));

    // The CSV: a column per test, the points earned on it (1 or 0 here).
    let rows = rows(&csv);
    let header = &rows[0];
    assert_eq!(header[..5], ["student", "passed", "total", "points", "max_points"], "{csv}");
    let tests = header.len() - 5;
    assert!(tests >= 40, "{csv}");
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0]).collect();
    assert_eq!(names, ["alice", "bob", "carol", "dan smith"], "{csv}");
    let column = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let all = tests.to_string();
    for row in &rows[1..] {
        let passed = row[5..].iter().filter(|c| **c == "1").count();
        assert!(row[5..].iter().all(|c| *c == "1" || *c == "0"), "{csv}");
        assert_eq!((row[1], row[2], row[3]), (passed.to_string().as_str(), all.as_str(), row[1]));
        assert_eq!(row[4], all, "{csv}");
    }
    for correct in [1, 4] {
        assert_eq!(rows[correct][1], all, "{csv}");
    }
    // Bob keeps what was undone after a new command: the undo tests fail.
    let bob = &rows[2];
    assert_eq!(bob[column("10_new_command_drops_redo")], "0", "{csv}");
    assert_eq!(bob[column("01_x_wins")], "1", "{csv}");
    assert!(bob[1] != all, "{csv}");
    // Carol stops with status 3 where a win is on the 3-5-7 diagonal, only there.
    let carol = &rows[3];
    assert_eq!(carol[column("61_x_wins_on_the_357_diagonal")], "0", "{csv}");
    assert_eq!(carol[column("62_x_wins_on_the_159_diagonal")], "1", "{csv}");
    let crashed = carol[5..].iter().filter(|c| **c == "0").count();
    assert!((1..5).contains(&crashed), "{csv}");

    // The JSON: the same, with each failure's kind.
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let students_json = json["students"].as_array().expect("students");
    assert_eq!(students_json.len(), 4, "{json}");
    let result = |student: usize, test: &str| {
        let tests = students_json[student]["tests"].as_array().expect("tests");
        tests.iter().find(|t| t["test"] == test).expect(test).clone()
    };
    let crash = result(2, "61_x_wins_on_the_357_diagonal");
    assert_eq!((&crash["passed"], &crash["kind"]), (&false.into(), &"exited".into()), "{json}");
    assert_eq!(crash["failure"], "exited with status 3", "{json}");
    assert_eq!(result(1, "10_new_command_drops_redo")["kind"], "output differs", "{json}");
    assert_eq!(result(3, "10_new_command_drops_redo")["passed"], true, "{json}");
    assert_eq!(students_json[3]["student"], "dan smith", "{json}");
    assert_eq!(students_json[3]["points"], tests, "{json}");
    // tests.csv: per test how many pass, hardest first.
    let by_test = fs::read_to_string(out.join("tests.csv")).expect("tests.csv");
    let by_test = self::rows(&by_test);
    assert_eq!(by_test[0], ["test", "points", "passed", "students"]);
    assert_eq!(by_test.len(), tests + 1);
    let passing: Vec<usize> = by_test[1..].iter().map(|r| r[2].parse().expect("n")).collect();
    assert!(passing.windows(2).all(|w| w[0] <= w[1]), "{by_test:?}");
    assert_eq!(passing[0], 3, "{by_test:?}");

    // The table on standard output.
    let table = text(&o);
    let line = |student: &str| {
        table.lines().find(|l| l.starts_with(student)).unwrap_or_else(|| panic!("{table}"))
    };
    assert!(line("carol").contains("61_x_wins_on_the_357_diagonal"), "{table}");
    assert!(line("carol").ends_with(&format!("exited non-zero ({crashed} tests)")), "{table}");
    assert!(line("bob").contains("10_new_command_drops_redo"), "{table}");
    assert!(line("dan smith").contains(&format!("{tests}/{tests}")), "{table}");

    // The reports: the crash's command, status and last line of stderr.
    let report = fs::read_to_string(out.join("carol.report.txt")).expect("carol's report");
    let failure = report.split("FAIL 61_x_wins_on_the_357_diagonal (").nth(1).expect("61 fails");
    assert!(failure.contains("\n     exited with status 3\n"), "{report}");
    // The command runs again as shown: the course suite is in the gradebook.
    let trace = out.join("course-suite").join("61_x_wins_on_the_357_diagonal.txt");
    assert!(failure.contains(&format!("\n     command: ./ttt -b {}\n", path(&trace))), "{report}");
    assert!(
        trace.is_file()
            && out.join("course-suite/61_x_wins_on_the_357_diagonal.expected.txt").is_file()
    );
    assert!(failure.contains("       AssertionError: the 3-5-7 line is not checked\n"), "{report}");
    let passed = tests - crashed;
    assert!(report.ends_with(&format!("Test Results: {passed}/{tests} passed.\n")), "{report}");
    let report = fs::read_to_string(out.join("dan smith.report.txt")).expect("dan's report");
    assert!(report.ends_with(&format!("Test Results: {tests}/{tests} passed.\n")), "{report}");

    // The JUnit files: each suite named after its student.
    for name in ["alice", "bob", "carol", "dan smith"] {
        let xml = fs::read_to_string(out.join(format!("{name}.junit.xml"))).expect("junit");
        let suite = format!("<testsuite name=\"{name}\" tests=\"{tests}\"");
        assert!(xml.contains(&suite), "{name}: {xml}");
    }
    let xml = fs::read_to_string(out.join("carol.junit.xml")).expect("junit");
    assert!(xml.contains("<failure message=\"exited with status 3\" type=\"exited\">"), "{xml}");

    // At -j 8 the tests of several students run at once: each result still
    // lands in its own student's row and report, as graded one test at a
    // time above.
    let (_, pooled_csv, pooled_json) = graded(home.path(), &students, "8", "pooled");
    let alone = |name| fs::read_to_string(out.join(name)).expect(name);
    assert_eq!((alone("grades.csv"), alone("grades.json")), (pooled_csv, pooled_json));
    for name in ["alice", "bob", "carol", "dan smith"] {
        let report = |out: &str| {
            let text = fs::read_to_string(home.path().join(out).join(format!("{name}.report.txt")))
                .expect("report");
            // Times differ from run to run, and each gradebook holds its
            // own copy of the course suite.
            let timeless: Vec<String> =
                text.lines().map(|l| l.split(" (").next().unwrap_or(l).to_string()).collect();
            timeless.join("\n").replace(&path(&home.path().join(out)), "OUT")
        };
        assert_eq!(report("grades"), report("pooled"), "{name}");
    }
}

#[test]
fn grades_never_overwrite_and_bad_invocations_are_usage_errors() {
    let home = temp_dir();
    let students = class(home.path());
    let out = home.path().join("grades");
    fs::create_dir(&out).expect("mkdir");
    fs::write(out.join("grades.csv"), "kept").expect("write");
    let out_arg = path(&out);
    let o = tictac(&["grade", "--course", "--command", "./ttt", "--out", &out_arg, &students[0]]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("is a folder that is not empty"), "{}", text(&o));
    assert_eq!(fs::read_to_string(out.join("grades.csv")).expect("kept"), "kept");

    let fresh = path(&home.path().join("fresh"));
    let empty = home.path().join("empty");
    fs::create_dir(&empty).expect("mkdir");
    let empty = path(&empty);
    for (args, says) in [
        (vec!["grade", "--course", "--command", "./ttt"], "needs <SUITE|SUBMISSION_DIR>"),
        (
            vec!["grade", &empty, "--command", "./ttt", &students[0]],
            "(the first folder named is the suite, unless --course grades with the built-in",
        ),
        (vec!["grade", "suite", "--command", "./ttt"], "at least one student's folder"),
        (vec!["grade", "--course", "--command", "'./ttt", &students[0]], "cannot be split"),
        (vec!["grade", "--course", &students[0]], "--command"),
        (vec!["grade", "/no/such/suite", "--command", "./ttt", &students[0]], "no tests found"),
        (vec!["grade", "--course", "--command", "./ttt", "/no/such/student"], "is not a folder"),
        // --course forgotten: the first student's folder is no suite.
        (
            vec!["grade", &students[0], &students[1], "--command", "./ttt"],
            "holds ./ttt, the program --command runs: it looks like a student's folder",
        ),
        (
            vec!["grade", &students[0], &students[1], "--command", "sh ttt"],
            "holds ttt, the program --command runs",
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--out", &fresh]);
        let o = run(Command::new(BIN).args(&args), None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
}

#[test]
fn a_program_that_cannot_start_is_a_result() {
    let home = temp_dir();
    let students = class(home.path());
    fs::remove_file(Path::new(&students[1]).join("ttt")).expect("rm");
    let out = path(&home.path().join("grades"));
    let o = tictac(&[
        "grade",
        "--course",
        "--command",
        "./ttt",
        "--out",
        &out,
        &students[0],
        &students[1],
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    let bob = table.lines().find(|l| l.starts_with("bob")).expect("bob");
    assert!(bob.contains(" 0/") && bob.contains("could not start ("), "{table}");
    let report = fs::read_to_string(Path::new(&out).join("bob.report.txt")).expect("report");
    assert!(report.contains("could not start: ./ttt: no such file"), "{report}");
    assert!(!table.contains("warning") && !table.contains("note:"), "{table}");

    // A typo in --command starts nobody's program; one naming nothing in
    // their folders runs the same program for all: both are said.
    let typo = path(&home.path().join("typo"));
    let o = tictac(&["grade", "--course", "--command", "./tt", "--out", &typo, &students[0]]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("warning: no student's program could start with --command './tt'"));
    let same = path(&home.path().join("same"));
    let o = tictac(&["grade", "--course", "--command", BIN, "--out", &same, &students[1]]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("every student ran the same program"), "{}", text(&o));
}

#[test]
fn test_reports_gradescope_results_and_points_count_in_both() {
    let home = temp_dir();
    let students = class(home.path());
    // The course suite: Carol's crashes are failed tests, their output the report's.
    let args = ["test", "--course", "--program", "./ttt", "--format", "gradescope"];
    let o = run(Command::new(BIN).current_dir(&students[2]).args(args), None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let tests = results["tests"].as_array().expect("tests");
    let passed = tests.iter().filter(|t| t["status"] == "passed").count();
    assert!(passed >= 38 && passed < tests.len(), "{results}");
    assert_eq!(results["score"], passed, "{results}");
    let crash = tests.iter().find(|t| t["name"] == "61_x_wins_on_the_357_diagonal").expect("61");
    assert_eq!((&crash["score"], &crash["max_score"]), (&0.into(), &1.into()), "{crash}");
    let output = crash["output"].as_str().expect("output");
    assert!(output.contains("exited with status 3"), "{output}");
    assert!(output.contains("AssertionError: the 3-5-7 line is not checked"), "{output}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("Test Results: "), "people's report");

    // A program that cannot start (missing, not executable) scores 0 in a
    // results.json Gradescope can read, each test saying why.
    fs::write(Path::new(&students[2]).join("noexec"), "#!/bin/sh\n").expect("write");
    script(Path::new(&students[2]), "crlf", "\r");
    let crlf = fs::read_to_string(Path::new(&students[2]).join("crlf")).expect("crlf");
    fs::write(Path::new(&students[2]).join("crlf"), crlf.replace("\n", "\r\n")).expect("write");
    for missing in ["./nothing", "./noexec", "./crlf"] {
        let args = ["test", "--course", "--program", missing, "--format", "gradescope"];
        let o = run(Command::new(BIN).current_dir(&students[2]).args(args), None);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(results["score"], 0, "{results}");
        let first = &results["tests"][0];
        assert_eq!((&first["score"], &first["max_score"]), (&0.into(), &1.into()), "{first}");
        let output = first["output"].as_str().expect("output");
        assert!(output.contains(&format!("could not start: {missing}")), "{output}");
        if missing == "./crlf" {
            assert!(output.contains("the \\r is a Windows line ending"), "{output}");
        }
    }

    // A trace worth 3 points, passed by tictac itself, failed by Carol.
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "-- points: 3\nnew_game(\"a\",\"b\")\nplay(\"a\",5)\n")
        .expect("write");
    fs::write(suite.join("b.txt"), "undo\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let o = tictac(&["test", &path(&suite), "--program", BIN, "--format", "gradescope"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(results["score"], 4, "{results}");
    assert_eq!(results["tests"][0]["max_score"], 3, "{results}");
    let out = path(&home.path().join("grades"));
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--command",
        "./ttt",
        "--out",
        &out,
        &students[0],
        &students[2],
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = fs::read_to_string(Path::new(&out).join("grades.csv")).expect("csv");
    assert_eq!(
        csv,
        "student,passed,total,points,max_points,a,b\nalice,2,2,4,4,3,1\ncarol,2,2,4,4,3,1\n"
    );

    // Points said wrongly, or past the most a test may be worth, would be a
    // wrong grade (2.5 was worth 1; 2^64 - 1 wrapped the sums); a malformed
    // directive would stop grading midway: refused before anything runs.
    for bad in [
        "-- points: 2.555",
        "-- points: 18446744073709551615",
        "--points: 4",
        "--run: -b IN",
        "-- visibility: secret",
    ] {
        fs::write(suite.join("b.txt"), format!("{bad}\nundo\n")).expect("write");
        let fresh = path(&home.path().join("fresh"));
        let o =
            tictac(&["grade", &path(&suite), "--command", "./ttt", "--out", &fresh, &students[0]]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let says =
            format!("b.txt' cannot run as written: line 1, `{bad}`, is not a valid directive");
        assert!(text(&o).contains(&says), "{}", text(&o));
        assert!(!Path::new(&fresh).exists(), "refused before anything is made");
        let o = tictac(&["test", &path(&suite), "--program", BIN, "--format", "gradescope"]);
        assert_eq!(o.status.code(), Some(1), "{}", text(&o));
        let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        assert_eq!(results["score"], 3, "{results}");
    }
    // A header line after the first command, or a word Gradescope knows
    // and tictac does not, read as a comment: 1 point, visible. Refused.
    for (trace, says) in [
        (
            "undo\n-- visibility: hidden\n",
            "line 2, `-- visibility: hidden`, is not read as a directive",
        ),
        ("-- hidden: true\nundo\n", "line 1, `-- hidden: true`, is no directive tictac reads"),
        ("-- weight: 3\nundo\n", "line 1, `-- weight: 3`, is no directive tictac reads"),
    ] {
        fs::write(suite.join("b.txt"), trace).expect("write");
        let fresh = path(&home.path().join("fresh"));
        let o =
            tictac(&["grade", &path(&suite), "--command", "./ttt", "--out", &fresh, &students[0]]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(says), "{}", text(&o));
        assert!(!Path::new(&fresh).exists(), "refused before anything is made");
    }
}

/// What one student's program leaves (a hang, a child in the background)
/// is stopped, and changes no other student's result.
#[cfg(target_os = "linux")]
#[test]
fn one_student_s_hang_and_leftovers_touch_no_other() {
    use crate::common::{assert_none_left, hostile_script, suite};
    let dir = suite();
    let class = temp_dir();
    let marker = path(class.path());
    for (name, body) in [
        ("hangs", "exec \"$me\" child"),
        ("leaves a child", "\"$me\" child &\nexec \"$TICTAC\" \"$@\""),
        ("correct", "exec \"$TICTAC\" \"$@\""),
    ] {
        let folder = class.path().join(name);
        fs::create_dir(&folder).expect("mkdir");
        hostile_script(&folder, "ttt", body);
    }
    let out = path(&class.path().join("grades"));
    let students: Vec<String> = ["hangs", "leaves a child", "correct"]
        .iter()
        .map(|n| path(&class.path().join(n)))
        .collect();
    let start = std::time::Instant::now();
    let mut command = Command::new(BIN);
    command.env("TICTAC", model_program()).args(["grade", &path(dir.path()), "--command", "./ttt"]);
    command.args(["--timeout", "1", "-j", "2", "--out", &out]).args(&students);
    let o = run(&mut command, None);
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "{}", text(&o));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = fs::read_to_string(Path::new(&out).join("grades.csv")).expect("csv");
    assert_eq!(
        csv,
        "student,passed,total,points,max_points,a,b\nhangs,0,2,0,2,0,0\nleaves a child,2,2,2,2,1,1\ncorrect,2,2,2,2,1,1\n"
    );
    let table = text(&o);
    let hangs = table.lines().find(|l| l.starts_with("hangs")).expect("hangs");
    assert!(hangs.ends_with("timed out (2 tests)"), "{table}");
    assert_none_left(&marker);
}

/// The class graded with the course suite at `-j jobs` into `home/out`:
/// what it printed, grades.csv and grades.json.
fn graded(home: &Path, students: &[String], jobs: &str, out: &str) -> (Output, String, String) {
    let out = home.join(out);
    let mut args = vec!["grade", "--course", "--command", "./ttt", "-j", jobs, "--out"];
    let out_arg = path(&out);
    args.push(&out_arg);
    args.extend(students.iter().map(String::as_str));
    let o = tictac(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let read = |name: &str| fs::read_to_string(out.join(name)).expect(name);
    (o, read("grades.csv"), read("grades.json"))
}

/// The grades.csv of `tictac grade SUITE --command ./ttt STUDENTS`, run in
/// `cwd`.
fn grade_in(cwd: &Path, suite: &str, students: &[&Path], out: &Path) -> String {
    let mut command = Command::new(BIN);
    command.current_dir(cwd).env("TICTAC", model_program());
    command.args(["grade", suite, "--command", "./ttt", "-j", "1", "--out", &path(out)]);
    let o = run(command.args(students), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    fs::read_to_string(out.join("grades.csv")).expect("grades.csv")
}

#[test]
fn a_file_named_in_a_run_line_is_the_program_s_own_read_only_copy() {
    // The suite's data file, named by its absolute path: a program that
    // writes it changes its own copy, never the data of the students after.
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    // Outside the suite, else it would be a test of its own.
    let data = home.path().join("data.txt");
    fs::write(&data, "new_game(\"a\",\"b\")\n").expect("write");
    fs::write(suite.join("t.txt"), format!("-- run: -b {}\n", path(&data))).expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let (vandal, correct) = (home.path().join("vandal"), home.path().join("correct"));
    for (folder, body) in [
        (&vandal, "echo 'new_game(\"Z\",\"Y\")' > \"$2\"; exec \"$TICTAC\" \"$@\""),
        (&correct, "exec \"$TICTAC\" \"$@\""),
    ] {
        fs::create_dir(folder).expect("mkdir");
        script(folder, "ttt", body);
    }
    let csv = grade_in(home.path(), &path(&suite), &[&vandal, &correct], &home.path().join("g"));
    // The vandal's own copy is read-only (root may still write it: its
    // own result then); the next student reads the suite's data.
    assert!(csv.ends_with("\ncorrect,1,1,1,1,1\n"), "{csv}");
    assert_eq!(fs::read_to_string(&data).expect("data"), "new_game(\"a\",\"b\")\n");
    // A rerun's command names the suite's own file.
    let o = run(
        Command::new(BIN).env("TICTAC", BIN).args([
            "test",
            &path(&suite),
            "--program",
            &script(home.path(), "wrong", "echo oops"),
        ]),
        None,
    );
    assert!(text(&o).contains(&format!(" -b {}", path(&data))), "{}", text(&o));
}

#[test]
fn a_relative_file_in_a_run_line_is_the_suite_s_beside_the_trace_wherever_tictac_runs() {
    // `-- run: -b in.dat` reads the suite's in.dat, beside the trace,
    // whatever folder grading starts in and whatever the student's folder
    // holds: a student's own in.dat, or a link named so to a file only
    // the grader may read, is never taken for it.
    let home = temp_dir();
    let suite = home.path().join("s13");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("in.dat"), "new_game(\"a\",\"b\")\nplay(\"a\",5)\n").expect("write");
    fs::write(suite.join("t.txt"), "-- run: -b in.dat\n").expect("write");
    let blessed = run(Command::new(BIN).args(["test", "--bless", &path(&suite)]), None);
    assert_eq!(blessed.status.code(), Some(0), "{}", text(&blessed));
    let (plain, own, link) =
        (home.path().join("plain"), home.path().join("own"), home.path().join("link"));
    for folder in [&plain, &own, &link] {
        fs::create_dir(folder).expect("mkdir");
        script(folder, "ttt", "exec \"$TICTAC\" \"$@\"");
    }
    fs::write(own.join("in.dat"), "undo\n").expect("write");
    let secret = home.path().join("secret.txt");
    fs::write(&secret, "SECRET-LINE\n").expect("write");
    std::os::unix::fs::symlink(&secret, link.join("in.dat")).expect("symlink");
    let want = "student,passed,total,points,max_points,t\nplain,1,1,1,1,1\nown,1,1,1,1,1\nlink,1,1,1,1,1\n";
    // Beside the suite, from another folder, and from a student's own
    // folder (as Gradescope's run_autograder does): the same grades.
    for (k, cwd) in [&suite, home.path(), &link].into_iter().enumerate() {
        let out = home.path().join(format!("g{k}"));
        let csv = grade_in(cwd, &path(&suite), &[&plain, &own, &link], &out);
        assert_eq!(csv, want, "graded in {}", cwd.display());
        for report in fs::read_dir(&out).expect("out").map(|e| e.expect("entry").path()) {
            let read = fs::read(&report).unwrap_or_default();
            assert!(!String::from_utf8_lossy(&read).contains("SECRET"), "{}", report.display());
        }
    }
}

#[test]
fn a_student_s_name_reaches_the_terminal_escaped_and_the_files_as_it_is() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("t.txt"), "new_game(\"a\",\"b\")\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let evil = "s08\u{1b}]2;PWNED-TITLE\u{7}\u{1b}[?1049h\u{1b}[41mEVIL";
    let names = [evil, "two\nlines", "李小龙", "ann"];
    let folders: Vec<PathBuf> = names.iter().map(|n| home.path().join(n)).collect();
    for folder in &folders {
        fs::create_dir(folder).expect("mkdir");
        script(folder, "ttt", "exec \"$TICTAC\" \"$@\"");
    }
    let out = home.path().join("g");
    let mut command = Command::new(BIN);
    command.env("TICTAC", model_program()).args(["grade", &path(&suite), "--command", "./ttt"]);
    let o = run(command.args(["--out", &path(&out)]).args(&folders), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    assert!(!table.contains(['\u{1b}', '\u{7}']), "{table:?}");
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[5].starts_with("Graded 4 students"), "a row a student, one line each: {table}");
    assert!(lines[1].starts_with("s08\\x1b]2;PWNED-TITLE\\x07\\x1b[?1049h\\x1b[41mEVIL  1/1"));
    assert!(lines[2].starts_with("two\\x0alines "), "{table}");
    // Columns line up on a terminal: 李小龙 is six columns wide, nine bytes.
    let column = |line: &str| line.find("1/1").expect("1/1");
    assert_eq!(column(lines[3]), column(lines[4]) + 3, "{table}");
    // The files keep the true name.
    let json = fs::read_to_string(out.join("grades.json")).expect("json");
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let named: Vec<&str> = json["students"]
        .as_array()
        .expect("students")
        .iter()
        .map(|s| s["student"].as_str().expect("name"))
        .collect();
    assert_eq!(named, names);
    let xml = fs::read_to_string(out.join("two\nlines.junit.xml")).expect("junit");
    let doc = roxmltree::Document::parse(&xml).expect("XML");
    assert_eq!(doc.root_element().attribute("name"), Some("two\nlines"), "{xml}");
    // Nor do the errors that name a student send the name to the terminal.
    let inside = folders[0].join("g");
    let mut command = Command::new(BIN);
    command.args(["grade", &path(&suite), "--command", "./ttt", "--out", &path(&inside)]);
    let o = run(command.arg(&folders[0]), None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!text(&o).contains(['\u{1b}', '\u{7}']), "{:?}", text(&o));
    assert!(text(&o).contains("student 's08\\x1b]2;PWNED"), "{}", text(&o));
}

#[test]
fn odd_folders_and_scripts_are_graded_as_tictac_test_runs_them() {
    use std::os::unix::ffi::OsStrExt;
    let home = temp_dir();
    let students = class(home.path());
    // A folder name that is not UTF-8 (an old zip's Latin-1 `café`).
    let latin1 = home.path().join(std::ffi::OsStr::from_bytes(b"caf\xe9"));
    fs::rename(&students[0], &latin1).expect("rename");
    // A script saved with Windows line endings: `#!/bin/sh\r`.
    let crlf = Path::new(&students[3]);
    let body = fs::read_to_string(crlf.join("ttt")).expect("read").replace('\n', "\r\n");
    fs::write(crlf.join("ttt"), body).expect("write");
    // A program that looks for the grader's folder through OLDPWD.
    let bob = Path::new(&students[1]);
    let spy = format!(
        "[ -n \"$OLDPWD\" ] && echo \"OLDPWD=$OLDPWD\" >&2\n{}",
        fs::read_to_string(bob.join("ttt")).expect("read")
    );
    fs::write(bob.join("ttt"), spy).expect("write");
    let out = home.path().join("grades");
    let o = run(
        Command::new(BIN)
            .current_dir(home.path())
            .args(["grade", "--course", "--command", "./ttt", "--out"])
            .arg(&out)
            .arg(&latin1)
            .args(&students[1..]),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    let row = |name: &str| {
        table.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{table}"))
    };
    assert!(row("caf").contains("46/46"), "{table}");
    assert!(
        row("dan smith").contains(" 0/") && row("dan smith").contains("could not start (46 tests)"),
        "{table}"
    );
    let report = fs::read_to_string(out.join("dan smith.report.txt")).expect("report");
    assert!(report.contains("could not start: ./ttt: its first line names the interpreter '/bin/sh\\r', which does not exist: the \\r is a Windows line ending"), "{report}");
    let report = fs::read_to_string(out.join("bob.report.txt")).expect("report");
    assert!(!report.contains("OLDPWD="), "{report}");
}

#[test]
fn trouble_that_is_not_the_program_s_is_never_charged_to_a_student() {
    // Out of open files at -j 200 under `ulimit -n 64`: before, every
    // student had tests failed "could not start: Too many open files", and
    // grading exited 0. A test that finds the system out of something is
    // run again once others have given it back: the class is graded right,
    // or (when it stays out) grading stops, exit 2, no grades.
    // Two students, one right and one wrong, are enough: a student's 46
    // tests run at once, past the descriptors 64 allow; the class's other
    // two only doubled the runs.
    let home = temp_dir();
    let students = &class(home.path())[..2];
    let out = home.path().join("grades");
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", "ulimit -n 64 && exec \"$@\"", "sh", BIN, "grade", "--course"])
        .args(["--command", "./ttt", "-j", "200", "--timeout", "2", "--out"])
        .arg(&out)
        .args(students);
    let o = run(&mut command, None);
    let said = text(&o);
    match o.status.code() {
        Some(0) => {
            let csv = fs::read_to_string(out.join("grades.csv")).expect("grades.csv");
            let passed: Vec<&str> = rows(&csv)[1..].iter().map(|r| r[1]).collect();
            let tests = rows(&csv)[0].len() - 5;
            let all = tests.to_string();
            assert_eq!(passed[0], all, "{csv}");
            assert!(passed[1] != all, "{csv}");
            assert!(!said.contains("could not start") && !said.contains("could not run"), "{said}");
        }
        Some(2) => {
            // Where the files ran out for good decides the words.
            let stopped = said.starts_with("error: grading stopped at ")
                && said.contains("on trouble that is not the program's: ")
                && said.contains("No grades were written");
            assert!(stopped || said.starts_with("error: cannot write "), "{said}");
            assert!(said.contains("Too many open files"), "{said}");
            assert!(!out.join("grades.csv").exists());
        }
        _ => panic!("{said}"),
    }
}

#[test]
fn a_suite_file_that_cannot_be_read_stops_grading() {
    let home = temp_dir();
    let students = class(home.path());
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "new_game(\"a\",\"b\")\n").expect("write");
    // An expected file the grader may not read: no student's failure.
    let fifo = suite.join("a.expected.txt");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let out = home.path().join("grades");
    let o = run(
        Command::new(BIN)
            .args(["grade", &path(&suite), "--command", "./ttt", "--out", &path(&out)])
            .args(&students),
        None,
    );
    let said = text(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.starts_with(
            "error: grading stopped at alice's test a, on trouble that is not the program's: "
        ),
        "{said}"
    );
    assert!(said.contains("is a FIFO, not a regular file"), "{said}");
    assert!(said.contains("Mend the suite"), "{said}");
    assert!(!out.join("grades.csv").exists());
}

/// A link in the suite that cannot be followed (a loop, a link to
/// nothing) is named in `tictac test`'s warning, not dropped silently
/// (attack 41): the tests it may stand for are not graded. A trace that
/// is a broken link, its expected file beside it, is one of them: grade
/// refused it as an expected file with no trace, "'v.txt' is beside it"
/// (attack 41's F4); `tictac test` fails its test, with no such warning.
#[test]
fn a_suite_link_that_cannot_be_followed_is_named() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "undo\n").expect("write");
    fs::write(suite.join("a.expected.txt"), "right\n").expect("write");
    std::os::unix::fs::symlink(suite.join("gone"), suite.join("more")).expect("link");
    std::os::unix::fs::symlink(suite.join("loop2"), suite.join("loop1")).expect("link");
    std::os::unix::fs::symlink(suite.join("loop1"), suite.join("loop2")).expect("link");
    std::os::unix::fs::symlink(suite.join("nowhere.txt"), suite.join("v.txt")).expect("link");
    fs::write(suite.join("v.expected.txt"), "right\n").expect("write");
    let student = home.path().join("ann");
    fs::create_dir(&student).expect("mkdir");
    script(&student, "ttt", "echo right");
    let out = home.path().join("grades");
    let o = run(
        Command::new(BIN)
            .args(["grade", &path(&suite), "--command", "./ttt", "--out", &path(&out)])
            .arg(&student),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    for name in ["loop1", "loop2", "more", "v.txt"] {
        let warning =
            format!("warning: the suite's '{}' cannot be followed (", path(&suite.join(name)));
        assert_eq!(err.matches(&warning).count(), 1, "{name}: {err}");
    }
    assert_eq!(err.matches("): left out of the grading\n").count(), 4, "{err}");
    assert!(text(&o).contains("Graded 1 student on 1 test"), "{}", text(&o));
    let o = run(
        Command::new(BIN).current_dir(&student).args(["test", "--program", "./ttt", &path(&suite)]),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("v.txt is a broken symbolic link"), "{}", text(&o));
    assert!(!text(&o).contains("has no trace"), "{}", text(&o));
}

#[test]
fn an_out_folder_in_a_student_s_folder_or_the_suite_and_overlong_names_are_refused() {
    let home = temp_dir();
    let students = class(home.path());
    let suite = home.path().join("suite");
    let o = tictac(&["course-suite", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let long = home.path().join("class").join("x".repeat(250));
    fs::create_dir(&long).expect("mkdir");
    let inside_bob = path(&Path::new(&students[1]).join("grades"));
    let inside_suite = path(&suite.join("grades"));
    // Folders not made yet are where they would be made.
    let deep_in_bob = path(&Path::new(&students[1]).join("x/y"));
    let deep_in_suite = path(&suite.join("n1/n2"));
    let up_in_bob = path(&Path::new(&students[1]).join("x/.."));
    let suite_in_bob = path(&Path::new(&students[1]).join("tests"));
    let o = tictac(&["course-suite", &suite_in_bob]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let fresh = path(&home.path().join("fresh"));
    let home_path = path(home.path());
    for (args, says) in [
        (
            vec!["--course", "--out", &inside_bob, &students[1]],
            "is inside the folder of the student 'bob', where their program runs",
        ),
        (vec![&path(&suite), "--out", &inside_suite, &students[0]], "is inside the suite"),
        (
            vec!["--course", "--out", &deep_in_bob, &students[0], &students[1]],
            "is inside the folder of the student 'bob', where their program runs",
        ),
        (vec![&path(&suite), "--out", &deep_in_suite, &students[0]], "is inside the suite"),
        // The suite in bob's folder: his program could read the answers.
        (
            vec![&suite_in_bob, "--out", &fresh, &students[0], &students[1]],
            "is inside the folder of the student 'bob', where their program runs (it could read",
        ),
        // Up from a folder not made yet: it would be bob's own folder.
        (
            vec!["--course", "--out", &up_in_bob, &students[0], &students[1]],
            "goes up (`..`) from a folder that does not exist",
        ),
        (
            vec!["--course", "--out", &fresh, &path(&long)],
            "has a name too long for its report's file name (261 bytes",
        ),
        // The students inside the suite: their files would be tests.
        (vec![&home_path, "--out", &fresh, &students[0]], "is inside the suite"),
    ] {
        let o = run(Command::new(BIN).arg("grade").args(&args).args(["--command", "./ttt"]), None);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
        assert!(!Path::new(&fresh).exists() && !Path::new(&inside_bob).exists(), "nothing made");
        assert!(!Path::new(&students[1]).join("x").exists(), "nothing made");
    }
}

#[test]
fn a_signal_mid_grading_leaves_only_whole_files() {
    let home = temp_dir();
    let students = class(home.path());
    // Slow students: about 0.1 s a test, so the signal comes mid-student.
    for student in &students {
        let ttt = Path::new(student).join("ttt");
        let body = fs::read_to_string(&ttt).expect("read").replace("exec ", "sleep 0.1; exec ");
        fs::write(&ttt, body).expect("write");
    }
    let out = home.path().join("grades");
    let tmp = home.path().join("tmp");
    fs::create_dir(&tmp).expect("mkdir");
    let mut child = Command::new(BIN)
        .env("TMPDIR", &tmp)
        .args(["grade", "--course", "--command", "./ttt", "-j", "2", "--out"])
        .arg(&out)
        .args(&students)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start");
    // Once the first student is whole, the second is under way.
    let start = std::time::Instant::now();
    while !out.join("alice.report.txt").exists() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("kill");
    let status = child.wait().expect("wait");
    assert_eq!(std::os::unix::process::ExitStatusExt::signal(&status), Some(15));
    let mut reports = 0;
    for entry in fs::read_dir(&out).expect("out") {
        let name = entry.expect("entry").file_name().to_string_lossy().into_owned();
        assert!(!name.starts_with('.'), "a hidden temporary file was left: {name}");
        let text = || fs::read_to_string(out.join(&name)).expect("read");
        if name.ends_with(".report.txt") {
            reports += 1;
            assert!(text().contains("\nTest Results: "), "{name} is cut short");
        } else if name.ends_with(".junit.xml") {
            assert!(text().ends_with("</testsuites>\n"), "{name} is cut short");
        }
    }
    assert!((1..4).contains(&reports), "the signal came mid-class: {reports} reports");
    assert!(!out.join("grades.csv").exists());
    // The runs' scratch folders (each a private copy of its trace) are gone.
    let left: Vec<_> = fs::read_dir(&tmp).expect("tmp").flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
}

/// A program that goes looking for the course suite's answers (in the
/// gradebook, in the temporary folder) finds none while it runs, so it can
/// neither copy them nor change them for the students after it; the
/// gradebook holds the suite once grading is done.
#[cfg(unix)]
#[test]
fn the_course_suite_s_answers_are_nowhere_a_program_can_find_them() {
    let home = temp_dir();
    let students = class(home.path());
    let tmp = home.path().join("tmp");
    fs::create_dir(&tmp).expect("mkdir");
    // Where the programs' user (grading as root) can write, as in /tmp.
    for (folder, mode) in [(home.path(), 0o755), (tmp.as_path(), 0o1777)] {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(folder, fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let out = home.path().join("grades");
    let found = home.path().join("found.txt");
    fs::write(&found, "").expect("write");
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&found, fs::Permissions::from_mode(0o666)).expect("chmod");
    }
    let snoop = format!(
        "find '{}' '{}' -name '*.expected.txt' >> '{}' 2>/dev/null\nexec '{}' \"$@\"",
        path(&tmp),
        path(&out),
        path(&found),
        model_program()
    );
    script(Path::new(&students[0]), "snoop", &snoop);
    let mut grade = Command::new(BIN);
    grade.env("TMPDIR", &tmp).args(["grade", "--course", "--command", "./snoop", "--out"]);
    let o = run(grade.arg(&out).arg(&students[0]), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("alice    46/46"), "{}", text(&o));
    let answers = fs::read_to_string(&found).expect("the program ran");
    assert_eq!(answers.lines().next(), None, "answers found while grading");
    let written = fs::read_dir(out.join("course-suite")).expect("the suite").count();
    assert_eq!(written, 92, "traces and expected outputs, after grading");
    fs::remove_dir_all(&out).expect("rm");
    let mut test = Command::new(BIN);
    test.env("TMPDIR", &tmp).current_dir(&students[0]);
    let o = run(test.args(["test", "--course", "--program", "./snoop"]), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let answers = fs::read_to_string(&found).expect("the program ran");
    assert_eq!(answers.lines().next(), None, "answers found in the scratch suite");
}

/// The progress bar is drawn over itself and cleared before the table,
/// whatever the names it shows (a CJK name, two columns a character, left
/// a line of the bar behind at each redraw).
#[cfg(unix)]
#[test]
fn the_progress_bar_leaves_nothing_behind_on_a_terminal() {
    use crate::common::{Tmux, tmux_available};
    if !tmux_available() {
        return;
    }
    let home = temp_dir();
    let mut folders = Vec::new();
    for name in ["李 小龙", "a_good"] {
        let folder = home.path().join(name);
        fs::create_dir(&folder).expect("mkdir");
        // Slow enough for the bar to be drawn several times.
        script(&folder, "ttt", &format!("sleep 0.03; exec '{}' \"$@\"", model_program()));
        folders.push(format!("'{}'", path(&folder)));
    }
    let out = path(&home.path().join("g"));
    let command = format!(
        "{BIN} grade --course {} --command ./ttt --out '{out}' -j 2; sleep 30",
        folders.join(" ")
    );
    let tmux = Tmux::start("grade-bar", 120, 40, &command);
    let screen = tmux.wait_for("Graded 2 students");
    assert!(!screen.contains(" tests, "), "a line of the bar is left:\n{screen}");
    // Under the warnings grading as root gives (tictac's executable here,
    // the students' folders), the table first.
    let table = screen.lines().skip_while(|l| l.starts_with("warning: ") || !l.contains("passed"));
    assert!(table.clone().next().is_some_and(|l| l.starts_with("student  passed")), "{screen}");
    drop(tmux);

    // A signal mid-grading takes the bar off the screen (Ctrl-C's echo,
    // `^C`, wraps below the bar, which fills its line: that line stays).
    let (out, pid) = (path(&home.path().join("g2")), path(&home.path().join("pid")));
    let slow = folders.iter().map(|f| f.replace("sleep 0.03", "")).collect::<Vec<_>>();
    for folder in &folders {
        let folder = folder.trim_matches('\'');
        script(Path::new(folder), "ttt", &format!("sleep 0.3; exec '{}' \"$@\"", model_program()));
    }
    let command = format!(
        "{BIN} grade --course {} --command ./ttt --out '{out}' -j 2 & echo $! > '{pid}'; wait $!; echo exited $?; sleep 30",
        slow.join(" ")
    );
    let tmux = Tmux::start("grade-bar-signal", 120, 40, &command);
    tmux.wait_for(" tests, ");
    let pid = fs::read_to_string(&pid).expect("pid");
    let killed = Command::new("kill").args(["-TERM", pid.trim()]).status().expect("kill");
    assert!(killed.success());
    let screen = tmux.wait_for("exited 143");
    assert!(!screen.contains(" tests, "), "a line of the bar is left:\n{screen}");
}

/// A suite of fractional points, one test hidden: the sums are exact, the
/// CSV holds the points earned per test, and the hidden test's expected
/// output is in no file a student receives, while the instructor's own
/// reports keep it.
#[test]
fn fractional_points_add_up_and_a_hidden_test_s_answer_reaches_no_student() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    let hidden = "-- points: 2.5\n-- visibility: hidden\nnew_game(\"Secretia\",\"Hush\")\nplay(\"Secretia\",5)\n";
    fs::write(suite.join("a.txt"), hidden).expect("write");
    fs::write(suite.join("b.txt"), "-- points: 0.25\nundo\n").expect("write");
    fs::write(suite.join("c.txt"), "-- points: 4\nredo\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    // The answer only the hidden test's expected output holds.
    let answer = "Hush plays next";
    assert!(fs::read_to_string(suite.join("a.expected.txt")).expect("a").contains(answer));
    let class = home.path().join("class");
    let (alice, bob) = (class.join("alice"), class.join("bob"));
    for dir in [&alice, &bob] {
        fs::create_dir_all(dir).expect("mkdir");
    }
    // A correct program (tictac answers nothing for a program graded as root).
    let model = model_program();
    script(&alice, "ttt", &format!("exec '{model}' \"$@\""));
    let wrong = format!(
        "case \"$2\" in *c.txt) exec '{model}' \"$@\";; esac\necho wrong; echo 'my own trouble' >&2; exit 1"
    );
    script(&bob, "ttt", &wrong);
    let out = home.path().join("grades");
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--command",
        "./ttt",
        "--out",
        &path(&out),
        &path(&alice),
        &path(&bob),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let csv = fs::read_to_string(out.join("grades.csv")).expect("csv");
    assert_eq!(
        csv,
        "student,passed,total,points,max_points,a,b,c\nalice,3,3,6.75,6.75,2.5,0.25,4\nbob,1,3,4,6.75,0,0,4\n"
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("grades.json")).expect("json"))
            .expect("JSON");
    assert_eq!((&json["max_points"], &json["students"][0]["points"]), (&6.75.into(), &6.75.into()));
    assert_eq!(json["students"][1]["max_points"], 6.75, "{json}");
    assert_eq!(json["students"][1]["tests"][2]["points"], 4, "{json}");
    assert_eq!(json["tests"][0]["visibility"], "hidden", "{json}");
    assert!(text(&o).contains("bob      1/3     4/6.75"), "{}", text(&o));
    let tests_csv = fs::read_to_string(out.join("tests.csv")).expect("tests.csv");
    assert!(tests_csv.contains("\nb,0.25,1,2\n"), "{tests_csv}");

    // What bob receives: the verdict, the line, his own standard error.
    for file in ["bob.report.txt", "bob.junit.xml"] {
        let shown = fs::read_to_string(out.join(file)).expect(file).replace("&apos;", "'");
        assert!(!shown.contains(answer), "{file}: {shown}");
        assert!(
            shown.contains(
                "the output differs from line 1 on (this test's expected output is hidden)"
            ),
            "{file}: {shown}"
        );
        assert!(shown.contains("my own trouble"), "{file}: {shown}");
        assert!(shown.contains("start new game"), "the visible test keeps its diff: {shown}");
    }
    // Gradescope's results.json hides it too; the instructor's reports keep it.
    let args = ["test", &path(&suite), "--program", "./ttt", "--format", "gradescope"];
    let o = run(Command::new(BIN).current_dir(&bob).args(args), None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let json = String::from_utf8_lossy(&o.stdout);
    assert!(!json.contains(answer), "{json}");
    let results: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(results["stdout_visibility"], "hidden", "{results}");
    assert_eq!(results["score"], 4, "{results}");
    assert_eq!(results["tests"][0]["visibility"], "hidden", "{results}");
    assert_eq!(
        (&results["tests"][0]["max_score"], &results["tests"][1]["max_score"]),
        (&2.5.into(), &0.25.into())
    );
    assert_eq!(results["tests"][1]["visibility"], "visible", "{results}");
    assert!(results["tests"][0]["output"].as_str().expect("output").contains("my own trouble"));
    assert!(String::from_utf8_lossy(&o.stderr).contains(answer), "the people's report keeps it");
    for format in ["human", "tap", "junit"] {
        let args = ["test", &path(&suite), "--program", "./ttt", "--format", format];
        let o = run(Command::new(BIN).current_dir(&bob).args(args), None);
        assert!(
            text(&o).contains(answer) || String::from_utf8_lossy(&o.stderr).contains(answer),
            "{format}: {}",
            text(&o)
        );
    }
}

/// A regrade (`--update`): the students named are graded again into the
/// gradebook, every other row and file stays byte for byte, a new student
/// goes in name order; a gradebook of another suite is refused.
#[test]
fn a_regrade_replaces_only_the_students_named_and_refuses_another_suite() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "-- points: 1.5\nnew_game(\"a\",\"b\")\n").expect("write");
    fs::write(suite.join("b.txt"), "undo\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let student = |name: &str, correct: bool| {
        let dir = home.path().join("class").join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        let body = match correct {
            true => format!("exec '{}' \"$@\"", model_program()),
            false => "echo wrong".to_string(),
        };
        script(&dir, "ttt", &body);
        path(&dir)
    };
    let (alice, bob, dan) = (student("alice", true), student("bob", false), student("dan", true));
    let out = path(&home.path().join("grades"));
    let grade = |extra: &[&str]| {
        let mut args = vec!["grade", "--command", "./ttt", "--out", &out];
        args.extend(extra);
        tictac(&args)
    };
    let suite_arg = path(&suite);
    let o = grade(&[&suite_arg, &alice, &bob, &dan]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let read = |file: &str| fs::read(Path::new(&out).join(file)).expect(file);
    let before: Vec<Vec<u8>> =
        ["alice.report.txt", "alice.junit.xml", "dan.report.txt"].map(read).into();
    let csv = String::from_utf8(read("grades.csv")).expect("csv");
    assert_eq!(
        csv,
        "student,passed,total,points,max_points,a,b\nalice,2,2,2.5,2.5,1.5,1\nbob,0,2,0,2.5,0,0\ndan,2,2,2.5,2.5,1.5,1\n"
    );

    // Without --update the gradebook is never written to; says how to.
    let o = grade(&[&suite_arg, &bob]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("or add --update to regrade the students named into it"));

    // Bob resubmits a correct program; carol is new.
    let bob = student("bob", true);
    let carol = student("carol", false);
    let o = grade(&[&suite_arg, &bob, &carol, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("Regraded 2 students on 2 tests of"), "{}", text(&o));
    assert!(text(&o).contains("which now holds the grades of 4 students."), "{}", text(&o));
    let csv = String::from_utf8(read("grades.csv")).expect("csv");
    assert_eq!(
        csv,
        "student,passed,total,points,max_points,a,b\nalice,2,2,2.5,2.5,1.5,1\nbob,2,2,2.5,2.5,1.5,1\ncarol,0,2,0,2.5,0,0\ndan,2,2,2.5,2.5,1.5,1\n"
    );
    let after: Vec<Vec<u8>> =
        ["alice.report.txt", "alice.junit.xml", "dan.report.txt"].map(read).into();
    assert_eq!(before, after, "the others' files are untouched");
    let bob_report = String::from_utf8(read("bob.report.txt")).expect("report");
    assert!(bob_report.contains("Test Results: 2/2 passed."), "{bob_report}");
    assert!(Path::new(&out).join("carol.junit.xml").exists());
    let tests_csv = String::from_utf8(read("tests.csv")).expect("tests.csv");
    assert!(tests_csv.contains("a,1.5,3,4\n"), "{tests_csv}");
    let json: serde_json::Value = serde_json::from_slice(&read("grades.json")).expect("JSON");
    assert!(json["suite"].as_str().expect("suite").starts_with("sha256:"), "{json}");
    assert_eq!(json["students"].as_array().expect("students").len(), 4);
    // A regrade of a regrade holds the same rows.
    let o = grade(&[&suite_arg, &bob, "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(String::from_utf8(read("grades.csv")).expect("csv"), csv);

    // Another suite (an expected file changed) is refused, nothing written.
    let grades_json = read("grades.json");
    fs::write(suite.join("b.expected.txt"), "changed\n").expect("write");
    let o = grade(&[&suite_arg, &bob, "--update"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("holds the grades of another suite (sha256:"), "{}", text(&o));
    assert_eq!(read("grades.json"), grades_json);
    // A folder that is no gradebook is refused too.
    let empty = home.path().join("empty");
    fs::create_dir(&empty).expect("mkdir");
    let o = tictac(&[
        "grade",
        "--command",
        "./ttt",
        "--out",
        &path(&empty),
        &suite_arg,
        &bob,
        "--update",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("holds no grades.json to update"), "{}", text(&o));
}

/// A build step (`--build`): run once in each student's folder before
/// their tests, as their programs run; a build that fails or times out
/// gives the student 0, `build failed` and the end of what it printed, and
/// none of their tests runs. `tictac test --program` takes it too.
#[test]
fn a_build_step_runs_before_the_tests_and_a_failed_build_scores_zero() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "undo\n").expect("write");
    fs::write(suite.join("b.txt"), "redo\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let class = home.path().join("class");
    let student = |name: &str, build: &str| {
        let dir = class.join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(dir.join("ttt.src"), format!("#!/bin/sh\nexec '{}' \"$@\"\n", model_program()))
            .expect("src");
        script(&dir, "build.sh", build);
        path(&dir)
    };
    let alice = student("alice", "cp ttt.src ttt && chmod +x ttt && echo built");
    let bob = student("bob", "echo compiling; echo 'ttt.c:3: error: expected ;' >&2; exit 2");
    let carol = student("carol", "sleep 30");
    let out = home.path().join("grades");
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--command",
        "./ttt",
        "--build",
        "sh build.sh",
        "--build-timeout",
        "1",
        "--out",
        &path(&out),
        &alice,
        &bob,
        &carol,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    let line = |who: &str| table.lines().find(|l| l.starts_with(who)).expect(who).to_string();
    assert!(line("alice").contains("2/2"), "{table}");
    assert!(line("bob").contains("0/2"), "{table}");
    assert!(
        line("bob").contains("build failed (exited with status 2): ttt.c:3: error: expected ;"),
        "{table}"
    );
    assert!(line("carol").contains("build failed (timed out after 1 s)"), "{table}");
    let csv = fs::read_to_string(out.join("grades.csv")).expect("csv");
    assert!(csv.contains("\nbob,0,2,0,2,0,0\n"), "{csv}");
    let report = fs::read_to_string(out.join("bob.report.txt")).expect("report");
    assert!(
        report.starts_with("build failed: exited with status 2\n     command: sh build.sh\n"),
        "{report}"
    );
    assert!(report.contains("compiling") && report.contains("ttt.c:3: error"), "{report}");
    assert!(report.contains("FAIL a (0.0 ms)\n     not run: the build failed"), "{report}");
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("grades.json")).expect("json"))
            .expect("JSON");
    let bob_json = &json["students"][1];
    assert_eq!(bob_json["build"]["failure"], "exited with status 2", "{json}");
    assert_eq!(bob_json["tests"][0]["kind"], "build failed", "{json}");
    assert!(!Path::new(&bob).join("ttt").exists());
    // Regraded, the build's failure is read back and kept.
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--command",
        "./ttt",
        "--build",
        "sh build.sh",
        "--build-timeout",
        "1",
        "--out",
        &path(&out),
        &alice,
        "--update",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("build failed (exited with status 2)"), "{}", text(&o));

    // tictac test --program --build, in the folder it runs in.
    let args = ["test", &path(&suite), "--program", "./ttt", "--build", "sh build.sh"];
    let o = run(Command::new(BIN).current_dir(&bob).args(args), None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).starts_with("build failed: exited with status 2\n"), "{}", text(&o));
    assert!(text(&o).contains("Test Results: 0/2 passed."), "{}", text(&o));
    let mut args = args.to_vec();
    args.extend(["--format", "gradescope"]);
    let o = run(Command::new(BIN).current_dir(&bob).args(&args), None);
    let results: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(results["score"], 0, "{results}");
    assert!(results["output"].as_str().expect("output").contains("ttt.c:3: error"), "{results}");
    assert!(
        results["tests"][0]["output"].as_str().expect("o").contains("not run: the build failed")
    );
    let o = run(
        Command::new(BIN).current_dir(&alice).args([
            "test",
            &path(&suite),
            "--program",
            "./ttt",
            "--build",
            "sh build.sh",
        ]),
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = tictac(&["test", &path(&suite), "--build", "make"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("--build builds the program --program runs, so it needs --program"));
}

/// As root, a student's build runs as the programs' user, in a private copy
/// of their folder that their tests then run in: a build script cannot act
/// as root (nor read what root keeps from the programs), and the student's
/// folder is left as it was.
#[test]
fn as_root_a_build_runs_as_the_programs_user_in_a_copy_of_the_folder() {
    if !rustix::process::getuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "this test needs root under CI");
        return;
    }
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    fs::write(suite.join("a.txt"), "undo\n").expect("write");
    assert_eq!(tictac(&["test", "--bless", &path(&suite)]).status.code(), Some(0));
    let alice = home.path().join("class").join("alice");
    fs::create_dir_all(&alice).expect("mkdir");
    fs::write(alice.join("ttt.src"), format!("#!/bin/sh\nexec '{}' \"$@\"\n", model_program()))
        .expect("src");
    script(
        &alice,
        "build.sh",
        "if [ \"$(id -u)\" = 0 ]; then echo 'built as root' >&2; exit 3; fi\n\
         cp ttt.src ttt && chmod +x ttt",
    );
    let out = home.path().join("grades");
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--command",
        "./ttt",
        "--build",
        "sh build.sh",
        "--out",
        &path(&out),
        &path(&alice),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    assert!(table.lines().any(|l| l.starts_with("alice") && l.contains("1/1")), "{table}");
    assert!(!alice.join("ttt").exists(), "the build ran in a copy");
}

/// The guide's demo suite in `home/suite`: three traces worth 2.5 (hidden),
/// 0.25 and 4 points, blessed.
pub(crate) fn demo_suite(home: &Path) -> PathBuf {
    let suite = home.join("suite");
    fs::create_dir(&suite).expect("mkdir");
    let game = "new_game(\"Ann\",\"Bob\")\nplay(\"Ann\",5)\n";
    let traces = [
        (
            "01_hidden_win",
            "-- points: 2.5\n-- visibility: hidden\nnew_game(\"Ann\",\"Bob\")\nplay(\"Ann\",1)\nplay(\"Bob\",4)\nplay(\"Ann\",2)\nplay(\"Bob\",5)\nplay(\"Ann\",3)\n".to_string(),
        ),
        ("02_undo", format!("-- points: 0.25\n{game}undo\n")),
        ("03_redo", format!("-- points: 4\n{game}undo\nplay(\"Ann\",1)\nredo\n")),
    ];
    for (name, trace) in traces {
        fs::write(suite.join(format!("{name}.txt")), trace).expect("write");
    }
    let o = tictac(&["test", "--bless", &path(&suite)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    suite
}

/// The guide's regrade session (docs/guide/grade.md, "Regrades") is what
/// `tictac grade --update` prints, run as it shows: Alice and Bob graded,
/// then Bob (mended) and Carol (late) regraded, then the suite changed.
#[test]
fn the_guides_regrade_session_is_what_grade_prints() {
    let home = temp_dir();
    let suite = demo_suite(home.path());
    let student = |name: &str, mistake: &str| {
        let dir = home.path().join("submissions").join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        script(&dir, "ttt", &format!("exec '{}' {mistake} \"$@\"", path(&mutant())));
    };
    student("alice", "none");
    student("bob", "redo-kept");
    let in_home = |args: &[&str]| run(Command::new(BIN).current_dir(home.path()).args(args), None);
    let first = ["grade", "suite", "submissions/alice", "submissions/bob", "--command", "./ttt"];
    let o = in_home(&first);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    student("bob", "none");
    student("carol", "none");
    let guide = crate::docs::read("docs/guide/grade.md");
    let session = |command: &str| crate::docs::session_block(&guide, command);
    // What varies: the folder the session ran in.
    let printed = |o: &std::process::Output| -> Vec<String> {
        let shown = text(o).replace(&path(home.path()), "/tmp/demo");
        shown.lines().map(|l| l.trim().to_string()).collect()
    };
    let update = "tictac grade suite submissions/bob submissions/carol --command ./ttt --update";
    let words: Vec<&str> = update.split(' ').skip(1).collect();
    let o = in_home(&words);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert_eq!(printed(&o), session(update), "the guide's regrade");
    let csv = fs::read_to_string(home.path().join("grades/grades.csv")).expect("csv");
    let csv: Vec<String> = csv.lines().map(String::from).collect();
    assert_eq!(csv, session("head -4 grades/grades.csv"));
    fs::write(suite.join("02_undo.expected.txt"), "changed\n").expect("write");
    let again = "tictac grade suite submissions/bob --command ./ttt --update";
    let words: Vec<&str> = again.split(' ').skip(1).collect();
    let o = in_home(&words);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(printed(&o), session(again), "the guide's refusal");
}

/// Issue 34's new-instructor findings on the gradebook: a test named as one
/// of grades.csv's first columns is refused before anything runs; a regrade
/// with another --command or --build than the gradebook's is refused; no
/// "names no file" note under --build, which makes the file; the closing
/// line says what the suite is worth and how many tests are hidden.
#[test]
fn the_gradebook_says_what_it_was_graded_with_and_reads_one_way() {
    let home = temp_dir();
    let suite = demo_suite(home.path());
    let alice = home.path().join("class").join("alice");
    fs::create_dir_all(&alice).expect("mkdir");
    script(&alice, "ttt", &format!("exec '{}' none \"$@\"", path(&mutant())));
    fs::write(alice.join("ttt.src"), fs::read(alice.join("ttt")).expect("ttt")).expect("src");
    let out = home.path().join("grades");
    let grade = |extra: &[&str]| {
        let mut args = vec!["grade", path(&suite).leak(), "--out", path(&out).leak()];
        args.push(path(&alice).leak());
        args.extend(extra);
        tictac(&args)
    };
    let o = grade(&["--command", "./ttt"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains(&format!(
            "Graded 1 student on 3 tests of '{}' (6.75 points, 1 hidden): ",
            path(&suite)
        )),
        "{}",
        text(&o)
    );
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("grades.json")).expect("json"))
            .expect("JSON");
    assert_eq!(json["command"], serde_json::json!(["./ttt"]), "{json}");
    assert_eq!(json["build"], serde_json::Value::Null, "{json}");
    assert_eq!(json["timeout"], 10.0, "{json}");

    // Regraded with another command, a build or another --timeout (attack
    // 40's E2: a slow program then timed out): refused, the book unchanged.
    let before = fs::read(out.join("grades.json")).expect("json");
    let others = [
        &["--command", "./ttt none"][..],
        &["--command", "./ttt", "--build", "true"],
        &["--command", "./ttt", "--timeout", "0.3"],
    ];
    for other in others {
        let mut args = other.to_vec();
        args.push("--update");
        let o = grade(&args);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let said = text(&o);
        let held = "was graded with --command './ttt' and no --build, --timeout 10";
        assert!(said.contains(held) && said.contains("; this regrade gives --command"), "{said}");
    }
    let o = grade(&["--command", "./ttt", "--timeout", "0.3", "--update"]);
    assert!(
        text(&o).contains("this regrade gives --command './ttt' and no --build, --timeout 0.3"),
        "{}",
        text(&o)
    );
    assert_eq!(fs::read(out.join("grades.json")).expect("json"), before);
    let o = grade(&["--command", "./ttt", "--update"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("(6.75 points, 1 hidden) into "), "{}", text(&o));

    // Under --build the command's file is the build's to make: no note
    // that it names none (as root the build runs in a copy of the folder).
    fs::remove_file(alice.join("ttt")).expect("rm");
    script(&alice, "build.sh", "cp ttt.src ttt && chmod +x ttt");
    let built = home.path().join("built");
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--out",
        &path(&built),
        &path(&alice),
        "--command",
        "./ttt",
        "--build",
        "sh build.sh",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("alice    3/3"), "{}", text(&o));
    assert!(!text(&o).contains("names no file"), "{}", text(&o));

    // A test named as a column of grades.csv: refused before anything runs.
    fs::copy(suite.join("02_undo.txt"), suite.join("Points.txt")).expect("cp");
    fs::copy(suite.join("02_undo.expected.txt"), suite.join("Points.expected.txt")).expect("cp");
    let named = home.path().join("named");
    let o = tictac(&[
        "grade",
        &path(&suite),
        "--out",
        &path(&named),
        &path(&alice),
        "--command",
        "./ttt",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("error: the test 'Points' has the name of one of grades.csv's first columns (student,passed,total,points,max_points): rename its trace"),
        "{}",
        text(&o)
    );
    assert!(!named.join("grades.csv").exists());
}

/// A suite grade would stop on (an expected file missing) or fail every
/// student on (an expected file saved with CRLF line endings, with a byte
/// order mark or as UTF-16: attack 40's E5) is refused
/// before anything runs, by grade and by autograder before it zips it.
#[test]
fn grade_and_autograder_refuse_a_suite_with_an_expected_file_missing_crlf_or_utf16() {
    let home = temp_dir();
    let suite = demo_suite(home.path());
    let alice = home.path().join("class").join("alice");
    fs::create_dir_all(&alice).expect("mkdir");
    script(&alice, "ttt", &format!("exec '{}' none \"$@\"", path(&mutant())));
    let expected = suite.join("02_undo.expected.txt");
    let good = fs::read(&expected).expect("expected");
    let crlf = String::from_utf8(good.clone()).expect("utf-8").replace('\n', "\r\n");
    let bom = [&b"\xEF\xBB\xBF"[..], &good].concat();
    let utf16: Vec<u8> = good.iter().flat_map(|&b| [b, 0]).collect();
    let cases: [(Option<&[u8]>, &str); 4] = [
        (None, "does not exist: each trace needs its expected output beside it"),
        (Some(crlf.as_bytes()), "has Windows line endings (CRLF) on every line"),
        (
            Some(&bom),
            "begins with a UTF-8 byte order mark (EF BB BF): its bytes are expected as they are, which no ETF program prints, so no program would pass it; save it as plain UTF-8",
        ),
        (
            Some(&utf16),
            "is UTF-16 (little-endian, by the NUL byte beside each of its letters): its bytes",
        ),
    ];
    for (k, (content, why)) in cases.into_iter().enumerate() {
        match content {
            None => fs::remove_file(&expected).expect("rm"),
            Some(bytes) => fs::write(&expected, bytes).expect("write"),
        }
        let said = format!("error: the expected file '{}' {why}", path(&expected));
        let out = home.path().join(format!("grades{k}"));
        let args = ["grade", &path(&suite), "--command", "./ttt", "--out", &path(&out)];
        let o = tictac(&[&args[..], &[&path(&alice)]].concat());
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(&said), "{}", text(&o));
        assert!(!out.join("alice.report.txt").exists(), "refused before anything ran");
        let zip = home.path().join(format!("ag{k}.zip"));
        let o = tictac(&["autograder", &path(&suite), "--command", "./ttt", "--out", &path(&zip)]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(text(&o).contains(&said), "{}", text(&o));
        assert!(!zip.exists());
    }
    fs::write(&expected, good).expect("write");
    let zip = home.path().join("ag.zip");
    let o = crate::common::autograder(&[&path(&suite), "--command", "./ttt", "--out", &path(&zip)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

/// Graded as root, a student whose folder holds a course repository's
/// history (a `.git` of 2,100 files) is graded: the history is left out of
/// each test's copy, which no program needs (finding A11: 0/3, never run).
#[test]
fn as_root_a_folder_with_a_large_git_history_is_graded() {
    if !rustix::process::getuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "this test needs root under CI");
        return;
    }
    let home = temp_dir();
    let suite = demo_suite(home.path());
    let carol = home.path().join("class").join("carol");
    let objects = carol.join(".git").join("objects");
    fs::create_dir_all(&objects).expect("mkdir");
    for k in 0..2_100 {
        fs::write(objects.join(k.to_string()), "").expect("write");
    }
    script(&carol, "ttt", &format!("exec '{}' none \"$@\"", path(&mutant())));
    let out = home.path().join("grades");
    let args = ["grade", &path(&suite), &path(&carol), "--command", "./ttt", "--out", &path(&out)];
    let o = tictac(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let row = text(&o).lines().find(|l| l.starts_with("carol")).map(str::to_owned);
    assert!(row.is_some_and(|row| row.contains("3/3")), "{}", text(&o));
}

/// Graded as root, a student whose folder is too large to copy for each
/// test (more than 2,000 entries) fails their own tests, their row saying
/// why; the rest of the class is graded (it stopped the whole class). A
/// warning under the table says that student is not graded, and grading
/// exits 1 (it said nothing and exited 0: A11).
#[test]
fn as_root_a_folder_too_large_to_copy_fails_that_student_only() {
    if !rustix::process::getuid().is_root() {
        assert!(std::env::var_os("CI").is_none(), "this test needs root under CI");
        return;
    }
    let home = temp_dir();
    let suite = demo_suite(home.path());
    let class = home.path().join("class");
    let student = |name: &str| {
        let dir = class.join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        script(&dir, "ttt", &format!("exec '{}' none \"$@\"", path(&mutant())));
        dir
    };
    let (alice, bob) = (student("alice"), student("bob"));
    fs::create_dir(bob.join("many")).expect("mkdir");
    for k in 0..2_000 {
        fs::write(bob.join("many").join(k.to_string()), "").expect("write");
    }
    let out = home.path().join("grades");
    let o = tictac(&[
        "grade",
        &path(&suite),
        &path(&alice),
        &path(&bob),
        "--command",
        "./ttt",
        "--out",
        &path(&out),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let table = text(&o);
    let line = |who: &str| table.lines().find(|l| l.starts_with(who)).expect(who).to_string();
    assert!(line("alice").contains("3/3"), "{table}");
    assert!(line("bob").contains("-/3     not graded"), "{table}");
    assert!(
        line("bob").contains(&format!(
            "could not run (3 tests): not run: {} cannot be copied for nobody to run the program in (it holds more than 2000 files",
            path(&bob)
        )),
        "{table}"
    );
    assert!(
        table.contains("warning: 1 student not graded, no test of theirs run: bob (not run: ")
            && table.contains("their cells in the gradebook are empty, no grade;"),
        "{table}"
    );
    // No grade of 0 in the gradebook: empty cells, null points, the reason
    // (A11's rows); kept so by a regrade of another student.
    let not_graded = |out: &Path| {
        let csv = fs::read_to_string(out.join("grades.csv")).expect("grades.csv");
        assert!(csv.lines().any(|l| l == "bob,,3,,6.75,,,"), "{csv}");
        let json = fs::read_to_string(out.join("grades.json")).expect("grades.json");
        let json: serde_json::Value = serde_json::from_str(&json).expect("json");
        let bob = &json["students"][1];
        assert!(bob["points"].is_null() && bob["passed"].is_null(), "{bob:#}");
        assert!(bob["tests"][0]["points"].is_null(), "{bob:#}");
        let why = bob["not_graded"].as_str().expect("why");
        assert!(why.contains("cannot be copied for nobody"), "{why}");
    };
    not_graded(&out);
    let args = ["grade", &path(&suite), &path(&alice), "--command", "./ttt", "--update"];
    let o = tictac(&[&args[..], &["--out", &path(&out)]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    not_graded(&out);
}

/// `sh -c SCRIPT` in a mount namespace of its own, as root, its `/tmp` (or
/// another folder SCRIPT mounts) a small tmpfs that goes with it. `None`,
/// said, where one cannot be made (not root, no `unshare`): under CI, that
/// fails the test.
fn in_own_mounts(script: &str) -> Option<std::process::Output> {
    let tried = Command::new("unshare").args(["--mount", "true"]).output();
    if !rustix::process::getuid().is_root() || !tried.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(std::env::var_os("CI").is_none(), "CI runs this as root, to mount a tmpfs");
        eprintln!("skipped: mounting a tmpfs needs root and unshare");
        return None;
    }
    // TMPDIR unset: tictac's own scratch folders are in that /tmp too.
    let mut command = Command::new("unshare");
    Some(run(command.args(["--mount", "sh", "-c", script]).env_remove("TMPDIR"), None))
}

/// A student whose program fills /tmp (a file it leaves there, `cat
/// /dev/zero > /tmp/hog`): before, the next student's copy found no room
/// and grading stopped, blamed on that student's first test. Now what the
/// programs' user left there is removed when the student is done (and
/// whenever a run finds no room), said in their row and report; the others
/// are graded as ever. A gradebook on a full disk stops grading, exit 2,
/// with no half-written file. An 8 MiB tmpfs on /tmp, as root.
#[test]
fn as_root_a_program_that_fills_tmp_is_told_so_and_the_next_student_is_graded() {
    // Out of /tmp, which the tmpfs hides.
    let home = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("dir");
    let suite = demo_suite(home.path());
    let class = home.path().join("class");
    let student = |name: &str, first: &str| {
        let dir = class.join(name);
        fs::create_dir_all(&dir).expect("mkdir");
        script(&dir, "ttt", &format!("{first}\nexec '{}' none \"$@\"", path(&mutant())));
        dir
    };
    let alice = student("alice", "cat /dev/zero > /tmp/hog.$$ 2>/dev/null");
    // Bob's folder takes more room than the hog left.
    let bob = student("bob", "");
    fs::write(bob.join("notes.bin"), vec![7u8; 600_000]).expect("write");
    let carol = student("carol", "");
    let out = home.path().join("grades");
    let grade = format!(
        "mount -t tmpfs -o size=8m tmpfs /tmp && exec '{BIN}' grade '{}' '{}' '{}' '{}' \
         --command ./ttt --out '{}'",
        path(&suite),
        path(&alice),
        path(&bob),
        path(&carol),
        path(&out)
    );
    let Some(o) = in_own_mounts(&grade) else { return };
    let table = text(&o);
    assert_eq!(o.status.code(), Some(0), "{table}{}", String::from_utf8_lossy(&o.stderr));
    let line = |who: &str| table.lines().find(|l| l.starts_with(who)).expect(who).to_string();
    // Her program prints the right answers once /tmp is full; her runs'
    // own scratch folders, given to nobody, are never taken for leftovers.
    assert!(
        line("alice").contains("6.75/6.75") && line("alice").contains("filled /tmp ("),
        "{table}"
    );
    assert!(line("alice").ends_with(" left there, removed)"), "{table}");
    for who in ["bob", "carol"] {
        assert!(line(who).ends_with("6.75/6.75"), "{table}");
    }
    let report = fs::read_to_string(out.join("alice.report.txt")).expect("report");
    assert!(report.contains("note: your programs wrote "), "{report}");
    assert!(
        report.contains(" to /tmp and left it there (/tmp/hog.")
            && report.contains("which filled the disk: tictac removed it"),
        "{report}"
    );
    let json = fs::read_to_string(out.join("grades.json")).expect("grades.json");
    assert!(json.contains("\"left\": \"filled /tmp ("), "{json}");
    // The gradebook's own disk full: grading stops, nothing half-written.
    let full = home.path().join("full");
    fs::create_dir(&full).expect("mkdir");
    let grade = format!(
        "mount -t tmpfs -o size=64k tmpfs '{0}' && head -c 65536 /dev/zero > '{0}/fill'; \
         '{BIN}' grade '{1}' '{2}' --command ./ttt --out '{0}/grades' 2>/dev/null; s=$?; \
         ls -A '{0}/grades' >&2; exit $s",
        path(&full),
        path(&suite),
        path(&bob),
    );
    let o = in_own_mounts(&grade).expect("mounted above");
    let (said, left) = (text(&o), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.starts_with("error: cannot write '") && said.contains("No space left on device"),
        "{said}"
    );
    assert_eq!(left, "", "the gradebook's folder is left empty");
}

/// A grading killed outright (SIGKILL) leaves `.tictac-grading` and the
/// hidden half-written files it was writing: the refusal names them and
/// the command that removes them, so that following it makes the folder
/// usable (the tester's A3).
#[test]
fn a_killed_grading_s_hidden_leftovers_are_named_with_how_to_remove_them() {
    let home = temp_dir();
    let student = home.path().join("ann");
    fs::create_dir(&student).expect("mkdir");
    script(&student, "ttt", "exit 3");
    let out = home.path().join("g");
    fs::create_dir(&out).expect("mkdir");
    fs::write(out.join(".tictac-grading"), "").expect("write");
    fs::write(out.join(".ann.report.txt.tictac-yvSCAa"), "").expect("write");
    let (out_arg, student) = (path(&out), path(&student));
    let args = ["grade", "--course", "--command", "./ttt", "--out", &out_arg, &student];
    let o = tictac(&args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let rm = format!("`rm -f {out_arg}/.*.tictac-*`");
    let said = format!("remove that file and the 1 hidden half-written file it left, {rm}");
    assert!(text(&o).contains(&said), "{}", text(&o));
    fs::remove_file(out.join(".tictac-grading")).expect("rm");
    let o = tictac(&args);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let said = format!(
        "holds only the 1 hidden half-written file of a grading that was killed \
         (.ann.report.txt.tictac-yvSCAa): {rm} empties it"
    );
    assert!(text(&o).contains(&said), "{}", text(&o));
}

/// `grade --course` expects of each test the status tictac's own run of its
/// trace ends with (0, or 1 after a syntax error): a program that exits 2
/// is told so, one that exits 1 on a syntax error is told only of its
/// output (the tester's C7: every test was taken to expect 2).
#[test]
fn the_course_suite_graded_expects_each_tests_own_exit_status() {
    let home = temp_dir();
    let (two, one) = (home.path().join("two"), home.path().join("one"));
    for (folder, status) in [(&two, 2), (&one, 1)] {
        fs::create_dir(folder).expect("mkdir");
        script(folder, "ttt", &format!("echo wrong; exit {status}"));
    }
    let out = path(&home.path().join("grades"));
    let o = tictac(&[
        "grade",
        "--course",
        "--command",
        "./ttt",
        "--out",
        &out,
        &path(&two),
        &path(&one),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let json = fs::read_to_string(home.path().join("grades/grades.json")).expect("grades.json");
    let json: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let result = |student: usize, test: &str| {
        let tests = json["students"][student]["tests"].as_array().expect("tests");
        tests.iter().find(|t| t["test"] == test).expect(test).clone()
    };
    let exited = result(0, "01_x_wins");
    assert_eq!(
        (&exited["kind"], &exited["failure"]),
        (&"exited".into(), &"exited with status 2".into()),
        "{json}"
    );
    assert_eq!(result(0, "17_syntax_parse_error")["kind"], "exited", "{json}");
    assert_eq!(result(1, "17_syntax_parse_error")["kind"], "output differs", "{json}");
    assert_eq!(result(1, "01_x_wins")["kind"], "exited", "{json}");
}
