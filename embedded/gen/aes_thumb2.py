#!/usr/bin/env python3
"""Writes core/aes/aes_fix32_t2.h: fully fixsliced AES-128 and AES-256 on two blocks as
straight-line Thumb-2 (Cortex-M3/M4), packing, SR^2 and unpacking included, from the same
round structure as the C (core/aes/aes.h, aes_fix32.c); core/aes/meson.build runs it at build
time. aes_rv32.py lowers the same program to RV32I.

    python3 embedded/gen/aes_thumb2.py aes_fix32_t2.h
    python3 embedded/gen/aes_thumb2.py --search ITERATIONS SEED   (see PRIORITY)

Why a generator: the C loses mostly to register spills inside the S-box (GCC keeps about 90 of
its 200 instructions for loads and stores) and to the in-byte rotations of MixColumns. Here:

- Every value carries a pending rotation: the actual word is ror(register, rot). XOR and AND
  commute with rotations, so ror(A, a) op ror(B, b) = ror(A op ror(B, b - a), a) is one
  instruction with Thumb-2's rotated second operand, and the row rotations of MixColumns (8
  and 16 bits) cost nothing. An AND with a byte-periodic mask m becomes AND with rol(m, a),
  still byte-periodic and so a Thumb-2 modified immediate (other masks: the rotation is
  resolved first). The packing's SWAPMOVEs are rotations too (their masks clear the bits a
  shift would lose), and SR^2 is a byte exchange between the unpacked words.
- The in-byte rotation by j of a word x is ror((x & ~L) | ror(x & L, 24), j), L = 0x01010101 *
  (2^j - 1): three instructions, the final rotation again pending.
- The S-box: Boyar and Peralta's 115-gate circuit (below), 13 gates fewer than the C's.
- Round keys: two words per LDRK2 in the program; the emitted code loads them with single
  LDRs, placed next to the spill loads and stores (cluster(), below).
- Order: the operations are list-scheduled to keep few values live (schedule()), ties broken
  by a gate priority found by a hill climb (PRIORITY, `--search`).
- Registers: all 14 (r0..r12, lr; the round-key pointer is a value like the others) are
  allocated over the whole straight-line program (10 or 14 rounds unrolled), spilling to the
  stack the value whose next use is farthest (Belady, preferring values already in their
  slot), reloading on use. The S-box still spills: the circuit keeps 18 of its top-layer
  values alive across its middle, more than the registers. Of the free registers, a reload
  takes the one free the longest and a result the one freed last (usually its operand's), so
  that the reloads can move up, next to other loads (below).
- Loads and stores pipelined: after allocation, the other instructions keep their order and
  every load and store moves (as far as its registers and stack slot allow) into a gap shared
  with others, the fewest gaps possible (cluster()): in the Cortex-M3/M4 timings, consecutive
  single loads and stores cost 1 cycle each after the first, 2 alone, LDRD 3. Runs of exactly
  two adjacent words become one LDRD/STRD again (same cycles, one instruction fewer), through
  the stack pointer or the round-key pointer only: the blocks may have any alignment, and
  LDRD/STRD fault where it is not a multiple of 4.
- Constant time: no branch, every address is the stack pointer, a block pointer or the round
  key pointer plus a constant.

The program is checked here before it is written: the circuit against the S-box on all 256
inputs, and the program, evaluated on random blocks and round keys (with the rotations
resolved), against a direct Python model of aes_fix32.c (the C's own circuit, aes.h); then the
emitted instructions themselves, run by a small Thumb-2 interpreter (simulate()), against the
same model.
"""
import random
import re
import sys

import emit

M32 = 0xffffffff


ror = emit.ror


# ---- the program: values are (vid, rot), the word being ror(register of vid, rot) ----
defs = []  # vid -> (kind, args)


def op(kind, *args):
    defs.append((kind, args))
    return len(defs) - 1


def XOR(a, b):
    return (op('eor', a, b), a[1])


def AND(a, b):
    return (op('and', a, b), a[1])


def ANDI(a, m):
    if not emit.t2_imm(ror(m, -a[1])):  # (aes_rv32.py replaces ANDI)
        a = (op('mov', a), 0)  # the rotation resolved first (one instruction)
    return (op('andi', a, m), a[1])


def swapmove(a, b, m, n):
    """aes.h's bs_swapmove32 (t = ((b >> n) ^ a) & m; a ^= t; b ^= t << n) with rotations:
    m has its top n bits clear, so b >> n and t << n may be rotations."""
    t = ANDI(XOR(rot(b, n), a), m)
    return XOR(a, t), XOR(b, rot(t, 32 - n))


def transpose(x):
    """aes.h's bs_aes_transpose (swapmove: this module's, or aes_rv32.py's in its place)."""
    return emit.transpose(x, swapmove)


def pack(x):
    """aes.h's bs_aes_pack after the loads: in words x[0..7] to slices."""
    x = transpose(x)
    return [x[(i >> 1) + 4 * (i & 1)] for i in range(8)]


def unpack_sr2(q):
    """aes.h's bs_aes_unpack_sr2 before the stores."""
    x = [None] * 8
    for i in range(8):
        x[(i >> 1) + 4 * (i & 1)] = q[i]
    x = transpose(x)
    for c in (0, 1, 4, 5):
        t = ANDI(XOR(x[c], x[c + 2]), 0xff00ff00)
        x[c], x[c + 2] = XOR(x[c], t), XOR(x[c + 2], t)
    return x


def unpack(q):
    """aes.h's bs_aes_unpack before the stores (pack()'s inverse)."""
    x = [None] * 8
    for i in range(8):
        x[(i >> 1) + 4 * (i & 1)] = q[i]
    return transpose(x)


def LDRK(off):
    return (op('ldrk', off), 0)


RKP = [None]  # the round-key pointer, a value like the others (it arrives in r1)


def LDRK2(off):
    """Two round-key words in one LDRD (half the loads of single LDRs, same cycles)."""
    lo = (op('ldrk2', RKP[0], off), 0)
    return lo, (op('ldrk2hi', lo), 0)


def LDQ(i):
    return (op('ldq', i), 0)


def LDP(i):
    """Word i of the two FACE table entries (through r3)."""
    return (op('ldp', i), 0)


def rot(a, n):
    return (a[0], (a[1] + n) % 32)


