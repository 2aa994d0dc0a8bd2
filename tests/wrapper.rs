//! The compiler wrappers end to end: real multi-file projects built with make
//! and CMake through pomp-cc, pomp-cxx and pomp-f90, run, and compared with
//! the same projects built by the plain compilers.

#[path = "support/runtime_library.rs"]
mod runtime_library;
#[path = "support/toolchains.rs"]
mod toolchains;

use std::ffi::OsStr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

const THREADS: &str = "3";

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pomp_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pomp"))
}

/// A private directory holding the wrapper links, the scratch TMPDIR the
/// wrappers must leave empty, and whatever a test builds.
struct Workspace {
    root: TempDir,
}

impl Workspace {
    fn new() -> Workspace {
        let root = tempfile::Builder::new()
            .prefix("pomp-wrapper-test")
            .tempdir()
            .unwrap();
        let bin = root.path().join("bin");
        let installed = succeed(
            Command::new(pomp_binary())
                .arg("install-wrappers")
                .arg(&bin),
        );
        // pomp itself, for `pomp report` and the rest, and the wrappers.
        let names: Vec<String> = stdout(&installed)
            .lines()
            .map(|line| {
                Path::new(line)
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into()
            })
            .collect();
        assert_eq!(names[..4], ["pomp", "pomp-cc", "pomp-cxx", "pomp-f90"]);
        std::fs::create_dir(root.path().join("tmp")).unwrap();
        Workspace { root }
    }

    fn path(&self) -> &Path {
        self.root.path()
    }

    fn wrapper(&self, name: &str) -> PathBuf {
        self.path().join("bin").join(name)
    }

    fn scratch_root(&self) -> PathBuf {
        self.path().join("tmp")
    }

    /// A command with the environment every wrapper run in a test gets.
    fn command(&self, program: impl AsRef<OsStr>, cwd: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(cwd)
            .env("TMPDIR", self.scratch_root())
            .env("POMP_RUNTIME_DIR", runtime_library::directory())
            .env("OMP_NUM_THREADS", THREADS)
            .env_remove("POMP_CC")
            .env_remove("POMP_CXX")
            .env_remove("POMP_FC")
            .env_remove("POMP_ON_ERROR")
            .env_remove("POMP_RUNTIME")
            .env_remove("POMP_PROFILE");
        command
    }

    /// A fresh copy of a project from tests/projects.
    fn project(&self, name: &str, copy_name: &str) -> PathBuf {
        let target = self.path().join(copy_name);
        copy_tree(&repository().join("tests/projects").join(name), &target);
        target
    }

    fn assert_scratch_removed(&self) {
        let left: Vec<_> = std::fs::read_dir(self.scratch_root())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert!(left.is_empty(), "temporary files left behind: {left:?}");
    }

    /// The checking POMP2 library (tests/support/pomp2_check.c) as an archive.
    /// Configures `source` with CMake, the wrapper as the compiler of
    /// `language` (C, CXX, Fortran), builds it, and returns the build folder.
    fn cmake_build(
        &self,
        source: &Path,
        build_name: &str,
        language: &str,
        wrapper: &str,
        options: &[&str],
    ) -> PathBuf {
        let build = self.path().join(build_name);
        succeed(
            self.command("cmake", self.path())
                .arg("-S")
                .arg(source)
                .arg("-B")
                .arg(&build)
                .arg(format!(
                    "-DCMAKE_{language}_COMPILER={}",
                    self.wrapper(wrapper).display()
                ))
                .args(options),
        );
        succeed(
            self.command("cmake", self.path())
                .arg("--build")
                .arg(&build),
        );
        build
    }

    fn checker_library(&self) -> PathBuf {
        let object = self.path().join("pomp2_check.o");
        let archive = self.path().join("libpomp2_check.a");
        succeed(
            Command::new("gcc")
                .args(["-O1", "-fopenmp", "-c"])
                .arg(repository().join("tests/support/pomp2_check.c"))
                .arg("-o")
                .arg(&object),
        );
        succeed(Command::new("ar").arg("rcs").arg(&archive).arg(&object));
        archive
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Run to success, or fail the test with everything the command printed.
fn succeed(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The program built from a project by the plain compiler, and what it prints.
fn plain_output(
    workspace: &Workspace,
    project: &str,
    make_variables: &[&str],
    program: &str,
) -> String {
    let dir = workspace.project(project, &format!("{project}-plain"));
    succeed(
        workspace
            .command("make", &dir)
            .arg("-s")
            .args(make_variables),
    );
    stdout(&succeed(&mut workspace.command(dir.join(program), &dir)))
}

/// Run an instrumented program in `dir` and return its output; it must
/// write a profile where POMP_PROFILE says.
fn run_with_profile(workspace: &Workspace, program: &Path, dir: &Path) -> String {
    let profile = dir.join("profile.json");
    let output = succeed(
        workspace
            .command(program, dir)
            .env("POMP_PROFILE", &profile),
    );
    let text = std::fs::read_to_string(&profile).unwrap_or_else(|e| {
        panic!(
            "no profile at {}: {e}\nstderr:\n{}",
            profile.display(),
            stderr(&output)
        )
    });
    let json: serde_json::Value = serde_json::from_str(&text).expect("the profile is JSON");
    assert!(!json.is_null());
    stdout(&output)
}

/// Link `objects` again with the checking POMP2 library and run the result:
/// it exits with 97 on any misuse of the interface, and says how many
/// regions were registered.
fn check_with_pomp2_checker(
    workspace: &Workspace,
    wrapper: &str,
    dir: &Path,
    objects: &[&str],
) -> (String, String) {
    let checker = workspace.checker_library();
    let mut runtime = std::ffi::OsString::from("--pomp-runtime=");
    runtime.push(&checker);
    succeed(
        workspace
            .command(workspace.wrapper(wrapper), dir)
            .arg("-fopenmp")
            .args(objects)
            .arg(&runtime)
            .args(["-o", "checked"]),
    );
    run_checked(workspace, &dir.join("checked"), dir)
}

/// Runs a program linked with the checking library; its output and the
/// library's summary.
fn run_checked(workspace: &Workspace, program: &Path, dir: &Path) -> (String, String) {
    let summary = dir.join("check-summary.txt");
    let output = succeed(
        workspace
            .command(program, dir)
            .env("POMP_CHECK_OUT", &summary),
    );
    (stdout(&output), std::fs::read_to_string(summary).unwrap())
}

#[test]
fn c_project_through_make_runs_like_the_plain_build() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "c-app", &["CC=gcc"], "app");

    let dir = workspace.project("c-app", "c-app-pomp");
    let cc = format!("CC={}", workspace.wrapper("pomp-cc").display());
    succeed(workspace.command("make", &dir).arg("-s").arg(&cc));
    assert_eq!(
        run_with_profile(&workspace, &dir.join("app"), &dir),
        expected
    );

    // Dependency files name the user's sources, so make rebuilds on edits.
    let deps = std::fs::read_to_string(dir.join("build/stencil.d")).unwrap();
    let words: Vec<&str> = deps.split_whitespace().filter(|w| *w != "\\").collect();
    assert_eq!(words[..2], ["build/stencil.o:", "src/stencil.c"], "{deps}");
    assert!(deps.contains("src/stencil_weights.h"), "{deps}");
    assert!(
        !deps.contains(&*workspace.scratch_root().to_string_lossy()),
        "{deps}"
    );
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(
        dir.join("src/stencil_weights.h"),
        "#define WEIGHT_LEFT 1\n#define WEIGHT_CENTRE 2\n#define WEIGHT_RIGHT 1\n",
    )
    .unwrap();
    let rebuild = succeed(workspace.command("make", &dir).arg(&cc));
    assert!(
        stdout(&rebuild).contains("src/stencil.c"),
        "{}",
        stdout(&rebuild)
    );

    let (checked, summary) = check_with_pomp2_checker(
        &workspace,
        "pomp-cc",
        &dir,
        &["build/main.o", "build/stencil.o", "build/libkernels.a"],
    );
    assert_eq!(checked, expected);
    // Each of the 14 directives of the three instrumented files is
    // registered, the 12 of the two files in the static library included.
    assert!(registered_regions(&summary) >= 14, "{summary}");
    workspace.assert_scratch_removed();
}

/// The checker's count of regions assigned during `POMP2_Init_regions`.
fn registered_regions(summary: &str) -> usize {
    summary
        .lines()
        .find_map(|line| line.strip_prefix("pomp2_check: regions registered: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no region count in\n{summary}"))
}

#[test]
fn c_project_through_cmake_with_find_package_openmp() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "c-app", &["CC=gcc"], "app");

    let source = workspace.project("c-app", "c-app-cmake");
    let build = workspace.cmake_build(
        &source,
        "c-app-cmake-build",
        "C",
        "pomp-cc",
        &["-DCMAKE_BUILD_TYPE=Release"],
    );
    assert_eq!(
        run_with_profile(&workspace, &build.join("app"), &build),
        expected
    );
    // CMake's compiler-generated dependency files name the user's sources.
    let depfile = build.join("CMakeFiles/app.dir/src/stencil.c.o.d");
    let deps = std::fs::read_to_string(&depfile).unwrap();
    assert!(
        deps.contains(&*source.join("src/stencil.c").to_string_lossy()),
        "{deps}"
    );
    assert!(
        !deps.contains(&*workspace.scratch_root().to_string_lossy()),
        "{deps}"
    );
    workspace.assert_scratch_removed();
}

