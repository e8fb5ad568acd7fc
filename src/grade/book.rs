//! The gradebook: what each student's run left, test by test, and its
//! forms: `grades.csv`, `grades.json`, `tests.csv` and the table printed at
//! the end.

use std::io::{self, Write};

use unicode_width::UnicodeWidthStr;

use crate::suite::build::BuildFailed;
use crate::suite::plan::Visibility;
use crate::suite::points::Points;
use crate::suite::{Reporter, TestEvent, Trouble, Verdict, escape_controls};

/// One test of the suite, as graded.
pub(crate) struct Column {
    pub(crate) name: String,
    /// `-- points: N` in the trace, else 1.
    pub(crate) points: Points,
    /// `-- visibility: V` in the trace, else visible: what the student's
    /// report and JUnit file may show of its expected output.
    pub(crate) visibility: Visibility,
}

/// What all the tests are worth together.
pub(crate) fn max_points(columns: &[Column]) -> Points {
    columns.iter().map(|c| c.points).sum()
}

/// What the suite is worth, for grade's closing line: its points and how
/// many of its tests keep their expected output from the students
/// (`6.75 points, 1 hidden`; `46 points` when none does).
pub(crate) fn worth(columns: &[Column]) -> String {
    let points = max_points(columns);
    let unit = if points.to_string() == "1" { "point" } else { "points" };
    let hidden = columns.iter().filter(|c| c.visibility != Visibility::Visible).count();
    match hidden {
        0 => format!("{points} {unit}"),
        n => format!("{points} {unit}, {n} hidden"),
    }
}

/// One student's results, in the suite's order.
#[derive(Default)]
pub(crate) struct Row {
    pub(crate) student: String,
    /// Per test: `None` passed, else what went wrong.
    pub(crate) failures: Vec<Option<Failed>>,
    /// Why the build failed, when it did (then no test ran).
    pub(crate) build: Option<BuildFailed>,
    /// What the student's programs left in the shared folders (`/tmp`),
    /// removed: the table's note (`filled /tmp (7.5 MiB left there, removed)`).
    pub(crate) left: Option<String>,
}

/// The kinds of failure the table's notes count (a kind, its words): every
/// one but a plain difference in output.
const NOTED: [(&str, &str); 9] = [
    ("exit status differs", "exit status differs"),
    ("exited", "exited non-zero"),
    ("crashed", "crashed"),
    ("killed by a signal", "killed by a signal"),
    ("timed out", "timed out"),
    ("printed too much", "printed too much"),
    ("could not start", "could not start"),
    ("could not run", "could not run"),
    ("ran tictac", "ran tictac itself"),
];

/// How a test failed: its kind (`exited`, `output differs`, ...) and the
/// headline every report format uses (`exited with status 3`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failed {
    pub(crate) kind: &'static str,
    pub(crate) headline: String,
}

/// Every kind of failure, as `grades.json` names them (`Failed::of`).
const KINDS: [&str; 12] = [
    "build failed",
    "output differs",
    "exit status differs",
    "exited",
    "crashed",
    "killed by a signal",
    "timed out",
    "printed too much",
    "could not start",
    "no expected output",
    "could not run",
    "ran tictac",
];

impl Failed {
    /// A failure as `grades.json` holds it; None for a kind it never holds.
    pub(crate) fn read(kind: &str, headline: &str) -> Option<Failed> {
        let kind = KINDS.into_iter().find(|k| *k == kind)?;
        Some(Failed { kind, headline: headline.into() })
    }

