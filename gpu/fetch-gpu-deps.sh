#!/usr/bin/env bash
# Run on a networked Debian 12 (or Ubuntu) machine, before gpu/device-check.sh travels to a bare
# GPU machine: downloads, without installing, the .deb packages that a CUDA image lacks for a full
# build (libuv, cmocka, libcrypto headers, pkgconf) into .gpu-deps/ (git-ignored). No root needed.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest="$top/.gpu-deps"
pkgs=(libuv1 libuv1-dev libcmocka0 libcmocka-dev libssl3 libssl-dev pkgconf pkgconf-bin
      libpkgconf3)
mkdir -p "$dest"
cd "$dest"
rm -f ./*.deb
# apt-get download needs current package lists; `apt-get update` needs root where it has none.
if ! apt-get download "${pkgs[@]}"; then
  echo "fetch-gpu-deps: apt-get download failed; run 'sudo apt-get update' and retry" >&2
  exit 1
fi
ls -l "$dest"
du -sh "$dest"
