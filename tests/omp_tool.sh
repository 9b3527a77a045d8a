#!/usr/bin/env bash
# A program's own OMPT tool under libandgate-preload.so. Usage: omp_tool.sh BINARY SHIM TOOL
# BINARY is tests/omp_tool.c built with clang (libomp), TOOL the same file built with -DTOOL as a
# shared library. libomp starts one tool. The program's tool, preloaded after the shim, must be asked and
# start as without the shim (the shim stands aside and says so); with ANDGATE_OMP=0 too, and when
# OMP_TOOL_LIBRARIES names it. A tool that
# declines (OMP_TEST_TOOL=off) is asked, and the shim serves the teams. With no tool of the program's,
# omp_control_tool answers "no tool" (-2) under the shim as without it. The output is the same in each.
. "$(dirname "$0")/omp_lib.sh"
tool=$3
expect() { # expect NAME PATTERN WHAT: NAME's stdout or stderr has a line matching PATTERN
  if grep -Eq "$2" "$tmp/$1.out" "$tmp/$1.err"; then pass=$((pass + 1)); else
    failed=$((failed + 1)); echo "FAIL: $3"; sed 's/^/    /' "$tmp/$1.out" "$tmp/$1.err" | head -8; fi
}
refuse() { # refuse NAME PATTERN WHAT: no line matches
  if grep -Eq "$2" "$tmp/$1.out" "$tmp/$1.err"; then
    failed=$((failed + 1)); echo "FAIL: $3"; grep -Eh "$2" "$tmp/$1.out" "$tmp/$1.err" | head -3; else
    pass=$((pass + 1)); fi
}
served="andgate-preload: libomp team of 2"

run alone LD_PRELOAD="$tool"
run shim ANDGATE_VERBOSE=1 LD_PRELOAD="$shim $tool"
same shim alone "the program's tool preloaded after the shim"
expect shim '^tool: started$' "the program's tool did not start under the shim"
expect shim '^tool: 10 teams$' "the program's tool did not see its 10 teams under the shim"
expect shim 'the program has its own OMPT tool' "the shim did not say that it stands aside"
refuse shim "$served" "the shim served a team although the program's tool holds OMPT"
run off ANDGATE_OMP=0 LD_PRELOAD="$shim $tool"
same off alone "the program's tool with ANDGATE_OMP=0"
run named ANDGATE_VERBOSE=1 OMP_TOOL_LIBRARIES="$tool" LD_PRELOAD="$shim"
same named alone "the program's tool named in OMP_TOOL_LIBRARIES"
expect named 'OMP_TOOL_LIBRARIES is set' "the shim did not say that it stands aside for OMP_TOOL_LIBRARIES"

run declined_alone OMP_TEST_TOOL=off LD_PRELOAD="$tool"
run declined OMP_TEST_TOOL=off ANDGATE_VERBOSE=1 LD_PRELOAD="$shim $tool"
same declined declined_alone "a program tool that declines"
expect declined '^tool: asked$' "the program's tool was not asked under the shim"
expect declined "$served" "the shim did not serve the teams after the program's tool declined"

run none_alone
run none ANDGATE_VERBOSE=1 LD_PRELOAD="$shim"
same none none_alone "no tool of the program's"
expect none '^omp_control_tool -2$' "omp_control_tool under the shim is not 'no tool' (-2)"
expect none "$served" "the shim did not serve the teams"
finish
