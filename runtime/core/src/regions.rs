//! The region table: one entry per assigned handle.
//!
//! A handle's value is its region id, the table index plus one, so that a
//! NULL (zero) handle means "not assigned", and a flag for parallel regions
//! whose closing barrier the runtime infers. The hot path only ever reads
//! the handle and compares its id with the number of regions; the table
//! itself is touched at assignment time and when the profile is written.

use pomp2::ctc::{self, ImplicitBarrier, Parsed};
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

pub use pomp2::profile::RegionId;

/// Id used for events without a region of their own (lock calls).
pub const NO_REGION: RegionId = 0;

/// Set in a handle's value when the region's CTC string says
/// `pompImplicitBarrier=inferred`.
const INFERRED_BARRIER: usize = 1 << 31;
const ID_MASK: usize = INFERRED_BARRIER - 1;

/// What a handle says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handle {
    pub region: RegionId,
    /// The region leaves the barrier that ends it implicit; see
    /// [`crate::team`].
    pub inferred_barrier: bool,
}

impl Handle {
    fn from_value(value: usize) -> Self {
        Handle {
            region: (value & ID_MASK) as RegionId,
            inferred_barrier: value & INFERRED_BARRIER != 0,
        }
    }
}

static REGIONS: Mutex<Vec<Parsed>> = Mutex::new(Vec::new());
static REGION_COUNT: AtomicU32 = AtomicU32::new(0);

/// Whether `POMP2_Init_regions` is running: a region assigned at any other
/// time was left out of the registration the program was linked with
/// (an object newer than its registration file).
static REGISTERING: AtomicBool = AtomicBool::new(false);
/// The regions assigned by their first event, in order.
static UNREGISTERED: Mutex<Vec<RegionId>> = Mutex::new(Vec::new());
/// Events of regions that were never registered and whose call carried no
/// CTC string to assign them by: lost.
static LOST_EVENTS: AtomicU64 = AtomicU64::new(0);

/// Run the program's registration: regions assigned meanwhile are
/// registered ones.
pub fn register(registration: impl FnOnce()) {
    REGISTERING.store(true, Ordering::Relaxed);
    registration();
    REGISTERING.store(false, Ordering::Relaxed);
}

