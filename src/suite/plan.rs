//! How a test trace is run, and running it: in-process through the engine,
//! or as any ETF-style executable.
//!
//! A trace's first line may say how to run it, as a comment the trace itself
//! ignores: `-- run: -w 2 4 IN`, `-- run: -b IN OUT` (the test compares what
//! lands in OUT), `-- run: -i` (the rest of the file is typed into the shell).
//! Without it a trace runs as `-b IN`. The next line (or the first, without
//! a `-- run:` line) may give the exit status the program must end with,
//! `-- status: N`: a status the runner compares (`tictac fuzz --check-status`
//! saves its `exit-status` divergences so); without it only the output counts.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::cli::{self, Invocation};
use crate::platform::process::{self, Capture, Ending};
use crate::run::protocol::{self, Shell};
use crate::run::record::Recorder;
use crate::run::run_job;
use crate::status::Status;

use super::files;

/// The arguments a trace runs with, and what is typed in for `-i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) args: Vec<String>,
    pub(crate) typed: Option<Vec<u8>>,
    /// The exit status the run must end with (`-- status: N`), if given.
    pub(crate) status: Option<i32>,
}

const DIRECTIVE: &str = "-- run:";
const STATUS: &str = "-- status:";

/// The first line of `text` and what follows it.
fn first_line(text: &[u8]) -> (&[u8], &[u8]) {
    match text.iter().position(|&b| b == b'\n') {
        Some(k) => (&text[..k], &text[k + 1..]),
        None => (text, &b""[..]),
    }
}

/// `-- status: N` on `line`: `None` when the line is no status directive,
/// else N, or why it is not a valid one.
fn status_of(line: &[u8]) -> Option<Result<i32, String>> {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    let rest = line.strip_prefix("--")?.trim_start().strip_prefix("status")?;
    if rest.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let valid = line.strip_prefix(STATUS).and_then(|n| n.trim().parse::<i32>().ok());
    Some(valid.filter(|n| (0..=255).contains(n)).ok_or_else(|| {
        format!("`{line}` is not a valid directive: write `{STATUS} N`, N from 0 to 255")
    }))
}

impl Plan {
    pub(crate) fn of(trace: &[u8]) -> Plan {
        let (first, rest) = first_line(trace);
        let first = String::from_utf8_lossy(first);
        let Some(args) = first.trim().strip_prefix(DIRECTIVE) else {
            let status = status_of(first.as_bytes()).and_then(Result::ok);
            return Plan { args: vec!["-b".into(), "IN".into()], typed: None, status };
        };
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let (second, after) = first_line(rest);
        let status = status_of(second).and_then(Result::ok);
        // The status line is no input typed into the shell.
        let typed_from = if status.is_some() { after } else { rest };
        let typed = (args.first().map(String::as_str) == Some("-i")).then(|| typed_from.to_vec());
        Plan { args, typed, status }
    }

    /// `of`, refusing a first line that looks like a directive but is not
    /// one (`--run:`, `-- run -b IN`): silently running it as `-b IN` would
    /// test something else than meant.
    pub(crate) fn checked(trace: &[u8]) -> Result<Plan, String> {
        let first = trace.split(|&b| b == b'\n').next().unwrap_or_default();
        let first = String::from_utf8_lossy(first);
        let line = first.trim();
        let after = line.strip_prefix("--").map(|rest| rest.trim_start());
        let says_run = after
            .and_then(|rest| rest.strip_prefix("run"))
            .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'));
        if says_run && !line.starts_with(DIRECTIVE) {
            return Err(format!(
                "line 1, `{line}`, is not a valid directive: write `{DIRECTIVE} ARGS` (e.g. `{DIRECTIVE} -b IN OUT`)"
            ));
        }
        let (number, status_line) = if line.starts_with(DIRECTIVE) {
            (2, first_line(first_line(trace).1).0)
        } else {
            (1, first_line(trace).0)
        };
        if let Some(Err(why)) = status_of(status_line) {
            return Err(format!("line {number}, {why}"));
        }
        Ok(Plan::of(trace))
    }

    fn writes_file(&self) -> bool {
        self.args.iter().any(|a| a == "OUT")
    }

