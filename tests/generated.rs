//! The generated-program test: random, valid, deterministic OpenMP programs
//! in C and Fortran (free and fixed form) are compiled and run as written,
//! then instrumented by pomp for both interfaces (some as the compiler's
//! preprocessor writes them, line markers and headers in), linked against the
//! checking libraries and run again (`tests/support/progen/check.rs`). A
//! failing program is shrunk to the statements that make it fail.
//!
//! Each program is checked with every toolchain installed: gcc (gfortran for
//! Fortran) and clang with libomp (C only), whose trials are named
//! `clang/<lang>/seed-<n>`.
//!
//! `cargo test --test generated` checks a bounded number of seeds, with every
//! feature class on except those listed in `KNOWN_BUGS`. Trials are named
//! `<lang>/seed-<n>`, so `cargo test --test generated -- free/seed-3` runs one.
//! The programs under `tests/found/` (shrunk failures of classes still open)
//! are ignored trials `found/<file>`: `-- --ignored found/` tells which are
//! fixed. Once fixed, a program moves to `tests/regressions/`, whose files
//! are regular trials `regression/<file>`. A found program whose first line
//! says `libgomp fails` (or `libomp fails`) fails in that OpenMP runtime
//! uninstrumented too: it is open for the toolchain of that runtime, and a
//! regular trial for the others.
//!
//! With `POMP_FUZZ_CASES=N` set (`scripts/fuzz N [SEED]`), it instead runs N
//! cases with every feature on, shrinks one program per failure class and
//! prints a summary. A case is one program, checked with one toolchain for
//! both interfaces; the cases go round the languages with gcc and then C
//! with clang. Further settings: `POMP_FUZZ_SEED` (first seed, default 1),
//! `POMP_FUZZ_LANGS` (comma-separated of c, free, fixed),
//! `POMP_FUZZ_FEATURES=bounded` (the bounded run's switches),
//! `POMP_FUZZ_OUT` (where shrunk programs go, default
//! `target/fuzz-found`), `POMP_FUZZ_TOOLCHAIN=gcc` or `clang` (that
//! toolchain alone).

#[path = "support/progen/mod.rs"]
mod progen;
#[path = "support/runtime_library.rs"]
mod runtime_library;

