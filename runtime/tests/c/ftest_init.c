/* The link-time registration file for the Fortran test program. */
#include <stddef.h>
void pomp2_init_reg_ftest_(void);
void POMP2_Init_regions(void) { pomp2_init_reg_ftest_(); }
size_t POMP2_Get_num_regions(void) { return 4; }
const char *POMP2_Get_opari2_version(void) { return "pomp-test-1"; }
