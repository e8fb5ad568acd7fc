//! From the command line to a front end, and from its result to the exit
//! status: 0 the trace ran, 1 it had a syntax or type error, 2 invocation or
//! file error. Messages go to standard output, as ETF prints them. Each
//! layer's error type knows its status; `exit_status` is the one place they
//! become the program's.

use std::ffi::OsString;
use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Invocation, UsageError};
use crate::fuzz::{self, FuzzError};
use crate::grade::{self, GradeError};
use crate::run::{OutputFile, PipelineError, RunError, open_input, run_input};
use crate::serve::{self, ServeError};
use crate::status::{self, Status, WriteError};
use crate::suite::SuiteError;
use crate::{board, shell, test, verify};

/// Standard output's buffer for everything but a transcript, which `Sink`
/// buffers (docs/PERFORMANCE.md, "One output buffer").
const OUTPUT_BUFFER: usize = 64 * 1024;

/// Why the program could not do what it was asked: the error of the layer
/// that stopped it, carried as it is.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Usage(#[from] UsageError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Runner(#[from] SuiteError),
    #[error(transparent)]
    Grade(#[from] GradeError),
    #[error(transparent)]
    Fuzz(#[from] FuzzError),
    #[error(transparent)]
    Serve(#[from] ServeError),
}

impl Failure {
    fn is_event_too_long(&self) -> bool {
        matches!(self, Failure::Run(crate::run::RunError::Run(e)) if e.is_event_too_long())
    }

    /// The exit status it ends the program with, and the message to print
    /// (none when the output went away: the status is the one the run had
    /// earned, whatever layer met it).
    fn status(&self, program: &str) -> (Status, Option<String>) {
        match (self, status::output_error(self).and_then(WriteError::closed)) {
            (_, Some(earned)) => (earned, None),
            (Failure::Usage(e), None) => (Status::Error, Some(e.with_hint(program))),
            (e, None) => (Status::Error, Some(e.to_string())),
        }
    }
}

/// Writing to standard output from here on (help, version, the flush
/// before a session) fails as a run's writes do.
impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Run(e.into())
    }
}

/// Runs the program with its arguments (the first is the program's name).
pub fn main(args: Vec<OsString>) -> ExitCode {
    let program = args
        .first()
        .map(Path::new)
        .and_then(Path::file_name)
        .map_or_else(|| cli::PROGRAM.into(), |n| typed_name(&n.to_string_lossy()));
    widen_pipe();
    let mut stdout = BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock());
    let ran = cli::parse(args.get(1..).unwrap_or_default())
        .and_then(cli::runnable)
        .map_err(Failure::from)
        .and_then(|invocation| dispatch(invocation, &program, &mut stdout));
    ExitCode::from(exit_status(ran, &program, &mut stdout))
}

/// The program's name as users type it: on Windows without its `.exe`
/// (`tictac -help`, as on Linux), in whatever case it was started with.
fn typed_name(file: &str) -> String {
    let suffix = std::env::consts::EXE_SUFFIX;
    let cut = file.len().saturating_sub(suffix.len());
    match (file.get(cut..), file.get(..cut)) {
        (Some(end), Some(name)) if !suffix.is_empty() && end.eq_ignore_ascii_case(suffix) => {
            name.to_owned()
        }
        _ => file.to_owned(),
    }
}

/// The one place a result becomes the exit status. An error is printed
/// (a usage error with where to read more), unless the reader went away
/// (`tictac -b big | head`): then the program stops quietly, with the
/// status the run had already earned.
fn exit_status(ran: Result<Status, Failure>, program: &str, stdout: &mut dyn Write) -> u8 {
    let status = match ran {
        Ok(status) => status,
        Err(e) => match e.status(program) {
            (earned, None) => return earned.code(),
            // An event over 1 MiB is refused on standard error, with
            // nothing on standard output (SPEC §5).
            (status, Some(message)) if e.is_event_too_long() => {
                eprintln!("{message}");
                status
            }
            (status, Some(message)) => {
                let _ = writeln!(stdout, "{message}");
                status
            }
        },
    };
    match stdout.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("error: writing the output failed: {e}");
            2
        }
        _ => status.code(),
    }
}

