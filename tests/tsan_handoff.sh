#!/usr/bin/env bash
# The clean hand-over must pass TSan silently; the racy one must be reported (TSan's exit code 66).
set -u
bin=$1
TSAN_OPTIONS="exitcode=66 halt_on_error=1" "$bin" clean > /tmp/tsan_clean.$$ 2>&1; clean=$?
TSAN_OPTIONS="exitcode=66 halt_on_error=1" "$bin" race > /tmp/tsan_race.$$ 2>&1; race=$?
ok=0
if [ $clean -ne 0 ] || grep -q "WARNING: ThreadSanitizer" /tmp/tsan_clean.$$; then
  echo "FAIL: data handed over through the barrier was reported (exit $clean):"; head -40 /tmp/tsan_clean.$$; ok=1
fi
if [ $race -ne 66 ] || ! grep -q "WARNING: ThreadSanitizer: data race" /tmp/tsan_race.$$; then
  echo "FAIL: a real race was not reported (exit $race)"; cat /tmp/tsan_race.$$; ok=1
fi
rm -f /tmp/tsan_clean.$$ /tmp/tsan_race.$$
[ $ok -eq 0 ] && echo "2 passed, 0 failed" || echo "0 passed, 2 failed"
exit $ok
