//! How a divergence is told, as Hypothesis tells a falsifying example: the
//! shrunk trace as its file holds it, the first line of output that
//! differs, the exit status if it differs, and where it was saved. Kinds
//! with one cause (the same shrunk trace, or the same pair of differing
//! lines) are one report listing them.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use super::expect::{Kind, LineDifference, first_differing_line};
use super::program::Exit;

/// Characters of an output line shown; the rest is cut with `…`.
const LINE_SHOWN: usize = 200;

/// Lines of a trace shown; a longer one (not fully shrunk) ends with a
/// count, the saved file has it all.
const TRACE_SHOWN: usize = 50;

/// The last lines of the program's standard error shown (each cut as an
/// output line is): where a traceback or `can't open file` says why.
const STDERR_SHOWN: usize = 10;

/// How the program's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// It exited by itself with this status, or crashed.
    Exited(Exit),
    /// Still running at `--timeout`.
    TimedOut,
    /// Stopped by a signal and never resumed until `--timeout`: how.
    Frozen(String),
    /// Stopped for printing far more than expected.
    TooMuch,
}

/// What a report shows of one run that diverged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Symptom {
    /// The first line of output that differs (none: the same output, or
    /// none read since the program did not finish).
    pub(crate) line: Option<LineDifference>,
    pub(crate) ended: Ended,
    /// The exit status wanted (the engine's, or the oracle's).
    pub(crate) wanted_status: Option<i32>,
    /// The end of what the program wrote to standard error.
    pub(crate) stderr: Vec<u8>,
    /// The character of the trace the program rejected it at, where
    /// tictac does not (`expect::rejected_at`), escaped.
    pub(crate) rejected_at: Option<String>,
}

impl Symptom {
    pub(crate) fn of(wanted: &[u8], output: &[u8], ended: Ended, status: Option<i32>) -> Symptom {
        let line = first_differing_line(wanted, output);
        Symptom { line, ended, wanted_status: status, stderr: Vec::new(), rejected_at: None }
    }

    /// A run that did not finish (`ended`: timed out, or frozen): no
    /// output read.
    pub(crate) fn unfinished(ended: Ended) -> Symptom {
        Symptom { line: None, ended, wanted_status: None, stderr: Vec::new(), rejected_at: None }
    }

    /// The program did not finish: no output was read.
    pub(crate) fn did_not_finish(&self) -> bool {
        matches!(self.ended, Ended::TimedOut | Ended::Frozen(_))
    }

    /// With the character of the trace the program rejected it at.
    pub(crate) fn rejected_at(self, rejected_at: Option<String>) -> Symptom {
        Symptom { rejected_at, ..self }
    }

    /// With the end of what the program wrote to standard error.
    pub(crate) fn with_stderr(self, stderr: Vec<u8>) -> Symptom {
        Symptom { stderr, ..self }
    }

    /// The program printed nothing at all.
    pub(crate) fn silent(&self) -> bool {
        self.line.as_ref().is_some_and(|l| l.number == 1 && l.got.is_none())
    }

    /// How a run the program failed on every trace way ended, in words
    /// (`did not finish in 10 s`, `printed nothing and exited with status 2`).
    pub(crate) fn failed_how(&self, timeout: Duration) -> String {
        match &self.ended {
            Ended::TimedOut => format!("did not finish in {} s", timeout.as_secs_f64()),
            Ended::Frozen(how) => format!("did not finish ({how})"),
            Ended::Exited(Exit::Crashed(how)) => format!("was {how} before printing anything"),
            Ended::Exited(Exit::Status(code)) => {
                format!("printed nothing and exited with status {code}")
            }
            Ended::TooMuch => "printed far more than expected".to_string(),
        }
    }

    /// The output stops short (it ends, or ends mid-line, where the wanted
    /// one goes on) and the program did not end as wanted (a signal, a
    /// status of its own): a crash, wherever it fell in each trace.
    fn crashed_short(&self) -> bool {
        let short = self.line.as_ref().is_some_and(|l| match (&l.expected, &l.got) {
            (Some(_), None) => true,
            (Some(wanted), Some(got)) => !got.ends_with(b"\n") && wanted.starts_with(got),
            (None, _) => false,
        });
        let abnormal = match &self.ended {
            Ended::Exited(Exit::Status(status)) => Some(*status) != self.wanted_status,
            Ended::Exited(Exit::Crashed(_)) => true,
            Ended::TimedOut | Ended::Frozen(_) | Ended::TooMuch => false,
        };
        short && abnormal
    }

