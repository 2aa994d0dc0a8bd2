//! `pomp report` on real profiles: the programs of corpus/report are built
//! through the compiler wrapper, run on a team of threads, and their
//! profiles (and traces) reported on. Each program does something whose
//! figures are known from its arguments — a region that sleeps, a loop
//! whose iterations sleep unequal times, a loop of barriers, a tree of
//! tasks — and the report must show them. The pictures must parse, name
//! every region, and the HTML page must render in a browser without script
//! errors.

#[path = "support/runtime_library.rs"]
mod runtime_library;
#[path = "support/shared_scratch.rs"]
mod shared_scratch;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use tempfile::TempDir;

const THREADS: u64 = 3;
const MS: f64 = 1e6;

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn pomp() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pomp"));
    command.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
    command
}

fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// Run to success, or fail the test with everything the command printed.
fn succeed(command: &mut Command) -> Output {
    let output = run(command);
    assert!(
        output.status.success(),
        "{command:?} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The corpus/report programs, built once through `pomp cc` with their IDF
/// descriptors kept.
struct Programs {
    dir: PathBuf,
}

impl Programs {
    fn get() -> &'static Programs {
        static PROGRAMS: OnceLock<Programs> = OnceLock::new();
        PROGRAMS.get_or_init(|| {
            let dir = shared_scratch::directory("pomp-report-programs");
            for (name, flags) in [
                ("sleep_region", &[][..]),
                ("imbalanced_loop", &[]),
                ("barrier_heavy", &[]),
                ("task_tree", &[]),
                ("recursive_tasks", &["--pomp-keep-untied"]),
                ("nested_locks", &[]),
                ("known_classes", &[]),
            ] {
                build(
                    dir.as_path(),
                    &repository().join(format!("corpus/report/{name}.c")),
                    name,
                    flags,
                );
            }
            for (name, source) in [
                ("call_path", "call_path.c"),
                ("call_path_cxx", "call_path.cpp"),
            ] {
                let source = repository().join("corpus/report").join(source);
                build(dir.as_path(), &source, name, &["--pomp-regions=functions"]);
                build_plain(dir.as_path(), &source, &format!("{name}.plain"));
            }
            // The loop again after an edit: another build of the same program.
            let source =
                std::fs::read_to_string(repository().join("corpus/report/imbalanced_loop.c"))
                    .unwrap()
                    .replace("#include <omp.h>", "#include <omp.h>\n/* edited */\n");
            let edited = dir.join("edited").join("imbalanced_loop.c");
            std::fs::create_dir_all(edited.parent().unwrap()).unwrap();
            std::fs::write(&edited, source).unwrap();
            build(edited.parent().unwrap(), &edited, "imbalanced_loop", &[]);
            Programs { dir }
        })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

fn is_cxx(source: &Path) -> bool {
    source.extension().is_some_and(|e| e == "cpp")
}

fn build(dir: &Path, source: &Path, name: &str, flags: &[&str]) {
    succeed(
        pomp()
            .current_dir(dir)
            .env("POMP_RUNTIME_DIR", runtime_library::directory())
            .env_remove("POMP_RUNTIME")
            .env_remove("POMP_CC")
            .env_remove("POMP_CXX")
            .arg(if is_cxx(source) { "cxx" } else { "cc" })
            .args(flags)
            .args(["-fopenmp", "-O2", "--pomp-keep", "-I"])
            .arg(repository().join("corpus/report"))
            .arg(source)
            .arg("-o")
            .arg(name),
    );
}

/// The program as written, without pomp.
fn build_plain(dir: &Path, source: &Path, name: &str) {
    succeed(
        Command::new(if is_cxx(source) { "g++" } else { "gcc" })
            .current_dir(dir)
            .args(["-fopenmp", "-O2"])
            .arg(source)
            .arg("-o")
            .arg(name),
    );
}

/// One run of a program: its profile, and its trace when asked for.
struct Profiled {
    _dir: TempDir,
    profile: PathBuf,
    dir: PathBuf,
    /// What the program printed.
    stdout: String,
}

fn profile(program: &Path, threads: u64, args: &[&str], env: &[(&str, &str)]) -> Profiled {
    let dir = tempfile::Builder::new()
        .prefix("pomp-report-run")
        .tempdir()
        .unwrap();
    let profile = dir.path().join("profile.json");
    let output = succeed(
        Command::new(program)
            .current_dir(dir.path())
            .args(args)
            .env("OMP_NUM_THREADS", threads.to_string())
            .env("OMP_PROC_BIND", "false")
            .env("POMP_PROFILE", &profile)
            .env("POMP_SUMMARY", "0")
            .env_remove("POMP_TRACE")
            .envs(env.iter().copied()),
    );
    // With a rank, the runtime puts it in the name: profile.rank<N>.json.
    let profile = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| {
            let name = path.file_name().unwrap().to_string_lossy();
            name.starts_with("profile.") && name.ends_with(".json")
        })
        .unwrap_or_else(|| panic!("{} wrote no profile", program.display()));
    let written: Value = serde_json::from_slice(&std::fs::read(&profile).unwrap()).unwrap();
    assert_eq!(
        written["version"],
        pomp2::profile::VERSION,
        "the runtime writes another profile version than the report reads"
    );
    Profiled {
        profile,
        dir: dir.path().to_path_buf(),
        stdout: text(&output.stdout),
        _dir: dir,
    }
}

/// `pomp report ... --format json`, parsed.
fn json_report(args: &[&Path], extra: &[&str]) -> Value {
    let output = succeed(
        pomp()
            .arg("report")
            .args(args)
            .args(["--format", "json"])
            .args(extra),
    );
    serde_json::from_slice(&output.stdout).expect("the report is JSON")
}

fn rows(report: &Value) -> &Vec<Value> {
    report["rows"].as_array().expect("rows")
}

fn row<'a>(report: &'a Value, what: &str) -> &'a Value {
    rows(report)
        .iter()
        .find(|r| r["what"] == what)
        .unwrap_or_else(|| panic!("no row {what:?} in {:#}", report["rows"]))
}

fn mean(value: &Value) -> f64 {
    value["mean"]
        .as_f64()
        .unwrap_or_else(|| panic!("no mean in {value}"))
}

