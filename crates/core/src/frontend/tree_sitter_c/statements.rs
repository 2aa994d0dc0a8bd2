//! Narrowing a piece to what its directives own. In a function dense with
//! directives, the piece is most of the file; but a directive's block is
//! one statement, and the grammar reads a statement the same whether the
//! statements around it are there or not. So the function is parsed as
//! its head, the statements its directives apply to, the statements that
//! name lock routines, and its closing brace, offsets kept. A statement
//! that is the body of another (`if (c)` before the directive) is read
//! with the whole statement of its block, which alone shows whether the
//! text before it goes with it.
//!
//! Inside those statements, pomp reads only nested directives, lock calls,
//! loop nests and the statements of a `sections` block, which make its
//! first section: a brace block that holds none of them is read as its
//! two braces ([`Owned::read`]), as a function without directives is read
//! as nothing. Of a loop, the test and the step are not read either, nor
//! a body that is one expression, where the scan can tell each is a plain
//! expression the grammar reads without error: the grammar sees
//! `for (int i = 0;;) ;`, the same loop with the same ends. Directives'
//! own lines, blanks once masked, are not read at all. Jumps matter only
//! in pomp's user regions, which they may leave: where a region's text
//! names a jump, the statements at the top of the body that hold a
//! region, or lie between its `inst begin` and `inst end`, are read
//! whole. So is the statement at the top that holds a directive inside a
//! lambda, a local class or an initializer, where no statement of a block
//! begins.
//!
//! A cheap token scan proposes each statement's extent; the parse must
//! then agree with it exactly ([`Owned::agrees`]). The scan declines (and
//! the whole function is parsed) wherever the text around a directive
//! could matter: a conditional the configurations split the function by,
//! a conditional line the grammar reads (`#if USE_MPI`) anywhere but
//! between whole statements of a block, a statement read inside one of
//! its groups, other preprocessor lines in the body, a `do` without its
//! `while`, a `try` without its `catch`, a `goto` or a conditional line
//! in a function holding pomp's user regions,
//! directives in a declaration's attributes and unknown directives, and
//! statements it does not know how to end (labels, `case`). A directive
//! in a statement's attributes (`[[omp::directive(...)]]`) is masked as a
//! pragma is, and read alike.

use super::nodes::{ByName, Nodes};
use super::prepare::Prepared;
use super::syntax::{statement_starting_at, JUMP_KEYWORDS};
use crate::directive::{Association, Role};
use crate::frontend::lexical::scan::{LineKind, RawKind};
use crate::language::c::lex::{self, TokenKind, Tokens};
use crate::source::Span;
use std::collections::HashMap;

/// What the grammar reads of a function around its directives: a
/// statement a directive (or several nested ones) applies to, the whole
/// statement of its block that one stands in (as the body of an `if`), or
/// a whole statement that names a lock routine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Owned {
    /// The statement a directive applies to, or the whole statement
    /// holding it (the directive's own line, a blank in the masked text,
    /// is not read).
    pub range: Span,
    /// What the grammar skips in `range`: the blank lines of nested
    /// directives and the insides of brace blocks it need not read; in
    /// order and disjoint.
    skipped: Vec<Span>,
    /// The statements the parse must read with these extents.
    checks: Vec<Check>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Check {
    extent: Span,
    /// A statement naming a lock routine may be a declaration.
    may_be_declaration: bool,
}

impl Owned {
    /// Puts `self` among `owned` (in order, disjoint), in place of those
    /// it covers, whose checks it makes too.
    fn take_place_among(mut self, owned: &mut Vec<Owned>) {
        let range = self.range.clone();
        let covered = |o: &mut Owned| o.range.start < range.end && range.start < o.range.end;
        for inside in owned.extract_if(.., covered) {
            self.checks.extend(inside.checks);
        }
        let at = owned.partition_point(|o| o.range.start < self.range.start);
        owned.insert(at, self);
    }

    /// What the grammar reads: the range without what it skips.
    pub fn read(&self) -> impl Iterator<Item = Span> + '_ {
        let starts = std::iter::once(self.range.start).chain(self.skipped.iter().map(|h| h.end));
        let ends = self.skipped.iter().map(|h| h.start);
        starts
            .zip(ends.chain(std::iter::once(self.range.end)))
            .map(|(start, end)| start..end)
    }

    /// Whether the parse reads each statement with the extent the scan
    /// proposed, without error.
    pub fn agrees(&self, nodes: &Nodes) -> bool {
        self.checks.iter().all(|check| check.agrees(nodes))
    }
}

impl Check {
    fn agrees(&self, nodes: &Nodes) -> bool {
        let start = self.extent.start;
        let agrees = |s: tree_sitter::Node| s.byte_range() == self.extent && !s.has_error();
        if statement_starting_at(nodes, start).is_some_and(agrees) {
            return true;
        }
        let Some(leaf) = nodes.descendant(start, start + 1) else {
            return false;
        };
        self.may_be_declaration
            && std::iter::once(leaf)
                .chain(nodes.ancestors(leaf))
                .take_while(|n| n.start_byte() == start)
                .any(|n| n.kind_name() == "declaration" && agrees(n))
    }
}

