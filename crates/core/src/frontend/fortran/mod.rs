//! The tree-sitter front end for Fortran, free and fixed form.
//!
//! Directives are comments to Fortran, so they are found line by line
//! ([`lines`]) and their text joined over continuation lines. The code is
//! parsed by tree-sitter-fortran from a free-form text of (nearly) the
//! same bytes ([`parse_text`]), whose offsets map back to the file exactly.
//! Block constructs end at their end directives; loop constructs and
//! `atomic` take their loop nest or statement from the tree; program units
//! and the end of their specification parts come from the tree too.

mod analysis;
mod conditionals;
mod constructs;
mod lines;
mod parse_text;
mod regions;
mod units;
mod unknown;

pub use super::reading::LOCK_ROUTINES;

use super::reading::FrontEnd;
use crate::diagnostics::Diagnostic;
use crate::directive::{parse_directive, Problem, Role};
use crate::frontend::unknown::{clause_left_as_written, invalid_directive};
use crate::language::Language;
use crate::model::{DirectiveForm, Found, FoundSite};
use crate::source::{SourceFile, Span};
use analysis::{Analysis, UnknownDirective};
use parse_text::ParseText;
use pomp_grammars::Parser;
use tree_sitter::{Node, Tree};

#[derive(Clone, Debug, Default)]
pub struct TreeSitterFortran {
    /// The code beyond directives read as regions.
    pub regions: crate::model::CodeRegions,
}

impl FrontEnd for TreeSitterFortran {
    fn name(&self) -> &'static str {
        "tree-sitter"
    }

    fn read(&self, file: &SourceFile) -> Found {
        let fixed_form = file.language == Language::FortranFixed;
        let scan = lines::scan(&file.bytes, fixed_form);
        let decided = conditionals::blank_decided(&file.bytes, &scan);
        let parse = if fixed_form {
            ParseText::fixed(&decided.text, &scan, &decided.blanked)
        } else {
            let preprocessed = crate::language::fortran::preprocessed_by_suffix(&file.path)
                || (scan.kinds.iter())
                    .any(|k| matches!(k, lines::LineKind::Preprocessor | lines::LineKind::Marker));
            ParseText::free(&decided.text, &scan, preprocessed)
        };
        let tree = parse_fortran(&parse.bytes);
        let mut analysis = Analysis {
            file,
            scan: &scan,
            parse: &parse,
            tree: &tree,
            unit_nodes: Vec::new(),
            model: Found::default(),
            site_units: Vec::new(),
            unknown: Vec::new(),
            regions: self.regions.clone(),
        };
        analysis
            .model
            .diagnostics
            .extend(scan.diagnostics.iter().cloned());
        let fortran = &mut analysis.model.fortran;
        (fortran.openmp_sentinels, fortran.pomp_sentinels) = scan.conditional_sentinels();
        analysis.sites();
        analysis.units();
        // Constructs end with their unit: they need each site's unit.
        analysis.site_units =
            crate::model::units_of_sites(&analysis.model.sites, &analysis.model.units);
        analysis.constructs();
        analysis.lock_calls_and_exits();
        analysis.functions();
        analysis.loops_and_calls();
        analysis.unknown_directives();
        analysis.parse_errors();
        analysis.model
    }
}

fn parse_fortran(text: &[u8]) -> Tree {
    Parser::new(pomp_grammars::FORTRAN).parse(text, &[], None)
}

impl<'a> Analysis<'a> {
    fn sites(&mut self) {
        // Names of open user regions: Fortran names are case-insensitive,
        // so `inst end(NAME)` closes `inst begin(name)` and is spelt like it.
        let mut user_regions: Vec<String> = Vec::new();
        // A library header's directives are the library's own: they are
        // left as written.
        let ours = self.scan.directives.iter();
        for raw in ours.filter(|raw| !self.file.in_library_header(raw.span.start)) {
            match parse_directive(&raw.text, raw.sentinel, self.file.language) {
                Ok(parsed) => {
                    for clause in &parsed.unknown {
                        let span = text_span(self.file, raw, &clause.span);
                        let warning = clause_left_as_written(span, clause);
                        self.model.diagnostics.push(warning);
                    }
                    let mut directive = parsed.directive;
                    let role = directive.spec().role;
                    if let Some(name) = directive.argument.as_mut() {
                        match role {
                            Some(Role::UserRegionBegin) => user_regions.push(name.clone()),
                            Some(Role::UserRegionEnd) => {
                                let open = user_regions
                                    .iter()
                                    .rposition(|n| n.trim().eq_ignore_ascii_case(name.trim()));
                                if let Some(open) = open {
                                    *name = user_regions.remove(open);
                                }
                            }
                            _ => {}
                        }
                    }
                    self.model.sites.push(FoundSite {
                        form: DirectiveForm::FortranComment,
                        span: raw.span.clone(),
                        lines: raw.lines.clone(),
                        directive,
                        block: None,
                        end_site: None,
                        implicit_section: None,
                        loop_variables: Vec::new(),
                        failed: false,
                    })
                }
                Err(error) if error.problem == Problem::Unknown => {
                    let name = raw.text[error.span.clone()]
                        .split_whitespace()
                        .collect::<String>()
                        .to_ascii_lowercase();
                    self.unknown.push(UnknownDirective {
                        sentinel: raw.sentinel,
                        span: text_span(self.file, raw, &error.span),
                        lines: raw.lines.clone(),
                        name,
                        error,
                    });
                }
                Err(error) => {
                    let span = text_span(self.file, raw, &error.span);
                    self.model.diagnostics.push(invalid_directive(span, &error));
                }
            }
        }
    }

