//! The POMP2 contract: what instrumented code, the measurement library and
//! the tools that read their output agree on. Both sides of every interface
//! use these definitions, so the instrumenter, the runtime, the tests and
//! the reports cannot drift apart.

pub mod chrome;
pub mod clock;
pub mod ctc;
pub mod document;
pub mod events;
pub mod experiment;
pub mod idf;
pub mod mpi;
pub mod profile;
pub mod region;
pub mod registration;
pub mod trace;

pub use region::{EventSet, Interface, RegionId};
