//! What the front ends say about names the directive table does not know.
//!
//! A compiler newer than pomp's table, or with extensions of its own,
//! accepts directives and clauses pomp has never heard of. They are left
//! exactly as written and the rest of the file is instrumented; only where
//! leaving one would make the output wrong is it an error, and the message
//! says why.

use crate::diagnostics::Diagnostic;
use crate::directive::DirectiveError;
use crate::source::Span;

/// An unknown directive left as written. `code_left_alone` is true when the
/// code it may apply to is kept free of inserted calls.
pub(crate) fn directive_left_as_written(
    span: Span,
    error: &DirectiveError,
    code_left_alone: bool,
) -> Diagnostic {
    let mut diagnostic = Diagnostic::warning(
        span,
        format!("{}; left as written", error.message),
        "not in pomp's OpenMP 6.0 table",
    );
    if let Some(note) = &error.note {
        diagnostic = diagnostic.with_note(note.clone());
    }
    if code_left_alone {
        diagnostic = diagnostic.with_note(
            "the code it may apply to is not instrumented: pomp cannot tell whether it is a \
             construct, nor what that construct allows inside",
        );
    }
    diagnostic
}

/// An unknown clause kept on its directive.
pub(crate) fn clause_left_as_written(span: Span, error: &DirectiveError) -> Diagnostic {
    let mut diagnostic = Diagnostic::warning(
        span,
        format!("{}; left as written", error.message),
        "kept on this directive",
    );
    if let Some(note) = &error.note {
        diagnostic = diagnostic.with_note(note.clone());
    }
    diagnostic
}

/// An error pomp cannot recover from: the directive breaks OpenMP syntax
/// or the table's rules, and every compiler rejects it.
pub(crate) fn invalid_directive(span: Span, error: &DirectiveError) -> Diagnostic {
    let mut diagnostic = Diagnostic::error(span, error.message.clone(), "here");
    if let Some(note) = &error.note {
        diagnostic = diagnostic.with_note(note.clone());
    }
    diagnostic.with_note("the file is not instrumented; fix or remove the directive")
}
