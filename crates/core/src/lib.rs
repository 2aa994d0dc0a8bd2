//! pomp's instrumenter: exact OpenMP instrumentation for the POMP2
//! measurement interface.
//!
//! The pipeline is one module per stage, data flowing one way:
//! [`frontend`] → [`directive`] → [`model`] → [`rules`] → [`edits`] →
//! [`output`], driven by [`instrument`]. This crate prints nothing and
//! knows no command line, editor protocol, watcher or thread pool: the
//! wrappers, batch runs, the language server and the `pomp` program are
//! built on it.

// libclang's unsafe bindings live in pomp-clang-bindings. The one unsafe
// call left is mapping a large file, allowed where it stands.
#![deny(unsafe_code)]

pub mod diagnostics;
pub mod directive;
pub mod edits;
pub mod filter;
pub mod frontend;
pub mod instrument;
pub mod language;
pub mod model;
pub mod output;
pub mod rules;
pub mod source;

/// A digest of everything that decides what the instrumenter writes: its
/// sources, the grammar tables, the POMP2 contract and the locked
/// dependencies. Caches of instrumented files key by it, so that a rebuilt
/// pomp never takes what another build wrote, even at the same version.
pub const BUILD_DIGEST: &str = env!("POMP_BUILD_DIGEST");
