//! Where a run reads and writes: the tree, its mirror, and pomp's own
//! directory in the mirror.

use crate::cache;
use crate::compdb::Database;
use crate::config::Config;
use anyhow::{bail, Context as _, Result};
use std::path::PathBuf;

pub struct Directories {
    /// The tree, canonical.
    pub root: PathBuf,
    /// The mirror, canonical.
    pub out: PathBuf,
    /// What a run leaves for the next: the state, the lock, the watcher's
    /// token and log.
    pub cache: PathBuf,
    /// Each instrumented file's IDF descriptor, in the cache directory.
    pub idf: PathBuf,
}

impl Directories {
    /// The tree `config` names, or else the directory holding every file
    /// the database compiles, and the mirror, made where it is missing. A
    /// mirror holding its tree is refused.
    pub fn make(config: &Config, database: Option<&Database>) -> Result<Directories> {
        let root = match (&config.source_dir, database) {
            (Some(dir), _) => dir
                .canonicalize()
                .with_context(|| format!("cannot read {}", dir.display()))?,
            (None, Some(database)) => database
                .common_directory()
                .context("the compilation database names no C, C++ or Fortran file")?,
            (None, None) => bail!("name a source directory or a compilation database"),
        };
        if !root.is_dir() {
            bail!("{} is not a directory", root.display());
        }
        std::fs::create_dir_all(&config.out_dir)
            .with_context(|| format!("cannot create {}", config.out_dir.display()))?;
        let out = config.out_dir.canonicalize()?;
        if root.starts_with(&out) {
            bail!(
                "the output directory {} holds the source tree {}",
                out.display(),
                root.display()
            );
        }
        let cache = out.join(cache::DIRECTORY);
        let idf = cache.join("idf");
        std::fs::create_dir_all(&idf)?;
        Ok(Directories {
            root,
            out,
            cache,
            idf,
        })
    }

    /// What to say when the state cannot be written.
    pub fn cannot_write_cache(&self) -> String {
        format!("cannot write the cache in {}", self.cache.display())
    }
}