/// When standard output is a pipe, asks for a 1 MiB pipe buffer: a batch
/// run writes megabytes, and a wider pipe means far fewer wake-ups of the
/// reader (see docs/PERFORMANCE.md). Anything else, or a refusal, is fine.
fn widen_pipe() {
    crate::platform::files::widen_stdout_pipe();
}

/// Whether standard output is a pipe whose reader has gone.
fn stdout_closed() -> bool {
    crate::platform::files::stdout_closed()
}

fn dispatch(
    invocation: Invocation,
    program: &str,
    stdout: &mut BufWriter<StdoutLock<'static>>,
) -> Result<Status, Failure> {
    match invocation {
        Invocation::Help => {
            write!(stdout, "{}", help(program))?;
            Ok(Status::Ran)
        }
        Invocation::CommandHelp(text) => {
            write!(stdout, "{text}")?;
            Ok(Status::Ran)
        }
        Invocation::Completions(shell) => {
            cli::write_completions(shell, stdout)?;
            Ok(Status::Ran)
        }
        Invocation::Version => {
            writeln!(stdout, "{} {}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))?;
            Ok(Status::Ran)
        }
        Invocation::Interactive(session) => {
            stdout.flush()?;
            Ok(shell::run(&session)?)
        }
        Invocation::Board(session) => {
            stdout.flush()?;
            Ok(board::run(&session)?)
        }
        Invocation::Test(options) => Ok(test::run(&options, stdout, &stdout_closed)?),
        Invocation::Grade(options) => Ok(grade::run(&options, stdout)?),
        Invocation::Autograder(options) => Ok(grade::write_autograder(&options, stdout)?),
        Invocation::Run { job, input, output, session } => {
            // The input is checked (opened) before the output is created.
            let input = open_input(&input).map_err(RunError::from)?;
            // A trace saved as UTF-16 or with a BOM is read as its bytes, as
            // the oracle reads it; standard error says what it is.
            if let Some(hint) = input.hint() {
                eprintln!("{hint}");
            }
            match output {
                // The run buffers its transcript itself (`Sink`) and writes
                // past this buffer, so the bytes are buffered once.
                None => {
                    stdout.flush()?;
                    Ok(run_input(job, input, stdout.get_mut(), session.autopilot())
                        .map_err(RunError::from)?)
                }
                Some(output) => Ok(with_output(&output, |out| {
                    Ok(run_input(job, input, out, session.autopilot())?)
                })?),
            }
        }
        Invocation::Verify(options) => Ok(verify::run(&options, stdout)?),
        Invocation::CourseSuite(dir) => Ok(test::write_course(&dir, stdout)?),
        Invocation::Serve(options) => Ok(serve::run(&options, stdout)?),
        Invocation::Fuzz(options) => {
            let ran = fuzz::run(&options, stdout, io::stdout().is_terminal(), &stdout_closed);
            // Nothing a run started outlives the session.
            crate::platform::process::stop_all();
            Ok(ran?.status())
        }
    }
}

/// Writes the output whole or not at all: it appears, never over an
/// existing file, only once the run is complete. (The input was opened,
/// and so checked, before.)
fn with_output(
    output: &Path,
    run: impl FnOnce(&mut dyn Write) -> Result<Status, RunError>,
) -> Result<Status, RunError> {
    let mut file = OutputFile::create(output)?;
    match run(&mut file) {
        Ok(outcome) => {
            file.persist_noclobber()?;
            Ok(outcome)
        }
        // Everything this run writes goes to the file.
        Err(RunError::Run(PipelineError::Write(WriteError::Failed(e)))) => {
            Err(file.write_failed(e).into())
        }
        Err(e) => Err(e),
    }
}

fn help(program: &str) -> String {
    let rows: &[(&str, &str)] = &[
        ("-i", "interactive: type commands after the -> prompt"),
        ("", "(quit or Ctrl-D ends, man lists the commands;"),
        ("", "--record FILE, with -i or -g, writes what ran to the new FILE)"),
        ("-g", "the board on the full terminal: click or press 1-9 to play"),
        ("-b IN", "batch: validate the trace IN, then print its transcript"),
        ("-b IN OUT", "batch into OUT (a new file), in chunks of 100 lines"),
        ("-w M N IN [OUT]", "window: only the transcript of lines M to N-1"),
        ("", "(M, N <= 0 count from the end; N may be _)"),
        ("-l IN [OUT]", "last: the last line, with the state before and after it"),
        ("", "(an OUT must be new; it appears whole or not at all;"),
        ("", "IN - is standard input, OUT - standard output)"),
        ("--bot NAME=S", "with -i, -g, -b: NAME is a computer player (tla, elm, perfect,"),
        ("", "random); --seed N makes its choices random (on a terminal, a"),
        ("", "random bot without --seed takes a fresh seed, shown on stderr)"),
        ("-help", "this text (also --help, -h)"),
        ("-version", "the name and version (also --version)"),
    ];
    // The commands' rows come from their description, as their help does.
    let commands: Vec<(String, String)> = cli::summaries()
        .into_iter()
        .map(|(usage, about)| (usage, lowercase_first(&about)))
        .collect();
    let width = rows.iter().map(|r| r.0).chain(commands.iter().map(|c| c.0.as_str()));
    let width = width.map(|u| program.len() + 1 + u.len()).max().unwrap_or(0);
    let row = |usage: &str, what: &str| {
        let usage = if usage.is_empty() { String::new() } else { format!("{program} {usage}") };
        format!("  {usage:<width$}  {what}\n")
    };
    let mut text = format!(
        "{} {}: the ETF tic-tac-toe oracle, byte for byte\n\nUsage:\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    for &(usage, what) in rows {
        text.push_str(&row(usage, what));
    }
    text.push_str(&format!("\nSubcommands ('{program} NAME --help' lists the options of each):\n"));
    for (usage, what) in &commands {
        text.push_str(&row(usage, what));
    }
    text.push_str(&format!("\nCommands:\n  {}\n", crate::lang::events::examples()));
    text.push_str(
        "\nExit status: 0 the trace ran (or all tests passed), 1 a syntax or type error \
         (or a failed test),\n2 an invocation or file error.\n",
    );
    text
}

/// "Run acceptance tests" as a row of the help reads: "run acceptance tests".
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::FuzzError;

    /// Every layer's error as the top sees it, carrying `write`.
    fn every_layer(write: impl Fn() -> WriteError) -> Vec<Failure> {
        vec![
            RunError::from(write()).into(),
            SuiteError::from(write()).into(),
            GradeError::Suite(write().into()).into(),
            FuzzError::from(write()).into(),
            ServeError::from(write()).into(),
        ]
    }

    #[test]
    fn a_closed_output_ends_every_layer_quietly_with_the_status_earned() {
        for failure in every_layer(|| WriteError::Closed(Status::Failed)) {
            assert_eq!(failure.status("tictac"), (Status::Failed, None), "{failure:?}");
        }
        let pipe = || io::Error::from(io::ErrorKind::BrokenPipe).into();
        for failure in every_layer(pipe) {
            assert_eq!(failure.status("tictac"), (Status::Ran, None), "{failure:?}");
        }
    }

    #[test]
    fn a_failed_write_is_the_same_error_in_every_layer() {
        let said = Some("error: writing the output failed: disk full".to_string());
        for failure in every_layer(|| io::Error::other("disk full").into()) {
            assert_eq!(failure.status("tictac"), (Status::Error, said.clone()), "{failure:?}");
        }
    }

    #[test]
    fn any_other_error_is_printed_with_status_2() {
        let failure = Failure::from(RunError::NoTerminal);
        let (status, said) = failure.status("tictac");
        assert_eq!(status, Status::Error);
        assert_eq!(said.as_deref(), Some(RunError::NoTerminal.to_string().as_str()));
    }
}
