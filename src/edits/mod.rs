//! The edit set: byte-exact insertions and replacements on the original
//! text. Bytes outside the edits are copied unchanged, so encodings, CRLF,
//! tabs and a BOM survive.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    /// Empty for an insertion.
    pub range: Span,
    pub text: String,
    /// Among edits at the same offset, lower goes first: closing code of an
    /// inner construct before that of an outer one.
    pub order: i64,
}

#[derive(Clone, Debug, Default)]
pub struct EditSet {
    edits: Vec<Edit>,
}

impl EditSet {
    pub fn insert(&mut self, at: usize, text: impl Into<String>, order: i64) {
        self.edits.push(Edit {
            range: at..at,
            text: text.into(),
            order,
        });
    }

    pub fn replace(&mut self, range: Span, text: impl Into<String>, order: i64) {
        self.edits.push(Edit {
            range,
            text: text.into(),
            order,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Apply to `original`. Replacements never overlap: the front end hands
    /// out disjoint directive ranges, so an overlap is a bug, not input.
    pub fn apply(mut self, original: &[u8]) -> Vec<u8> {
        self.edits
            .sort_by_key(|e| (e.range.start, !e.range.is_empty(), e.order));
        let extra: usize = self.edits.iter().map(|e| e.text.len()).sum();
        let mut out = Vec::with_capacity(original.len() + extra);
        let mut copied = 0;
        for edit in &self.edits {
            assert!(
                edit.range.start >= copied,
                "overlapping edits at byte {}",
                edit.range.start
            );
            out.extend_from_slice(&original[copied..edit.range.start]);
            out.extend_from_slice(edit.text.as_bytes());
            copied = edit.range.end;
        }
        out.extend_from_slice(&original[copied..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_offset_then_order() {
        let mut set = EditSet::default();
        set.insert(5, "[outer]", 2);
        set.insert(5, "[inner]", 1);
        set.replace(0..1, "H", 0);
        assert_eq!(set.apply(b"hello world"), b"Hello[inner][outer] world");
    }

    #[test]
    #[should_panic(expected = "overlapping")]
    fn overlapping_replacements_are_a_bug() {
        let mut set = EditSet::default();
        set.replace(0..4, "a", 0);
        set.replace(2..6, "b", 0);
        set.apply(b"0123456789");
    }
}
