#!/usr/bin/env python3
"""Checks the masked key schedule's SubWord as compiled for Cortex-M3/M4 (subword_dom_t2, the
generated Thumb-2 of core/aes/aes_masked_dom_t2.h in aes_masked32.c's object): its machine
code, disassembled, is run by the generator's own check (embedded/gen/aes_masked_dom_thumb2.py,
check()): two calls in a row on random inputs, the output words the C's two shares and their
XOR SubWord, every value one of the C's, and every register write, load and store passing the
generator's model (no value of one share over one of the other, no cross product over a share
value, no carrier of fresh bits over a value that depends on them, the caller's registers
cleared before they are written, no data left in a register at the end).

    tests/leak/check_dom_thumb.py OBJDUMP OBJECT...   (exit status 1 on any failure)

A control runs the same code without the register clears (mov rX, #0) that separate values
within the call (those of the caller's registers at entry kept) and must fail: the check can
see what the clears are for.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'embedded', 'gen'))
import aes_masked_dom_thumb2 as gen  # noqa: E402
import emit  # noqa: E402

REG = {'sl': 'r10', 'fp': 'r11', 'ip': 'r12'}


def reg(x):
    return REG.get(x, x)


def disassemble(objdump, obj, func='subword_dom_t2'):
    """The function's body in the generator's syntax (push and pop left out)."""
    out = subprocess.run([objdump, '-d', '--no-show-raw-insn', obj], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'<%s>:\n(.*?)(?:\n\n|\Z)' % func, out, re.S)
    if not m:
        raise SystemExit('%s: no %s' % (obj, func))
    lines = []
    for line in m.group(1).splitlines():
        parts = line.split('\t')
        if len(parts) < 3:
            continue
        op = parts[1].strip()
        args = parts[2].split('@')[0].strip()
        if op in ('stmdb', 'push', 'push.w') or op.startswith(('ldmia', 'pop')):
            continue
        op = op.split('.')[0]
        mm = re.match(r'(\w+), \[(\w+)(?:, #(\d+))?\]$', args)
        if op in ('ldr', 'str') and mm:
            r, base, off = mm.groups()
            lines.append('%s %s, [%s, #%d]' % (op, reg(r), reg(base), int(off or 0)))
            continue
        f = [x.strip() for x in args.split(',')]
        f = [reg(x) if re.match(r'^(r\d+|sl|fp|ip|lr)$', x) else x for x in f]
        if op in ('mov', 'movs'):
            imm = int(f[1].lstrip('#'), 0)
            lines.append('mov %s, #0x%08x' % (f[0], imm))
            continue
        if op in ('and', 'eor', 'orr', 'ands', 'eors', 'orrs'):
            if len(f) == 2 or (len(f) == 3 and f[2].startswith(('lsl', 'lsr'))):
                f = [f[0], f[0]] + f[1:]  # two-operand form: rd, rm
            if f[2].startswith('#'):
                f[2] = '#0x%08x' % int(f[2].lstrip('#'), 0)
            lines.append('%s %s' % (op.rstrip('s'), ', '.join(f)))
            continue
        raise SystemExit('%s: %s %s: not an instruction this check knows' % (obj, op, args))
    return lines


def slots(lines):
    offs = [int(m.group(1)) // 4 for m in (re.match(r'\w+ \w+, \[r0, #(\d+)\]$', l)
                                           for l in lines) if m]
    return max(max(offs) + 1 - gen.SLOT0, 0)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    objdump, objs = sys.argv[1], sys.argv[2:]
    P = gen.build(emit.source('core/aes/aes_masked32.c'))
    status = 0
    for obj in objs:
        lines = disassemble(objdump, obj)
        n = gen.check(P, lines, slots(lines))
        print('%s: subword_dom_t2, %d instructions: %d writes pass' % (obj, len(lines), n))
        # the control: the clears of registers already written in the call left out (the
        # ones the model needs between values, not the caller's registers' at entry)
        control, written = [], set()
        for l in lines:
            m = re.match(r'movs? (\w+), #0x00000000$', l)
            if m and m.group(1) in written:
                continue
            control.append(l)
            written.add(l.split()[1].rstrip(','))
        try:
            gen.check(P, control, slots(control))
        except SystemExit as e:
            print('  control (no clears between values) fails as it should: %s' % e)
        else:
            print('  FAIL: the control without the clears passes')
            status = 1
    return status


if __name__ == '__main__':
    sys.exit(main())
