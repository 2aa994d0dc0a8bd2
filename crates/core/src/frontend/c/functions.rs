//! Function definitions as regions (`--regions=functions`): where each
//! body's code begins and ends, read from a parse of the whole file.
//!
//! A body is measured from just after its `{` to its `}`; every other way
//! out (`return`, an exception) is left to the output, which closes the
//! region when the body's scope is left. So only the body's braces matter
//! here, never its statements.

use super::prepare::Prepared;
use crate::model::{CodeRegions, Exit, Function, FunctionKind};
use tree_sitter::Node;

/// Kinds that may hold a function definition or a lambda: declarations,
/// scopes and, for lambdas, any statement or expression.
const DEFINITION_CONTAINERS: &[&str] = &[
    "translation_unit",
    "declaration_list",
    "namespace_definition",
    "linkage_specification",
    "template_declaration",
    "class_specifier",
    "struct_specifier",
    "union_specifier",
    "field_declaration_list",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
];

/// Specifiers that make a function one the compiler may evaluate while
/// compiling, where no measurement call may stand.
const COMPILE_TIME_SPECIFIERS: &[&str] = &["constexpr", "consteval"];

/// The functions that end the run without returning, running what
/// `atexit` registered: called in `main`, they end the program's region.
const RUN_ENDING_CALLS: &[&str] = &["exit", "_Exit", "quick_exit", "std::exit"];

/// The function definitions (and, when asked, lambdas) of `tree`, a parse
/// of the whole of `prepared`'s masked text, in file order; with the
/// statements of `main` that end the run, as exits leaving every region.
pub(super) fn read(
    prepared: &Prepared,
    tree: &tree_sitter::Tree,
    asked: CodeRegions,
) -> (Vec<Function>, Vec<Exit>) {
    let text = prepared.masked();
    let mut reader = Reader {
        text: &text,
        file: prepared.file,
        asked,
        functions: Vec::new(),
        run_ends: Vec::new(),
    };
    reader.walk(tree.root_node(), None);
    reader.functions.sort_by_key(|f| f.span.start);
    reader.run_ends.sort_by_key(|e| e.span.start);
    (reader.functions, reader.run_ends)
}

struct Reader<'a> {
    text: &'a [u8],
    file: &'a crate::source::SourceFile,
    asked: CodeRegions,
    functions: Vec<Function>,
    run_ends: Vec<Exit>,
}

impl Reader<'_> {
    /// Definitions below `node`; `enclosing` is the qualified name of the
    /// function `node` lies in, for the lambdas in it.
    fn walk(&mut self, node: Node, enclosing: Option<&str>) {
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "function_definition" => {
                    let name = qualified_name(self.text, child);
                    if self.asked.functions {
                        let kind = match name.as_str() {
                            "main" if enclosing.is_none() => FunctionKind::Program,
                            _ => FunctionKind::Function,
                        };
                        self.definition(child, name.clone(), kind);
                    }
                    if self.asked.lambdas {
                        self.walk(child, Some(&name));
                    } else {
                        // Classes defined in a function have methods.
                        self.walk_local_classes(child, &name);
                    }
                }
                "lambda_expression" if self.asked.lambdas => {
                    let line = self.file.line_of(child.start_byte());
                    let outer = enclosing.unwrap_or("<file>");
                    self.definition(
                        child,
                        format!("{outer}::lambda@{line}"),
                        FunctionKind::Lambda,
                    );
                    self.walk(child, enclosing);
                }
                // A lambda may stand in any expression.
                _ if self.asked.lambdas => self.walk(child, enclosing),
                kind if DEFINITION_CONTAINERS.contains(&kind) => self.walk(child, enclosing),
                _ => {}
            }
        }
    }

    /// Classes declared inside a function's body, and their methods.
    fn walk_local_classes(&mut self, function: Node, name: &str) {
        let Some(body) = function.child_by_field_name("body") else {
            return;
        };
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "class_specifier" | "struct_specifier" | "union_specifier" => {
                        self.walk(child, Some(name))
                    }
                    "lambda_expression" => {}
                    _ => stack.push(child),
                }
            }
        }
    }

    /// A definition with a brace body whose code may be measured; others
    /// (`= default`, a function-try-block, `constexpr`) are passed over.
    fn definition(&mut self, node: Node, name: String, kind: FunctionKind) {
        let Some(body) = node.child_by_field_name("body") else {
            return;
        };
        if body.kind() != "compound_statement" || body.has_error() && !braces_closed(body) {
            return;
        }
        if compile_time_head(&self.text[node.start_byte()..body.start_byte()]) {
            return;
        }
        let (open, close) = (body.start_byte(), body.end_byte() - 1);
        if self.text[open] != b'{' || self.text[close] != b'}' {
            return;
        }
        if kind == FunctionKind::Program {
            self.run_ends_in(body);
        }
        self.functions.push(Function {
            name,
            kind,
            span: node.byte_range(),
            entry: open + 1,
            exit: close,
            indent: String::new(),
        });
    }
}

