#!/usr/bin/env python3
"""Finds the in-word delta swaps of SPEEDY's key-schedule row permutation in the 6x32 layout
(core/speedy/speedy_bs32.c, speedy_rows_times7) and checks the packed key step against the
specification's k'[n] = k[(7n + 1) mod 192] on random keys. Prints the (shift, mask) pairs.

A delta swap (shift s, mask m) exchanges bits p and p + s for every p in m:
t = ((x >> s) ^ x) & m; x ^= t ^ (t << s). A Benes network on 32 positions is nine such stages
(shifts 16 8 4 2 1 2 4 8 16); benes.py's looping algorithm sets their masks, and for the row
permutation i <- 7i mod 32 five of the nine come out empty.
"""
import random

import emit
from benes import benes


def apply(seq, x):
    for s, m in seq:
        t = ((x >> s) ^ x) & m
        x ^= t ^ (t << s)
    return x & 0xffffffff


rol = emit.rol


def main():
    rnd = random.Random(1)
    for _ in range(50):  # the network builder itself, on random permutations
        P = list(range(32))
        rnd.shuffle(P)
        seq = benes(P)
        assert all(apply(seq, 1 << s) == 1 << P[s] for s in range(32))
    # row i at bit 31 - i; destination row i takes source row 7i mod 32
    P = [0] * 32
    for i in range(32):
        P[31 - (7 * i) % 32] = 31 - i
    seq = benes(P)
    assert all(apply(seq, 1 << s) == 1 << P[s] for s in range(32))

    def pack(bits):  # bit 31 - i of word j = x[6i + j]
        return [sum(bits[6 * i + j] << (31 - i) for i in range(32)) for j in range(6)]

    def step(k):  # speedy_key_next32
        return [apply(seq, rol(k[j + 1], j)) for j in range(5)] + [apply(seq, rol(k[0], 6))]
    for _ in range(100):
        b = [rnd.getrandbits(1) for _ in range(192)]
        assert step(pack(b)) == pack([b[(7 * n + 1) % 192] for n in range(192)])
    print(' '.join('(%d, 0x%08x)' % sm for sm in seq))


if __name__ == '__main__':
    main()
