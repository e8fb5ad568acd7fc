//! A test run through the engine, in this process, as the executable would
//! run its `-- run:` line: reading only the trace (or a regular file the
//! line names), never the runner's own standard input, and stopped as a
//! program is, at the timeout or on request.

use std::fs;
use std::io::{self, BufRead, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::plan::{DIRECTIVE, Directive, Plan, Source, beside};
use crate::platform::process::Capture;
use crate::run::input::Buffered;
use crate::run::protocol::{self, LineProtocol};
use crate::run::record::Recorder;
use crate::run::{FileError, Input, RunError, describe, open_input, run_input};
use crate::status::Status;

/// When an in-process run must stop: its deadline, and the flag that
/// stops the suite (Ctrl-C, a closed output).
#[derive(Clone, Copy)]
pub(super) struct Limit<'a> {
    deadline: Option<Instant>,
    timeout: Duration,
    stop: Option<&'a AtomicBool>,
}

impl<'a> Limit<'a> {
    pub(super) fn new(timeout: Duration, stop: Option<&'a AtomicBool>) -> Self {
        Limit { deadline: Instant::now().checked_add(timeout), timeout, stop }
    }

    /// Why the run must stop now, if it must: the message its test shows.
    fn reached(&self) -> Option<String> {
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Some("the run was stopped: the suite was cut short".into());
        }
        let late = self.deadline.is_some_and(|d| Instant::now() >= d);
        late.then(|| format!("ran longer than {} s and was stopped", self.timeout.as_secs_f64()))
    }

    fn check(&self) -> io::Result<()> {
        match self.reached() {
            Some(why) => Err(io::Error::new(io::ErrorKind::TimedOut, why)),
            None => Ok(()),
        }
    }
}

/// A reader or writer that fails once its limit is reached: every run
/// reads its input and writes its output, so none goes on past it.
struct Limited<'a, T> {
    inner: T,
    limit: Limit<'a>,
}

impl<R: Read> Read for Limited<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.limit.check()?;
        self.inner.read(buf)
    }
}

impl<R: BufRead> BufRead for Limited<'_, R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.limit.check()?;
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n)
    }
}

impl<R: Buffered> Buffered for Limited<'_, R> {
    fn buffered(&self) -> &[u8] {
        self.inner.buffered()
    }
}

impl<W: Write> Write for Limited<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.limit.check()?;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// What the executable would print (or write to OUT: its content is what
/// the job writes, no file is made), and its exit status. The trace is
/// read from `held` when its bytes are held elsewhere than at `trace` (the
/// course suite's, in the executable).
pub(super) fn run(
    plan: &Plan,
    (trace, held): (&Path, Option<&[u8]>),
    cap: u64,
    limit: Limit,
) -> Result<(Capture, i32), String> {
    let mut capture = Capture::new(cap);
    let mut out = Limited { inner: &mut capture, limit };
    let ran: Result<i32, String> = match &plan.directive {
        Directive::Run { job, input, session } => {
            let opened = match input {
                Source::Trace => match held {
                    Some(bytes) => {
                        Ok(Input::new(trace.display().to_string(), Box::new(bytes)).never_waits())
                    }
                    None => open_input(trace),
                },
                Source::Stdin(name) => {
                    let typed = plan.typed.as_deref().unwrap_or_default();
                    Ok(Input::new(name.display().to_string(), Box::new(typed)).never_waits())
                }
                // Read beside the trace, named as written.
                Source::File(path) => {
                    let read = beside(trace, path);
                    refuse_special(&read)?;
                    let shown = || path.display().to_string();
                    match open_input(&read) {
                        Ok(opened) => Ok(Input::new(shown(), Box::new(opened))),
                        Err(FileError::Missing(_)) => Err(FileError::Missing(shown())),
                        Err(FileError::Unreadable(_)) => Err(FileError::Unreadable(shown())),
                    }
                }
            };
            let ran = opened.map_err(RunError::from).and_then(|input| {
                let input =
                    Input::new(input.name().into(), Box::new(Limited { inner: input, limit }));
                Ok(run_input(*job, input, &mut out, session.autopilot())?)
            });
            match ran {
                Ok(earned) => Ok(earned.code().into()),
                Err(e) => {
                    // As the executable prints it.
                    let _ = writeln!(out.inner, "{e}");
                    Ok(Status::Error.code().into())
                }
            }
        }
        Directive::Shell(session) => {
            let typed = plan.typed.as_deref().unwrap_or_default();
            let shell = LineProtocol::new(session.autopilot());
            let typed = Limited { inner: typed, limit };
            protocol::run_plain(shell, typed, &mut out, &mut Recorder::default(), &mut |_, _| {})
                .map(|()| Status::Ran.code().into())
                .map_err(|e| e.to_string())
        }
        // As the executable prints it, so traces can test invocation errors.
        Directive::Usage(e) => {
            let _ = writeln!(out, "{}", e.with_hint(crate::cli::PROGRAM));
            Ok(Status::Error.code().into())
        }
        Directive::NoTrace => Err(format!("`{DIRECTIVE}` runs no trace")),
    };
    // A run cut short ends as a program's would: its output is no answer.
    if let Some(why) = limit.reached() {
        return Err(why);
    }
    if capture.overflowed() {
        return Err(format!("printed more than {} bytes", capture.cap()));
    }
    Ok((capture, ran?))
}

/// A file a directive names instead of IN must be a regular file (reading
/// a FIFO or a device could wait or go on forever), and not the runner's
/// own standard input (`-` is the trace there).
pub(crate) fn refuse_special(input: &Path) -> Result<(), String> {
    let named = || format!("`{DIRECTIVE}` names {}, which is", input.display());
    match fs::metadata(input) {
        Ok(m) if !m.is_file() && !m.is_dir() => {
            Err(format!("{} {}, not a regular file", named(), describe(m.file_type())))
        }
        Ok(_) if crate::run::is_stdin(input) => Err(format!(
            "{} the runner's own standard input: write `-` for the trace itself",
            named()
        )),
        // Missing files and folders get the executable's own message.
        _ => Ok(()),
    }
}
