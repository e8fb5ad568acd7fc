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

/// The size of the pieces a line is read in when it is not kept whole (a
/// piped shell line longer than this, what is skipped after a parse error).
pub const LONG_LINE: usize = 64 * 1024;

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
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let mut all = usize::MAX;
        self.read(out, want, &mut all)
    }

    fn skipped(&mut self) -> u64 {
        std::mem::take(&mut self.line.skipped)
    }
}

impl<S: LineSource + ?Sized> LineSource for &mut S {
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
    asked: usize,
}

impl<'k, R: BufRead> Lines<'k, R> {
    pub fn new(lines: &'k mut KeptLines<R>, left: usize) -> Self {
        Lines { lines, left, asked: left }
    }

    /// How many kept lines the source held (fewer than asked at the end).
    pub fn begun(&self) -> usize {
        self.asked - self.left
            + usize::from(self.left > 0 && self.lines.line.within == Within::Kept)
    }

    /// Whether these lines have all been read to their end.
    pub fn is_done(&self) -> bool {
        self.left == 0
    }

    /// Reads past what is left of these lines (after a parse error), in
    /// constant memory, however long they are.
    pub fn skip_rest(&mut self) -> io::Result<()> {
        let mut scratch = Vec::new();
        while self.fill_into(&mut scratch, LONG_LINE)? {
            scratch.clear();
        }
        Ok(())
    }
}

impl<R: BufRead> LineSource for Lines<'_, R> {
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        self.lines.read(out, want, &mut self.left)
    }

    fn skipped(&mut self) -> u64 {
        self.lines.skipped()
    }
}

/// Where the reader stands in the current line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Within {
    /// At its start, or in blanks that cannot tell yet whether it is kept.
    #[default]
    Start,
    /// After those blanks, a `-`: a second one makes it a comment.
    Dash,
    /// A kept line: the rest is handed on.
    Kept,
    /// A dropped line: the rest is skipped.
    Dropped,
}

/// What the reader knows of the current line's start.
#[derive(Default)]
struct LineStart {
    within: Within,
    /// The start of a line that cannot tell yet whether it is kept (blanks,
    /// perhaps a last `-`), held until it can; once kept, handed on first.
    pending: Vec<u8>,
    /// Blanks of that start past `long_blanks`, counted rather than held.
    lost: u64,
    /// See `LineSource::skipped`.
    skipped: u64,
    /// A kept line's start waits in `pending` while its counted blanks are
    /// told.
    held: bool,
    long_blanks: usize,
}

impl LineStart {
    /// Looks at the bytes of a line's start (a line of blanks may go on
    /// for ever) until they tell whether it is kept; gives how many it
    /// took. A kept line's held start is handed on (or waits while its
    /// counted blanks are told, `skipped`); the byte that told is not taken.
    fn settle(&mut self, bytes: &[u8], out: &mut Vec<u8>) -> usize {
        for (k, &b) in bytes.iter().enumerate() {
            self.within = match (self.within, b) {
                (Within::Start, b' ' | b'\t' | b'\r') => Within::Start,
                (Within::Start, b'-') => Within::Dash,
                (Within::Start, b'\n') | (Within::Dash, b'-') => Within::Dropped,
                _ => Within::Kept,
            };
            match self.within {
                Within::Kept => {
                    self.keep(out);
                    return k;
                }
                Within::Dropped => {
                    self.pending.clear();
                    self.lost = 0;
                    // A line of blanks ends here.
                    if b == b'\n' {
                        self.within = Within::Start;
                    }
                    return k + 1;
                }
                _ => self.pending.push(b),
            }
            if self.pending.len() > self.long_blanks && self.within == Within::Start {
                self.lost += self.pending.len() as u64;
                self.pending.clear();
            }
        }
        bytes.len()
    }

