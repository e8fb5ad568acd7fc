//! The game model: plain data and pure rules, no I/O.

pub mod board;
pub mod rules;
pub mod view;

pub use board::Board;
pub use board::{Cell, Mark};

/// Where the match stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No `new_game` has succeeded yet.
    NoGame,
    InPlay,
    /// Won or tied: only `play_again` or `new_game` go on.
    Over,
}

/// The message of the last command; the view holds its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    Ok,
    NamesMustDiffer,
    NameMustStartWithLetter,
    NoSuchPlayer,
    GameIsFinished,
    NotThisPlayersTurn,
    ButtonTaken,
    Winner,
    Tie,
    FinishThisGameFirst,
}

/// Everything a move can change. It is `Copy`, so an operation can keep
/// the state it found and put it back on undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    pub board: Board,
    /// The mark to move next.
    pub next: Mark,
    /// The mark that moved first in this round.
    pub starter: Mark,
    pub phase: Phase,
    pub message: Message,
    /// Scores, indexed by `Mark::index`.
    pub scores: [u64; 2],
}

impl Default for State {
    fn default() -> Self {
        State {
            board: Board::default(),
            next: Mark::X,
            starter: Mark::X,
            phase: Phase::NoGame,
            message: Message::Ok,
            scores: [0, 0],
        }
    }
}

/// The one model of a run: the players' names and the state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Game {
    /// Indexed by `Mark::index`: raw bytes (a trace may hold any bytes).
    pub names: [Vec<u8>; 2],
    pub state: State,
}

impl Game {
    pub fn name(&self, mark: Mark) -> &[u8] {
        &self.names[mark.index()]
    }

    /// The mark of the player with this name, if any.
    pub fn mark_of(&self, player: &[u8]) -> Option<Mark> {
        // A short name is compared byte by byte: no call (names are short).
        let same = |name: &[u8]| match name.len() {
            n if n != player.len() => false,
            ..=16 => name.iter().zip(player).all(|(a, b)| a == b),
            _ => name == player,
        };
        [Mark::X, Mark::O].into_iter().find(|&m| same(self.name(m)))
    }
}
