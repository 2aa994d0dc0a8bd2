//! `pomp report`: from the runtime's profiles to answers — where the time
//! went, why (overhead classes, load imbalance), what tasks did, how two
//! runs compare — as text, JSON or CSV, and in pictures: flame graphs, a
//! speedscope document and one self-contained HTML page.
//!
//! [`inputs`] resolves what the command line names (an experiment's
//! directory, profiles, traces); [`load`] reads profiles, traces and IDF
//! descriptors through the `pomp2` contract's types, a run's ranks as a
//! stream; [`join`] recognises regions across profiles and builds, and
//! profiles of different runs; `gather` takes each rank's figures in one
//! pass and drops the rank; [`analysis`] computes the figures; [`render`]
//! shows them; [`export`] writes them in the formats of other tools
//! (CUBE4, OTF2, Chrome trace JSON).

pub mod analysis;
pub mod export;
mod gather;
pub mod inputs;
pub mod join;
pub mod load;
pub mod render;
pub mod suggest;
#[cfg(test)]
mod tests;

use analysis::diff::Diff;
use gather::{Gathered, Gathering};
use inputs::Inputs;
use join::{build_difference, build_of, Catalog, Matching};
pub use load::Error;
use load::{Descriptors, Run};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
    Csv,
}

/// What to report on and what to write.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// One run: a profile, an experiment's directory, or the profiles of
    /// its ranks (or traces alone, to be converted).
    pub profiles: Vec<PathBuf>,
    /// Compare these two runs instead.
    pub diff: Option<(PathBuf, PathBuf)>,
    /// A reference run (one thread) to compute speed-up and overheads against.
    pub baseline: Option<PathBuf>,
    /// IDF descriptor files or directories holding them.
    pub idf: Vec<PathBuf>,
    /// Show the call-path tree instead of the flat region table.
    pub tree: bool,
    /// Rows of the region table in text; 0 for all.
    pub top: usize,
    /// The report on `out`: by default text, unless files are written.
    pub format: Option<Format>,
    pub flamegraph: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub speedscope: Option<PathBuf>,
    /// A CUBE4 archive of the profiles.
    pub cube: Option<PathBuf>,
    /// The trace as Chrome trace JSON.
    pub chrome: Option<PathBuf>,
    /// The trace as an OTF2 archive, in this directory.
    pub otf2: Option<PathBuf>,
    /// Write a filter leaving out the regions that cost most to measure
    /// here (`-`: on standard output) instead of the report.
    pub suggest_filter: Option<PathBuf>,
    /// Which regions the filter may propose.
    pub suggest: suggest::Proposed,
}

impl Options {
    /// Whether the trace is to be converted.
    fn converts_trace(&self) -> bool {
        self.chrome.is_some() || self.otf2.is_some()
    }

    /// Whether files are to be written: pictures, pages or exports.
    fn writes_files(&self) -> bool {
        self.flamegraph.is_some()
            || self.html.is_some()
            || self.speedscope.is_some()
            || self.cube.is_some()
            || self.converts_trace()
    }

    /// The format of what goes on `out`, if anything does: a run that
    /// writes files prints only what it wrote, unless a report is asked
    /// for by name.
    fn printed(&self) -> Option<Format> {
        match self.format {
            None if self.writes_files() => None,
            None => Some(Format::Text),
            asked => asked,
        }
    }
}

/// Makes the report `options` ask for: text, JSON or CSV on `out`, the
/// pictures to their files. Returns the files written.
pub fn run(options: &Options, out: &mut dyn Write) -> Result<Vec<PathBuf>, Error> {
    if let Some((a, b)) = &options.diff {
        let descriptors = Descriptors::read(&options.idf)?;
        return run_diff(options, a, b, &descriptors, out);
    }
    let inputs = inputs::resolve(&options.profiles, options.converts_trace())?;
    // Traces named are the ones converted: the profiles named beside them
    // are reported, theirs left alone.
    let mut written = match inputs.traces.as_slice() {
        [] => Vec::new(),
        traces => run_traces(options, traces, &inputs)?,
    };
    if inputs.profiles.is_empty() && !inputs.traces.is_empty() {
        return Ok(written);
    }
    let descriptors = Descriptors::read(&options.idf)?;
    written.extend(run_report(options, &inputs, &descriptors, out)?);
    Ok(written)
}

