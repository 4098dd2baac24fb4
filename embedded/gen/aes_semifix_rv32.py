#!/usr/bin/env python3
"""Writes core/aes/aes_semifix32_rv32.h: semi-fixsliced AES-128 and AES-256 on two blocks as one
compact RV32I function that loops over the rounds, the same shape as the Thumb-2 of
aes_semifix_thumb2.py (see there), lowered as aes_rv32.py lowers the fully fixsliced rounds
(rotations made explicit where operands disagree, masks in registers); core/aes/meson.build
runs it at build time.

    python3 embedded/gen/aes_semifix_rv32.py aes_semifix32_rv32.h
    python3 embedded/gen/aes_semifix_rv32.py --search ITERATIONS SEED   (see SBOX_PRIORITY)

- One round a pass: AddRoundKey and the S-box, then by the round's parity MixColumns 1 or SR^2
  and MixColumns 0 (after the last: AddRoundKey, the unpacking with SR^2 on the unpacked
  words, as aes_semifix32.c). The parities come in a3 with bit 31 - i set for odd round i
  (BS_AES_SEMIFIX_RV32_R128 / _R256): shifted left once a round, its sign is the round's
  parity and zero marks the last round.
- Registers: the state in eight fixed registers at the top of the loop, the round-key pointer
  in a1 and the parities in a3 throughout, the output pointer on the stack; the S-box and each
  MixColumns are allocated as in aes_rv32.py (Belady over 24 registers), each MixColumns ending
  with its outputs in the loop's registers. s0..s11 and ra are saved when used.
- Constant time: the branches depend on the round number only; every address is sp, the
  round-key pointer or a block pointer plus a constant. The blocks must be word-aligned
  (aes_semifix32.c copies the others through an aligned buffer).

Checked before writing: each piece's program against aes_thumb2.py's model of the C, then the
whole emitted function, run by a small RV32I interpreter, against aes_semifix_thumb2.py's model
of aes_semifix32.c for 10 and 14 rounds on random blocks and round keys (callee-saved registers
and sp restored).
"""
import random

import aes_rv32 as R  # (replaces aes_thumb2.py's XOR, AND, ANDI, sbox, byte_ror, swapmove)
import aes_thumb2 as G
import aes_semifix_thumb2 as S
import emit

RKP, CNT = 'a1', 'a3'
REGS = [r for r in R.REGS if r not in (RKP, CNT)]
TOP = ['s7', 'a4', 's10', 's2', 't4', 't3', 's6', 'a7']  # (a random search's best)
PATTERN = {nr: sum(1 << (31 - i) for i in range(1, nr, 2)) for nr in (10, 14)}


def reset():
    S.reset()
    R.ROR_MEMO.clear()
    R.LI_MEMO.clear()


def sr2(x):
    """aes.h's bs_aes_sr2 with shifts: t = ((x >> 4) ^ x) & 0x0f000f00, x ^ t ^ (t << 4)."""
    x = R.align(x, 0)
    t = R.ANDI(R.XOR(R.shift('srl', x, 4), x), 0x0f000f00)
    return R.XOR(R.XOR(x, t), R.shift('sll', t, 4))


def byte_ror(x, j):
    """aes.h's bs_aes_byte_ror as a multiplexer, B ^ ((A ^ B) & lo) with A = x >> j, B = x <<
    (8 - j): five instructions and one mask (aes_rv32.py's form needs lo and ~lo). A pending
    rotation of x by a multiple of 8 stays pending (the in-byte rotation commutes with it)."""
    lo = 0x01010101 * (0xff >> j)
    r = x[1] if x[1] % 8 == 0 else 0
    x = R.align(x, r)
    base = (x[0], 0)
    a, b = R.shift('srl', base, j), R.shift('sll', base, 8 - j)
    v = R.XOR(b, R.ANDI(R.XOR(a, b), lo))
    return (v[0], r)


G.byte_ror = byte_ror


def ark(q):
    rkp = (G.op('rkp'), 0)
    out = []
    for b in range(0, 8, 2):
        lo = (G.op('ldrk2', rkp, 4 * b), 0)
        hi = (G.op('ldrk2hi', lo), 0)
        out += [R.XOR(q[b], lo), R.XOR(q[b + 1], hi)]
    return out


