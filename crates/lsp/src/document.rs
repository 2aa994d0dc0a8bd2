//! An open document: the editor's unsaved text, kept up to date from its
//! changes, and the last analysis of it.

use lsp_types::{TextDocumentContentChangeEvent, Uri};
use pomp_core::instrument;
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use pomp_preview::{Encoding, LineIndex};
use std::cell::OnceCell;
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub struct Document {
    pub uri: Uri,
    pub version: i32,
    /// What the editor's buffer holds now.
    pub text: String,
    pub lines: LineIndex,
    /// `None` when neither the name nor the editor's language id tell
    /// which language the text is in.
    pub language: Option<Language>,
    /// Of the text as it is now; `None` after a change until analysed again.
    pub analysis: Option<Analysis>,
    /// How long the last analysis took.
    pub last_analysis: Duration,
    /// What the last analysis leaves the next: typing re-parses only what
    /// changed.
    session: instrument::Session,
}

/// What the instrumentation of one version of a document gives an editor.
/// The diagnostics come first and alone, as the user types; the edits
/// and the instrumented text are rendered when a request first needs them.
pub struct Analysis {
    pub version: i32,
    /// With ranges in the session's position encoding.
    pub diagnostics: Vec<pomp_preview::regions::DiagnosticEntry>,
    pub error_count: usize,
    /// What is left to render, and the text it was found in.
    checked: Option<(SourceFile, instrument::Checked)>,
    rendered: OnceCell<Rendered>,
}

/// The instrumentation of one version of a document, in full.
pub struct Rendered {
    /// Every region with its edits and the diagnostics, with ranges in the
    /// session's position encoding.
    pub regions: pomp_preview::Document,
    /// The instrumented text.
    pub output: Vec<u8>,
}

impl Document {
    pub fn new(uri: Uri, language_id: &str, version: i32, text: String) -> Document {
        let language = language_of(&uri, language_id);
        Document {
            lines: LineIndex::new(text.as_bytes()),
            uri,
            version,
            text,
            language,
            analysis: None,
            last_analysis: Duration::ZERO,
            session: instrument::Session::default(),
        }
    }

    /// Apply the editor's changes, in the order it sent them.
    pub fn change(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: Encoding,
    ) {
        for change in changes {
            match change.range {
                Some(range) => {
                    let span = self.lines.span(self.text.as_bytes(), range, encoding);
                    // Spans end on character boundaries: LineIndex rounds
                    // positions to the start of the character they fall in.
                    self.text.replace_range(span, &change.text);
                }
                None => self.text = change.text,
            }
            self.lines = LineIndex::new(self.text.as_bytes());
        }
        self.version = version;
        self.analysis = None;
    }

    /// The path the document stands for, for `#line` markers and names.
    pub fn path(&self) -> PathBuf {
        path_of(&self.uri)
    }

    /// Instrument the text as it is now, unless that was done already.
    pub fn analyse(&mut self, options: &instrument::Options, encoding: Encoding) -> &Analysis {
        if self
            .analysis
            .as_ref()
            .is_none_or(|a| a.version != self.version)
        {
            let started = Instant::now();
            self.analysis = Some(self.instrument(options, encoding));
            self.last_analysis = started.elapsed();
        }
        self.analysis.as_ref().expect("analysed above")
    }

    fn instrument(&mut self, options: &instrument::Options, encoding: Encoding) -> Analysis {
        let Some(language) = self.language else {
            return Analysis::unknown_language(self, encoding);
        };
        let file = SourceFile::new(self.path(), self.text.as_bytes().to_vec(), language);
        match instrument::check_again(&file, options, &mut self.session) {
            Ok(checked) => Analysis::new(file, checked, &self.lines, self.version, encoding),
            Err(error) => Analysis::failed(self, &file, error.to_string(), encoding),
        }
    }

    /// The analysis of the text as it is now, rendered in full; `None`
    /// until [`Document::analyse`] was called for this version.
    pub fn rendered(&self, encoding: Encoding) -> Option<&Rendered> {
        let analysis = self.analysis.as_ref()?;
        Some(analysis.rendered(&self.lines, encoding))
    }

    /// Bytes the document holds on to, its text and its analysis.
    pub fn memory(&self) -> usize {
        let analysis = self.analysis.as_ref().map_or(0, Analysis::memory);
        self.text.capacity() + self.lines.line_count() * size_of::<usize>() + analysis
    }
}

impl Analysis {
    fn new(
        file: SourceFile,
        checked: instrument::Checked,
        lines: &LineIndex,
        version: i32,
        encoding: Encoding,
    ) -> Analysis {
        let locator = pomp_preview::regions::Locator::new(&file, lines, encoding);
        let diagnostics = checked
            .diagnostics
            .iter()
            .map(|d| locator.diagnostic(d))
            .collect();
        Analysis {
            version,
            diagnostics,
            error_count: checked.error_count(),
            checked: Some((file, checked)),
            rendered: OnceCell::new(),
        }
    }

    /// The edits and the instrumented text, rendered on first use.
    fn rendered(&self, lines: &LineIndex, encoding: Encoding) -> &Rendered {
        self.rendered.get_or_init(|| {
            let (file, checked) = self
                .checked
                .as_ref()
                .expect("an analysis without a rendering has what it takes to render");
            let done = checked.clone().render(file);
            Rendered {
                regions: pomp_preview::Document::new(file, &done, lines, encoding),
                output: done.output(file),
            }
        })
    }

