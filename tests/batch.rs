//! `pomp batch` end to end: a generated tree mirrored, instrumented,
//! registered and indexed; a CMake project built from the mirror with
//! plain gcc, run, and compared with the original; the same through a
//! compilation database; failures, ignore rules, deletion and the cache.

#[path = "../benches/common/tree.rs"]
mod tree;

use pomp_batch::{Config, FileReport, Outcome};
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const TREE_FILES: usize = 300;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pomp_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_pomp"))
}

fn succeed(command: &mut Command) -> Output {
    let output = command.output().expect("the command starts");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The directory holding pomp's runtime archive, built for the test.
fn runtime_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let release = pomp_binary()
            .parent()
            .is_some_and(|d| d.ends_with("release"));
        let mut build = Command::new(cargo);
        build
            .current_dir(repository())
            .args(["build", "--quiet", "-p", "pomp-runtime"]);
        if release {
            build.arg("--release");
        }
        succeed(&mut build);
        let dir = pomp_binary().parent().unwrap().to_path_buf();
        assert!(dir.join("libpomp_runtime.a").is_file());
        dir
    })
}

/// What a program built from the mirror links besides its own objects.
fn pomp_libraries(out: &Path) -> String {
    let object = out.join("pomp_regions.o");
    succeed(
        Command::new("gcc")
            .arg("-c")
            .arg(out.join("pomp_regions.c"))
            .arg("-o")
            .arg(&object),
    );
    format!(
        "{} {} -lpthread -ldl -lm",
        object.display(),
        runtime_dir().join("libpomp_runtime.a").display()
    )
}

/// `pomp batch ARGS`, and its JSON report.
fn pomp_batch(args: &[&std::ffi::OsStr], report: &Path) -> (Output, serde_json::Value) {
    let output = Command::new(pomp_binary())
        .arg("batch")
        .args(args)
        .arg("--json")
        .arg(report)
        .env("POMP_RUNTIME_DIR", runtime_dir())
        .output()
        .unwrap();
    let json = serde_json::from_slice(&std::fs::read(report).unwrap_or_default())
        .unwrap_or(serde_json::Value::Null);
    (output, json)
}

fn os(s: &(impl AsRef<std::ffi::OsStr> + ?Sized)) -> &std::ffi::OsStr {
    s.as_ref()
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::create_dir_all(to).unwrap();
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn same_inode(a: &Path, b: &Path) -> bool {
    let (a, b) = (a.metadata().unwrap(), b.metadata().unwrap());
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// The options batch instruments a file with: the language by suffix,
/// and no `#line` markers where gfortran would not preprocess them.
fn options_for(path: &Path) -> Options {
    let language = Language::from_path(path).unwrap();
    let mut options = Options {
        language: Some(language),
        ..Options::default()
    };
    let suffix = path.extension().unwrap().to_string_lossy();
    options.output.line_markers =
        !language.is_fortran() || suffix.chars().any(|c| c.is_ascii_uppercase());
    options
}

fn report_files(report: &serde_json::Value) -> BTreeMap<String, serde_json::Value> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

/// A generated tree of `files` files in `DIR/src`, and where its mirror
/// goes: `DIR/out`.
fn generated_tree(files: usize) -> (tempfile::TempDir, PathBuf, PathBuf, tree::Tree) {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    let tree = tree::generate(&src, files);
    (dir, src, out, tree)
}

#[test]
fn a_generated_tree_is_mirrored_instrumented_registered_and_indexed() {
    let (dir, src, out, tree) = generated_tree(TREE_FILES);
    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out)],
        &dir.path().join("r.json"),
    );
    assert!(output.status.success(), "{output:?}");

    for relative in &tree.mirrored {
        let (original, mirrored) = (src.join(relative), out.join(relative));
        if tree.with_openmp.contains(relative) {
            let text = std::fs::read_to_string(&mirrored).unwrap();
            assert!(text.contains("POMP2_"), "{}", relative.display());
        } else {
            assert!(same_inode(&original, &mirrored), "{}", relative.display());
        }
    }
    for relative in &tree.ignored {
        assert!(!out.join(relative).exists(), "{}", relative.display());
    }

    let files = report_files(&report);
    let summary = &report["summary"];
    assert_eq!(summary["files"], tree.mirrored.len());
    assert_eq!(summary["instrumented"], tree.with_openmp.len());
    assert_eq!(
        summary["linked"],
        tree.mirrored.len() - tree.with_openmp.len()
    );
    assert_eq!(summary["failed"], 0);
    assert_eq!(summary["headers_with_directives"], 1);
    let header = &files[tree.headers_with_directives[0].to_str().unwrap()];
    assert_eq!(header["mirror"], "linked");
    assert_eq!(header["diagnostics"][0]["severity"], "warning");

    // Each instrumented file is what instrumenting it alone gives, and the
    // index holds its descriptor.
    let index = pomp2::idf::read_index(out.join("pomp-idf.json")).unwrap();
    let indexed: BTreeSet<PathBuf> = index.files.iter().map(|f| f.path.clone().into()).collect();
    assert_eq!(indexed, tree.with_openmp.iter().cloned().collect());
    let registration = std::fs::read_to_string(out.join("pomp_regions.c")).unwrap();
    for file in &index.files {
        let source = src.canonicalize().unwrap().join(&file.path);
        let options = options_for(&source);
        let (read, alone) =
            pomp_core::instrument::instrument_source(&source, options.language, &options).unwrap();
        assert_eq!(
            std::fs::read(out.join(&file.output)).unwrap(),
            alone.output(&read),
            "{}",
            file.path
        );
        assert_eq!(file.document, alone.idf(&read));
        let init = alone.init_function().unwrap();
        assert!(registration.contains(&format!("extern void {init}(void) __attribute__((weak));")));
        assert_eq!(files[&file.path]["init_function"], init.as_str());
    }
    assert_eq!(
        summary["regions"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap() as usize)
            .sum::<usize>(),
        index.regions().count()
    );

    // Every instrumented file compiles with the compiler of its language.
    for relative in &tree.with_openmp {
        let compiler = match Language::from_path(relative).unwrap() {
            Language::C => "gcc",
            Language::Cpp => "g++",
            _ => "gfortran",
        };
        succeed(
            Command::new(compiler)
                .current_dir(dir.path())
                .args(["-fopenmp", "-Werror", "-c", "-o", "unit.o"])
                .arg(out.join(relative)),
        );
    }
}

