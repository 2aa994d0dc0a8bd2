//! What a team shares to infer the waiting at the implicit barrier that
//! ends a parallel region, when the instrumented code leaves that barrier
//! implicit (CTC `pompImplicitBarrier=inferred`).
//!
//! Each thread calls `Parallel_end` where it arrives at the barrier; the
//! last to arrive releases the others, so the release time is the latest
//! arrival, and each thread waited from its own arrival until then (less
//! the tasks it ran meanwhile). Arrivals are gathered per region in a
//! shared slot: the master opens an instance there at the fork, each
//! member raises the slot's latest arrival at its end, and the master,
//! after the barrier, publishes the instance's release time at the join.
//! Workers, which have no event after the barrier, look the release time
//! up when they next begin a region (or when the profile is written).
//!
//! The slot also holds the call path the region was last forked from
//! ([`publish_path`]), under which the workers begin their parts.
//!
//! Only one instance of a region can use its slot at a time: a second
//! instance forked while the first is open (nested teams running the same
//! region, or another host thread) marks the slot collided, and neither
//! instance infers its barrier (the profile counts such barriers). Regions
//! share slots modulo [`SLOTS`]; that matters only when two of them are
//! open at once, and it is then handled the same way.

use crate::regions::RegionId;
use pomp2::profile::Kind;
use std::sync::atomic::{fence, AtomicPtr, AtomicU64, Ordering};

/// The call path a team's workers begin under: the forking thread's path
/// from its root to the node it forked from, region and kind at each step
/// (made by the forking thread's state, see `state::fork_path`).
#[derive(Debug, PartialEq, Eq)]
pub struct ForkPath {
    /// From the root's child down.
    pub steps: Box<[(RegionId, Kind)]>,
}

const SLOTS: usize = 256;
/// Release times kept per slot: a worker that sat out the next instances
/// of a region can still find its own.
const RELEASES: usize = 4;

/// The slot's instance word: the instance's sequence number shifted left,
/// and these bits.
const OPEN: u64 = 1;
const COLLIDED: u64 = 2;
/// The last master to fork the region did not time it (its node is
/// throttled): workers do not time theirs either.
const UNTIMED: u64 = 4;
const SEQUENCE_SHIFT: u32 = 3;

/// A release time being written.
const WRITING: u64 = u64::MAX;

/// A team instance, as its members remember it: 0 is none.
pub type Instance = u64;
pub const NO_INSTANCE: Instance = 0;

/// The instance of a team of one (an `if` clause that is false,
/// `num_threads(1)`): no worker joins it, so it takes no instance of the
/// region's slot, whose few releases the workers of a real team may still
/// have to find, and its barrier waits for no one.
pub const ALONE: Instance = Instance::MAX;

struct Release {
    instance: AtomicU64,
    ticks: AtomicU64,
}

#[repr(align(128))]
struct Slot {
    word: AtomicU64,
    latest_arrival: AtomicU64,
    releases: [Release; RELEASES],
    /// The forking thread's path ([`ForkPath`]s live as long as the
    /// program); null for the root.
    path: AtomicPtr<ForkPath>,
}

impl Slot {
    const fn new() -> Self {
        Slot {
            word: AtomicU64::new(0),
            latest_arrival: AtomicU64::new(0),
            releases: [const {
                Release {
                    instance: AtomicU64::new(NO_INSTANCE),
                    ticks: AtomicU64::new(0),
                }
            }; RELEASES],
            path: AtomicPtr::new(std::ptr::null_mut()),
        }
    }
}

static TEAM_SLOTS: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];

fn slot(region: RegionId) -> &'static Slot {
    &TEAM_SLOTS[region as usize % SLOTS]
}

/// What a member finds when it begins its part of a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Membership {
    /// The master opened this instance: time the region and infer.
    Team(Instance),
    /// The master does not time the region.
    Untimed,
    /// No instance to join (a collision): time the region by the thread's
    /// own rule, without inferring its barrier.
    Alone,
}

/// The master forks a timed instance: opens it, unless another is open.
pub fn open(region: RegionId) -> Instance {
    let slot = slot(region);
    let word = slot.word.load(Ordering::Acquire);
    if word & OPEN == 0 {
        let instance = (word >> SEQUENCE_SHIFT) + 1;
        slot.latest_arrival.store(0, Ordering::Relaxed);
        let opened = slot.word.compare_exchange(
            word,
            instance << SEQUENCE_SHIFT | OPEN,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        if opened.is_ok() {
            return instance;
        }
    }
    slot.word.fetch_or(COLLIDED, Ordering::AcqRel);
    NO_INSTANCE
}

/// The master forks the region untimed: its workers learn so. Writes the
/// shared word only when it does not say so already.
pub fn open_untimed(region: RegionId) {
    let slot = slot(region);
    let word = slot.word.load(Ordering::Acquire);
    if word & OPEN != 0 {
        slot.word.fetch_or(COLLIDED, Ordering::AcqRel);
    } else if word & UNTIMED == 0 {
        let _ =
            slot.word
                .compare_exchange(word, word | UNTIMED, Ordering::AcqRel, Ordering::Relaxed);
    }
}

/// The forking thread tells its team the path it forks from. Written only
/// when it changed: a region is nearly always forked from the same place.
pub fn publish_path(region: RegionId, path: Option<&'static ForkPath>) {
    let path = path.map_or(std::ptr::null_mut(), |p| {
        p as *const ForkPath as *mut ForkPath
    });
    let slot = &slot(region).path;
    if slot.load(Ordering::Relaxed) != path {
        slot.store(path, Ordering::Release);
    }
}

/// The path the region was last forked from. Two threads forking the
/// region at once from different paths cannot be told apart: the workers
/// of both take the later path.
pub fn forking_path(region: RegionId) -> Option<&'static ForkPath> {
    let path = slot(region).path.load(Ordering::Acquire);
    // Published from a `&'static ForkPath`, or null.
    unsafe { path.as_ref() }
}

