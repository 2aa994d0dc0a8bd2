//! Each stage of the pipeline once, as a function of its own, for
//! instruction counts per stage on the inputs of `benches/instrument.rs`
//! (dense C) and `benches/lsp.rs` (10,000 lines, re-analysed after edits):
//!
//! ```text
//! cargo build --release --example stage_profile
//! valgrind --tool=callgrind --dump-instr=no target/release/examples/stage_profile dense
//! valgrind --tool=callgrind --dump-instr=no target/release/examples/stage_profile lsp
//! callgrind_annotate --inclusive=yes callgrind.out.<pid> | grep stage_
//! ```
//!
//! `stage_profile inputs DIR` writes the dense C, C++ and kernel inputs of
//! `benches/instrument.rs` to `DIR`, to time other tools on them, the
//! kernels again with user regions (`kernels_regions.c`), and the
//! 10,000-line file of `benches/lsp.rs`.
//!
//! `stage_profile times FILE...` prints the wall time of each stage on
//! each file (C by a `.c` suffix, C++ otherwise), the least of 7 runs.
//!
//! `stage_profile lsp FILE...` prints the median time from a change to
//! its diagnostics in the language server's document, on each file.
//!
//! `stage_profile extent FILE...` tells how much of each file the front
//! end parsed: the extent, and the bytes its parses read.
//!
//! `stage_profile memory FILE...` prints the heap that the file, the
//! model, the plan and the edits each hold.
//!
//! `stage_profile out` prints the output bytes, preview JSON and
//! diagnostics of both inputs, to compare two builds byte for byte.
use pomp_core::frontend::tree_sitter_c::{Parsed, TreeSitterC};
use pomp_core::frontend::FrontEnd;
use pomp_core::instrument::Options;
use pomp_core::language::Language;
use pomp_core::source::SourceFile;
use std::hint::black_box;

#[path = "../src/allocator.rs"]
mod allocator;

// The allocator the pomp binary ships with, so stage times are the ones
// users see; counting the bytes live for `memory`.
#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// mimalloc, with a count of the bytes allocated and not yet freed.
struct Counting;

static LIVE: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);
static PEAK: std::sync::atomic::AtomicIsize = std::sync::atomic::AtomicIsize::new(0);

/// Counts `grown` more bytes live (fewer, when negative), and the peak.
fn count(grown: isize) {
    let live = LIVE.fetch_add(grown, std::sync::atomic::Ordering::Relaxed);
    PEAK.fetch_max(live + grown, std::sync::atomic::Ordering::Relaxed);
}

// SAFETY: every call goes to mimalloc as made; the count is a side effect.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { allocator::Mimalloc.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { allocator::Mimalloc.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        count(-(layout.size() as isize));
        unsafe { allocator::Mimalloc.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        count(size as isize - layout.size() as isize);
        unsafe { allocator::Mimalloc.realloc(ptr, layout, size) }
    }
}

/// The process's resident anonymous memory, in KB.
fn rss_anon_kb() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    (status.lines())
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Bytes allocated and not yet freed, in KB.
fn live_kb() -> isize {
    LIVE.load(std::sync::atomic::Ordering::Relaxed) >> 10
}

#[path = "../benches/common/c_kernels.rs"]
mod c_kernels;
#[allow(dead_code)]
#[path = "../benches/common/proxy_app.rs"]
mod proxy_app;
use std::path::Path;

fn sources() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut sources = Vec::new();
    for dir in ["c", "kernels"] {
        let mut entries: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
        {
            sources.push(std::fs::read_to_string(path).unwrap());
        }
    }
    sources
}

fn dense_file(target: usize) -> Vec<u8> {
    let sources = sources();
    let mut out = String::new();
    let mut copy = 0;
    while out.len() < target {
        for source in &sources {
            out.push_str(&format!("#define main main_{copy}\n"));
            out.push_str(source);
            out.push_str("#undef main\n");
            copy += 1;
        }
    }
    out.into_bytes()
}

fn ten_thousand_lines() -> String {
    const LINES: usize = 10_000;
    let sources = sources();
    let mut out = String::new();
    let mut copy = 0;
    'fill: loop {
        for source in &sources {
            let next = format!("#define main main_{copy}\n{source}#undef main\n");
            if out.lines().count() + next.lines().count() > LINES {
                break 'fill;
            }
            out.push_str(&next);
            copy += 1;
        }
    }
    let mut n = 0;
    while out.lines().count() < LINES {
        out.push_str(&format!(
            "static int pad_{n}(int x) {{ return x + {n}; }}\n"
        ));
        n += 1;
    }
    out
}

