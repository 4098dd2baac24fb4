#!/usr/bin/env python3
"""Writes core/gift/gift_ks_gen.h: what the 32-bit GIFT key set-ups (gift_fix32.c,
gift64_thumb2.c) need to place round keys without a Benes network per word (core/gift/meson.build
runs it at build time):

    python3 embedded/gen/gift_keysched.py gift_fix_gen.h gift64_thumb2_gen.h gift_ks_gen.h

Reads the placement networks the other generators wrote (gift_fix_gen.h: gift64_NET,
gift128_NET; gift64_thumb2_gen.h: gift64_t2_NET) and derives:

- the round-constant words, placed: public, so a table (28 or 40 words) instead of a network
  per round at every key set-up;
- "advance" maps. The key state's 16-bit words only rotate: after 4 rounds every word k_j has
  turned by 12 (j even) or 2 (j odd) bits, so the key word of round r + 4 is the one of round r
  rotated (GIFT-64: V = k0, U = k1; GIFT-128: V = k1 || k0, U = k5 || k4). Placed in the same
  representation, that rotation is a fixed bit permutation of the placed word; written as an OR
  of masked rotations, it has 1 to 3 terms for GIFT-64 (whose 4-round representation cycle
  matches the key's period) and 2 to 6 for GIFT-128 between rounds r and r + 20 (cycle 5). So
  only the first 4 (GIFT-64) or 20 (GIFT-128) rounds' words go through a network.

Before writing, the whole schedule built this way is compared, for random keys, with the
networks applied to every round's words (what the C did before), and gift64_thumb2.c's
whole-word placements of rounds 0..3 (T2_FORMS) with the networks on every input bit.
"""
import random
import re

import emit

SHIFTS = [16, 8, 4, 2, 1, 2, 4, 8, 16]
M32 = 0xffffffff


def nets(src, name, shape):
    body = src[src.index(name):]
    n = 1
    for d in shape:
        n *= d
    vals = [int(x, 16) for x in re.findall(r'0x([0-9a-f]+)u', body)[:9 * n]]
    return [vals[9 * i:9 * i + 9] for i in range(n)]


def benes(x, net):
    for sh, m in zip(SHIFTS, net):
        t = ((x >> sh) ^ x) & m
        x ^= t ^ (t << sh)
    return x & M32


def perm(net):
    return [benes(1 << j, net).bit_length() - 1 for j in range(32)]


def rol(x, d):
    d %= 32
    return ((x << d) | (x >> (32 - d))) & M32 if d else x


def rot16(x, n):
    n %= 16
    return ((x >> n) | (x << (16 - n))) & 0xffff


def rc_seq(n):
    c, out = 0, []
    for _ in range(n):
        c = ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1)
        out.append(c)
    return out


def groups(src_perm, dst_perm, source_bit):
    """The placed-word map y = OR_d (rol(x, d) & m_d): output bit dst_perm[i] takes input bit
    src_perm[source_bit(i)], for the 32 input bits i of the new word."""
    g = {}
    for i in range(32):
        d = (dst_perm[i] - src_perm[source_bit(i)]) % 32
        g[d] = g.get(d, 0) | (1 << dst_perm[i])
    return sorted(g.items())


def apply(g, x):
    y = 0
    for d, m in g:
        y |= rol(x, d) & m
    return y


def thumb2_imm(m):
    """Whether m is a Thumb-2 modified immediate (an AND with it is one instruction): 00XY00XY,
    XY00XY00, XYXYXYXY, or eight bits rotated (approximately: any byte-wide field)."""
    b0, b1 = m & 0xff, (m >> 8) & 0xff
    if m in (b0 * 0x00010001, (b1 << 8) * 0x00010001, b0 * 0x01010101):
        return True
    return any(rol(m, r) <= 0xff for r in range(32))


def c_expr(g):
    """The map as C. The masks partition the word (a permutation), so with one group as the
    base, y = base ^ XOR_i ((rot_i ^ base) & m_i): three instructions a group beyond the base on
    Thumb-2 (ROR, EOR with a rotated operand, AND) and one for the base (EOR with a rotated
    operand), in place of ROR, AND and ORR a group. The base is the group whose mask is not an
    immediate, if any (its mask is never needed). Only where xor_form() says so."""
    if len(g) == 1:
        d, m = g[0]
        return 'x' if d == 0 else 'BS_GIFT_ROL(x, %d)' % d

    def rot(d):
        return 'x' if d == 0 else 'BS_GIFT_ROL(x, %d)' % d

    if not xor_form(g):
        return ' | '.join(rot(d) if m == M32 else '(%s & 0x%08xu)' % (rot(d), m) for d, m in g)

    def rot(d):
        return 'x' if d == 0 else 'BS_GIFT_ROL(x, %d)' % d

    base = max(range(len(g)), key=lambda i: (not thumb2_imm(g[i][1]), bin(g[i][1]).count('1')))
    db = g[base][0]
    terms = ['((%s ^ %s) & 0x%08xu)' % (rot(d), rot(db), m) for i, (d, m) in enumerate(g)
             if i != base]
    return '%s ^ %s' % (rot(db), ' ^ '.join(terms))


