//! Function definitions and lambdas as regions (`--regions`), read from
//! clang's tree: where each body's code begins and ends. As in the
//! tree-sitter front end, only the body's braces matter; every other way
//! out is left to the output.

use super::syntax::{ClangSyntax, FUNCTION_KINDS};
use super::tree::Tree;
use crate::frontend::c_reading::{qualified_name, Syntax};
use crate::model::{CodeRegions, Function, FunctionKind};
use clang_sys::*;

/// The definitions `regions` asks for, in file order.
pub(super) fn read(syntax: &ClangSyntax, tree: &Tree, regions: CodeRegions) -> Vec<Function> {
    let mut functions = Vec::new();
    if !regions.any() {
        return functions;
    }
    let bytes = syntax.text();
    for node in 0..tree.nodes.len() {
        let kind = tree.kind(node);
        let wanted = match kind {
            CXCursor_LambdaExpr => regions.lambdas,
            _ => regions.functions && FUNCTION_KINDS.contains(&kind),
        };
        if !wanted || tree.nodes[node].span.is_none() {
            continue;
        }
        if kind != CXCursor_LambdaExpr && !tree.unit.is_definition(&tree.nodes[node]) {
            continue;
        }
        let Some(&body) = (tree.children[node].iter())
            .rev()
            .find(|&&c| tree.kind(c) == CXCursor_CompoundStmt)
        else {
            continue;
        };
        let span = tree.span(node);
        let body = tree.span(body);
        if body.is_empty() || bytes[body.start] != b'{' || bytes[body.end - 1] != b'}' {
            continue;
        }
        if crate::frontend::c::compile_time_head(&bytes[span.start..body.start]) {
            continue;
        }
        let (name, kind) = match kind {
            CXCursor_LambdaExpr => {
                let outer =
                    std::iter::successors(tree.nodes[node].parent, |&p| tree.nodes[p].parent)
                        .find(|&p| FUNCTION_KINDS.contains(&tree.kind(p)))
                        .map_or("<file>".to_string(), |p| qualified_name(syntax, p));
                let line = syntax.file().line_of(span.start);
                (format!("{outer}::lambda@{line}"), FunctionKind::Lambda)
            }
            _ => {
                let name = qualified_name(syntax, node);
                let top_level = (tree.unit.semantic_parent(&tree.nodes[node]))
                    .is_none_or(|p| p.kind == CXCursor_TranslationUnit);
                match name.as_str() {
                    "main" if top_level => (name, FunctionKind::Program),
                    _ => (name, FunctionKind::Function),
                }
            }
        };
        functions.push(Function {
            name,
            kind,
            span,
            entry: body.start + 1,
            exit: body.end - 1,
            indent: String::new(),
        });
    }
    functions.sort_by_key(|f| f.span.start);
    functions
}
