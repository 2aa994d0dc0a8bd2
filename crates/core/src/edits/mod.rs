//! The edit set: byte-exact insertions and replacements on the original
//! text, each knowing what it came from. Bytes outside the edits are copied
//! unchanged, so encodings, CRLF, tabs and a BOM survive.

use crate::source::Span;

/// What an edit was made for, so that a preview can show what each
/// directive becomes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Origin {
    /// A directive of the model (index into `Model::sites`) and, when it is
    /// measured, its region (index into `Plan::regions`).
    Site { site: usize, region: Option<usize> },
    /// A function measured as a region (index into `Plan::regions`): its
    /// opening and closing.
    Function { region: usize },
    /// A jump closing the user regions it leaves, innermost first.
    Exit { regions: Vec<usize> },
    /// A call of an OpenMP lock routine, renamed to its wrapper.
    LockCall,
    /// Declarations a program unit needs (index into `Model::units`).
    Unit { unit: usize },
    /// Code for the whole file: prototypes, handles, registration.
    File,
}

impl Origin {
    /// The region this edit belongs to, if it belongs to one.
    pub fn region(&self) -> Option<usize> {
        match self {
            Origin::Site { region, .. } => *region,
            Origin::Function { region } => Some(*region),
            Origin::Exit { regions } => regions.first().copied(),
            _ => None,
        }
    }
}

/// What an edit puts in place of its range.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(untagged)]
pub enum Text {
    Made(String),
    /// Made by the emitter that made the edit when the output is written,
    /// the number being the emitter's own: a large file's inserted text is
    /// then never held whole ([`crate::output::Config::texts_when_written`]).
    Later(u32),
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Edit {
    /// Empty for an insertion.
    pub range: Span,
    pub text: Text,
    /// Among edits at the same offset, lower goes first: closing code of an
    /// inner construct before that of an outer one.
    pub order: i64,
    pub origin: Origin,
}

impl Edit {
    pub fn is_insertion(&self) -> bool {
        self.range.is_empty()
    }

    /// The text of an edit made with its text.
    ///
    /// # Panics
    /// For a text made only when the output is written: whoever reads
    /// the edits' texts instruments without
    /// [`crate::output::Config::texts_when_written`].
    pub fn text(&self) -> &str {
        match &self.text {
            Text::Made(text) => text,
            Text::Later(_) => panic!("an edit's text is read that is made only when written"),
        }
    }
}

/// Edits being collected, in any order.
#[derive(Clone, Debug, Default)]
pub struct EditBuilder {
    edits: Vec<Edit>,
}

impl EditBuilder {
    /// A builder with room for `edits` edits: a file dense with directives
    /// collects tens of thousands, and a list grown by doubling holds its
    /// old and new storage at once.
    pub fn with_capacity(edits: usize) -> EditBuilder {
        EditBuilder {
            edits: Vec::with_capacity(edits),
        }
    }

    pub fn insert(&mut self, at: usize, text: impl Into<String>, order: i64, origin: Origin) {
        self.replace_with(at..at, Text::Made(text.into()), order, origin);
    }

    pub fn replace(&mut self, range: Span, text: impl Into<String>, order: i64, origin: Origin) {
        self.replace_with(range, Text::Made(text.into()), order, origin);
    }

    /// An insertion ([`EditBuilder::insert`]) or a replacement, whatever
    /// its text.
    pub fn replace_with(&mut self, range: Span, text: Text, order: i64, origin: Origin) {
        self.edits.push(Edit {
            range,
            text,
            order,
            origin,
        });
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The edits in the order they apply: by offset, insertions before a
    /// replacement at the same offset, then by `order`, then as collected.
    ///
    /// Replacements never overlap: the front end hands out disjoint
    /// directive ranges, so an overlap is a bug, not input, and panics here,
    /// where the pipeline turns a panic into an internal error of the file.
    pub fn build(mut self) -> EditSet {
        // A stable sort of the edits themselves would borrow a buffer as
        // large as the list; their positions are sorted instead, the
        // position breaking ties, and the edits moved along the cycles
        // of that permutation.
        let edits = &mut self.edits;
        let mut from: Vec<u32> =
            (0..u32::try_from(edits.len()).expect("fewer than 2^32 edits")).collect();
        from.sort_unstable_by_key(|&i| {
            let e = &edits[i as usize];
            (e.range.start, !e.range.is_empty(), e.order, i)
        });
        for start in 0..from.len() {
            let mut at = start;
            loop {
                let source = from[at] as usize;
                from[at] = at as u32;
                if source == start {
                    break;
                }
                edits.swap(at, source);
                at = source;
            }
        }
        let mut copied = 0;
        for edit in &self.edits {
            assert!(
                edit.range.start >= copied,
                "overlapping edits at byte {}",
                edit.range.start
            );
            copied = edit.range.end;
        }
        EditSet { edits: self.edits }
    }
}

/// Edits in the order they apply.
#[derive(Clone, Debug, Default)]
pub struct EditSet {
    edits: Vec<Edit>,
}

impl EditSet {
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// The edits in the order they apply.
    pub fn iter(&self) -> std::slice::Iter<'_, Edit> {
        self.edits.iter()
    }

    /// Apply to `original`; every text is made already.
    pub fn apply(&self, original: &[u8]) -> Vec<u8> {
        self.apply_making(original, made_before)
    }

