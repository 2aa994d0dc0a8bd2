//! Code regions beyond OpenMP (`--regions`), read once for both C front
//! ends: function definitions and lambdas, where each body's code begins
//! and ends, and the statements of `main` that end the run.
//!
//! Definitions in a library's headers (of a preprocessed file) are left
//! alone.
//!
//! A body is measured from just after its `{` to its `}`; every other way
//! out (`return`, an exception) is left to the output, which closes the
//! region when the body's scope is left. So only the body's braces matter
//! here, never its statements.

use super::syntax::{CallForm, Kind, Syntax};
use super::units::qualified_name;
use crate::model::{CodeKind, CodeRegions, Exit, Found, Function};
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
/// The model's directives are read: loops in their constructs are not
/// regions.
pub(crate) fn read<S: Syntax>(
    model: &mut Found,
    syntax: &S,
    roots: impl IntoIterator<Item = S::Node>,
    asked: &CodeRegions,
) {
    if !asked.any() {
        return;
    }
    let mut reading = Regions {
        syntax,
        asked,
        constructs: (model.sites.iter())
            .filter_map(|s| s.block.clone())
            .collect(),
        around: Vec::new(),
        outer_loop: None,
        switches: Vec::new(),
        functions: Vec::new(),
        run_ends: Vec::new(),
        measured_calls: Vec::new(),
        other_calls: None,
    };
    for root in roots {
        syntax.walk(root, |node| reading.visit(root, node));
    }
    let Regions {
        mut functions,
        run_ends,
        other_calls,
        ..
    } = reading;
    functions.sort_by_key(|f| f.span.start);
    model.functions = functions;
    model.exits.extend(run_ends);
    model.exits.sort_by_key(|e| e.span.start);
    if let Some((first, count)) = other_calls {
        let measured = "a call that is a statement of its own, or the whole value an assignment \
                        or a declaration gives";
        let note = crate::frontend::reading::calls_left_as_written(first, count, measured);
        model.diagnostics.push(note);
    }
}

/// A definition around the node visited.
struct Around {
    extent: Span,
    name: String,
    /// Whether code may be measured in its body.
    measured: bool,
}

struct Regions<'s, S: Syntax> {
    syntax: &'s S,
    asked: &'s CodeRegions,
    /// The blocks and loop nests of the file's directives.
    constructs: Vec<Span>,
    /// The function definitions around the node visited, outermost
    /// first.
    around: Vec<Around>,
    /// The outermost loop around the node visited.
    outer_loop: Option<Span>,
    /// The `switch` statements around the node visited, outermost first.
    switches: Vec<Span>,
    functions: Vec<Function>,
    run_ends: Vec<Exit>,
    /// The callees of the call statements measured.
    measured_calls: Vec<Span>,
    /// Where the first call of a measured function that is not measured
    /// is, and how many there are.
    other_calls: Option<(Span, usize)>,
}

