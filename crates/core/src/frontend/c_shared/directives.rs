//! What both C front ends make of a file before its syntax: each
//! directive found lexically parsed, and where the lock routines are named.

use crate::directive::{
    parse_declaration_attribute, parse_directive, DirectiveError, Parsed, Sentinel,
};
use crate::frontend::lexical::scan::{self, RawDirective, RawKind};
use crate::language::Language;
use crate::source::Span;

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
