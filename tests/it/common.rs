//! What the test modules share: one way to run the built executable (with
//! a time limit), temporary folders, files and scripts, a program in a real
//! terminal (tmux runs it, keys are sent, the screen is read back; `.ci/run`
//! installs tmux; on a machine without it a test says so and passes, except
//! under CI, env `CI` set, where it fails), and proptest's settings.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::{self, JoinHandle, sleep};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_tictac");

/// How long one run may take before its test fails: a run that hangs (a
/// FIFO read twice, a reader that never sees its end) fails instead of
/// holding the suite. Generous, for a debug build on a busy machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// `tictac ARGS` with nothing on standard input.
pub fn tictac(args: &[&str]) -> Output {
    run(Command::new(BIN).args(args), None)
}

/// `tictac fuzz`, started in a small folder of its own: a session copies
/// the folder it is started in for its programs, and this project's (its
/// `target/`) is too large to copy, so programs would run there one at a
/// time.
#[cfg(unix)] // for the fuzz tests
pub fn fuzz_command() -> Command {
    let here = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-here");
    std::fs::create_dir_all(&here).expect("a folder to fuzz in");
    let mut command = Command::new(BIN);
    command.arg("fuzz").current_dir(here);
    command
}

/// `tictac fuzz ARGS` (see `fuzz_command`).
#[cfg(unix)] // for the fuzz tests
pub fn fuzz(args: &[&str]) -> Output {
    run(fuzz_command().args(args), None)
}

/// `tictac fuzz ARGS` started (see `fuzz_command`), its standard output a
/// pipe to read, its standard error dropped, nothing on its standard input.
#[cfg(unix)] // for the fuzz tests
pub fn fuzz_started(args: &[&str]) -> Child {
    let mut command = fuzz_command();
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    command.spawn().expect("start")
}

/// Waits for `child` to end, at most `limit`: past it the child is killed
/// and the test fails, saying it was still running `after` something.
pub fn ended_within(child: &mut Child, limit: Duration, after: &str) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running {limit:?} after {after}");
        }
        sleep(Duration::from_millis(5));
    }
}

/// `tictac autograder ARGS`, run by a copy of the built executable without
/// its debug information (`strip --strip-debug`: 25 MB of its 110): the zip
/// holds the executable that runs, and deflating the whole debug build, then
/// unzipping it, took 1.4 s and 2.1 s a zip at load 12 (0.35 and 0.6 s so).
/// The copy is made once a build; where `strip` is missing, the build itself.
#[cfg(unix)] // for the autograder tests
pub fn autograder(args: &[&str]) -> Output {
    run(Command::new(lean_tictac()).arg("autograder").args(args), None)
}

/// The copy [`autograder`] runs: `target/tmp/lean-tictac/LEN-MTIME/tictac`,
/// made under another name and renamed into place (tests in other processes
/// may make it at once), older builds' copies removed.
#[cfg(unix)]
pub fn lean_tictac() -> std::path::PathBuf {
    use std::os::unix::fs::MetadataExt;
    static LEAN: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    LEAN.get_or_init(|| {
        let built = std::fs::metadata(BIN).expect("the built tictac");
        let key = format!("{}-{}.{}", built.len(), built.mtime(), built.mtime_nsec());
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lean-tictac");
        let made = dir.join(&key);
        if made.join("tictac").is_file() {
            return made.join("tictac");
        }
        for old in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            if !old.file_name().to_string_lossy().starts_with(&key) {
                let _ = std::fs::remove_dir_all(old.path());
            }
        }
        let making = dir.join(format!("{key}.{}", std::process::id()));
        std::fs::create_dir_all(&making).expect("a folder for the lean tictac");
        let stripped = Command::new("strip")
            .args(["--strip-debug", "-o"])
            .arg(making.join("tictac"))
            .arg(BIN)
            .status()
            .is_ok_and(|s| s.success());
        if !stripped {
            let _ = std::fs::remove_dir_all(&making);
            return BIN.into();
        }
        // Another process's copy may be in place already: that one serves.
        if std::fs::rename(&making, &made).is_err() {
            let _ = std::fs::remove_dir_all(&making);
        }
        made.join("tictac")
    })
    .clone()
}

/// `tictac ARGS` with `input` on standard input, through a pipe.
pub fn tictac_with_input(args: &[&str], input: &[u8]) -> Output {
    run(Command::new(BIN).args(args), Some(input))
}

