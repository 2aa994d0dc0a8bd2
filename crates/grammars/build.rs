//! Compiles the grammar crates' generated parsers (and external scanners)
//! without the pragma that turns the optimizer off, their public symbols
//! renamed so that they sit beside the crates' own builds, and
//! tree-sitter's parser (`lib.c` of the `tree-sitter` crate) under names
//! of its own. In optimized builds with GCC, all of them are compiled
//! first with profiling, run on `training/` by `train.c`, and compiled
//! again with that profile. Cargo tells a dependent nothing of its
//! dependencies' sources, so they are found where Cargo unpacks registry
//! crates, at the versions the lock file names (`cargo metadata` would
//! know, but it wants every package of the workspace downloaded, which a
//! build of one package does not do). Anything missing leaves the crates'
//! builds in use; a failed training, an untrained build.

use std::path::{Path, PathBuf};

/// A grammar crate, the name its language function carries, and its C
/// sources.
struct Grammar {
    package: &'static str,
    language: &'static str,
    sources: &'static [&'static str],
}

const GRAMMARS: &[Grammar] = &[
    Grammar {
        package: "tree-sitter-c",
        language: "c",
        sources: &["parser.c"],
    },
    Grammar {
        package: "tree-sitter-cpp",
        language: "cpp",
        sources: &["parser.c", "scanner.c"],
    },
    Grammar {
        package: "tree-sitter-fortran",
        language: "fortran",
        sources: &["parser.c", "scanner.c"],
    },
];

/// What the generator writes at the top of every parser. Only this exact
/// text is taken out; a parser written otherwise is compiled as it is.
const OPTIMIZER_OFF: &str = "#ifdef _MSC_VER\n#pragma optimize(\"\", off)\n#elif defined(__clang__)\n#pragma clang optimize off\n#elif defined(__GNUC__)\n#pragma GCC optimize (\"O0\")\n#endif\n";

/// tree-sitter's growable arrays (`array.h`, which the parser and some
/// external scanners use) are grown through a pointer to one struct type
/// and then read through another: with the optimizer free to assume
/// those never alias, GCC trained on the parser's runs inlined the
/// growth and read a list's old, empty storage after it (a crash in the
/// error recovery). Every compile here says they may alias.
const NO_STRICT_ALIASING: &str = "-fno-strict-aliasing";

/// The functions an external scanner defines, after the language's name.
const SCANNER_FUNCTIONS: &[&str] = &["create", "destroy", "scan", "serialize", "deserialize"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(pomp_grammars_compiled)");
    println!("cargo:rustc-check-cfg=cfg(pomp_parser_compiled)");
    match compile_all() {
        Ok(parser) => {
            println!("cargo:rustc-cfg=pomp_grammars_compiled");
            match parser {
                Ok(()) => println!("cargo:rustc-cfg=pomp_parser_compiled"),
                Err(why) => println!(
                    "cargo:warning=pomp parses with tree-sitter's own build of its parser: {why}"
                ),
            }
        }
        Err(why) => println!(
            "cargo:warning=pomp parses with the grammar crates' own builds, compiled without optimization: {why}"
        ),
    }
}

/// Compiles the grammars, then tree-sitter's parser (the runtime). The
/// outer result says whether the grammars were compiled, the inner one
/// whether the parser was.
fn compile_all() -> Result<Result<(), String>, String> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let lock = lock_file()?;
    println!("cargo:rerun-if-changed={}", lock.display());
    let lock: toml::Table = std::fs::read_to_string(&lock)
        .map_err(|e| format!("{}: {e}", lock.display()))?
        .parse()
        .map_err(|e| format!("{}: {e}", lock.display()))?;
    let sources = home::cargo_home()
        .map_err(|e| format!("no Cargo home: {e}"))?
        .join("registry")
        .join("src");
    let mut builds = Vec::new();
    for grammar in GRAMMARS {
        let version = locked_version(&lock, grammar.package)?;
        let directory = source_directory(&sources, grammar.package, &version, "parser.c")?;
        builds.push((grammar_build(grammar, &directory, &out)?, grammar.language));
    }
    let parser = locked_version(&lock, "tree-sitter")
        .and_then(|version| source_directory(&sources, "tree-sitter", &version, "lib.c"))
        .and_then(|src| parser_build(&src, &out))
        .map(|build| builds.push((build, "parser")));
    let trained = parser.is_ok()
        && match training_files().and_then(|files| train(&builds, &files, &out).map_err(Some)) {
            Ok(()) => true,
            Err(None) => false,
            Err(Some(why)) => {
                println!("cargo:warning=the parser is compiled without a profile: {why}");
                false
            }
        };
    for (mut build, name) in builds {
        if trained {
            build.flag(format!(
                "-fprofile-use={}",
                profile_directory(&out).display()
            ));
            build.flag("-fprofile-partial-training");
            build.flag("-Wno-missing-profile");
        }
        let library = format!("pomp-tree-sitter-{name}");
        let compiled = build.try_compile(&library).map_err(|e| e.to_string());
        match (compiled, name) {
            (Err(why), "parser") => return Ok(Err(why)),
            (compiled, _) => compiled?,
        }
    }
    Ok(parser)
}

