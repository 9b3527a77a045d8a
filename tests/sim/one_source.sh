#!/usr/bin/env bash
# No second copy of any algorithm: in the simulator library every ag_algo_* descriptor is defined
# exactly once, by the object compiled from src/algo/<name>.c (the library's own source file), and no
# file under sim/ defines or includes an algorithm.
set -euo pipefail
build=$1 src=$2
lib=$build/lib/libandgate_sim.a
pass=0 fail=0
for f in "$src"/src/algo/*.c; do
  name=$(basename "$f" .c)
  defs=$(nm -A "$lib" | grep -E " [DR] ag_algo_${name}\$" || true)
  if [ "$(printf '%s\n' "$defs" | grep -c .)" -eq 1 ] && [[ "$defs" == *":${name}.c.o:"* ]] &&
     [ -e "$(find "$build" -path "*andgate_sim.dir/__/src/algo/${name}.c.o" | head -1)" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL: ag_algo_${name} in the simulator library: '${defs}'"; fail=$((fail + 1))
  fi
done
if grep -rlE --include="*.[ch]" 'struct ag_algo ag_algo_|#include "[a-z/]+\.c"' "$src/sim" >/dev/null; then
  echo "FAIL: an algorithm definition under sim/:"; grep -rlE --include="*.[ch]" 'struct ag_algo ag_algo_' "$src/sim"; fail=$((fail + 1))
else
  pass=$((pass + 1))
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
