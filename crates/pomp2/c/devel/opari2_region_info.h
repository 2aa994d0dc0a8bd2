/* What every region's CTC string says of where it stands in the source,
 * whatever kind of region it is. pomp's reader of CTC strings, with the C
 * interface of OPARI2's, which Score-P's OPARI2 adapters build in.
 *
 * A region's information of any kind begins with these fields, so that a
 * pointer to it may be read as an OPARI2_Region_info. */
#ifndef OPARI2_REGION_INFO_H
#define OPARI2_REGION_INFO_H

#define OPARI2_REGION_INFO                                                   \
    /* The file and the first and last line of the opening directive. */    \
    char*    mStartFileName;                                                 \
    unsigned mStartLine1;                                                    \
    unsigned mStartLine2;                                                    \
    /* The same of the closing directive, or of the end of the block. */    \
    char*    mEndFileName;                                                   \
    unsigned mEndLine1;                                                      \
    unsigned mEndLine2;

typedef struct
{
    OPARI2_REGION_INFO
} OPARI2_Region_info;

#endif /* OPARI2_REGION_INFO_H */
