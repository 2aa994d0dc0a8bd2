//! Parameter lists of function heads that the grammar need not read.
//!
//! A narrowed function is read as its head, the statements its directives
//! own and its closing brace. Of the head, the reading needs the name and
//! where the body opens, never the parameters; yet in C++ they are the
//! costliest text of the head, as each `<` of a type splits the parser's
//! stack. A parameter list the token scan can tell is plain is left out,
//! and the grammar reads `T f() {`. Only text that can hold no syntax
//! error is left out: an error in it would be one that the parse of the
//! whole file reports, and the pieces must report it too.

use crate::language::c::lex::{self, Token, TokenKind, Tokens};
use crate::source::Span;
use smallvec::SmallVec;

/// A file's text, as the parse of its pieces is given it.
pub(super) struct Head<'a> {
    /// The file as written.
    pub file: &'a [u8],
    /// The text the grammar reads ([`super::prepare::Prepared::masked`]).
    pub masked: &'a [u8],
    /// The lines the grammar passes over, sorted.
    pub passed_over: &'a [Span],
}

impl Head<'_> {
    /// The text between the parentheses of the parameter list in `head` (a
    /// function's text up to and with the brace that opens its body), when
    /// the grammar may be given `()` instead: a list of plain parameters,
    /// after the function's name, before the body or, in C++, before a
    /// constructor's initializers or trailing qualifiers, and without a
    /// preprocessor line. `None` leaves the head as it is.
    pub(super) fn parameters_to_leave_out(&self, head: Span, cplusplus: bool) -> Option<Span> {
        // A head's tokens fit on the stack: a list on the heap for each
        // function moved where later allocations landed, onto fresh pages.
        let tokens: SmallVec<[Token; 64]> = Tokens::new(self.masked, head)
            .passing_over(self.passed_over)
            .collect();
        let all = Words {
            tokens: &tokens,
            masked: self.masked,
            cplusplus,
        };
        let body = tokens
            .len()
            .checked_sub(1)
            .filter(|&b| all.punct(b) == Some(b'{'))?;
        // Where the declarator ends: before the body, or before the first
        // lone `:` outside parentheses, which begins a constructor's
        // initializers.
        let mut end = body;
        if cplusplus {
            let mut depth = 0usize;
            for at in 0..body {
                match all.punct(at) {
                    Some(b'(') => depth += 1,
                    Some(b')') => depth = depth.saturating_sub(1),
                    Some(b':') if depth == 0 && !all.in_scope_operator(at) => {
                        end = at;
                        break;
                    }
                    _ => {}
                }
            }
            while end > 0
                && all
                    .word(end - 1)
                    .is_some_and(|w| TRAILING_QUALIFIERS.contains(&w))
            {
                end -= 1;
            }
        }
        let close = end.checked_sub(1).filter(|&c| all.punct(c) == Some(b')'))?;
        // The list is the head's one pair of parentheses: a head with more
        // (an attribute's, a declarator's) is read whole.
        let open = (0..close)
            .find(|&at| matches!(all.punct(at), Some(b'(' | b')')))
            .filter(|&at| all.punct(at) == Some(b'('))?;
        let name = all.word(open.checked_sub(1)?)?;
        let list = Words {
            tokens: &tokens[open + 1..close],
            ..all
        };
        let inside = tokens[open].span.end..tokens[close].span.start;
        // A conditional line in the list, even one this mask blanks, may
        // give another configuration other text.
        let preprocessed = self.file[inside.clone()].contains(&b'#')
            || !lex::spans_among(self.passed_over, inside.clone()).is_empty();
        (is_name(name) && list.are_plain_parameters() && !preprocessed).then_some(inside)
    }
}

/// Words after a C++ function's parameter list that qualify it.
const TRAILING_QUALIFIERS: [&[u8]; 5] = [b"const", b"volatile", b"override", b"final", b"noexcept"];

const QUALIFIERS: [&[u8]; 2] = [b"const", b"volatile"];

