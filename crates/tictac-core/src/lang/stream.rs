//! Walking the events of a trace: from a complete text in memory, or from a
//! reader of any length in constant memory (the buffer holds a window of
//! kept lines and grows only for an event that spans more than it holds).

use std::cell::Cell;
use std::io::{self, BufRead};

use super::ast::Event;
use super::error::{Pos, SyntaxError, SyntaxKind};
use super::fold::{FOLD_AT, Fold, Folded, Piece};
use super::parser::next_event;
use super::source::{KeptLines, LineSource};
use super::tokens::{Extent, Halt, blank, foreign, is_word_byte};

/// Turns a parser position (bytes left) into a line and column.
///
/// Positions are mostly asked for in increasing order (events are checked in
/// trace order), so the locator remembers its last answer and counts on from
/// there: a trace full of errors is still located in linear time.
pub struct Locator<'t> {
    text: &'t [u8],
    start: Pos,
    /// The last position found, and its offset in `text`.
    last: Cell<(usize, Pos)>,
}

impl<'t> Locator<'t> {
    /// For a text that starts at line 1, column 1.
    pub fn new(text: &'t [u8]) -> Self {
        Self::starting_at(text, Pos { line: 1, column: 1 })
    }

    fn starting_at(text: &'t [u8], start: Pos) -> Self {
        Locator { text, start, last: Cell::new((0, start)) }
    }

    pub fn pos(&self, rest: usize) -> Pos {
        let offset = self.text.len() - rest;
        let (mut from, mut pos) = self.last.get();
        if offset < from {
            (from, pos) = (0, self.start);
        }
        let between = &self.text[from..offset];
        match between.iter().rposition(|&b| b == b'\n') {
            None => pos.column += between.len(),
            Some(last) => {
                pos.line += memchr::memchr_iter(b'\n', between).count();
                pos.column = between.len() - last;
            }
        }
        self.last.set((offset, pos));
        pos
    }
}

/// How far a scan of a text got.
enum Scanned {
    /// Every event was visited.
    Done,
    /// The events in the first `consumed` bytes were visited; the rest may
    /// change meaning with more text.
    NeedMore { consumed: usize },
    /// A parse error, `rest` bytes before the end.
    Failed { rest: usize },
}

/// A token is never longer than this without being able to tell, from its
/// start, that it goes on (strings and blanks say so; a character literal
/// is at most six bytes): an error this close to the end of a text that
/// stops in the middle of a line may move once more text comes, unless the
/// bytes at hand decide it (`stays`).
const LOOKAHEAD: usize = 8;

/// Visits the events of `text` in order.
fn scan<'a, E>(
    text: &'a [u8],
    extent: Extent,
    visit: &mut impl FnMut(&Event<'a>) -> Result<(), E>,
) -> Result<Scanned, E> {
    let partial = extent == Extent::Partial;
    // Kept lines end with a newline: a text without one at its end stops
    // in the middle of a (long) line, possibly in the middle of a token.
    let mid_line = partial && text.last().is_some_and(|&b| b != b'\n');
    let mut rest = text;
    loop {
        let consumed = text.len() - rest.len();
        match next_event(rest, extent) {
            // Only blanks and comments are left: drop them (lines of `?`
            // are not kept), but not the start of a comment that goes on
            // past the end of a text that stops mid-line, nor a `-` that may
            // start one.
            Ok((_, None)) if partial => {
                let keep = if mid_line { unfinished_comment(rest) } else { 0 };
                return Ok(Scanned::NeedMore { consumed: text.len() - keep });
            }
            Ok((_, None)) => return Ok(Scanned::Done),
            // `undo` at the very end might still take `(...)` from the next
            // line (or a `-` there start a comment).
            Ok((after, Some(_))) if partial && matches!(blank(after), [] | [b'-']) => {
                return Ok(Scanned::NeedMore { consumed });
            }
            Ok((after, Some(event))) => {
                visit(&event)?;
                rest = after;
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                if partial && (e.halt == Halt::NeedMore || may_move(text, e.rest, mid_line)) {
                    return Ok(Scanned::NeedMore { consumed });
                }
                return Ok(Scanned::Failed { rest: e.rest });
            }
            // Our parsers never ask for more this way (see `Halt::NeedMore`).
            Err(nom::Err::Incomplete(_)) => return Ok(Scanned::NeedMore { consumed }),
        }
    }
}

