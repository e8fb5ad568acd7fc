//! Batch mode: `-b IN` validates the whole trace, then runs it;
//! `-b IN OUT` runs it in chunks of 100 kept lines.

use super::tape::{Entry, Tape};
use super::{CHUNK_LINES, Driver, Input, RunError, RunOutcome, Sink};
use crate::game::view::write_state;
use crate::lang::source::{KeptLines, Lines};
use crate::lang::{self, Failure, Rejection};

/// `-b IN`: all or nothing, reading the input once. The validating read
/// keeps the commands on a tape (memory up to a bound, then a temporary
/// file); once the whole trace is known to be valid, the run plays the tape.
pub(crate) fn run_whole(
    mut input: Input,
    out: &mut Sink,
    driver: &mut Driver,
) -> Result<RunOutcome, RunError> {
    let mut tape = Tape::default();
    let verdict = lang::validate(KeptLines::new(&mut input), |c| tape.push(c));
    if let Err(rejection) = verdict.map_err(|e| failed(&input, e))? {
        reject(rejection, out)?;
        return Ok(RunOutcome::Rejected);
    }
    write_state(out, driver.engine.game())?;
    run_tape(tape, out, driver)?;
    Ok(RunOutcome::Ran)
}

/// A validation that could not finish, as a run reports it.
fn failed(input: &Input, e: Failure) -> RunError {
    match e {
        Failure::Read(e) => input.read_error(e),
        Failure::Keep(e) => RunError::Spool(e),
    }
}

/// Prints why a trace (or chunk) runs nothing.
fn reject(rejection: Rejection, out: &mut Sink) -> Result<(), RunError> {
    out.mark_rejected();
    Ok(rejection.write_to(out)?)
}

fn run_tape(tape: Tape, out: &mut Sink, driver: &mut Driver) -> Result<(), RunError> {
    let mut commands = tape.reader().map_err(RunError::Spool)?;
    while let Some(entry) = commands.next_entry().map_err(RunError::Spool)? {
        if let Entry::Command(command) = entry {
            driver.step(&command, out)?;
        }
    }
    Ok(())
}

/// `-b IN OUT`: each chunk of 100 kept lines is validated and run as a unit
/// (an error prints in its place); the model carries over. The initial state
/// is printed before the first chunk that runs; a last, empty chunk makes
/// sure it is printed even when no chunk ran. A chunk is read as it is
/// validated, its commands kept on a tape, so a chunk of any size costs
/// constant memory.
pub(crate) fn run_chunks(
    mut input: Input,
    out: &mut Sink,
    driver: &mut Driver,
) -> Result<RunOutcome, RunError> {
    let name = input.name().to_owned();
    let read_error = |e| RunError::Read(name.clone(), e);
    let mut lines = KeptLines::new(&mut input);
    let mut initial_shown = false;
    let mut outcome = RunOutcome::Ran;
    loop {
        let mut tape = Tape::default();
        let mut chunk = Lines::new(&mut lines, CHUNK_LINES);
        let verdict = lang::validate(&mut chunk, |c| tape.push(c));
        let verdict = match verdict {
            Ok(verdict) => verdict,
            Err(Failure::Read(e)) => return Err(read_error(e)),
            Err(Failure::Keep(e)) => return Err(RunError::Spool(e)),
        };
        // A parse error stops the reading: the chunk's other lines remain.
        chunk.skip_rest().map_err(read_error)?;
        let n = chunk.begun();
        match verdict {
            Err(rejection) => {
                reject(rejection, out)?;
                outcome = RunOutcome::Rejected;
            }
            Ok(()) => {
                if !initial_shown {
                    write_state(out, driver.engine.game())?;
                    initial_shown = true;
                }
                run_tape(tape, out, driver)?;
            }
        }
        if n == 0 {
            return Ok(outcome);
        }
    }
}
