//! The regions of an instrumented file with the edits each one makes, as
//! data for editors: `pomp preview --format json` prints it and the
//! language server answers `pomp/regions` with it. Every place is given as
//! bytes, as 1-based line and byte column (the way the IDF counts), and as
//! a range the way an editor counts (0-based lines, columns in the agreed
//! encoding).

use super::position::{Encoding, LineIndex};
use pomp_core::diagnostics::{Advice, Diagnostic, Severity};
use pomp_core::edits::{Edit, Origin};
use pomp_core::instrument::Instrumentation;
use pomp_core::source::{SourceFile, Span};
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct Document {
    pub file: String,
    pub language: &'static str,
    /// How the columns of every `range` are counted.
    pub position_encoding: &'static str,
    pub diagnostics: Vec<DiagnosticEntry>,
    pub regions: Vec<RegionEntry>,
    /// Edits that belong to no region: the file's declarations and
    /// registration, handles declared in a program unit, renamed lock
    /// calls, directives rewritten without being measured.
    pub other_edits: Vec<OtherEdit>,
}

/// A place in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// `[start, end)` in bytes.
    pub bytes: [usize; 2],
    pub start: LineColumn,
    pub end: LineColumn,
    /// The same place as an editor counts it.
    pub range: lsp_types::Range,
}

/// 1-based line and 1-based column in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LineColumn {
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct RegionEntry {
    /// The region's number in the file, from 1 (`--region N`).
    pub index: usize,
    pub id: String,
    #[serde(rename = "type")]
    pub region_type: String,
    /// The measurement calls its code makes, in the order they stand.
    pub events: Vec<String>,
    /// The directive as written.
    pub directive: Location,
    /// From the directive to the end of its block or end directive.
    pub extent: Location,
    pub edits: Vec<EditEntry>,
    /// The region's entry in the file's IDF descriptor.
    pub idf: pomp2::idf::Region,
}

#[derive(Clone, Debug, Serialize)]
pub struct EditEntry {
    /// The bytes replaced; empty for an insertion.
    #[serde(flatten)]
    pub location: Location,
    /// What stands there in the instrumented file.
    pub text: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct OtherEdit {
    /// `file`, `unit`, `lock-call`, `site` (a directive rewritten without
    /// a region of its own) or `exit`.
    pub origin: &'static str,
    #[serde(flatten)]
    pub edit: EditEntry,
}

#[derive(Clone, Debug, Serialize)]
pub struct DiagnosticEntry {
    pub severity: Severity,
    pub message: String,
    pub label: String,
    pub notes: Vec<String>,
    /// The options the message and notes advise, for a tool to respell.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<Advice>,
    #[serde(flatten)]
    pub location: Location,
}

/// Turns byte spans of one file into [`Location`]s.
pub struct Locator<'a> {
    file: &'a SourceFile,
    index: &'a LineIndex,
    encoding: Encoding,
}

impl<'a> Locator<'a> {
    /// `index` must be the line index of `file`'s bytes.
    pub fn new(file: &'a SourceFile, index: &'a LineIndex, encoding: Encoding) -> Locator<'a> {
        Locator {
            file,
            index,
            encoding,
        }
    }

    pub fn locate(&self, span: Span) -> Location {
        let end = span.end.min(self.file.bytes.len());
        let start = span.start.min(end);
        let line_column = |offset| {
            let (line, column) = self.file.line_col(offset);
            LineColumn { line, column }
        };
        Location {
            bytes: [start, end],
            start: line_column(start),
            end: line_column(end),
            range: self
                .index
                .range(&self.file.bytes, start..end, self.encoding),
        }
    }

    fn edit(&self, edit: &Edit) -> EditEntry {
        EditEntry {
            location: self.locate(edit.range.clone()),
            text: edit.text().to_string(),
        }
    }

    pub fn diagnostic(&self, diagnostic: &Diagnostic) -> DiagnosticEntry {
        DiagnosticEntry {
            severity: diagnostic.severity,
            message: diagnostic.message.clone(),
            label: diagnostic.label.clone(),
            notes: diagnostic.notes.clone(),
            advice: diagnostic.advice.clone(),
            location: self.locate(diagnostic.span.clone()),
        }
    }
}

