//! The values options take, checked with the messages the command line
//! prints: numbers as people write them, seconds, ports, addresses,
//! behaviours. Shared by the hand-read ETF options (`--seed`) and the
//! commands' description, which reaches them through `Checked`.

use std::ffi::OsStr;
use std::fmt;
use std::net::IpAddr;
use std::time::Duration;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use super::UsageError;
use super::options::{MAX_JOBS, MAX_LINES};
use crate::behaviour::Behaviour;
use crate::platform::command_line;
use crate::platform::process::{self, RunAs};

/// The most seconds `--timeout` and `--time` take (about 31 years): any
/// deadline counted from now can be computed.
const MAX_SECONDS: f64 = 1e9;

/// `u64::MAX`, as the messages give it.
const U64_MAX: &str = "18446744073709551615";

/// A check of one option's value: the option as written (`--timeout`), the
/// value's text.
type Check<T> = fn(&str, &str) -> Result<T, UsageError>;

/// A check as clap's value parser: the option's name comes from its
/// description, the text is read lossily (as the ETF options are), and the
/// `UsageError` travels as the clap error's source, to be printed as it is.
#[derive(Clone, Copy)]
pub(super) struct Checked<T>(pub(super) Check<T>);

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Checked<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let option =
            arg.and_then(clap::Arg::get_long).map_or_else(String::new, |l| format!("--{l}"));
        let check = self.0;
        let text = value.to_string_lossy();
        (move |text: &str| check(&option, text)).parse_ref(cmd, arg, OsStr::new(text.as_ref()))
    }
}

/// One of a fixed set of names (`--strategy`, `--as`): listed in the help
/// and the completions, and a near miss gets a suggestion.
#[derive(Clone, Copy)]
pub(super) struct Choice<T: 'static>(pub(super) &'static [T], pub(super) fn(T) -> &'static str);

impl<T: Copy + Send + Sync + 'static> TypedValueParser for Choice<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let names = self.0.iter().map(|&t| self.1(t));
        let name = PossibleValuesParser::new(names).parse_ref(cmd, arg, value)?;
        // The parser said it is one of them (ignoring case where the option does).
        let found = self.0.iter().copied().find(|&t| self.1(t).eq_ignore_ascii_case(&name));
        Ok(found.unwrap_or(self.0[0]))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|&t| PossibleValue::new(self.1(t)))))
    }
}

/// A number of seconds, as `--timeout` and `--time` take it; shown as
/// written (`10`, `0.25`) in the help's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Seconds(pub(crate) Duration);

impl fmt::Display for Seconds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.as_secs_f64())
    }
}

/// A positive number of seconds, at most `MAX_SECONDS`.
pub(super) fn seconds(option: &str, text: &str) -> Result<Seconds, UsageError> {
    match text.trim().parse::<f64>() {
        Ok(secs) if secs > MAX_SECONDS => {
            Err(UsageError::TooLarge(option.into(), "1000000000 seconds", text.into()))
        }
        Ok(secs) if secs > 0.0 => Ok(Seconds(Duration::from_secs_f64(secs))),
        _ => Err(UsageError::Seconds(option.into(), text.into())),
    }
}

/// The least `--timeout` and `--build-timeout` take: starting a program
/// takes milliseconds, tens of them on a busy machine, so a shorter limit
/// (a typo such as 0.001) would fail every program whatever it does.
const MIN_PROGRAM_SECONDS: f64 = 0.1;

/// A program's time limit: `seconds`, at least `MIN_PROGRAM_SECONDS`.
pub(super) fn program_seconds(option: &str, text: &str) -> Result<Seconds, UsageError> {
    let limit = seconds(option, text)?;
    if limit.0.as_secs_f64() < MIN_PROGRAM_SECONDS {
        return Err(UsageError::TooSmall(
            option.into(),
            "0.1 seconds (starting a program alone can take tens of milliseconds)",
            text.into(),
        ));
    }
    Ok(limit)
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
fn capped_count(option: &str, text: &str, cap: usize) -> Result<usize, UsageError> {
    match whole(text) {
        Whole::Number(0) | Whole::NotANumber => Err(UsageError::Count(option.into(), text.into())),
        Whole::Number(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX).min(cap)),
        Whole::TooLarge => Ok(cap),
    }
}

/// `-j`: tests or runs at once, capped at `MAX_JOBS`.
pub(super) fn jobs(option: &str, text: &str) -> Result<usize, UsageError> {
    capped_count(option, text, MAX_JOBS)
}

