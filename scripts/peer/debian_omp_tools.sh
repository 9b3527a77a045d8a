#!/bin/bash
# debian_omp_tools.sh — twelve OpenMP programs as Debian ships them (gcc/libgomp, unmodified binaries),
# each run with and without libandgate-preload.so by `andgate bench --preload` (docs/results.md,
# twenty-ninth and thirtieth parts): IQ-TREE 2 and FastTree (maximum-likelihood tree searches), CDO
# (conservative regridding), G'MIC (an image filter chain), R's data.table (read, group, order), MMseqs2
# (a protein search: a workflow of processes), Clustal Omega and MUSCLE 5 (multiple alignment), CD-HIT
# (protein clustering), RawTherapee (a photo pipeline), enfuse (exposure fusion) and CP2K (a DFT single
# point, one MPI rank). The inputs are made here, from fixed seeds; every command's stdout (a result or a
# checksum of its output file) is compared.
#   apt-get install iqtree cdo gmic r-cran-data.table mmseqs2 clustalo muscle fasttree cd-hit \
#       rawtherapee enblend cp2k
#   scripts/peer/debian_omp_tools.sh [WORKDIR [REPEAT]]     (default /tmp/ag-peer-tools, 5)
# ONLY="fasttree cdhit" runs only those (the names before the first '-' of the bench() calls below), and
# makes only the inputs that need a tool of their own (CDO's fields, the photo and enfuse's reference).
# MMseqs2 refuses to run with OMP_PROC_BIND set, so it runs unbound only. CD-HIT's cluster lists (.clstr)
# differ between two plain runs at 2 threads (a sequence within the threshold of two representatives joins
# either), so its representatives are compared; enfuse dithers at random (pixels differ by 1 between two
# plain runs), so its result is compared with a plain one-thread run, to within 1; CP2K's energy differs
# in its last digits between plain runs, so it is compared to 10 decimals.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
ag=${AG:-$here/build/bin/andgate}
W=${1:-/tmp/ag-peer-tools}
R=${2:-5}
mkdir -p "$W"
cd "$W"
wanted() { # NAME...: whether one of them is to run (every one, without ONLY)
    [[ -z ${ONLY:-} ]] && return 0
    local n
    for n; do [[ " $ONLY " == *" $n "* ]] && return 0; done
    return 1
}

# DNA: N sequences of length L, each a mutated copy (4 % of sites) of an earlier one; the unaligned
# copy drops 1 % of the residues. Proteins: 3000 database and 600 query sequences from 400 families.
python3 - "$W" <<'PY'
import random, sys
w = sys.argv[1]
def dna(n, l, aln, raw):
    random.seed(7)
    seqs = [[random.choice("ACGT") for _ in range(l)]]
    while len(seqs) < n:
        s = list(random.choice(seqs))
        for i in range(len(s)):
            if random.random() < 0.04:
                s[i] = random.choice("ACGT")
        seqs.append(s)
    with open(f"{w}/{aln}", "w") as a, open(f"{w}/{raw}", "w") as r:
        for k, s in enumerate(seqs):
            a.write(f">t{k}\n{''.join(s)}\n")
            r.write(f">t{k}\n{''.join(c for c in s if random.random() > 0.01)}\n")
dna(300, 3000, "aln300.fa", "raw300.fa")
dna(200, 600, "aln200.fa", "raw200.fa")
dna(30, 300, "aln30.fa", "raw30.fa")
random.seed(3)
AA = "ACDEFGHIKLMNPQRSTVWY"
fam = [[random.choice(AA) for _ in range(random.randint(150, 400))] for _ in range(400)]
mut = lambda f: "".join(random.choice(AA) if random.random() < 0.25 else c for c in f)
with open(f"{w}/q.fa", "w") as q, open(f"{w}/db.fa", "w") as d:
    for k in range(3000):
        d.write(f">d{k}\n{mut(fam[k % 400])}\n")
    for k in range(600):
        q.write(f">q{k}\n{mut(fam[(k * 7) % 400])}\n")
random.seed(5)
fam = [[random.choice(AA) for _ in range(random.randint(150, 400))] for _ in range(2000)]
with open(f"{w}/db20k.fa", "w") as d:
    for k in range(20000):
        d.write(f">d{k}\n{''.join(random.choice(AA) if random.random() < 0.08 else c for c in fam[k % 2000])}\n")
