//! The input file: its bytes, its language, line/column lookup, and
//! where its lines lie in the user's sources ([`markers`]).

pub mod markers;

pub use crate::language::Language;
pub use markers::{FileId, LineMap, Lines, Place};

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Byte range into the original file.
pub type Span = Range<usize>;

/// A file's bytes: read into memory, or, for a large file, mapped.
///
/// Reading copies every byte into fresh memory, one page fault per page;
/// a mapping shares the system's cached pages, many per fault. Like a
/// compiler, pomp expects a source not to change while it reads it: a
/// mapped file truncated meanwhile ends the process (`SIGBUS`), before any
/// output is renamed into place.
#[derive(Clone, Debug)]
pub enum Bytes {
    Read(Vec<u8>),
    Mapped(std::sync::Arc<Mapped>),
}

/// What the program's allocator does with memory freed in a block: set by
/// the program ([`when_much_is_freed`]), since only it knows its allocator.
static GIVE_BACK_FREED: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Has `give_back` called where a stage has freed much of what it made of
/// a large file: when the reading is over (its memory, several times the
/// file's size, is free then) and when the plan's edits are made, before
/// the declarations the output begins with. An allocator that keeps freed
/// pages a while would hold them beside what the next stage takes.
pub fn when_much_is_freed(give_back: fn()) {
    let _ = GIVE_BACK_FREED.set(give_back);
}

/// How the program's allocator keeps a stage's memory apart from the
/// rest, set by the program ([`when_read_apart`]).
#[derive(Clone, Copy, Debug)]
pub struct Apart {
    /// From now on this thread allocates from a new heap, which is
    /// returned.
    pub begin: fn() -> usize,
    /// This thread allocates from its usual heap again.
    pub resume: fn(),
    /// The heap `begin` returned is joined to the usual one: what lives
    /// in it stays where it is.
    pub release: fn(usize),
}

static READ_APART: std::sync::OnceLock<Apart> = std::sync::OnceLock::new();

/// Has the model read of a large file copied into pages of its own
/// ([`Apart`]). The reading makes several times the file's size in
/// syntax trees, token lists and piece models, and what outlives it, the
/// model, is strewn among them: pages that hold a little of the model
/// each would stay resident to the end of the run, and a copy made in
/// the same heap would fill the holes the reading left in them.
pub fn when_read_apart(apart: Apart) {
    let _ = READ_APART.set(apart);
}

/// `read()`, what it returns copied out of the reading's pages
/// ([`when_read_apart`]) when `file` is large.
pub(crate) fn read_apart<T: Clone>(file: &SourceFile, read: impl FnOnce() -> T) -> T {
    let read = read();
    let (Bytes::Mapped(_), Some(apart)) = (&file.bytes, READ_APART.get()) else {
        much_freed(file);
        return read;
    };
    /// Resumes the usual heap however the copy ends.
    struct Resume(fn());
    impl Drop for Resume {
        fn drop(&mut self) {
            (self.0)();
        }
    }
    let heap = (apart.begin)();
    let kept = {
        let _resume = Resume(apart.resume);
        read.clone()
    };
    drop(read);
    (apart.release)(heap);
    much_freed(file);
    kept
}

/// A stage has freed much of what it made of `file`.
pub(crate) fn much_freed(file: &SourceFile) {
    if let (Bytes::Mapped(_), Some(give_back)) = (&file.bytes, GIVE_BACK_FREED.get()) {
        give_back();
    }
}

/// A file mapped, with the handle it was mapped from.
#[derive(Debug)]
pub struct Mapped {
    file: std::fs::File,
    map: memmap2::Mmap,
}

impl Bytes {
    /// From this size on a file is mapped: below it, mapping and
    /// unmapping cost more than the copy.
    const MAPPED_FROM: u64 = 256 * 1024;

    /// The contents of the file at `path`.
    pub fn read(path: &Path) -> std::io::Result<Bytes> {
        let file = std::fs::File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.len() >= u64::from(u32::MAX) {
            return Err(std::io::Error::other(
                "it is 4 GiB or larger, more than pomp reads",
            ));
        }
        if metadata.is_file() && metadata.len() >= Self::MAPPED_FROM {
            // SAFETY: the mapping is read only and private to this
            // process; the file changing under it is the hazard named in
            // the type's documentation.
            #[allow(unsafe_code)]
            let map = unsafe { memmap2::Mmap::map(&file)? };
            return Ok(Bytes::Mapped(std::sync::Arc::new(Mapped { file, map })));
        }
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        std::io::Read::read_to_end(&mut &file, &mut bytes)?;
        Ok(Bytes::Read(bytes))
    }

