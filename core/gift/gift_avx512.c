/*
 * GIFT-64 and GIFT-128, 512 blocks per pass on zmm registers (x86-64 with AVX-512): the rounds,
 * passes, drivers and descriptors of gift_wide.inc.h on bs_v512.h's words.
 */
#include "gift.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && defined(BS_HAVE_X86)
#define BS_TARGET_AVX512
#include "../bs_target_begin.inc.h"
#include "gift_wide.inc.h"
#include "../bs_target_end.inc.h"
#endif
