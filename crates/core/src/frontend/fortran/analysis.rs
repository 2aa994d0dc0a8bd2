//! The state of reading one Fortran file: the scanned lines, the parse
//! and what every step of the reading adds to the model.

use super::lines::Scan;
use super::parse_text::ParseText;
use crate::directive::{DirectiveError, Sentinel};
use crate::model::Found;
use crate::source::{SourceFile, Span};
use tree_sitter::{Node, Tree};

pub(crate) struct Analysis<'a> {
    pub(super) file: &'a SourceFile,
    pub(super) scan: &'a Scan,
    pub(super) parse: &'a ParseText,
    pub(super) tree: &'a Tree,
    /// The tree node of each unit in [`Found::units`].
    pub(super) unit_nodes: Vec<Node<'a>>,
    pub(super) model: Found,
    /// The unit of each of `model.sites`, once the units are read.
    pub(super) site_units: Vec<Option<usize>>,
    /// Directives the table does not know.
    pub(super) unknown: Vec<UnknownDirective>,
    /// The code beyond directives read as regions.
    pub(super) regions: crate::model::CodeRegions,
}

/// A directive whose name the table does not know.
pub(crate) struct UnknownDirective {
    pub sentinel: Sentinel,
    pub span: Span,
    pub lines: Span,
    /// Its name as written, lowercase, without blanks: `foo`, `endfoo`.
    pub name: String,
    pub error: DirectiveError,
}
