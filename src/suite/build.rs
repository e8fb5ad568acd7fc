//! The build step (`--build CMD`): run once in the program's folder before
//! its tests, by the same runner and as the same user as the program's
//! runs (its own session, its deadline, everything it started stopped at
//! the end). Run as another user (`tictac grade` as root), it builds in a
//! private copy of the folder, which that user owns while it builds and
//! tictac takes back after: the tests then run in copies of that built
//! folder, and no other student's program can reach it. A build that fails
//! or times out runs none of the tests: each is `Verdict::NotBuilt`, and
//! the reports say once why, with the end of what the build printed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Trouble;
use super::diff::visible;
use super::discover::escape_controls;
use super::files::Scratch;
use super::workdir;
use crate::platform::command_line;
use crate::platform::process::{self, AsUser, Ending, RunAs};

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

/// What a build left: why it failed, if it did, and the folder it built
/// in when that is a private copy (built as another user), where the tests
/// run from then on.
pub(crate) struct Build {
    pub(crate) failed: Option<BuildFailed>,
    pub(crate) folder: Option<Scratch>,
}

impl Build {
    /// The folder the tests run in: the built copy, else `dir`.
    pub(crate) fn folder_or(&self, dir: Option<&Path>) -> Option<PathBuf> {
        match &self.folder {
            Some(scratch) => Some(scratch.path().join(WORK)),
            None => dir.map(Path::to_path_buf),
        }
    }
}

/// The built copy's folder in its scratch folder; HOME and TMPDIR beside it.
const WORK: &str = "work";
const HOME: &str = "home";
const TMP: &str = "tmp";

/// Runs `command` in `dir` (this process's folder without it), stopped
/// after `timeout`, as `user` when given (then in a private copy of the
/// folder, taken back from that user once built).
pub(crate) fn build(
    command: &[String],
    dir: Option<&Path>,
    timeout: Duration,
    user: Option<&RunAs>,
) -> Build {
    let Some(user) = user else {
        return Build { failed: run(command, dir, timeout, None), folder: None };
    };
    let shown = escape_controls(&command_line::join(
        &command.iter().map(OsString::from).collect::<Vec<_>>(),
    ));
    let not_started = |why: String| Build {
        failed: Some(BuildFailed {
            headline: Trouble::CouldNotStart(why).to_string(),
            command: shown.clone(),
            output: Vec::new(),
        }),
        folder: None,
    };
    let here = match dir {
        Some(dir) => dir.to_path_buf(),
        None => match std::env::current_dir() {
            Ok(here) => here,
            Err(e) => return not_started(format!("this folder cannot be read: {e}")),
        },
    };
    let scratch = match Scratch::new() {
        Ok(scratch) => scratch,
        Err(e) => return not_started(format!("no scratch folder to build in: {e}")),
    };
    let (work, home, tmp) =
        (scratch.path().join(WORK), scratch.path().join(HOME), scratch.path().join(TMP));
    // A whole copy, or no build: the user cannot build in the folder itself.
    match workdir::place(&here, &work, scratch.path()) {
        Ok(workdir::Place::Copy(_)) => {}
        Ok(workdir::Place::Itself(_, why)) => {
            let note = workdir::note(&here, &why);
            return not_started(format!("{} cannot build in a copy: {note}", user.name()));
        }
        Err(e) => {
            return not_started(format!("cannot copy {} for {}: {e}", here.display(), user.name()));
        }
    }
    let made = std::fs::create_dir(&home)
        .and_then(|()| std::fs::create_dir(&tmp))
        .and_then(|()| process::give(scratch.path(), user));
    if let Err(e) = made {
        return not_started(format!("cannot give {} its copy: {e}", user.name()));
    }
    let as_user = AsUser { user, home: &home, tmp: &tmp };
    let failed = run(command, Some(&work), timeout, Some(as_user));
    // Nothing the build started outlives it; the built folder is tictac's
    // again, out of every student's reach.
    process::stop_all();
    if let Err(e) = process::take_back(scratch.path()) {
        return not_started(format!("cannot take the built folder back from {}: {e}", user.name()));
    }
    Build { failed, folder: Some(scratch) }
}

/// Runs `command` in `dir`, as `user` when given; None when it built, else
/// why not.
fn run(
    command: &[String],
    dir: Option<&Path>,
    timeout: Duration,
    user: Option<AsUser>,
) -> Option<BuildFailed> {
    let argv: Vec<OsString> = command.iter().map(OsString::from).collect();
    let shown = escape_controls(&command_line::join(&argv));
    let spec =
        process::Spec { argv: &argv, input: None, timeout, cap: BUILD_CAP, stop: None, dir, user };
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