    /// The pair of lines that differ, which names a cause.
    fn pair(&self) -> Option<LinePair<'_>> {
        self.line.as_ref().map(|l| (&l.expected, &l.got))
    }

    /// How the differing line was changed, whatever the line around it:
    /// the text expected and the text got between what the two lines share
    /// at their start and at their end; only when that text holds a
    /// character other than an ASCII letter, a digit or a space (a
    /// backslash, a quote, a tab, `é`). A mistake in how text is read or
    /// printed (`Jo\"e` printed `Jo"e`) shows so on whichever line prints
    /// that text, under whichever behaviour; a change of plain words (`B`
    /// for `A`, one message for another) is too common to mean one cause.
    fn edit(&self) -> Option<(&[u8], &[u8])> {
        let line = self.line.as_ref()?;
        // A line's newline is no text of it (a line cut short is a crash's).
        let (expected, got) = (line.expected.as_deref()?, line.got.as_deref()?);
        let expected = expected.strip_suffix(b"\n").unwrap_or(expected);
        let got = got.strip_suffix(b"\n").unwrap_or(got);
        let start = expected.iter().zip(got).take_while(|(a, b)| a == b).count();
        let (e, g) = (&expected[start..], &got[start..]);
        let end = e.iter().rev().zip(g.iter().rev()).take_while(|(a, b)| a == b).count();
        let edit = (&e[..e.len() - end], &g[..g.len() - end]);
        let telling = |b: &u8| !(b.is_ascii_alphanumeric() || *b == b' ');
        (edit.0.iter().chain(edit.1).any(telling)).then_some(edit)
    }
}

/// How the differing line printed the expected line's text that is not
/// ASCII otherwise, all else the same: the first such text expected and
/// what stands for it (`É` as `\xC9`, `李雷` as `??`). Each run of
/// characters that are not ASCII is printed as other bytes that are not
/// ASCII, or as `?` (Latin-1, a console's code page, a lossy conversion):
/// one mistake, the output's encoding, on whichever line prints such text.
fn recoded(line: &LineDifference) -> Option<(&str, &[u8])> {
    fn body(l: &[u8]) -> &[u8] {
        l.strip_suffix(b"\n").unwrap_or(l)
    }
    let expected = std::str::from_utf8(body(line.expected.as_deref()?)).ok()?;
    let got = body(line.got.as_deref()?);
    let mut at = 0;
    let mut first = None;
    let mut rest = expected;
    while !rest.is_empty() {
        let ascii = rest.starts_with(|c: char| c.is_ascii());
        let len = rest.find(|c: char| c.is_ascii() != ascii).unwrap_or(rest.len());
        let (run, after) = rest.split_at(len);
        if ascii {
            got.get(at..)?.starts_with(run.as_bytes()).then_some(())?;
            at += len;
        } else {
            let other = |b: &u8| !b.is_ascii() || *b == b'?';
            let n = got.get(at..)?.iter().take_while(|b| other(b)).count();
            let printed = &got[at..at + n];
            if n == 0 {
                return None;
            }
            if printed != run.as_bytes() && first.is_none() {
                first = Some((run, printed));
            }
            at += n;
        }
        rest = after;
    }
    if at == got.len() { first } else { None }
}

/// The expected and the actual line (`None`: the output had ended).
type LinePair<'a> = (&'a Option<Vec<u8>>, &'a Option<Vec<u8>>);

/// One report: the kinds it showed, what was shrunk, what differs, and
/// the saved test.
struct Reported {
    kinds: Vec<Kind>,
    /// Its output differs from the first byte or at the initial state: one
    /// fault, whatever kinds it shows.
    root: bool,
    /// The shrunk trace (before any `-- status:` line is put on it).
    trace: Vec<u8>,
    /// Its events.
    events: usize,
    symptom: Symptom,
    saved: Option<PathBuf>,
}

/// The reports of a session, in the order they were made.
#[derive(Default)]
pub(crate) struct Reports(Vec<Reported>);

