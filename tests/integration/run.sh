#!/usr/bin/env bash
# run.sh: integration tests. Real programs (tests/progs) run under LD_PRELOAD and the reader's
# JSON is compared with exact numbers. Prints "N passed, N failed"; exits non-zero on failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
LIB=$ROOT/build/libcuzktrace.so
REPORT=$ROOT/build/cuzktrace-report
P=$ROOT/build/progs
T=$(mktemp -d /tmp/cuzktrace-it.XXXXXX)
trap 'rm -rf "$T"' EXIT
. tests/integration/lib.sh
export CUZKTRACE_RSS_MS=5
# sort orders, number formats and messages as on the CI machine, whatever the user's locale
export LC_ALL=C
# exact mode unless a test says otherwise: the tests compare exact byte counts
export CUZKTRACE_SAMPLE=0
for t in tests/integration/t_*.sh; do
	echo "== $(basename "$t" .sh)"
	. "$t"
done
echo
if [ "$FAIL" -gt 0 ]; then printf 'failed: %s\n' "${FAILED_NAMES[@]}"; fi
echo "integration: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
