#!/usr/bin/env bash
# The Debian packages, end to end: the license statements agree (LICENSE, debian/copyright,
# meson.build); dpkg-buildpackage -b on a copy of the tree, lintian, then the packages'
# autopkgtests (debian/tests/) with autopkgtest's null virt server, which installs the .debs
# and uses the installed product as a user would (openssl enc with a plain -provider bitslice
# and the README.Debian snippet, the daemon and the tool from their installed paths, the system
# daemon started by hand for group bitslice, a program built with pkg-config against
# libbscore-dev, the installed documents and man pages, systemd-analyze verify of the units);
# then apt-get purge and a check that no file of the packages is left.
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

step "license: LICENSE, debian/copyright and meson.build say the same"
cmp -s LICENSE /usr/share/common-licenses/Apache-2.0 || fail "LICENSE is not the Apache License 2.0 text"
lic=$(sed -n '/^Files: \*$/,/^$/s/^License: *//p' debian/copyright)
[ "$lic" = Apache-2.0 ] || fail "debian/copyright: Files: * is '$lic', not Apache-2.0"
grep -q "license : 'Apache-2.0'" meson.build || fail "meson.build's license is not Apache-2.0"

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

# The installed product's checks are the packages' autopkgtests (debian/tests/), run the way
# Debian's CI runs them: autopkgtest with the null virt server (this machine is the testbed; it
# installs the .debs built above). Without autopkgtest (or with BS_DEB_NO_AUTOPKGTEST=1): the
# same scripts, after apt-get install.
installed=1
if command -v autopkgtest >/dev/null && [ "${BS_DEB_NO_AUTOPKGTEST:-0}" != 1 ]; then
  step "autopkgtest (null virt server): debian/tests/control on the built packages"
  rc=0
  autopkgtest -B -o "$work/autopkgtest" "${debs[@]}" "$work/src/" -- null >"$work/autopkgtest.log" 2>&1 ||
    rc=$?
  grep -E '^(provider|daemon-and-tool|libbscore-dev|installed-files|system-daemon) ' \
    "$work/autopkgtest/summary" 2>/dev/null | sed 's/^/  /' || true
  if [ "$rc" -ne 0 ]; then
    tail -n 80 "$work/autopkgtest.log"
    fail "autopkgtest exit status $rc (2: a test skipped, 4: a test failed)"
  fi
else
  step "apt-get install ./*.deb, then debian/tests/* as autopkgtest would run them"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"
    fail "apt-get install"
  }
  for t in $(sed -n 's/^Tests: *//p' debian/tests/control); do
    mkdir -p "$work/tmp-$t"
    (cd "$work/src" && AUTOPKGTEST_TMP=$work/tmp-$t "debian/tests/$t") >"$work/test-$t.log" 2>&1 || {
      cat "$work/test-$t.log"
      fail "debian/tests/$t"
    }
    echo "  $t PASS"
  done
fi

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