impl Reader<'_> {
    /// The statements `exit(...);` of `body`, outside the lambdas and
    /// classes in it.
    fn run_ends_in(&mut self, body: Node) {
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "lambda_expression" | "class_specifier" | "struct_specifier" => {}
                    "expression_statement" => {
                        let called = (child.named_child(0))
                            .filter(|c| c.kind() == "call_expression")
                            .and_then(|c| c.child_by_field_name("function"))
                            .map(|f| &self.text[f.byte_range()]);
                        let ends_run = called.is_some_and(|name| {
                            RUN_ENDING_CALLS.iter().any(|c| c.as_bytes() == name)
                        });
                        if ends_run {
                            self.run_ends.push(Exit {
                                span: child.byte_range(),
                                targets: Vec::new(),
                            });
                        } else {
                            stack.push(child);
                        }
                    }
                    _ => stack.push(child),
                }
            }
        }
    }
}

/// Whether a body the grammar could not read whole still ends with the
/// brace closing the one it opens with.
fn braces_closed(body: Node) -> bool {
    let last = body.child(body.child_count().saturating_sub(1));
    body.child(0)
        .is_some_and(|c| c.kind() == "{" && !c.is_missing())
        && last.is_some_and(|c| c.kind() == "}" && !c.is_missing())
}

/// Whether a function's head (its text up to its body) makes it one the
/// compiler may evaluate while compiling, where no measurement call may
/// stand.
pub fn compile_time_head(head: &[u8]) -> bool {
    words(head).any(|w| COMPILE_TIME_SPECIFIERS.contains(&w))
}

/// The identifier-like words of `text`.
fn words(text: &[u8]) -> impl Iterator<Item = &str> {
    text.split(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .filter(|w| !w.is_empty())
        .filter_map(|w| std::str::from_utf8(w).ok())
}

/// A function definition's name with the namespaces and classes around
/// it: `ns::Class::method`.
pub(super) fn qualified_name(text: &[u8], function: Node) -> String {
    let node_text = |node: Node| {
        let text = String::from_utf8_lossy(&text[node.byte_range()]);
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let mut declarator = function.child_by_field_name("declarator");
    while let Some(d) = declarator {
        if d.kind() == "function_declarator" {
            break;
        }
        declarator = d.child_by_field_name("declarator");
    }
    let own = declarator
        .and_then(|d| d.child_by_field_name("declarator"))
        .map(node_text)
        .unwrap_or_else(|| "<anonymous>".into());
    let mut scopes: Vec<String> = std::iter::successors(function.parent(), |n| n.parent())
        .filter(|n| {
            matches!(
                n.kind(),
                "namespace_definition" | "class_specifier" | "struct_specifier"
            )
        })
        .filter_map(|n| n.child_by_field_name("name").map(node_text))
        .collect();
    scopes.reverse();
    scopes.push(own);
    scopes.join("::")
}
