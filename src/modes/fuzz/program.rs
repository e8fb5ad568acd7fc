//! Running the program under test as `CMD -b TRACE`.
//!
//! The fuzzer asks for a run through the `Launcher` trait only, so the
//! project's process core (process groups, the subreaper, the output cap of
//! `tictac test`) replaces `Spawner` here in one line once it is shared below
//! the front ends. `Spawner` is the plain standard-library start: a time
//! limit and an output cap, nothing more.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Bounds on one run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub timeout: Duration,
    /// Stop the program once it has printed more than this.
    pub cap: usize,
}

/// How a run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Launched {
    Finished {
        output: Vec<u8>,
        status: Option<i32>,
    },
    /// Still running at the time limit; stopped.
    TimedOut,
    /// Printed more than the cap (what it printed up to there); stopped.
    TooMuch(Vec<u8>),
    CannotStart(String),
}

/// Runs `command... -b trace`.
pub trait Launcher: Sync {
    fn launch(&self, command: &[String], trace: &Path, limits: Limits) -> Launched;
}

/// The plain standard-library launcher.
pub struct Spawner;

impl Launcher for Spawner {
    fn launch(&self, command: &[String], trace: &Path, limits: Limits) -> Launched {
        let Some((exe, first)) = command.split_first() else {
            return Launched::CannotStart("an empty program".into());
        };
        let spawned = Command::new(exe)
            .args(first)
            .arg("-b")
            .arg(trace)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => return Launched::CannotStart(format!("cannot run {exe}: {e}")),
        };
        let deadline = Instant::now() + limits.timeout;
        let Some(stdout) = child.stdout.take() else {
            stop(&mut child);
            return Launched::CannotStart("no standard output".into());
        };
        // Read on a thread of its own, so the time limit holds however the
        // program behaves; one byte past the cap is enough to know.
        let (sender, read) = mpsc::channel();
        thread::spawn(move || {
            let mut output = Vec::new();
            let _ = stdout.take(limits.cap as u64 + 1).read_to_end(&mut output);
            let _ = sender.send(output);
        });
        let output = match read.recv_timeout(limits.timeout) {
            Ok(output) => output,
            Err(_) => {
                stop(&mut child);
                return Launched::TimedOut;
            }
        };
        if output.len() > limits.cap {
            stop(&mut child);
            return Launched::TooMuch(output);
        }
        let mut pause = Duration::from_micros(20);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return Launched::Finished { output, status: status.code() },
                Ok(None) if Instant::now() < deadline => {
                    thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(5));
                }
                Ok(None) | Err(_) => {
                    stop(&mut child);
                    return Launched::TimedOut;
                }
            }
        }
    }
}

fn stop(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
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
        let trace = Path::new("/dev/null");
        assert_eq!(
            Spawner.launch(&sh("echo \"$1 $2\"; exit 3"), trace, limits(5000, 100)),
            Launched::Finished { output: b"-b /dev/null\n".to_vec(), status: Some(3) }
        );
        assert_eq!(Spawner.launch(&sh("sleep 5"), trace, limits(100, 100)), Launched::TimedOut);
        assert_eq!(
            Spawner.launch(&sh("yes"), trace, limits(5000, 10)),
            Launched::TooMuch(b"y\ny\ny\ny\ny\ny".to_vec())
        );
        assert!(matches!(
            Spawner.launch(&["/no/such/program".into()], trace, limits(100, 10)),
            Launched::CannotStart(_)
        ));
    }
}