/// A worker begins its part of the region.
pub fn membership(region: RegionId) -> Membership {
    let word = slot(region).word.load(Ordering::Acquire);
    if word & (OPEN | COLLIDED) == OPEN {
        Membership::Team(word >> SEQUENCE_SHIFT)
    } else if word & (OPEN | UNTIMED) == UNTIMED {
        Membership::Untimed
    } else {
        Membership::Alone
    }
}

/// A member arrives at the barrier at `ticks`.
pub fn arrive(region: RegionId, ticks: u64) {
    slot(region)
        .latest_arrival
        .fetch_max(ticks, Ordering::AcqRel);
}

/// The master, after the barrier: the release time (the latest arrival,
/// at most `join`), published for the workers; `None` if the instance
/// collided with another.
pub fn close(region: RegionId, instance: Instance, join: u64) -> Option<u64> {
    let slot = slot(region);
    let word = slot.word.load(Ordering::Acquire);
    let open_word = instance << SEQUENCE_SHIFT | OPEN;
    let release =
        (word == open_word).then(|| slot.latest_arrival.load(Ordering::Acquire).min(join));
    if let Some(ticks) = release {
        let entry = &slot.releases[instance as usize % RELEASES];
        entry.instance.store(WRITING, Ordering::Relaxed);
        fence(Ordering::Release);
        entry.ticks.store(ticks, Ordering::Relaxed);
        entry.instance.store(instance, Ordering::Release);
    }
    if word >> SEQUENCE_SHIFT == instance {
        // Closed (and a collision forgotten) only after the release time is
        // published: a worker that sees the instance closed finds it.
        slot.word
            .store(instance << SEQUENCE_SHIFT, Ordering::Release);
    }
    release
}

/// A worker's release time for `instance`, once the barrier has released
/// it: published by the master, or, before the master got to its join,
/// the latest arrival, which is final once everyone has arrived.
pub fn release(region: RegionId, instance: Instance) -> Option<u64> {
    let slot = slot(region);
    let open_word = instance << SEQUENCE_SHIFT | OPEN;
    if slot.word.load(Ordering::Acquire) == open_word {
        let ticks = slot.latest_arrival.load(Ordering::Acquire);
        fence(Ordering::Acquire);
        if slot.word.load(Ordering::Relaxed) == open_word {
            return Some(ticks);
        }
    }
    let entry = &slot.releases[instance as usize % RELEASES];
    if entry.instance.load(Ordering::Acquire) != instance {
        return None;
    }
    let ticks = entry.ticks.load(Ordering::Relaxed);
    fence(Ordering::Acquire);
    (entry.instance.load(Ordering::Relaxed) == instance).then_some(ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Each test uses regions of its own: the slots are process-wide.

    #[test]
    fn the_latest_arrival_releases_the_team() {
        let region = 11;
        let instance = open(region);
        assert_ne!(instance, NO_INSTANCE);
        assert_eq!(membership(region), Membership::Team(instance));
        arrive(region, 500);
        arrive(region, 900);
        arrive(region, 700);
        // A worker looking before the join sees the latest arrival.
        assert_eq!(release(region, instance), Some(900));
        assert_eq!(close(region, instance, 1000), Some(900));
        assert_eq!(release(region, instance), Some(900));
        // The next instance starts afresh.
        let next = open(region);
        assert_eq!(next, instance + 1);
        arrive(region, 2000);
        assert_eq!(
            close(region, next, 1900),
            Some(1900),
            "never after the join"
        );
        assert_eq!(release(region, instance), Some(900));
        assert_eq!(release(region, next), Some(1900));
    }

    #[test]
    fn an_instance_forked_while_one_is_open_infers_nothing() {
        let region = 12;
        let first = open(region);
        assert_eq!(open(region), NO_INSTANCE);
        assert_eq!(membership(region), Membership::Alone);
        arrive(region, 100);
        assert_eq!(close(region, first, 200), None);
        assert_eq!(release(region, first), None);
        // The collision is forgotten once the instance closes.
        let next = open(region);
        assert_eq!(membership(region), Membership::Team(next));
        assert_eq!(close(region, next, 300), Some(0));
    }

    #[test]
    fn untimed_masters_tell_their_workers() {
        let region = 13;
        open_untimed(region);
        assert_eq!(membership(region), Membership::Untimed);
        let timed = open(region);
        assert_eq!(membership(region), Membership::Team(timed));
        close(region, timed, 10);
        assert_eq!(membership(region), Membership::Alone);
    }

    #[test]
    fn workers_that_sat_out_many_instances_find_nothing() {
        let region = 14;
        let old = open(region);
        arrive(region, 1);
        close(region, old, 2);
        for _ in 0..RELEASES {
            let instance = open(region);
            close(region, instance, 3);
        }
        assert_eq!(release(region, old), None);
    }
}
