/* Reading CTC strings: "<length>*key=value*key=value*...**", the source
 * context instrumented code hands a POMP2 library with each region.
 * pomp's reader, with the C interface of OPARI2's, which Score-P's OPARI2
 * adapters build in: this part reads what every region has (the pairs,
 * the source locations, flags, numbers and names); pomp2_region_info.c
 * and pomp2_user_region_info.c read what is particular to OpenMP
 * constructs and to user regions.
 *
 * A key the reader does not know is passed over: writers add keys of
 * their own. A string that lacks what every region must say, or says it
 * in a form no writer uses, ends the program with a message on standard
 * error naming the string, as a library cannot measure a region it cannot
 * place. */
#ifndef OPARI2_CTC_PARSER_H
#define OPARI2_CTC_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "opari2_region_info.h"

/* One CTC string being read. */
typedef struct
{
    /* The string as it was given, for messages. */
    const char*         mCTCStringForErrorMsg;
    /* A copy of it, cut into keys and values as it is read. */
    char*               mCTCStringMemory;
    /* Where the next pair begins in that copy; NULL once the terminator
       is reached. */
    char*               mCTCStringToParse;
    /* What is read: the caller's region information, of its kind. */
    OPARI2_Region_info* mRegionInfo;
} CTCData;

/* A name and the number it stands for. */
typedef struct
{
    char* mString;
    int   mEnum;
} OPARI2_CTCMapType;

#define OPARI2_CTC_MAP_SIZE( map ) ( sizeof( map ) / sizeof( OPARI2_CTCMapType ) )

/* Starts reading `string` into `obj`, its length field passed over. */
void
OPARI2_CTC_initCTCData( CTCData*   obj,
                        const char string[] );

/* Reads every pair up to the terminator. Source locations are read into
   the region information here; every other known key is handed to
   `checkToken` with its token (opari2_ctc_token.h) and its value, and is
   the region kind's to read (it returns whether it knew the token). */
void
OPARI2_CTC_parseCTCStringAndAssignRegionInfoValues( CTCData * obj,
                                                    bool ( * checkToken )( int,
                                                                           char*,
                                                                           CTCData* ) );

/* Reads `string` into `info`, a region's information of `size` bytes
   whose kind `checkToken` reads (see above), every field of which is set;
   the string must place the region. Free `obj` with
   OPARI2_CTC_freeCTCData once the kind's own checks are done. */
void
OPARI2_CTC_readRegionInfo( CTCData*            obj,
                           const char          string[],
                           OPARI2_Region_info* info,
                           size_t              size,
                           bool ( *checkToken )( int,
                                                 char*,
                                                 CTCData* ) );

/* Values of the forms keys take: a number, a name (copied; the region
   information owns it), a clause's presence ("0" or "1"). */
void
OPARI2_CTC_assignUnsigned( CTCData*    obj,
                           unsigned*   anUnsigned,
                           const char* value );

void
OPARI2_CTC_assignString( char**      aString,
                         const char* value );

void
OPARI2_CTC_assignHasClause( CTCData*    obj,
                            bool*       hasClause,
                            const char* value );

/* Ends the program: the string cannot be read. `what` says why, `value`
   (may be NULL) what was found. */
void
OPARI2_CTC_error( CTCData*    obj,
                  const char* what,
                  const char* value );

/* Checks that the string placed the region (both source locations). */
void
OPARI2_CTC_checkConsistency( CTCData* obj );

/* Frees the copy; the region information keeps what was read. */
void
OPARI2_CTC_freeCTCData( CTCData* obj );

/* Frees a name of the region information and forgets it. */
void
OPARI2_CTC_freeAndReset( char** freeMe );

/* The number a name stands for in `map`, 0 if it is not there. */
int
OPARI2_CTC_string2Enum( const OPARI2_CTCMapType* map,
                        const size_t             n_elements,
                        const char*              string );

/* The name of a number in `map`, NULL if it is not there. */
const char*
OPARI2_CTC_enum2String( const OPARI2_CTCMapType* map,
                        const size_t             n_elements,
                        int                      e_in );

#endif /* OPARI2_CTC_PARSER_H */
