//! The build step (`--build CMD`): run once in the program's folder before
//! its tests, by the same runner and as the same user as the program's
//! runs (its own session, its deadline, everything it started stopped at
//! the end). A build that fails or times out runs none of the tests: each
//! is `Verdict::NotBuilt`, and the reports say once why, with the end of
//! what the build printed.

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use super::Trouble;
use super::diff::visible;
use super::discover::escape_controls;
use crate::platform::command_line;
use crate::platform::process::{self, Ending};

/// Bytes of a build's standard output kept; past them it is stopped.
const BUILD_CAP: u64 = 16 << 20;

/// Lines of a failed build's output shown: the last ones, where a compiler
/// says why.
const BUILD_LINES: usize = 20;

/// Why a build failed: what went wrong (`exited with status 2`, `timed
/// out after 120 s`, `could not start: ...`), the command, and the last
/// lines it printed (standard output, then standard error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BuildFailed {
    pub(crate) headline: String,
    pub(crate) command: String,
    pub(crate) output: Vec<String>,
}

impl BuildFailed {
    /// The build's failure as a report shows it, a line each.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!("build failed: {}", self.headline),
            format!("     command: {}", self.command),
        ];
        if !self.output.is_empty() {
            lines.push("     its output (the last lines):".into());
            lines.extend(self.output.iter().map(|l| format!("       {l}")));
        }
        lines
    }
}

/// Runs `command` in `dir` (this process's folder without it), stopped
/// after `timeout`; None when it built, else why not.
pub(crate) fn build(
    command: &[String],
    dir: Option<&Path>,
    timeout: Duration,
) -> Option<BuildFailed> {
    let argv: Vec<OsString> = command.iter().map(OsString::from).collect();
    let shown = escape_controls(&command_line::join(&argv));
    // As this process: builds run as the grader for now.
    let spec = process::Spec {
        argv: &argv,
        input: None,
        timeout,
        cap: BUILD_CAP,
        stop: None,
        dir,
        user: None,
    };
    let exe = command.first().map(String::as_str).unwrap_or_default();
    let failed = |trouble: Trouble, output: Vec<String>| {
        Some(BuildFailed { headline: trouble.to_string(), command: shown.clone(), output })
    };
    let mut finished = match process::run(&spec) {
        Ok(finished) => finished,
        Err(e) => return failed(Trouble::CouldNotStart(format!("{exe}: {e}")), Vec::new()),
    };
    let trouble = match finished.ending {
        Ending::Exited(status) => Trouble::of_exit(status)?,
        Ending::TimedOut => Trouble::TimedOut(timeout),
        Ending::PrintedTooMuch => Trouble::TooMuch(BUILD_CAP),
        Ending::Stopped => Trouble::TimedOut(timeout),
    };
    let mut printed = finished.stdout.bytes_up_to(BUILD_CAP).ok().flatten().unwrap_or_default();
    printed.extend_from_slice(&finished.stderr);
    failed(trouble, last_lines(&printed))
}

/// The last `BUILD_LINES` lines of `bytes`, made visible, after a line
/// counting those left out.
fn last_lines(bytes: &[u8]) -> Vec<String> {
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let lines = lines.strip_suffix(&[&b""[..]]).unwrap_or(&lines);
    let left_out = lines.len().saturating_sub(BUILD_LINES);
    let mut shown = Vec::new();
    if left_out > 0 {
        shown.push(format!("... {left_out} lines before these"));
    }
    shown.extend(lines[left_out..].iter().map(|line| visible(line)));
    shown
}
