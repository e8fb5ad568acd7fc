//! The five commands of the ETF definitions: what a validated event is,
//! and how the transcript echoes it. Shared by the language and the engine.

use std::io::{self, Write};

/// The language names a play's button with the game's cell type, through
/// here: `lang` imports `command`, never `game`.
pub use crate::game::Cell;

/// A type-correct event. Names borrow the trace's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    NewGame {
        player1: &'a [u8],
        player2: &'a [u8],
    },
    /// ETF's `press: BUTTON = 1 .. 9` is the game's cell: one type for 1..9.
    Play {
        player: &'a [u8],
        press: Cell,
    },
    PlayAgain,
    Undo,
    Redo,
}

impl<'a> Command<'a> {
    /// The names it carries, in order.
    pub fn names(&self) -> impl Iterator<Item = &'a [u8]> {
        let names = match *self {
            Command::NewGame { player1, player2 } => [Some(player1), Some(player2)],
            Command::Play { player, .. } => [Some(player), None],
            _ => [None, None],
        };
        names.into_iter().flatten()
    }

    /// Writes the normalised echo: `new_game("Ann","Bob")`, `play("Ann",5)`,
    /// `play_again`, `undo`, `redo` (no newline).
    pub fn write_echo<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        self.write_framed(w, false)
    }

    /// Writes the transcript's line of the command: `->`, the echo, a newline.
    pub fn write_line<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        self.write_framed(w, true)
    }

    /// The echo, as a line or bare; each fixed piece is one write.
    #[inline(always)]
    fn write_framed<W: Write + ?Sized>(&self, w: &mut W, line: bool) -> io::Result<()> {
        macro_rules! piece {
            ($text:literal, $end:literal) => {
                if line { concat!("->", $text, $end) } else { $text }.as_bytes()
            };
        }
        match *self {
            Command::NewGame { player1, player2 } => {
                w.write_all(piece!("new_game(\"", ""))?;
                w.write_all(player1)?;
                w.write_all(b"\",\"")?;
                w.write_all(player2)?;
                w.write_all(&b"\")\n"[..2 + usize::from(line)])
            }
            Command::Play { player, press } => {
                w.write_all(piece!("play(\"", ""))?;
                w.write_all(player)?;
                let end = [b'"', b',', b'0' + press.number(), b')', b'\n'];
                w.write_all(&end[..4 + usize::from(line)])
            }
            Command::PlayAgain => w.write_all(piece!("play_again", "\n")),
            Command::Undo => w.write_all(piece!("undo", "\n")),
            Command::Redo => w.write_all(piece!("redo", "\n")),
        }
    }
}