    /// Lets the system take back this process's view of the pages of a
    /// mapped file up to `end` (the page holding it too), until they are
    /// read again; the bytes stay what they are. A file read into memory
    /// is left as it is.
    pub fn release_pages_before(&self, end: usize) {
        if let Bytes::Mapped(mapped) = self {
            let end = end.min(mapped.map.len());
            // SAFETY: the mapping is shared and read only: dropping its
            // pages from this process loses nothing, and the next read
            // finds the file's pages again.
            #[allow(unsafe_code)]
            let _ = unsafe {
                (mapped.map).unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, end)
            };
        }
    }

    /// A copy of the bytes to patch. Of a mapped file, a private mapping
    /// of it: only the pages patched are copied, the others stay the
    /// system's cached pages of the file.
    pub fn patchable_copy(&self) -> Patchable {
        if let Bytes::Mapped(mapped) = self {
            // SAFETY: as for the read-only mapping (see the type's
            // documentation); writes go to this process's copies of the
            // pages written, never to the file.
            #[allow(unsafe_code)]
            let copy = unsafe { memmap2::MmapOptions::new().map_copy(&mapped.file) };
            if let Some(copy) = copy.ok().filter(|copy| copy.len() == mapped.map.len()) {
                return Patchable::Mapped(copy);
            }
        }
        Patchable::Heap(self.to_vec())
    }
}

/// A file's bytes, copied to be patched ([`Bytes::patchable_copy`]).
pub enum Patchable {
    Heap(Vec<u8>),
    Mapped(memmap2::MmapMut),
}

impl Default for Patchable {
    fn default() -> Patchable {
        Patchable::Heap(Vec::new())
    }
}

impl std::ops::Deref for Patchable {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Patchable::Heap(bytes) => bytes,
            Patchable::Mapped(mapped) => mapped,
        }
    }
}

impl std::ops::DerefMut for Patchable {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Patchable::Heap(bytes) => bytes,
            Patchable::Mapped(mapped) => mapped,
        }
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Read(bytes) => bytes,
            Bytes::Mapped(mapped) => &mapped.map,
        }
    }
}

impl AsRef<[u8]> for Bytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes::Read(bytes)
    }
}

/// One source file as read from disk. The bytes are kept exactly: nothing
/// outside rewritten directives may change in the output.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name written into `#line` markers and descriptors.
    pub path: PathBuf,
    pub bytes: Bytes,
    pub language: Language,
    /// Four bytes a line, not eight: a source is under 4 GiB.
    line_starts: Vec<u32>,
    /// For every [`LINE_BUCKET`] bytes, how many lines start at or before
    /// the first of them: a line is looked up among the few that start
    /// within its bucket. The rules and the output look up tens of
    /// thousands of lines in a large file, each search of the whole list
    /// a string of cache misses.
    line_buckets: Vec<u32>,
    /// SHA-256 of the bytes, computed once when first asked for.
    digest: OnceLock<[u8; 32]>,
    /// The line markers, found when first asked for.
    line_map: OnceLock<LineMap>,
    /// [`SourceFile::quoted_path`], made when first asked for: every line
    /// marker writes it.
    quoted_path: OnceLock<String>,
}

/// The bytes each entry of [`SourceFile`]'s `line_buckets` covers: some
/// thirty lines of code, their starts in two cache lines.
const LINE_BUCKET: usize = 1024;

/// How many of `line_starts` lie at or before each multiple of
/// [`LINE_BUCKET`] up to past `len`.
fn line_buckets(line_starts: &[u32], len: usize) -> Vec<u32> {
    let mut buckets = Vec::with_capacity(len / LINE_BUCKET + 2);
    let mut count = 0;
    for bucket in 0..len / LINE_BUCKET + 2 {
        let first = bucket * LINE_BUCKET;
        while line_starts.get(count).is_some_and(|&s| s as usize <= first) {
            count += 1;
        }
        buckets.push(count as u32);
    }
    buckets
}

/// `offset` as the line table holds offsets; one past any a source has
/// when it is larger.
fn line_key(offset: usize) -> u32 {
    u32::try_from(offset).unwrap_or(u32::MAX)
}