#[test]
fn runs_are_deterministic_whatever_the_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let tree = tree::generate(&src, TREE_FILES);
    let mut mirrors = Vec::new();
    for jobs in [1, 3] {
        let mut config = Config::new(Some(src.clone()), dir.path().join(format!("out{jobs}")));
        config.jobs = Some(jobs);
        let outcome = run(&config);
        assert_eq!(outcome.summary.jobs, jobs);
        let mut bytes: Vec<Vec<u8>> = tree
            .mirrored
            .iter()
            .map(|p| std::fs::read(config.out_dir.join(p)).unwrap())
            .collect();
        for generated in ["pomp_regions.c", "pomp-idf.json"] {
            bytes.push(std::fs::read(config.out_dir.join(generated)).unwrap());
        }
        let reports: Vec<_> = outcome
            .files
            .iter()
            .map(|f| (&f.path, &f.verdict))
            .collect();
        mirrors.push((bytes, format!("{reports:?}")));
    }
    assert!(mirrors[0] == mirrors[1]);
}

/// The c-app test project inside a generated tree: the tree's other
/// instrumented units are not linked into the program, and their weak
/// references in the registration file leave it linking.
#[test]
fn a_cmake_project_builds_from_the_mirror_with_plain_gcc_and_writes_a_profile() {
    let (dir, src, out, _) = generated_tree(TREE_FILES);
    copy_tree(&repository().join("tests/projects/c-app"), &src.join("app"));
    let expected = build_and_run(&src.join("app"), &dir.path().join("plain"), &[]);

    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out)],
        &dir.path().join("r.json"),
    );
    assert!(output.status.success(), "{output:?}");
    let instructions = stdout(&output);
    assert!(
        instructions.contains("CMAKE_C_STANDARD_LIBRARIES"),
        "{instructions}"
    );
    assert!(instructions.contains("libpomp_runtime.a"), "{instructions}");

    let libraries = pomp_libraries(&out);
    let build = dir.path().join("mirror-build");
    let profile = dir.path().join("profile.json");
    let got = build_and_run(
        &out.join("app"),
        &build,
        &[&format!("-DCMAKE_C_STANDARD_LIBRARIES={libraries}")],
    );
    assert_eq!(got, expected);
    run_app_with_profile(&build, &profile);
    let files = report_files(&report);
    let app_regions: u64 = [
        "app/src/histogram.c",
        "app/src/stencil.c",
        "app/src/tasks.c",
    ]
    .iter()
    .map(|f| {
        assert_eq!(files[*f]["mirror"], "instrumented");
        files[*f]["regions"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum::<u64>()
    })
    .sum();
    let written = pomp2::profile::read(&profile).unwrap();
    assert_eq!(written.declared_regions, app_regions);
    assert!(
        app_regions
            < report["summary"]["regions"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .sum()
    );
    assert!(!written.regions.is_empty());
}

/// Configure and build a CMake project with gcc, run its `app`, return
/// what it prints.
fn build_and_run(source: &Path, build: &Path, options: &[&str]) -> String {
    succeed(
        Command::new("cmake")
            .arg("-S")
            .arg(source)
            .arg("-B")
            .arg(build)
            .args(["-DCMAKE_C_COMPILER=gcc", "-DCMAKE_BUILD_TYPE=Release"])
            .args(options),
    );
    succeed(Command::new("cmake").arg("--build").arg(build));
    stdout(&succeed(
        Command::new(build.join("app"))
            .env("OMP_NUM_THREADS", "3")
            .env("POMP_SUMMARY", "0")
            .env("POMP_PROFILE", build.join("ignored-profile.json")),
    ))
}

fn run_app_with_profile(build: &Path, profile: &Path) -> String {
    let output = succeed(
        Command::new(build.join("app"))
            .env("OMP_NUM_THREADS", "3")
            .env("POMP_SUMMARY", "0")
            .env("POMP_PROFILE", profile),
    );
    assert!(profile.is_file(), "no profile written");
    stdout(&output)
}

/// The build exports its compilation database; the batch run takes the
/// files, languages and flags from it and writes the mirror's. The
/// original build links the registration before anything is
/// instrumented (weak references resolve to nothing); compiling the
/// mirror's commands and building again gives the instrumented program.
#[test]
fn a_compilation_database_drives_the_run_and_its_mirror_builds_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    copy_tree(&repository().join("tests/projects/c-app"), &project);
    let expected = build_and_run(&project, &dir.path().join("plain"), &[]);

    let out = dir.path().join("out");
    let build = project.join("build");
    let libraries = format!(
        "{} {} -lpthread -ldl -lm",
        out.join("pomp_regions.o").display(),
        runtime_dir().join("libpomp_runtime.a").display()
    );
    succeed(
        Command::new("cmake")
            .arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(&build)
            .args([
                "-DCMAKE_C_COMPILER=gcc",
                "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            ])
            .arg(format!("-DCMAKE_C_STANDARD_LIBRARIES={libraries}")),
    );
    let database = build.join("compile_commands.json");
    let (output, report) = pomp_batch(
        &[
            os(&project),
            os("--compile-commands"),
            os(&database),
            os("--out"),
            os(&out),
        ],
        &dir.path().join("r.json"),
    );
    assert!(output.status.success(), "{output:?}");
    // The build directory is not mirrored: only the folders its objects
    // go to when the mirrored commands run are made.
    assert!(
        mirror_contents(&out.join("build")).is_empty(),
        "the build directory is not mirrored"
    );
    assert!(out.join("build/CMakeFiles/app.dir/src").is_dir());
    assert!(out.join("include/app.h").is_file());
    let files = report_files(&report);
    assert_eq!(files["src/main.c"]["mirror"], "linked");
    assert_eq!(files["src/tasks.c"]["mirror"], "instrumented");
    pomp_libraries(&out);
    // The database gives the flags, but tree-sitter reads this file as the
    // compiler does: libclang, which would read every header too, is not
    // asked.
    let index = pomp2::idf::read_index(out.join("pomp-idf.json")).unwrap();
    let tasks = index
        .files
        .iter()
        .find(|f| f.path == "src/tasks.c")
        .unwrap();
    assert_eq!(tasks.document.front_end, "tree-sitter");

    // Nothing instrumented is linked yet: the program links all the same,
    // and runs as the original (no event starts the runtime).
    succeed(Command::new("cmake").arg("--build").arg(&build));
    let uninstrumented = succeed(Command::new(build.join("app")).env("OMP_NUM_THREADS", "3"));
    assert_eq!(stdout(&uninstrumented), expected);

    let mirrored =
        json_compilation_db::read(std::fs::File::open(out.join("compile_commands.json")).unwrap())
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
    assert_eq!(mirrored.len(), 4);
    let out = out.canonicalize().unwrap();
    let original_tree = mirror_contents(&project);
    let mut objects = Vec::new();
    for entry in &mirrored {
        assert!(entry.file.starts_with(&out), "{entry:?}");
        assert!(
            entry
                .arguments
                .iter()
                .any(|a| a == &format!("-I{}", out.join("include").display())),
            "{entry:?}"
        );
        // The commands run where the build ran them, and write into the mirror.
        succeed(
            Command::new(&entry.arguments[0])
                .args(&entry.arguments[1..])
                .current_dir(&entry.directory),
        );
        let object = entry.output.clone().unwrap_or_else(|| {
            let at = entry.arguments.iter().position(|a| a == "-o").unwrap();
            PathBuf::from(&entry.arguments[at + 1])
        });
        assert!(object.starts_with(&out), "{entry:?}");
        assert!(object.is_file(), "{entry:?}");
        objects.push(object);
    }
    assert!(
        original_tree == mirror_contents(&project),
        "running the mirrored commands changed the original tree"
    );
    // Linked as the build links them, the objects make the instrumented program.
    let program = out.join("app");
    succeed(
        Command::new("gcc")
            .arg("-fopenmp")
            .args(&objects)
            .arg("-o")
            .arg(&program)
            .args(libraries.split_whitespace()),
    );
    let profile = dir.path().join("instrumented.json");
    assert_eq!(run_app_with_profile(&out, &profile), expected);
    let written = pomp2::profile::read(&profile).unwrap();
    assert!(written.declared_regions > 0);
    // The tree's index serves `pomp report` as the single descriptors do.
    let shown = succeed(
        Command::new(pomp_binary())
            .arg("report")
            .arg(&profile)
            .arg("--idf")
            .arg(out.join("pomp-idf.json"))
            .args(["--format", "json"]),
    );
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let directives: BTreeSet<&str> = shown["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["directive"].as_str())
        .collect();
    assert!(!directives.is_empty(), "{shown:#}");
    assert_eq!(
        written.declared_regions as usize,
        report["summary"]["regions"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap() as usize)
            .sum::<usize>()
    );
}

const BROKEN: &str = "void f(void)\n{\n    int x = 0;\n#pragma omp parallel\n}\n";
const WITH_OPENMP: &str = "void g(double *a, int n)\n{\n#pragma omp parallel for\n    for (int i = 0; i < n; i++)\n        a[i] = 0;\n}\n";

#[test]
fn a_file_that_cannot_be_instrumented_is_reported_and_mirrored_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("broken.c"), BROKEN).unwrap();
    std::fs::write(src.join("good.c"), WITH_OPENMP).unwrap();
    std::fs::write(src.join("plain.c"), "int h(void) { return 1; }\n").unwrap();

    let out = dir.path().join("original");
    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out)],
        &dir.path().join("r1.json"),
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("broken.c:4:1: error:"), "{stderr}");
    let files = report_files(&report);
    assert_eq!(files["broken.c"]["failed"], true);
    assert_eq!(files["broken.c"]["mirror"], "linked");
    assert_eq!(files["broken.c"]["diagnostics"][0]["line"], 4);
    assert_eq!(files["good.c"]["mirror"], "instrumented");
    assert!(same_inode(&src.join("broken.c"), &out.join("broken.c")));
    assert_eq!(report["summary"]["failed"], 1);

    // Still failing when nothing changed, from the cache.
    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out)],
        &dir.path().join("r2.json"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(report_files(&report)["broken.c"]["cached"], true);
    assert_eq!(report["summary"]["failed"], 1);

    let out = dir.path().join("fail");
    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out), os("--on-error=fail")],
        &dir.path().join("r3.json"),
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(!out.join("broken.c").exists());
    assert_eq!(report_files(&report)["broken.c"]["mirror"], "nothing");
    assert!(out.join("good.c").is_file());

    std::fs::write(src.join("broken.c"), WITH_OPENMP.replace("g(", "f(")).unwrap();
    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out), os("--on-error=fail")],
        &dir.path().join("r4.json"),
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(report_files(&report)["broken.c"]["mirror"], "instrumented");
}