use libtest_mimic::{Arguments, Failed, Trial};
use progen::ast::{Lang, Program};
use progen::check::{check, Failure, Interface, Outcome, Toolchain};
use progen::generate::{generate, Feature, Features};
use progen::toolchains::Toolchain as Compilers;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Seeds per language and toolchain in the bounded run: 64 programs (gcc's
/// three languages and clang's C), each checked with both interfaces and
/// pomp's runtime, in about two minutes on two cores.
const BOUNDED_SEEDS: u64 = 16;
const BOUNDED_SHRINK_BUDGET: usize = 150;
const FUZZ_SHRINK_BUDGET: usize = 150;
const INTERFACES: &[Interface] = &[Interface::Pomp2, Interface::Pomp1];
const LANGS: &[Lang] = &[Lang::C, Lang::FortranFree, Lang::FortranFixed];

/// Feature classes whose failures are known and reported; the bounded run
/// leaves them out so that it passes on today's pomp. Each is switched back
/// on when its failure is fixed (the shrunk programs are in `tests/found/`).
const KNOWN_BUGS: &[Feature] = &[];

/// What clang 14 cannot compile or run as written: `scope` and `parallel
/// masked` (OpenMP 5.1), a loop construct shared by a team (it runs every
/// iteration on every thread, and reads `parallel loop` as `parallel`),
/// `hint(0)` (it wants a positive hint), untied tasks, on which its
/// libomp fails an assertion, and an `if` applying to `simd` over a loop
/// whose body jumps out of an inner loop, on which it crashes
/// (`tests/found/libomp-simd-if-around-inner-jump-crash.c`).
const CLANG_14_LACKS: &[Feature] = &[
    Feature::Scope,
    Feature::Masked,
    Feature::SharedLoopConstruct,
    Feature::CriticalHint,
    Feature::Untied,
    Feature::IfOnSimd,
];

/// What libomp, clang's OpenMP runtime (14), fails on uninstrumented: a
/// parallel region nested in a parallel region of a league of teams
/// leaves its task bookkeeping wrong, and the tasks of a later parallel
/// region hang or fail an assertion, as they do after a parallel region
/// in a league of one team; a worksharing loop with a dynamic
/// schedule may run a thread's chunks out of order, and the value of
/// the sequentially last iteration that `lastprivate` or `linear` gives
/// back is lost; and a league of teams on the host with a reduction,
/// after parallel regions that created tasks, fails an assertion.
/// `tests/found/libomp-*` show them.
const LIBOMP_FAULTS: &[Feature] = &[
    Feature::NestedParallelInTeams,
    Feature::LeagueOfOne,
    Feature::LastValueOfDynamicSchedule,
    Feature::ReductionOnTeams,
];

fn bounded_features() -> Features {
    Features::all().without(KNOWN_BUGS)
}

/// What libgomp, gcc's and gfortran's OpenMP runtime, fails on
/// uninstrumented: a taskgroup with `task_reduction` that no parallel
/// region encloses leaves the initial thread in a team of its own, after
/// which parallel regions free their teams while the workers still read
/// them (a hang, now and then) and an enclosing loop construct loses its
/// schedule (an abort); gcc's code for a loop with a dynamic schedule,
/// `linear` and a `reduction(task, ...)` gives the linear variable back
/// wrong; and gcc 12 fails with an internal error on a loop construct with
/// `reduction` that a team shares, after a `switch` on a constant.
/// `tests/found/libgomp-*` show them.
const LIBGOMP_FAULTS: &[Feature] = &[
    Feature::OrphanedTaskReduction,
    Feature::LinearWithTaskReduction,
    Feature::ReductionOnTeamLoopConstruct,
];

/// The features a toolchain's programs are generated with.
fn features_for(compilers: &Compilers, features: Features) -> Features {
    match compilers.is_default() {
        true => features.without(LIBGOMP_FAULTS),
        false => features.without(CLANG_14_LACKS).without(LIBOMP_FAULTS),
    }
}

fn headline(failure: Option<&Failure>, lang: Lang, seed: u64) -> String {
    match failure {
        Some(f) => format!(
            "pomp fails: {}; found by the program generator ({} seed {seed}); check with --interface {}",
            f.class(),
            lang.name(),
            f.interface.name()
        ),
        None => format!("generated by pomp's program generator ({} seed {seed})", lang.name()),
    }
}

/// A case's work directory, kept (sources, pomp's output, executables)
/// when `POMP_FUZZ_KEEP` is set, to look into a failure.
fn work_dir() -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix("pomp-progen-")
        .disable_cleanup(std::env::var_os("POMP_FUZZ_KEEP").is_some())
        .tempdir()
        .map_err(|e| e.to_string())
}

/// Checks one rendered program; the interfaces default to both.
fn check_program(
    toolchain: &Toolchain,
    program: &Program,
    seed: u64,
    interfaces: &[Interface],
) -> Result<Outcome, String> {
    let text = progen::render(program, &headline(None, program.lang, seed));
    let dir = work_dir()?;
    check(toolchain, &text, program.lang, interfaces, dir.path())
}

/// Shrinks a program that fails with `failure` to one that still fails with
/// the same class.
fn shrink_failure(
    toolchain: &Toolchain,
    program: &Program,
    seed: u64,
    failure: &Failure,
    budget: usize,
) -> Program {
    let class = failure.class();
    let mut still_fails = |candidate: &Program| {
        matches!(
            check_program(toolchain, candidate, seed, &[failure.interface]),
            Ok(Outcome::Fail(f)) if f.class() == class
        )
    };
    progen::shrink::shrink(program, &mut still_fails, budget)
}

fn generated_trial(
    toolchain: &Toolchain,
    features: &Features,
    lang: Lang,
    seed: u64,
    root: &Path,
) -> Result<(), Failed> {
    let program = generate(seed, lang, features);
    match check_program(toolchain, &program, seed, INTERFACES)? {
        Outcome::Pass => Ok(()),
        Outcome::Invalid(why) => Err(format!(
            "the generator wrote an invalid program (a generator fault):\n{why}\n{}",
            progen::render(&program, &headline(None, lang, seed))
        )
        .into()),
        Outcome::Fail(failure) => {
            let small = shrink_failure(toolchain, &program, seed, &failure, BOUNDED_SHRINK_BUDGET);
            let text = progen::render(&small, &headline(Some(&failure), lang, seed));
            let dir = root.join("target/generated-found");
            let _ = fs::create_dir_all(&dir);
            let path = dir.join(format!("{}-seed-{seed}.{}", lang.name(), lang.extension()));
            let _ = fs::write(&path, &text);
            Err(format!(
                "{}\n{}\nshrunk program ({}):\n{text}",
                failure.class(),
                failure.detail,
                path.display()
            )
            .into())
        }
    }
}