impl Reports {
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The report of the same cause as `trace` showing `symptom` (the same
    /// trace, or the same pair of differing lines), if one was made; and
    /// how they are the same.
    pub(crate) fn same_cause(&self, trace: &[u8], symptom: &Symptom) -> Option<(usize, String)> {
        self.0.iter().enumerate().find_map(|(k, r)| {
            if r.trace == trace {
                Some((k, "the same shrunk trace".to_string()))
            } else if symptom.pair().is_some() && r.symptom.pair() == symptom.pair() {
                Some((k, "the same line of output differs the same way".to_string()))
            } else if let Some((expected, got)) = symptom.edit()
                && r.symptom.edit() == Some((expected, got))
            {
                let text = |b: &[u8]| {
                    if b.is_empty() { "nothing".to_string() } else { format!("`{}`", shown(b)) }
                };
                let how =
                    format!("the same text printed wrongly: {} as {}", text(expected), text(got));
                Some((k, how))
            } else if let Some((expected, got)) = symptom.line.as_ref().and_then(recoded)
                && r.symptom.line.as_ref().and_then(recoded).is_some()
            {
                let how = format!(
                    "text that is not ASCII printed otherwise than as UTF-8: `{}` as `{}`",
                    shown(expected.as_bytes()),
                    shown(got)
                );
                Some((k, how))
            } else if let Some(at) = &symptom.rejected_at
                && r.symptom.rejected_at.as_ref() == Some(at)
            {
                Some((
                    k,
                    format!("the program rejects the trace at a `{at}` where tictac does not"),
                ))
            } else if symptom.crashed_short()
                && r.symptom.crashed_short()
                && (&r.symptom.ended, r.symptom.wanted_status)
                    == (&symptom.ended, symptom.wanted_status)
            {
                Some((k, "the output stops short and the program ends the same way".to_string()))
            } else {
                None
            }
        })
    }

    /// Counts `kind` in report `k`, and says so.
    pub(crate) fn join(&mut self, k: usize, kind: Kind, run: u64, how: &str) -> String {
        let report = &mut self.0[k];
        if !report.kinds.contains(&kind) {
            report.kinds.push(kind);
        }
        format!(
            "Also {} ({}), run {run}: the same divergence as {} above ({how}); not saved again",
            kind.id(),
            kind.description(),
            report.kinds[0].id()
        )
    }

    pub(crate) fn add(
        &mut self,
        (kind, root): (Kind, bool),
        (trace, events): (Vec<u8>, usize),
        symptom: Symptom,
        saved: Option<PathBuf>,
    ) {
        self.0.push(Reported { kinds: vec![kind], root, trace, events, symptom, saved });
    }

    /// The events of report `k`'s shrunk trace.
    pub(crate) fn events(&self, k: usize) -> usize {
        self.0[k].events
    }

    /// Report `k` told again by a smaller trace of the same divergence,
    /// shown by `kind` (named first); the kind it was named after, and
    /// the test it had saved.
    pub(crate) fn replace(
        &mut self,
        k: usize,
        kind: Kind,
        (trace, events): (Vec<u8>, usize),
        symptom: Symptom,
        saved: Option<PathBuf>,
    ) -> (Kind, Option<PathBuf>) {
        let report = &mut self.0[k];
        let named = report.kinds[0];
        report.kinds.retain(|k| *k != kind);
        report.kinds.insert(0, kind);
        (report.trace, report.events, report.symptom) = (trace, events, symptom);
        (named, std::mem::replace(&mut report.saved, saved))
    }

    /// The file of a saved report of `kind` (or of the fault at the root,
    /// for a `root` one).
    pub(crate) fn saved_for(&self, kind: Kind, root: bool) -> Option<&PathBuf> {
        self.0
            .iter()
            .filter(|r| r.kinds.contains(&kind) || (root && r.root))
            .find_map(|r| r.saved.as_ref())
    }

    /// What was found, one line a report (nothing when nothing was).
    pub(crate) fn recap(&self) -> String {
        let mut text = String::new();
        if self.0.is_empty() {
            return text;
        }
        let n = self.0.len();
        let _ = writeln!(text, "Found {}:", super::counted(n as u64, "divergence", "divergences"));
        for report in &self.0 {
            let kinds: Vec<&str> = report.kinds.iter().map(|k| k.id()).collect();
            let at = match (&report.symptom.line, &report.symptom.ended) {
                (_, Ended::TimedOut) => "did not finish".to_string(),
                (_, Ended::Frozen(how)) => how.clone(),
                (Some(line), _) => format!("output line {}", line.number),
                (None, Ended::Exited(Exit::Crashed(how))) => how.clone(),
                (None, _) => "exit status".to_string(),
            };
            let saved = report
                .saved
                .as_ref()
                .map_or_else(|| "not saved".to_string(), |p| p.display().to_string());
            let _ = writeln!(text, "  {}: {at}, {saved}", kinds.join(", "));
        }
        text
    }
}

/// What a report of a session says beside the divergence itself.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Telling {
    /// `--timeout`, which a hang did not finish in.
    pub(crate) timeout: Duration,
    /// `--check-status`: an exit status other than the expected one is
    /// told; otherwise it is no part of a divergence (a wrapper that always
    /// exits 0, as the ETF oracle does), and only a crash is.
    pub(crate) statuses: bool,
}

