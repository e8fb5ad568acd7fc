//! Grading as root: the programs run as an unprivileged user (`--user`,
//! default nobody), checked before anything runs: that user can run the
//! command as it would find it and enter the temporary folder where each
//! run's copy of its student's folder is made (a student's folder too
//! large to copy fails that student's tests, saying why); and warned about
//! (`suite::exposure`): a suite, tictac's executable (the course suite's
//! answers) or the students' folders that user could read, a student's
//! folder it could change.

use std::path::{Path, PathBuf};

use super::{GradeError, shown};
use crate::cli::GradeOptions;
use crate::platform::process::{self, RunAs};
use crate::suite::Test;
use crate::suite::exposure::{self, Answers};

/// The user the programs run as, when not this process's: `--user`, or
/// nobody when grading as root.
pub(super) fn programs_user(options: &GradeOptions) -> Result<Option<RunAs>, GradeError> {
    match (&options.user, process::is_root()) {
        (Some(user), _) => Ok(Some(user.clone())),
        (None, true) => process::lookup("nobody").map(Some).map_err(GradeError::User),
        (None, false) => Ok(None),
    }
}

/// What must hold before programs run as `user`; then its warnings (each
/// a line for standard error).
pub(super) fn check(
    options: &GradeOptions,
    user: &RunAs,
    suite: Option<&Path>,
    tests: &[Test],
    students: &[(String, PathBuf)],
) -> Result<Vec<String>, GradeError> {
    let name = user.name();
    if let Some(first) = options.command.first() {
        process::runnable_as(first, user).map_err(|why| GradeError::NotRunnable(shown(why)))?;
    }
    // Its owner may write in it whatever its mode: a folder the user made
    // (in /tmp, in an earlier grading) would let programs change the grades.
    if process::owned_by(&options.out, user) {
        return Err(GradeError::Out(
            shown(options.out.display()),
            format!(
                "belongs to the user {}, whom the programs run as, so they could write in the \
                 gradebook: name a new folder, or one of your own",
                shown(name)
            ),
        ));
    }
    let temp = std::env::temp_dir();
    if !process::can_read(&temp, user) {
        return Err(GradeError::TempClosed(shown(temp.display()), shown(name)));
    }
    let answers = match suite {
        Some(suite) => Answers::Folders(vec![suite]),
        None => Answers::Course,
    };
    let folders: Vec<&Path> = students.iter().map(|(_, dir)| dir.as_path()).collect();
    Ok(exposure::warnings(user, answers, tests, &folders, None))
}
