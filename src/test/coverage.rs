//! `tictac test --coverage`: which behaviours of the catalogue (see
//! `behaviour`) each test of a suite reaches, and which no test reaches.
//!
//! Each test is replayed on the engine as its plan says (`-b IN`, `-b IN
//! OUT`, `-w`, `-l`, `-i`, or an invocation error), unit by unit as the mode
//! validates and runs it: the whole trace, each chunk of 100 kept lines,
//! each kept line of a window, each line typed into the shell. The engine
//! names the behaviour of every command; a unit that does not validate
//! shows its syntax or type error kinds; the mode adds its own (the window's
//! edge case, a failing chunk, `quit`...). A command counts where its test
//! shows it: in a window, the lines before it run unseen and do not count.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::Path;

use crate::behaviour::{Behaviour, Coverage, kept_lines, of_rejected};
use crate::bots::Autopilot;
use crate::cli::UsageError;
use crate::command::Command;
use crate::engine::Engine;
use crate::lang::source::is_kept;
use crate::run::protocol::{LineProtocol, Reply, run_plain};
use crate::run::windowed::WindowError;
use crate::run::{
    FileError, Input, Job, Message, PipelineError, Recorder, Showing, Unit, Watch, open_input,
    run_watched,
};
use crate::suite::in_process::refuse_special;
use crate::suite::plan::{Directive, MAX_TYPED, Plan, Source, beside};
use crate::suite::{Options, SuiteError, Test, discover, files};
use crate::window::{Window, WindowEnd};

/// Tests named under each behaviour; the rest are counted.
const NAMES_SHOWN: usize = 3;

/// What a suite reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Totals {
    pub(crate) reached: usize,
    pub(crate) total: usize,
    /// Tests that could not be measured (each said why).
    pub(crate) unmeasured: usize,
}

/// For each behaviour, how many tests reach it and the first few names:
/// memory bounded whatever the size of the suite.
#[derive(Default)]
struct Reachers {
    count: HashMap<Behaviour, usize>,
    names: HashMap<Behaviour, Vec<String>>,
}

impl Reachers {
    fn add(&mut self, name: &str, reached: Coverage) {
        for b in reached.iter() {
            *self.count.entry(b).or_default() += 1;
            let names = self.names.entry(b).or_default();
            if names.len() < NAMES_SHOWN {
                names.push(name.to_string());
            }
        }
    }
}

/// Measures every test of the suite, then prints each behaviour with the
/// tests that reach it, those no test reaches, and `Coverage: C/T
/// behaviours.` A test that cannot be measured is said so as it is met.
pub(crate) fn run(options: &Options, out: &mut dyn Write) -> Result<Totals, SuiteError> {
    let mut tests = discover(&options.paths)?;
    if let Some(text) = &options.filter {
        tests.retain(|t| t.name.contains(text.as_str()));
        if tests.is_empty() {
            return Err(SuiteError::NoneMatch(text.clone()));
        }
    }
    let mut tally = Reachers::default();
    let mut unmeasured = 0;
    for test in &tests {
        match reached(test) {
            Ok(reached) => tally.add(&test.name, reached),
            Err(why) => {
                unmeasured += 1;
                writeln!(out, "{}: not measured: {why}", test.name)?;
            }
        }
    }
    let report = Totals { reached: tally.count.len(), total: Behaviour::ALL.len(), unmeasured };
    print(&tally, tests.len(), options.quiet, &report, out)?;
    Ok(report)
}

