#!/usr/bin/env bash
# The command line of andgate: every bad usage is refused before anything runs, with exit status 2 and
# one line on stderr naming the option and what was expected; a measurement that fails (here a worker
# killed after its time limit) leaves a result document that is valid JSON and validates against the
# schema, with the failure in its record, and the command exits 1. Usage: cli_errors.sh BUILD SRC
set -u
build=$1 src=$2
A="$build/bin/andgate"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PYTHONPATH="$src/python"
pass=0 failed=0
no() { failed=$((failed + 1)); echo "FAIL: $*"; }

# refused ARGS... : exit 2, exactly one line on stderr, nothing on stdout, no document written
refused() {
  (cd "$tmp" && timeout 60 "$A" "$@" > "$tmp/out" 2> "$tmp/err"); local rc=$?
  if [ "$rc" = 2 ] && [ "$(wc -l < "$tmp/err")" = 1 ] && [ ! -s "$tmp/out" ] && [ ! -e "$tmp/-" ]; then
    pass=$((pass + 1))
  else
    no "andgate $*: exit $rc, stderr $(wc -l < "$tmp/err") lines (want 2 and 1): $(head -3 "$tmp/err")"
  fi
}
refused bench --episodes -5
refused bench --episodes abc
refused bench --episodes 4294967296
refused bench --budget-ms 0
refused bench --budget-ms 214748365
refused bench --jitter-us nan
refused bench --jitter-us 0x10
refused sim --jitter-us " 1"
refused bench --jitter-us -1
refused bench --cdf-threads x
refused bench --baselines nope
refused bench --baselines pthread,nope
refused bench --method foo
refused bench --pin cores2
refused bench --late sometimes
refused bench --algos nope
refused bench --algos "stour:fanin=99"
refused bench --wait "hybrid:spin_ns=x"
refused bench --threads 0
refused bench --bogus
refused bench --episodes
refused bench --json - --report "$tmp/r"
refused bench --preload apps --repeat 0
refused bench --preload apps --repeat 65
refused bench --preload apps --bind maybe
refused bench --preload apps --apps cg,cg
refused bench --preload "true" --apps cg
refused bench --preload
refused list --json extra
refused list extra
refused info --bogus
refused bench --wait "spin;nope"
refused bench --timeout -1
refused sim --episodes -5
refused sim --bogus
refused sim --pin none
refused sim --wait "spin;block"
refused sim --timeout 0
refused sim --method all --algos "nosuch"
refused sim --machine nosuch
refused sim --baselines pthread
refused sim --seed 3-1
refused sim --seed 1,
refused sim --seed x
refused sim --seed 9007199254740993
refused sim --seed 1-100
refused bench --machine kunpeng920
refused nonsense
refused
grep -qx "andgate: no command given (andgate --help lists the commands)" "$tmp/err" && pass=$((pass + 1)) ||
  no "andgate with no command: $(cat "$tmp/err")"
"$A" --help > "$tmp/out" 2> "$tmp/err" && [ "$(grep -c '^  [a-z]' "$tmp/out")" -ge 4 ] && [ ! -s "$tmp/err" ] &&
  pass=$((pass + 1)) || no "andgate --help: the commands on stdout, exit 0: $(cat "$tmp/out" "$tmp/err")"
# an option where a value belongs: refused, naming the option, and no file or directory named after it
# (each would be a short run if accepted)
refused bench --json --quiet --algos central --baselines none --threads 2 --method latency --episodes 10
refused sim --report --quiet --algos central --threads 2 --episodes 5
refused bench --preload true --repeat 1 --csv --quiet
grep -q "^andgate bench --preload: --csv needs a value (FILE), got the option '--quiet'$" "$tmp/err" &&
  [ ! -e "$tmp/--quiet" ] && pass=$((pass + 1)) ||
  no "a value that is an option: $(cat "$tmp/err"; ls "$tmp")"
# a bad library environment, refused by the library's own check before anything runs
ANDGATE_TOPOLOGY=bogus refused info
grep -qx "andgate info: ANDGATE_TOPOLOGY='bogus': expected hwloc or sysfs" "$tmp/err" && pass=$((pass + 1)) ||
  no "ANDGATE_TOPOLOGY=bogus andgate info: $(cat "$tmp/err")"
ANDGATE_TOPOLOGY=bogus refused bench --algos central --baselines pthread --threads 2 --method latency --episodes 10
ANDGATE_ALGO=bogus refused info --json
grep -q "^andgate info: ANDGATE_ALGO='bogus': unknown algorithm 'bogus'; expected one of: central" "$tmp/err" &&
  pass=$((pass + 1)) || no "ANDGATE_ALGO=bogus andgate info --json: $(cat "$tmp/err")"
