//! The messages a trace can get instead of running, with their exact texts.

use std::io::{self, Write};

/// A 1-based line and byte column in a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// What the syntax error says.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SyntaxKind {
    /// A token that does not fit, or an unexpected end of input.
    #[error("parse error")]
    Parse,
    /// A bare identifier used as an argument.
    #[error("Unknown identifier {0}")]
    UnknownIdentifier(String),
    /// `play`'s button, normalised, is not a signed 64-bit integer.
    #[error("Invalid number for 64-bit integer {0}")]
    InvalidNumber(String),
}

/// The one error of a trace that cannot be parsed. Written with
/// `writeln!`, the name or number it quotes is not copied to be formatted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "Syntax Error: specification of command executions cannot be parsed\n{kind} (Line {}, Column {})",
    .pos.line,
    .pos.column
)]
pub struct SyntaxError {
    pub(crate) kind: SyntaxKind,
    pub(crate) pos: Pos,
}

/// An event longer than `stream::MAX_EVENT`, and where it starts (its
/// line and column counted as a parse error's are): the trace is refused,
/// as a file that cannot be read is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the event at Line {}, Column {} is longer than 1 MiB; tictac reads events of up to 1 MiB, \
     from the name to the closing parenthesis (a quote or a bracket left open makes the rest \
     of the trace part of that event)",
    .0.line,
    .0.column
)]
pub struct TooLong(pub Pos);

impl TooLong {
    /// Its line in a file whose kept line `first` is the text's first (a chunk, a window line).
    pub fn in_file(self, first: usize) -> TooLong {
        TooLong(Pos { line: self.0.line + first - 1, ..self.0 })
    }
}

/// The first line of a type error message.
pub(crate) const TYPE_ERROR_HEADER: &str =
    "Type Error: specification of command executions is not type-correct\n";

/// Why a trace runs nothing. Type errors may quote names, which are bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// One printed line per offending event, in trace order.
    #[error("{TYPE_ERROR_HEADER}{}",
        .0.iter().map(|l| String::from_utf8_lossy(l)).collect::<Vec<_>>().join("\n"))]
    Type(Vec<Vec<u8>>),
}

impl TraceError {
    /// Writes the message byte for byte, with its final newline.
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        match self {
            TraceError::Syntax(e) => writeln!(w, "{e}"),
            TraceError::Type(lines) => {
                w.write_all(TYPE_ERROR_HEADER.as_bytes())?;
                for line in lines {
                    w.write_all(line)?;
                    w.write_all(b"\n")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(e: &TraceError) -> String {
        let mut v = Vec::new();
        e.write_to(&mut v).expect("vec");
        String::from_utf8(v).expect("utf8")
    }

    // The texts themselves are checked by the acceptance traces (syntax and
    // type errors) and tests/it/hostile.rs (an event too long).
    #[test]
    fn type_error_text_lists_each_line_and_displays_the_same() {
        let e = TraceError::Type(vec![b"undo(1) does not conform to declaration undo".to_vec()]);
        let expected = "Type Error: specification of command executions is not type-correct\nundo(1) does not conform to declaration undo\n";
        assert_eq!(text(&e), expected);
        assert_eq!(format!("{e}\n"), expected);
    }
}
