//! `tictac`: a byte-exact re-creation of the York University ETF tic-tac-toe
//! oracle. The pure core (the trace language, the game, its history, the
//! engine, the view) is the `tictac-core` crate; this crate holds the seams
//! to the system, the run pipeline and the front ends above it.

// The core's modules, named here as in the core, so that `crate::lang` and
// the others read the same on both sides.
use tictac_core::window;
pub use tictac_core::{behaviour, bots, command, engine, game, lang};
// The seams to the system, a crate of their own: the only platform `cfg`s.
use tictac_platform as platform;

// Below the front ends: the seams to the system, the run pipeline, a suite
// of traces, what a run earned.
mod app;
mod cli;
pub mod run;
// What a run earned, below every layer: the pure pipeline's.
pub use tictac_run::status;
pub mod suite;

// The front ends, one a command (docs/ARCHITECTURE.md, "Where each command
// lives"); none imports another.
pub mod board;
mod fuzz;
mod grade;
mod serve;
mod shell;
pub mod test;
mod verify;

/// Arguments in, one front end run, exit status out (see `app::main`).
pub fn main(args: Vec<std::ffi::OsString>) -> std::process::ExitCode {
    // First, before any thread: what this process inherited beyond 0, 1
    // and 2 reaches no program it starts.
    platform::process::inherit_nothing();
    // Before any file is written: past `ulimit -f` a write fails, it does not kill.
    platform::signals::survive_file_size_limit();
    // What the trace language keeps (type errors) goes to a temporary file
    // past a bound, as everything a run keeps does.
    tictac_core::store::keep_on(platform::spool::store);
    // Started to become a program as another user (`tictac grade` as root).
    if let Some(code) = platform::process::started_as(&args) {
        return std::process::ExitCode::from(code as u8);
    }
    // Started to stop what a runner left, once it has ended (Linux).
    if let Some(code) = platform::process::kept(&args) {
        return std::process::ExitCode::from(code as u8);
    }
    // Run by a program under grading: the oracle answers nothing for it.
    if platform::process::under_grading() {
        eprintln!("{}", platform::process::REFUSAL);
        return std::process::ExitCode::from(2);
    }
    let status = app::main(args);
    // A fatal signal being handled ends the process, not this status.
    platform::signals::await_death_if_dying();
    status
}
