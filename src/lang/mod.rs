//! The trace language of the ETF oracle: kept lines, tokens, the nom
//! grammar, validation and the error texts. It knows nothing of the game.

pub mod ast;
pub mod error;
pub mod lexer;
pub mod parser;
pub mod source;
pub mod stream;
pub mod validate;

pub use error::{Pos, SyntaxError, SyntaxKind, TraceError};
pub use lexer::{Unwritable, writable};
pub use stream::{EventStream, Locator, Stop};
pub use validate::{Checker, command};

use crate::command::Command;

/// Validates a complete text (a chunk, a window line, a shell line) and, if
/// it is all well-formed and type-correct, gives its commands in order.
pub fn check(text: &[u8]) -> Result<Vec<Command<'_>>, TraceError> {
    let events = stream::parse_text(text)?;
    let locator = Locator::new(text);
    let mut checker = Checker::default();
    for e in &events {
        checker.event(e, |rest| locator.pos(rest));
    }
    checker.finish()?;
    Ok(events.iter().filter_map(command).collect())
}

/// The first name in these commands that a trace file cannot hold as it
/// stands (see `writable`), and why.
pub fn unwritable_name<'a>(commands: &[Command<'a>]) -> Option<(&'a [u8], Unwritable)> {
    commands.iter().flat_map(Command::names).find_map(|n| writable(n).err().map(|why| (n, why)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_anywhere_wins_over_earlier_soft_errors() {
        let e = check(b"play(Ora, 1) undo(").expect_err("bad");
        assert_eq!(e.to_string().lines().nth(1), Some("parse error (Line 1, Column 19)"));
        let e = check(b"play(Ora, 1) jump").expect_err("bad");
        assert_eq!(e.to_string().lines().nth(1), Some("Unknown identifier Ora (Line 1, Column 6)"));
    }

    #[test]
    fn a_name_ending_in_a_backslash_is_the_one_a_file_cannot_hold() {
        let commands = check(b"new_game(\"A\",\"B\") play(\"A\\\",1)").expect("valid");
        assert_eq!(unwritable_name(&commands), Some((&b"A\\"[..], Unwritable::TrailingBackslash)));
        let commands = check(b"new_game(\"A\\\"b\",\"B\") undo").expect("valid");
        assert_eq!(unwritable_name(&commands), None);
    }

    #[test]
    fn an_empty_text_is_valid() {
        assert_eq!(check(b"  -- nothing"), Ok(Vec::new()));
    }
}
