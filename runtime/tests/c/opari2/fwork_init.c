/* The registration file OPARI2's link step generates from the symbols of
 * fwork.opari.o. */
#include <stddef.h>
void pomp2_init_reg_v62812avoeouf_7_(void);
void POMP2_Init_regions(void) { pomp2_init_reg_v62812avoeouf_7_(); }
size_t POMP2_Get_num_regions(void) { return 7; }
const char *POMP2_Get_opari2_version(void) { return "2.0.7"; }
