//! Reading the JSON documents pomp writes — profiles, traces, IDF
//! descriptors — with one reader that tells a missing, empty, truncated,
//! foreign or newer file apart, whatever the document.

use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// A document kind: what it is called, and how its header says that a file
/// is one and whether this build reads its version.
pub trait Document: DeserializeOwned {
    /// How people call it: `pomp profile`.
    const NAME: &'static str;
    /// The few fields that identify the document; read before the whole
    /// document, so that a foreign or newer file gets an error saying so.
    type Header: DeserializeOwned;

    fn identify(header: &Self::Header) -> Identity;
}

/// What a header says about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    Readable,
    /// Another kind of document; what it called itself, if anything.
    Foreign(Option<String>),
    /// This kind, in a version this build does not read.
    Unsupported {
        found: String,
        reads: String,
    },
}

/// Why a file could not be read as a document.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is empty, not a {what}", path.display())]
    Empty { path: PathBuf, what: &'static str },
    #[error("{} is truncated (it ends inside the JSON document): was the program stopped while writing it?", path.display())]
    Truncated { path: PathBuf, what: &'static str },
    #[error("{} is not a {what}: it is not JSON ({source})", path.display())]
    NotJson {
        path: PathBuf,
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("{}", foreign_message(path, what, found, is))]
    Foreign {
        path: PathBuf,
        what: &'static str,
        found: Option<String>,
        /// What the file is, when it is something pomp knows.
        is: Option<Kind>,
    },
    #[error("{} is a {what} of version {found}; this build reads version {reads}", path.display())]
    UnsupportedVersion {
        path: PathBuf,
        what: &'static str,
        found: String,
        reads: String,
    },
    #[error("{} is a damaged {what}: {source}", path.display())]
    Invalid {
        path: PathBuf,
        what: &'static str,
        source: serde_json::Error,
    },
}

/// A kind of file pomp writes or reads, told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Profile,
    /// The runtime's compact binary trace.
    Trace,
    /// A trace as Chrome trace JSON.
    ChromeTrace,
    IdfDescriptor,
    IdfIndex,
    /// An experiment's manifest (`manifest.json`).
    Manifest,
    /// A compilation database (`compile_commands.json`).
    CompilationDatabase,
}

impl Kind {
    /// What the file is called.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Profile => "pomp profile",
            Kind::Trace => "pomp trace (the runtime's binary trace)",
            Kind::ChromeTrace => "pomp trace in Chrome trace JSON",
            Kind::IdfDescriptor => "pomp IDF descriptor",
            Kind::IdfIndex => "pomp IDF index",
            Kind::Manifest => "pomp experiment manifest",
            Kind::CompilationDatabase => "compilation database",
        }
    }

    /// What reads it.
    pub fn read_by(self) -> &'static str {
        match self {
            Kind::Profile => "`pomp report PROFILE` reports on it",
            Kind::Trace => {
                "`pomp report TRACE --otf2 DIR` or `--chrome OUT.json` converts it, and \
                 `pomp report PROFILE` reads it beside the profile that names it"
            }
            Kind::ChromeTrace => "Perfetto (ui.perfetto.dev) and chrome://tracing open it",
            Kind::IdfDescriptor | Kind::IdfIndex => {
                "`pomp report PROFILE --idf FILE` reads it with a profile"
            }
            Kind::Manifest => "`pomp report DIR` reads the experiment in its directory",
            Kind::CompilationDatabase => {
                "`pomp batch --compile-commands FILE --out DIR` instruments the files it lists"
            }
        }
    }

    /// What `bytes` are, if pomp knows them.
    pub fn of(bytes: &[u8]) -> Option<Kind> {
        // Headers are structs, which serde also reads from arrays.
        let object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        fn is<D: Document>(bytes: &[u8]) -> bool {
            serde_json::from_slice::<D::Header>(bytes)
                .is_ok_and(|header| !matches!(D::identify(&header), Identity::Foreign(_)))
        }
        /// The fields every entry of a compilation database has.
        #[derive(serde::Deserialize)]
        struct Entry {
            #[allow(dead_code)]
            directory: String,
            #[allow(dead_code)]
            file: String,
        }
        if crate::trace::is_trace(bytes) {
            Some(Kind::Trace)
        } else if object && is::<crate::profile::Profile>(bytes) {
            Some(Kind::Profile)
        } else if object && is::<crate::chrome::Trace>(bytes) {
            Some(Kind::ChromeTrace)
        } else if object && is::<crate::idf::Document>(bytes) {
            Some(Kind::IdfDescriptor)
        } else if object && is::<crate::idf::Index>(bytes) {
            Some(Kind::IdfIndex)
        } else if object && is::<crate::experiment::Manifest>(bytes) {
            Some(Kind::Manifest)
        } else if serde_json::from_slice::<Vec<Entry>>(bytes).is_ok_and(|e| !e.is_empty()) {
            Some(Kind::CompilationDatabase)
        } else {
            None
        }
    }
}

