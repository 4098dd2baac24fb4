#!/usr/bin/env python3
"""Checks the compiled linear layers of the masked AES on the Cortex-M machine code: the
generated Thumb-2 of core/aes/aes_masked_lin_t2.h (lin_masked_t2_0 .. 3, ark_masked_t2,
pack_masked_t2, unpack_masked_t2), as GCC assembled it into aes_masked32.c's object at each
level.

    tests/leak/check_lin_thumb.py OBJDUMP OBJECT...   (exit status 1 on any failure)

Each function is disassembled and run in a small symbolic interpreter of its instructions
(loads, stores, LDMIA / LDMDB through a pointer with or without writeback, EOR with a rotated
or shifted operand, AND with an immediate, ROR, MOV #0, ADD / SUB of a pointer, push, pop; the
value-model functions get the correction words' and key shares' pointers 16 bytes on, as
their driver passes them, and must return with every pointer where it was):
every register and memory word holds 32 linear forms over GF(2), one per bit, in mask
variables (m0, m1, the key share rk1, the eight words P that mask the packed state) and
secret variables (the state's eight slices and the round key). A word is independent of the
secrets when the image of its secret part lies in that of its mask part (a rank test); this
is exact for linear code, on every input, and for the whole word at once (not bit by bit).

Required, in every context a function runs in (aes_masked32.c): lin_masked_t2_K on the S-box's
output (slice b masked by the output pattern of the build's aes_masked_sbox.h) with
c = MixColumns_K(output pattern) ^ input pattern; ark_masked_t2 on the packed state (masked by
P, c = P ^ input pattern) and on the last S-box's output (c = output pattern ^ SR^2(P));
pack_masked_t2 on the plaintext words (secrets) and the eight words r, unpack_masked_t2 on the
state after the last key addition (masked by SR^2 of the packed r):
  - the outputs left in q[] are MixColumns_K (aes.h) of the state, XOR the key, under the
    input pattern (ark_masked_t2: the state XOR the key under the input pattern, or under
    SR^2(P) after the last S-box; packing: aes.h's packing of the plaintext XOR r; unpacking:
    the ciphertext words), so that the interpreter is known to follow the code;
  - every value written (register writes, loads, stores) and every transition (the old
    contents XOR the new ones of the register or the memory word written) is independent of
    the secrets; a value that is a plaintext word as loaded or a ciphertext word as stored is
    an input or output and exempt from the value test (not from the transitions), and the old
    contents of the output buffer are not modelled;
  - no register holds data when the function returns (each clears them on the way out, so
    that the next generated function starts as its model assumes).
Controls that must fail: the same code with m1 = m0 (the masks of some slices vanish; for
packing and unpacking, r = 0), the code without its q-word clears (a store of the pointer over
a q[] word, inserted where the old and new words share their mask), where it has any, and
packing and unpacking without their register clears (they find the C's registers, which the
interpreter holds as unknown: they may be saved or cleared, nothing else).

The drivers rounds_masked_t2_10 / _14 are run too, in an interpreter of their own: the
pointers q, cm, rk0, rk1 in r0..r3, the C's registers and stack as unknown data. At every call
(bl, its target read from the object's relocation: the S-box or a function checked above, in
the numbers AES-128 / AES-256 call them) r4..r12 must be constant (zero, or what a callee
left: each checked callee leaves no data) and r0..r3 pointers or constants, r0 the state; the
stack takes only pointers and zeros (push, the save of the C's registers, aside) and gives back
only what the driver stored; the S-box's stack slots (read from its compiled prologue and its
sp addresses) must all hold zero at its first call, as check_sbox_thumb.py's model and the
S-box's generator assume. Controls that must fail: the driver without its entry clears, and
without its stores that zero the S-box's slots.

The value-model variant's functions (lin_masked_v_t2_0 .. 3, ark_masked_v_t2, pack_masked_v_t2,
unpack_masked_v_t2) are run in its own contexts (aes_masked32.c's call_masks_init_v): one word
v, m0 = v and m1 = ror(v, 1), the plaintext words masked by v, the ciphertext words by v and
ror(v, 8). Its claim is the value model bit by bit, so every value written must have, in every
bit, a mask variable or no secret (not the word-level rank test, no transitions), the outputs
as above. Controls that must fail: m1 = m0 (linear layers, key additions), packing with v = 0,
and unpacking with one v for all ciphertext words (its rotations of v dropped from the code and
from q's masks: the output stays right, some bits lose their masks).

The value-model variant's drivers (rounds_masked_v_t2_10 / _14, aes_masked.h) claim no
transitions, but its C caller wipes nothing because of one property checked here: when a driver
returns, every stack slot of its S-box (sbox_masked_v_t2) holds a zero stored after the last
S-box call, and it made the right calls. Control: without its stores below sp it fails.
And the state q, the ciphertext under masks computed from v (which the C's cm keeps): when
unpack_masked_v_t2 returns (interpreted on its context, its output the ciphertext) every word
of q is zero, and the entry points call it last, after packing and the rounds. Control:
without its stores through q's pointer it fails.

So the model of the functions the driver calls starts from constant registers (each generated
function leaves none with data, the driver clears r4..r12 on entry, both checked here); it
covers the register file and stores, not other buses, glitches or exception entry. This
checker keeps its own model rather than importing the generator's
(embedded/gen/aes_masked_lin_thumb2.py), so that a mistake there cannot make both agree.
"""
import re
import subprocess
import sys

import check_sbox_thumb
from check_sbox_thumb import disassemble, split_args

M32 = 0xffffffff
REGS = {'r%d' % i: i for i in range(13)}
REGS.update({'sl': 10, 'fp': 11, 'ip': 12, 'sp': 13, 'lr': 14, 'pc': 15})
# variables: m0 0..31, m1 32..63, rk1 64..319, P 320..575 | secrets: state 576.., key 832..
NMASK = 576
FUNCS = ['lin_masked_t2_0', 'lin_masked_t2_1', 'lin_masked_t2_2', 'lin_masked_t2_3',
         'ark_masked_t2', 'pack_masked_t2', 'unpack_masked_t2']
