#!/usr/bin/env python3
"""Writes aes_masked_lin_t2.h: the linear layers of core/aes/aes_masked32.c's masked AES rounds
as straight-line Thumb-2 for Cortex-M3/M4, register-allocated so that no value and no register
write, load or store transition depends on the state or the key (word-level model below).
core/aes/meson.build runs it at build time, on what aes_masked_sbox.py and aes_masked_thumb2.py
write:

    python3 embedded/gen/aes_masked_lin_thumb2.py aes_masked_sbox.h aes_masked_t2.h \\
        aes_masked_lin_t2.h

Functions (all take q, the state's eight masked slices in place, c, eight mask-only
correction words of the call, and rk0, rk1, the round key's two shares, eight words each):
  - lin_masked_t2_K (K = 0..3): q = MixColumns_K(q) ^ c ^ rk0 ^ rk1, MixColumns of
    representation K (aes.h) grouped as the C's MC_MASKED: output slice b is
    (t[b-1] ^ t[7]) ^ (n[b] ^ rot2(t[b])); then the correction word, then the two key shares
    (never the two shares together before the state: rk0 ^ rk1 is the key).
  - ark_masked_t2: q = q ^ c ^ rk0 ^ rk1 (the first and the last key additions).
And, called from C with the AAPCS (they save r4..r11 and clear each register they find before
they write it): pack_masked_t2(q, in, r), the plaintext words masked by the eight words r and
packed (aes.h's transpose), and unpack_masked_t2(out, q, r), SR^2, the inverse transpose and
r taken off the ciphertext words. The plaintext as loaded and the ciphertext as stored are
inputs and outputs: exempt from the value test, not from the transitions (but for the
output buffer's old contents, the caller's).

The model (the word-level one of core/aes/aes_masked_gen.py, applied to every instruction):
a word is 32 rows, one per bit, each a GF(2) linear form over mask variables (m0, m1, the
rk1 share's bits, and for ark_masked_t2 the masks the state arrives with) and secret
variables (the state's slices and the round key): a word is independent of the secrets when
the secret part's image lies in the masks' (a rank test). Each function is checked in the
contexts it runs in: lin_masked_t2_K on the S-box's output (slice b masked by its output
pattern, c = MixColumns_K(output pattern) ^ input pattern, as call_masks_init computes it);
ark_masked_t2 on the packed state (masked by eight independent uniform words P, the packed r,
with c = P ^ input pattern) and on the last S-box's output (c = output pattern ^ SR^2(P)).
Every value (register write, load, store) and every transition (old ^ new of the register
or memory word written) must pass; the allocator tracks what each register and each q[]
word last held and never writes over contents it would combine with, clearing the register
(mov #0) or the word (a store of the pointer) first where needed. The emitted instructions
are then run here on the model (simulate()) and must give the outputs of the direct model.

The drivers rounds_masked_t2_10 / _14 (q, cm, rk0, rk1) run a whole AES-128 / AES-256 call's
rounds: the first key addition, then per round the S-box of aes_masked_t2.h and a linear layer
(the last round: the key addition alone), with a private calling convention: the callees keep
nothing across calls, the S-box saves only lr, the linear layers save nothing (r0..r3 stay
the pointers, r4..r12 are the temporaries), and the driver keeps the four pointers in its
frame. Each function clears, before it returns, every register that holds data (the
simulation here and the checker require it), so that the next one starts from registers
without data, as its model assumes.

The default key schedule's SubWord (aes_masked32.c's subword_pat; aes_masked.h has the
argument): subword_tin_t2 (q, mw, w) trades the word pair's two shares for the S-box's input
pattern (slice b of share 1 ^ mi[b], a mask-only word, added to slice b of share 0) and
subword_tout_t2 (q, mw, w, rnd) the S-box's output pattern for a fresh word r1 (w[0] = the
output ^ r1), both under the transition rule above in their own contexts (the slices at bits 0,
8, 16, 24, m0 and m1 independent variables there, the shares K ^ S1 and S1, q's old contents
the last call's S-box output under that call's masks: mask variables), with the private
convention; subword_pat_t2 (AAPCS) runs them around sbox_masked_t2 as the rounds' driver runs
its callees (r4..r12 cleared on entry, the S-box's slots zeroed before its call), and
subword_pat_wipe_t2, called once a key by the same C function at the same depth, zeroes those
slots again.

The value-model variant's functions (_v_t2, VALUE_ONLY below) are the same values allocated
without the transition rule, and laid out for fewer instructions: the linear layers and key
additions take four slices at a time (slices 4..7 first, so that only t7 and g3 wait), the
correction words and the key shares by LDMIA (words 4..7) and LDMDB (words 0..3) from pointers
that their driver passes 16 bytes on (V_START), lr a tenth temporary where needed (saved, the
return through pc); the state words load in runs; the unpacking loads the state by one LDM.

Outside the model: the registers at the driver's entry (the C caller's), other buses,
glitches. tests/leak/check_lin_thumb.py repeats the check on the compiled objects with its own
interpreter.
"""
import re
import sys

import emit
from aes_thumb2 import cluster
from emit import M32, w_and, w_byte_ror, w_ror, w_shl, w_shr, w_xor

SBOX_H = None  # the texts of the inputs: aes_masked_sbox.h
SBOX_T2 = None  # and aes_masked_t2.h

# ---- the model: a word is 32 rows; each row an int over the variables ----
# variables: m0 (bits 0..31), m1 (32..63), the rk1 share (64..319), P (320..575, the masks
# the packed state arrives with), then secrets: the state (576..831), the round key (832..1087)
V_M0, V_M1, V_RK1, V_P, V_S, V_K = 0, 32, 64, 320, 576, 832
Q, C, RK0, RK1 = 'q', 'c', 'rk0', 'rk1'  # the pointer arguments (r0..r3)
IN, OUTP, R = 'in', 'out', 'r'  # packing's and unpacking's
MW, W, RND = 'mw', 'w', 'rnd'  # the default key schedule's SubWord trades' (tin, tout)
NMASK = 576
# The value-model variant's functions (name _v_t2, aes_masked.h): the same programs allocated
# without the transition rule (no clears, data left in registers), every value and the outputs
# still checked.
VALUE_ONLY = False


def w_var(base, k=0):
    return [1 << (base + 32 * k + i) for i in range(32)]


def w_const():
    return [0] * 32


def rank(rows):
    piv = {}
    rk = 0
    for r in rows:
        while r:
            h = r.bit_length() - 1
            if h not in piv:
                piv[h] = r
                rk += 1
                break
            r ^= piv[h]
    return rk


def indep(w):
    """Independent of the secrets: the secret part's image lies in the masks' part's. In the
    value model (VALUE_ONLY) bit by bit: every bit with a secret has a mask."""
    if not any(r >> NMASK for r in w):
        return True
    if VALUE_ONLY:
        return all(r & ((1 << NMASK) - 1) for r in w if r >> NMASK)
    return rank(w) == rank([r & ((1 << NMASK) - 1) for r in w])


def is_const(w):
    return not any(w)


def w_mask(p, m0, m1):
    """Pattern mask p (1 = m0, 2 = m1, 3 = m0 ^ m1)."""
    return w_xor(m0 if p & 1 else w_const(), m1 if p & 2 else w_const())


