//! Imports point one way (docs/ARCHITECTURE.md): the lower layers name only
//! the layers below them. Read from the sources, so a new `use` that points
//! up fails here, with the file and the line.

use std::fs;
use std::path::{Path, PathBuf};

/// A layer (a folder or a file under src/) and the top-level modules it may
/// name besides itself.
const LAYERS: [(&str, &[&str]); 10] = [
    ("game", &[]),
    ("spool.rs", &[]),
    ("signals.rs", &[]),
    // The window arithmetic: below both `cli` and the window front end.
    ("window.rs", &[]),
    ("command.rs", &["game"]),
    ("history", &["game"]),
    ("lang", &["command", "spool"]),
    ("process", &["signals", "spool"]),
    ("engine.rs", &["game", "history", "command", "behaviour"]),
    // What to run, as plain data: never a front end.
    ("cli", &["bots", "behaviour", "game", "window"]),
];

fn sources(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    for entry in fs::read_dir(path).expect("read src") {
        files.extend(sources(&entry.expect("entry").path()));
    }
    files
}

/// The top-level modules a line names as `crate::NAME`, and inside
/// `use crate::{NAME, ...}` groups.
fn named(line: &str) -> Vec<String> {
    names_after(line, "crate::")
}

/// The names a line has right after `prefix`, alone or in a `{...}` group.
fn names_after(line: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (k, _) in line.match_indices(prefix) {
        let rest = &line[k + prefix.len()..];
        let group = rest.strip_prefix('{').map(|g| g.split('}').next().unwrap_or(g));
        for item in group.map_or_else(|| vec![rest], |g| g.split(',').collect()) {
            let name: String =
                item.trim().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                names.push(name);
            }
        }
    }
    names
}

#[test]
fn lower_layers_import_nothing_above_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for (layer, allowed) in LAYERS {
        let own = layer.trim_end_matches(".rs");
        for file in sources(&src.join(layer)) {
            let text = fs::read_to_string(&file).expect("read a source");
            // Tests may reach further (an engine to drive, say).
            let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
            for (n, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for name in named(line) {
                    if name != own && !allowed.contains(&name.as_str()) {
                        wrong.push(format!("{}:{}: {name}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "imports that point up:\n{}", wrong.join("\n"));
}

#[test]
fn the_reader_sees_groups_and_paths() {
    assert_eq!(named("use crate::{game, lang::x};"), ["game", "lang"]);
    assert_eq!(named("let c = crate::cli::PROGRAM;"), ["cli"]);
    assert_eq!(named("use super::x;"), Vec::<String>::new());
}

/// The front ends, under src/modes/: each drives the engine on its own, and
/// what two of them share lives below both (`shell`, `record`, `driver` ...).
const FRONT_ENDS: [&str; 8] =
    ["batch", "window", "interactive", "tui", "runner", "fuzz", "verify", "serve"];

/// The front ends a line of `file` names, through `crate::modes::`, or
/// through the `super::` paths that reach `modes` from where `file` is.
fn front_ends_named(file: &Path, line: &str) -> Vec<&'static str> {
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/modes");
    let depth = file.strip_prefix(&modes).map_or(0, |p| p.components().count());
    let in_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
    // modes/x.rs and modes/x/mod.rs reach modes as `super::`; one folder
    // deeper as `super::super::`.
    let up = if depth == 1 || (depth == 2 && in_mod_rs) { "super::" } else { "super::super::" };
    // (`modes::` also finds `crate::modes::`; `super::super::x` is not
    // `super::` naming `super`, which is no front end.)
    ["modes::", up]
        .into_iter()
        .flat_map(|prefix| names_after(line, prefix))
        .filter_map(|name| FRONT_ENDS.iter().find(|f| **f == name).copied())
        .collect()
}

#[test]
fn no_front_end_imports_another() {
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/modes");
    let mut wrong = Vec::new();
    for front in FRONT_ENDS {
        let folder = modes.join(front);
        let path = if folder.is_dir() { folder } else { modes.join(format!("{front}.rs")) };
        assert!(path.exists(), "{} is gone: update FRONT_ENDS", path.display());
        for file in sources(&path) {
            let text = fs::read_to_string(&file).expect("read a source");
            let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
            for (n, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for other in front_ends_named(&file, line) {
                    if other != front {
                        wrong.push(format!("{}:{}: {other}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "front ends that import another:\n{}", wrong.join("\n"));
}

#[test]
fn the_front_end_reader_sees_each_way_up() {
    let modes = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/modes");
    let top = modes.join("verify.rs");
    let folder = modes.join("runner/mod.rs");
    let inner = modes.join("runner/plan.rs");
    assert_eq!(front_ends_named(&top, "use super::{Sink, tui::Areas};"), ["tui"]);
    assert_eq!(front_ends_named(&folder, "use super::serve;"), ["serve"]);
    assert_eq!(front_ends_named(&inner, "use super::serve;"), Vec::<&str>::new());
    assert_eq!(front_ends_named(&inner, "use super::super::batch::x;"), ["batch"]);
    assert_eq!(front_ends_named(&inner, "crate::modes::fuzz::run(x)"), ["fuzz"]);
}
