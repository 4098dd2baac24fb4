#!/usr/bin/env python3
"""Writes gift64_thumb2.S and gift64_thumb2_gen.h: GIFT-64 fixsliced on two blocks in
hand-scheduled Thumb-2 (Cortex-M3/M4), every round unrolled (core/gift/meson.build runs it at
build time). Nothing is copied: the code is derived below from the
specification's PermBits and checked here against a bit-level GIFT-64 model and its vectors.

Representation. gift_fixslice.py's fixslicing keeps slice 3 fixed and moves the other slices
by L_kj = P_3^-(k+1) o P_j o P_3^k, which on nibble indices add a constant modulo 4 to one
2-bit field: (n0 n1) in rounds k = 0, 2 of the 4-round cycle, (n2 n3) in rounds 1, 3. With
nibble n of block b at slice bit n + 16b (gift_fix32.c) both fields sit low in the word and
both cost masked shifts. Here the packing puts the bits of a slice index in the order
(n2 n3 b n0 n1) (bit 0 first; some complemented, which only turns a rotation around): field
(n0 n1) is then bits 3-4 of the index, and adding c to it is a rotation of the whole word by 8c,
which costs nothing on Thumb-2 (it rides on the flexible second operand of the instruction that
next reads the slice). Rounds 0 and 2 of a cycle are then the S-box and the three key and
constant XORs alone (13 instructions); rounds 1 and 3 rotate nibbles (3 instructions a slice).

Every register carries a rotation offset (its value is the representation rotated), tracked
here: each two-operand instruction aligns its second operand with a rotation, the round keys
and constants are stored at their round's offsets (gift64_thumb2_gen.h gives each key bit's
position), and the offsets left at the end are undone before unpacking. The packing is five
exchanges of a word-index bit with an in-word index bit (SWAPMOVE, or BFI for the half-word
bit), searched over below for one whose result is the order above; unpacking undoes them.

Constant time: straight-line code, no branch but the loop over pairs of blocks (on the public
count); every load and store is at a public offset from the key-schedule, input or output
pointer; only logic, shift, rotate and BFI instructions, which take the same time whatever their
operands.

    python3 embedded/gen/gift64_thumb2.py OUT.S OUT_gen.h
"""
import itertools
import random
import sys

import emit
import gift_fixslice as G
from benes import benes

M32 = 0xffffffff
P = [G.perm_bits(64, j) for j in range(4)]  # PermBits on nibble indices, per slice


def rotl(lst, k):
    """Labels of a register rotated right by k (register bit i takes bit i + k)."""
    k %= 32
    return lst[k:] + lst[:k]


# ---- the packing: 7 index bits, in-word p0..p4 and word bits (h, b) ----
# A LE word load of block b's 64-bit big-endian value X at byte 4h: nibble n's bit j (X bit
# 4n + j) lands at register bit (j0, j1, n0, ~n1, ~n2) of word 2b + h with h = ~n3.

def initial_labels():
    regs = []
    for w in range(4):
        b, h = w >> 1, w & 1
        lab = []
        for p in range(32):
            j = p & 3
            n0, n1, n2 = (p >> 2) & 1, ((p >> 3) & 1) ^ 1, ((p >> 4) & 1) ^ 1
            n3 = h ^ 1
            lab.append(frozenset([(b, n0 | n1 << 1 | n2 << 2 | n3 << 3, j)]))
        regs.append(lab)
    return regs


def xor_l(a, b):
    return [x ^ y for x, y in zip(a, b)]


def and_l(a, m):
    return [a[i] if m >> i & 1 else frozenset() for i in range(32)]


def shr_l(a, s):  # logical right shift
    return a[s:] + [frozenset()] * s


def shl_l(a, s):
    return [frozenset()] * s + a[:32 - s]


MASK = {0: 0x55555555, 1: 0x33333333, 2: 0x0f0f0f0f, 3: 0x00ff00ff}


