//! `pomp batch`: a whole source tree into an instrumented mirror, in
//! parallel and incrementally.
//!
//! Every C, C++ and Fortran source with directives is instrumented into the
//! mirror; every other file is hard-linked (copied across file systems),
//! so the mirror builds as the original does. Beside the tree go
//! `pomp_regions.c`, registering every instrumented unit through weak
//! references, `pomp-idf.json`, every region of the tree, and with a
//! compilation database its counterpart for the mirror.
//!
//! Headers are mirrored as written, their directives reported: a header's
//! registration function and region handles would be defined in every
//! unit that includes it.
//!
//! The tree is walked in path order and mirrored a chunk of files at a
//! time, each chunk in parallel, its results taken in order: the output is
//! the same whatever the number of threads, and what the run holds follows
//! the files in flight, not the tree. The cache's state is a stream in the
//! same order, merged with the walk ([`cache`]); each file's report goes to
//! the caller as it is made; the registration keeps a name per instrumented
//! unit, and the IDF index is streamed from the descriptors kept on disk.
//!
//! The run prints nothing. Progress goes to a [`Progress`], reports to the
//! caller's sink; [`cli`] prints.

mod cache;
mod compdb;
mod index;
pub mod link;
mod mirror;
mod report;
mod walk;
pub mod watch;

pub use report::{FileDiagnostic, FileReport, Kind, Mirror, Summary, Verdict};

use anyhow::{bail, Context as _, Result};
use mirror::{Job, Role};
use pomp_core::frontend::clang::CompileFlags;
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The registration file, at the top of the output directory.
pub const REGISTRATION: &str = "pomp_regions.c";
/// The tree's IDF index, at the top of the output directory.
pub const INDEX: &str = "pomp-idf.json";
/// The mirrored compilation database, at the top of the output directory.
pub const COMPILE_COMMANDS: &str = "compile_commands.json";

/// Where the mirrored compilation database's commands write what the
/// original ones wrote outside the tree (an out-of-source build
/// directory), by its absolute path: never into the original build.
pub const BUILT_OUTSIDE: &str = "pomp_build";
/// The files of pomp's own at the top of the output directory; the last is
/// written only from a compilation database.
const OWN_FILES: [&str; 3] = [REGISTRATION, INDEX, COMPILE_COMMANDS];

/// What becomes of a source that cannot be instrumented. Either way the
/// run goes on and reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// The original goes into the mirror, so the tree still builds.
    #[default]
    Original,
    /// Nothing goes into the mirror, so building that file fails.
    Fail,
}

#[derive(Clone, Debug)]
pub struct Config {
    /// The tree to mirror. With a compilation database it may be left
    /// out: the directory holding every compiled file is taken.
    pub source_dir: Option<PathBuf>,
    pub out_dir: PathBuf,
    /// `compile_commands.json`: which files are compiled, and how.
    pub compile_commands: Option<PathBuf>,
    /// How sources are instrumented; the language is chosen per file.
    pub options: Options,
    /// `.gitignore`-style globs left out of the mirror.
    pub exclude: Vec<String>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub ignore_files: bool,
    /// Threads; all cores when `None`.
    pub jobs: Option<usize>,
    pub on_error: OnError,
    /// Part of every cached file's key: outputs of another pomp are redone.
    pub tool_version: String,
    /// Keep a watcher of the tree, started with this program (pomp's own
    /// binary), so that a run after which nothing changed does not walk
    /// it ([`watch`]).
    pub watch: Option<PathBuf>,
}

impl Config {
    pub fn new(source_dir: Option<PathBuf>, out_dir: PathBuf) -> Config {
        Config {
            source_dir,
            out_dir,
            compile_commands: None,
            options: Options::default(),
            exclude: vec![],
            ignore_files: true,
            jobs: None,
            on_error: OnError::default(),
            tool_version: tool_version(),
            watch: None,
        }
    }
}

/// pomp's version and a digest of what this build was made from (its
/// sources, the tables it instruments by, its locked dependencies): two
/// builds of one version may write different files.
pub fn tool_version() -> String {
    format!(
        "pomp {} build {}",
        env!("CARGO_PKG_VERSION"),
        pomp_core::BUILD_DIGEST
    )
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
}

/// How many files are mirrored together: enough to keep every core busy,
/// few enough that what is held for them stays small.
const CHUNK: usize = 512;

