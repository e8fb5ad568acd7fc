//! `tictac`: a byte-exact re-creation of the York University ETF tic-tac-toe
//! oracle. Data flows one way: trace text → parsed events (`lang`) →
//! validated commands (`command`) → operations on the model (`history`,
//! `game`, driven by `engine`) → the printed view (`game::view`).
//!
//! ```
//! use tictac::engine::Engine;
//! use tictac::game::view::render;
//!
//! let mut engine = Engine::new();
//! for command in tictac::lang::check(b"new_game(\"Ann\",\"Bob\") play(\"Ann\", 5) undo redo")
//!     .expect("a valid trace")
//! {
//!     engine.run(&command);
//! }
//! let view = render(engine.game());
//! assert!(view.starts_with(b"  ok: => Bob plays next\n  ___\n  _X_\n  ___\n"));
//! ```

// The public API is what the integration tests, the benches, the examples
// and `main` use (docs/ARCHITECTURE.md, "Public API"); everything else is
// `pub(crate)`, so the compiler finds what is dead.
pub mod behaviour;
pub mod bots;
pub mod command;
pub mod engine;
pub mod game;
pub mod lang;

// Below the front ends: the seams to the system, the run pipeline, a suite
// of traces, what a run earned.
mod app;
mod cli;
mod history;
mod platform;
mod run;
mod status;
mod suite;
mod window;

// The front ends, one a command (docs/ARCHITECTURE.md, "Where each command
// lives"); none imports another.
mod board;
mod fuzz;
mod grade;
mod serve;
mod shell;
mod test;
mod verify;

/// Arguments in, one front end run, exit status out (see `app::main`).
pub fn main(args: Vec<std::ffi::OsString>) -> std::process::ExitCode {
    // Before any file is written: past `ulimit -f` a write fails, it does not kill.
    platform::signals::survive_file_size_limit();
    // Started to become a program as another user (`tictac grade` as root).
    if let Some(code) = platform::process::started_as(&args) {
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

/// The parts of the front ends that the integration tests drive below the
/// command line.
pub mod testing {
    pub use crate::board::model::Action;
    pub use crate::board::view::areas;
    pub use crate::run::protocol::{LineProtocol, Reply};
    pub use crate::run::{Driver, Job, Sink, run_job};
    pub use crate::shell::Recorder;
    pub use crate::status::Status;

    /// The test runner (`tictac test`): the suite, and its coverage.
    pub mod suite {
        pub use crate::suite::{Options, Report, discover, run};
        pub use crate::test::coverage::reached;
    }
}
