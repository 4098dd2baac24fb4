/*
 * PRESENT-80 and PRESENT-128, 256 blocks per pass on ymm registers (x86-64 with AVX2): the rounds,
 * passes, drivers and descriptors of present_wide.inc.h on bs_v256.h's words (valgrind executes
 * these).
 */
#include "present.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
#define BS_TARGET_AVX2
#include "../bs_target_begin.inc.h"
#include "present_wide.inc.h"
#include "../bs_target_end.inc.h"
#endif
