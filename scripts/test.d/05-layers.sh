#!/usr/bin/env bash
# The layering check (scripts/check-layers): the tree passes, and each kind of violation,
# planted in a copy of the tree, makes it fail and name the file: an include up the layers,
# an include circle, a meson.build that compiles another folder's source.
set -euo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
python3 scripts/check-layers --verbose

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
# plant NAME FILE TEXT EXPECTED: a fresh copy of the tree with TEXT appended to FILE must fail
# the check with a line containing EXPECTED.
plant() {
  local name=$1 file=$2 text=$3 expected=$4 copy=$work/$1
  mkdir -p "$copy"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$copy"
  printf '%s\n' "$text" >>"$copy/$file"
  if python3 scripts/check-layers --root "$copy" >"$work/$name.out" 2>&1; then
    echo "layers: planted $name in $file, but the check passed"
    status=1
  elif ! grep -qF -- "$expected" "$work/$name.out"; then
    echo "layers: planted $name in $file, but the check did not say '$expected':"
    cat "$work/$name.out"
    status=1
  else
    echo "layers: planted $name is caught: $(grep -F -- "$expected" "$work/$name.out" | head -1)"
  fi
}
plant upward core/modes/ctr.c '#include "backend.h"' \
  'core/modes/ctr.c:'
plant daemon-gpu service/bsd_handlers.c '#include "bsgpu_lanes.h"' \
  'the daemon layer includes gpu/bsgpu_lanes.h'
plant provider-uv provider/prov.c '#include <uv.h>' \
  'provider/prov.c:'
plant circle service/bsd_batcher.h '#include "bsd_conn.h"' \
  'include circle between modules'
plant meson-up tools/meson.build "executable('x', '../bench/bsbench.c')" \
  "tools/meson.build:"
exit $status
