//! The `pomp` command. It only wires the library together; when invoked as
//! `pomp-cc`, `pomp-cxx` or `pomp-f90` it behaves as that compiler wrapper,
//! as `opari2` or `opari2-config` as those tools of OPARI2.

mod batch;
mod instrument;
mod lsp;
mod opari2;
mod preview;
mod report;
mod wrapper;

use clap::{Parser, Subcommand};
use pomp_cli::options::{Offered, Value};
use pomp_core::instrument::Options;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

mod allocator;

/// pomp allocates and frees many small strings and syntax-tree nodes per
/// directive; mimalloc serves those faster than the system allocator.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

#[derive(Parser)]
#[command(
    name = "pomp",
    version,
    about = "Make OpenMP programs observable: exact POMP2 instrumentation for C, C++ and Fortran",
    long_about = "pomp rewrites every OpenMP directive of a source file into code that calls the \
POMP2 measurement interface at each OpenMP event (fork, join, loop enter and exit, barriers, \
locks, tasks, ...). Blocks are found by parsing, not guessing: when a directive's block cannot \
be determined exactly, pomp says so and writes nothing.\n\n\
To instrument a whole build, use the compiler wrappers instead: `pomp-cc`, `pomp-cxx` and \
`pomp-f90` (or `pomp cc ...`) work wherever gcc, g++ and gfortran do.",
    after_help = "Examples:\n  pomp instrument stencil.c -o stencil.pomp.c --idf stencil.json\n  pomp cc -fopenmp -O2 app.c -o app && ./app"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Instrument one C, C++ or Fortran file.
    Instrument(InstrumentArgs),
    /// Compile and link C like gcc, instrumenting OpenMP sources (same as `pomp-cc`).
    #[command(disable_help_flag = true)]
    Cc {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Compile and link C++ like g++, instrumenting OpenMP sources (same as `pomp-cxx`).
    #[command(disable_help_flag = true)]
    Cxx {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Compile and link Fortran like gfortran, instrumenting OpenMP sources (same as `pomp-f90`).
    #[command(disable_help_flag = true)]
    F90 {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Instrument a whole source tree into a mirror that builds as the original does.
    #[command(long_about = BATCH_ABOUT, after_help = BATCH_EXAMPLES)]
    Batch(BatchArgs),
    /// Install pomp, pomp-cc, pomp-cxx, pomp-f90 and the runtime they link into DIR.
    #[command(long_about = INSTALL_ABOUT)]
    InstallWrappers {
        /// Where to install, e.g. ~/.local/bin (made if missing)
        dir: PathBuf,
        /// Also install `opari2` and `opari2-config`, which take OPARI2's command lines, and
        /// what an OPARI2 installation has around them: the POMP2 headers in DIR/../include
        /// and the CTC reader's sources in DIR/../share/opari2/devel. Score-P, TAU and builds
        /// written for OPARI2 then run pomp in its place; Score-P's configure --with-opari2=DIR
        /// builds its OpenMP adapter on it.
        #[arg(long)]
        opari2: bool,
    },
    /// Turn profiles into answers: where the time went and why, as tables and pictures.
    #[command(long_about = REPORT_ABOUT, after_help = REPORT_EXAMPLES)]
    Report(ReportArgs),
    /// Show what instrumentation does to a file: a diff, or its regions and their edits as JSON.
    #[command(after_help = PREVIEW_EXAMPLES)]
    Preview(PreviewArgs),
    /// Run the language server (LSP over standard input and output) for editors.
    Lsp,
    /// Watch a source tree and its mirror for `pomp batch --watch`.
    #[command(name = pomp_batch::watch::SUBCOMMAND, hide = true)]
    BatchWatcher { root: PathBuf, out: PathBuf },
    /// Write the registration file for the `nm` listing on standard input
    /// (what `opari2-config --region-initialization` names).
    #[command(name = opari2::REGIONS_SUBCOMMAND, hide = true, disable_help_flag = true)]
    Opari2Regions {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        ignored: Vec<OsString>,
    },
}

const PREVIEW_EXAMPLES: &str = "Examples:\n  \
pomp preview stencil.c\n  \
pomp preview stencil.c --line 42 --side-by-side\n  \
pomp preview solver.f90 --region 3 --format json";

#[derive(clap::Args)]
struct PreviewArgs {
    /// The source file to preview; nothing is written.
    file: PathBuf,
    /// Show the #line markers that keep compiler diagnostics on your lines (hidden by default).
    #[arg(long)]
    line_markers: bool,
    /// Show the original and the instrumented text in two columns.
    #[arg(long, conflicts_with = "format")]
    side_by_side: bool,
    /// Width of the side-by-side view (default: the terminal's, else 160).
    #[arg(long, value_name = "COLUMNS", requires = "side_by_side")]
    width: Option<usize>,
    /// Only the region numbered N (its number in the IDF).
    #[arg(long, value_name = "N", conflicts_with = "line")]
    region: Option<usize>,
    /// Only the innermost construct whose code holds line L.
    #[arg(long, value_name = "L")]
    line: Option<usize>,
    /// diff for people; json for the regions with their edits, for editor plugins.
    #[arg(long, value_name = "FORMAT", default_value = "diff")]
    format: PreviewFormat,
    #[command(flatten)]
    flags: InstrumentationFlags<Previewing>,
    #[command(flatten)]
    color: ColorFlag,
}

const REPORT_ABOUT: &str = "Reads the profiles an instrumented program writes at exit \
(pomp-profile.<pid>.json; of an MPI program, every rank's in the run's experiment directory, \
pomp-<date>_<time>_<job>) and answers where the time went and why.\n\n\
Times add up over threads: a region three threads spend 1 s in has 3 s inclusive time, and \
shares are of the run's thread time (wall time × threads). The report shows:\n\
  - regions by inclusive time: construct, enclosing function, file:line, visits, inclusive \
and exclusive time, share (--tree: the call paths instead);\n\
  - overhead classes after SCALEA: control of parallelism (fork, join, task creation), \
synchronisation (barriers, implicit barriers, taskwait, waiting for critical, ordered and \
locks), loss of parallelism (threads idle while serial code runs or outside a running team) \
and the rest, work; per region too, nested constructs included;\n\
  - load imbalance of each worksharing construct: every thread's work with its barrier \
waiting taken out, min, mean, max, and imbalance = (max − mean) / max, the share of the \
construct's time evenly shared work would save;\n\
  - tasks per construct, who created them, and with a trace (POMP_TRACE=1) a histogram of \
task durations.\n\n\
An experiment directory (or several profiles, one per MPI rank) is one run, read rank by rank \
so that tens of thousands of ranks fit in memory: figures are means over the ranks, in brackets \
the least and the greatest with the rank that had each (r3: rank 3); the report adds each \
region's imbalance over ranks, MPI's time by class and bytes (measured by the POMP MPI \
library), and each MPI routine summed over its call sites; --format json has every rank's \
values. Files of different runs are refused, naming both. \
--baseline compares with a reference run, usually on one thread: speed-up, and the total \
overhead T_p − T_1/p split into the classes above and what they leave unexplained. \
--diff compares two runs region by region; profiles from different builds are recognised \
by their region ids, said to differ, and matched by construct, function and file.\n\n\
The trace the runtime writes beside a profile (POMP_TRACE=1, a compact binary file, \
pomp-trace.<pid>.ptrace) is read when it is there: the HTML page draws its timelines. \
--chrome turns it into Chrome trace JSON for Perfetto or chrome://tracing, --otf2 into an OTF2 \
archive for Vampir and the OTF2 tools (through the OTF2 library, loaded when asked for): of a run \
of several ranks, one archive of every rank, each under its host, with MPI's messages and \
collectives, on rank 0's clock. Both take the profiles or the traces themselves. --cube writes \
the profiles as a CUBE4 archive for Cube: ranks under their hosts, threads as locations.";

const REPORT_EXAMPLES: &str = "Examples:\n  \
pomp report pomp-profile.4242.json\n  \
pomp report pomp-profile.4242.json --tree --top 0\n  \
pomp report run.json --html report.html --flamegraph flame.svg --speedscope run.speedscope.json\n  \
pomp report p4.json --baseline p1.json          # speed-up and overheads against one thread\n  \
pomp report pomp-20250314_093015_4242           # an MPI run's experiment: every rank\n  \
pomp report --diff before.json after.json --flamegraph diff.svg\n  \
pomp report run.json --idf build/ --format csv > regions.csv\n  \
pomp report pomp-20250314_093015_4242 --cube run.cubex  # Cube: call paths by rank and thread\n  \
pomp report pomp-20250314_093015_4242 --otf2 trace-otf2 # then: otf2-print trace-otf2/traces.otf2\n  \
pomp report pomp-trace.4242.ptrace --otf2 trace-otf2   # a trace alone\n  \
pomp report pomp-profile.4242.json --chrome trace.json  # Perfetto\n  \
pomp report pomp-profile.4242.json --suggest-filter=app.filter  # then: pomp-cc --pomp-filter=app.filter";

#[derive(clap::Args)]
struct ReportArgs {
    /// One run: a profile, an MPI run's experiment directory, or its ranks' profiles (or traces, to convert).
    #[arg(value_name = "PROFILE_OR_DIR", required_unless_present = "diff")]
    profiles: Vec<PathBuf>,
    /// Compare run A with run B region by region (with --flamegraph: a differential flame graph).
    #[arg(long, num_args = 2, value_names = ["A", "B"], conflicts_with_all = ["profiles", "baseline", "tree", "speedscope"])]
    diff: Option<Vec<PathBuf>>,
    /// A reference run of the same program, usually on one thread: speed-up and overheads against it.
    #[arg(long, value_name = "PROFILE")]
    baseline: Option<PathBuf>,
    /// IDF descriptors (pomp instrument --idf, or --pomp-keep) to join: a file, or a directory searched for them.
    #[arg(long, value_name = "FILE_OR_DIR")]
    idf: Vec<PathBuf>,
    /// Show the call-path tree, merged over threads, instead of the flat region table.
    #[arg(long)]
    tree: bool,
    /// Rows of the region table shown as text; 0 shows all.
    #[arg(long, value_name = "N", default_value_t = 25)]
    top: usize,
    /// text for people (the default, unless files are written: then only they are, and a report only when asked for by --format); json for everything, for tools; csv for the region table.
    #[arg(long, value_name = "FORMAT")]
    format: Option<ReportFormat>,
    /// Write a flame graph of the call paths (SVG, zoomable in a browser).
    #[arg(long, value_name = "OUT.svg")]
    flamegraph: Option<PathBuf>,
    /// Write one self-contained HTML page: tables, overhead chart, flame graph, timelines.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Write a speedscope document (speedscope.app): one profile per thread.
    #[arg(long, value_name = "OUT.json")]
    speedscope: Option<PathBuf>,
    /// Write the profiles as a CUBE4 archive (Cube, pycubexr): time and its waiting, control and MPI parts, visits, bytes, fork/join and idle time, per call path and thread, ranks as processes under their hosts.
    #[arg(long, value_name = "OUT.cubex")]
    cube: Option<PathBuf>,
    /// Write the run's trace (POMP_TRACE=1) as Chrome trace JSON (Perfetto, chrome://tracing). PROFILE may be the trace itself.
    #[arg(long, value_name = "OUT.json")]
    chrome: Option<PathBuf>,
    /// Write the run's traces (POMP_TRACE=1), every rank's, as one OTF2 archive in DIR (Vampir, otf2-print): ranks under their hosts, MPI's messages and collectives, one time line; needs the OTF2 library (Debian: libopen-trace-format2-10). The traces themselves may be named instead of the profiles.
    #[arg(long, value_name = "DIR")]
    otf2: Option<PathBuf>,
    /// Write a filter (Score-P's syntax, for --filter) leaving out the regions whose measurement costs most relative to their time, each with its visits, time per visit and estimated overhead; to FILE, or printed. No report is printed.
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, default_missing_value = "-", conflicts_with_all = ["diff", "tree"])]
    suggest_filter: Option<PathBuf>,
    /// With --suggest-filter: propose OpenMP constructs too (tiny tasks, say), not only user code (functions, loops, calls other than MPI). Without them the report loses their imbalance and synchronisation.
    #[arg(long, requires = "suggest_filter")]
    suggest_openmp: bool,
    #[command(flatten)]
    color: ColorFlag,
}

