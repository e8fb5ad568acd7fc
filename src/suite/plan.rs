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

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use crate::cli::{self, Invocation, STDOUT, Session, UsageError};
use crate::platform::command_line;
use crate::platform::files::{self as platform_files, Shortage};
use crate::platform::process::{self, Capture, Ending, RunAs};
use crate::run::{Job, STDIN};

pub(crate) use super::header::DIRECTIVE;
pub(crate) use super::header::Visibility;
use super::header::{
    misplaced_directive, points_of, says_points, says_run, says_visibility, status_of,
    stray_directive, visibility_of,
};
use super::points::Points;
use super::{files, in_process, workdir};

/// The arguments a trace runs with, and what is typed in for `-i`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) args: Vec<String>,
    /// The run's standard input: the rest of the file for `-i`, the whole
    /// trace for a run that reads `-` (see `names_stdin`).
    pub(crate) typed: Option<Vec<u8>>,
    /// The exit status the run must end with (`-- status: N`), if given.
    pub(crate) status: Option<i32>,
    /// What the line asks for.
    pub(crate) directive: Directive,
    /// Where OUT stands in `args`, whatever the word there: the run writes
    /// a scratch file in its place, and the test compares what lands in it.
    out_at: Option<usize>,
    /// Where the input stands in `args` when it names another file than
    /// the trace: a program gets its own copy in its place.
    file_at: Option<usize>,
}

/// What a `-- run:` line asks for, read as the executable reads it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Directive {
    /// `-b`, `-w`, `-l`: a trace run into an output.
    Run { job: Job, input: Source, session: Session },
    /// `-i`: the rest of the file typed into the shell.
    Shell(Session),
    /// An invocation error: the test compares the executable's message.
    Usage(UsageError),
    /// A form that runs no trace (`test`, `-g`, `-help`, `-i --record F`):
    /// `Plan::checked` refuses it.
    NoTrace,
}

/// Where a `-- run:` line's trace comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// `IN`: the trace file.
    Trace,
    /// `-` or `/dev/stdin` (as named): the trace itself, as the run's
    /// standard input.
    Stdin(PathBuf),
    /// Another file, named in the line.
    File(PathBuf),
}

/// The word that stands for the trace in a `-- run:` line.
const IN: &str = "IN";

/// The forms a `-- run:` line may take, for messages.
const FORMS: &str = "`-b IN [OUT]`, `-w M N IN [OUT]`, `-l IN [OUT]` or `-i`, with \
                     `--bot NAME=STRATEGY` and `--seed N` where the mode takes them \
                     (IN the trace or another file, OUT a scratch file)";

