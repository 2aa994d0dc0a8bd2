//! Front ends: from source bytes to the [`Found`] the rules work on.
//!
//! A front end finds every directive, the exact byte range of the code it
//! applies to, the program units around them, the places where declarations
//! may go, lock calls and jumps. What follows from those alone (nesting,
//! where nothing may be inserted, implicit sections) is added by
//! [`crate::model::complete`], the same for every front end. Nothing after
//! this stage knows which parser produced the model.

mod auto;
mod c_shared;
pub mod fortran;
pub(crate) mod lexical;
pub mod libclang;
pub mod reading;
pub mod tree_sitter_c;
mod unknown;

use crate::language::Family;
use crate::model::CodeRegions;
use crate::source::SourceFile;
pub use reading::{FrontEnd, LastReading, LOCK_ROUTINES};

/// Which front end reads C and C++ files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Choice {
    TreeSitter,
    Clang,
    /// tree-sitter, and clang (when the compile flags are known and
    /// libclang is there) for a file whose reading depends on what only
    /// the preprocessor knows.
    #[default]
    Auto,
}

/// How C and C++ files are read: the front end, and the compile flags
/// known for the file (clang reads with them).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Options {
    pub choice: Choice,
    pub compile_flags: Option<libclang::CompileFlags>,
    /// Code beyond directives to hand over as regions (`--regions`).
    pub regions: CodeRegions,
}

/// The front end that reads `file` as `options` say.
pub fn for_file(file: &SourceFile, options: &Options) -> Box<dyn FrontEnd> {
    match file.language.family() {
        Family::Fortran => Box::new(fortran::TreeSitterFortran {
            regions: options.regions.clone(),
        }),
        Family::C => {
            let tree_sitter_c = || tree_sitter_c::TreeSitterC {
                regions: options.regions.clone(),
                ..tree_sitter_c::TreeSitterC::default()
            };
            let flags = || options.compile_flags.clone().unwrap_or_default();
            match options.choice {
                Choice::TreeSitter => Box::new(tree_sitter_c()),
                Choice::Clang => {
                    Box::new(libclang::Clang::new(flags()).reading(options.regions.clone()))
                }
                Choice::Auto if options.compile_flags.is_some() => {
                    Box::new(auto::Auto::new(flags(), options.regions.clone()))
                }
                Choice::Auto => Box::new(tree_sitter_c()),
            }
        }
    }
}
