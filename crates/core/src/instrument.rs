//! The pipeline, end to end: front end → directive model → rules → edits →
//! output. This is the one entry point the CLI, the compiler wrappers, batch
//! runs and the editor preview call.

use crate::diagnostics::Diagnostic;
use crate::language::Language;
use crate::source::SourceFile;
use std::path::{Path, PathBuf};

/// Everything that decides how a file is instrumented, one part per stage.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Options {
    /// Override the language chosen by suffix (`--fixed-form`, `-x`).
    pub language: Option<Language>,
    pub rules: crate::rules::Config,
    pub output: crate::output::Config,
    /// Which front end reads C and C++, with the compile flags it may use.
    pub front_end: crate::frontend::Options,
    /// Read C and C++ with both front ends too, and make every difference
    /// in the directives and blocks they find an error.
    pub cross_check: bool,
}

impl Options {
    /// These options for a run that writes the output and reads none of
    /// the edits' texts itself (`pomp instrument`, the compiler wrappers,
    /// batch runs): the constructs' texts are made as the output is
    /// written, and a large file's inserted text is never held whole.
    pub fn for_writing(&self) -> Options {
        let mut options = self.clone();
        options.output.texts_when_written = true;
        options
    }
}

/// Everything the pipeline found and made for one file: what the front
/// end saw, what the rules planned, the edits and the text they give, and
/// the diagnostics. Directives that failed are left out of the plan, so
/// when some fail the rest is still here to look at; only a file without
/// errors may be written.
#[derive(Debug)]
pub struct Instrumentation {
    pub front_end: &'static str,
    pub model: crate::model::Model,
    pub plan: crate::rules::NamedPlan,
    pub edits: crate::edits::EditSet,
    /// The text of the file the output includes its declarations from,
    /// when the options put them into one
    /// ([`crate::output::Config::declarations_file`]).
    pub declarations: Option<String>,
    /// Errors and warnings of every stage, in file order.
    pub diagnostics: Vec<Diagnostic>,
    pub options: Options,
}

impl Instrumentation {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// `POMP2_Init_reg_<unique>_<n>`, when the file registers construct
    /// regions.
    pub fn init_function(&self) -> Option<String> {
        self.plan.registration()
    }

    /// Every registration function the file defines: its construct
    /// regions' and its user regions'.
    pub fn registrations(&self) -> Vec<String> {
        self.plan.registrations()
    }

    /// The instrumented text of `file`, the file this came from: its bytes
    /// with the edits applied.
    pub fn output(&self, file: &SourceFile) -> Vec<u8> {
        let mut later = self.later_texts(file);
        (self.edits).apply_making(&file.bytes, |key, text| later.make(key, text))
    }

    /// What makes the texts the edits left to be made
    /// ([`crate::output::Config::texts_when_written`]).
    fn later_texts<'a>(&'a self, file: &'a SourceFile) -> crate::output::LaterTexts<'a> {
        crate::output::LaterTexts::new(file, &self.model, &self.plan, &self.options.output)
    }

    /// [`Instrumentation::output`], written to `to` as it is made.
    pub fn write_output<W: std::io::Write + ?Sized>(
        &self,
        file: &SourceFile,
        to: &mut W,
    ) -> std::io::Result<()> {
        // The input's pages go as soon as they are written: a large file
        // is never held whole a second time, after its reading.
        const RELEASED_BY: usize = 1 << 20;
        let mut released = 0;
        let mut later = self.later_texts(file);
        let make = |key, text: &mut String| later.make(key, text);
        self.edits.write_telling(&file.bytes, to, make, |written| {
            if written >= released + RELEASED_BY {
                file.bytes.release_pages_before(written);
                released = written;
            }
        })
    }

    /// Whether compiling the output differs from compiling the original.
    pub fn changes_anything(&self) -> bool {
        !self.edits.is_empty()
    }