/// Whether a `-- run:` line's input names standard input: there it is the
/// trace itself, for the engine as for a program (which gets the trace on
/// its standard input), never the runner's own standard input.
pub(super) fn names_stdin(input: &Path) -> bool {
    [STDIN, "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]
        .iter()
        .any(|name| input == Path::new(name))
}

fn os_args(args: &[String]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

impl Directive {
    fn of(args: &[String]) -> Directive {
        // A command (`test`, `serve`, ...) runs no trace, well formed or not.
        if args.first().is_some_and(|word| cli::is_command(word)) {
            return Directive::NoTrace;
        }
        match cli::parse(&os_args(args)) {
            Ok(Invocation::Run { job, input, session, .. }) => {
                let input = if input == Path::new(IN) {
                    Source::Trace
                } else if names_stdin(&input) {
                    Source::Stdin(input)
                } else {
                    Source::File(input)
                };
                Directive::Run { job, input, session }
            }
            Ok(Invocation::Interactive(session)) if session.record.is_none() => {
                Directive::Shell(session)
            }
            Ok(_) => Directive::NoTrace,
            Err(e) => Directive::Usage(e),
        }
    }
}

/// Where OUT stands in `args`: the word that, replaced by another, becomes
/// the output the line names (`-- run: -b IN IN` writes its second `IN`).
fn out_position(args: &[String]) -> Option<usize> {
    position_of(args, |run| match run {
        Invocation::Run { output, .. } => output.filter(|o| o.as_os_str() != STDOUT),
        _ => None,
    })
}

/// Where the input stands in `args`, found as OUT is.
fn input_position(args: &[String]) -> Option<usize> {
    position_of(args, |run| match run {
        Invocation::Run { input, .. } => Some(input),
        _ => None,
    })
}

/// The word of `args` that, replaced by another, becomes what `named`
/// picks from the invocation.
fn position_of(args: &[String], named: fn(Invocation) -> Option<PathBuf>) -> Option<usize> {
    // No word of a `-- run:` line holds a space.
    const PROBE: &str = " WORD ";
    let named = |args: &[String]| cli::parse(&os_args(args)).ok().and_then(named);
    let word = named(args)?;
    (0..args.len()).rev().filter(|&k| Path::new(&args[k]) == word).find(|&k| {
        let mut probe = args.to_vec();
        probe[k] = PROBE.into();
        named(&probe).is_some_and(|o| o == Path::new(PROBE))
    })
}

/// The first line of `text` and what follows it.
fn first_line(text: &[u8]) -> (&[u8], &[u8]) {
    match text.iter().position(|&b| b == b'\n') {
        Some(k) => (&text[..k], &text[k + 1..]),
        None => (text, &b""[..]),
    }
}

impl Plan {
    pub(crate) fn of(trace: &[u8]) -> Plan {
        let (first, rest) = first_line(trace);
        let first = String::from_utf8_lossy(first);
        let Some(args) = first.trim().strip_prefix(DIRECTIVE) else {
            let status = status_of(first.as_bytes()).and_then(Result::ok);
            let args: Vec<String> = vec!["-b".into(), IN.into()];
            let directive = Directive::of(&args);
            return Plan { args, typed: None, status, directive, out_at: None, file_at: None };
        };
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let (second, after) = first_line(rest);
        let status = status_of(second).and_then(Result::ok);
        let directive = Directive::of(&args);
        let typed = match &directive {
            // The status line is no input typed into the shell, nor are
            // the points and visibility lines right after the directives.
            Directive::Shell(_) => {
                let mut typed = if status.is_some() { after } else { rest };
                for _ in 0..2 {
                    let (next, past) = first_line(typed);
                    let next = String::from_utf8_lossy(next);
                    if says_points(next.trim()) || says_visibility(next.trim()) {
                        typed = past;
                    }
                }
                Some(typed.to_vec())
            }
            Directive::Run { input: Source::Stdin(_), .. } => Some(trace.to_vec()),
            _ => None,
        };
        let out_at = out_position(&args);
        let file_at = match &directive {
            Directive::Run { input: Source::File(_), .. } => input_position(&args),
            _ => None,
        };
        Plan { args, typed, status, directive, out_at, file_at }
    }

    /// `of`, refusing a first line that looks like a directive but is not
    /// one (`--run:`, `-- run -b IN`): silently running it as `-b IN` would
    /// test something else than meant; a run or status line where it is
    /// not read (`misplaced_directive`, `stray_directive`); points said
    /// wrongly (`points_of`);
    /// and one that runs no trace.
    pub(crate) fn checked(trace: &[u8]) -> Result<Plan, String> {
        let first = trace.split(|&b| b == b'\n').next().unwrap_or_default();
        let first = String::from_utf8_lossy(first);
        let line = first.trim();
        if says_run(line) && !line.starts_with(DIRECTIVE) {
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
        let plan = Plan::of(trace);
        misplaced_directive(trace, matches!(plan.directive, Directive::Shell(_)))?;
        points_of(trace)?;
        visibility_of(trace)?;
        stray_directive(trace)?;
        if plan.directive == Directive::NoTrace {
            return Err(format!(
                "line 1, `{line}`, runs no trace: a `{DIRECTIVE}` line takes {FORMS}"
            ));
        }
        Ok(plan)
    }

    /// Whether the run writes OUT (a file, not `-`).
    pub(crate) fn writes_file(&self) -> bool {
        self.out_at.is_some()
    }

    /// The arguments with `IN` the trace and OUT (whatever its word) `output`.
    pub(crate) fn argv(&self, input: &Path, output: &Path) -> Vec<OsString> {
        let arg = |(k, a): (usize, &String)| match a.as_str() {
            _ if Some(k) == self.out_at => output.as_os_str().to_owned(),
            IN => input.as_os_str().to_owned(),
            other => OsString::from(other),
        };
        self.args.iter().enumerate().map(arg).collect()
    }

    /// `argv`, with the other file the line names (if any) `file`.
    fn argv_with_file(&self, input: &Path, output: &Path, file: Option<&Path>) -> Vec<OsString> {
        let mut argv = self.argv(input, output);
        if let (Some(k), Some(file)) = (self.file_at, file) {
            argv[k] = file.as_os_str().to_owned();
        }
        argv
    }

    /// The other file the line names as the run's input, as written, if
    /// it does (read `beside` the trace).
    fn file(&self) -> Option<&Path> {
        match &self.directive {
            Directive::Run { input: Source::File(file), .. } => Some(file),
            _ => None,
        }
    }
}

/// Where the file a `-- run:` line names is read: a relative name in the
/// trace's own folder, the suite's, wherever tictac runs (`tictac grade`
/// and the autograder run it in other folders, a student's among them,
/// whose own `in.txt`, or link named so, is never the suite's); an
/// absolute name as written.
pub(crate) fn beside(trace: &Path, named: &Path) -> PathBuf {
    match trace.parent() {
        Some(folder) if named.is_relative() => folder.join(named),
        _ => named.to_path_buf(),
    }
}

/// Why a trace tests what only tictac does, so that a program under test
/// skips it: `--bot` and `--seed` are tictac's own options, and an
/// invocation error's message names tictac (`Run 'tictac -help'`). None for
/// a trace any ETF program must pass (or one that cannot be read: its test
/// says why when it runs).
pub(crate) fn tictac_only(trace: &Path) -> Option<String> {
    let text = files::read_bounded(trace, MAX_TYPED).ok()?;
    let plan = Plan::checked(&text).ok()?;
    if let Some(option) = plan.args.iter().find(|a| ["--bot", "--seed"].contains(&a.as_str())) {
        return Some(format!("{option} is tictac's own option, not the ETF framework's"));
    }
    matches!(plan.directive, Directive::Usage(_))
        .then(|| "an invocation error: its message names tictac".to_string())
}

/// The other file a trace's `-- run:` line names as its input, where it is
/// read (`beside` the trace), if it names one and can be read.
pub(crate) fn named_input(trace: &Path) -> Option<PathBuf> {
    let text = files::read_bounded(trace, MAX_TYPED).ok()?;
    Plan::checked(&text).ok()?.file().map(|file| beside(trace, file))
}

/// What a trace is worth (`tictac grade`, `--format gradescope`): `--
/// points: N` on one of its first comment lines, else 1. A trace that says
/// it wrongly is refused by `points_of` before it runs.
pub(crate) fn points(trace: &Path) -> Points {
    let text = files::read_bounded(trace, MAX_TYPED).unwrap_or_default();
    points_of(&text).unwrap_or(Points::ONE)
}

/// Who may see a trace's expected output: `-- visibility: V` on one of its
/// first comment lines, else visible. A trace that says it wrongly is
/// refused by `visibility_of` before it runs (and counts as hidden). One
/// that cannot be read is visible: it fails without a diff, so nothing of
/// its answer shows (the course suite's traces, read from the executable
/// while grading, have no visibility line).
pub(crate) fn visibility(trace: &Path) -> Visibility {
    match files::read_bounded(trace, MAX_TYPED) {
        Ok(text) => visibility_of(&text).unwrap_or(Visibility::Hidden),
        Err(_) => Visibility::Visible,
    }
}

/// Why the trace cannot run as written (its directives, its points), read
/// before any test runs; a trace that cannot be read says why when its
/// test runs.
pub(crate) fn check(trace: &Path) -> Result<(), String> {
    match files::read_bounded(trace, MAX_TYPED) {
        Ok(text) => Plan::checked(&text).map(drop),
        Err(_) => Ok(()),
    }
}

/// What produces a test's output: the engine here, or a program.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Producer<'a> {
    /// This program's engine, in this process, stopped as a program is if
    /// it runs longer than `timeout` (a long file named in the line).
    InProcess { timeout: Duration },
    /// An executable and its first arguments (e.g. `["python3", "ttt.py"]`),
    /// stopped if it runs longer than `timeout`, run in `folder`, as `user`
    /// when given (else as this process).
    Program {
        command: &'a [String],
        timeout: Duration,
        folder: Folder<'a>,
        user: Option<&'a RunAs>,
    },
}

/// Where a program runs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Folder<'a> {
    /// This process's folder, as it is (an oracle: tictac's own, or the
    /// instructor's).
    Here,
    /// An empty folder of its own: an oracle beside a program run as
    /// another user (`--user`), which runs as this process's user, never
    /// in the program's folder (a student's, whose files it would read as
    /// root).
    Apart,
    /// A private copy of this folder, made for each run (the program under
    /// test: the student's folder, or the one `tictac test` runs in).
    CopyOf(&'a Path),
    /// The same, of tictac's own private copy of the folder `of` built as
    /// another user (`--build`), in a scratch folder of its own: when too
    /// large to copy for each run (a build's `target/`, `node_modules/`),
    /// the run happens in the built copy itself, its scratch folder given
    /// to the user for that run alone and taken back after.
    Built { copy: &'a Path, of: &'a Path },
}

/// How a program's run went wrong, as every report format names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Trouble {
    /// It exited by itself with a status other than 0: no crash (`tictac
    /// -b` itself exits 1 after a syntax error), `exited with status 1`.
    Exited(i32),
    /// It crashed on Windows: its exit code is the exception's
    /// (`crashed (exception 0xC0000005, access violation)`).
    Exception(i32),
    /// A signal ended it.
    Signal(i32),
    /// Still running at the deadline; stopped.
    TimedOut(Duration),
    /// Stopped by a signal (SIGSTOP, SIGTSTP) and never resumed until the
    /// deadline: it, or a process it started (Linux names that one).
    Frozen(process::Stopped),
    /// It printed past the cap; stopped.
    TooMuch(u64),
    /// It could not be started at all (why).
    CouldNotStart(String),
}

impl std::fmt::Display for Trouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trouble::Exited(code) => write!(f, "exited with status {code}"),
            Trouble::Exception(code) => match process::exception_of(*code) {
                Some(exception) => write!(f, "crashed ({exception})"),
                None => write!(f, "crashed (exit code {code})"),
            },
            Trouble::Signal(signal) => write!(f, "killed by signal {signal}"),
            Trouble::TimedOut(after) => write!(f, "timed out after {} s", after.as_secs_f64()),
            Trouble::Frozen(stopped) => f.write_str(&never_resumed(stopped)),
            Trouble::TooMuch(cap) => write!(f, "printed more than {cap} bytes and was stopped"),
            Trouble::CouldNotStart(why) => write!(f, "could not start: {why}"),
        }
    }
}

