//! Line markers: where a line of the input comes from, as the compiler
//! reads it. A preprocessor writes `# 12 "app.c" 1 3` before the lines it
//! takes from a file (`gcc -E`, `clang -E`, `cpp`, `gfortran -E -cpp`);
//! C's own `#line 12 "app.c"` says the same (generators write it). The
//! compiler numbers every later line by the last marker before it, and
//! so does pomp for every position it reports.
//!
//! A marker with a file name resets the system-header flag (`3`) as gcc
//! does; one without, and `#line`, keep it. The lines of a system header
//! and of the OpenMP library's own header (`omp.h`, `omp_lib.h`, however
//! it was included, as OPARI2 recognises it) are the library's.

use crate::language::{Family, Language};
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

/// The file a position lies in: the input itself, or a file a marker names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(u32);

impl FileId {
    /// The input itself, where no marker stands before a line.
    pub const INPUT: FileId = FileId(0);

    /// Its index among the input (0) and the files markers name (from 1
    /// on, as first named).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a line lies in the user's sources: a file and its 1-based line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: FileId,
    pub line: usize,
}

/// The lines of one file that a construct's opening or closing takes, as
/// a CTC string's `sscl` and `escl` give them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lines {
    pub file: FileId,
    pub first: usize,
    pub last: usize,
}

/// A file a marker names.
#[derive(Clone, Debug)]
pub struct NamedFile {
    /// The name as the marker writes it between its quotes, escapes and
    /// all: what pomp's own `#line` markers repeat, so that the compiler
    /// reads the same name.
    pub written: String,
    /// The name as pomp reports it: escapes undone, and a relative name
    /// read from the input's directory, as OPARI2 reads it.
    pub name: String,
    /// It is the OpenMP library's header.
    openmp_header: bool,
}

#[derive(Clone, Debug)]
struct Marker {
    /// The marker's own lines.
    span: Range<usize>,
    /// The physical line (1-based) after the marker: the first it places.
    from: usize,
    /// Where that line lies.
    place: Place,
    /// Whether the lines it places are a system header's.
    system: bool,
}

/// Every line marker of a file, and the files they name.
#[derive(Clone, Debug, Default)]
pub struct LineMap {
    markers: Vec<Marker>,
    /// The files the markers name, `FileId(n)` being `files[n - 1]`.
    files: Vec<NamedFile>,
    /// Whether a preprocessor wrote them: only a preprocessor writes the
    /// `# N "file"` form.
    preprocessor: bool,
}

/// What one marker line says.
#[derive(Debug, PartialEq, Eq)]
struct Said<'a> {
    line: usize,
    /// The file name as written between the quotes.
    file: Option<&'a [u8]>,
    /// `# N "file" 3`: the lines after it are a system header's.
    system: bool,
    /// `# N` rather than `#line N`.
    preprocessor: bool,
}

impl LineMap {
    /// The markers of `bytes`, a file of `language` whose path is `input`.
    pub fn find(bytes: &[u8], language: Language, input: &Path) -> LineMap {
        let mut map = LineMap::default();
        if !may_hold_markers(bytes) {
            return map;
        }
        let lines: Vec<Range<usize>> = match language.family() {
            Family::C => {
                let mut tokens = crate::language::c::lex::Tokens::new(bytes, 0..bytes.len());
                std::iter::from_fn(|| tokens.next_preprocessor_line())
                    .map(|t| t.span)
                    .collect()
            }
            Family::Fortran => crate::language::fortran::preprocessor_lines(bytes).collect(),
        };
        let directory = input.parent().unwrap_or(Path::new(""));
        let mut ids: HashMap<&[u8], FileId> = HashMap::new();
        let mut line_starts = LineCounter::new(bytes);
        for span in lines {
            let Some(said) = parse(&bytes[span.clone()]) else {
                continue;
            };
            let from = line_starts.line_of(span.end) + 1;
            let last = map.markers.last();
            let (file, system) = match said.file {
                Some(written) => {
                    let id = *ids.entry(written).or_insert_with(|| {
                        map.files.push(NamedFile::new(written, directory));
                        FileId(map.files.len() as u32)
                    });
                    let kept = !said.preprocessor && last.is_some_and(|m| m.system);
                    (id, said.system || kept)
                }
                None => (
                    last.map_or(FileId::INPUT, |m| m.place.file),
                    last.is_some_and(|m| m.system) || said.system,
                ),
            };
            map.preprocessor |= said.preprocessor;
            map.markers.push(Marker {
                span,
                from,
                place: Place {
                    file,
                    line: said.line,
                },
                system,
            });
        }
        map
    }

    pub fn is_empty(&self) -> bool {
        self.markers.is_empty()
    }

    /// Whether a preprocessor wrote the file: it holds `# N "file"`
    /// markers.
    pub fn from_preprocessor(&self) -> bool {
        self.preprocessor
    }

    /// The marker whose lines `line` (physical, 1-based) follow.
    fn governing(&self, line: usize) -> Option<&Marker> {
        let after = self.markers.partition_point(|m| m.from <= line);
        after.checked_sub(1).map(|i| &self.markers[i])
    }

