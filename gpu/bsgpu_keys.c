/*
 * bsgpu_keys.c: the functions of the C API (bsgpu.h) that need no CUDA: which device cipher
 * serves a core descriptor, and the compact device key from a core's key schedule (the daemon
 * keeps schedules, not keys).
 */
#include <string.h>

#include "bsgpu.h"

int bsgpu_cipher_of(const bs_block_cipher *cipher)
{
    static const char *const names[BSGPU_NCIPHERS] = {"PRESENT-80", "PRESENT-128", "GIFT-64",
                                                      "GIFT-128", "RIJNDAEL-256"};
    for (int i = 0; i < BSGPU_NCIPHERS; i++)
        if (strcmp(cipher->name, names[i]) == 0)
            return i;
    return -1;
}

/* The cores' compact round keys are the kernels' key (bsgpu_lanes.h): the core exports them. */
int bsgpu_key_from_schedule(bsgpu_key *k, const bs_block_cipher *cipher, const bs_key_schedule *ks)
{
    memset(k, 0, sizeof *k);
    if (bsgpu_cipher_of(cipher) < 0 || cipher->export_round_keys == NULL)
        return -1;
    return cipher->export_round_keys(ks, k->w, BSGPU_KEY_WORDS) == 0 ? 0 : -1;
}
