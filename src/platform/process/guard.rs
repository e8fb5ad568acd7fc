//! Keeping track of every process started through this module, so that none
//! outlives its run or the runner: each program leads a process group of its
//! own and carries a tag in its environment (inherited by its descendants);
//! on Linux this process is also a child subreaper, so descendants that leave
//! the group (`setsid`) and lose their parent become its children and can be
//! reaped. SIGINT, SIGTERM and SIGHUP stop every group and tagged process
//! first, then end this process as the signal would have (`crate::platform::signals`).
//!
//! After a run, its leftovers are found by walking this process's own tree
//! (`/proc/PID/task/TID/children`), not all of `/proc`: once the group is
//! gone, whatever the run left is a descendant of a child this process
//! adopted as subreaper. Where that cannot hold (no subreaper, no
//! `children` file, a group that will not die), all of `/proc` is searched
//! for the tag instead.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

/// The environment variable that tags a run's processes.
pub(crate) const TAG_VAR: &str = "TICTAC_RUN_TAG";

/// Rounds of looking for tagged processes (a fork flood makes new ones
/// while the old are stopped); each round stops all it finds.
const KILL_ROUNDS: usize = 200;

/// How long a sweep waits for a killed group to be gone (a process stuck in
/// the kernel) before searching all of `/proc` instead.
const SWEEP_LIMIT: Duration = Duration::from_millis(500);

#[derive(Default)]
struct Registry {
    /// Live direct children (and process group ids) with their tags.
    running: BTreeMap<i32, String>,
    /// Stopped descendants not yet reaped: they may still become ours.
    orphans: BTreeSet<i32>,
    /// Children being started, not yet in `running`: while any is, a child
    /// missing from `running` may be one of them, so none is reaped.
    spawning: usize,
    /// No more starts: the runner is stopping everything (a signal).
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    running: BTreeMap::new(),
    orphans: BTreeSet::new(),
    spawning: 0,
    closed: false,
});
static SETUP: Once = Once::new();
static NEXT_TAG: AtomicU64 = AtomicU64::new(0);
static ON_SIGNAL: OnceLock<crate::platform::signals::Registration> = OnceLock::new();
/// This process is a child subreaper and can list its children: a run's
/// leftovers are then found in its own tree.
static WALKABLE: AtomicBool = AtomicBool::new(false);

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere while holding the lock leaves plain data behind.
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A child started in its own group, with its tag; stop it with `finish`.
pub(crate) struct Started {
    pub(crate) child: Child,
    pub(crate) tag: String,
    /// What it left was stopped after it exited (`stop_descendants`).
    swept: bool,
}

/// Starts `command` in a process group of its own, tagged, and registered so
/// that a signal to this process stops it.
pub(crate) fn spawn(command: &mut Command) -> io::Result<Started> {
    SETUP.call_once(setup);
    let tag = format!("{}.{}", std::process::id(), NEXT_TAG.fetch_add(1, Ordering::Relaxed));
    command.env(TAG_VAR, &tag);
    std::os::unix::process::CommandExt::process_group(command, 0);
    // Counted while it starts (outside the lock, so that starts run in
    // parallel): reaping waits until no start is under way.
    {
        let mut registry = registry();
        if registry.closed {
            return Err(io::Error::other("the runner is stopping"));
        }
        registry.spawning += 1;
    }
    let spawned = command.spawn();
    let mut registry = registry();
    registry.spawning -= 1;
    let child = spawned?;
    registry.running.insert(child.id() as i32, tag.clone());
    Ok(Started { child, tag, swept: false })
}

/// Stops the group and every tagged descendant, reaps the child, and forgets
/// it. Safe to call whether or not the child has exited.
pub(crate) fn finish(started: &mut Started) -> io::Result<std::process::ExitStatus> {
    let pid = started.child.id() as i32;
    stop_group(pid);
    let status = started.child.wait();
    if !started.swept {
        sweep(started);
    }
    let mut registry = registry();
    registry.running.remove(&pid);
    reap_orphans(&mut registry);
    status
}

/// Stops the group and every tagged descendant of a child that has exited
/// and been reaped, so nothing they left behind holds its pipes open.
pub(crate) fn stop_descendants(started: &mut Started) {
    sweep(started);
    started.swept = true;
}

