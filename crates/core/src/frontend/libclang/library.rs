//! Finding libclang at run time.
//!
//! clang-sys keeps the loaded library in a thread-local slot: a thread that
//! never loaded it cannot call into it. The library is opened once per
//! process and the same handle is handed to every thread that reads a file
//! (a batch run reads on many rayon threads).

use clang_sys::SharedLibrary;
use std::sync::{Arc, OnceLock};

static LIBRARY: OnceLock<Result<Arc<SharedLibrary>, String>> = OnceLock::new();

/// How to get libclang, for messages that say it is missing.
pub const INSTALL_HINT: &str = "install libclang: on Debian and Ubuntu `apt-get install \
libclang1-14` (or any libclang1-N), on Fedora `dnf install clang-libs`; or point \
LIBCLANG_PATH at the directory holding libclang.so";

/// Make libclang callable on this thread, opening it on first use.
/// The error says why it could not be found or opened.
pub fn ensure_loaded() -> Result<(), String> {
    if clang_sys::is_loaded() {
        return Ok(());
    }
    let library = LIBRARY.get_or_init(|| clang_sys::load_manually().map(Arc::new));
    match library {
        Ok(library) => {
            clang_sys::set_library(Some(library.clone()));
            Ok(())
        }
        Err(why) => Err(why.clone()),
    }
}

/// Whether libclang can be used here.
pub fn available() -> bool {
    ensure_loaded().is_ok()
}
