// The POMP2 lock wrappers and `POMP2_Lib_get_max_threads` call into the
// OpenMP runtime. C and Fortran consumers get libgomp from `-fopenmp`; the
// crate's own test and benchmark binaries are linked by cargo and need it
// named explicitly.
fn main() {
    println!("cargo:rustc-link-lib=dylib=gomp");
    println!("cargo:rerun-if-changed=build.rs");
}
