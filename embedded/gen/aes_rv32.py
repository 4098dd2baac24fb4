#!/usr/bin/env python3
"""Writes core/aes/aes_fix32_rv32.h: fully fixsliced AES-128 and AES-256 as straight-line RV32I,
from the same program as the Thumb-2 (aes_thumb2.py: circuit, fixsliced rounds, packing, SR^2,
schedule, checks), lowered for a core without rotations or large immediates;
core/aes/meson.build runs it at build time.

    python3 embedded/gen/aes_rv32.py aes_fix32_rv32.h

- Rotations: a value still carries a pending rotation (the word is ror(register, rot)), so the
  S-box and most XORs of MixColumns need none; where two operands disagree, the one rotation
  is made explicit (slli, srli, or: three instructions), once per value and amount. Every
  S-box starts by bringing its eight inputs to one rotation (the commonest).
- Masks (MixColumns' in-byte rotations, packing): 32-bit constants in registers, loaded with
  li where first needed and dropped, never stored, when a register is short.
- Registers: 26 of them (a0..a7, t0..t5, s0..s11, ra; t6 is the rotations' scratch), allocated
  as in aes_thumb2.py (Belady); s0..s11 and ra are saved when used. With 26 registers the
  S-box's 18 long-lived values fit.
- FACE (aes_ctr_face.c): an entry that starts from the cached state (state2(0) XOR the table
  entries of a pair, packed) and runs rounds 3.. of every pair of an epoch in one call, and the
  refresh's S-box on 32 bytes of every 128, both looping over pairs like the Thumb-2 ones.
- Constant time: no branch but the loops' counts; every address is sp, the round-key pointer or
  a block or table pointer plus a constant. Blocks and tables must be word-aligned (RV32I has
  no unaligned loads): aes_fix32.c and aes_ctr_face.c copy through aligned buffers otherwise.
- Checked before writing: the program against aes_thumb2.py's model of the C, then the emitted
  instructions themselves, run by a small RV32I interpreter (simulate()) against the same
  model, callee-saved registers and sp included.
"""
import random

import aes_thumb2 as G
import emit

ROR_MEMO, LI_MEMO = {}, {}


def XOR(a, b):
    return (G.op('eor', a, align(b, a[1])), a[1])


def AND(a, b):
    return (G.op('and', a, align(b, a[1])), a[1])


def align(b, r):
    """b as a value with pending rotation r (an explicit rotation if it has another)."""
    if b[1] == r:
        return b
    n = (b[1] - r) % 32
    key = (b[0], n)
    if key not in ROR_MEMO:
        ROR_MEMO[key] = G.op('ror', (b[0], 0), n)
    return (ROR_MEMO[key], r)


def ANDI(a, m):
    v = G.ror(m, -a[1])  # the register's mask: rol(m, rot)
    if v not in LI_MEMO:
        LI_MEMO[v] = G.op('li', v)
    return (G.op('and', a, (LI_MEMO[v], a[1])), a[1])


def shift(kind, x, n):
    return (G.op(kind, align(x, 0), n), 0)


def byte_ror(x, j):
    """aes.h's bs_aes_byte_ror with shifts: five instructions (the rotation form of the
    Thumb-2 would take six here)."""
    lo = 0x01010101 * (0xff >> j)
    return XOR(ANDI(shift('srl', x, j), lo), ANDI(shift('sll', x, 8 - j), ~lo & G.M32))


def swapmove(a, b, m, n):
    """aes.h's bs_swapmove32 with shifts (six instructions)."""
    a = align(a, 0)
    t = ANDI(XOR(shift('srl', b, n), a), m)
    return XOR(a, t), XOR(b, shift('sll', t, n))


c_sbox = G.sbox


def sbox(q):
    rots = [x[1] for x in q]
    r = max(set(rots), key=rots.count)
    return c_sbox([align(x, r) for x in q])


c_program = G.program


def program(*rounds):
    ROR_MEMO.clear()
    LI_MEMO.clear()
    return c_program(*rounds)


