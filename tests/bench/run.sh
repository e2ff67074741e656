#!/usr/bin/env bash
# run.sh: `make bench`. Runs the prover-like benchmark untraced, traced in default mode, traced
# in exact mode (CUZKTRACE_SAMPLE=0) and under heaptrack when it is installed, RUNS times each,
# alternating, and prints one table of medians (also written to build/bench.txt).
# Environment: RUNS (default 5), BENCH_ARGS (prover_bench arguments, default "4 6 400000 8 150").
# wait_s: the time the program's threads waited for room in the tracer's buffers (the report's
# tracer_wait_s), all threads together, in the first run of the mode.
set -u
source "$(dirname "$0")/lib.sh"
ARGS=${BENCH_ARGS:-4 6 400000 8 150}
W=$(mktemp -d /tmp/cuzktrace-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

modes="untraced default exact"
command -v heaptrack >/dev/null && modes="$modes heaptrack"
echo "prover_bench $ARGS, $RUNS runs per mode, alternating"
for i in $(seq "$RUNS"); do
	for m in $modes; do
		case $m in
		untraced) measure "$W/$m.$i" $PROG $ARGS ;;
		default) measure "$W/$m.$i" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/default.$i.zst" LD_PRELOAD=$LIB $PROG $ARGS ;;
		exact) measure "$W/$m.$i" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/exact.$i.zst" LD_PRELOAD=$LIB $PROG $ARGS ;;
		heaptrack) measure "$W/$m.$i" heaptrack -o "$W/ht.$i" $PROG $ARGS ;;
		esac
		read -r secs kib rc <"$W/$m.$i"
		[ "$rc" = 0 ] || { echo "bench: $m run $i exited $rc" >&2; exit 1; }
		printf '  run %d %-9s %6.2f s\n' "$i" "$m" "$secs"
	done
done

col() { for i in $(seq "$RUNS"); do awk -v c="$2" '{print $c}' "$W/$1.$i"; done | median; }
# the median of each run's own ratio to the untraced run beside it (run i of the mode against
# run i untraced, taken one after the other): a slow minute moves both, where the medians'
# ratio compares runs minutes apart
run_ratio() { for i in $(seq "$RUNS"); do paste "$W/$1.$i" "$W/untraced.$i" | awk '{print $1 / $4}'; done | median; }
base=$(col untraced 1)
base_rss=$(col untraced 2)

# Events and trace size from our reader; reader speed on the exact trace (median of 5: a VM's passing slump moved a median of 3 by a third).
events_of() { "$REPORT" --json "$1" | $PY -c '
import json, sys; d = json.load(sys.stdin); c = d["event_counts"]
print(d["events"] + c.get("agg", 0) + c.get("cuda_alloc", 0) + c.get("cuda_free", 0))'; }
ev_default=$(events_of "$W/default.1.zst")
ev_exact=$(events_of "$W/exact.1.zst")
# the time the program's threads waited for room in the tracer's buffers, all threads together
wait_of() { "$REPORT" --json "$1" | $PY -c 'import json, sys; print("%.3f" % json.load(sys.stdin)["tracer_wait_s"])'; }
wait_default=$(wait_of "$W/default.1.zst")
wait_exact=$(wait_of "$W/exact.1.zst")
sz_default=$(stat -c %s "$W/default.1.zst")
sz_exact=$(stat -c %s "$W/exact.1.zst")
# on one core (--jobs 1: the target's measure), and decoding ahead on a second (--jobs 2)
rd=$(for k in 1 2 3 4 5; do measure "$W/rd.$k" "$REPORT" --jobs 1 --json "$W/exact.1.zst"; awk '{print $1}' "$W/rd.$k"; done | median)
rd_rss=$(awk '{print $2}' "$W/rd.1")
rd2=$(for k in 1 2 3 4 5; do measure "$W/rd2.$k" "$REPORT" --jobs 2 --json "$W/exact.1.zst"; awk '{print $1}' "$W/rd2.$k"; done | median)
rd2_rss=$(awk '{print $2}' "$W/rd2.1")
# and on the default mode's trace of the same workload: what a user of that mode waits for
rdd=$(for k in 1 2 3; do measure "$W/rdd.$k" "$REPORT" --jobs 1 --json "$W/default.1.zst"; awk '{print $1}' "$W/rdd.$k"; done | median)

{
echo "cuzktrace bench, $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(uname -r)"
echo "workload: prover_bench $ARGS (threads rounds small_per_round vec_mib work); median of $RUNS runs, modes alternating"
echo
printf '%-10s %9s %7s %9s %12s %12s %9s %12s %8s\n' mode wall_s ratio run_ratio events trace_bytes bytes/ev rss_over_MiB wait_s
for m in $modes; do
	secs=$(col "$m" 1); rss=$(col "$m" 2)
	case $m in
	default) ev=$ev_default; sz=$sz_default; wt=$wait_default ;;
	exact) ev=$ev_exact; sz=$sz_exact; wt=$wait_exact ;;
	heaptrack) ev=-; sz=$(stat -c %s "$W"/ht.1*.zst 2>/dev/null | head -1); wt=- ;;
	*) ev=-; sz=-; wt=- ;;
	esac
	bpe=-
	[ "$ev" != - ] && bpe=$(awk -v s="$sz" -v e="$ev" 'BEGIN {printf "%.2f", s / e}')
	printf '%-10s %9.3f %6.2fx %8.2fx %12s %12s %9s %12s %8s\n' "$m" "$secs" "$(awk -v a="$secs" -v b="$base" 'BEGIN {print a / b}')" \
		"$(run_ratio "$m")" "$ev" "$sz" "$bpe" "$(awk -v a="$rss" -v b="$base_rss" 'BEGIN {printf "%.1f", (a - b) / 1024}')" "$wt"
