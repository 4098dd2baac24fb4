#!/usr/bin/env python3
"""Checks every figure quoted in docs/guidelines.md against bench/RESULTS.md, the tables it came from.

A figure is written as a link to the section of bench/RESULTS.md it comes from, the figure being
the link's text, with an optional title that says where in the section it stands:

  [105.1 est. c/B](../bench/RESULTS.md#cortex-m3-qemu--m-mps2-an385 "PRESENT-80/bs32; -O2")
      every number of the text must appear, as RESULTS writes it (2,116 = 2116), on one line
      (a table row) of that section that contains each ';'-separated string of the title;
      without a title, on any line of the section;
  [1.9×](../bench/RESULTS.md#anchor "= 10144 / 5222")
      a figure derived from the section: each number of the expression must appear in the
      section, and the expression, evaluated, must round to the text's number (at its digits).

Expressions may use the constants 100, 1000, 8, 16, 32 and 1024 besides the section's numbers.
A published figure that RESULTS.md does not quote links to bench/plot/data/published.txt (the
title selects the line), where it is typed with its source.

The link's anchor must be a heading of bench/RESULTS.md as a Markdown renderer names it. A number
outside such a link that reads as a figure (a decimal, or a number followed by a unit such as
c/B, MB/s, GB/s, Gbit/s, %, ×, cycles, instructions, registers) fails the check: every figure
is checked or it is not there. At least MIN_SECTIONS sections must be cited.

  scripts/check-figures.py [--guide FILE] [--results FILE]
  scripts/check-figures.py --control   plants a changed figure in a copy of RESULTS.md (for a
                                       cited figure, a derived one, and a row the plots read)
                                       and requires this check and bench/plot/extract.py --check
                                       to fail on it
Exit status 0 when every figure matches. Python 3 standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench", "plot"))
import results as R  # noqa: E402

GUIDE = os.path.join(TOP, "docs", "guidelines.md")
MIN_SECTIONS = 10
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s#]+)(?:#([^)\s]*))?(?:\s+\"([^\"]*)\")?\)")
ANY_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
UNIT = (r"(?:c/B|cycles?|est\.|instr|instructions?|MB/s|GB/s|Gbit/s|Tbit/s|keys/s|%|×|x\b|"
        r"ns/B|ns|µs|ms|registers|warps|bytes of text|KB\b|s\b)")
FIGURE = re.compile(r"(?<![\w.^/-])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w.]\d)\s?(?=" + UNIT + ")"
                    r"|(?<![\w.^/-])\d+\.\d+(?![\w.]\d)")
EXEMPT = re.compile(r"(OpenSSL|QEMU|GCC|gcc|nvcc|CUDA|TLS|Debian|version|v)\s+\d+(\.\d+)*|"
                    r"\d+\s?×\s?\d+")
# Constants an expression may use besides the section's numbers (units and percentages).
CONSTANTS = {"100", "1000", "8", "16", "32", "1024"}


def figures_of(path):
    """(line number, text, anchor, title) of every link into RESULTS.md, and the unlinked
    figures (line number, figure, line)."""
    links, loose = [], []
    fenced = False
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(line):
            links.append((n, m.group(1), m.group(2), m.group(3), m.group(4)))
        rest = ANY_LINK.sub(" ", line)
        rest = re.sub(r"`[^`]*`|<!--.*?-->|https?://\S+", " ", rest)
        rest = EXEMPT.sub(" ", rest)
        for m in FIGURE.finditer(rest):
            loose.append((n, m.group(0).strip(), line.strip()))
    return links, loose


def digits(s):
    return len(s.split(".")[1]) if "." in s else 0


def check(guide, results):
    secs = R.sections(results)
    anchors = R.by_anchor(secs)
    links, loose = figures_of(guide)
    errors, cited, nfig = [], set(), 0
    rel = os.path.relpath(guide, TOP)
    for n, text, target, anchor, title in links:
        where = f"{rel}:{n}: [{text}]({os.path.basename(target)}#{anchor or ''})"
        nums = R.numbers(text)
        path = os.path.normpath(os.path.join(os.path.dirname(guide), target))
        if target.endswith("RESULTS.md"):
            if not nums and not anchor:
                continue  # a link to the file, no figure
            sec = anchors.get(anchor or "")
            if sec is None:
                errors.append(f"{where}: bench/RESULTS.md has no heading with this anchor")
                continue
            cited.add(anchor)
            lines = R.with_children(secs, sec)
        elif os.path.relpath(path, TOP).startswith(os.path.join("bench", "plot", "data")):
            if not os.path.exists(path):
                errors.append(f"{where}: no such file")
                continue
            lines = [ln for ln in open(path, encoding="utf-8").read().split("\n")
                     if not ln.startswith("#")]
        else:
            if FIGURE.search(EXEMPT.sub(" ", text)):
                errors.append(f"{where}: a figure must link to bench/RESULTS.md or "
                              "bench/plot/data/")
            continue
        if not nums:
            continue
        title = (title or "").strip()
        if title.startswith("="):
            expr = title[1:]
            if not re.fullmatch(r"[\d.,\s+\-*/()]+", expr):
                errors.append(f"{where}: the expression '{expr}' is not arithmetic")
                continue
            have = set(R.numbers("\n".join(lines)))
            for o in R.numbers(expr):
                if o not in have and o not in CONSTANTS:
                    errors.append(f"{where}: the operand {o} is not in the section")
            value = eval(expr.replace(",", ""), {"__builtins__": {}})  # digits and operators
            nfig += 1
            want = nums[0]
            if f"{value:.{digits(want)}f}" != want:
                errors.append(f"{where}: {expr} = {value:.{digits(want) + 2}f}, not {want}")
            continue
        ctx = [c.strip() for c in title.split(";") if c.strip()]
        rows = [ln for ln in lines if all(c in ln for c in ctx)]
        if not rows:
            errors.append(f"{where}: no line of the section contains {ctx}")
            continue
        for x in nums:
            nfig += 1
            if not any(x in R.numbers(ln) for ln in rows):
                errors.append(f"{where}: {x} is not in " + (f"the line(s) with {ctx}" if ctx
                                                              else "the section") +
                              (f" (now: {R.plain(rows[0]).strip()[:150]})" if ctx else ""))
    for n, fig, line in loose:
        errors.append(f"{rel}:{n}: the figure '{fig}' is not a checked link into "
                      f"bench/RESULTS.md: {line[:120]}")
    if len(cited) < MIN_SECTIONS:
        errors.append(f"{rel}: {len(cited)} sections of bench/RESULTS.md cited, want at least "
                      f"{MIN_SECTIONS}")
    return errors, nfig, len(cited)


def mutate(token):
    """The same number with its last digit changed."""
    d = token[-1]
    return token[:-1] + str((int(d) + 1) % 10)


def plant(results_text, secs, sec, pred, number):
    """RESULTS.md's text with NUMBER changed on the lines of SEC (and its children) that PRED
    selects; None when nothing was changed."""
    lines = results_text.split("\n")
    i = secs.index(sec)
    end = next((s.start for s in secs[i + 1:] if s.level <= sec.level), len(lines) + 1)
    changed = 0
    for k in range(sec.start, end - 1):
        if not pred(lines[k]):
            continue
        new = re.sub(r"(?<![\w.,])" + re.escape(number).replace(",", ",?") + r"(?![\w]|[.,]\d)",
                     lambda m: mutate(m.group(0)), lines[k])
        if new != lines[k]:
            lines[k] = new
            changed += 1
    return "\n".join(lines) if changed else None


def control(guide):
    """Plants changed figures in copies of RESULTS.md; each must fail the checks."""
    text = open(R.RESULTS, encoding="utf-8").read()
    secs = R.sections(R.RESULTS)
    anchors = R.by_anchor(secs)
    links, _ = figures_of(guide)
    links = [l for l in links if l[2].endswith("RESULTS.md")]
    plain_links = [l for l in links if R.numbers(l[1]) and not (l[4] or "").startswith("=")]
    derived = [l for l in links if (l[4] or "").startswith("=")]
    cases = []
    for name, pick in (("first cited figure", plain_links[:1]),
                       ("last cited figure", plain_links[-1:]),
                       ("a derived figure", derived[:1])):
        if not pick:
            print(f"figures: control '{name}': no such link in {guide}", file=sys.stderr)
            return 1
        n, t, _, anchor, title = pick[0]
        sec = anchors[anchor]
        if title and title.startswith("="):
            num = max((x for x in R.numbers(title) if x not in CONSTANTS), key=len)
            pred = lambda ln, num=num: num in R.numbers(ln)  # noqa: E731
        else:
            num = R.numbers(t)[0]
            ctx = [c.strip() for c in (title or "").split(";") if c.strip()]
            pred = lambda ln, ctx=ctx: all(c in ln for c in ctx)  # noqa: E731
        cases.append((name, plant(text, secs, sec, pred, num), f"[{t}]", "figures"))
    x86 = R.find(secs, "Host: quiet all-rows run")
    cases.append(("a row the x86 plot reads", plant(text, secs, x86, lambda ln: ln.startswith(
        "| PRESENT-80-CTR avx512, c/B"), "0.48"), "x86.txt", "extract"))
    emb = R.find(secs, "Issue 27 table, Cortex-M3", under="MCU: every variant of issue 27")
    cases.append(("a row the MCU plot reads", plant(text, secs, emb, lambda ln: ln.startswith(
        "| GIFT-128 fix32 (C) | fast 2020"), "73.2"), "mcu.txt",
        "extract"))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="bitslice-figures.") as d:
        for name, changed, expect, tool in cases:
            if changed is None:
                print(f"figures: control '{name}': could not plant a change", file=sys.stderr)
                bad += 1
                continue
            path = os.path.join(d, "RESULTS.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(changed)
            if tool == "figures":
                errors, _, _ = check(guide, path)
                out = "\n".join(errors)
                failed = bool(errors)
            else:
                p = subprocess.run([sys.executable, os.path.join(TOP, "bench", "plot", "extract.py"),
                                    "--check", "--results", path], capture_output=True, text=True)
                out, failed = p.stdout + p.stderr, p.returncode != 0
            if failed and expect in out:
                print(f"figures: control '{name}': caught ({out.splitlines()[0][:140]})")
            else:
                print(f"figures: control '{name}': a changed source figure was NOT caught\n{out}",
                      file=sys.stderr)
                bad += 1
    return 1 if bad else 0


def main(argv):
    guide, results = GUIDE, R.RESULTS
    if "--guide" in argv:
        guide = argv[argv.index("--guide") + 1]
    if "--results" in argv:
        results = argv[argv.index("--results") + 1]
    if "--control" in argv:
        return control(guide)
    errors, nfig, nsec = check(guide, results)
    for e in errors:
        print(f"figures: {e}")
    print(f"figures: {nfig} figures of {os.path.relpath(guide, TOP)} checked against "
          f"{nsec} sections of bench/RESULTS.md, {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
