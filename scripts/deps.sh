#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks for building and testing andgate. Idempotent: packages
# already present are not downloaded again.
set -euo pipefail
pkgs=(cmake make gcc g++ clang pkg-config libhwloc-dev hwloc libjansson-dev libomp-dev libck-dev libclang-rt-14-dev python3 python3-pip openmpi-bin libopenmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
else
  echo "deps: all present (${pkgs[*]})"
fi

# Python: the report (matplotlib), schema validation (jsonschema), the Python tests (pytest)
if ! python3 -c "import matplotlib, jsonschema, pytest" 2>/dev/null; then
  echo "deps: installing matplotlib jsonschema pytest for $(command -v python3)"
  python3 -m pip install --quiet matplotlib jsonschema pytest
else
  echo "deps: python packages present (matplotlib, jsonschema, pytest)"
fi