#[inline(never)]
fn stage_front_end(file: &SourceFile) -> pomp_core::model::Model {
    TreeSitterC::default().analyse(file)
}
#[inline(never)]
fn stage_plan(file: &SourceFile, model: &pomp_core::model::Model) -> pomp_core::rules::NamedPlan {
    pomp_core::rules::check(file, model, &Options::default().rules).named(file)
}
#[inline(never)]
fn stage_emit(
    file: &SourceFile,
    model: &pomp_core::model::Model,
    plan: &pomp_core::rules::NamedPlan,
) -> pomp_core::edits::EditSet {
    pomp_core::output::emit(file, model, plan, &Options::default().output).edits
}
#[inline(never)]
fn stage_apply(file: &SourceFile, edits: &pomp_core::edits::EditSet) -> Vec<u8> {
    edits.apply(&file.bytes)
}
#[inline(never)]
fn stage_instrument(file: &SourceFile) -> pomp_core::instrument::Instrumentation {
    pomp_core::instrument::instrument(file, &Options::default())
}
#[inline(never)]
fn stage_preview(file: &SourceFile, done: &pomp_core::instrument::Instrumentation) -> usize {
    let index = pomp_preview::LineIndex::new(&file.bytes);
    let doc = pomp_preview::Document::new(file, done, &index, pomp_preview::Encoding::Utf16);
    doc.regions.len()
}
#[inline(never)]
fn stage_lsp_change(text: &str) -> usize {
    stage_lsp_changes(text, "file:///bench/ten_thousand.c", "c", 4, |_| {})
}

