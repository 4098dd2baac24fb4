#!/usr/bin/env python3
"""Writes aes_masked_t2.h: the masked S-box of core/aes/aes_masked32.c as one straight-line,
register-allocated Thumb-2 function (Cortex-M3/M4), allocated so that no register write and no
store puts a value over one it would unmask (core/aes/meson.build runs it at build time, on the
aes_masked_sbox.h that aes_masked_sbox.py writes).

    python3 embedded/gen/aes_masked_thumb2.py aes_masked_sbox.h aes_masked_t2.h
    python3 embedded/gen/aes_masked_thumb2.py --search aes_masked_sbox.h ITERATIONS SEED
        (see PRIORITY; --search-value: PRIORITY_V, the value-model S-box's)

The computation is exactly the C's (core/aes/aes_masked_sbox.h, written by aes_masked_gen.py,
is parsed here): the same XORs, re-maskings and two-random-bits AND gadgets, in an order
chosen by a list schedule, over the same masks m0, m1, m2 = m0 ^ m1, m0 | m1 (the word mw of
the C), so that the input and output patterns, and everything the C does around the S-box,
stay as they are.

The model, exact as in aes_masked_gen.py and tests/leak/check_sbox_thumb.py: every bit
position of a word is one S-box input x with its own mask bits (m0, m1), and the S-box only
computes bit by bit, so a value is a truth table over the 1024 cases (x, m0, m1) (here one
1024-bit integer), and it is independent of the input when, for every x, the same number of
the four mask cases set it.

- Values: every one is checked independent of x.
- Transitions (what a register or a bus leaks where power follows the Hamming distance): a
  register write or a store replaces old contents by new ones, and old ^ new must be
  independent of x too. With the masks reused by every slice, two values under the same
  mask XOR to an unmasked word, so the allocator tracks what each register and stack slot
  last held (dead values included: a freed register still holds its last value) and only
  writes a value where old ^ new passes the same test. Where no free register qualifies it
  clears one first (mov r, #0: old ^ 0 is a value, new ^ 0 is one too), or evicts a value
  whose register does; a spill goes to a slot whose last contents pass, else to a new slot;
  an output word whose input word under the same mask is still in q[] is stored over a
  constant first (the state pointer).
- The register and stack contents at entry are zeros in the model (as in the checker's
  interpreter): the driver (aes_masked_lin_t2.h) clears r4..r12 on entry and zeroes this
  function's stack slots once per encryption, before its first call; every generated function
  clears its data registers on the way out, and this one the slots that would combine with the
  next call's first stores (checked here, not by the checker). What the model leaves out: buses
  other than the register file and stores (operand buses, the load data path), glitches. The
  linear layers around it are generated and checked on their own model
  (aes_masked_lin_thumb2.py); packing and the mask set-up are C.

A private calling convention: only the generated drivers (aes_masked_lin_t2.h) call it, holding
nothing in registers across the call, so it saves only lr (the 9-register push and pop of the
AAPCS cost about 16 cycles a call).

Registers: r0..r12 and lr, both pointers being values like the others (the state pointer is
needed again for the output stores), spilling Belady-style (the value whose next use is
farthest, preferring values already in their slot). Constant time: no branch, every address
is the stack pointer or an argument pointer plus a constant.

The program is simulated here on the truth tables before it is written: the output against the
S-box under the output masks of the C, every value and every transition (register writes,
loads into registers, stores) against the test above; the generator fails if any fails.
"""
import collections
import re
import sys

import emit
from aes_thumb2 import aes_sbox_table, anneal, cluster

SBOX_H = None  # the text of aes_masked_sbox.h (the input)
NCASE = 1024  # (x, m0, m1): bit 4 x + m0 + 2 m1, as tests/leak/check_sbox_thumb.py numbers them


