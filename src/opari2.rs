//! `opari2` and `opari2-config` as pomp: OPARI2 2.0.7's command lines, as
//! its `--help`, its man page and its user guide document them, so that
//! Score-P, TAU and build systems written for OPARI2 call pomp in its
//! place. What `opari2` writes is pomp's output restricted to OPARI2's
//! events and structure (`--pomp=opari2`); `opari2-config` names the
//! commands that register the regions at link time.

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use pomp_core::instrument::{instrument_source, Options};
use pomp_core::language::Language;
use pomp_core::rules::{EventSet, UNTIED_MADE_TIED};
use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The OPARI2 release whose command line these accept.
const OPARI2_VERSION: &str = "2.0.7";
/// The POMP2 interface version instrumented files conform to, as OPARI2
/// 2.0.7 reports it (`current:revision:age`).
const POMP2_INTERFACE_VERSION: &str = "3:0:0";
/// pomp's hidden subcommand that turns an `nm` listing into the
/// registration file.
pub const REGIONS_SUBCOMMAND: &str = "__opari2-regions";

#[derive(Parser)]
#[command(
    name = "opari2",
    disable_version_flag = true,
    override_usage = "opari2 [OPTION]... INFILE [OUTFILE]",
    about = "Instrument an OpenMP source file for the POMP2 interface, as OPARI2 does (pomp, \
             restricted to OPARI2's events).",
    long_about = "Instrument an OpenMP source file for the POMP2 interface, as OPARI2 2.0.7 \
                  does: this is pomp, which parses the file exactly and writes only the events, \
                  structure and CTC strings OPARI2 writes. The output needs no header besides \
                  itself. Register the regions of the compiled objects at link time with \
                  `opari2-config --nm` OBJECTS | `opari2-config --region-initialization` > \
                  pomp2_init_regions.c, then link a POMP2 library.",
    after_help = "The options -f70, -f90, -c, -c++, -disable LIST, -rcfile FILE and -table FILE \
                  of the original OPARI's manual page are accepted too. Exit status: 0 when the \
                  file was written, 1 otherwise (nothing is written then)."
)]
struct Opari2Args {
    /// The input is Fortran 77 (fixed form).
    #[arg(long = "f77", overrides_with_all = ["f90", "c", "cxx"])]
    f77: bool,
    /// The input is Fortran 90 or later (free form).
    #[arg(long = "f90", overrides_with_all = ["f77", "c", "cxx"])]
    f90: bool,
    /// The input is C.
    #[arg(long = "c", overrides_with_all = ["f77", "f90", "cxx"])]
    c: bool,
    /// The input is C++.
    #[arg(long = "c++", id = "cxx", overrides_with_all = ["f77", "f90", "c"])]
    cxx: bool,
    /// Fortran in free form (the default for Fortran 90 suffixes).
    #[arg(long, overrides_with = "fix_form")]
    free_form: bool,
    /// Fortran in fixed form (the default for Fortran 77 suffixes).
    #[arg(long = "fix-form", overrides_with = "free_form")]
    fix_form: bool,
    /// Write no #line markers (by default diagnostics and profiles point at the input's lines).
    #[arg(long)]
    nosrc: bool,
    /// Leave paradigms, directives or groups uninstrumented:
    /// `omp[:NAME[:inner],...][+pomp]`. NAME is a directive (atomic, critical, master, flush,
    /// single, ordered, parallel, for, ...) or a group: `sync` (atomic, critical, master,
    /// flush, single, ordered, locks), `task`, `locks`. `:inner` keeps the calls around the
    /// construct and leaves out those inside it. `pomp` leaves user regions and
    /// `pomp inst` control directives alone.
    #[arg(
        long,
        value_name = "PARADIGM[:DIRECTIVE|GROUP[:inner],...][+PARADIGM...]"
    )]
    disable: Vec<String>,
    /// The input is preprocessed already: the declarations take the place of the line
    /// `___POMP2_INCLUDE___`, which must follow the headers the file includes.
    #[arg(long)]
    preprocessed: bool,
    /// Accepted for OPARI2's command line: pomp writes no POMP2_DLIST macros; where a
    /// parallel construct must name the region handles, they are listed in a shared clause.
    #[arg(long = "omp-nodecl")]
    omp_nodecl: bool,
    /// Copy the library's thread-private variable pomp_tpd into every parallel region
    /// (copyin); the library defines it.
    #[arg(long = "omp-tpd")]
    omp_tpd: bool,
    /// How C code spells pomp_tpd when Fortran code shares it: as this Fortran compiler
    /// names the common block (default: pomp_tpd).
    #[arg(long = "omp-tpd-mangling", value_enum, value_name = "COMPILER")]
    omp_tpd_mangling: Option<Mangling>,
    /// Tasks: `abort` stops with an error at a task directive, `warn` instruments it with a
    /// warning, `remove` removes every task directive (its block runs where it stands).
    #[arg(long = "omp-task", value_enum, value_name = "abort|warn|remove")]
    omp_task: Option<TaskHandling>,
    /// Untied tasks (made tied, with a warning, by default): `abort` stops with an error,
    /// `keep` keeps them untied, `no-warn` makes them tied without a warning.
    #[arg(
        long = "omp-task-untied",
        value_enum,
        value_name = "abort|keep|no-warn"
    )]
    omp_task_untied: Option<UntiedHandling>,
    /// Print the version and exit.
    #[arg(long)]
    version: bool,
    #[arg(long, hide = true, value_name = "FILE")]
    rcfile: Option<String>,
    #[arg(long, hide = true, value_name = "FILE")]
    table: Option<String>,
    /// The file to instrument.
    infile: Option<PathBuf>,
    /// Where to write it (default: INFILE.mod.SUFFIX for INFILE.SUFFIX; Fortran's suffix
    /// in capitals, so that the compiler preprocesses it).
    outfile: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Mangling {
    Gnu,
    Intel,
    Sun,
    Pgi,
    Ibm,
    Cray,
}

