#!/usr/bin/env python3
"""Derives the fixsliced representation of GIFT-64 and GIFT-128 from the specification's
PermBits and writes gift_fix_gen.h (core/gift/meson.build runs it at build time; emit.py has
the command line). Nothing here is copied: every table is computed below and checked.

Bitsliced state: slice j (j = 0..3) holds bit j of every nibble; nibble n sits at bit n of the
slice (GIFT-128: 32 nibbles; GIFT-64: 16 nibbles, two blocks side by side in one 32-bit word).
PermBits keeps each bit in its slice and moves nibble n to P_j(n) in slice j.

Fixslicing (Adomnicai, Najm, Peyrin, "Fixslicing: a new GIFT representation", TCHES 2020/3):
slice 3 is never permuted. After k rounds the state is T_k(standard) with T_k = P_3^(-k),
common to all slices so the S-box still lines up; the other slices then need only
L_kj = P_3^-(k+1) o P_j o P_3^k, which are nibble, half-word, byte or word rotations (GIFT-128)
and nibble or 16-bit rotations (GIFT-64). P_3 has order 5 for GIFT-128 and 4 for GIFT-64, so
the representation cycles and 40 = 8 x 5, 28 = 7 x 4 rounds end in the standard one.
Round keys and constants are moved into representation T_(k+1) at key set-up.

Portable form (RV32I, hosts): each L_kj as an OR of masked shifts, one per distinct rotation
amount. Thumb-2 form (Cortex-M3/M4): whole round macros in which each L_kj is computed up to a
final rotation, which the next instruction reading the slice applies through its flexible
second operand (the round-key XOR, or for the one unkeyed permuted slice the next S-box), and
the S-box's NOT is folded away (see sbox_lines). Every Thumb-2 form is checked here against
L_kj bit by bit before it is written.
"""
import emit
from benes import benes


def compose(f, g):  # f after g; perm[src] = dst
    return [f[g[i]] for i in range(len(g))]


def inv(f):
    r = [0] * len(f)
    for i, d in enumerate(f):
        r[d] = i
    return r


def power(f, k):
    r = list(range(len(f)))
    for _ in range(k):
        r = compose(f, r)
    return r


def order(f):
    k, g = 1, f
    while g != list(range(len(f))):
        g, k = compose(f, g), k + 1
    return k


