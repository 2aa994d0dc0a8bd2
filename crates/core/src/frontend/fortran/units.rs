//! Program units, the end of their specification parts, and lock calls.

use super::analysis::Analysis;
use crate::diagnostics::Diagnostic;
use crate::language::fortran::fixed_form;
use crate::language::Language;
use crate::model::{CodeKind, Exit, Function, LockCall, LogicalIf, Unit};
use crate::source::Span;
use std::collections::HashSet;
use tree_sitter::Node;

const UNIT_KINDS: &[&str] = &["program", "subroutine", "function", "module_procedure"];

/// Statements that may stand in a specification part. `data`, `format` and
/// `entry` may also stand among executable statements; before the first
/// executable statement they are part of the specification part.
const SPECIFICATION_KINDS: &[&str] = &[
    "use_statement",
    "import_statement",
    "implicit_statement",
    "variable_declaration",
    "variable_modification",
    "parameter_statement",
    "data_statement",
    "format_statement",
    "entry_statement",
    "include_statement",
    "derived_type_definition",
    "interface",
    "common_statement",
    "equivalence_statement",
    "namelist_statement",
    "save_statement",
    "private_statement",
    "public_statement",
    "bind_statement",
    "cray_pointer_declaration",
    "enum",
    "enumeration_type",
    "preproc_include",
];

/// Lines that neither belong to a part nor end one.
const NEUTRAL_KINDS: &[&str] = &[
    "comment",
    "preproc_def",
    "preproc_function_def",
    "preproc_call",
];

const CONDITIONAL_KINDS: &[&str] = &["preproc_if", "preproc_ifdef"];

const UNIT_STATEMENT_KINDS: &[&str] = &[
    "program_statement",
    "subroutine_statement",
    "function_statement",
    "module_procedure_statement",
];

