//! The few functions of the OTF2 library (3.x) that writing an archive
//! takes, loaded when first needed: pomp builds and runs where the library
//! is missing, and says which package brings it when it is asked for OTF2.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

/// The library's names: upstream's, and Debian's.
const NAMES: [&str; 2] = ["libotf2.so.10", "libopen-trace-format2.so.10"];
/// Loads this file instead of looking for the library.
pub const LIBRARY_VARIABLE: &str = "POMP_OTF2_LIBRARY";

pub type Archive = c_void;
pub type EvtWriter = c_void;
pub type DefWriter = c_void;
pub type GlobalDefWriter = c_void;
pub type ErrorCode = c_int;
pub const SUCCESS: ErrorCode = 0;

pub const UNDEFINED_U32: u32 = u32::MAX;
pub const FILEMODE_WRITE: u8 = 0;
pub const SUBSTRATE_POSIX: u8 = 1;
pub const COMPRESSION_NONE: u8 = 1;
pub const FLUSH: u8 = 1;
/// The size of event chunks: the smallest OTF2 takes. A thread's events
/// go to their file as a chunk fills, the last part chunk zeroed to its
/// end, so that a larger chunk costs every thread of a run its size in
/// zeros written to memory, and saves little: one more chunk header.
pub const CHUNK_SIZE_EVENTS: u64 = CHUNK_SIZE_MIN;
/// OTF2's bounds for a chunk's size.
const CHUNK_SIZE_MIN: u64 = 256 * 1024;
const CHUNK_SIZE_MAX: u64 = 16 * 1024 * 1024;

/// The size of the definition chunks of an archive of at most `locations`
/// locations. The groups of every thread and of every rank are a record
/// each, which must fit in one chunk (a member takes at most 9 bytes);
/// yet every location's own definitions take a chunk of that size in
/// memory while they are written, so it is no larger than that needs.
pub fn definitions_chunk_size(locations: u64) -> u64 {
    (locations.saturating_mul(10) + 64 * 1024)
        .next_power_of_two()
        .clamp(CHUNK_SIZE_MIN, CHUNK_SIZE_MAX)
}
pub const UNDEFINED_TIMESTAMP: u64 = u64::MAX;
pub const PARADIGM_USER: u8 = 1;
pub const PARADIGM_OPENMP: u8 = 3;
pub const PARADIGM_MPI: u8 = 4;
pub const PARADIGM_MEASUREMENT_SYSTEM: u8 = 6;
pub const PARADIGM_CLASS_PROCESS: u8 = 0;
pub const PARADIGM_CLASS_THREAD_FORK_JOIN: u8 = 1;
pub const LOCATION_GROUP_TYPE_PROCESS: u8 = 1;
pub const LOCATION_TYPE_CPU_THREAD: u8 = 1;
pub const GROUP_TYPE_COMM_LOCATIONS: u8 = 4;
pub const GROUP_TYPE_COMM_GROUP: u8 = 5;
pub const GROUP_TYPE_COMM_SELF: u8 = 6;

/// `OTF2_CollectiveOp`s.
pub mod collective {
    pub const BARRIER: u8 = 0;
    pub const BCAST: u8 = 1;
    pub const GATHER: u8 = 2;
    pub const GATHERV: u8 = 3;
    pub const SCATTER: u8 = 4;
    pub const SCATTERV: u8 = 5;
    pub const ALLGATHER: u8 = 6;
    pub const ALLGATHERV: u8 = 7;
    pub const ALLTOALL: u8 = 8;
    pub const ALLTOALLV: u8 = 9;
    pub const ALLREDUCE: u8 = 11;
    pub const REDUCE: u8 = 12;
    pub const REDUCE_SCATTER: u8 = 13;
    pub const SCAN: u8 = 14;
    pub const EXSCAN: u8 = 15;
    pub const REDUCE_SCATTER_BLOCK: u8 = 16;
}

