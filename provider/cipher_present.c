/* PRESENT-80-CTR and PRESENT-128-CTR (docs/spec/algorithms.md). */
#include "bsprov.h"
#include "bsprov_ciphers.h"

BSPROV_CTR_ALGORITHM(bsprov_present80_ctr, "PRESENT-80-CTR", "PRESENT-80-CTR:PRESENT80-CTR",
                     "PRESENT-80", 10, 8);
BSPROV_CTR_ALGORITHM(bsprov_present128_ctr, "PRESENT-128-CTR",
                     "PRESENT-128-CTR:PRESENT-CTR:PRESENT128-CTR", "PRESENT-128", 16, 8);

BSPROV_CIPHER(present, &bsprov_present128_ctr, &bsprov_present80_ctr);