#[test]
fn cxx_project_through_cmake_and_make() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "cxx-app", &["CXX=g++"], "sim");

    let source = workspace.project("cxx-app", "cxx-app-cmake");
    let build = workspace.cmake_build(&source, "cxx-app-cmake-build", "CXX", "pomp-cxx", &[]);
    assert_eq!(
        run_with_profile(&workspace, &build.join("sim"), &build),
        expected
    );

    let dir = workspace.project("cxx-app", "cxx-app-make");
    let cxx = format!("CXX={}", workspace.wrapper("pomp-cxx").display());
    succeed(workspace.command("make", &dir).arg("-s").arg(cxx));
    let (checked, _) = check_with_pomp2_checker(
        &workspace,
        "pomp-cxx",
        &dir,
        &["build/main.o", "build/libphysics.a"],
    );
    assert_eq!(checked, expected);

    // clang++ underneath works the same, where clang has an OpenMP runtime
    // (Debian: libomp-dev).
    if let Some(clang) = toolchains::Toolchain::clang_unless_required() {
        let dir = workspace.project("cxx-app", "cxx-app-clang");
        let cxx = format!("CXX={}", workspace.wrapper("pomp-cxx").display());
        succeed(
            workspace
                .command("make", &dir)
                .arg("-s")
                .arg(cxx)
                .env("POMP_CXX", &clang.cxx),
        );
        assert_eq!(
            run_with_profile(&workspace, &dir.join("sim"), &dir),
            expected
        );
    }
    workspace.assert_scratch_removed();
}

#[test]
fn fortran_project_with_a_module_through_make_and_cmake() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "fortran-app", &["FC=gfortran"], "app");

    let dir = workspace.project("fortran-app", "fortran-app-pomp");
    let fc = format!("FC={}", workspace.wrapper("pomp-f90").display());
    succeed(workspace.command("make", &dir).arg("-s").arg(fc));
    // Module files land where -J puts them, as for the original compile.
    assert!(dir.join("mods/geometry.mod").is_file());
    assert!(!dir.join("geometry.mod").exists());
    assert_eq!(
        run_with_profile(&workspace, &dir.join("app"), &dir),
        expected
    );
    let objects = [
        "build/geometry.o",
        "build/counters.o",
        "build/report.o",
        "build/main.o",
    ];
    let (checked, _) = check_with_pomp2_checker(&workspace, "pomp-f90", &dir, &objects);
    assert_eq!(checked, expected);

    let source = workspace.project("fortran-app", "fortran-app-cmake");
    let build = workspace.cmake_build(
        &source,
        "fortran-app-cmake-build",
        "Fortran",
        "pomp-f90",
        &[],
    );
    assert!(build.join("mods/geometry.mod").is_file());
    assert_eq!(
        run_with_profile(&workspace, &build.join("app"), &build),
        expected
    );
    workspace.assert_scratch_removed();
}

/// clang's OpenMP flags go through pomp-cc to clang, and the program,
/// linked with pomp's runtime and libomp, prints what the plain build
/// prints: prefix sums with inscan reductions included, which clang gets
/// wrong when the combined construct is split.
#[test]
fn clang_with_its_openmp_flags_builds_like_the_plain_compiler() {
    let Some(clang) = toolchains::Toolchain::clang_unless_required() else {
        return;
    };
    let workspace = Workspace::new();
    let dir = workspace.path().join("clang");
    std::fs::create_dir_all(&dir).unwrap();
    let source = repository().join("corpus/c/inscan_reductions.c");
    for flags in [
        &["-fopenmp"][..],
        &["-fopenmp=libomp", "-fopenmp-version=50"],
    ] {
        let plain = succeed(
            workspace
                .command(&clang.c, &dir)
                .args(flags)
                .arg("-O1")
                .arg(&source)
                .args(["-o", "plain"]),
        );
        assert!(stderr(&plain).is_empty(), "{}", stderr(&plain));
        let expected = stdout(&succeed(&mut workspace.command(dir.join("plain"), &dir)));
        let built = succeed(
            workspace
                .command(workspace.wrapper("pomp-cc"), &dir)
                .env("POMP_CC", &clang.c)
                .args(flags)
                .args(["-O1", "--pomp-verbose"])
                .arg(&source)
                .args(["-o", "app"]),
        );
        let commands = stderr(&built);
        for flag in flags {
            assert!(commands.contains(flag), "{flag} not passed on:\n{commands}");
        }
        assert!(!commands.contains("warning"), "{commands}");
        assert_eq!(
            run_with_profile(&workspace, &dir.join("app"), &dir),
            expected
        );
    }
    workspace.assert_scratch_removed();
}

const OPENMP_SOURCE: &str = include_str!("wrapper/sum.c");
/// A source without directives.
const PLAIN_SOURCE: &str = include_str!("wrapper/plain.c");