R1 = {0: lambda x: w_ror(x, 8), 1: lambda x: w_ror(w_byte_ror(x, 2), 8),
      2: lambda x: w_ror(w_byte_ror(x, 4), 8), 3: lambda x: w_ror(w_byte_ror(x, 6), 8)}
R2 = {0: lambda x: w_ror(x, 16), 1: lambda x: w_ror(w_byte_ror(x, 4), 16),
      2: lambda x: w_ror(x, 16), 3: lambda x: w_ror(w_byte_ror(x, 4), 16)}


def model_mc(q, k):
    n = [R1[k](x) for x in q]
    t = [w_xor(q[i], n[i]) for i in range(8)]
    out = []
    for b in range(8):
        o = w_xor(n[b], R2[k](t[b]))
        o = w_xor(o, t[7] if b == 0 else t[b - 1])
        if b in (1, 3, 4):
            o = w_xor(o, t[7])
        out.append(o)
    return out


def model_sr2(x):
    t = w_and(w_xor(w_shr(x, 4), x), 0x0f000f00)
    return w_xor(w_xor(x, t), w_shl(t, 4))


def patterns():
    src = SBOX_H
    pin = [int(re.search(r'#define BS_AES_MASKED_IN_%d (\d)' % b, src).group(1)) for b in range(8)]
    pout = [int(re.search(r'#define BS_AES_MASKED_OUT_%d (\d)' % b, src).group(1))
            for b in range(8)]
    return pin, pout


model_transpose = emit.transpose


def model_pack(x):
    x = model_transpose(x)
    return [x[(b >> 1) + 4 * (b & 1)] for b in range(8)]


def model_unpack(q):
    x = [None] * 8
    for b in range(8):
        x[(b >> 1) + 4 * (b & 1)] = q[b]
    return model_transpose(x)


def contexts(fn, same_masks=False):
    """Each context fn runs in: (name, memory {pointer: words}, the pointer written, the words
    it must hold at the end, the words exempt from the value test: the plaintext as loaded
    and the ciphertext as stored, inputs and outputs of the cipher)."""
    pin, pout = patterns()
    m0 = w_var(V_M0)
    m1 = m0 if same_masks else w_var(V_M1)
    mi = [w_mask(p, m0, m1) for p in pin]
    mo = [w_mask(p, m0, m1) for p in pout]
    s = [w_var(V_S, b) for b in range(8)]
    key = [w_var(V_K, b) for b in range(8)]
    r1 = [w_var(V_RK1, b) for b in range(8)]
    rk0 = [w_xor(key[b], r1[b]) for b in range(8)]
    r = [w_var(V_P, b) for b in range(8)]  # the eight words r (mask variables)
    if VALUE_ONLY and fn == 'pack':
        r = [r[0]] * 8  # the value-model variant's: one word v for all (aes_masked32.c)
    if VALUE_ONLY and fn == 'unpack':
        r = [w_ror(r[0], 8 * ((c >> 1) & 1)) for c in range(8)]  # v and ror(v, 8)
    if same_masks and fn in ('pack', 'unpack'):
        r = [w_const()] * 8  # their control: no packing masks
    out = []
    if fn in ('tin', 'tout'):
        # the default key schedule's SubWord (aes_masked32.c, subword_pat): the slices at bits
        # 0, 8, 16, 24 only; m0, m1 four independent uniform bits there (bits 0, 8, 16, 24 and
        # 1, 9, 17, 25 of one fresh word: modelled as independent variables, which they are)
        lsb = 0x01010101
        pm0 = w_and(w_var(V_M0), lsb)
        pm1 = pm0 if same_masks else w_and(w_var(V_M1), lsb)
        pmi = [w_mask(p, pm0, pm1) for p in pin]
        pmo = [w_mask(p, pm0, pm1) for p in pout]
        mw = [pm0, pm1, w_xor(pm0, pm1), None]  # (mw[3] = m0 | m1: the S-box's, not read here)
        if fn == 'tin':
            # the RotWord'd word's two shares in, the S-box's input pattern out; q[] holds
            # what the last call's S-box left there (its output, under that call's fresh masks,
            # which nothing here uses: mask variables) or zeros
            kw, s1 = w_var(V_K), w_var(V_RK1)
            oldq = [w_and(w_var(V_P, b), lsb) for b in range(8)]
            want = [w_xor(w_and(w_shr(kw, b), lsb), pmi[b]) for b in range(8)]
            out.append(('SubWord, trade in', {Q: oldq, MW: mw, W: [w_xor(kw, s1), s1]}, Q,
                        want, []))
        else:
            # the S-box's output (secrets, one per slice) under the output pattern out, two
            # shares in w[0] (and the fresh word r1 as share 1, which the C stores in w[1])
            sv = [w_and(w_var(V_S, b), lsb) for b in range(8)]
            r1 = w_const() if same_masks else w_var(V_RK1, 1)  # its control: r1 = 0
            kw, s1 = w_var(V_K), w_var(V_RK1)
            q = [w_xor(sv[b], pmo[b]) for b in range(8)]
            sw = w_const()
            for b in range(8):
                sw = w_xor(sw, w_shl(sv[b], b))
            out.append(('SubWord, trade out', {Q: q, MW: mw, W: [w_xor(kw, s1), s1], RND: [r1]},
                        W, [w_xor(sw, r1), s1], []))
        return out
    if fn.startswith('lin'):
        k = int(fn[-1])
        q = [w_xor(s[b], mo[b]) for b in range(8)]
        mcm = model_mc(mo, k)
        c = [w_xor(mcm[b], mi[b]) for b in range(8)]
        mcs = model_mc(s, k)
        want = [w_xor(w_xor(mcs[b], key[b]), mi[b]) for b in range(8)]
        out.append(('MixColumns %d' % k, {Q: q, C: c, RK0: rk0, RK1: r1}, Q, want, []))
    elif fn == 'ark':
        p = [w_var(V_P, b) for b in range(8)]
        q = [w_xor(s[b], p[b]) for b in range(8)]
        c = [w_xor(p[b], mi[b]) for b in range(8)]
        want = [w_xor(w_xor(s[b], key[b]), mi[b]) for b in range(8)]
        out.append(('first key addition', {Q: q, C: c, RK0: rk0, RK1: r1}, Q, want, []))
        q = [w_xor(s[b], mo[b]) for b in range(8)]
        c = [w_xor(mo[b], model_sr2(p[b])) for b in range(8)]
        want = [w_xor(w_xor(s[b], key[b]), model_sr2(p[b])) for b in range(8)]
        out.append(('last key addition', {Q: q, C: c, RK0: rk0, RK1: r1}, Q, want, []))
    elif fn == 'pack':
        # the plaintext words (secret variables in the state's place), masked by r, packed
        pt = s
        want = model_pack([w_xor(pt[i], r[i]) for i in range(8)])
        out.append(('packing', {Q: [w_const()] * 8, IN: pt, R: r}, Q, want, pt))
    else:
        # after the last key addition: the ciphertext state masked by SR^2(P), P = packed r
        pr = model_pack(r)
        q = [w_xor(s[b], model_sr2(pr[b])) for b in range(8)]
        ct = model_unpack([model_sr2(x) for x in s])
        out.append(('unpacking', {OUTP: [None] * 8, Q: q, R: r}, OUTP, ct, ct))
    return out