/// How a run stopped by a signal and never resumed until its deadline
/// stood (`tictac test`'s verdict, `tictac fuzz`'s report): `stopped by
/// signal 19 (SIGSTOP) and never resumed`, or which process it started was.
pub(crate) fn never_resumed(stopped: &process::Stopped) -> String {
    match stopped {
        process::Stopped { signal, process: None } => match signal {
            Some(signal) => match process::signal_name(*signal) {
                Some(name) => format!("stopped by signal {signal} ({name}) and never resumed"),
                None => format!("stopped by signal {signal} and never resumed"),
            },
            None => "stopped by a signal and never resumed".into(),
        },
        process::Stopped { process: Some(other), .. } => format!(
            "a process it started ({}, pid {}) was stopped by a signal and never resumed",
            other.name, other.pid
        ),
    }
}

impl Trouble {
    /// How a program that ran to its end ended, if not well: its exit
    /// status, a Windows exception's code or the signal that killed it.
    pub(super) fn of_exit(status: std::process::ExitStatus) -> Option<Trouble> {
        if status.success() {
            return None;
        }
        Some(match (process::signal_of(status), status.code()) {
            (Some(signal), _) => Trouble::Signal(signal),
            (None, Some(code)) if process::exception_of(code).is_some() => Trouble::Exception(code),
            (None, code) => Trouble::Exited(code.unwrap_or(-1)),
        })
    }

    /// Whether the program ended by itself, so that what it printed is
    /// worth comparing.
    pub(crate) fn ended_by_itself(&self) -> bool {
        matches!(self, Trouble::Exited(_) | Trouble::Exception(_) | Trouble::Signal(_))
    }

    /// Whether it crashed: died of a signal or a Windows exception, which
    /// no right output makes a pass unless the trace asks for that end.
    pub(crate) fn crashed(&self) -> bool {
        matches!(self, Trouble::Exception(_) | Trouble::Signal(_))
    }

    /// Whether the runner stopped it (the deadline, the cap): what it
    /// printed until then is the start of its output, not all of it.
    pub(crate) fn cut_short(&self) -> bool {
        matches!(self, Trouble::TimedOut(_) | Trouble::Frozen(_) | Trouble::TooMuch(_))
    }
}

