//! Diagnostics that point at the user's source, rendered with codespan-reporting.

use crate::source::{SourceFile, Span};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub message: String,
    /// The bytes to underline in the original file.
    pub span: Span,
    /// Short text under the underline.
    pub label: String,
    /// Further places to underline, each with its text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, span, message, label)
    }

    pub fn warning(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, span, message, label)
    }

    pub fn note(span: Span, message: impl Into<String>, label: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, span, message, label)
    }

    fn new(
        severity: Severity,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            label: label.into(),
            secondary: vec![],
            notes: vec![],
        }
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Underline `span` too, with `label` beneath.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Render diagnostics as the compiler would, with the source line underlined.
pub fn render(file: &SourceFile, diagnostics: &[Diagnostic], color: bool) -> String {
    if diagnostics.is_empty() {
        return String::new();
    }
    let text = String::from_utf8_lossy(&file.bytes);
    let files = SimpleFile::new(file.path.display().to_string(), text.as_ref());
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    let config = term::Config::default();
    for d in diagnostics {
        let severity = match d.severity {
            Severity::Note => codespan_reporting::diagnostic::Severity::Note,
            Severity::Warning => codespan_reporting::diagnostic::Severity::Warning,
            Severity::Error => codespan_reporting::diagnostic::Severity::Error,
        };
        let clamp = |span: &Span| {
            let end = span.end.min(text.len());
            span.start.min(end)..end
        };
        let mut labels = vec![Label::primary((), clamp(&d.span)).with_message(&d.label)];
        labels.extend(
            d.secondary
                .iter()
                .map(|(span, label)| Label::secondary((), clamp(span)).with_message(label)),
        );
        let cs = CsDiagnostic::new(severity)
            .with_message(&d.message)
            .with_labels(labels)
            .with_notes(d.notes.clone());
        let _ = term::emit_to_write_style(&mut buffer, &config, &files, &cs);
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}
