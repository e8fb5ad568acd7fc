//! The engine's calls as the pages make them (`tictac.engine(call,
//! request)` in src/serve/assets/common.js): `run` and `state`, their JSON
//! read strictly and answered as `tictac serve`'s API answers them
//! (docs/guide/serve.md), the trace given apart as bytes so that a file runs
//! byte for byte. The requests' vocabulary (`RunRequest`, `StateRequest`:
//! their fields, what goes together, the bots) is defined here once:
//! `tictac serve` reads its requests with it too (`src/serve/request.rs`).
//! What the command line refuses is refused in its words; `tests/it/site.rs`
//! asks both and compares.

use std::collections::HashSet;
use std::fmt;
use std::io;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use tictac_core::bots::{Autopilot, Bot, Strategy};
use tictac_core::window::WindowEnd;
use tictac_run::status::{Status, WriteError};
use tictac_run::{Input, Job, RunError, run_input, windowed};

use crate::state;

/// Bytes a transcript may reach: past it the call stops and is refused,
/// rather than the browser's tab growing without bound (a trace of 16 MiB
/// of `undo` prints 1.6 GB). The command line has no such bound.
pub const OUTPUT_LIMIT: usize = 64 << 20;

/// What a call answers: its JSON, and for `run` the bytes printed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// False when the request was refused: `json` is then `{"error": ...}`.
    pub ok: bool,
    pub json: Vec<u8>,
    pub output: Vec<u8>,
}

impl Answer {
    /// A refused request: `{"error": ...}`.
    pub fn refusal(error: String) -> Answer {
        Answer { ok: false, json: json(&Refused { error }), output: Vec::new() }
    }

    /// The JSON (0) or the bytes printed (1).
    pub fn part(&self, which: u32) -> &[u8] {
        if which == 1 { &self.output } else { &self.json }
    }
}

/// The calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Run,
    State,
    Version,
}

impl Call {
    /// The call numbered `n` in the module's exports (engine.js's `KINDS`).
    pub fn numbered(n: u32) -> Option<Call> {
        [Call::Run, Call::State, Call::Version].get(usize::try_from(n).ok()?).copied()
    }
}

/// Answers `call` with `request` (its JSON, without the trace) on `trace`.
pub fn answer(call: Call, request: &[u8], trace: &[u8]) -> Answer {
    answer_within(call, request, trace, OUTPUT_LIMIT)
}

/// `answer`, a transcript bounded by `limit` bytes.
fn answer_within(call: Call, request: &[u8], trace: &[u8], limit: usize) -> Answer {
    let answered = match call {
        Call::Run => run(request, trace, limit),
        Call::State => state(request, trace, limit),
        Call::Version => Ok(reply(&Version { version: env!("CARGO_PKG_VERSION") }, Vec::new())),
    };
    answered.unwrap_or_else(Answer::refusal)
}

/// A transcript that refuses to grow past its limit: the run stops there.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

/// The error a `Capped` gives once full.
#[derive(Debug)]
struct TooLong;

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the transcript is too long")
    }
}

impl std::error::Error for TooLong {}

impl Capped {
    fn new(limit: usize) -> Capped {
        Capped { bytes: Vec::new(), limit }
    }
}

impl io::Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + data.len() > self.limit {
            return Err(io::Error::other(TooLong));
        }
        self.bytes.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl From<Capped> for Vec<u8> {
    fn from(capped: Capped) -> Vec<u8> {
        capped.bytes
    }
}

#[derive(Serialize)]
struct Version {
    version: &'static str,
}

#[derive(Serialize)]
struct Refused {
    error: String,
}

#[derive(Serialize)]
struct RunReply {
    status: u8,
    /// What the command line writes on standard error (a trace saved with
    /// a byte order mark or as UTF-16: how to save it as plain UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    stderr: Option<String>,
}

fn reply<T: Serialize>(value: &T, output: Vec<u8>) -> Answer {
    Answer { ok: true, json: json(value), output }
}

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    // Plain structs of strings and numbers always serialise.
    serde_json::to_vec(value).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}").into_bytes())
}

/// `run`: `{mode, start, end, bots, seed}` as `POST /api/run` takes them,
/// with the `trace` there (the site gives it apart, as bytes).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    #[serde(default)]
    pub trace: Option<String>,
    #[serde(default)]
    mode: ModeName,
    start: Option<Value>,
    end: Option<Value>,
    #[serde(default, deserialize_with = "bot_list")]
    bots: Vec<(String, String)>,
    seed: Option<u64>,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum ModeName {
    #[default]
    B,
    Chunks,
    Window,
}

/// `state`: `{bots, seed}` as `POST /api/state` takes them, with the
/// `trace` there (the site gives it apart, as bytes).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateRequest {
    #[serde(default)]
    pub trace: Option<String>,
    #[serde(default, deserialize_with = "bot_list")]
    bots: Vec<(String, String)>,
    seed: Option<u64>,
}

