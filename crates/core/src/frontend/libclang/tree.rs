//! The main file's syntax tree as libclang parsed it, with the questions
//! block finding asks of it: which statement starts first after an
//! offset, whether the parser saw any token in between, where a statement
//! ends (clang's extents stop before a statement's `;`).

use crate::source::Span;
use clang_sys::*;
use pomp_clang_bindings::{Class, Node, Token, TranslationUnit};

pub struct Tree<'u> {
    pub unit: &'u TranslationUnit,
    pub bytes: &'u [u8],
    /// Pre-order: a parent comes before its children.
    pub nodes: Vec<Node>,
    pub children: Vec<Vec<usize>>,
    /// Declarations, statements and expressions by start; at one start the
    /// outermost comes first.
    starts: Vec<(usize, usize)>,
    pub tokens: Vec<Token>,
    /// What the parser never sees, sorted and disjoint: skipped branches,
    /// preprocessor lines, directives.
    hidden: Vec<Span>,
    /// Macro expansions written in the file, by start.
    expansions: Vec<(Span, usize)>,
}

/// Statements whose last child may be the statement they end with.
const ENDS_WITH_CHILD: &[CXCursorKind] = &[
    CXCursor_IfStmt,
    CXCursor_ForStmt,
    CXCursor_CXXForRangeStmt,
    CXCursor_WhileStmt,
    CXCursor_SwitchStmt,
    CXCursor_LabelStmt,
    CXCursor_CaseStmt,
    CXCursor_DefaultStmt,
    CXCursor_CXXTryStmt,
    CXCursor_CXXCatchStmt,
    CXCursor_UnexposedStmt,
];

/// The loops, which loop hints may be attached to.
const LOOP_KINDS: &[CXCursorKind] = &[
    CXCursor_ForStmt,
    CXCursor_CXXForRangeStmt,
    CXCursor_WhileStmt,
    CXCursor_DoStmt,
];