const INSTALL_ABOUT: &str = "Installs into DIR the pomp binary (a hard link where the file \
system allows, else a copy), pomp-cc, pomp-cxx and pomp-f90 as links to it, and the runtime \
archive the wrappers link (libpomp_runtime.a, made so that it defines nothing but the POMP2 \
interface). Nothing installed points into the build directory: `cargo clean` or a rebuild \
leaves it working; run install-wrappers again to install a newer build. When DIR is not on \
the PATH, it says so with the line to add to your shell's startup file.\n\n\
Example: pomp install-wrappers ~/.local/bin && pomp-cc -fopenmp -O2 app.c -o app";

const BATCH_ABOUT: &str = "Mirrors a source tree into OUT_DIR: every C, C++ and Fortran \
source with OpenMP directives is instrumented, every other file is hard-linked (copied across \
file systems), so the mirror builds as the original does, with the same build files. Headers \
are mirrored as written and their directives reported: instrumented, a header would define its \
registration in every unit that includes it.\n\n\
OUT_DIR/pomp_regions.c registers the regions of every instrumented unit through weak \
references, so every program built from any part of the tree links it; the run prints how. \
OUT_DIR/pomp-idf.json lists every region of the tree. With --compile-commands the build's \
compilation database says which files are compiled and in which language, and \
OUT_DIR/compile_commands.json runs the same commands on the instrumented files.\n\n\
Runs are incremental: a file whose content, options and pomp are unchanged is not read again, \
and the output of a deleted source is deleted; with --watch, a process watching the tree and \
the mirror tells a run when nothing changed, and the run then does not even walk the tree. A \
file that cannot be instrumented never stops the run; the exit status is 1 when some file \
failed.";

