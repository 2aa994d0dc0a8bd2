//! Narrowing a piece to what its directives own. In a function dense with
//! directives, the piece is most of the file; but a directive's block is
//! one statement, and the grammar reads a statement the same whether the
//! statements around it are there or not. So the function is parsed as
//! its head, the statements its directives apply to, and its closing
//! brace, offsets kept.
//!
//! A cheap token scan proposes each statement's extent; the parse must
//! then agree with it exactly ([`Owned::agrees`]). The scan declines (and
//! the whole function is parsed) wherever the text around a directive
//! could matter: preprocessor lines in the body, a directive inside a
//! lambda, a local class or an initializer, a lock routine named outside
//! the owned statements, pomp's user regions (whose exits are every
//! `return` of the function), attribute-form and unknown directives, and
//! statements it does not know how to end (labels, `try`).

use super::analysis::highest_statement_at;
use super::lex::{TokenKind, Tokens};
use super::nodes::Nodes;
use super::prepare::Prepared;
use super::scan::{LineKind, RawKind};
use crate::directive::Association;
use crate::source::Span;

/// One statement a directive (or several nested ones) applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Owned {
    /// What the grammar reads: from the directive to the statement's end.
    pub range: Span,
    /// Where the statement begins.
    pub statement: usize,
}

impl Owned {
    /// Whether the parse reads the statement with the extent the scan
    /// proposed.
    pub fn agrees(&self, nodes: &Nodes) -> bool {
        let Some(leaf) = nodes.descendant(self.statement, self.statement + 1) else {
            return false;
        };
        highest_statement_at(nodes, leaf, self.statement)
            .is_some_and(|s| s.byte_range() == (self.statement..self.range.end) && !s.has_error())
    }
}

/// The statements owned by the directives `directives` of the function
/// `item` whose body opens at `open`, in order and disjoint; `None` where
/// the whole function must be parsed.
pub(super) fn owned(
    prepared: &Prepared,
    item: Span,
    open: usize,
    directives: std::ops::Range<usize>,
    mentions: std::ops::Range<usize>,
) -> Option<Vec<Owned>> {
    // A conditional anywhere in the function, its head included, may make
    // another configuration read it differently: that comparison is made
    // on whole functions. Pragmas other than directives are seen by the
    // scan of the body.
    let lines = &prepared.lines;
    let first_line = lines.partition_point(|l| l.span.start < item.start);
    if lines[first_line..]
        .iter()
        .take_while(|l| l.span.start < item.end)
        .any(|l| l.kind != LineKind::Pragma)
    {
        return None;
    }
    let masked = &prepared.masked;
    let tokens = BodyTokens::scan(masked, open + 1..item.end - 1)?;
    let mut owned: Vec<Owned> = Vec::new();
    for index in directives {
        let d = &prepared.directives[index];
        if !matches!(d.kind, RawKind::Pragma | RawKind::PragmaOperator) {
            return None;
        }
        let parsed = prepared.parsed[index].as_ref()?.as_ref().ok()?;
        if parsed.directive.role().is_some() {
            return None;
        }
        let association = parsed.directive.spec().association;
        if !matches!(
            association,
            Association::Block | Association::Loop | Association::Separator
        ) {
            continue;
        }
        if owned.last().is_some_and(|o| d.span.start < o.range.end) {
            continue;
        }
        let first = tokens.first_at(d.span.end)?;
        if !tokens.begins_statement(first) {
            return None;
        }
        let past = tokens.statement_end(first)?;
        owned.push(Owned {
            range: d.span.start..tokens.list[past - 1].span.end,
            statement: tokens.list[first].span.start,
        });
    }
    let covered = |at: usize| owned.iter().any(|o| o.range.contains(&at));
    if !prepared.lock_mentions[mentions]
        .iter()
        .all(|m| covered(m.start))
    {
        return None;
    }
    Some(owned)
}

