//! Finding the files of a source tree: ripgrep's walker, with ignore files
//! (`.gitignore`, `.ignore`) and `--exclude` globs as overrides.

use anyhow::{Context, Result};
use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A file or symbolic link of the tree.
#[derive(Debug)]
pub struct Found {
    /// Relative to the root.
    pub relative: PathBuf,
    /// The entry itself is a link: it is not followed.
    pub symlink: bool,
}

/// What to leave out of a walk.
pub struct Filters<'a> {
    /// Whole directories (the output directory, build directories).
    pub skip: &'a BTreeSet<PathBuf>,
    /// `--exclude` globs, matched as in `.gitignore` from the root.
    pub exclude: &'a [String],
    /// Honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub ignore_files: bool,
}

/// Every file and symbolic link under `root` (absolute) that the filters
/// keep, ordered by path, found as they are asked for; `Err` is what could
/// not be read, as a message. Depth first with each directory's names
/// sorted is the order of paths compared component by component, so only
/// the directories being walked are held, never the tree.
pub fn walk(root: &Path, filters: &Filters) -> Result<Walk> {
    let mut overrides = OverrideBuilder::new(root);
    for glob in filters.exclude {
        overrides
            .add(&format!("!{glob}"))
            .with_context(|| format!("--exclude {glob}"))?;
    }
    let skip = filters.skip.clone();
    let walker = WalkBuilder::new(root)
        .standard_filters(filters.ignore_files)
        // A mirror builds as the original did: dot files are part of it,
        // and a user's global ignore file is not part of the project.
        .hidden(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .overrides(overrides.build()?)
        .filter_entry(move |entry| {
            let directory = entry.file_type().is_some_and(|t| t.is_dir());
            entry.file_name() != ".git" && !(directory && skip.contains(entry.path()))
        })
        // Siblings share their directory's path: their paths' bytes order
        // them as their names do, without taking the names out.
        .sort_by_file_path(|a, b| {
            a.as_os_str()
                .as_encoded_bytes()
                .cmp(b.as_os_str().as_encoded_bytes())
        })
        .build();
    Ok(Walk {
        walker,
        prefix: root.as_os_str().len()
            + usize::from(!root.as_os_str().as_encoded_bytes().ends_with(b"/")),
    })
}

pub struct Walk {
    walker: ignore::Walk,
    /// The length of the root and a separator, which every path found
    /// starts with.
    prefix: usize,
}

impl Iterator for Walk {
    type Item = Result<Found, String>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let entry = match self.walker.next()? {
                Ok(entry) => entry,
                Err(error) => return Some(Err(error.to_string())),
            };
            let Some(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                continue;
            }
            if !(file_type.is_file() || file_type.is_symlink()) {
                return Some(Err(format!(
                    "{}: not a regular file or link; left out",
                    entry.path().display()
                )));
            }
            let path = entry.path().as_os_str().as_encoded_bytes();
            let relative = PathBuf::from(std::ffi::OsStr::from_bytes(&path[self.prefix..]));
            return Some(Ok(Found {
                relative,
                symlink: file_type.is_symlink(),
            }));
        }
    }
}

/// Whether the `/`-separated relative path `a` comes before `b` in the
/// walk's order.
pub fn key_before(a: &str, b: &str) -> bool {
    by_path(Path::new(a), Path::new(b)).is_lt()
}

/// The order of `Path::cmp`, component by component, for relative paths
/// as a walk gives them (no `.`, no doubled or trailing `/`), without
/// parsing their components: sorting a large tree's paths spent most of
/// the walk in that parsing.
pub fn by_path(a: &Path, b: &Path) -> std::cmp::Ordering {
    fn components(p: &Path) -> impl Iterator<Item = &[u8]> {
        p.as_os_str().as_encoded_bytes().split(|&c| c == b'/')
    }
    components(a).cmp(components(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relative_paths(root: &Path, exclude: &[String], ignore_files: bool) -> Vec<String> {
        let skip = BTreeSet::from([root.join("out")]);
        let filters = Filters {
            skip: &skip,
            exclude,
            ignore_files,
        };
        walk(root, &filters)
            .unwrap()
            .map(|f| f.unwrap().relative.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn paths_sort_component_by_component() {
        let mut paths: Vec<PathBuf> = ["a-b", "a/b", "a", "a/b/c", "a.c", "b", "a/a-b", "a/a/z"]
            .iter()
            .map(PathBuf::from)
            .collect();
        let mut expected = paths.clone();
        expected.sort();
        paths.sort_by(|a, b| by_path(a, b));
        assert_eq!(paths, expected);
        assert!(key_before("a/b", "a-b") && key_before("a", "a/b") && !key_before("b", "a/z"));
    }

    #[test]
    fn ignore_files_excludes_and_skipped_directories_leave_files_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            ".gitignore",
            ".clang-format",
            "a.c",
            "gen/x.c",
            "lib/.ignore",
            "lib/b.c",
            "lib/b.o",
            "lib/third/c.c",
            "out/a.c",
            ".git/config",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "gen/\n*.o\n").unwrap();
        std::fs::write(root.join("lib/.ignore"), "third\n").unwrap();
        assert_eq!(
            relative_paths(root, &[], true),
            [
                ".clang-format",
                ".gitignore",
                "a.c",
                "lib/.ignore",
                "lib/b.c"
            ]
        );
        assert_eq!(
            relative_paths(root, &["*.c".into()], true),
            [".clang-format", ".gitignore", "lib/.ignore"]
        );
        assert_eq!(
            relative_paths(root, &["lib".into()], false),
            [".clang-format", ".gitignore", "a.c", "gen/x.c"]
        );
    }
}
