//! The line protocol of interactive mode, shared by the plain (piped) and
//! the line-editing front ends: `quit`, `man`, or a trace of its own.

mod plain;

use std::io::{self, Write};

use super::tape::{Entry, Tape};
use super::{Driver, show_step};
use crate::bots::Autopilot;
use crate::command::Command;
use crate::engine::Engine;
use crate::game::view::write_state;
use crate::lang::{self, Failure, source::LineSource};
use crate::platform::spool::Spool;
pub(crate) use plain::run_plain;

/// The prompt before each line.
pub(crate) const PROMPT: &str = "->";

/// What the shell did with a line, and so what it does next: it goes on
/// after every reply but `Quit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The line held commands, and they ran: what a recording keeps of it
    /// (the line itself, or, when bots answered, every command in order).
    Ran(Vec<u8>),
    /// The line held no commands (blanks, a comment): the state is shown.
    Shown,
    /// `man`: the events are listed.
    Man,
    /// The line did not validate (its error message is shown), or, under
    /// `--record`, holds a name a trace file cannot replay.
    Refused,
    Quit,
}

/// The shell's line protocol, one session of it: the engine, its bots,
/// and how lines act on them (the front end `shell` drives it on a
/// terminal; piped, `plain`; the runner for `-- run: -i` traces).
#[derive(Default)]
pub struct LineProtocol {
    driver: Driver,
    /// With `--record`: refuse lines a trace file could not replay.
    recording: bool,
}

impl LineProtocol {
    pub fn new(autopilot: Autopilot) -> Self {
        LineProtocol { driver: Driver::new(autopilot), recording: false }
    }

    /// A shell whose lines are recorded: a line whose names a trace file
    /// cannot hold as typed is refused, and nothing of it runs.
    pub fn recording(mut self, on: bool) -> Self {
        self.recording = on;
        self
    }

    pub fn engine(&self) -> &Engine {
        &self.driver.engine
    }

    /// Prints the current state.
    pub(crate) fn show<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        write_state(out, self.driver.engine.game())
    }

    /// Acts on one line (without its line end). A trace that does not
    /// validate prints its message and runs nothing; one that does runs
    /// whole and prints the final state (an empty line just shows it).
    pub fn line<W: Write + ?Sized>(&mut self, line: &[u8], out: &mut W) -> io::Result<Reply> {
        Ok(match line {
            b"quit" => Reply::Quit,
            b"man" => {
                out.write_all(lang::events::man().as_bytes())?;
                Reply::Man
            }
            _ => match lang::check(line) {
                Err(e) => {
                    e.write_to(out)?;
                    Reply::Refused
                }
                Ok(commands) if commands.is_empty() => {
                    self.show(out)?;
                    Reply::Shown
                }
                Ok(commands) => match self.recording.then(|| lang::unwritable_name(&commands)) {
                    Some(Some((name, why))) => {
                        refuse(name, why, out)?;
                        Reply::Refused
                    }
                    _ => self.run(line, &commands, out)?,
                },
            },
        })
    }

    /// Runs a line's commands. Without bots, only the final state is shown
    /// (the user just typed the commands). When bots answer, the state
    /// before their moves is shown, then each move as `->play(...)` and the
    /// state after it, as in a transcript.
    fn run<W: Write + ?Sized>(
        &mut self,
        line: &[u8],
        commands: &[Command],
        out: &mut W,
    ) -> io::Result<Reply> {
        let mut run = LineRun::keeping();
        for command in commands {
            run.command(&mut self.driver, command, out)?;
        }
        Ok(Reply::Ran(run.finish(Some(line), out)?))
    }

    /// Acts on a line too long to hold (piped input, without `--record`),
    /// read from `line` as it is validated: its commands wait on a tape, so
    /// a line of any length costs constant memory. What it prints is what
    /// `line` prints; the reply keeps no record.
    pub(crate) fn long_line<W: Write + ?Sized>(
        &mut self,
        line: impl LineSource,
        out: &mut W,
    ) -> io::Result<Reply> {
        let mut tape = Tape::default();
        let verdict = match lang::validate(line, &mut tape) {
            Ok(verdict) => verdict,
            Err(Failure::Read(e) | Failure::Keep(e)) => return Err(e),
        };
        if let Err(rejection) = verdict {
            rejection.write_to(out)?;
            return Ok(Reply::Refused);
        }
        if tape.is_empty() {
            self.show(out)?;
            return Ok(Reply::Shown);
        }
        let mut run = LineRun::default();
        let mut commands = tape.reader()?;
        while let Some(entry) = commands.next_entry()? {
            if let Entry::Command(command) = entry {
                run.command(&mut self.driver, &command, out)?;
            }
        }
        run.finish(None, out)?;
        Ok(Reply::Ran(Vec::new()))
    }
}

/// The running of one line's commands, and what a recording keeps of it.
#[derive(Default)]
struct LineRun {
    /// Whether to keep the commands' echoes (not for a line too long to hold).
    keep: bool,
    record: Vec<u8>,
    bots_moved: bool,
    /// The state after the person's latest command, shown before a bot's
    /// move or at the end of the line; on a spool, so the long name of a
    /// long line goes to its file, not into a copy.
    pending: Option<Spool>,
}

