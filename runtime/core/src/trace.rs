//! Optional event trace (`POMP_TRACE=1`) in Chrome's trace-event format.
//!
//! Each thread records complete ("X") events into its own buffer, so no two
//! threads touch the same memory. The total is bounded by `POMP_TRACE_LIMIT`:
//! threads take slices of the global budget, and once it is spent further
//! events are counted as dropped instead of stored.

use crate::regions::RegionId;
use pomp2::profile::Kind;
use std::sync::atomic::{AtomicU64, Ordering};

/// Events a thread reserves from the global budget at a time; large enough
/// that the shared counter is rarely touched, small enough that hundreds of
/// threads do not strand much of the budget.
const SLICE: u64 = 4096;

static BUDGET_LEFT: AtomicU64 = AtomicU64::new(0);

pub fn set_budget(limit: u64) {
    BUDGET_LEFT.store(limit, Ordering::Relaxed);
}

#[derive(Debug, Clone, Copy)]
pub struct TraceRecord {
    pub start_ns: u64,
    pub duration_ns: u64,
    pub region: RegionId,
    pub kind: Kind,
    pub task: i64,
}

#[derive(Debug, Default)]
pub struct ThreadTrace {
    pub enabled: bool,
    pub records: Vec<TraceRecord>,
    reserved_left: u64,
    pub dropped: u64,
}

impl ThreadTrace {
    pub fn new(enabled: bool) -> Self {
        ThreadTrace {
            enabled,
            ..Default::default()
        }
    }

    #[inline]
    pub fn record(&mut self, record: TraceRecord) {
        if !self.enabled {
            return;
        }
        if self.reserved_left == 0 && !self.reserve() {
            self.dropped += 1;
            return;
        }
        self.reserved_left -= 1;
        self.records.push(record);
    }

    #[cold]
    fn reserve(&mut self) -> bool {
        let granted = BUDGET_LEFT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            (left > 0).then(|| left - left.min(SLICE))
        });
        match granted {
            Ok(left) => {
                let slice = left.min(SLICE);
                self.reserved_left = slice;
                self.records.reserve(slice as usize);
                true
            }
            Err(_) => false,
        }
    }
}
