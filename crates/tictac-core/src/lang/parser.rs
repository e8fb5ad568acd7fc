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
    Extent, Halt, PErr, PResult, after, blank, char_literal, identifier, is_boolean, is_keyword,
    is_reserved, string_literal, unsigned_number,
};
use super::validate::Typing;

/// Parses the next event after any blanks, or `Ok(None)` when only blanks
/// are left. With `Extent::Partial`, an error or an event that reaches the
/// end of the text may change once more text comes: the caller reads more
/// and parses again (see `stream`).
pub fn next_event(i: &[u8], extent: Extent) -> PResult<'_, Option<Event<'_>>> {
    let i = blank(i);
    if i.is_empty() {
        return Ok((i, None));
    }
    let (rest, name) = identifier(i).map_err(|_| nom::Err::Failure(PErr::at(i)))?;
    if is_keyword(name) {
        return PErr::fatal(i);
    }
    let mut typing = Typing::new(events::find(name));
    let Some(open) = blank(rest).strip_prefix(b"(") else {
        let command = typing.command();
        return Ok((rest, Some(Event { name, args: None, rest: rest.len(), command })));
    };
    let ctx = Ctx { extent, depth: 0 };
    let (rest, ()) = cut(|i| list(i, b")", ctx, &mut |a| typing.add(&a))).parse(open)?;
    let args = Some(&open[..open.len() - rest.len()]);
    Ok((rest, Some(Event { name, args, rest: rest.len(), command: typing.command() })))
}

/// The arguments of an event already parsed, from the text after its `(`
/// (see `Event::arguments`).
pub(crate) fn arguments(text: &[u8]) -> Vec<Arg<'_>> {
    let mut items = Vec::new();
    let ctx = Ctx { extent: Extent::Final, depth: 0 };
    let _ = list(text, b")", ctx, &mut |a| items.push(a));
    items
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
/// argument, each handed to `f` in order.
fn list<'a>(mut i: &'a [u8], end: &[u8], ctx: Ctx, f: &mut impl FnMut(Arg<'a>)) -> PResult<'a, ()> {
    loop {
        let (rest, a) = arg(blank(i), ctx)?;
        f(a);
        i = blank(rest);
        match i.strip_prefix(b",") {
            Some(rest) => i = rest,
            None => return Ok((after(i, end).ok_or_else(|| nom::Err::Error(PErr::at(i)))?, ())),
        }
    }
}

/// `open [arg {"," arg}] close`: tuples and arrays may be empty.
fn maybe_empty_list<'a>(
    i: &'a [u8],
    open: &[u8],
    close: &[u8],
    ctx: Ctx,
) -> PResult<'a, Vec<Arg<'a>>> {
    let after_open = after(i, open).ok_or_else(|| nom::Err::Error(PErr::at(i)))?;
    if ctx.depth >= MAX_NESTING {
        return PErr::fatal(i);
    }
    let ctx = Ctx { depth: ctx.depth + 1, ..ctx };
    if let Some(rest) = after(blank(after_open), close) {
        return Ok((rest, Vec::new()));
    }
    let mut items = Vec::new();
    let (rest, ()) = cut(|i| list(i, close, ctx, &mut |a| items.push(a))).parse(after_open)?;
    Ok((rest, items))
}

/// One argument, starting at a token (blanks already skipped): a string
/// or a number here, what is rarer in `other_arg`.
#[inline(always)]
fn arg(i: &[u8], ctx: Ctx) -> PResult<'_, Arg<'_>> {
    match i.first() {
        Some(b'"') => {
            let (rest, s) = string_literal(i, ctx.extent)?;
            Ok((rest, Arg { value: Value::Str(s), rest: i.len() }))
        }
        Some(b) if b.is_ascii_digit() => {
            let (rest, (int, frac)) = unsigned_number(i)?;
            Ok((rest, Arg { value: Value::Number { negative: false, int, frac }, rest: i.len() }))
        }
        _ => other_arg(i, ctx),
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
            let (rest, items) = maybe_empty_list(i, b"[", b"]", ctx)?;
            Ok((rest, here(Value::Tuple(items))))
        }
        Some(b'<') => {
            let (rest, items) = maybe_empty_list(i, b"<<", b">>", ctx)?;
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

    fn parse_all(mut text: &[u8]) -> Result<Vec<Event<'_>>, usize> {
        let mut events = Vec::new();
        loop {
            match next_event(text, Extent::Final) {
                Ok((_, None)) => return Ok(events),
                Ok((rest, Some(e))) => {
                    events.push(e);
                    text = rest;
                }
                Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(e.rest),
                Err(nom::Err::Incomplete(_)) => return Err(usize::MAX),
            }
        }
    }

    /// The byte offset of the error in `text`.
    fn error_at(text: &str) -> usize {
        text.len() - parse_all(text.as_bytes()).expect_err("should not parse")
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
        assert!(parse_all(ok.as_bytes()).is_ok());
        let deep = format!("e({})", "[".repeat(1_000_000));
        assert_eq!(error_at(&deep), 2 + MAX_NESTING);
    }
}
