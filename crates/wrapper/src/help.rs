//! `--pomp-help`: what a wrapper does and every option it takes, the
//! options written from the tables that define them.

use super::compiler::Compiler;
use super::options::WRAPPER_FLAGS;
use pomp_cli::options::{help_lines, INSTRUMENTATION};

pub fn help_text(compiler: Compiler) -> String {
    let name = compiler.wrapper_name();
    let (variable, default) = compiler.environment();
    let (mpi, redirect) = match compiler {
        Compiler::C => ("mpicc", "OMPI_CC"),
        Compiler::Cxx => ("mpicxx", "OMPI_CXX"),
        Compiler::Fortran => ("mpif90", "OMPI_FC"),
    };
    let instrumentation = INSTRUMENTATION.iter().filter(|f| f.offered.wrappers);
    let options = help_lines(instrumentation, "pomp-") + &help_lines(WRAPPER_FLAGS, "pomp-");
    format!(
        "Usage: {name} [compiler options] [--pomp-OPTION ...] FILES...

Compiles and links like {default}, instrumenting every source that contains
OpenMP directives for the POMP2 measurement interface. Linking a program adds
the region registration and the pomp runtime (or another POMP2 library) and,
when it links MPI, pomp's MPI library, which measures every MPI call.

Wrapper options (removed before the compiler runs):
{options}
With another library (--pomp-runtime, POMP_RUNTIME) the sources call only the
events its symbols define, with every barrier explicit as OPARI2 writes it;
a note names the constructs that stay unmeasured. A program calling the
original interface (--pomp-interface=pomp1, as OPARI 1.1's libpomp takes it)
is linked with the library --pomp-runtime names, and with the table of its
regions that library reads: pomp's runtime implements POMP2 only.

Environment:
  {variable:<23} the underlying compiler (default {default}; may include a launcher)
  POMP_RUNTIME_DIR        directory holding libpomp_runtime.a
  POMP_CACHE_DIR          where pomp's MPI library is built and kept (default
                          $XDG_CACHE_HOME/pomp or ~/.cache/pomp)

MPI: `{variable}={mpi} {name} ...` runs MPI's wrapper, `{redirect}={name} {mpi} ...`
(Open MPI) has MPI's wrapper run this one; either way the program gets pomp's
MPI library, built with the MPI's own mpicc.
"
    )
}

/// What a wrapper prints before the compiler's own `--help`: which
/// compiler answers, and where pomp's options are explained.
pub fn compiler_help_header(compiler: Compiler) -> String {
    let name = compiler.wrapper_name();
    let (variable, _) = compiler.environment();
    let underlying = compiler.underlying_name();
    format!(
        "{name}: pomp's compiler wrapper around `{underlying}` ({variable}); it instruments \
         OpenMP sources for POMP2.\n\
         {name}: pomp's own options: `{name} --pomp-help`. The compiler's help follows.\n\n"
    )
}
