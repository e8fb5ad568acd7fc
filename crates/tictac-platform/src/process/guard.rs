//! Keeping track of every process started through this module, so that none
//! outlives its run or the runner. This is the containment seam: the rest
//! of the program starts a child with `spawn` and ends a run with `finish`
//! (or `stop_descendants` once the child has exited), and calls `stop_all`
//! when it is done; how the leftovers are found is this file's business.
//!
//! Each program starts a session of its own (`setsid`: no controlling
//! terminal, and a process group of its own) and carries a tag in its
//! environment, inherited by its descendants. On Linux:
//! - where a cgroup v2 can be made (`cgroup`), each program is moved into a
//!   cgroup of its own as soon as it has started; the end of its run kills
//!   that cgroup, which holds whatever it started however it left its
//!   session (what it forked before the move, the sweeps find);
//! - this process is a child subreaper in any case, so a descendant whose
//!   parent dies is adopted by it rather than by init. After each run, its
//!   adopted children are swept in rounds: each that belongs to the run (its
//!   cgroup or its tag) or to no run still going (an untagged process outside
//!   any cgroup) is stopped with its whole subtree (SIGSTOP), then killed, and
//!   reaped, until a round finds none. A fork-churning daemon cannot outrun
//!   this: what is stopped cannot fork, and what a killed one leaves is
//!   adopted in turn.
//!
//! Without a subreaper or `/proc` (other systems), a run's process group is
//! killed and, on Linux, all of `/proc` is searched for its tag.
//! SIGINT, SIGTERM, SIGHUP and the other fatal signals stop every run first,
//! then end this process as the signal would have (`crate::signals`).

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions};

use super::cgroup::{Cgroups, Slot};
use super::spawn::{Child, Pipes};
use super::terminal;
use super::tree::{self, freeze_and_kill};

/// The environment variable that tags a run's processes.
pub const TAG_VAR: &str = "TICTAC_RUN_TAG";

/// Rounds of the `/proc` search for tagged processes (a fork flood makes new
/// ones while the old are stopped); each round stops all it finds.
const KILL_ROUNDS: usize = 200;

/// How long a sweep of adopted processes may go on (a process stuck in the
/// kernel, one that cannot be signalled) before all of `/proc` is searched
/// instead.
const SWEEP_LIMIT: Duration = Duration::from_millis(1000);

/// How long killed processes may take to leave their cgroup.
const EMPTY_LIMIT: Duration = Duration::from_millis(500);

/// A run still going: its tag, and its cgroup if it has one.
struct Run {
    tag: String,
    slot: Option<Slot>,
}

#[derive(Default)]
struct Registry {
    /// Registered children (process group ids too) and their runs.
    running: BTreeMap<i32, Run>,
    /// Tags of runs started or starting and not yet finished.
    live_tags: BTreeSet<String>,
    /// Stopped descendants not yet reaped: they may still become ours.
    orphans: BTreeSet<i32>,
    /// Children being started, not yet in `running`: while any is, a child
    /// missing from `running` may be one of them, so none is reaped, and an
    /// untagged one (a child between its fork and its exec) is not killed.
    spawning: usize,
    /// No more starts: the runner is stopping everything (a signal).
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    running: BTreeMap::new(),
    live_tags: BTreeSet::new(),
    orphans: BTreeSet::new(),
    spawning: 0,
    closed: false,
});
static SETUP: Once = Once::new();
static NEXT_TAG: AtomicU64 = AtomicU64::new(0);
static ON_SIGNAL: OnceLock<crate::signals::Registration> = OnceLock::new();
/// This process is a child subreaper and can list its children: a run's
/// leftovers are then found in its own tree.
static WALKABLE: AtomicBool = AtomicBool::new(false);
/// The cgroups of the runs, where they can be made.
static CGROUPS: OnceLock<Option<Cgroups>> = OnceLock::new();
/// Set once the cgroups are removed (the end of the process): later runs
/// go without.
static CGROUPS_CLOSED: AtomicBool = AtomicBool::new(false);

