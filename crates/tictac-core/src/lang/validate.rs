//! From parsed events to commands: the soft syntax errors (unknown
//! identifiers, buttons that are no 64-bit integer) and the type check
//! against the declared events.

use std::io::{self, Read, Write};

use super::ast::{Arg, Event, Value};
use super::error::{Pos, SyntaxError, SyntaxKind, TYPE_ERROR_HEADER, TraceError};
use super::events::{self, Spec, Type, Typed};
use super::parser::Sink;
use crate::command::Cell;
use crate::command::Command;
use crate::store::{self, MEMORY_BOUND, Store};

/// The type check of one event, its arguments handed over as they are
/// parsed: its command, if they are all of its declared types.
pub(crate) struct Typing<'a> {
    /// The event, while its arguments so far are of their types.
    spec: Option<&'static Spec>,
    /// No event declares more than two parameters (more do not fit).
    typed: [Typed<'a>; 2],
    count: usize,
}

impl<'a> Typing<'a> {
    #[inline(always)]
    pub(crate) fn new(spec: Option<&'static Spec>) -> Self {
        Typing { spec, typed: [Typed::Name(b""); 2], count: 0 }
    }

    /// The next argument, if its parameter is of type `kind`: `typed()`.
    #[inline(always)]
    fn push(&mut self, kind: Type, typed: impl FnOnce() -> Option<Typed<'a>>) {
        let param = self.spec.and_then(|s| s.params.get(self.count)).filter(|p| p.kind == kind);
        match (self.typed.get_mut(self.count), param.and_then(|_| typed())) {
            (Some(slot), Some(typed)) => {
                *slot = typed;
                self.count += 1;
            }
            _ => self.spec = None,
        }
    }

    #[inline(always)]
    pub(crate) fn command(&self) -> Option<Command<'a>> {
        self.spec.filter(|s| s.params.len() == self.count)?.command(&self.typed[..self.count])
    }
}

impl<'a> Sink<'a> for Typing<'a> {
    #[inline(always)]
    fn string(&mut self, text: &'a [u8], _: usize) {
        self.push(Type::Name, || Some(Typed::Name(text)));
    }

    /// A button is a number in 1..9: `Cell::ALL[n - 1]` (`Cell::new` is a call).
    #[inline(always)]
    fn number(&mut self, int: &'a [u8], frac: Option<&'a [u8]>, _: usize) {
        self.push(Type::Button, || {
            let n = usize::try_from(integer(false, int, frac).ok()?).ok()?;
            Cell::ALL.get(n.wrapping_sub(1)).map(|&cell| Typed::Button(cell))
        });
    }

    /// A negative number, a character, a boolean...: of no declared type.
    fn other(&mut self, _: Arg<'a>) {
        self.spec = None;
    }
}

/// Whether the `k`-th argument of `event` is declared a button.
fn is_button(event: &[u8], k: usize) -> bool {
    events::find(event).and_then(|s| s.params.get(k)).map(|p| p.kind) == Some(Type::Button)
}

/// Collects what one trace (or chunk, or line) has wrong, event by event.
/// Type errors are printed after the message's header, in trace order:
/// their lines go on a spool (memory up to a bound, then a temporary file),
/// so a trace with millions of them costs constant memory.
pub struct Checker {
    /// The last unknown identifier or invalid number met: a later one
    /// replaces it, as in the ETF parser.
    soft: Option<SyntaxError>,
    /// Each type error's line, with its newline.
    type_errors: Box<dyn Store>,
    /// The spool could not be written (a full disk): reported by `finish`.
    spool_error: Option<io::Error>,
}

/// Why a trace runs nothing, with type errors still on their spool.
pub enum Rejection {
    Syntax(SyntaxError),
    /// The lines of the type errors, each with its newline.
    Type(Box<dyn Store>),
}

impl Rejection {
    /// Writes the message byte for byte, with its final newline.
    pub fn write_to<W: Write + ?Sized>(self, w: &mut W) -> io::Result<()> {
        match self {
            Rejection::Syntax(e) => writeln!(w, "{e}"),
            Rejection::Type(lines) => {
                w.write_all(TYPE_ERROR_HEADER.as_bytes())?;
                io::copy(&mut lines.reader()?, w).map(drop)
            }
        }
    }

