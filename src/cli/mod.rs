//! The command line, as ETF executables read it: the first argument is the
//! mode, then a fixed number of arguments for that mode.

pub(crate) mod options;

pub(crate) use options::{Format, FuzzOptions, TestOptions};

use std::ffi::{OsStr, OsString};
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use crate::behaviour::Behaviour;
use crate::bots::{Autopilot, Bot, Strategy};
use crate::game::Mark;
use crate::window::{Window, WindowEnd};

/// A mistake in the invocation; printed with a `Run '... -help'` line.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UsageError {
    #[error("Error: a mode is not specified")]
    NoMode,
    /// Standard output already carries the session or the report.
    #[error("Error: {0} writes a file; '-' is not one here (./- names a file called '-')")]
    DashAsFile(&'static str),
    #[error("Error: '{0}' is not a valid mode")]
    BadMode(String),
    #[error("Error: wrong number of arguments for the '{0}' mode")]
    ArgumentCount(String),
    #[error("Error: the start of window is not a valid integer")]
    WindowStart,
    #[error("Error: the end of window is neither a valid integer nor '_'")]
    WindowEnd,
    #[error("Error: a window [start, end) should be such that start <= end")]
    WindowOrder,
    #[error(
        "Error: when the start of a window is non-positive, its end must be a non-positive number"
    )]
    WindowSign,
    #[error("Error: unknown option '{0}' for the 'test' mode")]
    UnknownOption(String),
    #[error("Error: the option '{0}' needs a value")]
    MissingValue(String),
    #[error("Error: -j needs a positive number of jobs, not '{0}'")]
    Jobs(String),
    #[error("Error: --timeout takes a positive number of seconds, not '{0}'")]
    Timeout(String),
    #[error("Error: --bless writes expected files, so it cannot go with --oracle")]
    BlessWithOracle,
    #[error(
        "Error: --coverage measures the engine's behaviours, running no program, so it cannot go with {0}"
    )]
    CoverageWith(String),
    #[error("Error: --format takes human, tap or junit, not '{0}'")]
    Format(String),
    #[error("Error: --record works in the '-i' and '-g' modes only")]
    RecordOutsideShell,
    #[error("Error: --bot and --seed work in the '-i', '-b' and '-g' modes only")]
    BotsOutsidePlay,
    #[error(
        "Error: --bot takes NAME=STRATEGY, with STRATEGY one of tla, elm, perfect, random (not '{0}')"
    )]
    BadBot(String),
    #[error("Error: the bot name '{0}' can never play: names start with A-Z or a-z")]
    BotCannotPlay(String),
    #[error("Error: two bots are named '{0}'")]
    SameBotTwice(String),
    #[error("Error: --seed makes the bots' choices random, so it needs a --bot")]
    SeedWithoutBot,
    #[error("Error: --seed takes a whole number, not '{0}'")]
    Seed(String),
    #[error("Error: unknown strategy '{0}' (tla, elm, perfect or random)")]
    BadStrategy(String),
    #[error("Error: --as takes X or O, not '{0}'")]
    BadMark(String),
    #[error("Error: unknown option '{0}' for the 'verify' mode")]
    UnknownVerifyOption(String),
    #[error("Error: verify needs both --strategy and --as to check one strategy")]
    VerifyNeedsBoth,
    #[error("Error: unknown option '{0}' for the 'serve' mode")]
    UnknownServeOption(String),
    #[error("Error: --port takes a port number from 0 to 65535, not '{0}'")]
    Port(String),
    #[error("Error: --bind takes an IP address such as 127.0.0.1 or 0.0.0.0, not '{0}'")]
    Bind(String),
    #[error("Error: unknown option '{0}' for the 'fuzz' mode")]
    UnknownFuzzOption(String),
    #[error("Error: fuzz needs --program CMD, the program to test")]
    FuzzNeedsProgram,
    #[error("Error: {0} takes a positive whole number, not '{1}'")]
    Count(String, String),
    #[error("Error: --time takes a positive number of seconds, not '{0}'")]
    Time(String),
    /// A well-formed number past what the option takes.
    #[error("Error: {0} takes at most {1}, not '{2}'")]
    TooLarge(&'static str, &'static str, String),
    #[error("Error: unknown behaviour '{0}' (tictac test --coverage lists them)")]
    BadBehaviour(String),
    #[error("Error: '{0}' is not a behaviour a '-b' run can show, so fuzz never generates it")]
    NotBatchBehaviour(String),
    #[error(
        "Error: initial-state cannot be excluded: every run prints the initial state first, so every trace shows it"
    )]
    ExcludeInitialState,
}

