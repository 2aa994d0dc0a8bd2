//! What `pomp batch` costs.
//!
//! `per-core`: MB/s of one thread on 4 MB files dense with directives (C,
//! C++, Fortran), next to the raw tree-sitter parse of the same bytes and
//! a copy through the file system: the floor and the ceiling of what the
//! per-file work can cost.
//!
//! `tree`: a generated tree resembling a real code base (3000 files, one
//! source in twenty with OpenMP, headers, build files) mirrored at one
//! core and at every core, against running `pomp instrument` once per
//! source the way a build runs a one-file-at-a-time instrumenter, at one
//! and at every core; and the second run over the unchanged tree, as
//! every run walks it and with a watcher that saw nothing change.
//! Throughput is the tree's bytes over the wall time. A sample of the
//! per-file runs starts some 2700 processes: ten of them take minutes.
//!
//! The tree is left in `target/tmp/pomp-batch-bench` for
//! `scripts/bench-batch`, which adds peak memory.

#[path = "common/tree.rs"]
mod tree;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use pomp_batch::Config;
use pomp_core::instrument::{instrument, Options};
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use rayon::prelude::*;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

const DENSE_SIZE: usize = 4 << 20;
const TREE_FILES: usize = 3000;

fn corpus(dir: &str, suffix: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == suffix))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// `sources` repeated to about `target` bytes; `wrap` gives each copy its
/// own names where the language needs them.
fn repeated(sources: &[String], target: usize, wrap: impl Fn(usize, &str) -> String) -> Vec<u8> {
    let mut out = String::new();
    let mut copy = 0;
    while out.len() < target {
        for source in sources {
            out.push_str(&wrap(copy, source));
            copy += 1;
        }
    }
    out.into_bytes()
}

fn dense_inputs() -> Vec<(&'static str, Language, Vec<u8>)> {
    let mut c = corpus("c", "c");
    c.extend(corpus("kernels", "c"));
    vec![
        (
            "dense-c",
            Language::C,
            repeated(&c, DENSE_SIZE, |n, s| {
                format!("#define main main_{n}\n{s}#undef main\n")
            }),
        ),
        (
            "dense-c++",
            Language::Cpp,
            repeated(&corpus("cxx", "cpp"), DENSE_SIZE, |n, s| {
                format!("namespace copy_{n} {{\n}}\n{s}")
            }),
        ),
        (
            "dense-fortran",
            Language::FortranFree,
            repeated(&corpus("fortran/free", "f90"), DENSE_SIZE, |_, s| {
                s.to_string()
            }),
        ),
    ]
}

fn grammar(language: Language) -> tree_sitter::Language {
    match language {
        Language::C => pomp_grammars::C.into(),
        Language::Cpp => pomp_grammars::CPP.into(),
        _ => pomp_grammars::FORTRAN.into(),
    }
}

fn per_core(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("per-core");
    group.sample_size(10);
    let options = Options::default();
    for (name, language, bytes) in dense_inputs() {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        let file = SourceFile::new(format!("{name}.src"), bytes.clone(), language);
        assert!(!instrument(&file, &options).has_errors(), "{name}");
        group.bench_function(format!("pomp/{name}"), |b| {
            b.iter(|| black_box(instrument(&file, &options).output(&file).len()))
        });
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&grammar(language)).unwrap();
        group.bench_function(format!("tree-sitter-parse/{name}"), |b| {
            b.iter(|| black_box(parser.parse(&bytes, None).unwrap().root_node().end_byte()))
        });
        let (input, output) = (
            dir.path().join(name),
            dir.path().join(format!("{name}.out")),
        );
        std::fs::write(&input, &bytes).unwrap();
        group.bench_function(format!("copy/{name}"), |b| {
            b.iter(|| {
                let data = std::fs::read(&input).unwrap();
                pomp_files::write_atomically(&output, &data).unwrap();
            })
        });
    }
    group.finish();
}

