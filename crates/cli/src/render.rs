//! Diagnostics rendered for a terminal with codespan-reporting: the
//! user's file and line through any line markers, repeats folded, the
//! options advised spelt as the printing tool takes them.

use crate::options::{respell, Spelling};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::{self, Files};
use codespan_reporting::term::{self, termcolor};
use pomp_core::diagnostics::{Diagnostic, Severity};
use pomp_core::source::{FileId, SourceFile, Span};
use std::borrow::Cow;
use std::collections::HashMap;

/// A file as codespan-reporting reads it. Lines are where the source
/// file already found them, unless the text is not UTF-8: then its lossy
/// conversion moves them. Each file the line markers name is one of its
/// files: the same text, named and numbered as the markers say, so that
/// a diagnostic points at the user's file and line and shows the text
/// pomp read.
struct Listing<'a> {
    file: &'a SourceFile,
    names: Vec<String>,
    text: Cow<'a, str>,
    line_starts: Cow<'a, [u32]>,
}

impl<'a> Listing<'a> {
    fn new(file: &'a SourceFile) -> Listing<'a> {
        // The validation alone is word at a time over ASCII; the lossy
        // conversion goes byte by byte, a cost a large file notices.
        let text = match std::str::from_utf8(&file.bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&file.bytes),
        };
        let line_starts = match &text {
            Cow::Borrowed(_) => Cow::Borrowed(file.line_starts()),
            Cow::Owned(text) => Cow::Owned(files::line_starts(text).map(|s| s as u32).collect()),
        };
        let mut names = file.file_names();
        names[FileId::INPUT.index()] = file.path.display().to_string();
        Listing {
            file,
            names,
            text,
            line_starts,
        }
    }
}

impl<'a> Files<'a> for Listing<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.names[id.index()])
    }

    fn source(&'a self, _: FileId) -> Result<&'a str, files::Error> {
        Ok(&self.text)
    }

    fn line_index(&'a self, _: FileId, byte_index: usize) -> Result<usize, files::Error> {
        Ok(self
            .line_starts
            .partition_point(|&start| start as usize <= byte_index)
            .saturating_sub(1))
    }

    fn line_number(&'a self, _: FileId, line_index: usize) -> Result<usize, files::Error> {
        Ok(self.file.line_map().place(line_index + 1).line)
    }

    fn line_range(&'a self, _: FileId, line_index: usize) -> Result<Span, files::Error> {
        let start = |line: usize| match line.cmp(&self.line_starts.len()) {
            std::cmp::Ordering::Less => Ok(self.line_starts[line] as usize),
            std::cmp::Ordering::Equal => Ok(self.text.len()),
            std::cmp::Ordering::Greater => Err(files::Error::LineTooLarge {
                given: line,
                max: self.line_starts.len() - 1,
            }),
        };
        Ok(start(line_index)?..start(line_index + 1)?)
    }
}

/// Render diagnostics as the compiler would, with the source line
/// underlined, for `pomp instrument` and the other commands.
pub fn render(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    render_for(file, diagnostics, color, Spelling::Command)
}

