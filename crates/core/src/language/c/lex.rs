//! The lexical layer of C and C++ that the scans share: where comments,
//! literals and preprocessor lines end, and a token stream that skips
//! comments and white space. It knows nothing of statements.

/// Byte offsets, as the source's spans are.
type Span = std::ops::Range<usize>;

pub fn is_ident(b: u8) -> bool {
    IDENT[b as usize]
}

/// The bytes of identifiers and numbers, by value: the scans ask for
/// every byte of every word.
static IDENT: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
};

/// `text` with its universal character names (`\u00e4`, `\U000000e4`)
/// written as the characters they name. A preprocessor may write an
/// identifier spelt in UTF-8 that way (gcc -E does); names taken from its
/// output then read as the user wrote them. Anything else after a
/// backslash stays as it is.
pub fn decode_universal_character_names(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\\') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut decoded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        decoded.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let digits = match after.as_bytes().first() {
            Some(b'u') => 4,
            Some(b'U') => 8,
            _ => 0,
        };
        let named = after
            .get(1..1 + digits)
            .filter(|hex| digits > 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32);
        match named {
            Some(c) => {
                decoded.push(c);
                rest = &after[1 + digits..];
            }
            None => {
                decoded.push('\\');
                rest = after;
            }
        }
    }
    decoded.push_str(rest);
    std::borrow::Cow::Owned(decoded)
}

/// Whether only horizontal white space stands before `pos` on its line, so
/// that a `#` there starts a preprocessor line.
pub fn at_line_start(bytes: &[u8], pos: usize) -> bool {
    let mut i = pos;
    while i > 0 {
        match bytes[i - 1] {
            b' ' | b'\t' | b'\x0c' | b'\x0b' | b'\r' => i -= 1,
            b'\n' => return true,
            _ => return false,
        }
    }
    true
}

/// Offset just past the `*/` of the comment starting at `start`.
pub fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let body = (start + 2).min(bytes.len());
    memchr::memmem::find(&bytes[body..], b"*/").map_or(bytes.len(), |at| body + at + 2)
}

/// Offset of the newline that ends the logical line containing `start`
/// (backslash-newline continues a line).
pub fn logical_line_end(bytes: &[u8], start: usize) -> usize {
    memchr::memchr_iter(b'\n', &bytes[start..])
        .map(|at| start + at)
        .find(|&newline| !escaped_newline(bytes, newline))
        .unwrap_or(bytes.len())
}

pub fn escaped_newline(bytes: &[u8], newline: usize) -> bool {
    let mut j = newline;
    if j > 0 && bytes[j - 1] == b'\r' {
        j -= 1;
    }
    j > 0 && bytes[j - 1] == b'\\'
}

/// Offset just past the closing quote of a string or character literal.
pub fn quoted_end(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'\n' => return i, // unterminated: stop at the line end
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Offset just past a raw string literal whose quote is at `quote`.
pub fn raw_string_end(bytes: &[u8], quote: usize) -> usize {
    let open = match bytes[quote..].iter().position(|&b| b == b'(') {
        Some(p) => quote + p,
        None => return quoted_end(bytes, quote, b'"'),
    };
    let mut terminator = vec![b')'];
    terminator.extend_from_slice(&bytes[quote + 1..open]);
    terminator.push(b'"');
    match memchr::memmem::find(&bytes[open..], &terminator) {
        Some(p) => open + p + terminator.len(),
        None => bytes.len(),
    }
}

/// End of a preprocessor line: the first newline that is neither escaped
/// nor inside a block comment, without a carriage return before it.
pub fn directive_line_end(bytes: &[u8], start: usize) -> usize {
    let without_cr = |e: usize| {
        if e > 0 && bytes.get(e - 1) == Some(&b'\r') {
            e - 1
        } else {
            e
        }
    };
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' if !escaped_newline(bytes, i) => return without_cr(i),
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = block_comment_end(bytes, i);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                return without_cr(logical_line_end(bytes, i));
            }
            b'"' => {
                i = quoted_end(bytes, i, b'"');
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// Skips white space and comments from `i`.
pub fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = block_comment_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = logical_line_end(bytes, i),
            _ => break,
        }
    }
    i
}

