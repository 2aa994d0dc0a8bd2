//! The non-blocking requests in flight: what each started as, so that its
//! completion (in a wait or test, maybe on another thread) is recorded as
//! the message it completes. Requests are known by their `MPI_Request`
//! handle's value while they are in flight; the process numbers them from
//! 1 in the order they started.

use pomp2::mpi::CommId;
use rustc_hash::FxHashMap as HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What a request started as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Started {
    Send,
    /// A receive on this communicator.
    Receive(CommId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub id: u64,
    pub started: Started,
}

static IN_FLIGHT: Mutex<Option<HashMap<u64, Pending>>> = Mutex::new(None);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn in_flight<T>(work: impl FnOnce(&mut HashMap<u64, Pending>) -> T) -> T {
    let mut table = IN_FLIGHT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    work(table.get_or_insert_with(HashMap::default))
}

/// A request with handle `handle` started; its number.
pub fn start(handle: u64, started: Started) -> u64 {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    in_flight(|table| table.insert(handle, Pending { id, started }));
    id
}

/// The request with handle `handle` completed (or was freed): what it
/// started as, if it was one of ours.
pub fn finish(handle: u64) -> Option<Pending> {
    in_flight(|table| table.remove(&handle))
}

/// The request with handle `handle`, still in flight.
pub fn find(handle: u64) -> Option<Pending> {
    in_flight(|table| table.get(&handle).copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_numbered_and_found_until_they_finish() {
        let send = start(0xa000, Started::Send);
        let receive = start(0xb000, Started::Receive(CommId::WORLD));
        assert!(receive > send);
        assert_eq!(find(0xa000).map(|p| p.id), Some(send));
        assert_eq!(
            finish(0xb000),
            Some(Pending {
                id: receive,
                started: Started::Receive(CommId::WORLD)
            })
        );
        assert_eq!(finish(0xb000), None);
        // A handle comes back for a later request, as MPI reuses them.
        assert_eq!(finish(0xa000).map(|p| p.id), Some(send));
        let again = start(0xa000, Started::Send);
        assert_eq!(find(0xa000).map(|p| p.id), Some(again));
        finish(0xa000);
    }
}