#[test]
fn ignore_files_and_excludes_leave_files_out_and_their_outputs_go() {
    let (_dir, src, out, tree) = generated_tree(TREE_FILES);
    let run = |extra: &[&str]| {
        let mut config = Config::new(Some(src.clone()), out.clone());
        for argument in extra {
            match *argument {
                "--no-ignore" => config.ignore_files = false,
                glob => config.exclude.push(glob.to_string()),
            }
        }
        run(&config)
    };
    let all = run(&[]);
    assert_eq!(all.summary.files, tree.mirrored.len());
    assert!(out.join("lib1/module0").is_dir());

    let without_lib1 = run(&["lib1"]);
    let in_lib1 = tree
        .mirrored
        .iter()
        .filter(|p| p.starts_with("lib1"))
        .count();
    assert!(in_lib1 > 0);
    assert_eq!(without_lib1.summary.files, tree.mirrored.len() - in_lib1);
    assert_eq!(without_lib1.summary.removed, in_lib1);
    assert!(
        !out.join("lib1").exists(),
        "emptied directories are removed"
    );

    let everything = run(&["--no-ignore", "*.txt"]);
    for ignored in &tree.ignored {
        assert!(out.join(ignored).is_file(), "{}", ignored.display());
    }
    assert!(everything
        .files
        .iter()
        .all(|f| f.path.extension().is_none_or(|e| e != "txt")));
    assert!(!everything.failed());
}

