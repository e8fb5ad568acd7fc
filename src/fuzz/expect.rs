//! The engine's answer to a trace, in this process: the output `-b` prints,
//! its exit status, where each command's part of the output starts and the
//! behaviour it showed; and, given another program's output, the kind of
//! the first divergence.

use crate::behaviour::{Behaviour, Coverage, kept_lines, of_rejected};
use crate::engine::Engine;
use crate::game::view::write_state;
use crate::lang;
use crate::run::show_step;

/// What `tictac -b TRACE` prints and shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expected {
    pub(crate) output: Vec<u8>,
    /// 0 the trace ran, 1 it was rejected.
    pub(crate) status: i32,
    /// Each part of the output: where it starts, and the behaviour it shows
    /// (the initial state, then one per command; or the error alone).
    pub(crate) steps: Vec<(usize, Behaviour)>,
    pub(crate) coverage: Coverage,
}

impl Expected {
    /// Runs a whole trace as `-b` does.
    pub(crate) fn of(text: &[u8]) -> Expected {
        let kept = kept_lines(text);
        let mut output = Vec::with_capacity(128 * 8);
        match lang::check(&kept) {
            Err(e) => {
                // Writing into a Vec cannot fail.
                let _ = e.write_to(&mut output);
                let (first, coverage) =
                    of_rejected(&kept).unwrap_or((Behaviour::SyntaxParse, Coverage::default()));
                Expected { output, status: 1, steps: vec![(0, first)], coverage }
            }
            Ok(commands) => {
                let mut engine = Engine::new();
                let _ = write_state(&mut output, engine.game());
                let mut steps = vec![(0, Behaviour::InitialState)];
                for command in &commands {
                    let at = output.len();
                    engine.run(command);
                    let _ = show_step(command, &engine, &mut output);
                    steps.push((at, engine.last()));
                }
                Expected { output, status: 0, steps, coverage: engine.seen() }
            }
        }
    }

    /// The behaviour of the part of the output holding byte `at`.
    pub(crate) fn behaviour_at(&self, at: usize) -> Behaviour {
        let k = self.steps.partition_point(|&(start, _)| start <= at);
        self.steps[k.saturating_sub(1)].1
    }
}

/// What kind of divergence a run showed: the behaviour of the first part of
/// the output that differs, or one of the ways a program fails outright.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Behaviour(Behaviour),
    /// The output was right up to its end, then more came.
    ExtraOutput,
    /// The program did not finish in time.
    Hang,
    /// Same output, another exit status (with `--check-status`).
    ExitStatus,
    /// The right output, then a death by a signal (a Windows exception).
    Crash,
}

impl Kind {
    pub(crate) fn id(self) -> &'static str {
        match self {
            Kind::Behaviour(b) => b.id(),
            Kind::ExtraOutput => "extra-output",
            Kind::Hang => "hang",
            Kind::ExitStatus => "exit-status",
            Kind::Crash => "crash",
        }
    }

    pub(crate) fn description(self) -> &'static str {
        match self {
            Kind::Behaviour(b) => b.description(),
            Kind::ExtraOutput => "more output after the last state",
            Kind::Hang => "the program did not finish in time",
            Kind::ExitStatus => "the same output with another exit status",
            Kind::Crash => "the right output, then a crash",
        }
    }
}

/// Where `actual` first departs from `wanted` (the expected bytes, segmented
/// by `steps`), if it does.
pub(crate) fn first_difference(steps: &Expected, wanted: &[u8], actual: &[u8]) -> Option<Kind> {
    if wanted == actual {
        return None;
    }
    let same = wanted.iter().zip(actual).take_while(|(a, b)| a == b).count();
    if same == wanted.len() {
        return Some(Kind::ExtraOutput);
    }
    Some(Kind::Behaviour(steps.behaviour_at(same)))
}

/// Bytes of a line kept for a report (and compared when two divergences
/// are matched by their lines); a longer one is cut here.
pub(crate) const LINE_KEPT: usize = 4096;

