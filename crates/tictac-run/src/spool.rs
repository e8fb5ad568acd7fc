//! What a run keeps between reading its input and printing (the commands of
//! a trace, the outcome of each window line): a buffered writer over the
//! store the program gave the core (`tictac_core::store`: tictac's spool,
//! memory up to a bound, then a temporary file; in WebAssembly, memory
//! still). Writes, nearly all of a byte or three, are a copy into the
//! buffer, not a call through `dyn`.

use std::io::{self, BufRead, BufReader, BufWriter, Write};

use crate::store::{self, MEMORY_BOUND, Store};

/// The buffer between the writer and the store, and between the store and
/// the reader: a command's byte or two is a copy, not a call through `dyn`.
const BLOCK: usize = 64 * 1024;

pub(crate) struct Spool(BufWriter<Box<dyn Store>>);

impl Default for Spool {
    fn default() -> Self {
        Spool::with_block(BLOCK)
    }
}

impl Spool {
    /// A spool whose buffers hold `block` bytes (tests use small ones, to
    /// cross their edges).
    pub(crate) fn with_block(block: usize) -> Self {
        Spool(BufWriter::with_capacity(block, store::make(MEMORY_BOUND)))
    }

    /// How many bytes were written.
    pub(crate) fn len(&self) -> u64 {
        self.0.get_ref().len() + self.0.buffer().len() as u64
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets everything written after the first `len` bytes, so a writer
    /// can take back what turned out not to be wanted (a window line found
    /// wrong after its first commands). Cheap while the store is in memory,
    /// which is nearly always.
    pub(crate) fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.0.flush()?;
        self.0.get_mut().truncate(len)
    }

    /// Everything written, from the start.
    pub(crate) fn reader(self) -> io::Result<SpoolReader> {
        let block = self.0.capacity();
        let store = self.0.into_inner().map_err(io::IntoInnerError::into_error)?;
        Ok(BufReader::with_capacity(block, store.reader()?))
    }
}

impl Write for Spool {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.0.write(data)
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        self.0.write_all(data)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Writes `n` in 7-bit groups, low first (LEB128).
pub(crate) fn write_varint(out: &mut (impl Write + ?Sized), mut n: u64) -> io::Result<()> {
    let mut bytes = [0u8; 10];
    let mut k = 0;
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            bytes[k] = low;
            return out.write_all(&bytes[..=k]);
        }
        bytes[k] = low | 0x80;
        k += 1;
    }
}

/// Reads what `write_varint` wrote.
pub(crate) fn read_varint(input: &mut (impl BufRead + ?Sized)) -> io::Result<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let b = read_byte(input)?.ok_or_else(truncated)?;
        n |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(n);
        }
    }
    Err(truncated())
}

/// The next byte, or `None` at the end.
#[inline]
pub(crate) fn read_byte(input: &mut (impl BufRead + ?Sized)) -> io::Result<Option<u8>> {
    let b = input.fill_buf()?.first().copied();
    if b.is_some() {
        input.consume(1);
    }
    Ok(b)
}

/// A store that ends in the middle of a record: only a failed write does that.
pub fn truncated() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the spool ends mid-record")
}

/// A spool read back, from its store.
pub(crate) type SpoolReader = BufReader<Box<dyn BufRead + Send>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn varints_round_trip() {
        let values = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut bytes = Vec::new();
        values.iter().for_each(|&v| write_varint(&mut bytes, v).expect("vec"));
        let mut input = &bytes[..];
        for v in values {
            assert_eq!(read_varint(&mut input).expect("read"), v);
        }
        assert!(read_varint(&mut &[0x80u8][..]).is_err());
    }

    #[test]
    fn a_spool_reads_back_what_was_kept_after_truncations_across_its_buffer() {
        for block in [1, 10, 5000, 1 << 20] {
            let mut spool = Spool::with_block(block);
            let mut expected = Vec::new();
            // Past a block of 64 KiB, taken back into the store now and then.
            for k in 0..40_000u32 {
                let piece = k.to_string();
                spool.write_all(piece.as_bytes()).expect("write");
                expected.extend_from_slice(piece.as_bytes());
                let len = match k % 9_000 {
                    8_999 => expected.len() / 2,
                    n if n % 7 == 3 => expected.len() - piece.len(),
                    _ => continue,
                };
                spool.truncate(len as u64).expect("truncate");
                expected.truncate(len);
            }
            assert_eq!(spool.len(), expected.len() as u64);
            let mut back = Vec::new();
            spool.reader().expect("reader").read_to_end(&mut back).expect("read");
            assert!(back == expected, "block {block}");
        }
    }
}