fn foreign_message(path: &Path, what: &str, found: &Option<String>, is: &Option<Kind>) -> String {
    match (is, found) {
        (Some(kind), _) => format!(
            "{} is a {}, not a {what}: {}",
            path.display(),
            kind.name(),
            kind.read_by()
        ),
        (None, Some(found)) => format!(
            "{} is not a {what} (it says it is {found:?})",
            path.display()
        ),
        (None, None) => format!(
            "{} is not a {what} (it does not say what it is)",
            path.display()
        ),
    }
}

/// Read a document of kind `D` from `path`.
pub fn read<D: Document>(path: impl AsRef<Path>) -> Result<D, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    from_slice(&bytes, path)
}

/// Read a document of kind `D` from its bytes; `path` names it in errors.
pub fn from_slice<D: Document>(bytes: &[u8], path: &Path) -> Result<D, Error> {
    let what = D::NAME;
    let path_buf = || path.to_path_buf();
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Error::Empty {
            path: path_buf(),
            what,
        });
    }
    // Another file pomp knows is named for what it is.
    let foreign = |found| Error::Foreign {
        path: path_buf(),
        what,
        found,
        is: Kind::of(bytes),
    };
    let header: D::Header =
        serde_json::from_slice(bytes).map_err(|source| match source.classify() {
            serde_json::error::Category::Eof => Error::Truncated {
                path: path_buf(),
                what,
            },
            serde_json::error::Category::Data => foreign(None),
            _ if Kind::of(bytes).is_some() => foreign(None),
            _ => Error::NotJson {
                path: path_buf(),
                what,
                source,
            },
        })?;
    match D::identify(&header) {
        Identity::Readable => {}
        Identity::Foreign(found) => return Err(foreign(found)),
        Identity::Unsupported { found, reads } => {
            return Err(Error::UnsupportedVersion {
                path: path_buf(),
                what,
                found,
                reads,
            })
        }
    }
    serde_json::from_slice(bytes).map_err(|source| Error::Invalid {
        path: path_buf(),
        what,
        source,
    })
}

/// What a header of a `format` and a `version` field says, for a
/// document whose format is `format` and whose versions this build reads
/// are `versions` (the newest last).
pub fn identify_versioned(
    found_format: &Option<serde_json::Value>,
    found_version: &Option<serde_json::Value>,
    format: &str,
    versions: &[u32],
) -> Identity {
    match found_format {
        Some(serde_json::Value::String(found)) if found == format => {}
        other => return Identity::Foreign(other.as_ref().map(text_of)),
    }
    match found_version {
        Some(version)
            if version
                .as_u64()
                .is_some_and(|v| versions.iter().any(|&known| known as u64 == v)) =>
        {
            Identity::Readable
        }
        other => Identity::Unsupported {
            found: other.as_ref().map_or("none".into(), text_of),
            reads: match versions {
                [only] => only.to_string(),
                [earlier @ .., newest] => {
                    let earlier: Vec<String> = earlier.iter().map(u32::to_string).collect();
                    format!("{} and {newest}", earlier.join(", "))
                }
                [] => "none".to_string(),
            },
        },
    }
}

