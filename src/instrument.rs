//! The pipeline, end to end: front end → directive model → rules → edits →
//! output. This is the one entry point the CLI, the compiler wrappers, batch
//! runs and the editor preview call.

use crate::diagnostics::Diagnostic;
use crate::source::{Language, SourceFile};
use std::path::{Path, PathBuf};

/// Everything that decides how a file is instrumented, one part per stage.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Options {
    /// Override the language chosen by suffix (`--fixed-form`, `-x`).
    pub language: Option<Language>,
    pub rules: crate::rules::Config,
    pub output: crate::output::Config,
}

/// A successful instrumentation.
#[derive(Debug)]
pub struct Instrumented {
    pub output: Vec<u8>,
    /// Warnings (a failure carries the errors instead).
    pub diagnostics: Vec<Diagnostic>,
    /// `POMP2_Init_reg_<unique>`, when the file has regions.
    pub init_function: Option<String>,
    pub regions: usize,
    /// What the IDF document is made from, kept so that it is only built
    /// when someone asks for it.
    front_end: &'static str,
    model: crate::frontend::Model,
    plan: crate::rules::Plan,
    options: Options,
}

impl Instrumented {
    /// The IDF descriptor document of `file`, the file this came from.
    pub fn idf(&self, file: &SourceFile) -> serde_json::Value {
        crate::output::idf::document(
            file,
            self.front_end,
            &self.model,
            &self.plan,
            &self.options.rules,
            &self.options.output,
            &self.diagnostics,
        )
    }
}

/// Instrumentation refused: at least one error, no output.
#[derive(Debug)]
pub struct Failure {
    pub diagnostics: Vec<Diagnostic>,
}

/// Cheap test whether a file can need instrumenting at all: does a word
/// start with `omp` or `pomp` (any case: sentinels, `#pragma omp`,
/// `[[omp::`, lock routines `omp_...`), or does it have a Fortran `!P$`
/// line? Words such as `compute` do not count.
pub fn may_need_instrumenting(bytes: &[u8]) -> bool {
    let spelled_at = |at: usize, word: &[u8]| {
        bytes
            .get(at..at + word.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(word))
    };
    let word_starts_at =
        |at: usize| at == 0 || !(bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
    let omp = memchr::memchr2_iter(b'o', b'O', bytes).any(|at| {
        spelled_at(at, b"omp")
            && (word_starts_at(at)
                || (at > 0 && bytes[at - 1].eq_ignore_ascii_case(&b'p') && word_starts_at(at - 1)))
    });
    omp || memchr::memchr2_iter(b'p', b'P', bytes).any(|at| spelled_at(at, b"p$"))
}

/// Instrument one file held in memory.
pub fn instrument(file: &SourceFile, options: &Options) -> Result<Instrumented, Failure> {
    let front_end = crate::frontend::for_file(file);
    // Nothing to find: the file stays as it is, at the cost of a copy.
    let model = if may_need_instrumenting(&file.bytes) {
        front_end.analyse(file)
    } else {
        crate::frontend::Model::default()
    };
    let plan = crate::rules::plan(file, &model, &options.rules);
    let mut diagnostics: Vec<Diagnostic> = model
        .diagnostics
        .iter()
        .chain(&plan.diagnostics)
        .cloned()
        .collect();
    diagnostics.sort_by_key(|d| d.span.start);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Failure { diagnostics });
    }
    let output = if file.language.is_fortran() {
        crate::output::fortran::render(file, &model, &plan, &options.output)
    } else {
        crate::output::c::render(file, &model, &plan, &options.output)
    };
    Ok(Instrumented {
        output,
        init_function: plan.registration(),
        regions: plan.regions.len(),
        diagnostics,
        front_end: front_end.name(),
        model,
        plan,
        options: options.clone(),
    })
}

/// Read `input`, instrument it, and write `output` (and the IDF JSON) via
/// temporary files and renames. On failure nothing is written.
pub fn instrument_path(
    input: &Path,
    output: &Path,
    idf: Option<&Path>,
    options: &Options,
) -> anyhow::Result<(SourceFile, Result<Instrumented, Failure>)> {
    use anyhow::Context;
    let language = detect_language(input, options).with_context(|| {
        format!(
            "{}: cannot tell the language from the suffix; use -x c, -x c++, --free-form or --fixed-form",
            input.display()
        )
    })?;
    let bytes = std::fs::read(input).with_context(|| format!("cannot read {}", input.display()))?;
    let file = SourceFile::new(input, bytes, language);
    let result = instrument(&file, options);
    if let Ok(done) = &result {
        if same_file(input, output) {
            anyhow::bail!(
                "refusing to overwrite the input {}: choose another -o",
                input.display()
            );
        }
        let idf_bytes = match idf {
            Some(_) => Some(serde_json::to_vec_pretty(&done.idf(&file))?),
            None => None,
        };
        crate::output::write_atomically(output, &done.output)
            .with_context(|| format!("cannot write {}", output.display()))?;
        if let (Some(path), Some(bytes)) = (idf, idf_bytes) {
            crate::output::write_atomically(path, &bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    Ok((file, result))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The name the language is detected from: `--fixed-form` and friends win.
pub fn detect_language(path: &Path, options: &Options) -> Option<Language> {
    options.language.or_else(|| Language::from_path(path))
}

/// A stable file name for instrumented output next to nothing in the source
/// tree: `<stem>.pomp.<ext>` (Fortran keeps a capital suffix so the compiler
/// preprocesses the `#line` markers).
pub fn instrumented_name(input: &Path, language: Language) -> PathBuf {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = input
        .extension()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = if language.is_fortran() {
        ext.to_uppercase()
    } else {
        ext
    };
    PathBuf::from(format!("{stem}.pomp.{ext}"))
}

/// `pomp instrument`: run the pipeline on one file, print diagnostics the
/// way a compiler does, and exit non-zero on error.
pub fn run_cli(
    input: &Path,
    output: &Path,
    idf: Option<&Path>,
    options: &Options,
) -> std::process::ExitCode {
    use std::io::IsTerminal;
    let color = std::io::stderr().is_terminal();
    match instrument_path(input, output, idf, options) {
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
        Ok((file, Ok(done))) => {
            eprint!(
                "{}",
                crate::diagnostics::render(&file, &done.diagnostics, color)
            );
            std::process::ExitCode::SUCCESS
        }
        Ok((file, Err(failure))) => {
            eprint!(
                "{}",
                crate::diagnostics::render(&file, &failure.diagnostics, color)
            );
            let errors = failure.diagnostics.iter().filter(|d| d.is_error()).count();
            eprintln!(
                "error: {} not instrumented ({errors} error{}); nothing was written",
                input.display(),
                if errors == 1 { "" } else { "s" }
            );
            std::process::ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::may_need_instrumenting;

    #[test]
    fn only_words_starting_with_omp_or_pomp_count() {
        for text in [
            "#pragma omp parallel",
            "#  pragma  pomp inst begin(x)",
            "_Pragma(\"omp barrier\")",
            "[[omp::directive(parallel)]]",
            "omp_set_lock(&l);",
            "!$OMP PARALLEL",
            "C$omp do",
            "!P$ print *, 'measured'",
        ] {
            assert!(may_need_instrumenting(text.as_bytes()), "{text}");
        }
        for text in [
            "compute(components);",
            "#pragma once",
            "/* OpenMP-free */",
            "",
        ] {
            assert!(!may_need_instrumenting(text.as_bytes()), "{text}");
        }
    }
}