AAPCS = ('pack_masked_t2', 'unpack_masked_t2')  # called from C, whose registers they find
AAPCS_V = ('pack_masked_v_t2', 'unpack_masked_v_t2')


def var(base, k=0):
    return [1 << (base + 32 * k + i) for i in range(32)]


ZERO = [0] * 32


def xor(a, b):
    return [x ^ y for x, y in zip(a, b)]


def ror(a, n):
    return [a[(i + n) % 32] for i in range(32)]


def shr(a, n):
    return [a[i + n] if i + n < 32 else 0 for i in range(32)]


def shl(a, n):
    return [a[i - n] if i >= n else 0 for i in range(32)]


def band(a, c):
    return [a[i] if (c >> i) & 1 else 0 for i in range(32)]


def rank(rows):
    basis = []
    for r in rows:
        for b in basis:
            r = min(r, r ^ b)
        if r:
            basis.append(r)
    return len(basis)


def independent(w):
    return rank(w) == rank([r & ((1 << NMASK) - 1) for r in w])


def byte_ror(x, j):
    """aes.h's bs_aes_byte_ror."""
    lo = 0x01010101 * (0xff >> j)
    return xor(band(shr(x, j), lo), band(shl(x, 8 - j), ~lo & M32))


def mixcolumns(q, k):
    """aes.h's BS_AES_MIXCOLUMNS with the rotations of representation k."""
    rot1 = [lambda x: ror(x, 8), lambda x: ror(byte_ror(x, 2), 8),
            lambda x: ror(byte_ror(x, 4), 8), lambda x: ror(byte_ror(x, 6), 8)][k]
    rot2 = [lambda x: ror(x, 16), lambda x: ror(byte_ror(x, 4), 16),
            lambda x: ror(x, 16), lambda x: ror(byte_ror(x, 4), 16)][k]
    n = [rot1(x) for x in q]
    t = [xor(q[i], n[i]) for i in range(8)]
    out = []
    for b in range(8):
        o = xor(xor(t[(b - 1) % 8], n[b]), rot2(t[b]))
        if b in (1, 3, 4):
            o = xor(o, t[7])
        out.append(o)
    return out


def sr2(x):
    t = band(xor(shr(x, 4), x), 0x0f000f00)
    return xor(xor(x, t), shl(t, 4))


def patterns():
    src = open(check_sbox_thumb.SBOX_H).read()
    return [[int(re.search(r'#define BS_AES_MASKED_%s_%d (\d)' % (w, b), src).group(1))
             for b in range(8)] for w in ('IN', 'OUT')]


def transpose(x):
    """aes.h's bs_aes_transpose."""
    x = list(x)
    for m, n, pairs in ((0x55555555, 1, ((4, 0), (5, 1), (6, 2), (7, 3))),
                        (0x33333333, 2, ((1, 0), (3, 2), (5, 4), (7, 6))),
                        (0x0f0f0f0f, 4, ((2, 0), (3, 1), (6, 4), (7, 5)))):
        for i, j in pairs:
            t = band(xor(shr(x[j], n), x[i]), m)
            x[i], x[j] = xor(x[i], t), xor(x[j], shl(t, n))
    return x


def pack(x):
    x = transpose(x)
    return [x[(b >> 1) + 4 * (b & 1)] for b in range(8)]


