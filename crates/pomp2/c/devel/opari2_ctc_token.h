/* The keys of CTC strings the readers know, as numbers. pomp's reader of
 * CTC strings, with the file names of OPARI2's. */
#ifndef OPARI2_CTC_TOKEN_H
#define OPARI2_CTC_TOKEN_H

#include "pomp2_region_info.h"
#include "pomp2_user_region_info.h"

typedef enum
{
    CTC_No_token = 0,
    /* Every region's. */
    CTC_Region_type,
    CTC_Start_source_code_location,
    CTC_End_source_code_location,
    /* OpenMP constructs'. */
    CTC_OMP_Critical_name,
    CTC_OMP_Has_collapse,
    CTC_OMP_Has_copy_in,
    CTC_OMP_Has_copy_private,
    CTC_OMP_Has_defaultSharing,
    CTC_OMP_Has_first_private,
    CTC_OMP_Has_if,
    CTC_OMP_Has_last_private,
    CTC_OMP_Has_no_wait,
    CTC_OMP_Has_num_threads,
    CTC_OMP_Has_ordered,
    CTC_OMP_Has_reduction,
    CTC_OMP_Has_schedule,
    CTC_OMP_Has_shared,
    CTC_OMP_Has_untied,
    CTC_OMP_Num_sections,
    CTC_OMP_User_group_name,
    /* User regions'. */
    CTC_USER_Region_name
} CTCToken;

#endif /* OPARI2_CTC_TOKEN_H */