def piece(name):
    reset()
    q = [G.LDQ(i) for i in range(8)]
    if name == 'pack':
        return G.pack(q)
    if name == 'sbox':
        return G.sbox(ark(q))
    if name == 'mc1':
        return G.mixcolumns(q, 1)
    if name == 'mc0':
        return G.mixcolumns([sr2(x) for x in q], 0)
    if name == 'final':
        return G.unpack_sr2(ark(q))
    raise ValueError(name)


def model_piece(name, q, rk):
    if name == 'sbox':
        return G.model_sbox([q[b] ^ rk[b] for b in range(8)])
    if name == 'mc0':
        return G.model_mc([G.model_sr2(x) for x in q], 0)
    if name == 'final':
        return S.model_piece('unpack_sr2', [q[b] ^ rk[b] for b in range(8)])
    return S.model_piece(name, q)


def check_piece(name, outs):
    rng = random.Random(name)
    for _ in range(100):
        q = [rng.getrandbits(32) for _ in range(8)]
        rk = [rng.getrandbits(32) for _ in range(8)]
        if G.evaluate(outs, q + [0] * 4, rk) != model_piece(name, q, rk):
            raise SystemExit('RV32I piece %s differs from the model' % name)


def allocate(outs, placed, free, targets=None, store_out=False):
    """aes_semifix_thumb2.py's allocate for RV32I (aes_rv32.py's forms): placed maps the 'ldq'
    inputs to their registers (None: loads through a2), 'rkp' is a1; targets: the registers the
    outputs end in (None: where they are); store_out: stored through the output pointer (slot
    0). Returns (lines, the outputs' registers, stack slots, registers written)."""
    defs = G.defs
    uses = G.uses_of(defs, outs)
    END = len(defs)
    lines = []
    homes = emit.RvHomes(uses, list(free), defs, lines, G.CLEAN_BONUS)
    reg_of, holder, free_l, get_reg = homes.reg_of, homes.holder, homes.free, homes.get_reg
    out_vids = {v: i for i, (v, r) in enumerate(outs) if r == 0}
    homes.pending = set(targets or [])
    if placed is not None:
        for p, (kind, args) in enumerate(defs):
            if kind == 'ldq':
                reg_of[p], holder[placed[args[0]]] = placed[args[0]], p

    loads_done = placed is not None
    for p, (kind, args) in enumerate(defs):
        if kind in ('ldrk2hi', 'li', 'rkp') or (kind == 'ldq' and placed is not None):
            continue
        srcs = [a[0] for a in args if isinstance(a, tuple) and defs[a[0]][0] != 'rkp']
        keep = set(srcs)
        regs = [homes.fetch(v, p, keep) for v in srcs]
        if kind != 'ldq' and not loads_done:
            free_l.insert(0, 'a2')
            loads_done = True
        for v in set(srcs):
            homes.release_dead(v, p)
        want = targets[out_vids[p]] if targets and p in out_vids else None
        d = get_reg(p, keep, want)
        homes.pending.discard(want)
        reg_of[p], holder[d] = d, p
        if kind == 'ldq':
            lines.append('lw %s, %d(a2)' % (d, 4 * args[0]))
        elif kind == 'ldrk2':
            d2 = get_reg(p, keep | {p})
            reg_of[p + 1], holder[d2] = d2, p + 1
            lines += ['lw %s, %d(%s)' % (d, args[1], RKP), 'lw %s, %d(%s)' % (d2, args[1] + 4, RKP)]
        else:
            lines += emit.rv_op(kind, d, regs, args)
        if not uses[p]:
            homes.release_dead(p, p)
    used = homes.used
    if store_out:
        homes.store_outs(outs, END)
        return lines, None, homes.nslots, used
    live = {w for w, _ in outs}
    for v, r in outs:
        homes.fetch(v, END, live)
    for v, r in outs:
        if r:
            lines += emit.rv_rot(reg_of[v], reg_of[v], r)
    where = [reg_of[v] for v, _ in outs]
    if targets is None:
        return lines, where, homes.nslots, used
    cur = list(where)
    while cur != list(targets):
        done = False
        for i in range(8):
            if cur[i] != targets[i] and targets[i] not in cur:
                lines.append('mv %s, %s' % (targets[i], cur[i]))
                cur[i] = targets[i]
                done = True
        if not done:
            i = next(i for i in range(8) if cur[i] != targets[i])
            lines.append('mv t6, %s' % cur[i])
            cur[i] = 't6'
    used |= set(targets)
    return lines, list(targets), homes.nslots, used


