//! The JSON requests of the API, read strictly (unknown fields, values and
//! types are errors) and turned into what the engine runs.

use std::collections::HashSet;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::error::ApiError;
use crate::bots::{Autopilot, Bot, Strategy};
use crate::cli::{self, Session, UsageError};
use crate::run::Job;
use crate::window::WindowEnd;

/// `POST /api/run`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunRequest {
    pub(crate) trace: String,
    #[serde(default)]
    mode: Mode,
    start: Option<Value>,
    end: Option<Value>,
    #[serde(default, deserialize_with = "bot_list")]
    bots: Vec<(String, String)>,
    seed: Option<u64>,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Mode {
    /// `-b IN`
    #[default]
    B,
    /// `-b IN OUT`
    Chunks,
    /// `-w M N IN` (and `-l`: start -1, end 0)
    Window,
}

/// `POST /api/state`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StateRequest {
    pub(crate) trace: String,
    #[serde(default, deserialize_with = "bot_list")]
    bots: Vec<(String, String)>,
    seed: Option<u64>,
}

/// Reads a request body as JSON of type `T`.
pub(crate) fn parse<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::BadRequest(format!("invalid request: {e}")))
}

impl RunRequest {
    /// The job to run and its bots, or why this combination is refused (as
    /// the command line refuses it).
    pub(crate) fn job(&self) -> Result<(Job, Autopilot), ApiError> {
        let bad = |text: &str| Err(ApiError::BadRequest(text.into()));
        let windowed = self.start.is_some() || self.end.is_some();
        let job = match self.mode {
            Mode::B | Mode::Chunks if windowed => {
                return bad("\"start\" and \"end\" go with the window mode only");
            }
            Mode::B => Job::Whole,
            Mode::Chunks => Job::Chunks,
            Mode::Window => {
                let (Some(start), Some(end)) = (&self.start, &self.end) else {
                    return bad("the window mode needs \"start\" and \"end\"");
                };
                let start = integer(start).ok_or(UsageError::WindowStart);
                let window = start
                    .and_then(|start| cli::check_window(start, window_end(end)?))
                    .map_err(|e| ApiError::BadRequest(e.to_string()))?;
                if !self.bots.is_empty() || self.seed.is_some() {
                    return bad("bots play in the b and chunks modes only (as --bot goes with -b)");
                }
                Job::Window(window)
            }
        };
        Ok((job, autopilot(&self.bots, self.seed)?))
    }
}

impl StateRequest {
    pub(crate) fn autopilot(&self) -> Result<Autopilot, ApiError> {
        autopilot(&self.bots, self.seed)
    }
}

/// A window bound: a JSON number that is a 32-bit integer, as `-w` takes.
fn integer(value: &Value) -> Option<i32> {
    value.as_i64().and_then(|n| i32::try_from(n).ok())
}

/// `"end"`: a whole number (relative to the end when <= 0) or `"_"`; the
/// command line's words when it is neither.
fn window_end(end: &Value) -> Result<WindowEnd, UsageError> {
    match end {
        Value::String(s) if s == "_" => Ok(WindowEnd::Unbounded),
        _ => integer(end).map(WindowEnd::Line).ok_or(UsageError::WindowEnd),
    }
}

/// `"bots"`: the object's members in order, a name given twice included
/// (a map would keep only the last, where the command line refuses both).
fn bot_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, String)>, D::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, String)>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object of bot names and strategies")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(member) = map.next_entry()? {
                members.push(member);
            }
            Ok(members)
        }
    }
    d.deserialize_map(Members)
}

