//! Nothing a program run by `tictac test` or `tictac fuzz` starts outlives
//! its run, and no program gets the terminal (issue 22). Each case runs with
//! cgroups, where this machine can make them, and without
//! (`TICTAC_NO_CGROUP=1`: the child subreaper's sweeps alone, as on a
//! machine that cannot). Leftovers are looked for in /proc by the temporary
//! folder their programs live in.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{
    BIN, Tmux, assert_none_left, file, fuzz_command, hostile_script, model_program, path,
    processes_with, run, script, suite, temp_dir, text, tmux_available, wait_for_sleepers,
};

/// The environment variable that turns cgroups off; both ways are tried.
const NO_CGROUP: &str = "TICTAC_NO_CGROUP";
const WAYS: [&str; 2] = ["", "1"];

/// A daemon that churns: it leaves its session and forks, over and over,
/// each parent exiting a millisecond after its fork, so that no process of
/// it lives long (a search of /proc rarely sees one alive) and the newest
/// always has a live parent (whoever kills only the oldest is always a
/// generation behind). Each generation appends a byte to the file it is
/// given: that file growing is the sign that it still runs. For 10 s at
/// most, so that a failing test leaves nothing for long. (`churn.c`, also
/// compiled by bench/check-leftovers.sh.)
const CHURN_C: &str = include_str!("churn.c");

/// Fails if the churner writing to `beat` still runs: the file grows.
fn assert_stopped(beat: &Path, context: &str) {
    // A churner that runs beats about once a millisecond: 250 ms without a
    // beat is a stopped one, even on a loaded machine.
    let size = || fs::metadata(beat).map_or(0, |m| m.len());
    sleep(Duration::from_millis(50));
    let before = size();
    sleep(Duration::from_millis(250));
    let after = size();
    assert_eq!(before, after, "{context}: the churner still runs ({before} then {after} beats)");
}

/// `CHURN_C` compiled into `dir` with the C compiler Rust links with.
fn churner(dir: &Path) -> String {
    let source = dir.join("churn.c");
    fs::write(&source, CHURN_C).expect("write churn.c");
    let exe = dir.join("churn");
    let cc = Command::new("cc").arg("-O2").arg("-o").arg(&exe).arg(&source).output();
    match cc {
        Ok(o) if o.status.success() => path(&exe),
        Ok(o) => panic!("cc failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => panic!("no C compiler (cc), which Rust needs to link: {e}"),
    }
}

#[test]
fn a_fork_churning_daemon_outlives_no_test_run() {
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    let churn = churner(tools.path());
    let beat = tools.path().join("beat");
    // Right output, and a churner with a cleared environment (no tag) left,
    // once it runs.
    let beat_path = path(&beat);
    let body = format!(
        "env -i {churn} {beat_path} >/dev/null 2>&1 </dev/null &
        while [ ! -s {beat_path} ]; do sleep 0.01; done
        exec \"$TICTAC\" \"$@\""
    );
    let program = hostile_script(tools.path(), "daemon.sh", &body);
    for no_cgroup in WAYS {
        for k in 1..=3 {
            let _ = fs::remove_file(&beat);
            let o = run(
                Command::new(BIN)
                    .args(["test", "--program", &program, &path(dir.path())])
                    .env("TICTAC", BIN)
                    .env(NO_CGROUP, no_cgroup),
                None,
            );
            let context = format!("{NO_CGROUP}={no_cgroup}, run {k}");
            assert_eq!(o.status.code(), Some(0), "{context}: {}", text(&o));
            assert_stopped(&beat, &context);
            assert_none_left(&marker);
        }
    }
}

#[test]
fn fuzz_leaves_nothing_of_a_run_behind_it() {
    let tools = temp_dir();
    let marker = path(tools.path());
    // Each run leaves a sleeper in a session of its own, with no tag.
    let body = "setsid env -i \"$me\" child >/dev/null 2>&1 </dev/null &\nexec \"$TICTAC\" \"$@\"";
    let program = hostile_script(tools.path(), "leaves.sh", body);
    for no_cgroup in WAYS {
        let mut fuzz = fuzz_command()
            .args(["--program", &program, "--runs", "60", "--seed", "1", "-j", "2"])
            .env("TICTAC", BIN)
            .env(NO_CGROUP, no_cgroup)
            .stdout(Stdio::null())
            .spawn()
            .expect("start fuzz");
        let start = Instant::now();
        let mut most = 0;
        while fuzz.try_wait().expect("wait").is_none() {
            assert!(start.elapsed() < Duration::from_secs(120), "fuzz did not end");
            most = most.max(processes_with(&marker).len());
            sleep(Duration::from_millis(5));
        }
        assert!(fuzz.wait().expect("wait").success());
        // Two runs at a time, each with its sleeper until it ends.
        assert!(most <= 4, "{NO_CGROUP}={no_cgroup}: {most} sleepers alive at once");
        assert_none_left(&marker);
    }
}

/// A program that fails unless it leads a session of its own (so it has no
/// controlling terminal), has signals 1 to 31 at their default and none
/// blocked (the runner ignores SIGPIPE), and reads nothing from its
/// standard input. (glibc's `posix_spawn` leaves its two internal signals,
/// 32 and 33, ignored, as in every program Rust's std starts.)
const ALONE: &str = "sid=$(cut -d' ' -f6 /proc/$$/stat)
if [ \"$sid\" != $$ ]; then echo \"in session $sid, not its own\" >&2; exit 9; fi
ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$$/status)
blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$$/status)
if [ $(( 0x$ignored & 0x7fffffff )) != 0 ] || [ $(( 0x$blocked )) != 0 ]; then
  echo \"signals ignored $ignored, blocked $blocked\" >&2; exit 9