/// Reads a request's JSON as `T`, strictly (unknown fields, values and
/// types are refused, saying which). A request is an object of named
/// fields: an array, which serde would read by position, is refused.
pub fn parse<'a, T: Deserialize<'a>>(request: &'a [u8]) -> Result<T, String> {
    let first = request.iter().find(|b| !b.is_ascii_whitespace());
    if first.is_some_and(|&b| b != b'{') {
        return Err(
            r#"invalid request: a request is a JSON object of named fields ({"trace": ...})"#
                .into(),
        );
    }
    serde_json::from_slice(request).map_err(|e| format!("invalid request: {e}"))
}

/// The site's trace comes apart from the JSON, as bytes.
fn apart(trace: Option<&String>) -> Result<(), String> {
    match trace {
        Some(_) => Err("invalid request: the trace goes apart from the JSON, as bytes".into()),
        None => Ok(()),
    }
}

fn run(request: &[u8], trace: &[u8], limit: usize) -> Result<Answer, String> {
    let request: RunRequest = parse(request)?;
    apart(request.trace.as_ref())?;
    let (job, autopilot) = request.mode()?;
    let mut output = Capped::new(limit);
    let input = Input::memory(trace);
    let stderr = input.hint().map(|hint| hint + "\n");
    let status = match run_input(job, input, &mut output, autopilot) {
        Ok(status) => status,
        Err(RunError::Write(WriteError::Failed(e))) => return Err(failed(e, limit)),
        Err(e) => return Ok(refused(job, output.bytes, &e, stderr)),
    };
    Ok(reply(&RunReply { status: status.code(), stderr }, output.bytes))
}

/// A trace the command line refuses to go on with (an event over 1 MiB):
/// as it shows it, what it printed before (a window streams; with
/// `-b IN OUT`, which then makes no OUT, nothing), its message on standard
/// error after the encoding's hint (SPEC §5), and exit status 2.
fn refused(job: Job, printed: Vec<u8>, e: &RunError, stderr: Option<String>) -> Answer {
    let shown = if job == Job::Chunks { Vec::new() } else { printed };
    let said = format!("{}{e}\n", stderr.unwrap_or_default());
    reply(&RunReply { status: Status::Error.code(), stderr: Some(said) }, shown)
}

fn state(request: &[u8], trace: &[u8], limit: usize) -> Result<Answer, String> {
    let request: StateRequest = parse(request)?;
    apart(request.trace.as_ref())?;
    let autopilot = request.autopilot()?;
    let answered =
        state::after(trace, autopilot, Capped::new(limit)).map_err(|e| failed(e, limit))?;
    let json = match answered {
        Ok(state) => {
            let large =
                [("trace", state.trace.as_str()), ("transcript", state.transcript.as_str())];
            json_with(&state, &large)
        }
        Err(rejected) => json_with(&rejected, &[("error", rejected.error.as_str())]),
    };
    Ok(Answer { ok: true, json, output: Vec::new() })
}

/// `value`'s JSON object with the `large` fields after its own, as the
/// server sends them.
fn json_with<T: Serialize>(value: &T, large: &[(&str, &str)]) -> Vec<u8> {
    let mut object = match serde_json::to_value(value) {
        Ok(Value::Object(object)) => object,
        _ => serde_json::Map::new(),
    };
    for (name, text) in large {
        object.insert((*name).to_string(), Value::from(*text));
    }
    json(&object)
}

/// Why a run stopped: its transcript's bound, or (never in memory) an error.
fn failed(e: io::Error, limit: usize) -> String {
    if e.get_ref().is_some_and(|e| e.is::<TooLong>()) {
        return format!(
            "the transcript is over {} MiB, more than this page holds: run the trace with tictac -b",
            limit >> 20
        );
    }
    format!("the engine could not run the trace: {e}")
}

impl RunRequest {
    /// The mode and the bots, or why this combination is refused (as the
    /// command line refuses it).
    pub fn mode(&self) -> Result<(Job, Autopilot), String> {
        let windowed = self.start.is_some() || self.end.is_some();
        let mode = match self.mode {
            ModeName::B | ModeName::Chunks if windowed => {
                return Err("\"start\" and \"end\" go with the window mode only".into());
            }
            ModeName::B => Job::Whole,
            ModeName::Chunks => Job::Chunks,
            ModeName::Window => {
                let (Some(start), Some(end)) = (&self.start, &self.end) else {
                    return Err("the window mode needs \"start\" and \"end\"".into());
                };
                let window = window(start, end)?;
                if !self.bots.is_empty() || self.seed.is_some() {
                    return Err(
                        "bots play in the b and chunks modes only (as --bot goes with -b)".into()
                    );
                }
                Job::Window(window)
            }
        };
        Ok((mode, autopilot(&self.bots, self.seed)?))
    }
}

