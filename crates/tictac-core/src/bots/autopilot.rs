//! Bots in a session: whenever a game is in play and a bot is to move, the
//! program issues its `play` itself. After an `undo` (`redo`) it goes on
//! undoing (redoing) until a person is to move, so a person's undo takes back
//! their own move, as in the Elm game. Every such command goes through the
//! same transcript step as a typed one, so a session's `->` lines replay as
//! a plain trace.

use super::Strategy;
use crate::command::Command;
use crate::engine::Engine;
use crate::game::{Game, Phase};

/// A computer player: the name it plays under and its strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bot {
    pub name: Vec<u8>,
    pub strategy: Strategy,
}

/// The bots of a session and how they choose among allowed moves.
#[derive(Default)]
pub struct Autopilot {
    bots: Vec<Bot>,
    /// With a seed, a seeded random choice; without, the lowest cell.
    rng: Option<fastrand::Rng>,
}

impl Autopilot {
    pub fn new(bots: Vec<Bot>, seed: Option<u64>) -> Self {
        Autopilot { bots, rng: seed.map(fastrand::Rng::with_seed) }
    }

    /// Whether no bot plays.
    pub fn is_idle(&self) -> bool {
        self.bots.is_empty()
    }

    /// The bot to move, if a game is in play and it is a bot's turn.
    #[inline]
    fn to_move(&self, game: &Game) -> Option<usize> {
        if game.state.phase != Phase::InPlay {
            return None;
        }
        let name = game.name(game.state.next);
        self.bots.iter().position(|b| b.name == name)
    }

    /// Does what the bots do after `last` ran, handing each command to
    /// `step` (which runs and shows it).
    pub fn follow<E>(
        &mut self,
        engine: &mut Engine,
        last: &Command,
        mut step: impl FnMut(&mut Engine, &Command) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut walking = matches!(last, Command::Undo | Command::Redo).then_some(*last);
        while let Some(k) = self.to_move(engine.game()) {
            let history = engine.history();
            walking = walking.filter(|w| match w {
                Command::Undo => history.undoable() > 0,
                _ => history.redoable() > 0,
            });
            if let Some(walk) = walking {
                step(engine, &walk)?;
                continue;
            }
            let game = engine.game();
            let moves = self.bots[k].strategy.moves(&game.state.board, game.state.next);
            let pick = match &mut self.rng {
                Some(rng) if moves.len() > 1 => moves.iter().nth(rng.usize(..moves.len())),
                _ => moves.first(),
            };
            let Some(press) = pick else {
                break;
            };
            step(engine, &Command::Play { player: &self.bots[k].name, press })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with_bots(autopilot: &mut Autopilot, engine: &mut Engine, c: Command) -> Vec<String> {
        let mut issued = Vec::new();
        engine.run(&c);
        autopilot
            .follow(engine, &c, |e, c| {
                let mut echo = Vec::new();
                c.write_echo(&mut echo).expect("vec");
                issued.push(String::from_utf8(echo).expect("utf8"));
                e.run(c);
                Ok::<(), ()>(())
            })
            .expect("no error");
        issued
    }

    // A bot's answer, an undo or redo that walks back to a person's turn:
    // acceptance/tictac/32_bot_session and 33_bot_shell; two bots playing
    // whole rounds: tests/it/bots.rs.
    #[test]
    fn undo_after_a_finished_round_issues_nothing_more() {
        let bots = [b"Hal", b"Eve"].map(|n| Bot { name: n.to_vec(), strategy: Strategy::Perfect });
        let mut a = Autopilot::new(bots.to_vec(), Some(7));
        let mut e = Engine::new();
        run_with_bots(&mut a, &mut e, Command::NewGame { player1: b"Hal", player2: b"Eve" });
        let over = e.game().state;
        assert_eq!(over.phase, Phase::Over);
        for walk in [Command::Undo, Command::Redo] {
            assert!(run_with_bots(&mut a, &mut e, walk).is_empty(), "no walk after the round");
            assert_eq!(e.game().state, over, "the finished round keeps its message");
        }
    }
}
