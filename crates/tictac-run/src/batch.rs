//! Batch mode: `-b IN` validates the whole trace, then runs it;
//! `-b IN OUT` runs it in chunks of 100 kept lines.

use std::cell::{Cell, RefCell};
use std::io::{self, BufRead, Read, Write};

use crate::lang::source::{KeptLines, Lines};
use crate::lang::{self, Failure, Rejection};
use crate::status::Status;
use crate::tape::Tape;
use crate::watch::{Message, Showing, Unit, Watch};
use crate::{CHUNK_LINES, Driver, Input, RunError};

/// `-b IN`: all or nothing, reading the input once. The validating read
/// keeps the commands on a tape (memory up to a bound, then a temporary
/// file); once the whole trace is known to be valid, the run plays the tape.
pub(crate) fn run_whole(
    mut input: Input,
    watch: &mut impl Watch,
    driver: &mut Driver,
) -> Result<Status, RunError> {
    let mut tape = Tape::default();
    let verdict = lang::validate(KeptLines::new(&mut input), &mut tape);
    let verdict = verdict.map_err(|e| failed(&input, e))?;
    watch.unit(Unit { first: 1, lines: usize::MAX, shown: true });
    if let Err(rejection) = verdict {
        watch.rejected(true, &mut Some(rejection))?;
        return Ok(Status::Failed);
    }
    watch.state(Showing::Initial, &driver.engine)?;
    run_tape(tape, watch, driver)?;
    Ok(Status::Ran)
}

/// A validation that could not finish, as a run reports it.
fn failed(input: &Input, e: Failure) -> RunError {
    match e {
        Failure::Read(e) => input.read_error(e),
        Failure::Keep(e) => RunError::Spool(e),
    }
}

/// Why a trace (or chunk) runs nothing, told once.
impl Message for Option<Rejection> {
    fn write_to(&mut self, out: &mut dyn Write) -> Result<(), RunError> {
        match self.take() {
            Some(rejection) => Ok(rejection.write_to(out)?),
            None => Ok(()),
        }
    }
}

fn run_tape(tape: Tape, watch: &mut impl Watch, driver: &mut Driver) -> Result<(), RunError> {
    let mut commands = tape.reader().map_err(RunError::Spool)?;
    // `-b` writes no marks: what follows one is read on as commands.
    while commands
        .each_command(|command| driver.act(command, |c, engine| watch.ran(c, engine, true)))?
        .is_some()
    {}
    Ok(())
}

/// `-b IN OUT`: each chunk of 100 kept lines is validated and run as a unit
/// (an error prints in its place); the model carries over. The initial state
/// is printed before the first chunk that runs; a last, empty chunk makes
/// sure it is printed even when no chunk ran. A chunk is read as it is
/// validated, its commands kept on a tape, so a chunk of any size costs
/// constant memory. What is printed goes out before a read that may wait
/// (a FIFO whose writer is slow): each chunk's output, or its parse error,
/// comes as soon as it is known.
pub(crate) fn run_chunks<W: Watch>(
    mut input: Input,
    watch: &mut W,
    driver: &mut Driver,
) -> Result<Status, RunError> {
    let name = input.name().to_owned();
    let out = RefCell::new(watch);
    let failed = Cell::new(None);
    // A read fails after a flush that failed: that failure is the one to tell.
    let read_error = |e| match failed.take() {
        Some(write) => RunError::from(write),
        None => RunError::Read(name.clone(), e),
    };
    let reader = FlushBeforeWait { input: &mut input, out: &out, failed: &failed };
    let mut lines = KeptLines::new(reader);
    let mut initial_shown = false;
    let mut outcome = Status::Ran;
    let mut first = 1;
    loop {
        let mut tape = Tape::default();
        let mut chunk = Lines::new(&mut lines, CHUNK_LINES);
        let verdict = lang::validate(&mut chunk, &mut tape);
        let verdict = match verdict {
            Ok(verdict) => verdict,
            Err(Failure::Read(e)) => return Err(read_error(crate::in_file(e, first))),
            Err(Failure::Keep(e)) => return Err(RunError::Spool(e)),
        };
        {
            let watch = &mut **out.borrow_mut();
            if chunk.begun() > 0 {
                watch.unit(Unit { first, lines: CHUNK_LINES, shown: true });
                first += CHUNK_LINES;
            }
            match verdict {
                Err(rejection) => {
                    watch.rejected(true, &mut Some(rejection))?;
                    outcome = Status::Failed;
                }
                Ok(()) => {
                    if !initial_shown {
                        watch.state(Showing::Initial, &driver.engine)?;
                        initial_shown = true;
                    }
                    run_tape(tape, watch, driver)?;
                }
            }
        }
        // A parse error stops the reading: the chunk's other lines remain
        // (read after its message is out, so it does not wait for them).
        chunk.skip_rest().map_err(read_error)?;
        if chunk.begun() == 0 {
            return Ok(outcome);
        }
    }
}

/// The input of `-b IN OUT`, which flushes the output before each read that
/// may wait: one whose buffer is empty.
struct FlushBeforeWait<'i, 'a, 'r, W> {
    input: &'i mut Input<'a>,
    out: &'r RefCell<W>,
    /// Why the flush failed (the read then fails too).
    failed: &'r Cell<Option<io::Error>>,
}

impl<W: Watch> Read for FlushBeforeWait<'_, '_, '_, &mut W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<W: Watch> BufRead for FlushBeforeWait<'_, '_, '_, &mut W> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.input.may_wait()
            && let Err(e) = self.out.borrow_mut().flush()
        {
            let kind = e.kind();
            self.failed.set(Some(e));
            return Err(kind.into());
        }
        self.input.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.input.consume(n)
    }
}