fn class<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["overheads"]["classes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["class"] == name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

#[test]
fn a_sleeping_region_takes_the_time_it_sleeps() {
    let nap_ms = 200.0;
    let run = profile(
        &Programs::get().path("sleep_region"),
        THREADS,
        &["200"],
        &[],
    );
    let report = json_report(&[&run.profile], &[]);
    let nap = row(&report, "region (nap)");
    let slept = mean(&nap["inclusive_ns"]);
    assert!(
        (nap_ms * MS..nap_ms * 2.0 * MS).contains(&slept),
        "the nap took {slept} ns"
    );
    assert_eq!(nap["threads"], 1);
    let region = &report["regions"][nap["region"].as_u64().unwrap() as usize];
    assert_eq!(region["unit"], "main");
    assert_eq!(
        region["file"]
            .as_str()
            .map(|f| f.ends_with("sleep_region.c")),
        Some(true)
    );
    // While the initial thread naps, the other threads have nothing to do.
    let loss = mean(&class(&report, "loss_of_parallelism")["ns"]);
    let idle_threads = (THREADS - 1) as f64;
    assert!(
        loss >= idle_threads * nap_ms * MS,
        "loss of parallelism {loss} ns, less than {idle_threads} threads × the nap"
    );
    let text = text(&succeed(pomp().arg("report").arg(&run.profile)).stdout);
    assert!(text.contains("region (nap)"), "{text}");
    assert!(text.contains("sleep_region.c:"), "{text}");
}

#[test]
fn an_imbalanced_loop_shows_its_imbalance_and_speed_up() {
    // Long enough that a thread which the machine's load starts a few
    // milliseconds late (its wait at the barrier is shorter by as much)
    // does not blur what the imbalance costs.
    let unit_ms = 100.0;
    let iterations = THREADS;
    let program = Programs::get().path("imbalanced_loop");
    let args = ["100", "3"];
    let parallel = profile(&program, THREADS, &args, &[]);
    let serial = profile(&program, 1, &args, &[]);
    let report = json_report(&[&parallel.profile], &[]);
    let [loop_] = report["imbalance"].as_array().unwrap().as_slice() else {
        panic!("one worksharing loop expected: {:#}", report["imbalance"]);
    };
    // Thread i sleeps i + 1 units: imbalance (n − 1) / 2n.
    let expected = (iterations - 1) as f64 / (2 * iterations) as f64;
    let imbalance = loop_["imbalance"].as_f64().unwrap();
    assert!(
        (imbalance - expected).abs() < 0.06,
        "imbalance {imbalance}, expected about {expected}: {loop_:#}"
    );
    assert_eq!(loop_["threads"], THREADS);
    assert!(loop_["work_ns"]["min"].as_f64().unwrap() >= unit_ms * MS);
    assert!(loop_["work_ns"]["max"].as_f64().unwrap() >= iterations as f64 * unit_ms * MS);
    // The waiting at the loop's barrier is what the imbalance costs.
    let barrier = row(&report, "implicit barrier of parallel for");
    let waited = mean(&barrier["inclusive_ns"]);
    let lost = loop_["lost_ns"].as_f64().unwrap();
    assert!(
        waited >= 0.9 * lost,
        "waited {waited} ns at the barrier, the imbalance lost {lost} ns: {barrier:#}"
    );

    // One thread sleeps 1 + 2 + 3 units, three threads 3 units.
    let compared = json_report(
        &[&parallel.profile],
        &["--baseline", serial.profile.to_str().unwrap()],
    );
    let baseline = &compared["baseline"];
    let speedup = baseline["speedup"].as_f64().unwrap();
    // At most 2 (the busiest thread sleeps half of it all), never near 3.
    assert!(
        (1.4..2.2).contains(&speedup),
        "speed-up {speedup}: {baseline:#}"
    );
    let identified: i64 = baseline["identified"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[1].as_i64().unwrap())
        .sum();
    assert_eq!(
        identified + baseline["unidentified_ns"].as_i64().unwrap(),
        baseline["total_overhead_ns"].as_i64().unwrap()
    );
    assert_eq!(baseline["other_build"], false);
    let text = text(
        &succeed(
            pomp()
                .arg("report")
                .arg(&parallel.profile)
                .arg("--baseline")
                .arg(&serial.profile),
        )
        .stdout,
    );
    assert!(text.contains("speed-up"), "{text}");
    assert!(text.contains("T_p − T_1/p"), "{text}");
}

#[test]
fn a_barrier_heavy_loop_is_dominated_by_synchronisation() {
    let run = profile(
        &Programs::get().path("barrier_heavy"),
        THREADS,
        &["500", "200"],
        &[],
    );
    let report = json_report(&[&run.profile], &[]);
    let sync = class(&report, "synchronisation");
    let share = sync["share"].as_f64().unwrap();
    assert!(share > 0.5, "synchronisation share {share}: {sync:#}");
    let work = class(&report, "work")["share"].as_f64().unwrap();
    assert!(share > work, "synchronisation {share} against work {work}");
    let parallel = report["region_overheads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["label"].as_str().unwrap().starts_with("parallel"))
        .expect("the parallel region's overheads");
    assert!(
        parallel["sync_share"].as_f64().unwrap() > 0.5,
        "{parallel:#}"
    );
    assert_eq!(
        mean(&row(&report, "barrier")["visits"]) as u64,
        500 * THREADS
    );
}

#[test]
fn overhead_classes_add_up_and_the_known_one_dominates() {
    for (what, dominant, reading) in [
        ("serial", "loss_of_parallelism", "serial code"),
        ("imbalanced", "synchronisation", "barriers"),
        ("critical", "synchronisation", "critical section"),
        ("tasks", "work", "computation"),
    ] {
        let run = profile(
            &Programs::get().path("known_classes"),
            THREADS,
            &[what, "20"],
            &[],
        );
        let report = json_report(&[&run.profile], &[]);
        let classes = report["overheads"]["classes"].as_array().unwrap();
        let ns = |class: &Value| mean(&class["ns"]);
        let sum: f64 = classes.iter().map(ns).sum();
        let thread_time = mean(&report["thread_time_ns"]);
        assert_eq!(sum, thread_time, "{what}: {classes:#?}");
        let largest = classes
            .iter()
            .max_by(|a, b| ns(a).total_cmp(&ns(b)))
            .unwrap();
        assert_eq!(largest["class"], dominant, "{what}: {classes:#?}");
        assert!(
            largest["reading"].as_str().unwrap().contains(reading),
            "{what}: {largest:#}"
        );
        let text = text(&succeed(pomp().arg("report").arg(&run.profile)).stdout);
        let html = page_of(&run);
        let page = scraper::Html::parse_document(&std::fs::read_to_string(&html).unwrap());
        let cells = scraper::Selector::parse("#classes tbody td").unwrap();
        let page_cells: Vec<String> = page.select(&cells).map(|c| c.text().collect()).collect();
        for class in classes {
            let reading = class["reading"].as_str().unwrap();
            assert!(
                page_cells.iter().any(|c| c == reading),
                "{what}: {reading:?} not on the page"
            );
            let line = format!(
                "  - {}: {}\n",
                class_name(class["class"].as_str().unwrap()),
                class["reading"].as_str().unwrap()
            );
            assert!(text.contains(&line), "{what}: {line:?} not in\n{text}");
        }
    }
}

/// The HTML page of a run's profile, written beside it.
fn page_of(run: &Profiled) -> PathBuf {
    let html = run.dir.join("report.html");
    succeed(
        pomp()
            .arg("report")
            .arg(&run.profile)
            .arg("--html")
            .arg(&html),
    );
    html
}

/// A class as the text report names it.
fn class_name(class: &str) -> &'static str {
    match class {
        "control" => "control of parallelism",
        "synchronisation" => "synchronisation",
        "loss_of_parallelism" => "loss of parallelism",
        "data_movement" => "data movement",
        "work" => "work and the rest",
        other => panic!("no class {other}"),
    }
}

#[test]
fn task_counts_and_relations_are_exact() {
    let (outer, inner) = (40, 3);
    let run = profile(
        &Programs::get().path("task_tree"),
        THREADS,
        &["40", "3", "50"],
        &[("POMP_TRACE", "1")],
    );
    let report = json_report(&[&run.profile], &[]);
    let tasks = &report["tasks"];
    assert_eq!(mean(&tasks["created"]) as u64, outer + outer * inner);
    assert_eq!(mean(&tasks["executed"]) as u64, outer + outer * inner);
    let constructs = tasks["constructs"].as_array().unwrap();
    let line_of = |label: &str| {
        label
            .rsplit_once(':')
            .unwrap()
            .1
            .trim_end_matches(')')
            .parse::<u32>()
            .unwrap()
    };
    let mut counts: Vec<(u32, u64, u64)> = constructs
        .iter()
        .map(|c| {
            (
                line_of(c["label"].as_str().unwrap()),
                mean(&c["created"]) as u64,
                mean(&c["executed"]) as u64,
            )
        })
        .collect();
    counts.sort();
    // The outer task comes first in the file.
    assert_eq!(
        counts.iter().map(|c| (c.1, c.2)).collect::<Vec<_>>(),
        [(outer, outer), (outer * inner, outer * inner)]
    );
    let relations: Vec<(String, String, u64)> = tasks["relations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["parent_label"].as_str().unwrap().to_string(),
                r["child_label"].as_str().unwrap().to_string(),
                mean(&r["count"]) as u64,
            )
        })
        .collect();
    let outer_label = constructs
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .find(|l| line_of(l) == counts[0].0)
        .unwrap();
    let inner_label = constructs
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .find(|l| line_of(l) == counts[1].0)
        .unwrap();
    assert_eq!(
        relations,
        [
            ("implicit task".to_string(), outer_label.to_string(), outer),
            (
                outer_label.to_string(),
                inner_label.to_string(),
                outer * inner
            )
        ]
    );
    // Every task is in the histogram; each inner task slept 50 µs.
    let histograms = tasks["histogram"].as_array().unwrap();
    let total: u64 = histograms
        .iter()
        .map(|h| h["tasks"].as_u64().unwrap())
        .sum();
    assert_eq!(total, outer + outer * inner);
    let inner_histogram = histograms
        .iter()
        .find(|h| h["label"] == inner_label)
        .unwrap();
    for bucket in inner_histogram["buckets"].as_array().unwrap() {
        let to = bucket["to_ns"].as_u64().unwrap_or(u64::MAX);
        if to <= 50_000 {
            assert_eq!(
                bucket["count"], 0,
                "a task shorter than its sleep: {bucket}"
            );
        }
    }
}

