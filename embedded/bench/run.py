#!/usr/bin/env python3
"""Runs the MCU benchmark firmware under QEMU and prints Markdown tables.

    embedded/bench/run.py BUILD_DIR TARGET [CORE]   (TARGET: cortex-m3, cortex-m4 or rv32i)

CORE (e.g. SPEEDY) limits the per-core rows to the cores whose name contains it (the
per-PC histogram runs are the slow part); the other tables are printed in full.

For each optimisation level (bench_O0 ... bench_Os) it runs the firmware once:
  - Cortex-M: with the project's TCG plugin (libbsemb_insn.so, built natively in the same build
    directory), which counts the instructions executed in each window of bench.c; then once
    more per cipher window with a per-PC histogram, which is weighted by the Cortex-M3/M4
    instruction timings below into an *estimated* cycle count;
  - RV32I: with -icount shift=0, so the mcycle deltas the firmware prints are exact retired
    instruction counts (the plugin's counts are printed beside them as a cross-check).
The empty window 0 (the measuring overhead) is subtracted from every window.
Code size per core (text, data, bss) comes from `size` on the objects of each level.
"""
import os
import re
import subprocess
import sys
import tempfile

LEVELS = ['0', '1', '2', '3', 's']
QEMU = {
    'cortex-m3': ['qemu-system-arm', '-M', 'mps2-an385'],
    'cortex-m4': ['qemu-system-arm', '-M', 'mps2-an386'],
    'rv32i': ['qemu-system-riscv32', '-M', 'virt', '-bios', 'none', '-icount', 'shift=0'],
}
TOOL = {'cortex-m3': 'arm-none-eabi-', 'cortex-m4': 'arm-none-eabi-',
        'rv32i': 'riscv64-unknown-elf-'}
COMMON = ['-nographic', '-monitor', 'none', '-semihosting-config', 'enable=on,target=native']
CORES = {
    'PRESENT-80/bs32': ('present_bs32', 16),
    'PRESENT-128/bs32': ('present_bs32', 16),
    'GIFT-64/fix32': ('gift_fix32', 16),
    'GIFT-64/thumb2': ('gift64_thumb2', 16),  # Cortex-M3/M4 only (assembly)
    'GIFT-128/fix32': ('gift_fix32', 16),
    'RIJNDAEL-256/ct32': ('rijndael256_ct32', 32),
    'SPEEDY-5-192/bs32': ('speedy_bs32', 24),
    'SPEEDY-6-192/bs32': ('speedy_bs32', 24),
    'SPEEDY-7-192/bs32': ('speedy_bs32', 24),
    'AES-128/fix32': ('aes_fix32', 32),
    'AES-256/fix32': ('aes_fix32', 32),
    'AES-128/semifix32': ('aes_semifix32', 32),
    'AES-256/semifix32': ('aes_semifix32', 32),
    'SKINNY-128-128/fix32': ('skinny_fix32', 32),
    'SKINNY-128-256/fix32': ('skinny_fix32', 32),
    'SKINNY-128-384/fix32': ('skinny_fix32', 32),
}
SKINNY_PARTS = ('pack', 'sbox', 'addkey', 'mixcolumns', 'unpack')
SKINNY_ROUNDS = {'SKINNY-128-128': 40, 'SKINNY-128-256': 48, 'SKINNY-128-384': 56}
GHASH128 = ('ctmul32', 'ctshift32', 'table4_not_ct')
SPEEDY_ROUNDS = {'SPEEDY-5-192/bs32': 5, 'SPEEDY-6-192/bs32': 6, 'SPEEDY-7-192/bs32': 7}
AES_PARTS = ('pack', 'subbytes', 'mixcolumns0', 'mixcolumns1', 'mixcolumns2', 'mixcolumns3',
             'sr2', 'addroundkey', 'unpack')


