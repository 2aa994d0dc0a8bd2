/* Reading CTC strings: the pairs, the source locations and the forms of
 * values every kind of region shares (see opari2_ctc_parser.h). */
#include "opari2_ctc_parser.h"
#include "opari2_ctc_token.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key a reader of this package knows, with its token. */
static const OPARI2_CTCMapType known_keys[] =
{
    { "criticalName",    CTC_OMP_Critical_name          },
    { "escl",            CTC_End_source_code_location   },
    { "hasCollapse",     CTC_OMP_Has_collapse           },
    { "hasCopyIn",       CTC_OMP_Has_copy_in            },
    { "hasCopyPrivate",  CTC_OMP_Has_copy_private       },
    { "hasDefault",      CTC_OMP_Has_defaultSharing     },
    { "hasFirstPrivate", CTC_OMP_Has_first_private      },
    { "hasIf",           CTC_OMP_Has_if                 },
    { "hasLastPrivate",  CTC_OMP_Has_last_private       },
    { "hasNowait",       CTC_OMP_Has_no_wait            },
    { "hasNum_threads",  CTC_OMP_Has_num_threads        },
    { "hasOrdered",      CTC_OMP_Has_ordered            },
    { "hasReduction",    CTC_OMP_Has_reduction          },
    { "hasSchedule",     CTC_OMP_Has_schedule           },
    { "hasShared",       CTC_OMP_Has_shared             },
    { "hasUntied",       CTC_OMP_Has_untied             },
    { "numSections",     CTC_OMP_Num_sections           },
    { "regionType",      CTC_Region_type                },
    { "sscl",            CTC_Start_source_code_location },
    { "userGroupName",   CTC_OMP_User_group_name        },
    { "userRegionName",  CTC_USER_Region_name           }
};

void
OPARI2_CTC_error( CTCData*    obj,
                  const char* what,
                  const char* value )
{
    fprintf( stderr, "POMP2: cannot read the region description \"%s\": %s",
             obj->mCTCStringForErrorMsg, what );
    if ( value )
    {
        fprintf( stderr, " (\"%s\")", value );
    }
    fputs( "\n", stderr );
    exit( EXIT_FAILURE );
}

static char*
copy_of( const char* text )
{
    size_t length = strlen( text );
    char*  copy   = malloc( length + 1 );
    if ( !copy )
    {
        fputs( "POMP2: out of memory reading a region description\n", stderr );
        exit( EXIT_FAILURE );
    }
    memcpy( copy, text, length + 1 );
    return copy;
}

void
OPARI2_CTC_initCTCData( CTCData*   obj,
                        const char string[] )
{
    obj->mCTCStringForErrorMsg = string;
    obj->mCTCStringMemory      = copy_of( string );
    obj->mCTCStringToParse     = obj->mCTCStringMemory;
    obj->mRegionInfo           = NULL;

    /* The length field says how long the whole string is; reading stops
       at the terminator instead. */
    char* after_length = obj->mCTCStringToParse;
    while ( *after_length >= '0' && *after_length <= '9' )
    {
        after_length++;
    }
    if ( *after_length != '*' )
    {
        OPARI2_CTC_error( obj, "no '*' after the length field", NULL );
    }
    obj->mCTCStringToParse = after_length + 1;
}

/* "file:first:last", the file name possibly holding colons itself. */
static void
read_location( CTCData* obj,
               char*    value,
               char**   file,
               unsigned* first,
               unsigned* last )
{
    char* second_colon = strrchr( value, ':' );
    if ( !second_colon || second_colon == value )
    {
        OPARI2_CTC_error( obj, "a source location is not file:first:last", value );
    }
    *second_colon = '\0';
    char* first_colon = strrchr( value, ':' );
    if ( !first_colon || first_colon == value )
    {
        *second_colon = ':';
        OPARI2_CTC_error( obj, "a source location is not file:first:last", value );
    }
    *first_colon = '\0';
    OPARI2_CTC_assignUnsigned( obj, first, first_colon + 1 );
    OPARI2_CTC_assignUnsigned( obj, last, second_colon + 1 );
    OPARI2_CTC_freeAndReset( file );
    *file = copy_of( value );
}

