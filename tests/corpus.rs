//! The corpus test: every OpenMP program under `corpus/` is compiled and run
//! as written, then instrumented by pomp, linked against the checking POMP2
//! library (`tests/support/pomp2_check.c`) and run again. The instrumented
//! program must print the same output and exit the same way, and the library
//! must find the POMP2 calls well formed and properly nested.
//!
//! Every file is also instrumented for the original POMP interface
//! (`--interface pomp1`), checked by `tests/support/pomp1_check.c`, as
//! trials named `pomp1/<path>`.
//!
//! Every program is checked with each toolchain installed
//! (`tests/support/toolchains.rs`): gcc/g++/gfortran with libgomp, and
//! clang/clang++ with libomp, whose trials are named `clang/<name>` (Fortran
//! stays with gfortran).
//!
//! Each corpus file is one trial named by its path under `corpus/`, so
//! `cargo test --test corpus -- c/atomic` runs one file. Files the original
//! compiler rejects are reported as ignored, with the compiler's reason.
//!
//! A C or C++ file whose first line is `/* pomp-corpus: variants FLAGS */`
//! is also tried with each of the listed flags (`-DA,-DB` sets both), the
//! original and the instrumented file compiled alike, as trials named
//! `<path> [-DA -DB]`; and in every setting its original is also built
//! without OpenMP and must print the same.

#[path = "support/toolchains.rs"]
mod toolchains;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use similar::TextDiff;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolchains::Toolchain;

const CORPUS_DIRS: &[&str] = &["c", "cxx", "kernels", "fortran", "regions"];
const COMPILE_FLAGS: &[&str] = &["-fopenmp", "-O1"];
/// The version string POMP2 libraries ask the link-time registration for.
const OPARI2_VERSION: &str = "2.0.8";
/// Far above any corpus program's run time; reached only by a hang, such as
/// a barrier that not every thread meets.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
const CHECK_LIBRARY_EXIT_ON_VIOLATION: i32 = 97;
/// Set to keep the work directory (sources, binaries, outputs) of failed trials.
const KEEP_WORK_VARIABLE: &str = "POMP_CORPUS_KEEP";

/// Each program runs with these environments. The second also turns
/// cancellation on: corpus programs print the same output either way.
const RUNS: &[(&str, &[(&str, &str)])] = &[
    ("2 threads", &[("OMP_NUM_THREADS", "2")]),
    (
        "4 threads, cancellation on",
        &[("OMP_NUM_THREADS", "4"), ("OMP_CANCELLATION", "true")],
    ),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Language {
    C,
    Cxx,
    Fortran,
}

impl Language {
    fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "c" => Some(Language::C),
            "cpp" | "cc" | "cxx" => Some(Language::Cxx),
            "f90" | "F90" | "f" | "F" => Some(Language::Fortran),
            _ => None,
        }
    }

    /// The toolchain's compiler for the language, if it has one.
    fn compiler(self, toolchain: &Toolchain) -> Option<&str> {
        match self {
            Language::C => Some(&toolchain.c),
            Language::Cxx => Some(&toolchain.cxx),
            Language::Fortran => toolchain.fortran.as_deref(),
        }
    }

    /// Libraries the corpus may use beyond the language's own.
    fn link_libraries(self) -> &'static [&'static str] {
        match self {
            Language::C | Language::Cxx => &["-lm"],
            Language::Fortran => &[],
        }
    }
}

/// Where pomp writes a file's instrumented version. Fortran output gets an
/// upper-case suffix so that gfortran runs the preprocessor over the `#line`
/// markers pomp emits.
fn instrumented_name(source: &Path) -> String {
    let stem = source.file_stem().unwrap().to_string_lossy();
    let extension = source.extension().unwrap().to_string_lossy();
    let extension = match extension.as_ref() {
        "f90" | "F90" => "F90".to_string(),
        "f" | "F" => "F".to_string(),
        other => other.to_string(),
    };
    format!("{stem}.pomp.{extension}")
}

