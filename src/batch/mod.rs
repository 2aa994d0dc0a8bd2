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
//! The run returns a report per file and a summary; it prints nothing.
//! Progress goes to a [`Progress`]; [`cli`] prints.

pub mod cli;

mod cache;
mod compdb;
mod index;
mod mirror;
mod report;
mod walk;

pub use report::{FileDiagnostic, FileReport, Kind, Mirror, Summary, Verdict};

use crate::frontend::clang::CompileFlags;
use crate::instrument::Options;
use crate::source::Language;
use anyhow::{bail, Context as _, Result};
use cache::State;
use mirror::{Job, Role};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The registration file, at the top of the output directory.
pub const REGISTRATION: &str = "pomp_regions.c";
/// The tree's IDF index, at the top of the output directory.
pub const INDEX: &str = "pomp-idf.json";
/// The mirrored compilation database, at the top of the output directory.
pub const COMPILE_COMMANDS: &str = "compile_commands.json";

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
        }
    }
}

/// pomp's version and a digest of the tables it instruments by, which
/// decide its output as much as its code does.
pub fn tool_version() -> String {
    let tables = cache::digest([
        include_str!("../../grammars/openmp.toml").as_bytes(),
        include_str!("../../grammars/rules.toml").as_bytes(),
    ]);
    format!("pomp {} tables {tables}", env!("CARGO_PKG_VERSION"))
}

/// Told about the run as it goes; called from the worker threads.
pub trait Progress: Sync {
    fn start(&self, _files: usize) {}
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
    /// Every file seen, ordered by path.
    pub files: Vec<FileReport>,
    /// About the run rather than one file: what the walk could not read,
    /// files left out and why.
    pub warnings: Vec<String>,
    pub source_dir: PathBuf,
    pub out_dir: PathBuf,
    pub registration: PathBuf,
    pub index: PathBuf,
    pub compile_commands: Option<PathBuf>,
}

impl Outcome {
    pub fn failed(&self) -> bool {
        self.summary.failed > 0
    }
}

/// Suffixes of files that are included rather than compiled.
const HEADER_SUFFIXES: &[&str] = &[
    "h", "H", "hh", "HH", "hpp", "HPP", "hxx", "h++", "inl", "ipp", "tpp", "tcc", "txx", "inc",
    "fh", "fi", "cuh",
];

