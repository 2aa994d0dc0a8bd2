//! A compiler's command line, read as gcc, g++, gfortran and clang read
//! it: which arguments are inputs and in which language, what the
//! invocation produces, and which flags decide how a source is
//! preprocessed. The compiler wrappers, the clang front end's flags and
//! compilation databases all read command lines here.

pub mod compiler;

use anyhow::{bail, Context, Result};
use pomp_core::frontend::libclang::CompileFlags;
use pomp_core::language::{Family, Language};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

/// What the compiler is asked to produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `-E`, `-M`/`-MM` without `-MD`, `-fsyntax-only`: nothing is compiled,
    /// so the original sources are what the user wants to see.
    Preprocess,
    /// `-S`: assembly.
    Assemble,
    /// `-c`: objects.
    Compile,
    /// An executable: the registration file and the runtime are linked in.
    Link,
    /// `-shared` or `-r`: linked, but not yet a program, so regions are
    /// registered later when the executable is linked.
    PartialLink,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// A C, C++ or Fortran translation unit.
    Source(Language),
    Object,
    Archive,
    SharedLibrary,
    /// `-lNAME`, resolved against `-L` directories at link time.
    Library(String),
    /// Anything else the driver accepts (assembly, headers, linker scripts,
    /// stdin): passed through untouched.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// Position of the argument naming this input in [`CommandLine::args`].
    pub arg_index: usize,
    pub path: PathBuf,
    pub kind: InputKind,
    /// The `-x` language in force for this input, if any.
    pub explicit_language: Option<String>,
}

/// Dependency-file generation requested while compiling (`-MD`, `-MMD`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependencies {
    pub while_compiling: bool,
    /// `-MF FILE` or `-Wp,-MD,FILE`.
    pub file: Option<PathBuf>,
}

/// The compiler driver a command line is given to: it decides the
/// language of a source by its suffix (`g++` compiles `a.c` as C++).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    C,
    Cxx,
    Fortran,
}

impl Driver {
    /// The driver a program is, by its name: `g++`, `clang++-18`,
    /// `x86_64-linux-gnu-g++-13`, `mpicxx` are C++ drivers, `gfortran`,
    /// `mpif90`, `flang` Fortran ones, and the rest C drivers.
    pub fn of_program(program: &Path) -> Driver {
        let name = program
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '.');
        if stem.ends_with("++") || stem.ends_with("cxx") {
            Driver::Cxx
        } else if stem.ends_with("fortran")
            || stem.ends_with("flang")
            || ["f77", "f90", "f95", "fc"]
                .iter()
                .any(|s| name.ends_with(s) || stem.ends_with(s))
        {
            Driver::Fortran
        } else {
            Driver::C
        }
    }
}

/// Programs that run the compiler named after them: `ccache gcc -c a.c`.
pub const LAUNCHERS: &[&str] = &["ccache", "sccache", "distcc", "icecc", "buildcache"];