    pub(crate) fn argv(&self, input: &Path, output: &Path) -> Vec<OsString> {
        let arg = |a: &String| match a.as_str() {
            "IN" => input.as_os_str().to_owned(),
            "OUT" => output.as_os_str().to_owned(),
            other => OsString::from(other),
        };
        self.args.iter().map(arg).collect()
    }
}

/// What produces a test's output: the engine here, or a program.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Producer<'a> {
    /// This program's engine, in this process.
    InProcess,
    /// An executable and its first arguments (e.g. `["python3", "ttt.py"]`),
    /// stopped if it runs longer than `timeout`.
    Program { command: &'a [String], timeout: Duration },
}

/// An output, and the start of what the program wrote to standard error.
#[derive(Debug)]
pub(crate) struct Produced {
    pub(crate) output: Capture,
    pub(crate) stderr: Vec<u8>,
    /// How the program ended, when it failed (killed by a signal, or a
    /// non-zero exit status): `--bless` records no such output.
    pub(crate) failed: Option<String>,
    /// Its exit status (none when killed by a signal).
    pub(crate) status: Option<i32>,
    /// The status the trace says it must end with (`-- status: N`).
    pub(crate) wanted_status: Option<i32>,
}

/// The longest `-- run: -i` session typed in (it is held in memory).
pub(crate) const MAX_TYPED: u64 = 16 << 20;

/// Runs the trace as its plan says and returns what it printed (or wrote
/// to OUT), at most `cap` bytes; `stop` ends an external program at once.
pub(crate) fn produce(
    producer: Producer,
    trace: &Path,
    cap: u64,
    stop: Option<&AtomicBool>,
) -> Result<Produced, String> {
    let text = files::read_bounded(trace, MAX_TYPED)?;
    let plan = Plan::checked(&text)?;
    drop(text);
    let wanted_status = plan.status;
    let produced = match producer {
        Producer::InProcess => in_process(&plan, trace, cap).map(|(output, status)| Produced {
            output,
            stderr: Vec::new(),
            failed: None,
            status: Some(status),
            wanted_status: None,
        }),
        Producer::Program { command, timeout } => external(
            command,
            &plan,
            trace,
            process::Spec { argv: &[], input: None, timeout, cap, stop },
        ),
    };
    produced.map(|p| Produced { wanted_status, ..p })
}

/// What the executable would print, and its exit status.
fn in_process(plan: &Plan, trace: &Path, cap: u64) -> Result<(Capture, i32), String> {
    // OUT is never created in-process: its content is what the job writes.
    let mut out = Capture::new(cap);
    let too_much = |out: &Capture| format!("printed more than {} bytes", out.cap());
    let mut status = Status::Ran.code();
    match cli::parse(&plan.argv(trace, Path::new("OUT"))) {
        Ok(Invocation::Run { job, input, session, .. }) => {
            if input != trace {
                refuse_special(&input)?;
            }
            match run_job(job, &input, &mut out, session.autopilot()) {
                Ok(earned) => status = earned.code(),
                Err(e) => {
                    if out.overflowed() {
                        return Err(too_much(&out));
                    }
                    let _ = writeln!(out, "{e}");
                    status = Status::Error.code();
                }
            }
        }
        Ok(Invocation::Interactive(session)) => {
            let typed = plan.typed.as_deref().unwrap_or_default();
            let shell = Shell::new(session.autopilot());
            let ran = protocol::run_plain(shell, typed, &mut out, &mut Recorder::default());
            if out.overflowed() {
                return Err(too_much(&out));
            }
            ran.map_err(|e| e.to_string())?;
        }
        Ok(other) => return Err(format!("`{DIRECTIVE}` asks for {other:?}, which runs no trace")),
        // As the executable prints it, so traces can test invocation errors.
        Err(e) => {
            let _ = writeln!(out, "{}", e.with_hint(crate::cli::PROGRAM));
            status = Status::Error.code();
        }
    }
    Ok((out, i32::from(status)))
}

/// A file a directive names instead of IN must not be a FIFO or a device:
/// reading it could wait or go on forever.
pub(crate) fn refuse_special(input: &Path) -> Result<(), String> {
    match fs::metadata(input) {
        Ok(m) if !m.is_file() && !m.is_dir() => Err(format!(
            "`{DIRECTIVE}` names {}, which is {}, not a regular file",
            input.display(),
            files::describe(m.file_type())
        )),
        // Missing files and folders get the executable's own message.
        _ => Ok(()),
    }
}

