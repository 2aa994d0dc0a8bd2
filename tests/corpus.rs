//! The corpus test: every OpenMP program under `corpus/` is compiled and run
//! as written, then instrumented by pomp, linked against the checking POMP2
//! library (`tests/support/pomp2_check.c`) and run again. The instrumented
//! program must print the same output and exit the same way, and the library
//! must find the POMP2 calls well formed and properly nested.
//!
//! Every file is also instrumented for the original POMP interface, as
//! OPARI 1.1's library takes it (`--interface pomp1`) and in the 2002
//! proposal's spelling (`--interface pomp1-paper`), checked by
//! `tests/support/pomp1_check.c` (built with `-DPOMP1_PAPER` for the
//! latter), as trials named `pomp1/<path>` and `pomp1-paper/<path>`. The
//! registration (and the original interface's table) is the wrappers'.
//!
//! And every file is built against the libraries of the original
//! instrumenters, OPARI2's and OPARI 1.1's, each way pomp can be used with
//! them (`tests/support/reference.rs`), as trials named after the way:
//! `opari2-registration/<path>`, `opari2-wrappers/<path>`,
//! `opari2-shims/<path>`, `scorep/<path>` and `scorep-nopreprocess/<path>`
//! (pomp's shims driven with the commands Score-P runs) and
//! `opari1/<path>`; `opari2-ctc/<path>` compares pomp's CTC strings with
//! those OPARI2 itself writes for the file, `opari2-ctc-preprocessed/<path>`
//! for the compiler's `-E` output of it, as Score-P gives it to OPARI2 by
//! default. Each program is built and run
//! as written once, whichever of its trials comes first.
//!
//! Every program is also fed to pomp as the compiler's preprocessor left
//! it (`gcc -E`, `clang -E`, `gfortran -E -cpp`: line markers everywhere,
//! the headers' text inlined), as trials named `preprocessed/<path>`: the
//! preprocessed file is instrumented, compiled, run and compared like the
//! original, and its regions' CTC strings and IDF entries must name the
//! files and lines the original's name.
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
//! (beside other clauses, after a `;`) is also tried with each of the
//! listed flags (`-DA,-DB` sets both), the original and the instrumented
//! file compiled alike, as trials named
//! `<path> [-DA -DB]`; and in every setting its original is also built
//! without OpenMP and must print the same.

#[path = "support/reference.rs"]
mod reference;
#[path = "support/toolchains.rs"]
mod toolchains;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use similar::TextDiff;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use toolchains::Toolchain;

const CORPUS_DIRS: &[&str] = &["c", "cxx", "kernels", "fortran", "regions"];
const COMPILE_FLAGS: &[&str] = &["-fopenmp", "-O1"];
/// Far above any corpus program's run time; reached only by a hang, such as
/// a barrier that not every thread meets.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);
const CHECK_LIBRARY_EXIT_ON_VIOLATION: i32 = 97;
/// Set to keep the work directory (sources, binaries, outputs) of failed trials.
const KEEP_WORK_VARIABLE: &str = "POMP_CORPUS_KEEP";