    /// The IDF descriptor document of `file`, the file this came from.
    pub fn idf(&self, file: &SourceFile) -> pomp2::idf::Document {
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

/// What the pipeline finds of a file before it writes anything: the
/// front end's model, the plan and every diagnostic. Rendering it gives
/// the [`Instrumentation`]; an editor checking a buffer as the user types
/// needs only this.
#[derive(Clone, Debug)]
pub struct Checked {
    pub front_end: &'static str,
    pub model: crate::model::Model,
    pub plan: crate::rules::Plan,
    /// Errors and warnings of every stage, in file order.
    pub diagnostics: Vec<Diagnostic>,
    pub options: Options,
}

impl Checked {
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The edits the plan makes to `file`, the file this came from, and
    /// the text they give.
    pub fn render(self, file: &SourceFile) -> Instrumentation {
        let plan = self.plan.named(file);
        let emitted = crate::output::emit(file, &self.model, &plan, &self.options.output);
        Instrumentation {
            front_end: self.front_end,
            model: self.model,
            plan,
            edits: emitted.edits,
            declarations: emitted.declarations,
            diagnostics: self.diagnostics,
            options: self.options,
        }
    }
}

/// Why a source file could not be instrumented at all.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error(
        "{}: cannot tell the language from the suffix; use -x c, -x c++, --free-form or --fixed-form",
        .0.display()
    )]
    UnknownLanguage(PathBuf),
    #[error("cannot read {}: {cause}", .path.display())]
    Unreadable {
        path: PathBuf,
        cause: std::io::Error,
    },
    /// A defect of pomp, caught so that one file does not stop a build.
    #[error("internal error while instrumenting {}: {message}", .path.display())]
    Internal { path: PathBuf, message: String },
}

/// Read a source file; its language is `language`, or else told by the
/// suffix.
pub fn read_source(path: &Path, language: Option<Language>) -> Result<SourceFile, InputError> {
    let language = language
        .or_else(|| Language::from_path(path))
        .ok_or_else(|| InputError::UnknownLanguage(path.to_path_buf()))?;
    let bytes = crate::source::Bytes::read(path).map_err(|cause| InputError::Unreadable {
        path: path.to_path_buf(),
        cause,
    })?;
    Ok(SourceFile::new(path, bytes, language))
}

/// [`instrument`], with a defect of pomp (a panic) turned into an error, so
/// that builds and batch runs over many files report it and go on.
pub fn instrument_guarded(
    file: &SourceFile,
    options: &Options,
) -> Result<Instrumentation, InputError> {
    guarded(file, || instrument(file, options))
}

/// What an editor keeps between the readings of one buffer, so that
/// instrumenting it again after a change parses only what changed. One per
/// open document; handing it another file costs a parse from scratch, never
/// a wrong result.
#[derive(Default)]
pub struct Session {
    last_reading: crate::frontend::LastReading,
}

/// [`instrument_guarded`] of a new version of the text `session` saw
/// before: the result is exactly [`instrument`]'s.
pub fn instrument_again(
    file: &SourceFile,
    options: &Options,
    session: &mut Session,
) -> Result<Instrumentation, InputError> {
    let checked = check_again(file, options, session)?;
    guarded(file, || checked.render(file))
}

/// The model, plan and diagnostics of a new version of the text `session`
/// saw before, a defect of pomp caught: exactly what [`instrument`] finds,
/// without rendering the edits.
pub fn check_again(
    file: &SourceFile,
    options: &Options,
    session: &mut Session,
) -> Result<Checked, InputError> {
    let result = guarded(file, || {
        check_reading(file, options, Some(&mut session.last_reading))
    });
    if result.is_err() {
        // What a failed reading left behind is not to be trusted.
        session.last_reading.clear();
    }
    result
}

fn guarded<T>(file: &SourceFile, work: impl FnOnce() -> T) -> Result<T, InputError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        InputError::Internal {
            path: file.path.clone(),
            message,
        }
    })
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
pub fn instrument(file: &SourceFile, options: &Options) -> Instrumentation {
    check_reading(file, options, None).render(file)
}

