//! The plain line protocol, on any input and output (a pipe, a file, a
//! `-- run: -i` directive in `tictac test`): the state, then `->` before
//! each line read; `quit` or the end of input ends it. No escape codes, so
//! piped sessions are predictable byte for byte.

use std::io::{self, BufRead, Write};

use super::{LineProtocol, PROMPT, Reply};
use crate::engine::Engine;
use crate::lang::source::{LONG_LINE, LineSource};
use crate::run::record::Recorder;

/// The plain protocol: the state, then `->` before each line read.
/// `quit` or the end of input ends it. `heard` is told what the shell did
/// with each line, and the engine after it (coverage measures a session
/// with it; the front ends pass `|_, _| {}`).
pub(crate) fn run_plain<W: Write + ?Sized>(
    mut shell: LineProtocol,
    mut input: impl BufRead,
    out: &mut W,
    recorder: &mut Recorder,
    heard: &mut impl FnMut(&Reply, &Engine),
) -> io::Result<()> {
    shell.show(out)?;
    let mut line = Vec::new();
    loop {
        out.write_all(PROMPT.as_bytes())?;
        out.flush()?;
        line.clear();
        let reply = match read_line(&mut input, &mut line, LONG_LINE)? {
            Read::End => return Ok(()),
            // A recording must hold the line: it is read whole.
            Read::Long if !recorder.is_on() => {
                let mut rest = RestOfLine::new(std::mem::take(&mut line), &mut input);
                let reply = shell.long_line(&mut rest, out)?;
                // An error can end the check early: what is left of the
                // line is still part of it, never a line of its own.
                rest.skip()?;
                reply
            }
            Read::Long | Read::Whole => {
                if line.last() != Some(&b'\n') {
                    input.read_until(b'\n', &mut line)?;
                }
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                shell.line(text, out)?
            }
        };
        heard(&reply, shell.engine());
        match reply {
            Reply::Quit => return Ok(()),
            Reply::Ran(record) => recorder.keep(&record)?,
            Reply::Shown | Reply::Man | Reply::Refused => {}
        }
    }
}

/// How much of a line `read_line` read.
enum Read {
    /// The whole line, with its newline if it had one.
    Whole,
    /// Its first bytes only: the line is longer.
    Long,
    /// Nothing: the input has ended.
    End,
}

/// Reads a line, or its first `most` bytes when it is longer.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, most: usize) -> io::Result<Read> {
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(if line.is_empty() { Read::End } else { Read::Whole });
        }
        let (n, whole) = match memchr::memchr(b'\n', available) {
            Some(k) => (k + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..n]);
        input.consume(n);
        if whole {
            return Ok(Read::Whole);
        }
        if line.len() > most {
            return Ok(Read::Long);
        }
    }
}

/// The rest of a long line, after its first bytes, as the shell sees a
/// line: without its newline, or the carriage return before it.
struct RestOfLine<'r, R> {
    first: Vec<u8>,
    input: &'r mut R,
    /// A carriage return not handed on yet: it is dropped if the line ends
    /// right after it.
    cr: bool,
    done: bool,
}

impl<'r, R: BufRead> RestOfLine<'r, R> {
    fn new(first: Vec<u8>, input: &'r mut R) -> Self {
        RestOfLine { first, input, cr: false, done: false }
    }

    fn push(&mut self, out: &mut Vec<u8>, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if std::mem::take(&mut self.cr) {
            out.push(b'\r');
        }
        match bytes.strip_suffix(b"\r") {
            Some(head) => {
                out.extend_from_slice(head);
                self.cr = true;
            }
            None => out.extend_from_slice(bytes),
        }
    }
}

impl<R: BufRead> RestOfLine<'_, R> {
    /// Reads past the end of the line, keeping nothing.
    fn skip(&mut self) -> io::Result<()> {
        while !self.done {
            let available = self.input.fill_buf()?;
            let (n, end) = match memchr::memchr(b'\n', available) {
                Some(k) => (k + 1, true),
                None => (available.len(), available.is_empty()),
            };
            self.input.consume(n);
            self.done = end;
        }
        Ok(())
    }
}

impl<R: BufRead> LineSource for RestOfLine<'_, R> {
    fn fill_into(&mut self, out: &mut Vec<u8>, want: usize) -> io::Result<bool> {
        let target = out.len() + want;
        let first = std::mem::take(&mut self.first);
        self.push(out, &first);
        while out.len() < target {
            if self.done {
                return Ok(false);
            }
            let available = self.input.fill_buf()?;
            let (n, end) = match memchr::memchr(b'\n', available) {
                Some(k) => (k + 1, true),
                None => (available.len(), available.is_empty()),
            };
            let bytes = available[..n].strip_suffix(b"\n").unwrap_or(&available[..n]).to_vec();
            self.input.consume(n);
            self.push(out, &bytes);
            if end {
                self.done = true;
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A long line read in pieces prints what the whole line prints.
    #[test]
    fn long_piped_lines_print_what_whole_lines_print() {
        let long = |head: &str, tail: &str| {
            let mut line = head.to_string();
            while line.len() <= 3 * LONG_LINE {
                line.push_str(" play(\"Ann\", 5) undo ?");
            }
            line + tail
        };
        let lines = [
            long("new_game(\"Ann\",\"Bob\")", ""),
            long("undo", "\r"),
            long("undo", " play(\"Ann\" 1)"),
            long("undo", " play(\"Ann\","),
            long("undo", " undo(1) jump(Ora)"),
            long("undo", " undo(1) jump\r\r"),
            long("-- a comment", ""),
            long("  ", "  "),
            // An error early in a long line: the rest is still that line's.
            long("#", " undo"),
            long("undo #", " aaaa"),
            long("play(\"Ann\", 5) )", " redo"),
        ];
        let mut typed = Vec::new();
        let mut whole_shell = LineProtocol::default();
        let mut whole = Vec::new();
        whole_shell.show(&mut whole).expect("vec");
        for line in &lines {
            typed.extend_from_slice(line.as_bytes());
            typed.extend_from_slice(b"\r\n");
            whole.extend_from_slice(PROMPT.as_bytes());
            // Typed with CRLF: the shell sees the line without both.
            whole_shell.line(line.as_bytes(), &mut whole).expect("vec");
        }
        whole.extend_from_slice(PROMPT.as_bytes());
        let mut streamed = Vec::new();
        // Read in pieces, as from a pipe, so that long lines are long.
        let piped = io::BufReader::with_capacity(4096, &typed[..]);
        let mut recorder = Recorder::default();
        run_plain(LineProtocol::default(), piped, &mut streamed, &mut recorder, &mut |_, _| {})
            .expect("vec");
        assert!(
            streamed == whole,
            "{}",
            String::from_utf8_lossy(&streamed[..2000.min(streamed.len())])
        );
    }
}
