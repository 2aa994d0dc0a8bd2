//! What writing an archive can fail at.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Library(String),
    #[error("{} holds files that are not an OTF2 archive; name an empty or new directory", .0.display())]
    NotAnArchive(PathBuf),
    #[error("cannot write the OTF2 archive {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the OTF2 library failed at {call}: {name}")]
    Call { call: &'static str, name: String },
}