# The S-box circuit of the assembly: Boyar and Peralta's 115-gate circuit (SEA 2010: 23 XORs on
# top, 30 XORs and 32 ANDs in the middle, 30 XORs at the bottom) without its four XNORs; x0 is
# bit 7. The C (aes.h) uses their depth-16 circuit, 128 gates: the assembly trades depth, which
# an in-order core does not care about, for 13 fewer instructions per round. check_circuit()
# compares it with the S-box on all 256 inputs; check() compares the program with the C model.
CIRCUIT = """
y14 = x3 ^ x5; y13 = x0 ^ x6; y12 = y13 ^ y14; t1 = x4 ^ y12; y15 = t1 ^ x5; t2 = y12 & y15;
y9 = x0 ^ x3; y8 = x0 ^ x5; t0 = x1 ^ x2; y1 = t0 ^ x7; y4 = y1 ^ x3; t5 = y4 & x7;
y2 = y1 ^ x0; y5 = y1 ^ x6; t8 = y5 & y1; y3 = y5 ^ y8; y6 = y15 ^ x7; t3 = y3 & y6;
y20 = t1 ^ x1; y11 = y20 ^ y9; t12 = y9 & y11; y7 = x7 ^ y11; t10 = y2 & y7; y10 = y15 ^ t0;
t15 = y8 & y10; y17 = y10 ^ y11; t13 = y14 & y17; y19 = y10 ^ y8; y16 = t0 ^ y11;
t7 = y13 & y16; y21 = y13 ^ y16; y18 = x0 ^ y16;
t4 = t3 ^ t2; t6 = t5 ^ t2; t9 = t8 ^ t7; t11 = t10 ^ t7; t14 = t13 ^ t12; t16 = t15 ^ t12; t17 = t4 ^ t14; t18 = t6 ^ t16;
t19 = t9 ^ t14; t20 = t11 ^ t16; t21 = t17 ^ y20; t22 = t18 ^ y19; t23 = t19 ^ y21;
t24 = t20 ^ y18; t25 = t21 ^ t22; t26 = t21 & t23; t27 = t24 ^ t26; t28 = t25 & t27;
t29 = t28 ^ t22; t30 = t23 ^ t24; t31 = t22 ^ t26; t32 = t31 & t30; t33 = t32 ^ t24;
t34 = t23 ^ t33; t35 = t27 ^ t33; t36 = t24 & t35; t37 = t36 ^ t34; t38 = t27 ^ t36;
t39 = t29 & t38; t40 = t25 ^ t39; t41 = t40 ^ t37; t42 = t29 ^ t33; t43 = t29 ^ t40;
t44 = t33 ^ t37; t45 = t42 ^ t41;
z0 = t44 & y15; z1 = t37 & y6; z2 = t33 & x7; z3 = t43 & y16; z4 = t40 & y1; z5 = t29 & y7;
z6 = t42 & y11; z7 = t45 & y17; z8 = t41 & y10; z9 = t44 & y12; z10 = t37 & y3;
z11 = t33 & y4; z12 = t43 & y13; z13 = t40 & y5; z14 = t29 & y2; z15 = t42 & y9;
z16 = t45 & y14; z17 = t41 & y8;
t46 = z15 ^ z16; t47 = z10 ^ z11; t48 = z5 ^ z13; t49 = z9 ^ z10; t50 = z2 ^ z12;
t51 = z2 ^ z5; t52 = z7 ^ z8; t53 = z0 ^ z3; t54 = z6 ^ z7; t55 = z16 ^ z17; t56 = z12 ^ t48;
t57 = t50 ^ t53; t58 = z4 ^ t46; t59 = z3 ^ t54; t60 = t46 ^ t57; t61 = z14 ^ t57;
t62 = t52 ^ t58; t63 = t49 ^ t58; t64 = z4 ^ t59; t65 = t61 ^ t62; t66 = z1 ^ t63;
s0 = t59 ^ t63; s6 = t56 ^ t62; s7 = t48 ^ t60; t67 = t64 ^ t65; s3 = t53 ^ t66;
s4 = t51 ^ t66; s5 = t47 ^ t65; s1 = t64 ^ s3; s2 = t55 ^ t67;
"""
GATES = re.findall(r'(\w+) = (\w+) ([\^&]) (\w+);', CIRCUIT)


def eval_circuit(gates, env, xor, and_):
    for d, a, o, b in gates:
        env[d] = xor(env[a], env[b]) if o == '^' else and_(env[a], env[b])
    return env


SBOX_BASE = {}  # def index of an S-box's first gate -> True (for the schedule's priorities)


def sbox(q):
    env = {'x%d' % i: q[7 - i] for i in range(8)}
    SBOX_BASE[len(defs)] = True
    eval_circuit(GATES, env, XOR, AND)
    return [env['s%d' % (7 - b)] for b in range(8)]


def aes_sbox_table():
    """The AES S-box from its definition: the inverse in GF(2^8) (0 for 0), then the affine map
    (FIPS 197, 5.1.1). Also the masked generator's reference (aes_masked_thumb2.py)."""
    def mul(a, b):
        r = 0
        while b:
            if b & 1:
                r ^= a
            a = (a << 1) ^ (0x11b if a & 0x80 else 0)
            b >>= 1
        return r
    t = []
    for x in range(256):
        inv = next((y for y in range(1, 256) if mul(x, y) == 1), 0)
        r = 0x63
        for b in range(8):
            for k in (0, 4, 5, 6, 7):
                r ^= ((inv >> ((b + k) % 8)) & 1) << b
        t.append(r)
    return t


def anneal(order, cost, iters, rng, unit=''):
    """The hill climb behind a generator's PRIORITY list: moves or swaps entries of the order,
    keeps a candidate that costs no more; progress on stderr. Returns the order found."""
    best = cost(order)
    sys.stderr.write('start: %d%s\n' % (best, unit))
    for it in range(iters):
        cand = order[:]
        i, j = rng.randrange(len(cand)), rng.randrange(len(cand))
        if rng.random() < 0.5:
            cand[i], cand[j] = cand[j], cand[i]
        else:
            cand.insert(j, cand.pop(i))
        c = cost(cand)
        if c <= best:
            if c < best:
                sys.stderr.write('%d: %d%s\n' % (it, c, unit))
            best, order = c, cand
    return order


