//! Reading the model from one syntax tree: the blocks of directives, the
//! functions around them, lock calls and jumps. The tree may cover the
//! whole file or only some of its top-level declarations; the analysis
//! looks only at the directives it is given, all of which the tree covers.

use super::conditionals::Form;
use super::nodes::{path_down, Nodes};
use super::prepare::Prepared;
use super::scan::{RawDirective, RawKind};
use crate::diagnostics::Diagnostic;
use crate::directive::{Association, Parsed, Problem};
use crate::frontend::unknown::{clause_left_as_written, invalid_directive};
use crate::model::{DirectiveForm, Exit, Found, FoundSite, LockCall, Unit};
use crate::source::{SourceFile, Span};
use tree_sitter::Node;

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

/// What follows a directive, once blanks, comments, masked directives and
/// the conditional lines it may pass are skipped.
pub(super) enum Next {
    /// The first byte of a token.
    Token(usize),
    /// The opening line of a conditional whose branches hold code: which
    /// code follows depends on the configuration.
    Conditional(usize),
    /// Nothing before the end of the text.
    End,
}

pub(super) struct Analysis<'a> {
    pub file: &'a SourceFile,
    pub masked: &'a [u8],
    /// The syntax tree, looked up by position.
    pub nodes: &'a Nodes<'a>,
    /// The file's scan: its directives, conditionals, other preprocessor
    /// lines and macros.
    prepared: &'a Prepared<'a>,
    pub model: Found,
    /// Directives the table does not know.
    pub unknown: Vec<Span>,
}

impl<'a> Analysis<'a> {
    /// The model of the directives `prepared.directives[directives]` and
    /// the lock routines named at `mentions`, all of which the tree of
    /// `nodes` (parsed from `masked`) covers.
    pub fn read(
        prepared: &'a Prepared,
        masked: &'a [u8],
        nodes: &'a Nodes<'a>,
        directives: std::ops::Range<usize>,
        mentions: &[Span],
    ) -> Found {
        let mut analysis = Analysis {
            file: prepared.file,
            masked,
            nodes,
            prepared,
            model: Found::default(),
            unknown: Vec::new(),
        };
        analysis.directives(
            &prepared.directives[directives.clone()],
            &prepared.parsed[directives],
        );
        analysis.implicit_sections();
        analysis.units();
        analysis.lock_calls(mentions);
        analysis.exits();
        analysis.declared_by_attribute();
        analysis.model
    }

