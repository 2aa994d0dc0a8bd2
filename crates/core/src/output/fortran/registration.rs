//! The routine the link-time registration calls: it hands every handle
//! of the file to the measurement library.

use super::Renderer;

impl Renderer<'_> {
    /// The routine the link-time `POMP2_Init_regions` calls: it hands every
    /// handle of this file to the library.
    pub(super) fn registration(&self) -> String {
        let name = self.plan.init_function();
        let (outer, inner) = self.routine_indents();
        let mut out = String::new();
        out.push_str(&self.statement(
            outer,
            &format!("subroutine {name}() bind(C, name=\"{name}\")"),
        ));
        out.push_str(&self.statement(inner, "implicit none"));
        out.push_str(&self.handle_declarations(inner, self.plan.regions.iter()));
        for region in &self.plan.regions {
            out.push_str(&self.ctc_declaration(inner, region));
        }
        for region in &self.plan.regions {
            out.push_str(&self.statement(
                inner,
                &format!(
                    "call POMP2_Assign_handle({}, pomp2_ctc_{})",
                    region.handle, region.id
                ),
            ));
        }
        out.push_str(&self.statement(outer, &format!("end subroutine {name}")));
        out
    }
}