/// A header value as text: a string as itself, anything else as JSON.
pub fn text_of(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idf;

    fn read_idf(text: &str) -> Result<idf::Document, Error> {
        from_slice(text.as_bytes(), Path::new("x.json"))
    }

    /// A file pomp knows, named where another is wanted, is said to be
    /// what it is, with what reads it.
    #[test]
    fn known_files_are_named_for_what_they_are() {
        let said = |bytes: &[u8]| read_idf(std::str::from_utf8(bytes).unwrap()).unwrap_err();
        let database = br#"[{"directory": "/src", "file": "a.c", "command": "cc -c a.c"},
            {"directory": "/src", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]"#;
        assert_eq!(
            said(database).to_string(),
            "x.json is a compilation database, not a pomp IDF descriptor: `pomp batch \
             --compile-commands FILE --out DIR` instruments the files it lists"
        );
        let profile = format!(
            "{{\"format\": \"{}\", \"version\": {}}}",
            crate::profile::FORMAT,
            crate::profile::VERSION
        );
        let profile = from_slice::<crate::chrome::Trace>(profile.as_bytes(), Path::new("p.json"));
        assert_eq!(
            profile.unwrap_err().to_string(),
            "p.json is a pomp profile, not a pomp trace: `pomp report PROFILE` reports on it"
        );
        let descriptor = br#"{"schema_version": "1.0", "regions": []}"#;
        let as_profile = from_slice::<crate::profile::Profile>(descriptor, Path::new("x.json"));
        assert!(as_profile.unwrap_err().to_string().starts_with(
            "x.json is a pomp IDF descriptor, not a pomp profile: `pomp report PROFILE --idf FILE`"
        ));
        let mut trace = crate::trace::MAGIC.to_vec();
        trace.extend_from_slice(&[1, 0, 0, 0]);
        let as_profile = from_slice::<crate::profile::Profile>(&trace, Path::new("t.ptrace"));
        assert!(as_profile.unwrap_err().to_string().starts_with(
            "t.ptrace is a pomp trace (the runtime's binary trace), not a pomp profile: \
                 `pomp report TRACE --otf2 DIR`"
        ));
    }

    #[test]
    fn every_kind_of_unreadable_file_is_told_apart() {
        let missing = read::<idf::Document>("/nonexistent/x.json").unwrap_err();
        assert!(matches!(missing, Error::Unreadable { .. }), "{missing}");
        assert!(matches!(read_idf("  \n").unwrap_err(), Error::Empty { .. }));
        assert!(matches!(
            read_idf("{\"schema_version\": \"1.0\", ").unwrap_err(),
            Error::Truncated { .. }
        ));
        assert!(matches!(
            read_idf("<html>").unwrap_err(),
            Error::NotJson { .. }
        ));
        let unnamed = read_idf("{\"regions\": []}").unwrap_err();
        assert_eq!(
            unnamed.to_string(),
            "x.json is not a pomp IDF descriptor (it does not say what it is)"
        );
        let newer = read_idf("{\"schema_version\": \"2.0\"}").unwrap_err();
        assert_eq!(
            newer.to_string(),
            "x.json is a pomp IDF descriptor of version 2.0; this build reads version 1.1"
        );
        let damaged = read_idf("{\"schema_version\": \"1.0\", \"regions\": 3}").unwrap_err();
        assert!(matches!(damaged, Error::Invalid { .. }), "{damaged}");
        let trace = from_slice::<crate::chrome::Trace>(
            b"{\"otherData\": {\"format\": \"x\"}}",
            Path::new("t.json"),
        )
        .unwrap_err();
        assert_eq!(
            trace.to_string(),
            "t.json is not a pomp trace (it says it is \"x\")"
        );
    }
}