/// Opens `text` as a document and makes `changes` edits in its middle
/// line (a space typed, then deleted), each analysed and its diagnostics
/// serialized; `took` hears how long each took.
#[inline(never)]
fn stage_lsp_changes(
    text: &str,
    uri: &str,
    language_id: &str,
    changes: i32,
    mut took: impl FnMut(std::time::Duration),
) -> usize {
    let uri: lsp_types::Uri = uri.parse().unwrap();
    let mut document = pomp_lsp::document::Document::new(uri, language_id, 0, text.to_string());
    let options = Options::default();
    document.analyse(&options, pomp_preview::Encoding::Utf16);
    let middle = text.lines().count() as u32 / 2;
    let mut n = 0;
    for version in 1..=changes {
        let started = std::time::Instant::now();
        let change = lsp_types::TextDocumentContentChangeEvent {
            range: Some(lsp_types::Range::new(
                lsp_types::Position::new(middle, 0),
                lsp_types::Position::new(middle, if version % 2 == 1 { 0 } else { 1 }),
            )),
            range_length: None,
            text: if version % 2 == 1 {
                " ".into()
            } else {
                "".into()
            },
        };
        document.change(version, vec![change], pomp_preview::Encoding::Utf16);
        n += stage_lsp_analyse(&mut document, &options);
        took(started.elapsed());
    }
    n
}
#[inline(never)]
fn stage_lsp_analyse(document: &mut pomp_lsp::document::Document, options: &Options) -> usize {
    let analysis = document.analyse(options, pomp_preview::Encoding::Utf16);
    let diagnostics = pomp_lsp::features::diagnostics(analysis);
    stage_lsp_serialize(diagnostics)
}
#[inline(never)]
fn stage_lsp_serialize(diagnostics: Vec<lsp_types::Diagnostic>) -> usize {
    serde_json::to_string(&diagnostics).unwrap().len()
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    match which.as_str() {
        "dense" => {
            let size: usize = std::env::args()
                .nth(2)
                .map_or(1 << 20, |s| s.parse().unwrap());
            let file = SourceFile::new("bench.c", dense_file(size), Language::C);
            let model = stage_front_end(&file);
            let plan = stage_plan(&file, &model);
            let edits = stage_emit(&file, &model, &plan);
            let out = stage_apply(&file, &edits);
            black_box(out.len());
            let done = stage_instrument(&file);
            black_box(stage_preview(&file, &done));
        }
        "lsp" if std::env::args().len() > 2 => {
            // The median time from a change to its diagnostics on each
            // file named, over 21 changes.
            for path in std::env::args().skip(2) {
                let text = std::fs::read_to_string(&path).unwrap();
                let language_id = match path.ends_with(".c") {
                    true => "c",
                    false => "cpp",
                };
                let uri = format!("file:///bench/{}", path.rsplit('/').next().unwrap());
                let mut times = Vec::new();
                stage_lsp_changes(&text, &uri, language_id, 21, |t| times.push(t));
                times.sort();
                println!("{path}: didChange to diagnostics {:.2} ms median", {
                    times[times.len() / 2].as_secs_f64() * 1e3
                });
            }
        }
        "lsp" => {
            let text = ten_thousand_lines();
            let file = SourceFile::new(
                "/bench/ten_thousand.c",
                text.clone().into_bytes(),
                Language::C,
            );
            let done = stage_instrument(&file);
            black_box(stage_preview(&file, &done));
            black_box(stage_lsp_change(&text));
        }
        "out" => {
            // Every output byte, for comparing before and after.
            for file in [
                SourceFile::new("bench.c", dense_file(1 << 20), Language::C),
                SourceFile::new(
                    "/bench/ten_thousand.c",
                    ten_thousand_lines().into_bytes(),
                    Language::C,
                ),
            ] {
                let done = stage_instrument(&file);
                let index = pomp_preview::LineIndex::new(&file.bytes);
                let doc = pomp_preview::Document::new(
                    &file,
                    &done,
                    &index,
                    pomp_preview::Encoding::Utf16,
                );
                use std::io::Write;
                let mut o = std::io::stdout().lock();
                done.write_output(&file, &mut o).unwrap();
                o.write_all(serde_json::to_string(&doc).unwrap().as_bytes())
                    .unwrap();
                o.write_all(format!("{:?}", done.diagnostics).as_bytes())
                    .unwrap();
            }
        }
        "inputs" => {
            // The benchmarks' 4 MB inputs as files, to time other
            // instrumenters (or other builds of pomp) on the same bytes.
            let dir = std::path::PathBuf::from(std::env::args().nth(2).unwrap_or(".".into()));
            std::fs::write(dir.join("dense.c"), dense_file(4 << 20)).unwrap();
            std::fs::write(dir.join("dense.cpp"), proxy_app::proxy_app(4 << 20)).unwrap();
            std::fs::write(dir.join("kernels.c"), c_kernels::c_kernels(4 << 20)).unwrap();
            std::fs::write(
                dir.join("kernels_regions.c"),
                c_kernels::c_kernels_in_user_regions(4 << 20),
            )
            .unwrap();
            std::fs::write(dir.join("ten_thousand.c"), ten_thousand_lines()).unwrap();
        }
        "times" => {
            // Wall time of each stage on the files named, the least of
            // several runs each: where a whole run's time goes.
            for path in std::env::args().skip(2) {
                let bytes = std::fs::read(&path).unwrap();
                let language = match path.ends_with(".c") {
                    true => Language::C,
                    false => Language::Cpp,
                };
                let file = SourceFile::new(&path, bytes, language);
                let mut least = [f64::MAX; 5];
                for _ in 0..7 {
                    let mut lap = std::time::Instant::now();
                    let mut stages = [0.0; 5];
                    let mut take = |stage: usize| {
                        stages[stage] = lap.elapsed().as_secs_f64() * 1e3;
                        lap = std::time::Instant::now();
                    };
                    let model =
                        pomp_core::frontend::FrontEnd::analyse(&TreeSitterC::default(), &file);
                    take(0);
                    let plan = pomp_core::rules::check(&file, &model, &Options::default().rules);
                    take(1);
                    let plan = plan.named(&file);
                    let edits = stage_emit(&file, &model, &plan);
                    take(2);
                    let out = stage_apply(&file, &edits);
                    take(3);
                    black_box(out.len());
                    drop((model, plan, edits, out));
                    take(4);
                    for (l, s) in least.iter_mut().zip(stages) {
                        *l = l.min(s);
                    }
                }
                println!(
                    "{path}: front end {:.1} ms, rules {:.1}, emit {:.1}, apply {:.1}, drop {:.1}",
                    least[0], least[1], least[2], least[3], least[4]
                );
            }
        }
        "extent" => {
            // How much of each file the front end parsed: a file read
            // whole is where the partial parse found itself in doubt.
            for path in std::env::args().skip(2) {
                let bytes = std::fs::read(&path).unwrap();
                let language = Language::from_path(std::path::Path::new(&path)).unwrap();
                let file = SourceFile::new(&path, bytes, language);
                let before = Parsed::so_far();
                let (_, extent) = TreeSitterC::default().read_telling_extent(&file);
                let after = Parsed::so_far();
                println!(
                    "{path}: {extent:?}, {} of {} bytes parsed in {} parses",
                    after.bytes - before.bytes,
                    file.bytes.len(),
                    after.parses - before.parses
                );
            }
        }
        "memory" => {
            // The heap each stage's result holds, and the resident memory
            // of the process as the pomp binary would have it.
            for path in std::env::args().skip(2) {
                let bytes = std::fs::read(&path).unwrap();
                let language = Language::from_path(std::path::Path::new(&path)).unwrap();
                let file = SourceFile::new(&path, bytes, language);
                let file_kb = live_kb();
                PEAK.store(0, std::sync::atomic::Ordering::Relaxed);
                let model = stage_front_end(&file);
                let reading_kb = (PEAK.load(std::sync::atomic::Ordering::Relaxed) >> 10) - file_kb;
                // As the pomp binary does once a large file is read.
                // SAFETY: collecting frees nothing in use.
                #[allow(unsafe_code)]
                unsafe {
                    libmimalloc_sys::mi_collect(true)
                };
                let read_rss_kb = rss_anon_kb();
                let model_kb = live_kb() - file_kb;
                let plan = stage_plan(&file, &model);
                let plan_kb = live_kb() - file_kb - model_kb;
                let edits = stage_emit(&file, &model, &plan);
                let edits_kb = live_kb() - file_kb - model_kb - plan_kb;
                println!(
                    "{path}: heap held by the file {file_kb} KB, at most {reading_kb} more while \
                     reading it, then by the model {model_kb}, the plan {plan_kb}, the edits \
                     {edits_kb}; resident anonymous memory {read_rss_kb} KB once read, {} KB \
                     with the edits",
                    rss_anon_kb()
                );
                drop((model, plan, edits));
            }
        }
        _ => panic!(
            "dense [bytes] | lsp [FILE...] | out | inputs [dir] | times FILE... | extent FILE... \
             | memory FILE..."
        ),
    }
}