impl SourceFile {
    pub fn new(
        path: impl Into<PathBuf>,
        bytes: impl Into<Bytes>,
        language: Language,
    ) -> SourceFile {
        let bytes = bytes.into();
        assert!(
            bytes.len() < u32::MAX as usize,
            "a source of 4 GiB or more is more than pomp reads"
        );
        // Counted first: grown as found, the list was copied over and over.
        let lines = memchr::memchr_iter(b'\n', &bytes).count();
        let mut line_starts = Vec::with_capacity(lines + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', &bytes).map(|i| i as u32 + 1));
        SourceFile {
            path: path.into(),
            line_buckets: line_buckets(&line_starts, bytes.len()),
            bytes,
            language,
            line_starts,
            digest: OnceLock::new(),
            line_map: OnceLock::new(),
            quoted_path: OnceLock::new(),
        }
    }

    /// SHA-256 of the content.
    pub fn content_sha256(&self) -> &[u8; 32] {
        use sha2::Digest;
        self.digest
            .get_or_init(|| sha2::Sha256::digest(&self.bytes).into())
    }

    /// Lets the pages of a mapped file go until they are read again
    /// ([`Bytes::release_pages_before`]), its digest taken first: that
    /// reads every byte, and would take them all back later.
    pub fn release_pages(&self) {
        if let Bytes::Mapped(_) = self.bytes {
            self.content_sha256();
            self.bytes.release_pages_before(self.bytes.len());
        }
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let bucket = offset / LINE_BUCKET;
        let (from, to) = match self.line_buckets.get(bucket..bucket + 2) {
            Some(&[from, to]) => (from as usize, to as usize),
            _ => (0, self.line_starts.len()),
        };
        // The lines starting at or before `offset`: all those of the
        // buckets before, and some of its own.
        let key = line_key(offset);
        from + self.line_starts[from..to].partition_point(|&start| start <= key)
    }

    /// 1-based line and 1-based column (in bytes) of an offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_of(offset);
        (line, offset - self.line_start(line) + 1)
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line - 1] as usize
    }

    /// Whether a line starts at `offset`. Asked of the lines, not the
    /// bytes: the bytes of a large file may have left memory.
    pub fn starts_line(&self, offset: usize) -> bool {
        self.line_start(self.line_of(offset)) == offset
    }

    /// Start of the line containing `offset`.
    pub fn start_of_line(&self, offset: usize) -> usize {
        self.line_start(self.line_of(offset))
    }

    /// Offset just past the newline ending the line containing `offset`
    /// (or the end of the file).
    pub fn end_of_line(&self, offset: usize) -> usize {
        let line = self.line_of(offset);
        (self.line_starts.get(line)).map_or(self.bytes.len(), |&start| start as usize)
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The offset where each line starts, the first line's (0) included.
    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    pub fn text(&self, span: Span) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes[span])
    }

    /// The path as written into `#line` markers: escaped as a C string.
    pub fn quoted_path(&self) -> &str {
        self.quoted_path
            .get_or_init(|| c_string_literal(&self.path.to_string_lossy()))
    }

    /// The file's line markers (none in most files).
    pub fn line_map(&self) -> &LineMap {
        self.line_map
            .get_or_init(|| LineMap::find(&self.bytes, self.language, &self.path))
    }

    /// Where the byte at `offset` lies in the user's sources: its line
    /// as the compiler numbers it, after the line markers before it.
    pub fn place(&self, offset: usize) -> Place {
        self.line_map().place(self.line_of(offset))
    }

    /// The lines `span` takes in the user's sources: those of its first
    /// and last byte, or its first alone where a marker within it moves
    /// the last to another file (a marker may name the input itself).
    pub fn lines(&self, span: &Span) -> Lines {
        let first = self.place(span.start);
        let last = self.place(span.end.max(span.start + 1) - 1);
        Lines {
            file: first.file,
            first: first.line,
            last: match self.file_name(last.file) == self.file_name(first.file) {
                true => last.line,
                false => first.line,
            },
        }
    }

    /// The names of the input ([`FileId::INPUT`]) and of every file its
    /// markers name, by [`FileId::index`].
    pub fn file_names(&self) -> Vec<String> {
        std::iter::once(self.path.to_string_lossy().into_owned())
            .chain(self.line_map().files().iter().map(|f| f.name.clone()))
            .collect()
    }

    /// The user's line of `offset` ([`SourceFile::place`]'s).
    pub fn user_line(&self, offset: usize) -> usize {
        self.place(offset).line
    }

    /// Whether the byte at `offset` comes from a library's header (a
    /// system header, or the OpenMP library's own): pomp leaves such code
    /// as the library wrote it.
    pub fn in_library_header(&self, offset: usize) -> bool {
        self.line_map().in_library_header(self.line_of(offset))
    }

    /// The name by which pomp reports positions in `file`: the path as
    /// given for the input itself, else the name a line marker gives.
    pub fn file_name(&self, file: FileId) -> std::borrow::Cow<'_, str> {
        match self.line_map().file(file) {
            Some(named) => std::borrow::Cow::Borrowed(&named.name),
            None => self.path.to_string_lossy(),
        }
    }

    /// `#line N "file"` resuming the numbering of the physical line
    /// `line`, its line end included.
    pub fn line_marker(&self, line: usize) -> String {
        let mut text = String::new();
        self.push_line_marker(&mut text, line);
        text
    }

    /// [`SourceFile::line_marker`], appended to `text`.
    pub fn push_line_marker(&self, text: &mut String, line: usize) {
        let place = self.line_map().place(line);
        text.push_str("#line ");
        text.push_str(itoa::Buffer::new().format(place.line));
        text.push(' ');
        match self.line_map().file(place.file) {
            Some(named) => {
                text.push('"');
                text.push_str(&named.written);
                text.push('"');
            }
            None => text.push_str(self.quoted_path()),
        }
        text.push('\n');
    }

    /// Whether a preprocessor made the file: its suffix says so (`.i`,
    /// `.ii`), or it holds the line markers only a preprocessor writes.
    /// Its headers are included already, their guards gone: they must
    /// not be included again.
    pub fn is_preprocessed(&self) -> bool {
        self.language.is_preprocessed_suffix(&self.path) || self.line_map().from_preprocessor()
    }
}