/// `{"NAME": "STRATEGY"}` and the seed, as `--bot NAME=STRATEGY --seed N`.
fn autopilot(bots: &[(String, String)], seed: Option<u64>) -> Result<Autopilot, ApiError> {
    if seed.is_some() && bots.is_empty() {
        return Err(ApiError::BadRequest(
            "\"seed\" chooses the bots' moves: give it with bots".into(),
        ));
    }
    let mut names = HashSet::new();
    if let Some((name, _)) = bots.iter().find(|(name, _)| !names.insert(name)) {
        return Err(ApiError::BadRequest(UsageError::SameBotTwice(name.clone()).to_string()));
    }
    let bots = bots
        .iter()
        .map(|(name, strategy)| {
            let strategy = Strategy::from_name(strategy).ok_or_else(|| {
                ApiError::BadRequest(format!(
                    "unknown strategy '{strategy}' for the bot '{name}' (tla, elm, perfect or random)"
                ))
            })?;
            Ok(Bot { name: name.as_bytes().to_vec(), strategy })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    // What else the command line refuses (a name that can never play), in its words.
    let session = cli::check_bots(Session { bots, seed, ..Session::default() })
        .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    Ok(session.autopilot())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Window;

    fn job(json: &str) -> Result<Job, ApiError> {
        parse::<RunRequest>(json.as_bytes())?.job().map(|(job, _)| job)
    }

    fn refused(json: &str) -> String {
        match job(json) {
            Err(ApiError::BadRequest(message)) => message,
            other => panic!("{json}: {other:?}"),
        }
    }

    #[test]
    fn modes_and_windows() {
        assert_eq!(job(r#"{"trace": ""}"#), Ok(Job::Whole));
        assert_eq!(job(r#"{"trace": "", "mode": "chunks"}"#), Ok(Job::Chunks));
        let w = job(r#"{"trace": "", "mode": "window", "start": -1, "end": 0}"#);
        assert_eq!(w, Ok(Job::Window(Window::LAST)));
        let w = job(r#"{"trace": "", "mode": "window", "start": 2, "end": "_"}"#);
        assert_eq!(w, Ok(Job::Window(Window { start: 2, end: WindowEnd::Unbounded })));
    }

    #[test]
    fn what_is_refused_says_why() {
        assert!(refused(r#"{"trace": "", "mode": "w"}"#).contains("unknown variant `w`"));
        assert!(refused(r#"{"trace": 5}"#).contains("invalid type: integer `5`"));
        assert!(refused(r#"{"trace": "", "x": 1}"#).contains("unknown field `x`"));
        assert!(refused(r#"{"mode": "b"}"#).contains("missing field `trace`"));
        assert!(refused("{").starts_with("invalid request: "));
        assert!(refused(r#"{"trace": "", "start": 1}"#).contains("window mode only"));
        assert!(refused(r#"{"trace": "", "mode": "window", "start": 1}"#).contains("needs"));
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 1, "end": "x"}"#)
                .contains("the end of window is neither")
        );
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 1.5, "end": 2}"#)
                .contains("the start of window is not a valid integer")
        );
        assert!(
            refused(r#"{"trace": "", "mode": "window", "start": 3, "end": 2}"#)
                .contains("start <= end")
        );
        let bots = r#"{"trace": "", "mode": "window", "start": 1, "end": 2, "bots": {"H": "elm"}}"#;
        assert!(refused(bots).contains("bots play in the b and chunks modes only"));
        assert!(
            refused(r#"{"trace": "", "bots": {"Hal": "genius"}}"#)
                .contains("unknown strategy 'genius' for the bot 'Hal'")
        );
        assert!(refused(r#"{"trace": "", "seed": 3}"#).contains("give it with bots"));
        assert!(refused(r#"{"trace": "", "seed": -3, "bots": {}}"#).contains("invalid value"));
        // As the command line refuses `--bot Hal=elm --bot Hal=tla`.
        let twice = r#"{"trace": "", "bots": {"Hal": "elm", "Ann": "tla", "Hal": "tla"}}"#;
        assert_eq!(refused(twice), "Error: two bots are named 'Hal'");
        assert!(refused(r#"{"trace": "", "bots": []}"#).contains("an object of bot names"));
        for name in ["", "1x", " Hal", "_"] {
            let bots = serde_json::json!({"trace": "", "bots": {name: "elm"}}).to_string();
            let said = UsageError::BotCannotPlay(name.into()).to_string();
            assert_eq!(refused(&bots), said);
        }
    }
}
