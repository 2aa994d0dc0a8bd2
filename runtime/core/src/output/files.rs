//! Where output goes, and writing it so that no reader sees half a file.

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// `<stem>.<pid>.<extension>`, or the configured path; an MPI rank goes in
/// front of the extension so that ranks sharing a directory never collide.
pub fn output_path(configured: Option<&str>, stem: &str, extension: &str, pid: u32) -> PathBuf {
    let rank = crate::config().rank.as_deref();
    match (configured, rank) {
        (Some(path), None) => PathBuf::from(path),
        (Some(path), Some(rank)) => {
            let path = Path::new(path);
            let name = match (path.file_stem(), path.extension()) {
                (Some(stem), Some(ext)) => format!(
                    "{}.rank{rank}.{}",
                    stem.to_string_lossy(),
                    ext.to_string_lossy()
                ),
                _ => format!("{}.rank{rank}", path.display()),
            };
            path.with_file_name(name)
        }
        (None, Some(rank)) => PathBuf::from(format!("{stem}.rank{rank}.{pid}.{extension}")),
        (None, None) => PathBuf::from(format!("{stem}.{pid}.{extension}")),
    }
}

/// Writes to a temporary file beside `path` and renames it, so a reader
/// never sees half a profile and a failure leaves no debris. A path that
/// names something other than a regular file (`/dev/stdout`, a pipe) is
/// written in place: renaming over it would replace the device.
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