/// What the grammar reads of the function `item`, whose body opens at
/// `open`, for its directives `directives` and the lock routines it names
/// `mentions`: in order and disjoint; `None` where the whole function
/// must be parsed.
pub(super) fn owned(
    prepared: &Prepared,
    item: Span,
    open: usize,
    directives: std::ops::Range<usize>,
    mentions: std::ops::Range<usize>,
) -> Option<Vec<Owned>> {
    // A conditional that splits the function makes every configuration
    // read it whole, to compare them. Other conditionals are decided or
    // hold only directives: the grammar reads them as blanks, and so does
    // the scan. Pragmas other than directives are seen by the scan.
    if !prepared.conditionals.unbalanced_in(&item).is_empty() {
        return None;
    }
    let lines = &prepared.lines;
    let masked = &*prepared.masked();
    let first_line = lines.partition_point(|l| l.span.start < item.start);
    if lines[first_line..]
        .iter()
        .take_while(|l| l.span.start < item.end)
        .any(|l| {
            !matches!(
                l.kind,
                LineKind::Pragma
                    | LineKind::If
                    | LineKind::Ifdef
                    | LineKind::Ifndef
                    | LineKind::Elif
                    | LineKind::Elifdef
                    | LineKind::Elifndef
                    | LineKind::Else
                    | LineKind::Endif
            ) && !masked[l.span.clone()].iter().all(u8::is_ascii_whitespace)
                && lex::index_holding(prepared.passed_over(), l.span.start).is_none()
        })
    {
        return None;
    }
    let cplusplus = prepared.file.language == crate::language::Language::Cpp;
    let tokens = BodyTokens::scan(
        masked,
        prepared.passed_over(),
        open + 1..item.end - 1,
        cplusplus,
    )?;
    let extent =
        |first: usize, past: usize| tokens.list[first].span.start..tokens.list[past - 1].span.end;
    // Searches for whole statements share what they found; the budget
    // keeps a function of many searches linear.
    let mut search = Search {
        ends: HashMap::new(),
        budget: 4 * tokens.list.len() + 1024,
    };
    let parse_of = |index: usize| prepared.parsed[index].as_ref()?.as_ref().ok();
    // Only a collapsed nest goes on past the first loop's header, into
    // its body: elsewhere a block holding loops is read as its braces too.
    let nests_continue = directives.clone().any(|index| {
        parse_of(index).is_some_and(|parsed| parsed.directive.clause("collapse").is_some())
    });
    // The statements of a block that separators divide (`sections`)
    // are read, even without a separator: they make its first section.
    let divided: Vec<usize> = (directives.clone())
        .filter(|&index| {
            parse_of(index).is_some_and(|parsed| {
                crate::directive::table()
                    .divided_by(parsed.directive.spec())
                    .is_some()
            })
        })
        .filter_map(|index| tokens.first_at(prepared.directives[index].span.end))
        .map(|at| tokens.list[at].span.start)
        .collect();
    // From the first user region directive's line to the last one's.
    let mut region_lines = (directives.clone())
        .filter(|&index| {
            parse_of(index).is_some_and(|parsed| {
                matches!(
                    parsed.directive.role(),
                    Some(Role::UserRegionBegin | Role::UserRegionEnd)
                )
            })
        })
        .map(|index| &prepared.directives[index].span);
    let regions: Option<Span> = region_lines.next().map(|first| {
        let last = region_lines.last().unwrap_or(first);
        first.start..last.end
    });
    // A user region's statements are read for the jumps that may leave
    // it. Where the regions name none, and the function has no
    // conditional line (which makes the whole function read), they are
    // read as the rest of the function is: a region around a large loop
    // nest costs its directives' statements only.
    let regions = regions.filter(|regions| {
        !tokens.lines.is_empty() || names_any(tokens.within(regions), masked, &JUMP_KEYWORDS)
    });
    // Found once, for the directives and user regions that need them.
    let top = std::cell::OnceCell::new();
    let top_statements = || top.get_or_init(|| tokens.top_statements()).as_deref();
    let mut owned: Vec<Owned> = Vec::new();
    for index in directives {
        let d = &prepared.directives[index];
        // An attribute is masked as a pragma is: its statement begins at
        // the first token after it. One that belongs to a declaration
        // may make device code of what the tree tells.
        if !matches!(
            d.kind,
            RawKind::Pragma | RawKind::PragmaOperator | RawKind::Attribute
        ) {
            return None;
        }
        let parsed = parse_of(index)?;
        match parsed.directive.role() {
            None => {}
            // Read below, with every statement they may be left from.
            Some(Role::UserRegionBegin | Role::UserRegionEnd) if regions.is_some() => continue,
            // Else as any directive that owns no statement.
            Some(Role::UserRegionBegin | Role::UserRegionEnd) => {}
            Some(_) => return None,
        }
        if owned.last().is_some_and(|o| d.span.start < o.range.end) {
            continue;
        }
        // In a lambda, a local class or an initializer, the statement at
        // the top of the body that holds the directive is read whole: it
        // tells which function the directive is in, and where its block
        // ends.
        let next = tokens.first_at(d.span.end);
        if next.is_some_and(|first| !tokens.at_block_level[first]) {
            (tokens.top_statements_over(top_statements()?, &d.span)?).take_place_among(&mut owned);
            continue;
        }
        if !matches!(
            parsed.directive.spec().association,
            Association::Block | Association::Loop | Association::Separator
        ) {
            continue;
        }
        let first = next?;
        if !tokens.begins_statement(first) || tokens.line_between(d.span.end, first) {
            return None;
        }
        let past = tokens.statement_end(first)?;
        let mut kept = Owned {
            range: extent(first, past),
            skipped: Vec::new(),
            checks: vec![Check {
                extent: extent(first, past),
                may_be_declaration: false,
            }],
        };
        // The body of an `if`, `else` or loop is read with its statement:
        // only the whole shows whether the text before it goes with it.
        if !tokens.begins_whole_statement(first) {
            let (whole, whole_past) = tokens.enclosing_whole_statement(first, &mut search)?;
            let whole = extent(whole, whole_past);
            kept.range = whole.start..whole.end.max(kept.range.end);
            kept.checks.push(Check {
                extent: whole,
                may_be_declaration: false,
            });
        }
        kept.take_place_among(&mut owned);
    }
    if let Some(regions) = &regions {
        let read = tokens.user_regions_read(top_statements()?, regions, masked)?;
        if let Some(read) = read {
            read.take_place_among(&mut owned);
        }
    }
    let covered = |owned: &[Owned], at: usize| owned.iter().any(|o| o.range.contains(&at));
    let mut naming: Vec<Owned> = Vec::new();
    for mention in &prepared.lock_mentions[mentions] {
        if covered(&owned, mention.start) || covered(&naming, mention.start) {
            continue;
        }
        let at = tokens.first_at(mention.start)?;
        let (first, past) = tokens.enclosing_whole_statement(at, &mut search)?;
        let range = extent(first, past);
        if owned
            .iter()
            .any(|o| range.start < o.range.end && o.range.start < range.end)
        {
            return None;
        }
        naming.push(Owned {
            skipped: Vec::new(),
            checks: vec![Check {
                extent: range.clone(),
                may_be_declaration: true,
            }],
            range,
        });
    }
    owned.extend(naming);
    owned.sort_by_key(|o| o.range.start);
    // A block whose statements the scan cannot end (`L: }`, `while (1) }`)
    // holds an error to the grammar, whose recovery may reach past it:
    // where pomp reads nothing, only the parse of the whole function
    // shows how far.
    if tokens.unended_blocks().any(|at| !covered(&owned, at)) {
        return None;
    }
    // A statement inside a conditional's group is read by the grammar as
    // part of the conditional: only one outside every group reads alike
    // without the lines around it.
    if owned.iter().any(|o| {
        tokens.conditional_depth_at(o.range.start) != 0
            || tokens.conditional_depth_at(o.range.end) != 0
    }) {
        return None;
    }
    // Whether a directive or a lock routine's name lies in `inside`, or
    // the block is one that separators divide.
    let read_inside = |inside: &Span| {
        if divided.contains(&(inside.start - 1)) {
            return true;
        }
        let directive = prepared
            .directives
            .partition_point(|d| d.span.start < inside.start);
        let mention = prepared
            .lock_mentions
            .partition_point(|m| m.start < inside.start);
        (prepared.directives.get(directive)).is_some_and(|d| d.span.start < inside.end)
            || (prepared.lock_mentions.get(mention)).is_some_and(|m| m.start < inside.end)
    };
    for kept in &mut owned {
        let nested = prepared
            .directives
            .partition_point(|d| d.span.start < kept.range.start);
        kept.skipped = (prepared.directives[nested..].iter())
            .take_while(|d| d.span.end <= kept.range.end)
            .map(|d| d.span.clone())
            .collect();
        // The statements of the directives inside are read.
        let owned_by_nested: Vec<usize> = (kept.skipped.iter())
            .filter_map(|directive| tokens.first_at(directive.end))
            .map(|first| tokens.list[first].span.start)
            .collect();
        // A jump in a user region may leave it, and must then close it:
        // where a region lies, every block is read.
        let in_regions = (regions.as_ref())
            .is_some_and(|r| kept.range.start < r.end && r.start < kept.range.end);
        if !in_regions {
            let first = tokens
                .first_at(kept.range.start)
                .unwrap_or(tokens.list.len());
            let past = tokens.first_at(kept.range.end).unwrap_or(tokens.list.len());
            // The blocks hold no directive: they lie between the lines.
            kept.skipped
                .extend(tokens.hollows(first..past, nests_continue, read_inside));
            kept.skipped.sort_unstable_by_key(|s| s.start);
        }
        let checked = |at: usize| {
            owned_by_nested.contains(&at) || (kept.checks.iter()).any(|c| c.extent.start == at)
        };
        let first = tokens
            .first_at(kept.range.start)
            .unwrap_or(tokens.list.len());
        let past = tokens.first_at(kept.range.end).unwrap_or(tokens.list.len());
        let mut unread = tokens.unread_of_loops(first..past, masked, read_inside, checked);
        // Those inside a block skipped whole are left out with it.
        let hollow = |span: &Span| {
            let at = kept.skipped.partition_point(|s| s.end <= span.start);
            kept.skipped.get(at).is_some_and(|s| s.start < span.end)
        };
        unread.retain(|span| !hollow(span));
        if !unread.is_empty() {
            kept.skipped.extend(unread);
            kept.skipped.sort_unstable_by_key(|s| s.start);
        }
    }
    // C++ reads a body of braces alone (`void f() { {} }`, a block read
    // as its braces) as an initializer, a syntax error: one `;` of a
    // block is read then, an empty statement in it.
    if cplusplus && !owned.is_empty() && !tokens.reads_semicolon(&owned) {
        owned
            .iter_mut()
            .find_map(|kept| tokens.with_a_semicolon_read(&mut kept.skipped))?;
    }
    Some(owned)
}

/// Where, in the body of the function `item` whose body opens at `open`,
/// the grammar surely reads a syntax error: in C++, at each `try` that
/// begins a statement of a block and is not followed by its block and
/// handlers, which the grammar requires (`try { } CATCH_ALL`, a handler
/// a macro writes).
pub(super) fn surely_broken(prepared: &Prepared, item: &Span, open: usize) -> Vec<usize> {
    let masked = &*prepared.masked();
    let body = open + 1..item.end - 1;
    // Most functions hold no `try`: their tokens are not scanned again.
    // A word that only holds the letters (`entry`, `geometry`) is none.
    if prepared.file.language != crate::language::Language::Cpp
        || lex::whole_words(masked, body.clone(), b"try")
            .next()
            .is_none()
    {
        return Vec::new();
    }
    let Some(tokens) = BodyTokens::scan(masked, prepared.passed_over(), body, true) else {
        return Vec::new();
    };
    (0..tokens.list.len())
        .filter(|&at| {
            tokens.words[at] == Word::Try
                && tokens.begins_statement(at)
                && tokens.statement_end(at).is_none()
        })
        .map(|at| tokens.list[at].span.start)
        .collect()
}

