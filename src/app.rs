//! From the command line to a front end, and from its result to the exit
//! status: 0 the trace ran, 1 it had a syntax or type error, 2 invocation or
//! file error. Messages go to standard output, as ETF prints them.

use std::ffi::OsString;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;

use crate::cli::{self, Invocation};
use crate::modes::fuzz::{self, FuzzError};
use crate::modes::runner::{self, RunnerError};
use crate::modes::{
    OutputFile, RunError, RunOutcome, interactive, open_input, run_input, run_job, serve, tui,
    verify,
};

const OUTPUT_BUFFER: usize = 64 * 1024;

/// Runs the program with its arguments (the first is the program's name).
pub fn main(args: Vec<OsString>) -> ExitCode {
    let program = args
        .first()
        .map(Path::new)
        .and_then(Path::file_name)
        .map_or_else(|| cli::PROGRAM.into(), |n| n.to_string_lossy().into_owned());
    widen_pipe();
    let mut stdout = BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout().lock());
    let status = match cli::parse(args.get(1..).unwrap_or_default()) {
        Err(e) => {
            let _ = writeln!(stdout, "{}", e.with_hint(&program));
            ExitCode::from(2)
        }
        Ok(invocation) => match dispatch(invocation, &program, &mut stdout) {
            Ok(RunOutcome::Ran) => ExitCode::SUCCESS,
            Ok(RunOutcome::Rejected) => ExitCode::from(1),
            // The reader went away (`tictac -b big | head`): stop quietly,
            // with the status the run had already earned.
            Err(RunError::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
                return ExitCode::SUCCESS;
            }
            Err(RunError::Closed(RunOutcome::Ran)) => return ExitCode::SUCCESS,
            Err(RunError::Closed(RunOutcome::Rejected)) => return ExitCode::from(1),
            Err(e) => {
                let _ = writeln!(stdout, "{e}");
                ExitCode::from(2)
            }
        },
    };
    match stdout.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("error: writing the output failed: {e}");
            ExitCode::from(2)
        }
        _ => status,
    }
}

/// When standard output is a pipe, asks for a 1 MiB pipe buffer: a batch
/// run writes megabytes, and a wider pipe means far fewer wake-ups of the
/// reader (see docs/PERFORMANCE.md). Anything else, or a refusal, is fine.
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    {
        let _ = rustix::pipe::fcntl_setpipe_size(io::stdout(), 1 << 20);
    }
}

/// Whether standard output is a pipe whose reader has gone.
fn stdout_closed() -> bool {
    let stdout = io::stdout();
    let mut fds = [rustix::event::PollFd::new(&stdout, rustix::event::PollFlags::empty())];
    let now = rustix::event::Timespec { tv_sec: 0, tv_nsec: 0 };
    rustix::event::poll(&mut fds, Some(&now)).is_ok()
        && fds[0]
            .revents()
            .intersects(rustix::event::PollFlags::ERR | rustix::event::PollFlags::HUP)
}