ANDGATE_WAIT='spin;' refused bench --preload true --repeat 1
ANDGATE_MEMBARRIER=maybe refused info
grep -qx "andgate info: ANDGATE_MEMBARRIER='maybe': expected 0 or 1" "$tmp/err" && pass=$((pass + 1)) ||
  no "ANDGATE_MEMBARRIER=maybe andgate info: $(cat "$tmp/err")"
ANDGATE_TOPOLOGY=bogus refused info --measure --out "$tmp/m.json"
# info --measure: an --out that cannot be written is refused before the measuring
refused info --measure --out "$tmp"
grep -qx "andgate info --measure: --out $tmp: cannot write: Is a directory" "$tmp/err" && pass=$((pass + 1)) ||
  no "info --measure --out DIR: $(cat "$tmp/err")"
touch "$tmp/plain"
refused info --measure --out "$tmp/plain/m.json"
# an option given twice (the second would replace the first), an empty value
refused bench --preload true --repeat 1 --preload true
grep -q "^andgate bench --preload: --preload: given twice$" "$tmp/err" && pass=$((pass + 1)) ||
  no "--preload twice: $(cat "$tmp/err")"
refused sim --algos central --threads 2 --episodes 5 --threads 4
refused bench --preload '' --repeat 1
refused bench --json '' --algos central --baselines none --threads 2 --method latency --episodes 10
refused info --measure --out ''
# an empty item in a list (each would be a short run if accepted)
bench1="--threads 2 --method latency --episodes 10"
refused bench --algos 'central,' --baselines none $bench1
grep -q "^andgate bench: --algos: an empty item in 'central,'; expected" "$tmp/err" && pass=$((pass + 1)) ||
  no "--algos 'central,': $(cat "$tmp/err")"
refused bench --algos 'central;;dissemination' --baselines none $bench1
refused bench --algos central --wait 'spin;' --baselines none $bench1
refused bench --algos none --baselines 'pthread,' $bench1
refused sim --algos 'central;;dissemination' --threads 2 --episodes 5
refused sim --algos central --wait 'spin;' --threads 2 --episodes 5
# sim: --algos hw where the machine models no device; a workload's options without --workload
refused sim --machine kunpeng920 --algos hw --threads 2 --episodes 5
grep -q "^andgate sim: --algos hw: machine kunpeng920 models no hardware barrier; these do: harp-broadwell, " \
  "$tmp/err" && pass=$((pass + 1)) || no "sim --algos hw on kunpeng920: $(cat "$tmp/err")"
timeout 60 "$A" sim --machine tile64 --algos hw --threads 2 --episodes 5 --quiet --json "$tmp/hw.json" \
  2> "$tmp/err" && grep -q '"impl":"hw:hw-reflex"' "$tmp/hw.json" && pass=$((pass + 1)) ||
  no "sim --algos hw on tile64: $(cat "$tmp/err")"
refused sim --items 5 --algos central --threads 2 --episodes 5
grep -qx "andgate sim: --items: only with --workload prodcons|phases" "$tmp/err" && pass=$((pass + 1)) ||
  no "sim --items without --workload: $(cat "$tmp/err")"
refused sim --cs-ns 100 --algos central --threads 2 --episodes 5
# bench --mpi: its own options only with it, the other bench's measurement choices not with it
refused bench --ranks 2
refused bench --mpi-node rank
refused bench --mpi --algos central
refused bench --mpi --baselines none
refused bench --mpi --pin compact
refused bench --mpi --jitter-us 5
refused bench --mpi --late fixed
refused bench --mpi --cdf-threads 2
refused bench --mpi --method jitter
refused bench --mpi --ranks 0
if [ -x "$build/libexec/andgate/bench-mpi" ]; then # a launcher that is not there: before any job
  ANDGATE_MPIRUN=/nonexistent/mpirun refused bench --mpi --ranks 2 --threads 1
  grep -q "cannot run the launcher '/nonexistent/mpirun' (ANDGATE_MPIRUN)" "$tmp/err" && pass=$((pass + 1)) ||
    no "ANDGATE_MPIRUN=/nonexistent/mpirun: $(cat "$tmp/err")"
  ANDGATE_MPIRUN=mpirun ANDGATE_MPI_NODE=bogus refused bench --mpi --ranks 2 --threads 1
