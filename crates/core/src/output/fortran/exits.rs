//! Jumps out of user regions, which close the regions first.

use super::renderer::Renderer;
use crate::edits::Origin;
use crate::rules::RegionExit;

impl Renderer<'_> {
    /// A jump out of user regions (`return`, `exit`, `cycle`, `go to`)
    /// closes them first. On a line of its own the calls go on the lines
    /// before it; after a statement label (a jump to the label closes the
    /// regions too) or a `;` the first call takes the jump's place and the
    /// jump moves to the next line, in its own column. The front end hands
    /// a logical `if (c) return` over as the whole `if` statement: it
    /// becomes an `if` construct, `then` where the jump stood, the jump on
    /// a line of its own. An arithmetic `if (x) 10, 20, 30` always jumps:
    /// the calls go before it.
    pub(super) fn exit(&mut self, exit: &RegionExit) {
        let plan = self.plan;
        let end_calls = &plan.user_region.end;
        let origin = Origin::Exit {
            regions: exit.regions.clone(),
        };
        let unit = self.model.unit_at(exit.span.start);
        let action = self.model.fortran.logical_if_action(exit.span.start);
        let logical_if = action.is_some();
        let return_start = action.unwrap_or(exit.span.start);
        let line_start = self.file.start_of_line(return_start);
        let sentinel = self.conditional_sentinel(line_start);
        let prefix = self.file.text(line_start..return_start).into_owned();
        // The return's own column, on a line of its own: the prefix
        // blanked, tabs and a `!$` sentinel kept.
        let pad: String = prefix
            .chars()
            .enumerate()
            .map(|(i, c)| match (c, sentinel) {
                ('\t', _) => '\t',
                (c, Some(at)) if i == at || i == at + 1 => c,
                _ => ' ',
            })
            .collect();
        let mut closing = String::new();
        for &region in &exit.regions {
            closing.push_str(&self.closing_calls(unit, region, end_calls));
        }
        let line = self.file.line_of(return_start);
        if logical_if {
            let closing = self.with_sentinel(&closing, sentinel.is_some());
            let text = format!("then\n{closing}{}{pad}", self.line_marker(line));
            self.edits.insert(return_start, text, 0, origin.clone());
            let end_line_start = self.file.start_of_line(exit.span.end);
            let end_column = self
                .file
                .text(end_line_start..exit.span.end)
                .chars()
                .count();
            let end_if_line = self.with_sentinel(
                &format!("{}end if\n", self.indent(unit)),
                self.conditional_sentinel(end_line_start).is_some(),
            );
            let mut end_if = end_if_line.trim_end_matches('\n').to_string();
            // Whatever follows the return keeps its column.
            let rest = self
                .file
                .text(exit.span.end..self.file.end_of_line(exit.span.end))
                .into_owned();
            if !rest.trim().is_empty() {
                while end_if.chars().count() < end_column {
                    end_if.push(' ');
                }
            }
            let text = format!(
                "\n{}{end_if}",
                self.line_marker(self.file.line_of(exit.span.end))
            );
            self.edits.insert(exit.span.end, text, 0, origin);
        } else if prefix.trim().is_empty() {
            let text = format!(
                "{}{}",
                self.with_sentinel(&closing, false),
                self.line_marker(line)
            );
            self.edits.insert(line_start, text, 0, origin);
        } else {
            // The first call continues the line, wrapped as if it began
            // in the return's column.
            let column = prefix.chars().count();
            let mut text = String::new();
            for (k, &region) in exit.regions.iter().enumerate() {
                let call = self.calls(unit, region, end_calls);
                let call = if k == 0 {
                    let statement = call.trim_start().trim_end_matches('\n').to_string();
                    let first = " ".repeat(column);
                    let continued = self.continuation_indent(&self.indent(unit));
                    let wrapped = self.wrap(&first, &continued, &statement, !self.fixed_form);
                    wrapped[column..].to_string()
                } else {
                    call
                };
                text.push_str(&call);
                text.push_str(&self.finalize_after(unit, region));
            }
            let (first, rest) = text.split_at(text.find('\n').map_or(text.len(), |i| i + 1));
            let text = format!(
                "{first}{}{}{pad}",
                self.with_sentinel(rest, sentinel.is_some()),
                self.line_marker(line)
            );
            self.edits.insert(return_start, text, 0, origin);
        }
    }

    /// The calls closing `region` at a jump out of it; the program's
    /// region is left only where the run ends, which finalises it.
    fn closing_calls(
        &mut self,
        unit: Option<usize>,
        region: usize,
        end_calls: &[crate::rules::Call],
    ) -> String {
        let mut text = self.calls(unit, region, end_calls);
        text.push_str(&self.finalize_after(unit, region));
        text
    }

    /// After the program region's end, where the run ends: finalising.
    fn finalize_after(&self, unit: Option<usize>, region: usize) -> String {
        if !crate::rules::is_program(self.model, &self.plan.regions[region]) {
            return String::new();
        }
        let finalize = crate::rules::rules().control["inst finalize"].event;
        let call = format!("call {}{finalize}()", self.plan.prefix());
        self.statement(&self.indent(unit), &call)
    }

    /// Where the `!$` sentinel stands on the line starting at
    /// `line_start`, as an offset into the line, if it is such a line.
    fn conditional_sentinel(&self, line_start: usize) -> Option<usize> {
        let line = line_start..self.file.end_of_line(line_start);
        self.model.fortran.openmp_sentinel(&line)
    }
}