/// An output, and the end of what the program wrote to standard error.
#[derive(Debug)]
pub(crate) struct Produced {
    pub(crate) output: Capture,
    pub(crate) stderr: Vec<u8>,
    /// Lines of standard error before `stderr`, read and not kept.
    pub(crate) stderr_dropped: u64,
    /// The command line run, as a shell would read it.
    pub(crate) command: String,
    /// How the program's run went wrong, if it did: `--bless` records no
    /// such output.
    pub(crate) trouble: Option<Trouble>,
    /// Its exit status as a shell reports it: 128 + N for a death by
    /// signal N (`-- status: 139` asks for SIGSEGV); none when stopped.
    pub(crate) status: Option<i32>,
    /// The status the trace says it must end with (`-- status: N`).
    pub(crate) wanted_status: Option<i32>,
    /// Said under the test when it fails: how it ran (in its folder
    /// itself), what the runner saw of its end (a process it left holding
    /// its output, the CPU it had used when it timed out).
    pub(crate) notes: Vec<String>,
}

/// Why a trace was not run through, and whether that is the program's
/// doing (it wrote no OUT file) or not: the trace's (a bad `-- run:` line),
/// the suite's, or the runner's (the system out of files, disk or memory),
/// which `tictac grade` never charges to a student.
#[derive(Debug)]
pub(crate) struct Unrun {
    pub(crate) why: String,
    pub(crate) blame: Blame,
}

/// Whose a failure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blame {
    /// The program's: its result.
    Program,
    /// The trace's or the suite's (a bad `-- run:` line, a file that cannot
    /// be read), or a bug of the runner's.
    Suite,
    /// The system ran out of something (processes, open files, disk,
    /// memory): often another program's doing, stopped at its own
    /// deadline, so the test is run again a little later.
    RanOut(Shortage),
}

impl Unrun {
    fn programs(why: String) -> Unrun {
        Unrun { why, blame: Blame::Program }
    }

    /// `context: e`, ran out or not.
    fn io(context: String, e: &std::io::Error) -> Unrun {
        let blame = platform_files::shortage(e).map_or(Blame::Suite, Blame::RanOut);
        Unrun { why: format!("{context}: {e}"), blame }
    }
}

impl From<String> for Unrun {
    fn from(why: String) -> Unrun {
        Unrun { why, blame: Blame::Suite }
    }
}

impl From<files::Unreadable> for Unrun {
    fn from(unreadable: files::Unreadable) -> Unrun {
        let blame = unreadable.ran_out.map_or(Blame::Suite, Blame::RanOut);
        Unrun { why: unreadable.why, blame }
    }
}

impl From<&str> for Unrun {
    fn from(why: &str) -> Unrun {
        Unrun::from(why.to_string())
    }
}

impl std::fmt::Display for Unrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// The longest `-- run: -i` session typed in (it is held in memory).
pub(crate) const MAX_TYPED: u64 = 16 << 20;

/// Runs the trace as its plan says and returns what it printed (or wrote
/// to OUT), at most `cap` bytes; `stop` ends an external program at once.
/// `text` is the trace's when held elsewhere than at `trace` (the course
/// suite's, in the executable); else the file is read.
pub(crate) fn produce(
    producer: Producer,
    trace: &Path,
    text: Option<&[u8]>,
    cap: u64,
    stop: Option<&AtomicBool>,
) -> Result<Produced, Unrun> {
    let held = text;
    let text = match text {
        Some(text) => text.to_vec(),
        None => files::read_checked(trace, MAX_TYPED)?,
    };
    let plan = Plan::checked(&text)?;
    let wanted_status = plan.status;
    let produced = match producer {
        Producer::InProcess { timeout } => {
            drop(text);
            let limit = in_process::Limit::new(timeout, stop);
            let argv = plan.argv(trace, Path::new("OUT"));
            let words = std::iter::once(OsString::from(cli::PROGRAM)).chain(argv);
            let command = command_line::join(&words.collect::<Vec<_>>());
            in_process::run(&plan, (trace, held), cap, limit)
                .map(|(output, status)| Produced {
                    output,
                    stderr: Vec::new(),
                    stderr_dropped: 0,
                    command,
                    trouble: None,
                    status: Some(status),
                    wanted_status: None,
                    notes: Vec::new(),
                })
                .map_err(Unrun::from)
        }
        Producer::Program { command, timeout, folder, user } => {
            let input = plan.typed.as_deref();
            let spec =
                process::Spec { argv: &[], input, timeout, cap, stop, dir: None, user: None };
            external(command, &plan, Trace { path: trace, text }, spec, (folder, user))
        }
    };
    produced.map(|p| Produced { wanted_status, ..p })
}

/// Why a test did not run: its folder cannot be copied for `user`, who
/// never runs in a folder it does not own. No program's doing: grade
/// leaves such a student ungraded (`is_not_copied`).
fn not_copied(folder: &Path, user: &str, why: &workdir::Uncopied) -> String {
    format!(
        "not run: {} {NOT_COPIED} {user} to run the program in ({why}); a program run as {user} \
         never runs in a folder it does not own",
        folder.display()
    )
}

/// The words that tell `not_copied`'s headline.
const NOT_COPIED: &str = "cannot be copied for";

/// Whether a failure's headline is `not_copied`'s.
pub(crate) fn is_not_copied(headline: &str) -> bool {
    headline.starts_with("not run: ") && headline.contains(NOT_COPIED)
}

/// The scratch file a program writes as OUT.
const OUT_FILE: &str = "out.txt";

/// The scratch folder's copy of the folder a program runs in.
const WORK: &str = "work";
/// HOME and TMPDIR of a program run as another user, in its scratch folder.
const HOME: &str = "home";
const TMP: &str = "tmp";

/// A trace as the suite holds it: where it is, and what it says.
struct Trace<'a> {
    path: &'a Path,
    text: Vec<u8>,
}