def symbol(elf, tool, name):
    out = subprocess.run([tool + 'nm', elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16) & ~1
    raise SystemExit('%s: no symbol %s' % (elf, name))


def run(elf, target, plugin, hist=None):
    tool = TOOL[target]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'w.txt')
        arg = '%s,begin=0x%x,end=0x%x,out=%s' % (plugin, symbol(elf, tool, 'bsemb_mark_begin'),
                                                symbol(elf, tool, 'bsemb_mark_end'), out)
        if hist is not None:
            arg += ',hist=%d' % hist
        p = subprocess.run(QEMU[target] + COMMON + ['-plugin', arg, '-kernel', elf],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise SystemExit('%s failed: %s' % (elf, p.stdout + p.stderr))
        counts, pcs = {}, {}
        for line in open(out):
            f = line.split()
            if f[0] == 'window':
                counts[int(f[1])] = int(f[2])
            elif f[0] == 'pc':
                pcs[int(f[1], 16)] = int(f[2])
    windows = []
    for line in (p.stdout + p.stderr).splitlines():
        m = re.match(r'W (\d+) (\S+) (\d+) (\d+)', line)
        if m:
            windows.append((int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))))
    return windows, counts, pcs


# Cortex-M3/M4 instruction timings (ARM TRMs, "Processor instruction timings"): data
# processing 1; LDR/STR 2, or 1 when it follows another single load/store (pipelined);
# LDM/STM/PUSH/POP 1 + N (+ P when POP loads PC); LDRD/STRD 3; branch 1 not taken, 1 + P taken
# with P = 2 (refill; the TRM gives 1 to 3); multiply 1 (M4), long multiply 4 (M3) / 1 (M4).
P_REFILL = 2


def disassemble(elf, tool):
    out = subprocess.run([tool + 'objdump', '-d', '--no-show-raw-insn', elf],
                         capture_output=True, text=True, check=True).stdout
    insns = {}
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\s+(\S+)\s*(.*)', line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2).split('.')[0], m.group(3))
    return insns


def estimate(pcs, insns, target):
    addrs = sorted(insns)
    nxt = {a: addrs[i + 1] for i, a in enumerate(addrs[:-1])}
    cycles, prev_mem = 0, False
    for pc in sorted(pcs):
        c = pcs[pc]
        if pc not in insns:
            cycles += c  # unknown: count 1 each
            continue
        op, args = insns[pc]
        opl = op.lower()
        mem = False
        if opl in ('push', 'pop', 'ldm', 'stm', 'ldmia', 'stmia', 'stmdb', 'ldmdb', 'vpush',
                   'vpop'):
            n = len(args.split(','))
            cost = 1 + n + (P_REFILL if opl == 'pop' and 'pc' in args else 0)
        elif opl in ('ldrd', 'strd'):
            cost = 3
        elif opl.startswith('ldr') or opl.startswith('str'):
            cost = 1 if prev_mem else 2
            mem = True
        elif opl in ('b', 'bl', 'bx', 'blx') or (opl.startswith('b') and len(opl) == 3 and
                                                 opl not in ('bic', 'bfi', 'bfc')):
            taken = c
            if opl not in ('b', 'bl', 'bx', 'blx'):  # conditional: taken = runs - fallthroughs
                taken = max(0, c - pcs.get(nxt.get(pc, -1), 0))
            cycles += c + taken * P_REFILL
            prev_mem = False
            continue
        elif opl in ('cbz', 'cbnz'):
            taken = max(0, c - pcs.get(nxt.get(pc, -1), 0))
            cycles += c + taken * P_REFILL
            prev_mem = False
            continue
        elif opl in ('umull', 'smull', 'umlal', 'smlal'):
            cost = 4 if target == 'cortex-m3' else 1
        else:
            cost = 1
        prev_mem = mem
        cycles += c * cost
    return cycles