/// Whether the source holds anything pomp instruments, so that a run
/// reporting no POMP2 events at all is a failure.
fn has_directives(source: &str, language: Language) -> bool {
    source.lines().any(|line| {
        let line = line.trim_start();
        match language {
            Language::Fortran => {
                let lower = line.to_ascii_lowercase();
                ["!$omp", "c$omp", "*$omp", "!$pomp", "!p$"]
                    .iter()
                    .any(|sentinel| lower.starts_with(sentinel))
            }
            Language::C | Language::Cxx => {
                let directive = line.strip_prefix('#').map(str::trim_start);
                directive.is_some_and(|d| {
                    let mut words = d.split_whitespace();
                    words.next() == Some("pragma") && matches!(words.next(), Some("omp" | "pomp"))
                }) || line.contains("_Pragma(\"omp")
                    || line.contains("[[omp::")
                    || ["omp_set_lock(", "omp_init_lock("]
                        .iter()
                        .any(|call| line.contains(call))
            }
        }
    })
}

/// What one run of a program did.
struct RunResult {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl RunResult {
    fn describe_status(&self) -> String {
        match self.status.code() {
            Some(code) => format!("exit status {code}"),
            None => format!("{}", self.status),
        }
    }
}

/// Runs `command` to completion or until `RUN_TIMEOUT`, capturing its output
/// in files under `work` (pipes could fill up while we wait).
fn run_with_timeout(mut command: Command, work: &Path, label: &str) -> Result<RunResult, String> {
    let stdout_path = work.join(format!("{label}.stdout"));
    let stderr_path = work.join(format!("{label}.stderr"));
    let create = |path: &Path| File::create(path).map_err(|e| format!("{}: {e}", path.display()));
    command
        .stdin(Stdio::null())
        .stdout(create(&stdout_path)?)
        .stderr(create(&stderr_path)?);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => thread_sleep(),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "{label}: still running after {}s, killed",
                    RUN_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Err(format!("{label}: waiting failed: {e}")),
        }
    };
    let read =
        |path: &Path| String::from_utf8_lossy(&fs::read(path).unwrap_or_default()).into_owned();
    Ok(RunResult {
        status,
        stdout: read(&stdout_path),
        stderr: read(&stderr_path),
    })
}

fn thread_sleep() {
    std::thread::sleep(Duration::from_millis(5));
}

