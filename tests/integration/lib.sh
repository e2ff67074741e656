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

# traced NAME CMD...: runs CMD under the tracer with stdout/stderr/status in $T/NAME.{out,err,rc}
traced() {
	local name=$1; shift
	LD_PRELOAD=$LIB "$@" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
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