#[test]
fn compile_errors_name_the_users_file_and_line() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("errors");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let broken = OPENMP_SOURCE.replace(
        "    printf(\"%d\\n\", total);",
        "    printf(\"%d\\n\", totl);",
    );
    assert_ne!(broken, OPENMP_SOURCE);
    std::fs::write(dir.join("src/broken.c"), broken).unwrap();
    let output = workspace
        .command(workspace.wrapper("pomp-cc"), &dir)
        .args(["-fopenmp", "-c", "src/broken.c"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("src/broken.c:8:"), "{message}");
    assert!(message.contains("totl"), "{message}");
    assert!(
        !message.contains(&*workspace.scratch_root().to_string_lossy()),
        "{message}"
    );
    assert!(!dir.join("broken.o").exists());

    let fortran = include_str!("wrapper/broken.f90");
    std::fs::write(dir.join("src/broken.f90"), fortran).unwrap();
    let output = workspace
        .command(workspace.wrapper("pomp-f90"), &dir)
        .args(["-fopenmp", "-c", "src/broken.f90"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(message.contains("src/broken.f90:9:"), "{message}");
    assert!(
        !message.contains(&*workspace.scratch_root().to_string_lossy()),
        "{message}"
    );
    workspace.assert_scratch_removed();
}

#[test]
fn objects_assembly_and_dependency_files_are_named_as_for_the_original() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("names");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("src/sum.c"), OPENMP_SOURCE).unwrap();
    std::fs::write(dir.join("src/plain.c"), PLAIN_SOURCE).unwrap();
    let cc = workspace.wrapper("pomp-cc");

    succeed(workspace.command(&cc, &dir).args([
        "-fopenmp",
        "-MD",
        "-c",
        "src/sum.c",
        "src/plain.c",
    ]));
    assert!(dir.join("sum.o").is_file() && dir.join("plain.o").is_file());
    assert!(!dir.join("src/sum.o").exists());
    let deps = std::fs::read_to_string(dir.join("sum.d")).unwrap();
    assert!(deps.starts_with("sum.o: src/sum.c"), "{deps}");

    succeed(workspace.command(&cc, &dir).args([
        "-fopenmp",
        "-MMD",
        "-MF",
        "out/custom.d",
        "-MT",
        "target",
        "-c",
        "src/sum.c",
        "-o",
        "out/s.o",
    ]));
    assert!(dir.join("out/s.o").is_file());
    let deps = std::fs::read_to_string(dir.join("out/custom.d")).unwrap();
    assert_eq!(deps.trim(), "target: src/sum.c");

    succeed(
        workspace
            .command(&cc, &dir)
            .args(["-fopenmp", "-S", "src/sum.c"]),
    );
    let assembly = std::fs::read_to_string(dir.join("sum.s")).unwrap();
    assert!(
        assembly.contains("POMP2_"),
        "the assembly is of the instrumented source"
    );
    workspace.assert_scratch_removed();
}

#[test]
fn preprocessing_passes_the_original_through() {
    let workspace = Workspace::new();
    let dir = workspace.path();
    std::fs::write(dir.join("sum.c"), OPENMP_SOURCE).unwrap();
    let plain = succeed(
        workspace
            .command("gcc", dir)
            .args(["-fopenmp", "-E", "sum.c"]),
    );
    let wrapped = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), dir)
            .args(["-fopenmp", "-E", "sum.c"]),
    );
    assert_eq!(stdout(&wrapped), stdout(&plain));
    let version = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), dir)
            .arg("--version"),
    );
    assert_eq!(
        stdout(&version),
        stdout(&succeed(workspace.command("gcc", dir).arg("--version")))
    );
}

#[test]
fn instrumented_objects_do_not_depend_on_the_scratch_directory() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("same");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/sum.c"), OPENMP_SOURCE).unwrap();
    let args = ["-g", "-O2", "-fopenmp", "-c", "src/sum.c", "-o"];
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(args)
            .arg("first.o"),
    );
    let other_tmp = workspace.path().join("other-tmp");
    std::fs::create_dir(&other_tmp).unwrap();
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(args)
            .arg("second.o")
            .env("TMPDIR", &other_tmp),
    );
    let first = std::fs::read(dir.join("first.o")).unwrap();
    let second = std::fs::read(dir.join("second.o")).unwrap();
    assert!(
        first == second,
        "objects differ between scratch directories"
    );
    for scratch in [workspace.scratch_root(), other_tmp] {
        let scratch = scratch.to_string_lossy().into_owned();
        let found = first
            .windows(scratch.len())
            .any(|w| w == scratch.as_bytes());
        assert!(!found, "{scratch} is named in the object");
    }
}

#[test]
fn kept_sources_and_idf_land_beside_the_object() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("keep");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("build")).unwrap();
    std::fs::write(dir.join("src/sum.c"), OPENMP_SOURCE).unwrap();
    succeed(workspace.command(workspace.wrapper("pomp-cc"), &dir).args([
        "--pomp-keep",
        "-fopenmp",
        "-c",
        "src/sum.c",
        "-o",
        "build/sum.o",
    ]));
    let kept = std::fs::read_to_string(dir.join("build/sum.pomp.c")).unwrap();
    assert!(kept.contains("POMP2_Parallel_fork"));
    let idf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("build/sum.pomp.json")).unwrap())
            .unwrap();
    assert!(idf.is_object());
    workspace.assert_scratch_removed();
}

#[test]
fn response_files_and_verbose_commands() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("rsp");
    std::fs::create_dir_all(dir.join("my src")).unwrap();
    std::fs::write(dir.join("my src/sum.c"), OPENMP_SOURCE).unwrap();
    std::fs::write(
        dir.join("args.rsp"),
        "-fopenmp --pomp-verbose\n\"my src/sum.c\" -o 'sum program'\n",
    )
    .unwrap();
    let output = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .arg("@args.rsp"),
    );
    assert!(
        stderr(&output).contains("pomp_init_regions.c"),
        "{}",
        stderr(&output)
    );
    let run = succeed(
        workspace
            .command(dir.join("sum program"), &dir)
            .env("POMP_PROFILE", dir.join("p.json")),
    );
    assert_eq!(stdout(&run), "4950\n");
    workspace.assert_scratch_removed();
}

#[test]
fn instrumentation_failures_stop_or_fall_back_to_the_original() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("fallback");
    std::fs::create_dir_all(&dir).unwrap();
    // The block is a macro expansion: tree-sitter cannot see where it ends
    // without preprocessing, so it refuses it (clang, which preprocesses,
    // would read it; the policy is what is tested here).
    let source = include_str!("wrapper/macro_block.c");
    std::fs::write(dir.join("macro.c"), source).unwrap();
    let cc = workspace.wrapper("pomp-cc");
    let refused = workspace
        .command(&cc, &dir)
        .args(["--pomp-frontend=tree-sitter", "-fopenmp", "-c", "macro.c"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let said = stderr(&refused);
    // pomp, not the compiler, refused the file, and says how to go on.
    assert!(
        said.contains("pomp-cc: error: pomp could not instrument macro.c"),
        "{said}"
    );
    assert!(said.contains("the compiler did not run"), "{said}");
    assert!(said.contains("POMP_ON_ERROR=compile-original"), "{said}");
    assert!(said.contains("--pomp-on-error=compile-original"), "{said}");
    assert!(!dir.join("macro.o").exists());
    // What the note advises, as written, compiles the original.
    succeed(workspace.command(&cc, &dir).args([
        "--pomp-frontend=tree-sitter",
        "--pomp-on-error=compile-original",
        "-fopenmp",
        "-c",
        "macro.c",
    ]));
    assert!(dir.join("macro.o").is_file());
    std::fs::remove_file(dir.join("macro.o")).unwrap();

    let tolerated = succeed(
        workspace
            .command(&cc, &dir)
            .args(["--pomp-frontend=tree-sitter", "-fopenmp", "-c", "macro.c"])
            .env("POMP_ON_ERROR", "compile-original"),
    );
    assert!(
        stderr(&tolerated).contains("uninstrumented"),
        "{}",
        stderr(&tolerated)
    );
    assert!(dir.join("macro.o").is_file());
    workspace.assert_scratch_removed();
}

/// An object instrumented by hand (tests/support/hand_instrumented.c),
/// compiled by gcc: the link step alone must register its regions.
fn hand_instrumented_object(workspace: &Workspace) -> PathBuf {
    let object = workspace.path().join("hand.o");
    succeed(
        Command::new("gcc")
            .args(["-fopenmp", "-c"])
            .arg(repository().join("tests/support/hand_instrumented.c"))
            .arg("-o")
            .arg(&object),
    );
    object
}

#[test]
fn link_step_registers_regions_from_objects_and_archives() {
    let workspace = Workspace::new();
    let dir = workspace.path();
    let object = hand_instrumented_object(&workspace);
    let archive = dir.join("libhand.a");
    succeed(Command::new("ar").arg("rcs").arg(&archive).arg(&object));

    for library in [&object, &archive] {
        let source = pomp_wrapper::registration_source(std::slice::from_ref(library)).unwrap();
        assert!(source.contains("    POMP2_Init_reg_hand_5();"), "{source}");
        assert!(source.contains("return 5;"), "{source}");
        assert!(
            source.contains("    POMP2_USER_Init_reg_hand_1();"),
            "{source}"
        );
        assert!(source.contains("return 1;"), "{source}");
    }

    let (_, summary) = check_with_pomp2_checker(&workspace, "pomp-cc", dir, &["libhand.a"]);
    assert!(summary.contains("regions registered: 6"), "{summary}");
    // The default runtime links too, and the program profiles.
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), dir)
            .arg(&object)
            .args(["-o", "hand"]),
    );
    run_with_profile(&workspace, &dir.join("hand"), dir);
    workspace.assert_scratch_removed();
}

