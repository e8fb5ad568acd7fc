//! A token kept after the text it was read from moves on: an argument of a
//! long event, kept until the event ends; what a soft error quotes. A long
//! one goes to a spool's temporary file as it is read (the stream's buffer
//! holds it then) and comes back only once that buffer has let it go (see
//! `fold::Folded::Paused`), so a token of any length is held once.

use std::io::{self, Read, Write};

use super::fold::FOLD_AT;
use crate::store::{self, Store};

/// A token this long or longer is kept on a temporary file.
pub(crate) const LONG_TOKEN: usize = FOLD_AT;

/// Bytes kept: in memory, or on a temporary file.
pub(crate) enum Held {
    Here(Vec<u8>),
    Away { spool: Box<dyn Store>, len: usize },
}

impl Held {
    /// `parts`, one after the other.
    pub(crate) fn of(parts: &[&[u8]]) -> io::Result<Held> {
        let len = parts.iter().map(|p| p.len()).sum();
        if len < LONG_TOKEN {
            return Ok(Held::Here(parts.concat()));
        }
        // A bound of 0: straight to the file, never copied into memory.
        let mut spool = store::make(0);
        for part in parts {
            spool.write_all(part)?;
        }
        Ok(Held::Away { spool, len })
    }

    /// The bytes, in memory.
    pub(crate) fn into_vec(self) -> io::Result<Vec<u8>> {
        match self {
            Held::Here(bytes) => Ok(bytes),
            Held::Away { spool, len } => {
                let mut bytes = Vec::with_capacity(len);
                spool.reader()?.read_to_end(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_stay_in_memory_long_ones_go_to_a_file_and_come_back_whole() {
        let short = Held::of(&[b"-", b"12", b".", b"5"]).expect("held");
        assert!(matches!(short, Held::Here(_)));
        assert_eq!(short.into_vec().expect("back"), b"-12.5");
        let digits = vec![b'7'; LONG_TOKEN];
        let long = Held::of(&[b"-", &digits]).expect("held");
        let Held::Away { len, .. } = &long else { panic!("a long token stays in memory") };
        assert_eq!(*len, LONG_TOKEN + 1);
        let back = long.into_vec().expect("back");
        assert_eq!(back.len(), LONG_TOKEN + 1);
        assert_eq!(back.capacity(), LONG_TOKEN + 1);
        assert!(back.starts_with(b"-7") && back.ends_with(b"77"));
    }
}