def perm_bits(nbits, j):
    """PermBits of the specification for slice j, on nibble indices."""
    s = nbits // 4
    out = [0] * s
    for n in range(s):
        i = 4 * n + j
        p = 4 * (i // 16) + s * ((3 * ((i % 16) // 4) + (i % 4)) % 4) + (i % 4)
        assert p % 4 == j
        out[n] = p // 4
    return out


def lift(p16):
    """A 16-bit slice permutation applied to both halves of a 32-bit word (GIFT-64)."""
    return [p16[i % 16] + 16 * (i // 16) for i in range(32)]


def terms(perm):
    """The permutation as OR of (x ror d) & mask, one term per distinct rotation."""
    by = {}
    for src, dst in enumerate(perm):
        d = (src - dst) % 32
        by[d] = by.get(d, 0) | (1 << dst)
    return sorted(by.items())


t2_imm, rol = emit.t2_imm, emit.rol


def ror_after(perm, r):
    """The permutation g with perm = (ror r) o g."""
    return [(d + r) % 32 for d in perm]


def as_swapmove(perm):
    """(mask, n) with perm = SWAPMOVE(x, x, mask, n) (bits i in mask <-> i + n), or None."""
    moved = [i for i in range(32) if perm[i] != i]
    if not moved:
        return None
    lows = [i for i in moved if perm[i] > i]
    n = perm[lows[0]] - lows[0]
    if 2 * len(lows) == len(moved) and all(perm[i] == i + n and perm[i + n] == i for i in lows):
        return sum(1 << i for i in lows), n
    return None


BSWAP = [8 * (3 - i // 8) + i % 8 for i in range(32)]


def thumb_form(perm, x):
    """perm as (statements on x, r): the statements leave y in x with perm(x) = y ror r, so that
    the rotation can ride on the next instruction's flexible second operand. Costs (Thumb-2
    instructions): a rotation 0, BSWAP 1, two masked rotations 3 (t_ = x & K with K an
    immediate), a rotation of a one-register SWAPMOVE 4 (plus a constant load if its mask is no
    immediate)."""
    for r in range(32):
        g = ror_after(perm, r)
        if g == list(range(32)):
            return [], r
        if g == BSWAP:
            return ['%s = __builtin_bswap32(%s);' % (x, x)], r
    t = terms(perm)
    if len(t) == 2:
        (d1, m1), (d2, m2) = t
        for (da, ma), (db, mb) in (((d1, m1), (d2, m2)), ((d2, m2), (d1, m1))):
            sa, sb = rol(ma, da), rol(mb, db)  # source bits of each term
            c = (db - da) % 32
            if t2_imm(sb):  # y = (x & sa) | ror(x & sb, c), perm(x) = y ror da
                return ['t_ = %s & 0x%08xu;' % (x, sb), '%s ^= t_;' % x,
                        '%s |= ror32(t_, %d);' % (x, c)], da
            if t2_imm(sa):
                return ['t_ = %s & 0x%08xu;' % (x, sa), '%s ^= t_;' % x,
                        '%s = t_ | ror32(%s, %d);' % (x, x, c)], da
    best = None
    for r in range(32):
        sm = as_swapmove(ror_after(perm, r))
        if sm is not None and (best is None or (t2_imm(sm[0]) and not t2_imm(best[1][0]))):
            best = (r, sm)
    assert best is not None, 'no Thumb-2 form'
    r, (m, n) = best
    return ['t_ = (%s ^ (%s >> %d)) & 0x%08xu;' % (x, x, n, m),
            '%s ^= t_ ^ (t_ << %d);' % (x, n)], r


def check_form(perm, stmts, r, x='x'):
    """Runs the statements on every single-bit input (they are GF(2)-linear) against perm."""
    def ror32(v, n):
        return ((v >> n) | (v << ((32 - n) & 31))) & 0xffffffff

    def bswap(v):
        return int.from_bytes(v.to_bytes(4, 'little'), 'big')
    code = '\n'.join(st.rstrip(';').replace('__builtin_bswap32', 'bswap')
                     .replace('u)', ')').rstrip('u') for st in stmts)
    for i in range(32):
        env = {x: 1 << i, 'ror32': ror32, 'bswap': bswap}
        exec(code, env)
        y = env[x] & 0xffffffff
        assert ror32(y, r) == 1 << perm[i], (perm, stmts, r, i)


def c_expr(perm, var='x'):
    """Portable form: OR of masked shifts (a rotation where a term wraps)."""
    if perm == list(range(32)):
        return var
    parts = []
    for d, m in terms(perm):
        dst = [p for p in range(32) if m >> p & 1]
        # a plain shift where no selected bit wraps (one instruction on RV32I)
        if d == 0:
            src = var
        elif all(p + d < 32 for p in dst):
            src = '(%s >> %d)' % (var, d)
        elif all(p + d >= 32 for p in dst):
            src = '(%s << %d)' % (var, 32 - d)
        else:
            src = 'ror32(%s, %d)' % (var, d)
        parts.append('(%s & 0x%08xu)' % (src, m))
    return ' | '.join(parts)


def cipher(nbits):
    s = nbits // 4
    P = [perm_bits(nbits, j) for j in range(4)]
    per = order(P[3])
    W = (lambda p: p) if nbits == 128 else lift
    lin, pos = [], []
    for k in range(per):
        row = []
        for j in range(3):
            L = compose(inv(power(P[3], k + 1)), compose(P[j], power(P[3], k)))
            row.append(W(L))
        lin.append(row)
        # T_(k+1): where a standard bit lands after round k of the cycle
        pos.append(power(inv(P[3]), k + 1))
    assert power(P[3], per) == list(range(s))
    return per, lin, pos


def sbox_lines(nbits, rot):
    """The S-box on slots (a, b, c, d), outputs in place; slot 0 of the next round is d, slot 3
    is a. GIFT-128 keeps slot 0 complemented (the S-box's NOT, folded into BIC and ORN and into
    the stored constants) and takes slot 0 still to be rotated by rot; GIFT-64 folds the NOT
    into its round keys and takes slot 2 still to be rotated by rot."""
    if nbits == 128:
        if rot:
            head = ['GIFT_ROR_OP(bic, t_, c, a, %d);' % rot, 'b ^= t_;', 't_ = b & d;',
                    'GIFT_ROR_OP(eor, a, t_, a, %d);' % rot]
        else:
            head = ['b ^= c & ~a;', 'a ^= b & d;']
        return head + ['c ^= b | ~a;', 'd ^= c;', 'b ^= d;', 'c ^= b & ~a;']
    if rot:
        head = ['GIFT_ROR_OP(and, t_, a, c, %d);' % rot, 'b ^= t_;', 'a ^= b & d;',
                't_ = a | b;', 'GIFT_ROR_OP(eor, c, t_, c, %d);' % rot]
    else:
        head = ['b ^= a & c;', 'a ^= b & d;', 'c ^= a | b;']
    return head + ['d ^= c;', 'b ^= d;', 'c ^= a & b;']


def thumb_rounds(nbits, per, lin):
    """Round macros for Thumb-2: (a, b, c, d) are slots 0..3, renamed (d, b, c, a) for the
    next round. Each slot's last rotation is left to the instruction that next reads it: the
    round-key XOR, or (for the one unkeyed slot) the next round's S-box."""
    forms = []
    for k in range(per):
        row = []
        for j, x in enumerate('dbc'):
            st, r = thumb_form(lin[k][j], x)
            check_form(lin[k][j], st, r, x)
            row.append((st, r))
        forms.append(row)
    lazy = 0 if nbits == 128 else 2  # the unkeyed slot whose rotation waits
    keyed = [1, 2] if nbits == 128 else [0, 1]
    name = 'GIFT%d' % nbits
    out = []
    for k in range(per):
        # the round's three key words first, in one burst (pipelined loads)
        body = ['GIFT_LOAD3(k0_, k1_, k2_, rk);']
        body += sbox_lines(nbits, forms[(k - 1) % per][lazy][1])
        slot_idx = 0
        for j, x in enumerate('dbc'):
            st, r = forms[k][j]
            body += st
            if j in keyed:
                body.append('%s = k%d_ ^ ror32(%s, %d);' % (x, slot_idx, x, r) if r else
                            '%s ^= k%d_;' % (x, slot_idx))
                slot_idx += 1
            else:
                assert j == lazy
        body.append('a ^= k2_;')
        out.append('#define %s_ROUND_T%d(a, b, c, d, rk) \\\n    do { \\\n        uint32_t t_, k0_, k1_, k2_; \\\n'
                   % (name, k) + ''.join('        %s \\\n' % l for l in body) + '    } while (0)')
    out.append('/* rotation still owed by slot %d after the last round of a cycle */' % lazy)
    out.append('#define %s_PEND %d' % (name, forms[per - 1][lazy][1]))
    return out


def generate():
    out = []
    w = out.append
    w('/* Generated by embedded/gen/gift_fixslice.py from the GIFT specification: do not edit. */')
    for nbits in (64, 128):
        per, lin, pos = cipher(nbits)
        name = 'GIFT%d' % nbits
        w('#define %s_PERIOD %d' % (name, per))
        # Thumb-2, whose data-processing instructions rotate their second operand for free:
        # whole rounds (gift_fix32.c supplies GIFT_ROR_OP and ror32). Elsewhere (RV32I has no
        # rotate): the linear layers as masked shifts.
        w('#if defined(__thumb2__)')
        out.extend(thumb_rounds(nbits, per, lin))
        w('#else')
        for k in range(per):
            for j in range(3):
                w('#define %s_L%d_%d(x) \\\n    (%s)' % (name, k, j, c_expr(lin[k][j])))
        w('#endif')
        # Key set-up: T_(k+1) as nine in-word delta swaps (benes.py) on the key word (GIFT-128)
        # or on v | v << 16 (GIFT-64: both blocks), checked bit by bit.
        w('/* %s_NET[k]: masks of the delta swaps (shifts 16 8 4 2 1 2 4 8 16) that move standard'
          % name)
        w(' * nibble n of a key word to its slice bit after round k of a cycle%s. */'
          % (' (GIFT-64: bits n and\n * 16 + n of v | v << 16, the two blocks)' if nbits == 64 else ''))
        w('static const uint32_t %s_NET[%d][9] = {' % (name.lower(), per))
        for k in range(per):
            P = pos[k] if nbits == 128 else pos[k] + [p + 16 for p in pos[k]]
            seq = benes(P, full=True)
            for src in range(32):
                x = 1 << src
                for sh, m in seq:
                    t = ((x >> sh) ^ x) & m
                    x ^= t ^ (t << sh)
                assert x == 1 << P[src]
            masks = ['0x%08xu' % m for _, m in seq]
            w('    {' + ', '.join(masks[:5]) + ',')
            w('     ' + ', '.join(masks[5:]) + '},')
        w('};')
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    emit.main(generate, __doc__)
