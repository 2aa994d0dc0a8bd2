//! MPI, as the POMP MPI library reports it through the runtime's
//! `pomp_mpi_*` functions (`pomp2::mpi::ENTRY_POINTS`, defined in
//! [`entry_points`]): the library intercepts MPI through its profiling
//! interface and says here what each call did. Each call is a frame of
//! its thread ([`crate::state::mpi`]); what concerns the process as a
//! whole — its place in `MPI_COMM_WORLD`, the experiment, hosts, clocks,
//! communicators — is in [`world`]; requests in flight in [`requests`].

pub mod entry_points;
mod requests;
pub mod world;

use crate::clock::Now;
use crate::regions::RegionId;
use crate::state::mpi::At;
use crate::state::ThreadState;
use pomp2::mpi::{Class, CollectiveOp, CommId};
use pomp2::profile::MpiTotals;
use pomp2::trace::{Collective, Message, MpiRecord};
use requests::Started;
use std::sync::atomic::{AtomicI64, Ordering};

/// What an MPI function's handle holds once assigned: its region, and its
/// class's number plus one above it (so that an assigned handle is never
/// 0).
fn handle_value(region: RegionId, class: Class) -> i64 {
    let class = match class {
        Class::PointToPoint => 1,
        Class::Collective => 2,
        Class::Other => 3,
    };
    (class << 32) | region as i64
}

fn from_handle_value(value: i64) -> Option<(RegionId, Class)> {
    let class = match value >> 32 {
        1 => Class::PointToPoint,
        2 => Class::Collective,
        3 => Class::Other,
        _ => return None,
    };
    Some((value as u32, class))
}

/// The handle slot seen as an atomic word: calls from several threads may
/// assign it at once.
///
/// # Safety
/// `handle` is null or an aligned `int64_t` that lives as long as the
/// program (a `static` of the library).
unsafe fn slot<'a>(handle: *mut i64) -> Option<&'a AtomicI64> {
    (!handle.is_null()).then(|| &*(handle as *const AtomicI64))
}

/// The region and class a handle names, assigned from the function's
/// name (a C string, null where the caller has none) the first time. An
/// unknown name is a region of class other.
unsafe fn resolve(handle: *mut i64, name: *const libc::c_char) -> Option<(RegionId, Class)> {
    let slot = slot(handle)?;
    if let Some(known) = from_handle_value(slot.load(Ordering::Acquire)) {
        return Some(known);
    }
    if name.is_null() {
        return None;
    }
    let name = std::str::from_utf8(crate::regions::c_string_bytes(name)).ok()?;
    if !crate::ensure_running() {
        return None;
    }
    let class = pomp2::mpi::function(name).map_or(Class::Other, |f| f.class);
    let region = crate::regions::mpi_function(name)?;
    slot.store(handle_value(region, class), Ordering::Release);
    Some((region, class))
}

pub(crate) unsafe fn enter(handle: *mut i64, function: *const libc::c_char) {
    if !crate::recording() {
        return;
    }
    if let Some((region, _)) = resolve(handle, function) {
        crate::record(|state| state.enter_mpi(region, Now));
    }
}

pub(crate) unsafe fn exit(handle: *mut i64) {
    if let Some((region, class)) = resolve(handle, std::ptr::null()) {
        crate::record(|state| state.exit_mpi(region, class, Now));
    }
}

fn message(comm: u64, peer: i32, tag: i32, bytes: u64) -> Option<Message> {
    Some(Message {
        communicator: CommId(comm),
        peer: u32::try_from(peer).ok()?,
        tag: u32::try_from(tag).ok()?,
        bytes,
    })
}

/// Updates the calling thread's state, when the runtime records.
fn on_thread(update: impl FnOnce(&mut ThreadState)) {
    crate::record(update);
}

fn sent(state: &mut ThreadState, bytes: u64) {
    state.count_mpi(bytes, 0, |totals: &mut MpiTotals| {
        totals.messages_sent += 1;
        totals.bytes_sent += bytes;
    });
}

