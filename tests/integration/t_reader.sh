# The reader's errors: one line, exit 1 for bad traces, exit 2 for usage.
: >$T/empty.zst
$REPORT $T/empty.zst >/dev/null 2>$T/r1.err; rc=$?
expect_eq "reader: empty file exits 1" $rc 1
expect_eq "reader: empty file message" "$(cat $T/r1.err)" "cuzktrace-report: error: '$T/empty.zst': empty file"
echo "hello" >$T/text.zst
$REPORT $T/text.zst >/dev/null 2>$T/r2.err; rc=$?
expect_eq "reader: not a trace exits 1" $rc 1
expect_eq "reader: not a trace message" "$(cat $T/r2.err)" "cuzktrace-report: error: '$T/text.zst': not a cuzktrace trace"
$REPORT $T/missing.zst >/dev/null 2>$T/r3.err; rc=$?
expect_eq "reader: missing file exits 1" $rc 1
expect_eq "reader: missing file message" "$(cat $T/r3.err)" "cuzktrace-report: error: '$T/missing.zst': No such file or directory"
$REPORT >/dev/null 2>$T/r4.err; rc=$?
expect_eq "reader: no argument exits 2" $rc 2
expect_eq "reader: no argument message" "$(head -1 $T/r4.err)" "cuzktrace-report: error: no TRACE file given"
$REPORT --bogus x >/dev/null 2>$T/r5.err; rc=$?
expect_eq "reader: unknown option exits 2" $rc 2
expect_eq "reader: unknown option message" "$(head -1 $T/r5.err)" "cuzktrace-report: error: unknown option '--bogus'"
$REPORT --help >$T/help.out 2>&1; rc=$?
expect_eq "reader: --help exits 0" $rc 0
for opt in --json --csv; do
	expect_match "reader: --help documents $opt" "$(cat $T/help.out)" "$opt"
done
expect_match "reader: --help documents exit statuses 0, 1 and 2" "$(cat $T/help.out)" $'exit status:\n  0  report written.*\n  1  the trace.*\n  2  usage error'
if [ -w /dev/full ]; then
	$REPORT --help >/dev/full 2>$T/help.err
	expect_eq "reader: --help to a full device: exit 1, one line" "$?/$(cat $T/help.err)" \
		"1/cuzktrace-report: error: cannot write the help to standard output: No space left on device"
fi

# Two traces concatenated: the first is reported, and one warning names the bytes not read.
cat $T/known.zst $T/known.zst >$T/twice.zst
$REPORT --json $T/twice.zst >$T/twice.json 2>$T/twice.err; rc=$?
expect_eq "reader: concatenated traces exit 0 with the first trace's peak" \
	"$rc/$(jget $T/twice.json peak_heap.bytes)" "0/$(jget $T/known.json peak_heap.bytes)"
expect_eq "reader: one warning counts the bytes after the end record" "$(grep 'after the end' $T/twice.err)" \
	"cuzktrace-report: warning: '$T/twice.zst': $(stat -c %s $T/known.zst) bytes after the end record are not read (another trace appended to this one?)"
cat $T/twice.zst | $REPORT /dev/stdin >/dev/null 2>$T/twicep.err
expect_eq "reader: the same through a pipe" "$(grep 'after the end' $T/twicep.err)" \
	"cuzktrace-report: warning: '/dev/stdin': data after the end record is not read (another trace appended to this one?)"
$REPORT $T/known.zst >/dev/null 2>$T/once.err
expect_eq "reader: no such warning for a single trace" "$(grep -c 'after the end' $T/once.err)" 0

# A trace that breaks the SYNC promise (hand-made, format version 1 rows): thread 2's
# allocation at 110 ns is read only after SYNC(200) let everything before 120 be replayed. It is
# replayed late, counted and named in one warning, never dropped silently.
if command -v zstd >/dev/null 2>&1; then
	$PY - $T/late.zst <<'PYEOF'
import subprocess, sys
def uv(v):
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80); v >>= 7
    b.append(v); return bytes(b)
def sv(v): return uv((v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1)
def s(x): return uv(len(x)) + x
FRAME, THREAD, SYNC, END, ALLOC = 1, 2, 3, 4, 0x10
def alloc(dts, daddr, size): return bytes([ALLOC]) + sv(dts) + uv(0) + sv(daddr) + uv(size) + uv(0) + uv(0)
frames = [b"CUZKTRC\0" + (1).to_bytes(2, "little") + s(b"page_size") + s(b"4096") + uv(0),
          bytes([FRAME]) + uv(1) + uv(0) + bytes([THREAD]) + uv(1) + alloc(50, 0xA000, 40) + bytes([SYNC]) + uv(120),
          bytes([FRAME]) + uv(2) + uv(120) + bytes([THREAD]) + uv(1) + alloc(10, 0xC000, 5) + bytes([SYNC]) + uv(200),
          bytes([FRAME]) + uv(3) + uv(200) + bytes([THREAD]) + uv(2) + alloc(-90, 0xB000, 70)
          + bytes([SYNC]) + uv(300) + bytes([END]) + uv(310) + uv(0) + uv(3) + uv(0)]
with open(sys.argv[1], "wb") as f:
    for fr in frames:
        f.write(subprocess.run(["zstd", "-q", "-c"], input=fr, capture_output=True, check=True).stdout)
PYEOF
	$REPORT --json $T/late.zst >$T/late.json 2>$T/late.err; rc=$?
	expect_eq "reader: a late event is replayed and counted" \
		"$rc/$(jget $T/late.json late_events)/$(jget $T/late.json event_counts.alloc)/$(jget $T/late.json live_at_exit.heap_bytes)" "0/1/3/115"
	expect_eq "reader: one warning names the late events" "$(cat $T/late.err)" \
		"cuzktrace-report: warning: '$T/late.zst': 1 events came after later events had been replayed (the trace breaks its SYNC promise); peaks near them may be off by their bytes"
	expect_eq "reader: a trace that keeps the promise has no late events" "$(jget $T/known.json late_events)" 0
fi