done
echo
printf 'reader: cuzktrace-report --jobs 1 --json on the exact trace: %.3f s, %.1f M events/s, max RSS %.1f MiB\n' \
	"$rd" "$(awk -v e="$ev_exact" -v t="$rd" 'BEGIN {print e / t / 1e6}')" "$(awk -v k="$rd_rss" 'BEGIN {print k / 1024}')"
printf 'reader: cuzktrace-report --jobs 2 --json on the exact trace (decoding on a second core): %.3f s, %.1f M events/s, max RSS %.1f MiB\n' \
	"$rd2" "$(awk -v e="$ev_exact" -v t="$rd2" 'BEGIN {print e / t / 1e6}')" "$(awk -v k="$rd2_rss" 'BEGIN {print k / 1024}')"
printf 'reader: cuzktrace-report --jobs 1 --json on the default-mode trace: %.3f s for the workload'"'"'s %d events (%.0f M a second; the trace holds %d records)\n' \
	"$rdd" "$ev_exact" "$(awk -v e="$ev_exact" -v t="$rdd" 'BEGIN {print e / t / 1e6}')" "$ev_default"
# the floor under the reader on this machine: zstd alone, and the decoder alone (no replay)
if "$B/bench/decode_floor" "$W/exact.1.zst" >"$W/floor" 2>/dev/null; then
	read -r _ zs zbytes <<<"$(sed -n 1p "$W/floor")"
	read -r _ ds devents <<<"$(sed -n 2p "$W/floor")"
	printf 'reader floor: zstd alone %.3f s (%.0f M events/s); decoding alone, no replay %.3f s (%.1f M events/s)\n' \
		"$zs" "$(awk -v e="$devents" -v t="$zs" 'BEGIN {print e / t / 1e6}')" \
		"$ds" "$(awk -v e="$devents" -v t="$ds" 'BEGIN {print e / t / 1e6}')"