/// The tokens of a function body, with what the scan of the statements
/// needs to know about each.
struct BodyTokens {
    list: Vec<super::lex::Token>,
    words: Vec<Word>,
    /// Whether the token stands directly in a statement block: every
    /// brace around it opens one, and no parenthesis or bracket is open.
    at_block_level: Vec<bool>,
    /// For a `}`, whether it closes a statement block; for a `)`, the
    /// keyword before its `(`.
    closes: Vec<Closes>,
    /// The `while (...);` of each `do`, as token indexes.
    do_tails: Vec<std::ops::Range<usize>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Closes {
    Nothing,
    StatementBlock,
    /// The parentheses after the keyword (or after another word).
    Parentheses(Word),
}

/// The keywords the statement scan tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    If,
    Else,
    For,
    While,
    Do,
    Switch,
    /// A keyword that opens a statement the scan does not end: the whole
    /// function is parsed.
    Unsupported,
    /// `catch`, `constexpr`: a block or parentheses follow as after `if`.
    Opener,
    Other,
}

impl Word {
    fn of(word: &[u8]) -> Word {
        match word {
            b"if" => Word::If,
            b"else" => Word::Else,
            b"for" => Word::For,
            b"while" => Word::While,
            b"do" => Word::Do,
            b"switch" => Word::Switch,
            b"case" | b"default" | b"try" | b"__try" | b"asm" | b"__asm__" => Word::Unsupported,
            b"catch" | b"constexpr" => Word::Opener,
            _ => Word::Other,
        }
    }
}

impl BodyTokens {
    /// `None` where a preprocessor line or unbalanced brackets make the
    /// body one the scan does not read.
    fn scan(masked: &[u8], inside: Span) -> Option<BodyTokens> {
        let mut list: Vec<super::lex::Token> = Vec::new();
        let mut words = Vec::new();
        let mut at_block_level = Vec::new();
        let mut closes = Vec::new();
        // Open brackets: the byte, for `{` whether it opens a statement
        // block, for `(` the word before it.
        let mut open: Vec<(u8, bool, Word)> = Vec::new();
        let mut foreign_braces = 0usize;
        for token in Tokens::new(masked, inside) {
            let word = match token.kind {
                TokenKind::Word => Word::of(&masked[token.span.clone()]),
                _ => Word::Other,
            };
            let block_level = foreign_braces == 0
                && open
                    .last()
                    .is_none_or(|&(b, statement_block, _)| b == b'{' && statement_block);
            at_block_level.push(block_level);
            let previous = list.last().map(|t| t.kind);
            let previous_word = words.last().copied().unwrap_or(Word::Other);
            let previous_closes = closes.last().copied().unwrap_or(Closes::Nothing);
            let mut closing = Closes::Nothing;
            match token.kind {
                // A `#` that starts no preprocessor line is a syntax error,
                // which the parse of the whole function must report.
                TokenKind::Preprocessor | TokenKind::Punct(b'#') => return None,
                TokenKind::Punct(b'{') => {
                    let statement_block = match previous {
                        None => true,
                        Some(TokenKind::Punct(b';' | b'{' | b'}' | b':')) => true,
                        Some(TokenKind::Word) => {
                            matches!(previous_word, Word::Else | Word::Do | Word::Opener)
                        }
                        Some(TokenKind::Punct(b')')) => matches!(
                            previous_closes,
                            Closes::Parentheses(
                                Word::If | Word::For | Word::While | Word::Switch | Word::Opener
                            )
                        ),
                        _ => false,
                    };
                    if !statement_block {
                        foreign_braces += 1;
                    }
                    open.push((b'{', statement_block, Word::Other));
                }
                TokenKind::Punct(b @ (b'(' | b'[')) => {
                    let before = match previous {
                        Some(TokenKind::Word) => previous_word,
                        _ => Word::Other,
                    };
                    open.push((b, true, before));
                }
                TokenKind::Punct(b @ (b'}' | b')' | b']')) => {
                    let opening = match b {
                        b'}' => b'{',
                        b')' => b'(',
                        _ => b'[',
                    };
                    let (was, statement_block, before) = open.pop()?;
                    if was != opening {
                        return None;
                    }
                    closing = match b {
                        b'}' if statement_block => Closes::StatementBlock,
                        b'}' => {
                            foreign_braces -= 1;
                            Closes::Nothing
                        }
                        b')' => Closes::Parentheses(before),
                        _ => Closes::Nothing,
                    };
                }
                _ => {}
            }
            list.push(token);
            words.push(word);
            closes.push(closing);
        }
        if !open.is_empty() {
            return None;
        }
        let mut tokens = BodyTokens {
            list,
            words,
            at_block_level,
            closes,
            do_tails: Vec::new(),
        };
        tokens.do_tails = (0..tokens.list.len())
            .filter(|&i| tokens.words[i] == Word::Do)
            .map(|i| tokens.do_tail(i))
            .collect();
        Some(tokens)
    }

