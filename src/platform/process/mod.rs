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
//! functions (a Job Object per run on Windows).

mod capture;
mod cgroup;
mod guard;
mod spawn;
mod terminal;
mod tree;

pub(crate) use capture::Capture;
pub(crate) use guard::stop_all;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};

use spawn::Pipes;

/// Bytes of standard error kept, the last ones (where a crash says why);
/// the rest is read and dropped.
pub(crate) const STDERR_KEPT: usize = 64 * 1024;

/// The longest wait between looks at the child, the clock and the stop flag.
const TICK: Duration = Duration::from_millis(20);

/// One run of a program.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spec<'a> {
    /// The program, then its arguments.
    pub(crate) argv: &'a [OsString],
    /// Typed into its standard input (then closed); without it, /dev/null.
    pub(crate) input: Option<&'a [u8]>,
    pub(crate) timeout: Duration,
    /// Bytes of standard output kept; past them the program is stopped.
    pub(crate) cap: u64,
    /// Raised by the caller to stop the program at once.
    pub(crate) stop: Option<&'a AtomicBool>,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// It exited and its output is complete.
    Exited(ExitStatus),
    /// Still running, or its output still open, at the deadline.
    TimedOut,
    /// It printed more than the cap.
    PrintedTooMuch,
    /// The caller asked it to stop.
    Stopped,
}

/// What a run left: how it ended, its output, the end of its errors.
#[derive(Debug)]
pub(crate) struct Finished {
    pub(crate) ending: Ending,
    pub(crate) stdout: Capture,
    pub(crate) stderr: Vec<u8>,
}

/// Runs the program to its end (or the deadline, the cap, a stop); an error
/// only when it could not be started or watched. When this returns, its
/// process group and every tagged descendant have been stopped.
pub(crate) fn run(spec: &Spec) -> io::Result<Finished> {
    let deadline = Instant::now().checked_add(spec.timeout);
    let (mut started, pipes) = guard::spawn(spec.argv, spec.input.is_some())?;
    let watched = watch(&mut started, pipes, spec, deadline);
    let status = guard::finish(&mut started);
    let (ending, stdout, stderr) = watched?;
    let ending = match ending {
        Ending::Exited(_) => Ending::Exited(status?),
        other => other,
    };
    Ok(Finished { ending, stdout, stderr })
}

/// Types, reads and waits at once on this one thread: a program may answer
/// before it has read its input, so neither side may block the other.
fn watch(
    started: &mut guard::Started,
    mut pipes: Pipes,
    spec: &Spec,
    deadline: Option<Instant>,
) -> io::Result<(Ending, Capture, Vec<u8>)> {
    let mut typed = spec.input.unwrap_or_default();
    if typed.is_empty() {
        pipes.stdin = None;
    }
    for fd in [pipes.stdin.as_ref().map(|p| p.as_fd()), pipes.stdout.as_ref().map(|p| p.as_fd())]
        .into_iter()
        .chain([pipes.stderr.as_ref().map(|p| p.as_fd())])
        .flatten()
    {
        rustix::io::ioctl_fionbio(fd, true)?;
    }
    let mut out = Capture::new(spec.cap);
    let mut err = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut exited = false;
    let mut pause = Duration::from_micros(100);
    // Readable when the child exits, so its end is seen without polling the
    // clock (absent on old kernels: then looked at now and then).
    let mut exit_fd = pid_fd(&started.child);
    loop {
        if spec.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Ok((Ending::Stopped, out, err));
        }
        let now = Instant::now();
        let left = match deadline {
            Some(d) if now >= d => return Ok((Ending::TimedOut, out, err)),
            Some(d) => d - now,
            None => TICK,
        };
        if !exited && let Some(status) = started.child.try_wait()? {
            exited = true;
            exit_fd = None;
            // Whatever it left behind must not hold its pipes open.
            guard::stop_descendants(started);
            if pipes.stdout.is_none() && pipes.stderr.is_none() {
                return Ok((Ending::Exited(status), out, err));
            }
        }
        if pipes.stdout.is_none() && pipes.stderr.is_none() {
            if exited {
                let status = started.child.try_wait()?.ok_or(io::ErrorKind::Other)?;
                return Ok((Ending::Exited(status), out, err));
            }
            // Output closed, exit not seen yet: wait for it.
            if let Some(fd) = &exit_fd {
                wait_for_exit(fd, left.min(TICK))?;
            } else {
                std::thread::sleep(pause.min(left));
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            continue;
        }
        wait_for_pipes(&pipes, !typed.is_empty(), left.min(TICK))?;
        if let Some(stdin) = &mut pipes.stdin {
            match stdin.write(typed) {
                Ok(n) => typed = &typed[n..],
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // It closed its input (a shell that quit early): not an error.
                Err(_) => typed = &[],
            }
            if typed.is_empty() {
                pipes.stdin = None;
            }
        }
        if let Some(stdout) = &mut pipes.stdout {
            match read_some(stdout, &mut buf) {
                Some(0) => pipes.stdout = None,
                // Kept as read; past the cap, the run ends.
                Some(n) if !out.push(&buf[..n])? => return Ok((Ending::PrintedTooMuch, out, err)),
                _ => {}
            }
        }
        if let Some(stderr) = &mut pipes.stderr {
            match read_some(stderr, &mut buf) {
                Some(0) => pipes.stderr = None,
                Some(n) => keep_tail(&mut err, &buf[..n]),
                None => {}
            }
        }
    }
}

