//! Compilation databases (`compile_commands.json`): which files a build
//! compiles, in which language and with which flags, and the database that
//! points the same commands at the instrumented files.

use anyhow::{Context, Result};
use json_compilation_db::Entry;
use pomp_cmdline::CommandLine;
use pomp_core::frontend::libclang::CompileFlags;
use pomp_core::language::Language;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// What one compile command says about its source.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Unit {
    pub language: Language,
    /// Whether the compiler runs the preprocessor over the file, so that
    /// `#line` markers are read rather than rejected (a Fortran question:
    /// C and C++ are always preprocessed).
    pub preprocessed: bool,
    /// `-D` definitions, `-I` (and `-isystem`, `-iquote`) directories and
    /// `-std`, as the command gives them. The tree-sitter front ends read
    /// the text as written and need none of them; they are reported, and a
    /// front end that preprocesses would take them.
    pub defines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub standard: Option<String>,
    /// The working directory of the compilation.
    pub directory: PathBuf,
    /// What the clang front end reads a C or C++ file with.
    pub compile_flags: CompileFlags,
}

/// A compilation database as read.
#[derive(Debug)]
pub struct Database {
    entries: Vec<Entry>,
    /// Each compiled file (absolute, normalised) and what its first command
    /// says about it; a file compiled twice is instrumented once.
    pub units: BTreeMap<PathBuf, Unit>,
    /// Entries whose file is not C, C++ or Fortran (assembler, CUDA, ...).
    pub skipped: Vec<PathBuf>,
}

impl Database {
    pub fn read(path: &Path) -> Result<Database> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        let entries = json_compilation_db::read(std::io::BufReader::new(file))
            .collect::<Result<Vec<Entry>, _>>()
            .with_context(|| format!("{} is not a compilation database", path.display()))?;
        let mut units = BTreeMap::new();
        let mut skipped = Vec::new();
        for entry in &entries {
            let file = absolute_file(entry);
            match unit_of(entry, &file) {
                Some(unit) => {
                    units.entry(file).or_insert(unit);
                }
                None => skipped.push(file),
            }
        }
        Ok(Database {
            entries,
            units,
            skipped,
        })
    }

    /// The working directories of the commands: build directories, which a
    /// mirror of the sources leaves out.
    pub fn directories(&self) -> BTreeSet<PathBuf> {
        self.entries.iter().map(|e| locate(&e.directory)).collect()
    }

    /// The directory holding every compiled file.
    pub fn common_directory(&self) -> Option<PathBuf> {
        let mut files = self.units.keys();
        let mut common = files.next()?.parent()?.to_path_buf();
        for file in files {
            while !file.starts_with(&common) {
                common = common.parent()?.to_path_buf();
            }
        }
        Some(common)
    }

    /// The same commands with every path that `mirrored` maps (the source
    /// file, include directories) replaced by its counterpart, and every
    /// file they write (`-o`, `-MF`, the entry's `output`) made absolute
    /// and put where `written` says: what clang tools and builds use to
    /// compile the instrumented tree, run in the original directories
    /// (relative paths the commands read stay right) without writing there.
    pub fn mirrored(
        &self,
        mirrored: impl Fn(&Path) -> Option<PathBuf>,
        written: impl Fn(&Path) -> PathBuf,
    ) -> Vec<Entry> {
        self.entries
            .iter()
            .map(|entry| {
                let file = absolute_file(entry);
                let new_file = mirrored(&file);
                let mut arguments = Vec::with_capacity(entry.arguments.len());
                let mut arguments_in = entry.arguments.iter();
                let write_to = |path: &str| {
                    written(&normalise(&locate(&entry.directory).join(path)))
                        .to_string_lossy()
                        .into_owned()
                };
                while let Some(argument) = arguments_in.next() {
                    let resolve = |path: &str| locate(&entry.directory.join(path));
                    if let Some(flag) = WRITING_OPTIONS.iter().find(|f| *f == argument) {
                        arguments.push(flag.to_string());
                        arguments.extend(arguments_in.next().map(|path| write_to(path)));
                    } else if let Some((flag, path)) = WRITING_OPTIONS
                        .iter()
                        .find_map(|f| argument.strip_prefix(f).map(|p| (f, p)))
                        .filter(|(_, p)| !p.is_empty())
                    {
                        arguments.push(format!("{flag}{}", write_to(path)));
                    } else if new_file.is_none() {
                        arguments.push(argument.clone());
                    } else if let Some(flag) = pomp_cmdline::INCLUDE_OPTIONS
                        .iter()
                        .find(|f| *f == argument)
                    {
                        arguments.push(flag.to_string());
                        if let Some(dir) = arguments_in.next() {
                            arguments.push(match mirrored(&resolve(dir)) {
                                Some(new) => new.to_string_lossy().into_owned(),
                                None => dir.clone(),
                            });
                        }
                    } else if let Some((flag, dir)) = pomp_cmdline::INCLUDE_OPTIONS
                        .iter()
                        .find_map(|f| argument.strip_prefix(f).map(|d| (f, d)))
                        .filter(|(_, d)| !d.is_empty())
                    {
                        arguments.push(match mirrored(&resolve(dir)) {
                            Some(new) => format!("{flag}{}", new.display()),
                            None => argument.clone(),
                        });
                    } else if let Some(new_file) =
                        new_file.as_ref().filter(|_| resolve(argument) == file)
                    {
                        arguments.push(new_file.to_string_lossy().into_owned());
                    } else {
                        arguments.push(argument.clone());
                    }
                }
                Entry {
                    file: new_file.unwrap_or_else(|| entry.file.clone()),
                    arguments,
                    directory: entry.directory.clone(),
                    output: entry
                        .output
                        .as_ref()
                        .map(|output| write_to(&output.to_string_lossy()).into()),
                }
            })
            .collect()
    }

    /// The files the mirrored commands write, for their directories to be
    /// made before they run.
    pub fn written_by(entries: &[Entry]) -> BTreeSet<PathBuf> {
        let mut written = BTreeSet::new();
        for entry in entries {
            let mut arguments = entry.arguments.iter();
            while let Some(argument) = arguments.next() {
                if WRITING_OPTIONS.contains(&argument.as_str()) {
                    written.extend(arguments.next().map(PathBuf::from));
                } else if let Some(path) = WRITING_OPTIONS
                    .iter()
                    .find_map(|f| argument.strip_prefix(f))
                    .filter(|p| !p.is_empty())
                {
                    written.insert(PathBuf::from(path));
                }
            }
            written.extend(entry.output.clone());
        }
        written
    }
}