/// `text` as a C string literal, quotes and backslashes escaped.
pub fn c_string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    let mut rest = text;
    while let Some(at) = rest.find(['"', '\\']) {
        out.push_str(&rest[..at]);
        out.push('\\');
        out.push_str(&rest[at..=at]);
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out.push('"');
    out
}

/// Lower-case hexadecimal digits of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line` over and over, `len` bytes of it.
    fn repeated(line: &[u8], len: usize) -> Vec<u8> {
        line.iter().copied().cycle().take(len).collect()
    }

    #[test]
    fn string_literals_escape_quotes_and_backslashes_only() {
        assert_eq!(c_string_literal("src/ü.c"), r#""src/ü.c""#);
        assert_eq!(
            c_string_literal(r#"C:\dir\"q".c\"#),
            r#""C:\\dir\\\"q\".c\\""#
        );
        assert_eq!(c_string_literal(""), "\"\"");
    }

    #[test]
    fn every_offset_has_the_line_its_newlines_give() {
        // Lines shorter and longer than a bucket, ending anywhere in one,
        // empty ones, CRLF, a file ending with and without a newline, and
        // none at all.
        let mut text = String::new();
        for length in (0..60).chain([LINE_BUCKET - 1, LINE_BUCKET, 3 * LINE_BUCKET + 5]) {
            text.push_str(&"x".repeat(length));
            text.push_str(if length % 7 == 3 { "\r\n" } else { "\n" });
        }
        text.push_str("end");
        for text in [&text[..], &text[..text.len() - 3], "", "\n", "one line"] {
            let file = SourceFile::new("t.c", text.as_bytes().to_vec(), Language::C);
            for offset in 0..=text.len() + 2 * LINE_BUCKET {
                let newlines = text.as_bytes()[..offset.min(text.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                assert_eq!(file.line_of(offset), newlines + 1, "offset {offset}");
                let starts = offset == 0 || text.as_bytes().get(offset - 1) == Some(&b'\n');
                assert_eq!(
                    file.starts_line(offset),
                    starts && offset <= text.len(),
                    "{offset}"
                );
            }
        }
    }

    #[test]
    fn large_files_are_mapped_small_ones_read_and_both_read_alike() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"#pragma omp parallel\n{ work(); }\n";
        let large = repeated(line, Bytes::MAPPED_FROM as usize + 7);
        for (name, content, mapped) in [
            ("large.c", &large[..], true),
            ("small.c", &line[..], false),
            ("empty.c", &b""[..], false),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, content).unwrap();
            let bytes = Bytes::read(&path).unwrap();
            assert_eq!(matches!(bytes, Bytes::Mapped(_)), mapped, "{name}");
            assert_eq!(&*bytes, content, "{name}");
            let file = SourceFile::new(&path, bytes, Language::C);
            assert_eq!(
                file.line_of(content.len()),
                content.iter().filter(|&&b| b == b'\n').count() + 1
            );
        }
        assert!(Bytes::read(&dir.path().join("missing.c")).is_err());
        // Sparse: no disk space is taken.
        let huge = dir.path().join("huge.c");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(u64::from(u32::MAX))
            .unwrap();
        let refused = Bytes::read(&huge).unwrap_err().to_string();
        assert!(refused.contains("4 GiB"), "{refused}");
    }

    #[test]
    fn what_the_reading_of_a_large_file_gives_is_copied_apart() {
        thread_local! {
            static CALLS: std::cell::RefCell<Vec<&'static str>> = const {
                std::cell::RefCell::new(Vec::new())
            };
        }
        fn called(name: &'static str) {
            CALLS.with(|calls| calls.borrow_mut().push(name));
        }
        fn taken() -> Vec<&'static str> {
            CALLS.with(|calls| std::mem::take(&mut *calls.borrow_mut()))
        }
        when_read_apart(Apart {
            begin: || {
                called("begin");
                7
            },
            resume: || called("resume"),
            release: |heap| {
                assert_eq!(heap, 7, "the heap begun is the one released");
                called("release");
            },
        });
        let dir = tempfile::tempdir().unwrap();
        let line = b"#pragma omp parallel\n{ work(); }\n";
        for (name, content, apart) in [
            ("large.c", repeated(line, Bytes::MAPPED_FROM as usize), true),
            ("small.c", line.to_vec(), false),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, &content).unwrap();
            let file = SourceFile::new(&path, Bytes::read(&path).unwrap(), Language::C);
            let read = read_apart(&file, || {
                called("read");
                vec![String::from("model")]
            });
            assert_eq!(read, ["model"]);
            let expected: &[&str] = match apart {
                true => &["read", "begin", "resume", "release"],
                false => &["read"],
            };
            assert_eq!(taken(), expected, "{name}");
        }
        // A reading that panics leaves no heap begun.
        let path = dir.path().join("large.c");
        let file = SourceFile::new(&path, Bytes::read(&path).unwrap(), Language::C);
        let panicked = std::panic::catch_unwind(|| {
            read_apart(&file, || -> Vec<String> { panic!("the reading fails") })
        });
        assert!(panicked.is_err());
        assert!(taken().is_empty());
    }

    #[test]
    fn a_patched_copy_and_released_pages_leave_file_and_bytes_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"int x;\n#pragma omp barrier\n";
        let large = repeated(line, Bytes::MAPPED_FROM as usize * 2 + 5);
        for (name, content, mapped) in
            [("large.c", &large[..], true), ("small.c", &line[..], false)]
        {
            let path = dir.path().join(name);
            std::fs::write(&path, content).unwrap();
            let bytes = Bytes::read(&path).unwrap();
            let mut copy = bytes.patchable_copy();
            assert_eq!(matches!(copy, Patchable::Mapped(_)), mapped, "{name}");
            assert_eq!(&*copy, content, "{name}");
            let last = copy.len() - 1;
            copy[..3].copy_from_slice(b"XYZ");
            copy[last] = b'!';
            bytes.release_pages_before(bytes.len() / 2);
            bytes.release_pages_before(bytes.len());
            assert_eq!(&*bytes, content, "{name}");
            assert_eq!(std::fs::read(&path).unwrap(), content, "{name}");
            drop(copy);
            assert_eq!(&*bytes, content, "{name}");
        }
    }

    #[test]
    fn lines_start_at_the_start_and_after_each_line_break() {
        let file = SourceFile::new("t.c", b"a\n\nbc\n".to_vec(), Language::C);
        let starts: Vec<usize> = (0..=6).filter(|&i| file.starts_line(i)).collect();
        assert_eq!(starts, [0, 2, 3, 6]);
    }
}