/// `--max-lines`, capped at `MAX_LINES`.
pub(super) fn max_lines(option: &str, text: &str) -> Result<usize, UsageError> {
    capped_count(option, text, MAX_LINES)
}

/// A positive `u64` (`--runs`).
pub(super) fn count(option: &str, text: &str) -> Result<u64, UsageError> {
    match whole(text) {
        Whole::Number(n) if n > 0 => Ok(n),
        Whole::TooLarge => Err(UsageError::TooLarge(option.into(), U64_MAX, text.into())),
        _ => Err(UsageError::Count(option.into(), text.into())),
    }
}

/// `--seed`: any `u64`.
pub(super) fn seed(option: &str, text: &str) -> Result<u64, UsageError> {
    match whole(text) {
        Whole::Number(n) => Ok(n),
        Whole::TooLarge => Err(UsageError::TooLarge(option.into(), U64_MAX, text.into())),
        Whole::NotANumber => Err(UsageError::Seed(option.into(), text.into())),
    }
}

/// `--port`: 0 to 65535 (0 picks a free port).
pub(super) fn port(_: &str, text: &str) -> Result<u16, UsageError> {
    text.trim().parse().map_err(|_| UsageError::Port(text.into()))
}

/// `--bind`: an IP address, or `localhost`.
pub(super) fn bind(_: &str, text: &str) -> Result<IpAddr, UsageError> {
    match text.trim() {
        "localhost" => Ok(IpAddr::from([127, 0, 0, 1])),
        a => a.parse().map_err(|_| UsageError::Bind(text.into())),
    }
}

/// `--allow-host NAME`: a host name (letters, digits, `-`, `_`, dots
/// between; any case, a final dot dropped) or an IP address (an IPv6 one
/// with or without brackets), as the `Host` header names it: lower case,
/// without brackets.
pub(super) fn allowed_host(_: &str, text: &str) -> Result<String, UsageError> {
    let refused = || UsageError::AllowHost(text.into());
    let name = text.trim().to_ascii_lowercase();
    let bare = name.strip_prefix('[').and_then(|n| n.strip_suffix(']')).unwrap_or(&name);
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(ip.to_string());
    }
    let name = name.strip_suffix('.').unwrap_or(&name);
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if name.len() > 253 || !name.split('.').all(label) {
        return Err(refused());
    }
    Ok(name.to_string())
}

/// `--exclude ID`: a behaviour fuzz generates, other than the one every
/// trace shows.
pub(super) fn excluded(_: &str, id: &str) -> Result<Behaviour, UsageError> {
    let b = Behaviour::from_id(id.trim()).ok_or_else(|| UsageError::BadBehaviour(id.into()))?;
    if !b.in_batch() {
        return Err(UsageError::NotBatchBehaviour(id.into()));
    }
    if b == Behaviour::InitialState {
        return Err(UsageError::ExcludeInitialState);
    }
    Ok(b)
}

/// A command given as one argument (`"python3 'my dir/ttt.py'"`), split
/// into words as this system's shell would.
#[derive(Clone, Debug)]
pub(super) struct Words(pub(super) Vec<String>);

/// `--program CMD`, `--oracle CMD`: at least one word, quoted as a shell
/// quotes (whether its program exists is checked before the command runs:
/// `super::runnable`).
pub(super) fn command(option: &str, text: &str) -> Result<Words, UsageError> {
    let words = command_line::split(text)
        .map_err(|why| UsageError::BadCommand(option.into(), text.into(), why))?;
    match words.first() {
        None => Err(UsageError::NoCommand(option.into(), text.into())),
        Some(_) => Ok(Words(words)),
    }
}

/// The user programs run as (`--user NAME`): one that exists and is not
/// root; another than this process's only when this process is root.
pub(super) fn user(option: &str, text: &str) -> Result<RunAs, UsageError> {
    let refused = |why| UsageError::User(option.into(), text.into(), why);
    let user = process::lookup(text).map_err(refused)?;
    if !process::is_root() && user.uid != process::own_uid() {
        return Err(refused("only root runs programs as another user".into()));
    }
    Ok(user)
}

/// Text as it is (a name that is not UTF-8 read lossily, as everywhere).
pub(super) fn lossy(_: &str, text: &str) -> Result<String, UsageError> {
    Ok(text.into())
}