fn lang_of(path: &Path) -> Option<Lang> {
    match path.extension()?.to_str()? {
        "c" => Some(Lang::C),
        "f90" => Some(Lang::FortranFree),
        "f" => Some(Lang::FortranFixed),
        _ => None,
    }
}

/// A committed shrunk failure: passes once its class is fixed (and, in
/// `tests/regressions/`, ever after).
fn found_trial(toolchain: &Toolchain, path: &Path, lang: Lang) -> Result<(), Failed> {
    let text = fs::read_to_string(path).map_err(|e| e.to_string())?;
    let first = text.lines().next().unwrap_or_default();
    let interface = if first.contains("--interface pomp1") {
        Interface::Pomp1
    } else {
        Interface::Pomp2
    };
    let dir = work_dir()?;
    match check(toolchain, &text, lang, &[interface], dir.path())? {
        Outcome::Pass => Ok(()),
        Outcome::Invalid(why) => match failing_runtime(first) {
            Some(runtime) => Err(format!("{runtime} still fails on it: {why}").into()),
            None => Err(format!("no longer a valid program: {why}").into()),
        },
        Outcome::Fail(f) => Err(format!("{}\n{}", f.class(), f.detail).into()),
    }
}

/// The OpenMP runtime a found program's first line says fails on it.
fn failing_runtime(first_line: &str) -> Option<&'static str> {
    ["libgomp", "libomp"]
        .into_iter()
        .find(|runtime| first_line.contains(&format!("{runtime} fails")))
}

/// A trial's name, prefixed with its toolchain's unless that is gcc's.
fn trial_name(compilers: &Compilers, name: String) -> String {
    match compilers.is_default() {
        true => name,
        false => format!("{}/{name}", compilers.name),
    }
}

fn bounded(root: &Path, toolchains: Vec<(Compilers, Arc<Result<Toolchain, String>>)>) {
    let arguments = Arguments::from_args();
    let mut trials = vec![
        Trial::test("generator/one-clause-of-a-kind", one_clause_of_a_kind),
        Trial::test(
            "generator/no-parallel-nested-in-teams-for-libomp",
            no_parallel_nested_in_teams_for_libomp,
        ),
    ];
    for (compilers, toolchain) in &toolchains {
        bounded_trials(root, compilers, toolchain, &mut trials);
    }
    let conclusion = libtest_mimic::run(&arguments, trials);
    // Exiting runs no destructors: the checking libraries' directories go first.
    drop(toolchains);
    conclusion.exit();
}

/// Seeds per language and feature set whose programs are generated, not
/// compiled, to check what compilers reject in any program that has it.
const GENERATED_ONLY_SEEDS: u64 = 3000;

/// No directive of a generated program, with gcc's or clang's features,
/// holds a clause twice that OpenMP allows once: the compilers reject it,
/// and in a fuzz run that shows as an invalid program only where a seed
/// happens to draw it.
fn one_clause_of_a_kind() -> Result<(), Failed> {
    fn twice(stmts: &[progen::ast::Stmt]) -> Option<String> {
        stmts.iter().find_map(|stmt| {
            if let progen::ast::Stmt::Omp(construct) = stmt {
                let mut seen = Vec::new();
                for clause in &construct.clauses {
                    if let Some(name) = clause.once_per_directive() {
                        if seen.contains(&name) {
                            return Some(format!("{} {name} twice", construct.names.join(" ")));
                        }
                        seen.push(name);
                    }
                }
            }
            stmt.children().into_iter().find_map(|body| twice(body))
        })
    }
    let feature_sets = [
        Features::all().without(LIBGOMP_FAULTS),
        Features::all()
            .without(CLANG_14_LACKS)
            .without(LIBOMP_FAULTS),
    ];
    for features in &feature_sets {
        for lang in LANGS {
            for seed in 0..GENERATED_ONLY_SEEDS {
                let program = generate(seed, *lang, features);
                let bodies = (program.kernels.iter().map(|k| &k.body))
                    .chain(program.helpers.iter().map(|h| &h.body));
                if let Some(fault) = bodies.into_iter().find_map(|body| twice(body)) {
                    return Err(format!("{} seed {seed}: {fault}", lang.name()).into());
                }
            }
        }
    }
    Ok(())
}

