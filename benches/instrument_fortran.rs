//! Fortran instrumentation throughput in MB/s: large free-form and
//! fixed-form files dense with directives, and a large free-form file with
//! none, each next to copying the same bytes through a file.

mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use pomp_core::language::Language;
use std::path::Path;

/// Every Fortran corpus program of one form, repeated to about `target`
/// bytes: realistic directive density. Repeated units share names, which
/// the instrumenter does not mind.
fn dense_file(form: &str, suffix: &str, target: usize) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/fortran")
        .join(form);
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == suffix))
        .collect();
    entries.sort();
    let sources: Vec<String> = entries
        .into_iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let mut out = String::new();
    while out.len() < target {
        for source in &sources {
            out.push_str(source);
        }
    }
    out.into_bytes()
}

/// Free-form Fortran without any directive: loops, calls, comments,
/// strings and `if` statements.
fn plain_file(target: usize) -> Vec<u8> {
    let mut out = String::new();
    let mut n = 0;
    while out.len() < target {
        out.push_str(&format!(
            "! kernel {n}: a comment that mentions nothing special\n\
             subroutine kernel_{n}(a, len, s)\n\
             \x20 implicit none\n\
             \x20 integer, intent(in) :: len\n\
             \x20 double precision, intent(in) :: a(len)\n\
             \x20 double precision, intent(out) :: s\n\
             \x20 integer :: i\n\
             \x20 s = 0.0d0\n\
             \x20 do i = 1, len\n\
             \x20   if (a(i) > 0.5d0) then\n\
             \x20     s = s + a(i) * {n}.0d0\n\
             \x20   else\n\
             \x20     s = s - a(i)\n\
             \x20   end if\n\
             \x20 end do\n\
             \x20 if (s < 0.0d0) return\n\
             \x20 print *, 'kernel {n}:', s\n\
             end subroutine kernel_{n}\n"
        ));
        n += 1;
    }
    out.into_bytes()
}

fn throughput(c: &mut Criterion) {
    const SIZE: usize = 4 << 20;
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("instrument-fortran");
    group.sample_size(10);
    for (name, file_name, language, bytes) in [
        (
            "free-dense",
            "bench.f90",
            Language::FortranFree,
            dense_file("free", "f90", SIZE),
        ),
        (
            "fixed-dense",
            "bench.f",
            Language::FortranFixed,
            dense_file("fixed", "f", SIZE),
        ),
        (
            "no-directives",
            "plain.f90",
            Language::FortranFree,
            plain_file(SIZE),
        ),
    ] {
        common::bench_input(&mut group, dir.path(), name, file_name, language, bytes);
    }
    group.finish();
}

criterion_group!(benches, throughput);
criterion_main!(benches);
