#!/usr/bin/env bash
# The shim's load-time work leaves the program's heap as it was. Usage: omp_heap.sh BINARY SHIM
# BINARY is tests/omp_heap.c built with gcc or clang; it prints the heap's statistics at main's start and
# the page offsets of its first blocks. They must be the same with and without the shim, bound and
# unbound. Control: the same program with glibc's heap tuned otherwise (MALLOC_TOP_PAD_,
# MALLOC_MMAP_THRESHOLD_) must print something else, so the comparison can fail.
. "$(dirname "$0")/omp_lib.sh"
export OMP_NUM_THREADS=2
# the runtime itself reads the machine when it binds threads: compare like with like
for bind in true false; do
  run plain-$bind OMP_PROC_BIND=$bind
  run shim-$bind OMP_PROC_BIND=$bind LD_PRELOAD="$shim"
  same shim-$bind plain-$bind "OMP_PROC_BIND=$bind under the shim"
done
# control: a heap laid out differently is seen
run control OMP_PROC_BIND=false MALLOC_TOP_PAD_=0 MALLOC_MMAP_THRESHOLD_=4096
if cmp -s "$tmp/control.out" "$tmp/plain-false.out"; then
  failed=$((failed + 1)); echo "FAIL: the control (a different heap) was not told apart"
else pass=$((pass + 1)); fi
finish
