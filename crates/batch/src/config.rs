//! What a run is asked to do.

use crate::cache;
use pomp_core::instrument::Options;
use std::path::{Path, PathBuf};

/// What becomes of a source that cannot be instrumented. Either way the
/// run goes on and reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnError {
    /// The original goes into the mirror, so the tree still builds.
    #[default]
    Original,
    /// Nothing goes into the mirror, so building that file fails.
    Fail,
}

#[derive(Clone, Debug)]
pub struct Config {
    /// The tree to mirror. With a compilation database it may be left
    /// out: the directory holding every compiled file is taken.
    pub source_dir: Option<PathBuf>,
    pub out_dir: PathBuf,
    /// `compile_commands.json`: which files are compiled, and how.
    pub compile_commands: Option<PathBuf>,
    /// How sources are instrumented; the language is chosen per file.
    pub options: Options,
    /// `.gitignore`-style globs left out of the mirror.
    pub exclude: Vec<String>,
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub ignore_files: bool,
    /// Threads; all cores when `None`.
    pub jobs: Option<usize>,
    pub on_error: OnError,
    /// Part of every cached file's key: outputs of another pomp are redone.
    pub tool_version: String,
    /// Keep a watcher of the tree, started with this program (pomp's own
    /// binary), so that a run after which nothing changed does not walk
    /// it ([`crate::watch`]).
    pub watch: Option<PathBuf>,
}

impl Config {
    pub fn new(source_dir: Option<PathBuf>, out_dir: PathBuf) -> Config {
        Config {
            source_dir,
            out_dir,
            compile_commands: None,
            options: Options::default(),
            exclude: vec![],
            ignore_files: true,
            jobs: None,
            on_error: OnError::default(),
            tool_version: tool_version(),
            watch: None,
        }
    }

    /// The threads the run mirrors files with.
    pub(crate) fn threads(&self) -> usize {
        self.jobs.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
    }

    /// Everything about a run that decides its mirror of the tree `root`
    /// in `out` (both canonical): a watched run whose settings differ from
    /// the last one's walks the tree.
    pub(crate) fn settings(&self, root: &Path, out: &Path) -> String {
        let options = serde_json::to_vec(&self.options).expect("options serialise");
        let ignore_files = [u8::from(self.ignore_files)];
        let on_error = [u8::from(self.on_error == OnError::Fail)];
        let mut parts: Vec<&[u8]> = vec![
            self.tool_version.as_bytes(),
            root.as_os_str().as_encoded_bytes(),
            out.as_os_str().as_encoded_bytes(),
            &options,
            &ignore_files,
            &on_error,
        ];
        parts.extend(self.exclude.iter().map(|glob| glob.as_bytes()));
        cache::digest(parts)
    }
}

/// pomp's version and a digest of what this build was made from (its
/// sources, the tables it instruments by, its locked dependencies): two
/// builds of one version may write different files.
pub fn tool_version() -> String {
    format!(
        "pomp {} build {}",
        env!("CARGO_PKG_VERSION"),
        pomp_core::BUILD_DIGEST
    )
}
