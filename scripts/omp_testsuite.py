#!/usr/bin/env python3
"""The OpenMP runtime's own test suite, run alone and under libandgate-preload.so (docs/preload.md, "Testing").

Usage: scripts/omp_testsuite.py gcc|gfortran|libomp [--shim PATH] [--work DIR] [--modes t2,bind,t4,t3]
                                  [--jobs N] [--timeout SECONDS]

libgomp's run tests of the installed gcc's release, taken from the Debian source package (`apt-get source
gcc-N`: deb-src must be enabled): gcc, those of libgomp.c, libgomp.c-c++-common (as C) and libgomp.c++;
gfortran, those of libgomp.fortran. Each test is
built as DejaGnu's libgomp.exp builds it (-fopenmp -O2, its dg-options and dg-additional-options, its
dg-additional-sources) and run with its dg-set-target-env-var settings in every mode, once alone and once
with the shim preloaded: t2 (the default team, one thread per CPU), bind (OMP_PROC_BIND=true), t3 and t4
(OMP_NUM_THREADS). Tests for an offload device, or that only compile or link, are left out. A test whose
exit status differs between the two runs is printed with the end of its output, and one that passed both
ways but took three times as long and a second more under the shim is printed with its two times (run with
--jobs 1 to time); the exit status is 1 if any differs, 0 if none does, 2 for bad usage.

libomp: LLVM's OpenMP runtime tests (openmp/runtime/test, lit tests) of the installed clang's release (`apt-get
source llvm-toolchain-N`, of which only that folder and the src/kmp_platform.h it includes are unpacked), built
with clang-N against its libomp. Each test's RUN lines are substituted as its lit.cfg does (-O2; REQUIRES and
UNSUPPORTED against the features lit would find here) and run in order with bash -o pipefail, in a temporary
directory of its own; the test passes when all of them succeed (its result: 0, or how the first that failed
ended, e.g. `exit 1 at RUN 3`). %libomp-run runs the program with the mode's OMP_* settings (those the RUN line
sets win) and, under the shim, LD_PRELOAD=<shim> ahead of what the RUN line preloads. The ompt/ tests, and any
other test that pipes into FileCheck, need FileCheck-N (llvm-N-tools); without it they are left out and counted.
Most ompt/ tests define their tool (ompt_start_tool) in the executable, so libomp never asks the shim's: they
check that the shim stays out of the way. ompt/loadtool/tool_not_available.c's RUN lines 3-5 are expected to
differ: libomp's own OMP_TOOL_VERBOSE_INIT log reports the shim as a started tool. Every program run has a time
limit (--timeout, 120 s): a timeout on both sides is no difference, and the timeouts are counted; on 2 CPUs the
tasking tests omp_task, omp_task_final, omp_taskwait and omp_taskyield need about 150 s either way.
"""
import argparse
import concurrent.futures as cf
import glob
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = {'t2': {}, 'bind': {'OMP_PROC_BIND': 'true'},
         't3': {'OMP_NUM_THREADS': '3'}, 't4': {'OMP_NUM_THREADS': '4'}}
SUITES = {'gcc': [('libgomp.c', 'gcc'), ('libgomp.c-c++-common', 'gcc'), ('libgomp.c++', 'g++')],
          'gfortran': [('libgomp.fortran', 'gfortran')]}
SOURCES = ('.c', '.C', '.f', '.F', '.f90', '.F90', '.f95', '.f03')
DEVICE = ('offload', 'nvptx', 'amdgcn', 'openacc', 'hsa')
LLVM = '14'  # clang-14, libomp-14-dev and llvm-14-tools (FileCheck) of llvm-toolchain-14
LLVM_DIR = f'/usr/lib/llvm-{LLVM}'


def usage(msg):
    print(f'omp_testsuite.py: {msg}', file=sys.stderr)
    sys.exit(2)


def download_orig(work, package):
    """The upstream tarball of Debian source package PACKAGE, downloaded into WORK (apt-get source)."""
    os.makedirs(work, exist_ok=True)
    r = subprocess.run(['apt-get', 'source', '--download-only', package], cwd=work, capture_output=True,
                       text=True)
    orig = glob.glob(os.path.join(work, f'{package}_*.orig.tar.*'))
    if r.returncode or not orig:
        usage(f'apt-get source {package} failed (enable deb-src in /etc/apt/sources.list.d): '
              f'{r.stderr.strip()[-200:]}')
    return orig[0]