/// Runs a build step; its failure message carries the full command and its
/// diagnostics.
fn build_step(mut command: Command, work: &Path) -> Result<(), String> {
    command.current_dir(work).stdin(Stdio::null());
    let output = command
        .output()
        .map_err(|e| format!("cannot start {command:?}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{command:?} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// A translation unit's registration function, as the linker sees it.
struct InitFunction {
    symbol: String,
    regions: usize,
}

impl InitFunction {
    /// `name` is the IDF's `init_function`, which ends in the number of
    /// regions it registers; `symbol` how the object file spells it.
    fn new(name: &str, symbol: String) -> Result<InitFunction, String> {
        let regions = name
            .rsplit('_')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| format!("init function {name:?} does not end in its region count"))?;
        Ok(InitFunction { symbol, regions })
    }
}

/// The link-time registration file: `POMP2_Init_regions` calls every
/// translation unit's init function.
fn registration_source(init_functions: &[InitFunction]) -> String {
    let mut source = String::from("#include <stddef.h>\n");
    for function in init_functions {
        writeln!(source, "extern void {}(void);", function.symbol).unwrap();
    }
    source.push_str("void POMP2_Init_regions(void)\n{\n");
    for function in init_functions {
        writeln!(source, "    {}();", function.symbol).unwrap();
    }
    let total: usize = init_functions.iter().map(|f| f.regions).sum();
    write!(
        source,
        "}}\nsize_t POMP2_Get_num_regions(void) {{ return {total}; }}\n\
         const char *POMP2_Get_opari2_version(void) {{ return \"{OPARI2_VERSION}\"; }}\n"
    )
    .unwrap();
    source
}

/// The init function an IDF descriptor names; none when the file has no regions.
fn idf_document(idf_path: &Path) -> Result<serde_json::Value, String> {
    let text = fs::read_to_string(idf_path)
        .map_err(|e| format!("pomp wrote no IDF descriptor {}: {e}", idf_path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("IDF descriptor {} is not JSON: {e}", idf_path.display()))
}

fn init_function_of(idf: &serde_json::Value) -> Result<Option<String>, String> {
    match idf.get("init_function") {
        Some(serde_json::Value::String(name)) => Ok(Some(name.clone())),
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(other) => Err(format!("IDF init_function is not a string: {other}")),
    }
}

/// The symbol by which an object file defines the init function the IDF
/// names: the name itself (C linkage), or as gfortran spells a Fortran
/// subroutine's name, in lower case with a trailing underscore.
fn linkable_symbol(object_path: &Path, init_function: &str) -> Result<String, String> {
    use object::{Object, ObjectSymbol};
    let bytes = fs::read(object_path).map_err(|e| format!("{}: {e}", object_path.display()))?;
    let file =
        object::File::parse(&*bytes).map_err(|e| format!("{}: {e}", object_path.display()))?;
    let fortran_spelling = format!("{}_", init_function.to_ascii_lowercase());
    file.symbols()
        .filter(|symbol| symbol.is_definition() && symbol.is_global())
        .filter_map(|symbol| symbol.name().ok())
        .find(|name| *name == init_function || *name == fortran_spelling)
        .map(str::to_string)
        .ok_or_else(|| {
            format!("the instrumented object defines no init function {init_function} (IDF init_function)")
        })
}

/// Copies the files next to `source` into a directory of the work area and
/// returns it. The instrumented file is written there, so that its quoted
/// includes (`#include "x.h"`, Fortran `include 'x.inc'`) find what the
/// original finds next to itself, with no include path added.
fn copy_siblings(source: &Path, work: &Path) -> Result<PathBuf, String> {
    let copies = work.join("source-dir");
    fs::create_dir_all(&copies).map_err(|e| format!("{}: {e}", copies.display()))?;
    let dir = source.parent().unwrap_or(Path::new("."));
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_file() {
            fs::copy(&path, copies.join(entry.file_name()))
                .map_err(|e| format!("copying {}: {e}", path.display()))?;
        }
    }
    Ok(copies)
}

/// The measurement interface a trial instruments for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Interface {
    Pomp2,
    Pomp1,
}

impl Interface {
    /// The name the checking library starts its report lines with.
    fn check_library(self) -> &'static str {
        match self {
            Interface::Pomp2 => "pomp2_check",
            Interface::Pomp1 => "pomp1_check",
        }
    }
}

/// What the checking library wrote at exit.
struct CheckReport {
    text: String,
    library: &'static str,
}

impl CheckReport {
    fn ok(&self) -> bool {
        let ok = format!("{}: OK", self.library);
        self.text.lines().any(|line| line == ok)
    }

    fn number(&self, key: &str) -> Option<u64> {
        let prefix = format!("{}: {key}: ", self.library);
        self.text
            .lines()
            .find_map(|line| line.strip_prefix(&prefix)?.trim().parse().ok())
    }
}

fn diff(expected: &str, actual: &str, expected_name: &str, actual_name: &str) -> String {
    TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header(expected_name, actual_name)
        .to_string()
}

/// The checking library, compiled once per toolchain for all its trials.
struct Support {
    toolchain: Toolchain,
    check_object: PathBuf,
    pomp1_check_object: PathBuf,
    hand_instrumented: PathBuf,
}

impl Support {
    fn check_object(&self, interface: Interface) -> &Path {
        match interface {
            Interface::Pomp2 => &self.check_object,
            Interface::Pomp1 => &self.pomp1_check_object,
        }
    }
}

fn build_support(dir: &Path, root: &Path, toolchain: Toolchain) -> Result<Support, String> {
    let support = root.join("tests/support");
    let dir = dir.join(toolchain.name);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let compile = |name: &str| -> Result<PathBuf, String> {
        let object = dir.join(name).with_extension("o");
        let mut command = Command::new(&toolchain.c);
        command
            .args(COMPILE_FLAGS)
            .args(["-Wall", "-Werror", "-c"])
            .arg(support.join(name))
            .arg("-o")
            .arg(&object);
        build_step(command, &dir)?;
        Ok(object)
    };
    Ok(Support {
        check_object: compile("pomp2_check.c")?,
        pomp1_check_object: compile("pomp1_check.c")?,
        hand_instrumented: support.join("hand_instrumented.c"),
        toolchain,
    })
}

