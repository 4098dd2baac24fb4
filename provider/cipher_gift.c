/* GIFT-64-CTR and GIFT-128-CTR (docs/spec/algorithms.md). */
#include "bsprov.h"
#include "bsprov_ciphers.h"

BSPROV_CTR_ALGORITHM(bsprov_gift64_ctr, "GIFT-64-CTR", "GIFT-64-CTR:GIFT64-CTR", "GIFT-64", 16, 8);
BSPROV_CTR_ALGORITHM(bsprov_gift128_ctr, "GIFT-128-CTR", "GIFT-128-CTR:GIFT-CTR:GIFT128-CTR",
                     "GIFT-128", 16, 16);

BSPROV_CIPHER(gift, &bsprov_gift128_ctr, &bsprov_gift64_ctr);
