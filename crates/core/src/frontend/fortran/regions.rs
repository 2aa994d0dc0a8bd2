//! Loops and calls as regions (`--regions=loops`, `calls=...`): each
//! measured from the start of its first line to the start of the line
//! after it, `Begin` and `End` on lines of their own. The jumps out
//! (`return`, `exit` or `cycle` naming an outer construct, `go to`,
//! `stop`) are the model's exits, closed as a function region's are.

use super::analysis::Analysis;
use super::units::named_child_of_kind;
use crate::model::{CodeKind, Function};
use crate::source::Span;
use tree_sitter::Node;

impl Analysis<'_> {
    pub(super) fn loops_and_calls(&mut self) {
        let asked = self.regions.clone();
        if !asked.loops && asked.calls.is_empty() {
            return;
        }
        let constructs: Vec<Span> = (self.model.sites.iter())
            .filter_map(|s| match (&s.block, s.end_site) {
                (Some(block), _) => Some(s.span.start.min(block.start)..block.end),
                (None, Some(end)) => Some(s.span.start..self.model.sites[end].span.end),
                _ => None,
            })
            .collect();
        let mut regions = Vec::new();
        let mut other_calls: Option<(Span, usize)> = None;
        // Each node with whether a loop holds it.
        let mut stack = vec![(self.tree.root_node(), false)];
        while let Some((node, in_loop)) = stack.pop() {
            let callee = match node.kind() {
                "do_loop" if asked.loops && !in_loop => {
                    if let Some(region) = self.loop_region(node, &constructs) {
                        regions.push(region);
                    }
                    None
                }
                "subroutine_call" => node.child_by_field_name("subroutine"),
                "assignment_statement" => (node.named_child(node.named_child_count().max(1) - 1))
                    .filter(|value| value.kind() == "call_expression")
                    .and_then(|call| call.named_child(0)),
                "call_expression" => node.named_child(0),
                _ => None,
            };
            let name = callee
                .filter(|c| c.kind() == "identifier")
                .map(|c| self.parse_text_of(c).trim().to_string())
                .filter(|name| asked.measures_calls_of(name, true));
            if let Some(name) = name {
                let statement = node.kind() != "call_expression";
                // Calls are measured in OpenMP constructs too.
                let region = statement
                    .then(|| self.measured_unit(node, &[]))
                    .flatten()
                    .and_then(|unit| self.region_of(node, CodeKind::Call, name, unit));
                match region {
                    Some(region) => regions.push(region),
                    None => other_calls.get_or_insert((self.original_span(node), 0)).1 += 1,
                }
                continue;
            }
            let in_loop = in_loop || node.kind() == "do_loop";
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev().map(|c| (c, in_loop)));
        }
        if let Some((first, count)) = other_calls {
            let measured = "a `call` statement on lines of its own, or a function reference \
                            that is the whole value an assignment gives (not in a logical `if`)";
            let note = crate::frontend::reading::calls_left_as_written(first, count, measured);
            self.model.diagnostics.push(note);
        }
        self.model.functions.extend(regions);
        self.model.functions.sort_by_key(|f| f.span.start);
    }

    fn loop_region(&self, node: Node, constructs: &[Span]) -> Option<Function> {
        let line = self.file.user_line(self.original_span(node).start);
        let unit = self.measured_unit(node, constructs)?;
        let name = format!("{unit}::loop@{line}");
        self.region_of(node, CodeKind::Loop, name, unit)
    }

    /// The name of the unit whose execution part holds `node`, outside
    /// the OpenMP `constructs` given.
    fn measured_unit(&self, node: Node, constructs: &[Span]) -> Option<String> {
        let span = self.original_span(node);
        if constructs
            .iter()
            .any(|c| c.start <= span.start && span.end <= c.end)
        {
            return None;
        }
        let unit = &self.model.units[self.model.units.unit_at(span.start)?];
        let library = self.file.in_library_header(unit.span.start);
        (unit.declarations_at? <= span.start && !library).then(|| unit.name.clone())
    }

    /// `node`, in a measured unit, measured from the start of its line to
    /// the start of the line after it, when it has those lines to itself:
    /// no label or other statement before it, nothing after it, and not
    /// the action of a logical `if`.
    fn region_of(
        &self,
        node: Node,
        kind: CodeKind,
        name: String,
        unit: String,
    ) -> Option<Function> {
        let logical_if = node.parent().is_some_and(|p| {
            p.kind() == "if_statement" && named_child_of_kind(p, "end_if_statement").is_none()
        });
        if logical_if {
            return None;
        }
        let span = self.original_span(node);
        let entry = self.file.start_of_line(span.start);
        let bytes = &self.file.bytes;
        let before = &bytes[entry..span.start];
        let blank = |text: &[u8]| text.iter().all(u8::is_ascii_whitespace);
        // A named loop (`outer: do`) keeps its name on its line; a label
        // could be jumped to past `Begin`.
        let named = kind == CodeKind::Loop
            && named_child_of_kind(node, "block_label_start_expression").is_some();
        if !(blank(before) || named && !before.iter().any(u8::is_ascii_digit)) {
            return None;
        }
        let line_end =
            (bytes[span.end..].iter().position(|&b| b == b'\n')).map(|n| span.end + n)?;
        let after = &bytes[span.end..line_end];
        let code_after = after
            .iter()
            .position(|&b| b == b'!')
            .map_or(after, |c| &after[..c]);
        if !blank(code_after) {
            return None;
        }
        Some(Function {
            name,
            kind,
            unit: Some(unit),
            span,
            entry,
            exit: line_end + 1,
            indent: String::new(),
            declaration: false,
        })
    }
}
