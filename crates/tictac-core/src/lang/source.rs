//! Reading a trace file: the lines that count ("kept lines").
//!
//! Before parsing, lines that are empty, only white space, or comments
//! (`--` as their first non-blank characters) are dropped, so line numbers in
//! messages count kept lines only. Each kept line is handed on with a newline.

use std::io::{self, BufRead};

use super::stream::MAX_EVENT;

/// Whether a line (without its newline) is kept.
pub fn is_kept(line: &[u8]) -> bool {
    let start = line.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\r'));
    start.is_some_and(|k| !line[k..].starts_with(b"--"))
}

/// Whether a line starting with this byte might be dropped.
fn may_drop(first: u8) -> bool {
    matches!(first, b' ' | b'\t' | b'\r' | b'\n' | b'-')
}

/// Appends a line (without its newline) and a newline, if it is kept.
fn keep_line(line: &[u8], out: &mut Vec<u8>) {
    if is_kept(line) {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
}

/// A line whose end the reader has not given yet is handed on in pieces
/// once its start tells whether it is kept (see `KeptLines::settle_pending`),
/// so a long line (or an endless one: `/dev/zero`) is never held whole, and
/// `next_piece` hands on parts of at most this many bytes.
pub const LONG_LINE: usize = 64 * 1024;

/// A byte that cannot tell whether its line is kept.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// Whether a line starting with these bytes is kept, once the start tells.
fn decided(start: &[u8]) -> Option<bool> {
    let k = start.iter().position(|&b| !is_blank(b))?;
    match start[k] {
        b'-' => start.get(k + 1).map(|&b| b != b'-'),
        _ => Some(true),
    }
}

/// Where the reader stands in the current line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Within {
    /// Its start, if any, is in `pending`.
    Start,
    /// A kept line, partly handed on already.
    Kept,
    /// A dropped line: the rest is skipped.
    Dropped,
}

/// What `KeptLines::next_piece` appended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// The rest of a kept line, with its newline.
    Line,
    /// A part of a long kept line; more follows.
    Part,
    /// Nothing: the input has ended.
    End,
}

/// Where the parser takes its text from: kept lines, in blocks.
pub trait LineSource {
    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes or the source ends; false once it has
    /// ended (what it appended, if anything, is its last).
    /// The last line appended may be the first part of a long line.
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool>;

    /// How many blanks come, at the start of a kept line, right after what
    /// the last `fill_into` appended, without having been appended: more
    /// than an event may hold (`MAX_EVENT`), so their bytes can matter only
    /// to an event too long anyway, and their number moves the columns
    /// after them. Forgets them once told.
    fn skipped(&mut self) -> u64 {
        0
    }
}

impl<R: BufRead> LineSource for KeptLines<R> {
    #[inline]
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        KeptLines::fill_into(self, out, want)
    }

    fn skipped(&mut self) -> u64 {
        std::mem::take(&mut self.skipped)
    }
}

impl<S: LineSource + ?Sized> LineSource for &mut S {
    #[inline]
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        (**self).fill_into(out, want)
    }

    fn skipped(&mut self) -> u64 {
        (**self).skipped()
    }
}

/// The next `left` kept lines of a reader: a chunk, or one window line.
pub struct Lines<'k, R> {
    lines: &'k mut KeptLines<R>,
    left: usize,
    /// Kept lines begun so far.
    begun: usize,
    /// Whether the line being read is a part line.
    in_part: bool,
}

impl<'k, R: BufRead> Lines<'k, R> {
    pub fn new(lines: &'k mut KeptLines<R>, left: usize) -> Self {
        Lines { lines, left, begun: 0, in_part: false }
    }

    /// How many kept lines the source held (fewer than asked at the end).
    pub fn begun(&self) -> usize {
        self.begun
    }

    /// Whether these lines have all been read to their end.
    pub fn is_done(&self) -> bool {
        self.left == 0
    }

    /// Reads past what is left of these lines (after a parse error), in
    /// constant memory, however long they are.
    pub fn skip_rest(&mut self) -> io::Result<()> {
        let mut scratch = Vec::new();
        loop {
            scratch.clear();
            if !self.fill_into(&mut scratch, LONG_LINE)? {
                return Ok(());
            }
        }
    }
}

