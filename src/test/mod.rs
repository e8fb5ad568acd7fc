//! `tictac test`: runs a suite of acceptance traces (`suite`) and reports
//! it, or with `--coverage` says which behaviours the traces reach.

pub mod coverage;

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use crate::status::Status;
use crate::suite::exposure::{self, Answers};
use crate::suite::{self, Format, Heading, Options, SuiteError, course};

/// Runs the command; `closed` says whether the reader of `out` has gone.
pub(crate) fn run(
    options: &Options,
    out: &mut dyn Write,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Status, SuiteError> {
    // The built-in course suite, in a scratch folder for as long as it runs.
    let course = if options.course
        || (options.paths.is_empty() && course::is_default(options.program.is_some()))
    {
        let unpacked = course::unpacked()?;
        let paths = vec![unpacked.path().to_path_buf()];
        Some((Options { paths, course: true, ..options.clone() }, unpacked))
    } else {
        None
    };
    let heading = heading(options);
    let options = course.as_ref().map_or(options, |(o, _)| o);
    if options.coverage {
        // The course suite is named as before a run (its count is known).
        if let (Some(heading), Some(_)) = (&heading, &course) {
            writeln!(out, "{}", heading.line(course::tests()))?;
        }
        // A report: gaps in coverage are no failure.
        coverage::run(options, out)?;
        return Ok(Status::Ran);
    }
    // Run as another user, as `tictac grade` runs programs: what that user
    // could read of the answers is said as grade says it.
    if let Some(user) = &options.user {
        let paths: Vec<PathBuf> = match options.paths.is_empty() {
            true => course::default_root().map(PathBuf::from).into_iter().collect(),
            false => options.paths.clone(),
        };
        let answers = match options.course {
            true => Answers::Course,
            false => Answers::Folders(paths.iter().map(|p| suite_folder(p)).collect()),
        };
        // The files the suite links to; a suite that cannot be read is
        // said so by the run.
        let tests = match options.course {
            true => Vec::new(),
            false => suite::discover(&paths).unwrap_or_default(),
        };
        // Each program runs in a copy of this folder.
        let runs_in = options.dir.clone().or_else(|| std::env::current_dir().ok());
        for warning in exposure::warnings(user, answers, &tests, &[], runs_in.as_deref()) {
            eprintln!("{warning}");
        }
    }
    // Under --format junit (or gradescope) the report for people goes to
    // standard error.
    let people_read = match options.format {
        Format::Junit | Format::Gradescope => io::stderr().is_terminal(),
        _ => io::stdout().is_terminal(),
    };
    let color = people_read && std::env::var_os("NO_COLOR").is_none();
    let ran = suite::run_watching(options, heading.as_ref(), out, &mut io::stderr(), color, closed);
    // Nothing a test started outlives the suite, even untagged.
    crate::platform::process::stop_all();
    Ok(ran?.status())
}

/// The folder holding a test PATH's expected files: itself, or a trace's.
fn suite_folder(path: &Path) -> &Path {
    match path.is_dir() {
        true => path,
        false => path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")),
    }
}

/// The suite's name first when tictac chose it: the course suite, or the
/// folder found with no PATH given; none for the paths named. The course
/// suite run on tictac itself says so even under `--quiet`, lest a student
/// take its pass for their own; so does the course suite run for want of a
/// folder here, and the course suite run on a program, whose failures'
/// commands name traces that are gone after the run: the line says how to
/// have them.
fn heading(options: &Options) -> Option<Heading> {
    // The course suite's traces are in a scratch folder, gone after the run.
    const RERUN: &str =
        "; `tictac course-suite DIR` writes it out, to rerun a failure's command on it";
    let course = "the built-in course suite".to_string();
    let (suite, then, warns) = match (options.course, options.program.is_some()) {
        // Coverage reads the traces and runs nothing: no program to add.
        (true, _) if options.coverage => (course, String::new(), false),
        // Kept under --quiet: a failure's command names a trace in the
        // scratch folder, gone after the run (finding S5).
        (true, true) => (course, RERUN.into(), true),
        (true, false) => (
            course,
            " on tictac itself, not on your program: to check yours, add --program CMD".into(),
            true,
        ),
        (false, _) if !options.paths.is_empty() => return None,
        (false, _) => match course::default_root() {
            Some(root) => (format!("{root}/"), String::new(), false),
            None if options.program.is_some() => {
                (course, format!(": no acceptance/ or tests/acceptance/ here{RERUN}"), true)
            }
            None => (course, ": no acceptance/ or tests/acceptance/ here".into(), true),
        },
    };
    Some(Heading { suite, then, warns })
}

/// `tictac course-suite DIR`: writes the built-in course suite out.
pub(crate) fn write_course(
    dir: &std::path::Path,
    out: &mut dyn Write,
) -> Result<Status, SuiteError> {
    let tests = course::write_out(dir)?;
    let dir = dir.display();
    writeln!(
        out,
        "Wrote the course suite to {dir}: {tests} tests (NAME.txt and NAME.expected.txt)."
    )?;
    writeln!(out, "Run it with: tictac test {dir} --program CMD")?;
    Ok(Status::Ran)
}
