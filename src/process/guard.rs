//! Keeping track of every process started through this module, so that none
//! outlives its run or the runner: each program leads a process group of its
//! own and carries a tag in its environment (inherited by its descendants);
//! on Linux this process is also a child subreaper, so descendants that leave
//! the group (`setsid`) and lose their parent become its children and can be
//! reaped. SIGINT, SIGTERM and SIGHUP stop every group and tagged process
//! first, then end this process as the signal would have (`crate::signals`).

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};

use rustix::process::{Pid, Signal};

/// The environment variable that tags a run's processes.
pub const TAG_VAR: &str = "TICTAC_RUN_TAG";

/// Rounds of looking for tagged processes (a fork flood makes new ones
/// while the old are stopped); each round stops all it finds.
const KILL_ROUNDS: usize = 200;

#[derive(Default)]
struct Registry {
    /// Live direct children (and process group ids) with their tags.
    running: BTreeMap<i32, String>,
    /// Stopped descendants not yet reaped: they may still become ours.
    orphans: BTreeSet<i32>,
}

static REGISTRY: Mutex<Registry> =
    Mutex::new(Registry { running: BTreeMap::new(), orphans: BTreeSet::new() });
static SETUP: Once = Once::new();
static NEXT_TAG: AtomicU64 = AtomicU64::new(0);
static ON_SIGNAL: OnceLock<crate::signals::Registration> = OnceLock::new();

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere while holding the lock leaves plain data behind.
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A child started in its own group, with its tag; stop it with `finish`.
pub struct Started {
    pub child: Child,
    pub tag: String,
}

/// Starts `command` in a process group of its own, tagged, and registered so
/// that a signal to this process stops it.
pub fn spawn(command: &mut Command) -> io::Result<Started> {
    SETUP.call_once(setup);
    let tag = format!("{}.{}", std::process::id(), NEXT_TAG.fetch_add(1, Ordering::Relaxed));
    command.env(TAG_VAR, &tag);
    std::os::unix::process::CommandExt::process_group(command, 0);
    // Spawned under the lock, so reaping never sees an unregistered child.
    let mut registry = registry();
    let child = command.spawn()?;
    registry.running.insert(child.id() as i32, tag.clone());
    Ok(Started { child, tag })
}

/// Stops the group and every tagged descendant, reaps the child, and forgets
/// it. Safe to call whether or not the child has exited.
pub fn finish(started: &mut Started) -> io::Result<std::process::ExitStatus> {
    let pid = started.child.id() as i32;
    stop_group(pid);
    let status = started.child.wait();
    let stopped = stop_tagged(&format!("{}\0", started.tag));
    stop_group(pid);
    let mut registry = registry();
    registry.running.remove(&pid);
    registry.orphans.extend(stopped);
    reap_orphans(&mut registry);
    status
}

/// Stops the group and every tagged descendant of a child that has exited,
/// so nothing they left behind holds its pipes open.
pub fn stop_descendants(started: &Started) {
    let pid = started.child.id() as i32;
    stop_group(pid);
    let stopped = stop_tagged(&format!("{}\0", started.tag));
    registry().orphans.extend(stopped);
}

/// Stops everything this process started through `spawn`, and every child
/// it adopted as a subreaper (the suite ended, or was interrupted). Only for
/// the end of a process whose children all came through `spawn`.
pub fn stop_all() {
    let mut registry = registry();
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
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    }
    // Kept for the life of the process: any run may be interrupted.
    let _ = ON_SIGNAL.set(crate::signals::on_fatal_signal(stop_all));
}

fn stop_group(pgid: i32) {
    if let Some(pgid) = Pid::from_raw(pgid) {
        // Gone already is fine.
        let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
    }
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
}
