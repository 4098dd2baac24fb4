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
  rotated (GIFT-64: V = k0, U = k1). Placed in the same representation, that rotation is a
  fixed bit permutation of the placed word; written as an OR of masked rotations, it has 1 to 3
  terms for GIFT-64, whose 4-round representation cycle matches the key's period, so only the
  first 4 rounds' words go through a network.
- GIFT-128's plan (cycle 5, V = k1 || k0, U = k5 || k4): every word of rounds 10..39 is one of
  the four key words rotated, so it is a bit permutation of any earlier placed word of the same
  key word, in whatever representation; the plan takes the one whose map (masked rotations) is
  cheapest in Thumb-2 instructions (cost()), 1 to 6 groups. Only the first 10 rounds' words go
  through a network.

Before writing, the whole schedule built this way is compared, for random keys, with the
networks applied to every round's words (what the C did before), and gift64_thumb2.c's
whole-word placements of rounds 0..3 (T2_FORMS) with the networks on every input bit.
"""
import heapq
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


rol = emit.rol


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


# GIFT-128: the key state is four words K_i = k_2i+1 || k_2i (hi || lo); a round uses V = K_0 and
# U = K_2, then the words move down and K_0 comes back as K_3 with lo turned by 12, hi by 2
# ("rot"). So round r's V is rot^(r / 4)(K_(r % 4)) and its U rot^((r + 2) / 4)(K_((r + 2) % 4))
# of the key's own words (integer division), placed by network r % 5.
def word128(r, s):
    """(i, a): round r's word s (0: V, 1: U) is rot^a(K_i)."""
    q = r + 2 * s
    return q % 4, q // 4


def rotpos128(a):
    """Where bit b of K_i is in rot^a(K_i)."""
    return lambda b: (b - 12 * a) % 16 if b < 16 else 16 + (b - 16 - 2 * a) % 16


def pos128(perms, r, s):
    """Where bit b of K_i is in round r's placed word s."""
    f = rotpos128(word128(r, s)[1])
    return [perms[r % 5][f(b)] for b in range(32)]


def map128(perms, src, dst):
    """The placed-word map from round src's word to round dst's ((round, word) pairs of the
    same key word K_i), as groups (rotation, mask)."""
    ps, pd = pos128(perms, *src), pos128(perms, *dst)
    g = {}
    for b in range(32):
        d = (pd[b] - ps[b]) % 32
        g[d] = g.get(d, 0) | (1 << pd[b])
    return sorted(g.items())


def cost(g):
    """Thumb-2 instructions of a map, roughly: a rotation per group (none for 0), an AND (two
    more for a mask that is not an immediate) and an ORR per group after the first."""
    if len(g) == 1:
        return 0 if g[0][0] == 0 else 1
    return sum((d != 0) + 1 + (0 if thumb2_imm(m) else 2) + 1 for d, m in g) - 1


def index_swaps():
    """The delta swaps that move bits by their index: exchange index bits i < j (shift
    2^j - 2^i), exchange and complement both (shift 2^i + 2^j), complement bit i (shift 2^i)."""
    out = []
    for i in range(5):
        out.append((1 << i, sum(1 << p for p in range(32) if not (p >> i) & 1)))
        for j in range(i + 1, 5):
            out.append(((1 << j) - (1 << i),
                        sum(1 << p for p in range(32) if (p >> i) & 1 and not (p >> j) & 1)))
            out.append(((1 << j) + (1 << i),
                        sum(1 << p for p in range(32) if not (p >> i) & 1 and not (p >> j) & 1)))
    return out


def dswap_pos(pos, s, m):
    """pos (bit b of the word is at pos[b]) after the delta swap (s, m)."""
    at = {p: b for b, p in enumerate(pos)}
    new = list(pos)
    for p in range(32):
        if (m >> p) & 1:
            new[at[p]], new[at[p + s]] = p + s, p
    return tuple(new)


def short_net(target):
    """The cheapest sequence of index_swaps() (Thumb-2 cost: four instructions a swap, two more
    for a mask that is not an immediate) that moves bit b to target[b]. GIFT-128's placements
    move bits by their index (a rotation of the five index bits and a complement), so a few
    swaps do what the nine-stage network does; the search is over those 3,840 permutations."""
    start, target = tuple(range(32)), tuple(target)
    best, heap = {start: 0}, [(0, start, ())]
    while heap:
        c, pos, path = heapq.heappop(heap)
        if pos == target:
            return list(path)
        if best[pos] < c:
            continue
        for s, m in index_swaps():
            n = dswap_pos(pos, s, m)
            nc = c + 4 + (0 if thumb2_imm(m) else 2)
            if nc < best.get(n, 1 << 30):
                best[n] = nc
                heapq.heappush(heap, (nc, n, path + ((s, m),)))
    raise SystemExit('no index-swap network for a GIFT-128 placement')


