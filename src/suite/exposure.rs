//! What the user programs run as (`--user`; nobody under `tictac grade` as
//! root) could reach and should not, warned about before anything runs, by
//! `tictac grade` and `tictac test --user` alike: the suite's answers (its
//! folder, or tictac's executable, which holds the course suite's), the
//! students' folders to read, or to change, and a user of root's group.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::{discover::escape_controls, workdir};
use crate::platform::process::{self, RunAs};

/// Where the expected outputs are.
pub(crate) enum Answers<'a> {
    /// In these folders (a trace named alone: its folder).
    Folders(Vec<&'a Path>),
    /// In tictac's executable (the course suite).
    Course,
}

/// The warnings, each a line for standard error: what `user` could read
/// of `answers`, which of `students`' folders it could read or change.
pub(crate) fn warnings(user: &RunAs, answers: Answers, students: &[&Path]) -> Vec<String> {
    let name = escape_controls(user.name());
    let mut warnings = Vec::new();
    if user.gid == 0 {
        warnings.push(format!(
            "warning: the user {name}'s group is root's (gid 0): its programs may read and write \
             what that group may; name a user of an unprivileged group with --user"
        ));
    }
    match answers {
        Answers::Folders(folders) => {
            if let Some(suite) = folders.into_iter().find(|f| process::can_read(f, user)) {
                let suite = shown(suite);
                warnings.push(format!(
                    "warning: the user {name} can read the suite '{suite}', whose expected files \
                     are the answers: `chmod 700 '{suite}'` keeps them from the programs"
                ));
            }
        }
        Answers::Course => {
            if let Some(exe) = std::env::current_exe().ok().filter(|e| process::can_read(e, user)) {
                let exe = shown(&exe);
                warnings.push(format!(
                    "warning: the user {name} can read tictac's executable '{exe}', which holds the \
                     course suite's answers: `chmod 711 '{exe}'` keeps them from the programs (it still runs)"
                ));
            }
        }
    }
    if let Some(dir) = students.iter().find(|dir| process::can_read(dir, user)) {
        let parent = dir.parent().unwrap_or(dir);
        warnings.push(format!(
            "warning: the user {name} can read the students' folders ('{}'): each program runs in a \
             copy of its own, but could read the others' files; `chmod 700 '{}'` keeps them apart",
            shown(dir),
            shown(parent)
        ));
    }
    // A program may change its own student's folder: only another's tells.
    let others = students.len() > 1;
    let changed: Vec<PathBuf> =
        students.iter().filter(|_| others).filter_map(|dir| changeable(dir, user)).collect();
    if let Some(first) = changed.first() {
        let more = match changed.len() {
            1 => String::new(),
            n => format!(" (and what {} other students' folders hold)", n - 1),
        };
        warnings.push(format!(
            "warning: the user {name} can change '{}'{more}: a program graded before its student's \
             could rewrite that submission; `chown -R root: FOLDER && chmod -R go-w FOLDER` \
             keeps each student's own",
            shown(first)
        ));
    }
    warnings
}

/// The first path in `folder` (itself included) that `user` could change,
/// among its first `workdir::MAX_ENTRIES` entries.
fn changeable(folder: &Path, user: &RunAs) -> Option<PathBuf> {
    let entries = WalkDir::new(folder).follow_links(false).into_iter().flatten();
    entries
        .take(workdir::MAX_ENTRIES)
        .map(walkdir::DirEntry::into_path)
        .find(|path| process::can_change(path, user))
}

fn shown(path: &Path) -> String {
    escape_controls(&path.display().to_string())
}
