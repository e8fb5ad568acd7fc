//! The six-line view of the model, used by every front end.

use std::io::{self, Write};

use super::{Game, Mark, Phase};

/// Writes the state as six lines, each indented by two spaces and ending
/// with a newline:
///
/// ```text
///   ok: => Bob plays next
///   ___
///   _X_
///   ___
///   0: score for "Ann" (as X)
///   0: score for "Bob" (as O)
/// ```
pub fn write_state<W: Write + ?Sized>(w: &mut W, game: &Game) -> io::Result<()> {
    let s = &game.state;
    w.write_all(b"  ")?;
    w.write_all(s.message.text().as_bytes())?;
    match s.phase {
        Phase::NoGame => w.write_all(b":  => start new game\n")?,
        Phase::InPlay => {
            w.write_all(b": => ")?;
            w.write_all(game.name(s.next))?;
            w.write_all(b" plays next\n")?;
        }
        Phase::Over => w.write_all(b": => play again or start new game\n")?,
    }
    for row in s.board.rows() {
        w.write_all(b"  ")?;
        w.write_all(&row)?;
        w.write_all(b"\n")?;
    }
    for (mark, label) in [(Mark::X, b" (as X)\n"), (Mark::O, b" (as O)\n")] {
        write!(w, "  {}: score for \"", s.scores[mark.index()])?;
        w.write_all(game.name(mark))?;
        w.write_all(b"\"")?;
        w.write_all(label)?;
    }
    Ok(())
}

/// The view as a byte vector (for tests and small front ends).
pub fn render(game: &Game) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    // Writing into a Vec cannot fail.
    let _ = write_state(&mut out, game);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Cell;

    #[test]
    fn a_fresh_model_prints_the_start_hint_with_two_spaces() {
        let text = render(&Game::default());
        assert_eq!(
            text,
            b"  ok:  => start new game\n  ___\n  ___\n  ___\n  0: score for \"\" (as X)\n  0: score for \"\" (as O)\n"
        );
    }

    #[test]
    fn in_play_names_the_next_player() {
        let mut g = Game::default();
        g.new_game(b"Ann", b"Bob");
        g.play(b"Ann", Cell::new(5).expect("cell"));
        let text = String::from_utf8(render(&g)).expect("utf8");
        assert_eq!(
            text,
            "  ok: => Bob plays next\n  ___\n  _X_\n  ___\n  0: score for \"Ann\" (as X)\n  0: score for \"Bob\" (as O)\n"
        );
    }

    #[test]
    fn over_asks_for_another_round() {
        let mut g = Game::default();
        g.new_game(b"Ann", b"Bob");
        g.state.phase = Phase::Over;
        let text = String::from_utf8(render(&g)).expect("utf8");
        assert!(text.starts_with("  ok: => play again or start new game\n"));
    }
}
