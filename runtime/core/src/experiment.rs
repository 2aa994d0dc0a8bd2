//! The run's experiment (`pomp2::experiment`): the directory every process
//! of the run writes into, which rank 0 makes.
//!
//! Rank 0 (by its launcher's word, or a process alone) makes it when its
//! measurement starts, with a first manifest, and writes the manifest
//! again, complete, when it ends. With the POMP MPI library, rank 0 tells
//! the others through MPI which directory it made ([`for_rank_zero`],
//! [`join`]); without it, the others look, when they end, for the
//! directory whose manifest names their launcher's job ([`at_end`]). A
//! name is never used twice: a new directory is numbered when its name is
//! taken, and a directory `POMP_EXPERIMENT_DIRECTORY` names that holds an
//! earlier experiment is moved aside first.

use crate::mpi::world;
use crate::process;
use pomp2::experiment::{
    self, Agreement, Launcher, Manifest, MpiRun, FORMAT, MANIFEST, NAME_PREFIX, VERSION,
};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a rank without MPI waits, at its end, for rank 0's directory.
const FIND_WAIT: Duration = Duration::from_secs(30);

/// The experiment this process writes into.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub directory: PathBuf,
    /// Its manifest's `run`.
    pub run: String,
    /// The process that made it, which writes its manifest.
    maker: Option<u32>,
    /// An earlier experiment moved aside for it, and where to.
    pub moved_aside: Option<PathBuf>,
}

impl Chosen {
    fn made_here(&self) -> bool {
        self.maker == Some(std::process::id())
    }
}

static CHOSEN: Mutex<Option<Chosen>> = Mutex::new(None);

fn chosen<T>(work: impl FnOnce(&mut Option<Chosen>) -> T) -> T {
    work(
        &mut CHOSEN
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    )
}

/// Whether the run writes an experiment (and not the file
/// `POMP_PROFILE` names).
pub fn wanted() -> bool {
    crate::config().profile_path.is_none()
}

/// The directory that holds the run's experiment, where files wait until
/// the experiment is known: the working directory, or the one that holds
/// the directory `POMP_EXPERIMENT_DIRECTORY` names.
pub fn base_directory() -> PathBuf {
    match &crate::config().experiment_directory {
        Some(named) => match named.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        },
        None => PathBuf::from("."),
    }
}

/// When the runtime starts: rank 0, or a process alone, makes the
/// experiment now, so that ranks without MPI find it when they end.
pub fn at_start() {
    process::mark_start();
    if wanted() && crate::config().launch.rank.is_none_or(|rank| rank == 0) {
        // A failure is said at the end, when making it is tried again.
        let _ = make();
    }
}

/// Rank 0, through MPI: the directory to tell the others.
pub fn for_rank_zero() -> Option<PathBuf> {
    if !wanted() {
        return None;
    }
    if let Some(chosen) = chosen(|chosen| chosen.clone()) {
        return Some(chosen.directory);
    }
    make().ok().map(|chosen| chosen.directory)
}

/// The other ranks, through MPI: rank 0's directory. One this process made
/// before it knew it was not rank 0 (its launcher did not say) is removed.
pub fn join(directory: &Path) {
    if !wanted() {
        return;
    }
    let run = experiment::read_manifest(directory.join(MANIFEST))
        .map(|manifest| manifest.run)
        .unwrap_or_else(|_| file_name(directory));
    let own = chosen(|chosen| {
        chosen.replace(Chosen {
            directory: directory.to_path_buf(),
            run,
            maker: None,
            moved_aside: None,
        })
    });
    if let Some(own) = own.filter(|own| own.made_here() && own.directory != directory) {
        let _ = std::fs::remove_file(own.directory.join(MANIFEST));
        let _ = std::fs::remove_dir(&own.directory);
    }
}

/// At the end: the experiment to write into, found or made now where it is
/// not known yet; what went wrong otherwise.
pub fn at_end() -> Result<Chosen, String> {
    if let Some(chosen) = chosen(|chosen| chosen.clone()) {
        return Ok(chosen);
    }
    let launch = &crate::config().launch;
    let Some(launcher) = launch
        .launcher
        .as_ref()
        .filter(|_| process::rank() != Some(0))
    else {
        return make().map_err(|error| format!("cannot make the experiment directory: {error}"));
    };
    if let Some(found) = find(launcher, Instant::now() + FIND_WAIT) {
        chosen(|chosen| *chosen = Some(found.clone()));
        return Ok(found);
    }
    let made = make().map_err(|error| format!("cannot make an experiment directory: {error}"))?;
    crate::output::writing::warn(format_args!(
        "pomp: rank {} found no experiment of rank 0 for job {} within {} s; its files are in {}",
        process::rank().map_or("?".to_string(), |r| r.to_string()),
        launcher.job,
        FIND_WAIT.as_secs(),
        made.directory.display()
    ));
    Ok(made)
}

/// The process that made the experiment writes its manifest again,
/// complete, when it ends, having measured `threads` threads itself.
pub fn finish(threads: u32) -> io::Result<()> {
    let Some(chosen) = chosen(|chosen| chosen.clone()).filter(Chosen::made_here) else {
        return Ok(());
    };
    write_manifest(&chosen, true, threads)
}

