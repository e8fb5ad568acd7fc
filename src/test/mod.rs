//! `tictac test`: runs a suite of acceptance traces (`suite`) and reports
//! it, or with `--coverage` says which behaviours the traces reach.

pub(crate) mod coverage;

use std::io::{self, IsTerminal, Write};

use crate::status::Status;
use crate::suite::{self, Format, Options, SuiteError, course};

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
        let why = if options.course { "" } else { ": no acceptance/ or tests/acceptance/ here" };
        let note = format!("Running the built-in course suite ({} tests){why}.", course::tests());
        match options.format {
            // TAP, JUnit and Gradescope documents start with their own first line.
            Format::Human => writeln!(out, "{note}")?,
            _ => eprintln!("{note}"),
        }
        Some((Options { paths: vec![unpacked.path().to_path_buf()], ..options.clone() }, unpacked))
    } else {
        None
    };
    let options = course.as_ref().map_or(options, |(o, _)| o);
    if options.coverage {
        // A report: gaps in coverage are no failure.
        coverage::run(options, out)?;
        return Ok(Status::Ran);
    }
    // Under --format junit (or gradescope) the report for people goes to
    // standard error.
    let people_read = match options.format {
        Format::Junit | Format::Gradescope => io::stderr().is_terminal(),
        _ => io::stdout().is_terminal(),
    };
    let color = people_read && std::env::var_os("NO_COLOR").is_none();
    let ran = suite::run_watching(options, out, &mut io::stderr(), color, closed);
    // Nothing a test started outlives the suite, even untagged.
    crate::platform::process::stop_all();
    Ok(ran?.status())
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