/// The lock file of the build: this crate's, or its workspace's.
fn lock_file() -> Result<PathBuf, String> {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("no manifest dir")?);
    manifest_dir
        .ancestors()
        .map(|dir| dir.join("Cargo.lock"))
        .find(|lock| lock.is_file())
        .ok_or_else(|| "no Cargo.lock".to_string())
}

/// The one version of `package` the lock file names.
fn locked_version(lock: &toml::Table, package: &str) -> Result<String, String> {
    let versions: Vec<&str> = lock
        .get("package")
        .and_then(toml::Value::as_array)
        .ok_or("a lock file without packages")?
        .iter()
        .filter(|p| p.get("name").and_then(toml::Value::as_str) == Some(package))
        .filter_map(|p| p.get("version").and_then(toml::Value::as_str))
        .collect();
    match versions[..] {
        [version] => Ok(version.to_string()),
        _ => Err(format!("{} versions of {package} locked", versions.len())),
    }
}

/// The `src` directory of `package` at `version`, where Cargo unpacked it
/// from a registry (crates.io's or another: the checksum in the lock file
/// makes them the same). Vendored sources are not looked for.
fn source_directory(
    registries: &Path,
    package: &str,
    version: &str,
    holding: &str,
) -> Result<PathBuf, String> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(registries)
        .map_err(|e| format!("{}: {e}", registries.display()))?
        .flatten()
        .map(|registry| {
            registry
                .path()
                .join(format!("{package}-{version}"))
                .join("src")
        })
        .filter(|src| src.join(holding).is_file())
        .collect();
    found.sort();
    found.into_iter().next().ok_or_else(|| {
        format!(
            "{package} {version} is not unpacked in {}",
            registries.display()
        )
    })
}

/// The build of `grammar`'s parser, its sources written to `out` in the
/// faster forms below.
fn grammar_build(grammar: &Grammar, directory: &Path, out: &Path) -> Result<cc::Build, String> {
    let mut build = cc::Build::new();
    build.std("c11").include(directory).warnings(false);
    build.flag_if_supported(NO_STRICT_ALIASING);
    let language_function = format!("tree_sitter_{}", grammar.language);
    build.define(
        &language_function,
        format!("pomp_{language_function}").as_str(),
    );
    for function in SCANNER_FUNCTIONS {
        let name = format!("{language_function}_external_scanner_{function}");
        build.define(&name, format!("pomp_{name}").as_str());
    }
    for source in grammar.sources {
        let path = directory.join(source);
        println!("cargo:rerun-if-changed={}", path.display());
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if !text.contains(OPTIMIZER_OFF) && text.contains("optimize") {
            println!(
                "cargo:warning={} may turn the optimizer off in a form this build does not take out",
                path.display()
            );
        }
        let copy = out.join(format!("{}_{source}", grammar.language));
        let text = ascii_fast_sets(&switch_advance_maps(&text.replacen(OPTIMIZER_OFF, "", 1)));
        let text = dense_busy_states(&text);
        std::fs::write(&copy, text).map_err(|e| format!("{}: {e}", copy.display()))?;
        build.file(copy);
    }
    Ok(build)
}