/// Appends `more` to `kept`, keeping only the last `STDERR_KEPT` bytes.
fn keep_tail(kept: &mut Vec<u8>, more: &[u8]) {
    let more = &more[more.len().saturating_sub(STDERR_KEPT)..];
    let over = (kept.len() + more.len()).saturating_sub(STDERR_KEPT);
    kept.drain(..over);
    kept.extend_from_slice(more);
}

/// Bytes read (0 at the end), or None when nothing is ready now.
fn read_some(pipe: &mut impl Read, buf: &mut [u8]) -> Option<usize> {
    match pipe.read(buf) {
        Ok(n) => Some(n),
        Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted) => {
            None
        }
        // A broken pipe is an end.
        Err(_) => Some(0),
    }
}

/// A descriptor that becomes readable when `child` exits (Linux 5.3+).
fn pid_fd(child: &spawn::Child) -> Option<std::os::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        let pid = rustix::process::Pid::from_raw(child.id() as i32)?;
        rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = child;
        None
    }
}

fn wait_for_exit(fd: &std::os::fd::OwnedFd, wait: Duration) -> io::Result<()> {
    let mut fds = [PollFd::new(fd, PollFlags::IN)];
    poll_for(&mut fds, wait)
}

fn wait_for_pipes(pipes: &Pipes, typing: bool, wait: Duration) -> io::Result<()> {
    let mut fds = Vec::with_capacity(3);
    if let (Some(stdin), true) = (&pipes.stdin, typing) {
        fds.push(PollFd::new(stdin, PollFlags::OUT));
    }
    if let Some(stdout) = &pipes.stdout {
        fds.push(PollFd::new(stdout, PollFlags::IN));
    }
    if let Some(stderr) = &pipes.stderr {
        fds.push(PollFd::new(stderr, PollFlags::IN));
    }
    poll_for(&mut fds, wait)
}

/// Waits at most `wait` (under a second) for one of `fds` to be ready.
fn poll_for(fds: &mut [PollFd], wait: Duration) -> io::Result<()> {
    let timeout = Timespec { tv_sec: 0, tv_nsec: wait.subsec_nanos().into() };
    match rustix::event::poll(fds, Some(&timeout)) {
        Ok(_) | Err(rustix::io::Errno::INTR) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tail_tests {
    use super::*;

    #[test]
    fn standard_error_keeps_its_end() {
        let mut kept = Vec::new();
        keep_tail(&mut kept, b"first\n");
        assert_eq!(kept, b"first\n");
        keep_tail(&mut kept, &vec![b'x'; STDERR_KEPT - 3]);
        keep_tail(&mut kept, b"the end\n");
        assert_eq!(kept.len(), STDERR_KEPT);
        // "first\n" went, and the first 5 x's with it.
        assert!(kept.starts_with(b"xxx") && kept.ends_with(b"xthe end\n"));
        keep_tail(&mut kept, &vec![b'y'; STDERR_KEPT + 10]);
        assert_eq!(kept, vec![b'y'; STDERR_KEPT]);
    }
}