    fn of(verdict: &Verdict) -> Option<Failed> {
        let kind = match verdict {
            Verdict::Pass | Verdict::Skipped(_) => return None,
            Verdict::Differs(_) => "output differs",
            Verdict::StatusDiffers(_) => "exit status differs",
            Verdict::Broke(Trouble::Exited(_), _) => "exited",
            Verdict::Broke(Trouble::Exception(_), _) => "crashed",
            Verdict::Broke(Trouble::Signal(_), _) => "killed by a signal",
            // It never ended by the deadline either.
            Verdict::Broke(Trouble::TimedOut(_) | Trouble::Frozen(_), _) => "timed out",
            Verdict::Broke(Trouble::TooMuch(_), _) => "printed too much",
            Verdict::Broke(Trouble::CouldNotStart(_), _) => "could not start",
            Verdict::NoExpected(_) => "no expected output",
            Verdict::CannotRun(_) => "could not run",
            Verdict::NotBuilt => "build failed",
            Verdict::OutOfTime(_) => "could not run",
        };
        Some(Failed { kind, headline: verdict.headline().unwrap_or_default() })
    }
}

/// The tests to show as "first failing" in the table.
const FIRST_FAILING: usize = 3;

/// The first `FIRST_FAILING` test names, and how many more: `a, b, c (+2
/// more)`, as the table and the notes under it name tests.
pub(crate) fn first_names(names: &[&str]) -> String {
    let (first, more) = names.split_at_checked(FIRST_FAILING).unwrap_or((names, &[]));
    match more.len() {
        0 => first.join(", "),
        more => format!("{} (+{more} more)", first.join(", ")),
    }
}

impl Row {
    pub(crate) fn new(student: &str) -> Row {
        Row { student: student.into(), ..Row::default() }
    }

    pub(crate) fn passed(&self) -> usize {
        self.failures.iter().filter(|f| f.is_none()).count()
    }

    pub(crate) fn points(&self, columns: &[Column]) -> Points {
        self.earned(columns).sum()
    }

    /// Per test, the points earned: all of its points if passed, else none.
    fn earned<'a>(&'a self, columns: &'a [Column]) -> impl Iterator<Item = Points> + 'a {
        let earned = |(f, c): (&Option<Failed>, &Column)| match f {
            None => c.points,
            Some(_) => Points::ZERO,
        };
        self.failures.iter().zip(columns).map(earned)
    }

    /// Why no test of theirs ran, when that is not their program's doing
    /// (their folder cannot be copied for the programs' user): the
    /// headline every test failed with.
    pub(crate) fn not_graded(&self) -> Option<&str> {
        let first = self.failures.first()?.as_ref()?;
        let every = self.failures.iter().all(|f| f.as_ref() == Some(first));
        (every
            && first.kind == "could not run"
            && crate::suite::plan::is_not_copied(&first.headline))
        .then_some(first.headline.as_str())
    }

    /// Crashes, hangs and programs that never started, counted; a failed
    /// build, with its first error line (or the last line it printed).
    fn notes(&self) -> String {
        if let Some(build) = &self.build {
            // The compiler's error line where there is one (its last lines
            // are often the source quoted and a caret), else the last line.
            let lines = || build.output.iter().map(|l| l.trim()).filter(|l| !l.is_empty());
            let said = lines()
                .find(|l| l.to_ascii_lowercase().contains("error"))
                .or_else(|| lines().next_back());
            let last = said.map(|l| format!(": {l}")).unwrap_or_default();
            return escape_controls(&format!("build failed ({}){last}", build.headline));
        }
        // Every test not run for one reason (a folder too large to copy):
        // that reason, which the student acts on.
        let mut failed = self.failures.iter().flatten();
        if let Some(first) = failed.next()
            && first.kind == "could not run"
            && self.failures.iter().all(|f| f.as_ref().is_some_and(|f| f == first))
        {
            let n = self.failures.len();
            let tests = if n == 1 { "test" } else { "tests" };
            let left = self.left.iter().map(|left| format!(", {left}")).collect::<String>();
            let note = format!("could not run ({n} {tests}): {}{left}", first.headline);
            return escape_controls(&note);
        }
        let count = |kind| self.failures.iter().flatten().filter(|f| f.kind == kind).count();
        let notes: Vec<String> = NOTED
            .iter()
            .map(|&(kind, what)| (what, count(kind)))
            .filter(|&(_, n)| n > 0)
            .map(|(what, n)| format!("{what} ({n} {})", if n == 1 { "test" } else { "tests" }))
            .chain(self.left.clone())
            .collect();
        escape_controls(&notes.join(", "))
    }
}

