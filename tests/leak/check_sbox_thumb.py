#!/usr/bin/env python3
"""Checks the compiled masked S-box of core/aes/aes_masked32.c on the Cortex-M machine code: a
compiler may regroup the C's XORs or fold a gadget's terms (a b = A B ^ A mb ^ ...) into an
unmasked value that the C never names, which neither the instrumented host build nor the
t-test can see; and a register allocation decides which values follow each other in a
register or a store (the transitions).

    tests/leak/check_sbox_thumb.py [--func NAME] [--transitions-zero] OBJDUMP OBJECT...
    tests/leak/check_sbox_thumb.py --transitions [--func NAME] OBJDUMP OBJECT...
    tests/leak/check_sbox_thumb.py --c-sbox BUILD_DIR
    tests/leak/check_sbox_thumb.py --no-hide-control BUILD_DIR
    (exit status 1 on any failure)

For each object (aes_masked32.c compiled for a Cortex-M, any optimisation level) it
disassembles the S-box (NAME: sbox_masked_t2, the generated Thumb-2 of core/aes/aes_masked_t2.h
that Cortex-M builds use, by default; sbox_masked, the C, in a build with
-DBS_AES_MASKED_C_SBOX), which is straight-line code, and runs it in a small interpreter of
the instructions found there (data processing, loads and stores, push and pop), 32 times, each
bit position of every word carrying one (input byte x, m0 bit, m1 bit) combination, as
tests/leak/test_aes_masked_exact.c does with the C. Every value the code produces (every
register write, load and store, in execution order) must be, bit by bit, independent of x:
for every x the same number of the four mask cases sets the bit (values equal in all 32 runs,
the pointers and saved registers, carry no data and are skipped). The output must be the
S-box (without its NOTs) under the output masks of the build's core/aes/aes_masked_sbox.h, so
that the interpreter is known to follow the code. A control runs the same code with m1 = m0 and must
fail. An instruction the interpreter does not know fails the check rather than being skipped.

--transitions-zero also records, for every register write (loads included) and store, the XOR
of the old and the new contents (the Hamming-distance leakage of a register or a bus) and
requires none of them to depend on the input either: what the generated assembly's allocator
guarantees; and requires that no register holds data when the function returns (the
generated S-box clears them, so that the next generated function starts as the model
assumes). The model starts from zeroed registers and memory: what the S-box finds at its
first call of an encryption, the driver having cleared r4..r12 and zeroed the S-box's stack
slots (tests/leak/check_lin_thumb.py checks that on the compiled driver); at a later call its
slots hold what the previous call left, which only its generator checks (across_calls()).
It covers the register file and stores only (not operand buses, the load data path or
glitches).

A control runs the same code without the register clears (mov rX, #0) that the generated
allocation inserts where a write would otherwise unmask, and must fail.

--transitions reports the same count without requiring it to be zero (exit status 0 unless
a value depends on the input).

--c-sbox compiles aes_masked32.c again with the command of each of BUILD_DIR's MCU libraries
(-O0 .. -Os) plus -DBS_AES_MASKED_C_SBOX, so that the C S-box is what is compiled, and checks
its values (they must pass) and reports its transitions: with the masks reused across slices,
GCC's allocation lets about 150 of them depend on the input (core/aes/aes_masked.h).

--no-hide-control compiles the C S-box again with the command of BUILD_DIR's -O2 MCU library
plus -DBS_AES_MASKED_NO_HIDE (the C without its compiler barriers) and requires the check to
fail there: it shows what the barriers are for (GCC 12 at -O2: about 100 of the S-box's values
then depend on the input).
"""
import os
import re
import subprocess
import sys

REGS = {'r%d' % i: i for i in range(13)}
REGS.update({'sl': 10, 'fp': 11, 'ip': 12, 'sp': 13, 'lr': 14, 'pc': 15})
M32 = 0xffffffff
TRANSITIONS = False  # --transitions: also record old ^ new of every register write and store


