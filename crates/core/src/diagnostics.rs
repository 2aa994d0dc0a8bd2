//! Diagnostics that point at the user's source, as data: where, what,
//! and which option would change the outcome. The tools above render
//! them, each spelling options its own way.

use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
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
    /// The options the message and notes advise, named in them by
    /// [`Advice`]'s display, so that each tool can respell them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<Advice>,
}

/// An instrumentation option a diagnostic advises, with its value. The
/// text names it by the option's own name, `` `--keep-untied` ``; the
/// compiler wrappers and the language server spell it their way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Advice {
    pub option: &'static str,
    pub value: Option<&'static str>,
}

impl Advice {
    /// Leave untied tasks untied.
    pub const KEEP_UNTIED: Advice = Advice {
        option: "keep-untied",
        value: None,
    };
    /// Read C and C++ as written, without libclang.
    pub const TREE_SITTER: Advice = Advice {
        option: "frontend",
        value: Some("tree-sitter"),
    };
    /// Every advice the instrumenter gives, for the tools to check that
    /// they offer each.
    pub const ALL: &'static [Advice] = &[Advice::KEEP_UNTIED, Advice::TREE_SITTER];
}

impl std::fmt::Display for Advice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.value {
            Some(value) => write!(f, "`--{}={value}`", self.option),
            None => write!(f, "`--{}`", self.option),
        }
    }
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
            advice: vec![],
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

    /// A note naming `advice`, which `note` writes from it, and the advice
    /// recorded as data, so that each tool can offer it in its own words.
    pub fn with_advice(
        mut self,
        advice: Advice,
        note: impl FnOnce(Advice) -> String,
    ) -> Diagnostic {
        self.notes.push(note(advice));
        self.advice.push(advice);
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
