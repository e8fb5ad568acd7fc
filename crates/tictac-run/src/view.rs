//! The view of a transcript of many steps (`-b`, `-w`): the pieces of the
//! six lines that change only with a name or a score are kept formatted.

use std::io::{self, Write};

use crate::game::view::{
    PLAYS_NEXT, board_lines, status_opening, write_next, write_scores, write_state,
};
use crate::game::{Game, Mark, Phase};

/// `write_state` for a transcript of many steps: the pieces that change
/// only with a name or a score (the end of the status line for each
/// player, the score lines) are kept formatted, so a step is four writes.
/// Names longer than `KEPT_NAME` are written as `write_state` does.
#[derive(Default)]
pub(crate) struct View {
    /// X's `NAME plays next`, O's, then the score lines, for `scores`.
    pieces: Vec<u8>,
    /// Where O's piece starts, and where the score lines do.
    starts: [usize; 2],
    scores: [u64; 2],
}

const KEPT_NAME: usize = 256;

impl View {
    pub(crate) fn write<W: Write + ?Sized>(&mut self, w: &mut W, game: &Game) -> io::Result<()> {
        let s = &game.state;
        if !self.holds(game) && !self.keep(game) {
            return write_state(w, game);
        }
        let [o, scores] = self.starts;
        w.write_all(status_opening(s.message, s.phase).as_bytes())?;
        if s.phase == Phase::InPlay {
            w.write_all([&self.pieces[..o], &self.pieces[o..scores]][s.next.index()])?;
        }
        w.write_all(&board_lines(s))?;
        w.write_all(&self.pieces[scores..])
    }

    /// Whether the pieces are those of this game's names and scores.
    fn holds(&self, game: &Game) -> bool {
        let [o, scores] = self.starts;
        let name = |from, to: usize| self.pieces.get(from..to - PLAYS_NEXT.len());
        !self.pieces.is_empty()
            && self.scores == game.state.scores
            && name(0, o) == Some(game.name(Mark::X))
            && name(o, scores) == Some(game.name(Mark::O))
    }

    /// Formats the pieces for this game; false when a name is too long to keep.
    fn keep(&mut self, game: &Game) -> bool {
        self.pieces.clear();
        if game.names.iter().any(|n| n.len() > KEPT_NAME) {
            return false;
        }
        // Writing into a Vec cannot fail.
        let _ = write_next(&mut self.pieces, game.name(Mark::X));
        self.starts[0] = self.pieces.len();
        let _ = write_next(&mut self.pieces, game.name(Mark::O));
        self.starts[1] = self.pieces.len();
        let _ = write_scores(&mut self.pieces, game);
        self.scores = game.state.scores;
        true
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
        let long = vec![b'L'; KEPT_NAME + 1];
        let (ann, bob, bo, an): (&[u8], &[u8], &[u8], &[u8]) = (b"Ann", b"Bob", b"Bo", b"An");
        let names = [(ann, bob), (ann, bo), (an, bob), (&long, bob), (bob, ann), (bob, ann)];
        for (k, (x, o)) in names.into_iter().enumerate() {
            g.new_game(x, o);
            for step in 0..3 {
                g.state.scores[step % 2] += (k % 2) as u64 * 10;
                g.play(if step == 1 { o } else { x }, Cell::new(step as u8 + 1).expect("cell"));
                let mut kept = Vec::new();
                view.write(&mut kept, &g).expect("vec");
                assert_eq!(kept, render(&g), "round {k}, step {step}");
            }
        }
    }
}
