//! Directives the table does not know, in Fortran. Each is left as
//! written. The code it may apply to gets no inserted calls, since pomp
//! cannot tell whether it is a construct nor what that construct allows
//! inside: the lines up to its `!$omp end` directive when it has one,
//! otherwise the construct or statement that follows it.
//!
//! One case is refused: an unknown directive with an end directive of its
//! own between a loop construct and its loop. pomp closes the loop
//! construct right after the loop (with its end directive, the barrier it
//! makes explicit and its exit call), which would then come before the
//! unknown directive's end and break the nesting.

use super::analysis::{Analysis, UnknownDirective};
use super::lines::LineKind;
use crate::diagnostics::Diagnostic;
use crate::directive::{Association, Sentinel};
use crate::frontend::unknown::directive_left_as_written;

impl Analysis<'_> {
    /// Reports every unknown directive and keeps the code each may apply
    /// to free of inserted calls. Runs once constructs have their blocks.
    pub(super) fn unknown_directives(&mut self) {
        let unknown = std::mem::take(&mut self.unknown);
        let ends = self.pair_end_directives(&unknown);
        for (index, u) in unknown.iter().enumerate() {
            if u.sentinel == Sentinel::Pomp {
                let warning = directive_left_as_written(u.span.clone(), &u.error, false);
                self.model.diagnostics.push(warning);
                continue;
            }
            if ends.contains(&Some(index)) {
                // An end directive: reported with the directive it closes.
                continue;
            }
            if let Some(loop_site) = self.loop_before(u).filter(|_| ends[index].is_some()) {
                let end = &unknown[ends[index].expect("filtered")];
                let name = self.model.sites[loop_site].directive.name();
                self.model.diagnostics.push(
                    Diagnostic::error(
                        u.span.clone(),
                        format!("{}, between `{name}` and its loop", u.error.message),
                        "not in pomp's OpenMP 6.0 table",
                    )
                    .with_note(format!(
                        "it ends at line {} with an end directive of its own, after the loop; \
                         pomp closes `{name}` right after the loop and cannot put its own end \
                         directive and calls around a construct it does not know",
                        self.file.user_line(end.span.start)
                    )),
                );
                continue;
            }
            let code = match ends[index] {
                Some(end) => Some(u.span.end..unknown[end].lines.start),
                // An end directive whose opener pomp did not see has no code.
                None if u.name.starts_with("end") => None,
                None => self.code_after(u).map(|end| u.span.end..end),
            };
            let code_left_alone = code.is_some();
            if let Some(code) = code {
                self.model.no_insert.push(code);
            }
            self.model.diagnostics.push(directive_left_as_written(
                u.span.clone(),
                &u.error,
                code_left_alone,
            ));
        }
        self.model.no_insert.sort_by_key(|s| (s.start, s.end));
    }

    /// For each unknown directive, the index of the unknown `end` directive
    /// that closes it in the same program unit, if any: `!$omp end foo`
    /// (or `endfoo`) after `!$omp foo`, innermost first.
    fn pair_end_directives(&self, unknown: &[UnknownDirective]) -> Vec<Option<usize>> {
        let mut ends = vec![None; unknown.len()];
        let mut open: Vec<usize> = Vec::new();
        for (index, u) in unknown.iter().enumerate() {
            if u.sentinel != Sentinel::Omp {
                continue;
            }
            let unit = self.model.units.unit_at(u.span.start);
            match u.name.strip_prefix("end").filter(|rest| !rest.is_empty()) {
                Some(closed) => {
                    let opener = open.iter().rposition(|&o| {
                        unknown[o].name == closed
                            && self.model.units.unit_at(unknown[o].span.start) == unit
                    });
                    if let Some(position) = opener {
                        ends[open.remove(position)] = Some(index);
                    }
                }
                None => open.push(index),
            }
        }
        ends
    }

    /// The loop construct whose directive `u` follows before its loop:
    /// only directive, comment and blank lines between the two. Loop
    /// transformations are left out: pomp never instruments them, so it
    /// places nothing after their loops.
    fn loop_before(&self, u: &UnknownDirective) -> Option<usize> {
        let sites = &self.model.sites;
        let index = sites.partition_point(|s| s.span.start < u.span.start);
        let preceding = sites[..index].iter().enumerate().rev();
        for (i, site) in preceding {
            let spec = site.directive.spec();
            let before_loop = site
                .block
                .as_ref()
                .is_some_and(|b| b.start <= u.lines.start)
                && self.only_directives_between(site.lines.end, u.lines.start);
            if !before_loop {
                return None;
            }
            if spec.association == Association::Loop && !spec.loop_transformation {
                return Some(i);
            }
        }
        None
    }

    fn only_directives_between(&self, from: usize, to: usize) -> bool {
        if from >= to {
            return true;
        }
        let (first, last) = (self.scan.line_index(from), self.scan.line_index(to - 1));
        self.scan.kinds[first..=last]
            .iter()
            .all(|k| matches!(k, LineKind::Blank | LineKind::Comment | LineKind::Directive))
    }

    /// Where the code an unknown directive without an end directive may
    /// apply to ends: the construct of the known directive that follows it
    /// directly, or the statement that does.
    fn code_after(&self, u: &UnknownDirective) -> Option<usize> {
        let sites = &self.model.sites;
        let next_site = sites.partition_point(|s| s.span.start < u.span.start);
        let construct = sites
            .get(next_site)
            .filter(|s| self.only_directives_between(u.lines.end, s.lines.start))
            .filter(|s| s.block.is_some());
        if let Some(site) = construct {
            let block_end = site.block.as_ref().map_or(site.lines.end, |b| b.end);
            let end_directive = site.end_site.map_or(0, |e| sites[e].lines.end);
            return Some(block_end.max(end_directive));
        }
        let statement = self.statement_after(u.lines.end)?;
        if self.model.units.unit_at(u.span.start)
            != self
                .model
                .units
                .unit_at(self.original_span(statement).start)
        {
            return None;
        }
        Some(self.end_of_last_line(statement))
    }
}
