//! One time line for the processes of a run.
//!
//! Each process measures time from its own start: the times of its
//! profile and trace are nanoseconds since its runtime began. Where that
//! was on `CLOCK_MONOTONIC` ([`ClockSync::origin_monotonic_ns`]) and how
//! the process's `CLOCK_MONOTONIC` stood to rank 0's when MPI started and
//! when it finished ([`ClockSync::offsets`], measured through MPI as a
//! ping-pong with rank 0) put every process on rank 0's clock:
//! [`ClockSync::common_ns`]. Processes of one host read one clock, and
//! their offset is 0 exactly; the ping-pong's own answer is kept beside it.

use serde::{Deserialize, Serialize};

/// How a process's times map onto the run's common time line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSync {
    /// `CLOCK_MONOTONIC`, in nanoseconds, when the process's runtime
    /// started: its times count from here.
    pub origin_monotonic_ns: u64,
    /// Its clock's offset to rank 0's, in the order measured (at MPI's
    /// initialisation and at its finalisation); none without MPI.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offsets: Vec<ClockOffset>,
}

/// Rank 0's clock minus this process's, at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockOffset {
    /// When it was measured, in the process's time (nanoseconds since its
    /// origin).
    pub at_ns: u64,
    /// What to add to a time of this process's clock to have it on rank
    /// 0's.
    pub offset_ns: i64,
    /// How far the true offset may be from it: half the ping-pong's
    /// shortest round trip; 0 when it is known exactly.
    pub precision_ns: u64,
    pub method: SyncMethod,
    /// The ping-pong's answer, where the offset is not it (a process on
    /// rank 0's host, whose offset is 0 exactly): its offset and
    /// precision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
}

/// An offset and its precision, as a ping-pong measured them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Measured {
    pub offset_ns: i64,
    pub precision_ns: u64,
}

/// How an offset was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncMethod {
    /// Rank 0 itself.
    Reference,
    /// The process reads rank 0's clock (both run on one kernel).
    SameClock,
    /// A ping-pong with rank 0 through MPI: of several exchanges, the one
    /// with the shortest round trip, its middle taken as the moment rank
    /// 0 read its clock.
    PingPong,
}

impl ClockSync {
    /// A process's time `local_ns` (nanoseconds since its origin) on the
    /// common time line: rank 0's `CLOCK_MONOTONIC`, in nanoseconds. The
    /// offset is interpolated between the measurements around it (held at
    /// the first before it and at the last after it), which takes the
    /// clocks' drift out; without measurements it is 0.
    pub fn common_ns(&self, local_ns: u64) -> i64 {
        let monotonic = self.origin_monotonic_ns as i64 + local_ns as i64;
        monotonic + self.offset_at(local_ns)
    }

    /// The offset at `local_ns`, interpolated.
    pub fn offset_at(&self, local_ns: u64) -> i64 {
        let (Some(first), Some(last)) = (self.offsets.first(), self.offsets.last()) else {
            return 0;
        };
        if local_ns <= first.at_ns {
            return first.offset_ns;
        }
        if local_ns >= last.at_ns {
            return last.offset_ns;
        }
        let after = self
            .offsets
            .iter()
            .position(|o| o.at_ns >= local_ns)
            .unwrap_or(self.offsets.len() - 1);
        let (a, b) = (self.offsets[after - 1], self.offsets[after]);
        let span = (b.at_ns - a.at_ns) as f64;
        if span <= 0.0 {
            return b.offset_ns;
        }
        let fraction = (local_ns - a.at_ns) as f64 / span;
        a.offset_ns + ((b.offset_ns - a.offset_ns) as f64 * fraction).round() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset(at_ns: u64, offset_ns: i64) -> ClockOffset {
        ClockOffset {
            at_ns,
            offset_ns,
            precision_ns: 10,
            method: SyncMethod::PingPong,
            measured: None,
        }
    }

    #[test]
    fn times_move_onto_rank_zeros_clock_with_drift_interpolated() {
        let sync = ClockSync {
            origin_monotonic_ns: 1_000,
            offsets: vec![offset(100, 500), offset(1_100, 1_500)],
        };
        assert_eq!(sync.common_ns(0), 1_000 + 500);
        assert_eq!(sync.common_ns(100), 1_100 + 500);
        assert_eq!(sync.common_ns(600), 1_600 + 1_000);
        assert_eq!(sync.common_ns(1_100), 2_100 + 1_500);
        assert_eq!(sync.common_ns(5_000), 6_000 + 1_500);
        let alone = ClockSync {
            origin_monotonic_ns: 7,
            offsets: vec![],
        };
        assert_eq!(alone.common_ns(3), 10);
    }

    #[test]
    fn it_reads_back_as_written() {
        let sync = ClockSync {
            origin_monotonic_ns: 42,
            offsets: vec![ClockOffset {
                measured: Some(Measured {
                    offset_ns: -3,
                    precision_ns: 4,
                }),
                method: SyncMethod::SameClock,
                ..offset(5, 0)
            }],
        };
        let text = serde_json::to_string(&sync).unwrap();
        assert!(text.contains("\"same_clock\""), "{text}");
        assert_eq!(serde_json::from_str::<ClockSync>(&text).unwrap(), sync);
    }
}