impl<R: BufRead> LineSource for Lines<'_, R> {
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target {
            if self.left == 0 {
                return Ok(false);
            }
            let piece = self.lines.next_piece(out)?;
            if piece != Piece::End && !self.in_part {
                self.begun += 1;
            }
            match piece {
                Piece::Line => {
                    self.left -= 1;
                    self.in_part = false;
                    // Said at once, so the last line is parsed once, as the
                    // end of its text (a window line: every line).
                    if self.left == 0 {
                        return Ok(false);
                    }
                }
                Piece::Part => self.in_part = true,
                Piece::End => {
                    self.left = 0;
                    return Ok(false);
                }
            }
            // Skipped blanks are told before anything after them.
            if self.lines.skipped > 0 {
                return Ok(true);
            }
        }
        Ok(true)
    }

    fn skipped(&mut self) -> u64 {
        self.lines.skipped()
    }
}

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
    /// The start of a line whose end the reader has not given yet, while
    /// it cannot tell whether the line is kept: blanks, perhaps a `-`.
    pending: Vec<u8>,
    /// How many bytes at the start of `pending` are known to be blanks, so
    /// a long run of blanks is looked at once, not again with each block.
    blanks: usize,
    /// Blanks of that line before `pending`, counted rather than held: a
    /// line's start is held up to `long_blanks` bytes (see `skipped`).
    lost: u64,
    /// A kept line, or its start, to hand on once the blanks counted before
    /// it have been told (`skipped`).
    held_back: Option<Vec<u8>>,
    /// See `LineSource::skipped`.
    skipped: u64,
    within: Within,
    /// See `LONG_LINE`.
    long_line: usize,
    /// Blanks past this many at the start of a line are counted, not held.
    long_blanks: usize,
}

