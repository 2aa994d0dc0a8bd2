//! What both C front ends make of a file before its syntax: its
//! directives and lock routines' names where the preprocessor may keep
//! code, each directive parsed.

use crate::directive::{
    parse_declaration_attribute, parse_directive, DirectiveError, Parsed, Sentinel,
};
use crate::frontend::lexical::conditionals::Conditionals;
use crate::frontend::lexical::expression::Known;
use crate::frontend::lexical::scan::{self, PreprocessorLine, RawDirective, RawKind};
use crate::language::Language;
use crate::source::{SourceFile, Span};

/// A file's directives and lock routines' names in code that may be
/// compiled and is not a library's header, with its preprocessor lines
/// and conditionals.
pub(crate) struct Scanned {
    /// In order.
    pub directives: Vec<RawDirective>,
    /// Whole-word mentions of lock routines.
    pub lock_mentions: Vec<Span>,
    /// Every preprocessor line other than directives, in order.
    pub lines: Vec<PreprocessorLine>,
    pub conditionals: Conditionals,
    /// Where code uses a macro the grammar reads a stand-in for
    /// ([`scan::Scan::macro_uses`]).
    pub macro_uses: Vec<scan::MacroUse>,
}

impl Scanned {
    /// `None` when nothing in `file` can be instrumented, unless `always`.
    pub fn of(file: &SourceFile, always: bool) -> Option<Scanned> {
        let mentions = lock_mentions(&file.bytes);
        if !always && !scan::may_hold_directives(&file.bytes) && mentions.is_empty() {
            return None;
        }
        let found = scan::scan(&file.bytes);
        let known = Known {
            cplusplus: file.language == Language::Cpp,
        };
        let conditionals = Conditionals::new(&file.bytes, &found.lines, &found.directives, known);
        let ours = |at: usize| !conditionals.is_dead(at) && !file.in_library_header(at);
        let directives: Vec<RawDirective> = (found.directives.into_iter())
            .filter(|d| ours(d.span.start))
            .collect();
        let lock_mentions: Vec<Span> = mentions.into_iter().filter(|m| ours(m.start)).collect();
        if !always && directives.is_empty() && lock_mentions.is_empty() {
            return None;
        }
        Some(Scanned {
            directives,
            lock_mentions,
            lines: found.lines,
            conditionals,
            macro_uses: found.macro_uses,
        })
    }
}

/// A directive's parse; `None` for a directive inside a macro's
/// definition, which is not parsed.
pub(crate) type Parse = Option<Result<Parsed, DirectiveError>>;

/// A directive's parse, as both C front ends parse it.
pub(crate) fn parse_raw(d: &RawDirective, language: Language) -> Parse {
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
pub(crate) fn lock_mentions(bytes: &[u8]) -> Vec<Span> {
    memchr::memmem::find_iter(bytes, b"omp_")
        .filter_map(|at| {
            let word_start = at == 0 || !scan::is_ident(bytes[at - 1]);
            let end = bytes[at..]
                .iter()
                .position(|b| !scan::is_ident(*b))
                .map_or(bytes.len(), |len| at + len);
            let routine = std::str::from_utf8(&bytes[at..end])
                .is_ok_and(|w| crate::frontend::reading::LOCK_ROUTINES.contains(&w));
            (word_start && routine).then_some(at..end)
        })
        .collect()
}
