//! Reading the JSON documents pomp writes — profiles, traces, IDF
//! descriptors — with one reader that tells a missing, empty, truncated,
//! foreign or newer file apart, whatever the document.

pub use crate::identity::{identify_versioned, text_of, Identity, Kind};
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
