//! `pomp preview` on real files. The diff it prints is applied to the
//! original with `patch`, which must give exactly what `pomp instrument`
//! writes; the JSON's regions are joined with the IDF `pomp instrument`
//! writes, and its positions recounted here.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn pomp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pomp"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// A copy of `source` (relative to the repository) in `dir`, by its name.
fn copy(dir: &Path, source: &str) -> String {
    let from = root().join(source);
    let name = from.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::copy(&from, dir.join(&name)).unwrap();
    name
}

/// What `pomp instrument` writes for `name`, with `extra` options.
fn instrumented(dir: &Path, name: &str, extra: &[&str]) -> Vec<u8> {
    let out = format!("{name}.out");
    let mut args = vec!["instrument", name, "-o", &out];
    args.extend(extra);
    let run = pomp(dir, &args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(dir.join(out)).unwrap()
}

/// `diff` applied to the file `name` in `dir` by `patch`.
fn patched(dir: &Path, name: &str, diff: &[u8]) -> Vec<u8> {
    let diff_file = dir.join("preview.diff");
    std::fs::write(&diff_file, diff).unwrap();
    let out = dir.join("patched");
    let run = Command::new("patch")
        .current_dir(dir)
        .args(["--quiet", "--binary", "-o"])
        .arg(&out)
        .arg(name)
        .arg(&diff_file)
        .output()
        .expect("patch is installed (scripts/setup)");
    assert!(
        run.status.success(),
        "patch refused the diff: {}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read(out).unwrap()
}

#[test]
fn the_diff_applied_to_the_original_gives_the_instrumented_file() {
    let dir = tempfile::tempdir().unwrap();
    for source in [
        "corpus/c/nested_orphaned.c",
        "corpus/c/sections.c",
        "corpus/cxx/lambdas_ranges.cpp",
        "tests/cases/crlf_bom.c",
        "corpus/fortran/fixed/loops.f",
        "corpus/fortran/free/worksharing.f90",
    ] {
        let name = copy(dir.path(), source);
        // Markers hidden: the same code as --nosrc writes.
        let preview = pomp(dir.path(), &["preview", &name]);
        assert!(
            preview.status.success(),
            "{source}: {}",
            String::from_utf8_lossy(&preview.stderr)
        );
        assert!(
            !String::from_utf8_lossy(&preview.stdout).contains("#line"),
            "{source}"
        );
        assert_eq!(
            patched(dir.path(), &name, &preview.stdout),
            instrumented(dir.path(), &name, &["--nosrc"]),
            "{source}"
        );
        // Markers shown: exactly the instrumented file.
        let preview = pomp(dir.path(), &["preview", &name, "--line-markers"]);
        assert!(
            String::from_utf8_lossy(&preview.stdout).contains("+#line"),
            "{source}"
        );
        assert_eq!(
            patched(dir.path(), &name, &preview.stdout),
            instrumented(dir.path(), &name, &[]),
            "{source}"
        );
    }
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["preview", "--format", "json"];
    all.extend(args);
    let run = pomp(dir, &all);
    serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stderr)))
}

