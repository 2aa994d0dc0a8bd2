//! Instrumenting the sources of one compiler command line into the scratch
//! directory, and reporting what was found the way a compiler does.

use super::compiler::Compiler;
use super::scratch::LazyScratch;
use crate::options::{OnError, WrapperOptions, WRAPPER_FLAGS};
use crate::Messages;
use anyhow::{Context, Result};
use pomp2::registration::pomp1::Region as Pomp1Region;
use pomp2::registration::InitFunction;
use pomp_cli::options::Spelling;
use pomp_cmdline::{CommandLine, Input, Mode};
use pomp_core::directive::Sentinel;
use pomp_core::instrument::{self, InputError, Options};
use pomp_core::language::Language;
use pomp_core::model::DirectiveForm;
use pomp_core::rules::{Interface, Library};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A source instrumented for this invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstrumentedSource {
    /// Position of the argument naming it on the command line.
    pub arg_index: usize,
    pub user_path: PathBuf,
    /// The instrumented copy the compiler reads, in the scratch directory.
    pub compiled_path: PathBuf,
    pub language: Language,
    pub explicit_language: Option<String>,
    pub init_functions: Vec<InitFunction>,
    /// Its regions of the original interface (OPARI 1.1's), for the table.
    pub pomp1_regions: Vec<Pomp1Region>,
    /// The interface its calls go to.
    pub interface: Interface,
}

impl InstrumentedSource {
    /// The user's file name without its suffix, as objects are named.
    pub fn user_stem(&self) -> String {
        self.user_path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }
}

/// A failure whose cause was already printed: by the instrumenter's
/// diagnostics, or by a compiler that ended with this status.
#[derive(Debug)]
pub struct AlreadyReported(pub u8);

impl std::fmt::Display for AlreadyReported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failed")
    }
}

impl std::error::Error for AlreadyReported {}

/// Instrument every source of `line` that needs it into the scratch
/// directory; the others are compiled as they are.
///
/// When the program is linked with a library other than pomp's runtime,
/// the sources call only the events it defines; which constructs that
/// leaves unmeasured is said once.
pub fn instrument_sources(
    compiler: Compiler,
    line: &CommandLine,
    wrapper: &WrapperOptions,
    scratch: &mut LazyScratch,
    messages: &mut Messages,
) -> Result<Vec<InstrumentedSource>> {
    let library = super::library::chosen_library(
        wrapper.runtime.as_deref(),
        wrapper.instrument.rules.interface,
        &line.library_dirs,
        &compiler.command()?,
    )?;
    let mut instrumented = Vec::new();
    let mut unmeasured = BTreeSet::new();
    let mut without_openmp = Vec::new();
    for (number, (_, input, language)) in line.sources().enumerate() {
        let source = SourceJob {
            compiler,
            line,
            wrapper,
            input,
            language,
            library: library.clone(),
        };
        let (done, has_directives) =
            source.instrument(number, scratch, messages, &mut unmeasured)?;
        if has_directives && !line.openmp {
            without_openmp.push(input.path.as_path());
        }
        instrumented.extend(done);
    }
    if !without_openmp.is_empty() {
        warn_without_openmp(compiler, &without_openmp, messages)?;
    }
    let note = library
        .as_ref()
        .and_then(|library| super::library::unmeasured_note(library, &unmeasured));
    if let Some(note) = note {
        writeln!(messages.to, "{}: note: {note}", compiler.wrapper_name())?;
    }
    Ok(instrumented)
}

