//! From a command line and its instrumented sources to the compiler runs
//! that build what the user asked for. Nothing here touches the file
//! system or runs anything: [`super::exec`] does.

use super::compiler::is_clang;
use super::depfiles;
use super::sources::InstrumentedSource;
use pomp2::registration::pomp1::Region as Pomp1Region;
use pomp2::registration::InitFunction;
use pomp_cmdline::{CommandLine, InputKind, Mode};
use pomp_core::rules::Interface;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One run of the compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The compiler, with a launcher in front if the user named one.
    pub command: Vec<OsString>,
    pub args: Vec<OsString>,
    /// Dependency files to point back at the user's sources afterwards.
    pub dependencies: Vec<depfiles::Rewrite>,
}

/// What the final link of a program must scan before it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkInputs {
    /// Objects, archives and shared libraries named on the command line.
    pub files: Vec<PathBuf>,
    /// `-lNAME` libraries, looked up in `library_dirs`.
    pub libraries: Vec<String>,
    pub library_dirs: Vec<PathBuf>,
    /// `-static`: only archives are found for `-lNAME`.
    pub static_only: bool,
    /// Registration functions of the sources instrumented in this run.
    pub init_functions: Vec<InitFunction>,
    /// Their regions of the original interface, for its table.
    pub pomp1_regions: Vec<Pomp1Region>,
    pub calls_pomp2: bool,
    pub calls_pomp1: bool,
    /// `--pomp-runtime`: the POMP2 library to link instead of pomp's.
    pub runtime: Option<String>,
    /// The command line already asks for OpenMP.
    pub openmp: bool,
    /// Flags the registration object must share with the program's objects.
    pub target_flags: Vec<OsString>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Run(Run),
    /// Link a program: scan its inputs, and when POMP2 code is linked, add
    /// the registration object at `args[registration_at]` and a POMP2
    /// library at the end.
    Link {
        run: Run,
        registration_at: usize,
        inputs: LinkInputs,
    },
}

/// Whether the sources of `line` are instrumented at all: not when it only
/// preprocesses or names nothing to compile.
pub fn instruments(line: &CommandLine) -> bool {
    let has_sources = line.sources().next().is_some();
    let compiles = matches!(line.mode, Mode::Compile | Mode::Assemble);
    !(line.mode == Mode::Preprocess || (compiles && !has_sources) || line.inputs.is_empty())
}

/// The compiler runs for `line`. `scratch` holds the instrumented copies
/// and whatever else the runs produce on the way; it is only needed when
/// sources were instrumented.
pub fn plan(
    line: &CommandLine,
    command: &[OsString],
    runtime: Option<&str>,
    instrumented: &[InstrumentedSource],
    scratch: Option<&Path>,
) -> Vec<Step> {
    if !instruments(line) {
        return vec![Step::Run(Run {
            command: command.to_vec(),
            args: line.args.clone(),
            dependencies: vec![],
        })];
    }
    let planner = Planner {
        line,
        command,
        runtime,
    };
    let groups = planner.compile_groups(instrumented);
    if groups.len() > 1 {
        return groups
            .iter()
            .map(|group| Step::Run(planner.compile(group, &[])))
            .collect();
    }
    let mut steps = Vec::new();
    let mut objects = BTreeMap::new();
    let linking = matches!(line.mode, Mode::Link | Mode::PartialLink);
    if linking && source_directories(instrumented) > 1 {
        let scratch = scratch.expect("instrumented sources live in the scratch directory");
        for (number, source) in instrumented.iter().enumerate() {
            let object = scratch
                .join(format!("object-{number}"))
                .join(format!("{}.o", source.user_stem()));
            steps.push(Step::Run(planner.compile_to_object(source, &object)));
            objects.insert(source.arg_index, object);
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
    let run = planner.compile(&everything, &[]);
    if line.mode != Mode::Link {
        steps.push(Step::Run(run));
        return steps;
    }
    steps.push(Step::Link {
        registration_at: planner.leading_flags(&everything).len(),
        inputs: planner.link_inputs(instrumented),
        run,
    });
    steps
}

/// The run compiling the registration file `source` into `object`, with
/// the C compiler `command`.
pub fn registration_run(
    command: &[OsString],
    inputs: &LinkInputs,
    source: &Path,
    object: &Path,
) -> Run {
    let mut args = inputs.target_flags.clone();
    args.extend(["-c".into(), source.as_os_str().to_owned(), "-o".into()]);
    args.push(object.as_os_str().to_owned());
    Run {
        command: command.to_vec(),
        args,
        dependencies: vec![],
    }
}

/// Instrumented sources compiled in one compiler run, the arguments (by
/// index) of inputs that belong to other runs, and sources already compiled
/// to objects, by the index of their argument.
struct CompileGroup<'a> {
    sources: Vec<&'a InstrumentedSource>,
    excluded: BTreeSet<usize>,
    objects: BTreeMap<usize, PathBuf>,
}

struct Planner<'a> {
    line: &'a CommandLine,
    command: &'a [OsString],
    /// Another POMP2 library to link instead of pomp's runtime.
    runtime: Option<&'a str>,
}