const BATCH_EXAMPLES: &str = "Examples:\n  \
pomp batch src --out /tmp/src-pomp\n  \
pomp batch --compile-commands build/compile_commands.json --out /tmp/pomp-tree --json report.json\n  \
pomp batch . --out ../mirror --exclude 'tests/**' --jobs 8 --on-error=fail\n  \
pomp batch src --out /tmp/src-pomp --watch    # later runs skip the walk when nothing changed";

#[derive(clap::Args)]
struct BatchArgs {
    /// The source tree (with --compile-commands, by default the directory holding every compiled file).
    #[arg(value_name = "SRC_DIR", required_unless_present_any = ["compile_commands", "stop_watcher"])]
    source: Option<PathBuf>,
    /// Where the mirror goes.
    #[arg(short, long, value_name = "OUT_DIR")]
    out: PathBuf,
    /// A compilation database: which files are compiled, their languages and flags.
    #[arg(long, value_name = "compile_commands.json")]
    compile_commands: Option<PathBuf>,
    /// Leave out files and directories matching GLOB (.gitignore syntax, from SRC_DIR); repeatable.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Mirror files that .gitignore, .ignore and .git/info/exclude leave out too.
    #[arg(long)]
    no_ignore: bool,
    /// Threads instrumenting at once (default: every core).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// What a file that cannot be instrumented becomes: its original, or nothing (so its build fails).
    #[arg(long, value_name = "WHAT", default_value = "original")]
    on_error: BatchOnError,
    /// Also write the summary and every file's outcome and diagnostics as JSON.
    #[arg(long, value_name = "REPORT.json")]
    json: Option<PathBuf>,
    /// Keep a process watching SRC_DIR and OUT_DIR (inotify), so that a run after which nothing changed neither walks nor reads the tree. It stops after an hour without a run, when either directory is deleted, or with --stop-watcher.
    #[arg(long, conflicts_with = "compile_commands")]
    watch: bool,
    /// Stop the watcher of OUT_DIR that --watch started, and do nothing else.
    #[arg(long, conflicts_with_all = ["watch", "source", "compile_commands", "json"])]
    stop_watcher: bool,
    #[command(flatten)]
    flags: InstrumentationFlags<Mirroring>,
}

