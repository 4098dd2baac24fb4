#!/usr/bin/env python3
"""Writes core/aes/aes_semifix32_t2.h: semi-fixsliced AES-128 and AES-256 on two blocks as one
compact Thumb-2 function (Cortex-M3/M4) that loops over the rounds, from the same round
structure as the C (core/aes/aes.h, aes_semifix32.c); core/aes/meson.build runs it at build
time. The small-flash AES: one copy of the S-box, of each MixColumns and of the packing, shared
by AES-128 and AES-256 (against the fully fixsliced code of aes_thumb2.py, all rounds unrolled).

    python3 embedded/gen/aes_semifix_thumb2.py aes_semifix32_t2.h
    python3 embedded/gen/aes_semifix_thumb2.py --search ITERATIONS SEED   (see SBOX_PRIORITY)

The pieces are aes_thumb2.py's (the 115-gate S-box circuit and its gate priorities, the
MixColumns with pending rotations, the packing's SWAPMOVEs, the schedule, the clustering of
loads and stores); what differs is the shape:

- One round a pass of the loop: AddRoundKey (two LDMs through the round-key pointer, kept on
  the stack and advanced by the LDM's write-back), the S-box, then by the round's parity
  MixColumns in representation 1 (odd rounds) or SR^2 and MixColumns 0 (even rounds; after
  the last, even, AddRoundKey with its key in representation 2, then the unpacking with SR^2
  done on the unpacked words, as aes_semifix32.c). The parity and the end come from one
  LSRS of a word on the stack whose bits are the rounds' parities (bit i - 1 set for odd round
  i; 0x155 for 10 rounds, 0x1555 for 14): the carry is the parity, zero marks the last round.
  Branches depend on the round number only.
- Registers: the state is in r4..r11 at the top of the loop; the S-box (all 14 registers,
  Belady, spilling to the stack like aes_thumb2.py) leaves its outputs in whatever registers
  its allocation ends with, and each MixColumns, allocated from there, ends with its outputs
  in r4..r11 again (a result takes its home register when that is free; moves for the rest).
- Constant time: no data-dependent branch or address (every address is sp, the round-key
  pointer or a block pointer plus a constant).

Checked before writing: each piece's program against aes_thumb2.py's model of the C, then the
whole emitted function, run by a small Thumb-2 interpreter (simulate()), against a direct model
of aes_semifix32.c for 10 and 14 rounds on random blocks and round keys (unaligned blocks,
callee-saved registers and sp restored).
"""
import random
import re

import aes_thumb2 as G
import emit

M32 = G.M32
REGS = G.REGS
TOP = ['r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11']  # slice b in TOP[b] at the loop's top
OUT_S, RK_S, CNT_S = 0, 4, 8  # stack slots: the output pointer, round-key pointer, parities
NFIXED = 3
PATTERN = {10: 0x155, 14: 0x1555}


def reset():
    del G.defs[:]
    G.SBOX_BASE.clear()
    G.AFTER.clear()


def sr2(x):
    """aes.h's bs_aes_sr2 with a pending rotation: t = (x ^ (x >> 4)) & 0x0f000f00 (the mask's top
    nibble is clear, so x >> 4 may be a rotation), x ^ t ^ (t << 4) (likewise)."""
    t = G.ANDI(G.XOR(x, G.rot(x, 4)), 0x0f000f00)
    return G.XOR(G.XOR(x, t), G.rot(t, 28))


# ---- the pieces, each a straight-line program over G.defs ----
def piece(name):
    """(outs, placed): the program of one piece; its 'ldq' values are the eight slices in their
    registers on entry (placed), except for 'pack', where they are loads through r2."""
    reset()
    q = [G.LDQ(i) for i in range(8)]
    if name == 'pack':
        return G.pack(q)
    if name == 'sbox':
        return G.sbox(q)
    if name == 'mc1':
        return G.mixcolumns(q, 1)
    if name == 'mc0':
        return G.mixcolumns(q, 0)
    if name == 'unpack_sr2':
        return G.unpack_sr2(q)
    raise ValueError(name)