impl<R: BufRead> KeptLines<R> {
    /// The reader the lines come from.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    pub fn new(reader: R) -> Self {
        Self::with_long_line(reader, LONG_LINE)
    }

    /// `next_piece` hands on parts of at most `long_line` bytes (tests use
    /// short ones).
    pub fn with_long_line(reader: R, long_line: usize) -> Self {
        KeptLines {
            reader,
            pending: Vec::new(),
            blanks: 0,
            lost: 0,
            held_back: None,
            skipped: 0,
            within: Within::Start,
            long_line,
            long_blanks: MAX_EVENT,
        }
    }

    /// Lines whose leading blanks past `long_blanks` are counted (tests).
    #[cfg(test)]
    pub(crate) fn with_long_blanks(reader: R, long_line: usize, long_blanks: usize) -> Self {
        KeptLines { long_blanks, ..Self::with_long_line(reader, long_line) }
    }

    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes or the input ends; false at the end.
    /// This is the fast path for long traces: whole runs of kept lines are
    /// copied at once. The last line appended may be the first part of a
    /// line whose end is not at hand yet (see `LONG_LINE`). It stops early
    /// after a kept line's start whose blanks were counted (`skipped`).
    pub(crate) fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target {
            if let Some(back) = self.held_back.take() {
                out.extend_from_slice(&back);
                continue;
            }
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                match self.within {
                    Within::Kept => out.push(b'\n'),
                    Within::Dropped => {}
                    Within::Start => {
                        let line = self.take_pending();
                        if self.end_line(line, out) {
                            return Ok(true);
                        }
                    }
                }
                self.within = Within::Start;
                return Ok(false);
            }
            if self.within != Within::Start {
                // The rest of a long line.
                let end = memchr::memchr(b'\n', available);
                let n = end.map_or(available.len(), |e| e + 1);
                if self.within == Within::Kept {
                    out.extend_from_slice(&available[..n]);
                }
                if end.is_some() {
                    self.within = Within::Start;
                }
                self.reader.consume(n);
                continue;
            }
            let Some(last) = memchr::memrchr(b'\n', available) else {
                self.pending.extend_from_slice(available);
                let n = available.len();
                self.reader.consume(n);
                if self.settle_pending(out) {
                    return Ok(true);
                }
                continue;
            };
            let (lines, tail) = available.split_at(last + 1);
            let mut from = 0;
            if !self.pending.is_empty() || self.lost > 0 {
                let end = memchr::memchr(b'\n', lines).unwrap_or(last);
                self.pending.extend_from_slice(&lines[..end]);
                self.blanks = 0;
                let mut line = std::mem::take(&mut self.pending);
                if !is_kept(&line) {
                    self.lost = 0;
                } else if self.lost > 0 {
                    // After blanks counted: told first (see `hand_on`).
                    line.push(b'\n');
                    self.skipped = std::mem::take(&mut self.lost);
                    self.held_back = Some(line);
                    self.reader.consume(end + 1);
                    return Ok(true);
                } else {
                    keep_line(&line, out);
                }
                from = end + 1;
            }
            // Copy runs of kept lines whole; skip the others. A line that
            // starts with anything but a blank or `-` is kept: only the
            // others need a closer look.
            let mut run = from;
            let mut line_start = from;
            let mut doubtful = lines.get(from).is_some_and(|&b| may_drop(b));
            for (k, &b) in lines.iter().enumerate().skip(from) {
                if b != b'\n' {
                    continue;
                }
                if doubtful && !is_kept(&lines[line_start..k]) {
                    out.extend_from_slice(&lines[run..line_start]);
                    run = k + 1;
                }
                line_start = k + 1;
                doubtful = lines.get(line_start).is_some_and(|&b| may_drop(b));
            }
            out.extend_from_slice(&lines[run..]);
            self.pending.extend_from_slice(tail);
            let n = available.len();
            self.reader.consume(n);
            if self.settle_pending(out) {
                return Ok(true);
            }
        }
        Ok(true)
    }

    /// Ends a line whose start was pending (`line`, without its newline):
    /// hands it on if it is kept (see `hand_on`; true when it waits).
    fn end_line(&mut self, mut line: Vec<u8>, out: &mut Vec<u8>) -> bool {
        if !is_kept(&line) {
            self.lost = 0;
            return false;
        }
        line.push(b'\n');
        self.hand_on(&line, out)
    }

    /// Hands on a kept line or its start, after the blanks counted before
    /// it: when there are some, they are told first (`skipped`) and the
    /// bytes wait for the next call (then true).
    fn hand_on(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> bool {
        if self.lost == 0 {
            out.extend_from_slice(bytes);
            return false;
        }
        self.skipped = std::mem::take(&mut self.lost);
        self.held_back = Some(bytes.to_vec());
        true
    }

    /// Hands on the start of a line whose end has not come yet as soon as
    /// it shows the line is kept, or skips the rest of a dropped one: the
    /// reader may wait a long time for the rest (a FIFO whose writer stays
    /// open), and an answer that needs no more than this (a parse error at
    /// its first byte) must not wait for it. Blanks alone cannot tell yet;
    /// past `long_blanks` of them, they are counted instead of held. True
    /// when the start waits for its counted blanks to be told.
    fn settle_pending(&mut self, out: &mut Vec<u8>) -> bool {
        if self.pending.is_empty() {
            return false;
        }
        let from = self.blanks.min(self.pending.len());
        let mut waits = false;
        match decided(&self.pending[from..]) {
            Some(true) => {
                self.within = Within::Kept;
                let start = std::mem::take(&mut self.pending);
                waits = self.hand_on(&start, out);
                self.pending = start;
            }
            Some(false) => {
                self.within = Within::Dropped;
                self.lost = 0;
            }
            None => {
                let more = self.pending[from..].iter().take_while(|&&b| is_blank(b)).count();
                self.blanks = from + more;
                if self.blanks > self.long_blanks {
                    self.lost += self.blanks as u64;
                    self.pending.drain(..self.blanks);
                    self.blanks = 0;
                }
                return false;
            }
        }
        if self.pending.capacity() > self.long_line {
            self.pending = Vec::new();
        } else {
            self.pending.clear();
        }
        self.blanks = 0;
        waits
    }

    /// The pending start of a line, taken whole (its blanks forgotten).
    fn take_pending(&mut self) -> Vec<u8> {
        self.blanks = 0;
        std::mem::take(&mut self.pending)
    }

    /// Appends the next kept line with its newline (`Piece::Line`), or, for
    /// a long line, its next part (`Piece::Part`, at most about `long_line`
    /// bytes); `Piece::End` at the end of the input. A line whose counted
    /// blanks are told (`skipped`) begins with an empty part.
    pub(crate) fn next_piece(&mut self, out: &mut Vec<u8>) -> io::Result<Piece> {
        loop {
            if let Some(back) = self.held_back.take() {
                out.extend_from_slice(&back);
                return Ok(if self.within == Within::Start { Piece::Line } else { Piece::Part });
            }
            let available = self.reader.fill_buf()?;
            let newline = memchr::memchr(b'\n', available);
            match self.within {
                Within::Kept => {
                    if available.is_empty() {
                        self.within = Within::Start;
                        out.push(b'\n');
                        return Ok(Piece::Line);
                    }
                    let n = newline.map_or(available.len().min(self.long_line.max(1)), |e| e + 1);
                    out.extend_from_slice(&available[..n]);
                    self.reader.consume(n);
                    if newline.is_none() {
                        return Ok(Piece::Part);
                    }
                    self.within = Within::Start;
                    return Ok(Piece::Line);
                }
                Within::Dropped => {
                    if available.is_empty() {
                        self.within = Within::Start;
                        return Ok(Piece::End);
                    }
                    let n = newline.map_or(available.len(), |e| e + 1);
                    self.reader.consume(n);
                    if newline.is_some() {
                        self.within = Within::Start;
                    }
                }
                Within::Start => {
                    if available.is_empty() {
                        let line = self.take_pending();
                        let kept = is_kept(&line);
                        return Ok(match self.end_line(line, out) {
                            true => Piece::Part,
                            false if kept => Piece::Line,
                            false => Piece::End,
                        });
                    }
                    let Some(e) = newline else {
                        self.pending.extend_from_slice(available);
                        let n = available.len();
                        self.reader.consume(n);
                        if self.settle_pending(out) || self.within == Within::Kept {
                            return Ok(Piece::Part);
                        }
                        continue;
                    };
                    if self.pending.is_empty() && self.lost == 0 {
                        let line = &available[..e];
                        let kept = is_kept(line);
                        keep_line(line, out);
                        self.reader.consume(e + 1);
                        if kept {
                            return Ok(Piece::Line);
                        }
                        continue;
                    }
                    self.pending.extend_from_slice(&available[..e]);
                    self.reader.consume(e + 1);
                    let line = self.take_pending();
                    let kept = is_kept(&line);
                    if self.end_line(line, out) {
                        return Ok(Piece::Part);
                    }
                    if kept {
                        return Ok(Piece::Line);
                    }
                }
            }
        }
    }

    /// Counts the remaining kept lines.
    #[cfg(test)]
    pub(crate) fn count(mut self) -> io::Result<usize> {
        let mut block = Vec::new();
        let mut n = 0;
        loop {
            block.clear();
            let more = self.fill_into(&mut block, 64 * 1024)?;
            n += memchr::memchr_iter(b'\n', &block).count();
            if !more {
                return Ok(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::kept_lines;

    /// Everything `fill_into` hands on, in blocks of `want`, with each
    /// count of skipped blanks told as `<N>` where it stands.
    fn filled<R: BufRead>(mut lines: KeptLines<R>, want: usize) -> Vec<u8> {
        let mut got = Vec::new();
        loop {
            let more = lines.fill_into(&mut got, want).expect("read");
            let skipped = LineSource::skipped(&mut lines);
            if skipped > 0 {
                got.extend_from_slice(format!("<{skipped}>").as_bytes());
            }
            if !more {
                return got;
            }
        }
    }

    /// `<N>` and the blanks right after it (what was held of the line's
    /// start once counting began) as one count `<N + blanks>`.
    fn merged(text: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = text;
        while let Some(k) = rest.iter().position(|&b| b == b'<') {
            out.extend_from_slice(&rest[..k]);
            let end = k + rest[k..].iter().position(|&b| b == b'>').expect("a count");
            let n: usize =
                std::str::from_utf8(&rest[k + 1..end]).expect("digits").parse().expect("n");
            let blanks = rest[end + 1..].iter().take_while(|&&b| is_blank(b)).count();
            out.extend_from_slice(format!("<{}>", n + blanks).as_bytes());
            rest = &rest[end + 1 + blanks..];
        }
        out.extend_from_slice(rest);
        out
    }

    #[test]
    fn blank_and_comment_lines_are_dropped() {
        assert!(!is_kept(b""));
        assert!(!is_kept(b" \t\r"));
        assert!(!is_kept(b"  -- note"));
        assert!(is_kept(b"undo -- note"));
        assert!(is_kept(b"?"));
        assert!(is_kept(b"\x0c"));
    }

    #[test]
    fn kept_lines_end_with_a_newline_even_the_last() {
        let lines = KeptLines::new(&b"--c\r\nundo\r\n\n  \nredo"[..]);
        assert_eq!(filled(lines, 1), b"undo\r\nredo\n");
        assert_eq!(kept_lines(b"--c\r\nundo\r\n\n  \nredo"), b"undo\r\nredo\n");
        assert_eq!(KeptLines::new(&b"a\n\nb\n--\n"[..]).count().expect("read"), 2);
    }

    #[test]
    fn filling_in_blocks_keeps_the_same_lines_across_buffer_edges() {
        let mut text = Vec::new();
        for k in 0..5000 {
            let line: &[u8] = match k % 5 {
                0 => b"undo",
                1 => b"  -- a comment",
                2 => b"",
                3 => b"\t \r",
                _ => b"play(\"Ann\", 5)\r",
            };
            text.extend_from_slice(line);
            text.push(b'\n');
        }
        text.extend_from_slice(b"redo"); // no final newline
        let expected = kept_lines(&text);
        for capacity in [1, 7, 64, 4096] {
            let reader = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut blocks = KeptLines::new(reader);
            let mut got = Vec::new();
            while blocks.fill_into(&mut got, 100).expect("read") {}
            assert_eq!(got, expected, "buffer of {capacity}");
        }
        assert_eq!(KeptLines::new(&text[..]).count().expect("read"), 2001);
    }

    /// Blanks at the start of a line are held up to `long_blanks`, then
    /// counted: a kept line's are told (`skipped`) before the rest of it, a
    /// dropped line's forgotten; fewer come back byte for byte (a string
    /// may hold them). Blocks and pieces agree.
    #[test]
    fn long_leading_blanks_are_counted_and_told_before_their_line() {
        let blanks = |n: usize| -> Vec<u8> { (0..n).map(|k| b" \t\r"[k % 7 % 3]).collect() };
        let mut text = Vec::new();
        let mut want = Vec::new();
        for (n, rest, kept) in [
            (5000, &b"x"[..], true),
            (3000, b"-- a comment", false),
            (2000, b"-", true),
            (4000, b"", false),
            (10, b"new_game(\"A", true),
            (6000, b"B\", \"C\")", true),
            (17, b"--", false),
            (900, b"- 1", true),
        ] {
            text.extend_from_slice(&blanks(n));
            text.extend_from_slice(rest);
            text.push(b'\n');
            if kept && n > 1000 {
                want.extend_from_slice(format!("<{n}>").as_bytes());
            } else if kept {
                want.extend_from_slice(&blanks(n));
            }
            if kept {
                want.extend_from_slice(rest);
                want.push(b'\n');
            }
        }
        text.extend_from_slice(&blanks(7000)); // no final newline: dropped
        for capacity in [1, 5, 64, 1000] {
            let reader = || std::io::BufReader::with_capacity(capacity, &text[..]);
            let blocks = KeptLines::with_long_blanks(reader(), 16, 1000);
            let got = merged(&filled(blocks, 7));
            assert!(
                got == want,
                "blocks, buffer of {capacity}: {:?}",
                String::from_utf8_lossy(&got).replace(['\t', '\r'], " ")
            );
            let mut pieces = KeptLines::with_long_blanks(reader(), 16, 1000);
            let (mut got, mut lines) = (Vec::new(), 0);
            loop {
                match pieces.next_piece(&mut got).expect("read") {
                    Piece::Line => lines += 1,
                    Piece::Part => {}
                    Piece::End => break,
                }
                let skipped = LineSource::skipped(&mut pieces);
                if skipped > 0 {
                    got.extend_from_slice(format!("<{skipped}>").as_bytes());
                }
            }
            assert!(merged(&got) == want, "pieces, buffer of {capacity}");
            assert_eq!(lines, 5);
        }
    }

    #[test]
    fn long_lines_are_handed_on_in_pieces_with_the_same_bytes() {
        let long = |start: &str, fill: u8| {
            let mut line = start.as_bytes().to_vec();
            line.resize(3 * LONG_LINE + 17, fill);
            line
        };
        let mut text = Vec::new();
        for line in [
            long("undo ", b'?'),
            long("  -- ", b'c'),
            long(" ", b' '),
            // Blanks, then text: kept (held whole until the text comes).
            [vec![b'\t'; 1000], b"x".to_vec()].concat(),
            long("-", b'-'),
            b"redo".to_vec(),
            long("- ", b'1'),
        ] {
            text.extend_from_slice(&line);
            text.push(b'\n');
        }
        text.extend_from_slice(&long("play", b' ')); // no final newline
        let expected = kept_lines(&text);
        assert_eq!(memchr::memchr_iter(b'\n', &expected).count(), 5);
        for capacity in [1000, 4096, 64 * 1024] {
            let reader = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut blocks = KeptLines::new(reader);
            let mut got = Vec::new();
            let mut largest = 0;
            loop {
                let before = got.len();
                let more = blocks.fill_into(&mut got, 1).expect("read");
                largest = largest.max(got.len() - before);
                if !more {
                    break;
                }
            }
            assert!(got == expected, "buffer of {capacity}");
            assert!(largest < LONG_LINE + 2 * capacity + 2, "{largest} at once");
            let reader = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut pieces = KeptLines::new(reader);
            let (mut got, mut lines) = (Vec::new(), 0);
            loop {
                let before = got.len();
                match pieces.next_piece(&mut got).expect("read") {
                    Piece::Line => lines += 1,
                    Piece::Part => assert!(got.len() - before <= LONG_LINE + capacity + 1),
                    Piece::End => break,
                }
            }
            assert!(got == expected, "pieces, buffer of {capacity}");
            assert_eq!(lines, 5);
        }
    }
}
