//! The library's archive handles an archive is written through: one for
//! the definitions every location shares, and one after another for the
//! events of a batch of processes ([`Batch`]).
//!
//! A handle looks each location it writes for up in a list of every
//! location it wrote before, so that one handle for every thread of a run
//! costs their number squared: 2.4 billion comparisons at 16,384 ranks of
//! 3 threads. Handles of at most [`LOCATIONS_PER_BATCH`] locations each
//! keep that linear. They write one archive as the processes of a
//! parallel program do, each through a handle of its own: the definitions'
//! handle is the root, which makes the directories when it opens, writes
//! the definitions and, closed last, the anchor file; the batches' handles
//! are the others ([`OTHER_WRITER`]).

use super::error::Error;
use super::library::{self, Otf2};
use std::ffi::{c_void, CStr, CString};

/// The most locations one batch's handle writes: small enough that its
/// lookups cost little, large enough that opening handles does.
pub(super) const LOCATIONS_PER_BATCH: usize = 512;

extern "C" fn pre_flush(_: *mut c_void, _: u8, _: u64, _: *mut c_void, _: bool) -> u8 {
    library::FLUSH
}

extern "C" fn post_flush(_: *mut c_void, _: u8, _: u64) -> u64 {
    super::events::LAST_TIME.load(std::sync::atomic::Ordering::Relaxed)
}

static FLUSH_CALLBACKS: library::FlushCallbacks = library::FlushCallbacks {
    pre_flush,
    post_flush,
};

/// The collectives of a batch's handle: the second of two writers, whose
/// root (the definitions' handle) is done with what they would wait for
/// before the batch opens. Opening a handle to write, a writer other than
/// the root learns from a broadcast whether the root could make the
/// archive's directories, which it could; no other collective is taken
/// part in when files are written one per location, and any would fail.
static OTHER_WRITER: library::CollectiveCallbacks = {
    use library::{CallbackCode, CollectiveContext as Context, CALLBACK_ERROR, CALLBACK_SUCCESS};
    extern "C" fn release(_: *mut c_void, _: *mut Context, _: *mut Context) {}
    extern "C" fn get_size(_: *mut c_void, _: *mut Context, size: *mut u32) -> CallbackCode {
        unsafe { *size = 2 };
        CALLBACK_SUCCESS
    }
    extern "C" fn get_rank(_: *mut c_void, _: *mut Context, rank: *mut u32) -> CallbackCode {
        unsafe { *rank = 1 };
        CALLBACK_SUCCESS
    }
    extern "C" fn create_local_comm(
        _: *mut c_void,
        _: *mut *mut Context,
        _: *mut Context,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
        _: u32,
    ) -> CallbackCode {
        CALLBACK_ERROR
    }
    extern "C" fn free_local_comm(_: *mut c_void, _: *mut Context) -> CallbackCode {
        CALLBACK_ERROR
    }
    extern "C" fn barrier(_: *mut c_void, _: *mut Context) -> CallbackCode {
        CALLBACK_SUCCESS
    }
    extern "C" fn bcast(
        _: *mut c_void,
        _: *mut Context,
        data: *mut c_void,
        elements: u32,
        kind: u8,
        root: u32,
    ) -> CallbackCode {
        if root != 0 || elements != 1 || kind != library::TYPE_INT64 {
            return CALLBACK_ERROR;
        }
        unsafe { *data.cast::<i64>() = i64::from(library::SUCCESS) };
        CALLBACK_SUCCESS
    }
    extern "C" fn gather(
        _: *mut c_void,
        _: *mut Context,
        _: *const c_void,
        _: *mut c_void,
        _: u32,
        _: u8,
        _: u32,
    ) -> CallbackCode {
        CALLBACK_ERROR
    }
    extern "C" fn gatherv(
        _: *mut c_void,
        _: *mut Context,
        _: *const c_void,
        _: u32,
        _: *mut c_void,
        _: *const u32,
        _: u8,
        _: u32,
    ) -> CallbackCode {
        CALLBACK_ERROR
    }
    extern "C" fn scatterv(
        _: *mut c_void,
        _: *mut Context,
        _: *const c_void,
        _: *const u32,
        _: *mut c_void,
        _: u32,
        _: u8,
        _: u32,
    ) -> CallbackCode {
        CALLBACK_ERROR
    }
    library::CollectiveCallbacks {
        release,
        get_size,
        get_rank,
        create_local_comm,
        free_local_comm,
        barrier,
        bcast,
        gather,
        gatherv,
        scatter: gather,
        scatterv,
    }
};

/// Who writes through a handle: the root, or another writer.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Writer {
    Root,
    Other,
}

/// `Ok` for the library's success, else the error named by the library.
pub(super) fn check(
    otf2: &Otf2,
    call: &'static str,
    code: library::ErrorCode,
) -> Result<(), Error> {
    if code == library::SUCCESS {
        return Ok(());
    }
    let name = unsafe {
        let name = (otf2.error_name)(code);
        if name.is_null() {
            format!("error {code}")
        } else {
            CStr::from_ptr(name).to_string_lossy().into_owned()
        }
    };
    Err(Error::Call { call, name })
}

/// Where the handles write: the archive's directory and name.
pub(super) struct Place {
    pub dir: CString,
    pub name: CString,
}