def check_circuit():
    """The circuit against the S-box without 0x63 (inverse in GF(2^8), then the linear part of
    the affine map), on all 256 inputs."""
    table = aes_sbox_table()
    for x in range(256):
        want = table[x] ^ 0x63
        env = {'x%d' % i: (x >> (7 - i)) & 1 for i in range(8)}
        eval_circuit(GATES, env, lambda a, b: a ^ b, lambda a, b: a & b)
        got = sum(env['s%d' % (7 - b)] << b for b in range(8))
        if got != want:
            raise SystemExit('circuit: S(%#x) = %#x, want %#x' % (x, got, want))


def c_sbox_ops():
    """The C circuit of aes.h (the model below runs it)."""
    src = emit.source('core/aes/aes.h')
    body = src[src.index('BS_AES_FN void bs_aes_sbox_nonot'):]
    body = body[:body.index('\n}\n')]
    gates = re.findall(r'(\w+) = (\w+) ([\^&]) (\w+)', body)
    outs = re.findall(r'q\[(\d)\] = (\w+) \^ (\w+);', body)
    return gates, outs


C_GATES, C_OUTS = c_sbox_ops()


def byte_ror(x, j):
    lo2 = 0x01010101 * ((1 << j) - 1)
    t = ANDI(x, ~lo2 & M32)
    u = ANDI(x, lo2)
    return rot(XOR(t, rot(u, 24)), j)


def r1(x, k):
    return rot(x if k == 0 else byte_ror(x, 2 * k), 8)


def r2(x, k):
    return rot(x if k in (0, 2) else byte_ror(x, 4), 16)


def mixcolumns(q, k):
    n = [r1(x, k) for x in q]
    t = [XOR(q[i], n[i]) for i in range(8)]
    return [
        XOR(XOR(t[7], n[0]), r2(t[0], k)),
        XOR(XOR(XOR(t[0], t[7]), n[1]), r2(t[1], k)),
        XOR(XOR(t[1], n[2]), r2(t[2], k)),
        XOR(XOR(XOR(t[2], t[7]), n[3]), r2(t[3], k)),
        XOR(XOR(XOR(t[3], t[7]), n[4]), r2(t[4], k)),
        XOR(XOR(t[4], n[5]), r2(t[5], k)),
        XOR(XOR(t[5], n[6]), r2(t[6], k)),
        XOR(XOR(t[6], n[7]), r2(t[7], k)),
    ]


AFTER = {}  # vid -> vids the schedule must place before it (an order, not a data dependency)


def ark(q, i):
    out = []
    for b in range(0, 8, 2):
        lo, hi = LDRK2(4 * (8 * i + b))
        AFTER[lo[0]] = [q[b][0], q[b + 1][0]]  # no round key waits long in a register
        out += [XOR(q[b], lo), XOR(q[b + 1], hi)]
    return out


def program(nrounds, first, packed):
    """aes_fix32.c's fix_encrypt from round `first` (round 0 being the first AddRoundKey) to
    the end, SR^2 and unpacking included: round i < Nr ends in representation i mod 4, the last
    round has no MixColumns. packed: the input is the packed state (aes_ctr_face.c, which
    starts at round 3); 'face': FACE's cached state, the four words of state2(0) (through r2)
    XORed with the two table entries P[v], P[v + 1] (eight words through r3), then packed (the
    words of the two blocks after round 2, aes_ctr_face.h); else the two blocks' bytes, packed
    here."""
    del defs[:]
    SBOX_BASE.clear()
    AFTER.clear()
    RKP[0] = (op('rkp'), 0)
    if packed == 'sbox':  # the S-box alone on 32 bytes in place (FACE's refresh)
        return unpack(sbox(pack([LDQ(i) for i in range(8)])))
    if packed == 'face':
        base = [LDQ(c) for c in range(4)]
        tab = [LDP(i) for i in range(8)]
        q = pack([XOR(base[i % 4], tab[i]) for i in range(8)])
    else:
        q = [LDQ(i) for i in range(8)]
        if not packed:
            q = pack(q)
    for i in range(first, nrounds + 1):
        if i:
            q = sbox(q)
            if i < nrounds:
                q = mixcolumns(q, i % 4)
        q = ark(q, i)
    return unpack_sr2(q)


# ---- a direct model of the C, to check the program against ----
def model_sbox(q):
    env = {'u%d' % i: q[7 - i] for i in range(8)}
    for d, a, o, b in C_GATES:
        env[d] = env[a] ^ env[b] if o == '^' else env[a] & env[b]
    r = [0] * 8
    for i, a, b in C_OUTS:
        r[int(i)] = env[a] ^ env[b]
    return r


def model_byte_ror(x, j):
    lo = 0x01010101 * (0xff >> j)
    return ((x >> j) & lo) | ((x << (8 - j)) & ~lo & M32)


def model_mc(q, k):
    R1 = (lambda x: ror(x, 8)) if k == 0 else (lambda x: ror(model_byte_ror(x, 2 * k), 8))
    R2 = (lambda x: ror(x, 16)) if k in (0, 2) else (lambda x: ror(model_byte_ror(x, 4), 16))
    n = [R1(x) for x in q]
    t = [q[i] ^ n[i] for i in range(8)]
    return [t[7] ^ n[0] ^ R2(t[0]), t[0] ^ t[7] ^ n[1] ^ R2(t[1]), t[1] ^ n[2] ^ R2(t[2]),
            t[2] ^ t[7] ^ n[3] ^ R2(t[3]), t[3] ^ t[7] ^ n[4] ^ R2(t[4]), t[4] ^ n[5] ^ R2(t[5]),
            t[5] ^ n[6] ^ R2(t[6]), t[6] ^ n[7] ^ R2(t[7])]


def model_swapmove(a, b, m, n):
    t = ((b >> n) ^ a) & m
    return a ^ t, b ^ ((t << n) & M32)


def model_transpose(x):
    return emit.transpose(x, model_swapmove)


def model_sr2(x):
    t = ((x >> 4) ^ x) & 0x0f000f00
    return x ^ t ^ (t << 4)


