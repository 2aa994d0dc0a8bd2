//! `pomp preview`: what instrumentation does to a file, before anything is
//! built. The original against the instrumented text as a diff ([`diff`]),
//! or the regions with their edits as data for editors ([`regions`]). A
//! file whose directives partly fail still previews the rest: the library
//! leaves failed directives out of the plan.

pub mod diff;
pub mod position;
pub mod regions;

use pomp_core::edits::Edit;
use pomp_core::instrument::{self, InputError, Instrumentation};
use pomp_core::source::SourceFile;
use std::io::Write;
use std::path::Path;

pub use diff::Layout;
pub use position::{Encoding, LineIndex};
pub use regions::Document;

/// Which part of the file to show.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    #[default]
    All,
    /// The region numbered so (from 1, as in the IDF).
    Region(usize),
    /// The innermost region whose code holds this 1-based line.
    Line(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Diff(Layout),
    Json,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub instrument: instrument::Options,
    /// Show the `#line` markers instrumented code carries.
    pub line_markers: bool,
    pub selection: Selection,
    pub format: Format,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{file} has no region {index} (it has {count})")]
    NoRegion {
        file: String,
        index: usize,
        count: usize,
    },
    #[error("no instrumented construct holds line {line} of {file}")]
    NothingAtLine { file: String, line: usize },
    #[error("cannot write the preview: {0}")]
    Write(#[from] std::io::Error),
}

/// The file instrumented as `options` say, with its diagnostics.
pub struct Previewed {
    pub file: SourceFile,
    pub instrumentation: Instrumentation,
}

/// Read and instrument `path`; print nothing.
pub fn instrument(path: &Path, options: &instrument::Options) -> Result<Previewed, InputError> {
    let (file, instrumentation) = instrument::instrument_source(path, options.language, options)?;
    Ok(Previewed {
        file,
        instrumentation,
    })
}

/// The region `selection` names, by its number; `None` for the whole file.
pub fn select(document: &Document, selection: Selection) -> Result<Option<usize>, Error> {
    match selection {
        Selection::All => Ok(None),
        Selection::Region(index) => match document.region(index) {
            Some(region) => Ok(Some(region.index)),
            None => Err(Error::NoRegion {
                file: document.file.clone(),
                index,
                count: document.regions.len(),
            }),
        },
        Selection::Line(line) => match document.region_at_line(line) {
            Some(region) => Ok(Some(region.index)),
            None => Err(Error::NothingAtLine {
                file: document.file.clone(),
                line,
            }),
        },
    }
}

/// The instrumented text to compare the original with: the whole output,
/// or only what region `region` (numbered from 1) inserts.
pub fn instrumented_text(
    file: &SourceFile,
    done: &Instrumentation,
    region: Option<usize>,
) -> Vec<u8> {
    match region {
        None => done.output(file),
        Some(index) => apply(
            &file.bytes,
            done.edits
                .iter()
                .filter(|e| e.origin.region() == Some(index - 1)),
        ),
    }
}

/// `original` with `edits` (in the order they apply, not overlapping)
/// applied.
fn apply<'e>(original: &[u8], edits: impl Iterator<Item = &'e Edit>) -> Vec<u8> {
    let mut out = Vec::with_capacity(original.len());
    let mut copied = 0;
    for edit in edits {
        out.extend_from_slice(&original[copied..edit.range.start]);
        out.extend_from_slice(edit.text().as_bytes());
        copied = edit.range.end;
    }
    out.extend_from_slice(&original[copied..]);
    out
}

/// Write the preview of `path` to `out`; diagnostics are the caller's to
/// print, from what this returns.
pub fn run(path: &Path, options: &Options, out: &mut dyn Write) -> Result<Previewed, Error> {
    let shown = instrument(path, &options.instrument)?;
    let index = LineIndex::new(&shown.file.bytes);
    let document = Document::new(&shown.file, &shown.instrumentation, &index, Encoding::Utf16);
    let region = select(&document, options.selection)?;
    match options.format {
        Format::Json => {
            let document = match region {
                Some(index) => document.only_region(index),
                None => document,
            };
            serde_json::to_writer_pretty(&mut *out, &document).map_err(std::io::Error::from)?;
            writeln!(out)?;
        }
        Format::Diff(layout) => {
            let markers = options.line_markers && options.instrument.output.line_markers;
            // Without markers the text is instrumented again with none: the
            // same code, exactly as `--nosrc` writes it.
            let unmarked;
            let done = if markers || !options.instrument.output.line_markers {
                &shown.instrumentation
            } else {
                let mut without = options.instrument.clone();
                without.output.line_markers = false;
                unmarked = instrument::instrument_guarded(&shown.file, &without)?;
                &unmarked
            };
            let instrumented = instrumented_text(&shown.file, done, region);
            diff::write(
                out,
                &shown.file.path.to_string_lossy(),
                &String::from_utf8_lossy(&shown.file.bytes),
                &String::from_utf8_lossy(&instrumented),
                layout,
            )?;
        }
    }
    Ok(shown)
}