/// `OTF2_RegionRole`s.
pub mod role {
    pub const FUNCTION: u8 = 1;
    pub const WRAPPER: u8 = 2;
    pub const LOOP: u8 = 3;
    pub const CODE: u8 = 4;
    pub const PARALLEL: u8 = 5;
    pub const SECTIONS: u8 = 6;
    pub const SECTION: u8 = 7;
    pub const WORKSHARE: u8 = 8;
    pub const SINGLE: u8 = 9;
    pub const SINGLE_SBLOCK: u8 = 10;
    pub const MASTER: u8 = 11;
    pub const CRITICAL: u8 = 12;
    pub const ATOMIC: u8 = 14;
    pub const BARRIER: u8 = 15;
    pub const IMPLICIT_BARRIER: u8 = 16;
    pub const FLUSH: u8 = 17;
    pub const ORDERED: u8 = 18;
    pub const TASK: u8 = 20;
    pub const TASK_CREATE: u8 = 21;
    pub const TASK_WAIT: u8 = 22;
    pub const COLL_ONE2ALL: u8 = 23;
    pub const COLL_ALL2ONE: u8 = 24;
    pub const COLL_ALL2ALL: u8 = 25;
    pub const POINT2POINT: u8 = 28;
    pub const ARTIFICIAL: u8 = 31;
    pub const TASK_UNTIED: u8 = 34;
}

#[repr(C)]
pub struct FlushCallbacks {
    pub pre_flush: extern "C" fn(*mut c_void, u8, u64, *mut c_void, bool) -> u8,
    pub post_flush: extern "C" fn(*mut c_void, u8, u64) -> u64,
}

pub type CallbackCode = c_int;
pub const CALLBACK_SUCCESS: CallbackCode = 0;
pub const CALLBACK_ERROR: CallbackCode = 1;
pub const TYPE_INT64: u8 = 8;
pub type CollectiveContext = c_void;

/// `OTF2_CollectiveCallbacks`: how the writers of one archive, each with
/// a handle of its own, agree.
#[repr(C)]
pub struct CollectiveCallbacks {
    pub release: extern "C" fn(*mut c_void, *mut CollectiveContext, *mut CollectiveContext),
    pub get_size: extern "C" fn(*mut c_void, *mut CollectiveContext, *mut u32) -> CallbackCode,
    pub get_rank: extern "C" fn(*mut c_void, *mut CollectiveContext, *mut u32) -> CallbackCode,
    pub create_local_comm: extern "C" fn(
        *mut c_void,
        *mut *mut CollectiveContext,
        *mut CollectiveContext,
        u32,
        u32,
        u32,
        u32,
        u32,
        u32,
    ) -> CallbackCode,
    pub free_local_comm: extern "C" fn(*mut c_void, *mut CollectiveContext) -> CallbackCode,
    pub barrier: extern "C" fn(*mut c_void, *mut CollectiveContext) -> CallbackCode,
    pub bcast: extern "C" fn(
        *mut c_void,
        *mut CollectiveContext,
        *mut c_void,
        u32,
        u8,
        u32,
    ) -> CallbackCode,
    pub gather: extern "C" fn(
        *mut c_void,
        *mut CollectiveContext,
        *const c_void,
        *mut c_void,
        u32,
        u8,
        u32,
    ) -> CallbackCode,
    pub gatherv: extern "C" fn(
        *mut c_void,
        *mut CollectiveContext,
        *const c_void,
        u32,
        *mut c_void,
        *const u32,
        u8,
        u32,
    ) -> CallbackCode,
    pub scatter: extern "C" fn(
        *mut c_void,
        *mut CollectiveContext,
        *const c_void,
        *mut c_void,
        u32,
        u8,
        u32,
    ) -> CallbackCode,
    pub scatterv: extern "C" fn(
        *mut c_void,
        *mut CollectiveContext,
        *const c_void,
        *const u32,
        *mut c_void,
        u32,
        u8,
        u32,
    ) -> CallbackCode,
}

macro_rules! functions {
    ($($name:ident = $symbol:literal: fn($($arg:ty),*) $(-> $ret:ty)?;)*) => {
        /// The library's functions, by what they do.
        #[allow(non_snake_case)]
        pub struct Otf2 {
            _library: Library,
            $(pub $name: unsafe extern "C" fn($($arg),*) $(-> $ret)?,)*
        }

        impl Otf2 {
            fn load(library: Library) -> Result<Otf2, String> {
                unsafe {
                    $(let $name = *library
                        .get::<unsafe extern "C" fn($($arg),*) $(-> $ret)?>(concat!($symbol, "\0").as_bytes())
                        .map_err(|e| format!("{}: {e}", $symbol))?;)*
                    Ok(Otf2 { _library: library, $($name,)* })
                }
            }
        }
    };
}