/// A window as `-w` and the web API take it, checked as SPEC §5 says:
/// `start <= end`, and a non-positive start with a non-positive end.
pub(crate) fn check_window(start: i32, end: WindowEnd) -> Result<Window, UsageError> {
    if let WindowEnd::Line(n) = end {
        if start > n {
            return Err(UsageError::WindowOrder);
        }
        if start <= 0 && n > 0 {
            return Err(UsageError::WindowSign);
        }
    }
    Ok(Window { start, end })
}

/// Options of a played session; they may stand anywhere on the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Session {
    /// Append every line that ran to this file, making the session a trace.
    pub(crate) record: Option<PathBuf>,
    /// `--bot NAME=STRATEGY`: computer players.
    pub(crate) bots: Vec<Bot>,
    /// `--seed N`: bots choose at random among their allowed moves.
    pub(crate) seed: Option<u64>,
}

impl Session {
    /// The bots, ready to play.
    pub(crate) fn autopilot(&self) -> Autopilot {
        Autopilot::new(self.bots.clone(), self.seed)
    }

    /// Played on a terminal, a `random` bot given no `--seed` is random: the
    /// session takes a fresh seed, returned so that it can be shown and the
    /// session repeated with `--seed N`. Elsewhere output depends only on the
    /// input and `--seed`, so this is the front end's call.
    pub(crate) fn fresh_seed(&mut self) -> Option<u64> {
        let random = self.bots.iter().any(|b| b.strategy == Strategy::Random);
        if self.seed.is_some() || !random {
            return None;
        }
        let seed = fastrand::u64(..);
        self.seed = Some(seed);
        Some(seed)
    }
}

/// The name the executable goes by when it cannot tell (a `-- run:`
/// directive in `tictac test` has no program name of its own).
pub(crate) const PROGRAM: &str = "tictac";

impl UsageError {
    /// An invocation error (SPEC §5).
    pub(crate) fn exit_code(&self) -> u8 {
        2
    }

    /// The message as the executable prints it, `program` being its name:
    /// the mistake, then where to read more.
    pub(crate) fn with_hint(&self, program: &str) -> String {
        format!("{self}\nRun '{program} -help' to see more details")
    }
}

/// The ways a trace file can be run into an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// `-b IN`: validate all, then run all.
    Whole,
    /// `-b IN OUT`: chunks of 100 lines.
    Chunks,
    /// `-w M N IN [OUT]`, `-l IN [OUT]`.
    Window(Window),
}

/// `-` as OUT: standard output (as `-` as IN is standard input).
pub(crate) const STDOUT: &str = "-";

/// What the program was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Invocation {
    Interactive(Session),
    /// `-g`: the full-screen terminal board.
    Board(Session),
    /// `tictac test ...`: the acceptance-test runner.
    Test(TestOptions),
    /// `-b`, `-w`, `-l`: run a trace file, to standard output or to a new file.
    Run {
        job: Job,
        input: PathBuf,
        output: Option<PathBuf>,
        session: Session,
    },
    /// `tictac verify ...`: exhaustive checks of the game and the strategies.
    Verify(VerifyOptions),
    /// `tictac serve ...`: the game and the oracle in a web browser.
    Serve(ServeOptions),
    /// `tictac fuzz ...`: a program against the engine on generated traces.
    Fuzz(FuzzOptions),
    Help,
    Version,
}

/// Reads the arguments after the program name: `test ...`, or an ETF mode
/// with options such as `--record FILE` anywhere on the line.
pub(crate) fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    if args.first().is_some_and(|a| a == "test") {
        return parse_test(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "verify") {
        return parse_verify(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "serve") {
        return parse_serve(&args[1..]);
    }
    if args.first().is_some_and(|a| a == "fuzz") {
        return parse_fuzz(&args[1..]);
    }
    let mut session = Session::default();
    let mut etf = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value =
            |name: &str| args.next().ok_or_else(|| UsageError::MissingValue(name.into()));
        if arg == "--record" {
            let file = value("--record")?;
            if file == "-" {
                return Err(UsageError::DashAsFile("--record"));
            }
            session.record = Some(PathBuf::from(file));
        } else if arg == "--bot" {
            session.bots.push(parse_bot(value("--bot")?)?);
        } else if arg == "--seed" {
            let n = value("--seed")?.to_string_lossy().into_owned();
            session.seed = Some(seed(n)?);
        } else {
            etf.push(arg.clone());
        }
    }
    let plays = session.bots.is_empty() && session.seed.is_none();
    match parse_etf(&etf)? {
        Invocation::Interactive(_) => Ok(Invocation::Interactive(check_bots(session)?)),
        Invocation::Board(_) => Ok(Invocation::Board(check_bots(session)?)),
        _ if session.record.is_some() => Err(UsageError::RecordOutsideShell),
        Invocation::Run { job: Job::Window(_), .. } if !plays => Err(UsageError::BotsOutsidePlay),
        Invocation::Run { job, input, output, .. } => {
            Ok(Invocation::Run { job, input, output, session: check_bots(session)? })
        }
        other => Ok(other),
    }
}