fi
refused bench --mpi --ranks 2,x
refused bench --mpi --threads 300
refused bench --mpi --mpi-node nodes
refused bench --mpi --mpi-node shared:ranks=0
refused bench --mpi --mpi-node shared:ranks=2,rank
refused bench --mpi --wait nope
refused bench --preload apps --mpi
# as root without Open MPI's two override variables every mpirun would fail on its banner: refused at once
if [ "$(id -u)" = 0 ] && [ -x "$build/libexec/andgate/bench-mpi" ]; then
  saved=$(declare -p OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ANDGATE_MPIRUN 2> /dev/null)
  unset OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ANDGATE_MPIRUN
  refused bench --mpi --ranks 2 --threads 1
  grep -q "running as root, which Open MPI's mpirun refuses" "$tmp/err" && pass=$((pass + 1)) ||
    no "bench --mpi as root: the message does not say why: $(cat "$tmp/err")"
  eval "$saved"
fi
grep -q "expected an integer in 1..100000000, got '-5'" <(cd "$tmp" && "$A" bench --episodes -5 2>&1) &&
  pass=$((pass + 1)) || no "--episodes -5: the message does not name the range and the value"

# a worker killed after its time limit (a 1000 s late thread, 10 ms budget: killed after 5.2 s)
timeout 120 "$A" bench --method jitter --jitter-us 1e9 --budget-ms 10 --threads 2 --algos central --baselines none \
  --json "$tmp/fail.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ "$rc" = 1 ] && pass=$((pass + 1)) || no "a failed measurement: exit $rc, want 1"
if python3 -m andgate_report "$tmp/fail.json" --validate > "$tmp/v" 2>&1 &&
   python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert len(r)==1 and r[0]['status']=='failed' and r[0]['impl']=='andgate:central' and 'killed' in r[0]['error'], r" "$tmp/fail.json"
then pass=$((pass + 1)); else no "a failed measurement's document: $(cat "$tmp/v"; head -c 600 "$tmp/fail.json")"; fi

# a worker that dies while writing its record, or right after writing a whole one: the document stays
# valid JSON and the record says the job failed and why (stand-in workers around the real bench-core)
mkdir -p "$tmp/half" "$tmp/after"
for kind in half after; do
  { echo '#!/usr/bin/env bash'
    echo "real='$build/libexec/andgate/bench-core'"
    echo 'case " $* " in *" --impl "*) ;; *) exec "$real" "$@";; esac'
    if [ "$kind" = half ]; then echo 'out=$("$real" "$@"); printf "%s" "${out:0:$(( ${#out} / 2 ))}"'
    else echo '"$real" "$@"'; fi
    echo 'kill -SEGV $$'; } > "$tmp/$kind/bench-core"
  chmod +x "$tmp/$kind/bench-core"
  ANDGATE_LIBEXEC=$tmp/$kind timeout 120 "$A" bench --algos central --baselines none --threads 2 --method latency \
    --budget-ms 20 --quiet --json "$tmp/$kind.json" > /dev/null 2> "$tmp/err"; rc=$?
  if [ "$rc" = 1 ] && python3 -m andgate_report "$tmp/$kind.json" --validate > "$tmp/v" 2>&1 &&
     python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert len(r)==1 and r[0]['status']=='failed' and 'signal 11' in r[0]['error'], r" "$tmp/$kind.json"
  then pass=$((pass + 1)); else no "a worker killed by SIGSEGV ($kind its record): exit $rc: $(cat "$tmp/v"; head -c 600 "$tmp/$kind.json")"; fi
done

# a machine file that is not there, or a directory: said so, without a parser's line and column
refused sim --machine /nonexistent/m.json
grep -qx "andgate sim: --machine /nonexistent/m.json: No such file or directory" "$tmp/err" && pass=$((pass + 1)) ||
  no "sim --machine /nonexistent/m.json: $(cat "$tmp/err")"
refused sim --machine "$tmp"
grep -q ": a directory; expected a machine file" "$tmp/err" && pass=$((pass + 1)) || no "sim --machine DIR: $(cat "$tmp/err")"

refused sim --machines --json "$tmp/mm.json"
# sim --episodes beyond what a run keeps at that count: refused before any job, hardware barriers too
refused sim --algos central --threads 2 --episodes 100000000
refused sim --machine harp-broadwell --algos hw --threads 2 --episodes 100000000
grep -q "at 2 participants the simulator keeps at most 67108863 episodes" "$tmp/err" && pass=$((pass + 1)) ||
  no "sim --episodes 100000000: the message does not give the limit: $(cat "$tmp/err")"