PY
if wanted cdo; then
    cdo -s -O -f nc -settaxis,2000-01-01,00:00,1day -random,r720x360,7 one.nc
    cdo -s -O duplicate,40 one.nc in40.nc
fi
cat > "$W/gmic.sh" <<EOF
#!/bin/sh
gmic -v - 3000,3000,1,3 -fill '(x*7+y*13+c*91+x*y)%256' -blur 2 -sharpen 50 -rotate 17 -resize 70%,70% \
  -erode 3 -median 3 -output $W/g.png && md5sum $W/g.png
EOF
cat > "$W/dt.R" <<EOF
suppressMessages(library(data.table))
setDTthreads(as.integer(Sys.getenv("DT_THREADS", "2")))
set.seed(11)
if (!file.exists("$W/dt.csv")) {
  n <- 4e6
  fwrite(data.table(id = sample(1e5, n, TRUE), g = sample(letters, n, TRUE), x = runif(n), y = rnorm(n)), "$W/dt.csv")
}
d <- fread("$W/dt.csv")
s <- 0
for (r in 1:5) {
  a <- d[, .(sx = sum(x), my = mean(y), n = .N), by = .(id, g)]
  setorder(a, -sx, id, g)
  b <- d[order(g, -y)][, head(.SD, 2), by = g]
  s <- s + sum(a\$n) + round(sum(a\$sx), 3) + nrow(b)
}
e <- d[id %between% c(100, 5000)][, .N, keyby = g]
cat(getDTthreads(), format(s, digits = 15), sum(e\$N), "\n")
EOF
cat > "$W/mmseqs.sh" <<EOF
#!/bin/sh
rm -rf $W/mmtmp $W/res.m8
mmseqs easy-search $W/q.fa $W/db.fa $W/res.m8 $W/mmtmp --threads \${T:-2} -v 1 >/dev/null && sort $W/res.m8 | md5sum
EOF
cat > "$W/clustalo.sh" <<EOF
#!/bin/sh
clustalo -i $W/raw200.fa --threads=2 -o $W/cl.fa --force && md5sum $W/cl.fa
EOF
cat > "$W/muscle.sh" <<EOF
#!/bin/sh
muscle -align $W/raw30.fa -output $W/mu.afa -threads 2 -quiet >/dev/null 2>&1 && md5sum $W/mu.afa
EOF
# a 4000 x 3000 photo and three exposures of it, then enfuse's plain one-thread result to compare with
if wanted rawtherapee enfuse; then
    gmic -v - 4000,3000,1,3 -fill '(x*7+y*13+c*91+x*y/7)%256' -blur 1.5 -output "$W/in.tif,uchar"
fi
if wanted enfuse; then
    for e in 0.5 1 1.8; do gmic -v - "$W/in.tif" -mul $e -cut 0,255 -output "$W/ex$e.tif,uchar"; done
    OMP_NUM_THREADS=1 enfuse -o "$W/fused-ref.tif" "$W"/ex0.5.tif "$W"/ex1.tif "$W"/ex1.8.tif >/dev/null 2>&1
fi
cat > "$W/cdhit.sh" <<EOF
#!/bin/sh
cd-hit -i $W/db20k.fa -o $W/cdh -c 0.9 -n 5 -T \${T:-2} -M 2000 >/dev/null && md5sum < $W/cdh
EOF
cat > "$W/rawtherapee.sh" <<EOF
#!/bin/sh
rawtherapee-cli -q -Y -d -t -o $W/rt.tif -c $W/in.tif >/dev/null && md5sum < $W/rt.tif
EOF
cat > "$W/enfuse.sh" <<EOF
#!/bin/sh
enfuse -o $W/fused.tif $W/ex0.5.tif $W/ex1.tif $W/ex1.8.tif >/dev/null 2>&1 || exit 1
m=\$(gmic -v - $W/fused-ref.tif $W/fused.tif -sub -abs -echo_stdout '{iM}')
[ "\$m" -le 1 ] && echo "within 1 of the one-thread result" || echo "differs by \$m"
EOF
# CP2K: PBE, one water molecule, DZVP-MOLOPT, 280 Ry, a 9 A box (13 SCF steps); each run in a fresh
# directory (cp2k appends to its output file)
cat > "$W/h2o.inp" <<EOF
&GLOBAL
  PROJECT h2o
  RUN_TYPE ENERGY
  PRINT_LEVEL LOW
