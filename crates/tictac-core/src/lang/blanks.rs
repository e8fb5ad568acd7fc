//! A long run of blanks at the start of a line whose end has not come: the
//! line may still be dropped (only blanks, or a comment) or kept (then every
//! byte counts: the blanks may be inside a string begun on an earlier line),
//! so the bytes are kept, but as runs of one byte: 100 MB of spaces is one
//! run. Runs go on a spool (memory, then a temporary file), so even blanks
//! that alternate cost constant memory.

use std::io::{self, BufRead};

use crate::store::{self, MEMORY_BOUND, Store, read_byte, read_varint, truncated, write_varint};

/// The blanks held so far.
pub(crate) struct Blanks {
    /// Finished runs: the byte, then the count.
    runs: Box<dyn Store>,
    /// The run being extended.
    last: Option<(u8, u64)>,
}

impl Default for Blanks {
    fn default() -> Self {
        Blanks { runs: store::make(MEMORY_BOUND), last: None }
    }
}

impl Blanks {
    /// Adds these blanks after the ones held.
    pub(crate) fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        for run in bytes.chunk_by(|a, b| a == b) {
            let n = run.len() as u64;
            match &mut self.last {
                Some((b, count)) if *b == run[0] => *count += n,
                last => {
                    if let Some((b, count)) = last.replace((run[0], n)) {
                        write_run(&mut *self.runs, b, count)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Hands the blanks back, then `tail`.
    pub(crate) fn replay(mut self, tail: Vec<u8>) -> io::Result<Replay> {
        if let Some((b, count)) = self.last.take() {
            write_run(&mut *self.runs, b, count)?;
        }
        Ok(Replay { runs: self.runs.reader()?, run: (b' ', 0), tail })
    }
}

fn write_run(runs: &mut dyn Store, b: u8, count: u64) -> io::Result<()> {
    io::Write::write_all(runs, &[b])?;
    write_varint(runs, count)
}

/// Held blanks and the bytes after them, handed back in pieces.
pub(crate) struct Replay {
    runs: Box<dyn BufRead + Send>,
    /// The run being handed back: its byte and how many are left.
    run: (u8, u64),
    tail: Vec<u8>,
}

impl Replay {
    /// Appends at most about `most` bytes; true once all is handed back.
    pub(crate) fn next_into(&mut self, out: &mut Vec<u8>, most: usize) -> io::Result<bool> {
        let most = most.max(1);
        let mut room = most;
        while room > 0 {
            if self.run.1 == 0 {
                match read_byte(&mut self.runs)? {
                    Some(b) => self.run = (b, read_varint(&mut self.runs)?),
                    None => break,
                }
                if self.run.1 == 0 {
                    return Err(truncated());
                }
            }
            let n = self.run.1.min(room as u64) as usize;
            out.resize(out.len() + n, self.run.0);
            self.run.1 -= n as u64;
            room -= n;
        }
        if room == 0 && (self.run.1 > 0 || !self.runs.fill_buf()?.is_empty()) {
            return Ok(false);
        }
        out.extend_from_slice(&std::mem::take(&mut self.tail));
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_come_back_byte_for_byte_in_pieces() {
        let mut blanks = Blanks::default();
        let mut want = Vec::new();
        for k in 0..3000usize {
            let piece: Vec<u8> = match k % 4 {
                0 => vec![b' '; k],
                1 => b" \t\r\t".repeat(k % 7),
                2 => vec![b'\t'; 3],
                _ => Vec::new(),
            };
            blanks.push(&piece).expect("spool");
            want.extend_from_slice(&piece);
        }
        want.extend_from_slice(b"x\n");
        let mut replay = blanks.replay(b"x\n".to_vec()).expect("spool");
        let mut got = Vec::new();
        loop {
            let before = got.len();
            let done = replay.next_into(&mut got, 1000).expect("spool");
            assert!(got.len() - before <= 1002);
            if done {
                break;
            }
        }
        assert!(got == want);
    }

    #[test]
    fn a_long_run_of_one_blank_is_one_run() {
        let mut blanks = Blanks::default();
        for _ in 0..1000 {
            blanks.push(&[b' '; 4096]).expect("spool");
        }
        assert!(blanks.runs.is_empty());
        let mut replay = blanks.replay(Vec::new()).expect("spool");
        let mut n = 0;
        let mut out = Vec::new();
        while {
            out.clear();
            let done = replay.next_into(&mut out, 1 << 16).expect("spool");
            n += out.len();
            !done
        } {}
        assert_eq!(n, 4096 * 1000);
    }
}