/// Whether a parse error `rest` bytes before the end of a text that more
/// text follows may still move (or go) once that text comes: at the very
/// end, and, mid-line, within `LOOKAHEAD` bytes of it, unless what is at
/// the error already decides it (see `stays`).
pub(super) fn may_move(text: &[u8], rest: usize, mid_line: bool) -> bool {
    if !mid_line {
        return rest == 0;
    }
    rest < LOOKAHEAD && (rest == 0 || !stays(&text[text.len() - rest..]))
}

/// Whether a parse error at the start of `at` stays there whatever text
/// follows `at`. The text before it is whole tokens, ended by this byte;
/// the parser refuses the token here by what it is, so the error stays
/// once that token can be told: a byte no token holds, a one-byte token,
/// a number (refused by its first digit: no event starts with one, and it
/// cannot stand for a `,` or a closing bracket), `<` or `>` with the byte
/// after it, or a word with the byte after it. Not a `-` (a comment may
/// follow), a quote, or a `.` (more digits may make it part of a number).
fn stays(at: &[u8]) -> bool {
    match at {
        [b, ..] if foreign(*b) => true,
        [b'(' | b')' | b'[' | b']' | b',' | b'_' | b'0'..=b'9', ..] => true,
        [b'<' | b'>', _, ..] => true,
        [b, after @ ..] if b.is_ascii_alphabetic() => after.iter().any(|&b| !is_word_byte(b)),
        _ => false,
    }
}

/// For blanks that stop mid-line: how many bytes at their end must stay,
/// from a `--` that starts a comment still going on, or a last `-`.
pub(super) fn unfinished_comment(blanks: &[u8]) -> usize {
    let line_start = memchr::memrchr(b'\n', blanks).map_or(0, |k| k + 1);
    match memchr::memmem::find(&blanks[line_start..], b"--") {
        Some(k) => blanks.len() - line_start - k,
        None => usize::from(blanks.last() == Some(&b'-')),
    }
}

/// The events of a complete text (a chunk, a line), or its parse error.
pub fn parse_text(text: &[u8]) -> Result<Vec<Event<'_>>, SyntaxError> {
    let mut events = Vec::new();
    let scanned = scan(text, Extent::Final, &mut |e: &Event<'_>| {
        events.push(e.clone());
        Ok::<(), ()>(())
    });
    match scanned {
        Ok(Scanned::Failed { rest }) => Err(parse_error(Locator::new(text).pos(rest))),
        _ => Ok(events),
    }
}

fn parse_error(pos: Pos) -> SyntaxError {
    SyntaxError { kind: SyntaxKind::Parse, pos }
}

/// Why a walk over a streamed trace stopped early.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    Syntax(SyntaxError),
    Read(io::Error),
    /// The visitor's own error.
    Visit(E),
}

/// A buffer that grew past this (for a long token) is made small again
/// once the token is read.
const SMALL_AGAIN: usize = 1 << 20;

/// The events of a trace read from a reader, kept lines only.
pub struct EventStream<S> {
    lines: S,
    buf: Vec<u8>,
    /// Where the unvisited text starts in `buf`, and its line and column.
    start: usize,
    at: Pos,
    at_end: bool,
    /// An event longer than this is read token by token.
    fold_at: usize,
    /// The long event being read, if any.
    fold: Option<Fold>,
}

/// What the stream finds.
pub(crate) enum Found<'e, 'a> {
    /// An event, and a locator for its positions.
    Event(&'e Event<'a>, &'e Locator<'a>),
    /// A piece of an event too long to hold.
    Piece(Piece<'a>),
}

impl<R: BufRead> EventStream<KeptLines<R>> {
    /// A stream that hands on lines longer than `long_line` in pieces (tests
    /// use tiny ones, and readers with tiny buffers, to put buffer edges
    /// everywhere, in the middle of tokens too).
    #[cfg(test)]
    pub(crate) fn with_long_line(reader: R, long_line: usize) -> Self {
        EventStream::over(KeptLines::with_long_line(reader, long_line))
    }
}

impl<S: LineSource> EventStream<S> {
    /// The events of the kept lines `lines` gives (a whole trace, a chunk,
    /// a line), with positions from line 1, column 1.
    pub(crate) fn over(lines: S) -> Self {
        Self::folding_at(lines, FOLD_AT)
    }