    /// The same, as a `TraceError` (for texts in memory, whose spool
    /// stays in memory and cannot fail).
    pub fn into_trace_error(self) -> TraceError {
        match self {
            Rejection::Syntax(e) => TraceError::Syntax(e),
            Rejection::Type(lines) => {
                let mut text = Vec::new();
                if let Err(e) = lines.reader().and_then(|mut r| r.read_to_end(&mut text)) {
                    return lost(e);
                }
                let text = text.strip_suffix(b"\n").unwrap_or(&text);
                TraceError::Type(text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect())
            }
        }
    }
}

/// Type errors that could not be read back, said as one.
pub(crate) fn lost(e: io::Error) -> TraceError {
    TraceError::Type(vec![format!("(the type errors could not be kept: {e})").into_bytes()])
}

impl Default for Checker {
    fn default() -> Self {
        Checker { soft: None, type_errors: store::make(MEMORY_BOUND), spool_error: None }
    }
}

impl Checker {
    /// Checks one event, giving its command when it is type-correct;
    /// `locate` turns a "bytes left" position into a line and column.
    #[inline(always)]
    pub fn event<'a>(
        &mut self,
        event: &Event<'a>,
        locate: impl Fn(usize) -> Pos,
    ) -> Option<Command<'a>> {
        // A type-correct event holds only strings and a valid button: no
        // identifier, no invalid number. That is nearly every event.
        if event.command.is_some() {
            return event.command;
        }
        self.wrong(event, locate);
        None
    }

    /// What is wrong with an event that has no command.
    #[inline(never)]
    fn wrong(&mut self, event: &Event, locate: impl Fn(usize) -> Pos) {
        let args = event.arguments();
        let locate = |rest| locate(rest + event.rest);
        for (k, arg) in args.iter().enumerate() {
            if is_button(event.name, k)
                && let Some(Err(number)) = button_value(arg)
            {
                self.set_soft(SyntaxKind::InvalidNumber, &number_text(number), locate(arg.rest));
            }
            self.find_identifiers(arg, &locate);
        }
        if self.soft.is_none() {
            let written = type_error_line(event, &args, &mut self.type_errors)
                .and_then(|()| self.type_errors.write_all(b"\n"));
            self.note(written);
        }
    }

    /// A soft error, replacing any earlier one. What it quotes is ASCII.
    fn set_soft(&mut self, kind: fn(String) -> SyntaxKind, text: &[&[u8]], pos: Pos) {
        let text = String::from_utf8(text.concat())
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        self.soft = Some(SyntaxError { kind: kind(text), pos });
    }

    /// Keeps the first failure to keep something, for `finish`.
    fn note(&mut self, done: io::Result<()>) {
        if let Err(e) = done {
            self.spool_error.get_or_insert(e);
        }
    }

    fn find_identifiers(&mut self, arg: &Arg, locate: &impl Fn(usize) -> Pos) {
        match &arg.value {
            Value::Ident(name) => {
                self.set_soft(SyntaxKind::UnknownIdentifier, &[name], locate(arg.rest));
            }
            Value::Tuple(items) | Value::Array(items) => {
                items.iter().for_each(|a| self.find_identifiers(a, locate))
            }
            _ => {}
        }
    }

    /// A checker whose type errors never leave memory (for texts that are
    /// in memory already).
    pub(crate) fn in_memory() -> Self {
        Checker { type_errors: store::make(usize::MAX), ..Checker::default() }
    }

    /// The verdict once every event has been checked (an error when the
    /// type errors could not be kept).
    pub fn finish(self) -> io::Result<Result<(), Rejection>> {
        if let Some(e) = self.spool_error {
            return Err(e);
        }
        Ok(match self.soft {
            Some(soft) => Err(Rejection::Syntax(soft)),
            None if self.type_errors.is_empty() => Ok(()),
            None => Err(Rejection::Type(self.type_errors)),
        })
    }
}

