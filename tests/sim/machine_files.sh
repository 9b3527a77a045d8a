#!/usr/bin/env bash
# Machine descriptions: every shipped file loads; a malformed or inconsistent copy is refused by
# `andgate sim --machine FILE` (exit 2) with a message naming the JSON field.
set -euo pipefail
build=$1 src=$2
sim="$build/bin/andgate sim"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0 fail=0
for f in "$src"/sim/machines/*.json; do
  name=$(basename "$f" .json)
  [ "$name" = schema ] && continue
  if $sim --machine "$name" --algos central --threads 2 --episodes 3 --quiet --json /dev/null; then
    pass=$((pass + 1))
  else
    echo "FAIL: shipped machine $name does not load"; fail=$((fail + 1))
  fi
done
# mutation name | machine | python statement on d | text the message must contain
python3 - "$src/sim/machines" "$out" <<'PY'
import json, sys, pathlib
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
cases = [
    ("threads", "kunpeng920", "d['topology']['hardware_threads']['value'] = 65",
     "$.topology.hardware_threads.value: 65, but the level counts multiply to 64"),
    ("nothreads", "kunpeng920", "del d['topology']['hardware_threads']", "$.topology.hardware_threads: missing"),
    ("strlat", "kunpeng920", "d['latency_layers'][1]['latency']['value'] = '14'",
     "$.latency_layers[1].latency.value: must be a number"),
    ("neglat", "phytium2000", "d['latency_layers'][3]['latency']['value'] = -1",
     "$.latency_layers[3].latency.value: must be a finite number, not negative"),
    ("nosource", "kunpeng920", "del d['latency_layers'][0]['latency']['source']",
     "$.latency_layers[0].latency.source"),
    ("badref", "kunpeng920", "d['layer_map']['by_shared_level']['ccl'] = 'L9'",
     "$.layer_map.by_shared_level.ccl: 'L9' is not a layer id"),
    ("alpha", "kunpeng920", "d['coherence']['invalidation']['alpha']['L1']['value'] = 1.5",
     "$.coherence.invalidation.alpha.L1.value: 1.5 is not in [0, 1]"),
    ("noalpha", "thunderx2", "del d['coherence']['invalidation']['alpha']['L0']",
     "$.coherence.invalidation.alpha.L0: missing"),
    ("clock", "knl7210", "d['interconnect']['hop']['router']['clock'] = 'warp'",
     "$.interconnect.hop.router.clock: clock domain 'warp' is not in $.clock"),
    ("positions", "knl7210", "d['interconnect']['coordinates']['positions'].pop()",
     "$.interconnect.coordinates.positions: 31 entries for 32 tile units"),
    ("samepos", "tile64", "d['interconnect']['coordinates']['positions'][5] = [0, 0]",
     "$.interconnect.coordinates.positions[5]: same place as [0]"),
    ("matrix", "xeon8160x8", "d['layer_map']['unit_matrix']['layers'].pop()",
     "$.layer_map.unit_matrix.layers: 7 rows for 8 socket units"),
    ("format", "tile64", "d['format'] = 'andgate-machine/9'", "$.format: 'andgate-machine/9'"),
    ("levels", "tile64", "d['topology']['levels'].reverse()", "$.topology.levels: the first level must be 'socket'"),
    ("line", "tile64", "d['cache_line']['value'] = 48", "$.cache_line.value: 48 bytes"),
    ("path", "tile64", "d['latency_layers'][1]['path'] = 'teleport'", "$.latency_layers[1].path: 'teleport'"),
    ("unit", "kunpeng920", "d['latency_layers'][2]['latency']['unit'] = 'GHz'",
     "$.latency_layers[2].latency.unit: 'GHz' where ns or cycles was expected"),
    # found by review: each of these used to crash the loader or the engine
    ("clockcycles", "kunpeng920", "d['clock']['core']['unit'] = 'cycles'",
     "$.clock.core.unit: 'cycles' where GHz or MHz was expected"),
    ("clockself", "xeonphi5110p", "d['clock']['ring'].update(unit='cycles', clock='ring')",
     "$.clock.ring.unit: 'cycles' where GHz or MHz was expected"),
    ("hugering", "xeonphi5110p", "d['interconnect']['dims'][0]['value'] = 4294967296",
     "$.interconnect.dims[0].value: 4.29497e+09 is larger than the simulator models"),
    ("hugecount", "tile64", "d['topology']['levels'][1]['count']['value'] = 1e300",
     "$.topology.levels[1].count.value: 1e+300 is larger than the simulator models (at most 10^9 count)"),
    ("asym", "xeon8160x8", "d['layer_map']['unit_matrix']['layers'][0][1] = 'upi2'",
     "$.layer_map.unit_matrix.layers[0][1]: differs from [1][0]"),
    ("diag", "xeon8160x8", "d['layer_map']['unit_matrix']['layers'][2][2] = 'upi1'",
     "$.layer_map.unit_matrix.layers[2][2]: must be null (the diagonal)"),
    ("bylevel", "kunpeng920", "d['layer_map']['by_shared_level']['cluster'] = 'L0'",
     "$.layer_map.by_shared_level.cluster: not a topology level"),
    # issue 11: a latency far beyond any machine, devices that are not objects, bad device quantities
    ("hugelat", "kunpeng920", "d['latency_layers'][1]['latency']['value'] = 1e300",
     "$.latency_layers[1].latency.value: 1e+300 is larger than the simulator models (at most 10^9 ns)"),
    ("hugecycles", "knl7210", "d['latency_layers'][2]['base']['value'] = 1e300",
     "$.latency_layers[2].base.value: 1e+300 is larger than the simulator models (at most 10^9 cycles)"),
    ("devarray", "tile64", "d['devices'] = [1, 2]", "$.devices: must be an object of devices"),
    ("devnum", "tile64", "d['devices']['reflex'] = 5", "$.devices.reflex: must be an object"),
    ("devstr", "kunpeng920", "d['devices'] = {'hbs': 'fast'}", "$.devices.hbs: must be an object"),
    ("devhuge", "xeon8160x8", "d['devices']['hbs']['access']['value'] = 1e300",
     "$.devices.hbs.access.value: 1e+300 is larger than the simulator models"),
    ("devneg", "harp-broadwell", "d['devices']['afu']['interconnect_parallelism']['value'] = -3",
     "$.devices.afu.interconnect_parallelism.value: must be a finite number, not negative"),
    ("devnosrc", "noc64", "del d['devices']['subutai_ni']['c']['source']",
     "$.devices.subutai_ni.c.source: every number needs its source"),
    ("fastclock", "knl7210", "d['clock']['core']['value'] = 5000",
     "$.clock.core.value: 5000 GHz; a clock of at most 100 GHz was expected"),
    # the os block (andgate info --measure writes it): an object of known time quantities
    ("osarray", "kunpeng920", "d['os'] = [1]", "$.os: must be an object of time quantities"),
    ("osname", "kunpeng920", "d['os'] = {'futex_sleep': {'value': 1, 'unit': 'ns', 'source': 'a test value'}}",
     "$.os.futex_sleep: unknown entry; expected futex_wait"),
    ("osunit", "kunpeng920", "d['os'] = {'wakeup': {'value': 1, 'unit': 'count', 'source': 'a test value'}}",
     "$.os.wakeup.unit: 'count' where ns or cycles was expected"),
    ("devqty", "knl7210", "d['devices']['hbs']['message_interval'] = 'fast'",
     "$.devices.hbs.message_interval: must be a quantity"),
    ("negcount", "tile64", "d['topology']['levels'][1]['count']['value'] = -4",
     "$.topology.levels[1].count.value: must be a finite number, not negative"),
    # issue 12 item 1: the directory occupancy and the per-sharer invalidation cost
    ("occlevel", "phytium2000", "d['coherence']['occupancy']['slices'] = 'chiplet'",
     "$.coherence.occupancy.slices: 'chiplet' is not a level of $.topology.levels"),
    ("occnoreq", "kunpeng920", "del d['coherence']['occupancy']['request']", "$.coherence.occupancy.request"),
    ("occarray", "kunpeng920", "d['coherence']['occupancy'] = [1]",
     "$.coherence.occupancy: expected an object with slices and request"),
    ("pershneg", "thunderx2", "d['coherence']['invalidation']['per_sharer']['value'] = -2",
     "$.coherence.invalidation.per_sharer.value: must be a finite number, not negative"),
    ("pershunit", "thunderx2", "d['coherence']['invalidation']['per_sharer']['unit'] = 'count'",
     "$.coherence.invalidation.per_sharer.unit: 'count' where ns or cycles was expected"),
    ("nonehome", "kunpeng920", "d['coherence']['invalidation'] = {'model': 'none'}",
     "$.coherence.invalidation.model: 'none' (every access at the line's home) needs"),
    # issue 12 item 1: link occupancy and three-leg home paths
    ("linklevel", "phytium2000", "d['interconnect']['links'][0]['between'] = 'quadrant'",
     "$.interconnect.links[0].between: 'quadrant' is not a level of $.topology.levels"),
    ("linknotime", "kunpeng920", "d['interconnect']['links'][1]['transfer']['unit'] = 'GB/s'",
     "$.interconnect.links[1].transfer.unit"),
    ("linkzero", "xeon8160x8", "d['interconnect']['links'][0]['count']['value'] = 0",
     "$.interconnect.links[0].count.value: a port needs at least one link"),
    ("linkobj", "thunderx2", "d['interconnect']['links'] = {'between': 'socket'}",
     "$.interconnect.links: must be an array of at most 8 link classes"),
    ("legbase", "opteron6272x4", "d['coherence']['three_leg']['base'] = 'ht9'",
     "$.coherence.three_leg.base: 'ht9' is not a layer id of $.latency_layers"),
    ("leghome", "xeon8160x8", "d['coherence']['three_leg']['home'] = 'first-touch'",
     "$.coherence.three_leg.home: 'first-touch'; expected init or hash"),
    ("smtshare", "knl7210", "d['coherence']['smt_issue']['share']['value'] = 2",
     "$.coherence.smt_issue.share.value: 2 is not in [0, 1]"),
    ("legnoc", "knl7210", "d['coherence']['three_leg'] = {'level': 'tile', 'home': 'hash', 'base': 'tile'}",
     "$.coherence.three_leg: for machines of fixed layers"),
    # issue 12: the host's cold and paused transfers (andgate info --measure writes them; others may too)
    ("coldlayer", "kunpeng920", "d['coherence']['cold_transfer'] = {'L9': {'value': 5, 'unit': 'ns', 'source': 'assumed: a test'}}",
     "$.coherence.cold_transfer.L9: not a layer id of $.latency_layers"),
    ("pausedzero", "kunpeng920",
     "d['coherence']['paused_transfer'] = {d['latency_layers'][1]['id']: {'value': 0, 'unit': 'ns', 'source': 'assumed: a test'}}",
     ".value: must be positive"),
    ("pausedarr", "phytium2000", "d['coherence']['paused_transfer'] = [30]",
     "$.coherence.paused_transfer: must be an object of time quantities by layer id"),
]
with open(out / "cases.txt", "w") as f:
    for name, machine, stmt, want in cases:
        d = json.loads((src / f"{machine}.json").read_text())
        exec(stmt)
        (out / f"{name}.json").write_text(json.dumps(d))
        f.write(f"{name}\t{want}\n")
(out / "truncated.json").write_text((src / "tile64.json").read_text()[:500])
with open(out / "cases.txt", "a") as f:
    f.write("truncated\ttruncated.json:\n")
PY
while IFS=$'\t' read -r name want; do
  set +e
  msg=$($sim --machine "$out/$name.json" --algos central --threads 2 --episodes 3 --quiet --json /dev/null 2>&1)
  rc=$?
  set -e
  if [ $rc -eq 2 ] && [[ "$msg" == *"$want"* ]]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: rc=$rc, message: $msg (wanted: $want)"; fail=$((fail + 1))
  fi
done < "$out/cases.txt"
# a name that is not there, and host before `andgate info --measure`
set +e
msg=$(ANDGATE_MACHINES=$out XDG_DATA_HOME=$out/none $sim --machine nosuch --quiet 2>&1); rc=$?
set -e
if [ $rc -eq 2 ] && [[ "$msg" == *"machine 'nosuch': no nosuch.json"* ]]; then pass=$((pass + 1)); else
  echo "FAIL nosuch: $msg"; fail=$((fail + 1)); fi
# --machines: the shipped ones, and a file in $ANDGATE_MACHINES under its own name
cp "$src/sim/machines/tile64.json" "$out/mytile.json"
list=$(ANDGATE_MACHINES=$out $sim --machines)
if [ "$(grep -c ' threads ' <<< "$list")" -ge 11 ] && grep -q "^mytile .* 64 threads" <<< "$list" &&
   grep -q "^kunpeng920 " <<< "$list"; then pass=$((pass + 1)); else
  echo "FAIL --machines: $list"; fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