/// 0-based line and UTF-16 column of byte `offset`, counted afresh.
fn lsp_position(text: &[u8], offset: usize) -> (u64, u64) {
    let before = &text[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count();
    let column = String::from_utf8_lossy(&before[line_start..])
        .encode_utf16()
        .count();
    (line as u64, column as u64)
}

#[test]
fn json_regions_carry_their_edits_and_their_idf_entry() {
    let dir = tempfile::tempdir().unwrap();
    let name = copy(dir.path(), "corpus/c/nested_orphaned.c");
    // Text outside ASCII in front of a directive, to count columns on.
    let text = std::fs::read_to_string(dir.path().join(&name))
        .unwrap()
        .replacen("#pragma omp", "/* ω→𝜋 */\n#pragma omp", 1);
    std::fs::write(dir.path().join(&name), &text).unwrap();
    let bytes = text.as_bytes();
    let document = json(dir.path(), &[&name]);
    assert_eq!(document["position_encoding"], "utf-16");
    let run = pomp(
        dir.path(),
        &["instrument", &name, "-o", "out.c", "--idf", "out.json"],
    );
    assert!(run.status.success());
    let idf: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.json")).unwrap()).unwrap();
    let regions = document["regions"].as_array().unwrap();
    assert_eq!(regions.len(), idf["regions"].as_array().unwrap().len());
    assert!(regions.len() >= 3);

    let output = std::fs::read(dir.path().join("out.c")).unwrap();
    let mut inserted = 0;
    for (region, entry) in regions.iter().zip(idf["regions"].as_array().unwrap()) {
        assert_eq!(&region["idf"], entry);
        assert_eq!(region["id"], entry["id"]);
        assert!(!region["events"].as_array().unwrap().is_empty(), "{region}");
        for edit in region["edits"].as_array().unwrap() {
            let [start, end] = [
                edit["bytes"][0].as_u64().unwrap(),
                edit["bytes"][1].as_u64().unwrap(),
            ];
            let (line, character) = lsp_position(bytes, start as usize);
            assert_eq!(edit["range"]["start"]["line"], line);
            assert_eq!(edit["range"]["start"]["character"], character);
            assert_eq!(edit["start"]["line"], line + 1);
            let (line, character) = lsp_position(bytes, end as usize);
            assert_eq!(edit["range"]["end"]["line"], line);
            assert_eq!(edit["range"]["end"]["character"], character);
            let code = edit["text"].as_str().unwrap();
            assert!(
                output.windows(code.len()).any(|w| w == code.as_bytes()),
                "{code:?} is not in the output"
            );
            inserted += 1;
        }
    }
    assert!(inserted >= regions.len());
    // The events are the calls of the inserted code.
    let events: Vec<&str> = regions
        .iter()
        .flat_map(|r| r["events"].as_array().unwrap())
        .map(|e| e.as_str().unwrap())
        .collect();
    for event in ["POMP2_Parallel_fork", "POMP2_Parallel_join"] {
        assert!(events.contains(&event), "{events:?}");
    }

    // One region alone, and the region a line falls in.
    let second = json(dir.path(), &[&name, "--region", "2"]);
    assert_eq!(second["regions"].as_array().unwrap().len(), 1);
    assert_eq!(second["regions"][0], regions[1]);
    for region in regions {
        let directive_line = region["directive"]["start"]["line"].as_u64().unwrap();
        let innermost = regions
            .iter()
            .filter(|r| {
                r["extent"]["start"]["line"].as_u64().unwrap() <= directive_line
                    && directive_line <= r["extent"]["end"]["line"].as_u64().unwrap()
            })
            .max_by_key(|r| r["extent"]["bytes"][0].as_u64().unwrap())
            .unwrap();
        let at_line = json(dir.path(), &[&name, "--line", &directive_line.to_string()]);
        assert_eq!(at_line["regions"][0]["index"], innermost["index"]);
    }
}

#[test]
fn one_region_shows_only_its_own_code() {
    let dir = tempfile::tempdir().unwrap();
    let name = copy(dir.path(), "corpus/c/nested_orphaned.c");
    let document = json(dir.path(), &[&name]);
    let original = std::fs::read(dir.path().join(&name)).unwrap();
    for region in document["regions"].as_array().unwrap() {
        let index = region["index"].to_string();
        let diff = pomp(
            dir.path(),
            &["preview", &name, "--region", &index, "--line-markers"],
        )
        .stdout;
        let result = patched(dir.path(), &name, &diff);
        // The original with this region's edits applied, and no others.
        let mut expected = Vec::new();
        let mut copied = 0;
        for edit in region["edits"].as_array().unwrap() {
            let start = edit["bytes"][0].as_u64().unwrap() as usize;
            expected.extend_from_slice(&original[copied..start]);
            expected.extend_from_slice(edit["text"].as_str().unwrap().as_bytes());
            copied = edit["bytes"][1].as_u64().unwrap() as usize;
        }
        expected.extend_from_slice(&original[copied..]);
        assert_eq!(
            String::from_utf8_lossy(&result),
            String::from_utf8_lossy(&expected),
            "region {index}"
        );
    }
    let missing = pomp(dir.path(), &["preview", &name, "--region", "999"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("has no region 999"));
    let nowhere = pomp(dir.path(), &["preview", &name, "--line", "1"]);
    assert_eq!(nowhere.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&nowhere.stderr).contains("no instrumented construct holds line 1")
    );
}

#[test]
fn a_file_with_broken_directives_previews_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let text = "void f(int n) {\n#pragma omp parallel for\n  for (int i = 0; i < n; i++ { }\n}\n\
                void g(void) {\n#pragma omp barrier\n}\n";
    std::fs::write(dir.path().join("broken.c"), text).unwrap();
    let preview = pomp(dir.path(), &["preview", "broken.c"]);
    assert_eq!(preview.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&preview.stdout);
    assert!(
        stdout.contains("+{ POMP2_Task_handle pomp2_old_task; POMP2_Barrier_enter("),
        "{stdout}"
    );
    assert!(!stdout.contains("Parallel_fork"), "{stdout}");
    // Diagnostics as pomp instrument prints them.
    let instrument = pomp(dir.path(), &["instrument", "broken.c", "-o", "out.c"]);
    let stderr = String::from_utf8_lossy(&preview.stderr);
    let expected = String::from_utf8_lossy(&instrument.stderr);
    let diagnostics = expected
        .split("error: broken.c not instrumented")
        .next()
        .unwrap();
    assert!(!diagnostics.is_empty());
    assert_eq!(stderr, diagnostics);
}

#[test]
fn colour_on_request_only_and_columns_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let name = copy(dir.path(), "corpus/c/sections.c");
    let piped = pomp(dir.path(), &["preview", &name]);
    assert!(!piped.stdout.contains(&0x1b));
    let always = pomp(dir.path(), &["preview", &name, "--color", "always"]);
    let always_text = String::from_utf8_lossy(&always.stdout);
    assert!(always_text.contains("\x1b[32m+"), "insertions in green");
    assert_eq!(
        anstream::adapter::strip_str(&always_text).to_string(),
        String::from_utf8_lossy(&piped.stdout)
    );

    let side = pomp(
        dir.path(),
        &["preview", &name, "--side-by-side", "--width", "100"],
    );
    assert!(side.status.success());
    let text = String::from_utf8_lossy(&side.stdout);
    let original: Vec<String> = std::fs::read_to_string(dir.path().join(&name))
        .unwrap()
        .lines()
        .map(|l| l.replace('\t', "    "))
        .collect();
    let mut rows = 0;
    for row in text.lines().skip(2) {
        assert!(row.chars().count() <= 100, "{row}");
        // A left cell: its line number, then the start of that line.
        let Some((number, rest)) = row.trim_start().split_once(' ') else {
            continue;
        };
        let Ok(number) = number.parse::<usize>() else {
            continue;
        };
        let cell: String = rest.chars().take(20).collect();
        let cell = cell.trim_end_matches('…');
        assert!(original[number - 1].starts_with(cell.trim_end()), "{row}");
        rows += 1;
    }
    assert!(rows > 10, "{text}");
}
