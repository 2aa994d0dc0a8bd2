//! Reading what a report starts from: the runtime's profiles, the traces
//! they name, and the instrumenter's IDF descriptors. Every document is read
//! through the `pomp2` contract's types and readers.

use pomp2::idf;
use pomp2::profile::{self, Profile};
use pomp2::trace::{self, Trace};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no profile to report on: name the experiment directory a run wrote (pomp-<date>_<time>_<job>), or its profiles")]
    NoProfiles,
    /// A directory that is not an experiment, or whose manifest cannot
    /// be read.
    #[error(transparent)]
    Experiment(#[from] pomp2::experiment::Error),
    /// A profile or IDF descriptor that cannot be read.
    #[error(transparent)]
    Document(#[from] pomp2::document::Error),
    #[error("cannot read IDF descriptors from {}: {source}", path.display())]
    IdfDirectory {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} holds no IDF descriptor (pomp instrument --idf, or the wrappers' --pomp-keep, write them)", path.display())]
    NoDescriptors { path: PathBuf },
    #[error("{first} and {other} come from different builds ({difference}); ranks of one run share a build: compare different builds with --diff")]
    DifferentBuilds {
        first: String,
        other: String,
        difference: String,
    },
    #[error("{} and {} come from different runs ({why}): report on one run at a time, or compare two with --diff", first.display(), other.display())]
    DifferentRuns {
        first: PathBuf,
        other: PathBuf,
        why: String,
    },
    /// A trace that cannot be read.
    #[error(transparent)]
    Trace(#[from] pomp2::trace::Error),
    #[error("{} is a trace: name what to make of it (--otf2 DIR, --chrome OUT.json), or report on the profile beside it", trace.display())]
    TraceWithoutConversion { trace: PathBuf },
    #[error("--chrome converts one trace: name one profile, or its trace (--otf2 joins the traces of every rank)")]
    OneTrace,
    #[error("{} is a trace and {} a profile: name the profiles (the traces beside them are read with them), or the traces alone", trace.display(), profile.display())]
    ProfilesAndTraces { profile: PathBuf, trace: PathBuf },
    #[error("{} has no trace to convert: {why}", profile.display())]
    NoTrace { profile: PathBuf, why: String },
    #[error(transparent)]
    Otf2(#[from] super::export::otf2::Error),
    #[error("cannot draw the flame graph: {0}")]
    FlameGraph(std::io::Error),
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One profile, with the trace the runtime wrote beside it when there is
/// one that can be read.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: PathBuf,
    pub profile: Profile,
    pub trace: Option<Trace>,
    /// Why a trace the profile names is missing or left out.
    pub trace_problem: Option<String>,
}

impl Run {
    /// The MPI rank the profile is of, when it has one.
    pub fn rank(&self) -> Option<u32> {
        self.profile.rank.as_deref()?.parse().ok()
    }

    /// How the report names this profile: its rank when it has one, else
    /// its file.
    pub fn name(&self) -> String {
        match &self.profile.rank {
            Some(rank) => format!("rank {rank} ({})", self.path.display()),
            None => self.path.display().to_string(),
        }
    }
}

/// How many profiles are read at a time, in parallel, ahead of the one
/// being taken: enough to keep every core reading, few enough that memory
/// holds a handful of profiles whatever the run's ranks.
fn batch() -> usize {
    2 * rayon::current_num_threads().max(1)
}

/// Reads the profiles at `paths`, in order, and hands each to `take` as
/// soon as it and those before it are read: the next few are read in
/// parallel meanwhile, and none is kept once taken, so that a run of
/// tens of thousands of ranks is read in the memory of a few. Stops at the
/// first error, of reading or of `take`.
pub fn stream(
    paths: &[PathBuf],
    mut take: impl FnMut(Run) -> Result<(), Error>,
) -> Result<(), Error> {
    use rayon::prelude::*;
    let batch = batch();
    std::thread::scope(|scope| {
        let (sender, received) = std::sync::mpsc::sync_channel(batch);
        scope.spawn(move || {
            for chunk in paths.chunks(batch) {
                let runs: Vec<Result<Run, Error>> = chunk.par_iter().map(|p| run(p)).collect();
                for run in runs {
                    // Taking stopped: so does reading.
                    if sender.send(run).is_err() {
                        return;
                    }
                }
            }
        });
        for run in received {
            take(run?)?;
        }
        Ok(())
    })
}

/// Reads a profile and, when it names one, its trace. A trace that cannot
/// be read does not stop the report: the parts that need it are left out
/// and the report says why.
pub fn run(path: &Path) -> Result<Run, Error> {
    let profile = profile::read(path)?;
    let (trace, trace_problem) = match trace_path(path, &profile) {
        None => (None, None),
        Some(Err(named)) => (
            None,
            Some(format!(
                "the trace {named} named by {} was not found",
                path.display()
            )),
        ),
        Some(Ok(trace_path)) => match trace::read(&trace_path) {
            Ok(trace) => (Some(trace), None),
            Err(error) => (None, Some(format!("{error}; it is left out"))),
        },
    };
    Ok(Run {
        path: path.to_path_buf(),
        profile,
        trace,
        trace_problem,
    })
}

/// Where the trace a profile names is: the runtime writes it beside the
/// profile and records the path as the program saw it, which may be
/// relative to a directory the report does not run in.
fn trace_path(profile_path: &Path, profile: &Profile) -> Option<Result<PathBuf, String>> {
    let summary = profile.trace.as_ref().filter(|t| t.written)?;
    let named = Path::new(&summary.path);
    let beside_profile = named
        .file_name()
        .map(|name| profile_path.parent().unwrap_or(Path::new("")).join(name));
    let found = [Some(named.to_path_buf()), beside_profile]
        .into_iter()
        .flatten()
        .find(|candidate| candidate.is_file());
    Some(found.ok_or_else(|| summary.path.clone()))
}

/// The instrumenter's descriptors of every region, by IDF region id.
#[derive(Debug, Default, Clone)]
pub struct Descriptors {
    pub regions: BTreeMap<String, idf::Region>,
    pub files: usize,
}

impl Descriptors {
    pub fn get(&self, id: &str) -> Option<&idf::Region> {
        self.regions.get(id)
    }

    /// Reads descriptor files, and every descriptor below directories (where
    /// JSON files that are not descriptors, such as profiles kept beside
    /// them, are passed over).
    pub fn read(paths: &[PathBuf]) -> Result<Descriptors, Error> {
        let mut descriptors = Descriptors::default();
        for path in paths {
            if path.is_dir() {
                let before = descriptors.files;
                descriptors.read_directory(path)?;
                if descriptors.files == before {
                    return Err(Error::NoDescriptors { path: path.clone() });
                }
            } else {
                for document in read_descriptors(path)? {
                    descriptors.add(document);
                }
            }
        }
        Ok(descriptors)
    }

    fn read_directory(&mut self, directory: &Path) -> Result<(), Error> {
        let unreadable = |source| Error::IdfDirectory {
            path: directory.to_path_buf(),
            source,
        };
        let mut entries: Vec<PathBuf> = std::fs::read_dir(directory)
            .map_err(unreadable)?
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(unreadable)?;
        entries.sort();
        for path in entries {
            if path.is_dir() {
                self.read_directory(&path)?;
            } else if path.extension().is_some_and(|e| e == "json") {
                match read_descriptors(&path) {
                    Ok(documents) => documents.into_iter().for_each(|d| self.add(d)),
                    Err(idf::Error::Foreign { .. } | idf::Error::NotJson { .. }) => {}
                    Err(error) => return Err(error.into()),
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, document: idf::Document) {
        self.files += 1;
        for region in document.regions {
            self.regions.insert(region.id.to_string(), region);
        }
    }
}

/// The descriptors in `path`: one descriptor, or every file's of the index
/// of a tree that `pomp batch` writes (`pomp-idf.json`).
fn read_descriptors(path: &Path) -> Result<Vec<idf::Document>, idf::Error> {
    match idf::read(path) {
        Ok(document) => Ok(vec![document]),
        Err(idf::Error::Foreign {
            found: Some(found), ..
        }) if found == <idf::Index as pomp2::document::Document>::NAME => {
            Ok(idf::read_index(path)?
                .files
                .into_iter()
                .map(|file| file.document)
                .collect())
        }
        Err(error) => Err(error),
    }
}