fi
# ... and under the replay: the least replay that finds the peak and who holds it (live-block
# table, counters per stack, running peak) over the heap records already decoded, in time order
if "$B/bench/replay_floor" "$W/exact.1.zst" >"$W/rfloor" 2>/dev/null; then
	read -r _ ts tev tpeak <<<"$(sed -n 1p "$W/rfloor")"
	read -r _ ps pev ppeak ppaired <<<"$(sed -n 2p "$W/rfloor")"
	printf 'reader floor: a least replay from memory (decoded, in time order: live-block table, counters per stack, the peak) %.3f s (%.1f M events/s); frees the trace pairs kept out of the table (%d of them) %.3f s (%.1f M events/s); peak heap %d and %d\n' \
		"$ts" "$(awk -v e="$tev" -v t="$ts" 'BEGIN {print e / t / 1e6}')" "$ppaired" \
		"$ps" "$(awk -v e="$pev" -v t="$ps" 'BEGIN {print e / t / 1e6}')" "$tpeak" "$ppeak"
fi
# reader_case NAME LABEL CMD...: CMD traced in exact mode to $W/NAME.zst, then the reader on it
# with --jobs 1 (median of 3): one line
reader_case() {
	local name=$1 label=$2 ev t
	shift 2
	env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/$name.zst" LD_PRELOAD=$LIB "$@" >/dev/null 2>&1 ||
		return 0
	ev=$(events_of "$W/$name.zst")
	t=$(for k in 1 2 3; do measure "$W/$name.$k" "$REPORT" --jobs 1 --json "$W/$name.zst"; awk '{print $1}' "$W/$name.$k"; done | median)
	printf 'reader --jobs 1, %s: %.3f s, %.1f M events/s, max RSS %.0f MiB\n' "$label" \
		"$t" "$(awk -v e="$ev" -v t="$t" 'BEGIN {print e / t / 1e6}')" "$(awk '{print $2 / 1024}' "$W/$name.1")"
}
# the reader's hard cases: a live set far bigger than the caches (tests/bench/live_bench.c);
# 32,768 distinct call stacks, each allocating, so that the counters per stack fill no cache
# (tests/bench/manysites.c)
reader_case live "large live set (live_bench, 6 M blocks live at the top)" "$B/bench/live_bench"
reader_case many "many call stacks (manysites, 32,768 stacks)" "$B/bench/manysites"
# symbolization: an exact trace whose 20,000 blocks come from 20,000 functions of one compile
# unit (tests/bench/manyfuncs.sh), all live at the peak, so every stack is symbolized; the
# library with DWARF, then with its symbol table only
for v in dwarf symtab; do
	if env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/mf_$v.zst" LD_PRELOAD=$LIB "$B/bench/mf_$v" >/dev/null 2>&1; then
		for k in 1 2 3; do measure "$W/mf_$v.$k" "$REPORT" --json "$W/mf_$v.zst"; awk '{print $1}' "$W/mf_$v.$k"; done |
			median >"$W/mf_$v.t"
	else
		echo "-" >"$W/mf_$v.t"
	fi
done
printf 'reader, symbolizing 20,000 call sites in one compile unit: with DWARF %s s, symbol table only %s s\n' \
	"$(cat "$W/mf_dwarf.t")" "$(cat "$W/mf_symtab.t")"
# the tracer's own memory when many threads record at once (each has its buffers): 64 threads
# alive together that hold next to nothing themselves (tests/bench/threads_bench.c), median max
# RSS of 3 alternating runs per mode, over untraced. Busy: every thread records as fast as it
# can. Moderate: 40,000 records per thread over 3 s in the default mode (the running totals of
# 80 KiB batches, a pause after each), a ring's worth several times over. Many: 256 busy threads
# (windows share a budget; the unwinder cache is paid by threads that capture stacks fast);
# 512 busy threads in exact mode (past 128 threads the rings start on small windows).
TB=$B/bench/threads_bench
BUSY="64 100000" MODERATE="64 400000 8192 10 50" MANY="256 50000" MOST="512 25000"
for k in 1 2 3; do
	measure "$W/bu.$k" $TB $BUSY
	measure "$W/bd.$k" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/bd.zst" LD_PRELOAD=$LIB $TB $BUSY
	measure "$W/be.$k" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/be.zst" LD_PRELOAD=$LIB $TB $BUSY
	measure "$W/mu.$k" $TB $MODERATE
	measure "$W/md.$k" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/md.zst" LD_PRELOAD=$LIB $TB $MODERATE
	measure "$W/nu.$k" $TB $MANY
	measure "$W/nd.$k" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/nd.zst" LD_PRELOAD=$LIB $TB $MANY
	measure "$W/ne.$k" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/ne.zst" LD_PRELOAD=$LIB $TB $MANY
	measure "$W/ou.$k" $TB $MOST
	measure "$W/oe.$k" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/oe.zst" LD_PRELOAD=$LIB $TB $MOST
