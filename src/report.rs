//! `pomp report`: the report on standard output, the files written and
//! errors on standard error.

use pomp_report::{Error, Options};
use std::process::ExitCode;

/// `pomp report` on the command line: the report on standard output
/// (coloured as `color` says), errors and the files written on standard
/// error.
pub fn run(options: &Options, color: anstream::ColorChoice) -> ExitCode {
    let mut stdout = anstream::AutoStream::new(std::io::stdout().lock(), color);
    match pomp_report::run(options, &mut stdout) {
        Ok(written) => {
            for path in written {
                eprintln!("pomp report: wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(Error::Write { source, .. }) if source.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("pomp report: error: {error}");
            ExitCode::from(2)
        }
    }
}
