void work(int);
[[omp::decl(declare_target)]] void device_side(int *a) {
#pragma omp parallel for
    for (int i = 0; i < 4; i++) a[i] = i;
}
void inside [[omp::decl(declare_target, device_type(any))]] (int *a) {
#pragma omp parallel
    work(a[0]);
}
void host_side(int *a) {
    int local [[omp::decl(declare_target)]] = 0;
#pragma omp parallel
    work(a[0] + local);
}