fn print(
    tally: &Reachers,
    tests: usize,
    quiet: bool,
    report: &Totals,
    out: &mut dyn Write,
) -> io::Result<()> {
    let width = Behaviour::ALL.iter().map(|b| b.id().len()).max().unwrap_or(0);
    if !quiet {
        let s = if tests == 1 { "" } else { "s" };
        writeln!(
            out,
            "  {:<width$}  {:>5}  reached by ({tests} test{s} measured)",
            "behaviour", "tests"
        )?;
        for &b in Behaviour::ALL {
            let count = tally.count.get(&b).copied().unwrap_or(0);
            let names = tally.names.get(&b).map(Vec::as_slice).unwrap_or_default();
            let mut which = names.join(", ");
            if count > names.len() {
                which.push_str(&format!(" and {} more", count - names.len()));
            }
            if count == 0 {
                which = format!("NOT REACHED: {}", b.description());
            }
            writeln!(out, "  {:<width$}  {count:>5}  {which}", b.id())?;
        }
    }
    let missing: Vec<Behaviour> =
        Behaviour::ALL.iter().copied().filter(|b| !tally.count.contains_key(b)).collect();
    if !missing.is_empty() {
        writeln!(out, "Not reached by any test ({}):", missing.len())?;
        for b in missing {
            writeln!(out, "  {:<width$}  {}", b.id(), b.description())?;
        }
    }
    writeln!(out, "Coverage: {}/{} behaviours.", report.reached, report.total)?;
    out.flush()
}

/// The behaviours one test reaches, or why it cannot be measured.
pub fn reached(test: &Test) -> Result<Coverage, String> {
    let text = files::read_bounded(&test.trace, MAX_TYPED)?;
    let plan = Plan::checked(&text)?;
    let mut seen = Coverage::default();
    match &plan.directive {
        // Other usage errors (a bad --bot, say) reach no behaviour.
        Directive::Usage(e) => of_usage(e).into_iter().for_each(|b| seen.insert(b)),
        Directive::Run { job, input, session } => {
            let input_text = match input {
                // `-` reads the trace itself.
                Source::Trace | Source::Stdin(_) => text,
                Source::File(input) => match read_input(&beside(&test.trace, input))? {
                    Ok(text) => text,
                    Err(b) => {
                        seen.insert(b);
                        return Ok(seen);
                    }
                },
            };
            let autopilot = session.autopilot();
            match *job {
                Job::Whole => whole(&input_text, autopilot, &mut seen)?,
                Job::Chunks => chunks(&input_text, autopilot, &mut seen)?,
                Job::Window(w) => {
                    let last = plan.args.first().is_some_and(|a| a == "-l");
                    let plus = !last
                        && plan
                            .args
                            .get(1..3)
                            .unwrap_or_default()
                            .iter()
                            .any(|a| a.starts_with('+'));
                    let form = Form { last, plus, out_file: plan.writes_file() };
                    window(w, form, &input_text, &mut seen)?;
                }
            }
        }
        Directive::Shell(session) => {
            shell(plan.typed.as_deref().unwrap_or_default(), session.autopilot(), &mut seen)?;
        }
        // `Plan::checked` refuses it.
        Directive::NoTrace => return Err("it runs no trace".into()),
    }
    Ok(seen)
}

/// The behaviour an invocation error shows, for those the catalogue has.
fn of_usage(e: &UsageError) -> Option<Behaviour> {
    Some(match e {
        UsageError::NoMode => Behaviour::InvocationNoMode,
        UsageError::BadMode(_) => Behaviour::InvocationBadMode,
        UsageError::ArgumentCount(_) => Behaviour::InvocationArgumentCount,
        UsageError::Window(WindowError::Start) => Behaviour::WindowBadStart,
        UsageError::Window(WindowError::End) => Behaviour::WindowBadEnd,
        UsageError::Window(WindowError::Order) => Behaviour::WindowStartAfterEnd,
        UsageError::Window(WindowError::Sign) => Behaviour::WindowNonPositiveStart,
        _ => return None,
    })
}

/// A file a directive names instead of IN: its text, or the file error the
/// run would print.
fn read_input(input: &Path) -> Result<Result<Vec<u8>, Behaviour>, String> {
    refuse_special(input)?;
    let mut opened = match open_input(input) {
        Ok(opened) => opened,
        Err(FileError::Missing(_)) => return Ok(Err(Behaviour::InputMissing)),
        Err(_) => return Ok(Err(Behaviour::InputUnreadable)),
    };
    let mut text = Vec::new();
    (&mut opened)
        .take(MAX_TYPED + 1)
        .read_to_end(&mut text)
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    if text.len() as u64 > MAX_TYPED {
        return Err(format!("{} is larger than {MAX_TYPED} bytes", input.display()));
    }
    Ok(Ok(text))
}

