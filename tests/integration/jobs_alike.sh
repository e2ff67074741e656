# jobs_alike.sh: sourced by run.sh once every test file has run. One trace with --jobs 2 (since
# 0.2.31; before, a usage error): its decoding on a thread of its own ahead of the replay.
# Traces the suite made (real ones of every kind, cut, corrupt and forged ones among them; up
# to 200 of them, spread evenly by name, each under 4 MB) read to the same text (with --by
# thread), the same JSON, the same stderr and the same status as with --jobs 1. Each is read
# as a copy in a directory of its own: a trace some program still writes, or new traces beside
# it (the report lists a process's child traces), read the same both times. The traces are
# compared in CUZKTRACE_TEST_JOBS lanes; a trace that differs is named.

# jobs_alike_one TRACE DIR: prints "same TRACE" or "differ TRACE" (every trace one line, so
# that a lane that read nothing does not pass for one that found no difference)
jobs_alike_one() {
	local f=$1 d=$2 j
	mkdir -p "$d" && cp "$f" "$d/t.zst" || { echo "differ $f (cannot copy it)"; return; }
	for j in 1 2; do
		timeout 60 "$REPORT" --jobs $j --by thread "$d/t.zst" >"$d/$j.txt" 2>"$d/$j.err" </dev/null
		echo "rc=$?" >>"$d/$j.err"
		timeout 60 "$REPORT" --jobs $j --json "$d/t.zst" >"$d/$j.json" 2>>"$d/$j.err" </dev/null
		echo "rc=$?" >>"$d/$j.err"
	done
	# the copy's path is the same in both reads: the lines may name it
	if ! cmp -s "$d/1.txt" "$d/2.txt" || ! cmp -s "$d/1.json" "$d/2.json" || ! cmp -s "$d/1.err" "$d/2.err"; then
		echo "differ $f"
	else
		echo "same $f"
	fi
	rm -rf "$d"
}
export -f jobs_alike_one
export REPORT

find "$T" -name '*.zst' -type f -size -4000k | LC_ALL=C sort >"$T/rj.list"
awk -v n="$(wc -l <"$T/rj.list")" 'n <= 200 || NR % int((n + 199) / 200) == 0' "$T/rj.list" >"$T/rj.pick"
# (a name with a line break in it is two lines here: such a line names no file and is skipped)
while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done <"$T/rj.pick" >"$T/rj.files"
nj=$(wc -l <"$T/rj.files")
i=0
while IFS= read -r f; do i=$((i + 1)); printf '%s\0%s\0' "$f" "$T/rjdir/$i"; done <"$T/rj.files" |
	xargs -0 -n 2 -P "$JOBS" bash -c 'jobs_alike_one "$1" "$2"' _ >"$T/rj.out"
grep -v '^same ' "$T/rj.out" | sed 's/^/    /'
expect_eq "reader: --jobs 1 and 2 on one trace: the same text, JSON, stderr and status for every trace the suite made ($nj of them)" \
	"$((nj >= 100))/$(grep -c '^same ' "$T/rj.out")/$(grep -vc '^same ' "$T/rj.out")" "1/$nj/0"
