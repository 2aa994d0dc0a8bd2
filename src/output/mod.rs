//! Output: the instrumented source, the IDF descriptor, and writing both
//! without ever leaving a partial file behind.

pub mod c;
pub mod fortran;
pub mod idf;

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory
/// and a rename: readers see the old file or the whole new one. Like a
/// compiler's output it is not forced to disk: after a crash the build
/// reruns anyway, and a sync per file would dominate large builds.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new().prefix(".pomp-").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// What the lines of a pomp directive become: the calls that replace it and
/// the line marker resuming the user's numbering, or, when nothing replaces
/// it, an empty line, so that the numbering below it holds without one.
pub(crate) fn directive_replacement(calls: String, resume: String) -> String {
    if calls.is_empty() {
        "\n".to_string()
    } else {
        calls + &resume
    }
}
