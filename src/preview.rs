//! `pomp preview`: what instrumentation does to a file, shown on standard
//! output.

use pomp_preview::{Error, Options};
use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// `pomp preview`: the preview on standard output, diagnostics on
/// standard error the way `pomp instrument` prints them. Exits with 1 when
/// some directives have errors (the rest is still shown), 2 when nothing
/// could be shown.
pub fn run(path: &Path, options: &Options, color: anstream::ColorChoice) -> ExitCode {
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
    let result = pomp_preview::run(path, options, &mut stdout);
    let _ = stdout.flush();
    match result {
        Ok(shown) => {
            let colored = match color {
                anstream::ColorChoice::Never => false,
                anstream::ColorChoice::Auto => {
                    anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
                }
                _ => true,
            };
            eprint!(
                "{}",
                pomp_cli::render::render(&shown.file, &shown.instrumentation.diagnostics, colored)
            );
            if shown.instrumentation.has_errors() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(Error::Write(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pomp preview: error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Columns for a side-by-side diff: the terminal's, else 160.
pub fn terminal_width() -> usize {
    terminal_size::terminal_size()
        .map(|(width, _)| width.0 as usize)
        .unwrap_or(160)
}
