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

pub mod cmdline;
mod compiler;
mod depfiles;
mod exec;
mod help;
mod library;
pub mod plan;
pub mod registration;
mod runtime;
mod scratch;
pub mod sources;

pub use compiler::{install_wrappers, Compiler};
pub use registration::{registration_source, render_registration, InitFunction, LinkScan};
pub use runtime::link_arguments;

use anyhow::Result;
use cmdline::CommandLine;
use scratch::LazyScratch;
pub use sources::AlreadyReported;
use sources::OnError;
use std::ffi::OsString;
use std::process::ExitCode;

/// Run the wrapper for `compiler` on a compiler command line: the exit code
/// of the compiler run that decides it.
pub fn run(compiler: Compiler, args: Vec<OsString>) -> Result<ExitCode> {
    let line = CommandLine::parse(cmdline::expand_response_files(args)?)?;
    if line.wrapper.help {
        print!("{}", help::help_text(compiler));
        return Ok(ExitCode::SUCCESS);
    }
    let command = compiler.command()?;
    let on_error = OnError::from_env()?;
    let mut scratch = LazyScratch::new(&line.args);
    let instrumented = if plan::instruments(&line) {
        sources::instrument_sources(compiler, &line, on_error, &mut scratch)?
    } else {
        Vec::new()
    };
    let steps = plan::plan(&line, &command, &instrumented, scratch.existing());
    exec::Executor {
        compiler,
        verbose: line.wrapper.verbose,
        scratch: &mut scratch,
    }
    .execute(steps)
}
