//! Walking the events of a trace: from a complete text in memory, or from a
//! reader of any length. Read from a reader, the buffer holds at most one
//! event and what was read with it: blanks, comments and `?` between events
//! are read past whatever their length, and an event longer than
//! `MAX_EVENT` is refused (`TooLong`), so memory stays bounded on any input.

use std::cell::Cell;
use std::io;

use super::ast::Event;
use super::error::{Pos, SyntaxError, SyntaxKind, TooLong};
use super::parser::next_event;
use super::source::LineSource;
use super::tokens::{Extent, Halt, blank, foreign, is_word_byte};

/// The longest event a streamed trace may hold, in bytes of its kept lines
/// from the first byte of its name to its closing parenthesis (or the end
/// of its name), blanks, comments and `?` inside it included: 1 MiB. The
/// oracle reads its input whole; tictac reads a trace of any length in
/// bounded memory instead, and refuses a longer event (docs/BEHAVIOUR.md).
pub const MAX_EVENT: usize = 1 << 20;

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
    /// An event longer than the limit, starting here.
    TooLong(Pos),
}

/// What a stream carries from one text to the next, besides the text that
/// waits: nothing of the blanks it read past.
#[derive(Default)]
struct Carry {
    /// The text so far ended inside a comment whose line goes on.
    in_comment: bool,
    /// An event without arguments was visited before the blanks after its
    /// name ended (more of them than an event may hold): where it starts,
    /// for a `(` that would still come (the event would be too long).
    named: Option<Pos>,
}

/// A token is never longer than this without being able to tell, from its
/// start, that it goes on (strings and blanks say so; a character literal
/// is at most six bytes; the longest reserved word, `CHARACTER`, nine, and
/// `CHARACTERS` is a name): an error this close to the end of a text that
/// stops in the middle of a line may move once more text comes, unless the
/// bytes at hand decide it (`stays`).
const LOOKAHEAD: usize = 10;