/// What a run shows, as behaviours: told by the run pipeline itself
/// (`run::Watch`), which runs the trace as the mode does. What only a mode
/// can tell (a window's edge cases, a chunk that fails) is kept as plain
/// facts for the mode's function to read.
struct Reach<'t> {
    /// The trace's kept lines, each with its newline: a refused unit's
    /// error kinds are read from its text.
    kept: &'t [u8],
    /// Where kept line `at_line` starts in `kept`: units come in the order
    /// of their lines, so finding one's text reads `kept` once in all.
    at: usize,
    at_line: usize,
    seen: Coverage,
    /// The unit begun last.
    unit: Unit,
    units: usize,
    /// Units that ran (were not refused).
    ran: usize,
    /// A shown unit was refused: the one starting at line 1, a later one,
    /// one before any state was shown.
    refused_first: bool,
    refused_later: bool,
    refused_before_state: bool,
    /// A state was shown (the initial state, or a window's context).
    state_shown: bool,
    /// A window's first line: the line before it is counted.
    window_first: usize,
    commands_before: usize,
}

impl<'t> Reach<'t> {
    fn new(kept: &'t [u8]) -> Self {
        Reach {
            kept,
            at: 0,
            at_line: 1,
            seen: Coverage::default(),
            unit: Unit { first: 1, lines: 0, shown: false },
            units: 0,
            ran: 0,
            refused_first: false,
            refused_later: false,
            refused_before_state: false,
            state_shown: false,
            window_first: 0,
            commands_before: 0,
        }
    }

    /// Runs `text` as `job` says, with the session's bots.
    fn run(mut self, job: Job, text: &[u8], autopilot: Autopilot) -> Result<Self, String> {
        run_watched(job, Input::memory(text), &mut self, autopilot).map_err(|e| e.to_string())?;
        Ok(self)
    }

    /// The text of the unit begun last.
    fn unit_text(&mut self) -> &'t [u8] {
        let kept = self.kept;
        // Past the end of the line that starts at `from`.
        let next = |from: usize| memchr::memchr(b'\n', &kept[from..]).map(|k| from + k + 1);
        while self.at_line < self.unit.first {
            let Some(at) = next(self.at) else { break };
            (self.at, self.at_line) = (at, self.at_line + 1);
        }
        let mut end = self.at;
        for _ in 0..self.unit.lines {
            match next(end) {
                Some(after) => end = after,
                None => break,
            }
        }
        &kept[self.at..end]
    }

    /// The error kinds of the unit begun last, which was refused.
    fn error_kinds(&mut self) -> Coverage {
        // Keeping type errors can fail (a full disk): then nothing can be
        // told of them.
        of_rejected(self.unit_text()).map(|(_, all)| all).unwrap_or_default()
    }
}

