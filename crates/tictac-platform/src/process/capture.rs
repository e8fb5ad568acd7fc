//! What a program printed, up to a cap, in a `Spool` (memory while small, a
//! temporary file past that): a program that prints forever costs disk up
//! to the cap, never memory.

use std::fs::File;
use std::io::{self, Read, Write};

use crate::spool::Spool;

/// A capped, spooled capture of one output.
#[derive(Debug)]
pub struct Capture {
    kept: Spool,
    cap: u64,
    overflowed: bool,
}

impl Capture {
    /// An empty capture that keeps at most `cap` bytes.
    pub fn new(cap: u64) -> Capture {
        Capture { kept: Spool::default(), cap, overflowed: false }
    }

    /// A capture of `bytes` (no cap beyond their length): past the spool's
    /// memory bound they go to a temporary file, which may fail.
    pub fn of_bytes(bytes: &[u8]) -> io::Result<Capture> {
        let mut c = Capture::new(bytes.len() as u64);
        c.kept.write_all(bytes)?;
        Ok(c)
    }

    /// A capture of a whole regular file, read from its start when needed.
    pub fn of_file(file: File) -> io::Result<Capture> {
        let kept = Spool::of_file(file)?;
        Ok(Capture { cap: kept.len(), kept, overflowed: false })
    }

    pub fn len(&self) -> u64 {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// Whether more than the cap was offered (only the cap is kept).
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    /// Appends what fits under the cap; false once something did not fit.
    pub fn push(&mut self, bytes: &[u8]) -> io::Result<bool> {
        let room = usize::try_from(self.cap - self.len()).unwrap_or(usize::MAX);
        let (kept, fits) = if bytes.len() > room { (&bytes[..room], false) } else { (bytes, true) };
        self.kept.write_all(kept)?;
        self.overflowed |= !fits;
        Ok(fits)
    }

    /// Reads the capture from its start.
    pub fn reader(&mut self) -> io::Result<Box<dyn Read + '_>> {
        self.kept.read_back()
    }

    /// The whole capture in memory, if it is at most `limit` bytes.
    pub fn bytes_up_to(&mut self, limit: u64) -> io::Result<Option<Vec<u8>>> {
        if self.len() > limit {
            return Ok(None);
        }
        let mut all = Vec::with_capacity(self.len() as usize);
        self.reader()?.read_to_end(&mut all)?;
        Ok(Some(all))
    }
}

/// Writing past the cap fails (the in-process engine stops there).
impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.push(buf)? {
            Ok(buf.len())
        } else {
            Err(io::Error::other(format!("printed more than {} bytes", self.cap)))
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spool::MEMORY_BOUND as IN_MEMORY;

    fn all(c: &mut Capture) -> Vec<u8> {
        let mut v = Vec::new();
        c.reader().expect("reader").read_to_end(&mut v).expect("read");
        v
    }

    #[test]
    fn small_captures_stay_in_memory_and_large_ones_spill_whole() {
        let mut c = Capture::new(10 * IN_MEMORY as u64);
        assert!(c.push(b"abc").expect("push"));
        assert!(!c.kept.on_disk());
        let big = vec![b'x'; IN_MEMORY];
        assert!(c.push(&big).expect("push"));
        assert!(c.kept.on_disk());
        let v = all(&mut c);
        assert_eq!((v.len(), &v[..4]), (IN_MEMORY + 3, &b"abcx"[..]));
        assert_eq!(c.bytes_up_to(10).expect("read"), None);
        assert_eq!(c.bytes_up_to(u64::MAX).expect("read").map(|b| b.len()), Some(IN_MEMORY + 3));
    }

    #[test]
    fn the_cap_keeps_exactly_cap_bytes_and_says_so() {
        let mut c = Capture::new(5);
        assert!(c.push(b"1234").expect("push"));
        assert!(!c.overflowed());
        assert!(!c.push(b"567").expect("push"));
        assert!(c.overflowed());
        assert_eq!(all(&mut c), b"12345");
        let e = c.write(b"x").expect_err("past the cap");
        assert_eq!(e.to_string(), "printed more than 5 bytes");
    }
}
