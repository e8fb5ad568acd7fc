//! A trace's first lines, its header: the comments that say how to run
//! it (`-- run:`, line 1), what status to end with (`-- status:`, line 1 or
//! after the run line), what it is worth (`-- points:`, among the first
//! comments) and who sees its expected output (`-- visibility:`, there
//! too), and those that mean to say so but are not read (misspelled,
//! misplaced, after a byte order mark), which fail rather than be ignored.

/// The line that says how a trace runs.
pub(crate) const DIRECTIVE: &str = "-- run:";
/// The line that gives the exit status to end with.
pub(super) const STATUS: &str = "-- status:";

use super::points::{MAX_WHOLE, Points};

/// The comment that gives a test's points.
const POINTS: &str = "-- points:";

/// The comment that says who may see a test's expected output.
const VISIBILITY: &str = "-- visibility:";

/// Who may see a test's expected output, in Gradescope's words: a test
/// that is not `visible` shows a student its verdict, the line where the
/// output first differs and the program's standard error, never the
/// expected text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Visibility {
    Hidden,
    AfterDueDate,
    AfterPublished,
    #[default]
    Visible,
}

impl Visibility {
    const ALL: [Visibility; 4] = [
        Visibility::Hidden,
        Visibility::AfterDueDate,
        Visibility::AfterPublished,
        Visibility::Visible,
    ];

    /// Gradescope's name for it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
            Visibility::Visible => "visible",
        }
    }
}

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
/// N from 0 to `MAX_WHOLE` with at most two decimals: a value mistyped
/// (`2.555`, `-3`, `--points: 4`, `-- Points: 5`) silently worth 1 would be
/// a wrong grade.
pub(crate) fn points_of(trace: &[u8]) -> Result<Points, String> {
    let read = |value: &str| Points::parse(value);
    let said = said_once(trace, says_points, POINTS, read, || {
        format!(
            "`{POINTS} N`, N a number from 0 to {MAX_WHOLE} with at most two decimals (2.5, 0.25)"
        )
    })?;
    Ok(said.unwrap_or(Points::ONE))
}

/// Who may see the trace's expected output: `-- visibility: V` on one of
/// its first comment lines, V one of Gradescope's `hidden`,
/// `after_due_date`, `after_published`, `visible` (the default), or why a
/// line that speaks of visibility does not say so (a hidden test mistyped
/// would show its answers).
pub(crate) fn visibility_of(trace: &[u8]) -> Result<Visibility, String> {
    let read = |value: &str| Visibility::ALL.into_iter().find(|v| v.name() == value);
    let said = said_once(trace, says_visibility, VISIBILITY, read, || {
        let names: Vec<&str> = Visibility::ALL.iter().map(|v| v.name()).collect();
        format!("`{VISIBILITY} V`, V one of {}", names.join(", "))
    })?;
    Ok(said.unwrap_or_default())
}

/// The value of the one line among the trace's first comments that `says`
/// speaks of `form` (`-- points:`), read by `read`; why not when such a
/// line is not `form VALUE` with a value `read` takes (`what` says how to
/// write it), or when there are two.
fn said_once<T>(
    trace: &[u8],
    says: fn(&str) -> bool,
    form: &str,
    read: impl Fn(&str) -> Option<T>,
    what: impl Fn() -> String,
) -> Result<Option<T>, String> {
    let text = String::from_utf8_lossy(trace);
    let mut found = None;
    for (k, line) in header(&text) {
        let line = line.trim();
        if !says(line) {
            continue;
        }
        let value = line.strip_prefix(form).map(str::trim).and_then(&read);
        let Some(value) = value else {
            return Err(format!(
                "line {}, `{line}`, is not a valid directive: write {}",
                k + 1,
                what()
            ));
        };
        if found.is_some() {
            let word = form.trim_start_matches("-- ").trim_end_matches(':');
            return Err(format!("line {}, `{line}`: the trace gives its {word} twice", k + 1));
        }
        found = Some(value);
    }
    Ok(found)
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
    let Some(rest) = after_word(line, &["points", "point"]) else { return false };
    let lone_number = !rest.is_empty()
        && rest.chars().all(|c| c.is_ascii_digit() || "+-.".contains(c))
        && rest.chars().any(|c| c.is_ascii_digit());
    rest.starts_with([':', '=', '\u{ff1a}']) || lone_number
}

