//! Linux cgroup v2 containment, where one can be made: a folder of this
//! process's own cgroup (`tictac-PID`) holds one cgroup per program running
//! at once (`run-N`, reused from run to run: making and removing a cgroup
//! costs milliseconds). A program is moved into its run's cgroup as soon as
//! it has started (`adopt`). All it starts from then on is born there
//! whatever it does (`setsid`, `env -i`, double forks), and `cgroup.kill`
//! ends them all at once, a fork bomb included. What it forks before the
//! move (which waits on the kernel, often a millisecond or more) stays
//! outside; the subreaper's sweeps (see `guard`) find it, as they find
//! everything where there is no cgroup.
//! (Moving this process there for each fork instead, so that the child is
//! born inside, made starts one at a time across all workers: the fuzzer
//! ran at 47 % of a bare spawn loop's rate with two workers.)
//! The kernel must have `cgroup.kill` (5.14+), and this process write access
//! to its own cgroup (root, or a delegated one such as systemd's user
//! services); otherwise `probe` says no and the runner relies on the
//! subreaper's sweeps alone (see `guard`).
//!
//! `TICTAC_NO_CGROUP=1` in the environment makes `probe` say no.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The environment variable that turns cgroups off (the fallback is then
/// used, as on a machine that cannot make them).
const OFF_VAR: &str = "TICTAC_NO_CGROUP";

/// How long killed processes may take to leave their cgroup (a process
/// stuck in the kernel) before it is given up on.
const EMPTY_LIMIT: Duration = Duration::from_millis(500);

/// This process's cgroups for the programs it runs.
pub(super) struct Cgroups {
    /// This process's own cgroup, where it returns after the probe.
    home: Slot,
    /// `OWN/tictac-PID`: every run's cgroup is in it.
    base: Slot,
    /// Held while this process is out of `home` (the probe).
    away: Mutex<()>,
    /// This process could not return `home`: it is in a run's cgroup, so
    /// no cgroup is killed any more (the sweeps go on without).
    stranded: AtomicBool,
    /// Emptied run cgroups, ready for the next program.
    free: Mutex<Vec<Slot>>,
    next: AtomicU64,
}

/// One cgroup: its folder, and its path as `/proc/PID/cgroup` gives it.
#[derive(Clone, Debug)]
pub(super) struct Slot {
    dir: PathBuf,
    path: String,
}

impl Slot {
    fn child(&self, name: &str) -> Slot {
        Slot {
            dir: self.dir.join(name),
            path: format!("{}/{name}", self.path.trim_end_matches('/')),
        }
    }

    /// Moves `pid` (its every thread) into this cgroup.
    fn enter(&self, pid: u32) -> io::Result<()> {
        fs::write(self.dir.join("cgroup.procs"), pid.to_string())
    }

    /// Whether the cgroup `path` (as `of` gives it) is this one or under it.
    pub(super) fn holds(&self, path: &str) -> bool {
        path.strip_prefix(&self.path).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// Kills every process in this cgroup and under it (they cannot fork
    /// meanwhile: the kernel keeps new ones from being born there first).
    fn kill(&self) {
        let _ = fs::write(self.dir.join("cgroup.kill"), "1");
    }

    /// Kills every process here until none is left; whether it emptied
    /// within `limit`.
    fn empty(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        let mut pause = Duration::from_micros(20);
        // Most runs' programs have exited and left nothing: one read.
        if !self.populated() {
            return true;
        }
        loop {
            self.kill();
            if !self.populated() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            // Killed processes take a moment to exit.
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(5));
        }
    }

    /// Whether a process is here or under (`populated 1`). A cgroup that
    /// cannot be read is taken as empty: it is gone.
    fn populated(&self) -> bool {
        fs::read_to_string(self.dir.join("cgroup.events"))
            .is_ok_and(|events| events.lines().any(|line| line == "populated 1"))
    }
}

