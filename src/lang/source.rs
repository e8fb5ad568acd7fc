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

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
    /// The start of a line whose end the reader has not given yet.
    pending: Vec<u8>,
}

impl<R: BufRead> KeptLines<R> {
    pub fn new(reader: R) -> Self {
        KeptLines { reader, pending: Vec::new() }
    }

    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes or the input ends; false at the end.
    /// This is the fast path for long traces: whole runs of kept lines are
    /// copied at once.
    pub fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                if !self.pending.is_empty() {
                    let line = std::mem::take(&mut self.pending);
                    keep_line(&line, out);
                }
                return Ok(false);
            }
            let Some(last) = memchr::memrchr(b'\n', available) else {
                self.pending.extend_from_slice(available);
                let n = available.len();
                self.reader.consume(n);
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
        if !self.pending.is_empty() {
            // Only `fill_into` leaves a part line; finish it first.
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
}