    /// The same, reading through `buf`, a buffer left by an earlier stream
    /// (`into_buffer`): a run of many short texts (window lines) then
    /// allocates nothing per text.
    pub(crate) fn reusing(lines: S, mut buf: Vec<u8>) -> Self {
        buf.clear();
        EventStream { buf, ..Self::over(lines) }
    }

    /// The buffer, for the next stream (see `reusing`).
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// A stream that reads events longer than `fold_at` token by token
    /// (tests use tiny ones).
    pub fn folding_at(lines: S, fold_at: usize) -> Self {
        EventStream {
            lines,
            buf: Vec::new(),
            start: 0,
            at: Pos { line: 1, column: 1 },
            at_end: false,
            fold_at,
            fold: None,
        }
    }

    /// Calls `visit` with every event in order and a locator for its
    /// positions (an event too long to hold comes in pieces, see `fold`);
    /// stops at the first parse error.
    pub(crate) fn for_each<E>(
        &mut self,
        mut visit: impl FnMut(Found<'_, '_>) -> Result<(), E>,
    ) -> Result<(), Stop<E>> {
        loop {
            let extent = if self.at_end { Extent::Final } else { Extent::Partial };
            let text = &self.buf[self.start..];
            let locator = Locator::starting_at(text, self.at);
            if let Some(fold) = &mut self.fold {
                let locate = |rest| locator.pos(rest);
                let folded = fold
                    .step(text, extent, &locate, &mut |p| visit(Found::Piece(p)))
                    .map_err(Stop::Visit)?;
                let consumed = match folded {
                    Folded::Failed { rest } => {
                        return Err(Stop::Syntax(parse_error(locator.pos(rest))));
                    }
                    Folded::FailedAt(pos) => return Err(Stop::Syntax(parse_error(pos))),
                    Folded::NeedMore { .. } if self.at_end => {
                        return Err(Stop::Syntax(parse_error(locator.pos(0))));
                    }
                    Folded::Done { consumed } => {
                        self.fold = None;
                        consumed
                    }
                    Folded::NeedMore { consumed } | Folded::Paused { consumed } => consumed,
                };
                self.at = locator.pos(text.len() - consumed);
                self.start += consumed;
                if self.fold.is_some() {
                    self.refill().map_err(Stop::Read)?;
                }
                continue;
            }
            let scanned = scan(text, extent, &mut |e| visit(Found::Event(e, &locator)))
                .map_err(Stop::Visit)?;
            match scanned {
                Scanned::Done => return Ok(()),
                Scanned::Failed { rest } => {
                    return Err(Stop::Syntax(parse_error(locator.pos(rest))));
                }
                Scanned::NeedMore { consumed } => {
                    if text.len() - consumed > self.fold_at {
                        // An event too long to hold: read it token by token.
                        self.fold = Some(Fold::default());
                    }
                    self.at = locator.pos(text.len() - consumed);
                    self.start += consumed;
                    self.refill().map_err(Stop::Read)?;
                }
            }
        }
    }