    /// Takes from `bytes` (what the reader has at hand) what the current
    /// line's state decides (see `KeptLines::read`); gives how many.
    fn take(&mut self, bytes: &[u8], out: &mut Vec<u8>, lines: &mut usize) -> usize {
        match self.within {
            Within::Kept | Within::Dropped => {
                let end = memchr::memchr(b'\n', bytes);
                let n = end.map_or(bytes.len(), |e| e + 1);
                if self.within == Within::Kept {
                    out.extend_from_slice(&bytes[..n]);
                    *lines -= usize::from(end.is_some());
                }
                if end.is_some() {
                    self.within = Within::Start;
                }
                n
            }
            _ if self.pending.is_empty() && self.lost == 0 => {
                match whole_lines(bytes, out, lines) {
                    0 => self.settle(bytes, out),
                    n => n,
                }
            }
            _ => self.settle(bytes, out),
        }
    }

    /// The line is kept: its held start is handed on, after the blanks
    /// counted before it are told.
    fn keep(&mut self, out: &mut Vec<u8>) {
        self.within = Within::Kept;
        if self.lost > 0 {
            self.skipped = std::mem::take(&mut self.lost);
            self.held = true;
        } else {
            out.append(&mut self.pending);
        }
    }
}

/// The kept lines of a reader, in order.
pub struct KeptLines<R> {
    reader: R,
    line: LineStart,
}

impl<R: BufRead> KeptLines<R> {
    /// The reader the lines come from.
    pub fn reader(&self) -> &R {
        &self.reader
    }

    pub fn new(reader: R) -> Self {
        Self::with_long_blanks(reader, MAX_EVENT)
    }

    /// Lines whose leading blanks past `long_blanks` are counted, not held
    /// (tests use few).
    pub(crate) fn with_long_blanks(reader: R, long_blanks: usize) -> Self {
        KeptLines { reader, line: LineStart { long_blanks, ..LineStart::default() } }
    }

    /// Appends kept lines (each with its newline) to `out` until it has
    /// grown by at least `want` bytes, `lines` kept lines have ended
    /// (counted down), or the input ends; false at the end (of the input
    /// or of those lines). What the reader holds of whole lines is taken at
    /// once, so a long trace is copied in runs of kept lines; the last line
    /// appended may be the start of one whose end is not at hand yet. It
    /// stops early after a kept line's start whose blanks were counted
    /// (`skipped`), so they are told before what follows them.
    fn read(&mut self, out: &mut Vec<u8>, want: usize, lines: &mut usize) -> io::Result<bool> {
        let target = out.len() + want;
        while out.len() < target && *lines > 0 {
            let line = &mut self.line;
            if line.held {
                out.append(&mut line.pending);
                line.held = false;
                continue;
            }
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                match line.within {
                    Within::Kept => {
                        out.push(b'\n');
                        *lines -= 1;
                    }
                    Within::Dash => {
                        // A last line `-` is kept.
                        line.keep(out);
                        return Ok(true);
                    }
                    Within::Start | Within::Dropped => {}
                }
                line.within = Within::Start;
                line.pending.clear();
                line.lost = 0;
                return Ok(false);
            }
            // All the reader has at hand is taken (up to `lines`).
            let mut taken = 0;
            while taken < available.len() && *lines > 0 && !line.held {
                taken += line.take(&available[taken..], out, lines);
            }
            self.reader.consume(taken);
            if self.line.held {
                return Ok(true);
            }
        }
        Ok(*lines > 0)
    }
}