void
OPARI2_CTC_parseCTCStringAndAssignRegionInfoValues( CTCData * obj,
                                                    bool ( * checkToken )( int,
                                                                           char*,
                                                                           CTCData* ) )
{
    char* pair = obj->mCTCStringToParse;
    while ( pair && *pair != '*' )
    {
        if ( *pair == '\0' )
        {
            OPARI2_CTC_error( obj, "the string ends before its terminator \"**\"", NULL );
        }
        char* end = strchr( pair, '*' );
        if ( !end )
        {
            OPARI2_CTC_error( obj, "a pair is not ended by '*'", pair );
        }
        *end = '\0';
        char* equals = strchr( pair, '=' );
        if ( !equals )
        {
            OPARI2_CTC_error( obj, "a pair has no '='", pair );
        }
        *equals = '\0';
        char* key   = pair;
        char* value = equals + 1;
        if ( *key == '\0' || *value == '\0' )
        {
            *equals = '=';
            OPARI2_CTC_error( obj, "a pair has an empty key or value", pair );
        }
        int token = OPARI2_CTC_string2Enum( known_keys, OPARI2_CTC_MAP_SIZE( known_keys ), key );
        OPARI2_Region_info* info = obj->mRegionInfo;
        switch ( token )
        {
            case CTC_No_token:
                /* A key of another writer's. */
                break;
            case CTC_Start_source_code_location:
                read_location( obj, value, &info->mStartFileName,
                               &info->mStartLine1, &info->mStartLine2 );
                break;
            case CTC_End_source_code_location:
                read_location( obj, value, &info->mEndFileName,
                               &info->mEndLine1, &info->mEndLine2 );
                break;
            default:
                /* A key of another kind of region is not this one's. */
                ( void )checkToken( token, value, obj );
                break;
        }
        pair                   = end + 1;
        obj->mCTCStringToParse = pair;
    }
    obj->mCTCStringToParse = NULL;
}

void
OPARI2_CTC_readRegionInfo( CTCData*            obj,
                           const char          string[],
                           OPARI2_Region_info* info,
                           size_t              size,
                           bool ( *checkToken )( int,
                                                 char*,
                                                 CTCData* ) )
{
    memset( info, 0, size );
    OPARI2_CTC_initCTCData( obj, string );
    obj->mRegionInfo = info;
    OPARI2_CTC_parseCTCStringAndAssignRegionInfoValues( obj, checkToken );
    OPARI2_CTC_checkConsistency( obj );
}

void
OPARI2_CTC_assignUnsigned( CTCData*    obj,
                           unsigned*   anUnsigned,
                           const char* value )
{
    char*         end;
    unsigned long number = strtoul( value, &end, 10 );
    if ( *value < '0' || *value > '9' || *end != '\0' || number > 0xFFFFFFFFul )
    {
        OPARI2_CTC_error( obj, "a number is expected", value );
    }
    *anUnsigned = ( unsigned )number;
}

void
OPARI2_CTC_assignString( char**      aString,
                         const char* value )
{
    OPARI2_CTC_freeAndReset( aString );
    *aString = copy_of( value );
}

void
OPARI2_CTC_assignHasClause( CTCData*    obj,
                            bool*       hasClause,
                            const char* value )
{
    if ( strcmp( value, "0" ) == 0 )
    {
        *hasClause = false;
    }
    else if ( strcmp( value, "1" ) == 0 )
    {
        *hasClause = true;
    }
    else
    {
        OPARI2_CTC_error( obj, "a clause's presence is \"0\" or \"1\"", value );
    }
}

void
OPARI2_CTC_checkConsistency( CTCData* obj )
{
    OPARI2_Region_info* info = obj->mRegionInfo;
    if ( !info->mStartFileName || !info->mEndFileName )
    {
        OPARI2_CTC_error( obj, "the region's source locations sscl and escl are missing", NULL );
    }
}

void
OPARI2_CTC_freeCTCData( CTCData* obj )
{
    free( obj->mCTCStringMemory );
    obj->mCTCStringMemory  = NULL;
    obj->mCTCStringToParse = NULL;
}

void
OPARI2_CTC_freeAndReset( char** freeMe )
{
    free( *freeMe );
    *freeMe = NULL;
}

int
OPARI2_CTC_string2Enum( const OPARI2_CTCMapType* map,
                        const size_t             n_elements,
                        const char*              string )
{
    for ( size_t i = 0; i < n_elements; i++ )
    {
        if ( strcmp( map[ i ].mString, string ) == 0 )
        {
            return map[ i ].mEnum;
        }
    }
    return 0;
}

const char*
OPARI2_CTC_enum2String( const OPARI2_CTCMapType* map,
                        const size_t             n_elements,
                        int                      e_in )
{
    for ( size_t i = 0; i < n_elements; i++ )
    {
        if ( map[ i ].mEnum == e_in )
        {
            return map[ i ].mString;
        }
    }
    return NULL;
}