/// Once per command line: sources with OpenMP directives compiled without
/// the compiler's OpenMP option, which would ignore them and run the
/// program on one thread (a Makefile that adds `-fopenmp` only when
/// `$(CC)` names gcc does this to `pomp-cc`).
fn warn_without_openmp(compiler: Compiler, files: &[&Path], messages: &mut Messages) -> Result<()> {
    let name = compiler.wrapper_name();
    let underlying = compiler.underlying_name();
    let listed: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let (flags_variable, cmake_target) = match compiler {
        Compiler::C => ("CFLAGS", "OpenMP::OpenMP_C"),
        Compiler::Cxx => ("CXXFLAGS", "OpenMP::OpenMP_CXX"),
        Compiler::Fortran => ("FFLAGS", "OpenMP::OpenMP_Fortran"),
    };
    writeln!(
        messages.to,
        "{name}: warning: {} {} OpenMP directives but this command line has no -fopenmp: \
         `{underlying}` ignores them and the program runs on one thread",
        listed.join(", "),
        if files.len() == 1 { "has" } else { "have" },
    )?;
    writeln!(
        messages.to,
        "{name}: note: add the compiler's OpenMP option (-fopenmp; clang also -fopenmp=libomp) \
         to the flags these files are compiled with: in a Makefile {flags_variable}, in CMake \
         find_package(OpenMP) and link {cmake_target}; a build that adds it only when the \
         compiler's name says gcc or clang does not add it for {name}"
    )?;
    Ok(())
}

struct SourceJob<'a> {
    compiler: Compiler,
    line: &'a CommandLine,
    wrapper: &'a WrapperOptions,
    input: &'a Input,
    language: Language,
    /// The library linked instead of pomp's runtime, if any.
    library: Option<Arc<Library>>,
}

