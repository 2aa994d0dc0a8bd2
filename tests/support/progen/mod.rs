//! A generator of random, valid, deterministic OpenMP programs in C and
//! Fortran (free and fixed form), the differential check that compares
//! each with its instrumented version, and the reducer that cuts a failing
//! program down to the statements that make it fail.

pub mod ast;
pub mod check;
mod clauses;
pub mod generate;
pub mod measurement;
mod render_c;
mod render_fortran;
pub mod shrink;
#[path = "../toolchains.rs"]
pub mod toolchains;

use ast::{Lang, Program};

/// The program's source text; `headline` becomes its first-line comment.
pub fn render(program: &Program, headline: &str) -> String {
    match program.lang {
        Lang::C => render_c::render(program, headline),
        Lang::FortranFree | Lang::FortranFixed => render_fortran::render(program, headline),
    }
}
