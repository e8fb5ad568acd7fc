//! The integration tests: one binary (each file under `tests/` used to be its
//! own, each linking the library again). One module a subject; the helpers
//! they share are in `common`.

mod common;

mod acceptance;
mod architecture;
mod bots;
mod cli;
mod commands;
#[cfg(unix)]
mod course;
mod coverage;
mod docs;
mod encodings;
mod exit_status;
mod fuzz;
mod hostile;
mod language;
mod properties;
mod record;
mod serve;
mod site;
mod workflows;

// Programs written as shell scripts, signals, FIFOs, a terminal in tmux.
#[cfg(unix)]
mod board;
#[cfg(unix)]
mod differential;
#[cfg(unix)]
mod first_tries;
#[cfg(unix)]
mod fuzz_attacks;
#[cfg(unix)]
mod fuzz_session;
#[cfg(unix)]
mod grade;
#[cfg(unix)]
mod output_files;
#[cfg(unix)]
mod runner;
#[cfg(unix)]
mod runner_directives;
#[cfg(unix)]
mod runner_report;
#[cfg(unix)]
mod shell_terminal;
#[cfg(unix)]
mod stream;
#[cfg(unix)]
mod verdicts;

// Leftover processes are looked for in /proc, and programs escape with
// setsid(1): both Linux's (and cgroups).
#[cfg(target_os = "linux")]
mod autograder;
#[cfg(target_os = "linux")]
mod containment;
#[cfg(target_os = "linux")]
mod folders;
#[cfg(target_os = "linux")]
mod runner_hostile;