impl StateRequest {
    /// The bots, or why they are refused (as the command line refuses them).
    pub fn autopilot(&self) -> Result<Autopilot, String> {
        autopilot(&self.bots, self.seed)
    }
}

/// A window's bounds as `-w M N` takes them (the pipeline's one check),
/// or the command line's words.
fn window(start: &Value, end: &Value) -> Result<tictac_core::window::Window, String> {
    let end = match end {
        Value::String(s) if s == "_" => Some(WindowEnd::Unbounded),
        _ => integer(end).map(WindowEnd::Line),
    };
    windowed::checked(integer(start), end).map_err(|e| e.to_string())
}

/// A window bound: a JSON number that is a 32-bit integer, as `-w` takes.
fn integer(value: &Value) -> Option<i32> {
    value.as_i64().and_then(|n| i32::try_from(n).ok())
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
fn autopilot(bots: &[(String, String)], seed: Option<u64>) -> Result<Autopilot, String> {
    if seed.is_some() && bots.is_empty() {
        return Err("\"seed\" chooses the bots' moves: give it with bots".into());
    }
    let mut names = HashSet::new();
    if let Some((name, _)) = bots.iter().find(|(name, _)| !names.insert(name)) {
        return Err(format!("Error: two bots are named '{name}'"));
    }
    let bots = bots
        .iter()
        .map(|(name, strategy)| {
            let strategy = Strategy::from_name(strategy).ok_or_else(|| {
                format!(
                    "unknown strategy '{strategy}' for the bot '{name}' (tla, elm, perfect or random)"
                )
            })?;
            Ok(Bot { name: name.as_bytes().to_vec(), strategy })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if let Some(bot) = bots.iter().find(|b| !b.name.first().is_some_and(u8::is_ascii_alphabetic)) {
        return Err(format!(
            "Error: the bot name '{}' can never play: names start with A-Z or a-z",
            String::from_utf8_lossy(&bot.name)
        ));
    }
    Ok(Autopilot::new(bots, seed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One vocabulary for the server and the site: the server's requests
    /// hold their trace; the site's go without it (its bytes come apart).
    #[test]
    fn the_servers_requests_hold_the_trace_and_the_sites_do_not() {
        let request: RunRequest =
            parse(br#"{"trace": "undo\n", "mode": "window", "start": 1, "end": "_"}"#)
                .expect("the server's form");
        assert_eq!(request.trace.as_deref(), Some("undo\n"));
        let (mode, _) = request.mode().expect("a window");
        let window = tictac_core::window::Window { start: 1, end: WindowEnd::Unbounded };
        assert_eq!(mode, Job::Window(window));
        let state: StateRequest =
            parse(br#"{"trace": "", "bots": {"Hal": "elm"}}"#).expect("state");
        assert_eq!(state.trace.as_deref(), Some(""));
        assert!(state.autopilot().is_ok());
        for call in [Call::Run, Call::State] {
            let answer = answer(call, br#"{"trace": "undo"}"#, b"undo\n");
            let json = String::from_utf8_lossy(&answer.json).into_owned();
            assert!(!answer.ok && json.contains("the trace goes apart from the JSON"), "{json}");
        }
        assert!(answer(Call::Run, b"{}", b"undo\n").ok);
    }

    /// An array, which serde reads by position, is no request (attack 40's E4).
    #[test]
    fn a_request_is_an_object_never_an_array() {
        let object = "a request is a JSON object of named fields";
        for body in [&br#"["undo","b",null,null,{},null]"#[..], b" []", b"[\"undo\"]", b"3"] {
            let run = parse::<RunRequest>(body).map(|_| ()).expect_err("an array");
            assert!(run.contains(object), "{run}");
            let state = parse::<StateRequest>(body).map(|_| ()).expect_err("an array");
            assert!(state.contains(object), "{state}");
        }
        assert!(parse::<RunRequest>(b" {\"trace\": \"undo\"}").is_ok());
    }

    #[test]
    fn a_transcript_past_its_bound_stops_the_run_and_says_so() {
        let trace = "undo\n".repeat(30_000);
        let limit = 1 << 20;
        for call in [Call::Run, Call::State] {
            let answer = answer_within(call, b"{}", trace.as_bytes(), limit);
            assert!(!answer.ok && answer.output.is_empty());
            let json = String::from_utf8_lossy(&answer.json).into_owned();
            assert!(
                json.contains("over 1 MiB") && json.contains("run the trace with tictac -b"),
                "{json}"
            );
        }
        assert!(answer_within(Call::Run, b"{}", trace.as_bytes(), 4 << 20).ok);
    }
}