    /// Whether a statement may begin at token `first` whatever the tokens
    /// before it: it stands in a statement block right after the start of
    /// the block, a whole statement, or the head of a statement whose body
    /// it is. Where it may continue the statement before (`else`, the
    /// `while` of a `do`, a declaration going on), it does not begin one.
    fn begins_statement(&self, first: usize) -> bool {
        if !self.at_block_level[first] || self.in_do_tail(first) {
            return false;
        }
        let Some(previous) = first.checked_sub(1) else {
            return true;
        };
        match (self.list[previous].kind, self.closes[previous]) {
            (TokenKind::Punct(b';' | b'{'), _) => true,
            (TokenKind::Punct(b'}'), Closes::StatementBlock) => true,
            (TokenKind::Punct(b')'), Closes::Parentheses(Word::If | Word::For | Word::Switch)) => {
                true
            }
            (TokenKind::Punct(b')'), Closes::Parentheses(Word::While)) => {
                !self.in_do_tail(previous)
            }
            (TokenKind::Word, _) => matches!(self.words[previous], Word::Else | Word::Do),
            _ => false,
        }
    }

    /// Whether token `at` is part of the `while (...);` that ends a
    /// `do` statement.
    fn in_do_tail(&self, at: usize) -> bool {
        self.do_tails.iter().any(|tail| tail.contains(&at))
    }

    /// The tokens of the `while (...);` ending the `do` at `at`: from the
    /// end of its body to the end of the statement, or to the end of the
    /// function where the scan cannot end them.
    fn do_tail(&self, at: usize) -> std::ops::Range<usize> {
        match self.statement_end(at + 1) {
            Some(body) => body..self.statement_end(at).unwrap_or(self.list.len()),
            None => at + 1..self.list.len(),
        }
    }

    /// The first token at or after `offset`.
    fn first_at(&self, offset: usize) -> Option<usize> {
        let at = self.list.partition_point(|t| t.span.start < offset);
        (at < self.list.len()).then_some(at)
    }

    fn punct(&self, at: usize) -> Option<u8> {
        match self.list.get(at)?.kind {
            TokenKind::Punct(b) => Some(b),
            _ => None,
        }
    }

