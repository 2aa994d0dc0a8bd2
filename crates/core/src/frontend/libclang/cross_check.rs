//! Reading a C or C++ file with both front ends and comparing what they
//! found: the same directives, each with the same block.
//!
//! A difference is explained when clang knows why: the directive lies in
//! a branch the preprocessor skips, a macro produces it, or one front end
//! reported a diagnostic at it (tree-sitter cannot read a loop header
//! split by `#if`). Explained differences are notes; any other is an
//! error showing both extents.

use super::{Clang, CompileFlags, Facts};
use crate::diagnostics::{Diagnostic, Severity};
use crate::frontend::reading::FrontEnd;
use crate::model::{Model, Site};
use crate::source::{SourceFile, Span};

/// The differences between the tree-sitter and the clang reading of
/// `file`; errors when clang cannot read it.
pub fn cross_check(file: &SourceFile, flags: &CompileFlags) -> Vec<Diagnostic> {
    let tree_sitter = crate::frontend::tree_sitter_c::TreeSitterC::default().analyse(file);
    let (clang, facts) = match Clang::new(flags.clone()).read_detailed(file) {
        Ok((model, facts)) => (crate::model::complete(file, model), facts),
        Err(errors) => return errors,
    };
    compare(file, &tree_sitter, &clang, &facts)
}

fn compare(
    file: &SourceFile,
    tree_sitter: &Model,
    clang: &Model,
    facts: &Facts,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let reported = |model: &Model, span: &Span| {
        model
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .any(|d| touches(&d.span, span))
    };
    let explanation = |directive: &Span, difference: &Span| -> Option<&'static str> {
        let overlaps = |s: &Span| s.start < difference.end && difference.start < s.end;
        if facts
            .skipped
            .iter()
            .any(|s| s.contains(&directive.start) || overlaps(s))
        {
            Some("the preprocessor skips code here with these flags, and clang with it")
        } else if only_preprocessor_lines(file, difference) {
            Some(
                "the blocks differ by conditional lines only: tree-sitter's block holds every \
                 branch, clang's the code compiled",
            )
        } else if facts.macro_uses.iter().any(|u| touches(u, directive)) {
            Some("a macro produces this directive; only clang sees it")
        } else if reported(tree_sitter, directive) {
            Some("tree-sitter reports a problem at this directive")
        } else if reported(clang, directive) {
            Some("clang reports a problem at this directive")
        } else {
            None
        }
    };
    for site in &tree_sitter.sites {
        let other = clang
            .sites
            .iter()
            .find(|s| s.span == site.span && s.form == site.form);
        let diagnostic = match other {
            Some(other) if other.block == site.block => continue,
            Some(other) => {
                let difference = symmetric_difference(&site.block, &other.block);
                disagreement(file, site, explanation(&site.span, &difference))
                    .with_secondary(extent(site), "tree-sitter's block")
                    .with_secondary(extent(other), "clang's block")
            }
            None => disagreement(file, site, explanation(&site.span, &site.span))
                .with_secondary(extent(site), "only tree-sitter reads this directive"),
        };
        found.push(diagnostic);
    }
    for site in &clang.sites {
        if tree_sitter
            .sites
            .iter()
            .any(|s| s.span == site.span && s.form == site.form)
        {
            continue;
        }
        found.push(
            disagreement(file, site, explanation(&site.span, &site.span))
                .with_secondary(extent(site), "only clang reads this directive"),
        );
    }
    found.sort_by_key(|d| d.span.start);
    found
}

fn disagreement(file: &SourceFile, site: &Site, explanation: Option<&str>) -> Diagnostic {
    let text = file.text(site.span.clone()).trim().to_string();
    let what = if text.is_empty() {
        "an implicit section".to_string()
    } else {
        format!("`{text}`")
    };
    let mut diagnostic = Diagnostic::error(
        site.span.clone(),
        format!("the front ends read {what} differently"),
        "this directive",
    );
    match explanation {
        Some(why) => {
            diagnostic.severity = Severity::Note;
            diagnostic.with_note(format!("explained: {why}"))
        }
        None => diagnostic.with_note(
            "tree-sitter and clang must agree on every directive's block; one of them reads \
             this file wrongly",
        ),
    }
}