fi
if read line; then echo \"read a line from standard input\" >&2; exit 9; fi
exec \"$TICTAC\" \"$@\"";

#[test]
fn programs_run_in_a_session_of_their_own_with_default_signals_and_nothing_to_read() {
    let dir = suite();
    let tools = temp_dir();
    let program = hostile_script(tools.path(), "alone.sh", ALONE);
    for no_cgroup in WAYS {
        let o = run(
            Command::new(BIN)
                .args(["test", "--program", &program, &path(dir.path())])
                .env("TICTAC", BIN)
                .env(NO_CGROUP, no_cgroup),
            Some(b"a line the runner was given\n"),
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let o = run(
            fuzz_command()
                .args(["--program", &program, "--runs", "5", "-j", "1"])
                .env("TICTAC", BIN)
                .env(NO_CGROUP, no_cgroup),
            Some(b"a line the fuzzer was given\n"),
        );
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
}

/// Takes the terminal if it can: turns echo off and makes its own process
/// group the foreground one (ignoring SIGTTOU, which would stop it), notes
/// that it did in `$TOOK`, then hangs ignoring SIGINT, so that a Ctrl-C
/// reaches only it. It also turns echo off through the device its parent
/// (the runner) reads, which no session rule forbids.
const GRAB: &str = "trap '' INT TTOU
perl -MPOSIX -e 'open(my $t, \"+<\", \"/dev/tty\") or exit 1;
  my $a = POSIX::Termios->new; $a->getattr(fileno $t);
  $a->setlflag($a->getlflag & ~POSIX::ECHO()); $a->setattr(fileno $t, POSIX::TCSANOW());
  POSIX::tcsetpgrp(fileno $t, getpgrp()) or exit 1' && echo took > \"$TOOK\"
stty -echo < /proc/$PPID/fd/0
exec \"$me\" child";

#[test]
fn a_program_cannot_take_the_terminal_of_the_runner() {
    if !tmux_available() {
        return;
    }
    let dir = suite();
    let tools = temp_dir();
    let program = hostile_script(tools.path(), "grab.sh", GRAB);
    let (took, status, stty) =
        (tools.path().join("took"), tools.path().join("status"), tools.path().join("stty"));
    // The shell catches SIGINT (so it writes the status after the runner
    // ends); the runner gets the default action back on exec.
    let command = format!(
        "trap true INT; TICTAC={BIN} TOOK={} {BIN} test -j 1 --program {program} {}; \
         echo $? > {}; stty -a > {}; sleep 60",
        path(&took),
        path(dir.path()),
        path(&status),
        path(&stty),
    );
    let tmux = Tmux::start("grab", 80, 24, &command);
    // The program is running (its sleeper is), then Ctrl-C. (The pane's
    // shell names the folder too: the sleeper is looked for by its path.)
    let sleeper = path(&tools.path().join("sleep"));
    let start = Instant::now();
    while processes_with(&sleeper).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(20), "the program did not start");
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(200));
    tmux.keys(&["C-c"]);
    let start = Instant::now();
    while !status.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "Ctrl-C did not stop the runner; the program took the terminal: {}",
            took.exists()
        );
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(100));
    assert_eq!(fs::read_to_string(&status).expect("status").trim(), "130");
    assert!(!took.exists(), "the program opened the terminal");
    let modes = fs::read_to_string(&stty).expect("stty");
    assert!(modes.split_whitespace().any(|m| m == "echo"), "echo is off: {modes}");
    assert_none_left(&sleeper);
}