/// Whether a comment line means to say a test's visibility: `visibility`
/// (any case) after dashes, then `:`, `=` (or a full-width colon), or one
/// of the names alone (`-- visibility hidden`). `-- visibility of the
/// board` is a comment.
pub(super) fn says_visibility(line: &str) -> bool {
    let Some(rest) = after_word(line, &["visibility"]) else { return false };
    let named = Visibility::ALL.iter().any(|v| rest.eq_ignore_ascii_case(v.name()));
    rest.starts_with([':', '=', '\u{ff1a}']) || named
}

/// What follows one of `words` (any case) after a comment's dashes,
/// trimmed at its start; None when the line is no such comment.
fn after_word(line: &str, words: &[&str]) -> Option<String> {
    let after = line.strip_prefix("--")?;
    let after = after.trim_start_matches('-').trim_start().to_ascii_lowercase();
    let rest = words.iter().find_map(|w| after.strip_prefix(w))?;
    Some(rest.trim_start().to_string())
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

/// The directives' words, read on a trace's first comment lines only.
const WORDS: [&str; 4] = ["run", "status", "points", "visibility"];

/// A directive's line where it is never read, or a comment in the header
/// that means to be one and is not: a `-- run:`, `-- status:`, `--
/// points:` or `-- visibility:` line (any case) past the header (after the
/// trace's first command), or, in the header, `-- WORD:` with WORD one of
/// Gradescope's (`hidden`, `visible`, `weight`, `score`, `max_score`) or a
/// near miss of a directive's (`visibilty`). Read as comments, each would
/// grade otherwise than the trace says: worth 1 point, visible, a hidden
/// test's answers shown to the student.
pub(super) fn stray_directive(trace: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(trace);
    let in_header = header(&text).count();
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    for (k, line) in text.lines().enumerate() {
        let Some(word) = colon_word(line) else { continue };
        let line = line.trim();
        let ours = WORDS.contains(&word.as_str());
        if ours && k >= in_header {
            return Err(format!(
                "line {}, `{line}`, is not read as a directive: directives stand on the \
                 trace's first comment lines, before its first command; move it there",
                k + 1
            ));
        }
        if let Some(meant) = meant(&word).filter(|_| !ours && k < in_header) {
            return Err(format!(
                "line {}, `{line}`, is no directive tictac reads: write `{meant}` (a \
                 comment there must not look like one)",
                k + 1
            ));
        }
    }
    Ok(())
}

/// The word of a `-- WORD:` comment (dashes, the word, then a colon),
/// in lower case.
fn colon_word(line: &str) -> Option<String> {
    let after = line.trim().strip_prefix("--")?.trim_start_matches('-').trim_start();
    let end = after.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(after.len());
    let (word, rest) = after.split_at(end);
    (!word.is_empty() && rest.trim_start().starts_with(':')).then(|| word.to_lowercase())
}

/// The directive a comment's word most likely means: Gradescope's words
/// for visibility and points, or a directive's word misspelled: one
/// letter changed or added, or two swapped (`pionts`, `stauts`; `state`
/// and `stats` are comments), two edits of `visibility` (`visibilty`).
fn meant(word: &str) -> Option<&'static str> {
    match word {
        "hidden" | "visible" | "after_due_date" | "after_published" => {
            return Some("-- visibility: V");
        }
        "weight" | "score" | "max_score" | "point" => return Some("-- points: N"),
        _ => {}
    }
    if word.chars().count() < 5 {
        return None;
    }
    let forms = [
        ("status", 1, "-- status: N"),
        ("points", 1, "-- points: N"),
        ("visibility", 2, "-- visibility: V"),
    ];
    let near = |w: &str, most: usize| {
        edits(word, w) <= most && (most == 2 || word.chars().count() >= w.len())
    };
    forms.into_iter().find(|&(w, most, _)| near(w, most)).map(|(_, _, form)| form)
}

