//! The event trace pomp's runtime writes with `POMP_TRACE=1`, one per
//! process (`trace.<rank>.ptrace` in the run's experiment, see
//! [`crate::experiment`]): one span per timed visit of a region, and with
//! MPI a record of every message and collective, in a compact binary
//! form each thread writes in chunks as its bounded buffers fill. `pomp
//! report` turns it into Chrome trace JSON ([`crate::chrome`]), OTF2 and
//! the HTML page's timeline.
//!
//! The file: [`MAGIC`], the version (`u32`, little-endian), then chunks,
//! each a tag byte. A chunk of spans ([`SPANS`]) or of MPI records
//! ([`MPI_RECORDS`]) holds the thread's number, its span (record) count
//! and its length in bytes (`u32` each) and the spans (records), which
//! need nothing from another chunk; the last chunk ([`FOOTER`]) is a JSON
//! [`Footer`] with its length (`u32`) before it: the run, the clock's
//! rate, the regions, the communicators. A file without it was not
//! finished. [`read_footer`] reads the footer alone, stepping over the
//! chunks before it.
//!
//! A span: one byte with the kind's code ([`Kind::code`]), and flags for a
//! parallel region's forking thread and for a task other than the
//! previous span's; then LEB128 varints: the start as the zigzag difference
//! to the previous span's start (spans are written as they close, so
//! starts go back and forth), the duration, the region and, when flagged,
//! the task as the zigzag difference to the previous span's task. Times
//! are the runtime's clock ticks; the footer converts them.
//!
//! An MPI record: one byte with its [`MpiRecord::code`], the time as the
//! zigzag difference to the previous record's (records are written as
//! they happen, in order), then its fields as LEB128 varints in the order
//! the record declares them (a collective's root as root + 1, 0 for
//! none). A span's record is written while its span is open: a message
//! sent or received lies inside the span of the MPI call that did it.

pub use crate::identity::{is_trace, TRACE_FORMAT as FORMAT, TRACE_MAGIC as MAGIC};
use crate::mpi::{CollectiveOp, CommId, Communicator};
use crate::profile::{Kind, Region, RegionId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The version this crate writes; version 2 added MPI records and the
/// footer's experiment, host, clock and communicators.
pub const VERSION: u32 = 2;
/// The versions this crate reads.
pub const READS: [u32; 2] = [1, 2];
/// The extension of trace files.
pub const EXTENSION: &str = "ptrace";

/// The tag of a chunk of spans.
pub const SPANS: u8 = 1;
/// The tag of the footer.
pub const FOOTER: u8 = 2;
/// The tag of a chunk of MPI records.
pub const MPI_RECORDS: u8 = 3;

const FORKED: u8 = 0x40;
const NEW_TASK: u8 = 0x80;
const KIND_BITS: u8 = 0x3f;
/// Tag, thread, count, length.
const CHUNK_HEADER: usize = 13;
/// The longest span: its byte and four varints of at most 10 bytes.
pub const MAX_SPAN_BYTES: usize = 41;
/// The longest MPI record: its byte and six varints.
pub const MAX_RECORD_BYTES: usize = 61;

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
    /// The run's experiment, as the profile names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experiment: Option<String>,
    /// How many ranks the run had, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Where this process's times are on the run's common time line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<crate::clock::ClockSync>,
    /// MPI records stored, and left out once `trace_limit` was reached
    /// (spans and records share it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub mpi_records: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dropped_mpi_records: u64,
    /// The communicators this process named (made as their rank 0): a
    /// communicator's definition is in the trace of that rank.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub communicators: Vec<Communicator>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A message of a point-to-point record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub communicator: CommId,
    /// The other side, as its rank in `communicator`: the destination of a
    /// send, the source of a receive.
    pub peer: u32,
    pub tag: u32,
    pub bytes: u64,
}

