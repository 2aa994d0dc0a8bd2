//! From a parsed translation unit to the model: the directives written in
//! the file and those macros produce, read by the C reading over the
//! clang view of the tree.

use super::syntax::ClangSyntax;
use super::tree::Tree;
use crate::frontend::c_shared::{self, After, Syntax};
use crate::frontend::lexical::scan::{self, RawDirective, RawKind};
use crate::model::{CodeRegions, Found};
use crate::source::{SourceFile, Span};
use pomp_clang_bindings::TranslationUnit;

/// What the clang front end saw besides the model.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The ranges the preprocessor skipped.
    pub skipped: Vec<Span>,
    /// Where directives come from macros: each use of such a macro.
    pub macro_uses: Vec<Span>,
}

/// Read the model of `file` from its parse.
pub fn read(file: &SourceFile, unit: &TranslationUnit, regions: &CodeRegions) -> (Found, Facts) {
    let skipped = unit.skipped_ranges();
    let in_skipped = |at: usize| {
        let i = skipped.partition_point(|s| s.start <= at);
        i > 0 && skipped[i - 1].contains(&at)
    };
    // A library header's code (in a preprocessed file) is left as the
    // library wrote it.
    let ours = |at: usize| !in_skipped(at) && !file.in_library_header(at);
    // `_Pragma` in a `#define` is found where the macro is used.
    let raw: Vec<RawDirective> = scan::scan(&file.bytes)
        .directives
        .into_iter()
        .filter(|d| !matches!(d.kind, RawKind::InMacro { .. }) && ours(d.span.start))
        .collect();
    let spans: Vec<Span> = raw.iter().map(|d| d.span.clone()).collect();
    let tree = Tree::new(unit, &file.bytes, &skipped, &spans);
    let syntax = ClangSyntax::new(file, &tree);
    let produced = super::macros::directives(&tree);
    let macro_uses = produced.iter().map(|p| p.use_site.clone()).collect();
    let mut found = Found::default();
    let mut directives = raw;
    for p in produced {
        found.diagnostics.push(p.diagnostic);
        match p.directive {
            Some(raw) => directives.push(raw),
            // Left as the macro writes it: what it may apply to is kept
            // free of inserted code.
            None => {
                if let After::Statement(code) = syntax.statement_after(p.use_site.start, &[]) {
                    let end = syntax.extent(code).end;
                    found.no_insert.push(p.use_site.start..end);
                }
            }
        }
    }
    directives.sort_by_key(|d| d.span.start);
    let parses: Vec<c_shared::Parse> = (directives.iter())
        .map(|d| c_shared::parse_raw(d, file.language))
        .collect();
    let mentions: Vec<Span> = (c_shared::lock_mentions(&file.bytes).into_iter())
        .filter(|m| !file.in_library_header(m.start))
        .collect();
    let mut model = c_shared::read(&syntax, &directives, &parses, &mentions, found);
    let roots = (0..tree.nodes.len()).filter(|&n| tree.nodes[n].parent.is_none());
    c_shared::regions::read(&mut model, &syntax, roots, regions);
    // Code inserted outside the conditional branch of its directive is put
    // under the branch's condition again, whichever front end read it.
    c_shared::conditions::record_conditions(file, &mut model);
    model.diagnostics.sort_by_key(|d| d.span.start);
    (
        model,
        Facts {
            skipped,
            macro_uses,
        },
    )
}