    fn directives(
        &mut self,
        raw: &[RawDirective],
        parsed: &[Option<Result<Parsed, crate::directive::DirectiveError>>],
    ) {
        self.unknown = raw
            .iter()
            .zip(parsed)
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
            let directive = match parsed.as_ref().expect("parsed unless in a macro") {
                Ok(parsed) => {
                    for clause in &parsed.unknown {
                        let span = d.text_span(&self.file.bytes, &clause.span);
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
                    let span = d.text_span(&self.file.bytes, &e.span);
                    self.model.diagnostics.push(invalid_directive(span, e));
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
            let mut site = FoundSite {
                form,
                span: d.span.clone(),
                lines,
                directive,
                block: None,
                end_site: None,
                implicit_section: None,
                loop_variables: Vec::new(),
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

    /// The statement a block or loop directive applies to, extended back
    /// over nested directives between the two.
    fn block_after(
        &self,
        d: &RawDirective,
        following: &[RawDirective],
        association: Association,
    ) -> Result<Span, Diagnostic> {
        let block = match self.next_token(d.span.end, following) {
            Next::End => {
                return Err(Diagnostic::error(
                    d.span.clone(),
                    "directive without a block",
                    "nothing follows this directive",
                ))
            }
            Next::Conditional(group) => self.alternatives(d, group, association)?,
            Next::Token(start) => {
                let statement = self.statement_at(d, start)?;
                if association == Association::Loop && !LOOP_KINDS.contains(&statement.kind()) {
                    if let Some(diagnostic) = self.unknown_before_loop(d, statement.start_byte()) {
                        return Err(diagnostic);
                    }
                    return Err(Diagnostic::error(
                        d.span.clone(),
                        "loop directive not followed by a loop",
                        format!(
                            "`{}` must be followed by a `for` loop",
                            self.file.text(d.span.clone()).trim()
                        ),
                    ));
                }
                if let Some(name) = self.macro_statement(statement) {
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
                start..statement.end_byte()
            }
        };
        // Directives between this one and the statement belong to the
        // block (`#pragma omp parallel` / `#pragma omp for` / loop), unless
        // no configuration compiles the two together.
        let start = following
            .iter()
            .take_while(|n| n.span.end <= block.start)
            .find(|n| {
                n.span.start >= d.span.end
                    && !self
                        .prepared
                        .conditionals
                        .exclusive(d.span.start, n.span.start)
            })
            .map_or(block.start, |first| first.span.start.min(block.start));
        Ok(start..block.end)
    }

    /// The statement starting at `start`, parsed without doubt.
    fn statement_at(&self, d: &RawDirective, start: usize) -> Result<Node<'a>, Diagnostic> {
        let leaf = self.nodes.descendant(start, start + 1).ok_or_else(|| {
            Diagnostic::error(
                d.span.clone(),
                "directive without a block",
                "no statement follows this directive",
            )
        })?;
        let statement = highest_statement_at(self.nodes, leaf, start).ok_or_else(|| {
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
        if statement.is_error()
            || statement.is_missing()
            || (self.nodes.in_error(statement) && !self.closed_by_paired_braces(statement))
            || (statement.has_error() && !self.errors_sealed_in_blocks(statement))
        {
            let error = errors_in(statement).first().copied().unwrap_or(statement);
            let mut diagnostic = Diagnostic::error(
                d.span.clone(),
                "the block of this directive could not be parsed exactly",
                "this directive's block",
            )
            .with_note(format!(
                "the parser reports a syntax problem at line {}; pomp never guesses where a block ends",
                self.file.line_of(error.start_byte())
            ));
            if let Some(group) = self.malformed_conditional_in(statement.byte_range()) {
                diagnostic = diagnostic.with_note(format!(
                    "the conditional `{}` at line {} lies in it and is not one pomp can read",
                    self.conditional_name(group),
                    self.file
                        .line_of(self.prepared.conditionals.extent(group).start)
                ));
            }
            return Err(diagnostic);
        }
        Ok(statement)
    }

    /// Whether every syntax error in `statement` lies strictly inside a
    /// brace block of it whose braces the parser and a lexical count pair
    /// alike, and hides no lock call (nor a jump, when there are user
    /// regions). Such an error (a macro the grammar cannot know, `double *
    /// _noalias p`) moves neither end of any statement pomp instruments,
    /// and what pomp reads inside blocks (nested directives, jumps, lock
    /// calls) is read where the parse is sound: nested directives check
    /// their own blocks.
    fn errors_sealed_in_blocks(&self, statement: Node<'a>) -> bool {
        errors_in(statement).into_iter().all(|error| {
            let Some(block) = std::iter::once(error)
                .chain(self.nodes.ancestors(error))
                .skip(1)
                .take_while(|n| {
                    n.start_byte() >= statement.start_byte() && n.end_byte() <= statement.end_byte()
                })
                .find(|n| n.kind() == "compound_statement")
            else {
                return false;
            };
            self.braces_paired(block)
                && block.start_byte() < error.start_byte()
                && error.end_byte() < block.end_byte()
                && !hides_lock_call_or_jump(
                    &self.masked[error.byte_range()],
                    self.jumps_matter_at(error),
                )
        })
    }

    /// Whether jumps at `node` may leave a user region: whether its
    /// function (the outermost, holding any lambdas and nested ones)
    /// holds pomp directives, or, outside functions, the file does. The
    /// narrowed parse reads no block of a function without them.
    fn jumps_matter_at(&self, node: Node<'a>) -> bool {
        match (self.nodes.descent(node)).find(|n| n.kind() == "function_definition") {
            Some(function) => self.prepared.user_regions_within(&function.byte_range()),
            None => self.prepared.user_regions,
        }
    }

    /// Whether `statement` ends with a brace block of its own whose
    /// braces a lexical count pairs as the parser does: a compound
    /// statement, or a loop or `switch` whose body is one. Its extent is
    /// then known however the parser recovers from an error in the code
    /// around it (a `try` whose handlers a macro writes).
    fn closed_by_paired_braces(&self, statement: Node<'a>) -> bool {
        let block = match statement.kind() {
            "compound_statement" => Some(statement),
            "for_statement" | "for_range_loop" | "while_statement" | "switch_statement" => {
                statement.child_by_field_name("body")
            }
            _ => None,
        };
        block.is_some_and(|b| {
            b.kind() == "compound_statement"
                && b.end_byte() == statement.end_byte()
                && self.braces_paired(b)
        })
    }

    /// Whether the compound statement `block` opens and closes with braces
    /// the parser found, and a lexical count pairs them too.
    fn braces_paired(&self, block: Node<'a>) -> bool {
        let brace = |child: Option<Node>, kind: &str| {
            child.is_some_and(|b| b.kind() == kind && !b.is_missing())
        };
        brace(block.child(0), "{")
            && brace(block.child(block.child_count().saturating_sub(1)), "}")
            && super::lex::matching_brace(self.masked, block.start_byte())
                == Some(block.end_byte() - 1)
    }

    fn malformed_conditional_in(&self, range: Span) -> Option<usize> {
        (0..self.prepared.conditionals.groups.len()).find(|&g| {
            self.prepared.conditionals.groups[g].form == Form::Malformed
                && range.contains(&self.prepared.conditionals.extent(g).start)
        })
    }

    /// The conditional's opening line as written, white space collapsed.
    pub(super) fn conditional_name(&self, group: usize) -> String {
        let line = &self.prepared.conditionals.groups[group].lines[0];
        self.file
            .text(line.span.clone())
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A directive followed by a conditional whose branches each hold one
    /// statement (`#ifdef NEW` / loop / `#else` / loop / `#endif`): in
    /// every configuration the directive applies to one of them, so its
    /// block is the whole conditional.
    fn alternatives(
        &self,
        d: &RawDirective,
        group: usize,
        association: Association,
    ) -> Result<Span, Diagnostic> {
        let extent = self.prepared.conditionals.extent(group);
        let name = self.conditional_name(group);
        let line = self.file.line_of(extent.start);
        let refuse = |why: String| {
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
        let g = &self.prepared.conditionals.groups[group];
        if !g.has_else() {
            return Err(refuse(
                "has no `#else`: when no condition holds, the directive applies to the code \
                 after `#endif`"
                    .into(),
            ));
        }
        for branch in g
            .branches
            .iter()
            .filter(|b| b.state != super::conditionals::BranchState::Dead)
        {
            let body = branch.body.clone();
            let start = self.blank_until(body.start, body.end);
            if start >= body.end || self.masked[start] == b'#' {
                return Err(refuse("has a branch without a statement of its own".into()));
            }
            let statement = self.statement_at(d, start)?;
            let after = self.blank_until(statement.end_byte(), body.end);
            if statement.end_byte() > body.end || after < body.end {
                return Err(refuse(
                    "has a branch holding more than one statement".into(),
                ));
            }
            if association == Association::Loop && !LOOP_KINDS.contains(&statement.kind()) {
                return Err(refuse("has a branch that is not a loop".into()));
            }
        }
        Ok(extent)
    }

    /// The first byte at or after `from` (before `end`) that is neither
    /// white space nor a comment in the masked text.
    fn blank_until(&self, from: usize, end: usize) -> usize {
        let mut i = from;
        while i < end {
            match self.masked[i] {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
                b'/' if self.masked.get(i + 1) == Some(&b'*') => {
                    i = super::lex::block_comment_end(self.masked, i)
                }
                b'/' if self.masked.get(i + 1) == Some(&b'/') => {
                    i = super::lex::logical_line_end(self.masked, i)
                }
                _ => return i,
            }
        }
        end
    }

    /// What follows `from`: blanks, comments, masked directives, other
    /// pragmas and `#endif` are passed; at `#else` or `#elif` the branch
    /// the directive lies in ends, and the code after `#endif` follows.
    /// A pragma of another kind (`#pragma vector aligned`, `#pragma
    /// unroll`) between a directive and its loop stays where it is: the
    /// rewritten directive is written before it, the block's end after the
    /// loop.
    pub(super) fn next_token(&self, from: usize, following: &[RawDirective]) -> Next {
        let mut i = from;
        loop {
            i = self.blank_until(i, self.masked.len());
            if i >= self.masked.len() {
                return Next::End;
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
            if self.masked[i] == b'#' {
                if let Some((group, line)) = self.prepared.conditionals.line_at(i) {
                    let g = &self.prepared.conditionals.groups[group];
                    if g.form == Form::Code {
                        let opens = g.branches[..line.min(g.branches.len())]
                            .iter()
                            .all(|b| b.state == super::conditionals::BranchState::Dead);
                        if opens && line < g.branches.len() {
                            return Next::Conditional(group);
                        }
                        i = if g.lines[line].kind == super::scan::LineKind::Endif {
                            g.lines[line].span.end
                        } else {
                            self.prepared.conditionals.extent(group).end
                        };
                        continue;
                    }
                }
                if let Some(pragma) = self.pragma_line_at(i) {
                    i = pragma.end;
                    continue;
                }
            }
            return Next::Token(i);
        }
    }

    /// The macro `statement` is made of, `NAME(args);` or `NAME;`, when
    /// its expansion may be more than one expression: NAME is defined in
    /// the file with a `;` or a brace in its body, or, defined elsewhere,
    /// is spelled as macros are (capitals, digits and underscores).
    fn macro_statement(&self, statement: Node) -> Option<String> {
        if statement.kind() != "expression_statement" {
            return None;
        }
        let expression = statement.named_child(0)?;
        let callee = match expression.kind() {
            "call_expression" => expression.child_by_field_name("function")?,
            "identifier" => expression,
            _ => return None,
        };
        if callee.kind() != "identifier" {
            return None;
        }
        let name = String::from_utf8_lossy(&self.masked[callee.byte_range()]);
        let may_be_statements = match self.prepared.macros.get(name.as_ref()) {
            Some(&statements) => statements,
            None => {
                name.bytes().any(|b| b.is_ascii_uppercase())
                    && (name.bytes())
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            }
        };
        may_be_statements.then(|| name.into_owned())
    }

    /// The `#pragma` line (not a directive) that starts at `at`.
    fn pragma_line_at(&self, at: usize) -> Option<Span> {
        let index = self.prepared.lines.partition_point(|l| l.span.start < at);
        self.prepared
            .lines
            .get(index)
            .filter(|l| l.span.start == at && l.kind == super::scan::LineKind::Pragma)
            .map(|l| l.span.clone())
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
            let Some(body) = self.nodes.descendant(block.end - 1, block.end) else {
                continue;
            };
            let Some(body) = (self.nodes.parent(body))
                .filter(|p| p.kind() == "compound_statement" && p.end_byte() == block.end)
            else {
                continue;
            };
            let open = body.start_byte() + 1;
            let mut cursor = body.walk();
            let statements = body
                .named_children(&mut cursor)
                .filter(|n| n.kind() != "comment")
                .map(|n| n.byte_range());
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
        let mut seen: std::collections::HashSet<Span> = Default::default();
        for index in 0..self.model.sites.len() {
            let at = self.model.sites[index].span.start;
            let Some(node) = self.nodes.descendant(at, at) else {
                continue;
            };
            for function in self
                .nodes
                .descent(node)
                .filter(|n| n.kind() == "function_definition")
            {
                let span = function.byte_range();
                if seen.insert(span.clone()) {
                    let name = self.qualified_name(function);
                    self.model.units.push(Unit::function(name, span));
                }
            }
        }
        self.model.units.sort();
    }

    fn qualified_name(&self, function: Node) -> String {
        super::functions::qualified_name(self.masked, function)
    }

    /// The calls among the lock routines' names at `mentions`: those in
    /// call position.
    fn lock_calls(&mut self, mentions: &[Span]) {
        for mention in mentions {
            let Some(identifier) = (self.nodes.descendant(mention.start, mention.end))
                .filter(|n| n.kind() == "identifier" && n.byte_range() == *mention)
            else {
                continue;
            };
            let called = (self.nodes.parent(identifier))
                .filter(|p| p.kind() == "call_expression")
                .and_then(|p| p.child_by_field_name("function"))
                .is_some_and(|f| f == identifier);
            let name = std::str::from_utf8(&self.masked[mention.clone()]);
            if let (true, Ok(name)) = (called, name) {
                self.model.lock_calls.push(LockCall {
                    span: mention.clone(),
                    name: name.to_string(),
                });
            }
        }
    }

    /// Jumps, in one walk over each function holding a user region: they
    /// matter only to user regions, which lie inside functions, and a jump
    /// never leaves its function.
    fn exits(&mut self) {
        let begins: Vec<usize> = self
            .model
            .sites
            .iter()
            .filter(|s| s.directive.role() == Some(crate::directive::Role::UserRegionBegin))
            .map(|s| s.span.start)
            .collect();
        if begins.is_empty() {
            return;
        }
        let mut functions: Vec<Node> = Vec::new();
        // Units come outer first: a function inside a walked one is walked
        // with it.
        for unit in &self.model.units {
            let walked = functions
                .last()
                .is_some_and(|f| f.end_byte() >= unit.span.end);
            if walked || !begins.iter().any(|at| unit.span.contains(at)) {
                continue;
            }
            let function = (self.nodes.descendant(unit.span.start, unit.span.end))
                .filter(|n| n.kind() == "function_definition" && n.byte_range() == unit.span);
            functions.extend(function);
        }
        let mut labels: Vec<(usize, &[u8], usize)> = Vec::new();
        let mut gotos: Vec<(Span, usize, &[u8])> = Vec::new();
        for root in functions {
            self.jumps_in(root, &mut labels, &mut gotos);
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

    /// The returns, breaks and continues below `root`, a function, as exits;
    /// its gotos and labels with the function (or lambda) each belongs to.
    fn jumps_in(
        &mut self,
        root: Node<'a>,
        labels: &mut Vec<(usize, &'a [u8], usize)>,
        gotos: &mut Vec<(Span, usize, &'a [u8])>,
    ) {
        let mut cursor = root.walk();
        'walk: loop {
            let node = cursor.node();
            match node.kind() {
                "return_statement" | "co_return_statement" => {
                    self.model.exits.push(Exit {
                        span: node.byte_range(),
                        targets: vec![enclosing_function_start(root, node)],
                    });
                }
                kind @ ("break_statement" | "continue_statement") => {
                    let leaves = if kind == "break_statement" {
                        BREAK_TARGETS
                    } else {
                        CONTINUE_TARGETS
                    };
                    if let Some(target) = innermost_of(root, node, leaves) {
                        self.model.exits.push(Exit {
                            span: node.byte_range(),
                            targets: vec![target.start_byte()],
                        });
                    }
                }
                "goto_statement" => {
                    if let Some(label) = node.child_by_field_name("label") {
                        let name = &self.masked[label.byte_range()];
                        gotos.push((
                            node.byte_range(),
                            enclosing_function_start(root, node),
                            name,
                        ));
                    }
                }
                "labeled_statement" => {
                    if let Some(label) = node.child_by_field_name("label") {
                        let name = &self.masked[label.byte_range()];
                        labels.push((
                            enclosing_function_start(root, node),
                            name,
                            node.start_byte(),
                        ));
                    }
                }
                _ => {}
            }
            // Depth first, in source order; the cursor starts at `root` and
            // never goes above it.
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
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
            .filter(|site| site.declares_function_device_code())
            .map(|site| site.span.clone())
            .collect();
        for attribute in attributes {
            if let Some(function) = self.function_of_attribute(&attribute) {
                self.model.no_insert.push(function);
            }
        }
    }

    fn function_of_attribute(&self, attribute: &Span) -> Option<Span> {
        let is_function = |n: &Node| n.kind() == "function_definition";
        let around = self.nodes.descendant(attribute.start, attribute.end)?;
        let holding = std::iter::once(around)
            .chain(self.nodes.ancestors(around))
            .find(is_function)
            .filter(|f| {
                f.child_by_field_name("body")
                    .is_none_or(|body| attribute.end <= body.start_byte())
            });
        let following = || {
            let Next::Token(start) = self.next_token(attribute.end, &[]) else {
                return None;
            };
            let leaf = self.nodes.descendant(start, start + 1)?;
            std::iter::once(leaf)
                .chain(self.nodes.ancestors(leaf))
                .take_while(|n| n.start_byte() == start)
                .find(is_function)
        };
        holding.or_else(following).map(|f| f.byte_range())
    }
}

/// The innermost enclosing node of one of `kinds`, within the function.
fn innermost_of<'t>(root: Node<'t>, node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    for n in ancestors(root, node) {
        if kinds.contains(&n.kind()) {
            return Some(n);
        }
        if FUNCTION_KINDS.contains(&n.kind()) {
            return None;
        }
    }
    None
}

/// Where the function (or lambda) holding `node` starts: a `return` goes
/// there, and labels are its own.
fn enclosing_function_start(root: Node, node: Node) -> usize {
    ancestors(root, node)
        .find(|n| FUNCTION_KINDS.contains(&n.kind()))
        .map_or(0, |n| n.start_byte())
}

/// The nodes enclosing `node` below `root` (a function: few children),
/// and `root`, innermost first.
fn ancestors<'t>(root: Node<'t>, node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    path_down(root, node).into_iter().rev()
}

/// The outermost statement that starts exactly at `start`.
pub(super) fn highest_statement_at<'t>(
    nodes: &Nodes<'t>,
    leaf: Node<'t>,
    start: usize,
) -> Option<Node<'t>> {
    if leaf.start_byte() != start {
        return None;
    }
    // The nodes from `leaf` up that start where it does end the descent
    // to it: the first statement among them from above is the highest.
    nodes.descent(leaf).chain(std::iter::once(leaf)).find(|n| {
        n.start_byte() == start && (STATEMENT_KINDS.contains(&n.kind()) || n.kind() == "ERROR")
    })
}

/// The outermost error and missing nodes at or below `node`, in order.
fn errors_in(node: Node) -> Vec<Node> {
    fn collect<'t>(node: Node<'t>, errors: &mut Vec<Node<'t>>) {
        if node.is_error() || node.is_missing() {
            errors.push(node);
            return;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if child.has_error() || child.is_missing() {
                collect(child, errors);
            }
        }
    }
    let mut errors = Vec::new();
    collect(node, &mut errors);
    errors
}

/// Whether `text` names a lock routine (`omp_set_lock`), whose calls
/// are measured, or, where `jumps_matter` (a user region's exits are
/// closed at every jump leaving it), holds a jump (`return`, `break`,
/// `continue`, `goto`, `co_return`).
fn hides_lock_call_or_jump(text: &[u8], jumps_matter: bool) -> bool {
    super::lex::Tokens::new(text, 0..text.len())
        .filter(|t| t.kind == super::lex::TokenKind::Word)
        .any(|t| {
            let word = &text[t.span];
            let jump = matches!(
                word,
                b"return" | b"break" | b"continue" | b"goto" | b"co_return"
            );
            (jump && jumps_matter) || (word.starts_with(b"omp_") && word.ends_with(b"_lock"))
        })
}