# The S-box gates' priorities for the schedule, found by `--search` (a hill climb from the
# circuit's own order, then from its result, each candidate scored by the instructions of an
# AES-128 call; 500 and 800 steps): 30 instructions fewer; empty: the circuit's order.
SBOX_PRIORITY = """
y4 t24 t14 t30 t28 z2 t65 t48 z14 t11 t10 t43 t25 t50
t61 t32 y19 t27 s5 t1 t42 t39 t12 t51 t64 t60 y16 y14
y8 y13 t49 t58 z15 y10 z7 t55 t16 y11 t35 y2 t59 t23
s6 y5 z17 y9 t6 z13 s3 t54 t45 y17 y7 t17 z0 t33
t37 s1 z3 t21 t22 z9 z8 t29 t2 s0 t7 t34 t56 t63
z4 y21 t20 t53 t44 z5 t3 y3 t9 t38 t41 t13 t40 t52
t66 z11 t0 y6 t46 z16 t5 t67 y18 y1 t4 t26 t57 s4
y15 y20 z12 z1 t15 y12 t36 z10 s7 t18 t62 t19 t31 z6
t8 s2 t47
"""


def build_piece(name, placed, free, targets=None, store_out=False, order=None):
    outs = piece(name)
    check_piece(name, outs)
    if name == 'sbox':
        order = order or SBOX_PRIORITY.split() or [d for d, _, _, _ in G.GATES]
    outs = G.schedule(outs, order)
    check_piece(name, outs)
    return allocate(outs, placed, free, targets, store_out)


def function_lines(order=None):
    """(out a0, rk a1, in a2, parities a3)."""
    pack, _, n0, u0 = build_piece('pack', None, [r for r in REGS if r != 'a2'],
                                  targets=TOP)
    free_top = [r for r in REGS if r not in TOP]
    sbox, s_where, n1, u1 = build_piece('sbox', TOP, free_top, order=order)
    free_s = [r for r in REGS if r not in s_where]
    mc1, _, n2, u2 = build_piece('mc1', s_where, free_s, targets=TOP)
    mc0, _, n3, u3 = build_piece('mc0', s_where, free_s, targets=TOP)
    final, _, n4, u4 = build_piece('final', s_where, free_s, store_out=True)
    used = u0 | u1 | u2 | u3 | u4 | set(TOP)
    saved = [r for r in R.SAVED if r in used]
    nslots = max(n0, n1, n2, n3, n4)
    frame = (4 * (nslots + len(saved)) + 15) // 16 * 16
    base = 4 * nslots
    pro = ['addi sp, sp, -%d' % frame] + ['sw %s, %d(sp)' % (r, base + 4 * i)
                                          for i, r in enumerate(saved)] + ['sw a0, 0(sp)']
    epi = ['lw %s, %d(sp)' % (r, base + 4 * i) for i, r in enumerate(saved)] + [
        'addi sp, sp, %d' % frame, 'ret']
    body = (pro + pack + ['j 1f', '3:'] + mc1 + ['1:'] + sbox +
            ['addi %s, %s, 32' % (RKP, RKP), 'slli %s, %s, 1' % (CNT, CNT),
             'bltz %s, 3b' % CNT, 'beqz %s, 4f' % CNT] + mc0 + ['j 1b', '4:'] + final + epi)
    return body, frame