impl Planner<'_> {
    /// Instrumented copies find quoted includes through `-iquote` of their
    /// original's directory, which would apply to every source of one
    /// compiler run: sources from different directories are compiled in
    /// separate runs, one per directory, when that changes nothing else
    /// (`-c` and `-S` name each output after its source anyway).
    fn compile_groups<'s>(&self, instrumented: &'s [InstrumentedSource]) -> Vec<CompileGroup<'s>> {
        let line = self.line;
        let separable =
            matches!(line.mode, Mode::Compile | Mode::Assemble) && line.output.is_none();
        if !separable || source_directories(instrumented) < 2 {
            return Vec::new();
        }
        let mut by_directory: Vec<(&Path, Vec<&'s InstrumentedSource>)> = Vec::new();
        for source in instrumented {
            let directory = source.user_path.parent().unwrap_or(Path::new(""));
            match by_directory.iter_mut().find(|(d, _)| *d == directory) {
                Some((_, sources)) => sources.push(source),
                None => by_directory.push((directory, vec![source])),
            }
        }
        let inputs: BTreeSet<usize> = line
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

    /// One instrumented source compiled alone into `object`, for a link
    /// whose sources come from several directories.
    fn compile_to_object(&self, source: &InstrumentedSource, object: &Path) -> Run {
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
        let object_output: Vec<OsString> = vec!["-c".into(), "-o".into(), object.into()];
        self.compile(&group, &object_output)
    }

    /// What goes before the user's arguments: search paths for the
    /// instrumented copies, and what link-time optimisation needs.
    fn leading_flags(&self, group: &CompileGroup) -> Vec<OsString> {
        let mut args = search_path_flags(&group.sources);
        if !group.sources.is_empty() && self.line.lto && !is_clang(self.command) {
            // Slim LTO objects have no symbol table the link step can read
            // the registration functions from.
            args.push("-ffat-lto-objects".into());
        }
        args
    }

    /// The compiler on the user's command line with the group's sources
    /// swapped for their instrumented copies and the excluded inputs left
    /// out; `trailing` arguments go last.
    fn compile(&self, group: &CompileGroup, trailing: &[OsString]) -> Run {
        let mut args = self.leading_flags(group);
        args.extend(self.with_sources_swapped(group));
        args.extend_from_slice(trailing);
        let dependencies = if self.line.dependencies.while_compiling {
            group
                .sources
                .iter()
                .map(|source| self.dependency_rewrite(source))
                .collect()
        } else {
            Vec::new()
        };
        Run {
            command: self.command.to_vec(),
            args,
            dependencies,
        }
    }

    fn dependency_rewrite(&self, source: &InstrumentedSource) -> depfiles::Rewrite {
        let line = self.line;
        depfiles::Rewrite {
            candidates: depfiles::candidates(
                line.dependencies.file.as_deref(),
                line.output.as_deref(),
                matches!(line.mode, Mode::Compile | Mode::Assemble),
                &source.user_stem(),
            ),
            compiled: source.compiled_path.clone(),
            user: source.user_path.clone(),
        }
    }

    /// The user's arguments with each instrumented source replaced by its
    /// instrumented copy (or its object).
    fn with_sources_swapped(&self, group: &CompileGroup) -> Vec<OsString> {
        let by_index: BTreeMap<usize, &InstrumentedSource> =
            group.sources.iter().map(|s| (s.arg_index, *s)).collect();
        let mut args = Vec::with_capacity(self.line.args.len() + 4);
        for (index, arg) in self.line.args.iter().enumerate() {
            if group.excluded.contains(&index) {
                continue;
            }
            if let Some(object) = group.objects.get(&index) {
                args.push(object.clone().into_os_string());
                continue;
            }
            let Some(source) = by_index.get(&index) else {
                args.push(arg.clone());
                continue;
            };
            // An explicit `-x f95` or `-x cpp-output` would skip the
            // preprocessor that reads pomp's `#line` markers and macros.
            let preprocessed_language = source.language.preprocessed_compiler_name();
            match &source.explicit_language {
                Some(user_language) if user_language != preprocessed_language => {
                    args.extend(["-x".into(), preprocessed_language.into()]);
                    args.push(source.compiled_path.clone().into_os_string());
                    args.extend(["-x".into(), user_language.into()]);
                }
                _ => args.push(source.compiled_path.clone().into_os_string()),
            }
        }
        args
    }

    fn link_inputs(&self, instrumented: &[InstrumentedSource]) -> LinkInputs {
        let line = self.line;
        let mut inputs = LinkInputs {
            library_dirs: line.library_dirs.clone(),
            static_only: line.args.iter().any(|a| a == "-static"),
            runtime: self.runtime.map(str::to_owned),
            openmp: line.openmp,
            target_flags: target_flags(&line.args),
            ..LinkInputs::default()
        };
        for input in &line.inputs {
            match &input.kind {
                InputKind::Object | InputKind::Archive | InputKind::SharedLibrary => {
                    inputs.files.push(input.path.clone())
                }
                InputKind::Library(name) => inputs.libraries.push(name.clone()),
                _ => {}
            }
        }
        for source in instrumented {
            inputs
                .init_functions
                .extend(source.init_functions.iter().cloned());
            inputs
                .pomp1_regions
                .extend(source.pomp1_regions.iter().cloned());
            match source.interface {
                Interface::Pomp2 => inputs.calls_pomp2 = true,
                Interface::Pomp1 | Interface::Pomp1Paper => inputs.calls_pomp1 = true,
            }
        }
        inputs
    }
}

