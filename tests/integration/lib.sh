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
