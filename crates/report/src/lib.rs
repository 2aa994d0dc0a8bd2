//! `pomp report`: from the runtime's profiles to answers — where the time
//! went, why (overhead classes, load imbalance), what tasks did, how two
//! runs compare — as text, JSON or CSV, and in pictures: flame graphs, a
//! speedscope document and one self-contained HTML page.
//!
//! [`load`] reads profiles, traces and IDF descriptors through the `pomp2`
//! contract's types; [`join`] recognises regions across profiles and
//! builds; [`analysis`] computes the figures; [`render`] shows them;
//! [`export`] writes them in the formats of other tools (CUBE4, OTF2,
//! Chrome trace JSON).

pub mod analysis;
pub mod export;
pub mod join;
pub mod load;
pub mod render;
pub mod suggest;
#[cfg(test)]
mod tests;

use analysis::diff::Diff;
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
    /// Profiles of one run: one, or one per MPI rank.
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
    // A trace named among the profiles is the one to convert; named
    // without a conversion, it is refused as what it is.
    let (traces, profiles): (Vec<PathBuf>, Vec<PathBuf>) = match options.profiles.as_slice() {
        [only] if pomp2::trace::is_trace_file(only) => (vec![only.clone()], Vec::new()),
        all if options.converts_trace() => {
            (all.iter().cloned()).partition(|path| pomp2::trace::is_trace_file(path))
        }
        all => (Vec::new(), all.to_vec()),
    };
    let mut written = match traces.as_slice() {
        [] => Vec::new(),
        [trace] => run_trace(options, trace)?,
        [..] => return Err(Error::OneTrace),
    };
    if !traces.is_empty() && profiles.is_empty() {
        return Ok(written);
    }
    let options = &Options {
        profiles,
        ..options.clone()
    };
    let descriptors = Descriptors::read(&options.idf)?;
    written.extend(match &options.diff {
        Some((a, b)) => run_diff(options, a, b, &descriptors, out)?,
        None => run_report(options, traces.is_empty(), &descriptors, out)?,
    });
    Ok(written)
}

/// The report on `options.profiles`; `converts_trace`: the trace of the
/// run converted as asked (not when the trace was given itself).
fn run_report(
    options: &Options,
    converts_trace: bool,
    descriptors: &Descriptors,
    out: &mut dyn Write,
) -> Result<Vec<PathBuf>, Error> {
    let runs: Vec<Run> = options
        .profiles
        .iter()
        .map(|path| load::run(path))
        .collect::<Result<_, _>>()?;
    let baseline = options.baseline.as_deref().map(load::run).transpose()?;
    let Some((first, others)) = runs.split_first() else {
        return Err(Error::NoProfiles);
    };
    let build = build_of(first);
    for run in others {
        if let Some(difference) = build_difference(&build, &build_of(run)) {
            return Err(Error::DifferentBuilds {
                first: first.path.display().to_string(),
                other: run.path.display().to_string(),
                difference,
            });
        }
    }
    let matching = match &baseline {
        Some(base) if build_difference(&build, &build_of(base)).is_some() => Matching::BySource,
        _ => Matching::ById,
    };
    if let Some(path) = &options.suggest_filter {
        let suggested = suggest::suggestions(&runs, options.suggest);
        let filter = suggest::filter_file(&runs, &suggested, options.suggest);
        if path.as_os_str() == "-" {
            out.write_all(filter.as_bytes()).map_err(stdout_error)?;
            return Ok(Vec::new());
        }
        write_file(path, filter.as_bytes())?;
        return Ok(vec![path.clone()]);
    }
    let mut all: Vec<&Run> = runs.iter().collect();
    all.extend(&baseline);
    let catalog = Catalog::new(&all, matching, descriptors);
    let report = analysis::report(&runs, baseline.as_ref(), &catalog);
    // Pictures and exports first: output cut short (`| head`) must not
    // cost them.
    let mut written = report_pictures(options, &report, &runs, &catalog)?;
    if let Some(path) = &options.cube {
        let archive = export::cube::archive(&runs, &catalog).map_err(|e| write_error(path, e))?;
        write_file(path, &archive)?;
        written.push(path.clone());
    }
    if converts_trace && options.converts_trace() {
        let [run] = runs.as_slice() else {
            return Err(Error::OneTrace);
        };
        let Some(trace) = &run.trace else {
            return Err(Error::NoTrace {
                profile: run.path.clone(),
                why: run.trace_problem.clone().unwrap_or_else(|| {
                    "the run wrote none: run the program with POMP_TRACE=1".to_string()
                }),
            });
        };
        written.extend(convert_trace(options, trace)?);
    }
    match options.printed() {
        None => {}
        Some(Format::Text) => {
            let layout = render::text::Layout {
                tree: options.tree,
                top: options.top,
            };
            out.write_all(render::text::report(&report, layout).as_bytes())
                .map_err(stdout_error)?;
        }
        Some(Format::Json) => json(&report, out)?,
        Some(Format::Csv) => render::csv::report(&report, options.tree, &mut *out)
            .map_err(|e| stdout_error(e.into()))?,
    }
    Ok(written)
}

fn report_pictures(
    options: &Options,
    report: &analysis::Report,
    runs: &[Run],
    catalog: &Catalog,
) -> Result<Vec<PathBuf>, Error> {
    let mut written = Vec::new();
    let title = match runs {
        [run] => format!("pomp: {}", file_name(&run.path)),
        runs => format!("pomp: {} profiles", runs.len()),
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
        let page = render::html::page(report, runs, catalog, &svg);
        write_file(path, page.as_bytes())?;
        written.push(path.clone());
    }
    if let Some(path) = &options.speedscope {
        let document = render::speedscope::document(runs, catalog, &title);
        let json = serde_json::to_vec(&document).map_err(|e| write_error(path, e.into()))?;
        write_file(path, &json)?;
        written.push(path.clone());
    }
    Ok(written)
}

/// `pomp report TRACE`: the trace converted as the options ask.
fn run_trace(options: &Options, path: &Path) -> Result<Vec<PathBuf>, Error> {
    if !options.converts_trace() {
        return Err(Error::TraceWithoutConversion {
            trace: path.to_path_buf(),
        });
    }
    let trace = pomp2::trace::read(path)?;
    convert_trace(options, &trace)
}

fn convert_trace(options: &Options, trace: &pomp2::trace::Trace) -> Result<Vec<PathBuf>, Error> {
    let mut written = Vec::new();
    if let Some(path) = &options.chrome {
        pomp_files::write_atomically_with(path, |out| export::chrome::write(trace, out))
            .map_err(|e| write_error(path, e))?;
        written.push(path.clone());
    }
    if let Some(dir) = &options.otf2 {
        export::otf2::write(trace, dir)?;
        written.push(dir.clone());
    }
    Ok(written)
}

fn stdout_error(source: std::io::Error) -> Error {
    Error::Write {
        path: PathBuf::from("standard output"),
        source,
    }
}

fn json(value: &impl serde::Serialize, out: &mut dyn Write) -> Result<(), Error> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(|e| stdout_error(e.into()))?;
    writeln!(out).map_err(stdout_error)
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