/// A run, and every file's report.
struct Run {
    outcome: Outcome,
    files: Vec<FileReport>,
}

impl std::ops::Deref for Run {
    type Target = Outcome;

    fn deref(&self) -> &Outcome {
        &self.outcome
    }
}

fn run(config: &Config) -> Run {
    let mut files = Vec::new();
    let outcome =
        pomp_batch::run(config, &pomp_batch::Quiet, &mut |f| files.push(f.clone())).unwrap();
    Run { outcome, files }
}

/// Which files a run did something with.
fn redone(outcome: &Run) -> BTreeSet<PathBuf> {
    outcome
        .files
        .iter()
        .filter(|f| !f.cached)
        .map(|f| f.path.clone())
        .collect()
}

#[test]
fn the_cache_redoes_what_changed_and_deleted_sources_lose_their_outputs() {
    let (_dir, src, out, tree) = generated_tree(TREE_FILES);
    let mut config = Config::new(Some(src.clone()), out.clone());
    let first = run(&config);
    assert_eq!(redone(&first).len(), tree.mirrored.len());
    let second = run(&config);
    assert!(redone(&second).is_empty());
    assert_eq!(second.summary.unchanged, tree.mirrored.len());
    assert_eq!(second.summary.regions, first.summary.regions);

    // Content: an instrumented file edited, a plain file replaced.
    let edited = tree
        .with_openmp
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .unwrap();
    let text = std::fs::read_to_string(src.join(edited)).unwrap();
    std::fs::write(
        src.join(edited),
        text.replacen("#pragma omp", "#pragma omp barrier\n#pragma omp", 1),
    )
    .unwrap();
    let replaced = tree
        .mirrored
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "txt"))
        .unwrap();
    let new = src.join("replacement");
    std::fs::write(&new, "new notes\n").unwrap();
    std::fs::rename(&new, src.join(replaced)).unwrap();
    let third = run(&config);
    assert_eq!(
        redone(&third),
        BTreeSet::from([edited.clone(), replaced.clone()])
    );
    assert_eq!(
        third.summary.regions["barrier"],
        first.summary.regions.get("barrier").copied().unwrap_or(0) + 1
    );
    assert!(same_inode(&src.join(replaced), &out.join(replaced)));

    // Touched without a change: read again, nothing redone.
    let touched = std::fs::File::options()
        .append(true)
        .open(src.join(&tree.with_openmp[1]))
        .unwrap();
    touched.set_modified(std::time::SystemTime::now()).unwrap();
    assert!(redone(&run(&config)).is_empty());

    // An output removed from the mirror is made again.
    std::fs::remove_file(out.join(&tree.with_openmp[2])).unwrap();
    assert_eq!(
        redone(&run(&config)),
        BTreeSet::from([tree.with_openmp[2].clone()])
    );

    // Options and pomp's version: the instrumented files are redone.
    let instrumented: BTreeSet<PathBuf> = tree.with_openmp.iter().cloned().collect();
    config.options.rules.disable.insert("critical".into());
    let fewer = run(&config);
    assert_eq!(redone(&fewer), instrumented);
    assert!(!fewer.summary.regions.contains_key("critical"));
    config.tool_version = "another pomp".into();
    assert_eq!(redone(&run(&config)), instrumented);
    assert!(redone(&run(&config)).is_empty());

    // Deleted sources: their outputs, registrations and descriptors go.
    let deleted = &tree.with_openmp[3];
    let init = first
        .files
        .iter()
        .find(|f| &f.path == deleted)
        .and_then(|f| f.verdict.init_function.clone())
        .unwrap();
    std::fs::remove_file(src.join(deleted)).unwrap();
    let plain = tree
        .mirrored
        .iter()
        .find(|p| !instrumented.contains(*p) && p.starts_with("lib0/module1"))
        .unwrap();
    std::fs::remove_file(src.join(plain)).unwrap();
    let after = run(&config);
    assert_eq!(after.summary.removed, 2);
    assert!(redone(&after).is_empty());
    assert!(!out.join(deleted).exists() && !out.join(plain).exists());
    let registration = std::fs::read_to_string(out.join("pomp_regions.c")).unwrap();
    assert!(!registration.contains(&init));
    let index = pomp2::idf::read_index(out.join("pomp-idf.json")).unwrap();
    assert_eq!(index.files.len(), tree.with_openmp.len() - 1);
}

