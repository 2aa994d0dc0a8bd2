//! What lies around the directives: the functions that hold them and their
//! names, the calls of lock routines, the jumps that may leave a user
//! region, and functions a `declare target` attribute makes device code.

use super::reading::Reading;
use super::syntax::{Kind, Syntax};
use crate::directive::Role;
use crate::model::{Exit, LockCall, Unit};
use crate::source::Span;
use std::collections::HashSet;

impl<S: Syntax> Reading<'_, S> {
    /// The functions that hold directives, in file order, each with its
    /// node.
    pub(super) fn units(&mut self) -> Vec<(Span, S::Node)> {
        let syntax = self.syntax;
        let mut seen: HashSet<Span> = HashSet::new();
        let mut functions = Vec::new();
        let mut offsets: Vec<usize> = (self.model.sites.iter())
            .map(|site| site.span.start)
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        for function in syntax.functions_around_any(&offsets) {
            let span = syntax.extent(function);
            if seen.insert(span.clone()) {
                let name = qualified_name(syntax, function);
                self.model.units.push(Unit::function(name, span.clone()));
                functions.push((span, function));
            }
        }
        self.model.units.sort();
        // As the units are sorted: outer first.
        functions.sort_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
        functions
    }

    /// The calls among the lock routines' names at `mentions`: those in
    /// call position.
    pub(super) fn lock_calls(&mut self, mentions: &[Span]) {
        for mention in mentions {
            if !self.syntax.called(mention) {
                continue;
            }
            if let Ok(name) = std::str::from_utf8(&self.syntax.text()[mention.clone()]) {
                self.model.lock_calls.push(LockCall {
                    span: mention.clone(),
                    name: name.to_string(),
                });
            }
        }
    }

    /// Jumps, in one walk over each function holding a user region: they
    /// matter only to user regions, which lie inside functions, and a jump
    /// never leaves its function. `functions` are the units' nodes, outer
    /// first.
    pub(super) fn exits(&mut self, functions: &[(Span, S::Node)]) {
        let syntax = self.syntax;
        let begins: Vec<usize> = (self.model.sites.iter())
            .filter(|s| s.directive.role() == Some(Role::UserRegionBegin))
            .map(|s| s.span.start)
            .collect();
        if begins.is_empty() {
            return;
        }
        let mut walked: Vec<&Span> = Vec::new();
        let mut labels: Vec<(usize, &[u8], usize)> = Vec::new();
        let mut gotos: Vec<(Span, usize, &[u8])> = Vec::new();
        let mut exits = Vec::new();
        let text = syntax.text();
        for (span, root) in functions {
            // A function inside a walked one is walked with it.
            let inside_walked = walked.last().is_some_and(|w| w.end >= span.end);
            if inside_walked || !begins.iter().any(|at| span.contains(at)) {
                continue;
            }
            walked.push(span);
            let root = *root;
            syntax.jumps(root, |node| {
                let kind = syntax.kind(node);
                let targets = match kind {
                    Kind::Return => vec![self.body_start(root, node)],
                    Kind::Break | Kind::Continue => {
                        let leaves =
                            |k: Kind| k.is_loop() || (kind == Kind::Break && k == Kind::Switch);
                        match self.innermost(root, node, leaves) {
                            Some(target) => vec![syntax.extent(target).start],
                            None => return,
                        }
                    }
                    Kind::Goto => {
                        if let Some(label) = syntax.label(node) {
                            let function = self.body_start(root, node);
                            gotos.push((syntax.extent(node), function, &text[label]));
                        }
                        return;
                    }
                    Kind::Label => {
                        if let Some(label) = syntax.label(node) {
                            let function = self.body_start(root, node);
                            labels.push((function, &text[label], syntax.extent(node).start));
                        }
                        return;
                    }
                    _ => return,
                };
                exits.push(Exit {
                    span: syntax.extent(node),
                    targets,
                });
            });
        }
        // A label names a statement of its function (lambdas included).
        labels.sort();
        for (span, function, name) in gotos {
            let at = labels.partition_point(|(f, n, _)| (*f, *n) < (function, name));
            if let Some(&(_, _, target)) = labels
                .get(at)
                .filter(|(f, n, _)| (*f, *n) == (function, name))
            {
                exits.push(Exit {
                    span,
                    targets: vec![target],
                });
            }
        }
        exits.sort_by_key(|e| e.span.start);
        self.model.exits.extend(exits);
    }

    /// Where the function or lambda holding `node` (below `root`) starts:
    /// a `return` goes there, and labels are its own.
    fn body_start(&self, root: S::Node, node: S::Node) -> usize {
        (self.syntax.enclosing(root, node))
            .find(|&n| self.syntax.kind(n).is_body())
            .map_or(0, |n| self.syntax.extent(n).start)
    }

    /// The innermost node around `node` whose kind `leaves` accepts,
    /// within its function or lambda.
    fn innermost(
        &self,
        root: S::Node,
        node: S::Node,
        leaves: impl Fn(Kind) -> bool,
    ) -> Option<S::Node> {
        for n in self.syntax.enclosing(root, node) {
            let kind = self.syntax.kind(n);
            if leaves(kind) {
                return Some(n);
            }
            if kind.is_body() {
                return None;
            }
        }
        None
    }

    /// A `declare target` written as an attribute of a function
    /// (`[[omp::decl(declare_target)]]`) makes that function device code:
    /// the function it stands in, before the body, or the one it precedes.
    pub(super) fn declared_by_attribute(&mut self) {
        let syntax = self.syntax;
        let attributes: Vec<Span> = (self.model.sites.iter())
            .filter(|site| site.declares_function_device_code())
            .map(|site| site.span.clone())
            .collect();
        for attribute in attributes {
            let holding = syntax
                .functions_around(attribute.clone())
                .last()
                .filter(|&f| {
                    syntax
                        .body_start(f)
                        .is_none_or(|body| attribute.end <= body)
                });
            if let Some(function) = holding.or_else(|| syntax.function_after(attribute.end)) {
                self.model.no_insert.push(syntax.extent(function));
            }
        }
    }
}

/// A function's name with the namespaces and classes it belongs to:
/// `ns::Class::method`.
pub(crate) fn qualified_name<S: Syntax>(syntax: &S, function: S::Node) -> String {
    let mut names = syntax.scopes(function);
    names.push(
        syntax
            .function_name(function)
            .unwrap_or_else(|| "<anonymous>".into()),
    );
    names.join("::")
}
