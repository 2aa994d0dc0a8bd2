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
    #[error("{} is not a {what} ({})", path.display(),
        found.as_deref().map_or("it does not say what it is".to_string(), |f| format!("it says it is {f:?}")))]
    Foreign {
        path: PathBuf,
        what: &'static str,
        found: Option<String>,
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
    let header: D::Header =
        serde_json::from_slice(bytes).map_err(|source| match source.classify() {
            serde_json::error::Category::Eof => Error::Truncated {
                path: path_buf(),
                what,
            },
            serde_json::error::Category::Data => Error::Foreign {
                path: path_buf(),
                what,
                found: None,
            },
            _ => Error::NotJson {
                path: path_buf(),
                what,
                source,
            },
        })?;
    match D::identify(&header) {
        Identity::Readable => {}
        Identity::Foreign(found) => {
            return Err(Error::Foreign {
                path: path_buf(),
                what,
                found,
            })
        }
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
        let profile = read_idf("{\"format\": \"pomp-profile\"}").unwrap_err();
        assert_eq!(
            profile.to_string(),
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
