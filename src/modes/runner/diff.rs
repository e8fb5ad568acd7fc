//! A unified diff of expected against actual output, with line numbers and
//! the invisible made visible: trailing spaces (`·`), tabs (`→`), carriage
//! returns (`␍`), other control bytes (`\xNN`) and a missing final newline.

use std::fmt::Write as _;

use crossterm::style::Stylize;
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The diff as plain text (see `paint` for colours).
pub fn unified(expected: &[u8], actual: &[u8]) -> String {
    let diff = TextDiff::from_lines(expected, actual);
    let mut text = String::from("--- expected\n+++ actual\n");
    for group in diff.grouped_ops(CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        let header =
            format!("@@ -{},{} +{},{} @@", old.start + 1, old.len(), new.start + 1, new.len());
        let _ = writeln!(text, "{header}");
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                let number = |n: Option<usize>| n.map_or(String::new(), |n| (n + 1).to_string());
                let line = format!(
                    "{sign}{:>5} {:>5} | {}",
                    number(change.old_index()),
                    number(change.new_index()),
                    visible(change.value())
                );
                let _ = writeln!(text, "{line}");
                if change.missing_newline() {
                    text.push_str("\\ no newline at end\n");
                }
            }
        }
    }
    text
}

/// A line of the diff in its colour: removed red, added green, hunks cyan.
pub fn paint(line: &str) -> String {
    match line.as_bytes().first() {
        Some(b'-') => line.red().to_string(),
        Some(b'+') => line.green().to_string(),
        Some(b'@') => line.cyan().to_string(),
        _ => line.to_string(),
    }
}

/// One line, without its newline, with invisible characters shown.
pub fn visible(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    let body = text.trim_end_matches(' ');
    let trailing = text.len() - body.len();
    let mut shown = String::with_capacity(text.len() + 8);
    for c in body.chars() {
        match c {
            '\t' => shown.push('→'),
            '\r' => shown.push('␍'),
            c if c.is_control() => {
                let _ = write!(shown, "\\x{:02x}", u32::from(c));
            }
            c => shown.push(c),
        }
    }
    shown.extend(std::iter::repeat_n('·', trailing));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_differences_are_shown() {
        assert_eq!(visible(b"  ok:  x \t\r\n"), "  ok:  x →␍");
        assert_eq!(visible(b"a  \n"), "a··");
        assert_eq!(visible(b"\x00b"), "\\x00b");
    }

    #[test]
    fn a_diff_has_numbers_and_marks_a_missing_newline() {
        let d = unified(b"a\nb\nc\n", b"a\nB \nc");
        assert!(d.starts_with("--- expected\n+++ actual\n@@ -1,3 +1,3 @@\n"), "{d}");
        assert!(d.contains("\n-    2       | b\n"), "{d}");
        assert!(d.contains("\n+          2 | B·\n"), "{d}");
        assert!(d.contains("\n+          3 | c\n\\ no newline at end\n"), "{d}");
        assert!(d.contains("\n     1     1 | a\n"), "{d}");
    }

    #[test]
    fn colours_follow_the_sign() {
        assert!(paint("-a").contains("\x1b[38;5;9m") || paint("-a").contains('\x1b'));
        assert_ne!(paint("-a"), paint("+a"));
        assert_eq!(paint(" a"), " a");
    }
}