/// Mirror the tree as `config` says. Each file's report goes to `reports`,
/// in path order, as the run makes it.
pub fn run(
    config: &Config,
    progress: &dyn Progress,
    reports: &mut dyn FnMut(&FileReport),
) -> Result<Outcome> {
    let clock = Instant::now();
    let started = SystemTime::now();
    let database = config
        .compile_commands
        .as_deref()
        .map(compdb::Database::read)
        .transpose()?;
    let root = match (&config.source_dir, &database) {
        (Some(dir), _) => dir
            .canonicalize()
            .with_context(|| format!("cannot read {}", dir.display()))?,
        (None, Some(database)) => database
            .common_directory()
            .context("the compilation database names no C, C++ or Fortran file")?,
        (None, None) => bail!("name a source directory or a compilation database"),
    };
    if !root.is_dir() {
        bail!("{} is not a directory", root.display());
    }
    std::fs::create_dir_all(&config.out_dir)
        .with_context(|| format!("cannot create {}", config.out_dir.display()))?;
    let out_dir = config.out_dir.canonicalize()?;
    if root.starts_with(&out_dir) {
        bail!(
            "the output directory {} holds the source tree {}",
            out_dir.display(),
            root.display()
        );
    }
    let cache_dir = out_dir.join(cache::DIRECTORY);
    let idf_dir = cache_dir.join("idf");
    std::fs::create_dir_all(&idf_dir)?;
    let _lock = lock(&cache_dir)?;
    let threads = config.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let settings = settings(config, &root, &out_dir);
    // Taken before anything else: a run that stops half way leaves none.
    let token = watch::Token::take(&cache_dir);
    let mut walking = None;
    let mut watch_warnings = Vec::new();
    if let Some(program) = &config.watch {
        if database.is_some() {
            bail!(
                "a watcher watches a source directory, not the files of a compilation \
                 database, which may lie anywhere: leave out --watch"
            );
        }
        match start_watching(program, &root, &out_dir, token, &settings) {
            Ok(Watching::NothingChanged(token)) => {
                let paths = Paths {
                    root,
                    out_dir,
                    compile_commands: None,
                };
                let outcome = replay(paths, token, progress, reports, threads, clock);
                return Ok(outcome);
            }
            Ok(Watching::Walk(started)) => walking = Some(started),
            Err(error) => watch_warnings.push(format!("the tree is not watched: {error:#}")),
        }
    }
    let mut cache = cache::Cache::open(&cache_dir, started);
    let jobs = Jobs::new(config, &root, &out_dir, database.as_ref())?;

    // Started when a file is to be redone: an unchanged tree needs none.
    let pool_cell = std::cell::OnceCell::new();
    let pool = || -> Result<&rayon::ThreadPool> {
        if let Some(pool) = pool_cell.get() {
            return Ok(pool);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        Ok(pool_cell.get_or_init(|| pool))
    };
    let cx = mirror::Context {
        out_dir: &out_dir,
        idf_dir: &idf_dir,
        on_error: config.on_error,
        previous_start_ns: cache.previous.started_ns(),
    };
    let cannot_write_cache = || format!("cannot write the cache in {}", cache_dir.display());
    let expected = cache.previous.len() as usize;
    progress.start((expected > 0).then_some(expected));
    let mut summary = Summary::default();
    let mut notable = Vec::new();
    let mut init_functions = BTreeSet::new();
    let mut index_inputs = cache::Digest::default();
    let mut vanished = Vec::new();
    // The walk goes on in its own thread while the files it found are
    // mirrored.
    let jobs = std::thread::scope(|scope| -> Result<Jobs> {
        let (sender, chunks) = crossbeam_channel::bounded::<Vec<Job>>(1);
        let walker = scope.spawn(move || {
            let mut jobs = jobs;
            loop {
                let chunk: Vec<Job> = jobs.by_ref().take(CHUNK).collect();
                if chunk.is_empty() || sender.send(chunk).is_err() {
                    return jobs;
                }
            }
        });
        for mut chunk in chunks {
            let mut befores = Vec::with_capacity(chunk.len());
            for job in &chunk {
                while let Some((key, entry)) = cache
                    .stale(Some(&job.key))
                    .with_context(cannot_write_cache)?
                {
                    remove_stale_output(&key, &entry, &out_dir, &idf_dir);
                    summary.removed += 1;
                }
                befores.push(cache.before(&job.key));
            }
            let done = bring_up_to_date(&mut chunk, &befores, &root, &cx, progress, &pool)?;
            for ((job, done), before) in chunk.iter().zip(done).zip(&befores) {
                let done = match done {
                    Ok(done) => done,
                    Err(error) => {
                        // Gone since the walk found it: as if never found.
                        vanished.push(format!("{}: {error}", job.source.display()));
                        cache.skip().with_context(cannot_write_cache)?;
                        if let Some(entry) = before.entry() {
                            remove_stale_output(&job.key, entry, &out_dir, &idf_dir);
                            summary.removed += 1;
                        }
                        continue;
                    }
                };
                let entry = &done.entry;
                if let Some(old) = before.entry().and_then(|e| e.idf.as_ref()) {
                    if entry.idf.as_ref() != Some(old) {
                        let _ = std::fs::remove_file(idf_dir.join(old));
                    }
                }
                cache
                    .record(&job.key, entry, before)
                    .with_context(cannot_write_cache)?;
                if let Some(idf) = &entry.idf {
                    for part in [
                        job.key.as_bytes(),
                        idf.as_bytes(),
                        entry.setup.as_bytes(),
                        entry.content.as_deref().unwrap_or_default().as_bytes(),
                    ] {
                        index_inputs.add(part);
                    }
                }
                let report = done.report;
                if report.verdict.mirror == Mirror::Instrumented {
                    init_functions.extend(report.verdict.init_function.clone());
                }
                tally(report, &mut summary, &mut notable, reports);
            }
        }
        Ok(walker.join().expect("the walk does not panic"))
    })?;
    while let Some((key, entry)) = cache.stale(None).with_context(cannot_write_cache)? {
        remove_stale_output(&key, &entry, &out_dir, &idf_dir);
        summary.removed += 1;
    }
    progress.finish();
    let Jobs {
        mut warnings,
        mirrored_units,
        ..
    } = jobs;
    warnings.extend(vanished);

    let registration = out_dir.join(REGISTRATION);
    let registration_change = write_if_changed(
        &registration,
        registration_source(&init_functions).as_bytes(),
    )?;
    let index = out_dir.join(INDEX);
    let index_inputs = index_inputs.finish();
    let index_current =
        cache.previous_index_inputs() == Some(index_inputs.as_str()) && index.is_file();
    if !index_current {
        // Whatever stops the index being written leaves none, so that the
        // next run writes it whatever the state says.
        let _ = std::fs::remove_file(&index);
    }
    cache
        .finish(&index_inputs)
        .with_context(cannot_write_cache)?;
    if !index_current {
        write_index(&index, &root, &cache_dir, &idf_dir)?;
    }
    let compile_commands = match &database {
        Some(database) => {
            let path = out_dir.join(COMPILE_COMMANDS);
            let entries = database.mirrored(
                |path| {
                    let relative = path.strip_prefix(&root).ok()?;
                    let counterpart = out_dir.join(relative);
                    (mirrored_units.contains(relative) || counterpart.is_dir())
                        .then_some(counterpart)
                },
                |written| match written.strip_prefix(&root) {
                    Ok(relative) => out_dir.join(relative),
                    Err(_) => out_dir
                        .join(BUILT_OUTSIDE)
                        .join(written.strip_prefix("/").unwrap_or(written)),
                },
            );
            for written in compdb::Database::written_by(&entries) {
                if let Some(directory) = written.parent() {
                    std::fs::create_dir_all(directory)
                        .with_context(|| format!("cannot create {}", directory.display()))?;
                }
            }
            write_if_changed(&path, &compdb::render(&entries)?)?;
            Some(path)
        }
        None => None,
    };

    if let Some(database) = &database {
        for file in &database.skipped {
            warnings.push(format!(
                "{}: not C, C++ or Fortran; its command is kept",
                file.display()
            ));
        }
    }
    let watcher = walking.map(|walking| {
        let token = cache::Header::of(&cache_dir)
            .context("the state was not written")
            .and_then(|state| walking.finish(settings, state, warnings.clone()))
            .and_then(|token| token.save(&cache_dir));
        if let Err(error) = token {
            warnings.push(format!("the next run walks the tree again: {error:#}"));
        }
        Watched::Walked
    });
    warnings.extend(watch_warnings);
    summary.seconds = clock.elapsed().as_secs_f64();
    summary.jobs = threads;
    let paths = Paths {
        root,
        out_dir,
        compile_commands,
    };
    let mut outcome = paths.outcome(summary, notable, warnings, watcher);
    outcome.registration_change = registration_change;
    Ok(outcome)
}

/// A file's report counted in the summary, handed to the caller, and kept
/// when it is worth printing.
fn tally(
    report: FileReport,
    summary: &mut Summary,
    notable: &mut Vec<FileReport>,
    reports: &mut dyn FnMut(&FileReport),
) {
    summary.add(&report);
    reports(&report);
    if report.notable() {
        notable.push(report);
    }
}

/// Where a run read and wrote.
struct Paths {
    root: PathBuf,
    out_dir: PathBuf,
    compile_commands: Option<PathBuf>,
}

impl Paths {
    fn outcome(
        self,
        summary: Summary,
        notable: Vec<FileReport>,
        warnings: Vec<String>,
        watcher: Option<Watched>,
    ) -> Outcome {
        Outcome {
            summary,
            notable,
            warnings,
            registration: self.out_dir.join(REGISTRATION),
            registration_change: Change::Unchanged,
            index: self.out_dir.join(INDEX),
            source_dir: self.root,
            out_dir: self.out_dir,
            compile_commands: self.compile_commands,
            watcher,
        }
    }
}

/// Everything about a run that decides its mirror: a watched run whose
/// settings differ from the last one's walks the tree.
fn settings(config: &Config, root: &Path, out_dir: &Path) -> String {
    let options = serde_json::to_vec(&config.options).expect("options serialise");
    let ignore_files = [u8::from(config.ignore_files)];
    let on_error = [u8::from(config.on_error == OnError::Fail)];
    let mut parts: Vec<&[u8]> = vec![
        config.tool_version.as_bytes(),
        root.as_os_str().as_encoded_bytes(),
        out_dir.as_os_str().as_encoded_bytes(),
        &options,
        &ignore_files,
        &on_error,
    ];
    parts.extend(config.exclude.iter().map(|glob| glob.as_bytes()));
    cache::digest(parts)
}

enum Watching {
    /// Nothing changed since the last run, whose state stands; the token
    /// to keep.
    NothingChanged(watch::Token),
    /// The tree is to be walked, from this tick on.
    Walk(watch::Walking),
}

/// Ask the watcher of the tree (started if none runs) whether anything
/// changed since the run that left `token`.
fn start_watching(
    program: &Path,
    root: &Path,
    out_dir: &Path,
    token: Option<watch::Token>,
    settings: &str,
) -> Result<Watching> {
    let cache_dir = out_dir.join(cache::DIRECTORY);
    let mut watcher = watch::Watcher::connect(root, out_dir, program)?;
    let state = cache::Header::of(&cache_dir);
    if let Some(token) = token.filter(|t| t.run == settings && Some(t.state) == state) {
        if let Some(kept) = watcher.vouches(token, root)? {
            return Ok(Watching::NothingChanged(kept));
        }
    }
    Ok(Watching::Walk(watcher.walking()?))
}

/// The outcome of a run after which nothing changed, from the state it
/// left: every file as it was, unchanged. Not even the tree is walked.
fn replay(
    paths: Paths,
    token: watch::Token,
    progress: &dyn Progress,
    reports: &mut dyn FnMut(&FileReport),
    threads: usize,
    clock: Instant,
) -> Outcome {
    let cache_dir = paths.out_dir.join(cache::DIRECTORY);
    let previous = cache::Previous::open(&cache_dir);
    progress.start(Some(previous.len() as usize));
    let mut summary = Summary::default();
    let mut notable = Vec::new();
    for (key, entry) in previous.into_entries() {
        let report = FileReport {
            path: PathBuf::from(key),
            size: entry.source.size(),
            cached: true,
            verdict: entry.verdict,
        };
        progress.file_done(&report);
        tally(report, &mut summary, &mut notable, reports);
    }
    progress.finish();
    let mut warnings = token.warnings.clone();
    if let Err(error) = token.save(&cache_dir) {
        warnings.push(format!("the next run walks the tree again: {error:#}"));
    }
    summary.seconds = clock.elapsed().as_secs_f64();
    summary.jobs = threads;
    paths.outcome(summary, notable, warnings, Some(Watched::NothingChanged))
}

/// Each file of `chunk` checked against what the last run left, and those
/// that changed redone, in the order of `chunk`. Statuses are checked on
/// this thread, which for an unchanged file is all there is to do: handing
/// such light work to other threads costs more than it saves. The files to
/// redo go to the pool.
fn bring_up_to_date<'p>(
    chunk: &mut [Job],
    befores: &[cache::Before],
    root: &Path,
    cx: &mirror::Context,
    progress: &dyn Progress,
    pool: &dyn Fn() -> Result<&'p rayon::ThreadPool>,
) -> Result<Vec<std::io::Result<mirror::Done>>> {
    let directories = mirror::open_directories(chunk, root, cx.out_dir);
    let mut done = Vec::with_capacity(chunk.len());
    let mut changed = Vec::new();
    for (n, (job, before)) in chunk.iter().zip(befores).enumerate() {
        let directory = &directories[job.directory];
        match mirror::check(job, before.entry(), cx, directory) {
            Ok(mirror::Checked::UpToDate(up_to_date)) => {
                progress.file_done(&up_to_date.report);
                done.push(Some(Ok(up_to_date)));
            }
            Ok(mirror::Checked::Changed(stat)) => {
                changed.push((n, stat));
                done.push(None);
            }
            Err(error) => done.push(Some(Err(error))),
        }
    }
    drop(directories);
    if !changed.is_empty() {
        let redone: Vec<(usize, mirror::Done)> = pool()?.install(|| {
            changed
                .par_iter()
                .map(|&(n, stat)| {
                    let redone = mirror::process(&chunk[n], stat, befores[n].entry(), cx);
                    progress.file_done(&redone.report);
                    (n, redone)
                })
                .collect()
        });
        for (n, redone) in redone {
            done[n] = Some(Ok(redone));
        }
    }
    Ok(done
        .into_iter()
        .map(|d| d.expect("every file is checked or redone"))
        .collect())
}

