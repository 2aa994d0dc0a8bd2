//! Directives that macros produce: `_Pragma("omp ...")` in a `#define`,
//! wherever the macro is defined, seen where it is used.
//!
//! Such a use can be rewritten as the directive it produces when the
//! macro expands to that `_Pragma` and nothing else, and its text is known
//! at the use: written in the definition, or an argument of the use that
//! the macro turns into the string (`#define OMP(x) _Pragma(#x)`). Every
//! other use is reported and left alone, with the code it applies to.

use super::tree::Tree;
use crate::diagnostics::Diagnostic;
use crate::frontend::lexical::scan::{self, RawDirective, RawKind};
use crate::source::Span;
use clang_sys::CXCursor_MacroExpansion;
use pomp_clang_bindings::Class;

/// A use of a macro that produces a directive.
pub struct Produced {
    pub name: String,
    /// The macro's name and arguments as written in the file.
    pub use_site: Span,
    /// The directive, with the use as its span, when the use can be
    /// rewritten as it.
    pub directive: Option<RawDirective>,
    pub diagnostic: Diagnostic,
}

/// Every use in the file of a macro whose expansion holds `_Pragma`.
pub fn directives(tree: &Tree) -> Vec<Produced> {
    let mut found: Vec<Produced> = Vec::new();
    for (index, node) in tree.nodes.iter().enumerate() {
        if node.kind != CXCursor_MacroExpansion || node.class != Class::Other {
            continue;
        }
        let Some(use_site) = node.span.clone() else {
            continue;
        };
        // Macros used in the arguments of another are part of that use.
        let inside_previous = found
            .last()
            .is_some_and(|p| p.use_site.end > use_site.start);
        if inside_previous || tree.is_hidden(use_site.start) {
            continue;
        }
        let Some((parameters, body)) = tree.macro_body(index) else {
            continue;
        };
        if !body.iter().any(|t| t == "_Pragma") {
            continue;
        }
        let name = tree.unit.spelling(node);
        let defined_at = tree
            .unit
            .referenced(node)
            .map(|d| tree.unit.place(&d))
            .unwrap_or_default();
        let written = &tree.bytes[use_site.clone()];
        if let Some(produced) = produced(&name, parameters.as_deref(), &body, written, &use_site) {
            found.push(produced.reported(&defined_at));
        }
    }
    found
}

impl Produced {
    fn reported(mut self, defined_at: &str) -> Produced {
        let name = &self.name;
        self.diagnostic = self
            .diagnostic
            .with_note(format!("`{name}` is defined at {defined_at}"));
        self
    }
}

/// What the use `written` of macro `name` produces, if an OpenMP or POMP
/// directive.
fn produced(
    name: &str,
    parameters: Option<&[String]>,
    body: &[String],
    written: &[u8],
    use_site: &Span,
) -> Option<Produced> {
    let whole_body = body.len() == 4 && body[0] == "_Pragma" && body[1] == "(" && body[3] == ")";
    // `_Pragma("omp ...")` with the text in the definition.
    let literal = body
        .windows(4)
        .find(|w| w[0] == "_Pragma" && w[1] == "(" && w[2].ends_with('"') && w[3] == ")")
        .and_then(|w| directive_of(format!("_Pragma({})", w[2]).as_bytes()));
    // `_Pragma(#x)`: the text is the argument, made a string.
    let stringized = match (parameters, body) {
        (Some(parameters), [pragma, open, hash, parameter, close])
            if pragma == "_Pragma" && open == "(" && hash == "#" && close == ")" =>
        {
            let position = parameters.iter().position(|p| p == parameter)?;
            let argument = arguments(written)?.get(position)?.clone();
            Some(directive_of(format!("#pragma {argument}\n").as_bytes()))
        }
        _ => None,
    };
    let (text, pomp, rewritable) = match (literal, stringized) {
        (Some((text, pomp)), _) => (Some(text), pomp, whole_body),
        (None, Some(Some((text, pomp)))) => (Some(text), pomp, true),
        // An argument that is no OpenMP directive: another pragma.
        (None, Some(None)) => return None,
        (None, None) => (None, false, false),
    };
    let sentinel = if pomp { "pomp" } else { "omp" };
    let diagnostic = match (&text, rewritable) {
        (Some(text), true) => Diagnostic::note(
            use_site.clone(),
            format!("OpenMP directive produced by macro `{name}`, instrumented where it is used"),
            format!("`{name}` expands to `#pragma {sentinel} {text}` here"),
        ),
        (Some(text), false) => Diagnostic::warning(
            use_site.clone(),
            format!("OpenMP directive produced by macro `{name}` is not instrumented"),
            format!("`{name}` expands to `#pragma {sentinel} {text}` and more here"),
        )
        .with_note(
            "pomp rewrites a macro's use only when the macro expands to the directive alone; \
             the code it applies to is left uninstrumented",
        )
        .with_note(format!(
            "write the directive as `#pragma {sentinel} {text}` where `{name}` is used to have \
             it measured"
        )),
        (None, _) => Diagnostic::warning(
            use_site.clone(),
            format!("macro `{name}` may produce an OpenMP directive; not instrumented"),
            format!("`{name}` expands to a `_Pragma` pomp cannot read here"),
        )
        .with_note(
            "its text is built by further macros; the code it may apply to is left \
             uninstrumented",
        ),
    };
    Some(Produced {
        name: name.to_string(),
        use_site: use_site.clone(),
        directive: text.filter(|_| rewritable).map(|text| RawDirective {
            kind: RawKind::PragmaOperator,
            span: use_site.clone(),
            text,
            pomp,
        }),
        diagnostic,
    })
}

