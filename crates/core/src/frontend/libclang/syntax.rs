//! The clang front end's view of its flattened tree ([`Tree`]) for the C
//! reading ([`crate::frontend::c_shared`]). clang reads the file as the
//! compiler does: conditionals are decided and macros expanded before the
//! reading sees anything, and a file clang cannot parse is not read at all,
//! so no block is ever in doubt here.

use super::tree::Tree;
use crate::frontend::c_shared::{After, CallForm, CallStatement, Init, Kind, Syntax};
use crate::frontend::lexical::scan::RawDirective;
use crate::source::{SourceFile, Span};
use clang_sys::*;
use pomp_clang_bindings::Class;

/// The kinds that define a function with a body of its own.
pub(super) const FUNCTION_KINDS: &[CXCursorKind] = &[
    CXCursor_FunctionDecl,
    CXCursor_CXXMethod,
    CXCursor_Constructor,
    CXCursor_Destructor,
    CXCursor_ConversionFunction,
    CXCursor_FunctionTemplate,
];

pub(super) struct ClangSyntax<'a> {
    file: &'a SourceFile,
    tree: &'a Tree<'a>,
    /// The function definitions written in the file, outer before inner.
    functions: Vec<usize>,
}

impl<'a> ClangSyntax<'a> {
    pub fn new(file: &'a SourceFile, tree: &'a Tree<'a>) -> ClangSyntax<'a> {
        let functions = (0..tree.nodes.len())
            .filter(|&n| {
                FUNCTION_KINDS.contains(&tree.kind(n))
                    && tree.nodes[n].span.is_some()
                    && tree.unit.is_definition(&tree.nodes[n])
            })
            .collect();
        ClangSyntax {
            file,
            tree,
            functions,
        }
    }
}

impl Syntax for ClangSyntax<'_> {
    type Node = usize;

    fn file(&self) -> &SourceFile {
        self.file
    }

    fn text(&self) -> &[u8] {
        &self.file.bytes
    }

    fn kind(&self, node: usize) -> Kind {
        match self.tree.kind(node) {
            CXCursor_CompoundStmt => Kind::Compound,
            CXCursor_ForStmt => Kind::For,
            CXCursor_CXXForRangeStmt => Kind::RangeFor,
            CXCursor_WhileStmt => Kind::While,
            CXCursor_DoStmt => Kind::Do,
            CXCursor_SwitchStmt => Kind::Switch,
            CXCursor_ReturnStmt => Kind::Return,
            CXCursor_BreakStmt => Kind::Break,
            CXCursor_ContinueStmt => Kind::Continue,
            CXCursor_GotoStmt => Kind::Goto,
            CXCursor_LabelStmt => Kind::Label,
            CXCursor_CaseStmt | CXCursor_DefaultStmt => Kind::Case,
            CXCursor_LambdaExpr => Kind::Lambda,
            kind if FUNCTION_KINDS.contains(&kind) => Kind::Function,
            _ => Kind::Other,
        }
    }

    fn extent(&self, node: usize) -> Span {
        // A lambda is a body, never a statement of its own.
        match self.tree.kind(node) {
            CXCursor_LambdaExpr => self.tree.span(node),
            _ => self.tree.span(node).start..self.tree.statement_end(node),
        }
    }

    /// The statement that begins at the first token the parser sees from
    /// `from` on (the loop, where loop hints are attached to it), if one
    /// does where a statement may stand. Directives are invisible to the
    /// parser: `following` need not be passed over.
    fn statement_after(&self, from: usize, _following: &[RawDirective]) -> After<usize> {
        let tree = self.tree;
        let Some(first) = tree.first_node_from(from) else {
            return After::Missing("nothing follows this directive".into());
        };
        let statement = tree.loop_under_hints(first);
        let start = tree.span(statement).start;
        if let Some(token) = tree.visible_tokens(from..start).first() {
            return After::Missing(format!(
                "a statement must follow this directive, found `{}`",
                tree.text(token)
            ));
        }
        let class = tree.nodes[statement].class;
        let declaration = class == Class::Declaration || tree.kind(statement) == CXCursor_DeclStmt;
        if declaration || !tree.in_statement_position(statement) {
            let found = match declaration {
                true => "a declaration",
                false => "part of a statement",
            };
            return After::Missing(format!(
                "a statement must follow this directive, found {found}"
            ));
        }
        After::Statement(statement)
    }

