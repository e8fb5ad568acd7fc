//! A trace's first lines, its header: the comments that say how to run
//! it (`-- run:`, line 1), what status to end with (`-- status:`, line 1 or
//! after the run line) and what it is worth (`-- points:`, among the first
//! comments), and those that mean to say so but are not read (misspelled,
//! misplaced, after a byte order mark), which fail rather than be ignored.

/// The line that says how a trace runs.
pub(crate) const DIRECTIVE: &str = "-- run:";
/// The line that gives the exit status to end with.
pub(super) const STATUS: &str = "-- status:";

/// The most a test may be worth: sums of any class's points stay exact.
pub(crate) const MAX_POINTS: u64 = 1_000_000;

/// The comment that gives a test's points.
const POINTS: &str = "-- points:";

/// `-- status: N` on `line`: `None` when the line is no status directive,
/// else N, or why it is not a valid one.
pub(super) fn status_of(line: &[u8]) -> Option<Result<i32, String>> {
    let line = String::from_utf8_lossy(line);
    let line = line.trim();
    if !speaks_of(line, "status") {
        return None;
    }
    let valid = line.strip_prefix(STATUS).and_then(|n| n.trim().parse::<i32>().ok());
    Some(valid.filter(|n| (0..=255).contains(n)).ok_or_else(|| {
        format!("`{line}` is not a valid directive: write `{STATUS} N`, N from 0 to 255")
    }))
}

/// The points a trace's first comment lines (blank lines among them) give,
/// or why a line that speaks of points does not say it as `-- points: N`,
/// N a whole number from 0 to `MAX_POINTS`: a value mistyped (`2.5`, `-3`,
/// `--points: 4`, `-- Points: 5`) silently worth 1 would be a wrong grade.
pub(crate) fn points_of(trace: &[u8]) -> Result<u64, String> {
    let text = String::from_utf8_lossy(trace);
    let mut found = None;
    for (k, line) in header(&text) {
        let line = line.trim();
        if !says_points(line) {
            continue;
        }
        let number = line
            .strip_prefix(POINTS)
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let valid = number.and_then(|n| n.parse::<u64>().ok()).filter(|n| *n <= MAX_POINTS);
        let Some(points) = valid else {
            return Err(format!(
                "line {}, `{line}`, is not a valid directive: write `{POINTS} N`, N a whole number from 0 to {MAX_POINTS}",
                k + 1
            ));
        };
        if found.is_some() {
            return Err(format!("line {}, `{line}`: the trace gives its points twice", k + 1));
        }
        found = Some(points);
    }
    Ok(found.unwrap_or(1))
}

/// The trace's first lines while they are comments or blank, numbered from
/// 0, a byte order mark before the first taken off.
fn header(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().enumerate().take_while(|(_, line)| {
        let line = line.trim_start();
        line.is_empty() || line.starts_with("--")
    })
}

/// Whether a comment line means to give points: `point` or `points`, any
/// case, after dashes, then `:`, `=` (or a full-width colon), or a lone
/// number (`-- points 5`). `-- points to note`, `-- points-based scoring`,
/// `-- points.` are comments.
pub(super) fn says_points(line: &str) -> bool {
    let Some(after) = line.strip_prefix("--") else { return false };
    let after = after.trim_start_matches('-').trim_start().to_ascii_lowercase();
    let Some(rest) = after.strip_prefix("points").or_else(|| after.strip_prefix("point")) else {
        return false;
    };
    let rest = rest.trim_start();
    let lone_number = !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_digit() || "+-.".contains(c))
        && rest.chars().any(|c| c.is_ascii_digit());
    rest.starts_with([':', '=', '\u{ff1a}']) || lone_number
}

/// Whether a line means to be a `-- run:` line (well formed or not).
pub(super) fn says_run(line: &str) -> bool {
    speaks_of(line, "run")
}