/// The ends of statements found so far, and how many more tokens the
/// searches may step over.
struct Search {
    ends: HashMap<usize, Option<usize>>,
    budget: usize,
}

/// Whether one of `tokens` is a word among `words`.
fn names_any(tokens: &[lex::Token], masked: &[u8], words: &[&str]) -> bool {
    (tokens.iter())
        .filter(|t| t.kind == TokenKind::Word)
        .any(|t| {
            words
                .iter()
                .any(|w| w.as_bytes() == &masked[t.span.clone()])
        })
}

/// The punctuators of C and C++ longer than a byte, which a compiler reads
/// whole where their bytes touch (`a<-b` is `a < -b`, `a--b` no
/// expression).
const PUNCTUATORS: &[&[u8]] = &[
    b"->", b"++", b"--", b"<<", b">>", b"<=", b">=", b"==", b"!=", b"&&", b"||", b"*=", b"/=",
    b"%=", b"+=", b"-=", b"&=", b"^=", b"|=", b"##", b"<:", b":>", b"<%", b"%>", b"%:", b"::",
    b".*", b"<<=", b">>=", b"->*", b"<=>", b"...",
];

/// The operators a plain expression may begin with.
const PREFIX_OPERATORS: &[&str] = &["!", "~", "-", "+", "*", "&", "++", "--"];

/// The operators that may join two plain expressions.
const BINARY_OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "%", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&",
    "||", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", ",",
];

/// The tokens of a function body, with what the scan of the statements
/// needs to know about each.
struct BodyTokens {
    list: Vec<lex::Token>,
    words: Vec<Word>,
    /// Whether the token stands directly in a statement block: every
    /// brace around it opens one, and no parenthesis or bracket is open.
    at_block_level: Vec<bool>,
    /// For a `}`, whether it closes a statement block; for a `)`, the
    /// keyword before its `(`.
    closes: Vec<Closes>,
    /// For a bracket that opens, the index of the one that closes it.
    closing: Vec<u32>,
    /// Whether the token is part of the `while (...);` that ends a `do`.
    in_do_tail: Vec<bool>,
    /// Whether the body is C++'s, where a name before a brace may begin a
    /// list (`T{...}`): the grammar's recovery from an error in a block
    /// may then reach past the block.
    cplusplus: bool,
    /// The conditional lines the grammar reads (`#if USE_MPI`), each with
    /// the index of the token after it and how many groups are open after
    /// it. Each stands between whole statements of a statement block: the
    /// grammar reads the statements of its groups as it reads them
    /// without it.
    lines: Vec<ConditionalLine>,
}

struct ConditionalLine {
    next: usize,
    span: Span,
    depth: usize,
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
    /// C++'s `try`, whose block its `catch` clauses follow.
    Try,
    /// C++'s `catch`: parentheses and a block follow, within the `try`.
    Catch,
    /// A keyword that opens a statement the scan does not end: the whole
    /// function is parsed.
    Unsupported,
    /// `catch`, `constexpr`: a block or parentheses follow as after `if`.
    Opener,
    Other,
}

