//! The region table: one entry per assigned handle.
//!
//! A handle's value is its region id, the table index plus one, so that a
//! NULL (zero) handle means "not assigned". The hot path only ever reads the
//! handle and compares it with the number of regions; the table itself is
//! touched at assignment time and when the profile is written.

use pomp2::ctc::{self, Parsed};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

pub use pomp2::profile::RegionId;

/// Id used for events without a region of their own (lock calls).
pub const NO_REGION: RegionId = 0;

static REGIONS: Mutex<Vec<Parsed>> = Mutex::new(Vec::new());
static REGION_COUNT: AtomicU32 = AtomicU32::new(0);

/// The handle slot seen as an atomic word: instrumented code reads it from
/// every thread while registration may write it.
///
/// # Safety
/// `slot` must be non-null, pointer-aligned and valid for the program's life
/// (a C `static void*` or a Fortran `INTEGER(KIND=8)`).
unsafe fn slot_word<'a>(slot: *mut *mut c_void) -> &'a AtomicUsize {
    &*(slot as *const AtomicUsize)
}

/// Reads a handle and returns its region id when it names a known region.
///
/// # Safety
/// `slot` is null or valid as described for [`slot_word`].
#[inline(always)]
pub unsafe fn read(slot: *mut *mut c_void) -> Option<RegionId> {
    if slot.is_null() {
        return None;
    }
    let value = slot_word(slot).load(Ordering::Relaxed);
    if value == 0 || value > REGION_COUNT.load(Ordering::Acquire) as usize {
        return None;
    }
    Some(value as RegionId)
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
pub unsafe fn assign(slot: *mut *mut c_void, ctc: &[u8]) -> Option<RegionId> {
    if slot.is_null() {
        return None;
    }
    let mut table = REGIONS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let word = slot_word(slot);
    let current = word.load(Ordering::Relaxed);
    if current != 0 && current <= table.len() {
        return Some(current as RegionId);
    }
    table.push(ctc::parse(ctc));
    let id = table.len();
    REGION_COUNT.store(id as u32, Ordering::Release);
    word.store(id, Ordering::Release);
    Some(id as RegionId)
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
