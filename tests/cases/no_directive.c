/* omp_set_lock in a comment, "omp_set_lock" in a string: both stay */
int f(int x) { const char *s = "omp_set_lock"; return x + (int)s[0]; }
