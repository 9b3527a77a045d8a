#!/usr/bin/env python3
"""The OpenMP runtime's own test suite, run alone and under libandgate-preload.so (docs/preload.md, "Testing").

Usage: scripts/omp_testsuite.py gcc|gfortran [--shim PATH] [--work DIR] [--modes t2,bind,t4,t3] [--jobs N]

libgomp's run tests of the installed gcc's release, taken from the Debian source package (`apt-get source
gcc-N`: deb-src must be enabled): gcc, those of libgomp.c, libgomp.c-c++-common (as C) and libgomp.c++;
gfortran, those of libgomp.fortran. Each test is
built as DejaGnu's libgomp.exp builds it (-fopenmp -O2, its dg-options and dg-additional-options, its
dg-additional-sources) and run with its dg-set-target-env-var settings in every mode, once alone and once
with the shim preloaded: t2 (the default team, one thread per CPU), bind (OMP_PROC_BIND=true), t3 and t4
(OMP_NUM_THREADS). Tests for an offload device, or that only compile or link, are left out. A test whose
exit status differs between the two runs is printed with the end of its output; the exit status is 1 if
any differs, 0 if none does, 2 for bad usage.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = {'t2': {}, 'bind': {'OMP_PROC_BIND': 'true'},
         't3': {'OMP_NUM_THREADS': '3'}, 't4': {'OMP_NUM_THREADS': '4'}}
SUITES = {'gcc': [('libgomp.c', 'gcc'), ('libgomp.c-c++-common', 'gcc'), ('libgomp.c++', 'g++')],
          'gfortran': [('libgomp.fortran', 'gfortran')]}
SOURCES = ('.c', '.C', '.f', '.F', '.f90', '.F90', '.f95', '.f03')
DEVICE = ('offload', 'nvptx', 'amdgcn', 'openacc', 'hsa')


def usage(msg):
    print(f'omp_testsuite.py: {msg}', file=sys.stderr)
    sys.exit(2)


def sources(work):
    """The testsuite directory of the installed gcc's release, fetched and unpacked into WORK once."""
    major = subprocess.run(['gcc', '-dumpversion'], capture_output=True, text=True).stdout.strip().split('.')[0]
    found = glob.glob(os.path.join(work, f'gcc-{major}.*', 'libgomp', 'testsuite'))
    if found:
        return found[0]
    os.makedirs(work, exist_ok=True)
    r = subprocess.run(['apt-get', 'source', '--download-only', f'gcc-{major}'], cwd=work, capture_output=True,
                       text=True)
    orig = glob.glob(os.path.join(work, f'gcc-{major}_*.orig.tar.*'))
    if r.returncode or not orig:
        usage(f'apt-get source gcc-{major} failed (enable deb-src in /etc/apt/sources.list.d): '
              f'{r.stderr.strip()[-200:]}')
    inner = subprocess.run(['tar', 'tf', orig[0]], capture_output=True, text=True).stdout.split()
    inner = [f for f in inner if re.search(r'/gcc-[0-9.]+(-dfsg)?\.tar\.xz$', f)]
    if inner:  # Debian's orig tarball holds the release's own tarball
        subprocess.run(['tar', 'xf', orig[0], '-C', work, inner[0]], check=True)
        tarball, members = os.path.join(work, inner[0]), ['gcc-*/libgomp/testsuite/*', 'gcc-*/libgomp/*.h']
    else:
        tarball, members = orig[0], ['*/libgomp/testsuite/*', '*/libgomp/*.h']
    subprocess.run(['tar', 'xf', tarball, '-C', work, '--wildcards'] + members, check=True)
    return glob.glob(os.path.join(work, f'gcc-{major}.*', 'libgomp', 'testsuite'))[0]


def directive_arg(arg):
    """A dg- directive's first argument: a quoted string or a word."""
    m = re.match(r'"([^"]*)"', arg) or re.match(r'\{([^}]*)\}', arg) or re.match(r'(\S+)', arg)
    return m.group(1) if m else ''


def plan(path):
    """How DejaGnu would build and run the test, or None when it is not a host run test."""
    src = open(path, errors='replace').read()
    d = {'opts': [], 'env': {}, 'srcs': []}
    for name, arg in re.findall(r'\{\s*(dg-[a-z-]+)\s+([^\n]*?)\s*\}\s*(?:\*/)?\s*$', src, re.M):
        if name == 'dg-do':
            if directive_arg(arg) != 'run' or any(s in arg for s in DEVICE):
                return None
        elif name in ('dg-options', 'dg-additional-options'):
            other_target = 'target' in arg and (not re.search(r'x86_64|\*-\*-linux|lp64', arg) or 'ia32' in arg)
            if not any(s in arg for s in DEVICE) and not other_target:
                d['opts'] += directive_arg(arg).split()
        elif name == 'dg-require-effective-target' and directive_arg(arg).startswith(DEVICE + ('avx512',)):
            return None
        elif name == 'dg-set-target-env-var':
            m = re.match(r'(\S+)\s+"([^"]*)"', arg)
            if m:
                d['env'][m.group(1)] = m.group(2)
        elif name == 'dg-additional-sources':
            d['srcs'].append(os.path.join(os.path.dirname(path), directive_arg(arg).split()[0]))
    # a C or C++ file without main is another test's extra source; a Fortran file may be a main program
    # without a PROGRAM statement, and one that is not fails to link (left out as not built)
    fortran = not path.endswith(('.c', '.C'))
    return d if fortran or re.search(r'\bmain\s*\(', src) else None