/// [`render`] for the tool that `spelling` names: options the notes advise
/// spelt as that tool takes them, and warnings and notes that repeat for
/// many constructs of the file shown once, with how often and where.
/// Errors are each shown.
pub fn render_for(
    file: &SourceFile,
    diagnostics: &[Diagnostic],
    color: bool,
    spelling: Spelling,
) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let diagnostics = fold_repeated(file, diagnostics, spelling);
    let files = Listing::new(file);
    let text = &files.text;
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    let config = term::Config::default();
    for d in &diagnostics {
        let severity = match d.severity {
            Severity::Note => codespan_reporting::diagnostic::Severity::Note,
            Severity::Warning => codespan_reporting::diagnostic::Severity::Warning,
            Severity::Error => codespan_reporting::diagnostic::Severity::Error,
        };
        let clamp = |span: &Span| {
            let end = span.end.min(text.len());
            span.start.min(end)..end
        };
        let in_file = |span: &Span| file.place(clamp(span).start).file;
        let mut labels =
            vec![Label::primary(in_file(&d.span), clamp(&d.span)).with_message(&d.label)];
        labels.extend(
            d.secondary.iter().map(|(span, label)| {
                Label::secondary(in_file(span), clamp(span)).with_message(label)
            }),
        );
        let mut notes = d.notes.clone();
        if !file.line_map().is_empty() {
            notes.push(format!(
                "{}:{}: where it stands in the preprocessed input",
                file.path.display(),
                file.line_of(clamp(&d.span).start)
            ));
        }
        let cs = CsDiagnostic::new(severity)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(notes);
        let _ = term::emit_to_write_style(&mut buffer, &config, &files, &cs);
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// Lines listed where a repeated diagnostic says where else it applies.
const REPEATS_LISTED: usize = 10;

/// `diagnostics` respelt for `spelling`, each warning or note that repeats
/// (the same severity, message and notes) kept at its first place with a
/// note counting and listing the others.
fn fold_repeated(
    file: &SourceFile,
    diagnostics: &[Diagnostic],
    spelling: Spelling,
) -> Vec<Diagnostic> {
    let mut shown: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
    let mut repeats: Vec<Vec<usize>> = Vec::with_capacity(diagnostics.len());
    let mut first: HashMap<(Severity, &str, &[String]), usize> = HashMap::new();
    for d in diagnostics {
        let key = (d.severity, d.message.as_str(), d.notes.as_slice());
        match first.get(&key).filter(|_| !d.is_error()) {
            Some(&at) => repeats[at].push(file.user_line(d.span.start)),
            None => {
                first.insert(key, shown.len());
                shown.push(d.clone());
                repeats.push(Vec::new());
            }
        }
    }
    for (d, lines) in shown.iter_mut().zip(repeats) {
        if !lines.is_empty() {
            let mut listed: Vec<String> = lines
                .iter()
                .take(REPEATS_LISTED)
                .map(ToString::to_string)
                .collect();
            if lines.len() > REPEATS_LISTED {
                listed.push("...".into());
            }
            let count = lines.len() + 1;
            d.notes.push(format!(
                "the same for {count} constructs of this file: here and at line{} {}",
                if lines.len() == 1 { "" } else { "s" },
                listed.join(", ")
            ));
        }
        d.message = respell(&d.message, &d.advice, spelling).into_owned();
        for note in &mut d.notes {
            *note = respell(note, &d.advice, spelling).into_owned();
        }
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use codespan_reporting::files::SimpleFile;
    use pomp_core::language::Language;

    /// What codespan-reporting's own file type renders, lines found anew.
    fn rendered_by_simple_file(file: &SourceFile, diagnostics: &[Diagnostic]) -> String {
        let text = String::from_utf8_lossy(&file.bytes);
        let files = SimpleFile::new(file.path.display().to_string(), text.as_ref());
        let mut buffer = termcolor::Buffer::no_color();
        for d in diagnostics {
            let end = d.span.end.min(text.len());
            let cs = CsDiagnostic::error()
                .with_message(&d.message)
                .with_labels(vec![
                    Label::primary((), d.span.start.min(end)..end).with_message(&d.label)
                ])
                .with_notes(d.notes.clone());
            term::emit_to_write_style(&mut buffer, &term::Config::default(), &files, &cs).unwrap();
        }
        String::from_utf8_lossy(buffer.as_slice()).into_owned()
    }

    #[test]
    fn diagnostics_render_as_with_lines_found_anew() {
        let texts: [&[u8]; 5] = [
            b"int a;\n#pragma omp parallel\n{ x(); }\n",
            b"no newline at the end",
            b"\n\n\nlast\n",
            b"caf\xc3\xa9 \xff\xfe broken\nsecond \xe2\x82 line\nthird\n",
            b"",
        ];
        for text in texts {
            let file = SourceFile::new("t.c", text.to_vec(), Language::C);
            let lossy = String::from_utf8_lossy(text).len();
            let mut diagnostics = Vec::new();
            for start in 0..=lossy {
                for end in [start, (start + 3).min(lossy), lossy] {
                    diagnostics
                        .push(Diagnostic::error(start..end, "m", "here").with_note("a note"));
                }
            }
            let ours = render(&file, &diagnostics, false);
            assert_eq!(ours, rendered_by_simple_file(&file, &diagnostics));
            assert!(diagnostics.is_empty() || ours.contains("here"));
        }
    }
}