def pack_steps(seq):
    """seq: (in-word bit i, word-index bit (0: h, 1: b), complemented) per exchange. Returns
    the steps as (kind, hi, lo, i): the word pair differs in that word bit."""
    steps = []
    for i, wb, comp in seq:
        d = 1 << wb
        for lo in range(4):
            if lo & d:
                continue
            hi = lo | d
            steps.append(('c' if comp else 'p', hi, lo, i))
    return steps


def apply_step_labels(regs, st):
    kind, hi, lo, i = st
    s = 1 << i
    H, L = regs[hi], regs[lo]
    if i == 4:
        if kind == 'p':  # lo' = (lo.low, hi.low), hi' = (lo.high, hi.high)
            L2, H2 = L[:16] + H[:16], L[16:] + H[16:]
        else:  # lo' = (hi.high, lo.high), hi' = (hi.low, lo.low)
            L2, H2 = H[16:] + L[16:], H[:16] + L[:16]
    else:
        m = MASK[i]
        if kind == 'p':  # t = (hi ^ (lo >> s)) & m; hi ^= t; lo ^= t << s
            t = and_l(xor_l(H, shr_l(L, s)), m)
            H2, L2 = xor_l(H, t), xor_l(L, shl_l(t, s))
        else:  # t = (lo ^ (hi >> s)) & m; lo ^= t; hi ^= t << s
            t = and_l(xor_l(L, shr_l(H, s)), m)
            L2, H2 = xor_l(L, t), xor_l(H, shl_l(t, s))
    regs = list(regs)
    regs[hi], regs[lo] = H2, L2
    return regs


def slice_maps(regs):
    """For a packed state: register -> slice j and its map (bit -> (b, n)), or None."""
    out = {}
    for w, lab in enumerate(regs):
        if any(len(x) != 1 for x in lab):
            return None
        js = {next(iter(x))[2] for x in lab}
        if len(js) != 1:
            return None
        out[js.pop()] = (w, [next(iter(x))[:2] for x in lab])
    return out if len(out) == 4 else None


def field_ok(m):
    """The map's index order: (n0 n1) at bits 3-4 (rotations), a 2-bit field (n2 n3) below."""
    def nib(p):
        return m[p][1]
    # moving bit 3 of the position must change n0 only, bit 4 n1 only (possibly complemented)
    for p in range(32):
        if nib(p ^ 8) != nib(p) ^ 1 or nib(p ^ 16) != nib(p) ^ 2:
            return False
    return True


def find_packing():
    # exchanges needed (see the docstring of initial_labels): (b p0 p2 p3 p4) as a 5-cycle
    # through b, and p1 <-> h
    best = None
    for order in itertools.permutations([0, 2, 3, 4]):
        for comps in itertools.product([0, 1], repeat=5):
            seq = [(i, 1, c) for i, c in zip(order, comps[:4])] + [(1, 0, comps[4])]
            regs = initial_labels()
            steps = pack_steps(seq)
            for st in steps:
                regs = apply_step_labels(regs, st)
            sm = slice_maps(regs)
            if sm is None:
                continue
            maps = [sm[j][1] for j in range(4)]
            if any(maps[j] != maps[0] for j in range(4)):
                continue
            if not field_ok(maps[0]):
                continue
            best = (steps, sm)
            return best
    raise SystemExit('no packing found')


# ---- instructions: emitted as text and executed here on integers ----

ror, t2_imm = emit.ror, emit.t2_imm


class Prog:
    def __init__(self):
        self.ins = []

    def add(self, *a):
        self.ins.append(a)


def run(prog, regs, mem):
    """Executes the program on integer registers (dict) and memory (dict addr -> word)."""
    for i in prog.ins:
        k = i[0]
        if k in ('and', 'eor', 'orr', 'bic'):
            _, d, n, m, sh = i
            v = m if isinstance(m, int) else regs[m]
            if sh:
                t, a = sh
                v = ror(v, a) if t == 'ror' else (v >> a) if t == 'lsr' else (v << a) & M32
            x = regs[n]
            regs[d] = {'and': x & v, 'eor': x ^ v, 'orr': x | v, 'bic': x & ~v & M32}[k]
        elif k == 'lsr':
            regs[i[1]] = regs[i[2]] >> i[3]
        elif k == 'ror':
            regs[i[1]] = ror(regs[i[2]], i[3])
        elif k == 'bfi':
            _, d, n, lsb, w = i
            m = ((1 << w) - 1) << lsb
            regs[d] = (regs[d] & ~m & M32) | ((regs[n] << lsb) & m)
        elif k == 'ldm':
            _, base, rl = i
            for r in rl:
                regs[r] = mem[regs[base]]
                regs[base] += 4
        elif k == 'comment':
            pass
        else:
            raise ValueError(i)


