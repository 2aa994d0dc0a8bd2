//! The input file: its bytes, its language, and line/column lookup.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Byte range into the original file.
pub type Span = Range<usize>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Language {
    C,
    Cpp,
    FortranFree,
    FortranFixed,
}

impl Language {
    /// Language by file suffix, as gcc and gfortran decide it.
    pub fn from_path(path: &Path) -> Option<Language> {
        let ext = path.extension()?.to_str()?;
        Some(match ext {
            "c" | "i" => Language::C,
            "cc" | "cp" | "cxx" | "cpp" | "CPP" | "c++" | "C" | "ii" | "hpp" | "hxx" | "hh" => {
                Language::Cpp
            }
            "f" | "F" | "for" | "FOR" | "f77" | "F77" | "ftn" | "FTN" | "fpp" | "FPP" => {
                Language::FortranFixed
            }
            "f90" | "F90" | "f95" | "F95" | "f03" | "F03" | "f08" | "F08" | "f18" | "F18" => {
                Language::FortranFree
            }
            _ => return None,
        })
    }

    pub fn is_fortran(self) -> bool {
        matches!(self, Language::FortranFree | Language::FortranFixed)
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "c++",
            Language::FortranFree => "fortran-free",
            Language::FortranFixed => "fortran-fixed",
        }
    }
}

/// One source file as read from disk. The bytes are kept exactly: nothing
/// outside rewritten directives may change in the output.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name written into `#line` markers and descriptors.
    pub path: PathBuf,
    pub bytes: Vec<u8>,
    pub language: Language,
    line_starts: Vec<usize>,
    /// SHA-256 of the bytes, computed once when first asked for.
    digest: OnceLock<[u8; 32]>,
}

impl SourceFile {
    pub fn new(path: impl Into<PathBuf>, bytes: Vec<u8>, language: Language) -> SourceFile {
        let mut line_starts = vec![0];
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
