#!/usr/bin/env python3
"""Checks the documentation against the product: every list of the provider's algorithms
against `openssl list -cipher-algorithms -provider bitslice` of the build (or of the installed
provider with --installed), and README.md's statements about them.

- Tables of names and aliases (README.md "Algorithms", docs/provider.md, bitslice-provider(7)):
  the same names with the same aliases, no more, no fewer.
- Lists in prose (README.md's first paragraph, debian/control's descriptions, bitslice.pc's
  Description): where one names two cipher families or more, it names every block cipher of
  the provider
  (PRESENT-80 ... RIJNDAEL-256) and no name the provider lacks.
- README.md's table says, per cipher, whether its core runs on the AES instructions (the
  implementations the provider reports in its build info, e.g. RIJNDAEL-256/vaes) or is
  bitsliced; and README.md links every Markdown document under docs/.

  scripts/check-algorithms.py [--installed] [--pc FILE]
Exit status 0 when everything matches; 1 with one line per difference.
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILY = re.compile(r"\b(?:PRESENT|GIFT|SKINNY|SPEEDY|RIJNDAEL)[0-9]*(?:-[0-9]+)+(?:-CTR|-GCM)?\b")
AES_IMPLS = ("vaes", "aesni")
problems = []


def provider_algorithms(installed):
    args = ["openssl", "list", "-cipher-algorithms"]
    if not installed:
        args += ["-provider-path", os.path.join(TOP, "build", "provider")]
    args += ["-provider", "bitslice"]
    env = {k: v for k, v in os.environ.items() if k not in ("OPENSSL_CONF", "OPENSSL_MODULES")}
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
    algs = {}
    for line in out.splitlines():
        m = re.match(r"\s*\{\s*(.*?)\s*\}\s*@\s*bitslice\s*$", line) or \
            re.match(r"\s*(\S+)\s*@\s*bitslice\s*$", line)
        if m:
            names = [n.strip() for n in m.group(1).split(",")]
            algs[names[0]] = set(names[1:])
    if not algs:
        raise SystemExit("check-algorithms: openssl lists no algorithm of bitslice:\n" + out)
    info = subprocess.run(["openssl", "list", "-providers", "-verbose"] + args[3:], capture_output=True,
                          text=True, check=True, env=env).stdout
    aes = {m.group(1) for m in re.finditer(r"\b([A-Z0-9-]+)/(%s)\b" % "|".join(AES_IMPLS), info)}
    return algs, aes


def block_of(name):
    return re.sub(r"-(CTR|GCM)$", "", name)


def check_table(path, rows, algs, what):
    if rows != algs:
        for n in sorted(set(algs) - set(rows)):
            problems.append(f"{path}: {what} lacks {n} (openssl lists it)")
        for n in sorted(set(rows) - set(algs)):
            problems.append(f"{path}: {what} has {n}, which openssl does not list")
        for n in sorted(set(rows) & set(algs)):
            if rows[n] != algs[n]:
                problems.append(f"{path}: {what}: {n} aliases {sorted(rows[n])}, openssl: "
                                f"{sorted(algs[n])}")


def markdown_table(path, heading=None):
    """Rows `| `NAME` | `A`, `B` | ... |` (in the section under heading, if given)."""
    text = open(os.path.join(TOP, path), encoding="utf-8").read()
    if heading:
        m = re.search(r"^## " + re.escape(heading) + r".*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
        text = m.group(1) if m else ""
    rows, cells = {}, {}
    for line in text.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 2 and re.fullmatch(r"`[^`]+`", c[0]) and FAMILY.fullmatch(c[0].strip("`")):
            rows[c[0].strip("`")] = set(re.findall(r"`([^`]+)`", c[1]))
            cells[c[0].strip("`")] = c
    return rows, cells, text


def check_prose(where, text, blocks):
    named = set(FAMILY.findall(text))
    families = set(re.findall(r"\b(PRESENT|GIFT|SKINNY|SPEEDY|RIJNDAEL)", text.upper()))
    if len(families) < 2:
        return  # one cipher named in passing (seal's RIJNDAEL-256-GCM), not a list
    known = set(blocks) | {b + "-CTR" for b in blocks} | {"RIJNDAEL-256-GCM"}
    for n in sorted(named - known):
        problems.append(f"{where}: names {n}, which the provider does not offer")
    for b in sorted(blocks):
        if b not in {block_of(n) for n in named}:
            problems.append(f"{where}: lists the ciphers but not {b}")


def main():
    installed = "--installed" in sys.argv
    pc = None
    if "--pc" in sys.argv:
        pc = sys.argv[sys.argv.index("--pc") + 1]
    algs, aes = provider_algorithms(installed)
    blocks = {block_of(n) for n in algs}

    rows, cells, section = markdown_table("README.md", "Algorithms")
    check_table("README.md", rows, algs, "the Algorithms table")
    for n, c in cells.items():
        core = " ".join(c[2:])
        if block_of(n) in aes and "AES instructions" not in core:
            problems.append(f"README.md: {n} runs on the AES instructions "
                            f"({block_of(n)}/{'|'.join(AES_IMPLS)}); its row does not say so")
        if block_of(n) not in aes and ("bitsliced" not in core or "AES instructions" in core):
            problems.append(f"README.md: {n}'s row does not say its core is bitsliced")
    rows, _, _ = markdown_table("docs/provider.md")
    check_table("docs/provider.md", rows, algs, "the names table")

    man = open(os.path.join(TOP, "docs/man/bitslice-provider.7.scd"), encoding="utf-8").read()
    mrows = {}
    for m in re.finditer(r"^\|\s+(\S+)\n:\s+(.*)$", man, re.M):
        mrows[m.group(1)] = {a.strip() for a in m.group(2).split(",")}
    check_table("docs/man/bitslice-provider.7.scd", mrows, algs, "the names table")

    readme = open(os.path.join(TOP, "README.md"), encoding="utf-8").read()
    check_prose("README.md (first paragraph)", readme.split("\n## ")[0], blocks)
    control = open(os.path.join(TOP, "debian/control"), encoding="utf-8").read()
    for stanza in control.split("\n\n"):
        m = re.search(r"^Package:\s*(\S+)", stanza, re.M)
        d = re.search(r"^Description:.*(?:\n .*)*", stanza, re.M)
        if m and d:
            check_prose(f"debian/control ({m.group(1)})", d.group(0), blocks)
    if pc:
        desc = re.search(r"^Description:(.*)$", open(pc, encoding="utf-8").read(), re.M)
        check_prose(pc, desc.group(1) if desc else "", blocks)

    # Every Markdown document under docs/ is linked from README.md.
    links = {os.path.normpath(t) for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", readme)}
    r = subprocess.run(["git", "-C", TOP, "ls-files", "docs"], capture_output=True, text=True)
    files = r.stdout.split()
    if r.returncode != 0 or not files:  # a tree without git metadata (autopkgtest's copy)
        files = [os.path.relpath(os.path.join(d, n), TOP)
                 for d, _, names in os.walk(os.path.join(TOP, "docs")) for n in names]
    for f in files:
        if f.endswith(".md") and f not in links:
            problems.append(f"README.md: no link to {f}")

    for p in problems:
        print("check-algorithms: " + p)
    print(f"check-algorithms: {len(algs)} algorithms of bitslice ({', '.join(sorted(algs))}); "
          f"on AES instructions: {', '.join(sorted(aes)) or 'none'}; "
          f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