impl SourceJob<'_> {
    fn options(&self) -> Options {
        let mut options = Options {
            language: self.input.explicit_language.as_ref().map(|_| self.language),
            ..self.wrapper.instrument.for_writing()
        };
        options.rules.library = self.library.clone();
        // The command line says how the compiler reads the file: the clang
        // front end reads it so too.
        options.front_end.compile_flags =
            Some(self.line.compile_flags(std::env::current_dir().ok()));
        options
    }

    /// Instrument the source, or decide that the original is what gets
    /// compiled (nothing to instrument, unreadable, or a tolerated failure);
    /// and whether it holds OpenMP directives.
    fn instrument(
        &self,
        number: usize,
        scratch: &mut LazyScratch,
        messages: &mut Messages,
        unmeasured: &mut BTreeSet<String>,
    ) -> Result<(Option<InstrumentedSource>, bool)> {
        let options = self.options();
        let path = &self.input.path;
        let (file, done) = match instrument::instrument_source(path, Some(self.language), &options)
        {
            Ok(done) => done,
            // An unreadable source is the compiler's to report, in its words.
            Err(InputError::Unreadable { .. }) => return Ok((None, false)),
            Err(error) => {
                writeln!(
                    messages.to,
                    "{}: error: {error}",
                    self.compiler.wrapper_name()
                )?;
                return Ok((self.after_failure(messages)?, false));
            }
        };
        let has_directives = done.model.sites.iter().any(|site| {
            site.directive.sentinel == Sentinel::Omp && site.form != DirectiveForm::Implicit
        });
        if !done.diagnostics.is_empty() {
            let rendered = pomp_cli::render::render_for(
                &file,
                &done.diagnostics,
                messages.color,
                Spelling::Wrapper,
            );
            messages.to.write_all(rendered.as_bytes())?;
        }
        if done.has_errors() {
            return Ok((self.after_failure(messages)?, has_directives));
        }
        unmeasured.extend(done.plan.unmeasured.iter().cloned());
        if self.wrapper.keep {
            let (kept_source, kept_idf) = self.kept_paths();
            let idf = serde_json::to_vec_pretty(&done.idf(&file))?;
            pomp_files::write_atomically_with(&kept_source, |to| done.write_output(&file, to))
                .with_context(|| format!("writing {}", kept_source.display()))?;
            pomp_files::write_atomically(&kept_idf, &idf)
                .with_context(|| format!("writing {}", kept_idf.display()))?;
        }
        if !done.changes_anything() {
            return Ok((None, has_directives));
        }
        // The scratch copy lives only as long as this compile: unlike the
        // user's files it needs neither atomic replacement nor a flush to disk.
        let directory = scratch.get()?.subdirectory(&number.to_string())?;
        let compiled_path = directory.join(compiled_file_name(path, self.language));
        std::fs::File::create(&compiled_path)
            .and_then(|created| {
                pomp_files::write_buffered(created, |to| done.write_output(&file, to))
            })
            .with_context(|| format!("writing {}", compiled_path.display()))?;
        let init_functions = done
            .registrations()
            .iter()
            .filter_map(|symbol| InitFunction::from_symbol(symbol))
            .collect();
        let pomp1_regions = match options.rules.interface {
            Interface::Pomp1 => (done.plan.regions.iter())
                .map(|r| Pomp1Region::new(&done.plan.unique, r.id, self.language.is_fortran()))
                .collect(),
            _ => Vec::new(),
        };
        let source = InstrumentedSource {
            arg_index: self.input.arg_index,
            user_path: path.clone(),
            compiled_path,
            language: self.language,
            explicit_language: self.input.explicit_language.clone(),
            init_functions,
            pomp1_regions,
            interface: options.rules.interface,
        };
        Ok((Some(source), has_directives))
    }

    /// Stop, or compile the original when `POMP_ON_ERROR` says so; the
    /// diagnostics are already printed.
    fn after_failure(&self, messages: &mut Messages) -> Result<Option<InstrumentedSource>> {
        let name = self.compiler.wrapper_name();
        if self.wrapper.on_error == OnError::Fail {
            let option = WRAPPER_FLAGS
                .iter()
                .find(|f| f.name == "on-error")
                .expect("the wrappers have --pomp-on-error");
            writeln!(
                messages.to,
                "{name}: error: pomp could not instrument {}, so nothing was compiled (the \
                 compiler did not run)\n{name}: note: to compile such a file uninstrumented \
                 instead, with a warning, set {}=compile-original or pass {}=compile-original",
                self.input.path.display(),
                option.env.unwrap_or_default(),
                option
                    .synopsis("pomp-")
                    .split('=')
                    .next()
                    .unwrap_or_default(),
            )?;
            return Err(AlreadyReported(1).into());
        }
        writeln!(
            messages.to,
            "{}: warning: compiling {} uninstrumented (POMP_ON_ERROR=compile-original)",
            self.compiler.wrapper_name(),
            self.input.path.display()
        )?;
        Ok(None)
    }

    /// Where `--pomp-keep` puts the instrumented source and its IDF: beside
    /// the object.
    fn kept_paths(&self) -> (PathBuf, PathBuf) {
        let line = self.line;
        let source = &self.input.path;
        let single_output =
            matches!(line.mode, Mode::Compile | Mode::Assemble) && line.sources().count() == 1;
        let directory = match (&line.output, single_output) {
            (Some(output), true) => output.parent().unwrap_or(Path::new("")).to_path_buf(),
            _ => PathBuf::new(),
        };
        let name = instrument::instrumented_name(source, self.language);
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        (
            directory.join(name),
            directory.join(format!("{stem}.pomp.json")),
        )
    }
}

/// The instrumented copy keeps the original's file name, so the compiler
/// derives the same object, assembly and dependency file names from it;
/// Fortran gets a capital suffix so that gfortran preprocesses it.
fn compiled_file_name(source: &Path, language: Language) -> OsString {
    let name = source.file_name().unwrap_or_default();
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    match source.extension().map(|e| e.to_string_lossy()) {
        Some(ext) => format!("{stem}.{}", language.instrumented_suffix(&ext)).into(),
        None => name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_names_keep_the_stem() {
        assert_eq!(compiled_file_name(Path::new("src/a.c"), Language::C), "a.c");
        assert_eq!(
            compiled_file_name(Path::new("m.f90"), Language::FortranFree),
            "m.F90"
        );
        assert_eq!(
            compiled_file_name(Path::new("old.f"), Language::FortranFixed),
            "old.F"
        );
    }
}