/// A collective operation, as it ended on this rank.
///
/// Its bytes are the data the operation moves between this rank and the
/// others, as its definition moves it (not as the MPI library's algorithm
/// routes it), for `n` ranks, this one `me`, sizes being counts times
/// their datatype's size: a barrier none; a broadcast `(n-1) * size` sent
/// by the root and `size` received by each other rank; gather, scatter
/// and their `v` forms each rank's part sent to or received from the
/// root, and the root the others' parts; all-gather and all-to-all (and
/// their `v` forms) the parts for and from the `n-1` others; a reduction
/// `size` sent by each other rank and `(n-1) * size` received by the
/// root; an all-reduce `(n-1) * size` each way; reduce-scatter the blocks
/// of the others sent and `n-1` blocks of its own received; scan and
/// exscan `(n-1-me) * size` sent and `me * size` received. `MPI_IN_PLACE`
/// moves the same data between ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Collective {
    pub operation: CollectiveOp,
    pub communicator: CommId,
    /// Its root, as a rank of `communicator`, for operations with one.
    pub root: Option<u32>,
    /// Bytes this rank gave to the other ranks and took from them.
    pub sent: u64,
    pub received: u64,
}

/// What happened, as OTF2's MPI events name it. Requests are numbered by
/// the process, from 1, in the order they started.
///
/// A record lies inside the span of the MPI call it happened in. What
/// begins something (a send, a non-blocking send, a collective's begin)
/// is timed at the start of that call, before MPI moved anything; what
/// ends something (a receive, a completion, a test, a collective's end)
/// at its end, after MPI returned: so a message's receive never seems to
/// end before its send began on one clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MpiRecord {
    /// A blocking send began (at the start of its call).
    Send(Message),
    /// A non-blocking send began.
    Isend { message: Message, request: u64 },
    /// A non-blocking send's request completed (in a wait or test).
    IsendComplete { request: u64 },
    /// A non-blocking receive was posted.
    IrecvRequest { request: u64 },
    /// A blocking receive completed (at the end of its call), with the
    /// source, tag and size it received.
    Recv(Message),
    /// A non-blocking receive completed, with what it received.
    Irecv { message: Message, request: u64 },
    /// A test found a request not complete.
    RequestTest { request: u64 },
    /// A request was cancelled, or freed before it completed.
    RequestCancelled { request: u64 },
    /// A collective operation began (at the start of its call).
    CollectiveBegin,
    /// It ended (at the end of its call).
    CollectiveEnd(Collective),
}

impl MpiRecord {
    /// Its number in the file.
    pub fn code(&self) -> u8 {
        match self {
            MpiRecord::Send(_) => 1,
            MpiRecord::Isend { .. } => 2,
            MpiRecord::IsendComplete { .. } => 3,
            MpiRecord::IrecvRequest { .. } => 4,
            MpiRecord::Recv(_) => 5,
            MpiRecord::Irecv { .. } => 6,
            MpiRecord::RequestTest { .. } => 7,
            MpiRecord::RequestCancelled { .. } => 8,
            MpiRecord::CollectiveBegin => 9,
            MpiRecord::CollectiveEnd(_) => 10,
        }
    }
}

/// An MPI record at its time: clock ticks in the file, nanoseconds since
/// the runtime started once read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MpiEvent {
    pub time: u64,
    pub record: MpiRecord,
}

/// A chunk's bytes as they are made: its header, filled in when it is
/// taken, and its items.
struct ChunkBytes {
    bytes: Vec<u8>,
    capacity: usize,
    count: u32,
}

impl ChunkBytes {
    fn new(capacity: usize, item_bytes: usize) -> Self {
        let capacity = capacity.max(CHUNK_HEADER + item_bytes);
        let mut chunk = ChunkBytes {
            bytes: Vec::with_capacity(capacity),
            capacity,
            count: 0,
        };
        chunk.clear();
        chunk
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.bytes.resize(CHUNK_HEADER, 0);
        self.count = 0;
    }

    #[inline]
    fn is_full(&self, item_bytes: usize) -> bool {
        self.bytes.len() + item_bytes > self.capacity
    }

    fn take(&mut self, tag: u8, thread: u32) -> &[u8] {
        let length = (self.bytes.len() - CHUNK_HEADER) as u32;
        self.bytes[0] = tag;
        self.bytes[1..5].copy_from_slice(&thread.to_le_bytes());
        self.bytes[5..9].copy_from_slice(&self.count.to_le_bytes());
        self.bytes[9..13].copy_from_slice(&length.to_le_bytes());
        &self.bytes
    }
}

/// Encodes one thread's spans into chunks of at most `capacity` bytes.
pub struct ChunkWriter {
    chunk: ChunkBytes,
    previous_start: u64,
    previous_task: i64,
}

