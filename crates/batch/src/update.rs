//! The mirror brought up to date with the tree, a chunk of files at a
//! time: each file checked against what the last run left, those that
//! changed redone in parallel, the results recorded in the walk's order,
//! and the outputs of files the tree no longer has removed.

use crate::cache::{self, Cache};
use crate::directories::Directories;
use crate::jobs::Jobs;
use crate::mirror::{self, Job};
use crate::report::{FileReport, Mirror, Tally};
use crate::{OnError, Progress};
use anyhow::{Context as _, Result};
use rayon::prelude::*;
use std::cell::OnceCell;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// How many files are mirrored together: enough to keep every core busy,
/// few enough that what is held for them stays small.
const CHUNK: usize = 512;

/// What bringing the mirror up to date leaves for the rest of the run.
pub struct Updated {
    pub tally: Tally,
    /// The registration functions of the instrumented units.
    pub init_functions: BTreeSet<String>,
    /// A digest of what the IDF index is made of.
    pub index_inputs: String,
    /// About the run rather than one file: what the walk could not read,
    /// files left out, files gone before they were mirrored.
    pub warnings: Vec<String>,
    /// The compiled files mirrored, relative to the root.
    pub mirrored_units: HashSet<PathBuf>,
}

/// Mirror the files of `jobs` with `threads` threads, recording each in
/// `cache`; each file's report goes to `progress` when done and to
/// `reports` in path order.
pub fn mirror_tree(
    jobs: Jobs,
    cache: &mut Cache,
    directories: &Directories,
    on_error: OnError,
    threads: usize,
    progress: &dyn Progress,
    reports: &mut dyn FnMut(&FileReport),
) -> Result<Updated> {
    let mut update = Update {
        directories,
        cx: mirror::Context {
            out_dir: &directories.out,
            idf_dir: &directories.idf,
            on_error,
            previous_start_ns: cache.previous.started_ns(),
        },
        pool: Pool::new(threads),
        tally: Tally::default(),
        init_functions: BTreeSet::new(),
        index_inputs: cache::Digest::default(),
        vanished: Vec::new(),
    };
    let expected = cache.previous.len() as usize;
    progress.start((expected > 0).then_some(expected));
    let jobs = in_chunks(jobs, |chunk| update.chunk(chunk, cache, progress, reports))?;
    while let Some((key, entry)) = cache
        .stale(None)
        .with_context(|| directories.cannot_write_cache())?
    {
        update.remove_stale(&key, &entry);
    }
    progress.finish();
    let Jobs {
        mut warnings,
        mirrored_units,
        ..
    } = jobs;
    warnings.extend(update.vanished);
    Ok(Updated {
        tally: update.tally,
        init_functions: update.init_functions,
        index_inputs: update.index_inputs.finish(),
        warnings,
        mirrored_units,
    })
}

/// Hand `jobs` to `mirror` a chunk at a time, in order, while the walk
/// that finds them goes on in a thread of its own; the jobs back once
/// walked.
fn in_chunks<'a>(
    jobs: Jobs<'a>,
    mut mirror: impl FnMut(Vec<Job>) -> Result<()>,
) -> Result<Jobs<'a>> {
    std::thread::scope(|scope| {
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
        for chunk in chunks {
            mirror(chunk)?;
        }
        Ok(walker.join().expect("the walk does not panic"))
    })
}

/// The run's work on the mirror so far.
struct Update<'a> {
    directories: &'a Directories,
    cx: mirror::Context<'a>,
    pool: Pool,
    tally: Tally,
    init_functions: BTreeSet<String>,
    index_inputs: cache::Digest,
    /// Files gone since the walk found them.
    vanished: Vec<String>,
}