fn received(state: &mut ThreadState, bytes: u64) {
    state.count_mpi(0, bytes, |totals: &mut MpiTotals| {
        totals.messages_received += 1;
        totals.bytes_received += bytes;
    });
}

pub(crate) fn send(comm: u64, peer: i32, tag: i32, bytes: u64) {
    let Some(message) = message(comm, peer, tag, bytes) else {
        return;
    };
    on_thread(|state| {
        sent(state, bytes);
        state.record_mpi(MpiRecord::Send(message), At::CallStart, Now);
    });
}

pub(crate) fn isend(comm: u64, peer: i32, tag: i32, bytes: u64, request: u64) {
    let Some(message) = message(comm, peer, tag, bytes) else {
        return;
    };
    let request = requests::start(request, Started::Send);
    on_thread(|state| {
        sent(state, bytes);
        state.record_mpi(MpiRecord::Isend { message, request }, At::CallStart, Now);
    });
}

pub(crate) fn recv(comm: u64, peer: i32, tag: i32, bytes: u64) {
    let Some(message) = message(comm, peer, tag, bytes) else {
        return;
    };
    on_thread(|state| {
        received(state, bytes);
        state.record_mpi(MpiRecord::Recv(message), At::Now, Now);
    });
}

pub(crate) fn irecv(comm: u64, request: u64) {
    let request = requests::start(request, Started::Receive(CommId(comm)));
    on_thread(|state| {
        state.record_mpi(MpiRecord::IrecvRequest { request }, At::CallStart, Now);
    });
}

pub(crate) fn request_completed(handle: u64, peer: i32, tag: i32, bytes: u64, cancelled: bool) {
    let Some(pending) = requests::finish(handle) else {
        return;
    };
    let request = pending.id;
    on_thread(|state| {
        if cancelled {
            state.record_mpi(MpiRecord::RequestCancelled { request }, At::Now, Now);
            return;
        }
        match pending.started {
            Started::Send => state.record_mpi(MpiRecord::IsendComplete { request }, At::Now, Now),
            Started::Receive(comm) => {
                let Some(message) = message(comm.0, peer, tag, bytes) else {
                    return;
                };
                received(state, bytes);
                state.record_mpi(MpiRecord::Irecv { message, request }, At::Now, Now);
            }
        }
    });
}

pub(crate) fn request_tested(handle: u64) {
    if let Some(pending) = requests::find(handle) {
        on_thread(|state| {
            let request = pending.id;
            state.record_mpi(MpiRecord::RequestTest { request }, At::Now, Now);
        });
    }
}

pub(crate) fn request_freed(handle: u64) {
    requests::finish(handle);
}

pub(crate) fn collective_end(operation: u32, comm: u64, root: i32, sent: u64, received: u64) {
    let Some(operation) = u8::try_from(operation)
        .ok()
        .and_then(CollectiveOp::from_code)
    else {
        return;
    };
    let collective = Collective {
        operation,
        communicator: CommId(comm),
        root: u32::try_from(root).ok().filter(|_| operation.has_root()),
        sent,
        received,
    };
    on_thread(|state| {
        state.count_mpi(sent, received, |totals: &mut MpiTotals| {
            totals.collectives += 1;
            totals.collective_bytes_sent += sent;
            totals.collective_bytes_received += received;
        });
        state.record_mpi(MpiRecord::CollectiveBegin, At::CallStart, Now);
        state.record_mpi(MpiRecord::CollectiveEnd(collective), At::Now, Now);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_hold_region_and_class_and_are_never_zero() {
        for class in [Class::PointToPoint, Class::Collective, Class::Other] {
            for region in [1, 7, u32::MAX >> 1] {
                let value = handle_value(region, class);
                assert_ne!(value, 0);
                assert_eq!(from_handle_value(value), Some((region, class)));
            }
        }
        assert_eq!(from_handle_value(0), None);
        assert_eq!(from_handle_value(5), None);
    }
}
