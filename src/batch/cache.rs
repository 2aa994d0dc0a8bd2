//! What the last run left in the mirror, so that the next one redoes only
//! what changed. A file is up to date when its setup (pomp's version, the
//! options, the language, the name it is instrumented under) is the same
//! and either its status (device, inode, size, modification time) is too,
//! or, when that cannot be trusted or has changed, its content hash is;
//! and the mirror still holds what the run left there.

use super::report::Verdict;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Bumped when the state's layout changes: an older state is dropped.
const FORMAT: u32 = 1;

/// A file modified this close before a run started may be modified again
/// within the same timestamp (coarse file system clocks, FAT's two
/// seconds), unseen by its status: its content is checked next time.
const RACY: Duration = Duration::from_secs(2);

/// The cache directory inside the output directory.
pub const DIRECTORY: &str = ".pomp-batch";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
}

impl Stat {
    pub fn of(metadata: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.size(),
            mtime_ns: metadata.mtime() as i128 * 1_000_000_000 + metadata.mtime_nsec() as i128,
        }
    }

    /// The status of whatever is at `path` now, the link itself for a link.
    pub fn at(path: &Path) -> Option<Stat> {
        path.symlink_metadata().ok().map(|m| Stat::of(&m))
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The same file (a hard link to it).
    pub fn same_file(&self, other: &Stat) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// One file as the last run left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub source: Stat,
    /// What the mirror holds at the file's path; `None`: nothing.
    pub output: Option<Stat>,
    /// Everything besides the content that decides the output.
    pub setup: String,
    /// SHA-256 of the content, where the content was read.
    pub content: Option<String>,
    /// The file's IDF descriptor in the cache directory, when instrumented.
    pub idf: Option<String>,
    pub verdict: Verdict,
}

impl Entry {
    /// Whether the mirror still holds what this entry says it does.
    pub fn output_intact(&self, output: &Path) -> bool {
        Stat::at(output) == self.output
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct State {
    format: u32,
    /// When the run that wrote the state began, in nanoseconds since the
    /// epoch: statuses recorded before it can be trusted.
    started_ns: i128,
    /// Relative path (`/`-separated) → entry.
    pub entries: BTreeMap<String, Entry>,
    /// What the IDF index was last written from.
    pub index_inputs: String,
}

fn nanoseconds(time: SystemTime) -> i128 {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

impl State {
    fn path(out_dir: &Path) -> PathBuf {
        out_dir.join(DIRECTORY).join("state.json")
    }

    /// The state the last run left, or an empty one (none, unreadable, or
    /// of another format: everything is then redone).
    pub fn load(out_dir: &Path) -> State {
        std::fs::read(State::path(out_dir))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<State>(&bytes).ok())
            .filter(|state| state.format == FORMAT)
            .unwrap_or_default()
    }

    /// Whether this state, made by a run, holds what `previous` holds:
    /// then the run learnt nothing the next one needs, and `previous`,
    /// kept as it is, serves the next run as well.
    pub fn same_as(&self, previous: &State) -> bool {
        previous.format == FORMAT
            && self.entries == previous.entries
            && self.index_inputs == previous.index_inputs
    }

    pub fn save(&self, out_dir: &Path, started: SystemTime) -> std::io::Result<()> {
        let state = State {
            format: FORMAT,
            started_ns: nanoseconds(started),
            entries: self.entries.clone(),
            index_inputs: self.index_inputs.clone(),
        };
        let bytes = serde_json::to_vec(&state).map_err(std::io::Error::other)?;
        crate::output::write_atomically(&State::path(out_dir), &bytes)
    }

    /// Whether a file with status `stat` may have changed since this state
    /// recorded it without its status showing it.
    pub fn racy(&self, stat: &Stat) -> bool {
        stat.mtime_ns + RACY.as_nanos() as i128 >= self.started_ns
    }
}

/// A short stable digest of `parts`, for setups and names.
pub fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    crate::source::hex(&hasher.finalize()[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_are_racy_older_ones_are_not() {
        let started = SystemTime::now();
        let state = State {
            started_ns: nanoseconds(started),
            ..State::default()
        };
        let stat_at = |time: SystemTime| Stat {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: nanoseconds(time),
        };
        assert!(state.racy(&stat_at(started)));
        assert!(state.racy(&stat_at(started - Duration::from_secs(1))));
        assert!(!state.racy(&stat_at(started - Duration::from_secs(3))));
    }

    #[test]
    fn a_state_of_another_format_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(DIRECTORY)).unwrap();
        let state = State {
            index_inputs: "x".into(),
            ..State::default()
        };
        state.save(dir.path(), SystemTime::now()).unwrap();
        assert_eq!(State::load(dir.path()).index_inputs, "x");
        let path = State::path(dir.path());
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("\"format\":1", "\"format\":0")).unwrap();
        assert_eq!(State::load(dir.path()).index_inputs, "");
    }

    #[test]
    fn digests_separate_their_parts() {
        assert_ne!(digest([&b"ab"[..], b"c"]), digest([&b"a"[..], b"bc"]));
        assert_eq!(digest([&b"ab"[..]]).len(), 32);
    }
}