/// Runs `command` to its end: `input` on standard input through a pipe (none:
/// `/dev/null`), standard output and error captured, within `PATIENCE`.
pub fn run(command: &mut Command, input: Option<&[u8]>) -> Output {
    let stdin = if input.is_some() { Stdio::piped() } else { Stdio::null() };
    let mut child =
        command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("start");
    let feeder = input.map(|bytes| {
        let mut pipe = child.stdin.take().expect("stdin");
        let bytes = bytes.to_vec();
        // It may exit before reading it all (an invocation error): fine.
        thread::spawn(move || drop(pipe.write_all(&bytes)))
    });
    let out = finish(child);
    if let Some(feeder) = feeder {
        feeder.join().expect("feeder");
    }
    out
}

/// Waits for a started child, reading what it prints on the pipes it has;
/// kills it and fails past `PATIENCE`.
pub fn finish(mut child: Child) -> Output {
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let status = ended_within(&mut child, PATIENCE, "its start");
    let bytes = |pipe: Option<JoinHandle<Vec<u8>>>| pipe.map(|p| p.join().expect("read"));
    Output {
        status,
        stdout: bytes(stdout).unwrap_or_default(),
        stderr: bytes(stderr).unwrap_or_default(),
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

/// What a run printed on standard output.
pub fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A temporary folder, removed when dropped.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// Writes `body` to `dir/name` and gives its path as the command line takes it.
pub fn file(dir: &Path, name: &str, body: impl AsRef<[u8]>) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("write file");
    path(&p)
}

/// A suite of one test, `t`: the trace `trace` and its expected output
/// `expected`, in a temporary folder.
#[cfg(unix)] // for verdicts and runner_report
pub fn one_test(trace: &str, expected: &str) -> tempfile::TempDir {
    let dir = temp_dir();
    file(dir.path(), "t.txt", trace);
    file(dir.path(), "t.expected.txt", expected);
    dir
}

/// A tmux server of its own, with one session running a command.
#[cfg(unix)]
pub struct Tmux {
    socket: String,
}

#[cfg(unix)]
impl Tmux {
    /// Starts `command` (a shell command line) in a `width`×`height` terminal.
    pub fn start(name: &str, width: u16, height: u16, command: &str) -> Tmux {
        let tmux = Tmux { socket: format!("tictac-{name}-{}", std::process::id()) };
        let (w, h) = (width.to_string(), height.to_string());
        tmux.run(&["new-session", "-d", "-s", "t", "-x", &w, "-y", &h, command]);
        tmux
    }

    pub fn run(&self, args: &[&str]) -> String {
        let out =
            Command::new("tmux").args(["-L", &self.socket]).args(args).output().expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Keys by tmux name (`Enter`, `Right`, `C-c`) or as text.
    pub fn keys(&self, keys: &[&str]) {
        self.run(&[&["send-keys", "-t", "t"][..], keys].concat());
    }

    /// Text typed as is, whatever tmux key names it holds.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "t"])
    }

    /// Text typed as is in pieces of `piece` bytes (tmux takes a command of
    /// a few KiB at most): as a terminal without bracketed paste pastes it.
    pub fn paste(&self, text: &str, piece: usize) {
        let mut rest = text;
        while !rest.is_empty() {
            let mut end = piece.min(rest.len());
            while !rest.is_char_boundary(end) {
                end -= 1;
            }
            self.type_text(&rest[..end]);
            rest = &rest[end..];
        }
    }

    /// Everything the program writes from now on, appended to `file`.
    pub fn record_output(&self, file: &Path) {
        let command = format!("cat >> '{}'", file.display());
        self.run(&["pipe-pane", "-o", "-t", "t", &command]);
    }

    /// The screen with each wrapped line joined into one.
    pub fn joined_screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-t", "t"])
    }

    /// Waits until `done` holds for the screen, and returns that screen.
    pub fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if done(&screen) {
                return screen;
            }
            assert!(start.elapsed() < Duration::from_secs(10), "{what}; the screen:\n{screen}");
            sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen shows `text`.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("no {text:?} on screen"), |s| s.contains(text))
    }
}

/// What a tictac killed by a signal in a terminal left behind: its exit
/// status and the terminal's modes (`stty -a`), as the shell around it
/// wrote them, and the terminal itself.
#[cfg(unix)]
pub struct Killed {
    pub tmux: Tmux,
    pub status: String,
    pub modes: String,
}

