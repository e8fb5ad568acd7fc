//! The command line, as ETF executables read it: the first argument is the
//! mode, then a fixed number of arguments for that mode.

use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

/// A mistake in the invocation; printed with a `Run '... -help'` line.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsageError {
    #[error("Error: a mode is not specified")]
    NoMode,
    #[error("Error: '{0}' is not a valid mode")]
    BadMode(String),
    #[error("Error: wrong number of arguments for the '{0}' mode")]
    ArgumentCount(String),
    #[error("Error: the start of window is not a valid integer")]
    WindowStart,
    #[error("Error: the end of window is neither a valid integer nor '_'")]
    WindowEnd,
    #[error("Error: a window [start, end) should be such that start <= end")]
    WindowOrder,
    #[error(
        "Error: when the start of a window is non-positive, its end must be a non-positive number"
    )]
    WindowSign,
}

/// The end of a window: a line number (relative to the end when <= 0) or
/// `_`, past the last line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowEnd {
    Line(i32),
    Unbounded,
}

/// `[start, end)` as given, before it is resolved against the trace length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub start: i32,
    pub end: WindowEnd,
}

impl Window {
    /// The last line alone, with the state before it (`-l`).
    pub const LAST: Window = Window {
        start: -1,
        end: WindowEnd::Line(0),
    };

    /// The lines to show, `first..end` (1-based), for a trace of `k` kept
    /// lines; `None` when nothing at all is printed.
    pub fn resolve(self, k: usize) -> Option<(usize, usize)> {
        let k = i64::try_from(k).unwrap_or(i64::MAX);
        let relative = |n: i32| {
            if n <= 0 {
                k + i64::from(n) + 1
            } else {
                i64::from(n)
            }
        };
        let first = relative(self.start).max(1);
        let end = match self.end {
            WindowEnd::Unbounded => k + 1,
            WindowEnd::Line(n) => relative(n),
        };
        let final_state_only = first == end && first == k + 1;
        if k == 0 || (first > k && !final_state_only) {
            return None;
        }
        // Past the last line nothing runs; an end before the start is empty.
        let end = end.clamp(first, k + 1);
        Some((usize::try_from(first).ok()?, usize::try_from(end).ok()?))
    }
}

/// What the program was asked to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Invocation {
    Interactive,
    Batch {
        input: PathBuf,
        output: Option<PathBuf>,
    },
    Window {
        window: Window,
        input: PathBuf,
        output: Option<PathBuf>,
    },
    Help,
    Version,
}

/// Reads the arguments after the program name.
pub fn parse(args: &[OsString]) -> Result<Invocation, UsageError> {
    let Some((mode, rest)) = args.split_first() else {
        return Err(UsageError::NoMode);
    };
    let mode_text = mode.to_string_lossy().into_owned();
    let count_error = || UsageError::ArgumentCount(mode_text.clone());
    let path = |k: usize| PathBuf::from(&rest[k]);
    let optional = |k: usize| rest.get(k).map(PathBuf::from);
    match (mode_text.as_str(), rest.len()) {
        ("-i", 0) => Ok(Invocation::Interactive),
        ("-help", 0) => Ok(Invocation::Help),
        ("-version", 0) => Ok(Invocation::Version),
        ("-b", 1 | 2) => Ok(Invocation::Batch {
            input: path(0),
            output: optional(1),
        }),
        ("-l", 1 | 2) => Ok(Invocation::Window {
            window: Window::LAST,
            input: path(0),
            output: optional(1),
        }),
        ("-w", 3 | 4) => {
            let window = parse_window(&rest[0], &rest[1])?;
            Ok(Invocation::Window {
                window,
                input: path(2),
                output: optional(3),
            })
        }
        ("-i" | "-help" | "-version" | "-b" | "-l" | "-w", _) => Err(count_error()),
        _ => Err(UsageError::BadMode(mode_text)),
    }
}

fn parse_window(start: &OsStr, end: &OsStr) -> Result<Window, UsageError> {
    let start = integer(start).ok_or(UsageError::WindowStart)?;
    let end = match end.to_str().map(str::trim) {
        Some("_") => WindowEnd::Unbounded,
        _ => WindowEnd::Line(integer(end).ok_or(UsageError::WindowEnd)?),
    };
    if let WindowEnd::Line(n) = end {
        if start > n {
            return Err(UsageError::WindowOrder);
        }
        if start <= 0 && n > 0 {
            return Err(UsageError::WindowSign);
        }
    }
    Ok(Window { start, end })
}

/// A 32-bit integer, with an optional sign and surrounding spaces.
fn integer(text: &OsStr) -> Option<i32> {
    let t = text.to_str()?.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.strip_prefix('+').unwrap_or(t).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Invocation, UsageError> {
        parse(&args.iter().map(OsString::from).collect::<Vec<_>>())
    }

    fn window(m: &str, n: &str) -> Result<Window, UsageError> {
        parse_window(OsStr::new(m), OsStr::new(n))
    }

    #[test]
    fn modes_and_their_argument_counts() {
        assert_eq!(p(&[]), Err(UsageError::NoMode));
        assert_eq!(p(&["-x"]), Err(UsageError::BadMode("-x".into())));
        assert_eq!(p(&["-b"]), Err(UsageError::ArgumentCount("-b".into())));
        assert_eq!(p(&["-i", "x"]), Err(UsageError::ArgumentCount("-i".into())));
        assert_eq!(
            p(&["-w", "1", "2"]),
            Err(UsageError::ArgumentCount("-w".into()))
        );
        assert_eq!(p(&["-i"]), Ok(Invocation::Interactive));
        assert_eq!(
            p(&["-l", "t"]),
            Ok(Invocation::Window {
                window: Window::LAST,
                input: "t".into(),
                output: None
            })
        );
    }

    #[test]
    fn window_checks_come_in_order() {
        assert_eq!(window("x", "y"), Err(UsageError::WindowStart));
        assert_eq!(window("1", "y"), Err(UsageError::WindowEnd));
        assert_eq!(window("3", "2"), Err(UsageError::WindowOrder));
        assert_eq!(window("0", "2"), Err(UsageError::WindowSign));
        assert_eq!(window("2147483648", "_"), Err(UsageError::WindowStart));
        assert_eq!(
            window(" +2 ", "_"),
            Ok(Window {
                start: 2,
                end: WindowEnd::Unbounded
            })
        );
        assert_eq!(
            window("-3", "-1"),
            Ok(Window {
                start: -3,
                end: WindowEnd::Line(-1)
            })
        );
        assert_eq!(window("1", "+-1"), Err(UsageError::WindowEnd));
    }

    #[test]
    fn windows_resolve_against_the_trace_length() {
        let w = |start, end| Window {
            start,
            end: WindowEnd::Line(end),
        };
        assert_eq!(Window::LAST.resolve(5), Some((5, 6)));
        assert_eq!(Window::LAST.resolve(0), None);
        assert_eq!(w(2, 4).resolve(5), Some((2, 4)));
        assert_eq!(w(2, 40).resolve(5), Some((2, 6)));
        assert_eq!(w(6, 6).resolve(5), Some((6, 6)));
        assert_eq!(w(6, 7).resolve(5), None);
        assert_eq!(w(-100, -50).resolve(5), Some((1, 1)));
        assert_eq!(
            Window {
                start: 1,
                end: WindowEnd::Unbounded
            }
            .resolve(3),
            Some((1, 4))
        );
    }
}