def xor_form(g):
    """The XOR form where it saves: two groups, the other mask an immediate (measured: with more
    groups or masks from the literal pool GCC's code grew)."""
    return len(g) == 2 and (thumb2_imm(g[0][1]) or thumb2_imm(g[1][1]))


def apply_expr(g, x):
    """What c_expr computes, in Python (checked against apply)."""
    if len(g) == 1 or not xor_form(g):
        return apply(g, x)
    base = max(range(len(g)), key=lambda i: (not thumb2_imm(g[i][1]), bin(g[i][1]).count('1')))
    y = rol(x, g[base][0])
    for i, (d, m) in enumerate(g):
        if i != base:
            y ^= (rol(x, d) ^ rol(x, g[base][0])) & m
    return y


# 16-bit key words duplicated into both blocks (v | v << 16): input bit i < 16 is v's bit i,
# i >= 16 its copy; after 4 rounds k0 (V) turned by 12, k1 (U) by 2.
def src64(rot):
    return lambda i: (i // 16) * 16 + (i % 16 + rot) % 16


# GIFT-128 words hi || lo (V = k1 || k0, U = k5 || k4): after 20 rounds lo turned by 60 = 12
# mod 16, hi by 10.
def src128(i):
    return (i + 12) % 16 if i < 16 else 16 + (i - 16 + 10) % 16


def derive(fix_gen, t2_gen):
    t2 = nets(t2_gen, 'gift64_t2_NET[4][3][9] = {', (4, 3))
    t2 = [[t2[3 * k + s] for s in range(3)] for k in range(4)]
    n64 = nets(fix_gen, 'gift64_NET[4][9] = {', (4,))
    n128 = nets(fix_gen, 'gift128_NET[5][9] = {', (5,))
    rc64, rc128 = rc_seq(28), rc_seq(40)
    d = {}
    d['t2_rc'] = [benes((rc64[r] | 0x8000) * 0x10001, t2[r % 4][2]) for r in range(28)]
    d['fix64_rc'] = [benes((rc64[r] | 0x8000) * 0x10001, n64[r % 4]) for r in range(28)]
    d['fix128_rc'] = [benes(rc128[r] | 0x80000000, n128[r % 5]) for r in range(40)]
    d['t2_adv'] = [[groups(perm(t2[k][s]), perm(t2[k][s]), src64(rot)) for s, rot in
                    ((0, 12), (1, 2))] for k in range(4)]
    d['fix64_adv'] = [[groups(perm(n64[k]), perm(n64[k]), src64(rot)) for rot in (12, 2)]
                      for k in range(4)]
    d['fix128_adv'] = [groups(perm(n128[k]), perm(n128[k]), src128) for k in range(5)]
    return d, t2, n64, n128


# gift64_thumb2.c places rounds 0..3's key words with whole-word steps instead of the
# networks; the same steps here, checked against the networks on every input bit (the maps
# are linear in v).
def _dupspread(x):
    x = (x | (x << 8)) & 0x00ff00ff
    x = (x | (x << 4)) & 0x0f0f0f0f
    return (x | (x << 4)) & M32


def _revbits4(w):
    w = ((w >> 1) & 0x55555555) | ((w & 0x55555555) << 1)
    return (((w >> 2) & 0x33333333) | ((w & 0x33333333) << 2)) & M32


def _tr4(x):
    t = ((x >> 3) ^ x) & 0x0a0a0a0a
    x ^= t ^ (t << 3)
    t = ((x >> 6) ^ x) & 0x00cc00cc
    return (x ^ t ^ (t << 6)) & M32


def _rev(x):
    return int.from_bytes(x.to_bytes(4, 'little'), 'big')


def _rev16(x):
    return (((x >> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8)) & M32


T2_FORMS = {  # (round k, slot s): v -> the placed word (before slot 0's complement)
    (0, 0): lambda v: rol(_rev(_dupspread(_revbits4(v))), 24),
    (0, 1): lambda v: _rev(_dupspread(_revbits4(v))),
    (1, 0): lambda v: rol(_rev16(_dupspread(_tr4(v))), 31),
    (1, 1): lambda v: rol(_rev(_dupspread(_tr4(v))), 30),
    (2, 0): lambda v: rol(_dupspread(v), 16),
    (2, 1): lambda v: rol(_dupspread(v), 14),
    (3, 0): lambda v: rol(_dupspread(_revbits4(_tr4(v))), 16),
    (3, 1): lambda v: rol(_dupspread(_revbits4(_tr4(v))), 16),
}


def check_t2_forms(t2):
    for (k, s), f in T2_FORMS.items():
        for i in range(16):
            if f(1 << i) != benes((1 << i) * 0x10001, t2[k][s]):
                raise SystemExit('gift64_thumb2.c\'s placement of round %d, word %d, bit %d '
                                 'disagrees with the network' % (k, s, i))


def key_words(key):
    """k_0..k_7 of the specification from the 16 key bytes (k7 first, big-endian)."""
    return [(key[14 - 2 * i] << 8) | key[15 - 2 * i] for i in range(8)]


def check(d, t2, n64, n128):
    rng = random.Random(27)
    check_t2_forms(t2)
    maps = [g for k in d['t2_adv'] for g in k] + [g for k in d['fix64_adv'] for g in k] + \
        d['fix128_adv']
    for g in maps:
        for _ in range(64):
            x = rng.getrandbits(32)
            if apply_expr(g, x) != apply(g, x):
                raise SystemExit('the C form of a map disagrees with it: %r' % (g,))
    for _ in range(20):
        key = bytes(rng.getrandbits(8) for _ in range(16))
        k = key_words(key)
        uv = []
        kk = list(k)
        for r in range(40):
            uv.append(((kk[5] << 16) | kk[4], (kk[1] << 16) | kk[0], kk[1], kk[0]))
            kk = kk[2:] + [rot16(kk[0], 12), rot16(kk[1], 2)]
        # GIFT-64 thumb2 and fix32: rounds 0..3 by the network, the rest advanced
        for name, place_v, place_u, adv, rc in (
                ('t2', lambda r, v: benes(v * 0x10001, t2[r % 4][0]) ^ M32,
                 lambda r, u: benes(u * 0x10001, t2[r % 4][1]), d['t2_adv'], d['t2_rc']),
                ('fix64', lambda r, v: benes(v * 0x10001, n64[r % 4]) ^ M32,
                 lambda r, u: benes(u * 0x10001, n64[r % 4]), d['fix64_adv'], d['fix64_rc'])):
            w = [place_v(r, uv[r][3]) for r in range(4)], [place_u(r, uv[r][2]) for r in range(4)]
            for r in range(28):
                if r >= 4:
                    for s in range(2):
                        w[s][r % 4] = apply(adv[r % 4][s], w[s][r % 4])
                if (w[0][r % 4] != place_v(r, uv[r][3]) or w[1][r % 4] != place_u(r, uv[r][2])
                        or rc[r] != benes((rc_seq(28)[r] | 0x8000) * 0x10001,
                                          (t2[r % 4][2] if name == 't2' else n64[r % 4]))):
                    raise SystemExit('GIFT-64 %s: round %d disagrees' % (name, r))
        # GIFT-128 fix32: rounds 0..19 by the network, 20..39 advanced from r - 20
        for r in range(20, 40):
            for j in (0, 1):
                want = benes(uv[r][j], n128[r % 5])
                got = apply(d['fix128_adv'][r % 5], benes(uv[r - 20][j], n128[r % 5]))
                if got != want:
                    raise SystemExit('GIFT-128: round %d disagrees' % r)


def table(name, vals):
    lines = ['static const uint32_t %s[%d] = {' % (name, len(vals))]
    for i in range(0, len(vals), 5):
        lines.append('    ' + ' '.join('0x%08xu,' % v for v in vals[i:i + 5]))
    lines.append('};')
    return lines


def render(d):
    L = ['/* Generated by embedded/gen/gift_keysched.py: do not edit. */',
         '/*',
         ' * Round-constant words placed in each round\'s representation (public tables), and the',
         ' * "advance" maps: the placed key word of round r + 4 (GIFT-64; _ADV_k_s, k = r % 4, s = 0',
         ' * for the ~V word, 1 for U) or r + 20 (GIFT-128; _ADV20_k, k = r % 5, V and U alike) from',
         ' * the one of round r, as an OR of masked rotations. See the generator for the derivation.',
         ' */',
         '#define BS_GIFT_ROL(x, d) (((x) << (d)) | ((x) >> (32 - (d))))',
         '',
         '#ifdef GIFT_KS_WANT_T2']
    L += table('gift64_t2_RC', d['t2_rc'])
    for k in range(4):
        for s in range(2):
            L.append('#define GIFT64_T2_ADV_%d_%d(x) (%s)' % (k, s, c_expr(d['t2_adv'][k][s])))
    L += ['#endif', '', '#ifdef GIFT_KS_WANT_FIX']
    L += table('gift64_RC', d['fix64_rc'])
    for k in range(4):
        for s in range(2):
            L.append('#define GIFT64_ADV_%d_%d(x) (%s)' % (k, s, c_expr(d['fix64_adv'][k][s])))
    L += table('gift128_RC', d['fix128_rc'])
    for k in range(5):
        L.append('#define GIFT128_ADV20_%d(x) (%s)' % (k, c_expr(d['fix128_adv'][k])))
    L += ['#endif', '']
    return '\n'.join(L)


def generate(fix_gen, t2_gen):
    d, t2, n64, n128 = derive(fix_gen, t2_gen)
    check(d, t2, n64, n128)
    return render(d)


if __name__ == '__main__':
    emit.main(generate, __doc__, inputs=2)
