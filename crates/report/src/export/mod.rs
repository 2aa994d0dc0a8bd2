//! What a run's measurements become for the tools HPC people already use:
//! a CUBE4 archive of the profiles ([`cube`], for Cube and pycubexr), the
//! trace as Chrome trace JSON ([`chrome`], for Perfetto) and as an OTF2
//! archive ([`otf2`], for Vampir and the OTF2 tools).

pub mod chrome;
pub mod cube;
pub mod mpi_flow;
pub mod otf2;