/// Only one run may write an output directory at a time.
fn lock(cache_dir: &Path) -> Result<std::fs::File> {
    // A lock is also held, for a moment, by a process forked while it was
    // taken, until that process runs its program: a short wait tells such
    // a moment from a run that is really going on.
    const PATIENCE: Duration = Duration::from_secs(2);
    let path = cache_dir.join("lock");
    let file = std::fs::File::create(&path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    let asked = Instant::now();
    while file.try_lock().is_err() {
        if asked.elapsed() > PATIENCE {
            bail!(
                "another pomp batch is writing {}",
                cache_dir.parent().unwrap_or(cache_dir).display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(file)
}

/// The files to mirror, in path order, found as they are asked for; the
/// rest go into `warnings`.
struct Jobs<'a> {
    config: &'a Config,
    root: &'a Path,
    database: Option<&'a compdb::Database>,
    walk: std::iter::Peekable<walk::Walk>,
    /// Files the compilation database compiles, relative to the root, in
    /// path order: mirrored also when the walk leaves them out.
    units: std::iter::Peekable<std::vec::IntoIter<PathBuf>>,
    reserved: &'static [&'static str],
    /// Files of one kind share their setup: its digest is made once.
    setups: HashMap<Class<'a>, (Role, String)>,
    warnings: Vec<String>,
    /// The compiled files mirrored, relative to the root.
    mirrored_units: HashSet<PathBuf>,
}

impl<'a> Jobs<'a> {
    fn new(
        config: &'a Config,
        root: &'a Path,
        out_dir: &Path,
        database: Option<&'a compdb::Database>,
    ) -> Result<Jobs<'a>> {
        let mut skip = BTreeSet::from([out_dir.to_path_buf()]);
        let mut warnings = Vec::new();
        let mut units = Vec::new();
        if let Some(database) = database {
            // Build directories: the mirror is of sources.
            skip.extend(
                database
                    .directories()
                    .into_iter()
                    .filter(|d| d != root && d.starts_with(root)),
            );
            for file in database.units.keys() {
                match file.strip_prefix(root) {
                    Ok(relative) => units.push(relative.to_path_buf()),
                    Err(_) => warnings.push(format!(
                        "{}: compiled, but outside {}; its command is kept",
                        file.display(),
                        root.display()
                    )),
                }
            }
        }
        let filters = walk::Filters {
            skip: &skip,
            exclude: &config.exclude,
            ignore_files: config.ignore_files,
        };
        Ok(Jobs {
            config,
            root,
            database,
            walk: walk::walk(root, &filters)?.peekable(),
            units: units.into_iter().peekable(),
            reserved: match database {
                Some(_) => &OWN_FILES,
                None => &OWN_FILES[..2],
            },
            setups: HashMap::new(),
            warnings,
            mirrored_units: HashSet::new(),
        })
    }

    /// The next file of the walk or of the database, whichever comes first.
    fn next_found(&mut self) -> Option<walk::Found> {
        loop {
            while let Some(Err(_)) = self.walk.peek() {
                if let Some(Err(problem)) = self.walk.next() {
                    self.warnings.push(problem);
                }
            }
            let walked = self.walk.peek().and_then(|f| f.as_ref().ok());
            let from_walk = match (walked, self.units.peek()) {
                (Some(walked), Some(unit)) => match walk::by_path(&walked.relative, unit) {
                    std::cmp::Ordering::Less => true,
                    std::cmp::Ordering::Equal => {
                        self.units.next();
                        true
                    }
                    std::cmp::Ordering::Greater => false,
                },
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => return None,
            };
            if from_walk {
                return self.walk.next().and_then(Result::ok);
            }
            // A compiled file is mirrored wherever it is in the tree, also
            // when generated into a build directory or ignored.
            let relative = self.units.next()?;
            if let Ok(metadata) = self.root.join(&relative).symlink_metadata() {
                return Some(walk::Found {
                    relative,
                    symlink: metadata.file_type().is_symlink(),
                });
            }
        }
    }
}

impl Iterator for Jobs<'_> {
    type Item = Job;

    fn next(&mut self) -> Option<Job> {
        loop {
            let walk::Found { relative, symlink } = self.next_found()?;
            if self.reserved.iter().any(|r| relative.as_os_str() == *r) {
                self.warnings.push(format!(
                    "{}: left out; the mirror's file of that name is pomp's",
                    relative.display()
                ));
                continue;
            }
            let Some(key) = relative.to_str().map(str::to_owned) else {
                self.warnings.push(format!(
                    "{}: left out; its name is not UTF-8",
                    relative.display()
                ));
                continue;
            };
            let source = self.root.join(&relative);
            let class = classify(&relative, &source, symlink, self.database);
            if matches!(class, Class::Source { flags: Some(_), .. }) {
                self.mirrored_units.insert(relative.clone());
            }
            let (config, root) = (self.config, self.root);
            let (role, setup) = self.setups.entry(class).or_insert_with(|| {
                let role = class.role(&config.options);
                let setup = setup(&role, &config.tool_version, root);
                (role, setup)
            });
            return Some(Job {
                relative,
                key,
                source,
                role: role.clone(),
                setup: setup.clone(),
                directory: 0,
            });
        }
    }
}

