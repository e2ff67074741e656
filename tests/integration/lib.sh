# lib.sh: the integration tests' few helpers. Sourced by run.sh.
PASS=0
FAIL=0
FAILED_NAMES=()

ok() { PASS=$((PASS + 1)); printf '  ok   %s\n' "$1"; }
bad() {
	FAIL=$((FAIL + 1)); FAILED_NAMES+=("$1"); printf '  FAIL %s\n' "$1"
	shift; for l in "$@"; do printf '       %s\n' "$l"; done
}
# expect_eq NAME GOT WANT
expect_eq() { if [ "$2" == "$3" ]; then ok "$1"; else bad "$1" "got:  $2" "want: $3"; fi; }
# expect_match NAME TEXT REGEX (extended; ^ and $ anchor the whole text, not a line of it)
expect_match() { if [[ $2 =~ $3 ]]; then ok "$1"; else bad "$1" "text:  $2" "regex: $3"; fi; }

PY=/usr/bin/python3
# jget FILE KEY.PATH -> value (JSON null -> "null", true/false lowercase)
jget() {
	$PY - "$1" "$2" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split('.'):
    d = d[int(k)] if isinstance(d, list) else d.get(k) if isinstance(d, dict) else None
print('null' if d is None else json.dumps(d) if isinstance(d, (bool, dict, list)) else d)
PYEOF
}

# rustc_in_make FLAGS...: rustc without make's jobserver variables, which it would otherwise
# try to use (the suite runs under make check)
rustc_in_make() { env -u MAKEFLAGS -u MFLAGS -u CARGO_MAKEFLAGS rustc "$@"; }

# rust_traced NAME RUSTC_FLAGS...: $T/NAME.rs built with -O and the flags, run traced (as
# `traced` does) to $T/NAME.zst, and its report in $T/NAME.json (stderr in $T/NAME.rerr)
rust_traced() {
	local name=$1; shift
	rustc_in_make -O "$@" -o $T/$name $T/$name.rs 2>$T/$name.build
	CUZKTRACE_OUT=$T/$name.zst traced $name $T/$name
	$REPORT --json $T/$name.zst >$T/$name.json 2>$T/$name.rerr
}

# wait_peak_heap TRACE BYTES: until TRACE, read as it is written, holds a peak heap of BYTES
# (the writer has flushed them), 5 s at most: a loaded machine can hold the writer off past a
# fixed sleep
wait_peak_heap() {
	for _ in $(seq 50); do
		sleep 0.1
		[ "$($REPORT --json "$1" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["peak_heap"]["bytes"])' 2>/dev/null)" = "$2" ] && return
	done
}

# traced NAME CMD...: runs CMD under the tracer with stdout/stderr/status in $T/NAME.{out,err,rc}
traced() {
	local name=$1; shift
	LD_PRELOAD=$LIB "$@" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}

# noproc CMD...: CMD in a mount namespace of its own where /proc is an empty tmpfs (no
# /proc/self/maps, no statm); status 125 where this machine makes no such namespace. `noproc
# true` asks whether it can.
noproc() {
	unshare -m true 2>/dev/null || return 125
	unshare -m sh -c 'mount -t tmpfs none /proc && exec "$@"' sh "$@"
}

# traced_json NAME CMD...: traced, killed after 60 s (a hang fails, and does not stop the
# suite), then the report of $T/NAME.zst in $T/NAME.json; prints the live heap bytes at exit
traced_json() {
	local name=$1; shift
	CUZKTRACE_OUT=$T/$name.zst timeout -s KILL 60 env LD_PRELOAD=$LIB "$@" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
	$REPORT --json "$T/$name.zst" >"$T/$name.json" 2>/dev/null
	jget "$T/$name.json" live_at_exit.heap_bytes
}

# report_json NAME: the report of $T/NAME.zst in $T/NAME.json, its stderr in $T/NAME.err and its
# status in $T/NAME.rc
report_json() {
	$REPORT --json "$T/$1.zst" >"$T/$1.json" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}