/// The report on the profiles of `inputs`, whose traces are converted as
/// asked unless traces were named to be.
fn run_report(
    options: &Options,
    inputs: &Inputs,
    descriptors: &Descriptors,
    out: &mut dyn Write,
) -> Result<Vec<PathBuf>, Error> {
    let baseline = options.baseline.as_deref().map(load::run).transpose()?;
    if let Some(path) = &options.suggest_filter {
        return suggest_filter(&inputs.profiles, options.suggest, path, out);
    }
    let mut gathering = Gathering::new(options, inputs, descriptors, baseline.as_ref())?;
    load::stream(&inputs.profiles, |run| gathering.add(run))?;
    let mut gathered = gathering.finish()?;
    // Pictures and exports first: output cut short (`| head`) must not
    // cost them.
    let mut written = report_pictures(options, &mut gathered)?;
    let report = &gathered.report;
    if let (Some(path), Some(cube)) = (&options.cube, &gathered.cube) {
        pomp_files::write_atomically_with(path, |out| cube.write(out))
            .map_err(|e| write_error(path, e))?;
        written.push(path.clone());
    }
    if let Some(archive) = gathered.otf2.take() {
        archive.finish()?;
        written.extend(options.otf2.clone());
    }
    if let (Some(path), Some(trace)) = (&options.chrome, &gathered.only) {
        write_chrome(path, trace)?;
        written.push(path.clone());
    }
    match options.printed() {
        None => {}
        Some(Format::Text) => {
            let layout = render::text::Layout {
                tree: options.tree,
                top: options.top,
            };
            out.write_all(render::text::report(report, layout).as_bytes())
                .map_err(stdout_error)?;
        }
        Some(Format::Json) => json(report, out)?,
        Some(Format::Csv) => render::csv::report(report, options.tree, &mut *out)
            .map_err(|e| stdout_error(e.into()))?,
    }
    Ok(written)
}

/// `--suggest-filter`: the filter of the regions `proposed` admits, on
/// standard output or to `path`.
fn suggest_filter(
    profiles: &[PathBuf],
    proposed: suggest::Proposed,
    path: &Path,
    out: &mut dyn Write,
) -> Result<Vec<PathBuf>, Error> {
    let mut suggesting = suggest::Suggesting::new(proposed);
    load::stream(profiles, |run| {
        suggesting.add(&run);
        Ok(())
    })?;
    let filter = suggesting.filter_file();
    if path.as_os_str() == "-" {
        out.write_all(filter.as_bytes()).map_err(stdout_error)?;
        return Ok(Vec::new());
    }
    write_file(path, filter.as_bytes())?;
    Ok(vec![path.to_path_buf()])
}

fn report_pictures(options: &Options, gathered: &mut Gathered) -> Result<Vec<PathBuf>, Error> {
    let report = &gathered.report;
    let mut written = Vec::new();
    let title = match report.profiles.as_slice() {
        [profile] => format!("pomp: {}", file_name(Path::new(&profile.path))),
        profiles => format!("pomp: {} profiles", profiles.len()),
    };
    let subtitle = format!(
        "time summed over {} by call path; {} wall",
        render::table::threads(report.threads.mean),
        render::table::duration(report.wall_ns.mean)
    );
    let folded = render::flame::folded(&report.tree);
    if let Some(path) = &options.flamegraph {
        let svg =
            render::flame::svg(&folded, &title, &subtitle, true).map_err(Error::FlameGraph)?;
        write_file(path, svg.as_bytes())?;
        written.push(path.clone());
    }
    if let Some(path) = &options.html {
        let svg =
            render::flame::svg(&folded, &title, &subtitle, false).map_err(Error::FlameGraph)?;
        let page = render::html::page(report, &gathered.timelines, &svg);
        write_file(path, page.as_bytes())?;
        written.push(path.clone());
    }
    if let (Some(path), Some(speedscope)) = (&options.speedscope, gathered.speedscope.take()) {
        let document = speedscope.finish(&title);
        let json = serde_json::to_vec(&document).map_err(|e| write_error(path, e.into()))?;
        write_file(path, &json)?;
        written.push(path.clone());
    }
    Ok(written)
}