#[test]
fn ctrl_c_removes_the_scratch_directory() {
    let workspace = Workspace::new();
    let dir = workspace.path();
    let object = hand_instrumented_object(&workspace);
    // The registration compile hangs until the wrapper is interrupted.
    let slow = dir.join("slow-cc");
    std::fs::write(
        &slow,
        "#!/bin/sh\ntouch \"$0.started\"\nsleep 30\nexec gcc \"$@\"\n",
    )
    .unwrap();
    succeed(Command::new("chmod").arg("+x").arg(&slow));
    // Its own process group, which a terminal signals as a whole on Ctrl-C.
    let mut child = workspace
        .command(workspace.wrapper("pomp-cc"), dir)
        .process_group(0)
        .arg(&object)
        .args(["-o", "never"])
        .env("POMP_CC", &slow)
        .spawn()
        .unwrap();
    let started = dir.join("slow-cc.started");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the compiler never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let scratch: Vec<_> = std::fs::read_dir(workspace.scratch_root())
        .unwrap()
        .collect();
    assert_eq!(
        scratch.len(),
        1,
        "the scratch directory exists while compiling"
    );
    succeed(Command::new("kill").args(["-INT", "--", &format!("-{}", child.id())]));
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    workspace.assert_scratch_removed();
}

#[test]
fn wrapper_options_are_checked() {
    let workspace = Workspace::new();
    let dir = workspace.path();
    let subcommand = succeed(
        workspace
            .command(pomp_binary(), dir)
            .args(["cc", "--pomp-help"]),
    );
    assert!(stdout(&subcommand).contains("POMP_CC"));
    let help = succeed(
        workspace
            .command(workspace.wrapper("pomp-f90"), dir)
            .arg("--pomp-help"),
    );
    assert!(stdout(&help).contains("POMP_FC"));
    let unknown = workspace
        .command(workspace.wrapper("pomp-cc"), dir)
        .args(["--pomp-frobnicate", "-c", "x.c"])
        .output()
        .unwrap();
    assert!(!unknown.status.success());
    assert!(stderr(&unknown).contains("--pomp-frobnicate"));
    let recursive = workspace
        .command(workspace.wrapper("pomp-cc"), dir)
        .arg("--version")
        .env("POMP_CC", workspace.wrapper("pomp-cc"))
        .output()
        .unwrap();
    assert!(!recursive.status.success());
    assert!(stderr(&recursive).contains("POMP_CC"));
}

#[test]
fn sources_from_different_directories_see_their_own_headers() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("two-dirs");
    // Each directory has a config.h of its own, which its source includes.
    copy_tree(&repository().join("tests/wrapper/two-dirs"), &dir);
    let cc = workspace.wrapper("pomp-cc");
    succeed(workspace.command(&cc, &dir).args([
        "-fopenmp",
        "-c",
        "left/left.c",
        "right/right.c",
        "main.c",
    ]));
    succeed(
        workspace
            .command(&cc, &dir)
            .args(["-fopenmp", "left.o", "right.o", "main.o", "-o", "app"]),
    );
    assert_eq!(
        run_with_profile(&workspace, &dir.join("app"), &dir),
        "10 20\n"
    );
    // Compiled and linked in one step.
    let one_step = [
        "-fopenmp",
        "left/left.c",
        "-o",
        "app2",
        "right/right.c",
        "main.c",
    ];
    succeed(workspace.command(&cc, &dir).args(one_step));
    assert_eq!(
        run_with_profile(&workspace, &dir.join("app2"), &dir),
        "10 20\n"
    );
    workspace.assert_scratch_removed();
}

#[test]
fn link_time_optimised_objects_still_register_their_regions() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("lto");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sum.c"), OPENMP_SOURCE).unwrap();
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(["-O2", "-flto", "-fopenmp", "-c", "sum.c"]),
    );
    let (output, summary) =
        check_with_pomp2_checker(&workspace, "pomp-cc", &dir, &["-flto", "sum.o"]);
    assert_eq!(output, "4950\n");
    assert!(summary.contains("regions registered: 1"), "{summary}");
    workspace.assert_scratch_removed();
}

#[test]
fn instrumentation_options_reach_the_instrumenter() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("options");
    std::fs::create_dir_all(&dir).unwrap();
    copy_tree(&repository().join("tests/projects/c-app/src"), &dir);
    let kept = |options: &[&str]| {
        let mut command = workspace.command(workspace.wrapper("pomp-cc"), &dir);
        command.args(["--pomp-keep", "-fopenmp"]);
        command.arg(format!(
            "-I{}",
            repository().join("tests/projects/c-app/include").display()
        ));
        succeed(command.args(options).args(["-c", "tasks.c"]));
        std::fs::read_to_string(dir.join("tasks.pomp.c")).unwrap()
    };
    let default = kept(&[]);
    assert!(default.contains("POMP2_Critical_enter") && default.contains("#line"));
    let disabled = kept(&["--pomp-disable=critical"]);
    assert!(
        !disabled.contains("POMP2_Critical_enter") && disabled.contains("POMP2_Task_create_begin")
    );
    assert!(!kept(&["--pomp-nosrc"]).contains("#line"));
    workspace.assert_scratch_removed();
}

