/* SPEEDY-5/6/7-192-CTR (docs/spec/algorithms.md): 24-byte key, counter block IV(16) || 0^8. */
#include "bsprov.h"
#include "bsprov_ciphers.h"

BSPROV_CTR_ALGORITHM(bsprov_speedy7_ctr, "SPEEDY-7-192-CTR",
                     "SPEEDY-7-192-CTR:SPEEDY-CTR:SPEEDY7-192-CTR", "SPEEDY-7-192", 24, 16);
BSPROV_CTR_ALGORITHM(bsprov_speedy6_ctr, "SPEEDY-6-192-CTR", "SPEEDY-6-192-CTR:SPEEDY6-192-CTR",
                     "SPEEDY-6-192", 24, 16);
BSPROV_CTR_ALGORITHM(bsprov_speedy5_ctr, "SPEEDY-5-192-CTR", "SPEEDY-5-192-CTR:SPEEDY5-192-CTR",
                     "SPEEDY-5-192", 24, 16);

BSPROV_CIPHER(speedy, &bsprov_speedy7_ctr, &bsprov_speedy6_ctr, &bsprov_speedy5_ctr);
