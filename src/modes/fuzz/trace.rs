//! A generated trace: events, each with the layout after it, so the
//! shrinker can remove and simplify them one by one.

/// One event as written (possibly a wrong one), and what follows it:
/// a newline, blanks, a comment, blank lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub text: String,
    pub sep: String,
}

impl Item {
    pub fn new(text: impl Into<String>, sep: impl Into<String>) -> Item {
        Item { text: text.into(), sep: sep.into() }
    }
}

/// A trace as a list of items; its text is their concatenation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    pub items: Vec<Item>,
}

impl Trace {
    pub fn text(&self) -> Vec<u8> {
        let mut text = Vec::new();
        for item in &self.items {
            text.extend_from_slice(item.text.as_bytes());
            text.extend_from_slice(item.sep.as_bytes());
        }
        text
    }

    pub fn len(&self) -> usize {
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