/// Visits the events of `text` in order; an event longer than `limit`
/// bytes is not visited (`Scanned::TooLong`).
fn scan<'a, E>(
    text: &'a [u8],
    extent: Extent,
    limit: usize,
    carry: &mut Carry,
    locate: &impl Fn(usize) -> Pos,
    visit: &mut impl FnMut(&Event<'a>) -> Result<(), E>,
) -> Result<Scanned, E> {
    let partial = extent == Extent::Partial;
    // Kept lines end with a newline: a text without one at its end stops
    // in the middle of a (long) line, possibly in the middle of a token.
    let mid_line = partial && text.last().is_some_and(|&b| b != b'\n');
    let mut rest = text;
    if carry.in_comment {
        match memchr::memchr(b'\n', rest) {
            Some(k) => rest = &rest[k..],
            None if partial => return Ok(Scanned::NeedMore { consumed: text.len() }),
            None => rest = &[],
        }
        carry.in_comment = false;
    }
    if let Some(name) = carry.named {
        match blank(rest).first() {
            Some(b'(') => return Ok(Scanned::TooLong(name)),
            Some(b'-') | None => {}
            Some(_) => carry.named = None,
        }
    }
    loop {
        let consumed = text.len() - rest.len();
        match next_event(rest, extent) {
            // Only blanks and comments are left: read past them (lines of
            // `?` are not kept), remembering a comment still going on and
            // keeping a last `-` that may start one.
            Ok((_, None)) if partial => {
                let (keep, in_comment) = trailing(rest, mid_line);
                carry.in_comment = in_comment;
                return Ok(Scanned::NeedMore { consumed: text.len() - keep });
            }
            Ok((_, None)) => return Ok(Scanned::Done),
            Ok((after, Some(event))) => {
                let start = event.name.as_ptr() as usize - text.as_ptr() as usize;
                if text.len() - after.len() - start > limit {
                    return Ok(Scanned::TooLong(locate(text.len() - start)));
                }
                // `undo` at the very end might still take `(...)` from the
                // next line (or a `-` there start a comment).
                if partial && event.args.is_none() && matches!(blank(after), [] | [b'-']) {
                    return Ok(Scanned::NeedMore { consumed });
                }
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

/// For blanks at the end of a text: how many bytes at their end must wait
/// for more (a last `-`, which may start a comment), and whether they end
/// inside a comment still going on (a text that stops mid-line).
fn trailing(blanks: &[u8], mid_line: bool) -> (usize, bool) {
    if !mid_line {
        return (0, false);
    }
    let line_start = memchr::memrchr(b'\n', blanks).map_or(0, |k| k + 1);
    if memchr::memmem::find(&blanks[line_start..], b"--").is_some() {
        return (0, true);
    }
    (usize::from(blanks.last() == Some(&b'-')), false)
}

/// Whether a parse error `rest` bytes before the end of a text that more
/// text follows may still move (or go) once that text comes: at the very
/// end, and, mid-line, within `LOOKAHEAD` bytes of it, unless what is at
/// the error already decides it (see `stays`).
fn may_move(text: &[u8], rest: usize, mid_line: bool) -> bool {
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

/// The events of a complete text (a chunk, a line), or its parse error.
pub fn parse_text(text: &[u8]) -> Result<Vec<Event<'_>>, SyntaxError> {
    let mut events = Vec::new();
    let locate = |rest| Pos { line: 0, column: rest };
    let scanned = scan(text, Extent::Final, usize::MAX, &mut Carry::default(), &locate, &mut |e| {
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

/// What `for_each` hands each event to: a closure (compiled where it is
/// written, not inlined across units without LTO) or an inline `visit`.
pub(crate) trait Visit<E> {
    fn visit(&mut self, event: &Event<'_>, locator: &Locator<'_>) -> Result<(), E>;
}
impl<E, F: FnMut(&Event<'_>, &Locator<'_>) -> Result<(), E>> Visit<E> for F {
    fn visit(&mut self, event: &Event<'_>, locator: &Locator<'_>) -> Result<(), E> {
        self(event, locator)
    }
}

/// Why a walk over a streamed trace stopped early.
#[derive(Debug)]
pub(crate) enum Stop<E> {
    Syntax(SyntaxError),
    /// An event longer than `MAX_EVENT`.
    TooLong(TooLong),
    Read(io::Error),
    /// The visitor's own error.
    Visit(E),
}

/// The events of a trace read from kept lines, in bounded memory.
pub(crate) struct EventStream<S> {
    lines: S,
    buf: Vec<u8>,
    /// Where the unvisited text starts in `buf`, and its line and column.
    start: usize,
    at: Pos,
    at_end: bool,
    carry: Carry,
    /// Blanks the lines skipped right after what `buf` holds (see
    /// `LineSource::skipped`).
    skipped: u64,
    /// The longest event read (`MAX_EVENT`; tests use short ones).
    limit: usize,
}

impl<S: LineSource> EventStream<S> {
    /// The events of the kept lines `lines` gives (a whole trace, a chunk,
    /// a line), with positions from line 1, column 1.
    pub(crate) fn over(lines: S) -> Self {
        Self::reusing(lines, Vec::new())
    }

    /// The same, reading through `buf`, a buffer left by an earlier stream
    /// (`into_buffer`): a run of many short texts (window lines) then
    /// allocates nothing per text.
    pub(crate) fn reusing(lines: S, mut buf: Vec<u8>) -> Self {
        buf.clear();
        EventStream {
            lines,
            buf,
            start: 0,
            at: Pos { line: 1, column: 1 },
            at_end: false,
            carry: Carry::default(),
            skipped: 0,
            limit: MAX_EVENT,
        }
    }

    /// A stream that refuses events longer than `limit` bytes.
    #[cfg(test)]
    fn with_limit(lines: S, limit: usize) -> Self {
        EventStream { limit, ..Self::over(lines) }
    }

    /// The buffer, for the next stream (see `reusing`).
    pub(crate) fn into_buffer(self) -> Vec<u8> {
        self.buf
    }

    /// Calls `visit` with every event in order and a locator for its
    /// positions; stops at the first parse error, or at an event longer
    /// than the limit.
    pub(crate) fn for_each<E>(&mut self, mut visit: impl Visit<E>) -> Result<(), Stop<E>> {
        loop {
            // The parser sees at most one byte past the limit: an event it
            // cannot end there is too long, and what it builds of one (a
            // list of arguments) stays bounded by the limit.
            let text = &self.buf[self.start..];
            let capped = text.len() > self.limit + 1;
            let text = &text[..text.len().min(self.limit + 1)];
            let extent = if self.at_end && !capped { Extent::Final } else { Extent::Partial };
            let locator = Locator::starting_at(text, self.at);
            let locate = |rest| locator.pos(rest);
            let carry = &mut self.carry;
            let scanned =
                scan(text, extent, self.limit, carry, &locate, &mut |e| visit.visit(e, &locator))
                    .map_err(Stop::Visit)?;
            let mut consumed = match scanned {
                Scanned::Done => return Ok(()),
                Scanned::Failed { rest } => {
                    return Err(Stop::Syntax(parse_error(locator.pos(rest))));
                }
                Scanned::TooLong(at) => return Err(Stop::TooLong(TooLong(at))),
                // What waits starts at a token: the blanks before it go.
                Scanned::NeedMore { consumed } => {
                    let pending = &text[consumed..];
                    consumed + (pending.len() - blank(pending).len())
                }
            };
            if (self.skipped > 0 && !capped) || text.len() - consumed > self.limit {
                consumed = settle(text, consumed, self.limit, carry, &locator, &mut visit)?;
            }
            self.at = locator.pos(text.len() - consumed);
            // Skipped blanks follow the buffer's last line: everything
            // before them was settled.
            if !capped {
                self.at.column += std::mem::take(&mut self.skipped) as usize;
            }
            self.start += consumed;
            self.refill().map_err(Stop::Read)?;
        }
    }

    /// Drops the visited text and reads at least as much again as is left
    /// (so an event spanning many lines costs linear time), up to the
    /// limit, or to the end. Between events, what the reader has at hand is
    /// enough: an answer that does not need the rest of the input does not
    /// wait for it.
    fn refill(&mut self) -> io::Result<()> {
        self.buf.drain(..self.start);
        self.start = 0;
        let left = self.buf.len();
        // Skipped blanks stand at the buffer's end, and what is past the
        // limit is scanned next: read that first.
        if self.skipped > 0 || left > self.limit {
            return Ok(());
        }
        let want = left.clamp(1, (self.limit + 1).saturating_sub(left).max(1));
        self.at_end = !self.lines.fill_into(&mut self.buf, want)?;
        self.skipped = self.lines.skipped();
        Ok(())
    }
}

/// What waits at the end of `text` after its first `consumed` bytes, once
/// it is longer than `limit` or blanks too long to hold follow it (the
/// lines skipped them): an event's name and blanks after it (the event is
/// visited now; a `(` that comes later is refused, see `Carry::named`), or
/// an event longer than the limit. Gives how much of `text` is done with.
fn settle<'a, E>(
    text: &'a [u8],
    consumed: usize,
    limit: usize,
    carry: &mut Carry,
    locator: &Locator<'a>,
    visit: &mut impl Visit<E>,
) -> Result<usize, Stop<E>> {
    let pending = &text[consumed..];
    if pending.is_empty() {
        return Ok(consumed);
    }
    let at = locator.pos(blank(pending).len());
    match next_event(pending, Extent::Final) {
        Ok((after, Some(event)))
            if event.args.is_none()
                && event.name.len() <= limit
                && matches!(blank(after), [] | [b'-']) =>
        {
            visit.visit(&event, locator).map_err(Stop::Visit)?;
            carry.named = Some(at);
            let mid_line = text.last() != Some(&b'\n');
            let (keep, in_comment) = trailing(after, mid_line);
            carry.in_comment = in_comment;
            Ok(text.len() - keep)
        }
        _ => Err(Stop::TooLong(TooLong(at))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::source::KeptLines;
    use std::io::BufRead;

    #[test]
    fn events_may_span_lines_and_refills() {
        let mut text = Vec::new();
        for _ in 0..20_000 {
            text.extend_from_slice(b"undo\n-- c\n\n(\n1)\n");
        }
        let events = |text: &[u8]| read(io::BufReader::new(text), MAX_EVENT).0.map(|e| e.len());
        assert_eq!(events(&text), Ok(20_000));
        let long = format!("new_game(\"{}\n\",\n\"b\")\nredo", "a\\\"".repeat(100_000));
        assert_eq!(events(long.as_bytes()), Ok(2));
    }

    /// What may change with the next byte waits for it, at any buffer
    /// edge: a `-` for its number, a comment for its line's end, a name
    /// for a `(` on a later line; positions count kept lines, and the end
    /// is past the last.
    #[test]
    fn what_the_next_byte_may_change_waits_for_it() {
        let events = |names: &[&str]| Ok(names.iter().map(|n| n.to_string()).collect());
        for (text, want) in [
            (&b"play(\"a\", -\n\n3)\n"[..], events(&["play(2)"])),
            (b"play(\n\n  \n[0]) -- a note\n", events(&["play(1)"])),
            (b"play_again -- note\n(\"Ann\")", events(&["play_again(1)"])),
            (b"undo\n\n--x\n  play(\"a\" 1)\n", Err("Syntax 2:12".to_string())),
            (b"undo\nplay(\"a\",\n", Err("Syntax 3:1".to_string())),
            (b"undo\nplay(\"a\",", Err("Syntax 3:1".to_string())),
            (b"play(\"open)\nundo\n", Err("Syntax 1:6".to_string())),
            (b"play(CHARACTERS, 1)\n", events(&["play(2)"])),
        ] {
            for refill in 1..=12 {
                assert_eq!(walk(text, 64, refill).0, want, "{text:?}, refill {refill}");
            }
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
        let walked = |text| read(io::BufReader::new(ThenWaits(text)), MAX_EVENT).0;
        for (text, at) in [
            (&b"\0"[..], "Syntax 1:1"),
            (b"undo\n\xff", "Syntax 2:1"),
            (b"undo redo ;", "Syntax 1:11"),
            (b"-- c\n\nplay(\"a\", 1) #", "Syntax 1:14"),
            // Near the end of a line still coming, other errors may move.
            (b"play(1.", "Read"),
            (b"undo -", "Read"),
        ] {
            assert_eq!(walked(text), Err(at.to_string()), "{text:?}");
        }
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

    /// What a stream refusing events longer than `limit` (its lines
    /// counting leading blanks past `limit`) gives on `text` read through
    /// a buffer of `refill` bytes: the events (`name` or `name(n)`) or
    /// where it stopped (`Syntax`, `TooLong` or `Read`), and the most its
    /// buffer held.
    fn walk(text: &[u8], limit: usize, refill: usize) -> (Result<Vec<String>, String>, usize) {
        read(io::BufReader::with_capacity(refill, text), limit)
    }

    /// The same, from any reader.
    fn read(reader: impl BufRead, limit: usize) -> (Result<Vec<String>, String>, usize) {
        let lines = KeptLines::with_long_blanks(reader, limit);
        let mut stream = EventStream::with_limit(lines, limit);
        let mut got = Vec::new();
        let mut most = 0;
        let walked = stream.for_each(|e: &Event, locator: &Locator| {
            let name = String::from_utf8_lossy(e.name);
            got.push(match &e.args {
                Some(_) => format!("{name}({})", e.arguments().len()),
                None => name.into_owned(),
            });
            most = most.max(locator.text.len());
            Ok::<(), ()>(())
        });
        let got = match walked {
            Ok(()) => Ok(got),
            Err(Stop::Syntax(e)) => Err(format!("Syntax {}:{}", e.pos.line, e.pos.column)),
            Err(Stop::TooLong(TooLong(at))) => Err(format!("TooLong {}:{}", at.line, at.column)),
            Err(Stop::Read(_)) => Err("Read".to_string()),
            Err(Stop::Visit(())) => unreachable!(),
        };
        (got, most.max(stream.buf.capacity()))
    }

    /// An event is read up to the limit, from its name to its closing
    /// parenthesis (blanks, comments, `?` and line breaks inside count;
    /// what is before its name does not); one byte more is refused, where
    /// it starts, however it goes on (an open string runs to the end).
    #[test]
    fn an_event_longer_than_the_limit_is_refused_where_it_starts() {
        let limit = 64;
        let event = |len: usize| format!("e(\"{}\")", "a".repeat(len - 5));
        for refill in [1, 3, 8, 64] {
            let fits = format!("undo\n  \t{}\nredo", event(limit));
            assert_eq!(
                walk(fits.as_bytes(), limit, refill).0,
                Ok(vec!["undo".into(), "e(1)".into(), "redo".into()])
            );
            let over = format!("undo\n  \t{}\nredo", event(limit + 1));
            assert_eq!(walk(over.as_bytes(), limit, refill).0, Err("TooLong 2:4".into()));
            let lines = format!("undo play(\n\"Ann\", -- c\n?{}5)", " ".repeat(limit));
            assert_eq!(walk(lines.as_bytes(), limit, refill).0, Err("TooLong 1:6".into()));
            let open = format!("undo(\"{}", "x\\\" ".repeat(limit));
            assert_eq!(walk(open.as_bytes(), limit, refill).0, Err("TooLong 1:1".into()));
            let name = "n".repeat(limit + 1);
            assert_eq!(walk(name.as_bytes(), limit, refill).0, Err("TooLong 1:1".into()));
            // Blanks before its name are no part of it.
            let after = format!("e(1){}{}", " \n?".repeat(limit), event(limit));
            assert_eq!(
                walk(after.as_bytes(), limit, refill).0,
                Ok(vec!["e(1)".into(), "e(1)".into()])
            );
            let args = format!("e({}1)", "1,".repeat(limit));
            assert_eq!(walk(args.as_bytes(), limit, refill).0, Err("TooLong 1:1".into()));
            // A parse error found within the limit is the parse error.
            let early = format!("undo(1 2{})", " ".repeat(4 * limit));
            assert_eq!(walk(early.as_bytes(), limit, refill).0, Err("Syntax 1:8".into()));
        }
    }

    /// Blanks, comments and `?` between and after events, of any length,
    /// are read past: the buffer holds about the limit whatever their
    /// length, and the events, errors and columns are the usual ones. Only
    /// what makes an event longer than the limit is refused.
    #[test]
    fn blanks_between_events_are_read_past_not_held() {
        let limit = 256;
        let long = |fill: &str| fill.repeat(100_000 / fill.len());
        let cases = [
            (format!("undo{}redo", long("?")), Ok(vec!["undo", "redo"])),
            (format!("undo{}", long(" \t?")), Ok(vec!["undo"])),
            (
                format!("new_game(\"A\",\"B\") -- {}\nundo", long("x")),
                Ok(vec!["new_game(2)", "undo"]),
            ),
            (format!("undo -- {}\nredo", long("x")), Ok(vec!["undo", "redo"])),
            (format!("undo\n{}#", long(" ")), Err("Syntax 2:100001")),
            (format!("undo\n{}\n\t{}-- c\n #", long(" "), long("\t")), Err("Syntax 2:2")),
            (format!("undo{}-- x{}\n-\n- 1", long("\t"), long("-")), Err("Syntax 2:1")),
            // The event would hold them: too long.
            (format!("undo{}(1)\nredo", long(" ")), Err("TooLong 1:1")),
            (format!("undo -- {}\n(1)", long("x")), Err("TooLong 1:1")),
            (format!("redo\nundo\n{}(1)", long(" ")), Err("TooLong 2:1")),
            (format!("undo(-{} 3)", long(" ")), Err("TooLong 1:1")),
            (format!("play(\"a\",\n{}1)", long(" ")), Err("TooLong 1:1")),
        ];
        for (text, want) in cases {
            for refill in [1, 7, 4096] {
                let (got, most) = walk(text.as_bytes(), limit, refill);
                let want =
                    want.clone().map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
                assert_eq!(got, want.map_err(String::from), "{}, refill {refill}", &text[..12]);
                assert!(most <= 4 * limit + 2 * refill, "{most} bytes held for {}", &text[..12]);
            }
        }
    }
}