/// Turns Ctrl-C off on the runner's terminal through the runner's own
/// descriptor (possible for root, whom non-dumpability does not stop), and
/// again every 10 ms (as a fuzz session's runs, each turning it off, would).
/// Shrinks its window too (put back when the runner ends).
const NO_INTERRUPT: &str = "stty -isig cols 30 rows 8 < /proc/$PPID/fd/0
\"$me\" child &
while :; do stty -isig < /proc/$PPID/fd/0; \"${0%/*}/sleep\" 0.01; done";

#[test]
fn a_program_that_turns_ctrl_c_off_cannot_keep_the_runner_running() {
    if !tmux_available() {
        return;
    }
    let dir = suite();
    let tools = temp_dir();
    let program = hostile_script(tools.path(), "isig.sh", NO_INTERRUPT);
    let (status, stty) = (tools.path().join("status"), tools.path().join("stty"));
    let command = format!(
        "trap true INT; {BIN} test -j 1 --timeout 20 --program {program} {}; \
         echo $? > {}; stty -a > {}; sleep 60",
        path(dir.path()),
        path(&status),
        path(&stty),
    );
    let tmux = Tmux::start("isig", 80, 24, &command);
    let sleeper = path(&tools.path().join("sleep"));
    let start = Instant::now();
    while processes_with(&sleeper).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(20), "the program did not start");
        sleep(Duration::from_millis(20));
    }
    // Ctrl-C within a second of the program turning it off.
    sleep(Duration::from_millis(500));
    tmux.keys(&["C-c"]);
    let start = Instant::now();
    while !status.exists() {
        assert!(start.elapsed() < Duration::from_secs(5), "Ctrl-C did not stop the runner");
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(100));
    assert_eq!(fs::read_to_string(&status).expect("status").trim(), "130");
    let modes = fs::read_to_string(&stty).expect("stty");
    assert!(modes.split_whitespace().any(|m| m == "isig"), "isig is off: {modes}");
    assert!(modes.contains("rows 24; columns 80;"), "the window's size stayed: {modes}");
    assert_none_left(&sleeper);
}

