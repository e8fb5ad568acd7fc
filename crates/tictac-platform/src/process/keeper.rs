//! The runner's programs die with it even when it is killed outright
//! (SIGKILL: the OOM killer, `timeout -s KILL`, a task manager), which no
//! cleanup of its own survives. At its first program start the runner
//! starts this executable again as a keeper (`KEEP` first), in a session of
//! its own (Ctrl-C on the terminal does not reach it), reading a pipe whose
//! other end the runner alone holds (close-on-exec: no program inherits
//! it). However the runner ends, the kernel closes that end; the keeper
//! reads the end of the pipe, then kills what is left: everything in the
//! runner's cgroups (`tictac-PID`, beside the keeper's own cgroup, which is
//! the runner's), and every process carrying one of the runner's tags
//! (`guard::TAG_VAR`). After a clean end both are empty already.
//! Not reached: without cgroups, a process that shed its tag (`env -i`)
//! and was adopted by init; a keeper killed first (a signal to its
//! session, `kill -9 -1`). (`PR_SET_PDEATHSIG` in the program would need
//! code between fork and exec, which is `unsafe` or a helper per run, and
//! would reach the program alone, not what it started.)

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::process::{ChildStdin, Command, Stdio};
use std::sync::OnceLock;

/// The first argument that makes this executable a keeper (no person
/// types it); the runner's pid follows.
const KEEP: &str = "\u{1}tictac-keep";

/// The keeper's pid, and the runner's end of its pipe (held for the life
/// of the process: the kernel closes it when the process ends).
static KEEPER: OnceLock<Option<(i32, ChildStdin)>> = OnceLock::new();

/// Starts the keeper, once (after the cgroups are made, while this process
/// is in its own cgroup, where the keeper is then born).
pub(super) fn start() {
    KEEPER.get_or_init(|| {
        // A start like a program's (see `STARTS`).
        let _starting = super::starting();
        // Linux's name of this executable, good even once the file is
        // renamed or rebuilt.
        let child = Command::new("/proc/self/exe")
            .arg(KEEP)
            .arg(std::process::id().to_string())
            .env_remove(super::guard::TAG_VAR)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let pid = i32::try_from(child.id()).ok()?;
        Some((pid, child.stdin?))
    });
}

/// The keeper's pid, if one was started: no sweep of this process's
/// children may stop it.
pub(super) fn pid() -> Option<i32> {
    KEEPER.get().and_then(|k| k.as_ref()).map(|(pid, _)| *pid)
}

/// When this process was started as a keeper: waits for its runner's end,
/// kills what the runner left, and gives the exit status. None otherwise.
pub fn kept(args: &[OsString]) -> Option<i32> {
    if args.get(1).map(OsString::as_os_str) != Some(OsStr::new(KEEP)) {
        return None;
    }
    let runner = args.get(2).and_then(|p| p.to_str()?.parse::<u32>().ok())?;
    // Out of the terminal's process group: Ctrl-C goes to the runner, whose
    // own cleanups stop its programs.
    let _ = rustix::process::setsid();
    let mut buf = [0u8; 64];
    let mut stdin = std::io::stdin().lock();
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    super::cgroup::kill_left_by(runner);
    super::guard::stop_tagged(&format!("{runner}."));
    Some(0)
}
