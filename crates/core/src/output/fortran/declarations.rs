//! Declarations at the end of each program unit's specification part:
//! the handles and CTC strings the unit uses and the variables its
//! inserted code needs.

use super::lines::string_expression;
use super::renderer::Renderer;
use super::renderer::UnitNeeds;
use crate::edits::Origin;
use crate::language::fortran::fixed_form;
use crate::rules::{Interface, Region, MAX_THREADS_VAR};

/// A context descriptor of the original interface (`struct ompregdescr`:
/// six pointers and five ints, padded) occupies 64 bytes on LP64 targets;
/// program units see it as that many bytes of 8-byte integers.
const DESCRIPTOR_WORDS: usize = 8;

impl Renderer<'_> {
    pub(super) fn handle_declarations<'r>(
        &self,
        indent: &str,
        regions: impl Iterator<Item = &'r Region> + Clone,
    ) -> String {
        let mut out = String::new();
        // One statement per handle: no line grows with the region count.
        let (kind, words) = match self.plan.interface {
            Interface::Pomp2 => ("integer(kind=8)", String::new()),
            Interface::Pomp1 => ("integer", String::new()),
            Interface::Pomp1Paper => ("integer(kind=8)", format!("({DESCRIPTOR_WORDS})")),
        };
        for region in regions.clone() {
            out.push_str(&self.statement(indent, &format!("{kind} :: {}{words}", region.handle)));
        }
        for region in regions {
            let block = self.common_block(region);
            out.push_str(&self.statement(indent, &format!("common /{block}/ {}", region.handle)));
        }
        out
    }

    pub(super) fn ctc_declaration(&self, indent: &str, region: &Region) -> String {
        let text = format!(
            "character(len=*), parameter :: pomp2_ctc_{} = {}",
            region.id,
            string_expression(&self.plan.ctc(region))
        );
        self.statement(indent, &text)
    }

    /// Declares in each program unit what the code inserted into it
    /// needs; or, where the declarations go into a file of their own,
    /// what any unit needs, which each unit that needs something
    /// includes. Returns that file's text.
    pub(super) fn declarations(&mut self) -> Option<String> {
        let needs = std::mem::take(&mut self.needs);
        let Some(name) = &self.config.declarations_file else {
            for (unit_index, needs) in &needs {
                let indent = self.indent(Some(*unit_index));
                let text = self.declarations_of(&indent, needs);
                self.declare_in(*unit_index, &text);
            }
            return None;
        };
        let mut all = UnitNeeds::default();
        for needs in needs.values() {
            all.add(needs);
        }
        // The included file is read in the including file's form: its
        // statements begin where a fixed-form statement may.
        let text = self.declarations_of(fixed_form::STATEMENT_INDENT, &all);
        for unit_index in needs.keys() {
            let indent = self.indent(Some(*unit_index));
            // An INCLUDE line is not a statement: it cannot be continued.
            let include = format!("{indent}include '{name}'\n");
            self.declare_in(*unit_index, &include);
        }
        Some(text)
    }

    /// Puts `text` at the end of the unit's specification part.
    fn declare_in(&mut self, unit_index: usize, text: &str) {
        let unit = &self.model.units[unit_index];
        let Some(at) = unit.declarations_at else {
            return;
        };
        if text.is_empty() {
            return;
        }
        let mut edit = String::new();
        if at > 0 && self.file.bytes[at - 1] != b'\n' {
            edit.push('\n');
        }
        edit.push_str(text);
        edit.push_str(&self.line_marker(self.file.line_of(at)));
        self.edits
            .insert(at, edit, i64::MIN + 1, Origin::Unit { unit: unit_index });
    }

    /// The declarations of what `needs` lists, each statement indented by
    /// `indent`.
    fn declarations_of(&self, indent: &str, needs: &UnitNeeds) -> String {
        let mut out = String::new();
        if !needs.regions.is_empty() {
            let regions = needs.regions.iter().map(|&r| &self.plan.regions[r]);
            out.push_str(&self.handle_declarations(indent, regions));
            let ctc_strings = self.plan.interface == Interface::Pomp2;
            for &region in needs.regions.iter().filter(|_| ctc_strings) {
                out.push_str(&self.ctc_declaration(indent, &self.plan.regions[region]));
            }
        }
        let tasks: Vec<&str> = [
            (needs.old_task, "pomp2_old_task"),
            (needs.new_task, "pomp2_new_task"),
        ]
        .iter()
        .filter(|(needed, _)| *needed)
        .map(|(_, name)| *name)
        .collect();
        if !tasks.is_empty() {
            out.push_str(
                &self.statement(indent, &format!("integer(kind=8) :: {}", tasks.join(", "))),
            );
        }
        if needs.num_threads {
            out.push_str(&self.statement(indent, "integer :: pomp2_num_threads"));
        }
        if needs.thread_private {
            let name = crate::rules::FORTRAN_THREAD_PRIVATE;
            out.push_str(&self.statement(indent, &format!("integer(kind=8) :: {name}")));
            out.push_str(&self.statement(indent, &format!("common /{name}/ {name}")));
            out.push_str(&self.directive_line(&format!("threadprivate(/{name}/)")));
        }
        if needs.teams_max_threads {
            out.push_str(&self.statement(indent, &format!("integer :: {MAX_THREADS_VAR}")));
        }
        if needs.if_value {
            out.push_str(&self.statement(indent, "logical :: pomp2_if"));
        }
        if needs.max_threads {
            out.push_str(&self.statement(indent, "integer, external :: pomp2_lib_get_max_threads"));
        }
        if !needs.lock_tests.is_empty() {
            let names: Vec<&str> = needs.lock_tests.iter().map(String::as_str).collect();
            out.push_str(&self.statement(
                indent,
                &format!("logical, external :: {}", names.join(", ")),
            ));
        }
        out
    }
}