fn external(
    program: &[String],
    plan: &Plan,
    trace: Trace,
    spec: process::Spec,
    (folder, user): (Folder, Option<&RunAs>),
) -> Result<Produced, Unrun> {
    let exe = program.first().ok_or("an empty program")?;
    let scratch = files::Scratch::new().map_err(|e| Unrun::io("no scratch folder".into(), &e))?;
    // Held while it runs in a folder not copied: one run there at a time.
    let mut in_place = None;
    // The built copy's scratch folder, given to the user for this run.
    let mut given = None;
    let (dir, note, words) = match folder {
        Folder::Here => (None, None, program.to_vec()),
        Folder::Apart => {
            let apart = scratch.path().join(WORK);
            std::fs::create_dir(&apart)
                .map_err(|e| Unrun::io("cannot make a folder for the oracle".into(), &e))?;
            (Some(apart), None, program.to_vec())
        }
        Folder::CopyOf(from) | Folder::Built { copy: from, .. } => {
            let work = scratch.path().join(WORK);
            let place = workdir::place(from, &work, scratch.path()).map_err(|e| {
                Unrun::io(format!("cannot copy {} for the program", from.display()), &e)
            })?;
            match place {
                workdir::Place::Copy(work) => {
                    (Some(work), None, workdir::command_in_copy(program, from))
                }
                // tictac's own build, its to give: the user's for this run.
                workdir::Place::Itself(guard, why) if let Folder::Built { of, .. } = folder => {
                    let (Some(user), Some(root)) = (user, from.parent()) else {
                        return Err("a build's copy run in as this user".into());
                    };
                    in_place = Some(guard);
                    process::give(root, user).map_err(|e| {
                        Unrun::io(
                            format!("cannot give {}'s build to {}", of.display(), user.name()),
                            &e,
                        )
                    })?;
                    given = Some(root.to_path_buf());
                    (
                        Some(from.to_path_buf()),
                        Some(workdir::note_built(of, &why)),
                        program.to_vec(),
                    )
                }
                // As another user, never in a folder that user does not own
                // (one grown past the limits).
                workdir::Place::Itself(_, why) if user.is_some() => {
                    let name = user.map(RunAs::name).unwrap_or_default();
                    return Err(Unrun::programs(not_copied(from, name, &why)));
                }
                workdir::Place::Itself(guard, why) => {
                    in_place = Some(guard);
                    (Some(from.to_path_buf()), Some(workdir::note(from, &why)), program.to_vec())
                }
            }
        }
    };
    let out_file = scratch.path().join(OUT_FILE);
    let private = private_copy(scratch.path(), &trace)?;
    let file = file_copy(scratch.path(), plan, trace.path)?;
    let argv: Vec<OsString> = words
        .iter()
        .map(OsString::from)
        .chain(plan.argv_with_file(&private, &out_file, file.as_deref()))
        .collect();
    // Another user's: the scratch folder is its own, HOME and TMPDIR in it.
    let (home, tmp) = (scratch.path().join(HOME), scratch.path().join(TMP));
    if let Some(user) = user {
        let given = std::fs::create_dir(&home)
            .and_then(|()| std::fs::create_dir(&tmp))
            .and_then(|()| process::give(scratch.path(), user));
        given.map_err(|e| {
            Unrun::io(format!("cannot give a scratch folder to {}", user.name()), &e)
        })?;
    }
    let as_user = user.map(|user| process::AsUser { user, home: &home, tmp: &tmp });
    let spec = process::Spec { argv: &argv, dir: dir.as_deref(), user: as_user, ..spec };
    // The command as a person reruns it: on the suite's own files.
    let shown: Vec<OsString> =
        program.iter().map(OsString::from).chain(plan.argv(trace.path, &out_file)).collect();
    let mut produced = Produced {
        output: Capture::new(0),
        stderr: Vec::new(),
        stderr_dropped: 0,
        command: command_line::join(&shown),
        trouble: None,
        status: None,
        wanted_status: None,
        notes: note.into_iter().collect(),
    };
    let finished = process::run(&spec);
    // Nothing the run started outlives it: the build is tictac's again
    // before the next run may have it.
    let taken_back = given.as_deref().map(process::take_back);
    drop(in_place);
    if let Some(Err(e)) = taken_back {
        return Err(Unrun::io("cannot take the build back from the program's user".into(), &e));
    }
    let finished = match finished {
        Ok(finished) => finished,
        // Out of files, disk or memory: no news about the program.
        Err(e) if platform_files::is_exhaustion(&e) => {
            return Err(Unrun::io(format!("cannot run {exe}"), &e));
        }
        Err(e) => {
            produced.trouble = Some(Trouble::CouldNotStart(format!("{exe}: {e}")));
            return Ok(produced);
        }
    };
    // Named as the run's folder and the suite's trace, as the command is
    // shown: the scratch copies' paths differ from run to run.
    let mut stderr = finished.stderr;
    if let (Some(dir), Folder::CopyOf(from)) = (dir.as_deref(), folder)
        && dir != from
    {
        let from = std::path::absolute(from).unwrap_or_else(|_| from.to_path_buf());
        stderr = workdir::as_in_folder(&stderr, dir, &from);
    }
    produced.stderr = workdir::as_in_folder(&stderr, &private, trace.path);
    produced.stderr_dropped = finished.stderr_lines_dropped;
    produced.notes.extend(finished.held.as_ref().map(held_output));
    let at_deadline = finished.at_deadline.unwrap_or_default();
    produced.trouble = match finished.ending {
        Ending::Exited(status) => Trouble::of_exit(status),
        Ending::TimedOut if let Some(stopped) = at_deadline.stopped => {
            Some(Trouble::Frozen(stopped))
        }
        Ending::TimedOut => {
            produced.notes.extend(cpu_used(&at_deadline, spec.timeout));
            Some(Trouble::TimedOut(spec.timeout))
        }
        Ending::PrintedTooMuch => Some(Trouble::TooMuch(spec.cap)),
        Ending::Stopped => return Err(format!("{exe} was stopped: the run was cut short").into()),
    };
    if let Ending::Exited(status) = finished.ending {
        produced.status = shell_status(status);
    }
    produced.output = match plan.writes_file() {
        false => finished.stdout,
        true => {
            // Read as this process, maybe root: never through a link the
            // program made (its run is over, nothing of it changes OUT now).
            if user.is_some() && std::fs::symlink_metadata(&out_file).is_ok_and(|m| m.is_symlink())
            {
                return Err(Unrun::programs(format!("{exe} made OUT a symbolic link")));
            }
            let file = match files::open_regular(&out_file) {
                Ok(file) => file,
                // A crash before OUT was written: the crash is the news.
                Err(_) if produced.trouble.is_some() => return Ok(produced),
                Err(e) => return Err(Unrun::programs(format!("{exe} wrote no OUT file: {e}"))),
            };
            let written = Capture::of_file(file).map_err(|e| format!("reading OUT: {e}"))?;
            if written.len() > spec.cap {
                // A run stopped or crashed: that is the news, not OUT's size.
                if produced.trouble.is_some() {
                    return Ok(produced);
                }
                let why = format!("{exe} wrote more than {} bytes to OUT", spec.cap);
                return Err(Unrun::programs(why));
            }
            // The scratch folder goes, the open file stays readable.
            written
        }
    };
    Ok(produced)
}