#[test]
fn pictures_parse_and_name_every_region() {
    let run = profile(
        &Programs::get().path("task_tree"),
        THREADS,
        &["20", "3", "50"],
        &[("POMP_TRACE", "1")],
    );
    let svg = run.dir.join("flame.svg");
    let html = run.dir.join("report.html");
    let speedscope = run.dir.join("speedscope.json");
    let output = succeed(
        pomp()
            .arg("report")
            .arg(&run.profile)
            .arg("--flamegraph")
            .arg(&svg)
            .arg("--html")
            .arg(&html)
            .arg("--speedscope")
            .arg(&speedscope),
    );
    assert!(
        text(&output.stderr).contains("wrote"),
        "{}",
        text(&output.stderr)
    );
    let report = json_report(&[&run.profile], &[]);
    let labels: Vec<&str> = rows(&report)
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert!(labels.len() >= 8, "{labels:?}");

    let svg_text = std::fs::read_to_string(&svg).unwrap();
    let document = parse_svg(&svg_text);
    let titles = svg_titles(&document);
    for label in &labels {
        assert!(
            titles.iter().any(|t| ends_path(t, label)),
            "{label} is not in the flame graph"
        );
    }

    let page_text = std::fs::read_to_string(&html).unwrap();
    let page = scraper::Html::parse_document(&page_text);
    assert!(page.errors.is_empty(), "HTML errors: {:?}", page.errors);
    let region_rows = scraper::Selector::parse("#regions tbody tr").unwrap();
    let row_titles: Vec<&str> = page
        .select(&region_rows)
        .filter_map(|r| r.value().attr("title"))
        .collect();
    let in_flame = page_flame_titles(&page);
    for label in &labels {
        assert!(
            row_titles.contains(label),
            "{label} is not in the page's table"
        );
        assert!(
            in_flame.iter().any(|t| ends_path(t, label)),
            "{label} is not in the page's flame graph"
        );
    }
    // Self-contained: nothing is fetched.
    for reference in ["src=", "<link", "href=\"http", "url(http", "@import"] {
        assert!(
            !page_text.contains(reference),
            "the page refers out: {reference}"
        );
    }
    assert!(
        page_text.contains("id=\"timeline-data\""),
        "the trace's timelines are missing"
    );

    let document: Value = serde_json::from_slice(&std::fs::read(&speedscope).unwrap()).unwrap();
    assert_eq!(
        document["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    let frames: Vec<&str> = document["shared"]["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    for label in &labels {
        assert!(frames.contains(label), "{label} is no speedscope frame");
    }
    let profiles = document["profiles"].as_array().unwrap();
    assert_eq!(profiles.len() as u64, THREADS, "one profile per thread");
    for profile in profiles {
        assert_eq!(profile["type"], "evented");
        let mut open = Vec::new();
        let mut last = 0;
        for event in profile["events"].as_array().unwrap() {
            let at = event["at"].as_u64().unwrap();
            assert!(at >= last, "events go back in time");
            last = at;
            match event["type"].as_str().unwrap() {
                "O" => open.push(event["frame"].clone()),
                "C" => assert_eq!(open.pop().as_ref(), Some(&event["frame"]), "unbalanced"),
                other => panic!("event type {other}"),
            }
        }
        assert!(open.is_empty());
    }
}

/// Whether a flame graph frame's title, its call path and its time, is
/// that of a frame of `label`.
fn ends_path(title: &str, label: &str) -> bool {
    title.starts_with(&format!("{label} (")) || title.contains(&format!(" → {label} ("))
}

/// The titles of an SVG's elements: a flame graph's frames.
fn svg_titles<'a>(document: &'a roxmltree::Document<'_>) -> Vec<&'a str> {
    document
        .descendants()
        .filter(|n| n.has_tag_name("title"))
        .filter_map(|n| n.text())
        .collect()
}

/// The titles of the frames of an HTML page's flame graph.
fn page_flame_titles(page: &scraper::Html) -> Vec<String> {
    let titles = scraper::Selector::parse(".flame title").unwrap();
    page.select(&titles).map(|t| t.text().collect()).collect()
}

/// An SVG document, which declares its DTD.
fn parse_svg(text: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(text, options).expect("the SVG is XML")
}

/// Chromium from Debian, which scripts/setup installs.
fn chromium() -> PathBuf {
    let path = PathBuf::from("/usr/bin/chromium");
    assert!(
        path.is_file(),
        "the HTML page is checked in Chromium: install it (scripts/setup does)"
    );
    path
}

#[test]
fn the_page_renders_in_a_browser_without_script_errors() {
    let run = profile(
        &Programs::get().path("imbalanced_loop"),
        THREADS,
        &["10", "3"],
        &[("POMP_TRACE", "1")],
    );
    let html = run.dir.join("report.html");
    let output = succeed(
        pomp()
            .arg("report")
            .arg(&run.profile)
            .arg("--html")
            .arg(&html),
    );
    // The page is the report: the text is not printed again.
    assert_eq!(text(&output.stdout), "", "a text report beside the page");
    assert!(
        text(&output.stderr).contains(&format!("wrote {}", html.display())),
        "{}",
        text(&output.stderr)
    );
    let (body, log) = render_in_chromium(&html);
    assert_eq!(
        body.attr("data-errors"),
        Some("0"),
        "the page's script failed; browser log:\n{log}"
    );
    let rendered = body.attr("data-rendered").unwrap_or_default();
    for part in ["tables", "flamegraph", "timeline"] {
        assert!(
            rendered.split(' ').any(|p| p == part),
            "{part} not rendered: {rendered:?}"
        );
    }
    assert!(!log.contains("Uncaught"), "script errors:\n{log}");

    // A click on the loop's frame zooms the flame graph into it.
    let page = std::fs::read_to_string(&html).unwrap();
    let probe = r#"<script>
var frames = Array.prototype.slice.call(document.querySelectorAll('.flame #frames > g'));
var loop = frames.filter(function (g) {
  return (g.getAttribute('data-name') || '').indexOf('for of parallel for') === 0;
})[0];
loop.querySelector('rect').dispatchEvent(new MouseEvent('click', {bubbles: true}));
document.body.setAttribute('data-loop-width', loop.querySelector('rect').getAttribute('width'));
document.body.setAttribute('data-reset-shown', String(!document.getElementById('flame-reset').hidden));
</script></body>"#;
    let zoomed = run.dir.join("zoomed.html");
    std::fs::write(&zoomed, page.replace("</body>", probe)).unwrap();
    let (body, log) = render_in_chromium(&zoomed);
    assert_eq!(body.attr("data-errors"), Some("0"), "{log}");
    assert_eq!(body.attr("data-loop-width"), Some("100.0000%"), "{log}");
    assert_eq!(body.attr("data-reset-shown"), Some("true"), "{log}");
}

#[test]
fn flame_graph_labels_are_cut_only_where_they_do_not_fit() {
    let run = profile(
        &Programs::get().path("call_path"),
        THREADS,
        &["300000", "3"],
        &[],
    );
    let html = page_of(&run);
    // Measured in the browser, in the page's font: each frame's full name
    // against the room its frame gives (less the label's offset).
    let probe = r#"<script>
var cut = [], overflowing = [], whole = 0;
var frames = Array.prototype.slice.call(document.querySelectorAll('.flame #frames > g'));
function check(g) {
  if (g.style.display === 'none' || !g.hasAttribute('data-name')) { return; }
  var text = g.querySelector('text'), shown = text.textContent;
  var name = g.getAttribute('data-name') || '';
  var room = g.querySelector('rect').getBBox().width - 3;
  var shownLength = shown === '' ? 0 : text.getComputedTextLength();
  text.textContent = name;
  var fullLength = text.getComputedTextLength();
  text.textContent = shown;
  if (shown !== name && fullLength <= room) { cut.push(name + ' as ' + JSON.stringify(shown)); }
  if (shown !== '' && shownLength > room + 0.5) { overflowing.push(shown); }
  if (shown === name && name !== '') { whole++; }
}
frames.forEach(check);
// Zoomed into the function around the loop, labels are made again.
var solve = frames.filter(function (g) {
  return (g.getAttribute('data-name') || '').indexOf('function solve ') >= 0;
})[0];
solve.querySelector('rect').dispatchEvent(new MouseEvent('click', {bubbles: true}));
frames.forEach(check);
document.body.setAttribute('data-cut', cut.join(' | '));
document.body.setAttribute('data-overflowing', overflowing.join(' | '));
document.body.setAttribute('data-whole', String(whole));
</script></body>"#;
    let probed = run.dir.join("probed.html");
    let page = std::fs::read_to_string(&html).unwrap();
    std::fs::write(&probed, page.replace("</body>", probe)).unwrap();
    let (body, log) = render_in_chromium(&probed);
    assert_eq!(body.attr("data-errors"), Some("0"), "{log}");
    assert_eq!(
        body.attr("data-cut"),
        Some(""),
        "cut with room to spare; {log}"
    );
    assert_eq!(
        body.attr("data-overflowing"),
        Some(""),
        "labels overflow; {log}"
    );
    let whole: u32 = body.attr("data-whole").unwrap().parse().unwrap();
    assert!(whole >= 3, "only {whole} labels shown whole");
}

/// The page as Chromium leaves it after its scripts ran: the attributes
/// of its body, and the browser's log.
fn render_in_chromium(html: &Path) -> (BodyAttributes, String) {
    let profile_dir = tempfile::Builder::new()
        .prefix("pomp-report-chromium")
        .tempdir()
        .unwrap();
    let output = succeed(
        Command::new(chromium())
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--enable-logging=stderr",
                "--v=0",
            ])
            .arg(format!("--user-data-dir={}", profile_dir.path().display()))
            .arg("--dump-dom")
            .arg(format!("file://{}", html.display())),
    );
    let dom = scraper::Html::parse_document(&text(&output.stdout));
    let body = dom
        .select(&scraper::Selector::parse("body").unwrap())
        .next()
        .expect("a body");
    let attributes = body
        .value()
        .attrs()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect();
    (BodyAttributes(attributes), text(&output.stderr))
}

struct BodyAttributes(Vec<(String, String)>);

