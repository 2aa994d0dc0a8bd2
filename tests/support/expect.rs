//! Expected outputs kept as files beside the inputs they belong to, read
//! and reviewed as files (see `tests/cases/README.md`).
//!
//! A check compares what a test made with the file that holds what it
//! should make. A file that is missing is written, and the check fails
//! once, saying so: it is new, to be reviewed and committed. Where `CI`
//! is set nothing is written and a missing file just fails. With
//! `POMP_BLESS=1` every file that differs is written again, and one that
//! no test makes any more is deleted: `git diff` then shows what changed.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The checks of one directory of test data, their failures gathered so
/// that one run shows them all.
pub struct Expectations {
    directory: PathBuf,
    bless: bool,
    ci: bool,
    /// The expected files checked, whether or not they exist.
    checked: BTreeSet<PathBuf>,
    failures: Vec<String>,
    /// What blessing changed, said at the end.
    blessed: Vec<String>,
}

impl Expectations {
    pub fn new(directory: &Path) -> Expectations {
        Expectations {
            directory: directory.to_path_buf(),
            bless: std::env::var_os("POMP_BLESS").is_some_and(|v| v == "1"),
            ci: std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false")),
            checked: BTreeSet::new(),
            failures: Vec::new(),
            blessed: Vec::new(),
        }
    }

    /// `file` (in the directory) must hold `actual`, or, when `actual` is
    /// `None`, must not exist.
    pub fn check(&mut self, file: &str, actual: Option<&[u8]>) {
        let path = self.directory.join(file);
        self.checked.insert(path.clone());
        let expected = std::fs::read(&path).ok();
        match (expected, actual) {
            (Some(expected), Some(actual)) if expected == actual => {}
            (None, None) => {}
            (Some(expected), Some(actual)) => {
                if self.bless {
                    write(&path, actual);
                    self.blessed.push(format!("rewrote {}", path.display()));
                } else {
                    self.failures.push(format!(
                        "{} differs from what the test made (- expected, + made; \
                         POMP_BLESS=1 writes it again):\n{}",
                        path.display(),
                        diff(&expected, actual)
                    ));
                }
            }
            (None, Some(actual)) => {
                if self.ci {
                    self.failures.push(format!(
                        "{} is missing: run the test where CI is not set to write it, \
                         review it and commit it",
                        path.display()
                    ));
                } else if self.bless {
                    write(&path, actual);
                    self.blessed.push(format!("wrote {}", path.display()));
                } else {
                    write(&path, actual);
                    self.failures.push(format!(
                        "{} was missing and is written now: review it and commit it",
                        path.display()
                    ));
                }
            }
            (Some(_), None) => {
                if self.bless {
                    std::fs::remove_file(&path).unwrap();
                    self.blessed.push(format!("deleted {}", path.display()));
                } else {
                    self.failures.push(format!(
                        "{} expects an output the test no longer makes \
                         (POMP_BLESS=1 deletes it)",
                        path.display()
                    ));
                }
            }
        }
    }

    /// A failure of the test's own, beside the files.
    pub fn fail(&mut self, failure: String) {
        self.failures.push(failure);
    }

    /// Fail with every failure; first, every file of the directory that
    /// is neither in `inputs` nor checked nor listed in `kept` belongs to
    /// no test.
    pub fn finish(mut self, inputs: &[PathBuf], kept: &[&str]) {
        for entry in std::fs::read_dir(&self.directory).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            let known = path.is_dir()
                || inputs.contains(&path)
                || self.checked.contains(&path)
                || kept.contains(&name.as_ref());
            if !known {
                if self.bless {
                    std::fs::remove_file(&path).unwrap();
                    self.blessed.push(format!("deleted {}", path.display()));
                } else {
                    self.failures.push(format!(
                        "{} belongs to no test (POMP_BLESS=1 deletes it)",
                        path.display()
                    ));
                }
            }
        }
        for blessed in &self.blessed {
            eprintln!("{blessed}");
        }
        assert!(
            self.failures.is_empty(),
            "{} failure(s):\n\n{}",
            self.failures.len(),
            self.failures.join("\n\n")
        );
    }
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// The lines that differ, with three lines of context; bytes that are not
/// UTF-8 are shown replaced, and a line holding a carriage return or
/// another control character quoted, so that a difference in them shows.
fn diff(expected: &[u8], actual: &[u8]) -> String {
    let (expected, actual) = (
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(actual),
    );
    let mut out = String::new();
    let diff = similar::TextDiff::from_lines(expected.as_ref(), actual.as_ref());
    for group in diff.grouped_ops(3) {
        writeln!(out, "@@").unwrap();
        for op in group {
            for change in diff.iter_changes(&op) {
                let sign = match change.tag() {
                    similar::ChangeTag::Delete => '-',
                    similar::ChangeTag::Insert => '+',
                    similar::ChangeTag::Equal => ' ',
                };
                let line = change.value();
                let line = line.strip_suffix('\n').unwrap_or(line);
                if line.contains(|c: char| c.is_control() && c != '\t') {
                    writeln!(out, "{sign}{line:?}").unwrap();
                } else {
                    writeln!(out, "{sign}{line}").unwrap();
                }
            }
        }
    }
    out
}
