//! The event trace pomp's runtime writes with `POMP_TRACE=1`
//! (`pomp-trace.<pid>.ptrace`): one span per timed visit of a region, in
//! a compact binary form each thread writes in chunks as its bounded buffer
//! fills. `pomp report` turns it into Chrome trace JSON ([`crate::chrome`]),
//! OTF2 and the HTML page's timeline.
//!
//! The file: [`MAGIC`], the version (`u32`, little-endian), then chunks,
//! each a tag byte. A chunk of spans ([`SPANS`]) holds the thread's number,
//! its span count and its length in bytes (`u32` each) and the spans,
//! which need nothing from another chunk; the last chunk ([`FOOTER`]) is a
//! JSON [`Footer`] with its length (`u32`) before it: the run, the clock's
//! rate, the regions. A file without it was not finished.
//!
//! A span: one byte with the kind's code ([`Kind::code`]), and flags for a
//! parallel region's forking thread and for a task other than the
//! previous span's; then LEB128 varints: the start as the zigzag difference
//! to the previous span's start (spans are written as they close, so
//! starts go back and forth), the duration, the region and, when flagged,
//! the task as the zigzag difference to the previous span's task. Times
//! are the runtime's clock ticks; the footer converts them.

use crate::profile::{Kind, Region, RegionId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const MAGIC: &[u8; 8] = b"POMPTRC\0";
pub const VERSION: u32 = 1;
/// The extension of trace files.
pub const EXTENSION: &str = "ptrace";
/// The value of [`Footer::format`].
pub const FORMAT: &str = "pomp-trace";

/// The tag of a chunk of spans.
pub const SPANS: u8 = 1;
/// The tag of the footer.
pub const FOOTER: u8 = 2;

const FORKED: u8 = 0x40;
const NEW_TASK: u8 = 0x80;
const KIND_BITS: u8 = 0x3f;
/// Tag, thread, count, length.
const CHUNK_HEADER: usize = 13;
/// The longest span: its byte and four varints of at most 10 bytes.
pub const MAX_SPAN_BYTES: usize = 41;

/// One timed visit of a region on a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Start and duration: clock ticks in the file, nanoseconds since the
    /// runtime started once read.
    pub start: u64,
    pub duration: u64,
    /// 0 for events without a region (lock routines).
    pub region: RegionId,
    pub kind: Kind,
    /// The task the thread executed: for a task instance the instance, for
    /// a task's creation the task created.
    pub task: i64,
    /// A parallel region's span on the thread that forked it.
    pub forked: bool,
}

/// The run a trace comes from, written when it ends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Always [`FORMAT`].
    pub format: String,
    pub producer: String,
    pub pid: u32,
    pub rank: Option<String>,
    /// The clock's reading when the runtime started, and its nanoseconds
    /// per tick over the run.
    pub origin_ticks: u64,
    pub ns_per_tick: f64,
    pub wall_ns: u64,
    /// Spans stored, and left out once `trace_limit` was reached.
    pub events: u64,
    pub dropped_events: u64,
    pub trace_limit: u64,
    /// The size of each thread's buffer, in bytes.
    pub buffer_bytes: u64,
    /// Every thread that recorded events, by its number in the profile.
    pub threads: Vec<u32>,
    /// The profile's regions, region `id` at index `id - 1`.
    pub regions: Vec<Region>,
}

/// Encodes one thread's spans into chunks of at most `capacity` bytes.
pub struct ChunkWriter {
    bytes: Vec<u8>,
    capacity: usize,
    count: u32,
    previous_start: u64,
    previous_task: i64,
}

impl ChunkWriter {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(CHUNK_HEADER + MAX_SPAN_BYTES);
        let mut writer = ChunkWriter {
            bytes: Vec::with_capacity(capacity),
            capacity,
            count: 0,
            previous_start: 0,
            previous_task: 0,
        };
        writer.start_chunk();
        writer
    }

    fn start_chunk(&mut self) {
        self.bytes.clear();
        self.bytes.resize(CHUNK_HEADER, 0);
        self.count = 0;
        self.previous_start = 0;
        self.previous_task = 0;
    }

    /// Whether another span may not fit.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.bytes.len() + MAX_SPAN_BYTES > self.capacity
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Appends a span; the caller takes the chunk once [`Self::is_full`].
    #[inline]
    pub fn push(&mut self, span: &Span) {
        let new_task = span.task != self.previous_task;
        let mut head = span.kind.code() & KIND_BITS;
        if span.forked {
            head |= FORKED;
        }
        if new_task {
            head |= NEW_TASK;
        }
        self.bytes.push(head);
        put_varint(
            &mut self.bytes,
            zigzag(span.start.wrapping_sub(self.previous_start) as i64),
        );
        put_varint(&mut self.bytes, span.duration);
        put_varint(&mut self.bytes, span.region as u64);
        if new_task {
            put_varint(
                &mut self.bytes,
                zigzag(span.task.wrapping_sub(self.previous_task)),
            );
            self.previous_task = span.task;
        }
        self.previous_start = span.start;
        self.count += 1;
    }

    /// The chunk of thread `thread` as it goes into the file; then
    /// [`Self::clear`] starts the next one.
    pub fn chunk(&mut self, thread: u32) -> &[u8] {
        let length = (self.bytes.len() - CHUNK_HEADER) as u32;
        self.bytes[0] = SPANS;
        self.bytes[1..5].copy_from_slice(&thread.to_le_bytes());
        self.bytes[5..9].copy_from_slice(&self.count.to_le_bytes());
        self.bytes[9..13].copy_from_slice(&length.to_le_bytes());
        &self.bytes
    }

    /// Starts the next chunk.
    pub fn clear(&mut self) {
        self.start_chunk();
    }
}