def build(testsuite, suite, out, jobs):
    items = [(os.path.join(testsuite, dn, f), cc, f'{dn}/{f}') for dn, cc in SUITES[suite]
             for f in sorted(os.listdir(os.path.join(testsuite, dn))) if f.endswith(SOURCES)]

    def one(item):
        path, cc, rel = item
        d = plan(path)
        if d is None:
            return rel, None
        d['exe'] = os.path.join(out, rel.replace('/', '__') + '.x')
        # the test's directory, and libgomp's for the tests that call its entry points (libgomp_g.h)
        incs = ['-I' + os.path.dirname(path), '-I' + os.path.dirname(testsuite)]
        cmd = [cc, '-fopenmp', '-O2'] + incs + [path] + d['srcs'] + d['opts']
        if cc == 'gfortran':  # each test's modules in a folder of its own (tests are built in parallel)
            os.makedirs(d['exe'] + '.mod', exist_ok=True)
            cmd += ['-J', d['exe'] + '.mod']
        cmd = [c for c in cmd if not c.startswith('-foffload')] + ['-o', d['exe'], '-lm', '-latomic']
        r = subprocess.run(cmd, capture_output=True, text=True)
        return rel, d if r.returncode == 0 else {'build_error': r.stderr[-300:]}

    with cf.ThreadPoolExecutor(jobs) as ex:
        plans = {rel: d for rel, d in ex.map(one, items) if d is not None}
    return plans


def run_one(d, mode, shim):
    env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD' and not k.startswith(('OMP_', 'ANDGATE_'))}
    env.update(MODES[mode])
    env.update(d['env'])
    if shim:
        env['LD_PRELOAD'] = shim
    with tempfile.TemporaryDirectory() as cwd:  # tests that write files, run side by side, each its own
        try:
            r = subprocess.run([d['exe']], env=env, capture_output=True, timeout=120, cwd=cwd)
            return r.returncode, (r.stdout + r.stderr)[-300:].decode(errors='replace')
        except subprocess.TimeoutExpired:
            return 'timeout', ''


def main():
    ap = argparse.ArgumentParser(description='the OpenMP runtime test suite alone and under the shim')
    ap.add_argument('suite', choices=sorted(SUITES))
    ap.add_argument('--shim', default=os.path.join(ROOT, 'build', 'lib', 'libandgate-preload.so'))
    ap.add_argument('--work', default='/tmp/andgate-omp-testsuite')
    ap.add_argument('--modes', default='t2,bind,t4,t3')
    ap.add_argument('--jobs', type=int, default=2)
    a = ap.parse_args()
    modes = a.modes.split(',')
    if any(m not in MODES for m in modes):
        usage(f'--modes: expected a comma-separated list of {", ".join(MODES)}, got {a.modes!r}')
    if not os.path.exists(a.shim):
        usage(f'--shim: {a.shim} does not exist (run make first)')
    testsuite = sources(a.work)
    out = os.path.join(a.work, 'bin-' + a.suite)
    os.makedirs(out, exist_ok=True)
    if not shutil.which(SUITES[a.suite][0][1]):
        usage(f'{SUITES[a.suite][0][1]} is not installed')
    plans = build(testsuite, a.suite, out, a.jobs)
    built = {rel: d for rel, d in plans.items() if 'exe' in d}
    print(f'{len(built)} of {len(plans)} run tests built ({testsuite})')
    for rel, d in sorted(plans.items()):
        if 'exe' not in d:
            print(f'not built: {rel}: {d["build_error"].splitlines()[-1] if d["build_error"] else ""}')
    jobs = [(rel, m, s) for rel in built for m in modes for s in ('', a.shim)]
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        res = dict(zip(jobs, ex.map(lambda j: run_one(built[j[0]], j[1], j[2]), jobs)))
    differ = 0
    for rel in sorted(built):
        for m in modes:
            alone, shim = res[(rel, m, '')], res[(rel, m, a.shim)]
            if alone[0] != shim[0]:
                differ += 1
                print(f'DIFFER {rel} [{m}]: alone {alone[0]}, shim {shim[0]}: {shim[1].strip()[-200:]!r}')
    fail = sum(1 for (rel, m, s), r in res.items() if not s and r[0] != 0)
    json.dump({f'{rel} {m} {"shim" if s else "alone"}': r[0] for (rel, m, s), r in res.items()},
              open(os.path.join(a.work, f'results-{a.suite}.json'), 'w'), indent=0)
    print(f'{len(built)} tests x {len(modes)} modes: {fail} nonzero exits alone, {differ} differ under the shim')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
