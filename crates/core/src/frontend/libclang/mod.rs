//! The libclang front end for C and C++: the file read as the compiler
//! reads it, with its flags — macros expanded, inactive `#if` branches
//! dropped, includes found.
//!
//! With `-fopenmp`, libclang shows a directive as a cursor covering only
//! its pragma line and does not visit the statements inside a captured
//! region. So the file is parsed without it (and with `_OPENMP` defined as
//! the compiler defines it): every directive is then invisible to the
//! parser, and the statement after it an ordinary statement. Directives
//! are found lexically as the tree-sitter front end finds them, those in
//! branches the preprocessor skipped are dropped, and each block is the
//! statement that starts at the first token the parser sees after the
//! directive — with nested directives in between belonging to it, exactly
//! as in the tree-sitter front end. Directives that macros produce
//! (`_Pragma` in a `#define`) are found at their use ([`macros`]).

// libclang's constants keep their C names.
#![allow(non_upper_case_globals)]

pub mod compile_flags;
pub mod cross_check;

mod library;
mod macros;
mod reader;
mod syntax;
mod tree;

pub use compile_flags::{CompileFlags, Compiler, CompilerHandle};
pub use library::{available, INSTALL_HINT};
pub use reader::Facts;

use super::reading::FrontEnd;
use crate::diagnostics::{Advice, Diagnostic};
use crate::model::Found;
use crate::source::SourceFile;
use pomp_clang_bindings::{ClangDiagnostic, TranslationUnit};

/// The libclang front end, reading with `flags`.
pub struct Clang {
    pub flags: CompileFlags,
    /// The code beyond directives read as regions.
    pub regions: crate::model::CodeRegions,
}

impl Clang {
    pub fn new(flags: CompileFlags) -> Clang {
        Clang {
            flags,
            regions: Default::default(),
        }
    }

    /// The front end reading `regions` besides directives.
    pub fn reading(self, regions: crate::model::CodeRegions) -> Clang {
        Clang { regions, ..self }
    }

    /// Read `file`, with what only the clang front end knows besides the
    /// model; `Err` with the diagnostics when clang cannot read it.
    pub fn read_detailed(&self, file: &SourceFile) -> Result<(Found, Facts), Vec<Diagnostic>> {
        library::ensure_loaded().map_err(|why| {
            vec![Diagnostic::error(
                0..0,
                "the clang front end needs libclang, and none was found",
                "not read",
            )
            .with_note(why)
            .with_note(INSTALL_HINT)
            .with_advice(Advice::TREE_SITTER, |advice| format!("or choose {advice}"))]
        })?;
        let path = self.flags.absolute(&file.path);
        let unit =
            TranslationUnit::parse(&path, &file.bytes, &self.flags.clang_args(file.language))
                .map_err(|why| vec![Diagnostic::error(0..0, why, "not read")])?;
        let errors = read_errors(file, unit.diagnostics());
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(reader::read(file, &unit, &self.regions))
    }
}

/// The errors that stop the clang front end. An error of the preprocessor
/// (a header not found) stops the compile wherever it stands, in the file
/// or in a header, so it is reported first, at the file's `#include` that
/// leads to it, and the errors after it, which may follow from it, are
/// only counted. Other errors in a header (gcc's `omp.h` uses attributes
/// clang does not know) matter only where they break the file's own code,
/// and clang reports that in the file; in a preprocessed file, the lines
/// of a library's header are such a header's.
fn read_errors(file: &SourceFile, diagnostics: Vec<ClangDiagnostic>) -> Vec<Diagnostic> {
    // Every error clang stops at says the same: the flags may be wrong, or
    // tree-sitter may read the file instead.
    let check_flags = |d: Diagnostic| {
        d.with_advice(Advice::TREE_SITTER, |advice| {
            format!(
                "the clang front end reads a file only as the compiler would compile it; check \
                 the compile flags (or choose {advice})"
            )
        })
    };
    let in_header = |d: &ClangDiagnostic| d.offset.is_some_and(|at| file.in_library_header(at));
    let errors = (diagnostics.into_iter()).filter(|d| d.error && (d.preprocessor || !in_header(d)));
    let (fatal, other): (Vec<ClangDiagnostic>, Vec<ClangDiagnostic>) =
        errors.partition(|d| d.preprocessor);
    if fatal.is_empty() {
        return other
            .into_iter()
            .filter_map(|d| {
                let at = d.offset?;
                Some(check_flags(
                    Diagnostic::error(at..at, format!("clang: {}", d.message), "clang stops here")
                        .with_note(format!("as clang reports it: {}", d.formatted)),
                ))
            })
            .collect();
    }
    let follow = other.len();
    let mut errors: Vec<Diagnostic> = fatal
        .into_iter()
        .map(|d| {
            let (span, label) = match (d.offset, d.included_at) {
                (Some(at), _) => (at..at, "clang stops here"),
                (None, Some(at)) => (at..at, "in a header included here"),
                (None, None) => (0..0, "clang stops here"),
            };
            check_flags(
                Diagnostic::error(span, format!("clang: {}", d.message), label)
                    .with_note(format!("as clang reports it: {}", d.formatted)),
            )
        })
        .collect();
    if follow > 0 {
        let last = errors.len() - 1;
        let note = match follow {
            1 => "1 further error follows from it and is not shown".to_string(),
            n => format!("{n} further errors follow from it and are not shown"),
        };
        errors[last] = errors[last].clone().with_note(note);
    }
    errors
}

impl FrontEnd for Clang {
    fn name(&self) -> &'static str {
        "clang"
    }

    fn read(&self, file: &SourceFile) -> Found {
        match self.read_detailed(file) {
            Ok((model, _)) => model,
            Err(errors) => Found {
                diagnostics: errors,
                ..Found::default()
            },
        }
    }
}
