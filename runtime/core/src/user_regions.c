/* The user regions' registration. A registration file OPARI2's tools or
 * pomp write at link time defines it; one from an earlier pomp, or written
 * by hand, may not. Rust has no weak references, so the runtime asks here
 * whether it is there. */
#include <stddef.h>

extern void POMP2_USER_Init_regions(void) __attribute__((weak));
extern size_t POMP2_USER_Get_num_regions(void) __attribute__((weak));

void pomp_runtime_init_user_regions(void)
{
    if (POMP2_USER_Init_regions)
        POMP2_USER_Init_regions();
}

size_t pomp_runtime_user_region_count(void)
{
    return POMP2_USER_Get_num_regions ? POMP2_USER_Get_num_regions() : 0;
}
