//! The iteration variables of the loops a loop directive is associated
//! with, read from their headers: every variable is
//! declared elsewhere, so every DO assigns one. Such loops have OpenMP's canonical form,
//! so a header says plainly whether it assigns a variable declared
//! elsewhere or declares its own: no parse beyond the header is needed.

use crate::model::FoundSite;
use crate::source::SourceFile;

/// Records on each loop directive of `sites` the variables its loops
/// assign.
pub(crate) fn record(file: &SourceFile, fixed_form: bool, sites: &mut [FoundSite]) {
    for site in sites {
        if let Some((block, depth)) = site.associated_loops() {
            let text =
                &file.bytes[block.start.min(file.bytes.len())..block.end.min(file.bytes.len())];
            site.loop_variables = assigned_variables(text, depth, fixed_form);
        }
    }
}

/// Fortran: `[label] [name:] do [label] [,] var = first, last [, step]`.
/// Every variable is declared elsewhere, so every DO assigns one. Blanks
/// are insignificant in fixed form and separate nothing that matters here
/// in free form, so the statement is read without them.
pub(crate) fn assigned_variables(text: &[u8], depth: usize, fixed_form: bool) -> Vec<String> {
    let statements = fortran_statements(text, fixed_form, depth);
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
    (is_name(name) && has_bounds).then(|| name.to_string())
}

/// A Fortran name: a letter, then letters, digits and underscores.
fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The first `count` statements of `text`, each joined over its
/// continuation lines, lowercase and without blanks; comment and directive
/// lines left out.
fn fortran_statements(text: &[u8], fixed_form: bool, count: usize) -> Vec<String> {
    let mut statements: Vec<String> = Vec::new();
    let mut continuing = false;
    let lines = text
        .split(|&b| b == b'\n')
        .map(|line| String::from_utf8_lossy(line.strip_suffix(b"\r").unwrap_or(line)).into_owned());
    for line in lines {
        let line = line.as_str();
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
                if statements.len() == count {
                    // The last one wanted is whole.
                    break;
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

    fn variables(text: &str, depth: usize, fixed_form: bool) -> Vec<String> {
        assigned_variables(text.as_bytes(), depth, fixed_form)
    }

    #[test]
    fn free_form_do_statements() {
        let nest = "  outer: do i3 = 0, n - 1 ! rows\n\
                    !$omp tile sizes(2)\n\
                    do 10 , J = f(1, 2), &\n      m\n  x = 1\n10 continue\n  end do outer\n";
        assert_eq!(variables(nest, 2, false), ["i3", "j"]);
        assert_eq!(variables(nest, 3, false), ["i3", "j"]);
        assert!(variables("  doi = f(1, 2)\n", 1, false).is_empty());
        assert!(variables("  do while (x < 3)\n", 1, false).is_empty());
    }

    #[test]
    fn fixed_form_ignores_blanks_and_columns() {
        let nest =
            "      DO 300 I = 1, N\nC inner loop\n      DO 300 J = 1,\n     &  M\n  300 CONTINUE\n";
        assert_eq!(variables(nest, 2, true), ["i", "j"]);
        let compact = "      DO300K=1,N\n      A(K) = 0\n  300 CONTINUE\n";
        assert_eq!(variables(compact, 1, true), ["k"]);
    }
}