functions! {
    archive_open = "OTF2_Archive_Open": fn(*const c_char, *const c_char, u8, u64, u64, u8, u8) -> *mut Archive;
    archive_close = "OTF2_Archive_Close": fn(*mut Archive) -> ErrorCode;
    set_flush_callbacks = "OTF2_Archive_SetFlushCallbacks": fn(*mut Archive, *const FlushCallbacks, *mut c_void) -> ErrorCode;
    set_serial_collective_callbacks = "OTF2_Archive_SetSerialCollectiveCallbacks": fn(*mut Archive) -> ErrorCode;
    set_collective_callbacks = "OTF2_Archive_SetCollectiveCallbacks": fn(*mut Archive, *const CollectiveCallbacks, *mut c_void, *mut CollectiveContext, *mut CollectiveContext) -> ErrorCode;
    set_creator = "OTF2_Archive_SetCreator": fn(*mut Archive, *const c_char) -> ErrorCode;
    open_evt_files = "OTF2_Archive_OpenEvtFiles": fn(*mut Archive) -> ErrorCode;
    close_evt_files = "OTF2_Archive_CloseEvtFiles": fn(*mut Archive) -> ErrorCode;
    get_evt_writer = "OTF2_Archive_GetEvtWriter": fn(*mut Archive, u64) -> *mut EvtWriter;
    close_evt_writer = "OTF2_Archive_CloseEvtWriter": fn(*mut Archive, *mut EvtWriter) -> ErrorCode;
    open_def_files = "OTF2_Archive_OpenDefFiles": fn(*mut Archive) -> ErrorCode;
    close_def_files = "OTF2_Archive_CloseDefFiles": fn(*mut Archive) -> ErrorCode;
    get_def_writer = "OTF2_Archive_GetDefWriter": fn(*mut Archive, u64) -> *mut DefWriter;
    close_def_writer = "OTF2_Archive_CloseDefWriter": fn(*mut Archive, *mut DefWriter) -> ErrorCode;
    get_global_def_writer = "OTF2_Archive_GetGlobalDefWriter": fn(*mut Archive) -> *mut GlobalDefWriter;
    write_clock_properties = "OTF2_GlobalDefWriter_WriteClockProperties": fn(*mut GlobalDefWriter, u64, u64, u64, u64) -> ErrorCode;
    write_paradigm = "OTF2_GlobalDefWriter_WriteParadigm": fn(*mut GlobalDefWriter, u8, u32, u8) -> ErrorCode;
    write_string = "OTF2_GlobalDefWriter_WriteString": fn(*mut GlobalDefWriter, u32, *const c_char) -> ErrorCode;
    write_region = "OTF2_GlobalDefWriter_WriteRegion": fn(*mut GlobalDefWriter, u32, u32, u32, u32, u8, u8, u32, u32, u32, u32) -> ErrorCode;
    write_system_tree_node = "OTF2_GlobalDefWriter_WriteSystemTreeNode": fn(*mut GlobalDefWriter, u32, u32, u32, u32) -> ErrorCode;
    write_location_group = "OTF2_GlobalDefWriter_WriteLocationGroup": fn(*mut GlobalDefWriter, u32, u32, u8, u32, u32) -> ErrorCode;
    write_location = "OTF2_GlobalDefWriter_WriteLocation": fn(*mut GlobalDefWriter, u64, u32, u8, u64, u32) -> ErrorCode;
    write_group = "OTF2_GlobalDefWriter_WriteGroup": fn(*mut GlobalDefWriter, u32, u32, u8, u8, u32, u32, *const u64) -> ErrorCode;
    write_comm = "OTF2_GlobalDefWriter_WriteComm": fn(*mut GlobalDefWriter, u32, u32, u32, u32, u32) -> ErrorCode;
    enter = "OTF2_EvtWriter_Enter": fn(*mut EvtWriter, *mut c_void, u64, u32) -> ErrorCode;
    leave = "OTF2_EvtWriter_Leave": fn(*mut EvtWriter, *mut c_void, u64, u32) -> ErrorCode;
    thread_fork = "OTF2_EvtWriter_ThreadFork": fn(*mut EvtWriter, *mut c_void, u64, u8, u32) -> ErrorCode;
    thread_join = "OTF2_EvtWriter_ThreadJoin": fn(*mut EvtWriter, *mut c_void, u64, u8) -> ErrorCode;
    thread_task_create = "OTF2_EvtWriter_ThreadTaskCreate": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32) -> ErrorCode;
    thread_task_switch = "OTF2_EvtWriter_ThreadTaskSwitch": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32) -> ErrorCode;
    thread_task_complete = "OTF2_EvtWriter_ThreadTaskComplete": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32) -> ErrorCode;
    mpi_send = "OTF2_EvtWriter_MpiSend": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32, u64) -> ErrorCode;
    mpi_isend = "OTF2_EvtWriter_MpiIsend": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32, u64, u64) -> ErrorCode;
    mpi_isend_complete = "OTF2_EvtWriter_MpiIsendComplete": fn(*mut EvtWriter, *mut c_void, u64, u64) -> ErrorCode;
    mpi_irecv_request = "OTF2_EvtWriter_MpiIrecvRequest": fn(*mut EvtWriter, *mut c_void, u64, u64) -> ErrorCode;
    mpi_recv = "OTF2_EvtWriter_MpiRecv": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32, u64) -> ErrorCode;
    mpi_irecv = "OTF2_EvtWriter_MpiIrecv": fn(*mut EvtWriter, *mut c_void, u64, u32, u32, u32, u64, u64) -> ErrorCode;
    mpi_request_test = "OTF2_EvtWriter_MpiRequestTest": fn(*mut EvtWriter, *mut c_void, u64, u64) -> ErrorCode;
    mpi_request_cancelled = "OTF2_EvtWriter_MpiRequestCancelled": fn(*mut EvtWriter, *mut c_void, u64, u64) -> ErrorCode;
    mpi_collective_begin = "OTF2_EvtWriter_MpiCollectiveBegin": fn(*mut EvtWriter, *mut c_void, u64) -> ErrorCode;
    mpi_collective_end = "OTF2_EvtWriter_MpiCollectiveEnd": fn(*mut EvtWriter, *mut c_void, u64, u8, u32, u32, u64, u64) -> ErrorCode;
    error_name = "OTF2_Error_GetName": fn(ErrorCode) -> *const c_char;
}

