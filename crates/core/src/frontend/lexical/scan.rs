//! A lexical scan of C and C++ source that finds directives without being
//! fooled by strings, character literals, raw strings or comments.
//!
//! The scan only classifies; it never parses statements. Blocks are found
//! afterwards by tree-sitter on the text with every directive masked out.

use super::lex;
use crate::source::Span;
use std::collections::HashMap;

/// A directive found lexically, before its text is parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDirective {
    pub kind: RawKind,
    /// All bytes to mask before parsing (the whole `#pragma` logical line,
    /// the whole `_Pragma(...)` call, the whole `[[...]]` attribute).
    pub span: Span,
    /// The directive text after the sentinel, continuations and comments
    /// turned into spaces, string escapes undone for `_Pragma`.
    pub text: String,
    /// `true` for `#pragma pomp`, `_Pragma("pomp ...")`.
    pub pomp: bool,
}

impl RawDirective {
    /// Map a span inside the directive's text back to `bytes`, the file, as
    /// closely as the cleaned text allows (exact for the common one-line
    /// pragma).
    pub fn text_span(&self, bytes: &[u8], inner: &Span) -> Span {
        let original = &bytes[self.span.clone()];
        let needle = self.text.as_bytes();
        if let Some(at) = original
            .windows(needle.len().max(1))
            .position(|w| w == needle)
        {
            let start = self.span.start + at + inner.start.min(needle.len());
            let end = self.span.start + at + inner.end.min(needle.len());
            return start..end.max(start + 1).min(self.span.end);
        }
        self.span.clone()
    }

    /// Whether the directive is one of an `omp::sequence`, beside the other
    /// directives of the attribute: `neighbours` are the directives before
    /// and after it.
    pub fn in_sequence(&self, neighbours: (Option<&RawDirective>, Option<&RawDirective>)) -> bool {
        let touches = |other: Option<&RawDirective>| {
            other.is_some_and(|o| {
                o.kind == RawKind::Attribute
                    && (o.span.end == self.span.start || o.span.start == self.span.end)
            })
        };
        self.kind == RawKind::Attribute && (touches(neighbours.0) || touches(neighbours.1))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawKind {
    Pragma,
    PragmaOperator,
    /// `[[omp::directive(...)]]`, or one directive of an `omp::sequence`:
    /// the directives of a sequence each own a part of the attribute, the
    /// first from `[[` on, the last up to `]]`.
    Attribute,
    /// `[[omp::decl(...)]]`: a declarative directive for the declaration
    /// the attribute belongs to.
    DeclarationAttribute,
    /// `_Pragma("omp ...")` in the body of `#define NAME`: it can only be
    /// seen where the macro expands, so it cannot be rewritten in place.
    InMacro {
        macro_name: String,
    },
}

/// A preprocessor line other than an OpenMP pragma's, as far as the
/// front end must know it: conditionals give the file its configurations,
/// and the others tell whether a stretch of code holds anything but blanks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreprocessorLine {
    pub kind: LineKind,
    /// From `#` to the end of the logical line, without its newline.
    pub span: Span,
    /// What follows the directive's name, continuations and comments
    /// turned into spaces, trimmed: the condition of `#if`, the macro of
    /// `#ifdef` or `#define`.
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    If,
    Ifdef,
    Ifndef,
    Elif,
    Elifdef,
    Elifndef,
    Else,
    Endif,
    Define,
    Undef,
    Include,
    /// `#pragma` of any kind (OpenMP pragmas are directives as well).
    Pragma,
    /// `#error`, `#warning`, `#line`, a null directive, ...
    Other,
}

impl LineKind {
    /// The kind of a line whose directive's name is `word`.
    pub(crate) fn of(word: &str) -> LineKind {
        match word {
            "if" => LineKind::If,
            "ifdef" => LineKind::Ifdef,
            "ifndef" => LineKind::Ifndef,
            "elif" => LineKind::Elif,
            "elifdef" => LineKind::Elifdef,
            "elifndef" => LineKind::Elifndef,
            "else" => LineKind::Else,
            "endif" => LineKind::Endif,
            "define" => LineKind::Define,
            "undef" => LineKind::Undef,
            "include" | "include_next" | "import" => LineKind::Include,
            "pragma" => LineKind::Pragma,
            _ => LineKind::Other,
        }
    }

    /// Opens a conditional (`#if`, `#ifdef`, `#ifndef`).
    pub fn opens(self) -> bool {
        matches!(self, LineKind::If | LineKind::Ifdef | LineKind::Ifndef)
    }

    /// Starts another branch of the open conditional.
    pub fn continues(self) -> bool {
        matches!(
            self,
            LineKind::Elif | LineKind::Elifdef | LineKind::Elifndef | LineKind::Else
        )
    }

