// The POMP2 lock wrappers and `POMP2_Lib_get_max_threads` call into the
// OpenMP runtime. C and Fortran consumers get libgomp from `-fopenmp`; the
// crate's own test and benchmark binaries are linked by cargo and need it
// named explicitly.
//
// The user regions' registration is referenced weakly, from C.
fn main() {
    println!("cargo:rustc-link-lib=dylib=gomp");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/user_regions.c");
    cc::Build::new()
        .file("src/user_regions.c")
        .compile("pomp_runtime_user_regions");
}