impl<S: Syntax> Regions<'_, S> {
    fn visit(&mut self, root: S::Node, node: S::Node) {
        let syntax = self.syntax;
        let kind = syntax.kind(node);
        let extent = syntax.extent(node);
        while (self.around.last()).is_some_and(|a| a.extent.end <= extent.start) {
            self.around.pop();
        }
        if (self.outer_loop.as_ref()).is_some_and(|l| l.end <= extent.start) {
            self.outer_loop = None;
        }
        while (self.switches.last()).is_some_and(|s| s.end <= extent.start) {
            self.switches.pop();
        }
        if let Some(outer) = &self.outer_loop {
            // A jump could enter the loop past its `Begin` (a `goto`, a
            // `switch` around it): it is left alone.
            let entered = match kind {
                Kind::Label => true,
                Kind::Case => self.switches.last().is_none_or(|s| s.start < outer.start),
                _ => false,
            };
            if entered {
                let outer = outer.clone();
                (self.functions).retain(|f| !(f.kind == CodeKind::Loop && f.span == outer));
            }
        }
        if kind == Kind::Switch {
            self.switches.push(extent.clone());
        }
        if kind.is_body() {
            self.definition(node, kind, extent);
        } else if kind.is_loop() && self.outer_loop.is_none() {
            self.outer_loop = Some(extent.clone());
            if self.asked.loops {
                self.outermost_loop(extent);
            }
        } else if !self.asked.calls.is_empty() {
            self.call(root, node, extent);
        }
    }

    fn definition(&mut self, node: S::Node, kind: Kind, extent: Span) {
        let syntax = self.syntax;
        // A lambda is named after the function it is written in.
        let enclosing = self.around.last().map(|a| a.name.clone());
        let (name, kind) = match kind {
            Kind::Lambda => {
                let line = syntax.file().user_line(extent.start);
                let outer = enclosing.as_deref().unwrap_or("<file>");
                (format!("{outer}::lambda@{line}"), CodeKind::Lambda)
            }
            _ => {
                let name = qualified_name(syntax, node);
                self.around.push(Around {
                    extent: extent.clone(),
                    name: name.clone(),
                    measured: false,
                });
                match name.as_str() {
                    "main" if enclosing.is_none() => (name, CodeKind::Program),
                    _ => (name, CodeKind::Function),
                }
            }
        };
        // A library header's functions (of a preprocessed file) are the
        // library's: neither they nor code in them are measured.
        if syntax.file().in_library_header(extent.start) {
            return;
        }
        let Some(body) = syntax.body(node) else {
            return;
        };
        let body_extent = syntax.extent(body);
        let text = syntax.text();
        let braced = !body_extent.is_empty()
            && text[body_extent.start] == b'{'
            && text[body_extent.end - 1] == b'}';
        if !braced || compile_time_head(&text[extent.start..body_extent.start]) {
            return;
        }
        if kind != CodeKind::Lambda {
            self.around.last_mut().expect("pushed above").measured = true;
        }
        if kind == CodeKind::Program {
            // They end the regions in `main` of every kind.
            self.run_ends.extend(run_ends(syntax, body));
        }
        let wanted = match kind {
            CodeKind::Lambda => self.asked.lambdas,
            _ => self.asked.functions,
        };
        if !wanted {
            return;
        }
        let unit = match kind {
            CodeKind::Lambda => enclosing,
            _ => Some(name.clone()),
        };
        self.functions.push(Function {
            name,
            kind,
            unit,
            span: extent,
            entry: body_extent.start + 1,
            exit: body_extent.end - 1,
            indent: String::new(),
            declaration: false,
        });
    }

    /// The function whose body the code visited may be measured in.
    fn measured_function(&self) -> Option<&str> {
        (self.around.last())
            .filter(|a| a.measured)
            .map(|a| a.name.as_str())
    }

    /// Whether an OpenMP construct holds `at`.
    fn in_construct(&self, at: &Span) -> bool {
        (self.constructs.iter()).any(|c| c.start <= at.start && at.end <= c.end)
    }

    /// An outermost loop, measured from just before it to just after it,
    /// unless it is in an OpenMP construct or a pragma before it wants
    /// the loop itself to follow (`#pragma GCC unroll`).
    fn outermost_loop(&mut self, extent: Span) {
        let syntax = self.syntax;
        let Some(function) = self.measured_function() else {
            return;
        };
        if self.in_construct(&extent) || after_pragma(&syntax.file().bytes, extent.start) {
            return;
        }
        let line = syntax.file().user_line(extent.start);
        self.functions.push(Function {
            name: format!("{function}::loop@{line}"),
            kind: CodeKind::Loop,
            unit: Some(function.to_string()),
            span: extent.clone(),
            entry: extent.start,
            exit: extent.end,
            indent: String::new(),
            declaration: false,
        });
    }

    /// A call of a measured function: its statement measured when the
    /// call is the statement's whole work, counted otherwise.
    fn call(&mut self, root: S::Node, node: S::Node, extent: Span) {
        let syntax = self.syntax;
        let text = syntax.text();
        let name_of = |callee: &Span| {
            let name = String::from_utf8_lossy(&text[callee.clone()]);
            name.split_whitespace().collect::<String>()
        };
        if let Some(call) = syntax.call_statement(node) {
            let name = name_of(&call.callee);
            if !self.asked.measures_calls_of(&name, false) {
                return;
            }
            let declared = call.form == CallForm::Declared;
            // A declaration as the body of `if` or a loop (C++) has no
            // scope of its own to stay in.
            let own_scope = || {
                (syntax.enclosing(root, node).next())
                    .is_none_or(|parent| syntax.kind(parent) == Kind::Compound)
            };
            // A static or compile-time initialiser is not run with its
            // statement.
            let runs_once = || {
                words(&text[extent.clone()])
                    .any(|w| ["static", "thread_local", "constexpr", "constinit"].contains(&w))
            };
            let Some(unit) = self.measured_function().map(str::to_string) else {
                return;
            };
            if declared && (!own_scope() || runs_once()) {
                return;
            }
            self.measured_calls.push(call.callee);
            self.functions.push(Function {
                name,
                kind: CodeKind::Call,
                unit: Some(unit),
                span: extent.clone(),
                entry: extent.start,
                exit: extent.end,
                indent: String::new(),
                declaration: declared,
            });
            return;
        }
        let Some(callee) = syntax.callee(node) else {
            return;
        };
        if self.measured_calls.contains(&callee)
            || !self.asked.measures_calls_of(&name_of(&callee), false)
        {
            return;
        }
        self.other_calls.get_or_insert((callee, 0)).1 += 1;
    }
}

/// Whether a `#pragma` line (not an OpenMP directive, whose loops are
/// constructs) or `_Pragma` stands just before `start`: a loop hint wants
/// the loop to follow it directly.
fn after_pragma(bytes: &[u8], start: usize) -> bool {
    let before = &bytes[..start];
    let code_end = before
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |e| e + 1);
    let line_start = before[..code_end]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    let line = String::from_utf8_lossy(&before[line_start..code_end]);
    let line = line.trim_start();
    let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
    (line.starts_with('#')
        && words.first() == Some(&"pragma")
        && !matches!(words.get(1), Some(&"omp" | &"pomp")))
        || line.contains("_Pragma")
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
