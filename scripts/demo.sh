#!/usr/bin/env bash
# make demo: what andgate is on this machine. Until `andgate bench` lands (its own issue) this shows the
# catalogue, the topology and usable CPUs, and runs the README example.
set -euo pipefail
build=${1:-build}
echo "== andgate list"; "$build/bin/andgate" list
echo "== andgate info"; "$build/bin/andgate" info
echo "== examples/hello.c"; "$build/bin/hello"
