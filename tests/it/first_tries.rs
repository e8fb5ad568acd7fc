//! What a student's first tries are answered with: the next step. `tictac
//! test` with no suite here names `--course` and `--program`; a program
//! named bare that is a file in the folder, not on PATH, gets the command
//! that runs it (`./ttt`, `python3 ttt.py`, `java -jar ttt.jar`), in `test`,
//! `fuzz` and, looking in the students' folders, `grade`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output};

use crate::common::{BIN, path, run, temp_dir, text};

fn in_dir(dir: &Path, args: &[&str]) -> Output {
    run(Command::new(BIN).current_dir(dir).args(args), None)
}

#[test]
fn test_with_no_suite_here_names_course_and_program() {
    let home = temp_dir();
    let o = in_dir(home.path(), &["test"]);
    assert_eq!(o.status.code(), Some(2));
    let said = text(&o);
    assert!(
        said.starts_with("error: no tests here (looked in acceptance/ and tests/acceptance/): "),
        "{said}"
    );
    assert!(
        said.contains("tictac test --course --program CMD (e.g. --program \"python3 ttt.py\")"),
        "{said}"
    );
    assert!(said.contains("; to see it pass on tictac itself, tictac test --course;"), "{said}");
}

#[test]
fn a_program_in_the_folder_but_not_on_path_gets_the_command_that_runs_it() {
    let home = temp_dir();
    let dir = home.path();
    fs::write(dir.join("ttt.py"), "print()\n").expect("write");
    fs::write(dir.join("ttt.jar"), "").expect("write");
    fs::write(dir.join("ttt"), "#!/bin/sh\n").expect("write");
    fs::write(dir.join("notx"), "#!/bin/sh\n").expect("write");
    fs::set_permissions(dir.join("ttt"), fs::Permissions::from_mode(0o755)).expect("chmod");
    for (command, runs_it) in [
        ("ttt.py", "--program \"python3 ttt.py\" runs it"),
        ("ttt.jar", "--program \"java -jar ttt.jar\" runs it"),
        ("ttt", "--program \"./ttt\" runs it"),
        ("notx -v", "--program \"./notx -v\" runs it after chmod +x notx"),
    ] {
        let first = command.split(' ').next().unwrap_or_default();
        for args in [&["test", "--program", command][..], &["fuzz", "--program", command]] {
            let o = in_dir(dir, args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            let want = format!(
                "Error: --program cannot run '{first}': not found on PATH; '{first}' is a file in this folder: {runs_it}\n"
            );
            assert!(text(&o).starts_with(&want), "{args:?}: {}", text(&o));
        }
    }
    // Not in the folder: nothing more to say.
    let o = in_dir(dir, &["test", "--program", "nosuch.py"]);
    assert!(
        text(&o).starts_with("Error: --program cannot run 'nosuch.py': not found on PATH\n"),
        "{}",
        text(&o)
    );
}

#[test]
fn grade_looks_in_the_students_folders_for_what_command_names() {
    let home = temp_dir();
    let students: Vec<String> = ["ann", "bo"]
        .iter()
        .map(|name| {
            let dir = home.path().join(name);
            fs::create_dir(&dir).expect("mkdir");
            fs::write(dir.join("ttt.py"), "print()\n").expect("write");
            dir.to_string_lossy().into_owned()
        })
        .collect();
    let out = home.path().join("grades");
    let o = in_dir(
        home.path(),
        &[
            "grade",
            "--course",
            "--command",
            "ttt.py",
            "--out",
            &out.to_string_lossy(),
            &students[0],
            &students[1],
        ],
    );
    let said = text(&o);
    assert!(
        said.contains("warning: no student's program could start with --command 'ttt.py': 'ttt.py' is a file in the students' folders, and a bare name is looked for on PATH: --command \"python3 ttt.py\" runs it in each student's folder"),
        "{said}"
    );
}

/// A program named by its path that is not executable gets how to run it:
/// `chmod +x`, or its interpreter named (finding S8).
#[test]
fn a_program_file_without_the_execute_permission_gets_chmod_or_its_interpreter() {
    let home = temp_dir();
    let dir = home.path();
    fs::write(dir.join("ttt.py"), "print()\n").expect("write");
    fs::write(dir.join("ttt"), "#!/bin/sh\n").expect("write");
    for file in ["ttt.py", "ttt"] {
        fs::set_permissions(dir.join(file), fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    let o = in_dir(dir, &["test", "--course", "--program", "./ttt.py"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).starts_with(
            "Error: --program cannot run './ttt.py': not an executable file: chmod +x ./ttt.py \
             makes it one, or name what runs it: \"python3 ./ttt.py\"\n"
        ),
        "{}",
        text(&o)
    );
    let o = in_dir(dir, &["test", "--course", "--program", "./ttt"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).starts_with(
            "Error: --program cannot run './ttt': not an executable file: chmod +x ./ttt makes it one\n"
        ),
        "{}",
        text(&o)
    );
}

/// A program started from the wrong folder fails every test the same way:
/// one line says so, with what it printed on standard error, before the
/// failures (finding S2); a suite where one test ends otherwise says nothing
/// of the kind.
#[test]
fn every_test_failing_the_same_way_is_said_once_before_the_failures() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    fs::create_dir(&suite).expect("mkdir");
    for (name, trace) in [("a", "undo\n"), ("b", "redo\n"), ("c", "new_game(\"a\",\"b\")\n")] {
        fs::write(suite.join(format!("{name}.txt")), trace).expect("write");
    }
    let o = in_dir(home.path(), &["test", "--bless", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // No ttt.sh here: sh says so on every test.
    let o = in_dir(home.path(), &["test", "suite", "--program", "sh ttt.sh", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(
            "The program failed the same way on all 3 tests: exited with status 2, its standard error ending: "
        ),
        "{out}"
    );
    assert!(first.contains("ttt.sh"), "{out}");
    assert_eq!(out.matches("\nFAIL ").count(), 3, "the failures follow: {out}");

    // One test ends otherwise: each failure as it comes, no such line.
    fs::write(
        home.path().join("ttt.sh"),
        "case \"$2\" in *a.txt) exit 0;; esac; echo oops >&2; exit 2\n",
    )
    .expect("write");
    let o = in_dir(home.path(), &["test", "suite", "--program", "sh ttt.sh", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!text(&o).contains("the same way"), "{}", text(&o));
    assert!(text(&o).starts_with("FAIL a "), "{}", text(&o));
}

/// A program's standard error names the folder it runs in as the folder,
/// not as the scratch copy it ran in (a different one for every test), in
/// `test` and `grade` alike: the student knows the folder, and a program
/// started wrong fails every test the same way (the tester's A19).
#[test]
fn standard_error_names_the_folder_not_its_copy() {
    let home = temp_dir();
    let suite = home.path().join("suite");
    let ann = home.path().join("ann");
    fs::create_dir(&suite).expect("mkdir");
    fs::create_dir(&ann).expect("mkdir");
    for (name, trace) in [("a", "undo\n"), ("b", "redo\n")] {
        fs::write(suite.join(format!("{name}.txt")), trace).expect("write");
    }
    let o = in_dir(home.path(), &["test", "--bless", "suite"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let script = "#!/bin/sh\necho \"python3: can't open file '$(pwd)/nofile.py'\" >&2\nexit 2\n";
    fs::write(ann.join("ttt"), script).expect("write");
    fs::set_permissions(ann.join("ttt"), fs::Permissions::from_mode(0o755)).expect("chmod");
    let said = format!("python3: can't open file '{}/nofile.py'", ann.display());

    let o = in_dir(&ann, &["test", "../suite", "--program", "./ttt", "-q"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = text(&o);
    let same = format!(
        "The program failed the same way on all 2 tests: exited with status 2, its standard error ending: {said}\n"
    );
    assert!(out.starts_with(&same), "{out}");
    assert_eq!(out.matches(&said).count(), 3, "{out}");

    let o = in_dir(home.path(), &["grade", "suite", "ann", "--command", "./ttt", "--out", "g"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report = fs::read_to_string(home.path().join("g/ann.report.txt")).expect("report");
    assert!(report.starts_with(&same), "{report}");
}

/// A program built for another system, and a Python file with no `#!`
/// line, are said to be so before anything runs, and by each test where
/// the check is each run's (Gradescope's format): /bin/sh reading them
/// said only its own syntax error (the tester's C8).
#[test]
fn a_program_for_another_system_or_a_script_without_its_interpreter_line_is_named() {
    let home = temp_dir();
    let dir = home.path();
    fs::write(dir.join("ttt.exe"), b"MZ\x90\x00\x03\x00").expect("write");
    fs::write(dir.join("ttt.py"), "print(1)\n").expect("write");
    for file in ["ttt.exe", "ttt.py"] {
        fs::set_permissions(dir.join(file), fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let o = in_dir(dir, &["test", "--course", "--program", "./ttt.exe", "--filter", "61_"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).starts_with(
            "Error: --program cannot run './ttt.exe': it is a Windows program (.exe), which does \
             not run on "
        ),
        "{}",
        text(&o)
    );
    let args = ["test", "--course", "--program", "./ttt.py", "--filter", "61_"];
    let o = in_dir(dir, &[&args[..], &["--format", "gradescope"]].concat());
    let json = String::from_utf8_lossy(&o.stdout);
    assert!(
        json.contains(
            "./ttt.py: it has no `#!` line, so /bin/sh would run it as a shell script: make its \
             first line `#!/usr/bin/env python3`, or name what runs it (`python3 ./ttt.py`)"
        ),
        "{json}"
    );
}

/// A shell script with no `#!` line runs as a shell runs it, under `test`
/// and under `fuzz` alike: `fuzz`, which starts its program without a
/// shell, said "Exec format error" of a program `test` passed.
#[test]
fn a_shell_script_without_its_interpreter_line_runs_in_test_and_in_fuzz() {
    let home = temp_dir();
    let dir = home.path();
    fs::write(dir.join("ttt"), format!("exec '{BIN}' \"$@\"\n")).expect("write");
    fs::set_permissions(dir.join("ttt"), fs::Permissions::from_mode(0o755)).expect("chmod");
    let o = in_dir(dir, &["test", "--course", "--program", "./ttt", "--filter", "61_"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let o = in_dir(dir, &["fuzz", "--program", "./ttt", "--runs", "20", "-j", "2", "--out", "f"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).ends_with(", 0 divergences found.\n"), "{}", text(&o));
}

/// A file that is no program nor script (an object file from `cc -c`, a
/// `.jar`, a program cut short, binary data), a folder or a broken link, is said to be so before anything runs,
/// by `test` and `fuzz` alike: /bin/sh, handed it, said a syntax error
/// under `--user` and "Exec format error" elsewhere (attack 42's F2).
#[cfg(target_os = "linux")]
#[test]
fn a_file_that_is_no_program_nor_script_is_named() {
    let home = temp_dir();
    let dir = home.path();
    let program = fs::read("/bin/true").expect("/bin/true");
    let mut object = program.clone();
    object[16..18].copy_from_slice(&1u16.to_le_bytes());
    let utf16: Vec<u8> = "#!/bin/sh\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
    let files: [(&str, &[u8], &str); 6] = [
        ("utf16", &utf16, "it is text saved as UTF-16 (\"Unicode\"), which no shell reads"),
        ("obj", &object, "it is an object file (what `cc -c` makes), not a program"),
        (
            "t.jar",
            b"PK\x03\x04\x14\x00",
            "it is a zip archive (a Java .jar, a Python .pyz): name what runs it (`java -jar ./t.jar`)",
        ),
        ("cut", &program[..200], "it is a program cut short"),
        ("half", &program[..program.len() / 2], "it is a program cut short"),
        ("nul", &[0; 64], "it is binary data, neither a program this system runs nor a script"),
    ];
    fs::create_dir(dir.join("folder")).expect("mkdir");
    std::os::unix::fs::symlink(dir.join("nowhere"), dir.join("gone")).expect("link");
    let made = [
        ("folder", &[][..], "it is a folder, not a program"),
        ("gone", &[][..], "it is a broken symbolic link (what it points to does not exist)"),
    ];
    for (name, bytes, says) in files.into_iter().chain(made) {
        if !["folder", "gone"].contains(&name) {
            fs::write(dir.join(name), bytes).expect("write");
            fs::set_permissions(dir.join(name), fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let program = format!("./{name}");
        let tries = [
            vec!["test", "--course", "--program", &program, "--filter", "61_"],
            vec!["fuzz", "--program", &program, "--runs", "3", "--out", "f"],
        ];
        for args in tries {
            let o = in_dir(dir, &args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            let said = format!("Error: --program cannot run '{program}': {says}");
            assert!(text(&o).starts_with(&said), "{args:?}: {}", text(&o));
        }
    }
}

/// A real program of this machine whose loader is not there (built on
/// another distribution) is said to need that loader, before anything
/// runs: the kernel's "not found" named the program, which is there (the
/// tester's D3).
#[cfg(target_os = "linux")]
#[test]
fn a_program_whose_loader_is_missing_is_told_which_loader() {
    let home = temp_dir();
    let mut program = fs::read("/bin/true").expect("/bin/true");
    // Its loader's path (`/lib64/ld-linux-x86-64.so.2`, `/lib/ld-musl-...`):
    // the first string naming an `ld-` file, near the start.
    let start = (0..program.len().min(4096))
        .find(|&i| {
            program[i..].starts_with(b"/lib") && program[i..i + 40].windows(4).any(|w| w == b"/ld-")
        })
        .expect("/bin/true names its loader");
    let end = start + program[start..].iter().position(|&b| b == 0).expect("its end");
    let gone = b"/lib/ld-gone.so";
    assert!(end - start >= gone.len(), "a loader's name that short");
    program[start..end].fill(0);
    program[start..start + gone.len()].copy_from_slice(gone);
    fs::write(home.path().join("noldr"), program).expect("write");
    fs::set_permissions(home.path().join("noldr"), fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let o = in_dir(home.path(), &["test", "--course", "--program", "./noldr", "--filter", "61_"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).starts_with(
            "Error: --program cannot run './noldr': it is a Linux program that needs the loader \
             /lib/ld-gone.so, which this system lacks: it was built on another system; build it \
             on this system (from its source), or link it statically"
        ),
        "{}",
        text(&o)
    );
}

/// A script saved with Windows line endings that is executable already is
/// told about its line endings only, never to `chmod +x` it (the tester's
/// A16).
#[test]
fn an_executable_script_with_a_crlf_first_line_is_not_told_to_chmod_it() {
    let home = temp_dir();
    fs::write(home.path().join("ttt.py"), "#!/usr/bin/env python3\r\nprint(\"hi\")\r\n")
        .expect("write");
    fs::set_permissions(home.path().join("ttt.py"), fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let o = in_dir(home.path(), &["test", "--course", "--program", "./ttt.py"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("a Windows line ending"), "{}", text(&o));
    assert!(!text(&o).contains("chmod +x"), "{}", text(&o));
}

/// `python` where only `python3` is on PATH (Debian, Ubuntu and macOS have
/// no `python`) gets the command with python3, in `test`, `fuzz` and
/// `grade`; with no python3 either, nothing more is said (attack 41's E7).
/// The command is a value to paste into a shell: a file named `a$HOME.py`
/// is in single quotes, not in double quotes where the shell expands `$`
/// (attack 41's F2: the pasted hint ran another file); a script that is
/// not there is said so, not the hint that would fail next.
#[test]
fn python_not_on_path_where_python3_is_gets_python3() {
    let home = temp_dir();
    let dir = home.path();
    let bin = dir.join("bin");
    fs::create_dir(&bin).expect("mkdir");
    std::os::unix::fs::symlink("/bin/sh", bin.join("python3")).expect("link");
    let with_path = |path: &Path, args: &[&str]| {
        run(Command::new(BIN).current_dir(dir).env("PATH", path).args(args), None)
    };
    for command in ["test", "fuzz"] {
        let o = with_path(&bin, &[command, "--program", "python ttt.py"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let want = "Error: --program cannot run 'python': not found on PATH (python3 is); and \
                    there is no file 'ttt.py' in this folder\n";
        assert!(text(&o).starts_with(want), "{}", text(&o));
    }
    fs::write(dir.join("ttt.py"), "").expect("write");
    fs::write(dir.join("a$HOME.py"), "").expect("write");
    for command in ["test", "fuzz"] {
        let o = with_path(&bin, &[command, "--program", "python ttt.py"]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        let want = "Error: --program cannot run 'python': not found on PATH; python3 is: \
                    --program \"python3 ttt.py\" runs it\n";
        assert!(text(&o).starts_with(want), "{}", text(&o));
        let o = with_path(dir, &[command, "--program", "python ttt.py"]);
        let want = "Error: --program cannot run 'python': not found on PATH\n";
        assert!(text(&o).starts_with(want), "{}", text(&o));
        let o = with_path(&bin, &[command, "--program", "python 'a$HOME.py'"]);
        let said = text(&o);
        let hint = said.split("python3 is: --program ").nth(1);
        let hint = hint.and_then(|h| h.split(" runs it").next());
        let hint = hint.unwrap_or_else(|| panic!("{said}"));
        assert_eq!(hint, r"'python3 '\''a$HOME.py'\'''", "{said}");
        // The shell reads it back as the command tictac splits into
        // python3 and a$HOME.py.
        let echo = run(Command::new("sh").arg("-c").arg(format!("printf %s {hint}")), None);
        assert_eq!(String::from_utf8_lossy(&echo.stdout), "python3 'a$HOME.py'");
    }
    let student = dir.join("ann");
    fs::create_dir(&student).expect("mkdir");
    let grade = |out: &str| {
        let out = path(&dir.join(out));
        let args = ["grade", "--course", "--command", "python ttt.py", "--out", &out];
        text(&with_path(&bin, &[&args[..], &[&path(&student)]].concat()))
    };
    let said = grade("grades");
    let want = "warning: no student's program could start with --command 'python ttt.py': \
                'python' is not on PATH (python3 is); and no student's folder has a file 'ttt.py'\n";
    assert!(said.contains(want), "{said}");
    fs::write(student.join("ttt.py"), "").expect("write");
    let said = grade("grades2");
    let want = "warning: no student's program could start with --command 'python ttt.py': \
                'python' is not on PATH; python3 is: --command \"python3 ttt.py\" runs it\n";
    assert!(said.contains(want), "{said}");
}
