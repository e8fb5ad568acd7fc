//! The grammar of a trace, in nom: a trace is a sequence of events.
//!
//! ```text
//! event := NAME [ "(" arg { "," arg } ")" ]
//! arg   := STRING | ["-"] NUMBER | CHAR | BOOL | IDENT
//!        | "[" [ arg { "," arg } ] "]" | "<<" [ arg { "," arg } ] ">>"
//! ```
//!
//! Failures point at the token that does not fit (see `tokens::PErr`).

use nom::Parser;
use nom::combinator::cut;

use super::ast::{Arg, Event, Value};
use super::events;
use super::tokens::{
    Extent, Halt, PErr, PResult, after, blank, char_literal, identifier, is_boolean, is_reserved,
    string_literal, unsigned_number,
};
use super::validate::Typing;

/// Parses the next event after any blanks, or `Ok(None)` when only blanks
/// are left. With `Extent::Partial`, an error or an event that reaches the
/// end of the text may change once more text comes: the caller reads more
/// and parses again (see `stream`).
#[inline(always)]
pub fn next_event(i: &[u8], extent: Extent) -> PResult<'_, Option<Event<'_>>> {
    let i = blank(i);
    let spec = events::named_at(i);
    let (rest, name) = match spec {
        Some(spec) => (&i[spec.name.len()..], &i[..spec.name.len()]),
        None if i.is_empty() => return Ok((i, None)),
        None => match identifier(i) {
            Ok((rest, name)) if !is_reserved(name) && !is_boolean(name) => (rest, name),
            _ => return PErr::fatal(i),
        },
    };
    let mut typing = Typing::new(spec);
    let Some(open) = blank(rest).strip_prefix(b"(") else {
        let command = typing.command();
        return Ok((rest, Some(Event { name, args: None, rest: rest.len(), command })));
    };
    let ctx = Ctx { extent, depth: 0 };
    let (rest, ()) = list(open, b")", ctx, &mut typing)?;
    let args = Some(&open[..open.len() - rest.len()]);
    Ok((rest, Some(Event { name, args, rest: rest.len(), command: typing.command() })))
}

/// What the argument rules hand each argument to as it is read (`at`: the
/// text left where it starts): a list's values, or an event's typing.
pub(crate) trait Sink<'a> {
    /// A string literal's text between its quotes.
    fn string(&mut self, text: &'a [u8], at: usize) {
        self.other(Arg { value: Value::Str(text), rest: at });
    }

    /// An unsigned number's integer and fraction digits.
    fn number(&mut self, int: &'a [u8], frac: Option<&'a [u8]>, at: usize) {
        self.other(Arg { value: Value::Number { negative: false, int, frac }, rest: at });
    }

    fn other(&mut self, arg: Arg<'a>);
}

impl<'a> Sink<'a> for Vec<Arg<'a>> {
    fn other(&mut self, arg: Arg<'a>) {
        self.push(arg);
    }
}

impl<'a> Event<'a> {
    /// Its arguments, parsed again (for a type error); their positions
    /// count the bytes left before the event's end: add `rest`.
    pub(crate) fn arguments(&self) -> Vec<Arg<'a>> {
        let mut items = Vec::new();
        let ctx = Ctx { extent: Extent::Final, depth: 0 };
        let _ = self.args.map(|text| list(text, b")", ctx, &mut items));
        items
    }
}

/// Tuples and arrays nest at most this deep: deeper, the opening bracket is
/// a parse error (instead of exhausting the stack).
pub(crate) const MAX_NESTING: usize = 256;

/// What every argument parser needs to know.
#[derive(Clone, Copy)]
struct Ctx {
    extent: Extent,
    /// How many tuples or arrays enclose the text being parsed.
    depth: usize,
}

/// `arg {"," arg} end` after an opening bracket, with at least one
/// argument, each handed to `sink` in order.
#[inline(always)]
fn list<'a>(mut i: &'a [u8], end: &[u8], ctx: Ctx, sink: &mut impl Sink<'a>) -> PResult<'a, ()> {
    loop {
        let rest = arg(blank(i), ctx, sink)?;
        i = blank(rest);
        match i.strip_prefix(b",") {
            Some(rest) => i = rest,
            None => {
                return Ok((after(i, end).ok_or_else(|| nom::Err::Error(PErr::at(i)))?, ()));
            }
        }
    }
}

