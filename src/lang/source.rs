//! Reading a trace file: the lines that count ("kept lines").
//!
//! Before parsing, lines that are empty, only white space, or comments
//! (`--` as their first non-blank characters) are dropped, so line numbers in
//! messages count kept lines only. Each kept line is handed on with a newline.

use std::io::{self, BufRead};

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

/// A line longer than this is handed on in pieces once its start tells
/// whether it is kept, so a long line (or an endless one: `/dev/zero`) is
/// never held whole.
pub const LONG_LINE: usize = 64 * 1024;

/// Whether a line starting with these bytes is kept, once the start tells.
fn decided(start: &[u8]) -> Option<bool> {
    let k = start.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\r'))?;
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

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
    /// The start of a line whose end the reader has not given yet.
    pending: Vec<u8>,
    within: Within,
    /// See `LONG_LINE`.
    long_line: usize,
}

impl<R: BufRead> KeptLines<R> {
    pub fn new(reader: R) -> Self {
        Self::with_long_line(reader, LONG_LINE)
    }

    /// Lines longer than `long_line` are handed on in pieces by `fill_into`
    /// (tests use short ones).
    pub fn with_long_line(reader: R, long_line: usize) -> Self {
        KeptLines { reader, pending: Vec::new(), within: Within::Start, long_line }
    }

    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes or the input ends; false at the end.
    /// This is the fast path for long traces: whole runs of kept lines are
    /// copied at once. The last line appended may be the first part of a
    /// long line (see `LONG_LINE`).
    pub fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                match self.within {
                    Within::Kept => out.push(b'\n'),
                    Within::Dropped => {}
                    Within::Start => keep_line(&std::mem::take(&mut self.pending), out),
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
                if self.pending.len() > self.long_line {
                    match decided(&self.pending) {
                        Some(true) => {
                            out.extend_from_slice(&self.pending);
                            self.within = Within::Kept;
                        }
                        Some(false) => self.within = Within::Dropped,
                        None => continue,
                    }
                    self.pending = Vec::new();
                }
                continue;
            };
            let (lines, tail) = available.split_at(last + 1);
            let mut from = 0;
            if !self.pending.is_empty() {
                let end = memchr::memchr(b'\n', lines).unwrap_or(last);
                self.pending.extend_from_slice(&lines[..end]);
                let line = std::mem::take(&mut self.pending);
                keep_line(&line, out);
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
        }
        Ok(true)
    }

    /// Appends the next kept line and a newline to `out`; false at the end.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
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
        if !self.pending.is_empty() {
            let mut line = std::mem::take(&mut self.pending);
            self.reader.read_until(b'\n', &mut line)?;
            let line = line.strip_suffix(b"\n").unwrap_or(&line);
            if is_kept(line) {
                keep_line(line, out);
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
    pub fn count(mut self) -> io::Result<usize> {
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
        }
    }
}