fn registry() -> MutexGuard<'static, Registry> {
    // A panic elsewhere while holding the lock leaves plain data behind.
    REGISTRY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn cgroups() -> Option<&'static Cgroups> {
    if CGROUPS_CLOSED.load(Ordering::Relaxed) {
        return None;
    }
    CGROUPS.get().and_then(Option::as_ref)
}

/// A child started in a session of its own, with its tag; stop it with
/// `finish`.
pub struct Started {
    pub child: Child,
    pub tag: String,
    slot: Option<Slot>,
    /// What it left was stopped after it exited (`stop_descendants`).
    swept: bool,
    /// Its cgroup was found empty after the sweep: nothing enters an empty
    /// one, so it goes back for the next run as it is.
    emptied: bool,
}

/// Starts `argv` in a session of its own (no controlling terminal),
/// tagged, in a cgroup of its own where there are cgroups, and registered
/// so that a signal to this process stops it; with a pipe to type into
/// when `typed`.
pub fn spawn(argv: &[OsString], typed: bool) -> io::Result<(Started, Pipes)> {
    SETUP.call_once(setup);
    let tag = format!("{}.{}", std::process::id(), NEXT_TAG.fetch_add(1, Ordering::Relaxed));
    // Counted while it starts (outside the lock, so that starts run in
    // parallel): reaping waits until no start is under way.
    {
        let mut registry = registry();
        if registry.closed {
            return Err(io::Error::other("the runner is stopping"));
        }
        registry.spawning += 1;
        registry.live_tags.insert(tag.clone());
    }
    terminal::run_began();
    let slot = cgroups().and_then(|c| c.take().ok());
    let spawned = super::spawn::spawn(argv, (TAG_VAR, &tag), typed);
    let mut registry = registry();
    registry.spawning -= 1;
    let (child, pipes) = match spawned {
        Ok(spawned) => spawned,
        Err(e) => {
            registry.live_tags.remove(&tag);
            drop(registry);
            terminal::run_ended();
            if let (Some(cgroups), Some(slot)) = (cgroups(), slot) {
                cgroups.give_back(slot, false);
            }
            return Err(e);
        }
    };
    // Started while a signal's cleanup was stopping everything, after it
    // had given up waiting for this start: no sweep will come for it.
    let pid = child.id() as i32;
    if registry.closed {
        registry.live_tags.remove(&tag);
        drop(registry);
        let mut child = child;
        child.kill();
        stop_group(pid);
        let _ = child.wait();
        return Err(io::Error::other("the runner is stopping"));
    }
    // Registered at once, so that another run's sweep knows it; moved into
    // its cgroup after, outside the lock.
    registry.running.insert(pid, Run { tag: tag.clone(), slot: slot.clone() });
    drop(registry);
    let slot = match (cgroups(), slot) {
        (Some(cgroups), Some(slot)) if cgroups.adopt(&slot, child.id()) => Some(slot),
        (Some(cgroups), Some(slot)) => {
            if let Some(run) = self::registry().running.get_mut(&pid) {
                run.slot = None;
            }
            cgroups.give_back(slot, false);
            None
        }
        _ => None,
    };
    Ok((Started { child, tag, slot, swept: false, emptied: false }, pipes))
}

/// Stops the run's session, cgroup and every descendant, reaps the child,
/// and forgets it. Safe to call whether or not the child has exited.
pub fn finish(started: &mut Started) -> io::Result<ExitStatus> {
    let pid = started.child.id() as i32;
    // A child not yet reaped keeps its pid: killing it cannot hit another.
    started.child.kill();
    stop_group(pid);
    // Once swept, its cgroup was emptied, and nothing enters an empty one.
    if let (Some(cgroups), Some(slot), false) = (cgroups(), &started.slot, started.swept) {
        cgroups.kill(slot);
    }
    let status = started.child.wait();
    if !started.swept {
        started.emptied = sweep(started);
    }
    let mut registry = registry();
    registry.running.remove(&pid);
    registry.live_tags.remove(&started.tag);
    reap_orphans(&mut registry);
    drop(registry);
    terminal::run_ended();
    if let (Some(cgroups), Some(slot)) = (cgroups(), started.slot.take()) {
        cgroups.give_back(slot, started.emptied);
    }
    status
}

