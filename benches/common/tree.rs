//! A generated source tree resembling a real code base, for `pomp batch`'s
//! tests and benchmarks: nested libraries of C, C++ and Fortran sources,
//! about one source in twenty with OpenMP directives, headers (one of
//! them with a directive), build files, documentation, and ignore files
//! with what they ignore. The same size gives the same bytes.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What was generated, by relative path.
#[derive(Debug, Default)]
pub struct Tree {
    /// Every file the mirror should hold.
    pub mirrored: Vec<PathBuf>,
    /// Sources with OpenMP directives: instrumented.
    pub with_openmp: Vec<PathBuf>,
    /// Headers with directives: mirrored as written, reported.
    pub headers_with_directives: Vec<PathBuf>,
    /// Files that ignore files leave out.
    pub ignored: Vec<PathBuf>,
    pub bytes: u64,
}

impl Tree {
    fn write(&mut self, root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        self.bytes += text.len() as u64;
        self.mirrored.push(relative.into());
    }

    fn ignore(&mut self, root: &Path, relative: &str, text: &str) {
        self.write(root, relative, text);
        self.mirrored.pop();
        self.bytes -= text.len() as u64;
        self.ignored.push(relative.into());
    }
}

/// Writes about `files` files under `root`.
pub fn generate(root: &Path, files: usize) -> Tree {
    let mut tree = Tree::default();
    let libraries = (files / 150).max(2);
    tree.write(root, ".gitignore", "# build products\nbuild/\n*.o\n*.log\n");
    tree.write(root, "README.md", "# generated\nA tree for pomp batch.\n");
    tree.write(
        root,
        "CMakeLists.txt",
        "cmake_minimum_required(VERSION 3.16)\nproject(generated C CXX Fortran)\n",
    );
    for library in 0..libraries {
        tree.write(root, &format!("lib{library}/common.h"), &c_header(library));
        tree.write(
            root,
            &format!("lib{library}/CMakeLists.txt"),
            &format!("add_library(lib{library} STATIC)\n"),
        );
    }
    tree.write(root, "lib0/parallel_inline.h", PARALLEL_HEADER);
    tree.headers_with_directives
        .push("lib0/parallel_inline.h".into());
    tree.write(root, "lib1/.ignore", "scratch/\n");
    tree.ignore(root, "lib1/scratch/notes.c", &c_source(0, 3, true));
    tree.ignore(root, "build/generated.c", &c_source(1, 3, true));
    tree.ignore(root, "build/main.o", "\x7fELF not really\n");
    tree.ignore(root, "lib0/run.log", "log\n");

    let mut n = 0;
    while tree.mirrored.len() < files {
        let library = n % libraries;
        let module = (n / libraries) % 4;
        let dir = format!("lib{library}/module{module}");
        // One source in twenty, of every kind.
        let openmp = (n / 20 + n % 20) % 20 == 0;
        let functions = 4 + (n * 7) % 20;
        let (name, text) = match n % 20 {
            0..=10 => (format!("{dir}/unit{n}.c"), c_source(n, functions, openmp)),
            11..=15 => (
                format!("{dir}/unit{n}.cpp"),
                cxx_source(n, functions, openmp),
            ),
            16 => (format!("{dir}/unit{n}.hpp"), cxx_header(n)),
            17 => (
                format!("{dir}/unit{n}.f90"),
                fortran_source(n, functions, openmp),
            ),
            18 => (
                format!("{dir}/unit{n}.F90"),
                fortran_source(n, functions, openmp),
            ),
            _ => (
                format!("{dir}/notes{n}.txt"),
                format!("notes on unit {n}\n"),
            ),
        };
        let source = !matches!(n % 20, 16 | 19);
        tree.write(root, &name, &text);
        if openmp && source {
            tree.with_openmp.push(name.into());
        }
        n += 1;
    }
    tree.mirrored.sort();
    tree.with_openmp.sort();
    tree
}

fn c_header(library: usize) -> String {
    format!(
        "#ifndef LIB{library}_COMMON_H\n#define LIB{library}_COMMON_H\n\
         /* Shared declarations of library {library}. */\n\
         double lib{library}_scale(double x);\nint lib{library}_count(const int *v, int n);\n\
         #endif\n"
    )
}

const PARALLEL_HEADER: &str = "#ifndef PARALLEL_INLINE_H\n#define PARALLEL_INLINE_H\n\
/* An inline kernel: its directive stays as written in the mirror. */\n\
static inline void scale_all(double *a, int n, double f)\n{\n\
#pragma omp parallel for\n    for (int i = 0; i < n; i++)\n        a[i] *= f;\n}\n#endif\n";

