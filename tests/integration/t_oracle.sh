# Differential test: the reader against an independent second implementation of its core
# numbers (tests/oracle/oracle.py, Python, written from include/ckt_format.h alone) on
# randomized multi-threaded workloads (tests/progs/randwork.c) in exact mode. Every number must
# agree exactly. The oracle also checks the writer's SYNC promise (no event read after SYNC(h_k)
# with ts < h_(k-1)), on which the reader's streaming merge relies.
# A failure names the seed: rerun by hand with
#   CUZKTRACE_SAMPLE=0 CUZKTRACE_FLUSH_MS=FLUSH CUZKTRACE_OUT=t.zst \
#       LD_PRELOAD=build/libcuzktrace.so build/progs/randwork SEED THREADS OPS
#   build/cuzktrace-report --json t.zst; python3 tests/oracle/oracle.py --flat t.zst
if ! command -v zstd >/dev/null 2>&1; then
	echo "  skip oracle tests: the zstd command-line tool is not installed (apt-get install zstd)"
else
	# seed threads ops flush-ms: one thread, two, four, eight on two cores; the last run flushes
	# every millisecond (many frames and SYNC horizons close together)
	for o_run in "1 4 20000 100" "2 2 30000 100" "3 1 30000 100" "4 8 6000 100" "5 4 20000 100" \
		"6 2 20000 1"; do
		read -r o_seed o_thr o_ops o_fl <<<"$o_run"
		o_fail0=$FAIL
		o_n="oracle seed $o_seed ($o_thr threads, $o_ops ops, flush $o_fl ms)"
		o_t=$T/rw$o_seed
		CUZKTRACE_FLUSH_MS=$o_fl CUZKTRACE_OUT=$o_t.zst traced rw$o_seed $P/randwork $o_seed $o_thr $o_ops
		expect_eq "$o_n: program ran" "$(cat $o_t.rc)/$(cat $o_t.out)" \
			"0/randwork: seed $o_seed threads $o_thr ops $o_ops done"
		$REPORT --json $o_t.zst >$o_t.json 2>$o_t.rerr
		expect_eq "$o_n: reader exit 0, silent" "$?/$(cat $o_t.rerr)" "0/"
		$PY tests/oracle/oracle.py --flat $o_t.zst >$o_t.oracle 2>$o_t.oerr
		expect_eq "$o_n: oracle exit 0, silent" "$?/$(cat $o_t.oerr)" "0/"
		declare -A o_v=()
		while read -r o_k o_val; do o_v[$o_k]=$o_val; done <$o_t.oracle
		expect_eq "$o_n: writer kept the SYNC promise (${o_v[first_sync_violation]-(no oracle value)}); no thread's end before its last event" \
			"${o_v[sync_violations]-(no oracle value)}/${o_v[thread_exits_before_last_event]-(no oracle value)}" 0/0
		expect_eq "$o_n: the reader saw no late event, none stamped before its thread's previous one" \
			"$(jget $o_t.json late_events)/$(jget $o_t.json backward_events)" 0/0
		expect_eq "$o_n: not truncated, nothing lost" \
			"$(jget $o_t.json truncated)/$(jget $o_t.json lost_events)" \
			"${o_v[truncated]-(no oracle value)}/${o_v[lost_events]-(no oracle value)}"
		for o_k in event_counts.alloc event_counts.free event_counts.realloc event_counts.mmap \
			event_counts.munmap event_counts.mremap event_counts.mprotect inconsistencies \
			peak_heap.bytes live_at_exit.heap_bytes live_at_exit.heap_blocks \
			peak_mmap.bytes peak_mmap.anon_bytes peak_mmap.file_bytes peak_mmap_anon.bytes \
			peak_mmap_file.bytes live_at_exit.mmap_bytes live_at_exit.anon_mmap_bytes \
			live_at_exit.file_mmap_bytes peak_reserved.bytes live_at_exit.reserved_bytes temporary_allocations; do
			expect_eq "$o_n: $o_k" "$(jget $o_t.json $o_k)" "${o_v[$o_k]-(no oracle value)}"
		done
		# times: both print seconds with 6 decimals, rounded from nanoseconds by different
		# arithmetic, so a time exactly half way between two microseconds may come out 1 us
		# apart; compared to within that
		for o_k in peak_heap.t_s peak_mmap.t_s peak_mmap_anon.t_s peak_mmap_file.t_s peak_reserved.t_s; do
			o_got=$(jget $o_t.json $o_k)
			o_want=${o_v[$o_k]-(no oracle value)}
			if [ "$o_got" != null ] && [ "$o_want" != null ] && [ "$o_want" != "(no oracle value)" ] &&
				$PY -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1.5e-6)' "$o_got" "$o_want"; then
				o_got=$o_want
			fi
			expect_eq "$o_n: $o_k (to 1 us)" "$o_got" "$o_want"
		done
		# live bytes at the heap peak by allocating phase, as "name=bytes" sorted by name
		o_got=$($PY - $o_t.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))['peak_heap']['by_phase']