/// Makes a new experiment directory with its first manifest.
fn make() -> io::Result<Chosen> {
    chosen(|slot| {
        if let Some(existing) = slot.as_ref() {
            return Ok(existing.clone());
        }
        let start = process::start();
        let job = crate::config()
            .launch
            .launcher
            .as_ref()
            .map_or_else(|| std::process::id().to_string(), |l| l.job.clone());
        let generated = experiment::directory_name(start.local, &job);
        let (directory, run, moved_aside) = match &crate::config().experiment_directory {
            None => {
                let (directory, n) = create_numbered(Path::new(&generated))?;
                let run = experiment::numbered(&generated, n);
                (directory, run, None)
            }
            Some(named) => {
                let (directory, moved_aside) = claim(named)?;
                (directory, generated, moved_aside)
            }
        };
        let made = Chosen {
            directory,
            run,
            maker: Some(std::process::id()),
            moved_aside,
        };
        write_manifest(&made, false, 0)?;
        *slot = Some(made.clone());
        Ok(made)
    })
}

/// Creates `path`, or the first of `path-2`, `path-3`, ... not taken; the
/// directory and its number.
fn create_numbered(path: &Path) -> io::Result<(PathBuf, u32)> {
    let name = path.as_os_str().to_string_lossy().into_owned();
    for n in 1.. {
        let candidate = PathBuf::from(experiment::numbered(&name, n));
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok((candidate, n)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    unreachable!("some number is free")
}

/// The directory `POMP_EXPERIMENT_DIRECTORY` names, for this run: made,
/// or taken when it is empty; an earlier experiment there is moved aside
/// (to the first free `NAME-2`, `NAME-3`, ...); anything else there is
/// left alone, and the run takes the first free numbered name instead.
fn claim(named: &Path) -> io::Result<(PathBuf, Option<PathBuf>)> {
    match std::fs::create_dir(named) {
        Ok(()) => return Ok((named.to_path_buf(), None)),
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        Err(_) => {}
    }
    let empty = std::fs::read_dir(named).is_ok_and(|mut entries| entries.next().is_none());
    if empty {
        return Ok((named.to_path_buf(), None));
    }
    if experiment::is_experiment(named) {
        let name = named.as_os_str().to_string_lossy().into_owned();
        for n in 2.. {
            let aside = PathBuf::from(experiment::numbered(&name, n));
            if aside.symlink_metadata().is_ok() {
                continue;
            }
            std::fs::rename(named, &aside)?;
            std::fs::create_dir(named)?;
            return Ok((named.to_path_buf(), Some(aside)));
        }
    }
    let (directory, _) = create_numbered(named)?;
    crate::output::writing::warn(format_args!(
        "pomp: {} holds something other than a pomp experiment; this run's experiment is {}",
        named.display(),
        directory.display()
    ));
    Ok((directory, None))
}

fn file_name(directory: &Path) -> String {
    directory.file_name().map_or_else(
        || directory.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Looks for the experiment rank 0 made for `launcher`'s job until
/// `deadline`.
fn find(launcher: &Launcher, deadline: Instant) -> Option<Chosen> {
    let mut pause = Duration::from_millis(5);
    loop {
        if let Some(found) = find_once(launcher) {
            return Some(found);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(200));
    }
}

fn find_once(launcher: &Launcher) -> Option<Chosen> {
    let candidates: Vec<PathBuf> = match &crate::config().experiment_directory {
        Some(named) => vec![named.clone()],
        None => {
            let job = experiment::job_in_name(&launcher.job);
            std::fs::read_dir(".")
                .ok()?
                .filter_map(Result::ok)
                .filter(|entry| {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    name.starts_with(NAME_PREFIX) && name.contains(&job)
                })
                .map(|entry| PathBuf::from(entry.file_name()))
                .collect()
        }
    };
    candidates.into_iter().find_map(|directory| {
        let manifest = experiment::read_manifest(directory.join(MANIFEST)).ok()?;
        let ours = manifest
            .launcher
            .as_ref()
            .is_some_and(|theirs| theirs.key == launcher.key);
        ours.then_some(Chosen {
            directory,
            run: manifest.run,
            maker: None,
            moved_aside: None,
        })
    })
}

fn write_manifest(chosen: &Chosen, finished: bool, threads: u32) -> io::Result<()> {
    let manifest = manifest(&chosen.run, finished, threads);
    crate::output::writing::write_atomically(&chosen.directory.join(MANIFEST), |out| {
        serde_json::to_writer_pretty(&mut *out, &manifest).map_err(io::Error::from)
    })
}

/// The run as this process knows it; `threads` its own, once it ends.
fn manifest(run: &str, finished: bool, threads: u32) -> Manifest {
    let launch = &crate::config().launch;
    let member = world::member();
    let ranks = process::ranks().unwrap_or(1);
    let alone = ranks <= 1 && member.is_none_or(|m| m.size <= 1);
    let agreement = match (member, &launch.launcher) {
        (Some(_), _) => Agreement::Mpi,
        (None, Some(_)) => Agreement::Launcher,
        (None, None) => Agreement::SingleProcess,
    };
    let start = process::start();
    Manifest {
        format: FORMAT.to_string(),
        version: VERSION,
        run: run.to_string(),
        command: process::command_line(),
        working_directory: std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default(),
        start: start.text.clone(),
        start_unix_ns: start.unix_ns,
        ranks,
        agreement,
        launcher: launch.launcher.clone(),
        mpi: member.map(|member| MpiRun {
            library: member.library.clone(),
            thread_level_requested: member.requested,
            thread_level_provided: member.provided,
        }),
        threads_per_rank: world::threads_per_rank()
            .or_else(|| (finished && alone).then(|| vec![threads])),
        hosts: world::hosts()
            .map(|names| experiment::hosts_of(&names))
            .or_else(|| alone.then(|| experiment::hosts_of(&[process::host().to_string()]))),
        finished,
    }
}
