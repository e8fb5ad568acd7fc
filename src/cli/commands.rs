//! The commands (`tictac test`, `fuzz`, `verify`, `serve`, `completions`),
//! each described once, with clap's derive: the description parses them,
//! prints `tictac CMD --help`, gives the top-level help its list, and makes
//! the shell completions. Values are checked by `values`, with the
//! messages the command line has always printed; clap's own mistakes are
//! printed in the same shape (`errors`).

use std::ffi::OsString;
use std::io::{self, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use clap_complete::Shell;

use super::options::{
    DEFAULT_AUTOGRADER_TIME, DEFAULT_BIND, DEFAULT_BUILD_TIMEOUT, DEFAULT_FUZZ_OUT,
    DEFAULT_FUZZ_TIME, DEFAULT_GRADE_OUT, DEFAULT_MAX_LINES, DEFAULT_PORT, DEFAULT_RUNS,
    DEFAULT_SERVE_TIMEOUT, DEFAULT_TIMEOUT, MAX_JOBS, MAX_LINES, default_jobs,
};
use super::values::{self, Checked, Choice, Seconds, Words};
use super::{
    AutograderOptions, Format, FuzzOptions, GradeOptions, Invocation, PROGRAM, ServeOptions,
    TestOptions, UsageError, VerifyOptions,
};
use crate::behaviour::Behaviour;
use crate::bots::Strategy;
use crate::game::Mark;
use crate::platform::process::RunAs;

/// The ETF tic-tac-toe oracle, byte for byte (the ETF modes -b, -w, -l,
/// -i, -g are read by hand: `tictac -help` lists them).
#[derive(Parser)]
#[command(name = PROGRAM, disable_help_subcommand = true)]
struct Tictac {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run acceptance tests: each NAME.txt against NAME.expected.txt
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Test(TestArgs),
    /// Grade a class: the suite against each student's program, into a gradebook
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Grade(GradeArgs),
    /// Find where a program departs from the engine, on generated traces
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Fuzz(FuzzArgs),
    /// Check the game and every strategy, exhaustively
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Verify(VerifyArgs),
    /// Serve the game and the oracle to a web browser, with a JSON API
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Serve(ServeArgs),
    /// Print a shell's completion script for tictac
    #[command(args_override_self = true)]
    Completions(CompletionsArgs),
    /// Write the built-in course suite to DIR (new or empty), to publish or extend
    #[command(name = "course-suite")]
    CourseSuite(CourseSuiteArgs),
    /// Write the zip of a Gradescope autograder that grades with this suite
    #[command(args_override_self = true, allow_negative_numbers = true)]
    Autograder(AutograderArgs),
}

/// `-j`/`--jobs`, one definition for every command that runs programs side
/// by side (the help's noun is the command's own: `mut_arg`).
#[derive(Args)]
struct Jobs {
    #[arg(
        short,
        long,
        value_name = "N",
        help = format!("Run N tests at once (at most {MAX_JOBS})"),
        value_parser = Checked(values::jobs),
        default_value_t = default_jobs()
    )]
    jobs: usize,
}

/// `--timeout`, one definition for every command that runs programs (its
/// help says what a late one means there: `mut_arg`). `tictac serve`'s is
/// another option: a request's, with a default of its own.
#[derive(Args)]
struct Timeout {
    /// Stop a program still running after S seconds, at least 0.1 (its test fails)
    #[arg(
        long,
        value_name = "S",
        value_parser = Checked(values::program_seconds),
        default_value_t = Seconds(DEFAULT_TIMEOUT)
    )]
    timeout: Seconds,
}

/// `--build` and `--build-timeout`, one definition for the commands that
/// build a program before its tests (grade's help says it its own way).
#[derive(Args)]
struct Build {
    /// Run CMD once in the program's folder before the tests (split as --program is)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    build: Option<Words>,
    /// Stop a build still running after S seconds, at least 0.1 (then no test runs)
    #[arg(
        long,
        value_name = "S",
        value_parser = Checked(values::program_seconds),
        default_value_t = Seconds(DEFAULT_BUILD_TIMEOUT)
    )]
    build_timeout: Seconds,
}

/// What `--total-time` does, in every command that has it.
const TOTAL_TIME: &str = "build included: a test starts only if it can end by then (the rest fail, \
     not run; S leaves room for the build and one test)";

/// `--total-time`, one definition for the commands whose whole run has a
/// limit: none unless given (`tictac test`), or a default the command sets
/// with `mut_arg` (the autograder's, with its help).
#[derive(Args)]
struct TotalTime {
    #[arg(
        long,
        value_name = "S",
        help = format!("End the run within S seconds, {TOTAL_TIME}"),
        value_parser = Checked(values::program_seconds)
    )]
    total_time: Option<Seconds>,
}

#[derive(Args)]
#[command(mut_arg("timeout", |a| a.help("Stop a program or oracle still running after S seconds, at least 0.1 (its test fails)")))]
struct TestArgs {
    /// Write each expected file from the actual output (not with --oracle)
    #[arg(long)]
    bless: bool,
    /// Run CMD -b TRACE instead of the engine (CMD split as a shell would)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    program: Option<Words>,
    /// Take the expected output from CMD -b TRACE, not NAME.expected.txt
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    oracle: Option<Words>,
    #[command(flatten)]
    build: Build,

