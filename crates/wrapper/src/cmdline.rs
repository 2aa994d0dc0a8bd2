//! Reading a gcc/clang/gfortran command line: which arguments are inputs and
//! of what kind, what the invocation produces, and which arguments belong to
//! the wrapper rather than the compiler.

use anyhow::{bail, Context, Result};
use pomp_core::flags::{Flag, Value};
use pomp_core::instrument::Options;
use pomp_core::language::Language;
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

/// Options addressed to the wrapper (`--pomp-...`), removed before the
/// compiler runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WrapperOptions {
    /// How sources are instrumented: the options `pomp instrument` has.
    pub instrument: Options,
    pub keep: bool,
    pub verbose: bool,
    pub help: bool,
    /// Another POMP2 library to link instead of pomp's runtime.
    pub runtime: Option<String>,
}

/// The wrappers' own options, besides those of instrumentation.
pub static WRAPPER_FLAGS: &[Flag<WrapperOptions>] = &[
    Flag {
        name: "keep",
        aliases: &[],
        value: Value::Switch,
        help: "Keep instrumented sources and IDF JSON beside the objects.",
        apply: |o, _| {
            o.keep = true;
            Ok(())
        },
    },
    Flag {
        name: "runtime",
        aliases: &[],
        value: Value::Text { placeholder: "LIB" },
        help: "Link this POMP2 library instead of pomp's runtime (a .a or .so path, or -lNAME).",
        apply: |o, v| {
            o.runtime = v.map(str::to_owned);
            Ok(())
        },
    },
    Flag {
        name: "verbose",
        aliases: &[],
        value: Value::Switch,
        help: "Print the commands run.",
        apply: |o, _| {
            o.verbose = true;
            Ok(())
        },
    },
    Flag {
        name: "help",
        aliases: &[],
        value: Value::Switch,
        help: "This text.",
        apply: |o, _| {
            o.help = true;
            Ok(())
        },
    },
];

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
    pub wrapper: WrapperOptions,
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
    /// Classify an already response-file-expanded argument list.
    pub fn parse(all_args: Vec<OsString>) -> Result<CommandLine> {
        let mut wrapper = WrapperOptions::default();
        let mut args = Vec::with_capacity(all_args.len());
        for arg in all_args {
            if let Some(option) = arg.to_str().and_then(|a| a.strip_prefix("--pomp-")) {
                wrapper.apply(option)?;
            } else {
                args.push(arg);
            }
        }

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
            wrapper,
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
                    .push(classify_input(i, arg, language.as_deref()));
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
        line.args = args;
        Ok(line)
    }

    pub fn sources(&self) -> impl Iterator<Item = (usize, &Input, Language)> {
        self.inputs
            .iter()
            .enumerate()
            .filter_map(|(n, input)| match input.kind {
                InputKind::Source(language) => Some((n, input, language)),
                _ => None,
            })
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

fn classify_input(arg_index: usize, arg: &OsStr, language: Option<&str>) -> Input {
    let path = PathBuf::from(arg);
    let kind = match language {
        Some(language) => match Language::from_compiler_name(language) {
            Some(language) => InputKind::Source(language),
            None => InputKind::Other,
        },
        None => kind_by_suffix(&path),
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

impl WrapperOptions {
    /// Apply `--pomp-OPTION`, given without its prefix.
    fn apply(&mut self, option: &str) -> Result<()> {
        let (name, value) = match option.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (option, None),
        };
        // The aliases are `pomp instrument`'s own spellings.
        let result = if let Some(flag) = pomp_core::flags::INSTRUMENTATION
            .iter()
            .find(|f| f.name == name)
        {
            flag.set(&mut self.instrument, value)
        } else if let Some(flag) = WRAPPER_FLAGS.iter().find(|f| f.name == name) {
            flag.set(self, value)
        } else {
            bail!("unknown wrapper option '--pomp-{option}' (see --pomp-help)");
        };
        result.map_err(|message| anyhow::anyhow!("--pomp-{name}: {message}"))
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
        CommandLine::parse(line.split_whitespace().map(OsString::from).collect()).unwrap()
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
    fn wrapper_options_are_removed() {
        let line = parse("--pomp-disable=sync,Locks --pomp-keep -c a.c --pomp-events=opari2 --pomp-runtime=-lscorep");
        assert_eq!(line.args, ["-c", "a.c"]);
        assert_eq!(line.inputs[0].arg_index, 1);
        assert!(line.wrapper.keep);
        assert_eq!(
            line.wrapper.instrument.rules.events,
            pomp_core::rules::EventSet::Opari2
        );
        assert_eq!(line.wrapper.runtime.as_deref(), Some("-lscorep"));
        assert_eq!(
            line.wrapper.instrument.rules.disable,
            std::collections::BTreeSet::from(["sync".into(), "locks".into()])
        );
        let error = CommandLine::parse(vec!["--pomp-frobnicate".into()]).unwrap_err();
        assert!(error.to_string().contains("--pomp-frobnicate"), "{error}");
    }

    #[test]
    fn missing_option_value_is_an_error() {
        assert!(CommandLine::parse(vec!["-c".into(), "a.c".into(), "-o".into()]).is_err());
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
        let line = CommandLine::parse(expanded).unwrap();
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
}
