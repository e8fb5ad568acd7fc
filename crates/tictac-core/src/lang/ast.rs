//! What the parser finds: events and their argument values, borrowing the
//! trace's bytes. Positions are kept as "bytes left after this point".

/// One argument value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// The raw text between the quotes.
    Str(&'a [u8]),
    /// A number: sign, integer digits, fraction digits for a real.
    Number {
        negative: bool,
        int: &'a [u8],
        frac: Option<&'a [u8]>,
    },
    /// The literal with its quotes, e.g. `'c'`.
    Char(&'a [u8]),
    /// `true`/`false` as written.
    Bool(&'a [u8]),
    /// A bare identifier (an error here: nothing is declared under that name).
    Ident(&'a [u8]),
    Tuple(Vec<Arg<'a>>),
    Array(Vec<Arg<'a>>),
}

/// An argument and where it starts (for a number, where its digits start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Arg<'a> {
    pub(crate) value: Value<'a>,
    pub(crate) rest: usize,
}

/// `name` or `name(arg, ...)`, and its command when it is type-correct (the
/// parser types the arguments as it reads them: such an event keeps none,
/// `arguments` reads them again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    pub(crate) name: &'a [u8],
    /// The text of its arguments, after the `(` up to the `)` included;
    /// `None` without parentheses (`undo()` does not parse).
    pub(crate) args: Option<&'a [u8]>,
    /// The bytes left after the event.
    pub(crate) rest: usize,
    pub(crate) command: Option<crate::command::Command<'a>>,
}
