//! The tree-sitter front end for C and C++.
//!
//! Directives are found lexically ([`scan`]), masked with spaces of the same
//! length, and the masked text is parsed: offsets stay the same and the
//! grammar sees plain C, so a pragma between `if (c)` and its statement no
//! longer confuses it. A directive's block is then the statement that begins
//! at the first token after it.

pub mod scan;
mod unknown;

use super::FrontEnd;
use crate::diagnostics::Diagnostic;
use crate::directive::{
    parse_declaration_attribute, parse_directive, Association, Parsed, Problem, Sentinel,
};
use crate::frontend::unknown::{clause_left_as_written, invalid_directive};
use crate::model::{DirectiveForm, Exit, LockCall, Model, Site, Unit};
use crate::source::{Language, SourceFile, Span};
use scan::{RawDirective, RawKind};
use tree_sitter::{Node, Parser, Tree};

pub struct TreeSitterC;

const STATEMENT_KINDS: &[&str] = &[
    "compound_statement",
    "expression_statement",
    "if_statement",
    "for_statement",
    "for_range_loop",
    "while_statement",
    "do_statement",
    "switch_statement",
    "return_statement",
    "break_statement",
    "continue_statement",
    "goto_statement",
    "labeled_statement",
    "case_statement",
    "attributed_statement",
    "try_statement",
    "throw_statement",
    "co_return_statement",
    "co_yield_statement",
    "seh_try_statement",
];

const LOOP_KINDS: &[&str] = &["for_statement", "for_range_loop"];

impl FrontEnd for TreeSitterC {
    fn name(&self) -> &'static str {
        "tree-sitter"
    }

    fn read(&self, file: &SourceFile) -> Model {
        let raw = scan::scan(&file.bytes);
        if raw.is_empty() && !mentions_lock_routine(&file.bytes) {
            // Nothing can change: the syntax tree would not be looked at.
            return Model::default();
        }
        let masked = mask(&file.bytes, &raw);
        let tree = parse(&masked, file.language);
        let mut analysis = Analysis {
            file,
            masked: &masked,
            tree: &tree,
            model: Model::default(),
            unknown: Vec::new(),
        };
        analysis.directives(&raw);
        analysis.implicit_sections();
        analysis.units();
        analysis.lock_calls_and_exits();
        analysis.declared_by_attribute();
        analysis.model
    }
}

/// What a `continue` continues: the innermost of these.
const CONTINUE_TARGETS: &[&str] = &[
    "for_statement",
    "for_range_loop",
    "while_statement",
    "do_statement",
];

/// What a `break` leaves: the innermost loop or `switch`.
const BREAK_TARGETS: &[&str] = &[
    "for_statement",
    "for_range_loop",
    "while_statement",
    "do_statement",
    "switch_statement",
];

/// Bodies a jump cannot leave.
const FUNCTION_KINDS: &[&str] = &["function_definition", "lambda_expression"];

/// The innermost enclosing node of one of `kinds`, within the function.
fn innermost_of<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut at = node.parent();
    while let Some(n) = at {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        if FUNCTION_KINDS.contains(&n.kind()) {
            return None;
        }
        at = n.parent();
    }
    None
}

/// Where the function (or lambda) holding `node` starts: a `return` goes
/// there, and labels are its own.
fn enclosing_function_start(node: Node) -> usize {
    let mut at = node.parent();
    while let Some(n) = at {
        if FUNCTION_KINDS.contains(&n.kind()) {
            return n.start_byte();
        }
        at = n.parent();
    }
    0
}

/// Whether a lock routine's name occurs anywhere, as a whole word (a cheap
/// over-approximation of a call to one).
fn mentions_lock_routine(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"omp_").any(|at| {
        let word_start = at == 0 || !scan::is_ident(bytes[at - 1]);
        let end = bytes[at..]
            .iter()
            .position(|b| !scan::is_ident(*b))
            .map_or(bytes.len(), |len| at + len);
        word_start
            && std::str::from_utf8(&bytes[at..end]).is_ok_and(|w| super::LOCK_ROUTINES.contains(&w))
    })
}

