#!/usr/bin/env python3
"""Writes core/skinny/skinny_fix32_t2.h: bs_skinny_fix32_2blocks (core/skinny/skinny_fix32.c,
SKINNY-128 fixsliced on two blocks) as Thumb-2 for Cortex-M3/M4, packing and unpacking
included (core/skinny/meson.build runs it at build time):

    python3 embedded/gen/skinny_thumb2.py skinny_fix32_t2.h

Same operations as the C (skinny_fix32.c, skinny.h), allocated by hand:

- The state (eight words) lives in r4..r11 for the whole call and never goes to the stack. The
  S-box's output renaming is a register renaming; its permutation has period 8, so the loop body
  is eight rounds (two of each MixColumns variant), after which the renaming is the identity
  again (checked below). Every SKINNY-128 round count (40, 48, 56) is a multiple of 8.
- Round tweakeys: two LDMIA of four words a round into r1, r2, r3, r12, the pointer r0 stepping
  by itself (the C loads them with eight LDR, some LDRD).
- MixColumns' "row a ^= row b": AND/BIC of the slot mask (lr) with the rotated word, then EOR
  with the shifted result, two instructions, as the C's inline assembly.
- Packing and unpacking: the C's three SWAPMOVE stages in registers, four instructions each
  (the masks are Thumb-2 immediates), and the complement as MVN; the blocks are read and written
  with single LDR/STR (any alignment, as ARMv7-M allows with CCR.UNALIGN_TRP clear).
- The loop's end (rtk + 32 rounds) is kept on the stack with the output pointers; no data word
  is ever stored there.

The emitted instruction list is run on a small Thumb-2 model against a model of the C's steps
(random blocks and round tweakeys, every round count) before anything is written.
"""
import random

import emit
M32 = 0xffffffff
SLOT0 = 0x03030303
# (rotation right, shift left) of the three row XORs of each round variant (skinny_fix32.c)
VARIANTS = [(28, 2, 16, 4, 12, 6), (18, 0, 6, 2, 18, 4), (8, 6, 20, 0, 24, 2),
            (6, 4, 2, 6, 6, 0)]
# S-box steps x ^= a & b on logical words (skinny.h, BS_SKINNY_SBOX_STEPS) and its renaming
SBOX_STEPS = [(4, 7, 6), (0, 3, 2), (6, 2, 1), (5, 4, 0), (1, 0, 3), (7, 6, 5), (3, 5, 4),
              (2, 1, 7)]
SBOX_RENAME = [2, 7, 6, 1, 3, 0, 4, 5]  # new word i = old word SBOX_RENAME[i]
# transpose8: bs_swapmove32(&w[a], &w[b], mask, n)
TRANSPOSE = [(1, 0, 0x55555555, 1), (3, 2, 0x55555555, 1), (5, 4, 0x55555555, 1),
             (7, 6, 0x55555555, 1), (2, 0, 0x33333333, 2), (3, 1, 0x33333333, 2),
             (6, 4, 0x33333333, 2), (7, 5, 0x33333333, 2), (4, 0, 0x0f0f0f0f, 4),
             (5, 1, 0x0f0f0f0f, 4), (6, 2, 0x0f0f0f0f, 4), (7, 3, 0x0f0f0f0f, 4)]
STATE = ['r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11']
KEYREGS = ['r1', 'r2', 'r3', 'r12']  # ascending: LDMIA fills them in address order
TMP = 'r1'
SLOT = 'lr'
FRAME = 12  # out0, out1, end of the round tweakeys
ARGS = 36 + FRAME  # in0, in1 above the pushed r4..r11, lr and the frame


ror = emit.ror


def program():
    """The instruction list: (mnemonic, operands...) tuples; labels as ('label', name)."""
    p = []
    e = p.append
    e(('push', 'r4-r11, lr'))
    e(('sub', 'sp', 'sp', FRAME))
    e(('str', 'r2', 'sp', 0))
    e(('str', 'r3', 'sp', 4))
    e(('add_lsl', 'r1', 'r0', 'r1', 5))  # end = rtk + 32 * rounds
    e(('str', 'r1', 'sp', 8))
    e(('ldr', 'r2', 'sp', ARGS))
    e(('ldr', 'r3', 'sp', ARGS + 4))
    w = list(STATE)  # logical word i is in register w[i]
    for r in range(4):
        e(('ldr', w[2 * r], 'r2', 4 * r))
        e(('ldr', w[2 * r + 1], 'r3', 4 * r))
    e(('movw32', SLOT, SLOT0))

    def transpose():
        for a, b, m, n in TRANSPOSE:
            e(('eor_lsr', TMP, w[a], w[b], n))
            e(('and_imm', TMP, TMP, m))
            e(('eor', w[a], w[a], TMP))
            e(('eor_lsl', w[b], w[b], TMP, n))

    transpose()
    for i in range(8):
        e(('mvn', w[i], w[i]))
    e(('label', '1'))
    for rnd in range(8):
        for x, a, b in SBOX_STEPS:
            e(('and', TMP, w[a], w[b]))
            e(('eor', w[x], w[x], TMP))
        w = [w[SBOX_RENAME[i]] for i in range(8)]
        for half in range(2):
            e(('ldmia', 'r0', tuple(KEYREGS)))
            for j in range(4):
                e(('eor', w[4 * half + j], w[4 * half + j], KEYREGS[j]))
        r1, s1, r2, s2, r3, s3 = VARIANTS[rnd % 4]
        for i in range(8):
            for op, rr, ss in (('and', r1, s1), ('bic', r2, s2), ('bic', r3, s3)):
                e((op + '_ror', TMP, SLOT, w[i], rr))
                e(('eor_lsl', w[i], w[i], TMP, ss))
    assert w == STATE, 'the renaming of eight rounds is not the identity'
    e(('ldr', 'r1', 'sp', 8))
    e(('cmp', 'r0', 'r1'))
    e(('bne', '1b'))
    for i in range(8):
        e(('mvn', w[i], w[i]))
    transpose()
    e(('ldr', 'r2', 'sp', 0))
    e(('ldr', 'r3', 'sp', 4))
    for r in range(4):
        e(('str', w[2 * r], 'r2', 4 * r))
        e(('str', w[2 * r + 1], 'r3', 4 * r))
    e(('add', 'sp', 'sp', FRAME))
    e(('pop', 'r4-r11, pc'))
    return p