# frame_sizes FILE: "<frames> <largest decoded size>" of a zstd file, from the frame headers
# (the writer pledges each frame's size, so every header carries it)
frame_sizes() {
	$PY - "$1" <<'PYEOF'
import sys
d = open(sys.argv[1], 'rb').read()
i, sizes = 0, []
while i < len(d):
    assert d[i:i + 4] == b'\x28\xb5\x2f\xfd', 'not a zstd frame at %d' % i
    fhd = d[i + 4]
    single, fcs_code = (fhd >> 5) & 1, fhd >> 6
    p = i + 5 + (0 if single else 1) + [0, 1, 2, 4][fhd & 3]
    n = [1 if single else 0, 2, 4, 8][fcs_code]
    sizes.append(int.from_bytes(d[p:p + n], 'little') + (256 if n == 2 else 0))
    p += n
    while True:  # blocks: 3-byte header, then RLE (1 byte) or the block's bytes
        bh = int.from_bytes(d[p:p + 3], 'little')
        p += 3 + (1 if (bh >> 1) & 3 == 1 else bh >> 3)
        if bh & 1:
            break
    i = p + (4 if (fhd >> 2) & 1 else 0)
print(len(sizes), max(sizes))
PYEOF
}

# writer_of PID: the tracer's writer thread of PID, run with CUZKTRACE_RSS_MS=0 (the one
# thread besides main then), once it exists (5 s at most; empty if none)
writer_of() {
	local w=
	for _ in $(seq 100); do
		w=$(ls /proc/$1/task 2>/dev/null | grep -v "^$1\$" | head -1)
		[ -n "$w" ] && break
		sleep 0.05
	done
	echo "$w"
}

# freeze PID TID SECS [READY [UNTIL THAWED]]: holds thread TID of PID stopped with ptrace (as a
# write hung on a network file system would hold it) for SECS or until PID exits, creating the
# file READY once it is stopped; with UNTIL, also only until the file UNTIL is not empty, and
# creates THAWED once the thread runs again (so that a loaded machine's delays do not move the
# end of the freeze against the program's own steps); prints "exited while frozen" or "still
# running after SECS s" (or "released: UNTIL written"). Needs ptrace of our own child (root, or
# Yama scope 0/1).
freeze() {
	$PY - "$1" "$2" "$3" "${4:-}" "${5:-}" "${6:-}" <<'PYEOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
pid, tid, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
until, thawed = sys.argv[5], sys.argv[6]
if libc.ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 or libc.ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0:
    print('ptrace failed: errno %d' % ctypes.get_errno())
    sys.exit(1)
os.waitpid(tid, 0x40000000)  # __WALL: the stop
if sys.argv[4]:
    open(sys.argv[4], 'w').close()
t0, why = time.time(), None
while time.time() - t0 < secs and os.path.exists('/proc/%d/task/%d' % (pid, pid)):
    with open('/proc/%d/stat' % pid) as f:
        if f.read().split(')')[-1].split()[0] == 'Z':
            break  # exited, not reaped yet
    if until and os.path.exists(until) and os.path.getsize(until) > 0:
        why = 'released: %s written' % until
        break
    time.sleep(0.2)
print(why or ('exited while frozen' if time.time() - t0 < secs else 'still running after %g s' % secs))
libc.ptrace(PTRACE_DETACH, tid, 0, 0)
if thawed:
    open(thawed, 'w').close()
PYEOF
}

# hdr_setting JSON NAME: the header's setting.NAME (jget splits keys at dots)
hdr_setting() { $PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["header"].get("setting." + sys.argv[2]))' "$1" "$2"; }

# human BYTES: the exit line's rendering (three significant digits, binary units), as the
# report's too for the values the tests meet
human() {
	awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB PiB", U, " "); s = 1; i = 1
		while (i < 6 && b * 2 >= s * 2047) { s *= 1024; i++ }
		if (i == 1) { printf "%d B", b; exit }
		c = int((b * 100 + s / 2) / s); d = c < 1000 ? 2 : c < 10000 ? 1 : 0
		m = d == 2 ? 100 : d == 1 ? 10 : 1; r = int((b * m + s / 2) / s)
		if (d == 1 && r >= 1000) { d = 0; m = 1; r = int((b + s / 2) / s) }
		if (d) printf "%d.%0" d "d %s", int(r / m), r % m, U[i]; else printf "%d %s", r, U[i] }'
}