    /// An analysis holding one error at the start of the document, for a
    /// text that could not be instrumented at all.
    fn failed(
        document: &Document,
        file: &SourceFile,
        message: String,
        encoding: Encoding,
    ) -> Analysis {
        let diagnostic = pomp_core::diagnostics::Diagnostic::error(0..0, message, "");
        let diagnostics =
            vec![
                pomp_preview::regions::Locator::new(file, &document.lines, encoding)
                    .diagnostic(&diagnostic),
            ];
        let regions = pomp_preview::Document {
            file: file.path.to_string_lossy().into_owned(),
            language: file.language.name(),
            position_encoding: encoding.name(),
            diagnostics: diagnostics.clone(),
            regions: vec![],
            other_edits: vec![],
        };
        Analysis {
            version: document.version,
            diagnostics,
            error_count: 1,
            checked: None,
            rendered: OnceCell::from(Rendered {
                regions,
                output: document.text.as_bytes().to_vec(),
            }),
        }
    }

    fn unknown_language(document: &Document, encoding: Encoding) -> Analysis {
        let file = SourceFile::new(document.path(), vec![], Language::C);
        let mut analysis = Analysis::failed(
            document,
            &file,
            "pomp cannot tell the language of this file: name it .c, .cpp, .f90, .f, ... or \
             set the editor's language to c, cpp or fortran"
                .into(),
            encoding,
        );
        if let Some(rendered) = analysis.rendered.get_mut() {
            rendered.regions.language = "unknown";
        }
        analysis
    }

    fn memory(&self) -> usize {
        let located: usize = (self.diagnostics.iter())
            .map(|d| size_of_val(d) + d.message.capacity())
            .sum();
        let checked = self.checked.as_ref().map_or(0, |(file, checked)| {
            file.bytes.len()
                + checked.model.sites.capacity() * size_of::<pomp_core::model::Site>()
                + checked.plan.regions.capacity() * size_of::<pomp_core::rules::Region>()
        });
        located + checked + self.rendered.get().map_or(0, Rendered::memory)
    }
}

impl Rendered {
    fn memory(&self) -> usize {
        // The regions' strings dominate what the document structure holds.
        let regions: usize = self
            .regions
            .regions
            .iter()
            .map(|r| {
                size_of_val(r)
                    + r.edits
                        .iter()
                        .map(|e| size_of_val(e) + e.text.capacity())
                        .sum::<usize>()
                    + r.idf.ctc.capacity()
                    + r.idf.handle.capacity()
                    + r.events.iter().map(String::capacity).sum::<usize>()
            })
            .sum();
        let others: usize = self
            .regions
            .other_edits
            .iter()
            .map(|e| size_of_val(e) + e.edit.text.capacity())
            .sum();
        self.output.capacity() + regions + others
    }
}

/// The language a document is in: by its name as a compiler would tell,
/// else by the editor's language id.
fn language_of(uri: &Uri, language_id: &str) -> Option<Language> {
    Language::from_path(&path_of(uri)).or_else(|| Language::from_editor_id(language_id))
}

/// A URI's path, percent-decoded.
pub fn path_of(uri: &Uri) -> PathBuf {
    let decoded = uri.path().as_estr().decode().into_bytes();
    PathBuf::from(String::from_utf8_lossy(&decoded).into_owned())
}

/// The `file:` URI of an absolute path.
pub fn uri_of(path: &std::path::Path) -> Option<Uri> {
    use std::fmt::Write;
    let mut text = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            text.push(b as char);
        } else {
            let _ = write!(text, "%{b:02X}");
        }
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::{Position, Range};
    use std::str::FromStr;

    fn change(range: Option<Range>, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn changes_apply_at_utf16_positions_over_crlf_lines() {
        let uri = Uri::from_str("file:///tmp/caf%C3%A9.c").unwrap();
        let mut document = Document::new(uri, "c", 1, "// é𝜋\r\nint x;\r\n".into());
        assert_eq!(document.path(), PathBuf::from("/tmp/café.c"));
        assert_eq!(uri_of(&document.path()).as_ref(), Some(&document.uri));
        assert_eq!(document.language, Some(Language::C));
        // After "// é𝜋": 3 + 1 + 2 UTF-16 units.
        let end_of_comment = Position::new(0, 6);
        document.change(
            2,
            vec![
                change(Some(Range::new(end_of_comment, end_of_comment)), "!"),
                change(
                    Some(Range::new(Position::new(1, 4), Position::new(1, 5))),
                    "y",
                ),
            ],
            Encoding::Utf16,
        );
        assert_eq!(document.text, "// é𝜋!\r\nint y;\r\n");
        document.change(3, vec![change(None, "int z;\n")], Encoding::Utf16);
        assert_eq!(document.text, "int z;\n");
        assert_eq!(document.version, 3);
    }

    #[test]
    fn the_language_comes_from_the_name_then_the_language_id() {
        let uri = |s: &str| Uri::from_str(s).unwrap();
        assert_eq!(
            language_of(&uri("file:///a/b.F"), "fortran"),
            Some(Language::FortranFixed)
        );
        assert_eq!(
            language_of(&uri("untitled:Untitled-1"), "cpp"),
            Some(Language::Cpp)
        );
        assert_eq!(language_of(&uri("untitled:Untitled-1"), "plaintext"), None);
    }
}
