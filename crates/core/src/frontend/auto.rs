//! `--frontend auto` with the compile flags known: a C or C++ file is read
//! with tree-sitter, and again with libclang only where tree-sitter's
//! reading may not be the compiler's.
//!
//! libclang reads a file with every header it includes, which on a large
//! C++ file costs half a compile; tree-sitter reads only the file. Its
//! reading is exact unless the compiled code depends on what only the
//! preprocessor knows: a directive or its block in a conditional branch
//! whose condition names a macro other than `_OPENMP`, which the
//! compilation with OpenMP defines (clang drops the branches the flags skip
//! and reads a loop header an `#if` chooses as compiled), a directive a
//! macro produces (`_Pragma` in the file or in a header it includes from
//! the project), or an error tree-sitter reports (a block that is a macro's
//! expansion). Those files are read with clang, as `--frontend clang`
//! reads them; `--cross-check` compares both readings of any file.

use super::lexical::expression::{self, Known, Truth};
use super::libclang::{self, Clang, CompileFlags};
use super::reading::FrontEnd;
use super::tree_sitter_c;
use crate::diagnostics::Diagnostic;
use crate::model::{Branch, Found};
use crate::source::SourceFile;
use std::cell::Cell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Headers looked at for `_Pragma` per file, the includes of includes
/// among them: a project's own headers are few; past this many, clang
/// reads the file.
const HEADERS_LOOKED_AT: usize = 256;

pub struct Auto {
    flags: CompileFlags,
    regions: crate::model::CodeRegions,
    chosen: Cell<&'static str>,
}

impl Auto {
    pub fn new(flags: CompileFlags, regions: crate::model::CodeRegions) -> Auto {
        Auto {
            flags,
            regions,
            chosen: Cell::new("tree-sitter"),
        }
    }
}

impl FrontEnd for Auto {
    fn name(&self) -> &'static str {
        self.chosen.get()
    }

    fn read(&self, file: &SourceFile) -> Found {
        let tree_sitter = tree_sitter_c::TreeSitterC {
            regions: self.regions.clone(),
            ..Default::default()
        }
        .read(file);
        if !needs_clang(file, &tree_sitter, &self.flags) || !libclang::available() {
            return tree_sitter;
        }
        match Clang::new(self.flags.clone())
            .reading(self.regions.clone())
            .read_detailed(file)
        {
            Ok((found, _)) => {
                self.chosen.set("clang");
                found
            }
            // A compiler difference or a missing header should not stop a
            // build that gcc would compile.
            Err(errors) => {
                let mut found = tree_sitter;
                let first = &errors[0];
                found.diagnostics.push(Diagnostic::note(
                    first.span.clone(),
                    "clang could not read this file as the compiler would; read with \
                     tree-sitter instead",
                    first.message.clone(),
                ));
                found
            }
        }
    }
}

/// Whether tree-sitter's reading of `file` may differ from the compiler's.
fn needs_clang(file: &SourceFile, found: &Found, flags: &CompileFlags) -> bool {
    // A branch tree-sitter decides (`#ifdef _OPENMP`, `#if 0`) is decided
    // as the compiler decides it: only a macro's condition needs clang.
    let known = Known {
        cplusplus: file.language == crate::language::Language::Cpp,
    };
    let undecided = |b: &Branch| expression::evaluate(&b.condition, known) == Truth::Unknown;
    found.has_errors()
        || found.sites.iter().any(|site| {
            let extent = match &site.block {
                Some(block) => site.span.start.min(block.start)..block.end.max(site.span.end),
                None => site.span.clone(),
            };
            found
                .branches
                .iter()
                .any(|b| b.span.start < extent.end && extent.start < b.span.end && undecided(b))
        })
        || mentions_pragma_operator(&file.bytes)
        || includes_pragma_operator(file, flags)
}

fn mentions_pragma_operator(bytes: &[u8]) -> bool {
    memchr::memmem::find(bytes, b"_Pragma").is_some()
}

/// Whether a header the file includes from the project (found beside the
/// file or in a directory the flags name, not in the system's) mentions
/// `_Pragma`, directly or through its own includes.
fn includes_pragma_operator(file: &SourceFile, flags: &CompileFlags) -> bool {
    let search = SearchPath::new(flags);
    let main = flags.absolute(&file.path);
    let mut pending: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut queue = |from: &Path, text: &[u8], pending: &mut Vec<(PathBuf, Vec<u8>)>| {
        for (name, quoted) in included_names(text) {
            if let Some(path) = search.find(from.parent(), &name, quoted) {
                if seen.insert(path.clone()) {
                    pending.push((path, Vec::new()));
                }
            }
        }
    };
    for forced in &search.forced {
        pending.push((forced.clone(), Vec::new()));
    }
    queue(&main, &file.bytes, &mut pending);
    let mut looked_at = 0;
    while let Some((path, _)) = pending.pop() {
        looked_at += 1;
        if looked_at > HEADERS_LOOKED_AT {
            return true;
        }
        let Ok(text) = std::fs::read(&path) else {
            continue;
        };
        if mentions_pragma_operator(&text) {
            return true;
        }
        queue(&path, &text, &mut pending);
    }
    false
}

