//! `pomp-cc`, `pomp-cxx` and `pomp-f90`: the compiler's exit code, or 1
//! with the wrapper's own error.

use pomp_wrapper::{AlreadyReported, Compiler, Messages};
use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Run the wrapper for `compiler` on a compiler command line.
pub fn run(compiler: Compiler, args: Vec<OsString>) -> ExitCode {
    let stderr = std::io::stderr();
    let color = stderr.is_terminal();
    let mut messages = Messages {
        to: &mut stderr.lock(),
        color,
    };
    let outcome = pomp_wrapper::run(compiler, args, &mut std::io::stdout(), &mut messages);
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            if let Some(AlreadyReported(code)) = error.downcast_ref::<AlreadyReported>() {
                return ExitCode::from(*code);
            }
            eprintln!("{}: error: {error:#}", compiler.wrapper_name());
            ExitCode::FAILURE
        }
    }
}
