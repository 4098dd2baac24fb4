#!/usr/bin/env python3
"""The code a cipher call runs and what it costs to key, per MCU core (Cortex-M or RV32I).

    embedded/bench/code_bytes.py BUILD_DIR TARGET [LEVEL] [CORE]   (LEVEL: 0 1 2 3 s, default 2)

Runs bench_O<LEVEL> under QEMU with run.py's per-PC histogram of each core's encrypt and
set_key windows and prints, per core: instructions of a two-block (or one-pass) call and of a
key set-up (run.py's counts), and the code bytes each executes: the distinct instructions whose
PC the window reached, each counted at its size (Thumb-2 2 or 4 bytes, RV32I 4), the benchmark's
own code left out (the window marks, bench_cipher, main). Literal pools are not executed and so
not counted; straight-line code counts whole, a loop once. This is the flash a cipher call needs
(its functions and the library routines it calls), comparable across implementations that
bundle several variants in one object file, which `size` (run.py's last table) cannot split.
"""
import bisect
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from by_function import functions  # noqa: E402
from run import CORES, TOOL, disassemble, run  # noqa: E402

HARNESS = ('bsemb_mark_begin', 'bsemb_mark_end', 'bench_cipher', 'main', 'begin', 'end')
EXTRA = ('AES-128/masked32/encrypt', 'AES-256/masked32/encrypt', 'AES-128/masked32v/encrypt')


def sizes(insns):
    addrs = sorted(insns)
    return {a: addrs[i + 1] - a for i, a in enumerate(addrs[:-1]) if addrs[i + 1] - a <= 4}


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    build, target = sys.argv[1], sys.argv[2]
    lvl = sys.argv[3] if len(sys.argv) > 3 else '2'
    only = sys.argv[4] if len(sys.argv) > 4 else ''
    plugin = os.path.join(build, 'embedded', 'bench', 'libbsemb_insn.so')
    elf = os.path.join(build, 'embedded', 'bench', 'bench_O' + lvl)
    tool = TOOL[target]
    windows, counts, _ = run(elf, target, plugin)
    over = counts[0]
    byname = {w[1]: (w[0], counts[w[0]] - over) for w in windows}
    insns = disassemble(elf, tool)
    size = sizes(insns)
    syms = functions(elf, tool)

    starts = [a for a, _ in syms]

    def owner(pc):
        i = bisect.bisect_right(starts, pc) - 1
        return syms[i][1] if i >= 0 else None

    def code_bytes(idx):
        _, _, pcs = run(elf, target, plugin, hist=idx)
        return sum(size.get(pc, 4) for pc in pcs if owner(pc) not in HARNESS)

    print('%s -O%s (`embedded/bench/code_bytes.py`): instructions and code bytes executed\n' %
          (target, lvl))
    print('| core | instr. / call | code bytes / call | set_key instr. | code bytes / set_key |')
    print('|---|---|---|---|---|')
    names = [c + '/encrypt' for c in CORES] + list(EXTRA)
    for win in names:
        core = win.rsplit('/', 1)[0]
        if only not in core or win not in byname:
            continue
        ks = core + '/set_key'
        if ks not in byname:
            continue
        print('| %s | %d | %d | %d | %d |' % (core, byname[win][1], code_bytes(byname[win][0]),
                                              byname[ks][1], code_bytes(byname[ks][0])))


if __name__ == '__main__':
    main()