fn external(
    program: &[String],
    plan: &Plan,
    trace: &Path,
    spec: process::Spec,
) -> Result<Produced, String> {
    let exe = program.first().ok_or("an empty program")?;
    let scratch = tempfile::tempdir().map_err(|e| format!("no scratch folder: {e}"))?;
    let out_file = scratch.path().join("out.txt");
    let argv: Vec<OsString> =
        program.iter().map(OsString::from).chain(plan.argv(trace, &out_file)).collect();
    let spec = process::Spec { argv: &argv, input: plan.typed.as_deref(), ..spec };
    let finished = process::run(&spec).map_err(|e| format!("cannot run {exe}: {e}"))?;
    let code = match finished.ending {
        Ending::Exited(status) => status.code(),
        _ => None,
    };
    let failed = match finished.ending {
        Ending::Exited(status) if status.success() => None,
        Ending::Exited(status) => Some(match status.signal() {
            Some(signal) => format!("{exe} was killed by signal {signal}"),
            None => format!("{exe} exited with status {}", status.code().unwrap_or(-1)),
        }),
        Ending::TimedOut => {
            return Err(format!(
                "{exe} ran longer than {} s and was stopped",
                spec.timeout.as_secs_f64()
            ));
        }
        Ending::PrintedTooMuch => {
            return Err(format!("{exe} printed more than {} bytes and was stopped", spec.cap));
        }
        Ending::Stopped => return Err(format!("{exe} was stopped: the run was cut short")),
    };
    if plan.writes_file() {
        let file =
            files::open_regular(&out_file).map_err(|e| format!("{exe} wrote no OUT file: {e}"))?;
        let written = Capture::of_file(file).map_err(|e| format!("reading OUT: {e}"))?;
        if written.len() > spec.cap {
            return Err(format!("{exe} wrote more than {} bytes to OUT", spec.cap));
        }
        // The scratch folder goes, the open file stays readable.
        let stderr = finished.stderr;
        return Ok(Produced { output: written, stderr, failed, status: code, wanted_status: None });
    }
    let (output, stderr) = (finished.stdout, finished.stderr);
    Ok(Produced { output, stderr, failed, status: code, wanted_status: None })
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
        assert!(Plan::checked(b"--run: -b IN\n").is_err());
        assert!(Plan::checked(b"-- run -b IN\n").is_err());
        assert!(Plan::checked(b"--  run\n").is_err());
        assert!(Plan::checked(b"-- running notes\n").is_ok());
        assert!(Plan::checked(b"-- run: -l IN\n").is_ok());
        let e = Plan::checked(b"--run:-b IN\n").expect_err("malformed");
        assert!(e.starts_with("line 1, `--run:-b IN`, is not a valid directive"), "{e}");
        let p = Plan::of(b"-- run: -i\nundo\nquit\n");
        assert_eq!(p.typed.as_deref(), Some(&b"undo\nquit\n"[..]));
    }

    #[test]
    fn a_status_line_gives_the_exit_status_to_end_with() {
        assert_eq!(Plan::of(b"undo\n").status, None);
        assert_eq!(Plan::of(b"-- status: 3\nundo\n").status, Some(3));
        assert_eq!(Plan::of(b"-- status:0").status, Some(0));
        let p = Plan::of(b"-- run: -i\r\n-- status: 1\r\nundo\n");
        assert_eq!((p.status, p.typed.as_deref()), (Some(1), Some(&b"undo\n"[..])));
        // Only first, or right after `-- run:`.
        assert_eq!(Plan::of(b"undo\n-- status: 3\n").status, None);
        assert_eq!(Plan::checked(b"-- status: 3\n").expect("valid").status, Some(3));
        assert!(Plan::checked(b"-- statuses are noted\n").is_ok());
        for bad in ["-- status: x\n", "-- status: 256\n", "--status: 1\n", "-- status 1\n"] {
            let e = Plan::checked(bad.as_bytes()).expect_err(bad);
            assert!(e.starts_with("line 1, `"), "{e}");
        }
        let e = Plan::checked(b"-- run: -b IN\n-- status: -1\n").expect_err("negative");
        assert!(e.starts_with("line 2, `-- status: -1` is not a valid directive"), "{e}");
    }
}