/// Opens a handle on the archive at `place` whose definition chunks are
/// `definitions_chunk` bytes, ready to write.
pub(super) fn open(
    otf2: &Otf2,
    place: &Place,
    writer: Writer,
    definitions_chunk: u64,
) -> Result<*mut c_void, Error> {
    let handle = unsafe {
        (otf2.archive_open)(
            place.dir.as_ptr(),
            place.name.as_ptr(),
            library::FILEMODE_WRITE,
            library::CHUNK_SIZE_EVENTS,
            definitions_chunk,
            library::SUBSTRATE_POSIX,
            library::COMPRESSION_NONE,
        )
    };
    if handle.is_null() {
        return Err(Error::Call {
            call: "OTF2_Archive_Open",
            name: format!("cannot open an archive in {}", place.dir.to_string_lossy()),
        });
    }
    let prepared = unsafe {
        check(
            otf2,
            "OTF2_Archive_SetFlushCallbacks",
            (otf2.set_flush_callbacks)(handle, &FLUSH_CALLBACKS, std::ptr::null_mut()),
        )
        .and_then(|()| match writer {
            Writer::Root => check(
                otf2,
                "OTF2_Archive_SetSerialCollectiveCallbacks",
                (otf2.set_serial_collective_callbacks)(handle),
            ),
            Writer::Other => check(
                otf2,
                "OTF2_Archive_SetCollectiveCallbacks",
                (otf2.set_collective_callbacks)(
                    handle,
                    &OTHER_WRITER,
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                    std::ptr::null_mut(),
                ),
            ),
        })
        .and_then(|()| {
            let creator = CString::new(format!("pomp {}", env!("CARGO_PKG_VERSION"))).unwrap();
            check(
                otf2,
                "OTF2_Archive_SetCreator",
                (otf2.set_creator)(handle, creator.as_ptr()),
            )
        })
    };
    if let Err(error) = prepared {
        unsafe { (otf2.archive_close)(handle) };
        return Err(error);
    }
    Ok(handle)
}

/// A handle writing the events of a batch of processes, a file per thread,
/// and each thread's (empty) definitions file.
pub(super) struct Batch {
    otf2: &'static Otf2,
    handle: *mut c_void,
    locations: Vec<u64>,
}

impl Batch {
    pub fn open(otf2: &'static Otf2, place: &Place) -> Result<Batch, Error> {
        let handle = open(
            otf2,
            place,
            Writer::Other,
            library::definitions_chunk_size(0),
        )?;
        let batch = Batch {
            otf2,
            handle,
            locations: Vec::new(),
        };
        check(otf2, "OTF2_Archive_OpenEvtFiles", unsafe {
            (otf2.open_evt_files)(handle)
        })?;
        Ok(batch)
    }

    /// Whether `threads` more locations go beyond `bound` locations (a
    /// batch takes one process however many threads it has).
    pub fn is_full_for(&self, threads: usize, bound: usize) -> bool {
        !self.locations.is_empty() && self.locations.len() + threads > bound
    }

    /// The event writer of new location `id`, to be given back to
    /// [`Batch::close_writer`] once its events are written.
    pub fn writer(&mut self, id: u64) -> Result<*mut c_void, Error> {
        let writer = unsafe { (self.otf2.get_evt_writer)(self.handle, id) };
        if writer.is_null() {
            return Err(Error::Call {
                call: "OTF2_Archive_GetEvtWriter",
                name: format!("no writer for location {id}"),
            });
        }
        self.locations.push(id);
        Ok(writer)
    }

    pub fn close_writer(&mut self, writer: *mut c_void) -> Result<(), Error> {
        check(self.otf2, "OTF2_Archive_CloseEvtWriter", unsafe {
            (self.otf2.close_evt_writer)(self.handle, writer)
        })
    }

    /// Writes the batch's files out and closes its handle.
    pub fn close(mut self) -> Result<(), Error> {
        let written = self.write_definition_files();
        let closed = unsafe { (self.otf2.archive_close)(self.handle) };
        self.handle = std::ptr::null_mut();
        written.and_then(|()| check(self.otf2, "OTF2_Archive_Close", closed))
    }

    fn write_definition_files(&self) -> Result<(), Error> {
        let (otf2, handle) = (self.otf2, self.handle);
        unsafe {
            check(
                otf2,
                "OTF2_Archive_CloseEvtFiles",
                (otf2.close_evt_files)(handle),
            )?;
            // Empty, yet readers open every location's: OTF2 3's
            // otf2-print reports each one missing as an error.
            check(
                otf2,
                "OTF2_Archive_OpenDefFiles",
                (otf2.open_def_files)(handle),
            )?;
            for &location in &self.locations {
                let writer = (otf2.get_def_writer)(handle, location);
                check(
                    otf2,
                    "OTF2_Archive_CloseDefWriter",
                    (otf2.close_def_writer)(handle, writer),
                )?;
            }
            check(
                otf2,
                "OTF2_Archive_CloseDefFiles",
                (otf2.close_def_files)(handle),
            )
        }
    }
}

impl Drop for Batch {
    /// A batch not closed (an error on the way) lets its handle go.
    fn drop(&mut self) {
        if !self.handle.is_null() {
            unsafe { (self.otf2.archive_close)(self.handle) };
        }
    }
}