def fmt(i):
    k = i[0]
    if k in ('and', 'eor', 'orr', 'bic'):
        _, d, n, m, sh = i
        s = '%s %s, %s, ' % (k, d, n)
        s += ('#0x%08x' % m) if isinstance(m, int) else m
        if sh:
            s += ', %s #%d' % sh
        return s
    if k == 'lsr':
        return 'lsr %s, %s, #%d' % i[1:]
    if k == 'ror':
        return 'ror %s, %s, #%d' % i[1:]
    if k == 'bfi':
        return 'bfi %s, %s, #%d, #%d' % i[1:]
    if k == 'ldm':
        return 'ldmia %s!, {%s}' % (i[1], ', '.join(i[2]))
    if k == 'comment':
        return '@ ' + i[1]
    raise ValueError(i)


def emit_pack_step(prog, st, R, t):
    kind, hi, lo, i = st
    H, L = R[hi], R[lo]
    s = 1 << i
    if i == 4:
        if kind == 'p':
            prog.add('lsr', t, L, 16)
            prog.add('bfi', L, H, 16, 16)
            prog.add('bfi', H, t, 0, 16)
        else:
            prog.add('lsr', t, H, 16)
            prog.add('bfi', H, L, 16, 16)
            prog.add('bfi', L, t, 0, 16)
        return
    m = MASK[i]
    if kind == 'p':
        prog.add('eor', t, H, L, ('lsr', s))
        prog.add('and', t, t, m, None)
        prog.add('eor', H, H, t, None)
        prog.add('eor', L, L, t, ('lsl', s))
    else:
        prog.add('eor', t, L, H, ('lsr', s))
        prog.add('and', t, t, m, None)
        prog.add('eor', L, L, t, None)
        prog.add('eor', H, H, t, ('lsl', s))


def check_pack_inverse(steps):
    regs = initial_labels()
    for st in steps:
        regs = apply_step_labels(regs, st)
    for st in reversed(steps):
        regs = apply_step_labels(regs, st)
    assert regs == initial_labels()


# ---- rounds ----

def align(ma, mb):
    """k with ma == rotl(mb, k), i.e. mb ror k lines up with ma."""
    for k in range(32):
        if rotl(mb, k) == ma:
            return k
    raise AssertionError('slices not aligned')


def perm_form(m, target):
    """Physical moves taking map m to target up to a rotation: (ops, new map). ops use 't' and
    'x' placeholders. Forms: a rotation (no instruction), or two displacement classes
    x = (x & ~K) | (x & K) ror c (3 instructions: AND, BIC or EOR, ORR with rotation)."""
    where = {lab: q for q, lab in enumerate(target)}
    Q = [where[m[p]] for p in range(32)]  # src -> dst in target
    disp = {}
    for p in range(32):
        disp.setdefault((p - Q[p]) % 32, []).append(p)  # dst = src - d (a right rotation by d)
    if len(disp) == 1:
        return [], m  # a rotation of the target: nothing to do
    assert len(disp) == 2, 'no cheap form'
    (d1, s1), (d2, s2) = sorted(disp.items())
    for (da, sa), (db, sb) in (((d1, s1), (d2, s2)), ((d2, s2), (d1, s1))):
        K = sum(1 << p for p in sb)  # the bits that move by db; the others stay (target ror da)
        if t2_imm(K):
            c = (db - da) % 32
            ops = [('and', 't', 'x', K, None), ('bic', 'x', 'x', K, None),
                   ('orr', 'x', 'x', 't', ('ror', c))]
            new = [None] * 32
            for p in range(32):
                q = (p - c) % 32 if K >> p & 1 else p
                new[q] = m[p]
            assert all(new[q] == target[(q - da) % 32] for q in range(32))
            return ops, new
    raise AssertionError('mask not an immediate')


