//! The seams to the system, one per concern: running an untrusted program
//! (`process`), signals, and the byte store that keeps memory bounded
//! (`spool`). The platform's `cfg`s live here (and in the terminal crates).

pub(crate) mod process;
pub(crate) mod signals;
pub(crate) mod spool;