/// Records each result of a student's run into its row, and passes every
/// event on to the reports written for that student.
pub(crate) struct Recorder<'a> {
    pub(crate) row: Row,
    pub(crate) reports: Box<dyn Reporter + 'a>,
}

impl Reporter for Recorder<'_> {
    fn report(&mut self, event: &TestEvent) -> io::Result<()> {
        if let TestEvent::Finished { result, .. } = event {
            // A program refused an answer by the tictac it ran is told apart
            // from one that crashed on its own.
            let failed = Failed::of(&result.verdict).map(|failed| match result.ran_tictac() {
                true => Failed { kind: "ran tictac", ..failed },
                false => failed,
            });
            self.row.failures.push(failed);
        }
        self.reports.report(event)
    }
}

/// `grades.csv`: `student,passed,total,points,max_points`, then a column
/// per test holding the points earned on it. A student not graded (no test
/// of theirs could run, not for their program's doing) has empty cells
/// where a grade would be, which a spreadsheet or a gradebook's import
/// reads as no grade, not 0; `grades.json` says why.
/// grades.csv's first columns, before one per test: no test may be named
/// as one of them (`tests_named_as_columns`).
pub(crate) const CSV_HEAD: [&str; 5] = ["student", "passed", "total", "points", "max_points"];

/// The tests named as one of grades.csv's first columns (`points.txt`),
/// in any case: a spreadsheet or script reading the header by name would
/// take one column for the other.
pub(crate) fn tests_named_as_columns(columns: &[Column]) -> Vec<&str> {
    let taken = |name: &str| CSV_HEAD.iter().any(|head| head.eq_ignore_ascii_case(name));
    columns.iter().map(|c| c.name.as_str()).filter(|name| taken(name)).collect()
}

pub(crate) fn write_csv(out: &mut dyn Write, columns: &[Column], rows: &[Row]) -> io::Result<()> {
    let mut header: Vec<String> = CSV_HEAD.map(String::from).into();
    header.extend(columns.iter().map(|c| csv_field(&c.name)));
    writeln!(out, "{}", header.join(","))?;
    let most = max_points(columns).to_string();
    for row in rows {
        let graded = row.not_graded().is_none();
        let grade = |text: String| if graded { text } else { String::new() };
        let mut fields = vec![
            csv_field(&row.student),
            grade(row.passed().to_string()),
            columns.len().to_string(),
            grade(row.points(columns).to_string()),
            most.clone(),
        ];
        fields.extend(row.earned(columns).map(|p| grade(p.to_string())));
        writeln!(out, "{}", fields.join(","))?;
    }
    Ok(())
}

/// `grades.json`: what `grades.csv` says, with each failure's kind and
/// headline, and the suite's digest (`suite`), which a regrade checks. A
/// student not graded has `passed` and `points` null, for them and for each
/// test, and `not_graded`, why.
pub(crate) fn json(suite: &str, ran: &Ran, columns: &[Column], rows: &[Row]) -> serde_json::Value {
    let tests: Vec<_> = columns
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name, "points": c.points.json(), "visibility": c.visibility.name()
            })
        })
        .collect();
    let most = max_points(columns).json();
    let students: Vec<_> = rows
        .iter()
        .map(|row| {
            let not_graded = row.not_graded();
            let grade = |value: serde_json::Value| match not_graded {
                None => value,
                Some(_) => serde_json::Value::Null,
            };
            let results: Vec<_> = row
                .failures
                .iter()
                .zip(columns)
                .zip(row.earned(columns))
                .map(|((failed, c), earned)| match failed {
                    None => serde_json::json!({
                        "test": c.name, "passed": true, "points": earned.json()
                    }),
                    Some(f) => serde_json::json!({
                        "test": c.name, "passed": grade(false.into()), "points": grade(earned.json()),
                        "kind": f.kind, "failure": f.headline
                    }),
                })
                .collect();
            let mut student = serde_json::json!({
                "student": row.student,
                "passed": grade(row.passed().into()),
                "total": columns.len(),
                "points": grade(row.points(columns).json()),
                "max_points": most,
                "tests": results,
            });
            if let Some(why) = not_graded {
                student["not_graded"] = why.into();
            }
            if let Some(build) = &row.build {
                student["build"] = serde_json::json!({
                    "failure": build.headline, "command": build.command, "output": build.output
                });
            }
            if let Some(left) = &row.left {
                student["left"] = left.as_str().into();
            }
            student
        })
        .collect();
    let mut book = serde_json::json!({
        "suite": suite, "tests": tests, "max_points": most, "students": students
    });
    if let (Some(book), Ok(serde_json::Value::Object(ran))) =
        (book.as_object_mut(), serde_json::to_value(ran))
    {
        book.extend(ran);
    }
    book
}

