//! What the last run left in the mirror, so that the next one redoes only
//! what changed. A file is up to date when its setup (pomp's version and
//! build digest, the
//! options, the language, the name it is instrumented under) is the same
//! and either its status (device, inode, size, modification and change
//! times, mode) is too, or, when that cannot be trusted or has changed,
//! its content hash is; and the mirror still holds what the run left there.
//!
//! The state is a stream of entries in the walk's order (`state` in the
//! cache directory): a run reads the last run's entries one by one as its
//! walk reaches them and writes its own the same way, so neither state is
//! ever whole in memory. While a run finds every entry as the last run
//! left it, it writes nothing; at the first difference it copies the
//! unchanged prefix of the old stream and goes on from there.

use super::report::{FileDiagnostic, Kind, Mirror, Verdict};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Bumped when the state's layout changes: an older state is dropped.
const FORMAT: u32 = 2;
const MAGIC: &[u8; 8] = b"pompstat";
/// Magic, format, start of the run, number of entries.
const HEADER_LEN: u64 = 8 + 4 + 16 + 8;

/// A file modified this close before a run started may be modified again
/// within the same timestamp (coarse file system clocks, FAT's two
/// seconds), unseen by its status: its content is checked next time.
const RACY: Duration = Duration::from_secs(2);

/// The cache directory inside the output directory.
pub const DIRECTORY: &str = ".pomp-batch";
const STATE: &str = "state";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stat {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    /// Changes with every write and every `touch -d`, `cp -p` or `tar x`
    /// that sets the modification time back.
    ctime_ns: i128,
    mode: u32,
}

impl Stat {
    pub fn of(metadata: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.size(),
            mtime_ns: metadata.mtime() as i128 * 1_000_000_000 + metadata.mtime_nsec() as i128,
            ctime_ns: metadata.ctime() as i128 * 1_000_000_000 + metadata.ctime_nsec() as i128,
            mode: metadata.mode(),
        }
    }

    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    pub fn of_raw(stat: &rustix::fs::Stat) -> Stat {
        Stat {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: stat.st_size as u64,
            mtime_ns: stat.st_mtime as i128 * 1_000_000_000 + stat.st_mtime_nsec as i128,
            ctime_ns: stat.st_ctime as i128 * 1_000_000_000 + stat.st_ctime_nsec as i128,
            mode: stat.st_mode as u32,
        }
    }

    /// The status of whatever is at `path` now, the link itself for a link.
    pub fn at(path: &Path) -> Option<Stat> {
        path.symlink_metadata().ok().map(|m| Stat::of(&m))
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn dev(&self) -> u64 {
        self.dev
    }

    pub fn ino(&self) -> u64 {
        self.ino
    }

    pub fn permissions(&self) -> std::fs::Permissions {
        use std::os::unix::fs::PermissionsExt;
        std::fs::Permissions::from_mode(self.mode & 0o7777)
    }

    pub fn is_symlink(&self) -> bool {
        self.mode & 0o170000 == 0o120000
    }

    /// The same file (a hard link to it).
    pub fn same_file(&self, other: &Stat) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// What the mirror holds at a file's path, as the last run left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Output {
    Nothing,
    /// A hard link to the source: its inode is the source's, which a
    /// directory listing shows without a status per file.
    Link,
    /// Anything else (instrumented, copied, a symbolic link).
    File(Stat),
}

impl Output {
    /// What is at `path` now, for a source with status `source`.
    pub fn at(path: &Path, source: &Stat) -> Output {
        match Stat::at(path) {
            None => Output::Nothing,
            Some(stat) if stat.same_file(source) && !stat.is_symlink() => Output::Link,
            Some(stat) => Output::File(stat),
        }
    }
}

/// One file as the last run left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub source: Stat,
    pub output: Output,
    /// Everything besides the content that decides the output.
    pub setup: String,
    /// SHA-256 of the content, where the content was read.
    pub content: Option<String>,
    /// The file's IDF descriptor in the cache directory, when instrumented.
    pub idf: Option<String>,
    #[serde(with = "stored_verdict")]
    pub verdict: Verdict,
}

