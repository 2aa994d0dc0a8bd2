//! Drop-in compiler wrappers: `pomp-cc`, `pomp-cxx`, `pomp-f90`.
//!
//! A wrapper takes a gcc-style command line, instruments the OpenMP sources
//! on it into a private directory, and runs the real compiler on the same
//! command line with those sources swapped in. Everything the user sees —
//! object names, dependency files, module files, diagnostics, debug info —
//! stays as the original compile would have it. Linking an executable adds
//! the region registration file and a POMP2 library.

pub mod cmdline;
pub mod registration;
mod runtime;
mod scratch;

pub use registration::{registration_source, render_registration, InitFunction, LinkScan};

use crate::instrument::{self, Options};
use crate::rules::Interface;
use crate::source::{Language, SourceFile};
use anyhow::{bail, Context, Result};
use cmdline::{CommandLine, Input, InputKind, Mode};
use scratch::Scratch;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compiler {
    C,
    Cxx,
    Fortran,
}

impl Compiler {
    /// The wrapper a binary name stands for (`pomp-cc`, `pomp-cxx`, `pomp-f90`, ...).
    pub fn from_wrapper_name(name: &str) -> Option<Compiler> {
        match name.strip_suffix(".exe").unwrap_or(name) {
            "pomp-cc" => Some(Compiler::C),
            "pomp-cxx" | "pomp-c++" => Some(Compiler::Cxx),
            "pomp-f90" | "pomp-fc" | "pomp-f77" => Some(Compiler::Fortran),
            _ => None,
        }
    }

    pub fn wrapper_name(self) -> &'static str {
        match self {
            Compiler::C => "pomp-cc",
            Compiler::Cxx => "pomp-cxx",
            Compiler::Fortran => "pomp-f90",
        }
    }

    /// The variable naming the underlying compiler, and its default.
    fn environment(self) -> (&'static str, &'static str) {
        match self {
            Compiler::C => ("POMP_CC", "gcc"),
            Compiler::Cxx => ("POMP_CXX", "g++"),
            Compiler::Fortran => ("POMP_FC", "gfortran"),
        }
    }

    /// The underlying compiler command: `POMP_CC` and friends may hold a
    /// launcher too (`ccache gcc`).
    pub fn command(self) -> Result<Vec<OsString>> {
        let (variable, default) = self.environment();
        let words = match std::env::var_os(variable).filter(|v| !v.is_empty()) {
            Some(value) => shlex::bytes::split(value.as_bytes())
                .filter(|words| !words.is_empty())
                .with_context(|| format!("cannot split {variable}={}", value.to_string_lossy()))?
                .into_iter()
                .map(|w| OsStr::from_bytes(&w).to_owned())
                .collect(),
            None => vec![OsString::from(default)],
        };
        let invokes_a_wrapper = words.iter().any(|w| {
            Path::new(w)
                .file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|n| Compiler::from_wrapper_name(n).is_some())
        });
        if invokes_a_wrapper {
            bail!("{variable} names a pomp wrapper; it must name the real compiler");
        }
        Ok(words)
    }
}