impl Cgroups {
    /// The cgroups of this process, if it may make them and move a process
    /// into one (tried on a first run cgroup, which is kept for use).
    pub(super) fn probe() -> Option<Cgroups> {
        if std::env::var_os(OFF_VAR).is_some_and(|v| !v.is_empty() && v != "0") {
            return None;
        }
        let own = own_cgroup()?;
        remove_stale(&own.dir);
        // In the root cgroup a child cgroup takes processes whatever the
        // controllers; elsewhere this one must have none for its children
        // (processes may not sit beside controlled children), which holds
        // since this process is in it.
        let base = own.child(&format!("tictac-{}", std::process::id()));
        fs::create_dir(&base.dir).ok()?;
        let cgroups = Cgroups {
            home: own,
            base,
            away: Mutex::new(()),
            stranded: AtomicBool::new(false),
            free: Mutex::new(Vec::new()),
            next: AtomicU64::new(0),
        };
        // The root cgroup has no `cgroup.kill`; any other has it from 5.14.
        if !cgroups.base.dir.join("cgroup.kill").exists() {
            cgroups.remove();
            return None;
        }
        // One run cgroup, and a move into it and back: a process that may
        // make a cgroup may still be refused to move (nsdelegate, ownership).
        let first = cgroups.take().ok()?;
        let moved = cgroups.visit(&first);
        cgroups.give_back(first, false);
        if moved && cgroups.usable() {
            Some(cgroups)
        } else {
            cgroups.remove();
            None
        }
    }

    /// A run cgroup for one program: an emptied one, or a new one.
    pub(super) fn take(&self) -> io::Result<Slot> {
        if let Some(slot) = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(slot);
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let slot = self.base.child(&format!("run-{n}"));
        fs::create_dir(&slot.dir)?;
        Ok(slot)
    }

    /// Moves this process into `slot` and back home: whether it could.
    fn visit(&self, slot: &Slot) -> bool {
        let _away = self.away.lock().unwrap_or_else(|p| p.into_inner());
        let me = std::process::id();
        let entered = self.usable() && slot.enter(me).is_ok();
        if entered && self.home.enter(me).is_err() {
            self.stranded.store(true, Ordering::Relaxed);
        }
        entered
    }

    /// Moves a program just started (and what it started meanwhile is left
    /// to the sweeps) into `slot`: whether it is there.
    pub(super) fn adopt(&self, slot: &Slot, pid: u32) -> bool {
        self.usable() && slot.enter(pid).is_ok()
    }

    /// Whether run cgroups may be killed: this process is in none of them.
    pub(super) fn usable(&self) -> bool {
        !self.stranded.load(Ordering::Relaxed)
    }

    /// Kills the processes in `slot` until it is empty (unless `emptied`:
    /// found empty since its program ended, and nothing enters an empty
    /// cgroup), then keeps it for the next run. One that will not empty (a
    /// process stuck in the kernel) is left for `remove`.
    pub(super) fn give_back(&self, slot: Slot, emptied: bool) {
        if self.usable() && (emptied || slot.empty(EMPTY_LIMIT)) {
            self.free.lock().unwrap_or_else(|p| p.into_inner()).push(slot);
        }
    }

    /// Kills `slot`'s processes (not waiting).
    pub(super) fn kill(&self, slot: &Slot) {
        if self.usable() {
            slot.kill();
        }
    }

