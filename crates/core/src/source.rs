//! The input file: its bytes, its language, and line/column lookup.

pub use crate::language::Language;

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
    Mapped(std::sync::Arc<memmap2::Mmap>),
}

impl Bytes {
    /// From this size on a file is mapped: below it, mapping and
    /// unmapping cost more than the copy.
    const MAPPED_FROM: u64 = 256 * 1024;

    /// The contents of the file at `path`.
    pub fn read(path: &Path) -> std::io::Result<Bytes> {
        let file = std::fs::File::open(path)?;
        let metadata = file.metadata()?;
        if metadata.is_file() && metadata.len() >= Self::MAPPED_FROM {
            // SAFETY: the mapping is read only and private to this
            // process; the file changing under it is the hazard named in
            // the type's documentation.
            let mapped = unsafe { memmap2::Mmap::map(&file)? };
            return Ok(Bytes::Mapped(std::sync::Arc::new(mapped)));
        }
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        std::io::Read::read_to_end(&mut &file, &mut bytes)?;
        Ok(Bytes::Read(bytes))
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Read(bytes) => bytes,
            Bytes::Mapped(mapped) => mapped,
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
    line_starts: Vec<usize>,
    /// SHA-256 of the bytes, computed once when first asked for.
    digest: OnceLock<[u8; 32]>,
}

impl SourceFile {
    pub fn new(
        path: impl Into<PathBuf>,
        bytes: impl Into<Bytes>,
        language: Language,
    ) -> SourceFile {
        let bytes = bytes.into();
        // Counted first: grown as found, the list was copied over and over.
        let lines = memchr::memchr_iter(b'\n', &bytes).count();
        let mut line_starts = Vec::with_capacity(lines + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', &bytes).map(|i| i + 1));
        SourceFile {
            path: path.into(),
            bytes,
            language,
            line_starts,
            digest: OnceLock::new(),
        }
    }

    /// SHA-256 of the content.
    pub fn content_sha256(&self) -> &[u8; 32] {
        use sha2::Digest;
        self.digest
            .get_or_init(|| sha2::Sha256::digest(&self.bytes).into())
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// 1-based line and 1-based column (in bytes) of an offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_of(offset);
        (line, offset - self.line_starts[line - 1] + 1)
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line - 1]
    }

    /// Start of the line containing `offset`.
    pub fn start_of_line(&self, offset: usize) -> usize {
        self.line_start(self.line_of(offset))
    }

    /// Offset just past the newline ending the line containing `offset`
    /// (or the end of the file).
    pub fn end_of_line(&self, offset: usize) -> usize {
        let line = self.line_of(offset);
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.bytes.len())
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The offset where each line starts, the first line's (0) included.
    pub fn line_starts(&self) -> &[usize] {
        &self.line_starts
    }

    pub fn text(&self, span: Span) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes[span])
    }

    /// The path as written into `#line` markers: escaped as a C string.
    pub fn quoted_path(&self) -> String {
        c_string_literal(&self.path.to_string_lossy())
    }
}

/// `text` as a C string literal, quotes and backslashes escaped.
pub fn c_string_literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
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

    #[test]
    fn large_files_are_mapped_small_ones_read_and_both_read_alike() {
        let dir = tempfile::tempdir().unwrap();
        let line = b"#pragma omp parallel\n{ work(); }\n";
        let large: Vec<u8> = line
            .iter()
            .copied()
            .cycle()
            .take(Bytes::MAPPED_FROM as usize + 7)
            .collect();
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
    }
}