def model(q, rk, nrounds, first, packed):
    if packed == 'sbox':
        x = model_transpose(q[:8])
        q = model_sbox([x[(i >> 1) + 4 * (i & 1)] for i in range(8)])
        x = [None] * 8
        for i in range(8):
            x[(i >> 1) + 4 * (i & 1)] = q[i]
        return model_transpose(x)
    if packed == 'face':
        q, packed = [q[i % 4] ^ q[4 + i] for i in range(8)], False
    if not packed:
        x = model_transpose(q)
        q = [x[(i >> 1) + 4 * (i & 1)] for i in range(8)]
    for i in range(first, nrounds + 1):
        if i:
            q = model_sbox(q)
            if i < nrounds:
                q = model_mc(q, i % 4)
        q = [q[b] ^ rk[8 * i + b] for b in range(8)]
    q = [model_sr2(w) for w in q]  # as aes.h's bs_aes_sr2_all, then bs_aes_unpack
    x = [None] * 8
    for i in range(8):
        x[(i >> 1) + 4 * (i & 1)] = q[i]
    return model_transpose(x)


def evaluate(outs, q, rk):
    """Runs the program on register values (no rotations resolved until the end)."""
    reg = []
    for kind, args in defs:
        if kind == 'ldq':
            v = q[args[0]]
        elif kind == 'ldp':
            v = q[4 + args[0]]
        elif kind == 'rkp':
            v = 0
        elif kind == 'ldrk2':
            v = rk[args[1] // 4]
        elif kind == 'ldrk2hi':
            v = rk[defs[args[0][0]][1][1] // 4 + 1]
        elif kind == 'mov':
            (a, ra), = args
            v = ror(reg[a], ra)
        elif kind == 'ror':  # RV32I (aes_rv32.py): a rotation made explicit
            (a, _), n = args
            v = ror(reg[a], n)
        elif kind == 'li':  # RV32I: a constant
            v = args[0]
        elif kind in ('srl', 'sll'):  # RV32I: shifts (of values without pending rotation)
            (a, ra), n = args
            assert ra == 0
            v = reg[a] >> n if kind == 'srl' else (reg[a] << n) & M32
        elif kind == 'andi':
            (a, ra), m = args
            v = reg[a] & ror(m, -ra)  # rol(m, ra)
        else:
            (a, ra), (b, rb) = args
            bv = ror(reg[b], rb - ra)
            v = reg[a] ^ bv if kind == 'eor' else reg[a] & bv
        reg.append(v)
    return [ror(reg[v], r) for v, r in outs]


# ---- scheduling: a greedy list schedule that keeps few values live ----
# The S-box gates' priorities for the schedule's last tie-break (earlier first), found by
# `--search`: a hill climb over this order, each candidate scored by the instruction count of
# the AES-128 rounds 3..10 after scheduling and allocation. Empty: the circuit's own order.
PRIORITY = """
t19 t40 s6 t58 t51 t45 t42 t9 z0 t44 t31 z11 z3 y4
y1 t8 s5 t62 t15 t64 t37 y16 t11 t27 y6 z17 t7 s3
z5 t20 t59 t48 t41 t53 z10 t65 t46 z4 t35 z8 y17 z13
y15 t63 z6 s1 t12 t21 s4 t16 t3 t55 t39 t1 y21 t29
y9 t33 t34 y11 y7 t6 t25 y14 t61 y12 t2 t5 y3 t49
y5 y10 s7 y20 y18 t47 t38 t22 s2 t18 z2 s0 t56 t24
t57 t23 t52 z12 y13 t14 t50 y2 t30 z1 z14 z7 t4 t13
t26 t32 t36 t43 y19 t67 t0 z15 t54 z16 t17 z9 t28 t66
y8 t10 t60
"""


def priorities(order):
    """prio[p] for every def: its index, except that each S-box's gates take the positions of
    its block in the order given (a list of gate names)."""
    rank = {g: i for i, g in enumerate(order)}
    for d, _, _, _ in GATES:
        rank.setdefault(d, len(rank))
    prio = list(range(len(defs)))
    for base in SBOX_BASE:
        for gi, (d, _, _, _) in enumerate(GATES):
            prio[base + gi] = base + rank[d]
    return prio


def schedule(outs, order=None):
    """Reorders defs (a topological order of the same DAG): among the ready operations, the
    one that frees the most registers net (operands at their last use minus the new value),
    ties to the one whose operands were computed last (it continues the current chain), then
    to the first in priority order (priorities()). Returns the outputs renamed."""
    prio = priorities(PRIORITY.split() if order is None else order)
    n = len(defs)
    srcs = [[a[0] for a in args if isinstance(a, tuple)] for _, args in defs]
    users = [[] for _ in range(n)]
    for p in range(n):
        for v in set(srcs[p]):
            users[v].append(p)
    remaining = [len(users[v]) + sum(1 for w, _ in outs if w == v) for v in range(n)]
    waiting = [len(set(srcs[p])) for p in range(n)]
    for p, before in AFTER.items():
        for v in set(before) - set(srcs[p]):
            users[v].append(p)
            waiting[p] += 1
    ready = {p for p in range(n) if waiting[p] == 0}
    order = []
    when = {}
    while ready:
        def score(p):
            dying = sum(1 for v in set(srcs[p]) if remaining[v] == 1)
            recent = max((when[v] for v in srcs[p]), default=-1)
            return (1 - dying, -recent, prio[p])
        loads = [p for p in ready if defs[p][0] in ('rkp', 'ldq', 'ldp', 'ldrk2hi')]  # r0: the state pointer
        p = min(loads) if loads else min(ready, key=score)  # until then; LDRD: both halves
        ready.remove(p)
        when[p] = len(order)
        order.append(p)
        for v in set(srcs[p]):
            remaining[v] -= 1
        for u in users[p]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.add(u)
    assert len(order) == n
    new = {old: i for i, old in enumerate(order)}
    ren = lambda a: (new[a[0]], a[1]) if isinstance(a, tuple) else a
    nd = [(defs[old][0], tuple(ren(a) for a in defs[old][1])) for old in order]
    defs[:] = nd
    return [(new[v], r) for v, r in outs]


# ---- register allocation and emission ----
# Evicting a value already in its stack slot costs no store: treat its next use as this many
# operations further away (tried 0..80; 40 gives the fewest loads and stores).
CLEAN_BONUS = 40
REGS = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'lr']


def uses_of(defs, outs):
    """Per value, the positions of the operations that use it (the outputs: len(defs), the
    final stores)."""
    uses = [[] for _ in defs]
    for p, (kind, args) in enumerate(defs):
        for a in args:
            if isinstance(a, tuple):
                uses[a[0]].append(p)
    for v, _ in outs:
        uses[v].append(len(defs))
    return uses


def allocate(outs):
    uses = uses_of(defs, outs)
    END = len(defs)  # the final stores use the outputs
    # r0: the output pointer, on the stack from the start; r1: the round-key pointer, defined
    # first; r2: the input pointer until the loads are done
    face = any(kind == 'ldp' for kind, _ in defs)
    free = [r for r in REGS if r not in ('r1', 'r2') + (('r3',) if face else ())]
    homes = emit.Homes(uses, free)
    next_use, release_dead = homes.next_use, homes.release_dead
    reg_of, holder, slot_of, in_slot, free_slots = (homes.reg_of, homes.holder, homes.slot_of,
                                                    homes.in_slot, homes.free_slots)
    # slot 0: the state pointer; slot 1: the round-key pointer, stored there once before the
    # loop (function()), so evicting it never costs a store
    nslots = 2
    slot_of[0] = 1
    homes.keep_slots.add(0)  # (the round-key pointer's slot stays for the next pair)
    in_slot.add(0)
    lines = []

    def evict(p, keep):
        nonlocal nslots
        # a value in its slot needs no store: cheaper to evict
        best = homes.farthest(keep, lambda v: next_use(v, p),
                              lambda v: CLEAN_BONUS if v in in_slot else 0)
        v = holder.pop(best)
        del reg_of[v]
        if v not in in_slot:
            if v not in slot_of:
                slot_of[v] = free_slots.pop() if free_slots else nslots
                if slot_of[v] == nslots:
                    nslots += 1
            lines.append('str %s, [sp, #%d]' % (best, 4 * slot_of[v]))
            in_slot.add(v)
        return best

    def get_reg(p, keep, newest=False):
        """A free register if there is one: for a load the one free the longest (cluster() can
        then move the load furthest up, next to others), for a result the one freed last."""
        if free:
            return free.pop(-1 if newest else 0)
        return evict(p, keep)

    def fetch(v, p, keep):
        if v in reg_of:
            return reg_of[v]
        r = get_reg(p, keep)
        lines.append('ldr %s, [sp, #%d]' % (r, 4 * slot_of[v]))
        reg_of[v], holder[r] = r, v
        return r

    lines.append('str r0, [sp, #0]')
    qptr_free = False
    for p, (kind, args) in enumerate(defs):
        if kind == 'ldrk2hi':
            continue  # defined by its LDRD
        if kind == 'rkp':
            assert p == 0
            if uses[p]:
                reg_of[p], holder['r1'] = 'r1', p
            else:
                free.append('r1')  # no round keys (the S-box alone)
            continue
        srcs = [a[0] for a in args if isinstance(a, tuple)]
        keep = set(srcs)
        regs = [fetch(v, p, keep) for v in srcs]
        if kind not in ('ldq', 'ldp') and not qptr_free:
            free[:0] = ['r2', 'r3'] if face else ['r2']  # the input is loaded
            qptr_free = True
        for v in set(srcs):
            release_dead(v, p)
        d = get_reg(p, keep, kind not in ('ldq', 'ldp', 'ldrk2'))
        reg_of[p], holder[d] = d, p
        if kind == 'ldq':
            lines.append('ldr %s, [r2, #%d]' % (d, 4 * args[0]))
        elif kind == 'ldp':
            lines.append('ldr %s, [r3, #%d]' % (d, 4 * args[0]))
        elif kind == 'ldrk':
            lines.append('ldr %s, [r1, #%d]' % (d, args[0]))
        elif kind == 'ldrk2':
            assert defs[p + 1] == ('ldrk2hi', ((p, 0),))
            d2 = get_reg(p, keep | {p})
            reg_of[p + 1], holder[d2] = d2, p + 1
            lines.append('ldrd %s, %s, [%s, #%d]' % (d, d2, regs[0], args[1]))
        else:
            lines.append(emit.t2_op(kind, d, regs, args))
        if not uses[p]:
            release_dead(p, p)
    # the outputs: rotations resolved, stored through the state pointer
    qp = None
    for i, (v, r) in enumerate(outs):
        if qp is None:
            qp = get_reg(END, {w for w, _ in outs})
            lines.append('ldr %s, [sp, #0]' % qp)
        src = fetch(v, END, {w for w, _ in outs[i:]})
        if r:
            lines.append('ror %s, %s, #%d' % (src, src, r))
        lines.append('str %s, [%s, #%d]' % (src, qp, 4 * i))
        del holder[reg_of.pop(v)]  # stored: its register is free for the next ones
        free.append(src)
    return lines, nslots



# ---- after allocation: loads and stores moved next to each other ----
# The cycle model of embedded/bench/run.py (the Cortex-M3/M4 TRMs' timings): a single LDR/STR
# costs 2 cycles, 1 when it follows another single load or store (the address phase of one
# overlaps the data phase of the other); LDRD costs 3. So the cycles are the instructions plus
# one per run of consecutive single loads and stores, plus two per LDRD. cluster() keeps the
# other instructions in their order and places every load and store (the LDRDs split into two
# LDRs) into one of the gaps between them where its registers and stack slot allow it; the
# fewest non-empty gaps is the classic stabbing of intervals, solved exactly by the greedy on
# the intervals' right ends (the order constraints between the loads and stores themselves are
# folded into the intervals first).
MEM_RE = re.compile(r'(ldr|str) (\w+), \[(\w+), #(\d+)\]$')


def parse(line):
    """(reads, writes, memory) of one line; memory = (kind, location) or None."""
    op, rest = line.split(None, 1)
    if op in ('push', 'pop'):
        regs = set(re.findall(r'\w+', rest)) | {'sp'}
        return regs, regs, ('fixed', None)
    if op in ('ldmia', 'ldmdb'):  # (aes_masked_lin_thumb2.py's): a load no access crosses
        base, wb = re.match(r'(\w+)(!?),', rest).groups()
        regs = set(re.findall(r'\w+', rest.split('{')[1]))
        return {base}, regs | ({base} if wb else set()), ('fixed', None)
    m = MEM_RE.match(line)
    if m:
        kind, r, base, off = m.groups()
        loc = ('sp', int(off)) if base == 'sp' else ('mem', None)
        if kind == 'ldr':
            return {base}, {r}, ('ld', loc)
        return {base, r}, set(), ('st', loc)
    f = [x.strip() for x in rest.split(',')]
    srcs = {x for x in f[1:] if re.match(r'^(r\d+|lr|sp)$', x)}
    return srcs, {f[0]}, None


def split_ldrd(lines):
    out = []
    for l in lines:
        m = re.match(r'ldrd (\w+), (\w+), \[(\w+), #(\d+)\]$', l)
        if not m:
            out.append(l)
            continue
        a, b, base, off = m.groups()
        pair = ['ldr %s, [%s, #%s]' % (a, base, off), 'ldr %s, [%s, #%d]' % (b, base, int(off) + 4)]
        out += pair[::-1] if a == base else pair  # the base register loaded last
    return out


def mem_conflict(ma, mb):
    """Two loads or stores that must keep their order (stack slots by offset; the round keys,
    input and output as one region, of which only the output is written)."""
    (ka, la), (kb, lb) = ma, mb
    if 'fixed' in (ka, kb):
        return True
    if ka == 'ld' and kb == 'ld':
        return False
    return la[0] == lb[0] and la == lb if la[0] == 'sp' else la[0] == lb[0]


def conflict(pa, pb):
    (ra, wa, ma), (rb, wb, mb) = pa, pb
    if wa & (rb | wb) or wb & ra:
        return True
    return ma is not None and mb is not None and mem_conflict(ma, mb)


def cluster(lines):
    lines = split_ldrd(lines)
    info = [parse(l) for l in lines]
    is_mem = [m is not None and m[0] in ('ld', 'st') for _, _, m in info]
    fixed = [i for i in range(len(lines)) if not is_mem[i]]
    mems = [i for i in range(len(lines)) if is_mem[i]]
    nfixed_before, k = [], 0
    for i in range(len(lines)):
        nfixed_before.append(k)
        k += not is_mem[i]
    lo, hi = {}, {}
    for i in mems:
        g = nfixed_before[i]
        e = g
        while e > 0 and not conflict(info[fixed[e - 1]], info[i]):
            e -= 1
        h = g
        while h < len(fixed) and not conflict(info[i], info[fixed[h]]):
            h += 1
        lo[i], hi[i] = e, h
    # order constraints between loads and stores: gap(a) <= gap(b)
    for x, b in enumerate(mems):
        for a in mems[:x]:
            if conflict(info[a], info[b]):
                lo[b] = max(lo[b], lo[a])
    for x in range(len(mems) - 1, -1, -1):
        a = mems[x]
        for b in mems[x + 1:]:
            if conflict(info[a], info[b]):
                hi[a] = min(hi[a], hi[b])
    gap = {}
    todo = sorted(mems, key=lambda i: hi[i])
    while todo:
        p = hi[todo[0]]
        gap.update((i, p) for i in todo if lo[i] <= p)
        todo = [i for i in todo if i not in gap]
    for i in mems:
        assert lo[i] <= gap[i] <= hi[i]
    out = []
    ingap = {}
    for i in mems:
        ingap.setdefault(gap[i], []).append(i)
    for g in range(len(fixed) + 1):
        out += [lines[i] for i in ingap.get(g, [])]
        if g < len(fixed):
            out.append(lines[fixed[g]])
    return out


def aligned_bases(lines, known):
    """For each line, the registers that hold a word-aligned pointer just before it: sp, and the
    round-key pointer (in `known` at the start) wherever it is copied through a stack slot. The
    in and out pointers are not: the blocks may have any alignment, and LDRD/STRD fault on
    addresses that are not multiples of 4."""
    regs, slots, out = set(known) | {'sp'}, set(), []
    for l in lines:
        out.append(set(regs))
        if l.endswith(':'):
            continue
        m = MEM_RE.match(l)
        if m:
            kind, r, base, off = m.groups()
            if kind == 'str':
                if base == 'sp':
                    (slots.add if r in regs else slots.discard)(int(off))
                continue
            (regs.add if base == 'sp' and int(off) in slots else regs.discard)(r)
            continue
        op = l.split()[0]
        if op in ('ldrd', 'strd', 'b', 'bne'):
            raise SystemExit('aligned_bases: no rule for ' + l)
        if op != 'push':
            regs -= parse(l)[1] - {'sp'}  # (sp stays a multiple of 4)
    return out


def merge_pairs(lines, known=('r1',)):
    """A run of exactly two loads (or two stores) of adjacent words through one base register
    costs 2 + 1 cycles, the same as one LDRD (STRD): one instruction fewer. Only through sp or
    the round-key pointer (aligned_bases()), never the blocks' pointers."""
    ok = aligned_bases(lines, known)
    out, i = [], 0
    while i < len(lines):
        run = i
        while run < len(lines) and MEM_RE.match(lines[run]):
            run += 1
        if run == i:
            out.append(lines[i])
            i += 1
            continue
        if run - i == 2:
            (ka, ra, ba, oa), (kb, rb, bb, ob) = (MEM_RE.match(l).groups() for l in lines[i:run])
            if ka == kb and ba == bb and ba in ok[i] and ra != rb and (
                    abs(int(oa) - int(ob)) == 4) and (
                    ka == 'str' or (ra != ba and rb != ba) or
                    (rb == ba and int(oa) < int(ob)) or (ra == ba and int(ob) < int(oa))):
                (r1, o1), (r2, _) = sorted([(ra, int(oa)), (rb, int(ob))], key=lambda x: x[1])
                out.append('%sd %s, %s, [%s, #%d]' % (ka, r1, r2, ba, o1))
                i = run
                continue
        out += lines[i:run]
        i = run
    return out


def cycles(lines):
    """embedded/bench/run.py's estimate on one pass through the lines (branches not taken)."""
    c, prev = 0, False
    for l in lines:
        if l.endswith(':'):
            continue
        op = l.split()[0]
        mem = op in ('ldr', 'str')
        if op in ('push', 'pop'):
            regs = 0
            for r in re.findall(r'[\w-]+', l.split(None, 1)[1]):
                lo_hi = re.match(r'r(\d+)-r(\d+)$', r)
                regs += int(lo_hi.group(2)) - int(lo_hi.group(1)) + 1 if lo_hi else 1
            c += 1 + regs + (2 if 'pc' in l else 0)
        elif op in ('ldrd', 'strd'):
            c += 3
        else:
            c += 1 if mem and prev else 2 if mem else 1
        prev = mem
    return c


def memory(rk, RK, ins, IN, stride, nwords, TAB=None):
    """The simulators' memory (this one's, aes_rv32.py's): the round keys rk at RK, the first
    nwords words of ins[k] at IN + stride * k and, for FACE (TAB), its table entries, the rest
    of ins[k] (after the same four words of state2(0) for every pair), at TAB + 32 k."""
    mem = {RK + 4 * i: w for i, w in enumerate(rk)}
    for k, q in enumerate(ins):
        if TAB is not None:
            assert q[:4] == ins[0][:4]
            for i in range(8):
                mem[TAB + 32 * k + 4 * i] = q[4 + i]
        for i in range(nwords):
            mem[IN + stride * k + 4 * i] = q[i]
    return mem


def simulate(lines, mode, ins, rk, stride=32):
    """Runs the emitted Thumb-2 lines (the few forms function() writes) on len(ins) pairs of
    blocks: mode 'bytes', ins[k] the eight input words of pair k; 'face', ins[k] state2(0)'s
    four words and the two table entries (the same state2(0) for every pair). Pair k is read
    from and written at stride * k bytes on. Returns the eight output words of each pair. The
    blocks are not word-aligned (the bytes' pointers need not be): an LDRD or STRD through them
    would fault on the core, and stops the run here."""
    OUT, RK, TAB, SP = 0x40001, 0x10000, 0x30000, 0x80000
    IN = 0x20000 if mode == 'face' else 0x20003  # (FACE's base2 is words)
    reg = {'r0': OUT, 'r1': RK, 'r2': IN, 'sp': SP}
    mem = memory(rk, RK, ins, IN, stride, 8 if mode == 'bytes' else 4,
                 TAB if mode == 'face' else None)
    if mode == 'bytes':
        reg['r3'] = len(ins)
    else:
        reg['r3'] = TAB
        mem[SP] = len(ins)  # the fifth argument, at the stack pointer on entry
    reg['sp'] -= 9 * 4  # push {r4-r11, lr}
    val = lambda x: reg[x] if not x.startswith('#') else int(x[1:], 0)
    labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(':')}
    pc, z = 0, False
    while True:
        l = lines[pc]
        pc += 1
        if l.endswith(':') or l.startswith('push'):
            continue
        op, rest = l.split(None, 1)
        if op == 'pop':
            break
        if op == 'bne':
            if not z:
                pc = labels[rest[:-1]]
            continue
        if op == 'b':
            pc = labels[rest[:-1]]
            continue
        m = MEM_RE.match(l)
        if m:
            kind, r, base, off = m.groups()
            a = reg[base] + int(off)
            if kind == 'ldr':
                reg[r] = mem[a]
            else:
                mem[a] = reg[r]
            continue
        m = re.match(r'(ldrd|strd) (\w+), (\w+), \[(\w+), #(\d+)\]$', l)
        if m:
            kind, a, b, base, off = m.groups()
            addr = reg[base] + int(off)
            if addr % 4:
                raise SystemExit('%s at an address that is not a multiple of 4' % l)
            if kind == 'ldrd':
                reg[a], reg[b] = mem[addr], mem[addr + 4]
            else:
                mem[addr], mem[addr + 4] = reg[a], reg[b]
            continue
        f = [x.strip() for x in rest.split(',')]
        if op == 'mov':
            reg[f[0]] = reg[f[1]]
        elif op == 'ror':
            reg[f[0]] = ror(reg[f[1]], int(f[2][1:]))
        elif op in ('sub', 'add', 'subs'):
            reg[f[0]] = (reg[f[1]] + (1 if op == 'add' else -1) * val(f[2])) & M32
            z = reg[f[0]] == 0
        else:
            b = val(f[2])
            if len(f) == 4:
                b = ror(b, int(f[3].split('#')[1]))
            reg[f[0]] = reg[f[1]] ^ b if op == 'eor' else reg[f[1]] & b
    assert reg['sp'] == SP - 36
    return [[mem[OUT + stride * k + 4 * i] for i in range(8)] for k in range(len(ins))]