def rep(nib):
    return int(('%x' % nib) * (NCASE // 4), 16)


ALL = (1 << NCASE) - 1
M0T, M1T = rep(0xa), rep(0xc)
P5, P3, ONE = rep(0x5), rep(0x3), rep(0x1)
XB = [sum(0xf << (4 * x) for x in range(256) if (x >> b) & 1) for b in range(8)]
MASK_TT = {1: M0T, 2: M1T, 3: M0T ^ M1T}


def indep(v):
    """v's bit is set for the same number of mask cases at every x."""
    a = (v & P5) + ((v >> 1) & P5)
    c = (a & P3) + ((a >> 2) & P3)
    return c == (c & 0xf) * ONE


def parse():
    """The patterns and the steps of the C's masked S-box."""
    src = SBOX_H
    pin = [int(re.search(r'#define BS_AES_MASKED_IN_%d (\d)' % b, src).group(1)) for b in range(8)]
    pout = [int(re.search(r'#define BS_AES_MASKED_OUT_%d (\d)' % b, src).group(1))
            for b in range(8)]
    body = src[src.index('void sbox_masked'):]
    ins = dict((int(i), u) for u, i in re.findall(r'uint32_t (u\d) = q\[(\d)\];', body))
    steps = re.findall(r'MSK_([XRA])\(([^)]*)\);', body)
    outs = dict((int(i), o) for i, o in re.findall(r'q\[(\d)\] = (o\d);', body))
    assert len(ins) == 8 and len(outs) == 8 and len(steps) == 148, (len(steps),)
    return pin, pout, ins, [(k, [a.strip() for a in args.split(',')]) for k, args in steps], outs


# ---- the program: ops on values ----
class Prog:
    def __init__(self):
        self.ops = []  # (kind, dst or None, srcs, arg, name)
        self.tt = []   # value -> truth table
        self.name = []

    def val(self, tt, name):
        self.tt.append(tt & ALL)
        self.name.append(name)
        return len(self.tt) - 1

    def op(self, kind, srcs, arg, tt, name):
        d = self.val(tt, name)
        self.ops.append((kind, d, tuple(srcs), arg))
        return d

    def store(self, src, ptr, i):
        self.ops.append(('stq', None, (src, ptr), i))


def build():
    pin, pout, ins, steps, outs = parse()
    P = Prog()
    qp = P.val(0, 'q')    # the pointers: constants, in r0 and r1 at entry
    mwp = P.val(0, 'mw')
    env = {}
    masks_in = [None] * 8
    for b in range(8):
        masks_in[b] = XB[b] ^ MASK_TT[pin[b]]
    for i, u in ins.items():
        env[u] = P.op('ldq', (qp,), i, masks_in[i], u)
    mt = [M0T, M1T, M0T ^ M1T, M0T | M1T]
    for k, nm in enumerate(('mk0', 'mk1', 'mk2', 'mor')):
        env[nm] = P.op('ldm', (mwp,), k, mt[k], nm)
    T = P.tt
    for kind, a in steps:
        if kind in 'XR':
            d, x, y = a
            env[d] = P.op('eor', (env[x], env[y]), None, T[env[x]] ^ T[env[y]], d)
        else:
            d, x, y, ma, mb = a
            A, B, MA, MB, MOR = env[x], env[y], env[ma], env[mb], env['mor']
            g1 = P.op('and', (A, B), None, T[A] & T[B], d + '.g1')
            g3 = P.op('bic', (MB, A), None, T[MB] & ~T[A], d + '.g3')
            g4 = P.op('eor', (g1, g3), None, T[g1] ^ T[g3], d + '.g4')
            g5 = P.op('and', (MA, B), None, T[MA] & T[B], d + '.g5')
            g6 = P.op('eor', (g5, MOR), None, T[g5] ^ T[MOR], d + '.g6')
            env[d] = P.op('eor', (g4, g6), None, T[g4] ^ T[g6], d)
    for i in range(8):
        P.store(env[outs[i]], qp, i)
    # the model: the outputs are the S-box (without 0x63) under the output masks, every value
    # independent of the input
    sb = aes_sbox_table()
    for i in range(8):
        want = sum(0xf << (4 * x) for x in range(256) if ((sb[x] ^ 0x63) >> i) & 1)
        if T[env[outs[i]]] ^ MASK_TT[pout[i]] != want:
            raise SystemExit('masked S-box program: output %d wrong' % i)
    for v, t in enumerate(T):
        if not indep(t):
            raise SystemExit('masked S-box program: %s depends on the input' % P.name[v])
    return P, [T[env[ins[i]]] for i in range(8)]


# ---- scheduling (a greedy list schedule that keeps few values live) ----
# The schedule's tie-break order (operation names: the C's value names, .g1 .. .g6 for a
# gadget's terms, stN for the output stores), found by `--search`: a hill climb over this
# order, each candidate scored by the allocated code's cost(). Empty: the C's order.
PRIORITY = """
l6 t7 o7 m25.g5 m10 u7 l17 m16 l11 mk2
st2 l10 t6 t13 l26 m4 m32 m11.g6 m12.g1 m49.g6
m61.g6 m24 t19 m60 st7 m60.g4 u6 o5 t16_r1 m1.g5
t24 u5 t17_r1 t6_r2 m14.g6 o2 m9.g5 m55 m25.g4 m12.g4
m25.g3 m29.g1 l28 l24 m56.g3 m30.g5 m53.g3 m27 m54 l15
m34.g6 m25.g1 m47.g1 u4 m35.g3 m57.g5 m55.g4 m2.g1 l3 m40
m30.g3 m11 t3 m46.g4 m1.g3 t5 m61.g4 t15 m7.g4 l2
u1 m59.g4 m7.g5 m34.g4 m15_r3 m30.g1 t23 m29.g4 mk1 m56.g6
m37 m57.g6 t2 m30 m55.g6 l16 u2 t5_r1 m63.g6 m51
m56.g1 t25 u3 m35.g6 m52.g3 m17 m54.g6 m32.g4 m47.g4 m2.g5
m61 m49 m54.g4 m34 m49.g1 u0 t10 m3 t8 m26
m2.g3 m62.g6 m47.g6 m9.g1 m44 m7 m33 m13 m4.g1 m11.g1
m2.g4 mk0 mor m11.g5 m4.g5 u7_r3 m31 t11 m31.g1 m9.g3
l5 m53 l4 m57 m4.g3 m19 m28 m29.g3 l25 m20
m2.g6 m52.g4 m6.g4 m46.g6 st3 m9 m7.g1 m6.g5 m24_r3 m9.g4
m53.g1 m34.g3 o0 m27_r2 m63 t4 m5 l7 m1.g4 m40_r2
t27 m60.g6 m6.g1 m7.g3 l29 t17 l20 t26 m14 m11.g3
t1_r1 m62 st6 m49.g3 m51.g4 m50.g6 t15_r2 m62.g4 m12.g3 m52.g1
m12 m32.g3 t4_r3 m14.g1 m46.g3 m46.g1 l0 m14.g3 m56.g4 m31.g3
m11.g4 m22 m46 m58 m14.g5 m55.g1 l19 m39_r1 m49.g4 m51.g3
m20_r3 m2 l13 t12 m48.g3 m48.g5 l21 m30.g6 m51.g5 u2_r1
t20 m47.g5 m31.g4 m1 m8 m50.g5 m58.g3 st1 m50.g3 m1.g6
m43 m30.g4 st0 m58.g5 m12.g6 o4 m46.g5 m25.g6 m45 m6.g3
t16 st4 m59.g5 m50.g4 t14 m57.g1 m61.g3 m58_r2 m58.g4 m6
m59.g6 m31.g6 m52.g6 m60.g5 o6 m4.g6 m61.g1 m52 m25 m42
m48.g6 m62.g3 m29.g5 t9 t18 m34.g5 m58.g6 m14.g4 m57.g4 t21
l8 m50 u3_r3 m55.g5 m1.g1 m54.g1 m47 m6.g6 l27 m32.g6
t22 m54.g5 m51.g6 m61.g5 m53.g5 l18 m58.g1 o3 m51.g1 m55.g3
m60.g1 m60.g3 m57.g3 l0_r1 m56 m15 m62.g1 l7_r1 m35.g4 m34.g1
m9.g6 m62.g5 m61_r1 l9 st5 m52.g5 m48.g1 m18 m29.g6 m35.g5
m35 m41 m32.g5 m29 l23 m54.g3 m63.g3 m49.g5 m63.g1 m23
m48 m38 m4.g4 m7.g6 m12.g5 m59.g3 l14 l1 m50.g1 t1
m59 m39 m53.g6 m53.g4 m56.g5 m48.g4 o1 m31.g5 m47.g3 l22
m36 m35.g1 m63.g4 m32.g1 m21 m59.g1 l12 m63.g5
"""

# The same for the value-model S-box (sbox_masked_v_t2), found by --search-value (the last run:
# aes_masked_sbox.h 60000 23 from the order before, 405 -> 403 instructions, 20 slots).
PRIORITY_V = """
m56.g6 m18 l25 m34.g6 st6 m31.g6 m15_r3 t10 m11.g5 m46.g4
m61.g6 m31.g3 m60.g4 m5 m32.g1 u5 m1.g5 t15 m27_r2 m48.g3
m27 t17_r1 m57.g1 u4 m30.g4 m16 m32.g3 m32 l3 m55.g3
m52.g6 m56.g1 m14.g4 m29.g4 u1 u3 l21 m52.g4 m7.g1 m58.g1
o0 st1 m58.g6 l13 m49.g3 m47.g4 t16_r1 t23 m9.g1 m2.g4
m2.g5 m62 t14 t7 l12 m56.g3 m52 m53.g3 m56.g4 m31.g5
m39_r1 l16 l7 mk1 m55.g1 m23 t1 t2 t13 m24
m22 m46.g3 m30.g3 m42 u7_r3 m19 l5 m37 t6_r2 m46.g1
m47.g1 m7.g3 m34.g1 m31.g1 u7 t5 m34.g3 u2 l19 m49.g4
m59 l18 t8 m1.g1 m9.g3 m7.g6 m1 m29 m35.g6 m4.g4
t17 m51 l15 m35.g4 m24_r3 m6.g6 o3 m47.g3 m41 t5_r1
l2 t22 m17 u3_r3 m31.g4 l8 m40 m54 m2.g1 m14.g6
m58.g3 m53 m4.g3 t3 m2.g3 m25.g5 m11.g4 m4.g1 m58.g4 u6
m57.g5 l28 o7 m7.g5 m50.g4 m62.g4 m35.g3 l9 l23 mk2
u0 st2 m28 l22 l14 t20 mor l0 m29.g5 m51.g3
u2_r1 m32.g5 mk0 m6.g3 m12 m4.g5 m62.g6 m9.g5 m25.g3 m51.g1
m6.g1 m60.g1 m6.g5 st0 m57.g6 m35.g1 m43 t1_r1 t25 t21
m51.g6 t15_r2 m56 m11.g3 m25.g1 m53.g1 m12.g3 m26 st7 m10
t4_r3 m63 m9.g6 l17 m62.g3 m25.g6 m13 l6 l4 m1.g6
m12.g1 m59.g3 t24 m38 m59.g1 st3 t12 m50.g1 m48.g4 m25
m14.g1 m45 m54.g1 m30 l11 m14.g3 m14.g5 m54.g5 m50.g6 m46.g6
m29.g6 m63.g3 m11.g1 m12.g6 m60.g3 m36 m47 m48.g5 m49 m61.g3
m30.g6 m12.g4 m61.g5 t26 l27 m53.g4 m60.g5 t4 m20 l20
m59.g5 m61_r1 o1 l24 m54.g4 m32.g4 t27 m30.g1 l0_r1 m32.g6
m9 m46.g5 m6.g4 m14 m20_r3 m11 m31 l7_r1 m52.g3 o4
m56.g5 m53.g5 m58 m1.g3 m1.g4 m59.g6 m50.g5 m3 m9.g4 st5
m47.g5 m50.g3 m30.g5 m48.g1 m2.g6 l26 m58.g5 m52.g1 m55 m54.g3
o5 m4 m29.g1 m61 t19 m7.g4 m53.g6 m34.g4 m35.g5 m63.g4
t18 m57.g3 m59.g4 m44 m34.g5 m49.g6 m33 m40_r2 m21 m49.g1
m2 m51.g5 m60.g6 m55.g4 m52.g5 m61.g4 m35 m54.g6 m12.g5 m49.g5
m11.g6 l29 o6 m61.g1 m39 m8 t9 m62.g5 m63.g5 l1
o2 m55.g5 t6 st4 m60 m15 m4.g6 t11 m6 m48
m34 m62.g1 m46 m55.g6 m63.g6 m7 m57.g4 m57 m25.g4 m63.g1
m51.g4 t16 m47.g6 m50 m48.g6 m58_r2 l10 m29.g3
"""


def op_name(P, o):
    return P.name[o[1]] if o[1] is not None else 'st%d' % o[3]


def schedule(P, order=None):
    """Reorders P.ops (a topological order of the same DAG): among the ready operations, the
    one that frees the most registers net (operands at their last use minus the new value),
    ties to the first in the priority order (PRIORITY, found by --search; the C's order for
    the operations it does not name)."""
    n = len(P.ops)
    rank = {nm: i for i, nm in enumerate(PRIORITY.split() if order is None else order)}
    prio = [(rank.get(op_name(P, o), len(rank)), i) for i, o in enumerate(P.ops)]
    prod = {}
    for p, (_, d, _, _) in enumerate(P.ops):
        if d is not None:
            prod[d] = p
    users = {}
    for p, (_, _, srcs, _) in enumerate(P.ops):
        for v in set(srcs):
            users.setdefault(v, []).append(p)
    remaining = {v: len(u) for v, u in users.items()}
    deps = [set(prod[v] for v in srcs if v in prod) for _, _, srcs, _ in P.ops]
    loads = [p for p, o in enumerate(P.ops) if o[0] == 'ldq']
    for p, o in enumerate(P.ops):
        if o[0] == 'stq':
            deps[p] |= set(loads)  # q[] is read before it is written
    rdeps = [[] for _ in range(n)]
    for p in range(n):
        for q in deps[p]:
            rdeps[q].append(p)
    waiting = [len(d) for d in deps]
    ready = {p for p in range(n) if not waiting[p]}
    when, order = {}, []
    while ready:
        def score(p):
            kind, d, srcs, _ = P.ops[p]
            dying = sum(1 for v in set(srcs) if remaining[v] == 1 and v not in (0, 1))
            new = 0 if d is None else 1
            return (new - dying, prio[p])
        p = min(ready, key=score)
        ready.remove(p)
        when[p] = len(order)
        order.append(p)
        for v in set(P.ops[p][2]):
            remaining[v] -= 1
        for u in rdeps[p]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.add(u)
    assert len(order) == n
    P.ops = [P.ops[p] for p in order]


# ---- transition-aware register allocation and emission ----
REGS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'lr']
CLEAN_BONUS = 40
ZERO = -1  # contents: a constant
# The value-model S-box (sbox_masked_v_t2, the value-model variant's): the same program with
# the transitions left out of the allocation and the simulation (no clears), every value and
# the output still checked.
VALUE_ONLY = False


def allocate(P, qin):
    T = P.tt
    okc = {}

    def ok(old, new):
        """old ^ new independent of the input (old, new: value ids or ZERO)."""
        if VALUE_ONLY or old == ZERO or new == ZERO or old == new:
            return True
        key = (old, new) if old < new else (new, old)
        if key not in okc:
            okc[key] = indep(T[old] ^ T[new])
        return okc[key]

    uses = collections.defaultdict(list)
    for p, (_, _, srcs, _) in enumerate(P.ops):
        for v in srcs:
            uses[v].append(p)

    content = {r: ZERO for r in REGS}  # what each register last held
    free = [r for r in REGS if r not in ('r0', 'r1')]
    homes = emit.Homes(uses, free, {0: 'r0', 1: 'r1'})
    next_use, release_dead = homes.next_use, homes.release_dead
    reg_of, holder, slot_of, in_slot, free_slots = (homes.reg_of, homes.holder, homes.slot_of,
                                                    homes.in_slot, homes.free_slots)
    slot_content = []
    # q[] as memory whose old contents matter too: the input slices
    qmem = {}
    lines = []
    stats = {'clear': 0, 'spill': 0, 'reload': 0, 'qclear': 0}

    def new_slot(v):
        for s in free_slots:
            if ok(slot_content[s], v):
                free_slots.remove(s)
                return s
        slot_content.append(ZERO)
        return len(slot_content) - 1

    def evict(p, keep, want):
        """Frees a register held by a live value (Belady); want: the value to be written."""
        # no store needed: cheaper to evict; no clearing needed after: a little cheaper
        best = homes.farthest(keep, lambda v: next_use(v, p), lambda v: (
            (CLEAN_BONUS if v in in_slot or v in (0, 1) and v in slot_of else 0) +
            (2 if want is not None and ok(v, want) else 0)))
        v = holder.pop(best)
        del reg_of[v]
        if v not in in_slot:
            if v not in slot_of:
                slot_of[v] = new_slot(v)
            s = slot_of[v]
            assert ok(slot_content[s], v)
            lines.append('str %s, [sp, #%d]' % (best, 4 * s))
            slot_content[s] = v
            in_slot.add(v)
            stats['spill'] += 1
        return best

    def clear(r):
        lines.append('%s %s, #0' % ('movs' if int(r[1:]) < 8 else 'mov', r)
                     if r != 'lr' else 'mov lr, #0')
        content[r] = ZERO
        stats['clear'] += 1

    def get_reg(p, keep, v, prefer=()):
        """A register for v: a dying operand's, else a free one, whose old contents may take
        v; else a free one cleared; else an evicted one (cleared if need be)."""
        for r in list(prefer) + free:
            if r in free and ok(content[r], v):
                free.remove(r)
                return r
        if free:
            r = free.pop(0)
            clear(r)
            return r
        r = evict(p, keep, v)
        if not ok(content[r], v):
            clear(r)
        return r

    def fetch(v, p, keep):
        if v in reg_of:
            return reg_of[v]
        r = get_reg(p, keep, v)
        lines.append('ldr %s, [sp, #%d]' % (r, 4 * slot_of[v]))
        stats['reload'] += 1
        reg_of[v], holder[r] = r, v
        content[r] = v
        return r

    for i in range(8):
        qmem[i] = ('in', i)
    for p, (kind, d, srcs, arg) in enumerate(P.ops):
        keep = set(srcs)
        regs = [fetch(v, p, keep) for v in srcs]
        if kind == 'stq':
            src, ptr = regs
            v = srcs[0]
            if not VALUE_ONLY and not indep(qin[arg] ^ T[v]) and qmem[arg] == ('in', arg):
                lines.append('str %s, [%s, #%d]' % (ptr, ptr, 4 * arg))
                stats['qclear'] += 1
            lines.append('str %s, [%s, #%d]' % (src, ptr, 4 * arg))
            qmem[arg] = v
            for w in set(srcs):
                release_dead(w, p)
            continue
        dying = [reg_of[w] for w in set(srcs) if next_use(w, p + 1) is None]
        for w in set(srcs):
            release_dead(w, p)
        r = get_reg(p, keep, d, prefer=dying)
        reg_of[d], holder[r] = r, d
        content[r] = d
        if kind == 'ldq':
            lines.append('ldr %s, [%s, #%d]' % (r, regs[0], 4 * arg))
        elif kind == 'ldm':
            lines.append('ldr %s, [%s, #%d]' % (r, regs[0], 4 * arg))
        else:
            lines.append('%s %s, %s, %s' % (kind, r, regs[0], regs[1]))
        if next_use(d, p + 1) is None:
            release_dead(d, p)
    return lines, len(slot_content), stats


# ---- a simulation of the emitted code on the truth tables ----
def simulate(lines, nslots, qin, pout):
    """Runs the instructions on truth tables: every value and every transition (register
    write, load, store) must be independent of the input; the outputs the S-box."""
    reg = {r: 0 for r in REGS}
    reg['r0'], reg['r1'] = 'Q', 'MW'  # the pointers: symbolic
    mem = {('Q', i): qin[i] for i in range(8)}
    mem.update({('MW', k): t for k, t in enumerate([M0T, M1T, M0T ^ M1T, M0T | M1T])})
    stack = [0] * nslots
    first, last = {}, {}  # per slot: the first and the last value stored in a call
    nvals = nbad = ntrans = 0

    def tt(x):
        return 0 if isinstance(x, str) else x

    def rec(old, new):
        nonlocal nvals, nbad, ntrans
        nvals += 1
        ntrans += 1
        if not indep(tt(new)):
            nbad += 1
            raise SystemExit('simulation: a value depends on the input: %r' % line)
        if not VALUE_ONLY and not indep(tt(old) ^ tt(new)):
            raise SystemExit('simulation: a transition depends on the input: %r' % line)
    for line in lines:
        m = re.match(r'(\w+) (\w+), (.*)$', line)
        ins, rd, rest = m.groups()
        if ins in ('eor', 'and', 'bic'):
            a, b = [reg[x.strip()] for x in rest.split(',')]
            v = a ^ b if ins == 'eor' else a & b if ins == 'and' else a & ~b & ALL
            rec(reg[rd], v)
            reg[rd] = v
        elif ins in ('mov', 'movs'):
            rec(reg[rd], 0)
            reg[rd] = 0
        elif ins in ('ldr', 'str'):
            base, off = re.match(r'\[(\w+), #(\d+)\]', rest).groups()
            off = int(off) // 4
            if base == 'sp':
                key = None
            else:
                key = (reg[base], off)
            if ins == 'ldr':
                v = stack[off] if key is None else mem[key]
                rec(reg[rd], v)
                reg[rd] = v
            else:
                old = stack[off] if key is None else mem[key]
                rec(old, reg[rd])
                if key is None:
                    stack[off] = reg[rd]
                    first.setdefault(off, tt(reg[rd]))
                    last[off] = tt(reg[rd])
                else:
                    mem[key] = reg[rd]
        else:
            raise SystemExit('simulation: unknown %r' % line)
    sb = aes_sbox_table()
    for i in range(8):
        want = sum(0xf << (4 * x) for x in range(256) if ((sb[x] ^ 0x63) >> i) & 1)
        if tt(mem[('Q', i)]) ^ MASK_TT[pout[i]] != want:
            raise SystemExit('simulation: output %d wrong' % i)
    cross = sorted(o for o in first if not across_calls(last[o], first[o]))
    data = [r for r in REGS if tt(reg[r])]
    return nvals, cross, data


def across_calls(a, b):
    """Whether a (what a slot holds at the end of one call) and b (what the next call stores
    there first) XOR to a word independent of both calls' inputs, taken as independent bytes:
    the four mask cases' bits of a at any x against b's at any other x."""
    ra = set((a >> (4 * x)) & 0xf for x in range(256))
    rb = set((b >> (4 * x)) & 0xf for x in range(256))
    return len(set(bin(u ^ v).count('1') for u in ra for v in rb)) == 1


def generate(sbox_h):
    global SBOX_H
    SBOX_H = sbox_h
    pin, pout = parse()[:2]
    P, qin = build()
    schedule(P)
    lines, nslots, stats = allocate(P, qin)
    _, cross, data = simulate(lines, nslots, qin, pout)
    # On the way out: every register that holds data cleared, so that the next generated
    # function starts from registers without data (what both models assume), and the stack
    # slots whose last value would combine with the first value of the next call (same masks,
    # another round) cleared with one of them.
    exit_lines = ['%s %s, #0' % ('movs' if r in ('r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7')
                                 else 'mov', r) for r in data]
    exit_lines += ['str %s, [sp, #%d]' % (data[0], 4 * o) for o in cross]
    ncross_before = len(cross)
    lines += exit_lines
    # loads and stores moved into shared gaps (aes_thumb2.py's cluster(): consecutive single
    # loads and stores cost one cycle each after the first); a move never crosses an
    # instruction that reads or writes its registers or its memory word, so every register
    # and memory word sees the same sequence of contents: the transitions are the same ones,
    # and the simulation below checks them again
    lines = cluster(lines)
    nvals, cross, data = simulate(lines, nslots, qin, pout)
    if cross or data:
        raise SystemExit('masked S-box program: data left at exit')
    # A private calling convention: only the generated drivers of aes_masked_lin_t2.h call it
    # (bl), holding nothing in registers across the call, so it saves only the return address.
    frame = 4 * nslots + (4 if nslots % 2 == 0 else 0)  # sp 8-aligned after the 1-word push
    body = ['push {lr}', 'sub sp, sp, #%d' % frame] + lines + [
        'add sp, sp, #%d' % frame, 'pop {pc}']
    nlogic = sum(1 for o in P.ops if o[0] in ('eor', 'and', 'bic'))
    nmem = sum(1 for l in lines if '[sp' in l)
    vbody, vslots, vstats, vvals = value_sbox(pout)
    out = []
    w = out.append
    w('/*')
    w(' * aes_masked_t2.h: generated by embedded/gen/aes_masked_thumb2.py from')
    w(' * aes_masked_sbox.h (do not edit; see there for how and why). The masked S-box of')
    w(' * aes_masked32.c as straight-line Thumb-2 for Cortex-M3/M4: the same values as the C')
    w(' * sbox_masked(q, mw) (same patterns, same gadgets), register-allocated so that no')
    w(' * register write, load or store replaces contents whose XOR with the new ones depends on')
    w(' * the S-box input (checked by the generator on all inputs and masks, and on the')
    w(' * compiled code by tests/leak/check_sbox_thumb.py --transitions-zero).')
    w(' * %d instructions: %d logic, %d stack loads and stores (%d spill slots), %d register' %
      (len(body), nlogic, nmem, nslots, stats['clear']))
    w(' * clears and %d output-word clears for the transitions; %d values and transitions' %
      (stats['qclear'], nvals))
    w(' * simulated. A private calling convention: called only by the generated drivers of')
    w(' * aes_masked_lin_t2.h, it saves nothing but lr. On the way out it clears the %d registers'
      % len(exit_lines[:len(exit_lines) - ncross_before]))
    w(' * that hold data, and the %d of its %d stack slots whose last value would combine with'
      % (ncross_before, nslots))
    w(' * the next call\'s first (same masks, another round), so that the next generated function')
    w(' * starts from registers without data and no slot combines across calls (the slots at the')
    w(' * first call of an encryption: zeroed by the driver). Outside the check')
    w(' * (core/aes/aes_masked.h): exception entry, buses other than registers and stores.')
    w(' */')
    w('#ifndef BS_AES_MASKED_T2_H')
    w('#define BS_AES_MASKED_T2_H')
    w('')
    w('#if defined(__thumb2__) && !defined(BS_AES_MASKED_C_SBOX)')
    w('#define BS_AES_MASKED_T2 1')
    w('')
    w('__attribute__((used, naked, noinline)) static void')
    w('sbox_masked_t2(uint32_t q[8] __attribute__((unused)),')
    w('               const uint32_t mw[4] __attribute__((unused)))')
    out.extend(emit.asm_body(body))
    w('')
    w('/*')
    w(' * sbox_masked_v_t2: the value-model variant\'s S-box (aes_masked.h): the same program')
    w(' * (same values and patterns, its own schedule order PRIORITY_V) allocated without the')
    w(' * transition rule: %d instructions, %d stack loads and stores (%d spill slots), no' %
      (len(vbody), sum(1 for l in vbody if '[sp' in l), vslots))
    w(' * clears; %d values simulated, each independent of the input bit by bit (checked here' %
      vvals)
    w(' * and by tests/leak/check_sbox_thumb.py --func sbox_masked_v_t2). It leaves data in')
    w(' * registers and in its stack slots (its driver zeroes the slots on the way out); no')
    w(' * transition is claimed.')
    w(' */')
    w('__attribute__((used, naked, noinline)) static void')
    w('sbox_masked_v_t2(uint32_t q[8] __attribute__((unused)),')
    w('                 const uint32_t mw[4] __attribute__((unused)))')
    out.extend(emit.asm_body(vbody))
    w('#endif')
    w('')
    w('#endif')
    sys.stderr.write('masked S-box (Thumb-2): %d instructions, %d logic, %d stack, %d slots, '
                     '%d clears, %d output clears; %d values and transitions simulated; on the way '
                     'out %d register and %d slot clears\n' % (
                         len(body), nlogic, nmem, nslots, stats['clear'], stats['qclear'], nvals,
                         len(exit_lines) - ncross_before, ncross_before))
    return '\n'.join(out) + '\n'


def value_sbox(pout):
    """The value-model S-box: the program allocated and simulated with VALUE_ONLY."""
    global VALUE_ONLY
    P, qin = build()
    schedule(P, PRIORITY_V.split())
    VALUE_ONLY = True
    try:
        lines, nslots, stats = allocate(P, qin)
        lines = cluster(lines)
        nvals = simulate(lines, nslots, qin, pout)[0]
    finally:
        VALUE_ONLY = False
    assert stats['clear'] == 0 and stats['qclear'] == 0
    frame = 4 * nslots + (4 if nslots % 2 == 0 else 0)
    body = ['push {lr}', 'sub sp, sp, #%d' % frame] + lines + [
        'add sp, sp, #%d' % frame, 'pop {pc}']
    sys.stderr.write('masked S-box, value model (Thumb-2): %d instructions, %d slots, %d values '
                     'simulated\n' % (len(body), nslots, nvals))
    return body, nslots, stats, nvals


def cost(lines):
    """Instructions plus one more per load (LDR takes two cycles on the M3/M4 unless
    pipelined)."""
    return len(lines) + sum(1 for l in lines if l.startswith('ldr'))


def search(iters, seed):
    """The hill climb behind PRIORITY: moves or swaps operations in the order, keeps a
    candidate that costs no more. Prints the order found (to paste into PRIORITY)."""
    import copy
    import random
    rng = random.Random(seed)
    base, qin = build()
    order = (PRIORITY_V if VALUE_ONLY else PRIORITY).split() or [op_name(base, o) for o in base.ops]

    def score(order):
        P = copy.copy(base)
        P.ops = list(base.ops)
        schedule(P, order)
        return cost(allocate(P, qin)[0])
    order = anneal(order, score, iters, rng)
    for k in range(0, len(order), 10):
        print(' '.join(order[k:k + 10]))


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] in ('--search', '--search-value'):
        with open(sys.argv[2]) as f:
            SBOX_H = f.read()
        VALUE_ONLY = sys.argv[1] == '--search-value'
        search(int(sys.argv[3]), int(sys.argv[4]))
    else:
        emit.main(generate, __doc__, inputs=1)
