//! Reading a buffer again after a change, as an editor does on every
//! keystroke. The previous reading's text and tree are kept; the change
//! between the two texts is found by comparing them (an editor need not
//! say where it edited), the old tree is told about it, and tree-sitter
//! parses again only what the change touches. Everything after the parse
//! is linear in the file and cheap next to it.

use super::parse;
use super::prepare::{Parses, Prepared};
use crate::language::Language;
use crate::source::SourceFile;
use tree_sitter::{InputEdit, Point, Tree};

/// What one reading of a buffer leaves for the next: the masked text and
/// its syntax tree. Start with `Reuse::default()` and pass the same value
/// to every reading of one buffer; a value handed a different file only
/// costs a parse from scratch, never a wrong reading.
#[derive(Default)]
pub struct Reuse {
    last: Option<Reading>,
    /// The readings of the other configurations the file was read in
    /// (where conditionals split a function), by the round that read them.
    others: Vec<Option<Reading>>,
    /// The last reading's directives, parsed.
    pub(super) parses: Parses,
}

pub(super) struct Reading {
    language: Language,
    text: Vec<u8>,
    tree: Tree,
}

impl Reuse {
    /// Forgets the previous reading: the next one parses from scratch.
    pub fn clear(&mut self) {
        self.last = None;
        self.others.clear();
        self.parses = Parses::default();
    }

    /// What the previous reading left of the configuration read in round
    /// `round`.
    pub(super) fn other_configuration(&mut self, round: usize) -> &mut Option<Reading> {
        if self.others.len() <= round {
            self.others.resize_with(round + 1, || None);
        }
        &mut self.others[round]
    }
}

/// The tree of the whole of `prepared.masked`, parsed again from what
/// `reuse` kept, and kept there for the next reading; `None` where a
/// reused tree holds a syntax error (see [`reparsed`]).
pub(super) fn whole_tree(prepared: &Prepared, reuse: &mut Reuse) -> Option<Tree> {
    reparsed(prepared.file, &prepared.whole_masked(), &mut reuse.last)
}

/// The tree of the whole of `text`, one configuration of `file`'s masked
/// text, parsed again from the reading `kept` of an earlier version, which
/// becomes this one's.
pub(super) fn tree_reusing(file: &SourceFile, text: &[u8], kept: &mut Option<Reading>) -> Tree {
    reparsed(file, text, kept).unwrap_or_else(|| {
        let tree = parse::parse(file, text, &[], &[]);
        keep(kept, file, text, &tree);
        tree
    })
}

/// The tree of `text` parsed again from `kept`, the reading of an earlier
/// version (from scratch without one), which becomes this one's. `None`
/// where the tree reused holds a syntax error: where the grammar recovers
/// from an error, the nodes it reuses could lead it elsewhere than a
/// parse from scratch does, and the reading must be the one a fresh parse
/// gives. The tree is kept all the same: once the error is gone, the next
/// version is parsed from it again. A change that leaves every syntax
/// error of the kept tree untouched is not parsed at all, since the tree
/// would not be used: the kept tree is told about it, to be parsed again
/// with every change since once a change reaches an error.
fn reparsed(file: &SourceFile, text: &[u8], kept: &mut Option<Reading>) -> Option<Tree> {
    let (tree, reused) = match kept.take() {
        Some(mut last) if last.language == file.language => {
            let edit = edit_between(&last.text, text);
            last.tree.edit(&edit);
            // An edit next to an error may end it: ends count.
            let touches = |error: &std::ops::Range<usize>| {
                error.start <= edit.new_end_byte && edit.start_byte <= error.end
            };
            let errors = super::nodes::syntax_errors(last.tree.root_node());
            if !errors.is_empty() && !errors.iter().any(touches) {
                last.text = text.to_vec();
                *kept = Some(last);
                return None;
            }
            (parse::reparse(file, text, &last.tree), true)
        }
        _ => (parse::parse(file, text, &[], &[]), false),
    };
    keep(kept, file, text, &tree);
    (!reused || !tree.root_node().has_error()).then_some(tree)
}

fn keep(kept: &mut Option<Reading>, file: &SourceFile, text: &[u8], tree: &Tree) {
    *kept = Some(Reading {
        language: file.language,
        text: text.to_vec(),
        tree: tree.clone(),
    });
}

/// The one edit that turns `old` into `new`: what lies between their
/// common beginning and their common end.
fn edit_between(old: &[u8], new: &[u8]) -> InputEdit {
    let prefix = common_length(old.iter(), new.iter());
    let room = old.len().min(new.len()) - prefix;
    let suffix = common_length(old.iter().rev(), new.iter().rev()).min(room);
    InputEdit {
        start_byte: prefix,
        old_end_byte: old.len() - suffix,
        new_end_byte: new.len() - suffix,
        start_position: point_in(old, prefix),
        old_end_position: point_in(old, old.len() - suffix),
        new_end_position: point_in(new, new.len() - suffix),
    }
}

fn common_length<'a>(a: impl Iterator<Item = &'a u8>, b: impl Iterator<Item = &'a u8>) -> usize {
    a.zip(b).take_while(|(x, y)| x == y).count()
}

/// Row and byte column of `offset` in `text`, as tree-sitter counts them.
fn point_in(text: &[u8], offset: usize) -> Point {
    let before = &text[..offset];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    Point {
        row: memchr::memchr_iter(b'\n', before).count(),
        column: offset - line_start,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_edit_is_what_lies_between_the_common_ends() {
        let edit = edit_between(b"ab\ncd\nef", b"ab\ncXYd\nef");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (4, 4, 6)
        );
        assert_eq!(edit.start_position, Point { row: 1, column: 1 });
        assert_eq!(edit.new_end_position, Point { row: 1, column: 3 });
        // A repeated letter is not counted twice.
        let edit = edit_between(b"aaa", b"aa");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (2, 3, 2)
        );
        let edit = edit_between(b"x\n", b"x\n");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (2, 2, 2)
        );
    }
}
