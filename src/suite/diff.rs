//! A unified diff of expected against actual output, with line numbers and
//! the invisible made visible: trailing spaces (`·`), tabs (`→`), carriage
//! returns (`␍`), other control bytes (`\xNN`) and a missing final newline.

mod endings;

use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Read};
use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{ChangeTag, TextDiff};

use super::pairs::{self, Line, Row};
use crate::platform::process::Capture;
use crate::run::{Encoding, LOOKED_AT};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// Lines of a diff printed; the rest are counted.
pub(crate) const MAX_LINES: usize = 200;

/// Outputs larger than this, or longer than `MAX_DIFFED_LINES`, are not
/// diffed line by line: the diff's memory grows with the lines (two diffs of
/// 60,000 shuffled lines at once took 39 MiB).
pub(crate) const MAX_DIFFED: u64 = 1 << 20;
pub(crate) const MAX_DIFFED_LINES: usize = 20_000;

/// How long a line-by-line diff may take before the plain report is used.
pub(crate) const TIME_BOUND: Duration = Duration::from_millis(500);

/// Bytes of a line shown when reporting the first difference.
const LINE_SHOWN: usize = 200;

/// The two sides' names in the headers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Labels {
    pub(crate) expected: &'static str,
    pub(crate) actual: &'static str,
}

impl Default for Labels {
    fn default() -> Self {
        Labels { expected: "expected", actual: "actual" }
    }
}

/// Compares two outputs that may be large: None when equal; one line when
/// they differ only in line endings (`endings`); otherwise a
/// line-by-line diff when both are small enough and it comes within the time
/// bound, else the first differing line of each.
pub(crate) fn describe(
    expected: &mut Capture,
    actual: &mut Capture,
    labels: Labels,
) -> io::Result<Option<Diff>> {
    let Some(first) = first_difference(&mut *expected.reader()?, &mut *actual.reader()?)? else {
        return Ok(None);
    };
    let at = |diff: Diff| Some(Diff { from_line: Some(first.line), ..diff });
    let endings =
        endings::only_line_endings(&mut *expected.reader()?, &mut *actual.reader()?, labels)?;
    if let Some(endings) = endings {
        return Ok(at(endings));
    }
    if let Some(encoded) = encoded(expected, actual, labels)? {
        return Ok(at(encoded));
    }
    let small = |bytes: &[u8]| memchr::memchr_iter(b'\n', bytes).count() <= MAX_DIFFED_LINES;
    if let (Some(e), Some(a)) = (expected.bytes_up_to(MAX_DIFFED)?, actual.bytes_up_to(MAX_DIFFED)?)
        && small(&e)
        && small(&a)
        && let Some(diff) = bounded(&e, &a, labels, Instant::now() + TIME_BOUND)
    {
        return Ok(at(diff));
    }
    Ok(at(first.render(labels)))
}

/// An actual output in UTF-16 or UTF-32 where the expected one is not (a
/// Windows wrapper re-encoding what it prints) is said in one line, as
/// line endings are, with the diff of what it holds, decoded (none when it
/// is too large or does not decode): a raw diff shows `\x00` on every line
/// (the tester's C13 b). None for any other output.
fn encoded(
    expected: &mut Capture,
    actual: &mut Capture,
    labels: Labels,
) -> io::Result<Option<Diff>> {
    let start = |c: &mut Capture| -> io::Result<Option<Encoding>> {
        let mut bytes = Vec::new();
        c.reader()?.take(LOOKED_AT as u64).read_to_end(&mut bytes)?;
        Ok(Encoding::of(&bytes))
    };
    let found = match start(actual)? {
        Some(found @ (Encoding::Utf16 { .. } | Encoding::Utf32 { .. })) => found,
        _ => return Ok(None),
    };
    if start(expected)?.is_some() {
        return Ok(None);
    }
    let mut diff = Diff::default();
    let (actual_label, expected_label) = (labels.actual, labels.expected);
    diff.line(format!(
        "the {actual_label} output {found}: print UTF-8, as the {expected_label} output is"
    ));
    let name = match found {
        Encoding::Utf32 { .. } => "UTF-32",
        _ => "UTF-16",
    };
    let decoded = actual.bytes_up_to(MAX_DIFFED)?.and_then(|bytes| decode(&bytes, found));
    let Some(decoded) = decoded else { return Ok(Some(diff)) };
    match describe(expected, &mut Capture::of_bytes(&decoded)?, labels)? {
        None => diff.line(format!("decoded from {name}, it is the {expected_label} output")),
        Some(shown) => {
            diff.line(format!("decoded from {name}, it differs:"));
            diff.append(shown);
        }
    }
    Ok(Some(diff))
}