def unpack(q):
    return transpose([q[(c % 4) * 2 + c // 4] for c in range(8)])


def contexts(func, same):
    """(memory at r0.., the register written, the words it must hold, the words exempt from
    the value test: the plaintext as loaded and the ciphertext as stored) per context; same:
    the control (m1 = m0, or for packing and unpacking r = 0)."""
    pin, pout = patterns()
    if func in FUNCS_T:
        return contexts_trade(func, same, pin, pout)
    m0 = var(0)
    m1 = m0 if same else var(32)

    def mask(p):
        return xor(m0 if p & 1 else ZERO, m1 if p & 2 else ZERO)
    mi, mo = [mask(p) for p in pin], [mask(p) for p in pout]
    s = [var(576, b) for b in range(8)]
    key = [var(832, b) for b in range(8)]
    share1 = [var(64, b) for b in range(8)]
    share0 = [xor(key[b], share1[b]) for b in range(8)]
    p = [var(320, b) for b in range(8)]
    if func.startswith('lin'):
        k = int(func[-1])
        mm, ms = mixcolumns(mo, k), mixcolumns(s, k)
        return [([[xor(s[b], mo[b]) for b in range(8)], [xor(mm[b], mi[b]) for b in range(8)],
                  share0, share1], 0, [xor(xor(ms[b], key[b]), mi[b]) for b in range(8)], [])]
    if func == 'ark_masked_t2':
        return [([[xor(s[b], p[b]) for b in range(8)], [xor(p[b], mi[b]) for b in range(8)],
                  share0, share1], 0, [xor(xor(s[b], key[b]), mi[b]) for b in range(8)], []),
                ([[xor(s[b], mo[b]) for b in range(8)], [xor(mo[b], sr2(p[b])) for b in range(8)],
                  share0, share1], 0, [xor(xor(s[b], key[b]), sr2(p[b])) for b in range(8)], [])]
    r = [ZERO] * 8 if same else p  # the words r that mask packing and unpacking
    if func == 'pack_masked_t2':
        # q[] <- the plaintext words (secrets here) masked by r, packed
        return [([[ZERO] * 8, s, r], 0, pack([xor(s[c], r[c]) for c in range(8)]), s)]
    # unpacking: the state after the last key addition, masked by SR^2 of the packed r
    pr = pack(r)
    ct = unpack([sr2(x) for x in s])
    return [([[None] * 8, [xor(s[b], sr2(pr[b])) for b in range(8)], r], 0, ct, ct)]


# ---- the default key schedule's SubWord: its trades around the encryption's S-box ----
FUNCS_T = ['subword_tin_t2', 'subword_tout_t2']
LSB = 0x01010101


def contexts_trade(func, same, pin, pout):
    """aes_masked32.c's subword_pat: every word at bits 0, 8, 16, 24 only; m0, m1 the bits
    there of one fresh word (bits 8j and 8j + 1: independent variables here); the word pair's
    shares w0 = K ^ S1, w1 = S1 (K the secret word, S1 uniform). subword_tin_t2(q, mw, w): q[b]
    = slice b of K under the S-box's input pattern (q held the last call's S-box output, under
    that call's masks, which nothing here uses: mask variables, or zeros). subword_tout_t2(q,
    mw, w, rnd): q the S-box's output (a secret per slice) under the output pattern; w[0] = the
    output word XOR the fresh word r1 = rnd[0]. Controls: m1 = m0 (trade in), r1 = 0 (out)."""
    m0 = band(var(0), LSB)
    m1 = m0 if same and func == FUNCS_T[0] else band(var(32), LSB)

    def mask(p):
        return xor(m0 if p & 1 else ZERO, m1 if p & 2 else ZERO)
    mw = [m0, m1, xor(m0, m1), None]
    k, s1 = var(832), var(64)
    if func == FUNCS_T[0]:
        oldq = [band(var(320, b), LSB) for b in range(8)]
        want = [xor(band(shr(k, b), LSB), mask(pin[b])) for b in range(8)]
        return [([oldq, mw, [xor(k, s1), s1]], 0, want, [])]
    sv = [band(var(576, b), LSB) for b in range(8)]
    r1 = ZERO if same else var(64, 1)
    out = r1
    for b in range(8):
        out = xor(out, shl(sv[b], b))
    q = [xor(sv[b], mask(pout[b])) for b in range(8)]
    return [([q, mw, [xor(k, s1), s1], [r1]], 2, [out, s1], [])]


def bit_independent(w):
    """Every bit on its own independent of the secrets: its form has a mask variable, or no
    secret (the value model bit by bit, the value-model variant's claim)."""
    return all(not (r >> NMASK) or (r & ((1 << NMASK) - 1)) for r in w)


# The value-model driver's convention (aes_masked_lin_thumb2.py's V_START): its linear layers
# and key additions get the correction words' and the key shares' pointers (r1..r3) 16 bytes
# on, and reach words 0..3 and 4..7 by LDMDB and LDMIA from there.
V_START = {1: 16, 2: 16, 3: 16}


def interpret(prog, ctx, aapcs=False, bitwise=False, start=None):
    """Runs prog with the context's arrays at symbolic bases (r0, r1, ...); returns the number
    of values and transitions, the number that depend on the secrets, and the words at the
    written pointer. aapcs: the registers other than the arguments hold the C's values (U),
    which may only be saved (push) or cleared. bitwise: the value-model variant's test instead,
    every value written bit by bit (bit_independent), no transitions, the C's registers free to
    overwrite."""
    arrays, outp, _, exempt = ctx
    mem = {}
    for base, words in enumerate(arrays):
        for i, w in enumerate(words):
            mem[(base, 4 * i)] = w
    regs = [None] * 16  # None: a constant (pointer, saved register, zero)
    start = start or {}
    for i in range(len(arrays)):
        regs[i] = ('ptr', i, start.get(i, 0))  # (array, byte offset)
    if aapcs:
        for i in range(len(arrays), 13):
            regs[i] = 'U'
    n = bad = 0

    def word(v):
        if v == 'U':
            raise SystemExit('a register of the C read before it was written')
        return ZERO if v is None or isinstance(v, tuple) else v

    def rec(old, new):
        nonlocal n, bad
        if bitwise:
            n += 1
            wn = word(new)
            bad += (not bit_independent(wn)) and wn not in exempt
            return
        n += 2
        if old == 'U':
            bad += any(word(new))
            return
        if old is not None and not isinstance(old, tuple) and any(old) is False:
            old = None
        wn = word(new)
        bad += (not independent(wn)) and wn not in exempt
        # a transition from or to a constant is the other side's value, tested as such; the
        # caller's output buffer (None) is not modelled
        if old is not None and not isinstance(old, tuple) and any(wn):
            bad += not independent(xor(word(old), wn))

    def addr(s):
        m = re.match(r'\[(\w+)(?:, #(-?\d+))?\]$', s)
        base = regs[REGS[m.group(1)]]
        if not (isinstance(base, tuple) and base[0] == 'ptr'):
            raise SystemExit('address through a non-pointer: %s' % s)
        return (base[1], base[2] + int(m.group(2) or 0))
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        a = split_args(args)
        if base in ('ldm', 'ldmia', 'ldmdb') and not a[0].startswith('sp'):
            # loads of consecutive words through a pointer: ascending registers from the lowest
            # address (increment after: the pointer's; decrement before: below it), the
            # pointer moved by the writeback (!)
            rn = REGS[a[0].rstrip('!')]
            p = regs[rn]
            if not (isinstance(p, tuple) and p[0] == 'ptr'):
                raise SystemExit('address through a non-pointer: %s %s' % (op, args))
            rl = [REGS[x.strip()] for x in a[1].strip('{}').split(',')]
            if rl != sorted(rl) or rn in rl:
                raise SystemExit('unexpected register list: %s %s' % (op, args))
            lo = p[2] - (4 * len(rl) if base == 'ldmdb' else 0)
            for j, rd in enumerate(rl):
                v = mem[(p[1], lo + 4 * j)]
                rec(regs[rd], v)
                regs[rd] = v
            if a[0].endswith('!'):
                regs[rn] = (p[0], p[1], p[2] + 4 * len(rl) * (-1 if base == 'ldmdb' else 1))
            continue
        if base in ('add', 'sub', 'adds', 'subs') and len(a) == 3 and a[0] == a[1] and \
                isinstance(regs[REGS[a[0]]], tuple) and regs[REGS[a[0]]][0] == 'ptr':
            p = regs[REGS[a[0]]]  # a pointer moved
            d = int(a[2].lstrip('#'))
            regs[REGS[a[0]]] = (p[0], p[1], p[2] + (d if base.startswith('add') else -d))
            continue
        if base in ('push', 'stmdb', 'pop', 'ldmia', 'ldmia.w'):
            if base in ('pop', 'ldmia') and 'pc' in args:
                break
            continue  # saving and restoring the C's registers
        if base == 'bx':
            break
        rd = REGS[a[0]]
        if base == 'ldr':
            v = mem[addr(a[1])]
        elif base == 'str':
            k = addr(a[1])
            new = regs[rd]
            rec(mem[k], new)
            mem[k] = new if not isinstance(new, tuple) else None
            continue
        elif base in ('eor', 'eors'):
            x, y = word(regs[REGS[a[1]]]), word(regs[REGS[a[2]]])
            if len(a) == 4:
                m = re.match(r'(ror|lsr|lsl) #(\d+)$', a[3])
                if not m:
                    raise SystemExit('unknown operand: %s %s' % (op, args))
                y = {'ror': ror, 'lsr': shr, 'lsl': shl}[m.group(1)](y, int(m.group(2)))
            v = xor(x, y)
        elif base in ('and', 'ands'):
            v = band(word(regs[REGS[a[1]]]), int(a[2].lstrip('#')) & M32)
        elif base in ('ror', 'rors'):
            v = ror(word(regs[REGS[a[1]]]), int(a[2].lstrip('#')))
        elif base in ('mov', 'movs') and a[1] == '#0':
            v = None
        else:
            raise SystemExit('unknown instruction: %s %s' % (op, args))
        rec(regs[rd], v)
        regs[rd] = v
    interpret.mem = mem
    interpret.moved = [i for i in range(len(arrays)) if regs[i] != ('ptr', i, start.get(i, 0))]
    interpret.exit_data = [r for r in range(15) if r != 13 and regs[r] != 'U' and
                           any(word(regs[r]))]
    return n, bad, [word(mem[(outp, 4 * i)]) for i in range(len(arrays[outp]))]


def check(objdump, obj):
    status = 0
    for func in FUNCS + FUNCS_T:
        prog = disassemble(objdump, obj, func)
        n = bad = cbad = 0
        aapcs = func in AAPCS
        for ctx in contexts(func, False):
            nn, b, out = interpret(prog, ctx, aapcs)
            if out != ctx[2]:
                print('%s: %s: the interpreted output is wrong  FAIL' % (obj, func))
                return 1
            n, bad = n + nn, bad + b
            left = interpret.exit_data
            if left:
                print('%s: %s: data left in r%s at exit  FAIL' % (obj, func, left))
                return 1
        for ctx in contexts(func, True):
            cbad += interpret(prog, ctx, aapcs)[1]
        noclear = [(o, x) for o, x in prog if not re.match(r'str(\.w)?$', o) or
                   not re.match(r'r0, \[r0', x)]
        nbad = None
        if len(noclear) < len(prog):
            nbad = sum(interpret(noclear, ctx, aapcs)[1] for ctx in contexts(func, False))
        if aapcs:
            # the control: without its register clears it writes over the C's registers
            noclear = [(o, x) for o, x in prog if not (re.match(r'movs?(\.w)?$', o) and
                                                       x.endswith('#0'))]
            nbad = sum(interpret(noclear, ctx, aapcs)[1] for ctx in contexts(func, False))
        if func == FUNCS_T[0]:
            # the transition control: share 1 loaded over share 0's register and share 0
            # again (the output unchanged; old ^ new is the secret word twice)
            i = next(i for i, (o, x) in enumerate(prog) if re.match(r'ldr(\.w)?$', o) and
                     re.search(r'\[r2(, #0)?\]$', x))
            rd = split_args(prog[i][1])[0]
            bumped = prog[:i + 1] + [('ldr', '%s, [r2, #4]' % rd), prog[i]] + prog[i + 1:]
            nbad = sum(interpret(bumped, ctx, aapcs)[1] for ctx in contexts(func, False))
        fail = bad or not cbad or nbad == 0
        print('%s: %s %d instructions, %d values and transitions, %d depend on the secrets '
              '(control %s: %d%s)%s' % (
                  obj, func, len(prog), n, bad, 'r = 0' if aapcs else 'r1 = 0' if
                  func == FUNCS_T[1] else 'm1 = m0', cbad,
                  '' if nbad is None else '; share 1 over share 0 and back: %d' % nbad if
                  func == FUNCS_T[0] else '; without its %d %s clears: %d' % (
                      len(prog) - len(noclear), 'register' if aapcs else 'q-word', nbad),
                  '  FAIL' if fail else ''))
        status |= bool(fail)
    return status


# ---- the drivers rounds_masked_t2_10 / _14 ----
DRIVERS = {'rounds_masked_t2_10': 10, 'rounds_masked_t2_14': 14}
CALLEES = ['sbox_masked_t2', 'ark_masked_t2'] + ['lin_masked_t2_%d' % k for k in range(4)] + \
    FUNCS_T


def disassemble_calls(objdump, obj, func):
    """func's instructions, with each bl's target read from its relocation (the object is not
    linked): (op, args), bl's args being the callee's name."""
    out = subprocess.run([objdump, '-dr', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'<%s>:\n(.*?)(?:\n\n|\Z)' % func, out, re.S)
    if not m:
        raise SystemExit('%s: no %s' % (obj, func))
    prog = []
    for line in m.group(1).splitlines():
        rel = re.search(r'R_ARM_THM_(?:CALL|JUMP24)\s+(\w+)', line)
        if rel:
            if not prog or prog[-1][0] != 'bl':
                raise SystemExit('%s: a relocation after no bl: %s' % (func, line))
            prog[-1] = ('bl', rel.group(1))
            continue
        parts = line.split('\t')
        if len(parts) < 2:
            continue
        op = parts[1].strip()
        args = parts[2].split('@')[0].strip() if len(parts) > 2 else ''
        if op == 'bl':
            args = None  # its target: the relocation on the next line
        prog.append((op, args))
    return prog


def sbox_slots(objdump, obj, func='sbox_masked_t2'):
    """The S-box's stack slots as offsets from its caller's sp: after its push {lr} and its
    sub sp, the words it addresses through sp."""
    prog = disassemble(objdump, obj, func)
    if prog[0] != ('push', '{lr}') or not re.match(r'sub(\.w)?$', prog[1][0]):
        raise SystemExit('%s: %s: unexpected prologue %r' % (obj, func, prog[:2]))
    frame = int(prog[1][1].split('#')[1])
    offs = set()
    for op, args in prog[2:]:
        for m in re.finditer(r'\[sp(?:, #(-?\d+))?\]', args):
            offs.add(int(m.group(1) or 0))
    return [-4 - frame + o for o in sorted(offs)]


def driver_calls(calls, nr, kind):
    """What a driver of nr rounds must call, by its functions' kind (masked_t2, masked_v_t2): nr
    S-boxes, nr - 1 linear layers (any of the four) and 2 key additions; the failures."""
    want = {'sbox_' + kind: nr, 'ark_' + kind: 2}
    nlin = sum(calls.get('lin_%s_%d' % (kind, k), 0) for k in range(4))
    if any(calls.get(f, 0) != n for f, n in want.items()) or nlin != nr - 1:
        return ['calls %r, not %d S-boxes, %d linear layers and 2 key additions' % (
            calls, nr, nr - 1)]
    return []


def run_driver(prog, nr, slots, want=None):
    """Runs a driver with the pointers q, cm, rk0, rk1 in r0..r3 and the C's registers and
    stack as unknown data (U). Returns the failures found (strings): a call with data (U) in
    r0..r12, a call to anything but the checked functions, a store to the stack of anything
    but a pointer or zero (push, the AAPCS save of the C's registers, aside), a load from the
    stack of a word the driver did not store, an address through a non-pointer, the S-box's
    first call finding any of its slots other than zero, the wrong number of calls, an
    unknown instruction. Values: ('ptr', i, offset), 'Z' (zero), 'K' (a constant a callee
    left: the callees' checks require that they leave no data), 'U'."""
    regs = {r: 'U' for r in range(16)}
    for i in range(4):
        regs[i] = ('ptr', i, 0)
    regs[13] = 0  # sp, as an offset from its value at entry
    stack = {}  # offset -> value; missing: U (what the C left)
    fails = []
    calls = {}
    sbox_sp = []  # sp at each S-box call

    def const(v):
        return v == 'Z' or v == 'K' or (isinstance(v, tuple) and v[0] == 'ptr')

    def ptr_or_zero(v):
        return v == 'Z' or (isinstance(v, tuple) and v[0] == 'ptr')

    def reglist(args):
        return [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]

    def store(off, v, what):
        if not ptr_or_zero(v):
            fails.append('%s: a stack store of %r' % (what, v))
        stack[off] = v

    def load(off, what):
        v = stack.get(off, 'U')
        if not ptr_or_zero(v):
            fails.append('%s: a load of a stack word the driver did not store' % what)
        return v
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        what = '%s %s' % (op, args)
        if base == 'bl':
            calls[args] = calls.get(args, 0) + 1
            if args not in CALLEES:
                fails.append('a call to %s' % args)
            bad = [r for r in range(13) if not const(regs[r])]
            if bad:
                fails.append('%s: data (the C\'s) in r%s' % (what + args, bad))
            if regs[0] != ('ptr', 0, 0):
                fails.append('%s: r0 is not the state pointer' % (what + args))
            if args == 'sbox_masked_t2':
                sbox_sp.append(regs[13])
                if calls[args] == 1:
                    left = [o for o in slots if stack.get(regs[13] + o, 'U') != 'Z']
                    if left:
                        fails.append('the first S-box finds %d of its %d slots not zeroed' % (
                            len(left), len(slots)))
                for o in slots:
                    stack[regs[13] + o] = 'S'  # its own values (its generator checks them)
            for r in list(range(13)) + [14]:
                regs[r] = 'K'
            continue
        a = split_args(args)
        if base in ('push', 'stmdb') and (base == 'push' or a[0] == 'sp!'):
            rl = reglist(args)
            regs[13] -= 4 * len(rl)
            for k, r in enumerate(sorted(rl)):
                stack[regs[13] + 4 * k] = regs[r] if const(regs[r]) else 'saved'
            continue
        if base in ('pop', 'ldmia') and (base == 'pop' or a[0] == 'sp!'):
            rl = reglist(args)
            if 15 not in rl or regs[13] != -4 * len(rl):
                fails.append('%s: not the return with the frame released' % what)
            break
        if base in ('stmia', 'stm') and a[0] == 'sp':
            for k, r in enumerate(sorted(reglist(args))):
                store(regs[13] + 4 * k, regs[r], what)
            continue
        if base in ('ldmia', 'ldm') and a[0] == 'sp':
            for k, r in enumerate(sorted(reglist(args))):
                regs[r] = load(regs[13] + 4 * k, what)
            continue
        if base in ('str', 'ldr', 'strd', 'ldrd'):
            n = 2 if base.endswith('d') else 1
            m = re.match(r'\[(\w+)(?:, #(-?\d+))?\]$', a[n])
            if not m or m.group(1) != 'sp':
                fails.append('%s: not through sp' % what)
                continue
            off = regs[13] + int(m.group(2) or 0)
            for k in range(n):
                if base.startswith('str'):
                    store(off + 4 * k, regs[REGS[a[k]]], what)
                else:
                    regs[REGS[a[k]]] = load(off + 4 * k, what)
            continue
        if base in ('mov', 'movs') and len(a) == 2 and a[1] == '#0':
            regs[REGS[a[0]]] = 'Z'
            continue
        m = re.match(r'(add|sub)(s|w)?$', base)
        if m:
            rd = REGS[a[0]]
            src = REGS[a[1]] if len(a) == 3 else rd
            k = int(a[-1].lstrip('#')) * (1 if m.group(1) == 'add' else -1)
            if rd == 13 and src == 13:
                regs[13] += k
            elif isinstance(regs[src], tuple) and regs[src][0] == 'ptr' and rd != 13:
                regs[rd] = ('ptr', regs[src][1], regs[src][2] + k)
            else:
                fails.append('%s: arithmetic on a non-pointer' % what)
            continue
        fails.append('unknown instruction: %s' % what)
    run_driver.sbox_sp = sbox_sp
    if want is not None:  # (subword_pat_t2: its calls exactly)
        return fails + ([] if calls == want else ['calls %r, not %r' % (calls, want)])
    return fails + driver_calls(calls, nr, 'masked_t2')


def check_drivers(objdump, obj):
    """The drivers on the compiled object, and two controls that must fail: the driver without
    its entry clears, and without its zeroing of the S-box's slots."""
    status = 0
    slots = sbox_slots(objdump, obj)
    for func, nr in DRIVERS.items():
        prog = disassemble_calls(objdump, obj, func)
        fails = run_driver(prog, nr, slots)
        noclear = [(o, x) for o, x in prog if not (re.match(r'movs?(\.w)?$', o) and
                                                   x.endswith('#0'))]
        noslots = [(o, x) for o, x in prog if not (re.match(r'str(\.w)?$', o) and
                                                   re.search(r'\[sp, #-\d+\]', x or ''))]
        c1 = run_driver(noclear, nr, slots)
        c2 = run_driver(noslots, nr, slots)
        fail = bool(fails) or not c1 or not c2 or len(noclear) == len(prog) or \
            len(noslots) == len(prog)
        print('%s: %s %d instructions, %d calls with r4..r12 constant and r0..r3 pointers or '
              'constants, %d S-box slots zeroed before the first S-box, %d failures (controls: '
              'without its %d entry clears %d, without its %d slot stores %d)%s' % (
                  obj, func, len(prog), sum(1 for o, _ in prog if o == 'bl'), len(slots),
                  len(fails), len(prog) - len(noclear), len(c1), len(prog) - len(noslots),
                  len(c2), '  FAIL' if fail else ''))
        for f in fails:
            print('    %s' % f)
        status |= fail
    return status


SUBWORD_CALLS = {'subword_tin_t2': 1, 'sbox_masked_t2': 1, 'subword_tout_t2': 1}


def zeroed_below(prog):
    """The stack words (offsets from sp at entry) that a function without calls stores a zero
    to (a register set by mov #0), and whether it returns with its frame released."""
    regs, sp, out, ok = {}, 0, set(), False
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        a = split_args(args or '')
        if base == 'push' or (base == 'stmdb' and a[0] == 'sp!'):
            sp -= 4 * len(a[-1].split(','))
        elif base == 'pop' or (base == 'ldmia' and a[0] == 'sp!'):
            ok = 'pc' in args and sp == -4 * len(a[-1].split(','))
            break
        elif base in ('mov', 'movs') and len(a) == 2:
            regs[a[0]] = a[1] == '#0'
        elif re.match(r'(add|sub)(s|w)?$', base) and a[0] == 'sp':
            sp += int(a[-1].lstrip('#')) * (1 if base.startswith('add') else -1)
        elif base == 'str':
            m = re.match(r'\[sp(?:, #(-?\d+))?\]$', a[1])
            if m and regs.get(a[0]):
                out.add(sp + int(m.group(1) or 0))
        else:
            ok = False
            break
    return out, ok


def check_subword_driver(objdump, obj):
    """The default key schedule's SubWord driver subword_pat_t2 (aes_masked32.c's subword_pat):
    as a rounds driver (run_driver: the C's registers cleared before the first call, r0..r3
    pointers, the S-box's slots zero at its call), calling the trade in, the S-box and the
    trade out once each; controls without its entry clears and its slot stores. And
    subword_pat_wipe_t2, which the same C function calls at the same depth once a key: it must
    zero every one of those slots (offsets from sp at entry) and return; control without its
    stores."""
    slots = sbox_slots(objdump, obj)
    prog = disassemble_calls(objdump, obj, 'subword_pat_t2')
    fails = run_driver(prog, None, slots, SUBWORD_CALLS)
    at = run_driver.sbox_sp
    noclear = [(o, x) for o, x in prog if not (re.match(r'movs?(\.w)?$', o) and
                                               x.endswith('#0'))]
    noslots = [(o, x) for o, x in prog if not (re.match(r'str(\.w)?$', o) and
                                               re.search(r'\[sp, #-\d+\]', x or ''))]
    c1 = run_driver(noclear, None, slots, SUBWORD_CALLS)
    c2 = run_driver(noslots, None, slots, SUBWORD_CALLS)
    wipe = disassemble(objdump, obj, 'subword_pat_wipe_t2')
    want = {at[0] + o for o in slots} if len(at) == 1 else None
    zeroed, ret = zeroed_below(wipe)
    if want is None or not want <= zeroed or not ret:
        fails.append('subword_pat_wipe_t2 zeroes %d of the S-box\'s %d slots%s' % (
            len(want & zeroed) if want else 0, len(slots), '' if ret else ', no plain return'))
    cz, _ = zeroed_below([(o, x) for o, x in wipe if not re.match(r'str(\.w)?$', o)])
    fail = bool(fails) or not c1 or not c2 or len(noclear) == len(prog) or \
        len(noslots) == len(prog) or (want is not None and want <= cz)
    print('%s: subword_pat_t2 %d instructions, calls %s, r4..r12 constant and r0..r3 pointers at '
          'each, %d S-box slots zeroed before it, subword_pat_wipe_t2 zeroing them again, %d '
          'failures (controls: without its %d entry clears %d, without its %d slot stores %d)%s'
          % (obj, len(prog), '/'.join(SUBWORD_CALLS), len(slots), len(fails),
             len(prog) - len(noclear), len(c1), len(prog) - len(noslots), len(c2),
             '  FAIL' if fail else ''))
    for f in fails:
        print('    %s' % f)
    return fail


# ---- the value-model variant's drivers rounds_masked_v_t2_10 / _14 ----
DRIVERS_V = {'rounds_masked_v_t2_10': 10, 'rounds_masked_v_t2_14': 14}


def run_driver_v(prog, nr, slots):
    """The value-model variant's driver claims less (no register clears, aes_masked.h), but one
    thing its C caller relies on instead of a wipe: when it returns, every stack slot of its
    S-box (sbox_masked_v_t2) holds zero, stored after the last S-box call. Runs it tracking sp
    and which registers hold zero; returns the failures (strings), the calls counted too."""
    regs = {r: 'K' for r in range(16)}
    sp = 0
    stack = {}
    calls = {}
    fails = []

    def reglist(args):
        return [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        what = '%s %s' % (op, args)
        if base == 'bl':
            calls[args] = calls.get(args, 0) + 1
            if args == 'sbox_masked_v_t2':
                for o in slots:
                    stack[sp + o] = 'S'
            for r in list(range(13)) + [14]:
                regs[r] = 'K'
            continue
        if base == 'nop':
            continue
        a = split_args(args)
        if base == 'push' or (base == 'stmdb' and a[0] == 'sp!'):
            sp -= 4 * len(reglist(args))
            continue
        if base == 'pop' or (base == 'ldmia' and a[0] == 'sp!'):
            left = [o for o, v in stack.items() if v == 'S']
            if 15 not in reglist(args):
                fails.append('%s: not the return' % what)
            if left:
                fails.append('returns with %d of the S-box\'s %d slots not zeroed' % (
                    len(left), len(slots)))
            break
        if base in ('mov', 'movs') and len(a) == 2 and a[1] == '#0':
            regs[REGS[a[0]]] = 'Z'
            continue
        if base == 'str':
            m = re.match(r'\[sp(?:, #(-?\d+))?\]$', a[1])
            if m:
                stack[sp + int(m.group(1) or 0)] = regs[REGS[a[0]]]
            continue
        m = re.match(r'(add|sub)(s|w)?$', base)
        if m and REGS[a[0]] == 13:
            sp += int(a[-1].lstrip('#')) * (1 if m.group(1) == 'add' else -1)
            continue
        if base in ('stm', 'stmia', 'ldm', 'ldmia', 'add', 'sub', 'adds', 'subs'):
            if base.startswith('ldm'):
                for r in reglist(args):
                    regs[r] = 'K'
            continue
        fails.append('unknown instruction: %s' % what)
    return fails + driver_calls(calls, nr, 'masked_v_t2')


def check_drivers_v(objdump, obj):
    """The value-model drivers on the compiled object, and the control that must fail: the
    driver without its stores of zero below sp."""
    status = 0
    slots = sbox_slots(objdump, obj, 'sbox_masked_v_t2')
    for func, nr in DRIVERS_V.items():
        prog = disassemble_calls(objdump, obj, func)
        fails = run_driver_v(prog, nr, slots)
        noslots = [(o, x) for o, x in prog if not (re.match(r'str(\.w)?$', o) and
                                                   re.search(r'\[sp, #-\d+\]', x or ''))]
        c = run_driver_v(noslots, nr, slots)
        fail = bool(fails) or not c or len(noslots) == len(prog)
        print('%s: %s %d instructions, %d calls, its S-box\'s %d slots zeroed on the way out, '
              '%d failures (control without its %d slot stores: %d)%s' % (
                  obj, func, len(prog), sum(1 for o, _ in prog if o == 'bl'), len(slots),
                  len(fails), len(prog) - len(noslots), len(c), '  FAIL' if fail else ''))
        for f in fails:
            print('    %s' % f)
        status |= fail
    return status


# ---- the value-model variant's linear layers, packing and unpacking, bit by bit ----
FUNCS_V = [f.replace('_t2', '_v_t2') for f in FUNCS]
VM_RU = (0, 0, 8, 8, 0, 0, 8, 8)  # aes_masked32.c's vm_ru: the ciphertext words' rotations of v


def contexts_v(func, control=None):
    """The value-model variant's contexts (aes_masked.h, aes_masked32.c's call_masks_init_v): one
    word v (m0 = v, m1 = ror(v, 1)), the plaintext words all masked by v, the ciphertext words
    c by ror(v, VM_RU[c]); the key shares as in contexts(). Same layout as contexts().
    control: 'same' (m1 = m0), 'one_v' (the ciphertext words all masked by v: the unpacking's
    rotations of v must be dropped with it), 'zero' (v = 0, packing)."""
    pin, pout = patterns()
    v = ZERO if control == 'zero' else var(0)
    m0 = v
    m1 = m0 if control == 'same' else ror(v, 1)

    def mask(p):
        return xor(m0 if p & 1 else ZERO, m1 if p & 2 else ZERO)
    mi, mo = [mask(p) for p in pin], [mask(p) for p in pout]
    s = [var(576, b) for b in range(8)]
    key = [var(832, b) for b in range(8)]
    share1 = [var(64, b) for b in range(8)]
    share0 = [xor(key[b], share1[b]) for b in range(8)]
    pv = pack([v] * 8)  # the packed plaintext's masks
    u = [v if control == 'one_v' else ror(v, VM_RU[c]) for c in range(8)]
    pu = pack(u)  # the packed ciphertext words' masks
    if func.startswith('lin'):
        k = int(func[-1])
        mm, ms = mixcolumns(mo, k), mixcolumns(s, k)
        return [([[xor(s[b], mo[b]) for b in range(8)], [xor(mm[b], mi[b]) for b in range(8)],
                  share0, share1], 0, [xor(xor(ms[b], key[b]), mi[b]) for b in range(8)], [])]
    if func == 'ark_masked_v_t2':
        return [([[xor(s[b], pv[b]) for b in range(8)], [xor(pv[b], mi[b]) for b in range(8)],
                  share0, share1], 0, [xor(xor(s[b], key[b]), mi[b]) for b in range(8)], []),
                ([[xor(s[b], mo[b]) for b in range(8)], [xor(mo[b], sr2(pu[b])) for b in range(8)],
                  share0, share1], 0, [xor(xor(s[b], key[b]), sr2(pu[b])) for b in range(8)], [])]
    if func == 'pack_masked_v_t2':
        return [([[ZERO] * 8, s, [v]], 0, pack([xor(s[c], v) for c in range(8)]), s)]
    ct = unpack([sr2(x) for x in s])
    return [([[None] * 8, [xor(s[b], sr2(pu[b])) for b in range(8)], [v]], 0, ct, ct)]


def check_v(objdump, obj):
    """The value-model variant's _v_t2 functions on the compiled object, interpreted bit by bit
    (its claim: every bit of every value has a mask bit; no transitions), the outputs right.
    Controls that must fail: m1 = m0 (the linear layers and key additions), the unpacking with
    one v for all ciphertext words (its rotations of v dropped, the masks of q to match), the
    packing with v = 0."""
    status = 0
    for func in FUNCS_V:
        prog = disassemble(objdump, obj, func)
        n = bad = 0
        start = V_START if func.startswith(('lin', 'ark')) else None
        for ctx in contexts_v(func):
            nn, b, out = interpret(prog, ctx, func in AAPCS_V, bitwise=True, start=start)
            if out != ctx[2]:
                print('%s: %s: the interpreted output is wrong  FAIL' % (obj, func))
                return 1
            if interpret.moved:
                print('%s: %s: returns with its pointers r%s moved  FAIL' % (
                    obj, func, interpret.moved))
                return 1
            n, bad = n + nn, bad + b
        if func == 'unpack_masked_v_t2':
            cname = 'one v for all ciphertext words'
            cprog = [(o, re.sub(r', ror #8$', '', x or '')) for o, x in prog]
            if cprog == prog:
                print('%s: %s: no rotation of v to drop for the control  FAIL' % (obj, func))
                return 1
            cctx = contexts_v(func, 'one_v')
        elif func == 'pack_masked_v_t2':
            cname, cprog, cctx = 'v = 0', prog, contexts_v(func, 'zero')
        else:
            cname, cprog, cctx = 'm1 = m0', prog, contexts_v(func, 'same')
        cbad = 0
        for ctx in cctx:
            cn, cb, cout = interpret(cprog, ctx, func in AAPCS_V, bitwise=True, start=start)
            if cout != ctx[2]:
                print('%s: %s: the control\'s interpreted output is wrong  FAIL' % (obj, func))
                return 1
            cbad += cb
        fail = bad or not cbad
        print('%s: %s %d instructions, %d values bit by bit, %d with a bit that depends on the '
              'secrets (control %s: %d)%s' % (obj, func, len(prog), n, bad, cname, cbad,
                                              '  FAIL' if fail else ''))
        status |= bool(fail)
    return status


# ---- the value-model unpacking's wipe of q, and its callers ----
ENTRIES_V = ('bs_aes128_maskedv_2blocks', 'bs_aes256_maskedv_2blocks')


def unpack_v_context(v=None):
    """unpack_masked_v_t2(out, q, v): q the state after the last key addition under SR^2 of
    the packed ciphertext masks (v for words 0, 1, 4, 5, ror(v, 8) for 2, 3, 6, 7, aes_masked32.c's
    vm_ru); what it must store: the ciphertext words."""
    v = var(320) if v is None else v
    s = [var(576, b) for b in range(8)]
    pu = pack([ror(v, 8 * ((c >> 1) & 1)) for c in range(8)])
    ct = unpack([sr2(x) for x in s])
    return ([[None] * 8, [xor(s[b], sr2(pu[b])) for b in range(8)], [v]], 0, ct, ct)


def q_left(prog):
    """Runs the unpacking; returns (its output right, the q[] words left non-zero)."""
    ctx = unpack_v_context()
    out = interpret(prog, ctx, True)[2]
    return out == ctx[2], [i for i in range(8) if any(word_of(interpret.mem[(1, 4 * i)]))]


def word_of(v):
    return ZERO if v is None or isinstance(v, tuple) else v


def check_unpack_v_wipe(objdump, obj):
    """The value-model variant's C wipes nothing on Cortex-M3/M4: q, the ciphertext under
    masks computed from v (which the caller's cm keeps), must be zero when unpack_masked_v_t2
    returns, and each entry point must call it after the rounds, its last call. Control: the
    unpacking without its stores through q's pointer r1 (the wipe) fails."""
    prog = disassemble(objdump, obj, 'unpack_masked_v_t2')
    right, left = q_left(prog)
    nowipe = [(o, x) for o, x in prog if not (re.match(r'str(\.w)?$', o) and
                                              re.search(r'\[r1(, #\d+)?\]', x or ''))]
    cright, cleft = q_left(nowipe)
    fails = []
    if not right or not cright:
        fails.append('the interpreted output is wrong')
    if left:
        fails.append('q[%s] not zeroed' % ', '.join(map(str, left)))
    for func in ENTRIES_V:
        calls = [x for o, x in disassemble_calls(objdump, obj, func) if o == 'bl']
        want = ['pack_masked_v_t2', 'unpack_masked_v_t2']
        seen = [c for c in calls if c in want or c.startswith('rounds_masked_v_t2_')]
        # (at -O0 both drivers are called, on the two sides of the unfolded branch on nr)
        if (len(seen) < 3 or seen[0] != want[0] or seen.count(want[1]) != 1 or
                calls[-1] != want[1]):
            fails.append('%s: calls %r, not packing, rounds, unpacking last' % (func, calls))
    fail = bool(fails) or not cleft or len(nowipe) == len(prog)
    print('%s: unpack_masked_v_t2 leaves q[] zero (%d words non-zero; without its %d stores '
          'through r1: %d), the entry points call it last, %d failures%s' % (
              obj, len(left), len(prog) - len(nowipe), len(cleft), len(fails),
              '  FAIL' if fail else ''))
    for f in fails:
        print('    %s' % f)
    return fail


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    check_sbox_thumb.use_build(args[1])
    status = 0
    for obj in args[1:]:
        status |= check(args[0], obj)
        status |= check_drivers(args[0], obj)
        status |= check_subword_driver(args[0], obj)
        status |= check_drivers_v(args[0], obj)
        status |= check_v(args[0], obj)
        status |= check_unpack_v_wipe(args[0], obj)
    return status


if __name__ == '__main__':
    sys.exit(main())
