//! How a test trace is run, and running it: in-process through the engine,
//! or as any ETF-style executable.
//!
//! A trace's first line may say how to run it, as a comment the trace itself
//! ignores: `-- run: -w 2 4 IN`, `-- run: -b IN OUT` (the test compares what
//! lands in OUT), `-- run: -i` (the rest of the file is typed into the shell).
//! Without it a trace runs as `-b IN`.

use std::ffi::OsString;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::cli::{self, Invocation};
use crate::modes::interactive::{self, Recorder};
use crate::modes::run_job;
use crate::modes::shell::Shell;

/// The arguments a trace runs with, and what is typed in for `-i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub args: Vec<String>,
    pub typed: Option<Vec<u8>>,
}

const DIRECTIVE: &str = "-- run:";

impl Plan {
    pub fn of(trace: &[u8]) -> Plan {
        let (first, rest) = match trace.iter().position(|&b| b == b'\n') {
            Some(k) => (&trace[..k], &trace[k + 1..]),
            None => (trace, &b""[..]),
        };
        let first = String::from_utf8_lossy(first);
        let Some(args) = first.trim().strip_prefix(DIRECTIVE) else {
            return Plan { args: vec!["-b".into(), "IN".into()], typed: None };
        };
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let typed = (args.first().map(String::as_str) == Some("-i")).then(|| rest.to_vec());
        Plan { args, typed }
    }

    fn writes_file(&self) -> bool {
        self.args.iter().any(|a| a == "OUT")
    }

    fn argv(&self, input: &Path, output: &Path) -> Vec<OsString> {
        let arg = |a: &String| match a.as_str() {
            "IN" => input.as_os_str().to_owned(),
            "OUT" => output.as_os_str().to_owned(),
            other => OsString::from(other),
        };
        self.args.iter().map(arg).collect()
    }
}

/// Where an output comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// This program's engine, in this process.
    InProcess,
    /// An executable and its first arguments (e.g. `["python3", "ttt.py"]`),
    /// stopped if it runs longer than `timeout`.
    Program { command: &'a [String], timeout: Duration },
}

/// Runs the trace as its plan says and returns what it printed (or wrote
/// to OUT).
pub fn produce(source: Source, trace: &Path) -> Result<Vec<u8>, String> {
    let text = fs::read(trace).map_err(|e| format!("cannot read {}: {e}", trace.display()))?;
    let plan = Plan::of(&text);
    match source {
        Source::InProcess => in_process(&plan, trace),
        Source::Program { command, timeout } => external(command, timeout, &plan, trace),
    }
}

fn in_process(plan: &Plan, trace: &Path) -> Result<Vec<u8>, String> {
    // OUT is never created in-process: its content is what the job writes.
    let mut out = Vec::new();
    match cli::parse(&plan.argv(trace, Path::new("OUT"))) {
        Ok(Invocation::Run { job, input, session, .. }) => {
            if let Err(e) = run_job(job, &input, &mut out, session.autopilot()) {
                let _ = writeln!(out, "{e}");
            }
        }
        Ok(Invocation::Interactive(session)) => {
            let typed = plan.typed.as_deref().unwrap_or_default();
            let shell = Shell::new(session.autopilot());
            interactive::run_plain(shell, typed, &mut out, &mut Recorder::default())
                .map_err(|e| e.to_string())?;
        }
        Ok(other) => return Err(format!("`{DIRECTIVE}` asks for {other:?}, which runs no trace")),
        // As the executable prints it, so traces can test invocation errors.
        Err(e) => {
            let _ = writeln!(out, "{e}\nRun 'tictac -help' to see more details");
        }
    }
    Ok(out)
}

fn external(
    program: &[String],
    timeout: Duration,
    plan: &Plan,
    trace: &Path,
) -> Result<Vec<u8>, String> {
    let (exe, first_args) = program.split_first().ok_or("an empty program")?;
    let scratch = tempfile::tempdir().map_err(|e| format!("no scratch folder: {e}"))?;
    let out_file = scratch.path().join("out.txt");
    let stdin = if plan.typed.is_some() { Stdio::piped() } else { Stdio::null() };
    let mut child = Command::new(exe)
        .args(first_args)
        .args(plan.argv(trace, &out_file))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run {exe}: {e}"))?;
    // Type and read at once, each on its own thread: a program may answer
    // before it has read all its input, and a full pipe must not deadlock.
    if let (Some(mut stdin), Some(typed)) = (child.stdin.take(), plan.typed.clone()) {
        thread::spawn(move || {
            // A shell that quits early closes its input: not an error.
            let _ = stdin.write_all(&typed);
        });
    }
    let mut stdout = child.stdout.take().ok_or("no standard output")?;
    let reader = thread::spawn(move || {
        let mut printed = Vec::new();
        stdout.read_to_end(&mut printed).map(|_| printed)
    });
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(100);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => {
                thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{exe} ran longer than {} s and was stopped",
                    timeout.as_secs_f64()
                ));
            }
            Err(e) => return Err(format!("waiting for {exe}: {e}")),
        }
    }
    let printed = match reader.join() {
        Ok(Ok(printed)) => printed,
        Ok(Err(e)) => return Err(format!("reading what {exe} printed: {e}")),
        Err(_) => return Err(format!("reading what {exe} printed failed")),
    };
    if plan.writes_file() {
        return fs::read(&out_file).map_err(|e| format!("{exe} wrote no OUT file: {e}"));
    }
    Ok(printed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_may_say_how_to_run() {
        assert_eq!(Plan::of(b"undo\n").args, ["-b", "IN"]);
        assert_eq!(Plan::of(b"-- a comment\nundo\n").args, ["-b", "IN"]);
        let p = Plan::of(b"-- run: -w 2 _ IN OUT\r\nundo\n");
        assert_eq!(p.args, ["-w", "2", "_", "IN", "OUT"]);
        assert!(p.writes_file());
        let p = Plan::of(b"-- run: -i\nundo\nquit\n");
        assert_eq!(p.typed.as_deref(), Some(&b"undo\nquit\n"[..]));
    }
}