/// Bots that could never move are mistakes of the command line, not of the
/// trace: a name the game refuses, a name given twice, a seed with no bot.
fn check_bots(session: Session) -> Result<Session, UsageError> {
    for (k, bot) in session.bots.iter().enumerate() {
        let name = || String::from_utf8_lossy(&bot.name).into_owned();
        if !bot.name.first().is_some_and(u8::is_ascii_alphabetic) {
            return Err(UsageError::BotCannotPlay(name()));
        }
        if session.bots[..k].iter().any(|b| b.name == bot.name) {
            return Err(UsageError::SameBotTwice(name()));
        }
    }
    if session.seed.is_some() && session.bots.is_empty() {
        return Err(UsageError::SeedWithoutBot);
    }
    Ok(session)
}

/// `NAME=STRATEGY`
fn parse_bot(text: &OsStr) -> Result<Bot, UsageError> {
    let text = text.to_string_lossy();
    let error = || UsageError::BadBot(text.to_string());
    let (name, strategy) = text.rsplit_once('=').ok_or_else(error)?;
    let strategy = Strategy::from_name(strategy).ok_or_else(error)?;
    Ok(Bot { name: name.as_bytes().to_vec(), strategy })
}

/// What `tictac verify` checks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VerifyOptions {
    /// One strategy playing one mark, instead of the whole table.
    pub(crate) one: Option<(Strategy, Mark)>,
    /// Where to write the first lost game as a trace.
    pub(crate) trace_out: Option<PathBuf>,
}

/// `verify [--strategy S --as X|O [--trace-out FILE]]`
fn parse_verify(args: &[OsString]) -> Result<Invocation, UsageError> {
    let (mut strategy, mut mark, mut trace_out) = (None, None, None);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let mut value = || args.next().ok_or_else(|| UsageError::MissingValue(text.to_string()));
        match text.as_ref() {
            "--strategy" => {
                let name = value()?.to_string_lossy().into_owned();
                strategy = Some(Strategy::from_name(&name).ok_or(UsageError::BadStrategy(name))?);
            }
            "--as" => {
                mark = Some(match value()?.to_str() {
                    Some("X" | "x") => Mark::X,
                    Some("O" | "o") => Mark::O,
                    other => return Err(UsageError::BadMark(other.unwrap_or("?").into())),
                })
            }
            "--trace-out" => {
                let file = value()?;
                if file == "-" {
                    return Err(UsageError::DashAsFile("--trace-out"));
                }
                trace_out = Some(PathBuf::from(file));
            }
            other => return Err(UsageError::UnknownVerifyOption(other.into())),
        }
    }
    let one = match (strategy, mark) {
        (Some(s), Some(m)) => Some((s, m)),
        (None, None) if trace_out.is_none() => None,
        _ => return Err(UsageError::VerifyNeedsBoth),
    };
    Ok(Invocation::Verify(VerifyOptions { one, trace_out }))
}

/// Where `tictac serve` listens, and how long a request may run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServeOptions {
    pub(crate) bind: IpAddr,
    /// 0 picks a free port.
    pub(crate) port: u16,
    /// A request still running after this answers 503.
    pub(crate) timeout: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            timeout: Duration::from_secs(5),
        }
    }
}

/// `serve [--port N] [--bind ADDR] [--timeout S]`
fn parse_serve(args: &[OsString]) -> Result<Invocation, UsageError> {
    let mut options = ServeOptions::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let mut value = || {
            let v = args.next().ok_or_else(|| UsageError::MissingValue(text.to_string()))?;
            Ok::<String, UsageError>(v.to_string_lossy().trim().to_string())
        };
        match text.as_ref() {
            "--port" => {
                let n = value()?;
                options.port = n.parse().map_err(|_| UsageError::Port(n))?;
            }
            "--bind" => {
                let a = value()?;
                options.bind = match a.as_str() {
                    "localhost" => IpAddr::from([127, 0, 0, 1]),
                    _ => a.parse().map_err(|_| UsageError::Bind(a))?,
                };
            }
            "--timeout" => {
                let secs = value()?;
                options.timeout = seconds("--timeout", secs, UsageError::Timeout)?;
            }
            other => return Err(UsageError::UnknownServeOption(other.into())),
        }
    }
    Ok(Invocation::Serve(options))
}