/// `pomp report TRACE...`: the traces converted as the options ask, the
/// traces of every rank of a run into one OTF2 archive.
fn run_traces(
    options: &Options,
    traces: &[PathBuf],
    inputs: &Inputs,
) -> Result<Vec<PathBuf>, Error> {
    let Some(first) = traces.first() else {
        return Err(Error::NoProfiles);
    };
    if !options.converts_trace() {
        return Err(Error::TraceWithoutConversion {
            trace: first.clone(),
        });
    }
    if options.chrome.is_some() && traces.len() > 1 {
        return Err(Error::OneTrace);
    }
    let mut written = Vec::new();
    if let Some(dir) = &options.otf2 {
        let mut archive =
            export::otf2::Archive::create(dir, inputs.experiment.as_ref(), traces.len())?;
        for path in traces {
            archive.add(&pomp2::trace::read(path)?)?;
        }
        archive.finish()?;
        written.push(dir.clone());
    }
    if let Some(path) = &options.chrome {
        write_chrome(path, &pomp2::trace::read(first)?)?;
        written.push(path.clone());
    }
    Ok(written)
}

fn write_chrome(path: &Path, trace: &pomp2::trace::Trace) -> Result<(), Error> {
    pomp_files::write_atomically_with(path, |out| export::chrome::write(trace, out))
        .map_err(|e| write_error(path, e))
}

fn stdout_error(source: std::io::Error) -> Error {
    Error::Write {
        path: PathBuf::from("standard output"),
        source,
    }
}

fn json(value: &impl serde::Serialize, out: &mut dyn Write) -> Result<(), Error> {
    // A terminal's stream is written line by line, and the report of many
    // ranks has millions of lines: through a buffer, a write per block.
    let mut out = std::io::BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, value).map_err(|e| stdout_error(e.into()))?;
    writeln!(out).map_err(stdout_error)?;
    out.flush().map_err(stdout_error)
}

fn run_diff(
    options: &Options,
    a: &Path,
    b: &Path,
    descriptors: &Descriptors,
    out: &mut dyn Write,
) -> Result<Vec<PathBuf>, Error> {
    let a = load::run(a)?;
    let b = load::run(b)?;
    let builds_differ = build_difference(&build_of(&a), &build_of(&b));
    let matching = if builds_differ.is_some() {
        Matching::BySource
    } else {
        Matching::ById
    };
    // B first: regions are named as in the later run.
    let catalog = Catalog::new(&[&b, &a], matching, descriptors);
    let diff = analysis::diff::diff((&a, 1), (&b, 0), &catalog, builds_differ);

    let mut written = Vec::new();
    if options.flamegraph.is_some() || options.html.is_some() {
        let svg = differential_flame(&diff, &a, &b).map_err(Error::FlameGraph)?;
        if let Some(path) = &options.flamegraph {
            write_file(path, svg.as_bytes())?;
            written.push(path.clone());
        }
        if let Some(path) = &options.html {
            write_file(path, render::html::diff_page(&diff, &svg).as_bytes())?;
            written.push(path.clone());
        }
    }
    match options.printed() {
        None => {}
        Some(Format::Text) => out
            .write_all(render::text::diff(&diff, options.top).as_bytes())
            .map_err(stdout_error)?,
        Some(Format::Json) => json(&diff, out)?,
        Some(Format::Csv) => {
            render::csv::diff(&diff, &mut *out).map_err(|e| stdout_error(e.into()))?
        }
    }
    Ok(written)
}

fn differential_flame(diff: &Diff, a: &Run, b: &Run) -> std::io::Result<String> {
    render::flame::differential(
        &render::flame::folded(&diff.a_tree),
        &render::flame::folded(&diff.b_tree),
        &format!("pomp: {} → {}", file_name(&a.path), file_name(&b.path)),
        "B's call paths: red frames took longer than in A, blue ones less",
    )
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn write_error(path: &Path, source: std::io::Error) -> Error {
    Error::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// Written whole or not at all, so that a reader never sees half a picture.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    pomp_files::write_atomically(path, bytes).map_err(|e| write_error(path, e))
}