impl Analysis<'_> {
    pub(super) fn units(&mut self) {
        let mut found = Vec::new();
        collect_units(self.tree.root_node(), &mut found);
        let mut units: Vec<(Unit, Node)> = found
            .into_iter()
            .map(|node| (self.unit(node), node))
            .collect();
        units.sort_by_key(|(u, _)| u.span.start);
        (self.model.units, self.unit_nodes) = units.into_iter().unzip();
        // Sites are placed in their units before the model is complete.
        self.model.units.nest();
    }

    fn unit(&mut self, node: Node) -> Unit {
        let name = node
            .named_child(0)
            .filter(|s| UNIT_STATEMENT_KINDS.contains(&s.kind()))
            .and_then(|s| {
                s.child_by_field_name("name")
                    .or_else(|| named_child_of_kind(s, "name"))
            })
            .map(|n| self.parse_text_of(n).to_string())
            // A main program may omit its `program` statement.
            .unwrap_or_else(|| "main".to_string());
        let mut span = self.original_span(node);
        // The grammar lets a unit end after the newline of its last line.
        while span.end > span.start && self.file.bytes[span.end - 1].is_ascii_whitespace() {
            span.end -= 1;
        }
        let (declarations_at, reference) = self.end_of_specification(node);
        let indent = match reference {
            Some(statement) => self.indent_of(statement),
            None => String::new(),
        };
        let indent = match self.file.language {
            Language::FortranFixed if !fixed_form::reaches_statement_field(&indent) => {
                fixed_form::STATEMENT_INDENT.to_string()
            }
            _ => indent,
        };
        Unit {
            name,
            span,
            declarations_at,
            indent,
            parent: None,
        }
    }

    /// Each unit as a function region (`--regions=functions`): its code
    /// from the end of its specification part to the `contains` or `end`
    /// statement that ends its execution part.
    pub(super) fn functions(&mut self) {
        if !self.regions.functions {
            return;
        }
        for (index, &node) in self.unit_nodes.iter().enumerate() {
            let unit = &self.model.units[index];
            let Some(entry) = unit.declarations_at else {
                continue;
            };
            // A library header's units are the library's.
            if self.file.in_library_header(unit.span.start) {
                continue;
            }
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            let ending = (children.iter())
                .find(|c| c.kind() == "internal_procedures")
                .or_else(|| children.iter().rev().find(|c| c.kind().starts_with("end_")));
            let Some(&ending) = ending else {
                continue;
            };
            let at = self.original_span(ending).start;
            let exit = self.file.start_of_line(at);
            if exit < entry {
                continue;
            }
            let label = self.file.text(exit..at);
            if !label.trim().is_empty() && label.trim().bytes().all(|b| b.is_ascii_digit()) {
                // A jump to the label would pass the end call by.
                self.model.diagnostics.push(Diagnostic::warning(
                    at..self.original_span(ending).end,
                    format!("`{}` is not measured as a function region", unit.name),
                    "its last statement has a label, which a jump may reach past an end call",
                ));
                continue;
            }
            let mut scopes: Vec<String> = std::iter::successors(node.parent(), |n| n.parent())
                .filter(|n| {
                    matches!(n.kind(), "module" | "submodule" | "program")
                        || UNIT_KINDS.contains(&n.kind())
                })
                .filter_map(|n| {
                    let statement = n.named_child(0)?;
                    let name = statement
                        .child_by_field_name("name")
                        .or_else(|| named_child_of_kind(statement, "name"))?;
                    Some(self.parse_text_of(name).to_string())
                })
                .collect();
            scopes.reverse();
            scopes.push(unit.name.clone());
            let name = scopes.join("::");
            self.model.functions.push(Function {
                unit: Some(name.clone()),
                name,
                kind: match node.kind() {
                    "program" => CodeKind::Program,
                    _ => CodeKind::Function,
                },
                span: unit.span.clone(),
                entry,
                exit,
                indent: unit.indent.clone(),
                declaration: false,
            });
        }
    }

    /// Where declarations go, and the statement whose indentation they take.
    fn end_of_specification<'t>(&mut self, unit: Node<'t>) -> (Option<usize>, Option<Node<'t>>) {
        let mut cursor = unit.walk();
        let children: Vec<Node> = unit.named_children(&mut cursor).collect();
        let mut last_specification = None;
        // The last specification statement that is no preprocessor line:
        // the one whose indentation new declarations take.
        let mut last_declaration = None;
        let mut first_executable = None;
        let mut arrays = HashSet::new();
        for (index, &child) in children.iter().enumerate() {
            let kind = child.kind();
            if index == 0 && UNIT_STATEMENT_KINDS.contains(&kind) {
                last_specification = Some(child);
                continue;
            }
            if NEUTRAL_KINDS.contains(&kind) || kind == "statement_label" {
                continue;
            }
            let specification = if CONDITIONAL_KINDS.contains(&kind) {
                self.is_specification_only(child, &arrays)
            } else {
                self.is_specification(child, &arrays)
            };
            if !specification {
                first_executable = Some(child);
                break;
            }
            collect_array_names(child, self, &mut arrays);
            last_specification = Some(child);
            if !kind.starts_with("preproc") && kind != "format_statement" {
                last_declaration = Some(child);
            }
        }
        let Some(last) = last_specification else {
            // A main program without `program` statement or declarations.
            let at = self.file.start_of_line(self.original_span(unit).start);
            return (Some(at), first_executable);
        };
        let end = self.original_span(last).end;
        let at = self
            .file
            .end_of_line(end.saturating_sub(1).max(self.original_span(last).start));
        if let Some(next) = first_executable {
            if self.original_span(next).start < at {
                self.model.diagnostics.push(Diagnostic::warning(
                    self.original_span(next),
                    "the specification part ends within a line",
                    "first executable statement",
                ));
                return (None, Some(last));
            }
        }
        let reference = last_declaration.or(first_executable).or(Some(last));
        (Some(at), reference)
    }

    fn is_specification(&self, node: Node, arrays: &HashSet<String>) -> bool {
        SPECIFICATION_KINDS.contains(&node.kind()) || self.is_statement_function(node, arrays)
    }

    /// A preprocessor conditional counts as specification when everything
    /// in all its branches does.
    fn is_specification_only(&self, node: Node, arrays: &HashSet<String>) -> bool {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        children.iter().all(|&child| match child.kind() {
            "preproc_else" | "preproc_elif" | "preproc_elifdef" => {
                self.is_specification_only(child, arrays)
            }
            "identifier"
            | "preproc_arg"
            | "preproc_defined"
            | "binary_expression"
            | "unary_expression"
            | "parenthesized_expression"
            | "number_literal"
            | "call_expression"
            | "logical_expression" => true,
            kind if NEUTRAL_KINDS.contains(&kind) => true,
            kind if CONDITIONAL_KINDS.contains(&kind) => self.is_specification_only(child, arrays),
            _ => self.is_specification(child, arrays),
        })
    }

    /// `f(x, y) = expression` defines a statement function unless `f` is an
    /// array: arrays must be declared as such, and a substring has a `:`.
    fn is_statement_function(&self, node: Node, arrays: &HashSet<String>) -> bool {
        if node.kind() != "assignment_statement" {
            return false;
        }
        let Some(left) = node
            .named_child(0)
            .filter(|n| n.kind() == "call_expression")
        else {
            return false;
        };
        let Some(name) = callee_of(left) else {
            return false;
        };
        let Some(arguments) = named_child_of_kind(left, "argument_list") else {
            return false;
        };
        let mut cursor = arguments.walk();
        let plain_dummies = arguments
            .named_children(&mut cursor)
            .all(|a| a.kind() == "identifier");
        plain_dummies && !arrays.contains(&self.parse_text_of(name).to_ascii_lowercase())
    }

    fn indent_of(&self, statement: Node) -> String {
        let start = self.parse.to_original(statement.start_byte());
        let line_start = self.file.start_of_line(start);
        let prefix = &self.file.bytes[line_start..start];
        if prefix.iter().all(|&b| b == b' ' || b == b'\t') {
            String::from_utf8_lossy(prefix).into_owned()
        } else {
            // A label or a `!$` sentinel stands before the statement.
            " ".repeat(prefix.len())
        }
    }

    /// Lock calls and jumps, in one walk over the tree. Jumps matter only
    /// to user regions: without one they are not collected.
    pub(super) fn lock_calls_and_exits(&mut self) {
        let user_regions = self.regions.any()
            || (self.model.sites.iter())
                .any(|s| s.directive.role() == Some(crate::directive::Role::UserRegionBegin));
        let mut calls = Vec::new();
        let mut exits = Vec::new();
        let mut logical_ifs = Vec::new();
        // (unit start, label, where the labelled statement starts)
        let mut labels: Vec<(usize, u32, usize)> = Vec::new();
        let mut gotos: Vec<(Span, usize, Vec<u32>, Option<usize>)> = Vec::new();
        let mut cursor = self.tree.walk();
        let mut stack = vec![self.tree.root_node()];
        while let Some(node) = stack.pop() {
            if user_regions {
                match node.kind() {
                    "keyword_statement" => {
                        if let Some(jump) = self.jump(node) {
                            let span = self.exit_span(node, &mut logical_ifs);
                            match jump {
                                Jump::To(targets) => exits.push(Exit { span, targets }),
                                Jump::ToLabels(refs, fallthrough) => {
                                    gotos.push((span, unit_start(node), refs, fallthrough))
                                }
                            }
                        }
                    }
                    // The run ends: every region around is left.
                    "stop_statement" if self.regions.any() => {
                        let span = self.exit_span(node, &mut logical_ifs);
                        exits.push(Exit {
                            span,
                            targets: Vec::new(),
                        });
                    }
                    "arithmetic_if_statement" => {
                        let refs = self.label_references(node);
                        gotos.push((self.original_span(node), unit_start(node), refs, None));
                    }
                    // Loops sharing a terminal statement: the grammar gives
                    // the inner one a virtual label over the real one.
                    "statement_label" | "do_label_virtual" if node.is_named() => {
                        if let Some(label) = self.label_number(node) {
                            let at = self.original_span(node).start;
                            labels.push((unit_start(node), label, at));
                        }
                    }
                    _ => {}
                }
            }
            let callee = match node.kind() {
                "subroutine_call" => node.child_by_field_name("subroutine"),
                "call_expression" => callee_of(node),
                _ => None,
            };
            if let Some(callee) = callee.filter(|c| c.kind() == "identifier") {
                let name = self.parse_text_of(callee).to_ascii_lowercase();
                let span = self.original_span(callee);
                // A library header's calls are the library's own.
                if crate::frontend::reading::LOCK_ROUTINES.contains(&name.as_str())
                    && !self.file.in_library_header(span.start)
                {
                    if span.len() == callee.byte_range().len() {
                        calls.push(LockCall { span, name });
                    } else {
                        self.model.diagnostics.push(Diagnostic::warning(
                            span,
                            "lock routine name split over a continuation line is left alone",
                            "not renamed",
                        ));
                    }
                }
            }
            stack.extend(node.children(&mut cursor));
        }
        // A label names a statement of its own program unit.
        labels.sort();
        for (span, unit, refs, fallthrough) in gotos {
            let mut targets: Vec<usize> = refs
                .iter()
                .filter_map(|&label| {
                    let at = labels.partition_point(|&(u, l, _)| (u, l) < (unit, label));
                    labels
                        .get(at)
                        .filter(|&&(u, l, _)| (u, l) == (unit, label))
                        .map(|&(_, _, target)| target)
                })
                .collect();
            if targets.len() == refs.len() && !targets.is_empty() {
                targets.extend(fallthrough);
                exits.push(Exit { span, targets });
            }
        }
        calls.sort_by_key(|c| c.span.start);
        self.model.lock_calls = calls;
        exits.sort_by_key(|e| e.span.start);
        self.model.exits = exits;
        logical_ifs.sort_by_key(|l| l.start);
        self.model.fortran.logical_ifs = logical_ifs;
    }

    /// Where a `return`, `exit`, `cycle` or `go to` statement goes.
    fn jump(&self, statement: Node) -> Option<Jump> {
        let keyword = statement.child(0)?;
        let name = || {
            let mut cursor = statement.walk();
            let found = statement
                .named_children(&mut cursor)
                .find(|c| c.kind() == "identifier")
                .map(|c| self.parse_text_of(c).to_ascii_lowercase());
            found
        };
        match keyword.kind() {
            // A return leaves the unit: its start is outside every region.
            "return" => Some(Jump::To(vec![
                self.original_span(enclosing_unit(statement)?).start,
            ])),
            // `cycle` continues a loop and `exit` leaves a loop, or with a
            // name any construct so named: either way control stays inside
            // exactly the regions that hold the construct.
            kind @ ("exit" | "cycle") => {
                let construct = match name() {
                    Some(name) => self.named_construct(statement, &name, kind == "cycle")?,
                    None => innermost_do_loop(statement)?,
                };
                Some(Jump::To(vec![self.original_span(construct).start]))
            }
            "go" | "goto" => {
                let refs = self.label_references(statement);
                if refs.is_empty() {
                    // An assigned `go to k`: the target is unknown here.
                    return None;
                }
                // A computed `go to (10, 20) k` falls through when k is out
                // of range.
                let computed = statement
                    .children(&mut statement.walk())
                    .any(|c| c.kind() == "(");
                let fallthrough = computed.then(|| self.original_span(statement).end);
                Some(Jump::ToLabels(refs, fallthrough))
            }
            _ => None,
        }
    }

    /// The construct named `name` that holds `statement` (only a loop when
    /// `loops_only`).
    fn named_construct<'t>(
        &self,
        statement: Node<'t>,
        name: &str,
        loops_only: bool,
    ) -> Option<Node<'t>> {
        let mut at = statement.parent();
        while let Some(node) = at {
            if UNIT_KINDS.contains(&node.kind()) {
                return None;
            }
            let labelled = (!loops_only || node.kind() == "do_loop")
                && named_child_of_kind(node, "block_label_start_expression").is_some_and(|l| {
                    let text = self.parse_text_of(l);
                    text.trim_end_matches(':').trim().eq_ignore_ascii_case(name)
                });
            if labelled {
                return Some(node);
            }
            at = node.parent();
        }
        None
    }

    fn label_references(&self, node: Node) -> Vec<u32> {
        let mut cursor = node.walk();
        let refs: Vec<u32> = node
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "statement_label_reference")
            .filter_map(|c| self.label_number(c))
            .collect();
        refs
    }

    fn label_number(&self, node: Node) -> Option<u32> {
        let text: String = self
            .parse_text_of(node)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        text.parse().ok()
    }

    /// The span a jump is rewritten over: the statement, or for the action
    /// of a logical `if` (`if (c) return`) the whole `if` statement, which
    /// the output turns into an `if` construct; such a statement goes into
    /// `logical_ifs` with where its action starts.
    fn exit_span(&self, statement: Node, logical_ifs: &mut Vec<LogicalIf>) -> Span {
        let span = self.original_span(statement);
        let logical_if = statement.parent().filter(|p| {
            let mut cursor = p.walk();
            p.kind() == "if_statement"
                && !p
                    .children(&mut cursor)
                    .any(|c| c.kind() == "end_if_statement")
        });
        match logical_if {
            Some(if_statement) => {
                let start = self.original_span(if_statement).start;
                logical_ifs.push(LogicalIf {
                    start,
                    action: span.start,
                });
                start..span.end
            }
            None => span,
        }
    }
}

