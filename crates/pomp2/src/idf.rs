//! The IDF descriptor: one JSON document per instrumented file listing every
//! region, written by `pomp instrument --idf` and the wrappers' `--pomp-keep`,
//! read by reports and editors. Its schema is `schemas/idf.schema.json`.

use crate::identity::IdfHeader;
pub use crate::identity::IDF_SCHEMA_VERSION as SCHEMA_VERSION;
pub use crate::region::CodeKind;
use crate::region::{EventSet, Interface, RegionId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub schema_version: String,
    pub tool: Tool,
    /// The file as named on the command line.
    pub input: String,
    /// SHA-256 of its bytes, in lower-case hexadecimal.
    pub content_sha256: String,
    /// `c`, `c++`, `fortran-free` or `fortran-fixed`.
    pub language: String,
    /// Which front end read the file.
    pub front_end: String,
    pub options: Options,
    /// The part of the file's generated names that makes them unique.
    pub unique: String,
    /// `POMP2_Init_reg_<unique>_<n>`, when the file registers construct
    /// regions.
    pub init_function: Option<String>,
    /// `POMP2_USER_Init_reg_<unique>_<n>`, when it registers user regions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_init_function: Option<String>,
    pub regions: Vec<Region>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// The options the file was instrumented with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Options {
    pub disable: Vec<String>,
    pub events: EventSet,
    pub interface: Interface,
    pub line_markers: bool,
    pub keep_untied: bool,
}

/// A byte range `[start, end)` in the input.
pub type Bytes = [usize; 2];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    pub id: RegionId,
    /// The region's number in the file, from 1.
    pub index: usize,
    /// The CTC string's `regionType`: `parallel`, `for`, ..., `region` for
    /// user regions.
    #[serde(rename = "type")]
    pub region_type: String,
    /// The directive as written, by its canonical name.
    pub directive: String,
    pub file: String,
    /// The enclosing function or program unit, qualified in C++.
    pub unit: Option<String>,
    pub line_start: usize,
    pub column_start: usize,
    pub line_end: usize,
    pub column_end: usize,
    pub directive_bytes: Bytes,
    pub block_bytes: Option<Bytes>,
    pub end_directive: Option<EndDirective>,
    /// The innermost enclosing region.
    pub parent: Option<RegionId>,
    /// The handle variable in the instrumented code.
    pub handle: String,
    pub ctc: String,
    pub clauses: Vec<Clause>,
    /// Further facts: `numSections`, `criticalName`, `scheduleType`, ...
    pub aux: BTreeMap<String, String>,
    /// How the waiting at the construct's closing barrier is measured:
    /// `explicit` (between implicit-barrier events) or `inferred` (by the
    /// library, from the team's `Parallel_end` times and the join); absent
    /// when no closing barrier is measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub implicit_barrier: Option<crate::ctc::ImplicitBarrier>,
    /// For a region of code rather than of an OpenMP construct
    /// (`--regions`): what the code is. Its name is `userRegionName` in
    /// `aux`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<CodeKind>,
}

impl Region {
    /// How people name the region, as reports do: `parallel for in
    /// CalcForceForNodes (lulesh.cc:1171)`, `function hydro::advance
    /// (hydro.cpp:205)`.
    pub fn label(&self) -> String {
        let name = ["criticalName", "userRegionName"]
            .iter()
            .find_map(|key| self.aux.get(*key))
            .map(String::as_str);
        crate::ctc::RegionName {
            region_type: &self.region_type,
            code_kind: self.kind,
            name,
            unit: self.unit.as_deref(),
            place: Some((&self.file, self.line_start)),
        }
        .label()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndDirective {
    pub line: usize,
    pub column: usize,
    pub bytes: Bytes,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clause {
    pub name: String,
    pub args: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// `note`, `warning` or `error`.
    pub severity: String,
    pub message: String,
    /// The file the diagnostic points into, when it is not the input: a
    /// file the input's line markers name (a header of a preprocessed
    /// file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub line: usize,
    pub column: usize,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// Why a file could not be read as an IDF descriptor.
pub type Error = crate::document::Error;

impl crate::document::Document for Document {
    const NAME: &'static str = "pomp IDF descriptor";
    type Header = IdfHeader;

    fn identify(header: &IdfHeader) -> crate::document::Identity {
        header.identify(false)
    }
}

impl crate::document::Document for Index {
    const NAME: &'static str = "pomp IDF index";
    type Header = IdfHeader;

    fn identify(header: &IdfHeader) -> crate::document::Identity {
        header.identify(true)
    }
}

/// The descriptors of every instrumented file of a source tree, as
/// `pomp batch` writes them (`pomp-idf.json`): for reports and editors
/// that look a region up across a whole code base. Its schema version is
/// the documents' own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    pub schema_version: String,
    pub tool: Tool,
    /// The source tree the paths are relative to.
    pub root: String,
    /// One entry per instrumented file, ordered by path.
    pub files: Vec<IndexedFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexedFile {
    /// The source, relative to the index's root.
    pub path: String,
    /// The instrumented file, relative to the directory holding the index.
    pub output: String,
    pub document: Document,
}

impl Index {
    /// Every region of every file.
    pub fn regions(&self) -> impl Iterator<Item = &Region> {
        self.files.iter().flat_map(|f| &f.document.regions)
    }
}

/// Read an IDF descriptor.
pub fn read(path: impl AsRef<Path>) -> Result<Document, Error> {
    crate::document::read(path)
}

/// Read a tree's index of IDF descriptors.
pub fn read_index(path: impl AsRef<Path>) -> Result<Index, Error> {
    crate::document::read(path)
}

/// Parse an IDF descriptor read from `path`.
pub fn from_slice(bytes: &[u8], path: &Path) -> Result<Document, Error> {
    crate::document::from_slice(bytes, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(version: &str) -> Index {
        Index {
            schema_version: version.into(),
            tool: Tool {
                name: "pomp".into(),
                version: "0".into(),
            },
            root: "/src".into(),
            files: vec![],
        }
    }

    #[test]
    fn an_index_is_read_back_and_its_version_checked() {
        let dir = std::env::temp_dir().join(format!("pomp2-idf-index-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("pomp-idf.json");
        std::fs::write(&path, serde_json::to_vec(&index(SCHEMA_VERSION)).unwrap()).unwrap();
        assert_eq!(read_index(&path).unwrap(), index(SCHEMA_VERSION));
        std::fs::write(&path, serde_json::to_vec(&index("2.0")).unwrap()).unwrap();
        let refused = read_index(&path).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(refused, Error::UnsupportedVersion { found, .. } if found == "2.0"));
    }

    #[test]
    fn an_index_and_a_descriptor_are_told_apart() {
        let index_bytes = serde_json::to_vec(&index(SCHEMA_VERSION)).unwrap();
        let path = Path::new("pomp-idf.json");
        let refused = from_slice(&index_bytes, path).unwrap_err();
        assert!(matches!(refused, Error::Foreign { found: Some(f), .. } if f == "pomp IDF index"));
    }
}
