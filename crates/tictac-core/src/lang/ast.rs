//! What the parser finds: events and their argument values, borrowing the
//! trace's bytes. Positions are kept as "bytes left after this point".

/// One argument value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// The raw text between the quotes.
    Str(&'a [u8]),
    /// A number: sign, integer digits, fraction digits for a real.
    /// `zeros` leading zeros come before `int`: a long run of them is read
    /// past and held as this count (a type error prints them back).
    Number {
        negative: bool,
        zeros: Zeros,
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

/// A count of zeros up to 2^48, in 6 bytes: a `u64` would make every
/// `Value` larger (and the parser's frames, so nesting would overflow the
/// stack sooner); this one fits beside `negative` in what `Number` had.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Zeros([u16; 3]);

impl Zeros {
    pub(crate) const NONE: Zeros = Zeros([0; 3]);
    const MAX: u64 = (1 << 48) - 1;

    pub(crate) fn get(self) -> u64 {
        let [a, b, c] = self.0.map(u64::from);
        a | b << 16 | c << 32
    }

    /// The count plus up to `n` more, and how many were added (none past
    /// 2^48 - 1: those zeros stay bytes, as before).
    pub(crate) fn add(&mut self, n: u64) -> u64 {
        let added = n.min(Zeros::MAX - self.get());
        let sum = self.get() + added;
        self.0 = [sum as u16, (sum >> 16) as u16, (sum >> 32) as u16];
        added
    }
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