def model_piece(name, q):
    if name == 'pack':
        x = G.model_transpose(q)
        return [x[(i >> 1) + 4 * (i & 1)] for i in range(8)]
    if name == 'sbox':
        return G.model_sbox(q)
    if name in ('mc1', 'mc0'):
        return G.model_mc(q, 1 if name == 'mc1' else 0)
    if name == 'unpack_sr2':
        q = [G.model_sr2(w) for w in q]
    x = [None] * 8
    for i in range(8):
        x[(i >> 1) + 4 * (i & 1)] = q[i]
    return G.model_transpose(x)


def check_piece(name, outs):
    rng = random.Random(name)
    for _ in range(100):
        q = [rng.getrandbits(32) for _ in range(8)]
        if G.evaluate(outs, q + [0] * 4, []) != model_piece(name, q):
            raise SystemExit('piece %s differs from the model' % name)


def allocate(outs, placed, free, targets=None, store_out=False, loads_from=None):
    """Registers for the scheduled program of G.defs (Belady, as aes_thumb2.py): placed maps the
    'ldq' inputs to their registers on entry (None: loads through loads_from). targets: the
    registers the outputs must end in (None: where they are, reloaded if spilled); store_out:
    the outputs are stored through the output pointer (slot OUT_S) instead. Returns (lines,
    the registers of the outputs, the number of stack slots used)."""
    defs = G.defs
    uses = G.uses_of(defs, outs)
    END = len(defs)
    homes = emit.Homes(uses, list(free))
    reg_of, holder, slot_of, in_slot, free_l = (homes.reg_of, homes.holder, homes.slot_of,
                                                homes.in_slot, homes.free)
    nslots = [NFIXED]
    lines = []
    out_vids = {v: i for i, (v, r) in enumerate(outs) if r == 0}
    pending = set(targets or [])

    if placed is not None:
        for p, (kind, args) in enumerate(defs):
            if kind == 'ldq':
                r = placed[args[0]]
                reg_of[p], holder[r] = r, p

    def evict(p, keep):
        best = homes.farthest(keep, lambda v: homes.next_use(v, p),
                              lambda v: G.CLEAN_BONUS if v in in_slot else 0)
        v = holder.pop(best)
        del reg_of[v]
        if v not in in_slot:
            if v not in slot_of:
                slot_of[v] = homes.free_slots.pop() if homes.free_slots else nslots[0]
                if slot_of[v] == nslots[0]:
                    nslots[0] += 1
            lines.append('str %s, [sp, #%d]' % (best, 4 * slot_of[v]))
            in_slot.add(v)
        return best

    def get_reg(p, keep, newest=False, want=None):
        if want is not None and want in free_l:
            free_l.remove(want)
            return want
        if free_l:
            cand = [r for r in free_l if r not in pending] or free_l
            r = cand[-1] if newest else cand[0]
            free_l.remove(r)
            return r
        return evict(p, keep)

    def fetch(v, p, keep, want=None):
        if v in reg_of:
            return reg_of[v]
        r = get_reg(p, keep, want=want)
        lines.append('ldr %s, [sp, #%d]' % (r, 4 * slot_of[v]))
        reg_of[v], holder[r] = r, v
        return r

    loads_done = placed is not None
    for p, (kind, args) in enumerate(defs):
        if kind == 'ldq' and placed is not None:
            continue
        srcs = [a[0] for a in args if isinstance(a, tuple)]
        keep = set(srcs)
        regs = [fetch(v, p, keep) for v in srcs]
        if kind != 'ldq' and not loads_done:
            free_l.insert(0, loads_from)
            loads_done = True
        for v in set(srcs):
            homes.release_dead(v, p)
        want = None
        if targets and p in out_vids:
            want = targets[out_vids[p]]
        d = get_reg(p, keep, kind != 'ldq', want)
        pending.discard(want)
        reg_of[p], holder[d] = d, p
        if kind == 'ldq':
            lines.append('ldr %s, [%s, #%d]' % (d, loads_from, 4 * args[0]))
        else:
            lines.append(emit.t2_op(kind, d, regs, args))
        if not uses[p]:
            homes.release_dead(p, p)
    live = {w for w, _ in outs}
    if store_out:
        qp = get_reg(END, live)
        lines.append('ldr %s, [sp, #%d]' % (qp, OUT_S))
        for i, (v, r) in enumerate(outs):
            src = fetch(v, END, {w for w, _ in outs[i:]})
            if r:
                lines.append('ror %s, %s, #%d' % (src, src, r))
            lines.append('str %s, [%s, #%d]' % (src, qp, 4 * i))
            del holder[reg_of.pop(v)]
            free_l.append(src)
        return lines, None, nslots[0]
    # every output in a register, its rotation resolved
    for v, r in outs:
        fetch(v, END, live)
    for v, r in outs:
        if r:
            lines.append('ror %s, %s, #%d' % (reg_of[v], reg_of[v], r))
    where = [reg_of[v] for v, _ in outs]
    if targets is None:
        return lines, where, nslots[0]
    # the parallel move into the targets (a free register breaks cycles)
    spare = [r for r in REGS if r not in where and r not in targets]
    cur = list(where)
    while cur != list(targets):
        done = False
        for i in range(8):
            if cur[i] != targets[i] and targets[i] not in cur:
                lines.append('mov %s, %s' % (targets[i], cur[i]))
                cur[i] = targets[i]
                done = True
        if not done:
            i = next(i for i in range(8) if cur[i] != targets[i])
            tmp = next(r for r in REGS if r not in cur)
            lines.append('mov %s, %s' % (tmp, cur[i]))
            cur[i] = tmp
    del spare
    return lines, list(targets), nslots[0]


