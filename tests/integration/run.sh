#!/usr/bin/env bash
# run.sh: integration tests. Real programs (tests/progs) run under LD_PRELOAD and the reader's
# JSON is compared with exact numbers. Prints "N passed, N failed"; exits non-zero on failure.
#
# The test files run in lanes side by side (CUZKTRACE_TEST_JOBS of them, 3 by default with 2
# CPUs or more; 1 runs them one after the other): much of the suite waits (a writer frozen for 10 s, a program
# stopped for seconds, RSS samples every 5 ms), so lanes fill the CPUs that one file leaves
# idle. Each file runs in a shell of its own, from this one's state, with a scratch directory
# of its own; t_reader.sh reads t_known.sh's traces, so the two run in one shell, in order.
# A file's output is printed whole once it ends, with its time.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# the loader splits LD_PRELOAD at spaces and colons: no test could preload the library
case "$ROOT" in *[[:space:]:]*)
	echo "run.sh: '$ROOT' holds a space or ':', which LD_PRELOAD cannot name a library under; clone into a path without them" >&2
	exit 2 ;;
esac
# no compiled Python files left in the tree by the tests' helpers
export PYTHONDONTWRITEBYTECODE=1
LIB=$ROOT/build/libcuzktrace.so
REPORT=$ROOT/build/cuzktrace-report
P=$ROOT/build/progs
T=$(mktemp -d /tmp/cuzktrace-it.XXXXXX)
# kept when a check fails (its files tell what the check saw), else removed
trap 'if [ "${FAIL:-1}" -gt 0 ]; then echo "scratch files kept in $T"; else rm -rf "$T"; fi' EXIT
# the files' scratch directories lie in here: tests that run a program as another user open
# theirs to others (chmod o+x), which needs this one passable too
chmod o+x "$T"
. tests/integration/lib.sh
export CUZKTRACE_RSS_MS=5
# sort orders, number formats and messages as on the CI machine, whatever the user's locale
export LC_ALL=C
# exact mode unless a test says otherwise: the tests compare exact byte counts
export CUZKTRACE_SAMPLE=0

# units, the longest first (measured), so that the lanes end about together; a test file not
# named here runs after them
UNITS=("t_failures" "t_lifecycle" "t_known t_reader" "t_phases" "t_sites" "t_signals"
	"t_sampling" "t_cuda" "t_oracle" "t_sanitize" "t_allocators")
for t in tests/integration/t_*.sh; do
	t=$(basename "$t" .sh)
	[[ " ${UNITS[*]} " == *" $t "* ]] || UNITS+=("$t")
done
# 3 lanes where there are 2 CPUs or more, else one after the other
JOBS=${CUZKTRACE_TEST_JOBS:-$([ "$(nproc 2>/dev/null || echo 1)" -ge 2 ] && echo 3 || echo 1)}
if ! [[ $JOBS =~ ^[1-9][0-9]?$ ]]; then
	echo "run.sh: CUZKTRACE_TEST_JOBS=$JOBS is not a number of lanes from 1 to 99" >&2
	exit 2
fi
[ "$JOBS" -le "${#UNITS[@]}" ] || JOBS=${#UNITS[@]}

# run_unit I: unit I's files, in one shell, into $T/u<I>.log; its counts in $T/u<I>.res and
# the names of its failed checks in $T/u<I>.failed
# (its own names start with ru_: the test files' variables are global, and it sources them)
run_unit() (
	ru_unit=$1 ru_start=$SECONDS ru_dir=$T/u$1
	PASS=0 FAIL=0 FAILED_NAMES=()
	T=$ru_dir
	mkdir "$T"
	for ru_file in ${UNITS[$ru_unit]}; do
		echo "== $ru_file"
		if [ -f "tests/integration/$ru_file.sh" ]; then
			. "tests/integration/$ru_file.sh"
		else
			bad "$ru_file: no such test file (tests/integration/run.sh names it)"
		fi
	done
	echo "   (${UNITS[$ru_unit]}: $((SECONDS - ru_start)) s)"
	echo "$PASS $FAIL" >"$ru_dir.res"
	[ "$FAIL" -eq 0 ] || printf '%s\n' "${FAILED_NAMES[@]}" >"$ru_dir.failed"
)

# next_unit: the index of the next unit no lane has taken, or nothing
next_unit() {
	local i
	{
		flock 9
		i=$(cat "$T/.next" 2>/dev/null || echo 0)
		echo $((i + 1)) >"$T/.next"
	} 9>>"$T/.lock"
	[ "$i" -lt "${#UNITS[@]}" ] && echo "$i"
}

lane() {
	local i
	while i=$(next_unit); do
		run_unit "$i" >"$T/u$i.log" 2>&1 </dev/null
		{ flock 9; cat "$T/u$i.log"; } 9>>"$T/.lock"
	done
}

# a test that runs a traced program without CUZKTRACE_OUT leaves its trace in the working
# directory (this one): counted before and after, a new one fails the suite
strays() { ls -1 cuzktrace.*.zst 2>/dev/null | sort; }
strays_before=$(strays)

for ((l = 1; l < JOBS; l++)); do lane & done
lane
wait

PASS=0 FAIL=0 FAILED_NAMES=()
# every file's traces read with --jobs 1 and 2 alike (in lanes too)
echo "== jobs_alike"
start=$SECONDS
. tests/integration/jobs_alike.sh
echo "   (jobs_alike: $((SECONDS - start)) s)"
for ((i = 0; i < ${#UNITS[@]}; i++)); do
	if ! read -r p f <"$T/u$i.res"; then
		FAIL=$((FAIL + 1)) FAILED_NAMES+=("${UNITS[$i]}: the file did not run to its end")
		continue
	fi 2>/dev/null
	PASS=$((PASS + p)) FAIL=$((FAIL + f))
	[ -f "$T/u$i.failed" ] && mapfile -t -O "${#FAILED_NAMES[@]}" FAILED_NAMES <"$T/u$i.failed"
done
expect_eq "no test left a trace in the working directory (a traced run without CUZKTRACE_OUT)" \
	"$(comm -13 <(echo "$strays_before") <(strays) | tr '\n' ' ')" ""
echo
if [ "$FAIL" -gt 0 ]; then printf 'failed: %s\n' "${FAILED_NAMES[@]}"; fi
echo "integration: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