/// What ran the students' programs, as grades.json keeps it (`command`,
/// `build`: their words, `build` null without `--build`; the limits in
/// seconds, `build_timeout` null without `--build`; the user they ran as):
/// a regrade runs them alike.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Ran {
    pub(crate) command: Vec<String>,
    pub(crate) build: Option<Vec<String>>,
    pub(crate) timeout: f64,
    pub(crate) build_timeout: Option<f64>,
    pub(crate) user: Option<String>,
}

/// `tests.csv`: per test, how many students pass it, hardest first (then
/// in the suite's order).
pub(crate) fn write_tests_csv(
    out: &mut dyn Write,
    columns: &[Column],
    rows: &[Row],
) -> io::Result<()> {
    // A student not graded passed and failed nothing.
    let graded: Vec<&Row> = rows.iter().filter(|r| r.not_graded().is_none()).collect();
    let passing = |k: usize| graded.iter().filter(|r| r.failures.get(k) == Some(&None)).count();
    let mut order: Vec<usize> = (0..columns.len()).collect();
    order.sort_by_key(|&k| passing(k));
    writeln!(out, "test,points,passed,students")?;
    for k in order {
        let c = &columns[k];
        writeln!(out, "{},{},{},{}", csv_field(&c.name), c.points, passing(k), graded.len())?;
    }
    Ok(())
}