def text(ins):
    op = ins[0]
    a = ins[1:]
    if op in ('push', 'pop'):
        return '%s {%s}' % (op, a[0])
    if op in ('sub', 'add'):
        return '%s %s, %s, #%d' % (op, a[0], a[1], a[2])
    if op in ('ldr', 'str'):
        return '%s %s, [%s, #%d]' % (op, a[0], a[1], a[2])
    if op == 'add_lsl':
        return 'add %s, %s, %s, lsl #%d' % a
    if op == 'movw32':
        return 'mov %s, #0x%08x' % a
    if op in ('eor_lsr', 'eor_lsl'):
        if a[3] == 0:
            return 'eor %s, %s, %s' % a[:3]
        return 'eor %s, %s, %s, %s #%d' % (a[0], a[1], a[2], op[4:], a[3])
    if op == 'and_imm':
        return 'and %s, %s, #0x%08x' % a
    if op in ('eor', 'and'):
        return '%s %s, %s, %s' % (op, a[0], a[1], a[2])
    if op == 'mvn':
        return 'mvn %s, %s' % a
    if op in ('and_ror', 'bic_ror'):
        return '%s %s, %s, %s, ror #%d' % (op[:3], a[0], a[1], a[2], a[3])
    if op == 'ldmia':
        return 'ldmia %s!, {%s}' % (a[0], ', '.join(a[1]))
    if op == 'cmp':
        return 'cmp %s, %s' % a
    if op == 'bne':
        return 'bne %s' % a[0]
    raise ValueError(ins)


def simulate(prog, rtk, rounds, in0, in1):
    """Runs the program on a register/memory model; returns (out0, out1)."""
    reg = {'r0': 0, 'r1': rounds, 'r2': 0x100, 'r3': 0x200}
    mem = {}
    base_rtk = 0x10000
    for i, v in enumerate(rtk):
        mem[base_rtk + 4 * i] = v
    reg['r0'] = base_rtk
    for i in range(4):
        mem[0x300 + 4 * i] = int.from_bytes(in0[4 * i:4 * i + 4], 'little')
        mem[0x400 + 4 * i] = int.from_bytes(in1[4 * i:4 * i + 4], 'little')
    sp = 0x8000
    mem[sp + ARGS - FRAME] = 0x300  # the caller's stack arguments, above the pushed registers
    mem[sp + ARGS - FRAME + 4] = 0x400
    reg['sp'] = sp + 36  # before the push
    labels = {ins[1]: k for k, ins in enumerate(prog) if ins[0] == 'label'}
    pc = 0
    while pc < len(prog):
        ins = prog[pc]
        op, a = ins[0], ins[1:]
        pc += 1
        if op == 'push':
            reg['sp'] -= 36
        elif op == 'pop':
            reg['sp'] += 36
        elif op == 'sub':
            reg[a[0]] = reg[a[1]] - a[2]
        elif op == 'add':
            reg[a[0]] = reg[a[1]] + a[2]
        elif op == 'ldr':
            reg[a[0]] = mem[reg[a[1]] + a[2]]
        elif op == 'str':
            mem[reg[a[1]] + a[2]] = reg[a[0]]
        elif op == 'add_lsl':
            reg[a[0]] = (reg[a[1]] + (reg[a[2]] << a[3])) & M32
        elif op == 'movw32':
            reg[a[0]] = a[1]
        elif op == 'eor_lsr':
            reg[a[0]] = reg[a[1]] ^ (reg[a[2]] >> a[3])
        elif op == 'eor_lsl':
            reg[a[0]] = reg[a[1]] ^ ((reg[a[2]] << a[3]) & M32)
        elif op == 'and_imm':
            reg[a[0]] = reg[a[1]] & a[2]
        elif op == 'eor':
            reg[a[0]] = reg[a[1]] ^ reg[a[2]]
        elif op == 'and':
            reg[a[0]] = reg[a[1]] & reg[a[2]]
        elif op == 'mvn':
            reg[a[0]] = reg[a[1]] ^ M32
        elif op == 'and_ror':
            reg[a[0]] = reg[a[1]] & ror(reg[a[2]], a[3])
        elif op == 'bic_ror':
            reg[a[0]] = reg[a[1]] & ~ror(reg[a[2]], a[3]) & M32
        elif op == 'ldmia':
            for j, r in enumerate(a[1]):
                reg[r] = mem[reg[a[0]] + 4 * j]
            reg[a[0]] += 4 * len(a[1])
        elif op == 'cmp':
            flag_eq = reg[a[0]] == reg[a[1]]
        elif op == 'bne':
            if not flag_eq:
                pc = labels[a[0][:-1]] + 1
        elif op == 'label':
            pass
        else:
            raise ValueError(ins)
    out0 = b''.join(mem[0x100 + 4 * i].to_bytes(4, 'little') for i in range(4))
    out1 = b''.join(mem[0x200 + 4 * i].to_bytes(4, 'little') for i in range(4))
    return out0, out1


