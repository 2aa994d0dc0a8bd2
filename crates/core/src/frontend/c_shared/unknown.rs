//! Directives the table does not know, in C and C++: each is left as
//! written, and the statement it may apply to is kept free of inserted
//! code, since pomp cannot tell whether the directive is a construct nor
//! what that construct allows inside (device code, task graphs that are
//! replayed without their generating code, blocks that admit no calls).

use super::reading::Reading;
use super::syntax::{After, Syntax};
use crate::diagnostics::Diagnostic;
use crate::directive::DirectiveError;
use crate::frontend::lexical::scan::RawDirective;
use crate::frontend::unknown::directive_left_as_written;
use crate::source::Span;

impl<S: Syntax> Reading<'_, S> {
    /// Reports the unknown directive `d` (between its `neighbours`) and
    /// keeps the code it may apply to free of inserted calls.
    pub(super) fn unknown_directive(
        &mut self,
        d: &RawDirective,
        neighbours: (Option<&RawDirective>, &[RawDirective]),
        error: &DirectiveError,
    ) {
        let span = d.text_span(&self.syntax.file().bytes, &error.span);
        let (before, following) = neighbours;
        if d.in_sequence((before, following.first())) {
            self.model
                .diagnostics
                .push(unknown_in_sequence(span, error));
            return;
        }
        // `#pragma pomp` lines are comments to the compiler; the code is
        // the statement that begins at the first token after the directive
        // (not a declaration, a function or the end of a block).
        let code = match d.pomp {
            true => None,
            false => match self.syntax.statement_after(d.span.end, following) {
                After::Statement(statement) => Some(self.syntax.extent(statement)),
                _ => None,
            },
        };
        if let Some(statement) = &code {
            // From the directive on: known directives between it and the
            // statement belong to the code it may apply to.
            self.model.no_insert.push(d.span.end..statement.end);
        }
        self.model
            .diagnostics
            .push(directive_left_as_written(span, error, code.is_some()));
    }

    /// Why a loop directive that is not followed by a loop may still be
    /// right: an unknown directive between the two may generate the loop
    /// from what follows it (a transformation of a loop sequence), which
    /// pomp cannot check.
    pub(super) fn unknown_before_loop(
        &self,
        d: &RawDirective,
        statement_start: usize,
    ) -> Option<Diagnostic> {
        let between =
            (self.unknown.iter()).find(|u| u.start >= d.span.end && u.end <= statement_start)?;
        let name = self.syntax.file().text(d.span.clone()).trim().to_string();
        Some(
            Diagnostic::error(
                between.clone(),
                "unknown directive between a loop directive and its loop",
                "not in pomp's OpenMP 6.0 table",
            )
            .with_note(format!(
                "`{name}` must be followed by a loop and is followed by this directive; whether it \
                 makes a loop of the code after it, as a loop transformation does, pomp cannot \
                 tell, and it never guesses which loop a construct applies to"
            )),
        )
    }
}

/// The error for an unknown directive inside an `omp::sequence`, which
/// cannot be left as written while the sequence around it is rewritten.
fn unknown_in_sequence(span: Span, error: &DirectiveError) -> Diagnostic {
    Diagnostic::error(span, error.message.clone(), "in an `omp::sequence`")
        .with_note(
            "when pomp instruments a directive of a sequence it writes the whole sequence as \
             `#pragma` lines, and it cannot write a directive it does not know",
        )
        .with_note("write this directive as a `#pragma omp` line of its own")
}
