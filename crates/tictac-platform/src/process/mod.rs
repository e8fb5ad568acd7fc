//! Running a program that cannot be trusted (a student's, an oracle): in a
//! session of its own, with no controlling terminal and standard input
//! from /dev/null or the text given, what it prints captured up to a cap,
//! stopped at a deadline or on request, and nothing it started left
//! running afterwards. Any front end may use it; it knows nothing of tests.
//!
//! The seam for process containment is `guard` (`spawn`, `finish`,
//! `stop_descendants`, `stop_all`): on Linux a cgroup v2 per run where one
//! can be made (`cgroup`) and the child subreaper's sweeps of this process's
//! own tree (`tree`); a port to another system fills the same four
//! functions. On Windows (`windows`) each run is a Job Object instead, and
//! its output is read on threads.

mod capture;
// Windows hands it codes; the mapping is compiled and tested everywhere.
#[cfg(unix)]
mod cgroup;
#[cfg_attr(not(windows), allow(dead_code))]
mod exception;
mod folder;
#[cfg(unix)]
mod guard;
#[cfg(target_os = "linux")]
mod keeper;
#[cfg(unix)]
mod spawn;
#[cfg(unix)]
mod terminal;
#[cfg(unix)]
mod tree;
#[cfg(unix)]
mod unix;
#[cfg(unix)]
mod user;
mod watch;
#[cfg(unix)]
use unix as system;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as system;

pub use capture::Capture;
pub use exception::Exception;
pub use folder::within;
pub use system::{exception_of, runnable, signal_name, signal_of, stop_all};
pub use watch::FolderWatch;

/// When this process was started as the keeper of a runner's programs
/// (Linux; see `keeper`): waits for the runner's end, kills what it left,
/// and gives the exit status. None otherwise.
pub fn kept(args: &[OsString]) -> Option<i32> {
    #[cfg(target_os = "linux")]
    return keeper::kept(args);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = args;
        None
    }
}

/// Makes every descriptor this process inherited beyond 0, 1 and 2
/// close-on-exec, so that no program it starts (a test's, a grade's, the
/// fuzzer's, a build, the oracle, one started as another user, the keeper)
/// gets one it is not handed on purpose: a file of root's a shell opened on
/// 7 (`7<answers.txt`), the terminal on 3 (`exec 3>&1`). This process keeps
/// them (`/dev/fd/7` still opens). Called first, before any thread: what
/// this process opens itself is close-on-exec already (Rust's files and
/// pipes, each program's pipes), and the three a program gets are copied
/// onto 0, 1 and 2 (`spawn`). One `close_range` call where Linux has it
/// (5.11), else a walk of the open descriptors. On Windows nothing: a
/// handle passes to a child only when marked inheritable, and Rust marks
/// none of its own so.
pub fn inherit_nothing() {
    #[cfg(unix)]
    close_fds::set_fds_cloexec_threadsafe(3, &[]);
}

#[cfg(unix)]
pub use user::{
    REFUSAL, can_change, can_read, give, is_root, lookup, mark_grader, own_uid, owned_by,
    runnable_as, started_as, take_back, under_grading,
};
#[cfg(windows)]
pub use windows::{
    REFUSAL, can_change, can_read, give, is_root, lookup, mark_grader, own_uid, owned_by,
    runnable_as, started_as, take_back, under_grading,
};

use std::ffi::OsString;
use std::process::ExitStatus;
use std::sync::atomic::AtomicBool;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

/// A copied file a program may start (one with an execute bit, in a folder
/// copied for a run) is open for writing under the write side of this
/// lock, programs are started under its read side: a program started while
/// such a file is open for writing holds it open until its own exec, and
/// the copy's exec meanwhile fails with "Text file busy". Starts do not exclude each other (the
/// fuzzer's two workers once waited for each other's start, a third of
/// their rate): a start's copies of another start's pipes close at its exec.
static STARTS: RwLock<()> = RwLock::new(());

/// Held while a file a program may start is open for writing.
pub fn writing_program() -> RwLockWriteGuard<'static, ()> {
    STARTS.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Held while starting a program.
#[cfg_attr(windows, allow(dead_code))]
fn starting() -> RwLockReadGuard<'static, ()> {
    STARTS.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Bytes of standard error kept, the last ones (where a crash says why);
/// the rest is read and dropped.
pub const STDERR_KEPT: usize = 64 * 1024;

/// The longest wait between looks at the child, the clock and the stop flag.
const TICK: Duration = Duration::from_millis(20);

/// Runs the program to its end (or the deadline, the cap, a stop); an error
/// only when it could not be started or watched. When this returns, nothing
/// it started runs. Never returns once a fatal signal is being handled: the
/// signal's cleanups stopped the program, and what is left of its run is no
/// result to report.
pub fn run(spec: &Spec) -> std::io::Result<Finished> {
    let finished = system::run(spec);
    crate::signals::await_death_if_dying();
    finished
}

/// One run of a program.
#[derive(Clone, Copy, Debug)]
pub struct Spec<'a> {
    /// The program, then its arguments.
    pub argv: &'a [OsString],
    /// Typed into its standard input (then closed); without it, /dev/null.
    pub input: Option<&'a [u8]>,
    pub timeout: Duration,
    /// Bytes of standard output kept; past them the program is stopped.
    pub cap: u64,
    /// Raised by the caller to stop the program at once.
    pub stop: Option<&'a AtomicBool>,
    /// The folder it runs in (a program named by a relative path is found
    /// there too); without it, this process's.
    pub dir: Option<&'a std::path::Path>,
    /// The user it runs as, when not this process's (never on Windows).
    #[cfg_attr(windows, allow(dead_code))]
    pub user: Option<AsUser<'a>>,
}