/// Where `word` stands in `bytes` within `range` as a whole word, no
/// identifier character touching it on either side (those outside
/// `range` count too).
pub fn whole_words<'a>(
    bytes: &'a [u8],
    range: Span,
    word: &'a [u8],
) -> impl Iterator<Item = usize> + 'a {
    let whole = move |at: usize| {
        let before = at.checked_sub(1).map(|b| bytes[b]);
        let after = bytes.get(at + word.len()).copied();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    };
    memchr::memmem::find_iter(&bytes[range.clone()], word)
        .map(move |at| range.start + at)
        .filter(move |&at| whole(at))
}

/// End of the identifier or number starting at `start`. Digit separators,
/// decimal points and exponent signs continue a number (`1'000`, `1.5e-3`).
pub fn word_end(bytes: &[u8], start: usize) -> usize {
    let number = bytes[start].is_ascii_digit();
    let mut i = start;
    if !number {
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        return i;
    }
    while i < bytes.len() {
        let b = bytes[i];
        let next_is_ident = bytes.get(i + 1).is_some_and(|&n| is_ident(n));
        let continues = is_ident(b)
            || (number && (b == b'\'' || b == b'.') && next_is_ident)
            || (number
                && (b == b'+' || b == b'-')
                && matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P'));
        if !continues {
            break;
        }
        i += 1;
    }
    i
}

/// Prefixes that make the string literal after them raw.
pub fn is_raw_string_prefix(word: &[u8]) -> bool {
    matches!(word, b"R" | b"u8R" | b"uR" | b"UR" | b"LR")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// An identifier, keyword or number.
    Word,
    /// A string, character or raw string literal, with its prefix.
    Literal,
    /// One punctuation byte (`{`, `;`, `:`, ...).
    Punct(u8),
    /// A whole preprocessor line, continuations included.
    Preprocessor,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// The tokens of `bytes[from..to]`, comments and white space skipped.
pub struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
    end: usize,
    /// Spans read as white space ([`Tokens::passing_over`]).
    passed_over: &'a [Span],
}

impl<'a> Tokens<'a> {
    pub fn new(bytes: &'a [u8], range: Span) -> Tokens<'a> {
        Tokens {
            bytes,
            pos: range.start,
            end: range.end.min(bytes.len()),
            passed_over: &[],
        }
    }

    /// These tokens with the spans `lines` read as white space, as if
    /// blanked in `bytes`: sorted and disjoint, each from the `#` of a
    /// preprocessor line (that line, or a dead branch of a conditional
    /// with its line).
    pub fn passing_over(self, lines: &'a [Span]) -> Tokens<'a> {
        Tokens {
            passed_over: lines,
            ..self
        }
    }

    fn passed_over_at(&self, at: usize) -> Option<usize> {
        line_end_among(self.passed_over, at)
    }
}

/// The index of the span among `spans` (sorted, disjoint) that holds
/// `at`.
pub fn index_holding(spans: &[Span], at: usize) -> Option<usize> {
    let index = spans.partition_point(|s| s.start <= at).checked_sub(1)?;
    (at < spans[index].end).then_some(index)
}

/// The spans among `spans` (sorted, disjoint) that overlap `range`.
pub fn spans_among(spans: &[Span], range: Span) -> &[Span] {
    let from = spans.partition_point(|s| s.end <= range.start);
    let to = spans.partition_point(|s| s.start < range.end);
    &spans[from..to.max(from)]
}

/// The end of the line among `lines` (sorted) that starts at `at`.
pub fn line_end_among(lines: &[Span], at: usize) -> Option<usize> {
    let index = lines.partition_point(|l| l.start < at);
    (lines.get(index)).filter(|l| l.start == at).map(|l| l.end)
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let bytes = self.bytes;
        loop {
            let i = self.pos;
            if i >= self.end {
                return None;
            }
            let b = bytes[i];
            let (kind, end) = match b {
                b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\x0b' => {
                    self.pos += 1;
                    continue;
                }
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    self.pos = block_comment_end(bytes, i);
                    continue;
                }
                b'/' if bytes.get(i + 1) == Some(&b'/') => {
                    self.pos = logical_line_end(bytes, i);
                    continue;
                }
                b'\\' if matches!(bytes.get(i + 1), Some(b'\n' | b'\r')) => {
                    self.pos += 2;
                    continue;
                }
                b'#' if at_line_start(bytes, i) => match self.passed_over_at(i) {
                    Some(end) => {
                        self.pos = end;
                        continue;
                    }
                    None => (TokenKind::Preprocessor, directive_line_end(bytes, i)),
                },
                b'"' => (TokenKind::Literal, quoted_end(bytes, i, b'"')),
                b'\'' => (TokenKind::Literal, quoted_end(bytes, i, b'\'')),
                _ if is_ident(b) => {
                    let end = word_end(bytes, i);
                    match bytes.get(end) {
                        Some(b'"') if is_raw_string_prefix(&bytes[i..end]) => {
                            (TokenKind::Literal, raw_string_end(bytes, end))
                        }
                        // An encoding prefix belongs to its literal.
                        Some(&q @ (b'"' | b'\''))
                            if matches!(&bytes[i..end], b"L" | b"u" | b"U" | b"u8") =>
                        {
                            (TokenKind::Literal, quoted_end(bytes, end, q))
                        }
                        _ => (TokenKind::Word, end),
                    }
                }
                _ => (TokenKind::Punct(b), i + 1),
            };
            self.pos = end;
            return Some(Token { kind, span: i..end });
        }
    }
}

