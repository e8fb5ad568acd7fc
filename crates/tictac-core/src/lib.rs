//! The pure core of `tictac`, the re-creation of the York University ETF
//! tic-tac-toe oracle: no files, threads, processes or clocks, so it builds
//! for `wasm32-unknown-unknown` too. Data flows one way: trace text → parsed
//! events (`lang`) → validated commands (`command`) → operations on the model
//! (`history`, `game`, driven by `engine`) → the printed view (`game::view`).
//!
//! ```
//! use tictac_core::engine::Engine;
//! use tictac_core::game::view::render;
//!
//! let mut engine = Engine::new();
//! for command in tictac_core::lang::check(b"new_game(\"Ann\",\"Bob\") play(\"Ann\", 5) undo redo")
//!     .expect("a valid trace")
//! {
//!     engine.run(&command);
//! }
//! let view = render(engine.game());
//! assert!(view.starts_with(b"  ok: => Bob plays next\n  ___\n  _X_\n  ___\n"));
//! ```

pub mod behaviour;
pub mod bots;
pub mod command;
pub mod engine;
pub mod game;
pub mod history;
pub mod lang;
pub mod store;
pub mod window;