impl LineRun {
    fn keeping() -> Self {
        LineRun { keep: true, ..LineRun::default() }
    }

    fn command<W: Write + ?Sized>(
        &mut self,
        driver: &mut Driver,
        command: &Command,
        out: &mut W,
    ) -> io::Result<()> {
        let mut persons = true;
        driver.act(command, |c, engine| {
            if self.keep {
                c.write_echo(&mut self.record)?;
                self.record.push(b'\n');
            }
            if std::mem::take(&mut persons) {
                let mut state = Spool::default();
                write_state(&mut state, engine.game())?;
                self.pending = Some(state);
                return Ok(());
            }
            self.bots_moved = true;
            if let Some(state) = self.pending.take() {
                io::copy(&mut state.reader()?, out)?;
            }
            show_step(c, engine, out)
        })
    }

    /// Shows the final state; gives the record: the line, or, when bots
    /// moved, every command in order (none for a line not kept).
    fn finish<W: Write + ?Sized>(self, line: Option<&[u8]>, out: &mut W) -> io::Result<Vec<u8>> {
        if let Some(state) = self.pending {
            io::copy(&mut state.reader()?, out)?;
        }
        Ok(match line {
            Some(line) if !self.bots_moved => [line, b"\n"].concat(),
            _ => self.record,
        })
    }
}

/// Why a line was not run under `--record`, on one line.
fn refuse<W: Write + ?Sized>(name: &[u8], why: lang::Unwritable, out: &mut W) -> io::Result<()> {
    out.write_all(b"Not run: --record cannot write \"")?;
    out.write_all(name)?;
    writeln!(out, "\" to a trace file: {} ({})", why.rule(), why.because())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(shell: &mut LineProtocol, line: &str) -> (Reply, String) {
        let mut out = Vec::new();
        let reply = shell.line(line.as_bytes(), &mut out).expect("vec write");
        (reply, String::from_utf8(out).expect("utf8"))
    }

    #[test]
    fn quit_and_man_must_be_the_whole_line() {
        let mut s = LineProtocol::default();
        assert_eq!(say(&mut s, "quit").0, Reply::Quit);
        assert_eq!(say(&mut s, "man"), (Reply::Man, lang::events::man().to_string()));
        let (reply, text) = say(&mut s, " quit");
        assert_eq!(reply, Reply::Refused);
        assert!(text.starts_with("Type Error"), "{text}");
    }

    #[test]
    fn a_line_runs_all_its_commands_and_shows_the_final_state() {
        let mut s = LineProtocol::default();
        let line = "new_game(\"a\",\"b\") play(\"a\",1)";
        let (reply, text) = say(&mut s, line);
        assert_eq!(reply, Reply::Ran(format!("{line}\n").into_bytes()));
        assert!(text.starts_with("  ok: => b plays next\n  X__\n"), "{text}");
        let (_, text) = say(&mut s, "play(\"b\",2) play(\"b\",");
        assert_eq!(
            text,
            "Syntax Error: specification of command executions cannot be parsed\nparse error (Line 1, Column 22)\n"
        );
        let (reply, again) = say(&mut s, "");
        assert_eq!(reply, Reply::Shown);
        assert!(again.contains("  X__\n"));
    }

    #[test]
    fn a_recorded_shell_refuses_a_line_a_file_cannot_replay() {
        let line = "new_game(\"Ann\",\"Zed\\\")";
        let (reply, text) = say(&mut LineProtocol::default(), line);
        assert_eq!(reply, Reply::Ran(format!("{line}\n").into_bytes()));
        assert!(text.starts_with("  ok: => Ann plays next"), "{text}");
        let mut s = LineProtocol::default().recording(true);
        let (reply, text) = say(&mut s, line);
        assert_eq!(reply, Reply::Refused);
        assert_eq!(
            text,
            "Not run: --record cannot write \"Zed\\\" to a trace file: a name may not end with a backslash (it would escape the closing quote)\n"
        );
        assert_eq!(s.engine().game().state.phase, crate::game::Phase::NoGame);
        let (reply, _) = say(&mut s, "new_game(\"Ann\",\"Zed\\\"s\") undo");
        assert!(matches!(reply, Reply::Ran(_)));
    }

    #[test]
    fn bots_answer_after_the_state_and_are_recorded_in_order() {
        use crate::bots::{Bot, Strategy};
        let hal = Bot { name: b"Hal".to_vec(), strategy: Strategy::Elm };
        let mut s = LineProtocol::new(Autopilot::new(vec![hal], None));
        let (reply, text) = say(&mut s, "new_game(\"Ann\",\"Hal\") play(\"Ann\",1)");
        assert!(text.starts_with("  ok: => Hal plays next\n  X__\n"), "{text}");
        assert!(
            text.contains("\n->play(\"Hal\",5)\n  ok: => Ann plays next\n  X__\n  _O_\n"),
            "{text}"
        );
        assert_eq!(text.matches("score for \"Ann\"").count(), 2, "{text}");
        let recorded = "new_game(\"Ann\",\"Hal\")\nplay(\"Ann\",1)\nplay(\"Hal\",5)\n";
        assert_eq!(reply, Reply::Ran(recorded.as_bytes().to_vec()));
    }
}
