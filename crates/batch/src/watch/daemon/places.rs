//! What a path that changed is to the watcher: part of the tree, of the
//! mirror, one of its own cookies, or nothing it counts.

use std::path::{Path, PathBuf};

/// Files the watcher makes in the cache directory to learn when it has
/// seen every event from before them.
pub const COOKIE: &str = "cookie-";

/// What a path that changed is to the watcher.
#[derive(Debug, PartialEq, Eq)]
pub enum Place {
    Source,
    /// Relative to the mirror, `/`-separated.
    Mirror(String),
    Cookie(String),
    Ignored,
}

/// The tree, the mirror and the cache directory, each canonical.
pub struct Places {
    pub root: PathBuf,
    pub out_dir: PathBuf,
    pub cache_dir: PathBuf,
}

impl Places {
    pub fn new(root: &Path, out_dir: &Path) -> Places {
        Places {
            root: root.to_path_buf(),
            out_dir: out_dir.to_path_buf(),
            cache_dir: out_dir.join(crate::cache::DIRECTORY),
        }
    }

    pub fn place(&self, path: &Path) -> Place {
        if let Some(name) = under(path, &self.cache_dir) {
            return match name.strip_prefix(COOKIE.as_bytes()) {
                Some(rest) if !rest.contains(&b'/') => {
                    Place::Cookie(String::from_utf8_lossy(name).into_owned())
                }
                _ => Place::Ignored,
            };
        }
        // The mirror may be inside the tree: it is asked for first.
        if let Some(relative) = under(path, &self.out_dir) {
            return Place::Mirror(String::from_utf8_lossy(relative).into_owned());
        }
        match under(path, &self.root) {
            Some(relative) if !inside_git(relative) => Place::Source,
            _ => Place::Ignored,
        }
    }
}

/// `path` relative to `directory` when it is in it (empty for the
/// directory itself), compared as bytes: events come by the thousand, and
/// both paths are absolute and canonical.
pub fn under<'p>(path: &'p Path, directory: &Path) -> Option<&'p [u8]> {
    let rest = path
        .as_os_str()
        .as_encoded_bytes()
        .strip_prefix(directory.as_os_str().as_encoded_bytes())?;
    match rest {
        [] => Some(rest),
        [b'/', relative @ ..] => Some(relative),
        _ => None,
    }
}

/// Git's own files, which the walk leaves out; but `.git/info/exclude`
/// says which files the walk ignores.
fn inside_git(relative: &[u8]) -> bool {
    let mut components = relative.split(|&b| b == b'/');
    if !components.any(|c| c == b".git") {
        return false;
    }
    components.ne([&b"info"[..], b"exclude"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_paths_are_placed_in_the_tree_the_mirror_or_neither() {
        let places = Places::new(Path::new("/src"), Path::new("/src/out"));
        assert_eq!(places.place(Path::new("/src/a.c")), Place::Source);
        assert_eq!(
            places.place(Path::new("/src/out/lib/a.c")),
            Place::Mirror("lib/a.c".into())
        );
        assert_eq!(
            places.place(Path::new("/src/out/.pomp-batch/cookie-12")),
            Place::Cookie("cookie-12".into())
        );
        for ignored in [
            "/src/out/.pomp-batch/state",
            "/src/out/.pomp-batch/idf/cookie-1",
            "/src/.git/index",
            "/src/lib/.git/HEAD",
            "/elsewhere/a.c",
        ] {
            assert_eq!(
                places.place(Path::new(ignored)),
                Place::Ignored,
                "{ignored}"
            );
        }
        assert_eq!(
            places.place(Path::new("/src/.git/info/exclude")),
            Place::Source
        );
        assert_eq!(places.place(Path::new("/src/.gitignore")), Place::Source);
        assert_eq!(places.place(Path::new("/src/outside.c")), Place::Source);
        assert_eq!(
            places.place(Path::new("/src/out")),
            Place::Mirror("".into())
        );
    }
}