/// What a file is to the build, and all its setup depends on besides the
/// run's options: its role, its language and how it is compiled. Files of
/// one class share their role's options and setup.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Class<'d> {
    Source {
        language: Language,
        preprocessed: bool,
        flags: Option<&'d CompileFlags>,
    },
    Header(Option<Language>),
    Other,
    Symlink,
}

/// What a file is to the build: a source compiled on its own (the
/// database says, or else its suffix), a header, or anything else.
fn classify<'d>(
    relative: &Path,
    source: &Path,
    symlink: bool,
    database: Option<&'d compdb::Database>,
) -> Class<'d> {
    if symlink {
        return Class::Symlink;
    }
    let compiled = match database {
        Some(database) => database
            .units
            .get(source)
            .map(|unit| (unit.language, unit.preprocessed, Some(&unit.compile_flags))),
        None => {
            Language::from_path(relative).map(|l| (l, l.preprocessed_by_suffix(relative), None))
        }
    };
    let header = pomp_core::language::is_header(relative);
    match compiled {
        Some((language, preprocessed, flags)) if database.is_some() || !header => Class::Source {
            language,
            preprocessed,
            flags,
        },
        _ if header => Class::Header(pomp_core::language::header_language(relative)),
        _ => Class::Other,
    }
}

impl Class<'_> {
    /// The role of the class's files, with the options they are read with.
    fn role(&self, options: &Options) -> Role {
        match *self {
            Class::Source {
                language,
                preprocessed,
                flags,
            } => {
                let mut options = options.clone();
                options.language = Some(language);
                // With the flags known, `auto` reads C and C++ as the
                // compiler will.
                options.front_end.compile_flags = flags.cloned();
                // gfortran rejects `#line` in a file it does not preprocess.
                options.output.line_markers &= !language.is_fortran() || preprocessed;
                Role::Source(std::sync::Arc::new(options))
            }
            Class::Header(language) => {
                let mut options = options.clone();
                options.language = language;
                Role::Header(std::sync::Arc::new(options))
            }
            Class::Other => Role::Other,
            Class::Symlink => Role::Symlink,
        }
    }
}