# The generated aes_masked_sbox.h of the build being checked (use_build()).
SBOX_H = None


def use_build(path):
    """The build directory that holds PATH (an object of it, or the directory itself): its
    generated core/aes/aes_masked_sbox.h gives the patterns."""
    global SBOX_H
    d = os.path.abspath(path)
    while not os.path.isfile(os.path.join(d, 'core', 'aes', 'aes_masked_sbox.h')):
        if os.path.dirname(d) == d:
            raise SystemExit('%s: no core/aes/aes_masked_sbox.h in a build directory above it'
                             % path)
        d = os.path.dirname(d)
    SBOX_H = os.path.join(d, 'core', 'aes', 'aes_masked_sbox.h')


def patterns():
    src = open(SBOX_H).read()
    pin = [int(re.search(r'#define BS_AES_MASKED_IN_%d (\d)' % b, src).group(1)) for b in range(8)]
    pout = [int(re.search(r'#define BS_AES_MASKED_OUT_%d (\d)' % b, src).group(1))
            for b in range(8)]
    return pin, pout


def sbox_table():
    """The AES S-box from its definition. The check keeps its own copy rather than importing the
    generator's (embedded/gen/aes_thumb2.py), so that a wrong reference there cannot make both
    the generated code and its check agree."""
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


def disassemble(objdump, obj, func='sbox_masked_t2'):
    out = subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'<%s>:\n(.*?)(?:\n\n|\Z)' % func, out, re.S)
    if not m:
        raise SystemExit('%s: no %s' % (obj, func))
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
    values it produced and the final q.

    Beside each register and memory word it tracks whether the contents are a constant (a
    pointer, the zeroed registers and memory of the model, an immediate, anything computed
    from constants alone) or data. A transition from or to a constant c is the other side
    XOR c, which is independent of the input exactly when that side is (it is checked as a
    value), so only transitions between two data words are recorded (a constant 0 stands in
    for the others, which keeps the positions the same in every run). A constant cannot be
    tested in the packed runs themselves: its bits are the same for the four mask cases of a
    bit position in reality, not in the packing."""
    mem, cm = {}, {}
    for i, v in enumerate(q):
        mem[0x1000 + 4 * i] = v
        cm[0x1000 + 4 * i] = False
    for i, v in enumerate(mw):
        mem[0x2000 + 4 * i] = v
        cm[0x2000 + 4 * i] = False
    regs = [0] * 16
    regs[0], regs[1], regs[13], regs[14] = 0x1000, 0x2000, 0x8000, 0xdead
    cr = [True] * 16
    vals = []

    def hd(old, new, oc, nc):
        if TRANSITIONS:
            vals.append(0 if oc or nc else old ^ new)

    def opc(s):
        m = re.match(r'(\w+)', s.strip())
        return s.strip().startswith('#') or cr[REGS[m.group(1)]]
    for op, args in prog:
        base = re.sub(r'\.(w|n)$', '', op)
        a = split_args(args)
        m = re.match(r'(eor|and|orr|bic|orn)(s?)$', base)
        if m:
            f = ALU[m.group(1)]
            if len(a) == 2:
                rd = REGS[a[0]]
                v = f(regs[rd], operand2(regs, a[1]))
                c = cr[rd] and opc(a[1])
            else:
                rd = REGS[a[0]]
                v = f(regs[REGS[a[1]]], operand2(regs, ', '.join(a[2:])))
                c = cr[REGS[a[1]]] and opc(a[2])
            hd(regs[rd], v, cr[rd], c)
            regs[rd], cr[rd] = v, c
            vals.append(v)
        elif base in ('mov', 'movs', 'mvn', 'mvns'):
            v = operand2(regs, ', '.join(a[1:]))
            if base.startswith('mvn'):
                v = ~v & M32
            rd = REGS[a[0]]
            c = opc(a[1])
            hd(regs[rd], v, cr[rd], c)
            regs[rd], cr[rd] = v, c
            vals.append(v)
        elif base == 'ldr':
            r, off, wb = address(regs, a[1])
            v = mem.get(regs[r] + off, 0)
            c = cm.get(regs[r] + off, True)
            if wb:
                regs[r] = regs[r] + off
            rd = REGS[a[0]]
            hd(regs[rd], v, cr[rd], c)
            regs[rd], cr[rd] = v, c
            vals.append(v)
        elif base == 'str':
            r, off, wb = address(regs, a[1])
            addr, rs = regs[r] + off, REGS[a[0]]
            hd(mem.get(addr, 0), regs[rs], cm.get(addr, True), cr[rs])
            mem[addr], cm[addr] = regs[rs], cr[rs]
            if wb:
                regs[r] = regs[r] + off
            vals.append(regs[rs])
        elif base in ('ldrd', 'strd'):
            r, off, wb = address(regs, a[2])
            addr = regs[r] + off
            for k, reg in enumerate(a[:2]):
                rr, ad = REGS[reg], addr + 4 * k
                if base == 'ldrd':
                    hd(regs[rr], mem.get(ad, 0), cr[rr], cm.get(ad, True))
                    regs[rr], cr[rr] = mem.get(ad, 0), cm.get(ad, True)
                else:
                    hd(mem.get(ad, 0), regs[rr], cm.get(ad, True), cr[rr])
                    mem[ad], cm[ad] = regs[rr], cr[rr]
                vals.append(regs[rr])
            if wb:
                regs[r] = addr
        elif re.match(r'(add|sub)(s|w)?$', base):
            rd = REGS[a[0]]
            x = regs[REGS[a[1]]] if len(a) == 3 else regs[rd]
            xc = cr[REGS[a[1]]] if len(a) == 3 else cr[rd]
            y = operand2(regs, a[-1])
            regs[rd] = (x + y if base.startswith('add') else x - y) & M32
            cr[rd] = xc and opc(a[-1])
            if rd != 13:
                vals.append(regs[rd])
        elif base in ('stmdb', 'push'):
            rl = [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]
            regs[13] -= 4 * len(rl)
            for k, r in enumerate(sorted(rl)):
                mem[regs[13] + 4 * k] = regs[r]
                cm[regs[13] + 4 * k] = cr[r]
        elif base in ('ldmia', 'pop'):
            rl = [REGS[x.strip()] for x in re.search(r'\{(.*)\}', args).group(1).split(',')]
            for k, r in enumerate(sorted(rl)):
                regs[r] = mem.get(regs[13] + 4 * k, 0)
                cr[r] = cm.get(regs[13] + 4 * k, True)
            regs[13] += 4 * len(rl)
            if 15 in rl:
                break
        elif base == 'bx' and a[0] == 'lr':
            break
        elif base == 'nop':
            pass
        else:
            raise SystemExit('unknown instruction: %s %s' % (op, args))
    run.exit_data = [r for r in range(15) if r != 13 and not cr[r]]
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


def recompile(build, level, defines, tmp):
    """aes_masked32.c compiled again with the command of BUILD's MCU library at level plus
    defines; returns the object's path."""
    import json
    import os
    import shlex
    cmds = json.load(open(os.path.join(build, 'compile_commands.json')))
    e = next(c for c in cmds if 'libbsmcu_O%s' % level in c['output'] and
             c['file'].endswith('aes_masked32.c'))
    out = os.path.join(tmp, 'sbox_O%s.o' % level)
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
    subprocess.run(clean + defines, check=True, cwd=e['directory'])
    return clean[0].replace('gcc', 'objdump'), out


