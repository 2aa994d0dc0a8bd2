//! The reading of C and C++ that both C front ends share: from the
//! directives found lexically and a syntax tree ([`Syntax`]) to the sites
//! with their blocks, the functions around them, lock calls and jumps.
//! tree-sitter ([`super::tree_sitter_c`]) and libclang ([`super::libclang`]) each answer
//! the view's questions over their own parse; what a directive's block
//! is, when a doubtful parse or a macro refuses it, where implicit
//! sections go, how functions are named and which jumps matter is
//! decided here, once.

pub(crate) mod conditions;
mod directives;
mod loops;
mod reading;
pub(crate) mod regions;
pub(crate) mod syntax;
mod units;
mod unknown;

pub(crate) use directives::{lock_mentions, parse_raw, Parse, Scanned};
pub(crate) use syntax::{After, Alternatives, CallForm, CallStatement, Doubt, Init, Kind, Syntax};

use crate::diagnostics::Diagnostic;
use crate::directive::{Association, Problem};
use crate::frontend::lexical::scan::{RawDirective, RawKind};
use crate::frontend::unknown::{clause_left_as_written, invalid_directive};
use crate::model::{DirectiveForm, Found, FoundSite};
use crate::source::Span;
use reading::Reading;

/// `found` with the model of `directives` (each with its parse) and of
/// the lock routines' names at `mentions`, all of which `syntax` covers.
pub(crate) fn read<S: Syntax>(
    syntax: &S,
    directives: &[RawDirective],
    parses: &[Parse],
    mentions: &[Span],
    found: Found,
) -> Found {
    let mut reading = Reading {
        syntax,
        statements: vec![None; found.sites.len()],
        model: found,
        unknown: Vec::new(),
    };
    reading.directives(directives, parses);
    reading.implicit_sections();
    let functions = reading.units();
    reading.lock_calls(mentions);
    reading.exits(&functions);
    reading.declared_by_attribute();
    reading.model
}

/// A directive's block as read.
struct Block<N> {
    span: Span,
    /// The statement it is.
    statement: Option<N>,
    /// The loop its loop nest begins with (in a conditional, the first
    /// branch's).
    nest: Option<N>,
}