# The S-box gates' priorities for the schedule (aes_thumb2.py's PRIORITY, which was searched
# for the unrolled rounds), found by `--search`: a hill climb from aes_thumb2.py's order, each
# candidate scored by the instructions of a whole AES-128 call (then its estimated cycles):
# 67 instructions fewer.
SBOX_PRIORITY = """
t12 t59 t38 t8 t51 y19 t19 t22 y21 s0 t31 t37 t62 z15
z5 t52 t63 t64 t44 z0 t23 s2 t21 s3 t13 t41 y1 t45
t46 t4 t25 t1 y17 z6 y5 t17 s5 t43 t40 t18 t42 z3
z16 t55 z17 t14 t56 t34 t49 t28 y6 z12 z13 t50 s1 z9
t67 y18 z7 t48 z14 y13 y10 t33 t3 t16 t0 y8 y20 y11
y16 t10 t57 t65 s6 t66 t24 y7 z11 z8 t6 t47 t53 t27
y2 s7 y12 t29 y9 t60 t35 t54 t26 t7 s4 z4 t30 t39
y3 t5 t2 t58 t11 t61 z10 t20 y4 t32 t36 t9 z2 y15
z1 y14 t15
"""


def build_piece(name, placed, free, targets=None, store_out=False, loads_from=None,
                order=None):
    outs = piece(name)
    check_piece(name, outs)
    if name == 'sbox':
        order = order or SBOX_PRIORITY.split()
    outs = G.schedule(outs, order)
    check_piece(name, outs)
    lines, where, nslots = allocate(outs, placed, free, targets, store_out, loads_from)
    return G.merge_pairs(G.cluster(lines), known=()), where, nslots


