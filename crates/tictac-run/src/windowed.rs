//! Window mode: `-w M N IN [OUT]` and `-l IN [OUT]`. Each kept line is a
//! trace of its own; only the lines of the window are shown.
//!
//! The input is read once. A window counted from the start (`M`, `N` > 0 or
//! `_`) runs each line as it is read: its output does not depend on what
//! follows, and reading stops at its end. Any other window needs the number
//! of lines: each line is checked as it is read and its outcome (its
//! commands, or its error message) kept on a tape, which is played once the
//! window is resolved.

use std::io::{self, BufRead, Read, Write};

use crate::command::Command;
use crate::engine::Engine;
use crate::lang::source::{KeptLines, Lines};
use crate::lang::{self, Failure, Rejection};
use crate::spool::{Spool, read_varint, truncated, write_varint};
use crate::status::Status;
use crate::tape::{Checkpoint, Entry, FIRST_MARK, Tape, TapeReader};
use crate::watch::{Message, Showing, Unit, Watch};
use crate::window::{Window, WindowEnd};
use crate::{Input, RunError};

/// Ends the commands of a line that ran.
const LINE_END: u8 = FIRST_MARK;
/// A line with an error: its message follows in pieces (a length, the
/// bytes), ending with an empty piece.
const LINE_ERROR: u8 = FIRST_MARK + 1;
/// A run of valid lines without commands (`?`, say): the count follows.
/// Such lines are counted, not stored one by one.
const EMPTY_LINES: u8 = FIRST_MARK + 2;

/// Why a window's bounds are refused, in SPEC §5's words: the command
/// line's (`-w M N`) and the web API's alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("Error: the start of window is not a valid integer")]
    Start,
    #[error("Error: the end of window is neither a valid integer nor '_'")]
    End,
    #[error("Error: a window [start, end) should be such that start <= end")]
    Order,
    #[error(
        "Error: when the start of a window is non-positive, its end must be a non-positive number"
    )]
    Sign,
}

/// A window from its bounds as read (`None`: not a 32-bit integer; the end
/// `_` is `WindowEnd::Unbounded`), checked in SPEC §5's order: the start,
/// the end, `start <= end`, and a non-positive start with a non-positive end.
pub fn checked(start: Option<i32>, end: Option<WindowEnd>) -> Result<Window, WindowError> {
    let start = start.ok_or(WindowError::Start)?;
    let end = end.ok_or(WindowError::End)?;
    if let WindowEnd::Line(n) = end {
        if start > n {
            return Err(WindowError::Order);
        }
        if start <= 0 && n > 0 {
            return Err(WindowError::Sign);
        }
    }
    Ok(Window { start, end })
}

pub(crate) fn run(window: Window, input: Input, out: &mut impl Watch) -> Result<Status, RunError> {
    match window.counted_from_start() {
        Some((first, end)) => stream(window, first, end, input, out),
        None => run_counted(window, input, out),
    }
}

/// A window counted from the start (`M` > 0, `N` > 0 or `_`): each line's
/// output does not depend on how many lines follow, so each line runs as
/// soon as it is read and nothing accumulates: the output comes as the
/// input does, an endless input runs until stopped, and a closed output
/// ends the run. Lines `first..end` are shown (`end` is `N`; `None` for `_`).
fn stream(
    window: Window,
    first: usize,
    end: Option<usize>,
    mut input: Input,
    out: &mut impl Watch,
) -> Result<Status, RunError> {
    let name = input.name().to_owned();
    let needed = window.lines_needed();
    let mut lines = KeptLines::new(&mut input);
    let mut player = Player::new(first);
    let mut buf = Vec::new();
    let mut k = 0;
    while needed.is_none_or(|n| k < n) {
        // What is printed goes out before a read that may wait.
        if !lines.reader().holds_a_line() {
            out.flush()?;
        }
        // One line at a time on a tape of its own.
        let mut tape = LineTape::default();
        let mut line = Lines::new(&mut lines, 1);
        if !check_line(&mut line, k + 1, &mut tape, &mut buf, &name)? {
            break;
        }
        k += 1;
        // Lines from `N` on do not run (only `-w 1 1` reads one: to tell
        // an empty trace).
        if end.is_none_or(|n| k < n) {
            player.line(k, k >= first, &mut tape.reader().map_err(RunError::Spool)?, out)?;
        }
        // What a parse error left of the line is read past only after its
        // answer is out: an endless line still gets its answer.
        if needed != Some(k) && !line.is_done() {
            out.flush()?;
            line.skip_rest().map_err(|e| RunError::Read(name.clone(), e))?;
        }
    }
    // An empty window shows the state it stands at (SPEC §5).
    let empty = window.resolve(k).is_some_and(|(first, end)| first == end);
    player.finish(empty, out)
}

