#!/usr/bin/env bash
# preload_pthread with and without the shim; with it, the shim must really serve the barriers.
set -u
bin=$1 shim=$2
"$bin" > /tmp/pp_glibc.$$ 2>&1 || { echo "without the shim:"; cat /tmp/pp_glibc.$$; exit 1; }
ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" "$bin" > /tmp/pp_shim.$$ 2> /tmp/pp_shim_err.$$ || {
  echo "with the shim:"; cat /tmp/pp_shim.$$ /tmp/pp_shim_err.$$; exit 1; }
grep -q "andgate-preload: pthread_barrier" /tmp/pp_shim_err.$$ || { echo "the shim served no barrier"; exit 1; }
grep -Eq "^andgate-preload: pthread_barrier .*, count [0-9]+: .* wait=.* \(CPUs [0-9]+, usable CPUs [0-9]+, topology (sysfs|hwloc)\)$" \
  /tmp/pp_shim_err.$$ || { echo "a verbose line lacks the usable CPUs or the topology:"; head -3 /tmp/pp_shim_err.$$; exit 1; }
grep -q "after destroy: wait returned EINVAL, destroy again EINVAL" /tmp/pp_shim.$$ ||
  { echo "with the shim, a destroyed barrier did not answer EINVAL"; grep "after destroy" /tmp/pp_shim.$$; exit 1; }
# a bad configuration is reported and glibc takes over: the program still runs correctly
ANDGATE_ALGO=nosuch LD_PRELOAD="$shim" "$bin" > /tmp/pp_bad.$$ 2> /tmp/pp_bad_err.$$ || {
  echo "with a bad ANDGATE_ALGO:"; cat /tmp/pp_bad.$$ /tmp/pp_bad_err.$$; exit 1; }
grep -q "unknown algorithm 'nosuch'" /tmp/pp_bad_err.$$ || { echo "a bad ANDGATE_ALGO was not reported"; exit 1; }
tail -1 /tmp/pp_glibc.$$; tail -1 /tmp/pp_shim.$$; tail -1 /tmp/pp_bad.$$
rm -f /tmp/pp_*.$$