/// Stops what is left of a run whose leader has been reaped: its group, and
/// every process carrying its tag. With a walkable tree: kill the group and
/// the tagged processes under adopted children until the group is gone (so
/// every survivor has been adopted) and a walk finds nothing tagged alive.
/// A `children` list read while another entry leaves it may skip one (the
/// kernel says so), so when anything was adopted, two quiet walks in a row
/// are needed; when every child listed is a registered leader, one is
/// enough: this run's survivors are listed by the main thread (adoption)
/// or by this thread (`CLONE_PARENT`), whose entries leave only under the
/// registry's lock or by this thread's own reaping. Otherwise, or past
/// `SWEEP_LIMIT`, all of `/proc` is searched.
fn sweep(started: &Started) {
    let pid = started.child.id() as i32;
    let whole = format!("{}\0", started.tag);
    if WALKABLE.load(Ordering::Relaxed) {
        let needle = format!("{TAG_VAR}={whole}");
        let until = Instant::now() + SWEEP_LIMIT;
        let mut quiet = 0;
        while Instant::now() < until {
            let group_left = stop_group(pid);
            let (killed, adopted) = stop_adopted(&mut registry(), &needle);
            quiet = if group_left || killed { 0 } else { quiet + 1 };
            if quiet == 2 || (quiet == 1 && !adopted) {
                return;
            }
            if quiet == 0 {
                // Let what was killed die and its children be adopted.
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    }
    stop_group(pid);
    let stopped = stop_tagged(&whole);
    stop_group(pid);
    registry().orphans.extend(stopped);
}

/// Reaps adopted children that are done, and kills every process carrying
/// `needle` in the trees of the adopted ones: whether it killed any, and
/// whether any child was not a registered leader. Other runs' leaders and
/// their trees are left alone.
fn stop_adopted(registry: &mut Registry, needle: &str) -> (bool, bool) {
    let mut killed = false;
    let mut adopted = false;
    let mut stack = Vec::new();
    for child in children_of_self() {
        if registry.running.contains_key(&child) {
            continue;
        }
        adopted = true;
        let Some(p) = Pid::from_raw(child) else { continue };
        let done = || rustix::process::waitpid(Some(p), WaitOptions::NOHANG);
        if registry.spawning == 0 && matches!(done(), Ok(Some(_))) {
            registry.orphans.remove(&child);
            continue;
        }
        stack.push(child);
    }
    while let Some(pid) = stack.pop() {
        if has_tag(pid, needle)
            && let Some(p) = Pid::from_raw(pid)
        {
            let _ = rustix::process::kill_process(p, Signal::KILL);
            registry.orphans.insert(pid);
            killed = true;
        }
        stack.extend(children_of(&format!("/proc/{pid}/task")));
    }
    (killed, adopted)
}

/// Stops everything this process started through `spawn`, and every child
/// it adopted as a subreaper (the suite ended, or was interrupted). Only for
/// the end of a process whose children all came through `spawn`.
pub(crate) fn stop_all() {
    let mut registry = registry();
    // Starts under way finish first (briefly), so that none is missed.
    let until = Instant::now() + SWEEP_LIMIT;
    while registry.spawning > 0 && Instant::now() < until {
        drop(registry);
        std::thread::sleep(Duration::from_millis(1));
        registry = self::registry();
    }
    for &pid in registry.running.keys() {
        stop_group(pid);
    }
    let stopped = stop_tagged(&format!("{}.", std::process::id()));
    registry.orphans.extend(stopped);
    // Adopted descendants that shed their tag (a cleared environment): as
    // each dies, its own children are adopted in turn, so go on until no
    // live one is left.
    let me = std::process::id() as i32;
    for _ in 0..KILL_ROUNDS {
        let adopted: Vec<i32> = processes()
            .filter(|&pid| !registry.running.contains_key(&pid))
            .filter(|&pid| matches!(stat_of(pid), Some((parent, state)) if parent == me && state != 'Z'))
            .collect();
        if adopted.is_empty() {
            break;
        }
        for pid in adopted {
            if let Some(p) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(p, Signal::KILL);
            }
            registry.orphans.insert(pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    reap_orphans(&mut registry);
}

fn setup() {
    #[cfg(target_os = "linux")]
    {
        // Without it (other kernels, sandboxes) groups and tags still work.
        let reaper = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
        let listed = std::fs::metadata("/proc/thread-self/children").is_ok();
        WALKABLE.store(reaper.is_ok() && listed, Ordering::Relaxed);
    }
    // Kept for the life of the process: any run may be interrupted; after
    // a signal, nothing more is started.
    let _ = ON_SIGNAL.set(crate::platform::signals::on_fatal_signal(|| {
        registry().closed = true;
        stop_all();
    }));
}

/// Kills the process group; whether it still had members (zombies too).
fn stop_group(pgid: i32) -> bool {
    // Gone already is fine.
    Pid::from_raw(pgid)
        .is_some_and(|pgid| rustix::process::kill_process_group(pgid, Signal::KILL).is_ok())
}

/// Stops every process whose environment holds `TAG_VAR=` then `needle`
/// (a whole tag and its NUL, or a prefix for all of this runner's tags);
/// returns them, to be reaped.
fn stop_tagged(needle: &str) -> Vec<i32> {
    let needle = format!("{TAG_VAR}={needle}");
    let mut stopped = Vec::new();
    for _ in 0..KILL_ROUNDS {
        let found: Vec<i32> = processes().filter(|&pid| has_tag(pid, &needle)).collect();
        if found.is_empty() {
            break;
        }
        for pid in found {
            if let Some(p) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(p, Signal::KILL);
                stopped.push(pid);
            }
        }
    }
    stopped
}

/// Reaps stopped descendants that have become this process's children; the
/// others are tried again next time. Never touches a registered child.
fn reap_orphans(registry: &mut Registry) {
    if registry.spawning > 0 {
        return; // next time
    }
    let me = std::process::id() as i32;
    let orphans = std::mem::take(&mut registry.orphans);
    for pid in orphans {
        if registry.running.contains_key(&pid) {
            continue;
        }
        match parent_of(pid) {
            None => {} // gone: reaped elsewhere
            Some(parent) if parent == me => {
                let reaped = Pid::from_raw(pid).map(|p| {
                    rustix::process::waitpid(Some(p), rustix::process::WaitOptions::NOHANG)
                });
                if !matches!(reaped, Some(Ok(Some(_)))) {
                    registry.orphans.insert(pid);
                }
            }
            Some(_) => {
                registry.orphans.insert(pid);
            }
        }
    }
}

/// The children of every thread of this process.
fn children_of_self() -> Vec<i32> {
    children_of("/proc/self/task")
}

/// The children of every thread under `tasks` (a `/proc/PID/task` folder);
/// none when it is gone.
fn children_of(tasks: &str) -> Vec<i32> {
    let mut children = Vec::new();
    let Ok(threads) = std::fs::read_dir(tasks) else { return children };
    let mut list = Vec::new();
    for thread in threads.flatten() {
        if read_small(&thread.path().join("children"), &mut list).is_err() {
            continue;
        }
        let pids = list.split(|b| b.is_ascii_whitespace()).filter(|p| !p.is_empty());
        children.extend(pids.filter_map(|p| std::str::from_utf8(p).ok()?.parse::<i32>().ok()));
    }
    children
}

/// Reads a small file into `into` (a `/proc` file: no size to ask first).
fn read_small(path: &std::path::Path, into: &mut Vec<u8>) -> io::Result<()> {
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

fn processes() -> impl Iterator<Item = i32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
}

fn has_tag(pid: i32, needle: &str) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { return false };
    let needle = needle.as_bytes();
    environ.split(|&b| b == 0).any(|var| {
        // A whole tag ends in NUL: compare with the variable and its end.
        match needle.strip_suffix(b"\0") {
            Some(whole) => var == whole,
            None => var.starts_with(needle),
        }
    })
}

/// The parent of `pid`.
fn parent_of(pid: i32) -> Option<i32> {
    stat_of(pid).map(|(parent, _)| parent)
}

/// The parent and state (`R`, `S`, `Z`...) of `pid`, from `/proc/PID/stat`
/// (read after the command's `)`, which may itself hold spaces).
fn stat_of(pid: i32) -> Option<(i32, char)> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let close = stat.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&stat[close + 1..]).ok()?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((fields.next()?.parse().ok()?, state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_parent_and_no_tag() {
        let me = std::process::id() as i32;
        assert!(parent_of(me).is_some_and(|p| p > 0));
        assert!(processes().any(|p| p == me));
        assert!(!has_tag(me, &format!("{TAG_VAR}=nothing\0")));
    }

    #[test]
    fn a_child_is_listed_among_this_process_children() {
        let mut child = Command::new("sleep").arg("5").spawn().expect("sleep");
        let pid = child.id() as i32;
        let listed = children_of_self().contains(&pid);
        let _ = child.kill();
        let _ = child.wait();
        assert!(listed, "{pid} not in {:?}", children_of_self());
        assert!(children_of(&format!("/proc/{pid}/task")).is_empty());
    }
}
