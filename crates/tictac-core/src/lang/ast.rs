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

/// An event's arguments: most events have two, kept without a heap
/// allocation (a trace has millions of events).
pub(crate) type Args<'a> = smallvec::SmallVec<[Arg<'a>; 2]>;

/// `name` or `name(arg, ...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    pub(crate) name: &'a [u8],
    /// `None` without parentheses; never an empty list (`undo()` does not parse).
    pub(crate) args: Option<Args<'a>>,
}
