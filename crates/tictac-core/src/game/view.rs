//! The six-line view of the model, used by every front end.

use std::io::{self, Write};

use super::{Board, Game, Mark, Message, Phase};

/// The messages' exact texts. The macro also spells out, at compile time,
/// how each message opens the status line in each phase, so the view writes
/// that opening in one piece (the transcript's hot path).
macro_rules! status_openings {
    ($($variant:ident => $text:literal,)*) => {
        /// The status line up to the name of the player to move (in play),
        /// or whole with its newline (otherwise).
        pub fn status_opening(message: Message, phase: Phase) -> &'static str {
            const OPENINGS: [[&str; 10]; 3] = {
                let mut openings = [[""; 10]; 3];
                $(
                    let m = Message::$variant as usize;
                    openings[Phase::NoGame as usize][m] = concat!("  ", $text, ":  => start new game\n");
                    openings[Phase::InPlay as usize][m] = concat!("  ", $text, ": => ");
                    openings[Phase::Over as usize][m] =
                        concat!("  ", $text, ": => play again or start new game\n");
                )*
                openings
            };
            OPENINGS[phase as usize][message as usize]
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
    w.write_all(&board_lines(&s.board))?;
    write_scores(w, game)
}

/// The end of the status line in play: `Bob plays next`.
pub fn write_next<W: Write + ?Sized>(w: &mut W, name: &[u8]) -> io::Result<()> {
    w.write_all(name)?;
    w.write_all(b" plays next\n")
}

/// A board line's cells and newline for each pair of three bits (X's,
/// then O's shifted by 3).
const ROWS: [[u8; 4]; 64] = {
    let mut rows = [*b"___\n"; 64];
    let mut k = 0;
    while k < 64 * 3 {
        let (row, cell) = (k / 3, k % 3);
        rows[row][cell] = [b'_', b'X', b'O', b'X'][row >> cell & 1 | (row >> (cell + 3) & 1) << 1];
        k += 1;
    }
    rows
};

/// The three board lines, each line's cells from a table (no branch: the
/// cells of a trace's boards are as good as random).
#[inline]
pub fn board_lines(board: &Board) -> [u8; 18] {
    let [x, o] = board.bits().map(usize::from);
    let mut lines = *b"  ___\n  ___\n  ___\n";
    for r in 0..3 {
        lines[6 * r + 2..6 * r + 6]
            .copy_from_slice(&ROWS[(x >> (3 * r) & 7) | (o >> (3 * r) & 7) << 3]);
    }
    lines
}

/// The two score lines.
pub fn write_scores<W: Write + ?Sized>(w: &mut W, game: &Game) -> io::Result<()> {
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
    fn over_asks_for_another_round() {
        let mut g = Game::default();
        g.new_game(b"Ann", b"Bob");
        g.state.phase = Phase::Over;
        let text = String::from_utf8(render(&g)).expect("utf8");
        assert!(text.starts_with("  ok: => play again or start new game\n"));
    }
}
