//! Running the program under test as `CMD -b TRACE`.
//!
//! The fuzzer runs programs through the `Launcher` trait: `Guarded` is the
//! project's process core (`crate::platform::process`: a process group of its own,
//! descendants found and stopped, output capped, the deadline kept whatever
//! the program does), as `tictac test` uses it.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitStatus;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::platform::process::{self, Ending};

/// Bounds on one run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) timeout: Duration,
    /// Stop the program once it has printed more than this.
    pub(crate) cap: usize,
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Launched {
    /// It ended by itself, or crashed.
    Finished {
        output: Vec<u8>,
        exit: Exit,
        /// The end of what it wrote to standard error.
        stderr: Vec<u8>,
    },
    /// Still running at the time limit; stopped.
    TimedOut,
    /// Stopped by a signal (SIGSTOP) and never resumed until the time
    /// limit, it or a process it started: how, in words.
    Frozen(String),
    /// Printed more than the cap (what it printed up to there); stopped.
    TooMuch(Vec<u8>),
    /// Stopped because the session ended (its time is up, its output closed).
    Stopped,
    CannotStart(String),
    /// It could not be started for want of what the system gives tictac
    /// (open files, processes, memory): tictac's trouble, not the program's.
    RanOut(String),
}

/// How a program that finished ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// It exited by itself with this status.
    Status(i32),
    /// It died of a signal, or a Windows exception: how, in words
    /// (`killed by signal 11 (SIGSEGV)`, `crashed (access violation)`).
    Crashed(String),
}

impl Exit {
    fn of(status: ExitStatus) -> Exit {
        if let Some(signal) = process::signal_of(status) {
            let name = process::signal_name(signal).map(|n| format!(" ({n})")).unwrap_or_default();
            return Exit::Crashed(format!("killed by signal {signal}{name}"));
        }
        match status.code() {
            Some(code) => match process::exception_of(code) {
                Some(exception) => Exit::Crashed(format!("crashed ({exception})")),
                None => Exit::Status(code),
            },
            None => Exit::Crashed("killed".into()),
        }
    }
}

/// Runs `command... -b trace` in `dir` (none: this process's folder).
pub(crate) trait Launcher: Sync {
    fn launch(
        &self,
        command: &[String],
        dir: Option<&Path>,
        trace: &Path,
        limits: Limits,
    ) -> Launched;
}

/// The project's process core: everything `tictac test` guarantees
/// against hostile programs holds here too. Raising `stop` ends a run at once.
#[derive(Clone, Copy, Default)]
pub(crate) struct Guarded<'a> {
    pub(crate) stop: Option<&'a AtomicBool>,
}

impl Launcher for Guarded<'_> {
    fn launch(
        &self,
        command: &[String],
        dir: Option<&Path>,
        trace: &Path,
        limits: Limits,
    ) -> Launched {
        let Some(exe) = command.first() else {
            return Launched::CannotStart("an empty program".into());
        };
        let argv: Vec<OsString> = command
            .iter()
            .map(OsString::from)
            .chain([OsString::from("-b"), trace.as_os_str().to_owned()])
            .collect();
        let spec = process::Spec {
            argv: &argv,
            input: None,
            timeout: limits.timeout,
            cap: limits.cap as u64,
            stop: self.stop,
            dir,
            user: None,
        };
        let mut finished = match process::run(&spec) {
            Ok(finished) => finished,
            Err(e) if crate::platform::files::is_exhaustion(&e) => {
                return Launched::RanOut(format!("cannot run {exe}: {e}"));
            }
            Err(e) => return Launched::CannotStart(format!("cannot run {exe}: {e}")),
        };
        // The capture holds at most the cap.
        let output = finished.stdout.bytes_up_to(limits.cap as u64).ok().flatten();
        match (finished.ending, output) {
            (Ending::Exited(status), Some(output)) => {
                let stderr = std::mem::take(&mut finished.stderr);
                Launched::Finished { output, exit: Exit::of(status), stderr }
            }
            (Ending::PrintedTooMuch, Some(output)) => Launched::TooMuch(output),
            (Ending::TimedOut, _) => match finished.at_deadline.and_then(|at| at.stopped) {
                Some(stopped) => Launched::Frozen(crate::suite::plan::never_resumed(&stopped)),
                None => Launched::TimedOut,
            },
            (Ending::Stopped, _) => Launched::Stopped,
            (_, None) => Launched::CannotStart(format!("reading what {exe} printed failed")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(ms: u64, cap: usize) -> Limits {
        Limits { timeout: Duration::from_millis(ms), cap }
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into(), "sh".into()]
    }

    #[test]
    fn output_status_time_and_cap() {
        let launcher = Guarded::default();
        let trace = Path::new("/dev/null");
        assert_eq!(
            launcher.launch(&sh("echo \"$1 $2\"; exit 3"), None, trace, limits(5000, 100)),
            Launched::Finished {
                output: b"-b /dev/null\n".to_vec(),
                exit: Exit::Status(3),
                stderr: Vec::new()
            }
        );
        assert_eq!(
            launcher.launch(&sh("sleep 5"), None, trace, limits(100, 100)),
            Launched::TimedOut
        );
        assert_eq!(
            launcher.launch(&sh("yes"), None, trace, limits(5000, 10)),
            Launched::TooMuch(b"y\ny\ny\ny\ny\n".to_vec())
        );
        assert!(matches!(
            launcher.launch(&["/no/such/program".into()], None, trace, limits(100, 10)),
            Launched::CannotStart(_)
        ));
        let crashed = launcher.launch(&sh("echo a; kill -SEGV $$"), None, trace, limits(5000, 100));
        let Launched::Finished { output, exit, .. } = crashed else { panic!("{crashed:?}") };
        assert_eq!(
            (output, exit),
            (b"a\n".to_vec(), Exit::Crashed("killed by signal 11 (SIGSEGV)".into()))
        );
        let stop = AtomicBool::new(true);
        let stopping = Guarded { stop: Some(&stop) };
        assert_eq!(
            stopping.launch(&sh("sleep 5"), None, trace, limits(5000, 100)),
            Launched::Stopped
        );
    }
}