/// UTF-16 or UTF-32 `bytes` as UTF-8, without their byte order mark; None
/// when they are not that.
fn decode(bytes: &[u8], encoding: Encoding) -> Option<Vec<u8>> {
    let text: String = match encoding {
        Encoding::Utf16 { little_endian, .. } => {
            let units = bytes.chunks(2).map(|pair| match (pair, little_endian) {
                ([a, b], true) => Some(u16::from_le_bytes([*a, *b])),
                ([a, b], false) => Some(u16::from_be_bytes([*a, *b])),
                _ => None,
            });
            let units: Option<Vec<u16>> = units.collect();
            char::decode_utf16(units?).collect::<Result<_, _>>().ok()?
        }
        Encoding::Utf32 { little_endian, .. } => bytes
            .chunks(4)
            .map(|quad| {
                let quad: [u8; 4] = quad.try_into().ok()?;
                let code =
                    if little_endian { u32::from_le_bytes(quad) } else { u32::from_be_bytes(quad) };
                char::from_u32(code)
            })
            .collect::<Option<_>>()?,
        Encoding::Utf8Bom => return None,
    };
    Some(text.strip_prefix('\u{feff}').unwrap_or(&text).as_bytes().to_vec())
}

/// The first line of `partial`'s diff: what follows is not the whole output.
pub(crate) const PARTIAL: &str = "what it printed before it was stopped (not its whole output):";

/// What a program that was stopped (timed out, printed past the cap)
/// printed until then against the expected output, as `describe` compares
/// them, headed by `PARTIAL` so that nobody takes it for its whole output.
pub(crate) fn partial(
    expected: &mut Capture,
    actual: &mut Capture,
    labels: Labels,
) -> io::Result<Diff> {
    let mut diff = Diff::default();
    if actual.is_empty() {
        diff.line("it printed nothing before it was stopped".into());
        return Ok(diff);
    }
    diff.line(PARTIAL.into());
    match describe(expected, actual, labels)? {
        Some(shown) => {
            diff.from_line = shown.from_line;
            diff.append(shown)
        }
        None => diff.line("it had printed the whole expected output, and did not end".into()),
    }
    Ok(diff)
}

/// How the expected output (`old`) changed into `new`: lines removed and
/// added, or, when the outputs are too large to diff line by line within
/// the bounds `describe` keeps, the line of the first difference. None when
/// they are equal.
pub(crate) fn change_count(old: &mut Capture, new: &mut Capture) -> io::Result<Option<Change>> {
    let Some(first) = first_difference(&mut *old.reader()?, &mut *new.reader()?)? else {
        return Ok(None);
    };
    let small = |bytes: &[u8]| memchr::memchr_iter(b'\n', bytes).count() <= MAX_DIFFED_LINES;
    if let (Some(o), Some(n)) = (old.bytes_up_to(MAX_DIFFED)?, new.bytes_up_to(MAX_DIFFED)?)
        && small(&o)
        && small(&n)
    {
        let deadline = Instant::now() + TIME_BOUND;
        let diff = diff_lines(&o, &n, Some(deadline));
        if Instant::now() < deadline {
            let count = |tag| diff.iter_all_changes().filter(|c| c.tag() == tag).count();
            return Ok(Some(Change::Lines {
                removed: count(ChangeTag::Delete),
                added: count(ChangeTag::Insert),
            }));
        }
    }
    Ok(Some(Change::From(first.line)))
}

/// What `change_count` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Change {
    Lines {
        removed: usize,
        added: usize,
    },
    /// Too large to count: the outputs differ from this line on.
    From(u64),
}

