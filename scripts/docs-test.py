#!/usr/bin/env python3
"""Runs every shell block of README.md, docs/**/*.md and the man pages' sources
(docs/man/*.scd) as written, so that the docs stay true.

A block is a fenced block opened with ```sh (or ```bash); in a man page source, every literal
block (``` alone), run with the build's programs first on PATH under their installed names
(bitslice, bitsliced, bitslice-keysearch) and OPENSSL_MODULES naming the build's provider, as
on an installed system. The blocks of one Markdown file run in
order, each in its own `bash -e -o pipefail`, all in one scratch directory per file: a later
block may use the files an earlier one made. The scratch directory holds a symlink to every
top-level entry of the repository (build/ included), so repository paths such as
`build/tools/bitslice` or `conf/bitslice.cnf` resolve while the files a block writes stay in
the scratch directory. Whatever a block leaves running (a daemon started with `&`) is stopped
when the block ends.

An HTML comment (in a man page source, a comment line "; docs-test: ...") on the line before
the opening fence changes how the block is run:
  <!-- docs-test: skip REASON -->        not run; the report prints REASON (it must say why the
                                         block cannot run here, or which stage runs it)
  <!-- docs-test: files NAME=SIZE ... --> create random sample files first (SIZE: 123, 64K, 8M)
  <!-- docs-test: timeout SECONDS -->    longer than the default 120 s per block
Several directives may share one comment, separated by '; '.

Also checks that no tracked file cites a path outside the repository (the project's
specification is docs/spec/), and that every file a block leaves in its directory is one that
.gitignore covers: run in a clone, the blocks leave nothing that `git add -A` would take (a key
among them).

  scripts/docs-test.py [FILE.md ...]     (default: README.md and docs/**/*.md)
Exit status 0 when every block that runs passes, 1 otherwise.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TIMEOUT = 120
FENCE = re.compile(r"^```(sh|bash)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*docs-test:\s*(.*?)\s*-->\s*$")
# scdoc: literal blocks are bare fences, comments start with ';', '\\' is one backslash.
SCD_FENCE = re.compile(r"^```\s*$")
SCD_DIRECTIVE = re.compile(r"^;\s*docs-test:\s*(.*?)\s*$")


def blocks_of(path):
    """Yields (line number, directives, code) for each shell block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    scd = path.endswith(".scd")
    fence, directive = (SCD_FENCE, SCD_DIRECTIVE) if scd else (FENCE, DIRECTIVE)
    i = 0
    while i < len(lines):
        if fence.match(lines[i]):
            start = i + 1
            j = i - 1
            while j >= 0 and lines[j].strip() == "":
                j -= 1
            m = directive.match(lines[j]) if j >= 0 else None
            directives = m.group(1) if m else ""
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}:{start}: unterminated code block")
            code = "\n".join(body) + "\n"
            if scd:
                code = code.replace("\\\\", "\\")
            yield start, parse_directives(path, start, directives), code
        i += 1


def parse_directives(path, line, text):
    d = {"skip": None, "files": [], "timeout": DEFAULT_TIMEOUT}
    # ';' separates directives only where the next one starts (a reason may contain ';').
    for part in filter(None, (p.strip() for p in re.split(r";\s*(?=(?:skip|files|timeout)\b)",
                                                          text))):
        word, _, rest = part.partition(" ")
        rest = rest.strip()
        if word == "skip" and rest:
            d["skip"] = rest
        elif word == "files" and rest:
            for spec in rest.split():
                name, _, size = spec.partition("=")
                d["files"].append((name, parse_size(path, line, size)))
        elif word == "timeout" and rest.isdigit():
            d["timeout"] = int(rest)
        else:
            raise SystemExit(f"{path}:{line}: bad docs-test directive '{part}'")
    return d


def parse_size(path, line, s):
    m = re.fullmatch(r"(\d+)([KMG]?)", s)
    if not m:
        raise SystemExit(f"{path}:{line}: bad file size '{s}'")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def scratch_for(md):
    d = tempfile.mkdtemp(prefix="bitslice-docs.")
    for name in os.listdir(TOP):
        if name in (".git",):
            continue
        os.symlink(os.path.join(TOP, name), os.path.join(d, name))
    return d


