//! What a run did, told once. The modes (`-b IN` and its chunks, the
//! windows) tell each step to a `Watch` as they take it: a unit begins, a
//! state is shown, a command runs, a unit is refused. Printing the
//! transcript is one watch (the `Sink`), measuring coverage another
//! (`test::coverage`), so coverage counts what the run did, not what a copy
//! of the modes guesses it did.

use std::io::{self, Write};

use crate::command::Command;
use crate::engine::Engine;
use crate::{RunError, Sink};

/// A unit of a run: what is validated and run as one (the whole trace, a
/// chunk of `-b IN OUT`, a kept line of a window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Its first kept line, counted from 1.
    pub first: usize,
    /// How many kept lines it holds at most (fewer at the end of the input).
    pub lines: usize,
    /// Whether what it does is shown (a window's lines before the window
    /// run unseen).
    pub shown: bool,
}

/// Why a state is shown on its own, not after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Showing {
    /// The state before any command: first in `-b`, before a window that
    /// starts at line 1.
    Initial,
    /// A window's context: the state before its first line (`M` > 1).
    Context,
    /// An empty window: the state it stands at.
    Empty,
}

/// A refused unit's message, as the mode holds it.
pub trait Message {
    /// Writes the message byte for byte, with its final newline.
    fn write_to(&mut self, out: &mut dyn Write) -> Result<(), RunError>;
}

/// Who is told what a run did, step by step.
pub trait Watch {
    /// A unit begins (after it was read and validated).
    fn unit(&mut self, unit: Unit);

    /// A state is shown on its own.
    fn state(&mut self, why: Showing, engine: &Engine) -> io::Result<()>;

    /// A command ran (a person's, or a bot's in answer), leaving `engine`.
    fn ran(&mut self, command: &Command, engine: &Engine, shown: bool) -> io::Result<()>;

    /// The unit that began last was refused; `message` says why.
    fn rejected(&mut self, shown: bool, message: &mut dyn Message) -> Result<(), RunError>;

    /// What was told so far goes out: the run is about to read, and the
    /// read may wait.
    fn flush(&mut self) -> io::Result<()>;

    /// Whether it reads the behaviours the engine notes (`Engine::last`):
    /// if not, the engine skips them.
    fn reads_behaviours(&self) -> bool {
        true
    }
}