/// The first line of output that differs: its number (from 1) and the
/// line each side has there (with its newline, if it has one; `None` past
/// the end of that output), each cut at `LINE_KEPT` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LineDifference {
    pub(crate) number: usize,
    pub(crate) expected: Option<Vec<u8>>,
    pub(crate) got: Option<Vec<u8>>,
}

/// Where `actual` first departs from `wanted`, line by line, if it does.
pub(crate) fn first_differing_line(wanted: &[u8], actual: &[u8]) -> Option<LineDifference> {
    if wanted == actual {
        return None;
    }
    let same = wanted.iter().zip(actual).take_while(|(a, b)| a == b).count();
    // Both hold the same bytes up to `same`, so the line starts at the same place.
    let start = wanted[..same].iter().rposition(|&b| b == b'\n').map_or(0, |at| at + 1);
    let number = 1 + wanted[..start].iter().filter(|&&b| b == b'\n').count();
    let line = |text: &[u8]| {
        let rest = text.get(start..).filter(|rest| !rest.is_empty())?;
        let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |at| at + 1);
        Some(rest[..end.min(LINE_KEPT)].to_vec())
    };
    Some(LineDifference { number, expected: line(wanted), got: line(actual) })
}

/// Where an output says a trace was rejected: `(Line L, Column C)` of its
/// last `parse error` line.
fn rejected_where(output: &[u8]) -> Option<(usize, usize)> {
    const AT: &[u8] = b"parse error (Line ";
    let at = memchr::memmem::rfind(output, AT)? + AT.len();
    let rest = &output[at..];
    let number = |text: &[u8]| -> Option<(usize, usize)> {
        let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
        Some((std::str::from_utf8(&text[..digits]).ok()?.parse().ok()?, digits))
    };
    let (line, digits) = number(rest)?;
    let rest = rest[digits..].strip_prefix(b", Column ")?;
    let (column, digits) = number(rest)?;
    rest[digits..].starts_with(b")").then_some((line, column))
}

