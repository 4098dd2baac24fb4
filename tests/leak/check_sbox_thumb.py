#!/usr/bin/env python3
"""Checks the compiled masked S-box of core/aes/aes_masked32.c on the Cortex-M machine code: a
compiler may regroup the C's XORs or fold a gadget's terms (a b = A B ^ A mb ^ ...) into an
unmasked value that the C never names, which neither the instrumented host build nor the
t-test can see.

    tests/leak/check_sbox_thumb.py OBJDUMP OBJECT...   (exit status 1 on any failure)
    tests/leak/check_sbox_thumb.py --no-hide-control BUILD_DIR

For each object (aes_masked32.c compiled for a Cortex-M, any optimisation level) it
disassembles sbox_masked, which is straight-line code, and runs it in a small interpreter of
the instructions found there (data processing, loads and stores, push and pop), 32 times, each
bit position of every word carrying one (input byte x, m0 bit, m1 bit) combination, as
tests/leak/test_aes_masked_exact.c does with the C. Every value the code produces (every
register write, load and store, in execution order) must be, bit by bit, independent of x:
for every x the same number of the four mask cases sets the bit (values equal in all 32 runs,
the pointers and saved registers, carry no data and are skipped). The output must be the
S-box (without its NOTs) under the output masks of core/aes/aes_masked_sbox.h, so that the
interpreter is known to follow the code. A control runs the same code with m1 = m0 and must
fail. An instruction the interpreter does not know fails the check rather than being skipped.

--transitions OBJDUMP OBJECT... also records, for every register write and store, the XOR of
the old and the new contents (the Hamming-distance leakage of a register or bus) and reports
how many of those depend on the input. It is a report, not a check (exit status 0): the
masking claims the value model only (core/aes/aes_masked.h), and masks reused across slices
make many transitions unmasked.

--no-hide-control compiles aes_masked32.c again with the command of BUILD_DIR's -O2 MCU
library plus -DBS_AES_MASKED_NO_HIDE (the C without its compiler barriers) and requires the
check to fail there: it shows what the barriers are for (GCC 12 at -O2: about 100 of the
S-box's values then depend on the input).
"""
import re
import subprocess
import sys

REGS = {'r%d' % i: i for i in range(13)}
REGS.update({'sl': 10, 'fp': 11, 'ip': 12, 'sp': 13, 'lr': 14, 'pc': 15})
M32 = 0xffffffff
TRANSITIONS = False  # --transitions: also record old ^ new of every register write and store


def patterns():
    src = open('core/aes/aes_masked_sbox.h').read()
    pin = [int(re.search(r'#define BS_AES_MASKED_IN_%d (\d)' % b, src).group(1)) for b in range(8)]
    pout = [int(re.search(r'#define BS_AES_MASKED_OUT_%d (\d)' % b, src).group(1))
            for b in range(8)]
    return pin, pout


def sbox_table():
    def gmul(a, b):
        r = 0
        while b:
            if b & 1:
                r ^= a
            a <<= 1
            if a & 0x100:
                a ^= 0x11b
            b >>= 1
        return r
    t = []
    for x in range(256):
        inv = next((y for y in range(1, 256) if gmul(x, y) == 1), 0) if x else 0
        r = 0x63
        for i in range(8):
            r ^= (((inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8)) ^
                   (inv >> ((i + 6) % 8)) ^ (inv >> ((i + 7) % 8))) & 1) << i
        t.append(r)
    return t


def disassemble(objdump, obj):
    out = subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'<sbox_masked>:\n(.*?)(?:\n\n|\Z)', out, re.S)
    if not m:
        raise SystemExit('%s: no sbox_masked' % obj)
    prog = []
    for line in m.group(1).splitlines():
        parts = line.split('\t')
        if len(parts) < 2:
            continue
        op = parts[1].strip()
        args = parts[2].split('@')[0].strip() if len(parts) > 2 else ''
        prog.append((op, args))
    return prog


def operand2(regs, s):
    """A register, an immediate or a shifted register (Thumb-2's flexible second operand)."""
    s = s.strip()
    m = re.match(r'#(-?\d+)$', s)
    if m:
        return int(m.group(1)) & M32
    m = re.match(r'(\w+)(?:, (lsl|lsr|asr|ror) #(\d+))?$', s)
    if not m:
        raise ValueError(s)
    v = regs[REGS[m.group(1)]]
    if m.group(2):
        n = int(m.group(3))
        if m.group(2) == 'lsl':
            v = (v << n) & M32
        elif m.group(2) == 'lsr':
            v >>= n
        elif m.group(2) == 'asr':
            v = ((v - (1 << 32)) >> n) & M32 if v >> 31 else v >> n
        else:
            v = ((v >> n) | (v << (32 - n))) & M32
    return v