print(' '.join('%s=%d' % (p['phase'], p['bytes']) for p in sorted(d, key=lambda p: p['phase'])
               if p['bytes']))
PYEOF
)
		expect_eq "$o_n: peak_heap.by_phase" "$o_got" "${o_v[peak_heap.by_phase]-(no oracle value)}"
		unset o_v
		# a disagreement is a bug in one of the two: keep the trace to find out which
		if [ "$FAIL" -gt "$o_fail0" ]; then
			o_keep=/tmp/cuzktrace-oracle-seed$o_seed-$$.zst
			cp $o_t.zst $o_keep && echo "  kept the trace of $o_n in $o_keep"
		fi
	done
	# the default mode: running totals (AGG), samples, and since format 6 the late totals of
	# threads that idled, counted at the peak they came before (randwork's threads pause
	# between batches; poolidle's idle and free across threads; latepeak's count at the peak RSS
	# sample, which becomes the peak heap's moment; burstpeak's, made within a tick of the
	# peak, count there): peak and exit figures agree
	for o_run in "randwork 1 4 20000" "randwork 2 4 20000" "poolidle" "poolidle freed" "latepeak" "burstpeak" "burstpeak exit" "nearpeak over" \
		"nearpeak phase"; do
		o_t=$T/od$(echo $o_run | tr -d ' ')
		CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$o_t.zst LD_PRELOAD=$LIB $P/$o_run >/dev/null 2>&1
		$PY tests/oracle/oracle.py --flat $o_t.zst >$o_t.oracle 2>&1
		$REPORT --json $o_t.zst >$o_t.json 2>/dev/null
		# and the peak's time (to 1 us, as above): where a late total counts is the moment
		o_got=$(jget $o_t.json peak_heap.t_s)
		o_want=$(sed -n 's/^peak_heap.t_s //p' $o_t.oracle)
		$PY -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 1.5e-6)' "$o_got" "$o_want" 2>/dev/null &&
			o_got=$o_want
		expect_eq "oracle, default mode ($o_run): peak heap, its time and heap live at exit agree" \
			"$(jget $o_t.json peak_heap.bytes) $o_got $(jget $o_t.json live_at_exit.heap_bytes)" \
			"$(sed -n 's/^peak_heap.bytes //p' $o_t.oracle) $o_want $(sed -n 's/^live_at_exit.heap_bytes //p' $o_t.oracle)"
	done
	# threads whose last event has an after-stamp (a realloc or an mremap that moves): the
	# tracer stamps their end (THREAD_EXIT) at or after it; it took the stamp before the call,
	# so every one of the 32 ended before its last event had
	for m in realloc mremap; do
		CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/lr$m.zst traced lr$m $P/lastrealloc $m
		$PY tests/oracle/oracle.py --flat $T/lr$m.zst >$T/lr$m.oracle 2>&1
		$REPORT --json $T/lr$m.zst >$T/lr$m.json 2>$T/lr$m.rerr
		expect_eq "threads ending right after a $m: no end stamped before the last event, the reader silent" \
			"$(cat $T/lr$m.rc)/$(sed -n 's/^thread_exits_before_last_event //p' $T/lr$m.oracle)/$(jget $T/lr$m.json backward_events)/$(cat $T/lr$m.rerr)" "0/0/0/"
	done
	# a trace with events lost (a SIGALRM handler's calls inside the hooks, LOST records, then
	# END): END's count is the trace's total, the LOST records' included. The oracle added the
	# two (twice the reader's count); the format now says so
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/olost.zst traced olost $P/sigalloc 200000
	$PY tests/oracle/oracle.py --flat $T/olost.zst >$T/olost.oracle 2>&1
	$REPORT --json $T/olost.zst >$T/olost.json 2>/dev/null
	o_lost=$(jget $T/olost.json lost_events)
	expect_eq "events lost (a handler's calls in the hooks): reader and oracle count them alike, END's total not added to the LOST records" \
		"$(cat $T/olost.rc)/$([ "$o_lost" -gt 0 ] 2>/dev/null && echo some || echo "none ($o_lost)")/$(sed -n 's/^lost_events //p' $T/olost.oracle)" \
		"0/some/$o_lost"
fi
