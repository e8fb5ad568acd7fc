//! Mistakes in the invocation, each with its message: the ETF modes' as
//! SPEC §5 gives them, and the commands' (clap finds those; they are
//! printed here, in the same shape: `Error: ...`, then where to read more).

use clap::error::{ContextKind, ContextValue, ErrorKind};

pub(crate) use tictac_run::windowed::WindowError;

/// A mistake in the invocation; printed with a `Run '... -help'` line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
    /// `-w M N`'s bounds (the pipeline's check, which the web API makes too).
    #[error(transparent)]
    Window(#[from] WindowError),
    #[error("Error: the option '{0}' needs a value")]
    MissingValue(String),
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
    #[error("Error: {0} takes a whole number, not '{1}'")]
    Seed(String, String),
    /// A well-formed number past what the option takes.
    #[error("Error: {0} takes at most {1}, not '{2}'")]
    TooLarge(String, &'static str, String),
    /// A well-formed number below what the option takes.
    #[error("Error: {0} takes at least {1}, not '{2}'")]
    TooSmall(String, &'static str, String),
    #[error("Error: {0} takes a positive whole number, not '{1}'")]
    Count(String, String),
    #[error("Error: {0} takes a positive number of seconds, not '{1}'")]
    Seconds(String, String),
    #[error("Error: {0} takes a command to run, not '{1}'")]
    NoCommand(String, String),
    #[error("Error: {0} cannot be split into words, '{1}': {2}")]
    BadCommand(String, String, String),
    /// The first word of `--program` or `--oracle` names nothing that runs.
    #[error("Error: {0} cannot run '{1}': {2}")]
    CannotRun(&'static str, String, String),
    /// The first word of `--program` names a file the user it runs as
    /// (`--user`) cannot run: the reason names it, and where it was found.
    #[error("Error: {0}: {1}")]
    NotRunnableAs(&'static str, String),
    #[error("Error: {0} '{1}': {2}")]
    User(String, String, String),
    #[error("Error: --port takes a port number from 0 to 65535, not '{0}'")]
    Port(String),
    #[error("Error: --bind takes an IP address such as 127.0.0.1 or 0.0.0.0, not '{0}'")]
    Bind(String),
    #[error(
        "Error: --allow-host takes a host name such as mybox.local or an IP address, not '{0}'"
    )]
    AllowHost(String),
    #[error("Error: unknown behaviour '{0}' (tictac test --coverage lists them)")]
    BadBehaviour(String),
    #[error("Error: '{0}' is not a behaviour a '-b' run can show, so fuzz never generates it")]
    NotBatchBehaviour(String),
    #[error(
        "Error: initial-state cannot be excluded: every run prints the initial state first, so every trace shows it"
    )]
    ExcludeInitialState,
    #[error("Error: --bless writes expected files, so it cannot go with --oracle")]
    BlessWithOracle,
    #[error("Error: --build builds the program --program runs, so it needs --program")]
    BuildWithoutProgram,
    /// `--total-time` shorter than the build and one test may take: the
    /// value given, then the least it takes and why.
    #[error("Error: --total-time {0} leaves no time for a test: {1}")]
    NoTimeForATest(String, String),
    #[error(
        "Error: --coverage measures the engine's behaviours, running no program, so it cannot go with {0}"
    )]
    CoverageWith(&'static str),
    #[error(
        "Error: grade needs the suite and at least one student's folder (with --course, the folders alone)"
    )]
    NoSubmissions,
    /// The PATH, and the hint when it may be the program's own argument.
    #[error("Error: --course runs the built-in course suite, so it takes no PATH (not '{0}'){1}")]
    CourseWithPath(String, String),
    /// A file named as a PATH that is no trace, after a one-word program:
    /// the program's own argument, its command left unquoted.
    #[error("Error: '{0}' is not a trace{1}")]
    NotATrace(String, String),
    #[error("Error: --course runs the built-in course suite, which {0} cannot change")]
    CourseWith(&'static str),
    #[error("Error: verify needs both --strategy and --as to check one strategy")]
    VerifyNeedsBoth,
    /// An option (or an argument) the command does not have.
    #[error("Error: unknown option '{0}' for the '{1}' mode")]
    UnknownOption(String, String),
    #[error("Error: unexpected argument '{0}' for the '{1}' mode")]
    UnexpectedArgument(String, String),
    /// A value outside a fixed set (`--format`, `--as`, `--strategy`).
    #[error("Error: {0} takes {1}, not '{2}'")]
    NotOneOf(String, String, String),
    #[error("Error: {0} needs {1}")]
    Needs(String, String),
    #[error("Error: an argument of the '{0}' mode is not UTF-8 text")]
    NotUtf8(String),
    /// What clap said, for a mistake none of the above describes.
    #[error("Error: {0}")]
    Other(String),
    /// A mistake in a command's options (`tictac test ...`): its own help is
    /// the one to read, and a near miss gets a suggestion.
    #[error("{error}")]
    InCommand { command: String, error: Box<UsageError>, tip: Option<String> },
}