    /// Apply to `original`, `later` making each text left to be made.
    pub fn apply_making(&self, original: &[u8], later: impl FnMut(u32, &mut String)) -> Vec<u8> {
        let extra: usize = (self.edits.iter())
            .map(|e| match &e.text {
                Text::Made(text) => text.len(),
                Text::Later(_) => 0,
            })
            .sum();
        let mut out = Vec::with_capacity(original.len() + extra);
        self.write_telling(original, &mut out, later, |_| {})
            .expect("writing to memory cannot fail");
        out
    }

    /// Apply to `original`, writing the result to `to` piece by piece: a
    /// large output never has to be held whole. Every text is made
    /// already.
    pub fn write<W: std::io::Write + ?Sized>(
        &self,
        original: &[u8],
        to: &mut W,
    ) -> std::io::Result<()> {
        self.write_telling(original, to, made_before, |_| {})
    }

    /// [`EditSet::write`], `later` making each text left to be made, and
    /// `written` told how much of `original` has been written so far,
    /// each time that grows.
    pub fn write_telling<W: std::io::Write + ?Sized>(
        &self,
        original: &[u8],
        to: &mut W,
        mut later: impl FnMut(u32, &mut String),
        mut written: impl FnMut(usize),
    ) -> std::io::Result<()> {
        let mut copied = 0;
        let mut made = String::new();
        for edit in &self.edits {
            to.write_all(&original[copied..edit.range.start])?;
            written(edit.range.start);
            match &edit.text {
                Text::Made(text) => to.write_all(text.as_bytes())?,
                Text::Later(key) => {
                    made.clear();
                    later(*key, &mut made);
                    to.write_all(made.as_bytes())?;
                }
            }
            copied = edit.range.end;
        }
        to.write_all(&original[copied..])?;
        written(original.len());
        Ok(())
    }
}

/// What makes the texts of a set that holds none left to be made.
fn made_before(_: u32, _: &mut String) {
    panic!("an edit's text is left to be made, and nothing is given to make it");
}

impl<'a> IntoIterator for &'a EditSet {
    type Item = &'a Edit;
    type IntoIter = std::slice::Iter<'a, Edit>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_offset_then_order() {
        let mut set = EditBuilder::default();
        set.insert(5, "[outer]", 2, Origin::File);
        set.insert(5, "[inner]", 1, Origin::File);
        set.replace(0..1, "H", 0, Origin::LockCall);
        let set = set.build();
        assert_eq!(set.apply(b"hello world"), b"Hello[inner][outer] world");
        let origins: Vec<&Origin> = set.iter().map(|e| &e.origin).collect();
        assert_eq!(origins, [&Origin::LockCall, &Origin::File, &Origin::File]);
    }

    #[test]
    fn writing_tells_how_far_into_the_original_it_has_come() {
        let mut set = EditBuilder::default();
        set.insert(0, "<", 0, Origin::File);
        set.replace(2..4, "--", 0, Origin::LockCall);
        set.insert(7, ">", 0, Origin::File);
        let set = set.build();
        let (mut out, mut told) = (Vec::new(), Vec::new());
        set.write_telling(b"abcdefgh", &mut out, made_before, |at| told.push(at))
            .unwrap();
        assert_eq!(out, b"<ab--efg>h");
        assert_eq!(told, [0, 2, 7, 8]);
    }

    #[test]
    fn texts_left_to_be_made_are_made_where_they_are_written() {
        let mut set = EditBuilder::default();
        set.replace_with(1..2, Text::Later(7), 0, Origin::File);
        set.insert(3, "!", 0, Origin::File);
        set.replace_with(0..0, Text::Later(2), 0, Origin::File);
        let set = set.build();
        let made = set.apply_making(b"abcd", |key, text| text.push_str(&format!("<{key}>")));
        assert_eq!(made, b"<2>a<7>c!d");
    }

    #[test]
    #[should_panic(expected = "left to be made")]
    fn a_text_left_to_be_made_needs_its_maker() {
        let mut set = EditBuilder::default();
        set.replace_with(0..1, Text::Later(0), 0, Origin::File);
        set.build().apply(b"a");
    }

    #[test]
    fn edits_at_one_place_with_one_order_keep_their_sequence() {
        let mut set = EditBuilder::default();
        set.insert(3, "a", 0, Origin::File);
        set.insert(3, "b", 0, Origin::File);
        set.insert(3, "c", 0, Origin::File);
        let set = set.build();
        assert_eq!(set.apply(b"xyz!"), b"xyzabc!");
    }

    proptest::proptest! {
        /// Insertions anywhere, in any order: they come out as a stable
        /// sort by place, then order, puts them.
        #[test]
        fn edits_come_out_as_a_stable_sort_puts_them(
            edits in proptest::collection::vec((0usize..8, -2i64..3), 0..200)
        ) {
            let mut set = EditBuilder::with_capacity(edits.len());
            for (n, &(at, order)) in edits.iter().enumerate() {
                set.insert(at, n.to_string(), order, Origin::File);
            }
            let mut expected: Vec<(usize, i64, String)> = (edits.iter().enumerate())
                .map(|(n, &(at, order))| (at, order, n.to_string()))
                .collect();
            expected.sort_by_key(|&(at, order, _)| (at, order));
            let built: Vec<(usize, i64, String)> = (set.build().iter())
                .map(|e| (e.range.start, e.order, e.text().to_string()))
                .collect();
            proptest::prop_assert_eq!(built, expected);
        }
    }

    #[test]
    #[should_panic(expected = "overlapping")]
    fn overlapping_replacements_are_a_bug() {
        let mut set = EditBuilder::default();
        set.replace(0..4, "a", 0, Origin::File);
        set.replace(2..6, "b", 0, Origin::File);
        set.build();
    }
}