G.XOR, G.AND, G.ANDI, G.sbox = XOR, AND, ANDI, sbox
# The Thumb-2's gate priority was searched for 14 registers; with 26 the circuit's own order
# does better (2746 against 2761 instructions for AES-128).
G.PRIORITY = ''
G.byte_ror, G.swapmove = byte_ror, swapmove

REGS = (['a3', 'a4', 'a5', 'a6', 'a7', 't0', 't1', 't2', 't3', 't4', 't5', 'a0', 'a2'] +
        ['s%d' % i for i in range(12)] + ['ra'])
SAVED = ['s%d' % i for i in range(12)] + ['ra']


def allocate(outs):
    """aes_thumb2.py's allocate for RV32I: a0 = out (to the stack at once), a1 = rk, a2 = in
    (FACE: state2(0)), a3 = FACE's table entries; a2 and a3 are free once loaded."""
    defs = G.defs
    uses = G.uses_of(defs, outs)
    END = len(defs)
    face = any(kind == 'ldp' for kind, _ in defs)
    free = [r for r in REGS if r not in ('a1', 'a2') + (('a3',) if face else ())]
    lines = []
    homes = emit.RvHomes(uses, free, defs, lines, G.CLEAN_BONUS)
    reg_of, holder, get_reg = homes.reg_of, homes.holder, homes.get_reg

    lines.append('sw a0, 0(sp)')
    in_free = False
    for p, (kind, args) in enumerate(defs):
        if kind in ('ldrk2hi', 'li'):
            continue  # defined by its pair's load; a constant is loaded where used
        if kind == 'rkp':
            assert p == 0
            if uses[p]:
                reg_of[p], holder['a1'] = 'a1', p
            else:
                free.append('a1')  # no round keys (the S-box alone)
            continue
        srcs = [a[0] for a in args if isinstance(a, tuple)]
        keep = set(srcs)
        regs = [homes.fetch(v, p, keep) for v in srcs]
        if kind not in ('ldq', 'ldp') and not in_free:
            free[:0] = ['a2', 'a3'] if face else ['a2']  # the input is loaded
            in_free = True
        for v in set(srcs):
            homes.release_dead(v, p)
        d = get_reg(p, keep)
        reg_of[p], holder[d] = d, p
        if kind == 'ldq':
            lines.append('lw %s, %d(a2)' % (d, 4 * args[0]))
        elif kind == 'ldp':
            lines.append('lw %s, %d(a3)' % (d, 4 * args[0]))
        elif kind == 'ldrk2':
            d2 = get_reg(p, keep | {p})
            reg_of[p + 1], holder[d2] = d2, p + 1
            lines.append('lw %s, %d(%s)' % (d, args[1], regs[0]))
            lines.append('lw %s, %d(%s)' % (d2, args[1] + 4, regs[0]))
        else:
            lines += emit.rv_op(kind, d, regs, args)
        if not uses[p]:
            homes.release_dead(p, p)
    homes.store_outs(outs, END)
    return lines, homes.nslots, [r for r in SAVED if r in homes.used]


# ---- the emitted instructions, run against the model ----
def simulate(lines, mode, ins, rk, stride=32):
    """Runs the emitted RV32I lines (the few forms function() writes) on len(ins) pairs, as
    aes_thumb2.py's simulate(): mode 'bytes', ins[k] the eight input words of pair k (one pair:
    the straight-line functions); 'face', ins[k] state2(0)'s four words and the two table
    entries (the same state2(0) for every pair); 'sbox', 32 bytes of every `stride`. Returns
    the eight output words of each pair. Every register the callee must keep is checked."""
    OUT, RK, IN, TAB, SP = 0x40000, 0x10000, 0x20000, 0x30000, 0x80000
    reg = {r: 0 for r in REGS + ['a1', 't6', 'zero']}
    callee = {r: 0x5a5a0000 + i for i, r in enumerate(SAVED)}
    reg.update(callee)
    reg.update({'a0': OUT, 'a1': RK, 'a2': IN, 'sp': SP})
    mem = G.memory(rk, RK, ins, IN, stride, 4 if mode == 'face' else 8,
                   TAB if mode == 'face' else None)
    if mode == 'face':
        reg['a3'], reg['a4'] = TAB, len(ins)
    elif mode == 'sbox':
        reg['a3'] = len(ins)
    else:
        assert len(ins) == 1
    labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(':')}
    pc = 0
    while True:
        l = lines[pc]
        pc += 1
        if l.endswith(':'):
            continue
        if l == 'ret':
            break
        if l.startswith('bnez '):
            r, lab = [x.strip() for x in l[5:].split(',')]
            if reg[r] != 0:
                pc = labels[lab[:-1]]
            continue
        emit.rv_step(l, reg, mem)
    if reg['sp'] != SP:
        raise SystemExit('aes_rv32.py: stack pointer not restored')
    for r, v in callee.items():
        if reg[r] != v:
            raise SystemExit('aes_rv32.py: %s not restored' % r)
    return [[mem[OUT + stride * k + 4 * i] for i in range(8)] for k in range(len(ins))]


