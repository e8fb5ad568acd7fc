//! Reading a trace file: the lines that count ("kept lines").
//!
//! Before parsing, lines that are empty, only white space, or comments
//! (`--` as their first non-blank characters) are dropped, so line numbers in
//! messages count kept lines only. Each kept line is handed on with a newline.

use std::io::{self, BufRead};

use super::blanks::{Blanks, Replay};

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

/// Ends a line whose start was pending: `line` is the rest of it after the
/// held blanks, if any (without its newline). A kept line goes to `out`,
/// or, after held blanks, to `replay`, to be handed on in pieces (then true).
fn replay_held(
    held: &mut Option<Blanks>,
    replay: &mut Option<Replay>,
    line: &[u8],
    out: &mut Vec<u8>,
) -> io::Result<bool> {
    match held.take() {
        Some(blanks) if is_kept(line) => {
            let mut tail = Vec::with_capacity(line.len() + 1);
            tail.extend_from_slice(line);
            tail.push(b'\n');
            *replay = Some(blanks.replay(tail)?);
            Ok(true)
        }
        _ => {
            keep_line(line, out);
            Ok(false)
        }
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
}

impl<R: BufRead> LineSource for KeptLines<R> {
    #[inline]
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        KeptLines::fill_into(self, out, want)
    }
}

