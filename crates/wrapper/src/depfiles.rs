//! Dependency files (`-MD`, `-MMD`) name the sources the compiler read: the
//! instrumented copies. Rewritten, they name the user's sources again.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// A dependency file that may name `compiled` where `user` is meant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    /// Where the compiler may have written it; the first that names
    /// `compiled` is rewritten.
    pub candidates: Vec<PathBuf>,
    pub compiled: PathBuf,
    pub user: PathBuf,
}

impl Rewrite {
    pub fn apply(&self) -> Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let compiled = make_escaped(self.compiled.as_os_str().as_bytes());
        let user = make_escaped(self.user.as_os_str().as_bytes());
        for file in &self.candidates {
            let Ok(text) = std::fs::read(file) else {
                continue;
            };
            if !contains(&text, &compiled) {
                continue;
            }
            let replaced = replace_all(&text, &compiled, &user);
            std::fs::write(file, replaced)
                .with_context(|| format!("writing {}", file.display()))?;
        }
        Ok(())
    }
}

/// Where gcc and clang put a dependency file when `-MF` does not say:
/// beside the object for `-c -o`, else named after the source.
pub fn candidates(
    explicit: Option<&Path>,
    output: Option<&Path>,
    produces_one_object: bool,
    source_stem: &str,
) -> Vec<PathBuf> {
    if let Some(file) = explicit {
        return vec![file.to_path_buf()];
    }
    match (output, produces_one_object) {
        (Some(output), true) => vec![output.with_extension("d")],
        (Some(output), false) => {
            let program = output.file_stem().unwrap_or_default().to_string_lossy();
            vec![
                output.with_file_name(format!("{program}-{source_stem}.d")),
                PathBuf::from(format!("{source_stem}.d")),
            ]
        }
        (None, _) => vec![PathBuf::from(format!("{source_stem}.d"))],
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn replace_all(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
        out.extend_from_slice(&rest[..at]);
        out.extend_from_slice(to);
        rest = &rest[at + from.len()..];
    }
    out.extend_from_slice(rest);
    out
}

/// A path as gcc writes it into a dependency rule.
fn make_escaped(path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(path.len());
    for &byte in path {
        match byte {
            b' ' | b'\t' | b'#' => out.extend_from_slice(&[b'\\', byte]),
            b'$' => out.extend_from_slice(b"$$"),
            _ => out.push(byte),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_paths_are_escaped_like_gcc() {
        assert_eq!(make_escaped(b"my dir/a$b#.c"), b"my\\ dir/a$$b\\#.c");
        assert_eq!(
            replace_all(b"a.o: /t/a.c x.h /t/a.c", b"/t/a.c", b"src/a.c"),
            b"a.o: src/a.c x.h src/a.c"
        );
    }

    #[test]
    fn dependency_files_are_looked_for_where_compilers_write_them() {
        let out = Path::new("build/app");
        assert_eq!(
            candidates(None, Some(Path::new("o/a.o")), true, "a"),
            [PathBuf::from("o/a.d")]
        );
        assert_eq!(
            candidates(None, Some(out), false, "a"),
            [PathBuf::from("build/app-a.d"), PathBuf::from("a.d")]
        );
        assert_eq!(candidates(None, None, false, "a"), [PathBuf::from("a.d")]);
        assert_eq!(
            candidates(Some(Path::new("x.d")), Some(out), false, "a"),
            [PathBuf::from("x.d")]
        );
    }
}
