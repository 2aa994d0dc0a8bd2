//! The POMP2 contract: what instrumented code, the measurement library and
//! the tools that read their output agree on. Both sides of every interface
//! use these definitions, so the instrumenter, the runtime, the tests and
//! the reports cannot drift apart.

pub mod c_interface;
pub mod chrome;
pub mod clock;
pub mod ctc;
pub mod document;
pub mod events;
pub mod experiment;
pub mod identity;
pub mod idf;
pub mod mpi;
pub mod profile;
pub mod region;
pub mod registration;
pub mod trace;

pub use region::{EventSet, Interface, RegionId};

/// Every function pomp's runtime defines globally: the POMP2 interface
/// with both linkages ([`events::library_symbols`]) and the entry points
/// through which the POMP MPI library reports ([`mpi::ENTRY_POINTS`]).
/// Nothing else of the runtime may be global, or it could take the place
/// of one of the program's own functions.
pub fn runtime_symbols() -> impl Iterator<Item = String> {
    events::library_symbols().chain(mpi::ENTRY_POINTS.iter().map(|entry| entry.name.to_string()))
}