/// A number: whether it is negative, its integer digits, its fraction's.
type Digits<'a> = (bool, &'a [u8], &'a [u8]);

/// A number's text, in pieces (a long number is never copied whole):
/// its sign, integer digits, and point and fraction digits if any.
fn number_text<'a>((negative, int, frac): Digits<'a>) -> [&'a [u8]; 4] {
    let sign: &[u8] = if negative { b"-" } else { b"" };
    let point: &[u8] = if frac.is_empty() { b"" } else { b"." };
    [sign, int, point, frac]
}

/// For a number argument: its value as a 64-bit integer, or, when it is
/// none, its sign, integer digits and fraction digits normalised (no
/// leading zeros in its integer part, no trailing zeros in its fraction,
/// which goes if empty). `None` for any other argument.
fn button_value<'a>(arg: &Arg<'a>) -> Option<Result<i64, Digits<'a>>> {
    match arg.value {
        Value::Number { negative, int, frac } => Some(integer(negative, int, frac)),
        _ => None,
    }
}

/// A number's value as a 64-bit integer, or its digits normalised (see
/// `button_value`).
#[inline(always)]
fn integer<'a>(negative: bool, int: &'a [u8], frac: Option<&'a [u8]>) -> Result<i64, Digits<'a>> {
    // The usual case, one digit.
    if let ([d], None) = (int, frac) {
        let d = i64::from(d.wrapping_sub(b'0'));
        return Ok(if negative { -d } else { d });
    }
    let int = match int.iter().position(|&b| b != b'0') {
        Some(k) => &int[k..],
        None => &b"0"[..],
    };
    let frac = frac.unwrap_or_default();
    let frac = &frac[..frac.iter().rposition(|&b| b != b'0').map_or(0, |k| k + 1)];
    if frac.is_empty() {
        // The usual case, a small integer.
        let magnitude =
            int.iter().try_fold(0i64, |n, &d| n.checked_mul(10)?.checked_sub(i64::from(d - b'0')));
        let value = magnitude.and_then(|m| if negative { Some(m) } else { m.checked_neg() });
        if let Some(v) = value {
            return Ok(v);
        }
    }
    Err((negative, int, frac))
}

/// `play(Ora, 10) does not conform to declaration play(...)` or
/// `Error: unknown event name jump`. The arguments print as written, but
/// `play`'s button as the integer it denotes.
fn type_error_line<W: Write + ?Sized>(event: &Event, args: &[Arg], line: &mut W) -> io::Result<()> {
    let Some(spec) = events::find(event.name) else {
        line.write_all(b"Error: unknown event name ")?;
        return line.write_all(event.name);
    };
    line.write_all(event.name)?;
    write_list(args, b"(", b")", line, |k, arg, line| match button_value(arg) {
        Some(Ok(n)) if is_button(event.name, k) => {
            line.write_all(itoa::Buffer::new().format(n).as_bytes())
        }
        _ => print_arg(arg, line),
    })?;
    line.write_all(b" does not conform to declaration ")?;
    spec.write_declaration(line)
}

/// `items` between `open` and `close`, separated by `, `, each written by
/// `write` (given its index).
fn write_list<W: Write + ?Sized>(
    items: &[Arg],
    open: &[u8],
    close: &[u8],
    out: &mut W,
    mut write: impl FnMut(usize, &Arg, &mut W) -> io::Result<()>,
) -> io::Result<()> {
    out.write_all(open)?;
    for (k, a) in items.iter().enumerate() {
        if k > 0 {
            out.write_all(b", ")?;
        }
        write(k, a, out)?;
    }
    out.write_all(close)
}