/// The pipeline up to the plan, the file read again after `last` when
/// given.
fn check_reading(
    file: &SourceFile,
    options: &Options,
    last: Option<&mut crate::frontend::LastReading>,
) -> Checked {
    let front_end = crate::frontend::for_file(file, &options.front_end);
    // Nothing to find: the file stays as it is, at the cost of a copy.
    let model = match last {
        _ if !options.front_end.regions.any() && !may_need_instrumenting(&file.bytes) => {
            crate::model::Model::default()
        }
        Some(last) => crate::model::complete(file, front_end.read_again(file, last)),
        None => crate::source::read_apart(file, || front_end.analyse(file)),
    };
    let front_end = front_end.name();
    let plan = crate::rules::check(file, &model, &options.rules);
    let mut diagnostics: Vec<Diagnostic> = model
        .diagnostics
        .iter()
        .chain(&plan.diagnostics)
        .cloned()
        .collect();
    if options.cross_check && !file.language.is_fortran() {
        let flags = options.front_end.compile_flags.clone().unwrap_or_default();
        diagnostics.extend(crate::frontend::libclang::cross_check::cross_check(
            file, &flags,
        ));
    }
    diagnostics.sort_by_key(|d| d.span.start);
    Checked {
        front_end,
        model,
        plan,
        diagnostics,
        options: options.clone(),
    }
}

/// Read and instrument one source file, a defect of pomp caught: the work
/// `pomp instrument`, the compiler wrappers and batch runs do for each
/// file. Nothing is printed or written; the caller decides what the
/// diagnostics and the output become.
pub fn instrument_source(
    path: &Path,
    language: Option<Language>,
    options: &Options,
) -> Result<(SourceFile, Instrumentation), InputError> {
    let file = read_source(path, language)?;
    let done = instrument_guarded(&file, options)?;
    Ok((file, done))
}