    /// Where the physical line `line` lies in the user's sources.
    pub fn place(&self, line: usize) -> Place {
        match self.governing(line) {
            None => Place {
                file: FileId::INPUT,
                line,
            },
            Some(marker) => Place {
                file: marker.place.file,
                line: marker.place.line + (line - marker.from),
            },
        }
    }

    /// Whether the physical line `line` is the library's: a system
    /// header's, or the OpenMP library's header's.
    pub fn in_library_header(&self, line: usize) -> bool {
        self.governing(line)
            .is_some_and(|m| m.system || self.file(m.place.file).is_some_and(|f| f.openmp_header))
    }

    /// The file a marker names; `None` for [`FileId::INPUT`].
    pub fn file(&self, id: FileId) -> Option<&NamedFile> {
        (id.0 as usize).checked_sub(1).map(|i| &self.files[i])
    }

    /// The files the markers name, in [`FileId`] order from 1 on.
    pub fn files(&self) -> &[NamedFile] {
        &self.files
    }

    /// The markers' lines that overlap `range`, in order.
    pub fn spans_within(&self, range: Range<usize>) -> impl Iterator<Item = &Range<usize>> {
        let first = self.markers.partition_point(|m| m.span.end <= range.start);
        self.markers[first..]
            .iter()
            .map(|m| &m.span)
            .take_while(move |span| span.start < range.end)
    }
}

impl NamedFile {
    fn new(written: &[u8], directory: &Path) -> NamedFile {
        let name = unescape(written);
        let relative = !(name.starts_with('/') || name.starts_with('<'));
        let name = match relative && !directory.as_os_str().is_empty() {
            true => directory.join(&name).to_string_lossy().into_owned(),
            false => name,
        };
        let base_name = name.rsplit('/').next().unwrap_or(&name);
        NamedFile {
            written: String::from_utf8_lossy(written).into_owned(),
            openmp_header: crate::language::OPENMP_HEADERS.contains(&base_name),
            name,
        }
    }
}

/// Whether a line of `bytes` may be a marker: a `#` first on its line,
/// then blanks and a digit or `line`. Most files have none, and need no
/// closer look.
fn may_hold_markers(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'#', bytes).any(|at| {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |newline| newline + 1);
        bytes[line_start..at].iter().all(|&b| is_blank(b)) && parse_number_start(&bytes[at..])
    })
}

/// Whether `text`, from its `#`, goes on as a marker would.
fn parse_number_start(text: &[u8]) -> bool {
    let rest = skip_blanks(&text[1..]);
    rest.first().is_some_and(u8::is_ascii_digit) || rest.starts_with(b"line")
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0c' | b'\x0b' | b'\r')
}

fn skip_blanks(text: &[u8]) -> &[u8] {
    let blanks = text.iter().take_while(|&&b| is_blank(b)).count();
    &text[blanks..]
}

/// Whether a preprocessor line (from its `#`, without its line end) is a
/// line marker.
pub fn is_marker(line: &[u8]) -> bool {
    parse(line).is_some()
}

/// What a preprocessor line says if it is a marker: `# N ["file" [flags]]`
/// or `#line N ["file"]`, `N` a decimal number.
fn parse(text: &[u8]) -> Option<Said<'_>> {
    let rest = skip_blanks(text.strip_prefix(b"#")?);
    let (rest, preprocessor) = match rest.strip_prefix(b"line") {
        Some(after) if after.first().is_some_and(|&b| is_blank(b)) => (skip_blanks(after), false),
        Some(_) => return None,
        None => (rest, true),
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || rest.get(digits).is_some_and(|&b| !is_blank(b)) {
        return None;
    }
    let line = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let rest = skip_blanks(&rest[digits..]);
    let Some(quoted) = rest.strip_prefix(b"\"") else {
        return Some(Said {
            line,
            file: None,
            system: false,
            preprocessor,
        });
    };
    let mut end = 0;
    while end < quoted.len() && quoted[end] != b'"' {
        end += if quoted[end] == b'\\' { 2 } else { 1 };
    }
    let file = quoted.get(..end)?;
    let flags = quoted.get(end + 1..).unwrap_or_default();
    let system = preprocessor && flags.split(|&b| is_blank(b)).any(|flag| flag == b"3");
    Some(Said {
        line,
        file: Some(file),
        system,
        preprocessor,
    })
}

