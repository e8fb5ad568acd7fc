//! The window arithmetic of `-w M N` and `-l` (SPEC §5.1): which lines a
//! window `[start, end)` covers in a trace of `k` kept lines. `cli` checks
//! the numbers as given; the window front end and the web API run them.

/// The end of a window: a line number (relative to the end when <= 0) or
/// `_`, past the last line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowEnd {
    Line(i32),
    Unbounded,
}

/// `[start, end)` as given, before it is resolved against the trace length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: i32,
    pub end: WindowEnd,
}

impl Window {
    /// The last line alone, with the state before it (`-l`).
    pub const LAST: Window = Window { start: -1, end: WindowEnd::Line(0) };

    /// The bounds counted against `k` lines (a bound <= 0 from the end, `_`
    /// as `k + 1`), before they are brought into the trace.
    pub fn counted(self, k: usize) -> (i64, i64) {
        let k = i64::try_from(k).unwrap_or(i64::MAX);
        let past_last = k.saturating_add(1);
        let counted =
            |n: i32| if n <= 0 { past_last.saturating_add(i64::from(n)) } else { i64::from(n) };
        let end = match self.end {
            WindowEnd::Unbounded => past_last,
            WindowEnd::Line(n) => counted(n),
        };
        (counted(self.start), end)
    }

    /// The lines to show, `first..end` (1-based), for a trace of `k` kept
    /// lines; `None` when nothing at all is printed.
    pub fn resolve(self, k: usize) -> Option<(usize, usize)> {
        let (start, end) = self.counted(k);
        let k = i64::try_from(k).unwrap_or(i64::MAX);
        let past_last = k.saturating_add(1);
        let first = start.max(1);
        let final_state_only = first == end && first == past_last;
        if k == 0 || (first > k && !final_state_only) {
            return None;
        }
        // Past the last line nothing runs; an end before the start is empty.
        let end = end.clamp(first, past_last);
        Some((usize::try_from(first).ok()?, usize::try_from(end).ok()?))
    }

    /// A window counted from the start (`M` > 0, `N` > 0 or `_`): what each
    /// line shows does not depend on how many lines follow. Its first line
    /// and its end (`None` for `_`); `None` for any other window.
    pub fn counted_from_start(self) -> Option<(usize, Option<usize>)> {
        let first = usize::try_from(self.start).ok().filter(|&m| m > 0)?;
        match self.end {
            WindowEnd::Unbounded => Some((first, None)),
            WindowEnd::Line(end @ 1..) => Some((first, Some(usize::try_from(end).ok()?))),
            WindowEnd::Line(_) => None,
        }
    }

    /// For a window counted from the start, the lines that decide the
    /// output: up to its end (and at least one, to tell an empty trace).
    /// `None`: every line.
    pub fn lines_needed(self) -> Option<usize> {
        match self.counted_from_start()? {
            (_, Some(end)) => Some(end.saturating_sub(1).max(1)),
            (_, None) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(start: i32, end: i32) -> Window {
        Window { start, end: WindowEnd::Line(end) }
    }

    const OPEN: Window = Window { start: 1, end: WindowEnd::Unbounded };

    // How windows resolve against a trace is told by the window traces of
    // acceptance/tictac (24 to 50), byte for byte; the bounds' arithmetic here.
    #[test]
    fn bounds_are_counted_from_the_end_when_not_positive() {
        assert_eq!(w(-2, 0).counted(5), (4, 6));
        assert_eq!(w(2, 40).counted(5), (2, 40));
        assert_eq!(w(-100, -50).counted(5), (-94, -44));
        assert_eq!(OPEN.counted(3), (1, 4));
        assert_eq!(w(i32::MIN, 0).counted(usize::MAX).1, i64::MAX);
        assert_eq!(OPEN.counted(usize::MAX), (1, i64::MAX));
    }

    #[test]
    fn huge_bounds_and_traces_do_not_overflow() {
        assert_eq!(w(i32::MAX, i32::MAX).resolve(5), None);
        assert_eq!(w(i32::MIN, i32::MIN).resolve(5), Some((1, 1)));
        assert_eq!(w(1, i32::MAX).resolve(usize::MAX).map(|(f, _)| f), Some(1));
    }

    #[test]
    fn windows_from_the_start_need_only_their_lines() {
        assert_eq!(w(2, 4).counted_from_start(), Some((2, Some(4))));
        assert_eq!(OPEN.counted_from_start(), Some((1, None)));
        assert_eq!(w(0, 0).counted_from_start(), None);
        assert_eq!(w(2, 0).counted_from_start(), None);
        assert_eq!(Window::LAST.counted_from_start(), None);
        assert_eq!(w(2, 4).lines_needed(), Some(3));
        // `-w 1 1` reads one line: to tell an empty trace.
        assert_eq!(w(1, 1).lines_needed(), Some(1));
        assert_eq!(OPEN.lines_needed(), None);
        assert_eq!(Window::LAST.lines_needed(), None);
    }
}