fn dispatch(
    invocation: Invocation,
    program: &str,
    stdout: &mut dyn Write,
) -> Result<RunOutcome, RunError> {
    match invocation {
        Invocation::Help => {
            write!(stdout, "{}", help(program))?;
            Ok(RunOutcome::Ran)
        }
        Invocation::Version => {
            writeln!(stdout, "{} {}", env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))?;
            Ok(RunOutcome::Ran)
        }
        Invocation::Interactive(session) => {
            stdout.flush()?;
            interactive::run(&session)?;
            Ok(RunOutcome::Ran)
        }
        Invocation::Board(session) => {
            stdout.flush()?;
            tui::run(&session)?;
            Ok(RunOutcome::Ran)
        }
        Invocation::Test(options) if options.coverage => {
            // A report: gaps in coverage are no failure.
            match runner::coverage::run(&options, stdout) {
                Ok(_) | Err(RunnerError::OutputClosed { .. }) => Ok(RunOutcome::Ran),
                Err(RunnerError::Write(e)) => Err(RunError::Write(e)),
                Err(e) => Err(RunError::Runner(e.to_string())),
            }
        }
        Invocation::Test(options) => {
            // Under --format junit the report for people goes to standard error.
            let people_read = match options.format {
                runner::Format::Junit => io::stderr().is_terminal(),
                _ => io::stdout().is_terminal(),
            };
            let color = people_read && std::env::var_os("NO_COLOR").is_none();
            let mut stderr = io::stderr();
            let ran = runner::run_watching(&options, stdout, &mut stderr, color, &stdout_closed);
            // Nothing a test started outlives the suite, even untagged.
            crate::process::stop_all();
            match ran {
                Ok(report) if report.all_passed() => Ok(RunOutcome::Ran),
                Ok(_) => Ok(RunOutcome::Rejected),
                // The reader went away: end quietly, with the status earned.
                Err(RunnerError::OutputClosed { failed: true }) => Ok(RunOutcome::Rejected),
                Err(RunnerError::OutputClosed { failed: false }) => Ok(RunOutcome::Ran),
                Err(RunnerError::Write(e)) => Err(RunError::Write(e)),
                Err(e) => Err(RunError::Runner(e.to_string())),
            }
        }
        Invocation::Run { job, input, output: None, session } => {
            run_job(job, &input, stdout, session.autopilot())
        }
        Invocation::Run { job, input, output: Some(output), session } => {
            // The input is checked (opened) before the output is created.
            let input = open_input(&input)?;
            with_output(&output, |out| run_input(job, input, out, session.autopilot()))
        }
        Invocation::Verify(options) => verify::run(&options, stdout),
        Invocation::Serve(options) => serve::run(&options, stdout),
        Invocation::Fuzz(options) => {
            let ran = fuzz::run(&options, stdout, io::stdout().is_terminal());
            // Nothing a run started outlives the session.
            crate::process::stop_all();
            match ran {
                Ok(report) if report.divergences == 0 => Ok(RunOutcome::Ran),
                Ok(_) => Ok(RunOutcome::Rejected),
                Err(FuzzError::Write(e)) => Err(RunError::Write(e)),
                Err(e) => Err(RunError::Runner(e.to_string())),
            }
        }
    }
}

/// Writes the output whole or not at all: it appears, never over an
/// existing file, only once the run is complete. (The input was opened,
/// and so checked, before.)
fn with_output(
    output: &Path,
    run: impl FnOnce(&mut dyn Write) -> Result<RunOutcome, RunError>,
) -> Result<RunOutcome, RunError> {
    let mut file = OutputFile::create(output)?;
    match run(&mut file) {
        Ok(outcome) => {
            file.persist_noclobber()?;
            Ok(outcome)
        }
        // Everything this run writes goes to the file.
        Err(RunError::Write(e)) => Err(file.write_failed(e).into()),
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
        ("test [PATH...]", "acceptance tests: each NAME.txt against NAME.expected.txt"),
        ("", "(--bless, --program CMD, --oracle CMD, --log DIR, -j N,"),
        ("", "--timeout S, --quiet, --filter TEXT, --format tap|junit:"),
        ("", "junit writes JUnit XML, the report goes to standard error)"),
        ("test --coverage", "which behaviours of the catalogue the tests reach, and"),
        ("", "which none does ([PATH...], --filter TEXT, --quiet)"),
        ("fuzz --program CMD", "find where CMD -b TRACE departs from the engine, on generated"),
        ("", "traces; each new kind shrunk and saved as a test (--oracle CMD,"),
        ("", "--runs N, --time S, --seed N, --out DIR, -j N, --timeout S,"),
        ("", "--max-lines L, --exclude ID..., --check-status)"),
        ("verify", "the game's facts and every strategy's record, exhaustively"),
        ("", "(--strategy S --as X|O [--trace-out FILE]: one strategy)"),
        ("serve", "the game and the oracle in a web browser, and a JSON API"),
        ("", "(--port N (8080; 0 any free), --bind ADDR (127.0.0.1), --timeout S)"),
        ("--bot NAME=S", "with -i, -g, -b: NAME is a computer player (tla, elm, perfect,"),
        ("", "random); --seed N makes its choices random (on a terminal, a"),
        ("", "random bot without --seed takes a fresh seed, shown on stderr)"),
        ("-help", "this text (also --help, -h)"),
        ("-version", "the name and version (also --version)"),
    ];
    let mut text = format!(
        "{} {}: the ETF tic-tac-toe oracle, byte for byte\n\nUsage:\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    for &(usage, what) in rows {
        let usage = if usage.is_empty() { String::new() } else { format!("{program} {usage}") };
        text.push_str(&format!("  {usage:<24}  {what}\n"));
    }
    text.push_str(&format!("\nCommands:\n  {}\n", crate::lang::events::examples()));
    text.push_str(
        "\nExit status: 0 the trace ran (or all tests passed), 1 a syntax or type error \
         (or a failed test),\n2 an invocation or file error.\n",
    );
    text
}
