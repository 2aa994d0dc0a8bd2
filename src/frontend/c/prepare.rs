//! A file made ready for parsing: its directives found and parsed, its
//! conditionals decided where they can be, lock routines located, and the
//! text the grammar reads, with directives and code that is not compiled
//! masked by spaces (offsets and lines stay those of the file).

use super::conditionals::{blank_bytes, Assignment, Conditionals};
use super::expression::Known;
use super::scan::{self, PreprocessorLine, RawDirective, RawKind};
use crate::directive::{
    parse_declaration_attribute, parse_directive, DirectiveError, Parsed, Sentinel,
};
use crate::source::{Language, SourceFile, Span};

pub(super) struct Prepared<'f> {
    pub file: &'f SourceFile,
    /// The directives in code that may be compiled, in order.
    pub directives: Vec<RawDirective>,
    /// Each directive parsed; `None` for those inside macros.
    pub parsed: Vec<Option<Result<Parsed, DirectiveError>>>,
    /// Every preprocessor line other than directives, in order.
    pub lines: Vec<PreprocessorLine>,
    pub conditionals: Conditionals,
    /// Whole-word mentions of lock routines in code that may be compiled.
    pub lock_mentions: Vec<Span>,
    /// What the grammar parses in the first configuration.
    pub masked: Vec<u8>,
}

impl<'f> Prepared<'f> {
    /// `None` when nothing in the file can be instrumented.
    pub fn new(file: &'f SourceFile) -> Option<Prepared<'f>> {
        let mentions = lock_mentions(&file.bytes);
        if !scan::may_hold_directives(&file.bytes) && mentions.is_empty() {
            return None;
        }
        let found = scan::scan(&file.bytes);
        let known = Known {
            cplusplus: file.language == Language::Cpp,
        };
        let conditionals = Conditionals::new(&file.bytes, &found.lines, &found.directives, known);
        let directives: Vec<RawDirective> = found
            .directives
            .into_iter()
            .filter(|d| !conditionals.is_dead(d.span.start))
            .collect();
        let lock_mentions: Vec<Span> = mentions
            .into_iter()
            .filter(|m| !conditionals.is_dead(m.start))
            .collect();
        if directives.is_empty() && lock_mentions.is_empty() {
            return None;
        }
        let parsed = directives
            .iter()
            .map(|d| parse_raw(d, file.language))
            .collect();
        let mut prepared = Prepared {
            file,
            directives,
            parsed,
            lines: found.lines,
            conditionals,
            lock_mentions,
            masked: Vec::new(),
        };
        prepared.masked = prepared.masked_text(&Assignment::new());
        Some(prepared)
    }

    /// The text the grammar parses in the configuration `assignment`.
    pub fn masked_text(&self, assignment: &Assignment) -> Vec<u8> {
        let mut masked = self.file.bytes.clone();
        for d in &self.directives {
            if !matches!(d.kind, RawKind::InMacro { .. }) {
                blank_bytes(&mut masked[d.span.clone()]);
            }
        }
        self.conditionals.mask(&mut masked, 0, assignment);
        masked
    }
}

fn parse_raw(d: &RawDirective, language: Language) -> Option<Result<Parsed, DirectiveError>> {
    let sentinel = if d.pomp {
        Sentinel::Pomp
    } else {
        Sentinel::Omp
    };
    match d.kind {
        RawKind::InMacro { .. } => None,
        RawKind::DeclarationAttribute => Some(parse_declaration_attribute(&d.text, language)),
        _ => Some(parse_directive(&d.text, sentinel, language)),
    }
}

/// Every whole-word occurrence of a lock routine's name: a cheap
/// over-approximation of their calls.
pub(super) fn lock_mentions(bytes: &[u8]) -> Vec<Span> {
    memchr::memmem::find_iter(bytes, b"omp_")
        .filter_map(|at| {
            let word_start = at == 0 || !scan::is_ident(bytes[at - 1]);
            let end = bytes[at..]
                .iter()
                .position(|b| !scan::is_ident(*b))
                .map_or(bytes.len(), |len| at + len);
            let routine = std::str::from_utf8(&bytes[at..end])
                .is_ok_and(|w| crate::frontend::LOCK_ROUTINES.contains(&w));
            (word_start && routine).then_some(at..end)
        })
        .collect()
}
