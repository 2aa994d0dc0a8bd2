//! The private directory instrumented sources are compiled from. It never
//! lies in the source tree, and it is removed when the wrapper ends: normally,
//! on error, and on Ctrl-C or SIGTERM.

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// The directory a signal handler must remove; only one exists per process.
static LIVE: Mutex<Option<PathBuf>> = Mutex::new(None);
static HANDLER: Once = Once::new();

/// Exit status of a process ended by SIGINT, as shells report it.
const INTERRUPTED: i32 = 130;

pub struct Scratch {
    path: PathBuf,
}

impl Scratch {
    /// The directory is named after the working directory and the command
    /// line, so that the same compile uses the same paths every time and
    /// compiler caches keyed on them hit; a concurrent identical compile
    /// gets a random name instead.
    pub fn create(args: &[OsString]) -> Result<Scratch> {
        HANDLER.call_once(|| {
            // Without a handler, Ctrl-C would leave the directory behind; a
            // failure to install one is not worth failing the compile for.
            let _ = ctrlc::set_handler(|| {
                remove_live_directory();
                std::process::exit(INTERRUPTED);
            });
        });
        let base = std::env::temp_dir();
        let mut hasher = Sha256::new();
        if let Ok(cwd) = std::env::current_dir() {
            hasher.update(cwd.as_os_str().as_bytes());
        }
        for arg in args {
            hasher.update([0]);
            hasher.update(arg.as_bytes());
        }
        let digest = hasher.finalize();
        let name = pomp_core::source::hex(&digest[..8]);
        let stable = base.join(format!("pomp-{name}"));
        let path = match private_dir_builder().create(&stable) {
            Ok(()) => stable,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => tempfile::Builder::new()
                .prefix("pomp-")
                .tempdir_in(&base)
                .context("creating a temporary directory")?
                .keep(),
            Err(e) => {
                return Err(e).with_context(|| format!("creating {}", stable.display()));
            }
        };
        *LIVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(path.clone());
        Ok(Scratch { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A fresh private subdirectory, so that files of the same name from
    /// different source directories do not collide.
    pub fn subdirectory(&self, name: &str) -> Result<PathBuf> {
        let path = self.path.join(name);
        private_dir_builder()
            .create(&path)
            .with_context(|| format!("creating {}", path.display()))?;
        Ok(path)
    }
}

/// The scratch directory of one invocation, made when first needed: most
/// invocations never need one.
pub struct LazyScratch {
    args: Vec<OsString>,
    scratch: Option<Scratch>,
}

impl LazyScratch {
    /// A scratch directory for the command line `args`.
    pub fn new(args: &[OsString]) -> LazyScratch {
        LazyScratch {
            args: args.to_vec(),
            scratch: None,
        }
    }

    pub fn get(&mut self) -> Result<&Scratch> {
        if self.scratch.is_none() {
            self.scratch = Some(Scratch::create(&self.args)?);
        }
        Ok(self.scratch.as_ref().expect("created above"))
    }

    /// The directory, if it was made.
    pub fn existing(&self) -> Option<&Path> {
        self.scratch.as_ref().map(Scratch::path)
    }
}

fn private_dir_builder() -> std::fs::DirBuilder {
    let mut builder = std::fs::DirBuilder::new();
    builder.mode(0o700);
    builder
}

fn remove_live_directory() {
    // Removed with the lock held: on Ctrl-C the handler's thread and the
    // main thread, its compiler interrupted too, both come here, and the
    // one that finds the directory gone must not end the process before
    // the other has removed it.
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(path) = live.take() {
        let _ = std::fs::remove_dir_all(path);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        remove_live_directory();
    }
}
