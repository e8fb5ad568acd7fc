//! The three recorded operations of the ETF design.
//!
//! Each keeps a copy of what it may change, taken as it executes. A play or
//! play_again only changes the `State` (a small `Copy` value); a new game may
//! also change the names, so it keeps the whole game.

use super::Operation;
use crate::game::rules::Step;
use crate::game::{Cell, Game, State};

/// `new_game(player1, player2)`.
pub struct NewGameOp {
    player1: Box<[u8]>,
    player2: Box<[u8]>,
    before: Option<Game>,
}

impl NewGameOp {
    pub fn new(player1: &[u8], player2: &[u8]) -> Self {
        NewGameOp { player1: player1.into(), player2: player2.into(), before: None }
    }
}

impl Operation for NewGameOp {
    fn execute(&mut self, game: &mut Game) -> Step {
        self.before = Some(game.clone());
        game.new_game(&self.player1, &self.player2)
    }

    fn undo(&mut self, game: &mut Game) {
        if let Some(before) = self.before.take() {
            *game = before;
        }
    }
}

/// A player's name as an operation keeps it: short names (the usual case)
/// inline, without a heap allocation per move.
type Name = smallvec::SmallVec<[u8; 16]>;

/// `play(player, press)`.
pub struct PlayOp {
    player: Name,
    cell: Cell,
    before: Option<State>,
}

impl PlayOp {
    pub fn new(player: &[u8], cell: Cell) -> Self {
        PlayOp { player: Name::from_slice(player), cell, before: None }
    }
}

impl Operation for PlayOp {
    fn execute(&mut self, game: &mut Game) -> Step {
        self.before = Some(game.state);
        game.play(&self.player, self.cell)
    }

    fn undo(&mut self, game: &mut Game) {
        if let Some(before) = self.before.take() {
            game.state = before;
        }
    }
}

/// `play_again`.
#[derive(Default)]
pub struct PlayAgainOp {
    before: Option<State>,
}

impl Operation for PlayAgainOp {
    fn execute(&mut self, game: &mut Game) -> Step {
        self.before = Some(game.state);
        game.play_again()
    }

    fn undo(&mut self, game: &mut Game) {
        if let Some(before) = self.before.take() {
            game.state = before;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Message, Phase};

    #[test]
    fn each_operation_undoes_to_what_it_found() {
        let mut g = Game::default();
        let fresh = g.clone();
        let mut ng = NewGameOp::new(b"Ann", b"Bob");
        assert_eq!(ng.execute(&mut g), Step::NewRound);
        let started = g.clone();
        ng.undo(&mut g);
        assert_eq!(g, fresh);
        ng.redo(&mut g);
        assert_eq!(g, started);

        let mut p = PlayOp::new(b"Ann", Cell::new(3).expect("cell"));
        assert_eq!(p.execute(&mut g), Step::Moved);
        p.undo(&mut g);
        assert_eq!(g, started);

        let mut again = PlayAgainOp::default();
        assert_eq!(again.execute(&mut g), Step::Rejected);
        assert_eq!(g.state.message, Message::FinishThisGameFirst);
        again.undo(&mut g);
        assert_eq!(g, started);
        assert_eq!(g.state.phase, Phase::InPlay);
    }
}