impl Watch for Reach<'_> {
    fn unit(&mut self, unit: Unit) {
        self.unit = unit;
        self.units += 1;
        self.ran += 1;
    }

    fn state(&mut self, why: Showing, _: &Engine) -> io::Result<()> {
        match why {
            Showing::Initial => {
                self.seen.insert(Behaviour::InitialState);
                self.state_shown = true;
            }
            Showing::Context => self.state_shown = true,
            Showing::Empty => {}
        }
        Ok(())
    }

    fn ran(&mut self, _: &Command, engine: &Engine, shown: bool) -> io::Result<()> {
        if shown {
            self.seen.insert(engine.last());
        } else if self.unit.first + 1 == self.window_first {
            self.commands_before += 1;
        }
        Ok(())
    }

    fn rejected(&mut self, shown: bool, _: &mut dyn Message) -> Result<(), PipelineError> {
        self.ran -= 1;
        if !shown {
            self.seen.insert(Behaviour::WindowErrorBefore);
            return Ok(());
        }
        self.seen = self.seen.union(self.error_kinds());
        self.refused_first |= self.unit.first == 1;
        self.refused_later |= self.unit.first > 1;
        self.refused_before_state |= !self.state_shown;
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Notes `b` if it was shown.
fn note(seen: &mut Coverage, b: Behaviour, on: bool) {
    if on {
        seen.insert(b);
    }
}

/// `-b IN`: all or nothing.
fn whole(text: &[u8], autopilot: Autopilot, seen: &mut Coverage) -> Result<(), String> {
    let kept = kept_lines(text);
    *seen = seen.union(Reach::new(&kept).run(Job::Whole, text, autopilot)?.seen);
    Ok(())
}

/// `-b IN OUT`: chunks of 100 kept lines, each validated and run alone.
fn chunks(text: &[u8], autopilot: Autopilot, seen: &mut Coverage) -> Result<(), String> {
    use Behaviour as B;
    let kept = kept_lines(text);
    let reach = Reach::new(&kept).run(Job::Chunks, text, autopilot)?;
    *seen = seen.union(reach.seen);
    note(seen, B::ChunksFirstFails, reach.refused_first);
    note(seen, B::ChunksLaterFails, reach.refused_later);
    note(seen, B::ChunksEmpty, reach.units == 0);
    note(seen, B::ChunksOne, reach.units == 1);
    note(seen, B::ChunksSeveral, reach.units > 1);
    note(seen, B::ChunksAllFail, reach.units > 0 && reach.ran == 0);
    Ok(())
}

/// How a window was asked for.
#[derive(Clone, Copy)]
struct Form {
    /// `-l`, not `-w`.
    last: bool,
    /// A bound written with a `+`.
    plus: bool,
    out_file: bool,
}

/// `-w M N IN [OUT]`, `-l IN [OUT]`: each kept line alone; only the lines
/// of the window show. What the window covers, and its edge cases, are
/// read from its arguments; what its lines show, from the run.
fn window(w: Window, form: Form, text: &[u8], seen: &mut Coverage) -> Result<(), String> {
    use Behaviour as B;
    note(seen, B::WindowLast, form.last);
    note(seen, B::WindowPlusSign, form.plus);
    note(seen, B::WindowOutFile, form.out_file);
    note(seen, B::WindowEndOpen, w.end == WindowEnd::Unbounded);
    if !form.last {
        note(seen, B::WindowStartRelative, w.start <= 0);
        note(seen, B::WindowEndRelative, matches!(w.end, WindowEnd::Line(n) if n <= 0));
    }
    let kept = kept_lines(text);
    let k = memchr::memchr_iter(b'\n', &kept).count();
    let Some((first, end)) = w.resolve(k) else {
        seen.insert(if k == 0 { B::WindowEmptyTrace } else { B::WindowPastTheEnd });
        return Ok(());
    };
    // The bounds as counted, before they are brought into the trace.
    let (counted_start, counted_end) = w.counted(k);
    note(seen, B::WindowStartBelowOne, counted_start < 1);
    note(seen, B::WindowEndPastEnd, counted_end > k as i64 + 1);
    if first == end {
        seen.insert(if counted_end < first as i64 {
            B::WindowEndsBeforeStart
        } else if first == k + 1 {
            B::WindowFinalState
        } else {
            B::WindowEmpty
        });
    }
    let mut reach = Reach::new(&kept);
    reach.window_first = first;
    let reach = reach.run(Job::Window(w), text, Autopilot::default())?;
    *seen = seen.union(reach.seen);
    note(seen, B::WindowSeveralBefore, reach.commands_before > 1);
    note(seen, B::WindowLineFails, reach.refused_first || reach.refused_later);
    note(seen, B::WindowFirstLineFails, reach.refused_before_state);
    if first < end {
        seen.insert(if first > 1 {
            B::WindowInside
        } else if reach.state_shown {
            B::WindowFromStart
        } else {
            B::WindowAllFail
        });
    }
    Ok(())
}

/// `-i`, piped: the line protocol of SPEC section 6, run by the protocol
/// itself; what it did with each line, and the engine after it, are its
/// behaviours. How a typed line ended (CR LF, no newline) and the error
/// kinds of a refused one are read from the line's text.
fn shell(typed: &[u8], autopilot: Autopilot, seen: &mut Coverage) -> Result<(), String> {
    use Behaviour as B;
    seen.insert(B::InitialState);
    let mut lines = typed.split_inclusive(|&b| b == b'\n');
    let mut quit = false;
    let mut heard = |reply: &Reply, engine: &Engine| {
        let raw = lines.next().unwrap_or_default();
        let line = raw.strip_suffix(b"\n").unwrap_or_else(|| {
            seen.insert(B::ShellLastLineOpen);
            raw
        });
        let line = line.strip_suffix(b"\r").map_or(line, |line| {
            seen.insert(B::ShellCrLf);
            line
        });
        if !matches!(reply, Reply::Quit | Reply::Man)
            && matches!(line.trim_ascii(), b"quit" | b"man")
        {
            seen.insert(B::ShellQuitNotAlone);
        }
        let did = match reply {
            Reply::Quit => B::ShellQuit,
            Reply::Man => B::ShellMan,
            Reply::Shown => B::ShellEmptyLine,
            Reply::Ran(_) => B::ShellLine,
            Reply::Refused => {
                *seen = seen.union(line_errors(line));
                B::ShellError
            }
        };
        seen.insert(did);
        *seen = seen.union(engine.seen());
        quit = *reply == Reply::Quit;
    };
    let shell = LineProtocol::new(autopilot);
    let mut recorder = Recorder::default();
    run_plain(shell, typed, &mut io::sink(), &mut recorder, &mut heard)
        .map_err(|e| format!("cannot replay its session: {e}"))?;
    if !quit {
        seen.insert(B::ShellEndOfInput);
    }
    Ok(())
}

/// The error kinds of a line the shell refused (without its line end): the
/// line is a one-line trace.
fn line_errors(line: &[u8]) -> Coverage {
    let kept = if is_kept(line) { [line, b"\n"].concat() } else { Vec::new() };
    of_rejected(&kept).map(|(_, all)| all).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The ids a trace (with its `-- run:` line, if any) reaches.
    fn ids(trace: &str) -> Vec<&'static str> {
        let dir = tempfile::tempdir().expect("scratch");
        let path = dir.path().join("t.txt");
        std::fs::write(&path, trace).expect("write");
        let test = Test { trace: path, name: "t".into() };
        reached(&test).expect("measured").iter().map(Behaviour::id).collect()
    }

    fn has(trace: &str, wanted: &[&str]) {
        let got = ids(trace);
        for id in wanted {
            assert!(got.contains(id), "{trace:?} should reach {id}, reaches {got:?}");
        }
    }

    fn lacks(trace: &str, unwanted: &[&str]) {
        let got = ids(trace);
        for id in unwanted {
            assert!(!got.contains(id), "{trace:?} should not reach {id}, reaches {got:?}");
        }
    }

    const THREE: &str = "new_game(\"A\",\"B\")\nplay(\"A\",1) play(\"B\",2)\nplay(\"A\",3)\n";

    #[test]
    fn a_plain_trace_reaches_what_its_commands_show() {
        assert_eq!(ids(THREE), ["initial-state", "new-game-first", "play-move"]);
        assert_eq!(ids("undo(\n"), ["syntax-end-of-input"]);
        assert_eq!(ids("jump\n"), ["type-unknown-event"]);
    }

    #[test]
    fn windows_show_only_their_lines() {
        let w = |args: &str| format!("-- run: {args}\n{THREE}");
        assert_eq!(ids(&w("-w 3 4 IN")), ["play-move", "window-inside", "window-several-before"]);
        lacks(&w("-w 3 4 IN"), &["new-game-first"]);
        has(&w("-w 1 _ IN OUT"), &["window-from-start", "window-end-open", "window-out-file"]);
        lacks(&w("-w 1 _ IN -"), &["window-out-file"]);
        has(&w("-w +2 +2 IN"), &["window-plus-sign", "window-empty"]);
        has(
            &w("-w 0 0 IN"),
            &["window-final-state", "window-start-relative", "window-end-relative"],
        );
        has(&w("-w -10 -1 IN"), &["window-start-below-one", "window-from-start"]);
        has(&w("-w 2 9 IN"), &["window-end-past-end"]);
        has(&w("-w 5 7 IN"), &["window-past-the-end"]);
        has("-- run: -w 1 2 IN\n", &["window-empty-trace"]);
        assert_eq!(
            ids(&w("-l IN")),
            ["play-move", "window-inside", "window-several-before", "window-last"]
        );
        has("-- run: -w -2 -2 IN\nundo\n", &["window-ends-before-start"]);
        let failing = "-- run: -w 1 _ IN\nundo(\nnew_game(\"A\",\"B\")\njump\n";
        has(
            failing,
            &[
                "window-first-line-fails",
                "window-line-fails",
                "window-from-start",
                "syntax-end-of-input",
            ],
        );
        has("-- run: -w 1 _ IN\nundo(\njump\n", &["window-all-fail", "type-unknown-event"]);
        has("-- run: -w 2 _ IN\nundo(\nundo\n", &["window-error-before", "undo-before-game"]);
        lacks("-- run: -w 2 _ IN\nundo(\nundo\n", &["syntax-end-of-input"]);
    }

    #[test]
    fn window_and_invocation_errors() {
        has("-- run: -w x 2 IN\n", &["window-bad-start"]);
        has("-- run: -w 1 x IN\n", &["window-bad-end"]);
        has("-- run: -w 3 2 IN\n", &["window-start-after-end"]);
        has("-- run: -w 0 2 IN\n", &["window-non-positive-start"]);
        has("-- run:\n", &["invocation-no-mode"]);
        has("-- run: -x IN\n", &["invocation-bad-mode"]);
        has("-- run: -b\n", &["invocation-argument-count"]);
        has("-- run: -b no/such/file.txt\n", &["input-missing"]);
        has("-- run: -b /\n", &["input-unreadable"]);
    }

    #[test]
    fn chunks_of_a_hundred_lines() {
        let many = |bad_at: Option<usize>| {
            let mut t = String::from("-- run: -b IN OUT\nnew_game(\"A\",\"B\")\n");
            for k in 1..250 {
                t.push_str(if Some(k) == bad_at { "undo(\n" } else { "undo\n" });
            }
            t
        };
        has(&many(None), &["chunks-several", "undo-at-start", "initial-state"]);
        has(&many(Some(150)), &["chunks-later-fails", "syntax-parse"]);
        has(&many(Some(50)), &["chunks-first-fails"]);
        has("-- run: -b IN OUT\nundo(\n", &["chunks-one", "chunks-all-fail", "chunks-first-fails"]);
        has("-- run: -b IN OUT\n-- nothing\n", &["chunks-empty", "initial-state"]);
    }

    #[test]
    fn the_shell_line_protocol() {
        let typed = "-- run: -i\nnew_game(\"A\",\"B\")\r\n\nman\n quit\nplay(\"A\",\nquit\nundo\n";
        let got = ids(typed);
        for id in [
            "shell-line",
            "shell-crlf",
            "shell-empty-line",
            "shell-man",
            "shell-quit-not-alone",
            "shell-error",
            "syntax-end-of-input",
            "type-unknown-event",
            "shell-quit",
        ] {
            assert!(got.contains(&id), "{id} in {got:?}");
        }
        assert!(!got.contains(&"undo-at-start"), "lines after quit are not read: {got:?}");
        has(
            "-- run: -i\nundo",
            &["shell-last-line-open", "shell-end-of-input", "undo-before-game"],
        );
    }

    #[test]
    fn what_cannot_be_measured_says_why() {
        let test = Test { trace: PathBuf::from("no/such/test.txt"), name: "t".into() };
        assert!(reached(&test).expect_err("missing").contains("does not exist"));
        let dir = tempfile::tempdir().expect("scratch");
        let path = dir.path().join("t.txt");
        std::fs::write(&path, "-- run: -help\n").expect("write");
        let test = Test { trace: path, name: "t".into() };
        assert!(reached(&test).expect_err("help").contains("runs no trace"));
    }
}
