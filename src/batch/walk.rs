//! Finding the files of a source tree: ripgrep's walker, with ignore files
//! (`.gitignore`, `.ignore`) and `--exclude` globs as overrides.

use anyhow::{Context, Result};
use ignore::overrides::OverrideBuilder;
use ignore::WalkBuilder;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A file or symbolic link of the tree.
#[derive(Debug)]
pub struct Found {
    /// Relative to the root.
    pub relative: PathBuf,
    /// Of the entry itself: a link is not followed.
    pub metadata: std::fs::Metadata,
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
/// keep, ordered by path, and what could not be read, as messages.
pub fn walk(root: &Path, filters: &Filters) -> Result<(Vec<Found>, Vec<String>)> {
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
        .filter_entry(move |entry| entry.file_name() != ".git" && !skip.contains(entry.path()))
        .build();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                problems.push(error.to_string());
                continue;
            }
        };
        let Some(file_type) = entry.file_type() else {
            continue;
        };
        if file_type.is_dir() {
            continue;
        }
        if !(file_type.is_file() || file_type.is_symlink()) {
            problems.push(format!(
                "{}: not a regular file or link; left out",
                entry.path().display()
            ));
            continue;
        }
        let metadata = match entry.path().symlink_metadata() {
            Ok(metadata) => metadata,
            Err(error) => {
                problems.push(format!("{}: {error}", entry.path().display()));
                continue;
            }
        };
        let relative = entry
            .path()
            .strip_prefix(root)
            .expect("the walk stays under its root")
            .to_path_buf();
        found.push(Found { relative, metadata });
    }
    found.sort_by(|a, b| by_path(&a.relative, &b.relative));
    Ok((found, problems))
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
        let (found, problems) = walk(root, &filters).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        found
            .iter()
            .map(|f| f.relative.to_string_lossy().into_owned())
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
