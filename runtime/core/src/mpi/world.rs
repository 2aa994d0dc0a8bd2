//! What this process knows of the MPI run it is part of: its place in
//! `MPI_COMM_WORLD` and MPI's thread level, what rank 0 gathered from the
//! others (hosts, threads), the offsets of its clock to rank 0's, and the
//! communicators it named.

use pomp2::clock::{ClockOffset, Measured, SyncMethod};
use pomp2::mpi::{CommId, Communicator, ThreadLevel};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

/// The process in `MPI_COMM_WORLD`, once MPI is initialised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub rank: u32,
    pub size: u32,
    pub requested: Option<ThreadLevel>,
    pub provided: ThreadLevel,
    pub library: String,
}

static MEMBER: OnceLock<Member> = OnceLock::new();
/// Rank 0: every rank's host name and, at finalisation, its threads.
static HOSTS: Mutex<Option<Vec<String>>> = Mutex::new(None);
static THREADS_PER_RANK: Mutex<Option<Vec<u32>>> = Mutex::new(None);
static OFFSETS: Mutex<Vec<ClockOffset>> = Mutex::new(Vec::new());
static COMMUNICATORS_MADE: AtomicU32 = AtomicU32::new(0);
static COMMUNICATORS: Mutex<Vec<Communicator>> = Mutex::new(Vec::new());

fn locked<T, R>(mutex: &Mutex<T>, work: impl FnOnce(&mut T) -> R) -> R {
    work(
        &mut mutex
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    )
}

/// MPI was initialised; the first initialisation counts.
pub fn joined(member: Member) {
    let _ = MEMBER.set(member);
}

pub fn member() -> Option<&'static Member> {
    MEMBER.get()
}

pub fn set_hosts(hosts: Vec<String>) {
    locked(&HOSTS, |slot| *slot = Some(hosts));
}

pub fn hosts() -> Option<Vec<String>> {
    locked(&HOSTS, |slot| slot.clone())
}

pub fn set_threads_per_rank(threads: Vec<u32>) {
    locked(&THREADS_PER_RANK, |slot| *slot = Some(threads));
}

pub fn threads_per_rank() -> Option<Vec<u32>> {
    locked(&THREADS_PER_RANK, |slot| slot.clone())
}

/// A measurement of this process's clock against rank 0's, at `at_ns` of
/// this process's time: rank 0 itself is the reference, a process reading
/// the same clock is 0 off exactly, any other is as far off as measured.
pub fn add_offset(at_ns: u64, measured: Measured, same_clock: bool) {
    let is_reference = member().is_some_and(|m| m.rank == 0);
    let offset = if is_reference {
        ClockOffset {
            at_ns,
            offset_ns: 0,
            precision_ns: 0,
            method: SyncMethod::Reference,
            measured: None,
        }
    } else if same_clock {
        ClockOffset {
            at_ns,
            offset_ns: 0,
            precision_ns: 0,
            method: SyncMethod::SameClock,
            measured: Some(measured),
        }
    } else {
        ClockOffset {
            at_ns,
            offset_ns: measured.offset_ns,
            precision_ns: measured.precision_ns,
            method: SyncMethod::PingPong,
            measured: None,
        }
    };
    locked(&OFFSETS, |offsets| offsets.push(offset));
}

pub fn offsets() -> Vec<ClockOffset> {
    locked(&OFFSETS, |offsets| offsets.clone())
}

/// The id of a communicator this process makes as its rank 0.
pub fn new_communicator_id() -> CommId {
    let rank = member().map_or(0, |m| m.rank);
    CommId::made(rank, COMMUNICATORS_MADE.fetch_add(1, Ordering::Relaxed))
}

pub fn define(communicator: Communicator) {
    locked(&COMMUNICATORS, |all| all.push(communicator));
}

pub fn communicators() -> Vec<Communicator> {
    locked(&COMMUNICATORS, |all| all.clone())
}