def no_hide_control(build):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        objdump, out = recompile(build, '2', ['-DBS_AES_MASKED_C_SBOX',
                                              '-DBS_AES_MASKED_NO_HIDE'], tmp)
        prog = disassemble(objdump, out, 'sbox_masked')
    pin, pout = patterns()
    n, bad = check(prog, False, pin, pout, sbox_table())
    print('control, the C S-box without its compiler barriers (-O2): %d values, %d depend on '
          'the input%s' % (n, bad, '' if bad else '  FAIL: not detected'))
    return 0 if bad else 1


def c_sbox(build):
    """The C S-box as GCC compiles it at every level: values checked, transitions reported."""
    import tempfile
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for level in ('0', '1', '2', '3', 's'):
            objdump, out = recompile(build, level, ['-DBS_AES_MASKED_C_SBOX'], tmp)
            status |= transitions(objdump, [out], 'sbox_masked', False, 'C sbox_masked -O' + level)
    return status


def transitions(objdump, objs, func, require_zero, label=None):
    """Values and transitions; require_zero: the transitions must pass as well."""
    global TRANSITIONS
    pin, pout = patterns()
    sbox = sbox_table()
    status = 0
    for obj in objs:
        prog = disassemble(objdump, obj, func)
        TRANSITIONS = False
        n, bad = check(prog, False, pin, pout, sbox)
        _, cbad = check(prog, True, pin, pout, sbox)
        TRANSITIONS = True
        nt, badt = check(prog, False, pin, pout, sbox)
        TRANSITIONS = False
        fail = bad or not cbad or (require_zero and badt)
        extra = ''
        if require_zero:
            # the generated S-box clears every register that holds data before it returns, so
            # that the next generated function starts from registers without data
            left = ['r%d' % r if r < 14 else 'lr' for r in run.exit_data]
            fail = fail or bool(left)
            extra += '; data left in %s at exit' % (', '.join(left) if left else 'no register')
            # the control: the same code without its register clears (mov rX, #0, which the
            # allocator inserts only where a write would otherwise unmask) must fail
            noclear = [(o, x) for o, x in prog if not (re.match(r'movs?(\.w)?$', o) and
                                                       x.endswith('#0'))]
            TRANSITIONS = True
            _, nbad = check(noclear, False, pin, pout, sbox)
            TRANSITIONS = False
            fail = fail or len(noclear) == len(prog) or not nbad
            extra += '; control without its %d register clears: %d depend' % (
                len(prog) - len(noclear), nbad)
        print('%s: %s %d instructions, %d values, %d depend on the input (control m1 = m0: %d); '
              'with the transitions (old ^ new of each register write and store) %d, of which '
              '%d depend on the input%s' % (
                  label or obj, func, len(prog), n, bad, cbad, nt, badt - bad, extra +
                  ('  FAIL' if fail else '' if require_zero else
                   ' (reported, outside the value-model claim)')))
        status |= bool(fail)
    return status


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == '--no-hide-control':
        use_build(args[1])
        return no_hide_control(args[1])
    if len(args) == 2 and args[0] == '--c-sbox':
        use_build(args[1])
        return c_sbox(args[1])
    report = '--transitions' in args
    zero = '--transitions-zero' in args
    args = [a for a in args if a not in ('--transitions', '--transitions-zero')]
    func = 'sbox_masked_t2'
    if args[:1] == ['--func'] and len(args) > 1:
        func, args = args[1], args[2:]
    if len(args) < 2 or args[0].startswith('-'):
        raise SystemExit(__doc__)
    objdump, objs = args[0], args[1:]
    use_build(objs[0])
    if report or zero:
        return transitions(objdump, objs, func, zero)
    pin, pout = patterns()
    sbox = sbox_table()
    status = 0
    for obj in objs:
        prog = disassemble(objdump, obj, func)
        n, bad = check(prog, False, pin, pout, sbox)
        _, cbad = check(prog, True, pin, pout, sbox)
        ok = bad == 0 and cbad > 0
        print('%s: %s %d instructions, %d values, %d depend on the input; control '
              '(m1 = m0): %d depend%s' % (obj, func, len(prog), n, bad, cbad, '' if ok else
                                          '  FAIL'))
        status |= not ok
    return status


if __name__ == '__main__':
    sys.exit(main())