def run_block(scratch, d, code, log, installed_names=False):
    for name, size in d["files"]:
        p = os.path.join(scratch, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if os.path.lexists(p):
            os.unlink(p)
        with open(p, "wb") as f:
            f.write(os.urandom(size))
    env = dict(os.environ)
    env["HOME"] = scratch  # nothing a block writes under ~ outlives the test
    env["XDG_RUNTIME_DIR"] = os.path.join(scratch, ".run")
    os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
    env.pop("BITSLICE_SOCKET", None)
    env.pop("OPENSSL_CONF", None)
    env.pop("OPENSSL_MODULES", None)
    if installed_names:
        bindir = os.path.join(scratch, ".bin")
        os.makedirs(bindir, exist_ok=True)
        for name, rel in (("bitslice", "build/tools/bitslice"),
                          ("bitsliced", "build/service/bitsliced"),
                          ("bitslice-keysearch", "build/keysearch/bitslice-keysearch")):
            if not os.path.lexists(os.path.join(bindir, name)):
                os.symlink(os.path.join(TOP, rel), os.path.join(bindir, name))
        env["PATH"] = bindir + os.pathsep + env["PATH"]
        env["OPENSSL_MODULES"] = os.path.join(TOP, "build", "provider")
    with open(log, "wb") as out:
        p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", code], cwd=scratch, env=env,
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
        try:
            rc = p.wait(timeout=d["timeout"])
        except subprocess.TimeoutExpired:
            rc = "timeout"
        # Stop what the block left behind (daemons started with &), then reap.
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(0.3)
        p.wait()
    return rc


# Paths that would point outside the repository: the specification lives in docs/spec/.
OUTSIDE = [
    re.compile(r"\.\./shared/|\bshared/(spec|DESIGN|STYLE|EMBEDDED|REVIEW)"),
    re.compile(r"(?<![\w/.-])spec/(algorithms|rijndael256-gcm|vectors|speedy-skinny)\b"),
    re.compile(r"/work/(main|shared|wt-)"),
]


def check_paths():
    files = subprocess.run(["git", "-C", TOP, "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    bad = []
    for f in filter(None, files):
        if f == "scripts/docs-test.py":
            continue
        try:
            text = open(os.path.join(TOP, f), encoding="utf-8", errors="replace").read()
        except (IsADirectoryError, FileNotFoundError):
            continue
        for n, line in enumerate(text.split("\n"), 1):
            if any(r.search(line) for r in OUTSIDE):
                bad.append(f"{f}:{n}: {line.strip()}")
    # Relative Markdown links must name files of the repository.
    for f in filter(lambda f: f.endswith(".md"), files):
        text = open(os.path.join(TOP, f), encoding="utf-8").read()
        for n, line in enumerate(text.split("\n"), 1):
            for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", line):
                if re.match(r"[a-z]+:", target):
                    continue
                if not os.path.exists(os.path.join(TOP, os.path.dirname(f), target)):
                    bad.append(f"{f}:{n}: link to missing {target}")
    for b in bad:
        print(f"docs: outside or missing path: {b}")
    return not bad


def unignored(scratch):
    """What the blocks left in their directory that .gitignore does not cover (the links to the
    repository and the test's own dot-files aside)."""
    left = []
    for name in sorted(os.listdir(scratch)):
        p = os.path.join(scratch, name)
        if name.startswith(".") or (os.path.islink(p) and os.readlink(p) == os.path.join(TOP, name)):
            continue
        probe = name + "/x" if os.path.isdir(p) and not os.path.islink(p) else name
        r = subprocess.run(["git", "-C", TOP, "check-ignore", "-q", "--no-index", probe])
        if r.returncode != 0:
            left.append(name)
    return left


def main():
    mds = sys.argv[1:]
    if not mds:
        mds = ["README.md"]
        for root, _, names in sorted(os.walk(os.path.join(TOP, "docs"))):
            mds += sorted(os.path.relpath(os.path.join(root, n), TOP) for n in names
                          if n.endswith(".md") or n.endswith(".scd"))
    ran = failed = 0
    skipped = []
    ok = check_paths()
    for md in mds:
        scratch = None
        for line, d, code in blocks_of(os.path.join(TOP, md)):
            where = f"{md}:{line}"
            if d["skip"]:
                skipped.append((where, d["skip"]))
                print(f"docs: skip {where}: {d['skip']}")
                continue
            scratch = scratch or scratch_for(md)
            log = os.path.join(scratch, ".block.log")
            t0 = time.monotonic()
            rc = run_block(scratch, d, code, log, installed_names=md.endswith(".scd"))
            ran += 1
            dt = time.monotonic() - t0
            if rc == 0:
                print(f"docs: ok   {where} ({dt:.1f} s)")
                continue
            failed += 1
            print(f"docs: FAIL {where} (exit {rc}, {dt:.1f} s; BS_DOCS_KEEP=1 keeps {scratch}):")
            print("    " + code.rstrip().replace("\n", "\n    "))
            print("  output (last 40 lines):")
            tail = open(log, encoding="utf-8", errors="replace").read().rstrip().split("\n")
            print("    " + "\n    ".join(tail[-40:]))
        if scratch:
            left = unignored(scratch)
            if left:
                ok = False
                print(f"docs: {md}'s blocks leave files that .gitignore does not cover: "
                      + ", ".join(left))
        if scratch and not os.environ.get("BS_DOCS_KEEP"):
            subprocess.run(["rm", "-rf", scratch])
    print(f"docs: {ran} blocks run, {failed} failed, {len(skipped)} skipped (marked, reasons above)"
          + ("" if ok else "; paths outside the repository or missing, or files left that "
                            ".gitignore does not cover: see above"))
    return 0 if failed == 0 and ok else 1


if __name__ == "__main__":
    sys.exit(main())