/// `open [arg {"," arg}] close`: tuples and arrays may be empty.
fn bracketed<'a>(i: &'a [u8], [open, close]: [&[u8]; 2], ctx: Ctx) -> PResult<'a, Vec<Arg<'a>>> {
    let after_open = after(i, open).ok_or_else(|| nom::Err::Error(PErr::at(i)))?;
    if ctx.depth >= MAX_NESTING {
        return PErr::fatal(i);
    }
    let ctx = Ctx { depth: ctx.depth + 1, ..ctx };
    if let Some(rest) = after(blank(after_open), close) {
        return Ok((rest, Vec::new()));
    }
    let mut items = Vec::new();
    let (rest, ()) = cut(|i| list(i, close, ctx, &mut items)).parse(after_open)?;
    Ok((rest, items))
}

/// One argument, starting at a token (blanks already skipped), handed to
/// `sink`; gives the text after it. A string or a number here, what is
/// rarer in `other_arg`.
#[inline(always)]
fn arg<'a>(i: &'a [u8], ctx: Ctx, sink: &mut impl Sink<'a>) -> Result<&'a [u8], nom::Err<PErr>> {
    match i.first() {
        Some(b'"') => {
            let (rest, s) = string_literal(i, ctx.extent)?;
            sink.string(s, i.len());
            Ok(rest)
        }
        Some(b) if b.is_ascii_digit() => {
            let (rest, (int, frac)) = unsigned_number(i)?;
            sink.number(int, frac, i.len());
            Ok(rest)
        }
        _ => {
            let (rest, a) = other_arg(i, ctx)?;
            sink.other(a);
            Ok(rest)
        }
    }
}

#[inline(never)]
fn other_arg(i: &[u8], ctx: Ctx) -> PResult<'_, Arg<'_>> {
    let here = |value| Arg { value, rest: i.len() };
    match i.first() {
        Some(b'\'') => {
            let (rest, c) = char_literal(i)?;
            Ok((rest, here(Value::Char(c))))
        }
        Some(b'-') => {
            // A minus must be followed by a number; the error is at the minus,
            // unless the text so far ends after it (its number may follow).
            let digits = blank(&i[1..]);
            match unsigned_number(digits) {
                Ok((rest, (int, frac))) => Ok((
                    rest,
                    Arg { value: Value::Number { negative: true, int, frac }, rest: digits.len() },
                )),
                Err(_) if digits.is_empty() && ctx.extent == Extent::Partial => {
                    Err(nom::Err::Failure(PErr { halt: Halt::NeedMore, rest: i.len() }))
                }
                Err(_) => PErr::fatal(i),
            }
        }
        Some(b'[') => {
            let (rest, items) = bracketed(i, [b"[", b"]"], ctx)?;
            Ok((rest, here(Value::Tuple(items))))
        }
        Some(b'<') => {
            let (rest, items) = bracketed(i, [b"<<", b">>"], ctx)?;
            Ok((rest, here(Value::Array(items))))
        }
        _ => {
            let (rest, word) = identifier(i).map_err(|_| nom::Err::Failure(PErr::at(i)))?;
            if is_reserved(word) {
                PErr::fatal(i)
            } else if is_boolean(word) {
                Ok((rest, here(Value::Bool(word))))
            } else {
                Ok((rest, here(Value::Ident(word))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::stream::parse_text;

    /// The byte offset of the error in `text` (a single line).
    fn error_at(text: &str) -> usize {
        parse_text(text.as_bytes()).expect_err("should not parse").pos.column - 1
    }

    #[test]
    fn errors_point_at_the_offending_token() {
        assert_eq!(error_at("undo()"), 5);
        assert_eq!(error_at("play(\"a\" 1)"), 9);
        assert_eq!(error_at("play(\"a\",)"), 9);
        assert_eq!(error_at("play(- x)"), 5);
        assert_eq!(error_at("play(STRING)"), 5);
        assert_eq!(error_at("undo TRUE"), 5);
        assert_eq!(error_at("type"), 0);
        assert_eq!(error_at("undo # redo"), 5);
        assert_eq!(error_at("new_game(\"a, 1)"), 9);
        assert_eq!(error_at("e([1,])"), 5);
        assert_eq!(error_at("e(1.)"), 3);
        assert_eq!(error_at("undo\x0c"), 4);
        // The end of the input.
        assert_eq!(error_at("play(\"a\""), 8);
    }

    #[test]
    fn nesting_is_bounded_instead_of_exhausting_the_stack() {
        let ok = format!("e({}{})", "[".repeat(MAX_NESTING), "]".repeat(MAX_NESTING));
        assert!(parse_text(ok.as_bytes()).is_ok());
        let deep = format!("e({})", "[".repeat(1_000_000));
        assert_eq!(error_at(&deep), 2 + MAX_NESTING);
    }
}
