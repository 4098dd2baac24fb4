/*
 * RIJNDAEL-256-CTR (16-byte IV, counter block IV || 0^16) and RIJNDAEL-256-GCM (28-byte default
 * IV, any length 1..256), docs/spec/algorithms.md and docs/spec/rijndael256-gcm.md.
 */
#include "bsprov.h"
#include "bsprov_ciphers.h"

BSPROV_CTR_ALGORITHM(bsprov_rijndael256_ctr, "RIJNDAEL-256-CTR", "RIJNDAEL-256-CTR:RIJNDAEL256-CTR",
                     "RIJNDAEL-256", 32, 16);
BSPROV_GCM_ALGORITHM(bsprov_rijndael256_gcm, "RIJNDAEL-256-GCM", "RIJNDAEL-256-GCM:RIJNDAEL256-GCM",
                     "RIJNDAEL-256", 32, 28);

BSPROV_CIPHER(rijndael256, &bsprov_rijndael256_gcm, &bsprov_rijndael256_ctr);