def check(rounds, outs):
    rng = random.Random(rounds[0] * 100 + rounds[1])
    for _ in range(200):
        q = [rng.getrandbits(32) for _ in range(12)]
        rk = [rng.getrandbits(32) for _ in range(8 * 15)]
        if evaluate(outs, q, rk) != model(q, rk, *rounds):
            raise SystemExit('program from round %d of %d differs from the model'
                             % (rounds[1], rounds[0]))


def check_lines(rounds, lines):
    """The emitted instructions, run by simulate() on one to three pairs, against the model."""
    mode = 'face' if rounds[2] == 'face' else 'bytes'
    rng = random.Random(rounds[0] * 100 + rounds[1] + 1)
    for it in range(30):
        base = [rng.getrandbits(32) for _ in range(4)]
        ins = [(base if mode == 'face' else []) + [rng.getrandbits(32) for _ in range(
            8 if mode == 'face' else 12)] for _ in range(1 + it % 3)]
        rk = [rng.getrandbits(32) for _ in range(8 * 15)]
        stride = 128 if rounds[2] == 'sbox' else 32
        if simulate(lines, mode, ins, rk, stride) != [model(q, rk, *rounds) for q in ins]:
            raise SystemExit('instructions from round %d of %d differ from the model'
                             % (rounds[1], rounds[0]))