/// Set a file's modification time back by an hour: older than any run, so
/// that its status is trusted.
fn age(path: &Path) -> std::time::SystemTime {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
    old
}

#[test]
fn the_cache_sees_replaced_outputs_and_changes_that_keep_size_and_time() {
    let (_dir, src, out, tree) = generated_tree(TREE_FILES);
    let config = Config::new(Some(src.clone()), out.clone());
    let instrumented = tree
        .with_openmp
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .unwrap();
    let linked = tree
        .mirrored
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c") && !tree.with_openmp.contains(p))
        .unwrap();
    let old = age(&src.join(instrumented));
    age(&src.join(linked));
    run(&config);
    let cached = run(&config);
    assert!(redone(&cached).is_empty());

    // A hard link in the mirror replaced by another file.
    std::fs::remove_file(out.join(linked)).unwrap();
    std::fs::write(out.join(linked), "int replaced;\n").unwrap();
    // An instrumented output rewritten in place, its size kept.
    let output = std::fs::read(out.join(instrumented)).unwrap();
    std::fs::write(out.join(instrumented), vec![b' '; output.len()]).unwrap();
    assert_eq!(
        redone(&run(&config)),
        BTreeSet::from([linked.clone(), instrumented.clone()])
    );
    assert!(same_inode(&src.join(linked), &out.join(linked)));
    assert_eq!(std::fs::read(out.join(instrumented)).unwrap(), output);
    assert!(redone(&run(&config)).is_empty());

    // A source edited without a new size, its modification time set back
    // to what it was: its change time tells.
    let text = std::fs::read_to_string(src.join(instrumented)).unwrap();
    let edited = text.replacen("#pragma omp critical", "#pragma omp   master", 1);
    assert_ne!(edited, text);
    assert_eq!(edited.len(), text.len());
    std::fs::write(src.join(instrumented), &edited).unwrap();
    std::fs::File::options()
        .append(true)
        .open(src.join(instrumented))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let after = run(&config);
    assert_eq!(redone(&after), BTreeSet::from([instrumented.clone()]));
    assert_ne!(std::fs::read(out.join(instrumented)).unwrap(), output);

    // An output deleted, a file added and another deleted in one run.
    std::fs::remove_file(out.join(instrumented)).unwrap();
    let added = linked.with_file_name("added.c");
    std::fs::write(src.join(&added), WITH_OPENMP).unwrap();
    let deleted = tree
        .mirrored
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "txt"))
        .unwrap();
    std::fs::remove_file(src.join(deleted)).unwrap();
    let after = run(&config);
    assert_eq!(
        redone(&after),
        BTreeSet::from([instrumented.clone(), added.clone()])
    );
    assert_eq!(after.summary.removed, 1);
    assert!(!out.join(deleted).exists());
    assert!(std::fs::read_to_string(out.join(&added))
        .unwrap()
        .contains("POMP2_"));
    let index = pomp2::idf::read_index(out.join("pomp-idf.json")).unwrap();
    assert_eq!(index.files.len(), tree.with_openmp.len() + 1);
}

/// The outcome keeps the files worth printing, not one report per file.
#[test]
fn the_outcome_keeps_only_files_with_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let tree = tree::generate(&src, TREE_FILES);
    std::fs::write(src.join("broken.c"), BROKEN).unwrap();
    let ran = run(&Config::new(Some(src), dir.path().join("out")));
    assert_eq!(ran.files.len(), tree.mirrored.len() + 1);
    let notable: BTreeSet<&Path> = ran.notable.iter().map(|f| f.path.as_path()).collect();
    let expected: BTreeSet<&Path> = ran
        .files
        .iter()
        .filter(|f| f.verdict.failed || !f.verdict.diagnostics.is_empty())
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(notable, expected);
    assert!(notable.contains(Path::new("broken.c")));
    assert!(notable.contains(tree.headers_with_directives[0].as_path()));
    assert!(notable.len() < 10, "{notable:?}");
}

/// Every file of the mirror and its bytes, pomp's cache left out.
fn mirror_contents(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut contents = BTreeMap::new();
    let mut directories = vec![out.to_path_buf()];
    while let Some(directory) = directories.pop() {
        for entry in std::fs::read_dir(&directory).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".pomp-batch") {
                continue;
            }
            if path.is_dir() {
                directories.push(path);
            } else {
                let relative = path.strip_prefix(out).unwrap().to_path_buf();
                contents.insert(relative, std::fs::read(&path).unwrap_or_default());
            }
        }
    }
    contents
}

/// The reports of a run, as an unwatched run that found nothing to redo
/// makes them.
fn as_cached(files: &[FileReport]) -> Vec<FileReport> {
    files
        .iter()
        .map(|f| FileReport {
            cached: true,
            ..f.clone()
        })
        .collect()
}

