//! The transcript's output buffer.

use std::io::{self, Write};

use crate::command::Command;
use crate::engine::Engine;
use crate::status::Status;
use crate::view::View;

/// The transcript's output: a buffer of its own (a transcript step is a
/// few copies into it, no call through `dyn Write`), handed on in whole
/// steps, so a block written to standard output ends with a line and goes
/// out as one `write` (std's `LineWriter` would split a block that ends
/// mid-line in two); and whether an error message was written, for the
/// exit status.
pub struct Sink<'w> {
    out: &'w mut dyn Write,
    /// What is not handed on yet; it is handed on once it holds `BLOCK`
    /// bytes, at the start of the next step.
    buf: Vec<u8>,
    /// Whether a syntax or type error message was written: the run has
    /// earned exit status 1 even if the reader goes away later.
    rejected: bool,
    /// The view, its pieces kept from step to step.
    view: View,
}

/// The bytes handed on at once: `cat`'s block.
const BLOCK: usize = 128 * 1024;
/// Room past `BLOCK` for the step that fills it (a step of kept names,
/// see `View`, is under 2 KiB), so no ordinary step grows the buffer.
const ROOM: usize = 4 * 1024;

impl<'w> Sink<'w> {
    pub fn new(out: &'w mut dyn Write) -> Self {
        Sink { out, buf: Vec::with_capacity(BLOCK + ROOM), rejected: false, view: View::default() }
    }

    /// Hands on what the buffer holds. What was written is taken out of
    /// the buffer even when a later write fails (as `BufWriter` does).
    fn hand_on(&mut self) -> io::Result<()> {
        let (mut written, mut result) = (0, Ok(()));
        while written < self.buf.len() {
            match self.out.write(&self.buf[written..]) {
                Ok(0) => result = Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => result = Err(e),
            }
            if result.is_err() {
                break;
            }
        }
        self.buf.drain(..written);
        result
    }
}

/// What is still buffered goes out when the run stops early (an error
/// after some chunks printed), as `BufWriter` does; a failure then is
/// not reported (drop cannot).
impl Drop for Sink<'_> {
    fn drop(&mut self) {
        let _ = self.hand_on();
    }
}

impl Write for Sink<'_> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data).map(|()| data.len())
    }

    /// Messages and the states of long names: `BufWriter`'s rule (a piece
    /// larger than the buffer goes out without a copy).
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if data.len() > self.buf.capacity() - self.buf.len() {
            self.hand_on()?;
            if data.len() >= BLOCK {
                return self.out.write_all(data);
            }
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.hand_on()?;
        self.out.flush()
    }
}

impl Sink<'_> {
    /// Notes that an error message is being written.
    pub(crate) fn mark_rejected(&mut self) {
        self.rejected = true;
    }

    /// What the run has earned so far.
    pub(crate) fn outcome(&self) -> Status {
        if self.rejected { Status::Failed } else { Status::Ran }
    }

    /// A state shown on its own (its names may be others than the last
    /// state's: commands may have run unseen).
    pub(crate) fn state(&mut self, engine: &Engine) -> io::Result<()> {
        self.view.forget_names();
        if !self.view.write(&mut self.buf, engine.game()) {
            crate::game::view::write_state(self, engine.game())?;
        }
        Ok(())
    }

    /// A transcript step (see `show_step`): the command's line, then the
    /// state. Only a new game changes the players' names.
    #[inline]
    pub(crate) fn step(&mut self, command: &Command, engine: &Engine) -> io::Result<()> {
        if self.buf.len() >= BLOCK {
            self.hand_on()?;
        }
        if let Command::NewGame { .. } = command {
            self.view.forget_names();
        }
        if command.names().all(|name| name.len() <= View::KEPT_NAME)
            && self.view.write_step(&mut self.buf, command, engine.game())
        {
            return Ok(());
        }
        crate::show_step(command, engine, self)
    }

    /// A command ran unseen (before a window): it may have changed the names.
    pub(crate) fn unseen(&mut self) {
        self.view.forget_names();
    }

    /// Hands on what is left, reporting a failure (drop cannot).
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Cell;

    /// Each `write` call it is handed, as it came.
    #[derive(Default)]
    struct Writes(Vec<Vec<u8>>);

    impl Write for Writes {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            self.0.push(data.to_vec());
            Ok(data.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_transcript_goes_out_in_blocks_of_whole_lines_and_a_dropped_sink_hands_on_the_rest() {
        let mut engine = Engine::new();
        let (ann, bob) = (b"Ann".as_slice(), b"Bob".as_slice());
        let mut commands = vec![Command::NewGame { player1: ann, player2: bob }];
        for n in 1..=9 {
            let press = Cell::new(n).expect("cell");
            commands.push(Command::Play { player: if n % 2 == 1 { ann } else { bob }, press });
            commands.extend([Command::Undo, Command::Redo]);
        }
        commands.push(Command::PlayAgain);
        let mut writes = Writes::default();
        let mut sink = Sink::new(&mut writes);
        let mut want = Vec::new();
        for k in 0..3 * BLOCK / 100 {
            let command = &commands[k % commands.len()];
            engine.run(command);
            sink.step(command, &engine).expect("in memory");
            crate::show_step(command, &engine, &mut want).expect("vec");
        }
        drop(sink);
        let (last, blocks) = writes.0.split_last().expect("writes");
        assert!(blocks.len() >= 2 && blocks.iter().all(|b| b.len() >= BLOCK && b.ends_with(b"\n")));
        assert!(!last.is_empty() && last.len() < BLOCK);
        assert!(writes.0.concat() == want);
    }
}