/// `test [--bless] [--program CMD] [--oracle CMD] [--log DIR] [-j N] [--timeout S]
/// [--quiet] [--filter TEXT] [--format human|tap|junit] [--coverage] [PATH...]`
fn parse_test(args: &[OsString]) -> Result<Invocation, UsageError> {
    let mut options = TestOptions {
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
        ..TestOptions::default()
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        let mut value = || args.next().ok_or_else(|| UsageError::MissingValue(text.to_string()));
        match text.as_ref() {
            "--bless" => options.bless = true,
            "--coverage" => options.coverage = true,
            "--quiet" | "-q" => options.quiet = true,
            "--format" => {
                let format = value()?.to_string_lossy().into_owned();
                options.format = match format.as_str() {
                    "tap" => Format::Tap,
                    "junit" => Format::Junit,
                    "human" => Format::Human,
                    _ => return Err(UsageError::Format(format)),
                };
            }
            "--filter" => options.filter = Some(value()?.to_string_lossy().into_owned()),
            "--program" => options.program = Some(words(value()?)),
            "--oracle" => options.oracle = Some(words(value()?)),
            "--log" => options.log = Some(PathBuf::from(value()?)),
            "--timeout" => {
                let secs = value()?.to_string_lossy().into_owned();
                options.timeout = seconds("--timeout", secs, UsageError::Timeout)?;
            }
            "-j" | "--jobs" => {
                let n = value()?.to_string_lossy().into_owned();
                options.jobs = capped_count(&n, MAX_JOBS).ok_or(UsageError::Jobs(n))?;
            }
            option if option.starts_with('-') && option.len() > 1 => {
                return Err(UsageError::UnknownOption(option.into()));
            }
            _ => options.paths.push(PathBuf::from(arg)),
        }
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
        ];
        if let Some((_, option)) = clash.iter().find(|(given, _)| *given) {
            return Err(UsageError::CoverageWith((*option).into()));
        }
    }
    Ok(Invocation::Test(options))
}

/// `fuzz --program CMD [--oracle CMD] [--runs N] [--time S] [--seed N] [--out DIR]
/// [-j N] [--timeout S] [--max-lines L] [--exclude ID...] [--check-status]`
fn parse_fuzz(args: &[OsString]) -> Result<Invocation, UsageError> {
    let mut options = FuzzOptions {
        jobs: std::thread::available_parallelism().map_or(1, usize::from),
        ..FuzzOptions::default()
    };
    let mut runs_given = false;
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy().into_owned();
        let mut value = || {
            args.next()
                .map(|v| v.to_string_lossy().into_owned())
                .ok_or_else(|| UsageError::MissingValue(text.clone()))
        };
        runs_given |= text == "--runs";
        let count = |name: &'static str, v: String| match whole(&v) {
            Whole::Number(n) if n > 0 => Ok(n),
            Whole::TooLarge => Err(UsageError::TooLarge(name, U64_MAX, v)),
            _ => Err(UsageError::Count(name.into(), v)),
        };
        match text.as_str() {
            "--program" => options.program = words(&value()?.into()),
            "--oracle" => options.oracle = Some(words(&value()?.into())),
            "--runs" => options.runs = count("--runs", value()?)?,
            "--time" => options.time = Some(seconds("--time", value()?, UsageError::Time)?),
            "--seed" => options.seed = Some(seed(value()?)?),
            "--out" => options.out = PathBuf::from(value()?),
            "-j" | "--jobs" => {
                let v = value()?;
                options.jobs = capped_count(&v, MAX_JOBS).ok_or(UsageError::Jobs(v))?;
            }
            "--timeout" => options.timeout = seconds("--timeout", value()?, UsageError::Timeout)?,
            "--max-lines" => {
                let v = value()?;
                options.max_lines = capped_count(&v, MAX_LINES)
                    .ok_or_else(|| UsageError::Count("--max-lines".into(), v))?;
            }
            "--exclude" => {
                let first = value()?;
                let mut ids = vec![first];
                while let Some(next) = args.next_if(|a| !a.to_string_lossy().starts_with('-')) {
                    ids.push(next.to_string_lossy().into_owned());
                }
                for id in ids {
                    let b = Behaviour::from_id(id.trim())
                        .ok_or_else(|| UsageError::BadBehaviour(id.clone()))?;
                    if !b.in_batch() {
                        return Err(UsageError::NotBatchBehaviour(id));
                    }
                    if b == Behaviour::InitialState {
                        return Err(UsageError::ExcludeInitialState);
                    }
                    options.exclude.push(b);
                }
            }
            "--check-status" => options.check_status = true,
            "--save-traces" => options.save_traces = Some(PathBuf::from(value()?)),
            other => return Err(UsageError::UnknownFuzzOption(other.into())),
        }
    }
    if options.program.is_empty() {
        return Err(UsageError::FuzzNeedsProgram);
    }
    // Without a bound of its own a session ends by itself, soon.
    if !runs_given && options.time.is_none() {
        options.time = Some(FuzzOptions::DEFAULT_TIME);
    }
    Ok(Invocation::Fuzz(options))
}

