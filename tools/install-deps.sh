#!/bin/sh
# Installs what spillgraph needs to build and test on Debian/Ubuntu.
# Uses sudo when not root. CUDA is optional: with nvcc on PATH the GPU path
# is built too (-Dcuda=auto); without it everything else builds and runs.
set -eu
pkgs="build-essential meson ninja-build pkg-config libzstd-dev liburing-dev libcmocka-dev python3"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
echo "installing:$missing" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
