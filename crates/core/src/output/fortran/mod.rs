//! Rendering a plan as Fortran text, free or fixed form.
//!
//! Fortran has no block scopes, so the handles live in one common block per
//! file, declared in every program unit that uses them and in the
//! registration routine; the variables the calls need are declared once per
//! unit. Directive lines are replaced by the directive (split into its
//! layers) with the calls around it; end directives likewise, and where an
//! optional end directive was left out, one is inserted after the loop or
//! statement when `nowait` or a split combined construct needs it.
//!
//! This module writes in the order the edits are made; each job has a
//! file: `constructs` (directive lines and their end directives),
//! `calls` (event calls and the values they pass), `data_sharing` (what a
//! rewritten directive says of the inserted variables), `exits` (jumps
//! out of user regions), `declarations` (each unit's specification part),
//! `registration` and `descriptors` (the routines at the end of the file,
//! for POMP2 and for the original interface), and `lines` (the form's
//! width, indentation and continuation lines); `renderer` holds the state
//! they all write to. The front end has read everything the text is
//! written around into the model: nothing here reads Fortran.

mod calls;
mod constructs;
mod data_sharing;
mod declarations;
mod descriptors;
mod exits;
mod functions;
mod lines;
mod registration;
mod renderer;

use crate::edits::{EditBuilder, Origin};
use crate::language::Language;
use crate::model::{LockCall, Model};
use crate::output::writing::{
    on_lines_of_its_own, preprocessed_marker, write_plan, Config, Emitted, PlanWriter,
};
use crate::rules::{
    BareDirective, Construct, FunctionRegion, Interface, NamedPlan, PompAction, RegionExit,
    ValueScope,
};
use crate::source::SourceFile;
use data_sharing::private_vars;
use renderer::Renderer;
use std::collections::BTreeMap;

/// The edits that turn `file` into its instrumented form, and the
/// declarations' text when they go into a file of their own.
pub fn emit(file: &SourceFile, model: &Model, plan: &NamedPlan, config: &Config) -> Emitted {
    let mut r = Renderer {
        file,
        model,
        plan,
        config,
        fixed_form: file.language == Language::FortranFixed,
        edits: EditBuilder::with_capacity(crate::output::writing::edits_expected(plan)),
        needs: BTreeMap::new(),
        private_vars: private_vars(model, plan),
    };
    write_plan(plan, &mut r);
    r.constructs_holding_inserted_code();
    r.conditional_lines();
    // A preprocessed file's marker has no place in Fortran: a blank line
    // takes its place.
    if let Some(line) = config
        .preprocessed
        .then(|| preprocessed_marker(&file.bytes))
        .flatten()
    {
        let text_end = line.start + file.bytes[line.clone()].trim_ascii_end().len();
        r.edits.replace(line.start..text_end, "", 0, Origin::File);
    }
    if plan.regions.is_empty() && r.edits.is_empty() {
        return Emitted::default();
    }
    let declarations = r.declarations();
    if !plan.regions.is_empty() {
        let routine = match plan.interface {
            Interface::Pomp2 => r.registration(),
            Interface::Pomp1 | Interface::Pomp1Paper => r.descriptor_initialiser(),
        };
        // Where OPARI2's files are made, the registration routine comes
        // first, ahead of the line marker that starts the user's lines:
        // the first lines a compiler describes in debug information are
        // then not the user's, which binutils (2.40) would name after the
        // output instead (it reads DWARF 5's second file entry as the
        // first).
        if config.declarations_file.is_some() && config.line_markers {
            r.edits.insert(0, routine, i64::MIN, Origin::File);
        } else {
            r.edits.insert(
                file.bytes.len(),
                on_lines_of_its_own(file, routine),
                i64::MAX,
                Origin::File,
            );
        }
    }
    if config.line_markers {
        let preamble = format!(
            "#ifndef _POMP\n#define _POMP 200110\n#endif\n{}",
            r.line_marker(1)
        );
        r.edits.insert(0, preamble, i64::MIN, Origin::File);
    }
    Emitted {
        edits: std::mem::take(&mut r.edits).build(),
        declarations,
    }
}

impl PlanWriter for Renderer<'_> {
    fn construct(&mut self, _: usize, construct: &Construct) {
        Renderer::construct(self, construct)
    }

    fn pomp_directive(&mut self, site: usize, action: &PompAction) {
        Renderer::pomp_directive(self, site, action)
    }

    fn bare_directive(&mut self, bare: &BareDirective) {
        Renderer::bare_directive(self, bare)
    }

    fn value_scope(&mut self, scope: &ValueScope) {
        Renderer::value_scope(self, scope)
    }

    fn exit(&mut self, exit: &RegionExit) {
        Renderer::exit(self, exit)
    }

    fn function(&mut self, function: &FunctionRegion) {
        Renderer::function_region(self, function)
    }

    fn lock_call(&mut self, lock: &LockCall) {
        Renderer::lock_call(self, lock)
    }
}

impl Renderer<'_> {
    fn lock_call(&mut self, lock: &LockCall) {
        let renamed = pomp2::events::lock_wrapper(&lock.name);
        if renamed.starts_with("Test") {
            if let Some(unit) = self.model.unit_at(lock.span.start) {
                let needs = self.needs.entry(unit).or_default();
                needs.lock_tests.insert(self.plan.function(&renamed));
            }
        }
        let wrapper = self.plan.function(&renamed);
        self.edits
            .replace(lock.span.clone(), wrapper, 0, Origin::LockCall);
    }

    /// `!P$` lines (fixed form also `CP$`, `*P$`) are code when
    /// instrumenting: the sentinel becomes blanks, columns stay put. The
    /// front end parsed them as code.
    fn conditional_lines(&mut self) {
        for &at in &self.model.fortran.pomp_sentinels {
            self.edits.replace(at..at + 3, "   ", 0, Origin::File);
        }
    }
}
