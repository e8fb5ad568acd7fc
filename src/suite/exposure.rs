//! What the user programs run as (`--user`; nobody under `tictac grade` as
//! root) could reach and should not, warned about before anything runs, by
//! `tictac grade` and `tictac test --user` alike: the suite's answers (its
//! folder, a file it links to, or tictac's executable, which holds the
//! course suite's), the
//! students' folders to read, or to change, and a user of root's group.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::{Test, discover::escape_controls, workdir};
use crate::platform::process::{self, RunAs};

/// Where the expected outputs are.
pub(crate) enum Answers<'a> {
    /// In these folders (a trace named alone: its folder).
    Folders(Vec<&'a Path>),
    /// In tictac's executable (the course suite).
    Course,
}

/// The warnings, each a line for standard error: what `user` could read
/// of `answers` (and of the files `tests` link to), which of `students`'
/// folders it could read or change. `runs_in`: the folder each program
/// runs in a copy of, which `user` owns (`tictac test --user`).
pub(crate) fn warnings(
    user: &RunAs,
    answers: Answers,
    tests: &[Test],
    students: &[&Path],
    runs_in: Option<&Path>,
) -> Vec<String> {
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
            let folders: Vec<PathBuf> = folders.into_iter().map(real).collect();
            // Copied with the folder the programs run in, and the copy is
            // theirs: no mode of the suite's keeps it from them.
            let runs_in = runs_in.map(real);
            let copied = runs_in
                .as_ref()
                .and_then(|dir| Some((folders.iter().find(|suite| suite.starts_with(dir))?, dir)));
            if let Some((suite, dir)) = copied {
                warnings.push(format!(
                    "warning: the suite '{}' is inside '{}', the folder the programs run in: each \
                     runs in a copy of it that the user {name} owns, expected files, the answers, \
                     included; run tictac from a folder that does not hold the suite",
                    shown(suite),
                    shown(dir)
                ));
            } else if let Some(suite) = folders.iter().find(|f| process::can_read(f, user)) {
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
    warnings.extend(linked_out(tests, user));
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

/// A warning when a suite's trace, expected file or `-- run:` input is a
/// symbolic link to a file `user` can read, wherever the suite's own folder
/// is closed (one copy of the traces linked into each assignment's suite):
/// the programs could read the answers there (the tester's C5). Names the
/// first such file, and how many more there are.
fn linked_out(tests: &[Test], user: &RunAs) -> Option<String> {
    let files = tests.iter().flat_map(|test| {
        let input = super::plan::named_input(&test.trace);
        [Some(test.trace.clone()), Some(test.expected_path()), input].into_iter().flatten()
    });
    let open: Vec<(PathBuf, PathBuf)> = files
        .filter(|file| std::fs::symlink_metadata(file).is_ok_and(|m| m.is_symlink()))
        .filter_map(|link| Some((std::fs::canonicalize(&link).ok()?, link)))
        .filter(|(real, _)| process::can_read(real, user))
        .collect();
    let ((real, link), more) = (open.first()?, open.len() - 1);
    let folder = real.parent().unwrap_or(real);
    let others = match more {
        0 => String::new(),
        1 => " (and 1 more file the suite links to)".into(),
        n => format!(" (and {n} more files the suite links to)"),
    };
    Some(format!(
        "warning: the user {} can read '{}' ({} links there){others}, which the programs could \
         read whatever the suite's folder allows: `chmod 700 '{}'` keeps it from them",
        escape_controls(user.name()),
        shown(real),
        shown(link),
        shown(folder),
    ))
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

/// `path` as the programs' user would reach it: from the root, through
/// what links name. A relative path's folders above the current one, and a
/// link's target's, are on the way (`suite` from a folder only root may
/// enter was said open to nobody, a link there to an open suite closed);
/// as given when it cannot be resolved.
fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn shown(path: &Path) -> String {
    escape_controls(&path.display().to_string())
}