/// The verdict as the state keeps it: every field written, which the
/// report's JSON leaves out when empty and a binary format cannot.
mod stored_verdict {
    use super::*;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Written<'a> {
        kind: Kind,
        language: Option<pomp_core::language::Language>,
        mirror: Mirror,
        failed: bool,
        regions: &'a BTreeMap<String, usize>,
        init_function: &'a Option<String>,
        user_init_function: &'a Option<String>,
        diagnostics: Vec<WrittenDiagnostic<'a>>,
    }

    #[derive(Serialize)]
    struct WrittenDiagnostic<'a> {
        severity: &'a str,
        message: &'a str,
        line: Option<usize>,
        column: Option<usize>,
        notes: &'a [String],
    }

    #[derive(Deserialize)]
    struct Read {
        kind: Kind,
        language: Option<pomp_core::language::Language>,
        mirror: Mirror,
        failed: bool,
        regions: BTreeMap<String, usize>,
        init_function: Option<String>,
        user_init_function: Option<String>,
        diagnostics: Vec<ReadDiagnostic>,
    }

    #[derive(Deserialize)]
    struct ReadDiagnostic {
        severity: String,
        message: String,
        line: Option<usize>,
        column: Option<usize>,
        notes: Vec<String>,
    }

    pub fn serialize<S: serde::Serializer>(v: &Verdict, s: S) -> Result<S::Ok, S::Error> {
        Written {
            kind: v.kind,
            language: v.language,
            mirror: v.mirror,
            failed: v.failed,
            regions: &v.regions,
            init_function: &v.init_function,
            user_init_function: &v.user_init_function,
            diagnostics: v
                .diagnostics
                .iter()
                .map(|d| WrittenDiagnostic {
                    severity: &d.severity,
                    message: &d.message,
                    line: d.line,
                    column: d.column,
                    notes: &d.notes,
                })
                .collect(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Verdict, D::Error> {
        let read = Read::deserialize(d)?;
        Ok(Verdict {
            kind: read.kind,
            language: read.language,
            mirror: read.mirror,
            failed: read.failed,
            regions: read.regions,
            init_function: read.init_function,
            user_init_function: read.user_init_function,
            diagnostics: read
                .diagnostics
                .into_iter()
                .map(|d| FileDiagnostic {
                    severity: d.severity,
                    message: d.message,
                    line: d.line,
                    column: d.column,
                    notes: d.notes,
                })
                .collect(),
        })
    }
}

#[derive(Deserialize)]
struct Record {
    /// Relative path, `/`-separated.
    key: String,
    entry: Entry,
}

/// A [`Record`] to write.
#[derive(Serialize)]
struct RecordRef<'a> {
    key: &'a str,
    entry: &'a Entry,
}

fn nanoseconds(time: SystemTime) -> i128 {
    match time.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// What tells one state from another without reading it: its header and
/// its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    started_ns: i128,
    entries: u64,
    length: u64,
}

impl Header {
    /// The header of the state in `cache_dir`, if it has one.
    pub fn of(cache_dir: &Path) -> Option<Header> {
        let mut file = File::open(cache_dir.join(STATE)).ok()?;
        let (started_ns, entries) = read_header(&mut file)?;
        Some(Header {
            started_ns,
            entries,
            length: file.metadata().ok()?.len(),
        })
    }
}

/// When the run that wrote a state began, and how many entries it has; the
/// reader is left at the first entry.
fn read_header(reader: &mut impl Read) -> Option<(i128, u64)> {
    let mut header = [0; HEADER_LEN as usize];
    reader.read_exact(&mut header).ok()?;
    if &header[..8] != MAGIC || header[8..12] != FORMAT.to_le_bytes() {
        return None;
    }
    Some((
        i128::from_le_bytes(header[12..28].try_into().unwrap()),
        u64::from_le_bytes(header[28..36].try_into().unwrap()),
    ))
}

/// The state the last run left, read entry by entry in the walk's order.
pub struct Previous {
    reader: Option<BufReader<File>>,
    /// When the run that wrote the state began, in nanoseconds since the
    /// epoch: statuses recorded before it can be trusted.
    started_ns: i128,
    entries: u64,
    /// Bytes read so far, up to the end of `next`.
    offset: u64,
    next: Option<(String, Entry, u64)>,
    /// What the IDF index was last written from; read after the entries.
    index_inputs: Option<String>,
    buffer: Vec<u8>,
}

impl Previous {
    /// The last run's state in `cache_dir`, or an empty one (none,
    /// unreadable, or of another format: everything is then redone).
    pub fn open(cache_dir: &Path) -> Previous {
        let mut previous = Previous {
            reader: None,
            started_ns: 0,
            entries: 0,
            offset: HEADER_LEN,
            next: None,
            index_inputs: None,
            buffer: Vec::new(),
        };
        let Ok(file) = File::open(cache_dir.join(STATE)) else {
            return previous;
        };
        let mut reader = BufReader::with_capacity(64 << 10, file);
        let Some((started_ns, entries)) = read_header(&mut reader) else {
            return previous;
        };
        previous.started_ns = started_ns;
        previous.entries = entries;
        previous.reader = Some(reader);
        previous.advance();
        previous
    }

    /// How many entries the last run left.
    pub fn len(&self) -> u64 {
        self.entries
    }

    pub fn started_ns(&self) -> i128 {
        self.started_ns
    }

    /// Every entry, in order.
    pub fn into_entries(mut self) -> impl Iterator<Item = (String, Entry)> {
        std::iter::from_fn(move || self.take().map(|(key, entry, _)| (key, entry)))
    }

    /// The key of the next entry, if any.
    pub fn peek(&self) -> Option<&str> {
        self.next.as_ref().map(|(key, _, _)| key.as_str())
    }

    /// The next entry, and the offset in the stream just after it.
    fn take(&mut self) -> Option<(String, Entry, u64)> {
        let next = self.next.take();
        self.advance();
        next
    }

    fn read_record(&mut self) -> Option<u32> {
        let reader = self.reader.as_mut()?;
        let mut length = [0; 4];
        reader.read_exact(&mut length).ok()?;
        let length = u32::from_le_bytes(length);
        self.buffer.resize(length as usize, 0);
        reader.read_exact(&mut self.buffer).ok()?;
        self.offset += 4 + length as u64;
        Some(length)
    }

    fn advance(&mut self) {
        match self.read_record() {
            // The end of the entries: the index's inputs follow.
            Some(0) => {
                self.index_inputs = self
                    .read_record()
                    .and_then(|_| postcard::from_bytes::<String>(&self.buffer).ok());
                self.reader = None;
            }
            Some(_) => match postcard::from_bytes::<Record>(&self.buffer) {
                Ok(record) => self.next = Some((record.key, record.entry, self.offset)),
                Err(_) => self.reader = None,
            },
            None => self.reader = None,
        }
    }

    /// Whether the stream was read to its proper end: only then may a
    /// run keep it, or a part of it, as its own.
    fn whole(&self) -> bool {
        self.next.is_none() && self.index_inputs.is_some()
    }
}

/// Whether a file with status `stat` may have changed since a run that
/// began at `started_ns` recorded it without its status showing it.
pub fn racy(started_ns: i128, stat: &Stat) -> bool {
    stat.mtime_ns + RACY.as_nanos() as i128 >= started_ns
}

/// The last run's state and the one this run writes, merged in the walk's
/// order.
pub struct Cache {
    cache_dir: PathBuf,
    started_ns: i128,
    pub previous: Previous,
    /// `None` while every entry so far is the last run's: then the state
    /// written so far is the old stream up to `shared`.
    written: Option<BufWriter<tempfile::NamedTempFile>>,
    shared: u64,
    count: u64,
    buffer: Vec<u8>,
}

/// What the last run left for a file: its entry, if any, and where the
/// entry ends in the last run's stream.
pub struct Before(Option<(Entry, u64)>);

impl Before {
    pub fn entry(&self) -> Option<&Entry> {
        self.0.as_ref().map(|(entry, _)| entry)
    }
}

impl Cache {
    pub fn open(cache_dir: &Path, started: SystemTime) -> Cache {
        Cache {
            cache_dir: cache_dir.to_path_buf(),
            started_ns: nanoseconds(started),
            previous: Previous::open(cache_dir),
            written: None,
            shared: HEADER_LEN,
            count: 0,
            buffer: Vec::new(),
        }
    }

    /// The last run's entry for `key` when the last run's next entry is
    /// for it. Earlier entries must have been taken by [`Cache::stale`].
    pub fn before(&mut self, key: &str) -> Before {
        match self.previous.peek() {
            Some(next) if next == key => {
                let (_, entry, end) = self.previous.take().expect("peeked");
                Before(Some((entry, end)))
            }
            _ => Before(None),
        }
    }

    /// The last run's next entry, when it comes before `key` in the
    /// walk's order (or `key` is `None`: the walk is over): its file is no
    /// longer in the tree.
    pub fn stale(&mut self, key: Option<&str>) -> io::Result<Option<(String, Entry)>> {
        let Some(next) = self.previous.peek() else {
            return Ok(None);
        };
        if key.is_some_and(|key| !super::walk::key_before(next, key)) {
            return Ok(None);
        }
        let (key, entry, _) = self.previous.take().expect("peeked");
        self.diverge()?;
        Ok(Some((key, entry)))
    }

    /// The file whose entry [`Cache::before`] took has no entry in this
    /// run's state.
    pub fn skip(&mut self) -> io::Result<()> {
        self.diverge()
    }

    /// What the IDF index was made of when the last run wrote it; known
    /// once every entry of the last run has been taken.
    pub fn previous_index_inputs(&self) -> Option<&str> {
        self.previous.index_inputs.as_deref()
    }

    /// This run's entry for `key`, whose last entry was `before`.
    pub fn record(&mut self, key: &str, entry: &Entry, before: &Before) -> io::Result<()> {
        self.count += 1;
        if self.written.is_none() {
            if let Some((old, end)) = &before.0 {
                if old == entry {
                    self.shared = *end;
                    return Ok(());
                }
            }
        }
        self.diverge()?;
        self.buffer.clear();
        let record = RecordRef { key, entry };
        self.buffer = postcard::to_extend(&record, std::mem::take(&mut self.buffer))
            .map_err(io::Error::other)?;
        let length = self.buffer.len() as u32;
        let out = self.written.as_mut().expect("diverged");
        out.write_all(&length.to_le_bytes())?;
        out.write_all(&self.buffer)
    }

    /// From here on the state is this run's own: the part shared with the
    /// last run is copied from its stream.
    fn diverge(&mut self) -> io::Result<()> {
        if self.written.is_some() {
            return Ok(());
        }
        let temporary = tempfile::Builder::new()
            .prefix(".state-")
            .tempfile_in(&self.cache_dir)?;
        let mut out = BufWriter::with_capacity(64 << 10, temporary);
        out.write_all(&[0; HEADER_LEN as usize])?;
        if self.shared > HEADER_LEN {
            let mut old = File::open(self.cache_dir.join(STATE))?;
            old.seek(io::SeekFrom::Start(HEADER_LEN))?;
            let length = self.shared - HEADER_LEN;
            if io::copy(&mut old.take(length), &mut out)? != length {
                return Err(io::Error::other("the last state was cut short"));
            }
        }
        self.written = Some(out);
        Ok(())
    }

    /// Close the state with what the IDF index is made of. Returns whether
    /// the state changed; when it did not, the last run's stands.
    pub fn finish(mut self, index_inputs: &str) -> io::Result<bool> {
        let unchanged = self.written.is_none()
            && self.previous.whole()
            && self.previous.index_inputs.as_deref() == Some(index_inputs)
            && self.previous.entries == self.count;
        if unchanged {
            return Ok(false);
        }
        self.diverge()?;
        let mut out = self.written.take().expect("diverged");
        out.write_all(&0u32.to_le_bytes())?;
        self.buffer.clear();
        self.buffer = postcard::to_extend(index_inputs, std::mem::take(&mut self.buffer))
            .map_err(io::Error::other)?;
        out.write_all(&(self.buffer.len() as u32).to_le_bytes())?;
        out.write_all(&self.buffer)?;
        let mut temporary = out.into_inner().map_err(|e| e.into_error())?;
        let mut header = Vec::with_capacity(HEADER_LEN as usize);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT.to_le_bytes());
        header.extend_from_slice(&self.started_ns.to_le_bytes());
        header.extend_from_slice(&self.count.to_le_bytes());
        let file = temporary.as_file_mut();
        file.seek(io::SeekFrom::Start(0))?;
        file.write_all(&header)?;
        // Readable as the rest of the mirror is.
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
        temporary
            .persist(self.cache_dir.join(STATE))
            .map_err(|e| e.error)?;
        // The whole state in one JSON document, as earlier versions kept it.
        let _ = std::fs::remove_file(self.cache_dir.join("state.json"));
        Ok(true)
    }
}