def sources(work):
    """The testsuite directory of the installed gcc's release, fetched and unpacked into WORK once."""
    major = subprocess.run(['gcc', '-dumpversion'], capture_output=True, text=True).stdout.strip().split('.')[0]
    found = glob.glob(os.path.join(work, f'gcc-{major}.*', 'libgomp', 'testsuite'))
    if found:
        return found[0]
    orig = download_orig(work, f'gcc-{major}')
    inner = subprocess.run(['tar', 'tf', orig], capture_output=True, text=True).stdout.split()
    inner = [f for f in inner if re.search(r'/gcc-[0-9.]+(-dfsg)?\.tar\.xz$', f)]
    if inner:  # Debian's orig tarball holds the release's own tarball
        subprocess.run(['tar', 'xf', orig, '-C', work, inner[0]], check=True)
        tarball, members = os.path.join(work, inner[0]), ['gcc-*/libgomp/testsuite/*', 'gcc-*/libgomp/*.h']
    else:
        tarball, members = orig, ['*/libgomp/testsuite/*', '*/libgomp/*.h']
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


def run_one(d, mode, shim, timeout=120):
    env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD' and not k.startswith(('OMP_', 'ANDGATE_'))}
    env.update(MODES[mode])
    env.update(d['env'])
    if shim:
        env['LD_PRELOAD'] = shim
    with tempfile.TemporaryDirectory() as cwd:  # tests that write files, run side by side, each its own
        t0 = time.monotonic()
        try:
            r = subprocess.run([d['exe']], env=env, capture_output=True, timeout=timeout, cwd=cwd)
            return r.returncode, (r.stdout + r.stderr)[-300:].decode(errors='replace'), time.monotonic() - t0
        except subprocess.TimeoutExpired:
            return 'timeout', '', time.monotonic() - t0


def llvm_sources(work):
    """openmp/runtime/test of the installed clang's release, fetched into WORK once (only what the tests need)."""
    pattern = os.path.join(work, f'llvm-toolchain-{LLVM}*', 'openmp', 'runtime', 'test')
    found = sorted(glob.glob(pattern))
    if found:
        return found[-1]
    orig = download_orig(work, f'llvm-toolchain-{LLVM}')
    members = ['*/openmp/runtime/test/*', '*/openmp/runtime/src/kmp_platform.h']  # the tests include that header
    subprocess.run(['tar', 'xf', orig, '-C', work, '--wildcards'] + members, check=True)
    found = sorted(glob.glob(pattern))
    if not found:
        usage(f'{orig} holds no llvm-toolchain-{LLVM}*/openmp/runtime/test')
    return found[-1]


def lit_parse(path):
    """A lit test's RUN lines (continuation lines joined) and the features it REQUIRES and is UNSUPPORTED on."""
    runs, cur, keys = [], '', {'REQUIRES': [], 'UNSUPPORTED': []}
    for line in open(path, errors='replace'):
        m = re.search(r'//\s*RUN:(.*)$', line)
        if m:
            cur += ' ' + m.group(1).strip()
            if cur.endswith('\\'):
                cur = cur[:-1]
            else:
                runs.append(cur.strip())
                cur = ''
            continue
        m = re.search(r'//\s*(REQUIRES|UNSUPPORTED):(.*)$', line)
        if m:
            keys[m.group(1)] += [f.strip() for f in m.group(2).split(',') if f.strip()]
    return runs, keys['REQUIRES'], keys['UNSUPPORTED']


def lit_tests(testdir, filecheck):
    """The tests to run, {path under TESTDIR: RUN lines}, and those left out, {path: why}."""
    version = re.search(r'version (\d+)\.(\d+)\.(\d+)', subprocess.run(
        [f'clang-{LLVM}', '--version'], capture_output=True, text=True).stdout).groups()
    features = {'clang', 'linux', 'affinity'} | {'clang-' + '.'.join(version[:n]) for n in (1, 2, 3)}
    features |= {'multicpu'} if (os.cpu_count() or 1) > 1 else set()
    features |= {'ompt'} if filecheck else set()  # lit.cfg: no OMPT tests without FileCheck
    tests, left = {}, {}
    for d, _, files in os.walk(testdir):
        for f in files:
            if not f.endswith(('.c', '.cpp')):
                continue
            rel = os.path.relpath(os.path.join(d, f), testdir)
            runs, req, unsup = lit_parse(os.path.join(d, f))
            why = [f'REQUIRES {r}' for r in req if r not in features]
            why += [f'UNSUPPORTED {u}' for u in unsup if u in features]
            why += ['needs FileCheck' for r in runs if 'FileCheck' in r and not filecheck][:1]
            if why:
                left[rel] = why[0]
            elif runs:  # a file without RUN lines is another test's part
                tests[rel] = runs
    return tests, left