def ark_lines(state, free, count):
    """AddRoundKey in place: the round-key pointer from its slot, two LDMs with write-back, the
    pointer back to its slot. count: the parities' word comes with the pointer (one LDRD and
    one STRD), shifted right by one on the way (LSRS: the carry is this round's parity, zero
    marks the last round; the S-box sets no flags, so the branches after it read them)."""
    f = sorted(free, key=lambda r: REGS.index(r))
    p, ks = f[0], f[1:5]
    if count:
        c = f[5]
        out = ['ldrd %s, %s, [sp, #%d]' % (p, c, RK_S), 'lsrs %s, %s, #1' % (c, c)]
    else:
        out = ['ldr %s, [sp, #%d]' % (p, RK_S)]
    for h in range(2):
        out.append('ldmia %s!, {%s}' % (p, ', '.join(ks)))
        out += ['eor %s, %s, %s' % (state[4 * h + j], state[4 * h + j], ks[j]) for j in range(4)]
    return out + (['strd %s, %s, [sp, #%d]' % (p, c, RK_S)] if count else [])


def sr2_lines(state, tmp):
    out = []
    for x in state:
        out += ['eor %s, %s, %s, lsr #4' % (tmp, x, x), 'and %s, %s, #0x0f000f00' % (tmp, tmp),
                'eor %s, %s, %s' % (x, x, tmp), 'eor %s, %s, %s, lsl #4' % (x, x, tmp)]
    return out


def function_lines(top=TOP, order=None):
    """The whole function (out r0, rk r1, in r2, parities r3), the state in top at the loop's
    top. Returns (lines, frame bytes)."""
    nslots = []
    # the prologue: pointers and parities to their slots, the blocks loaded and packed into top
    pack, _, n = build_piece('pack', None, [r for r in REGS if r != 'r2'], targets=top,
                             loads_from='r2')
    nslots.append(n)
    # the S-box from top to where its allocation leaves it
    free_top = [r for r in REGS if r not in top]
    sbox, s_where, n = build_piece('sbox', top, free_top, order=order)
    nslots.append(n)
    free_s = [r for r in REGS if r not in s_where]
    mc1, _, n = build_piece('mc1', s_where, free_s, targets=top)
    nslots.append(n)
    mc0, _, n = build_piece('mc0', s_where, free_s, targets=top)
    nslots.append(n)
    unpack, _, n = build_piece('unpack_sr2', s_where, free_s, store_out=True)
    nslots.append(n)
    frame = 4 * max(nslots)
    pro = G.merge_pairs(G.cluster([
        'push {r4-r11, lr}', 'sub sp, sp, #%d' % frame, 'str r0, [sp, #%d]' % OUT_S] + pack),
        known=())
    at = pro.index('sub sp, sp, #%d' % frame) + 1
    body = (pro[:at] + ['strd r1, r3, [sp, #%d]' % RK_S] + pro[at:] + ['b 1f', '3:'] + mc1 +
            ['1:'] + ark_lines(top, free_top, True) + sbox + ['bcs 3b', 'beq 4f'] +
            sr2_lines(s_where, free_s[0]) + mc0 + ['b 1b', '4:'] +
            ark_lines(s_where, free_s, False) + unpack +
            ['add sp, sp, #%d' % frame, 'pop {r4-r11, pc}'])
    return body, frame


# ---- checking: a direct model of aes_semifix32.c and a small Thumb-2 interpreter ----
def model(inw, rk, nr):
    q = model_piece('pack', inw)
    q = [q[b] ^ rk[b] for b in range(8)]
    for i in range(1, nr + 1):
        q = G.model_sbox(q)
        if i % 2:
            q = G.model_mc(q, 1)
        elif i < nr:
            q = G.model_mc([G.model_sr2(w) for w in q], 0)
        q = [q[b] ^ rk[8 * i + b] for b in range(8)]
    return model_piece('unpack_sr2', q)  # (the last round key in representation 2)


MEM_RE = re.compile(r'(ldr|str) (\w+), \[(\w+), #(\d+)\]$')