impl ChunkWriter {
    pub fn new(capacity: usize) -> Self {
        ChunkWriter {
            chunk: ChunkBytes::new(capacity, MAX_SPAN_BYTES),
            previous_start: 0,
            previous_task: 0,
        }
    }

    /// Whether another span may not fit.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.chunk.is_full(MAX_SPAN_BYTES)
    }

    pub fn is_empty(&self) -> bool {
        self.chunk.count == 0
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
        let bytes = &mut self.chunk.bytes;
        bytes.push(head);
        put_varint(
            bytes,
            zigzag(span.start.wrapping_sub(self.previous_start) as i64),
        );
        put_varint(bytes, span.duration);
        put_varint(bytes, span.region as u64);
        if new_task {
            put_varint(bytes, zigzag(span.task.wrapping_sub(self.previous_task)));
            self.previous_task = span.task;
        }
        self.previous_start = span.start;
        self.chunk.count += 1;
    }

    /// The chunk of thread `thread` as it goes into the file; then
    /// [`Self::clear`] starts the next one.
    pub fn chunk(&mut self, thread: u32) -> &[u8] {
        self.chunk.take(SPANS, thread)
    }

    /// Starts the next chunk.
    pub fn clear(&mut self) {
        self.chunk.clear();
        self.previous_start = 0;
        self.previous_task = 0;
    }
}

/// Encodes one thread's MPI records into chunks of at most `capacity`
/// bytes.
pub struct MpiChunkWriter {
    chunk: ChunkBytes,
    previous_time: u64,
}

impl MpiChunkWriter {
    pub fn new(capacity: usize) -> Self {
        MpiChunkWriter {
            chunk: ChunkBytes::new(capacity, MAX_RECORD_BYTES),
            previous_time: 0,
        }
    }

    /// Whether another record may not fit.
    #[inline]
    pub fn is_full(&self) -> bool {
        self.chunk.is_full(MAX_RECORD_BYTES)
    }

    pub fn is_empty(&self) -> bool {
        self.chunk.count == 0
    }

    /// Appends a record of time `time` (clock ticks); the caller takes the
    /// chunk once [`Self::is_full`].
    pub fn push(&mut self, event: &MpiEvent) {
        let bytes = &mut self.chunk.bytes;
        bytes.push(event.record.code());
        put_varint(
            bytes,
            zigzag(event.time.wrapping_sub(self.previous_time) as i64),
        );
        self.previous_time = event.time;
        let message = |bytes: &mut Vec<u8>, message: &Message| {
            put_varint(bytes, message.communicator.0);
            put_varint(bytes, message.peer as u64);
            put_varint(bytes, message.tag as u64);
            put_varint(bytes, message.bytes);
        };
        match &event.record {
            MpiRecord::Send(m) | MpiRecord::Recv(m) => message(bytes, m),
            MpiRecord::Isend {
                message: m,
                request,
            }
            | MpiRecord::Irecv {
                message: m,
                request,
            } => {
                message(bytes, m);
                put_varint(bytes, *request);
            }
            MpiRecord::IsendComplete { request }
            | MpiRecord::IrecvRequest { request }
            | MpiRecord::RequestTest { request }
            | MpiRecord::RequestCancelled { request } => put_varint(bytes, *request),
            MpiRecord::CollectiveBegin => {}
            MpiRecord::CollectiveEnd(c) => {
                put_varint(bytes, c.operation.code() as u64);
                put_varint(bytes, c.communicator.0);
                put_varint(bytes, c.root.map_or(0, |root| root as u64 + 1));
                put_varint(bytes, c.sent);
                put_varint(bytes, c.received);
            }
        }
        self.chunk.count += 1;
    }

    /// The chunk of thread `thread` as it goes into the file; then
    /// [`Self::clear`] starts the next one.
    pub fn chunk(&mut self, thread: u32) -> &[u8] {
        self.chunk.take(MPI_RECORDS, thread)
    }