impl Update<'_> {
    /// Bring one chunk's files up to date, in order.
    fn chunk(
        &mut self,
        mut chunk: Vec<Job>,
        cache: &mut Cache,
        progress: &dyn Progress,
        reports: &mut dyn FnMut(&FileReport),
    ) -> Result<()> {
        let mut befores = Vec::with_capacity(chunk.len());
        for job in &chunk {
            while let Some((key, entry)) = cache
                .stale(Some(&job.key))
                .with_context(|| self.directories.cannot_write_cache())?
            {
                self.remove_stale(&key, &entry);
            }
            befores.push(cache.before(&job.key));
        }
        let root = &self.directories.root;
        let done = bring_up_to_date(&mut chunk, &befores, root, &self.cx, progress, &self.pool)?;
        for ((job, done), before) in chunk.iter().zip(done).zip(&befores) {
            match done {
                Ok(done) => self.record(job, done, before, cache, reports)?,
                Err(error) => self.vanish(job, error, before, cache)?,
            }
        }
        Ok(())
    }

    /// A file mirrored: into the state, the index's inputs, the
    /// registration and the tally.
    fn record(
        &mut self,
        job: &Job,
        done: mirror::Done,
        before: &cache::Before,
        cache: &mut Cache,
        reports: &mut dyn FnMut(&FileReport),
    ) -> Result<()> {
        let entry = &done.entry;
        if let Some(old) = before.entry().and_then(|e| e.idf.as_ref()) {
            if entry.idf.as_ref() != Some(old) {
                let _ = std::fs::remove_file(self.directories.idf.join(old));
            }
        }
        cache
            .record(&job.key, entry, before)
            .with_context(|| self.directories.cannot_write_cache())?;
        if let Some(idf) = &entry.idf {
            for part in [
                job.key.as_bytes(),
                idf.as_bytes(),
                entry.setup.as_bytes(),
                entry.content.as_deref().unwrap_or_default().as_bytes(),
            ] {
                self.index_inputs.add(part);
            }
        }
        let report = done.report;
        if report.verdict.mirror == Mirror::Instrumented {
            self.init_functions
                .extend(report.verdict.init_function.clone());
        }
        self.tally.add(report, reports);
        Ok(())
    }

    /// A file gone since the walk found it: as if never found.
    fn vanish(
        &mut self,
        job: &Job,
        error: std::io::Error,
        before: &cache::Before,
        cache: &mut Cache,
    ) -> Result<()> {
        self.vanished
            .push(format!("{}: {error}", job.source.display()));
        cache
            .skip()
            .with_context(|| self.directories.cannot_write_cache())?;
        if let Some(entry) = before.entry() {
            self.remove_stale(&job.key, entry);
        }
        Ok(())
    }

    /// The output of a file the tree no longer has (deleted, now ignored
    /// or excluded) is deleted, with its descriptor and the directories it
    /// leaves empty.
    fn remove_stale(&mut self, key: &str, entry: &cache::Entry) {
        let (out_dir, idf_dir) = (&self.directories.out, &self.directories.idf);
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
        while let Some(d) = directory.filter(|d| d != out_dir && d.starts_with(out_dir)) {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            directory = d.parent();
        }
        self.tally.summary.removed += 1;
    }
}

/// The threads files are redone on, started when the first file is to be
/// redone: an unchanged tree needs none.
struct Pool {
    threads: usize,
    pool: OnceCell<rayon::ThreadPool>,
}

impl Pool {
    fn new(threads: usize) -> Pool {
        Pool {
            threads,
            pool: OnceCell::new(),
        }
    }

    fn get(&self) -> Result<&rayon::ThreadPool> {
        if let Some(pool) = self.pool.get() {
            return Ok(pool);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .build()?;
        Ok(self.pool.get_or_init(|| pool))
    }
}

/// Each file of `chunk` checked against what the last run left, and those
/// that changed redone, in the order of `chunk`. Statuses are checked on
/// this thread, which for an unchanged file is all there is to do: handing
/// such light work to other threads costs more than it saves. The files to
/// redo go to the pool.
fn bring_up_to_date(
    chunk: &mut [Job],
    befores: &[cache::Before],
    root: &Path,
    cx: &mirror::Context,
    progress: &dyn Progress,
    pool: &Pool,
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
        let redone: Vec<(usize, mirror::Done)> = pool.get()?.install(|| {
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
