#!/usr/bin/env python3
"""Runs every shell block of README.md and docs/**/*.md as written, so that the docs stay true.

A block is a fenced block opened with ```sh (or ```bash). The blocks of one Markdown file run in
order, each in its own `bash -e -o pipefail`, all in one scratch directory per file: a later
block may use the files an earlier one made. The scratch directory holds a symlink to every
top-level entry of the repository (build/ included), so repository paths such as
`build/tools/bitslice` or `conf/bitslice.cnf` resolve while the files a block writes stay in
the scratch directory. Whatever a block leaves running (a daemon started with `&`) is stopped
when the block ends.

An HTML comment on the line before the opening fence changes how the block is run:
  <!-- docs-test: skip REASON -->        not run; the report prints REASON (it must say why the
                                         block cannot run here, or which stage runs it)
  <!-- docs-test: files NAME=SIZE ... --> create random sample files first (SIZE: 123, 64K, 8M)
  <!-- docs-test: timeout SECONDS -->    longer than the default 120 s per block
Several directives may share one comment, separated by '; '.

Also checks that no tracked file cites a path outside the repository (the project's
specification is docs/spec/).

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


def blocks_of(path):
    """Yields (line number, directives, code) for each shell block of a Markdown file."""
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        if FENCE.match(lines[i]):
            start = i + 1
            j = i - 1
            while j >= 0 and lines[j].strip() == "":
                j -= 1
            m = DIRECTIVE.match(lines[j]) if j >= 0 else None
            directives = m.group(1) if m else ""
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit(f"{path}:{start}: unterminated code block")
            yield start, parse_directives(path, start, directives), "\n".join(body) + "\n"
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


def run_block(scratch, d, code, log):
    for name, size in d["files"]:
        p = os.path.join(scratch, name)
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


def main():
    mds = sys.argv[1:]
    if not mds:
        mds = ["README.md"]
        for root, _, names in sorted(os.walk(os.path.join(TOP, "docs"))):
            mds += sorted(os.path.relpath(os.path.join(root, n), TOP) for n in names
                          if n.endswith(".md"))
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
            rc = run_block(scratch, d, code, log)
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
        if scratch and not os.environ.get("BS_DOCS_KEEP"):
            subprocess.run(["rm", "-rf", scratch])
    print(f"docs: {ran} blocks run, {failed} failed, {len(skipped)} skipped (marked, reasons above)"
          + ("" if ok else "; paths outside the repository or missing: see above"))
    return 0 if failed == 0 and ok else 1


if __name__ == "__main__":
    sys.exit(main())