def lit_subst(line, testdir, src, tdir, run, filecheck):
    """A RUN line as lit.cfg and lit substitute it; %libomp-run becomes RUN (the program, run for the mode)."""
    libs = ' -lm'
    flags = f' -O2 -I {testdir} -L {LLVM_DIR}/lib' + (f' -I {testdir}/ompt' if filecheck else '')
    t = os.path.join(tdir, 't')
    subs = [('%libomp-compile-and-run', '%libomp-compile && %libomp-run'),
            ('%libomp-c99-compile-and-run', '%libomp-c99-compile && %libomp-run'),
            ('%libomp-cxx-compile-and-run', '%libomp-cxx-compile && %libomp-run'),
            ('%libomp-cxx-compile-c', '%clangXX %openmp_flags %flags -std=c++14 -x c++ %s -o %t' + libs),
            ('%libomp-cxx-compile', '%clangXX %openmp_flags %flags -std=c++14 %s -o %t' + libs),
            ('%libomp-compile', '%clang %openmp_flags %flags %s -o %t' + libs),
            ('%libomp-c99-compile', '%clang %openmp_flags %flags -std=c99 %s -o %t' + libs),
            ('%libomp-run', '@RUN@ %t'), ('%clangXX', f'clang++-{LLVM}'), ('%clang', f'clang-{LLVM}'),
            ('%openmp_flags', '-fopenmp=libomp'), ('%flags-use-compiler-omp-h', flags), ('%flags', flags),
            ('%python', sys.executable), ('%not', f'{LLVM_DIR}/bin/not'),
            ('FileCheck', 'tee %t.out | @FILECHECK@'), ('%sort-threads', 'sort -n -s'),
            ('%preload-tool', 'env LD_PRELOAD=%T/tool.so'), ('%no-as-needed-flag', '-Wl,--no-as-needed'),
            ('%%', '@PERCENT@'), ('%s', src), ('%S', os.path.dirname(src)), ('%p', os.path.dirname(src)),
            ('%t', t), ('%T', tdir), ('@PERCENT@', '%'), ('@FILECHECK@', filecheck or 'FileCheck'), ('@RUN@', run)]
    for a, b in subs:
        line = line.replace(a, b)
    return line


def lit_runner(mode, shim, timeout, marker):
    """What %libomp-run becomes: a shell that sets the mode's OMP_* variables the RUN line left unset, puts
    the shim ahead of LD_PRELOAD, and runs the program ($0) with a time limit, leaving MARKER when it is hit."""
    body = ''.join(f'export {k}="${{{k}-{v}}}"; ' for k, v in MODES[mode].items())
    body += f'export LD_PRELOAD="{shim}${{LD_PRELOAD:+ $LD_PRELOAD}}"; ' if shim else ''
    body += f'timeout -k 5 {timeout} "$0" "$@"; r=$?; case $r in 124|137) : > {marker};; esac; exit $r'
    return 'sh -c ' + shlex.quote(body)


def run_lit(testdir, rel, runs, mode, shim, timeout, filecheck):
    """Runs a test's RUN lines in order in a temporary directory: (0, or how the first that failed ended; the
    end of its output; the seconds they took, compiling included)."""
    t0 = time.monotonic()
    env = {k: v for k, v in os.environ.items()
           if k != 'LD_PRELOAD' and not k.startswith(('OMP_', 'KMP_', 'ANDGATE_'))}
    env['LD_LIBRARY_PATH'] = ':'.join(p for p in (f'{LLVM_DIR}/lib', env.get('LD_LIBRARY_PATH')) if p)
    env['FILECHECK_OPTS'] = '--dump-input=never'  # its error, not the input, at the end of the output
    with tempfile.TemporaryDirectory(prefix='libomp-test-') as tdir:
        env['TMPDIR'], marker, out = tdir, os.path.join(tdir, 'timed-out'), b''
        run = lit_runner(mode, shim, timeout, marker)
        for i, line in enumerate(runs, 1):
            cmd = lit_subst(line, testdir, os.path.join(testdir, rel), tdir, run, filecheck)
            p = subprocess.Popen(['bash', '-o', 'pipefail', '-c', cmd], cwd=tdir, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, start_new_session=True)
            try:  # each program run has its own limit; this one is for what else hangs
                out = p.communicate(timeout=timeout * (cmd.count(run) + 1) + 300)[0]
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                out = p.communicate()[0]
                open(marker, 'w').close()
            if p.returncode:
                how = 'timeout' if os.path.exists(marker) else f'exit {p.returncode}'
                return f'{how} at RUN {i}', out[-300:].decode(errors='replace'), time.monotonic() - t0
        return 0, out[-300:].decode(errors='replace'), time.monotonic() - t0


SLOWER, SLOWER_S = 3.0, 1.0  # report() lists a run under the shim that took 3x as long as alone and 1 s more