/// Said under a program that exited while a process it started held its
/// standard output (a command left in the background with `&`): what it
/// printed after was never read (the tester's C2).
fn held_output(held: &process::Held) -> String {
    let who = match &held.by {
        Some(other) => format!(" ({}, pid {})", other.name, other.pid),
        None => String::new(),
    };
    format!(
        "note: the program exited while a process it started{who} still held its standard \
         output; that process was stopped, and what it would have printed is not counted: wait \
         for it (no `&`), or `exec` it"
    )
}

/// Said under a timed-out test: the CPU time its processes had used by the
/// deadline, and what that means: a busy machine (it waited for a CPU a
/// quarter of the time or more), a computation that did not end, or a
/// wait (for input, a process, a lock). None when not known (not Linux).
fn cpu_used(at: &process::AtDeadline, timeout: Duration) -> Option<String> {
    let cpu = at.cpu?;
    let used = format!("it had used {} of CPU in {}", seconds(cpu), seconds(timeout));
    let waited = at.waited.unwrap_or_default();
    Some(if waited >= timeout / 4 {
        format!(
            "note: {used}, and waited {} for one: the machine was busy (a longer --timeout, or \
             fewer tests at once with -j, gives it the time)",
            seconds(waited)
        )
    } else if cpu >= timeout / 2 {
        format!("note: {used}: it was computing all along (a loop that does not end?)")
    } else {
        format!(
            "note: {used}: it was waiting, not computing (for input it had, or a process it \
             started, a lock, a sleep)"
        )
    })
}

/// A duration as the notes say it: `0.4 s`, `0.03 s`, `12 s`, `under
/// 0.01 s`.
fn seconds(d: Duration) -> String {
    match d.as_secs_f64() {
        s if s >= 10.0 => format!("{s:.0} s"),
        s if s >= 0.1 => format!("{s:.1} s"),
        s if s >= 0.01 => format!("{s:.2} s"),
        _ => "under 0.01 s".into(),
    }
}

/// A run's exit status as a shell reports it (`$?`): its exit code, or
/// 128 + N when signal N killed it.
fn shell_status(status: std::process::ExitStatus) -> Option<i32> {
    status.code().or_else(|| process::signal_of(status).map(|signal| 128 + signal))
}

/// The program's own copy of the trace, in its scratch folder
/// under the trace's own name: beside the suite's trace lies its expected
/// output, which a program handed that path could read or overwrite, and
/// the trace itself, which it could change for the students after it.
/// A trace named like OUT's scratch file has its copy in a `trace` folder.
fn private_copy(scratch: &Path, trace: &Trace) -> Result<PathBuf, Unrun> {
    let name = trace.path.file_name().unwrap_or(OsStr::new("trace.txt"));
    let folder = match name == OUT_FILE {
        true => scratch.join("trace"),
        false => scratch.to_path_buf(),
    };
    private_file(&folder, name, &trace.text)
        .map_err(|e| Unrun::io("cannot copy the trace for the program".into(), &e))
}

/// The program's own copy of the other file a `-- run:` line names as its
/// input, in the scratch folder's `input` folder under its own
/// name (which may be the trace's): handed the suite's file, a program
/// could change it for the students after it. A relative name is read
/// `beside` the trace, as the engine reads it, whatever folder the program
/// runs in (`tictac grade` runs it in the student's). None when that is no
/// regular file it can read: a missing file, a folder or a file it may not
/// read is handed over as named, so that a trace can test the program's
/// message for it.
fn file_copy(scratch: &Path, plan: &Plan, trace: &Path) -> Result<Option<PathBuf>, Unrun> {
    let Some(named) = plan.file().map(|f| beside(trace, f)) else { return Ok(None) };
    if files::open_regular(&named).is_err() {
        return Ok(None);
    }
    let named = named.as_path();
    // A link to the runner's standard input: never read (in-process runs
    // refuse it the same way).
    if platform_files::is_stdin(named) {
        let shown = named.display();
        return Err(
            format!("`-- run:` names {shown}, which is the runner's own standard input").into()
        );
    }
    let text = files::read_checked(named, MAX_TYPED)?;
    let name = named.file_name().unwrap_or(OsStr::new("input.txt"));
    private_file(&scratch.join("input"), name, &text)
        .map(Some)
        .map_err(|e| Unrun::io(format!("cannot copy {} for the program", named.display()), &e))
}

