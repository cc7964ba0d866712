#!/usr/bin/env bash
# tools/setup.sh: installs what fennelsim needs to build and test on Debian 12
# (only the packages that are missing; uses sudo when not root). Extra
# package names given as arguments are installed too (CI: clang-format).
# libsimgrid-dev and g++ are for the tests only (tests/simgrid: the differential
# test against SimGrid); fennelsim never links SimGrid.
set -euo pipefail
packages=(gcc meson ninja-build pkg-config check zlib1g-dev libxml2-dev openmpi-bin libopenmpi-dev time
  libopen-trace-format2-dev man-db g++ libsimgrid-dev "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
