//! The ETF modes on a trace held in memory: what `tictac -b IN`,
//! `-b IN OUT`, `-w M N IN` and `-l IN` print, byte for byte, and the exit
//! status. The command line's pipeline (`src/run`) streams its input in
//! constant memory, keeping commands on a tape; here the whole trace is in
//! memory, so each piece (the trace, a chunk, a line) is validated twice
//! instead: once for its verdict, then again, running its commands as they
//! come, when it is known to be valid. `tests/it/site.rs` checks that both
//! print the same on every acceptance trace.

use std::io::{self, Write};

use tictac_core::bots::Autopilot;
use tictac_core::command::Command;
use tictac_core::engine::Engine;
use tictac_core::game::view::write_state;
use tictac_core::lang::source::{KeptLines, LineSource, Lines};
use tictac_core::lang::{self, Failure, Rejection};
use tictac_core::window::Window;

/// Kept lines per chunk of `-b IN OUT` (`run::CHUNK_LINES`).
const CHUNK_LINES: usize = 100;

/// A mode of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `-b IN`: all or nothing.
    Whole,
    /// `-b IN OUT`: chunks of 100 kept lines, each run or refused alone.
    Chunks,
    /// `-w M N IN` and `-l IN`: each kept line a trace of its own.
    Window(Window),
}

/// Runs `trace` in `mode`, the bots answering in the batch modes; writes
/// what the command line prints to `out` and answers its exit status (1
/// when a syntax or type error was printed). A trace in memory cannot fail
/// to be read or kept; `out` may refuse to grow (`api`'s bound), and the
/// run stops at its error.
pub fn run<W: Write>(
    trace: &[u8],
    mode: Mode,
    autopilot: Autopilot,
    out: &mut W,
) -> io::Result<u8> {
    let mut driver = Driver { engine: Engine::new(), autopilot };
    let failed = match mode {
        Mode::Whole => whole(trace, &mut driver, out)?,
        Mode::Chunks => chunks(trace, &mut driver, out)?,
        Mode::Window(window) => windowed(trace, window, out)?,
    };
    Ok(u8::from(failed))
}

/// The engine of a run and the bots that answer in it.
pub(crate) struct Driver {
    pub(crate) engine: Engine,
    pub(crate) autopilot: Autopilot,
}

impl Driver {
    /// Runs a command and each move the bots make in answer; `after` sees
    /// every command so run and the game after it.
    pub(crate) fn act(
        &mut self,
        command: &Command,
        mut after: impl FnMut(&Command, &Engine) -> io::Result<()>,
    ) -> io::Result<()> {
        self.engine.run(command);
        after(command, &self.engine)?;
        self.autopilot.follow(&mut self.engine, command, |engine, bot_command| {
            engine.run(bot_command);
            after(bot_command, engine)
        })
    }
}

/// A transcript step: `->` and the command's echo, then the state after it.
pub(crate) fn show_step<W: Write>(
    command: &Command,
    engine: &Engine,
    out: &mut W,
) -> io::Result<()> {
    out.write_all(b"->")?;
    command.write_echo(out)?;
    out.write_all(b"\n")?;
    write_state(out, engine.game())
}

/// The verdict on the kept lines `lines` gives, `keep` seeing each command
/// while all is well.
pub(crate) fn validate<S: LineSource>(
    lines: S,
    keep: impl FnMut(&Command) -> io::Result<()>,
) -> io::Result<Result<(), Rejection>> {
    lang::validate(lines, keep).map_err(|(Failure::Read(e) | Failure::Keep(e))| e)
}

/// `-b IN`: the whole trace validated, then run.
fn whole<W: Write>(trace: &[u8], driver: &mut Driver, out: &mut W) -> io::Result<bool> {
    if let Err(rejection) = validate(KeptLines::new(trace), |_| Ok(()))? {
        rejection.write_to(out)?;
        return Ok(true);
    }
    write_state(out, driver.engine.game())?;
    validate(KeptLines::new(trace), |c| driver.act(c, |c, e| show_step(c, e, out)))?
        .map_err(|_| io::Error::other("the trace did not validate twice alike"))?;
    Ok(false)
}

/// `-b IN OUT`: each chunk of 100 kept lines validated and run as a unit,
/// an error printed in its place; the game carries over. The initial state
/// comes before the first chunk that runs, or at the end if none did.
fn chunks<W: Write>(trace: &[u8], driver: &mut Driver, out: &mut W) -> io::Result<bool> {
    let verdicts = pieces(trace, CHUNK_LINES)?;
    let mut lines = KeptLines::new(trace);
    let mut initial_shown = false;
    let mut failed = false;
    // A last, empty chunk shows the initial state when no chunk ran.
    for valid in verdicts.into_iter().chain([true]) {
        let mut chunk = Lines::new(&mut lines, CHUNK_LINES);
        if valid && !initial_shown {
            write_state(out, driver.engine.game())?;
            initial_shown = true;
        }
        let verdict = validate(&mut chunk, |c| match valid {
            true => driver.act(c, |c, e| show_step(c, e, out)),
            false => Ok(()),
        })?;
        if let Err(rejection) = verdict {
            rejection.write_to(out)?;
            failed = true;
        }
        chunk.skip_rest()?;
    }
    Ok(failed)
}

/// Whether each piece of `size` kept lines validates, in order (an empty
/// trace has no piece).
fn pieces(trace: &[u8], size: usize) -> io::Result<Vec<bool>> {
    let mut lines = KeptLines::new(trace);
    let mut verdicts = Vec::new();
    loop {
        let mut piece = Lines::new(&mut lines, size);
        let valid = validate(&mut piece, |_| Ok(()))?.is_ok();
        piece.skip_rest()?;
        if piece.begun() == 0 {
            return Ok(verdicts);
        }
        verdicts.push(valid);
    }
}

/// `-w M N` and `-l`: each kept line is a trace of its own, run in order
/// on one game; the lines of the window are shown, after the state before
/// the first of them (an empty window shows the state it stands at).
fn windowed<W: Write>(trace: &[u8], window: Window, out: &mut W) -> io::Result<bool> {
    let mut verdicts = pieces(trace, 1)?;
    if let Some(needed) = window.lines_needed() {
        verdicts.truncate(needed);
    }
    let Some((first, end)) = window.resolve(verdicts.len()) else {
        return Ok(false);
    };
    let mut engine = Engine::new();
    let mut lines = KeptLines::new(trace);
    let mut context_shown = false;
    let mut failed = false;
    for (i, &valid) in (1..end).zip(&verdicts) {
        let shown = i >= first;
        if shown && !context_shown && (valid || (i == first && first > 1)) {
            write_state(out, engine.game())?;
            context_shown = true;
        }
        let mut line = Lines::new(&mut lines, 1);
        let verdict = validate(&mut line, |c| {
            if !valid {
                return Ok(());
            }
            engine.run(c);
            if shown { show_step(c, &engine, out) } else { Ok(()) }
        })?;
        if let (Err(rejection), true) = (verdict, shown) {
            rejection.write_to(out)?;
            failed = true;
        }
        line.skip_rest()?;
    }
    if first == end {
        write_state(out, engine.game())?;
    }
    Ok(failed)
}
