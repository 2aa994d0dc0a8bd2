//! The runtime's traces as one OTF2 archive, the format of Score-P traces
//! that Vampir, `otf2-print`, the OTF2 Python bindings and Scalasca read,
//! written through the OTF2 library the distributions ship ([`library`],
//! loaded when first needed).
//!
//! Each process (an MPI rank, `rank N`) is a location group under its
//! host in the system tree, each of its threads a location. Each span
//! becomes an enter and a leave of its region (a region per construct and
//! kind, with its source file and lines; an MPI function's region per
//! function), with OpenMP's events around them as OTF2 has them: a
//! parallel region's forking thread forks and joins the team; a task's
//! creation creates it, a task instance switches to the task, and
//! completes it, and the thread switches back to the task it suspended.
//! Tasks are named as OTF2 names them: the thread that created them and
//! their number there, which pomp's task ids are made of. MPI's messages
//! and collectives are OTF2's MPI events, inside the calls that made them,
//! on communicators defined as MPI made them ([`comms`]). Spans nest on
//! their thread; an end that the clocks of two cores put past its
//! enclosing span's end is moved back to it, so that every location's
//! events are balanced and in time order.
//!
//! Times are nanoseconds on the run's common time line, rank 0's clock
//! with each process's offset to it applied ([`pomp2::clock`]); the clock
//! properties give the run's start in real time where the experiment's
//! manifest says it.

mod archive;
mod comms;
mod error;
mod events;
mod handles;
pub mod library;

pub use archive::{Archive, Written};
pub use error::Error;