def function(name, nrounds, first, packed):
    """One function: a loop over pairs of blocks. packed False: (out, rk, in, npairs), the
    blocks' bytes at in; 'face': (out, rk, base2, tab, npairs), FACE's state2(0) at base2 and
    the table entries P[v], P[v + 1], P[v + 2], ... from tab (aes_ctr_face.c)."""
    rounds = (nrounds, first, packed)
    outs = program(*rounds)
    check(rounds, outs)
    outs = schedule(outs)
    check(rounds, outs)
    lines, nslots = allocate(outs)
    # the round-key pointer in slot 1 (allocate()), the loop's own slots above the spill slots:
    # the input (or table) pointer, state2(0)'s pointer or the count; FACE's count is its fifth
    # argument, on the caller's stack above the pushed registers
    rk_s, in_s, x_s = 4, 4 * nslots, 4 * nslots + 4
    frame = 4 * nslots + 8
    face = packed == 'face'
    step = 128 if packed == 'sbox' else 32  # the S-box: 32 bytes of every 128 (aes_ctr_face.c)
    cnt_s = frame + 36 if face else x_s
    rk = packed != 'sbox'  # (the S-box reads no round keys)
    pro = ['push {r4-r11, lr}', 'sub sp, sp, #%d' % frame] + (
        ['str r1, [sp, #%d]' % rk_s] if rk else []) + [
        'str r2, [sp, #%d]' % x_s if face else 'str r3, [sp, #%d]' % cnt_s]
    ptr = 'r3' if face else 'r2'
    # the loop: the count is tested right after the stores, and one pair (the last) falls
    # through to the return; the pointers are reloaded and advanced only for the next pair
    loop = [lines[0], 'str %s, [sp, #%d]' % (ptr, in_s)] + lines[1:] + [
        'ldr r12, [sp, #%d]' % cnt_s, 'subs r12, r12, #1']
    nxt = ['str r12, [sp, #%d]' % cnt_s, 'ldr r0, [sp, #0]'] + (
        ['ldr r1, [sp, #%d]' % rk_s] if rk else []) + ['ldr %s, [sp, #%d]' % (ptr, in_s)] + (['ldr r2, [sp, #%d]' % x_s] if face else []) + [
        'add r0, r0, #%d' % step, 'add %s, %s, #%d' % (ptr, ptr, step)]
    assert lines[0] == 'str r0, [sp, #0]'
    last = (merge_pairs(cluster(pro)) + ['1:'] + merge_pairs(cluster(loop)) +
            ['bne 2f', 'add sp, sp, #%d' % frame, 'pop {r4-r11, pc}'])
    body = last + ['2:'] + merge_pairs(nxt) + ['b 1b']
    check_lines(rounds, body)
    spills = sum(1 for l in last if '[sp' in l and 'd ' not in l[:5]) + 2 * sum(
        1 for l in last if '[sp' in l and 'd ' in l[:5])
    what = 'AES-%d, %s' % (128 if nrounds == 10 else 256, 'rounds %d..%d from FACE\'s cached state'
                           % (first, nrounds) if packed else 'packing, all rounds')
    what += ', SR^2 and unpacking'
    if packed == 'sbox':
        what = ('The S-box (without 0x63) of 32 bytes, the next 32 bytes 128 on, packing and'
                ' unpacking included')
    out = ['/* %s:\n * %d instructions, %d estimated cycles for one pair'
           ' (embedded/bench/run.py),\n * %d stack words loaded and stored, %d spill slots */'
           % (what, sum(1 for l in last if not l.endswith(':')), cycles(last), spills,
              nslots - 2),
           'BS_AES_T2_NAKED void %s(uint8_t *out BS_AES_T2_ARG, const uint32_t *rk BS_AES_T2_ARG,'
           % name]
    if face:
        out += ['        const uint32_t *base2 BS_AES_T2_ARG, const uint32_t *tab BS_AES_T2_ARG,',
                '        size_t npairs BS_AES_T2_ARG)']
    else:
        out += ['        const uint8_t *in BS_AES_T2_ARG, size_t npairs BS_AES_T2_ARG)']
    return out + emit.asm_body(body) + ['']