/// Takes the whole lines at the start of `bytes`, up to `lines` kept ones
/// (counted down): appends the kept ones to `out`, in runs; gives how many
/// bytes it took.
fn whole_lines(bytes: &[u8], out: &mut Vec<u8>, lines: &mut usize) -> usize {
    let (mut run, mut start) = (0, 0);
    for end in memchr::memchr_iter(b'\n', bytes) {
        let line = &bytes[start..end];
        // Only a line that starts with a blank or `-` may be dropped.
        if matches!(line.first(), Some(b' ' | b'\t' | b'\r' | b'-') | None) && !is_kept(line) {
            out.extend_from_slice(&bytes[run..start]);
            run = end + 1;
        } else {
            *lines -= 1;
        }
        start = end + 1;
        if *lines == 0 {
            break;
        }
    }
    out.extend_from_slice(&bytes[run..start]);
    start
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::kept_lines;

    /// Everything `fill_into` hands on, in blocks of `want`, with each
    /// count of skipped blanks told as `<N>` where it stands.
    fn filled(mut lines: impl LineSource, want: usize) -> Vec<u8> {
        let mut got = Vec::new();
        loop {
            let more = lines.fill_into(&mut got, want).expect("read");
            let skipped = lines.skipped();
            if skipped > 0 {
                got.extend_from_slice(format!("<{skipped}>").as_bytes());
            }
            if !more {
                return got;
            }
        }
    }

    /// The same, read one kept line at a time (as windows read), and how
    /// many lines were begun.
    fn one_by_one<R: BufRead>(mut lines: KeptLines<R>, want: usize) -> (Vec<u8>, usize) {
        let (mut got, mut begun) = (Vec::new(), 0);
        loop {
            let mut line = Lines::new(&mut lines, 1);
            got.extend_from_slice(&filled(&mut line, want));
            if line.begun() == 0 {
                return (got, begun);
            }
            assert!(line.is_done());
            begun += line.begun();
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
            let blanks = rest[end + 1..].iter().take_while(|&&b| b" \t\r".contains(&b)).count();
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
        assert_eq!(filled(KeptLines::new(&b"a\n\nb\n--\n"[..]), 1), b"a\nb\n");
        assert_eq!(filled(KeptLines::new(&b"x\n \t-"[..]), 1), b"x\n \t-\n");
    }

    #[test]
    fn filling_in_blocks_keeps_the_same_lines_across_buffer_edges() {
        let mut text = Vec::new();
        for k in 0..5000 {
            let line: &[u8] = match k % 6 {
                0 => b"undo",
                1 => b"  -- a comment",
                2 => b"",
                3 => b"\t \r",
                4 => b" - 1",
                _ => b"play(\"Ann\", 5)\r",
            };
            text.extend_from_slice(line);
            text.push(b'\n');
        }
        text.extend_from_slice(b"redo"); // no final newline
        let expected = kept_lines(&text);
        let n = memchr::memchr_iter(b'\n', &expected).count();
        for capacity in [1, 7, 64, 4096] {
            let reader = || std::io::BufReader::with_capacity(capacity, &text[..]);
            assert_eq!(filled(KeptLines::new(reader()), 100), expected, "buffer of {capacity}");
            let (got, begun) = one_by_one(KeptLines::new(reader()), 100);
            assert_eq!((got, begun), (expected.clone(), n), "lines, buffer of {capacity}");
        }
    }

    /// Blanks at the start of a line are held up to `long_blanks`, then
    /// counted: a kept line's are told (`skipped`) before the rest of it, a
    /// dropped line's forgotten; fewer come back byte for byte (a string
    /// may hold them). Blocks and single lines agree.
    #[test]
    fn long_leading_blanks_are_counted_and_told_before_their_line() {
        let blanks = |n: usize| -> Vec<u8> { (0..n).map(|k| b" \t\r"[k % 7 % 3]).collect() };
        let mut text = Vec::new();
        let mut want = Vec::new();
        for (n, rest, kept) in [
            (5000, &b"x"[..], true),
            (1001, b"y", true),
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
            let got = merged(&filled(KeptLines::with_long_blanks(reader(), 1000), 7));
            let shown = |got: &[u8]| String::from_utf8_lossy(got).replace(['\t', '\r'], " ");
            assert!(got == want, "blocks, buffer of {capacity}: {:?}", shown(&got));
            let (got, begun) = one_by_one(KeptLines::with_long_blanks(reader(), 1000), 7);
            assert!(merged(&got) == want, "lines, buffer of {capacity}: {:?}", shown(&got));
            assert_eq!(begun, 6);
        }
    }

    /// A line whose end is not at hand is handed on as it comes, never
    /// held whole (an endless one: `/dev/zero`).
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
            let reader = || std::io::BufReader::with_capacity(capacity, &text[..]);
            let mut blocks = KeptLines::new(reader());
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
            assert!(largest <= 1000 + capacity + 1, "{largest} at once");
            assert_eq!(one_by_one(KeptLines::new(reader()), 1), (expected.clone(), 5));
        }
    }
}