fn source_directories(instrumented: &[InstrumentedSource]) -> usize {
    let directories: BTreeSet<&Path> = instrumented
        .iter()
        .map(|s| s.user_path.parent().unwrap_or(Path::new("")))
        .collect();
    directories.len()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    fn line(args: &[&str]) -> CommandLine {
        CommandLine::parse(pomp_cmdline::Driver::C, words(args)).unwrap()
    }

    /// A source of `line` instrumented into `/scratch/<n>/`.
    fn instrumented(line: &CommandLine, number: usize) -> InstrumentedSource {
        let (_, input, language) = line.sources().nth(number).unwrap();
        let name = input.path.file_name().unwrap();
        InstrumentedSource {
            arg_index: input.arg_index,
            user_path: input.path.clone(),
            compiled_path: Path::new("/scratch").join(number.to_string()).join(name),
            language,
            explicit_language: input.explicit_language.clone(),
            init_functions: vec![InitFunction::new(&format!("u{number}"), 2)],
            pomp1_regions: Vec::new(),
            interface: Interface::Pomp2,
        }
    }

    fn args_of(step: &Step) -> Vec<String> {
        let run = match step {
            Step::Run(run) | Step::Link { run, .. } => run,
        };
        run.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn target_flags_are_forwarded_to_the_registration_compile() {
        let args = words(&[
            "-O2",
            "-m32",
            "-target",
            "x86_64-linux-gnu",
            "-fPIC",
            "-Wall",
            "a.o",
        ]);
        assert_eq!(
            target_flags(&args),
            ["-m32", "-target", "x86_64-linux-gnu", "-fPIC"]
        );
    }

    #[test]
    fn preprocessing_runs_the_compiler_as_asked() {
        let line = line(&["-E", "src/a.c"]);
        let steps = plan(&line, &words(&["gcc"]), None, &[], None);
        assert_eq!(steps.len(), 1);
        assert_eq!(args_of(&steps[0]), ["-E", "src/a.c"]);
    }

    #[test]
    fn a_compiled_source_is_swapped_for_its_copy_with_the_original_search_path() {
        let line = line(&["-c", "-O2", "src/a.c", "-MD"]);
        let source = instrumented(&line, 0);
        let steps = plan(
            &line,
            &words(&["gcc"]),
            None,
            &[source],
            Some(Path::new("/scratch")),
        );
        assert_eq!(steps.len(), 1);
        assert_eq!(
            args_of(&steps[0]),
            [
                "-ffile-prefix-map=/scratch/0/=src/",
                "-iquote",
                "src",
                "-c",
                "-O2",
                "/scratch/0/a.c",
                "-MD"
            ]
        );
        let Step::Run(run) = &steps[0] else {
            panic!("a compile is no link")
        };
        assert_eq!(run.dependencies[0].candidates, [PathBuf::from("a.d")]);
    }

    #[test]
    fn sources_from_two_directories_compile_in_two_runs() {
        let line = line(&["-c", "x/a.c", "y/b.c", "plain.c"]);
        let sources = [instrumented(&line, 0), instrumented(&line, 1)];
        let steps = plan(
            &line,
            &words(&["gcc"]),
            None,
            &sources,
            Some(Path::new("/scratch")),
        );
        assert_eq!(steps.len(), 2);
        let first = args_of(&steps[0]);
        assert!(first.contains(&"/scratch/0/a.c".into()) && first.contains(&"plain.c".into()));
        assert!(!first.iter().any(|a| a.ends_with("b.c")));
        let second = args_of(&steps[1]);
        assert!(second.contains(&"/scratch/1/b.c".into()));
        assert!(!second.iter().any(|a| a.ends_with("a.c")));
    }

    #[test]
    fn a_program_links_with_what_its_sources_register() {
        let line = line(&["x/a.c", "y/b.c", "lib.a", "-lm", "-o", "app"]);
        let sources = [instrumented(&line, 0), instrumented(&line, 1)];
        let steps = plan(
            &line,
            &words(&["gcc"]),
            None,
            &sources,
            Some(Path::new("/scratch")),
        );
        // Each source alone to an object, then the link.
        assert_eq!(steps.len(), 3);
        assert_eq!(
            args_of(&steps[0]),
            [
                "-ffile-prefix-map=/scratch/0/=x/",
                "-iquote",
                "x",
                "/scratch/0/a.c",
                "-lm",
                "-c",
                "-o",
                "/scratch/object-0/a.o"
            ]
        );
        let Step::Link {
            inputs,
            registration_at,
            ..
        } = &steps[2]
        else {
            panic!("the last step links")
        };
        assert_eq!(*registration_at, 0);
        let link = args_of(&steps[2]);
        assert_eq!(
            link,
            [
                "/scratch/object-0/a.o",
                "/scratch/object-1/b.o",
                "lib.a",
                "-lm",
                "-o",
                "app"
            ]
        );
        assert_eq!(inputs.files, [PathBuf::from("lib.a")]);
        assert_eq!(inputs.libraries, ["m"]);
        assert_eq!(inputs.init_functions.len(), 2);
        assert!(inputs.calls_pomp2 && !inputs.calls_pomp1);
    }
}
