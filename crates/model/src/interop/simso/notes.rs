//! The `unmapped` lines of an import, gathered by kind: one line per kind of thing that did
//! not map (`task attribute `mix` …: T1=0.3, T2=0.7`), naming the tasks or values it applies
//! to (at most [`MAX_ITEMS`] of them, then how many more), in the order the kinds were first
//! met. O(1) amortized per entry (a linear search over the few kinds).

/// Items a line names before it says how many more there are.
pub(crate) const MAX_ITEMS: usize = 8;

#[derive(Debug, Default)]
pub(crate) struct Notes {
    kinds: Vec<(String, Vec<String>, usize)>,
}

impl Notes {
    /// A line of its own (no items).
    pub(crate) fn line(&mut self, text: impl Into<String>) {
        self.kinds.push((text.into(), Vec::new(), 0));
    }

    /// An item (a task, a value) of the line `kind`.
    pub(crate) fn item(&mut self, kind: &str, item: impl Into<String>) {
        let pos = match self.kinds.iter().position(|(k, ..)| k == kind) {
            Some(p) => p,
            None => {
                self.kinds.push((kind.to_string(), Vec::new(), 0));
                self.kinds.len() - 1
            }
        };
        if let Some((_, items, total)) = self.kinds.get_mut(pos) {
            *total += 1;
            if items.len() < MAX_ITEMS {
                items.push(item.into());
            }
        }
    }

    /// The lines.
    pub(crate) fn into_lines(self) -> Vec<String> {
        self.kinds
            .into_iter()
            .map(|(kind, items, total)| {
                if total == 0 {
                    return kind;
                }
                let more = total - items.len();
                let tail = if more > 0 {
                    format!(", … and {more} more")
                } else {
                    String::new()
                };
                format!("{kind}: {}{tail}", items.join(", "))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_gather_their_items_in_order() {
        let mut n = Notes::default();
        n.item("b", "1");
        n.line("a line");
        n.item("b", "2");
        for k in 0..10 {
            n.item("c", k.to_string());
        }
        assert_eq!(
            n.into_lines(),
            [
                "b: 1, 2",
                "a line",
                "c: 0, 1, 2, 3, 4, 5, 6, 7, … and 2 more"
            ]
        );
    }
}
