#!/usr/bin/env bash
# scale.sh: how the tracer's cost grows with threads, for a machine with many cores (`make bench`
# runs 4 threads). Runs prover_bench (tests/bench/prover_bench.c) at each thread count of THREADS
# (default "1 4 16"; counts above the cores are skipped), untraced, in the default mode and in
# exact mode, RUNS (default 5) times each, alternating, and prints one line of medians per
# count and mode; then the reader on the exact trace of the largest count (median of 3) and
# that trace's decoder floor (tests/bench/decode_floor.c). Without a shared lock on the
# allocation path, the traced/untraced ratio stays flat as threads are added. wait_s: the time the
# program's threads waited for room in the tracer's buffers (the report's tracer_wait_s), all
# threads together, in the last run: where it is most of the slowdown, the writer sets the pace.
# Environment: RUNS, THREADS, WORK (prover_bench's rounds, small allocations per round, Vec MiB
# and arithmetic per allocation; default "6 400000 8 150", as make bench).
set -u
source "$(dirname "$0")/lib.sh"
THREADS=${THREADS:-1 4 16}
WORK=${WORK:-6 400000 8 150}
for f in "$PROG" "$LIB" "$REPORT"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "scale: $f is missing (make scale builds it)"; exit 2; }
done
W=$(mktemp -d /tmp/cuzktrace-scale.XXXXXX)
trap 'rm -rf "$W"' EXIT
cores=$(nproc)
echo "cuzktrace scale, $(date -u +%Y-%m-%d), $cores cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(uname -r)"
echo "workload: prover_bench N $WORK; median of $RUNS runs, modes alternating"
printf '%-8s %-9s %8s %7s %12s %12s %8s\n' threads mode wall_s ratio events rss_over_MiB wait_s
last=
for n in $THREADS; do
	if [ "$n" -gt "$cores" ]; then
		echo "scale: $n threads skipped: $cores cores"
		continue
	fi
	for i in $(seq "$RUNS"); do
		measure "$W/u$n.$i" $PROG $n $WORK
		measure "$W/d$n.$i" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/d$n.zst" LD_PRELOAD=$LIB $PROG $n $WORK
		measure "$W/e$n.$i" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/e$n.zst" LD_PRELOAD=$LIB $PROG $n $WORK
		for m in u d e; do
			read -r secs kib rc <"$W/$m$n.$i"
			[ "$rc" = 0 ] || { echo "scale: $m $n threads, run $i exited $rc" >&2; exit 1; }
		done
	done
	col() { for i in $(seq "$RUNS"); do awk -v c="$2" '{print $c}' "$W/$1.$i"; done | median; }
	base=$(col u$n 1) base_rss=$(col u$n 2)
	for m in untraced default exact; do
		k=${m:0:1}
		ev=- wait=-
		[ $k = u ] || read -r ev wait <<<"$("$REPORT" --json "$W/$k$n.zst" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(d["events"] + d["event_counts"].get("agg", 0), "%.3f" % d["tracer_wait_s"])')"
		printf '%-8s %-9s %8.3f %6.2fx %12s %12.1f %8s\n' "$n" "$m" "$(col $k$n 1)" \
			"$(awk -v a="$(col $k$n 1)" -v b="$base" 'BEGIN {print a / b}')" "$ev" \
			"$(awk -v a="$(col $k$n 2)" -v b="$base_rss" 'BEGIN {print (a - b) / 1024}')" "$wait"
	done
	last=$n
done
[ -n "$last" ] || exit 0
ev=$("$REPORT" --json "$W/e$last.zst" | $PY -c 'import json, sys; d = json.load(sys.stdin); print(d["events"])')
for j in 1 2; do
	rd=$(for k in 1 2 3; do measure "$W/rd.$k" "$REPORT" --jobs $j --json "$W/e$last.zst"; awk '{print $1}' "$W/rd.$k"; done | median)
	printf 'reader --jobs %s on the exact trace of %s threads: %s events in %.3f s, %.1f M events/s\n' "$j" "$last" "$ev" "$rd" \
		"$(awk -v e="$ev" -v s="$rd" 'BEGIN {print e / s / 1e6}')"
done
[ -x "$B/bench/decode_floor" ] && "$B/bench/decode_floor" "$W/e$last.zst" 2>/dev/null | sed 's/^/floor: /'
exit 0