/// The original interface from compile to run: sources compiled and linked
/// in one call and as separate objects, C and Fortran, linked with the
/// library `--pomp-runtime` names and no registration. Without a library
/// the link stops and says why.
#[test]
fn original_interface_programs_link_the_library_named() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("pomp1");
    std::fs::create_dir_all(&dir).unwrap();
    let c_source = repository().join("corpus/c/sections.c");
    let fortran_source = repository().join("corpus/fortran/free/worksharing.f90");
    let checker = dir.join("pomp1_check.o");
    succeed(
        Command::new("gcc")
            .args(["-O1", "-fopenmp", "-c"])
            .arg(repository().join("tests/support/pomp1_check.c"))
            .arg("-o")
            .arg(&checker),
    );
    let runtime = format!("--pomp-runtime={}", checker.display());
    let cases: [(&str, &Path, &[&str]); 3] = [
        ("pomp-cc", &c_source, &[]),
        ("pomp-f90", &fortran_source, &[]),
        ("pomp-cc", &c_source, &["-c"]),
    ];
    for (wrapper, source, compile_only) in cases {
        let mut compile = workspace.command(workspace.wrapper(wrapper), &dir);
        compile
            .args(["-fopenmp", "--pomp-interface=pomp1"])
            .args(compile_only)
            .arg(source);
        let program = if compile_only.is_empty() {
            succeed(compile.arg(&runtime).args(["-o", "program"]));
            dir.join("program")
        } else {
            succeed(compile.args(["-o", "separate.o"]));
            let unlinked = workspace
                .command(workspace.wrapper(wrapper), &dir)
                .args(["-fopenmp", "separate.o", "-o", "without"])
                .output()
                .unwrap();
            assert!(!unlinked.status.success());
            assert!(
                stderr(&unlinked).contains("--pomp-runtime=LIB"),
                "{}",
                stderr(&unlinked)
            );
            succeed(workspace.command(workspace.wrapper(wrapper), &dir).args([
                "-fopenmp",
                "separate.o",
                &runtime,
                "-o",
                "separate",
            ]));
            dir.join("separate")
        };
        let (output, report) = run_checked(&workspace, &program, &dir);
        let compiler = if wrapper == "pomp-f90" {
            "gfortran"
        } else {
            "gcc"
        };
        succeed(
            Command::new(compiler)
                .current_dir(&dir)
                .arg("-fopenmp")
                .arg(source)
                .args(["-o", "plain"]),
        );
        let expected = succeed(&mut workspace.command(dir.join("plain"), &dir));
        assert_eq!(output, stdout(&expected), "{}", source.display());
        assert!(report.contains("pomp1_check: OK"), "{report}");
        assert!(!report.contains("regions seen: 0"), "{report}");
    }
    workspace.assert_scratch_removed();
}

#[test]
fn languages_are_the_drivers_and_the_form_flags() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("languages");
    std::fs::create_dir_all(&dir).unwrap();
    // g++ compiles a `.c` file as C++: a template is no syntax error.
    std::fs::write(dir.join("twice.c"), include_str!("wrapper/twice.c")).unwrap();
    let kept = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let built = succeed(
        workspace
            .command(workspace.wrapper("pomp-cxx"), &dir)
            .args(["--pomp-keep", "-fopenmp", "twice.c", "-o", "twice"]),
    );
    // Read as C, `<cstdio>` would not be found by the clang front end.
    assert_eq!(stderr(&built), "");
    assert!(kept("twice.pomp.c").contains("POMP2_Parallel_fork"));
    assert_eq!(
        stdout(&succeed(&mut workspace.command(dir.join("twice"), &dir))),
        "56\n"
    );
    // `-ffixed-form` makes a `.f90` file fixed form: a `c` in column 1
    // is a comment, and column 6 continues a statement.
    std::fs::write(dir.join("fixed.f90"), include_str!("wrapper/fixed.f90")).unwrap();
    succeed(
        workspace
            .command(workspace.wrapper("pomp-f90"), &dir)
            .args([
                "--pomp-keep",
                "-ffixed-form",
                "-fopenmp",
                "fixed.f90",
                "-o",
                "fixed",
            ]),
    );
    assert!(kept("fixed.pomp.F90").contains("POMP2_Parallel_fork"));
    assert_eq!(
        stdout(&succeed(&mut workspace.command(dir.join("fixed"), &dir))).trim(),
        "36"
    );
    workspace.assert_scratch_removed();
}

/// The call paths of a profile's thread tree below `node`, as region
/// labels joined by ` > `.
fn call_paths(
    node: &serde_json::Value,
    labels: &std::collections::HashMap<u64, String>,
    above: &str,
    paths: &mut Vec<String>,
) {
    for child in node["children"].as_array().into_iter().flatten() {
        let label = child["region"]
            .as_u64()
            .and_then(|r| labels.get(&r))
            .map_or("?", String::as_str);
        let path = match above {
            "" => format!("{}:{label}", child["kind"].as_str().unwrap_or("?")),
            _ => format!(
                "{above} > {}:{label}",
                child["kind"].as_str().unwrap_or("?")
            ),
        };
        paths.push(path.clone());
        call_paths(child, labels, &path, paths);
    }
}

/// The profile a program wrote into `dir`, and its regions' names (a
/// user region's name, else the region type) by id.
fn profile_regions(dir: &Path) -> (serde_json::Value, std::collections::HashMap<u64, String>) {
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("profile.json")).unwrap()).unwrap();
    let labels = profile["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["name"].as_str().map(str::to_string);
            let label = name.unwrap_or_else(|| r["type"].as_str().unwrap().to_string());
            (r["id"].as_u64().unwrap(), label)
        })
        .collect();
    (profile, labels)
}

/// Every call path of every thread of the profile in `dir`.
fn all_call_paths(dir: &Path) -> Vec<String> {
    let (profile, labels) = profile_regions(dir);
    let mut paths = Vec::new();
    for thread in profile["threads"].as_array().unwrap() {
        call_paths(&thread["tree"], &labels, "", &mut paths);
    }
    paths
}

#[test]
fn a_score_p_filter_leaves_functions_and_constructs_as_written() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "cxx-app", &["CXX=g++"], "sim");
    let dir = workspace.project("cxx-app", "cxx-app-filtered");
    let filter = dir.join("app.filter");
    std::fs::write(
        &filter,
        "# the recursion and the grid's reduction cost more than they tell\n\
         SCOREP_REGION_NAMES_BEGIN\n\
         \tEXCLUDE count_tasks sum_of_*\n\
         \t        grid.cpp:8   # the parallel for of sum_of_squares\n\
         \tEXCLUDE Ensemble::*\n\
         \tINCLUDE Ensemble::advance\n\
         SCOREP_REGION_NAMES_END\n",
    )
    .unwrap();
    let grid = dir.join("src/grid.cpp");
    let instrumented = workspace.path().join("grid.cpp");
    succeed(
        Command::new(pomp_binary())
            .arg("instrument")
            .arg(&grid)
            .arg("-o")
            .arg(&instrumented)
            .arg("--regions=functions")
            .arg(format!("--filter={}", filter.display())),
    );
    let output = std::fs::read_to_string(&instrumented).unwrap();
    let original = std::fs::read_to_string(&grid).unwrap();
    for as_written in [
        &original[original.find("static long count_tasks").unwrap()
            ..original.find("#pragma omp task ").unwrap()],
        &original[original.find("#pragma omp parallel for").unwrap()
            ..original.find("    return total;").unwrap()],
    ] {
        assert!(
            output.contains(as_written),
            "not as written:\n{as_written}\nin\n{output}"
        );
    }
    assert!(output.contains("grid_checksum"), "{output}");
    let cxx = format!(
        "CXX={} --pomp-regions=functions --pomp-filter={}",
        workspace.wrapper("pomp-cxx").display(),
        filter.display()
    );
    succeed(workspace.command("make", &dir).arg("-s").arg(cxx));
    assert_eq!(
        run_with_profile(&workspace, &dir.join("sim"), &dir),
        expected
    );
    let paths = all_call_paths(&dir);
    for wanted in [
        "region:main > region:grid_checksum > parallel:parallel",
        "region:main > region:Ensemble::advance > parallel:parallelfor",
    ] {
        assert!(
            paths.iter().any(|p| p == wanted),
            "no {wanted} in {paths:#?}"
        );
    }
    for filtered in [
        "count_tasks",
        "sum_of_squares",
        "Ensemble::Ensemble",
        "Ensemble::kinetic_energy",
    ] {
        assert!(
            !paths.iter().any(|p| p.contains(filtered)),
            "{filtered} in {paths:#?}"
        );
    }
    // The only parallel for left is Ensemble::advance's.
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("region:grid_checksum > parallel:parallelfor")),
        "{paths:#?}"
    );
    workspace.assert_scratch_removed();

    // A malformed filter stops the build with its place.
    std::fs::write(&filter, "SCOREP_REGION_NAMES_BEGIN\n  main\n").unwrap();
    let refused = workspace
        .command(pomp_binary(), &dir)
        .arg("instrument")
        .arg(&grid)
        .arg("-o")
        .arg(&instrumented)
        .arg(format!("--filter={}", filter.display()))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains(&format!(
            "{}:2: pattern `main` before INCLUDE or EXCLUDE",
            filter.display()
        )),
        "{}",
        stderr(&refused)
    );
}

