//! From a parsed translation unit to the model: directive sites and their
//! blocks, the functions around them, lock calls and jumps.

use super::translation_unit::{Class, TranslationUnit};
use super::tree::{Tree, BODY_KINDS, FUNCTION_KINDS};
use super::Facts;
use crate::diagnostics::Diagnostic;
use crate::directive::{
    parse_declaration_attribute, parse_directive, Association, Parsed, Problem, Role, Sentinel,
};
use crate::frontend::c::scan::{self, RawDirective, RawKind};
use crate::frontend::unknown::{
    clause_left_as_written, directive_left_as_written, invalid_directive,
};
use crate::model::{
    CodeRegions, DirectiveForm, Exit, Found, FoundSite, Function, FunctionKind, LockCall, Unit,
};
use crate::source::{SourceFile, Span};
use clang_sys::*;
use std::collections::HashMap;

/// Read the model of `file` from its parse.
pub fn read(file: &SourceFile, unit: &TranslationUnit, regions: CodeRegions) -> (Found, Facts) {
    let skipped = unit.skipped_ranges();
    let in_skipped = |at: usize| {
        let i = skipped.partition_point(|s| s.start <= at);
        i > 0 && skipped[i - 1].contains(&at)
    };
    // `_Pragma` in a `#define` is found where the macro is used.
    let raw: Vec<RawDirective> = scan::scan(&file.bytes)
        .directives
        .into_iter()
        .filter(|d| !matches!(d.kind, RawKind::InMacro { .. }) && !in_skipped(d.span.start))
        .collect();
    let spans: Vec<Span> = raw.iter().map(|d| d.span.clone()).collect();
    let tree = Tree::new(unit, &file.bytes, &skipped, &spans);
    let mut reader = Reader {
        file,
        tree: &tree,
        model: Found::default(),
        statements: HashMap::new(),
        unknown: Vec::new(),
    };
    let produced = super::macros::directives(&tree);
    let macro_uses = produced.iter().map(|p| p.use_site.clone()).collect();
    reader.directives(&raw, produced);
    reader.implicit_sections();
    reader.units();
    reader.lock_calls_and_exits();
    reader.declared_by_attribute();
    reader.functions(regions);
    // Code inserted outside the conditional branch of its directive is put
    // under the branch's condition again, whichever front end read it.
    crate::frontend::c::record_conditions(file, &mut reader.model);
    reader.model.diagnostics.sort_by_key(|d| d.span.start);
    (
        reader.model,
        Facts {
            skipped,
            macro_uses,
        },
    )
}

struct Reader<'a> {
    file: &'a SourceFile,
    tree: &'a Tree<'a>,
    model: Found,
    /// The statement node of each site's block, by site index.
    statements: HashMap<usize, usize>,
    /// Directives the table does not know.
    unknown: Vec<Span>,
}

