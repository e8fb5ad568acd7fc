//! The trace language of the ETF oracle: kept lines, tokens, the nom
//! grammar, validation and the error texts. It knows nothing of the game.

pub(crate) mod ast;
pub(crate) mod error;
pub mod events;
pub mod parser;
pub mod source;
pub mod stream;
pub mod tokens;
pub(crate) mod validate;

pub(crate) use error::SyntaxKind;
pub use error::{TooLong, TraceError};
pub(crate) use stream::{EventStream, Stop};
pub use stream::{Locator, MAX_EVENT};
pub use tokens::{Unwritable, writable};
pub use validate::Checker;
pub use validate::Rejection;

use std::io;

use crate::command::Command;
use ast::Event;
use source::LineSource;

/// Validates a complete text in memory (a shell line) and, if it is all
/// well-formed and type-correct, gives its commands in order.
pub fn check(text: &[u8]) -> Result<Vec<Command<'_>>, TraceError> {
    let events = stream::parse_text(text)?;
    let locator = Locator::new(text);
    let mut checker = Checker::in_memory();
    for e in &events {
        checker.event(e, |rest| locator.pos(rest));
    }
    match checker.finish() {
        Ok(Ok(())) => Ok(events.iter().filter_map(|e| e.command).collect()),
        Ok(Err(rejection)) => Err(rejection.into_trace_error()),
        Err(e) => Err(validate::lost(e)),
    }
}

/// Why `validate` could not give a verdict.
#[derive(Debug)]
pub enum Failure {
    /// Reading the input failed, or it holds an event longer than
    /// `MAX_EVENT` (then the error's kind is `InvalidData` and it holds a
    /// `TooLong`, whose text says so: the trace is refused as a file that
    /// cannot be read is, with exit status 2).
    Read(io::Error),
    /// Keeping commands or type errors failed (a full disk).
    Keep(io::Error),
}

/// Validates the events of the kept lines `lines` gives (a trace, a chunk,
/// a window line) as they are read, in bounded memory, handing each
/// command to `keep` as long as nothing is wrong (once something is,
/// nothing will run). Reading stops at a parse error, or at an event
/// longer than `MAX_EVENT`.
pub fn validate<S: LineSource>(
    lines: S,
    keep: impl Keep,
) -> Result<Result<(), Rejection>, Failure> {
    validate_reusing(lines, &mut Vec::new(), keep)
}

/// `validate` reading through `buf`, a buffer that the caller keeps from
/// one text to the next (window lines: nothing allocated per line).
pub fn validate_reusing<S: LineSource>(
    lines: S,
    buf: &mut Vec<u8>,
    keep: impl Keep,
) -> Result<Result<(), Rejection>, Failure> {
    let mut stream = EventStream::reusing(lines, std::mem::take(buf));
    let mut keeping = Keeping(Checker::default(), true, keep);
    let walked = stream.for_each(&mut keeping);
    *buf = stream.into_buffer();
    match walked {
        Ok(()) => keeping.0.finish().map_err(Failure::Keep),
        Err(Stop::Syntax(e)) => Ok(Err(Rejection::Syntax(e))),
        Err(Stop::TooLong(e)) => Err(Failure::Read(io::Error::new(io::ErrorKind::InvalidData, e))),
        Err(Stop::Read(e)) => Err(Failure::Read(e)),
        Err(Stop::Visit(e)) => Err(Failure::Keep(e)),
    }
}

/// What `validate` hands each command to: a closure, or an inline `keep`.
pub trait Keep {
    fn keep(&mut self, command: &Command) -> io::Result<()>;
}
impl<F: FnMut(&Command) -> io::Result<()>> Keep for F {
    fn keep(&mut self, command: &Command) -> io::Result<()> {
        self(command)
    }
}

/// `validate`'s visitor: the checker, whether all is well yet, the keeper.
struct Keeping<K>(Checker, bool, K);
impl<K: Keep> stream::Visit<io::Error> for &mut Keeping<K> {
    #[inline(always)]
    fn visit(&mut self, event: &Event<'_>, locator: &Locator<'_>) -> io::Result<()> {
        match self.0.event(event, |rest| locator.pos(rest)) {
            Some(command) if self.1 => self.2.keep(&command),
            command => {
                self.1 &= command.is_some();
                Ok(())
            }
        }
    }
}

/// The first name in these commands that a trace file cannot hold as it
/// stands (see `writable`), and why.
pub fn unwritable_name<'a>(commands: &[Command<'a>]) -> Option<(&'a [u8], Unwritable)> {
    commands.iter().flat_map(Command::names).find_map(|n| writable(n).err().map(|why| (n, why)))
}
