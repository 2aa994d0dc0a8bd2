//! The tree-sitter front end's view of its syntax tree for the C reading
//! ([`crate::frontend::c_shared`]). The tree may cover the whole file or
//! only some of its top-level declarations; the reading asks only about the
//! directives it is given, all of which the tree covers. Where the grammar
//! recovered from a syntax error, or met a macro it cannot expand, the
//! view says so.

use super::nodes::{path_down, ByName, Nodes};
use super::prepare::Prepared;
use crate::frontend::c_shared::syntax::walked_jumps;
use crate::frontend::c_shared::{
    self, After, Alternatives, CallForm, CallStatement, Doubt, Init, Kind, Syntax,
};
use crate::frontend::lexical::conditionals::{BranchState, Form};
use crate::frontend::lexical::scan::RawDirective;
use crate::language::c::lex;
use crate::model::{CodeRegions, Found};
use crate::source::{SourceFile, Span};
use std::ops::Range;
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

/// What follows a directive, once blanks, comments, masked directives and
/// the conditional lines it may pass are skipped.
enum Next {
    /// The first byte of a token.
    Token(usize),
    /// The opening line of a conditional whose branches hold code: which
    /// code follows depends on the configuration.
    Conditional(usize),
    /// Nothing before the end of the text.
    End,
}

/// The model of the directives `prepared.directives[directives]` and the
/// lock routines named at `mentions`, all of which the tree of `nodes`
/// (parsed from `masked`, one configuration of the file) covers.
pub(super) fn read(
    prepared: &Prepared,
    masked: &[u8],
    nodes: &Nodes,
    directives: Range<usize>,
    mentions: &[Span],
) -> Found {
    let syntax = TreeSitterSyntax {
        file: prepared.file,
        masked,
        nodes,
        prepared,
    };
    c_shared::read(
        &syntax,
        &prepared.directives[directives.clone()],
        &prepared.parsed[directives],
        mentions,
        Found::default(),
    )
}

/// Adds to `model` the code regions `asked` for in `tree`, a parse of the
/// whole of `prepared`'s masked text.
pub(super) fn code_regions(
    model: &mut Found,
    prepared: &Prepared,
    tree: &tree_sitter::Tree,
    asked: &CodeRegions,
) {
    let masked = prepared.masked();
    let nodes = Nodes::new(tree.root_node());
    let syntax = TreeSitterSyntax {
        file: prepared.file,
        masked: &masked,
        nodes: &nodes,
        prepared,
    };
    c_shared::regions::read(model, &syntax, [tree.root_node()], asked)
}

struct TreeSitterSyntax<'a, 't> {
    file: &'a SourceFile,
    masked: &'a [u8],
    /// The syntax tree, looked up by position. Its lifetime is a
    /// parameter of its own: [`Nodes`] remembers nodes it found, and a
    /// shorter lifetime cannot stand in for it.
    nodes: &'a Nodes<'t>,
    /// The file's scan: its directives, conditionals, other preprocessor
    /// lines and macros.
    prepared: &'a Prepared<'a>,
}

impl<'a, 't> Syntax for TreeSitterSyntax<'a, 't> {
    type Node = Node<'t>;

    fn file(&self) -> &SourceFile {
        self.file
    }

    fn text(&self) -> &[u8] {
        self.masked
    }

    fn passed_over(&self) -> &[Span] {
        self.prepared.passed_over()
    }

    fn kind(&self, node: Node<'t>) -> Kind {
        match node.kind_name() {
            "compound_statement" => Kind::Compound,
            "for_statement" => Kind::For,
            "for_range_loop" => Kind::RangeFor,
            "while_statement" => Kind::While,
            "do_statement" => Kind::Do,
            "switch_statement" => Kind::Switch,
            "return_statement" | "co_return_statement" => Kind::Return,
            "break_statement" => Kind::Break,
            "continue_statement" => Kind::Continue,
            "goto_statement" => Kind::Goto,
            "labeled_statement" => Kind::Label,
            "case_statement" => Kind::Case,
            "function_definition" => Kind::Function,
            "lambda_expression" => Kind::Lambda,
            "preproc_call" => Kind::PreprocessorLine,
            _ => Kind::Other,
        }
    }

