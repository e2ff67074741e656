# t_sanitize.sh: the reader built with AddressSanitizer and UndefinedBehaviorSanitizer
# (`make sanitized`, part of `make check`) on inputs that once reached undefined behaviour or
# ran for minutes (found by fuzzing the reader): exit 0, no sanitizer report, in seconds.
SAN_REPORT=$ROOT/build/san/cuzktrace-report
if [ ! -x "$SAN_REPORT" ]; then
	echo "  skip sanitizer checks: build/san/cuzktrace-report not built (make sanitized)"
else
	san_run() { # NAME ARGS...: runs the sanitized reader, prints "rc/reports"
		local name=$1; shift
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
			timeout -s KILL 60 "$SAN_REPORT" "$@" >$T/$name.out 2>$T/$name.err
		echo "$?/$(grep -c -e 'runtime error' -e 'AddressSanitizer' $T/$name.err)"
	}
	# a default-mode trace claiming 131,072 live 1-byte samples of one stack at a rate of
	# 2^30: their estimated count (65536ths of a block, each weighted 2^30) passed 2^63, a
	# signed overflow; now held at the bound
	expect_eq "sanitized reader: sampled counts past 2^63 (a forged trace): exit 0, no report" \
		"$(san_run wovf --sites-csv $T/wovf.csv --json $ROOT/tests/fixtures/weight-overflow.zst)" "0/0"
	# 20,000 threads with one event each and 2,000,000 SYNC records (60 KB): every SYNC summed
	# every thread's queue (55 s); now a running count
	expect_eq "sanitized reader: 2 M SYNCs over 20,000 threads: exit 0, no report, within 60 s" \
		"$(san_run syncs --json $ROOT/tests/fixtures/sync-many-threads.zst)" "0/0"
	# 200,000 distinct MODULE records (600 KB): each was compared with every module before
	# (83 s); now an index
	expect_eq "sanitized reader: 200,000 distinct modules: exit 0, no report, within 60 s" \
		"$(san_run mods --json $ROOT/tests/fixtures/modules-200000.zst)" "0/0"
	# --diff of two of these forged traces, each way, text and JSON
	expect_eq "sanitized reader: --diff of forged traces: exit 0, no report" \
		"$(san_run dwovf --json --diff $ROOT/tests/fixtures/weight-overflow.zst $ROOT/tests/fixtures/sync-many-threads.zst)/$(san_run dwovf2 --diff $ROOT/tests/fixtures/sync-many-threads.zst $ROOT/tests/fixtures/weight-overflow.zst)" "0/0/0/0"
	# a call site in a library whose debug information has a compile unit without functions
	# (assembly without .type): the reader sorted its empty vector with qsort(NULL, 0)
	CUZKTRACE_OUT=$T/nofn.zst LD_PRELOAD=$LIB $P/nofncall $P/libnofn.so 2>/dev/null
	# (named once per peak it is live at: the peak heap, and the peak RSS when a sample fell
	# while it was live)
	expect_eq "sanitized reader: a compile unit without functions: exit 0, no report, the site named in the library" \
		"$(san_run nofn $T/nofn.zst)/$(grep -q 'nofn_alloc' $T/nofn.out && echo named)" "0/0/named"
	# --phases-csv on a trace whose first RSS sample comes before any heap event: the empty
	# watch list was sorted with qsort(NULL, 0) (found by fuzzing)
	PYTHONPATH=$ROOT/tests/integration $PY - $T/pcsv0.zst <<'PYEOF'
import sys
from rows import *
body = bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + rss(5, 1 << 20) + alloc(5, 0xA000, 64) + rss(5, 2 << 20)
body += bytes([SYNC]) + uv(100) + bytes([END]) + uv(100) + uv(0) + uv(3) + uv(0)
open(sys.argv[1], "wb").write(z(header()) + z(body))
PYEOF
	expect_eq "sanitized reader: --phases-csv, a sample before any heap event: exit 0, no report, the row after it" \
		"$(san_run pcsv0 --phases-csv $T/pcsv0.csv $T/pcsv0.zst)/$(tail -1 $T/pcsv0.csv)" "0/0/0.000000,(none),64,0,0"
	# 40,000 contiguous cuMemMap ranges and 40,000 cuMemUnmap calls of all of them plus a byte
	# (refused by the driver: nothing unmapped), then the right one (195 bytes of zstd): each
	# refused call walked every range (over 20 s); the same call again, nothing changed since,
	# is not walked again
	PYTHONPATH=$ROOT/tests/integration $PY - $T/cuwalk.zst <<'PYEOF'
import sys
from rows import *
CUDA_MAP, CUDA_UNMAP, N, T0 = 0x2b, 0x2c, 40000, 0x7f0000000000
recs = [bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1)]
recs += [bytes([CUDA_MAP]) + sv(1) + sv(2 << 20 if i else T0) + uv(2 << 20) + uv(7) for i in range(N)]
recs += [bytes([CUDA_UNMAP]) + sv(1) + sv(-(N - 1) * (2 << 20) if i == 0 else 0) + uv(N * (2 << 20) + 1) for i in range(N)]
recs += [bytes([CUDA_UNMAP]) + sv(1) + sv(0) + uv(N * (2 << 20))]
recs += [bytes([SYNC]) + uv(10 * N) + bytes([END]) + uv(10 * N) + uv(0) + uv(2 * N + 1) + uv(0)]
open(sys.argv[1], "wb").write(z(header(version=4)) + z(row_frame(b"".join(recs), 4)))
PYEOF
	expect_eq "sanitized reader: 40,000 refused cuMemUnmap calls over 40,000 ranges: exit 0, no report, within 60 s" \
		"$(san_run cuwalk --json $T/cuwalk.zst)/$(jget $T/cuwalk.out event_counts.cuda_unmap)" "0/0/40001"
fi
