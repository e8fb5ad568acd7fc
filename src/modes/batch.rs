//! Batch mode: `-b IN` validates the whole trace, then runs it;
//! `-b IN OUT` runs it in chunks of 100 kept lines.

use super::tape::{Entry, Tape};
use super::{Driver, Input, Outcome, RunError, Sink};
use crate::game::view::write_state;
use crate::lang::source::KeptLines;
use crate::lang::{self, Checker, EventStream, Stop, TraceError};

/// `-b IN`: all or nothing, reading the input once. The validating read
/// keeps the commands on a tape (memory up to a bound, then a temporary
/// file); once the whole trace is known to be valid, the run plays the tape.
pub fn run_whole(
    mut input: Input,
    out: &mut Sink,
    driver: &mut Driver,
) -> Result<Outcome, RunError> {
    let mut checker = Checker::default();
    let mut tape = Tape::default();
    let walked = EventStream::new(&mut input).for_each(|event, locator| {
        match checker.event(event, |rest| locator.pos(rest)) {
            // Once anything is wrong nothing runs: keeping commands is moot.
            Some(command) if checker.is_clean() => tape.push(&command),
            _ => Ok(()),
        }
    });
    let verdict = match walked {
        Ok(()) => checker.finish(),
        Err(Stop::Syntax(e)) => Err(TraceError::from(e)),
        Err(Stop::Read(e)) => return Err(input.read_error(e)),
        Err(Stop::Visit(e)) => return Err(RunError::Spool(e)),
    };
    if let Err(e) = verdict {
        out.write_error(&e)?;
        return Ok(Outcome::Rejected);
    }

    write_state(out, driver.engine.game())?;
    let mut commands = tape.reader().map_err(RunError::Spool)?;
    while let Some(entry) = commands.next_entry().map_err(RunError::Spool)? {
        if let Entry::Command(command) = entry {
            driver.step(&command, out)?;
        }
    }
    Ok(Outcome::Ran)
}

/// Kept lines per chunk in `-b IN OUT`.
pub const CHUNK_LINES: usize = 100;

/// `-b IN OUT`: each chunk of 100 kept lines is validated and run as a unit
/// (an error prints in its place); the model carries over. The initial state
/// is printed before the first chunk that runs; a last, empty chunk makes
/// sure it is printed even when no chunk ran.
pub fn run_chunks(
    mut input: Input,
    out: &mut Sink,
    driver: &mut Driver,
) -> Result<Outcome, RunError> {
    let name = input.name().to_owned();
    let mut lines = KeptLines::new(&mut input);
    let mut chunk = Vec::new();
    let mut initial_shown = false;
    let mut outcome = Outcome::Ran;
    loop {
        chunk.clear();
        let mut n = 0;
        while n < CHUNK_LINES
            && lines.next_into(&mut chunk).map_err(|e| RunError::Read(name.clone(), e))?
        {
            n += 1;
        }
        match lang::check(&chunk) {
            Err(e) => {
                out.write_error(&e)?;
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