    /// Kills every process in every run cgroup, waits until they are gone
    /// (briefly), and removes the cgroups.
    pub(super) fn remove(&self) {
        self.kill_all();
        remove_tree(&self.base.dir);
        self.free.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    /// Kills everything in every run cgroup, once this process is in none
    /// of them, and waits (briefly) until they are gone: what they forked
    /// before their move into a cgroup is then adopted, for the sweeps.
    pub(super) fn kill_all(&self) {
        let _home = self.away.lock().unwrap_or_else(|p| p.into_inner());
        if self.usable() {
            let _ = self.base.empty(EMPTY_LIMIT);
        }
    }

    /// Freezes (or thaws) every run's cgroup at once: nothing in them runs
    /// until thawed (Ctrl-Z on the runner).
    pub(super) fn freeze_all(&self, frozen: bool) {
        if self.usable() {
            let _ = fs::write(self.base.dir.join("cgroup.freeze"), if frozen { "1" } else { "0" });
        }
    }

    /// Kills `slot`'s processes until it is empty; whether it emptied.
    pub(super) fn empty(&self, slot: &Slot) -> bool {
        self.usable() && slot.empty(EMPTY_LIMIT)
    }
}

/// Removes `dir` and the cgroups under it (empty ones only: the kernel
/// refuses the others).
fn remove_tree(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_tree(&entry.path());
            }
        }
    }
    let _ = fs::remove_dir(dir);
}

/// `tictac-PID` folders left by runners that were killed (SIGKILL, the OOM
/// killer: nothing could be cleaned up) and are gone: what their programs
/// left running is killed, then the folders removed.
fn remove_stale(own: &Path) {
    let Ok(entries) = fs::read_dir(own) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("tictac-")) else { continue };
        let Ok(pid) = pid.parse::<u32>() else { continue };
        if !Path::new(&format!("/proc/{pid}")).exists() {
            let _ = Slot { dir: entry.path(), path: String::new() }.empty(EMPTY_LIMIT);
            remove_tree(&entry.path());
        }
    }
}

/// Kills what the runner `runner` left in its cgroups (`tictac-PID`
/// beside this process's own cgroup, which is the runner's: its keeper's
/// case), and removes them.
#[cfg(target_os = "linux")]
pub(super) fn kill_left_by(runner: u32) {
    let Some(own) = own_cgroup() else { return };
    let dir = own.dir.join(format!("tictac-{runner}"));
    if dir.is_dir() {
        let _ = Slot { dir: dir.clone(), path: String::new() }.empty(EMPTY_LIMIT);
        remove_tree(&dir);
    }
}

/// This process's cgroup in the cgroup v2 hierarchy.
fn own_cgroup() -> Option<Slot> {
    let listed = fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = listed.lines().find_map(|line| line.strip_prefix("0::"))?;
    let mounts = fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - TYPE SOURCE ...
        let (left, right) = line.split_once(" - ")?;
        if right.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let fields: Vec<&str> = left.split_whitespace().collect();
        let (root, mount) = (*fields.get(3)?, *fields.get(4)?);
        let inside = own.strip_prefix(root.trim_end_matches('/'))?;
        let dir = PathBuf::from(unescape(mount)).join(inside.trim_start_matches('/'));
        dir.is_dir().then(|| Slot { dir, path: own.to_string() })
    })
}

/// The cgroup v2 path of `pid` (from `/proc/PID/cgroup`).
pub(super) fn of(pid: i32) -> Option<String> {
    let listed = fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    listed.lines().find_map(|line| line.strip_prefix("0::")).map(str::to_owned)
}

/// mountinfo writes a space, tab, newline or backslash as `\NNN` (octal).
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut k = 0;
    while k < bytes.len() {
        let octal = bytes.get(k + 1..k + 4).and_then(|d| {
            let text = std::str::from_utf8(d).ok()?;
            u8::from_str_radix(text, 8).ok().filter(|_| d.iter().all(u8::is_ascii_digit))
        });
        match (bytes[k], octal) {
            (b'\\', Some(byte)) => {
                out.push(byte);
                k += 4;
            }
            (byte, _) => {
                out.push(byte);
                k += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_points_are_unescaped() {
        assert_eq!(unescape("/sys/fs/cgroup"), "/sys/fs/cgroup");
        assert_eq!(unescape("/a\\040b\\134c"), "/a b\\c");
        assert_eq!(unescape("/odd\\9"), "/odd\\9");
    }
}
