//! What a thread counts of its MPI calls: their times by class, the
//! bytes each call-path node moved, and when the current call began.

use super::tree::NodeIndex;
use pomp2::profile::MpiTotals;

/// A thread's MPI counts.
#[derive(Default)]
pub struct ThreadMpi {
    /// Times in clock ticks until rescaled; `None` until the thread's first
    /// MPI call.
    pub totals: Option<MpiTotals>,
    /// Bytes sent and received, by call-path node (indices are dense:
    /// the vector grows to the largest node that moved any).
    pub(super) bytes: Vec<(u64, u64)>,
    /// When the thread's current (or last) MPI call began: the time of
    /// what begins in it (see `pomp2::trace::MpiRecord`).
    pub(super) call_start: u64,
}

impl ThreadMpi {
    pub(super) fn totals(&mut self) -> &mut MpiTotals {
        self.totals.get_or_insert_with(MpiTotals::default)
    }

    /// The bytes node `node` sent and received.
    pub fn bytes_of(&self, node: NodeIndex) -> (u64, u64) {
        self.bytes.get(node as usize).copied().unwrap_or_default()
    }
}
