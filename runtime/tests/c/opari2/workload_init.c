/* The registration file OPARI2's link step generates from the symbols of
 * workload.opari.o. */
#include <stddef.h>
void POMP2_Init_reg_ic28hm9vofmv1_14(void);
void POMP2_Init_regions(void) { POMP2_Init_reg_ic28hm9vofmv1_14(); }
size_t POMP2_Get_num_regions(void) { return 12; }
const char *POMP2_Get_opari2_version(void) { return "2.0.7"; }
