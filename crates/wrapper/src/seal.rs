//! pomp's runtime archive as programs link it. Cargo writes the Rust
//! static library with every symbol of the standard library and of Rust's
//! compiler builtins global, among them weak definitions of `cbrt`,
//! `sqrt`, `fmod`, `floor`, ... A weak definition in a linked object wins
//! over the C library's shared one, so a program linked with that archive
//! would compute with Rust's `cbrt` instead of its own, and its results
//! would change in the last bits. The archive the wrappers link is made
//! from Cargo's by one partial link, after which the POMP2 interface (and
//! the entry points of pomp's MPI library) is all it defines globally: everything else is local to its one object,
//! and the program's functions stay the ones it would have had.

use anyhow::{bail, Context, Result};
use object::read::archive::ArchiveFile;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Sections of Rust's compiler builtins that hold LLVM bitcode beside the
/// machine code; concatenated by a partial link they would be garbage.
const EMBEDDED_BITCODE: [&str; 2] = [".llvmbc", ".llvmcmd"];

/// The symbols a sealed runtime defines globally: the POMP2 functions of
/// the contract's table, each with C and with gfortran linkage, and the
/// `pomp_mpi_*` entry points pomp's MPI library calls.
pub fn interface_symbols() -> BTreeSet<String> {
    pomp2::runtime_symbols().collect()
}

/// The sealed form of the runtime archive `archive`: the archive itself
/// when it is sealed already (an installed copy), else `sealed/` beside
/// it, made again whenever Cargo's archive is newer. `linker` is a C
/// compiler driver, which runs the partial link.
pub fn sealed_archive(archive: &Path, linker: &[OsString]) -> Result<PathBuf> {
    let directory = archive.parent().unwrap_or(Path::new(".")).join("sealed");
    let sealed = directory.join(archive.file_name().unwrap_or("libpomp_runtime.a".as_ref()));
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    if modified(&sealed).is_some_and(|made| Some(made) >= modified(archive)) {
        return Ok(sealed);
    }
    if is_sealed(archive)? {
        return Ok(archive.to_path_buf());
    }
    std::fs::create_dir_all(&directory)
        .with_context(|| format!("creating {}", directory.display()))?;
    seal(archive, &sealed, linker)?;
    Ok(sealed)
}

/// Whether every global definition of `archive` (as its symbol index
/// lists them) is a function of the interface.
pub fn is_sealed(archive: &Path) -> Result<bool> {
    let data = std::fs::read(archive).with_context(|| format!("reading {}", archive.display()))?;
    let file = ArchiveFile::parse(&*data)
        .with_context(|| format!("{} is not a static library", archive.display()))?;
    let Some(index) = file.symbols()? else {
        return Ok(false);
    };
    let interface = interface_symbols();
    for symbol in index {
        let name = symbol?.name();
        if !std::str::from_utf8(name).is_ok_and(|name| interface.contains(name)) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Write the sealed form of `archive` to `sealed`: every member linked
/// into one relocatable object (only what the interface reaches), each
/// symbol not of the interface made local, put into an archive of its
/// own. Written beside `sealed` and renamed, so programs linking at the
/// same time see the old archive or the new one.
pub fn seal(archive: &Path, sealed: &Path, linker: &[OsString]) -> Result<()> {
    let linker = without_mpi(linker);
    let Some((program, linker_args)) = linker.split_first() else {
        bail!("no C compiler to link the runtime with");
    };
    let directory = sealed.parent().unwrap_or(Path::new("."));
    let work = tempfile::tempdir_in(directory)
        .with_context(|| format!("creating a directory in {}", directory.display()))?;
    let keep = work.path().join("interface.txt");
    let interface = interface_symbols();
    let list: String = interface.iter().map(|s| format!("{s}\n")).collect();
    std::fs::write(&keep, list).with_context(|| format!("writing {}", keep.display()))?;

    let linked = work.path().join("linked.o");
    let mut link = Command::new(program);
    link.args(linker_args)
        .args(["-r", "-nostdlib", "-Wl,--gc-sections"])
        .args(interface.iter().map(|s| format!("-Wl,--undefined={s}")))
        .arg("-Wl,--whole-archive")
        .arg(archive)
        .arg("-Wl,--no-whole-archive")
        .arg("-o")
        .arg(&linked);
    run(link, "linking the runtime into one object")?;

    let object = work.path().join("pomp_runtime.o");
    let mut localize = Command::new("objcopy");
    localize.arg(format!("--keep-global-symbols={}", keep.display()));
    for section in EMBEDDED_BITCODE {
        localize.arg(format!("--remove-section={section}"));
    }
    localize.arg(&linked).arg(&object);
    run(localize, "making the runtime's own symbols local")?;

    let made = work.path().join("libpomp_runtime.a");
    let mut pack = Command::new("ar");
    pack.arg("rcsD").arg(&made).arg(&object);
    run(pack, "archiving the runtime")?;
    std::fs::rename(&made, sealed).with_context(|| format!("writing {}", sealed.display()))?;
    Ok(())
}

/// `linker`, its MPI compiler wrapper (`POMP_CC=mpicc`) replaced by the
/// compiler behind it: the wrapper would add MPI's libraries to the
/// partial link, which cannot find them with `-nostdlib`.
fn without_mpi(linker: &[OsString]) -> Vec<OsString> {
    let mut linker = linker.to_vec();
    if let Some(last) = linker.last_mut() {
        let wrapper = Path::new(last.as_os_str());
        if wrapper.file_name().is_some_and(pomp_mpi::is_mpi_wrapper) {
            if let Some(compiler) = pomp_mpi::compiler_behind(wrapper) {
                *last = compiler;
            }
        }
    }
    linker
}

fn run(mut command: Command, what: &str) -> Result<()> {
    let output = command
        .output()
        .with_context(|| format!("{what}: cannot run {:?}", command.get_program()))?;
    if !output.status.success() {
        bail!(
            "{what} failed ({:?}):\n{}",
            command,
            String::from_utf8_lossy(&output.stderr).trim_end()
        );
    }
    Ok(())
}
