//! Parsing only what the directives need. A cheap scan of the masked text
//! ([`Structure`]) finds the top-level declarations: brace blocks that
//! hold declarations (namespaces, linkage blocks, C++ classes) are entered,
//! every other top-level brace block (a function body, an initializer) is
//! the body of one declaration. Each declaration holding a directive or a
//! lock routine's name is parsed on its own, as a piece, together with the
//! opening and closing text of the blocks around it, so that the grammar
//! sees it where the file has it and its nodes keep the file's offsets.
//!
//! A function can be narrowed further, to the statements its directives
//! own ([`super::statements`]).
//!
//! A piece is trusted only when it parses without a syntax error into a
//! function definition whose body is the block the scan found, inside the
//! namespaces and classes the scan found. Anything else, anything the scan
//! does not understand (brackets opened by macros, unbalanced braces), and
//! directives that need the tree outside any function, make the caller
//! parse the whole file instead: the partial parse is never trusted where
//! it is in doubt.

use super::heads;
use super::nodes::{ByName, Nodes};
use super::prepare::Prepared;
use super::statements::{self, Owned};
use crate::directive::{Association, Problem};
use crate::language::c::lex::{TokenKind, Tokens};
use crate::source::Span;
use tree_sitter::{Node, Tree};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ContainerKind {
    Namespace,
    Linkage,
    Class,
}

#[derive(Clone, Debug)]
struct Container {
    kind: ContainerKind,
    /// From the start of the declaration to just past its `{`.
    head: Span,
    /// From its `}` to the end of the declaration (past `;` for a class).
    tail: Span,
    parent: Option<usize>,
}

/// A top-level brace block holding code, and the declaration it ends.
#[derive(Clone, Debug)]
struct Leaf {
    /// From the start of the declaration to just past the block's `}`.
    item: Span,
    /// The block's `{`.
    open: usize,
    container: Option<usize>,
}

/// The top-level declarations of a file, as far as braces tell.
#[derive(Clone, Debug, Default)]
pub(super) struct Structure {
    containers: Vec<Container>,
    /// Sorted and disjoint.
    leaves: Vec<Leaf>,
    /// Where lock routines are named in code outside every leaf.
    lock_routines_outside: Vec<usize>,
}

enum Frame {
    Container(usize),
    Leaf {
        open: usize,
        item_start: usize,
        depth: usize,
    },
}

/// The declaration the structure scan is reading.
#[derive(Default)]
struct Item<'a> {
    /// Where it began.
    start: Option<usize>,
    /// Its words so far, for access specifiers.
    words: usize,
    /// Its tokens so far in C++, for [`classify`] at its `{`: not those
    /// of preprocessor lines, nor those inside a block it holds already
    /// (`T() : a_{1} {`), which are no part of its head.
    head: Vec<(TokenKind, &'a [u8])>,
}

impl Item<'_> {
    fn reset(&mut self) {
        self.start = None;
        self.words = 0;
        self.head.clear();
    }
}

