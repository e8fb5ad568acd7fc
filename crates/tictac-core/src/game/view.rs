//! The six-line view of the model, used by every front end.

use std::io::{self, Write};

use super::{Cell, Game, Mark, Message, Phase, State};

/// The messages' exact texts. The macro also spells out, at compile time,
/// how each message opens the status line in each phase, so the view writes
/// that opening in one piece (the transcript's hot path).
macro_rules! status_openings {
    ($($variant:ident => $text:literal,)*) => {
        /// The status line up to the name of the player to move (in play),
        /// or whole with its newline (otherwise).
        fn status_opening(message: Message, phase: Phase) -> &'static str {
            match (message, phase) {
                $(
                    (Message::$variant, Phase::NoGame) => concat!("  ", $text, ":  => start new game\n"),
                    (Message::$variant, Phase::InPlay) => concat!("  ", $text, ": => "),
                    (Message::$variant, Phase::Over) => {
                        concat!("  ", $text, ": => play again or start new game\n")
                    }
                )*
            }
        }

        /// A message's text, as it opens the status line.
        pub fn message_text(message: Message) -> &'static str {
            match message {
                $(Message::$variant => $text,)*
            }
        }
    };
}

status_openings! {
    Ok => "ok",
    NamesMustDiffer => "names of players must be different",
    NameMustStartWithLetter => "name must start with A-Z or a-z",
    NoSuchPlayer => "no such player",
    GameIsFinished => "game is finished",
    NotThisPlayersTurn => "not this player's turn",
    ButtonTaken => "button already taken",
    Winner => "there is a winner",
    Tie => "game ended in a tie",
    FinishThisGameFirst => "finish this game first",
}

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
    w.write_all(status_opening(s.message, s.phase).as_bytes())?;
    if s.phase == Phase::InPlay {
        write_next(w, game.name(s.next))?;
    }
    w.write_all(&board_lines(s))?;
    write_scores(w, game)
}

/// The end of the status line in play: `Bob plays next`.
fn write_next<W: Write + ?Sized>(w: &mut W, name: &[u8]) -> io::Result<()> {
    w.write_all(name)?;
    w.write_all(NEXT)
}

/// The three board lines: each cell's letter from a table, without a
/// branch (the cells of a trace's boards are as good as random).
#[inline]
fn board_lines(s: &State) -> [u8; 18] {
    let mut lines = *b"  ___\n  ___\n  ___\n";
    for (k, cell) in Cell::ALL.into_iter().enumerate() {
        let letter = [b'_', b'X', b'O'][s.board.get(cell).map_or(0, |m| m.index() + 1)];
        lines[k / 3 * 6 + k % 3 + 2] = letter;
    }
    lines
}

/// The two score lines.
fn write_scores<W: Write + ?Sized>(w: &mut W, game: &Game) -> io::Result<()> {
    let mut digits = itoa::Buffer::new();
    for (mark, label) in [(Mark::X, b"\" (as X)\n"), (Mark::O, b"\" (as O)\n")] {
        w.write_all(b"  ")?;
        w.write_all(digits.format(game.state.scores[mark.index()]).as_bytes())?;
        w.write_all(b": score for \"")?;
        w.write_all(game.name(mark))?;
        w.write_all(label)?;
    }
    Ok(())
}

/// `write_state` for a transcript of many steps: the pieces that change
/// only with a name or a score (the end of the status line for each
/// player, the score lines) are kept formatted, so a step is four writes.
/// Names longer than `KEPT_NAME` are written as `write_state` does.
#[derive(Default)]
pub struct View {
    /// X's `NAME plays next`, O's, then the score lines, for `scores`.
    pieces: Vec<u8>,
    /// Where O's piece starts, and where the score lines do.
    starts: [usize; 2],
    scores: [u64; 2],
}

const KEPT_NAME: usize = 256;
const NEXT: &[u8] = b" plays next\n";

impl View {
    pub fn write<W: Write + ?Sized>(&mut self, w: &mut W, game: &Game) -> io::Result<()> {
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
        let name = |from, to: usize| self.pieces.get(from..to - NEXT.len());
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

/// The banner of the click-driven seeds (`x's turn`, `cat got it`): who
/// is to move, or how the round ended. The boards (`-g`, the web page) show it.
pub fn banner(game: &Game) -> &'static str {
    let board = &game.state.board;
    match game.state.phase {
        Phase::NoGame => "start new game",
        Phase::InPlay if game.state.next == Mark::X => "x's turn",
        Phase::InPlay => "o's turn",
        Phase::Over if board.has_line(Mark::X) => "x won",
        Phase::Over if board.has_line(Mark::O) => "o won",
        Phase::Over => "cat got it",
    }
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
    fn long_names_are_written_whole() {
        let mut g = Game::default();
        let a = "A".repeat(2000);
        g.new_game(a.as_bytes(), b"Bob");
        let expected = format!(
            "  ok: => {a} plays next\n  ___\n  ___\n  ___\n  0: score for \"{a}\" (as X)\n  0: score for \"Bob\" (as O)\n"
        );
        assert_eq!(String::from_utf8(render(&g)).expect("utf8"), expected);
    }

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

    #[test]
    fn over_asks_for_another_round() {
        let mut g = Game::default();
        g.new_game(b"Ann", b"Bob");
        g.state.phase = Phase::Over;
        let text = String::from_utf8(render(&g)).expect("utf8");
        assert!(text.starts_with("  ok: => play again or start new game\n"));
    }
}
