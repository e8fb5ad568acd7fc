//! The integration tests: one binary (each file under `tests/` used to be its
//! own, each linking the library again). One module a subject; the helpers
//! they share are in `common`.

mod common;

mod acceptance;
mod architecture;
mod board;
mod bots;
mod cli;
mod commands;
mod containment;
mod coverage;
mod differential;
mod docs;
mod exit_status;
mod fuzz;
mod fuzz_attacks;
mod hostile;
mod output_files;
mod properties;
mod record;
mod runner;
mod runner_hostile;
mod runner_report;
mod serve;
mod shell_terminal;
mod stream;