# ---- the program: values are (vid, rot): the word is ror(register of vid, rot) ----
class Prog:
    def __init__(self):
        self.ops = []  # (kind, args): kind in ld, eor, andi, ror, st

    def op(self, kind, *args):
        self.ops.append((kind, args))
        return len(self.ops) - 1

    def ld(self, ptr, i):
        return (self.op('ld', ptr, i), 0)

    def ldm(self, ptr, i, k):
        """Words i .. i + k - 1 through ptr in one LDMIA with writeback (the value-model
        variant's): the pointer moves on by 4 k bytes, so each LDM through it starts where the
        last one ended."""
        p = self.op('ldm', ptr, i, k)
        return [(p, 0)] + [(self.op('ldmx', p, j), 0) for j in range(1, k)]

    def eor(self, a, b):
        if b[1] == 0 and a[1] != 0:
            a, b = b, a
        return (self.op('eor', a[0], b[0], (b[1] - a[1]) % 32), a[1])

    def andi(self, a, m):
        mm = ((m << a[1]) | (m >> (32 - a[1]))) & M32 if a[1] else m
        if not t2_imm(mm):
            assert a[1] and t2_imm(m), hex(m)
            a = (self.op('ror', a[0], a[1]), 0)
            mm = m
        return (self.op('andi', a[0], mm), a[1])

    def st(self, a, i, ptr=Q):
        if a[1]:
            a = (self.op('ror', a[0], a[1]), 0)
        self.op('st', a[0], i, ptr)

    def eorsh(self, a, b, kind, n):
        """a ^ (b lsr/lsl n), both unrotated."""
        assert a[1] == 0 and b[1] == 0
        return (self.op('eorsh', a[0], b[0], kind, n), 0)


def t2_imm(v):
    """Whether v is a Thumb-2 modified immediate."""
    b, c = v & 0xff, (v >> 8) & 0xff
    if v in (b, b * 0x00010001, b * 0x01010101, c * 0x01000100):
        return True
    for k in range(8, 32):
        x = ((v << k) | (v >> (32 - k))) & M32
        if 0x80 <= x < 0x100:
            return True
    return False


def rot(a, n):
    return (a[0], (a[1] + n) % 32)


def byte_ror(P, x, j):
    lo2 = 0x01010101 * ((1 << j) - 1)
    t = P.andi(x, ~lo2 & M32)
    u = P.andi(x, lo2)
    return rot(P.eor(t, rot(u, 24)), j)


def r1(P, x, k):
    return rot(x if k == 0 else byte_ror(P, x, 2 * k), 8)


def r2(P, x, k):
    return rot(x if k in (0, 2) else byte_ror(P, x, 4), 16)




def ark_one(P, v, b):
    """v ^ c[b] ^ rk0[b] ^ rk1[b], stored to q[b]; the three loads first, next to each other."""
    c, k0, k1 = P.ld(C, b), P.ld(RK0, b), P.ld(RK1, b)
    P.st(P.eor(P.eor(P.eor(c, v), k0), k1), b)


def ark_group(P, g, v):
    """v[0..3] ^ c[g..g+3] ^ rk0[g..g+3] ^ rk1[g..g+3], each three by one LDMIA, stored to
    q[g..g+3] in a row (1 + 4 cycles)."""
    c = P.ldm(C, g, 4)
    x = [P.eor(c[j], v[j]) for j in range(4)]
    k0 = P.ldm(RK0, g, 4)
    x = [P.eor(x[j], k0[j]) for j in range(4)]
    k1 = P.ldm(RK1, g, 4)
    x = [P.eor(x[j], k1[j]) for j in range(4)]
    for j in range(4):
        P.st(x[j], g + j)


def transpose_prog(P, x):
    x = list(x)
    for m, n, pairs in ((0x55555555, 1, ((4, 0), (5, 1), (6, 2), (7, 3))),
                        (0x33333333, 2, ((1, 0), (3, 2), (5, 4), (7, 6))),
                        (0x0f0f0f0f, 4, ((2, 0), (3, 1), (6, 4), (7, 5)))):
        for i, j in pairs:
            t = P.andi(P.eorsh(x[i], x[j], 'lsr', n), m)
            x[i], x[j] = P.eor(x[i], t), P.eorsh(x[j], t, 'lsl', n)
    return x


def program_v(fn):
    """The value-model variant's linear layers and key additions: the values of program()'s
    (each output c ^ v, then ^ rk0, then ^ rk1, v the state or its MixColumns), four slices at
    a time, so that the correction words and the key shares come in by LDMIA, four words an
    instruction (1 + 4 cycles, as four LDRs in a row), the state words of ark too (its pointer
    put back at the end)."""
    P = Prog()
    if fn == 'ark':
        for g in (0, 4):
            ark_group(P, g, P.ldm(Q, g, 4))
        return P
    k = int(fn[-1])

    def slice_(b, qb):
        nb = r1(P, qb, k)
        tb = P.eor(qb, nb)
        return tb, P.eor(nb, r2(P, tb, k))
    # slices 4..7 first, so that only t7 and g3 (slice 3's n ^ R2(t)) wait for slices 0..3;
    # the state words loaded in runs (a load after a load or store costs 1 cycle, else 2):
    # five at the start, three after the first four stores
    qs = {b: P.ld(Q, b) for b in (3, 7, 4, 5, 6)}
    t3, g3 = slice_(3, qs[3])
    t7, g7 = slice_(7, qs[7])
    t, g = {3: t3, 7: t7}, {3: g3, 7: g7}
    for grp in (4, 0):
        if grp == 0:
            qs.update((b, P.ld(Q, b)) for b in (0, 1, 2))
        o = []
        for b in range(grp, grp + 4):
            if b not in t:
                t[b], g[b] = slice_(b, qs[b])
            first = t[(b - 1) % 8]
            if b in (1, 3, 4):
                first = P.eor(first, t7)
            o.append(P.eor(first, g[b]))
        ark_group(P, grp, o)
    return P


def program_trade(fn):
    """The default key schedule's SubWord around the encryption's S-box (aes_masked32.c's
    subword_pat): tin, q[b] = ((w0 >> b) & L) ^ (((w1 >> b) & L) ^ mi[b]), the share-1 slice
    traded for the input pattern's mask first (a mask-only word), then added to share 0's;
    tout, w[0] = sum over b of (q[b] ^ (((r1 >> b) & L) ^ mo[b])) << b, the output pattern
    traded for the fresh word r1's bits (L = 0x01010101; every word at bits 8j only, so no AND
    after the XORs: the S-box computes bitwise on words that are zero elsewhere)."""
    P = Prog()
    pin, pout = patterns()
    lsb = 0x01010101
    if fn == 'tin':
        w0, w1 = P.ld(W, 0), P.ld(W, 1)
        m = [P.ld(MW, i) for i in range(3)]
        for b in range(8):
            t = P.eor(P.andi(rot(w1, b), lsb), m[pin[b] - 1])
            P.st(P.eor(P.andi(rot(w0, b), lsb), t), b)
        return P
    r1 = P.ld(RND, 0)
    m = [P.ld(MW, i) for i in range(3)]
    acc = None
    for b in range(8):
        t = P.eor(P.andi(rot(r1, b), lsb), m[pout[b] - 1])
        x = P.eor(P.ld(Q, b), t)
        if x[1]:
            x = (P.op('ror', x[0], x[1]), 0)
        acc = x if acc is None else P.eorsh(acc, x, 'lsl', b)
    P.st(acc, 0, W)
    return P


