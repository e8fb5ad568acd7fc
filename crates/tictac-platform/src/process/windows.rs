//! `run` on Windows. The program and everything it starts belong to a Job
//! Object of its own (process-wrap: started suspended, put in the job, then
//! resumed, so not even its first instruction runs outside it; a job's
//! processes cannot break away). The job is killed at the deadline, at the
//! cap, on a stop, when the program exits (whatever it left running must not
//! hold its pipes open) and when the run ends. A runner killed outright
//! leaves them running: process-wrap's std wrapper makes the job without
//! `KILL_ON_JOB_CLOSE` (docs/RELIABILITY.md). Windows has no `poll` for pipes: its input is typed and its outputs
//! read on threads of their own, with the same caps as on Unix.
//!
//! A program is found as `cmd.exe` in the folder it runs in finds it (the
//! runner's, or the one the run names: a student's): a bare name in that
//! folder first, then on `PATH`, trying the extensions of `PATHEXT`; `.bat`
//! and `.cmd` files run through `cmd.exe` (std quotes their arguments).

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, Once, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use process_wrap::std::{ChildWrapper, CommandWrap, JobObject};

use super::{Capture, Ending, Finished, Spec, TICK, Tail};
use crate::signals::{self, Registration};

/// How long the readers may take to see the end of their pipes once the
/// job is killed (a timed out or stopped run keeps what they read by then).
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// The extensions `cmd.exe` tries when `PATHEXT` is not set.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

type Shared = Arc<Mutex<Box<dyn ChildWrapper>>>;

struct Registry {
    running: BTreeMap<u64, Shared>,
    /// No more starts: the runner is stopping everything (Ctrl-C).
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { running: BTreeMap::new(), closed: false });
static NEXT: AtomicU64 = AtomicU64::new(0);
static SETUP: Once = Once::new();
static ON_SIGNAL: OnceLock<Registration> = OnceLock::new();

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding the lock leaves plain data behind.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How a thread of the run ended, the last thing it tells the run.
enum Event {
    /// An output reached its end.
    Closed,
    /// Standard output went past the cap.
    TooMuch,
    /// The capture could not be kept (its spool's disk is full).
    Failed(io::Error),
    /// The input was written, or the program stopped taking it.
    Typed,
}

/// The threads of a run, each joined once it has said it ended: a thread
/// still ending when this process exits can crash it (wine 8 kills it with
/// a signal it cannot take at that point; docs/RELIABILITY.md, "Windows").
struct Threads {
    running: Vec<Option<JoinHandle<()>>>,
    events: Sender<(usize, Event)>,
    heard: Receiver<(usize, Event)>,
}

impl Threads {
    fn new() -> Threads {
        let (events, heard) = mpsc::channel();
        Threads { running: Vec::new(), events, heard }
    }

    /// Starts `work`, whose last act is the event it returns.
    fn start(&mut self, work: impl FnOnce() -> Event + Send + 'static) {
        let (id, events) = (self.running.len(), self.events.clone());
        self.running.push(Some(std::thread::spawn(move || {
            let _ = events.send((id, work()));
        })));
    }

    /// The next thread to end within `wait`, joined.
    fn next_end(&mut self, wait: Duration) -> Option<Event> {
        let (id, event) = self.heard.recv_timeout(wait).ok()?;
        if let Some(thread) = self.running[id].take() {
            let _ = thread.join();
        }
        Some(event)
    }

    /// Joins each thread as it ends, until `until`; one still blocked then
    /// (a pipe that a process outside the job holds) is left behind.
    fn end_by(&mut self, until: Instant) {
        while self.running.iter().any(Option::is_some) {
            if self.next_end(until.saturating_duration_since(Instant::now())).is_none() {
                break;
            }
        }
    }
}

/// Windows reports no signals: a program killed ends with an exit code.
pub fn signal_of(_status: ExitStatus) -> Option<i32> {
    None
}

/// No signals on Windows: none has a name.
pub fn signal_name(_signal: i32) -> Option<&'static str> {
    None
}

/// The exception a program that crashed ended with: its exit code is the
/// NTSTATUS (0xC0000005 for an access violation).
pub fn exception_of(code: i32) -> Option<super::Exception> {
    super::exception::of_code(code)
}

/// Whether `exe` names a program that can be started (see the module's
/// doc), or why not.
pub fn runnable(exe: &str) -> Result<(), String> {
    match locate(OsStr::new(exe), Path::new(".")) {
        Some(_) => Ok(()),
        None if Path::new(exe).components().count() > 1 => Err("no such program".into()),
        None => Err("not found in the current folder or on PATH".into()),
    }
}

/// Kills every run's job (the runner is stopping).
pub fn stop_all() {
    let registry = lock(&REGISTRY);
    for child in registry.running.values() {
        let _ = lock(child).start_kill();
    }
}

fn setup() {
    // After Ctrl-C nothing more is started, and every job is killed.
    let _ = ON_SIGNAL.set(signals::on_fatal_signal(|| {
        lock(&REGISTRY).closed = true;
        stop_all();
    }));
}

