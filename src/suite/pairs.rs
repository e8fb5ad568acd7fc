//! Changed rows paired with the rows they replace, and the characters that
//! changed within a pair, for the diffs of `tictac test`.
//!
//! similar reports a replaced block as all its removed lines, then all its
//! added ones. Here each removed line is followed by the added line that
//! corresponds to it: line by line when the block keeps its length, else
//! where the two lines are mostly alike (at least half their characters
//! shared), the rest standing alone in order.

use std::ops::Range;
use std::time::Instant;

use crossterm::style::Stylize;
use similar::{Change, ChangeTag, TextDiff};

/// Byte ranges of a line that changed.
pub(crate) type Marks = Vec<Range<usize>>;

/// Lines are alike when at least this share of their characters match.
const ALIKE: f32 = 0.5;

/// One line of a diff: kept, removed or added, with its line numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line<'a> {
    pub(crate) tag: ChangeTag,
    pub(crate) old: Option<usize>,
    pub(crate) new: Option<usize>,
    pub(crate) value: &'a [u8],
}

impl<'a> Line<'a> {
    pub(crate) fn of(change: Change<&'a [u8]>) -> Line<'a> {
        Line {
            tag: change.tag(),
            old: change.old_index(),
            new: change.new_index(),
            value: change.value(),
        }
    }
}

/// One line of a diff, or a removed line and the added line replacing it.
pub(crate) enum Row<'a> {
    One(Line<'a>),
    Pair(Line<'a>, Line<'a>),
}

/// The lines of a hunk as rows: kept lines alone, and each block of changed
/// lines with its removed lines paired with the added lines they correspond
/// to. `shown` renders a line as the diff shows it. Past the first
/// `budget` lines (the diff shows no more) lines are left as they are:
/// pairing costs a character diff per candidate.
pub(crate) fn rows<'a>(
    mut lines: Vec<Line<'a>>,
    shown: impl Fn(&[u8]) -> String,
    deadline: Option<Instant>,
    budget: usize,
) -> Vec<Row<'a>> {
    slide(&mut lines);
    let mut rows = Vec::with_capacity(lines.len());
    let mut used = 0;
    for block in lines.chunk_by(|a, b| (a.tag == ChangeTag::Equal) == (b.tag == ChangeTag::Equal)) {
        if block[0].tag == ChangeTag::Equal || used >= budget {
            rows.extend(block.iter().copied().map(Row::One));
        } else {
            rows.extend(arrange(block, &shown, deadline));
        }
        used += block.len();
    }
    rows
}

/// Among diffs of the same size, prefers the one where removed and added
/// lines meet: `-a -b  c +c +c` (kept lines matched early, as happens with
/// the board's repeated `___` rows) becomes `-a -b +c +c  c`, and the same
/// with the added lines first. The kept lines must read the same at their
/// new place.
fn slide(lines: &mut [Line]) {
    let mut k = 0;
    while k < lines.len() {
        let run = |from: usize, tag: ChangeTag| {
            lines[from.min(lines.len())..].iter().take_while(|l| l.tag == tag).count()
        };
        let first = lines[k].tag;
        let other = match first {
            ChangeTag::Delete => ChangeTag::Insert,
            ChangeTag::Insert => ChangeTag::Delete,
            ChangeTag::Equal => {
                k += 1;
                continue;
            }
        };
        let a = run(k, first);
        let e = run(k + a, ChangeTag::Equal);
        let b = run(k + a + e, other);
        if e == 0 || b == 0 {
            k += a + e;
            continue;
        }
        // The kept lines followed by the changed ones after them, on the
        // side those are on; the kept lines may move to the end of it.
        let span = lines[k + a..k + a + e + b].to_vec();
        let same = |x: &Line, y: &Line| x.value == y.value;
        if span[b..].iter().zip(&span).all(|(x, y)| same(x, y)) {
            let kept: Vec<Line> = span[..e].to_vec();
            let moved: Vec<Line> = span[e..].to_vec();
            let at = |l: &Line| if other == ChangeTag::Insert { l.new } else { l.old };
            let start = at(&kept[0]).unwrap_or_default();
            for (j, l) in moved.iter().enumerate() {
                let mut changed = *l;
                changed.value = span[j].value;
                match other {
                    ChangeTag::Insert => changed.new = Some(start + j),
                    _ => changed.old = Some(start + j),
                }
                lines[k + a + j] = changed;
            }
            for (j, l) in kept.iter().enumerate() {
                let mut kept = *l;
                match other {
                    ChangeTag::Insert => kept.new = Some(start + b + j),
                    _ => kept.old = Some(start + b + j),
                }
                lines[k + a + b + j] = kept;
            }
        }
        k += a + e;
    }
}

/// A block of changed lines as rows, pairs where lines correspond: line by
/// line when as many were removed as added, else where they are alike.
fn arrange<'a>(
    block: &[Line<'a>],
    shown: impl Fn(&[u8]) -> String,
    deadline: Option<Instant>,
) -> Vec<Row<'a>> {
    let of = |tag| -> Vec<Line<'a>> { block.iter().filter(|l| l.tag == tag).copied().collect() };
    let (removed, added) = (of(ChangeTag::Delete), of(ChangeTag::Insert));
    if removed.is_empty() || added.is_empty() {
        return block.iter().copied().map(Row::One).collect();
    }
    let same_length = removed.len() == added.len();
    let mut rows = Vec::with_capacity(block.len());
    let (mut i, mut j) = (0, 0);
    while i < removed.len() && j < added.len() {
        let alike =
            || compare(&shown(removed[i].value), &shown(added[j].value), deadline).is_some();
        if same_length || alike() {
            rows.push(Row::Pair(removed[i], added[j]));
            (i, j) = (i + 1, j + 1);
        } else if removed.len() - i >= added.len() - j {
            rows.push(Row::One(removed[i]));
            i += 1;
        } else {
            rows.push(Row::One(added[j]));
            j += 1;
        }
    }
    rows.extend(removed[i..].iter().chain(&added[j..]).copied().map(Row::One));
    rows
}

