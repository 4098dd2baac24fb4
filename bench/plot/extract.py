#!/usr/bin/env python3
"""Extracts the tables that bench/plot/plot.sh draws from bench/RESULTS.md into bench/plot/data/.

  bench/plot/extract.py            rewrite data/x86.txt, data/x86-speed.txt, data/mcu.txt,
                                   data/gpu.txt and data/offload.txt
  bench/plot/extract.py --check    exit 1 (and say which) where a committed file differs from what
                                   RESULTS.md gives now (the docs stage runs this)
  bench/plot/extract.py --results FILE   read another copy of RESULTS.md (the check's control)

Every number in these files is read from a table or a line of RESULTS.md, found by its section's
heading, its row and its column; a few are converted (c/B to MB/s at the TSC rate the section
states, cycles per block to cycles per byte, a ratio times the OpenSSL row it is a ratio to),
and the file says so. The published figures that RESULTS.md does not hold (the GPU papers) are
in data/published.txt, typed from the papers with their sources; nothing of ours is in it.
A section that is renamed, or a row or column that is gone, stops the script with its name.
OpenSSL rows of the quiet run's table ("OpenSSL AES-256-CTR, MB/s", the version the section
names, or "OpenSSL 3.5.4 AES-256-GCM, MB/s" with its own) are all plotted beside the ciphers.
Python 3 standard library only.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results as R  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def one_line(sec):
    return " ".join(sec.lines)


def when(sec):
    m = re.search(r"(\d{4}-\d\d-\d\d)[ ,]+(?:~)?(\d\d:\d\d)", sec.title + " " + one_line(sec))
    if not m:
        raise KeyError(f"{sec}: no date")
    return f"{m.group(1)} {m.group(2)} UTC"


def load_of(sec):
    m = re.search(r"load(?: average)? ([^;:()]*?\d[^;:()]*?)(?=[;:()]|, no |, with | on 2| with |$)",
                  sec.title + " " + one_line(sec))
    return "load " + m.group(1).strip(" ,.") if m else "load not stated"


def src(sec):
    return f"bench/RESULTS.md#{sec.anchor}"


def fmt(x, nd=1):
    return "-" if x is None else f"{x:.{nd}f}"


# --- x86-64: the quiet all-rows run ------------------------------------------------------------

SIZES = [("64 B", 64), ("16 KiB", 16384), ("1 MiB", 1048576)]
LEVELS = ("avx512", "avx2", "portable")


def x86(secs):
    sec = R.find(secs, "Host: quiet all-rows run")
    text = one_line(sec)
    ghz = float(re.search(r"TSC reads ([\d.]+) GHz", text).group(1))
    ossl = re.search(r"OpenSSL (3\.[\d.]+)", text).group(1)
    header, rows = R.table(sec, "64 B", "16 KiB", "1 MiB")
    out = []  # (level, series, size, MB/s, how)

    def cells(label):
        r = R.row(rows, label)
        return [(size, r[col]) for col, size in SIZES]

    def split(cell, n):
        parts = [p.strip() for p in R.plain(cell).split("/")]
        if R.plain(cell) == "":
            return [None] * n
        if len(parts) != n:
            raise ValueError(f"'{cell}': want {n} values")
        return [R.numbers(p)[0] if R.numbers(p) else None for p in parts]

    # OpenSSL rows, MB/s (any version RESULTS has measured: "OpenSSL 3.5 AES-256-GCM, MB/s").
    aes = {}
    for r in rows:
        m = re.fullmatch(r"OpenSSL(?: (3\.[\d.]+))? (AES-256-\w+), MB/s", R.plain(r[0]))
        if not m:
            continue
        ver = m.group(1) or ossl
        for col, size in SIZES:
            v = R.num(r[col])
            aes[(ver, m.group(2), size)] = v
            for lv in LEVELS:
                out.append((lv, f"OpenSSL {ver} {m.group(2)}", size, v, "MB/s as measured"))
    base = ossl

    def cpb_rows(label, names, level):
        for size, cell in cells(label):
            for name, v in zip(names, split(cell, len(names))):
                if v is not None:
                    out.append((level, f"{name} ({impl[level]})", size, ghz * 1000 / float(v),
                                f"{v} c/B at {ghz} GHz"))

    impl = {"avx512": "avx512", "avx2": "avx2", "portable": "bs64"}
    wide = ["PRESENT-80-CTR", "GIFT-64-CTR", "GIFT-128-CTR", "SKINNY-128-384-CTR",
            "SPEEDY-7-192-CTR"]
    for name in wide:
        cpb_rows(f"{name} avx512, c/B", [name], "avx512")
    cpb_rows("PRESENT-80 / GIFT-64 / GIFT-128 CTR avx2, c/B", wide[:3], "avx2")
    cpb_rows("SKINNY-128-384 / SPEEDY-7-192 CTR avx2, c/B", wide[3:], "avx2")
    cpb_rows("PRESENT-80 / GIFT-64 / GIFT-128 / SKINNY-128-384 / SPEEDY-7-192 CTR bs64, c/B",
             wide, "portable")

    for size, cell in cells("RIJNDAEL-256-GCM vaes+vpclmul, MB/s"):
        out.append(("avx512", "RIJNDAEL-256-GCM (vaes+vpclmul)", size, R.num(cell),
                    "MB/s as measured"))

    def ratio_rows(label, levels, impls, mode):
        for size, cell in cells(label):
            for lv, im, v in zip(levels, impls, split(cell, len(levels))):
                ref = aes[(base, "AES-256-" + mode, size)]
                out.append((lv, f"RIJNDAEL-256-{mode} ({im})", size, float(v) * ref,
                            f"{v}x OpenSSL {base} AES-256-{mode}"))

    ratio_rows("RIJNDAEL-256-CTR vaes vs AES-256-CTR", ["avx512"], ["vaes"], "CTR")
    ratio_rows("RIJNDAEL-256-CTR aesni / bs64 vs AES-256-CTR", ["avx2", "portable"],
               ["aesni", "bs64"], "CTR")
    ratio_rows("RIJNDAEL-256-GCM aesni+pclmul / bs64+ctmul64 vs AES-256-GCM",
               ["avx2", "portable"], ["aesni+pclmul", "bs64+ctmul64"], "GCM")

    # openssl speed -evp at 16 KiB, every algorithm, in-process (1000s of bytes per second).
    speed = []
    for line in sec.lines:
        m = re.fullmatch(r"((?:AES|RIJNDAEL|GIFT|PRESENT|SKINNY|SPEEDY)[-\w]*)\s+([\d.]+)k.*", line)
        if m:
            speed.append((m.group(1), float(m.group(2)) / 1000))
    if len(speed) < 14:
        raise KeyError(f"{sec}: the openssl speed block has {len(speed)} rows, want 14")

    head = (f"# {when(sec)}, AMD EPYC (AVX-512, VAES), 2 vCPUs, quiet VM ({load_of(sec)}); "
            f"OpenSSL {ossl}; bsbench medians\n"
            f"# source: {src(sec)}\n"
            f"# level | series | message bytes | MB/s | as RESULTS gives it (c/B are TSC cycles at "
            f"{ghz} GHz: MB/s = {ghz} x 1000 / c/B; ratios times the OpenSSL row)\n")
    body = "".join(f"{lv} | {name} | {size} | {mbs:.1f} | {how}\n"
                   for lv, name, size, mbs, how in sorted(out, key=lambda t: (
                       LEVELS.index(t[0]), t[1], t[2])))
    speed_txt = (f"# {when(sec)}, AMD EPYC, 2 vCPUs, quiet VM ({load_of(sec)}); OpenSSL {ossl}; "
                 f"openssl speed -evp, 16 KiB, 1 s, in-process\n# source: {src(sec)}\n"
                 "# algorithm | MB/s\n" +
                 "".join(f"{a} | {v:.1f}\n" for a, v in speed))
    return head + body, speed_txt


# --- 32-bit MCUs ---------------------------------------------------------------------------------

def mcu(secs):
    rows = []  # label, M3 est c/B, M4 est c/B, M3 instr/B, RV32I instr/B, kind, source sections

    def level_row(sec, core, level, col):
        _, rs = R.table(sec, "core", "level", col)
        return R.num(R.row(rs, core, level)[col])

    m4 = R.find(secs, "cortex-m4 (QEMU", under="Embedded")
    m3 = R.find(secs, "cortex-m3 (QEMU", under="Embedded")
    rv = R.find(secs, "rv32i (QEMU", under="Embedded")
    for core in ("PRESENT-80/bs32", "RIJNDAEL-256/m4"):
        rows.append((core, level_row(m3, core, "-O2", "est. cycles / byte"),
                     level_row(m4, core, "-O2", "est. cycles / byte"),
                     level_row(m3, core, "-O2", "instr. / byte"),
                     level_row(rv, core, "-O2", "instr. / byte"), "ours", [m3, m4, rv]))
    # Every variant of issue 27 (AES fix32 and semifix32, -Daes_unrolled=false, masked32 and
    # masked32v, SKINNY-128, GIFT) and its anchor from the one measurement of the tree that
    # took the issue's table: ours and the anchors' code measured the same way.
    i27 = "MCU: every variant of issue 27"
    t27 = [R.find(secs, f"Issue 27 table, {t}", under=i27) for t in ("Cortex-M3", "Cortex-M4")]
    v3, v4 = (R.table(t, "variant", "anchor (aadomn)", "ours est. c/B")[1] for t in t27)
    trv = R.find(secs, "Issue 27 table, RV32I", under=i27)
    _, vrv = R.table(trv, "variant", "ours instr. / B", "anchor instr. / B")
    _, v256 = R.table(trv, "AES-256 masked, -O2", "M3 est. c/B")

    def i27_rows(name, variant, anchor, same_kind="same-way", rv_variant=None):
        """ours (and the anchor's code, same_kind) for VARIANT against ANCHOR; on RV32I the
        row RV_VARIANT (default VARIANT), where there is one."""
        r3, r4 = R.row(v3, variant, anchor), R.row(v4, variant, anchor)
        rr = next((r for r in vrv if R.plain(r[0]) == (rv_variant or variant)), None)
        ours_rv = R.num(rr["ours instr. / B"]) if rr else None
        anc_rv = R.num(rr["anchor instr. / B"]) if rr and R.plain(rr[1]) == anchor else None
        rows.append((name, R.num(r3["ours est. c/B"]), R.num(r4["ours est. c/B"]),
                     R.num(r3["ours instr. / B"]), ours_rv, "ours", [t27[0], t27[1], trv]))
        if same_kind:
            rows.append((name, R.num(r3["anchor est. c/B"]), R.num(r4["anchor est. c/B"]),
                         R.num(r3["anchor instr. / B"]), anc_rv, same_kind,
                         [t27[0], t27[1], trv]))

    for c, v in (("GIFT-64/fix32", "GIFT-64 fix32 (C, the RV32I default)"),
                 ("GIFT-128/fix32", "GIFT-128 fix32 (C)"),
                 ("GIFT-64/thumb2", "GIFT-64 thumb2 (generated, the M3/M4 default)")):
        i27_rows(c, v, "fast 2020", None if c == "GIFT-64/fix32" else "same-way",
                 c.replace("/", " ") + " (C)")
    for c in ("SKINNY-128-128", "SKINNY-128-256", "SKINNY-128-384"):
        i27_rows(f"{c}/fix32", f"{c} fix32 (generated)", "2-block armv7m",
                 "same-way (2-block code)", f"{c} fix32 (C)")
    for cipher, sk in (("SPEEDY-r-192", ("SPEEDY-5-192", "SPEEDY-6-192", "SPEEDY-7-192")),):
        impl = "fix32" if cipher.startswith("SKINNY") else "bs32"
        s3 = R.find(secs, "cortex-m3", under=cipher) if impl == "fix32" else \
            R.find(secs, "Cortex-M3", under=cipher)
        s4 = R.find(secs, "cortex-m4", under=cipher) if impl == "fix32" else \
            R.find(secs, "Cortex-M4", under=cipher)
        sr = R.find(secs, "rv32i", under=cipher) if impl == "fix32" else \
            R.find(secs, "RV32I", under=cipher)
        for c in sk:
            core = f"{c}/{impl}"
            rows.append((core, level_row(s3, core, "-O2", "est. cycles / byte"),
                         level_row(s4, core, "-O2", "est. cycles / byte"),
                         level_row(s3, core, "-O2", "instr. / byte"),
                         level_row(sr, core, "-O2", "instr. / byte"), "ours", [s3, s4, sr]))
    # AES: fix32 and semifix32 (generated assembly), the small-flash build's C fix32, then
    # CTR with FACE and masked AES.
    for bits in ("128", "256"):
        i27_rows(f"AES-{bits}/fix32", f"AES-{bits} fix32 (generated)", "ffs")
        i27_rows(f"AES-{bits}/semifix32", f"AES-{bits} semifix32 (generated)", "sfs")
    for bits in ("128", "256"):
        i27_rows(f"AES-{bits}/fix32, C loop (small-flash build)",
                 f"AES-{bits} fix32, -Daes_unrolled=false (C loop)", "ffs", None)
    face = R.find(secs, "RV32I FACE in generated assembly")
    (_, fr_rv), (_, fr_m) = R.table(face, "AES-128 word XOR"), R.table(face, "M3 AES-128", "M4 AES-128")
    m_o2 = R.row(fr_m, "-O2 word XOR")
    rows.append(("AES-128-CTR/FACE, 16 KiB", R.num(m_o2["M3 AES-128"], 1),
                 R.num(m_o2["M4 AES-128"], 1), R.num(m_o2["M3 AES-128"], 4),
                 R.num(R.row(fr_rv, "-O2")["AES-128 word XOR"], 1), "ours", [face]))
    i27_rows("AES-128/masked32", "AES-128 masked32 (default, transition-aware)", "masked ffs",
             rv_variant="AES-128 masked32 (default; C)")
    r = R.row(v256, "AES-256 masked32 (default)")
    rows.append(("AES-256/masked32", R.num(r["M3 est. c/B"]), R.num(r["M4 est. c/B"]),
                 R.num(r["M3 instr. / B"]), R.num(r["RV32I instr. / B (C)"]), "ours", [trv]))
    i27_rows("AES-128/masked32v", "AES-128 masked32v (the anchor's claim)", "masked ffs",
             rv_variant="AES-128 masked32v (C)")
    r = R.row(v256, "AES-256 masked32v")
    rows.append(("AES-256/masked32v", R.num(r["M3 est. c/B"]), R.num(r["M4 est. c/B"]),
                 R.num(r["M3 instr. / B"]), R.num(r["RV32I instr. / B (C)"]), "ours", [trv]))
    # AES-128-GCM over 16 KiB with FACE off (M4: ctmul32; RV32I: ctshift32), from the prose.
    text = one_line(face)
    gm4 = re.search(r"On the M4 -O2 \(`ctmul32`[^)]*\) it went from [\d.]+ / [\d.]+\s+to ([\d.]+) / "
                    r"([\d.]+) est\. c/B", text)
    grv = re.search(r"on RV32I -O2 \(`ctshift32`\), FACE off / on went from [\d.]+ / [\d.]+ to\s+"
                    r"([\d.]+) / ([\d.]+) instr\./B", text)
    if not (gm4 and grv):
        raise KeyError(f"{face}: no AES-128-GCM figures")
    rows.append(("AES-128-GCM, 16 KiB", None, float(gm4.group(1)), None, float(grv.group(1)),
                 "ours", [face]))

    # Published figures (boards, the papers' own code) as RESULTS.md quotes them.
    pub = R.find(secs, "Against the published figures")
    _, pr = R.table(pub, "core", "target", "published")
    for core, target in (("RIJNDAEL-256/m4", "Cortex-M4"), ("GIFT-128/fix32", "Cortex-M3"),
                         ("GIFT-64/fix32", "Cortex-M3"), ("PRESENT-80/bs32", "Cortex-M3")):
        cell = R.row(pr, core, target)["published"]
        per = 32 if "per block" in cell else 16
        v = R.num(cell) / per
        rows.append((core, v if target == "Cortex-M3" else None,
                     v if target == "Cortex-M4" else None, None, None, "published", [pub]))
    sp = R.find(secs, "Targets", under="SPEEDY-r-192")
    _, spr = R.table(sp, "target", "figure")
    m3t = re.search(r"<= ([\d.]+) / ([\d.]+) / ([\d.]+) c/B",
                    next(r[0] for r in spr if "Cortex-M3" in r[0]))
    rvt = re.search(r"<= ([\d.]+) / ([\d.]+) / ([\d.]+) instr", next(r[0] for r in spr
                                                                        if "RV32I" in r[0]))
    for i, c in enumerate(("SPEEDY-5-192/bs32", "SPEEDY-6-192/bs32", "SPEEDY-7-192/bs32")):
        rows.append((c, float(m3t.group(i + 1)), None, None, float(rvt.group(i + 1)),
                     "published", [sp]))
    tg = R.find(secs, "Targets of the issue (estimates", under="AES on 32-bit MCUs")
    _, tr = R.table(tg, "target", "figure")
    for c, pat, col in (("AES-128/fix32", r"AES-128 fixsliced M3 <= ([\d.]+) c/B", 1),
                        ("AES-256/fix32", r"AES-256 fixsliced M3 <= ([\d.]+) c/B", 1),
                        ("AES-128/masked32", r"masked AES-128 M4 <= ([\d.]+) c/B", 2)):
        v = float(next(re.search(pat, r[0]) for r in tr if re.search(pat, r[0])).group(1))
        rows.append((c, v if col == 1 else None, v if col == 2 else None, None, None,
                     "published", [tg]))
    used = sorted({s.anchor for r in rows for s in r[6]})
    order = []
    for r in rows:
        if r[0] not in order:
            order.append(r[0])
    head = (f"# 2026-11-30 to 2026-12-06, QEMU 7.2 on the shared Debian 12 VM (load does not change "
            f"instruction counts); Cortex-M cycles ESTIMATED (TRM timings), RV32I retired instructions\n"
            f"# sources: " + " ".join(f"bench/RESULTS.md#{a}" for a in used) + "\n"
            "# core | kind (ours, same-way = the anchor's code under our harness and model, "
            "published = real boards) | M3 est. c/B | M4 est. c/B | M3 instr./B | RV32I instr./B\n")
    body = ""
    for name in order:
        for r in rows:
            if r[0] == name:
                body += (f"{name} | {r[5]} | {fmt(r[1])} | {fmt(r[2])} | {fmt(r[3])} | "
                         f"{fmt(r[4])}\n")
    return head + body


# --- GPU -----------------------------------------------------------------------------------------

def gpu(secs):
    sec = R.find(secs, "GPU")
    header, rows = R.table(sec, "measurement", "run 1", "model bound (est.)")
    pub = {}
    for line in open(os.path.join(DATA, "published.txt"), encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        f = [c.strip() for c in line.split("|")]
        if f[0] == "gpu":
            pub[f[1]] = (float(f[2]), f[4])
    out = []
    for label, name in (("PRESENT-80/128-CTR kernel, into device memory", "PRESENT-80"),
                        ("GIFT-64-CTR kernel, into device memory", "GIFT-64"),
                        ("GIFT-128-CTR kernel, into device memory", "GIFT-128"),
                        ("RIJNDAEL-256-CTR kernel, into device memory", "RIJNDAEL-256")):
        r = R.row(rows, label)
        p = pub.get(name, (None, ""))[0]
        out.append(f"{name} | {R.num(r['run 1']):.0f} | {R.num(r['run 2']):.0f} | "
                   f"{R.num(r['model bound (est.)']):.0f} | {fmt(p)} | {R.num(r['regs']):.0f} | "
                   f"{R.num(r['warps/SM']):.0f}\n")
    m = re.search(r"one (NVIDIA H200)[^,]*, (132 SMs)", one_line(sec))
    clock = re.search(r"SM clock (\d+ MHz)", one_line(sec)).group(1)
    head = (f"# {when(sec)}, {m.group(1)} ({m.group(2)}, SM clock {clock}), a lent machine, "
            f"load not recorded; published: Kim et al. 2022, RTX 3060\n# source: {src(sec)}\n"
            "# kernel | run 1 Gbit/s | run 2 Gbit/s | model bound Gbit/s (estimate) | "
            "published Gbit/s | registers | warps/SM\n")
    return head + "".join(out)


# --- Offload -------------------------------------------------------------------------------------

def offload(secs):
    sec = R.find(secs, "GPU")
    _, rows = R.table(sec, "measurement", "run 1")
    bulk = []
    for r in rows:
        m = re.fullmatch(r"PRESENT-80-CTR bulk, bsgpu_keystream into registered host memory"
                         r"(, staging off)?", R.plain(r["measurement"]))
        s = re.fullmatch(r"(\d+) MiB a call, (\d+) sessions?, [\d.]+ copies a call(, staged)?",
                         R.plain(r["size"]))
        if not (m and s):
            continue
        mib, sess = int(s.group(1)), int(s.group(2))
        if sess == 1:
            path = "GPU bulk, 1 session a call"
        elif m.group(1):
            path = f"GPU bulk, {sess} sessions, staging off"
        else:
            path = f"GPU bulk, {sess} sessions, " + ("staged" if s.group(3) else "default copies")
        bulk.append((path, mib * 1048576 // sess, R.num(r["run 1"]), R.num(r["run 2"])))
    dsec = R.find(secs, "The daemon on the GPU")
    daemon = []
    cipher = None
    for line in dsec.lines:
        m = re.match(r"cipher (\S+) \((\w+)\), (\d+) MiB of keystream", line)
        if m:
            cipher = f"{m.group(1)} ({m.group(2)})"
            continue
        m = re.match(r"(in-process, 1 thread|daemon \(cuda\), large requests|daemon stream, "
                     r"4 KiB reads|provider path in-process, 4 KiB calls|provider path via "
                     r"daemon, 4 KiB calls)\s+([\d.]+) MB/s", line)
        if m and cipher:
            daemon.append((cipher, m.group(1), float(m.group(2))))
    if len(daemon) != 15 or len(bulk) < 8:
        raise KeyError(f"{dsec} / {sec}: found {len(daemon)} daemon and {len(bulk)} bulk rows")
    head = (f"# {when(sec)}, NVIDIA H200 and its host (16 CPU cores, AVX-512), a lent machine, "
            f"load not recorded; bsgpu-bench's PRESENT-80 bulk rows, the GPU daemon step\n"
            f"# sources: {src(sec)} {src(dsec)}\n")
    a = ("# bulk | path | bytes per session and call | run 1 GB/s | run 2 GB/s\n" +
         "".join(f"bulk | {p} | {b} | {x:.1f} | {y:.1f}\n" for p, b, x, y in sorted(bulk)))
    b = ("# daemon | cipher (level of the in-process core) | path, 256 MiB of keystream | MB/s "
         "(wall)\n" + "".join(f"daemon | {c} | {p} | {v:.1f}\n" for c, p, v in daemon))
    return head + a + b


def generate(path):
    secs = R.sections(path)
    x, speed = x86(secs)
    return {"x86.txt": x, "x86-speed.txt": speed, "mcu.txt": mcu(secs), "gpu.txt": gpu(secs),
            "offload.txt": offload(secs)}


def main(argv):
    check = "--check" in argv
    path = R.RESULTS
    if "--results" in argv:
        path = argv[argv.index("--results") + 1]
    try:
        files = generate(path)
    except (KeyError, ValueError, AttributeError, StopIteration) as e:
        print(f"extract: {path}: {e}", file=sys.stderr)
        return 1
    bad = 0
    for name, text in files.items():
        p = os.path.join(DATA, name)
        if check:
            old = open(p, encoding="utf-8").read() if os.path.exists(p) else ""
            if old != text:
                bad += 1
                print(f"extract: bench/plot/data/{name} differs from what {os.path.relpath(path)}"
                      " gives now: run bench/plot/extract.py, then bench/plot/plot.sh", file=sys.stderr)
                for o, n in zip(old.split("\n") + [""] * 999, text.split("\n")):
                    if o != n:
                        print(f"  committed: {o}\n  now:       {n}", file=sys.stderr)
                        break
        else:
            with open(p, "w", encoding="utf-8") as f:
                f.write(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