impl Document {
    /// The document of `done`, the instrumentation of `file`; `index` is
    /// the line index of `file`'s bytes.
    pub fn new(
        file: &SourceFile,
        done: &Instrumentation,
        index: &LineIndex,
        encoding: Encoding,
    ) -> Document {
        let locator = Locator::new(file, index, encoding);
        let idf = done.idf(file);
        let mut regions: Vec<RegionEntry> = idf
            .regions
            .into_iter()
            .map(|entry| {
                let directive = entry.directive_bytes[0]..entry.directive_bytes[1];
                let extent = directive.start..extent_end(&entry);
                RegionEntry {
                    index: entry.index,
                    id: entry.id.to_string(),
                    region_type: entry.region_type.clone(),
                    events: vec![],
                    directive: locator.locate(directive),
                    extent: locator.locate(extent),
                    edits: vec![],
                    idf: entry,
                }
            })
            .collect();
        let mut other_edits = vec![];
        for edit in &done.edits {
            // Plan indexes are region numbers less one.
            match edit.origin.region().and_then(|r| regions.get_mut(r)) {
                Some(region) => region.edits.push(locator.edit(edit)),
                None => other_edits.push(OtherEdit {
                    origin: origin_name(&edit.origin),
                    edit: locator.edit(edit),
                }),
            }
        }
        for region in &mut regions {
            region.events = called_events(
                done.plan.prefix(),
                region.edits.iter().map(|e| e.text.as_str()),
            );
        }
        Document {
            file: file.path.to_string_lossy().into_owned(),
            language: file.language.name(),
            position_encoding: encoding.name(),
            diagnostics: done
                .diagnostics
                .iter()
                .map(|d| locator.diagnostic(d))
                .collect(),
            regions,
            other_edits,
        }
    }

    /// The region numbered `index` (from 1).
    pub fn region(&self, index: usize) -> Option<&RegionEntry> {
        self.regions.iter().find(|r| r.index == index)
    }

    /// The innermost region whose extent holds 1-based line `line`.
    pub fn region_at_line(&self, line: usize) -> Option<&RegionEntry> {
        self.regions
            .iter()
            .filter(|r| r.extent.start.line <= line && line <= r.extent.end.line)
            .max_by_key(|r| r.extent.bytes[0])
    }

    /// The region whose directive (or end directive) holds byte `offset`.
    /// The region with the id `id`.
    pub fn region_with_id(&self, id: &pomp2::RegionId) -> Option<&RegionEntry> {
        self.regions.iter().find(|r| &r.idf.id == id)
    }

    pub fn region_of_directive_at(&self, offset: usize) -> Option<&RegionEntry> {
        let holds = |bytes: [usize; 2]| bytes[0] <= offset && offset <= bytes[1];
        self.regions.iter().find(|r| {
            holds(r.directive.bytes) || r.idf.end_directive.as_ref().is_some_and(|e| holds(e.bytes))
        })
    }

    /// Only the region numbered `index`; other edits and diagnostics
    /// outside its extent are left out.
    pub fn only_region(mut self, index: usize) -> Document {
        self.regions.retain(|r| r.index == index);
        let extent = self.regions.first().map(|r| r.extent.bytes);
        let inside = |bytes: [usize; 2]| {
            extent.is_some_and(|[start, end]| start <= bytes[0] && bytes[1] <= end)
        };
        self.diagnostics.retain(|d| inside(d.location.bytes));
        self.other_edits.retain(|e| inside(e.edit.location.bytes));
        self
    }
}

/// Where a region's code ends: its block, or its end directive.
fn extent_end(entry: &pomp2::idf::Region) -> usize {
    [
        Some(entry.directive_bytes[1]),
        entry.block_bytes.map(|b| b[1]),
        entry.end_directive.as_ref().map(|e| e.bytes[1]),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(entry.directive_bytes[1])
}

fn origin_name(origin: &Origin) -> &'static str {
    match origin {
        Origin::Site { .. } => "site",
        Origin::Function { .. } => "function",
        Origin::Exit { .. } => "exit",
        Origin::LockCall => "lock-call",
        Origin::Unit { .. } => "unit",
        Origin::File => "file",
    }
}

/// The functions named `prefix...` that `code` calls, each once, in the
/// order of their first call: what the inserted code really does, in C and
/// in Fortran (`call POMP2_...(`) alike.
pub fn called_events<'t>(prefix: &str, code: impl IntoIterator<Item = &'t str>) -> Vec<String> {
    let mut events: Vec<String> = vec![];
    for text in code {
        for (at, _) in text.match_indices(prefix) {
            let word_start = at == 0 || !is_identifier_byte(text.as_bytes()[at - 1]);
            let rest = &text[at..];
            let length = rest
                .bytes()
                .position(|b| !is_identifier_byte(b))
                .unwrap_or(rest.len());
            let called = rest[length..].trim_start().starts_with('(');
            if word_start && called && !events.iter().any(|e| e == &rest[..length]) {
                events.push(rest[..length].to_string());
            }
        }
    }
    events
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn called_events_are_calls_not_types_or_longer_names() {
        let code = [
            "{ POMP2_Task_handle old; POMP2_Parallel_fork(&h, 1, 4, &old, \"ctc\");\n",
            "call POMP2_Parallel_join (h, old)\nXPOMP2_Other(); POMP2_Parallel_fork(x);",
        ];
        assert_eq!(
            called_events("POMP2_", code),
            ["POMP2_Parallel_fork", "POMP2_Parallel_join"]
        );
    }
}