    /// Run the program as the user NAME (as root; default: you)
    #[arg(long, value_name = "NAME", value_parser = Checked(values::user))]
    user: Option<RunAs>,
    /// Save every actual output as DIR/NAME.actual.txt
    #[arg(long, value_name = "DIR")]
    log: Option<PathBuf>,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    timeout: Timeout,
    #[command(flatten)]
    total_time: TotalTime,
    /// Print only failures and the last line
    #[arg(short, long)]
    quiet: bool,
    /// Run only the tests whose name contains TEXT
    #[arg(long, value_name = "TEXT", value_parser = Checked(values::lossy))]
    filter: Option<String>,
    /// How to report (junit, gradescope: a document on standard output, the report on
    /// standard error)
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Format::Human)]
    format: Format,
    /// Report which behaviours the tests reach instead of running them
    #[arg(long)]
    coverage: bool,
    /// Run the course suite built into tictac (with --program, against that program)
    #[arg(long)]
    course: bool,
    /// Traces, or folders searched for them [default: acceptance/, else tests/acceptance/,
    /// else with --program the built-in course suite]
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
}

#[derive(Args)]
#[command(
    mut_arg("build", |a| a.help("Run CMD once in each student's folder before their tests (split as --program is)")),
    mut_arg("build_timeout", |a| a.help("Stop a build still running after S seconds, at least 0.1 (then none of theirs runs)"))
)]
struct GradeArgs {
    /// Run CMD -b TRACE inside each student's folder (CMD split as a shell would)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    command: Words,
    #[command(flatten)]
    build: Build,

    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    timeout: Timeout,
    /// Write grades.csv and each student's reports to DIR (new, or empty)
    #[arg(long, value_name = "DIR", default_value_os_t = PathBuf::from(DEFAULT_GRADE_OUT))]
    out: PathBuf,
    /// Regrade the students named into the gradebook DIR holds (same suite only)
    #[arg(long)]
    update: bool,
    /// Grade with the course suite built into tictac (then every folder named is a student)
    #[arg(long)]
    course: bool,
    /// Run the programs as the user NAME (as root; default: nobody as root, else you)
    #[arg(long, value_name = "NAME", value_parser = Checked(values::user))]
    user: Option<RunAs>,
    /// SUITE (a folder of traces, unless --course), then one folder per student
    #[arg(value_name = "SUITE|SUBMISSION_DIR", required = true)]
    paths: Vec<PathBuf>,
}

#[derive(Args)]
#[command(mut_arg("total_time", |a| a
    .help(format!(
        "End run_autograder within S seconds, {TOTAL_TIME}; Gradescope's own limit must be \
         longer (10 minutes unless the assignment sets it)"
    ))
    .default_value(Seconds(DEFAULT_AUTOGRADER_TIME).to_string())))]
struct AutograderArgs {
    /// Run CMD -b TRACE in the submission's folder (CMD split as a shell would)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    command: Words,
    /// Run CMD once in the submission's folder before the tests (split as --command is)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    build: Option<Words>,
    #[command(flatten)]
    timeout: Timeout,
    #[command(flatten)]
    total_time: TotalTime,
    /// Write the autograder to FILE (a new file: an existing one is refused)
    #[arg(long, value_name = "FILE.zip")]
    out: PathBuf,
    /// Grade with the course suite built into tictac
    #[arg(long, conflicts_with = "suite")]
    course: bool,
    /// The folder of traces to grade with (unless --course)
    #[arg(value_name = "SUITE", required_unless_present = "course")]
    suite: Option<PathBuf>,
}

#[derive(Args)]
#[command(
    mut_arg("jobs", |a| a.help(format!("Run N programs at once (at most {MAX_JOBS})"))),
    mut_arg("timeout", |a| a.help("A run still going after S seconds, at least 0.1, is a hang"))
)]
struct FuzzArgs {
    /// The program to test, run as CMD -b TRACE (CMD split as a shell would)
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    program: Words,
    /// Take the expected output from CMD -b TRACE, not the engine
    #[arg(long, value_name = "CMD", value_parser = Checked(values::command))]
    oracle: Option<Words>,
    #[arg(
        long,
        value_name = "N",
        help = format!("Stop after N runs [default: {DEFAULT_RUNS}]"),
        value_parser = Checked(values::count)
    )]
    runs: Option<u64>,
    #[arg(
        long,
        value_name = "S",
        help = format!(
            "Stop after S seconds, whatever is running [default without --runs: {}]",
            DEFAULT_FUZZ_TIME.as_secs()
        ),
        value_parser = Checked(values::seconds)
    )]
    time: Option<Seconds>,
    /// Generate the traces from seed N, to repeat a session [default: a fresh one]
    #[arg(long, value_name = "N", value_parser = Checked(values::seed))]
    seed: Option<u64>,
    /// Save each divergence, shrunk, as a test in DIR
    #[arg(long, value_name = "DIR", default_value_os_t = PathBuf::from(DEFAULT_FUZZ_OUT))]
    out: PathBuf,
    #[command(flatten)]
    jobs: Jobs,
    #[command(flatten)]
    timeout: Timeout,
    #[arg(
        long,
        value_name = "L",
        help = format!("Generate traces of at most L lines (L at most {MAX_LINES})"),
        value_parser = Checked(values::max_lines),
        default_value_t = DEFAULT_MAX_LINES
    )]
    max_lines: usize,
    /// Never generate these behaviours (tictac test --coverage lists them)
    #[arg(long, value_name = "ID", num_args = 1.., value_parser = Checked(values::excluded))]
    exclude: Vec<Behaviour>,
    /// Compare exit statuses too
    #[arg(long)]
    check_status: bool,
    /// Append every generated trace to FILE, for a loop that only runs the program
    #[arg(long, value_name = "FILE")]
    save_traces: Option<PathBuf>,
}

#[derive(Args)]
struct VerifyArgs {
    /// Check only strategy S (with --as)
    #[arg(long, value_name = "S", value_parser = Choice(&Strategy::ALL, Strategy::name))]
    strategy: Option<Strategy>,
    /// ... playing this mark (with --strategy)
    #[arg(
        long = "as",
        value_name = "MARK",
        ignore_case = true,
        value_parser = Choice(&[Mark::X, Mark::O], mark_name)
    )]
    mark: Option<Mark>,
    /// Write the strategy's first lost game to FILE (new), as a trace
    #[arg(long, value_name = "FILE")]
    trace_out: Option<PathBuf>,
}

