//! What a Windows exit code that is an NTSTATUS error means: a program that
//! crashed there (an access violation, a stack overflow) ends with the
//! exception's code as its exit code, 0xC0000005 rather than a signal. The
//! mapping is pure, compiled and tested on every system; only Windows
//! (`windows::exception_of`) hands it codes.

use std::fmt;

/// An NTSTATUS error code a program ended with, and its name when known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exception {
    pub code: u32,
    pub name: Option<&'static str>,
}

/// The codes students' programs end with most, in words.
const NAMES: [(u32, &str); 11] = [
    (0xC000_0005, "access violation"),
    (0xC000_00FD, "stack overflow"),
    (0xC000_0409, "stack buffer overrun or fail-fast abort"),
    (0xC000_013A, "ended by Ctrl-C"),
    (0xC000_0094, "integer division by zero"),
    (0xC000_0095, "integer overflow"),
    (0xC000_001D, "illegal instruction"),
    (0xC000_0096, "privileged instruction"),
    (0xC000_0374, "heap corruption"),
    (0xC000_0135, "a DLL it needs was not found"),
    (0xC000_0142, "a DLL failed to initialise"),
];

/// The exception an exit code stands for: an NTSTATUS whose severity is
/// "error" (its top two bits set); None for an ordinary exit code.
pub fn of_code(code: i32) -> Option<Exception> {
    // Windows' exit codes are DWORDs: the same bits, whatever their sign.
    let code = code as u32;
    (code >= 0xC000_0000).then(|| Exception {
        code,
        name: NAMES.iter().find(|(known, _)| *known == code).map(|(_, name)| *name),
    })
}

impl fmt::Display for Exception {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "exception 0x{:08X}", self.code)?;
        match self.name {
            Some(name) => write!(f, ", {name}"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_codes_are_named() {
        let shown = |code: u32| of_code(code as i32).map(|e| e.to_string());
        assert_eq!(shown(0xC000_0005).as_deref(), Some("exception 0xC0000005, access violation"));
        assert_eq!(shown(0xC000_00FD).as_deref(), Some("exception 0xC00000FD, stack overflow"));
        let overrun = "exception 0xC0000409, stack buffer overrun or fail-fast abort";
        assert_eq!(shown(0xC000_0409).as_deref(), Some(overrun));
        assert_eq!(shown(0xC000_013A).as_deref(), Some("exception 0xC000013A, ended by Ctrl-C"));
        // Unknown errors by their code; ordinary exit codes are none.
        assert_eq!(shown(0xC000_0017).as_deref(), Some("exception 0xC0000017"));
        for code in [0, 1, 3, 255, 0x8000_0003, 0x4000_0000, 0xBFFF_FFFF] {
            assert_eq!(shown(code), None, "{code:#x}");
        }
        // The signed form Windows' exit status gives is the same code.
        assert_eq!(of_code(-1_073_741_819).map(|e| e.code), Some(0xC000_0005));
    }
}