/// Each program runs with these environments. The second also turns
/// cancellation on: corpus programs print the same output either way.
/// Waiting threads sleep rather than spin: on a loaded machine a thread
/// spinning at a barrier holds the core the thread it waits for needs,
/// and a program meeting a barrier thousands of times (a library that
/// traces every event) takes minutes instead of a second.
const RUNS: &[(&str, &[(&str, &str)])] = &[
    (
        "2 threads",
        &[("OMP_NUM_THREADS", "2"), ("OMP_WAIT_POLICY", "passive")],
    ),
    (
        "4 threads, cancellation on",
        &[
            ("OMP_NUM_THREADS", "4"),
            ("OMP_CANCELLATION", "true"),
            ("OMP_WAIT_POLICY", "passive"),
        ],
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
/// markers pomp emits, and a preprocessed C or C++ file's the suffix the
/// compiler preprocesses, for pomp's macros.
fn instrumented_name(source: &Path) -> String {
    let stem = source.file_stem().unwrap().to_string_lossy();
    let extension = source.extension().unwrap().to_string_lossy();
    let extension = match extension.as_ref() {
        "f90" | "F90" => "F90".to_string(),
        "f" | "F" => "F".to_string(),
        "i" => "c".to_string(),
        "ii" => "cpp".to_string(),
        other => other.to_string(),
    };
    format!("{stem}.pomp.{extension}")
}

/// Where the compiler's preprocessor writes a source's text, as pomp is
/// fed it: `.i` and `.ii` for C and C++, a Fortran name in lower case,
/// which gfortran does not preprocess again.
fn preprocessed_name(source: &Path) -> String {
    let stem = source.file_stem().unwrap().to_string_lossy();
    let extension = source.extension().unwrap().to_string_lossy();
    let extension = match Language::of(source) {
        Some(Language::C) => "i".to_string(),
        Some(Language::Cxx) => "ii".to_string(),
        _ => extension.to_lowercase(),
    };
    format!("{stem}.preprocessed.{extension}")
}

/// `source` run through the preprocessor as compiling it with `defines`
/// would, into `dir`.
fn preprocess(file: &CorpusFile, toolchain: &Toolchain, dir: &Path) -> Result<PathBuf, String> {
    let compiler = file
        .language
        .compiler(toolchain)
        .ok_or("the toolchain has no compiler for the language")?;
    let preprocessed = dir.join(preprocessed_name(&file.path));
    let mut command = Command::new(compiler);
    command.args(["-E", "-fopenmp"]).args(&file.defines);
    if file.language == Language::Fortran {
        command.arg("-cpp");
    }
    command.arg(&file.path).arg("-o").arg(&preprocessed);
    build_step(command, dir).map_err(|e| format!("the preprocessor fails: {e}"))?;
    Ok(preprocessed)
}

/// Where a region's CTC string says it opens and closes, and its type.
#[derive(Debug)]
struct Place {
    region_type: String,
    /// The IDF's file and the CTC string's, opening and closing.
    files: [String; 3],
    start: (u64, u64),
    end: (u64, u64),
}

/// The places of an IDF's regions.
fn places(idf: &serde_json::Value) -> Vec<Place> {
    let lines = |ctc: &str, key: &str| -> (String, (u64, u64)) {
        let value = (ctc.split('*'))
            .find_map(|part| part.strip_prefix(key))
            .unwrap_or_default();
        let mut parts = value.rsplitn(3, ':');
        let last = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
        let first = parts.next().and_then(|l| l.parse().ok()).unwrap_or(0);
        (parts.next().unwrap_or_default().to_string(), (first, last))
    };
    (idf["regions"].as_array().into_iter().flatten())
        .map(|r| {
            let ctc = r["ctc"].as_str().unwrap_or_default();
            let (start_file, start) = lines(ctc, "sscl=");
            let (end_file, end) = lines(ctc, "escl=");
            Place {
                region_type: r["type"].as_str().unwrap_or_default().to_string(),
                files: [
                    r["file"].as_str().unwrap_or_default().to_string(),
                    start_file,
                    end_file,
                ],
                start,
                end,
            }
        })
        .collect()
}

/// The preprocessed file's regions are where pomp finds them in the
/// original: in its file, each opening on the first line of a region of
/// the same type there. What preprocessing changes may change the rest:
/// a directive continued with `\` is one line once preprocessed, and a
/// block that was a conditional's branches (`#ifdef A` / loop / `#else`
/// / loop / `#endif`) is the branch compiled, ending before the
/// conditional did. A region the original has no directive for comes
/// from a macro (`_Pragma` in a `#define`), which preprocessing expands
/// where it is used. A loop or call the original leaves unmeasured, with
/// a note, because a conditional's branch holds only its start, the
/// preprocessed file may measure: it holds one branch.
fn check_places(
    file: &CorpusFile,
    preprocessed_idf: &serde_json::Value,
    work: &Path,
) -> Result<(), String> {
    let idf = work.join("original.idf.json");
    let options = Vec::from_iter(file.regions_option());
    let said = pomp_instrument(&file.path, &work.join("original.pomp"), &idf, &options)?;
    let original = places(&idf_document(&idf)?);
    let unmeasured = lines_left_unmeasured(&said);
    let text = fs::read_to_string(&file.path).map_err(|e| e.to_string())?;
    let line = |n: u64| {
        text.lines()
            .nth(n as usize - 1)
            .unwrap_or_default()
            .trim_start()
    };
    let macro_made = text.contains("_Pragma");
    let path = file.path.to_string_lossy();
    let mut problems = Vec::new();
    for found in places(preprocessed_idf) {
        if found.files.iter().any(|f| *f != path) {
            problems.push(format!("{found:?}: not in {path}"));
            continue;
        }
        let Some(expected) = (original.iter())
            .find(|o| o.region_type == found.region_type && o.start.0 == found.start.0)
        else {
            // The preprocessed file's may begin in a later branch of the
            // conditional the original's note points into.
            let left_in_original = (unmeasured.iter()).any(|&u| {
                u == found.start.0
                    || (u < found.start.0 && (u..found.start.0).any(|n| line(n).starts_with('#')))
            });
            if !left_in_original && (!macro_made || line(found.start.0).starts_with('#')) {
                problems.push(format!("{found:?}: the original has no such region there"));
            }
            continue;
        };
        let joined = found.start.1 == found.start.0 && line(found.start.0).ends_with('\\');
        let conditional_end = line(expected.end.0).starts_with('#') && found.end.0 < expected.end.0;
        if !(found.start.1 == expected.start.1 || joined)
            || !(found.end == expected.end || conditional_end)
        {
            problems.push(format!("{found:?}: the original's is {expected:?}"));
        }
    }
    match problems.is_empty() {
        true => Ok(()),
        false => Err(format!(
            "the regions of the preprocessed file are not where the original has them:\n{}",
            problems.join("\n")
        )),
    }
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

/// `pomp instrument` of `source` into `output` and `idf`, with `options`.
fn pomp_instrument(
    source: &Path,
    output: &Path,
    idf: &Path,
    options: &[String],
) -> Result<String, String> {
    let ran = Command::new(env!("CARGO_BIN_EXE_pomp"))
        .arg("instrument")
        .arg(source)
        .arg("-o")
        .arg(output)
        .arg("--idf")
        .arg(idf)
        .args(options)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run pomp: {e}"))?;
    if !ran.status.success() {
        return Err(format!(
            "pomp instrument {} failed ({}):\n{}",
            source.display(),
            ran.status,
            String::from_utf8_lossy(&ran.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&ran.stderr).into_owned())
}

/// The lines of the loops and calls pomp's diagnostics `said` it left
/// unmeasured (`note: this loop is not measured`, then `┌─ FILE:LINE:COL`).
fn lines_left_unmeasured(said: &str) -> Vec<u64> {
    let lines: Vec<&str> = said.lines().collect();
    (lines.windows(2))
        .filter(|w| w[0].starts_with("note: this ") && w[0].ends_with(" is not measured"))
        .filter_map(|w| {
            let place = w[1].split("┌─ ").nth(1)?;
            place.rsplit(':').nth(1)?.parse().ok()
        })
        .collect()
}

/// The line table of `object`, compiled from pomp's output of the
/// preprocessed file `preprocessed`, names the user's `source` and never
/// `preprocessed`: the `#line` markers pomp writes name what the input's
/// markers name.
fn check_debug_lines(object: &Path, source: &Path, preprocessed: &Path) -> Result<(), String> {
    let output = Command::new("readelf")
        .arg("--debug-dump=decodedline")
        .arg(object)
        .output()
        .map_err(|e| format!("cannot run readelf: {e}"))?;
    let table = String::from_utf8_lossy(&output.stdout);
    // Rows are a file name, a line number and an address.
    let files: std::collections::BTreeSet<&str> = (table.lines())
        .filter_map(|row| {
            let mut columns = row.split_whitespace();
            let file = columns.next()?;
            columns.next()?.parse::<u64>().ok().map(|_| file)
        })
        .collect();
    let name = |path: &Path| path.file_name().unwrap().to_string_lossy().into_owned();
    if files.contains(name(preprocessed).as_str()) || !files.contains(name(source).as_str()) {
        return Err(format!(
            "the debug information names {files:?}, not {} alone",
            name(source)
        ));
    }
    Ok(())
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

/// The init function an IDF descriptor names; none when the file has no regions.
fn idf_document(idf_path: &Path) -> Result<serde_json::Value, String> {
    let text = fs::read_to_string(idf_path)
        .map_err(|e| format!("pomp wrote no IDF descriptor {}: {e}", idf_path.display()))?;
    serde_json::from_str(&text)
        .map_err(|e| format!("IDF descriptor {} is not JSON: {e}", idf_path.display()))
}

/// The registration functions an IDF descriptor names: its construct
/// regions' and its user regions'.
fn init_functions_of(idf: &serde_json::Value) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for key in ["init_function", "user_init_function"] {
        match idf.get(key) {
            Some(serde_json::Value::String(name)) => names.push(name.clone()),
            None | Some(serde_json::Value::Null) => {}
            Some(other) => return Err(format!("IDF {key} is not a string: {other}")),
        }
    }
    Ok(names)
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
    /// OPARI 1.1's library's convention.
    Pomp1,
    /// The 2002 proposal's spelling.
    Pomp1Paper,
}

impl Interface {
    /// The name the checking library starts its report lines with.
    fn check_library(self) -> &'static str {
        match self {
            Interface::Pomp2 => "pomp2_check",
            Interface::Pomp1 | Interface::Pomp1Paper => "pomp1_check",
        }
    }

    /// The value of pomp's `--interface`, which names trials too.
    fn name(self) -> &'static str {
        match self {
            Interface::Pomp2 => "pomp2",
            Interface::Pomp1 => "pomp1",
            Interface::Pomp1Paper => "pomp1-paper",
        }
    }
}

/// What a trial builds and runs the instrumented program against.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// pomp's checking library for the interface.
    Check(Interface),
    /// A measurement library nobody here wrote.
    Reference(reference::Way),
}

impl Target {
    /// The trial name's prefix (none for POMP2 against the checking library).
    fn prefix(self) -> Option<&'static str> {
        match self {
            Target::Check(Interface::Pomp2) => None,
            Target::Check(interface) => Some(interface.name()),
            Target::Reference(way) => Some(way.name()),
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
    pomp1_paper_check_object: PathBuf,
    hand_instrumented: PathBuf,
    reference: Result<reference::Support, String>,
}

impl Support {
    fn check_object(&self, interface: Interface) -> &Path {
        match interface {
            Interface::Pomp2 => &self.check_object,
            Interface::Pomp1 => &self.pomp1_check_object,
            Interface::Pomp1Paper => &self.pomp1_paper_check_object,
        }
    }
}

fn build_support(dir: &Path, root: &Path, toolchain: Toolchain) -> Result<Support, String> {
    let support = root.join("tests/support");
    let dir = dir.join(toolchain.name);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let compile = |name: &str, flags: &[&str], object: &str| -> Result<PathBuf, String> {
        let object = dir.join(object);
        let mut command = Command::new(&toolchain.c);
        command
            .args(COMPILE_FLAGS)
            .args(["-Wall", "-Werror", "-c"])
            .args(flags)
            .arg(support.join(name))
            .arg("-o")
            .arg(&object);
        build_step(command, &dir)?;
        Ok(object)
    };
    Ok(Support {
        check_object: compile("pomp2_check.c", &[], "pomp2_check.o")?,
        pomp1_check_object: compile("pomp1_check.c", &[], "pomp1_check.o")?,
        pomp1_paper_check_object: compile(
            "pomp1_check.c",
            &["-DPOMP1_PAPER"],
            "pomp1_paper_check.o",
        )?,
        hand_instrumented: support.join("hand_instrumented.c"),
        // The reference libraries are built with, and tried under, the
        // default toolchain only.
        reference: match toolchain.is_default() {
            true => reference::build_support(&dir, root),
            false => Err("tried under the default toolchain only".to_string()),
        },
        toolchain,
    })
}

/// Compiles and links an instrumented program: its objects, the
/// registration file the wrappers make for them, and the checking library.
fn link_checked(
    toolchain: &Toolchain,
    language: Language,
    objects: &[PathBuf],
    check_object: &Path,
    work: &Path,
    executable: &Path,
) -> Result<(), String> {
    let registration = work.join("pomp2_init_regions.c");
    let source = pomp_wrapper::registration_source(objects).map_err(|e| format!("{e:#}"))?;
    fs::write(&registration, source).map_err(|e| e.to_string())?;
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
    target: Target,
    /// Flags both the original and the instrumented file are compiled with.
    defines: Vec<String>,
    /// The original must also run the same without OpenMP.
    serial_too: bool,
    /// `--regions` to instrument with, as the file's first line asks.
    regions: Option<String>,
    /// pomp is fed the preprocessor's output rather than the source.
    preprocessed: bool,
}

impl CorpusFile {
    /// The `--regions` option the file asks for, if any.
    fn regions_option(&self) -> Option<String> {
        self.regions.as_ref().map(|r| format!("--regions={r}"))
    }
}

/// The settings a file's first line asks for, `None` for the usual one:
/// no flags, then each variant.
fn variants(path: &Path) -> Option<Vec<Vec<String>>> {
    let listed = corpus_clause(path, "variants")?;
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
    corpus_clause(path, "regions").map(|r| r.trim().to_string())
}

/// What follows `keyword` in the clause of a file's first line that
/// starts with it: `/* pomp-corpus: regions loops; variants -DA */`
/// (Fortran `! pomp-corpus: ...`) holds clauses `regions` and `variants`.
fn corpus_clause(path: &Path, keyword: &str) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let first = text.lines().next()?.trim();
    let clauses = (first.strip_prefix("/*"))
        .or_else(|| first.strip_prefix('!'))?
        .trim_end_matches("*/")
        .trim()
        .strip_prefix("pomp-corpus:")?;
    (clauses.split(';')).find_map(|c| c.trim().strip_prefix(keyword).map(str::to_string))
}

/// The original program built and run in a setting: the runs, or why the
/// compiler rejects it (the trial is then ignored).
enum Original {
    Ran(Vec<(&'static str, RunResult)>),
    Rejected(String),
}

/// Every trial of a program in a setting compares with the same original,
/// built and run once, by whichever of them comes first.
#[derive(Default)]
struct Originals(Mutex<HashMap<Setting, OriginalCell>>);

/// A program, the flags it is compiled with and the toolchain's index.
type Setting = (PathBuf, Vec<String>, usize);

/// One program's original in one setting, once made.
type OriginalCell = Arc<OnceLock<Result<Original, String>>>;

impl Originals {
    fn of(&self, file: &CorpusFile) -> OriginalCell {
        let key = (file.path.clone(), file.defines.clone(), file.toolchain);
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(key).or_default())
    }
}

fn corpus_trial(
    file: CorpusFile,
    supports: Arc<Vec<Result<Support, String>>>,
    originals: Arc<Originals>,
) -> Result<Completion, Failed> {
    let support = supports[file.toolchain]
        .as_ref()
        .map_err(|e| format!("checking library: {e}"))?;
    let original = originals.of(&file);
    let original = original.get_or_init(|| {
        let work = tempfile::Builder::new()
            .prefix("pomp-corpus-original-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        run_original(&file, support, work.path())
    });
    let original_runs = match original {
        Ok(Original::Ran(runs)) => runs,
        Ok(Original::Rejected(reason)) => return Ok(Completion::ignored_with(reason.clone())),
        Err(message) => return Err(message.clone().into()),
    };
    let work = tempfile::Builder::new()
        .prefix("pomp-corpus-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    match check_corpus_file(&file, support, work.path(), original_runs) {
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

/// Builds the original program as its author does and runs it in every
/// setting: it must pass its own checks and print the same each time (and
/// without OpenMP, where the file asks for that).
fn run_original(file: &CorpusFile, support: &Support, work: &Path) -> Result<Original, String> {
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
        return Ok(Original::Rejected(format!(
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
        original_runs.push((*label, run));
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
    Ok(Original::Ran(original_runs))
}

fn check_corpus_file(
    file: &CorpusFile,
    support: &Support,
    work: &Path,
    original_runs: &[(&'static str, RunResult)],
) -> Result<Completion, String> {
    match file.target {
        Target::Check(interface) => {
            check_with_library(file, interface, support, work, original_runs)
        }
        Target::Reference(way) => {
            let reference = (support.reference.as_ref())
                .map_err(|e| format!("the reference libraries: {e}"))?;
            reference::check(file, way, reference, work, original_runs)
        }
    }
}

/// The program instrumented for `interface`, linked with pomp's checking
/// library, runs as the original does, and the library finds its calls
/// well formed.
fn check_with_library(
    file: &CorpusFile,
    interface: Interface,
    support: &Support,
    work: &Path,
    original_runs: &[(&str, RunResult)],
) -> Result<Completion, String> {
    let compiler = file
        .language
        .compiler(&support.toolchain)
        .ok_or("the toolchain has no compiler for the language")?;
    let beside_copies = copy_siblings(&file.path, work)?;
    let source = match file.preprocessed {
        true => preprocess(file, &support.toolchain, &beside_copies)?,
        false => file.path.clone(),
    };
    let instrumented = beside_copies.join(instrumented_name(&source));
    let idf = work.join("idf.json");
    let mut options = vec!["--interface".to_string(), interface.name().to_string()];
    options.extend(file.regions_option());
    pomp_instrument(&source, &instrumented, &idf, &options)?;
    let object = work.join("instrumented.o");
    let mut command = Command::new(compiler);
    command
        .args(COMPILE_FLAGS)
        .args(&file.defines)
        .args(file.preprocessed.then_some("-g"))
        .arg("-c")
        .arg(&instrumented)
        .arg("-o")
        .arg(&object);
    build_step(command, work)
        .map_err(|e| format!("the instrumented file does not compile: {e}"))?;
    if file.preprocessed {
        check_debug_lines(&object, &file.path, &source)?;
    }
    let idf = idf_document(&idf)?;
    // The object defines the registration functions the IDF names.
    for name in init_functions_of(&idf)? {
        linkable_symbol(&object, &name)?;
    }
    if file.preprocessed {
        check_places(file, &idf, work)?;
    }
    let executable = work.join("instrumented");
    link_checked(
        &support.toolchain,
        file.language,
        &[object],
        support.check_object(interface),
        work,
        &executable,
    )?;

    let source =
        String::from_utf8_lossy(&fs::read(&file.path).map_err(|e| e.to_string())?).into_owned();
    let expects_events = match interface {
        Interface::Pomp2 => file.regions.is_some() || has_directives(&source, file.language),
        // Tasks and newer constructs have no events in the original interface.
        Interface::Pomp1 | Interface::Pomp1Paper => {
            idf["regions"].as_array().is_some_and(|r| !r.is_empty())
        }
    };
    let mut problems = String::new();
    for ((label, env), (_, original_run)) in RUNS.iter().zip(original_runs) {
        let (run, report) = run_checked(&executable, env, work, "instrumented", interface)?;
        let mut failures = differences(&run, original_run, "");
        if !report.ok() {
            failures.push("the checking library found violations".to_string());
        }
        if expects_events && report.number("events").unwrap_or(0) == 0 {
            failures.push("the file has directives, but no POMP2 event was seen".to_string());
        }
        if expects_events
            && interface == Interface::Pomp2
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

/// How a run of the instrumented program differs from the original's: how
/// it ended, and its standard output (`stdout_note` says what may write
/// there besides the program).
fn differences(run: &RunResult, original: &RunResult, stdout_note: &str) -> Vec<String> {
    let mut failures = Vec::new();
    if run.status.code() != original.status.code() {
        failures.push(format!(
            "the original ended with {}, the instrumented program with {}",
            original.describe_status(),
            run.describe_status()
        ));
    }
    if run.stdout != original.stdout {
        failures.push(format!(
            "stdout differs{stdout_note}:\n{}",
            diff(&original.stdout, &run.stdout, "original", "instrumented")
        ));
    }
    failures
}

/// An original that goes wrong as built: a fault of the corpus under gcc,
/// which every program is written for; under another toolchain a fault of
/// that compiler (clang 14 miscompiles some constructs), reported as an
/// ignored trial with what went wrong, since there is nothing to compare.
fn wrong_original(support: &Support, what: String) -> Result<Original, String> {
    if support.toolchain.is_default() {
        return Err(what);
    }
    let first = what
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches(':');
    Ok(Original::Rejected(format!(
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
                    for (toolchain, tools) in toolchains.iter().enumerate() {
                        if language.compiler(tools).is_none() {
                            continue;
                        }
                        // Under another toolchain, the interfaces pomp's own
                        // checking libraries check; the reference libraries
                        // and the proposal's spelling under the default one.
                        let interfaces: &[Interface] = match tools.is_default() {
                            true => &[Interface::Pomp1, Interface::Pomp1Paper, Interface::Pomp2],
                            false => &[Interface::Pomp1, Interface::Pomp2],
                        };
                        let checked = interfaces.iter().copied().map(Target::Check);
                        let references = (reference::Way::tried().into_iter())
                            .filter(|way| tools.is_default() && way.takes(language))
                            .map(Target::Reference);
                        for target in checked.chain(references) {
                            files.push(CorpusFile {
                                path: path.clone(),
                                toolchain,
                                language,
                                target,
                                defines: defines.clone(),
                                serial_too,
                                regions: regions_asked(&path),
                                preprocessed: false,
                            });
                        }
                        // Preprocessed, once per toolchain, as written.
                        if defines.is_empty() {
                            files.push(CorpusFile {
                                path: path.clone(),
                                toolchain,
                                language,
                                target: Target::Check(Interface::Pomp2),
                                defines: Vec::new(),
                                serial_too,
                                regions: regions_asked(&path),
                                preprocessed: true,
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
            f.preprocessed,
            f.target.prefix(),
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
    let originals = Arc::new(Originals::default());

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
        let name = match file.target.prefix() {
            None => name,
            Some(prefix) => format!("{prefix}/{name}"),
        };
        let name = match file.preprocessed {
            true => format!("preprocessed/{name}"),
            false => name,
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
        let originals = Arc::clone(&originals);
        trials.push(Trial::ignorable_test(name, move || {
            corpus_trial(file, supports, originals)
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
