//! `tictac test`: runs a suite of acceptance traces (`suite`) and reports
//! it, or with `--coverage` says which behaviours the traces reach.

pub(crate) mod coverage;

use std::io::{self, IsTerminal, Write};

use crate::status::Status;
use crate::suite::{self, Format, Options, SuiteError};

/// Runs the command; `closed` says whether the reader of `out` has gone.
pub(crate) fn run(
    options: &Options,
    out: &mut dyn Write,
    closed: &(dyn Fn() -> bool + Sync),
) -> Result<Status, SuiteError> {
    if options.coverage {
        // A report: gaps in coverage are no failure.
        coverage::run(options, out)?;
        return Ok(Status::Ran);
    }
    // Under --format junit the report for people goes to standard error.
    let people_read = match options.format {
        Format::Junit => io::stderr().is_terminal(),
        _ => io::stdout().is_terminal(),
    };
    let color = people_read && std::env::var_os("NO_COLOR").is_none();
    let ran = suite::run_watching(options, out, &mut io::stderr(), color, closed);
    // Nothing a test started outlives the suite, even untagged.
    crate::platform::process::stop_all();
    Ok(ran?.status())
}