/// Read `input`, instrument it, and, when it has no errors, write `output`
/// (and the IDF JSON) via temporary files and renames. With errors nothing
/// is written; the diagnostics say why. Without `output` the instrumented
/// text is the caller's to write, once the files written here are in place.
pub fn instrument_path(
    input: &Path,
    output: Option<&Path>,
    idf: Option<&Path>,
    options: &Options,
) -> anyhow::Result<(SourceFile, Instrumentation)> {
    use anyhow::Context;
    let options = &options.for_writing();
    let (file, done) = instrument_source(input, options.language, options)?;
    if done.has_errors() {
        return Ok((file, done));
    }
    if output.is_some_and(|output| same_file(input, output)) {
        anyhow::bail!(
            "refusing to overwrite the input {}: choose another -o",
            input.display()
        );
    }
    let idf_bytes = match idf {
        Some(_) => Some(serde_json::to_vec_pretty(&done.idf(&file))?),
        None => None,
    };
    // Every output is made before any is put in place: all or none.
    let staged_output = match output {
        None => None,
        Some(output) => Some(
            pomp_files::stage(output, |to| done.write_output(&file, to))
                .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", output.display()))?,
        ),
    };
    let staged_idf = match (idf, idf_bytes) {
        (Some(path), Some(bytes)) => Some(
            pomp_files::stage(path, |to| to.write_all(&bytes))
                .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", path.display()))?,
        ),
        _ => None,
    };
    if let (Some(staged), Some(output)) = (staged_output, output) {
        staged
            .commit()
            .with_context(|| format!("cannot write {}", output.display()))?;
    }
    if let (Some(staged), Some(path)) = (staged_idf, idf) {
        staged
            .commit()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok((file, done))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
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
    PathBuf::from(format!(
        "{stem}.pomp.{}",
        language.instrumented_suffix(&ext)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edits::Origin;

    fn instrumented(text: &str, language: Language) -> Instrumentation {
        let file = SourceFile::new("t", text.as_bytes().to_vec(), language);
        instrument(&file, &Options::default())
    }

    /// A large file is mapped, read through a private copy, and its pages
    /// let go and taken again while it is written: the output is the one
    /// made of the same bytes held in memory.
    #[test]
    fn a_mapped_file_is_instrumented_as_the_same_bytes_in_memory() {
        let unit = "static int pick(int n) {\n  int s = 0;\n#pragma omp parallel for reduction(+:s)\n  for (int i = 0; i < n; i++)\n    if (i % 3) s += i; else s -= 1;\n  return s;\n}\n#if 0\n#pragma omp barrier\n#endif\n";
        let mut text = String::new();
        let mut copies = 0;
        while text.len() < 3 * (1 << 20) {
            text.push_str(&unit.replace("pick", &format!("pick{copies}")));
            copies += 1;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.cpp");
        std::fs::write(&path, &text).unwrap();
        let mapped = read_source(&path, None).unwrap();
        assert!(matches!(mapped.bytes, crate::source::Bytes::Mapped(_)));
        let held = SourceFile::new(&path, text.as_bytes().to_vec(), Language::Cpp);
        let (from_mapped, from_held) = (
            instrument(&mapped, &Options::default()),
            instrument(&held, &Options::default()),
        );
        assert!(!from_mapped.has_errors());
        assert_eq!(from_mapped.plan.regions.len(), copies);
        let mut written = Vec::new();
        from_mapped.write_output(&mapped, &mut written).unwrap();
        assert!(written == from_held.output(&held), "outputs differ");
        assert_eq!(&*mapped.bytes, text.as_bytes());
    }

    #[test]
    fn failed_directives_leave_the_rest_planned_and_edited() {
        let c =
            "void f(int n) {\n#pragma omp barrier\n}\nvoid g(void) {\n#pragma omp parallel\n}\n";
        let done = instrumented(c, Language::C);
        assert!(done.has_errors());
        assert_eq!(done.plan.regions.len(), 1);
        assert_eq!(done.plan.regions[0].region_type, "barrier");
        assert!(done.edits.iter().any(|e| e.origin.region() == Some(0)));

        let fortran = "subroutine s\n!$omp parallel\nx = 1\nend subroutine\nsubroutine t\n!$omp barrier\nend subroutine\n";
        let done = instrumented(fortran, Language::FortranFree);
        assert!(done.has_errors());
        let types: Vec<&str> = done.plan.regions.iter().map(|r| &*r.region_type).collect();
        assert_eq!(types, ["barrier"]);
    }

    #[test]
    fn every_edit_names_its_directive_or_the_file() {
        let c = "#include <omp.h>\nint main(void) {\n  omp_lock_t l;\n  omp_init_lock(&l);\n#pragma omp parallel\n  { }\n  return 0;\n}\n";
        let done = instrumented(c, Language::C);
        assert!(!done.has_errors());
        let origins: Vec<&Origin> = done.edits.iter().map(|e| &e.origin).collect();
        assert!(origins.contains(&&Origin::File));
        assert!(origins.contains(&&Origin::LockCall));
        let site_edits = origins
            .iter()
            .filter(|o| {
                matches!(
                    o,
                    Origin::Site {
                        site: 0,
                        region: Some(0)
                    }
                )
            })
            .count();
        // The directive's lines, and the code closing its block.
        assert_eq!(site_edits, 2);
    }

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

    /// Texts made as the output is written give the output, and the
    /// declarations, that texts made with the edits give: on every C and
    /// C++ program of the corpus, with the interfaces and event sets that
    /// change which calls, and so which prototypes, a file needs.
    #[test]
    fn texts_made_when_written_give_the_same_output() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut variants = vec![Options::default()];
        for interface in [
            crate::rules::Interface::Pomp1,
            crate::rules::Interface::Pomp2,
        ] {
            let mut options = Options::default();
            options.rules.interface = interface;
            options.rules.events = crate::rules::EventSet::Opari2;
            options.output.declarations_file = Some("declarations.inc".into());
            variants.push(options);
        }
        let mut pending = vec![root];
        let mut files = 0;
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                let Some(language @ (Language::C | Language::Cpp)) = Language::from_path(&path)
                else {
                    continue;
                };
                let file = read_source(&path, Some(language)).unwrap();
                for options in &variants {
                    let made = instrument(&file, options);
                    let expected = made.output(&file);
                    let later = instrument(&file, &options.for_writing());
                    assert_eq!(
                        String::from_utf8_lossy(&later.output(&file)),
                        String::from_utf8_lossy(&expected),
                        "{} with {options:?}",
                        path.display()
                    );
                    let mut written = Vec::new();
                    later.write_output(&file, &mut written).unwrap();
                    assert_eq!(written, expected, "{}", path.display());
                    assert_eq!(later.declarations, made.declarations, "{}", path.display());
                }
                files += 1;
            }
        }
        assert!(files > 40, "{files} files");
    }
}