def search(iters, seed):
    """The hill climb behind PRIORITY: moves or swaps gates in the order, keeps a candidate
    that is no worse. Prints the order found (to paste into PRIORITY)."""
    rng = random.Random(seed)
    rounds = (10, 0, False)

    def cost(order):
        outs = schedule(program(*rounds), order)
        return cycles(merge_pairs(cluster(allocate(outs)[0])))
    order = anneal(PRIORITY.split() or [d for d, _, _, _ in GATES], cost, iters, rng, ' cycles')
    outs = schedule(program(*rounds), order)
    check(rounds, outs)
    words = ' '.join(order).split()
    for k in range(0, len(words), 14):
        print(' '.join(words[k:k + 14]))


def render(comment, guard, cond, flag, define, decls, fns):
    """The header both AES generators write (this one, aes_rv32.py): the comment, then under
    cond (which defines flag) the declarations and, under BS_AES_<define>_DEFINE (aes_fix32.c
    only), the definitions fns, each a function's lines."""
    out = ['/*'] + [' * ' + l for l in comment] + [' */', '#ifndef ' + guard, '#define ' + guard,
                                                    '', '#if ' + cond, '#define %s 1' % flag]
    out += decls
    out += ['', '/* The definitions, in aes_fix32.c only. */', '#ifdef BS_AES_%s_DEFINE' % define,
            '#define BS_AES_%s_NAKED __attribute__((naked, noinline))' % define,
            '#define BS_AES_%s_ARG __attribute__((unused)) /* read by the assembly only */'
            % define, '']
    out += ['\n'.join(f) for f in fns]
    out += ['#endif', '#endif', '', '#endif']
    return '\n'.join(out) + '\n'


