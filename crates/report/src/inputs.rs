//! What the command line names: an experiment's directory (every rank of
//! one run), profiles, or traces; resolved into the files to read, in
//! rank order, and the run's manifest where the files are an experiment's.

use crate::load::Error;
use pomp2::experiment::{Experiment, ProcessFile};
use pomp2::trace;
use std::path::{Path, PathBuf};

/// What a report is made from: the profiles of one run, one per rank, in
/// the order of their ranks, and traces named to be converted, in the
/// same order.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    pub profiles: Vec<PathBuf>,
    pub traces: Vec<PathBuf>,
    /// The experiment the files are of, when they are all in one.
    pub experiment: Option<Experiment>,
    /// Of an experiment: the ranks its manifest counts that left no file
    /// to read, and the processes ranks forked, which are runs of their
    /// own and left out.
    pub missing_ranks: Vec<u32>,
    pub forked: Vec<PathBuf>,
}

/// What `paths` name: experiment directories stand for their processes'
/// profiles (or, where they hold none, their traces); files are profiles
/// or traces as their first bytes say. Traces are named beside profiles
/// only to be converted (`converting`).
pub fn resolve(paths: &[PathBuf], converting: bool) -> Result<Inputs, Error> {
    let mut profiles = Vec::new();
    let mut traces = Vec::new();
    let mut experiments = Vec::new();
    let mut missing_ranks = Vec::new();
    let mut forked = Vec::new();
    for path in paths {
        if path.is_dir() {
            let experiment = Experiment::open(path)?;
            let processes = experiment.processes()?;
            let (own, children): (Vec<_>, Vec<_>) =
                processes.into_iter().partition(|p| p.forked_pid.is_none());
            forked.extend(children.into_iter().filter_map(|p| p.profile.or(p.trace)));
            let has_profiles = own.iter().any(|p| p.profile.is_some());
            let mut found = Vec::new();
            for process in own {
                let file = if has_profiles {
                    process.profile
                } else {
                    process.trace
                };
                if let Some(file) = file {
                    found.push(process.rank);
                    if has_profiles {
                        profiles.push(file);
                    } else {
                        traces.push(file);
                    }
                }
            }
            missing_ranks
                .extend((0..experiment.manifest.ranks).filter(|r| found.binary_search(r).is_err()));
            experiments.push(experiment);
        } else if trace::is_trace_file(path) {
            traces.push(path.clone());
        } else {
            profiles.push(path.clone());
        }
    }
    if let (Some(trace), Some(profile), false) = (traces.first(), profiles.first(), converting) {
        return Err(Error::ProfilesAndTraces {
            profile: profile.clone(),
            trace: trace.clone(),
        });
    }
    let (profiles, traces) = (in_rank_order(&profiles), in_rank_order(&traces));
    let experiment = match experiments.as_slice() {
        [] => experiment_of(profiles.iter().chain(&traces)),
        [only] if paths.len() == 1 => Some(only.clone()),
        _ => None,
    };
    Ok(Inputs {
        profiles,
        traces,
        experiment,
        missing_ranks,
        forked,
    })
}

/// The experiment whose directory holds every one of `files`, if any.
fn experiment_of<'a>(mut files: impl Iterator<Item = &'a PathBuf> + Clone) -> Option<Experiment> {
    let directory = files.clone().next()?.parent()?;
    let all_there = files.all(|path| path.parent() == Some(directory));
    (all_there && pomp2::experiment::is_experiment(directory))
        .then(|| Experiment::open(directory).ok())
        .flatten()
}

/// The files named, in the order of their ranks where their names carry
/// them (an experiment's `profile.<rank>.json`, or the runtime's
/// `pomp-profile.rank<N>.<pid>.json` outside one): a shell lists rank 10
/// before rank 2.
fn in_rank_order(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut ranked: Vec<(Option<u32>, &PathBuf)> = paths
        .iter()
        .map(|path| (rank_in_name(path), path))
        .collect();
    if ranked.iter().all(|(rank, _)| rank.is_some()) {
        ranked.sort_by_key(|(rank, _)| *rank);
    }
    ranked.into_iter().map(|(_, path)| path.clone()).collect()
}

/// The rank a file's name gives.
fn rank_in_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    if let Some(file) = ProcessFile::parse(name) {
        return Some(file.rank);
    }
    name.split('.')
        .find_map(|part| part.strip_prefix("rank")?.parse().ok())
}
