//! `pomp lsp`: the language server on standard input and output.

use lsp_server::Connection;
use std::process::ExitCode;

/// Serve an editor on standard input and output.
pub fn run() -> ExitCode {
    let (connection, io_threads) = Connection::stdio();
    let served = pomp_lsp::serve(&connection, &mut std::io::stderr());
    // The writer ends once every sender is gone.
    drop(connection);
    let joined = io_threads.join();
    match served.and(joined.map_err(anyhow::Error::from)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("pomp lsp: {error:#}");
            ExitCode::FAILURE
        }
    }
}