def simulate(lines, inw, rk, nr):
    """Returns (the eight output words, instructions executed (li: 2))."""
    OUT, RK, IN, SP = 0x40000, 0x10000, 0x20000, 0x80000
    reg = {r: 0 for r in R.REGS + ['a1', 't6', 'zero']}
    callee = {r: 0x5a5a0000 + i for i, r in enumerate(R.SAVED)}
    reg.update(callee)
    reg.update({'a0': OUT, 'a1': RK, 'a2': IN, 'a3': PATTERN[nr], 'sp': SP})
    mem = {RK + 4 * i: w for i, w in enumerate(rk)}
    mem.update({IN + 4 * i: w for i, w in enumerate(inw)})
    pc, n = 0, 0

    def target(lab):
        name, back = lab[:-1], lab.endswith('b')
        idx = [i for i, l in enumerate(lines) if l == name + ':']
        return max(i for i in idx if i < pc) if back else min(i for i in idx if i >= pc)
    while True:
        l = lines[pc]
        pc += 1
        if l.endswith(':'):
            continue
        n += 2 if l.startswith('li ') else 1
        if l == 'ret':
            break
        op, rest = l.split(None, 1)
        f = [x.strip() for x in rest.split(',')]
        if op == 'j':
            pc = target(f[0])
            continue
        if op in ('bltz', 'beqz'):
            x = reg[f[0]]
            if (op == 'bltz' and x >> 31) or (op == 'beqz' and x == 0):
                pc = target(f[1])
            continue
        emit.rv_step(l, reg, mem)
    if reg['sp'] != SP or any(reg[r] != v for r, v in callee.items()):
        raise SystemExit('aes_semifix_rv32.py: sp or a callee-saved register not restored')
    return [mem[OUT + 4 * i] for i in range(8)], n


def check(lines, runs=40):
    return emit.check_rounds(lambda inw, rk, nr: simulate(lines, inw, rk, nr), S.model, 2027,
                             'RV32I AES', runs)


def generate():
    G.check_circuit()
    lines, frame = function_lines()
    stats = check(lines)
    comment = [
        'aes_semifix32_rv32.h: generated by embedded/gen/aes_semifix_rv32.py (do not edit; see',
        'there for how and why). Semi-fixsliced AES-128 and AES-256 as one compact RV32I',
        'function (aes_semifix32.c): bs_aes_semifix_rv32 encrypts the two blocks at in (32',
        'bytes, word-aligned) into out (word-aligned), packing and unpacking included, with the',
        'round keys rk of bs_aes_key_schedule(.., 2); rounds is BS_AES_SEMIFIX_RV32_R128 or',
        'BS_AES_SEMIFIX_RV32_R256 (the rounds\' parities, see the generator).',
        'One call: AES-128 %d instructions, AES-256 %d (li counted as two); %d in all.'
        % (stats[10], stats[14], sum(1 for l in lines if not l.endswith(':')))]
    out = ['/*'] + [' * ' + l for l in comment] + [
        ' */', '#ifndef BS_AES_SEMIFIX32_RV32_H', '#define BS_AES_SEMIFIX32_RV32_H', '',
        '#if defined(__riscv) && __riscv_xlen == 32', '#define BS_AES_SEMIFIX_RV32 1',
        '#define BS_AES_SEMIFIX_RV32_R128 0x%08xu' % PATTERN[10],
        '#define BS_AES_SEMIFIX_RV32_R256 0x%08xu' % PATTERN[14],
        'void bs_aes_semifix_rv32(uint8_t *out, const uint32_t *rk, const uint8_t *in,',
        '                         uint32_t rounds);', '',
        '/* The definition, in aes_semifix32.c only. */', '#ifdef BS_AES_SEMIFIX_RV32_DEFINE',
        '#define BS_AES_SF_ARG __attribute__((unused)) /* read by the assembly only */',
        '__attribute__((naked, noinline)) void',
        'bs_aes_semifix_rv32(uint8_t *out BS_AES_SF_ARG, const uint32_t *rk BS_AES_SF_ARG,',
        '                    const uint8_t *in BS_AES_SF_ARG, uint32_t rounds BS_AES_SF_ARG)']
    out += emit.asm_body(lines)
    out += ['#endif', '#endif', '', '#endif']
    return '\n'.join(out) + '\n'


def search(iters, seed):
    G.check_circuit()
    cost = lambda order: check(function_lines(order)[0], 1)[10]
    emit.print_words(G.anneal(SBOX_PRIORITY.split() or [d for d, _, _, _ in G.GATES], cost,
                              iters, random.Random(seed)))


if __name__ == '__main__':
    emit.main(generate, __doc__, search=search)