done
over() { for k in 1 2 3; do awk '{print $2}' "$W/$1.$k"; done | median | awk -v b="$(for k in 1 2 3; do awk '{print $2}' "$W/$2.$k"; done | median)" '{printf "%.1f", ($1 - b) / 1024}'; }
printf 'tracer RSS, 64 threads: busy (threads_bench %s) default +%s MiB, exact +%s MiB; moderate rate, default mode (threads_bench %s) +%s MiB\n' \
	"$BUSY" "$(over bd bu)" "$(over be bu)" "$MODERATE" "$(over md mu)"
printf 'tracer RSS, 256 threads busy (threads_bench %s): default +%s MiB, exact +%s MiB\n' \
	"$MANY" "$(over nd nu)" "$(over ne nu)"
printf 'tracer RSS, 512 threads busy (threads_bench %s): exact +%s MiB\n' "$MOST" "$(over oe ou)"
# thread starts with thousands of threads alive at once (each start walked every ring, and
# the writer every ring for each thread's name, before 0.2.46): median wall time of 3
# alternating runs
START="4000 200"
for k in 1 2 3; do
	measure "$W/su.$k" $TB $START
	measure "$W/sd.$k" env CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/sd.zst" LD_PRELOAD=$LIB $TB $START
	measure "$W/se.$k" env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT="$W/se.zst" LD_PRELOAD=$LIB $TB $START
done
for f in "$W"/s[ude].[123]; do # a run that failed (4,000 threads refused by a pids limit) is no time
	read -r _ _ rc <"$f"
	[ "$rc" = 0 ] || { echo "bench: threads_bench $START ($f) exited $rc" >&2; exit 1; }
done
wall() { for k in 1 2 3; do awk '{print $1}' "$W/$1.$k"; done | median; }
printf 'thread starts, 4,000 threads alive at once (threads_bench %s): untraced %s s, default %s s, exact %s s\n' \
	"$START" "$(wall su)" "$(wall sd)" "$(wall se)"
# the phase API: push/pop pairs of a 1,100-byte name against a 10-byte one's, exact mode
# (tests/progs/phasenames.c cost; the long name took the tracer's lock at every push before
# 0.2.40: 12 to 34 times the short name's cost)
if [ -x "$B/progs/phasenames" ] && read -r pl ps pr < <(env CUZKTRACE_SAMPLE=0 CUZKTRACE_QUIET=1 \
	CUZKTRACE_OUT="$W/pn.zst" LD_PRELOAD=$LIB "$B/progs/phasenames" cost 2>/dev/null); then
	printf 'phase push/pop, exact mode: %.0f ns a pair with a 10-byte name, %.0f ns with a 1,100-byte name (%sx)\n' \
		"$(awk -v s="$ps" 'BEGIN {print s / 20000 * 1e9}')" "$(awk -v s="$pl" 'BEGIN {print s / 20000 * 1e9}')" "$pr"
fi
if command -v heaptrack_print >/dev/null && ls "$W"/ht.1*.zst >/dev/null 2>&1; then
	ht=$(ls "$W"/ht.1*.zst | head -1)
	hp=$(for k in 1 2 3; do measure "$W/hp.$k" heaptrack_print -f "$ht"; awk '{print $1}' "$W/hp.$k"; done | median)
	calls=$(heaptrack_print -f "$ht" 2>/dev/null | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p')
	# heaptrack's events: its allocation calls plus as many frees (every block is freed)
	printf 'reader: heaptrack_print on the heaptrack trace: %.3f s, %.1f M events/s (%s allocation calls x 2)\n' \
		"$hp" "$(awk -v c="$calls" -v t="$hp" 'BEGIN {print 2 * c / t / 1e6}')" "$calls"
fi
} | tee "$B/bench.txt"
