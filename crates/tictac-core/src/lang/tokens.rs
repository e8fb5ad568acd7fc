//! Token recognisers of the ETF scanner, as nom parsers over bytes.
//!
//! Every parser here works on the text that is left (`&[u8]`); a position is
//! told by how much text is left, so errors carry that length and the caller
//! turns it into a line and column.

use nom::IResult;
use nom::error::{ErrorKind, ParseError};

/// Why the parser stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Halt {
    /// A token that does not fit here (or the end of the input).
    Parse,
    /// The text so far ends inside a token that more input could complete.
    NeedMore,
}

/// A parse failure: what happened, and how much text was left where it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PErr {
    pub(crate) halt: Halt,
    pub(crate) rest: usize,
}

impl PErr {
    pub(crate) fn at(input: &[u8]) -> Self {
        PErr { halt: Halt::Parse, rest: input.len() }
    }

    /// A failure that no other alternative may recover from.
    pub(crate) fn fatal<T>(input: &[u8]) -> PResult<'_, T> {
        Err(nom::Err::Failure(PErr::at(input)))
    }

    /// A recoverable failure (alternatives are still tried).
    pub(crate) fn soft<T>(input: &[u8]) -> PResult<'_, T> {
        Err(nom::Err::Error(PErr::at(input)))
    }
}

impl ParseError<&[u8]> for PErr {
    fn from_error_kind(input: &[u8], _: ErrorKind) -> Self {
        PErr::at(input)
    }

    fn append(_: &[u8], _: ErrorKind, other: Self) -> Self {
        other
    }
}

pub(crate) type PResult<'a, T> = IResult<&'a [u8], T, PErr>;

/// Whether the text handed to the parser is all there is (`Final`) or more
/// whole lines may follow (`Partial`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    Final,
    Partial,
}

/// Skips white space (space, tab, CR, newline), `?` and `--` comments: a
/// look at the first byte (two at a line's end) when that is all.
#[inline(always)]
pub(crate) fn blank(i: &[u8]) -> &[u8] {
    let starts = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'?' | b'-');
    match i {
        [b'\n', b, ..] if !starts(*b) => &i[1..],
        [b, ..] if starts(*b) => blanks(i),
        _ => i,
    }
}

fn blanks(mut i: &[u8]) -> &[u8] {
    loop {
        match i {
            [b' ' | b'\t' | b'\r' | b'\n' | b'?', rest @ ..] => i = rest,
            [b'-', b'-', rest @ ..] => {
                let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
                i = &rest[end..];
            }
            _ => return i,
        }
    }
}

/// Whether this byte belongs to no token outside a string or a character
/// literal (a NUL, a control character, a byte of UTF-8, `#`, `;` ...): a
/// parse error found at such a byte stays there whatever text follows, so
/// the answer need not wait for more (see `stream::LOOKAHEAD`).
pub(crate) fn foreign(b: u8) -> bool {
    matches!(b, 0..=8 | 0x0b | 0x0c | 0x0e..=0x1f | 0x7f..=0xff)
        || b"!#$%&*+/:;=@\\^`{|}~".contains(&b)
}

/// `[a-zA-Z][a-zA-Z0-9_]*`
pub(crate) fn identifier(i: &[u8]) -> PResult<'_, &[u8]> {
    match i.first() {
        Some(b) if b.is_ascii_alphabetic() => {
            let n = i.iter().position(|&b| !is_word_byte(b)).unwrap_or(i.len());
            Ok((&i[n..], &i[..n]))
        }
        _ => PErr::soft(i),
    }
}

/// A byte that goes on an identifier.
#[inline]
pub(crate) fn is_word_byte(b: u8) -> bool {
    WORD[usize::from(b)]
}

/// `is_word_byte` as a table (one look a byte).
static WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// Words of the ETF language that are never identifiers.
pub(crate) fn is_reserved(word: &[u8]) -> bool {
    b"system BOOL BOOLEAN CHAR CHARACTER INT INTEGER REAL STRING VALUE TUPLE ARRAY type"
        .split(|&b| b == b' ')
        .any(|w| w == word)
}

