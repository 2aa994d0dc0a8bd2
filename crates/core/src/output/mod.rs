//! Output: the instrumented source and the IDF descriptor.

pub mod c;
pub mod fortran;
pub mod idf;
mod writing;

/// Only the C emitter leaves texts to be made as the output is written.
pub use c::LaterTexts;
pub use writing::{preprocessed_marker, Config, Emitted, PREPROCESSED_MARKER};

/// The edits that instrument `file` as the plan says, in its language.
pub fn emit(
    file: &crate::source::SourceFile,
    model: &crate::model::Model,
    plan: &crate::rules::NamedPlan,
    config: &Config,
) -> Emitted {
    match file.language.family() {
        crate::language::Family::C => c::emit(file, model, plan, config),
        crate::language::Family::Fortran => fortran::emit(file, model, plan, config),
    }
}
