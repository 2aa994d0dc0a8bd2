//! The registry of threads: every thread that records an event gets a
//! [`ThreadData`] that outlives it, so the writer finds all of them.

use crate::state::{Settings, ThreadState};
use std::cell::{Cell, UnsafeCell};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

pub struct ThreadData {
    /// Set by the owner around every mutation. The writer freezes the
    /// runtime and then waits for this to clear, so it never reads a tree
    /// that is being changed; the owner re-checks the phase after setting
    /// it, so it never starts a change once the writer has frozen.
    pub busy: AtomicBool,
    /// Cleared in a fork child for every thread that did not survive.
    pub live: AtomicBool,
    pub index: u32,
    pub os_tid: i64,
    next: *const ThreadData,
    state: UnsafeCell<ThreadState>,
}

// The state is only mutated by its owning thread, and only read by others
// under the busy/phase protocol described above.
unsafe impl Sync for ThreadData {}

impl ThreadData {
    /// # Safety
    /// The caller is the owning thread inside its busy section, or the
    /// writer after the runtime is frozen and `busy` is clear.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn state(&self) -> &mut ThreadState {
        &mut *self.state.get()
    }
}

/// All threads that ever recorded an event, newest first. Entries are
/// leaked on purpose: a thread's data outlives the thread. The list is
/// lock-free so that a fork child never inherits a held lock.
static THREADS: AtomicPtr<ThreadData> = AtomicPtr::new(ptr::null_mut());
static THREAD_COUNT: AtomicU32 = AtomicU32::new(0);

thread_local! {
    static CURRENT: Cell<*const ThreadData> = const { Cell::new(ptr::null()) };
    static ENDING: Ending = const { Ending };
}

/// Dropped when a registered thread ends: what it holds of budgets that
/// all threads share goes back to them.
struct Ending;

impl Drop for Ending {
    fn drop(&mut self) {
        crate::thread_ends();
    }
}

#[inline(always)]
pub fn current() -> &'static ThreadData {
    let data = CURRENT.with(Cell::get);
    if data.is_null() {
        register()
    } else {
        unsafe { &*data }
    }
}

/// This thread's data once it has registered (its first event registers
/// it).
#[inline(always)]
pub fn registered() -> Option<&'static ThreadData> {
    let data = CURRENT.with(Cell::get);
    // Registered data is leaked, never freed.
    unsafe { data.as_ref() }
}

#[cold]
fn register() -> &'static ThreadData {
    let index = THREAD_COUNT.fetch_add(1, Ordering::Relaxed);
    let data = Box::leak(Box::new(ThreadData {
        busy: AtomicBool::new(false),
        live: AtomicBool::new(true),
        index,
        os_tid: unsafe { libc::syscall(libc::SYS_gettid) } as i64,
        next: ptr::null(),
        state: UnsafeCell::new(ThreadState::new(index, Settings::from_config())),
    }));
    let mut head = THREADS.load(Ordering::Acquire);
    loop {
        data.next = head;
        match THREADS.compare_exchange_weak(head, data, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => break,
            Err(actual) => head = actual,
        }
    }
    CURRENT.with(|current| current.set(data));
    // Touched once, so that it is dropped when the thread ends.
    ENDING.with(|_| {});
    data
}

/// Every registered thread, in registration order.
pub fn all() -> Vec<&'static ThreadData> {
    let mut threads = Vec::new();
    let mut cursor = THREADS.load(Ordering::Acquire) as *const ThreadData;
    while !cursor.is_null() {
        let data = unsafe { &*cursor };
        threads.push(data);
        cursor = data.next;
    }
    threads.reverse();
    threads
}

/// In a fork child only the forking thread lives on; it starts afresh so
/// that the child's profile holds the child's work alone.
pub fn reset_after_fork() {
    let survivor = CURRENT.with(Cell::get);
    for data in all() {
        if !ptr::eq(data, survivor) {
            data.live.store(false, Ordering::Relaxed);
        }
    }
    if !survivor.is_null() {
        let data = unsafe { &*survivor };
        data.busy.store(false, Ordering::Relaxed);
        unsafe { *data.state() = ThreadState::new(data.index, Settings::from_config()) };
    }
}
