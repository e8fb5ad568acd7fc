//! Names and paths as messages show them: what could act on a terminal or
//! pass for another name is shown, not sent (one definition, for the command
//! line's messages and every report).

/// `text` with its control characters shown as `\xNN`, so that it cannot
/// start a report line of its own, and its bidirectional controls as
/// `\u{NNNN}`, so that a name cannot turn the rest of its row around on a
/// terminal that reorders text (a right-to-left override read `0/42` as
/// `24/0`).
pub(crate) fn escape_controls(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            shown.push_str(&format!("\\x{:02x}", u32::from(c)));
        } else if is_format_control(c) {
            shown.push_str(&format!("\\u{{{:04x}}}", u32::from(c)));
        } else {
            shown.push(c);
        }
    }
    shown
}

/// The marks, embeddings, overrides and isolates of Unicode's bidirectional
/// algorithm, and the characters that take no room (a zero-width space,
/// word joiner or byte order mark: `ali\u{200b}ce` looked like `alice`).
fn is_format_control(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}