/// Runs the program to its end (or the deadline, the cap, a stop); an error
/// only when it could not be started or watched. When this returns, its job
/// has been killed: nothing it started is left.
pub fn run(spec: &Spec) -> io::Result<Finished> {
    SETUP.call_once(setup);
    let deadline = Instant::now().checked_add(spec.timeout);
    let (name, args) = spec.argv.split_first().ok_or(io::ErrorKind::InvalidInput)?;
    // Found from the folder it runs in (a student's), as cmd.exe there
    // finds it: `ttt.bat` is that folder's, not the runner's.
    let program = locate(name, spec.dir.unwrap_or(Path::new("."))).ok_or_else(|| {
        io::Error::new(io::ErrorKind::NotFound, "no such program here or on PATH")
    })?;
    let mut command = CommandWrap::with_new(&program, |c| {
        c.args(args)
            .stdin(if spec.input.is_some() { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = spec.dir {
            c.current_dir(dir);
        }
    });
    command.wrap(JobObject);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    let shared: Shared = {
        let mut registry = lock(&REGISTRY);
        if registry.closed {
            return Err(io::Error::other("the runner is stopping"));
        }
        let shared = Arc::new(Mutex::new(command.spawn()?));
        registry.running.insert(id, Arc::clone(&shared));
        shared
    };
    let watched = watch(&shared, spec, deadline);
    let status = finish(&shared);
    lock(&REGISTRY).running.remove(&id);
    let (ending, stdout, stderr) = watched?;
    let ending = match ending {
        Ending::Exited(_) => Ending::Exited(status?),
        other => other,
    };
    // A Job Object has no stopped state to tell, nor a census here.
    Ok(Finished {
        ending,
        stdout,
        stderr: stderr.kept,
        stderr_lines_dropped: stderr.lines_dropped,
        held: None,
        at_deadline: None,
    })
}

/// Kills the job (what is left of it) and waits for the program itself.
fn finish(shared: &Shared) -> io::Result<ExitStatus> {
    let mut child = lock(shared);
    let _ = child.start_kill();
    child.inner_mut().wait()
}

/// Starts the threads, then waits for the program's end, its outputs'
/// ends, the deadline, the cap or a stop, whichever comes first.
fn watch(
    shared: &Shared,
    spec: &Spec,
    deadline: Option<Instant>,
) -> io::Result<(Ending, Capture, Tail)> {
    let (stdin, stdout, stderr) = {
        let mut child = lock(shared);
        (child.stdin().take(), child.stdout().take(), child.stderr().take())
    };
    let (stdout, stderr) = stdout.zip(stderr).ok_or(io::ErrorKind::BrokenPipe)?;
    let mut threads = Threads::new();
    if let (Some(mut stdin), Some(text)) = (stdin, spec.input) {
        let text = text.to_vec();
        threads.start(move || {
            // It may close its input early (a shell that quit): not an error.
            let _ = stdin.write_all(&text);
            Event::Typed
        });
    }
    let out = Arc::new(Mutex::new(Capture::new(spec.cap)));
    let err = Arc::new(Mutex::new(Tail::default()));
    threads.start(reader(stdout, {
        let out = Arc::clone(&out);
        move |bytes| match lock(&out).push(bytes) {
            Ok(true) => None,
            Ok(false) => Some(Event::TooMuch),
            Err(e) => Some(Event::Failed(e)),
        }
    }));
    threads.start(reader(stderr, {
        let err = Arc::clone(&err);
        move |bytes| {
            lock(&err).push(bytes);
            None
        }
    }));
    let mut open = 2;
    let mut exited = None;
    let ending = loop {
        if spec.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            break Ok(Ending::Stopped);
        }
        let now = Instant::now();
        let left = match deadline {
            Some(d) if now >= d => break Ok(Ending::TimedOut),
            Some(d) => d - now,
            None => TICK,
        };
        if exited.is_none() {
            let mut child = lock(shared);
            match child.inner_mut().try_wait() {
                Ok(Some(status)) => {
                    exited = Some(status);
                    // Whatever it left behind must not hold its pipes open.
                    let _ = child.start_kill();
                }
                Ok(None) => {}
                Err(e) => break Err(e),
            }
        }
        if let (0, Some(status)) = (open, exited) {
            break Ok(Ending::Exited(status));
        }
        match threads.next_end(left.min(TICK)) {
            Some(Event::Closed) => open -= 1,
            Some(Event::TooMuch) => break Ok(Ending::PrintedTooMuch),
            Some(Event::Failed(e)) => break Err(e),
            Some(Event::Typed) | None => {}
        }
    };
    if !matches!(ending, Ok(Ending::Exited(_))) {
        // Killed now: the threads see their pipes' ends and stop.
        let _ = lock(shared).start_kill();
    }
    // Unless a process outside the job holds a pipe: then they are left to it.
    threads.end_by(Instant::now() + DRAIN_LIMIT);
    let stdout = std::mem::replace(&mut *lock(&out), Capture::new(0));
    let stderr = std::mem::take(&mut *lock(&err));
    Ok((ending?, stdout, stderr))
}

/// Reads `pipe` to its end, giving each chunk to `keep`; an event `keep`
/// returns ends the reading.
fn reader(
    mut pipe: impl Read + Send + 'static,
    mut keep: impl FnMut(&[u8]) -> Option<Event> + Send + 'static,
) -> impl FnOnce() -> Event + Send + 'static {
    move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) => return Event::Closed,
                Ok(n) => {
                    if let Some(event) = keep(&buf[..n]) {
                        return event;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A broken pipe is an end.
                Err(_) => return Event::Closed,
            }
        }
    }
}