/// Compiles and links an instrumented program: its objects, the registration
/// file for `init_functions`, and the checking library.
fn link_checked(
    toolchain: &Toolchain,
    language: Language,
    objects: &[PathBuf],
    init_functions: &[InitFunction],
    check_object: &Path,
    work: &Path,
    executable: &Path,
) -> Result<(), String> {
    let registration = work.join("pomp2_init_regions.c");
    fs::write(&registration, registration_source(init_functions)).map_err(|e| e.to_string())?;
    let registration_object = work.join("pomp2_init_regions.o");
    let mut command = Command::new(&toolchain.c);
    command
        .args(COMPILE_FLAGS)
        .arg("-c")
        .arg(&registration)
        .arg("-o")
        .arg(&registration_object);
    build_step(command, work)?;
    let compiler = language
        .compiler(toolchain)
        .ok_or_else(|| format!("{} has no compiler for {language:?}", toolchain.name))?;
    let mut command = Command::new(compiler);
    command
        .args(COMPILE_FLAGS)
        .args(objects)
        .arg(&registration_object)
        .arg(check_object)
        .args(language.link_libraries())
        .arg("-o")
        .arg(executable);
    build_step(command, work)
}

fn run_checked(
    executable: &Path,
    env: &[(&str, &str)],
    work: &Path,
    label: &str,
    interface: Interface,
) -> Result<(RunResult, CheckReport), String> {
    let report_path = work.join(format!("{label}.check"));
    let _ = fs::remove_file(&report_path);
    let mut command = Command::new(executable);
    command
        .current_dir(work)
        .envs(env.iter().copied())
        .env("POMP_CHECK_OUT", &report_path);
    let run = run_with_timeout(command, work, label)?;
    let text = fs::read_to_string(&report_path).unwrap_or_else(|_| {
        format!(
            "(the checking library wrote no report; the program ended with {})",
            run.describe_status()
        )
    });
    Ok((
        run,
        CheckReport {
            text,
            library: interface.check_library(),
        },
    ))
}

/// The self-test of the checking library: correct hand instrumentation
/// passes, and instrumentation that closes constructs out of order makes the
/// process exit with the violation status.
fn check_library_self_test(support: &Support, break_nesting: bool) -> Result<(), Failed> {
    let work = tempfile::tempdir().map_err(|e| e.to_string())?;
    let object = work.path().join("hand_instrumented.o");
    let mut command = Command::new(&support.toolchain.c);
    command
        .args(COMPILE_FLAGS)
        .arg("-c")
        .arg(&support.hand_instrumented);
    if break_nesting {
        command.arg("-DBREAK_NESTING");
    }
    command.arg("-o").arg(&object);
    build_step(command, work.path())?;
    let executable = work.path().join("hand_instrumented");
    link_checked(
        &support.toolchain,
        Language::C,
        &[object],
        &[InitFunction::new(
            "POMP2_Init_reg_hand_6",
            "POMP2_Init_reg_hand_6".to_string(),
        )?],
        &support.check_object,
        work.path(),
        &executable,
    )?;
    for (label, env) in RUNS {
        let (run, report) = run_checked(&executable, env, work.path(), "run", Interface::Pomp2)?;
        let events = report.number("events").unwrap_or(0);
        let regions = report.number("regions registered").unwrap_or(0);
        let passed = if break_nesting {
            run.status.code() == Some(CHECK_LIBRARY_EXIT_ON_VIOLATION)
                && !report.ok()
                && report.text.contains("improper nesting")
        } else {
            run.status.success() && report.ok() && events > 0 && regions == 6
        };
        if !passed {
            return Err(format!(
                "{label}: the checking library judged {} instrumentation wrongly \
                 ({}):\n{}\nstderr:\n{}",
                if break_nesting { "broken" } else { "correct" },
                run.describe_status(),
                report.text,
                run.stderr
            )
            .into());
        }
    }
    Ok(())
}

