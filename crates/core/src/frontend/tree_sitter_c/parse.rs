//! Parsing with tree-sitter, one parser per language and thread, reused.

use crate::language::Language;
use crate::source::{SourceFile, Span};
use pomp_grammars::Parser;
use std::cell::{Cell, RefCell};
use tree_sitter::{Point, Range, Tree};

thread_local! {
    /// Creating a parser and loading its grammar costs more than parsing a
    /// small function: each thread keeps one per language.
    static PARSERS: RefCell<[Option<Parser>; 2]> = const { RefCell::new([None, None]) };
}

thread_local! {
    /// How many parses this thread made, and of how many bytes.
    static PARSED: Cell<Parsed> = const { Cell::new(Parsed { parses: 0, bytes: 0 }) };
}

/// What a thread's parses read so far: what benchmarks of the partial
/// parse look at, as a parse costs about the same per byte it reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub parses: usize,
    pub bytes: usize,
}

impl Parsed {
    /// The parses this thread made so far.
    pub fn so_far() -> Parsed {
        PARSED.get()
    }
}

/// Parses `text` (the masked bytes of `file`). With `ranges`, only those
/// byte ranges are read, as if they were one text, less the spans
/// `passed_over` (sorted: directive lines, dead conditional branches)
/// that the text holds unblanked; nodes keep
/// the file's offsets. Empty `ranges` means the whole text, which must
/// then hold no line to pass over. Counted in [`Parsed`].
pub(super) fn parse(file: &SourceFile, text: &[u8], ranges: &[Span], passed_over: &[Span]) -> Tree {
    debug_assert!(
        !ranges.is_empty() || passed_over.is_empty(),
        "a whole text is parsed with its directives blanked"
    );
    let bytes = match ranges {
        [] => text.len(),
        _ => ranges.iter().map(|r| r.len()).sum(),
    };
    let so_far = PARSED.get();
    PARSED.set(Parsed {
        parses: so_far.parses + 1,
        bytes: so_far.bytes + bytes,
    });
    let range = |span: Span| Range {
        start_byte: span.start,
        end_byte: span.end,
        start_point: point(file, span.start),
        end_point: point(file, span.end),
    };
    let mut included: Vec<Range> = Vec::with_capacity(ranges.len());
    for read in ranges {
        let mut from = read.start;
        for line in crate::language::c::lex::spans_among(passed_over, read.clone()) {
            if from < line.start {
                included.push(range(from..line.start));
            }
            from = from.max(line.end);
        }
        if from < read.end {
            included.push(range(from..read.end));
        }
    }
    if let (true, Some(first)) = (included.is_empty(), ranges.first()) {
        // Nothing but directive lines: no range at all would read the
        // whole text.
        included.push(range(first.start..first.start));
    }
    parse_with(file, text, &included, None)
}

/// Parses the whole of `text` (the masked bytes of `file`) reusing `old`,
/// the tree of an earlier text already told how that text was edited into
/// this one: only what the edit touches is parsed again.
pub(super) fn reparse(file: &SourceFile, text: &[u8], old: &Tree) -> Tree {
    parse_with(file, text, &[], Some(old))
}

fn parse_with(file: &SourceFile, text: &[u8], included: &[Range], old: Option<&Tree>) -> Tree {
    let slot = usize::from(file.language == Language::Cpp);
    PARSERS.with(|parsers| {
        let mut parsers = parsers.borrow_mut();
        let parser = parsers[slot].get_or_insert_with(|| new_parser(file.language));
        parser.parse(text, included, old)
    })
}

/// The tree of an empty text, for directives that need none.
pub(super) fn parse_nothing(file: &SourceFile) -> Tree {
    parse_with(file, b"", &[], None)
}

fn new_parser(language: Language) -> Parser {
    Parser::new(match language {
        Language::Cpp => pomp_grammars::CPP,
        _ => pomp_grammars::C,
    })
}

pub(super) fn point(file: &SourceFile, offset: usize) -> Point {
    let (line, column) = file.line_col(offset.min(file.bytes.len()));
    Point {
        row: line - 1,
        column: column - 1,
    }
}

/// Whether the grammar of C, or of C++ with `cplusplus`, reads `code`
/// with a syntax error: what the tests of text left unparsed ask.
#[cfg(test)]
pub(super) fn has_syntax_error(code: &str, cplusplus: bool) -> bool {
    let grammar = match cplusplus {
        true => pomp_grammars::CPP,
        false => pomp_grammars::C,
    };
    let tree = Parser::new(grammar).parse(code.as_bytes(), &[], None);
    tree.root_node().has_error()
}