impl Structure {
    /// The structure of `masked`, which holds the directive lines
    /// `passed_over` as written; `None` where braces do not balance.
    pub fn scan(masked: &[u8], passed_over: &[Span], cplusplus: bool) -> Option<Structure> {
        let mut structure = Structure::default();
        let mut stack: Vec<Frame> = Vec::new();
        // The declaration being read, at the level of the innermost
        // container (or the file).
        let mut item = Item::default();
        // The last token closed a top-level block: a declaration ends
        // there unless its head goes on (`T() : a_{1} {`).
        let mut after_block = false;
        let mut access_word = false;
        let mut tokens = Tokens::new(masked, 0..masked.len()).passing_over(passed_over);
        loop {
            // In a function's body only its braces count.
            let in_leaf = matches!(stack.last(), Some(Frame::Leaf { .. }));
            let next = match in_leaf {
                true => tokens.next_brace(),
                false => tokens.next(),
            };
            let Some(token) = next else {
                break;
            };
            if let Some(Frame::Leaf {
                open,
                item_start: start,
                depth,
            }) = stack.last_mut()
            {
                match token.kind {
                    TokenKind::Punct(b'{') => *depth += 1,
                    TokenKind::Punct(b'}') => {
                        *depth -= 1;
                        if *depth == 0 {
                            let leaf = Leaf {
                                item: *start..token.span.end,
                                open: *open,
                                container: None,
                            };
                            stack.pop();
                            let container = innermost_container(&stack);
                            // A block in a declaration's head (`T() : a_{1} {`)
                            // is part of the declaration the next one ends.
                            if structure
                                .leaves
                                .last()
                                .is_some_and(|l| l.item.start == leaf.item.start)
                            {
                                structure.leaves.pop();
                            }
                            structure.leaves.push(Leaf { container, ..leaf });
                            after_block = true;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            let continues_head = matches!(token.kind, TokenKind::Punct(b',' | b'{'));
            if after_block && !continues_head {
                item.reset();
            }
            after_block = false;
            match token.kind {
                TokenKind::Preprocessor => {}
                TokenKind::Punct(b';') => item.reset(),
                TokenKind::Punct(b':')
                    if access_word
                        && item.words == 1
                        && matches!(
                            innermost_container(&stack).map(|c| structure.containers[c].kind),
                            Some(ContainerKind::Class)
                        ) =>
                {
                    item.reset()
                }
                TokenKind::Punct(b'{') => {
                    let start = item.start.unwrap_or(token.span.start);
                    let head = start..token.span.end;
                    // C has no blocks of declarations.
                    let kind = cplusplus.then(|| classify(&item.head)).flatten();
                    match kind {
                        Some(kind) => {
                            structure.containers.push(Container {
                                kind,
                                head,
                                tail: 0..0,
                                parent: innermost_container(&stack),
                            });
                            stack.push(Frame::Container(structure.containers.len() - 1));
                            item.reset();
                        }
                        None => stack.push(Frame::Leaf {
                            open: token.span.start,
                            item_start: start,
                            depth: 1,
                        }),
                    }
                }
                TokenKind::Punct(b'}') => {
                    let Some(Frame::Container(index)) = stack.pop() else {
                        return None;
                    };
                    let end = declaration_end(
                        masked,
                        passed_over,
                        token.span.end,
                        structure.containers[index].kind,
                    );
                    structure.containers[index].tail = token.span.start..end;
                    // The rest of a class's declaration is in its tail.
                    tokens = Tokens::new(masked, end..masked.len()).passing_over(passed_over);
                    item.reset();
                }
                _ => {
                    if item.start.is_none() {
                        item.start = Some(token.span.start);
                    }
                    let word = &masked[token.span.clone()];
                    if cplusplus {
                        item.head.push((token.kind, word));
                    }
                    if token.kind == TokenKind::Word
                        && word.starts_with(b"omp_")
                        && std::str::from_utf8(word)
                            .is_ok_and(|w| crate::frontend::reading::LOCK_ROUTINES.contains(&w))
                    {
                        structure.lock_routines_outside.push(token.span.start);
                    }
                    access_word = token.kind == TokenKind::Word
                        && matches!(word, b"public" | b"private" | b"protected");
                    item.words += 1;
                }
            }
        }
        stack.is_empty().then_some(structure)
    }

    /// The top-level block holding `offset` in its declaration.
    fn leaf_at(&self, offset: usize) -> Option<usize> {
        let count = self.leaves.partition_point(|l| l.item.start <= offset);
        count
            .checked_sub(1)
            .filter(|&i| offset < self.leaves[i].item.end)
    }

    /// Leaf `index` read whole, with the containers around it, holding
    /// `directives` and `mentions` (indexes into the prepared file's).
    fn piece(
        &self,
        index: usize,
        directives: std::ops::Range<usize>,
        mentions: std::ops::Range<usize>,
    ) -> Piece {
        Piece {
            ranges: self.ranges(index),
            directives,
            mentions,
            owned: None,
            surely_broken: false,
            index,
            leaf: self.leaves[index].clone(),
            containers: self.containers_of(index),
        }
    }

    /// The containers around leaf `index`, innermost first.
    fn containers_of(&self, index: usize) -> Vec<Container> {
        let mut containers = Vec::new();
        let mut at = self.leaves[index].container;
        while let Some(c) = at {
            containers.push(self.containers[c].clone());
            at = self.containers[c].parent;
        }
        containers
    }

    /// What the grammar reads for the declaration ending in leaf `index`:
    /// the heads of its containers, the declaration, their tails.
    fn ranges(&self, index: usize) -> Vec<Span> {
        let leaf = &self.leaves[index];
        let mut around = Vec::new();
        let mut at = leaf.container;
        while let Some(c) = at {
            around.push(c);
            at = self.containers[c].parent;
        }
        let heads = around
            .iter()
            .rev()
            .map(|&c| self.containers[c].head.clone());
        let tails = around.iter().map(|&c| self.containers[c].tail.clone());
        heads
            .chain(std::iter::once(leaf.item.clone()))
            .chain(tails)
            .collect()
    }
}

fn innermost_container(stack: &[Frame]) -> Option<usize> {
    stack.iter().rev().find_map(|f| match f {
        Frame::Container(c) => Some(*c),
        Frame::Leaf { .. } => None,
    })
}

/// Where a container's declaration ends after its `}` at `after`: a class
/// definition goes on to its `;` (`class C { ... } c;`).
fn declaration_end(
    masked: &[u8],
    passed_over: &[Span],
    after: usize,
    kind: ContainerKind,
) -> usize {
    if kind != ContainerKind::Class {
        return after;
    }
    for token in Tokens::new(masked, after..masked.len()).passing_over(passed_over) {
        match token.kind {
            TokenKind::Punct(b';') => return token.span.end,
            TokenKind::Punct(b'{' | b'}') | TokenKind::Preprocessor => return after,
            _ => {}
        }
    }
    after
}

/// Whether a C++ declaration head, its tokens `tokens`, opens a block of
/// declarations, and which.
fn classify(tokens: &[(TokenKind, &[u8])]) -> Option<ContainerKind> {
    if tokens.iter().any(|(k, _)| *k == TokenKind::Punct(b'=')) {
        return None;
    }
    let first = tokens
        .iter()
        .filter(|(k, _)| *k == TokenKind::Word)
        .map(|(_, w)| *w)
        .find(|w| !matches!(*w, b"inline" | b"export"));
    if first == Some(b"namespace".as_slice()) {
        return Some(ContainerKind::Namespace);
    }
    if let [(TokenKind::Word, b"extern"), (TokenKind::Literal, literal)] = tokens {
        if matches!(*literal, b"\"C\"" | b"\"C++\"") {
            return Some(ContainerKind::Linkage);
        }
    }
    // `template <class T>` names no class: skip template parameter lists.
    let mut i = 0;
    let mut keyword = None;
    while i < tokens.len() {
        match tokens[i] {
            (TokenKind::Word, b"template") => {
                i = skip_angles(tokens, i + 1);
                continue;
            }
            (TokenKind::Word, b"class" | b"struct" | b"union") => {
                let after_enum = i > 0 && tokens[i - 1] == (TokenKind::Word, b"enum".as_slice());
                keyword = (!after_enum).then_some(i);
            }
            (TokenKind::Word, b"enum") => keyword = None,
            _ => {}
        }
        i += 1;
    }
    let keyword = keyword?;
    // After the keyword, parentheses belong only to attributes: a function
    // returning a class has its parameter list there.
    let rest = &tokens[keyword + 1..];
    let calls = rest.iter().enumerate().any(|(j, (kind, _))| {
        *kind == TokenKind::Punct(b'(')
            && !matches!(
                j.checked_sub(1).map(|p| rest[p]),
                Some((
                    TokenKind::Word,
                    b"alignas" | b"__attribute__" | b"__declspec" | b"decltype" | b"__attribute"
                )) | Some((TokenKind::Punct(b'('), _))
            )
            && !inside_attribute_parens(rest, j)
    });
    (!calls).then_some(ContainerKind::Class)
}

/// Whether the `(` at `at` lies inside the parentheses of an attribute.
fn inside_attribute_parens(tokens: &[(TokenKind, &[u8])], at: usize) -> bool {
    let mut depth = 0i32;
    for j in (0..at).rev() {
        match tokens[j].0 {
            TokenKind::Punct(b')') => depth += 1,
            TokenKind::Punct(b'(') if depth > 0 => depth -= 1,
            TokenKind::Punct(b'(') => return true,
            _ => {}
        }
    }
    false
}

/// The index after the `<...>` starting at `at` (if one does).
fn skip_angles(tokens: &[(TokenKind, &[u8])], at: usize) -> usize {
    if tokens.get(at).map(|t| t.0) != Some(TokenKind::Punct(b'<')) {
        return at;
    }
    let mut depth = 0i32;
    for (j, (kind, _)) in tokens.iter().enumerate().skip(at) {
        match kind {
            TokenKind::Punct(b'<') => depth += 1,
            TokenKind::Punct(b'>') => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// One declaration to parse on its own.
pub(super) struct Piece {
    /// What the grammar reads, sorted and disjoint.
    pub ranges: Vec<Span>,
    /// The directives it holds, as indexes into `prepared.directives`.
    pub directives: std::ops::Range<usize>,
    /// The lock routines' names it holds, as indexes into
    /// `prepared.lock_mentions`.
    pub mentions: std::ops::Range<usize>,
    /// When the function is narrowed, what of its body is read: the
    /// statements its directives own and those naming lock routines (the
    /// parse must agree with each); `None` when it is read whole.
    owned: Option<Vec<Owned>>,
    /// Whether every parse of the function holds a syntax error: it is
    /// read between its neighbours straight away.
    pub surely_broken: bool,
    /// The function's place among the leaves of the file's [`Structure`].
    index: usize,
    leaf: Leaf,
    containers: Vec<Container>,
}

/// What a partial parse reads: the pieces, and the directives outside
/// every piece, which need no tree (in runs, as indexes).
pub(super) struct PartialParse {
    pub pieces: Vec<Piece>,
    pub outside: Vec<std::ops::Range<usize>>,
    structure: Structure,
}

impl PartialParse {
    /// The pieces `prepared` needs; `None` when only a whole parse reads
    /// the file exactly. With `narrow`, each function is read as its head,
    /// the statements its directives own and its closing brace, wherever
    /// the scan of its body allows.
    pub fn new(prepared: &Prepared, narrow: bool) -> Option<PartialParse> {
        let cplusplus = prepared.file.language == crate::language::Language::Cpp;
        let structure = Structure::scan(&prepared.masked(), prepared.passed_over(), cplusplus)?;
        let mut wanted: Vec<usize> = Vec::new();
        let mut outside: Vec<std::ops::Range<usize>> = Vec::new();
        let mut by_leaf: Vec<(usize, usize)> = Vec::new();
        for (index, d) in prepared.directives.iter().enumerate() {
            match structure.leaf_at(d.span.start) {
                Some(leaf) => {
                    wanted.push(leaf);
                    by_leaf.push((leaf, index));
                }
                None if needs_no_tree(prepared, index) => match outside.last_mut() {
                    Some(run) if run.end == index => run.end += 1,
                    _ => outside.push(index..index + 1),
                },
                None => return None,
            }
        }
        for mention in &prepared.lock_mentions {
            match structure.leaf_at(mention.start) {
                Some(leaf) => wanted.push(leaf),
                // Lock routines named in declarations outside functions
                // are read by a whole parse; comments and strings do not
                // count.
                None if structure.lock_routines_outside.contains(&mention.start) => return None,
                None => {}
            }
        }
        wanted.sort_unstable();
        wanted.dedup();
        let pieces = wanted
            .into_iter()
            .map(|leaf| {
                // Directives come in file order, so their leaves ascend.
                let held = &by_leaf[by_leaf.partition_point(|(l, _)| *l < leaf)
                    ..by_leaf.partition_point(|(l, _)| *l <= leaf)];
                let held: Vec<usize> = held.iter().map(|(_, d)| *d).collect();
                let directives = match (held.first(), held.last()) {
                    (Some(&first), Some(&last)) => first..last + 1,
                    _ => {
                        let at = structure.leaves[leaf].item.start;
                        let i = prepared.directives.partition_point(|d| d.span.start < at);
                        i..i
                    }
                };
                let item = structure.leaves[leaf].item.clone();
                let mentions = &prepared.lock_mentions;
                let first = mentions.partition_point(|m| m.start < item.start);
                let last = mentions.partition_point(|m| m.start < item.end);
                let mut piece = structure.piece(leaf, directives, first..last);
                piece.owned = narrow
                    .then(|| {
                        let open = piece.leaf.open;
                        let (directives, mentions) = (piece.directives.clone(), first..last);
                        statements::owned(prepared, item.clone(), open, directives, mentions)
                    })
                    .flatten();
                if let Some(owned) = &piece.owned {
                    let at = (piece.ranges.iter())
                        .position(|r| *r == item)
                        .expect("the piece reads its item");
                    let head = item.start..piece.leaf.open + 1;
                    let close = item.end - 1..item.end;
                    let narrowed = head_without_parameters(prepared, head, first..last)
                        .chain(owned.iter().flat_map(Owned::read))
                        .chain(std::iter::once(close));
                    piece.ranges.splice(at..at + 1, narrowed);
                }
                // Only where the parse reads it.
                piece.surely_broken = narrow
                    && (statements::surely_broken(prepared, &item, piece.leaf.open).iter())
                        .any(|at| piece.ranges.iter().any(|r| r.contains(at)));
                piece
            })
            .collect();
        Some(PartialParse {
            pieces,
            outside,
            structure,
        })
    }

    /// The functions of `run`, pieces of consecutive top-level
    /// declarations, read whole between the declarations next to them,
    /// which hold nothing to read: for functions whose own parses hold a
    /// syntax error, the text around them that the grammar's recovery may
    /// look at.
    pub fn neighbourhood(&self, run: &[&Piece]) -> Vec<Piece> {
        let (first, last) = (run[0], run[run.len() - 1]);
        let structure = &self.structure;
        // A neighbour holds nothing to read: empty ranges where it lies.
        let neighbour = |i: usize, directives: usize, mentions: usize| {
            structure.piece(i, directives..directives, mentions..mentions)
        };
        let before = (first.index.checked_sub(1))
            .map(|i| neighbour(i, first.directives.start, first.mentions.start));
        let after = Some(last.index + 1)
            .filter(|&i| i < structure.leaves.len())
            .map(|i| neighbour(i, last.directives.end, last.mentions.end));
        before
            .into_iter()
            .chain(run.iter().map(|piece| self.whole_function(piece)))
            .chain(after)
            .collect()
    }

    /// `piece`'s function read whole, not narrowed to the statements its
    /// directives own, with the containers around it.
    pub fn whole_function(&self, piece: &Piece) -> Piece {
        let (directives, mentions) = (piece.directives.clone(), piece.mentions.clone());
        self.structure.piece(piece.index, directives, mentions)
    }

    /// `pieces`, in any order, in runs of consecutive top-level
    /// declarations, in file order.
    pub fn consecutive<'p>(pieces: &[&'p Piece]) -> Vec<Vec<&'p Piece>> {
        let mut pieces = pieces.to_vec();
        pieces.sort_by_key(|p| p.index);
        let mut runs: Vec<Vec<&Piece>> = Vec::new();
        for piece in pieces {
            match runs.last_mut() {
                Some(run) if run[run.len() - 1].index + 1 == piece.index => run.push(piece),
                _ => runs.push(vec![piece]),
            }
        }
        runs
    }

    /// Whether some function is read narrowed to its statements.
    pub fn narrowed(&self) -> bool {
        self.pieces.iter().any(|p| p.owned.is_some())
    }
}

/// The ranges of `head` the grammar reads: all of it, or the text around
/// a parameter list it need not read ([`heads`]), unless a lock routine
/// mentioned in the function (`mentions`, indices) lies in that list.
fn head_without_parameters(
    prepared: &Prepared,
    head: Span,
    mentions: std::ops::Range<usize>,
) -> impl Iterator<Item = Span> {
    let cplusplus = prepared.file.language == crate::language::Language::Cpp;
    let written = heads::Head {
        file: &prepared.file.bytes,
        masked: &prepared.masked(),
        passed_over: prepared.passed_over(),
    };
    let left_out = (written.parameters_to_leave_out(head.clone(), cplusplus)).filter(|list| {
        !(prepared.lock_mentions[mentions].iter()).any(|m| m.start < list.end && list.start < m.end)
    });
    let ranges = match left_out {
        Some(list) => [head.start..list.start, list.end..head.end],
        None => [head, 0..0],
    };
    ranges.into_iter().filter(|r| !r.is_empty())
}

/// A directive outside every function that is read without a tree: a
/// pragma that is parsed into a directive applying to no statement, or
/// reported for itself, or a declaration attribute other than
/// `declare target`.
fn needs_no_tree(prepared: &Prepared, index: usize) -> bool {
    use crate::frontend::lexical::scan::RawKind;
    let d = &prepared.directives[index];
    match (&d.kind, &prepared.parsed[index]) {
        (RawKind::InMacro { .. }, _) => true,
        (RawKind::Pragma | RawKind::PragmaOperator, Some(Ok(parsed))) => !matches!(
            parsed.directive.spec().association,
            Association::Block | Association::Loop | Association::Separator
        ),
        (RawKind::Pragma | RawKind::PragmaOperator, Some(Err(e))) => e.problem != Problem::Unknown,
        // Only `declare target` makes the function it belongs to, which
        // the tree tells, device code.
        (RawKind::DeclarationAttribute, Some(Ok(parsed))) => {
            !(parsed.directive.spec().device
                && parsed.directive.spec().association == Association::Declarative)
        }
        _ => false,
    }
}

impl PartialParse {
    /// The pieces in runs of at most `size` to parse together: consecutive
    /// pieces with no directive read without a tree between them, and
    /// alone one [`Piece::surely_broken`].
    pub fn batches(&self, size: usize) -> impl Iterator<Item = &[Piece]> {
        let mut rest = self.pieces.as_slice();
        std::iter::from_fn(move || {
            if rest.is_empty() {
                return None;
            }
            let mut count = 1;
            // A function surely broken is a batch of its own.
            while count < size.min(rest.len())
                && !rest[0].surely_broken
                && !rest[count].surely_broken
                && rest[count - 1].directives.end == rest[count].directives.start
            {
                count += 1;
            }
            let (batch, after) = rest.split_at(count);
            rest = after;
            Some(batch)
        })
    }
}

/// What the grammar reads for `pieces` together: their ranges in file
/// order, the heads and tails of shared containers once, so that the
/// pieces of one namespace or class are read inside one copy of it.
pub(super) fn union(pieces: &[Piece]) -> Vec<Span> {
    union_of(pieces, |_| true)
}

/// What the grammar reads of the `chosen` of `pieces`.
pub(super) fn union_of(pieces: &[Piece], chosen: impl Fn(&Piece) -> bool) -> Vec<Span> {
    let mut ranges: Vec<Span> = pieces
        .iter()
        .filter(|p| chosen(p))
        .flat_map(|p| p.ranges.iter().cloned())
        .collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    ranges.dedup();
    ranges
}

/// Whether `span`, maybe empty, lies in `extent` at least in part.
fn touches(extent: &Span, span: &Span) -> bool {
    span.start < extent.end && extent.start <= span.start.max(span.end.saturating_sub(1))
}

impl Piece {
    /// The function's declaration, from its head to its closing brace.
    pub fn item(&self) -> Span {
        self.leaf.item.clone()
    }

    /// Whether the syntax error `error` (empty where the grammar found a
    /// token missing) lies in the function, from its head to its closing
    /// brace.
    pub fn holds_error(&self, error: &Span) -> bool {
        touches(&self.leaf.item, error)
    }

    /// Whether the function is read narrowed to the statements its
    /// directives own.
    pub fn is_narrowed(&self) -> bool {
        self.owned.is_some()
    }

    pub fn overlaps(&self, span: &Span) -> bool {
        self.ranges
            .iter()
            .any(|r| r.start < span.end && span.start < r.end)
    }

    /// Whether `tree` reads the piece as the scan found it: without a
    /// syntax error, a function definition with the scanned body, inside
    /// the scanned containers.
    pub fn parsed_as_scanned(&self, tree: &Tree, nodes: &Nodes) -> bool {
        !tree.root_node().has_error()
            && self.shaped_as_scanned(nodes)
            && self.owned.iter().flatten().all(|o| o.agrees(nodes))
    }

    /// The piece's function, from its head to its closing brace, when
    /// `tree` reads it and its containers as the scan found them.
    pub fn item_as_scanned(&self, nodes: &Nodes) -> Option<Span> {
        self.shaped_as_scanned(nodes).then(|| self.item())
    }

    /// Whether the function and its containers are where the scan found
    /// them, with the scanned extents.
    fn shaped_as_scanned(&self, nodes: &Nodes) -> bool {
        // Through `nodes`: a batch's tree holds many functions at its top,
        // and tree-sitter would pass over them at each step.
        let body_at = |open: usize, kinds: &[&str]| -> Option<Node> {
            let brace = nodes.descendant(open, open + 1)?;
            // The brace's parent and grandparent, from one descent.
            let mut above = nodes.ancestors(brace);
            above.next().filter(|body| body.start_byte() == open)?;
            above.next().filter(|n| kinds.contains(&n.kind_name()))
        };
        let function = body_at(self.leaf.open, &["function_definition"]);
        let leaf_ok = function.is_some_and(|f| f.end_byte() == self.leaf.item.end);
        leaf_ok
            && self.containers.iter().all(|c| {
                let open = c.head.end - 1;
                let kinds: &[&str] = match c.kind {
                    ContainerKind::Namespace => &["namespace_definition"],
                    ContainerKind::Linkage => &["linkage_specification"],
                    ContainerKind::Class => {
                        &["class_specifier", "struct_specifier", "union_specifier"]
                    }
                };
                body_at(open, kinds).is_some_and(|n| n.end_byte() == c.tail.start + 1)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(src: &str, cplusplus: bool) -> Vec<(String, Vec<String>)> {
        let s = Structure::scan(src.as_bytes(), &[], cplusplus).expect("balanced");
        (0..s.leaves.len())
            .map(|i| {
                let ranges = s.ranges(i);
                (
                    src[s.leaves[i].item.clone()].to_string(),
                    ranges.iter().map(|r| src[r.clone()].to_string()).collect(),
                )
            })
            .collect()
    }

    #[test]
    fn functions_are_leaves_in_their_namespaces_and_classes() {
        let src = "int x = 1;\nnamespace a { namespace b {\nstruct S { int y; } s;\ntemplate <class T> class C : public B<T> {\npublic:\n  C() : y_{2} { f(); }\n  void g() { h(); }\n  int y_;\n};\n} }\nextern \"C\" { void k(void) { } }\n";
        let found = leaves(src, true);
        let items: Vec<&str> = found.iter().map(|(item, _)| item.as_str()).collect();
        assert_eq!(
            items,
            [
                "C() : y_{2} { f(); }",
                "void g() { h(); }",
                "void k(void) { }"
            ]
        );
        assert_eq!(
            found[1].1,
            [
                "namespace a {",
                "namespace b {",
                "template <class T> class C : public B<T> {",
                "void g() { h(); }",
                "};",
                "}",
                "}"
            ]
        );
    }

    #[test]
    fn c_has_no_containers_and_initializers_are_leaves() {
        let src = "struct S { int a; };\nstatic int t[] = { 1, 2 };\nstruct S *make(void) { return 0; }\n";
        let found = leaves(src, false);
        let items: Vec<&str> = found.iter().map(|(item, _)| item.as_str()).collect();
        assert_eq!(
            items,
            [
                "struct S { int a; }",
                "static int t[] = { 1, 2 }",
                "struct S *make(void) { return 0; }"
            ]
        );
    }

    /// Heads are classified by the tokens the scan read for them: with
    /// comments, preprocessor lines, attributes and blocks in between, and
    /// a block's own tokens no part of the head.
    #[test]
    fn heads_open_the_blocks_their_tokens_say() {
        let src = "inline namespace /* v */ v1 { void f() { } }\n\
                   class\n#ifdef A\nfinal_\n#endif\nK { void g() { } };\n\
                   struct alignas(8) S { void h() { } };\n\
                   enum class E { a, b };\n\
                   struct S *make() { return 0; }\n\
                   extern \"C++\" { void z() { } }\n\
                   int a[] = { 1 }, b[] = { 2 };\n\
                   T::T() : m_{1}, n_{ 2 } { }\n\
                   S s{sizeof(class X *)}, t{ 3 };\n";
        let found = leaves(src, true);
        let items: Vec<(&str, usize)> = found
            .iter()
            .map(|(item, ranges)| (item.as_str(), ranges.len()))
            .collect();
        assert_eq!(
            items,
            [
                ("void f() { }", 3),
                ("void g() { }", 3),
                ("void h() { }", 3),
                ("enum class E { a, b }", 1),
                ("struct S *make() { return 0; }", 1),
                ("void z() { }", 3),
                ("int a[] = { 1 }, b[] = { 2 }", 1),
                ("T::T() : m_{1}, n_{ 2 } { }", 1),
                ("S s{sizeof(class X *)}, t{ 3 }", 1),
            ]
        );
    }

    #[test]
    fn braces_that_do_not_balance_give_no_structure() {
        assert!(Structure::scan(b"void f() { }\n}\n", &[], false).is_none());
        assert!(Structure::scan(b"BEGIN_NAMESPACE(x) {\nvoid f() { }\n", &[], true).is_none());
    }
}