/// Types the grammars read as one word of their own.
const PRIMITIVES: [&[u8]; 7] = [
    b"void", b"bool", b"char", b"int", b"float", b"double", b"size_t",
];

/// Words that size an integer or a `double`, in any number and order.
const SIZES: [&[u8]; 4] = [b"signed", b"unsigned", b"long", b"short"];

/// A word the grammars read as a name, not as one of their own words.
fn is_name(word: &[u8]) -> bool {
    (word[0].is_ascii_alphabetic() || word[0] == b'_') && !super::nodes::is_keyword(word)
}

/// Tokens of a head, with the text they stand for.
#[derive(Clone, Copy)]
struct Words<'a> {
    tokens: &'a [Token],
    masked: &'a [u8],
    cplusplus: bool,
}

impl Words<'_> {
    /// Whether the tokens are plain parameters separated by commas.
    fn are_plain_parameters(&self) -> bool {
        let mut at = 0;
        loop {
            match self.parameter_at(at) {
                Some(end) if end == self.tokens.len() => return true,
                Some(end) if self.punct(end) == Some(b',') => at = end + 1,
                _ => return false,
            }
        }
    }

    /// Past the plain parameter at token `at`: qualifiers, one type and
    /// a declarator of pointers, a C++ reference and a name, each part
    /// optional but the type (`const std::vector<T> &items`,
    /// `double *const x`, `int`).
    fn parameter_at(&self, at: usize) -> Option<usize> {
        let mut at = self.qualifiers(at);
        at = self.qualifiers(self.type_at(at, true)?);
        while self.punct(at) == Some(b'*') {
            at = self.qualifiers(at + 1);
        }
        if self.cplusplus && self.punct(at) == Some(b'&') {
            at += 1;
            if self.punct(at) == Some(b'&') && self.touching(at - 1) {
                at += 1;
            }
        }
        if self.word(at).is_some_and(is_name) {
            at += 1;
        }
        Some(at)
    }

    /// Past the type at token `at`: a primitive type, sizes with or
    /// without one, `struct`, `union` or `enum` and a name, or a name;
    /// in C++ a name qualified by others (`a::b`, `std::size_t`) and, with `arguments`,
    /// given template arguments that are plain types themselves.
    fn type_at(&self, at: usize, arguments: bool) -> Option<usize> {
        let word = self.word(at)?;
        if SIZES.contains(&word) {
            let mut at = at;
            while self.word(at).is_some_and(|w| SIZES.contains(&w)) {
                at += 1;
            }
            return Some(match self.word(at) {
                Some(w) if PRIMITIVES.contains(&w) => at + 1,
                _ => at,
            });
        }
        if PRIMITIVES.contains(&word) {
            return Some(at + 1);
        }
        if matches!(word, b"struct" | b"union" | b"enum") {
            return self.word(at + 1).filter(|w| is_name(w)).map(|_| at + 2);
        }
        if !is_name(word) {
            return None;
        }
        let mut at = at + 1;
        if !self.cplusplus {
            return Some(at);
        }
        while self.punct(at) == Some(b':')
            && self.punct(at + 1) == Some(b':')
            && self.touching(at)
            && self
                .word(at + 2)
                .is_some_and(|w| is_name(w) || w == b"size_t")
        {
            at += 3;
        }
        if arguments && self.punct(at) == Some(b'<') {
            at += 1;
            loop {
                at = self.qualifiers(at);
                at = self.type_at(at, false)?;
                at = self.qualifiers(at);
                while self.punct(at) == Some(b'*') {
                    at = self.qualifiers(at + 1);
                }
                match self.punct(at)? {
                    b',' => at += 1,
                    b'>' => return Some(at + 1),
                    _ => return None,
                }
            }
        }
        Some(at)
    }

    fn qualifiers(&self, mut at: usize) -> usize {
        while self.word(at).is_some_and(|w| QUALIFIERS.contains(&w)) {
            at += 1;
        }
        at
    }

    fn word(&self, at: usize) -> Option<&[u8]> {
        let token = self.tokens.get(at)?;
        (token.kind == TokenKind::Word).then(|| &self.masked[token.span.clone()])
    }

    fn punct(&self, at: usize) -> Option<u8> {
        match self.tokens.get(at)?.kind {
            TokenKind::Punct(b) => Some(b),
            _ => None,
        }
    }

    /// Whether token `at` and the next touch, as the two `:` of `::`.
    fn touching(&self, at: usize) -> bool {
        (self.tokens.get(at + 1)).is_some_and(|next| next.span.start == self.tokens[at].span.end)
    }

    /// Whether the `:` at token `at` is half of a `::`.
    fn in_scope_operator(&self, at: usize) -> bool {
        let colon = |at: usize| self.punct(at) == Some(b':');
        (colon(at + 1) && self.touching(at)) || (at > 0 && colon(at - 1) && self.touching(at - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::has_syntax_error;
    use super::*;

    /// `head` as written and as the grammar reads it, the lines
    /// `passed_over` aside.
    fn written<'a>(head: &'a str, passed_over: &'a [Span]) -> Head<'a> {
        Head {
            file: head.as_bytes(),
            masked: head.as_bytes(),
            passed_over,
        }
    }

    /// What of `head` is left out, as text.
    fn left_out(head: &str, cplusplus: bool) -> Option<String> {
        written(head, &[])
            .parameters_to_leave_out(0..head.len(), cplusplus)
            .map(|span| head[span].to_string())
    }

    #[test]
    fn plain_parameter_lists_are_left_out() {
        for (head, list) in [
            ("void f(int n, double *x) {", "int n, double *x"),
            (
                "static void axpy(int n, double a, const double * x, double * y)\n{",
                "int n, double a, const double * x, double * y",
            ),
            (
                "unsigned long g(unsigned long long n, long double d, struct node *p) {",
                "unsigned long long n, long double d, struct node *p",
            ),
            ("int main(void) {", "void"),
            (
                "int h(double *const restricted) {",
                "double *const restricted",
            ),
        ] {
            assert_eq!(left_out(head, false).as_deref(), Some(list), "{head}");
            assert_eq!(left_out(head, true).as_deref(), Some(list), "{head}");
        }
        for (head, list) in [
            (
                "template <typename T>\nT parallel_sum(const std::vector<T> &items)\n{",
                "const std::vector<T> &items",
            ),
            (
                "explicit Field(std::size_t n) : values_(n)\n    {",
                "std::size_t n",
            ),
            ("long Histogram::total(int a) const\n{", "int a"),
            ("void Base::run(Mesh &&mesh) override {", "Mesh &&mesh"),
            (
                "void f(const std::map<K, V *> &m) {",
                "const std::map<K, V *> &m",
            ),
        ] {
            assert_eq!(left_out(head, true).as_deref(), Some(list), "{head}");
        }
    }

    #[test]
    fn other_heads_are_read_whole() {
        for head in [
            "int main() {",
            "void f(int n = 2) {",
            "void f(int (*g)(int)) {",
            "void f(int a[]) {",
            "void f(int x, g(int y)) {",
            "void f(...) {",
            "void f(int a, ...) {",
            "void f(int a b) {",
            "void f(int, ) {",
            "void f(auto x) {",
            "auto f(int x) -> int {",
            "void f(int x) noexcept(true) {",
            "decltype(x) f() {",
            "int f(a, b) int a; int b; {",
            "void f(std::vector<std::vector<int>> v) {",
            "void f(std::array<int, 3> a) {",
            "void f(a : : b x) {",
            "void f(int & & x) {",
            "void f(int x)\n#ifdef X\n{",
            "void f(int x\n#ifdef X\n, int y\n#endif\n) {",
            "T operator()(int x) {",
            "void f(int x) [[nodiscard]] {",
            "void f(std::string s = \"\") {",
        ] {
            assert_eq!(left_out(head, true), None, "{head}");
        }
        // C has no references, no qualified names and no templates, and
        // nothing but the body follows the list.
        for head in [
            "void f(int &x) {",
            "void f(a::b x) {",
            "void f(v<T> x) {",
            "void f(int x) const {",
        ] {
            assert_eq!(left_out(head, false), None, "{head}");
        }
    }

    #[test]
    fn a_passed_over_line_in_the_list_keeps_it() {
        let head = "void f(int x,\n#pragma omp x\n int y) {";
        let line = head.find('#').unwrap()..head.find(" int y").unwrap();
        assert_eq!(
            written(head, &[line]).parameters_to_leave_out(0..head.len(), true),
            None
        );
    }

    proptest::proptest! {
        /// What the scan leaves out of a head is a list the grammar reads
        /// without error, and leaving it out neither hides an error of
        /// the head nor makes one, in C and in C++.
        #[test]
        fn parameter_lists_left_out_hold_no_error(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "T", "_v2", "int", "void", "char", "double", "size_t", "bool",
                    "unsigned", "long", "short", "signed", "const", "volatile", "struct",
                    "enum", "union", "auto", "static", "this", "class", "typename", "int8_t",
                    "override", "noexcept", "*", "&", "::", ":", ",", "<", ">", "(", ")",
                    "[", "]", "=", "1", "...", " ",
                ]),
                1..12,
            ),
            cplusplus in proptest::bool::ANY,
        ) {
            let text = parts.concat();
            // Comments the parts open would take the rest of the code.
            if text.contains("//") || text.contains("/*") {
                return Ok(());
            }
            let head = format!("void f({text}) {{");
            let Some(list) = written(&head, &[]).parameters_to_leave_out(0..head.len(), cplusplus)
            else {
                return Ok(());
            };
            let has_error = |code: &str| has_syntax_error(code, cplusplus);
            let alone = format!("void f({}) {{ }}", &head[list.clone()]);
            proptest::prop_assert!(!has_error(&alone), "{alone}");
            let whole = format!("{head} }}");
            let without = format!("{}{} }}", &head[..list.start], &head[list.end..]);
            proptest::prop_assert_eq!(has_error(&whole), has_error(&without), "{}", whole);
        }

        /// Lists made as parameters are written, from parts each of which
        /// may be wrong for the language: what the scan leaves out of
        /// them the grammar reads without error.
        #[test]
        fn written_parameter_lists_left_out_hold_no_error(
            parameters in proptest::collection::vec(
                (
                    proptest::sample::select(vec!["", "const ", "volatile ", "const volatile "]),
                    proptest::sample::select(vec![
                        "int", "unsigned long", "long double", "short", "signed char", "bool",
                        "size_t", "std::size_t", "struct s", "enum e", "T", "a::b::c",
                        "std::vector<T>", "std::map<K, V *>", "v<const int>", "v<unsigned>",
                        "v<a::b>", "x::size_t", "auto", "int8_t", "long T",
                    ]),
                    proptest::sample::select(vec![
                        "", " *", " **", " *const", " * const *", " &", " &&", " *&", " const",
                    ]),
                    proptest::sample::select(vec!["", " x", " _y2", " int", " this", " size_t"]),
                ),
                1..5,
            ),
            cplusplus in proptest::bool::ANY,
        ) {
            let list: Vec<String> = (parameters.iter())
                .map(|(qualifiers, ty, declarator, name)| format!("{qualifiers}{ty}{declarator}{name}"))
                .collect();
            let head = format!("void f({}) {{", list.join(", "));
            let Some(span) = written(&head, &[]).parameters_to_leave_out(0..head.len(), cplusplus)
            else {
                return Ok(());
            };
            let code = format!("{head} }}");
            proptest::prop_assert_eq!(&head[span], list.join(", "));
            proptest::prop_assert!(!has_syntax_error(&code, cplusplus), "{}", code);
        }
    }
}
