//! The libclang front end: it reads every C and C++ corpus program and a
//! set of generated programs exactly as the tree-sitter front end does
//! (same directives, same blocks, byte-identical output), and what only it
//! can read — a loop header split by `#if`, directives in skipped
//! branches, directives produced by macros — is instrumented so that the
//! program, compiled through `pomp cc` with every setting of its macros,
//! prints what the original prints and uses POMP2 correctly. The corpus
//! programs are read alike also as gcc's and clang's preprocessors leave
//! them.
//!
//! libclang must be installed (`scripts/setup` does it).

#[allow(dead_code)]
#[path = "support/progen/mod.rs"]
mod progen;

use pomp_core::frontend::libclang::{cross_check::cross_check, CompileFlags};
use pomp_core::frontend::{Choice, Options as FrontEndOptions};
use pomp_core::instrument::{instrument, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn require_libclang() {
    assert!(
        pomp_core::frontend::libclang::available(),
        "these tests need libclang: {}",
        pomp_core::frontend::libclang::INSTALL_HINT
    );
}

/// The flags the corpus test compiles with.
fn corpus_flags() -> CompileFlags {
    pomp_cmdline::compile_flags(&["-fopenmp", "-O1"], None)
}

fn options(choice: Choice, flags: &CompileFlags) -> Options {
    Options {
        front_end: FrontEndOptions {
            choice,
            compile_flags: Some(flags.clone()),
            ..FrontEndOptions::default()
        },
        ..Options::default()
    }
}

/// How the two readings of one file compare.
struct Agreement {
    path: PathBuf,
    directives: usize,
    /// Directives read differently for a reason clang knows (a skipped
    /// branch, a macro, a block tree-sitter cannot read).
    explained: usize,
    /// Problems, empty when the front ends agree.
    problems: Vec<String>,
}

/// Both readings of `file`: the cross-check finds no difference it cannot
/// explain, and where it finds none at all the outputs are the same bytes;
/// where it explains some, the clang output compiles.
fn compare_front_ends(file: &SourceFile, flags: &CompileFlags, work: &Path) -> Agreement {
    let tree_sitter = instrument(file, &options(Choice::TreeSitter, flags));
    let clang = instrument(file, &options(Choice::Clang, flags));
    let mut problems = Vec::new();
    if clang.front_end != "clang" {
        problems.push(format!("read by {}", clang.front_end));
    }
    if clang.has_errors() {
        problems.push(pomp_cli::render::render(file, &clang.diagnostics, false));
    }
    let (unexplained, explained): (Vec<_>, Vec<_>) = cross_check(file, flags)
        .into_iter()
        .partition(|d| d.is_error());
    if !unexplained.is_empty() {
        problems.push(pomp_cli::render::render(file, &unexplained, false));
    }
    let clang_output = clang.output(file);
    let tree_sitter_output = tree_sitter.output(file);
    if explained.is_empty() && tree_sitter_output != clang_output {
        let a = String::from_utf8_lossy(&tree_sitter_output);
        let b = String::from_utf8_lossy(&clang_output);
        let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
        problems.push(format!(
            "outputs differ:\n{}",
            diff.unified_diff().header("tree-sitter", "clang")
        ));
    }
    if !explained.is_empty() && !clang.has_errors() {
        // Named as the wrappers name an instrumented copy, which the
        // compiler preprocesses (a `.i` becomes a `.c`).
        let stem = file.path.file_stem().unwrap().to_string_lossy();
        let suffix = file.path.extension().unwrap().to_string_lossy();
        let suffix = file.language.instrumented_suffix(&suffix);
        let instrumented = work.join(format!("{stem}.clang.{suffix}"));
        std::fs::write(&instrumented, &clang_output).unwrap();
        let compiler = match file.language {
            Language::Cpp => "g++",
            _ => "gcc",
        };
        let compiled = Command::new(compiler)
            .args(["-fopenmp", "-fsyntax-only"])
            .arg(&instrumented)
            .output()
            .unwrap();
        if !compiled.status.success() {
            problems.push(format!(
                "the clang output does not compile:\n{}",
                String::from_utf8_lossy(&compiled.stderr)
            ));
        }
    }
    Agreement {
        path: file.path.clone(),
        directives: tree_sitter.model.sites.len().max(clang.model.sites.len()),
        explained: explained.len(),
        problems,
    }
}

fn report(agreements: &[Agreement], what: &str) {
    let sum = |f: fn(&Agreement) -> usize| agreements.iter().map(f).sum::<usize>();
    let alike = agreements
        .iter()
        .filter(|a| a.problems.is_empty() && a.explained == 0)
        .count();
    eprintln!(
        "{what}: {alike} of {} files read alike by both front ends; of {} directives, {} read \
         differently for a reason clang gives; {} files with unexplained differences",
        agreements.len(),
        sum(|a| a.directives),
        sum(|a| a.explained),
        agreements.iter().filter(|a| !a.problems.is_empty()).count(),
    );
    let failures: Vec<String> = agreements
        .iter()
        .filter(|a| !a.problems.is_empty())
        .map(|a| format!("{}:\n{}", a.path.display(), a.problems.join("\n")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

fn corpus_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["c", "cxx", "kernels", "bench"] {
        for entry in std::fs::read_dir(repository().join("corpus").join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let source = matches!(
                Language::from_path(&path),
                Some(Language::C | Language::Cpp)
            );
            if source && !name.contains(".pomp.") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every C and C++ program of the corpus, read by both front ends on
/// rayon's threads (libclang is loaded once and shared with each).
#[test]
fn corpus_programs_read_alike_with_both_front_ends() {
    require_libclang();
    let flags = corpus_flags();
    let work = tempfile::tempdir().unwrap();
    let agreements: Vec<Agreement> = corpus_files()
        .par_iter()
        .map(|path| {
            let file = pomp_core::instrument::read_source(path, None).unwrap();
            compare_front_ends(&file, &flags, work.path())
        })
        .collect();
    assert!(agreements.len() >= 20, "the corpus is gone");
    report(&agreements, "corpus");
}

/// Every C and C++ program of the corpus, as the preprocessor of gcc and
/// of clang leaves it (line markers everywhere, the headers inlined), is
/// read alike by both front ends, the code regions of every kind too.
#[test]
fn preprocessed_programs_read_alike_with_both_front_ends() {
    require_libclang();
    let flags = corpus_flags();
    let work = tempfile::tempdir().unwrap();
    let regions_dir = repository().join("corpus/regions");
    let regions_programs = std::fs::read_dir(&regions_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| matches!(Language::from_path(p), Some(Language::C | Language::Cpp)));
    let programs: Vec<PathBuf> = corpus_files().into_iter().chain(regions_programs).collect();
    let toolchains = progen::toolchains::Toolchain::all();
    let inputs: Vec<(PathBuf, PathBuf)> = (toolchains.iter())
        .flat_map(|toolchain| programs.iter().map(move |p| (toolchain, p)))
        .map(|(toolchain, program)| {
            let (compiler, suffix) = match Language::from_path(program) {
                Some(Language::Cpp) => (&toolchain.cxx, "ii"),
                _ => (&toolchain.c, "i"),
            };
            let stem = program.file_stem().unwrap().to_string_lossy();
            let preprocessed = (work.path()).join(format!("{stem}.{}.{suffix}", toolchain.name));
            let status = Command::new(compiler)
                .args(["-E", "-fopenmp"])
                .arg(program)
                .arg("-o")
                .arg(&preprocessed)
                .status()
                .unwrap();
            assert!(status.success(), "{compiler} -E {}", program.display());
            (program.clone(), preprocessed)
        })
        .collect();
    let regions = pomp_core::model::CodeRegions {
        functions: true,
        lambdas: true,
        loops: true,
        calls: Default::default(),
    };
    let agreements: Vec<Agreement> = inputs
        .par_iter()
        .map(|(program, path)| {
            let file = pomp_core::instrument::read_source(path, None).unwrap();
            let mut agreement = compare_front_ends(&file, &flags, work.path());
            if program.starts_with(&regions_dir) {
                let read = |choice| {
                    let mut options = options(choice, &flags);
                    options.front_end.regions = regions.clone();
                    instrument(&file, &options).output(&file)
                };
                if read(Choice::TreeSitter) != read(Choice::Clang) {
                    agreement
                        .problems
                        .push("the code regions' outputs differ".into());
                }
            }
            agreement
        })
        .collect();
    report(&agreements, "preprocessed corpus");
}

/// Generated C programs (every feature of the generator) read alike.
#[test]
fn generated_programs_read_alike_with_both_front_ends() {
    require_libclang();
    use progen::ast::Lang;
    use progen::generate::{generate, Features};
    let flags = corpus_flags();
    let work = tempfile::tempdir().unwrap();
    let agreements: Vec<Agreement> = (1..=60u64)
        .into_par_iter()
        .map(|seed| {
            let program = generate(seed, Lang::C, &Features::all());
            let text = progen::render(&program, &format!("seed {seed}"));
            let file = SourceFile::new(format!("seed-{seed}.c"), text.into_bytes(), Language::C);
            compare_front_ends(&file, &flags, work.path())
        })
        .collect();
    report(&agreements, "generated");
}

/// A directory with the checking POMP2 library compiled into it.
struct Workspace {
    dir: tempfile::TempDir,
    checker: PathBuf,
}

impl Workspace {
    fn new() -> Workspace {
        let dir = tempfile::Builder::new()
            .prefix("pomp-clang-test")
            .tempdir()
            .unwrap();
        let checker = dir.path().join("pomp2_check.o");
        run(Command::new("gcc")
            .args(["-O1", "-fopenmp", "-c"])
            .arg(repository().join("tests/support/pomp2_check.c"))
            .arg("-o")
            .arg(&checker));
        Workspace { dir, checker }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

fn run(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A region of the IDF descriptor: its type and first line.
type Region = (String, u64);

/// Build `program` (under `tests/clang/`) with `defines`, plainly and
/// through `pomp cc` (whose `auto` front end is clang, the flags being
/// known); both must print the same, the instrumented one using POMP2
/// correctly. Returns the regions pomp instrumented and what it printed.
fn build_and_compare(
    workspace: &Workspace,
    program: &str,
    defines: &[&str],
) -> (Vec<Region>, String) {
    let source = repository().join("tests/clang").join(program);
    let dir = workspace
        .path()
        .join(format!("{program}{}", defines.join("")));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = run(Command::new("gcc")
        .current_dir(&dir)
        .args(["-fopenmp", "-O1"])
        .args(defines)
        .arg(&source)
        .args(["-o", "plain"]));
    drop(plain);
    let built = run(Command::new(env!("CARGO_BIN_EXE_pomp"))
        .current_dir(&dir)
        .env_remove("POMP_CC")
        .args(["cc", "-fopenmp", "-O1", "--pomp-keep"])
        .arg(format!("--pomp-runtime={}", workspace.checker.display()))
        .args(defines)
        .arg(&source)
        .args(["-o", "instrumented"]));
    let expected = run(Command::new(dir.join("plain")).env("OMP_NUM_THREADS", "3"));
    let summary = dir.join("check.txt");
    let got = run(Command::new(dir.join("instrumented"))
        .env("OMP_NUM_THREADS", "3")
        .env("POMP_CHECK_OUT", &summary));
    assert_eq!(
        String::from_utf8_lossy(&got.stdout),
        String::from_utf8_lossy(&expected.stdout),
        "{program} {defines:?}: the instrumented program prints otherwise"
    );
    let check = std::fs::read_to_string(&summary).unwrap();
    assert!(
        check.lines().any(|l| l == "pomp2_check: OK"),
        "{program} {defines:?}: POMP2 misused:\n{check}"
    );
    let stem = program.trim_end_matches(".c");
    let idf: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join(format!("{stem}.pomp.json"))).unwrap())
            .unwrap();
    assert_eq!(idf["front_end"], "clang", "{program} {defines:?}");
    let regions = idf["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["type"].as_str().unwrap().to_string(),
                r["line_start"].as_u64().unwrap(),
            )
        })
        .collect();
    (regions, String::from_utf8_lossy(&built.stderr).into_owned())
}

fn regions(list: &[(&str, u64)]) -> Vec<Region> {
    list.iter().map(|(t, l)| (t.to_string(), *l)).collect()
}

/// A loop header chosen by `#if`/`#elif`/`#else`: each setting is one
/// loop, instrumented and run.
#[test]
fn a_loop_header_split_by_conditionals_is_read_as_compiled() {
    require_libclang();
    let workspace = Workspace::new();
    for defines in [&[][..], &["-DWIDE"], &["-DWIDE=2"]] {
        let (found, _) = build_and_compare(&workspace, "split_loop_header.c", defines);
        assert_eq!(
            found,
            regions(&[("parallelfor", 9), ("parallel", 23), ("for", 25)]),
            "{defines:?}"
        );
    }
    // tree-sitter cannot read it; the cross-check says why they differ.
    let output = Command::new(env!("CARGO_BIN_EXE_pomp"))
        .current_dir(workspace.path())
        .args(["instrument", "--cross-check", "-o", "out.c"])
        .arg(repository().join("tests/clang/split_loop_header.c"))
        .args(["--", "-fopenmp", "-DWIDE"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("explained"), "{stderr}");
}

/// A block opened by one macro and closed by another: tree-sitter cannot
/// see where it ends and refuses it, saying how to give the flags; with
/// them the clang front end reads the expansion, and the region runs.
#[test]
fn a_block_made_by_macros_is_read_through_their_expansion() {
    require_libclang();
    let workspace = Workspace::new();
    let (found, _) = build_and_compare(&workspace, "macro_block.c", &[]);
    assert_eq!(found, regions(&[("parallel", 8)]));
    let output = Command::new(env!("CARGO_BIN_EXE_pomp"))
        .current_dir(workspace.path())
        .args(["instrument", "-o", "out.c"])
        .arg(repository().join("tests/clang/macro_block.c"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(
        stderr.contains("the block of this directive is the macro `CHUNK_SETUP`")
            && stderr.contains("pomp batch --compile-commands"),
        "{stderr}"
    );
}

/// Only the directives of the branches compiled are instrumented.
#[test]
fn directives_in_skipped_branches_are_left_as_the_compiler_leaves_them() {
    require_libclang();
    let workspace = Workspace::new();
    let (atomic, _) = build_and_compare(&workspace, "inactive_directives.c", &[]);
    assert_eq!(
        atomic,
        regions(&[
            ("parallel", 7),
            ("atomic", 12),
            ("barrier", 19),
            ("parallelfor", 22)
        ])
    );
    let (critical, _) = build_and_compare(&workspace, "inactive_directives.c", &["-DUSE_CRITICAL"]);
    assert_eq!(critical[1], ("critical".to_string(), 10));
    assert_eq!(critical.len(), 4);
}

/// `_Pragma` macros: rewritten at each use where the macro is the
/// directive alone (literal or stringized argument), reported where it
/// expands to more, whose code is then left alone.
#[test]
fn directives_produced_by_macros_are_found_at_their_use() {
    require_libclang();
    let workspace = Workspace::new();
    let (found, stderr) = build_and_compare(&workspace, "macro_directives.c", &[]);
    assert_eq!(
        found,
        regions(&[
            ("parallelfor", 15),
            ("parallel", 18),
            ("single", 20),
            ("parallel", 25)
        ])
    );
    assert!(
        stderr.contains("OpenMP directive produced by macro `PARALLEL_FOR`, instrumented")
            && stderr.contains("macro_directives.c:15:3"),
        "{stderr}"
    );
    assert!(
        stderr.contains("OpenMP directive produced by macro `TIMES` is not instrumented"),
        "{stderr}"
    );
}

/// `--frontend clang` reads only what the compiler would compile: a
/// missing header is clang's error, and nothing is written.
#[test]
fn clang_errors_in_the_file_stop_the_clang_front_end() {
    require_libclang();
    let workspace = Workspace::new();
    let source = workspace.path().join("missing.c");
    std::fs::write(
        &source,
        "#include \"not_there.h\"\nint main(void) {\n#pragma omp parallel\n  { }\n  return 0;\n}\n",
    )
    .unwrap();
    let pomp = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pomp"));
        command
            .current_dir(workspace.path())
            .args(["instrument", "missing.c", "-o", "out.c"]);
        command
    };
    let refused = pomp()
        .args(["--frontend", "clang", "--", "-fopenmp"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(stderr.contains("'not_there.h' file not found"), "{stderr}");
    assert!(!workspace.path().join("out.c").exists());
    // `auto` reads it with tree-sitter, which reads this file exactly
    // without the header: clang is not asked.
    let read = pomp().args(["--", "-fopenmp"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&read.stderr);
    assert!(read.status.success(), "{stderr}");
    assert_eq!(stderr, "");
    // Where the reading depends on the preprocessor (a directive under a
    // macro's condition), `auto` asks clang, and when clang cannot read
    // the file, reads it with tree-sitter and says so.
    std::fs::write(
        &source,
        "#include \"not_there.h\"\nint main(void) {\n#ifdef FAST\n#pragma omp parallel\n#endif\n  { }\n  return 0;\n}\n",
    )
    .unwrap();
    let read = pomp().args(["--", "-fopenmp"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&read.stderr);
    assert!(read.status.success(), "{stderr}");
    assert!(stderr.contains("read with tree-sitter instead"), "{stderr}");
}

/// A missing header stops the compile, in the file or in a header it
/// includes: it is reported first, at the file's `#include` leading to it,
/// and the errors that follow from it are counted, not listed.
#[test]
fn a_missing_header_is_reported_first_also_from_a_header() {
    require_libclang();
    let workspace = Workspace::new();
    let dir = workspace.path();
    std::fs::write(
        dir.join("app.h"),
        "#include <mpi.h>\nMPI_Comm world(void);\n",
    )
    .unwrap();
    std::fs::write(dir.join("quiet.h"), "#include \"inner_missing.h\"\n").unwrap();
    let body = "int main(void) {\n  int n = 0;\n#pragma omp parallel\n  n++;\n  return n;\n}\n";
    std::fs::write(
        dir.join("direct.c"),
        format!("#include <mpi.h>\nMPI_Comm c;\nMPI_Datatype t;\n{body}"),
    )
    .unwrap();
    std::fs::write(
        dir.join("through.c"),
        format!("#include \"app.h\"\nMPI_Comm c;\n{body}"),
    )
    .unwrap();
    std::fs::write(dir.join("quiet.c"), format!("#include \"quiet.h\"\n{body}")).unwrap();
    let refuse = |file: &str, missing: &str, line: &str, follow: Option<&str>| {
        let output = Command::new(env!("CARGO_BIN_EXE_pomp"))
            .current_dir(dir)
            .args(["instrument", "--frontend", "clang", file, "-o", "out.c"])
            .args(["--", "-fopenmp"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{file}: {stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            format!("error: clang: '{missing}' file not found"),
            "{stderr}"
        );
        assert!(stderr.contains(line), "{file}: {stderr}");
        assert!(!stderr.contains("undeclared"), "{file}: {stderr}");
        match follow {
            Some(note) => assert!(stderr.contains(note), "{file}: {stderr}"),
            None => assert!(!stderr.contains("further error"), "{file}: {stderr}"),
        }
        assert!(!dir.join("out.c").exists());
    };
    refuse(
        "direct.c",
        "mpi.h",
        "^ clang stops here",
        Some("2 further errors follow from it"),
    );
    refuse(
        "through.c",
        "mpi.h",
        "^ in a header included here",
        Some("2 further errors follow from it"),
    );
    refuse(
        "quiet.c",
        "inner_missing.h",
        "1 │ #include \"quiet.h\"",
        None,
    );
}

/// Where no libclang can be found (`LIBCLANG_PATH` names an empty
/// directory, and clang-sys then looks nowhere else), `--frontend clang`
/// says so and how to install it, and `auto` reads with tree-sitter.
#[test]
fn without_libclang_the_clang_front_end_says_how_to_install_it() {
    let workspace = tempfile::Builder::new()
        .prefix("pomp-no-libclang")
        .tempdir()
        .unwrap();
    let nowhere = workspace.path().join("no-libclang");
    std::fs::create_dir(&nowhere).unwrap();
    let source = workspace.path().join("parallel.c");
    std::fs::write(
        &source,
        "int main(void) {\n#pragma omp parallel\n  { }\n  return 0;\n}\n",
    )
    .unwrap();
    let pomp = |output: &str| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pomp"));
        command
            .current_dir(workspace.path())
            .env("LIBCLANG_PATH", &nowhere)
            .args(["instrument", "parallel.c", "-o", output]);
        command
    };
    let refused = pomp("clang.c")
        .args(["--frontend", "clang", "--", "-fopenmp"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{stderr}");
    assert!(
        stderr.contains("needs libclang, and none was found"),
        "{stderr}"
    );
    assert!(stderr.contains("libclang1-14"), "{stderr}");
    assert!(stderr.contains("--frontend=tree-sitter"), "{stderr}");
    assert!(!workspace.path().join("clang.c").exists());
    let read = pomp("auto.c").args(["--", "-fopenmp"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&read.stderr);
    assert!(read.status.success(), "{stderr}");
    let instrumented = std::fs::read_to_string(workspace.path().join("auto.c")).unwrap();
    assert!(
        instrumented.contains("POMP2_Parallel_fork"),
        "{instrumented}"
    );
}

/// The code regions of every kind, read by both front ends from the
/// programs measuring them, give the same bytes.
#[test]
fn code_regions_read_alike_with_both_front_ends() {
    require_libclang();
    let flags = corpus_flags();
    let calls = pomp_core::model::CallPatterns::new(
        (["MPI_*", "mpi_*"].iter())
            .map(|p| glob::Pattern::new(p).unwrap())
            .collect(),
    );
    let regions = pomp_core::model::CodeRegions {
        functions: true,
        lambdas: true,
        loops: true,
        calls,
    };
    let mut compared = 0;
    for entry in std::fs::read_dir(repository().join("corpus/regions")).unwrap() {
        let path = entry.unwrap().path();
        if !matches!(
            Language::from_path(&path),
            Some(Language::C | Language::Cpp)
        ) {
            continue;
        }
        let file = pomp_core::instrument::read_source(&path, None).unwrap();
        let read = |choice| {
            let mut options = options(choice, &flags);
            options.front_end.regions = regions.clone();
            instrument(&file, &options)
        };
        let (tree_sitter, clang) = (read(Choice::TreeSitter), read(Choice::Clang));
        assert!(
            !clang.has_errors() && !tree_sitter.has_errors(),
            "{}",
            path.display()
        );
        assert!(
            !tree_sitter.model.functions.is_empty(),
            "{}",
            path.display()
        );
        let (a, b) = (tree_sitter.output(&file), clang.output(&file));
        if a != b {
            let (a, b) = (String::from_utf8_lossy(&a), String::from_utf8_lossy(&b));
            let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
            panic!(
                "{}: outputs differ:\n{}",
                path.display(),
                diff.unified_diff().header("tree-sitter", "clang")
            );
        }
        compared += 1;
    }
    assert!(compared >= 4, "the programs are gone");
}
