//! The engine of a run, its bots, and the transcript step every front end
//! shows commands with.

use std::io::{self, Write};

use crate::bots::Autopilot;
use crate::command::Command;
use crate::engine::Engine;
use crate::game::view::write_state;

/// The engine of a run and the bots that play in it.
#[derive(Default)]
pub struct Driver {
    pub engine: Engine,
    pub autopilot: Autopilot,
}

impl Driver {
    pub fn new(autopilot: Autopilot) -> Self {
        Driver { engine: Engine::new(), autopilot }
    }

    /// Runs a command, then each move the bots make in answer; `after` sees
    /// every command so run (the person's first) and the game after it.
    pub fn act<E>(
        &mut self,
        command: &Command,
        mut after: impl FnMut(&Command, &Engine) -> Result<(), E>,
    ) -> Result<(), E> {
        self.engine.run(command);
        after(command, &self.engine)?;
        if self.autopilot.is_idle() {
            return Ok(());
        }
        self.autopilot.follow(&mut self.engine, command, |engine, bot_command| {
            engine.run(bot_command);
            after(bot_command, engine)
        })
    }

    /// One transcript step (see `show_step`) for the command and for each
    /// move the bots make in answer.
    pub fn step<W: Write + ?Sized>(&mut self, command: &Command, out: &mut W) -> io::Result<()> {
        self.act(command, |c, engine| show_step(c, engine, out))
    }
}

/// Runs a command and shows it as a transcript step.
pub fn step<W: Write + ?Sized>(
    engine: &mut Engine,
    command: &Command,
    out: &mut W,
) -> io::Result<()> {
    engine.run(command);
    show_step(command, engine, out)
}

/// A transcript step for a command that just ran: `->` and its echo, then
/// the state after it.
pub fn show_step<W: Write + ?Sized>(
    command: &Command,
    engine: &Engine,
    out: &mut W,
) -> io::Result<()> {
    command.write_line(out)?;
    write_state(out, engine.game())
}
