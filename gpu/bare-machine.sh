#!/usr/bin/env bash
# Runs a command as on a bare GPU machine: in a private mount namespace where the system's libuv,
# cmocka and OpenSSL headers, .pc files, CMake packages and link-time libraries are hidden, so
# that only what gpu/device-check.sh unpacks from .gpu-deps/ can be found. The runtime
# libcrypto.so.3 stays (a CUDA image has it). Root only (unshare -m); nothing outside changes.
#
#   gpu/bare-machine.sh COMMAND...    e.g. gpu/bare-machine.sh bash gpu/device-check.sh
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: gpu/bare-machine.sh COMMAND..." >&2; exit 2; }
if [ -z "${BSGPU_BARE_INSIDE:-}" ]; then
  exec env BSGPU_BARE_INSIDE=1 unshare -m --propagation private bash "$0" "$@"
fi

arch=x86_64-linux-gnu
lib=/usr/lib/$arch
work=$(mktemp -d /tmp/bitslice-bare.XXXXXX)
trap 'umount -l /usr/include "$lib" 2>/dev/null; rm -rf "$work"' EXIT
# Copies of /usr/include and the multiarch library directory as hard links (same file system:
# instant, no space), minus the packages' files, bound over the originals in this namespace only.
cp -al /usr/include "$work/include"
rm -rf "$work"/include/{uv.h,uv,cmocka.h,cmocka_pbc.h,openssl} "$work/include/$arch/openssl"
cp -al "$lib" "$work/lib"
rm -rf "$work"/lib/libuv.* "$work"/lib/libcmocka.* "$work"/lib/{libcrypto,libssl}.{so,a} \
  "$work"/lib/pkgconfig/{libuv,libuv-static,cmocka,libcrypto,libssl,openssl}.pc \
  "$work"/lib/cmake/{cmocka,libuv}
mount --bind "$work/include" /usr/include
mount --bind "$work/lib" "$lib"
for f in uv.h cmocka.h openssl/opensslconf.h "$arch/openssl/opensslconf.h"; do
  [ ! -e "/usr/include/$f" ] || { echo "bare-machine: /usr/include/$f still visible" >&2; exit 1; }
done
for f in libuv.so libcmocka.so libcrypto.so pkgconfig/libcrypto.pc pkgconfig/libuv.pc; do
  [ ! -e "$lib/$f" ] || { echo "bare-machine: $lib/$f still visible" >&2; exit 1; }
done
echo "bare-machine: system uv, cmocka and OpenSSL development files hidden"
"$@"