def split_args(args):
    # split on commas outside brackets and braces
    out, depth, cur = [], 0, ''
    for ch in args:
        if ch in '[{':
            depth += 1
        elif ch in ']}':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def address(regs, s):
    m = re.match(r'\[(\w+)(?:, #(-?\d+))?\](!?)$', s)
    if not m:
        raise ValueError(s)
    base = REGS[m.group(1)]
    off = int(m.group(2) or 0)
    return base, off, m.group(3) == '!'


ALU = {'eor': lambda a, b: a ^ b, 'and': lambda a, b: a & b, 'orr': lambda a, b: a | b,
       'bic': lambda a, b: a & ~b & M32, 'orn': lambda a, b: a | (~b & M32)}


def run(prog, q, mw):
    """Executes the program on q (8 words at 0x1000) and mw (4 words at 0x2000); returns the
    values it produced and the final q."""
    mem = {}
    for i, v in enumerate(q):
        mem[0x1000 + 4 * i] = v
    for i, v in enumerate(mw):
        mem[0x2000 + 4 * i] = v
    regs = [0] * 16
    regs[0], regs[1], regs[13], regs[14] = 0x1000, 0x2000, 0x8000, 0xdead
    vals = []

    def hd(old, new):
        if TRANSITIONS:
            vals.append(old ^ new)
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        a = split_args(args)
        m = re.match(r'(eor|and|orr|bic|orn)(s?)$', base)
        if m:
            f = ALU[m.group(1)]
            if len(a) == 2:
                rd = REGS[a[0]]
                v = f(regs[rd], operand2(regs, a[1]))
            else:
                rd = REGS[a[0]]
                v = f(regs[REGS[a[1]]], operand2(regs, ', '.join(a[2:])))
            hd(regs[rd], v)
            regs[rd] = v
            vals.append(v)
        elif base in ('mov', 'movs'):
            v = operand2(regs, ', '.join(a[1:]))
            hd(regs[REGS[a[0]]], v)
            regs[REGS[a[0]]] = v
            vals.append(regs[REGS[a[0]]])
        elif base in ('mvn', 'mvns'):
            v = ~operand2(regs, ', '.join(a[1:])) & M32
            hd(regs[REGS[a[0]]], v)
            regs[REGS[a[0]]] = v
            vals.append(regs[REGS[a[0]]])
        elif base == 'ldr':
            r, off, wb = address(regs, a[1])
            v = mem.get(regs[r] + off, 0)
            if wb:
                regs[r] = regs[r] + off
            hd(regs[REGS[a[0]]], v)
            regs[REGS[a[0]]] = v
            vals.append(v)
        elif base == 'str':
            r, off, wb = address(regs, a[1])
            hd(mem.get(regs[r] + off, 0), regs[REGS[a[0]]])
            mem[regs[r] + off] = regs[REGS[a[0]]]
            if wb:
                regs[r] = regs[r] + off
            vals.append(regs[REGS[a[0]]])
        elif base in ('ldrd', 'strd'):
            r, off, wb = address(regs, a[2])
            addr = regs[r] + off
            for k, reg in enumerate(a[:2]):
                if base == 'ldrd':
                    hd(regs[REGS[reg]], mem.get(addr + 4 * k, 0))
                    regs[REGS[reg]] = mem.get(addr + 4 * k, 0)
                    vals.append(regs[REGS[reg]])
                else:
                    hd(mem.get(addr + 4 * k, 0), regs[REGS[reg]])
                    mem[addr + 4 * k] = regs[REGS[reg]]
                    vals.append(regs[REGS[reg]])
            if wb:
                regs[r] = addr
        elif re.match(r'(add|sub)(s|w)?$', base):
            rd = REGS[a[0]]
            x = regs[REGS[a[1]]] if len(a) == 3 else regs[rd]
            y = operand2(regs, a[-1])
            regs[rd] = (x + y if base.startswith('add') else x - y) & M32
            if rd != 13:
                vals.append(regs[rd])
        elif base in ('stmdb', 'push'):
            rl = [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]
            regs[13] -= 4 * len(rl)
            for k, r in enumerate(sorted(rl)):
                mem[regs[13] + 4 * k] = regs[r]
        elif base in ('ldmia', 'pop'):
            rl = [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]
            for k, r in enumerate(sorted(rl)):
                regs[r] = mem.get(regs[13] + 4 * k, 0)
            regs[13] += 4 * len(rl)
            if 15 in rl:
                break
        elif base == 'bx' and a[0] == 'lr':
            break
        elif base == 'nop':
            pass
        else:
            raise SystemExit('unknown instruction: %s %s' % (op, args))
    return vals, [mem[0x1000 + 4 * i] for i in range(8)]


