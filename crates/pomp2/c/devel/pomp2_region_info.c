/* Reading an OpenMP construct's CTC string (see pomp2_region_info.h). */
#include "pomp2_region_info.h"
#include "opari2_ctc_parser.h"
#include "opari2_ctc_token.h"

#include <stddef.h>
#include <string.h>

static const OPARI2_CTCMapType region_types[] =
{
    { "atomic",            POMP2_Atomic             },
    { "barrier",           POMP2_Barrier            },
    { "critical",          POMP2_Critical           },
    { "do",                POMP2_Do                 },
    { "flush",             POMP2_Flush              },
    { "for",               POMP2_For                },
    { "master",            POMP2_Master             },
    { "ordered",           POMP2_Ordered            },
    { "parallel",          POMP2_Parallel           },
    { "paralleldo",        POMP2_Parallel_do        },
    { "parallelfor",       POMP2_Parallel_for       },
    { "parallelsections",  POMP2_Parallel_sections  },
    { "parallelworkshare", POMP2_Parallel_workshare },
    { "sections",          POMP2_Sections           },
    { "single",            POMP2_Single             },
    { "task",              POMP2_Task               },
    { "taskuntied",        POMP2_Taskuntied         },
    { "taskwait",          POMP2_Taskwait           },
    { "workshare",         POMP2_Workshare          }
};

static const OPARI2_CTCMapType schedule_types[] =
{
    { "static",  POMP2_Static  },
    { "dynamic", POMP2_Dynamic },
    { "guided",  POMP2_Guided  },
    { "runtime", POMP2_Runtime },
    { "auto",    POMP2_Auto    }
};

static const OPARI2_CTCMapType default_sharing_types[] =
{
    { "none",         POMP2_None         },
    { "shared",       POMP2_Shared       },
    { "private",      POMP2_Private      },
    { "firstprivate", POMP2_Firstprivate }
};

static const char*
name_or( const char* name,
         const char* otherwise )
{
    return name ? name : otherwise;
}

const char*
pomp2RegionType2String( POMP2_Region_type regionType )
{
    return name_or( OPARI2_CTC_enum2String( region_types, OPARI2_CTC_MAP_SIZE( region_types ),
                                            regionType ),
                    "no valid region type" );
}

const char*
pomp2ScheduleType2String( POMP2_Schedule_type scheduleType )
{
    return name_or( OPARI2_CTC_enum2String( schedule_types, OPARI2_CTC_MAP_SIZE( schedule_types ),
                                            scheduleType ),
                    "no valid schedule type" );
}

const char*
pomp2defaultSharingType2String( POMP2_DefaultSharing_type defaultSharingType )
{
    return name_or( OPARI2_CTC_enum2String( default_sharing_types,
                                            OPARI2_CTC_MAP_SIZE( default_sharing_types ),
                                            defaultSharingType ),
                    "no valid default sharing type" );
}

/* The value a map names, or the end of the program. */
static int
named( CTCData*                 obj,
       const OPARI2_CTCMapType* map,
       size_t                   size,
       const char*              value,
       const char*              what )
{
    int found = OPARI2_CTC_string2Enum( map, size, value );
    if ( found == 0 )
    {
        OPARI2_CTC_error( obj, what, value );
    }
    return found;
}

static bool
assign_openmp_token( int      token,
                     char*    value,
                     CTCData* obj )
{
    POMP2_Region_info* info = ( POMP2_Region_info* )obj->mRegionInfo;
    switch ( token )
    {
        case CTC_Region_type:
            info->mRegionType = named( obj, region_types, OPARI2_CTC_MAP_SIZE( region_types ),
                                       value, "unknown OpenMP region type" );
            return true;
        case CTC_OMP_Has_schedule:
        {
            /* The kind, then perhaps the chunk after a comma. */
            char* comma = strchr( value, ',' );
            if ( comma )
            {
                *comma = '\0';
            }
            info->mScheduleType = named( obj, schedule_types,
                                         OPARI2_CTC_MAP_SIZE( schedule_types ), value,
                                         "unknown schedule kind" );
            if ( comma )
            {
                *comma = ',';
            }
            return true;
        }
        case CTC_OMP_Has_defaultSharing:
            info->mDefaultSharingType = named( obj, default_sharing_types,
                                               OPARI2_CTC_MAP_SIZE( default_sharing_types ),
                                               value, "unknown argument of default" );
            return true;
        case CTC_OMP_Num_sections:
            OPARI2_CTC_assignUnsigned( obj, &info->mNumSections, value );
            return true;
        case CTC_OMP_Critical_name:
            OPARI2_CTC_assignString( &info->mCriticalName, value );
            return true;
        case CTC_OMP_User_group_name:
            OPARI2_CTC_assignString( &info->mUserGroupName, value );
            return true;
        case CTC_OMP_Has_copy_in:
            OPARI2_CTC_assignHasClause( obj, &info->mHasCopyIn, value );
            return true;
        case CTC_OMP_Has_copy_private:
            OPARI2_CTC_assignHasClause( obj, &info->mHasCopyPrivate, value );
            return true;
        case CTC_OMP_Has_if:
            OPARI2_CTC_assignHasClause( obj, &info->mHasIf, value );
            return true;
        case CTC_OMP_Has_first_private:
            OPARI2_CTC_assignHasClause( obj, &info->mHasFirstPrivate, value );
            return true;
        case CTC_OMP_Has_last_private:
            OPARI2_CTC_assignHasClause( obj, &info->mHasLastPrivate, value );
            return true;
        case CTC_OMP_Has_no_wait:
            OPARI2_CTC_assignHasClause( obj, &info->mHasNoWait, value );
            return true;
        case CTC_OMP_Has_num_threads:
            OPARI2_CTC_assignHasClause( obj, &info->mHasNumThreads, value );
            return true;
        case CTC_OMP_Has_ordered:
            OPARI2_CTC_assignHasClause( obj, &info->mHasOrdered, value );
            return true;
        case CTC_OMP_Has_reduction:
            OPARI2_CTC_assignHasClause( obj, &info->mHasReduction, value );
            return true;
        case CTC_OMP_Has_shared:
            OPARI2_CTC_assignHasClause( obj, &info->mHasShared, value );
            return true;
        case CTC_OMP_Has_collapse:
            OPARI2_CTC_assignHasClause( obj, &info->mHasCollapse, value );
            return true;
        case CTC_OMP_Has_untied:
            OPARI2_CTC_assignHasClause( obj, &info->mHasUntied, value );
            return true;
        default:
            return false;
    }
}

void
ctcString2RegionInfo( const char         ctcString[],
                      POMP2_Region_info* regionInfo )
{
    CTCData reading;
    OPARI2_CTC_readRegionInfo( &reading, ctcString, ( OPARI2_Region_info* )regionInfo,
                               sizeof( *regionInfo ), assign_openmp_token );
    if ( regionInfo->mRegionType == POMP2_No_type )
    {
        OPARI2_CTC_error( &reading, "no regionType", NULL );
    }
    OPARI2_CTC_freeCTCData( &reading );
}

void
freePOMP2RegionInfoMembers( POMP2_Region_info* regionInfo )
{
    OPARI2_CTC_freeAndReset( &regionInfo->mStartFileName );
    OPARI2_CTC_freeAndReset( &regionInfo->mEndFileName );
    OPARI2_CTC_freeAndReset( &regionInfo->mUserGroupName );
    OPARI2_CTC_freeAndReset( &regionInfo->mCriticalName );
}