def plan128(perms):
    """Rounds 10..39 of GIFT-128, each word from the cheapest earlier placed word of the same
    key word (the first 10 rounds come from the networks: no earlier word is cheap there)."""
    plan = []
    for r in range(10, 40):
        for s in range(2):
            i = word128(r, s)[0]
            best = min((cost(map128(perms, (r2, s2), (r, s))), r2, s2)
                       for r2 in range(r) for s2 in range(2) if word128(r2, s2)[0] == i)
            plan.append(((r, s), (best[1], best[2]), map128(perms, (best[1], best[2]), (r, s))))
    return plan


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
    d['fix128_plan'] = plan128([perm(n) for n in n128])
    d['fix128_place'] = [short_net(perm(n)) for n in n128]
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


def dswaps(x, seq):
    for s, m in seq:
        t = ((x >> s) ^ x) & m
        x ^= t ^ (t << s)
    return x & M32


def check(d, t2, n64, n128):
    rng = random.Random(27)
    check_t2_forms(t2)
    for j in range(5):
        for b in range(32):
            if dswaps(1 << b, d['fix128_place'][j]) != benes(1 << b, n128[j]):
                raise SystemExit('GIFT-128: placement %d moves bit %d elsewhere' % (j, b))
    maps = [g for k in d['t2_adv'] for g in k] + [g for k in d['fix64_adv'] for g in k] + \
        [g for _, _, g in d['fix128_plan']]
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
        # GIFT-128 fix32: the short networks are the placements; rounds 0..9 by them, 10..39
        # by the plan, in its order; the
        # words of round r (V, U) are uv[r][1], uv[r][0]
        w = {(r, s): benes(uv[r][1 - s], n128[r % 5]) for r in range(10) for s in range(2)}
        for (r, s), src, g in d['fix128_plan']:
            if word128(r, s)[0] != word128(*src)[0] or src not in w:
                raise SystemExit('GIFT-128: round %d word %d from a word not made' % (r, s))
            w[(r, s)] = apply_expr(g, w[src])
            if w[(r, s)] != benes(uv[r][1 - s], n128[r % 5]):
                raise SystemExit('GIFT-128: round %d word %d disagrees' % (r, s))


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
         ' * for the ~V word, 1 for U) from the one of round r, and GIFT-128\'s later rounds from',
         ' * earlier words (GIFT128_KS_LATER), as ORs of masked rotations. See the generator.',
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
    L += ['/* GIFT-128\'s placement in representation j: gift128_NET[j] in %s delta swaps (GIFT_DSWAP). */'
          % '/'.join(str(len(s)) for s in d['fix128_place'])]
    for j, seq in enumerate(d['fix128_place']):
        L.append('#define GIFT128_PLACE_%d(x) \\' % j)
        L.append('    do { \\')
        L += ['        GIFT_DSWAP(x, 0x%08xu, %d); \\' % (m, s) for s, m in seq]
        L.append('    } while (0)')
    L += ['/* GIFT-128\'s rounds 10..39 (key words and constants) from the placed words before them:',
          ' * round r\'s V at rk[3 r], its U at rk[3 r + 1] (cost: estimated Thumb-2 instructions). */',
          '#define GIFT128_KS_LATER(rk) \\', '    do { \\', '        uint32_t x; \\']
    for (r, s), (r2, s2), g in d['fix128_plan']:
        L.append('        x = (rk)[%d]; /* round %d %s from round %d %s, cost %d */ \\'
                 % (3 * r2 + s2, r, 'VU'[s], r2, 'VU'[s2], cost(g)))
        L.append('        (rk)[%d] = %s; \\' % (3 * r + s, c_expr(g)))
        if s:
            L.append('        (rk)[%d] = GIFT128_RC_WORD(%d); \\' % (3 * r + 2, r))
    L += ['    } while (0)', '#endif', '']
    return '\n'.join(L)


def generate(fix_gen, t2_gen):
    d, t2, n64, n128 = derive(fix_gen, t2_gen)
    check(d, t2, n64, n128)
    return render(d)


if __name__ == '__main__':
    emit.main(generate, __doc__, inputs=2)