/// The text after `token`, if `i` starts with it (no `memcmp` call).
#[inline]
pub(crate) fn after<'a>(i: &'a [u8], token: &[u8]) -> Option<&'a [u8]> {
    i.get(..token.len())?.iter().zip(token).all(|(a, b)| a == b).then(|| &i[token.len()..])
}

/// `true` / `false` in any letter case.
pub(crate) fn is_boolean(word: &[u8]) -> bool {
    word.eq_ignore_ascii_case(b"true") || word.eq_ignore_ascii_case(b"false")
}

/// An unsigned number: its integer digits and, for a real, its fraction digits.
#[inline]
pub(crate) fn unsigned_number(i: &[u8]) -> PResult<'_, (&[u8], Option<&[u8]>)> {
    let digits = |i: &[u8]| i.iter().position(|b| !b.is_ascii_digit()).unwrap_or(i.len());
    let (int, rest) = i.split_at(digits(i));
    if int.is_empty() {
        return PErr::soft(i);
    }
    match rest.strip_prefix(b".").map(|f| f.split_at(digits(f))) {
        Some((frac, after)) if !frac.is_empty() => Ok((after, (int, Some(frac)))),
        _ => Ok((rest, (int, None))),
    }
}

/// A string literal: the longest match of `"(\\.|[^"])*"`, that is up to the
/// first later `"` not preceded by a backslash, or else up to the last `"`.
/// Returns the raw text between the quotes (escapes are not decoded).
#[inline]
pub(crate) fn string_literal(i: &[u8], extent: Extent) -> PResult<'_, &[u8]> {
    let Some(body) = i.strip_prefix(b"\"") else {
        return PErr::soft(i);
    };
    // A quote closes unless a backslash stands before it.
    let mut k = 0;
    let unescaped = loop {
        match body.get(k) {
            Some(b'"') if k == 0 || body[k - 1] != b'\\' => break Some(k),
            Some(_) => k += 1,
            None => break None,
        }
    };
    let end = match (unescaped, extent) {
        (Some(k), _) => k,
        // Every quote so far is escaped: a later line may still close it.
        (None, Extent::Partial) => {
            return Err(nom::Err::Failure(PErr { halt: Halt::NeedMore, rest: i.len() }));
        }
        (None, Extent::Final) => match body.iter().rposition(|&b| b == b'"') {
            Some(k) => k,
            None => return PErr::fatal(i),
        },
    };
    Ok((&body[end + 1..], &body[..end]))
}

/// Why a string value cannot be written between quotes in a trace file so
/// that it reads back as the same value wherever it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritable {
    /// A `"` with no backslash before it would close the string early.
    Quote,
    /// A final backslash escapes the closing quote, so the string would run
    /// on to the next quote of the file (a shell line has none after it).
    TrailingBackslash,
    /// Line breaks split a file into lines, and blank or comment lines are
    /// dropped even inside a string.
    LineBreak,
}

impl Unwritable {
    /// The rule broken, for a person.
    pub fn rule(self) -> &'static str {
        match self {
            Unwritable::Quote => "a \" in a name needs a backslash before it",
            Unwritable::TrailingBackslash => "a name may not end with a backslash",
            Unwritable::LineBreak => "a name may not hold a line break",
        }
    }

    /// What would happen in a trace file.
    pub fn because(self) -> &'static str {
        match self {
            Unwritable::Quote => "it would end the string",
            Unwritable::TrailingBackslash => "it would escape the closing quote",
            Unwritable::LineBreak => "the line would split",
        }
    }
}

/// Whether `"value"` reads back as `value` in a trace file, whatever
/// follows it: every `"` in it escaped, no final backslash, no line break.
pub fn writable(value: &[u8]) -> Result<(), Unwritable> {
    if value.contains(&b'\n') {
        return Err(Unwritable::LineBreak);
    }
    if value.iter().enumerate().any(|(k, &b)| b == b'"' && (k == 0 || value[k - 1] != b'\\')) {
        return Err(Unwritable::Quote);
    }
    if value.last() == Some(&b'\\') {
        return Err(Unwritable::TrailingBackslash);
    }
    Ok(())
}

