#!/usr/bin/env bash
# apps/cg_mpi.c (cg over MPI ranks x threads, libandgate-mpi barriers): rank 0's stdout must be
# byte-for-byte bin/cg-gcc's (OMP_NUM_THREADS=1) at the same -i — every trial line, the zeta range and
# the checksum — at 1, 2, 3 ranks x 1, 2 threads per rank with the fused barrier, and at 2 x 2 with the
# three-step pattern (-b three-step) and with a node per rank (ANDGATE_MPI_NODE=rank: the library's
# completion step), and at 4 x 1 with nodes of two ranks (ANDGATE_MPI_NODE=shared:ranks=2: the fixed
# leader, node phases around the inter-node phase). -i 310 crosses a trial boundary (a new matrix, x gathered for the checksum). Every
# run must exit 0 and report 155 job-wide barriers per outer iteration plus one per trial (stderr).
# Usage: app_cg_mpi.sh CG_MPI CG_GCC MPIRUN [MPIRUN_ARGS...]
set -u
bin=${1:-} ref=${2:-}
fail() { echo "app_cg_mpi: $*"; echo "0 passed, 1 failed"; exit 1; }
[ -x "$bin" ] || fail "no executable '$bin'"
[ -x "$ref" ] || fail "no executable '$ref'"
shift 2
[ $# -ge 1 ] || fail "no mpirun command"
iters=310 trials=2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Open MPI's session directory under a private TMPDIR: concurrent mpiruns as the same user (ctest -j2,
# other jobs) otherwise race on creating /tmp/ompi.<host>.<uid> ("mkdir ... File exists", orte_init fails)
export TMPDIR="$tmp"
bad=0

OMP_NUM_THREADS=1 timeout 120 "$ref" -i $iters > "$tmp/ref.out" 2> "$tmp/ref.err" || fail "$ref -i $iters failed"
grep -q '^checksum [0-9a-f]\{16\}$' "$tmp/ref.out" || fail "no checksum line from $ref"
want_barriers=$((155 * iters + trials))

# one_run NAME RANKS THREADS [VAR=VALUE...] -- [CG_MPI_ARGS...]
one_run() {
  local name=$1 np=$2 t=$3 rc
  shift 3
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  local what="${envs[*]:+${envs[*]} }-np $np cg_mpi -i $iters -t $t${*:+ $*}"
  env "${envs[@]}" timeout 120 "${MPIRUN[@]}" -np "$np" "$bin" -i $iters -t "$t" "$@" \
    > "$tmp/$name.out" 2> "$tmp/$name.err"; rc=$?
  if [ $rc -ne 0 ]; then
    echo "FAIL: $what exited $rc"; tail -20 "$tmp/$name.err"; bad=1; return
  fi
  if ! diff -u "$tmp/ref.out" "$tmp/$name.out" > "$tmp/diff"; then
    echo "FAIL: $what: stdout differs from cg-gcc -i $iters:"; cat "$tmp/diff"; bad=1; return
  fi
  if ! grep -q "^barriers $want_barriers job-wide" "$tmp/$name.err"; then
    echo "FAIL: $what: not $want_barriers barriers:"; cat "$tmp/$name.err"; bad=1; return
  fi
  echo "ok: $what: $(grep '^checksum' "$tmp/$name.out")"
}

MPIRUN=("$@")
for np in 1 2 3; do
  for t in 1 2; do
    one_run "f$np$t" $np $t --
  done
done
one_run three 2 2 -- -b three-step
one_run node 2 2 ANDGATE_MPI_NODE=rank --
one_run pairs 4 1 ANDGATE_MPI_NODE=shared:ranks=2 --
echo "cg-gcc: $(grep '^checksum' "$tmp/ref.out")"

if [ $bad -eq 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"; exit 1
