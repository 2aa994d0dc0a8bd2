//! Optional event trace (`POMP_TRACE=1`) in the compact binary format of
//! `pomp2::trace`.
//!
//! Each thread encodes its spans into a buffer of its own
//! ([`BUFFER_BYTES`]), so no two threads touch the same memory; a full
//! buffer is written to the trace file as one chunk (see
//! [`crate::output::trace`]) and reused, so memory stays bounded however
//! long the run. The total is bounded by `POMP_TRACE_LIMIT`: threads take
//! slices of the global budget, give back what is left of theirs when they
//! end, and once it is spent further spans are counted as dropped instead
//! of stored.

use pomp2::trace::{ChunkWriter, MpiChunkWriter, MpiEvent, Span};
use std::sync::atomic::{AtomicU64, Ordering};

/// Events a thread reserves from the global budget at a time: as many as
/// it has recorded, between these bounds. A busy thread rarely touches
/// the shared counter, and the hundreds of threads a program with nested
/// teams may keep, each recording a few events, do not strand the budget.
const FIRST_SLICE: u64 = 64;
const SLICE: u64 = 4096;

/// Each thread's buffer: a chunk of the file.
pub const BUFFER_BYTES: usize = 64 * 1024;
/// Each thread's buffer of MPI records, once it makes MPI calls.
pub const MPI_BUFFER_BYTES: usize = 16 * 1024;

static BUDGET_LEFT: AtomicU64 = AtomicU64::new(0);

pub fn set_budget(limit: u64) {
    BUDGET_LEFT.store(limit, Ordering::Relaxed);
}

#[derive(Default)]
pub struct ThreadTrace {
    pub enabled: bool,
    /// The thread's number, which its chunks carry.
    thread: u32,
    /// Made on the first span.
    buffer: Option<ChunkWriter>,
    /// Made on the first MPI record: a thread that makes no MPI call
    /// never has one.
    mpi_buffer: Option<MpiChunkWriter>,
    reserved_left: u64,
    pub stored: u64,
    pub dropped: u64,
    pub stored_mpi: u64,
    pub dropped_mpi: u64,
}

impl ThreadTrace {
    pub fn new(enabled: bool, thread: u32) -> Self {
        ThreadTrace {
            enabled,
            thread,
            ..Default::default()
        }
    }

    #[inline]
    pub fn record(&mut self, span: Span) {
        if !self.enabled {
            return;
        }
        if !self.take_from_budget() {
            self.dropped += 1;
            return;
        }
        self.stored += 1;
        let buffer = self
            .buffer
            .get_or_insert_with(|| ChunkWriter::new(BUFFER_BYTES));
        buffer.push(&span);
        if buffer.is_full() {
            self.flush();
        }
    }

    /// Records an MPI record; spans and records share the budget.
    pub fn record_mpi(&mut self, event: &MpiEvent) {
        if !self.enabled {
            return;
        }
        if !self.take_from_budget() {
            self.dropped_mpi += 1;
            return;
        }
        self.stored_mpi += 1;
        let buffer = self
            .mpi_buffer
            .get_or_insert_with(|| MpiChunkWriter::new(MPI_BUFFER_BYTES));
        buffer.push(event);
        if buffer.is_full() {
            crate::output::chunks::write_chunk(buffer.chunk(self.thread));
            buffer.clear();
        }
    }

    /// Whether the budget allows one more event, which it is then charged.
    #[inline]
    fn take_from_budget(&mut self) -> bool {
        if self.reserved_left == 0 && !self.reserve() {
            return false;
        }
        self.reserved_left -= 1;
        true
    }

    /// Writes what the buffers hold to the trace file.
    #[cold]
    #[inline(never)]
    pub fn flush(&mut self) {
        if let Some(buffer) = &mut self.buffer {
            if !buffer.is_empty() {
                crate::output::chunks::write_chunk(buffer.chunk(self.thread));
                buffer.clear();
            }
        }
        if let Some(buffer) = &mut self.mpi_buffer {
            if !buffer.is_empty() {
                crate::output::chunks::write_chunk(buffer.chunk(self.thread));
                buffer.clear();
            }
        }
    }

    /// Returns the events reserved and not recorded to the global budget,
    /// when the thread ends.
    pub fn give_back(&mut self) {
        if self.reserved_left > 0 {
            BUDGET_LEFT.fetch_add(self.reserved_left, Ordering::Relaxed);
            self.reserved_left = 0;
        }
    }

    #[cold]
    fn reserve(&mut self) -> bool {
        let slice = (self.stored + self.stored_mpi).clamp(FIRST_SLICE, SLICE);
        let granted = BUDGET_LEFT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            (left > 0).then(|| left - left.min(slice))
        });
        match granted {
            Ok(left) => {
                self.reserved_left = left.min(slice);
                true
            }
            Err(_) => false,
        }
    }
}