#[derive(clap::Args)]
struct InstrumentArgs {
    /// The source file to instrument; it is never modified. It may be one
    /// the preprocessor wrote (`gcc -E`, `.i`, `.ii`, `gfortran -E -cpp`):
    /// its line markers then name the files and lines pomp reports, and
    /// the output is compiled as source the preprocessor reads (`.c`,
    /// `.cc`, `.F90`).
    file: PathBuf,
    /// Where to write the instrumented source; `-` for standard output.
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the IDF descriptor JSON of every region to this file.
    #[arg(long, value_name = "OUT.json")]
    idf: Option<PathBuf>,
    #[command(flatten)]
    flags: InstrumentationFlags<Instrumenting>,
    /// The compile flags of the file (-D, -U, -I, -include, -std, ...), as the compiler gets them: the clang front end reads the file with them.
    #[arg(last = true, value_name = "FLAGS")]
    compile_flags: Option<Vec<String>>,
}

/// `mi_option_destroy_on_exit`, by its place in `mi_option_e` of the
/// mimalloc that `libmimalloc-sys` 0.1.49 builds (the crate names only
/// some options). Above 1 it makes mimalloc leave all its work at exit to
/// the system.
const MIMALLOC_DESTROY_ON_EXIT: libmimalloc_sys::mi_option_t = 22;