def gen():
    steps, sm = find_packing()
    check_pack_inverse(steps)
    X = ['r2', 'r3', 'r4', 'r5']  # words in+0, in+4, in+8, in+12
    T = 'r6'
    KEYS = ['r8', 'r9', 'r10', 'r11', 'r12', 'lr']
    prog = Prog()
    prog.add('comment', 'pack: %d exchanges' % len(steps))
    for st in steps:
        emit_pack_step(prog, st, X, T)
    # slot j (slice j) -> register name, and each register's map
    reg = {j: X[sm[j][0]] for j in range(4)}
    maps = {X[sm[j][0]]: sm[j][1] for j in range(4)}
    m0 = dict(maps)
    slot = [reg[0], reg[1], reg[2], reg[3]]
    keypos = []  # per round: maps of the three keyed registers (slice 0, slice 1, slice 3)
    for r in range(28):
        if r % 2 == 0:
            prog.add('ldm', 'r0', KEYS)
        kr = KEYS[3 * (r % 2):3 * (r % 2) + 3]
        prog.add('comment', 'round %d' % r)
        s0, s1, s2, s3 = slot

        def binop(op, d, n, m):
            k = align(maps[n], maps[m])
            prog.add(op, d, n, m, ('ror', k) if k else None)
            maps[d] = maps[n]
        # GIFT S-box without its final NOT (the round key of slice 0 carries it)
        binop('and', T, s0, s2)
        binop('eor', s1, s1, T)
        binop('and', T, s1, s3)
        binop('eor', s0, s0, T)
        binop('orr', T, s0, s1)
        binop('eor', s2, s2, T)
        binop('eor', s3, s3, s2)
        binop('eor', s1, s1, s3)
        binop('and', T, s0, s1)
        binop('eor', s2, s2, T)
        s0, s3 = s3, s0
        slot = [s0, s1, s2, s3]
        # PermBits: relabel
        for j in range(4):
            x = slot[j]
            maps[x] = [(b, P[j][n]) for (b, n) in maps[x]]
        target = maps[s3]
        for j in range(3):
            x = slot[j]
            ops, new = perm_form(maps[x], target)
            for o in ops:
                o = tuple(T if a == 't' else x if a == 'x' else a for a in o)
                prog.add(*o)
            maps[x] = new
        # keys: slice 0 <- ~V, slice 1 <- U, slice 3 <- constant (stored at each map)
        prog.add('eor', s0, s0, kr[0], None)
        prog.add('eor', s1, s1, kr[1], None)
        prog.add('eor', s3, s3, kr[2], None)
        keypos.append([list(maps[s0]), list(maps[s1]), list(maps[s3])])
    assert slot == [reg[0], reg[1], reg[2], reg[3]]
    prog.add('comment', 'undo the rotations left')
    for x in X:
        k = align(m0[x], maps[x])
        if k:
            prog.add('ror', x, x, k)
            maps[x] = rotl(maps[x], k)
        assert maps[x] == m0[x]
    prog.add('comment', 'unpack')
    for st in reversed(steps):
        emit_pack_step(prog, st, X, T)
    return prog, keypos, X


# ---- the model: GIFT-64 from the specification, and the key schedule as the C code does it ----

GS = [1, 10, 4, 12, 6, 15, 3, 9, 2, 13, 11, 7, 5, 0, 8, 14]


