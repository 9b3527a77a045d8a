#!/usr/bin/env bash
# OpenMP construct semantics under libandgate-preload.so. Usage: omp_semantics.sh BINARY SHIM
# BINARY is tests/omp_semantics.c built with gcc (libgomp) or clang (libomp). At 2 and 4 threads (4 is
# oversubscribed on 2 CPUs), bound and unbound: the same output with and without the shim, exit 0, no
# FAIL, and the shim's ANDGATE_VERBOSE lines show it served root teams (2, 3, 5, OMP_NUM_THREADS) and
# nested ones (level 2). All of it with OMP_CANCELLATION=false, where the shim also hands out the dynamic
# loops' chunks and the sections (and says so), and with OMP_CANCELLATION=true, where the cancel case
# really cancels and the loops stay the runtime's (the output is the same either way). Then bad ANDGATE_* values: exactly one `andgate-preload:` line naming the
# variable, the same output, no team served (the runtime's barriers kept); and the off switches.
. "$(dirname "$0")/omp_lib.sh"
ok() { pass=$((pass + 1)); }
no() { failed=$((failed + 1)); echo "FAIL: $*"; }

if readelf -d "$bin" 2> /dev/null | grep -q 'NEEDED.*libgomp'; then rt=libgomp own=ANDGATE_GOMP
elif readelf -d "$bin" 2> /dev/null | grep -q 'NEEDED.*libomp'; then rt=libomp own=ANDGATE_OMP
else echo "$bin: linked with neither libgomp nor libomp"; echo "0 passed, 1 failed"; exit 1; fi
ncases=$("$bin" --list | wc -l)

# this test's own run (in place of omp_lib.sh's): the program under env ENV..., stdout to $tmp/NAME.out,
# stderr to $tmp/NAME.err, the exit status to $tmp/NAME.rc for `finished` to judge; a hang is a failure,
# not a stuck test (60 s: a run takes under a second, a few on a loaded machine)
run() {
  local name=$1; shift
  timeout -k 5 60 env "$@" "$bin" > "$tmp/$name.out" 2> "$tmp/$name.err"
  echo $? > "$tmp/$name.rc"
}

# the run finished, exit 0, every case ok
finished() {
  local name=$1 what=$2 rc
  rc=$(cat "$tmp/$name.rc")
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    no "$what: hung (killed after 60 s) after: $(tail -1 "$tmp/$name.out")"; return 1; fi
  if [ "$rc" != 0 ] || grep -q ' FAIL ' "$tmp/$name.out" || [ "$(grep -c '^case .* ok ' "$tmp/$name.out")" != "$ncases" ]; then
    no "$what: exit $rc, $(grep -c '^case .* ok ' "$tmp/$name.out") of $ncases cases ok"
    grep -v '^case .* ok ' "$tmp/$name.out" | sed 's/^/    /'; sed 's/^/    stderr: /' "$tmp/$name.err" | head -5
    return 1
  fi
  ok
}

# docs/preload.md: "... (CPUs P, usable CPUs U, threads T, topology S)", T counting the enclosing teams' threads
teamre="^andgate-preload: $rt team of [0-9]+ at level [0-9]+: .+ \\(CPUs [0-9]+( of the runtime's places)?, usable CPUs [0-9]+, threads [0-9]+, topology (sysfs|hwloc|none)\\)\$"
loopsre="^andgate-preload: $rt's dynamic, guided(, auto)? and runtime loops handed out by the shim\$"
for canc in false true; do
 export OMP_CANCELLATION=$canc
 for t in 2 4; do
  for bind in true false; do
    cfg="OMP_CANCELLATION=$canc OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind"
    run plain OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind
    finished plain "$cfg, without the shim" || continue
    run shim OMP_NUM_THREADS=$t OMP_PROC_BIND=$bind ANDGATE_VERBOSE=1 LD_PRELOAD="$shim"
    finished shim "$cfg, with the shim" && same shim plain "$cfg, with the shim"
    odd=$(grep '^andgate-preload:' "$tmp/shim.err" | grep -Ev "$teamre" | grep -Ev "$loopsre")
    if [ -z "$odd" ]; then ok; else no "$cfg: ANDGATE_VERBOSE lines not in the team format:"; echo "$odd" | head -3; fi
    told=$(grep -Ec "$loopsre" "$tmp/shim.err")
    if [ "$told" = $([ $canc = false ] && echo 1 || echo 0) ]; then ok; else
      no "$cfg: $told lines saying the shim hands out the loops"; fi
    wants=("team of $t at level 1" "team of 3 at level 1" "team of 5 at level 1" "team of 2 at level 2"
      "team of 3 at level 2")
    [ $t = 2 ] || wants+=("team of 2 at level 1")
    for want in "${wants[@]}"; do
      if grep -Eq "^andgate-preload: $rt $want: " "$tmp/shim.err"; then ok; else
        no "$cfg: the shim served no $rt $want (no such ANDGATE_VERBOSE line)"; fi
    done
    # only the main thread starts teams of 5: one andgate barrier, reused by its three regions
    n5=$(grep -c "^andgate-preload: $rt team of 5 at level 1: " "$tmp/shim.err")
    if [ "$rt" = libomp ] || [ "$n5" -le 1 ]; then ok; else no "$cfg: $n5 barriers for the main thread's team of 5"; fi
  done
 done
done
export OMP_CANCELLATION=true # below: the runtimes' loops, as before the shim served them