/// Everything besides the content that decides a file's output. The tree's
/// root stands for the source's absolute path (the name instrumented code
/// gives it), which is the root joined to the file's key in the cache.
fn setup(role: &Role, tool_version: &str, root: &Path) -> String {
    let options = |o: &Options| serde_json::to_vec(o).expect("options serialise");
    match role {
        Role::Source(o) => cache::digest([
            tool_version.as_bytes(),
            b"source",
            &options(o),
            root.as_os_str().as_encoded_bytes(),
        ]),
        Role::Header(o) => cache::digest([tool_version.as_bytes(), b"header", &options(o)]),
        Role::Other => "other".into(),
        Role::Symlink => "symlink".into(),
    }
}

/// The output of a file the tree no longer has (deleted, now ignored or
/// excluded) is deleted, with its descriptor and the directories it
/// leaves empty.
fn remove_stale_output(key: &str, entry: &cache::Entry, out_dir: &Path, idf_dir: &Path) {
    let output = out_dir.join(key);
    if entry.output != cache::Output::Nothing
        && output.symlink_metadata().is_ok_and(|m| !m.is_dir())
    {
        let _ = std::fs::remove_file(&output);
    }
    if let Some(idf) = &entry.idf {
        let _ = std::fs::remove_file(idf_dir.join(idf));
    }
    let mut directory = output.parent();
    while let Some(d) = directory.filter(|d| *d != out_dir && d.starts_with(out_dir)) {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
        directory = d.parent();
    }
}

