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

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
}

impl<R: BufRead> KeptLines<R> {
    pub fn new(reader: R) -> Self {
        KeptLines { reader }
    }

    /// Appends the next kept line and a newline to `out`; false at the end.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> io::Result<bool> {
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
        let mut line = Vec::new();
        let mut n = 0;
        while self.next_into(&mut line)? {
            n += 1;
            line.clear();
        }
        Ok(n)
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
}
