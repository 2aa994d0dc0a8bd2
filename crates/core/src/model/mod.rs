//! The model of a file that the rules work on: every directive occurrence
//! (a [`Site`]) with the exact extent of its block, the program units
//! around them, lock calls and jumps. A front end reads the sites, units,
//! blocks, lock calls and jumps; [`complete`] then adds what follows from
//! them alone, the same for every front end: which unit and which
//! construct encloses each site, the implicit first section of `sections`,
//! and where nothing may be inserted.

mod complete;
mod parts;

pub use complete::{complete, units_of_sites};
pub use parts::*;
