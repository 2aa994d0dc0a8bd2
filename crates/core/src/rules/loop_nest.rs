//! The iteration variables of a loop nest, read from its text. A loop
//! associated with a loop directive has OpenMP's canonical form, so its
//! header says plainly whether it assigns a variable declared elsewhere
//! (`for (i = 0; ...)`, `do i = 1, n`) or declares its own
//! (`for (int i = 0; ...)`): no parse beyond the header is needed.

use crate::language::Language;
use crate::source::{SourceFile, Span};

/// The variables the first `depth` loops of the nest in `block` assign
/// without declaring them, outermost first. A loop whose header does not
/// have that form contributes nothing, and the nest ends at the first
/// statement that is no loop.
pub fn assigned_iteration_variables(file: &SourceFile, block: &Span, depth: usize) -> Vec<String> {
    let text = &file.bytes[block.start.min(file.bytes.len())..block.end.min(file.bytes.len())];
    match file.language {
        Language::FortranFree => fortran(text, depth, false),
        Language::FortranFixed => fortran(text, depth, true),
        _ => c(text, depth),
    }
}

/// C and C++: `for ( <init> ; ...`, where an init of the form
/// `name = ...` assigns `name`; a declaration has a type before the name.
fn c(text: &[u8], depth: usize) -> Vec<String> {
    let tokens = c_tokens(text);
    let mut variables = Vec::new();
    let mut at = 0;
    for _ in 0..depth {
        if tokens.get(at) == Some(&&b"{"[..]) {
            at += 1;
        }
        if tokens.get(at) != Some(&&b"for"[..]) || tokens.get(at + 1) != Some(&&b"("[..]) {
            break;
        }
        let header = at + 2;
        let assigns = matches!(
            (tokens.get(header), tokens.get(header + 1), tokens.get(header + 2)),
            (Some(name), Some(eq), Some(next))
                if is_identifier(name) && *eq == b"=" && *next != b"="
        );
        if assigns {
            variables.push(String::from_utf8_lossy(tokens[header]).into_owned());
        }
        // Past the header's closing parenthesis.
        let mut open = 0usize;
        let mut end = None;
        for (i, token) in tokens.iter().enumerate().skip(at + 1) {
            match *token {
                b"(" => open += 1,
                b")" => {
                    open -= 1;
                    if open == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        match end {
            Some(end) => at = end + 1,
            None => break,
        }
    }
    variables
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
/// loops of a nest, such as loop transformations, are pragma lines).
fn c_tokens(text: &[u8]) -> Vec<&[u8]> {
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < text.len() {
        let b = text[i];
        if b == b'\n' {
            line_start = true;
            i += 1;
        } else if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'#' && line_start {
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
        } else if b.is_ascii_alphanumeric() || b == b'_' {
            let start = i;
            while i < text.len() && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                i += 1;
            }
            tokens.push(&text[start..i]);
            line_start = false;
        } else {
            tokens.push(&text[i..i + 1]);
            line_start = false;
            i += 1;
        }
        if tokens.len() > 4096 {
            // A loop nest's headers are short; the body is not needed.
            break;
        }
    }
    tokens
}

/// Fortran: `[label] [name:] do [label] [,] var = first, last [, step]`.
/// Every variable is declared elsewhere, so every DO assigns one. Blanks
/// are insignificant in fixed form and separate nothing that matters here
/// in free form, so the statement is read without them.
fn fortran(text: &[u8], depth: usize, fixed_form: bool) -> Vec<String> {
    let statements = fortran_statements(text, fixed_form);
    let mut variables = Vec::new();
    for statement in statements.iter().take(depth) {
        match do_variable(statement) {
            Some(variable) => variables.push(variable),
            None => break,
        }
    }
    variables
}

/// The iteration variable of a DO statement, lowercase and without blanks.
fn do_variable(statement: &str) -> Option<String> {
    let s = statement.trim_start_matches(|c: char| c.is_ascii_digit());
    // A construct name: `outer:do ...` (not `::`).
    let s = match s.find(':') {
        Some(colon)
            if !s[colon..].starts_with("::")
                && s[..colon]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            &s[colon + 1..]
        }
        _ => s,
    };
    let s = s.strip_prefix("do")?;
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit());
    let s = s.strip_prefix(',').unwrap_or(s);
    let equals = s.find('=')?;
    let name = &s[..equals];
    // `do i = 1, n` has a comma after the `=` outside parentheses; an
    // assignment `doi = f(1, 2)` does not.
    let mut open = 0i32;
    let has_bounds = s[equals + 1..].chars().any(|c| {
        match c {
            '(' => open += 1,
            ')' => open -= 1,
            ',' if open == 0 => return true,
            _ => {}
        }
        false
    });
    (is_identifier(name.as_bytes()) && has_bounds).then(|| name.to_string())
}

/// The statements of `text`, each joined over its continuation lines,
/// lowercase and without blanks; comment and directive lines left out.
fn fortran_statements(text: &[u8], fixed_form: bool) -> Vec<String> {
    let text = String::from_utf8_lossy(text);
    let mut statements: Vec<String> = Vec::new();
    let mut continuing = false;
    for line in text.lines() {
        let (code, continues_next, continuation) = if fixed_form {
            let first = line.chars().next();
            if matches!(first, Some('c' | 'C' | '*' | '!')) || line.trim().is_empty() {
                continue;
            }
            let chars: Vec<char> = line.chars().take(72).collect();
            let column6 = chars.get(5).copied().unwrap_or(' ');
            let continuation = !matches!(column6, ' ' | '0') && !line.starts_with('\t');
            let code: String = if continuation {
                chars.iter().skip(6).collect()
            } else {
                chars.iter().collect()
            };
            (strip_comment(&code), false, continuation)
        } else {
            let code = strip_comment(line);
            let trimmed = code.trim();
            if trimmed.is_empty() {
                continue;
            }
            let continues_next = trimmed.ends_with('&');
            let code = trimmed.trim_end_matches('&');
            let code = if continuing {
                code.trim_start().trim_start_matches('&')
            } else {
                code
            };
            (code.to_string(), continues_next, continuing)
        };
        let compact: String = code
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| c.to_ascii_lowercase())
            .collect();
        match statements.last_mut() {
            Some(last) if continuation => last.push_str(&compact),
            _ => {
                if compact.is_empty() {
                    continue;
                }
                // Several statements on a line: only the first can be a DO
                // of the nest, the rest are its body.
                let first = compact.split(';').next().unwrap_or_default().to_string();
                statements.push(first);
            }
        }
        continuing = continues_next;
    }
    statements
}

