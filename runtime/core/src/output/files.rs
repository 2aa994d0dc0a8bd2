//! Where output goes: the experiment's files or the ones `POMP_PROFILE`
//! names (written through [`super::writing`]).

use pomp2::experiment::{FileKind, ProcessFile};
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