impl<S: Syntax> Reading<'_, S> {
    fn directives(&mut self, raw: &[RawDirective], parses: &[Parse]) {
        let file = self.syntax.file();
        self.unknown = raw
            .iter()
            .zip(parses)
            .filter(|(_, p)| matches!(p, Some(Err(e)) if e.problem == Problem::Unknown))
            .map(|(d, _)| d.span.clone())
            .collect();
        // A site for nearly every directive, each a few hundred bytes.
        self.model.sites.reserve_exact(raw.len());
        self.statements.reserve_exact(raw.len());
        for ((index, d), parsed) in raw.iter().enumerate().zip(parses) {
            let form = match &d.kind {
                RawKind::InMacro { macro_name } => {
                    self.model.diagnostics.push(
                        Diagnostic::warning(
                            d.span.clone(),
                            format!("OpenMP directive inside macro `{macro_name}` is not instrumented"),
                            "produced where the macro expands, so it cannot be rewritten here",
                        )
                        .with_note(format!(
                            "write the directive as `#pragma omp {}` at the places `{macro_name}` is used to have it measured",
                            d.text
                        )),
                    );
                    continue;
                }
                RawKind::Pragma => DirectiveForm::Pragma,
                RawKind::PragmaOperator => DirectiveForm::PragmaOperator,
                RawKind::Attribute | RawKind::DeclarationAttribute => DirectiveForm::Attribute,
            };
            let directive = match parsed.as_ref().expect("parsed unless in a macro") {
                Ok(parsed) => {
                    for clause in &parsed.unknown {
                        let span = d.text_span(&file.bytes, &clause.span);
                        let warning = clause_left_as_written(span, clause);
                        self.model.diagnostics.push(warning);
                    }
                    parsed.directive.clone()
                }
                Err(e) if e.problem == Problem::Unknown => {
                    let before = index.checked_sub(1).map(|i| &raw[i]);
                    self.unknown_directive(d, (before, &raw[index + 1..]), e);
                    continue;
                }
                Err(e) => {
                    let span = d.text_span(&file.bytes, &e.span);
                    self.model.diagnostics.push(invalid_directive(span, e));
                    continue;
                }
            };
            let association = directive.spec().association;
            let lines = match form {
                DirectiveForm::Pragma => {
                    file.start_of_line(d.span.start)..file.end_of_line(d.span.end)
                }
                _ => d.span.clone(),
            };
            let block = match association {
                Association::Block | Association::Loop | Association::Separator => {
                    match self.block_after(d, &raw[index + 1..], association) {
                        Ok(block) => Some(block),
                        Err(diagnostic) => {
                            self.model.diagnostics.push(diagnostic);
                            continue;
                        }
                    }
                }
                _ => None,
            };
            let (block, statement, nest) = match block {
                Some(block) => (Some(block.span), block.statement, block.nest),
                None => (None, None, None),
            };
            let mut site = FoundSite {
                form,
                span: d.span.clone(),
                lines,
                directive,
                block,
                end_site: None,
                implicit_section: None,
                loop_variables: Vec::new(),
                failed: false,
            };
            if let (Some(nest), Some((_, depth))) = (nest, site.associated_loops()) {
                site.loop_variables = self.loop_variables(nest, depth);
            }
            self.model.sites.push(site);
            self.statements.push(statement);
        }
    }

    /// The statement a block or loop directive applies to, extended back
    /// over nested directives between the two.
    fn block_after(
        &self,
        d: &RawDirective,
        following: &[RawDirective],
        association: Association,
    ) -> Result<Block<S::Node>, Diagnostic> {
        let file = self.syntax.file();
        let block = match self.syntax.statement_after(d.span.end, following) {
            After::Missing(label) => return Err(without_block(d, label)),
            After::Alternatives(alternatives) => {
                self.alternatives(d, *alternatives, association)?
            }
            After::Statement(statement) => {
                let statement = self.sure(d, statement)?;
                let span = self.syntax.extent(statement);
                if association == Association::Loop && !self.nests(statement) {
                    if let Some(diagnostic) = self.unknown_before_loop(d, span.start) {
                        return Err(diagnostic);
                    }
                    return Err(Diagnostic::error(
                        d.span.clone(),
                        "loop directive not followed by a loop",
                        format!(
                            "`{}` must be followed by a `for` loop",
                            file.text(d.span.clone()).trim()
                        ),
                    ));
                }
                if let Some(name) = self.syntax.unexpanded_macro(statement) {
                    return Err(Diagnostic::error(
                        d.span.clone(),
                        format!("the block of this directive is the macro `{name}`"),
                        "this directive's block",
                    )
                    .with_note(
                        "where the block ends depends on what the macro expands to (it may open \
                         a brace that another macro closes), which the grammar cannot see",
                    )
                    .with_note(
                        "give pomp the file's compile flags (`pomp instrument FILE -- FLAGS`, the \
                         compiler wrappers, `pomp batch --compile-commands`): the clang front end \
                         then reads the expansion",
                    ));
                }
                Block {
                    span,
                    statement: Some(statement),
                    nest: Some(statement),
                }
            }
        };
        // Directives between this one and the statement belong to the
        // block (`#pragma omp parallel` / `#pragma omp for` / loop), unless
        // no configuration compiles the two together.
        let start = following
            .iter()
            .take_while(|n| n.span.end <= block.span.start)
            .find(|n| {
                n.span.start >= d.span.end && !self.syntax.exclusive(d.span.start, n.span.start)
            })
            .map_or(block.span.start, |first| {
                first.span.start.min(block.span.start)
            });
        Ok(Block {
            span: start..block.span.end,
            ..block
        })
    }

    /// `statement`, unless a syntax error could move either of its ends.
    fn sure(&self, d: &RawDirective, statement: S::Node) -> Result<S::Node, Diagnostic> {
        let Some(doubt) = self.syntax.doubt(statement) else {
            return Ok(statement);
        };
        let file = self.syntax.file();
        let mut diagnostic = Diagnostic::error(
            d.span.clone(),
            "the block of this directive could not be parsed exactly",
            "this directive's block",
        )
        .with_note(format!(
            "the parser reports a syntax problem at line {}; pomp never guesses where a block ends",
            file.user_line(doubt.error_at)
        ));
        if let Some((name, at)) = doubt.conditional {
            diagnostic = diagnostic.with_note(format!(
                "the conditional `{name}` at line {} lies in it and is not one pomp can read",
                file.user_line(at)
            ));
        }
        Err(diagnostic)
    }

    /// Whether `statement` is a loop a loop directive may apply to.
    fn nests(&self, statement: S::Node) -> bool {
        matches!(self.syntax.kind(statement), Kind::For | Kind::RangeFor)
    }

    /// A directive followed by a conditional whose branches each hold one
    /// statement (`#ifdef NEW` / loop / `#else` / loop / `#endif`): in
    /// every configuration the directive applies to one of them, so its
    /// block is the whole conditional.
    fn alternatives(
        &self,
        d: &RawDirective,
        alternatives: Alternatives<S::Node>,
        association: Association,
    ) -> Result<Block<S::Node>, Diagnostic> {
        let Alternatives {
            extent,
            name,
            has_else,
            branches,
        } = alternatives;
        let line = self.syntax.file().user_line(extent.start);
        let refuse = |why: &str| {
            Diagnostic::error(
                d.span.clone(),
                format!("the block of this directive depends on `{name}`"),
                "this directive's block",
            )
            .with_note(format!("the conditional at line {line} {why}"))
            .with_note(
                "pomp instruments a directive only where its block is the same for every \
                 setting of the macros, or where each branch holds one whole statement",
            )
        };
        if !has_else {
            return Err(refuse(
                "has no `#else`: when no condition holds, the directive applies to the code \
                 after `#endif`",
            ));
        }
        let mut nest = None;
        for branch in branches {
            let Some((statement, alone)) = branch else {
                return Err(refuse("has a branch without a statement of its own"));
            };
            let statement = self.sure(d, statement.map_err(|label| without_block(d, label))?)?;
            if !alone {
                return Err(refuse("has a branch holding more than one statement"));
            }
            if association == Association::Loop && !self.nests(statement) {
                return Err(refuse("has a branch that is not a loop"));
            }
            nest = nest.or(Some(statement));
        }
        Ok(Block {
            span: extent,
            statement: None,
            nest,
        })
    }

    /// `sections` may begin without `#pragma omp section`: the statements
    /// before the first explicit section form an implicit one.
    fn implicit_sections(&mut self) {
        let syntax = self.syntax;
        let mut found = Vec::new();
        for (index, site) in self.model.sites.iter().enumerate() {
            if crate::directive::table()
                .divided_by(site.directive.spec())
                .is_none()
            {
                continue;
            }
            let (Some(block), Some(body)) = (&site.block, self.statements[index]) else {
                continue;
            };
            let extent = syntax.extent(body);
            if syntax.kind(body) != Kind::Compound || extent.end != block.end {
                continue;
            }
            let statements = syntax.statements(body).map(|s| syntax.extent(s));
            if let Some(section) = crate::model::implicit_section(
                &self.model.sites,
                extent.start + 1,
                block.end,
                statements,
            ) {
                found.push((index, section));
            }
        }
        for (index, statements) in found {
            self.model.sites[index].implicit_section = Some(statements);
        }
    }
}

/// The error for a directive that needs a block and has none; `label`
/// says what stands where the block should.
fn without_block(d: &RawDirective, label: String) -> Diagnostic {
    Diagnostic::error(d.span.clone(), "directive without a block", label)
}
