//! pomp in OPARI2's place inside Score-P: pomp's `opari2` and
//! `opari2-config`, installed by `pomp install-wrappers --opari2`, driven
//! with the command lines Score-P's `scorep` wrapper runs, each program
//! built against OPARI2's reference library (Debian's `libpomp2-dev`),
//! run, and compared with the program uninstrumented.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// OPARI2's reference library and registration tool, where Debian
/// installs them.
const OPARI2_LIBRARY: &str = "/usr/lib/libpomp.a";

/// pomp's shims, installed into `dir/bin`.
fn install_shims(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    let output = Command::new(env!("CARGO_BIN_EXE_pomp"))
        .args(["install-wrappers", "--opari2"])
        .arg(&bin)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    bin
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Runs `script` with `sh -e` in `dir`, the shims first on the PATH, as
/// Score-P runs each of its commands; panics with what it printed if it
/// fails.
fn run_script(dir: &Path, bin: &Path, script: &str) -> Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(&path));
    let output = Command::new("sh")
        .args(["-ec", script])
        .current_dir(dir)
        .env("PATH", std::env::join_paths(paths).unwrap())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{script}\nfailed:\n{}{}",
        stdout(&output),
        stderr(&output)
    );
    output
}

const C_PROGRAM: &str = r#"#include <stdio.h>
static int twice(int x) { return 2 * x; }
int sum(int n)
{
    int s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += twice(i);
    return s;
}
static int plus_one(int y) { return y + 1; }
int main(void)
{
    printf("%d\n", plus_one(sum(10)));
    return 0;
}
"#;

const FORTRAN_PROGRAM: &str = "program p
  integer :: i, s
  s = 0
!$omp parallel do reduction(+:s)
  do i = 1, 10
    s = s + i
  end do
!$omp end parallel do
  call show(s)
contains
  subroutine show(x)
    integer :: x
    print *, x
  end subroutine
end program p
";

#[test]
fn declarations_go_into_infile_opari_inc_beside_the_output_as_opari2_s_do() {
    let dir = tempfile::tempdir().unwrap();
    let bin = install_shims(dir.path());
    let source = dir.path().join("src");
    let build = dir.path().join("build");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::create_dir_all(&build).unwrap();
    std::fs::write(source.join("x.c"), C_PROGRAM).unwrap();
    std::fs::write(source.join("y.f90"), FORTRAN_PROGRAM).unwrap();
    run_script(
        &build,
        &bin,
        "opari2 --omp-task-untied=keep ../src/x.c x.opari.c\n\
         opari2 --omp-task-untied=keep --free-form ../src/y.f90 y.opari.F90",
    );
    // Named after the input, beside the output, included by that name.
    let c = std::fs::read_to_string(build.join("x.opari.c")).unwrap();
    assert!(c.starts_with("#include \"x.c.opari.inc\"\n"), "{c}");
    let c_declarations = std::fs::read_to_string(build.join("x.c.opari.inc")).unwrap();
    assert!(
        c_declarations.contains("*regionType=parallelfor*")
            && c_declarations.contains("void POMP2_Init_reg_"),
        "{c_declarations}"
    );
    let fortran = std::fs::read_to_string(build.join("y.opari.F90")).unwrap();
    assert!(
        fortran.contains("  include 'y.f90.opari.inc'\n"),
        "{fortran}"
    );
    let fortran_declarations = std::fs::read_to_string(build.join("y.f90.opari.inc")).unwrap();
    assert!(
        fortran_declarations.contains("*regionType=paralleldo*"),
        "{fortran_declarations}"
    );
    assert!(!source.join("x.c.opari.inc").exists());
    // What Score-P does after each compile.
    run_script(&build, &bin, "rm x.c.opari.inc y.f90.opari.inc");
}

#[test]
fn a_file_without_directives_gets_its_declarations_file_too() {
    let dir = tempfile::tempdir().unwrap();
    let bin = install_shims(dir.path());
    std::fs::write(dir.path().join("plain.c"), "int main(void) { return 0; }\n").unwrap();
    run_script(
        dir.path(),
        &bin,
        "opari2 --omp-task-untied=keep plain.c plain.opari.c\n\
         gcc -fopenmp -c plain.opari.c\n\
         rm plain.c.opari.inc",
    );
}

/// The file and line `addr2line` gives for each of `functions` of `program`.
fn places_of(program: &Path, functions: &[&str]) -> Vec<String> {
    let symbols = Command::new("nm").arg(program).output().unwrap();
    let symbols = stdout(&symbols);
    functions
        .iter()
        .map(|function| {
            let address = (symbols.lines())
                .find_map(|line| {
                    let mut words = line.split_whitespace();
                    let (address, _, name) = (words.next()?, words.next()?, words.next()?);
                    (name == *function).then(|| format!("0x{address}"))
                })
                .unwrap_or_else(|| panic!("{function} is not in {}", program.display()));
            let place = Command::new("addr2line")
                .arg("-e")
                .arg(program)
                .arg(&address)
                .output()
                .unwrap();
            let place = stdout(&place).trim().to_string();
            let file = Path::new(place.split(':').next().unwrap_or_default());
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            format!(
                "{function} {name}:{}",
                place.rsplit(':').next().unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn debug_information_names_the_user_s_file_for_every_function() {
    // Score-P without preprocessing: the absolute path in, the output in
    // the working directory, compiled with debug information.
    let dir = tempfile::tempdir().unwrap();
    let bin = install_shims(dir.path());
    std::fs::write(dir.path().join("x.c"), C_PROGRAM).unwrap();
    std::fs::write(dir.path().join("y.f90"), FORTRAN_PROGRAM).unwrap();
    run_script(
        dir.path(),
        &bin,
        &format!(
            "opari2 --omp-task-untied=keep --disable=pomp \"$PWD/x.c\" x.opari.c\n\
             gcc -g -fopenmp -c x.opari.c -o x.o\n\
             opari2 --omp-task-untied=keep --disable=pomp --free-form \"$PWD/y.f90\" y.opari.F90\n\
             gfortran -g -fopenmp -c y.opari.F90 -o y.o\n\
             for p in x y; do\n\
               `opari2-config --nm` $p.o | `opari2-config --region-initialization` > $p.init.c\n\
               gcc -c $p.init.c `opari2-config --cflags` -o $p.init.o\n\
             done\n\
             gcc -g -fopenmp x.o x.init.o {OPARI2_LIBRARY} -o x\n\
             gfortran -g -fopenmp y.o y.init.o {OPARI2_LIBRARY} -o y"
        ),
    );
    // binutils reads the second file of a DWARF 5 line table as the
    // first: the user's file must not be that one.
    assert_eq!(
        places_of(&dir.path().join("x"), &["twice", "sum", "plus_one", "main"]),
        ["twice x.c:2", "sum x.c:4", "plus_one x.c:11", "main x.c:13"]
    );
    assert_eq!(
        places_of(&dir.path().join("y"), &["MAIN__", "show.0"]),
        ["MAIN__ y.f90:1", "show.0 y.f90:11"]
    );
}