/// A rendered diff: its plain text and, for a terminal, the characters that
/// changed within each changed row paired with the row it replaces.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Diff {
    pub(crate) text: String,
    /// (line of `text`, byte ranges of that line that changed).
    pub(crate) marks: Vec<(usize, Vec<Range<usize>>)>,
    /// The line (from 1) where the outputs first differ; None when they do
    /// not (the exit status does).
    pub(crate) from_line: Option<u64>,
}

impl Diff {
    /// The same output, another exit status than `-- status:` gives
    /// (`got` as the run ended: `3`, `139 (killed by signal 11)`).
    pub(crate) fn status(wanted: i32, got: &str) -> Diff {
        let mut diff = Diff::default();
        diff.line(format!("the output is right, the exit status is not: expected {wanted} (`-- status: {wanted}`), got {got}"));
        diff
    }

    /// The same output, then a crash (`why`): no pass.
    pub(crate) fn crashed(why: &str) -> Diff {
        let mut diff = Diff::default();
        diff.line(format!(
            "the output is right, but then the program {why}: a crash fails the test"
        ));
        diff
    }

    fn headed(labels: Labels) -> Diff {
        let mut diff = Diff::default();
        diff.line(format!("--- {}", labels.expected));
        diff.line(format!("+++ {}", labels.actual));
        diff
    }

    /// `more` after this, its marks moved down with it.
    fn append(&mut self, more: Diff) {
        let below = self.lines();
        self.marks.extend(more.marks.into_iter().map(|(line, ranges)| (line + below, ranges)));
        self.text.push_str(&more.text);
    }

    fn lines(&self) -> usize {
        memchr::memchr_iter(b'\n', self.text.as_bytes()).count()
    }

    fn line(&mut self, line: String) {
        self.text.push_str(&line);
        self.text.push('\n');
    }

    /// A line whose characters in `ranges` (of the line) changed.
    fn marked(&mut self, line: String, ranges: Vec<Range<usize>>) {
        if !ranges.is_empty() {
            self.marks.push((self.lines(), ranges));
        }
        self.line(line);
    }

    /// The text with its marks in colour (see `paint`).
    pub(crate) fn painted(&self) -> String {
        let mut marks = self.marks.iter().peekable();
        let mut painted = String::with_capacity(self.text.len() * 2);
        for (k, line) in self.text.lines().enumerate() {
            let ranges = marks.next_if(|(at, _)| *at == k).map_or(&[][..], |(_, r)| r);
            painted.push_str(&pairs::paint(line, ranges));
            painted.push('\n');
        }
        painted
    }
}

/// The diff (see `Diff::painted` for colours), at most `MAX_LINES`.
#[cfg(test)]
pub(crate) fn unified(expected: &[u8], actual: &[u8]) -> Diff {
    render(&diff_lines(expected, actual, None), Labels::default(), None)
}

/// The diff, or None if it was not found and rendered by `deadline`.
fn bounded(expected: &[u8], actual: &[u8], labels: Labels, deadline: Instant) -> Option<Diff> {
    let diff = diff_lines(expected, actual, Some(deadline));
    let rendered = render(&diff, labels, Some(deadline));
    (Instant::now() < deadline).then_some(rendered)
}

/// A line diff where only `\n` ends a line (as SPEC): similar's own line
/// split also breaks at a lone `\r`, which would shift the line numbers.
pub(crate) fn diff_lines<'o, 'n>(
    old: &'o [u8],
    new: &'n [u8],
    deadline: Option<Instant>,
) -> TextDiff<'o, 'n, [u8]> {
    let mut config = TextDiff::configure();
    if let Some(deadline) = deadline {
        config.deadline(deadline);
    }
    config.diff_slices(&lines_of(old), &lines_of(new))
}