/// `mi_option_arena_reserve` of the same enumeration: how much address
/// space mimalloc reserves at a time, in KiB.
const MIMALLOC_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// 64 MiB arenas instead of mimalloc's 1 GiB: on 4 MB sources the smaller
/// arenas took 14-19% fewer page faults and 13-17% less peak memory, at
/// the same speed; a larger need reserves further arenas.
const ARENA_RESERVE_KIB: std::ffi::c_long = 64 << 10;

/// Runs before anything is allocated (an ELF constructor): mimalloc
/// reserves its first arena at the first allocation, before `main`.
#[cfg(target_os = "linux")]
extern "C" fn set_arena_reserve() {
    // SAFETY: sets an option; nothing else runs yet.
    unsafe { libmimalloc_sys::mi_option_set(MIMALLOC_ARENA_RESERVE, ARENA_RESERVE_KIB) };
}

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static SET_ARENA_RESERVE: extern "C" fn() = set_arena_reserve;

// mimalloc 3's thread-local views of a heap, which `libmimalloc-sys`
// 0.1.49 does not declare. The header of the mimalloc it builds declares
// `mi_theap_set_default` but the library does not define it: what sets a
// thread's default is `_mi_theap_default_set`, with the same signature.
unsafe extern "C" {
    fn mi_heap_theap(heap: *mut libmimalloc_sys::mi_heap_t) -> *mut std::ffi::c_void;
    #[link_name = "_mi_theap_default_set"]
    fn mi_theap_set_default(theap: *mut std::ffi::c_void);
    fn mi_heap_main() -> *mut libmimalloc_sys::mi_heap_t;
}