/// `bytes` as a new file `name` in `folder` (made if need be): the
/// program's own, to change as it likes (a read-only copy failed a program
/// that copies its input beside it, `cp "$2" last.txt`, from its second
/// test on, as a user other than root).
fn private_file(folder: &Path, name: &OsStr, bytes: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(folder)?;
    let copy = folder.join(name);
    files::write_new(&copy, bytes)?;
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timed-out run's CPU time says what kept it (the tester's C13 j).
    #[test]
    fn a_timeout_says_the_cpu_it_used_and_what_that_means() {
        let at = |cpu: u64, waited: u64| process::AtDeadline {
            stopped: None,
            cpu: Some(Duration::from_millis(cpu)),
            waited: Some(Duration::from_millis(waited)),
        };
        let said = |at| cpu_used(&at, Duration::from_millis(1500)).expect("known");
        assert_eq!(
            said(at(430, 1000)),
            "note: it had used 0.4 s of CPU in 1.5 s, and waited 1.0 s for one: the machine \
             was busy (a longer --timeout, or fewer tests at once with -j, gives it the time)"
        );
        assert_eq!(
            said(at(1490, 20)),
            "note: it had used 1.5 s of CPU in 1.5 s: it was computing all along (a loop that \
             does not end?)"
        );
        assert!(said(at(3, 2)).starts_with(
            "note: it had used under 0.01 s of CPU in 1.5 s: it was waiting, not computing"
        ));
        let unknown = process::AtDeadline::default();
        assert_eq!(cpu_used(&unknown, Duration::from_secs(1)), None);
        assert_eq!(seconds(Duration::from_millis(42)), "0.04 s");
        assert_eq!(seconds(Duration::from_secs(12)), "12 s");
    }

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
    fn out_is_the_word_in_its_place_whatever_it_says() {
        let argv = |line: &str| {
            let plan = Plan::of(line.as_bytes());
            let argv = plan.argv(Path::new("t.txt"), Path::new("/scratch/out"));
            (plan.writes_file(), argv.iter().map(|a| a.to_string_lossy().into()).collect())
        };
        let words = |w: &[&str]| w.iter().map(|a| a.to_string()).collect::<Vec<String>>();
        assert_eq!(argv("-- run: -b IN OUT\n"), (true, words(&["-b", "t.txt", "/scratch/out"])));
        assert_eq!(argv("-- run: -b IN IN\n"), (true, words(&["-b", "t.txt", "/scratch/out"])));
        let w = argv("-- run: -w 1 _ IN /etc/x --bot Hal=elm\n");
        assert_eq!(w, (false, words(&["-w", "1", "_", "t.txt", "/etc/x", "--bot", "Hal=elm"])));
        let b = argv("-- run: --bot Hal=elm -b IN made.txt\n");
        assert_eq!(b, (true, words(&["--bot", "Hal=elm", "-b", "t.txt", "/scratch/out"])));
        assert_eq!(argv("-- run: -l IN -\n"), (false, words(&["-l", "t.txt", "-"])));
        assert_eq!(argv("-- run: -b OUT\n"), (false, words(&["-b", "OUT"])));
    }

    #[test]
    fn another_file_named_as_input_is_the_word_in_its_place() {
        let argv = |line: &str| {
            let plan = Plan::of(line.as_bytes());
            let argv = plan.argv_with_file(
                Path::new("t.txt"),
                Path::new("/o"),
                Some(Path::new("/s/input/x.txt")),
            );
            argv.iter().map(|a| a.to_string_lossy().into()).collect::<Vec<String>>()
        };
        assert_eq!(argv("-- run: -b x.txt x.txt\n"), ["-b", "/s/input/x.txt", "/o"]);
        assert_eq!(argv("-- run: -w 2 4 x.txt x.txt\n"), ["-w", "2", "4", "/s/input/x.txt", "/o"]);
        assert_eq!(argv("-- run: -b IN x.txt\n"), ["-b", "t.txt", "/o"]);
        assert_eq!(argv("-- run: -b -\n"), ["-b", "-"]);
        let plan = Plan::of(b"-- run: --bot Hal=elm -b ../d/in.txt\n");
        assert_eq!(plan.file(), Some(Path::new("../d/in.txt")));
        assert_eq!(plan.file_at, Some(3));
    }

    #[test]
    fn a_relative_file_is_read_beside_the_trace_an_absolute_one_as_written() {
        let at = |trace: &str, named: &str| beside(Path::new(trace), Path::new(named));
        assert_eq!(at("suite/t.txt", "game.in"), Path::new("suite/game.in"));
        assert_eq!(at("/s/u/t.txt", "../d/in.txt"), Path::new("/s/u/../d/in.txt"));
        assert_eq!(at("t.txt", "game.in"), Path::new("game.in"));
        assert_eq!(at("suite/t.txt", "/data/in.txt"), Path::new("/data/in.txt"));
    }

    #[test]
    fn standard_input_is_the_trace_itself() {
        for name in ["-", "/dev/stdin", "/dev/fd/0"] {
            let trace = format!("-- run: -b {name}\nundo\n");
            let plan = Plan::of(trace.as_bytes());
            assert_eq!(plan.typed.as_deref(), Some(trace.as_bytes()), "{name}");
            assert!(matches!(plan.directive, Directive::Run { input: Source::Stdin(_), .. }));
        }
        assert_eq!(Plan::of(b"-- run: -b ./-\n").typed, None);
    }

    #[test]
    fn forms_that_run_no_trace_are_refused() {
        let no_trace = ["test", "-g", "-version", "serve", "test --bogus", "-i --record x", "-h"];
        for line in no_trace {
            let e = Plan::checked(format!("-- run: {line}\n").as_bytes()).expect_err(line);
            assert!(e.starts_with(&format!("line 1, `-- run: {line}`, runs no trace")), "{e}");
        }
        // Invocation errors are tests of their message.
        for line in ["", "-x IN", "-b IN --record x", "-w 1 x IN"] {
            let plan = Plan::checked(format!("-- run: {line}\n").as_bytes()).expect(line);
            assert!(matches!(plan.directive, Directive::Usage(_)), "{line}");
        }
    }

    #[test]
    fn traces_of_tictac_s_own_features_are_for_tictac_only() {
        let dir = tempfile::tempdir().expect("dir");
        let only = |text: &str| {
            let trace = dir.path().join("t.txt");
            std::fs::write(&trace, text).expect("write");
            tictac_only(&trace)
        };
        assert_eq!(only("new_game(\"a\",\"b\")\n"), None);
        assert_eq!(only("-- run: -w 3 5 IN\nundo\n"), None);
        assert_eq!(only("-- run: -b IN OUT\nundo\n"), None);
        let bot = only("-- run: -b IN --bot Hal=elm\n").expect("bot");
        assert_eq!(bot, "--bot is tictac's own option, not the ETF framework's");
        assert!(only("-- run: -i --bot H=tla --seed 3\n").is_some());
        assert!(only("-- run: -x IN\n").expect("usage").starts_with("an invocation error"));
        assert_eq!(only("-- run -b IN\n"), None, "a malformed line fails when run");
    }

    #[test]
    fn a_trace_may_say_its_points_and_visibility() {
        let dir = tempfile::tempdir().expect("dir");
        let write = |text: &str| {
            let trace = dir.path().join("t.txt");
            std::fs::write(&trace, text).expect("write");
            trace
        };
        let test = |text: &str| points(&write(text)).to_string();
        assert_eq!(test("undo\n"), "1");
        assert_eq!(test("-- points: 5\nundo\n"), "5");
        assert_eq!(test("-- points: 2.5\nundo\n"), "2.5");
        assert_eq!(test("-- run: -b IN\n-- status: 0\n-- points: 3\nundo\n"), "3");
        assert_eq!(test("undo\n-- points: 3\n"), "1", "only among the first comment lines");
        assert_eq!(test("-- points: x\n"), "1", "refused by points_of");
        assert_eq!(test("\n-- points: 4\n"), "4", "blank lines among them");
        assert_eq!(test("\u{feff}-- points: 6\nundo\n"), "6", "after a byte order mark");
        assert_eq!(test("-- points: 0\n"), "0");
        assert_eq!(test("-- pointsfile: 7\n-- points to note\n-- points:   9 \n"), "9");
        let seen = |text: &str| visibility(&write(text));
        assert_eq!(seen("undo\n"), Visibility::Visible);
        assert_eq!(seen("-- points: 2\n-- visibility: hidden\nundo\n"), Visibility::Hidden);
        assert_eq!(
            seen("-- visibility: nobody\nundo\n"),
            Visibility::Hidden,
            "refused, and hidden"
        );
        assert_eq!(visibility(&dir.path().join("none.txt")), Visibility::Visible);
        let e = Plan::checked(b"-- visibility: nobody\nundo\n").expect_err("refused");
        assert!(e.starts_with("line 1, `-- visibility: nobody`, is not a valid directive"), "{e}");
    }

    #[test]
    fn run_and_status_lines_are_read_where_they_stand_or_refused() {
        let refused = |trace: &str| Plan::checked(trace.as_bytes()).expect_err(trace);
        let e = refused("-- points: 3\n-- status: 0\nundo\n");
        assert!(e.starts_with("line 2, `-- status: 0`, is not read as a directive: a status is read as `-- status: N` on the first line, or the second"), "{e}");
        let e = refused("-- points: 3\n-- run: -i\nundo\n");
        assert!(e.starts_with("line 2, `-- run: -i`, is not read as a directive: a directive is read as `-- run: ARGS` on the first line only"), "{e}");
        let e = refused("-- run: -b IN\n-- points: 3\n-- status: 0\n");
        assert!(e.starts_with("line 3, `-- status: 0`, is not read"), "{e}");
        let e = refused("\u{feff}-- status: 3\nundo\n");
        assert!(
            e.ends_with("this file begins with a byte order mark: save it as UTF-8 without one"),
            "{e}"
        );
        let e = refused("--- status: 3\nundo\n");
        assert!(e.starts_with("line 1, `--- status: 3`, is not read as a directive"), "{e}");
        let e = refused("-- a test\n--- run: -b IN OUT\nundo\n");
        assert!(e.starts_with("line 2, `--- run: -b IN OUT`, is not read"), "{e}");
        let e = refused("-- Run: -w 2 4 IN\nundo\n");
        assert!(e.starts_with("line 1, `-- Run: -w 2 4 IN`, is not read as a directive"), "{e}");
        let e = refused("-- a test of undo\n-- Status: 3\nundo\n");
        assert!(e.starts_with("line 2, `-- Status: 3`, is not read as a directive"), "{e}");
        for fine in [
            "-- run: -b IN\n-- status: 1\n-- points: 2\nundo\n",
            "-- status: 0\n\n-- points: 2\n",
            "-- a test\n-- \n-- status of this test: draft\n-- run time matters\nundo\n",
            "-- a test\n-- status of this test: draft\nundo\n",
            "-- run: -i\n-- Run: the first game\n-- Status: we start\nundo\n",
        ] {
            assert!(Plan::checked(fine.as_bytes()).is_ok(), "{fine}");
        }
        // A points line after the directives of a shell session is not typed.
        let p = Plan::of(b"-- run: -i\n-- points: 2\nundo\n");
        assert_eq!(p.typed.as_deref(), Some(&b"undo\n"[..]));
        let p = Plan::of(b"-- run: -i\n-- status: 0\n-- points: 2\nundo\n");
        assert_eq!(p.typed.as_deref(), Some(&b"undo\n"[..]));
        let p = Plan::of(b"-- run: -i\n-- visibility: hidden\n-- points: 2\nundo\n");
        assert_eq!(p.typed.as_deref(), Some(&b"undo\n"[..]));
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
