// SPDX-License-Identifier: GPL-2.0-or-later
/* The version string: --version and every results file's tool.version. The
 * build generates mthpscope_version.h (cmake/version.cmake); a build without
 * it (tests/fuzz/build.sh) passes -DMTHPSCOPE_VERSION. */
#include "mthpscope.h"

#if defined(__has_include)
#if __has_include("mthpscope_version.h")
#include "mthpscope_version.h"
#endif
#endif
#ifndef MTHPSCOPE_VERSION
#define MTHPSCOPE_VERSION "unknown"
#endif

const char ms_version[] = MTHPSCOPE_VERSION;
