#!/usr/bin/env python3
"""Writes core/aes/aes_fix32_t2.h: the rounds of fully fixsliced AES-128 and AES-256 as
straight-line Thumb-2 (Cortex-M3/M4), from the same circuit and round structure as the C
(core/aes/aes.h, aes_fix32.c). Run from the repository root; the output is committed.

    python3 embedded/gen/aes_thumb2.py > core/aes/aes_fix32_t2.h

Why a generator: the C loses mostly to register spills inside the S-box (GCC keeps about 90 of
its 200 instructions for loads and stores) and to the in-byte rotations of MixColumns. Here:

- Every value carries a pending rotation: the actual word is ror(register, rot). XOR and AND
  commute with rotations, so ror(A, a) op ror(B, b) = ror(A op ror(B, b - a), a) is one
  instruction with Thumb-2's rotated second operand, and the row rotations of MixColumns (8
  and 16 bits) cost nothing. An AND with a byte-periodic mask m becomes AND with rol(m, a),
  still byte-periodic and so a Thumb-2 modified immediate.
- The in-byte rotation by j of a word x is ror((x & ~L) | ror(x & L, 24), j), L = 0x01010101 *
  (2^j - 1): three instructions, the final rotation again pending.
- Order: the operations are list-scheduled to keep few values live (schedule()).
- Registers: r1 holds the round-key pointer; the other 13 (r0, r2..r12, lr) are allocated over
  the whole straight-line program (10 or 14 rounds unrolled), spilling to the stack the value
  whose next use is farthest (Belady, preferring values already in their slot), reloading on
  use. The S-box still spills: about 50 of a round's 250 instructions are stack loads and
  stores (the circuit keeps 18 of its top-layer values alive across its middle).
- Constant time: no branch, every address is the stack pointer, the state pointer or the round
  key pointer plus a constant.

The program is checked here before it is written: it is evaluated on random states and round
keys (with the rotations resolved) against a direct Python model of aes_fix32.c's rounds.
"""
import random
import re
import sys

M32 = 0xffffffff


def ror(x, n):
    n %= 32
    return ((x >> n) | (x << (32 - n))) & M32 if n else x


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
    return (op('andi', a, m), a[1])


def LDRK(off):
    return (op('ldrk', off), 0)


def LDQ(i):
    return (op('ldq', i), 0)


def rot(a, n):
    return (a[0], (a[1] + n) % 32)


def sbox_ops():
    src = open('core/aes/aes.h').read()
    body = src[src.index('BS_AES_FN void bs_aes_sbox_nonot'):]
    body = body[:body.index('\n}\n')]
    gates = re.findall(r'(\w+) = (\w+) ([\^&]) (\w+)', body)
    outs = re.findall(r'q\[(\d)\] = (\w+) \^ (\w+);', body)
    return gates, outs


GATES, OUTS = sbox_ops()


def sbox(q):
    env = {'u%d' % i: q[7 - i] for i in range(8)}
    for d, a, o, b in GATES:
        env[d] = (XOR if o == '^' else AND)(env[a], env[b])
    r = [None] * 8
    for i, a, b in OUTS:
        r[int(i)] = XOR(env[a], env[b])
    return r


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


def ark(q, i):
    return [XOR(q[b], LDRK(4 * (8 * i + b))) for b in range(8)]


def program(nrounds, first, last):
    """aes_fix32.c's fix_encrypt between packing and SR^2, rounds first..last (round 0 being the
    first AddRoundKey): round i < Nr ends in representation i mod 4, the last round has no
    MixColumns. Rounds 0..2 and 3..Nr are separate functions, so that FACE (aes_ctr_face.c),
    which caches rounds 1 and 2, runs the second alone."""
    del defs[:]
    q = [LDQ(i) for i in range(8)]
    for i in range(first, last + 1):
        if i:
            q = sbox(q)
            if i < nrounds:
                q = mixcolumns(q, i % 4)
        q = ark(q, i)
    return q


