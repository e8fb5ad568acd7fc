//! A generated trace: events, each with the layout after it, so the
//! shrinker can remove and simplify them one by one.

/// One event as written (possibly a wrong one), and what follows it:
/// a newline, blanks, a comment, blank lines. Bytes, not text: a trace
/// may hold bytes that are not UTF-8, kept as they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) text: Vec<u8>,
    pub(crate) sep: Vec<u8>,
}

impl Item {
    pub(crate) fn new(text: impl Into<Vec<u8>>, sep: impl Into<Vec<u8>>) -> Item {
        Item { text: text.into(), sep: sep.into() }
    }
}

/// A trace as a list of items; its text is their concatenation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trace {
    pub(crate) items: Vec<Item>,
}

impl Trace {
    pub(crate) fn text(&self) -> Vec<u8> {
        let mut text = Vec::new();
        for item in &self.items {
            text.extend_from_slice(&item.text);
            text.extend_from_slice(&item.sep);
        }
        text
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }
}

/// `text` with its first `count` occurrences of `from` (not empty)
/// replaced by `to`.
pub(crate) fn replaced(text: &[u8], from: &[u8], to: &[u8], count: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    for _ in 0..count {
        let Some(at) = memchr::memmem::find(rest, from) else { break };
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_each_item_then_its_layout() {
        let t = Trace { items: vec![Item::new("undo", " "), Item::new("redo", "\n-- c\n")] };
        assert_eq!(t.text(), b"undo redo\n-- c\n");
        assert_eq!(t.len(), 2);
    }

    #[test]
    fn bytes_are_replaced_as_they_are() {
        assert_eq!(replaced(b"\"A\xff\",\"A\xff\"", b"A\xff", b"B", usize::MAX), b"\"B\",\"B\"");
        assert_eq!(replaced(b"aXaXa", b"a", b"\x80", 2), b"\x80X\x80Xa");
        assert_eq!(replaced(b"abc", b"z", b"y", 1), b"abc");
    }
}
