//! The corpus against measurement libraries nobody here wrote: OPARI2's
//! `libpomp.a` (Debian's `libpomp2-dev`, whose CTC parser is the one
//! Score-P's adapter uses) and OPARI 1.1's (`libpomp-dev`, unpacked by
//! scripts/setup). Each program, built each way, must run as the original
//! does, the library must print its events (it traces to standard error),
//! and the library's CTC parser must print nothing: it writes its
//! complaints to standard output, which must equal the original's, and
//! ends the program on errors, which must end as the original does.

use super::{
    build_step, copy_siblings, differences, has_directives, idf_document, instrumented_name,
    pomp_instrument, run_with_timeout, CorpusFile, Language, RunResult, Toolchain, COMPILE_FLAGS,
    RUNS,
};
use libtest_mimic::Completion;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// OPARI2's library and its registration tool, where Debian installs them.
const OPARI2_LIBRARY: &str = "/usr/lib/libpomp.a";
const OPARI2_CONFIG: &str = "/usr/bin/opari2-config";
/// Where scripts/setup unpacks OPARI 1.1 (`POMP_OPARI1_ROOT` elsewhere).
const OPARI1_ROOT_VARIABLE: &str = "POMP_OPARI1_ROOT";
const OPARI1_LIBRARY: &str = "usr/lib/x86_64-linux-gnu/libpomp.a";
const OPARI1_TOOL: &str = "usr/bin/opari";
const OPARI1_INCLUDE: &str = "usr/include";
/// Set to also build the corpus with the original instrumenters.
const ORIGINALS_VARIABLE: &str = "POMP_CORPUS_ORIGINALS";

/// How a program is built against a reference library.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Way {
    /// `pomp instrument --pomp=opari2`, registered by OPARI2's own step
    /// (`opari2-config --nm` | `opari2-config --region-initialization`),
    /// linked with OPARI2's library.
    Opari2Registration,
    /// Default settings, through the wrappers, `--pomp-runtime=` OPARI2's
    /// library.
    Opari2Wrappers,
    /// pomp's `opari2` and `opari2-config`, driven as OPARI2's
    /// documentation describes a build, linked with OPARI2's library.
    Opari2Shims,
    /// `--pomp-interface=pomp1` through the wrappers, `--pomp-runtime=`
    /// OPARI 1.1's library.
    Opari1,
    /// OPARI2 itself in pomp's place, driven as for [`Way::Opari2Shims`]:
    /// what pomp is measured against (scripts/measure-reference).
    Opari2Itself,
    /// OPARI 1.1 itself, with the runtime table its `-table` option
    /// writes, linked with its library.
    Opari1Itself,
}

impl Way {
    /// The ways pomp is built.
    pub const ALL: [Way; 4] = [
        Way::Opari2Registration,
        Way::Opari2Wrappers,
        Way::Opari2Shims,
        Way::Opari1,
    ];

    /// The original instrumenters, built only when `POMP_CORPUS_ORIGINALS`
    /// is set: a program they cannot instrument or compile is ignored, and
    /// the others must pass as pomp's do.
    pub const ORIGINALS: [Way; 2] = [Way::Opari2Itself, Way::Opari1Itself];

    /// The ways a corpus run tries: pomp's, and the originals' when asked.
    pub fn tried() -> Vec<Way> {
        let originals = std::env::var_os(ORIGINALS_VARIABLE).is_some_and(|v| !v.is_empty());
        let mut ways = Way::ALL.to_vec();
        if originals {
            ways.extend(Way::ORIGINALS);
        }
        ways
    }

    /// OPARI 1.1's library has C and Fortran entry points only.
    pub fn takes(self, language: Language) -> bool {
        !matches!(self, Way::Opari1 | Way::Opari1Itself) || language != Language::Cxx
    }

    pub fn name(self) -> &'static str {
        match self {
            Way::Opari2Registration => "opari2-registration",
            Way::Opari2Wrappers => "opari2-wrappers",
            Way::Opari2Shims => "opari2-shims",
            Way::Opari1 => "opari1",
            Way::Opari2Itself => "opari2-itself",
            Way::Opari1Itself => "opari1-itself",
        }
    }
}