struct CorpusFile {
    path: PathBuf,
    /// Which toolchain of `Toolchain::all()` builds it.
    toolchain: usize,
    language: Language,
    interface: Interface,
    /// Flags both the original and the instrumented file are compiled with.
    defines: Vec<String>,
    /// The original must also run the same without OpenMP.
    serial_too: bool,
    /// `--regions` to instrument with, as the file's first line asks.
    regions: Option<String>,
}

/// The settings a file's first line asks for, `None` for the usual one:
/// no flags, then each variant.
fn variants(path: &Path) -> Option<Vec<Vec<String>>> {
    let text = fs::read_to_string(path).ok()?;
    let first = text.lines().next()?;
    let listed = first
        .trim()
        .strip_prefix("/* pomp-corpus:")?
        .trim_end_matches("*/")
        .trim()
        .strip_prefix("variants")?;
    let mut all = vec![Vec::new()];
    all.extend(
        listed
            .split_whitespace()
            .map(|variant| variant.split(',').map(str::to_string).collect()),
    );
    Some(all)
}

/// The `--regions` a file's first line asks for:
/// `/* pomp-corpus: regions functions */` (Fortran `! pomp-corpus: ...`).
fn regions_asked(path: &Path) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let first = text.lines().next()?.trim();
    let marker = (first.strip_prefix("/*"))
        .or_else(|| first.strip_prefix('!'))?
        .trim_end_matches("*/")
        .trim()
        .strip_prefix("pomp-corpus:")?
        .trim()
        .strip_prefix("regions")?;
    Some(marker.trim().to_string())
}

fn corpus_trial(
    file: CorpusFile,
    supports: Arc<Vec<Result<Support, String>>>,
) -> Result<Completion, Failed> {
    let support = supports[file.toolchain]
        .as_ref()
        .map_err(|e| format!("checking library: {e}"))?;
    let work = tempfile::Builder::new()
        .prefix("pomp-corpus-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    match check_corpus_file(&file, support, work.path()) {
        Err(message) if std::env::var_os(KEEP_WORK_VARIABLE).is_some() => {
            let kept = work.keep();
            Err(format!("{message}\n(work files kept in {})", kept.display()).into())
        }
        Err(message) => Err(format!(
            "{message}\n(set {KEEP_WORK_VARIABLE}=1 to keep the work files of failed trials)"
        )
        .into()),
        done => done.map_err(Failed::from),
    }
}