/// The file's first bytes.
pub fn header() -> [u8; 12] {
    let mut bytes = [0; 12];
    bytes[..8].copy_from_slice(MAGIC);
    bytes[8..].copy_from_slice(&VERSION.to_le_bytes());
    bytes
}

/// The footer chunk that ends the file.
pub fn footer_chunk(footer: &Footer) -> Vec<u8> {
    let json = serde_json::to_vec(footer).expect("a footer serializes");
    let mut bytes = Vec::with_capacity(json.len() + 5);
    bytes.push(FOOTER);
    bytes.extend_from_slice(&(json.len() as u32).to_le_bytes());
    bytes.extend_from_slice(&json);
    bytes
}

#[inline]
fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

#[inline]
fn put_varint(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

/// Why a file could not be read as a trace.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a pomp trace{}", path.display(), is.map_or(String::new(),
        |kind| format!(": it is a {}; {}", kind.name(), kind.read_by())))]
    Foreign {
        path: PathBuf,
        /// What the file is, when it is something pomp knows.
        is: Option<crate::document::Kind>,
    },
    #[error("{} is a pomp trace of version {found}; this build reads version {VERSION}", path.display())]
    UnsupportedVersion { path: PathBuf, found: u32 },
    #[error("{} is truncated (it has no footer): was the program stopped before it finished?", path.display())]
    Truncated { path: PathBuf },
    #[error("{} is a damaged pomp trace: {what}", path.display())]
    Damaged { path: PathBuf, what: String },
}

/// A trace as read: its footer and each thread's spans in nanoseconds, in
/// the order they closed.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub footer: Footer,
    pub threads: BTreeMap<u32, Vec<Span>>,
}

impl Trace {
    /// Spans stored, over all threads.
    pub fn span_count(&self) -> usize {
        self.threads.values().map(Vec::len).sum()
    }

    /// The region a span names.
    pub fn region(&self, id: RegionId) -> Option<&Region> {
        (id as usize)
            .checked_sub(1)
            .and_then(|index| self.footer.regions.get(index))
    }
}

/// Whether `bytes` begin like a trace.
pub fn is_trace(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Whether the file at `path` is a trace (by its first bytes).
pub fn is_trace_file(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0; 8];
    std::fs::File::open(path)
        .and_then(|mut file| file.read_exact(&mut magic))
        .is_ok_and(|()| is_trace(&magic))
}

/// Reads a trace written by pomp's runtime.
pub fn read(path: impl AsRef<Path>) -> Result<Trace, Error> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    from_slice(&bytes, path)
}

