#!/usr/bin/env python3
"""Per barrier of a program's cycle: where its time goes, from libandgate-profile.so's dump (docs/bench.md).

Usage: scripts/profile_phases.py DUMP [--period P] [--skip N]

DUMP is the file ANDGATE_PROFILE_DUMP named: a '#' line per entry point, then one line per episode, the
episode and each thread's entry and return in ns. A program that runs the same P barriers over and over
(mg: 32 a V-cycle) has P phases; phase p is the work from episode k - 1's returns to episode k's entries,
k = p mod P. For each phase it prints the medians over the cycles of: the slower thread's work (its return
from the barrier before to its entry), the arrival spread (last entry minus first) and the last departure
(last return minus last entry), and the departure skew the phase started with (last return minus first at
the barrier before); then the sums of the per-phase medians. Without --period the whole run is one phase.
--skip drops the first N episodes (start-up). Every episode is checked to be a barrier: no thread returns
before the last entry; the count of those that are not is printed, and the exit status is 1 if any.
Bad usage or an unreadable dump: one line, exit 2.
"""
import argparse
import statistics
import sys


def usage(msg):
    print(f"profile_phases.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path):
    """(name, threads, [[in, out] per thread] per episode) for each entry point in the dump"""
    sites = []
    try:
        with open(path) as f:
            for no, line in enumerate(f, 1):
                if line.startswith("#"):
                    head = line[1:].split(",")
                    sites.append((head[0].strip(), int(head[1].split()[0]), []))
                    continue
                v = [int(x) for x in line.split()]
                if not sites or len(v) != 1 + 2 * sites[-1][1]:
                    usage(f"{path}:{no}: not a line of libandgate-profile.so's dump")
                sites[-1][2].append([v[1 + 2 * t: 3 + 2 * t] for t in range(sites[-1][1])])
    except (OSError, ValueError, IndexError) as e:
        usage(f"cannot read '{path}': {e}")
    if not sites:
        usage(f"'{path}' holds no episodes")
    return sites


def phases(eps, period, skip):
    """per phase: lists of (work, spread, last departure, skew) over the cycles"""
    rows = [[] for _ in range(period)]
    for k in range(max(skip, 1), len(eps)):
        prev, cur = eps[k - 1], eps[k]
        ins = [t[0] for t in cur]
        outs_prev = [t[1] for t in prev]
        work = max(t[0] - p[1] for t, p in zip(cur, prev))
        last_in = max(ins)
        rows[k % period].append((work, last_in - min(ins), max(t[1] for t in cur) - last_in,
                                 max(outs_prev) - min(outs_prev)))
    return rows


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        usage(f"{message} (usage: profile_phases.py DUMP [--period P] [--skip N])")


def main():
    ap = Parser(usage="scripts/profile_phases.py DUMP [--period P] [--skip N]", description=__doc__)
    ap.add_argument("dump")
    ap.add_argument("--period", type=int, default=1)
    ap.add_argument("--skip", type=int, default=0)
    a = ap.parse_args()
    if a.period < 1 or a.skip < 0:
        usage("--period wants 1 or more, --skip 0 or more")
    bad = 0
    for name, n, eps in read(a.dump):
        broken = sum(1 for e in eps if min(t[1] for t in e) < max(t[0] for t in e))
        bad += broken
        print(f"{name}, {n} threads, {len(eps)} episodes, period {a.period}, skip {a.skip}: "
              f"{broken} episodes where a thread returned before the last entry")
        print("phase  work_ns  spread_ns  last_departure_ns  skew_before_ns  cycles")
        sums = [0.0] * 4
        for p, r in enumerate(phases(eps, a.period, a.skip)):
            if not r:
                continue
            med = [statistics.median(x[i] for x in r) for i in range(4)]
            sums = [s + m for s, m in zip(sums, med)]
            print(f"{p:5d}  {med[0]:7.0f}  {med[1]:9.0f}  {med[2]:17.0f}  {med[3]:14.0f}  {len(r):6d}")
        print(f"  sum  {sums[0]:7.0f}  {sums[1]:9.0f}  {sums[2]:17.0f}  {sums[3]:14.0f}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