/// The library, loaded on first use; why it could not be, if so.
pub fn get() -> Result<&'static Otf2, String> {
    static LOADED: OnceLock<Result<Otf2, String>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Otf2, String> {
    let candidates: Vec<String> = match std::env::var(LIBRARY_VARIABLE) {
        Ok(path) if !path.is_empty() => vec![path],
        _ => NAMES.iter().map(|n| n.to_string()).collect(),
    };
    let mut errors = Vec::new();
    for name in &candidates {
        // Loading runs the library's initialisers: OTF2's only set up its
        // own state.
        match unsafe { Library::new(name) } {
            Ok(library) => {
                return Otf2::load(library).map_err(|missing| {
                    format!(
                    "{name} is not the OTF2 library 3.x that pomp writes with (it lacks {missing})"
                )
                })
            }
            Err(error) => errors.push(error.to_string()),
        }
    }
    Err(format!(
        "writing OTF2 needs the OTF2 library 3.x ({}), which was not found: install it \
         (Debian and Ubuntu: apt-get install libopen-trace-format2-10, or libotf2-trace-dev; \
         the tools to read archives are in otf2-tools), or name the library's file in {LIBRARY_VARIABLE} ({})",
        NAMES.join(" or "),
        errors.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_chunk_holds_a_group_of_every_location() {
        for locations in [1, 3, 1024 * 3, 16_384 * 3, 100_000] {
            let size = definitions_chunk_size(locations);
            assert!(size >= 9 * locations, "{locations}: {size}");
            assert!((CHUNK_SIZE_MIN..=CHUNK_SIZE_MAX).contains(&size));
        }
        assert_eq!(definitions_chunk_size(3), CHUNK_SIZE_MIN);
    }
}