    /// Starts the next chunk.
    pub fn clear(&mut self) {
        self.chunk.clear();
        self.previous_time = 0;
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
    #[error("{} is a pomp trace of version {found}; this build reads versions 1 and 2", path.display())]
    UnsupportedVersion { path: PathBuf, found: u32 },
    #[error("{} is truncated (it has no footer): was the program stopped before it finished?", path.display())]
    Truncated { path: PathBuf },
    #[error("{} is a damaged pomp trace: {what}", path.display())]
    Damaged { path: PathBuf, what: String },
}

/// A trace as read: its footer, each thread's spans in nanoseconds, in
/// the order they closed, and each thread's MPI records, in the order
/// they happened (threads without any have no entry).
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub footer: Footer,
    pub threads: BTreeMap<u32, Vec<Span>>,
    pub mpi: BTreeMap<u32, Vec<MpiEvent>>,
}

impl Trace {
    /// Spans stored, over all threads.
    pub fn span_count(&self) -> usize {
        self.threads.values().map(Vec::len).sum()
    }

    /// MPI records stored, over all threads.
    pub fn mpi_record_count(&self) -> usize {
        self.mpi.values().map(Vec::len).sum()
    }

    /// The region a span names.
    pub fn region(&self, id: RegionId) -> Option<&Region> {
        (id as usize)
            .checked_sub(1)
            .and_then(|index| self.footer.regions.get(index))
    }
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
    if !READS.contains(&version) {
        return Err(Error::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let mut chunks: Vec<(u8, u32, &[u8], u32)> = Vec::new();
    let mut footer = None;
    let mut at = 12;
    while at < bytes.len() {
        match bytes[at] {
            tag @ (SPANS | MPI_RECORDS) => {
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
                chunks.push((tag, thread, spans, count));
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
    let mut mpi: BTreeMap<u32, Vec<MpiEvent>> = BTreeMap::new();
    for thread in &footer.threads {
        threads.entry(*thread).or_default();
    }
    for (tag, thread, body, count) in chunks {
        let decoded = if tag == SPANS {
            decode_chunk(body, count, &footer, threads.entry(thread).or_default())
        } else {
            decode_mpi_chunk(body, count, &footer, mpi.entry(thread).or_default())
        };
        decoded.map_err(|what| damaged(&what))?;
    }
    Ok(Trace {
        footer,
        threads,
        mpi,
    })
}

/// Reads only the footer of the trace at `path`, stepping over the chunks
/// before it without reading them: what a reader of many traces needs
/// first (the run, the clock, the communicators).
pub fn read_footer(path: impl AsRef<Path>) -> Result<Footer, Error> {
    use std::io::{Read, Seek, SeekFrom};
    let path = path.as_ref();
    let unreadable = |source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let truncated = || Error::Truncated {
        path: path.to_path_buf(),
    };
    let mut file = std::io::BufReader::new(std::fs::File::open(path).map_err(unreadable)?);
    let mut head = Vec::with_capacity(12);
    (&mut file)
        .take(12)
        .read_to_end(&mut head)
        .map_err(unreadable)?;
    if !is_trace(&head) {
        // Whatever it is, the whole of it says what.
        file.read_to_end(&mut head).map_err(unreadable)?;
        return Err(Error::Foreign {
            path: path.to_path_buf(),
            is: crate::document::Kind::of(&head),
        });
    }
    if head.len() < 12 {
        return Err(truncated());
    }
    let version = u32::from_le_bytes(head[8..12].try_into().unwrap());
    if !READS.contains(&version) {
        return Err(Error::UnsupportedVersion {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let mut footer = None;
    loop {
        let mut tag = [0u8; 1];
        match file.read(&mut tag) {
            Ok(0) => break,
            Ok(_) => {}
            Err(error) => return Err(unreadable(error)),
        }
        match tag[0] {
            SPANS | MPI_RECORDS => {
                let mut header = [0u8; CHUNK_HEADER - 1];
                if file.read_exact(&mut header).is_err() {
                    break;
                }
                let length = u32::from_le_bytes(header[8..12].try_into().unwrap());
                file.seek(SeekFrom::Current(length as i64))
                    .map_err(unreadable)?;
            }
            FOOTER => {
                let mut length = [0u8; 4];
                if file.read_exact(&mut length).is_err() {
                    break;
                }
                let mut json = vec![0u8; u32::from_le_bytes(length) as usize];
                if file.read_exact(&mut json).is_err() {
                    break;
                }
                footer = Some(serde_json::from_slice(&json).map_err(|e| Error::Damaged {
                    path: path.to_path_buf(),
                    what: format!("its footer: {e}"),
                })?);
            }
            other => {
                return Err(Error::Damaged {
                    path: path.to_path_buf(),
                    what: format!("a chunk of unknown kind {other}"),
                })
            }
        }
    }
    footer.ok_or_else(truncated)
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
}

/// The LEB128 varint of `body` at `*at`, which it moves past it.
fn varint(body: &[u8], at: &mut usize) -> Result<u64, String> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *body.get(*at).ok_or("an item cut short")?;
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
}

fn decode_mpi_chunk(
    body: &[u8],
    count: u32,
    footer: &Footer,
    events: &mut Vec<MpiEvent>,
) -> Result<(), String> {
    let mut at = 0;
    let mut time = 0u64;
    let narrow = |value: u64, what: &str| -> Result<u32, String> {
        u32::try_from(value).map_err(|_| format!("{what} {value} out of range"))
    };
    let message = |at: &mut usize| -> Result<Message, String> {
        Ok(Message {
            communicator: CommId(varint(body, at)?),
            peer: narrow(varint(body, at)?, "a peer")?,
            tag: narrow(varint(body, at)?, "a tag")?,
            bytes: varint(body, at)?,
        })
    };
    events.reserve(count as usize);
    for _ in 0..count {
        let code = *body.get(at).ok_or("a record cut short")?;
        at += 1;
        time = time.wrapping_add(unzigzag(varint(body, &mut at)?) as u64);
        let record = match code {
            1 => MpiRecord::Send(message(&mut at)?),
            2 => MpiRecord::Isend {
                message: message(&mut at)?,
                request: varint(body, &mut at)?,
            },
            3 => MpiRecord::IsendComplete {
                request: varint(body, &mut at)?,
            },
            4 => MpiRecord::IrecvRequest {
                request: varint(body, &mut at)?,
            },
            5 => MpiRecord::Recv(message(&mut at)?),
            6 => MpiRecord::Irecv {
                message: message(&mut at)?,
                request: varint(body, &mut at)?,
            },
            7 => MpiRecord::RequestTest {
                request: varint(body, &mut at)?,
            },
            8 => MpiRecord::RequestCancelled {
                request: varint(body, &mut at)?,
            },
            9 => MpiRecord::CollectiveBegin,
            10 => {
                let operation = varint(body, &mut at)?;
                let operation = u8::try_from(operation)
                    .ok()
                    .and_then(CollectiveOp::from_code)
                    .ok_or_else(|| format!("unknown collective operation {operation}"))?;
                let communicator = CommId(varint(body, &mut at)?);
                let root = match varint(body, &mut at)? {
                    0 => None,
                    root => Some(narrow(root - 1, "a root")?),
                };
                MpiRecord::CollectiveEnd(Collective {
                    operation,
                    communicator,
                    root,
                    sent: varint(body, &mut at)?,
                    received: varint(body, &mut at)?,
                })
            }
            other => return Err(format!("an MPI record of unknown kind {other}")),
        };
        events.push(MpiEvent {
            time: footer.ns_since_origin(time),
            record,
        });
    }
    if at != body.len() {
        return Err("a chunk longer than its records".into());
    }
    Ok(())
}

impl Footer {
    /// A time of the file (clock ticks) as nanoseconds since the runtime
    /// started.
    pub fn ns_since_origin(&self, ticks: u64) -> u64 {
        (ticks.saturating_sub(self.origin_ticks) as f64 * self.ns_per_tick) as u64
    }
}

fn decode_chunk(
    body: &[u8],
    count: u32,
    footer: &Footer,
    spans: &mut Vec<Span>,
) -> Result<(), String> {
    let mut at = 0;
    let varint = |at: &mut usize| varint(body, at);
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
            start: footer.ns_since_origin(start),
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
            experiment: None,
            ranks: None,
            host: None,
            clock: None,
            mpi_records: 0,
            dropped_mpi_records: 0,
            communicators: Vec::new(),
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
        // A trace of the first version (spans only) reads as it did.
        let mut first = file.clone();
        first[8] = 1;
        assert_eq!(from_slice(&first, path).unwrap().span_count(), 1);
    }

    fn mpi_events() -> Vec<MpiEvent> {
        let message = |peer: u32, bytes: u64| Message {
            communicator: CommId::made(2, 1),
            peer,
            tag: 77,
            bytes,
        };
        let records = [
            MpiRecord::Send(message(1, 8)),
            MpiRecord::Isend {
                message: message(3, 1 << 40),
                request: 1,
            },
            MpiRecord::IrecvRequest { request: 2 },
            MpiRecord::RequestTest { request: 2 },
            MpiRecord::Irecv {
                message: message(0, 16),
                request: 2,
            },
            MpiRecord::IsendComplete { request: 1 },
            MpiRecord::Recv(Message {
                communicator: CommId::WORLD,
                ..message(4, 0)
            }),
            MpiRecord::RequestCancelled { request: 3 },
            MpiRecord::CollectiveBegin,
            MpiRecord::CollectiveEnd(Collective {
                operation: CollectiveOp::Bcast,
                communicator: CommId::WORLD,
                root: Some(0),
                sent: 24,
                received: 0,
            }),
            MpiRecord::CollectiveBegin,
            MpiRecord::CollectiveEnd(Collective {
                operation: CollectiveOp::Allreduce,
                communicator: CommId::UNKNOWN,
                root: None,
                sent: 8,
                received: 8,
            }),
        ];
        (0..300u64)
            .map(|i| MpiEvent {
                time: 1000 + i * 13,
                record: records[i as usize % records.len()],
            })
            .collect()
    }

    #[test]
    fn mpi_records_read_back_as_written_across_chunks() {
        let events = mpi_events();
        let mut file = header().to_vec();
        let mut writer = MpiChunkWriter::new(200);
        let mut chunks = 0;
        for event in &events {
            writer.push(event);
            if writer.is_full() {
                file.extend_from_slice(writer.chunk(1));
                writer.clear();
                chunks += 1;
            }
        }
        file.extend_from_slice(writer.chunk(1));
        let mut spans = ChunkWriter::new(128);
        spans.push(&Span {
            start: 1100,
            duration: 40,
            region: 1,
            kind: Kind::Mpi,
            task: 0,
            forked: false,
        });
        file.extend_from_slice(spans.chunk(1));
        let mut written = footer(vec![1]);
        written.communicators = vec![Communicator {
            id: CommId::made(2, 1),
            parent: CommId::WORLD,
            members: vec![2, 0, 3],
        }];
        written.mpi_records = events.len() as u64;
        file.extend_from_slice(&footer_chunk(&written));
        assert!(chunks > 5, "the records took {chunks} chunks");
        let trace = from_slice(&file, Path::new("t.ptrace")).unwrap();
        assert_eq!(trace.footer, written);
        assert_eq!(trace.span_count(), 1);
        assert_eq!(trace.threads[&1][0].kind, Kind::Mpi);
        let read = &trace.mpi[&1];
        assert_eq!(read.len(), events.len());
        for (read, written) in read.iter().zip(&events) {
            assert_eq!(read.record, written.record);
            assert_eq!(read.time, ((written.time - 1000) as f64 * 0.5) as u64);
        }
        // The footer alone, without the chunks before it.
        let dir = std::env::temp_dir().join(format!("pomp2-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.ptrace");
        std::fs::write(&path, &file).unwrap();
        assert_eq!(read_footer(&path).unwrap(), written);
        std::fs::write(&path, &file[..file.len() - 3]).unwrap();
        assert!(matches!(read_footer(&path), Err(Error::Truncated { .. })));
        let profile = format!(
            "{{\"format\": \"{}\", \"version\": {}}}",
            crate::profile::FORMAT,
            crate::profile::VERSION
        );
        std::fs::write(&path, profile).unwrap();
        let error = read_footer(&path).unwrap_err();
        assert!(
            error.to_string().contains("it is a pomp profile"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn records_are_small() {
        let mut writer = MpiChunkWriter::new(1 << 16);
        let send = MpiEvent {
            time: 1_000_000,
            record: MpiRecord::Send(Message {
                communicator: CommId::WORLD,
                peer: 3,
                tag: 42,
                bytes: 8_000,
            }),
        };
        writer.push(&send);
        let before = writer.chunk(0).len();
        writer.push(&MpiEvent {
            time: 1_020_000,
            ..send
        });
        let one = writer.chunk(0).len() - before;
        assert!(one <= 10, "a send took {one} bytes");
    }
}