def report(suite, work, names, modes, shim, res):
    """Prints the runs whose results differ alone and under the shim, and those that passed both ways but took
    SLOWER times as long and SLOWER_S seconds more under the shim; writes them all, with their seconds, to WORK:
    (differ, fail). The times are one run each: a slower run is a lead to measure, not a finding."""
    differ = 0
    for rel in sorted(names):
        for m in modes:
            alone, under = res[(rel, m, '')], res[(rel, m, shim)]
            if alone[0] != under[0]:
                differ += 1
                print(f'DIFFER {rel} [{m}]: alone {alone[0]}, shim {under[0]}: {under[1].strip()[-200:]!r}')
            elif alone[0] == 0 and under[2] > SLOWER * alone[2] and under[2] > alone[2] + SLOWER_S:
                print(f'SLOWER {rel} [{m}]: alone {alone[2]:.2f} s, shim {under[2]:.2f} s')
    fail = sum(1 for (rel, m, s), r in res.items() if not s and r[0] != 0)
    json.dump({f'{rel} {m} {"shim" if s else "alone"}': {'result': r[0], 'seconds': round(r[2], 3)}
               for (rel, m, s), r in res.items()},
              open(os.path.join(work, f'results-{suite}.json'), 'w'), indent=0)
    return differ, fail


def main_libomp(a, modes):
    for tool in (f'clang-{LLVM}', f'clang++-{LLVM}'):
        if not shutil.which(tool):
            usage(f'{tool} is not installed (apt-get install clang-{LLVM} libomp-{LLVM}-dev)')
    filecheck = shutil.which(f'FileCheck-{LLVM}') or shutil.which('FileCheck', path=f'{LLVM_DIR}/bin')
    testdir = llvm_sources(a.work)
    tests, left = lit_tests(testdir, filecheck)
    nofc = [rel for rel, why in left.items() if why in ('REQUIRES ompt', 'needs FileCheck') and not filecheck]
    print(f'{len(tests)} of {len(tests) + len(left)} lit tests run ({testdir})'
          + (f'; {len(nofc)} left out for want of FileCheck-{LLVM} (llvm-{LLVM}-tools)' if nofc else ''))
    for rel, why in sorted(left.items()):
        if rel not in nofc:
            print(f'left out: {rel}: {why}')
    jobs = [(rel, m, s) for rel in sorted(tests) for m in modes for s in ('', a.shim)]
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        res = dict(zip(jobs, ex.map(lambda j: run_lit(testdir, j[0], tests[j[0]], j[1], j[2], a.timeout,
                                                      filecheck), jobs)))
    differ, fail = report('libomp', a.work, tests, modes, a.shim, res)
    timeouts = [sum(1 for (_, _, s), r in res.items() if (s != '') == side and str(r[0]).startswith('timeout'))
                for side in (False, True)]
    print(f'{len(tests)} tests x {len(modes)} modes: {fail} nonzero exits alone, {differ} differ under the shim; '
          f'timeouts: {timeouts[0]} alone, {timeouts[1]} under the shim')
    return 1 if differ else 0


def options(argv=None):
    """The command line's options and modes, checked (one line and exit status 2 when wrong); --shim made
    absolute."""
    ap = argparse.ArgumentParser(description='the OpenMP runtime test suite alone and under the shim')
    ap.add_argument('suite', choices=sorted(SUITES) + ['libomp'])
    ap.add_argument('--shim', default=os.path.join(ROOT, 'build', 'lib', 'libandgate-preload.so'))
    ap.add_argument('--work', default='/tmp/andgate-omp-testsuite')
    ap.add_argument('--modes', default='t2,bind,t4,t3')
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--timeout', type=int, default=120, help='seconds each program run may take')
    ap.error = usage  # one line on stderr, exit status 2
    a = ap.parse_args(argv)
    modes = a.modes.split(',')
    if any(m not in MODES for m in modes):
        usage(f'--modes: expected a comma-separated list of {", ".join(MODES)}, got {a.modes!r}')
    if not os.path.exists(a.shim):
        usage(f'--shim: {a.shim} does not exist (run make first)')
    a.shim = os.path.abspath(a.shim)  # the programs run in their own directories: a relative LD_PRELOAD misses
    if a.jobs < 1 or a.timeout < 1:
        usage('--jobs and --timeout must be positive')
    return a, modes


def main():
    a, modes = options()
    if a.suite == 'libomp':
        return main_libomp(a, modes)
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
        res = dict(zip(jobs, ex.map(lambda j: run_one(built[j[0]], j[1], j[2], a.timeout), jobs)))
    differ, fail = report(a.suite, a.work, built, modes, a.shim, res)
    print(f'{len(built)} tests x {len(modes)} modes: {fail} nonzero exits alone, {differ} differ under the shim')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