/// The regions no registration declared, each met first by an event.
pub fn unregistered() -> Vec<RegionId> {
    UNREGISTERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// An event lost because its region was never registered.
pub fn lose_event() {
    LOST_EVENTS.fetch_add(1, Ordering::Relaxed);
}

pub fn lost_events() -> u64 {
    LOST_EVENTS.load(Ordering::Relaxed)
}

/// The handle slot seen as an atomic word: instrumented code reads it from
/// every thread while registration may write it.
///
/// # Safety
/// `slot` must be non-null, pointer-aligned and valid for the program's life
/// (a C `static void*` or a Fortran `INTEGER(KIND=8)`).
unsafe fn slot_word<'a>(slot: *mut *mut c_void) -> &'a AtomicUsize {
    &*(slot as *const AtomicUsize)
}

/// Reads a handle when it names a known region.
///
/// # Safety
/// `slot` is null or valid as described for [`slot_word`].
#[inline(always)]
pub unsafe fn read(slot: *mut *mut c_void) -> Option<Handle> {
    if slot.is_null() {
        return None;
    }
    let handle = Handle::from_value(slot_word(slot).load(Ordering::Relaxed));
    if handle.region == 0 || handle.region > REGION_COUNT.load(Ordering::Acquire) {
        return None;
    }
    Some(handle)
}

/// The region id a handle holds, 0 when none, without checking it against
/// the table: for the untimed fast path, which only compares it with the
/// regions of the thread's call-path nodes, all of them known regions.
///
/// # Safety
/// `slot` is null or valid as described for [`slot_word`].
#[inline(always)]
pub unsafe fn read_id(slot: *mut *mut c_void) -> RegionId {
    if slot.is_null() {
        return 0;
    }
    (slot_word(slot).load(Ordering::Relaxed) & ID_MASK) as RegionId
}

/// True when `slot` is a valid slot holding NULL.
///
/// # Safety
/// `slot` is null or valid as described for [`slot_word`].
pub unsafe fn is_unassigned(slot: *mut *mut c_void) -> bool {
    !slot.is_null() && slot_word(slot).load(Ordering::Relaxed) == 0
}

/// Stores a new region for `slot` unless it already holds one, and returns
/// its id. Registration functions may run more than once and events may
/// assign lazily from several threads at a time, so the check and the store
/// happen under the table lock.
///
/// # Safety
/// `slot` is null or valid as described for [`slot_word`].
pub unsafe fn assign(slot: *mut *mut c_void, ctc: &[u8]) -> Option<Handle> {
    if slot.is_null() {
        return None;
    }
    let mut table = REGIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let word = slot_word(slot);
    let current = Handle::from_value(word.load(Ordering::Relaxed));
    if current.region != 0 && current.region as usize <= table.len() {
        return Some(current);
    }
    if table.len() >= ID_MASK {
        return None;
    }
    let parsed = ctc::parse(ctc);
    let inferred_barrier = parsed.context.implicit_barrier == ImplicitBarrier::Inferred;
    table.push(parsed);
    let id = table.len();
    REGION_COUNT.store(id as u32, Ordering::Release);
    if !REGISTERING.load(Ordering::Relaxed) {
        UNREGISTERED
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(id as RegionId);
    }
    let flag = if inferred_barrier {
        INFERRED_BARRIER
    } else {
        0
    };
    word.store(id | flag, Ordering::Release);
    Some(Handle {
        region: id as RegionId,
        inferred_barrier,
    })
}

/// The region of MPI function `name` (see `pomp2::profile::mpi_region`), made the
/// first time one of its calls is measured. Each binding of a function (C,
/// Fortran) has a handle of its own; all name this one region.
pub fn mpi_function(name: &str) -> Option<RegionId> {
    let mut table = REGIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let known = table.iter().position(|parsed| {
        parsed.context.region_type == pomp2::mpi::REGION_TYPE && parsed.context.name() == Some(name)
    });
    if let Some(index) = known {
        return Some(index as RegionId + 1);
    }
    if table.len() >= ID_MASK {
        return None;
    }
    table.push(Parsed {
        context: ctc::Context {
            region_type: pomp2::mpi::REGION_TYPE.to_string(),
            attributes: vec![(ctc::keys::USER_REGION_NAME.to_string(), name.to_string())],
            ..ctc::Context::default()
        },
        malformed: false,
    });
    let id = table.len() as RegionId;
    REGION_COUNT.store(id, Ordering::Release);
    Some(id)
}

/// A copy of the table for reporting; index `id - 1` describes region `id`.
pub fn snapshot() -> Vec<Parsed> {
    REGIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// Reads a NUL-terminated C string, bounded so that a missing terminator
/// cannot run off far into memory.
///
/// # Safety
/// `ptr` is null or points to readable memory up to its NUL or the bound.
pub unsafe fn c_string_bytes<'a>(ptr: *const libc::c_char) -> &'a [u8] {
    const MAX_CTC_LEN: usize = 1 << 16;
    if ptr.is_null() {
        return &[];
    }
    let len = libc::strnlen(ptr, MAX_CTC_LEN);
    std::slice::from_raw_parts(ptr as *const u8, len)
}

/// Bytes of a Fortran character argument.
///
/// # Safety
/// `ptr` is null or valid for `len` bytes.
pub unsafe fn fortran_string_bytes<'a>(ptr: *const libc::c_char, len: usize) -> &'a [u8] {
    if ptr.is_null() {
        return &[];
    }
    std::slice::from_raw_parts(ptr as *const u8, len)
}
