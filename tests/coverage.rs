//! The project's own acceptance suite reaches every behaviour of the
//! catalogue (`src/behaviour.rs`): each trace that runs as `-b IN` (no
//! `-- run:` line) through the engine, which notes what each command showed.

use std::fs;
use std::path::Path;

use tictac::behaviour::{Behaviour, Coverage, kept_lines, of_rejected};
use tictac::engine::Engine;

/// What a whole text shows when run as one trace.
fn shown(text: &[u8]) -> Coverage {
    let kept = kept_lines(text);
    match tictac::lang::check(&kept) {
        Err(e) => of_rejected(&kept, &e).into_iter().collect(),
        Ok(commands) => {
            let mut engine = Engine::new();
            commands.iter().for_each(|c| engine.run(c));
            engine.seen()
        }
    }
}

#[test]
fn the_acceptance_suite_reaches_every_behaviour() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("acceptance");
    let mut covered = Coverage::default();
    let mut names: Vec<_> = fs::read_dir(&dir)
        .expect("acceptance folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .filter(|p| !p.to_string_lossy().ends_with(".expected.txt"))
        .collect();
    names.sort();
    for path in names {
        let text = fs::read(&path).expect("read trace");
        if !String::from_utf8_lossy(&text).trim_start().starts_with("-- run:") {
            covered = covered.union(shown(&text));
        }
    }
    let missing: Vec<&str> =
        Behaviour::ALL.iter().filter(|b| !covered.contains(**b)).map(|b| b.id()).collect();
    assert!(missing.is_empty(), "no acceptance trace reaches: {missing:?}");
}
