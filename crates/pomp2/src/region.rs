//! What identifies a region across the instrumenter's descriptor, the
//! CTC string and the runtime's profile.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// `<unique>.<n>`: the file's unique name part (a hash of its path and
/// content) and the region's 1-based number in file order.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct RegionId {
    pub unique: String,
    pub index: usize,
}

impl RegionId {
    pub fn new(unique: impl Into<String>, index: usize) -> RegionId {
        RegionId {
            unique: unique.into(),
            index,
        }
    }
}

impl fmt::Display for RegionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.unique, self.index)
    }
}

impl FromStr for RegionId {
    type Err = String;
    fn from_str(text: &str) -> Result<RegionId, String> {
        let (unique, index) = text
            .rsplit_once('.')
            .filter(|(unique, _)| !unique.is_empty())
            .ok_or_else(|| format!("`{text}` is no region id (<unique>.<n>)"))?;
        let index = index
            .parse()
            .map_err(|_| format!("`{text}` is no region id: `{index}` is no number"))?;
        Ok(RegionId::new(unique, index))
    }
}

impl From<RegionId> for String {
    fn from(id: RegionId) -> String {
        id.to_string()
    }
}

impl TryFrom<String> for RegionId {
    type Error = String;
    fn try_from(text: String) -> Result<RegionId, String> {
        text.parse()
    }
}

/// Which events instrumented code calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventSet {
    /// OPARI2's events plus pomp's extended events for newer constructs.
    #[default]
    Extended,
    /// Only the events OPARI2 emits, for POMP2 libraries that know no more.
    Opari2,
}

/// Which measurement interface instrumented code calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Interface {
    #[default]
    Pomp2,
    /// The original interface as OPARI 1.1's library implements it:
    /// `pomp_*` calls with a context descriptor per region, found through
    /// a table made at link time.
    Pomp1,
    /// The same with the 2002 proposal's spelling of the C calls,
    /// `POMP_*`, which no library that shipped implements.
    #[serde(rename = "pomp1-paper")]
    Pomp1Paper,
}

impl Interface {
    /// Either form of the original interface.
    pub fn is_pomp1(self) -> bool {
        matches!(self, Interface::Pomp1 | Interface::Pomp1Paper)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text_and_json() {
        let id = RegionId::new("dd123a1a9378d451", 36);
        assert_eq!(id.to_string(), "dd123a1a9378d451.36");
        assert_eq!("dd123a1a9378d451.36".parse::<RegionId>(), Ok(id.clone()));
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"dd123a1a9378d451.36\"");
        assert_eq!(serde_json::from_str::<RegionId>(&json).unwrap(), id);
        assert!("36".parse::<RegionId>().is_err());
        assert!(".3".parse::<RegionId>().is_err());
        assert!("a.b".parse::<RegionId>().is_err());
    }
}

/// What a region of code (`--regions`) measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeKind {
    /// A function, method or procedure.
    Function,
    /// A C++ lambda's body.
    Lambda,
    /// `main` or a Fortran main program: the whole run, which also
    /// initialises and finalises the measurement.
    Program,
    /// An outermost loop outside OpenMP constructs, from just before it
    /// to just after it.
    Loop,
    /// A statement that calls a chosen function, named after the callee.
    Call,
}

impl CodeKind {
    pub const ALL: [CodeKind; 5] = [
        CodeKind::Function,
        CodeKind::Lambda,
        CodeKind::Program,
        CodeKind::Loop,
        CodeKind::Call,
    ];

    /// As the IDF and the CTC's `pompKind` write it.
    pub fn name(self) -> &'static str {
        match self {
            CodeKind::Function => "function",
            CodeKind::Lambda => "lambda",
            CodeKind::Program => "program",
            CodeKind::Loop => "loop",
            CodeKind::Call => "call",
        }
    }

    /// The kind [`CodeKind::name`] writes as `name`.
    pub fn from_name(name: &str) -> Option<CodeKind> {
        CodeKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}