/// What every reference trial shares: the libraries, pomp's wrappers and
/// shims installed once, and the object that turns OPARI 1.1's tracing on.
pub struct Support {
    wrappers: PathBuf,
    opari1_root: PathBuf,
    opari1_library: PathBuf,
    opari1_tracing: PathBuf,
}

/// Finds the reference libraries and installs pomp's wrappers (with the
/// OPARI2 shims) into `dir`.
pub fn build_support(dir: &Path, root: &Path) -> Result<Support, String> {
    for needed in [OPARI2_LIBRARY, OPARI2_CONFIG] {
        if !Path::new(needed).is_file() {
            return Err(format!(
                "{needed} is missing: scripts/setup installs opari2 and libpomp2-dev"
            ));
        }
    }
    let opari1_root = std::env::var_os(OPARI1_ROOT_VARIABLE)
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/reference/opari-1.1"));
    let opari1_library = opari1_root.join(OPARI1_LIBRARY);
    if !opari1_library.is_file() {
        return Err(format!(
            "{} is missing: scripts/setup unpacks opari and libpomp-dev (OPARI 1.1) there, or \
             {OPARI1_ROOT_VARIABLE} names where they are",
            opari1_library.display()
        ));
    }
    let wrappers = dir.join("bin");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pomp"));
    command
        .args(["install-wrappers", "--opari2"])
        .arg(&wrappers);
    build_step(command, dir)?;
    let opari1_tracing = dir.join("opari1_tracing.o");
    let mut command = Command::new("gcc");
    command
        .args(["-Wall", "-Werror", "-c"])
        .arg(root.join("tests/support/opari1_tracing.c"))
        .arg("-o")
        .arg(&opari1_tracing);
    build_step(command, dir)?;
    Ok(Support {
        wrappers,
        opari1_root,
        opari1_library,
        opari1_tracing,
    })
}

impl Language {
    /// pomp's wrapper for the language.
    fn wrapper(self) -> &'static str {
        match self {
            Language::C => "pomp-cc",
            Language::Cxx => "pomp-cxx",
            Language::Fortran => "pomp-f90",
        }
    }
}

