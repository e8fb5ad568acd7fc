//! Grading as root: the programs run as an unprivileged user (`--user`,
//! default nobody), checked before anything runs: that user can run the
//! command as it would find it and enter the temporary folder where each
//! run's copy of its student's folder is made (a student's folder too
//! large to copy fails that student's tests, saying why); and warned about: a suite, tictac's executable (the
//! course suite's answers) or the students' folders that user could read.

use std::path::{Path, PathBuf};

use super::{GradeError, shown};
use crate::cli::GradeOptions;
use crate::platform::process::{self, RunAs};
use crate::suite::workdir;

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
    students: &[(String, PathBuf)],
) -> Result<Vec<String>, GradeError> {
    let name = user.name();
    if let Some(first) = options.command.first() {
        workdir::runnable_as(first, user).map_err(|why| GradeError::NotRunnable(shown(why)))?;
    }
    let temp = std::env::temp_dir();
    if !process::can_read(&temp, user) {
        return Err(GradeError::TempClosed(shown(temp.display()), shown(name)));
    }
    let mut warnings = Vec::new();
    match suite {
        Some(suite) if process::can_read(suite, user) => {
            let suite = shown(suite.display());
            warnings.push(format!(
                "warning: the user {name} can read the suite '{suite}', whose expected files are \
                 the answers: `chmod 700 '{suite}'` keeps them from the programs"
            ));
        }
        Some(_) => {}
        None => {
            if let Some(exe) = std::env::current_exe().ok().filter(|e| process::can_read(e, user)) {
                let exe = shown(exe.display());
                warnings.push(format!(
                    "warning: the user {name} can read tictac's executable '{exe}', which holds the \
                     course suite's answers: `chmod 711 '{exe}'` keeps them from the programs (it still runs)"
                ));
            }
        }
    }
    if let Some((_, dir)) = students.iter().find(|(_, dir)| process::can_read(dir, user)) {
        let parent = dir.parent().unwrap_or(dir);
        warnings.push(format!(
            "warning: the user {name} can read the students' folders ('{}'): each program runs in a \
             copy of its own, but could read the others' files; `chmod 700 '{}'` keeps them apart",
            shown(dir.display()),
            shown(parent.display())
        ));
    }
    Ok(warnings)
}