/// The line without a trailing `!` comment (DO statements hold no strings).
fn strip_comment(line: &str) -> String {
    match line.find('!') {
        Some(at) => line[..at].to_string(),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variables(language: Language, text: &str, depth: usize) -> Vec<String> {
        let file = SourceFile::new("t", text.as_bytes().to_vec(), language);
        assigned_iteration_variables(&file, &(0..text.len()), depth)
    }

    #[test]
    fn c_loops_assign_or_declare() {
        assert_eq!(
            variables(Language::C, "for (i = 0; i < n; i++) a[i] = 0;", 1),
            ["i"]
        );
        assert!(variables(Language::C, "for (int i = 0; i < n; i++) ;", 1).is_empty());
        assert!(variables(Language::C, "for (long long i=0; i < n; i++) ;", 1).is_empty());
        assert!(variables(Language::Cpp, "for (std::size_t i = 0; i < n; i++) ;", 1).is_empty());
        assert!(variables(Language::Cpp, "for (auto &x : v) ;", 1).is_empty());
        assert_eq!(
            variables(
                Language::Cpp,
                "for (it = v.begin(); it != v.end(); ++it) ;",
                1
            ),
            ["it"]
        );
    }

    #[test]
    fn c_nests_over_braces_comments_and_pragma_lines() {
        let nest = "for (i = 0; i < n; i++) /* rows */ {\n\
                    #pragma omp unroll \\\n  partial(2)\n\
                    for (j=0; j<m; j++)\n  for (k = 0; k < 2; k++) a[i][j] = 0;\n}";
        assert_eq!(variables(Language::C, nest, 2), ["i", "j"]);
        assert_eq!(variables(Language::C, nest, 3), ["i", "j", "k"]);
        assert_eq!(variables(Language::C, nest, 1), ["i"]);
        let mixed = "for (int i = 0; i < n; i++)\n for (j = 0; j < m; j++) ;";
        assert_eq!(variables(Language::C, mixed, 2), ["j"]);
        // The second loop is not directly nested: the nest ends.
        let imperfect = "for (i = 0; i < n; i++) { x = 1; for (j = 0; j < m; j++) ; }";
        assert_eq!(variables(Language::C, imperfect, 2), ["i"]);
    }

    #[test]
    fn free_form_do_statements() {
        let nest = "  outer: do i3 = 0, n - 1 ! rows\n\
                    !$omp tile sizes(2)\n\
                    do 10 , J = f(1, 2), &\n      m\n  x = 1\n10 continue\n  end do outer\n";
        assert_eq!(variables(Language::FortranFree, nest, 2), ["i3", "j"]);
        assert_eq!(variables(Language::FortranFree, nest, 3), ["i3", "j"]);
        assert!(variables(Language::FortranFree, "  doi = f(1, 2)\n", 1).is_empty());
        assert!(variables(Language::FortranFree, "  do while (x < 3)\n", 1).is_empty());
    }

    #[test]
    fn fixed_form_ignores_blanks_and_columns() {
        let nest =
            "      DO 300 I = 1, N\nC inner loop\n      DO 300 J = 1,\n     &  M\n  300 CONTINUE\n";
        assert_eq!(variables(Language::FortranFixed, nest, 2), ["i", "j"]);
        let compact = "      DO300K=1,N\n      A(K) = 0\n  300 CONTINUE\n";
        assert_eq!(variables(Language::FortranFixed, compact, 1), ["k"]);
    }
}
