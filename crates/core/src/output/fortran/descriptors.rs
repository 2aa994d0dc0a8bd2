//! The original interface's context descriptors, filled by a routine of
//! the file on first use.

use super::lines::string_expression;
use super::renderer::Renderer;
use crate::rules::Interface;

impl Renderer<'_> {
    /// The original interface's descriptors cannot be initialised
    /// statically in Fortran (a C pointer to a string is no constant), so
    /// the file's initialiser fills them on first use: each construct and
    /// user region calls it before its first event. Later events of the
    /// same region happen after that one.
    fn descriptor_initialiser_name(&self) -> String {
        format!("pomp_rd_init_{}", self.plan.unique)
    }

    pub(super) fn descriptor_guard(&self, unit: Option<usize>) -> String {
        match self.plan.interface {
            Interface::Pomp2 => String::new(),
            Interface::Pomp1 | Interface::Pomp1Paper => self.statement(
                &self.indent(unit),
                &format!("call {}()", self.descriptor_initialiser_name()),
            ),
        }
    }

    /// The routine that fills this file's descriptors and chains them
    /// through `next`, once, whichever thread calls it first: later calls
    /// only read a flag.
    pub(super) fn descriptor_initialiser(&self) -> String {
        let name = self.descriptor_initialiser_name();
        let (outer, inner) = self.routine_indents();
        let deeper = format!("{inner}  ");
        // Each distinct string once, NUL-terminated for C.
        let mut strings: Vec<String> = vec![self.file.path.to_string_lossy().into_owned()];
        let mut string_var = |text: &str| {
            let index = strings.iter().position(|s| s == text).unwrap_or_else(|| {
                strings.push(text.to_string());
                strings.len() - 1
            });
            format!("c_loc(pomp_rd_str_{})", index + 1)
        };
        let mut assignments = Vec::new();
        for (i, region) in self.plan.regions.iter().enumerate() {
            let fields = crate::output::writing::Pomp1Descriptor::of(self.model, region);
            let (d, _) = self.descriptor(region);
            let d = &d;
            assignments.push(format!("{d}%name = {}", string_var(&fields.name)));
            assignments.push(format!("{d}%sub_name = {}", string_var(&fields.sub_name)));
            assignments.push(format!("{d}%num_sections = {}", fields.num_sections));
            let file_name = self.plan.file_name(&region.start_lines);
            assignments.push(format!("{d}%file_name = {}", string_var(file_name)));
            assignments.push(format!(
                "{d}%begin_first_line = {}",
                region.start_lines.first
            ));
            assignments.push(format!("{d}%begin_last_line = {}", region.start_lines.last));
            assignments.push(format!("{d}%end_first_line = {}", region.end_lines.first));
            assignments.push(format!("{d}%end_last_line = {}", region.end_lines.last));
            // The last one's `next` stays null, as common blocks start zeroed.
            if let Some(next) = self.plan.regions.get(i + 1) {
                assignments.push(format!("{d}%next = c_loc({})", self.descriptor(next).0));
            }
        }

        let mut out = String::new();
        // Statements and, spelled with their sentinel, directives.
        let mut line = |indent: &str, text: &str| {
            if let Some(directive) = text.strip_prefix("!$omp ") {
                out.push_str(&self.directive_line(directive));
            } else {
                out.push_str(&self.statement(indent, text));
            }
        };
        line(outer, &format!("subroutine {name}()"));
        line(
            inner,
            "use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_char, c_null_char, c_loc",
        );
        line(inner, "implicit none");
        line(inner, "type, bind(C) :: pomp_ompregdescr");
        for (kind, field) in [
            ("type(c_ptr)", "name"),
            ("type(c_ptr)", "sub_name"),
            ("integer(c_int)", "num_sections"),
            ("type(c_ptr)", "file_name"),
            ("integer(c_int)", "begin_first_line"),
            ("integer(c_int)", "begin_last_line"),
            ("integer(c_int)", "end_first_line"),
            ("integer(c_int)", "end_last_line"),
            ("type(c_ptr)", "data"),
            ("type(c_ptr)", "next"),
        ] {
            line(&deeper, &format!("{kind} :: {field}"));
        }
        line(inner, "end type pomp_ompregdescr");
        for region in &self.plan.regions {
            line(
                inner,
                &format!(
                    "type(pomp_ompregdescr), target :: {}",
                    self.descriptor(region).0
                ),
            );
        }
        for region in &self.plan.regions {
            let (descriptor, block) = self.descriptor(region);
            line(inner, &format!("common /{block}/ {descriptor}"));
        }
        for (index, text) in strings.iter().enumerate() {
            line(
                inner,
                &format!(
                    "character(kind=c_char, len={}), target, save :: pomp_rd_str_{} = {} // c_null_char",
                    text.len() + 1,
                    index + 1,
                    string_expression(text)
                ),
            );
        }
        line(inner, "logical, save :: pomp_rd_ready = .false.");
        line(inner, "logical :: ready");
        line(inner, "!$omp atomic read");
        line(inner, "ready = pomp_rd_ready");
        line(inner, "if (ready) return");
        line(inner, &format!("!$omp critical ({name})"));
        line(inner, "if (.not. pomp_rd_ready) then");
        for assignment in &assignments {
            line(&deeper, assignment);
        }
        line(inner, "!$omp atomic write");
        line(&deeper, "pomp_rd_ready = .true.");
        line(inner, "end if");
        line(inner, &format!("!$omp end critical ({name})"));
        line(outer, &format!("end subroutine {name}"));
        out
    }
}