/// The report of a new divergence: `head`, then the trace as its file
/// holds it, what differs, how the program ended, and where it was saved
/// (or why it was not).
pub(crate) fn falsifying(
    head: &str,
    trace: &[u8],
    symptom: &Symptom,
    telling: Telling,
    saved: &Result<PathBuf, String>,
) -> String {
    let (lines, escaped) = trace_shown(trace, TRACE_SHOWN);
    let mut text = format!("{head}:\n{lines}");
    if let Some(line) = &symptom.line {
        let other = |side: &Option<Vec<u8>>| side.as_ref().is_some_and(|l| l.ends_with(b"\n"));
        let _ = writeln!(text, "  output line {}:", line.number);
        let _ = writeln!(text, "    expected: {}", quoted(&line.expected, other(&line.got)));
        let _ = writeln!(text, "    got:      {}", quoted(&line.got, other(&line.expected)));
    }
    match &symptom.ended {
        Ended::TimedOut => {
            let secs = telling.timeout.as_secs_f64();
            let _ = writeln!(text, "  the program did not finish in {secs} s");
        }
        Ended::Frozen(how) => {
            let _ = writeln!(text, "  the program did not finish: {how}");
        }
        Ended::TooMuch => text.push_str("  it printed far more than expected, and was stopped\n"),
        Ended::Exited(Exit::Crashed(how)) => {
            let _ = writeln!(text, "  the program was {how}");
        }
        Ended::Exited(Exit::Status(got))
            if telling.statuses && Some(*got) != symptom.wanted_status =>
        {
            let wanted = symptom.wanted_status.map_or_else(|| "none".into(), |s| s.to_string());
            let _ = writeln!(text, "  exit status: expected {wanted}, got {got}");
        }
        Ended::Exited(Exit::Status(_)) => {}
    }
    text.push_str(&stderr_tail(&symptom.stderr, "  ", "standard error"));
    match saved {
        Ok(path) if escaped => {
            let _ = write!(
                text,
                "  saved: {} (the file holds the exact bytes; above, control and invisible characters are escaped)",
                path.display()
            );
        }
        Ok(path) => {
            let _ = write!(text, "  saved: {}", path.display());
        }
        Err(why) => {
            let _ = write!(text, "  not saved: {why}");
        }
    }
    text
}

/// The lines of `trace` as a report shows them, each indented by four
/// spaces and escaped (`shown`), at most `most` of them and then how many
/// more; and whether any was escaped (the file holds other bytes).
pub(crate) fn trace_shown(trace: &[u8], most: usize) -> (String, bool) {
    if trace.is_empty() {
        return ("    (the empty trace)\n".into(), false);
    }
    let lines: Vec<&[u8]> =
        trace.strip_suffix(b"\n").unwrap_or(trace).split(|&b| b == b'\n').collect();
    let (mut text, mut escaped) = (String::new(), false);
    for line in lines.iter().take(most) {
        let line_shown = shown(line);
        escaped |= line_shown.as_bytes() != *line;
        let _ = writeln!(text, "    {line_shown}");
    }
    if lines.len() > most {
        let more = (lines.len() - most) as u64;
        let _ = writeln!(text, "    ... ({})", super::counted(more, "more line", "more lines"));
    }
    (text, escaped)
}

