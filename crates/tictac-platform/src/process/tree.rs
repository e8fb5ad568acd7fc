//! This process's tree, read from Linux's `/proc`: its children (adopted
//! ones too, as a child subreaper), their descendants, what tag each
//! carries in its environment; and stopping a subtree so that none of it can
//! fork while it is being killed. Elsewhere `/proc` is absent: every list
//! here is then empty, and the callers rely on process groups alone.

use std::io;
use std::path::Path;
use std::time::Duration;

use rustix::process::{Pid, Signal};

/// The children of every thread of this process.
pub(super) fn children_of_self() -> Vec<i32> {
    children_of("/proc/self/task")
}

/// The children of this thread and of the main one: where what a run
/// started on this thread is found. Linux gives an orphan to the first
/// live thread of its subreaper, the main one; a run's program is this
/// thread's own child. Other threads' children (programs they are starting
/// at this moment) are theirs to sweep.
pub(super) fn children_of_this_thread_and_main() -> Vec<i32> {
    let mut children = Vec::new();
    let mut list = Vec::new();
    let main = format!("/proc/self/task/{}/children", std::process::id());
    for file in ["/proc/thread-self/children", main.as_str()] {
        if read_small(Path::new(file), &mut list).is_ok() {
            children.extend(pids_in(&list));
        }
    }
    // On the main thread, both lists are its own.
    children.sort_unstable();
    children.dedup();
    children
}

/// The pids in a `children` file.
fn pids_in(list: &[u8]) -> impl Iterator<Item = i32> + '_ {
    let pids = list.split(|b| b.is_ascii_whitespace()).filter(|p| !p.is_empty());
    pids.filter_map(|p| std::str::from_utf8(p).ok()?.parse::<i32>().ok())
}

/// The children of every thread of `pid`; none when it is gone.
pub(super) fn children_of_pid(pid: i32) -> Vec<i32> {
    children_of(&format!("/proc/{pid}/task"))
}

/// The children of every thread under `tasks` (a `/proc/PID/task` folder).
fn children_of(tasks: &str) -> Vec<i32> {
    let mut children = Vec::new();
    let Ok(threads) = std::fs::read_dir(tasks) else { return children };
    let mut list = Vec::new();
    for thread in threads.flatten() {
        if read_small(&thread.path().join("children"), &mut list).is_err() {
            continue;
        }
        children.extend(pids_in(&list));
    }
    children
}

/// Whether this process can list its children (`/proc/PID/task/TID/children`).
pub(super) fn listable() -> bool {
    std::fs::metadata("/proc/thread-self/children").is_ok()
}

/// Stops `roots` and everything under them, then kills them all: each is
/// stopped (SIGSTOP) before its children are listed, so none can add a
/// child that is missed, and nothing is killed before the whole subtree is
/// stopped, so no process is left to fork again. Returns what was killed.
pub(super) fn freeze_and_kill(roots: &[i32]) -> Vec<i32> {
    let mut frozen = Vec::new();
    let mut stack: Vec<i32> = roots.to_vec();
    while let Some(pid) = stack.pop() {
        if frozen.contains(&pid) {
            continue;
        }
        signal(pid, Signal::STOP);
        frozen.push(pid);
        stack.extend(children_of_pid(pid));
    }
    for &pid in &frozen {
        signal(pid, Signal::KILL);
    }
    frozen
}

pub(super) fn signal(pid: i32, signal: Signal) {
    if let Some(p) = Pid::from_raw(pid) {
        // Gone already is fine.
        let _ = rustix::process::kill_process(p, signal);
    }
}

