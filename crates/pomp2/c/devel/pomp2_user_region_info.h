/* What the CTC string of a user region says of it. pomp's reader of CTC
 * strings, with the C interface of OPARI2's, which Score-P's OPARI2
 * adapters build in. */
#ifndef POMP2_USER_REGION_INFO_H
#define POMP2_USER_REGION_INFO_H

#include "opari2_region_info.h"

#include <stdbool.h>

typedef enum
{
    POMP2_USER_no_type = 0,
    POMP2_USER_Region
} POMP2_USER_Region_type;

/* The name a CTC string gives the kind of region (userRegion). */
const char*
pomp2UserRegionType2String( POMP2_USER_Region_type regionType );

typedef struct
{
    /* Where the region stands; first, so that the information may be
       read as an OPARI2_Region_info. */
    OPARI2_REGION_INFO

    POMP2_USER_Region_type mRegionType;
    /* The name the user gave the region, owned by the information. */
    char*                  mUserRegionName;
} POMP2_USER_Region_info;

/* Reads `ctcString` into `regionInfo`, every field of which it sets;
   free the names it holds with freePOMP2UserRegionInfoMembers. A string
   that is not a user region's ends the program with a message. */
void
ctcString2UserRegionInfo( const char              ctcString[],
                          POMP2_USER_Region_info* regionInfo );

void
freePOMP2UserRegionInfoMembers( POMP2_USER_Region_info* regionInfo );

#endif /* POMP2_USER_REGION_INFO_H */