def program(fn):
    if VALUE_ONLY and (fn == 'ark' or fn.startswith('lin')):
        return program_v(fn)
    if fn in ('tin', 'tout'):
        return program_trade(fn)
    P = Prog()
    if fn == 'pack' and VALUE_ONLY:
        rv = P.ld(R, 0)  # the value-model variant's one mask word
        x = [P.eor(P.ld(IN, c), rv) for c in range(8)]
        x = transpose_prog(P, x)
        for b in range(8):
            P.st(x[(b >> 1) + 4 * (b & 1)], b)
        return P
    if fn == 'pack':
        x = [P.eor(P.ld(IN, c), P.ld(R, c)) for c in range(8)]
        x = transpose_prog(P, x)
        for b in range(8):
            P.st(x[(b >> 1) + 4 * (b & 1)], b)
        return P
    if fn == 'unpack':
        x = [None] * 8
        # the value-model variant's: the state by one LDM (1 + 8 cycles, where eight loads
        # between the SR^2 steps took two each)
        qv = P.ldm(Q, 0, 8) if VALUE_ONLY else None
        for b in range(8):
            v = qv[b] if VALUE_ONLY else P.ld(Q, b)
            t = P.andi(P.eorsh(v, v, 'lsr', 4), 0x0f000f00)
            x[(b >> 1) + 4 * (b & 1)] = P.eorsh(P.eor(v, t), t, 'lsl', 4)
        x = transpose_prog(P, x)
        if VALUE_ONLY:
            rv = P.ld(R, 0)  # v; the words 2, 3, 6, 7 take ror(v, 8)
            for c in range(8):
                P.st(P.eor(x[c], rot(rv, 8 * ((c >> 1) & 1))), c, OUTP)
            return P
        for c in range(8):
            P.st(P.eor(x[c], P.ld(R, c)), c, OUTP)
        return P
    if fn == 'ark':
        for b in range(8):
            ark_one(P, P.ld(Q, b), b)
        return P
    k = int(fn[-1])
    q7 = P.ld(Q, 7)
    n7 = r1(P, q7, k)
    t7 = P.eor(q7, n7)
    tprev = t7
    for b in range(8):
        qb, nb, tb = (q7, n7, t7) if b == 7 else (None, None, None)
        if b != 7:
            qb = P.ld(Q, b)
            nb = r1(P, qb, k)
            tb = P.eor(qb, nb)
        g = P.eor(nb, r2(P, tb, k))
        first = tprev
        if b in (1, 3, 4):
            first = P.eor(first, t7)
        ark_one(P, P.eor(first, g), b)
        tprev = tb
    return P


# ---- transition-aware register allocation ----
REGS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12']
PTRS = {'lin0': {Q: 'r0', C: 'r1', RK0: 'r2', RK1: 'r3'}, 'pack': {Q: 'r0', IN: 'r1', R: 'r2'},
        'unpack': {OUTP: 'r0', Q: 'r1', R: 'r2'},
        'tin': {Q: 'r0', MW: 'r1', W: 'r2'}, 'tout': {Q: 'r0', MW: 'r1', W: 'r2', RND: 'r3'}}
for _k in ('lin1', 'lin2', 'lin3', 'ark'):
    PTRS[_k] = PTRS['lin0']