/// Whether a line is `--`, then `word` as a word of its own (`-- run:`,
/// `-- run -b IN`; not `-- running notes`).
fn speaks_of(line: &str, word: &str) -> bool {
    let after = line.trim().strip_prefix("--").map(str::trim_start);
    after
        .and_then(|rest| rest.strip_prefix(word))
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// Whether a comment line is `--` (or more dashes), `word` (any case), then
/// a colon.
fn names_directive(line: &str, word: &str) -> bool {
    let Some(after) = line.strip_prefix("--") else { return false };
    let after = after.trim_start_matches('-').trim_start();
    after.get(..word.len()).is_some_and(|w| w.eq_ignore_ascii_case(word))
        && after[word.len()..].trim_start().starts_with(':')
}

/// A `-- run:` or `-- status:` line where it is not read as one (after a
/// points or other comment line, or after a byte order mark): the trace
/// would run otherwise than it says (as `-b IN`; its exit status unchecked).
pub(super) fn misplaced_directive(trace: &[u8], shell: bool) -> Result<(), String> {
    let text = String::from_utf8_lossy(trace);
    let bom = text.starts_with('\u{feff}');
    let mut first_runs = false;
    for (k, line) in header(&text) {
        let line = line.trim();
        // On the lines a directive may stand, whatever reads as one is one
        // (`-- run time`, `-- status of` are refused there, as before);
        // past them only a word then a colon (`-- Status: 3`), so that
        // `-- status of this test` stays a comment.
        let exact = |form: &str| !bom && line.starts_with(form);
        let status_line = status_of(line.as_bytes()).is_some();
        // What follows a shell session's directives is typed in, comments too.
        if shell && k > 0 && !(k == 1 && status_line) {
            break;
        }
        let where_status_is_read = k == 0 || (k == 1 && first_runs);
        let run = (k == 0 && says_run(line)) || names_directive(line, "run");
        let status = (where_status_is_read && status_line) || names_directive(line, "status");
        let read = match run {
            true => k == 0 && exact(DIRECTIVE),
            false => where_status_is_read && exact(STATUS),
        };
        first_runs |= k == 0 && exact(DIRECTIVE);
        if (run || status) && !read {
            let place = match run {
                true => format!("a directive is read as `{DIRECTIVE} ARGS` on the first line only"),
                false => format!(
                    "a status is read as `{STATUS} N` on the first line, or the second after `{DIRECTIVE}`"
                ),
            };
            let bom = match bom {
                true => {
                    ", and this file begins with a byte order mark: save it as UTF-8 without one"
                }
                false => "",
            };
            return Err(format!(
                "line {}, `{line}`, is not read as a directive: {place}{bom}",
                k + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_said_wrongly_are_refused_not_worth_one() {
        for bad in [
            "-- points: 2.5",
            "-- points: -3",
            "-- points: +3",
            "-- points: 1000001",
            "-- points: 18446744073709551616",
            "--points: 4",
            "--  points: 6",
            "-- points 5",
            "-- points:",
            "-- points: 3 -- three points",
            "-- Points: 5",
            "-- POINTS: 5",
            "-- points = 5",
            "-- points\u{ff1a}5",
            "-- point: 5",
            "--- points: 5",
            "-- points: see the rubric",
        ] {
            let e = points_of(format!("{bad}\nundo\n").as_bytes()).expect_err(bad);
            assert!(e.starts_with(&format!("line 1, `{bad}`, is not a valid directive")), "{e}");
        }
        let e = points_of(b"-- points: 2\n-- points: 3\n").expect_err("twice");
        assert_eq!(e, "line 2, `-- points: 3`: the trace gives its points twice");
        assert_eq!(points_of(b"-- points: 1000000\n"), Ok(MAX_POINTS));
        assert_eq!(points_of(b"undo\n-- points: x\n"), Ok(1), "past the first comments");
        for comment in [
            "-- points-based scoring",
            "-- points 1-3 of the spec: rows",
            "-- points.",
            "-- points",
            "-- pointless",
        ] {
            assert_eq!(points_of(format!("{comment}\nundo\n").as_bytes()), Ok(1), "{comment}");
        }
    }
}