def check_lines(rounds, lines):
    """The emitted instructions, run by simulate() on one to three pairs (the straight-line
    functions: one), against aes_thumb2.py's model of the C."""
    mode = rounds[2] if rounds[2] in ('face', 'sbox') else 'bytes'
    rng = random.Random(rounds[0] * 100 + rounds[1] + 2)
    for it in range(30):
        base = [rng.getrandbits(32) for _ in range(4)]
        npairs = 1 + it % 3 if mode != 'bytes' else 1
        ins = [(base if mode == 'face' else []) + [rng.getrandbits(32) for _ in range(
            8 if mode == 'face' else 12)] for _ in range(npairs)]
        rk = [rng.getrandbits(32) for _ in range(8 * 15)]
        stride = 128 if mode == 'sbox' else 32
        if simulate(lines, mode, ins, rk, stride) != [G.model(q, rk, *rounds) for q in ins]:
            raise SystemExit('RV32I instructions from round %d of %d differ from the model'
                             % (rounds[1], rounds[0]))


def count(lines):
    return sum(2 if l.startswith('li ') else 0 if l.endswith(':') else 1 for l in lines)


def function(name, nrounds, first, packed):
    """One function. packed False: (out, rk, in), one pair, straight-line; 'face': (out, rk,
    base2, tab, npairs), npairs >= 1 pairs from FACE's state2(0) at base2 and the table entries
    P[v], P[v + 1], P[v + 2], ... from tab, looped (aes_ctr_face.c); 'sbox': (out, rk, in,
    npairs), the S-box of 32 bytes of every 128 (FACE's refresh, rk not read), looped."""
    rounds = (nrounds, first, packed)
    outs = program(*rounds)
    G.check(rounds, outs)
    outs = G.schedule(outs)
    G.check(rounds, outs)
    lines, nslots, saved = allocate(outs)
    loop = packed in ('face', 'sbox')
    # a loop keeps, above the spill slots, the round-key pointer, the input (table) pointer,
    # state2(0)'s pointer and the count
    nloop = 4 if loop else 0
    frame = (4 * (nslots + nloop + len(saved)) + 15) // 16 * 16
    rk_s, in_s, x_s, cnt_s = (4 * (nslots + i) for i in range(4))
    base = 4 * (nslots + nloop)
    pro = ['addi sp, sp, -%d' % frame] + ['sw %s, %d(sp)' % (r, base + 4 * i)
                                          for i, r in enumerate(saved)]
    epi = ['lw %s, %d(sp)' % (r, base + 4 * i) for i, r in enumerate(saved)] + [
        'addi sp, sp, %d' % frame, 'ret']
    if loop:
        assert lines[0] == 'sw a0, 0(sp)'
        step = 128 if packed == 'sbox' else 32
        face = packed == 'face'
        ptr, cnt = ('a3', 'a4') if face else ('a2', 'a3')
        pro += ['sw a1, %d(sp)' % rk_s, 'sw %s, %d(sp)' % (cnt, cnt_s)] + (
            ['sw a2, %d(sp)' % x_s] if face else [])
        tail = ['lw t6, %d(sp)' % cnt_s, 'lw a0, 0(sp)', 'lw a1, %d(sp)' % rk_s,
                'lw %s, %d(sp)' % (ptr, in_s)] + (['lw a2, %d(sp)' % x_s] if face else []) + [
            'addi t6, t6, -1', 'addi a0, a0, %d' % step, 'addi %s, %s, %d' % (ptr, ptr, step),
            'sw t6, %d(sp)' % cnt_s, 'bnez t6, 1b']
        body = pro + ['1:', lines[0], 'sw %s, %d(sp)' % (ptr, in_s)] + lines[1:] + tail + epi
    else:
        body = pro + lines + epi
    check_lines(rounds, body)
    spills = sum(1 for l in lines if '(sp)' in l)
    what = 'AES-%d, %s' % (128 if nrounds == 10 else 256, (
        'rounds %d..%d from FACE\'s cached state, a loop over pairs' % (first, nrounds)) if
        packed == 'face' else 'packing, all rounds')
    what += ', SR^2 and unpacking'
    if packed == 'sbox':
        what = ('The S-box (without 0x63) of 32 bytes, the next 32 bytes 128 on, packing and'
                ' unpacking included, a loop')
    per = ' for one pair' if loop else ''
    out = ['/* %s:\n * %d instructions%s, %d stack loads and stores, %d spill slots */'
           % (what, count(body), per, spills, nslots - 1),
           'BS_AES_RV_NAKED void %s(uint8_t *out BS_AES_RV_ARG, const uint32_t *rk BS_AES_RV_ARG,'
           % name]
    if packed == 'face':
        out += ['        const uint32_t *base2 BS_AES_RV_ARG, const uint32_t *tab BS_AES_RV_ARG,',
                '        size_t npairs BS_AES_RV_ARG)']
    elif packed == 'sbox':
        out += ['        const uint8_t *in BS_AES_RV_ARG, size_t npairs BS_AES_RV_ARG)']
    else:
        out += ['        const uint8_t *in BS_AES_RV_ARG)']
    return out + emit.asm_body(body) + ['']


