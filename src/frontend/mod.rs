//! Front ends: from source bytes to the [`Model`] the rules work on.
//!
//! A front end finds every directive, the exact byte range of the code it
//! applies to, the program units around them, the places where declarations
//! may go, lock calls and jumps. What follows from those alone (nesting,
//! where nothing may be inserted, implicit sections) is added by
//! [`crate::model::complete`], the same for every front end. Nothing after
//! this stage knows which parser produced the model.

pub mod c;
pub mod fortran;
mod unknown;

use crate::model::Model;
use crate::source::{Language, SourceFile};

/// The OpenMP lock routines whose calls are renamed to their POMP2 wrappers.
pub const LOCK_ROUTINES: &[&str] = &[
    "omp_init_lock",
    "omp_destroy_lock",
    "omp_set_lock",
    "omp_unset_lock",
    "omp_test_lock",
    "omp_init_nest_lock",
    "omp_destroy_nest_lock",
    "omp_set_nest_lock",
    "omp_unset_nest_lock",
    "omp_test_nest_lock",
];

/// A front end reads a source file into a model.
pub trait FrontEnd {
    fn name(&self) -> &'static str;

    /// Sites with their blocks, units, lock calls, jumps and diagnostics,
    /// in file order; `unit` and `parent` of sites may be left empty.
    fn read(&self, file: &SourceFile) -> Model;

    /// The complete model of `file`.
    fn analyse(&self, file: &SourceFile) -> Model {
        crate::model::complete(file, self.read(file))
    }
}

/// The default front end for a file's language.
pub fn for_file(file: &SourceFile) -> Box<dyn FrontEnd> {
    match file.language {
        Language::C | Language::Cpp => Box::new(c::TreeSitterC::default()),
        Language::FortranFree | Language::FortranFixed => Box::new(fortran::TreeSitterFortran),
    }
}