def generate():
    check_circuit()
    fns = [('bs_aes128_fix_t2', 10, 0, False), ('bs_aes256_fix_t2', 14, 0, False),
           ('bs_aes128_fix_face_t2', 10, 3, 'face'), ('bs_aes256_fix_face_t2', 14, 3, 'face'),
           ('bs_aes_sbox_t2', 0, 0, 'sbox')]
    return render([
        'aes_fix32_t2.h: generated by embedded/gen/aes_thumb2.py (do not edit; see there for how',
        'and why). Fully fixsliced AES as straight-line Thumb-2 for Cortex-M3/M4, rk the round',
        'keys of bs_aes_key_schedule(.., 4): bs_aes{128,256}_fix_t2 encrypt npairs >= 1 pairs of',
        'blocks at in (32 bytes each, any alignment) into out, packing and unpacking included',
        '(aes_fix32.c); bs_aes{128,256}_fix_face_t2 encrypt npairs >= 1 pairs from FACE\'s cached',
        'state after round 2, base2[c] ^ tab[8k + c] and base2[c] ^ tab[8k + 4 + c] for pair k',
        '(aes_ctr_face.h), from round 3 on (aes_ctr_face.c); bs_aes_sbox_t2 writes the S-box',
        'without 0x63 of npairs 32-byte pieces, at in, in + 128, in + 256, ..., to out, out + 128,',
        '... (rk is not read).'], 'BS_AES_FIX32_T2_H', 'defined(__thumb2__)', 'BS_AES_FIX_T2', 'T2',
        ['void %s(uint8_t *out, const uint32_t *rk, %s, size_t npairs);'
         % (f[0], 'const uint32_t *base2, const uint32_t *tab' if f[3] == 'face' else
            'const uint8_t *in') for f in fns], [function(*f) for f in fns])


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--search':
        check_circuit()
        search(int(sys.argv[2]), int(sys.argv[3]))
    else:
        emit.main(generate, __doc__)