    fn original_span(&self, node: Node) -> Span {
        self.parse.span_to_original(node.byte_range())
    }

    fn parse_text_of(&self, node: Node) -> &'a str {
        std::str::from_utf8(&self.parse.bytes[node.byte_range()]).unwrap_or("")
    }

    /// The end of the line holding the last byte of `node`.
    fn end_of_last_line(&self, node: Node) -> usize {
        let span = self.original_span(node);
        self.file
            .end_of_line(span.end.saturating_sub(1).max(span.start))
    }

    /// The outermost node that is not a comment and begins at or after
    /// `offset` (an original offset): the statement that follows.
    ///
    /// The descent starts at the innermost unit holding `offset`, so that
    /// the cost does not grow with the number of units in the file.
    fn statement_after(&self, offset: usize) -> Option<Node<'a>> {
        let at = self.parse.to_parse(offset);
        let mut node = match self.model.units.unit_at(offset) {
            Some(unit) => self.unit_nodes[unit],
            None => self.tree.root_node(),
        };
        'descend: loop {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if child.end_byte() <= at || child.kind() == "comment" {
                    continue;
                }
                if child.start_byte() >= at {
                    if child.kind() == "statement_label" {
                        // A labelled statement: the label is a sibling.
                        continue;
                    }
                    return Some(child);
                }
                node = child;
                continue 'descend;
            }
            return None;
        }
    }

    /// Syntax errors in code that directives apply to are errors: their
    /// blocks cannot be known. Elsewhere they are left alone, with a warning.
    fn parse_errors(&mut self) {
        let mut errors = Vec::new();
        collect_errors(self.tree.root_node(), &mut errors);
        for node in errors {
            let span = self.original_span(node);
            let touching: Vec<usize> = (0..self.model.sites.len())
                .filter(|&index| {
                    let site = &self.model.sites[index];
                    let construct = site.lines.start
                        ..site
                            .block
                            .as_ref()
                            .map_or(site.lines.end, |b| b.end.max(site.lines.end));
                    overlaps(&construct, &span)
                })
                .collect();
            let touched = !touching.is_empty();
            for index in touching {
                self.model.sites[index].failed = true;
            }
            let specification = self.model.units.iter().any(|unit| {
                let declarations = unit.span.start..unit.declarations_at.unwrap_or(unit.span.start);
                overlaps(&declarations, &span) && {
                    // Sites are in file order: the first one at or after
                    // the unit's start decides.
                    let first = self
                        .model
                        .sites
                        .partition_point(|s| s.span.start < unit.span.start);
                    self.model
                        .sites
                        .get(first)
                        .is_some_and(|s| s.span.end <= unit.span.end)
                }
            });
            let what = if node.is_missing() {
                format!("missing `{}`", node.kind())
            } else {
                "syntax error".to_string()
            };
            self.model.diagnostics.push(if touched || specification {
                Diagnostic::error(
                    span,
                    format!("cannot parse the code a directive applies to: {what}"),
                    what,
                )
                .with_note("the construct's extent cannot be decided, so it is not instrumented")
            } else {
                Diagnostic::warning(
                    span,
                    format!("cannot parse this code ({what}); no directive depends on it"),
                    what,
                )
            });
        }
    }
}

/// Where a span inside a directive's joined text lies in the file: exact
/// when the text stands on one line as written, else the whole directive.
fn text_span(file: &SourceFile, raw: &lines::RawDirective, inner: &Span) -> Span {
    let written = &file.bytes[raw.span.clone()];
    let text = raw.text.as_bytes();
    match written.windows(text.len().max(1)).position(|w| w == text) {
        Some(at) if !text.is_empty() => {
            let start = raw.span.start + at + inner.start.min(text.len());
            let end = raw.span.start + at + inner.end.min(text.len());
            start..end.max(start + 1).min(raw.span.end)
        }
        _ => raw.span.clone(),
    }
}

fn overlaps(a: &Span, b: &Span) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end
}

fn collect_errors<'t>(node: Node<'t>, errors: &mut Vec<Node<'t>>) {
    if node.is_error() || node.is_missing() {
        errors.push(node);
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, errors);
    }
}