/// Create `pomp-cc`, `pomp-cxx` and `pomp-f90` in `directory` as symbolic
/// links to the running `pomp` binary, replacing older links of those names.
pub fn install_wrappers(directory: &Path) -> Result<Vec<PathBuf>> {
    let pomp = std::env::current_exe().context("locating the pomp binary")?;
    std::fs::create_dir_all(directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    let mut installed = Vec::new();
    for compiler in [Compiler::C, Compiler::Cxx, Compiler::Fortran] {
        let link = directory.join(compiler.wrapper_name());
        if link.symlink_metadata().is_ok() {
            std::fs::remove_file(&link).with_context(|| format!("replacing {}", link.display()))?;
        }
        std::os::unix::fs::symlink(&pomp, &link)
            .with_context(|| format!("creating {}", link.display()))?;
        installed.push(link);
    }
    Ok(installed)
}

/// `pomp install-wrappers DIR`.
pub fn install_wrappers_cli(directory: &Path) -> ExitCode {
    match install_wrappers(directory) {
        Ok(links) => {
            for link in links {
                println!("{}", link.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pomp: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// What to do when a source cannot be instrumented (`POMP_ON_ERROR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnError {
    Fail,
    CompileOriginal,
}

impl OnError {
    fn from_env() -> Result<OnError> {
        match std::env::var("POMP_ON_ERROR").as_deref() {
            Err(_) | Ok("") | Ok("fail") => Ok(OnError::Fail),
            Ok("compile-original") => Ok(OnError::CompileOriginal),
            Ok(other) => bail!("POMP_ON_ERROR={other}: expected 'fail' or 'compile-original'"),
        }
    }
}

/// A failure whose cause was already printed: by the instrumenter's
/// diagnostics, or by a compiler that ended with this status.
#[derive(Debug)]
struct AlreadyReported(ExitCode);

impl std::fmt::Display for AlreadyReported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("failed")
    }
}

impl std::error::Error for AlreadyReported {}

pub fn run(compiler: Compiler, args: Vec<OsString>) -> ExitCode {
    match Wrapper::new(compiler, args).and_then(Wrapper::run) {
        Ok(code) => code,
        Err(error) => {
            if let Some(AlreadyReported(code)) = error.downcast_ref::<AlreadyReported>() {
                return *code;
            }
            eprintln!("{}: error: {error:#}", compiler.wrapper_name());
            ExitCode::FAILURE
        }
    }
}

/// A source instrumented for this invocation.
struct InstrumentedSource {
    arg_index: usize,
    user_path: PathBuf,
    /// The instrumented copy the compiler reads, in the scratch directory.
    compiled_path: PathBuf,
    language: Language,
    explicit_language: Option<String>,
    init_function: Option<InitFunction>,
    /// The interface its calls go to.
    interface: Interface,
}

impl InstrumentedSource {
    /// The user's file name without its suffix, as objects are named.
    fn user_stem(&self) -> String {
        self.user_path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    }
}

struct Wrapper {
    compiler: Compiler,
    line: CommandLine,
    command: Vec<OsString>,
    on_error: OnError,
    scratch: Option<Scratch>,
}

impl Wrapper {
    fn new(compiler: Compiler, args: Vec<OsString>) -> Result<Wrapper> {
        let line = CommandLine::parse(cmdline::expand_response_files(args)?)?;
        Ok(Wrapper {
            compiler,
            command: compiler.command()?,
            on_error: OnError::from_env()?,
            line,
            scratch: None,
        })
    }

    fn run(mut self) -> Result<ExitCode> {
        if self.line.wrapper.help {
            print!("{}", help_text(self.compiler));
            return Ok(ExitCode::SUCCESS);
        }
        let has_sources = self.line.sources().next().is_some();
        let compiles = matches!(self.line.mode, Mode::Compile | Mode::Assemble);
        if self.line.mode == Mode::Preprocess
            || (compiles && !has_sources)
            || self.line.inputs.is_empty()
        {
            let args = self.line.args.clone();
            return self.run_compiler(&self.command.clone(), &args);
        }

        let instrumented = self.instrument_sources()?;
        let groups = self.compile_groups(&instrumented);
        if groups.len() > 1 {
            for group in &groups {
                let code = self.compile(group, &[], &[])?;
                if code != ExitCode::SUCCESS {
                    return Ok(code);
                }
            }
            return Ok(ExitCode::SUCCESS);
        }
        let objects = match self.objects_for_link(&instrumented)? {
            Ok(objects) => objects,
            Err(code) => return Ok(code),
        };
        let mut leading = Vec::new();
        let mut trailing = Vec::new();
        if self.line.mode == Mode::Link {
            if let Some(link) = self.link_additions(&instrumented)? {
                leading.extend(link.registration_object.map(PathBuf::into_os_string));
                trailing = link.libraries;
            }
        }
        let everything = CompileGroup {
            sources: instrumented
                .iter()
                .filter(|s| !objects.contains_key(&s.arg_index))
                .collect(),
            excluded: BTreeSet::new(),
            objects,
        };
        self.compile(&everything, &leading, &trailing)
    }

    /// Instrumented copies find quoted includes through `-iquote` of their
    /// original's directory, which would apply to every source of one
    /// compiler run: sources from different directories are compiled in
    /// separate runs, one per directory, when that changes nothing else
    /// (`-c` and `-S` name each output after its source anyway).
    fn compile_groups<'a>(&self, instrumented: &'a [InstrumentedSource]) -> Vec<CompileGroup<'a>> {
        let separable =
            matches!(self.line.mode, Mode::Compile | Mode::Assemble) && self.line.output.is_none();
        if !separable || source_directories(instrumented) < 2 {
            return Vec::new();
        }
        let mut by_directory: Vec<(&Path, Vec<&'a InstrumentedSource>)> = Vec::new();
        for source in instrumented {
            let directory = source.user_path.parent().unwrap_or(Path::new(""));
            match by_directory.iter_mut().find(|(d, _)| *d == directory) {
                Some((_, sources)) => sources.push(source),
                None => by_directory.push((directory, vec![source])),
            }
        }
        let inputs: BTreeSet<usize> = self
            .line
            .inputs
            .iter()
            .filter(|i| !matches!(i.kind, InputKind::Library(_)))
            .map(|i| i.arg_index)
            .collect();
        by_directory
            .into_iter()
            .enumerate()
            .map(|(n, (_, sources))| {
                let own: BTreeSet<usize> = sources.iter().map(|s| s.arg_index).collect();
                let others_instrumented = instrumented
                    .iter()
                    .map(|s| s.arg_index)
                    .filter(|i| !own.contains(i));
                // The first run also compiles every source that was not instrumented.
                let excluded = if n == 0 {
                    others_instrumented.collect()
                } else {
                    inputs
                        .iter()
                        .copied()
                        .filter(|i| !own.contains(i))
                        .collect()
                };
                CompileGroup {
                    sources,
                    excluded,
                    objects: BTreeMap::new(),
                }
            })
            .collect()
    }

    /// A link whose instrumented sources come from several directories
    /// cannot compile them in one run (see [`Wrapper::compile_groups`]):
    /// each is compiled to an object first, by the index of its argument.
    fn objects_for_link(
        &mut self,
        instrumented: &[InstrumentedSource],
    ) -> Result<Result<BTreeMap<usize, PathBuf>, ExitCode>> {
        let mut objects = BTreeMap::new();
        let linking = matches!(self.line.mode, Mode::Link | Mode::PartialLink);
        if !linking || source_directories(instrumented) < 2 {
            return Ok(Ok(objects));
        }
        for (number, source) in instrumented.iter().enumerate() {
            match self.compile_to_object(number, source)? {
                Ok(object) => objects.insert(source.arg_index, object),
                Err(code) => return Ok(Err(code)),
            };
        }
        Ok(Ok(objects))
    }

    /// Compile one instrumented source alone into an object in the scratch
    /// directory, for a link whose sources come from several directories;
    /// the compiler's status if it fails.
    fn compile_to_object(
        &mut self,
        number: usize,
        source: &InstrumentedSource,
    ) -> Result<Result<PathBuf, ExitCode>> {
        let stem = source.user_stem();
        let object = self
            .scratch()?
            .subdirectory(&format!("object-{number}"))?
            .join(format!("{stem}.o"));
        // Library options stay: with -c they are ignored, and their values
        // would otherwise be read as options.
        let excluded: BTreeSet<usize> = self
            .line
            .inputs
            .iter()
            .filter(|i| !matches!(i.kind, InputKind::Library(_)) && i.arg_index != source.arg_index)
            .map(|i| i.arg_index)
            .chain(self.line.output_args.iter().copied())
            .collect();
        let group = CompileGroup {
            sources: vec![source],
            excluded,
            objects: BTreeMap::new(),
        };
        let mut object_output: Vec<OsString> = vec!["-c".into(), "-o".into()];
        object_output.push(object.clone().into_os_string());
        let code = self.compile(&group, &[], &object_output)?;
        Ok(if code == ExitCode::SUCCESS {
            Ok(object)
        } else {
            Err(code)
        })
    }

    /// Run the compiler on the user's command line with the group's sources
    /// swapped for their instrumented copies and the excluded inputs left
    /// out; `leading` and `trailing` are inputs the link step adds.
    fn compile(
        &mut self,
        group: &CompileGroup,
        leading: &[OsString],
        trailing: &[OsString],
    ) -> Result<ExitCode> {
        let mut args = search_path_flags(&group.sources);
        if !group.sources.is_empty() && self.line.lto && !is_clang(&self.command) {
            // Slim LTO objects have no symbol table the link step can read
            // the registration functions from.
            args.push("-ffat-lto-objects".into());
        }
        args.extend_from_slice(leading);
        args.extend(self.with_sources_swapped(&group.sources, &group.excluded, &group.objects));
        args.extend_from_slice(trailing);
        let code = self.run_compiler(&self.command.clone(), &args)?;
        if code == ExitCode::SUCCESS && self.line.dependencies.while_compiling {
            self.rewrite_dependency_files(&group.sources)?;
        }
        Ok(code)
    }

    fn scratch(&mut self) -> Result<&Scratch> {
        if self.scratch.is_none() {
            self.scratch = Some(Scratch::create(&self.line.args)?);
        }
        Ok(self.scratch.as_ref().expect("created above"))
    }

    fn options(&self, input: &Input, language: Language) -> Options {
        let wrapper = &self.line.wrapper;
        Options {
            language: input.explicit_language.as_ref().map(|_| language),
            ..wrapper.instrument.clone()
        }
    }

    fn instrument_sources(&mut self) -> Result<Vec<InstrumentedSource>> {
        let sources: Vec<(Input, Language)> = self
            .line
            .sources()
            .map(|(_, input, language)| (input.clone(), language))
            .collect();
        let mut instrumented = Vec::new();
        for (number, (input, language)) in sources.into_iter().enumerate() {
            if let Some(source) = self.instrument_source(number, &input, language)? {
                instrumented.push(source);
            }
        }
        Ok(instrumented)
    }

    /// Instrument one source, or decide that the original is what gets
    /// compiled (nothing to instrument, unreadable, or a tolerated failure).
    fn instrument_source(
        &mut self,
        number: usize,
        input: &Input,
        language: Language,
    ) -> Result<Option<InstrumentedSource>> {
        // An unreadable source is the compiler's to report, in its words.
        let Ok(bytes) = std::fs::read(&input.path) else {
            return Ok(None);
        };
        if !instrument::may_need_instrumenting(&bytes) {
            return Ok(None);
        }
        let options = self.options(input, language);
        let file = SourceFile::new(&input.path, bytes, language);
        let color = std::io::stderr().is_terminal();
        let done = match instrument::instrument_guarded(&file, &options) {
            Ok(done) => done,
            Err(error) => {
                eprintln!("{}: error: {error}", self.compiler.wrapper_name());
                return self.after_failure(input);
            }
        };
        if !done.diagnostics.is_empty() {
            eprint!(
                "{}",
                crate::diagnostics::render(&file, &done.diagnostics, color)
            );
        }
        if done.has_errors() {
            return self.after_failure(input);
        }
        if self.line.wrapper.keep {
            let (kept_source, kept_idf) = self.kept_paths(&input.path, language);
            let idf = serde_json::to_vec_pretty(&done.idf(&file))?;
            for (path, bytes) in [(&kept_source, &done.output), (&kept_idf, &idf)] {
                crate::output::write_atomically(path, bytes)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
        if !done.changes_anything() {
            return Ok(None);
        }
        // The scratch copy lives only as long as this compile: unlike the
        // user's files it needs neither atomic replacement nor a flush to disk.
        let directory = self.scratch()?.subdirectory(&number.to_string())?;
        let compiled_path = directory.join(compiled_file_name(&input.path, language));
        std::fs::write(&compiled_path, &done.output)
            .with_context(|| format!("writing {}", compiled_path.display()))?;
        let init_function = done.init_function().map(|symbol| {
            InitFunction::from_symbol(&symbol).unwrap_or(InitFunction {
                symbol,
                regions: done.plan.regions.len(),
            })
        });
        Ok(Some(InstrumentedSource {
            arg_index: input.arg_index,
            user_path: input.path.clone(),
            compiled_path,
            language,
            explicit_language: input.explicit_language.clone(),
            init_function,
            interface: options.rules.interface,
        }))
    }

    /// Stop, or compile the original when `POMP_ON_ERROR` says so; the
    /// diagnostics are already printed.
    fn after_failure(&self, input: &Input) -> Result<Option<InstrumentedSource>> {
        if self.on_error == OnError::Fail {
            return Err(AlreadyReported(ExitCode::FAILURE).into());
        }
        eprintln!(
            "{}: warning: compiling {} uninstrumented (POMP_ON_ERROR=compile-original)",
            self.compiler.wrapper_name(),
            input.path.display()
        );
        Ok(None)
    }

    /// Where `--pomp-keep` puts the instrumented source and its IDF: beside
    /// the object.
    fn kept_paths(&self, source: &Path, language: Language) -> (PathBuf, PathBuf) {
        let single_output = matches!(self.line.mode, Mode::Compile | Mode::Assemble)
            && self.line.sources().count() == 1;
        let directory = match (&self.line.output, single_output) {
            (Some(output), true) => output.parent().unwrap_or(Path::new("")).to_path_buf(),
            _ => PathBuf::new(),
        };
        let name = instrument::instrumented_name(source, language);
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        (
            directory.join(name),
            directory.join(format!("{stem}.pomp.json")),
        )
    }

    /// The user's arguments with each instrumented source replaced by its
    /// instrumented copy.
    fn with_sources_swapped(
        &self,
        instrumented: &[&InstrumentedSource],
        excluded: &BTreeSet<usize>,
        objects: &BTreeMap<usize, PathBuf>,
    ) -> Vec<OsString> {
        let by_index: BTreeMap<usize, &InstrumentedSource> =
            instrumented.iter().map(|s| (s.arg_index, *s)).collect();
        let mut args = Vec::with_capacity(self.line.args.len() + 4);
        for (index, arg) in self.line.args.iter().enumerate() {
            if excluded.contains(&index) {
                continue;
            }
            if let Some(object) = objects.get(&index) {
                args.push(object.clone().into_os_string());
                continue;
            }
            let Some(source) = by_index.get(&index) else {
                args.push(arg.clone());
                continue;
            };
            // An explicit `-x f95` would skip the preprocessor that reads
            // the `#line` markers.
            let preprocessed_language = match (source.language, &source.explicit_language) {
                (Language::FortranFixed, Some(_)) => Some("f77-cpp-input"),
                (Language::FortranFree, Some(_)) => Some("f95-cpp-input"),
                _ => None,
            };
            match (preprocessed_language, &source.explicit_language) {
                (Some(language), Some(user_language)) => {
                    args.extend(["-x".into(), language.into()]);
                    args.push(source.compiled_path.clone().into_os_string());
                    args.extend(["-x".into(), user_language.into()]);
                }
                _ => args.push(source.compiled_path.clone().into_os_string()),
            }
        }
        args
    }

    fn link_additions(
        &mut self,
        instrumented: &[InstrumentedSource],
    ) -> Result<Option<LinkAdditions>> {
        let mut scan = LinkScan::default();
        for source in instrumented {
            if let Some(function) = &source.init_function {
                scan.add_function(function.clone());
            }
            match source.interface {
                Interface::Pomp2 => scan.calls_pomp = true,
                Interface::Pomp1 => scan.calls_pomp1 = true,
            }
        }
        for path in self.linked_files() {
            // The linker judges files it cannot use; registration only
            // needs the ones it can read.
            if let Err(error) = scan.add_file(&path) {
                if self.line.wrapper.verbose {
                    eprintln!("{}: note: {error:#}", self.compiler.wrapper_name());
                }
            }
        }
        if !scan.needs_pomp_library() {
            return Ok(None);
        }
        let chosen = runtime::chosen(self.line.wrapper.runtime.as_deref());
        if scan.calls_pomp1 && chosen.is_none() {
            bail!(
                "the program calls the original POMP interface (--pomp-interface=pomp1), which \
                 pomp's runtime does not implement: name a library for it with \
                 --pomp-runtime=LIB or POMP_RUNTIME"
            );
        }
        let registration_object = if scan.needs_registration() {
            Some(self.registration_object(&scan)?)
        } else {
            None
        };
        let mut libraries = runtime::link_arguments(chosen.as_deref())?;
        if !self.line.openmp {
            libraries.push("-fopenmp".into());
        }
        Ok(Some(LinkAdditions {
            registration_object,
            libraries,
        }))
    }

    /// Writes and compiles the registration file for the scanned inputs.
    fn registration_object(&mut self, scan: &LinkScan) -> Result<PathBuf> {
        let functions = scan.distinct_functions();
        let source = render_registration(&functions);
        let scratch = self.scratch()?.path().to_path_buf();
        let source_path = scratch.join("pomp_init_regions.c");
        let object_path = scratch.join("pomp_init_regions.o");
        std::fs::write(&source_path, source)
            .with_context(|| format!("writing {}", source_path.display()))?;
        let mut args: Vec<OsString> = target_flags(&self.line.args);
        args.extend(["-c".into(), source_path.into_os_string(), "-o".into()]);
        args.push(object_path.clone().into_os_string());
        let c_compiler = Compiler::C.command()?;
        let status = self.run_compiler(&c_compiler, &args)?;
        if status != ExitCode::SUCCESS {
            return Err(AlreadyReported(status).into());
        }
        Ok(object_path)
    }

    /// Objects, archives and shared libraries on the command line, with
    /// `-lNAME` looked up in the `-L` directories.
    fn linked_files(&self) -> Vec<PathBuf> {
        let static_only = self.line.args.iter().any(|a| a == "-static");
        self.line
            .inputs
            .iter()
            .filter_map(|input| match &input.kind {
                InputKind::Object | InputKind::Archive | InputKind::SharedLibrary => {
                    Some(input.path.clone())
                }
                InputKind::Library(name) => {
                    let candidates: &[String] = if static_only {
                        &[format!("lib{name}.a")]
                    } else {
                        &[format!("lib{name}.so"), format!("lib{name}.a")]
                    };
                    self.line.library_dirs.iter().find_map(|dir| {
                        candidates.iter().map(|c| dir.join(c)).find(|p| p.is_file())
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// Make the dependency files name the user's sources, not the
    /// instrumented copies the compiler read.
    fn rewrite_dependency_files(&self, instrumented: &[&InstrumentedSource]) -> Result<()> {
        for source in instrumented {
            for file in self.dependency_file_candidates(source) {
                let Ok(text) = std::fs::read(&file) else {
                    continue;
                };
                let compiled = make_escaped(source.compiled_path.as_os_str().as_bytes());
                if !contains(&text, &compiled) {
                    continue;
                }
                let user = make_escaped(source.user_path.as_os_str().as_bytes());
                let replaced = replace_all(&text, &compiled, &user);
                std::fs::write(&file, replaced)
                    .with_context(|| format!("writing {}", file.display()))?;
            }
        }
        Ok(())
    }

    /// Where gcc and clang put a dependency file when `-MF` does not say.
    fn dependency_file_candidates(&self, source: &InstrumentedSource) -> Vec<PathBuf> {
        if let Some(file) = &self.line.dependencies.file {
            return vec![file.clone()];
        }
        let stem = source.user_stem();
        match (&self.line.output, self.line.mode) {
            (Some(output), Mode::Compile | Mode::Assemble) => vec![output.with_extension("d")],
            (Some(output), _) => {
                let program = output.file_stem().unwrap_or_default().to_string_lossy();
                vec![
                    output.with_file_name(format!("{program}-{stem}.d")),
                    PathBuf::from(format!("{stem}.d")),
                ]
            }
            (None, _) => vec![PathBuf::from(format!("{stem}.d"))],
        }
    }

    fn run_compiler(&mut self, command: &[OsString], args: &[OsString]) -> Result<ExitCode> {
        let verbose = self.line.wrapper.verbose;
        let length: usize = args.iter().map(|a| a.len() + 1).sum();
        let args = if length > RESPONSE_FILE_THRESHOLD {
            let file = self.scratch()?.path().join("arguments.rsp");
            cmdline::write_response_file(&file, args)?;
            let mut at = OsString::from("@");
            at.push(&file);
            vec![at]
        } else {
            args.to_vec()
        };
        if verbose {
            let words: Vec<String> = command
                .iter()
                .chain(&args)
                .map(|w| w.to_string_lossy().into_owned())
                .collect();
            let line = shlex::try_join(words.iter().map(String::as_str))
                .unwrap_or_else(|_| words.join(" "));
            eprintln!("+ {line}");
        }
        let (program, launcher_args) = command.split_first().context("empty compiler command")?;
        let status = Command::new(program)
            .args(launcher_args)
            .args(&args)
            .status()
            .with_context(|| format!("running {}", program.to_string_lossy()))?;
        Ok(exit_code(status))
    }
}

/// Command lines longer than this go to the compiler in a response file,
/// well below the kernel's limit on one argument.
const RESPONSE_FILE_THRESHOLD: usize = 100_000;

/// Instrumented sources compiled in one compiler run, the arguments (by
/// index) of inputs that belong to other runs, and sources already compiled
/// to objects, by the index of their argument.
struct CompileGroup<'a> {
    sources: Vec<&'a InstrumentedSource>,
    excluded: BTreeSet<usize>,
    objects: BTreeMap<usize, PathBuf>,
}

fn source_directories(instrumented: &[InstrumentedSource]) -> usize {
    let directories: BTreeSet<&Path> = instrumented
        .iter()
        .map(|s| s.user_path.parent().unwrap_or(Path::new("")))
        .collect();
    directories.len()
}

fn is_clang(command: &[OsString]) -> bool {
    command.iter().any(|word| {
        Path::new(word)
            .file_name()
            .is_some_and(|n| n.to_string_lossy().contains("clang"))
    })
}

struct LinkAdditions {
    /// None when only the original interface is called: it has no
    /// registration.
    registration_object: Option<PathBuf>,
    libraries: Vec<OsString>,
}

/// The instrumented copy keeps the original's file name, so the compiler
/// derives the same object, assembly and dependency file names from it;
/// Fortran gets a capital suffix so that gfortran preprocesses it.
fn compiled_file_name(source: &Path, language: Language) -> OsString {
    let name = source.file_name().unwrap_or_default();
    if !language.is_fortran() {
        return name.to_owned();
    }
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    match source.extension().map(|e| e.to_string_lossy()) {
        Some(ext) => format!("{stem}.{}", ext.to_uppercase()).into(),
        None => name.to_owned(),
    }
}

/// Flags that make the instrumented copies see what the originals saw from
/// their own directory (quoted includes, Fortran `include` lines), and make
/// debug information name the original's directory instead of the scratch
/// directory.
fn search_path_flags(instrumented: &[&InstrumentedSource]) -> Vec<OsString> {
    let mut flags = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for source in instrumented {
        let user_directory = source.user_path.parent().unwrap_or(Path::new(""));
        let compiled_directory = source.compiled_path.parent().unwrap_or(Path::new(""));
        let mut map = OsString::from("-ffile-prefix-map=");
        map.push(compiled_directory);
        map.push("/=");
        if !user_directory.as_os_str().is_empty() {
            map.push(user_directory);
            map.push("/");
        }
        flags.push(map);
        if !seen.insert((source.language.is_fortran(), user_directory.to_path_buf())) {
            continue;
        }
        let directory = if user_directory.as_os_str().is_empty() {
            Path::new(".")
        } else {
            user_directory
        };
        if source.language.is_fortran() {
            if !user_directory.as_os_str().is_empty() {
                flags.extend(["-I".into(), directory.as_os_str().to_owned()]);
            }
        } else {
            flags.extend(["-iquote".into(), directory.as_os_str().to_owned()]);
        }
    }
    flags
}

/// Flags the registration object must share with the program's objects to
/// link with them (`-m32`, `--target`, `-fPIC`, ...).
fn target_flags(args: &[OsString]) -> Vec<OsString> {
    let mut flags = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.to_string_lossy();
        if text == "-target" || text == "--sysroot" {
            flags.push(arg.clone());
            flags.extend(iter.next().cloned());
        } else if text.starts_with("-m")
            || text.starts_with("--target=")
            || text.starts_with("--sysroot=")
            || matches!(text.as_ref(), "-fPIC" | "-fpic" | "-fPIE" | "-fpie")
        {
            flags.push(arg.clone());
        }
    }
    flags
}

fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitCode::from(code.clamp(0, 255) as u8),
        (None, Some(signal)) => ExitCode::from((128 + signal).clamp(0, 255) as u8),
        (None, None) => ExitCode::FAILURE,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn replace_all(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// A path as gcc writes it into a dependency rule.
fn make_escaped(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    for &byte in path {
        match byte {
            b' ' | b'\t' | b'#' => out.extend_from_slice(&[b'\\', byte]),
            b'$' => out.extend_from_slice(b"$$"),
            _ => out.push(byte),
        }
    }
    out
}

fn help_text(compiler: Compiler) -> String {
    let name = compiler.wrapper_name();
    let (variable, default) = compiler.environment();
    let options = crate::flags::help_lines(crate::flags::INSTRUMENTATION, "pomp-")
        + &crate::flags::help_lines(cmdline::WRAPPER_FLAGS, "pomp-");
    format!(
        "Usage: {name} [compiler options] [--pomp-OPTION ...] FILES...

Compiles and links like {default}, instrumenting every source that contains
OpenMP directives for the POMP2 measurement interface. Linking a program adds
the region registration and the pomp runtime (or another POMP2 library).

Wrapper options (removed before the compiler runs):
{options}
A program calling the original interface (--pomp-interface=pomp1) is linked
with the library --pomp-runtime names: pomp's runtime implements POMP2 only.

Environment:
  {variable:<23} the underlying compiler (default {default}; may include a launcher)
  POMP_ON_ERROR           fail (default) or compile-original: compile a source
                          that cannot be instrumented as it is, with a warning
  POMP_RUNTIME            like --pomp-runtime
  POMP_RUNTIME_DIR        directory holding libpomp_runtime.a
"
    )
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

    #[test]
    fn dependency_paths_are_escaped_like_gcc() {
        assert_eq!(make_escaped(b"my dir/a$b#.c"), b"my\\ dir/a$$b\\#.c");
        assert_eq!(
            replace_all(b"a.o: /t/a.c x.h /t/a.c", b"/t/a.c", b"src/a.c"),
            b"a.o: src/a.c x.h src/a.c"
        );
    }

    #[test]
    fn target_flags_are_forwarded_to_the_registration_compile() {
        let args: Vec<OsString> = [
            "-O2",
            "-m32",
            "-target",
            "x86_64-linux-gnu",
            "-fPIC",
            "-Wall",
            "a.o",
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        assert_eq!(
            target_flags(&args),
            ["-m32", "-target", "x86_64-linux-gnu", "-fPIC"]
        );
    }
}