/// Runs `tictac ARGS` in a `width`×`height` tmux, `exec`'d by a shell that
/// first writes its own pid to `dir` (so the pid is tictac's), with `env`
/// (`VAR=value` words, or nothing) before it; once the game's first state
/// is on screen, sends it SIG`signal` and waits for the shell around it to
/// write the exit status and the terminal's modes.
#[cfg(unix)]
pub fn killed_in_tmux(dir: &Path, size: (u16, u16), env: &str, args: &str, signal: &str) -> Killed {
    let file = |name: &str| dir.join(name).display().to_string();
    let command = format!(
        "sh -c 'echo $$ > {}; {env} exec {BIN} {args}'; echo $? > {}; stty -a > {}; sleep 60",
        file("pid"),
        file("status"),
        file("stty"),
    );
    let tmux = Tmux::start(&format!("signal-{signal}"), size.0, size.1, &command);
    tmux.wait_for("start new game");
    let pid = std::fs::read_to_string(file("pid")).expect("pid");
    let sent =
        Command::new("kill").args([&format!("-{signal}"), pid.trim()]).status().expect("kill");
    assert!(sent.success(), "kill -{signal}");
    let stty = dir.join("stty");
    tmux.wait_until("the shell's stty", |_| std::fs::metadata(&stty).is_ok_and(|m| m.len() > 0));
    let status = std::fs::read_to_string(file("status")).expect("status").trim().to_string();
    let modes = std::fs::read_to_string(&stty).expect("stty");
    Killed { tmux, status, modes }
}

#[cfg(unix)]
impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// Whether tmux can be run; under CI its absence fails the test.
#[cfg(unix)]
pub fn tmux_available() -> bool {
    let found = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var_os("CI").is_none(), "tmux is missing under CI: .ci/run installs it");
        eprintln!("tmux is not installed: this terminal test is skipped");
    }
    found
}

/// Fails at once, saying why, if SIG`name` (number `number`) is ignored in
/// this test process: tictac keeps a signal ignored at its start ignored
/// (as `nohup` asks), so a test that sends it would wait out its limit and
/// fail as a hang. A non-interactive shell starts a background job (`cmd &`
/// in a script) with SIGINT and SIGQUIT ignored; `setsid` keeps them
/// ignored, `set -m` in the script or `env --default-signal` does not.
/// Read from `SigIgn` in /proc/self/status (Linux); elsewhere nothing is
/// checked.
#[cfg(unix)] // for the tests that send signals
pub fn assert_signal_not_ignored(name: &str, number: u32) {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return };
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:"));
    let mask = mask.and_then(|m| u64::from_str_radix(m.trim(), 16).ok()).expect("SigIgn");
    assert!(
        mask & (1 << (number - 1)) == 0,
        "SIG{name} is ignored in this test process (started as a background job?): \
         start cargo test in the foreground, or as `env --default-signal=INT,QUIT cargo test`"
    );
}

/// A path as the command line takes it.
pub fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// An executable shell script standing in for a student's program or an
/// oracle.
#[cfg(unix)]
pub fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let p = file(dir, name, format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    p
}

/// A folder of tests `a` and `b` with correct expected outputs.
#[cfg(target_os = "linux")] // for runner_hostile and containment
pub fn suite() -> tempfile::TempDir {
    let dir = temp_dir();
    std::fs::write(dir.path().join("a.txt"), "new_game(\"a\",\"b\")\n").expect("write");
    std::fs::write(dir.path().join("b.txt"), "undo\n").expect("write");
    let o = tictac(&["test", "--bless", &path(dir.path())]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    dir
}

/// An executable shell script in `dir` for a hostile program. Called with
/// `child` it sleeps, as a copy of `sleep` in `dir`, so that its command
/// line names the folder and it can be found (`processes_with`); `$me` is
/// the script itself.
#[cfg(target_os = "linux")] // for runner_hostile and containment
pub fn hostile_script(dir: &Path, name: &str, body: &str) -> String {
    let sleep = dir.join("sleep");
    if !sleep.exists() {
        let system = ["/bin/sleep", "/usr/bin/sleep"].into_iter().find(|s| Path::new(s).exists());
        std::fs::copy(system.expect("a sleep program"), &sleep).expect("copy sleep");
    }
    let child = "if [ \"$1\" = child ]; then exec \"${0%/*}/sleep\" 1000; fi";
    script(dir, name, &format!("{child}\nme=\"$0\"\n{body}"))
}

/// Live processes whose command line contains `marker` (zombies have none).
#[cfg(target_os = "linux")] // for runner_hostile and containment
pub fn processes_with(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// Waits until the programs under `marker` (`hostile_script`s that start
/// an escaped sleeper and a sleeper of their own) have all started both:
/// at least two sleepers (copies of `sleep` under `marker`), and two for
/// each other process naming `marker` but tictac (each program's shell;
/// any shell still forking, a `$(...)` or a `setsid` about to exec, is
/// one more and is waited out). Fails after 10 s, listing what runs.
#[cfg(target_os = "linux")] // for runner_hostile and containment
pub fn wait_for_sleepers(marker: &str, context: &str) {
    let argv0 = |pid: u32| {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let first = cmdline.split(|&b| b == 0).next().unwrap_or_default().to_vec();
        String::from_utf8_lossy(&first).into_owned()
    };
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let programs: Vec<String> =
            processes_with(marker).into_iter().map(argv0).filter(|a| a != BIN).collect();
        let sleepers = programs.iter().filter(|a| a.ends_with("/sleep")).count();
        let others = programs.len() - sleepers;
        if sleepers >= 2 && sleepers == 2 * others {
            return;
        }
        assert!(Instant::now() < until, "{context}: not every program's sleepers: {programs:?}");
        sleep(Duration::from_millis(20));
    }
}

/// Fails if any process with `marker` is still alive 2 s later (killing
/// what it finds first, so a failure leaves less behind).
#[cfg(target_os = "linux")] // for runner_hostile and containment
pub fn assert_none_left(marker: &str) {
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() > until {
            let described: Vec<String> = left.iter().map(|&pid| described(pid)).collect();
            for &pid in &left {
                let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            }
            panic!("processes left running:\n{}", described.join("\n"));
        }
        sleep(Duration::from_millis(20));
    }
}

