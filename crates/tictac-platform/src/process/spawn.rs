//! Starting a program as the leader of a session of its own, its standard
//! streams on pipes (standard input on /dev/null when nothing is typed), by
//! `posix_spawnp` with `POSIX_SPAWN_SETSID`. std's `Command` can only make a
//! session between a `fork` and an `exec` (`pre_exec`, which needs `unsafe`
//! and forces a full `fork`): copying this process's page tables for every
//! run, and the faults that follow in its other threads, cost the fuzzer a
//! third of its rate. `posix_spawn` shares the memory until the `exec`.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use nix::spawn::{PosixSpawnAttr, PosixSpawnFileActions, PosixSpawnFlags, posix_spawnp};
use nix::sys::signal::SigSet;
use rustix::process::{Pid, Signal, WaitOptions};

/// The flags nix does not name: a session of its own, and on Darwin (whose
/// `spawn.h` gives the values) every descriptor not handed over closed,
/// since there a pipe is made close-on-exec only after it is made, so a
/// start in another thread could inherit it meanwhile.
#[cfg(not(target_vendor = "apple"))]
const EXTRA_FLAGS: i32 = nix::libc::POSIX_SPAWN_SETSID as i32;
#[cfg(target_vendor = "apple")]
const EXTRA_FLAGS: i32 = 0x400 | 0x4000;

/// A started program, not yet reaped until `wait` or `try_wait` says how
/// it ended (its pid cannot be reused before: signalling it is safe).
#[derive(Debug)]
pub struct Child {
    pid: Pid,
    ended: Option<ExitStatus>,
}

/// This end of a program's pipes; each `None` once closed.
pub struct Pipes {
    /// Its standard input, when there is text to type.
    pub stdin: Option<File>,
    pub stdout: Option<File>,
    pub stderr: Option<File>,
}

/// Starts `argv` (looked up in `PATH` when it names no folder) with this
/// process's environment plus `extra`, in a session of its own, every
/// signal at its default and none blocked.
pub fn spawn(argv: &[OsString], extra: (&str, &str), typed: bool) -> io::Result<(Child, Pipes)> {
    let args = argv.iter().map(|a| c_string(a.as_bytes())).collect::<io::Result<Vec<_>>>()?;
    let program = args.first().ok_or(io::ErrorKind::InvalidInput)?;
    let mut env = Vec::new();
    for (key, value) in std::env::vars_os() {
        if key.as_bytes() != extra.0.as_bytes() {
            env.push(c_string(&[key.as_bytes(), b"=", value.as_bytes()].concat())?);
        }
    }
    env.push(c_string(format!("{}={}", extra.0, extra.1).as_bytes())?);

    let (stdin_read, stdin_write) = if typed {
        let (read, write) = pipe()?;
        (read, Some(write))
    } else {
        (OwnedFd::from(File::open("/dev/null")?), None)
    };
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;

    // Every descriptor here is close-on-exec; the copies onto 0, 1 and 2
    // are not, so the program gets those three alone. None of them is 0, 1
    // or 2 itself: Rust's runtime opens /dev/null on any of the three that
    // this process was started without.
    let mut actions = PosixSpawnFileActions::init()?;
    actions.add_dup2(stdin_read.as_raw_fd(), 0)?;
    actions.add_dup2(stdout_write.as_raw_fd(), 1)?;
    actions.add_dup2(stderr_write.as_raw_fd(), 2)?;
    let mut attr = PosixSpawnAttr::init()?;
    attr.set_flags(
        PosixSpawnFlags::from_bits_retain(EXTRA_FLAGS)
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGDEF
            | PosixSpawnFlags::POSIX_SPAWN_SETSIGMASK,
    )?;
    // Ignored signals stay ignored across an exec (Rust ignores SIGPIPE).
    attr.set_sigdefault(&SigSet::all())?;
    attr.set_sigmask(&SigSet::empty())?;
    let pid = {
        let _starting = super::starting();
        posix_spawnp(program, &actions, &attr, &args, &env)?
    };
    let pid = Pid::from_raw(pid.as_raw()).ok_or(io::ErrorKind::Other)?;
    let pipes = Pipes {
        stdin: stdin_write.map(File::from),
        stdout: Some(File::from(stdout_read)),
        stderr: Some(File::from(stderr_read)),
    };
    Ok((Child { pid, ended: None }, pipes))
}

fn c_string(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"))
}

/// A pipe, both ends close-on-exec: (read, write).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (read, write) = io::pipe()?;
    Ok((read.into(), write.into()))
}

impl Child {
    pub fn id(&self) -> u32 {
        self.pid.as_raw_nonzero().get() as u32
    }

    /// How it ended, if it has (and then it is reaped).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.reap(WaitOptions::NOHANG)
    }

    /// Waits for its end and reaps it.
    pub fn wait(&mut self) -> io::Result<ExitStatus> {
        self.reap(WaitOptions::empty())?.ok_or_else(|| io::ErrorKind::Other.into())
    }

    fn reap(&mut self, options: WaitOptions) -> io::Result<Option<ExitStatus>> {
        if self.ended.is_none() {
            loop {
                match rustix::process::waitpid(Some(self.pid), options) {
                    Ok(Some((_, status))) => {
                        self.ended = Some(ExitStatus::from_raw(status.as_raw()));
                    }
                    Ok(None) => {}
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(e) => return Err(e.into()),
                }
                break;
            }
        }
        Ok(self.ended)
    }

    /// Kills it, unless it is reaped already (its pid may be another's).
    pub fn kill(&mut self) {
        if self.ended.is_none() {
            let _ = rustix::process::kill_process(self.pid, Signal::KILL);
        }
    }
}