/// Any other window: every line is checked and kept on a tape until the
/// number of lines is known, then the window is resolved and played.
fn run_counted(window: Window, mut input: Input, out: &mut impl Watch) -> Result<Status, RunError> {
    let name = input.name().to_owned();
    let needed = window.lines_needed();
    let mut lines = KeptLines::new(&mut input);
    let mut tape = LineTape::default();
    // The stream's buffer, kept from line to line.
    let mut buf = Vec::new();
    let mut k = 0;
    while needed.is_none_or(|n| k < n) {
        if !read_line(&mut lines, k + 1, &mut tape, &mut buf, needed == Some(k + 1), &name)? {
            break;
        }
        k += 1;
    }
    let Some((first, end)) = window.resolve(k) else {
        return Ok(Status::Ran);
    };
    play(tape, first, end, out)
}

/// Reads the next kept line (the file's `number`th) onto `tape`; unless
/// the line is the `last` one needed, what a parse error left of it is
/// skipped. False at the end of the input.
fn read_line<R: BufRead>(
    lines: &mut KeptLines<R>,
    number: usize,
    tape: &mut LineTape,
    buf: &mut Vec<u8>,
    last: bool,
    name: &str,
) -> Result<bool, RunError> {
    let mut line = Lines::new(lines, 1);
    let read = check_line(&mut line, number, tape, buf, name)?;
    if read && !last {
        line.skip_rest().map_err(|e| RunError::Read(name.to_owned(), e))?;
    }
    Ok(read)
}

/// Checks a kept line (the file's `number`th: an event too long is named
/// by its line in the file) as it is read and puts it on `tape`: its
/// commands go on at once (taken back if the line turns out wrong), so a
/// line of any length costs constant memory, and a short one nothing but
/// its bytes. `buf` is the stream's buffer, kept from line to line. After
/// a parse error the rest of the line is left unread. False at the end of
/// the input.
fn check_line<R: BufRead>(
    line: &mut Lines<'_, R>,
    number: usize,
    tape: &mut LineTape,
    buf: &mut Vec<u8>,
    name: &str,
) -> Result<bool, RunError> {
    let start = tape.begin_line();
    let verdict = match lang::validate_reusing(&mut *line, buf, |c: &Command| tape.command(c)) {
        Ok(verdict) => verdict,
        Err(Failure::Read(e)) => {
            return Err(RunError::Read(name.to_owned(), crate::in_file(e, number)));
        }
        Err(Failure::Keep(e)) => return Err(RunError::Spool(e)),
    };
    if line.begun() == 0 {
        return Ok(false);
    }
    match verdict {
        Ok(()) => tape.end_line(start),
        Err(rejection) => tape.error(start, rejection),
    }
    .map_err(RunError::Spool)?;
    Ok(true)
}

/// Plays lines `1..end` of the tape, showing `first..end`.
fn play(
    tape: LineTape,
    first: usize,
    end: usize,
    out: &mut impl Watch,
) -> Result<Status, RunError> {
    let mut tape = tape.reader().map_err(RunError::Spool)?;
    let mut player = Player::new(first);
    for i in 1..end {
        player.line(i, i >= first, &mut tape, out)?;
    }
    player.finish(first == end, out)
}

/// Runs a window's lines in order, showing the ones asked for: the state
/// before the first shown line (at line `first`, or, for a window from
/// line 1, before the first line that runs), then each line's output.
struct Player {
    engine: Engine,
    first: usize,
    context_shown: bool,
    outcome: Status,
}

impl Player {
    fn new(first: usize) -> Self {
        Player { engine: Engine::new(), first, context_shown: false, outcome: Status::Ran }
    }

    /// Runs line `i`, read from `tape`, showing it if `shown`.
    fn line(
        &mut self,
        i: usize,
        shown: bool,
        tape: &mut LineReader,
        out: &mut impl Watch,
    ) -> Result<(), RunError> {
        out.unit(Unit { first: i, lines: 1, shown });
        if shown && i == self.first && self.first > 1 {
            out.state(Showing::Context, &self.engine)?;
            self.context_shown = true;
        }
        let kind = tape.begin_line().map_err(RunError::Spool)?;
        if kind == Line::Failed {
            if shown {
                self.outcome = Status::Failed;
            }
            let mut message = TapeMessage { tape, read: false };
            out.rejected(shown, &mut message)?;
            if !message.read {
                message.write_to(&mut io::sink())?;
            }
            return Ok(());
        }
        if shown && !self.context_shown {
            out.state(Showing::Initial, &self.engine)?;
            self.context_shown = true;
        }
        if kind == Line::Ran {
            let engine = &mut self.engine;
            tape.commands(|command| {
                engine.run(command);
                out.ran(command, engine, shown)
            })?;
        }
        Ok(())
    }

    /// Ends the run; an empty window shows the state it stands at.
    fn finish(self, show_state: bool, out: &mut impl Watch) -> Result<Status, RunError> {
        if show_state {
            out.state(Showing::Empty, &self.engine)?;
        }
        Ok(self.outcome)
    }
}

/// The message of a line that failed, on the tape.
struct TapeMessage<'t> {
    tape: &'t mut LineReader,
    /// Whether it was read past.
    read: bool,
}