fn check_corpus_file(
    file: &CorpusFile,
    support: &Support,
    work: &Path,
) -> Result<Completion, String> {
    let compiler = file
        .language
        .compiler(&support.toolchain)
        .ok_or("the toolchain has no compiler for the language")?;

    // The original program, as its author builds it.
    let original = work.join("original");
    let mut command = Command::new(compiler);
    command
        .args(COMPILE_FLAGS)
        .args(&file.defines)
        .arg(&file.path)
        .args(file.language.link_libraries())
        .arg("-o")
        .arg(&original);
    if let Err(reason) = build_step(command, work) {
        let first_error = reason
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("the compiler rejects it")
            .to_string();
        return Ok(Completion::ignored_with(format!(
            "{compiler} cannot compile the original: {first_error}"
        )));
    }
    let mut original_runs = Vec::new();
    for (label, env) in RUNS {
        let mut command = Command::new(&original);
        command.current_dir(work).envs(env.iter().copied());
        let run = run_with_timeout(command, work, "original")?;
        if !run.status.success() {
            return wrong_original(
                support,
                format!(
                    "the original program fails its own checks with {label} ({}):\n{}{}",
                    run.describe_status(),
                    run.stdout,
                    run.stderr
                ),
            );
        }
        original_runs.push((label, run));
    }
    if original_runs[0].1.stdout != original_runs[1].1.stdout {
        return wrong_original(
            support,
            format!(
                "the original program's output depends on the thread count:\n{}",
                diff(
                    &original_runs[0].1.stdout,
                    &original_runs[1].1.stdout,
                    original_runs[0].0,
                    original_runs[1].0
                )
            ),
        );
    }
    if file.serial_too {
        check_serial_original(file, compiler, work, &original_runs[0].1)?;
    }

    // Instrumented by pomp.
    let beside_copies = copy_siblings(&file.path, work)?;
    let instrumented = beside_copies.join(instrumented_name(&file.path));
    let idf = work.join("idf.json");
    let interface = match file.interface {
        Interface::Pomp2 => "pomp2",
        Interface::Pomp1 => "pomp1",
    };
    let output = Command::new(env!("CARGO_BIN_EXE_pomp"))
        .arg("instrument")
        .arg(&file.path)
        .arg("-o")
        .arg(&instrumented)
        .arg("--idf")
        .arg(&idf)
        .args(["--interface", interface])
        .args(file.regions.iter().map(|r| format!("--regions={r}")))
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run pomp: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "pomp instrument failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let object = work.join("instrumented.o");
    let mut command = Command::new(compiler);
    command
        .args(COMPILE_FLAGS)
        .args(&file.defines)
        .arg("-c")
        .arg(&instrumented)
        .arg("-o")
        .arg(&object);
    build_step(command, work)
        .map_err(|e| format!("the instrumented file does not compile: {e}"))?;
    let idf = idf_document(&idf)?;
    let init_functions = match init_function_of(&idf)? {
        Some(name) => vec![InitFunction::new(&name, linkable_symbol(&object, &name)?)?],
        None => Vec::new(),
    };
    let executable = work.join("instrumented");
    link_checked(
        &support.toolchain,
        file.language,
        &[object],
        &init_functions,
        support.check_object(file.interface),
        work,
        &executable,
    )?;

    let source =
        String::from_utf8_lossy(&fs::read(&file.path).map_err(|e| e.to_string())?).into_owned();
    let expects_events = match file.interface {
        Interface::Pomp2 => file.regions.is_some() || has_directives(&source, file.language),
        // Tasks and newer constructs have no events in the original interface.
        Interface::Pomp1 => idf["regions"].as_array().is_some_and(|r| !r.is_empty()),
    };
    let mut problems = String::new();
    for ((label, env), (_, original_run)) in RUNS.iter().zip(&original_runs) {
        let (run, report) = run_checked(&executable, env, work, "instrumented", file.interface)?;
        let mut failures = Vec::new();
        if run.status.code() != original_run.status.code() {
            failures.push(format!(
                "the original ended with {}, the instrumented program with {}",
                original_run.describe_status(),
                run.describe_status()
            ));
        }
        if run.stdout != original_run.stdout {
            failures.push(format!(
                "stdout differs:\n{}",
                diff(
                    &original_run.stdout,
                    &run.stdout,
                    "original",
                    "instrumented"
                )
            ));
        }
        if !report.ok() {
            failures.push("the checking library found violations".to_string());
        }
        if expects_events && report.number("events").unwrap_or(0) == 0 {
            failures.push("the file has directives, but no POMP2 event was seen".to_string());
        }
        if expects_events
            && file.interface == Interface::Pomp2
            && report.number("regions registered").unwrap_or(0) == 0
        {
            failures.push("the file has directives, but no region was registered".to_string());
        }
        if !failures.is_empty() {
            writeln!(
                problems,
                "── {label} ──\n{}\n── checking library report ──\n{}── stderr of the instrumented program ──\n{}",
                failures.join("\n"),
                report.text,
                run.stderr
            )
            .unwrap();
        }
    }
    if problems.is_empty() {
        Ok(Completion::Completed)
    } else {
        Err(problems)
    }
}

/// An original that goes wrong as built: a fault of the corpus under gcc,
/// which every program is written for; under another toolchain a fault of
/// that compiler (clang 14 miscompiles some constructs), reported as an
/// ignored trial with what went wrong, since there is nothing to compare.
fn wrong_original(support: &Support, what: String) -> Result<Completion, String> {
    if support.toolchain.is_default() {
        return Err(what);
    }
    let first = what
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':');
    Ok(Completion::ignored_with(format!(
        "{} builds the original wrong: {first}",
        support.toolchain.c
    )))
}