def model(rtk, rounds, in0, in1):
    """The C's steps (skinny_fix32.c) on Python integers."""
    w = [0] * 8
    for r in range(4):
        w[2 * r] = int.from_bytes(in0[4 * r:4 * r + 4], 'little')
        w[2 * r + 1] = int.from_bytes(in1[4 * r:4 * r + 4], 'little')

    def transpose():
        for a, b, m, n in TRANSPOSE:
            t = ((w[b] >> n) ^ w[a]) & m
            w[a] ^= t
            w[b] ^= (t << n) & M32

    transpose()
    for i in range(8):
        w[i] ^= M32
    for t in range(rounds):
        for x, a, b in SBOX_STEPS:
            w[x] ^= w[a] & w[b]
        w[:] = [w[SBOX_RENAME[i]] for i in range(8)]
        for i in range(8):
            w[i] ^= rtk[8 * t + i]
        r1, s1, r2, s2, r3, s3 = VARIANTS[t % 4]
        for i in range(8):
            w[i] ^= (ror(w[i], r1) & SLOT0) << s1 & M32
            w[i] ^= (~ror(w[i], r2) & SLOT0) << s2 & M32
            w[i] ^= (~ror(w[i], r3) & SLOT0) << s3 & M32
    for i in range(8):
        w[i] ^= M32
    transpose()
    out0 = b''.join(w[2 * r].to_bytes(4, 'little') for r in range(4))
    out1 = b''.join(w[2 * r + 1].to_bytes(4, 'little') for r in range(4))
    return out0, out1


def check(prog):
    rng = random.Random(27)
    for rounds in (40, 48, 56):
        for _ in range(4):
            rtk = [rng.getrandbits(32) for _ in range(8 * rounds)]
            in0 = bytes(rng.getrandbits(8) for _ in range(16))
            in1 = bytes(rng.getrandbits(8) for _ in range(16))
            if simulate(prog, rtk, rounds, in0, in1) != model(rtk, rounds, in0, in1):
                raise SystemExit('the program disagrees with the model (%d rounds)' % rounds)


def render(prog):
    loop = prog.index(('label', '1'))
    end = next(k for k, ins in enumerate(prog) if ins[0] == 'bne')
    body = sum(1 for ins in prog[loop:end + 1] if ins[0] != 'label')
    rest = sum(1 for ins in prog if ins[0] != 'label') - body
    lines = [
        '/*',
        ' * skinny_fix32_t2.h: generated by embedded/gen/skinny_thumb2.py (do not edit; see there',
        ' * for how and why). bs_skinny_fix32_2blocks of skinny_fix32.c in Thumb-2 for Cortex-M3/M4:',
        ' * the state in r4..r11 throughout, two LDMIA of round tweakeys a round, eight rounds a',
        ' * loop pass (rounds must be a multiple of 8: 40, 48, 56). %d instructions a pass of the' % body,
        ' * loop, %d outside it (packing, unpacking, entry, exit). Included by skinny_fix32.c only.' % rest,
        ' */',
        '#ifndef BS_SKINNY_FIX32_T2_H',
        '#define BS_SKINNY_FIX32_T2_H',
        '',
        '__attribute__((naked, noinline)) void',
        'bs_skinny_fix32_2blocks(const uint32_t *rtk __attribute__((unused)),',
        '                        unsigned rounds __attribute__((unused)),',
        '                        uint8_t *out0 __attribute__((unused)), uint8_t *out1 __attribute__((unused)),',
        '                        const uint8_t *in0 __attribute__((unused)),',
        '                        const uint8_t *in1 __attribute__((unused)))',
        '{',
        '    __asm__ volatile(',
    ]
    for ins in prog:
        if ins[0] == 'label':
            lines.append('        "%s:\\n"' % ins[1])
        else:
            lines.append('        "%s\\n"' % text(ins))
    lines += ['    );', '}', '', '#endif', '']
    return '\n'.join(lines)


def generate():
    prog = program()
    check(prog)
    return render(prog)


if __name__ == '__main__':
    emit.main(generate, __doc__)
