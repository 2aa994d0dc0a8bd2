//! An experiment: the directory that every process of one run of a
//! measured program writes into, and that no later run writes again.
//!
//! ```text
//! pomp-20250314_093015_524222465/     named by date, time and the launcher's job
//!   manifest.json                     the run: command, ranks, threads, hosts, start
//!   profile.0.json  trace.0.ptrace    each rank's profile (and trace, with POMP_TRACE=1)
//!   profile.1.json  trace.1.ptrace
//!   profile.0.4711.json               a process rank 0 forked, by its pid
//! ```
//!
//! Rank 0 makes the directory and its [`Manifest`] when its measurement
//! starts, and writes the manifest again, complete, when it ends. The
//! other ranks learn the directory from rank 0 through MPI (with the POMP
//! MPI library), or else find it by their launcher's job ([`Launcher`]).
//! [`Experiment::open`] reads a directory's manifest and lists its
//! processes' files in rank order, reading none of them, so that a
//! reader can take one rank after another.

use crate::identity::ExperimentHeader;
pub use crate::identity::{EXPERIMENT_FORMAT as FORMAT, EXPERIMENT_VERSION as VERSION};
use crate::mpi::ThreadLevel;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The manifest's file name in the experiment.
pub const MANIFEST: &str = "manifest.json";
/// How the names of experiment directories begin.
pub const NAME_PREFIX: &str = "pomp-";

/// What one run says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`VERSION`] when written by this crate.
    pub version: u32,
    /// The run's name, which its profiles and traces carry: the
    /// directory's name as [`directory_name`] makes it (also where
    /// `POMP_EXPERIMENT_DIRECTORY` named the directory otherwise), so that
    /// files of different runs are told apart.
    pub run: String,
    /// The program and its arguments, as rank 0 was started.
    pub command: Vec<String>,
    pub working_directory: String,
    /// When rank 0's measurement started: local time with its offset from
    /// UTC (`2025-03-14T09:30:15+01:00`), and Unix time in nanoseconds.
    pub start: String,
    pub start_unix_ns: u64,
    /// The processes of the run: `MPI_COMM_WORLD`'s size, the launcher's
    /// count, or 1.
    pub ranks: u32,
    pub agreement: Agreement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launcher: Option<Launcher>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi: Option<MpiRun>,
    /// Each rank's measured threads, rank by rank, where rank 0 learnt them:
    /// through MPI at its finalisation, or in a run of one process. Each
    /// profile has its own in any case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_per_rank: Option<Vec<u32>>,
    /// The hosts and the ranks on each, where rank 0 learnt them (as
    /// above). Each profile names its host in any case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<Vec<Host>>,
    /// Set when rank 0 wrote the manifest again at its end; a manifest
    /// without it is of a run still going, or whose rank 0 did not end.
    pub finished: bool,
}

/// How the ranks agreed on the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Agreement {
    /// Rank 0 told the others through MPI (the POMP MPI library).
    Mpi,
    /// Each rank found the directory rank 0 made for the launcher's job.
    Launcher,
    /// One process: no other rank to agree with.
    SingleProcess,
}

/// The launcher that started the ranks, as its environment says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launcher {
    pub kind: LauncherKind,
    /// The job (Open MPI's job id, Slurm's `job.step`, ...), part of the
    /// directory's name.
    pub job: String,
    /// What the launcher gives every rank of this job and no other job
    /// (Open MPI's job id with its per-job random key, Slurm's cluster,
    /// job and step, Hydra's key-value space): ranks without MPI find
    /// their experiment by it.
    pub key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LauncherKind {
    /// Open MPI's `mpirun`/`mpiexec` (ORTE or PRRTE).
    OpenMpi,
    /// Slurm's `srun`.
    Slurm,
    /// MPICH's and Intel MPI's Hydra (`mpiexec.hydra`).
    Hydra,
}