/// The lines of `bytes`, each with its `\n`; a last one may lack it.
pub(crate) fn lines_of(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

fn render(diff: &TextDiff<'_, '_, [u8]>, labels: Labels, deadline: Option<Instant>) -> Diff {
    let mut out = Diff::headed(labels);
    let mut shown = 0;
    let mut more = 0;
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        if shown >= MAX_LINES {
            more += group.iter().flat_map(|op| diff.iter_changes(op)).filter(is_change).count();
            continue;
        }
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        out.line(format!(
            "@@ -{},{} +{},{} @@",
            old.start + 1,
            old.len(),
            new.start + 1,
            new.len()
        ));
        shown += 1;
        // Only what can be shown is arranged (and held); the rest is counted.
        let budget = MAX_LINES - shown;
        let mut changes = group.iter().flat_map(|op| diff.iter_changes(op));
        let lines = changes.by_ref().take(2 * budget + 1).map(Line::of).collect();
        more += changes.filter(is_change).count();
        {
            for row in pairs::rows(lines, visible, deadline, budget) {
                let (changes, marks) = match row {
                    Row::One(change) => ([Some(change), None], (Vec::new(), Vec::new())),
                    Row::Pair(old, new) => {
                        let compared =
                            pairs::compare(&visible(old.value), &visible(new.value), deadline);
                        ([Some(old), Some(new)], compared.unwrap_or_default())
                    }
                };
                for (change, marks) in changes.into_iter().flatten().zip([marks.0, marks.1]) {
                    if shown >= MAX_LINES {
                        more += usize::from(change.tag != ChangeTag::Equal);
                        continue;
                    }
                    change_line(&mut out, &change, marks);
                    shown += 1;
                }
            }
        }
    }
    if more > 0 {
        let lines = if more == 1 { "line differs" } else { "lines differ" };
        out.line(format!("... and {more} more {lines}"));
    }
    out
}

/// One line of a diff: sign, both line numbers, the text, its marks moved
/// past the prefix.
fn change_line(out: &mut Diff, line: &Line, marks: Vec<Range<usize>>) {
    let sign = match line.tag {
        ChangeTag::Equal => ' ',
        ChangeTag::Delete => '-',
        ChangeTag::Insert => '+',
    };
    let number = |n: Option<usize>| n.map_or(String::new(), |n| (n + 1).to_string());
    let prefix = format!("{sign}{:>5} {:>5} | ", number(line.old), number(line.new));
    let at = prefix.len();
    let marks = marks.into_iter().map(|r| r.start + at..r.end + at).collect();
    out.marked(prefix + &visible(line.value), marks);
    if !line.value.ends_with(b"\n") {
        out.line("\\ no newline at end".into());
    }
}

fn is_change(change: &similar::Change<&[u8]>) -> bool {
    change.tag() != ChangeTag::Equal
}

/// Where two outputs first differ: the line number and the start of that
/// line on each side (None where that side has ended).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FirstDifference {
    pub(crate) line: u64,
    pub(crate) expected: Option<Shown>,
    pub(crate) actual: Option<Shown>,
}

/// The start of a line, up to `LINE_SHOWN` bytes, and how many more bytes
/// it had.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Shown {
    pub(crate) start: Vec<u8>,
    pub(crate) more: u64,
}

impl FirstDifference {
    fn render(&self, labels: Labels) -> Diff {
        let mut out = Diff::headed(labels);
        out.line(format!("outputs differ from line {}", self.line));
        // The shown lines are at most `LINE_SHOWN` bytes: quick to compare.
        let shown =
            |side: &Option<Shown>| side.as_ref().map(|s| cut_line(&s.start, LINE_SHOWN, s.more));
        let (e, a) = (shown(&self.expected), shown(&self.actual));
        let marks = match (&e, &a) {
            (Some(e), Some(a)) => pairs::compare(e, a, None).unwrap_or_default(),
            _ => Default::default(),
        };
        for ((sign, side, label), marks) in
            [('-', e, labels.expected), ('+', a, labels.actual)].into_iter().zip([marks.0, marks.1])
        {
            match side {
                Some(line) => {
                    let prefix = format!("{sign}{:>5} | ", self.line);
                    let at = prefix.len();
                    let marks = marks.into_iter().map(|r| r.start + at..r.end + at).collect();
                    out.marked(prefix + &line, marks);
                }
                None => out.line(format!("{sign}      | (the {label} output ends here)")),
            }
        }
        out
    }
}