/// The build of tree-sitter's parser (`lib.c` of the `tree-sitter`
/// crate, at the version the lock file names): the same sources the
/// crate compiles, as it compiles them, with every name of theirs that
/// the linker sees prefixed with `pomp_` (`renames.h`), so that both
/// builds sit in one program. Trees one build makes, the other reads.
fn parser_build(src: &Path, out: &Path) -> Result<cc::Build, String> {
    let root = src.parent().ok_or("no crate directory")?;
    let include = root.join("include");
    let mut names = std::collections::BTreeSet::new();
    let mut tested = std::collections::BTreeSet::new();
    let mut pending = vec![src.to_path_buf(), include.join("tree_sitter")];
    while let Some(directory) = pending.pop() {
        let entries =
            std::fs::read_dir(&directory).map_err(|e| format!("{}: {e}", directory.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.is_dir() {
                pending.push(path);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "h")) {
                println!("cargo:rerun-if-changed={}", path.display());
                let text = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                names.extend(linked_names(&text));
                tested.extend(tested_macros(&text));
            }
        }
    }
    // What a user may define instead (`ts_malloc`) keeps its name: its
    // definition is what the renames would replace.
    let names = names.difference(&tested);
    let renames: String = names
        .map(|name| format!("#define {name} pomp_{name}\n"))
        .collect();
    let header = out.join("renames.h");
    std::fs::write(&header, renames).map_err(|e| format!("{}: {e}", header.display()))?;
    let mut build = cc::Build::new();
    build
        .std("c11")
        .flag("-include")
        .flag(header.display().to_string())
        .flag_if_supported("-fvisibility=hidden")
        .flag_if_supported(NO_STRICT_ALIASING)
        // The renames redefine macros whose names they take.
        .flag_if_supported("-w")
        .include(src)
        .include(src.join("wasm"))
        .include(&include)
        .define("_POSIX_C_SOURCE", "200112L")
        .define("_DEFAULT_SOURCE", None)
        .define("_DARWIN_C_SOURCE", None)
        .warnings(false)
        .file(src.join("lib.c"));
    Ok(build)
}

/// The words of a C text that name what tree-sitter's parser defines for
/// the linker: its functions and variables all begin with `ts_`, and
/// one with `_ts_`. Statics and macros of those names are renamed too,
/// which changes nothing.
fn linked_names(text: &[u8]) -> impl Iterator<Item = String> + '_ {
    words(text).filter(|w| w.starts_with("ts_") || w.starts_with("_ts_"))
}

/// The macros a C text asks about (`#ifndef ts_malloc`).
fn tested_macros(text: &[u8]) -> impl Iterator<Item = String> + '_ {
    text.split(|b| *b == b'\n').filter_map(|line| {
        let line = std::str::from_utf8(line).ok()?.trim_start();
        let rest = (line.strip_prefix("#ifndef")).or_else(|| line.strip_prefix("#ifdef"))?;
        words(rest.as_bytes()).next()
    })
}

fn words(text: &[u8]) -> impl Iterator<Item = String> + '_ {
    let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    text.split(move |b| !word(b))
        .filter(|w| !w.is_empty())
        .filter_map(|w| std::str::from_utf8(w).ok().map(str::to_string))
}

/// Where the training run writes its profile and the second compile
/// reads it.
fn profile_directory(out: &Path) -> PathBuf {
    out.join("profile")
}

