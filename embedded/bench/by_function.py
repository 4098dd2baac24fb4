#!/usr/bin/env python3
"""Where one window of the MCU benchmark firmware goes, function by function (Cortex-M).

    embedded/bench/by_function.py BUILD_DIR TARGET LEVEL WINDOW
    e.g. embedded/bench/by_function.py build-m4 cortex-m4 3 AES-128/masked32/encrypt

Runs bench_O<LEVEL> under QEMU with run.py's per-PC histogram of the window, splits the
executed PCs by the function that holds them (the ELF's symbols) and weighs each part with
run.py's cycle model (estimate()). Prints one row per function: instructions executed and
estimated cycles, then the sum, the window's whole estimate as run.py reports it (the
measuring overhead, window 0's instructions at one cycle each, taken off) and the difference:
the parts are estimated one by one, so a load or store that follows one in another function
is counted at two cycles rather than one, and the window's own code (the marks) is a row.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import TOOL, disassemble, estimate, run  # noqa: E402


def functions(elf, tool):
    out = subprocess.run([tool + 'nm', '-n', elf], capture_output=True, text=True,
                         check=True).stdout
    syms = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'tTwW' and not f[2].startswith('$'):
            syms.append((int(f[0], 16) & ~1, f[2]))
    return syms


def main():
    if len(sys.argv) != 5 or sys.argv[2] == 'rv32i' or sys.argv[2] not in TOOL:
        raise SystemExit(__doc__)
    build, target, lvl, window = sys.argv[1:]
    tool = TOOL[target]
    elf = os.path.join(build, 'embedded', 'bench', 'bench_O' + lvl)
    plugin = os.path.join(build, 'embedded', 'bench', 'libbsemb_insn.so')
    windows, counts, _ = run(elf, target, plugin)
    over = counts[0]
    idx = [w for w in windows if w[1] == window]
    if not idx:
        raise SystemExit('no window %s' % window)
    idx, nbytes = idx[0][0], idx[0][2]
    _, _, pcs = run(elf, target, plugin, hist=idx)
    insns = disassemble(elf, tool)
    syms = functions(elf, tool)
    parts = {}
    for pc, c in pcs.items():
        name = '?'
        for a, n in syms:
            if a > pc:
                break
            name = n
        parts.setdefault(name, {})[pc] = c
    total = estimate(pcs, insns, target) - over
    print('%s, %s -O%s (%d bytes a pass): est. cycles by function\n' % (window, target, lvl,
                                                                       nbytes))
    print('| function | instructions | est. cycles | est. c/B |')
    print('|---|---|---|---|')
    rows = sorted(((estimate(p, insns, target), sum(p.values()), n) for n, p in parts.items()),
                  reverse=True)

    def per_byte(c):  # a set_key window has no bytes
        return '%.1f' % (c / nbytes) if nbytes else '-'

    for est, n, name in rows:
        print('| %s | %d | %d | %s |' % (name, n, est, per_byte(est)))
    s = sum(r[0] for r in rows)
    print('| sum of the parts | %d | %d | %s |' % (sum(r[1] for r in rows), s, per_byte(s)))
    print('| the window as run.py reports it (overhead: %d taken off) | %d | %d | %s |' % (
        over, sum(pcs.values()) - over, total, per_byte(total)))


if __name__ == '__main__':
    main()