/// The directories a compile searches for the project's headers, and the
/// headers `-include` forces in.
struct SearchPath {
    quoted: Vec<PathBuf>,
    angled: Vec<PathBuf>,
    forced: Vec<PathBuf>,
}

impl SearchPath {
    fn new(flags: &CompileFlags) -> SearchPath {
        let mut search = SearchPath {
            quoted: Vec::new(),
            angled: Vec::new(),
            forced: Vec::new(),
        };
        for arg in &flags.args {
            // Longer options first: `-include` is not `-I`.
            if let Some(path) = arg.strip_prefix("-include") {
                search.forced.push(flags.absolute(Path::new(path)));
            } else if let Some(dir) = arg.strip_prefix("-iquote") {
                search.quoted.push(flags.absolute(Path::new(dir)));
            } else if let Some(dir) = ["-isystem", "-idirafter", "-I"]
                .iter()
                .find_map(|option| arg.strip_prefix(option))
            {
                search.angled.push(flags.absolute(Path::new(dir)));
            }
        }
        search
    }

    /// Where the compiler finds an included header of the project;
    /// `None` for a system header or one not found.
    fn find(&self, includer: Option<&Path>, name: &str, quoted: bool) -> Option<PathBuf> {
        let beside = includer.filter(|_| quoted).map(Path::to_path_buf);
        let quoted = self.quoted.iter().filter(|_| quoted).cloned();
        beside
            .into_iter()
            .chain(quoted)
            .chain(self.angled.iter().cloned())
            .map(|dir| dir.join(name))
            .find(|path| path.is_file())
    }
}

/// The headers `#include` lines name, and whether each is written in
/// quotes.
fn included_names(text: &[u8]) -> impl Iterator<Item = (String, bool)> + '_ {
    text.split(|&b| b == b'\n').filter_map(|line| {
        let line = std::str::from_utf8(line).ok()?.trim_start();
        let rest = line.strip_prefix('#')?.trim_start();
        let rest = rest
            .strip_prefix("include_next")
            .or_else(|| rest.strip_prefix("include"))?
            .trim_start();
        let (close, quoted) = match rest.chars().next()? {
            '"' => ('"', true),
            '<' => ('>', false),
            _ => return None,
        };
        let name = &rest[1..];
        Some((name[..name.find(close)?].to_string(), quoted))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_are_read_from_their_lines() {
        let text = b"#include <stdio.h>\n  #  include \"omp_macros.h\" // x\n#define A 1\n";
        let names: Vec<_> = included_names(text).collect();
        assert_eq!(
            names,
            [
                ("stdio.h".to_string(), false),
                ("omp_macros.h".into(), true)
            ]
        );
    }

    #[test]
    fn only_a_branch_under_a_macro_needs_clang() {
        let flags = CompileFlags::default();
        let needs = |text: &str| {
            let file = SourceFile::new(
                PathBuf::from("a.cpp"),
                text.as_bytes().to_vec(),
                crate::language::Language::Cpp,
            );
            let found = tree_sitter_c::TreeSitterC::default().read(&file);
            needs_clang(&file, &found, &flags)
        };
        let body = "#pragma omp parallel\n  { n = omp_get_num_threads(); }\n";
        let within = |condition: &str| {
            format!("int f() {{\n  int n = 1;\n{condition}\n{body}#endif\n  return n;\n}}\n")
        };
        assert!(!needs(&within("#ifdef _OPENMP")));
        assert!(!needs(&within("#if defined(_OPENMP) && __cplusplus")));
        assert!(!needs(&within("#if 1")));
        // The version `_OPENMP` stands for is the compiler's.
        assert!(needs(&within("#if _OPENMP >= 201307")));
        assert!(needs(&within("#ifdef USE_THREADS")));
        assert!(needs(&within("#if defined(_OPENMP) && USE_THREADS")));
        // A decided branch inside an undecided one is as undecided.
        let nested = format!("#ifdef USE_THREADS\n{}#endif\n", within("#ifdef _OPENMP"));
        assert!(needs(&nested));
    }

    #[test]
    fn a_header_of_the_project_with_pragma_operators_needs_clang() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("inc")).unwrap();
        std::fs::write(
            dir.path().join("inc/par.h"),
            "#define PARFOR _Pragma(\"omp parallel for\")\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("inner.h"), "#include <par.h>\n").unwrap();
        let source = dir.path().join("a.c");
        let text = "#include <stdio.h>\n#include \"inner.h\"\nint main(void) { return 0; }\n";
        let file = SourceFile::new(
            source.clone(),
            text.as_bytes().to_vec(),
            crate::language::Language::C,
        );
        let flags = |args: &[&str]| CompileFlags {
            args: args.iter().map(|a| a.to_string()).collect(),
            directory: Some(dir.path().to_path_buf()),
            ..CompileFlags::default()
        };
        assert!(includes_pragma_operator(&file, &flags(&["-Iinc"])));
        // Without the directory, `par.h` is not the project's.
        assert!(!includes_pragma_operator(&file, &flags(&[])));
    }
}