/// The directive text and whether it is a POMP one, if `source` holds an
/// OpenMP or POMP directive.
fn directive_of(source: &[u8]) -> Option<(String, bool)> {
    let found = scan::scan(source);
    let [directive] = found.directives.as_slice() else {
        return None;
    };
    Some((directive.text.clone(), directive.pomp))
}

/// The arguments of a function-like macro's use `NAME ( a, b )`, each
/// with its white space collapsed as `#` does.
fn arguments(written: &[u8]) -> Option<Vec<String>> {
    let text = std::str::from_utf8(written).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let mut arguments = Vec::new();
    let mut depth = 0;
    let mut current = String::new();
    for c in text[open + 1..close].chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                arguments.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    arguments.push(current);
    Some(
        arguments
            .iter()
            .map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;

    fn strings(tokens: &[&str]) -> Vec<String> {
        tokens.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn a_macro_that_is_the_directive_alone_is_rewritable() {
        let body = strings(&["_Pragma", "(", "\"omp parallel for\"", ")"]);
        let p = produced("PARFOR", None, &body, b"PARFOR", &(10..16)).unwrap();
        let directive = p.directive.unwrap();
        assert_eq!(directive.text, "parallel for");
        assert_eq!(directive.span, 10..16);
        assert_eq!(p.diagnostic.severity, Severity::Note);
    }

    #[test]
    fn a_stringized_argument_is_the_directive_text() {
        let body = strings(&["_Pragma", "(", "#", "x", ")"]);
        let parameters = strings(&["x"]);
        let written = b"OMP( omp  parallel\n num_threads(f(1, 2)) )";
        let p = produced(
            "OMP",
            Some(&parameters),
            &body,
            written,
            &(0..written.len()),
        )
        .unwrap();
        assert_eq!(p.directive.unwrap().text, "parallel num_threads(f(1, 2))");
        // Another pragma through the same helper is none of pomp's business.
        assert!(produced(
            "OMP",
            Some(&parameters),
            &body,
            b"OMP(GCC unroll 4)",
            &(0..17)
        )
        .is_none());
    }

    #[test]
    fn a_macro_that_expands_to_more_is_reported_and_left_alone() {
        let body = strings(&[
            "_Pragma",
            "(",
            "\"omp parallel for\"",
            ")",
            "for",
            "(",
            ";",
            ";",
            ")",
        ]);
        let p = produced("LOOP", None, &body, b"LOOP", &(0..4)).unwrap();
        assert!(p.directive.is_none());
        assert_eq!(p.diagnostic.severity, Severity::Warning);
        let body = strings(&["_Pragma", "(", "OMP_TEXT", ")"]);
        let p = produced("INDIRECT", None, &body, b"INDIRECT", &(0..8)).unwrap();
        assert!(p.directive.is_none());
        assert!(p.diagnostic.message.contains("may produce"));
    }
}