/// Reads a small file into `into` (a `/proc` file: no size to ask first).
pub(super) fn read_small(path: &Path, into: &mut Vec<u8>) -> io::Result<()> {
    into.clear();
    let mut file = std::fs::File::open(path)?;
    let mut chunk = [0u8; 4096];
    loop {
        match io::Read::read(&mut file, &mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => into.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Every process on the machine.
pub(super) fn processes() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
}

/// The value of `var` in the environment `pid` started with (its
/// `/proc/PID/environ`); None when it has none or cannot be read.
pub(super) fn env_of(pid: i32, var: &str) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{var}=");
    environ.split(|&b| b == 0).find_map(|entry| {
        let value = entry.strip_prefix(prefix.as_bytes())?;
        Some(String::from_utf8_lossy(value).into_owned())
    })
}

/// The parent of `pid`.
pub(super) fn parent_of(pid: i32) -> Option<i32> {
    stat_of(pid).map(|(parent, _)| parent)
}

/// The parent and state (`R`, `S`, `Z`...) of `pid`.
pub(super) fn stat_of(pid: i32) -> Option<(i32, char)> {
    full_stat_of(pid).map(|stat| (stat.parent, stat.state))
}

/// What `/proc/PID/stat` says of a process, the fields the runner reads.
#[derive(Clone, Debug)]
pub(super) struct Stat {
    pub(super) pid: i32,
    /// Its command, as the kernel keeps it (at most 15 bytes).
    pub(super) name: String,
    pub(super) state: char,
    pub(super) parent: i32,
    pub(super) session: i32,
    /// CPU time it used, and its children it reaped used (utime, stime,
    /// cutime, cstime).
    pub(super) cpu: Duration,
}

/// `/proc/PID/stat`, read after the command's `)`, which may itself hold
/// spaces.
pub(super) fn full_stat_of(pid: i32) -> Option<Stat> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.iter().position(|&b| b == b'(')?;
    let close = stat.iter().rposition(|&b| b == b')')?;
    let name = String::from_utf8_lossy(stat.get(open + 1..close)?).into_owned();
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    // Fields 3 on (state, ppid, pgrp, session, ..., utime at 14).
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |k: usize| fields.get(k - 3)?.parse::<i64>().ok();
    let ticks: i64 = (14..=17).map(number).sum::<Option<i64>>()?;
    let per_second = rustix::param::clock_ticks_per_second().max(1);
    let cpu = Duration::from_secs_f64(ticks.max(0) as f64 / per_second as f64);
    Some(Stat {
        pid,
        name,
        state: fields.first()?.chars().next()?,
        parent: i32::try_from(number(4)?).ok()?,
        session: i32::try_from(number(6)?).ok()?,
        cpu,
    })
}

/// The processes of session `session` (a run's: its program leads one).
pub(super) fn session_of(session: i32) -> Vec<Stat> {
    processes().filter_map(full_stat_of).filter(|s| s.session == session).collect()
}

/// How long `pid` has waited, runnable, for a CPU (`/proc/PID/schedstat`'s
/// second field, in nanoseconds); None where the kernel does not say.
pub(super) fn waited_for_cpu(pid: i32) -> Option<Duration> {
    let mut text = Vec::new();
    read_small(Path::new(&format!("/proc/{pid}/schedstat")), &mut text).ok()?;
    let field = std::str::from_utf8(&text).ok()?.split_whitespace().nth(1)?;
    Some(Duration::from_nanos(field.parse().ok()?))
}

/// Whether `pid` holds pipe `inode` open (on any of its descriptors).
pub(super) fn holds_pipe(pid: i32, inode: u64) -> bool {
    let wanted = format!("pipe:[{inode}]");
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten()
        .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|link| link == Path::new(&wanted)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn this_process_has_a_parent_and_no_tag() {
        let me = std::process::id() as i32;
        assert!(parent_of(me).is_some_and(|p| p > 0));
        assert!(processes().any(|p| p == me));
        assert_eq!(env_of(me, "TICTAC_NO_SUCH_VARIABLE"), None);
    }

    #[test]
    fn a_child_is_listed_among_this_process_children() {
        let mut child = Command::new("sleep").arg("5").spawn().expect("sleep");
        let pid = child.id() as i32;
        let listed = children_of_self().contains(&pid);
        let _ = child.kill();
        let _ = child.wait();
        assert!(listed, "{pid} not in {:?}", children_of_self());
        assert!(children_of_pid(pid).is_empty());
    }

    #[test]
    fn a_subtree_is_stopped_then_killed_whole() {
        // A shell with a sleeping child: both are killed, the child too.
        let mut shell =
            Command::new("sh").args(["-c", "sleep 30 & sleep 30; wait"]).spawn().expect("sh");
        let pid = shell.id() as i32;
        let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while children_of_pid(pid).len() < 2 && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let grandchildren = children_of_pid(pid);
        let killed = freeze_and_kill(&[pid]);
        assert!(killed.contains(&pid) && grandchildren.iter().all(|g| killed.contains(g)));
        let status = shell.wait().expect("wait");
        assert!(!status.success());
        // Orphaned to whoever reaps them; none goes on running.
        let dead = |g: i32| stat_of(g).is_none_or(|(_, state)| state == 'Z' || state == 'X');
        while !grandchildren.iter().all(|&g| dead(g)) {
            assert!(std::time::Instant::now() < until, "{grandchildren:?} still alive");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
