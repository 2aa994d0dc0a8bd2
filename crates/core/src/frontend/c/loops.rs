//! The iteration variables of the loops a loop directive is associated
//! with, read from their headers. Such loops have OpenMP's canonical form,
//! so a header says plainly whether it assigns a variable declared
//! elsewhere (`for (i = 0; ...)`) or declares its own
//! (`for (int i = 0; ...)`): no parse beyond the header is needed.

use crate::model::FoundSite;
use crate::source::SourceFile;

/// Records on each loop directive of `sites` the variables its loops
/// assign.
pub(crate) fn record(file: &SourceFile, sites: &mut [FoundSite]) {
    for site in sites {
        if let Some((block, depth)) = site.associated_loops() {
            let text =
                &file.bytes[block.start.min(file.bytes.len())..block.end.min(file.bytes.len())];
            site.loop_variables = assigned_variables(text, depth);
        }
    }
}

/// The variables the first `depth` loops of the nest in `text` assign
/// without declaring them, outermost first: `for ( <init> ; ...`, where
/// an init of the form `name = ...` assigns `name` and a declaration has a
/// type before the name. A loop whose header does not have that form
/// contributes nothing, and the nest ends at the first statement that is
/// no loop. Only the headers are read.
pub(crate) fn assigned_variables(text: &[u8], depth: usize) -> Vec<String> {
    let mut tokens = Tokens::new(text);
    let mut variables = Vec::new();
    let mut at = 0;
    for _ in 0..depth {
        if tokens.get(at) == Some(b"{") {
            match next_loop_in_block(&mut tokens, at) {
                Some(inner) => at = inner,
                None => break,
            }
        }
        if tokens.get(at) != Some(b"for") || tokens.get(at + 1) != Some(b"(") {
            break;
        }
        let header = at + 2;
        let assigns = matches!(
            (tokens.get(header), tokens.get(header + 1), tokens.get(header + 2)),
            (Some(name), Some(b"="), Some(next)) if is_identifier(name) && next != b"="
        );
        if assigns {
            let name = tokens.get(header).unwrap_or_default();
            variables.push(String::from_utf8_lossy(name).into_owned());
        }
        // Past the header's closing parenthesis.
        let mut open = 0usize;
        let mut i = at + 1;
        let end = loop {
            match tokens.get(i) {
                None => break None,
                Some(b"(") => open += 1,
                Some(b")") => {
                    open -= 1;
                    if open == 0 {
                        break Some(i);
                    }
                }
                Some(_) => {}
            }
            i += 1;
        };
        match end {
            Some(end) => at = end + 1,
            None => break,
        }
    }
    variables
}

/// In the brace block opening at token `open`, the `for` of the loop that
/// continues the nest: since OpenMP 5.0 statements may stand before and
/// after it (intervening code, which holds no loop), so it is the first
/// statement of the block's own level that starts with `for`.
fn next_loop_in_block(tokens: &mut Tokens, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open + 1;
    loop {
        let token = tokens.get(i)?;
        match token {
            b"{" | b"(" | b"[" => depth += 1,
            b"}" | b")" | b"]" if depth == 0 => return None,
            b"}" | b")" | b"]" => depth -= 1,
            b"for" if depth == 0 => {
                let starts_statement = matches!(tokens.get(i - 1), Some(b";" | b"{" | b"}"));
                if starts_statement && tokens.get(i + 1) == Some(b"(") {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

fn is_identifier(token: &[u8]) -> bool {
    token
        .first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && token
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// Identifiers, numbers and single punctuation characters, without
/// whitespace, comments and preprocessor lines (directives between the
/// loops of a nest, such as loop transformations, are pragma lines), read
/// as far as they are asked for.
struct Tokens<'a> {
    text: &'a [u8],
    at: usize,
    line_start: bool,
    read: Vec<&'a [u8]>,
}

impl<'a> Tokens<'a> {
    fn new(text: &'a [u8]) -> Tokens<'a> {
        Tokens {
            text,
            at: 0,
            line_start: true,
            read: Vec::new(),
        }
    }

    /// The token numbered `index`, if the text has that many.
    fn get(&mut self, index: usize) -> Option<&'a [u8]> {
        while self.read.len() <= index {
            let token = self.next_token()?;
            self.read.push(token);
        }
        Some(self.read[index])
    }

    fn next_token(&mut self) -> Option<&'a [u8]> {
        let text = self.text;
        let mut i = self.at;
        while i < text.len() {
            let b = text[i];
            if b == b'\n' {
                self.line_start = true;
                i += 1;
            } else if b.is_ascii_whitespace() {
                i += 1;
            } else if b == b'#' && self.line_start {
                // To the end of the line, over backslash continuations.
                while i < text.len() && text[i] != b'\n' {
                    if text[i] == b'\\' && text.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                    i += 1;
                }
            } else if text[i..].starts_with(b"//") {
                while i < text.len() && text[i] != b'\n' {
                    i += 1;
                }
            } else if text[i..].starts_with(b"/*") {
                i += 2;
                while i < text.len() && !text[i..].starts_with(b"*/") {
                    i += 1;
                }
                i += 2;
            } else {
                let start = i;
                if b.is_ascii_alphanumeric() || b == b'_' {
                    while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
                self.line_start = false;
                self.at = i;
                return Some(&text[start..i]);
            }
        }
        self.at = text.len();
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(text: &str, depth: usize) -> Vec<String> {
        assigned_variables(text.as_bytes(), depth)
    }

    #[test]
    fn c_loops_assign_or_declare() {
        assert_eq!(variables("for (i = 0; i < n; i++) a[i] = 0;", 1), ["i"]);
        assert!(variables("for (int i = 0; i < n; i++) ;", 1).is_empty());
        assert!(variables("for (long long i=0; i < n; i++) ;", 1).is_empty());
        assert!(variables("for (std::size_t i = 0; i < n; i++) ;", 1).is_empty());
        assert!(variables("for (auto &x : v) ;", 1).is_empty());
        assert_eq!(
            variables("for (it = v.begin(); it != v.end(); ++it) ;", 1),
            ["it"]
        );
    }

    #[test]
    fn c_nests_over_braces_comments_and_pragma_lines() {
        let nest = "for (i = 0; i < n; i++) /* rows */ {\n\
                    #pragma omp unroll \\\n  partial(2)\n\
                    for (j=0; j<m; j++)\n  for (k = 0; k < 2; k++) a[i][j] = 0;\n}";
        assert_eq!(variables(nest, 2), ["i", "j"]);
        assert_eq!(variables(nest, 3), ["i", "j", "k"]);
        assert_eq!(variables(nest, 1), ["i"]);
        let mixed = "for (int i = 0; i < n; i++)\n for (j = 0; j < m; j++) ;";
        assert_eq!(variables(mixed, 2), ["j"]);
        // Code before and after the next loop (OpenMP 5.0) is passed over.
        let imperfect =
            "for (i = 0; i < n; i++) { x = f(1); { y = 2; } for (j = 0; j < m; j++) ; x = 0; }";
        assert_eq!(variables(imperfect, 2), ["i", "j"]);
        // A block without a loop ends the nest.
        let shallow = "for (i = 0; i < n; i++) { x = 1; g(for_each); }";
        assert_eq!(variables(shallow, 2), ["i"]);
    }
}
