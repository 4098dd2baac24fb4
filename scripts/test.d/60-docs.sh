#!/usr/bin/env bash
# Every shell block of README.md, docs/ and the man pages' examples runs as written
# (scripts/docs-test.py), against the main build in build/ (the first stage of scripts/test.sh
# builds it), and leaves only files .gitignore covers; no file cites a path outside the
# repository. Blocks that cannot run here are marked in the Markdown, and listed. Every list of
# the provider's algorithms (README.md, docs/provider.md, bitslice-provider(7), debian/control,
# bitslice.pc) matches `openssl list -cipher-algorithms -provider bitslice`, README.md says which
# ciphers run on the AES instructions, and links every document of docs/
# (scripts/check-algorithms.py).
# Every figure of docs/guidelines.md is checked against bench/RESULTS.md (scripts/check-figures.py).
set -euo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
if [ ! -x build/service/bitsliced ] && [ ! -x build/tools/bitslice ]; then
  [ -d build/meson-private ] || meson setup build >/dev/null
  ninja -C build >/dev/null
fi
# A control: a block that fails must fail the test (and its output must be shown).
ctl=$(mktemp -d)
trap 'rm -rf "$ctl"' EXIT
printf '# control\n\n```sh\necho control-output; false\n```\n' >"$ctl/control.md"
if python3 scripts/docs-test.py "$ctl/control.md" >"$ctl/out" 2>&1 || ! grep -q control-output "$ctl/out"; then
  cat "$ctl/out"
  echo "docs: the control (a failing block) was not reported as a failure" >&2
  exit 1
fi
# The figures quoted in docs/guidelines.md and the plot tables of bench/plot/data/ against
# bench/RESULTS.md, and their control: a figure changed in a copy of RESULTS.md (a cited one, a
# derived one, rows the plots read) must fail them.
python3 scripts/check-figures.py
python3 bench/plot/extract.py --check
python3 scripts/check-figures.py --control
python3 scripts/docs-test.py
python3 scripts/check-algorithms.py --pc build/meson-private/bitslice.pc
