//! pomp's POMP2 measurement library as C and Fortran programs link it:
//! `libpomp_runtime.a` and `libpomp_runtime.so` export the entry points
//! of [`pomp_runtime_core`].

pub use pomp_runtime_core::*;
