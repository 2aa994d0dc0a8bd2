//! The state of reading one C or C++ file: what every step of the
//! reading reads and adds to.

use super::syntax::Syntax;
use crate::model::Found;
use crate::source::Span;

pub(super) struct Reading<'s, S: Syntax> {
    pub(super) syntax: &'s S,
    pub(super) model: Found,
    /// The statement each site's block is, by site index: `None` for
    /// sites without a block and for blocks that are conditionals.
    pub(super) statements: Vec<Option<S::Node>>,
    /// Directives the table does not know.
    pub(super) unknown: Vec<Span>,
}