/// The files the parser is trained on: `training/` beside this file,
/// in optimized builds unless `POMP_PARSER_TRAINING=off`. No files and no
/// reason is a build that is not to be trained; a reason, one that cannot
/// be (the profiles read are GCC's).
fn training_files() -> Result<Vec<PathBuf>, Option<String>> {
    println!("cargo:rerun-if-env-changed=POMP_PARSER_TRAINING");
    if std::env::var("POMP_PARSER_TRAINING").is_ok_and(|v| v == "off") {
        return Err(None);
    }
    if !matches!(std::env::var("OPT_LEVEL").as_deref(), Ok("2" | "3")) {
        return Err(None);
    }
    let compiler = cc::Build::new()
        .try_get_compiler()
        .map_err(|e| Some(e.to_string()))?;
    if !compiler.is_like_gnu() || compiler.is_like_clang() {
        return Err(Some(format!("{} is not GCC", compiler.path().display())));
    }
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").ok_or(Some("no manifest dir".into()))?;
    let directory = PathBuf::from(manifest).join("training");
    println!("cargo:rerun-if-changed={}", directory.display());
    let entries =
        std::fs::read_dir(&directory).map_err(|e| Some(format!("{}: {e}", directory.display())))?;
    let mut files: Vec<PathBuf> = (entries.flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    match files.is_empty() {
        true => Err(Some(format!("no files in {}", directory.display()))),
        false => Ok(files),
    }
}

/// Compiles every build with profiling, links them with `train.c`, and
/// runs that on the training files: the profile the second compile reads.
fn train(builds: &[(cc::Build, &str)], files: &[PathBuf], out: &Path) -> Result<(), String> {
    let profile = profile_directory(out);
    let _ = std::fs::remove_dir_all(&profile);
    let generate = format!("-fprofile-generate={}", profile.display());
    let mut objects = Vec::new();
    for (build, _) in builds {
        let mut build = build.clone();
        build
            .flag(&generate)
            .flag("-fprofile-update=single")
            .cargo_metadata(false);
        objects.extend(
            build
                .try_compile_intermediates()
                .map_err(|e| e.to_string())?,
        );
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("no manifest dir")?);
    let driver = manifest.join("train.c");
    println!("cargo:rerun-if-changed={}", driver.display());
    let (parser, _) = builds
        .iter()
        .find(|(_, name)| *name == "parser")
        .ok_or("no parser build")?;
    let trainer = out.join("train");
    let mut link = parser
        .clone()
        .cargo_metadata(false)
        .try_get_compiler()
        .map_err(|e| e.to_string())?
        .to_command();
    // The parser's flags name `renames.h`, which the driver's calls need.
    link.arg(&generate)
        .arg(&driver)
        .args(&objects)
        .arg("-o")
        .arg(&trainer);
    run(&mut link)?;
    run(std::process::Command::new(&trainer).args(files))
}

fn run(command: &mut std::process::Command) -> Result<(), String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let output = command.output().map_err(|e| format!("{program}: {e}"))?;
    let errors = String::from_utf8_lossy(&output.stderr);
    let last: Vec<&str> = errors.lines().rev().take(5).collect();
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{program}: {}: {}",
            output.status,
            last.into_iter().rev().collect::<Vec<_>>().join(" / ")
        )),
    }
}

/// The generator writes a lexer state's moves on single characters as a
/// list searched from its start at every character (`ADVANCE_MAP`): in the
/// state every token starts in, some 50 comparisons for each character of
/// white space and each token: 7% of the instructions of instrumenting
/// the corpus's C++ programs. Written as a `switch`, the same moves are
/// one jump. The list is searched
/// for the first entry naming the character, so a list that names one
/// twice, or is written in any other form, stays as it is.
fn switch_advance_maps(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        if line.trim() != "ADVANCE_MAP(" {
            out.push_str(line);
            continue;
        }
        let indent = &line[..line.len() - line.trim_start().len()];
        let mut block = vec![line];
        let mut moves: Vec<(&str, u32, &str)> = Vec::new();
        let mut closed = false;
        let mut readable = true;
        for entry in lines.by_ref() {
            block.push(entry);
            if entry.trim() == ");" {
                closed = true;
                break;
            }
            let parsed = (entry.trim().strip_suffix(','))
                .and_then(|e| e.rsplit_once(", "))
                .and_then(|(key, state)| {
                    let value = character_value(key)?;
                    state.parse::<u16>().ok()?;
                    Some((key, value, state))
                });
            match parsed {
                Some(parsed) => moves.push(parsed),
                None => readable = false,
            }
        }
        let mut values: Vec<u32> = moves.iter().map(|m| m.1).collect();
        values.sort_unstable();
        values.dedup();
        if !(closed && readable && values.len() == moves.len()) {
            out.extend(block);
            continue;
        }
        out.push_str(&format!("{indent}switch (lookahead) {{\n"));
        for (key, _, state) in moves {
            out.push_str(&format!("{indent}  case {key}: ADVANCE({state});\n"));
        }
        out.push_str(&format!("{indent}  default: break;\n{indent}}}\n"));
    }
    out
}

