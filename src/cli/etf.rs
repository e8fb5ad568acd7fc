//! The ETF modes (`-i`, `-g`, `-b`, `-w`, `-l`, `-help`, `-version`), read
//! by hand as ETF executables read them: the first argument is the mode,
//! then a fixed number of arguments, each mistake with SPEC §5's message.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use super::{Invocation, Job, STDOUT, UsageError, values};
use crate::bots::{Autopilot, Bot, Strategy};
use crate::window::{Window, WindowEnd};
use tictac_run::windowed;

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

/// An ETF mode, with the session's options (`--record FILE`, `--bot`,
/// `--seed`) anywhere on the line.
pub(super) fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
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
            session.seed = Some(values::seed("--seed", &n)?);
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
/// (The web API refuses them in the same words.)
pub(crate) fn check_bots(session: Session) -> Result<Session, UsageError> {
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

/// A window as `-w M N` takes it: the numbers read here, checked by the
/// pipeline (`windowed::checked`, the web API's check too).
fn parse_window(start: &OsStr, end: &OsStr) -> Result<Window, UsageError> {
    let end = match end.to_str().map(str::trim) {
        Some("_") => Some(WindowEnd::Unbounded),
        _ => integer(end).map(WindowEnd::Line),
    };
    Ok(windowed::checked(integer(start), end)?)
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
    use super::*;
    use tictac_run::windowed::WindowError;

    fn p(args: &[&str]) -> Result<Invocation, UsageError> {
        super::super::parse(&args.iter().map(OsString::from).collect::<Vec<_>>())
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
        assert_eq!(
            p(&["-b", "t", "--seed", "x"]),
            Err(UsageError::Seed("--seed".into(), "x".into()))
        );
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
    fn window_checks_come_in_order() {
        let wrong = |e| Err(UsageError::Window(e));
        assert_eq!(window("x", "y"), wrong(WindowError::Start));
        assert_eq!(window("1", "y"), wrong(WindowError::End));
        assert_eq!(window("3", "2"), wrong(WindowError::Order));
        assert_eq!(window("0", "2"), wrong(WindowError::Sign));
        assert_eq!(window("2147483648", "_"), wrong(WindowError::Start));
        assert_eq!(window(" +2 ", "_"), Ok(Window { start: 2, end: WindowEnd::Unbounded }));
        assert_eq!(window("-3", "-1"), Ok(Window { start: -3, end: WindowEnd::Line(-1) }));
        assert_eq!(window("1", "+-1"), wrong(WindowError::End));
    }
}
