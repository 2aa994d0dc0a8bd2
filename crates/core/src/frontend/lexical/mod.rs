//! The lexical floor every front end stands on: finding directives and
//! preprocessor lines in C and C++ text ([`scan`]), deciding preprocessor
//! conditionals ([`conditionals`]) and evaluating their expressions
//! ([`expression`]), which the Fortran front end's conditionals use too.
//! It knows no parser: tree-sitter C, libclang and Fortran each build on
//! it, and it imports none of them.

pub mod conditionals;
pub mod expression;
pub mod scan;

pub(crate) use crate::language::c::lex;