    /// Drops the visited text and reads at least as much again as is left
    /// (so an event spanning many lines costs linear time), or to the end.
    /// Between events, what the reader has at hand is enough: an answer
    /// that does not need the rest of the input does not wait for it.
    ///
    /// Past `FOLD_AT` (a single long token: only a token makes the stream
    /// wait that long), the buffer grows by a sixteenth at a time, so what
    /// it reads beyond the token is a small part of it; and once the
    /// buffer holds far less than it grew to, it is made small again: a
    /// long token is held once, while it is read.
    fn refill(&mut self) -> io::Result<()> {
        self.buf.drain(..self.start);
        self.start = 0;
        if self.buf.capacity() > SMALL_AGAIN && self.buf.len() < self.buf.capacity() / 4 {
            let mut small = Vec::with_capacity(self.buf.len().max(FOLD_AT));
            small.extend_from_slice(&self.buf);
            self.buf = small;
        }
        let left = self.buf.len();
        let want = left.min(FOLD_AT).max(left / 16).max(1);
        self.at_end = !self.lines.fill_into(&mut self.buf, want)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::ast::Value;

    fn names(text: &[u8]) -> Result<Vec<String>, Stop<()>> {
        let mut out = Vec::new();
        EventStream::over(KeptLines::new(text)).for_each(|found| {
            match found {
                Found::Event(e, _) => out.push(String::from_utf8_lossy(e.name).into_owned()),
                Found::Piece(Piece::Start(name)) => {
                    out.push(String::from_utf8_lossy(name).into_owned())
                }
                Found::Piece(_) => {}
            }
            Ok(())
        })?;
        Ok(out)
    }

    fn syntax_pos(text: &[u8]) -> Pos {
        match names(text) {
            Err(Stop::Syntax(e)) => e.pos,
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn events_may_span_lines_and_refills() {
        let mut text = Vec::new();
        for _ in 0..20_000 {
            text.extend_from_slice(b"undo\n-- c\n\n(\n1)\n");
        }
        let n = names(&text).expect("parses");
        assert_eq!(n.len(), 20_000);
        let long = format!("new_game(\"{}\n\",\n\"b\")\nredo", "a\\\"".repeat(100_000));
        assert_eq!(names(long.as_bytes()).expect("parses"), ["new_game", "redo"]);
    }

    #[test]
    fn a_minus_at_a_buffer_edge_waits_for_its_number() {
        let text = b"play(\"a\", -\n\n3)\n";
        let mut events = 0;
        EventStream::with_long_line(io::BufReader::with_capacity(1, &text[..]), 1)
            .for_each(|found| {
                if let Found::Event(e, _) = found {
                    assert_eq!(e.args.as_ref().map(|a| a.len()), Some(2));
                    events += 1;
                }
                Ok::<(), ()>(())
            })
            .expect("parses");
        assert_eq!(events, 1);
    }

    #[test]
    fn positions_count_kept_lines_and_end_past_the_last() {
        assert_eq!(syntax_pos(b"undo\n\n--x\n  play(\"a\" 1)\n"), Pos { line: 2, column: 12 });
        assert_eq!(syntax_pos(b"undo\nplay(\"a\",\n"), Pos { line: 3, column: 1 });
        assert_eq!(syntax_pos(b"undo\nplay(\"a\","), Pos { line: 3, column: 1 });
        assert_eq!(syntax_pos(b"play(\"open)\nundo\n"), Pos { line: 1, column: 6 });
    }

    #[test]
    fn a_last_comment_longer_than_fold_at_is_no_event() {
        // The comment alone is left once the event is read: it waits for
        // its line to end, then ends the trace.
        for refill in 1..=8 {
            let text = b"play(\n\n  \n[0]) -- a note\n";
            let lines =
                KeptLines::with_long_line(io::BufReader::with_capacity(refill, &text[..]), refill);
            let mut events = 0;
            EventStream::folding_at(lines, 0)
                .for_each(|found| {
                    events += usize::from(matches!(found, Found::Piece(Piece::End)));
                    Ok::<(), ()>(())
                })
                .unwrap_or_else(|e| panic!("refill {refill}: {e:?}"));
            assert_eq!(events, 1, "refill {refill}");
        }
    }

    /// Gives its bytes, then fails as a reader that would wait for ever.
    struct ThenWaits(&'static [u8]);

    impl io::Read for ThenWaits {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::other("waits for more"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn an_error_at_a_byte_no_token_holds_needs_nothing_more() {
        for (text, at) in [
            (&b"\0"[..], Pos { line: 1, column: 1 }),
            (b"undo\n\xff", Pos { line: 2, column: 1 }),
            (b"undo redo ;", Pos { line: 1, column: 11 }),
            (b"-- c\n\nplay(\"a\", 1) #", Pos { line: 1, column: 14 }),
        ] {
            match names_of(io::BufReader::new(ThenWaits(text))) {
                Err(Stop::Syntax(e)) => assert_eq!(e.pos, at, "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
        // Near the end of a line still coming, other errors may move.
        assert!(matches!(names_of(io::BufReader::new(ThenWaits(b"play(1."))), Err(Stop::Read(_))));
        assert!(matches!(names_of(io::BufReader::new(ThenWaits(b"undo -"))), Err(Stop::Read(_))));
    }

    fn names_of(reader: impl BufRead) -> Result<usize, Stop<()>> {
        let mut n = 0;
        EventStream::over(KeptLines::new(reader)).for_each(|_| {
            n += 1;
            Ok(())
        })?;
        Ok(n)
    }

    #[test]
    fn the_locator_answers_in_any_order() {
        let text = b"ab\ncd\nef";
        let l = Locator::starting_at(text, Pos { line: 4, column: 3 });
        assert_eq!(l.pos(1), Pos { line: 6, column: 2 });
        assert_eq!(l.pos(7), Pos { line: 4, column: 4 });
        assert_eq!(l.pos(4), Pos { line: 5, column: 2 });
        assert_eq!(l.pos(0), Pos { line: 6, column: 3 });
    }

    #[test]
    fn a_text_in_memory_ends_where_it_ends() {
        let e = parse_text(b"play(\"a\",").expect_err("incomplete");
        assert_eq!(e.pos, Pos { line: 1, column: 10 });
        assert_eq!(parse_text(b"undo redo").expect("parses").len(), 2);
    }

    /// What an event's blanks (spaces, tabs, `?`, comments, line breaks)
    /// leave in the buffer: nothing of their length. Each text has 1 MB
    /// of them after an event (or a minus); the buffer stays within 8 times
    /// `FOLD_AT` (it holds them all without folding), and the events and
    /// errors are the usual ones.
    #[test]
    fn blanks_after_an_event_are_read_past_not_held() {
        let long = |fill: &str| fill.repeat(1_000_000 / fill.len());
        let cases = [
            (format!("undo{}(1)\nredo", long(" ")), Ok(vec!["undo(1)", "redo"])),
            (format!("undo -- {}\n(1)", long("x")), Ok(vec!["undo(1)"])),
            (
                format!("new_game(\"A\",\"B\") -- {}\nundo", long("x")),
                Ok(vec!["new_game(2)", "undo"]),
            ),
            (format!("undo(-{} 3)", long(" ")), Ok(vec!["undo(1)"])),
            (format!("undo(-{} x)", long("\t")), Err(Pos { line: 1, column: 6 })),
            (format!("undo{}redo", long("?")), Ok(vec!["undo", "redo"])),
            (format!("undo{}", long(" \t?")), Ok(vec!["undo"])),
            (
                format!("undo{}-- x{}\n-\n- 1", long("\t"), long("-")),
                Err(Pos { line: 2, column: 1 }),
            ),
        ];
        for (text, want) in cases {
            let reader = io::BufReader::with_capacity(8192, text.as_bytes());
            let mut stream = EventStream::over(KeptLines::new(reader));
            let mut got = Vec::new();
            let walked = stream.for_each(|found| {
                match found {
                    Found::Event(e, _) => got.push(echo(e.name, e.args.as_ref().map(|a| a.len()))),
                    Found::Piece(Piece::Start(name)) => got.push(echo(name, None)),
                    Found::Piece(Piece::Scalar(..)) => {
                        let last = got.last_mut().expect("an event");
                        let args = last
                            .split_once('(')
                            .map_or(0, |(_, n)| n.trim_end_matches(')').parse().unwrap_or(0));
                        *last = format!("{}({})", last.split('(').next().unwrap_or(""), args + 1);
                    }
                    Found::Piece(_) => {}
                }
                Ok::<(), ()>(())
            });
            let got = match walked {
                Ok(()) => Ok(got),
                Err(Stop::Syntax(e)) => Err(e.pos),
                Err(e) => panic!("{e:?}"),
            };
            let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(got, want, "{}", &text[..20]);
            assert!(
                stream.buf.capacity() <= 8 * FOLD_AT,
                "{} bytes held for {}",
                stream.buf.capacity(),
                &text[..20]
            );
        }
    }

    /// Leading zeros are read past, all but the last, and held as a count
    /// (a type error prints them back): endless zeros cost nothing.
    #[test]
    fn leading_zeros_of_a_number_are_read_past_not_held() {
        let zeros = "0".repeat(1_000_000);
        let cases = [
            (format!("play(\"A\",{zeros}5)"), Ok((999_999, "05", None, 10))),
            (format!("play(\"A\",-  {zeros}5)"), Ok((999_999, "05", None, 13))),
            (format!("play(\"A\",{zeros})"), Ok((999_999, "0", None, 10))),
            (format!("play(\"A\",{zeros}.50)"), Ok((999_999, "0", Some("50"), 10))),
            (format!("play(\"A\",{zeros}7 x)"), Err(Pos { line: 1, column: 1_000_012 })),
        ];
        for (text, want) in cases {
            let reader = io::BufReader::with_capacity(8192, text.as_bytes());
            let mut stream = EventStream::over(KeptLines::new(reader));
            let mut number = None;
            let walked = stream.for_each(|found| {
                if let Found::Piece(Piece::Scalar(Value::Number { zeros, int, frac, .. }, at)) =
                    found
                {
                    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
                    number = Some((zeros.get(), text(int), frac.map(text), at.column));
                }
                Ok::<(), ()>(())
            });
            match (walked, want) {
                (Ok(()), Ok((zeros, int, frac, column))) => assert_eq!(
                    number,
                    Some((zeros, int.to_string(), frac.map(String::from), column)),
                    "{}",
                    &text[..12]
                ),
                (Err(Stop::Syntax(e)), Err(pos)) => assert_eq!(e.pos, pos),
                (got, want) => panic!("{got:?}, not {want:?}"),
            }
            assert!(stream.buf.capacity() <= 8 * FOLD_AT, "{} bytes held", stream.buf.capacity());
        }
    }

    fn echo(name: &[u8], args: Option<usize>) -> String {
        let name = String::from_utf8_lossy(name);
        match args {
            Some(n) => format!("{name}({n})"),
            None => name.into_owned(),
        }
    }

    /// A `-` at the end of a text that stops mid-line may start a comment:
    /// after an event's name it does not end the event.
    #[test]
    fn a_dash_at_a_buffer_edge_after_a_name_waits_for_the_next_byte() {
        let text = b"play_again -- note\n(\"Ann\")";
        for refill in 1..=12 {
            let lines =
                KeptLines::with_long_line(io::BufReader::with_capacity(refill, &text[..]), refill);
            let mut scalars = 0;
            EventStream::folding_at(lines, 0)
                .for_each(|found| {
                    scalars += usize::from(matches!(found, Found::Piece(Piece::Scalar(..))));
                    Ok::<(), ()>(())
                })
                .unwrap_or_else(|e| panic!("refill {refill}: {e:?}"));
            assert_eq!(scalars, 1, "refill {refill}");
        }
    }

    /// Records how much the stream's buffer holds after each refill.
    struct Watched<S> {
        lines: S,
        most: usize,
    }

    impl<S: LineSource> LineSource for Watched<S> {
        fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
            let more = self.lines.fill_into(out, want)?;
            self.most = self.most.max(out.len());
            Ok(more)
        }
    }

    /// A long token is read into the buffer a sixteenth at a time (so the
    /// buffer holds little beyond it, whatever follows), and the buffer is
    /// made small again once the token is read.
    #[test]
    fn a_long_token_is_held_once_and_let_go() {
        let token = 4 << 20;
        let text = format!("undo(\"{}\")\n{}", "a".repeat(token), "undo\n".repeat(token / 5));
        let reader = io::BufReader::with_capacity(8192, text.as_bytes());
        let mut watched = Watched { lines: KeptLines::new(reader), most: 0 };
        let mut stream = EventStream::over(&mut watched);
        let mut strings = Vec::new();
        stream
            .for_each(|found| {
                if let Found::Piece(Piece::Scalar(Value::Str(s), _)) = found {
                    strings.push(s.len());
                }
                Ok::<(), ()>(())
            })
            .expect("parses");
        assert_eq!(strings, [token]);
        // What followed the token in the buffer (a sixteenth of it) stays.
        let kept = stream.buf.capacity();
        assert!(kept <= token / 8 + 4 * FOLD_AT, "{kept} bytes kept after");
        drop(stream);
        assert!(watched.most <= token + token / 16 + 4 * FOLD_AT, "{} bytes held", watched.most);
    }
}