    fn extent(&self, node: Node<'t>) -> Span {
        node.byte_range()
    }

    fn statement_after(&self, from: usize, following: &[RawDirective]) -> After<Node<'t>> {
        match self.next_token(from, following) {
            Next::End => After::Missing("nothing follows this directive".into()),
            Next::Conditional(group) => After::Alternatives(Box::new(self.alternatives(group))),
            Next::Token(start) => match self.statement_at(start) {
                Ok(statement) => After::Statement(statement),
                Err(label) => After::Missing(label),
            },
        }
    }

    fn doubt(&self, statement: Node<'t>) -> Option<Doubt> {
        let doubtful = statement.is_error()
            || statement.is_missing()
            || (self.nodes.in_error(statement) && !self.closed_by_paired_braces(statement))
            || (statement.has_error() && !self.errors_sealed_in_blocks(statement));
        if !doubtful {
            return None;
        }
        let error = errors_in(statement).first().copied().unwrap_or(statement);
        let conditional = self
            .malformed_conditional_in(statement.byte_range())
            .map(|group| {
                let at = self.prepared.conditionals.extent(group).start;
                (self.conditional_name(group), at)
            });
        Some(Doubt {
            error_at: error.start_byte(),
            conditional,
        })
    }

    fn unexpanded_macro(&self, statement: Node<'t>) -> Option<String> {
        self.macro_statement(statement)
    }

    fn exclusive(&self, a: usize, b: usize) -> bool {
        self.prepared.conditionals.exclusive(a, b)
    }

    fn statements(&self, compound: Node<'t>) -> impl Iterator<Item = Node<'t>> + '_ {
        let mut cursor = compound.walk();
        let statements: Vec<Node<'t>> = compound
            .named_children(&mut cursor)
            .filter(|n| n.kind_name() != "comment")
            .collect();
        statements.into_iter()
    }

    fn for_loop(&self, node: Node<'t>) -> Option<(Init, Node<'t>)> {
        let init = match node.kind_name() {
            "for_statement" => match node.field("initializer") {
                None => Init::Nothing,
                Some(init) if init.kind_name() == "declaration" => Init::Declaration,
                Some(init) => Init::Expression(init.byte_range()),
            },
            "for_range_loop" => Init::Nothing,
            _ => return None,
        };
        Some((init, node.field("body")?))
    }

    fn functions_around(&self, range: Span) -> impl Iterator<Item = Node<'t>> + '_ {
        let node = self.nodes.descendant(range.start, range.end);
        node.into_iter()
            .flat_map(|node| self.nodes.descent(node).chain(std::iter::once(node)))
            .filter(|n| n.kind_name() == "function_definition")
    }

    /// One descent for all the offsets, not one from the top for each:
    /// a function dense with directives is entered once. A function is
    /// around an offset strictly inside it (it lies on the descent to the
    /// offset), never around its end; at its start the descent decides,
    /// and that offset is looked up alone.
    fn functions_around_any(&self, offsets: &[usize]) -> Vec<Node<'t>> {
        let mut found = Vec::new();
        let mut at_a_start = Vec::new();
        gather_functions(self.nodes.root(), offsets, &mut found, &mut at_a_start);
        for at in at_a_start {
            found.extend(self.functions_around(at..at));
        }
        found
    }

    fn function_after(&self, from: usize) -> Option<Node<'t>> {
        let Next::Token(start) = self.next_token(from, &[]) else {
            return None;
        };
        let leaf = self.nodes.descendant(start, start + 1)?;
        std::iter::once(leaf)
            .chain(self.nodes.ancestors(leaf))
            .take_while(|n| n.start_byte() == start)
            .find(|n| n.kind_name() == "function_definition")
    }

    fn body(&self, function: Node<'t>) -> Option<Node<'t>> {
        let body = function.field("body")?;
        let sure = !body.has_error() || braces_closed(body);
        let braces = body.kind_name() == "compound_statement" && sure;
        (braces && !self.nodes.in_error(function)).then_some(body)
    }

    fn call_statement(&self, statement: Node<'t>) -> Option<CallStatement> {
        let (form, call) = match statement.kind_name() {
            "expression_statement" => {
                let expression = statement.named_child(0)?;
                match expression.kind_name() {
                    "call_expression" => (CallForm::Plain, expression),
                    "assignment_expression" if expression.field("operator")?.kind_name() == "=" => {
                        (CallForm::Assigned, expression.field("right")?)
                    }
                    _ => return None,
                }
            }
            "declaration" => {
                let mut cursor = statement.walk();
                let mut declarators = statement.children_by_field_name("declarator", &mut cursor);
                let declarator = declarators.next()?;
                if declarators.next().is_some() || declarator.kind_name() != "init_declarator" {
                    return None;
                }
                (CallForm::Declared, declarator.field("value")?)
            }
            _ => return None,
        };
        if statement.has_error() {
            return None;
        }
        let callee = self.callee(call)?;
        Some(CallStatement { callee, form })
    }

    fn callee(&self, call: Node<'t>) -> Option<Span> {
        (call.kind_name() == "call_expression")
            .then(|| call.field("function"))
            .flatten()
            .map(|f| f.byte_range())
    }

    fn body_start(&self, function: Node<'t>) -> Option<usize> {
        function.field("body").map(|b| b.start_byte())
    }

    fn function_name(&self, function: Node<'t>) -> Option<String> {
        let mut declarator = function.field("declarator");
        while let Some(d) = declarator {
            if d.kind_name() == "function_declarator" {
                break;
            }
            declarator = d.field("declarator");
        }
        declarator
            .and_then(|d| d.field("declarator"))
            .map(|n| self.node_text(n))
    }

    fn scopes(&self, function: Node<'t>) -> Vec<String> {
        let mut scopes: Vec<String> = (self.nodes.ancestors(function))
            .filter(|n| {
                matches!(
                    n.kind_name(),
                    "namespace_definition" | "class_specifier" | "struct_specifier"
                )
            })
            .filter_map(|n| n.field("name").map(|name| self.node_text(name)))
            .collect();
        scopes.reverse();
        scopes
    }

    fn called(&self, name: &Span) -> bool {
        let Some(identifier) = (self.nodes.descendant(name.start, name.end))
            .filter(|n| n.kind_name() == "identifier" && n.byte_range() == *name)
        else {
            return false;
        };
        (self.nodes.parent(identifier))
            .filter(|p| p.kind_name() == "call_expression")
            .and_then(|p| p.field("function"))
            .is_some_and(|f| f == identifier)
    }

    fn walk(&self, root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
        let mut cursor = root.walk();
        'walk: loop {
            visit(cursor.node());
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

    fn jumps(&self, root: Node<'t>, mut visit: impl FnMut(Node<'t>)) {
        // A walk steps through every node of the function, hidden ones
        // too; the jumps are found faster by their keywords, each the
        // first token of its statement. Where a syntax error may have
        // left a statement without its keyword, or a `goto` needs the
        // labels, the walk decides.
        let words = |keyword: &'static str| {
            lex::whole_words(self.masked, root.byte_range(), keyword.as_bytes())
                .map(move |at| (at, keyword))
        };
        if root.has_error() || words("goto").next().is_some() {
            return walked_jumps(self, root, visit);
        }
        let mut keywords: Vec<(usize, &str)> = (JUMP_KEYWORDS.into_iter())
            .filter(|&keyword| keyword != "goto")
            .flat_map(words)
            .collect();
        keywords.sort_unstable();
        for (at, keyword) in keywords {
            let statement = (self.nodes.descendant(at, at + keyword.len()))
                .filter(|leaf| leaf.byte_range() == (at..at + keyword.len()))
                .filter(|leaf| leaf.kind_name() == keyword)
                .and_then(|leaf| self.nodes.parent(leaf))
                .filter(|statement| statement.start_byte() == at);
            if let Some(statement) = statement.filter(|&s| self.kind(s).is_jump_or_label()) {
                visit(statement);
            }
        }
    }

    fn enclosing(&self, root: Node<'t>, node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
        // Below a function, nodes have few children: one descent instead
        // of one per ancestor.
        path_down(root, node).into_iter().rev()
    }

    fn label(&self, node: Node<'t>) -> Option<Span> {
        node.field("label").map(|l| l.byte_range())
    }
}

