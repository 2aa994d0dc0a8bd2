//! Parsing with tree-sitter, one parser per language and thread, reused.

use crate::source::{Language, SourceFile, Span};
use std::cell::RefCell;
use tree_sitter::{Parser, Point, Range, Tree};

thread_local! {
    /// Creating a parser and loading its grammar costs more than parsing a
    /// small function: each thread keeps one per language.
    static PARSERS: RefCell<[Option<Parser>; 2]> = const { RefCell::new([None, None]) };
}

/// Parses `text` (the masked bytes of `file`). With `ranges`, only those
/// byte ranges are read, as if they were one text; nodes keep the file's
/// offsets. Empty `ranges` means the whole text.
pub(super) fn parse(file: &SourceFile, text: &[u8], ranges: &[Span]) -> Tree {
    let slot = usize::from(file.language == Language::Cpp);
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers[slot].get_or_insert_with(|| new_parser(file.language));
        let included: Vec<Range> = ranges
            .iter()
            .map(|r| Range {
                start_byte: r.start,
                end_byte: r.end,
                start_point: point(file, r.start),
                end_point: point(file, r.end),
            })
            .collect();
        parser
            .set_included_ranges(&included)
            .expect("included ranges are sorted and disjoint");
        parser
            .parse(text, None)
            .expect("parsing without a timeout or cancellation always returns a tree")
    })
}

/// The tree of an empty text, for directives that need none.
pub(super) fn parse_nothing(file: &SourceFile) -> Tree {
    let slot = usize::from(file.language == Language::Cpp);
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers[slot].get_or_insert_with(|| new_parser(file.language));
        parser
            .set_included_ranges(&[])
            .expect("the whole text is one range");
        parser
            .parse(b"", None)
            .expect("parsing without a timeout or cancellation always returns a tree")
    })
}

fn new_parser(language: Language) -> Parser {
    let mut parser = Parser::new();
    let grammar: tree_sitter::Language = match language {
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        _ => tree_sitter_c::LANGUAGE.into(),
    };
    parser
        .set_language(&grammar)
        .expect("tree-sitter grammar matches the library version");
    parser
}

pub(super) fn point(file: &SourceFile, offset: usize) -> Point {
    let (line, column) = file.line_col(offset.min(file.bytes.len()));
    Point {
        row: line - 1,
        column: column - 1,
    }
}
