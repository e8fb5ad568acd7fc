//! The undo/redo history of the ETF design (after OOSC2): a list of
//! executed operations with a cursor. It knows nothing of particular
//! operations, so a new command needs no change here. Each entry is a
//! small `Copy` value with no names (`Op`), so a round of any length costs
//! a few bytes a command.

mod ops;

pub use ops::{NewGameOp, Op, PlayAgainOp, PlayOp};

use crate::game::Game;
use crate::game::rules::Change;

/// One command, the command pattern's operation: `execute` runs it and
/// remembers what `kept` needs; `kept` is what the history holds of it
/// (small, `Copy`, never a name), which undoes and redoes it.
pub(crate) trait Operation {
    /// Runs the command on the game and says what it did to the round.
    fn execute(&mut self, game: &mut Game) -> Change;

    /// What the history keeps of the command once it ran inside a round
    /// (it did not start one): enough to undo and redo it.
    fn kept(&self) -> Op;
}

/// Operations executed in the current round; those before `cursor` are done,
/// those after it were undone and may be redone.
#[derive(Default)]
pub struct History {
    ops: Vec<Op>,
    cursor: usize,
}

impl History {
    /// Forgets everything (a new round starts).
    pub(crate) fn clear(&mut self) {
        self.ops.clear();
        self.cursor = 0;
    }

    /// Keeps an executed operation at the cursor, dropping what was undone.
    pub(crate) fn record(&mut self, op: Op) {
        self.ops.truncate(self.cursor);
        self.ops.push(op);
        self.cursor += 1;
    }

    /// Undoes the operation before the cursor; false when there is none.
    pub(crate) fn undo(&mut self, game: &mut Game) -> bool {
        let Some(prev) = self.cursor.checked_sub(1) else {
            return false;
        };
        self.ops[prev].undo(game);
        self.cursor = prev;
        true
    }

    /// Executes again the operation after the cursor; false when there is none.
    pub(crate) fn redo(&mut self, game: &mut Game) -> bool {
        let Some(op) = self.ops.get_mut(self.cursor) else {
            return false;
        };
        op.redo(game);
        self.cursor += 1;
        true
    }

    /// The operations of the round: done before the cursor, undone after it.
    pub fn entries(&self) -> &[Op] {
        &self.ops
    }

    /// How many operations are done and can be undone.
    pub fn undoable(&self) -> usize {
        self.cursor
    }

    /// How many undone operations can be redone.
    pub fn redoable(&self) -> usize {
        self.ops.len() - self.cursor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Cell, Message};

    fn play(game: &mut Game, history: &mut History, who: &[u8], n: u8) {
        let mut op = PlayOp::new(game.mark_of(who), Cell::new(n).expect("cell"));
        op.execute(game);
        history.record(op.kept());
    }

    #[test]
    fn undo_and_redo_walk_the_cursor_and_a_record_drops_what_was_undone() {
        let mut g = Game::default();
        g.new_game(b"Ann", b"Bob");
        let start = g.clone();
        let mut h = History::default();
        assert!(!h.undo(&mut g));
        play(&mut g, &mut h, b"Ann", 1);
        let after_one = g.clone();
        play(&mut g, &mut h, b"Ann", 2);
        assert_eq!(g.state.message, Message::NotThisPlayersTurn);
        assert!(h.undo(&mut g));
        assert_eq!(g, after_one);
        assert!(h.undo(&mut g));
        assert_eq!(g, start);
        assert!(!h.undo(&mut g));
        assert_eq!((h.undoable(), h.redoable()), (0, 2));
        assert!(h.redo(&mut g));
        assert_eq!(g, after_one);
        assert!(h.redo(&mut g));
        assert_eq!(g.state.message, Message::NotThisPlayersTurn);
        assert!(!h.redo(&mut g));
        // What is recorded after an undo takes the place of what was undone.
        assert!(h.undo(&mut g) && h.undo(&mut g));
        play(&mut g, &mut h, b"Ann", 9);
        assert_eq!((h.undoable(), h.redoable(), h.redo(&mut g)), (1, 0, false));
        h.clear();
        assert_eq!((h.undoable(), h.redoable()), (0, 0));
    }
}