impl<'a, 't> TreeSitterSyntax<'a, 't> {
    /// The outermost statement starting at `start`, or what the
    /// diagnostic's label says stands there instead.
    fn statement_at(&self, start: usize) -> Result<Node<'t>, String> {
        if let Some(statement) = statement_starting_at(self.nodes, start) {
            return Ok(statement);
        }
        let leaf = (self.nodes.descendant(start, start + 1))
            .ok_or_else(|| "no statement follows this directive".to_string())?;
        let found = leaf
            .parent()
            .map(|p| p.kind_name())
            .unwrap_or(leaf.kind_name())
            .replace('_', " ");
        Err(format!(
            "a statement must follow this directive, found {found}"
        ))
    }

    /// Whether every syntax error in `statement` lies strictly inside a
    /// brace block of it whose braces the parser and a lexical count pair
    /// alike, and hides no lock call (nor a jump, when there are user
    /// regions). Such an error (a macro the grammar cannot know, `double *
    /// _noalias p`) moves neither end of any statement pomp instruments,
    /// and what pomp reads inside blocks (nested directives, jumps, lock
    /// calls) is read where the parse is sound: nested directives check
    /// their own blocks.
    fn errors_sealed_in_blocks(&self, statement: Node<'t>) -> bool {
        errors_in(statement).into_iter().all(|error| {
            let Some(block) = std::iter::once(error)
                .chain(self.nodes.ancestors(error))
                .skip(1)
                .take_while(|n| {
                    n.start_byte() >= statement.start_byte() && n.end_byte() <= statement.end_byte()
                })
                .find(|n| n.kind_name() == "compound_statement")
            else {
                return false;
            };
            self.braces_paired(block)
                && block.start_byte() < error.start_byte()
                && error.end_byte() < block.end_byte()
                && !hides_lock_call_or_jump(
                    self.masked,
                    error.byte_range(),
                    self.prepared.passed_over(),
                    self.jumps_matter_at(error),
                )
        })
    }

    /// Whether jumps at `node` may leave a user region: whether its
    /// function (the outermost, holding any lambdas and nested ones)
    /// holds pomp directives, or, outside functions, the file does. The
    /// narrowed parse reads no block of a function without them.
    fn jumps_matter_at(&self, node: Node<'t>) -> bool {
        match (self.nodes.descent(node)).find(|n| n.kind_name() == "function_definition") {
            Some(function) => self.prepared.user_regions_within(&function.byte_range()),
            None => self.prepared.user_regions,
        }
    }

    /// Whether `statement` ends with a brace block of its own whose
    /// braces a lexical count pairs as the parser does: a compound
    /// statement, or a loop or `switch` whose body is one. Its extent is
    /// then known however the parser recovers from an error in the code
    /// around it (a `try` whose handlers a macro writes).
    fn closed_by_paired_braces(&self, statement: Node<'t>) -> bool {
        let block = match statement.kind_name() {
            "compound_statement" => Some(statement),
            "for_statement" | "for_range_loop" | "while_statement" | "switch_statement" => {
                statement.field("body")
            }
            _ => None,
        };
        block.is_some_and(|b| {
            b.kind_name() == "compound_statement"
                && b.end_byte() == statement.end_byte()
                && self.braces_paired(b)
        })
    }

    /// Whether the compound statement `block` opens and closes with braces
    /// the parser found, and a lexical count pairs them too.
    fn braces_paired(&self, block: Node<'t>) -> bool {
        let brace = |child: Option<Node>, kind: &str| {
            child.is_some_and(|b| b.kind_name() == kind && !b.is_missing())
        };
        brace(block.child(0), "{")
            && brace(block.child(block.child_count().saturating_sub(1)), "}")
            && crate::language::c::lex::matching_brace(
                self.masked,
                block.start_byte(),
                self.prepared.passed_over(),
            ) == Some(block.end_byte() - 1)
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

    /// The conditional `group` that follows a directive, with the
    /// statement each live branch begins with.
    fn alternatives(&self, group: usize) -> Alternatives<Node<'t>> {
        let g = &self.prepared.conditionals.groups[group];
        let branches = (g.branches.iter())
            .filter(|b| b.state != BranchState::Dead)
            .map(|branch| {
                let body = branch.body.clone();
                let start = self.blank_until(body.start, body.end);
                if start >= body.end || self.masked[start] == b'#' {
                    return None;
                }
                let statement = self.statement_at(start);
                let alone = statement.as_ref().is_ok_and(|s| {
                    let after = self.blank_until(s.end_byte(), body.end);
                    s.end_byte() <= body.end && after >= body.end
                });
                Some((statement, alone))
            })
            .collect();
        Alternatives {
            extent: self.prepared.conditionals.extent(group),
            name: self.conditional_name(group),
            has_else: g.has_else(),
            branches,
        }
    }

    /// The first byte at or after `from` (before `end`) that is neither
    /// white space, a comment nor a directive line passed over in the
    /// masked text.
    fn blank_until(&self, from: usize, end: usize) -> usize {
        let passed_over = self.prepared.passed_over();
        let mut i = from;
        while i < end {
            match self.masked[i] {
                b'#' if let Some(line_end) = lex::line_end_among(passed_over, i) => i = line_end,
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
                b'/' if self.masked.get(i + 1) == Some(&b'*') => {
                    i = crate::language::c::lex::block_comment_end(self.masked, i)
                }
                b'/' if self.masked.get(i + 1) == Some(&b'/') => {
                    i = crate::language::c::lex::logical_line_end(self.masked, i)
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
    fn next_token(&self, from: usize, following: &[RawDirective]) -> Next {
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
                        let opens = g.branches[..line.min(g.branches.len())].iter().all(|b| {
                            b.state == crate::frontend::lexical::conditionals::BranchState::Dead
                        });
                        if opens && line < g.branches.len() {
                            return Next::Conditional(group);
                        }
                        i = if g.lines[line].kind == crate::frontend::lexical::scan::LineKind::Endif
                        {
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
        if statement.kind_name() != "expression_statement" {
            return None;
        }
        let expression = statement.named_child(0)?;
        let callee = match expression.kind_name() {
            "call_expression" => expression.field("function")?,
            "identifier" => expression,
            _ => return None,
        };
        if callee.kind_name() != "identifier" {
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
            .filter(|l| {
                l.span.start == at && l.kind == crate::frontend::lexical::scan::LineKind::Pragma
            })
            .map(|l| l.span.clone())
    }

    /// The text of a name, its universal character names decoded: the
    /// names clang gives, and those of the source before preprocessing.
    fn node_text(&self, node: Node) -> String {
        let text = String::from_utf8_lossy(&self.masked[node.byte_range()]);
        let text = crate::language::c::lex::decode_universal_character_names(&text);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// The keywords that begin the statements that leave a block: what a
/// user region's exits are found by.
pub(super) const JUMP_KEYWORDS: [&str; 5] = ["goto", "return", "co_return", "break", "continue"];

/// The outermost statement that starts exactly at `start`, found once
/// for `nodes` ([`Nodes::remembered_statement_at`]).
pub(super) fn statement_starting_at<'t>(nodes: &Nodes<'t>, start: usize) -> Option<Node<'t>> {
    nodes.remembered_statement_at(start, || {
        let leaf = (nodes.descendant(start, start + 1)).filter(|l| l.start_byte() == start)?;
        // The nodes from `leaf` up that start where it does end the descent
        // to it: the first statement among them from above is the highest.
        nodes.descent(leaf).chain(std::iter::once(leaf)).find(|n| {
            n.start_byte() == start
                && (STATEMENT_KINDS.contains(&n.kind_name()) || n.kind_name() == "ERROR")
        })
    })
}

/// The function definitions at or below `root` with some of `offsets`
/// (in order) strictly inside them, into `found`; offsets where one
/// starts, into `at_a_start`. Without recursion: a deep tree (a long
/// chain of operators) would take as deep a stack.
fn gather_functions<'t>(
    root: Node<'t>,
    offsets: &[usize],
    found: &mut Vec<Node<'t>>,
    at_a_start: &mut Vec<usize>,
) {
    // Nodes to look into, each with the offsets in it: from its start to
    // before its end.
    let mut pending = vec![(root, offsets)];
    while let Some((node, offsets)) = pending.pop() {
        if node.kind_name() == "function_definition" {
            let start = node.start_byte();
            if offsets.first() == Some(&start) {
                at_a_start.push(start);
            }
            if offsets.iter().any(|&at| at > start) {
                found.push(node);
            }
        }
        let mut rest = offsets;
        while let Some(&first) = rest.first() {
            // The first child ending past the offset; the offsets before
            // its start lie between children, in none of them.
            let Some(child) = node.first_child_for_byte(first) else {
                break;
            };
            let before = rest.partition_point(|&at| at < child.start_byte());
            let within = rest.partition_point(|&at| at < child.end_byte());
            if within > before {
                pending.push((child, &rest[before..within]));
            }
            rest = &rest[within.max(1)..];
        }
    }
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

/// Whether the text of `range` (a node's, in `masked`; the spans
/// `passed_over` read as blanks, none of them reaching into it from
/// outside) names a lock routine (`omp_set_lock`), whose calls are
/// measured, or, where `jumps_matter` (a user region's exits are closed
/// at every jump leaving it), holds a jump (`return`, `break`,
/// `continue`, `goto`, `co_return`).
fn hides_lock_call_or_jump(
    masked: &[u8],
    range: Span,
    passed_over: &[Span],
    jumps_matter: bool,
) -> bool {
    // As a text of its own: its first byte starts a line.
    let text = &masked[range.clone()];
    let inside: Vec<Span> = (lex::spans_among(passed_over, range.clone()).iter())
        .map(|l| l.start.max(range.start) - range.start..l.end.min(range.end) - range.start)
        .collect();
    crate::language::c::lex::Tokens::new(text, 0..text.len())
        .passing_over(&inside)
        .filter(|t| t.kind == crate::language::c::lex::TokenKind::Word)
        .any(|t| {
            let word = &text[t.span];
            let jump = JUMP_KEYWORDS.iter().any(|k| k.as_bytes() == word);
            (jump && jumps_matter) || (word.starts_with(b"omp_") && word.ends_with(b"_lock"))
        })
}

/// Whether a body the grammar could not read whole still ends with the
/// brace closing the one it opens with.
fn braces_closed(body: Node) -> bool {
    let last = body.child(body.child_count().saturating_sub(1));
    body.child(0)
        .is_some_and(|c| c.kind_name() == "{" && !c.is_missing())
        && last.is_some_and(|c| c.kind_name() == "}" && !c.is_missing())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::language::Language;

    #[test]
    fn the_functions_around_any_offsets_are_those_around_each() {
        // Every offset of every C and C++ program of the corpus, parsed
        // whole and with a syntax error cut into it: functions in
        // namespaces and classes, their starts and ends, offsets between
        // them and inside broken code.
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut files = 0;
        for dir in ["c", "cxx", "kernels", "bench", "regions"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let language = match path.extension().and_then(|e| e.to_str()) {
                    Some("c") => Language::C,
                    Some("cpp") => Language::Cpp,
                    _ => continue,
                };
                let text = std::fs::read_to_string(&path).unwrap();
                let half = (0..=text.len() / 2)
                    .rev()
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap();
                let broken = format!("{}{{ int (; }}\n{}", &text[..half], &text[half..]);
                for text in [&text, &broken] {
                    read_whole(text, language, |syntax, _| {
                        let spans = |functions: Vec<Node>| {
                            let mut spans: Vec<Span> =
                                functions.iter().map(|f| f.byte_range()).collect();
                            spans.sort_unstable_by_key(|s| (s.start, s.end));
                            spans.dedup();
                            spans
                        };
                        let offsets: Vec<usize> = (0..=text.len()).collect();
                        // All offsets at once, and each alone.
                        for offsets in std::iter::once(&offsets[..]).chain(offsets.chunks(1)) {
                            let each = (offsets.iter())
                                .flat_map(|&at| syntax.functions_around(at..at))
                                .collect();
                            assert_eq!(
                                spans(syntax.functions_around_any(offsets)),
                                spans(each),
                                "{} at {:?}",
                                path.display(),
                                offsets.first()
                            );
                        }
                    });
                }
                files += 1;
            }
        }
        assert!(files > 40, "{files} programs");
    }

    /// `read` of the syntax of `text`, parsed whole, and its root.
    fn read_whole<R>(
        text: &str,
        language: Language,
        read: impl for<'t> FnOnce(&TreeSitterSyntax<'_, 't>, Node<'t>) -> R,
    ) -> R {
        let file = SourceFile::new("whole", text.as_bytes().to_vec(), language);
        let prepared = Prepared::whatever_it_holds(&file, None);
        let masked = prepared.whole_masked();
        let tree = super::super::parse::parse(&file, &masked, &[], &[]);
        let nodes = Nodes::new(tree.root_node());
        let syntax = TreeSitterSyntax {
            file: &file,
            masked: &masked,
            nodes: &nodes,
            prepared: &prepared,
        };
        read(&syntax, tree.root_node())
    }

    /// The jumps and labels of every function of `text`, as found by
    /// their keywords and as a walk over every node finds them.
    fn jumps_both_ways(text: &str, language: Language) -> Vec<(Vec<Span>, Vec<Span>)> {
        read_whole(text, language, |syntax, root| {
            jumps_of_functions(syntax, root)
        })
    }

    fn jumps_of_functions<'t>(
        syntax: &TreeSitterSyntax<'_, 't>,
        root: Node<'t>,
    ) -> Vec<(Vec<Span>, Vec<Span>)> {
        let mut functions = Vec::new();
        syntax.walk(root, |n| {
            if syntax.kind(n) == Kind::Function {
                functions.push(n);
            }
        });
        (functions.into_iter())
            .map(|function| {
                let mut found = Vec::new();
                syntax.jumps(function, |n| found.push(n.byte_range()));
                let mut walked = Vec::new();
                syntax.walk(function, |n| {
                    if syntax.kind(n).is_jump_or_label() {
                        walked.push(n.byte_range());
                    }
                });
                (found, walked)
            })
            .collect()
    }

    #[test]
    fn jumps_found_by_their_keywords_are_those_a_walk_finds() {
        let text = r#"
int f(int n) {
    // return in a comment, "return" in a string, a returned name
    int returned = 0, co_returns = 1;
    for (int i = 0; i < n; i++) {
        if (i == 2) continue;
        switch (i) { case 3: break; default: returned += i; }
        auto g = [&]() { if (n) return 1; return 2; };
        while (n) { break; }
        do { if (i) break; else continue; } while (0);
    }
    return returned + co_returns;
}
struct S {
    int m() { return 0; }
    void v() { struct L { int k() { return 1; } }; return; }
};
"#;
        let functions = jumps_both_ways(text, Language::Cpp);
        assert_eq!(functions.len(), 4);
        for (found, walked) in &functions {
            assert!(!walked.is_empty());
            assert_eq!(found, walked);
        }
    }

    #[test]
    fn labels_are_found_where_a_goto_may_take_them() {
        let text = "void f(int n) {\n again:\n    if (n--) goto again;\n done:\n    return;\n}\n";
        let functions = jumps_both_ways(text, Language::C);
        assert_eq!(functions.len(), 1);
        let (found, walked) = &functions[0];
        assert_eq!(found, walked);
        assert_eq!(found.len(), 4, "two labels, a goto and a return");
    }

    #[test]
    fn jumps_in_functions_with_syntax_errors_are_those_a_walk_finds() {
        let bodies = [
            "if (n) { return 1 }\n    return ) 2;",
            "@ return 1;",
            "while (n) { 1 + break; }",
            "for (;;) { n ++ continue; }",
            "int x = return 3;",
            "return return 3;",
            "g(break);",
            "switch (n) { case 1 break; }",
            "a b return c;",
            "else return 1;",
        ];
        for body in bodies {
            let text = format!("int f(int n) {{\n    {body}\n}}\n");
            for language in [Language::C, Language::Cpp] {
                for (found, walked) in jumps_both_ways(&text, language) {
                    assert_eq!(found, walked, "{body}");
                }
            }
        }
    }
}