#[derive(Args)]
struct ServeArgs {
    /// Listen on port N (0: any free port; the first line says which)
    #[arg(
        long,
        value_name = "N",
        value_parser = Checked(values::port),
        default_value_t = DEFAULT_PORT
    )]
    port: u16,
    /// Listen on this address (0.0.0.0: every interface)
    #[arg(
        long,
        value_name = "ADDR",
        value_parser = Checked(values::bind),
        default_value_t = DEFAULT_BIND
    )]
    bind: IpAddr,
    /// Answer 503 to a request still running after S seconds
    #[arg(
        long,
        value_name = "S",
        value_parser = Checked(values::seconds),
        default_value_t = Seconds(DEFAULT_SERVE_TIMEOUT)
    )]
    timeout: Seconds,
    /// On loopback, also answer requests naming this host (besides localhost and the address)
    #[arg(long = "allow-host", value_name = "NAME", value_parser = Checked(values::allowed_host))]
    allow_host: Vec<String>,
}

#[derive(Args)]
struct CompletionsArgs {
    /// The shell to complete in
    #[arg(value_enum)]
    shell: Shell,
}

#[derive(Args)]
struct CourseSuiteArgs {
    /// The folder to write NAME.txt and NAME.expected.txt into (new, or empty)
    #[arg(value_name = "DIR")]
    dir: PathBuf,
}

fn mark_name(mark: Mark) -> &'static str {
    match mark {
        Mark::X => "X",
        Mark::O => "O",
    }
}

/// Whether `word` names a command (rather than an ETF mode).
pub(crate) fn is_command(word: &str) -> bool {
    Command::has_subcommand(word)
}

/// `args`, starting with a command's name.
pub(super) fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    let name = args.first().map(|a| a.to_string_lossy().into_owned()).unwrap_or_default();
    let argv = std::iter::once(OsString::from(PROGRAM)).chain(args.iter().cloned());
    match Tictac::try_parse_from(argv) {
        Ok(tictac) => tictac.command.invocation().map_err(|e| e.in_command(name)),
        Err(e) if e.kind() == ErrorKind::DisplayHelp => {
            Ok(Invocation::CommandHelp(e.render().to_string()))
        }
        Err(e) => {
            let mut error = UsageError::from_clap(&e, name);
            if let UsageError::InCommand { error: inner, tip, .. } = &mut error
                && let UsageError::UnexpectedArgument(word, _) = inner.as_ref()
                && let Some(command) = unquoted_command(args, word)
            {
                *tip = Some(format!("tip: quote the whole command: {command}"));
            }
            Err(error)
        }
    }
}

/// The command `word` belongs to when it comes right after a one-word
/// `--program` or `--oracle` (`--program python3 ttt.py`, the quotes left
/// off): that option's value and `word`, joined as a shell reads them.
fn unquoted_command(args: &[OsString], word: &str) -> Option<String> {
    let at = args.iter().position(|a| a.to_str() == Some(word))?;
    let option = args.get(at.checked_sub(2)?)?.to_str()?;
    let value = args[at - 1].to_str()?;
    let program = matches!(option, "--program" | "--oracle") && !value.contains(' ');
    program.then(|| format!("{option} \"{}\"", shell_words::join([value, word])))
}

impl Command {
    /// What to run, once the options that clap cannot check alone agree.
    fn invocation(self) -> Result<Invocation, UsageError> {
        Ok(match self {
            Command::Test(a) => Invocation::Test(a.options()?),
            Command::Grade(a) => Invocation::Grade(a.options()?),
            Command::Fuzz(a) => Invocation::Fuzz(a.options()),
            Command::Verify(a) => Invocation::Verify(a.options()?),
            Command::Serve(a) => Invocation::Serve(ServeOptions {
                bind: a.bind,
                port: a.port,
                timeout: a.timeout.0,
                allowed_hosts: a.allow_host,
            }),
            Command::Completions(a) => Invocation::Completions(a.shell),
            Command::CourseSuite(a) => Invocation::CourseSuite(a.dir),
            Command::Autograder(a) => {
                let build = a.build.map(|w| w.0);
                let timeout = a.timeout.timeout.0;
                let build_timeout = build.as_ref().map(|_| DEFAULT_BUILD_TIMEOUT);
                // Always given here: the default `mut_arg` sets above.
                let total_time = a.total_time.total_time.map_or(DEFAULT_AUTOGRADER_TIME, |s| s.0);
                time_for_a_test(total_time, timeout, build_timeout)?;
                Invocation::Autograder(AutograderOptions {
                    suite: a.suite,
                    command: a.command.0,
                    build,
                    timeout,
                    total_time,
                    out: a.out,
                })
            }
        })
    }
}

/// Refuses a `--total-time` in which no test could run: the build's time
/// (when there is one) and one test's (`test`) must fit in it.
fn time_for_a_test(
    total: Duration,
    test: Duration,
    build: Option<Duration>,
) -> Result<(), UsageError> {
    let least = test + build.unwrap_or_default();
    if total >= least {
        return Ok(());
    }
    let secs = |d: Duration| d.as_secs_f64();
    let why = match build {
        Some(build) => format!(
            "the build may take {} s (--build-timeout) and a test {} s (--timeout): give at least {} s",
            secs(build),
            secs(test),
            secs(least)
        ),
        None => format!("a test may take {} s (--timeout): give at least that", secs(test)),
    };
    Err(UsageError::NoTimeForATest(secs(total).to_string(), why))
}

