/* SKINNY-128-384/-256/-128-CTR (docs/spec/algorithms.md): the key is the whole tweakey. */
#include "bsprov.h"
#include "bsprov_ciphers.h"

BSPROV_CTR_ALGORITHM(bsprov_skinny128_384_ctr, "SKINNY-128-384-CTR",
                     "SKINNY-128-384-CTR:SKINNY-CTR:SKINNY128-384-CTR", "SKINNY-128-384", 48, 16);
BSPROV_CTR_ALGORITHM(bsprov_skinny128_256_ctr, "SKINNY-128-256-CTR",
                     "SKINNY-128-256-CTR:SKINNY128-256-CTR", "SKINNY-128-256", 32, 16);
BSPROV_CTR_ALGORITHM(bsprov_skinny128_128_ctr, "SKINNY-128-128-CTR",
                     "SKINNY-128-128-CTR:SKINNY128-128-CTR", "SKINNY-128-128", 16, 16);

BSPROV_CIPHER(skinny, &bsprov_skinny128_384_ctr, &bsprov_skinny128_256_ctr,
              &bsprov_skinny128_128_ctr);