# ---- a direct model of the C, to check the program against ----
def model_sbox(q):
    env = {'u%d' % i: q[7 - i] for i in range(8)}
    for d, a, o, b in GATES:
        env[d] = env[a] ^ env[b] if o == '^' else env[a] & env[b]
    r = [0] * 8
    for i, a, b in OUTS:
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


def model(q, rk, nrounds, first, last):
    for i in range(first, last + 1):
        if i:
            q = model_sbox(q)
            if i < nrounds:
                q = model_mc(q, i % 4)
        q = [q[b] ^ rk[8 * i + b] for b in range(8)]
    return q


def evaluate(outs, q, rk):
    """Runs the program on register values (no rotations resolved until the end)."""
    reg = []
    for kind, args in defs:
        if kind == 'ldq':
            v = q[args[0]]
        elif kind == 'ldrk':
            v = rk[args[0] // 4]
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
def schedule(outs):
    """Reorders defs (a topological order of the same DAG): among the ready operations, the
    one that frees the most registers net (operands at their last use minus the new value),
    ties to the one whose operands were computed last (it continues the current chain), then
    to the earliest in the original order. Returns the outputs renamed."""
    n = len(defs)
    srcs = [[a[0] for a in args if isinstance(a, tuple)] for _, args in defs]
    users = [[] for _ in range(n)]
    for p in range(n):
        for v in set(srcs[p]):
            users[v].append(p)
    remaining = [len(users[v]) + sum(1 for w, _ in outs if w == v) for v in range(n)]
    waiting = [len(set(srcs[p])) for p in range(n)]
    ready = {p for p in range(n) if waiting[p] == 0}
    order = []
    when = {}
    while ready:
        def score(p):
            dying = sum(1 for v in set(srcs[p]) if remaining[v] == 1)
            recent = max((when[v] for v in srcs[p]), default=-1)
            return (1 - dying, -recent, p)
        loads = [p for p in ready if defs[p][0] == 'ldq']  # r0 is the state pointer until then
        p = min(loads) if loads else min(ready, key=score)
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
REGS = ['r0', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'lr']


def allocate(outs):
    n = len(defs)
    uses = [[] for _ in range(n)]
    for p, (kind, args) in enumerate(defs):
        for a in args:
            if isinstance(a, tuple):
                uses[a[0]].append(p)
    END = n  # the final stores use the outputs
    for v, _ in outs:
        uses[v].append(END)
    nxt = [0] * n  # index into uses[v] of the next use
    reg_of, slot_of, in_slot = {}, {}, set()
    free = [r for r in REGS if r != 'r0']  # r0: the state pointer until the loads are done
    holder = {}  # register -> vid
    free_slots, nslots = [], 1  # slot 0: the state pointer
    lines = []

    def next_use(v, p):
        for u in uses[v]:
            if u >= p:
                return u
        return None

    def evict(p, keep):
        nonlocal nslots
        best, bu = None, -1
        for r, v in holder.items():
            if v in keep:
                continue
            u = next_use(v, p)
            u = 1 << 30 if u is None else u
            if v in in_slot:
                u += CLEAN_BONUS  # no store needed: cheaper to evict
            if u > bu:
                best, bu = r, u
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

    def get_reg(p, keep):
        return free.pop(0) if free else evict(p, keep)

    def release_dead(v, p):
        if next_use(v, p + 1) is None:
            if v in reg_of:
                r = reg_of.pop(v)
                del holder[r]
                free.append(r)
            if v in slot_of:
                free_slots.append(slot_of.pop(v))
                in_slot.discard(v)

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
        srcs = [a[0] for a in args if isinstance(a, tuple)]
        keep = set(srcs)
        regs = [fetch(v, p, keep) for v in srcs]
        if kind != 'ldq' and not qptr_free:
            free.insert(0, 'r0')  # the state pointer is on the stack from here on
            qptr_free = True
        for v in set(srcs):
            release_dead(v, p)
        d = get_reg(p, keep)
        reg_of[p], holder[d] = d, p
        if kind == 'ldq':
            lines.append('ldr %s, [r0, #%d]' % (d, 4 * args[0]))
        elif kind == 'ldrk':
            lines.append('ldr %s, [r1, #%d]' % (d, args[0]))
        elif kind == 'andi':
            (a, ra), m = args
            lines.append('and %s, %s, #0x%08x' % (d, regs[0], ror(m, -ra)))
        else:
            (a, ra), (b, rb) = args
            sh = (rb - ra) % 32
            lines.append('%s %s, %s, %s%s' % (kind, d, regs[0], regs[1],
                                             ', ror #%d' % sh if sh else ''))
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


def check(rounds, outs):
    rng = random.Random(rounds[0] * 100 + rounds[1])
    for _ in range(200):
        q = [rng.getrandbits(32) for _ in range(8)]
        rk = [rng.getrandbits(32) for _ in range(8 * 15)]
        if evaluate(outs, q, rk) != model(q, rk, *rounds):
            raise SystemExit('program for rounds %d..%d of %d differs from the model'
                             % (rounds[1], rounds[2], rounds[0]))


def function(name, nrounds, first, last):
    rounds = (nrounds, first, last)
    outs = program(*rounds)
    check(rounds, outs)
    outs = schedule(outs)
    check(rounds, outs)
    lines, nslots = allocate(outs)
    frame = 4 * nslots
    body = ['push {r4-r11, lr}', 'sub sp, sp, #%d' % frame] + lines + [
        'add sp, sp, #%d' % frame, 'pop {r4-r11, pc}']
    spills = sum(1 for l in lines if '[sp' in l)
    what = 'rounds %d..%d' % (first, last) + (' of AES-%d' % (128 if nrounds == 10 else 256)
                                              if last > 2 else ' (AES-128, AES-256)')
    out = ['/* %s: %d instructions, %d stack loads and stores, %d spill slots */'
           % (what, len(body), spills, nslots - 1),
           'BS_AES_T2_NAKED void %s(uint32_t *q BS_AES_T2_ARG,' % name,
           '                     const uint32_t *rk BS_AES_T2_ARG)', '{',
           '    __asm__ volatile(']
    out += ['        "%s\\n"' % l for l in body]
    out += ['    );', '}', '']
    return out


def main():
    if len(sys.argv) != 1:
        raise SystemExit(__doc__)
    print('/*')
    print(' * aes_fix32_t2.h: generated by embedded/gen/aes_thumb2.py (do not edit; see there for how')
    print(' * and why). Fully fixsliced AES rounds as straight-line Thumb-2 for Cortex-M3/M4: q holds')
    print(' * the packed state (aes.h), rk the round keys of bs_aes_key_schedule(.., 4). Rounds 0..2')
    print(' * (the first AddRoundKey and rounds 1 and 2) then 3..Nr leave in q the state before SR^2')
    print(' * and unpacking (aes_fix32.c); FACE (aes_ctr_face.c) starts at round 3.')
    print(' */')
    print('#ifndef BS_AES_FIX32_T2_H')
    print('#define BS_AES_FIX32_T2_H')
    print('')
    print('#if defined(__thumb2__)')
    print('#define BS_AES_FIX_T2 1')
    fns = [('bs_aes_fix_rounds012_t2', 10, 0, 2), ('bs_aes128_fix_rounds3_t2', 10, 3, 10),
           ('bs_aes256_fix_rounds3_t2', 14, 3, 14)]
    for f in fns:
        print('void %s(uint32_t *q, const uint32_t *rk);' % f[0])
    print('')
    print('/* The definitions, in aes_fix32.c only. */')
    print('#ifdef BS_AES_T2_DEFINE')
    print('#define BS_AES_T2_NAKED __attribute__((naked, noinline))')
    print('#define BS_AES_T2_ARG __attribute__((unused)) /* read by the assembly only */')
    print('')
    for f in fns:
        print('\n'.join(function(*f)))
    print('#endif')
    print('#endif')
    print('')
    print('#endif')


if __name__ == '__main__':
    main()
