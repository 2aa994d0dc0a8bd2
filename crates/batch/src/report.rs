//! What a batch run reports: per file, what the mirror holds and why, and
//! for the run, the counts, the regions and the speed.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// What the mirror holds at a file's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mirror {
    /// The instrumented source.
    Instrumented,
    /// A hard link to the original.
    Linked,
    /// A copy of the original (another file system, or links refused).
    Copied,
    /// A symbolic link with the original's target.
    Symlink,
    /// Nothing: the file failed under `--on-error=fail`.
    Nothing,
}

/// What kind of file the tree holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A C, C++ or Fortran file compiled on its own.
    Source,
    /// A file included by sources: mirrored as written.
    Header,
    /// Anything else: mirrored as written.
    Other,
    Symlink,
}

/// A diagnostic about one file; a file-wide one (unreadable, a defect of
/// pomp) has no line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiagnostic {
    /// `note`, `warning` or `error`.
    pub severity: String,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl FileDiagnostic {
    pub fn file_error(message: impl Into<String>) -> FileDiagnostic {
        FileDiagnostic {
            severity: "error".into(),
            message: message.into(),
            line: None,
            column: None,
            notes: vec![],
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

impl From<&pomp2::idf::Diagnostic> for FileDiagnostic {
    fn from(d: &pomp2::idf::Diagnostic) -> FileDiagnostic {
        FileDiagnostic {
            severity: d.severity.clone(),
            message: d.message.clone(),
            line: Some(d.line),
            column: Some(d.column),
            notes: d.notes.clone(),
        }
    }
}

/// What became of a file: kept by the cache, so that a later run that
/// finds the file unchanged reports the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub kind: Kind,
    /// The language it was read in, for sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<pomp_core::language::Language>,
    pub mirror: Mirror,
    /// It could not be instrumented (its diagnostics say why).
    pub failed: bool,
    /// Instrumented regions by type (`parallel`, `for`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub regions: BTreeMap<String, usize>,
    /// `POMP2_Init_reg_...`, which the tree's registration file calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_function: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<FileDiagnostic>,
}

impl Verdict {
    pub fn new(kind: Kind, mirror: Mirror) -> Verdict {
        Verdict {
            kind,
            language: None,
            mirror,
            failed: false,
            regions: BTreeMap::new(),
            init_function: None,
            diagnostics: vec![],
        }
    }
}

/// One file of the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// Relative to the source root.
    pub path: PathBuf,
    pub size: u64,
    /// Up to date from an earlier run: nothing was done.
    pub cached: bool,
    #[serde(flatten)]
    pub verdict: Verdict,
}

impl FileReport {
    /// Whether the outcome keeps it: it failed or has diagnostics.
    pub fn notable(&self) -> bool {
        self.verdict.failed || !self.verdict.diagnostics.is_empty()
    }
}

/// The run in numbers. Each file seen counts as exactly one of
/// instrumented, linked, copied, unchanged and failed: what this run did
/// with it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub files: usize,
    pub instrumented: usize,
    /// Hard links and symbolic links.
    pub linked: usize,
    pub copied: usize,
    /// Up to date from an earlier run.
    pub unchanged: usize,
    pub failed: usize,
    /// Outputs deleted because their source is gone.
    pub removed: usize,
    /// Headers whose directives stay as written.
    pub headers_with_directives: usize,
    /// Regions of the whole mirror by type, unchanged files included.
    pub regions: BTreeMap<String, usize>,
    /// Bytes of the files seen.
    pub bytes: u64,
    pub seconds: f64,
    pub jobs: usize,
}

impl Summary {
    /// Count one more file.
    pub fn add(&mut self, file: &FileReport) {
        let verdict = &file.verdict;
        self.files += 1;
        self.bytes += file.size;
        for (region_type, count) in &verdict.regions {
            *self.regions.entry(region_type.clone()).or_default() += count;
        }
        if verdict.kind == Kind::Header && !verdict.diagnostics.is_empty() {
            self.headers_with_directives += 1;
        }
        let count = if verdict.failed {
            &mut self.failed
        } else if file.cached {
            &mut self.unchanged
        } else {
            match verdict.mirror {
                Mirror::Instrumented => &mut self.instrumented,
                Mirror::Linked | Mirror::Symlink => &mut self.linked,
                Mirror::Copied => &mut self.copied,
                Mirror::Nothing => &mut self.failed,
            }
        };
        *count += 1;
    }

    /// The tree's size over the run's wall time.
    pub fn megabytes_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.seconds.max(1e-9)
    }

    pub fn region_count(&self) -> usize {
        self.regions.values().sum()
    }
}

/// The reports of a run's files: each counted in the summary, handed to
/// the caller, and kept when it is worth printing.
#[derive(Default)]
pub(crate) struct Tally {
    pub summary: Summary,
    /// The files that failed or have diagnostics, in path order.
    pub notable: Vec<FileReport>,
}

impl Tally {
    pub fn add(&mut self, report: FileReport, reports: &mut dyn FnMut(&FileReport)) {
        self.summary.add(&report);
        reports(&report);
        if report.notable() {
            self.notable.push(report);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(mirror: Mirror, cached: bool, failed: bool) -> FileReport {
        let mut verdict = Verdict::new(Kind::Source, mirror);
        verdict.failed = failed;
        if mirror == Mirror::Instrumented {
            verdict.regions.insert("parallel".into(), 2);
        }
        FileReport {
            path: "f.c".into(),
            size: 10,
            cached,
            verdict,
        }
    }

    #[test]
    fn every_file_counts_once_and_regions_include_unchanged_files() {
        let files = [
            file(Mirror::Instrumented, false, false),
            file(Mirror::Instrumented, true, false),
            file(Mirror::Linked, false, false),
            file(Mirror::Copied, false, false),
            file(Mirror::Linked, true, true),
            file(Mirror::Nothing, false, true),
        ];
        let mut summary = Summary {
            seconds: 2.0,
            ..Summary::default()
        };
        files.iter().for_each(|f| summary.add(f));
        assert_eq!(
            (
                summary.instrumented,
                summary.linked,
                summary.copied,
                summary.unchanged,
                summary.failed
            ),
            (1, 1, 1, 1, 2)
        );
        assert_eq!(summary.regions["parallel"], 4);
        assert_eq!(summary.bytes, 60);
        assert_eq!(summary.megabytes_per_second(), 60.0 / 1e6 / 2.0);
    }
}