refused sim --threads 5000
grep -q "counts must be in 1..4096, got '5000'" "$tmp/err" && pass=$((pass + 1)) ||
  no "sim --threads 5000: the message does not say the range: $(cat "$tmp/err")"
# a misspelt Concurrency Kit barrier, where ck is built (a name the build lacks altogether is a warning)
if "$build/libexec/andgate/bench-core" --list | grep -q "^ck:"; then
  refused bench --baselines ck:bogus --algos central --threads 2 --method latency --episodes 10
  grep -q "unknown Concurrency Kit barrier 'ck:bogus' (built here: ck:" "$tmp/err" && pass=$((pass + 1)) ||
    no "bench --baselines ck:bogus: $(cat "$tmp/err")"
fi

# sim's table gives a failed job's reason as its record does (here a worker killed at --timeout)
timeout 60 "$A" sim --machine knl7210 --algos central --threads 256 --episodes 500000 --timeout 0.01 \
  --json "$tmp/killed.json" 2> "$tmp/err"; rc=$?
why=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][0]['error'])" "$tmp/killed.json")
[ "$rc" = 1 ] && [ -n "$why" ] && grep -qF "andgate:central" "$tmp/err" && grep -qF "  FAILED: $why" "$tmp/err" &&
  pass=$((pass + 1)) || no "sim's table for a killed job (record: '$why'): $(cat "$tmp/err")"

# --json - writes the document on stdout (and no file named -)
(cd "$tmp" && timeout 120 "$A" bench --quick --threads 2 --algos "all,auto" --baselines none --method latency \
  --json - > "$tmp/doc.json" 2> "$tmp/err"); rc=$?
if [ "$rc" = 0 ] && [ ! -e "$tmp/-" ] && python3 -m andgate_report "$tmp/doc.json" --validate > "$tmp/v" 2>&1 &&
   python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; assert len(r)==12, len(r)" "$tmp/doc.json"
then pass=$((pass + 1)); else no "--json - with --algos all,auto: exit $rc: $(cat "$tmp/v" | head -3; tail -2 "$tmp/err")"; fi

# an item named twice (here also through all) is one measurement, in bench as in sim
timeout 60 "$A" sim --algos "central;central;all" --threads 2 --episodes 5 --quiet --json "$tmp/dup.json" 2> "$tmp/err"
timeout 60 "$A" bench --algos central,central --baselines pthread,pthread --threads 2 --method latency \
  --episodes 10 --quiet --json "$tmp/dupb.json" > /dev/null 2>> "$tmp/err"
python3 -c "
import json, sys
for f in sys.argv[1:]:
    names = [r['impl'] for r in json.load(open(f))['results']]
    assert len(names) == len(set(names)), names
    assert any(n.startswith('andgate:central') for n in names), names" "$tmp/dup.json" "$tmp/dupb.json" &&
  pass=$((pass + 1)) || no "an item named twice ran twice: $(cat "$tmp/err")"

# the recorded command reads back in a shell as the words it was given
python3 -c "
import json, shlex, sys
cmd = json.load(open(sys.argv[1]))['command']
assert shlex.split(cmd)[:4] == ['andgate', 'sim', '--algos', 'central;central;all'], cmd" "$tmp/dup.json" &&
  pass=$((pass + 1)) || no "the recorded command does not quote --algos 'central;central;all'"

# file names that begin with '-' reach the report tool as names (a lone - is stdout for --json only)
(cd "$tmp" && timeout 60 "$A" sim --algos central --threads 2 --episodes 5 --quiet --json -d.json --csv -d.csv \
  > "$tmp/out" 2> "$tmp/err"); rc=$?
[ "$rc" = 0 ] && [ "$(wc -l < "$tmp/-d.csv")" = 2 ] && [ ! -s "$tmp/out" ] && pass=$((pass + 1)) ||
  no "--json -d.json --csv -d.csv: exit $rc: $(cat "$tmp/err")"

# --csv inside a --report folder that does not exist yet (make demo on a fresh clone: report/results.csv):
# the folder is made first, then the file is checked
for cmd in "bench --algos central --baselines none $bench1" "sim --algos central --threads 2 --episodes 5" \
           "bench --preload true --repeat 1"; do
  d=$tmp/new-$RANDOM
  # shellcheck disable=SC2086 # the command's words
  timeout 120 "$A" $cmd --report "$d" --csv "$d/results.csv" > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" = 0 ] && [ -s "$d/results.csv" ] && [ -s "$d/index.html" ] && pass=$((pass + 1)) ||
    no "$cmd --report NEW --csv NEW/results.csv: exit $rc: $(head -3 "$tmp/err")"
