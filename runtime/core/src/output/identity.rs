//! The process that writes the files: its rank, host, experiment and clock.

use super::files::Destination;
use crate::clock;
use pomp2::clock::ClockSync;

/// Who wrote the files, as the profile and the trace both say.
pub struct Identity {
    pub rank: Option<String>,
    pub ranks: Option<u32>,
    pub host: String,
    pub experiment: Option<String>,
    pub clock: ClockSync,
}

impl Identity {
    pub(super) fn of(destination: &Destination) -> Identity {
        Identity {
            rank: crate::process::rank().map(|rank| rank.to_string()),
            ranks: crate::process::ranks(),
            host: crate::process::host().to_string(),
            experiment: match destination {
                Destination::Experiment(chosen) => Some(chosen.run.clone()),
                _ => None,
            },
            clock: ClockSync {
                origin_monotonic_ns: clock::origin_monotonic_ns(),
                offsets: crate::mpi::world::offsets(),
            },
        }
    }
}