/// An argument as written, strings without their quotes (but `""` for an
/// empty one).
fn print_arg<W: Write + ?Sized>(arg: &Arg, out: &mut W) -> io::Result<()> {
    match &arg.value {
        Value::Str(b"") => out.write_all(b"\"\""),
        Value::Str(s) | Value::Char(s) | Value::Bool(s) | Value::Ident(s) => out.write_all(s),
        Value::Number { negative, int, frac } => {
            number_text((*negative, int, frac.unwrap_or_default()))
                .iter()
                .try_for_each(|part| out.write_all(part))
        }
        Value::Tuple(items) => write_list(items, b"[", b"]", out, |_, a, out| print_arg(a, out)),
        Value::Array(items) => write_list(items, b"<<", b">>", out, |_, a, out| print_arg(a, out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parser::next_event;
    use crate::lang::tokens::Extent;

    fn event(text: &str) -> Event<'_> {
        match next_event(text.as_bytes(), Extent::Final) {
            Ok((_, Some(e))) => e,
            other => panic!("{text} should parse: {other:?}"),
        }
    }

    fn verdict(text: &str) -> Result<(), TraceError> {
        let mut c = Checker::default();
        let e = event(text);
        c.event(&e, |rest| Pos { line: 1, column: text.len() - rest + 1 });
        c.finish().expect("spool").map_err(Rejection::into_trace_error)
    }

    fn type_lines(text: &str) -> Vec<String> {
        match verdict(text) {
            Err(TraceError::Type(lines)) => {
                lines.into_iter().map(|l| String::from_utf8(l).expect("utf8")).collect()
            }
            other => panic!("{text}: expected a type error, got {other:?}"),
        }
    }

    fn syntax(text: &str) -> (SyntaxKind, usize) {
        match verdict(text) {
            Err(TraceError::Syntax(e)) => (e.kind, e.pos.column),
            other => panic!("{text}: expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn events_print_with_their_declarations() {
        // A bare event with arguments, one without, an unknown one: see
        // acceptance/course/22_type_errors.
        assert_eq!(
            type_lines("play(\"Ora\", 010)"),
            [
                "play(Ora, 10) does not conform to declaration play(player: NAME = STRING ; press: BUTTON = 1 .. 9)"
            ]
        );
        assert_eq!(
            type_lines("new_game(\"\", 'c', TRUE, -1.50, [1, <<\"x\">>], <<>>)"),
            [
                "new_game(\"\", 'c', TRUE, -1.50, [1, <<x>>], <<>>) does not conform to declaration new_game(player1: NAME = STRING ; player2: NAME = STRING)"
            ]
        );
        assert_eq!(type_lines("play(\"a\", -0)")[0].split(')').next(), Some("play(a, 0"));
    }

    #[test]
    fn buttons_are_normalised_before_conversion() {
        assert_eq!(syntax("play(\"a\", 1.50)"), (SyntaxKind::InvalidNumber("1.5".into()), 11));
        assert_eq!(
            syntax("play(\"a\", - 0099999999999999999999)"),
            (SyntaxKind::InvalidNumber("-99999999999999999999".into()), 13)
        );
        // Only play's second argument is converted.
        assert_eq!(type_lines("play(99999999999999999999, 1)").len(), 1);
    }

    #[test]
    fn the_64_bit_limits_are_exact_and_the_last_soft_error_is_reported() {
        fn value(text: &str) -> Option<Result<i64, Digits<'_>>> {
            button_value(&event(text).arguments()[1])
        }
        assert_eq!(value("play(\"a\", 9223372036854775807)"), Some(Ok(i64::MAX)));
        assert_eq!(value("play(\"a\", -9223372036854775808)"), Some(Ok(i64::MIN)));
        let big = (false, &b"9223372036854775808"[..], &b""[..]);
        assert_eq!(value("play(\"a\", 9223372036854775808)"), Some(Err(big)));
        assert_eq!(value("play(\"a\", -0.000)"), Some(Ok(0)));
        assert_eq!(value("play(\"a\", \"5\")"), None);
        // The last unknown identifier or invalid number is reported.
        assert_eq!(syntax("play(Ora, [Bob])"), (SyntaxKind::UnknownIdentifier("Bob".into()), 12));
        assert_eq!(syntax("play(Ora, 1.5)"), (SyntaxKind::InvalidNumber("1.5".into()), 11));
    }
}
