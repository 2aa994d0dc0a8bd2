//! The routines the link-time registration calls: they hand every handle
//! of the file to the measurement library.

use super::renderer::Renderer;

impl Renderer<'_> {
    /// The routines the link-time `POMP2_Init_regions` and
    /// `POMP2_USER_Init_regions` call: they hand every handle of this file
    /// to the library, user regions' apart, as OPARI2's libraries read
    /// those with a parser of their own.
    pub(super) fn registration(&self) -> String {
        let (outer, inner) = self.routine_indents();
        let mut out = String::new();
        for (function, user) in [
            (self.plan.registration(), false),
            (self.plan.user_registration(), true),
        ] {
            let Some(name) = function else {
                continue;
            };
            let regions = || self.plan.regions.iter().filter(move |r| r.user == user);
            let assign = if user {
                "POMP2_USER_Assign_handle"
            } else {
                "POMP2_Assign_handle"
            };
            out.push_str(&self.statement(
                outer,
                &format!("subroutine {name}() bind(C, name=\"{name}\")"),
            ));
            out.push_str(&self.statement(inner, "implicit none"));
            out.push_str(&self.handle_declarations(inner, regions()));
            for region in regions() {
                out.push_str(&self.ctc_declaration(inner, region));
            }
            for region in regions() {
                out.push_str(&self.statement(
                    inner,
                    &format!("call {assign}({}, pomp2_ctc_{})", region.handle, region.id),
                ));
            }
            out.push_str(&self.statement(outer, &format!("end subroutine {name}")));
        }
        out
    }
}