/// The compiler of a command (its first word, or the word after a
/// launcher) and the index of its first argument.
pub fn compiler_of<S: AsRef<OsStr>>(command: &[S]) -> (Option<&Path>, usize) {
    let is_launcher = |word: &S| {
        Path::new(word.as_ref())
            .file_name()
            .is_some_and(|n| LAUNCHERS.iter().any(|l| n == OsStr::new(l)))
    };
    match command.first() {
        Some(first) if is_launcher(first) => (command.get(1).map(|w| Path::new(w.as_ref())), 2),
        Some(first) => (Some(Path::new(first.as_ref())), 1),
        None => (None, 0),
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine {
    /// The compiler's arguments: response files expanded, wrapper options removed.
    pub args: Vec<OsString>,
    pub inputs: Vec<Input>,
    pub mode: Mode,
    pub output: Option<PathBuf>,
    /// Positions in `args` of the option naming the output (the last one wins).
    pub output_args: Vec<usize>,
    pub dependencies: Dependencies,
    pub library_dirs: Vec<PathBuf>,
    /// Whether an OpenMP flag (`-fopenmp`, `-fopenmp=libomp`, ...) is present.
    pub openmp: bool,
    /// Whether link-time optimisation is on (the last `-flto`/`-fno-lto` wins).
    pub lto: bool,
    /// `-cpp` or `-nocpp`: whether Fortran sources are preprocessed
    /// whatever their suffixes.
    pub fortran_preprocessing: Option<bool>,
    /// `-ffixed-form` or `-ffree-form`: the form of every Fortran source.
    pub fortran_form: Option<Language>,
    /// `-std=...`, the last one.
    pub standard: Option<String>,
}

/// Options whose value is the next argument when written alone. Everything
/// else that starts with `-` stands by itself (or carries its value after
/// `=` or attached), so the next argument may be an input.
const OPTIONS_WITH_SEPARATE_VALUE: &[&str] = &[
    "-o",
    "-x",
    "-I",
    "-D",
    "-U",
    "-L",
    "-l",
    "-J",
    "-A",
    "-u",
    "-T",
    "-z",
    "-e",
    "-B",
    "-MF",
    "-MT",
    "-MQ",
    "-MJ",
    "-include",
    "-imacros",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-iwithsysroot",
    "-isysroot",
    "-imultilib",
    "-imultiarch",
    "-iframework",
    "-cxx-isystem",
    "-include-pch",
    "-ivfsoverlay",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-Xopenmp-target",
    "-mllvm",
    "-aux-info",
    "--param",
    "-wrapper",
    "-dumpbase",
    "-dumpbase-ext",
    "-dumpdir",
    "-target",
    "-arch",
    "-framework",
];

impl CommandLine {
    /// Classify an already response-file-expanded argument list given to
    /// `driver`.
    pub fn parse(driver: Driver, args: Vec<OsString>) -> Result<CommandLine> {
        let mut line = CommandLine {
            args: Vec::new(),
            inputs: Vec::new(),
            mode: Mode::Link,
            output: None,
            output_args: Vec::new(),
            dependencies: Dependencies::default(),
            library_dirs: Vec::new(),
            openmp: false,
            lto: false,
            fortran_preprocessing: None,
            fortran_form: None,
            standard: None,
        };
        let (mut preprocess, mut assemble, mut compile, mut partial_link) =
            (false, false, false, false);
        let mut dependencies_only = false;
        let mut language: Option<String> = None;
        let mut only_inputs_follow = false;

        let mut i = 0;
        while i < args.len() {
            let arg = &args[i];
            let bytes = arg.as_bytes();
            if only_inputs_follow || bytes == b"-" || !bytes.starts_with(b"-") {
                line.inputs
                    .push(classify_input(driver, i, arg, language.as_deref()));
                i += 1;
                continue;
            }
            let text = arg.to_string_lossy();
            let separate_value = OPTIONS_WITH_SEPARATE_VALUE.contains(&text.as_ref());
            let value: Option<&OsStr> = if separate_value {
                let value = args
                    .get(i + 1)
                    .with_context(|| format!("missing argument to '{text}'"))?;
                Some(value.as_os_str())
            } else {
                None
            };
            let attached = |prefix: &str| -> Option<&OsStr> {
                bytes
                    .strip_prefix(prefix.as_bytes())
                    .filter(|rest| !rest.is_empty())
                    .map(OsStr::from_bytes)
            };
            match text.as_ref() {
                "--" => only_inputs_follow = true,
                "-E" | "-fsyntax-only" => preprocess = true,
                "-M" | "-MM" => dependencies_only = true,
                "-MD" | "-MMD" => line.dependencies.while_compiling = true,
                "-S" => assemble = true,
                "-c" => compile = true,
                "-shared" | "-r" | "-Wl,-r" | "-Wl,--relocatable" => partial_link = true,
                "-o" => {
                    line.output = value.map(PathBuf::from);
                    line.output_args.extend([i, i + 1]);
                }
                "-MF" => line.dependencies.file = value.map(PathBuf::from),
                "-L" => line.library_dirs.extend(value.map(PathBuf::from)),
                "-x" => language = value.and_then(language_name),
                "-l" => {
                    let name = value.unwrap_or_default().to_string_lossy().into_owned();
                    line.inputs.push(Input {
                        arg_index: i + 1,
                        path: PathBuf::new(),
                        kind: InputKind::Library(name),
                        explicit_language: None,
                    });
                }
                _ if text.starts_with("-Wp,-MD,") || text.starts_with("-Wp,-MMD,") => {
                    line.dependencies.while_compiling = true;
                    let file = text.split_once(",-M").and_then(|(_, r)| r.split_once(','));
                    line.dependencies.file = file.map(|(_, f)| PathBuf::from(f));
                }
                _ if is_openmp_flag(&text) => line.openmp = true,
                "-fno-lto" => line.lto = false,
                "-cpp" => line.fortran_preprocessing = Some(true),
                "-nocpp" => line.fortran_preprocessing = Some(false),
                "-ffixed-form" => line.fortran_form = Some(Language::FortranFixed),
                "-ffree-form" => line.fortran_form = Some(Language::FortranFree),
                _ if text.starts_with("-std=") => line.standard = Some(text[5..].to_string()),
                _ if text == "-flto" || text.starts_with("-flto=") => line.lto = true,
                _ => {
                    if let Some(path) = attached("-o") {
                        line.output = Some(PathBuf::from(path));
                        line.output_args.push(i);
                    } else if let Some(path) = attached("-MF") {
                        line.dependencies.file = Some(PathBuf::from(path));
                    } else if let Some(dir) = attached("-L") {
                        line.library_dirs.push(PathBuf::from(dir));
                    } else if let Some(name) = attached("-x") {
                        language = language_name(name);
                    } else if let Some(name) = attached("-l") {
                        line.inputs.push(Input {
                            arg_index: i,
                            path: PathBuf::new(),
                            kind: InputKind::Library(name.to_string_lossy().into_owned()),
                            explicit_language: None,
                        });
                    }
                }
            }
            i += if separate_value { 2 } else { 1 };
        }

        line.mode = if preprocess || (dependencies_only && !line.dependencies.while_compiling) {
            Mode::Preprocess
        } else if assemble {
            Mode::Assemble
        } else if compile {
            Mode::Compile
        } else if partial_link {
            Mode::PartialLink
        } else {
            Mode::Link
        };
        if let Some(form) = line.fortran_form {
            for input in &mut line.inputs {
                if let InputKind::Source(language) = &mut input.kind {
                    if language.is_fortran() {
                        *language = form;
                    }
                }
            }
        }
        line.args = args;
        Ok(line)
    }

    /// The sources, each with its index in [`CommandLine::inputs`] and its
    /// language.
    pub fn sources(&self) -> impl Iterator<Item = (usize, &Input, Language)> {
        self.inputs
            .iter()
            .enumerate()
            .filter_map(|(n, input)| match input.kind {
                InputKind::Source(language) => Some((n, input, language)),
                _ => None,
            })
    }

    /// Whether the compiler runs the preprocessor over `input`, a source
    /// in `language`, so that it reads `#line` markers: C and C++ always,
    /// Fortran when told (`-cpp`, `-x f95-cpp-input`) or by the suffix.
    pub fn preprocesses(&self, input: &Input, language: Language) -> bool {
        if language.family() == Family::C {
            return true;
        }
        let named = input
            .explicit_language
            .as_deref()
            .map(|name| name.ends_with("-cpp-input"));
        self.fortran_preprocessing
            .or(named)
            .unwrap_or_else(|| language.preprocessed_by_suffix(&input.path))
    }

    /// The flags that decide how a source is preprocessed and parsed
    /// (`-D`, `-U`, `-I`, `-include`, `-std` and their kin, each option
    /// with its value attached), run in `directory`.
    pub fn compile_flags(&self, directory: Option<PathBuf>) -> CompileFlags {
        compile_flags(&self.args, directory)
    }

    /// The macros `-D` defines, as written (`N=4`).
    pub fn defines(&self) -> Vec<String> {
        self.values_of(&["-D"])
    }

    /// The directories searched for headers (`-I`, `-isystem`, `-iquote`,
    /// `-idirafter`), as written.
    pub fn include_dirs(&self) -> Vec<PathBuf> {
        self.values_of(INCLUDE_OPTIONS)
            .into_iter()
            .map(PathBuf::from)
            .collect()
    }

    /// The values of `options`, written after one or attached to it, in
    /// the order of the command line.
    fn values_of(&self, options: &[&str]) -> Vec<String> {
        let mut values = Vec::new();
        let mut args = self.args.iter().map(|a| a.to_string_lossy());
        while let Some(arg) = args.next() {
            if options.contains(&arg.as_ref()) {
                values.extend(args.next().map(|v| v.into_owned()));
            } else if let Some(value) = options
                .iter()
                .find_map(|option| arg.strip_prefix(option))
                .filter(|v| !v.is_empty())
            {
                values.push(value.to_string());
            }
        }
        values
    }
}

/// Options naming a directory searched for headers.
pub const INCLUDE_OPTIONS: &[&str] = &["-I", "-isystem", "-iquote", "-idirafter"];

/// Options that decide how a source is read and take a value, which may be
/// written as the next argument.
const READING_WITH_VALUE: &[&str] = &[
    "-D",
    "-U",
    "-I",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-isysroot",
    "--sysroot",
];

/// Switches that change what the preprocessor defines or finds.
const READING_SWITCHES: &[&str] = &[
    "-ansi",
    "-pthread",
    "-nostdinc",
    "-nostdinc++",
    "-m32",
    "-m64",
];

/// The flags of a compiler command line (without the compiler itself)
/// that decide how its sources are read, run in `directory`; inputs,
/// outputs, warnings and code generation options are left out.
pub fn compile_flags<S: AsRef<OsStr>>(args: &[S], directory: Option<PathBuf>) -> CompileFlags {
    let mut kept = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_ref().to_string_lossy();
        i += 1;
        if let Some(option) = READING_WITH_VALUE.iter().find(|o| arg == **o) {
            if let Some(value) = args.get(i) {
                kept.push(format!(
                    "{option}{}{}",
                    if option.starts_with("--") { "=" } else { "" },
                    value.as_ref().to_string_lossy()
                ));
                i += 1;
            }
        } else if READING_WITH_VALUE.iter().any(|o| arg.starts_with(o))
            || arg.starts_with("-std=")
            || (arg.starts_with("-O") && arg.len() <= 6)
            || READING_SWITCHES.contains(&arg.as_ref())
        {
            kept.push(arg.into_owned());
        }
    }
    CompileFlags {
        args: kept,
        directory,
        compiler: compiler::wrapped(),
    }
}

/// `-x none` ends an explicit language.
fn language_name(value: &OsStr) -> Option<String> {
    Some(value.to_string_lossy().into_owned()).filter(|l| l != "none")
}

fn is_openmp_flag(flag: &str) -> bool {
    flag == "-fopenmp"
        || flag.starts_with("-fopenmp=")
        || flag == "-qopenmp"
        || flag == "-fiopenmp"
        || flag == "-openmp"
        || flag == "-mp"
}

fn classify_input(driver: Driver, arg_index: usize, arg: &OsStr, language: Option<&str>) -> Input {
    let path = PathBuf::from(arg);
    let kind = match language {
        Some(language) => match Language::from_compiler_name(language) {
            Some(language) => InputKind::Source(language),
            None => InputKind::Other,
        },
        None => match kind_by_suffix(&path) {
            InputKind::Source(Language::C) if driver == Driver::Cxx => {
                InputKind::Source(Language::Cpp)
            }
            kind => kind,
        },
    };
    Input {
        arg_index,
        path,
        kind,
        explicit_language: language.map(str::to_owned),
    }
}

fn kind_by_suffix(path: &Path) -> InputKind {
    let Some(name) = path.file_name().and_then(OsStr::to_str) else {
        return InputKind::Other;
    };
    if pomp_core::language::is_header(path) {
        return InputKind::Other;
    }
    let suffix = name.rsplit_once('.').map(|(_, s)| s).unwrap_or("");
    match suffix {
        "o" | "obj" | "lo" => return InputKind::Object,
        "a" => return InputKind::Archive,
        "so" | "dylib" => return InputKind::SharedLibrary,
        _ => {}
    }
    // Versioned shared libraries: libfoo.so.1.2
    if name.contains(".so.") {
        return InputKind::SharedLibrary;
    }
    match Language::from_path(path) {
        Some(language) => InputKind::Source(language),
        None => InputKind::Other,
    }
}

/// Replace every `@FILE` argument by the arguments FILE holds, recursively,
/// as gcc does. An `@FILE` that cannot be read stays a literal argument.
pub fn expand_response_files(args: Vec<OsString>) -> Result<Vec<OsString>> {
    expand_with_depth(args, 0)
}

/// gcc gives up on response files nested this deep; so do we, so that a file
/// that names itself is an error instead of a hang.
const MAX_RESPONSE_FILE_DEPTH: usize = 64;

fn expand_with_depth(args: Vec<OsString>, depth: usize) -> Result<Vec<OsString>> {
    let mut expanded = Vec::with_capacity(args.len());
    for arg in args {
        let Some(file) = arg.as_bytes().strip_prefix(b"@").filter(|f| !f.is_empty()) else {
            expanded.push(arg);
            continue;
        };
        let file = Path::new(OsStr::from_bytes(file));
        let Ok(contents) = std::fs::read(file) else {
            expanded.push(arg);
            continue;
        };
        if depth >= MAX_RESPONSE_FILE_DEPTH {
            bail!("response files nested too deeply at '{}'", file.display());
        }
        let words = shlex::bytes::split(&contents)
            .with_context(|| format!("unbalanced quotes in response file '{}'", file.display()))?;
        let words = words.into_iter().map(OsString::from_vec).collect();
        expanded.extend(expand_with_depth(words, depth + 1)?);
    }
    Ok(expanded)
}

/// Write `args` as a response file gcc and clang read back unchanged:
/// every character that could split or unquote is backslash-escaped.
pub fn write_response_file(path: &Path, args: &[OsString]) -> Result<()> {
    let mut text = Vec::new();
    for arg in args {
        if arg.is_empty() {
            text.extend_from_slice(b"\"\"");
        }
        for &byte in arg.as_bytes() {
            if byte.is_ascii_whitespace() || matches!(byte, b'\\' | b'\'' | b'"') {
                text.push(b'\\');
            }
            text.push(byte);
        }
        text.push(b'\n');
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> CommandLine {
        parse_by(Driver::C, line)
    }

    fn parse_by(driver: Driver, line: &str) -> CommandLine {
        CommandLine::parse(
            driver,
            line.split_whitespace().map(OsString::from).collect(),
        )
        .unwrap()
    }

    fn kinds(line: &CommandLine) -> Vec<(String, InputKind)> {
        line.inputs
            .iter()
            .map(|i| (i.path.display().to_string(), i.kind.clone()))
            .collect()
    }

    #[test]
    fn compile_one_source() {
        let line = parse("-O2 -fopenmp -c src/a.c -o build/a.o");
        assert_eq!(line.mode, Mode::Compile);
        assert!(line.openmp);
        assert_eq!(line.output, Some(PathBuf::from("build/a.o")));
        assert_eq!(
            kinds(&line),
            [("src/a.c".into(), InputKind::Source(Language::C))]
        );
        assert_eq!(line.inputs[0].arg_index, 3);
        assert_eq!(line.output_args, [4, 5]);
    }

    #[test]
    fn sources_objects_archives_and_libraries_in_a_link() {
        let line = parse("main.cpp util.o libx.a libz.so.1 -L lib -lm -lfoo -o app x.s q.f90 r.F");
        assert_eq!(line.mode, Mode::Link);
        assert!(!line.openmp);
        assert_eq!(line.library_dirs, [PathBuf::from("lib")]);
        assert_eq!(
            kinds(&line),
            [
                ("main.cpp".into(), InputKind::Source(Language::Cpp)),
                ("util.o".into(), InputKind::Object),
                ("libx.a".into(), InputKind::Archive),
                ("libz.so.1".into(), InputKind::SharedLibrary),
                ("".into(), InputKind::Library("m".into())),
                ("".into(), InputKind::Library("foo".into())),
                ("x.s".into(), InputKind::Other),
                ("q.f90".into(), InputKind::Source(Language::FortranFree)),
                ("r.F".into(), InputKind::Source(Language::FortranFixed)),
            ]
        );
    }

    #[test]
    fn values_of_options_are_not_inputs() {
        let line = parse(
            "-I inc -iquote q -include pre.h -D X=1 -MF deps.d -MT a.o -Xlinker foo.o -c a.c",
        );
        assert_eq!(
            kinds(&line),
            [("a.c".into(), InputKind::Source(Language::C))]
        );
        assert_eq!(line.dependencies.file, Some(PathBuf::from("deps.d")));
    }

    #[test]
    fn explicit_language_applies_until_none() {
        let line = parse("-x c++ a.c -x f95 b.inc -x none c.c h.hpp -xc d.txt");
        let sources: Vec<_> = line
            .inputs
            .iter()
            .map(|i| (i.kind.clone(), i.explicit_language.clone()))
            .collect();
        assert_eq!(
            sources,
            [
                (InputKind::Source(Language::Cpp), Some("c++".into())),
                (InputKind::Source(Language::FortranFree), Some("f95".into())),
                (InputKind::Source(Language::C), None),
                (InputKind::Other, None),
                (InputKind::Source(Language::C), Some("c".into())),
            ]
        );
        let headers = parse("-x c-header a.h");
        assert_eq!(headers.inputs[0].kind, InputKind::Other);
    }

    #[test]
    fn modes() {
        assert_eq!(parse("-E a.c").mode, Mode::Preprocess);
        assert_eq!(parse("-M a.c").mode, Mode::Preprocess);
        assert_eq!(parse("-MM -MF a.d a.c").mode, Mode::Preprocess);
        assert_eq!(parse("-fsyntax-only a.c").mode, Mode::Preprocess);
        assert_eq!(parse("-S a.c").mode, Mode::Assemble);
        assert_eq!(parse("-c -S a.c").mode, Mode::Assemble);
        assert_eq!(parse("-shared a.o -o liba.so").mode, Mode::PartialLink);
        let line = parse("-MMD -MP -MF dep/a.d -c a.c");
        assert_eq!(line.mode, Mode::Compile);
        assert!(line.dependencies.while_compiling);
        let automake = parse("-Wp,-MD,.deps/a.Tpo -c a.c");
        assert!(automake.dependencies.while_compiling);
        assert_eq!(
            automake.dependencies.file,
            Some(PathBuf::from(".deps/a.Tpo"))
        );
    }

    #[test]
    fn attached_values() {
        let line = parse("-obuild/a.o -MFa.d -Llib -lfoo -c a.c");
        assert_eq!(line.output, Some(PathBuf::from("build/a.o")));
        assert_eq!(line.dependencies.file, Some(PathBuf::from("a.d")));
        assert_eq!(line.library_dirs, [PathBuf::from("lib")]);
        assert_eq!(line.inputs[0].kind, InputKind::Library("foo".into()));
    }

    #[test]
    fn everything_after_double_dash_is_an_input() {
        let line = parse("-c -- -weird.c");
        assert_eq!(
            kinds(&line),
            [("-weird.c".into(), InputKind::Source(Language::C))]
        );
    }

    #[test]
    fn missing_option_value_is_an_error() {
        assert!(
            CommandLine::parse(Driver::C, vec!["-c".into(), "a.c".into(), "-o".into()]).is_err()
        );
    }

    #[test]
    fn response_files_expand_recursively_and_keep_quotes() {
        let dir = tempfile::tempdir().unwrap();
        let inner = dir.path().join("inner.rsp");
        let outer = dir.path().join("outer.rsp");
        std::fs::write(&inner, "-DNAME=\"two words\" 'b c.c'\n").unwrap();
        std::fs::write(&outer, format!("-O2\n  -c a.c @{}\n", inner.display())).unwrap();
        let args = vec![
            OsString::from(format!("@{}", outer.display())),
            "@missing.rsp".into(),
        ];
        let expanded = expand_response_files(args).unwrap();
        assert_eq!(
            expanded,
            [
                "-O2",
                "-c",
                "a.c",
                "-DNAME=two words",
                "b c.c",
                "@missing.rsp"
            ]
        );
        let line = CommandLine::parse(Driver::C, expanded).unwrap();
        assert_eq!(line.inputs.len(), 3);
    }

    #[test]
    fn response_file_naming_itself_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("self.rsp");
        std::fs::write(&file, format!("@{}", file.display())).unwrap();
        assert!(expand_response_files(vec![format!("@{}", file.display()).into()]).is_err());
    }

    #[test]
    fn written_response_files_read_back_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("args.rsp");
        let args: Vec<OsString> = ["-DA=\"x y\"", "it's", "back\\slash", "tab\there", ""]
            .into_iter()
            .map(OsString::from)
            .collect();
        write_response_file(&file, &args).unwrap();
        let read = expand_response_files(vec![format!("@{}", file.display()).into()]).unwrap();
        assert_eq!(read, args);
    }

    #[test]
    fn the_driver_and_the_form_flags_decide_languages() {
        let cxx = parse_by(Driver::Cxx, "-c a.c b.f90");
        assert_eq!(
            kinds(&cxx),
            [
                ("a.c".into(), InputKind::Source(Language::Cpp)),
                ("b.f90".into(), InputKind::Source(Language::FortranFree)),
            ]
        );
        let fixed = parse_by(Driver::Fortran, "-ffixed-form -c a.f90 b.c");
        assert_eq!(
            kinds(&fixed),
            [
                ("a.f90".into(), InputKind::Source(Language::FortranFixed)),
                ("b.c".into(), InputKind::Source(Language::C)),
            ]
        );
        assert_eq!(
            Driver::of_program(Path::new("/usr/bin/clang++-18")),
            Driver::Cxx
        );
        assert_eq!(
            Driver::of_program(Path::new("x86_64-linux-gnu-g++-13")),
            Driver::Cxx
        );
        assert_eq!(Driver::of_program(Path::new("mpicxx")), Driver::Cxx);
        assert_eq!(
            Driver::of_program(Path::new("gfortran-12")),
            Driver::Fortran
        );
        assert_eq!(Driver::of_program(Path::new("mpif90")), Driver::Fortran);
        assert_eq!(Driver::of_program(Path::new("cc")), Driver::C);
        assert_eq!(Driver::of_program(Path::new("gcc")), Driver::C);
    }

    #[test]
    fn fortran_is_preprocessed_by_suffix_or_flag() {
        let line = parse_by(Driver::Fortran, "-c a.f90 b.F90");
        let preprocessed: Vec<bool> = line
            .sources()
            .map(|(_, input, language)| line.preprocesses(input, language))
            .collect();
        assert_eq!(preprocessed, [false, true]);
        let told = parse_by(Driver::Fortran, "-cpp -c a.f90");
        assert!(told.preprocesses(&told.inputs[0], Language::FortranFree));
        let named = parse_by(Driver::Fortran, "-x f95-cpp-input -c a.f90");
        assert!(named.preprocesses(&named.inputs[0], Language::FortranFree));
        let c = parse("-nocpp -c a.c");
        assert!(c.preprocesses(&c.inputs[0], Language::C));
    }

    #[test]
    fn keeps_what_decides_reading_and_drops_the_rest() {
        let line = parse(
            "-c -O2 -DN=4 -D M -I inc -Iother -include pre.h -std=c11 -fopenmp -Wall \
             -o a.o a.c -U X -g -pthread",
        );
        assert_eq!(
            line.compile_flags(None).args,
            [
                "-O2",
                "-DN=4",
                "-DM",
                "-Iinc",
                "-Iother",
                "-includepre.h",
                "-std=c11",
                "-UX",
                "-pthread"
            ]
        );
        assert_eq!(line.defines(), ["N=4", "M"]);
        assert_eq!(
            line.include_dirs(),
            [PathBuf::from("inc"), PathBuf::from("other")]
        );
        assert_eq!(line.standard.as_deref(), Some("c11"));
    }

    #[test]
    fn a_launcher_runs_the_compiler_after_it() {
        let (compiler, first) = compiler_of(&["ccache", "g++", "-c", "a.cc"]);
        assert_eq!((compiler, first), (Some(Path::new("g++")), 2));
        let (compiler, first) = compiler_of(&["/usr/bin/gcc", "-c", "a.c"]);
        assert_eq!((compiler, first), (Some(Path::new("/usr/bin/gcc")), 1));
    }

    #[test]
    fn clangs_openmp_flags_are_openmp_flags_and_pass_through() {
        for flags in ["-fopenmp", "-fopenmp=libomp", "-fopenmp=libgomp"] {
            let line = parse(&format!("{flags} -fopenmp-version=51 -c a.c"));
            assert!(line.openmp, "{flags}");
            assert_eq!(line.args[0], flags);
            assert_eq!(line.args[1], "-fopenmp-version=51");
            assert_eq!(
                kinds(&line),
                [("a.c".into(), InputKind::Source(Language::C))]
            );
        }
        // The version alone switches nothing on, in clang as here.
        let line = parse("-fopenmp-version=50 -fopenmp-simd -c a.c");
        assert!(!line.openmp);
        assert_eq!(line.args.len(), 4);
    }
}
