//! Drop-in compiler wrappers: `pomp-cc`, `pomp-cxx`, `pomp-f90`.
//!
//! A wrapper takes a gcc-style command line ([`cmdline`]), instruments the
//! OpenMP sources on it into a private directory ([`sources`]), turns the
//! command line into compiler runs with those sources swapped in
//! ([`plan`], which touches nothing) and runs them ([`exec`]). Everything
//! the user sees — object names, dependency files, module files,
//! diagnostics, debug info — stays as the original compile would have it.
//! Linking a program adds the region registration ([`registration`]) and a
//! POMP2 library.

mod compiler;
mod depfiles;
mod exec;
mod help;
mod install;
mod library;
pub mod options;
pub mod plan;
pub mod registration;
mod runtime;
mod scratch;
pub mod seal;
pub mod sources;

pub use compiler::Compiler;
pub use install::{install_wrappers, path_advice, Installed};
pub use registration::{registration_source, render_registration, InitFunction, LinkScan};
pub use runtime::{link_arguments, runtime_archive};

use anyhow::Result;
use options::WrapperOptions;
use pomp_cmdline::CommandLine;
use scratch::LazyScratch;
pub use sources::AlreadyReported;
use std::ffi::OsString;
use std::io::Write;

/// Where a wrapper's own messages go (the compilers it runs print their
/// own), and whether diagnostics are coloured there.
pub struct Messages<'w> {
    pub to: &'w mut dyn Write,
    pub color: bool,
}

/// Run the wrapper for `compiler` on a compiler command line: the exit code
/// of the compiler run that decides it. `--pomp-help` goes to `output`.
pub fn run(
    compiler: Compiler,
    args: Vec<OsString>,
    output: &mut dyn Write,
    messages: &mut Messages,
) -> Result<u8> {
    let (wrapper, args) = WrapperOptions::take_from(pomp_cmdline::expand_response_files(args)?)?;
    let line = CommandLine::parse(compiler.driver(), args)?;
    if wrapper.help {
        output.write_all(help::help_text(compiler).as_bytes())?;
        return Ok(0);
    }
    let command = compiler.command()?;
    if asks_for_compiler_help(&line.args) {
        // The compiler's help follows; pomp's own is one option away.
        output.write_all(help::compiler_help_header(compiler).as_bytes())?;
        output.flush()?;
    }
    let mut scratch = LazyScratch::new(&line.args);
    let instrumented = if plan::instruments(&line) {
        sources::instrument_sources(compiler, &line, &wrapper, &mut scratch, messages)?
    } else {
        Vec::new()
    };
    let steps = plan::plan(
        &line,
        &command,
        wrapper.runtime.as_deref(),
        &instrumented,
        scratch.existing(),
    );
    exec::Executor {
        compiler,
        verbose: wrapper.verbose,
        scratch: &mut scratch,
        messages: messages.to,
        mpi: &wrapper.mpi,
    }
    .execute(steps)
}

/// Whether the compiler is asked for its help (`--help`, `--help=...`,
/// gfortran's `-help`).
fn asks_for_compiler_help(args: &[OsString]) -> bool {
    args.iter()
        .filter_map(|a| a.to_str())
        .any(|a| a == "--help" || a == "-help" || a.starts_with("--help="))
}