fn c_source(n: usize, functions: usize, openmp: bool) -> String {
    let mut out = format!(
        "/* unit {n}: generated; computes weighted sums. */\n#include <stdio.h>\n#include <string.h>\n\n"
    );
    for k in 0..functions {
        write!(
            out,
            "static double unit{n}_kernel{k}(const double *a, int len)\n{{\n\
             \x20   double s = 0.0; /* accumulate */\n\
             \x20   for (int i = 0; i < len; i++) {{\n\
             \x20       if (a[i] > 0.5) s += a[i] * {k}.0; else s -= a[i];\n\
             \x20   }}\n\
             \x20   if (s < 0) printf(\"unit {n} kernel {k}: %f\\n\", s);\n\
             \x20   return s;\n}}\n\n"
        )
        .unwrap();
    }
    if openmp {
        write!(
            out,
            "double unit{n}_parallel_sum(const double *a, int len)\n{{\n\
             \x20   double s = 0.0;\n\
             #pragma omp parallel for reduction(+:s)\n\
             \x20   for (int i = 0; i < len; i++)\n\
             \x20       s += a[i];\n\
             \x20   return s;\n}}\n\n\
             void unit{n}_update(double *a, int len)\n{{\n\
             #pragma omp parallel\n\
             \x20   {{\n\
             #pragma omp single\n\
             \x20       a[0] = 0.0;\n\
             #pragma omp for\n\
             \x20       for (int i = 1; i < len; i++)\n\
             \x20           a[i] *= 2.0;\n\
             #pragma omp critical\n\
             \x20       a[0] += 1.0;\n\
             \x20   }}\n}}\n\n"
        )
        .unwrap();
    }
    write!(
        out,
        "double unit{n}_total(const double *a, int len)\n{{\n    return 0.0"
    )
    .unwrap();
    for k in 0..functions {
        write!(out, " + unit{n}_kernel{k}(a, len)").unwrap();
    }
    out.push_str(";\n}\n");
    out
}

fn cxx_source(n: usize, functions: usize, openmp: bool) -> String {
    let mut out = format!(
        "// unit {n}: generated C++.\n#include <vector>\n#include <string>\n\n\
         namespace unit{n} {{\n\ntemplate <typename T>\nclass Accumulator {{\npublic:\n\
         \x20   explicit Accumulator(std::string name) : name_(std::move(name)) {{}}\n\
         \x20   void add(T x) {{ total_ += x; }}\n\
         \x20   T total() const {{ return total_; }}\nprivate:\n\
         \x20   std::string name_;\n    T total_{{}};\n}};\n\n"
    );
    for k in 0..functions {
        write!(
            out,
            "double kernel{k}(const std::vector<double>& a)\n{{\n\
             \x20   Accumulator<double> acc(\"kernel {k}\");\n\
             \x20   for (auto x : a) {{\n\
             \x20       auto weigh = [k = {k}](double v) {{ return v > 0.5 ? v * k : -v; }};\n\
             \x20       acc.add(weigh(x));\n\
             \x20   }}\n\
             \x20   return acc.total();\n}}\n\n"
        )
        .unwrap();
    }
    if openmp {
        out.push_str(
            "void scale(std::vector<double>& a, double f)\n{\n\
             \x20   const long n = static_cast<long>(a.size());\n\
             #pragma omp parallel for schedule(static)\n\
             \x20   for (long i = 0; i < n; i++)\n\
             \x20       a[i] *= f;\n}\n\n\
             double guarded_sum(const std::vector<double>& a)\n{\n\
             \x20   double s = 0.0;\n\
             #pragma omp parallel\n\
             \x20   {\n\
             \x20       double mine = 0.0;\n\
             #pragma omp for nowait\n\
             \x20       for (std::size_t i = 0; i < a.size(); i++)\n\
             \x20           mine += a[i];\n\
             #pragma omp atomic\n\
             \x20       s += mine;\n\
             \x20   }\n\
             \x20   return s;\n}\n\n",
        );
    }
    writeln!(out, "}} // namespace unit{n}").unwrap();
    out
}

fn cxx_header(n: usize) -> String {
    format!(
        "#pragma once\n// unit {n}: declarations.\n#include <vector>\n\
         namespace unit{n} {{\ntemplate <typename T> T first(const std::vector<T>& v) {{ return v.front(); }}\n}}\n"
    )
}

fn fortran_source(n: usize, functions: usize, openmp: bool) -> String {
    let mut out =
        format!("! unit {n}: generated Fortran.\nmodule unit{n}\n  implicit none\ncontains\n");
    for k in 0..functions {
        write!(
            out,
            "  subroutine kernel{k}(a, len, s)\n\
             \x20   integer, intent(in) :: len\n\
             \x20   double precision, intent(in) :: a(len)\n\
             \x20   double precision, intent(out) :: s\n\
             \x20   integer :: i\n\
             \x20   s = 0.0d0\n\
             \x20   do i = 1, len\n\
             \x20     if (a(i) > 0.5d0) then\n\
             \x20       s = s + a(i) * {k}.0d0\n\
             \x20     else\n\
             \x20       s = s - a(i)\n\
             \x20     end if\n\
             \x20   end do\n\
             \x20 end subroutine kernel{k}\n"
        )
        .unwrap();
    }
    if openmp {
        out.push_str(
            "  subroutine scale(a, len, f)\n\
             \x20   integer, intent(in) :: len\n\
             \x20   double precision, intent(inout) :: a(len)\n\
             \x20   double precision, intent(in) :: f\n\
             \x20   integer :: i\n\
             !$omp parallel do\n\
             \x20   do i = 1, len\n\
             \x20     a(i) = a(i) * f\n\
             \x20   end do\n\
             !$omp end parallel do\n\
             \x20 end subroutine scale\n",
        );
    }
    writeln!(out, "end module unit{n}").unwrap();
    out
}