/// A string literal's text with its escapes undone: `\\`, `\"`, octal
/// `\NNN` (how gcc writes bytes that are not printable) and the others C
/// knows.
fn unescape(text: &[u8]) -> String {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] != b'\\' || i + 1 == text.len() {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let octal = text[i + 1..]
            .iter()
            .take(3)
            .take_while(|b| (b'0'..=b'7').contains(b))
            .count();
        if octal > 0 {
            let value = text[i + 1..i + 1 + octal]
                .iter()
                .fold(0u32, |v, b| v * 8 + u32::from(b - b'0'));
            out.push(value as u8);
            i += 1 + octal;
            continue;
        }
        out.push(match text[i + 1] {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 7,
            b'b' => 8,
            b'f' => 12,
            b'v' => 11,
            other => other,
        });
        i += 2;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Line numbers of increasing offsets, counted as they are asked for.
struct LineCounter<'a> {
    bytes: &'a [u8],
    offset: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(bytes: &'a [u8]) -> LineCounter<'a> {
        LineCounter {
            bytes,
            offset: 0,
            line: 1,
        }
    }

    /// The 1-based line of `offset`, no smaller than the last asked for.
    fn line_of(&mut self, offset: usize) -> usize {
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.offset..offset]).count();
        self.offset = offset;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str, language: Language) -> LineMap {
        LineMap::find(text.as_bytes(), language, Path::new("build/app.i"))
    }

    #[test]
    fn markers_say_their_line_file_and_flags() {
        fn said(text: &str) -> Option<Said<'_>> {
            parse(text.as_bytes())
        }
        let file = |name: &'static str| Some(name.as_bytes());
        assert_eq!(
            said("# 12 \"a b.c\" 1 3 4"),
            Some(Said {
                line: 12,
                file: file("a b.c"),
                system: true,
                preprocessor: true
            })
        );
        assert_eq!(
            said("#line 7"),
            Some(Said {
                line: 7,
                file: None,
                system: false,
                preprocessor: false
            })
        );
        assert_eq!(
            said("#  line 7 \"x\\\"y.c\" 3").unwrap().file,
            file("x\\\"y.c")
        );
        assert!(
            !said("#line 7 \"x.c\" 3").unwrap().system,
            "#line takes no flags"
        );
        for other in [
            "#lines 7",
            "#line x",
            "# 12x",
            "#pragma omp parallel",
            "#",
            "#line",
        ] {
            assert_eq!(said(other), None, "{other}");
        }
    }

    #[test]
    fn lines_are_numbered_by_the_last_marker_before_them() {
        let text = "int a;\n# 1 \"app.c\"\nint b;\n# 1 \"/usr/include/stdio.h\" 1 3 4\nint c;\n\n# 5 \"app.c\" 2\nint d;\n#line 20\nint e;\n";
        let map = map(text, Language::C);
        assert!(map.from_preprocessor());
        let at = |line| {
            let place = map.place(line);
            let name = map.file(place.file).map_or("(input)", |f| f.name.as_str());
            (name.to_string(), place.line, map.in_library_header(line))
        };
        assert_eq!(at(1), ("(input)".into(), 1, false));
        assert_eq!(at(3), ("build/app.c".into(), 1, false));
        assert_eq!(at(5), ("/usr/include/stdio.h".into(), 1, true));
        assert_eq!(at(6), ("/usr/include/stdio.h".into(), 2, true));
        assert_eq!(at(8), ("build/app.c".into(), 5, false));
        assert_eq!(at(10), ("build/app.c".into(), 20, false));
        assert_eq!(map.spans_within(0..text.len()).count(), 4);
    }

    #[test]
    fn line_keeps_a_system_header_system_and_a_named_marker_resets_it() {
        let text = "# 1 \"s.h\" 1 3\n#line 9 \"t.h\"\na;\n# 2 \"s.h\"\nb;\n";
        let map = map(text, Language::C);
        assert!(map.in_library_header(3));
        assert!(!map.in_library_header(5));
        // OPARI2's own test of preincluded definitions.
        let text = "a;\n#line 1 \"/some/path/omp.h\"\nb;\n#line 5 \"romp.h\"\nc;\n";
        let map = self::map(text, Language::C);
        assert!(!map.in_library_header(1));
        assert!(map.in_library_header(3));
        assert!(!map.in_library_header(5));
    }

    #[test]
    fn markers_in_comments_and_strings_are_none() {
        let text = "/*\n# 5 \"x.c\"\n*/\nconst char *s = \"\\\n# 6 \\\"y.c\\\"\";\nauto r = R\"(\n# 7 \"z.c\"\n)\";\n";
        assert!(map(text, Language::Cpp).is_empty());
        // Fortran reads a `#` in the first column as the compiler does,
        // whatever stands around it.
        let text = "x = 1\n# 5 \"x.F90\"\n  # 6 \"no\"\n";
        let fortran = map(text, Language::FortranFree);
        assert_eq!(fortran.spans_within(0..text.len()).count(), 1);
        assert_eq!(fortran.place(3).line, 5);
    }

    #[test]
    fn names_are_unescaped_and_read_from_the_input_directory() {
        let named = |written: &str| NamedFile::new(written.as_bytes(), Path::new("dir")).name;
        assert_eq!(named("a\\\\b.c"), "dir/a\\b.c");
        assert_eq!(named("/abs/caf\\303\\251.c"), "/abs/café.c");
        assert_eq!(named("<built-in>"), "<built-in>");
        assert_eq!(
            NamedFile::new(b"x.c", Path::new("")).name,
            "x.c",
            "an input without a directory"
        );
    }
}
