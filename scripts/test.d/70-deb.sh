#!/usr/bin/env bash
# The Debian packages, end to end: dpkg-buildpackage -b on a copy of the tree, lintian, then
# apt-get install of the .debs, the installed product used as a user would (openssl enc with a
# plain -provider bitslice, the daemon and the tool from their installed paths, a program built
# with pkg-config against libbscore-dev, systemd-analyze verify of the installed units), then
# apt-get purge and a check that no file of the packages is left.
# Needs root (it installs packages); the suites already ran in the first stage, so the package
# build skips them (DEB_BUILD_OPTIONS=nocheck; set BS_DEB_CHECK=1 to run them there too).
set -euo pipefail
top=${BS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
if [ "$(id -u)" -ne 0 ]; then
  echo "skip: installing packages needs root"
  exit 0
fi
pkgs=(openssl-provider-bitslice bitsliced libbscore0 libbscore-dev)
work=$(mktemp -d /tmp/bitslice-deb.XXXXXX)
daemon=
installed=0
cleanup() {
  [ -z "$daemon" ] || kill "$daemon" 2>/dev/null || true
  # A failed run must not leave the packages on the machine.
  [ "$installed" -eq 0 ] || apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deb: FAIL: $*" >&2; exit 1; }
step() { echo "deb: $*"; }

# Left over from an interrupted run: start clean.
for p in "${pkgs[@]}"; do
  state=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  if [ -n "$state" ] && [ "$state" != not-installed ]; then
    apt-get purge -y -qq "${pkgs[@]}" >/dev/null 2>&1 || true
    break
  fi
done

step "dpkg-buildpackage -b (copy of the tree in $work/src)"
mkdir -p "$work/src"
git ls-files -co --exclude-standard -z | grep -zv '^build' | tar --null -cf - -T - |
  tar -C "$work/src" -xf -
opts=nocheck
[ "${BS_DEB_CHECK:-0}" = 1 ] && opts=
if ! (cd "$work/src" && DEB_BUILD_OPTIONS=$opts dpkg-buildpackage -b -us -uc >"$work/build.log" 2>&1); then
  tail -n 60 "$work/build.log"
  fail "dpkg-buildpackage -b"
fi
ls "$work"/*.deb

step "lintian (errors and warnings fail; overrides in debian/*.lintian-overrides say why)"
if ! lintian --fail-on error,warning "$work"/bitslice_*.changes >"$work/lintian.log" 2>&1; then
  grep -v 'running with root privileges' "$work/lintian.log"
  fail "lintian reports errors or warnings (above)"
fi
grep -v 'running with root privileges' "$work/lintian.log" || true

debs=()
for p in "${pkgs[@]}"; do debs+=("$work/${p}_"*_"$(dpkg --print-architecture)".deb); done
for d in "${debs[@]}"; do dpkg-deb --fsys-tarfile "$d" | tar -tf - | sed 's#^\./#/#'; done |
  grep -v '/$' | sort -u >"$work/files"

step "apt-get install ./*.deb"
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" >"$work/install.log" 2>&1 || {
  cat "$work/install.log"
  fail "apt-get install"
}

step "openssl enc -provider bitslice, no -provider-path"
head -c 3000000 /dev/urandom >"$work/msg"
unset OPENSSL_MODULES OPENSSL_CONF BITSLICE_SOCKET
grep -q bitslice <<<"$(openssl list -providers -provider bitslice)" || fail "openssl does not list bitslice"
for c in present-ctr gift-ctr rijndael-256-ctr; do
  openssl enc -provider bitslice -provider default -"$c" -pbkdf2 -pass pass:deb -in "$work/msg" \
    -out "$work/msg.$c"
  openssl enc -d -provider bitslice -provider default -"$c" -pbkdf2 -pass pass:deb \
    -in "$work/msg.$c" -out "$work/msg.$c.out"
  cmp "$work/msg" "$work/msg.$c.out" || fail "$c round trip"
done
OPENSSL_CONF=/usr/share/doc/openssl-provider-bitslice/examples/bitslice.cnf \
  openssl enc -gift-ctr -pbkdf2 -pass pass:deb -in "$work/msg" -out "$work/msg.cnf"
cmp "$work/msg.cnf" "$work/msg.gift-ctr" >/dev/null && fail "same output under two salts"
echo "  present-ctr, gift-ctr, rijndael-256-ctr: round trips; the example config loads it"

step "the installed daemon and tool"
command -v bitslice >/dev/null && [ -x /usr/sbin/bitsliced ] || fail "bitslice or bitsliced missing"
getent passwd bitslice >/dev/null || fail "user bitslice not created (sysusers)"
/usr/sbin/bitsliced --check >/dev/null || fail "bitsliced --check"
mkdir -m 700 "$work/run"
/usr/sbin/bitsliced --socket "$work/run/bitsliced.sock" 2>"$work/daemon.log" &
daemon=$!
for _ in $(seq 100); do [ -S "$work/run/bitsliced.sock" ] && break; sleep 0.05; done
export BITSLICE_SOCKET=$work/run/bitsliced.sock
bitslice keygen -o "$work/key"
bitslice seal -q -k "$work/key" -o "$work/msg.bs" "$work/msg"
bitslice open -q -k "$work/key" -o "$work/msg.bs.out" "$work/msg.bs"
cmp "$work/msg" "$work/msg.bs.out" || fail "seal/open round trip"
grep -q '^bytes_served=' <<<"$(bitslice status)" || fail "bitslice status"
openssl enc -provider bitslice -provider default -present-ctr -K 00112233445566778899aabbccddeeff \
  -iv 0001020304050607 -in "$work/msg" -out "$work/msg.off"
served=$(bitslice status | sed -n 's/^bytes_served=//p')
[ "$served" -gt 0 ] || fail "the provider did not offload to the installed daemon"
kill "$daemon"
wait "$daemon" || true
daemon=
unset BITSLICE_SOCKET
echo "  seal/open through the daemon, openssl enc offloaded $served bytes of keystream"

step "man pages, pkg-config and libbscore"
for m in bitslice bitsliced bitslice-provider; do man -w "$m" >/dev/null || fail "no man page $m"; done
cat >"$work/t.c" <<'EOF'
#include <modes/ctr.h>
#include <stdio.h>
int main(void)
{
    const bs_block_cipher *c = bs_block_cipher_by_name("PRESENT-80");
    printf("%s\n", c != NULL ? c->name : "none");
    return c == NULL;
}
EOF
# shellcheck disable=SC2046
cc "$work/t.c" -o "$work/t" $(pkg-config --cflags --libs bitslice) || fail "build against libbscore"
grep -qx PRESENT-80 <<<"$("$work/t")" || fail "libbscore"
grep -q 'libbscore.so.0 ' <<<"$(ldd "$work/t")" || fail "not linked against the shared libbscore"

step "systemd-analyze verify (installed units)"
systemd-analyze verify /lib/systemd/system/bitsliced.socket /lib/systemd/system/bitsliced.service ||
  fail "system units"
mkdir -m 700 "$work/xdg"
XDG_RUNTIME_DIR=$work/xdg systemd-analyze verify --user /usr/lib/systemd/user/bitsliced.socket \
  /usr/lib/systemd/user/bitsliced.service 2>"$work/user-verify.log" || {
  cat "$work/user-verify.log"
  fail "user units"
}

step "apt-get purge: nothing of the packages is left"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${pkgs[@]}" >/dev/null
installed=0
left=0
while read -r f; do
  if [ -e "$f" ] || [ -L "$f" ]; then echo "  left behind: $f"; left=1; fi
done <"$work/files"
for p in "${pkgs[@]}"; do
  state=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  if [ -n "$state" ] && [ "$state" != not-installed ]; then
    echo "  still known to dpkg: $p"
    left=1
  fi
done
openssl list -providers -provider bitslice >/dev/null 2>&1 && { echo "  bitslice still loads"; left=1; }
[ "$left" -eq 0 ] || fail "purge left files behind"
echo "deb: ok: $(wc -l <"$work/files") files installed and purged; user bitslice stays (Debian never deletes system users)"