/// Streams both outputs in constant memory to their first difference.
pub(crate) fn first_difference(
    expected: &mut dyn Read,
    actual: &mut dyn Read,
) -> io::Result<Option<FirstDifference>> {
    let mut e = BufReader::with_capacity(64 * 1024, expected);
    let mut a = BufReader::with_capacity(64 * 1024, actual);
    let mut line = 1u64;
    // The start of the current line, which both sides share so far.
    let mut start: Vec<u8> = Vec::new();
    loop {
        let (eb, ab) = (e.fill_buf()?, a.fill_buf()?);
        if eb.is_empty() && ab.is_empty() {
            return Ok(None);
        }
        let n = eb.len().min(ab.len());
        let same = eb[..n].iter().zip(&ab[..n]).take_while(|(x, y)| x == y).count();
        let equal = &eb[..same];
        match memchr::memrchr(b'\n', equal) {
            Some(k) => {
                line += memchr::memchr_iter(b'\n', equal).count() as u64;
                start.clear();
                keep(&mut start, &equal[k + 1..]);
            }
            None => keep(&mut start, equal),
        }
        let differs = same < n || n == 0;
        e.consume(same);
        a.consume(same);
        if differs {
            let expected = rest_of_line(&mut e, &start)?;
            let actual = rest_of_line(&mut a, &start)?;
            return Ok(Some(FirstDifference { line, expected, actual }));
        }
    }
}

fn keep(start: &mut Vec<u8>, bytes: &[u8]) {
    let room = LINE_SHOWN.saturating_sub(start.len());
    start.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

/// The line from `start` on, up to `LINE_SHOWN` bytes, and the count of
/// the bytes past them to its end (read, not kept); None at the end.
fn rest_of_line(r: &mut impl BufRead, start: &[u8]) -> io::Result<Option<Shown>> {
    let mut line = start.to_vec();
    let mut more = 0u64;
    let mut read_any = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        read_any = true;
        let end = memchr::memchr(b'\n', buf).unwrap_or(buf.len());
        let take = end.min(LINE_SHOWN.saturating_sub(line.len()));
        line.extend_from_slice(&buf[..take]);
        more += (end - take) as u64;
        let ended = end < buf.len();
        r.consume(end);
        if ended {
            break;
        }
    }
    Ok((read_any || !start.is_empty()).then_some(Shown { start: line, more }))
}

/// A line shown up to `max` bytes, cut at a character's start, saying how
/// many more bytes it had (`more` of them past `line` besides): a diff's
/// line and a line of standard error alike.
pub(crate) fn cut_line(line: &[u8], max: usize, more: u64) -> String {
    if line.len() <= max && more == 0 {
        return visible(line);
    }
    let cut = match line.len() <= max {
        true => line.len(),
        false => (0..=max).rev().find(|&k| line[k] & 0b1100_0000 != 0b1000_0000).unwrap_or(0),
    };
    let more = (line.len() - cut) as u64 + more;
    format!("{} ... ({more} more bytes on this line)", visible(&line[..cut]))
}