impl Reader<'_> {
    fn directives(&mut self, raw: &[RawDirective], produced: Vec<super::macros::Produced>) {
        let mut found: Vec<RawDirective> = raw.to_vec();
        for p in produced {
            self.model.diagnostics.push(p.diagnostic);
            match p.directive {
                Some(raw) => found.push(raw),
                // Left as the macro writes it: what it may apply to is kept
                // free of inserted code.
                None => {
                    if let Some(code) = self.statement_from(p.use_site.start) {
                        self.model.no_insert.push(p.use_site.start..code.end);
                    }
                }
            }
        }
        found.sort_by_key(|d| d.span.start);
        let all = found;
        let parsed: Vec<Result<Parsed, _>> = all
            .iter()
            .map(|d| {
                let sentinel = if d.pomp {
                    Sentinel::Pomp
                } else {
                    Sentinel::Omp
                };
                match d.kind {
                    RawKind::DeclarationAttribute => {
                        parse_declaration_attribute(&d.text, self.file.language)
                    }
                    _ => parse_directive(&d.text, sentinel, self.file.language),
                }
            })
            .collect();
        self.unknown = all
            .iter()
            .zip(&parsed)
            .filter(|(_, p)| matches!(p, Err(e) if e.problem == Problem::Unknown))
            .map(|(d, _)| d.span.clone())
            .collect();
        for (index, (d, parsed)) in all.iter().zip(parsed).enumerate() {
            let form = match &d.kind {
                RawKind::Pragma => DirectiveForm::Pragma,
                RawKind::Attribute | RawKind::DeclarationAttribute => DirectiveForm::Attribute,
                _ => DirectiveForm::PragmaOperator,
            };
            let directive = match parsed {
                Ok(parsed) => {
                    for clause in &parsed.unknown {
                        let span = d.text_span(&self.file.bytes, &clause.span);
                        self.model
                            .diagnostics
                            .push(clause_left_as_written(span, clause));
                    }
                    parsed.directive
                }
                Err(e) if e.problem == Problem::Unknown => {
                    let before = index.checked_sub(1).map(|i| &all[i]);
                    self.unknown_directive(d, (before, &all[index + 1..]), &e);
                    continue;
                }
                Err(e) => {
                    let span = d.text_span(&self.file.bytes, &e.span);
                    self.model.diagnostics.push(invalid_directive(span, &e));
                    continue;
                }
            };
            let association = directive.spec().association;
            let needs_block = matches!(
                association,
                Association::Block | Association::Loop | Association::Separator
            );
            let block = if needs_block {
                match self.block_after(d, &all[index + 1..], association) {
                    Ok(found) => Some(found),
                    Err(diagnostic) => {
                        self.model.diagnostics.push(diagnostic);
                        continue;
                    }
                }
            } else {
                None
            };
            let lines = match form {
                DirectiveForm::Pragma => {
                    self.file.start_of_line(d.span.start)..self.file.end_of_line(d.span.end)
                }
                _ => d.span.clone(),
            };
            if let Some((_, statement)) = &block {
                self.statements.insert(self.model.sites.len(), *statement);
            }
            self.model.sites.push(FoundSite {
                form,
                span: d.span.clone(),
                lines,
                directive,
                block: block.map(|(span, _)| span),
                end_site: None,
                implicit_section: None,
                loop_variables: Vec::new(),
                failed: false,
            });
        }
    }

    /// The statement a block or loop directive applies to, extended back
    /// over nested directives between the two, and its node.
    fn block_after(
        &self,
        d: &RawDirective,
        following: &[RawDirective],
        association: Association,
    ) -> Result<(Span, usize), Diagnostic> {
        let tree = self.tree;
        let name = self.file.text(d.span.clone()).trim().to_string();
        let Some(statement) = tree.first_node_from(d.span.end) else {
            return Err(Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                "nothing follows this directive",
            ));
        };
        let statement = tree.loop_under_hints(statement);
        let start = tree.span(statement).start;
        if let Some(token) = tree.visible_tokens(d.span.end..start).first() {
            return Err(Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                format!(
                    "a statement must follow this directive, found `{}`",
                    tree.text(token)
                ),
            ));
        }
        let node = &tree.nodes[statement];
        if node.class == Class::Declaration
            || tree.kind(statement) == CXCursor_DeclStmt
            || !tree.in_statement_position(statement)
        {
            let found = match (node.class, tree.kind(statement)) {
                (Class::Declaration, _) | (_, CXCursor_DeclStmt) => "a declaration",
                _ => "part of a statement",
            };
            return Err(Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                format!("a statement must follow this directive, found {found}"),
            ));
        }
        let is_loop = matches!(
            tree.kind(statement),
            CXCursor_ForStmt | CXCursor_CXXForRangeStmt
        );
        if association == Association::Loop && !is_loop {
            if let Some(diagnostic) = self.unknown_before_loop(d, start) {
                return Err(diagnostic);
            }
            return Err(Diagnostic::error(
                d.span.clone(),
                "loop directive not followed by a loop",
                format!("`{name}` must be followed by a `for` loop"),
            ));
        }
        // Directives between this one and the statement belong to the block:
        // `#pragma omp parallel` / `#pragma omp for` / loop.
        let first = following
            .iter()
            .take_while(|n| n.span.end <= start)
            .find(|n| n.span.start >= d.span.end)
            .map_or(start, |n| n.span.start.min(start));
        Ok((first..tree.statement_end(statement), statement))
    }

    /// The statement that begins at the first token the parser sees from
    /// `offset` on, if one does.
    fn statement_from(&self, offset: usize) -> Option<Span> {
        let tree = self.tree;
        let statement = tree.first_node_from(offset)?;
        let start = tree.span(statement).start;
        let usable = tree.visible_tokens(offset..start).is_empty()
            && tree.nodes[statement].class != Class::Declaration
            && tree.in_statement_position(statement);
        usable.then(|| start..tree.statement_end(statement))
    }

    /// Reports the unknown directive `d` and keeps the code it may apply
    /// to free of inserted calls, as the tree-sitter front end does.
    fn unknown_directive(
        &mut self,
        d: &RawDirective,
        neighbours: (Option<&RawDirective>, &[RawDirective]),
        error: &crate::directive::DirectiveError,
    ) {
        let span = d.text_span(&self.file.bytes, &error.span);
        let (before, following) = neighbours;
        if d.in_sequence((before, following.first())) {
            let error = crate::frontend::c::unknown_in_sequence(span, error);
            self.model.diagnostics.push(error);
            return;
        }
        // `#pragma pomp` lines are comments to the compiler.
        let code = (!d.pomp).then(|| self.statement_from(d.span.end)).flatten();
        if let Some(statement) = &code {
            self.model.no_insert.push(d.span.end..statement.end);
        }
        self.model
            .diagnostics
            .push(directive_left_as_written(span, error, code.is_some()));
    }

    fn unknown_before_loop(&self, d: &RawDirective, statement_start: usize) -> Option<Diagnostic> {
        crate::frontend::c::unknown_before_loop(self.file, &self.unknown, d, statement_start)
    }

    /// `sections` may begin without `#pragma omp section`: the statements
    /// before the first explicit section form an implicit one.
    fn implicit_sections(&mut self) {
        let tree = self.tree;
        let mut found = Vec::new();
        for (index, site) in self.model.sites.iter().enumerate() {
            if crate::directive::table()
                .divided_by(site.directive.spec())
                .is_none()
            {
                continue;
            }
            let (Some(block), Some(&body)) = (&site.block, self.statements.get(&index)) else {
                continue;
            };
            if tree.kind(body) != CXCursor_CompoundStmt || tree.span(body).end != block.end {
                continue;
            }
            let open = tree.span(body).start + 1;
            let statements = tree.children[body]
                .iter()
                .map(|&c| tree.span(c).start..tree.statement_end(c));
            if let Some(section) =
                crate::model::implicit_section(&self.model.sites, open, block.end, statements)
            {
                found.push((index, section));
            }
        }
        for (index, statements) in found {
            self.model.sites[index].implicit_section = Some(statements);
        }
    }

    /// The functions that hold directives, in file order.
    fn units(&mut self) {
        let tree = self.tree;
        let functions: Vec<usize> = (0..tree.nodes.len())
            .filter(|&n| {
                FUNCTION_KINDS.contains(&tree.kind(n))
                    && tree.nodes[n].span.is_some()
                    && tree.unit.is_definition(&tree.nodes[n])
            })
            .collect();
        for function in functions {
            let span = tree.span(function);
            let holds_a_site = self
                .model
                .sites
                .iter()
                .any(|s| span.contains(&s.span.start));
            if holds_a_site {
                let name = self.qualified_name(function);
                self.model.units.push(Unit::function(name, span));
            }
        }
        self.model.units.sort();
    }

    /// The function definitions and lambdas `regions` asks for, with
    /// where their bodies' code begins and ends.
    fn functions(&mut self, regions: CodeRegions) {
        let tree = self.tree;
        for node in 0..tree.nodes.len() {
            let kind = tree.kind(node);
            let wanted = match kind {
                CXCursor_LambdaExpr => regions.lambdas,
                _ => regions.functions && FUNCTION_KINDS.contains(&kind),
            };
            if !wanted || tree.nodes[node].span.is_none() {
                continue;
            }
            if kind != CXCursor_LambdaExpr && !tree.unit.is_definition(&tree.nodes[node]) {
                continue;
            }
            let Some(&body) = (tree.children[node].iter())
                .rev()
                .find(|&&c| tree.kind(c) == CXCursor_CompoundStmt)
            else {
                continue;
            };
            let span = tree.span(node);
            let body = tree.span(body);
            let bytes = &self.file.bytes;
            if body.is_empty() || bytes[body.start] != b'{' || bytes[body.end - 1] != b'}' {
                continue;
            }
            if crate::frontend::c::compile_time_head(&bytes[span.start..body.start]) {
                continue;
            }
            let (name, kind) = match kind {
                CXCursor_LambdaExpr => {
                    let outer =
                        std::iter::successors(tree.nodes[node].parent, |&p| tree.nodes[p].parent)
                            .find(|&p| FUNCTION_KINDS.contains(&tree.kind(p)))
                            .map_or("<file>".to_string(), |p| self.qualified_name(p));
                    let line = self.file.line_of(span.start);
                    (format!("{outer}::lambda@{line}"), FunctionKind::Lambda)
                }
                _ => {
                    let name = self.qualified_name(node);
                    let top_level = (tree.unit.semantic_parent(&tree.nodes[node]))
                        .is_none_or(|p| p.kind == CXCursor_TranslationUnit);
                    match name.as_str() {
                        "main" if top_level => (name, FunctionKind::Program),
                        _ => (name, FunctionKind::Function),
                    }
                }
            };
            self.model.functions.push(Function {
                name,
                kind,
                span,
                entry: body.start + 1,
                exit: body.end - 1,
                indent: String::new(),
            });
        }
        self.model.functions.sort_by_key(|f| f.span.start);
    }

    /// The function's name with the classes and namespaces it belongs to.
    fn qualified_name(&self, function: usize) -> String {
        let unit = self.tree.unit;
        let node = &self.tree.nodes[function];
        let mut names = vec![unit.spelling(node)];
        let mut scope = unit.semantic_parent(node);
        while let Some(s) = scope {
            let named_scope = matches!(
                s.kind,
                CXCursor_Namespace
                    | CXCursor_ClassDecl
                    | CXCursor_StructDecl
                    | CXCursor_ClassTemplate
                    | CXCursor_ClassTemplatePartialSpecialization
            );
            if !named_scope {
                break;
            }
            let name = unit.spelling(&s);
            if !name.is_empty() && !name.contains("(anonymous") && !name.contains("(unnamed") {
                names.push(name);
            }
            scope = unit.semantic_parent(&s);
        }
        names.reverse();
        names.join("::")
    }

    /// Lock routine calls, and the jumps user regions need.
    fn lock_calls_and_exits(&mut self) {
        let tree = self.tree;
        let user_regions = self
            .model
            .sites
            .iter()
            .any(|s| s.directive.role() == Some(Role::UserRegionBegin));
        for n in 0..tree.nodes.len() {
            let Some(span) = tree.nodes[n].span.clone() else {
                continue;
            };
            match tree.kind(n) {
                CXCursor_DeclRefExpr => self.lock_call(n, span),
                CXCursor_ReturnStmt if user_regions => {
                    let function = tree.innermost(n, BODY_KINDS);
                    self.model.exits.push(Exit {
                        span: span.start..tree.statement_end(n),
                        targets: vec![function.map_or(0, |f| tree.span(f).start)],
                    });
                }
                kind @ (CXCursor_BreakStmt | CXCursor_ContinueStmt) if user_regions => {
                    let mut targets = vec![
                        CXCursor_ForStmt,
                        CXCursor_CXXForRangeStmt,
                        CXCursor_WhileStmt,
                        CXCursor_DoStmt,
                    ];
                    if kind == CXCursor_BreakStmt {
                        targets.push(CXCursor_SwitchStmt);
                    }
                    if let Some(target) = tree.innermost(n, &targets) {
                        self.model.exits.push(Exit {
                            span: span.start..tree.statement_end(n),
                            targets: vec![tree.span(target).start],
                        });
                    }
                }
                CXCursor_GotoStmt if user_regions => {
                    let label = tree.children[n]
                        .iter()
                        .find(|&&c| tree.kind(c) == CXCursor_LabelRef)
                        .and_then(|&c| tree.unit.referenced(&tree.nodes[c]))
                        .and_then(|l| l.span);
                    if let Some(label) = label {
                        self.model.exits.push(Exit {
                            span: span.start..tree.statement_end(n),
                            targets: vec![label.start],
                        });
                    }
                }
                _ => {}
            }
        }
        self.model.exits.sort_by_key(|e| e.span.start);
    }

    /// A call whose callee is one of the lock routines, named as written.
    fn lock_call(&mut self, reference: usize, span: Span) {
        let tree = self.tree;
        let Ok(name) = std::str::from_utf8(&self.file.bytes[span.clone()]) else {
            return;
        };
        if !crate::frontend::LOCK_ROUTINES.contains(&name) {
            return;
        }
        // Up through implicit conversions to the call it is the callee of.
        let mut callee = reference;
        while let Some(parent) = tree.nodes[callee].parent {
            if tree.kind(parent) == CXCursor_UnexposedExpr && tree.span(parent) == span {
                callee = parent;
                continue;
            }
            if tree.kind(parent) == CXCursor_CallExpr
                && tree.children[parent].first() == Some(&callee)
            {
                self.model.lock_calls.push(LockCall {
                    span,
                    name: name.to_string(),
                });
            }
            return;
        }
    }

    /// A `declare target` written as an attribute of a function makes that
    /// function device code.
    fn declared_by_attribute(&mut self) {
        let tree = self.tree;
        let attributes: Vec<Span> = self
            .model
            .sites
            .iter()
            .filter(|site| site.declares_function_device_code())
            .map(|site| site.span.clone())
            .collect();
        for attribute in attributes {
            let next = tree.next_visible_token(attribute.end).map(|t| t.start);
            let function = (0..tree.nodes.len()).find(|&n| {
                let span = tree.span(n);
                FUNCTION_KINDS.contains(&tree.kind(n))
                    && tree.unit.is_definition(&tree.nodes[n])
                    && (Some(span.start) == next
                        || (span.contains(&attribute.start)
                            && tree.children[n]
                                .iter()
                                .filter(|&&c| tree.kind(c) == CXCursor_CompoundStmt)
                                .all(|&c| attribute.end <= tree.span(c).start)))
            });
            if let Some(function) = function {
                self.model.no_insert.push(tree.span(function));
            }
        }
    }
}