/// The generator tests a character against a set of Unicode ranges
/// (identifier characters) with `set_contains`, a binary search through
/// some 700 ranges at every character of every identifier. Each set whose
/// ranges this reads gets a 128-bit table of its ASCII members beside it,
/// and its tests look there first: one load for nearly every character of
/// real code. A set written in any other form is tested as generated.
fn ascii_fast_sets(text: &str) -> String {
    const DECLARATION: &str = "static TSCharacterRange ";
    let mut sets: Vec<(String, [u64; 2])> = Vec::new();
    for (at, _) in text.match_indices(DECLARATION) {
        let rest = &text[at + DECLARATION.len()..];
        let Some((name, body)) = rest.split_once("[] = {") else {
            continue;
        };
        let Some((body, _)) = body.split_once("};") else {
            continue;
        };
        if let Some(ascii) = ascii_members(body) {
            sets.push((name.to_string(), ascii));
        }
    }
    if sets.is_empty() {
        return text.to_string();
    }
    let mut out = text.to_string();
    for (name, _) in &sets {
        out = out.replace(
            &format!("set_contains({name}, "),
            &format!("pomp_set_contains({name}, {name}_ascii, "),
        );
    }
    let mut tables = String::from(
        "static inline bool pomp_set_contains(TSCharacterRange *ranges, const uint64_t *ascii, \
         uint32_t len, int32_t lookahead) {\n  \
         if ((uint32_t)lookahead < 128) return (ascii[lookahead >> 6] >> (lookahead & 63)) & 1;\n  \
         return set_contains(ranges, len, lookahead);\n}\n",
    );
    for (name, [low, high]) in &sets {
        tables.push_str(&format!(
            "static const uint64_t {name}_ascii[2] = {{{low:#x}ULL, {high:#x}ULL}};\n"
        ));
    }
    // The tables go right after the first set, before any function uses
    // them; the sets are declared together, ahead of the lexer.
    let first = &sets[0].0;
    let declared = out
        .find(&format!("{DECLARATION}{first}[] = {{"))
        .expect("the set was found above");
    let end = declared
        + out[declared..]
            .find("};\n")
            .expect("the set was read above")
        + 3;
    out.insert_str(end, &tables);
    out
}

/// The fewest entries of a state whose row [`dense_busy_states`] makes
/// dense. Rows cost two bytes a symbol whether used or not (C++ has 538
/// symbols): from 20 entries on, 3,459 states of C++, 798 of C and 1,692
/// of Fortran, 6.5 MB of read-only data, of which instrumenting a C++
/// file maps about 2 MB more than before. From 40 on, half the rows map
/// about half as much more, and save less than half the time (corpus C++
/// programs 4% instead of 11%, LULESH 3% instead of 5%).
const DENSE_FROM_ENTRIES: usize = 20;

/// The parser looks up the action for each token, and the state after
/// each reduction, in the parse table: a direct index for the first
/// `LARGE_STATE_COUNT` states, and for the others a search of their
/// entries, one after the other (`ts_small_parse_table`). The generator
/// numbers states from the one with the most entries down, so the states
/// just past the large ones have the longest lists (some 60 entries in
/// C++): the search was 13.5% of the instructions of instrumenting the
/// corpus's C++ programs. Each state with at least
/// [`DENSE_FROM_ENTRIES`] entries is made large: a row of the direct
/// table holds its entries, its place in the small table's map goes, and
/// the count of large states grows to cover it. Every lookup gives what
/// it gave, and parsing does not walk a state's entries in their listed
/// order (only queries and lookahead iterators do, which see the same
/// symbols in another order). A table written in any other form is left
/// as it is.
fn dense_busy_states(text: &str) -> String {
    dense_states(text).unwrap_or_else(|| text.to_string())
}