    pub fn is_conditional(self) -> bool {
        self.opens() || self.continues() || self == LineKind::Endif
    }
}

/// Everything the lexical scan finds.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// OpenMP and POMP directives, in order.
    pub directives: Vec<RawDirective>,
    /// Every other preprocessor line, in order.
    pub lines: Vec<PreprocessorLine>,
    /// Where code uses a macro that stands for something the grammar
    /// can be given instead, in order: one the file defines, every time
    /// it defines it, as [`stand_in_definition`] tells, and never
    /// undefines; only uses after its first definition count (before it
    /// the name is itself). The grammar cannot know such a name and reads
    /// a syntax error where a code base puts it (`double *RESTRICT x`,
    /// `try { } CATCH_ALL`); given its stand-in, it reads what the
    /// compiler reads, or that without a qualifier, which changes no
    /// statement and no block.
    pub macro_uses: Vec<MacroUse>,
}

/// Where code uses a macro the grammar reads as a [`StandIn`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroUse {
    pub span: std::ops::Range<usize>,
    pub stand_in: StandIn,
}

/// What the grammar reads in place of a macro it cannot know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StandIn {
    /// Nothing: the macro stands for nothing or for qualifiers alone
    /// (`RESTRICT __restrict__`, `HOST_DEVICE`).
    Nothing,
    /// A handler of every exception ([`HANDLER_STAND_IN`]): the macro
    /// stands for `catch` clauses alone, in whose blocks pomp has nothing
    /// to read (no jump, no directive, no OpenMP routine).
    Handler,
}

/// The handler the grammar reads in place of a [`StandIn::Handler`]
/// macro, which must be at least as long, so that offsets stay the file's.
pub const HANDLER_STAND_IN: &str = "catch(...){}";

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
    found: Vec<RawDirective>,
    lines: Vec<PreprocessorLine>,
    /// The macros defined with a stand-in so far, and where code named
    /// them: a word at a time, as the scan meets it, costs a file without
    /// such a macro nothing.
    stand_ins: Vec<(String, StandIn)>,
    macro_uses: Vec<MacroUse>,
}

/// The words a macro may stand for and still leave the grammar reading
/// the statements and declarations it would read without them.
const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "inline",
    "__inline",
    "__inline__",
    "__forceinline",
    "static",
    "register",
];

/// The macro a `#define` defines (`text`: what follows `define`), and
/// what the grammar may read in its place, when the definition has no
/// parameters and its body is nothing or qualifiers alone, or `catch`
/// clauses alone ([`StandIn`]).
pub fn stand_in_definition(text: &str) -> Option<(&str, StandIn)> {
    let (name, body) = split_word(text.trim_start());
    if name.is_empty() || name.as_bytes()[0].is_ascii_digit() || body.starts_with('(') {
        return None;
    }
    if body
        .split_whitespace()
        .all(|word| QUALIFIERS.contains(&word))
    {
        return Some((name, StandIn::Nothing));
    }
    (name.len() >= HANDLER_STAND_IN.len() && only_quiet_handlers(body))
        .then_some((name, StandIn::Handler))
}

/// Whether `body` is one `catch` clause or more, each a parenthesised
/// declaration and a block, and nothing else, with nothing in them that
/// pomp reads in code: no jump, no directive, no OpenMP routine.
fn only_quiet_handlers(body: &str) -> bool {
    let bytes = body.as_bytes();
    let mut tokens = lex::Tokens::new(bytes, 0..bytes.len());
    let mut clauses = 0;
    while let Some(first) = tokens.next() {
        if &bytes[first.span.clone()] != b"catch" {
            return false;
        }
        for (open, close) in [(b'(', b')'), (b'{', b'}')] {
            if tokens.next().map(|t| t.kind) != Some(lex::TokenKind::Punct(open)) {
                return false;
            }
            let mut depth = 1usize;
            while depth > 0 {
                let Some(token) = tokens.next() else {
                    return false;
                };
                let word = &bytes[token.span.clone()];
                match token.kind {
                    lex::TokenKind::Punct(b) if b == open => depth += 1,
                    lex::TokenKind::Punct(b) if b == close => depth -= 1,
                    lex::TokenKind::Word
                        if matches!(
                            word,
                            b"return"
                                | b"break"
                                | b"continue"
                                | b"goto"
                                | b"co_return"
                                | b"_Pragma"
                                | b"__pragma"
                        ) || word.starts_with(b"omp_") =>
                    {
                        return false
                    }
                    _ => {}
                }
            }
        }
        clauses += 1;
    }
    clauses > 0
}

/// Whether the attributes of an attribute specifier must be written
/// `omp::directive` or may be written `directive` (inside `sequence` and
/// after `using omp:`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Namespace {
    Required,
    Optional,
}

/// One directive of an OpenMP attribute.
struct AttributeMember {
    /// Where its `directive(`, `decl(` or `omp::` begins.
    start: usize,
    /// The directive text between the parentheses.
    text: std::ops::Range<usize>,
    declaration: bool,
}