/// The last lines of what a program wrote to standard error, under
/// `heading` (`standard error:`), each indented by `indent` and two more, escaped as a trace's
/// lines are and cut after as many characters as an output line; nothing
/// when it wrote nothing.
pub(crate) fn stderr_tail(stderr: &[u8], indent: &str, heading: &str) -> String {
    let mut text = String::new();
    let body = stderr.strip_suffix(b"\n").unwrap_or(stderr);
    if body.is_empty() {
        return text;
    }
    let lines: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
    let left_out = lines.len().saturating_sub(STDERR_SHOWN);
    let last = if left_out > 0 { " (its last lines)" } else { "" };
    let _ = writeln!(text, "{indent}{heading}{last}:");
    for line in &lines[left_out..] {
        let line = shown(line);
        let kept: String = line.chars().take(LINE_SHOWN).collect();
        let cut = if kept.len() < line.len() { "…" } else { "" };
        let _ = writeln!(text, "{indent}  {kept}{cut}");
    }
    text
}

/// A line of a trace as a student reads it: control and invisible
/// characters escaped as Rust writes them (`\t`, `\r`, `\u{1b}`, a
/// zero-width space `\u{200b}`, a no-break space `\u{a0}`), letters of any
/// alphabet as they are (`é`, `李`), quotes and backslashes as written, and
/// bytes that are not UTF-8 as `\xNN`.
fn shown(line: &[u8]) -> String {
    let mut text = String::new();
    for chunk in line.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' | '\'' | '\\' => text.push(c),
                _ => text.extend(c.escape_debug()),
            }
        }
        hex(&mut text, chunk.invalid());
    }
    text
}

/// Bytes that are not UTF-8, as `\xNN` each.
fn hex(text: &mut String, bytes: &[u8]) {
    for byte in bytes {
        let _ = write!(text, "\\x{byte:02X}");
    }
}

