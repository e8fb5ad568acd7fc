//! One model and its history: runs a command and reports the state.
//! Every front end drives the game through this type.

use crate::behaviour::{self, Behaviour, Coverage};
use crate::command::Command;
use crate::game::rules::Change;
use crate::game::{Game, Message, Phase};
use crate::history::{History, NewGameOp, Operation, PlayAgainOp, PlayOp};

/// The ETF "singleton": the game and the history of its current round,
/// and the behaviours (see `behaviour`) its commands showed.
pub struct Engine {
    game: Game,
    history: History,
    last: Behaviour,
    seen: Coverage,
    /// Whether `run` notes behaviours (a run that only prints skips them).
    noting: bool,
}

impl Default for Engine {
    fn default() -> Self {
        let mut seen = Coverage::default();
        seen.insert(Behaviour::InitialState);
        Engine {
            game: Game::default(),
            history: History::default(),
            last: Behaviour::InitialState,
            seen,
            noting: true,
        }
    }
}

impl Engine {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// The behaviour the last command showed (`initial-state` before any).
    pub fn last(&self) -> Behaviour {
        self.last
    }

    /// Every behaviour shown so far, the initial state included.
    pub fn seen(&self) -> Coverage {
        self.seen
    }

    /// From now on `run` notes no behaviours: `last` and `seen` stay.
    pub fn skip_behaviours(&mut self) {
        self.noting = false;
    }

    /// Runs one command, noting the behaviour it showed.
    pub fn run(&mut self, command: &Command) {
        let before = self.game.state;
        let walked = match *command {
            Command::Undo => self.walk(History::undo),
            Command::Redo => self.walk(History::redo),
            Command::NewGame { player1, player2 } => self.perform(NewGameOp::new(player1, player2)),
            Command::Play { player, press } => {
                self.perform(PlayOp::new(self.game.mark_of(player), press))
            }
            Command::PlayAgain => self.perform(PlayAgainOp::default()),
        };
        if self.noting {
            self.last = behaviour::of_command(command, &before, &self.game, walked);
            self.seen.insert(self.last);
        }
    }

    /// Executes an operation; keeps what undo and redo need of it when it
    /// was given in play and did not start a round. False: no walk.
    fn perform(&mut self, mut op: impl Operation) -> bool {
        let in_play = self.game.state.phase == Phase::InPlay;
        match op.execute(&mut self.game) {
            Change::NewRound => self.history.clear(),
            Change::Moved | Change::Rejected if in_play => self.history.record(op.kept()),
            Change::Moved | Change::Rejected => {}
        }
        false
    }

    /// Undo or redo. A finished round keeps everything, its message
    /// included (the 2019 oracle); before any game, or in play with nothing
    /// to walk to, only the message changes, to `ok`. True when the cursor
    /// moved.
    fn walk(&mut self, step: fn(&mut History, &mut Game) -> bool) -> bool {
        let moved = match self.game.state.phase {
            Phase::Over => return false,
            Phase::NoGame => false,
            Phase::InPlay => step(&mut self.history, &mut self.game),
        };
        if !moved {
            self.game.state.message = Message::Ok;
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Cell;
    use crate::game::view::render;

    fn play(who: &'static str, n: u8) -> Command<'static> {
        Command::Play { player: who.as_bytes(), press: Cell::new(n).expect("cell") }
    }

    fn shown(e: &Engine) -> String {
        String::from_utf8(render(e.game())).expect("utf8")
    }

    fn first_line(e: &Engine) -> String {
        shown(e).lines().next().unwrap_or_default().to_string()
    }

    // The spec's undo/redo example and an undo that brings back an error
    // message: acceptance/course/07 and 08, byte for byte.
    #[test]
    fn nothing_is_recorded_outside_play_and_a_finished_game_stays() {
        let mut e = Engine::new();
        e.run(&play("Ann", 1));
        assert_eq!(e.history().undoable(), 0);
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
        for (who, n) in [("Ann", 1), ("Bob", 4), ("Ann", 2), ("Bob", 5), ("Ann", 3)] {
            e.run(&play(who, n));
        }
        assert_eq!(e.game().state.phase, Phase::Over);
        e.run(&Command::Undo);
        assert_eq!(first_line(&e), "  there is a winner: => play again or start new game");
        e.run(&play("Bob", 9));
        e.run(&Command::Undo);
        assert_eq!(first_line(&e), "  game is finished: => play again or start new game");
        e.run(&Command::Redo);
        assert_eq!(first_line(&e), "  game is finished: => play again or start new game");
        assert!(shown(&e).contains("\n  XXX\n"));
        e.run(&Command::PlayAgain);
        assert_eq!(e.history().undoable(), 0);
        assert_eq!(first_line(&e), "  ok: => Bob plays next");
        e.run(&Command::Undo);
        assert_eq!(first_line(&e), "  ok: => Bob plays next");
    }

    #[test]
    fn a_tie_keeps_its_message_through_undo_and_redo() {
        let mut e = Engine::new();
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
        for (i, n) in [1, 2, 3, 5, 4, 6, 8, 7, 9].into_iter().enumerate() {
            e.run(&play(if i % 2 == 0 { "Ann" } else { "Bob" }, n));
        }
        let tie = "  game ended in a tie: => play again or start new game";
        assert_eq!(first_line(&e), tie);
        let board = shown(&e);
        for walk in [Command::Undo, Command::Redo, Command::Undo] {
            e.run(&walk);
            assert_eq!(shown(&e), board);
        }
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Ann" });
        e.run(&Command::Undo);
        assert_eq!(
            first_line(&e),
            "  names of players must be different: => play again or start new game"
        );
    }

    #[test]
    fn play_again_before_any_game_answers_ok() {
        let mut e = Engine::new();
        e.run(&Command::NewGame { player1: b"Ann", player2: b"1x" });
        assert_eq!(first_line(&e), "  name must start with A-Z or a-z:  => start new game");
        e.run(&Command::PlayAgain);
        assert_eq!(first_line(&e), "  ok:  => start new game");
        assert_eq!(e.game().state.phase, Phase::NoGame);
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
        e.run(&Command::PlayAgain);
        assert_eq!(first_line(&e), "  finish this game first: => Ann plays next");
    }

    #[test]
    fn the_engine_notes_each_behaviour() {
        let mut e = Engine::new();
        assert_eq!(e.last(), Behaviour::InitialState);
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
        e.run(&play("Bob", 1));
        assert_eq!(e.last(), Behaviour::PlayWrongTurn);
        e.run(&Command::Undo);
        assert_eq!(e.last(), Behaviour::UndoError);
        let seen: Vec<_> = e.seen().iter().collect();
        assert_eq!(
            seen,
            [
                Behaviour::InitialState,
                Behaviour::NewGameFirst,
                Behaviour::PlayWrongTurn,
                Behaviour::UndoError
            ]
        );
    }

    #[test]
    fn failed_new_game_and_play_again_in_play_are_undoable() {
        let mut e = Engine::new();
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Bob" });
        e.run(&Command::NewGame { player1: b"Ann", player2: b"Ann" });
        e.run(&Command::PlayAgain);
        assert_eq!(e.history().undoable(), 2);
        e.run(&Command::Undo);
        assert_eq!(first_line(&e), "  names of players must be different: => Ann plays next");
        e.run(&Command::NewGame { player1: b"Cy", player2: b"Di" });
        assert_eq!(e.history().undoable(), 0);
        assert_eq!(first_line(&e), "  ok: => Cy plays next");
    }
}