/// Mirror the tree as `config` says.
pub fn run(config: &Config, progress: &dyn Progress) -> Result<Outcome> {
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
    let previous = State::load(&out_dir);

    let (jobs, mut warnings) = find_jobs(config, &root, &out_dir, database.as_ref())?;
    let removed = remove_stale_outputs(&previous, &jobs, &out_dir, &idf_dir);

    let threads = config.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let cx = mirror::Context {
        out_dir: &out_dir,
        idf_dir: &idf_dir,
        on_error: config.on_error,
        previous: &previous,
    };
    progress.start(jobs.len());
    let done: Vec<mirror::Done> = pool.install(|| {
        jobs.par_iter()
            .map(|job| {
                let done = mirror::process(job, &cx);
                progress.file_done(&done.report);
                done
            })
            .collect()
    });
    progress.finish();

    let mut state = State::default();
    let mut files = Vec::with_capacity(done.len());
    for (job, done) in jobs.iter().zip(done) {
        state.entries.insert(job.key.clone(), done.entry);
        files.push(done.report);
    }

    let registration = out_dir.join(REGISTRATION);
    write_if_changed(&registration, registration_source(&files).as_bytes())?;
    let index = out_dir.join(INDEX);
    state.index_inputs = update_index(&index, &root, &state, &previous, &idf_dir)?;
    let compile_commands = match &database {
        Some(database) => {
            let path = out_dir.join(COMPILE_COMMANDS);
            let mirrored: HashSet<&Path> = jobs.iter().map(|j| j.relative.as_path()).collect();
            let entries = database.mirrored(|path| {
                let relative = path.strip_prefix(&root).ok()?;
                let counterpart = out_dir.join(relative);
                (mirrored.contains(relative) || counterpart.is_dir()).then_some(counterpart)
            });
            write_if_changed(&path, &compdb::render(&entries)?)?;
            Some(path)
        }
        None => None,
    };
    if !state.same_as(&previous) {
        state
            .save(&out_dir, started)
            .context("cannot write the cache")?;
    }

    if let Some(database) = &database {
        for file in &database.skipped {
            warnings.push(format!(
                "{}: not C, C++ or Fortran; its command is kept",
                file.display()
            ));
        }
    }
    let summary = Summary::of(&files, removed, clock.elapsed().as_secs_f64(), threads);
    Ok(Outcome {
        summary,
        files,
        warnings,
        source_dir: root,
        out_dir,
        registration,
        index,
        compile_commands,
    })
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

/// The files to mirror, ordered by path, and warnings about the rest.
fn find_jobs(
    config: &Config,
    root: &Path,
    out_dir: &Path,
    database: Option<&compdb::Database>,
) -> Result<(Vec<Job>, Vec<String>)> {
    let mut skip = BTreeSet::from([out_dir.to_path_buf()]);
    if let Some(database) = database {
        // Build directories: the mirror is of sources.
        skip.extend(
            database
                .directories()
                .into_iter()
                .filter(|d| d != root && d.starts_with(root)),
        );
    }
    let filters = walk::Filters {
        skip: &skip,
        exclude: &config.exclude,
        ignore_files: config.ignore_files,
    };
    let (mut found, mut warnings) = walk::walk(root, &filters)?;
    if let Some(database) = database {
        // A compiled file is mirrored wherever it is in the tree, also
        // when generated into a build directory or ignored.
        let walked: HashSet<PathBuf> = found.iter().map(|f| f.relative.clone()).collect();
        for file in database.units.keys() {
            match file.strip_prefix(root) {
                Ok(relative) if !walked.contains(relative) => {
                    if let Ok(metadata) = file.symlink_metadata() {
                        found.push(walk::Found {
                            relative: relative.to_path_buf(),
                            metadata,
                        });
                    }
                }
                Ok(_) => {}
                Err(_) => warnings.push(format!(
                    "{}: compiled, but outside {}; its command is kept",
                    file.display(),
                    root.display()
                )),
            }
        }
        found.sort_by(|a, b| walk::by_path(&a.relative, &b.relative));
    }
    let reserved: &[&str] = match database {
        Some(_) => &[REGISTRATION, INDEX, COMPILE_COMMANDS],
        None => &[REGISTRATION, INDEX],
    };
    let mut jobs = Vec::with_capacity(found.len());
    // Files of one kind share their setup: its digest is made once.
    let mut setups: std::collections::HashMap<Class, (Role, String)> = Default::default();
    for walk::Found { relative, metadata } in found {
        if reserved.iter().any(|r| relative == Path::new(r)) {
            warnings.push(format!(
                "{}: left out; the mirror's file of that name is pomp's",
                relative.display()
            ));
            continue;
        }
        let Some(key) = relative.to_str().map(str::to_owned) else {
            warnings.push(format!(
                "{}: left out; its name is not UTF-8",
                relative.display()
            ));
            continue;
        };
        let source = root.join(&relative);
        let class = classify(&relative, &source, &metadata, database);
        let (role, setup) = setups.entry(class).or_insert_with(|| {
            let role = class.role(&config.options);
            let setup = setup(&role, &config.tool_version, root);
            (role, setup)
        });
        jobs.push(Job {
            relative,
            key,
            source,
            stat: cache::Stat::of(&metadata),
            permissions: metadata.permissions(),
            role: role.clone(),
            setup: setup.clone(),
        });
    }
    Ok((jobs, warnings))
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
    metadata: &std::fs::Metadata,
    database: Option<&'d compdb::Database>,
) -> Class<'d> {
    if metadata.file_type().is_symlink() {
        return Class::Symlink;
    }
    let compiled = match database {
        Some(database) => database
            .units
            .get(source)
            .map(|unit| (unit.language, unit.preprocessed, Some(&unit.compile_flags))),
        None => Language::from_path(relative)
            .map(|l| (l, compdb::preprocessed_by_suffix(relative), None)),
    };
    let suffix = relative.extension().and_then(|e| e.to_str());
    let header = suffix.is_some_and(|s| HEADER_SUFFIXES.contains(&s));
    match compiled {
        Some((language, preprocessed, flags)) if database.is_some() || !header => Class::Source {
            language,
            preprocessed,
            flags,
        },
        _ if header => Class::Header(match suffix {
            Some("fh" | "fi") => Some(Language::FortranFree),
            Some("inc") => None,
            _ => Some(Language::Cpp),
        }),
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

/// Outputs of files the tree no longer has (deleted, now ignored or
/// excluded) are deleted, and directories they leave empty.
fn remove_stale_outputs(previous: &State, jobs: &[Job], out_dir: &Path, idf_dir: &Path) -> usize {
    let current: HashSet<&str> = jobs.iter().map(|j| j.key.as_str()).collect();
    let mut removed = 0;
    for (key, entry) in &previous.entries {
        if current.contains(key.as_str()) {
            continue;
        }
        removed += 1;
        let output = out_dir.join(key);
        if entry.output.is_some() && output.symlink_metadata().is_ok_and(|m| !m.is_dir()) {
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
    removed
}

/// The weak registration of every instrumented unit of the mirror.
fn registration_source(files: &[FileReport]) -> String {
    use pomp2::registration::InitFunction;
    let functions: BTreeMap<&str, InitFunction> = files
        .iter()
        .filter(|f| f.verdict.mirror == Mirror::Instrumented)
        .filter_map(|f| f.verdict.init_function.as_deref())
        .filter_map(|symbol| Some((symbol, InitFunction::from_symbol(symbol)?)))
        .collect();
    let functions: Vec<InitFunction> = functions.into_values().collect();
    crate::wrapper::registration::render_weak_registration(&functions)
}

/// Rewrite the IDF index when what it is made of changed; returns what it
/// was made of. Descriptors no file refers to any more are deleted then.
fn update_index(
    index: &Path,
    root: &Path,
    state: &State,
    previous: &State,
    idf_dir: &Path,
) -> Result<String> {
    let indexed: Vec<(&String, &String, &cache::Entry)> = state
        .entries
        .iter()
        .filter_map(|(key, entry)| Some((key, entry.idf.as_ref()?, entry)))
        .collect();
    let inputs = cache::digest(indexed.iter().flat_map(|(key, idf, entry)| {
        [
            key.as_bytes(),
            idf.as_bytes(),
            entry.setup.as_bytes(),
            entry.content.as_deref().unwrap_or_default().as_bytes(),
        ]
    }));
    if inputs == previous.index_inputs && index.is_file() {
        return Ok(inputs);
    }
    let files: Vec<index::IndexedFile> = indexed
        .iter()
        .map(|(key, idf, _)| index::IndexedFile {
            path: key,
            output: key,
            descriptor: idf_dir.join(idf),
        })
        .collect();
    index::write(index, root, &files)
        .and_then(|()| readable_by_all(index))
        .with_context(|| format!("cannot write {}", index.display()))?;
    let live: HashSet<&str> = indexed.iter().map(|(_, idf, _)| idf.as_str()).collect();
    for entry in std::fs::read_dir(idf_dir)?.flatten() {
        if !live.contains(entry.file_name().to_string_lossy().as_ref()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(inputs)
}

/// Write `bytes` unless the file already holds them, so that builds
/// depending on it are not redone.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<()> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    crate::output::write_atomically(path, bytes)
        .and_then(|()| readable_by_all(path))
        .with_context(|| format!("cannot write {}", path.display()))
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
