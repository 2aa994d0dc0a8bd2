//! Where output goes, and writing it so that no reader sees half a file.

use pomp2::experiment::{FileKind, ProcessFile};
use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the process's files go: into the run's experiment, or (with
/// `POMP_PROFILE`) the profile where it says and the trace beside it.
pub enum Destination {
    Experiment(crate::experiment::Chosen),
    File(PathBuf),
    /// Neither could be had; why.
    Nowhere(String),
}

impl Destination {
    /// Decided when the process ends.
    pub fn at_end() -> Destination {
        match &crate::config().profile_path {
            Some(path) => Destination::File(legacy_path(path)),
            None => match crate::experiment::at_end() {
                Ok(chosen) => Destination::Experiment(chosen),
                Err(why) => Destination::Nowhere(why),
            },
        }
    }

    /// The file of `kind`: the process's own in the experiment (a forked
    /// process's named by its pid too); beside the profile file, the trace
    /// named by the process.
    pub fn path(&self, kind: FileKind) -> Option<PathBuf> {
        match (self, kind) {
            (Destination::Experiment(chosen), _) => {
                let file = ProcessFile {
                    rank: crate::process::rank().unwrap_or(0),
                    forked_pid: crate::is_forked_child().then(std::process::id),
                    kind,
                };
                Some(chosen.directory.join(file.name()))
            }
            (Destination::File(path), FileKind::Profile) => Some(path.clone()),
            (Destination::File(path), FileKind::Trace) => {
                let pid = std::process::id();
                let name = match crate::process::rank() {
                    Some(rank) => format!("pomp-trace.rank{rank}.{pid}.ptrace"),
                    None => format!("pomp-trace.{pid}.ptrace"),
                };
                Some(path.parent().unwrap_or(Path::new("")).join(name))
            }
            (Destination::Nowhere(_), _) => None,
        }
    }
}

/// The path `POMP_PROFILE` names, an MPI rank put in front of its
/// extension so that ranks sharing it never collide.
fn legacy_path(configured: &str) -> PathBuf {
    let path = Path::new(configured);
    let Some(rank) = crate::process::rank() else {
        return path.to_path_buf();
    };
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