/// The original built without OpenMP must print what it prints with it.
fn check_serial_original(
    file: &CorpusFile,
    compiler: &str,
    work: &Path,
    with_openmp: &RunResult,
) -> Result<(), String> {
    let serial = work.join("serial");
    let mut command = Command::new(compiler);
    command
        .args(COMPILE_FLAGS.iter().filter(|f| **f != "-fopenmp"))
        .args(&file.defines)
        .arg(&file.path)
        .args(file.language.link_libraries())
        .arg("-o")
        .arg(&serial);
    build_step(command, work)
        .map_err(|e| format!("the original does not build without OpenMP: {e}"))?;
    let run = run_with_timeout(Command::new(&serial), work, "serial")?;
    if run.status.code() != with_openmp.status.code() || run.stdout != with_openmp.stdout {
        return Err(format!(
            "the original prints otherwise without OpenMP ({}):\n{}",
            run.describe_status(),
            diff(
                &with_openmp.stdout,
                &run.stdout,
                "with OpenMP",
                "without OpenMP"
            )
        ));
    }
    Ok(())
}

fn corpus_files(root: &Path, toolchains: &[Toolchain]) -> Vec<CorpusFile> {
    fn walk(dir: &Path, toolchains: &[Toolchain], files: &mut Vec<CorpusFile>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, toolchains, files);
            } else if let Some(language) = Language::of(&path) {
                let marked = variants(&path);
                let serial_too = marked.is_some();
                for defines in marked.unwrap_or_else(|| vec![Vec::new()]) {
                    for interface in [Interface::Pomp1, Interface::Pomp2] {
                        for (toolchain, tools) in toolchains.iter().enumerate() {
                            if language.compiler(tools).is_none() {
                                continue;
                            }
                            files.push(CorpusFile {
                                path: path.clone(),
                                toolchain,
                                language,
                                interface,
                                defines: defines.clone(),
                                serial_too,
                                regions: regions_asked(&path),
                            });
                        }
                    }
                }
            }
        }
    }
    let mut files = Vec::new();
    for dir in CORPUS_DIRS {
        walk(&root.join("corpus").join(dir), toolchains, &mut files);
    }
    files.sort_by_key(|f| {
        (
            f.interface == Interface::Pomp1,
            f.path.clone(),
            f.defines.clone(),
            f.toolchain,
        )
    });
    files
}

fn main() {
    let arguments = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let support_dir = tempfile::Builder::new()
        .prefix("pomp-check-lib-")
        .tempdir()
        .expect("a temporary directory");
    let toolchains = Toolchain::all();
    let supports: Arc<Vec<Result<Support, String>>> = Arc::new(
        toolchains
            .iter()
            .map(|t| build_support(support_dir.path(), root, t.clone()))
            .collect(),
    );

    let mut trials = Vec::new();
    for (name, break_nesting) in [
        ("support/check_library_accepts_correct_calls", false),
        ("support/check_library_rejects_broken_nesting", true),
    ] {
        let supports = Arc::clone(&supports);
        trials.push(Trial::test(name, move || match &supports[0] {
            Ok(support) => check_library_self_test(support, break_nesting),
            Err(e) => Err(format!("checking library: {e}").into()),
        }));
    }
    for file in corpus_files(root, &toolchains) {
        let name = file
            .path
            .strip_prefix(root.join("corpus"))
            .unwrap_or(&file.path)
            .to_string_lossy()
            .into_owned();
        let name = match file.interface {
            Interface::Pomp2 => name,
            Interface::Pomp1 => format!("pomp1/{name}"),
        };
        let name = if file.defines.is_empty() {
            name
        } else {
            format!("{name} [{}]", file.defines.join(" "))
        };
        let name = match &file.regions {
            Some(regions) => format!("{name} [--regions={regions}]"),
            None => name,
        };
        let toolchain = &toolchains[file.toolchain];
        let name = match toolchain.is_default() {
            true => name,
            false => format!("{}/{name}", toolchain.name),
        };
        let supports = Arc::clone(&supports);
        trials.push(Trial::ignorable_test(name, move || {
            corpus_trial(file, supports)
        }));
    }

    let conclusion = libtest_mimic::run(&arguments, trials);
    eprintln!(
        "corpus: {} passed, {} failed, {} skipped",
        conclusion.num_passed, conclusion.num_failed, conclusion.num_ignored
    );
    drop(support_dir);
    conclusion.exit();
}