    /// The index past the bracket that closes the one at `at`.
    fn past_brackets(&self, at: usize) -> Option<usize> {
        let mut depth = 0usize;
        for i in at..self.list.len() {
            match self.punct(i) {
                Some(b'{' | b'(' | b'[') => depth += 1,
                Some(b'}' | b')' | b']') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The index past the parenthesised condition or header after the
    /// keyword at `at` (past `constexpr` too).
    fn past_header(&self, mut at: usize) -> Option<usize> {
        at += 1;
        if self.words.get(at) == Some(&Word::Opener) {
            at += 1;
        }
        (self.punct(at)? == b'(').then_some(())?;
        self.past_brackets(at)
    }

    /// The index past the statement starting at token `at`.
    fn statement_end(&self, at: usize) -> Option<usize> {
        let token = self.list.get(at)?;
        match token.kind {
            TokenKind::Punct(b'{') => return self.past_brackets(at),
            TokenKind::Punct(b';') => return Some(at + 1),
            TokenKind::Punct(b'}' | b')' | b']' | b'[') | TokenKind::Preprocessor => return None,
            _ => {}
        }
        match self.words[at] {
            Word::If => {
                let then = self.statement_end(self.past_header(at)?)?;
                match self.words.get(then) {
                    Some(Word::Else) => self.statement_end(then + 1),
                    _ => Some(then),
                }
            }
            Word::For | Word::While | Word::Switch => self.statement_end(self.past_header(at)?),
            Word::Do => {
                let body = self.statement_end(at + 1)?;
                (self.words.get(body) == Some(&Word::While)).then_some(())?;
                let condition = self.past_header(body)?;
                (self.punct(condition)? == b';').then_some(condition + 1)
            }
            Word::Else | Word::Unsupported | Word::Opener => None,
            Word::Other => {
                // A label (`name:`, not `name::`) starts a labelled statement.
                if token.kind == TokenKind::Word
                    && self.punct(at + 1) == Some(b':')
                    && self.punct(at + 2) != Some(b':')
                {
                    return None;
                }
                let mut i = at;
                while i < self.list.len() {
                    match self.punct(i) {
                        Some(b';') => return Some(i + 1),
                        Some(b'{' | b'(' | b'[') => i = self.past_brackets(i)?,
                        Some(b'}' | b')' | b']') => return None,
                        _ => i += 1,
                    }
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statement the scan finds at the first token of `text`.
    fn first_statement(text: &str) -> Option<&str> {
        let tokens = BodyTokens::scan(text.as_bytes(), 0..text.len())?;
        let past = tokens.statement_end(0)?;
        Some(&text[..tokens.list[past - 1].span.end])
    }

    #[test]
    fn statements_end_where_the_grammar_ends_them() {
        let cases = [
            ("x = f(a, b); y = 2;", Some("x = f(a, b);")),
            ("{ a; { b; } } c;", Some("{ a; { b; } }")),
            (
                "for (i = 0; i < n; i++) a[i] = 0; b;",
                Some("for (i = 0; i < n; i++) a[i] = 0;"),
            ),
            (
                "if (c) a; else if (d) b; else { e; } f;",
                Some("if (c) a; else if (d) b; else { e; }"),
            ),
            ("if (c) { a; } g;", Some("if (c) { a; }")),
            ("do { a; } while (c); d;", Some("do { a; } while (c);")),
            ("while (c) for (;;) { } x;", Some("while (c) for (;;) { }")),
            (
                "struct s { int a; } v = { 1 }; w;",
                Some("struct s { int a; } v = { 1 };"),
            ),
            ("auto f = [&] { g(); }; h;", Some("auto f = [&] { g(); };")),
            (
                "if constexpr (N > 1) a; b;",
                Some("if constexpr (N > 1) a;"),
            ),
            ("label: a;", None),
            ("try { a; } catch (...) { }", None),
            ("case 1: a;", None),
            ("FOR_EACH(i) { a; }", None),
            (";", Some(";")),
        ];
        for (text, expected) in cases {
            assert_eq!(first_statement(text), expected, "{text}");
        }
    }

    #[test]
    fn statements_begin_only_where_nothing_before_them_goes_on() {
        let text =
            "{ a; } if (c) { b; } auto f = [] { c; }; struct S { int d; }; int e[] = { 1 }; \
                    for (i = 0; i < n; i++) g; x = y + h; do k; while (m); do { o; } while (p); \
                    exlse q; if (r) s; else t; struct T { } u; w: v;";
        let tokens = BodyTokens::scan(text.as_bytes(), 0..text.len()).unwrap();
        let begins = |word: &str| {
            let at = text.find(word).unwrap();
            tokens.begins_statement(tokens.first_at(at).unwrap())
        };
        assert!(begins("a;"));
        assert!(begins("b;"));
        assert!(begins("g;"));
        assert!(begins("if (c)"));
        assert!(begins("k;"));
        assert!(begins("s;"));
        assert!(begins("t;"));
        for inside_something in [
            "c;", "int d", "1 }", "n;", "i++", "h;", "m)", "p)", "q;", "u;", "v;",
        ] {
            assert!(!begins(inside_something), "{inside_something}");
        }
        let do_tail = text.find("while (m)").unwrap();
        assert!(!begins_at(&tokens, do_tail));
    }

    fn begins_at(tokens: &BodyTokens, offset: usize) -> bool {
        tokens.begins_statement(tokens.first_at(offset).unwrap())
    }

    #[test]
    fn preprocessor_lines_and_unbalanced_brackets_leave_the_body_unread() {
        assert!(BodyTokens::scan(b"a;\n#if X\nb;\n#endif\n", 0..20).is_none());
        assert!(BodyTokens::scan(b"a(;", 0..3).is_none());
        assert!(BodyTokens::scan(b"a(];", 0..4).is_none());
        assert!(BodyTokens::scan(b"{ #pragma omp barrier\n}", 0..22).is_none());
    }
}
