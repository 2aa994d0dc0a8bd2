# 0 "app.c"
# 0 "<built-in>"
# 0 "<command-line>"
# 1 "app.c"
# 1 "/usr/include/omp.h" 1 3 4
typedef struct { unsigned char _x[4]; } omp_lock_t;
extern void omp_init_lock (omp_lock_t *);
extern void omp_destroy_lock (omp_lock_t *);
extern int omp_get_max_threads (void);
static inline void omp_library_helper (omp_lock_t *l)
{
#pragma omp parallel
  omp_init_lock (l);
  for (int i = 0; i < 2; i++) omp_destroy_lock (l);
}
# 2 "app.c" 2
# 1 "inc/user.h" 1

# 1 "inc/user.h"
static inline void in_header(int *x) {
        
# 2 "inc/user.h"
#pragma omp parallel
  {
        
# 4 "inc/user.h"
#pragma omp atomic
    (*x)++;
  }
}
# 3 "app.c" 2

int main(void) {
  int x = 0, c = 1, i;
  omp_lock_t lock;
  omp_init_lock(&lock);
        
# 8 "app.c"
#pragma omp parallel
# 20 "app.c"
  {
        
# 22 "app.c"
#pragma omp sections
    {
# 27 "app.c"
#pragma omp section
      x++;
        
# 29 "app.c"
#pragma omp section
      x++;
    }
  }
  if (c)
# 37 "app.c"
#pragma omp parallel for reduction(+:x)
# 40 "app.c"
    for (i = 0; i < 4; i++) x++;
#line 50
  in_header(&x);
#pragma omp barrier
  omp_destroy_lock(&lock);
  return x;
}