#[test]
fn a_watched_run_walks_nothing_when_nothing_changed_and_sees_every_change() {
    let (dir, src, out, tree) = generated_tree(TREE_FILES);
    std::fs::write(src.join("broken.c"), BROKEN).unwrap();
    let mut config = Config::new(Some(src.clone()), out.clone());
    config.watch = Some(pomp_binary());
    let mut fresh_runs = 0;
    // The mirror a run from scratch makes of the tree as it is now.
    let mut from_scratch = || {
        fresh_runs += 1;
        let fresh = dir.path().join(format!("fresh-{fresh_runs}"));
        run(&Config::new(Some(src.clone()), fresh.clone()));
        mirror_contents(&fresh)
    };
    // A run the watcher did not answer as expected says what it warned
    // about and what the watcher logged, so that a failure tells why.
    let watched_as = |run: &Run, expected: pomp_batch::Watched| {
        let as_expected = run.watcher == Some(expected);
        if !as_expected {
            let log = out.join(".pomp-batch/watcher.log");
            eprintln!(
                "watcher: {:?}, warnings: {:?}, its log: {:?}",
                run.watcher,
                run.warnings,
                std::fs::read_to_string(log)
            );
        }
        as_expected
    };
    let walked = |run: &Run| watched_as(run, pomp_batch::Watched::Walked);
    let vouched = |run: &Run| watched_as(run, pomp_batch::Watched::NothingChanged);

    let first = run(&config);
    assert!(walked(&first), "{:?}", first.warnings);
    assert!(first.warnings.is_empty(), "{:?}", first.warnings);
    let second = run(&config);
    assert!(vouched(&second));
    // What the last run found, as a walk that finds nothing changed says it.
    assert_eq!(second.files, as_cached(&first.files));
    assert_eq!(second.notable, as_cached(&first.notable));
    assert_eq!(second.summary.unchanged, tree.mirrored.len());
    assert_eq!(second.summary.failed, 1);
    assert_eq!(second.summary.regions, first.summary.regions);
    assert_eq!(mirror_contents(&out), from_scratch());

    // A source edited without a new size, its modification time set back.
    let instrumented = tree
        .with_openmp
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c"))
        .unwrap();
    let path = src.join(instrumented);
    let modified = path.metadata().unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen("#pragma omp critical", "#pragma omp   master", 1);
    assert_eq!((edited != text, edited.len()), (true, text.len()));
    std::fs::write(&path, &edited).unwrap();
    std::fs::File::options()
        .append(true)
        .open(&path)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let after = run(&config);
    assert!(walked(&after));
    assert_eq!(redone(&after), BTreeSet::from([instrumented.clone()]));
    assert_eq!(mirror_contents(&out), from_scratch());
    assert!(vouched(&run(&config)));

    // What a build writes beside the mirror's files changes nothing.
    std::fs::write(out.join(instrumented).with_extension("o"), "object").unwrap();
    std::fs::create_dir_all(out.join("cmake-build/CMakeFiles")).unwrap();
    std::fs::write(out.join("cmake-build/CMakeFiles/cache.txt"), "").unwrap();
    std::fs::write(out.join("pomp_regions.o"), "object").unwrap();
    assert!(vouched(&run(&config)));

    // The mirror's own files changed: the walk puts them back.
    let linked = tree
        .mirrored
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "c") && !tree.with_openmp.contains(p))
        .unwrap();
    std::fs::remove_file(out.join(linked)).unwrap();
    let after = run(&config);
    assert!(walked(&after));
    assert_eq!(redone(&after), BTreeSet::from([linked.clone()]));
    assert!(same_inode(&src.join(linked), &out.join(linked)));
    std::fs::write(out.join("pomp_regions.c"), "int replaced;\n").unwrap();
    assert!(walked(&run(&config)));
    assert!(vouched(&run(&config)));
    assert_eq!(without_build_outputs(mirror_contents(&out)), from_scratch());

    // A new directory with a source at once, deep down.
    let added = PathBuf::from("new/deep/added.c");
    std::fs::create_dir_all(src.join("new/deep")).unwrap();
    std::fs::write(src.join(&added), WITH_OPENMP).unwrap();
    let after = run(&config);
    assert!(walked(&after));
    assert_eq!(redone(&after), BTreeSet::from([added.clone()]));
    assert!(vouched(&run(&config)));
    // A file in a directory made since the last run.
    let later = PathBuf::from("new/deep/later.c");
    std::fs::write(src.join(&later), WITH_OPENMP).unwrap();
    assert_eq!(redone(&run(&config)), BTreeSet::from([later.clone()]));

    // An ignore file changed: the files it leaves out lose their outputs.
    std::fs::write(src.join(".ignore"), "new/\n").unwrap();
    let after = run(&config);
    assert!(walked(&after));
    assert_eq!(after.summary.removed, 2);
    assert!(!out.join(&added).exists());
    assert!(vouched(&run(&config)));

    // Other settings, or a run without the watcher in between: a walk.
    config.options.rules.disable.insert("critical".into());
    let fewer = run(&config);
    assert!(walked(&fewer) && !fewer.summary.regions.contains_key("critical"));
    assert!(vouched(&run(&config)));
    let unwatched = Config {
        watch: None,
        ..config.clone()
    };
    assert_eq!(run(&unwatched).watcher, None);
    assert!(walked(&run(&config)));
    assert!(vouched(&run(&config)));
    let mut scratch = Config::new(Some(src.clone()), dir.path().join("fresh-last"));
    scratch.options = config.options.clone();
    run(&scratch);
    assert_eq!(
        without_build_outputs(mirror_contents(&out)),
        mirror_contents(&dir.path().join("fresh-last"))
    );
}

/// The mirror without what the test's pretended build wrote into it.
fn without_build_outputs(contents: BTreeMap<PathBuf, Vec<u8>>) -> BTreeMap<PathBuf, Vec<u8>> {
    contents
        .into_iter()
        .filter(|(p, _)| !p.starts_with("cmake-build") && p.extension() != Some("o".as_ref()))
        .collect()
}

/// The processes running pomp's watcher of `out`.
fn watchers_of(out: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(command) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let arguments: Vec<&[u8]> = command.split(|&b| b == 0).collect();
        if arguments.contains(&pomp_batch::watch::SUBCOMMAND.as_bytes())
            && arguments.contains(&out.as_os_str().as_encoded_bytes())
        {
            found.push(String::from_utf8_lossy(&command).replace('\0', " "));
        }
    }
    found
}

