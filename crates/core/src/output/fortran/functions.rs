//! Functions measured as regions: `Begin` on a line of its own after the
//! specification part, `End` before the statement that ends the
//! execution part (the jumps out are closed by `exits`). A main program
//! initialises the measurement first and finalises it last.

use super::renderer::Renderer;
use crate::edits::Origin;
use crate::model::CodeKind;
use crate::rules::{rules, FunctionRegion};

/// Orders among the edits at one offset: the unit's declarations come
/// first at the entry, everything closing inside the body before the end.
const BEGIN_ORDER: i64 = i64::MIN + 2;
const END_ORDER: i64 = i64::MAX / 2;
/// A loop or call region opens after the function's region and what
/// closes the constructs before it (a loop directive's closing lines after
/// its loop), and closes before what closes anything around it; where one
/// statement's region ends and the next one's begins, the first ends
/// first.
const STATEMENT_END_ORDER: i64 = BEGIN_ORDER + 1;
const STATEMENT_BEGIN_ORDER: i64 = END_ORDER - 1;

impl Renderer<'_> {
    pub(super) fn function_region(&mut self, function: &FunctionRegion) {
        let plan = self.plan;
        let code = &self.model.functions[function.function];
        let region = function.region;
        let unit = self.model.unit_at(code.entry);
        let indent = self.indent(unit);
        let program = crate::rules::is_program(self.model, &plan.regions[region]);
        let control = &rules().control;
        let control_call = |r: &Self, name: &str| {
            let call = format!("call {}{}()", plan.prefix(), control[name].event);
            r.statement(&indent, &call)
        };
        let origin = Origin::Function { region };
        let (begin_order, end_order) = match code.kind {
            CodeKind::Loop | CodeKind::Call => (STATEMENT_BEGIN_ORDER, STATEMENT_END_ORDER),
            _ => (BEGIN_ORDER, END_ORDER),
        };
        let mut begin = String::new();
        if program {
            begin.push_str(&control_call(self, "inst init"));
        }
        begin.push_str(&self.descriptor_guard(unit));
        begin.push_str(&self.calls(unit, region, &plan.user_region.begin));
        begin.push_str(&self.line_marker(self.file.line_of(code.entry)));
        self.edits
            .insert(code.entry, begin, begin_order, origin.clone());
        let mut end = self.calls(unit, region, &plan.user_region.end);
        if program {
            end.push_str(&control_call(self, "inst finalize"));
        }
        end.push_str(&self.line_marker(self.file.line_of(code.exit)));
        self.edits.insert(code.exit, end, end_order, origin);
    }
}
