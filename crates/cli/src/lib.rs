//! What pomp's tools share above the instrumenter. The instrumenter
//! returns diagnostics as data, with the options they advise named, and
//! takes its settings as a structure; this crate holds the one table of
//! options that `pomp instrument`, `preview`, `batch`, the compiler
//! wrappers and the language server offer, spells an option as each of
//! them takes it, and renders diagnostics for a terminal.

pub mod options;
pub mod render;
