//! A program named by a relative path (`./ttt`) that is not in the folder
//! it runs in but in a folder below it (`project/ttt`): a submission
//! uploaded as its folder, zipped with it. Said once, before the tests,
//! rather than as each test's `could not start: ./ttt: no such file`
//! (attack 38's C13 f).

use std::path::{Component, Path, PathBuf};

/// Folders looked in below the program's folder, at most, and how deep.
const LOOK_IN: usize = 2_000;
const DEPTH: usize = 3;

/// Where below `folder` the file the relative path `word` names is, when it
/// is not where it names (`project/ttt` for `./ttt`); none for a word that
/// names no folder (a command looked for on PATH), an absolute path, or one
/// that leaves the folder.
pub(crate) fn nested_program(folder: &Path, word: &str) -> Option<PathBuf> {
    let named = Path::new(word);
    let components: Vec<Component> = named.components().collect();
    let names_a_folder = components.len() > 1 || components.first() == Some(&Component::CurDir);
    if !names_a_folder || folder.join(named).symlink_metadata().is_ok() {
        return None;
    }
    let mut tail = PathBuf::new();
    for component in components {
        match component {
            Component::CurDir => {}
            Component::Normal(name) => tail.push(name),
            _ => return None,
        }
    }
    let folders = walkdir::WalkDir::new(folder)
        .min_depth(1)
        .max_depth(DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.file_type().is_dir() && !e.file_name().to_string_lossy().starts_with('.')
        })
        .flatten()
        .take(LOOK_IN);
    folders
        .map(|dir| dir.path().join(&tail))
        .find(|candidate| candidate.is_file())
        .and_then(|found| found.strip_prefix(folder).ok().map(Path::to_path_buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_in_a_folder_below_is_found_and_one_in_place_is_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join("bin")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join(".git/x")).expect("mkdir");
        std::fs::write(project.join("ttt"), "").expect("write");
        std::fs::write(project.join("bin/run"), "").expect("write");
        std::fs::write(dir.path().join(".git/x/ttt"), "").expect("write");
        let found = |word| nested_program(dir.path(), word);
        assert_eq!(found("./ttt"), Some(PathBuf::from("project/ttt")));
        assert_eq!(found("bin/run"), Some(PathBuf::from("project/bin/run")));
        // On PATH, absolute, outside, or missing everywhere: nothing to say.
        assert_eq!(found("ttt"), None);
        assert_eq!(found("/bin/ttt"), None);
        assert_eq!(found("../ttt"), None);
        assert_eq!(found("./nothing"), None);
        std::fs::write(dir.path().join("ttt"), "").expect("write");
        assert_eq!(found("./ttt"), None);
    }
}