/// The weak registration of every instrumented unit of the mirror, by
/// their registration functions.
fn registration_source(init_functions: &BTreeSet<String>) -> String {
    use pomp2::registration::InitFunction;
    let functions: Vec<InitFunction> = init_functions
        .iter()
        .filter_map(|symbol| InitFunction::from_symbol(symbol))
        .collect();
    pomp_wrapper::registration::render_weak_registration(&functions)
}

/// Write the IDF index from the descriptors of the state's instrumented
/// files; descriptors no file refers to any more are deleted then.
fn write_index(index: &Path, root: &Path, cache_dir: &Path, idf_dir: &Path) -> Result<()> {
    let mut live = HashSet::new();
    let files = cache::indexed(cache_dir).map(|(path, idf)| {
        let descriptor = idf_dir.join(&idf);
        live.insert(idf);
        index::IndexedFile { path, descriptor }
    });
    index::write(index, root, files)
        .and_then(|()| readable_by_all(index))
        .with_context(|| format!("cannot write {}", index.display()))?;
    for entry in std::fs::read_dir(idf_dir)?.flatten() {
        if !live.contains(entry.file_name().to_string_lossy().as_ref()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// Write `bytes` unless the file already holds them, so that builds
/// depending on it are not redone.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<Change> {
    let change = match std::fs::read(path) {
        Ok(old) if old == bytes => return Ok(Change::Unchanged),
        Ok(_) => Change::Changed,
        Err(_) => Change::Created,
    };
    pomp_core::output::write_atomically(path, bytes)
        .and_then(|()| readable_by_all(path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(change)
}

/// What a run did to one of the files it writes beside the tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    #[default]
    Unchanged,
    Created,
    /// Different from what the last run wrote: whatever was built from
    /// the old file is stale.
    Changed,
}

/// What the mirror holds besides the tree is for whoever builds it, as
/// the tree's files are.
fn readable_by_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_second_run_on_one_output_directory_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = super::lock(dir.path()).unwrap();
        let refused = super::lock(dir.path()).unwrap_err();
        assert!(refused
            .to_string()
            .contains("another pomp batch is writing"));
        drop(first);
        super::lock(dir.path()).unwrap();
    }
}