/// The bytes at which [`Tokens::next_brace`] must look closer: braces, and
/// what may begin a comment, a literal or a preprocessor line.
static NOTABLE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let bytes = b"{}\"'/#";
    while i < bytes.len() {
        table[bytes[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether a quote after `before`, in code, surely opens a literal of its
/// own, as [`Tokens`] reads it: not after a word (`1'000`, `u8"`, `R"(`)
/// or the sign of a number's exponent (`1e+'`), where the word may go on.
fn opens_a_token(before: u8) -> bool {
    !(is_ident(before) || matches!(before, b'+' | b'-'))
}

/// The `}` that closes the `{` at `open`, counting braces in code only.
pub fn matching_brace(bytes: &[u8], open: usize, passed_over: &[Span]) -> Option<usize> {
    let mut tokens = Tokens::new(bytes, open..bytes.len()).passing_over(passed_over);
    let mut depth = 0usize;
    while let Some(brace) = tokens.next_brace() {
        match bytes[brace.span.start] {
            b'{' => depth += 1,
            _ => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(brace.span.start);
                }
            }
        }
    }
    None
}

impl Tokens<'_> {
    /// The next `{` or `}` token, the tokens before it skipped: what
    /// [`Iterator::next`] would find first among them, found without
    /// lexing the words and punctuation in between.
    pub fn next_brace(&mut self) -> Option<Token> {
        self.next_notable(true)
    }

    /// The next preprocessor line, found as [`Tokens::next_brace`] finds
    /// braces.
    pub fn next_preprocessor_line(&mut self) -> Option<Token> {
        self.next_notable(false)
    }

    /// The next brace (`braces`) or else preprocessor line, the tokens
    /// before it skipped.
    fn next_notable(&mut self, braces: bool) -> Option<Token> {
        let bytes = self.bytes;
        loop {
            // Where the last token ended: a token boundary, in code.
            let boundary = self.pos;
            if boundary >= self.end {
                return None;
            }
            let at = boundary
                + bytes[boundary..self.end]
                    .iter()
                    .position(|&b| NOTABLE[b as usize])?;
            match bytes[at] {
                b @ (b'{' | b'}') if braces => {
                    self.pos = at + 1;
                    return Some(Token {
                        kind: TokenKind::Punct(b),
                        span: at..at + 1,
                    });
                }
                b'{' | b'}' => self.pos = at + 1,
                b'/' => {
                    self.pos = match bytes.get(at + 1) {
                        Some(b'*') => block_comment_end(bytes, at),
                        Some(b'/') => logical_line_end(bytes, at),
                        _ => at + 1,
                    };
                }
                b'#' if at_line_start(bytes, at) => {
                    let passed_over = self.passed_over_at(at);
                    self.pos = passed_over.unwrap_or_else(|| directive_line_end(bytes, at));
                    if !braces && passed_over.is_none() {
                        return Some(Token {
                            kind: TokenKind::Preprocessor,
                            span: at..self.pos,
                        });
                    }
                }
                b'#' => self.pos = at + 1,
                quote if at == boundary || opens_a_token(bytes[at - 1]) => {
                    self.pos = quoted_end(bytes, at, quote);
                }
                _ => {
                    // A quote may end a word (`1'000`) or follow the prefix
                    // of its literal (`u8"`, `R"(`): the tokens from the
                    // start of its line, or from the last boundary, tell.
                    // None of them is a brace or a preprocessor line.
                    self.pos = memchr::memrchr(b'\n', &bytes[boundary..at])
                        .map_or(boundary, |newline| boundary + newline + 1);
                    for token in self.by_ref() {
                        if token.span.end > at {
                            break;
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn universal_character_names_read_as_their_characters() {
        let decode = |text| decode_universal_character_names(text).into_owned();
        assert_eq!(decode("gr\\U000000f6\\U000000dfen"), "größen");
        assert_eq!(decode("summe_\\u00fcber"), "summe_über");
        assert_eq!(decode("plain::name"), "plain::name");
        // Too few digits, not hexadecimal, or no character: kept.
        assert_eq!(decode("a\\u00f"), "a\\u00f");
        assert_eq!(decode("a\\u00g1b"), "a\\u00g1b");
        assert_eq!(decode("a\\UFFFFFFFF"), "a\\UFFFFFFFF");
        assert_eq!(decode("a\\n\\"), "a\\n\\");
    }

    #[test]
    fn lines_passed_over_read_as_white_space() {
        let text = b"a {\n#pragma omp parallel\n#if X\n}\n";
        let pragma = 4..24;
        assert_eq!(&text[pragma.clone()], b"#pragma omp parallel");
        let kinds = |tokens: Tokens| tokens.map(|t| t.kind).collect::<Vec<_>>();
        let all = Tokens::new(text, 0..text.len());
        let passed = [pragma];
        let passing = Tokens::new(text, 0..text.len()).passing_over(&passed);
        assert_eq!(kinds(all).len(), 5);
        assert_eq!(
            kinds(passing),
            [
                TokenKind::Word,
                TokenKind::Punct(b'{'),
                TokenKind::Preprocessor,
                TokenKind::Punct(b'}')
            ]
        );
        let mut lines = Tokens::new(text, 0..text.len()).passing_over(&passed);
        let line = lines.next_preprocessor_line().unwrap();
        assert_eq!(&text[line.span], b"#if X");
        assert!(lines.next_preprocessor_line().is_none());
    }

    /// The braces `next` finds and those `next_brace` finds, from offset 0.
    fn braces_both_ways(bytes: &[u8]) -> (Vec<Token>, Vec<Token>) {
        let all = Tokens::new(bytes, 0..bytes.len())
            .filter(|t| matches!(t.kind, TokenKind::Punct(b'{' | b'}')))
            .collect();
        let mut tokens = Tokens::new(bytes, 0..bytes.len());
        let fast = std::iter::from_fn(|| tokens.next_brace()).collect();
        (all, fast)
    }

    /// The preprocessor lines `next` finds and those
    /// `next_preprocessor_line` finds, from offset 0.
    fn preprocessor_lines_both_ways(bytes: &[u8]) -> (Vec<Token>, Vec<Token>) {
        let all = Tokens::new(bytes, 0..bytes.len())
            .filter(|t| t.kind == TokenKind::Preprocessor)
            .collect();
        let mut tokens = Tokens::new(bytes, 0..bytes.len());
        let fast = std::iter::from_fn(|| tokens.next_preprocessor_line()).collect();
        (all, fast)
    }

    #[test]
    fn next_brace_finds_the_braces_the_tokens_hold() {
        let text = "int a = 1'000; s = R\"x({)x\" + u8\"}\" + L'{' + u8R\"(})\";\n\
                    # define OPEN { \\\n  }\n x = y / z; /* { */ w = 0x1'F'; // }\n\
                    { c = '}'; } if (a) { b = \"\\\"{\"; } a#b {\n#x {\n}";
        let (all, fast) = braces_both_ways(text.as_bytes());
        assert_eq!(all.len(), 6);
        assert_eq!(fast, all);
        // Quotes after punctuation open literals, also after a line a
        // backslash continues; after an exponent's sign they may go on
        // with the word.
        let quotes = "f(\"{\", '}'); x = 1e+'a' { }\n y = 0x1p-'2'; z = u8\\\n\"{\";\n{ }";
        let (all, fast) = braces_both_ways(quotes.as_bytes());
        assert_eq!(all.len(), 2);
        assert_eq!(fast, all);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        for dir in ["c", "cxx", "kernels", "bench"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let bytes = std::fs::read(entry.unwrap().path()).unwrap();
                let (all, fast) = braces_both_ways(&bytes);
                assert_eq!(fast, all);
                let (all, fast) = preprocessor_lines_both_ways(&bytes);
                assert_eq!(fast, all);
            }
        }
    }

    proptest! {
        #[test]
        fn next_brace_agrees_with_the_tokens_on_any_text(pieces in proptest::collection::vec(
            prop_oneof![
                Just("{"), Just("}"), Just(" "), Just("\n"), Just("a"), Just("1"),
                Just("'"), Just("\""), Just("/"), Just("*"), Just("#"), Just("\\"),
                Just("R"), Just("u8"), Just("("), Just(")"), Just("x"), Just("."),
                Just("e+"), Just("'}'"), Just("\"{\""), Just("/* { */"), Just("// }\n"),
                Just("R\"d({)d\""),
            ],
            0..40,
        )) {
            let text = pieces.concat();
            let (all, fast) = braces_both_ways(text.as_bytes());
            prop_assert_eq!(fast, all);
            let (all, fast) = preprocessor_lines_both_ways(text.as_bytes());
            prop_assert_eq!(fast, all);
        }
    }

    fn kinds(src: &str) -> Vec<(TokenKind, &str)> {
        Tokens::new(src.as_bytes(), 0..src.len())
            .map(|t| (t.kind, &src[t.span]))
            .collect()
    }

    #[test]
    fn tokens_skip_comments_and_keep_literals_and_preprocessor_lines_whole() {
        let src = "int a = 1'000; /* { */ s = R\"x({)x\" + u8\"}\";\n  # if X \\\n  && Y\n{ c = '{'; } // }\n";
        let found = kinds(src);
        assert_eq!(
            found,
            [
                (TokenKind::Word, "int"),
                (TokenKind::Word, "a"),
                (TokenKind::Punct(b'='), "="),
                (TokenKind::Word, "1'000"),
                (TokenKind::Punct(b';'), ";"),
                (TokenKind::Word, "s"),
                (TokenKind::Punct(b'='), "="),
                (TokenKind::Literal, "R\"x({)x\""),
                (TokenKind::Punct(b'+'), "+"),
                (TokenKind::Literal, "u8\"}\""),
                (TokenKind::Punct(b';'), ";"),
                (TokenKind::Preprocessor, "# if X \\\n  && Y"),
                (TokenKind::Punct(b'{'), "{"),
                (TokenKind::Word, "c"),
                (TokenKind::Punct(b'='), "="),
                (TokenKind::Literal, "'{'"),
                (TokenKind::Punct(b';'), ";"),
                (TokenKind::Punct(b'}'), "}"),
            ]
        );
    }
}
