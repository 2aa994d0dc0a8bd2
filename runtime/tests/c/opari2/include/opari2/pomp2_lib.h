/* Stands in for the header OPARI2's output includes, so that the fixture
 * compiles without an OPARI2 installation: the same POMP2 declarations the
 * other test programs use, plus OPARI2's name for a region handle. */
#ifndef POMP2_TEST_OPARI2_LIB_H
#define POMP2_TEST_OPARI2_LIB_H
#include "../../../pomp2_lib.h"
typedef POMP2_Region_handle OPARI2_Region_handle;
#endif
