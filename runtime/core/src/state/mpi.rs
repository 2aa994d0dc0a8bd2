//! A thread's MPI calls (see [`crate::mpi`]): each a frame of kind
//! [`Kind::Mpi`] in the call-path tree, its time counted by its class,
//! the bytes it moved counted in its node, and its messages and
//! collectives recorded in the trace.
//!
//! MPI nodes are never throttled: the time of MPI calls is what an MPI
//! program's profile is read for, and an MPI call costs far more than the
//! clock reads that time it.

use super::ThreadState;
use crate::clock::Clock;
use crate::regions::RegionId;
use pomp2::mpi::Class;
use pomp2::profile::{Kind, MpiTotals};
use pomp2::trace::{MpiEvent, MpiRecord};

/// When an MPI record is timed: at the start of its call, or now.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum At {
    CallStart,
    Now,
}

impl ThreadState {
    /// An MPI call of `region` begins.
    pub fn enter_mpi(&mut self, region: RegionId, clock: impl Clock) {
        let now = clock.now();
        self.mpi.call_start = now;
        self.mpi.totals();
        self.push(region, Kind::Mpi, now);
    }

    /// The MPI call of `region`, whose time counts as `class`, ends.
    pub fn exit_mpi(&mut self, region: RegionId, class: Class, clock: impl Clock) {
        let now = clock.now();
        let Some(frame) = self.pop_to(region, Kind::Mpi, now) else {
            return;
        };
        if frame.timed {
            let elapsed = now.saturating_sub(frame.start);
            let totals = self.mpi.totals();
            match class {
                Class::PointToPoint => totals.point_to_point_ns += elapsed,
                Class::Collective => totals.collective_ns += elapsed,
                Class::Other => totals.other_ns += elapsed,
            }
        }
    }

    /// Counts what the current MPI call moved, in its node and the
    /// thread's totals, with `update` saying in which totals.
    pub fn count_mpi(&mut self, sent: u64, received: u64, update: impl FnOnce(&mut MpiTotals)) {
        update(self.mpi.totals());
        if sent != 0 || received != 0 {
            let node = self.context as usize;
            let bytes = &mut self.mpi.bytes;
            if bytes.len() <= node {
                bytes.resize(node + 1, (0, 0));
            }
            bytes[node].0 += sent;
            bytes[node].1 += received;
        }
    }

    /// Records `record` in the trace, timed as `at` says.
    pub fn record_mpi(&mut self, record: MpiRecord, at: At, clock: impl Clock) {
        if !self.trace.enabled {
            return;
        }
        let time = match at {
            At::CallStart => self.mpi.call_start,
            At::Now => clock.now(),
        };
        self.trace.record_mpi(&MpiEvent { time, record });
    }

    /// Converts the MPI times from clock ticks to nanoseconds.
    pub(super) fn rescale_mpi(&mut self, scale: &crate::clock::Scale) {
        if let Some(totals) = &mut self.mpi.totals {
            totals.point_to_point_ns = scale.ns(totals.point_to_point_ns);
            totals.collective_ns = scale.ns(totals.collective_ns);
            totals.other_ns = scale.ns(totals.other_ns);
        }
    }
}