/// The entries with an IDF descriptor of the state in `cache_dir`, in
/// order: what the index is made of.
pub fn indexed(cache_dir: &Path) -> impl Iterator<Item = (String, String)> {
    Previous::open(cache_dir)
        .into_entries()
        .filter_map(|(key, entry)| entry.idf.map(|idf| (key, idf)))
}

/// A short stable digest of `parts`, for setups and names.
pub fn digest<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> String {
    let mut digest = Digest::default();
    for part in parts {
        digest.add(part);
    }
    digest.finish()
}

/// [`digest`] made part by part.
#[derive(Default)]
pub struct Digest(sha2::Sha256);

impl Digest {
    pub fn add(&mut self, part: &[u8]) {
        use sha2::Digest as _;
        self.0.update((part.len() as u64).to_le_bytes());
        self.0.update(part);
    }

    pub fn finish(self) -> String {
        use sha2::Digest as _;
        pomp_core::source::hex(&self.0.finalize()[..16])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(ino: u64, mtime_ns: i128) -> Stat {
        Stat {
            dev: 1,
            ino,
            size: 3,
            mtime_ns,
            ctime_ns: mtime_ns,
            mode: 0o100644,
        }
    }

    fn entry(ino: u64) -> Entry {
        let mut verdict = Verdict::new(Kind::Source, Mirror::Instrumented);
        verdict.regions.insert("parallel".into(), 2);
        verdict.diagnostics.push(FileDiagnostic::file_error("odd"));
        Entry {
            source: stat(ino, 5),
            output: Output::File(stat(ino + 100, 6)),
            setup: "setup".into(),
            content: Some("c".into()),
            idf: Some(format!("{ino}.json")),
            verdict,
        }
    }

    fn write(dir: &Path, entries: &[(&str, Entry)], index_inputs: &str) -> bool {
        let mut cache = Cache::open(dir, SystemTime::now());
        for (key, entry) in entries {
            while cache.stale(Some(key)).unwrap().is_some() {}
            let before = cache.before(key);
            cache.record(key, entry, &before).unwrap();
        }
        while cache.stale(None).unwrap().is_some() {}
        cache.finish(index_inputs).unwrap()
    }

    fn read(dir: &Path) -> Vec<(String, Entry)> {
        let mut previous = Previous::open(dir);
        std::iter::from_fn(|| previous.take().map(|(k, e, _)| (k, e))).collect()
    }

    #[test]
    fn recent_files_are_racy_older_ones_are_not() {
        let started = nanoseconds(SystemTime::now());
        assert!(racy(started, &stat(1, started)));
        assert!(racy(started, &stat(1, started - 1_000_000_000)));
        assert!(!racy(started, &stat(1, started - 3_000_000_000)));
    }

    #[test]
    fn a_state_is_read_back_as_written_and_kept_while_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let entries = [("a", entry(1)), ("a/b", entry(2)), ("a-b", entry(3))];
        assert!(write(dir.path(), &entries, "inputs"));
        let read_back = read(dir.path());
        assert_eq!(read_back.len(), 3);
        for ((key, entry), (read_key, read_entry)) in entries.iter().zip(&read_back) {
            assert_eq!((*key, entry), (read_key.as_str(), read_entry));
        }
        assert_eq!(Previous::open(dir.path()).len(), 3);
        let state = dir.path().join(STATE);
        let written = std::fs::metadata(&state).unwrap().modified().unwrap();

        assert!(!write(dir.path(), &entries, "inputs"));
        assert_eq!(
            std::fs::metadata(&state).unwrap().modified().unwrap(),
            written
        );
        assert!(write(dir.path(), &entries, "other inputs"));
        assert_eq!(read(dir.path()).len(), 3);

        // A changed entry after shared ones, a deleted one, a new one.
        let changed = [("a", entry(1)), ("a/b", entry(7)), ("b", entry(4))];
        assert!(write(dir.path(), &changed, "other inputs"));
        let read_back = read(dir.path());
        assert_eq!(
            read_back
                .iter()
                .map(|(k, _)| k.as_str())
                .collect::<Vec<_>>(),
            ["a", "a/b", "b"]
        );
        assert_eq!(read_back[1].1, entry(7));
        assert_eq!(
            indexed(dir.path()).map(|(_, idf)| idf).collect::<Vec<_>>(),
            ["1.json", "7.json", "4.json"]
        );
    }

    #[test]
    fn a_state_of_another_format_or_cut_short_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write(dir.path(), &[("a", entry(1)), ("b", entry(2))], "x"));
        let path = dir.path().join(STATE);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(!Previous::open(dir.path()).whole());
        // Kept entries were read, but the cut stream is not kept.
        assert!(write(dir.path(), &[("a", entry(1)), ("b", entry(2))], "x"));
        assert!(!write(dir.path(), &[("a", entry(1)), ("b", entry(2))], "x"));
        let mut other = std::fs::read(&path).unwrap();
        other[8] = 0;
        std::fs::write(&path, other).unwrap();
        assert_eq!(Previous::open(dir.path()).len(), 0);
        assert!(read(dir.path()).is_empty());
    }

    #[test]
    fn digests_separate_their_parts() {
        assert_ne!(digest([&b"ab"[..], b"c"]), digest([&b"a"[..], b"bc"]));
        assert_eq!(digest([&b"ab"[..]]).len(), 32);
    }
}