/// MPI as the run initialised it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MpiRun {
    /// `MPI_Get_library_version`, its first line.
    pub library: String,
    /// What `MPI_Init_thread` asked for; `None` after `MPI_Init`.
    pub thread_level_requested: Option<ThreadLevel>,
    pub thread_level_provided: ThreadLevel,
}

/// A host, and the ranks that ran on it, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    pub name: String,
    pub ranks: Vec<u32>,
}

/// Hosts in the order their first rank has, from each rank's host name.
pub fn hosts_of(names: &[String]) -> Vec<Host> {
    let mut hosts: Vec<Host> = Vec::new();
    for (rank, name) in names.iter().enumerate() {
        match hosts.iter_mut().find(|host| &host.name == name) {
            Some(host) => host.ranks.push(rank as u32),
            None => hosts.push(Host {
                name: name.clone(),
                ranks: vec![rank as u32],
            }),
        }
    }
    hosts
}

/// A moment of local time, as a directory's name gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    pub year: i32,
    pub month: u32,
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

/// The name of a new experiment's directory: `pomp-YYYYMMDD_HHMMSS_JOB`,
/// the job made of letters, digits, `.` and `-` only (anything else
/// becomes `_`). A run that finds the name taken adds `-2`, `-3`, ...
/// ([`numbered`]).
pub fn directory_name(start: LocalTime, job: &str) -> String {
    let job = job_in_name(job);
    format!(
        "{NAME_PREFIX}{:04}{:02}{:02}_{:02}{:02}{:02}_{job}",
        start.year, start.month, start.day, start.hour, start.minute, start.second
    )
}

/// A job as a directory's name has it: letters, digits, `.` and `-`, any
/// other character `_`.
pub fn job_in_name(job: &str) -> String {
    job.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `name` for the `n`th run to want it (the first has it as it is).
pub fn numbered(name: &str, n: u32) -> String {
    if n <= 1 {
        name.to_string()
    } else {
        format!("{name}-{n}")
    }
}

/// What a process writes into an experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Profile,
    Trace,
}

/// One process's file in an experiment: `profile.<rank>.json`,
/// `trace.<rank>.ptrace`; a process that a rank forked adds its pid
/// (`profile.<rank>.<pid>.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProcessFile {
    pub rank: u32,
    pub forked_pid: Option<u32>,
    pub kind: FileKind,
}

impl ProcessFile {
    pub fn name(&self) -> String {
        let (stem, extension) = match self.kind {
            FileKind::Profile => ("profile", "json"),
            FileKind::Trace => ("trace", crate::trace::EXTENSION),
        };
        match self.forked_pid {
            None => format!("{stem}.{}.{extension}", self.rank),
            Some(pid) => format!("{stem}.{}.{pid}.{extension}", self.rank),
        }
    }

    /// The file a name is, if it is one.
    pub fn parse(name: &str) -> Option<ProcessFile> {
        let mut parts = name.split('.');
        let kind = match (parts.next()?, name.rsplit('.').next()?) {
            ("profile", "json") => FileKind::Profile,
            ("trace", crate::trace::EXTENSION) => FileKind::Trace,
            _ => return None,
        };
        let numbers: Vec<&str> = name.split('.').collect();
        let number = |text: &str| -> Option<u32> {
            (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
                .then(|| text.parse().ok())
                .flatten()
        };
        let (rank, forked_pid) = match numbers.as_slice() {
            [_, rank, _] => (number(rank)?, None),
            [_, rank, pid, _] => (number(rank)?, Some(number(pid)?)),
            _ => return None,
        };
        Some(ProcessFile {
            rank,
            forked_pid,
            kind,
        })
    }
}

/// One process of an experiment and its files, as found there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub rank: u32,
    /// Of a process that rank forked.
    pub forked_pid: Option<u32>,
    pub profile: Option<PathBuf>,
    pub trace: Option<PathBuf>,
}

/// An experiment directory, its manifest read.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    pub directory: PathBuf,
    pub manifest: Manifest,
}