impl Message for TapeMessage<'_> {
    fn write_to(&mut self, out: &mut dyn Write) -> Result<(), RunError> {
        if std::mem::replace(&mut self.read, true) {
            return Ok(());
        }
        self.tape.message(out)
    }
}

/// What a line of the tape holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Line {
    /// No commands, and no error.
    Empty,
    /// Commands, up to `LINE_END`.
    Ran,
    /// An error message.
    Failed,
}

/// The outcome of each line, in order.
#[derive(Default)]
struct LineTape {
    tape: Tape,
    /// Valid lines without commands not yet written.
    empty: u64,
}

/// Where the tape stood when a line began.
#[derive(Clone, Copy)]
struct LineStart {
    at: Checkpoint,
    len: u64,
    empty: u64,
}

impl LineTape {
    fn begin_line(&self) -> LineStart {
        LineStart { at: self.tape.checkpoint(), len: self.tape.len(), empty: self.empty }
    }

    /// A command of the line being read, while it may still be valid.
    fn command(&mut self, command: &Command) -> io::Result<()> {
        self.flush_empty()?;
        self.tape.push(command)
    }

    /// The line that began at `start` validated.
    fn end_line(&mut self, start: LineStart) -> io::Result<()> {
        if self.tape.len() == start.len {
            self.empty += 1;
            return Ok(());
        }
        self.tape.mark(LINE_END)
    }

    /// The line that began at `start` did not validate: its commands are
    /// taken back and its message kept instead.
    fn error(&mut self, start: LineStart, rejection: Rejection) -> io::Result<()> {
        self.tape.rollback(start.at)?;
        self.empty = start.empty;
        self.flush_empty()?;
        self.tape.mark(LINE_ERROR)?;
        rejection.write_to(&mut Pieces(self.tape.raw()))?;
        write_varint(self.tape.raw(), 0)
    }

    fn flush_empty(&mut self) -> io::Result<()> {
        if self.empty > 0 {
            self.tape.mark(EMPTY_LINES)?;
            write_varint(self.tape.raw(), std::mem::take(&mut self.empty))?;
        }
        Ok(())
    }

    fn reader(mut self) -> io::Result<LineReader> {
        self.flush_empty()?;
        Ok(LineReader { tape: self.tape.reader()?, empty_left: 0 })
    }
}

/// Writes each piece of a message with its length first.
struct Pieces<'s>(&'s mut Spool);

impl Write for Pieces<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        write_varint(self.0, data.len() as u64)?;
        self.0.write_all(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct LineReader {
    tape: TapeReader,
    /// Lines left in the current run of empty lines.
    empty_left: u64,
}

impl LineReader {
    /// Starts reading the next line.
    fn begin_line(&mut self) -> io::Result<Line> {
        if self.empty_left > 0 {
            self.empty_left -= 1;
            return Ok(Line::Empty);
        }
        let raw = self.tape.raw();
        let first = *raw.fill_buf()?.first().ok_or_else(truncated)?;
        match first {
            EMPTY_LINES => {
                raw.consume(1);
                self.empty_left = read_varint(raw)?.checked_sub(1).ok_or_else(truncated)?;
                Ok(Line::Empty)
            }
            LINE_ERROR => {
                raw.consume(1);
                Ok(Line::Failed)
            }
            _ => Ok(Line::Ran),
        }
    }

    /// Hands each command of a line that ran to `each`.
    fn commands(
        &mut self,
        mut each: impl FnMut(&Command) -> io::Result<()>,
    ) -> Result<(), RunError> {
        loop {
            match self.tape.next_entry().map_err(RunError::Spool)? {
                Some(Entry::Command(c)) => each(&c)?,
                Some(Entry::Mark(LINE_END)) => return Ok(()),
                _ => return Err(RunError::Spool(truncated())),
            }
        }
    }

    /// Copies the message of a line that failed to `out`.
    fn message(&mut self, out: &mut dyn Write) -> Result<(), RunError> {
        let raw = self.tape.raw();
        loop {
            let len = read_varint(raw).map_err(RunError::Spool)?;
            if len == 0 {
                return Ok(());
            }
            let copied = io::copy(&mut raw.take(len), out)?;
            if copied != len {
                return Err(RunError::Spool(truncated()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_bounds_are_checked_in_the_specs_order() {
        let line = |n| Some(WindowEnd::Line(n));
        assert_eq!(checked(None, None), Err(WindowError::Start));
        assert_eq!(checked(Some(1), None), Err(WindowError::End));
        assert_eq!(checked(Some(3), line(2)), Err(WindowError::Order));
        assert_eq!(checked(Some(0), line(2)), Err(WindowError::Sign));
        assert_eq!(checked(Some(-3), line(-1)), Ok(Window { start: -3, end: WindowEnd::Line(-1) }));
        let unbounded = Window { start: 0, end: WindowEnd::Unbounded };
        assert_eq!(checked(Some(0), Some(WindowEnd::Unbounded)), Ok(unbounded));
    }
}
