/* What the CTC string of an OpenMP construct says of it. pomp's reader of
 * CTC strings, with the C interface of OPARI2's, which Score-P's OPARI2
 * adapters build in. */
#ifndef POMP2_REGION_INFO_H
#define POMP2_REGION_INFO_H

#include "opari2_region_info.h"

#include <stdbool.h>

/* The constructs, by the names CTC strings give them (regionType). */
typedef enum
{
    POMP2_No_type = 0,
    POMP2_Atomic,
    POMP2_Barrier,
    POMP2_Critical,
    POMP2_Do,
    POMP2_Flush,
    POMP2_For,
    POMP2_Master,
    POMP2_Ordered,
    POMP2_Parallel,
    POMP2_Parallel_do,
    POMP2_Parallel_for,
    POMP2_Parallel_sections,
    POMP2_Parallel_workshare,
    POMP2_Sections,
    POMP2_Single,
    POMP2_Task,
    POMP2_Taskuntied,
    POMP2_Taskwait,
    POMP2_Workshare
} POMP2_Region_type;

/* The name a CTC string gives the construct. */
const char*
pomp2RegionType2String( POMP2_Region_type regionType );

/* A schedule clause's kind; its chunk is not kept. */
typedef enum
{
    POMP2_No_schedule = 0,
    POMP2_Static,
    POMP2_Dynamic,
    POMP2_Guided,
    POMP2_Runtime,
    POMP2_Auto
} POMP2_Schedule_type;

const char*
pomp2ScheduleType2String( POMP2_Schedule_type scheduleType );

/* A default clause's argument. */
typedef enum
{
    POMP2_No_defaultSharing = 0,
    POMP2_None,
    POMP2_Shared,
    POMP2_Private,
    POMP2_Firstprivate
} POMP2_DefaultSharing_type;

const char*
pomp2defaultSharingType2String( POMP2_DefaultSharing_type defaultSharingType );

typedef struct
{
    /* Where the construct stands; first, so that the information may be
       read as an OPARI2_Region_info. */
    OPARI2_REGION_INFO

    POMP2_Region_type mRegionType;
    /* Whether the directive has each clause. A task's mHasUntied is set
       also when the instrumenter made it tied. */
    bool                      mHasCopyIn;
    bool                      mHasCopyPrivate;
    bool                      mHasIf;
    bool                      mHasFirstPrivate;
    bool                      mHasLastPrivate;
    bool                      mHasNoWait;
    bool                      mHasNumThreads;
    bool                      mHasOrdered;
    bool                      mHasReduction;
    bool                      mHasShared;
    bool                      mHasCollapse;
    bool                      mHasUntied;
    POMP2_Schedule_type       mScheduleType;
    POMP2_DefaultSharing_type mDefaultSharingType;
    /* Names (NULL when the string gives none), owned by the information. */
    char*                     mUserGroupName;
    /* A sections construct's number of sections. */
    unsigned                  mNumSections;
    /* A critical construct's name. */
    char*                     mCriticalName;
} POMP2_Region_info;

/* Reads `ctcString` into `regionInfo`, every field of which it sets;
   free the names it holds with freePOMP2RegionInfoMembers. A string that
   is not an OpenMP construct's ends the program with a message. */
void
ctcString2RegionInfo( const char         ctcString[],
                      POMP2_Region_info* regionInfo );

void
freePOMP2RegionInfoMembers( POMP2_Region_info* regionInfo );

#endif /* POMP2_REGION_INFO_H */