/// A user programs run as (`tictac grade` as root): never root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunAs {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
}

impl RunAs {
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A run as another user: who, and its HOME and TMPDIR (folders it owns).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(windows, allow(dead_code))]
pub struct AsUser<'a> {
    pub user: &'a RunAs,
    pub home: &'a std::path::Path,
    pub tmp: &'a std::path::Path,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited and its output is complete.
    Exited(ExitStatus),
    /// Still running, or its output still open, at the deadline.
    TimedOut,
    /// It printed more than the cap.
    PrintedTooMuch,
    /// The caller asked it to stop.
    Stopped,
}

/// What a run left: how it ended, its output, the end of its errors, and
/// what the runner saw of its processes that says why it ended so.
#[derive(Debug)]
pub struct Finished {
    pub ending: Ending,
    pub stdout: Capture,
    /// The end of its standard error, its last `STDERR_KEPT` bytes.
    pub stderr: Vec<u8>,
    /// Lines of its standard error before those bytes, read and dropped.
    pub stderr_lines_dropped: u64,
    /// It exited while a process it started still held its standard output
    /// open (a command left in the background with `&`): that process was
    /// stopped then, and what it would have printed was never read.
    pub held: Option<Held>,
    /// How it stood at its deadline, when it timed out (Linux's `/proc`;
    /// elsewhere nothing is known).
    pub at_deadline: Option<AtDeadline>,
}

/// A process of a run other than its program, named (Linux; elsewhere
/// unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Other {
    pub pid: u32,
    /// Its command, as the kernel keeps it (at most 15 bytes).
    pub name: String,
}

/// Who held a program's standard output when it exited.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// The process that held it, when it could be found.
    pub by: Option<Other>,
}

/// How a run that did not end stood at its deadline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AtDeadline {
    /// It was stopped by a signal (SIGSTOP, SIGTSTP) and not resumed.
    pub stopped: Option<Stopped>,
    /// CPU time its processes used (those alive then, and the ones they had
    /// reaped).
    pub cpu: Option<Duration>,
    /// How long its processes waited, ready to run, for a CPU: the
    /// machine's other work.
    pub waited: Option<Duration>,
}

/// A stopped process of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// The signal that stopped it, when the runner can know it (the
    /// program's own, by `waitid`).
    pub signal: Option<i32>,
    /// The process, when it is not the program itself.
    pub process: Option<Other>,
}

/// The end of what a program wrote to standard error: its last
/// `STDERR_KEPT` bytes, and how many lines ended before them.
#[derive(Debug, Default)]
struct Tail {
    kept: Vec<u8>,
    lines_dropped: u64,
}

impl Tail {
    /// Appends `more`, keeping only the last `STDERR_KEPT` bytes and
    /// counting the lines that end in what is dropped.
    fn push(&mut self, more: &[u8]) {
        let lines = |bytes: &[u8]| bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        let (dropped, more) = more.split_at(more.len().saturating_sub(STDERR_KEPT));
        self.lines_dropped += lines(dropped);
        let over = (self.kept.len() + more.len()).saturating_sub(STDERR_KEPT);
        self.lines_dropped += lines(&self.kept[..over]);
        self.kept.drain(..over);
        self.kept.extend_from_slice(more);
    }
}

#[cfg(test)]
mod tail_tests {
    use super::*;

    #[test]
    fn standard_error_keeps_its_end() {
        let mut tail = Tail::default();
        tail.push(b"first\n");
        assert_eq!((&tail.kept[..], tail.lines_dropped), (&b"first\n"[..], 0));
        tail.push(&vec![b'x'; STDERR_KEPT - 3]);
        tail.push(b"the end\n");
        assert_eq!(tail.kept.len(), STDERR_KEPT);
        // "first\n" went, and the first 5 x's with it: one line dropped.
        assert!(tail.kept.starts_with(b"xxx") && tail.kept.ends_with(b"xthe end\n"));
        assert_eq!(tail.lines_dropped, 1);
        tail.push(&b"y\n".repeat(STDERR_KEPT));
        assert_eq!(tail.kept, b"y\n".repeat(STDERR_KEPT / 2));
        // "the end" and the y lines that did not fit (the x's had no end).
        assert_eq!(tail.lines_dropped, 2 + STDERR_KEPT as u64 / 2);
    }
}

#[cfg(test)]
mod starts_tests {
    use super::*;

    #[test]
    fn starts_go_together_and_never_while_a_program_is_written() {
        let start = starting();
        // Another start (the fuzzer's other worker) does not wait.
        std::thread::scope(|s| {
            assert!(s.spawn(|| STARTS.try_read().is_ok()).join().unwrap());
        });
        assert!(STARTS.try_write().is_err(), "a copy waits for the start");
        drop(start);
        let writing = writing_program();
        std::thread::scope(|s| {
            assert!(s.spawn(|| STARTS.try_read().is_err()).join().unwrap());
        });
        drop(writing);
    }
}