def simulate(lines, inw, rk, nr):
    """Runs the lines; returns (the eight output words, instructions, estimated cycles with
    embedded/bench/run.py's model, the executed lines' addresses as a set)."""
    OUT, RK, IN, SP = 0x40001, 0x10000, 0x20003, 0x80000
    reg = {r: 0x1000 + i for i, r in enumerate(REGS)}
    saved = {r: reg[r] for r in ('r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11')}
    reg.update({'r0': OUT, 'r1': RK, 'r2': IN, 'r3': PATTERN[nr], 'sp': SP})
    mem = {RK + 4 * i: w for i, w in enumerate(rk)}
    mem.update({IN + 4 * i: w for i, w in enumerate(inw)})
    labels = {l[:-1]: i for i, l in enumerate(lines) if l.endswith(':')}
    flags = {'z': False, 'c': False}
    pc, n, cyc, prev_mem, seen = 0, 0, 0, False, set()
    val = lambda x: reg[x] if not x.startswith('#') else int(x[1:], 0)

    def target(rest, back):
        name = rest.strip()[:-1]
        idx = [i for i, l in enumerate(lines) if l == name + ':']
        if back:
            return max(i for i in idx if i < pc)
        return min(i for i in idx if i >= pc)
    while True:
        l = lines[pc]
        pc += 1
        if l.endswith(':'):
            continue
        seen.add(pc - 1)
        n += 1
        op, rest = l.split(None, 1)
        mem_now = False
        if op == 'push':
            regs = G.parse(l)[0] - {'sp'}
            reg['sp'] -= 36
            for i, r in enumerate(['r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'lr']):
                mem[reg['sp'] + 4 * i] = reg[r]
            cyc += 10
        elif op == 'pop':
            for i, r in enumerate(['r4', 'r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11']):
                reg[r] = mem[reg['sp'] + 4 * i]
            reg['sp'] += 36
            cyc += 10 + 2
            break
        elif op in ('b', 'bcs', 'beq'):
            take = op == 'b' or (op == 'bcs' and flags['c']) or (op == 'beq' and flags['z'])
            cyc += 3 if take else 1
            if take:
                pc = target(rest, rest.strip().endswith('b'))
        elif op == 'ldmia':
            m = re.match(r'(\w+)!, \{(.*)\}$', rest)
            base, regs = m.group(1), [r.strip() for r in m.group(2).split(',')]
            if reg[base] % 4:
                raise SystemExit('ldmia at an address that is not a multiple of 4')
            for i, r in enumerate(regs):
                reg[r] = mem[reg[base] + 4 * i]
            reg[base] += 4 * len(regs)
            cyc += 2 + len(regs)  # run.py counts the base register as one more
        elif op in ('ldrd', 'strd'):
            m = re.match(r'(\w+), (\w+), \[(\w+), #(\d+)\]$', rest)
            a, b, base, off = m.groups()
            addr = reg[base] + int(off)
            if addr % 4 or base != 'sp' and base != 'r1':
                raise SystemExit('%s through a pointer that may be unaligned' % l)
            if op == 'ldrd':
                reg[a], reg[b] = mem[addr], mem[addr + 4]
            else:
                mem[addr], mem[addr + 4] = reg[a], reg[b]
            cyc += 3
        elif MEM_RE.match(l):
            kind, r, base, off = MEM_RE.match(l).groups()
            a = reg[base] + int(off)
            if kind == 'ldr':
                reg[r] = mem[a]
            else:
                mem[a] = reg[r]
            cyc += 1 if prev_mem else 2
            mem_now = True
        else:
            f = [x.strip() for x in rest.split(',')]
            cyc += 1
            if op == 'mov':
                reg[f[0]] = reg[f[1]]
            elif op == 'ror':
                reg[f[0]] = G.ror(reg[f[1]], int(f[2][1:]))
            elif op == 'lsrs':
                x = reg[f[1]]
                flags['c'] = bool(x & 1)
                reg[f[0]] = x >> 1
                flags['z'] = reg[f[0]] == 0
            elif op in ('sub', 'add'):
                reg[f[0]] = (reg[f[1]] + (1 if op == 'add' else -1) * val(f[2])) & M32
            elif op in ('eor', 'and'):
                b = val(f[2])
                if len(f) == 4:
                    kind, sh = f[3].split()
                    sh = int(sh[1:])
                    b = (G.ror(b, sh) if kind == 'ror' else b >> sh if kind == 'lsr' else
                         (b << sh) & M32)
                reg[f[0]] = reg[f[1]] ^ b if op == 'eor' else reg[f[1]] & b
            else:
                raise SystemExit('simulate: no rule for ' + l)
        prev_mem = mem_now
    if reg['sp'] != SP or any(reg[r] != v for r, v in saved.items()):
        raise SystemExit('callee-saved registers or sp not restored')
    return [mem[OUT + 4 * i] for i in range(8)], n, cyc, seen


def check(lines, runs=40):
    def run(inw, rk, nr):
        got, n, cyc, seen = simulate(lines, inw, rk, nr)
        return got, (n, cyc, len(seen))
    return emit.check_rounds(run, model, 2026, 'AES (Thumb-2)', runs)


def generate():
    G.check_circuit()
    lines, frame = function_lines()
    stats = check(lines)
    comment = [
        'aes_semifix32_t2.h: generated by embedded/gen/aes_semifix_thumb2.py (do not edit; see',
        'there for how and why). Semi-fixsliced AES-128 and AES-256 as one compact Thumb-2',
        'function for Cortex-M3/M4 (aes_semifix32.c): bs_aes_semifix_t2 encrypts the two',
        'blocks at in (32 bytes, any alignment) into out, packing and unpacking included, with',
        'the round keys rk of bs_aes_key_schedule(.., 2); rounds is BS_AES_SEMIFIX_T2_R128 or',
        'BS_AES_SEMIFIX_T2_R256 (the rounds\' parities, see the generator).',
        'One call: AES-128 %d instructions, %d estimated cycles (embedded/bench/run.py\'s'
        % stats[10][:2],
        'model); AES-256 %d, %d; %d instructions in all, %d bytes of stack besides the nine'
        % (stats[14][0], stats[14][1], sum(1 for l in lines if not l.endswith(':')), frame),
        'registers pushed.']
    out = ['/*'] + [' * ' + l for l in comment] + [' */', '#ifndef BS_AES_SEMIFIX32_T2_H',
                                                    '#define BS_AES_SEMIFIX32_T2_H', '',
                                                    '#if defined(__thumb2__)',
                                                    '#define BS_AES_SEMIFIX_T2 1',
                                                    '#define BS_AES_SEMIFIX_T2_R128 0x%xu'
                                                    % PATTERN[10],
                                                    '#define BS_AES_SEMIFIX_T2_R256 0x%xu'
                                                    % PATTERN[14],
                                                    'void bs_aes_semifix_t2(uint8_t *out, const uint32_t *rk, const uint8_t *in,',
                                                    '                       uint32_t rounds);',
                                                    '', '/* The definition, in aes_semifix32.c only. */',
                                                    '#ifdef BS_AES_SEMIFIX_T2_DEFINE',
                                                    '#define BS_AES_SF_ARG __attribute__((unused)) /* read by the assembly only */',
                                                    '__attribute__((naked, noinline)) void',
                                                    'bs_aes_semifix_t2(uint8_t *out BS_AES_SF_ARG, const uint32_t *rk BS_AES_SF_ARG,',
                                                    '                  const uint8_t *in BS_AES_SF_ARG, uint32_t rounds BS_AES_SF_ARG)']
    out += emit.asm_body(lines)
    out += ['#endif', '#endif', '', '#endif']
    return '\n'.join(out) + '\n'


def static_count(order):
    """The instructions and estimated cycles of an AES-128 call, from the pieces' lengths (the
    search's score; check() counts them by running the lines)."""
    lines, _ = function_lines(order=order)
    return check(lines, 1)[10]


def search(iters, seed):
    G.check_circuit()
    cost = lambda order: (lambda s: s[0] * 10000 + s[1])(static_count(order))
    emit.print_words(G.anneal(SBOX_PRIORITY.split(), cost, iters, random.Random(seed)))


if __name__ == '__main__':
    emit.main(generate, __doc__, search=search)
