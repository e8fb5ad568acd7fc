//! `tictac`: a byte-exact re-creation of the York University ETF tic-tac-toe
//! oracle. Data flows one way: trace text → parsed events (`lang`) →
//! validated commands (`command`) → operations on the model (`history`,
//! `game`, driven by `engine`) → the printed view (`game::view`).

pub mod app;
pub mod bots;
pub mod cli;
pub mod command;
pub mod engine;
pub mod game;
pub mod history;
pub mod lang;
pub mod modes;
