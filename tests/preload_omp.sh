#!/usr/bin/env bash
# The same output with and without the shim, at 2 threads and oversubscribed, and the shim must have
# served the program's barriers (ANDGATE_VERBOSE names the team). Usage: preload_omp.sh BINARY SHIM WHAT
# [RUNTIME] (WHAT: GOMP_barrier for libgomp, __kmpc_barrier for libomp; both served by default. RUNTIME:
# the runtime the team must be named by, when not WHAT's: libomp for gcc's GOMP_barrier linked with libomp).
set -u
bin=$1 shim=$2 what=$3
case $what in GOMP_barrier) runtime=libgomp ;; *) runtime=libomp ;; esac
runtime=${4:-$runtime}
fail=0
for t in 2 4; do
  want=$(OMP_NUM_THREADS=$t "$bin") || { echo "plain run failed"; exit 1; }
  got=$(OMP_NUM_THREADS=$t ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" "$bin" 2> /tmp/po_err.$$) || {
    echo "run with the shim failed"; cat /tmp/po_err.$$; exit 1; }
  if [ "$want" != "$got" ]; then echo "threads $t: '$want' without, '$got' with the shim"; fail=1; fi
  grep -q "^andgate-preload: $runtime team of $t at level 1: " /tmp/po_err.$$ || {
    echo "threads $t: the shim served no $runtime team of $t at level 1 ($what); it said:"; cat /tmp/po_err.$$; fail=1; }
done
# Oversubscribed whatever the machine (3 threads on the first CPU the test may use): libomp's teams run
# gate, whose master may leave first as libomp's does; libgomp's keep central, as libgomp's last arriver
# releases too (src/preload/team.c, runtime_algo).
cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
case $runtime in libomp) algo="gate:order=auto,line=" ;; *) algo="central:line=" ;; esac
want=$(OMP_NUM_THREADS=3 "$bin")
got=$(OMP_NUM_THREADS=3 ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" taskset -c "$cpu" "$bin" 2> /tmp/po_err.$$) || {
  echo "run with the shim on one CPU failed"; cat /tmp/po_err.$$; exit 1; }
if [ "$want" != "$got" ]; then echo "3 threads on one CPU: '$want' without, '$got' with the shim"; fail=1; fi
grep -q "^andgate-preload: $runtime team of 3 at level 1: $algo" /tmp/po_err.$$ || {
  echo "3 threads on one CPU: the $runtime team does not run ${algo%%:*}; the shim said:"; cat /tmp/po_err.$$; fail=1; }
# Bound to one place while the process may use more (OMP_PLACES={CPU}): the runtime puts the whole team
# on that CPU, so it is oversubscribed there although the process has every CPU of the test (libomp
# binds its threads after the shim read the process's mask: team.c, place_cpus). The team must take the
# crowded policy, the yielding wait (spin_ns=0), as on one CPU above; before, libomp's team spun, 59 us a
# barrier where libomp alone took 47 and the shim now 2.4 (docs/results.md, twenty-second part).
ncpu=$(nproc)
if [ "$ncpu" -ge 2 ]; then
  got=$(OMP_NUM_THREADS=2 OMP_PLACES="{$cpu}" OMP_PROC_BIND=true ANDGATE_VERBOSE=1 LD_PRELOAD="$shim" "$bin" \
    2> /tmp/po_err.$$) || { echo "run with the shim on one place failed"; cat /tmp/po_err.$$; exit 1; }
  want=$(OMP_NUM_THREADS=2 "$bin")
  if [ "$want" != "$got" ]; then echo "2 threads on one place: '$want' without, '$got' with the shim"; fail=1; fi
  grep -Eq "^andgate-preload: $runtime team of 2 at level 1: .* wait=hybrid:spin_ns=0,.*\(CPUs 1[ ,]" /tmp/po_err.$$ || {
    echo "2 threads bound to one place ({$cpu}) of $ncpu CPUs: the team does not take the crowded wait; the shim said:"
    cat /tmp/po_err.$$; fail=1; }
else
  echo "(one CPU: the case of a team bound to one place of several CPUs cannot arise)"
fi
rm -f /tmp/po_err.$$
[ $fail = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $fail
