//! Where a trace comes from: a file named on the command line, or bytes
//! already in memory (a request to the web server). Batch and window mode
//! read either the same way, so their outputs agree byte for byte.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use super::{RunError, open_input};

/// A trace to run.
#[derive(Clone, Copy, Debug)]
pub enum Input<'a> {
    File(&'a Path),
    Memory(&'a [u8]),
}

impl<'a> Input<'a> {
    /// Opens the trace for a reading pass.
    pub fn open(self) -> Result<Reader<'a>, RunError> {
        match self {
            Input::File(path) => open_input(path).map(Reader::File),
            Input::Memory(bytes) => Ok(Reader::Memory(bytes)),
        }
    }

    /// The name messages give the trace.
    pub fn name(self) -> String {
        match self {
            Input::File(path) => path.display().to_string(),
            Input::Memory(_) => "the trace".into(),
        }
    }
}

/// A reading pass over an `Input` (an enum, not a `dyn`: the lexer asks
/// for every buffer).
pub enum Reader<'a> {
    File(BufReader<File>),
    Memory(&'a [u8]),
}

impl Read for Reader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::File(r) => r.read(buf),
            Reader::Memory(r) => r.read(buf),
        }
    }
}

impl BufRead for Reader<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Reader::File(r) => r.fill_buf(),
            Reader::Memory(r) => r.fill_buf(),
        }
    }

    fn consume(&mut self, amount: usize) {
        match self {
            Reader::File(r) => r.consume(amount),
            Reader::Memory(r) => r.consume(amount),
        }
    }
}