/// Reads a trace from its bytes; `path` names it in errors.
pub fn from_slice(bytes: &[u8], path: &Path) -> Result<Trace, Error> {
    let damaged = |what: &str| Error::Damaged {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    if !is_trace(bytes) {
        return Err(Error::Foreign {
            path: path.to_path_buf(),
            is: crate::document::Kind::of(bytes),
        });
    }
    let version = u32_at(bytes, 8).ok_or_else(|| Error::Truncated {
        path: path.to_path_buf(),
    })?;
    if version != VERSION {
        return Err(Error::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let mut chunks: Vec<(u32, &[u8], u32)> = Vec::new();
    let mut footer = None;
    let mut at = 12;
    while at < bytes.len() {
        match bytes[at] {
            SPANS => {
                let (Some(thread), Some(count), Some(length)) = (
                    u32_at(bytes, at + 1),
                    u32_at(bytes, at + 5),
                    u32_at(bytes, at + 9),
                ) else {
                    break;
                };
                let body = at + CHUNK_HEADER;
                let Some(spans) = bytes.get(body..body + length as usize) else {
                    break;
                };
                chunks.push((thread, spans, count));
                at = body + length as usize;
            }
            FOOTER => {
                let Some(length) = u32_at(bytes, at + 1) else {
                    break;
                };
                let Some(json) = bytes.get(at + 5..at + 5 + length as usize) else {
                    break;
                };
                let read: Footer = serde_json::from_slice(json)
                    .map_err(|e| damaged(&format!("its footer: {e}")))?;
                footer = Some(read);
                at += 5 + length as usize;
            }
            other => return Err(damaged(&format!("a chunk of unknown kind {other}"))),
        }
    }
    let footer = footer.ok_or_else(|| Error::Truncated {
        path: path.to_path_buf(),
    })?;
    let mut threads: BTreeMap<u32, Vec<Span>> = BTreeMap::new();
    for thread in &footer.threads {
        threads.entry(*thread).or_default();
    }
    for (thread, body, count) in chunks {
        let spans = threads.entry(thread).or_default();
        decode_chunk(body, count, &footer, spans).map_err(|what| damaged(&what))?;
    }
    Ok(Trace { footer, threads })
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
}

fn decode_chunk(
    body: &[u8],
    count: u32,
    footer: &Footer,
    spans: &mut Vec<Span>,
) -> Result<(), String> {
    let mut at = 0;
    let varint = |at: &mut usize| -> Result<u64, String> {
        let mut value = 0u64;
        let mut shift = 0;
        loop {
            let byte = *body.get(*at).ok_or("a span cut short")?;
            *at += 1;
            value |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
            if shift > 63 {
                return Err("a number of more than 64 bits".into());
            }
        }
    };
    let ns = |ticks: u64| (ticks as f64 * footer.ns_per_tick) as u64;
    let (mut start, mut task) = (0u64, 0i64);
    spans.reserve(count as usize);
    for _ in 0..count {
        let head = *body.get(at).ok_or("a span cut short")?;
        at += 1;
        let kind = Kind::from_code(head & KIND_BITS)
            .ok_or_else(|| format!("unknown kind {}", head & KIND_BITS))?;
        start = start.wrapping_add(unzigzag(varint(&mut at)?) as u64);
        let duration = varint(&mut at)?;
        let region = varint(&mut at)? as RegionId;
        if head & NEW_TASK != 0 {
            task = task.wrapping_add(unzigzag(varint(&mut at)?));
        }
        spans.push(Span {
            start: ns(start.saturating_sub(footer.origin_ticks)),
            duration: ns(duration),
            region,
            kind,
            task,
            forked: head & FORKED != 0,
        });
    }
    if at != body.len() {
        return Err("a chunk longer than its spans".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn footer(threads: Vec<u32>) -> Footer {
        Footer {
            format: FORMAT.into(),
            producer: "test".into(),
            pid: 7,
            rank: None,
            origin_ticks: 1000,
            ns_per_tick: 0.5,
            wall_ns: 0,
            events: 0,
            dropped_events: 0,
            trace_limit: 10,
            buffer_bytes: 64,
            threads,
            regions: Vec::new(),
        }
    }

    #[test]
    fn spans_read_back_as_written_across_chunks() {
        let spans: Vec<Span> = (0..500u64)
            .map(|i| Span {
                start: 1000 + i * 37 + (i % 3) * 1_000_000,
                duration: i * i,
                region: (i % 7) as RegionId,
                kind: Kind::ALL[(i % 37) as usize],
                task: if i % 5 == 0 {
                    (2 << 40) | i as i64
                } else {
                    1 << 40
                },
                forked: i % 11 == 0,
            })
            .collect();
        let mut file = header().to_vec();
        let mut writer = ChunkWriter::new(256);
        let mut chunks = 0;
        for span in &spans {
            writer.push(span);
            if writer.is_full() {
                file.extend_from_slice(writer.chunk(3));
                writer.clear();
                chunks += 1;
            }
        }
        file.extend_from_slice(writer.chunk(3));
        file.extend_from_slice(&footer_chunk(&footer(vec![3, 4])));
        assert!(chunks > 10, "the spans took {chunks} chunks");
        let trace = from_slice(&file, Path::new("t.ptrace")).unwrap();
        assert_eq!(trace.threads[&4], []);
        let read = &trace.threads[&3];
        assert_eq!(read.len(), spans.len());
        for (read, written) in read.iter().zip(&spans) {
            let ns = |ticks: u64| (ticks as f64 * 0.5) as u64;
            assert_eq!(read.start, ns(written.start - 1000));
            assert_eq!(read.duration, ns(written.duration));
            assert_eq!(
                (read.region, read.kind, read.task, read.forked),
                (written.region, written.kind, written.task, written.forked)
            );
        }
    }

    #[test]
    fn unfinished_foreign_and_damaged_files_are_told_apart() {
        let path = Path::new("t.ptrace");
        let mut file = header().to_vec();
        let mut writer = ChunkWriter::new(128);
        writer.push(&Span {
            start: 5,
            duration: 1,
            region: 1,
            kind: Kind::Task,
            task: 9,
            forked: false,
        });
        file.extend_from_slice(writer.chunk(0));
        assert!(matches!(
            from_slice(&file, path),
            Err(Error::Truncated { .. })
        ));
        assert!(matches!(
            from_slice(b"{\"a\":1}", path),
            Err(Error::Foreign { .. })
        ));
        let mut newer = file.clone();
        newer[8] = 9;
        assert!(matches!(
            from_slice(&newer, path),
            Err(Error::UnsupportedVersion { found: 9, .. })
        ));
        let mut damaged = file.clone();
        damaged[12 + 9] += 1;
        damaged.push(0);
        damaged.extend_from_slice(&footer_chunk(&footer(vec![0])));
        assert!(matches!(
            from_slice(&damaged, path),
            Err(Error::Damaged { .. })
        ));
        file.extend_from_slice(&footer_chunk(&footer(vec![0])));
        assert_eq!(from_slice(&file, path).unwrap().span_count(), 1);
    }
}