/// The hint under a PATH after a one-word `--program` (`--program python3
/// ttt.py`, the quotes left off): quote the whole command.
fn unquoted(program: Option<&[String]>, path: &Path) -> String {
    match program {
        Some([word]) => {
            let command = shell_words::join([word.as_str(), &path.display().to_string()]);
            format!(
                "; if it belongs to the program's command, quote the whole command: --program \"{command}\""
            )
        }
        _ => String::new(),
    }
}

impl TestArgs {
    fn options(self) -> Result<TestOptions, UsageError> {
        let options = TestOptions {
            bless: self.bless,
            program: self.program.map(|w| w.0),
            oracle: self.oracle.map(|w| w.0),
            log: self.log,
            jobs: self.jobs.jobs,
            timeout: self.timeout.timeout.0,
            quiet: self.quiet,
            format: self.format,
            filter: self.filter,
            coverage: self.coverage,
            course: self.course,
            paths: self.paths,
            dir: None,
            built_from: None,
            build: self.build.build.map(|w| w.0),
            build_timeout: self.build.build_timeout.0,
            total_time: self.total_time.total_time.map(|s| s.0),
            user: self.user,
        };
        if options.build.is_some() && options.program.is_none() {
            return Err(UsageError::BuildWithoutProgram);
        }
        if let Some(total) = options.total_time {
            let build_timeout = options.build.as_ref().map(|_| options.build_timeout);
            time_for_a_test(total, options.test_time(), build_timeout)?;
        }
        let unquoted = |path: &Path| unquoted(options.program.as_deref(), path);
        if options.course {
            if let Some(path) = options.paths.first() {
                return Err(UsageError::CourseWithPath(path.display().to_string(), unquoted(path)));
            }
            if options.bless {
                return Err(UsageError::CourseWith("--bless"));
            }
        }
        if let Some(path) = options.paths.iter().find(|p| {
            options.program.as_ref().is_some_and(|words| words.len() == 1)
                && p.extension().is_none_or(|e| e != "txt")
                && !p.is_dir()
        }) {
            return Err(UsageError::NotATrace(path.display().to_string(), unquoted(path)));
        }
        if options.bless && options.oracle.is_some() {
            return Err(UsageError::BlessWithOracle);
        }
        if options.coverage {
            let clash = [
                (options.program.is_some(), "--program"),
                (options.oracle.is_some(), "--oracle"),
                (options.bless, "--bless"),
                (options.log.is_some(), "--log"),
                (options.format == Format::Tap, "--format tap"),
                (options.format == Format::Junit, "--format junit"),
                (options.format == Format::Gradescope, "--format gradescope"),
            ];
            if let Some(&(_, option)) = clash.iter().find(|(given, _)| *given) {
                return Err(UsageError::CoverageWith(option));
            }
        }
        Ok(options)
    }
}

impl GradeArgs {
    fn options(self) -> Result<GradeOptions, UsageError> {
        let mut paths = self.paths.into_iter();
        let suite = if self.course { None } else { paths.next() };
        let submissions: Vec<PathBuf> = paths.collect();
        if submissions.is_empty() {
            return Err(UsageError::NoSubmissions);
        }
        Ok(GradeOptions {
            suite,
            submissions,
            command: self.command.0,
            jobs: self.jobs.jobs,
            timeout: self.timeout.timeout.0,
            out: self.out,
            update: self.update,
            build: self.build.build.map(|w| w.0),
            build_timeout: self.build.build_timeout.0,
            user: self.user,
        })
    }
}

impl FuzzArgs {
    fn options(self) -> FuzzOptions {
        // Without a bound of its own a session ends by itself, soon.
        let time = match (self.runs, self.time) {
            (None, None) => Some(DEFAULT_FUZZ_TIME),
            (_, time) => time.map(|t| t.0),
        };
        FuzzOptions {
            program: self.program.0,
            oracle: self.oracle.map(|w| w.0),
            runs: self.runs.unwrap_or(DEFAULT_RUNS),
            time,
            seed: self.seed,
            out: self.out,
            jobs: self.jobs.jobs,
            timeout: self.timeout.timeout.0,
            max_lines: self.max_lines,
            exclude: self.exclude,
            check_status: self.check_status,
            save_traces: self.save_traces,
        }
    }
}

impl VerifyArgs {
    fn options(self) -> Result<VerifyOptions, UsageError> {
        if self.trace_out.as_ref().is_some_and(|f| f.as_os_str() == super::STDOUT) {
            return Err(UsageError::DashAsFile("--trace-out"));
        }
        let one = match (self.strategy, self.mark) {
            (Some(s), Some(m)) => Some((s, m)),
            (None, None) if self.trace_out.is_none() => None,
            _ => return Err(UsageError::VerifyNeedsBoth),
        };
        Ok(VerifyOptions { one, trace_out: self.trace_out })
    }
}

/// The top-level help's list of commands: each as it is called (its name,
/// its required options and its arguments), and what it does; `test` also
/// as a student calls it, on the built-in course suite.
pub(crate) fn summaries() -> Vec<(String, String)> {
    let mut list = Vec::new();
    for c in Tictac::command().get_subcommands() {
        let mut usage = c.get_name().to_string();
        for arg in c.get_arguments().filter(|a| a.is_required_set() || a.is_positional()) {
            usage.push(' ');
            usage.push_str(&call(arg));
        }
        list.push((usage, c.get_about().map(ToString::to_string).unwrap_or_default()));
        if c.get_name() == "test" {
            list.push((STUDENT_TEST.to_string(), STUDENT_TEST_ABOUT.to_string()));
        }
    }
    list
}

/// How a student checks their own program: the course suite against it.
const STUDENT_TEST: &str = "test --course --program <CMD>";
const STUDENT_TEST_ABOUT: &str =
    "check your own program against the built-in course suite (quote a CMD with spaces)";

