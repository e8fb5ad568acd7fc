//! The command pattern's operation: it executes itself, and what it leaves
//! in the history undoes and redoes it.

use super::Op;
use crate::game::Game;
use crate::game::rules::Change;

/// One command. `execute` remembers what `kept` needs; `kept` is what the
/// history holds of it: small, `Copy`, never a name.
pub(crate) trait Operation {
    /// Runs the command on the game and says what it did to the round.
    fn execute(&mut self, game: &mut Game) -> Change;

    /// What the history keeps of the command once it ran inside a round
    /// (it did not start one): enough to undo and redo it.
    fn kept(&self) -> Op;
}