fn mask(bytes: &[u8], raw: &[RawDirective]) -> Vec<u8> {
    let mut masked = bytes.to_vec();
    for d in raw {
        if matches!(d.kind, RawKind::InMacro { .. }) {
            continue;
        }
        for b in &mut masked[d.span.clone()] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    masked
}

fn parse(text: &[u8], language: Language) -> Tree {
    let mut parser = Parser::new();
    let grammar: tree_sitter::Language = match language {
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        _ => tree_sitter_c::LANGUAGE.into(),
    };
    parser
        .set_language(&grammar)
        .expect("tree-sitter grammar matches the library version");
    parser
        .parse(text, None)
        .expect("parsing without a timeout or cancellation always returns a tree")
}

struct Analysis<'a> {
    file: &'a SourceFile,
    masked: &'a [u8],
    tree: &'a Tree,
    model: Model,
    /// Directives the table does not know.
    unknown: Vec<Span>,
}

impl Analysis<'_> {
    fn directives(&mut self, raw: &[RawDirective]) {
        let parsed: Vec<Option<Result<Parsed, _>>> = raw
            .iter()
            .map(|d| {
                let sentinel = if d.pomp {
                    Sentinel::Pomp
                } else {
                    Sentinel::Omp
                };
                match d.kind {
                    RawKind::InMacro { .. } => None,
                    RawKind::DeclarationAttribute => {
                        Some(parse_declaration_attribute(&d.text, self.file.language))
                    }
                    _ => Some(parse_directive(&d.text, sentinel, self.file.language)),
                }
            })
            .collect();
        self.unknown = raw
            .iter()
            .zip(&parsed)
            .filter(|(_, p)| matches!(p, Some(Err(e)) if e.problem == Problem::Unknown))
            .map(|(d, _)| d.span.clone())
            .collect();
        for ((index, d), parsed) in raw.iter().enumerate().zip(parsed) {
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
            let directive = match parsed.expect("parsed unless in a macro") {
                Ok(parsed) => {
                    for clause in &parsed.unknown {
                        let span = self.text_span(d, &clause.span);
                        let warning = clause_left_as_written(span, clause);
                        self.model.diagnostics.push(warning);
                    }
                    parsed.directive
                }
                Err(e) if e.problem == Problem::Unknown => {
                    let before = index.checked_sub(1).map(|i| &raw[i]);
                    self.unknown_directive(d, (before, &raw[index + 1..]), &e);
                    continue;
                }
                Err(e) => {
                    let span = self.text_span(d, &e.span);
                    self.model.diagnostics.push(invalid_directive(span, &e));
                    continue;
                }
            };
            let association = directive.spec().association;
            let lines = match form {
                DirectiveForm::Pragma => {
                    self.file.start_of_line(d.span.start)..self.file.end_of_line(d.span.end)
                }
                _ => d.span.clone(),
            };
            let mut site = Site {
                form,
                span: d.span.clone(),
                lines,
                directive,
                block: None,
                end_site: None,
                implicit_section: None,
                unit: None,
                parent: None,
                failed: false,
            };
            if matches!(
                association,
                Association::Block | Association::Loop | Association::Separator
            ) {
                match self.block_after(d, &raw[index + 1..], association) {
                    Ok(block) => site.block = Some(block),
                    Err(diagnostic) => {
                        self.model.diagnostics.push(diagnostic);
                        continue;
                    }
                }
            }
            self.model.sites.push(site);
        }
    }

    /// Map a span inside a directive's text back to the file, as closely as
    /// the cleaned text allows (exact for the common one-line pragma).
    fn text_span(&self, d: &RawDirective, inner: &Span) -> Span {
        let original = &self.file.bytes[d.span.clone()];
        let needle = d.text.as_bytes();
        if let Some(at) = original
            .windows(needle.len().max(1))
            .position(|w| w == needle)
        {
            let start = d.span.start + at + inner.start.min(needle.len());
            let end = d.span.start + at + inner.end.min(needle.len());
            return start..end.max(start + 1).min(d.span.end);
        }
        d.span.clone()
    }

    /// The statement a block or loop directive applies to, extended back
    /// over nested directives between the two.
    fn block_after(
        &self,
        d: &RawDirective,
        following: &[RawDirective],
        association: Association,
    ) -> Result<Span, Diagnostic> {
        let mut start = self.next_token(d.span.end, following);
        let name = self.file.text(d.span.clone()).trim().to_string();
        if start >= self.masked.len() {
            return Err(Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                "nothing follows this directive",
            ));
        }
        let root = self.tree.root_node();
        let leaf = root
            .descendant_for_byte_range(start, start + 1)
            .ok_or_else(|| {
                Diagnostic::error(
                    d.span.clone(),
                    "directive without a block",
                    "no statement follows this directive",
                )
            })?;
        let statement = highest_statement_at(leaf, start).ok_or_else(|| {
            let found = leaf
                .parent()
                .map(|p| p.kind())
                .unwrap_or(leaf.kind())
                .replace('_', " ");
            Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                format!("a statement must follow this directive, found {found}"),
            )
        })?;
        if statement.has_error() || statement.is_missing() || has_error_ancestor(statement) {
            let error = first_error(statement).unwrap_or(statement);
            return Err(Diagnostic::error(
                d.span.clone(),
                "the block of this directive could not be parsed exactly",
                "this directive's block",
            )
            .with_note(format!(
                "the parser reports a syntax problem at line {}; pomp never guesses where a block ends",
                self.file.line_of(error.start_byte())
            )));
        }
        if association == Association::Loop && !LOOP_KINDS.contains(&statement.kind()) {
            if let Some(diagnostic) = self.unknown_before_loop(d, statement.start_byte()) {
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
        if let Some(first) = following
            .iter()
            .take_while(|n| n.span.end <= statement.start_byte())
            .find(|n| n.span.start >= d.span.end)
        {
            start = start.min(first.span.start);
        }
        Ok(start..statement.end_byte())
    }

    /// First byte after `from` that is neither white space, a comment nor
    /// a masked directive.
    fn next_token(&self, from: usize, following: &[RawDirective]) -> usize {
        let mut i = from;
        loop {
            while i < self.masked.len() && self.masked[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= self.masked.len() {
                return i;
            }
            if let Some(node) = self.tree.root_node().descendant_for_byte_range(i, i + 1) {
                if node.kind() == "comment" {
                    i = node.end_byte();
                    continue;
                }
            }
            // `following` is sorted by position: only a directive starting
            // at or before `i` can cover it.
            let before = following.partition_point(|d| d.span.start <= i);
            if let Some(d) = before
                .checked_sub(1)
                .map(|at| &following[at])
                .filter(|d| d.span.contains(&i))
            {
                i = d.span.end;
                continue;
            }
            return i;
        }
    }

    /// `sections` may begin without `#pragma omp section`: the statements
    /// before the first explicit section form an implicit one.
    fn implicit_sections(&mut self) {
        let mut found = Vec::new();
        for (index, site) in self.model.sites.iter().enumerate() {
            if crate::directive::table()
                .divided_by(site.directive.spec())
                .is_none()
            {
                continue;
            }
            let Some(block) = site.block.clone() else {
                continue;
            };
            let Some(body) = self
                .tree
                .root_node()
                .descendant_for_byte_range(block.end - 1, block.end)
            else {
                continue;
            };
            let Some(body) = body
                .parent()
                .filter(|p| p.kind() == "compound_statement" && p.end_byte() == block.end)
            else {
                continue;
            };
            let open = body.start_byte() + 1;
            // Sites are sorted by position: look only at those inside the body.
            let sites = &self.model.sites;
            let first_section = sites[sites.partition_point(|s| s.span.start <= open)..]
                .iter()
                .take_while(|s| s.span.end < block.end)
                .find(|s| s.directive.is_separator())
                .map(|s| s.span.start)
                .unwrap_or(block.end - 1);
            let mut cursor = body.walk();
            let statements: Vec<Node> = body
                .named_children(&mut cursor)
                .filter(|n| {
                    n.kind() != "comment" && n.end_byte() <= first_section && n.start_byte() >= open
                })
                .collect();
            // Directive lines are masked, so no statement holds them: a
            // section that starts with a directive starts there, and one
            // made of standalone directives alone is a section too.
            let directives: Vec<&Site> = sites[sites.partition_point(|s| s.span.start <= open)..]
                .iter()
                .take_while(|s| s.span.end <= first_section)
                .collect();
            let start = (statements.first().map(|n| n.start_byte()))
                .into_iter()
                .chain(directives.first().map(|s| s.span.start))
                .min();
            // A directive's whole lines are rewritten: a section ending
            // with one ends after its line.
            let end = (statements.last().map(|n| n.end_byte()))
                .into_iter()
                .chain(directives.last().map(|s| s.lines.end.min(first_section)))
                .max();
            if let (Some(start), Some(end)) = (start, end) {
                found.push((index, start..end));
            }
        }
        for (index, statements) in found {
            self.model.sites[index].implicit_section = Some(statements);
        }
    }

    /// The functions that hold directives, in file order.
    fn units(&mut self) {
        let root = self.tree.root_node();
        let mut seen: std::collections::HashSet<Span> = Default::default();
        for index in 0..self.model.sites.len() {
            let at = self.model.sites[index].span.start;
            let Some(node) = root.descendant_for_byte_range(at, at) else {
                continue;
            };
            for function in ancestors(node).filter(|n| n.kind() == "function_definition") {
                let span = function.byte_range();
                if seen.insert(span.clone()) {
                    self.model.units.push(Unit {
                        name: self.qualified_name(function),
                        span,
                        declarations_at: None,
                        indent: String::new(),
                        parent: None,
                    });
                }
            }
        }
        self.model
            .units
            .sort_by_key(|u| (u.span.start, std::cmp::Reverse(u.span.end)));
    }

    fn qualified_name(&self, function: Node) -> String {
        let mut declarator = function.child_by_field_name("declarator");
        while let Some(d) = declarator {
            if d.kind() == "function_declarator" {
                break;
            }
            declarator = d.child_by_field_name("declarator");
        }
        let own = declarator
            .and_then(|d| d.child_by_field_name("declarator"))
            .map(|n| self.node_text(n))
            .unwrap_or_else(|| "<anonymous>".into());
        let mut scopes: Vec<String> = ancestors(function)
            .filter(|n| {
                matches!(
                    n.kind(),
                    "namespace_definition" | "class_specifier" | "struct_specifier"
                )
            })
            .filter_map(|n| {
                n.child_by_field_name("name")
                    .map(|name| self.node_text(name))
            })
            .collect();
        scopes.reverse();
        scopes.push(own);
        scopes.join("::")
    }

    fn node_text(&self, node: Node) -> String {
        let text = String::from_utf8_lossy(&self.masked[node.byte_range()]);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Lock routine calls and jumps, in one walk over the tree. Jumps
    /// matter only to user regions: without one they are not collected.
    fn lock_calls_and_exits(&mut self) {
        let user_regions = self
            .model
            .sites
            .iter()
            .any(|s| s.directive.role() == Some(crate::directive::Role::UserRegionBegin));
        let mut labels: Vec<(usize, &[u8], usize)> = Vec::new();
        let mut gotos: Vec<(Span, usize, &[u8])> = Vec::new();
        let mut cursor = self.tree.walk();
        'walk: loop {
            let node = cursor.node();
            match node.kind() {
                "call_expression" => self.lock_call(node),
                "return_statement" | "co_return_statement" if user_regions => {
                    self.model.exits.push(Exit {
                        span: node.byte_range(),
                        targets: vec![enclosing_function_start(node)],
                    });
                }
                kind @ ("break_statement" | "continue_statement") if user_regions => {
                    let leaves = if kind == "break_statement" {
                        BREAK_TARGETS
                    } else {
                        CONTINUE_TARGETS
                    };
                    if let Some(target) = innermost_of(node, leaves) {
                        self.model.exits.push(Exit {
                            span: node.byte_range(),
                            targets: vec![target.start_byte()],
                        });
                    }
                }
                "goto_statement" if user_regions => {
                    if let Some(label) = node.child_by_field_name("label") {
                        let name = &self.masked[label.byte_range()];
                        gotos.push((node.byte_range(), enclosing_function_start(node), name));
                    }
                }
                "labeled_statement" if user_regions => {
                    if let Some(label) = node.child_by_field_name("label") {
                        let name = &self.masked[label.byte_range()];
                        labels.push((enclosing_function_start(node), name, node.start_byte()));
                    }
                }
                _ => {}
            }
            // Depth first, in source order.
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        // A label names a statement of its function (lambdas included).
        labels.sort();
        for (span, function, name) in gotos {
            let at = labels.partition_point(|(f, n, _)| (*f, *n) < (function, name));
            if let Some(&(_, _, target)) = labels
                .get(at)
                .filter(|(f, n, _)| (*f, *n) == (function, name))
            {
                self.model.exits.push(Exit {
                    span,
                    targets: vec![target],
                });
            }
        }
        self.model.exits.sort_by_key(|e| e.span.start);
    }

    fn lock_call(&mut self, call: Node) {
        let Some(function) = call
            .child_by_field_name("function")
            .filter(|f| f.kind() == "identifier")
        else {
            return;
        };
        let name = std::str::from_utf8(&self.masked[function.byte_range()]);
        if let Some(name) = name.ok().filter(|n| super::LOCK_ROUTINES.contains(n)) {
            self.model.lock_calls.push(LockCall {
                span: function.byte_range(),
                name: name.to_string(),
            });
        }
    }

    /// A `declare target` written as an attribute of a function
    /// (`[[omp::decl(declare_target)]]`) makes that function device code:
    /// which declaration an attribute belongs to only the tree knows.
    fn declared_by_attribute(&mut self) {
        let attributes: Vec<Span> = self
            .model
            .sites
            .iter()
            .filter(|site| {
                let names_list = ["to", "enter", "link"]
                    .iter()
                    .any(|c| site.directive.has_clause(c));
                site.directive.spec().device
                    && site.directive.spec().association == Association::Declarative
                    && site.form == DirectiveForm::Attribute
                    && site.directive.argument.is_none()
                    && !names_list
            })
            .map(|site| site.span.clone())
            .collect();
        for attribute in attributes {
            if let Some(function) = self.function_of_attribute(&attribute) {
                self.model.no_insert.push(function);
            }
        }
    }

    fn function_of_attribute(&self, attribute: &Span) -> Option<Span> {
        let root = self.tree.root_node();
        let is_function = |n: &Node| n.kind() == "function_definition";
        let around = root.descendant_for_byte_range(attribute.start, attribute.end)?;
        let holding = std::iter::once(around)
            .chain(ancestors(around))
            .find(is_function)
            .filter(|f| {
                f.child_by_field_name("body")
                    .is_none_or(|body| attribute.end <= body.start_byte())
            });
        let following = || {
            let start = self.next_token(attribute.end, &[]);
            let leaf = root.descendant_for_byte_range(start, start + 1)?;
            std::iter::once(leaf)
                .chain(ancestors(leaf))
                .take_while(|n| n.start_byte() == start)
                .find(is_function)
        };
        holding.or_else(following).map(|f| f.byte_range())
    }
}

fn ancestors(node: Node) -> impl Iterator<Item = Node> {
    std::iter::successors(node.parent(), |n| n.parent())
}

/// The outermost statement that starts exactly at `start`.
fn highest_statement_at(leaf: Node, start: usize) -> Option<Node> {
    let mut best = None;
    let mut node = Some(leaf);
    while let Some(n) = node {
        if n.start_byte() != start {
            break;
        }
        if STATEMENT_KINDS.contains(&n.kind()) || n.kind() == "ERROR" {
            best = Some(n);
        }
        node = n.parent();
    }
    best
}

fn has_error_ancestor(node: Node) -> bool {
    ancestors(node).any(|n| n.kind() == "ERROR")
}

fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children
        .into_iter()
        .filter(|c| c.has_error() || c.is_missing())
        .find_map(first_error)
}
