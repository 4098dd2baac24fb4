#!/usr/bin/env bash
# The layering check (scripts/check-layers): the tree passes, and each kind of violation,
# planted in a copy of the tree, makes it fail and name the file: an include up the layers,
# an include circle, a meson.build that compiles another folder's source.
# The pipe check (scripts/check-pipes): no script or Markdown shell block pipes into a reader
# that may stop early (grep -q, head, ...), which under pipefail fails at random; planted ones
# are caught and safe forms are not.
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
    echo "layers: planted $name is caught: $(grep -m1 -F -- "$expected" "$work/$name.out")"
  fi
}
plant upward core/modes/ctr.c '#include "bsprov.h"' \
  'core/modes/ctr.c:'
plant daemon-gpu service/bsd_handlers.c '#include "bsgpu_lanes.h"' \
  'the daemon layer includes gpu/bsgpu_lanes.h'
plant provider-uv provider/prov.c '#include <uv.h>' \
  'provider/prov.c:'
plant circle service/bsd_batcher.h '#include "bsd_conn.h"' \
  'include circle between modules'
plant meson-up tools/meson.build "executable('x', '../bench/bsbench.c')" \
  "tools/meson.build:"
plant no-level core/present/present_bs64.c \
  'const bs_block_cipher bs_present_nolevel = {.name = "PRESENT-80", .impl = "bs64"};' \
  'the implementation bs_present_nolevel names no CPU level'
python3 scripts/check-pipes
mkdir -p "$work/pipes"
# The planted lines are assembled from pieces ($g), so that no naive search of this file for
# the pattern takes them for real ones.
g=grep
printf '%s\n' '#!/usr/bin/env bash' 'set -euo pipefail' \
  'ldd x | '"$g"' -q libasan && echo y' \
  'nm x | '"$g"' -Fqx sym || true' \
  'out=$(find . -name x | head -1)' \
  'dpkg-query -W p | sed -n '"'"'/ok/{p;q}'"'" \
  'ps ax | awk '"'"'/x/ { exit 0 }'"'" \
  'ls \' \
  '  | '"$g"' -m1 x' >"$work/pipes/bad.sh"
printf '%s\n' '# doc' '```sh' 'openssl list | '"$g"' -q bitslice' '```' >"$work/pipes/bad.md"
cat >"$work/pipes/good.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
grep -q libasan <<<"$(ldd x)"
n=$(nm x | grep -c sym || true)
first=$(find . -name x | sed -n 1p)
[ -n "$a" ] || [ -n "$b" ] && echo 'a | g''rep -q b'
tar -cf - . | head -c 10 >f || true # pipe-ok: a sample of the stream
EOF
found=$(python3 scripts/check-pipes --root "$work/pipes" bad.sh bad.md good.sh 2>/dev/null || true)
want=("bad.sh:3:" "bad.sh:4:" "bad.sh:5:" "bad.sh:6:" "bad.sh:7:" "bad.sh:8:" "bad.md:3:")
for w in "${want[@]}"; do
  if ! grep -qF -- "$w" <<<"$found"; then
    echo "pipes: planted $w is not caught"
    status=1
  fi
done
if grep -qF good.sh <<<"$found"; then
  echo "pipes: a safe form is flagged: $(grep -F good.sh <<<"$found")"
  status=1
fi
[ "$status" != 0 ] || echo "pipes: ${#want[@]} planted early readers caught, the safe forms pass"
exit $status
