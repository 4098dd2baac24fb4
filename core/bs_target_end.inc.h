/*
 * bs_target_end.inc.h: the end of the SIMD region that bs_target_begin.inc.h opened (a template
 * include, no guard). What follows is compiled for any x86-64 again; BS_TARGET_LEVEL and the
 * names stay defined for the descriptors below it.
 */
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
