//! The directive model: a directive's text parsed into its name, leaf
//! constructs and clauses, checked against the OpenMP directive table that
//! lives as data in `grammars/openmp.toml`.

mod parse;
mod syntax;
mod table;

pub use parse::{
    parse_apply, parse_declaration_attribute, parse_directive, split_top_level, top_level_colon,
    Apply, DirectiveError, Parsed, Problem,
};
pub use syntax::{Clause, Directive, Sentinel};
pub use table::{
    table, ArgumentUse, Association, ClauseSpec, DirectiveSpec, Distribution, LeafSpec, Role,
    Table, Team,
};

#[cfg(test)]
mod tests;
