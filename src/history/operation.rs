//! The command pattern's operation: executes itself and undoes itself.

use crate::game::Game;
use crate::game::rules::Step;

/// One recorded command. `execute` must remember whatever `undo` needs to
/// put the game back exactly as `execute` found it.
pub trait Operation {
    /// Runs the command on the game and says what it did to the round.
    fn execute(&mut self, game: &mut Game) -> Step;

    /// Restores the game as it was just before the last `execute`.
    fn undo(&mut self, game: &mut Game);

    /// By default a redo is a new execution on the current state.
    fn redo(&mut self, game: &mut Game) {
        self.execute(game);
    }
}