/// Stops everything a child that has exited (and been reaped) left behind,
/// so nothing holds its pipes open.
pub fn stop_descendants(started: &mut Started) {
    started.emptied = sweep(started);
    started.swept = true;
}

/// Stops what is left of a run whose leader has been reaped: its session's
/// group, its cgroup, and its adopted descendants (see the module's doc).
/// Without a walkable tree, or past `SWEEP_LIMIT`, all of `/proc` is
/// searched for its tag instead. Whether its cgroup was found empty.
fn sweep(started: &Started) -> bool {
    let pid = started.child.id() as i32;
    stop_group(pid);
    let emptied = match (cgroups(), &started.slot) {
        (Some(cgroups), Some(slot)) => cgroups.empty(slot),
        _ => false,
    };
    if WALKABLE.load(Ordering::Relaxed) && sweep_adopted(Some(started)) {
        return emptied;
    }
    stop_group(pid);
    let stopped = stop_tagged(&format!("{}\0", started.tag));
    stop_group(pid);
    registry().orphans.extend(stopped);
    emptied
}

/// Whose an adopted process is, for the sweep of one run.
#[derive(PartialEq)]
enum Owner {
    /// The run being swept, or no run still going: it is stopped.
    Leftover,
    /// Another run still going: left alone.
    Running,
    /// No run's, but a start is under way: it may be that child between
    /// its fork and its exec, so it waits for the next round.
    Unsure,
}

/// A cgroup says whose a process is even when it shed its tag; the tag
/// says it outside cgroups; a process with neither is no run's.
fn owner(pid: i32, of: Option<&Started>, registry: &Registry) -> Owner {
    let Some(run) = of else { return Owner::Leftover };
    let cgroup = cgroups().and(super::cgroup::of(pid));
    if let Some(cgroup) = &cgroup {
        if run.slot.as_ref().is_some_and(|slot| slot.holds(cgroup)) {
            return Owner::Leftover;
        }
        let others = registry.running.values().filter(|r| r.tag != run.tag);
        if others.filter_map(|r| r.slot.as_ref()).any(|slot| slot.holds(cgroup)) {
            return Owner::Running;
        }
    }
    match tree::env_of(pid, TAG_VAR) {
        Some(tag) if tag == run.tag => Owner::Leftover,
        Some(tag) if registry.live_tags.contains(&tag) => Owner::Running,
        None if registry.spawning > 0 => Owner::Unsure,
        _ => Owner::Leftover,
    }
}

/// Sweeps this process's adopted children in rounds until none that is a
/// leftover of `of` (or, without `of`, none at all) is left: each round
/// reaps the dead, then stops and kills the leftovers with their subtrees.
/// A `children` list read while an entry leaves it may skip one (the kernel
/// says so), so when anything is adopted two quiet rounds in a row are
/// needed. Whether it finished within `SWEEP_LIMIT`.
fn sweep_adopted(of: Option<&Started>) -> bool {
    let until = Instant::now() + SWEEP_LIMIT;
    let mut quiet = 0;
    while Instant::now() < until {
        let mut registry = registry();
        let mut leftovers = Vec::new();
        let mut adopted = false;
        let mut unsure = false;
        // A run's leftovers are where its thread and the main one find
        // them; at the end, everything is looked at.
        let children = match of {
            Some(_) => tree::children_of_this_thread_and_main(),
            None => tree::children_of_self(),
        };
        for child in children {
            // The keeper is a child for the life of the runner, adopted
            // by nobody: a sweep that counted it would take two rounds.
            if registry.running.contains_key(&child) || keeper_pid() == Some(child) {
                continue;
            }
            adopted = true;
            if registry.spawning == 0 && reaped(child) {
                registry.orphans.remove(&child);
                continue;
            }
            match owner(child, of, &registry) {
                Owner::Leftover => leftovers.push(child),
                Owner::Running => {}
                Owner::Unsure => unsure = true,
            }
        }
        let killed = freeze_and_kill(&leftovers);
        registry.orphans.extend(killed);
        drop(registry);
        quiet = if leftovers.is_empty() && !unsure { quiet + 1 } else { 0 };
        if quiet == 2 || (quiet == 1 && !adopted) {
            return true;
        }
        // Let what was killed die and its children be adopted.
        std::thread::sleep(Duration::from_micros(50));
    }
    false
}

