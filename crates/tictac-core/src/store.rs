//! Where the trace language keeps bytes until its verdict (type error
//! lines, a long token, a long run of blanks): a `Store`. The core has no
//! files, so a store is memory unless the program gives, once at its
//! start, a maker of stores that move to a temporary file past a bound
//! (`keep_on`: the `tictac` binary gives its spool). Without one (the
//! engine in WebAssembly, a test) everything stays in memory.

use std::io::{self, BufRead, Write};
use std::sync::OnceLock;

/// Bytes a store keeps in memory before it moves to a file, unless told
/// otherwise.
pub const MEMORY_BOUND: usize = 1024 * 1024;

/// Bytes written, to be read back once, from the start.
pub trait Store: Write + Send {
    /// How many bytes were written.
    fn len(&self) -> u64;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets what was written after the first `len` bytes.
    fn truncate(&mut self, len: u64) -> io::Result<()>;

    /// Everything written, from the start.
    fn reader(self: Box<Self>) -> io::Result<Box<dyn BufRead + Send>>;
}

impl Store for Vec<u8> {
    fn len(&self) -> u64 {
        Vec::len(self) as u64
    }

    fn truncate(&mut self, len: u64) -> io::Result<()> {
        Vec::truncate(self, usize::try_from(len).unwrap_or(usize::MAX));
        Ok(())
    }

    fn reader(self: Box<Self>) -> io::Result<Box<dyn BufRead + Send>> {
        Ok(Box::new(io::Cursor::new(*self)))
    }
}

/// Makes a store that keeps at most `bound` bytes in memory.
pub type Maker = fn(bound: usize) -> Box<dyn Store>;

static MAKER: OnceLock<Maker> = OnceLock::new();

/// Stores are made by `make` from now on; false if a maker was given
/// already (the first one stays).
pub fn keep_on(make: Maker) -> bool {
    MAKER.set(make).is_ok()
}

/// A store keeping at most `bound` bytes in memory (`usize::MAX`: all of
/// them, whatever maker was given).
pub fn make(bound: usize) -> Box<dyn Store> {
    match MAKER.get() {
        Some(make) if bound != usize::MAX => make(bound),
        _ => Box::new(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_maker_a_store_is_memory_and_reads_back_what_was_written() {
        let mut store = make(0);
        store.write_all(b"type error\n").expect("memory");
        assert_eq!(store.len(), 11);
        let mut back = String::new();
        io::Read::read_to_string(&mut store.reader().expect("memory"), &mut back).expect("read");
        assert_eq!(back, "type error\n");
    }
}
