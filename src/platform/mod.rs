//! The seams to the system, one per concern: running an untrusted program
//! (`process`), splitting a command as this system's shell would and finding
//! its program (`command_line`), signals, files and the standard streams
//! (`files`), the byte store that keeps memory bounded (`spool`), and the
//! terminal's modes put back on a fatal signal (`terminal`). The
//! platform's `cfg`s live here (and in the terminal crates).

pub(crate) mod command_line;
pub(crate) mod files;
pub(crate) mod process;
pub(crate) mod signals;
pub(crate) mod spool;
pub(crate) mod terminal;
