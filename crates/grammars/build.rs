//! Compiles the grammar crates' generated parsers (and external scanners)
//! without the pragma that turns the optimizer off, their public symbols
//! renamed so that they sit beside the crates' own builds. The crates'
//! source directories come from `cargo metadata`: Cargo tells a dependent
//! no other way. Anything missing leaves the crates' builds in use.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The functions an external scanner defines, after the language's name.
const SCANNER_FUNCTIONS: &[&str] = &["create", "destroy", "scan", "serialize", "deserialize"];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(pomp_grammars_compiled)");
    match compile_all() {
        Ok(()) => println!("cargo:rustc-cfg=pomp_grammars_compiled"),
        Err(why) => println!(
            "cargo:warning=pomp parses with the grammar crates' own builds, compiled without optimization: {why}"
        ),
    }
}

fn compile_all() -> Result<(), String> {
    let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let packages = packages()?;
    for grammar in GRAMMARS {
        compile(
            grammar,
            &source_directory(&packages, grammar.package)?,
            &out,
        )?;
    }
    Ok(())
}

/// The packages of the build, as `cargo metadata` lists them.
fn packages() -> Result<Vec<serde_json::Value>, String> {
    let cargo = std::env::var_os("CARGO").ok_or("CARGO is not set")?;
    let manifest = Path::new(&std::env::var_os("CARGO_MANIFEST_DIR").ok_or("no manifest dir")?)
        .join("Cargo.toml");
    // Offline and locked: reading the graph must neither fetch nor change
    // the lock file of the build that runs this.
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .arg("--manifest-path")
        .arg(&manifest)
        .output()
        .map_err(|e| format!("cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let mut metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata: {e}"))?;
    match metadata["packages"].take() {
        serde_json::Value::Array(packages) => Ok(packages),
        _ => Err("cargo metadata lists no packages".into()),
    }
}

/// The `src` directory of the one version of `package` in the build.
fn source_directory(packages: &[serde_json::Value], package: &str) -> Result<PathBuf, String> {
    let manifests: Vec<&str> = packages
        .iter()
        .filter(|p| p["name"] == package)
        .filter_map(|p| p["manifest_path"].as_str())
        .collect();
    let [manifest] = manifests[..] else {
        return Err(format!(
            "{} versions of {package} in the build",
            manifests.len()
        ));
    };
    Ok(Path::new(manifest)
        .parent()
        .ok_or("a manifest without a directory")?
        .join("src"))
}

fn compile(grammar: &Grammar, directory: &Path, out: &Path) -> Result<(), String> {
    let mut build = cc::Build::new();
    build.std("c11").include(directory).warnings(false);
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
        let copy = out.join(format!("{}_{source}", grammar.language));
        std::fs::write(&copy, text.replacen(OPTIMIZER_OFF, "", 1))
            .map_err(|e| format!("{}: {e}", copy.display()))?;
        build.file(copy);
    }
    build
        .try_compile(&format!("pomp-tree-sitter-{}", grammar.language))
        .map_err(|e| e.to_string())
}