/// One line, without its newline, with invisible characters shown: tabs,
/// carriage returns, trailing spaces, control bytes and bytes that are not
/// UTF-8 (`\xNN`), and characters with no width or that look like another
/// (a byte order mark `\u{feff}`, a zero-width space `\u{200b}`, a
/// no-break space `\u{a0}`, a combining accent `\u{301}`), escaped as Rust
/// writes them.
pub(crate) fn visible(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let trailing = line.iter().rev().take_while(|&&b| b == b' ').count();
    let body = &line[..line.len() - trailing];
    let mut shown = String::with_capacity(line.len() + 8);
    for chunk in body.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\t' => shown.push('→'),
                '\r' => shown.push('␍'),
                c if c.is_control() => {
                    let _ = write!(shown, "\\x{:02x}", u32::from(c));
                }
                '"' | '\'' | '\\' => shown.push(c),
                c => shown.extend(c.escape_debug()),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(shown, "\\x{byte:02x}");
        }
    }
    shown.extend(std::iter::repeat_n('·', trailing));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture of bytes in memory.
    fn captured(bytes: Vec<u8>) -> Capture {
        Capture::of_bytes(&bytes).expect("a spool in memory")
    }

    #[test]
    fn invisible_differences_are_shown() {
        assert_eq!(visible(b"  ok:  x \t\r\n"), "  ok:  x →␍");
        assert_eq!(visible(b"a  \n"), "a··");
        // Characters with no width, or that look like a space or merge
        // with the letter before, escaped; letters of any alphabet and
        // quotes as they are.
        let odd = "\u{feff}ok \u{200b}Zo\u{a0}e\u{301} \"李\" \\ 🎲\n";
        assert_eq!(visible(odd.as_bytes()), "\\u{feff}ok \\u{200b}Zo\\u{a0}e\\u{301} \"李\" \\ 🎲");
        assert_eq!(visible(b"\x00b"), "\\x00b");
        assert_eq!(visible(b"\xc9mile \t "), "\\xc9mile →·");
    }

    #[test]
    fn a_diff_has_numbers_and_marks_a_missing_newline() {
        let d = unified(b"a\nb\nc\n", b"a\nB \nc").text;
        assert!(d.starts_with("--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n"), "{d}");
        assert!(d.contains("\n-    2       | b\n"), "{d}");
        assert!(d.contains("\n+          2 | B·\n"), "{d}");
        assert!(d.contains("\n+          3 | c\n\\ no newline at end\n"), "{d}");
        assert!(d.contains("\n     1     1 | a\n"), "{d}");
    }

    #[test]
    fn only_a_newline_ends_a_line() {
        assert_eq!(lines_of(b"a\rb\nc\r\nd"), [&b"a\rb\n"[..], b"c\r\n", b"d"]);
        assert!(lines_of(b"").is_empty());
        let d = unified(b"x\r\ny\nz\n", b"x\ry\nz\nw\n").text;
        assert!(d.contains("\n@@ -1,3 +1,3 @@\n-    1       | x␍\n+          1 | x␍y\n"), "{d}");
        assert!(d.contains("\n-    2       | y\n     3     2 | z\n+          3 | w\n"), "{d}");
        assert!(!d.contains("no newline"), "{d}");
    }

    #[test]
    fn long_diffs_stop_at_the_line_limit_and_count_the_rest() {
        let expected: String = (0..1000).map(|k| format!("{k}\n")).collect();
        let actual: String = (0..1000).map(|k| format!("{}\n", k * 7)).collect();
        let d = unified(expected.as_bytes(), actual.as_bytes()).text;
        assert_eq!(d.lines().count(), 2 + MAX_LINES + 1, "{d}");
        assert!(d.ends_with(" more lines differ\n"), "{d}");
        let shown = d.lines().filter(|l| l.starts_with(['-', '+'])).count() - 2;
        let more: usize = d
            .lines()
            .last()
            .and_then(|l| l.split(' ').nth(2))
            .and_then(|n| n.parse().ok())
            .expect("a count");
        assert_eq!(shown + more, 1000 + 1000 - 143 * 2, "{d}");
        let one_more: String = (0..MAX_LINES).map(|k| format!("{k}\n")).collect();
        let d = unified(b"", one_more.as_bytes()).text;
        assert!(d.ends_with("\n... and 1 more line differs\n"), "{d}");
    }

    #[test]
    fn the_first_difference_is_found_by_streaming() {
        let first = |a: &[u8], b: &[u8]| first_difference(&mut &a[..], &mut &b[..]).expect("read");
        assert_eq!(first(b"a\nb\n", b"a\nb\n"), None);
        let d = first(b"a\nbxc\nd\n", b"a\nbyc\n").expect("differs");
        let shown = |s: &[u8], more| Some(Shown { start: s.to_vec(), more });
        assert_eq!(
            d,
            FirstDifference { line: 2, expected: shown(b"bxc", 0), actual: shown(b"byc", 0) }
        );
        let d = first(b"a\n", b"a\nmore\n").expect("differs");
        assert_eq!((d.line, d.expected, d.actual), (2, None, shown(b"more", 0)));
        let long = vec![b'x'; 10 * LINE_SHOWN];
        let d = first(&long, b"xxy").expect("differs");
        let e = d.expected.expect("a line");
        assert_eq!((e.start.len(), e.more), (LINE_SHOWN, 9 * LINE_SHOWN as u64));
        // A cut line says how many more bytes it had (the tester's C13 c).
        let mut longer = b"1\n".to_vec();
        longer.extend(vec![b'a'; 3000]);
        longer.extend_from_slice(b"\n3\n");
        let d = first(b"1\n2\n3\n", &longer).expect("differs");
        let text = d.render(Labels::default()).text;
        let cut = format!("+    2 | {} ... (2800 more bytes on this line)\n", "a".repeat(200));
        assert!(text.ends_with(&cut), "{text}");
        let text = first(b"1\n2\n", b"1\n3\n").expect("differs").render(Labels::default()).text;
        assert_eq!(
            text,
            "--- expected\n+++ actual\noutputs differ from line 2\n-    2 | 2\n+    2 | 3\n"
        );
    }

    #[test]
    fn a_diff_past_its_deadline_is_not_used() {
        let past = Instant::now() - Duration::from_millis(1);
        assert_eq!(bounded(b"a\n", b"b\n", Labels::default(), past), None);
        let mut e = captured(b"1\n2\n".to_vec());
        let mut a = captured(b"1\n3\n".to_vec());
        let d = describe(&mut e, &mut a, Labels { expected: "oracle", actual: "program" })
            .expect("read");
        assert!(d.expect("differs").text.starts_with("--- oracle\n+++ program\n@@ -1,2 +1,2 @@\n"));
        let mut same = captured(b"1\n".to_vec());
        assert_eq!(
            describe(&mut same, &mut captured(b"1\n".to_vec()), Labels::default()).expect("read"),
            None
        );
    }

    #[test]
    fn a_stopped_program_s_output_is_shown_as_a_part() {
        let partial = |expected: &[u8], actual: &[u8]| {
            let (mut e, mut a) = (captured(expected.to_vec()), captured(actual.to_vec()));
            partial(&mut e, &mut a, Labels::default()).expect("read")
        };
        let d = partial(b"1\nabc\n3\n", b"1\nabd\n");
        assert!(d.text.starts_with(&format!("{PARTIAL}\n--- expected\n+++ actual\n@@")), "{d:?}");
        assert!(d.text.contains("\n-    3       | 3\n"), "{}", d.text);
        // The marks follow their lines down past the heading.
        let (line, _) = &d.marks[0];
        assert!(d.text.lines().nth(*line).expect("marked").starts_with("-    2"), "{d:?}");
        let d = partial(b"1\n", b"");
        assert_eq!(d.text, "it printed nothing before it was stopped\n");
        let d = partial(b"1\n", b"1\n");
        assert!(d.text.ends_with("\nit had printed the whole expected output, and did not end\n"));
    }

    #[test]
    fn a_changed_row_follows_the_row_it_replaces_with_its_changes_marked() {
        let d = unified(b"a\n  X__\n  ___\nz\n", b"a\n  XO_\n  _X_\nz\n");
        let rows: Vec<&str> = d.text.lines().skip(3).collect();
        assert_eq!(
            rows,
            [
                "     1     1 | a",
                "-    2       |   X__",
                "+          2 |   XO_",
                "-    3       |   ___",
                "+          3 |   _X_",
                "     4     4 | z"
            ],
            "{}",
            d.text
        );
        let at = "-    2       | ".len();
        let marked = |k: usize| format!("{:?}", d.marks[k]);
        assert_eq!(marked(0), format!("(4, [{}..{}])", at + 3, at + 4));
        assert_eq!(marked(1), format!("(5, [{}..{}])", at + 3, at + 4));
        let painted = d.painted();
        assert_eq!(painted.lines().count(), d.text.lines().count());
        assert!(painted.contains("\x1b[7m"), "{painted:?}");
        let first = first_difference(&mut &b"1\nabc\n"[..], &mut &b"1\nabd\n"[..]).expect("read");
        let d = first.expect("differs").render(Labels::default());
        assert_eq!(d.marks.len(), 2, "{d:?}");
    }
}
