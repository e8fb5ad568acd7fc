//! The view of a transcript of many steps (`-b`, `-w`): what follows the
//! status line's opening is kept as one piece for each player to move.

use crate::command::Command;
use crate::game::view::{board_lines, status_opening, write_next, write_scores};
use crate::game::{Game, Mark, Message, Phase};

/// `write_state` for a transcript of many steps. For each player, a frame
/// holds the status line of `ok` in play (`  ok: => NAME plays next`), the
/// board and the score lines; a step patches the board into the frame of
/// the player to move and writes the frame, or the status line's opening
/// and the frame from the name on (another message), or from the board on
/// (no game in play): one write or two. The frames are made again when the scores change, and
/// when the names may have (`forget_names`). Names longer than `KEPT_NAME`
/// are written as `write_state` does.
#[derive(Default)]
pub(crate) struct View {
    /// X's frame, then O's.
    frames: [Vec<u8>; 2],
    /// Where the board starts in each frame.
    boards: [usize; 2],
    /// The scores the frames show.
    scores: [u64; 2],
    /// Whether the frames show the names of the game last written, and no
    /// command that may change them ran since.
    named: bool,
}

const BOARD: usize = 18;
/// The status line's opening of the commonest state, `ok` in play.
const OK_IN_PLAY: &str = "  ok: => ";

impl View {
    /// The longest name a frame holds.
    pub(crate) const KEPT_NAME: usize = 256;

    /// Appends the state to `buf`; false, with nothing written, when a name
    /// is too long to keep (then `write_state` writes it).
    #[inline(always)]
    pub(crate) fn write(&mut self, buf: &mut Vec<u8>, game: &Game) -> bool {
        self.ready(game) && self.write_ready(buf, game)
    }

    /// `write` once the frames are `ready`. The board is patched into the
    /// copy of the frame, not into the frame before it is copied: the
    /// copy's wide loads over the board's fresh narrow stores stalled.
    #[inline(always)]
    fn write_ready(&self, buf: &mut Vec<u8>, game: &Game) -> bool {
        let s = &game.state;
        let (k, at) = (s.next.index(), self.boards[s.next.index()]);
        // The frame opens with the status line of `ok` in play.
        let from = match (s.phase, s.message) {
            (Phase::InPlay, Message::Ok) => 0,
            (Phase::InPlay, _) => OK_IN_PLAY.len(),
            _ => at,
        };
        if from > 0 {
            buf.extend_from_slice(status_opening(s.message, s.phase).as_bytes());
        }
        let board = buf.len() + at - from;
        buf.extend_from_slice(&self.frames[k][from..]);
        buf[board..board + BOARD].copy_from_slice(&board_lines(&s.board));
        true
    }

    /// Appends a transcript step, the command's line then the state; false,
    /// with nothing written, as `write` says. The command's names are at
    /// most `KEPT_NAME` bytes long.
    #[inline]
    pub(crate) fn write_step(&mut self, buf: &mut Vec<u8>, command: &Command, game: &Game) -> bool {
        if !self.ready(game) {
            return false;
        }
        // Writing into a Vec cannot fail.
        let _ = command.write_line(buf);
        self.write_ready(buf, game)
    }

    /// Whether the frames show this game, made again if they may not. The
    /// scores are compared one by one: one wide load over the engine's two
    /// fresh stores stalled.
    #[inline]
    fn ready(&mut self, game: &Game) -> bool {
        let [x, o] = game.state.scores;
        self.named && self.scores[0] == x && self.scores[1] == o || self.keep(game)
    }

    /// The next state written may show other names: a new game ran, or
    /// commands ran unseen.
    pub(crate) fn forget_names(&mut self) {
        self.named = false;
    }

    /// Makes the frames for this game; false when a name is too long to keep.
    fn keep(&mut self, game: &Game) -> bool {
        self.named = game.names.iter().all(|n| n.len() <= Self::KEPT_NAME);
        for mark in [Mark::X, Mark::O].into_iter().filter(|_| self.named) {
            let frame = &mut self.frames[mark.index()];
            frame.clear();
            frame.extend_from_slice(OK_IN_PLAY.as_bytes());
            // Writing into a Vec cannot fail.
            let _ = write_next(frame, game.name(mark));
            self.boards[mark.index()] = frame.len();
            frame.extend_from_slice(&[0; BOARD]);
            let _ = write_scores(frame, game);
        }
        self.scores = game.state.scores;
        self.named
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Cell;
    use crate::game::view::render;

    #[test]
    fn a_view_writes_what_write_state_does_as_names_and_scores_change() {
        let (mut view, mut g) = (View::default(), Game::default());
        let long = vec![b'L'; View::KEPT_NAME + 1];
        let (ann, bob, bo, an): (&[u8], &[u8], &[u8], &[u8]) = (b"Ann", b"Bob", b"Bo", b"An");
        let names = [(ann, bob), (ann, bo), (an, bob), (&long, bob), (bob, ann), (bob, ann)];
        for (k, (x, o)) in names.into_iter().enumerate() {
            g.new_game(x, o);
            view.forget_names();
            for step in 0..4 {
                g.state.scores[step % 2] += (k % 2) as u64 * 10;
                g.play(if step == 1 { o } else { x }, Cell::new(step as u8 + 1).expect("cell"));
                g.state.phase = [Phase::InPlay, Phase::Over][k % 2 * (step / 3)];
                let mut kept = Vec::new();
                if !view.write(&mut kept, &g) {
                    kept = render(&g);
                }
                assert_eq!(kept, render(&g), "round {k}, step {step}");
            }
        }
    }
}
