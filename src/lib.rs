//! pomp: exact OpenMP instrumentation for the POMP2 measurement interface.
//!
//! The pipeline is one module per stage, data flowing one way:
//! [`frontend`] → [`directive`] → [`rules`] → [`edits`] → [`output`],
//! driven by [`instrument`]. The compiler wrappers live in [`wrapper`].

pub mod batch;
pub mod diagnostics;
pub mod directive;
pub mod edits;
pub mod flags;
pub mod frontend;
pub mod instrument;
pub mod lsp;
pub mod model;
pub mod output;
pub mod preview;
pub mod report;
pub mod rules;
pub mod source;
pub mod wrapper;