/// Whether the file can hold a directive at all: every form spells
/// `pragma` (`#pragma`, `_Pragma`) or opens an attribute with `[[`.
pub fn may_hold_directives(bytes: &[u8]) -> bool {
    let finder = memchr::memmem::find;
    finder(bytes, b"ragma").is_some() || finder(bytes, b"[[").is_some()
}

/// Every OpenMP/POMP directive and every other preprocessor line of the
/// file, in order.
pub fn scan(bytes: &[u8]) -> Scan {
    let mut scanner = Scanner::new(bytes);
    scanner.run();
    scanner.scanned()
}

/// [`scan`], reading each word: what the scan finds, the slow way, to
/// check it.
#[cfg(test)]
fn scan_word_by_word(bytes: &[u8]) -> Scan {
    let mut scanner = Scanner::new(bytes);
    while scanner.pos < bytes.len() {
        scanner.step();
    }
    scanner.scanned()
}

pub use lex::is_ident;

/// How many items a list holds before its density is trusted.
const SAMPLE_SIZE: usize = 64;

/// Pushes `item`, found at byte `at` of `total`, onto `list`. Once the
/// list holds enough to tell, a full list is given room for what the rest
/// of the file holds at the density seen so far, and never less than
/// twice its length. Grown by doubling alone, the lists of a file dense
/// with directives were copied into fresh pages at every step; counting
/// them first, in a pass of its own, brought the file's pages back once
/// more. Room never written takes no page.
fn push_extrapolating<T>(list: &mut Vec<T>, item: T, at: usize, total: usize) {
    if list.len() == list.capacity() && list.len() >= SAMPLE_SIZE {
        let expected = list.len().saturating_mul(total) / at.max(1);
        // An item in eight bytes at most, whatever the file began with;
        // past that room the list grows as any list does.
        let room = (expected + expected / 8).min(total / 8).max(2 * list.len());
        list.reserve_exact(room - list.len());
    }
    list.push(item);
}

/// Where the scan stops: what may begin a preprocessor line, a comment
/// or a literal, `[[`, `_Pragma`, and the names of the macros that stand
/// in for something once they are defined. Each is searched for on its
/// own, and where it was found is kept until the scan passes it: a
/// search stops at its own bytes only, however many of the others there
/// are.
struct Landings {
    /// What [`BYTES_SEARCHED`] found next, from where each was last
    /// searched for; `None` once there is none left.
    found: [Option<usize>; BYTES_SEARCHED.len()],
    /// `_Pragma` and the macros' names, with where each was found so.
    names: Vec<(Vec<u8>, Option<usize>)>,
}

/// A search of the rest of a file, giving the offset of what it finds.
type Search = fn(&[u8]) -> Option<usize>;

/// The searches for the next `#`, `/` or `"`, the next `'` and the next
/// `[[`.
const BYTES_SEARCHED: [Search; 3] = [
    |rest| memchr::memchr3(b'#', b'/', b'"', rest),
    |rest| memchr::memchr(b'\'', rest),
    |rest| memchr::memmem::find(rest, b"[["),
];

/// Where `search` finds something in `bytes` at or after `from`.
fn found_from(bytes: &[u8], from: usize, search: impl Fn(&[u8]) -> Option<usize>) -> Option<usize> {
    search(&bytes[from..]).map(|offset| from + offset)
}

impl Landings {
    fn new(bytes: &[u8]) -> Landings {
        let mut landings = Landings {
            found: BYTES_SEARCHED.map(|search| found_from(bytes, 0, search)),
            names: Vec::new(),
        };
        landings.look_for(b"_Pragma", bytes, 0);
        landings
    }

    /// Stops at `name` too, from `from` on.
    fn look_for(&mut self, name: &[u8], bytes: &[u8], from: usize) {
        let found = found_from(bytes, from, |rest| memchr::memmem::find(rest, name));
        self.names.push((name.to_vec(), found));
    }

    /// The first landing at or after `from`, which never goes back.
    fn next(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        for (found, search) in self.found.iter_mut().zip(BYTES_SEARCHED) {
            if found.is_some_and(|at| at < from) {
                *found = found_from(bytes, from, search);
            }
        }
        for (name, found) in &mut self.names {
            if found.is_some_and(|at| at < from) {
                *found = found_from(bytes, from, |rest| memchr::memmem::find(rest, name));
            }
        }
        let names = self.names.iter().filter_map(|(_, found)| *found);
        self.found.iter().flatten().copied().chain(names).min()
    }

    /// Where the name found at `at` ends: the longest of those found there.
    fn end_of_name(&self, at: usize) -> usize {
        (self.names.iter())
            .filter(|(_, found)| *found == Some(at))
            .map(|(name, _)| at + name.len())
            .max()
            .unwrap_or(at)
    }
}

