//! The commands that can be recorded, and what the history keeps of each.
//!
//! Only a play changes more than the message inside a round: `new_game` and
//! `play_again` either start a new round (whose history starts empty) or
//! fail. So the history keeps two kinds of entry, a few bytes each and no
//! names, whatever the command: a move, or a failure (its two messages).

use super::Operation;
use crate::game::rules::Change;
use crate::game::{Cell, Game, Mark, Message};

/// An executed command as the history keeps it; it undoes and redoes itself,
/// restoring exactly the state it found when it last ran (SPEC §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A mark was placed.
    Move { mark: Mark, cell: Cell, found: Message },
    /// The command failed: only the message changed, from `found` to `shown`.
    /// Run again on the state its undo restores, it fails the same way.
    Failed { found: Message, shown: Message },
}

impl Op {
    /// Restores the game as it was just before the command ran.
    pub(crate) fn undo(self, game: &mut Game) {
        match self {
            Op::Move { mark, cell, found } => game.take_back(mark, cell, found),
            Op::Failed { found, .. } => game.state.message = found,
        }
    }

    /// Runs the command again on the state its undo restored. That state
    /// may show another message (a no-op undo or redo sets `ok`): the next
    /// undo restores the one found now.
    pub(crate) fn redo(&mut self, game: &mut Game) {
        match self {
            Op::Move { mark, cell, found } => {
                *found = game.state.message;
                game.play_as(Some(*mark), *cell);
            }
            Op::Failed { found, shown } => {
                *found = game.state.message;
                game.state.message = *shown;
            }
        }
    }
}

/// What every command remembers as it runs: the message it found and the
/// change it made; a failure is kept as such.
#[derive(Clone, Copy, Debug)]
struct Ran {
    found: Message,
    shown: Message,
    change: Change,
}

impl Ran {
    fn new(game: &mut Game, run: impl FnOnce(&mut Game) -> Change) -> Ran {
        let found = game.state.message;
        let change = run(game);
        Ran { found, shown: game.state.message, change }
    }

    fn failed(self) -> Op {
        Op::Failed { found: self.found, shown: self.shown }
    }
}

/// Nothing ran yet: a command kept before it ran would undo to `ok`.
const NOT_RUN: Ran = Ran { found: Message::Ok, shown: Message::Ok, change: Change::Rejected };

/// `new_game(player1, player2)`. The names are borrowed for the run only:
/// a new game that starts is never undone, and one that fails keeps its
/// messages, not its names.
pub struct NewGameOp<'a> {
    names: [&'a [u8]; 2],
    ran: Ran,
}

impl<'a> NewGameOp<'a> {
    pub(crate) fn new(player1: &'a [u8], player2: &'a [u8]) -> Self {
        NewGameOp { names: [player1, player2], ran: NOT_RUN }
    }
}

impl Operation for NewGameOp<'_> {
    fn execute(&mut self, game: &mut Game) -> Change {
        let [p1, p2] = self.names;
        self.ran = Ran::new(game, |g| g.new_game(p1, p2));
        self.ran.change
    }

    fn kept(&self) -> Op {
        self.ran.failed()
    }
}

/// `play(player, press)`, the player found by name as the command comes in
/// (the names do not change within a round).
pub struct PlayOp {
    player: Option<Mark>,
    cell: Cell,
    ran: Ran,
}

impl PlayOp {
    pub(crate) fn new(player: Option<Mark>, cell: Cell) -> Self {
        PlayOp { player, cell, ran: NOT_RUN }
    }
}

impl Operation for PlayOp {
    fn execute(&mut self, game: &mut Game) -> Change {
        let (player, cell) = (self.player, self.cell);
        self.ran = Ran::new(game, |g| g.play_as(player, cell));
        self.ran.change
    }

    fn kept(&self) -> Op {
        match (self.ran.change, self.player) {
            (Change::Moved, Some(mark)) => {
                Op::Move { mark, cell: self.cell, found: self.ran.found }
            }
            _ => self.ran.failed(),
        }
    }
}

/// `play_again`.
pub struct PlayAgainOp {
    ran: Ran,
}

impl Default for PlayAgainOp {
    fn default() -> Self {
        PlayAgainOp { ran: NOT_RUN }
    }
}

impl Operation for PlayAgainOp {
    fn execute(&mut self, game: &mut Game) -> Change {
        self.ran = Ran::new(game, Game::play_again);
        self.ran.change
    }

    fn kept(&self) -> Op {
        self.ran.failed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Phase;

    /// The bound a history entry must keep (docs/RELIABILITY.md: at most 64
    /// bytes a command, with room for the vector's spare capacity).
    const _: () = assert!(size_of::<Op>() <= 4);

    fn kept_after(op: &mut impl Operation, game: &mut Game) -> (Change, Op) {
        let step = op.execute(game);
        (step, op.kept())
    }

    #[test]
    fn what_is_kept_undoes_to_what_the_command_found_and_redoes_it() {
        let mut g = Game::default();
        assert_eq!(NewGameOp::new(b"Ann", b"Bob").execute(&mut g), Change::NewRound);
        let started = g.clone();

        let (step, mut kept) = kept_after(&mut NewGameOp::new(b"Ann", b"Ann"), &mut g);
        assert_eq!(step, Change::Rejected);
        assert_eq!(kept, Op::Failed { found: Message::Ok, shown: Message::NamesMustDiffer });
        let failed = g.clone();
        kept.undo(&mut g);
        assert_eq!(g, started);
        kept.redo(&mut g);
        assert_eq!(g, failed);

        let (step, mut kept) = kept_after(&mut PlayOp::new(Some(Mark::X), Cell::ALL[2]), &mut g);
        assert_eq!(step, Change::Moved);
        let moved = g.clone();
        kept.undo(&mut g);
        assert_eq!(g, failed);
        kept.redo(&mut g);
        assert_eq!(g, moved);

        let (step, kept) = kept_after(&mut PlayAgainOp::default(), &mut g);
        assert_eq!((step, g.state.message), (Change::Rejected, Message::FinishThisGameFirst));
        kept.undo(&mut g);
        assert_eq!(g, moved);
        assert_eq!(g.state.phase, Phase::InPlay);

        // Redone on a state with another message, a move undoes to that one.
        let (_, mut kept) = kept_after(&mut PlayOp::new(Some(Mark::O), Cell::ALL[4]), &mut g);
        kept.undo(&mut g);
        g.state.message = Message::NotThisPlayersTurn;
        let found = g.clone();
        kept.redo(&mut g);
        kept.undo(&mut g);
        assert_eq!(g, found);

        let (_, kept) = kept_after(&mut PlayOp::new(None, Cell::ALL[0]), &mut g);
        let shown = Message::NoSuchPlayer;
        assert_eq!(kept, Op::Failed { found: Message::NotThisPlayersTurn, shown });
    }
}
