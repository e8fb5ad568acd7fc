//! The line protocol of interactive mode, shared by the plain (piped) and
//! the line-editing front ends: `quit`, `man`, or a trace of its own.

use std::io::{self, Write};

use crate::engine::Engine;
use crate::game::view::write_state;
use crate::lang;

/// The `man` text: the declared events, one parameter a line.
pub const MAN: &str = "new_game(
    player1: NAME = STRING ; 
    player2: NAME = STRING
)
play(
    player: NAME = STRING ; 
    press: BUTTON = 1 .. 9
)
play_again
undo
redo
";

/// What the shell does after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The line held commands, and they ran.
    Ran,
    /// Anything else: `man`, an empty line, an error message.
    Continue,
    Quit,
}

/// One session: the engine and how lines act on it.
#[derive(Default)]
pub struct Shell {
    engine: Engine,
}

impl Shell {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Prints the current state.
    pub fn show<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        write_state(out, self.engine.game())
    }

    /// Acts on one line (without its line end). A trace that does not
    /// validate prints its message and runs nothing; one that does runs
    /// whole and prints the final state (an empty line just shows it).
    pub fn line<W: Write + ?Sized>(&mut self, line: &[u8], out: &mut W) -> io::Result<Reply> {
        match line {
            b"quit" => return Ok(Reply::Quit),
            b"man" => out.write_all(MAN.as_bytes())?,
            _ => match lang::check(line) {
                Err(e) => e.write_to(out)?,
                Ok(commands) => {
                    commands.iter().for_each(|c| self.engine.run(c));
                    self.show(out)?;
                    if !commands.is_empty() {
                        return Ok(Reply::Ran);
                    }
                }
            },
        }
        Ok(Reply::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(shell: &mut Shell, line: &str) -> (Reply, String) {
        let mut out = Vec::new();
        let reply = shell.line(line.as_bytes(), &mut out).expect("vec write");
        (reply, String::from_utf8(out).expect("utf8"))
    }

    #[test]
    fn quit_and_man_must_be_the_whole_line() {
        let mut s = Shell::new();
        assert_eq!(say(&mut s, "quit").0, Reply::Quit);
        assert_eq!(say(&mut s, "man").1, MAN);
        let (reply, text) = say(&mut s, " quit");
        assert_eq!(reply, Reply::Continue);
        assert!(text.starts_with("Type Error"), "{text}");
    }

    #[test]
    fn a_line_runs_all_its_commands_and_shows_the_final_state() {
        let mut s = Shell::new();
        let (reply, text) = say(&mut s, "new_game(\"a\",\"b\") play(\"a\",1)");
        assert_eq!(reply, Reply::Ran);
        assert!(text.starts_with("  ok: => b plays next\n  X__\n"), "{text}");
        let (_, text) = say(&mut s, "play(\"b\",2) play(\"b\",");
        assert_eq!(
            text,
            "Syntax Error: specification of command executions cannot be parsed\nparse error (Line 1, Column 22)\n"
        );
        let (reply, again) = say(&mut s, "");
        assert_eq!(reply, Reply::Continue);
        assert!(again.contains("  X__\n"));
    }
}