impl<'u> Tree<'u> {
    /// The tree of `unit`, whose main file holds `bytes`; `directives`
    /// are the spans of the directives found in it.
    pub fn new(
        unit: &'u TranslationUnit,
        bytes: &'u [u8],
        skipped: &[Span],
        directives: &[Span],
    ) -> Tree<'u> {
        let nodes = unit.syntax();
        let mut children = vec![Vec::new(); nodes.len()];
        let mut starts = Vec::new();
        let mut expansions = Vec::new();
        for (index, node) in nodes.iter().enumerate() {
            if let Some(parent) = node.parent {
                children[parent].push(index);
            }
            if let Some(span) = &node.span {
                if node.class != Class::Other {
                    starts.push((span.start, index));
                } else if node.kind == CXCursor_MacroExpansion {
                    expansions.push((span.clone(), index));
                }
            }
        }
        starts.sort();
        expansions.sort_by_key(|(span, _)| span.start);
        // Comments are white space to the parser.
        let mut tokens = unit.tokens();
        tokens.retain(|t| t.kind != CXToken_Comment);
        let mut hidden: Vec<Span> = skipped.to_vec();
        hidden.extend(directives.iter().cloned());
        hidden.extend(preprocessor_lines(bytes, &tokens));
        hidden.sort_by_key(|s| s.start);
        let hidden = merge(hidden);
        Tree {
            unit,
            bytes,
            nodes,
            children,
            starts,
            tokens,
            hidden,
            expansions,
        }
    }

    pub fn span(&self, node: usize) -> Span {
        self.nodes[node].span.clone().unwrap_or(0..0)
    }

    pub fn kind(&self, node: usize) -> CXCursorKind {
        self.nodes[node].kind
    }

    /// The outermost declaration, statement or expression that starts
    /// first at or after `offset`.
    pub fn first_node_from(&self, offset: usize) -> Option<usize> {
        let at = self.starts.partition_point(|(start, _)| *start < offset);
        self.starts.get(at).map(|(_, node)| *node)
    }

    /// The declarations, statements and expressions that start at
    /// `offset`, outermost first.
    pub fn nodes_starting_at(&self, offset: usize) -> impl Iterator<Item = usize> + '_ {
        let at = self.starts.partition_point(|(start, _)| *start < offset);
        (self.starts[at..].iter())
            .take_while(move |(start, _)| *start == offset)
            .map(|(_, node)| *node)
    }

    pub fn is_hidden(&self, offset: usize) -> bool {
        let at = self.hidden.partition_point(|s| s.start <= offset);
        at > 0 && self.hidden[at - 1].contains(&offset)
    }

    /// The tokens in `range` the parser sees: not in a skipped branch, a
    /// preprocessor line or a directive, nor a use of a macro that
    /// expands to nothing.
    pub fn visible_tokens(&self, range: Span) -> Vec<Token> {
        let first = self.tokens.partition_point(|t| t.start < range.start);
        self.tokens[first..]
            .iter()
            .take_while(|t| t.start < range.end)
            .filter(|t| !self.is_hidden(t.start) && !self.in_empty_expansion(t.start))
            .copied()
            .collect()
    }

    /// The first token at or after `offset` the parser sees.
    pub fn next_visible_token(&self, offset: usize) -> Option<Token> {
        let first = self.tokens.partition_point(|t| t.start < offset);
        self.tokens[first..]
            .iter()
            .find(|t| !self.is_hidden(t.start))
            .copied()
    }

    pub fn text(&self, token: &Token) -> &str {
        std::str::from_utf8(&self.bytes[token.start..token.end]).unwrap_or("")
    }

    fn in_empty_expansion(&self, offset: usize) -> bool {
        let at = self.expansions.partition_point(|(s, _)| s.start <= offset);
        let Some((span, node)) = at.checked_sub(1).map(|i| &self.expansions[i]) else {
            return false;
        };
        span.contains(&offset)
            && self
                .macro_body(*node)
                .is_some_and(|(_, body)| body.is_empty())
    }

    /// The definition of the macro an expansion uses, split into its
    /// parameters (`None` for an object-like macro) and its body tokens.
    pub fn macro_body(&self, expansion: usize) -> Option<(Option<Vec<String>>, Vec<String>)> {
        let definition = self.unit.referenced(&self.nodes[expansion])?;
        let tokens = self.unit.definition_tokens(&definition);
        if tokens.is_empty() {
            return None;
        }
        if !self.unit.is_function_like_macro(&definition) {
            return Some((None, tokens[1..].to_vec()));
        }
        let close = tokens.iter().position(|t| t == ")")?;
        let parameters = tokens[2..close]
            .iter()
            .filter(|t| *t != ",")
            .cloned()
            .collect();
        Some((Some(parameters), tokens[close + 1..].to_vec()))
    }

    /// Where a statement ends, its `;` included: clang's extent of an
    /// expression, `return`, `break`, `goto` or `do` statement, and of a
    /// statement ending in one, stops before it.
    pub fn statement_end(&self, node: usize) -> usize {
        let end = self.span(node).end;
        if !self.ends_before_semicolon(node) {
            return end;
        }
        match self.next_visible_token(end) {
            Some(token) if self.text(&token) == ";" => token.end,
            // The `;` came from a macro the statement is written with.
            _ => end,
        }
    }

    fn ends_before_semicolon(&self, node: usize) -> bool {
        let kind = self.kind(node);
        if matches!(
            kind,
            CXCursor_CompoundStmt | CXCursor_NullStmt | CXCursor_DeclStmt
        ) {
            return false;
        }
        if ENDS_WITH_CHILD.contains(&kind) {
            let end = self.span(node).end;
            return match self.children[node].last() {
                Some(&last) if self.span(last).end == end => self.ends_before_semicolon(last),
                _ => false,
            };
        }
        matches!(self.nodes[node].class, Class::Statement | Class::Expression)
    }

    /// The loop `node` is, or the loop that loop hints made from pragmas
    /// (`#pragma unroll`, `#pragma clang loop`) are attached to: libclang
    /// shows the statement holding the hints only as an unexposed one.
    pub fn loop_under_hints(&self, node: usize) -> usize {
        let mut at = node;
        while self.kind(at) == CXCursor_UnexposedStmt {
            match self.children[at].as_slice() {
                [only]
                    if LOOP_KINDS.contains(&self.kind(*only))
                        || self.kind(*only) == CXCursor_UnexposedStmt =>
                {
                    at = *only
                }
                _ => return node,
            }
        }
        if LOOP_KINDS.contains(&self.kind(at)) {
            at
        } else {
            node
        }
    }

    /// Whether `node` stands where a statement may stand: in a compound
    /// statement, or as the body of a loop, `if`, `switch` or label.
    pub fn in_statement_position(&self, node: usize) -> bool {
        let Some(parent) = self.nodes[node].parent else {
            return false;
        };
        let siblings = &self.children[parent];
        let last = siblings.last() == Some(&node);
        match self.kind(parent) {
            CXCursor_CompoundStmt => true,
            CXCursor_ForStmt
            | CXCursor_CXXForRangeStmt
            | CXCursor_WhileStmt
            | CXCursor_SwitchStmt
            | CXCursor_LabelStmt
            | CXCursor_CaseStmt
            | CXCursor_DefaultStmt
            | CXCursor_UnexposedStmt => last,
            CXCursor_DoStmt => siblings.first() == Some(&node),
            // The `then` branch is followed by `else`, or ends the `if`.
            CXCursor_IfStmt => {
                last || self
                    .next_visible_token(self.statement_end(node))
                    .is_some_and(|t| self.text(&t) == "else")
            }
            _ => false,
        }
    }
}

/// The preprocessor lines of the file: each `#` that begins a line, to
/// the end of its logical line.
fn preprocessor_lines(bytes: &[u8], tokens: &[Token]) -> Vec<Span> {
    tokens
        .iter()
        .filter(|t| bytes[t.start..t.end] == *b"#" && begins_line(bytes, t.start))
        .map(|t| t.start..logical_line_end(bytes, t.start))
        .collect()
}

fn begins_line(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| **b != b'\n')
        .all(|b| b.is_ascii_whitespace())
}

/// The newline ending the logical line `at` is on (backslash-newline
/// continues a line).
fn logical_line_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at;
    while let Some(newline) = memchr::memchr(b'\n', &bytes[i..]).map(|n| i + n) {
        let before = bytes[..newline]
            .strip_suffix(b"\r")
            .unwrap_or(&bytes[..newline]);
        if !before.ends_with(b"\\") {
            return newline;
        }
        i = newline + 1;
    }
    bytes.len()
}

fn merge(sorted: Vec<Span>) -> Vec<Span> {
    let mut merged: Vec<Span> = Vec::with_capacity(sorted.len());
    for span in sorted {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}
