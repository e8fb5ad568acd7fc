//! The declared events: one table, from which the type check, the
//! declarations that type errors print, `man`, the shell's completion and
//! hints, and the help line are all derived. A new event is one row here
//! (with its command) and one `Command` variant.

use std::io::{self, Write};

use super::tokens::{after, is_word_byte};
use crate::command::Cell;
use crate::command::Command;

/// The parameter types of the ETF definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    /// `NAME = STRING`: a string, taken as written.
    Name,
    /// `BUTTON = 1 .. 9`: an integer in range.
    Button,
}

impl Type {
    /// As the declarations print it.
    fn declared(self) -> &'static str {
        match self {
            Type::Name => "NAME = STRING",
            Type::Button => "BUTTON = 1 .. 9",
        }
    }
}

/// A declared parameter, and how the help line shows an argument for it.
#[derive(Debug)]
pub(crate) struct Param {
    pub(crate) name: &'static str,
    pub(crate) kind: Type,
    pub(crate) example: &'static str,
}

/// An argument that has its declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Typed<'a> {
    Name(&'a [u8]),
    Button(Cell),
}

/// One declared event.
pub struct Spec {
    pub name: &'static str,
    /// None: the event is written bare (`undo`), never with parentheses.
    pub(crate) params: &'static [Param],
    /// Its command, its names empty: its arguments fill them in.
    pub(crate) command: Command<'static>,
}

const fn param(name: &'static str, kind: Type, example: &'static str) -> Param {
    Param { name, kind, example }
}

/// The events, in the order `man`, completion and help list them.
pub const EVENTS: [Spec; 5] = [
    Spec {
        name: "new_game",
        params: &[
            param("player1", Type::Name, "\"X player\""),
            param("player2", Type::Name, "\"O player\""),
        ],
        command: Command::NewGame { player1: b"", player2: b"" },
    },
    Spec {
        name: "play",
        params: &[param("player", Type::Name, "\"player\""), param("press", Type::Button, "1..9")],
        command: Command::Play { player: b"", press: Cell::ALL[0] },
    },
    Spec { name: "play_again", params: &[], command: Command::PlayAgain },
    Spec { name: "undo", params: &[], command: Command::Undo },
    Spec { name: "redo", params: &[], command: Command::Redo },
];

/// The declared event of that name.
pub(crate) fn find(name: &[u8]) -> Option<&'static Spec> {
    named_at(name).filter(|s| s.name.len() == name.len())
}

/// The declared event whose name is the word `text` starts with (the
/// parser's way to find an event without reading its name twice).
#[inline(always)]
pub(crate) fn named_at(text: &[u8]) -> Option<&'static Spec> {
    EVENTS.iter().find(|s| {
        let name = s.name.as_bytes();
        after(text, name).is_some_and(|rest| !rest.first().is_some_and(|&b| is_word_byte(b)))
    })
}

impl Spec {
    /// Its command, from arguments of the declared types: a match inlined in
    /// the parser's loop (a call through a pointer stalled, see PERFORMANCE.md).
    #[inline(always)]
    pub(crate) fn command<'a>(&self, args: &[Typed<'a>]) -> Option<Command<'a>> {
        use {Command::*, Typed::*};
        Some(match (self.command, args) {
            (NewGame { .. }, &[Name(player1), Name(player2)]) => NewGame { player1, player2 },
            (Play { .. }, &[Name(player), Button(press)]) => Play { player, press },
            (command, []) => command,
            _ => return None,
        })
    }

    /// The declaration as type errors print it:
    /// `play(player: NAME = STRING ; press: BUTTON = 1 .. 9)`, or `undo`.
    pub fn declaration(&self) -> String {
        self.with_params("(", " ; ", ")")
    }

    /// The same, written to `out` (type errors can be millions of lines).
    pub(crate) fn write_declaration<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        self.write_with_params(out, "(", " ; ", ")")
    }

    /// What completion inserts: the name, with `(` when it takes arguments.
    pub fn word(&self) -> String {
        let open = if self.params.is_empty() { "" } else { "(" };
        format!("{}{open}", self.name)
    }

    /// How the help line shows it: `play("player", 1..9)`.
    pub(crate) fn example(&self) -> String {
        if self.params.is_empty() {
            return self.name.to_string();
        }
        let args: Vec<&str> = self.params.iter().map(|p| p.example).collect();
        format!("{}({})", self.name, args.join(", "))
    }

    fn with_params(&self, open: &str, separator: &str, close: &str) -> String {
        let mut text = Vec::new();
        // Writing into a Vec cannot fail.
        let _ = self.write_with_params(&mut text, open, separator, close);
        String::from_utf8_lossy(&text).into_owned()
    }

    /// The name, then, if it takes any, its parameters `p: T` between
    /// `open` and `close`.
    fn write_with_params<W: Write + ?Sized>(
        &self,
        out: &mut W,
        open: &str,
        separator: &str,
        close: &str,
    ) -> io::Result<()> {
        out.write_all(self.name.as_bytes())?;
        for (k, p) in self.params.iter().enumerate() {
            out.write_all(if k == 0 { open } else { separator }.as_bytes())?;
            out.write_all(p.name.as_bytes())?;
            out.write_all(b": ")?;
            out.write_all(p.kind.declared().as_bytes())?;
        }
        if !self.params.is_empty() {
            out.write_all(close.as_bytes())?;
        }
        Ok(())
    }
}

/// The `man` text: every declared event's declaration, one parameter a line.
pub fn man() -> String {
    EVENTS.iter().map(|s| s.with_params("(\n    ", " ; \n    ", "\n)") + "\n").collect()
}

/// The help line's list of events.
pub fn examples() -> String {
    EVENTS.iter().map(Spec::example).collect::<Vec<_>>().join("   ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_line_shows_an_example_of_each() {
        assert_eq!(
            examples(),
            "new_game(\"X player\", \"O player\")   play(\"player\", 1..9)   play_again   undo   redo"
        );
    }
}