/// Why a directory could not be read as an experiment: it has no
/// manifest, or the directory or its manifest could not be read (as
/// [`crate::document::Error`] says for any file pomp reads).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{} is not a pomp experiment: it has no {MANIFEST}", path.display())]
    NoManifest { path: PathBuf },
    #[error(transparent)]
    Read(#[from] crate::document::Error),
}

fn unreadable(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| {
        Error::Read(crate::document::Error::Unreadable {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Whether `path` is an experiment's directory (it holds a manifest).
pub fn is_experiment(path: &Path) -> bool {
    path.join(MANIFEST).is_file()
}

impl Experiment {
    /// Reads the manifest of the experiment in `directory`.
    pub fn open(directory: impl AsRef<Path>) -> Result<Experiment, Error> {
        let directory = directory.as_ref();
        let metadata = std::fs::metadata(directory).map_err(unreadable(directory))?;
        let manifest = directory.join(MANIFEST);
        if !metadata.is_dir() || !manifest.exists() {
            return Err(Error::NoManifest {
                path: directory.to_path_buf(),
            });
        }
        Ok(Experiment {
            directory: directory.to_path_buf(),
            manifest: crate::document::read(manifest)?,
        })
    }

    /// The processes whose files the directory holds, by rank and then by
    /// the pid of forked processes (a rank's own process first). The
    /// directory is listed once; no file is read.
    pub fn processes(&self) -> Result<Vec<Process>, Error> {
        let unreadable = unreadable(&self.directory);
        let mut found: std::collections::BTreeMap<(u32, Option<u32>), Process> = Default::default();
        for entry in std::fs::read_dir(&self.directory).map_err(&unreadable)? {
            let entry = entry.map_err(&unreadable)?;
            let name = entry.file_name();
            let Some(file) = name.to_str().and_then(ProcessFile::parse) else {
                continue;
            };
            let process = found
                .entry((file.rank, file.forked_pid))
                .or_insert_with(|| Process {
                    rank: file.rank,
                    forked_pid: file.forked_pid,
                    profile: None,
                    trace: None,
                });
            let path = Some(entry.path());
            match file.kind {
                FileKind::Profile => process.profile = path,
                FileKind::Trace => process.trace = path,
            }
        }
        Ok(found.into_values().collect())
    }

    /// Where rank `rank`'s file of `kind` is, whether or not it is there.
    pub fn path_of(&self, rank: u32, kind: FileKind) -> PathBuf {
        let file = ProcessFile {
            rank,
            forked_pid: None,
            kind,
        };
        self.directory.join(file.name())
    }
}

impl crate::document::Document for Manifest {
    const NAME: &'static str = "pomp experiment manifest";
    type Header = ExperimentHeader;

    fn identify(header: &ExperimentHeader) -> crate::document::Identity {
        header.identify()
    }
}

/// Reads an experiment's manifest.
pub fn read_manifest(path: impl AsRef<Path>) -> Result<Manifest, crate::document::Error> {
    crate::document::read(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: VERSION,
            run: "pomp-20250314_093015_524222465".into(),
            command: vec!["./ring".into(), "100".into()],
            working_directory: "/home/me/run".into(),
            start: "2025-03-14T09:30:15+01:00".into(),
            start_unix_ns: 1_741_941_015_000_000_000,
            ranks: 4,
            agreement: Agreement::Mpi,
            launcher: Some(Launcher {
                kind: LauncherKind::OpenMpi,
                job: "524222465".into(),
                key: "open-mpi:524222465:76249c0f3f8f2ae8-555558c5c67619a0".into(),
            }),
            mpi: Some(MpiRun {
                library: "Open MPI v4.1.4".into(),
                thread_level_requested: Some(ThreadLevel::Multiple),
                thread_level_provided: ThreadLevel::Multiple,
            }),
            threads_per_rank: Some(vec![2, 2, 2, 2]),
            hosts: Some(hosts_of(&[
                "a".to_string(),
                "a".to_string(),
                "b".to_string(),
                "a".to_string(),
            ])),
            finished: true,
        }
    }

    #[test]
    fn names_say_when_and_which_job() {
        let start = LocalTime {
            year: 2025,
            month: 3,
            day: 4,
            hour: 9,
            minute: 5,
            second: 7,
        };
        assert_eq!(
            directory_name(start, "524222465"),
            "pomp-20250304_090507_524222465"
        );
        assert_eq!(
            directory_name(start, "12/3 x"),
            "pomp-20250304_090507_12_3_x"
        );
        assert_eq!(numbered("pomp-x", 1), "pomp-x");
        assert_eq!(numbered("pomp-x", 3), "pomp-x-3");
    }

    #[test]
    fn hosts_keep_their_ranks_in_order() {
        let hosts = sample().hosts.unwrap();
        assert_eq!(hosts.len(), 2);
        assert_eq!(
            (hosts[0].name.as_str(), &hosts[0].ranks[..]),
            ("a", &[0, 1, 3][..])
        );
        assert_eq!(
            (hosts[1].name.as_str(), &hosts[1].ranks[..]),
            ("b", &[2][..])
        );
    }

    #[test]
    fn process_files_are_named_and_read_back() {
        for file in [
            ProcessFile {
                rank: 0,
                forked_pid: None,
                kind: FileKind::Profile,
            },
            ProcessFile {
                rank: 16383,
                forked_pid: None,
                kind: FileKind::Trace,
            },
            ProcessFile {
                rank: 2,
                forked_pid: Some(4711),
                kind: FileKind::Profile,
            },
        ] {
            assert_eq!(
                ProcessFile::parse(&file.name()),
                Some(file),
                "{}",
                file.name()
            );
        }
        assert_eq!(
            ProcessFile {
                rank: 3,
                forked_pid: None,
                kind: FileKind::Trace
            }
            .name(),
            "trace.3.ptrace"
        );
        for other in [
            "manifest.json",
            "profile.json",
            "profile.x.json",
            "profile.1.2.3.json",
            "trace.1.json",
            "profile.-1.json",
            ".profile.1.json.tmp4",
        ] {
            assert_eq!(ProcessFile::parse(other), None, "{other}");
        }
    }

    #[test]
    fn an_experiment_lists_its_processes_in_rank_order() {
        let dir = tempdir("lists");
        let manifest = sample();
        std::fs::write(dir.join(MANIFEST), serde_json::to_vec(&manifest).unwrap()).unwrap();
        for name in [
            "profile.10.json",
            "profile.2.json",
            "trace.2.ptrace",
            "profile.2.99.json",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let experiment = Experiment::open(&dir).unwrap();
        assert_eq!(experiment.manifest, manifest);
        let processes = experiment.processes().unwrap();
        let order: Vec<(u32, Option<u32>, bool, bool)> = processes
            .iter()
            .map(|p| (p.rank, p.forked_pid, p.profile.is_some(), p.trace.is_some()))
            .collect();
        assert_eq!(
            order,
            [
                (2, None, true, true),
                (2, Some(99), true, false),
                (10, None, true, false)
            ]
        );
        assert_eq!(
            experiment.path_of(10, FileKind::Profile),
            dir.join("profile.10.json")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directories_that_are_not_experiments_say_so() {
        let dir = tempdir("not");
        let error = Experiment::open(&dir).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{} is not a pomp experiment: it has no manifest.json",
                dir.display()
            )
        );
        assert!(!is_experiment(&dir));
        std::fs::write(
            dir.join(MANIFEST),
            b"{\"format\": \"pomp-experiment\", \"version\": 9}",
        )
        .unwrap();
        let error = Experiment::open(&dir).unwrap_err();
        assert!(error.to_string().contains("of version 9"), "{error}");
        assert!(is_experiment(&dir));
        let missing = Experiment::open(dir.join("gone")).unwrap_err();
        assert!(
            matches!(
                missing,
                Error::Read(crate::document::Error::Unreadable { .. })
            ),
            "{missing}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("pomp2-experiment-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
