# omp_lib.sh — sourced by the omp_*.sh tests, each run as TEST.sh BINARY SHIM: the arguments, a scratch
# directory, the counters, an environment without settings that would change the runtimes' or the
# shim's behaviour, and the helpers below.
set -u
bin=$1 shim=$2
tmp=$(mktemp -d "/tmp/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 failed=0
unset OMP_SCHEDULE OMP_CANCELLATION OMP_DYNAMIC OMP_THREAD_LIMIT OMP_MAX_ACTIVE_LEVELS OMP_NESTED OMP_WAIT_POLICY
unset KMP_SCHEDULE KMP_CONSISTENCY_CHECK
unset ANDGATE_PRELOAD ANDGATE_GOMP ANDGATE_OMP ANDGATE_OMP_LOOPS ANDGATE_VERBOSE ANDGATE_TOPOLOGY ANDGATE_ALGO
unset ANDGATE_WAIT

runs() { # runs NAME ENV...: stdout to $tmp/NAME.out, stderr to $tmp/NAME.err; its exit status (124: a hang)
  local name=$1; shift
  timeout -k 5 120 env "$@" "$bin" > "$tmp/$name.out" 2> "$tmp/$name.err"
}

run() { # run NAME ENV...: as runs, and a failure or a hang fails
  local name=$1 rc=0
  runs "$@" || rc=$?
  shift
  if [ $rc != 0 ]; then
    failed=$((failed + 1)); echo "FAIL: $name ($*): exit status $rc"; sed 's/^/    /' "$tmp/$name.err" | head -5
  fi
}

same() { # same NAME REF WHAT: NAME printed what REF printed
  if cmp -s "$tmp/$1.out" "$tmp/$2.out"; then pass=$((pass + 1)); else
    failed=$((failed + 1)); echo "FAIL: $3: the output differs from $2's:"
    diff "$tmp/$2.out" "$tmp/$1.out" | head -8 | sed 's/^/    /'; fi
}

finish() { # the summary line and the exit status
  echo "$pass passed, $failed failed"
  [ "$failed" = 0 ]
}