/// The byte ranges of `old` and of `new` that differ, when the two are
/// alike; None when they are not (marking nearly everything says nothing)
/// or the character diff ran past `deadline`.
pub(crate) fn compare(old: &str, new: &str, deadline: Option<Instant>) -> Option<(Marks, Marks)> {
    let mut config = TextDiff::configure();
    if let Some(deadline) = deadline {
        config.deadline(deadline);
    }
    let diff = config.diff_chars(old, new);
    if deadline.is_some_and(|d| Instant::now() >= d) || diff.ratio() < ALIKE {
        return None;
    }
    let (mut marks_old, mut marks_new) = (Vec::new(), Vec::new());
    let (mut at_old, mut at_new) = (0, 0);
    for change in diff.iter_all_changes() {
        let len = change.value().len();
        match change.tag() {
            ChangeTag::Equal => (at_old, at_new) = (at_old + len, at_new + len),
            ChangeTag::Delete => {
                extend(&mut marks_old, at_old..at_old + len);
                at_old += len;
            }
            ChangeTag::Insert => {
                extend(&mut marks_new, at_new..at_new + len);
                at_new += len;
            }
        }
    }
    Some((marks_old, marks_new))
}

/// Adds `range`, joined to the last one when they touch.
fn extend(ranges: &mut Vec<Range<usize>>, range: Range<usize>) {
    match ranges.last_mut() {
        Some(last) if last.end == range.start => last.end = range.end,
        _ => ranges.push(range),
    }
}

/// A diff line in its colour (removed red, added green, hunks cyan), the
/// changed characters (byte ranges of `line`) in reverse video.
pub(crate) fn paint(line: &str, marks: &[Range<usize>]) -> String {
    let colour = |text: &str, marked: bool| {
        let styled = match line.as_bytes().first() {
            Some(b'-') => text.red(),
            Some(b'+') => text.green(),
            Some(b'@') => text.cyan(),
            _ => return text.to_string(),
        };
        if marked { styled.negative().to_string() } else { styled.to_string() }
    };
    let mut painted = String::with_capacity(line.len() + 16);
    let mut at = 0;
    for mark in marks {
        let (Some(before), Some(marked)) = (line.get(at..mark.start), line.get(mark.clone()))
        else {
            break;
        };
        painted.push_str(&colour(before, false));
        painted.push_str(&colour(marked, true));
        at = mark.end;
    }
    painted.push_str(&colour(line.get(at..).unwrap_or_default(), false));
    painted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_characters_are_found_in_alike_lines_only() {
        let (old, new) = compare("  X__", "  _O_", None).expect("alike");
        assert_eq!(format!("{old:?} {new:?}"), "[2..3] [3..4]");
        assert_eq!(compare("abcdef", "uvwxyz", None), None);
        let (old, new) = compare("é: x", "é: yy", None).expect("alike");
        assert_eq!(format!("{old:?} {new:?}"), "[4..5] [4..6]");
    }

    fn shape(old: &[u8], new: &[u8]) -> Vec<String> {
        let diff = TextDiff::from_lines(old, new);
        let lines = diff.iter_all_changes().map(Line::of).collect();
        let text = |l: &Line| String::from_utf8_lossy(l.value).trim().to_string();
        let number = |n: Option<usize>| n.map_or("_".into(), |n| n.to_string());
        let one = |l: &Line| format!("{}{}{}{}", l.tag, number(l.old), number(l.new), text(l));
        rows(lines, |l| String::from_utf8_lossy(l).into(), None, usize::MAX)
            .iter()
            .map(|row| match row {
                Row::One(l) => one(l),
                Row::Pair(a, b) => format!("{}|{}", one(a), one(b)),
            })
            .collect()
    }

    #[test]
    fn removed_lines_are_paired_with_the_added_lines_they_resemble() {
        let rows = shape(b"keep\nred apple\ngone entirely\n", b"keep\nred apples\n");
        assert_eq!(rows, [" 00keep", "-1_red apple|+_1red apples", "-2_gone entirely"]);
    }

    #[test]
    fn kept_lines_slide_so_changed_rows_meet() {
        let rows = shape(b"a\nX\nO\n_\nz\n", b"a\n_\n_\n_\nz\n");
        assert_eq!(rows, [" 00a", "-1_X|+_1_", "-2_O|+_2_", " 33_", " 44z"]);
        let rows = shape(b"a\n_\n_\n_\nz\n", b"a\nX\nO\n_\nz\n");
        assert_eq!(rows, [" 00a", "-1__|+_1X", "-2__|+_2O", " 33_", " 44z"]);
        // Nothing moves where the kept line would read differently.
        let rows = shape(b"a\nX\nk\nz\n", b"a\nk\nY\nz\n");
        assert_eq!(rows, [" 00a", "-1_X", " 21k", "+_2Y", " 33z"]);
    }

    #[test]
    fn marks_paint_in_reverse_video() {
        let painted = paint("-    1 | aXbY", &[10..11, 12..13]);
        assert!(painted.contains("\x1b[7m"), "{painted:?}");
        assert!(painted.contains("X"));
        assert_eq!(paint(" a", &[]), " a");
        assert_ne!(paint("-a", &[]), paint("+a", &[]));
    }
}
