/*
 * tracy/profev_tracy_location.h - the location and name-pasting macros
 * that Tracy's headers give with and without TRACY_ENABLE (TracyFunction,
 * TracyFile, TracyLine, TracyConcat), for C and C++ alike. A program may
 * define its own first. Not API: include Tracy.hpp or TracyC.h.
 */
#ifndef PROFEV_TRACY_LOCATION_H
#define PROFEV_TRACY_LOCATION_H

#ifndef TracyFunction
#define TracyFunction __func__
#endif
#ifndef TracyFile
#define TracyFile __FILE__
#endif
#ifndef TracyLine
#define TracyLine __LINE__
#endif
#ifndef TracyConcat
#define TracyConcat(x, y) TracyConcatIndirect(x, y)
#endif
#ifndef TracyConcatIndirect
#define TracyConcatIndirect(x, y) x##y
#endif

#endif