/// A field as RFC 4180 writes it: quoted when it holds a comma, a quote or
/// a line break, its quotes doubled. One a spreadsheet would take for a
/// formula (a student folder `=HYPERLINK(...)`, `+1+2`, `@SUM(1)`: starting
/// with `=`, `+`, `-`, `@`, a tab or a carriage return) starts with `'`, which
/// makes it text, as OWASP advises against CSV injection; `grades.json`
/// keeps the true name.
fn csv_field(text: &str) -> String {
    let text = match text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        true => format!("'{text}"),
        false => text.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The table for people: student, passed/total, points, the first failing
/// tests, notes. A name's control characters are shown as `\xNN` (a folder
/// name may hold a newline, or escapes that would drive the terminal); the
/// columns are aligned by the terminal's width of each cell (a CJK
/// character takes two). The CSV and JSON keep the true name.
pub(crate) fn write_table(out: &mut dyn Write, columns: &[Column], rows: &[Row]) -> io::Result<()> {
    let most = max_points(columns);
    let lines: Vec<[String; 5]> = rows
        .iter()
        .map(|row| {
            let failing: Vec<&str> = row
                .failures
                .iter()
                .zip(columns)
                .filter(|(f, _)| f.is_some())
                .map(|(_, c)| c.name.as_str())
                .collect();
            // A student not graded failed nothing: the notes say why.
            let (passed, points, first) = match row.not_graded() {
                None => (
                    row.passed().to_string(),
                    format!("{}/{most}", row.points(columns)),
                    first_names(&failing),
                ),
                Some(_) => ("-".into(), "not graded".into(), String::new()),
            };
            [
                escape_controls(&row.student),
                format!("{passed}/{}", columns.len()),
                points,
                first,
                row.notes(),
            ]
        })
        .collect();
    let head = ["student", "passed", "points", "first failing", "notes"].map(String::from);
    let mut widths = head.clone().map(|h| h.width());
    for line in &lines {
        for (width, cell) in widths.iter_mut().zip(line) {
            *width = (*width).max(cell.width());
        }
    }
    for line in std::iter::once(&head).chain(&lines) {
        let pad = |(cell, width): (&String, usize)| {
            format!("{cell}{}", " ".repeat(width.saturating_sub(cell.width())))
        };
        let cells: Vec<String> = line.iter().zip(widths).map(pad).collect();
        writeln!(out, "{}", cells.join("  ").trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ran() -> Ran {
        let command = vec!["./ttt".into()];
        Ran { command, build: None, timeout: 10.0, build_timeout: None, user: None }
    }

    fn columns() -> Vec<Column> {
        let column = |name: &str, points: &str| Column {
            name: name.into(),
            points: Points::parse(points).expect(points),
            visibility: Visibility::Visible,
        };
        vec![column("a", "1"), column("b,c", "3")]
    }

    fn row(student: &str, failures: &[Option<&str>]) -> Row {
        let failed = |headline: &str| Failed { kind: "exited", headline: headline.into() };
        Row { failures: failures.iter().map(|f| f.map(failed)).collect(), ..Row::new(student) }
    }

    #[test]
    fn the_json_has_each_failure_s_kind_and_tests_csv_the_hardest_first() {
        let rows = [row("ann", &[None, Some("exited with status 1")]), row("bo", &[None, None])];
        let json = json("sha256:0", &ran(), &columns(), &rows);
        assert_eq!(json["max_points"], 4);
        assert_eq!(json["command"], serde_json::json!(["./ttt"]));
        assert_eq!((&json["timeout"], &json["user"]), (&10.0.into(), &serde_json::Value::Null));
        assert_eq!(worth(&columns()), "4 points");
        assert_eq!(json["suite"], "sha256:0");
        for kind in KINDS {
            assert_eq!(Failed::read(kind, "x"), Some(Failed { kind, headline: "x".into() }));
        }
        assert_eq!(Failed::read("exploded", "x"), None);
        assert_eq!(json["students"][0]["points"], 1);
        let failed = &json["students"][0]["tests"][1];
        assert_eq!(failed["kind"], "exited");
        assert_eq!(failed["failure"], "exited with status 1");
        assert_eq!(json["students"][1]["tests"][1]["passed"], true);
        let mut out = Vec::new();
        write_tests_csv(&mut out, &columns(), &rows).expect("csv");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(text, "test,points,passed,students\n\"b,c\",3,1,2\na,1,2,2\n");
    }

    #[test]
    fn the_csv_has_a_column_per_test_and_quotes_what_needs_it() {
        let rows =
            [row("ann", &[None, None]), row("dan \"d\" smith", &[Some("output differs"), None])];
        let mut out = Vec::new();
        write_csv(&mut out, &columns(), &rows).expect("csv");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "student,passed,total,points,max_points,a,\"b,c\"\nann,2,2,4,4,1,3\n\"dan \"\"d\"\" smith\",1,2,3,4,0,3\n"
        );
        assert_eq!(csv_field("x\"y,"), "\"x\"\"y,\"");
    }

    #[test]
    fn a_csv_cell_a_spreadsheet_would_take_for_a_formula_is_made_text() {
        assert_eq!(csv_field("+1+2"), "'+1+2");
        assert_eq!(csv_field("@SUM(1)"), "'@SUM(1)");
        assert_eq!(csv_field("-2"), "'-2");
        assert_eq!(csv_field("=HYPERLINK(\"http:"), "\"'=HYPERLINK(\"\"http:\"");
        assert_eq!(csv_field("\tx"), "'\tx");
        assert_eq!(csv_field("ann=1"), "ann=1");
    }

    #[test]
    fn the_table_shows_names_escaped_and_aligns_wide_characters() {
        let evil = row("s08\x1b]2;PWNED\x07\x1b[41mEVIL", &[None, None]);
        let rows = [evil, row("two\nlines", &[None, None]), row("李小龙", &[Some("x"), None])];
        let mut out = Vec::new();
        write_table(&mut out, &columns(), &rows).expect("table");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "student                          passed  points  first failing  notes\n\
             s08\\x1b]2;PWNED\\x07\\x1b[41mEVIL  2/2     4/4\n\
             two\\x0alines                     2/2     4/4\n\
             李小龙                           1/2     3/4     a              exited non-zero (1 test)\n"
        );
    }

    #[test]
    fn the_table_shows_points_first_failures_and_notes() {
        let bob = row("bob", &[Some("exited with status 1"), Some("exited with status 1")]);
        let mut out = Vec::new();
        write_table(&mut out, &columns(), &[row("ann", &[None, None]), bob]).expect("table");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "student  passed  points  first failing  notes\n\
             ann      2/2     4/4\n\
             bob      0/2     0/4     a, b,c         exited non-zero (2 tests)\n"
        );
    }

    /// A student none of whose tests could run, not for their program's
    /// doing (the tester's A11): no grade anywhere, not a 0.
    #[test]
    fn a_student_not_graded_has_no_grade_in_any_form_of_the_gradebook() {
        let why = "not run: /c/bob cannot be copied for nobody to run the program in (too large)";
        let failed = Failed { kind: "could not run", headline: why.into() };
        let bob = Row { failures: vec![Some(failed.clone()), Some(failed)], ..Row::new("bob") };
        let rows = [row("ann", &[None, Some("exited with status 1")]), bob];
        let mut out = Vec::new();
        write_csv(&mut out, &columns(), &rows).expect("csv");
        let csv = String::from_utf8(out).expect("utf-8");
        assert_eq!(csv.lines().nth(2), Some("bob,,2,,4,,"), "{csv}");
        let json = json("sha256:0", &ran(), &columns(), &rows);
        let bob = &json["students"][1];
        assert_eq!(
            (&bob["passed"], &bob["points"]),
            (&serde_json::Value::Null, &serde_json::Value::Null)
        );
        assert_eq!(bob["not_graded"], why);
        assert_eq!(bob["tests"][0]["points"], serde_json::Value::Null);
        assert_eq!(bob["tests"][0]["failure"], why);
        assert_eq!(json["students"][0]["points"], 1);
        let mut out = Vec::new();
        write_tests_csv(&mut out, &columns(), &rows).expect("csv");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(text, "test,points,passed,students\n\"b,c\",3,0,1\na,1,1,1\n");
        let mut out = Vec::new();
        write_table(&mut out, &columns(), &rows).expect("table");
        let table = String::from_utf8(out).expect("utf-8");
        assert!(
            table.contains(
                "\nbob      -/2     not graded                 could not run (2 tests): not run: "
            ),
            "{table}"
        );
    }

    #[test]
    fn a_flood_is_noted_beside_an_exit() {
        let mut cy = row("cy", &[Some("exited with status 1"), None]);
        let flood = "printed more than 1048576 bytes and was stopped";
        cy.failures[1] = Some(Failed { kind: "printed too much", headline: flood.into() });
        assert_eq!(cy.notes(), "exited non-zero (1 test), printed too much (1 test)");
    }

    #[test]
    fn an_exit_is_no_crash() {
        let kind = |trouble| Failed::of(&Verdict::Broke(trouble, None)).expect("failed").kind;
        assert_eq!(kind(Trouble::Exited(1)), "exited");
        assert_eq!(kind(Trouble::Signal(11)), "killed by a signal");
        assert_eq!(kind(Trouble::Exception(0xC000_0005_u32 as i32)), "crashed");
    }

    #[test]
    fn a_wrong_exit_status_has_its_own_kind_and_note() {
        let status = Verdict::StatusDiffers(crate::suite::Diff::default());
        let failed = Failed::of(&status).expect("failed");
        assert_eq!(
            (failed.kind, failed.headline.as_str()),
            ("exit status differs", "exit status differs")
        );
        assert_eq!(Failed::read("exit status differs", "x").map(|f| f.kind), Some(failed.kind));
        let mut dee = row("dee", &[None, None]);
        dee.failures[0] = Some(failed);
        assert_eq!(dee.notes(), "exit status differs (1 test)");
    }
}