/// A function called far more often than it takes time to run.
const TINY_FUNCTION_PROGRAM: &str = include_str!("wrapper/tiny_function.c");

#[test]
fn the_suggested_filter_leaves_the_costly_regions_out_of_the_next_build() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("tiny");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("tiny.c"), TINY_FUNCTION_PROGRAM).unwrap();
    succeed(
        workspace
            .command("gcc", &dir)
            .args(["-O2", "-fopenmp", "tiny.c", "-o", "plain"]),
    );
    let expected = stdout(&succeed(&mut workspace.command(dir.join("plain"), &dir)));
    let build = |extra: &[&str]| {
        succeed(
            workspace
                .command(workspace.wrapper("pomp-cc"), &dir)
                .arg("--pomp-regions=functions")
                .args(extra)
                .args(["-O2", "-fopenmp", "tiny.c", "-o", "tiny"]),
        );
        assert_eq!(
            run_with_profile(&workspace, &dir.join("tiny"), &dir),
            expected
        );
        all_call_paths(&dir)
    };
    let measured = build(&[]);
    assert!(
        measured.iter().any(|p| p.ends_with("region:step")),
        "{measured:#?}"
    );
    let filter = dir.join("suggested.filter");
    succeed(
        workspace
            .command(pomp_binary(), &dir)
            .args(["report", "profile.json"])
            .arg(format!("--suggest-filter={}", filter.display())),
    );
    let text = std::fs::read_to_string(&filter).unwrap();
    // step is throttled: 400000 visits of well under 10 us.
    let entry = text
        .lines()
        .position(|l| l.trim() == "EXCLUDE step")
        .unwrap_or_else(|| panic!("step not suggested:\n{text}"));
    let comment = text.lines().nth(entry - 1).unwrap();
    assert!(
        comment.contains("throttled: 400000 visits,")
            && comment.contains("per visit, estimated overhead"),
        "{text}"
    );
    for kept in ["EXCLUDE main", "EXCLUDE sweep"] {
        assert!(!text.contains(kept), "{text}");
    }
    let filtered = build(&[&format!("--pomp-filter={}", filter.display())]);
    assert!(
        !filtered.iter().any(|p| p.contains("step")),
        "{filtered:#?}"
    );
    assert!(
        filtered
            .iter()
            .any(|p| p == "region:main > region:sweep > parallel:parallelfor"),
        "{filtered:#?}"
    );
    workspace.assert_scratch_removed();
}

#[test]
fn function_regions_root_the_profile_at_main() {
    let workspace = Workspace::new();
    let expected = plain_output(&workspace, "cxx-app", &["CXX=g++"], "sim");
    let dir = workspace.project("cxx-app", "cxx-app-functions");
    let cxx = format!(
        "CXX={} --pomp-regions=functions",
        workspace.wrapper("pomp-cxx").display()
    );
    succeed(workspace.command("make", &dir).arg("-s").arg(cxx));
    assert_eq!(
        run_with_profile(&workspace, &dir.join("sim"), &dir),
        expected
    );
    let (profile, labels) = profile_regions(&dir);
    let mut paths = Vec::new();
    call_paths(&profile["threads"][0]["tree"], &labels, "", &mut paths);
    // Tasks are roots of their own in the runtime's trees.
    let roots: Vec<&String> = (paths.iter())
        .filter(|p| !p.contains(" > ") && !p.starts_with("task:"))
        .collect();
    assert_eq!(roots, ["region:main"], "{paths:#?}");
    for wanted in [
        "region:main > region:Ensemble::advance > parallel:parallelfor",
        "region:main > region:grid_checksum > parallel:parallel",
        "region:main > region:Ensemble::Ensemble",
    ] {
        assert!(
            paths.iter().any(|p| p == wanted),
            "no {wanted} in {paths:#?}"
        );
    }
    // A task, whichever thread runs it, runs the function that creates
    // the next tasks.
    let every_thread = all_call_paths(&dir);
    assert!(
        (every_thread.iter()).any(|p| p == "task:task > region:count_tasks > task_create:task"),
        "{every_thread:#?}"
    );
    workspace.assert_scratch_removed();
}

/// Loops and calls of an MPI-like library defined beside them.
const LOOPS_AND_CALLS_PROGRAM: &str = include_str!("wrapper/loops_and_calls.c");

/// Every call path of the first thread with its visits.
fn visited_paths(dir: &Path) -> Vec<(String, u64)> {
    let (profile, labels) = profile_regions(dir);
    let mut paths = Vec::new();
    call_paths(&profile["threads"][0]["tree"], &labels, "", &mut paths);
    let mut visits = Vec::new();
    fn walk(node: &serde_json::Value, out: &mut Vec<u64>) {
        for child in node["children"].as_array().into_iter().flatten() {
            out.push(child["visits"].as_u64().unwrap_or(0));
            walk(child, out);
        }
    }
    walk(&profile["threads"][0]["tree"], &mut visits);
    paths.into_iter().zip(visits).collect()
}

#[test]
fn loop_and_call_regions_are_profiled_and_filtered() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("loops-calls");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("app.c"), LOOPS_AND_CALLS_PROGRAM).unwrap();
    std::fs::write(
        dir.join("app.filter"),
        "SCOREP_REGION_NAMES_BEGIN\n  EXCLUDE main::loop@18 app.c:20\nSCOREP_REGION_NAMES_END\n",
    )
    .unwrap();
    succeed(
        workspace
            .command("gcc", &dir)
            .args(["-fopenmp", "app.c", "-o", "plain"]),
    );
    let expected = stdout(&succeed(&mut workspace.command(dir.join("plain"), &dir)));
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(["--pomp-regions=loops,mpi", "--pomp-filter=app.filter"])
            .args(["-fopenmp", "app.c", "-o", "app"]),
    );
    assert_eq!(
        run_with_profile(&workspace, &dir.join("app"), &dir),
        expected
    );
    let paths = visited_paths(&dir);
    let visits = |path: &str| {
        (paths.iter())
            .find(|(p, _)| p == path)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("no {path} in {paths:#?}"))
    };
    assert_eq!(visits("region:main::loop@8"), 1);
    assert_eq!(visits("region:main::loop@8 > region:MPI_Send"), 5);
    assert_eq!(visits("region:main::loop@8 > region:MPI_Barrier"), 5);
    assert_eq!(visits("region:main::loop@8 > parallel:parallel"), 5);
    // The filtered loop leaves its call measured at the top; the
    // filtered call at line 20 is not.
    assert_eq!(visits("region:MPI_Barrier"), 3);
    assert!(
        !paths.iter().any(|(p, _)| p.contains("loop@18")),
        "{paths:#?}"
    );
    workspace.assert_scratch_removed();
}