/// A line of output in quotes, escaped (as Rust writes a string, bytes that
/// are not UTF-8 as `\xNN`) and cut; the end of the output if there is
/// none; and a missing newline said when the other side has one.
fn quoted(line: &Option<Vec<u8>>, other_has_newline: bool) -> String {
    let Some(line) = line else { return "(the end of the output)".into() };
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let mut quoted = String::from("\"");
    // Each character, or each byte that is not one, counts one.
    let length: usize =
        body.utf8_chunks().map(|c| c.valid().chars().count() + c.invalid().len()).sum();
    let mut left = LINE_SHOWN;
    'chunks: for chunk in body.utf8_chunks() {
        for c in chunk.valid().chars() {
            if left == 0 {
                break 'chunks;
            }
            left -= 1;
            let escaped = format!("{:?}", c.to_string());
            quoted.push_str(&escaped[1..escaped.len() - 1]);
        }
        for &byte in chunk.invalid() {
            if left == 0 {
                break 'chunks;
            }
            left -= 1;
            hex(&mut quoted, &[byte]);
        }
    }
    quoted.push('"');
    if length > LINE_SHOWN {
        quoted.push('…');
    }
    if !line.ends_with(b"\n") && other_has_newline {
        quoted.push_str(" (no newline at the end)");
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::Behaviour;

    fn symptom(wanted: &[u8], got: &[u8], status: Option<i32>) -> Symptom {
        Symptom::of(wanted, got, ended(status), Some(0))
    }

    /// Exited with a status, or (none) killed by SIGKILL.
    fn ended(status: Option<i32>) -> Ended {
        Ended::Exited(
            status
                .map_or_else(|| Exit::Crashed("killed by signal 9 (SIGKILL)".into()), Exit::Status),
        )
    }

    /// How the reports of a session with `--check-status` are told.
    const CHECKED: Telling = Telling { timeout: Duration::from_secs(1), statuses: true };

    #[test]
    fn a_report_shows_the_trace_the_line_the_status_and_the_file() {
        let s = symptom(b"a\n  ok\nb\n", b"a\n  \x1b[2Jno\nb\n", Some(3));
        let saved = Ok(PathBuf::from("found/undo-move-1.txt"));
        let text = falsifying(
            "Divergence: undo-move",
            b"new_game(\"A\",\"B\")\nundo\n",
            &s,
            CHECKED,
            &saved,
        );
        assert_eq!(
            text,
            "Divergence: undo-move:\n    new_game(\"A\",\"B\")\n    undo\n  output line 2:\n    expected: \"  ok\"\n    got:      \"  \\u{1b}[2Jno\"\n  exit status: expected 0, got 3\n  saved: found/undo-move-1.txt"
        );
        let s = symptom(b"a\n", b"a", Some(0));
        let text = falsifying("D", b"undo", &s, CHECKED, &Err("no room".into()));
        assert!(
            text.contains("got:      \"a\" (no newline at the end)\n  not saved: no room"),
            "{text}"
        );
        assert!(!text.contains("exit status"), "{text}");
        let telling = Telling { timeout: Duration::from_millis(1500), ..CHECKED };
        let text = falsifying("D", b"", &Symptom::unfinished(Ended::TimedOut), telling, &saved);
        assert!(
            text.contains("(the empty trace)\n  the program did not finish in 1.5 s\n"),
            "{text}"
        );
    }

    /// Without `--check-status` a status is no part of a divergence (S9),
    /// a crash always is, named by its signal (finding 7).
    #[test]
    fn a_status_is_told_with_check_status_only_and_a_crash_always() {
        let plain = Telling { statuses: false, ..CHECKED };
        let saved = Ok(PathBuf::from("f"));
        let wrong = symptom(b"a\n", b"b\n", Some(1));
        let text = falsifying("D", b"undo", &wrong, plain, &saved);
        assert!(text.ends_with("got:      \"b\"\n  saved: f"), "{text}");
        let crashed = symptom(b"a\n", b"a\n", None);
        for telling in [plain, CHECKED] {
            let text = falsifying("D", b"undo", &crashed, telling, &saved);
            assert!(
                text.ends_with(
                    "    undo\n  the program was killed by signal 9 (SIGKILL)\n  saved: f"
                ),
                "{text}"
            );
        }
        let mut reports = Reports::default();
        reports.add((Kind::Crash, false), (b"undo".to_vec(), 1), crashed, Some(PathBuf::from("f")));
        assert_eq!(
            reports.recap(),
            "Found 1 divergence:\n  crash: killed by signal 9 (SIGKILL), f\n"
        );
    }

    /// The last lines of standard error, escaped and cut: a traceback's
    /// end, never 64 KiB on one line.
    #[test]
    fn the_end_of_standard_error_is_shown_a_few_short_lines() {
        let saved = Ok(PathBuf::from("f"));
        let s = symptom(b"a\n", b"", Some(1)).with_stderr(b"Traceback:\n  x\tb\n".to_vec());
        let text = falsifying("D", b"undo", &s, CHECKED, &saved);
        assert!(
            text.contains("\n  standard error:\n    Traceback:\n      x\\tb\n  saved: f"),
            "{text}"
        );
        let many: Vec<u8> = (0..30).flat_map(|k| format!("line {k}\n").into_bytes()).collect();
        let tail = stderr_tail(&many, "", "E");
        assert!(tail.starts_with("E (its last lines):\n  line 20\n"), "{tail}");
        assert!(tail.ends_with("  line 29\n"), "{tail}");
        let long = stderr_tail(&vec![b'x'; 65536], "", "E");
        assert_eq!(long, format!("E:\n  {}…\n", "x".repeat(LINE_SHOWN)));
        assert_eq!(stderr_tail(b"\n", "", "E"), "");
    }

    #[test]
    fn crashes_cutting_the_output_short_on_different_lines_are_one_cause() {
        let killed = |got: &[u8]| Symptom::of(b"a\nbb\ncc\n", got, ended(None), Some(0));
        let mut reports = Reports::default();
        let kind = Kind::Behaviour(Behaviour::ALL[0]);
        reports.add((kind, false), (b"x".to_vec(), 1), killed(b"a\nb"), None);
        assert!(reports.same_cause(b"y", &killed(b"a\nbb\nc")).is_some());
        assert!(reports.same_cause(b"y", &killed(b"a\n")).is_some());
        // Not when it ends as wanted, nor when the line is another one.
        let exited = Symptom::of(b"a\nbb\ncc\n", b"a\nbb\nc", ended(Some(0)), Some(0));
        assert!(reports.same_cause(b"y", &exited).is_none());
        assert!(reports.same_cause(b"y", &killed(b"a\nbx\n")).is_none());
    }

    #[test]
    fn control_and_invisible_characters_of_the_trace_are_escaped_letters_are_not() {
        let s = symptom(b"a\n", b"b\n", Some(0));
        let saved = Ok(PathBuf::from("found/syntax-column-tab-1.txt"));
        let trace = "play(\t\"Zoë\u{200b}\u{a0}\", 1\r) undo\u{c} -- Jo\\\"e 李\n".as_bytes();
        let text = falsifying("D", trace, &s, CHECKED, &saved);
        assert!(
            text.starts_with(
                "D:\n    play(\\t\"Zoë\\u{200b}\\u{a0}\", 1\\r) undo\\u{c} -- Jo\\\"e 李\n"
            ),
            "{text}"
        );
        assert!(
            text.ends_with(
                "  saved: found/syntax-column-tab-1.txt (the file holds the exact bytes; above, control and invisible characters are escaped)"
            ),
            "{text}"
        );
        // Nothing escaped, nothing said.
        let text = falsifying("D", "play(\"Zoë\", 1)\n".as_bytes(), &s, CHECKED, &saved);
        assert!(text.ends_with("  saved: found/syntax-column-tab-1.txt"), "{text}");
        assert!(text.contains("    play(\"Zoë\", 1)\n"), "{text}");
    }

    /// A trace longer than shown ends with the count of lines left out,
    /// singular for one.
    #[test]
    fn the_lines_of_a_trace_left_out_are_counted() {
        let s = symptom(b"a\n", b"b\n", Some(0));
        for (lines, said) in
            [(TRACE_SHOWN + 1, "(1 more line)"), (TRACE_SHOWN + 2, "(2 more lines)")]
        {
            let trace = "undo\n".repeat(lines);
            let text = falsifying("D", trace.as_bytes(), &s, CHECKED, &Err("-".into()));
            assert!(text.contains(&format!("\n    ... {said}\n")), "{text}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex() {
        let s = symptom(b"  score\n", b"  sc\xff\xfeore \x1b\"\n", Some(0));
        let text = falsifying("D", b"undo \xff", &s, CHECKED, &Err("-".into()));
        assert!(text.contains("    undo \\xFF\n"), "{text}");
        assert!(text.contains("got:      \"  sc\\xFF\\xFEore \\u{1b}\\\"\""), "{text}");
        let long = [b"a".repeat(LINE_SHOWN - 1), vec![0xff, 0xfe, b'\n']].concat();
        let s = symptom(b"b\n", &long, Some(0));
        let text = falsifying("D", b"", &s, CHECKED, &Err("-".into()));
        assert!(
            text.contains(&format!("got:      \"{}\\xFF\"…", "a".repeat(LINE_SHOWN - 1))),
            "{text}"
        );
    }

    /// The escaped quote of `Jo\"e` printed as a bare quote: on the echo of
    /// new_game, of a play, on the hint and the scores, under four
    /// behaviours, one mistake.
    #[test]
    fn one_text_printed_wrongly_on_any_line_is_one_cause() {
        let wrong = |line: &str| {
            let wanted = format!("a\n{line}\n");
            let got = wanted.replace("\\\"", "\"");
            symptom(wanted.as_bytes(), got.as_bytes(), Some(0))
        };
        let mut reports = Reports::default();
        let first = Kind::Behaviour(Behaviour::NewGameFirst);
        reports.add(
            (first, false),
            (b"t1".to_vec(), 1),
            wrong("->new_game(\"Jo\\\"e\",\"A\")"),
            None,
        );
        for (k, line) in [
            "->play(\"Jo\\\"e\",1)",
            "  ok: => Jo\\\"e plays next",
            "  1: score for \"Jo\\\"e\" (as X)",
            "play(Jo\\\"e, 10) does not conform to declaration play(player: NAME = STRING ; press: BUTTON = 1 .. 9)",
        ]
        .into_iter()
        .enumerate()
        {
            let trace = format!("t{}", k + 2);
            let (at, how) = reports.same_cause(trace.as_bytes(), &wrong(line)).expect(line);
            assert_eq!((at, how.as_str()), (0, "the same text printed wrongly: `\\` as nothing"));
        }
        // Plain words changed the same way on two lines: no cause told.
        let plain = |wanted: &[u8], got: &[u8]| symptom(wanted, got, Some(0));
        reports.add(
            (first, false),
            (b"t9".to_vec(), 1),
            plain(b"  ok: => A plays\n", b"  ok: => B plays\n"),
            None,
        );
        assert!(reports.same_cause(b"t10", &plain(b"  _A_ next\n", b"  _B_ next\n")).is_none());
        // Another text, or the same text printed otherwise: another cause.
        assert!(reports.same_cause(b"t11", &plain(b"Zo\xc3\xab\n", b"Zo?\n")).is_none());
        assert!(reports.same_cause(b"t12", &plain(b"Jo\\\"e\n", b"Jo\\\\\"e\n")).is_none());
    }

    /// A program whose output is Latin-1 (`iconv -t latin1//TRANSLIT`):
    /// `É` as `\xC9`, `李雷` and `🎲` as `?`, on any line; one report, not
    /// five (attack 37's A6).
    #[test]
    fn text_printed_in_another_encoding_on_any_line_is_one_cause() {
        let line = |wanted: &str, got: &[u8]| {
            let mut got = got.to_vec();
            got.push(b'\n');
            symptom(format!("a\n{wanted}\n").as_bytes(), &[b"a\n", &got[..]].concat(), Some(0))
        };
        let mut reports = Reports::default();
        let first = Kind::Behaviour(Behaviour::PlayUnknownPlayer);
        reports.add(
            (first, false),
            (b"t1".to_vec(), 1),
            line("->play(\"Émile\",1)", b"->play(\"\xC9mile\",1)"),
            None,
        );
        for (wanted, got, how) in [
            (
                "->new_game(\"Émile\",\"Émile\")",
                &b"->new_game(\"\xC9mile\",\"\xC9mile\")"[..],
                "`É` as `\\xC9`",
            ),
            ("  ok: => Li李 plays next", b"  ok: => Li? plays next", "`李` as `?`"),
            ("->play(\"Ro🎲\",5)", b"->play(\"Ro?\",5)", "`🎲` as `?`"),
            ("  1: score for \"李雷\" (as X)", b"  1: score for \"??\" (as X)", "`李雷` as `??`"),
        ] {
            let (at, said) = reports.same_cause(b"t2", &line(wanted, got)).expect(wanted);
            let how = format!("text that is not ASCII printed otherwise than as UTF-8: {how}");
            assert_eq!((at, said), (0, how));
        }
        // Something else changed too, or the text dropped: another cause.
        for (wanted, got) in [
            ("->play(\"Émile\",1)", &b"->play(\"\xC9mile\",2)"[..]),
            ("->play(\"Émile\",1)", b"->play(\"mile\",1)"),
            ("->play(\"Emile\",1)", b"->play(\"\xC9mile\",1)"),
        ] {
            assert!(reports.same_cause(b"t3", &line(wanted, got)).is_none(), "{wanted}");
        }
    }

    #[test]
    fn one_cause_is_one_report() {
        let mut reports = Reports::default();
        let undo = Kind::Behaviour(Behaviour::UndoMove);
        let s = symptom(b"x\n  ___\n", b"x\n  ???\n", Some(0));
        reports.add((undo, false), (b"t1".to_vec(), 1), s, Some(PathBuf::from("f")));
        // The same lines in another trace, and the same trace.
        let same_lines = symptom(b"y\nz\n  ___\n", b"y\nz\n  ???\n", Some(0));
        let (k, how) = reports.same_cause(b"t2", &same_lines).expect("the same lines");
        assert_eq!((k, how.as_str()), (0, "the same line of output differs the same way"));
        let other = symptom(b"  ___\n", b"  !!!\n", Some(0));
        assert!(reports.same_cause(b"t2", &other).is_none());
        assert_eq!(reports.same_cause(b"t1", &other).map(|r| r.0), Some(0));
        let error = Kind::Behaviour(Behaviour::UndoError);
        let said = reports.join(0, error, 7, &how);
        assert!(said.starts_with("Also undo-error ("), "{said}");
        assert_eq!(reports.len(), 1);
        assert_eq!(
            reports.recap(),
            "Found 1 divergence:\n  undo-move, undo-error: output line 2, f\n"
        );
        assert!(reports.saved_for(error, false).is_some());
        assert!(reports.saved_for(Kind::Hang, true).is_none(), "no report at the root");
    }
}
