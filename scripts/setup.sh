#!/usr/bin/env bash
# Installs every Debian 12 package bitslice needs (idempotent; run as root or through sudo).
set -euo pipefail
packages=(
  # build
  meson ninja-build pkg-config gcc g++ clang llvm lld python3
  # libraries
  libssl-dev openssl libuv1-dev libcmocka-dev
  # tests (bc: bench/service/enc3.sh)
  valgrind util-linux procps xxd bc
  # packaging: man pages (scdoc), Debian packages and their checks (lintian, autopkgtest), unit
  # files (systemd-analyze)
  scdoc build-essential debhelper dpkg-dev fakeroot lintian systemd autopkgtest
  # plots of the benchmark tables (bench/plot/)
  gnuplot-nox
  # sharded key search: a one-node Slurm and GNU parallel (scripts/test.d/80-shards.sh)
  slurmctld slurmd slurm-client munge parallel iproute2
  # embedded: cross toolchains, C library, QEMU
  gcc-arm-none-eabi picolibc-arm-none-eabi gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  qemu-system-arm qemu-system-misc binutils-arm-none-eabi
)
missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "setup: missing packages: ${missing[*]}" >&2
    echo "setup: run this script as root (for example: su -c 'bash scripts/setup.sh')" >&2
    exit 1
  fi
  SUDO=sudo
fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
