//! From profiles to answers: where the time went (regions, call paths),
//! why (overhead classes after SCALEA, load imbalance), tasks, and how two
//! runs compare. Nothing here reads files or knows how figures are shown.
//!
//! Times of several threads add up to thread time: a region that three
//! threads spend 1 s in has 3 s inclusive time. The run had `wall × threads`
//! of thread time; shares are of that. With several profiles (one per MPI
//! rank), every figure is a [`Spread`] over the profiles.

mod classes;
pub mod diff;
pub mod figures;
pub mod imbalance;
pub mod mpi;
pub mod notes;
pub mod overhead;
pub mod ranks;
mod readings;
pub mod regions;
mod report;
mod run;
mod share;
pub mod spread;
pub mod tasks;

pub use report::{report, Builder, Report};
pub use run::{HostInfo, ProfileInfo, RunInfo};
pub use share::ratio;
pub use spread::{Ranks, Spread, Tally};
