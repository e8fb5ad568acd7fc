//! Batch mode: `-b IN` validates the whole trace, then runs it;
//! `-b IN OUT` runs it in chunks of 100 kept lines.

use super::tape::Tape;
use super::{Driver, Input, Outcome, RunError, Sink};
use crate::game::view::write_state;
use crate::lang::source::KeptLines;
use crate::lang::{self, Checker, EventStream, Stop, TraceError, command};
use std::convert::Infallible;

/// `-b IN`: all or nothing. The validating read keeps the commands on a
/// bounded tape; a trace whose tape is whole runs from it, a longer one is
/// read a second time, so memory stays constant however long the trace is.
pub fn run_whole(input: Input, out: &mut Sink, driver: &mut Driver) -> Result<Outcome, RunError> {
    let name = || input.name();
    let mut checker = Checker::default();
    let mut tape = Tape::default();
    let walked = EventStream::new(input.open()?).for_each(|event, locator| {
        if let Some(command) = checker.event(event, |rest| locator.pos(rest)) {
            tape.push(&command);
        }
        Ok::<(), Infallible>(())
    });
    let verdict = match walked {
        Ok(()) => checker.finish(),
        Err(Stop::Syntax(e)) => Err(TraceError::from(e)),
        Err(Stop::Read(e)) => return Err(RunError::Read(name(), e)),
        Err(Stop::Visit(never)) => match never {},
    };
    if let Err(e) = verdict {
        e.write_to(out)?;
        return Ok(Outcome::Rejected);
    }

    write_state(out, driver.engine.game())?;
    if tape.is_whole() {
        tape.replay(|command| driver.step(command, out))?;
        return Ok(Outcome::Ran);
    }
    drop(tape);
    let ran = EventStream::new(input.open()?).for_each(|event, _| {
        let command = command(event).ok_or_else(|| RunError::Changed(name()))?;
        Ok::<(), RunError>(driver.step(&command, out)?)
    });
    match ran {
        Ok(()) => Ok(Outcome::Ran),
        Err(Stop::Visit(e)) => Err(e),
        Err(Stop::Syntax(_)) => Err(RunError::Changed(name())),
        Err(Stop::Read(e)) => Err(RunError::Read(name(), e)),
    }
}

/// Kept lines per chunk in `-b IN OUT`.
pub const CHUNK_LINES: usize = 100;

/// `-b IN OUT`: each chunk of 100 kept lines is validated and run as a unit
/// (an error prints in its place); the model carries over. The initial state
/// is printed before the first chunk that runs; a last, empty chunk makes
/// sure it is printed even when no chunk ran.
pub fn run_chunks(input: Input, out: &mut Sink, driver: &mut Driver) -> Result<Outcome, RunError> {
    let mut lines = KeptLines::new(input.open()?);
    let mut chunk = Vec::new();
    let mut initial_shown = false;
    let mut outcome = Outcome::Ran;
    loop {
        chunk.clear();
        let mut n = 0;
        while n < CHUNK_LINES
            && lines.next_into(&mut chunk).map_err(|e| RunError::Read(input.name(), e))?
        {
            n += 1;
        }
        match lang::check(&chunk) {
            Err(e) => {
                e.write_to(out)?;
                outcome = Outcome::Rejected;
            }
            Ok(commands) => {
                if !initial_shown {
                    write_state(out, driver.engine.game())?;
                    initial_shown = true;
                }
                for c in &commands {
                    driver.step(c, out)?;
                }
            }
        }
        if n == 0 {
            return Ok(outcome);
        }
    }
}