/// How an argument is written in a usage line: `--program <CMD>`,
/// `[PATH]...`, `<SHELL>`.
fn call(arg: &clap::Arg) -> String {
    let value = arg.get_value_names().and_then(|v| v.first()).map_or("", |v| v.as_str());
    match arg.get_long() {
        Some(long) => format!("--{long} <{value}>"),
        None if arg.is_required_set() => {
            let many = matches!(arg.get_action(), clap::ArgAction::Append);
            format!("<{value}>{}", if many { "..." } else { "" })
        }
        None => {
            let many = matches!(arg.get_action(), clap::ArgAction::Append);
            format!("[{value}]{}", if many { "..." } else { "" })
        }
    }
}

/// `tictac completions SHELL`: the script that completes the commands and
/// their options in that shell.
pub(crate) fn write_completions(shell: Shell, out: &mut dyn Write) -> io::Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut with_modes(Tictac::command()), PROGRAM, &mut script);
    out.write_all(&script)
}

/// The ETF modes and the session's options, for completion only: `etf.rs`
/// parses them by hand (SPEC §5's messages), but a user completes `tictac
/// -b <TAB>` to a file as any option. (`-help` and `-version`, one dash and
/// a word, are beyond what clap can describe.)
fn with_modes(command: clap::Command) -> clap::Command {
    use clap::{Arg, ArgAction, ValueHint};
    let flag = |name: &'static str, short: char, help: &'static str| {
        Arg::new(name).short(short).help(help).action(ArgAction::SetTrue)
    };
    let files = |name: &'static str, short: char, values: &'static [&'static str], help| {
        Arg::new(name)
            .short(short)
            .help(help)
            .num_args(1..=values.len())
            .value_names(values)
            .value_hint(ValueHint::FilePath)
    };
    command
        .arg(flag("interactive", 'i', "The shell: type events, see the board after each"))
        .arg(flag("board", 'g', "The board on the terminal, played with keys or the mouse"))
        .arg(files("batch", 'b', &["IN", "OUT"], "Run the trace IN, print or write OUT"))
        .arg(files("window", 'w', &["M", "N", "IN", "OUT"], "Run lines M to N of IN"))
        .arg(files("lines", 'l', &["IN", "OUT"], "Run IN line by line"))
        .arg(Arg::new("bot").long("bot").value_name("NAME=STRATEGY").help("A bot plays NAME"))
        .arg(Arg::new("seed").long("seed").value_name("N").help("The bots' random seed"))
        .arg(
            Arg::new("record")
                .long("record")
                .value_name("FILE")
                .value_hint(ValueHint::FilePath)
                .help("Keep the session as a trace in FILE"),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command's help against its parser: every option clap knows is
    /// in the help with its help text, and every option the help names
    /// parses, so they cannot drift apart.
    #[test]
    fn the_help_of_every_command_lists_exactly_what_it_parses() {
        let mut root = Tictac::command();
        root.build();
        for command in root.get_subcommands() {
            let name = command.get_name();
            let help = command.clone().render_long_help().to_string();
            assert!(help.contains(&format!("Usage: {PROGRAM} {name}")), "{name}:\n{help}");
            for arg in command.get_arguments() {
                let id = arg.get_id().as_str();
                let shown = match (arg.get_long(), arg.get_short()) {
                    (Some(long), Some(short)) => format!("-{short}, --{long}"),
                    (Some(long), None) => format!("--{long}"),
                    (None, _) => call(arg),
                };
                // The long help is what --help shows, where an option has one.
                let help_text = arg.get_long_help().or(arg.get_help());
                let help_text = help_text.map(ToString::to_string).unwrap_or_default();
                assert!(!help_text.is_empty(), "{name} {id} has no help");
                let line = help.lines().find(|l| l.trim_start().starts_with(&shown));
                let line = line.unwrap_or_else(|| panic!("{name}: {shown} missing:\n{help}"));
                // The help text follows on the same line (or the next ones).
                assert!(
                    line.contains(&help_text) || help.contains(&help_text),
                    "{name}: {shown} without its help:\n{help}"
                );
            }
            for option in options_named(&help) {
                let parsed = super::super::parse(&[name.into(), option.clone().into()]);
                if let Err(UsageError::InCommand { error, .. }) = &parsed {
                    assert!(
                        !matches!(**error, UsageError::UnknownOption(..)),
                        "{name} --help lists {option}, which does not parse"
                    );
                }
            }
        }
    }

    /// Every `-x` and `--xyz` the help lists: the first column of its
    /// lines that start with an option (`  -j, --jobs <N>  Run N ...`).
    fn options_named(help: &str) -> Vec<String> {
        let listed = help.lines().map(str::trim_start).filter(|l| l.starts_with('-'));
        let columns = listed.map(|l| l.split("  ").next().unwrap_or(l));
        let words = columns.flat_map(|c| c.split([' ', ',', '=']));
        words.filter(|w| w.starts_with('-') && w.len() > 1).map(String::from).collect()
    }

    #[test]
    fn the_list_of_commands_shows_how_each_is_called() {
        let list = summaries();
        let usage: Vec<&str> = list.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(
            usage,
            [
                "test [PATH]...",
                "test --course --program <CMD>",
                "grade --command <CMD> <SUITE|SUBMISSION_DIR>...",
                "fuzz --program <CMD>",
                "verify",
                "serve",
                "completions <SHELL>",
                "course-suite <DIR>",
                "autograder --command <CMD> --out <FILE.zip> [SUITE]"
            ]
        );
        assert!(list.iter().all(|(_, about)| !about.is_empty()));
        // The student's line names options that `test` parses.
        assert!(p(&["test", "--course", "--program", "python3 ttt.py"]).is_ok());
    }

    fn p(args: &[&str]) -> Result<Invocation, UsageError> {
        super::super::parse(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    /// What the executable prints for a usage error in these arguments.
    fn said(args: &[&str]) -> String {
        match p(args) {
            Err(e) => e.with_hint(PROGRAM),
            Ok(what) => panic!("{args:?} parsed: {what:?}"),
        }
    }

    /// The first line of what `said` prints.
    fn error(args: &[&str]) -> String {
        said(args).lines().next().unwrap_or_default().to_string()
    }

    /// `--jobs` and `--timeout` are one definition: every command that runs
    /// programs reads them alike, with the same default and the same checks.
    #[test]
    fn the_shared_options_read_alike_in_every_command() {
        use std::time::Duration;
        let limits = |args: &[&str]| match p(args) {
            Ok(Invocation::Test(o)) => (Some(o.jobs), o.timeout),
            Ok(Invocation::Grade(o)) => (Some(o.jobs), o.timeout),
            Ok(Invocation::Fuzz(o)) => (Some(o.jobs), o.timeout),
            Ok(Invocation::Autograder(o)) => (None, o.timeout),
            other => panic!("{args:?}: {other:?}"),
        };
        let commands: [&[&str]; 4] = [
            &["test"],
            &["grade", "--command", "x", "s", "a"],
            &["fuzz", "--program", "x"],
            &["autograder", "--command", "x", "--out", "a.zip", "s"],
        ];
        for command in commands {
            let with = |extra: &[&'static str]| [command, extra].concat();
            let (jobs, timeout) = limits(command);
            assert_eq!(
                (jobs.unwrap_or(default_jobs()), timeout),
                (default_jobs(), DEFAULT_TIMEOUT)
            );
            assert_eq!(limits(&with(&["--timeout", "0.5"])).1, Duration::from_millis(500));
            assert_eq!(
                error(&with(&["--timeout", "0"])),
                "Error: --timeout takes a positive number of seconds, not '0'"
            );
            assert_eq!(limits(&with(&["--timeout", "0.1"])).1, Duration::from_millis(100));
            assert_eq!(
                error(&with(&["--timeout", "0.001"])),
                "Error: --timeout takes at least 0.1 seconds (starting a program alone can take tens of milliseconds), not '0.001'"
            );
            if jobs.is_some() {
                assert_eq!(limits(&with(&["-j", "3"])).0, Some(3));
                assert_eq!(
                    error(&with(&["--jobs", "0"])),
                    "Error: --jobs takes a positive whole number, not '0'"
                );
            }
        }
    }

    /// `--total-time` is one definition in `test` and the autograder: read
    /// and checked alike, told alike in their help; the autograder's has a
    /// default, shown there.
    #[test]
    fn total_time_reads_alike_in_test_and_the_autograder() {
        use std::time::Duration;
        let total = |args: &[&str]| match p(args) {
            Ok(Invocation::Test(o)) => o.total_time,
            Ok(Invocation::Autograder(o)) => Some(o.total_time),
            other => panic!("{args:?}: {other:?}"),
        };
        let autograder: &[&str] = &["autograder", "--command", "x", "--out", "a.zip", "s"];
        assert_eq!(total(&["test"]), None);
        assert_eq!(total(autograder), Some(DEFAULT_AUTOGRADER_TIME));
        for command in [&["test"][..], autograder] {
            let with = |extra: &[&'static str]| [command, extra].concat();
            assert_eq!(
                total(&with(&["--total-time", "20.5"])),
                Some(Duration::from_millis(20_500))
            );
            assert_eq!(
                error(&with(&["--total-time", "0"])),
                "Error: --total-time takes a positive number of seconds, not '0'"
            );
            assert_eq!(
                error(&with(&["--total-time", "5"])),
                "Error: --total-time 5 leaves no time for a test: a test may take 10 s (--timeout): \
                 give at least that"
            );
            let name = command[0];
            let Ok(Invocation::CommandHelp(help)) = p(&[name, "--help"]) else {
                panic!("{name} --help");
            };
            // The option's line and the next: its help, on either.
            let lines = help.lines().skip_while(|l| !l.contains("--total-time <S>"));
            let entry = lines.take(2).collect::<String>();
            assert!(
                entry.contains(
                    "S seconds, build included: a test starts only if it can end by then \
                     (the rest fail, not run; S leaves room for the build and one test)"
                ),
                "{name} --help:\n{help}"
            );
            assert_eq!(help.contains("[default: 480]"), name == "autograder", "{help}");
        }
    }

    #[test]
    fn verify_options() {
        assert_eq!(p(&["verify"]), Ok(Invocation::Verify(VerifyOptions::default())));
        let one = Ok(Invocation::Verify(VerifyOptions {
            one: Some((Strategy::Elm, Mark::O)),
            trace_out: Some("f".into()),
        }));
        assert_eq!(p(&["verify", "--as", "o", "--strategy", "elm", "--trace-out", "f"]), one);
        assert_eq!(p(&["verify", "--as=O", "--strategy=elm", "--trace-out=f"]), one);
        let both = "Error: verify needs both --strategy and --as to check one strategy";
        assert_eq!(error(&["verify", "--strategy", "elm"]), both);
        assert_eq!(error(&["verify", "--trace-out", "f"]), both);
        assert_eq!(error(&["verify", "--as", "Z"]), "Error: --as takes X or O, not 'Z'");
        assert_eq!(
            said(&["verify", "--strategy", "perfec"]),
            "Error: --strategy takes tla, elm, perfect or random, not 'perfec'\n\
             Run 'tictac verify --help' to see more details\n\
             Did you mean 'perfect'?"
        );
        assert_eq!(error(&["verify", "-x"]), "Error: unknown option '-x' for the 'verify' mode");
        assert_eq!(
            error(&["verify", "--as", "o", "--strategy", "elm", "--trace-out", "-"]),
            "Error: --trace-out writes a file; '-' is not one here (./- names a file called '-')"
        );
    }

    #[test]
    fn test_options() {
        let Ok(Invocation::Test(o)) =
            p(&["test", "--program", "python3 t.py", "-j", "3", "--log", "l", "a", "b"])
        else {
            panic!("should parse");
        };
        assert_eq!(o.program, Some(vec!["python3".to_string(), "t.py".to_string()]));
        assert_eq!((o.jobs, o.log), (3, Some("l".into())));
        assert_eq!(o.paths, [PathBuf::from("a"), PathBuf::from("b")]);
        assert_eq!(p(&["test"]), Ok(Invocation::Test(TestOptions::default())));
        for jobs in [&["-j4"][..], &["--jobs=4"], &["--jobs", "4"], &["-j", "4"], &["-j=4"]] {
            let args: Vec<&str> = ["test"].iter().chain(jobs).copied().collect();
            assert!(matches!(p(&args), Ok(Invocation::Test(o)) if o.jobs == 4), "{jobs:?}");
        }
        assert_eq!(
            error(&["test", "-j", "0"]),
            "Error: --jobs takes a positive whole number, not '0'"
        );
        assert_eq!(
            error(&["test", "--timeout", "-1"]),
            "Error: --timeout takes a positive number of seconds, not '-1'"
        );
        assert_eq!(
            error(&["test", "--timeout", "inf"]),
            "Error: --timeout takes at most 1000000000 seconds, not 'inf'"
        );
        assert!(matches!(p(&["test", "-j", "99999999999999999999"]),
            Ok(Invocation::Test(o)) if o.jobs == 256));
        assert!(matches!(p(&["test", "--timeout", "0.5"]),
            Ok(Invocation::Test(o)) if o.timeout == std::time::Duration::from_millis(500)));
        assert!(matches!(p(&["test", "--format=tap", "-q"]),
            Ok(Invocation::Test(o)) if o.format == Format::Tap && o.quiet));
        // The last of an option given twice counts, as before.
        assert!(
            matches!(p(&["test", "-j", "2", "-j", "3"]), Ok(Invocation::Test(o)) if o.jobs == 3)
        );
        assert_eq!(
            said(&["test", "--x"]),
            "Error: unknown option '--x' for the 'test' mode\n\
             Run 'tictac test --help' to see more details\n\
             tip: to pass '--x' as a value, use '-- --x'"
        );
        assert_eq!(
            said(&["test", "--job", "2"]),
            "Error: unknown option '--job' for the 'test' mode\n\
             Run 'tictac test --help' to see more details\n\
             Did you mean '--jobs'?"
        );
        assert_eq!(error(&["test", "--log"]), "Error: the option '--log' needs a value");
        assert_eq!(
            error(&["test", "--bless", "--oracle", "o"]),
            "Error: --bless writes expected files, so it cannot go with --oracle"
        );
        assert_eq!(
            error(&["test", "--course", "acceptance"]),
            "Error: --course runs the built-in course suite, so it takes no PATH (not 'acceptance')"
        );
        // The quotes left off a program's command (finding S7).
        assert_eq!(
            error(&["test", "--course", "--program", "python3", "ttt.py"]),
            "Error: --course runs the built-in course suite, so it takes no PATH (not 'ttt.py'); \
             if it belongs to the program's command, quote the whole command: --program \"python3 ttt.py\""
        );
        assert_eq!(
            error(&["test", "--program", "python3", "ttt.py"]),
            "Error: 'ttt.py' is not a trace; \
             if it belongs to the program's command, quote the whole command: --program \"python3 ttt.py\""
        );
        assert_eq!(
            error(&["test", "--course", "--bless"]),
            "Error: --course runs the built-in course suite, which --bless cannot change"
        );
        let Ok(Invocation::Test(o)) = p(&["test", "--course", "--program", "python3 'a b/t.py'"])
        else {
            panic!("parsed")
        };
        assert!(o.course);
        assert_eq!(o.program, Some(vec!["python3".to_string(), "a b/t.py".to_string()]));
        assert_eq!(
            p(&["course-suite", "out"]),
            Ok(Invocation::CourseSuite(std::path::PathBuf::from("out")))
        );
        assert_eq!(
            error(&["test", "--program", " "]),
            "Error: --program takes a command to run, not ' '"
        );
        assert_eq!(
            said(&["test", "--format", "jnit"]),
            "Error: --format takes human, tap, junit or gradescope, not 'jnit'\n\
             Run 'tictac test --help' to see more details\n\
             Did you mean 'junit'?"
        );
    }

    #[test]
    fn a_command_asked_for_help_gives_it() {
        for name in ["test", "fuzz", "verify", "serve", "completions"] {
            for flag in ["--help", "-h"] {
                let Ok(Invocation::CommandHelp(help)) = p(&[name, flag]) else {
                    panic!("{name} {flag}: no help");
                };
                let usage = format!("\nUsage: {PROGRAM} {name}");
                assert!(help.contains(&usage), "{help}");
                assert!(help.contains("-h, --help"), "{help}");
            }
        }
        // Without the option fuzz needs: help is what was asked for.
        assert!(matches!(p(&["fuzz", "--help"]), Ok(Invocation::CommandHelp(_))));
    }

    #[test]
    fn fuzz_options() {
        let Ok(Invocation::Fuzz(o)) = p(&["fuzz", "--program", "a b"]) else {
            panic!("should parse");
        };
        assert_eq!(o.program, ["a", "b"]);
        assert_eq!(
            (o.runs, o.max_lines, o.timeout),
            (DEFAULT_RUNS, DEFAULT_MAX_LINES, DEFAULT_TIMEOUT)
        );
        // Without --runs or --time a session has a time bound; with either,
        // only the bounds asked for.
        let bounds = |args: &[&str]| match p(&[&["fuzz", "--program", "x"], args].concat()) {
            Ok(Invocation::Fuzz(o)) => (o.runs, o.time),
            other => panic!("{other:?}"),
        };
        assert_eq!(o.time, Some(DEFAULT_FUZZ_TIME));
        assert_eq!(bounds(&["--runs", "5"]), (5, None));
        let two = Some(std::time::Duration::from_secs(2));
        assert_eq!(bounds(&["--time", "2"]), (DEFAULT_RUNS, two));
        assert_eq!((o.jobs, o.out), (default_jobs(), PathBuf::from(DEFAULT_FUZZ_OUT)));
        assert_eq!(error(&["fuzz"]), "Error: fuzz needs --program <CMD>");
        let Ok(Invocation::Fuzz(o)) =
            p(&["fuzz", "--program=x", "--exclude", "redo-nothing", "undo-move", "--check-status"])
        else {
            panic!("should parse");
        };
        assert_eq!(o.exclude.len(), 2);
        assert!(o.check_status);
        assert_eq!(
            error(&["fuzz", "--program", "x", "--exclude", "no-such-thing"]),
            "Error: unknown behaviour 'no-such-thing' (tictac test --coverage lists them)"
        );
    }

    #[test]
    fn numbers_past_their_maximum_say_so() {
        let big = "18446744073709551616";
        let fuzz = |option: &str, v: &str| p(&["fuzz", "--program", "x", option, v]);
        let fuzz_error = |option: &str, v: &str| error(&["fuzz", "--program", "x", option, v]);
        assert!(
            matches!(fuzz("--max-lines", big), Ok(Invocation::Fuzz(o)) if o.max_lines == 100_000)
        );
        assert!(matches!(fuzz("-j", big), Ok(Invocation::Fuzz(o)) if o.jobs == 256));
        let max = "18446744073709551615";
        assert!(matches!(fuzz("--runs", max), Ok(Invocation::Fuzz(o)) if o.runs == u64::MAX));
        assert_eq!(
            fuzz_error("--runs", big),
            format!("Error: --runs takes at most {max}, not '{big}'")
        );
        assert_eq!(
            fuzz_error("--runs", "0"),
            "Error: --runs takes a positive whole number, not '0'"
        );
        assert_eq!(fuzz_error("--seed", "-1"), "Error: --seed takes a whole number, not '-1'");
        assert_eq!(
            fuzz_error("--time", "1e10"),
            "Error: --time takes at most 1000000000 seconds, not '1e10'"
        );
        assert!(matches!(fuzz("--time", "1e9"), Ok(Invocation::Fuzz(o))
            if o.time == Some(std::time::Duration::from_secs(1_000_000_000))));
    }

    #[test]
    fn serve_options() {
        let defaults = ServeOptions {
            bind: DEFAULT_BIND,
            port: DEFAULT_PORT,
            timeout: DEFAULT_SERVE_TIMEOUT,
            allowed_hosts: Vec::new(),
        };
        assert_eq!(p(&["serve"]), Ok(Invocation::Serve(defaults)));
        let Ok(Invocation::Serve(o)) =
            p(&["serve", "--port", "0", "--bind", "::1", "--timeout=0.25"])
        else {
            panic!("should parse");
        };
        assert_eq!((o.port, o.bind.to_string()), (0, "::1".to_string()));
        assert_eq!(o.timeout, std::time::Duration::from_millis(250));
        assert_eq!(
            error(&["serve", "--port", "65536"]),
            "Error: --port takes a port number from 0 to 65535, not '65536'"
        );
        assert_eq!(
            error(&["serve", "--bind", "example"]),
            "Error: --bind takes an IP address such as 127.0.0.1 or 0.0.0.0, not 'example'"
        );
        let Ok(Invocation::Serve(o)) = p(&[
            "serve",
            "--allow-host",
            "MyBox.Local.",
            "--allow-host=[::1]",
            "--allow-host",
            "10.0.0.7",
        ]) else {
            panic!("should parse");
        };
        assert_eq!(o.allowed_hosts, ["mybox.local", "::1", "10.0.0.7"]);
        for bad in ["", "a b", "evil.com:80", "*", "a..b", "http://x", "-"] {
            let said = error(&["serve", "--allow-host", bad]);
            assert!(said.starts_with("Error: --allow-host takes a host name"), "{bad:?}: {said}");
        }
        assert_eq!(error(&["serve", "--port"]), "Error: the option '--port' needs a value");
        assert_eq!(error(&["serve", "-x"]), "Error: unknown option '-x' for the 'serve' mode");
        assert_eq!(error(&["serve", "x"]), "Error: unexpected argument 'x' for the 'serve' mode");
        // The quotes left off a program's command (finding S7).
        assert_eq!(
            said(&["fuzz", "--program", "python3", "ttt.py"]),
            "Error: unexpected argument 'ttt.py' for the 'fuzz' mode\n\
             Run 'tictac fuzz --help' to see more details\n\
             tip: quote the whole command: --program \"python3 ttt.py\""
        );
        assert_eq!(
            error(&["serve", "--timeout", "0"]),
            "Error: --timeout takes a positive number of seconds, not '0'"
        );
    }

    #[test]
    fn completions_take_a_shell() {
        assert_eq!(p(&["completions", "bash"]), Ok(Invocation::Completions(Shell::Bash)));
        assert_eq!(error(&["completions"]), "Error: completions needs <SHELL>");
        assert!(error(&["completions", "tcsh"]).starts_with("Error: <SHELL> takes bash, "));
    }
}
