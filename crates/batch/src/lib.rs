//! `pomp batch`: a whole source tree into an instrumented mirror, in
//! parallel and incrementally.
//!
//! Every C, C++ and Fortran source with directives is instrumented into the
//! mirror; every other file is hard-linked (copied across file systems),
//! so the mirror builds as the original does. Beside the tree go
//! `pomp_regions.c`, registering every instrumented unit through weak
//! references, `pomp-idf.json`, every region of the tree, and with a
//! compilation database its counterpart for the mirror (`own_files`).
//!
//! Headers are mirrored as written, their directives reported: a header's
//! registration function and region handles would be defined in every
//! unit that includes it.
//!
//! The tree is walked in path order (`jobs`) and mirrored a chunk of
//! files at a time, each chunk in parallel, its results taken in order
//! (`update`): the output is the same whatever the number of threads, and
//! what the run holds follows the files in flight, not the tree. The
//! cache's state is a stream in the same order, merged with the walk
//! (`cache`); each file's report goes to the caller as it is made; the
//! registration keeps a name per instrumented unit, and the IDF index is
//! streamed from the descriptors kept on disk. With a watcher that saw
//! nothing change, the last run's state is told again instead
//! (`watch`, `replay`).
//!
//! The run prints nothing. Progress goes to a [`Progress`], reports to the
//! caller's sink; the `pomp` program prints.

mod cache;
mod compdb;
mod config;
mod directories;
mod index;
mod jobs;
pub mod link;
mod lock;
mod mirror;
mod own_files;
mod replay;
mod report;
mod update;
mod walk;
pub mod watch;

pub use config::{tool_version, Config, OnError};
pub use own_files::{Change, BUILT_OUTSIDE, COMPILE_COMMANDS, INDEX, REGISTRATION};
pub use report::{FileDiagnostic, FileReport, Kind, Mirror, Summary, Verdict};

use anyhow::{bail, Result};
use directories::Directories;
use jobs::Jobs;
use report::Tally;
use std::path::PathBuf;
use std::time::{Instant, SystemTime};
use watch::Watching;

/// Mirror the tree as `config` says. Each file's report goes to `reports`,
/// in path order, as the run makes it.
pub fn run(
    config: &Config,
    progress: &dyn Progress,
    reports: &mut dyn FnMut(&FileReport),
) -> Result<Outcome> {
    let timing = Timing {
        clock: Instant::now(),
        threads: config.threads(),
    };
    let started = SystemTime::now();
    let database = config
        .compile_commands
        .as_deref()
        .map(compdb::Database::read)
        .transpose()?;
    let directories = Directories::make(config, database.as_ref())?;
    let _lock = lock::take(&directories.cache)?;
    let settings = config.settings(&directories.root, &directories.out);
    // Taken before anything else: a run that stops half way leaves none.
    let token = watch::Token::take(&directories.cache);
    let asked = match &config.watch {
        None => None,
        Some(_) if database.is_some() => bail!(
            "a watcher watches a source directory, not the files of a compilation \
             database, which may lie anywhere: leave out --watch"
        ),
        Some(program) => Some(watch::ask(program, &directories, token, &settings)),
    };
    let (walking, unwatched) = match asked {
        Some(Ok(Watching::NothingChanged(token))) => {
            let (tally, warnings) = replay::replay(&directories.cache, token, progress, reports);
            let mut outcome = Outcome::new(directories, tally, warnings, &timing);
            outcome.watcher = Some(Watched::NothingChanged);
            return Ok(outcome);
        }
        Some(Ok(Watching::Walk(walking))) => (Some(walking), None),
        Some(Err(error)) => (None, Some(format!("the tree is not watched: {error:#}"))),
        None => (None, None),
    };

    let mut cache = cache::Cache::open(&directories.cache, started);
    let jobs = Jobs::new(config, &directories, database.as_ref())?;
    let updated = update::mirror_tree(
        jobs,
        &mut cache,
        &directories,
        config.on_error,
        timing.threads,
        progress,
        reports,
    )?;
    let registration_change = own_files::write_registration(&directories, &updated.init_functions)?;
    own_files::write_index(&directories, cache, &updated.index_inputs)?;
    let compile_commands = database
        .as_ref()
        .map(|database| {
            own_files::write_compile_commands(database, &directories, &updated.mirrored_units)
        })
        .transpose()?;

    let mut warnings = updated.warnings;
    if let Some(database) = &database {
        warnings.extend(database.skipped.iter().map(|file| {
            format!(
                "{}: not C, C++ or Fortran; its command is kept",
                file.display()
            )
        }));
    }
    let watcher = walking.map(|walking| {
        if let Err(error) = walking.finish(&directories.cache, settings, warnings.clone()) {
            warnings.push(format!("the next run walks the tree again: {error:#}"));
        }
        Watched::Walked
    });
    warnings.extend(unwatched);
    let mut outcome = Outcome::new(directories, updated.tally, warnings, &timing);
    outcome.compile_commands = compile_commands;
    outcome.watcher = watcher;
    outcome.registration_change = registration_change;
    Ok(outcome)
}

/// Told about the run as it goes; called from the worker threads.
pub trait Progress: Sync {
    /// The tree is walked as it is mirrored: how many files it holds is
    /// known at the end. `expected` is how many the last run found.
    fn start(&self, _expected: Option<usize>) {}
    fn file_done(&self, _file: &FileReport) {}
    fn finish(&self) {}
}

/// Progress nobody watches.
pub struct Quiet;

impl Progress for Quiet {}

/// What a run did.
#[derive(Debug, serde::Serialize)]
pub struct Outcome {
    pub summary: Summary,
    /// The files that failed or have diagnostics, ordered by path. Every
    /// file's report went to the run's sink.
    #[serde(skip)]
    pub notable: Vec<FileReport>,
    /// About the run rather than one file: what the walk could not read,
    /// files left out and why.
    pub warnings: Vec<String>,
    pub source_dir: PathBuf,
    pub out_dir: PathBuf,
    pub registration: PathBuf,
    /// Whether this run wrote the registration file anew: a program linked
    /// with the object of an older one misses the regions added since.
    pub registration_change: Change,
    pub index: PathBuf,
    pub compile_commands: Option<PathBuf>,
    /// With `--watch`: whether the watcher saw no change, so the tree was
    /// not walked.
    pub watcher: Option<Watched>,
}

/// What a watched run learnt from its watcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Watched {
    /// Nothing changed since the last run: its outcome stands.
    NothingChanged,
    /// The tree was walked: something changed, or the watcher had not
    /// watched since the last run.
    Walked,
}

impl Outcome {
    pub fn failed(&self) -> bool {
        self.summary.failed > 0
    }

    /// A run's outcome with neither a compilation database nor a watcher.
    fn new(
        directories: Directories,
        tally: Tally,
        warnings: Vec<String>,
        timing: &Timing,
    ) -> Outcome {
        let mut summary = tally.summary;
        summary.seconds = timing.clock.elapsed().as_secs_f64();
        summary.jobs = timing.threads;
        Outcome {
            summary,
            notable: tally.notable,
            warnings,
            registration: directories.out.join(REGISTRATION),
            registration_change: Change::Unchanged,
            index: directories.out.join(INDEX),
            source_dir: directories.root,
            out_dir: directories.out,
            compile_commands: None,
            watcher: None,
        }
    }
}

/// When a run began and how many threads it has: the last figures of its
/// summary.
struct Timing {
    clock: Instant,
    threads: usize,
}
