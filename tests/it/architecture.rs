//! Imports point one way (docs/ARCHITECTURE.md): the lower layers name only
//! the layers below them. Read from the sources, so a new `use` that points
//! up fails here, with the file and the line.

use std::fs;
use std::path::{Path, PathBuf};

/// A layer (a folder or a file under src/) and the top-level modules it may
/// name besides itself. The core (`tictac-core`), the seams to the system
/// (`tictac-platform`: processes, signals, files, the spool) and the pure
/// run pipeline with what a run earned (`tictac-run`: `status`) are crates
/// of their own, which the compiler keeps from naming anything here;
/// `crate::` names them through `lib.rs`. Inside the core, `CORE_LAYERS`
/// below.
const LAYERS: [(&str, &[&str]); 3] = [
    // What to run, as plain data: never a front end (a command is split,
    // and its program found, as the platform's shell would).
    ("cli", &["bots", "behaviour", "game", "platform", "window"]),
    // The run pipeline, below every front end.
    ("run", &RUN),
    // A suite of traces run and reported, below `tictac test` and the
    // grader: the pipeline and nothing above it.
    ("suite", &SUITE),
];

/// The layers inside `tictac-core` (under crates/tictac-core/src/), which one
/// crate holds, so the compiler does not keep them apart.
const CORE_LAYERS: [(&str, &[&str]); 9] = [
    ("game", &[]),
    // The window arithmetic: below both `cli` and the window run.
    ("window.rs", &[]),
    // Where the language keeps bytes until its verdict.
    ("store.rs", &[]),
    ("command.rs", &["game"]),
    ("history", &["game"]),
    ("lang", &["command", "store"]),
    ("engine.rs", &["game", "history", "command", "behaviour"]),
    ("bots", &["game", "command", "engine"]),
    ("behaviour", &["command", "engine", "game", "lang"]),
];

const RUN: [&str; 9] =
    ["bots", "cli", "command", "engine", "game", "lang", "platform", "status", "window"];
const SUITE: [&str; 4] = ["cli", "platform", "run", "status"];

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = imports_up(&root.join("src"), &LAYERS);
    wrong.extend(imports_up(&root.join("crates/tictac-core/src"), &CORE_LAYERS));
    assert!(wrong.is_empty(), "imports that point up:\n{}", wrong.join("\n"));
}

/// The imports of `layers` under `src` that name a module they may not.
fn imports_up(src: &Path, layers: &[(&str, &[&str])]) -> Vec<String> {
    let mut wrong = Vec::new();
    for &(layer, allowed) in layers {
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
    wrong
}

#[test]
fn the_reader_sees_groups_and_paths() {
    assert_eq!(named("use crate::{game, lang::x};"), ["game", "lang"]);
    assert_eq!(named("let c = crate::cli::PROGRAM;"), ["cli"]);
    assert_eq!(named("use super::x;"), Vec::<String>::new());
}

/// The front ends, one a command, each a top-level module: a folder or a
/// file under src/.
const FRONT_ENDS: [&str; 7] = ["shell", "board", "test", "grade", "fuzz", "serve", "verify"];

/// The top-level modules a line of `file` names, through `crate::`, or
/// through the `super::` path that reaches the crate's root from `file`.
fn top_level_named(file: &Path, line: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let depth = file.strip_prefix(&src).map_or(0, |p| p.components().count());
    let in_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
    // src/x.rs and src/x/mod.rs reach the root as `super::`; src/x/y.rs as
    // `super::super::`, and so on.
    let up = depth.saturating_sub(usize::from(in_mod_rs));
    let mut names = named(line);
    if up > 0 {
        names.extend(names_after(line, &"super::".repeat(up)));
    }
    names
}

/// Where a front end lives: its folder, or its file.
fn room(src: &Path, name: &str) -> PathBuf {
    let folder = src.join(name);
    if folder.is_dir() { folder } else { src.join(format!("{name}.rs")) }
}

#[test]
fn no_front_end_imports_another_and_nothing_below_one_imports_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for entry in fs::read_dir(&src).expect("read src") {
        let path = entry.expect("entry").path();
        let own = path.file_stem().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        // `app` picks the front end; `lib` re-exports for the tests.
        if own == "app" || own == "lib" {
            continue;
        }
        for file in sources(&path) {
            let text = fs::read_to_string(&file).expect("read a source");
            let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
            for (n, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for name in top_level_named(&file, line) {
                    if name != own && FRONT_ENDS.contains(&name.as_str()) {
                        wrong.push(format!("{}:{}: {name}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    for front in FRONT_ENDS {
        let path = room(&src, front);
        assert!(path.exists(), "{} is gone: update FRONT_ENDS", path.display());
    }
    assert!(wrong.is_empty(), "imports of a front end:\n{}", wrong.join("\n"));
}

#[test]
fn the_front_end_reader_sees_each_way_up() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let top = src.join("verify.rs");
    let folder = src.join("test/mod.rs");
    let inner = src.join("fuzz/shrink.rs");
    assert_eq!(top_level_named(&top, "use super::{run, board::Areas};"), ["run", "board"]);
    assert_eq!(top_level_named(&folder, "use super::serve;"), ["serve"]);
    assert_eq!(top_level_named(&inner, "use super::serve;"), Vec::<&str>::new());
    assert_eq!(top_level_named(&inner, "use super::super::shell::x;"), ["shell"]);
    assert_eq!(top_level_named(&inner, "crate::fuzz::run(x)"), ["fuzz"]);
}

/// Lines of code (.rs, .js, .css, .html) under `path`.
fn lines_of_code(path: &Path) -> usize {
    let counted = |p: &PathBuf| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["rs", "js", "css", "html"].contains(&e))
    };
    sources(path)
        .iter()
        .filter(|p| counted(p))
        .map(|p| fs::read_to_string(p).expect("read a source").lines().count())
        .sum()
}

/// The layout shows the architecture: no room holds most of the house.
#[test]
fn no_top_level_folder_holds_more_than_a_third_of_the_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let total = lines_of_code(&src);
    let mut heavy = Vec::new();
    for entry in fs::read_dir(&src).expect("read src") {
        let path = entry.expect("entry").path();
        let lines = lines_of_code(&path);
        if path.is_dir() && 3 * lines > total {
            heavy.push(format!("{}: {lines} of {total} lines", path.display()));
        }
    }
    assert!(heavy.is_empty(), "folders past a third of src/:\n{}", heavy.join("\n"));
}

/// One grammar (issue 36): the nom parser is the one definition of the
/// trace language, so at most three files of the workspace name nom (the
/// tokens, the grammar, and the stream that reads its errors).
#[test]
fn at_most_three_files_name_nom() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let needle = concat!("nom", "::");
    let mut naming: Vec<String> = ["src", "crates", "tests", "benches", "examples"]
        .iter()
        .flat_map(|dir| sources(&root.join(dir)))
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .filter(|f| fs::read_to_string(f).is_ok_and(|text| text.contains(needle)))
        .map(|f| f.strip_prefix(root).unwrap_or(&f).display().to_string())
        .collect();
    naming.sort();
    assert!(naming.len() <= 3, "files naming nom: {naming:?}");
    assert!(naming.iter().any(|f| f.ends_with("lang/parser.rs")), "{naming:?}");
}
