//! The iteration variables of the loops a loop directive is associated
//! with, read from the loops' headers. Such loops have OpenMP's canonical
//! form, so the first part of a header says plainly whether it assigns a
//! variable declared elsewhere (`for (i = 0; ...)`) or declares its own
//! (`for (int i = 0; ...)`).

use super::reading::Reading;
use super::syntax::{Init, Kind, Syntax};
use crate::language::c::lex::{TokenKind, Tokens};
use crate::source::Span;

impl<S: Syntax> Reading<'_, S> {
    /// The variables the first `depth` loops of the nest that begins with
    /// `first` assign without declaring them, outermost first. A loop
    /// whose header does not begin with such an assignment contributes
    /// nothing; the nest ends where a loop's body is no loop, nor a brace
    /// block holding one at its own level.
    pub(super) fn loop_variables(&self, first: S::Node, depth: usize) -> Vec<String> {
        let mut variables = Vec::new();
        let mut statement = Some(first);
        for _ in 0..depth {
            let Some((init, body)) = statement.and_then(|s| self.syntax.for_loop(s)) else {
                break;
            };
            if let Init::Expression(expression) = init {
                variables.extend(assigned_variable(
                    self.syntax.text(),
                    self.syntax.passed_over(),
                    expression,
                ));
            }
            // Since OpenMP 5.0 statements may stand before and after the
            // loop that continues the nest in a brace block (intervening
            // code, which holds no loop).
            statement = match self.syntax.kind(body) {
                Kind::Compound => {
                    (self.syntax.statements(body)).find(|&s| self.syntax.for_loop(s).is_some())
                }
                _ => Some(body),
            };
        }
        variables
    }
}

/// The variable an expression assigns to when it is `name = ...`.
fn assigned_variable(text: &[u8], passed_over: &[Span], expression: Span) -> Option<String> {
    let mut tokens = Tokens::new(text, expression).passing_over(passed_over);
    let (name, assign, next) = (tokens.next()?, tokens.next()?, tokens.next()?);
    let identifier = name.kind == TokenKind::Word
        && (text[name.span.start].is_ascii_alphabetic() || text[name.span.start] == b'_');
    let name = &text[name.span];
    let assigns = assign.kind == TokenKind::Punct(b'=') && next.kind != TokenKind::Punct(b'=');
    (identifier && assigns).then(|| String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod tests {
    use crate::frontend::libclang::{self, Clang, CompileFlags};
    use crate::frontend::{reading::FrontEnd, tree_sitter_c::TreeSitterC};
    use crate::language::Language;
    use crate::source::SourceFile;

    /// The variables each loop directive of `text` records, read alike by
    /// both front ends.
    fn variables(language: Language, text: &str) -> Vec<Vec<String>> {
        assert!(libclang::available(), "{}", libclang::INSTALL_HINT);
        let name = match language {
            Language::Cpp => "loops.cpp",
            _ => "loops.c",
        };
        let file = SourceFile::new(name, text.as_bytes().to_vec(), language);
        let read = |front_end: &dyn FrontEnd| {
            let found = front_end.read(&file);
            assert!(
                found.diagnostics.iter().all(|d| !d.is_error()),
                "{}: {:?}",
                front_end.name(),
                found.diagnostics
            );
            (found.sites.into_iter())
                .filter(|s| s.associated_loops().is_some())
                .map(|s| s.loop_variables)
                .collect::<Vec<_>>()
        };
        let tree_sitter = read(&TreeSitterC::default());
        let clang = read(&Clang::new(CompileFlags::default()));
        assert_eq!(tree_sitter, clang, "the front ends read {text}");
        tree_sitter
    }

    #[test]
    fn c_loops_assign_or_declare() {
        let text = "void f(int n, int *a) {\n  int i;\n\
                    #pragma omp parallel for\n  for (i = 0; i < n; i++) a[i] = 0;\n\
                    #pragma omp parallel for\n  for (int j = 0; j < n; j++) a[j] = 0;\n\
                    #pragma omp parallel for\n  for (long long k=0; k < n; k++) a[k] = 0;\n\
                    #pragma omp parallel for\n  for (i=-1; i < n; i++) a[i + 1] = 0;\n\
                    #pragma omp parallel for\n  for (i += 0; i < n; i++) a[i] = 0;\n\
                    #pragma omp parallel for\n  for (i = 0, n = n; i < n; i++) a[i] = 0;\n\
                    #pragma omp for\n  for (; i < n; i++) a[i] = 0;\n}\n";
        let expected: Vec<Vec<&str>> = vec![
            vec!["i"],
            vec![],
            vec![],
            vec!["i"],
            vec![],
            vec!["i"],
            vec![],
        ];
        assert_eq!(variables(Language::C, text), expected);
    }

    #[test]
    fn cxx_loops_over_iterators_and_ranges() {
        let text = "#include <cstddef>\n\
                    struct It { int k; It &operator=(int v) { k = v; return *this; }\n\
                    bool operator!=(int v) const { return k != v; }\n\
                    It &operator++() { ++k; return *this; } };\n\
                    int a[8];\n\
                    void f(It it) {\n\
                    #pragma omp parallel for\n  for (it = 0; it != 8; ++it) a[it.k] = 0;\n\
                    #pragma omp parallel for\n  for (std::size_t i = 0; i < 8; i++) a[i] = 0;\n\
                    #pragma omp parallel for\n  for (int &x : a) x = 0;\n}\n";
        let expected: Vec<Vec<&str>> = vec![vec!["it"], vec![], vec![]];
        assert_eq!(variables(Language::Cpp, text), expected);
    }

    #[test]
    fn nests_over_braces_comments_and_pragma_lines() {
        let text = "void f(int n, int m, int a[][2]) {\n  int i, j, k;\n\
                    #pragma omp parallel for collapse(3)\n\
                    for (i = 0; i < n; i++) /* rows */ {\n\
                    #pragma omp unroll \\\n  partial(2)\n\
                    for (j=0; j<m; j++)\n  for (k = 0; k < 2; k++) a[i][k] = j;\n}\n\
                    #pragma omp parallel for collapse(2)\n\
                    for (int x = 0; x < n; x++)\n  for (j = 0; j < m; j++) a[x][0] = j;\n\
                    #pragma omp parallel for collapse(2)\n\
                    for (i = 0; i < n; i++) { k = n + 1; { k = 2; } for (j = 0; j < m; j++) a[i][0] = k; k = 0; }\n\
                    #pragma omp parallel for collapse(2)\n\
                    for (i = 0; i < n; i++) { k = 1; a[i][0] = k; }\n}\n";
        // The unrolled loop is a loop directive's too; code before and
        // after the next loop (OpenMP 5.0) is passed over; a block
        // without a loop ends the nest.
        let expected: Vec<Vec<&str>> = vec![
            vec!["i", "j", "k"],
            vec!["j"],
            vec!["j"],
            vec!["i", "j"],
            vec!["i"],
        ];
        assert_eq!(variables(Language::C, text), expected);
    }
}