impl Word {
    /// The keyword `word` is, in C++ where `cplusplus` (in C, `try` and
    /// `catch` name no statement).
    fn of(word: &[u8], cplusplus: bool) -> Word {
        match word {
            b"try" if cplusplus => Word::Try,
            b"catch" if cplusplus => Word::Catch,
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

/// A bracket the body scan has met and not yet seen closed.
struct OpenBracket {
    byte: u8,
    /// For a `{`, whether it opens a statement block.
    statement_block: bool,
    /// For a `(`, the word before it.
    before: Word,
    /// The index of its token.
    at: usize,
}

impl BodyTokens {
    /// `None` where a preprocessor line or unbalanced brackets make the
    /// body one the scan does not read.
    fn scan(
        masked: &[u8],
        passed_over: &[Span],
        inside: Span,
        cplusplus: bool,
    ) -> Option<BodyTokens> {
        // Room for a token in every two bytes: growing the lists from
        // nothing copied them over and over, and so did room for one in
        // four bytes in a quarter of the corpus's C++ functions and in
        // every dense one (2.9 bytes a token in the C kernels). No body
        // of the benchmarks' inputs is denser; room never used is never
        // touched.
        let expected = inside.len() / 2 + 8;
        let mut list: Vec<lex::Token> = Vec::with_capacity(expected);
        let mut words = Vec::with_capacity(expected);
        let mut at_block_level = Vec::with_capacity(expected);
        let mut closes = Vec::with_capacity(expected);
        let mut closing: Vec<u32> = Vec::with_capacity(expected);
        let mut open: Vec<OpenBracket> = Vec::new();
        // Whether the innermost bracket open is a statement block's brace.
        let in_statement_block = |open: &[OpenBracket]| {
            open.last()
                .is_none_or(|o| o.byte == b'{' && o.statement_block)
        };
        let mut foreign_braces = 0usize;
        let mut lines = Vec::new();
        let mut pragmas = Vec::new();
        let mut depth = 0usize;
        for token in Tokens::new(masked, inside).passing_over(passed_over) {
            if token.kind == TokenKind::Preprocessor {
                if foreign_braces != 0 || !in_statement_block(&open) {
                    return None;
                }
                let (kind, rest) = line_kind(&masked[token.span.clone()])?;
                // A vendor's pragma (`#pragma unroll`) before a loop is a
                // statement of its own to the grammar, in pieces as in
                // the whole function, where it stands between statements.
                // OpenMP's directives are passed over before the scan.
                let names_something = rest.first().is_some_and(u8::is_ascii_whitespace)
                    && (rest.trim_ascii().first())
                        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
                if kind == LineKind::Pragma && names_something {
                    pragmas.push(list.len());
                    continue;
                }
                // Other lines (`#define`) are read by the parse of the
                // whole function.
                let change = match kind {
                    _ if kind.opens() => 1,
                    _ if kind.continues() => 0,
                    LineKind::Endif => -1,
                    _ => return None,
                };
                depth = depth.checked_add_signed(change)?;
                lines.push(ConditionalLine {
                    next: list.len(),
                    span: token.span,
                    depth,
                });
                continue;
            }
            let word = match token.kind {
                TokenKind::Word => Word::of(&masked[token.span.clone()], cplusplus),
                _ => Word::Other,
            };
            let block_level = foreign_braces == 0 && in_statement_block(&open);
            at_block_level.push(block_level);
            let previous = list.last().map(|t| t.kind);
            let previous_word = words.last().copied().unwrap_or(Word::Other);
            let previous_closes = closes.last().copied().unwrap_or(Closes::Nothing);
            let mut closes_here = Closes::Nothing;
            match token.kind {
                // A `#` that starts no preprocessor line is a syntax error,
                // which the parse of the whole function must report.
                TokenKind::Preprocessor | TokenKind::Punct(b'#') => return None,
                TokenKind::Punct(b'{') => {
                    let statement_block = match previous {
                        None => true,
                        Some(TokenKind::Punct(b';' | b'}' | b':')) => true,
                        // A block opening a block, but a list opening a
                        // list (`Grid g{{1, 2}};`), as far as the scan
                        // tells a lambda's body from an initializer.
                        Some(TokenKind::Punct(b'{')) => in_statement_block(&open),
                        Some(TokenKind::Word) => {
                            matches!(
                                previous_word,
                                Word::Else | Word::Do | Word::Opener | Word::Try
                            )
                        }
                        Some(TokenKind::Punct(b')')) => matches!(
                            previous_closes,
                            Closes::Parentheses(
                                Word::If
                                    | Word::For
                                    | Word::While
                                    | Word::Switch
                                    | Word::Opener
                                    | Word::Catch
                            )
                        ),
                        _ => false,
                    };
                    if !statement_block {
                        foreign_braces += 1;
                    }
                    open.push(OpenBracket {
                        byte: b'{',
                        statement_block,
                        before: Word::Other,
                        at: list.len(),
                    });
                }
                TokenKind::Punct(b @ (b'(' | b'[')) => {
                    let before = match previous {
                        Some(TokenKind::Word) => previous_word,
                        _ => Word::Other,
                    };
                    open.push(OpenBracket {
                        byte: b,
                        statement_block: true,
                        before,
                        at: list.len(),
                    });
                }
                TokenKind::Punct(b @ (b'}' | b')' | b']')) => {
                    let opening = match b {
                        b'}' => b'{',
                        b')' => b'(',
                        _ => b'[',
                    };
                    let OpenBracket {
                        byte: was,
                        statement_block,
                        before,
                        at: opened,
                    } = open.pop()?;
                    if was != opening {
                        return None;
                    }
                    closing[opened] = u32::try_from(list.len()).ok()?;
                    closes_here = match b {
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
            closes.push(closes_here);
            closing.push(0);
        }
        if !open.is_empty() {
            return None;
        }
        let mut tokens = BodyTokens {
            list,
            words,
            at_block_level,
            closes,
            closing,
            in_do_tail: Vec::new(),
            cplusplus,
            lines,
        };
        // A `do` the scan cannot end is a syntax error or a statement it
        // does not read: the parse of the whole function must judge it.
        let mut in_do_tail = vec![false; tokens.list.len()];
        for at in (0..tokens.list.len()).filter(|&i| tokens.words[i] == Word::Do) {
            let body = tokens.statement_end(at + 1)?;
            in_do_tail[body..tokens.statement_end(at)?].fill(true);
        }
        tokens.in_do_tail = in_do_tail;
        let between_statements = |next: usize| {
            let after = tokens.ends_statement_before(next);
            // Not `else` or `catch`, which go on with the statement before.
            let before = next == tokens.list.len()
                || tokens.closes[next] == Closes::StatementBlock
                || (tokens.begins_statement(next)
                    && !matches!(
                        tokens.words[next],
                        Word::Else | Word::Opener | Word::Catch | Word::Unsupported
                    ));
            after && before
        };
        let lines_after = tokens.lines.iter().map(|line| line.next);
        if !lines_after.chain(pragmas).all(between_statements) {
            return None;
        }
        Some(tokens)
    }

    /// What the grammar reads for the user regions whose directives'
    /// lines lie in `regions`, from the first line to the last: the
    /// statements at the top of the body that overlap it, so that every
    /// jump in a region is read with where it lands (the loop a `break`
    /// leaves may hold the region). `Some(None)` where no statement lies
    /// there; `None` where the whole function is read: it holds a `goto`,
    /// whose label may lie anywhere in it, or conditional lines.
    fn user_regions_read(
        &self,
        top: &[(usize, usize)],
        regions: &Span,
        masked: &[u8],
    ) -> Option<Option<Owned>> {
        // Conditional lines the grammar reads make each configuration
        // read the function, and one that fails leaves the regions
        // without the function they are in, in the whole parse too.
        if !self.lines.is_empty() || names_any(&self.list, masked, &["goto"]) {
            return None;
        }
        Some(self.top_statements_over(top, regions))
    }

    /// The statements at the top of the body, as their first token and
    /// the index past them; `None` where the scan cannot end them all.
    fn top_statements(&self) -> Option<Vec<(usize, usize)>> {
        let mut statements = Vec::new();
        let mut at = 0;
        while at < self.list.len() {
            let past = self.statement_end(at)?;
            statements.push((at, past));
            at = past;
        }
        Some(statements)
    }

    /// Of the statements at the top of the body `top`, those that overlap
    /// `span`, read whole, each checked; `None` where none does.
    fn top_statements_over(&self, top: &[(usize, usize)], span: &Span) -> Option<Owned> {
        let extent = |&(first, past): &(usize, usize)| {
            self.list[first].span.start..self.list[past - 1].span.end
        };
        let from = top.partition_point(|s| extent(s).end <= span.start);
        let to = top.partition_point(|s| extent(s).start < span.end);
        let over = top.get(from..to).filter(|over| !over.is_empty())?;
        Some(Owned {
            range: extent(&over[0]).start..extent(&over[over.len() - 1]).end,
            skipped: Vec::new(),
            checks: (over.iter())
                .map(|s| Check {
                    extent: extent(s),
                    may_be_declaration: true,
                })
                .collect(),
        })
    }

    /// Whether a conditional line lies between `offset` and token `first`.
    fn line_between(&self, offset: usize, first: usize) -> bool {
        let at = self.lines.partition_point(|l| l.span.start < offset);
        self.lines.get(at).is_some_and(|l| l.next <= first)
    }

    /// How many conditional groups are open at `offset`.
    fn conditional_depth_at(&self, offset: usize) -> usize {
        let at = self.lines.partition_point(|l| l.span.start < offset);
        at.checked_sub(1).map_or(0, |i| self.lines[i].depth)
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

    /// Where the body, and each statement block in it, whose tokens the
    /// scan does not end as statements one after another, closes.
    fn unended_blocks(&self) -> impl Iterator<Item = usize> + '_ {
        let blocks = (0..self.list.len())
            .filter(|&at| self.punct(at) == Some(b'{'))
            .map(|opening| (opening, self.closing[opening] as usize))
            .filter(|&(opening, close)| {
                self.closes[close] == Closes::StatementBlock
                    && !self.whole_statements(opening + 1..close)
            })
            .map(|(_, close)| self.list[close].span.start);
        let body = std::iter::once(0..self.list.len())
            .filter(|all| !self.whole_statements(all.clone()))
            .map(|_| self.list.last().map_or(0, |t| t.span.end));
        blocks.chain(body)
    }

    /// Whether token `at` is part of the `while (...);` that ends a
    /// `do` statement.
    fn in_do_tail(&self, at: usize) -> bool {
        self.in_do_tail[at]
    }

    /// Whether a whole statement of its block begins at token `first`:
    /// not the body of another, which would read differently without the
    /// text before it.
    fn begins_whole_statement(&self, first: usize) -> bool {
        self.ends_statement_before(first) && self.begins_statement(first)
    }

    /// Whether the token before `at` ends a statement or opens a block
    /// (or `at` is the first).
    fn ends_statement_before(&self, at: usize) -> bool {
        match at.checked_sub(1) {
            None => true,
            Some(previous) => matches!(
                (self.list[previous].kind, self.closes[previous]),
                (TokenKind::Punct(b';' | b'{'), _)
                    | (TokenKind::Punct(b'}'), Closes::StatementBlock)
            ),
        }
    }

    /// The innermost whole statement of a block that holds token `at`, as
    /// its first token and the index past it; `None` also when the search
    /// would go over its budget.
    fn enclosing_whole_statement(&self, at: usize, search: &mut Search) -> Option<(usize, usize)> {
        for first in (0..=at).rev() {
            search.budget = search.budget.checked_sub(1)?;
            if !self.begins_whole_statement(first) {
                continue;
            }
            let past = *search
                .ends
                .entry(first)
                .or_insert_with(|| self.statement_end(first));
            if let Some(past) = past.filter(|&past| past > at) {
                return Some((first, past));
            }
        }
        None
    }

    /// The insides of the outermost brace blocks among the tokens
    /// `within` that hold no loop where `nests_continue` (a loop nest may
    /// continue in a block), nothing `read_inside` asks for, and only
    /// statements the scan ends (a syntax error the grammar would report
    /// stays read), in order.
    fn hollows(
        &self,
        within: std::ops::Range<usize>,
        nests_continue: bool,
        read_inside: impl Fn(&Span) -> bool,
    ) -> Vec<Span> {
        // Open braces, with the number of loop keywords seen before each
        // and whether a statement block inside holds statements the scan
        // cannot end: an error the grammar reports there, which a block
        // read as its braces would hide.
        let mut open: Vec<(usize, usize, bool)> = Vec::new();
        let mut loops = 0usize;
        let mut found: Vec<(usize, usize)> = Vec::new();
        for at in within {
            match self.list[at].kind {
                TokenKind::Punct(b'{') => open.push((at, loops, false)),
                TokenKind::Punct(b'}') => {
                    let Some((opening, loops_before, unended_inside)) = open.pop() else {
                        continue;
                    };
                    let whole = self.whole_statements(opening + 1..at);
                    let ended = !unended_inside && whole;
                    // A switch's cases are statements the scan does not
                    // end, and no error.
                    let switch_body = (opening.checked_sub(1))
                        .is_some_and(|head| self.closes[head] == Closes::Parentheses(Word::Switch));
                    let error_here =
                        !whole && self.closes[at] == Closes::StatementBlock && !switch_body;
                    if self.cplusplus && (unended_inside || error_here) {
                        if let Some(outer) = open.last_mut() {
                            outer.2 = true;
                        }
                    }
                    if opening + 1 < at
                        && (!nests_continue || loops == loops_before)
                        && ended
                        && !read_inside(&self.inside(opening, at))
                    {
                        while found.last().is_some_and(|&(o, _)| o > opening) {
                            found.pop();
                        }
                        found.push((opening, at));
                    }
                }
                _ if matches!(self.words[at], Word::For | Word::While | Word::Do) => loops += 1,
                _ => {}
            }
        }
        (found.into_iter())
            .map(|(opening, close)| self.inside(opening, close))
            .collect()
    }

    /// What the grammar need not read of the `for` loops among the tokens
    /// `within`, in order: of each `for (init; test; step) body`, the test
    /// and the step (`i < n`, `++i`), and a body that is one expression
    /// statement less its `;` (`sum += a[i]`). Nothing of pomp reads them,
    /// and they cost the grammar the most of a loop: in C++ a `<` may open
    /// a template's arguments, and the parse follows both readings until
    /// one fails. Each is left out only where it is a plain expression,
    /// holds nothing `read_inside` asks for, and (a body) is no statement
    /// `checked` begins with; the grammar then reads `for (init;;) ;`, the
    /// same loop with the same ends.
    fn unread_of_loops(
        &self,
        within: std::ops::Range<usize>,
        masked: &[u8],
        read_inside: impl Fn(&Span) -> bool,
        checked: impl Fn(usize) -> bool,
    ) -> Vec<Span> {
        let mut found = Vec::new();
        for at in within.clone() {
            if self.words[at] != Word::For || self.punct(at + 1) != Some(b'(') {
                continue;
            }
            let open = at + 1;
            // The scan pairs every bracket of a body it reads.
            let close = self.closing[open] as usize;
            if close >= within.end {
                continue;
            }
            let mut depth = 0usize;
            let mut semicolons = Vec::new();
            let mut braces = false;
            for inside in open + 1..close {
                match self.punct(inside) {
                    Some(b'(' | b'[') => depth += 1,
                    Some(b')' | b']') => depth -= 1,
                    Some(b'{' | b'}') => braces = true,
                    Some(b';') if depth == 0 => semicolons.push(inside),
                    _ => {}
                }
            }
            if let &[test, step] = semicolons.as_slice() {
                // A lambda's body in the header may hold anything.
                if !braces && !read_inside(&self.inside(open, close)) {
                    if self.plain_expression(test + 1..step, masked) {
                        found.push(self.inside(test, step));
                    }
                    if self.plain_expression(step + 1..close, masked) {
                        found.push(self.inside(step, close));
                    }
                }
            }
            let body = close + 1;
            let Some(past) = (body < within.end)
                .then(|| self.statement_end(body))
                .flatten()
                .filter(|&past| past <= within.end)
            else {
                continue;
            };
            let unread = self.list[body].span.start..self.list[past - 1].span.start;
            if self.begins_statement(body)
                && !checked(unread.start)
                && self.plain_expression(body..past - 1, masked)
                && !read_inside(&unread)
            {
                found.push(unread);
            }
        }
        found
    }

    /// Whether the tokens `range` are an expression the grammar reads
    /// without error wherever an expression may stand: names (no keyword
    /// of the grammar) and decimal numbers, joined by the operators of C,
    /// with calls, subscripts, members and parentheses. Text the grammar
    /// is not given must be such: an error in it would be one the parse
    /// of the whole file reports for the statement around it.
    fn plain_expression(&self, range: std::ops::Range<usize>, masked: &[u8]) -> bool {
        let end = range.end;
        let mut at = range.start;
        // The grammar assigns only to what an operator other than `*` has
        // not made a value (`a[i] = x`, not `a++ = x` nor `a + b = x`):
        // an assignment may follow only the first operand of each part a
        // comma separates.
        let mut first_operand = true;
        loop {
            let mut assignable = true;
            while let Some((next, operator)) = self.operator(at, end, PREFIX_OPERATORS) {
                assignable &= operator == "*";
                at = next;
            }
            match self.list.get(at).filter(|_| at < end).map(|t| t.kind) {
                Some(TokenKind::Word) if self.plain_name(at, masked) => at += 1,
                // A number is no place to assign to.
                Some(TokenKind::Word) if self.plain_number(at, masked) => {
                    assignable = false;
                    at += 1;
                }
                Some(TokenKind::Punct(b'(')) => {
                    let close = self.closing[at] as usize;
                    if close >= end || !self.plain_expression(at + 1..close, masked) {
                        return false;
                    }
                    at = close + 1;
                }
                _ => return false,
            }
            loop {
                match self.punct(at).filter(|_| at < end) {
                    Some(b'.') if at + 1 < end && self.plain_name(at + 1, masked) => at += 2,
                    Some(b'[' | b'(') => {
                        let close = self.closing[at] as usize;
                        let empty_call = self.punct(at) == Some(b'(') && close == at + 1;
                        if close >= end
                            || !(empty_call || self.plain_expression(at + 1..close, masked))
                        {
                            return false;
                        }
                        at = close + 1;
                    }
                    _ => match self.operator(at, end, &["->", "++", "--"]) {
                        Some((next, "->")) => {
                            if !(next < end && self.plain_name(next, masked)) {
                                return false;
                            }
                            at = next + 1;
                        }
                        Some((next, _)) => {
                            assignable = false;
                            at = next;
                        }
                        None => break,
                    },
                }
            }
            if at == end {
                return true;
            }
            let Some((next, operator)) = self.operator(at, end, BINARY_OPERATORS) else {
                return false;
            };
            let assigns = operator.ends_with('=') && !matches!(operator, "==" | "!=" | "<=" | ">=");
            if assigns && !(first_operand && assignable) {
                return false;
            }
            first_operand = operator == ",";
            at = next;
        }
    }

    /// Whether token `at` is a decimal number (`10`, `2.5`).
    fn plain_number(&self, at: usize, masked: &[u8]) -> bool {
        let word = &masked[self.list[at].span.clone()];
        let number = |digits: &[u8]| !digits.is_empty() && digits.iter().all(u8::is_ascii_digit);
        match word.iter().position(|&b| b == b'.') {
            Some(dot) => number(&word[..dot]) && number(&word[dot + 1..]),
            None => number(word),
        }
    }

    /// Whether token `at` is a name the grammar reads as one.
    fn plain_name(&self, at: usize, masked: &[u8]) -> bool {
        let token = &self.list[at];
        let word = &masked[token.span.clone()];
        token.kind == TokenKind::Word
            && (word[0].is_ascii_alphabetic() || word[0] == b'_')
            && !super::nodes::is_keyword(word)
    }

    /// Past the operator at token `at` (before `end`), and which it is,
    /// when the longest punctuator the compiler reads there, from touching
    /// punctuation, is one of `allowed`.
    fn operator(
        &self,
        at: usize,
        end: usize,
        allowed: &[&'static str],
    ) -> Option<(usize, &'static str)> {
        let mut spelled = [0u8; 3];
        let mut length = 0;
        while length < 3 && at + length < end {
            let Some(b) = self.punct(at + length) else {
                break;
            };
            let touching = length == 0
                || self.list[at + length - 1].span.end == self.list[at + length].span.start;
            if !touching {
                break;
            }
            spelled[length] = b;
            length += 1;
        }
        let longest = (1..=length)
            .rev()
            .find(|&n| n == 1 || PUNCTUATORS.contains(&&spelled[..n]))?;
        let operator = allowed
            .iter()
            .find(|operator| operator.as_bytes() == &spelled[..longest])?;
        Some((at + longest, operator))
    }

    /// The first `;` of the body that lies wholly in `within`.
    fn first_semicolon(&self, within: &Span) -> Option<&Span> {
        let first = self.list.partition_point(|t| t.span.start < within.start);
        (self.list[first..].iter())
            .take_while(|t| t.span.end <= within.end)
            .find(|t| t.kind == TokenKind::Punct(b';'))
            .map(|t| &t.span)
    }

    /// Whether the grammar reads a `;` of the body where it reads `owned`.
    fn reads_semicolon(&self, owned: &[Owned]) -> bool {
        (owned.iter().flat_map(Owned::read)).any(|read| self.first_semicolon(&read).is_some())
    }

    /// `skipped` with the first `;` of the body it holds read: an empty
    /// statement, which nothing of pomp reads.
    fn with_a_semicolon_read(&self, skipped: &mut Vec<Span>) -> Option<()> {
        let (index, semicolon) = (skipped.iter().enumerate())
            .find_map(|(i, hollow)| Some((i, self.first_semicolon(hollow)?.clone())))?;
        let hollow = skipped.remove(index);
        let parts = [hollow.start..semicolon.start, semicolon.end..hollow.end];
        let parts = parts.into_iter().filter(|p| !p.is_empty());
        skipped.splice(index..index, parts);
        Some(())
    }

    /// The text between the brace at token `opening` and the one at
    /// token `close`.
    fn inside(&self, opening: usize, close: usize) -> Span {
        self.list[opening].span.end..self.list[close].span.start
    }

    /// Whether the tokens `range` are statements one after another, each
    /// ended by the scan.
    fn whole_statements(&self, range: std::ops::Range<usize>) -> bool {
        let mut at = range.start;
        while at < range.end {
            match self.statement_end(at) {
                Some(past) if past <= range.end => at = past,
                _ => return false,
            }
        }
        true
    }

    /// The tokens that lie within `span`.
    fn within(&self, span: &Span) -> &[lex::Token] {
        let from = self.list.partition_point(|t| t.span.start < span.start);
        let to = self.list.partition_point(|t| t.span.end <= span.end);
        &self.list[from..to.max(from)]
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

    /// The index past the bracket that closes the one at `at`; `None`
    /// unless a bracket opens at `at`.
    fn past_brackets(&self, at: usize) -> Option<usize> {
        match self.punct(at)? {
            b'{' | b'(' | b'[' => Some(self.closing[at] as usize + 1),
            _ => None,
        }
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
            Word::Try => {
                // A block, then one handler or more: without one, the
                // grammar reads a syntax error.
                (self.punct(at + 1)? == b'{').then_some(())?;
                let mut past = self.past_brackets(at + 1)?;
                let mut handlers = 0;
                while self.words.get(past) == Some(&Word::Catch) {
                    (self.punct(past + 1)? == b'(').then_some(())?;
                    let body = self.past_brackets(past + 1)?;
                    (self.punct(body)? == b'{').then_some(())?;
                    past = self.past_brackets(body)?;
                    handlers += 1;
                }
                (handlers > 0).then_some(past)
            }
            Word::Else | Word::Unsupported | Word::Opener | Word::Catch => None,
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

/// The kind of a preprocessor line, named as the scan of the whole file
/// names it, and what follows the directive's name.
fn line_kind(line: &[u8]) -> Option<(LineKind, &[u8])> {
    let text = line.strip_prefix(b"#")?.trim_ascii_start();
    let name_end = (text.iter())
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(text.len());
    let name = std::str::from_utf8(&text[..name_end]).ok()?;
    Some((LineKind::of(name), &text[name_end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statement the scan finds at the first token of `text`.
    fn first_statement(text: &str) -> Option<&str> {
        let tokens = BodyTokens::scan(text.as_bytes(), &[], 0..text.len(), true)?;
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
            (
                "try { a; } catch (int) { b; } catch (...) { } c;",
                Some("try { a; } catch (int) { b; } catch (...) { }"),
            ),
            ("try { a; } HANDLER c;", None),
            ("try { a; }", None),
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
        let tokens = BodyTokens::scan(text.as_bytes(), &[], 0..text.len(), true).unwrap();
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
    fn a_body_is_read_with_the_whole_statement_of_its_block() {
        let text = "a; if (c) omp_set_lock(&l); else { b; } \
                    while (d) e(omp_test_lock(&l)); { f; } int g = omp_unset_lock(&l);";
        let tokens = BodyTokens::scan(text.as_bytes(), &[], 0..text.len(), true).unwrap();
        let mut search = Search {
            ends: HashMap::new(),
            budget: 1000,
        };
        let mut whole = |word: &str| {
            let at = tokens.first_at(text.find(word).unwrap()).unwrap();
            let (first, past) = tokens.enclosing_whole_statement(at, &mut search).unwrap();
            &text[tokens.list[first].span.start..tokens.list[past - 1].span.end]
        };
        assert_eq!(
            whole("omp_set_lock"),
            "if (c) omp_set_lock(&l); else { b; }"
        );
        assert_eq!(whole("b;"), "b;");
        assert_eq!(whole("omp_test_lock"), "while (d) e(omp_test_lock(&l));");
        assert_eq!(whole("f;"), "f;");
        assert_eq!(whole("omp_unset_lock"), "int g = omp_unset_lock(&l);");
        let body = tokens.first_at(text.find("omp_set_lock").unwrap()).unwrap();
        assert!(tokens.begins_statement(body) && !tokens.begins_whole_statement(body));
        let mut spent = Search {
            ends: HashMap::new(),
            budget: 3,
        };
        let last = tokens.list.len() - 1;
        assert_eq!(tokens.enclosing_whole_statement(last, &mut spent), None);
    }

    /// The text the grammar reads of `function` in a file where `rest`
    /// follows it, the skipped insides of blocks shown as `…`.
    fn read_of_function(function: &str, rest: &str) -> String {
        read_of_function_in(function, rest, crate::language::Language::C)
    }

    /// [`read_of_function`] in `language`.
    fn read_of_function_in(
        function: &str,
        rest: &str,
        language: crate::language::Language,
    ) -> String {
        let text = format!("{function}{rest}");
        let owned = owned_of_function_in(function, rest, language).unwrap();
        let ranges: Vec<Span> = owned.iter().flat_map(Owned::read).collect();
        ranges
            .windows(2)
            .for_each(|w| assert!(w[0].end <= w[1].start));
        let pieces: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
        pieces.join("…")
    }

    /// What the grammar reads of `function` in a file where `rest`
    /// follows it; `None` where the whole function must be parsed.
    fn owned_of_function(function: &str, rest: &str) -> Option<Vec<Owned>> {
        owned_of_function_in(function, rest, crate::language::Language::C)
    }

    /// [`owned_of_function`] in `language`.
    fn owned_of_function_in(
        function: &str,
        rest: &str,
        language: crate::language::Language,
    ) -> Option<Vec<Owned>> {
        let text = format!("{function}{rest}");
        let file = crate::source::SourceFile::new("f", text.as_bytes().to_vec(), language);
        let prepared = super::super::prepare::Prepared::new(&file).unwrap();
        let open = text.find('{').unwrap();
        let end = function.trim_end().len();
        owned(
            &prepared,
            0..end,
            open,
            0..prepared.directives.partition_point(|d| d.span.start < end),
            0..prepared.lock_mentions.partition_point(|m| m.start < end),
        )
    }

    /// Where the grammar surely reads an error in `function`, in
    /// `language`: the text from each place on.
    fn surely_broken_in(function: &str, language: crate::language::Language) -> Vec<&str> {
        let file = crate::source::SourceFile::new("f", function.as_bytes().to_vec(), language);
        let prepared = super::super::prepare::Prepared::new(&file).unwrap();
        let item = 0..function.trim_end().len();
        let open = function.find('{').unwrap();
        (surely_broken(&prepared, &item, open).into_iter())
            .map(|at| &function[at..])
            .collect()
    }

    #[test]
    fn a_try_without_its_handlers_is_surely_broken_in_cxx() {
        use crate::language::Language;
        let handled = "void f(int n)\n{\n  try { n++; } catch (...) { }\n\
                       #pragma omp parallel\n  try { n--; } catch (int) { } catch (...) { }\n}\n";
        assert!(surely_broken_in(handled, Language::Cpp).is_empty());
        let unhandled = "void f(int n)\n{\n  try { n++; } catch (...) { }\n\
                         #pragma omp parallel\n  { try { n--; } CATCH_ALL }\n}\n";
        let broken = surely_broken_in(unhandled, Language::Cpp);
        assert_eq!(broken.len(), 1);
        assert!(
            broken[0].starts_with("try { n--; } CATCH_ALL"),
            "{broken:?}"
        );
        // In C, `try` names no statement: `try { }` is a macro's call.
        assert!(surely_broken_in(unhandled, Language::C).is_empty());
        // Not where it begins no statement, as a variable's name.
        let named = "void f(int n)\n{\n  int try_ = n, x = try;\n#pragma omp barrier\n}\n";
        assert!(surely_broken_in(named, Language::Cpp).is_empty());
        // Found where it touches punctuation, beside words that only
        // hold its letters.
        let touching =
            "void f(int entry)\n{\n  entry++;{try{ entry--; }CATCH_ALL}\n#pragma omp barrier\n}\n";
        let broken = surely_broken_in(touching, Language::Cpp);
        assert_eq!(broken.len(), 1);
        assert!(broken[0].starts_with("try{ entry--; }"), "{broken:?}");
    }

    #[test]
    fn a_block_the_scan_cannot_end_outside_what_is_read_reads_the_whole_function() {
        let outside = "void f(int n)\n{\n  do { n--; L: } while (n);\n\
                       #pragma omp parallel\n  { n++; }\n}\n";
        assert!(owned_of_function(outside, "").is_none());
        let unended = "void f(int n)\n{\n  do { n--; while (1) } while (n);\n\
                       #pragma omp parallel\n  { n++; }\n}\n";
        assert!(owned_of_function(unended, "").is_none());
        let inside = "void f(int n)\n{\n  n--;\n#pragma omp parallel\n  { n++; L: }\n}\n";
        assert!(owned_of_function(inside, "").is_some());
        // A list opening lists is no block of statements.
        let lists = "void f(int n)\n{\n  int a[2][2] = {{1, 2}, {3, n}};\n\
                     #pragma omp parallel\n  { n++; }\n}\n";
        assert!(owned_of_function(lists, "").is_some());
    }

    #[test]
    fn blocks_holding_nothing_pomp_reads_inside_are_read_as_their_braces() {
        let text = "void f(int n)\n{\n\
                    #pragma omp parallel\n\
                    {\n\
                    if (n) { a(); { b(); } }\n\
                    g(&l, [&] { c(); });\n\
                    { omp_set_lock(&l); d(); }\n\
                    { for (;;) { e(); } }\n\
                    { k(); L: }\n\
                    {\n\
                    #pragma omp barrier\n\
                    h();\n\
                    }\n\
                    }\n\
                    }\n";
        let read = read_of_function(text, "");
        // Blocks around nothing pomp reads inside: skipped, outermost.
        assert!(read.contains("if (n) {…}"), "{read}");
        assert!(read.contains("[&] {…}"), "{read}");
        // A lock call or a directive inside: read.
        assert!(read.contains("{ omp_set_lock(&l); d(); }"), "{read}");
        // No nest is collapsed: a loop in a block is nothing to read.
        assert!(!read.contains("for (;;)"), "{read}");
        assert!(read.contains("h();"), "{read}");
        // Directives' lines are blanks to the grammar: not read.
        assert!(!read.contains("#pragma"), "{read}");
        // What the scan cannot end may be a syntax error: read.
        assert!(read.contains("{ k(); L: }"), "{read}");
        // A user region in another function: jumps here cannot leave it.
        let user_region =
            "void u(void)\n{\n#pragma pomp inst begin(r)\n#pragma pomp inst end(r)\n}\n";
        assert_eq!(read_of_function(text, user_region), read);
    }

    #[test]
    fn a_body_of_blocks_read_as_braces_reads_a_semicolon_in_cxx() {
        use crate::language::Language;
        let text = "void f(int n)\n{\n#pragma omp parallel\n  { a(); if (n) { b(); } }\n\
                    #pragma omp parallel\n  { g([&] { c(); }); { } }\n}\n";
        // C reads braces alone in a body as a block.
        assert_eq!(read_of_function(text, ""), "{…}…{…}");
        // C++ as an initializer: one `;` of a block is read.
        assert_eq!(read_of_function_in(text, "", Language::Cpp), "{…;…}…{…}");
        // Not where the grammar reads one anyway.
        let atomic = text.replace(
            "parallel\n  { a();",
            "atomic\n  n++;\n#pragma omp parallel\n  { a();",
        );
        let read = read_of_function_in(&atomic, "", Language::Cpp);
        assert_eq!(read, "n++;…{…}…{…}");
    }

    #[test]
    fn blocks_around_statements_the_scan_cannot_end_are_read() {
        // A macro the grammar cannot read, two blocks down: in C++ the
        // blocks around it are read, and the grammar's error with them.
        let text = "void f(int n)\n{\n\
                    #pragma omp parallel\n\
                    {\n\
                    { { a(); } MACRO { b(); } }\n\
                    if (n) { c(); }\n\
                    }\n\
                    }\n";
        let cxx = crate::language::Language::Cpp;
        let read = read_of_function_in(text, "", cxx);
        assert!(read.contains("MACRO"), "{read}");
        assert!(read.contains("if (n) {…}"), "{read}");
        // A switch's cases are no error: the blocks around it are read as
        // their braces.
        let switch = text.replace("MACRO", "switch (n) { case 1: break; }");
        let read = read_of_function_in(&switch, "", cxx);
        assert!(!read.contains("case"), "{read}");
        // In C no name before a brace begins a list: the grammar's
        // recovery stays in the block.
        assert!(!read_of_function(text, "").contains("MACRO"));
    }

    #[test]
    fn blocks_holding_loops_are_read_where_a_nest_is_collapsed() {
        let text = "void f(int n)\n{\n\
                    #pragma omp parallel for collapse(2)\n\
                    for (int i = 0; i < n; i++) {\n\
                    for (int j = 0; j < n; j++) { a(i, j); }\n\
                    }\n\
                    #pragma omp parallel\n\
                    { { for (;;) { e(); } } }\n\
                    }\n";
        let read = read_of_function(text, "");
        // The collapsed nest continues in the outer loop's block.
        assert!(read.contains("for (int j = 0;…;…) {…}"), "{read}");
        // Another directive's block of the function is read alike.
        assert!(read.contains("{ for (;;) {…} }"), "{read}");
        let uncollapsed = text.replace(" collapse(2)", "");
        let read = read_of_function(&uncollapsed, "");
        assert!(!read.contains("for (int j"), "{read}");
        assert!(!read.contains("for (;;)"), "{read}");
    }

    /// Whether `text` is a plain expression to the scan, in C++ when
    /// `cplusplus`.
    fn plain(text: &str, cplusplus: bool) -> bool {
        let tokens = BodyTokens::scan(text.as_bytes(), &[], 0..text.len(), cplusplus).unwrap();
        tokens.plain_expression(0..tokens.list.len(), text.as_bytes())
    }

    #[test]
    fn plain_expressions_are_names_and_numbers_joined_by_operators() {
        for text in [
            "i < n",
            "e < mesh.elements",
            "i < items.size()",
            "++i",
            "i++, j--",
            "i += 2",
            "p->next != last",
            "a[i] = b[i] * (c + 2.5)",
            "f(a, g(b), c[d])",
            "!done && -x < ~y",
            "*p = &q",
            "(a) = b, c[i] += 2",
            "i<-1",
        ] {
            assert!(plain(text, false) && plain(text, true), "{text}");
        }
        for text in [
            "",
            "n x",
            "i <",
            "i--i",
            "a[]",
            "f(a,)",
            "(int)n",
            "i < sizeof n",
            "i < static_cast<int>(n)",
            "i < std::size(v)",
            "c ? a : b",
            "a++ = b",
            "a + b = c",
            "a = b = c",
            "10 = a",
            "-a = b",
            "s == \"x\"",
            "i<:n",
            "p->",
            "a.",
            "a.0",
            "0x10",
            "1e5",
            "[&] { return n; }()",
        ] {
            assert!(!plain(text, true), "{text}");
        }
        // The grammars' words are no names, nor are the types and
        // constants they read as tokens.
        for word in ["this", "size_t", "int8_t", "NULL", "true", "static", "auto"] {
            assert!(!plain(word, false) && !plain(word, true), "{word}");
        }
    }

    proptest::proptest! {
        /// What the scan takes for a plain expression the grammar reads
        /// without error as a loop's test, a loop's step and a statement.
        #[test]
        fn plain_expressions_parse_without_error(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "b1", "_c", "10", "2.5", "int", "sizeof", "this", "size_t", "auto",
                    "NULL", "true", "new", "static_cast", "end", "(", ")", "[", "]",
                    ".", "->", "+", "-", "*", "&", "!", "~", "<", ">", "=", "|", "^", "%", "/",
                    ",", ":", "?", "++", "--", "<<", "<=", "&&", "||", "+=", "<:", " ",
                ]),
                1..9,
            ),
            cplusplus in proptest::bool::ANY,
        ) {
            let expression = parts.concat();
            // Comments the parts open would take the rest of the code.
            if expression.contains("//") || expression.contains("/*") {
                return Ok(());
            }
            let text = format!("{{ {expression} }}");
            let Some(tokens) = BodyTokens::scan(text.as_bytes(), &[], 1..text.len() - 1, cplusplus)
            else {
                return Ok(());
            };
            if !tokens.plain_expression(0..tokens.list.len(), text.as_bytes()) {
                return Ok(());
            }
            for code in [
                format!("void f(void) {{ for (;{expression};) ; }}"),
                format!("void f(void) {{ for (;;{expression}) ; }}"),
                format!("void f(void) {{ for (;;) {expression}; }}"),
            ] {
                let has_error = super::super::parse::has_syntax_error(&code, cplusplus);
                proptest::prop_assert!(!has_error, "{code}");
            }
        }
    }

    #[test]
    fn loop_tests_and_steps_are_not_read() {
        let text = "void f(int n, omp_lock_t *l)\n{\n\
                    #pragma omp parallel for\n\
                    for (int i = 0; i < n && g(i, n); i += (n > 2 ? 2 : 1))\n\
                    a(i);\n\
                    #pragma omp parallel for\n\
                    for (i = 0; ; )\n\
                    b(i);\n\
                    #pragma omp parallel for\n\
                    for (int j = 0; j < n; j++) c(j);\n\
                    #pragma omp parallel for\n\
                    for (int k = 0; k < n; k++) d(k);\n\
                    #pragma omp parallel\n\
                    for (;omp_test_lock(l);) e();\n\
                    }\n";
        let read = read_of_function(text, "");
        // A test or a step that is no plain expression is read.
        assert!(
            read.contains("for (int i = 0;…; i += (n > 2 ? 2 : 1))\n…;"),
            "{read}"
        );
        // Nothing to leave out.
        assert!(read.contains("for (i = 0; ; )"), "{read}");
        assert!(read.contains("for (int j = 0;…;…) …;"), "{read}");
        // A lock routine named in the test is read.
        assert!(read.contains("for (;omp_test_lock(l);) …;"), "{read}");
        let cxx = crate::language::Language::Cpp;
        let lambda = text.replace("k < n;", "[&] { return k < n; }();");
        let read = read_of_function_in(&lambda, "", cxx);
        // A brace in the header keeps the header read.
        assert!(
            read.contains("for (int k = 0; [&] {…}(); k++) …;"),
            "{read}"
        );
        let range = text.replace("int j = 0; j < n; j++", "int j : {1, 2}");
        let read = read_of_function_in(&range, "", cxx);
        assert!(read.contains("for (int j : {1, 2}) …;"), "{read}");
    }

    #[test]
    fn user_regions_are_read_with_the_statements_at_the_top_around_them() {
        let text = "void u(int n)\n{\n\
                    before();\n\
                    #pragma omp parallel\n\
                    { if (n) { a(); } }\n\
                    for (;;) {\n\
                    #pragma pomp inst begin(r)\n\
                    if (n) { break; }\n\
                    #pragma omp critical\n\
                    { if (n) { return; } }\n\
                    #pragma pomp inst end(r)\n\
                    }\n\
                    after();\n\
                    }\n";
        let read = read_of_function(text, "");
        // The loop the `break` leaves, and every block in the region.
        assert!(read.contains("for (;;) {"), "{read}");
        assert!(read.contains("if (n) { break; }"), "{read}");
        assert!(read.contains("{ if (n) { return; } }"), "{read}");
        assert!(!read.contains("#pragma"), "{read}");
        // Outside the region, what no directive owns is not read, and
        // blocks holding nothing pomp reads are read as their braces.
        assert!(
            !read.contains("before") && !read.contains("after"),
            "{read}"
        );
        assert!(!read.contains("a();"), "{read}");
        // A region inside a directive's block: that block is read whole.
        let inside = "void v(int n)\n{\n\
                      #pragma omp parallel\n\
                      {\n\
                      #pragma pomp inst begin(r)\n\
                      for (;;) { if (n) { a(); break; } }\n\
                      #pragma pomp inst end(r)\n\
                      }\n\
                      }\n";
        let read = read_of_function(inside, "");
        assert!(
            read.contains("for (;;) { if (n) { a(); break; } }"),
            "{read}"
        );
        // A region whose lines stand at the top: its statements are read
        // whole too.
        let around = "void w(int n)\n{\n\
                      #pragma pomp inst begin(r)\n\
                      for (;;) { if (n) { return; } }\n\
                      #pragma pomp inst end(r)\n\
                      }\n";
        assert!(read_of_function(around, "").contains("for (;;) { if (n) { return; } }"));
        // A `goto` may land anywhere in its function, which is read whole.
        let jumping = text.replace("break;", "goto out;");
        assert_eq!(owned_of_function(&jumping, ""), None);
    }

    #[test]
    fn user_regions_that_name_no_jump_are_read_as_the_rest_of_the_function() {
        let text = "void u(int n)\n{\n\
                    #pragma pomp inst begin(r)\n\
                    for (int i = 0; i < n; i++) { if (i) { a(i); } }\n\
                    #pragma omp parallel\n\
                    { if (n) { b(); } }\n\
                    #pragma pomp inst end(r)\n\
                    after();\n\
                    }\n";
        // The directive's block alone, as its braces: no jump can leave
        // the region.
        assert_eq!(read_of_function(text, ""), "{…}");
        // A jump in the region: every statement and block in it is read.
        for jump in ["break;", "continue;", "return;"] {
            let read = read_of_function(&text.replace("a(i);", jump), "");
            assert!(
                read.contains(&format!("{{ if (i) {{ {jump} }} }}")),
                "{read}"
            );
            assert!(read.contains("{ if (n) { b(); } }"), "{read}");
        }
        // A `goto` or a conditional line anywhere in the function: it is
        // read whole, as before.
        let goto = text.replace("after();", "if (n) { goto out; }\n{ out: after(); }");
        assert_eq!(owned_of_function(&goto, ""), None);
        let conditional = text.replace("after();", "#if USE_MPI\nafter();\n#endif");
        assert_eq!(owned_of_function(&conditional, ""), None);
        // In a lambda, a region's lines are read as a directive's there:
        // with the statement at the top that holds them, which tells the
        // function they are in.
        let lambda = "void v(int n)\n{\n\
                      before();\n\
                      auto f = [&]() {\n\
                      #pragma pomp inst begin(r)\n\
                      b();\n\
                      #pragma pomp inst end(r)\n\
                      };\n\
                      after();\n\
                      }\n";
        let read = read_of_function_in(lambda, "", crate::language::Language::Cpp);
        assert_eq!(read, "auto f = [&]() {\n…\nb();\n…\n};");
    }

    #[test]
    fn a_directive_in_a_lambda_is_read_with_the_statement_at_the_top_holding_it() {
        let text = "void f(int n)\n{\n\
                    before();\n\
                    auto g = [&](int m) {\n\
                    if (m) { a(); }\n\
                    #pragma omp parallel for\n\
                    for (int i = 0; i < m; i++) { b(); }\n\
                    };\n\
                    g(n);\n\
                    }\n";
        let read = read_of_function_in(text, "", crate::language::Language::Cpp);
        assert!(read.starts_with("auto g = [&](int m) {"), "{read}");
        assert!(read.ends_with("};"), "{read}");
        assert!(!read.contains("before") && !read.contains("g(n)"), "{read}");
        // What no directive holds is read as its braces there too.
        assert!(read.contains("if (m) {…}"), "{read}");
    }

    #[test]
    fn a_do_without_its_while_leaves_the_body_unread() {
        let ended = "do a; while (c); b;";
        assert!(BodyTokens::scan(ended.as_bytes(), &[], 0..ended.len(), true).is_some());
        let unended = "do a; b;";
        assert!(BodyTokens::scan(unended.as_bytes(), &[], 0..unended.len(), true).is_none());
    }

    #[test]
    fn preprocessor_lines_and_unbalanced_brackets_leave_the_body_unread() {
        // Conditional lines and pragmas between whole statements are
        // read; elsewhere, and other lines, leave the body unread.
        let between = "a;\n#if X\nb;\n#else\n{ c; }\n#endif\nd;";
        let tokens = BodyTokens::scan(between.as_bytes(), &[], 0..between.len(), true).unwrap();
        assert_eq!(tokens.conditional_depth_at(between.find('b').unwrap()), 1);
        assert_eq!(tokens.conditional_depth_at(between.find('d').unwrap()), 0);
        for between in ["a;\n#pragma GCC ivdep\nb;", "{ a; }\n#pragma unroll 4\n"] {
            assert!(BodyTokens::scan(between.as_bytes(), &[], 0..between.len(), true).is_some());
        }
        for inside in [
            "if (x)\n#if X\nb;\n#endif\n",
            "if (x) a;\n#if X\nelse b;\n#endif\n",
            "f(a,\n#if X\nb);\n#endif\n",
            "a;\n#define X 1\nb;",
            "if (x)\n#pragma GCC ivdep\nb;",
            "do a;\n#pragma unroll\nwhile (c);",
            "a =\n#pragma unroll\nb;",
            "a;\n#pragma\nb;",
            "a;\n#pragmaunroll\nb;",
        ] {
            assert!(
                BodyTokens::scan(inside.as_bytes(), &[], 0..inside.len(), true).is_none(),
                "{inside:?}"
            );
        }
        assert!(BodyTokens::scan(b"a(;", &[], 0..3, true).is_none());
        assert!(BodyTokens::scan(b"a(];", &[], 0..4, true).is_none());
        assert!(BodyTokens::scan(b"{ #pragma omp barrier\n}", &[], 0..22, true).is_none());
    }
}