/// A character literal: one character other than a newline between single
/// quotes. Returns the whole literal, quotes included, as it is printed.
pub(crate) fn char_literal(i: &[u8]) -> PResult<'_, &[u8]> {
    if i.first() != Some(&b'\'') {
        return PErr::soft(i);
    }
    let width = char_width(&i[1..]);
    match i.get(1 + width) {
        Some(b'\'') if width > 0 && i[1] != b'\n' => Ok((&i[width + 2..], &i[..width + 2])),
        _ => PErr::fatal(i),
    }
}

/// The byte length of the UTF-8 character at the start, or 1 for a byte
/// that does not start one (names and literals may hold any bytes).
fn char_width(s: &[u8]) -> usize {
    let Some(&first) = s.first() else { return 0 };
    let width = match first {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    };
    match s.get(..width).map(std::str::from_utf8) {
        Some(Ok(_)) => width,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_reserved_words_and_booleans() {
        assert_eq!(identifier(b"play_again2 x"), Ok((&b" x"[..], &b"play_again2"[..])));
        assert!(identifier(b"_a").is_err() && identifier(b"1a").is_err());
        assert!(is_reserved(b"type") && is_reserved(b"STRING") && !is_reserved(b"Type"));
        assert!(is_boolean(b"TrUe") && !is_boolean(b"truth") && !is_reserved(b""));
    }

    #[test]
    fn strings_end_at_the_first_unescaped_quote() {
        let s = |t: &'static [u8]| string_literal(t, Extent::Final);
        assert_eq!(s(b"\"\"x"), Ok((&b"x"[..], &b""[..])));
        assert_eq!(s(b"\"a\\\"b\",1"), Ok((&b",1"[..], &b"a\\\"b"[..])));
        // Every later quote escaped: the string runs to the last of them.
        assert_eq!(s(b"\"a\\\" b\\\")"), Ok((&b")"[..], &b"a\\\" b\\"[..])));
        assert_eq!(s(b"\"a\nb\""), Ok((&b""[..], &b"a\nb"[..])));
        assert_eq!(s(b"\"open"), Err(nom::Err::Failure(PErr { halt: Halt::Parse, rest: 5 })));
        assert_eq!(
            string_literal(b"\"open\\\"", Extent::Partial),
            Err(nom::Err::Failure(PErr { halt: Halt::NeedMore, rest: 7 }))
        );
    }

    #[test]
    fn writable_strings_read_back_whatever_follows() {
        for value in [&b"Ann"[..], b"", b"a\\\"b", b"a\\\\\"b", b"\\x", b" -- ?"] {
            assert_eq!(writable(value), Ok(()), "{value:?}");
            let text = [&b"\""[..], value, b"\",1)\nplay(\"B\",2)\n"].concat();
            assert_eq!(string_literal(&text, Extent::Partial).map(|(_, v)| v), Ok(value));
        }
        assert_eq!(writable(b"Zed\\"), Err(Unwritable::TrailingBackslash));
        assert_eq!(writable(b"a\"b"), Err(Unwritable::Quote));
        assert_eq!(writable(b"\"b"), Err(Unwritable::Quote));
        assert_eq!(writable(b"a\nb"), Err(Unwritable::LineBreak));
        // What a shell line may hold but a file may not.
        let (_, zed) = string_literal(b"\"Zed\\\")", Extent::Final).expect("a string");
        assert_eq!(writable(zed), Err(Unwritable::TrailingBackslash));
    }

    #[test]
    fn char_literals_hold_exactly_one_character() {
        assert_eq!(char_literal(b"'c')"), Ok((&b")"[..], &b"'c'"[..])));
        assert_eq!(char_literal("'é'".as_bytes()), Ok((&b""[..], "'é'".as_bytes())));
        for bad in [&b"''"[..], b"'ab'", b"'\n'", b"'"] {
            assert!(char_literal(bad).is_err(), "{bad:?}");
        }
    }
}