# Bad values: one line naming the variable, the runtime's own barriers, the same output. Bound: the
# runtimes' own barriers, spinning, are slow unbound on a loaded machine (libgomp's: seconds a run).
run ref OMP_NUM_THREADS=2 OMP_PROC_BIND=true
finished ref "OMP_NUM_THREADS=2 OMP_PROC_BIND=true, without the shim (reference for the bad values)"
for bad in ANDGATE_ALGO=nosuch ANDGATE_WAIT=hybrid:spin_ns=-1 ANDGATE_PRELOAD=maybe ANDGATE_VERBOSE=maybe \
  "$own=maybe" ANDGATE_TOPOLOGY=nosuch ANDGATE_MEMBARRIER=maybe; do
  var=${bad%%=*}
  verbose=ANDGATE_VERBOSE=1
  [ "$var" = ANDGATE_VERBOSE ] && verbose=
  run bad OMP_NUM_THREADS=2 OMP_PROC_BIND=true $verbose "$bad" LD_PRELOAD="$shim"
  finished bad "$bad" && same bad ref "$bad"
  msgs=$(grep -c '^andgate-preload:' "$tmp/bad.err")
  if [ "$msgs" = 1 ] && grep '^andgate-preload:' "$tmp/bad.err" | grep -q "$var"; then ok; else
    no "$bad: $msgs andgate-preload: lines on stderr, wanted exactly one naming $var:"; sed 's/^/    /' "$tmp/bad.err" | head -5; fi
  if grep -q ' team of ' "$tmp/bad.err"; then no "$bad: the shim served teams anyway:"; grep ' team of ' "$tmp/bad.err" | head -2; else ok; fi
done

# A bad ANDGATE_TOPOLOGY beside a good ANDGATE_ALGO: the one line names the topology, not the algorithm.
run bad OMP_NUM_THREADS=2 OMP_PROC_BIND=true ANDGATE_ALGO=dissemination ANDGATE_TOPOLOGY=nosuch LD_PRELOAD="$shim"
finished bad "ANDGATE_ALGO=dissemination ANDGATE_TOPOLOGY=nosuch" && same bad ref "a bad ANDGATE_TOPOLOGY beside ANDGATE_ALGO"
if [ "$(grep -c '^andgate-preload:' "$tmp/bad.err")" = 1 ] &&
  grep -q "^andgate-preload: ANDGATE_TOPOLOGY='nosuch': expected hwloc or sysfs;" "$tmp/bad.err"; then ok; else
  no "a bad ANDGATE_TOPOLOGY beside ANDGATE_ALGO: wanted one line naming ANDGATE_TOPOLOGY:"; head -3 "$tmp/bad.err"; fi

# the topology run's team line of 2 at level 1 names source $1
told_topology() { grep -q "^andgate-preload: $rt team of 2 at level 1: .*, topology $1)\$" "$tmp/topo.err"; }

# The topology source: ANDGATE_TOPOLOGY names it (the preload's default, sysfs when it describes every
# CPU, is in docs/preload.md).
run topo OMP_NUM_THREADS=2 OMP_PROC_BIND=true ANDGATE_VERBOSE=1 ANDGATE_TOPOLOGY=sysfs LD_PRELOAD="$shim"
finished topo "ANDGATE_TOPOLOGY=sysfs" && same topo ref "ANDGATE_TOPOLOGY=sysfs"
if told_topology sysfs; then ok; else
  no "ANDGATE_TOPOLOGY=sysfs: no team line saying topology sysfs:"; head -2 "$tmp/topo.err"; fi

# hwloc: never loaded with the shim (not among its NEEDED libraries), read through libandgate-hwloc.so
# beside it when asked for (src/preload/hwloc_module.c); a shim without the module says so once and
# reads sysfs.
if readelf -d "$shim" | grep -q 'NEEDED.*hwloc'; then no "the shim links hwloc:"; readelf -d "$shim" | grep NEEDED; else ok; fi
module="$(dirname "$shim")/libandgate-hwloc.so"
if [ -e "$module" ]; then
  run topo OMP_NUM_THREADS=2 OMP_PROC_BIND=true ANDGATE_VERBOSE=1 ANDGATE_TOPOLOGY=hwloc LD_PRELOAD="$shim"
  finished topo "ANDGATE_TOPOLOGY=hwloc" && same topo ref "ANDGATE_TOPOLOGY=hwloc"
  if told_topology hwloc; then ok; else
    no "ANDGATE_TOPOLOGY=hwloc: no team line saying topology hwloc:"; head -2 "$tmp/topo.err"; fi
  mkdir "$tmp/lone" && cp "$shim" "$tmp/lone/"
  run topo OMP_NUM_THREADS=2 OMP_PROC_BIND=true ANDGATE_VERBOSE=1 ANDGATE_TOPOLOGY=hwloc \
    LD_PRELOAD="$tmp/lone/$(basename "$shim")"
  finished topo "ANDGATE_TOPOLOGY=hwloc, no module" && same topo ref "ANDGATE_TOPOLOGY=hwloc, no module"
  if [ "$(grep -c '^andgate-preload: hwloc not loaded (.*libandgate-hwloc.so' "$tmp/topo.err")" = 1 ] &&
    told_topology sysfs; then ok; else
    no "ANDGATE_TOPOLOGY=hwloc without the module: wanted one 'hwloc not loaded' line, then sysfs:"
    head -3 "$tmp/topo.err"; fi
fi

# The off switches: the shim loaded but idle for OpenMP, silently.
for off in ANDGATE_PRELOAD=0 "$own=0"; do
  run off OMP_NUM_THREADS=2 OMP_PROC_BIND=true ANDGATE_VERBOSE=1 "$off" LD_PRELOAD="$shim"
  finished off "$off" && same off ref "$off"
  if grep -q '^andgate-preload:' "$tmp/off.err"; then no "$off: the shim still spoke:"; head -2 "$tmp/off.err"; else ok; fi
done

finish