/// The hydrodynamics proxy (C++, a dozen functions per time step around
/// its parallel loops, helpers called per element inside them) and the
/// task-recursive Fibonacci, built with function regions: each prints what
/// the original prints, and the profile's tree leads from `main`
/// through the functions of the time step to each parallel loop, and to
/// the recursion's first tasks.
#[test]
fn function_regions_give_proxy_codes_a_tree_from_main_down() {
    let workspace = Workspace::new();
    let bench = repository().join("corpus/bench");
    let cases: [(&str, &str, &[&str], &[&str]); 2] = [
        (
            "hydro.cpp",
            "pomp-cxx",
            &["10", "12"],
            &[
                "region:main > region:hydro::lagrange_leap_frog > region:hydro::lagrange_nodal > \
                 region:hydro::calc_force_for_nodes > region:hydro::integrate_stress_for_elements > \
                 parallel:parallelfor",
                "region:main > region:hydro::lagrange_leap_frog > region:hydro::lagrange_elements > \
                 region:hydro::calc_kinematics_for_elements > parallel:parallelfor",
                "region:main > region:hydro::lagrange_leap_frog > \
                 region:hydro::calc_time_constraints > parallel:parallelfor",
                "region:main > region:hydro::apply_material_properties > parallel:parallelfor",
            ],
        ),
        (
            "fib.c",
            "pomp-cc",
            &["24", "16"],
            &["region:main > parallel:parallel > single:single > single_body:single > region:fib > \
                 task_create:task"],
        ),
    ];
    for (source, wrapper, args, wanted) in cases {
        let dir = workspace.path().join(source.replace('.', "-"));
        std::fs::create_dir_all(&dir).unwrap();
        let compiler = if wrapper == "pomp-cxx" { "g++" } else { "gcc" };
        let plain = dir.join("plain");
        succeed(
            workspace
                .command(compiler, &dir)
                .args(["-O2", "-fopenmp"])
                .arg(bench.join(source))
                .arg("-o")
                .arg(&plain),
        );
        let program = dir.join("measured");
        succeed(
            workspace
                .command(workspace.wrapper(wrapper), &dir)
                .args(["-O2", "-fopenmp", "--pomp-regions=functions"])
                .arg(bench.join(source))
                .arg("-o")
                .arg(&program),
        );
        // Fibonacci prints its time on the line of its result.
        let answer = |out: String| -> String {
            (out.lines())
                .map(|l| l.split_whitespace().filter(|w| !w.starts_with("seconds=")))
                .map(|words| words.collect::<Vec<_>>().join(" "))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let expected = answer(stdout(&succeed(workspace.command(&plain, &dir).args(args))));
        let profile = dir.join("profile.json");
        let measured = succeed(
            workspace
                .command(&program, &dir)
                .args(args)
                .env("POMP_PROFILE", &profile),
        );
        assert_eq!(answer(stdout(&measured)), expected, "{source}");
        // Whichever thread runs Fibonacci's `single`.
        let paths = all_call_paths(&dir);
        for wanted in wanted {
            let wanted = wanted.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                paths.contains(&wanted),
                "{source}: no {wanted} in {paths:#?}"
            );
        }
    }
    workspace.assert_scratch_removed();
}

#[test]
fn a_build_that_adds_fopenmp_only_for_gcc_is_warned_once_per_step() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("gcc-only");
    // main.c prints how many threads its parallel region ran on; the
    // Makefile passes the OpenMP flag only to gcc, as some benchmark
    // suites write it.
    copy_tree(&repository().join("tests/wrapper/gcc-only"), &dir);
    let cc = format!("CC={}", workspace.wrapper("pomp-cc").display());
    let built = succeed(workspace.command("make", &dir).arg(&cc));
    let said = stderr(&built);
    let warnings: Vec<&str> = said
        .lines()
        .filter(|l| l.contains("OpenMP directives but this command line has no -fopenmp"))
        .collect();
    // One warning for each of the two compile steps, each naming its file.
    assert_eq!(warnings.len(), 2, "{said}");
    assert!(
        warnings[0].starts_with("pomp-cc: warning: main.c has"),
        "{said}"
    );
    assert!(
        warnings[1].starts_with("pomp-cc: warning: helper.c has"),
        "{said}"
    );
    assert!(said.contains("in a Makefile CFLAGS"), "{said}");
    let run = succeed(&mut workspace.command(dir.join("app"), &dir));
    assert_eq!(stdout(&run), "threads 1\n", "what was seen: one thread");

    // The fix the warning names: the OpenMP option in CFLAGS.
    succeed(workspace.command("make", &dir).arg("clean"));
    let fixed = succeed(
        workspace
            .command("make", &dir)
            .arg(&cc)
            .arg("CFLAGS=-O1 -fopenmp"),
    );
    assert!(!stderr(&fixed).contains("-fopenmp:"), "{}", stderr(&fixed));
    let run = succeed(&mut workspace.command(dir.join("app"), &dir));
    assert_eq!(stdout(&run), format!("threads {THREADS}\n"));

    // One step compiling two such files warns once, naming both.
    let together = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(["main.c", "helper.c", "-o", "app2"]),
    );
    let said = stderr(&together);
    assert_eq!(said.matches("has no -fopenmp").count(), 1, "{said}");
    assert!(said.contains("main.c, helper.c have"), "{said}");
    // A file without directives needs no OpenMP option.
    std::fs::write(dir.join("plain.c"), PLAIN_SOURCE).unwrap();
    let plain = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), &dir)
            .args(["-c", "plain.c"]),
    );
    assert_eq!(stderr(&plain), "");
    workspace.assert_scratch_removed();
}

#[test]
fn help_and_install_lead_to_pomps_own_commands() {
    let workspace = Workspace::new();
    let dir = workspace.path();
    // The compiler's help, with pomp's header pointing at pomp's own.
    let help = succeed(
        workspace
            .command(workspace.wrapper("pomp-cc"), dir)
            .arg("--help"),
    );
    let text = stdout(&help);
    assert!(
        text.starts_with("pomp-cc: pomp's compiler wrapper"),
        "{text}"
    );
    assert!(text.contains("`pomp-cc --pomp-help`"), "{text}");
    assert!(text.contains("Usage: gcc"), "{text}");
    let fortran = succeed(
        workspace
            .command(workspace.wrapper("pomp-f90"), dir)
            .arg("--help"),
    );
    assert!(stdout(&fortran).contains("`pomp-f90 --pomp-help`"));
    // install-wrappers puts pomp beside the wrappers: the README's next
    // step, `pomp report`, runs from the PATH.
    let path = format!(
        "{}:{}",
        workspace.path().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let report = succeed(
        workspace
            .command("sh", dir)
            .args(["-c", "command -v pomp && pomp report --help"])
            .env("PATH", &path),
    );
    let text = stdout(&report);
    assert!(
        text.starts_with(&workspace.path().join("bin/pomp").display().to_string()),
        "{text}"
    );
    assert!(text.contains("Usage: pomp report"), "{text}");
    // Installing again over the links, and into pomp's own directory,
    // leaves a working pomp.
    succeed(
        workspace
            .command(pomp_binary(), dir)
            .arg("install-wrappers")
            .arg(workspace.path().join("bin")),
    );
    succeed(
        workspace
            .command(workspace.path().join("bin/pomp"), dir)
            .arg("--version"),
    );
}

#[test]
fn hints_are_spelt_for_the_wrapper_and_repeated_notes_counted() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("untied");
    std::fs::create_dir_all(&dir).unwrap();
    // Five untied tasks.
    std::fs::write(dir.join("tasks.c"), include_str!("wrapper/untied_tasks.c")).unwrap();
    let cc = workspace.wrapper("pomp-cc");
    let built = succeed(
        workspace
            .command(&cc, &dir)
            .args(["-fopenmp", "-c", "tasks.c"]),
    );
    let said = stderr(&built);
    assert_eq!(said.matches("untied task made tied").count(), 1, "{said}");
    assert_eq!(said.matches("`--pomp-keep-untied`").count(), 1, "{said}");
    assert!(!said.contains("`--keep-untied`"), "{said}");
    assert!(
        said.contains("the same for 5 constructs of this file"),
        "{said}"
    );
    // The hint, followed as written, is taken by the wrapper, not gcc.
    let kept = succeed(workspace.command(&cc, &dir).args([
        "--pomp-keep-untied",
        "-fopenmp",
        "-c",
        "tasks.c",
    ]));
    assert_eq!(stderr(&kept), "");
    // pomp instrument spells the same hint its own way.
    let instrumented = workspace
        .command(pomp_binary(), &dir)
        .args(["instrument", "tasks.c", "-o", "out.c"])
        .output()
        .unwrap();
    let said = stderr(&instrumented);
    assert_eq!(said.matches("`--keep-untied`").count(), 1, "{said}");
    succeed(workspace.command(pomp_binary(), &dir).args([
        "instrument",
        "--keep-untied",
        "tasks.c",
        "-o",
        "out.c",
    ]));
}