&END GLOBAL
&FORCE_EVAL
  METHOD Quickstep
  &DFT
    BASIS_SET_FILE_NAME BASIS_MOLOPT
    POTENTIAL_FILE_NAME GTH_POTENTIALS
    &MGRID
      CUTOFF 280
      REL_CUTOFF 40
    &END MGRID
    &QS
      EPS_DEFAULT 1.0E-10
    &END QS
    &SCF
      SCF_GUESS ATOMIC
      EPS_SCF 1.0E-7
      MAX_SCF 50
    &END SCF
    &XC
      &XC_FUNCTIONAL PBE
      &END XC_FUNCTIONAL
    &END XC
  &END DFT
  &SUBSYS
    &CELL
      ABC 9.0 9.0 9.0
    &END CELL
    &COORD
      O   0.000000    0.000000   -0.065587
      H   0.000000   -0.757136    0.520545
      H   0.000000    0.757136    0.520545
    &END COORD
    &KIND H
      BASIS_SET DZVP-MOLOPT-GTH
      POTENTIAL GTH-PBE-q1
    &END KIND
    &KIND O
      BASIS_SET DZVP-MOLOPT-GTH
      POTENTIAL GTH-PBE-q6
    &END KIND
  &END SUBSYS
&END FORCE_EVAL
EOF
cat > "$W/cp2k.sh" <<EOF
#!/bin/sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
d=\$(mktemp -d $W/cp2k.XXXXXX) && cd "\$d" && cp2k.psmp -i $W/h2o.inp -o x.out >/dev/null 2>&1 &&
  awk '/ENERGY\| Total/ {printf "%.10f\\n", \$NF}' x.out
rc=\$?; rm -rf "\$d"; exit \$rc
EOF
chmod +x "$W"/*.sh

bench() { # NAME COMMAND [VAR=VALUE ...]: the result in $W/NAME.json, its table row on stdout
    local name=$1 cmd=$2
    shift 2
    wanted "${name%%-*}" || return 0
    env "$@" "$ag" bench --preload "$cmd" --repeat "$R" --json "$W/$name.json" | tail -1
}
for b in false true; do
    bench iqtree-bind-$b "iqtree2 -s $W/aln300.fa -m GTR+G4 -T 2 -seed 1 -redo -fast -pre $W/iq -quiet" OMP_PROC_BIND=$b
    bench cdo-bind-$b "cdo -s -O -P 2 remapcon,r1080x540 $W/in40.nc $W/o.nc" OMP_PROC_BIND=$b
    bench gmic-bind-$b "$W/gmic.sh" OMP_PROC_BIND=$b
    bench datatable-bind-$b "Rscript $W/dt.R" OMP_PROC_BIND=$b
    bench fasttree-bind-$b "fasttreeMP -nt -gtr -quiet $W/aln200.fa" OMP_PROC_BIND=$b
    bench cdhit-bind-$b "$W/cdhit.sh" OMP_PROC_BIND=$b
    bench rawtherapee-bind-$b "$W/rawtherapee.sh" OMP_PROC_BIND=$b
    bench enfuse-bind-$b "$W/enfuse.sh" OMP_PROC_BIND=$b
    bench cp2k-bind-$b "$W/cp2k.sh" OMP_PROC_BIND=$b
done
bench mmseqs-bind-false "$W/mmseqs.sh" OMP_PROC_BIND=false
bench clustalo-bind-false "$W/clustalo.sh" OMP_PROC_BIND=false
bench muscle-bind-false "$W/muscle.sh" OMP_PROC_BIND=false
# more threads than CPUs (IQ-TREE 2 refuses -T above the cores)
bench cdo-4 "cdo -s -O -P 4 remapcon,r1080x540 $W/in40.nc $W/o.nc"
bench gmic-4 "$W/gmic.sh" OMP_NUM_THREADS=4
bench datatable-4 "Rscript $W/dt.R" DT_THREADS=4
bench fasttree-4 "fasttreeMP -nt -gtr -quiet $W/aln200.fa" OMP_NUM_THREADS=4
bench cdhit-4 "$W/cdhit.sh" T=4
bench rawtherapee-4 "$W/rawtherapee.sh" OMP_NUM_THREADS=4
bench enfuse-4 "$W/enfuse.sh" OMP_NUM_THREADS=4