/// Waits (at most `limit`) until each of `pids`, children of this process
/// just killed, has exited, without reaping them (their runs' threads do):
/// their children are then adopted.
fn await_exits(pids: &[i32], limit: Duration) {
    use rustix::process::{WaitId, WaitIdOptions, waitid};
    let until = Instant::now() + limit;
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
    for pid in pids.iter().filter_map(|&pid| Pid::from_raw(pid)) {
        // Ok(None): still running. An error: reaped already, gone.
        while matches!(waitid(WaitId::Pid(pid), options), Ok(None)) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The keeper's pid (Linux's alone), which no sweep stops.
fn keeper_pid() -> Option<i32> {
    #[cfg(target_os = "linux")]
    return super::keeper::pid();
    #[cfg(not(target_os = "linux"))]
    None
}

/// Whether `pid`, a child of this process, had exited and is now reaped.
fn reaped(pid: i32) -> bool {
    let Some(p) = Pid::from_raw(pid) else { return false };
    matches!(rustix::process::waitpid(Some(p), WaitOptions::NOHANG), Ok(Some(_)))
}

/// Stops everything this process started through `spawn`, and every child
/// it adopted as a subreaper (the suite ended, or was interrupted), and
/// removes the cgroups. Only for the end of a process whose children all
/// came through `spawn`.
pub fn stop_all() {
    let mut registry = registry();
    // Starts under way finish first (briefly), so that none is missed.
    let until = Instant::now() + EMPTY_LIMIT;
    while registry.spawning > 0 && Instant::now() < until {
        drop(registry);
        std::thread::sleep(Duration::from_millis(1));
        registry = self::registry();
    }
    for &pid in registry.running.keys() {
        stop_group(pid);
    }
    if let Some(cgroups) = cgroups() {
        cgroups.kill_all();
    }
    let leaders: Vec<i32> = registry.running.keys().copied().collect();
    drop(registry);
    // What a program left that escaped its group is adopted only once the
    // program has exited, which a loaded machine may take a while to do:
    // a sweep before that would find nothing and end.
    await_exits(&leaders, SWEEP_LIMIT);
    let swept = WALKABLE.load(Ordering::Relaxed) && sweep_adopted(None);
    if !swept {
        let stopped = stop_tagged(&format!("{}.", std::process::id()));
        registry = self::registry();
        registry.orphans.extend(stopped);
        drop(registry);
    }
    reap_orphans(&mut self::registry());
    if let Some(cgroups) = cgroups() {
        CGROUPS_CLOSED.store(true, Ordering::Relaxed);
        cgroups.remove();
    }
    terminal::put_back();
}

/// Time this process spent stopped by Ctrl-Z (SIGTSTP) while runs went
/// on, in microseconds: their deadlines move by as much.
static SUSPENDED_MICROS: AtomicU64 = AtomicU64::new(0);
static SUSPENDED_AT: Mutex<Option<Instant>> = Mutex::new(None);

/// How long this process has been stopped by Ctrl-Z in all, a stop not yet
/// accounted for included: after `fg` the runs' threads go on at once,
/// before `resume_runs` (on the signal thread) has added the stop, and must
/// not take it for their programs' time.
pub fn time_suspended() -> Duration {
    let at = SUSPENDED_AT.lock().unwrap_or_else(|p| p.into_inner());
    let ongoing = at.map_or(Duration::ZERO, |at| at.elapsed());
    Duration::from_micros(SUSPENDED_MICROS.load(Ordering::SeqCst)) + ongoing
}

/// Before this process stops (Ctrl-Z): every run's programs are stopped
/// too (their cgroups frozen, their process groups sent SIGSTOP), so that
/// none goes on using the processor meanwhile.
fn suspend_runs() {
    *SUSPENDED_AT.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    if let Some(cgroups) = cgroups() {
        cgroups.freeze_all(true);
    }
    for &pid in registry().running.keys() {
        signal_group(pid, Signal::STOP);
    }
}

/// After this process is continued (`fg`, `bg`): the programs go on, and
/// the runs' deadlines are moved by the time stopped.
fn resume_runs() {
    for &pid in registry().running.keys() {
        signal_group(pid, Signal::CONT);
    }
    if let Some(cgroups) = cgroups() {
        cgroups.freeze_all(false);
    }
    // Moved from the ongoing stop to the total under the lock, so that
    // `time_suspended` never counts it twice nor misses it.
    let mut suspended_at = SUSPENDED_AT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(at) = suspended_at.take() {
        let micros = u64::try_from(at.elapsed().as_micros()).unwrap_or(u64::MAX);
        SUSPENDED_MICROS.fetch_add(micros, Ordering::SeqCst);
    }
}

/// Makes this process the child subreaper of what it starts (Linux's
/// alone); whether it is one.
fn become_subreaper() -> bool {
    #[cfg(target_os = "linux")]
    return rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok();
    #[cfg(not(target_os = "linux"))]
    false
}

fn setup() {
    hide_descriptors();
    terminal::remember();
    // Without them (other kernels, sandboxes) sessions and tags still work.
    // Off Linux there is no subreaper, and the probe finds no cgroup.
    WALKABLE.store(become_subreaper() && tree::listable(), Ordering::Relaxed);
    let _ = CGROUPS.set(Cgroups::probe());
    #[cfg(target_os = "linux")]
    super::keeper::start();
    // Kept for the life of the process: any run may be interrupted; after
    // a signal, nothing more is started.
    let _ = ON_SIGNAL.set(crate::signals::on_fatal_signal(|| {
        registry().closed = true;
        stop_all();
    }));
    crate::signals::on_suspend(suspend_runs, resume_runs);
}

/// Makes this process non-dumpable (Linux): a program of the same user can
/// then no longer open `/proc/<this process>/fd/*` (the terminal, to read
/// the keyboard or change its modes) nor read this process's memory. Root's
/// programs still can (CAP_SYS_PTRACE). Programs get their own dumpable
/// state back when they execute. Kept for the life of the process.
fn hide_descriptors() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
}