/// Where the benchmark tree is generated and left.
fn tree_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pomp-batch-bench")
}

fn batch_config(src: &Path, out: &Path, jobs: usize) -> Config {
    let mut config = Config::new(Some(src.to_path_buf()), out.to_path_buf());
    config.jobs = Some(jobs);
    config
}

fn tree_runs(c: &mut Criterion) {
    let root = tree_root();
    let _ = std::fs::remove_dir_all(&root);
    let src = root.join("src");
    let generated = tree::generate(&src, TREE_FILES);
    // An unchanged tree has not been written just before a run: statuses
    // this recent are checked by content (see the cache).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sources: Vec<PathBuf> = generated
        .mirrored
        .iter()
        .filter(|p| {
            let header = p.extension().is_some_and(|e| e == "h" || e == "hpp");
            Language::from_path(p).is_some() && !header
        })
        .cloned()
        .collect();
    eprintln!(
        "tree: {} files, {:.1} MB, {} sources, {} with OpenMP",
        generated.mirrored.len(),
        generated.bytes as f64 / 1e6,
        sources.len(),
        generated.with_openmp.len()
    );

    let mut group = c.benchmark_group("tree");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(generated.bytes));
    let out = root.join("out");
    for (name, jobs) in [("batch-1-core", 1), ("batch-all-cores", cores)] {
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let _ = std::fs::remove_dir_all(&out);
                },
                |()| {
                    let outcome = pomp_batch::run(
                        &batch_config(&src, &out, jobs),
                        &pomp_batch::Quiet,
                        &mut |_| {},
                    );
                    assert!(!outcome.unwrap().failed());
                },
                BatchSize::PerIteration,
            )
        });
    }
    let _ = std::fs::remove_dir_all(&out);
    let first = pomp_batch::run(
        &batch_config(&src, &out, cores),
        &pomp_batch::Quiet,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(first.summary.instrumented, generated.with_openmp.len());
    group.bench_function("batch-unchanged-all-cores", |b| {
        b.iter(|| {
            let outcome = pomp_batch::run(
                &batch_config(&src, &out, cores),
                &pomp_batch::Quiet,
                &mut |_| {},
            )
            .unwrap();
            assert_eq!(outcome.summary.unchanged, generated.mirrored.len());
        })
    });
    let watched_out = root.join("watched");
    let mut watched = batch_config(&src, &watched_out, cores);
    watched.watch = Some(PathBuf::from(env!("CARGO_BIN_EXE_pomp")));
    pomp_batch::run(&watched, &pomp_batch::Quiet, &mut |_| {}).unwrap();
    group.bench_function("batch-unchanged-watched-all-cores", |b| {
        b.iter(|| {
            let outcome = pomp_batch::run(&watched, &pomp_batch::Quiet, &mut |_| {}).unwrap();
            assert_eq!(outcome.watcher, Some(pomp_batch::Watched::NothingChanged));
        })
    });
    // Its watcher stops with it.
    let _ = std::fs::remove_dir_all(&watched_out);

    let pomp = env!("CARGO_BIN_EXE_pomp");
    let per_file_out = root.join("per-file");
    for (name, jobs) in [
        ("instrument-per-file-1-core", 1),
        ("instrument-per-file-all-cores", cores),
    ] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .unwrap();
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let _ = std::fs::remove_dir_all(&per_file_out);
                },
                |()| {
                    pool.install(|| {
                        sources.par_iter().for_each(|source| {
                            let output = per_file_out.join(source);
                            std::fs::create_dir_all(output.parent().unwrap()).unwrap();
                            let status = Command::new(pomp)
                                .arg("instrument")
                                .arg(src.join(source))
                                .arg("-o")
                                .arg(&output)
                                .status()
                                .unwrap();
                            assert!(status.success());
                        })
                    })
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, per_core, tree_runs);
criterion_main!(benches);