/// Builds `file` the way named and checks its runs against the original's.
pub fn check(
    file: &CorpusFile,
    way: Way,
    support: &Support,
    work: &Path,
    original_runs: &[(&str, RunResult)],
) -> Result<Completion, String> {
    let copies = copy_siblings(&file.path, work)?;
    let source = copies.join(file.path.file_name().expect("a file"));
    let executable = work.join("instrumented");
    match way {
        Way::Opari2Registration => opari2_registration(file, &source, work, &executable)?,
        Way::Opari2Wrappers => wrappers(file, way, support, &source, &copies, &executable)?,
        Way::Opari2Shims => shims(file, Some(support), &source, &copies, &executable)?,
        Way::Opari1 => wrappers(file, way, support, &source, &copies, &executable)?,
        // What the original cannot build is no failure of the program's.
        Way::Opari2Itself => {
            if let Err(reason) = shims(file, None, &source, &copies, &executable) {
                return Ok(cannot_build("OPARI2", &reason));
            }
        }
        Way::Opari1Itself => {
            if let Err(reason) = opari1_itself(file, support, &source, &copies, &executable) {
                return Ok(cannot_build("OPARI 1.1", &reason));
            }
        }
    }
    let expects_events = expects_events(file, way, work)?;
    let mut problems = String::new();
    for ((label, env), (_, original)) in RUNS.iter().zip(original_runs) {
        let mut command = Command::new(&executable);
        command.current_dir(work).envs(env.iter().copied());
        let run = run_with_timeout(command, work, "instrumented")?;
        let failures = judge(&run, original, expects_events);
        if !failures.is_empty() {
            let tail: Vec<&str> = run.stderr.lines().rev().take(20).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            writeln!(
                problems,
                "── {label} ──\n{}\n── the end of its standard error ──\n{}",
                failures.join("\n"),
                tail.join("\n")
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

/// What is wrong with a run of the program beside the original's.
fn judge(run: &RunResult, original: &RunResult, expects_events: bool) -> Vec<String> {
    let mut failures = differences(run, original, " (the CTC parser writes there)");
    let complaints = [
        "Token \"",
        "Error parsing ctc string",
        "Aborting",
        "Assertion",
    ];
    if let Some(complaint) = (run.stderr.lines())
        .chain(run.stdout.lines())
        .find(|line| complaints.iter().any(|c| line.contains(c)))
    {
        failures.push(format!("the library complained: {complaint}"));
    }
    if expects_events && !run.stderr.lines().any(is_event) {
        failures.push("the program has regions, but the library printed no event".into());
    }
    failures
}

/// A line the libraries trace an event with: `  3: enter for`, not the
/// `init` and `finalize` of the library itself.
fn is_event(line: &str) -> bool {
    let Some((thread, event)) = line.trim_start().split_once(": ") else {
        return false;
    };
    thread.parse::<u32>().is_ok() && !matches!(event.trim(), "init" | "finalize")
}

/// Whether the library must see events: pomp measures regions of the file
/// with OPARI2's events (what OPARI2's library defines), or in the
/// original interface.
fn expects_events(file: &CorpusFile, way: Way, work: &Path) -> Result<bool, String> {
    let idf = work.join("expected.idf.json");
    let mode = match way {
        Way::Opari1 | Way::Opari1Itself => ["--interface", "pomp1"],
        Way::Opari2Registration | Way::Opari2Wrappers | Way::Opari2Shims | Way::Opari2Itself => {
            ["--pomp", "opari2"]
        }
    };
    let mode = mode.map(String::from);
    pomp_instrument(&file.path, &work.join("expected.out"), &idf, &mode)?;
    let regions = idf_document(&idf)?["regions"]
        .as_array()
        .is_some_and(|r| !r.is_empty());
    let source = fs::read_to_string(&file.path).map_err(|e| e.to_string())?;
    Ok(regions && has_directives(&source, file.language))
}

/// `--pomp=opari2` output, OPARI2's registration step, OPARI2's library.
fn opari2_registration(
    file: &CorpusFile,
    source: &Path,
    work: &Path,
    executable: &Path,
) -> Result<(), String> {
    let instrumented = source.with_file_name(instrumented_name(&file.path));
    let mut command = Command::new(env!("CARGO_BIN_EXE_pomp"));
    command
        .arg("instrument")
        .arg(source)
        .arg("-o")
        .arg(&instrumented)
        .args(["--pomp", "opari2"]);
    build_step(command, work)?;
    let object = work.join("instrumented.o");
    let mut command = Command::new(gnu_compiler(file.language));
    command
        .args(COMPILE_FLAGS)
        .args(&file.defines)
        .arg("-c")
        .arg(&instrumented)
        .arg("-o")
        .arg(&object);
    build_step(command, work)?;
    let script = format!(
        "`{OPARI2_CONFIG} --nm` instrumented.o | `{OPARI2_CONFIG} --region-initialization` \
         > pomp2_init_regions.c && gcc -c pomp2_init_regions.c && {} {} instrumented.o \
         pomp2_init_regions.o {OPARI2_LIBRARY} {} -o {}",
        gnu_compiler(file.language),
        COMPILE_FLAGS.join(" "),
        file.language.link_libraries().join(" "),
        executable.display()
    );
    build_step(shell(&script), work)
}

/// The wrappers, default settings, with OPARI2's or OPARI 1.1's library.
fn wrappers(
    file: &CorpusFile,
    way: Way,
    support: &Support,
    source: &Path,
    copies: &Path,
    executable: &Path,
) -> Result<(), String> {
    let mut command = Command::new(support.wrappers.join(file.language.wrapper()));
    match way {
        Way::Opari1 => {
            command
                .arg("--pomp-interface=pomp1")
                .arg(format!(
                    "--pomp-runtime={}",
                    support.opari1_library.display()
                ))
                .arg(&support.opari1_tracing);
        }
        _ => {
            command.arg(format!("--pomp-runtime={OPARI2_LIBRARY}"));
        }
    }
    command
        .args(COMPILE_FLAGS)
        .args(&file.defines)
        .arg(source)
        .args(file.language.link_libraries())
        .arg("-o")
        .arg(executable);
    build_step(command, copies)
}

/// pomp's `opari2` and `opari2-config`, first on the PATH (or without
/// `support`, OPARI2's own), used as OPARI2's user guide lays out a
/// build: opari2 on each file, compile the `*.mod.*` files,
/// `opari2-config --nm` OBJECTS | `opari2-config --region-initialization`
/// > pomp2_init_file.c, link with the library.
fn shims(
    file: &CorpusFile,
    support: Option<&Support>,
    source: &Path,
    copies: &Path,
    executable: &Path,
) -> Result<(), String> {
    let name = source.file_name().expect("a file").to_string_lossy();
    let (stem, suffix) = name.rsplit_once('.').expect("a suffix");
    let modified_suffix = match file.language {
        Language::Fortran => suffix.to_uppercase(),
        Language::C | Language::Cxx => suffix.to_string(),
    };
    let compiler = gnu_compiler(file.language);
    let flags = format!("{} {}", COMPILE_FLAGS.join(" "), file.defines.join(" "));
    let script = format!(
        "set -e\n\
         opari2 {name}\n\
         {compiler} {flags} `opari2-config --cflags` -c {stem}.mod.{modified_suffix} -o {stem}.mod.o\n\
         `opari2-config --nm` {stem}.mod.o | `opari2-config --region-initialization` > pomp2_init_file.c\n\
         gcc `opari2-config --cflags` -c pomp2_init_file.c\n\
         {compiler} {flags} {stem}.mod.o pomp2_init_file.o {OPARI2_LIBRARY} {} -o {}\n",
        file.language.link_libraries().join(" "),
        executable.display()
    );
    let mut command = shell(&script);
    if let Some(support) = support {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut searched = vec![support.wrappers.clone()];
        searched.extend(std::env::split_paths(&path));
        command.env(
            "PATH",
            std::env::join_paths(searched).map_err(|e| e.to_string())?,
        );
    }
    build_step(command, copies)
}

/// OPARI 1.1 as its manual lays out a build: `opari -table opari.tab.c`
/// on the (last) file writes `*.mod.*` and the runtime table; both are
/// compiled against its header and linked with its library.
fn opari1_itself(
    file: &CorpusFile,
    support: &Support,
    source: &Path,
    copies: &Path,
    executable: &Path,
) -> Result<(), String> {
    let name = source.file_name().expect("a file").to_string_lossy();
    let (stem, _) = name.rsplit_once('.').expect("a suffix");
    let compiler = gnu_compiler(file.language);
    let flags = format!("{} {}", COMPILE_FLAGS.join(" "), file.defines.join(" "));
    let include = support.opari1_root.join(OPARI1_INCLUDE);
    let script = format!(
        "set -e\n\
         {tool} -table opari.tab.c {name}\n\
         {compiler} {flags} -I{include} -c {stem}.mod.* -o {stem}.mod.o\n\
         gcc -I{include} -c opari.tab.c\n\
         {compiler} {flags} {stem}.mod.o opari.tab.o {tracing} {library} {libraries} -o {executable}\n",
        tool = support.opari1_root.join(OPARI1_TOOL).display(),
        include = include.display(),
        tracing = support.opari1_tracing.display(),
        library = support.opari1_library.display(),
        libraries = file.language.link_libraries().join(" "),
        executable = executable.display()
    );
    build_step(shell(&script), copies)
}

/// The trial's outcome when the original instrumenter cannot build the
/// program: ignored, with the first line of what went wrong.
fn cannot_build(tool: &str, reason: &str) -> Completion {
    // The first line names the command; what the tools said follows.
    let detail = (reason.lines().skip(1))
        .find(|line| line.to_ascii_lowercase().contains("error"))
        .unwrap_or("the build failed");
    Completion::Ignored {
        reason: Some(format!("{tool} cannot build it: {}", detail.trim())),
    }
}

fn shell(script: &str) -> Command {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script);
    command
}

/// The language's compiler of the GNU toolchain, which the reference
/// libraries are built with and tried under.
fn gnu_compiler(language: Language) -> String {
    let gnu = Toolchain::gnu();
    let compiler = language.compiler(&gnu).expect("gcc, g++ and gfortran");
    compiler.to_string()
}