#[test]
fn a_program_of_the_same_user_cannot_open_the_runners_descriptors() {
    use std::os::unix::fs::PermissionsExt;
    let dir = suite();
    let tools = temp_dir();
    let peek = "ls /proc/$PPID/fd/ > \"$SEEN\" 2>&1 || echo denied >> \"$SEEN\"";
    let program = hostile_script(tools.path(), "peek.sh", peek);
    let seen = tools.path().join("seen");
    // As root (who may open any process's descriptors), as nobody instead.
    let root = rustix::process::getuid().is_root();
    for folder in [dir.path(), tools.path()] {
        fs::set_permissions(folder, fs::Permissions::from_mode(0o777)).expect("chmod");
    }
    let mut command = if root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let o = run(
        command
            .args(["test", "-j", "1", "--program", &program, &path(dir.path())])
            .env("SEEN", &seen),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let seen = fs::read_to_string(&seen).expect("the program ran");
    assert!(seen.contains("denied"), "the program listed the runner's descriptors: {seen}");
}

/// A descriptor tictac inherited beyond 0, 1 and 2 reaches none of its
/// programs: started with a file of the caller's alone on 7 (`7<secret`)
/// and its own output also on 3 (`exec 3>&1`), `test` and `grade` (as root:
/// the programs run as nobody) run a program that reads 7, writes to 3 and
/// lists its descriptors before it answers as the model does: it has 0, 1
/// and 2 only (and `ls`'s own), reads nothing and passes. (Before: the
/// secret was the first line of its output and every test failed.)
#[test]
fn a_descriptor_tictac_inherited_reaches_none_of_its_programs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = suite();
    let home = temp_dir();
    let secret = file(home.path(), "secret", "SECRET\n");
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).expect("chmod");
    let student = home.path().join("student");
    fs::create_dir(&student).expect("mkdir");
    let body = format!(
        "fds=$(ls /proc/self/fd | tr '\\n' ' ')\n\
         [ \"$fds\" = '0 1 2 3 ' ] || echo \"descriptors: $fds\"\n\
         cat <&7\n\
         echo THROUGH-3 >&3\n\
         exec '{}' \"$@\"",
        model_program()
    );
    let program = script(&student, "ttt", &body);
    let inheriting = |args: &[&str]| {
        let started = "exec \"$0\" \"$@\" 3>&1 7<\"$SECRET\"";
        let mut command = Command::new("sh");
        command.args(["-c", started, BIN]).args(args).env("SECRET", &secret);
        run(command.current_dir(home.path()), None)
    };
    let o = inheriting(&["test", "--program", &program, &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(!text(&o).contains("THROUGH-3"), "{}", text(&o));
    let out = home.path().join("grades");
    let o = inheriting(&[
        "grade",
        &path(dir.path()),
        "--command",
        "./ttt",
        "--out",
        &path(&out),
        &path(&student),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let table = text(&o);
    assert!(!table.contains("THROUGH-3"), "{table}");
    assert!(table.lines().any(|l| l.starts_with("student") && l.contains("2/2")), "{table}");
}

/// The keeper a runner started (a child of it with the keeper's argument).
fn keeper_of(runner: u32) -> Option<u32> {
    processes_with("tictac-keep").into_iter().find(|pid| {
        let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        after.split_whitespace().nth(1) == Some(runner.to_string().as_str())
    })
}

#[test]
fn a_runner_killed_outright_leaves_no_program_running() {
    // SIGKILL gives the runner no cleanup; its keeper kills what it left:
    // `tictac test` and `tictac grade`, each with and without cgroups, a
    // program holding a child and an escaped one, both sleeping.
    let dir = suite();
    for way in WAYS {
        for command in ["test", "grade"] {
            // The students' folders are copied into TMPDIR for their runs
            // (as root): both are under the marker.
            let tools = temp_dir();
            let marker = path(tools.path());
            let (student, tmp) = (tools.path().join("alice"), tools.path().join("tmp"));
            fs::create_dir(&student).expect("mkdir");
            fs::create_dir(&tmp).expect("mkdir");
            // Named by their whole path, which holds the marker, wherever
            // the folder was copied.
            let body = "d=$(cd \"${0%/*}\" && pwd)\nsetsid \"$d/sleep\" 1000 &\n\"$d/sleep\" 1000";
            let hang = hostile_script(&student, "ttt", body);
            let mut args = vec![command.to_string()];
            match command {
                "test" => args.extend(["--program".into(), hang, path(dir.path())]),
                _ => args.extend([
                    path(dir.path()),
                    "--command".into(),
                    "./ttt".into(),
                    "--out".into(),
                    path(&tools.path().join("grades")),
                    path(&student),
                ]),
            }
            let mut runner = Command::new(BIN)
                .args(&args)
                .args(["-j", "2", "--timeout", "60"])
                .env(NO_CGROUP, way)
                .env("TMPDIR", &tmp)
                .stdout(Stdio::null())
                .spawn()
                .expect("spawn");
            // Killed once every program started holds both its sleepers
            // (counting every process naming the folder, the runner and a
            // shell's `$(...)` included, let it go at 4 with no sleeper).
            let context = format!("{command}, {NO_CGROUP}={way}");
            wait_for_sleepers(&marker, &context);
            runner.kill().expect("SIGKILL");
            runner.wait().expect("wait");
            eprintln!("{context}");
            assert_none_left(&marker);
        }
    }
}

#[test]
fn what_a_runner_killed_outright_left_the_next_runner_kills() {
    // SIGKILL (the OOM killer, `timeout -s KILL`) gives a runner no chance
    // to clean up; its cgroup keeps the count of what it left, and the next
    // runner to start a program ends them.
    let dir = suite();
    let tools = temp_dir();
    let marker = path(tools.path());
    let hang = hostile_script(tools.path(), "hang.sh", "setsid \"$me\" child &\n\"$me\" child");
    let mut runner = Command::new(BIN)
        .args(["test", "--program", &hang, "-j", "2", &path(dir.path())])
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn");
    let in_cgroup = |pid: &u32| {
        fs::read_to_string(format!("/proc/{pid}/cgroup")).is_ok_and(|c| c.contains("/tictac-"))
    };
    // What its cgroups hold, seen before the runner is killed: once it is,
    // another test's runner starting a program may end them first. What a
    // program forked before its move into one is out of reach (RELIABILITY
    // says so), and killed here.
    // (It waited for two such processes: with one run at a time, as
    // `test -j 2` starts, and sleepers forked before the move, that was
    // its 10 s limit every time.)
    let held_now = || processes_with(&marker).into_iter().filter(in_cgroup).collect::<Vec<u32>>();
    wait_for_sleepers(&marker, "the runner to be killed");
    let until = Instant::now() + Duration::from_secs(10);
    let mut held = held_now();
    while held.is_empty() && Instant::now() < until {
        sleep(Duration::from_millis(20));
        held = held_now();
    }
    // Its keeper killed first (a signal to the keeper's session, `kill -9
    // -1`): the next runner is what is left.
    let keeper = keeper_of(runner.id()).expect("the runner's keeper");
    let _ = Command::new("kill").args(["-9", &keeper.to_string()]).status();
    runner.kill().expect("SIGKILL");
    runner.wait().expect("wait");
    if held.is_empty() {
        assert_none_left(&marker);
        assert!(std::env::var_os("CI").is_none(), "no cgroup could be made here");
        eprintln!("skipped: no cgroup could be made here");
        return;
    }
    let o = run(Command::new(BIN).args(["test", "--program", BIN, &path(dir.path())]), None);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let now = processes_with(&marker);
    let alive: Vec<u32> = held.iter().copied().filter(|pid| now.contains(pid)).collect();
    for pid in now {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(alive.is_empty(), "left in the killed runner's cgroups, still alive: {alive:?}");
}

/// Beats in a file every 20 ms until stopped.
const BEATS: &str = "while :; do echo x >> \"$BEAT\"; \"${0%/*}/sleep\" 0.02; done";

#[test]
fn ctrl_z_stops_the_programs_with_the_runner() {
    if !tmux_available() {
        return;
    }
    for way in WAYS {
        let dir = suite();
        let tools = temp_dir();
        let program = hostile_script(tools.path(), "beats.sh", BEATS);
        let (beat, status) = (tools.path().join("beat"), tools.path().join("status"));
        let command = format!(
            "trap true INT; {NO_CGROUP}={way} BEAT={} {BIN} test -j 1 --timeout 20 \
             --program {program} {}; echo $? > {}; sleep 60",
            path(&beat),
            path(dir.path()),
            path(&status),
        );
        let tmux = Tmux::start(&format!("ctrlz{way}"), 80, 24, &command);
        let beats = || fs::metadata(&beat).map_or(0, |m| m.len());
        let start = Instant::now();
        while beats() < 10 {
            assert!(start.elapsed() < Duration::from_secs(20), "the program did not start");
            sleep(Duration::from_millis(20));
        }
        tmux.keys(&["C-z"]);
        sleep(Duration::from_millis(500));
        let stopped = beats();
        sleep(Duration::from_millis(1000));
        assert_eq!(beats(), stopped, "the program ran on while the runner was stopped ({way})");
        // Continued: it beats again, and Ctrl-C ends it all.
        let runners: Vec<u32> = processes_with(&program)
            .into_iter()
            .filter(|pid| {
                fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "tictac")
            })
            .collect();
        assert_eq!(runners.len(), 1, "{runners:?}");
        let cont = Command::new("kill").args(["-CONT", &runners[0].to_string()]).status();
        assert!(cont.expect("kill").success());
        let start = Instant::now();
        while beats() == stopped {
            assert!(start.elapsed() < Duration::from_secs(5), "the program was not resumed");
            sleep(Duration::from_millis(20));
        }
        tmux.keys(&["C-c"]);
        let start = Instant::now();
        while !status.exists() {
            assert!(start.elapsed() < Duration::from_secs(5), "Ctrl-C did not stop the runner");
            sleep(Duration::from_millis(20));
        }
        assert_none_left(&path(&tools.path().join("sleep")));
    }
}

#[test]
fn a_folder_a_program_locks_in_its_scratch_folder_goes_with_it() {
    use std::os::unix::fs::PermissionsExt;
    // Root removes a locked folder anyway: the runner runs as nobody here.
    let dir = suite();
    let tools = temp_dir();
    let tmp = tools.path().join("tmp");
    fs::create_dir(&tmp).expect("mkdir");
    // It prints nothing (its tests fail): tictac itself may lie in a
    // folder nobody cannot enter (a clone in a private temporary folder).
    let lock = "d=$(dirname \"$2\"); mkdir -p \"$d/keep/inner\"; touch \"$d/keep/inner/f\"; \
                chmod 000 \"$d/keep/inner\" \"$d/keep\"; echo locked > \"$LOCKED\"";
    let program = hostile_script(tools.path(), "lock.sh", lock);
    for folder in [dir.path(), tools.path(), &tmp] {
        fs::set_permissions(folder, fs::Permissions::from_mode(0o777)).expect("chmod");
    }
    let mut command = match rustix::process::getuid().is_root() {
        true => {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
            c
        }
        false => Command::new(BIN),
    };
    let o = run(
        command
            .args(["test", "-j", "1", "--program", &program, &path(dir.path())])
            .env("TMPDIR", &tmp)
            .env("LOCKED", tools.path().join("locked")),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(tools.path().join("locked").exists(), "the program ran: {}", text(&o));
    let left: Vec<_> = fs::read_dir(&tmp).expect("tmp").flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
}