/// [`pomp_core::source::Apart::begin`]: this thread allocates from a new
/// heap.
fn heap_apart() -> usize {
    // SAFETY: a new heap, made this thread's default; every block of it
    // is still freed by `mi_free`, whatever heap is the default then.
    unsafe {
        let heap = libmimalloc_sys::mi_heap_new();
        mi_theap_set_default(mi_heap_theap(heap));
        heap as usize
    }
}

/// [`pomp_core::source::Apart::resume`]: this thread allocates from the
/// main heap again.
fn usual_heap() {
    // SAFETY: the main heap outlives every thread.
    unsafe {
        mi_theap_set_default(mi_heap_theap(mi_heap_main()));
    }
}

/// [`pomp_core::source::Apart::release`]: the heap goes, its pages, with
/// what lives in them, joining the main heap.
fn release_heap(heap: usize) {
    // SAFETY: `heap` came from `heap_apart` and is no thread's default.
    unsafe { libmimalloc_sys::mi_heap_delete(heap as *mut libmimalloc_sys::mi_heap_t) }
}

fn main() -> ExitCode {
    use libmimalloc_sys::{mi_calloc, mi_free, mi_malloc, mi_option_set, mi_realloc};
    // SAFETY: no syntax tree exists yet, so every tree is made and freed
    // by the same allocator. The option is read only when the process ends.
    unsafe {
        pomp_grammars::set_allocator(
            Some(mi_malloc),
            Some(mi_calloc),
            Some(mi_realloc),
            Some(mi_free),
        );
        // At exit mimalloc would return every page to the system one
        // `madvise` at a time, 3% of a run on a dense 4 MB file; the
        // system takes the whole address space back at once anyway.
        mi_option_set(MIMALLOC_DESTROY_ON_EXIT, 2);
    }
    // mimalloc gives freed pages back to the system only a second later,
    // and takes fresh ones meanwhile: once a large file is read, and once
    // its constructs are written, what was freed goes back at once (7 MB
    // and 0.5 MB off the peak on dense C).
    // SAFETY: collecting is always allowed; it frees nothing in use.
    pomp_core::source::when_much_is_freed(|| unsafe { libmimalloc_sys::mi_collect(true) });
    pomp_core::source::when_read_apart(pomp_core::source::Apart {
        begin: heap_apart,
        resume: usual_heap,
        release: release_heap,
    });
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let invoked_as = args
        .first()
        .and_then(|a| {
            std::path::Path::new(a)
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    if let Some(compiler) = pomp_wrapper::Compiler::from_wrapper_name(&invoked_as) {
        args.remove(0);
        return wrapper::run(compiler, args);
    }
    match invoked_as.as_str() {
        "opari2" => return opari2::run(args.split_off(1)),
        "opari2-config" => return opari2::config(args.split_off(1)),
        _ => {}
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Instrument(a) => instrument(a),
        Command::Cc { args } => wrapper::run(pomp_wrapper::Compiler::C, args),
        Command::Cxx { args } => wrapper::run(pomp_wrapper::Compiler::Cxx, args),
        Command::F90 { args } => wrapper::run(pomp_wrapper::Compiler::Fortran, args),
        Command::Batch(a) => batch(a),
        Command::InstallWrappers { dir, opari2 } => install_wrappers(&dir, opari2),
        Command::Report(a) => report(a),
        Command::Preview(a) => preview(a),
        Command::Lsp => lsp::run(),
        Command::Opari2Regions { .. } => opari2::regions(),
        Command::BatchWatcher { root, out } => batch::watcher(&root, &out),
    }
}

fn batch(a: BatchArgs) -> ExitCode {
    if a.stop_watcher {
        return match pomp_batch::watch::stop(&a.out) {
            Ok(stopped) => {
                if !stopped {
                    println!("pomp batch: no watcher of {} was running", a.out.display());
                }
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("pomp batch: error: {error:#}");
                ExitCode::from(2)
            }
        };
    }
    let mut config = pomp_batch::Config::new(a.source, a.out);
    if a.watch {
        match std::env::current_exe() {
            Ok(program) => config.watch = Some(program),
            Err(error) => {
                eprintln!(
                    "pomp batch: error: cannot find pomp's own program to watch with: {error}"
                );
                return ExitCode::from(2);
            }
        }
    }
    config.compile_commands = a.compile_commands;
    config.options = a.flags.0;
    config.exclude = a.exclude;
    config.ignore_files = !a.no_ignore;
    config.jobs = a.jobs.map(usize::from);
    config.on_error = match a.on_error {
        BatchOnError::Fail => pomp_batch::OnError::Fail,
        BatchOnError::Original => pomp_batch::OnError::Original,
    };
    batch::run_cli(&config, a.json.as_deref())
}

fn install_wrappers(directory: &std::path::Path, opari2: bool) -> ExitCode {
    match pomp_wrapper::install_wrappers(directory, opari2) {
        Ok(installed) => {
            for file in &installed.files {
                println!("{}", file.display());
            }
            if let Some(why) = &installed.runtime_missing {
                eprintln!(
                    "pomp: warning: the runtime was not installed ({why}); the wrappers link it \
                     once `pomp install-wrappers` runs again after it is built"
                );
            }
            if let Some((startup_file, line)) = pomp_wrapper::path_advice(directory) {
                eprintln!(
                    "pomp: {} is not on your PATH; to run pomp and its wrappers by name, add \
                     this line to {startup_file} and open a new shell:\n    {line}",
                    directory.display()
                );
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pomp: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn report(a: ReportArgs) -> ExitCode {
    let options = pomp_report::Options {
        profiles: a.profiles,
        diff: a.diff.map(|pair| (pair[0].clone(), pair[1].clone())),
        baseline: a.baseline,
        idf: a.idf,
        tree: a.tree,
        top: a.top,
        format: a.format.map(|format| match format {
            ReportFormat::Text => pomp_report::Format::Text,
            ReportFormat::Json => pomp_report::Format::Json,
            ReportFormat::Csv => pomp_report::Format::Csv,
        }),
        flamegraph: a.flamegraph,
        html: a.html,
        speedscope: a.speedscope,
        cube: a.cube,
        chrome: a.chrome,
        otf2: a.otf2,
        suggest_filter: a.suggest_filter,
        suggest: if a.suggest_openmp {
            pomp_report::suggest::Proposed::WithOpenMp
        } else {
            pomp_report::suggest::Proposed::UserCode
        },
    };
    report::run(&options, a.color.choice())
}

fn preview(a: PreviewArgs) -> ExitCode {
    use pomp_preview::{Format, Layout, Selection};
    let layout = match a.side_by_side {
        true => Layout::SideBySide {
            width: a.width.unwrap_or_else(preview::terminal_width),
        },
        false => Layout::Unified,
    };
    let options = pomp_preview::Options {
        instrument: a.flags.0,
        line_markers: a.line_markers,
        selection: match (a.region, a.line) {
            (Some(n), _) => Selection::Region(n),
            (_, Some(l)) => Selection::Line(l),
            _ => Selection::All,
        },
        format: match a.format {
            PreviewFormat::Json => Format::Json,
            PreviewFormat::Diff => Format::Diff(layout),
        },
    };
    preview::run(&a.file, &options, a.color.choice())
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum PreviewFormat {
    Diff,
    Json,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Text,
    Json,
    Csv,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BatchOnError {
    Original,
    Fail,
}

/// `--color`, for every command that colours what it prints.
#[derive(clap::Args)]
struct ColorFlag {
    /// Colour the output: auto colours on a terminal only (and honours NO_COLOR).
    #[arg(long = "color", value_name = "WHEN", default_value = "auto")]
    when: ColorWhen,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

impl ColorFlag {
    fn choice(&self) -> anstream::ColorChoice {
        match self.when {
            ColorWhen::Always => anstream::ColorChoice::Always,
            ColorWhen::Never => anstream::ColorChoice::Never,
            ColorWhen::Auto => anstream::ColorChoice::Auto,
        }
    }
}

fn instrument(a: InstrumentArgs) -> ExitCode {
    let mut options = a.flags.0;
    options.front_end.compile_flags = a
        .compile_flags
        .map(|flags| pomp_cmdline::compile_flags(&flags, None));
    instrument::run(&a.file, &a.output, a.idf.as_deref(), &options)
}

/// The tools of this program that offer instrumentation options.
trait Tool {
    fn offers(offered: &Offered) -> bool;
}

struct Instrumenting;
impl Tool for Instrumenting {
    fn offers(offered: &Offered) -> bool {
        offered.instrument
    }
}

struct Previewing;
impl Tool for Previewing {
    fn offers(offered: &Offered) -> bool {
        offered.preview
    }
}

struct Mirroring;
impl Tool for Mirroring {
    fn offers(offered: &Offered) -> bool {
        offered.batch
    }
}

/// The instrumentation options a tool offers, made from the one table the
/// wrappers and the language server read too
/// ([`pomp_cli::options::INSTRUMENTATION`]).
struct InstrumentationFlags<T: Tool>(Options, std::marker::PhantomData<T>);

impl<T: Tool> InstrumentationFlags<T> {
    fn flags() -> impl Iterator<Item = &'static pomp_cli::options::Flag<Options>> {
        pomp_cli::options::INSTRUMENTATION
            .iter()
            .filter(|flag| T::offers(&flag.offered))
    }
}

impl<T: Tool> clap::Args for InstrumentationFlags<T> {
    fn augment_args(mut command: clap::Command) -> clap::Command {
        use clap::builder::PossibleValuesParser;
        use clap::{Arg, ArgAction};
        for flag in Self::flags() {
            let mut arg = Arg::new(flag.name)
                .long(flag.name)
                .visible_aliases(flag.aliases)
                .help(flag.help);
            if let Some(short) = flag.short {
                arg = arg.short(short);
            }
            command = command.arg(match flag.value {
                Value::Switch => arg.action(ArgAction::SetTrue),
                Value::Choice {
                    placeholder,
                    choices,
                    default: "",
                } => arg
                    .value_name(placeholder)
                    .value_parser(PossibleValuesParser::new(choices)),
                Value::Choice {
                    placeholder,
                    choices,
                    default,
                } => arg
                    .value_name(placeholder)
                    .value_parser(PossibleValuesParser::new(choices))
                    .default_value(default),
                Value::Text { placeholder } => arg.value_name(placeholder),
                Value::List { placeholder } => arg
                    .value_name(placeholder)
                    .action(ArgAction::Append)
                    .value_delimiter(','),
            });
        }
        command
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl<T: Tool> clap::FromArgMatches for InstrumentationFlags<T> {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut options = Options::default();
        for flag in Self::flags() {
            let values: Vec<Option<&str>> = match flag.value {
                Value::Switch => match matches.get_flag(flag.name) {
                    true => vec![None],
                    false => vec![],
                },
                _ => matches
                    .get_many::<String>(flag.name)
                    .into_iter()
                    .flatten()
                    .map(|v| Some(v.as_str()))
                    .collect(),
            };
            for value in values {
                flag.set(&mut options, value).map_err(|message| {
                    clap::Error::raw(
                        clap::error::ErrorKind::InvalidValue,
                        format!("--{}: {message}\n", flag.name),
                    )
                })?;
            }
        }
        Ok(InstrumentationFlags(options, std::marker::PhantomData))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}