impl BodyAttributes {
    fn attr(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

#[test]
fn ranks_aggregate_into_min_mean_and_max() {
    let program = Programs::get().path("imbalanced_loop");
    let first = profile(&program, THREADS, &["10", "3"], &[("PMI_RANK", "0")]);
    let second = profile(&program, THREADS, &["20", "3"], &[("PMI_RANK", "1")]);
    let (a, b) = (first.profile.clone(), second.profile.clone());
    assert!(a.ends_with("profile.rank0.json"), "{}", a.display());
    let report = json_report(&[&a, &b], &[]);
    assert_eq!(report["profiles"].as_array().unwrap().len(), 2);
    let ranks: Vec<&str> = report["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["rank"].as_str().unwrap())
        .collect();
    assert_eq!(ranks, ["0", "1"]);
    let loop_time = &row(&report, "for of parallel for")["inclusive_ns"];
    let (min, mean, max) = (
        loop_time["min"].as_f64().unwrap(),
        loop_time["mean"].as_f64().unwrap(),
        loop_time["max"].as_f64().unwrap(),
    );
    // The second rank's iterations sleep twice as long.
    assert!(min < mean && mean < max, "{loop_time}");
    assert!(max > 1.5 * min, "{loop_time}");
    let text = text(&succeed(pomp().arg("report").arg(&a).arg(&b)).stdout);
    assert!(text.contains("2 profiles"), "{text}");
    assert!(text.contains("rank    1"), "{text}");
}

#[test]
fn diffs_tell_faster_from_slower_and_builds_apart() {
    let programs = Programs::get();
    let one = profile(&programs.path("imbalanced_loop"), 1, &["10", "3"], &[]);
    let three = profile(
        &programs.path("imbalanced_loop"),
        THREADS,
        &["10", "3"],
        &[],
    );
    let edited = profile(
        &programs.path("edited/imbalanced_loop"),
        THREADS,
        &["10", "3"],
        &[],
    );

    let output = succeed(
        pomp()
            .arg("report")
            .arg("--diff")
            .arg(&one.profile)
            .arg(&three.profile)
            .args(["--format", "json"]),
    );
    let diff: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(diff["builds_differ"], Value::Null);
    let change = |diff: &Value, what: &str| {
        diff["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["what"] == what)
            .unwrap_or_else(|| panic!("no {what}: {diff:#}"))["change"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(change(&diff, "for of parallel for"), "faster");
    assert_eq!(change(&diff, "implicit barrier of parallel for"), "slower");

    let svg = three.dir.join("diff.svg");
    let output = succeed(
        pomp()
            .arg("report")
            .arg("--diff")
            .arg(&three.profile)
            .arg(&edited.profile)
            .arg("--flamegraph")
            .arg(&svg)
            .args(["--format", "text"]),
    );
    let text = text(&output.stdout);
    assert!(text.contains("come from different builds"), "{text}");
    assert!(
        !text.contains(" new ") && !text.contains(" gone "),
        "regions unmatched:\n{text}"
    );
    parse_svg(&std::fs::read_to_string(&svg).unwrap());

    // Ranks of one run must come from one build.
    let output = run(pomp()
        .arg("report")
        .arg(&three.profile)
        .arg(&edited.profile));
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("different builds") && error.contains("--diff"),
        "{error}"
    );
}

#[test]
fn missing_truncated_and_foreign_files_are_refused_clearly() {
    let run_ = profile(
        &Programs::get().path("sleep_region"),
        THREADS,
        &["1"],
        &[("POMP_TRACE", "1")],
    );
    let refused = |path: &Path, expected: &str| {
        let output = run(pomp().arg("report").arg(path));
        assert_eq!(output.status.code(), Some(2), "{}", path.display());
        let error = text(&output.stderr);
        assert!(error.contains(&path.display().to_string()), "{error}");
        assert!(error.contains(expected), "expected {expected:?}: {error}");
        assert!(output.stdout.is_empty());
    };
    refused(&run_.dir.join("absent.json"), "cannot read");
    let bytes = std::fs::read(&run_.profile).unwrap();
    let truncated = run_.dir.join("truncated.json");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    refused(&truncated, "truncated");
    let trace = std::fs::read_dir(&run_.dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("pomp-trace")
        })
        .expect("a trace");
    refused(&trace, "is a trace: name what to make of it");
    let descriptor = Programs::get().path("sleep_region.pomp.json");
    refused(
        &descriptor,
        "is a pomp IDF descriptor, not a pomp profile: `pomp report PROFILE --idf FILE` reads it",
    );
    let empty = run_.dir.join("empty.json");
    std::fs::write(&empty, "").unwrap();
    refused(&empty, "empty");

    // Files pomp knows, named where another is wanted, are said to be what
    // they are, with the command that reads them.
    let refused_with = |args: &[&std::ffi::OsStr], path: &Path, expected: &str| {
        let output = run(pomp().arg("report").args(args));
        let error = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{error}");
        assert!(
            error.contains(&format!("{} {expected}", path.display())),
            "expected {expected:?}: {error}"
        );
    };
    let profile = run_.profile.as_os_str();
    refused_with(
        &[profile, trace.as_os_str()],
        &trace,
        &format!(
            "is a trace and {} a profile: name the profiles (the traces beside them are read \
             with them), or the traces alone",
            run_.profile.display()
        ),
    );
    refused_with(
        &[profile, "--idf".as_ref(), profile],
        &run_.profile,
        "is a pomp profile, not a pomp IDF descriptor: `pomp report PROFILE` reports on it",
    );
    let chrome = run_.dir.join("chrome.json");
    succeed(
        pomp()
            .arg("report")
            .arg(profile)
            .arg("--chrome")
            .arg(&chrome),
    );
    refused_with(
        &[chrome.as_os_str()],
        &chrome,
        "is a pomp trace in Chrome trace JSON, not a pomp profile: Perfetto",
    );
    // A compilation database as CMake writes it.
    let project = run_.dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.13)\nproject(p C)\nadd_executable(a a.c b.c)\n",
    )
    .unwrap();
    std::fs::write(project.join("a.c"), "int main(void) { return 0; }\n").unwrap();
    std::fs::write(project.join("b.c"), "int b(void) { return 1; }\n").unwrap();
    succeed(Command::new("cmake").current_dir(&project).args([
        "-S",
        ".",
        "-B",
        "build",
        "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
    ]));
    let database = project.join("build/compile_commands.json");
    refused_with(
        &[database.as_os_str()],
        &database,
        "is a compilation database, not a pomp profile: \
         `pomp batch --compile-commands FILE --out DIR` instruments the files it lists",
    );
}

#[test]
fn descriptors_join_and_csv_holds_the_table() {
    let run_ = profile(
        &Programs::get().path("imbalanced_loop"),
        THREADS,
        &["5", "3"],
        &[],
    );
    let report = json_report(
        &[&run_.profile],
        &["--idf", Programs::get().dir.as_path().to_str().unwrap()],
    );
    let directives: Vec<&str> = report["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["directive"].as_str())
        .collect();
    assert_eq!(directives, ["parallel for"]);
    let loop_ = &report["imbalance"][0];
    assert_eq!(
        loop_["schedule"], "static, 1",
        "the clause as written, from the descriptor"
    );

    let csv = succeed(
        pomp()
            .arg("report")
            .arg(&run_.profile)
            .args(["--format", "csv"]),
    );
    let mut reader = csv::Reader::from_reader(csv.stdout.as_slice());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "label");
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows(&report).len());
    let inclusive = headers.iter().position(|h| h == "inclusive_ns").unwrap();
    assert_eq!(
        records[0][inclusive].parse::<u64>().unwrap(),
        rows(&report)[0]["inclusive_ns"]["mean"].as_u64().unwrap()
    );
}

/// `pomp report` under a pseudo-terminal (util-linux's `script`).
fn on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> Vec<u8> {
    let mut line = vec![env!("CARGO_BIN_EXE_pomp"), "report"];
    line.extend(args);
    let line = shlex::try_join(line).unwrap();
    succeed(
        Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .envs(env.iter().copied()),
    )
    .stdout
}

#[test]
fn colour_only_on_a_terminal() {
    let run_ = profile(
        &Programs::get().path("imbalanced_loop"),
        THREADS,
        &["5", "3"],
        &[],
    );
    let profile = run_.profile.to_str().unwrap();
    const ESCAPE: u8 = 0x1b;
    let terminal = on_a_terminal(&[profile], &[]);
    assert!(terminal.contains(&ESCAPE), "no colour on a terminal");
    assert!(text(&terminal).contains("parallel for"));
    assert!(!on_a_terminal(&[profile], &[("NO_COLOR", "1")]).contains(&ESCAPE));
    assert!(!on_a_terminal(&[profile, "--color", "never"], &[]).contains(&ESCAPE));
    let piped = succeed(pomp().arg("report").arg(profile));
    assert!(!piped.stdout.contains(&ESCAPE), "colour written to a pipe");
    let forced = succeed(
        pomp()
            .arg("report")
            .arg(profile)
            .args(["--color", "always"]),
    );
    assert!(
        forced.stdout.contains(&ESCAPE),
        "--color always writes no colour"
    );
}

#[test]
fn the_help_explains_the_figures() {
    let help = text(&succeed(pomp().args(["report", "--help"])).stdout);
    // Lines are wrapped to the terminal's width.
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for needed in [
        "SCALEA",
        "synchronisation",
        "loss of parallelism",
        "(max − mean) / max",
        "--baseline",
        "--diff",
        "--flamegraph",
        "--html",
        "--speedscope",
        "POMP_TRACE=1",
        "Examples:",
    ] {
        assert!(help.contains(needed), "--help lacks {needed:?}:\n{help}");
    }
}

// Exports, read by readers nobody here wrote: pycubexr for CUBE4, the OTF2
// library's otf2-print and its Python bindings for OTF2.

/// What otf2-print prints of the archive `anchor`, which it must read
/// without a warning (it warns of definitions out of order, for one).
fn otf2_print(anchor: &Path) -> Output {
    let printed = succeed(Command::new("otf2-print").arg(anchor));
    let warnings = text(&printed.stderr);
    assert!(warnings.trim().is_empty(), "otf2-print warns:\n{warnings}");
    printed
}

/// The Python with pycubexr and the OTF2 bindings that `scripts/setup`
/// makes.
fn python() -> Command {
    let python = repository().join("target/python/bin/python3");
    assert!(
        python.exists(),
        "{} is missing: scripts/setup makes it (a venv with pycubexr beside Debian's python3-otf2)",
        python.display()
    );
    Command::new(python)
}

/// A reader's JSON output.
fn read_with_python(script: &str, path: &Path) -> Value {
    let output = succeed(
        python()
            .arg(repository().join("tests/support").join(script))
            .arg(path),
    );
    serde_json::from_slice(&output.stdout).expect("the reader prints JSON")
}

/// Each thread's call paths (labels from its root) with their visits and
/// inclusive time, as the profile has them.
fn call_paths(
    profile: &pomp2::profile::Profile,
) -> Vec<std::collections::BTreeMap<Vec<String>, (u64, u64)>> {
    use pomp2::profile::{kind_label, Node};
    fn walk(
        profile: &pomp2::profile::Profile,
        node: &Node,
        path: &mut Vec<String>,
        into: &mut std::collections::BTreeMap<Vec<String>, (u64, u64)>,
    ) {
        let region = node
            .region
            .and_then(|id| profile.regions.get(id as usize - 1));
        path.push(kind_label(node.kind, region));
        let entry = into.entry(path.clone()).or_default();
        entry.0 += node.visits;
        entry.1 += node.inclusive_ns;
        for child in &node.children {
            walk(profile, child, path, into);
        }
        path.pop();
    }
    profile
        .threads
        .iter()
        .map(|thread| {
            let mut paths = std::collections::BTreeMap::new();
            for child in &thread.tree.children {
                walk(profile, child, &mut Vec::new(), &mut paths);
            }
            paths
        })
        .collect()
}

/// Each thread's visits per region label, over all its call paths, of the
/// kinds a trace holds spans of (every timed visit; points have none).
fn traced_visits(
    profile: &pomp2::profile::Profile,
) -> Vec<std::collections::BTreeMap<String, u64>> {
    use pomp2::profile::Kind;
    call_paths(profile)
        .into_iter()
        .map(|paths| {
            let mut visits = std::collections::BTreeMap::new();
            for (path, (count, _)) in paths {
                let label = path.last().unwrap().clone();
                let point = [
                    Kind::Cancel,
                    Kind::CancellationPoint,
                    Kind::TestLock,
                    Kind::TestNestLock,
                ]
                .iter()
                .any(|kind| label == kind.name().replace('_', " "));
                if !point && count > 0 {
                    *visits.entry(label).or_default() += count;
                }
            }
            visits
        })
        .collect()
}

/// The runs the export tests read: tasks (a tree, recursive with untied
/// ones), nested teams with locks, each timing every visit so that the
/// trace holds a span for each.
fn traced_runs() -> Vec<Profiled> {
    let all_timed = [("POMP_TRACE", "1"), ("POMP_THROTTLE", "0")];
    vec![
        profile(
            &Programs::get().path("task_tree"),
            THREADS,
            &["6", "3", "20"],
            &all_timed,
        ),
        profile(
            &Programs::get().path("recursive_tasks"),
            THREADS,
            &["16", "10"],
            &all_timed,
        ),
        profile(
            &Programs::get().path("nested_locks"),
            2,
            &["15"],
            &all_timed,
        ),
    ]
}

/// Compares a CUBE4 archive as pycubexr reads it with the profiles it was
/// made from (one per rank, threads in order).
fn assert_cube_equals(cube: &Path, profiles: &[pomp2::profile::Profile]) {
    let read = read_with_python("read_cube.py", cube);
    let expected: Vec<_> = profiles.iter().flat_map(call_paths).collect();
    let locations = read["locations"].as_array().unwrap();
    assert_eq!(locations.len(), expected.len(), "threads: {read:#}");
    let names: Vec<String> = profiles
        .iter()
        .flat_map(|p| p.threads.iter().map(|t| format!("thread {}", t.thread)))
        .collect();
    assert_eq!(locations, &names);
    for metric in [
        "time",
        "visits",
        "synchronisation",
        "task_creation",
        "loss_of_parallelism",
    ] {
        assert!(
            read["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m == metric),
            "no metric {metric}: {}",
            read["metrics"]
        );
    }
    let mut seen = vec![0; expected.len()];
    for cnode in read["cnodes"].as_array().unwrap() {
        let path: Vec<String> = cnode["path"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect();
        assert_eq!(path[0], "pomp run");
        if path.len() == 1 {
            continue;
        }
        let path = path[1..].to_vec();
        for (location, paths) in expected.iter().enumerate() {
            let (visits, inclusive_ns) = paths.get(&path).copied().unwrap_or_default();
            if paths.contains_key(&path) {
                seen[location] += 1;
            }
            assert_eq!(
                cnode["visits"][location].as_u64().unwrap(),
                visits,
                "visits of {path:?} on location {location}"
            );
            // Cube sums a path's own time over its subtree; the profile's
            // times were each converted from ticks and rounded down, so the
            // two differ by up to a nanosecond per path below.
            let below = paths.keys().filter(|p| p.starts_with(&path)).count() as f64;
            let cube_ns = cnode["inclusive_s"][location].as_f64().unwrap() * 1e9;
            assert!(
                (cube_ns - inclusive_ns as f64).abs() <= 1.0 + below + inclusive_ns as f64 * 1e-9,
                "time of {path:?} on location {location}: {cube_ns} ns in Cube, {inclusive_ns} ns in the profile"
            );
        }
    }
    let wanted: Vec<usize> = expected.iter().map(|paths| paths.len()).collect();
    assert_eq!(seen, wanted, "call paths of each thread found in Cube");
}

#[test]
fn cube_archives_read_by_pycubexr_equal_the_profiles() {
    let runs = traced_runs();
    for run_ in &runs {
        let cube = run_.dir.join("run.cubex");
        let output = succeed(
            pomp()
                .arg("report")
                .arg(&run_.profile)
                .arg("--cube")
                .arg(&cube),
        );
        // An export prints only what it wrote.
        assert_eq!(text(&output.stdout), "");
        assert_eq!(
            text(&output.stderr),
            format!("pomp report: wrote {}\n", cube.display())
        );
        let profile = pomp2::profile::read(&run_.profile).unwrap();
        assert_cube_equals(&cube, &[profile]);
    }
    // Ranks of one run: a process each in the system tree.
    let program = Programs::get().path("imbalanced_loop");
    let first = profile(&program, THREADS, &["4", "2"], &[("PMI_RANK", "0")]);
    let second = profile(&program, 2, &["6", "2"], &[("PMI_RANK", "1")]);
    let cube = first.dir.join("ranks.cubex");
    succeed(
        pomp()
            .arg("report")
            .arg(&first.profile)
            .arg(&second.profile)
            .arg("--cube")
            .arg(&cube),
    );
    let profiles = [&first.profile, &second.profile].map(|p| pomp2::profile::read(p).unwrap());
    assert_cube_equals(&cube, &profiles);
    let anchor = Command::new("tar")
        .arg("-xOf")
        .arg(&cube)
        .arg("anchor.xml")
        .output()
        .unwrap();
    let anchor = text(&anchor.stdout);
    assert!(
        anchor.contains("<name>rank 0</name>") && anchor.contains("<name>rank 1</name>"),
        "{anchor}"
    );
}

#[test]
fn otf2_archives_read_by_otf2_print_and_python_equal_the_runtime_s_counts() {
    for run_ in traced_runs() {
        let archive = run_.dir.join("otf2");
        let profile = pomp2::profile::read(&run_.profile).unwrap();
        let trace = profile.trace.as_ref().expect("a trace");
        assert_eq!(trace.dropped_events, 0);
        // Twice: the second replaces the first.
        for _ in 0..2 {
            succeed(
                pomp()
                    .arg("report")
                    .arg(&run_.profile)
                    .arg("--otf2")
                    .arg(&archive),
            );
        }
        let anchor = archive.join("traces.otf2");
        let read = read_with_python("read_otf2.py", &anchor);
        assert_eq!(read["problems"], serde_json::json!([]), "{read:#}");
        let expected = traced_visits(&profile);
        let names: Vec<String> = profile
            .threads
            .iter()
            .map(|t| format!("thread {}", t.thread))
            .collect();
        // The archive lists threads by number; the profile in the order they met the runtime.
        let mut by_number: Vec<_> = profile.threads.iter().map(|t| t.thread).collect();
        by_number.sort();
        let locations: Vec<String> = by_number.iter().map(|t| format!("thread {t}")).collect();
        assert_eq!(read["locations"].as_array().unwrap(), &locations);
        for (thread, visits) in names.iter().zip(&expected) {
            let enters: std::collections::BTreeMap<String, u64> =
                serde_json::from_value(read["enters"][thread].clone()).unwrap_or_default();
            assert_eq!(&enters, visits, "{thread} of {}", run_.profile.display());
        }
        let count = |event: &str| read["events"][event].as_u64().unwrap_or(0);
        let spans = pomp2::trace::read(&trace.path).unwrap();
        let forks = spans
            .threads
            .values()
            .flatten()
            .filter(|s| s.forked)
            .count() as u64;
        assert!(forks > 0);
        assert_eq!(count("ThreadFork"), forks, "{}", read["events"]);
        assert_eq!(count("ThreadFork"), count("ThreadJoin"));
        if profile.tasks.created > 0 {
            for event in ["ThreadTaskCreate", "ThreadTaskSwitch", "ThreadTaskComplete"] {
                assert!(count(event) > 0, "no {event}: {}", read["events"]);
            }
            assert_eq!(count("ThreadTaskCreate"), profile.tasks.created);
        }
        // otf2-print reads it too, and counts the same enters.
        let printed = otf2_print(&anchor);
        let mut enters: std::collections::BTreeMap<(String, String), u64> = Default::default();
        for line in text(&printed.stdout).lines() {
            let mut words = line.split_whitespace();
            if words.next() != Some("ENTER") {
                continue;
            }
            let location = words.next().unwrap().to_string();
            let region = line.split('"').nth(1).unwrap().to_string();
            *enters
                .entry((format!("thread {location}"), region))
                .or_default() += 1;
        }
        let mut expected_enters = std::collections::BTreeMap::new();
        for (thread, visits) in names.iter().zip(&expected) {
            for (label, count) in visits {
                expected_enters.insert((thread.clone(), label.clone()), *count);
            }
        }
        assert_eq!(enters, expected_enters);
    }
}

#[test]
fn traces_convert_to_chrome_json_and_otf2_from_the_trace_itself() {
    let run_ = profile(
        &Programs::get().path("task_tree"),
        THREADS,
        &["4", "2", "10"],
        &[("POMP_TRACE", "1")],
    );
    let trace_path = std::fs::read_dir(&run_.dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "ptrace"))
        .expect("a trace");
    let trace = pomp2::trace::read(&trace_path).unwrap();
    let chrome = run_.dir.join("trace.json");
    let archive = run_.dir.join("otf2");
    let output = succeed(
        pomp()
            .arg("report")
            .arg(&trace_path)
            .arg("--chrome")
            .arg(&chrome)
            .arg("--otf2")
            .arg(&archive),
    );
    assert!(output.stdout.is_empty());
    assert!(text(&output.stderr).contains("wrote"));
    // Named beside its profile (`pomp report pomp-*`), the trace is the
    // one converted; a report is printed only when asked for by name.
    let beside = run_.dir.join("otf2-beside");
    let output = succeed(
        pomp()
            .arg("report")
            .arg(&run_.profile)
            .arg(&trace_path)
            .arg("--otf2")
            .arg(&beside),
    );
    assert!(beside.join("traces.otf2").is_file());
    assert_eq!(text(&output.stdout), "");
    let output = succeed(
        pomp()
            .arg("report")
            .arg(&run_.profile)
            .arg("--otf2")
            .arg(run_.dir.join("otf2-with-report"))
            .args(["--format", "text"]),
    );
    let report = text(&output.stdout);
    assert!(report.contains("Overheads after SCALEA"), "{report}");
    assert!(report.ends_with('\n'));
    let document = pomp2::chrome::read(&chrome).unwrap();
    let spans: Vec<&pomp2::chrome::Span> = document
        .events
        .iter()
        .filter_map(|event| match event {
            pomp2::chrome::Event::Complete(span) => Some(span),
            _ => None,
        })
        .collect();
    assert_eq!(spans.len(), trace.span_count());
    assert_eq!(document.info.events, trace.span_count() as u64);
    assert!(spans.iter().all(|s| s.ts >= 0.0 && s.dur >= 0.0));
    assert!(archive.join("traces.otf2").is_file());
    // Without the OTF2 library, the error names the package.
    let output = run(pomp()
        .env("POMP_OTF2_LIBRARY", "/nonexistent/libotf2.so.10")
        .arg("report")
        .arg(&trace_path)
        .arg("--otf2")
        .arg(run_.dir.join("other")));
    assert_eq!(output.status.code(), Some(2));
    let error = text(&output.stderr);
    assert!(error.contains("libopen-trace-format2"), "{error}");
    assert!(!run_.dir.join("other").exists());
    // A trace alone is converted, not reported on.
    let output = run(pomp().arg("report").arg(&trace_path));
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("--otf2"));
}

/// The names of the regions above every node of `kind` whose region's
/// label starts with `label`, in each thread's tree, from the outermost
/// down; the regions' names are their functions' for function regions.
fn paths_in_profile(profile: &Value, kind: &str, label: &str) -> Vec<Vec<Vec<String>>> {
    let regions = profile["regions"].as_array().unwrap();
    let region = |id: &Value| regions.iter().find(|r| r["id"] == *id);
    fn walk(
        node: &Value,
        above: &mut Vec<String>,
        found: &mut Vec<Vec<String>>,
        is_wanted: &dyn Fn(&Value) -> bool,
        name: &dyn Fn(&Value) -> String,
    ) {
        if is_wanted(node) {
            found.push(above.clone());
        }
        above.push(name(node));
        for child in node["children"].as_array().unwrap() {
            walk(child, above, found, is_wanted, name);
        }
        above.pop();
    }
    let is_wanted = |node: &Value| {
        node["kind"] == kind
            && region(&node["region"])
                .is_some_and(|r| r["label"].as_str().unwrap().starts_with(label))
    };
    let name = |node: &Value| {
        region(&node["region"]).map_or(String::new(), |r| {
            r["name"]
                .as_str()
                .map_or_else(|| r["label"].as_str().unwrap().to_string(), str::to_string)
        })
    };
    profile["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| {
            let mut found = Vec::new();
            for child in thread["tree"]["children"].as_array().unwrap() {
                walk(child, &mut Vec::new(), &mut found, &is_wanted, &name);
            }
            found
        })
        .collect()
}