def gift64_ref(key, pt):
    k = [int.from_bytes(key[14 - 2 * j:16 - 2 * j], 'big') for j in range(8)]
    s = int.from_bytes(pt, 'big')
    c = 0
    for r in range(28):
        s = sum(GS[(s >> (4 * i)) & 15] << (4 * i) for i in range(16))
        t = 0
        for i in range(64):
            p = 4 * (i // 16) + 16 * ((3 * ((i % 16) // 4) + (i % 4)) % 4) + (i % 4)
            t |= ((s >> i) & 1) << p
        s = t
        u, v = k[1], k[0]
        for i in range(16):
            s ^= ((v >> i) & 1) << (4 * i) ^ ((u >> i) & 1) << (4 * i + 1)
        c = ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1)
        for i in range(6):
            s ^= ((c >> i) & 1) << (4 * i + 3)
        s ^= 1 << 63
        k0, k1 = k[0], k[1]
        k = k[2:] + [((k0 >> 12) | (k0 << 4)) & 0xffff, ((k1 >> 2) | (k1 << 14)) & 0xffff]
    return s.to_bytes(8, 'big')


STAGES = (16, 8, 4, 2, 1, 2, 4, 8, 16)


def networks(keypos):
    """NET[k][s]: the nine delta-swap masks taking v | v << 16 (v the 16 bits of ~V, U or the
    constant) to key word s of round k of the cycle: bit n to block 0's nibble n, bit 16 + n to
    block 1's. Checked: the placement repeats every 4 rounds."""
    net = []
    for k in range(4):
        row = []
        for s in range(3):
            d = {lab: p for p, lab in enumerate(keypos[k][s])}
            for r in range(k, 28, 4):
                assert {lab: p for p, lab in enumerate(keypos[r][s])} == d
            P = [d[(i >> 4, i & 15)] for i in range(32)]
            seq = benes(P, full=True)
            assert [sh for sh, _ in seq] == list(STAGES)
            row.append([m for _, m in seq])
        net.append(row)
    return net


def apply_net(masks, v):
    x = v | (v << 16)
    for sh, m in zip(STAGES, masks):
        t = ((x >> sh) ^ x) & m
        x ^= t ^ (t << sh)
    return x & M32


def key_words(key, keypos, net):
    """The round keys as gift64_thumb2.c computes them (through the networks), checked against
    placing every bit at its position."""
    k = [int.from_bytes(key[14 - 2 * j:16 - 2 * j], 'big') for j in range(8)]
    c = 0
    words = []
    for r in range(28):
        c = ((c << 1) & 0x3e) | (((c >> 5) ^ (c >> 4) ^ 1) & 1)
        vals = [k[0], k[1], c | 0x8000]
        for s in range(3):
            w = 0
            for p, (b, n) in enumerate(keypos[r][s]):
                w |= ((vals[s] >> n) & 1) << p
            assert apply_net(net[r % 4][s], vals[s]) == w
            words.append(w ^ M32 if s == 0 else w)
        k0, k1 = k[0], k[1]
        k = k[2:] + [((k0 >> 12) | (k0 << 4)) & 0xffff, ((k1 >> 2) | (k1 << 14)) & 0xffff]
    return words


def model_encrypt(prog, X, keypos, key, blocks16):
    words = key_words(key, keypos, networks(keypos))
    mem = {0x1000 + 4 * i: w for i, w in enumerate(words)}
    regs = {'r0': 0x1000}
    for i, x in enumerate(X):
        regs[x] = int.from_bytes(blocks16[4 * i:4 * i + 4], 'little')
    run(prog, regs, mem)
    return b''.join(regs[x].to_bytes(4, 'little') for x in X)


def check(prog, X, keypos):
    vecs = [('00000000000000000000000000000000', '0000000000000000', 'f62bc3ef34f775ac'),
            ('fedcba9876543210fedcba9876543210', 'fedcba9876543210', 'c1b71f66160ff587'),
            ('bd91731eb6bc2713a1f9f6ffc75044e7', 'c450c7727a9b8a7d', 'e3272885fa94ba8b')]
    for k, p, c in vecs:
        k, p, c = bytes.fromhex(k), bytes.fromhex(p), bytes.fromhex(c)
        assert gift64_ref(k, p) == c, 'model'
        q = bytes(reversed(p))
        assert model_encrypt(prog, X, keypos, k, p + q) == c + gift64_ref(k, q), 'program'
    rnd = random.Random(9)
    for _ in range(20):
        k = bytes(rnd.getrandbits(8) for _ in range(16))
        p = bytes(rnd.getrandbits(8) for _ in range(16))
        assert model_encrypt(prog, X, keypos, k, p) == gift64_ref(k, p[:8]) + gift64_ref(k, p[8:])


