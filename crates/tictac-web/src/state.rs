//! `state`: the game after a trace, for the game page to draw, as
//! `POST /api/state` answers it (docs/guide/serve.md): the trace is the
//! game's whole record, the bots' moves included, so the bots answer only
//! after its last command (as often as it is their turn; after an
//! `undo`/`redo` they walk on), and their moves are appended to the trace.

use std::io::{self, Write};

use serde::Serialize;
use tictac_core::bots::Autopilot;
use tictac_core::game::view::{banner, message_text, render, write_state};
use tictac_core::game::{Cell, Game, Mark, Phase};
use tictac_core::history::{History, Op};
use tictac_core::lang::source::{KeptLines, LineSource};
use tictac_core::lang::{self, Failure, Rejection};
use tictac_run::{Driver, show_step};

/// A trace that does not validate: the message `-b` prints.
#[derive(Debug, Serialize)]
pub struct Rejected {
    pub status: u8,
    /// Sent after the other fields (see `GameState::trace`).
    #[serde(skip)]
    pub error: String,
}

/// The game after the trace.
#[derive(Debug, Serialize)]
pub struct GameState {
    /// 0: the trace ran (a rejected trace answers `Rejected`).
    pub status: u8,
    /// `start new game`, `x's turn`, `o's turn`, `x won`, `o won`, `cat got it`.
    pub banner: &'static str,
    /// `none` (no game yet), `play` or `over`.
    pub phase: &'static str,
    /// Cells 1 to 9: `X`, `O` or empty.
    pub cells: [&'static str; 9],
    /// The status line as the transcript prints it (`  ok: => Bob plays next`).
    pub status_line: String,
    /// The two score lines, as the transcript prints them.
    pub score_lines: [String; 2],
    /// X's player, then O's.
    pub players: [Player; 2],
    /// Who plays next, in play.
    pub next: Option<String>,
    pub can_undo: bool,
    pub can_redo: bool,
    /// The round's history as the ETF design keeps it: its entries, done
    /// before `cursor` and undone after it; null past `HISTORY_SHOWN`.
    pub history: Option<Vec<HistoryEntry>>,
    pub cursor: usize,
    /// The cells of the winner's lines of three, in order (none before a win).
    pub winning: Vec<u8>,
    /// The trace sent, with the bots' answers appended (one command a line).
    /// The large fields are not serialised with the others: the server
    /// sends them last, escaping them a piece at a time (src/serve/reply.rs);
    /// `api` appends them.
    #[serde(skip)]
    pub trace: String,
    /// What `tictac -b` prints for that trace.
    #[serde(skip)]
    pub transcript: String,
}

/// Entries of a round's history sent at most: only refused commands make
/// more than nine, and a crafted trace could make a reply of megabytes.
pub const HISTORY_SHOWN: usize = 1_000;

/// An entry of the history: a move, or a command the game refused (its message).
#[derive(Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum HistoryEntry {
    Move { mark: &'static str, cell: u8 },
    Refused { refused: &'static str },
}

#[derive(Debug, Serialize)]
pub struct Player {
    pub name: String,
    pub mark: &'static str,
    pub score: u64,
}

/// The state after `trace`, or the message of a trace that does not
/// validate; the transcript is written to `out` on its way into the state
/// (`api` bounds it).
pub fn after<W: Write + Into<Vec<u8>>>(
    trace: &[u8],
    autopilot: Autopilot,
    mut out: W,
) -> io::Result<Result<GameState, Rejected>> {
    let mut commands = 0usize;
    if let Err(rejection) = validate(KeptLines::new(trace), |_| {
        commands += 1;
        Ok(())
    })? {
        rejection.write_to(&mut out)?;
        return Ok(Err(Rejected { status: 1, error: text(out.into()) }));
    }
    let mut driver = Driver::new(autopilot);
    let mut answers = Vec::new();
    write_state(&mut out, driver.engine.game())?;
    let mut k = 0;
    validate(KeptLines::new(trace), |c| {
        k += 1;
        if k < commands {
            driver.engine.run(c);
            return show_step(c, &driver.engine, &mut out);
        }
        let mut person = true;
        driver.act(c, |c, engine| {
            show_step(c, engine, &mut out)?;
            if !std::mem::take(&mut person) {
                c.write_echo(&mut answers)?;
                answers.push(b'\n');
            }
            Ok(())
        })
    })?
    .map_err(|_| io::Error::other("the trace did not validate twice alike"))?;
    let mut trace = text(trace.to_vec());
    if !answers.is_empty() && !trace.is_empty() && !trace.ends_with('\n') {
        trace.push('\n');
    }
    trace.push_str(&text(answers));
    let engine = &driver.engine;
    let in_play = engine.game().state.phase == Phase::InPlay;
    Ok(Ok(GameState {
        can_undo: in_play && engine.history().undoable() > 0,
        can_redo: in_play && engine.history().redoable() > 0,
        history: history(engine.history()),
        cursor: engine.history().undoable(),
        trace,
        transcript: text(out.into()),
        ..view(engine.game())
    }))
}

/// The verdict on the kept lines `lines` gives, `keep` seeing each command
/// while all is well (a trace in memory: read errors are `keep`'s).
fn validate<S: LineSource>(
    lines: S,
    keep: impl FnMut(&tictac_core::command::Command) -> io::Result<()>,
) -> io::Result<Result<(), Rejection>> {
    lang::validate(lines, keep).map_err(|(Failure::Read(e) | Failure::Keep(e))| e)
}

/// The round's history as the page draws it; none past `HISTORY_SHOWN` entries.
pub fn history(history: &History) -> Option<Vec<HistoryEntry>> {
    let entries = history.entries();
    (entries.len() <= HISTORY_SHOWN).then(|| {
        entries
            .iter()
            .map(|op| match *op {
                Op::Move { mark, cell, .. } => {
                    HistoryEntry::Move { mark: letter(mark), cell: cell.number() }
                }
                Op::Failed { shown, .. } => HistoryEntry::Refused { refused: message_text(shown) },
            })
            .collect()
    })
}

fn letter(mark: Mark) -> &'static str {
    if mark == Mark::X { "X" } else { "O" }
}

/// What the page draws of the game itself (the history, the trace and the
/// transcript are the caller's to fill in).
pub fn view(game: &Game) -> GameState {
    let s = &game.state;
    let lines = text(render(game));
    let mut lines = lines.lines().map(String::from);
    let mut line = || lines.next().unwrap_or_default();
    let status_line = line();
    let (_, _, _) = (line(), line(), line());
    let score_lines = [line(), line()];
    let player = |mark: Mark| Player {
        name: text(game.name(mark).to_vec()),
        mark: letter(mark),
        score: s.scores[mark.index()],
    };
    let mut winning: Vec<u8> =
        [Mark::X, Mark::O].into_iter().flat_map(|m| s.board.lines_of(m)).flatten().collect();
    winning.sort_unstable();
    winning.dedup();
    GameState {
        status: 0,
        banner: banner(game),
        phase: match s.phase {
            Phase::NoGame => "none",
            Phase::InPlay => "play",
            Phase::Over => "over",
        },
        cells: Cell::ALL.map(|c| match s.board.get(c) {
            Some(Mark::X) => "X",
            Some(Mark::O) => "O",
            None => "",
        }),
        status_line,
        score_lines,
        players: [player(Mark::X), player(Mark::O)],
        next: (s.phase == Phase::InPlay).then(|| text(game.name(s.next).to_vec())),
        can_undo: false,
        can_redo: false,
        history: Some(Vec::new()),
        cursor: 0,
        winning,
        trace: String::new(),
        transcript: String::new(),
    }
}

/// Bytes as JSON text: UTF-8 whenever the trace was; a stray byte shows
/// as U+FFFD.
pub fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}