def check(prog, same_masks, pin, pout, sbox):
    ones = None
    for w in range(32):
        q, mw = [0] * 8, [0, 0, 0, 0]
        for j in range(32):
            combo = 32 * w + j
            b0 = combo & 1
            b1 = b0 if same_masks else (combo >> 1) & 1
            mw[0] |= b0 << j
            mw[1] |= b1 << j
        mw[2], mw[3] = mw[0] ^ mw[1], mw[0] | mw[1]

        def mask(p, j):
            return (((mw[0] >> j) & 1) if p & 1 else 0) ^ (((mw[1] >> j) & 1) if p & 2 else 0)
        for j in range(32):
            x = (32 * w + j) >> 2
            for b in range(8):
                q[b] |= (((x >> b) & 1) ^ mask(pin[b], j)) << j
        vals, out = run(prog, q, mw)
        if not same_masks:
            for j in range(32):
                x = (32 * w + j) >> 2
                y = 0
                for b in range(8):
                    y |= (((out[b] >> j) & 1) ^ mask(pout[b], j)) << b
                if y != sbox[x] ^ 0x63:
                    raise SystemExit('interpreted S-box output wrong at x = %02x' % x)
        if ones is None:
            ones = [[0] * 256 for _ in vals]
            first = list(vals)
            varies = [False] * len(vals)
        for p, v in enumerate(vals):
            varies[p] |= v != first[p]
            for j in range(32):
                ones[p][(32 * w + j) >> 2] += (v >> j) & 1
    # a value that is the same in all 32 runs (a pointer, a saved register) carries no data
    bad = sum(1 for p, row in enumerate(ones) if varies[p] and any(c != row[0] for c in row))
    return len(ones), bad


def no_hide_control(build):
    import json
    import os
    import shlex
    import tempfile
    cmds = json.load(open(os.path.join(build, 'compile_commands.json')))
    e = next(c for c in cmds if 'libbsmcu_O2' in c['output'] and
             c['file'].endswith('aes_masked32.c'))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'nohide.o')
        # the same command without its dependency-file arguments
        clean, skip = [], False
        for a in shlex.split(e['command']):
            if skip:
                skip = False
                continue
            if a in ('-MQ', '-MF'):
                skip = True
                continue
            if a == '-MD':
                continue
            clean.append(a)
        clean[clean.index('-o') + 1] = out
        subprocess.run(clean + ['-DBS_AES_MASKED_NO_HIDE'], check=True, cwd=e['directory'])
        objdump = clean[0].replace('gcc', 'objdump')
        prog = disassemble(objdump, out)
    pin, pout = patterns()
    n, bad = check(prog, False, pin, pout, sbox_table())
    print('control, the S-box without its compiler barriers (-O2): %d values, %d depend on the '
          'input%s' % (n, bad, '' if bad else '  FAIL: not detected'))
    return 0 if bad else 1


def transitions(objdump, objs):
    global TRANSITIONS
    pin, pout = patterns()
    sbox = sbox_table()
    for obj in objs:
        prog = disassemble(objdump, obj)
        TRANSITIONS = False
        n, bad = check(prog, False, pin, pout, sbox)
        TRANSITIONS = True
        nt, badt = check(prog, False, pin, pout, sbox)
        TRANSITIONS = False
        print('%s: sbox_masked values %d (%d depend on the input); with the transitions '
              '(old ^ new of each register write and store) %d, of which %d depend on the input '
              '(reported, outside the value-model claim)' % (obj, n, bad, nt, badt - bad))
    return 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--no-hide-control':
        return no_hide_control(sys.argv[2])
    if len(sys.argv) >= 4 and sys.argv[1] == '--transitions':
        return transitions(sys.argv[2], sys.argv[3:])
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    objdump, objs = sys.argv[1], sys.argv[2:]
    pin, pout = patterns()
    sbox = sbox_table()
    status = 0
    for obj in objs:
        prog = disassemble(objdump, obj)
        n, bad = check(prog, False, pin, pout, sbox)
        _, cbad = check(prog, True, pin, pout, sbox)
        ok = bad == 0 and cbad > 0
        print('%s: sbox_masked %d instructions, %d values, %d depend on the input; control '
              '(m1 = m0): %d depend%s' % (obj, len(prog), n, bad, cbad, '' if ok else '  FAIL'))
        status |= not ok
    return status


if __name__ == '__main__':
    sys.exit(main())
