//! Events too long to hold: the same grammar as `parser`, token by token,
//! resumable at any token, so an event with millions of arguments (or a
//! tuple of millions of elements) is read in constant memory. The stream
//! switches to it only for an event longer than `FOLD_AT`; what it finds
//! goes out as `Piece`s, in source order, for the checker to fold. Blanks,
//! `?` and comments between its tokens are read past and forgotten,
//! whatever their length (a comment still going on is one flag, a minus
//! waiting for its number one position), so what follows an event costs
//! nothing until it proves to be more of it.
//!
//! Tokens are recognised by the same nom parsers (`tokens`), and errors fall
//! on the same bytes as in `parser` (the fuzzer holds the two to that).

use super::ast::{Value, Zeros};
use super::error::Pos;
use super::held::LONG_TOKEN;
use super::parser::MAX_NESTING;
use super::tokens::{
    Extent, Halt, PErr, blank, char_literal, identifier, is_boolean, is_reserved, string_literal,
    unsigned_number,
};

/// An event longer than this (bytes of text) is read token by token.
pub(crate) const FOLD_AT: usize = 64 * 1024;

/// What a long event is made of, in source order.
#[derive(Debug)]
pub(crate) enum Piece<'a> {
    /// Its name.
    Start(&'a [u8]),
    /// A tuple (`[`) or array (`<<`) opens.
    Open {
        array: bool,
    },
    Close {
        array: bool,
    },
    /// A string, number, character, boolean or identifier, and where it is.
    Scalar(Value<'a>, Pos),
    End,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// At the event's name.
    Name,
    /// After the name: `(` or the next event.
    AfterName,
    /// After `[` or `<<`: the close, or an argument.
    AfterOpen,
    /// An argument is needed.
    Arg,
    /// After the minus of a negative number (its blanks may run on): its
    /// digits are needed; an error is at the minus, here.
    Minus(Pos),
    /// After an argument: `,` or the close.
    AfterArg,
}

/// How far a step got.
pub(crate) enum Folded {
    /// The event ended; `consumed` bytes of the text were read.
    Done { consumed: usize },
    /// More text is needed after the first `consumed` bytes.
    NeedMore { consumed: usize },
    /// A long token was read: the first `consumed` bytes are done with, and
    /// the buffer that held them may let them go before the event goes on
    /// (what a piece keeps of a long token is read back only then: it is
    /// held once).
    Paused { consumed: usize },
    /// A parse error, `rest` bytes before the end.
    Failed { rest: usize },
    /// A parse error at a token read earlier (a minus whose number never came).
    FailedAt(Pos),
}

/// A long event being read.
pub(crate) struct Fold {
    state: State,
    /// Open brackets: `(`, `[` or `<`.
    stack: Vec<u8>,
    /// Whether the text read so far ends inside a comment, whose line has
    /// not ended yet: blanks and comments are read past and forgotten (a
    /// comment of any length costs nothing), this is all that is left.
    in_comment: bool,
    /// Where the number being read began, once its leading zeros were read
    /// past (all but the last, however many: they are held as a count, as
    /// blanks are).
    number_at: Option<Pos>,
    /// How many leading zeros were read past.
    zeros: Zeros,
}

impl Default for Fold {
    fn default() -> Self {
        Fold {
            state: State::Name,
            stack: Vec::new(),
            in_comment: false,
            number_at: None,
            zeros: Zeros::NONE,
        }
    }
}

impl Fold {
    /// Reads as much of the event as `text` holds, handing each piece to
    /// `visit`; `locate` turns "bytes left" into a position.
    pub(crate) fn step<E>(
        &mut self,
        text: &[u8],
        extent: Extent,
        locate: &impl Fn(usize) -> Pos,
        visit: &mut impl FnMut(Piece<'_>) -> Result<(), E>,
    ) -> Result<Folded, E> {
        let partial = extent == Extent::Partial;
        let mid_line = partial && text.last().is_some_and(|&b| b != b'\n');
        let mut at = 0;
        loop {
            if self.in_comment {
                // The rest of a comment's line, up to its newline (a blank).
                match memchr::memchr(b'\n', &text[at..]) {
                    Some(k) => at += k,
                    None if partial => return Ok(Folded::NeedMore { consumed: text.len() }),
                    None => at = text.len(),
                }
                self.in_comment = false;
            }
            let rest = &text[at..];
            let j = blank(rest);
            if j.is_empty() {
                if self.state == State::AfterName && !partial {
                    visit(Piece::End)?;
                    return Ok(Folded::Done { consumed: text.len() });
                }
                // No event began: only a comment was waiting for its end.
                if self.state == State::Name && !partial {
                    return Ok(Folded::Done { consumed: text.len() });
                }
                if let State::Minus(minus) = self.state
                    && !partial
                {
                    return Ok(Folded::FailedAt(minus));
                }
                if !partial {
                    return Ok(Folded::Failed { rest: 0 });
                }
                // Blanks and comments are read past, whatever their length:
                // a comment that goes on past the end of a text that stops
                // mid-line is remembered, not kept.
                self.in_comment = mid_line && super::stream::unfinished_comment(rest) > 0;
                return Ok(Folded::NeedMore { consumed: text.len() });
            }
            // Blanks never change meaning once a token follows them.
            at = text.len() - j.len();
            // A last `-` may still start a comment.
            if j == b"-" && partial {
                return Ok(Folded::NeedMore { consumed: at });
            }
            let failed = |e: PErr| {
                let may_move = super::stream::may_move(text, e.rest, mid_line);
                if partial && (e.halt == Halt::NeedMore || may_move) {
                    Folded::NeedMore { consumed: at }
                } else {
                    Folded::Failed { rest: e.rest }
                }
            };
            // A token is taken once a byte follows it that cannot go on it
            // (a `.` alone may still start a number's fraction).
            let settled = |after: &[u8]| !partial || !matches!(after, [] | [b'.']);
            if matches!(self.state, State::Arg | State::Minus(_)) && j.starts_with(b"00") {
                let zeros = j.iter().take_while(|&&b| b == b'0').count();
                let skip = self.zeros.add(zeros as u64 - 1);
                if skip > 0 {
                    self.number_at.get_or_insert_with(|| locate(j.len()));
                    at += skip as usize;
                    continue;
                }
            }
            match self.state {
                State::Name => {
                    let Ok((after, name)) = identifier(j) else {
                        return Ok(failed(PErr::at(j)));
                    };
                    if is_reserved(name) || is_boolean(name) {
                        return Ok(failed(PErr::at(j)));
                    }
                    if !settled(after) {
                        return Ok(Folded::NeedMore { consumed: at });
                    }
                    visit(Piece::Start(name))?;
                    self.state = State::AfterName;
                    at = text.len() - after.len();
                }
                State::AfterName => {
                    if j[0] != b'(' {
                        visit(Piece::End)?;
                        return Ok(Folded::Done { consumed: at });
                    }
                    self.stack.push(b'(');
                    self.state = State::Arg;
                    at += 1;
                }
                State::AfterOpen | State::AfterArg => {
                    let top = *self.stack.last().unwrap_or(&b'(');
                    let close: &[u8] = match top {
                        b'[' => b"]",
                        b'<' => b">>",
                        _ => b")",
                    };
                    if let Some(after) = j.strip_prefix(close) {
                        if !settled(after) && self.stack.len() > 1 {
                            return Ok(Folded::NeedMore { consumed: at });
                        }
                        self.stack.pop();
                        at = text.len() - after.len();
                        if self.stack.is_empty() {
                            visit(Piece::End)?;
                            return Ok(Folded::Done { consumed: at });
                        }
                        visit(Piece::Close { array: top == b'<' })?;
                        self.state = State::AfterArg;
                    } else if self.state == State::AfterOpen {
                        self.state = State::Arg;
                    } else if j[0] == b',' {
                        self.state = State::Arg;
                        at += 1;
                    } else {
                        return Ok(failed(PErr::at(j)));
                    }
                }
                // A minus, then its number after any blanks (and comments),
                // however many: the blanks are read past, the minus is
                // remembered.
                State::Arg if j[0] == b'-' => {
                    self.state = State::Minus(locate(j.len()));
                    at += 1;
                }
                State::Minus(minus) => match unsigned_number(j) {
                    Ok((after, (int, frac))) => {
                        if !settled(after) {
                            return Ok(Folded::NeedMore { consumed: at });
                        }
                        let zeros = std::mem::take(&mut self.zeros);
                        let value = Value::Number { negative: true, zeros, int, frac };
                        let start = self.number_at.take().unwrap_or_else(|| locate(j.len()));
                        visit(Piece::Scalar(value, start))?;
                        self.state = State::AfterArg;
                        at = text.len() - after.len();
                        if j.len() - after.len() >= LONG_TOKEN {
                            return Ok(Folded::Paused { consumed: at });
                        }
                    }
                    Err(_) => return Ok(Folded::FailedAt(minus)),
                },
                State::Arg => match self.arg(j, extent, locate)? {
                    Ok((after, piece)) => {
                        if !settled(after) {
                            return Ok(Folded::NeedMore { consumed: at });
                        }
                        self.number_at = None;
                        self.zeros = Zeros::NONE;
                        if let Piece::Open { array } = piece {
                            self.stack.push(if array { b'<' } else { b'[' });
                            self.state = State::AfterOpen;
                        } else {
                            self.state = State::AfterArg;
                        }
                        visit(piece)?;
                        at = text.len() - after.len();
                        if j.len() - after.len() >= LONG_TOKEN {
                            return Ok(Folded::Paused { consumed: at });
                        }
                    }
                    Err(e) => return Ok(failed(e)),
                },
            }
        }
    }

    /// One argument's first token (the argument itself, or its bracket).
    #[allow(clippy::type_complexity)]
    fn arg<'a, E>(
        &self,
        i: &'a [u8],
        extent: Extent,
        locate: &impl Fn(usize) -> Pos,
    ) -> Result<Result<(&'a [u8], Piece<'a>), PErr>, E> {
        let here = |value| Piece::Scalar(value, self.number_at.unwrap_or_else(|| locate(i.len())));
        let fatal = |e: nom::Err<PErr>| match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => e,
            nom::Err::Incomplete(_) => PErr { halt: Halt::NeedMore, rest: i.len() },
        };
        Ok(match i[0] {
            b'"' => string_literal(i, extent).map(|(r, s)| (r, here(Value::Str(s)))).map_err(fatal),
            b'\'' => char_literal(i).map(|(r, c)| (r, here(Value::Char(c)))).map_err(fatal),
            b if b.is_ascii_digit() => unsigned_number(i)
                .map(|(r, (int, frac))| {
                    let zeros = self.zeros;
                    (r, here(Value::Number { negative: false, zeros, int, frac }))
                })
                .map_err(fatal),
            b'[' | b'<' => {
                let array = i[0] == b'<';
                let open: &[u8] = if array { b"<<" } else { b"[" };
                match i.strip_prefix(open) {
                    // Brackets inside the event's parentheses.
                    Some(_) if self.stack.len() > MAX_NESTING => Err(PErr::at(i)),
                    Some(after) => Ok((after, Piece::Open { array })),
                    None => Err(PErr::at(i)),
                }
            }
            _ => match identifier(i) {
                Err(_) => Err(PErr::at(i)),
                Ok((_, word)) if is_reserved(word) => Err(PErr::at(i)),
                Ok((rest, word)) if is_boolean(word) => Ok((rest, here(Value::Bool(word)))),
                Ok((rest, word)) => Ok((rest, here(Value::Ident(word)))),
            },
        })
    }
}