/// The file `name` starts, found as `cmd.exe` in the folder `current`
/// finds it: a name with a folder from `current` (or where it says, from
/// a root: on the runner's drive when it names none); a bare name in
/// `current`, then in each folder of `PATH`. A name without one of
/// `PATHEXT`'s extensions is tried with each of them in turn.
fn locate(name: &OsStr, current: &Path) -> Option<PathBuf> {
    let runner = std::env::current_dir().unwrap_or_default();
    let path = &on_drive_of(Path::new(name), &runner);
    let extensions: Vec<String> = std::env::var("PATHEXT")
        .unwrap_or_else(|_| DEFAULT_PATHEXT.into())
        .split(';')
        .filter(|e| e.starts_with('.'))
        .map(str::to_ascii_lowercase)
        .collect();
    let has_extension = path
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| extensions.contains(&format!(".{}", e.to_ascii_lowercase())));
    let in_folder = |folder: &Path| -> Option<PathBuf> {
        let base = folder.join(path);
        if has_extension {
            return base.is_file().then_some(base);
        }
        extensions.iter().find_map(|e| {
            let mut file = OsString::from(base.as_os_str());
            file.push(e);
            let file = PathBuf::from(file);
            file.is_file().then_some(file)
        })
    };
    if path.components().count() > 1 || path.has_root() {
        return in_folder(current);
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    std::iter::once(current.to_path_buf())
        .chain(std::env::split_paths(&path_var))
        .find_map(|folder| in_folder(&folder))
}

/// `path` as the runner, in its folder `runner`, reads it: rooted without
/// a drive (`\tools\ttt.exe`, or `/tmp/x/tictac.exe` under wine), on
/// `runner`'s drive (or share), not on the drive of the folder the program
/// runs in, which may be a copy of the runner's under `%TEMP%` on another;
/// any other path as it is.
fn on_drive_of(path: &Path, runner: &Path) -> PathBuf {
    match (path.components().next(), runner.components().next()) {
        (Some(Component::RootDir), Some(drive @ Component::Prefix(_))) => {
            Path::new(drive.as_os_str()).join(path)
        }
        _ => path.to_path_buf(),
    }
}

// Programs run as the user who runs tictac: there is no other user to be.

/// What a tictac started under grading says (never on Windows).
pub const REFUSAL: &str = "";

pub fn lookup(_name: &str) -> Result<super::RunAs, String> {
    Err("--user is for Unix systems: programs run as you on Windows".into())
}

pub fn is_root() -> bool {
    false
}

pub fn own_uid() -> u32 {
    0
}

pub fn give(_path: &Path, _user: &super::RunAs) -> io::Result<()> {
    Ok(())
}

pub fn take_back(_path: &Path) -> io::Result<()> {
    Ok(())
}

pub fn runnable_as(_program: &str, _user: &super::RunAs) -> Result<(), String> {
    Ok(())
}

pub fn can_read(_folder: &Path, _user: &super::RunAs) -> bool {
    false
}

pub fn can_change(_path: &Path, _user: &super::RunAs) -> bool {
    false
}

pub fn owned_by(_path: &Path, _user: &super::RunAs) -> bool {
    false
}

pub fn mark_grader() {}

pub fn under_grading() -> bool {
    false
}

pub fn started_as(_args: &[OsString]) -> Option<i32> {
    None
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::on_drive_of;

    #[test]
    fn a_path_rooted_without_a_drive_is_on_the_runners() {
        let on = |path: &str, runner: &str| on_drive_of(Path::new(path), Path::new(runner));
        assert_eq!(on(r"\tools\ttt.exe", r"Z:\work\s"), Path::new(r"Z:\tools\ttt.exe"));
        assert_eq!(on("/tmp/x/tictac.exe", r"Z:\work"), Path::new(r"Z:\tmp\x\tictac.exe"));
        assert_eq!(
            on(r"\tools\ttt.exe", r"\\srv\share\s"),
            Path::new(r"\\srv\share\tools\ttt.exe")
        );
        // A path with a drive, or relative, is the same wherever it is read.
        for path in [r"C:\tools\ttt.exe", r"D:ttt.exe", "ttt.exe", r".\ttt.bat", r"..\w\ttt.exe"] {
            assert_eq!(on(path, r"Z:\work"), Path::new(path), "{path}");
        }
    }
}