enum Jump {
    /// Offsets control goes to.
    To(Vec<usize>),
    /// Statement labels, and the offset a computed `go to` falls through to.
    ToLabels(Vec<u32>, Option<usize>),
}

fn enclosing_unit(node: Node) -> Option<Node> {
    let mut at = node.parent();
    while let Some(n) = at {
        if UNIT_KINDS.contains(&n.kind()) {
            return Some(n);
        }
        at = n.parent();
    }
    None
}

/// The program unit labels are scoped to, by where it starts (0 outside
/// any).
fn unit_start(node: Node) -> usize {
    enclosing_unit(node).map_or(0, |u| u.start_byte())
}

fn innermost_do_loop(node: Node) -> Option<Node> {
    let mut at = node.parent();
    while let Some(n) = at {
        match n.kind() {
            "do_loop" => return Some(n),
            kind if UNIT_KINDS.contains(&kind) => return None,
            _ => at = n.parent(),
        }
    }
    None
}

/// The name called in `name(arguments)`. The grammar does not always set
/// the `function` field.
fn callee_of(call: Node) -> Option<Node> {
    call.child_by_field_name("function")
        .or_else(|| call.named_child(0))
        .filter(|n| n.kind() == "identifier")
}

pub(super) fn named_child_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).find(|c| c.kind() == kind);
    found
}

