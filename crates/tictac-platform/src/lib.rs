//! The seams to the system, one per concern: running an untrusted program
//! (`process`), splitting a command as this system's shell would and finding
//! its program (`command_line`), signals, files and the standard streams
//! (`files`), the byte store that keeps memory bounded (`spool`), and the
//! terminal's modes put back on a fatal signal (`terminal`). The
//! platform's `cfg`s live here (and in the terminal crates).

pub mod command_line;
pub mod files;
pub mod process;
pub mod signals;
pub mod spool;
pub mod terminal;