fn wait_for_no_watcher_of(out: &Path) {
    let asked = std::time::Instant::now();
    while !watchers_of(out).is_empty() {
        assert!(
            asked.elapsed() < std::time::Duration::from_secs(10),
            "still running: {:?}",
            watchers_of(out)
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_watcher_stops_when_asked_or_when_its_mirror_is_deleted() {
    let (dir, src, out, tree) = generated_tree(20);
    let report = dir.path().join("report.json");
    let watched = |out: &Path| {
        let (output, json) = pomp_batch(&[os(&src), os("--out"), os(out), os("--watch")], &report);
        assert!(output.status.success(), "{output:?}");
        json["watcher"].as_str().unwrap().to_owned()
    };
    assert_eq!(watched(&out), "walked");
    assert_eq!(watched(&out), "nothing_changed");
    let out = out.canonicalize().unwrap();
    assert_eq!(watchers_of(&out).len(), 1);

    let stop = || {
        let output = succeed(Command::new(pomp_binary()).args([
            os("batch"),
            os("--out"),
            os(&out),
            os("--stop-watcher"),
        ]));
        stdout(&output)
    };
    assert_eq!(stop(), "");
    wait_for_no_watcher_of(&out);
    assert!(stop().contains("no watcher"));
    assert_eq!(watched(&out), "walked");
    assert_eq!(watched(&out), "nothing_changed");

    // Deleted and made again at the same path: the old watcher is gone,
    // and a new one watches the new directory.
    std::fs::remove_dir_all(&out).unwrap();
    wait_for_no_watcher_of(&out);
    assert_eq!(watched(&out), "walked");
    std::fs::remove_file(out.join(&tree.mirrored[0])).unwrap();
    assert_eq!(watched(&out), "walked");

    let refused = Command::new(pomp_binary())
        .args([os("batch"), os("--out"), os(&out), os("--watch")])
        .arg("--compile-commands")
        .arg(dir.path().join("compile_commands.json"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--watch"));
    std::fs::remove_dir_all(&out).unwrap();
    wait_for_no_watcher_of(&out);
}

/// The text of the printed line that starts with `label` (after the
/// indentation), as the user copies it.
fn printed_line<'a>(printed: &'a str, label: &str) -> &'a str {
    printed
        .lines()
        .find_map(|line| line.trim_start().strip_prefix(label))
        .unwrap_or_else(|| panic!("no line `{label}` in\n{printed}"))
        .trim()
}

/// Run `line` in a shell in `dir`, as a user pastes it.
fn shell(dir: &Path, line: &str) -> Output {
    succeed(
        Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(dir)
            .env("OMP_NUM_THREADS", "3")
            .env("POMP_SUMMARY", "0"),
    )
}

/// Run `program`, writing its profile to `profile`: what it printed on
/// both streams, and the profile.
fn profiled_run(program: &Path, profile: &Path) -> (Output, pomp2::profile::Profile) {
    let output = succeed(
        Command::new(program)
            .env("OMP_NUM_THREADS", "3")
            .env("POMP_SUMMARY", "0")
            .env("POMP_PROFILE", profile),
    );
    (output, pomp2::profile::read(profile).unwrap())
}

/// The printed link lines for a C++-only CMake project and a Makefile that
/// takes no link variable, followed literally: cc, then cmake or make
/// with the line as printed.
#[test]
fn the_printed_link_lines_build_a_cxx_project_with_cmake_and_its_makefile() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    copy_tree(&repository().join("tests/projects/cxx-app"), &src);
    let out = dir.path().join("out");
    let (output, _) = pomp_batch(
        &[os(&src), os("--out"), os(&out)],
        &dir.path().join("r.json"),
    );
    assert!(output.status.success(), "{output:?}");
    let printed = stdout(&output);
    shell(
        dir.path(),
        &format!("cc -c {}", printed_line(&printed, "cc -c")),
    );

    let cmake = printed_line(&printed, "CMake:");
    assert!(
        cmake.starts_with("-DCMAKE_CXX_STANDARD_LIBRARIES="),
        "{printed}"
    );
    assert!(!cmake.contains("CMAKE_C_STANDARD_LIBRARIES"), "{printed}");
    let build = dir.path().join("build");
    shell(
        dir.path(),
        &format!("cmake -S {} -B {} {cmake}", out.display(), build.display()),
    );
    shell(dir.path(), &format!("cmake --build {}", build.display()));
    let (_, profile) = profiled_run(&build.join("sim"), &dir.path().join("cmake.json"));
    assert_eq!(profile.declared_regions, 13);
    assert!(profile.unregistered_regions.is_empty());

    // The project's Makefile names no LDLIBS, LIBS or LDFLAGS.
    let make = printed_line(&printed, "make:");
    assert!(make.starts_with("CXX=\"c++ -fopenmp "), "{printed}");
    shell(&out, &format!("make {make}"));
    let (_, profile) = profiled_run(&out.join("sim"), &dir.path().join("make.json"));
    assert_eq!(profile.declared_regions, 13);
    assert!(!profile.regions.is_empty());
}

const COUNTING_PROGRAM: &str = "#include <stdio.h>\n#include <omp.h>\nint main(void)\n{\n    \
    int n = 0;\n#pragma omp parallel reduction(+ : n)\n    n += 1;\n    printf(\"%d\\n\", n > 0);\n    \
    return 0;\n}\n";

/// A Makefile linking with LDFLAGS before the objects, and one with make's
/// built-in rules (LDLIBS): the printed make line builds each. Then a run
/// that adds a region says the registration changed, and a program
/// linked with the old registration object says at its end that regions
/// were not registered, until the line is followed again.
#[test]
fn the_printed_make_line_fits_the_makefile_and_a_stale_registration_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("flags")).unwrap();
    std::fs::create_dir_all(src.join("builtin")).unwrap();
    std::fs::write(src.join("flags/main.c"), COUNTING_PROGRAM).unwrap();
    std::fs::write(
        src.join("flags/Makefile"),
        "CFLAGS = -O1 -fopenmp\nLDFLAGS = -fopenmp\napp: main.o\n\t$(CC) $(LDFLAGS) -o app main.o -lm\n",
    )
    .unwrap();
    std::fs::write(src.join("builtin/app.c"), COUNTING_PROGRAM).unwrap();
    std::fs::write(
        src.join("builtin/Makefile"),
        "CFLAGS = -O1 -fopenmp\napp: app.o\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let batch = || {
        pomp_batch(
            &[os(&src), os("--out"), os(&out)],
            &dir.path().join("r.json"),
        )
        .0
    };
    let output = batch();
    assert!(output.status.success(), "{output:?}");
    let printed = stdout(&output);
    let make = printed_line(&printed, "make:");
    // One Makefile takes LDFLAGS only: that is what both take.
    assert!(make.starts_with("LDFLAGS=\"-fopenmp "), "{printed}");
    assert!(!printed.contains("pomp_regions.c changed"), "{printed}");
    let registration = format!("cc -c {}", printed_line(&printed, "cc -c"));
    shell(dir.path(), &registration);
    for tree in ["flags", "builtin"] {
        shell(&out.join(tree), &format!("make {make}"));
        let (run, profile) = profiled_run(&out.join(tree).join("app"), &dir.path().join("p.json"));
        assert_eq!(stdout(&run), "1\n");
        assert_eq!(profile.declared_regions, 1);
        assert!(profile.unregistered_regions.is_empty());
        assert_eq!(String::from_utf8_lossy(&run.stderr), "");
    }

    // A second region in one file: the registration changes.
    let source = COUNTING_PROGRAM.replace(
        "    printf",
        "#pragma omp parallel\n    {\n    }\n    printf",
    );
    std::fs::write(src.join("flags/main.c"), source).unwrap();
    let output = batch();
    let printed = stdout(&output);
    assert!(
        printed.contains("pomp_regions.c changed: regions were added or removed"),
        "{printed}"
    );
    // The program rebuilt, its registration object left as it was.
    shell(&out.join("flags"), &format!("make {make}"));
    let (run, profile) = profiled_run(&out.join("flags/app"), &dir.path().join("p.json"));
    assert_eq!(stdout(&run), "1\n");
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(
        said.contains("pomp: warning: 2 regions of this program were not registered"),
        "{said}"
    );
    assert!(
        said.contains("compile the registration file again"),
        "{said}"
    );
    assert_eq!(profile.unregistered_regions.len(), 2, "{said}");
    // As the run said: the registration compiled again, the program relinked.
    shell(dir.path(), &registration);
    std::fs::remove_file(out.join("flags/app")).unwrap();
    shell(&out.join("flags"), &format!("make {make}"));
    let (run, profile) = profiled_run(&out.join("flags/app"), &dir.path().join("p.json"));
    assert_eq!(String::from_utf8_lossy(&run.stderr), "");
    assert_eq!(profile.declared_regions, 2);
    assert!(profile.unregistered_regions.is_empty());
}

