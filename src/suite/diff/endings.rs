//! Outputs that differ only in their line endings (a program on Windows
//! printing CRLF, a suite checked out with Git's `autocrlf`): said in one
//! line instead of a diff in which every line differs by a `␍`. Found by
//! streaming both outputs once, `\r\n` read as `\n`, in constant memory.

use std::io::{self, Read};

use super::{Diff, Labels, first_difference};

/// How one side ends its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Endings {
    /// Lines ended by `\r\n`.
    crlf: u64,
    /// Lines ended at all (`\n`, with or without `\r` before it).
    lines: u64,
}

impl Endings {
    fn words(self) -> String {
        match self {
            Endings { crlf: 0, .. } => "LF (\\n)".into(),
            Endings { crlf, lines } if crlf == lines => "CRLF (\\r\\n)".into(),
            Endings { crlf, lines } => format!("CRLF (\\r\\n) on {crlf} of its {lines} lines"),
        }
    }
}

/// The one line that says so, when `expected` and `actual` (which differ)
/// are the same but for `\r\n` against `\n`; None when they differ
/// otherwise too.
pub(super) fn only_line_endings(
    expected: &mut dyn Read,
    actual: &mut dyn Read,
    labels: Labels,
) -> io::Result<Option<Diff>> {
    let (mut e, mut a) = (Lf::new(expected), Lf::new(actual));
    if first_difference(&mut e, &mut a)?.is_some() {
        return Ok(None);
    }
    let mut diff = Diff::default();
    diff.line(format!(
        "the outputs differ only in line endings: {} {}, {} {}",
        labels.expected,
        e.seen.words(),
        labels.actual,
        a.seen.words()
    ));
    Ok(Some(diff))
}

/// Reads `inner` with each `\r\n` as `\n`, counting the line endings seen.
struct Lf<'a> {
    inner: &'a mut dyn Read,
    buf: Box<[u8]>,
    /// What of `buf` is not yet read.
    start: usize,
    end: usize,
    ended: bool,
    seen: Endings,
}

impl<'a> Lf<'a> {
    fn new(inner: &'a mut dyn Read) -> Lf<'a> {
        let buf = vec![0; 64 * 1024].into_boxed_slice();
        Lf { inner, buf, start: 0, end: 0, ended: false, seen: Endings { crlf: 0, lines: 0 } }
    }
}

impl Read for Lf<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let mut written = 0;
        while written < out.len() {
            let left = self.end - self.start;
            // A `\r` last in the buffer waits for the byte after it.
            let lone_cr = left == 1 && self.buf[self.start] == b'\r' && !self.ended;
            if left == 0 || lone_cr {
                if left == 0 && (self.ended || written > 0) {
                    break;
                }
                self.buf.copy_within(self.start..self.end, 0);
                (self.start, self.end) = (0, left);
                match self.inner.read(&mut self.buf[left..]) {
                    Ok(0) => self.ended = true,
                    Ok(n) => self.end += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
                continue;
            }
            let byte = self.buf[self.start];
            self.start += 1;
            if byte == b'\r' && self.start < self.end && self.buf[self.start] == b'\n' {
                self.seen.crlf += 1;
                continue;
            }
            self.seen.lines += u64::from(byte == b'\n');
            out[written] = byte;
            written += 1;
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(expected: &[u8], actual: &[u8]) -> Option<String> {
        let labels = Labels::default();
        only_line_endings(&mut &expected[..], &mut &actual[..], labels)
            .expect("read")
            .map(|d| d.text)
    }

    #[test]
    fn crlf_against_lf_is_said_in_one_line() {
        let lf = b"  ok\n  ___\n";
        let crlf = b"  ok\r\n  ___\r\n";
        let both =
            "the outputs differ only in line endings: expected LF (\\n), actual CRLF (\\r\\n)\n";
        assert_eq!(said(lf, crlf).as_deref(), Some(both));
        let swapped =
            "the outputs differ only in line endings: expected CRLF (\\r\\n), actual LF (\\n)\n";
        assert_eq!(said(crlf, lf).as_deref(), Some(swapped));
        let some = said(lf, b"  ok\r\n  ___\n").expect("only endings");
        assert!(some.ends_with("actual CRLF (\\r\\n) on 1 of its 2 lines\n"), "{some}");
    }

    #[test]
    fn other_differences_are_left_to_the_diff() {
        assert_eq!(said(b"a\nb\n", b"a\r\nc\r\n"), None);
        // A `\r` not before a `\n` is no line ending.
        assert_eq!(said(b"a\n", b"a\r"), None);
        assert_eq!(said(b"a\rb\n", b"ab\n"), None);
        assert_eq!(said(b"a\n", b"a\r\n\r\n"), None);
    }

    #[test]
    fn a_crlf_split_between_reads_is_still_one() {
        // One byte a read: every `\r\n` straddles a refill.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let Some((first, rest)) = self.0.split_first() else { return Ok(0) };
                out[0] = *first;
                self.0 = rest;
                Ok(1)
            }
        }
        let (mut e, mut a) = (&b"x\ny\n\r"[..], Trickle(b"x\r\ny\r\n\r"));
        let d = only_line_endings(&mut e, &mut a, Labels::default()).expect("read");
        let text = d.expect("only endings").text;
        assert!(text.ends_with("expected LF (\\n), actual CRLF (\\r\\n)\n"), "{text}");
        let mut big = vec![b'x'; 64 * 1024 - 1];
        big.extend_from_slice(b"\r\n");
        let mut lf = vec![b'x'; 64 * 1024 - 1];
        lf.push(b'\n');
        assert!(said(&lf, &big).is_some());
    }
}