impl UsageError {
    /// The message as the executable prints it, `program` being its name:
    /// the mistake, then where to read more, then a suggestion if any.
    pub(crate) fn with_hint(&self, program: &str) -> String {
        match self {
            UsageError::InCommand { command, error, tip } => {
                let mut text =
                    format!("{error}\nRun '{program} {command} --help' to see more details");
                if let Some(tip) = tip {
                    text.push_str(&format!("\n{tip}"));
                }
                text
            }
            _ => format!("{self}\nRun '{program} -help' to see more details"),
        }
    }

    /// This mistake, made in `command`'s options.
    pub(super) fn in_command(self, command: String) -> UsageError {
        UsageError::InCommand { command, error: Box::new(self), tip: None }
    }

    /// What clap found wrong in `command`'s options, in this shape. A
    /// value a check refused carries that check's own error.
    pub(super) fn from_clap(e: &clap::Error, command: String) -> UsageError {
        let string = |kind| match e.get(kind) {
            Some(ContextValue::String(s)) => s.clone(),
            Some(ContextValue::Strings(s)) => s.join(", "),
            _ => String::new(),
        };
        // "--jobs <N>" names the option "--jobs".
        let option = || string(ContextKind::InvalidArg).split(' ').next().unwrap_or("").to_string();
        let error = match e.kind() {
            ErrorKind::ValueValidation => {
                match std::error::Error::source(e).and_then(|s| s.downcast_ref::<UsageError>()) {
                    Some(checked) => checked.clone(),
                    None => UsageError::Other(first_line(e)),
                }
            }
            ErrorKind::UnknownArgument => {
                let arg = string(ContextKind::InvalidArg);
                if arg.starts_with('-') && arg.len() > 1 {
                    UsageError::UnknownOption(arg, command.clone())
                } else {
                    UsageError::UnexpectedArgument(arg, command.clone())
                }
            }
            ErrorKind::InvalidValue if string(ContextKind::InvalidValue).is_empty() => {
                UsageError::MissingValue(option())
            }
            ErrorKind::InvalidValue => {
                let valid = match e.get(ContextKind::ValidValue) {
                    Some(ContextValue::Strings(s)) => one_of(s),
                    _ => String::new(),
                };
                UsageError::NotOneOf(option(), valid, string(ContextKind::InvalidValue))
            }
            ErrorKind::MissingRequiredArgument => {
                UsageError::Needs(command.clone(), string(ContextKind::InvalidArg))
            }
            ErrorKind::InvalidUtf8 => UsageError::NotUtf8(command.clone()),
            _ => UsageError::Other(first_line(e)),
        };
        UsageError::InCommand { command, error: Box::new(error), tip: tip(e) }
    }
}

/// "tla, elm, perfect or random"
fn one_of(names: &[String]) -> String {
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Clap's own message, its first line without its `error: `.
fn first_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let line = text.lines().next().unwrap_or("");
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

/// A suggestion clap made: a near miss of an option or a value, or how to
/// pass an argument that looks like an option.
fn tip(e: &clap::Error) -> Option<String> {
    match (e.get(ContextKind::SuggestedArg), e.get(ContextKind::SuggestedValue)) {
        (Some(ContextValue::String(s)), _) | (_, Some(ContextValue::String(s))) => {
            Some(format!("Did you mean '{s}'?"))
        }
        _ => match e.get(ContextKind::Suggested) {
            Some(ContextValue::StyledStrs(s)) if !s.is_empty() => {
                let all: Vec<String> = s.iter().map(ToString::to_string).collect();
                Some(format!("tip: {}", all.join("; ")))
            }
            _ => None,
        },
    }
}