/// Options naming a file the compiler writes: the object and the
/// dependency file (`-MD` and `-MMD` write theirs beside the object).
const WRITING_OPTIONS: &[&str] = &["-o", "-MF"];

/// Write `entries` as a compilation database.
pub fn render(entries: &[Entry]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    json_compilation_db::write(&mut out, entries.iter().cloned())?;
    out.push(b'\n');
    Ok(out)
}

fn absolute_file(entry: &Entry) -> PathBuf {
    locate(&entry.directory.join(&entry.file))
}

/// A path as the walk of the tree names it: links resolved where it
/// exists, else only `.` and `..`.
fn locate(path: &Path) -> PathBuf {
    let path = normalise(path);
    path.canonicalize().unwrap_or(path)
}

/// `.` and `..` resolved without asking the file system, as a compiler
/// resolves a path it is given (links are not followed).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The language, form and flags of `file` as `entry` compiles it; `None`
/// when it is none of C, C++ and Fortran.
fn unit_of(entry: &Entry, file: &Path) -> Option<Unit> {
    let (program, first) = pomp_cmdline::compiler_of(&entry.arguments);
    let driver = pomp_cmdline::Driver::of_program(program?);
    let arguments = entry.arguments.get(first..).unwrap_or_default();
    let line = CommandLine::parse(driver, arguments.iter().map(OsString::from).collect()).ok()?;
    let directory = locate(&entry.directory);
    // The entry's file, as the command names it; a command naming one
    // source in another spelling compiles that one.
    let mut sources = line.sources();
    let (_, input, language) = match line
        .sources()
        .find(|(_, input, _)| locate(&entry.directory.join(&input.path)) == file)
    {
        Some(source) => source,
        None => sources.next().filter(|_| sources.next().is_none())?,
    };
    Some(Unit {
        language,
        preprocessed: line.preprocesses(input, language),
        defines: line.defines(),
        include_dirs: (line.include_dirs().iter())
            .map(|dir| locate(&entry.directory.join(dir)))
            .collect(),
        standard: line.standard.clone(),
        compile_flags: line.compile_flags(Some(directory.clone())),
        directory,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(directory: &str, file: &str, arguments: &[&str]) -> Entry {
        Entry {
            file: file.into(),
            arguments: arguments.iter().map(|a| a.to_string()).collect(),
            directory: directory.into(),
            output: None,
        }
    }

    fn unit(arguments: &[&str], file: &str) -> Option<Unit> {
        let e = entry("/b", file, arguments);
        unit_of(&e, &absolute_file(&e))
    }

    #[test]
    fn languages_come_from_x_the_driver_and_the_suffix() {
        let language = |arguments: &[&str], file| unit(arguments, file).map(|u| u.language);
        assert_eq!(language(&["gcc", "-c", "a.c"], "a.c"), Some(Language::C));
        assert_eq!(
            language(&["/usr/bin/g++-13", "a.c"], "a.c"),
            Some(Language::Cpp)
        );
        assert_eq!(
            language(&["ccache", "clang++", "a.c"], "a.c"),
            Some(Language::Cpp)
        );
        assert_eq!(
            language(&["gcc", "-x", "c++", "a.c"], "a.c"),
            Some(Language::Cpp)
        );
        assert_eq!(
            language(&["cc", "-xc", "a.inc"], "a.inc"),
            Some(Language::C)
        );
        assert_eq!(language(&["cc", "-c", "a.s"], "a.s"), None);
        assert_eq!(
            language(&["gfortran", "-ffixed-form", "a.f90"], "a.f90"),
            Some(Language::FortranFixed)
        );
    }

    #[test]
    fn fortran_is_preprocessed_by_suffix_or_flag() {
        let preprocessed = |arguments: &[&str], file| unit(arguments, file).unwrap().preprocessed;
        assert!(!preprocessed(&["gfortran", "-c", "a.f90"], "a.f90"));
        assert!(preprocessed(&["gfortran", "-c", "a.F90"], "a.F90"));
        assert!(preprocessed(&["gfortran", "-cpp", "a.f90"], "a.f90"));
        assert!(!preprocessed(&["gfortran", "-nocpp", "a.F90"], "a.F90"));
        assert!(preprocessed(&["gcc", "a.c"], "a.c"));
    }

    #[test]
    fn flags_are_collected_with_paths_resolved() {
        let u = unit(
            &[
                "cc",
                "-DA=1",
                "-D",
                "B",
                "-I../inc",
                "-isystem",
                "/usr/x",
                "-std=c11",
                "-o",
                "a.o",
                "../src/a.c",
            ],
            "../src/a.c",
        )
        .unwrap();
        assert_eq!(u.defines, ["A=1", "B"]);
        assert_eq!(
            u.include_dirs,
            [PathBuf::from("/inc"), PathBuf::from("/usr/x")]
        );
        assert_eq!(u.standard.as_deref(), Some("c11"));
        assert_eq!(u.directory, PathBuf::from("/b"));
    }

    #[test]
    fn mirrored_commands_name_the_mirror() {
        let database = Database {
            entries: vec![
                entry(
                    "/p/build",
                    "/p/src/a.c",
                    &[
                        "cc",
                        "-I/p/inc",
                        "-I",
                        "../inc",
                        "-I/usr/inc",
                        "-c",
                        "/p/src/a.c",
                        "-o",
                        "obj/a.o",
                        "-MMD",
                        "-MFobj/a.d",
                    ],
                ),
                entry(
                    "/p/build",
                    "/elsewhere/b.c",
                    &["cc", "-c", "/elsewhere/b.c"],
                ),
            ],
            units: BTreeMap::new(),
            skipped: vec![],
        };
        let in_mirror = |path: &Path| {
            path.strip_prefix("/p")
                .ok()
                .map(|rest| Path::new("/out").join(rest))
        };
        let mirrored = database.mirrored(in_mirror, |path| in_mirror(path).unwrap());
        assert_eq!(mirrored[0].file, PathBuf::from("/out/src/a.c"));
        assert_eq!(
            mirrored[0].arguments,
            [
                "cc",
                "-I/out/inc",
                "-I",
                "/out/inc",
                "-I/usr/inc",
                "-c",
                "/out/src/a.c",
                "-o",
                "/out/build/obj/a.o",
                "-MMD",
                "-MF/out/build/obj/a.d"
            ]
        );
        assert_eq!(
            Database::written_by(&mirrored),
            BTreeSet::from(["/out/build/obj/a.o".into(), "/out/build/obj/a.d".into()])
        );
        assert_eq!(mirrored[0].directory, PathBuf::from("/p/build"));
        assert_eq!(mirrored[1], database.entries[1]);
    }
}