done

# an output that cannot be written is refused before the run (each would be a short run if accepted)
refused sim --csv /nonexistent/x.csv --algos central --threads 2 --episodes 5
grep -qx "andgate sim: --csv /nonexistent/x.csv: cannot write: No such file or directory" "$tmp/err" &&
  pass=$((pass + 1)) || no "sim --csv /nonexistent/x.csv: $(cat "$tmp/err")"
refused bench --csv "$tmp" --algos central --baselines none $bench1
refused bench --json "$tmp" --algos central --baselines none $bench1
refused bench --preload true --repeat 1 --csv /nonexistent/x.csv
refused bench --preload true --repeat 1 --json -
grep -q "^andgate bench --preload: --json -: expected a file" "$tmp/err" && pass=$((pass + 1)) ||
  no "bench --preload --json -: $(cat "$tmp/err")"
# and when it cannot be written after all (here the report tool is missing), the exit status says so
ANDGATE_PYTHONPATH=$tmp/none timeout 60 "$A" sim --algos central --threads 2 --episodes 5 --quiet \
  --json "$tmp/s.json" --csv "$tmp/s.csv" > /dev/null 2>&1; rc=$?
[ "$rc" = 1 ] && [ -s "$tmp/s.json" ] && pass=$((pass + 1)) ||
  no "sim --csv that the report tool fails: exit $rc, want 1"
ANDGATE_PYTHONPATH=$tmp/none timeout 60 "$A" bench --preload true --repeat 1 --csv "$tmp/p.csv" > /dev/null 2>&1
rc=$?; [ "$rc" = 1 ] && pass=$((pass + 1)) || no "bench --preload --csv the report tool fails: exit $rc, want 1"

# an interrupted run leaves an earlier --json file as it was, and no temporary file beside it
timeout 60 "$A" sim --algos central --threads 2 --episodes 5 --quiet --json "$tmp/s.json" > /dev/null 2>&1
cp "$tmp/s.json" "$tmp/prev.json"
timeout -s TERM 1 "$A" sim --machine knl7210 --algos central --threads 256 --episodes 500000 --quiet \
  --json "$tmp/prev.json" > /dev/null 2>&1; rc=$?
[ "$rc" = 124 ] && [ -s "$tmp/s.json" ] && cmp -s "$tmp/s.json" "$tmp/prev.json" &&
  ! ls "$tmp"/prev.json?* > /dev/null 2>&1 && pass=$((pass + 1)) ||
  no "an interrupted sim --json prev.json: exit $rc, $(ls -l "$tmp"/prev.json*)"
# and its worker ends with it (SIGTERM to the front end alone, as a batch system sends it)
seed=$((900000 + RANDOM))
"$A" sim --machine knl7210 --algos central --threads 256 --episodes 500000 --quiet --seed "$seed" \
  --json "$tmp/prev.json" > /dev/null 2>&1 &
pid=$!
sleep 1; kill -TERM "$pid"; wait "$pid" # (timeout(1) would signal the whole process group, the worker too)
for _ in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "andgate-sim .*--seed $seed( |\$)" > /dev/null || break; sleep 0.5; done
if pgrep -f "andgate-sim .*--seed $seed( |\$)" > /dev/null; then
  no "a front end ended by SIGTERM left its worker running: $(pgrep -af "andgate-sim .*--seed $seed")"
  pkill -f "andgate-sim .*--seed $seed( |\$)"
else pass=$((pass + 1)); fi

# without --json or --report the document is a temporary file, removed after the summary
"$A" bench --algos central --baselines none --threads 2 --method latency --episodes 10 > /dev/null 2> "$tmp/err" &
pid=$!; wait $pid; rc=$?
[ "$rc" = 0 ] && [ ! -e "/tmp/andgate-$pid.json" ] && ! grep -q "results in" "$tmp/err" && pass=$((pass + 1)) ||
  no "bench without --json: exit $rc, /tmp/andgate-$pid.json: $(ls /tmp/andgate-$pid.json* 2>&1; cat "$tmp/err")"

# docs/options.md carries the option tables as --help prints them
for cmd in bench sim "bench --preload apps"; do
  if "$A" $cmd --help | grep '^  --' | while IFS= read -r line; do grep -qxF -- "$line" "$src/docs/options.md" || { echo "$line"; exit 1; }; done
  then pass=$((pass + 1)); else no "docs/options.md lacks a row of andgate $cmd --help (regenerate it)"; fi
done

echo "$pass passed, $failed failed"
[ "$failed" = 0 ]
