//! What a run and its watcher say to each other, and how: the watcher is
//! started as a hidden subcommand and says on its standard output when it
//! is ready; then it listens on a Unix socket in a directory only the user
//! can enter, where each request and each reply is one line of JSON.

use anyhow::{bail, Context as _, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The hidden `pomp` subcommand that runs a watcher, with the tree and
/// the mirror as its arguments.
pub const SUBCOMMAND: &str = "__batch-watcher";
/// What a new watcher prints once it watches both trees and listens.
pub const READY: &str = "watching";
/// How long the watcher waits to see its own cookie before it answers a
/// question about changes.
pub const SETTLE_PATIENCE: Duration = Duration::from_secs(10);

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Request {
    Status,
    /// What changed since these ticks, once the watcher has seen every
    /// event from before the question.
    Changes {
        source_since: u64,
        mirror_since: u64,
    },
    /// A run starts walking the tree and writing the mirror: the tick
    /// before, and the mirror is not watched until the run ends.
    Begin,
    /// The run wrote all it writes: the mirror is watched again from the
    /// tick answered.
    End,
    Stop,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum Reply {
    Status {
        id: String,
        root: PathBuf,
        out_dir: PathBuf,
        /// The directories watched, by device and inode: one deleted and
        /// made again at the same path is not watched.
        watched: [u64; 4],
        tick: u64,
    },
    Changes {
        id: String,
        tick: u64,
        source_changed: bool,
        /// The mirror's paths (relative to it) changed since; `None` when
        /// they are not all known.
        mirror: Option<Vec<String>>,
    },
    Begun {
        tick: u64,
    },
    Ended {
        tick: u64,
    },
    Stopping,
    Failed {
        message: String,
    },
}

/// A message as the line that carries it.
pub fn encode(message: &impl Serialize) -> Vec<u8> {
    let mut line = serde_json::to_vec(message).expect("messages serialise");
    line.push(b'\n');
    line
}

/// A message from the line that carried it.
pub fn decode<T: DeserializeOwned>(line: &str) -> serde_json::Result<T> {
    serde_json::from_str(line)
}

/// Where the watcher of `out_dir` listens: a directory only the user can
/// enter, and a name made from the output directory (socket paths are
/// short).
pub fn socket_path(out_dir: &Path) -> Result<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let directory = match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(runtime) if !runtime.is_empty() => PathBuf::from(runtime).join("pomp-batch"),
        _ => std::env::temp_dir().join(format!("pomp-batch-{uid}")),
    };
    if let Err(error) = std::fs::DirBuilder::new().mode(0o700).create(&directory) {
        if error.kind() != std::io::ErrorKind::AlreadyExists {
            return Err(error).with_context(|| format!("cannot create {}", directory.display()));
        }
    }
    let metadata = std::fs::symlink_metadata(&directory)
        .with_context(|| format!("cannot read {}", directory.display()))?;
    if !metadata.is_dir() || metadata.uid() != uid || metadata.permissions().mode() & 0o077 != 0 {
        bail!(
            "{} is not a directory only you can enter: no socket is put there",
            directory.display()
        );
    }
    let name = crate::cache::digest([out_dir.as_os_str().as_encoded_bytes()]);
    Ok(directory.join(format!("{}.sock", &name[..24])))
}

/// The two trees' directories by device and inode, as a status gives
/// them.
pub fn identity(root: &Path, out_dir: &Path) -> std::io::Result<[u64; 4]> {
    let (root, out) = (std::fs::metadata(root)?, std::fs::metadata(out_dir)?);
    Ok([root.dev(), root.ino(), out.dev(), out.ino()])
}