/// The most seconds `--timeout` and `--time` take (about 31 years): any
/// deadline counted from now can be computed.
const MAX_SECONDS: f64 = 1e9;

/// `u64::MAX`, as the messages give it.
const U64_MAX: &str = "18446744073709551615";

/// `-j` runs at most this many tests (or fuzz runs) at once.
const MAX_JOBS: usize = 256;

/// `fuzz --max-lines` is capped here.
const MAX_LINES: usize = 100_000;

/// A positive number of seconds, at most `MAX_SECONDS` (`bad` for one that
/// is not a positive number).
fn seconds(
    option: &'static str,
    text: String,
    bad: fn(String) -> UsageError,
) -> Result<std::time::Duration, UsageError> {
    match text.trim().parse::<f64>() {
        Ok(secs) if secs > MAX_SECONDS => {
            Err(UsageError::TooLarge(option, "1000000000 seconds", text))
        }
        Ok(secs) if secs > 0.0 => Ok(std::time::Duration::from_secs_f64(secs)),
        _ => Err(bad(text)),
    }
}

/// A whole number as a person writes it: digits, maybe a `+`, and spaces
/// around.
enum Whole {
    Number(u64),
    /// Digits past `u64::MAX`.
    TooLarge,
    NotANumber,
}

fn whole(text: &str) -> Whole {
    let t = text.trim();
    let digits = t.strip_prefix('+').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Whole::NotANumber;
    }
    digits.parse().map_or(Whole::TooLarge, Whole::Number)
}

/// A positive whole number of any size, capped at `cap`.
fn capped_count(text: &str, cap: usize) -> Option<usize> {
    match whole(text) {
        Whole::Number(0) | Whole::NotANumber => None,
        Whole::Number(n) => Some(usize::try_from(n).unwrap_or(usize::MAX).min(cap)),
        Whole::TooLarge => Some(cap),
    }
}

/// `--seed`: any `u64`.
fn seed(text: String) -> Result<u64, UsageError> {
    match whole(&text) {
        Whole::Number(n) => Ok(n),
        Whole::TooLarge => Err(UsageError::TooLarge("--seed", U64_MAX, text)),
        Whole::NotANumber => Err(UsageError::Seed(text)),
    }
}

/// A command given as one argument (`"python3 ttt.py"`), split into words.
fn words(command: &OsString) -> Vec<String> {
    command.to_string_lossy().split_whitespace().map(String::from).collect()
}

fn parse_etf(args: &[OsString]) -> Result<Invocation, UsageError> {
    let Some((mode, rest)) = args.split_first() else {
        return Err(UsageError::NoMode);
    };
    let mode_text = mode.to_string_lossy().into_owned();
    let count_error = || UsageError::ArgumentCount(mode_text.clone());
    let path = |k: usize| PathBuf::from(&rest[k]);
    // An OUT of `-` is standard output: the same run, printed (`./-` names
    // a file called `-`).
    let optional =
        |k: usize| rest.get(k).filter(|a| a.as_os_str() != OsStr::new(STDOUT)).map(PathBuf::from);
    match (mode_text.as_str(), rest.len()) {
        ("-i", 0) => Ok(Invocation::Interactive(Session::default())),
        ("-g", 0) => Ok(Invocation::Board(Session::default())),
        // ETF knows only the single-dash forms; people type these first.
        ("-help" | "--help" | "-h", 0) => Ok(Invocation::Help),
        ("-version" | "--version", 0) => Ok(Invocation::Version),
        ("-b", 1 | 2) => {
            let job = if rest.len() == 1 { Job::Whole } else { Job::Chunks };
            Ok(Invocation::Run {
                job,
                input: path(0),
                output: optional(1),
                session: Session::default(),
            })
        }
        ("-l", 1 | 2) => {
            let job = Job::Window(Window::LAST);
            Ok(Invocation::Run {
                job,
                input: path(0),
                output: optional(1),
                session: Session::default(),
            })
        }
        ("-w", 3 | 4) => {
            let job = Job::Window(parse_window(&rest[0], &rest[1])?);
            Ok(Invocation::Run {
                job,
                input: path(2),
                output: optional(3),
                session: Session::default(),
            })
        }
        (
            "-i" | "-g" | "-help" | "--help" | "-h" | "-version" | "--version" | "-b" | "-l" | "-w",
            _,
        ) => Err(count_error()),
        _ => Err(UsageError::BadMode(mode_text)),
    }
}

