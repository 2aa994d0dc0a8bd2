//! The trace file's descriptor, which every thread appends its chunks to
//! as its buffer fills: the one piece of the trace's writing that runs
//! while the program does, below the thread state that calls it.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The open file, -1 when there is none.
pub(super) static FILE: AtomicI32 = AtomicI32::new(-1);
/// A write failed: the trace is incomplete and is not kept.
pub(super) static WRITE_FAILED: AtomicBool = AtomicBool::new(false);
pub(super) fn open_for_appending(path: &Path) -> io::Result<i32> {
    let name = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))?;
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND | libc::O_CLOEXEC;
    let fd = unsafe { libc::open(name.as_ptr(), flags, 0o644) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

pub(super) fn write_all(fd: i32, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if written < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        bytes = &bytes[written as usize..];
    }
    Ok(())
}

/// Appends one thread's chunk. A file opened for appending takes each
/// `write` whole at its end, so the threads need no lock.
pub fn write_chunk(chunk: &[u8]) {
    let fd = FILE.load(Ordering::Acquire);
    if fd < 0 {
        return;
    }
    if write_all(fd, chunk).is_err() {
        WRITE_FAILED.store(true, Ordering::Relaxed);
    }
}