/// The transcript: what is shown is printed.
impl Watch for Sink<'_> {
    #[inline]
    fn unit(&mut self, _: Unit) {}

    fn state(&mut self, _: Showing, engine: &Engine) -> io::Result<()> {
        Sink::state(self, engine)
    }

    #[inline]
    fn ran(&mut self, command: &Command, engine: &Engine, shown: bool) -> io::Result<()> {
        if !shown {
            self.unseen();
            return Ok(());
        }
        self.step(command, engine)
    }

    fn rejected(&mut self, shown: bool, message: &mut dyn Message) -> Result<(), RunError> {
        if !shown {
            return Ok(());
        }
        self.mark_rejected();
        message.write_to(self)
    }

    fn flush(&mut self) -> io::Result<()> {
        Write::flush(self)
    }

    fn reads_behaviours(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::Autopilot;
    use crate::window::{Window, WindowEnd};
    use crate::{Input, Job, run_watched};

    /// Every step told, in words.
    #[derive(Default)]
    struct Told(Vec<String>);

    impl Watch for Told {
        fn unit(&mut self, unit: Unit) {
            let Unit { first, lines, shown } = unit;
            let lines = if lines == usize::MAX { "all".to_string() } else { lines.to_string() };
            self.0.push(format!("unit {first} {lines} {}", if shown { "shown" } else { "unseen" }));
        }

        fn state(&mut self, why: Showing, _: &Engine) -> io::Result<()> {
            self.0.push(format!("state {why:?}"));
            Ok(())
        }

        fn ran(&mut self, command: &Command, _: &Engine, shown: bool) -> io::Result<()> {
            let mut echo = Vec::new();
            command.write_echo(&mut echo)?;
            let echo = String::from_utf8_lossy(&echo);
            self.0.push(format!("ran {echo}{}", if shown { "" } else { " unseen" }));
            Ok(())
        }

        fn rejected(&mut self, shown: bool, message: &mut dyn Message) -> Result<(), RunError> {
            let mut text = Vec::new();
            if shown {
                message.write_to(&mut text)?;
            }
            let first = String::from_utf8_lossy(&text).lines().next().unwrap_or("").to_string();
            self.0.push(format!("rejected {first}"));
            Ok(())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn told(job: Job, trace: &str) -> Vec<String> {
        let mut told = Told::default();
        run_watched(job, Input::memory(trace.as_bytes()), &mut told, Autopilot::default())
            .expect("in memory");
        told.0
    }

    const TRACE: &str = "new_game(\"A\",\"B\")\nundo(\nplay(\"A\",1) undo\njump\nredo\n";

    #[test]
    fn a_whole_run_tells_its_one_unit_then_the_initial_state_and_each_command() {
        let valid = "new_game(\"A\",\"B\")\n-- a comment\nundo\n";
        assert_eq!(
            told(Job::Whole, valid),
            ["unit 1 all shown", "state Initial", "ran new_game(\"A\",\"B\")", "ran undo"]
        );
        assert_eq!(
            told(Job::Whole, TRACE),
            [
                "unit 1 all shown",
                "rejected Syntax Error: specification of command executions cannot be parsed"
            ]
        );
    }

    #[test]
    fn chunks_are_told_as_units_of_a_hundred_lines() {
        let mut trace = String::from("new_game(\"A\",\"B\")\n");
        trace.push_str(&"undo\n".repeat(99));
        trace.push_str("jump\n");
        let told = told(Job::Chunks, &trace);
        assert_eq!(told[..3], ["unit 1 100 shown", "state Initial", "ran new_game(\"A\",\"B\")"]);
        assert_eq!(
            told[told.len() - 2..],
            [
                "unit 101 100 shown",
                "rejected Type Error: specification of command executions is not type-correct"
            ]
        );
        assert_eq!(told.len(), 3 + 99 + 2);
    }

    #[test]
    fn a_window_tells_each_line_shown_or_unseen_and_why_a_state_is_shown() {
        let window = |start, end| Window { start, end };
        assert_eq!(
            told(Job::Window(window(3, WindowEnd::Line(5))), TRACE),
            [
                "unit 1 1 unseen",
                "ran new_game(\"A\",\"B\") unseen",
                "unit 2 1 unseen",
                "rejected ",
                "unit 3 1 shown",
                "state Context",
                "ran play(\"A\",1)",
                "ran undo",
                "unit 4 1 shown",
                "rejected Type Error: specification of command executions is not type-correct",
            ]
        );
        assert_eq!(
            told(Job::Window(window(2, WindowEnd::Unbounded)), "undo(\njump\nredo\n"),
            [
                "unit 1 1 unseen",
                "rejected ",
                "unit 2 1 shown",
                "state Context",
                "rejected Type Error: specification of command executions is not type-correct",
                "unit 3 1 shown",
                "ran redo",
            ]
        );
        assert_eq!(
            told(Job::Window(window(-1, WindowEnd::Line(-1))), "undo\nredo\n"),
            ["unit 1 1 unseen", "ran undo unseen", "state Empty"]
        );
        assert_eq!(
            told(Job::Window(window(1, WindowEnd::Line(2))), "undo(\nredo\n"),
            [
                "unit 1 1 shown",
                "rejected Syntax Error: specification of command executions cannot be parsed"
            ]
        );
        assert_eq!(
            told(Job::Window(window(1, WindowEnd::Line(3))), "jump\nredo\n"),
            [
                "unit 1 1 shown",
                "rejected Type Error: specification of command executions is not type-correct",
                "unit 2 1 shown",
                "state Initial",
                "ran redo",
            ]
        );
    }
}
