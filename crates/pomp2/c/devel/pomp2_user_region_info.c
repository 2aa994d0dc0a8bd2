/* Reading a user region's CTC string (see pomp2_user_region_info.h). */
#include "pomp2_user_region_info.h"
#include "opari2_ctc_parser.h"
#include "opari2_ctc_token.h"

#include <stddef.h>

static const OPARI2_CTCMapType user_region_types[] =
{
    { "userRegion", POMP2_USER_Region }
};

const char*
pomp2UserRegionType2String( POMP2_USER_Region_type regionType )
{
    const char* name = OPARI2_CTC_enum2String( user_region_types,
                                               OPARI2_CTC_MAP_SIZE( user_region_types ),
                                               regionType );
    return name ? name : "no valid region type";
}

static bool
assign_user_token( int      token,
                   char*    value,
                   CTCData* obj )
{
    POMP2_USER_Region_info* info = ( POMP2_USER_Region_info* )obj->mRegionInfo;
    switch ( token )
    {
        case CTC_Region_type:
            info->mRegionType = OPARI2_CTC_string2Enum( user_region_types,
                                                        OPARI2_CTC_MAP_SIZE( user_region_types ),
                                                        value );
            if ( info->mRegionType == POMP2_USER_no_type )
            {
                OPARI2_CTC_error( obj, "unknown user region type", value );
            }
            return true;
        case CTC_USER_Region_name:
            OPARI2_CTC_assignString( &info->mUserRegionName, value );
            return true;
        default:
            return false;
    }
}

void
ctcString2UserRegionInfo( const char              ctcString[],
                          POMP2_USER_Region_info* regionInfo )
{
    CTCData reading;
    OPARI2_CTC_readRegionInfo( &reading, ctcString, ( OPARI2_Region_info* )regionInfo,
                               sizeof( *regionInfo ), assign_user_token );
    if ( regionInfo->mRegionType == POMP2_USER_no_type )
    {
        OPARI2_CTC_error( &reading, "no regionType", NULL );
    }
    if ( !regionInfo->mUserRegionName )
    {
        OPARI2_CTC_error( &reading, "a user region without userRegionName", NULL );
    }
    OPARI2_CTC_freeCTCData( &reading );
}

void
freePOMP2UserRegionInfoMembers( POMP2_USER_Region_info* regionInfo )
{
    OPARI2_CTC_freeAndReset( &regionInfo->mStartFileName );
    OPARI2_CTC_freeAndReset( &regionInfo->mEndFileName );
    OPARI2_CTC_freeAndReset( &regionInfo->mUserRegionName );
}