fn parse_window(start: &OsStr, end: &OsStr) -> Result<Window, UsageError> {
    let start = integer(start).ok_or(UsageError::WindowStart)?;
    let end = match end.to_str().map(str::trim) {
        Some("_") => WindowEnd::Unbounded,
        _ => WindowEnd::Line(integer(end).ok_or(UsageError::WindowEnd)?),
    };
    check_window(start, end)
}

/// A 32-bit integer, with an optional sign and surrounding spaces.
fn integer(text: &OsStr) -> Option<i32> {
    let t = text.to_str()?.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::options::DEFAULT_TIMEOUT;
    use super::*;

    fn p(args: &[&str]) -> Result<Invocation, UsageError> {
        parse(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    fn window(m: &str, n: &str) -> Result<Window, UsageError> {
        parse_window(OsStr::new(m), OsStr::new(n))
    }

    #[test]
    fn modes_and_their_argument_counts() {
        assert_eq!(p(&[]), Err(UsageError::NoMode));
        assert_eq!(p(&["-x"]), Err(UsageError::BadMode("-x".into())));
        assert_eq!(p(&["-b"]), Err(UsageError::ArgumentCount("-b".into())));
        assert_eq!(p(&["-i", "x"]), Err(UsageError::ArgumentCount("-i".into())));
        assert_eq!(p(&["-w", "1", "2"]), Err(UsageError::ArgumentCount("-w".into())));
        assert_eq!(p(&["-i"]), Ok(Invocation::Interactive(Session::default())));
        for help in ["-help", "--help", "-h"] {
            assert_eq!(p(&[help]), Ok(Invocation::Help));
            assert_eq!(p(&[help, "x"]), Err(UsageError::ArgumentCount(help.into())));
        }
        assert_eq!(p(&["--version"]), Ok(Invocation::Version));
        assert_eq!(p(&["-v"]), Err(UsageError::BadMode("-v".into())));
        assert_eq!(
            p(&["-l", "t"]),
            Ok(Invocation::Run {
                job: Job::Window(Window::LAST),
                input: "t".into(),
                output: None,
                session: Session::default()
            })
        );
    }

    #[test]
    fn a_dash_as_out_is_standard_output() {
        let run = |job, output: Option<&str>| {
            Ok(Invocation::Run {
                job,
                input: "-".into(),
                output: output.map(PathBuf::from),
                session: Session::default(),
            })
        };
        assert_eq!(p(&["-b", "-", "-"]), run(Job::Chunks, None));
        assert_eq!(
            p(&["-b", "t", "./-"]),
            Ok(Invocation::Run {
                job: Job::Chunks,
                input: "t".into(),
                output: Some("./-".into()),
                session: Session::default()
            })
        );
        assert_eq!(p(&["-l", "-", "-"]), run(Job::Window(Window::LAST), None));
        assert_eq!(p(&["-w", "1", "_", "-", "-"]), p(&["-w", "1", "_", "-"]));
    }

    #[test]
    fn record_may_stand_before_or_after_the_mode() {
        let recorded = Ok(Invocation::Interactive(Session {
            record: Some("s.txt".into()),
            ..Session::default()
        }));
        assert_eq!(p(&["--record", "s.txt", "-i"]), recorded);
        assert_eq!(p(&["-i", "--record", "s.txt"]), recorded);
        assert_eq!(p(&["-i", "--record"]), Err(UsageError::MissingValue("--record".into())));
        assert_eq!(p(&["-i", "--record", "-"]), Err(UsageError::DashAsFile("--record")));
        assert_eq!(
            p(&["verify", "--as", "o", "--strategy", "elm", "--trace-out", "-"]),
            Err(UsageError::DashAsFile("--trace-out"))
        );
        assert_eq!(p(&["-b", "t", "--record", "s"]), Err(UsageError::RecordOutsideShell));
        assert_eq!(p(&["--record", "s"]), Err(UsageError::NoMode));
    }

    #[test]
    fn bots_and_seed_may_stand_anywhere() {
        let Ok(Invocation::Run { session, .. }) =
            p(&["--bot", "Hal=tla", "-b", "t", "--seed", "7", "--bot", "a=b=perfect"])
        else {
            panic!("should parse");
        };
        assert_eq!(session.seed, Some(7));
        assert_eq!(session.bots[0], Bot { name: b"Hal".to_vec(), strategy: Strategy::Tla });
        assert_eq!(session.bots[1].name, b"a=b");
        assert_eq!(p(&["-b", "t", "--bot", "Hal"]), Err(UsageError::BadBot("Hal".into())));
        assert_eq!(
            p(&["-b", "t", "--bot", "Hal=smart"]),
            Err(UsageError::BadBot("Hal=smart".into()))
        );
        assert_eq!(p(&["-b", "t", "--seed", "x"]), Err(UsageError::Seed("x".into())));
        assert_eq!(p(&["-b", "t", "--seed", "1"]), Err(UsageError::SeedWithoutBot));
        assert_eq!(p(&["-i", "--seed", "1"]), Err(UsageError::SeedWithoutBot));
        for name in ["", "1Hal", " Hal", "_x", "é"] {
            let bot = format!("{name}=tla");
            assert_eq!(p(&["-b", "t", "--bot", &bot]), Err(UsageError::BotCannotPlay(name.into())));
        }
        assert_eq!(
            p(&["-g", "--bot", "Hal=tla", "--bot", "Hal=elm"]),
            Err(UsageError::SameBotTwice("Hal".into()))
        );
        // Names are case-sensitive, as in the game.
        assert!(p(&["-b", "t", "--bot", "Hal=tla", "--bot", "hal=elm"]).is_ok());
        assert_eq!(p(&["-l", "t", "--seed", "1"]), Err(UsageError::BotsOutsidePlay));
        assert!(
            matches!(p(&["-i", "--bot", "Hal=elm"]), Ok(Invocation::Interactive(s)) if s.bots.len() == 1)
        );
    }

    #[test]
    fn verify_options() {
        assert_eq!(p(&["verify"]), Ok(Invocation::Verify(VerifyOptions::default())));
        assert_eq!(
            p(&["verify", "--as", "o", "--strategy", "elm", "--trace-out", "f"]),
            Ok(Invocation::Verify(VerifyOptions {
                one: Some((Strategy::Elm, Mark::O)),
                trace_out: Some("f".into())
            }))
        );
        assert_eq!(p(&["verify", "--strategy", "elm"]), Err(UsageError::VerifyNeedsBoth));
        assert_eq!(p(&["verify", "--trace-out", "f"]), Err(UsageError::VerifyNeedsBoth));
        assert_eq!(p(&["verify", "--as", "Z"]), Err(UsageError::BadMark("Z".into())));
        assert_eq!(p(&["verify", "--strategy", "x"]), Err(UsageError::BadStrategy("x".into())));
        assert_eq!(p(&["verify", "-x"]), Err(UsageError::UnknownVerifyOption("-x".into())));
    }

    #[test]
    fn test_mode_options() {
        let Ok(Invocation::Test(o)) =
            p(&["test", "--program", "python3 t.py", "-j", "3", "--log", "l", "a", "b"])
        else {
            panic!("should parse");
        };
        assert_eq!(o.program, Some(vec!["python3".to_string(), "t.py".to_string()]));
        assert_eq!((o.jobs, o.log), (3, Some("l".into())));
        assert_eq!(o.paths, [PathBuf::from("a"), PathBuf::from("b")]);
        assert!(matches!(p(&["test"]), Ok(Invocation::Test(o)) if o.jobs >= 1 && !o.bless));
        assert_eq!(p(&["test", "-j", "0"]), Err(UsageError::Jobs("0".into())));
        assert_eq!(p(&["test", "--timeout", "-1"]), Err(UsageError::Timeout("-1".into())));
        assert_eq!(
            p(&["test", "--timeout", "inf"]),
            Err(UsageError::TooLarge("--timeout", "1000000000 seconds", "inf".into()))
        );
        assert!(matches!(p(&["test", "-j", "99999999999999999999"]),
            Ok(Invocation::Test(o)) if o.jobs == 256));
        assert!(matches!(p(&["test", "--timeout", "0.5"]),
            Ok(Invocation::Test(o)) if o.timeout == std::time::Duration::from_millis(500)));
        assert!(matches!(p(&["test"]), Ok(Invocation::Test(o)) if o.timeout == DEFAULT_TIMEOUT));
        assert_eq!(p(&["test", "--x"]), Err(UsageError::UnknownOption("--x".into())));
        assert_eq!(p(&["test", "--log"]), Err(UsageError::MissingValue("--log".into())));
        assert_eq!(p(&["test", "--bless", "--oracle", "o"]), Err(UsageError::BlessWithOracle));
    }

    #[test]
    fn numbers_past_their_maximum_say_so() {
        let big = "18446744073709551616";
        let fuzz = |option: &str, v: &str| p(&["fuzz", "--program", "x", option, v]);
        assert!(
            matches!(fuzz("--max-lines", big), Ok(Invocation::Fuzz(o)) if o.max_lines == 100_000)
        );
        assert!(matches!(fuzz("-j", big), Ok(Invocation::Fuzz(o)) if o.jobs == 256));
        let max = "18446744073709551615";
        assert!(matches!(fuzz("--runs", max), Ok(Invocation::Fuzz(o)) if o.runs == u64::MAX));
        // Without --runs or --time a session has a time bound; with either,
        // only the bounds asked for.
        let bounds = |args: &[&str]| match p(&[&["fuzz", "--program", "x"], args].concat()) {
            Ok(Invocation::Fuzz(o)) => (o.runs, o.time),
            other => panic!("{other:?}"),
        };
        let minute = Some(FuzzOptions::DEFAULT_TIME);
        assert_eq!(bounds(&[]), (10_000, minute));
        assert_eq!(bounds(&["--runs", "5"]), (5, None));
        assert_eq!(bounds(&["--time", "2"]), (10_000, Some(std::time::Duration::from_secs(2))));
        assert_eq!(fuzz("--runs", big), Err(UsageError::TooLarge("--runs", max, big.into())));
        assert_eq!(fuzz("--runs", "0"), Err(UsageError::Count("--runs".into(), "0".into())));
        assert_eq!(fuzz("--seed", "-1"), Err(UsageError::Seed("-1".into())));
        assert_eq!(
            fuzz("--time", "1e10"),
            Err(UsageError::TooLarge("--time", "1000000000 seconds", "1e10".into()))
        );
        assert!(matches!(fuzz("--time", "1e9"), Ok(Invocation::Fuzz(o))
            if o.time == Some(std::time::Duration::from_secs(1_000_000_000))));
    }

    #[test]
    fn serve_options() {
        assert_eq!(p(&["serve"]), Ok(Invocation::Serve(ServeOptions::default())));
        let Ok(Invocation::Serve(o)) =
            p(&["serve", "--port", "0", "--bind", "::1", "--timeout", "0.25"])
        else {
            panic!("should parse");
        };
        assert_eq!((o.port, o.bind.to_string()), (0, "::1".to_string()));
        assert_eq!(o.timeout, Duration::from_millis(250));
        assert_eq!(p(&["serve", "--port", "65536"]), Err(UsageError::Port("65536".into())));
        assert_eq!(p(&["serve", "--bind", "example"]), Err(UsageError::Bind("example".into())));
        assert_eq!(p(&["serve", "--port"]), Err(UsageError::MissingValue("--port".into())));
        assert_eq!(p(&["serve", "-x"]), Err(UsageError::UnknownServeOption("-x".into())));
        assert_eq!(p(&["serve", "--timeout", "0"]), Err(UsageError::Timeout("0".into())));
    }

    #[test]
    fn window_checks_come_in_order() {
        assert_eq!(window("x", "y"), Err(UsageError::WindowStart));
        assert_eq!(window("1", "y"), Err(UsageError::WindowEnd));
        assert_eq!(window("3", "2"), Err(UsageError::WindowOrder));
        assert_eq!(window("0", "2"), Err(UsageError::WindowSign));
        assert_eq!(window("2147483648", "_"), Err(UsageError::WindowStart));
        assert_eq!(window(" +2 ", "_"), Ok(Window { start: 2, end: WindowEnd::Unbounded }));
        assert_eq!(window("-3", "-1"), Ok(Window { start: -3, end: WindowEnd::Line(-1) }));
        assert_eq!(window("1", "+-1"), Err(UsageError::WindowEnd));
    }
}
