//! Code regions beyond OpenMP (`--regions`), read once for both C front
//! ends: function definitions and lambdas, where each body's code begins
//! and ends, and the statements of `main` that end the run.
//!
//! A body is measured from just after its `{` to its `}`; every other way
//! out (`return`, an exception) is left to the output, which closes the
//! region when the body's scope is left. So only the body's braces matter
//! here, never its statements.

use super::{qualified_name, CallForm, Kind, Syntax};
use crate::model::{CodeRegions, Exit, Found, Function, FunctionKind};
use crate::source::Span;

/// Specifiers that make a function one the compiler may evaluate while
/// compiling, where no measurement call may stand.
const COMPILE_TIME_SPECIFIERS: &[&str] = &["constexpr", "consteval"];

/// The functions that end the run without returning, running what
/// `atexit` registered: called in `main`, they end the program's region.
const RUN_ENDING_CALLS: &[&str] = &["exit", "_Exit", "quick_exit", "std::exit"];

/// Adds to `model` the code regions `asked` for below `roots` (the whole
/// file's tree, its top-level nodes in order), in file order, and the
/// statements of `main` that end the run, as exits leaving every region.
pub(crate) fn read<S: Syntax>(
    model: &mut Found,
    syntax: &S,
    roots: impl IntoIterator<Item = S::Node>,
    asked: CodeRegions,
) {
    if !asked.any() {
        return;
    }
    let mut functions = Vec::new();
    let mut run_ends = Vec::new();
    // The definitions around the node visited, outermost first, each with
    // its extent and qualified name.
    let mut around: Vec<(Span, String)> = Vec::new();
    let mut visit = |node| {
        let kind = syntax.kind(node);
        if !kind.is_body() {
            return;
        }
        let extent = syntax.extent(node);
        while around.last().is_some_and(|(a, _)| a.end <= extent.start) {
            around.pop();
        }
        // A lambda is named after the function it is written in.
        let enclosing = around.last().map(|(_, name)| name.clone());
        let (name, kind) = match kind {
            Kind::Lambda => {
                let line = syntax.file().line_of(extent.start);
                let outer = enclosing.as_deref().unwrap_or("<file>");
                (format!("{outer}::lambda@{line}"), FunctionKind::Lambda)
            }
            _ => {
                let name = qualified_name(syntax, node);
                around.push((extent.clone(), name.clone()));
                match name.as_str() {
                    "main" if enclosing.is_none() => (name, FunctionKind::Program),
                    _ => (name, FunctionKind::Function),
                }
            }
        };
        let Some(body) = syntax.body(node) else {
            return;
        };
        let wanted = match kind {
            FunctionKind::Lambda => asked.lambdas,
            _ => asked.functions,
        };
        let body_extent = syntax.extent(body);
        let text = syntax.text();
        let braced = !body_extent.is_empty()
            && text[body_extent.start] == b'{'
            && text[body_extent.end - 1] == b'}';
        if !wanted || !braced || compile_time_head(&text[extent.start..body_extent.start]) {
            return;
        }
        if kind == FunctionKind::Program {
            run_ends.extend(self::run_ends(syntax, body));
        }
        functions.push(Function {
            name,
            kind,
            span: extent,
            entry: body_extent.start + 1,
            exit: body_extent.end - 1,
            indent: String::new(),
        });
    };
    for root in roots {
        syntax.walk(root, &mut visit);
    }
    functions.sort_by_key(|f| f.span.start);
    model.functions = functions;
    model.exits.extend(run_ends);
    model.exits.sort_by_key(|e| e.span.start);
}

/// The statements `exit(...);` of `main`'s `body`, outside the lambdas
/// and local classes' methods in it.
fn run_ends<S: Syntax>(syntax: &S, body: S::Node) -> Vec<Exit> {
    let text = syntax.text();
    let mut exits = Vec::new();
    syntax.walk(body, |node| {
        let Some(call) = syntax.call_statement(node) else {
            return;
        };
        let ends_run = call.form == CallForm::Plain
            && RUN_ENDING_CALLS
                .iter()
                .any(|c| c.as_bytes() == &text[call.callee.clone()]);
        let in_other_body = || {
            (syntax.enclosing(body, node))
                .take_while(|&n| n != body)
                .any(|n| syntax.kind(n).is_body())
        };
        if ends_run && !in_other_body() {
            exits.push(Exit {
                span: syntax.extent(node),
                targets: Vec::new(),
            });
        }
    });
    exits
}

/// Whether a function's head (its text up to its body) makes it one the
/// compiler may evaluate while compiling, where no measurement call may
/// stand.
fn compile_time_head(head: &[u8]) -> bool {
    words(head).any(|w| COMPILE_TIME_SPECIFIERS.contains(&w))
}

/// The identifier-like words of `text`.
fn words(text: &[u8]) -> impl Iterator<Item = &str> {
    text.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| !w.is_empty())
        .filter_map(|w| std::str::from_utf8(w).ok())
}