/// libomp hangs after a parallel region nested in a team of a league
/// (`LIBOMP_FAULTS`): no program generated for clang has one, however the
/// parallel regions are written (a `parallel` leaf of a combined
/// construct, a directive of its own, in a helper called there).
fn no_parallel_nested_in_teams_for_libomp() -> Result<(), Failed> {
    use progen::ast::{Program, Stmt};
    /// Where a statement list stands: in a league of teams, in a team
    /// of it.
    fn nested(program: &Program, stmts: &[Stmt], league: bool, team: bool) -> Option<String> {
        stmts.iter().find_map(|stmt| {
            let (mut league, mut team) = (league, team);
            match stmt {
                Stmt::Omp(construct) => {
                    for name in &construct.names {
                        match *name {
                            "teams" => league = true,
                            "parallel" if team => {
                                return Some(construct.names.join(" "));
                            }
                            "parallel" => team = league,
                            _ => {}
                        }
                    }
                }
                Stmt::Call(helper, _) => {
                    if let Some(found) =
                        nested(program, &program.helpers[*helper].body, league, team)
                    {
                        return Some(format!("{found} in helper{helper}"));
                    }
                }
                _ => {}
            }
            (stmt.children().into_iter()).find_map(|body| nested(program, body, league, team))
        })
    }
    let features = Features::all()
        .without(CLANG_14_LACKS)
        .without(LIBOMP_FAULTS);
    for seed in 0..GENERATED_ONLY_SEEDS {
        let program = generate(seed, Lang::C, &features);
        for (index, kernel) in program.kernels.iter().enumerate() {
            if let Some(found) = nested(&program, &kernel.body, false, false) {
                return Err(format!(
                    "c seed {seed}: kernel{index} nests {found} in a team of a league"
                )
                .into());
            }
        }
    }
    Ok(())
}

fn bounded_trials(
    root: &Path,
    compilers: &Compilers,
    toolchain: &Arc<Result<Toolchain, String>>,
    trials: &mut Vec<Trial>,
) {
    let compiles = |lang: Lang| !lang.is_fortran() || compilers.fortran.is_some();
    for lang in LANGS.iter().copied().filter(|l| compiles(*l)) {
        for seed in 0..BOUNDED_SEEDS {
            let toolchain = Arc::clone(toolchain);
            let root = root.to_path_buf();
            let features = features_for(compilers, bounded_features());
            trials.push(Trial::test(
                trial_name(compilers, format!("{}/seed-{seed}", lang.name())),
                move || {
                    let toolchain = toolchain.as_ref().as_ref().map_err(|e| e.clone())?;
                    generated_trial(toolchain, &features, lang, seed, &root)
                },
            ));
        }
    }
    for (dir, prefix, found) in [
        ("tests/found", "found", true),
        ("tests/regressions", "regression", false),
    ] {
        let mut programs: Vec<PathBuf> = fs::read_dir(root.join(dir))
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        programs.sort();
        for path in programs {
            let Some(lang) = lang_of(&path).filter(|l| compiles(*l)) else {
                continue;
            };
            let text = fs::read_to_string(&path).unwrap_or_default();
            let open = match failing_runtime(text.lines().next().unwrap_or_default()) {
                Some(runtime) => runtime == compilers.openmp_runtime(),
                None => found,
            };
            let toolchain = Arc::clone(toolchain);
            let name = format!("{prefix}/{}", path.file_name().unwrap().to_string_lossy());
            let name = trial_name(compilers, name);
            trials.push(
                Trial::test(name, move || {
                    let toolchain = toolchain.as_ref().as_ref().map_err(|e| e.clone())?;
                    found_trial(toolchain, &path, lang)
                })
                .with_ignored_flag(open),
            );
        }
    }
}