/// Nodes that may hold program units: the file, units and modules (in
/// their `contains` part), and preprocessor conditionals around them.
const UNIT_CONTAINER_KINDS: &[&str] = &[
    "translation_unit",
    "program",
    "module",
    "submodule",
    "subroutine",
    "function",
    "module_procedure",
    "internal_procedures",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
    "ERROR",
];

/// Units in the tree, except interface bodies, which have no code. Only
/// nodes that may hold units are descended into: statements and
/// expressions never do.
fn collect_units<'t>(node: Node<'t>, found: &mut Vec<Node<'t>>) {
    if node.kind() == "interface" {
        return;
    }
    if UNIT_KINDS.contains(&node.kind()) {
        found.push(node);
    }
    if !UNIT_CONTAINER_KINDS.contains(&node.kind()) {
        return;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        collect_units(child, found);
    }
}

/// Names declared with a shape in a specification statement.
fn collect_array_names(node: Node, analysis: &Analysis, arrays: &mut HashSet<String>) {
    if matches!(node.kind(), "interface" | "derived_type_definition") {
        return;
    }
    let declares_shape = match node.kind() {
        "sized_declarator" | "coarray_declarator" => true,
        "variable_declaration" | "variable_modification" => {
            let text = analysis.parse_text_of(node).to_ascii_lowercase();
            text.contains("dimension")
        }
        _ => false,
    };
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    if declares_shape {
        for child in &children {
            if child.kind() == "identifier" {
                arrays.insert(analysis.parse_text_of(*child).to_ascii_lowercase());
            }
        }
    }
    for child in children {
        collect_array_names(child, analysis, arrays);
    }
}