def generate():
    G.check_circuit()
    fns = [('bs_aes128_fix_rv32', 10, 0, False), ('bs_aes256_fix_rv32', 14, 0, False),
           ('bs_aes128_fix_face_rv32', 10, 3, 'face'), ('bs_aes256_fix_face_rv32', 14, 3, 'face'),
           ('bs_aes_sbox_rv32', 0, 0, 'sbox')]
    return G.render([
        'aes_fix32_rv32.h: generated by embedded/gen/aes_rv32.py (do not edit; see there for how',
        'and why). Fully fixsliced AES as straight-line RV32I, rk the round keys of',
        'bs_aes_key_schedule(.., 4): bs_aes{128,256}_fix_rv32 encrypt the two blocks at in',
        '(32 bytes, word-aligned) into out (word-aligned), packing and unpacking included',
        '(aes_fix32.c); bs_aes{128,256}_fix_face_rv32 encrypt npairs >= 1 pairs from FACE\'s',
        'cached state after round 2, base2[c] ^ tab[8k + c] and base2[c] ^ tab[8k + 4 + c] for',
        'pair k (aes_ctr_face.h), from round 3 on, into out + 32k (word-aligned; aes_ctr_face.c);',
        'bs_aes_sbox_rv32 writes the S-box without 0x63 of npairs 32-byte pieces, at in, in + 128,',
        'in + 256, ..., to out, out + 128, ... (word-aligned; rk is not read).'],
        'BS_AES_FIX32_RV32_H', 'defined(__riscv) && __riscv_xlen == 32', 'BS_AES_FIX_RV32', 'RV',
        ['void %s(uint8_t *out, const uint32_t *rk, %s);' % (f[0], {
            'face': 'const uint32_t *base2, const uint32_t *tab, size_t npairs',
            'sbox': 'const uint8_t *in, size_t npairs'}.get(f[3], 'const uint8_t *in'))
         for f in fns], [function(*f) for f in fns])


if __name__ == '__main__':
    emit.main(generate, __doc__)