impl<S: LineSource + ?Sized> LineSource for &mut S {
    #[inline]
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        (**self).fill_into(out, want)
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
        }
        Ok(true)
    }
}

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
    /// The start of a line whose end the reader has not given yet.
    pending: Vec<u8>,
    /// How many bytes at the start of `pending` are known to be blanks, so
    /// a long run of blanks is looked at once, not again with each block.
    blanks: usize,
    /// Blanks before `pending`, moved out of it past `long_line` bytes: a
    /// line of blanks whose end has not come costs constant memory.
    held: Option<Blanks>,
    /// A kept line's held blanks and the bytes after them, still to be
    /// handed on (in pieces) before anything else.
    replay: Option<Replay>,
    within: Within,
    /// See `LONG_LINE`.
    long_line: usize,
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
            held: None,
            replay: None,
            within: Within::Start,
            long_line,
        }
    }

    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes or the input ends; false at the end.
    /// This is the fast path for long traces: whole runs of kept lines are
    /// copied at once. The last line appended may be the first part of a
    /// line whose end is not at hand yet (see `LONG_LINE`).
    pub(crate) fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target {
            if let Some(replay) = &mut self.replay {
                if replay.next_into(out, self.long_line)? {
                    self.replay = None;
                }
                continue;
            }
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                match self.within {
                    Within::Kept => out.push(b'\n'),
                    Within::Dropped => {}
                    Within::Start => {
                        let line = self.take_pending();
                        if replay_held(&mut self.held, &mut self.replay, &line, out)? {
                            continue;
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
                self.settle_pending(out)?;
                continue;
            };
            let (lines, tail) = available.split_at(last + 1);
            let mut from = 0;
            if !self.pending.is_empty() || self.held.is_some() {
                let end = memchr::memchr(b'\n', lines).unwrap_or(last);
                self.pending.extend_from_slice(&lines[..end]);
                self.blanks = 0;
                let line = std::mem::take(&mut self.pending);
                if replay_held(&mut self.held, &mut self.replay, &line, out)? {
                    self.reader.consume(end + 1);
                    continue;
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
            self.settle_pending(out)?;
        }
        Ok(true)
    }

    /// Whether a line has begun whose end has not come.
    fn has_start(&self) -> bool {
        !self.pending.is_empty() || self.held.is_some()
    }

    /// Hands on the start of a line whose end has not come yet as soon as
    /// it shows the line is kept, or skips the rest of a dropped one: the
    /// reader may wait a long time for the rest (a FIFO whose writer stays
    /// open), and an answer that needs no more than this (a parse error at
    /// its first byte) must not wait for it. Blanks alone cannot tell yet.
    fn settle_pending(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let from = self.blanks.min(self.pending.len());
        match decided(&self.pending[from..]) {
            Some(true) => {
                self.within = Within::Kept;
                match self.held.take() {
                    None => out.extend_from_slice(&self.pending),
                    Some(held) => {
                        let tail = std::mem::take(&mut self.pending);
                        self.replay = Some(held.replay(tail)?);
                    }
                }
            }
            Some(false) => {
                self.within = Within::Dropped;
                self.held = None;
            }
            None => {
                let more = self.pending[from..].iter().take_while(|&&b| is_blank(b)).count();
                self.blanks = from + more;
                // Past `long_line`, the blanks are held as runs instead.
                if self.blanks > self.long_line {
                    let rest = self.pending.split_off(self.blanks);
                    let blanks = std::mem::replace(&mut self.pending, rest);
                    self.held.get_or_insert_with(Blanks::default).push(&blanks)?;
                    self.blanks = 0;
                }
                return Ok(());
            }
        }
        if self.pending.capacity() > self.long_line {
            self.pending = Vec::new();
        } else {
            self.pending.clear();
        }
        self.blanks = 0;
        Ok(())
    }

    /// The pending start of a line, taken whole (its blanks forgotten).
    fn take_pending(&mut self) -> Vec<u8> {
        self.blanks = 0;
        std::mem::take(&mut self.pending)
    }

    /// Appends the next kept line with its newline (`Piece::Line`), or, for
    /// a long line, its next part (`Piece::Part`, at most about `long_line`
    /// bytes); `Piece::End` at the end of the input.
    pub(crate) fn next_piece(&mut self, out: &mut Vec<u8>) -> io::Result<Piece> {
        loop {
            if let Some(replay) = &mut self.replay {
                if !replay.next_into(out, self.long_line)? {
                    return Ok(Piece::Part);
                }
                self.replay = None;
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
                        if replay_held(&mut self.held, &mut self.replay, &line, out)? {
                            continue;
                        }
                        return Ok(if is_kept(&line) { Piece::Line } else { Piece::End });
                    }
                    let Some(e) = newline else {
                        self.pending.extend_from_slice(available);
                        let n = available.len();
                        self.reader.consume(n);
                        self.settle_pending(out)?;
                        if self.within == Within::Kept && self.replay.is_none() {
                            return Ok(Piece::Part);
                        }
                        continue;
                    };
                    let kept = if self.pending.is_empty() && self.held.is_none() {
                        let line = &available[..e];
                        let kept = is_kept(line);
                        if kept {
                            keep_line(line, out);
                        }
                        kept
                    } else {
                        self.pending.extend_from_slice(&available[..e]);
                        self.blanks = 0;
                        let line = std::mem::take(&mut self.pending);
                        if replay_held(&mut self.held, &mut self.replay, &line, out)? {
                            self.reader.consume(e + 1);
                            continue;
                        }
                        is_kept(&line)
                    };
                    self.reader.consume(e + 1);
                    if kept {
                        return Ok(Piece::Line);
                    }
                }
            }
        }
    }

    /// Appends the next kept line and a newline to `out`; false at the end.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
        if let Some(mut replay) = self.replay.take() {
            while !replay.next_into(out, self.long_line)? {}
            if self.within == Within::Start {
                return Ok(true);
            }
        }
        // Only `fill_into` leaves a part line; finish it first.
        match std::mem::replace(&mut self.within, Within::Start) {
            Within::Start => {}
            Within::Kept => {
                self.reader.read_until(b'\n', out)?;
                if out.last() != Some(&b'\n') {
                    out.push(b'\n');
                }
                return Ok(true);
            }
            Within::Dropped => {
                self.reader.read_until(b'\n', &mut Vec::new())?;
            }
        }
        if self.has_start() {
            let mut line = self.take_pending();
            self.reader.read_until(b'\n', &mut line)?;
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            if replay_held(&mut self.held, &mut self.replay, line, out)? {
                return self.next_into(out);
            }
            if is_kept(line) {
                return Ok(true);
            }
        }
        loop {
            let start = out.len();
            if self.reader.read_until(b'\n', out)? == 0 {
                return Ok(false);
            }
            if out.last() == Some(&b'\n') {
                out.pop();
            }
            if is_kept(&out[start..]) {
                out.push(b'\n');
                return Ok(true);
            }
            out.truncate(start);
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
        let mut lines = KeptLines::new(&b"--c\r\nundo\r\n\n  \nredo"[..]);
        let mut out = Vec::new();
        while lines.next_into(&mut out).expect("read") {}
        assert_eq!(out, b"undo\r\nredo\n");
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
        let mut expected = Vec::new();
        let mut lines = KeptLines::new(&text[..]);
        while lines.next_into(&mut expected).expect("read") {}
        for capacity in [1, 7, 64, 4096] {
            let reader = std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut blocks = KeptLines::new(reader);
            let mut got = Vec::new();
            while blocks.fill_into(&mut got, 100).expect("read") {}
            assert_eq!(got, expected, "buffer of {capacity}");
        }
        assert_eq!(KeptLines::new(&text[..]).count().expect("read"), 2001);
    }

    /// Blanks past `long_line` at the start of a line are held as runs, then
    /// handed on byte for byte if the line is kept (a string may hold them).
    #[test]
    fn long_leading_blanks_are_held_and_handed_on_byte_for_byte() {
        let blanks = |n: usize| -> Vec<u8> { (0..n).map(|k| b" \t\r"[k % 7 % 3]).collect() };
        let mut text = Vec::new();
        for (n, rest) in [
            (5000, &b"x"[..]),
            (3000, b"-- a comment"),
            (2000, b"-"),
            (4000, b""),
            (100, b"new_game(\"A"),
            (6000, b"B\", \"C\")"),
            (17, b"--"),
            (900, b"- 1"),
        ] {
            text.extend_from_slice(&blanks(n));
            text.extend_from_slice(rest);
            text.push(b'\n');
        }
        text.extend_from_slice(&blanks(7000)); // no final newline: dropped
        let mut expected = Vec::new();
        let mut lines = KeptLines::new(&text[..]);
        while lines.next_into(&mut expected).expect("read") {}
        assert_eq!(memchr::memchr_iter(b'\n', &expected).count(), 5);
        for capacity in [1, 5, 64, 1000] {
            let reader = || std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut blocks = KeptLines::with_long_line(reader(), 16);
            let mut got = Vec::new();
            while blocks.fill_into(&mut got, 7).expect("read") {}
            assert!(got == expected, "blocks, buffer of {capacity}");
            let mut pieces = KeptLines::with_long_line(reader(), 16);
            let (mut got, mut lines) = (Vec::new(), 0);
            loop {
                let before = got.len();
                match pieces.next_piece(&mut got).expect("read") {
                    Piece::Line => lines += 1,
                    Piece::Part => assert!(got.len() - before <= 2 * 16 + capacity + 1),
                    Piece::End => break,
                }
            }
            assert!(got == expected, "pieces, buffer of {capacity}");
            assert_eq!(lines, 5);
            // The whole-line reader after a block left a line part-read.
            let mut mixed = KeptLines::with_long_line(reader(), 16);
            let mut got = Vec::new();
            mixed.fill_into(&mut got, 1).expect("read");
            while mixed.next_into(&mut got).expect("read") {}
            assert!(got == expected, "mixed, buffer of {capacity}");
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
        let mut expected = Vec::new();
        let mut lines = KeptLines::new(&text[..]);
        while lines.next_into(&mut expected).expect("read") {}
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