/// A C++ program with directives under conditions: `#ifdef _OPENMP`, which
/// the compilation with OpenMP decides as the tree-sitter front end does,
/// and a macro only the command line sets.
const CONDITIONAL_DIRECTIVES: &str = include_str!("wrapper/sums.cpp");

#[test]
fn only_directives_under_a_macros_condition_are_read_with_libclang() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("conditional");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sums.cpp"), CONDITIONAL_DIRECTIVES).unwrap();
    let plain = succeed(workspace.command("g++", &dir).args([
        "-fopenmp",
        "-DUSE_SQUARES",
        "sums.cpp",
        "-o",
        "plain",
    ]));
    assert!(plain.status.success());
    let expected = stdout(&succeed(&mut workspace.command(dir.join("plain"), &dir)));
    let front_end = |defines: &[&str]| {
        succeed(
            workspace
                .command(workspace.wrapper("pomp-cxx"), &dir)
                .args(["--pomp-keep", "-fopenmp", "-c", "sums.cpp"])
                .args(defines),
        );
        let idf: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("sums.pomp.json")).unwrap())
                .unwrap();
        let regions = idf["regions"].as_array().map_or(0, Vec::len);
        (idf["front_end"].as_str().unwrap().to_string(), regions)
    };
    // `#ifdef _OPENMP` alone: tree-sitter's reading is the compiler's, and
    // libclang (half a compile of every header) is not asked.
    let source = CONDITIONAL_DIRECTIVES.replace("#ifdef USE_SQUARES\n", "#if 1\n");
    std::fs::write(dir.join("sums.cpp"), &source).unwrap();
    assert_eq!(front_end(&[]), ("tree-sitter".to_string(), 2));
    // A directive under USE_SQUARES is compiled only as the command line
    // says: libclang reads the file with its flags.
    std::fs::write(dir.join("sums.cpp"), CONDITIONAL_DIRECTIVES).unwrap();
    let (name, regions) = front_end(&["-DUSE_SQUARES"]);
    if pomp_core::frontend::libclang::available() {
        assert_eq!((name.as_str(), regions), ("clang", 2));
        assert_eq!(front_end(&[]), ("clang".to_string(), 1));
    }
    succeed(
        workspace
            .command(workspace.wrapper("pomp-cxx"), &dir)
            .args([
                "-fopenmp",
                "-DUSE_SQUARES",
                "sums.cpp",
                "-o",
                "instrumented",
            ]),
    );
    let program = dir.join("instrumented");
    assert_eq!(run_with_profile(&workspace, &program, &dir), expected);
    workspace.assert_scratch_removed();
}

#[test]
fn a_library_named_with_dash_l_is_found_on_the_compilers_library_path() {
    let workspace = Workspace::new();
    let dir = workspace.path().join("named");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sum.c"), OPENMP_SOURCE).unwrap();
    // On no -L directory: only the compiler's library path (LIBRARY_PATH
    // here) leads to the checking library.
    let checker = workspace.checker_library();
    let library_path = checker.parent().unwrap();
    let wrapped = |args: &[&str]| {
        succeed(
            workspace
                .command(workspace.wrapper("pomp-cc"), &dir)
                .env("LIBRARY_PATH", library_path)
                .arg("--pomp-runtime=-lpomp2_check")
                .args(args),
        )
    };
    wrapped(&["-fopenmp", "-c", "sum.c"]);
    wrapped(&["-fopenmp", "sum.o", "-o", "sum"]);
    let (output, summary) = run_checked(&workspace, &dir.join("sum"), &dir);
    assert_eq!(output, "4950\n");
    assert!(registered_regions(&summary) >= 1, "{summary}");
    workspace.assert_scratch_removed();
}

#[test]
fn the_runtime_leaves_the_programs_math_functions_alone() {
    let workspace = Workspace::new();
    let dir = workspace.project("math", "math");
    let build = |compiler: &Path, program: &str| {
        succeed(
            workspace
                .command(compiler, &dir)
                .args(["-O2", "-fopenmp", "math.cpp", "-o", program]),
        );
        stdout(&succeed(&mut workspace.command(dir.join(program), &dir)))
    };
    let plain = build(Path::new("g++"), "plain");
    let instrumented = build(&workspace.wrapper("pomp-cxx"), "instrumented");
    assert_eq!(plain.lines().count(), 8, "{plain}");
    assert_eq!(instrumented, plain);
}

#[test]
fn installed_wrappers_outlive_the_build_they_came_from() {
    let workspace = Workspace::new();
    runtime_library::directory();
    // A build directory of its own, removed after the installation as
    // `cargo clean` removes target/.
    let build = workspace.path().join("build");
    std::fs::create_dir(&build).unwrap();
    for file in ["pomp", "libpomp_runtime.a"] {
        std::fs::hard_link(runtime_library::directory().join(file), build.join(file)).unwrap();
    }
    let installed_dir = workspace.path().join("installed");
    let install = |path: &str| {
        succeed(
            Command::new(build.join("pomp"))
                .arg("install-wrappers")
                .arg(&installed_dir)
                .env("PATH", path)
                .env("SHELL", "/bin/zsh")
                .env_remove("POMP_RUNTIME_DIR"),
        )
    };
    let off_path = install("/usr/bin:/bin");
    let advice = format!(
        "add this line to ~/.zshrc and open a new shell:\n    export PATH=\"{}:$PATH\"",
        std::fs::canonicalize(&installed_dir).unwrap().display()
    );
    assert!(stderr(&off_path).contains(&advice), "{}", stderr(&off_path));
    assert_eq!(
        stdout(&off_path).lines().last(),
        Some(
            &*installed_dir
                .join("libpomp_runtime.a")
                .display()
                .to_string()
        )
    );
    let on_path = install(&format!("/usr/bin:{}", installed_dir.display()));
    assert_eq!(stderr(&on_path), "");
    std::fs::remove_dir_all(&build).unwrap();

    let dir = workspace.project("math", "math");
    succeed(
        workspace
            .command(installed_dir.join("pomp-cxx"), &dir)
            .env_remove("POMP_RUNTIME_DIR")
            .args(["-O2", "-fopenmp", "math.cpp", "-o", "math"]),
    );
    run_with_profile(&workspace, &dir.join("math"), &dir);
}