/// A process as a failure names it: its pid, state, parent, user, tag
/// (`TICTAC_RUN_TAG`) and command line.
#[cfg(target_os = "linux")]
fn described(pid: u32) -> String {
    let read = |what: &str| std::fs::read(format!("/proc/{pid}/{what}")).unwrap_or_default();
    let stat = String::from_utf8_lossy(&read("stat")).into_owned();
    let after_name = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().take(2).collect();
    let status = String::from_utf8_lossy(&read("status")).into_owned();
    let uid = status.lines().find_map(|l| l.strip_prefix("Uid:")).unwrap_or("").trim().to_owned();
    let environ = read("environ");
    let tag = environ.split(|&b| b == 0).find_map(|e| e.strip_prefix(b"TICTAC_RUN_TAG="));
    let tag = tag.map(|t| String::from_utf8_lossy(t).into_owned());
    let cmdline = String::from_utf8_lossy(&read("cmdline")).replace('\0', " ");
    format!("  {pid} state+parent {fields:?} uid {uid} tag {tag:?}: {cmdline}")
}

/// proptest's settings for a module's properties: `cases` cases unless
/// proptest's own `PROPTEST_CASES` asks for another number, and the failures
/// it finds kept beside the module (`tests/it/NAME.proptest-regressions`;
/// proptest's default would put them in `tests/proptest-regressions/`, since
/// this folder has a `main.rs`). Cases are drawn with XorShift, not
/// proptest's default ChaCha: in a debug build ChaCha's unoptimized vector
/// code took most of these tests' time (about 70 % of a property's CPU
/// under `perf`). A failure kept from ChaCha is replayed with ChaCha: the
/// file names the generator of each seed it keeps.
pub fn proptest_config(cases: u32) -> proptest::test_runner::Config {
    use proptest::test_runner::{Config, FileFailurePersistence, RngAlgorithm};
    let default = Config::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() { default.cases } else { cases };
    let kept = FileFailurePersistence::WithSource("proptest-regressions");
    Config {
        cases,
        failure_persistence: Some(Box::new(kept)),
        rng_algorithm: RngAlgorithm::XorShift,
        ..default
    }
}

/// The traces a fuzz session saved in `dir` (not their expected files),
/// sorted.
#[cfg(unix)] // for fuzz_session and fuzz_attacks
pub fn saved(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()))
        .into_iter()
        .flatten()
        .filter(|n| n.ends_with(".txt") && !n.ends_with(".expected.txt"))
        .collect();
    names.sort();
    names
}

/// The example model program (examples/mutant.rs with no mistake) as a
/// command of one word beside tictac, `-b TRACE` as a correct student's
/// program: under `tictac grade` as root, tictac itself answers nothing
/// for a program.
#[cfg(unix)]
pub fn model_program() -> String {
    use std::os::unix::fs::PermissionsExt;
    let target = Path::new(BIN).parent().expect("target");
    let mutant = target.join("examples").join("mutant");
    assert!(mutant.exists(), "{} is built by cargo test", mutant.display());
    let model = target.join("model.sh");
    let script = format!("#!/bin/sh\nexec '{}' none \"$@\"\n", path(&mutant));
    // Rewritten when it names another mutant (a target/ copied from another
    // checkout names that checkout's).
    if std::fs::read_to_string(&model).ok().as_deref() != Some(script.as_str()) {
        // Written aside then renamed: tests running at once see it whole.
        let aside = target.join(format!("model.sh.{}", std::process::id()));
        std::fs::write(&aside, &script).expect("write");
        std::fs::set_permissions(&aside, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::fs::rename(&aside, &model).expect("rename");
    }
    path(&model)
}