/// Whether `span` holds nothing but white space and whole preprocessor
/// lines: a block that holds the `#if`/`#endif` around its code and one
/// that does not are the same code to the compiler.
fn only_preprocessor_lines(file: &SourceFile, span: &Span) -> bool {
    !span.is_empty()
        && file.text(span.clone()).lines().all(|line| {
            let line = line.trim_start();
            line.is_empty() || line.starts_with('#')
        })
}

/// What a site covers: its directive and block.
fn extent(site: &Site) -> Span {
    match &site.block {
        Some(block) => site.span.start.min(block.start)..block.end.max(site.span.end),
        None => site.span.clone(),
    }
}

/// The smallest range holding every byte one block has and the other not.
fn symmetric_difference(a: &Option<Span>, b: &Option<Span>) -> Span {
    match (a, b) {
        (Some(a), Some(b)) => {
            let starts = a.start.min(b.start)..a.start.max(b.start);
            let ends = a.end.min(b.end)..a.end.max(b.end);
            match (starts.is_empty(), ends.is_empty()) {
                (false, false) => starts.start..ends.end,
                (false, true) => starts,
                (true, _) => ends,
            }
        }
        (Some(s), None) | (None, Some(s)) => s.clone(),
        (None, None) => 0..0,
    }
}

/// Whether two spans share a byte (an empty span counts as its first byte).
fn touches(a: &Span, b: &Span) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end.max(a.start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::directive::{parse_directive, Sentinel};
    use crate::language::Language;
    use crate::model::DirectiveForm;

    const TEXT: &str = "#pragma omp parallel\n{ a(); }\nb();\n";

    fn model(block: Span) -> Model {
        let directive = parse_directive("parallel", Sentinel::Omp, Language::C)
            .unwrap()
            .directive;
        Model {
            sites: vec![Site {
                form: DirectiveForm::Pragma,
                span: 0..20,
                lines: 0..21,
                directive,
                block: Some(block),
                end_site: None,
                loop_variables: Vec::new(),
                unit: None,
                parent: None,
                failed: false,
            }],
            ..Model::default()
        }
    }

    fn file() -> SourceFile {
        SourceFile::new("t.c", TEXT.as_bytes().to_vec(), Language::C)
    }

    #[test]
    fn blocks_that_differ_are_an_error_showing_both() {
        let found = compare(&file(), &model(21..29), &model(21..35), &Facts::default());
        assert_eq!(found.len(), 1);
        let error = &found[0];
        assert!(error.is_error());
        let labels: Vec<(Span, &str)> = error
            .secondary
            .iter()
            .map(|(s, l)| (s.clone(), l.as_str()))
            .collect();
        assert_eq!(
            labels,
            [(0..29, "tree-sitter's block"), (0..35, "clang's block")]
        );
    }

    #[test]
    fn a_difference_in_a_skipped_branch_is_explained() {
        let facts = Facts {
            skipped: std::iter::once(29..35).collect(),
            macro_uses: vec![],
        };
        let found = compare(&file(), &model(21..29), &model(21..35), &facts);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Note);
        assert!(found[0].notes[0].starts_with("explained"));
        assert!(compare(&file(), &model(21..29), &model(21..29), &facts).is_empty());
    }

    #[test]
    fn blocks_differing_by_conditional_lines_only_are_explained() {
        let text = "#pragma omp parallel\n#ifdef A\n  { a(); }\n#endif\nb();\n";
        let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
        let at = |needle: &str| text.find(needle).unwrap();
        assert!(only_preprocessor_lines(&file, &(at("#ifdef")..at("{"))));
        assert!(only_preprocessor_lines(&file, &(at("}") + 1..at("b();"))));
        assert!(!only_preprocessor_lines(&file, &(at("#ifdef")..at("a();"))));
        assert!(!only_preprocessor_lines(&file, &(0..0)));
    }
}