/// Kills the process group; whether it still had members (zombies too).
fn stop_group(pgid: i32) -> bool {
    signal_group(pgid, Signal::KILL)
}

/// Sends `signal` to the process group; whether it still had members.
fn signal_group(pgid: i32, signal: Signal) -> bool {
    // Gone already is fine.
    Pid::from_raw(pgid)
        .is_some_and(|pgid| rustix::process::kill_process_group(pgid, signal).is_ok())
}

/// Stops every process whose environment holds `TAG_VAR=` then `needle`
/// (a whole tag and its NUL, or a prefix for all of this runner's tags);
/// returns them, to be reaped.
pub(super) fn stop_tagged(needle: &str) -> Vec<i32> {
    let (prefix, whole) = match needle.strip_suffix('\0') {
        Some(tag) => (tag, true),
        None => (needle, false),
    };
    let matches = |tag: &str| if whole { tag == prefix } else { tag.starts_with(prefix) };
    let mut stopped = Vec::new();
    for _ in 0..KILL_ROUNDS {
        let found: Vec<i32> = tree::processes()
            .filter(|&pid| tree::env_of(pid, TAG_VAR).is_some_and(|tag| matches(&tag)))
            .collect();
        if found.is_empty() {
            break;
        }
        stopped.extend(freeze_and_kill(&found));
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
        match tree::parent_of(pid) {
            None => {} // gone: reaped elsewhere
            Some(parent) if parent == me && reaped(pid) => {}
            Some(_) => {
                registry.orphans.insert(pid);
            }
        }
    }
}