/// Where the word that `at` ends or lies in begins, as far back as
/// `from`, where a token begins: back over identifier bytes and what a
/// number holds (`1.5e+3`).
fn word_start(bytes: &[u8], from: usize, at: usize) -> usize {
    let mut start = at;
    while start > from
        && (is_ident(bytes[start - 1]) || matches!(bytes[start - 1], b'.' | b'+' | b'-'))
    {
        start -= 1;
    }
    start
}

/// The bytes that begin nothing the scan looks at: neither a word nor a
/// preprocessor line, comment, literal or attribute.
static INERT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = !(byte.is_ascii_alphanumeric()
            || matches!(byte, b'_' | b'#' | b'/' | b'"' | b'\'' | b'['));
        b += 1;
    }
    table
};

impl<'a> Scanner<'a> {
    fn new(bytes: &'a [u8]) -> Scanner<'a> {
        Scanner {
            bytes,
            pos: 0,
            found: Vec::new(),
            lines: Vec::new(),
            stand_ins: Vec::new(),
            macro_uses: Vec::new(),
        }
    }

    fn scanned(mut self) -> Scan {
        Scan {
            macro_uses: self.uses_still_standing_in(),
            directives: self.found,
            lines: self.lines,
        }
    }

    /// The uses noted of macros defined with a stand-in that no other
    /// definition, and no `#undef`, made anything else.
    fn uses_still_standing_in(&mut self) -> Vec<MacroUse> {
        let uses = std::mem::take(&mut self.macro_uses);
        if uses.is_empty() {
            return uses;
        }
        // Each name with the stand-ins its definitions give: a file of
        // many macros uses them many times, and a list searched at every
        // use made that quadratic.
        let mut others: HashMap<&[u8], Vec<Option<StandIn>>> = HashMap::new();
        for line in &self.lines {
            let (name, stand_in) = match line.kind {
                LineKind::Define => match stand_in_definition(&line.text) {
                    Some((name, stand_in)) => (name, Some(stand_in)),
                    None => (split_word(&line.text).0, None),
                },
                LineKind::Undef => (split_word(&line.text).0, None),
                _ => continue,
            };
            others.entry(name.as_bytes()).or_default().push(stand_in);
        }
        let bytes = self.bytes;
        (uses.into_iter())
            .filter(|used| {
                (others.get(&bytes[used.span.clone()]))
                    .is_none_or(|given| given.iter().all(|&s| s == Some(used.stand_in)))
            })
            .collect()
    }

    fn peek(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    fn run(&mut self) {
        // A word matters only where a literal, `_Pragma` or a macro that
        // stands in for something begins with it: the scan passes over
        // the rest, from one place where something may begin to the next.
        let bytes = self.bytes;
        // Where the last token read ended: a token begins there.
        let mut read_to = 0;
        let mut landings = Landings::new(bytes);
        while let Some(at) = landings.next(bytes, self.pos) {
            let begins = match bytes[at] {
                b'#' => lex::at_line_start(bytes, at),
                b'/' => matches!(bytes.get(at + 1), Some(b'*' | b'/')),
                b'"' | b'\'' | b'[' => true,
                // `_Pragma` or a macro's name: a word that may go on.
                _ => !(bytes.get(landings.end_of_name(at))).is_some_and(|&b| is_ident(b)),
            };
            if !begins {
                self.pos = at + 1;
                continue;
            }
            // A quote or a name may go on the word before it (`u8"`,
            // `R"(`, `1'000`, `1._Pragma`): the tokens are read from where
            // that word begins.
            self.pos = match bytes[at] {
                b'#' | b'/' | b'[' => at,
                _ => word_start(bytes, read_to, at),
            };
            let known = self.stand_ins.len();
            while self.pos <= at {
                self.step();
            }
            read_to = self.pos;
            for (name, _) in &self.stand_ins[known..] {
                landings.look_for(name.as_bytes(), bytes, read_to);
            }
        }
        self.pos = bytes.len();
    }

    /// Reads the token at `pos`, or passes over what begins none.
    #[inline(always)]
    fn step(&mut self) {
        let b = self.bytes[self.pos];
        match b {
            b'#' if lex::at_line_start(self.bytes, self.pos) => self.preprocessor_line(),
            b'/' if self.peek(1) == b'*' => self.pos = lex::block_comment_end(self.bytes, self.pos),
            b'/' if self.peek(1) == b'/' => self.pos = lex::logical_line_end(self.bytes, self.pos),
            b'"' => self.pos = lex::quoted_end(self.bytes, self.pos, b'"'),
            b'\'' => self.pos = lex::quoted_end(self.bytes, self.pos, b'\''),
            b'[' if self.peek(1) == b'[' => self.attribute(),
            _ if is_ident(b) => self.word(),
            // White space and operators come in runs: step over one.
            _ => {
                self.pos += 1
                    + (self.bytes[self.pos + 1..].iter())
                        .position(|&b| !INERT[b as usize])
                        .unwrap_or(self.bytes.len() - self.pos - 1)
            }
        }
    }

    /// An identifier or number; recognises `_Pragma`, raw strings and C++14
    /// digit separators (which would otherwise look like character literals).
    fn word(&mut self) {
        let start = self.pos;
        self.pos = lex::word_end(self.bytes, start);
        let word = &self.bytes[start..self.pos];
        if self.peek(0) == b'"' && lex::is_raw_string_prefix(word) {
            self.pos = lex::raw_string_end(self.bytes, self.pos);
        } else if word == b"_Pragma" {
            if let Some(d) = self.pragma_operator(start) {
                self.pos = d.span.end;
                push_extrapolating(&mut self.found, d, self.pos, self.bytes.len());
            }
        } else if let Some(&(_, stand_in)) = self
            .stand_ins
            .iter()
            .find(|(name, _)| name.as_bytes() == word)
        {
            self.macro_uses.push(MacroUse {
                span: start..self.pos,
                stand_in,
            });
        }
    }

    /// `_Pragma ( "omp ..." )` starting at `start`; `None` if it is not an
    /// OpenMP one.
    fn pragma_operator(&self, start: usize) -> Option<RawDirective> {
        let mut i = lex::skip_space(self.bytes, start + "_Pragma".len());
        if self.bytes.get(i) != Some(&b'(') {
            return None;
        }
        i = lex::skip_space(self.bytes, i + 1);
        let literal_start = i;
        // An encoding prefix is allowed before the string literal.
        while i < self.bytes.len() && self.bytes[i].is_ascii_alphanumeric() {
            i += 1;
        }
        if self.bytes.get(i) != Some(&b'"') {
            return None;
        }
        let literal_end = lex::quoted_end(self.bytes, i, b'"');
        let close = lex::skip_space(self.bytes, literal_end);
        if self.bytes.get(close) != Some(&b')') {
            return None;
        }
        let _ = literal_start;
        let content = unescape(&self.bytes[i + 1..literal_end.saturating_sub(1)]);
        let (pomp, text) = strip_sentinel(&content)?;
        Some(RawDirective {
            kind: RawKind::PragmaOperator,
            span: start..close + 1,
            text,
            pomp,
        })
    }

    /// An attribute specifier whose attributes are all OpenMP ones:
    /// `[[omp::directive(...)]]`, `[[omp::sequence(...)]]`,
    /// `[[omp::decl(...)]]`, several separated by commas, or written
    /// `[[using omp: directive(...)]]`. Other attributes are skipped.
    fn attribute(&mut self) {
        let start = self.pos;
        let Some((end, members)) = self.omp_attribute(start) else {
            self.pos += 2;
            return;
        };
        for (index, member) in members.iter().enumerate() {
            let owned_from = if index == 0 { start } else { member.start };
            let owned_to = members.get(index + 1).map_or(end, |next| next.start);
            let directive = RawDirective {
                kind: if member.declaration {
                    RawKind::DeclarationAttribute
                } else {
                    RawKind::Attribute
                },
                span: owned_from..owned_to,
                text: String::from_utf8_lossy(&self.bytes[member.text.clone()]).into_owned(),
                pomp: false,
            };
            push_extrapolating(&mut self.found, directive, start, self.bytes.len());
        }
        self.pos = end;
    }

    /// The end of the attribute specifier starting at `start` (`[[`) and
    /// its directives in order, if it holds OpenMP attributes only.
    fn omp_attribute(&self, start: usize) -> Option<(usize, Vec<AttributeMember>)> {
        let mut i = lex::skip_space(self.bytes, start + 2);
        let mut namespace = Namespace::Required;
        if self.identifier_at(i).0 == b"using" {
            i = lex::skip_space(self.bytes, self.identifier_at(i).1);
            let (word, after) = self.identifier_at(i);
            let colon = lex::skip_space(self.bytes, after);
            if word != b"omp"
                || self.bytes.get(colon) != Some(&b':')
                || self.bytes.get(colon + 1) == Some(&b':')
            {
                return None;
            }
            i = lex::skip_space(self.bytes, colon + 1);
            namespace = Namespace::Optional;
        }
        let mut members = Vec::new();
        loop {
            i = lex::skip_space(self.bytes, self.attribute_item(i, namespace, &mut members)?);
            match self.bytes.get(i) {
                Some(b',') => i = lex::skip_space(self.bytes, i + 1),
                Some(b']') if self.bytes.get(i + 1) == Some(&b']') => {
                    return Some((i + 2, members))
                }
                _ => return None,
            }
        }
    }

    /// One `directive(...)`, `decl(...)` or `sequence(...)` at `at`, with
    /// the `omp::` qualifier as `namespace` allows: its directives are
    /// appended to `members`. Returns where it ends.
    fn attribute_item(
        &self,
        at: usize,
        namespace: Namespace,
        members: &mut Vec<AttributeMember>,
    ) -> Option<usize> {
        let mut i = at;
        let (word, after) = self.identifier_at(i);
        let qualifier = lex::skip_space(self.bytes, after);
        if word == b"omp" && self.bytes[qualifier..].starts_with(b"::") {
            i = lex::skip_space(self.bytes, qualifier + 2);
        } else if namespace == Namespace::Required {
            return None;
        }
        let (name, after) = self.identifier_at(i);
        let open = lex::skip_space(self.bytes, after);
        if self.bytes.get(open) != Some(&b'(') {
            return None;
        }
        let close = self.matching_paren(open)?;
        match name {
            b"directive" | b"decl" => members.push(AttributeMember {
                start: at,
                text: open + 1..close,
                declaration: name == b"decl",
            }),
            b"sequence" => {
                let mut j = lex::skip_space(self.bytes, open + 1);
                loop {
                    j = lex::skip_space(
                        self.bytes,
                        self.attribute_item(j, Namespace::Optional, members)?,
                    );
                    match self.bytes.get(j) {
                        Some(b',') => j = lex::skip_space(self.bytes, j + 1),
                        _ if j == close => break,
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
        Some(close + 1)
    }

    /// The identifier at `at` (empty if none) and where it ends.
    fn identifier_at(&self, at: usize) -> (&[u8], usize) {
        let len = self.bytes[at.min(self.bytes.len())..]
            .iter()
            .take_while(|&&b| is_ident(b))
            .count();
        (&self.bytes[at..at + len], at + len)
    }

    fn matching_paren(&self, open: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = open;
        while i < self.bytes.len() {
            match self.bytes[i] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                b'"' => {
                    i = lex::quoted_end(self.bytes, i, b'"');
                    continue;
                }
                b'\'' => {
                    i = lex::quoted_end(self.bytes, i, b'\'');
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// A `#...` line: an OpenMP pragma becomes a directive, `#define` bodies
    /// are searched for `_Pragma`, everything else is skipped whole.
    fn preprocessor_line(&mut self) {
        let start = self.pos;
        let end = lex::directive_line_end(self.bytes, start);
        let line = &self.bytes[start..end];
        let text = clean_directive_line(line);
        let after_hash = text[1..].trim_start();
        let (word, rest) = split_word(after_hash);
        let total = self.bytes.len();
        let found = PreprocessorLine {
            kind: LineKind::of(word),
            span: start..end,
            text: rest.trim().to_string(),
        };
        push_extrapolating(&mut self.lines, found, start, total);
        if word == "pragma" {
            if let Some((pomp, text)) = strip_sentinel(rest) {
                let directive = RawDirective {
                    kind: RawKind::Pragma,
                    span: start..end,
                    text,
                    pomp,
                };
                push_extrapolating(&mut self.found, directive, start, total);
            }
        } else if word == "define" {
            if let Some((name, stand_in)) = stand_in_definition(rest) {
                if !self.stand_ins.iter().any(|(known, _)| known == name) {
                    self.stand_ins.push((name.to_string(), stand_in));
                }
            }
            let (macro_name, _) = split_word(rest.trim_start());
            let macro_name = macro_name.split('(').next().unwrap_or("").to_string();
            // Offsets into the line as written: the cleaned text is
            // shorter wherever a comment or continuation was.
            let operators = memchr::memmem::find_iter(line, b"_Pragma").filter(|&at| {
                let before = line[..at].last();
                let after = line.get(at + "_Pragma".len());
                !before.is_some_and(|&b| is_ident(b)) && !after.is_some_and(|&b| is_ident(b))
            });
            for at in operators {
                let sub = Scanner {
                    bytes: line,
                    pos: at,
                    found: vec![],
                    lines: vec![],
                    stand_ins: vec![],
                    macro_uses: vec![],
                };
                if let Some(d) = sub.pragma_operator(at) {
                    self.found.push(RawDirective {
                        kind: RawKind::InMacro {
                            macro_name: macro_name.clone(),
                        },
                        span: start + d.span.start..start + d.span.end,
                        text: d.text,
                        pomp: d.pomp,
                    });
                }
            }
        }
        self.pos = end;
    }
}

/// A preprocessor line with continuations and comments turned into spaces.
fn clean_directive_line(line: &[u8]) -> String {
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'\\' if matches!(line.get(i + 1), Some(b'\n')) => {
                out.push(b' ');
                i += 2;
            }
            b'\\' if line.get(i + 1) == Some(&b'\r') && line.get(i + 2) == Some(&b'\n') => {
                out.push(b' ');
                i += 3;
            }
            b'/' if line.get(i + 1) == Some(&b'*') => {
                let end = line[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map(|p| i + 2 + p + 2)
                    .unwrap_or(line.len());
                out.push(b' ');
                i = end;
            }
            b'/' if line.get(i + 1) == Some(&b'/') => break,
            b'"' | b'\'' => {
                let quote = line[i];
                let mut j = i + 1;
                while j < line.len() && line[j] != quote {
                    j += if line[j] == b'\\' { 2 } else { 1 };
                }
                let j = (j + 1).min(line.len());
                out.extend_from_slice(&line[i..j]);
                i = j;
            }
            b'\r' | b'\n' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn split_word(s: &str) -> (&str, &str) {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `omp parallel` → (false, "parallel"), `pomp inst begin(x)` → (true, ...).
fn strip_sentinel(text: &str) -> Option<(bool, String)> {
    let (word, rest) = split_word(text.trim_start());
    let pomp = match word {
        "omp" => false,
        "pomp" => true,
        _ => return None,
    };
    Some((pomp, rest.trim().to_string()))
}

/// Undo the escapes of a `_Pragma` string literal (C11 6.10.9: `\"` and `\\`).
fn unescape(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && matches!(bytes.get(i + 1), Some(b'"') | Some(b'\\')) {
            out.push(bytes[i + 1]);
            i += 2;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts where passing over words went wrong while it was written: a
    /// raw string's prefix, and `_Pragma` after a number's exponent.
    #[test]
    fn passing_over_words_reads_prefixes_and_numbers_whole() {
        for text in [
            "R\"x(u8\"_Pragma(\"omp parallel\")",
            "1.5e+_Pragma(\"omp parallel\")",
            "x = u8R\"y(#pragma omp for\n)y\"; _Pragma(\"omp single\")",
            "#define Q const\nQ int *Qx, xQ; Q",
        ] {
            let passing = scan(text.as_bytes());
            let reading = scan_word_by_word(text.as_bytes());
            assert_eq!(passing.directives, reading.directives, "{text:?}");
            assert_eq!(passing.lines, reading.lines, "{text:?}");
            assert_eq!(passing.macro_uses, reading.macro_uses, "{text:?}");
        }
    }

    proptest::proptest! {
        /// The scan that passes over words finds what the scan of each
        /// word finds, in text made of what may fool it: prefixes and
        /// raw strings, digit separators and exponents, `_Pragma` in and
        /// out of words, comments, attributes, continued lines and a
        /// macro that stands in for a qualifier.
        #[test]
        fn passing_over_words_finds_what_reading_each_finds(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "u8\"", "R\"x(", ")x\"", "LR\"(", ")\"", "u'", "\"", "'", "1'000",
                    "1.5e+", "0x1p-", "1.", "_Pragma(\"omp parallel\")", "x_Pragma", "_Pragma",
                    "#pragma omp for\n", "#define Q const\n", "#undef Q\n", "#define QQ\n",
                    "QQ", "#define P _Pragma(\"omp single\")\n",
                    "#", "\n", " ", "/*", "*/", "//", "/", "[[omp::directive(parallel)]]", "[[",
                    "]]", "[", "a_b", "x", "Q", "_", ".", "+", "-", "\\\n", "(", ")", ";", "{",
                    "\u{e9}",
                ]),
                0..24,
            ),
        ) {
            let text = parts.concat();
            let passing = scan(text.as_bytes());
            let reading = scan_word_by_word(text.as_bytes());
            proptest::prop_assert_eq!(&passing.directives, &reading.directives, "{:?}", text);
            proptest::prop_assert_eq!(&passing.lines, &reading.lines, "{:?}", text);
            proptest::prop_assert_eq!(&passing.macro_uses, &reading.macro_uses, "{:?}", text);
        }
    }

    /// Items spread evenly over a file: once the sample is in, the list is
    /// given room for all of them at once, and holds them in order.
    #[test]
    fn extrapolated_room_holds_an_evenly_dense_file_at_once() {
        let total = 100_000;
        let mut list = Vec::new();
        let mut capacities = Vec::new();
        for item in 0..1_000 {
            push_extrapolating(&mut list, item, item * 100, total);
            if capacities.last() != Some(&list.capacity()) {
                capacities.push(list.capacity());
            }
        }
        assert_eq!(list, (0..1_000).collect::<Vec<_>>());
        let sampled = capacities.iter().position(|&c| c > SAMPLE_SIZE).unwrap();
        assert!(capacities[sampled] >= 1_000, "{capacities:?}");
        assert_eq!(capacities.len(), sampled + 1, "{capacities:?}");
    }

    /// A file that begins with its preprocessor lines is not taken for one
    /// made of them: the room stays within a line of eight bytes, and the
    /// list still at least doubles when the rest goes on.
    #[test]
    fn extrapolated_room_is_bounded_by_the_file() {
        let total = 80_000;
        let mut list = Vec::new();
        for item in 0..SAMPLE_SIZE + 1 {
            push_extrapolating(&mut list, item, item, total);
        }
        assert!(list.capacity() <= total / 8, "{}", list.capacity());
        let mut late = vec![0; SAMPLE_SIZE];
        push_extrapolating(&mut late, 0, total - 1, total);
        assert!(late.capacity() >= 2 * SAMPLE_SIZE, "{}", late.capacity());
    }

    fn texts(src: &str) -> Vec<(RawKind, String, String)> {
        scan(src.as_bytes())
            .directives
            .into_iter()
            .map(|d| (d.kind, d.text, src[d.span].to_string()))
            .collect()
    }

    #[test]
    fn finds_pragmas_with_continuations_and_comments() {
        let src = "int x;\n  #  pragma omp parallel \\\n   for /* c */ reduction(+:s) // tail\nfor(;;);\n";
        let found = texts(src);
        assert_eq!(found.len(), 1);
        // Continuations and comments become white space; the words are what count.
        assert_eq!(
            found[0].1.split_whitespace().collect::<Vec<_>>(),
            ["parallel", "for", "reduction(+:s)"]
        );
        assert_eq!(
            found[0].2,
            "#  pragma omp parallel \\\n   for /* c */ reduction(+:s) // tail"
        );
    }

    #[test]
    fn ignores_strings_comments_and_raw_strings() {
        let src = "const char* s = \"\\n#pragma omp parallel\";\n/*\n#pragma omp barrier\n*/\nauto r = R\"x(\n#pragma omp barrier\n)x\";\nint n = 1'000;\n#pragma omp barrier\n";
        let found = texts(src);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, "barrier");
    }

    #[test]
    fn pragma_operator_attribute_and_macro() {
        let src = "#define PAR _Pragma(\"omp parallel for\")\nvoid f(){ _Pragma(\"omp barrier\") [[omp::directive(parallel for)]] for(;;); }\n";
        let found = texts(src);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0].0,
            RawKind::InMacro {
                macro_name: "PAR".into()
            }
        );
        assert_eq!(found[1].0, RawKind::PragmaOperator);
        assert_eq!(found[1].2, "_Pragma(\"omp barrier\")");
        assert_eq!(found[2].0, RawKind::Attribute);
        assert_eq!(found[2].1, "parallel for");
    }

    #[test]
    fn a_sequence_attribute_is_its_directives_in_order() {
        let src = "void f(){\n  [[omp::sequence(directive(parallel num_threads(2)), omp::directive(for), sequence(directive(simd)))]]\n  for(;;);\n}\n";
        let found = texts(src);
        let members: Vec<(&str, &str)> = found
            .iter()
            .map(|(kind, text, owned)| {
                assert_eq!(*kind, RawKind::Attribute);
                (text.as_str(), owned.as_str())
            })
            .collect();
        assert_eq!(
            members,
            [
                (
                    "parallel num_threads(2)",
                    "[[omp::sequence(directive(parallel num_threads(2)), "
                ),
                ("for", "omp::directive(for), sequence("),
                ("simd", "directive(simd)))]]"),
            ]
        );
        // Together they own the attribute, no more and no less.
        let spans: Vec<_> = scan(src.as_bytes())
            .directives
            .into_iter()
            .map(|d| d.span)
            .collect();
        assert_eq!(spans[0].end, spans[1].start);
        assert_eq!(spans[1].end, spans[2].start);
        assert_eq!(
            &src[spans[0].start..spans[2].end],
            src.lines().nth(1).unwrap().trim()
        );
    }

    #[test]
    fn declaration_and_using_attributes() {
        let found = texts("int x [[omp::decl(threadprivate)]];\n[[ using omp : directive(parallel) ]] {}\n[[omp::directive(single), omp::directive(barrier)]];\n");
        let kinds: Vec<(RawKind, &str)> = found
            .iter()
            .map(|(k, t, _)| (k.clone(), t.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                (RawKind::DeclarationAttribute, "threadprivate"),
                (RawKind::Attribute, "parallel"),
                (RawKind::Attribute, "single"),
                (RawKind::Attribute, "barrier"),
            ]
        );
        assert_eq!(found[1].2, "[[ using omp : directive(parallel) ]]");
    }

    #[test]
    fn other_attributes_and_names_that_only_begin_like_omp_are_skipped() {
        for src in [
            "[[ompx::directive(parallel)]] {}",
            "[[omp::directives(parallel)]] {}",
            "[[omp::directive(parallel), gnu::hot]] {}",
            "[[using ompx: directive(parallel)]] {}",
            "[[using omp:: directive(parallel)]] {}",
            "[[omp::sequence()]] {}",
            "[[nodiscard]] int f();",
        ] {
            assert!(texts(src).is_empty(), "{src}");
        }
    }

    #[test]
    fn pragma_operators_in_macros_are_whole_words() {
        let src = "#define A my_Pragma(\"omp parallel\")\n#define B /* c */ _Pragma(\"omp barrier\") x_Pragmas\n";
        let found = texts(src);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].1, "barrier");
        assert_eq!(found[0].2, "_Pragma(\"omp barrier\")");
    }

    #[test]
    fn pomp_sentinel_and_other_pragmas() {
        let found = texts("#pragma once\n#pragma pomp inst begin(phase)\n#pragma GCC ivdep\n#pragma ompx foo\n#pragma omp_x bar\n#pragma pompx baz\n");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "inst begin(phase)");
    }
}