/// The labels of the report's merged tree above its node labelled
/// starting with `label`, and how many threads reached that node.
fn path_in_report(report: &Value, label: &str) -> Option<(Vec<String>, u64)> {
    fn walk(nodes: &Value, label: &str, above: &mut Vec<String>) -> Option<(Vec<String>, u64)> {
        for node in nodes.as_array().unwrap() {
            let here = node["label"].as_str().unwrap();
            if here.starts_with(label) {
                return Some((above.clone(), node["threads"].as_u64().unwrap()));
            }
            above.push(here.to_string());
            let found = walk(&node["children"], label, above);
            above.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }
    walk(&report["tree"], label, &mut Vec::new())
}

#[test]
fn every_thread_s_regions_hang_under_the_call_path_from_main() {
    let programs = Programs::get();
    for (program, functions) in [
        ("call_path", &["main", "solve", "sweep"][..]),
        ("call_path_cxx", &["main", "Grid::relax", "smooth"]),
    ] {
        let args = ["300000", "3"];
        let run = profile(&programs.path(program), THREADS, &args, &[]);
        let plain = succeed(
            Command::new(programs.path(&format!("{program}.plain")))
                .args(args)
                .env("OMP_NUM_THREADS", THREADS.to_string()),
        );
        assert_eq!(
            run.stdout,
            text(&plain.stdout),
            "{program} printed otherwise"
        );

        let written: Value = serde_json::from_slice(&std::fs::read(&run.profile).unwrap()).unwrap();
        let paths = paths_in_profile(&written, "parallel", "parallel for");
        assert_eq!(paths.len() as u64, THREADS, "{program}: {paths:?}");
        for (thread, found) in paths.iter().enumerate() {
            assert!(
                !found.is_empty(),
                "{program}: thread {thread} never ran the loop"
            );
            for path in found {
                assert_eq!(
                    path.len(),
                    functions.len(),
                    "{program}, thread {thread}: {path:?}"
                );
                for (name, function) in path.iter().zip(functions) {
                    assert!(
                        name.starts_with(function),
                        "{program}, thread {thread}: {path:?}, not {functions:?}"
                    );
                }
            }
        }

        let report = json_report(&[&run.profile], &["--tree"]);
        let (above, threads) =
            path_in_report(&report, "parallel for").expect("the loop is in the tree");
        assert_eq!(threads, THREADS, "{program}: {above:?}");
        assert_eq!(above.len(), functions.len(), "{program}: {above:?}");
        for (label, function) in above.iter().zip(functions) {
            assert!(label.contains(function), "{program}: {above:?}");
        }
        let tree_text = text(&succeed(pomp().arg("report").arg(&run.profile).arg("--tree")).stdout);
        let lines: Vec<&str> = tree_text.lines().collect();
        let at = |what: &str| lines.iter().position(|l| l.contains(what));
        let order: Vec<Option<usize>> = functions.iter().map(|f| at(f)).collect();
        assert!(
            order.iter().all(Option::is_some) && order.windows(2).all(|w| w[0] < w[1]),
            "{program}: the tree does not go from main down:\n{tree_text}"
        );

        // The pictures' frames are titled with the whole path.
        let svg = run.dir.join("flame.svg");
        let html = run.dir.join("report.html");
        succeed(
            pomp()
                .arg("report")
                .arg(&run.profile)
                .arg("--flamegraph")
                .arg(&svg)
                .arg("--html")
                .arg(&html),
        );
        let full_path = |title: &str| {
            let mut rest = title;
            for function in functions {
                let Some(at) = rest.find(function) else {
                    return false;
                };
                rest = &rest[at..];
            }
            rest.contains("→ parallel for")
        };
        let svg_text = std::fs::read_to_string(&svg).unwrap();
        assert!(
            svg_titles(&parse_svg(&svg_text)).into_iter().any(full_path),
            "{program}: no frame of the flame graph shows the path to the loop"
        );
        let page = scraper::Html::parse_document(&std::fs::read_to_string(&html).unwrap());
        assert!(
            page_flame_titles(&page).iter().any(|t| full_path(t)),
            "{program}: no frame of the page's flame graph shows the path to the loop"
        );
    }
}

#[test]
fn each_parallel_region_shows_its_fork_and_join() {
    let run = profile(
        &Programs::get().path("call_path"),
        THREADS,
        &["100000", "4"],
        &[],
    );
    let report = json_report(&[&run.profile], &[]);
    let control = class(&report, "control");
    let part = |name: &str| {
        control["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .map_or(0, |p| p["ns"]["mean"].as_u64().unwrap())
    };
    let (fork, join) = (part("fork"), part("join"));
    assert!(fork + join > 0, "{control:#}");
    let regions = report["region_overheads"].as_array().unwrap();
    let per_region: u64 = regions
        .iter()
        .filter(|r| r["label"].as_str().unwrap().starts_with("parallel"))
        .map(|r| r["control_ns"]["mean"].as_u64().unwrap())
        .sum();
    // The two parallel regions are not nested: their control is the run's
    // fork and join, nothing counted twice or left out (each node's time
    // and the run's sum are converted from clock ticks on their own, a
    // nanosecond apart at most).
    assert!(
        per_region.abs_diff(fork + join) <= 4,
        "{per_region} ns in the regions, {fork} + {join} ns in the run: {regions:#?}"
    );
    // The functions around the loop hold its fork and join too.
    let solve = regions
        .iter()
        .find(|r| r["label"].as_str().unwrap().starts_with("function solve "))
        .expect("solve's row");
    assert!(
        solve["control_ns"]["mean"].as_u64().unwrap() > 0,
        "{solve:#}"
    );
}

#[test]
fn tasks_run_while_waiting_are_task_work_also_when_throttled() {
    let programs = Programs::get();
    // Every task throttled after a few visits: whatever a visit takes, it
    // counts as brief.
    let throttle_early = [
        ("POMP_THROTTLE_NUMCALLS", "10"),
        ("POMP_THROTTLE_PERCALL", "1000000"),
    ];
    let task_ns = |report: &Value| -> u64 {
        report["tasks"]["constructs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["inclusive_ns"]["mean"].as_u64().unwrap())
            .sum()
    };
    let share = |report: &Value, name: &str| class(report, name)["share"].as_f64().unwrap();

    // 400 tasks sleeping 200 µs each, run at the single's barrier and in
    // their parents' taskwaits.
    let (outer, inner, sleep_us) = (100, 4, 200);
    let run = profile(
        &programs.path("task_tree"),
        THREADS,
        &["100", "4", "200"],
        &throttle_early,
    );
    let report = json_report(&[&run.profile], &[]);
    assert!(
        report["tasks"]["constructs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["throttled"] == true),
        "the tasks were not throttled"
    );
    let slept = (outer * inner * sleep_us * 1000) as u64;
    assert!(
        task_ns(&report) as f64 >= 0.9 * slept as f64,
        "tasks took {} ns, slept {slept} ns",
        task_ns(&report)
    );
    assert!(
        share(&report, "synchronisation") < 0.5,
        "task time counted as waiting: {:#}",
        report["overheads"]
    );

    // Task-recursive Fibonacci: the work is the tasks'.
    let run = profile(
        &programs.path("recursive_tasks"),
        THREADS,
        &["24", "6"],
        &throttle_early,
    );
    let report = json_report(&[&run.profile], &[]);
    let (work, sync) = (share(&report, "work"), share(&report, "synchronisation"));
    assert!(
        work >= 0.1 && sync < 0.9,
        "fib's tasks are not work: work {work:.3}, synchronisation {sync:.3}"
    );
}

#[test]
fn a_diff_of_runs_with_no_region_in_common_says_so() {
    let programs = Programs::get();
    let nap = profile(&programs.path("sleep_region"), THREADS, &["20"], &[]);
    let loop_run = profile(&programs.path("call_path"), THREADS, &["1000", "1"], &[]);
    let output = succeed(
        pomp()
            .arg("report")
            .arg("--diff")
            .arg(&nap.profile)
            .arg(&loop_run.profile),
    );
    let diff_text = text(&output.stdout);
    assert!(diff_text.contains("no region in common"), "{diff_text}");
    assert!(
        !diff_text.contains("as fast") && !diff_text.contains("as slow"),
        "a ratio of unrelated runs:\n{diff_text}"
    );
    let output = succeed(
        pomp()
            .arg("report")
            .arg("--diff")
            .arg(&nap.profile)
            .arg(&loop_run.profile)
            .args(["--format", "json"]),
    );
    let diff: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(diff["speedup"], Value::Null, "{diff:#}");
    assert_eq!(diff["common_rows"], 0);
}

// MPI and OpenMP across ranks, run with Open MPI's mpirun. On a machine
// of few cores every rank's threads must yield while they wait, or a run
// of seconds takes minutes; and one run at a time.

const RANKS: usize = 4;

/// corpus/report/mpi_ring.c, built once through `pomp cc` with Open MPI's
/// compiler wrapper as the compiler, which links the POMP MPI library, and
/// its MPI calls as regions too, so that their call sites are told apart.
fn mpi_ring() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let dir = shared_scratch::directory("pomp-report-mpi");
        succeed(
            pomp()
                .current_dir(&dir)
                .env("POMP_RUNTIME_DIR", runtime_library::directory())
                .env("POMP_CACHE_DIR", dir.join("cache"))
                .env_remove("POMP_RUNTIME")
                .env_remove("POMP_MPI")
                .env("POMP_CC", "mpicc")
                .args(["cc", "--pomp-regions=mpi", "-fopenmp", "-O2", "-I"])
                .arg(repository().join("corpus/report"))
                .arg(repository().join("corpus/report/mpi_ring.c"))
                .args(["-o", "mpi_ring"]),
        );
        dir.join("mpi_ring")
    })
}

/// One run of the ring on `RANKS` ranks of 2 threads in `dir`, every
/// visit timed and traced; the experiment it wrote.
fn run_ring(dir: &Path, args: &[&str]) -> PathBuf {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let before = experiments_in(dir);
    let output = succeed(
        Command::new("mpirun")
            .current_dir(dir)
            .args(["--allow-run-as-root", "--oversubscribe", "-np"])
            .arg(RANKS.to_string())
            .args(["--mca", "mpi_yield_when_idle", "1"])
            .arg(mpi_ring())
            .args(args)
            .env("OMP_NUM_THREADS", "2")
            .env("OMP_WAIT_POLICY", "passive")
            .env("OMP_PROC_BIND", "false")
            .env("POMP_SUMMARY", "0")
            .env("POMP_TRACE", "1")
            .env("POMP_THROTTLE", "0")
            .env_remove("POMP_PROFILE")
            .env_remove("POMP_EXPERIMENT_DIRECTORY"),
    );
    assert!(
        text(&output.stdout).contains(&format!("{RANKS} ranks passed")),
        "{}",
        text(&output.stdout)
    );
    let new: Vec<PathBuf> = (experiments_in(dir).into_iter())
        .filter(|e| !before.contains(e))
        .collect();
    let [experiment] = new.as_slice() else {
        panic!("the run made {new:?}: {}", text(&output.stderr))
    };
    experiment.clone()
}

fn experiments_in(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|p| pomp2::experiment::is_experiment(p))
        .collect()
}

