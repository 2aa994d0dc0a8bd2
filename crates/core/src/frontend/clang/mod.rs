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
mod translation_unit;
mod tree;

pub use compile_flags::CompileFlags;
pub use library::{available, INSTALL_HINT};

use super::FrontEnd;
use crate::diagnostics::Diagnostic;
use crate::model::Found;
use crate::source::{SourceFile, Span};
use std::cell::Cell;
use translation_unit::TranslationUnit;

/// The libclang front end, reading with `flags`.
pub struct Clang {
    pub flags: CompileFlags,
    /// Read with tree-sitter instead when clang cannot read the file
    /// (`--frontend auto`): a compiler difference or a missing header
    /// should not stop a build that gcc would compile.
    pub fallback: bool,
    fell_back: Cell<bool>,
}

impl Clang {
    pub fn new(flags: CompileFlags, fallback: bool) -> Clang {
        Clang {
            flags,
            fallback,
            fell_back: Cell::new(false),
        }
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
            .with_note("or choose `--frontend tree-sitter`")]
        })?;
        let path = self.flags.absolute(&file.path);
        let unit =
            TranslationUnit::parse(&path, &file.bytes, &self.flags.clang_args(file.language))
                .map_err(|why| vec![Diagnostic::error(0..0, why, "not read")])?;
        // An error in a header (gcc's `omp.h` uses attributes clang does not
        // know) matters only where it breaks the file's own code, and clang
        // reports that in the file.
        let errors: Vec<Diagnostic> = unit
            .diagnostics()
            .into_iter()
            .filter(|d| d.error)
            .filter_map(|d| {
                let at = d.offset?;
                Some(
                    Diagnostic::error(at..at, format!("clang: {}", d.message), "clang stops here")
                        .with_note(format!("as clang reports it: {}", d.formatted))
                        .with_note(
                            "the clang front end reads a file only as the compiler would compile \
                         it; check the flags given after `--` (or choose `--frontend \
                         tree-sitter`)",
                        ),
                )
            })
            .collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(reader::read(file, &unit))
    }
}

/// What the clang front end saw besides the model.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// The ranges the preprocessor skipped.
    pub skipped: Vec<Span>,
    /// Where directives come from macros: each use of such a macro.
    pub macro_uses: Vec<Span>,
}

impl FrontEnd for Clang {
    fn name(&self) -> &'static str {
        if self.fell_back.get() {
            "tree-sitter"
        } else {
            "clang"
        }
    }

    fn read(&self, file: &SourceFile) -> Found {
        match self.read_detailed(file) {
            Ok((model, _)) => model,
            Err(errors) if self.fallback => {
                self.fell_back.set(true);
                let mut model = super::c::TreeSitterC::default().read(file);
                let first = &errors[0];
                let note = Diagnostic::note(
                    first.span.clone(),
                    "clang could not read this file as the compiler would; read with tree-sitter \
                     instead",
                    first.message.clone(),
                );
                model.diagnostics.push(note);
                model
            }
            Err(errors) => Found {
                diagnostics: errors,
                ..Found::default()
            },
        }
    }
}