/// What the program could not read: when its output rejects the trace
/// (`parse error (Line L, Column C)`) at a place where the wanted output
/// does not, the character of the trace's kept lines there (a carriage
/// return, a tab, `é`, `\`), if it is no ASCII letter or digit. A scanner
/// that does not take a character as tictac does stops there, whatever the
/// trace around it shows: one mistake, however many behaviours name it.
pub(crate) fn rejected_at(trace: &[u8], wanted: &[u8], output: &[u8]) -> Option<String> {
    let (line, column) = rejected_where(output)?;
    if rejected_where(wanted) == Some((line, column)) {
        return None;
    }
    let kept = kept_lines(trace);
    let text = kept.split(|&b| b == b'\n').nth(line.checked_sub(1)?)?;
    let rest = text.get(column.checked_sub(1)?..)?;
    let first = rest.utf8_chunks().next()?;
    let shown = match first.valid().chars().next() {
        Some(c) if c.is_ascii_alphanumeric() => return None,
        Some(c) => c.escape_debug().to_string(),
        None => format!("\\x{:02X}", first.invalid().first()?),
    };
    Some(shown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_character_a_program_stops_at_where_tictac_does_not_is_named() {
        let error = |line: usize, column: usize| {
            format!("Syntax Error: specification of command executions cannot be parsed\nparse error (Line {line}, Column {column})\n").into_bytes()
        };
        let trace = "-- a comment\nundo\r\n\tplay(\"Zoë\", 10 é)".as_bytes();
        let engine = Expected::of(trace).output;
        assert_eq!(rejected_at(trace, &engine, &error(1, 5)).as_deref(), Some("\\r"));
        assert_eq!(rejected_at(trace, &engine, &error(2, 1)).as_deref(), Some("\\t"));
        // A letter names nothing; nor does the place tictac rejects it at.
        assert_eq!(rejected_at(trace, &engine, &error(1, 1)), None);
        assert_eq!(rejected_where(&engine), Some((2, 18)));
        assert_eq!(rejected_at(trace, &engine, &error(2, 18)), None);
        assert_eq!(rejected_at(trace, &engine, &error(2, 17)).as_deref(), Some(" "));
        assert_eq!(rejected_at(trace, &engine, &error(2, 16)), None);
        assert_eq!(rejected_at(trace, &engine, &error(9, 1)), None);
        assert_eq!(rejected_at(trace, &engine, b"  ok\n"), None);
    }

    #[test]
    fn the_output_is_what_batch_prints_with_each_step_located() {
        let e = Expected::of(b"new_game(\"A\",\"B\")\n-- c\nplay(\"B\", 1)");
        assert_eq!(e.status, 0);
        assert!(e.output.starts_with(b"  ok:  => start new game\n"));
        let kinds: Vec<_> = e.steps.iter().map(|s| s.1).collect();
        assert_eq!(
            kinds,
            [Behaviour::InitialState, Behaviour::NewGameFirst, Behaviour::PlayWrongTurn]
        );
        assert!(e.output[e.steps[2].0..].starts_with(b"->play(\"B\",1)\n"));
        assert_eq!(e.behaviour_at(0), Behaviour::InitialState);
        assert_eq!(e.behaviour_at(e.steps[2].0 - 1), Behaviour::NewGameFirst);
        assert_eq!(e.behaviour_at(e.output.len() - 1), Behaviour::PlayWrongTurn);
        assert_eq!(e.coverage.len(), 3);
    }

    #[test]
    fn a_rejected_trace_is_its_message() {
        let e = Expected::of(b"\n-- x\nplay(\"A\", 1\n");
        assert_eq!(e.status, 1);
        assert_eq!(
            e.output,
            b"Syntax Error: specification of command executions cannot be parsed\nparse error (Line 2, Column 1)\n"
        );
        assert_eq!(e.steps, [(0, Behaviour::SyntaxEndOfInput)]);
    }

    #[test]
    fn divergences_are_named_by_the_first_differing_part() {
        let e = Expected::of(b"new_game(\"A\",\"B\") play(\"B\", 1)");
        let out = &e.output;
        assert_eq!(first_difference(&e, out, out), None);
        let mut changed = out.clone();
        *changed.last_mut().expect("output") = b'!';
        assert_eq!(
            first_difference(&e, out, &changed),
            Some(Kind::Behaviour(Behaviour::PlayWrongTurn))
        );
        let mut longer = out.clone();
        longer.push(b'x');
        assert_eq!(first_difference(&e, out, &longer), Some(Kind::ExtraOutput));
        assert_eq!(first_difference(&e, out, b""), Some(Kind::Behaviour(Behaviour::InitialState)));
    }

    #[test]
    fn the_first_differing_line_is_numbered_from_one() {
        let line = |w: &[u8], a: &[u8]| first_differing_line(w, a);
        assert_eq!(line(b"a\nb\n", b"a\nb\n"), None);
        let d = line(b"a\nbc\nd\n", b"a\nbX\nd\n").expect("differs");
        assert_eq!(d.number, 2);
        assert_eq!(d.expected.as_deref(), Some(&b"bc\n"[..]));
        assert_eq!(d.got.as_deref(), Some(&b"bX\n"[..]));
        // Past the end of either side, and a missing last newline.
        let d = line(b"a\n", b"a\nmore\n").expect("differs");
        assert_eq!((d.number, d.expected, d.got), (2, None, Some(b"more\n".to_vec())));
        let d = line(b"a\nb\n", b"").expect("differs");
        assert_eq!((d.number, d.expected, d.got), (1, Some(b"a\n".to_vec()), None));
        let d = line(b"a\nb\n", b"a\nb").expect("differs");
        assert_eq!((d.number, d.expected, d.got), (2, Some(b"b\n".to_vec()), Some(b"b".to_vec())));
        let long = vec![b'y'; LINE_KEPT * 2];
        let d = line(b"a\n", &long).expect("differs");
        assert_eq!(d.got.map(|g| g.len()), Some(LINE_KEPT));
    }
}
