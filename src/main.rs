//! The `pomp` command. It only wires the library together; when invoked as
//! `pomp-cc`, `pomp-cxx` or `pomp-f90` it behaves as that compiler wrapper.

use clap::{Parser, Subcommand};
use pomp::flags::Value;
use pomp::instrument::Options;
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
    #[command(flatten)]
    flags: InstrumentationFlags,
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
        Command::InstallWrappers { dir } => install_wrappers(&dir),
    }
}

fn install_wrappers(directory: &std::path::Path) -> ExitCode {
    match pomp::wrapper::install_wrappers(directory) {
        Ok(links) => {
            for link in links {
                println!("{}", link.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pomp: error: {error:#}");
            ExitCode::FAILURE
        }
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
        language,
        ..a.flags.0
    };
    pomp::instrument::run_cli(&a.file, &a.output, a.idf.as_deref(), &options)
}

/// The instrumentation options of `pomp instrument`, made from the one
/// table the wrappers read too ([`pomp::flags::INSTRUMENTATION`]).
struct InstrumentationFlags(Options);

impl clap::Args for InstrumentationFlags {
    fn augment_args(mut command: clap::Command) -> clap::Command {
        use clap::builder::PossibleValuesParser;
        use clap::{Arg, ArgAction};
        for flag in pomp::flags::INSTRUMENTATION {
            let arg = Arg::new(flag.name)
                .long(flag.name)
                .visible_aliases(flag.aliases)
                .help(flag.help);
            command = command.arg(match flag.value {
                Value::Switch => arg.action(ArgAction::SetTrue),
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

impl clap::FromArgMatches for InstrumentationFlags {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut options = Options::default();
        for flag in pomp::flags::INSTRUMENTATION {
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
        Ok(InstrumentationFlags(options))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}