fn dense_states(text: &str) -> Option<String> {
    const COUNT: &str = "#define LARGE_STATE_COUNT ";
    const DENSE: &str =
        "static const uint16_t ts_parse_table[LARGE_STATE_COUNT][SYMBOL_COUNT] = {\n";
    const SMALL: &str = "static const uint16_t ts_small_parse_table[] = {\n";
    const MAP: &str = "static const uint32_t ts_small_parse_table_map[] = {\n";
    const END: &str = "};\n";
    let count_at = text.find(COUNT)? + COUNT.len();
    let count_end = count_at + text[count_at..].find('\n')?;
    let large: usize = text[count_at..count_end].trim().parse().ok()?;
    let body = |start: &str| -> Option<std::ops::Range<usize>> {
        let at = text.find(start)? + start.len();
        Some(at..at + text[at..].find(END)?)
    };
    let (dense, small, map) = (body(DENSE)?, body(SMALL)?, body(MAP)?);
    // The small table as the generator writes it: `[offset] = ` before
    // each state's first entry, and entries separated by commas.
    let mut items: Vec<&str> = Vec::new();
    for line in text[small].lines() {
        if line.contains("//") || line.contains("/*") {
            return None;
        }
        let line = match line.trim().strip_prefix('[') {
            Some(rest) => {
                let (offset, rest) = rest.split_once("] =")?;
                if offset.parse::<usize>().ok()? != items.len() {
                    return None;
                }
                rest
            }
            None => line,
        };
        items.extend(line.split(',').map(str::trim).filter(|i| !i.is_empty()));
    }
    let mut rows = String::new();
    let mut promoted = 0;
    let map_lines: Vec<&str> = text[map.clone()].lines().collect();
    // One small state at least stays: C wants no empty array.
    for line in &map_lines[..map_lines.len().saturating_sub(1)] {
        let (state, offset) = line
            .trim()
            .strip_prefix("[SMALL_STATE(")?
            .split_once(")] = ")?;
        let state: usize = state.parse().ok()?;
        let offset: usize = offset.strip_suffix(',')?.parse().ok()?;
        if state != large + promoted {
            return None;
        }
        let mut at = offset;
        let groups: usize = items.get(at)?.parse().ok()?;
        at += 1;
        let mut entries: Vec<(&str, &str)> = Vec::new();
        for _ in 0..groups {
            let value = *items.get(at)?;
            let symbols: usize = items.get(at + 1)?.parse().ok()?;
            entries.extend(
                items
                    .get(at + 2..at + 2 + symbols)?
                    .iter()
                    .map(|s| (*s, value)),
            );
            at += 2 + symbols;
        }
        if entries.len() < DENSE_FROM_ENTRIES {
            break;
        }
        let mut symbols: Vec<&str> = entries.iter().map(|e| e.0).collect();
        symbols.sort_unstable();
        symbols.dedup();
        if symbols.len() != entries.len() {
            return None;
        }
        rows.push_str(&format!("  [{state}] = {{\n"));
        for (symbol, value) in entries {
            rows.push_str(&format!("    [{symbol}] = {value},\n"));
        }
        rows.push_str("  },\n");
        promoted += 1;
    }
    if promoted == 0 {
        return None;
    }
    let kept_map: String = (map_lines[promoted..].iter())
        .map(|line| format!("{line}\n"))
        .collect();
    let mut out = String::with_capacity(text.len() + rows.len());
    out.push_str(&text[..count_at]);
    out.push_str(&(large + promoted).to_string());
    out.push_str(&text[count_end..dense.end]);
    out.push_str(&rows);
    out.push_str(&text[dense.end..map.start]);
    out.push_str(&kept_map);
    out.push_str(&text[map.end..]);
    Some(out)
}

/// The ASCII members of a set written as `{'a', 'z'}, {0xaa, 0xaa}, ...`;
/// `None` unless every range reads as two characters, in order.
fn ascii_members(body: &str) -> Option<[u64; 2]> {
    let mut ascii = [0u64; 2];
    let mut ranges = 0;
    for range in body.split('}') {
        let range = range.trim().trim_start_matches(',').trim();
        if range.is_empty() {
            continue;
        }
        let (start, end) = range.strip_prefix('{')?.split_once(", ")?;
        let (start, end) = (set_bound(start)?, set_bound(end)?);
        if start > end {
            return None;
        }
        for c in start..=end.min(127) {
            ascii[(c >> 6) as usize] |= 1 << (c & 63);
        }
        ranges += 1;
    }
    (ranges > 0).then_some(ascii)
}

/// A bound of a character range: a character constant or a hexadecimal
/// number.
fn set_bound(text: &str) -> Option<u32> {
    match text.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => character_value(text),
    }
}

/// The value of a C character constant or decimal number as the generator
/// writes them in `ADVANCE_MAP`; `None` for any other form.
fn character_value(key: &str) -> Option<u32> {
    if let Ok(number) = key.parse::<u16>() {
        return Some(u32::from(number));
    }
    let inner = key.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let value = match (chars.next()?, chars.next(), chars.next()) {
        ('\\', Some(escaped), None) => match escaped {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            'v' => '\u{b}',
            'f' => '\u{c}',
            'a' => '\u{7}',
            'b' => '\u{8}',
            '\\' | '\'' | '"' | '?' => escaped,
            _ => return None,
        },
        (plain, None, None) if plain.is_ascii() && plain != '\\' && plain != '\'' => plain,
        _ => return None,
    };
    Some(u32::from(value))
}