/// How many letters inserted, deleted, changed or swapped with the next
/// make `a` into `b`.
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    d[0] = (0..=b.len()).collect();
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let change = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j - 1] + change).min(d[i - 1][j] + 1).min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directive_past_the_header_or_a_near_miss_in_it_is_refused() {
        let refused = |text: &str| stray_directive(text.as_bytes()).expect_err(text);
        for late in ["-- points: 5", "-- visibility: hidden", "-- Status: 0", "-- RUN: -b IN"] {
            let e = refused(&format!("-- a test\nundo\n{late}\nundo\n"));
            assert!(e.starts_with(&format!("line 3, `{late}`, is not read as a directive")), "{e}");
        }
        for (miss, form) in [
            ("-- visibilty: hidden", "-- visibility: V"),
            ("-- hidden: true", "-- visibility: V"),
            ("-- weight: 3", "-- points: N"),
            ("-- score: 3", "-- points: N"),
            ("-- max_score: 3", "-- points: N"),
            ("-- pionts: 3", "-- points: N"),
            ("-- stauts: 0", "-- status: N"),
        ] {
            let e = refused(&format!("-- a test\n{miss}\nundo\n"));
            assert!(
                e.starts_with(&format!(
                    "line 2, `{miss}`, is no directive tictac reads: write `{form}`"
                )),
                "{e}"
            );
        }
        for fine in [
            "-- points: 2\n-- visibility: hidden\nundo\n",
            "-- note: rows first\n-- SPEC 5: a file error\nundo\n-- score: X wins\n",
            "-- state: X to play\n-- stats: none\n-- pointer: here\nundo\n",
            "undo\n-- the points: none\n-- run of three\n",
        ] {
            assert_eq!(stray_directive(fine.as_bytes()), Ok(()), "{fine}");
        }
    }

    #[test]
    fn points_said_wrongly_are_refused_not_worth_one() {
        for bad in [
            "-- points: 2.555",
            "-- points: .5",
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
        assert_eq!(points_of(b"-- points: 1000000\n"), Ok(Points::parse("1000000").expect("most")));
        assert_eq!(points_of(b"-- points: 2.5\n"), Ok(Points::parse("2.5").expect("2.5")));
        assert_eq!(points_of(b"undo\n-- points: x\n"), Ok(Points::ONE), "past the first comments");
        for comment in [
            "-- points-based scoring",
            "-- points 1-3 of the spec: rows",
            "-- points.",
            "-- points",
            "-- pointless",
        ] {
            assert_eq!(
                points_of(format!("{comment}\nundo\n").as_bytes()),
                Ok(Points::ONE),
                "{comment}"
            );
        }
    }

    #[test]
    fn a_visibility_is_one_of_gradescope_s_and_said_wrongly_is_refused() {
        let of = |text: &str| visibility_of(text.as_bytes());
        assert_eq!(of("undo\n"), Ok(Visibility::Visible));
        assert_eq!(of("-- points: 2\n-- visibility: hidden\nundo\n"), Ok(Visibility::Hidden));
        assert_eq!(of("-- visibility: after_due_date\n"), Ok(Visibility::AfterDueDate));
        assert_eq!(of("-- visibility:  after_published \n"), Ok(Visibility::AfterPublished));
        assert_eq!(of("undo\n-- visibility: hidden\n"), Ok(Visibility::Visible), "past the header");
        for bad in [
            "-- visibility: secret",
            "-- visibility: Hidden",
            "-- visibility:",
            "--visibility: hidden",
            "-- Visibility: hidden",
            "-- visibility = hidden",
            "-- visibility hidden",
        ] {
            let e = of(&format!("{bad}\nundo\n")).expect_err(bad);
            assert!(e.starts_with(&format!("line 1, `{bad}`, is not a valid directive: write `-- visibility: V`, V one of hidden, after_due_date, after_published, visible")), "{e}");
        }
        let e = of("-- visibility: hidden\n-- visibility: visible\n").expect_err("twice");
        assert_eq!(e, "line 2, `-- visibility: visible`: the trace gives its visibility twice");
        assert_eq!(of("-- visibility of the board matters\nundo\n"), Ok(Visibility::Visible));
    }
}