HEAD = """/*
 * Generated by embedded/gen/gift64_thumb2.py: do not edit. GIFT-64 fixsliced on two blocks,
 * Thumb-2 (Cortex-M3/M4); the representation and the constant-time argument are in the
 * generator's header and in gift64_thumb2.c.
 *
 *   void bs_gift64_thumb2_encrypt(const bs_key_schedule *ks, uint8_t *out, const uint8_t *in,
 *                                 size_t nblocks);
 *
 * bs_block_cipher's encrypt: the round keys are at the start of ks. Pairs of blocks here, an
 * odd last block through bs_gift64_thumb2_last (gift64_thumb2.c, a tail call). r0 round keys
 * (three words a round, two rounds per LDM), r1 out, r7 in, r2-r5 the four slices, r6
 * scratch, r8-r12 and lr the round keys of two rounds; the count of blocks left is the
 * stacked r3. Every round is unrolled: %d data-processing instructions and %d LDM per pair.
 */
    .syntax unified
    .thumb
    .section .text.bs_gift64_thumb2_encrypt, "ax", %%progbits
    .align 2
    .global bs_gift64_thumb2_encrypt
    .type bs_gift64_thumb2_encrypt, %%function
    .thumb_func
bs_gift64_thumb2_encrypt:
    cmp r3, #2
    blo 3f
    push {r3-r11, lr}
    mov r7, r2
1:
    ldr r2, [r7, #0]
    ldr r3, [r7, #4]
    ldr r4, [r7, #8]
    ldr r5, [r7, #12]
    add r7, r7, #16
"""

TAIL = """    str r2, [r1, #0]
    str r3, [r1, #4]
    str r4, [r1, #8]
    str r5, [r1, #12]
    add r1, r1, #16
    sub r0, r0, #336
    ldr r6, [sp]
    subs r6, r6, #2
    str r6, [sp]
    cmp r6, #2
    bhs 1b
    cbnz r6, 2f
    pop {r3-r11, pc}
2:
    mov r2, r7
    pop {r3-r11, lr}
3:
    cbz r3, 4f
    b bs_gift64_thumb2_last
4:
    bx lr
    .size bs_gift64_thumb2_encrypt, . - bs_gift64_thumb2_encrypt
"""


def table(keypos):
    net = networks(keypos)
    out = ['/* Generated by embedded/gen/gift64_thumb2.py: do not edit. */',
           '/*',
           ' * gift64_t2_NET[k][s]: the masks of nine delta swaps (shifts 16 8 4 2 1 2 4 8 16) that',
           ' * take v | v << 16 to key word s (0: ~V, 1: U, 2: the constant) of round k of the',
           ' * 4-round cycle, bit n of v to nibble n of block 0 and bit 16 + n to block 1.',
           ' */',
           'static const uint32_t gift64_t2_NET[4][3][9] = {']
    for row in net:
        out.append('    {')
        for masks in row:
            out.append('        {' + ', '.join('0x%08xu' % m for m in masks[:5]) + ',')
            out.append('         ' + ', '.join('0x%08xu' % m for m in masks[5:]) + '},')
        out.append('    },')
    out.append('};')
    return '\n'.join(out) + '\n'


def generate():
    prog, keypos, X = gen()
    check(prog, X, keypos)
    alu = sum(1 for i in prog.ins if i[0] not in ('comment', 'ldm'))
    nldm = sum(1 for i in prog.ins if i[0] == 'ldm')
    asm = HEAD % (alu, nldm) + ''.join('    ' + fmt(i) + '\n' for i in prog.ins) + TAIL
    sys.stderr.write('gift64_thumb2: model matches the GIFT-64 vectors; %d data-processing '
                     'instructions, %d LDM per pair\n' % (alu, nldm))
    return asm, table(keypos)


if __name__ == '__main__':
    emit.main(generate, __doc__, outputs=2)