/// With function regions, a tree's sources measure their functions while
/// its headers, inline functions and all, are mirrored byte for byte, as
/// headers with directives are: instrumented, a header would define its
/// regions in every unit including it. The program built from the mirror
/// prints what the original does and its profile roots at `main`, with
/// the header's inline function's time inside the source function calling
/// it.
#[test]
fn function_regions_measure_sources_and_leave_headers_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = (dir.path().join("src"), dir.path().join("out"));
    std::fs::create_dir_all(&src).unwrap();
    let header = "#pragma once\n\
                  inline double weight(int i) {\n  double w = 0.5;\n  for (int k = 0; k < i % 7; k++) w *= 1.25;\n  return w;\n}\n\
                  struct Accumulator {\n  double sum = 0.0;\n  void add(double v) { sum += v; }\n};\n";
    let source = "#include <cstdio>\n#include \"weights.hpp\"\n\
                  static double total(int n) {\n  double sum = 0.0;\n\
                  #pragma omp parallel for reduction(+ : sum)\n  for (int i = 0; i < n; i++) sum += weight(i);\n  return sum;\n}\n\
                  int main() {\n  Accumulator a;\n  for (int r = 1; r <= 3; r++) a.add(total(1000 * r));\n  std::printf(\"%.3f\\n\", a.sum);\n  return 0;\n}\n";
    std::fs::write(src.join("weights.hpp"), header).unwrap();
    std::fs::write(src.join("main.cpp"), source).unwrap();
    let plain = dir.path().join("plain");
    succeed(
        Command::new("g++")
            .args(["-O2", "-fopenmp"])
            .arg(src.join("main.cpp"))
            .arg("-o")
            .arg(&plain),
    );
    let expected = stdout(&succeed(&mut Command::new(&plain)));

    let (output, report) = pomp_batch(
        &[os(&src), os("--out"), os(&out), os("--regions=functions")],
        &dir.path().join("r.json"),
    );
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        std::fs::read(out.join("weights.hpp")).unwrap(),
        header.as_bytes(),
        "the header is mirrored as written"
    );
    let files = report_files(&report);
    assert_eq!(files["main.cpp"]["mirror"], "instrumented");

    let program = dir.path().join("instrumented");
    let libraries = pomp_libraries(&out);
    shell(
        dir.path(),
        &format!(
            "g++ -O2 -fopenmp {} -o {} {libraries}",
            out.join("main.cpp").display(),
            program.display()
        ),
    );
    let (run, profile) = profiled_run(&program, &dir.path().join("profile.json"));
    assert_eq!(stdout(&run), expected);
    let names: BTreeSet<String> = (profile.regions.iter())
        .filter_map(|r| r.name.clone())
        .collect();
    assert!(
        names.contains("main") && names.contains("total"),
        "{names:?}"
    );
    assert!(
        !names
            .iter()
            .any(|n| n.contains("weight") || n.contains("add")),
        "a header's function is measured: {names:?}"
    );
}
