//! An editor reads its buffer again after every change, reusing the
//! previous reading's syntax tree. Whatever the change, the result must be
//! the one instrumenting the text from scratch gives: every corpus program
//! and test case is edited the ways typing edits it (a letter added that
//! breaks the syntax, taken back, lines and directives added, a brace
//! opened), each version instrumented again with one `Session` kept across all
//! files (as the language server does) and compared, output byte for byte
//! and diagnostics, with `instrument`.

use pomp_core::instrument::{instrument, instrument_again, Options, Session};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use std::path::PathBuf;

#[path = "support/c_sources.rs"]
mod c_sources;

fn sources() -> Vec<PathBuf> {
    c_sources::c_sources(&["corpus", "tests/cases"])
}

/// The versions of `text` a few changes at `at` make, one after another,
/// ending where it began.
fn versions(text: &str, at: usize) -> Vec<String> {
    let at = (0..=at).rev().find(|&i| text.is_char_boundary(i)).unwrap();
    let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let with =
        |offset: usize, inserted: &str| format!("{}{inserted}{}", &text[..offset], &text[offset..]);
    vec![
        with(at, "x"),
        text.to_string(),
        with(line, "\n"),
        with(line, "#pragma omp barrier\n"),
        with(line, "#pragma omp barrier\n#pragma omp flush\n"),
        with(at, "{"),
        with(at, "}"),
        text.to_string(),
    ]
}

fn diagnostics(list: &[pomp_core::diagnostics::Diagnostic]) -> Vec<String> {
    let mut out: Vec<String> = list
        .iter()
        .map(|d| format!("{:?} {:?} {} / {}", d.severity, d.span, d.message, d.label))
        .collect();
    out.sort();
    out
}

#[test]
fn every_edit_reads_as_the_text_read_from_scratch() {
    let options = Options::default();
    let mut session = Session::default();
    for path in sources() {
        let language = Language::from_path(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut edited = vec![text.clone()];
        for part in 1..4 {
            edited.extend(versions(&text, text.len() * part / 4));
        }
        for (step, version) in edited.into_iter().enumerate() {
            let file = SourceFile::new(&path, version.into_bytes(), language);
            let again = instrument_again(&file, &options, &mut session).unwrap();
            let output = again.output(&file);
            let found = again.diagnostics;
            let fresh = instrument(&file, &options);
            assert_eq!(
                diagnostics(&found),
                diagnostics(&fresh.diagnostics),
                "{} after edit {step}: diagnostics differ",
                path.display()
            );
            assert!(
                output == fresh.output(&file),
                "{} after edit {step}: output differs",
                path.display()
            );
        }
    }
}