    fn statements(&self, compound: usize) -> impl Iterator<Item = usize> + '_ {
        self.tree.children[compound].iter().copied()
    }

    fn for_loop(&self, node: usize) -> Option<(Init, usize)> {
        let tree = self.tree;
        let node = tree.loop_under_hints(node);
        let children = &tree.children[node];
        let body = *children.last()?;
        let init = match tree.kind(node) {
            CXCursor_ForStmt => {
                // A header without its first part starts `for (;`: the
                // first child is then the condition.
                let open = tree.next_visible_token(tree.span(node).start + "for".len())?;
                let first = tree.next_visible_token(open.end)?;
                match children.first() {
                    _ if tree.text(&first) == ";" => Init::Nothing,
                    Some(&init) if tree.kind(init) == CXCursor_DeclStmt => Init::Declaration,
                    Some(&init) => Init::Expression(tree.span(init)),
                    None => Init::Nothing,
                }
            }
            CXCursor_CXXForRangeStmt => Init::Nothing,
            _ => return None,
        };
        Some((init, body))
    }

    fn functions_around(&self, range: Span) -> impl Iterator<Item = usize> + '_ {
        (self.functions.iter().copied()).filter(move |&f| self.tree.span(f).contains(&range.start))
    }

    fn function_after(&self, from: usize) -> Option<usize> {
        let start = self.tree.next_visible_token(from)?.start;
        (self.functions.iter().copied()).find(|&f| self.tree.span(f).start == start)
    }

    fn body(&self, function: usize) -> Option<usize> {
        let tree = self.tree;
        let definition = tree.kind(function) == CXCursor_LambdaExpr
            || tree.unit.is_definition(&tree.nodes[function]);
        (tree.children[function].iter().rev())
            .find(|&&c| tree.kind(c) == CXCursor_CompoundStmt)
            .copied()
            .filter(|_| definition)
    }

    fn call_statement(&self, statement: usize) -> Option<CallStatement> {
        let tree = self.tree;
        let children = &tree.children[statement];
        let (form, call) = match (tree.kind(statement), children.as_slice()) {
            (CXCursor_CallExpr, _) => (CallForm::Plain, statement),
            (CXCursor_BinaryOperator, &[left, right]) => {
                let between = tree.visible_tokens(tree.span(left).end..tree.span(right).start);
                match between.as_slice() {
                    [operator] if tree.text(operator) == "=" => {}
                    _ => return None,
                }
                (CallForm::Assigned, self.under_conversions(right))
            }
            (CXCursor_DeclStmt, &[variable]) if tree.kind(variable) == CXCursor_VarDecl => {
                let &value = tree.children[variable].last()?;
                (CallForm::Declared, self.under_conversions(value))
            }
            _ => return None,
        };
        if !tree.in_statement_position(statement) {
            return None;
        }
        let callee = self.callee(call)?;
        Some(CallStatement { callee, form })
    }

    fn callee(&self, call: usize) -> Option<Span> {
        let tree = self.tree;
        if tree.kind(call) != CXCursor_CallExpr {
            return None;
        }
        // An overloaded operator's call starts with its left operand.
        let callee = tree.nodes[*tree.children[call].first()?].span.clone()?;
        let open = tree.next_visible_token(callee.end)?;
        (tree.text(&open) == "(").then_some(callee)
    }

    fn body_start(&self, function: usize) -> Option<usize> {
        (self.tree.children[function].iter())
            .find(|&&c| self.tree.kind(c) == CXCursor_CompoundStmt)
            .map(|&c| self.tree.span(c).start)
    }

    fn function_name(&self, function: usize) -> Option<String> {
        Some(self.tree.unit.spelling(&self.tree.nodes[function]))
    }

    fn scopes(&self, function: usize) -> Vec<String> {
        let unit = self.tree.unit;
        let mut names = Vec::new();
        let mut scope = unit.semantic_parent(&self.tree.nodes[function]);
        while let Some(s) = scope {
            let named_scope = matches!(
                s.kind,
                CXCursor_Namespace
                    | CXCursor_ClassDecl
                    | CXCursor_StructDecl
                    | CXCursor_ClassTemplate
                    | CXCursor_ClassTemplatePartialSpecialization
            );
            if !named_scope {
                break;
            }
            let name = unit.spelling(&s);
            if !name.is_empty() && !name.contains("(anonymous") && !name.contains("(unnamed") {
                names.push(name);
            }
            scope = unit.semantic_parent(&s);
        }
        names.reverse();
        names
    }

    /// Whether a reference written at `name` is the callee of a call,
    /// through the implicit conversions clang wraps it in.
    fn called(&self, name: &Span) -> bool {
        let tree = self.tree;
        let Some(reference) = (tree.nodes_starting_at(name.start))
            .find(|&n| tree.kind(n) == CXCursor_DeclRefExpr && tree.span(n) == *name)
        else {
            return false;
        };
        let mut callee = reference;
        while let Some(parent) = tree.nodes[callee].parent {
            if tree.kind(parent) == CXCursor_UnexposedExpr && tree.span(parent) == *name {
                callee = parent;
                continue;
            }
            return tree.kind(parent) == CXCursor_CallExpr
                && tree.children[parent].first() == Some(&callee);
        }
        false
    }

    /// Every node below `root` written in the file (not in another file a
    /// macro comes from) and `root`.
    fn walk(&self, root: usize, mut visit: impl FnMut(usize)) {
        let tree = self.tree;
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if tree.nodes[node].span.is_some() {
                visit(node);
            }
            stack.extend(tree.children[node].iter().rev());
        }
    }

    fn enclosing(&self, root: usize, node: usize) -> impl Iterator<Item = usize> {
        let tree = self.tree;
        let mut at = tree.nodes[node].parent.filter(|_| node != root);
        std::iter::from_fn(move || {
            let n = at?;
            at = tree.nodes[n].parent.filter(|_| n != root);
            Some(n)
        })
    }

    fn label(&self, node: usize) -> Option<Span> {
        let tree = self.tree;
        match tree.kind(node) {
            CXCursor_GotoStmt => (tree.children[node].iter())
                .find(|&&c| tree.kind(c) == CXCursor_LabelRef)
                .and_then(|&c| tree.nodes[c].span.clone()),
            CXCursor_LabelStmt => {
                let name = tree.next_visible_token(tree.span(node).start)?;
                Some(name.start..name.end)
            }
            _ => None,
        }
    }
}

impl ClangSyntax<'_> {
    /// The expression `node` converts implicitly, as clang shows it: an
    /// unexposed expression over the same bytes.
    fn under_conversions(&self, mut node: usize) -> usize {
        let tree = self.tree;
        while tree.kind(node) == CXCursor_UnexposedExpr {
            match tree.children[node].as_slice() {
                &[only] if tree.span(only) == tree.span(node) => node = only,
                _ => break,
            }
        }
        node
    }
}