AAPCS = ('pack', 'unpack')  # called from C: they save r4..r11 and start from the C's registers
ORDER = ['r12', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r0', 'r1', 'r2']


def eval_ops(P, ctx):
    """The word each op defines, in one context."""
    mem = ctx[1]
    val = {}
    for i, (kind, a) in enumerate(P.ops):
        if kind == 'ld':
            val[i] = mem[a[0]][a[1]]
        elif kind == 'ldm':
            val[i] = mem[a[0]][a[1]]
        elif kind == 'ldmx':
            ptr, first = P.ops[a[0]][1][:2]
            val[i] = mem[ptr][first + a[1]]
        elif kind == 'eor':
            val[i] = w_xor(val[a[0]], w_ror(val[a[1]], a[2]))
        elif kind == 'eorsh':
            sh = w_shr if a[2] == 'lsr' else w_shl
            val[i] = w_xor(val[a[0]], sh(val[a[1]], a[3]))
        elif kind == 'andi':
            val[i] = w_and(val[a[0]], a[1])
        elif kind == 'ror':
            val[i] = w_ror(val[a[0]], a[1])
    return val


# The value-model driver's convention for its linear layers and key additions: the correction
# words' and the key shares' pointers (r1..r3) 16 bytes on (at word 4), so that LDMIA (words
# 4..7) and LDMDB (words 0..3) reach both halves without moving them; the state's (r0) at q.
V_START = {C: 16, RK0: 16, RK1: 16}
V_START_FNS = ('lin0', 'lin1', 'lin2', 'lin3', 'ark')


def ldm_modes(P, start):
    """Each LDM's addressing mode (ia, ia!, db, db!: increment after or decrement before, with
    or without writeback) and the pointer's position after it, chosen so that every LDM
    through a pointer finds its words, with the fewest pointers left moved at the end."""
    seqs = {}
    for p, (kind, a) in enumerate(P.ops):
        if kind == 'ldm':
            seqs.setdefault(a[0], []).append((p, 4 * a[1], 4 * a[2]))
    out = {}
    for pt, seq in seqs.items():
        best = None

        def dfs(j, pos, acc):
            nonlocal best
            if j == len(seq):
                cost = (pos != start.get(pt, 0), sum(m.endswith('!') for m, _ in acc))
                if best is None or cost < best[0]:
                    best = (cost, list(acc))
                return
            p, lo, n = seq[j]
            opts = []
            if lo == pos:
                opts += [('ia', pos), ('ia!', pos + n)]
            if lo + n == pos:
                opts += [('db', pos), ('db!', pos - n)]
            for m, np in opts:
                dfs(j + 1, np, acc + [(m, np)])
        dfs(0, start.get(pt, 0), [])
        if best is None:
            raise SystemExit('%s: no addressing for its LDMs' % pt)
        for (p, _, _), mode in zip(seq, best[1]):
            out[p] = mode
    return out


def allocate(P, fn):
    ctxs = contexts(fn)
    vals = [eval_ops(P, c) for c in ctxs]
    ptr = PTRS[fn]
    ZERO, UNKNOWN = None, 'unknown'

    def word(ci, x):
        if isinstance(x, tuple):  # ('mem', pointer, i): a word as the function found it
            return ctxs[ci][1][x[1]][x[2]]
        return vals[ci][x]

    def ok(old, new):
        """old ^ new independent in every context (old, new: op ids, memory words, ZERO;
        UNKNOWN, the C's registers at an AAPCS function's entry, takes nothing but ZERO)."""
        if VALUE_ONLY:
            return True
        if old is UNKNOWN:
            return new is ZERO
        if old is ZERO or new is ZERO or old == new:
            return True
        for ci in range(len(ctxs)):
            wo, wn = word(ci, old), word(ci, new)
            if wo is None:
                return True  # the caller's output buffer (the ciphertext as stored)
            if not indep(w_xor(wo, wn)):
                return False
        return True

    uses = {}
    for p, (kind, a) in enumerate(P.ops):
        if kind in ('eor', 'eorsh'):
            srcs = (a[0], a[1])
        elif kind in ('andi', 'ror', 'st'):
            srcs = (a[0],)
        else:
            srcs = ()
        for v in srcs:
            uses.setdefault(v, []).append(p)
    last_use = {v: max(u) for v, u in uses.items()}
    regs_all = REGS + (['lr'] if VALUE_ONLY and fn in V_START_FNS else [])
    content = {r: (UNKNOWN if fn in AAPCS else ZERO) for r in regs_all}
    for r in ptr.values():
        content[r] = ZERO
    reg_of = {}
    free = [r for r in regs_all if r not in ptr.values()]
    mem = {}
    lines = []
    nclear = [0, 0, 0]  # clears in the body (the C's registers among them), q-word clears

    def clear(r):
        lines.append('mov%s %s, #0' % ('s' if r in ('r3', 'r4', 'r5', 'r6', 'r7') else '', r))
        content[r] = ZERO

    def get_reg(v, prefer):
        # the dying operands' registers first, then the fewest callee-saved registers
        free.sort(key=(ORDER + ['lr']).index)
        for r in prefer + free:
            if r in free and ok(content[r], v):
                free.remove(r)
                return r
        if not free:
            raise SystemExit('%s: out of registers' % fn)
        r = free.pop(0)
        nclear[0] += 1
        nclear[2] += content[r] is UNKNOWN
        clear(r)
        return r

    # where each pointer points, in bytes from its array's start: V_START's (the value-model
    # driver's convention) at entry, then moved by the LDMs' writebacks; loads and stores
    # address through it relative to that
    start = dict(V_START) if VALUE_ONLY and fn in V_START_FNS else {}
    pos = dict(start)
    modes = ldm_modes(P, start)

    def at(pt, i):
        return '[%s, #%d]' % (ptr[pt], 4 * i - pos.get(pt, 0))

    for p, (kind, a) in enumerate(P.ops):
        if kind == 'ldmx':
            continue  # its register came with its LDM
        if kind == 'ldm':
            pt, i, k = a
            assert VALUE_ONLY
            regs = sorted((get_reg(p + j, []) for j in range(k)), key=regs_all.index)
            for j, r in enumerate(regs):
                reg_of[p + j] = r
                content[r] = p + j
            mode, pos[pt] = modes[p]
            lines.append('ldm%s %s%s, {%s}' % (mode.rstrip('!'), ptr[pt],
                                               '!' if mode.endswith('!') else '', ', '.join(regs)))
            continue
        if kind == 'st':
            src, i, pt = reg_of[a[0]], a[1], a[2]
            old = mem.get((pt, i), ('mem', pt, i))
            if not ok(old, a[0]):
                lines.append('str %s, %s' % (ptr[pt], at(pt, i)))
                nclear[1] += 1
            lines.append('str %s, %s' % (src, at(pt, i)))
            mem[(pt, i)] = a[0]
            if last_use[a[0]] == p:
                free.append(reg_of.pop(a[0]))
            continue
        srcs = [a[0], a[1]] if kind in ('eor', 'eorsh') else [a[0]] if kind in ('andi', 'ror') \
            else []
        dying = [reg_of[v] for v in dict.fromkeys(srcs) if last_use.get(v) == p]
        sregs = [reg_of[v] for v in srcs]
        for v in dict.fromkeys(srcs):
            if last_use.get(v) == p:
                free.append(reg_of.pop(v))
        if p not in last_use:
            raise SystemExit('%s: op %d unused' % (fn, p))
        r = get_reg(p, dying)
        reg_of[p] = r
        content[r] = p
        if kind == 'ld':
            lines.append('ldr %s, %s' % (r, at(a[0], a[1])))
        elif kind == 'eor':
            lines.append('eor %s, %s, %s%s' % (r, sregs[0], sregs[1],
                                               ', ror #%d' % a[2] if a[2] else ''))
        elif kind == 'eorsh':
            lines.append('eor %s, %s, %s, %s #%d' % (r, sregs[0], sregs[1], a[2], a[3]))
        elif kind == 'andi':
            lines.append('and %s, %s, #0x%08x' % (r, sregs[0], a[1]))
        elif kind == 'ror':
            lines.append('ror %s, %s, #%d' % (r, sregs[0], a[1]))
    # the state pointer back where the driver expects it (the others stay moved on: the driver
    # knows by how much)
    for pt in pos:
        if pos[pt] != start.get(pt, 0):
            d = pos[pt] - start.get(pt, 0)
            lines.append('%s %s, %s, #%d' % ('sub' if d > 0 else 'add', ptr[pt], ptr[pt], abs(d)))
    # on the way out, every register that holds data cleared: the next generated function starts
    # from registers without data, as its model assumes
    nexit = 0
    for r in REGS if not VALUE_ONLY else ():
        if content[r] not in (ZERO, UNKNOWN):
            clear(r)
            nexit += 1
    return lines, nclear[:2] + [nexit, nclear[2]]


def used_regs(lines):
    import re
    return sorted({int(r[1:]) if r != 'lr' else 14 for l in lines
                   for r in re.findall(r'\b(r\d+|lr)\b', l)})


# ---- the emitted code run on the model ----
def simulate(lines, fn, same_masks=False):
    """Runs the instructions on the model in every context: every value and transition
    independent (returns the number of failures), the outputs those of the direct model, no
    data left in a register. same_masks: m1 = m0 (the control: it must fail). The plaintext
    as loaded and the ciphertext as stored are exempt from the value test (inputs and outputs),
    not from the transitions; the caller's output buffer's old contents are not modelled; at
    an AAPCS function's entry the C's registers (U) may only be cleared."""
    import re
    bad = 0
    nvals = 0
    ptr = PTRS[fn]
    for name, memory, outp, want, exempt in contexts(fn, same_masks):
        mem = {ptr[k]: list(v) for k, v in memory.items()}
        reg = {r: ('U' if fn in AAPCS and r not in ptr.values() else w_const())
               for r in REGS + ['lr']}

        def rec(old, new):
            nonlocal bad, nvals
            nvals += 1
            if VALUE_ONLY:
                bad += not indep(new) and new not in exempt
                return
            if isinstance(old, str):
                bad += any(new)
                return
            # a transition from or to a constant is the other side's value, tested as such
            if (not indep(new) and new not in exempt) or (
                    old is not None and any(old) and any(new) and not indep(w_xor(old, new))):
                bad += 1

        def val(r):
            if isinstance(reg[r], str):
                raise SystemExit('%s: the C\'s %s read' % (fn, r))
            return reg[r]
        # where each pointer points, in words from its array's start (V_START's convention)
        start = {ptr[k]: (V_START.get(k, 0) // 4 if VALUE_ONLY and fn in V_START_FNS else 0)
                 for k in ptr}
        moved = dict(start)
        for line in lines:
            ins, rest = line.split(' ', 1)
            m = re.match(r'ldm(ia|db) (\w+)(!?), \{(.*)\}$', line)
            if m:
                base = m.group(2)
                rl = [x.strip() for x in m.group(4).split(',')]
                order = REGS + ['lr']
                assert [order.index(r) for r in rl] == sorted(order.index(r) for r in rl)
                lo = moved[base] - (len(rl) if m.group(1) == 'db' else 0)
                for j, r in enumerate(rl):
                    v = mem[base][lo + j]
                    rec(reg[r], v)
                    reg[r] = v
                if m.group(3):
                    moved[base] += len(rl) if m.group(1) == 'ia' else -len(rl)
                continue
            m = re.match(r'(sub|add) (\w+), (\w+), #(\d+)$', line)
            if m and m.group(2) == m.group(3) and m.group(2) in moved:
                moved[m.group(2)] += int(m.group(4)) // 4 * (-1 if m.group(1) == 'sub' else 1)
                continue
            a = [x.strip() for x in rest.split(',')]
            if ins in ('ldr', 'str'):
                base, off = re.match(r'\[(\w+), #(-?\d+)\]', ', '.join(a[1:])).groups()
                off = int(off) // 4 + moved[base]
                if ins == 'ldr':
                    v = mem[base][off]
                    rec(reg[a[0]], v)
                    reg[a[0]] = v
                else:
                    v = w_const() if a[0] in ptr.values() else val(a[0])
                    rec(mem[base][off], v)
                    mem[base][off] = v
            elif ins == 'eor':
                y = val(a[2])
                if len(a) == 4:
                    k, n = a[3].split(' #')
                    y = {'ror': w_ror, 'lsr': w_shr, 'lsl': w_shl}[k](y, int(n))
                v = w_xor(val(a[1]), y)
                rec(reg[a[0]], v)
                reg[a[0]] = v
            elif ins == 'and':
                v = w_and(val(a[1]), int(a[2][1:], 16))
                rec(reg[a[0]], v)
                reg[a[0]] = v
            elif ins == 'ror':
                v = w_ror(val(a[1]), int(a[2][1:]))
                rec(reg[a[0]], v)
                reg[a[0]] = v
            elif ins in ('mov', 'movs'):
                rec(reg[a[0]], w_const())
                reg[a[0]] = w_const()
            else:
                raise SystemExit('simulate: %r' % line)
        if moved != start:
            raise SystemExit('%s (%s): a pointer moved at exit' % (fn, name))
        if not same_masks and mem[ptr[outp]] != want:
            raise SystemExit('%s (%s): output wrong' % (fn, name))
        if VALUE_ONLY and fn == 'unpack' and any(any(w) for w in mem[ptr[Q]]):
            raise SystemExit('%s (%s): q[] not zeroed at exit' % (fn, name))
        if not same_masks and not VALUE_ONLY and any(
                not isinstance(reg[r], str) and any(reg[r]) for r in REGS):
            raise SystemExit('%s (%s): data left in a register at exit' % (fn, name))
    return nvals, bad


def cycles(lines):
    """The cycle model of embedded/bench/run.py on straight-line code."""
    c, prev = 0, False
    for l in lines:
        mem = l.startswith(('ldr', 'str'))
        c += 1 if not mem or prev else 2
        prev = mem
    return c


FUNCS = ['lin0', 'lin1', 'lin2', 'lin3', 'ark', 'pack', 'unpack']
FUNCS_T = ['tin', 'tout']  # the default key schedule's SubWord trades (transition rule too)
CNAME = {'tin': 'subword_tin_t2', 'tout': 'subword_tout_t2',
         'lin0': 'lin_masked_t2_0', 'lin1': 'lin_masked_t2_1', 'lin2': 'lin_masked_t2_2',
         'lin3': 'lin_masked_t2_3', 'ark': 'ark_masked_t2', 'pack': 'pack_masked_t2',
         'unpack': 'unpack_masked_t2'}
ARGS = {'pack': '(uint32_t q[8] __attribute__((unused)), const uint8_t *in __attribute__((unused)),'
                '\n    const uint32_t r[8] __attribute__((unused)))',
        'unpack': '(uint8_t *out __attribute__((unused)), const uint32_t q[8] '
                  '__attribute__((unused)),\n    const uint32_t r[8] __attribute__((unused)))'}
# aes_masked32.c's call_masks, byte offsets (the C checks them with static assertions)
CM = {'MW': 0, 'IN': 48, 'D': 80, 'LAST': 208}


def sbox_slots(value=False):
    """The S-box's stack slots (core/aes/aes_masked_t2.h, generated before this file), as
    offsets from the driver's sp at its call: below its push {lr} and its frame. value: the
    value-model S-box's."""
    cut = SBOX_T2.index('\nsbox_masked_v_t2(')
    src = SBOX_T2[cut:] if value else SBOX_T2[:cut]
    assert re.search(r'"push \{lr\}\\n"\s*"sub sp, sp, #(\d+)', src), 'S-box prologue'
    frame = int(re.search(r'"push \{lr\}\\n"\s*"sub sp, sp, #(\d+)', src).group(1))
    offs = sorted({int(x) for x in re.findall(r'\[sp, #(\d+)\]', src)})
    return [-4 - frame + o for o in offs]


def driver(nr):
    """Rounds 0..nr on q: the first key addition, nr - 1 rounds of S-box, MixColumns and key
    addition, the last S-box and key addition. The callees keep nothing across calls (a
    private convention: the S-box saves only lr, the linear layers nothing), so the pointers
    live in a 16-byte frame and are loaded again before each call."""
    # the C's registers cleared first: the callees' models start from registers without data;
    # then the S-box's stack slots (below this frame, where its first call will find them)
    # zeroed with r4, so that its first call finds zeros there as its models assume (what the C
    # left there, the RNG callback's or call_masks_init's locals, would otherwise be the old
    # side of its first stores' transitions)
    body = ['push {r4-r11, lr}', 'sub sp, sp, #20', 'stm sp, {r0, r1, r2, r3}'] + [
        '%s r%d, #0' % ('movs' if r < 8 else 'mov', r) for r in range(4, 13)] + [
        'str r4, [sp, #-%d]' % -o for o in sbox_slots()] + [
        'add r1, r1, #%d' % CM['IN'], 'bl ark_masked_t2']
    for i in range(1, nr + 1):
        body += ['ldm sp, {r0, r1}'] + (['add r1, r1, #%d' % CM['MW']] if CM['MW'] else []) + [
            'bl sbox_masked_t2', 'ldm sp, {r0, r1, r2, r3}']
        c = CM['LAST'] if i == nr else CM['D'] + 32 * (i % 4)
        body += ['add r1, r1, #%d' % c, 'add r2, r2, #%d' % (32 * i),
                 'add r3, r3, #%d' % (32 * i)]
        body.append('bl %s' % (CNAME['ark'] if i == nr else CNAME['lin%d' % (i % 4)]))
    return body + ['add sp, sp, #20', 'pop {r4-r11, pc}']


def driver_subword():
    """subword_pat_t2(q, mw, w, rnd) (AAPCS, called by aes_masked32.c's default key schedule):
    the trade in, the encryption's S-box, the trade out, with the rounds driver's convention:
    the C's registers r4..r12 cleared on entry (the callees' models start from registers
    without data; r0..r3 are the pointers), the S-box's stack slots zeroed before its call
    (what the C left below, an RNG callback's locals, would be the old side of its first
    stores), the pointers kept in a 16-byte frame."""
    return (['push {r4-r11, lr}', 'sub sp, sp, #20', 'stm sp, {r0, r1, r2, r3}'] +
            ['%s r%d, #0' % ('movs' if r < 8 else 'mov', r) for r in range(4, 13)] +
            ['str r4, [sp, #-%d]' % -o for o in sbox_slots()] +
            ['bl %s' % CNAME['tin'], 'ldm sp, {r0, r1}', 'bl sbox_masked_t2',
             'ldm sp, {r0, r1, r2, r3}', 'bl %s' % CNAME['tout'], 'add sp, sp, #20',
             'pop {r4-r11, pc}'])


def wipe_subword():
    """subword_pat_wipe_t2(): the S-box's stack slots zeroed where subword_pat_t2's call put
    them, called once a key by the same C function at the same stack depth (the last call's
    values, under masks that the C keeps in mw until it wipes them, are not left behind)."""
    return (['push {r4-r11, lr}', 'sub sp, sp, #20', 'movs r4, #0'] +
            ['str r4, [sp, #-%d]' % -o for o in sbox_slots()] +
            ['add sp, sp, #20', 'pop {r4-r11, pc}'])


def wipe_q(lines):
    """The value-model unpacking's last instructions: zero over q[] once the ciphertext words
    are stored. q holds the state after the last key addition under masks computed from v, and
    cm (in the caller's frame, not wiped) holds v: together they give the ciphertext (H, E_K(J0)
    or keystream), so q must not outlive the call. r3 is free once the stores are done (only
    stores close the program); q's pointer r1 must be intact."""
    q = PTRS['unpack'][Q]
    assert not any(re.match(r'(?!str|ldmia %s,)\w+ %s,' % (q, q), l) for l in lines), \
        'unpacking writes %s' % q
    assert lines[-8:] == [l for l in lines[-8:] if l.startswith('str ')], 'unpacking ends in stores'
    return ['movs r3, #0'] + ['str r3, [%s, #%d]' % (q, 4 * b) for b in range(8)]


def vname(fn):
    return CNAME[fn].replace('_t2', '_v_t2')


def driver_v(nr):
    """The value-model variant's rounds: driver()'s calls with sbox_masked_v_t2, without the
    clears (no transition is claimed there)."""
    # the key shares' pointers kept 16 bytes on (V_START: the linear layers and key additions
    # reach words 0..3 and 4..7 by LDMDB and LDMIA from there), the correction words' likewise
    body = ['push {r4-r11, lr}', 'sub sp, sp, #20', 'add r2, r2, #%d' % V_START[RK0],
            'add r3, r3, #%d' % V_START[RK1], 'stm sp, {r0, r1, r2, r3}',
            'add r1, r1, #%d' % (CM['IN'] + V_START[C]), 'bl %s' % vname('ark')]
    prev = CM['IN'] + V_START[C]
    for i in range(1, nr + 1):
        # the linear layers keep r0 (q) and r1 (their c): r1 back to the masks mw
        body += ['sub r1, r1, #%d' % (prev - CM['MW'])] if prev != CM['MW'] else []
        body += ['bl sbox_masked_v_t2', 'ldm sp, {r0, r1, r2, r3}']
        c = (CM['LAST'] if i == nr else CM['D'] + 32 * (i % 4)) + V_START[C]
        body += ['add r1, r1, #%d' % c, 'add r2, r2, #%d' % (32 * i),
                 'add r3, r3, #%d' % (32 * i)]
        body.append('bl %s' % (vname('ark') if i == nr else vname('lin%d' % (i % 4))))
        prev = c
    # the S-box's slots zeroed on the way out (its last call's spills: values beside the masks
    # in cm); q, the state masked by masks computed from v, is zeroed by the unpacking
    # (wipe_q), so the call leaves masks only in memory (cm, which aes_masked32.c does not wipe)
    body += ['movs r4, #0'] + ['str r4, [sp, #-%d]' % -o for o in sbox_slots(value=True)]
    return body + ['add sp, sp, #20', 'pop {r4-r11, pc}']


def generate(sbox_h, sbox_t2):
    global SBOX_H, SBOX_T2
    SBOX_H, SBOX_T2 = sbox_h, sbox_t2
    out = []
    w = out.append
    stats = []
    bodies = {}
    for fn in FUNCS + FUNCS_T:
        P = program(fn)
        lines, (nclear, nqclear, nexit, ncclear) = allocate(P, fn)
        # loads and stores moved into shared gaps (as in aes_masked_thumb2.py: no move crosses
        # an instruction on its registers or memory word, so the transitions stay the same
        # ones; simulated again below)
        lines = cluster(lines)
        nvals, bad = simulate(lines, fn)
        if bad:
            raise SystemExit('%s: %d values or transitions depend on the secrets' % (fn, bad))
        _, cbad = simulate(lines, fn, same_masks=True)
        if not cbad:
            raise SystemExit('%s: the control (m1 = m0, or r = 0) passes' % fn)
        if fn in AAPCS:
            save = ['r%d' % r for r in used_regs(lines) if 4 <= r <= 11]
            bodies[fn] = ['push {%s}' % ', '.join(save)] + lines + [
                'pop {%s}' % ', '.join(save), 'bx lr']
        else:
            bodies[fn] = lines + ['bx lr']
        stats.append((fn, len(lines) + 1, cycles(lines), nclear, nqclear, nexit, nvals, cbad,
                      ncclear))
    global VALUE_ONLY
    vstats = []
    VALUE_ONLY = True
    try:
        for fn in FUNCS:
            P = program(fn)
            lines = cluster(allocate(P, fn)[0])
            if fn == 'unpack':
                lines += wipe_q(lines)
            nvals, bad = simulate(lines, fn)
            if bad:
                raise SystemExit('%s (value model): %d values depend on the secrets' % (fn, bad))
            _, cbad = simulate(lines, fn, same_masks=True)
            if not cbad:
                raise SystemExit('%s (value model): the control passes' % fn)
            if fn in AAPCS:
                save = ['r%d' % r for r in used_regs(lines) if 4 <= r <= 11]
                bodies[vname(fn)] = (['push {%s}' % ', '.join(save)] if save else []) + lines + (
                    ['pop {%s}' % ', '.join(save)] if save else []) + ['bx lr']
            elif any(re.search(r'\blr\b', l) for l in lines):
                # lr taken as a temporary (the tenth): saved, and the return through pc
                bodies[vname(fn)] = ['push {lr}'] + lines + ['pop {pc}']
            else:
                bodies[vname(fn)] = lines + ['bx lr']
            vstats.append((vname(fn), len(bodies[vname(fn)]), nvals, cbad))
    finally:
        VALUE_ONLY = False
    w('/*')
    w(' * aes_masked_lin_t2.h: generated by embedded/gen/aes_masked_lin_thumb2.py (do not edit;')
    w(' * see there for the model). The rounds of aes_masked32.c\'s masked AES on Cortex-M3/M4:')
    w(' * rounds_masked_t2_10 / _14 (q, cm, rk0, rk1) run AES-128 / AES-256\'s rounds on the packed')
    w(' * state q with the call\'s masks cm (struct call_masks) and the round-key shares, calling')
    w(' * the generated S-box (aes_masked_t2.h) and the linear layers below with a private')
    w(' * convention (the callees save nothing but the S-box\'s lr). lin_masked_t2_K(q, c, rk0,')
    w(' * rk1) is q = MixColumns_K(q) ^ c ^ rk0 ^ rk1, ark_masked_t2 is q ^= c ^ rk0 ^ rk1: the same')
    w(' * values as the C (MC_MASKED, ark_masked), allocated so that no value and no register')
    w(' * write, load or store transition depends on the state or the key (word-level rank test,')
    w(' * checked by the generator and on the compiled code by tests/leak/check_lin_thumb.py).')
    for fn, n, cyc, ncl, nqc, nex, nv, cb, ncc in stats:
        w(' * %s: %d instructions (%d est. cycles before its return), %d register clears' %
          (CNAME[fn], n, cyc, ncl) + (',' if not ncc else ''))
        if ncc:
            w(' *   (%d of them of the C\'s registers, before their first write),' % ncc)
        w(' *   %d q-word clears, %d on the way out; %d values and transitions checked (control' %
          (nqc, nex, nv))
        w(' *   %s: %d fail).' % ('r = 0' if fn in AAPCS else 'm1 = m0', cb))
    w(' * Each function, the S-box too, clears on the way out every register that holds data, so')
    w(' * that the next one starts from registers without data, as the models assume; the driver')
    w(' * clears r4..r12 on entry and zeroes the S-box\'s %d stack slots (below its frame) once' %
      len(sbox_slots()))
    w(' * per call, before the first S-box, which finds them as its models assume (zeros); the')
    w(' * S-box\'s own exit clears keep its slots from combining across its calls within the call.')
    w(' * Packing and unpacking clear each register of the C before')
    w(' * they first write it. pack_masked_t2(q, in, r) and unpack_masked_t2(out, q, r) (AAPCS,')
    w(' * called from C) mask the plaintext words by r and pack them, and unpack the state and')
    w(' * take r off the ciphertext words (the plaintext as loaded and the ciphertext as stored')
    w(' * are inputs and outputs, exempt from the value test, not from the transitions).')
    w(' * subword_pat_t2(q, mw, w, rnd) (AAPCS) is the default key schedule\'s SubWord: the trades')
    w(' * above (subword_tin_t2, subword_tout_t2) around sbox_masked_t2, r4..r12 cleared on entry')
    w(' * and the S-box\'s slots zeroed before its call; subword_pat_wipe_t2() zeroes them again.')
    w(' * The value-model variant\'s (aes_masked.h): the same seven programs allocated without the')
    w(' * transition rule (no clears; every value checked bit by bit and the outputs, the control')
    w(' * failing), packing taking its one mask word v for every plaintext word and unpacking v')
    w(' * and ror(v, 8) (aes_masked32.c\'s vm_ru), run by rounds_masked_v_t2_10 / _14 with')
    w(' * sbox_masked_v_t2, which keep r0 and r1 across the linear layers and zero the S-box\'s')
    w(' * %d stack slots on the way out; unpack_masked_v_t2 zeroes q[] after storing the' %
      len(sbox_slots(value=True)))
    w(' * ciphertext, so the call leaves only masks (cm) in memory:')
    for name, n, nv, cb in vstats:
        w(' *   %s: %d instructions, %d values checked (control: %d fail).' % (name, n, nv, cb))
    w(' */')
    w('#ifndef BS_AES_MASKED_LIN_T2_H')
    w('#define BS_AES_MASKED_LIN_T2_H')
    w('')
    w('#ifdef BS_AES_MASKED_T2')
    for k, v in CM.items():
        w('#define BS_AES_MASKED_CM_%s %d' % (k, v))
    funcs = [(CNAME[fn], ARGS.get(fn, '(uint32_t q[8] __attribute__((unused)), const uint32_t c[8] '
              '__attribute__((unused)),\n    const uint32_t *rk0 __attribute__((unused)), '
              'const uint32_t *rk1 __attribute__((unused)))'), bodies[fn],
              '' if fn in AAPCS else 'used, ') for fn in FUNCS]
    funcs += [(CNAME[fn], '(void)', bodies[fn], 'used, ') for fn in FUNCS_T]
    funcs.append(('subword_pat_t2', '(uint32_t q[8] __attribute__((unused)), const uint32_t '
                  'mw[4] __attribute__((unused)),\n    uint32_t w[2] __attribute__((unused)), '
                  'const uint32_t *rnd __attribute__((unused)))', driver_subword(), ''))
    funcs.append(('subword_pat_wipe_t2', '(void)', wipe_subword(), ''))
    for nr in (10, 14):
        funcs.append(('rounds_masked_t2_%d' % nr, '(uint32_t q[8] __attribute__((unused)), '
                      'const void *cm __attribute__((unused)),\n    const uint32_t *rk0 '
                      '__attribute__((unused)), const uint32_t *rk1 __attribute__((unused)))',
                      driver(nr), ''))
    args_v = {k: v.replace('const uint32_t r[8]', 'const uint32_t *v') for k, v in ARGS.items()}
    funcs += [(vname(fn), args_v.get(fn, '(uint32_t q[8] __attribute__((unused)), const uint32_t '
               'c[8] __attribute__((unused)),\n    const uint32_t *rk0 __attribute__((unused)), '
               'const uint32_t *rk1 __attribute__((unused)))'), bodies[vname(fn)],
               '' if fn in AAPCS else 'used, ') for fn in FUNCS]
    for nr in (10, 14):
        funcs.append(('rounds_masked_v_t2_%d' % nr, '(uint32_t q[8] __attribute__((unused)), '
                      'const void *cm __attribute__((unused)),\n    const uint32_t *rk0 '
                      '__attribute__((unused)), const uint32_t *rk1 __attribute__((unused)))',
                      driver_v(nr), ''))
    # the value-model S-box called from C (the variant's key setup, aes_masked32.c): the AAPCS
    # around its private convention (it saves only lr; 10 words keep sp 8-aligned)
    funcs.append(('sbox_masked_v_t2_c', '(uint32_t q[8] __attribute__((unused)), '
                  'const uint32_t mw[4] __attribute__((unused)))',
                  ['push {r3-r11, lr}', 'bl sbox_masked_v_t2', 'pop {r3-r11, pc}'], ''))
    for name, args, body, used in funcs:
        w('')
        w('__attribute__((%snaked, noinline)) static void' % used)
        w('%s%s' % (name, args))
        out.extend(emit.asm_body(body))
    w('#endif')
    w('')
    w('#endif')
    for fn, n, cyc, ncl, nqc, nex, nv, cb, ncc in stats:
        sys.stderr.write('%s: %d instructions, %d est. cycles, %d clears, %d q clears, %d exit '
                         'clears, %d values and transitions, control %d\n' % (
                             CNAME[fn], n, cyc, ncl, nqc, nex, nv, cb))
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    emit.main(generate, __doc__, inputs=2)
