//! `pomp-cc`, `pomp-cxx` and `pomp-f90`: the compiler's exit code, or 1
//! with the wrapper's own error.

use pomp_wrapper::{AlreadyReported, Compiler};
use std::ffi::OsString;
use std::process::ExitCode;

/// Run the wrapper for `compiler` on a compiler command line.
pub fn run(compiler: Compiler, args: Vec<OsString>) -> ExitCode {
    match pomp_wrapper::run(compiler, args) {
        Ok(code) => code,
        Err(error) => {
            if let Some(AlreadyReported(code)) = error.downcast_ref::<AlreadyReported>() {
                return *code;
            }
            eprintln!("{}: error: {error:#}", compiler.wrapper_name());
            ExitCode::FAILURE
        }
    }
}
