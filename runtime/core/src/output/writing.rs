//! Writing that cannot go wrong halfway inside the measured program:
//! files replaced whole, and messages to a standard error that may be
//! closed. Everything that writes uses these, so they depend on nothing.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Like `eprintln!`, but a failing stderr (a closed pipe) is ignored rather
/// than a panic: this runs at exit, inside the instrumented program.
pub(crate) fn warn(message: std::fmt::Arguments) {
    let _ = writeln!(io::stderr(), "{message}");
}

/// Writes to a temporary file beside `path` and renames it, so a reader
/// never sees half a profile and a failure leaves no debris. A path that
/// names something other than a regular file (`/dev/stdout`, a pipe) is
/// written in place: renaming over it would replace the device.
///
/// The tools write through `pomp-files`; the runtime keeps this one of its
/// own because it is linked into the user's program: it takes nothing
/// beyond the standard library and libc (no temporary-file crate and its
/// dependencies in every measured program), and its files are its own
/// per-process names in a run's experiment, which no other writer shares.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<fs::File>) -> io::Result<()>,
) -> io::Result<()> {
    let target = if fs::symlink_metadata(path).is_err() {
        path.to_path_buf()
    } else {
        match (fs::metadata(path), fs::canonicalize(path)) {
            (Ok(metadata), Ok(real)) if metadata.is_file() => real,
            (metadata, _) => {
                let regular = metadata.is_ok_and(|m| m.is_file());
                let file = fs::OpenOptions::new()
                    .write(true)
                    .truncate(regular)
                    .open(path)?;
                let mut out = BufWriter::new(file);
                write(&mut out)?;
                return out.flush();
            }
        }
    };
    let mut temporary = target.as_os_str().to_owned();
    temporary.push(format!(".tmp{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let result = (|| {
        let mut out = BufWriter::new(fs::File::create(&temporary)?);
        write(&mut out)?;
        // The rename alone keeps readers from half a file. Waiting for the
        // disk as well (fsync) would add milliseconds to every run, up to
        // a tenth of a second on a busy disk, for a file a power failure
        // may as well lose with its run.
        out.flush()?;
        fs::rename(&temporary, &target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}
