//! `pomp instrument`: one file, diagnostics printed the way a compiler
//! prints them.

use pomp_core::instrument::{instrument_path, Options};
use std::path::Path;
use std::process::ExitCode;

/// `pomp instrument`: run the pipeline on one file, print diagnostics the
/// way a compiler does, and exit non-zero on error. For a command whose
/// process ends after it: what the file took is not freed.
pub fn run(input: &Path, output: &Path, idf: Option<&Path>, options: &Options) -> ExitCode {
    use std::io::IsTerminal;
    let color = std::io::stderr().is_terminal();
    // `-o -`, as compilers spell it: the instrumented text on standard
    // output, written last, once every file is in place.
    let to_stdout = output == Path::new("-");
    match instrument_path(input, (!to_stdout).then_some(output), idf, options) {
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Ok((file, done)) => {
            eprint!(
                "{}",
                pomp_cli::render::render(&file, &done.diagnostics, color)
            );
            let errors = done.error_count();
            if errors == 0 && to_stdout {
                if let Err(error) = write_to_stdout(&file, &done) {
                    eprintln!(
                        "error: cannot write the instrumented source to standard output: {error}"
                    );
                    return ExitCode::from(2);
                }
            }
            // The process ends after this; freeing the model, the plan and
            // the edits object by object took 2% of a dense file's run.
            // Compilers leave their memory to the system in the same way.
            std::mem::forget((file, done));
            if errors == 0 {
                return ExitCode::SUCCESS;
            }
            eprintln!(
                "error: {} not instrumented ({errors} error{}); nothing was written",
                input.display(),
                if errors == 1 { "" } else { "s" }
            );
            ExitCode::FAILURE
        }
    }
}

fn write_to_stdout(
    file: &pomp_core::source::SourceFile,
    done: &pomp_core::instrument::Instrumentation,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    done.write_output(file, &mut stdout)?;
    stdout.flush()
}
