//! The bounds that keep a request's memory and time small, whatever it asks.

use std::io::{self, Write};
use std::time::Instant;

/// Largest request body (the trace and its options).
pub(crate) const BODY_LIMIT: usize = 1 << 20;
/// Largest transcript sent back; a longer one is for the command line.
pub(crate) const OUTPUT_LIMIT: usize = 4 << 20;
/// Traces this short run on the server's own threads; longer ones on the
/// blocking pool, a few at a time.
pub(crate) const INLINE_TRACE: usize = 16 << 10;

/// Why a run was stopped before its end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Cut {
    #[error("the transcript is over the limit")]
    TooBig,
    #[error("the request ran past its time")]
    TooLong,
}

impl Cut {
    /// The cut that stopped a write, if it was one.
    pub(crate) fn of(e: &io::Error) -> Option<Cut> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<Cut>()).copied()
    }
}

/// A transcript in memory that refuses to grow past `OUTPUT_LIMIT` or to
/// go on past a deadline (checked at every 64 KiB, so small runs pay
/// nothing for it).
pub(crate) struct Capped {
    pub(crate) bytes: Vec<u8>,
    deadline: Instant,
    next_check: usize,
}

impl Capped {
    const CHECK_EVERY: usize = 64 << 10;

    pub(crate) fn new(deadline: Instant) -> Self {
        Capped { bytes: Vec::with_capacity(4096), deadline, next_check: Self::CHECK_EVERY }
    }
}

impl Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if self.bytes.len() + data.len() > OUTPUT_LIMIT {
            return Err(io::Error::other(Cut::TooBig));
        }
        self.bytes.extend_from_slice(data);
        if self.bytes.len() >= self.next_check {
            self.next_check = self.bytes.len() + Self::CHECK_EVERY;
            if Instant::now() > self.deadline {
                return Err(io::Error::other(Cut::TooLong));
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_cap_refuses_what_would_pass_it_and_keeps_what_came_before() {
        let mut c = Capped::new(Instant::now() + Duration::from_secs(60));
        c.write_all(&vec![b'a'; OUTPUT_LIMIT - 1]).expect("fits");
        let e = c.write_all(b"bc").expect_err("over");
        assert_eq!(Cut::of(&e), Some(Cut::TooBig));
        assert_eq!(c.bytes.len(), OUTPUT_LIMIT - 1);
    }

    #[test]
    fn a_passed_deadline_stops_a_long_transcript() {
        let mut c = Capped::new(Instant::now());
        std::thread::sleep(Duration::from_millis(2));
        c.write_all(b"short").expect("not checked yet");
        let e = c.write_all(&[b'x'; 70_000]).expect_err("late");
        assert_eq!(Cut::of(&e), Some(Cut::TooLong));
        assert_eq!(Cut::of(&io::Error::other("other")), None);
    }
}
