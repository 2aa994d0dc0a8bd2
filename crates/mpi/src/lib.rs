//! The POMP MPI library: what measures a program's MPI calls.
//!
//! It defines MPI's functions ([`functions::WRAPPERS`], the contract's
//! `pomp2::mpi::FUNCTIONS`) in C and in Open MPI's Fortran bindings, calls
//! the MPI library's `PMPI_` entry points (MPI's profiling interface), and
//! reports each call to pomp's runtime through its `pomp_mpi_*` functions.
//! MPI's handles and constants belong to one MPI implementation, so the
//! library is C compiled with that MPI's own compiler wrapper (`mpicc`):
//! [`source`] makes its sources, [`build`] compiles them into an archive,
//! kept in a cache by what the sources and the compiler are, and
//! [`compiler`] finds the MPI and tells whether a link links it. It
//! prints nothing and knows no command line; the compiler wrappers use it.

pub mod build;
pub mod compiler;
pub mod functions;
pub mod source;

pub use build::{library, ARCHIVE};
pub use compiler::{compiler_behind, first_mpi_argument, is_mpi_wrapper, links_mpi, MpiCompiler};
