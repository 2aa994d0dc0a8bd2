//! The `pomp` command. It only wires the library together; when invoked as
//! `pomp-cc`, `pomp-cxx` or `pomp-f90` it behaves as that compiler wrapper.

use clap::{Parser, Subcommand};
use pomp::instrument::{EventSet, Interface, Options};
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

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
    /// Create the pomp-cc, pomp-cxx and pomp-f90 wrappers (symlinks to this binary) in DIR.
    InstallWrappers { dir: PathBuf },
}

#[derive(clap::Args)]
struct InstrumentArgs {
    /// The source file to instrument; it is never modified.
    file: PathBuf,
    /// Where to write the instrumented source.
    #[arg(short, long)]
    output: PathBuf,
    /// Also write the IDF descriptor JSON of every region to this file.
    #[arg(long, value_name = "OUT.json")]
    idf: Option<PathBuf>,
    /// Leave these constructs uninstrumented: construct names (barrier,
    /// critical, ...) or groups (sync, task, locks, omp). Comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    disable: Vec<String>,
    /// Event set: `extended` adds events for constructs OPARI2 leaves alone;
    /// `opari2` emits only OPARI2's events, for libraries that know no more.
    #[arg(long = "pomp", value_enum, default_value_t = EventSet::Extended)]
    events: EventSet,
    /// Measurement interface the instrumented code calls: `pomp2` (OPARI2's,
    /// with registration at link time) or `pomp1`, the original 2002
    /// proposal's `POMP_*` calls with a static descriptor per region
    /// (tasks and newer constructs have no events there).
    #[arg(long, value_enum, default_value_t = Interface::Pomp2)]
    interface: Interface,
    /// Omit `#line` markers (diagnostics then point at the instrumented file).
    #[arg(long)]
    nosrc: bool,
    /// Keep `untied` tasks untied and call the Untied_task events
    /// (by default untied tasks are made tied, with a warning).
    #[arg(long)]
    keep_untied: bool,
    /// Treat a Fortran file as fixed form whatever its suffix.
    #[arg(long, conflicts_with = "free_form")]
    fixed_form: bool,
    /// Treat a Fortran file as free form whatever its suffix.
    #[arg(long)]
    free_form: bool,
    /// Source language, overriding the file suffix.
    #[arg(short = 'x', long, value_parser = ["c", "c++", "f77", "f95"])]
    language: Option<String>,
}

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().collect();
    let invoked_as = args
        .first()
        .and_then(|a| {
            std::path::Path::new(a)
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    if let Some(compiler) = pomp::wrapper::Compiler::from_wrapper_name(&invoked_as) {
        args.remove(0);
        return pomp::wrapper::run(compiler, args);
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Instrument(a) => instrument(a),
        Command::Cc { args } => pomp::wrapper::run(pomp::wrapper::Compiler::C, args),
        Command::Cxx { args } => pomp::wrapper::run(pomp::wrapper::Compiler::Cxx, args),
        Command::F90 { args } => pomp::wrapper::run(pomp::wrapper::Compiler::Fortran, args),
        Command::InstallWrappers { dir } => pomp::wrapper::install_wrappers_cli(&dir),
    }
}

fn instrument(a: InstrumentArgs) -> ExitCode {
    use pomp::source::Language;
    let language = match (a.fixed_form, a.free_form, a.language.as_deref()) {
        (true, _, _) | (_, _, Some("f77")) => Some(Language::FortranFixed),
        (_, true, _) | (_, _, Some("f95")) => Some(Language::FortranFree),
        (_, _, Some("c")) => Some(Language::C),
        (_, _, Some("c++")) => Some(Language::Cpp),
        _ => None,
    };
    let options = Options {
        disable: a
            .disable
            .into_iter()
            .map(|s| s.trim().to_lowercase())
            .collect::<BTreeSet<_>>(),
        events: a.events,
        interface: a.interface,
        no_line_markers: a.nosrc,
        keep_untied: a.keep_untied,
        language,
    };
    pomp::instrument::run_cli(&a.file, &a.output, a.idf.as_deref(), &options)
}
