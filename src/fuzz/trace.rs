//! A generated trace: events, each with the layout after it, so the
//! shrinker can remove and simplify them one by one.

/// One event as written (possibly a wrong one), and what follows it:
/// a newline, blanks, a comment, blank lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) text: String,
    pub(crate) sep: String,
}

impl Item {
    pub(crate) fn new(text: impl Into<String>, sep: impl Into<String>) -> Item {
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
            text.extend_from_slice(item.text.as_bytes());
            text.extend_from_slice(item.sep.as_bytes());
        }
        text
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }
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
}
