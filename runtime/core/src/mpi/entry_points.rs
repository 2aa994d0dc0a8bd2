//! The functions the POMP MPI library calls, with C linkage, as
//! `pomp2::mpi::ENTRY_POINTS` declares them (`tests/exports.rs` checks
//! that the library exports each). Every one tolerates being called
//! before the runtime started and after it finished.

// Safety contract of every entry point: pointers are NULL or valid for
// what their parameter says (a handle slot for the program's life, a
// NUL-terminated string, `count` elements).
#![allow(clippy::missing_safety_doc)]

use super::world::{self, Member};
use pomp2::clock::Measured;
use pomp2::mpi::{CommId, Communicator, ThreadLevel};
use std::ffi::c_char;

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_enter(handle: *mut i64, function: *const c_char) {
    super::enter(handle, function)
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_exit(handle: *mut i64) {
    super::exit(handle)
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_initialized(
    rank: i32,
    size: i32,
    requested: i32,
    provided: i32,
    library: *const c_char,
) {
    let library = crate::regions::c_string_bytes(library);
    let (Ok(rank), Ok(size)) = (u32::try_from(rank), u32::try_from(size)) else {
        return;
    };
    world::joined(Member {
        rank,
        size,
        requested: ThreadLevel::from_code(requested),
        provided: ThreadLevel::from_code(provided).unwrap_or(ThreadLevel::Single),
        library: String::from_utf8_lossy(library).trim().to_string(),
    });
}

/// Copies `text` into `buffer` with a NUL when it fits; its length.
unsafe fn copy_out(text: &[u8], buffer: *mut c_char, capacity: usize) -> usize {
    if !buffer.is_null() && text.len() < capacity {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buffer.cast::<u8>(), text.len());
        *buffer.add(text.len()) = 0;
    }
    text.len()
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_experiment(buffer: *mut c_char, capacity: usize) -> usize {
    use std::os::unix::ffi::OsStrExt;
    match crate::experiment::for_rank_zero() {
        Some(directory) => copy_out(directory.as_os_str().as_bytes(), buffer, capacity),
        None => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_join_experiment(directory: *const c_char, length: usize) {
    use std::os::unix::ffi::OsStrExt;
    if directory.is_null() || length == 0 {
        return;
    }
    let bytes = std::slice::from_raw_parts(directory.cast::<u8>(), length);
    crate::experiment::join(std::path::Path::new(std::ffi::OsStr::from_bytes(bytes)));
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_hosts(names: *const c_char, stride: usize, count: i32) {
    if names.is_null() || stride == 0 || count <= 0 {
        return;
    }
    let all = std::slice::from_raw_parts(names.cast::<u8>(), stride * count as usize);
    let hosts = all
        .chunks(stride)
        .map(|name| {
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            String::from_utf8_lossy(&name[..end]).into_owned()
        })
        .collect();
    world::set_hosts(hosts);
}

#[no_mangle]
pub extern "C" fn pomp_mpi_clock_offset(
    local_ns: i64,
    offset_ns: i64,
    precision_ns: i64,
    same_clock: i32,
) {
    let origin = crate::clock::origin_monotonic_ns() as i64;
    world::add_offset(
        local_ns.saturating_sub(origin).max(0) as u64,
        Measured {
            offset_ns,
            precision_ns: precision_ns.max(0) as u64,
        },
        same_clock != 0,
    );
}

#[no_mangle]
pub extern "C" fn pomp_mpi_threads() -> u32 {
    crate::thread::all()
        .iter()
        .filter(|data| data.live.load(std::sync::atomic::Ordering::Relaxed))
        .count() as u32
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_threads_per_rank(threads: *const u32, count: i32) {
    if threads.is_null() || count <= 0 {
        return;
    }
    world::set_threads_per_rank(std::slice::from_raw_parts(threads, count as usize).to_vec());
}

#[no_mangle]
pub extern "C" fn pomp_mpi_comm_new_id() -> u64 {
    world::new_communicator_id().0
}

#[no_mangle]
pub unsafe extern "C" fn pomp_mpi_comm_define(
    comm: u64,
    parent: u64,
    world_ranks: *const i32,
    size: i32,
) {
    if world_ranks.is_null() || size < 0 {
        return;
    }
    let ranks = std::slice::from_raw_parts(world_ranks, size as usize);
    world::define(Communicator {
        id: CommId(comm),
        parent: CommId(parent),
        members: ranks.iter().map(|&r| r.max(0) as u32).collect(),
    });
}

#[no_mangle]
pub extern "C" fn pomp_mpi_send(comm: u64, peer: i32, tag: i32, bytes: u64) {
    super::send(comm, peer, tag, bytes)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_isend(comm: u64, peer: i32, tag: i32, bytes: u64, request: u64) {
    super::isend(comm, peer, tag, bytes, request)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_recv(comm: u64, peer: i32, tag: i32, bytes: u64) {
    super::recv(comm, peer, tag, bytes)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_irecv(comm: u64, request: u64) {
    super::irecv(comm, request)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_request_completed(
    request: u64,
    peer: i32,
    tag: i32,
    bytes: u64,
    cancelled: i32,
) {
    super::request_completed(request, peer, tag, bytes, cancelled != 0)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_request_tested(request: u64) {
    super::request_tested(request)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_request_freed(request: u64) {
    super::request_freed(request)
}

#[no_mangle]
pub extern "C" fn pomp_mpi_collective_end(
    operation: u32,
    comm: u64,
    root: i32,
    sent: u64,
    received: u64,
) {
    super::collective_end(operation, comm, root, sent, received)
}
