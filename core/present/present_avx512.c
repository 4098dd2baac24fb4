/*
 * PRESENT-80 and PRESENT-128, 512 blocks per pass on zmm registers (x86-64 with AVX-512): the
 * rounds, passes, drivers and descriptors of present_wide.inc.h on bs_v512.h's words. The lane
 * width follows the length of the call: 257 blocks and more run 512-block passes, 80 to 256 one
 * 256-block pass of the same template on ymm words (BS_WIDE_HALF, VPTERNLOGQ too), fewer bs64.
 */
#include "present.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
#define BS_TARGET_AVX512
#include "../bs_target_begin.inc.h"
#include "../bs_v256.h"
#define BS_WIDE_HALF
#include "present_wide.inc.h"
#undef BS_WIDE_HALF
#include "present_wide.inc.h"
#include "../bs_target_end.inc.h"
#endif
