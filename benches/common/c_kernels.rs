//! A C source shaped like the kernel files of a real code base: long
//! functions with one or two directives each, helpers with none, runtime
//! calls under `#ifdef _OPENMP`, code disabled with `#if 0`, locks taken
//! and released outside the parallel regions, comments and strings. It is
//! valid C (`gcc -fopenmp -fsyntax-only` accepts it).

/// One module: a field type, serial helpers and two kernels; with
/// `user_region`, the work of the first kernel is measured as a user
/// region (`#pragma pomp inst begin`/`end`), which no jump leaves.
fn module(k: usize, user_region: bool) -> String {
    let mut out = format!(
        r#"
/* ------------------------------------------------------------------------
 * Module {k}: a one-dimensional field, the serial helpers that prepare it
 * and the kernels that update it in parallel.
 * ---------------------------------------------------------------------- */
typedef struct {{
    double *values;
    int length;
    const char *name;
}} field_{k};

static double clamp_{k}(double v, double low, double high)
{{
    if (v < low) {{
        return low;
    }} else if (v > high) {{
        return high;
    }}
    return v;
}}

static void fill_{k}(field_{k} *f, double seed)
{{
    /* A deterministic pattern, so that runs can be compared. */
    for (int i = 0; i < f->length; i++) {{
        f->values[i] = clamp_{k}(seed * (i % 17) - 3.0, -8.0, 8.0);
    }}
    f->name = "module {k}: filled {{ not a brace }}";
}}

static double update_{k}(field_{k} *f, const double *g, omp_lock_t *lock, double *log)
{{
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    double total = 0.0;
"#
    );
    if user_region {
        out.push_str(&format!("#pragma pomp inst begin(update_{k})\n"));
    }
    for step in 0..24 {
        out.push_str(&format!(
            "    for (int i = 1; i < f->length - 1; i++) {{\n\
             \x20       double left = f->values[i - 1], right = f->values[i + 1];\n\
             \x20       f->values[i] = clamp_{k}(0.25 * (left + right) + {step}.5 * g[i], -1e6, 1e6);\n\
             \x20       if (f->values[i] == 0.0) {{ total += 1.0; }} /* step {step} */\n\
             \x20   }}\n"
        ));
    }
    out.push_str(
        r#"#if 0
    /* An older update, kept for reference, unbalanced as disabled code
       may be. */
    for (int i = 0; i < f->length; i++) {
#endif
    omp_set_lock(lock);
    *log += total * threads;
    omp_unset_lock(lock);
#pragma omp parallel for reduction(+ : total) schedule(static)
    for (int i = 0; i < f->length; i++) {
        total += f->values[i] * g[i];
    }
"#,
    );
    if user_region {
        out.push_str(&format!("#pragma pomp inst end(update_{k})\n"));
    }
    out.push_str(&format!(
        r#"    return total;
}}

static void exchange_{k}(field_{k} *f, omp_lock_t *lock, long *visits)
{{
    int busy = omp_test_lock(lock);
    if (busy)
        omp_unset_lock(lock);
    for (int sweep = 0; sweep < 4; sweep++) {{
        for (int i = 0; i < f->length; i++) {{
            f->values[i] = 0.5 * f->values[i] + sweep;
        }}
    }}
#pragma omp parallel
    {{
        long mine = 0;
#pragma omp for
        for (int i = 0; i < f->length; i++) {{
            mine += f->values[i] > 0.0;
        }}
#pragma omp critical
        *visits += mine;
    }}
}}
"#
    ));
    out
}

/// Modules until the source has about `target` bytes.
pub fn c_kernels(target: usize) -> Vec<u8> {
    modules(target, false)
}

/// [`c_kernels`] with the work of each module's first kernel in a user
/// region, as code measured by hand marks its phases.
#[allow(dead_code)]
pub fn c_kernels_in_user_regions(target: usize) -> Vec<u8> {
    modules(target, true)
}

fn modules(target: usize, user_regions: bool) -> Vec<u8> {
    let mut out = String::from("#include <stdio.h>\n#include <omp.h>\n");
    let mut k = 0;
    while out.len() < target {
        out.push_str(&module(k, user_regions));
        k += 1;
    }
    out.into_bytes()
}