def sizes(build, target):
    rows = {}
    for lvl in LEVELS:
        d = os.path.join(build, 'core', 'libbsmcu_O%s.a.p' % lvl)
        for f in sorted(os.listdir(d)):
            # (generated assembly, made in the build directory: meson-generated_.._gift_...)
            m = re.search(r'^(?:meson-generated_\.\._)?(?:present|gift|rijndael256|aes|skinny|'
                          r'speedy)_(\w+)\.[cS]\.o$', f)
            if not m:
                continue
            out = subprocess.run([TOOL[target] + 'size', os.path.join(d, f)], capture_output=True,
                                 text=True, check=True).stdout.splitlines()[1].split()
            # an assembly object adds to the C object of the same name
            old = rows.get((m.group(1), lvl), (0, 0, 0))
            rows[(m.group(1), lvl)] = tuple(a + int(x) for a, x in zip(old, out[:3]))
    return rows


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[2] not in QEMU:
        raise SystemExit(__doc__)
    build, target = sys.argv[1], sys.argv[2]
    only = sys.argv[3] if len(sys.argv) == 4 else ''
    plugin = os.path.join(build, 'embedded', 'bench', 'libbsemb_insn.so')
    arm = target != 'rv32i'
    print('### %s (QEMU %s)\n' % (target, ' '.join(QEMU[target][1:])))
    hdr = ('| core | level | bytes / pass | instr. / pass | instr. / 128 bits | instr. / byte |'
           ' instr. / byte, packing excl. | set_key instr.')
    hdr += (' | est. cycles / pass | est. cycles / 128 bits | est. cycles / byte |' if arm else
            ' | mcycle / pass (= instr., -icount shift=0) |')
    print(hdr)
    print('|' + '---|' * (hdr.count('|') - 1))
    comp_rows, aes_rows, face_rows, skinny_rows, gcm_rows, speedy_rows = [], [], [], [], [], []
    masked_rows = []
    for lvl in LEVELS:
        elf = os.path.join(build, 'embedded', 'bench', 'bench_O' + lvl)
        windows, counts, _ = run(elf, target, plugin)
        over = counts[0]
        over_cnt = windows[0][3]
        byname = {w[1]: (w[0], w[2], counts[w[0]] - over, w[3] - over_cnt) for w in windows}
        insns = disassemble(elf, TOOL[target]) if arm else None
        pack16 = byname['nibble/pack+unpack'][2]
        pack32 = byname['RIJNDAEL-256/ct32/pack'][2] + byname['RIJNDAEL-256/ct32/unpack'][2]
        pack_aes = byname['AES/pack'][2] + byname['AES/unpack'][2]
        pack_skinny = byname['SKINNY/pack'][2] + byname['SKINNY/unpack'][2]
        pack24 = byname['SPEEDY/bs32/pack'][2] + byname['SPEEDY/bs32/unpack'][2]
        for core, (_, _) in CORES.items():
            if only not in core:
                continue
            if core + '/encrypt' not in byname:
                continue  # not built for this target
            idx, nbytes, n, cnt = byname[core + '/encrypt']
            ks = byname[core + '/set_key'][2]
            per128 = n * 16 / nbytes
            excl = n - (pack_aes if core.startswith('AES-') else
                        pack_skinny if core.startswith('SKINNY-') else
                        {32: pack32, 24: pack24}.get(nbytes, pack16))
            # the assembly packs inside its one function: no separate packing window to subtract
            excl_cell = 'n/a' if core.endswith('/thumb2') else '%.1f' % (excl / nbytes)
            row = '| %s | -O%s | %d | %d | %.0f | %.1f | %s | %d' % (
                core, lvl, nbytes, n, per128, n / nbytes, excl_cell, ks)
            if arm:
                _, _, pcs = run(elf, target, plugin, hist=idx)
                est = estimate(pcs, insns, target) - over  # overhead counted as 1 cycle each
                row += ' | %d | %.0f | %.1f |' % (est, est * 16 / nbytes, est / nbytes)
            else:
                row += ' | %d |' % cnt
            print(row)
        skinny_rows.append((lvl, [byname['SKINNY/' + c][2] for c in SKINNY_PARTS],
                            {n: (byname[n + '/fix32/encrypt'][2], byname[n + '/fix32/set_key'][2])
                             for n in SKINNY_ROUNDS}))
        comp = [byname['RIJNDAEL-256/ct32/' + c][2] for c in
                ('pack', 'subbytes', 'shiftrows', 'mixcolumns', 'addroundkey', 'unpack')]
        comp_rows.append((lvl, comp, byname['RIJNDAEL-256/ct32/encrypt'][2]))
        face = []
        for name in ('AES-128', 'AES-256'):
            row = []
            for kind in ('ctr-plain', 'ctr-face'):
                idx, nbytes, n, cnt = byname['%s/%s' % (name, kind)]
                est = None
                if arm:
                    _, _, pcs = run(elf, target, plugin, hist=idx)
                    est = estimate(pcs, insns, target) - over
                row.append((n, nbytes, est))
            face.append((name, row))
        face_rows.append((lvl, face))
        gcm = {}
        for g in GHASH128:
            for kind in ('plain', 'face'):
                idx, nbytes, n, cnt = byname['GCM128/%s/%s' % (g, kind)]
                est = None
                if arm:
                    _, _, pcs = run(elf, target, plugin, hist=idx)
                    est = estimate(pcs, insns, target) - over
                gcm[(g, kind)] = (n / nbytes, (est if arm else n) / nbytes)
            idx, nbytes, n, cnt = byname['GHASH128/%s' % g]
            est = None
            if arm:
                _, _, pcs = run(elf, target, plugin, hist=idx)
                est = estimate(pcs, insns, target) - over
            gcm[(g, 'ghash')] = (n / nbytes, (est if arm else n) / nbytes)
        gcm_rows.append((lvl, gcm))
        masked = {}
        for kind in ('encrypt', 'rng', 'ref', 'encrypt256', 'ref256', 'encryptv', 'rngv',
                     'encryptv256'):
            win = {'ref': 'AES-128/fix32/encrypt', 'ref256': 'AES-256/fix32/encrypt',
                   'encrypt256': 'AES-256/masked32/encrypt',
                   'encryptv': 'AES-128/masked32v/encrypt', 'rngv': 'AES-128/masked32v/rng',
                   'encryptv256': 'AES-256/masked32v/encrypt'}.get(kind,
                                                                  'AES-128/masked32/' + kind)
            idx, nbytes, n, cnt = byname[win]
            est = n
            if arm:
                _, _, pcs = run(elf, target, plugin, hist=idx)
                est = estimate(pcs, insns, target) - over
            masked[kind] = (n / nbytes, est / nbytes)
        masked_rows.append((lvl, masked, byname['AES-128/masked32/set_key'][2],
                            byname['AES-256/masked32/set_key'][2],
                            byname['AES-128/masked32v/set_key'][2]))
        aes_rows.append((lvl, [byname['AES/' + c][2] for c in AES_PARTS],
                         byname['AES-128/fix32/encrypt'][2]))
        scomp = [byname['SPEEDY/bs32/' + c][2] for c in
                 ('pack', 'subbox', 'shiftcolumns', 'mixcolumns', 'addroundkey', 'unpack')]
        speedy_rows.append((lvl, scomp, [(byname[c + '/encrypt'][2], byname[c + '/set_key'][2])
                                         for c in SPEEDY_ROUNDS]))
    print('\nRijndael-256 (ct32) by component, instructions per call (each a function call; one'
          ' block = pack + 14 SubBytes + 14 ShiftRows + 13 MixColumns + 15 AddRoundKey +'
          ' unpack):\n')
    print('| level | pack | SubBytes | ShiftRows | MixColumns | AddRoundKey | unpack |'
          ' sum per block | measured block |')
    print('|---|---|---|---|---|---|---|---|---|')
    for lvl, c, blk in comp_rows:
        tot = c[0] + 14 * c[1] + 14 * c[2] + 13 * c[3] + 15 * c[4] + c[5]
        print('| -O%s | %s | %d | %d |' % (lvl, ' | '.join(str(x) for x in c), tot, blk))
    print('\nAES (fix32) by component, instructions per call on two blocks (each a function call;'
          ' AES-128 = pack + 10 SubBytes + MixColumns 1, 2, 3, 0, 1, 2, 3, 0, 1 + 11 AddRoundKey'
          ' + SR^2 + unpack; the semi-fixsliced core uses MixColumns 1 and 0 and SR^2 every other'
          ' round):\n')
    print('| level | ' + ' | '.join(AES_PARTS) + ' | sum AES-128 fix32 | measured 2 blocks |')
    print('|---|' + '---|' * (len(AES_PARTS) + 2))
    for lvl, c, blk in aes_rows:
        p = dict(zip(AES_PARTS, c))
        tot = (p['pack'] + 10 * p['subbytes'] + 3 * p['mixcolumns1'] + 2 * p['mixcolumns2'] +
               2 * p['mixcolumns3'] + 2 * p['mixcolumns0'] + 11 * p['addroundkey'] + p['sr2'] +
               p['unpack'])
        print('| -O%s | %s | %d | %d |' % (lvl, ' | '.join(str(x) for x in c), tot, blk))
    print('\nAES-CTR over 16 KiB (1024 blocks, four FACE epochs, refreshes included), plain'
          ' (bs_ctr_crypt over fix32) and with FACE caching (bs_aes_face_crypt):\n')
    unit = 'est. cycles' if arm else 'instr.'
    print('| level | cipher | plain instr. / byte | FACE instr. / byte | plain %s / byte |'
          ' FACE %s / byte | FACE gain |' % (unit, unit))
    print('|---|---|---|---|---|---|---|')
    for lvl, face in face_rows:
        for name, ((pn, pb, pe), (fn, fb, fe)) in face:
            pc, fc = (pe, fe) if arm else (pn, fn)
            print('| -O%s | %s | %.1f | %.1f | %.1f | %.1f | %.1f %% |' % (
                lvl, name, pn / pb, fn / fb, pc / pb, fc / fb, 100.0 * (pc - fc) / pc))
    print('\nSKINNY-128 (fix32) by component, instructions per call on a packed pair of blocks'
          ' (each a function call with the state in memory, so a little dearer than inside the'
          ' unrolled rounds; one pair = pack + R (S-box + key addition + MixColumns) + unpack,'
          ' R = 40, 48, 56; ShiftRows costs nothing; key schedule = set_key):\n')
    print('| level | ' + ' | '.join(SKINNY_PARTS) + ' | cipher | key schedule | sum of parts |'
          ' measured pair |')
    print('|---|' + '---|' * (len(SKINNY_PARTS) + 4))
    for lvl, c, meas in skinny_rows:
        p = dict(zip(SKINNY_PARTS, c))
        for name, rounds in SKINNY_ROUNDS.items():
            tot = (p['pack'] + rounds * (p['sbox'] + p['addkey'] + p['mixcolumns']) +
                   p['unpack'])
            print('| -O%s | %s | %s | %d | %d | %d |' % (
                lvl, ' | '.join(str(x) for x in c), name, meas[name][1], tot, meas[name][0]))
    print('\nAES-128-GCM over 16 KiB (new IV, 16 B AAD, data, tag), %s per byte, by GHASH-128'
          ' (table4_not_ct is NOT constant-time) and CTR plain / FACE; GHASH-128 alone over the'
          ' same 16 KiB; the table-free / table ratio:\n' % unit)
    print('| level | GHASH-128 | GCM, FACE off | GCM, FACE on | GHASH alone | GCM instr. / byte,'
          ' FACE off / on | GHASH instr. / byte | GHASH vs table4 | GCM vs table4, FACE off /'
          ' on |')
    print('|---|---|---|---|---|---|---|---|---|')
    for lvl, gcm in gcm_rows:
        t4 = gcm[('table4_not_ct', 'ghash')][1]
        for g in GHASH128:
            print('| -O%s | %s | %.1f | %.1f | %.1f | %.1f / %.1f | %.1f | %.2fx | %.2fx / %.2fx |' % (
                lvl, g, gcm[(g, 'plain')][1], gcm[(g, 'face')][1], gcm[(g, 'ghash')][1],
                gcm[(g, 'plain')][0], gcm[(g, 'face')][0], gcm[(g, 'ghash')][0],
                gcm[(g, 'ghash')][1] / t4,
                gcm[(g, 'plain')][1] / gcm[('table4_not_ct', 'plain')][1],
                gcm[(g, 'face')][1] / gcm[('table4_not_ct', 'face')][1]))
    print('\nAES first-order masked (masked32: one masked word per slice, the masks m0, m1 and'
          ' eight words r, 10 random words a call from xorshift32 in the firmware) on two blocks,'
          ' per byte: AES-128 with the randomness, the randomness alone, without it; the ratio'
          ' to unmasked fix32; AES-256 with the randomness:\n')
    print('| level | instr. | RNG instr. | instr. excl. RNG | %s | RNG %s | %s excl. RNG |'
          ' masked / fix32 instr. (excl. RNG) | masked / fix32 %s (excl. RNG) | set_key instr. |'
          ' AES-256 instr. | AES-256 %s | AES-256 masked / fix32 %s | AES-256 set_key instr. |'
          % (unit, unit, unit, unit, unit, unit))
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for lvl, m, ks, ks256, _ in masked_rows:
        (ei, ec), (ri, rc), (fi, fc) = m['encrypt'], m['rng'], m['ref']
        (e2i, e2c), (f2i, f2c) = m['encrypt256'], m['ref256']
        print('| -O%s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2fx (%.2fx) | %.2fx (%.2fx) |'
              ' %d | %.1f | %.1f | %.2fx | %d |' % (
                  lvl, ei, ri, ei - ri, ec, rc, ec - rc, ei / fi, (ei - ri) / fi, ec / fc,
                  (ec - rc) / fc, ks, e2i, e2c, e2c / f2c, ks256))
    print('\nThe value-model variant (masked32v: the same rounds, the S-box allocated without the'
          ' transition rule, m1 and the r derived from 1 random word a call; core/aes/aes_masked.h)'
          ' on two blocks, per byte, the same columns; set_key: its own (bs_aes128_maskedv_set_key,'
          ' the same shares with the same S-box as the encryption):\n')
    print('| level | instr. | RNG instr. | instr. excl. RNG | %s | RNG %s | %s excl. RNG |'
          ' masked32v / fix32 instr. (excl. RNG) | masked32v / fix32 %s (excl. RNG) |'
          ' set_key instr. | AES-256 instr. | AES-256 %s | AES-256 masked32v / fix32 %s |'
          % (unit, unit, unit, unit, unit, unit))
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for lvl, m, ks, ks256, ksv in masked_rows:
        (ei, ec), (ri, rc), (fi, fc) = m['encryptv'], m['rngv'], m['ref']
        (e2i, e2c), (f2i, f2c) = m['encryptv256'], m['ref256']
        print('| -O%s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2fx (%.2fx) | %.2fx (%.2fx) |'
              ' %d | %.1f | %.1f | %.2fx |' % (
                  lvl, ei, ri, ei - ri, ec, rc, ec - rc, ei / fi, (ei - ri) / fi, ec / fc,
                  (ec - rc) / fc, ksv, e2i, e2c, e2c / f2c))
    print('\nSPEEDY-r-192 (bs32) by component, instructions per call (each a function call on a'
          ' packed state; a block = pack + 2r SubBox + 2r - 1 ShiftColumns + r - 1 MixColumns'
          ' + r + 1 key additions + unpack; inside the block the last ShiftColumns of a round is'
          ' folded into the next key addition); key schedule = set_key:\n')
    print('| level | pack | SubBox | ShiftColumns | MixColumns | key addition | unpack |'
          ' sum / measured block, r = 5 | r = 6 | r = 7 | key schedule r = 5 / 6 / 7 |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    for lvl, c, blocks in speedy_rows:
        cells = []
        for r, (blk, _) in zip((5, 6, 7), blocks):
            tot = c[0] + 2 * r * c[1] + (2 * r - 1) * c[2] + (r - 1) * c[3] + (r + 1) * c[4] + c[5]
            cells.append('%d / %d' % (tot, blk))
        print('| -O%s | %s | %s | %s |' % (lvl, ' | '.join(str(x) for x in c), ' | '.join(cells),
                                          ' / '.join(str(k) for _, k in blocks)))
    print('\nCode size (bytes, `%ssize` on each object):\n' % TOOL[target])
    print('| object | ' + ' | '.join('-O%s text/data/bss' % l for l in LEVELS) + ' |')
    print('|---|' + '---|' * len(LEVELS))
    sz = sizes(build, target)
    for obj in ('present_bs32', 'gift_fix32', 'rijndael256_ct32', 'aes_ks32', 'aes_fix32',
                'aes_semifix32', 'aes_ctr_face', 'aes_masked32', 'skinny_fix32', 'speedy_bs32',
                'gift64_thumb2'):
        if (obj, LEVELS[0]) not in sz:
            continue  # not built for this target
        print('| %s | ' % obj + ' | '.join('%d/%d/%d' % sz[(obj, l)] for l in LEVELS) + ' |')
    print()


if __name__ == '__main__':
    main()