impl Mangling {
    /// pomp_tpd's name in C: the common block's symbol. IBM's compilers add
    /// no underscore.
    fn thread_private(option: Option<Mangling>) -> &'static str {
        match option {
            None | Some(Mangling::Ibm) => "pomp_tpd",
            Some(_) => "pomp_tpd_",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TaskHandling {
    Abort,
    Warn,
    Remove,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
#[value(rename_all = "kebab-case")]
enum UntiedHandling {
    Abort,
    Keep,
    NoWarn,
}

/// The original OPARI's options, as its manual page (which the Debian
/// package installs as opari2's) spells them, in OPARI2's words.
fn translate_manual_options(args: Vec<OsString>) -> Vec<OsString> {
    let mut translated = Vec::with_capacity(args.len());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let word = arg.to_string_lossy();
        let with_value = |option: &str, value: Option<OsString>| {
            let mut joined = OsString::from(option);
            joined.push(value.unwrap_or_default());
            joined
        };
        match word.as_ref() {
            "-f70" => translated.push("--f77".into()),
            "-f90" => translated.push("--f90".into()),
            "-c" => translated.push("--c".into()),
            "-c++" => translated.push("--c++".into()),
            "-disable" => translated.push(with_value("--disable=omp:", args.next())),
            "-rcfile" => translated.push(with_value("--rcfile=", args.next())),
            "-table" => translated.push(with_value("--table=", args.next())),
            _ => translated.push(arg),
        }
    }
    translated
}

/// `opari2 [OPTION]... INFILE [OUTFILE]`.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let args = std::iter::once(OsString::from("opari2")).chain(translate_manual_options(args));
    let args = match Opari2Args::try_parse_from(args) {
        Ok(args) => args,
        Err(error) => return usage_error(error),
    };
    if args.version {
        println!(
            "opari2 version {OPARI2_VERSION} (pomp {})",
            env!("CARGO_PKG_VERSION")
        );
        return ExitCode::SUCCESS;
    }
    for (option, file) in [("-rcfile", &args.rcfile), ("-table", &args.table)] {
        if let Some(file) = file {
            eprintln!(
                "opari2: warning: {option} {file} is ignored: the regions are registered at link \
                 time (opari2-config --nm OBJECTS | opari2-config --region-initialization)"
            );
        }
    }
    let Some(input) = args.infile.clone() else {
        if args.table.is_some() {
            return ExitCode::SUCCESS;
        }
        eprint!("{}", Opari2Args::command().render_help());
        return ExitCode::FAILURE;
    };
    match instrument(&args, &input) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("opari2: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// clap's answer to a command line it did not take: help and version to
/// standard output with success, errors with OPARI2's status, 1.
fn usage_error(error: clap::Error) -> ExitCode {
    let _ = error.print();
    if error.use_stderr() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn instrument(args: &Opari2Args, input: &Path) -> Result<ExitCode, String> {
    let language = language(args, input)?;
    let output = match &args.outfile {
        Some(output) => output.clone(),
        None => default_output(input, language)?,
    };
    let declarations = DeclarationsFile::beside(&output, input)?;
    let mut options = Options {
        language: Some(language),
        ..Options::default().for_writing()
    };
    options.rules.events = EventSet::Opari2;
    options.output.line_markers = !args.nosrc;
    options.output.preprocessed = args.preprocessed;
    options.output.declarations_file = Some(declarations.name.clone());
    for spec in &args.disable {
        disable(spec, &mut options)?;
    }
    if args.omp_tpd {
        options.rules.thread_private = Some(Mangling::thread_private(args.omp_tpd_mangling).into());
    }
    options.rules.remove_tasks = args.omp_task == Some(TaskHandling::Remove);
    options.rules.keep_untied = args.omp_task_untied == Some(UntiedHandling::Keep);
    // C code must say where the declarations go; Fortran declares its
    // own in each unit.
    if args.preprocessed && !language.is_fortran() {
        let bytes =
            std::fs::read(input).map_err(|e| format!("cannot read {}: {e}", input.display()))?;
        if pomp_core::output::preprocessed_marker(&bytes).is_none() {
            return Err(format!(
                "--preprocessed: {} has no line `{}` where the declarations go (it must follow \
                 the headers the file includes)",
                input.display(),
                pomp_core::output::PREPROCESSED_MARKER
            ));
        }
    }
    let (file, mut done) =
        instrument_source(input, Some(language), &options).map_err(|e| e.to_string())?;
    let task = |site: &pomp_core::model::Site| site.directive.name() == "task";
    let refused = match (args.omp_task, args.omp_task_untied) {
        (Some(TaskHandling::Abort), _) => done
            .model
            .sites
            .iter()
            .find(|s| task(s))
            .map(|s| (s.span.start, "tasks are not allowed with --omp-task=abort")),
        (_, Some(UntiedHandling::Abort)) => (done.model.sites.iter())
            .find(|s| task(s) && s.directive.has_clause("untied"))
            .map(|s| {
                (
                    s.span.start,
                    "untied tasks are not allowed with --omp-task-untied=abort",
                )
            }),
        _ => None,
    };
    if let Some((at, message)) = refused {
        let (line, _) = file.line_col(at);
        return Err(format!("{}:{line}: {message}", input.display()));
    }
    if args.omp_task_untied == Some(UntiedHandling::NoWarn) {
        done.diagnostics.retain(|d| d.message != UNTIED_MADE_TIED);
    }
    if args.omp_task == Some(TaskHandling::Warn) {
        for site in done.model.sites.iter().filter(|s| task(s)) {
            let (line, _) = file.line_col(site.span.start);
            eprintln!(
                "{}:{line}: warning: a task: the measurement library may not support tasks",
                input.display()
            );
        }
    }
    let color = std::io::stderr().is_terminal();
    eprint!(
        "{}",
        pomp_cli::render::render(&file, &done.diagnostics, color)
    );
    if done.has_errors() {
        return Err(format!(
            "{} not instrumented; nothing was written",
            input.display()
        ));
    }
    let text = done.declarations.take().unwrap_or_default();
    pomp_files::write_atomically(&declarations.path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", declarations.path.display()))?;
    pomp_files::write_atomically_with(&output, |to| done.write_output(&file, to)).map_err(|e| {
        let _ = std::fs::remove_file(&declarations.path);
        format!("cannot write {}: {e}", output.display())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The file OPARI2 keeps a file's declarations in (its regions' handles
/// and CTC strings), which the output includes: `INFILE.opari.inc`, named
/// after the input, beside the output. Builds that manage OPARI2's files
/// (Score-P removes it after each compile) find it where OPARI2 puts it.
struct DeclarationsFile {
    /// As the output includes it.
    name: String,
    path: PathBuf,
}

impl DeclarationsFile {
    fn beside(output: &Path, input: &Path) -> Result<DeclarationsFile, String> {
        let input_name = input.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = format!("{}.opari.inc", input_name.unwrap_or_default());
        // The include line quotes it: C with '"', Fortran with '\''.
        if name.contains(['"', '\'', '\n']) {
            return Err(format!(
                "{}: a file name with quotes cannot be included; rename the file",
                input.display()
            ));
        }
        let path = output.with_file_name(&name);
        Ok(DeclarationsFile { name, path })
    }
}

/// The input's language: as an option says, else by its suffix; a form
/// option chooses Fortran's form.
fn language(args: &Opari2Args, input: &Path) -> Result<Language, String> {
    let named = if args.c {
        Some(Language::C)
    } else if args.cxx {
        Some(Language::Cpp)
    } else if args.f77 {
        Some(Language::FortranFixed)
    } else if args.f90 {
        Some(Language::FortranFree)
    } else {
        None
    };
    let language = named
        .or_else(|| Language::from_path(input))
        .ok_or_else(|| {
            format!(
            "cannot tell the language of {} by its suffix: name it with --c, --c++, --f77 or --f90",
            input.display()
        )
        })?;
    Ok(match language {
        Language::FortranFree | Language::FortranFixed if args.fix_form => Language::FortranFixed,
        Language::FortranFree | Language::FortranFixed if args.free_form => Language::FortranFree,
        other => other,
    })
}

/// `INFILE.mod.SUFFIX` for `INFILE.SUFFIX`, Fortran's suffix in capitals.
fn default_output(input: &Path, language: Language) -> Result<PathBuf, String> {
    let suffix = input.extension().and_then(|s| s.to_str()).ok_or_else(|| {
        format!(
            "{} has no suffix to name the output by: give OUTFILE",
            input.display()
        )
    })?;
    let stem = input.file_stem().unwrap_or_default().to_string_lossy();
    Ok(input.with_file_name(format!(
        "{stem}.mod.{}",
        language.instrumented_suffix(suffix)
    )))
}

/// One `--disable` value: `+`-separated paradigms, each with its
/// directives and groups, each perhaps `:inner`.
fn disable(spec: &str, options: &mut Options) -> Result<(), String> {
    for paradigm in spec.split('+') {
        let (name, items) = match paradigm.split_once(':') {
            Some((name, items)) => (name, Some(items)),
            None => (paradigm, None),
        };
        match (name, items) {
            // OPARI2 keeps the parallel regions (their fork, begin, end and
            // join) when OpenMP is disabled, so that a measurement system
            // still sees its threads; `omp:all` leaves them too.
            ("omp", None) => {
                let disable = &mut options.rules.disable;
                let constructs = pomp_core::rules::rules().construct.keys();
                disable.extend(constructs.filter(|c| *c != "parallel").cloned());
                disable.insert("locks".into());
                options.rules.barriers_left_implicit = true;
            }
            ("omp", Some("all")) => {
                options.rules.disable.insert("omp".into());
            }
            ("omp", Some(items)) => {
                for item in items.split(',') {
                    let (directive, inner) = match item.split_once(':') {
                        Some((directive, "inner")) => (directive, true),
                        Some(_) => return Err(format!("unknown group or directive: {item}")),
                        None => (item, false),
                    };
                    let names = omp_names(directive)
                        .ok_or_else(|| format!("unknown group or directive: {directive}"))?;
                    let set = if inner {
                        &mut options.rules.outside_only
                    } else {
                        &mut options.rules.disable
                    };
                    set.extend(names.into_iter().map(String::from));
                }
            }
            ("pomp", None) => {
                options.rules.disable.insert("pomp".into());
            }
            ("pomp", Some(items)) => {
                return Err(format!("unknown group or directive: {items}"));
            }
            (other, _) => return Err(format!("unknown paradigm: {other}")),
        }
    }
    Ok(())
}

/// What OPARI2 means by a directive or group name after `omp:`, in
/// pomp's names: its groups differ from pomp's (`sync` holds `single` and
/// `master`, `task` only `task`).
fn omp_names(name: &str) -> Option<Vec<&str>> {
    match name {
        "sync" => Some(vec![
            "atomic", "critical", "master", "flush", "single", "ordered", "locks",
        ]),
        "task" => Some(vec!["task"]),
        "locks" => Some(vec!["locks"]),
        _ => {
            let known = pomp2::ctc::opari2::is_region_type(name)
                || pomp_core::directive::table()
                    .directive
                    .iter()
                    .any(|d| d.name.replace(' ', "") == name);
            known.then(|| vec![name])
        }
    }
}

#[derive(Parser)]
#[command(
    name = "opari2-config",
    disable_version_flag = true,
    override_usage = "opari2-config [OPTION]... COMMAND",
    about = "Print what a build needs to link code instrumented by opari2 (pomp).",
    long_about = "Print what a build needs to link code instrumented by opari2 (pomp): the \
                  command that lists the symbols of the objects and libraries, the command that \
                  turns that list into the registration file, compiler flags and versions. The \
                  last command given is answered. A build registers its regions with\n\n  \
                  `opari2-config --nm` OBJECTS | `opari2-config --region-initialization` > \
                  pomp2_init_regions.c"
)]
struct ConfigArgs {
    /// Print the command that lists the symbols of objects and libraries.
    #[arg(long, help_heading = "Commands")]
    nm: bool,
    /// Print the command that reads that list and writes pomp2_init_regions.c.
    #[arg(long, help_heading = "Commands")]
    region_initialization: bool,
    /// Print the whole command that writes the registration file for these objects.
    #[arg(long, num_args = 0.., value_name = "OBJECTS", help_heading = "Commands")]
    create_pomp2_regions: Option<Vec<String>>,
    /// Deprecated: like --region-initialization, called with `-f` and what --awk-script prints.
    #[arg(long, help_heading = "Commands")]
    awk_cmd: bool,
    /// Deprecated: the argument --awk-cmd's command takes after `-f`.
    #[arg(long, help_heading = "Commands")]
    awk_script: bool,
    /// Deprecated: print the command that filters the symbol list (grep -E).
    #[arg(long, help_heading = "Commands")]
    egrep: bool,
    /// Print the flags instrumented files and a library compile with: the directory holding
    /// the POMP2 headers (opari2/pomp2_lib.h, opari2/pomp2_user_lib.h), and for Fortran the
    /// compiler's option that keeps unused inserted variables quiet.
    #[arg(
        long,
        num_args = 0..=1,
        require_equals = true,
        value_enum,
        value_name = "COMPILER",
        help_heading = "Commands"
    )]
    cflags: Option<Option<CompilerFamily>>,
    /// Print OPARI2's version whose command line this accepts.
    #[arg(long, help_heading = "Commands")]
    version: bool,
    /// Print the version of the POMP2 interface instrumented files conform to.
    #[arg(long, help_heading = "Commands")]
    interface_version: bool,
    /// Print the revision of the package: pomp's version.
    #[arg(long, help_heading = "Commands")]
    revision: bool,
    /// The target language is Fortran (--cflags adds the compiler's option that keeps unused
    /// variables quiet).
    #[arg(long)]
    fortran: bool,
    /// Accepted for OPARI2's command line: the paths are where this opari2-config is, in a
    /// build as installed.
    #[arg(long)]
    build_check: bool,
    /// Accepted, as opari2 takes --fix-form and --free-form: builds ask opari2-config whether
    /// it does (Score-P's configure).
    #[arg(long = "fix-form", overrides_with = "free_form")]
    fix_form: bool,
    #[arg(long, hide = true, overrides_with = "fix_form")]
    free_form: bool,
    /// Accepted for OPARI2's command line: pomp's opari2-config has no settings to read.
    #[arg(long, require_equals = true, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompilerFamily {
    Gnu,
    Intel,
    Sun,
    Pgi,
    Ibm,
    Cray,
    Fujitsu,
}

/// The commands of `opari2-config`, by their clap ids.
const CONFIG_COMMANDS: &[&str] = &[
    "nm",
    "region_initialization",
    "create_pomp2_regions",
    "awk_cmd",
    "awk_script",
    "egrep",
    "cflags",
    "version",
    "interface_version",
    "revision",
];

/// `opari2-config [OPTION]... COMMAND`.
pub fn config(args: Vec<OsString>) -> ExitCode {
    let args = std::iter::once(OsString::from("opari2-config")).chain(args);
    let matches = match ConfigArgs::command().try_get_matches_from(args) {
        Ok(matches) => matches,
        Err(error) => return usage_error(error),
    };
    let args = match ConfigArgs::from_arg_matches(&matches) {
        Ok(args) => args,
        Err(error) => return usage_error(error),
    };
    if let Some(path) = &args.config {
        if let Err(error) = std::fs::metadata(path) {
            eprintln!(
                "opari2-config: error: cannot read {}: {error}",
                path.display()
            );
            return ExitCode::FAILURE;
        }
        eprintln!(
            "opari2-config: note: {} is not read: pomp's opari2-config has no settings",
            path.display()
        );
    }
    // The last command given is the one answered, as OPARI2 does.
    let last = (CONFIG_COMMANDS.iter())
        .filter(|id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .max_by_key(|id| matches.index_of(id));
    let regions = regions_command();
    let answer = match last.copied() {
        None => {
            print!("{}", ConfigArgs::command().render_long_help());
            return ExitCode::SUCCESS;
        }
        Some("nm") => nm_command(),
        Some("region_initialization" | "awk_cmd") => regions,
        Some("create_pomp2_regions") => {
            let objects = args.create_pomp2_regions.unwrap_or_default();
            if objects.is_empty() {
                eprintln!("opari2-config: error: --create-pomp2-regions: no object files given");
                return ExitCode::FAILURE;
            }
            format!("{} {} | {regions}", nm_command(), objects.join(" "))
        }
        Some("awk_script") => "pomp2-parse-init-regions".into(),
        Some("egrep") => format!("{} -E", program_path("grep")),
        Some("cflags") => cflags(args.cflags.flatten(), args.fortran),
        Some("version") => format!("{OPARI2_VERSION}\n"),
        Some("interface_version") => format!("{POMP2_INTERFACE_VERSION}\n"),
        Some(_) => format!("pomp-{}\n", env!("CARGO_PKG_VERSION")),
    };
    print!("{answer}");
    ExitCode::SUCCESS
}

/// What instrumented files and a library compile with: the include
/// directory of the installation this program is in (`install-wrappers
/// --opari2` puts pomp's POMP2 headers there) and, for Fortran, what
/// OPARI2 adds for the compiler so that unused variables of the inserted
/// code are not warned about.
fn cflags(compiler: Option<CompilerFamily>, fortran: bool) -> String {
    let include = installed_directory().join(pomp_wrapper::OPARI2_INCLUDE);
    let include = normalized(&include);
    let quiet = match (fortran, compiler) {
        (true, Some(CompilerFamily::Gnu)) => " -Wno-unused",
        (true, Some(CompilerFamily::Intel)) => " -warn nounused",
        _ => "",
    };
    format!("-I{}{quiet}", include.display())
}

/// The directory this program was run from, as it was named (a link
/// into an installation counts as being there), else where the program
/// is.
fn installed_directory() -> PathBuf {
    let invoked = std::env::args_os().next().map(PathBuf::from);
    let named = invoked.and_then(|path| {
        if path.components().count() > 1 {
            std::path::absolute(&path).ok()
        } else {
            let paths = std::env::var_os("PATH")?;
            std::env::split_paths(&paths)
                .map(|directory| directory.join(&path))
                .find(|candidate| candidate.is_file())
                .and_then(|found| std::path::absolute(found).ok())
        }
    });
    named
        .or_else(|| std::env::current_exe().ok())
        .and_then(|program| program.parent().map(Path::to_path_buf))
        .unwrap_or_default()
}

/// `path` with `.` and `dir/..` taken out, read as written (symbolic
/// links are not followed).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn nm_command() -> String {
    format!("{} -B", program_path("nm"))
}

/// The command a build pipes the symbol list into: pomp itself.
fn regions_command() -> String {
    let pomp = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("pomp"));
    format!("{} {REGIONS_SUBCOMMAND}", pomp.display())
}

/// Where `program` is on the PATH, else its name.
fn program_path(program: &str) -> String {
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|directory| directory.join(program))
                .find(|candidate| candidate.is_file())
        })
        .map_or_else(|| program.to_owned(), |path| path.display().to_string())
}

/// pomp's hidden `__opari2-regions`: the registration file, on standard
/// output, for the `nm` listing on standard input. The `-f SCRIPT` the
/// deprecated `--awk-cmd` pipeline passes is accepted and not needed.
pub fn regions() -> ExitCode {
    let mut listing = String::new();
    if let Err(error) = std::io::stdin().read_to_string(&mut listing) {
        eprintln!("pomp: error: reading the symbol list: {error}");
        return ExitCode::FAILURE;
    }
    let functions = pomp_wrapper::registration::functions_in_nm_listing(&listing);
    print!("{}", pomp_wrapper::render_registration(&functions));
    ExitCode::SUCCESS
}