struct FuzzFailure<'t> {
    lang: Lang,
    toolchain: &'t Toolchain,
    seed: u64,
    program: Program,
    failure: Failure,
}

struct Invalid<'t> {
    lang: Lang,
    toolchain: &'t Toolchain,
    features: &'t Features,
    seed: u64,
    why: String,
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A language and a toolchain that compiles it, with the features of its
/// programs: what the cases go round.
struct Slot<'t> {
    lang: Lang,
    toolchain: &'t Toolchain,
    features: Features,
}

/// The toolchain's name where it is not the default one, for file names.
fn toolchain_prefix(toolchain: &Toolchain) -> String {
    match toolchain.compilers().is_default() {
        true => String::new(),
        false => format!("{}-", toolchain.compilers().name),
    }
}

fn fuzz(root: &Path, toolchains: &[Toolchain], cases: u64) {
    let first_seed: u64 = env_or("POMP_FUZZ_SEED", 1);
    let langs: Vec<Lang> = std::env::var("POMP_FUZZ_LANGS")
        .unwrap_or_else(|_| "c,free,fixed".into())
        .split(',')
        .filter_map(|name| LANGS.iter().copied().find(|l| l.name() == name.trim()))
        .collect();
    let features = match std::env::var("POMP_FUZZ_FEATURES").as_deref() {
        Ok("bounded") => bounded_features(),
        _ => Features::all(),
    };
    let slots: Vec<Slot> = toolchains
        .iter()
        .flat_map(|toolchain| {
            let features = features_for(toolchain.compilers(), features.clone());
            langs
                .iter()
                .filter(|lang| toolchain.compiles(**lang))
                .map(move |lang| Slot {
                    lang: *lang,
                    toolchain,
                    features: features.clone(),
                })
        })
        .collect();
    assert!(!slots.is_empty(), "no toolchain compiles {langs:?}");
    let out_dir = std::env::var("POMP_FUZZ_OUT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("target/fuzz-found"));
    fs::create_dir_all(&out_dir).expect("the output directory");
    let started = Instant::now();
    let failures = Mutex::new(Vec::new());
    let invalid = Mutex::new(Vec::new());
    let passed = std::sync::atomic::AtomicU64::new(0);
    let done = std::sync::atomic::AtomicU64::new(0);
    (0..cases).into_par_iter().for_each(|case| {
        let slot = &slots[case as usize % slots.len()];
        let (lang, toolchain) = (slot.lang, slot.toolchain);
        let seed = first_seed + case;
        let program = generate(seed, lang, &slot.features);
        let why = match check_program(toolchain, &program, seed, INTERFACES) {
            Ok(Outcome::Pass) => {
                passed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                None
            }
            Ok(Outcome::Fail(failure)) => {
                // Said at once, so that a long run stopped early still
                // tells what failed.
                eprintln!(
                    "fuzz: FAIL [{} {}] seed {seed}: {}",
                    lang.name(),
                    toolchain.compilers().name,
                    failure.class()
                );
                failures.lock().unwrap().push(FuzzFailure {
                    lang,
                    toolchain,
                    seed,
                    program,
                    failure,
                });
                None
            }
            Ok(Outcome::Invalid(why)) => Some(why),
            Err(e) => Some(format!("harness: {e}")),
        };
        if let Some(why) = why {
            eprintln!(
                "fuzz: INVALID [{} {}] seed {seed}: {}",
                lang.name(),
                toolchain.compilers().name,
                why.lines().next().unwrap_or_default()
            );
            invalid.lock().unwrap().push(Invalid {
                lang,
                toolchain,
                features: &slot.features,
                seed,
                why,
            });
        }
        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if n.is_multiple_of(50) {
            eprintln!(
                "fuzz: {n}/{cases} cases, {:.0}s",
                started.elapsed().as_secs_f64()
            );
        }
    });
    let checked = started.elapsed();
    let per_minute = cases as f64 / checked.as_secs_f64().max(0.001) * 60.0;
    let failures = failures.into_inner().unwrap();
    let invalid = invalid.into_inner().unwrap();
    let mut classes: BTreeMap<(String, &'static str, &'static str), Vec<&FuzzFailure>> =
        BTreeMap::new();
    for f in &failures {
        classes
            .entry((
                f.failure.class(),
                f.lang.name(),
                f.toolchain.compilers().name,
            ))
            .or_default()
            .push(f);
    }
    eprintln!(
        "fuzz: checked {cases} cases in {:.0}s ({per_minute:.0} per minute): {} failed in {} classes, {} invalid; shrinking one program per class",
        checked.as_secs_f64(),
        failures.len(),
        classes.len(),
        invalid.len()
    );
    for ((class, lang, compilers), members) in &classes {
        eprintln!("  {:4} × [{lang} {compilers}] {class}", members.len());
    }
    let shrink_started = Instant::now();
    let shrunk: Vec<(String, &'static str, &'static str, usize, PathBuf)> = classes
        .par_iter()
        .map(|((class, lang, compilers), members)| {
            let smallest = members
                .iter()
                .min_by_key(|f| progen::render(&f.program, "").len())
                .unwrap();
            let small = shrink_failure(
                smallest.toolchain,
                &smallest.program,
                smallest.seed,
                &smallest.failure,
                FUZZ_SHRINK_BUDGET,
            );
            let text = progen::render(
                &small,
                &headline(Some(&smallest.failure), smallest.lang, smallest.seed),
            );
            let path = out_dir.join(format!(
                "{}{}-{}-seed-{}.{}",
                toolchain_prefix(smallest.toolchain),
                slug(class),
                lang,
                smallest.seed,
                smallest.lang.extension()
            ));
            fs::write(&path, &text).expect("writing a shrunk program");
            let log = format!("{}\n{}", smallest.failure.class(), smallest.failure.detail);
            let _ = fs::write(format!("{}.log", path.display()), log);
            (class.clone(), *lang, *compilers, members.len(), path)
        })
        .collect();
    for (index, case) in invalid.iter().enumerate().take(5) {
        let program = generate(case.seed, case.lang, case.features);
        let path = out_dir.join(format!(
            "{}invalid-{index}.{}",
            toolchain_prefix(case.toolchain),
            case.lang.extension()
        ));
        let text = progen::render(
            &program,
            &format!("invalid: {}", case.why.lines().next().unwrap_or_default()),
        );
        let _ = fs::write(&path, text);
    }
    println!(
        "fuzz: {cases} cases (seeds {first_seed}..{}), {} passed, {} failed, {} invalid; checked in {:.0}s, {per_minute:.0} cases per minute; shrunk in {:.0}s",
        first_seed + cases,
        passed.into_inner(),
        failures.len(),
        invalid.len(),
        checked.as_secs_f64(),
        shrink_started.elapsed().as_secs_f64()
    );
    for (class, lang, compilers, count, path) in &shrunk {
        println!(
            "  {count:4} × [{lang} {compilers}] {class}\n         → {}",
            path.display()
        );
    }
    for case in invalid.iter().take(5) {
        println!(
            "  invalid ({} {} seed {}): {}",
            case.lang.name(),
            case.toolchain.compilers().name,
            case.seed,
            case.why.lines().take(3).collect::<Vec<_>>().join(" | ")
        );
    }
    if !failures.is_empty() || !invalid.is_empty() {
        std::process::exit(1);
    }
}

/// A file name for a failure class.
fn slug(class: &str) -> String {
    let mut out = String::new();
    for c in class.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
        if out.len() >= 60 {
            break;
        }
    }
    out.trim_matches('-').to_string()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toolchain = |compilers: Compilers| {
        Toolchain::new(
            Path::new(env!("CARGO_BIN_EXE_pomp")),
            &root.join("tests/support"),
            &runtime_library::archive(),
            compilers,
        )
    };
    match std::env::var("POMP_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        Some(cases) => {
            let compilers = match std::env::var("POMP_FUZZ_TOOLCHAIN").as_deref() {
                Ok("gcc") => vec![Compilers::gnu()],
                Ok("clang") => vec![Compilers::clang().expect("clang with libomp")],
                _ => Compilers::all(),
            };
            let toolchains: Vec<Toolchain> = compilers
                .into_iter()
                .map(|c| toolchain(c).expect("the checking libraries build"))
                .collect();
            fuzz(root, &toolchains, cases);
        }
        None => bounded(
            root,
            Compilers::all()
                .into_iter()
                .map(|c| (c.clone(), Arc::new(toolchain(c))))
                .collect(),
        ),
    }
}