/// An experiment's profiles, in rank order.
fn profiles_of(experiment: &Path) -> Vec<PathBuf> {
    let processes = pomp2::experiment::Experiment::open(experiment)
        .unwrap()
        .processes()
        .unwrap();
    assert_eq!(processes.len(), RANKS, "{processes:?}");
    processes
        .into_iter()
        .map(|p| p.profile.expect("a profile"))
        .collect()
}

/// `pomp report ARGS OPTION OUT`, which must succeed.
fn report_writing(args: &[&Path], option: &str, out: &Path) {
    succeed(pomp().arg("report").args(args).arg(option).arg(out));
}

fn ranks_of(spread: &Value) -> (u64, u64) {
    (
        spread["min_rank"]
            .as_u64()
            .unwrap_or_else(|| panic!("{spread}")),
        spread["max_rank"]
            .as_u64()
            .unwrap_or_else(|| panic!("{spread}")),
    )
}

/// The bytes an MPI call's nodes sent and received, over a thread's tree.
fn node_bytes(node: &pomp2::profile::Node) -> (u64, u64) {
    node.children.iter().map(node_bytes).fold(
        (node.bytes_sent, node.bytes_received),
        |(sent, received), (s, r)| (sent + s, received + r),
    )
}

#[test]
fn an_mpi_run_is_reported_rank_by_rank() {
    let dir = tempfile::Builder::new()
        .prefix("pomp-report-ring")
        .tempdir()
        .unwrap();
    let (rounds, ints) = (3u64, 1000u64);
    // Units long enough that the ranks' order by time survives a loaded
    // machine: 4 ranks of 2 threads share its cores with the other tests.
    let experiment = run_ring(dir.path(), &["30", &rounds.to_string(), &ints.to_string()]);
    let profiles = profiles_of(&experiment);
    let read: Vec<pomp2::profile::Profile> = (profiles.iter())
        .map(|p| pomp2::profile::read(p).unwrap())
        .collect();
    let report = json_report(&[&experiment], &[]);

    let manifest = &report["run"]["manifest"];
    assert_eq!(manifest["ranks"], RANKS as u64);
    assert_eq!(
        report["hosts"].as_array().unwrap().len(),
        1,
        "{}",
        report["hosts"]
    );
    let ranks: Vec<&str> = (report["profiles"].as_array().unwrap().iter())
        .map(|p| p["rank"].as_str().unwrap())
        .collect();
    assert_eq!(ranks, ["0", "1", "2", "3"]);
    // Rank r sleeps r + 1 units in the loop: rank 0 least, rank 3 most.
    let loop_row = row(&report, "for of parallel for");
    assert_eq!(ranks_of(&loop_row["inclusive_ns"]), (0, 3));
    let per_rank: Vec<u64> =
        serde_json::from_value(loop_row["per_rank"]["inclusive_ns"].clone()).unwrap();
    assert_eq!(per_rank.len(), RANKS);
    assert!(per_rank.windows(2).all(|w| w[0] < w[1]), "{per_rank:?}");
    let imbalance = (report["rank_imbalance"].as_array().unwrap().iter())
        .find(|r| r["label"] == loop_row["label"])
        .unwrap_or_else(|| panic!("{:#}", report["rank_imbalance"]));
    assert_eq!(ranks_of(&imbalance["inclusive_ns"]), (0, 3));
    // Imbalance (max − mean) / max of 4, 3, 2 and 1 units: 0.375, less
    // where ranks sharing few cores wait for them alike.
    let share = imbalance["imbalance"].as_f64().unwrap();
    assert!((0.15..0.5).contains(&share), "{imbalance:#}");

    // MPI as the library measured it: each rank sends two messages of
    // `ints` integers a round, and receives as many.
    let mpi = &report["mpi"];
    assert_eq!(mpi["ranks"], RANKS as u64, "{mpi:#}");
    assert_eq!(mpi["messages_sent"]["mean"], 2 * rounds, "{mpi:#}");
    assert_eq!(
        mpi["bytes_received"]["min"],
        2 * rounds * ints * 4,
        "{mpi:#}"
    );
    assert!(
        mpi["point_to_point_ns"]["mean"].as_u64() > Some(0),
        "{mpi:#}"
    );
    assert_eq!(mpi["collectives"]["max"], 2, "{mpi:#}");
    assert_eq!(mpi["per_rank"]["time_ns"].as_array().unwrap().len(), RANKS);
    // MPI_Wait is called in two places, each once a round: counted once,
    // from the library, its two call paths its call sites.
    let function = |name: &str| {
        (report["mpi_functions"].as_array().unwrap().iter())
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {:#}", report["mpi_functions"]))
            .clone()
    };
    let wait = function("MPI_Wait");
    assert_eq!(wait["call_sites"], 2);
    assert_eq!(wait["visits"]["mean"], 2 * rounds);
    assert_eq!(function("MPI_Sendrecv")["visits"]["mean"], rounds);
    assert_eq!(function("MPI_Allreduce")["visits"]["max"], 1);
    let movement = class(&report, "data_movement");
    assert!(movement["ns"]["mean"].as_u64() > Some(0), "{movement:#}");

    let printed = text(&succeed(pomp().arg("report").arg(&experiment)).stdout);
    for part in [
        "run pomp-",
        "4 profiles",
        " r0 ",
        " r3",
        "Imbalance over ranks",
        "MPI (measured on 4 ranks",
        "MPI routines",
        "MPI_Wait",
    ] {
        assert!(printed.contains(part), "{part:?} not in:\n{printed}");
    }

    let filter = text(
        &succeed(
            pomp()
                .arg("report")
                .arg(&experiment)
                .arg("--suggest-filter"),
        )
        .stdout,
    );
    assert!(
        filter.contains("and the 3 other profiles of its run")
            && filter.contains("SCOREP_REGION_NAMES_END"),
        "{filter}"
    );

    // The page: its tables of ranks and MPI, and every rank's timelines.
    let html = dir.path().join("ring.html");
    report_writing(&[&experiment], "--html", &html);
    let (body, log) = render_in_chromium(&html);
    assert_eq!(body.attr("data-errors"), Some("0"), "{log}");
    let page = std::fs::read_to_string(&html).unwrap();
    for part in ["id=\"ranks\"", "id=\"mpi\"", "MPI_Wait", "rank 3 thread 1"] {
        assert!(page.contains(part), "{part} not in the page");
    }

    // Cube: the ranks as processes on their host, their threads as
    // locations, and MPI's time and bytes where the profiles have them.
    let cube = dir.path().join("ring.cubex");
    report_writing(&[&experiment], "--cube", &cube);
    assert_cube_equals(&cube, &read);
    let in_cube = read_with_python("read_cube.py", &cube);
    let totals = |metric: &str| -> Vec<f64> {
        serde_json::from_value(in_cube["totals"][metric].clone())
            .unwrap_or_else(|_| panic!("no {metric} in {:#}", in_cube["totals"]))
    };
    let (p2p, sent, received) = (
        totals("mpi_point_to_point"),
        totals("bytes_sent"),
        totals("bytes_received"),
    );
    let mut location = 0;
    for profile in &read {
        let mpi = profile.mpi.as_ref().expect("MPI measured").totals;
        let threads = location..location + profile.threads.len();
        let cube_ns: f64 = p2p[threads.clone()].iter().sum::<f64>() * 1e9;
        let ns = mpi.point_to_point_ns as f64;
        assert!(
            (cube_ns - ns).abs() < 1e3,
            "{cube_ns} ns in Cube, {ns} ns measured"
        );
        for (thread, at) in profile.threads.iter().zip(threads) {
            let (bytes_sent, bytes_received) = node_bytes(&thread.tree);
            assert_eq!(
                (sent[at], received[at]),
                (bytes_sent as f64, bytes_received as f64)
            );
        }
        location += profile.threads.len();
    }
    let anchor = text(
        &Command::new("tar")
            .arg("-xOf")
            .arg(&cube)
            .arg("anchor.xml")
            .output()
            .unwrap()
            .stdout,
    );
    assert!(anchor.contains("<class>node</class>"), "{anchor}");
    for rank in 0..RANKS {
        assert!(
            anchor.contains(&format!("<name>rank {rank}</name>")),
            "{anchor}"
        );
    }

    // OTF2: one archive of every rank, a location group each under the
    // host, every message received after it was sent, the clock's start
    // in real time.
    let archive = dir.path().join("otf2");
    report_writing(&[&experiment], "--otf2", &archive);
    let otf2 = read_with_python("read_otf2.py", &archive.join("traces.otf2"));
    assert_eq!(otf2["problems"], serde_json::json!([]), "{otf2:#}");
    let groups = otf2["location_groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["rank 0", "rank 1", "rank 2", "rank 3"]);
    for group in groups {
        assert_eq!(group["above"][0]["class"], "node", "{group}");
    }
    assert_eq!(otf2["unmatched_sends"], serde_json::json!([]), "{otf2:#}");
    assert_eq!(
        otf2["unmatched_receives"],
        serde_json::json!([]),
        "{otf2:#}"
    );
    let messages = otf2["messages"].as_array().unwrap();
    assert_eq!(messages.len() as u64, RANKS as u64 * 2 * rounds);
    for message in messages {
        assert_eq!(message["sent_bytes"], ints * 4, "{message}");
        assert_eq!(
            message["sent_bytes"], message["received_bytes"],
            "{message}"
        );
        assert!(
            message["received_at"].as_u64() >= message["sent_at"].as_u64(),
            "{message}"
        );
    }
    let start: u64 = serde_json::from_value(manifest["start_unix_ns"].clone()).unwrap();
    let realtime = otf2["clock"]["realtime"].as_u64().unwrap();
    assert!(
        realtime.abs_diff(start) < 60_000_000_000,
        "{} against {start}",
        otf2["clock"]
    );
    for (rank, profile) in read.iter().enumerate() {
        let threads: Vec<String> = (profile.threads.iter())
            .map(|t| format!("thread {}", t.thread))
            .collect();
        for (thread, visits) in threads.iter().zip(traced_visits(profile)) {
            let enters: std::collections::BTreeMap<String, u64> = serde_json::from_value(
                otf2["group_enters"][format!("rank {rank}")][thread].clone(),
            )
            .unwrap_or_default();
            assert_eq!(enters, visits, "rank {rank} {thread}");
        }
    }
    otf2_print(&archive.join("traces.otf2"));
}

#[test]
fn two_runs_in_one_directory_are_refused_naming_both() {
    let dir = tempfile::Builder::new()
        .prefix("pomp-report-rings")
        .tempdir()
        .unwrap();
    let first = run_ring(dir.path(), &["1", "1", "10"]);
    let second = run_ring(dir.path(), &["1", "1", "10"]);
    assert_ne!(first, second, "two runs, two experiments");
    let name = |experiment: &Path| {
        experiment
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let runs = format!("runs {} and {}", name(&first), name(&second));
    let mut profiles = profiles_of(&first);
    profiles.extend(profiles_of(&second));
    for args in [vec![first.clone(), second.clone()], profiles] {
        let output = run(pomp().arg("report").args(&args));
        assert_eq!(output.status.code(), Some(2));
        let error = text(&output.stderr);
        for part in ["different runs", &runs] {
            assert!(error.contains(part), "{part:?} not in: {error}");
        }
    }
}

// Traces of MPI ranks as the runtime writes them (spans, MPI records and
// footers, written here with the contract's own writer), joined into one
// OTF2 archive and read back by the OTF2 library's readers.

/// A trace file of one thread's `spans` and `records`, times in
/// nanoseconds (one tick each).
fn write_trace(
    path: &Path,
    footer: &pomp2::trace::Footer,
    spans: &[pomp2::trace::Span],
    records: &[pomp2::trace::MpiEvent],
) {
    use pomp2::trace::{footer_chunk, header, ChunkWriter, MpiChunkWriter};
    let mut bytes = header().to_vec();
    let mut writer = ChunkWriter::new(1 << 16);
    for span in spans {
        writer.push(span);
    }
    bytes.extend_from_slice(writer.chunk(0));
    let mut writer = MpiChunkWriter::new(1 << 16);
    for record in records {
        writer.push(record);
    }
    bytes.extend_from_slice(writer.chunk(0));
    bytes.extend_from_slice(&footer_chunk(footer));
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn traces_of_mpi_ranks_join_into_one_otf2_archive_on_one_time_line() {
    use pomp2::clock::{ClockOffset, ClockSync, SyncMethod};
    use pomp2::mpi::{CollectiveOp, CommId, Communicator};
    use pomp2::profile::Kind;
    use pomp2::trace::{Collective, Footer, Message, MpiEvent, MpiRecord, Span};

    let dir = tempfile::Builder::new()
        .prefix("pomp-report-mpi-traces")
        .tempdir()
        .unwrap();
    let run = "pomp-20250314_093015_77";
    let experiment = dir.path().join(run);
    std::fs::create_dir(&experiment).unwrap();
    let start_unix_ns = 1_741_941_015_000_000_000u64;
    let manifest = pomp2::experiment::Manifest {
        format: pomp2::experiment::FORMAT.into(),
        version: pomp2::experiment::VERSION,
        run: run.into(),
        command: vec!["./ring".into()],
        working_directory: "/tmp".into(),
        start: "2025-03-14T09:30:15+01:00".into(),
        start_unix_ns,
        ranks: 2,
        agreement: pomp2::experiment::Agreement::Mpi,
        launcher: None,
        mpi: None,
        threads_per_rank: Some(vec![1, 1]),
        hosts: None,
        finished: true,
    };
    std::fs::write(
        experiment.join(pomp2::experiment::MANIFEST),
        serde_json::to_vec(&manifest).unwrap(),
    )
    .unwrap();

    // Rank 0 made a communicator of both ranks, rank 1 first in it.
    let pair = CommId::made(0, 0);
    let regions: Vec<pomp2::profile::Region> = [
        "MPI_Send",
        "MPI_Recv",
        "MPI_Irecv",
        "MPI_Isend",
        "MPI_Wait",
        "MPI_Allreduce",
        "MPI_Comm_split",
    ]
    .iter()
    .enumerate()
    .map(|(at, name)| pomp2::profile::mpi_region(at as u32 + 1, name))
    .collect();
    let region = |name: &str| regions.iter().find(|r| r.label == name).unwrap().id;
    let span = |name: &str, start: u64, end: u64| Span {
        start,
        duration: end - start,
        region: region(name),
        kind: Kind::Mpi,
        task: 0,
        forked: false,
    };
    let message = |communicator, peer, tag, bytes| Message {
        communicator,
        peer,
        tag,
        bytes,
    };
    let at = |time, record| MpiEvent { time, record };
    let offset = |at_ns, offset_ns, method| ClockOffset {
        at_ns,
        offset_ns,
        precision_ns: 5,
        method,
        measured: None,
    };
    let footer = |rank: u32, host: &str, clock: ClockSync, communicators| Footer {
        format: pomp2::trace::FORMAT.into(),
        producer: "test".into(),
        pid: 100 + rank,
        rank: Some(rank.to_string()),
        origin_ticks: 0,
        ns_per_tick: 1.0,
        wall_ns: 10_000,
        events: 0,
        dropped_events: 0,
        trace_limit: 1_000_000,
        buffer_bytes: 1 << 16,
        threads: vec![0],
        regions: regions.clone(),
        experiment: Some(run.into()),
        ranks: Some(2),
        host: Some(host.into()),
        clock: Some(clock),
        mpi_records: 0,
        dropped_mpi_records: 0,
        communicators,
    };
    // Rank 0's clock is the time line; rank 1's reads 2 µs behind it and
    // began 1 µs before rank 0's: read without the offset, its receive of
    // rank 0's first message would end before that message was sent.
    let rank0_clock = ClockSync {
        origin_monotonic_ns: 10_000,
        offsets: vec![offset(0, 0, SyncMethod::Reference)],
    };
    let rank1_clock = ClockSync {
        origin_monotonic_ns: 9_000,
        offsets: vec![
            offset(0, 2_000, SyncMethod::PingPong),
            offset(5_000, 2_000, SyncMethod::PingPong),
        ],
    };
    // On the common time line, rank 0's times are 10 000 + t and rank 1's
    // 11 000 + t.
    write_trace(
        &experiment.join("trace.0.ptrace"),
        &footer(
            0,
            "alpha",
            rank0_clock,
            vec![Communicator {
                id: pair,
                parent: CommId::WORLD,
                members: vec![1, 0],
            }],
        ),
        &[
            span("MPI_Comm_split", 10, 50),
            span("MPI_Send", 100, 200),
            span("MPI_Irecv", 300, 310),
            span("MPI_Recv", 320, 1_500),
            span("MPI_Wait", 1_600, 1_700),
            span("MPI_Allreduce", 2_000, 2_300),
        ],
        &[
            at(100, MpiRecord::Send(message(CommId::WORLD, 1, 7, 800))),
            at(300, MpiRecord::IrecvRequest { request: 1 }),
            at(1_500, MpiRecord::Recv(message(pair, 0, 9, 24))),
            at(
                1_700,
                MpiRecord::Irecv {
                    message: message(CommId::WORLD, 1, 8, 16),
                    request: 1,
                },
            ),
            at(2_000, MpiRecord::CollectiveBegin),
            at(
                2_300,
                MpiRecord::CollectiveEnd(Collective {
                    operation: CollectiveOp::Allreduce,
                    communicator: CommId::WORLD,
                    root: None,
                    sent: 8,
                    received: 8,
                }),
            ),
        ],
    );
    write_trace(
        &experiment.join("trace.1.ptrace"),
        &footer(1, "beta", rank1_clock, Vec::new()),
        &[
            span("MPI_Comm_split", 20, 40),
            span("MPI_Recv", 50, 150),
            span("MPI_Isend", 200, 210),
            span("MPI_Wait", 220, 260),
            span("MPI_Send", 300, 310),
            span("MPI_Allreduce", 900, 1_300),
        ],
        &[
            at(150, MpiRecord::Recv(message(CommId::WORLD, 0, 7, 800))),
            at(
                200,
                MpiRecord::Isend {
                    message: message(CommId::WORLD, 0, 8, 16),
                    request: 1,
                },
            ),
            at(260, MpiRecord::IsendComplete { request: 1 }),
            // To rank 1 of the pair: world rank 0.
            at(300, MpiRecord::Send(message(pair, 1, 9, 24))),
            at(900, MpiRecord::CollectiveBegin),
            at(
                1_300,
                MpiRecord::CollectiveEnd(Collective {
                    operation: CollectiveOp::Allreduce,
                    communicator: CommId::WORLD,
                    root: None,
                    sent: 8,
                    received: 8,
                }),
            ),
        ],
    );

    let archive = dir.path().join("otf2");
    succeed(
        pomp()
            .arg("report")
            .arg(&experiment)
            .arg("--otf2")
            .arg(&archive),
    );
    let anchor = archive.join("traces.otf2");
    let read = read_with_python("read_otf2.py", &anchor);
    assert_eq!(read["problems"], serde_json::json!([]), "{read:#}");
    // Every send has its receive, of the same size, received after it
    // was sent.
    assert_eq!(read["unmatched_sends"], serde_json::json!([]), "{read:#}");
    assert_eq!(
        read["unmatched_receives"],
        serde_json::json!([]),
        "{read:#}"
    );
    let messages = read["messages"].as_array().unwrap();
    let summary: Vec<(String, String, String, u64)> = messages
        .iter()
        .map(|m| {
            assert_eq!(m["sent_bytes"], m["received_bytes"], "{m}");
            assert!(m["received_at"].as_u64() >= m["sent_at"].as_u64(), "{m}");
            (
                m["from"].as_str().unwrap().into(),
                m["to"].as_str().unwrap().into(),
                m["communicator"].as_str().unwrap().into(),
                m["tag"].as_u64().unwrap(),
            )
        })
        .collect();
    let pair_name = "MPI communicator 0 of rank 0".to_string();
    let expected = [
        ("rank 0", "rank 1", "MPI_COMM_WORLD".to_string(), 7),
        ("rank 1", "rank 0", "MPI_COMM_WORLD".to_string(), 8),
        ("rank 1", "rank 0", pair_name, 9),
    ];
    for (from, to, communicator, tag) in expected {
        assert!(
            summary.contains(&(from.into(), to.into(), communicator.clone(), tag)),
            "{from} → {to} on {communicator} tag {tag}: {summary:?}"
        );
    }
    assert_eq!(messages.len(), 3);
    assert_eq!(read["events"]["MpiCollectiveEnd"], 2, "{}", read["events"]);
    // Each rank under its host, the hosts under the machine.
    let groups = read["location_groups"].as_array().unwrap();
    for (group, host) in groups.iter().zip(["alpha", "beta"]) {
        assert_eq!(group["above"][0]["name"], host, "{group}");
        assert_eq!(group["above"][0]["class"], "node", "{group}");
        assert_eq!(group["above"][1]["name"], "machine", "{group}");
    }
    assert_eq!(groups[0]["name"], "rank 0");
    // The first event is rank 0's at 10 010 ns of its clock, where rank 0
    // began at 10 000 ns: 10 ns after the manifest's start.
    let clock = &read["clock"];
    assert_eq!(clock["resolution"], 1_000_000_000u64);
    assert_eq!(clock["global_offset"], 10_010);
    assert_eq!(clock["realtime"], start_unix_ns + 10, "{clock}");
    assert!(clock["trace_length"].as_u64().unwrap() > 2_000, "{clock}");
    otf2_print(&anchor);
}
