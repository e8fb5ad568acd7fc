//! Window mode: `-w M N IN [OUT]` and `-l IN [OUT]`. Each kept line is a
//! trace of its own; only the lines of the window are shown.

use super::{Input, Outcome, RunError, Sink, step};
use crate::cli::Window;
use crate::engine::Engine;
use crate::game::view::write_state;
use crate::lang::{self, source::KeptLines};

pub fn run(window: Window, input: Input, out: &mut Sink) -> Result<Outcome, RunError> {
    let name = || input.name();
    let read_error = |e| RunError::Read(name(), e);
    let k = KeptLines::new(input.open()?).count().map_err(read_error)?;
    let Some((first, end)) = window.resolve(k) else {
        return Ok(Outcome::Ran);
    };

    let mut lines = KeptLines::new(input.open()?);
    let mut engine = Engine::new();
    let mut line = Vec::new();
    // The state before the window: at line `first`, or, for a window from
    // line 1, before the first line that runs.
    let mut context_shown = false;
    let mut outcome = Outcome::Ran;
    for i in 1..end {
        line.clear();
        if !lines.next_into(&mut line).map_err(read_error)? {
            return Err(RunError::Changed(name()));
        }
        let shown = i >= first;
        if i == first && first > 1 {
            write_state(out, engine.game())?;
            context_shown = true;
        }
        match lang::check(&line) {
            Err(e) if shown => {
                e.write_to(out)?;
                outcome = Outcome::Rejected;
            }
            Err(_) => {}
            Ok(commands) if shown => {
                if !context_shown {
                    write_state(out, engine.game())?;
                    context_shown = true;
                }
                for c in &commands {
                    step(&mut engine, c, out)?;
                }
            }
            Ok(commands) => commands.iter().for_each(|c| engine.run(c)),
        }
    }
    if first == end {
        write_state(out, engine.game())?;
    }
    Ok(outcome)
}
