# The reader's errors: one line, exit 1 for bad traces, exit 2 for usage.
: >$T/empty.zst
$REPORT $T/empty.zst >/dev/null 2>$T/r1.err; rc=$?
expect_eq "reader: empty file exits 1" $rc 1
expect_eq "reader: empty file message" "$(cat $T/r1.err)" "cuzktrace-report: error: '$T/empty.zst': empty file"
echo "hello" >$T/text.zst
$REPORT $T/text.zst >/dev/null 2>$T/r2.err; rc=$?
expect_eq "reader: not a trace exits 1" $rc 1
expect_eq "reader: not a trace message" "$(cat $T/r2.err)" "cuzktrace-report: error: '$T/text.zst': not a cuzktrace trace"
# a file of the kernel's says size 0 and holds text: not a trace, not an empty file (it said
# "empty file" before 0.2.44), and is not read (/proc/kmsg would block, taking the kernel's
# messages away)
$REPORT /proc/self/status >/dev/null 2>$T/r2p.err
expect_eq "reader: /proc/self/status (size 0, holds text): 'not a cuzktrace trace', the kernel's, exit 1" \
	"$?/$(cat $T/r2p.err)" "1/cuzktrace-report: error: '/proc/self/status': not a cuzktrace trace (a file of the kernel's: /proc, /sys)"
# another program's zstd file (400 MB of zeros in 12 KB): told by its first bytes, not inflated
# whole first (395 MB of RSS before); under a 100 MB address-space limit it said "out of memory"
if command -v zstd >/dev/null 2>&1; then
	head -c 400000000 /dev/zero | zstd -q -c >$T/zeros.zst
	expect_eq "reader: a big zstd file that is no trace: 'not a cuzktrace trace' within 100 MB of address space (exit 1)" \
		"$( (ulimit -v 100000; $REPORT $T/zeros.zst >/dev/null 2>$T/zeros.err; echo $?))/$(cat $T/zeros.err)" \
		"1/cuzktrace-report: error: '$T/zeros.zst': not a cuzktrace trace"
fi
# Out of memory while reading the modules' debug information is the reader's line, status 1
# (since 0.2.35; libdw's own handler printed "cuzktrace-report: libdw: Cannot allocate memory").
# Under address-space limits of 8 to 64 MB every run ends in one of: the report; the reader's
# out-of-memory line, status 1; the loader's refusal (too little to load at all); or
# libdw's assertion inside its hash table, whose message glibc could not allocate (status
# 134), or its crash in its compile-unit search (status 139; README Limits). At least one run
# meets the out-of-memory line.
# (tests/progs/lib/dwfail.c preloaded, failing nothing, tells a crash inside libdw from one
# in the reader's own code; 2,000 bytes of stderr kept: two modules' warnings passed 300, and a
# warning cut in the middle read as unexpected)
for v in $(seq 8000 1000 64000); do
	( ulimit -v $v; LD_PRELOAD=$P/libdwfail.so $REPORT --jobs 1 $T/known.zst >/dev/null 2>$T/oomv.err; echo "$? $(head -c 2000 $T/oomv.err | tr '\n' '|')" )
done >$T/oomv.all 2>/dev/null
expect_eq "reader: under address-space limits of 8 to 64 MB: the report, the out-of-memory line, the loader's refusal or libdw's assertion or crash; never libdw's own line; the line met" \
	"$(awk -v f="$T/known.zst" '{ rc = $1; sub(/^[0-9]+ /, "") }
		rc == 0 { t = $0; gsub(/cuzktrace-report: warning: cannot read '"'"'[^'"'"']*'"'"': out of memory; its frames are shown as module\+offset\|/, "", t)
			gsub(/cuzktrace-report: warning: out of memory reading the debug information of '"'"'[^'"'"']*'"'"': some of its frames are shown without file:line\|/, "", t)
			gsub(/cuzktrace-report: warning: cannot read the debug information of '"'"'[^'"'"']*'"'"' \([^)]*\): its frames are shown without file:line\|/, "", t)
			if (t == "") next }
		rc == 1 && $0 == "cuzktrace-report: error: '"'"'" f "'"'"': out of memory|" { oom++; next }
		rc == 127 && /error while loading shared libraries/ { next }
		rc == 134 && (/^Unexpected error\.\|/ || /Assertion .htab->table. failed/) { next }
		rc == 139 && $0 == "dwfail: SIGSEGV inside libdw.so|" { next }
		{ print "unexpected: " rc " " $0 }
		END { print (oom > 0) }' $T/oomv.all)" "1"
# ... and on any machine, with the failures put inside libdw (tests/progs/lib/dwfail.c fails its
# allocations after the first K): the same outcomes, or a module left unread with a warning
# (one whose build-id could not be read for want of memory read "changed since it was traced");
# libdw's own crash under it (SIGSEGV in its compile-unit search) is one of libdw's limits too
# (with --csv and --sites-csv outputs: the out-of-memory line's exit removes the temporary of
# --csv, open while stacks are symbolized, where it left `.c.csv.XXXXXX` behind). Where the
# shim finds no libdw, or this libdw's allocations never reach its handler, it is said and
# the line is not asked for.
# A full report that differs from the one read without failures (frames without file:line)
# has a warning that says so (since 0.2.35: libc's frames lost theirs without a word).
mkdir -p $T/dwo
$REPORT --jobs 1 --csv $T/dwo/c.csv --sites-csv $T/dwo/s.csv $T/known.zst >$T/dwf.want 2>/dev/null
for k in $(seq 0 60) 100 130 200 400 800 1600 3200 6400; do
	mkdir -p $T/dwo$k
	CKT_DWFAIL_AFTER=$k LD_PRELOAD=$P/libdwfail.so $REPORT --jobs 1 --csv $T/dwo$k/c.csv --sites-csv $T/dwo$k/s.csv \
		$T/known.zst >$T/dwf.out 2>$T/dwf.err
	rc=$?
	# each module whose frames read otherwise than in the full report is named by a warning
	if [ $rc = 0 ] && ! cmp -s $T/dwf.out $T/dwf.want; then
		$PY - $T/dwf.want $T/dwf.out $T/dwf.err >>$T/dwf.err <<'PYEOF'
import re, sys
want, got = (set(open(f).read().splitlines()) for f in sys.argv[1:3])
err = open(sys.argv[3]).read()
mods = set()
for l in got - want:
    mods.update(re.findall(r"([A-Za-z0-9_.+-]+)\+0x[0-9a-f]+", l))
for m in sorted(mods):
    if "/" + m + "'" not in err:
        print("silent: " + m)
if not mods:
    print("silent: a report unlike the full one, no module+offset in it")
PYEOF
	fi
	echo "$rc $(ls -A $T/dwo$k | grep -vcx 's.csv\|c.csv') $(head -c 600 $T/dwf.err | tr '\n' '|')"
done >$T/dwf.all 2>/dev/null
dwf=$(awk -v f="$T/known.zst" '{ rc = $1; left = $2; sub(/^[0-9]+ [0-9]+ ?/, "") }
	/dwfail: no libdw.so/ { none = 1; next }
	rc == 0 { t = $0; gsub(/cuzktrace-report: warning: cannot read '"'"'[^'"'"']*'"'"': out of memory; its frames are shown as module\+offset\|/, "", t)
		gsub(/cuzktrace-report: warning: out of memory reading the debug information of '"'"'[^'"'"']*'"'"': some of its frames are shown without file:line\|/, "", t)
		gsub(/cuzktrace-report: warning: cannot read the debug information of '"'"'[^'"'"']*'"'"' \([^)]*\): its frames are shown without file:line\|/, "", t)
		if (t == "") next }
	rc == 1 && left == 0 && $0 == "cuzktrace-report: error: '"'"'" f "'"'"': out of memory|" { oom++; next }
	rc == 134 && /Assertion .htab->table. failed/ { next }
	rc == 139 && $0 == "dwfail: SIGSEGV inside libdw.so|" { next }
	{ print "unexpected: " rc " left " left " " $0 }
	END { print (none ? "none" : (oom > 0 ? "met" : "unmet")) }' $T/dwf.all)
case $dwf in
none | unmet) echo "  skip libdw's allocations failing: $([ $dwf = none ] && echo 'the shim found no libdw.so' || echo "no failure reached libdw's out-of-memory handler with this libdw")" ;;
*) expect_eq "reader: libdw's allocations failing: the report (what it could not read said so: a report unlike the full one is never silent), the out-of-memory line (no temporary left), or libdw's own assertion or crash; never libdw's line nor 'changed since it was traced'; the line met" \
	"$dwf" "met" ;;
esac
# zstd without the memory for a frame's window (a frame compressed with a 128 MiB window, read
# within 100 MB of address space): the reader's out-of-memory line (since 0.2.35; it read
# "corrupt zstd frame at byte offset N: Allocation error : not enough memory"), a whole trace
# without the limit
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/known.zst $T/bigwin.zst <<'PYEOF'
import subprocess, sys
from rows import zframes
fr = zframes(open(sys.argv[1], "rb").read())
out = [fr[0]]
for f in fr[1:]:  # each data frame again, with a 128 MiB window and no content size
    raw = subprocess.run(["zstd", "-q", "-d", "-c"], input=f, capture_output=True, check=True).stdout
    out.append(subprocess.run(["zstd", "-q", "-c", "--long=27"], input=raw, capture_output=True, check=True).stdout)
open(sys.argv[2], "wb").write(b"".join(out))
PYEOF
	expect_eq "reader: a frame whose window does not fit within 100 MB of address space: 'out of memory' (exit 1), the trace whole without the limit" \
		"$( (ulimit -v 100000; $REPORT $T/bigwin.zst >/dev/null 2>$T/bigwin.err; echo $?))/$(cat $T/bigwin.err)/$($REPORT $T/bigwin.zst >/dev/null 2>&1; echo $?)" \
		"1/cuzktrace-report: error: '$T/bigwin.zst': out of memory/0"
fi
$REPORT $T/missing.zst >/dev/null 2>$T/r3.err; rc=$?
expect_eq "reader: missing file exits 1" $rc 1
expect_eq "reader: missing file message" "$(cat $T/r3.err)" "cuzktrace-report: error: '$T/missing.zst': No such file or directory"
$REPORT - <&- >/dev/null 2>$T/r3c.err
expect_eq "reader: '-' with the standard input closed: status 1, says so (it read '/dev/stdin': No such file or directory)" \
	"$?/$(cat $T/r3c.err)" "1/cuzktrace-report: error: the standard input ('-', /dev/stdin) is closed"
# ... also as --diff's TRACE after a BASE, whose descriptor took 0 (since 0.2.51: BASE was
# compared with itself, status 0)
$REPORT --diff $T/known.zst - <&- >$T/r3d.out 2>$T/r3d.err
expect_eq "reader: --diff BASE - with the standard input closed: status 1, says so, nothing on stdout" \
	"$?/$(cat $T/r3d.err)/$(wc -c <$T/r3d.out)" "1/cuzktrace-report: error: the standard input ('-', /dev/stdin) is closed/0"
# an output in a directory that is not there is refused before the trace is read, whichever
# output it is: no report, one line, status 1 (before 0.2.45 --sites-csv, --folded and
# --folded-heap were found unwritable after the whole trace had been read and the report written)
CUZKTRACE_OUT=$T/nodir.zst CUZKTRACE_SAMPLE=0 traced nodir $P/leaks
echo x >$T/nodir.file
for o in --csv --phases-csv --sites-csv --folded --folded-heap; do
	$REPORT $o $T/nodir.missing/out $T/nodir.zst >$T/nodir.rep 2>$T/nodir.rerr
	expect_eq "reader: $o in a missing directory: refused before the report" \
		"$?/$(wc -c <$T/nodir.rep)/$(cat $T/nodir.rerr)" \
		"1/0/cuzktrace-report: error: cannot write '$T/nodir.missing/out': No such file or directory"
	$REPORT $o $T/nodir.file/out $T/nodir.zst >$T/nodir.rep 2>$T/nodir.rerr
	expect_eq "reader: $o under a regular file: refused before the report" \
		"$?/$(wc -c <$T/nodir.rep)/$(cat $T/nodir.rerr)" \
		"1/0/cuzktrace-report: error: cannot write '$T/nodir.file/out': Not a directory"
	# a name ending in '/' whose directory is not there (since 0.2.45: 'Is a directory')
	$REPORT $o $T/nodir.missing/ $T/nodir.zst >$T/nodir.rep 2>$T/nodir.rerr
	expect_eq "reader: $o named 'missing/': refused before the report, the directory said missing" \
		"$?/$(wc -c <$T/nodir.rep)/$(cat $T/nodir.rerr)" \
		"1/0/cuzktrace-report: error: cannot write '$T/nodir.missing/': No such file or directory"
	# an existing directory (since 0.2.50: --sites-csv, --folded and --folded-heap said
	# `Is a directory` only after the report)
	mkdir -p $T/nodir.dir
	$REPORT $o $T/nodir.dir $T/nodir.zst >$T/nodir.rep 2>$T/nodir.rerr
	expect_eq "reader: $o naming a directory: refused before the report" \
		"$?/$(wc -c <$T/nodir.rep)/$(cat $T/nodir.rerr)" \
		"1/0/cuzktrace-report: error: cannot write '$T/nodir.dir': Is a directory"
done
# a directory or a file the user may not write (since 0.2.50 refused before the report too:
# `Permission denied` came after it). As root, run as nobody, whom permissions bind; in a
# directory of its own that nobody may enter (the test's is the user's alone)
ro_as=()
[ "$(id -u)" = 0 ] && ro_as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
RO=$(mktemp -d /tmp/ckt-ro.XXXXXX)
chmod 755 $RO
mkdir $RO/ro && chmod 555 $RO/ro
: >$RO/rofile && chmod 444 $RO/rofile
cp $T/nodir.zst $RO/t.zst && chmod 644 $RO/t.zst
for o in --csv --phases-csv --sites-csv --folded --folded-heap; do
	for ro_out in $RO/ro/out $RO/rofile; do
		(cd $RO && "${ro_as[@]}" $REPORT $o $ro_out t.zst >$T/nodir.rep 2>$T/nodir.rerr)
		ro_rc=$?
		expect_eq "reader: $o ${ro_out#$RO/} that the user may not write: refused before the report" \
			"$ro_rc/$(wc -c <$T/nodir.rep)/$(cat $T/nodir.rerr)" \
			"1/0/cuzktrace-report: error: cannot write '$ro_out': Permission denied"
	done
done
# one it may write, in that directory, by a relative name: written
(cd $RO && chmod 777 . && "${ro_as[@]}" $REPORT --folded ok.folded t.zst >$T/nodir.rep 2>$T/nodir.rerr)
expect_eq "reader: --folded by a relative name in a directory the user may write: status 0, written, no line" \
	"$?/$(test -s $RO/ok.folded && echo written)/$(cat $T/nodir.rerr)" "0/written/"
rm -rf $RO
$REPORT >/dev/null 2>$T/r4.err; rc=$?
expect_eq "reader: no argument exits 2" $rc 2
expect_eq "reader: no argument message" "$(head -1 $T/r4.err)" "cuzktrace-report: error: no TRACE file given"
# two traces without --diff, and --diff BASE without TRACE (since 0.2.47): the line says how a
# diff is asked for, where it said only "more than one TRACE given" and "no TRACE file given"
expect_eq "reader: two traces without --diff: the line names --diff" \
	"$($REPORT a.zst b.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
	"cuzktrace-report: error: more than one TRACE given ('a.zst' and 'b.zst'): to compare them, --diff BASE TRACE (--diff 'a.zst' 'b.zst')
rc=2"
expect_eq "reader: --diff BASE without TRACE: the line says what TRACE is" \
	"$($REPORT --diff a.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
	"cuzktrace-report: error: no TRACE file given: --diff BASE TRACE compares TRACE with BASE ('a.zst')
rc=2"
expect_eq "reader: three traces with --diff: no hint" \
	"$($REPORT --diff a.zst b.zst c.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
	"cuzktrace-report: error: more than one TRACE given ('b.zst' and 'c.zst')
rc=2"
$REPORT --bogus x >/dev/null 2>$T/r5.err; rc=$?
expect_eq "reader: unknown option exits 2" $rc 2
expect_eq "reader: unknown option message" "$(head -1 $T/r5.err)" "cuzktrace-report: error: unknown option '--bogus'"
# a value that looks like an option but is none: refused (since 0.2.60: --csv --typo wrote a
# file named '--typo'); given as --csv=--typo it is a file name
(cd $T && $REPORT --csv --typo a.zst >/dev/null 2>$T/typo.err; echo "rc=$?" >>$T/typo.err)
expect_eq "reader: --csv --typo: status 2, the line says it looks like an option and how to name such a file; no file" \
	"$(head -1 $T/typo.err)/$(tail -1 $T/typo.err)/$(ls $T | grep -c -e '^--typo$')" \
	"cuzktrace-report: error: option '--csv' needs a value (FILE), not '--typo', which is no option but looks like one (as its value: --csv=--typo or ./--typo)/rc=2/0"
expect_eq "reader: --phase-rule --synth=f: the whole value named, the = form offered, no ./ (not a path); -x=y named up to its =" \
	"$($REPORT --phase-rule --synth=f a.zst 2>&1 | head -1)/$($REPORT -x=y a.zst 2>&1 | head -1)" \
	"cuzktrace-report: error: option '--phase-rule' needs a value (RULE), not '--synth=f', which is no option but looks like one (as its value: --phase-rule=--synth=f)/cuzktrace-report: error: unknown option '-x'"
# "--=x" is named whole (since 0.2.60: "unknown option '--'", the end of options' own name)
expect_eq "reader: '--=x' and '--bogus=1' named as given, up to the '=' of a name" \
	"$($REPORT --=x a.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")/$($REPORT --bogus=1 a.zst 2>&1 | head -1)" \
	"cuzktrace-report: error: unknown option '--=x'
rc=2/cuzktrace-report: error: unknown option '--bogus'"
# an option where an option's value should be (--diff --json a b took '--json' for BASE): a
# usage error; a file of that name is given as --diff=--json
expect_eq "reader: --diff --json a b: a usage error" "$($REPORT --diff --json a.zst b.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
	"cuzktrace-report: error: option '--diff' needs a value (BASE), not the option '--json'
rc=2"
# ... nor -h, nor the end of the options (since 0.2.27: --csv -h wrote a file named '-h')
expect_eq "reader: --csv -h a.zst, --csv -- a.zst: usage errors" "$(cd $T && $REPORT --csv -h a.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}"; $REPORT --csv -- a.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}"; ls -- -h -- 2>/dev/null)" \
	"cuzktrace-report: error: option '--csv' needs a value (FILE), not the option '-h'
rc=2
cuzktrace-report: error: option '--csv' needs a value (FILE), not '--', the end of the options
rc=2"
expect_eq "reader: --diff=--json: a file of that name" "$($REPORT --diff=--json /nonexistent.zst 2>&1 | head -1)" \
	"cuzktrace-report: error: '--json': No such file or directory"
# an option that takes one value, given twice (--diff, --csv as --option=VALUE): a usage error,
# before the trace is opened (the second value was taken without a word)
for o in "--csv a.csv --csv=b.csv" "--diff x.zst --diff y.zst" "--top 3 --top 4"; do
	expect_eq "reader: $o: given twice, a usage error" "$($REPORT $o /nonexistent.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
		"cuzktrace-report: error: option '${o%% *}' given twice ('$(echo "$o" | awk '{print $2}' | sed 's/.*=//')' and '$(echo "$o" | sed 's/.* //; s/.*=//')')
rc=2"
done
# counts are decimal digits only: a sign, a space, a base prefix or a suffix is refused (a
# leading space was taken before), before the trace is opened
for v in " 5" "+5" "5x" "0x10" "1e3" "0" "1000001"; do
	expect_eq "reader: --top '$v' is a usage error" "$($REPORT --top "$v" /nonexistent.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
		"cuzktrace-report: error: option '--top' needs a number from 1 to 1000000, not '$v'
rc=2"
done
$REPORT --help >$T/help.out 2>&1; rc=$?
expect_eq "reader: --help exits 0" $rc 0
for opt in --json --csv --diff --modules; do
	expect_match "reader: --help documents $opt" "$(cat $T/help.out)" "$opt"
done
expect_eq "reader: --help starts every option's text in one column, one space past the longest option (--folded-heap FILE ran into its text)" \
	"$(grep '^  --' $T/help.out | cut -c21 | sort -u | tr -d '\n')/$(grep '^  --' $T/help.out | cut -c22 | grep -c ' ')/$(grep -c '^  --folded-heap FILE the same' $T/help.out)" " /0/1"
expect_match "reader: --help documents exit statuses 0, 1 and 2" "$(cat $T/help.out)" $'exit status:\n  0  report written.*\n  1  the trace.*\n  2  usage error'
# --version (since 0.2.22: an unknown option): the tracer's version, the formats read, status 0
expect_eq "reader: --version names the version and the formats it reads, exit 0, with or without a TRACE" \
	"$($REPORT --version; echo "/$?")$($REPORT --version $T/none.zst; echo "/$?")" \
	"cuzktrace-report $(sed -n 's/^#define CKT_TRACER_VERSION "\(.*\)"$/\1/p' $ROOT/include/ckt_format.h) (trace format versions 1 to 8)
/0cuzktrace-report $(sed -n 's/^#define CKT_TRACER_VERSION "\(.*\)"$/\1/p' $ROOT/include/ckt_format.h) (trace format versions 1 to 8)
/0"
if [ -w /dev/full ]; then
	$REPORT --help >/dev/full 2>$T/help.err
	expect_eq "reader: --help to a full device: exit 1, one line" "$?/$(cat $T/help.err)" \
		"1/cuzktrace-report: error: cannot write the help to standard output: No space left on device"
fi


# A closed pipe on the standard output (a reader such as head gone): EPIPE, status 1 and one
# line, for the report and for --help (before 0.2.15 SIGPIPE ended it: 141, no line), and for
# a file output given as `-`, named as the standard output too (before 0.2.17: "cannot write
# '-'"). The pipe's read end is closed before the reader starts.
for cp in report help csv; do
	$PY - "$REPORT" "$cp" "$T/known.zst" <<'PYEOF'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
args = {"help": [sys.argv[1], "--help"], "csv": [sys.argv[1], "--csv", "-", sys.argv[3]]}.get(sys.argv[2], [sys.argv[1], sys.argv[3]])
p = subprocess.run(args, stdout=w, stderr=subprocess.PIPE, restore_signals=True)
print("%d/%s" % (p.returncode, p.stderr.decode().strip()))
PYEOF
done >$T/epipe.got
expect_eq "reader: a closed pipe on the standard output: status 1 and one line, report, --help and --csv -" "$(cat $T/epipe.got)" \
	"1/cuzktrace-report: error: cannot write to standard output: Broken pipe
1/cuzktrace-report: error: cannot write the help to standard output: Broken pipe
1/cuzktrace-report: error: cannot write to standard output: Broken pipe"
# A file output given as `-` is put together in a temporary in $TMPDIR: a full $TMPDIR is said
# to be one (since 0.2.25; it read "cannot write to standard output: No space left on device"
# with the standard output a healthy pipe), status 1, nothing written
mkdir -p $T/tfull
if unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs $T/tfull" 2>/dev/null; then
	unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs $T/tfull && { dd if=/dev/zero of=$T/tfull/fill bs=4k 2>/dev/null; true; } &&
		TMPDIR=$T/tfull $REPORT --sites-csv - $T/known.zst >$T/tfull.out 2>$T/tfull.err; echo \$? >$T/tfull.rc"
	TMPDIR=$T/tfull $REPORT --sites-csv - $T/known.zst 2>/dev/null | head -1 >$T/tfull.head
	expect_eq "reader: a full \$TMPDIR under an output given as '-': one line that names it, status 1, nothing on the standard output (with room: the CSV's header)" \
		"$(cat $T/tfull.err)/$(cat $T/tfull.rc)/$(wc -c <$T/tfull.out)/$(head -c 10 $T/tfull.head)" \
		"cuzktrace-report: error: cannot write to standard output: the temporary file it is put together in, in '$T/tfull' (\$TMPDIR, else /tmp), failed: No space left on device/1/0/site,bytes"
else
	echo "  skip a full \$TMPDIR: cannot mount a tmpfs in a new mount namespace"
fi
# Where neither $TMPDIR nor /tmp takes a temporary, `-` is put together in a file in memory:
# whole for a good trace, nothing for one found corrupt midway (it went straight to the
# standard output, and a pipeline got half a CSV). /tmp is made read-only in a mount namespace
# of its own (a bind mount over itself: nothing under it is hidden); where not even a file in
# memory can be made (no memfd_create: tests/progs/lib/nomemfd.c), straight to the standard
# output with one warning that names each refusal.
cp $T/known.zst $T/memfd_good.zst
$PY - $T/known.zst $T/memfd_bad.zst <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) * 2 // 3] ^= 0x55  # a byte of a data frame: corrupt midway, after the header
open(sys.argv[2], "wb").write(bytes(b))
PYEOF
$REPORT --csv - $T/known.zst >$T/memfd_want.out 2>/dev/null # the CSV as it should read
if unshare -m sh -c "mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp && ! touch /tmp/.ckt_ro_probe" 2>/dev/null; then
	for w in good bad; do
		for pre in "" $P/libnomemfd.so; do
			o=$T/memfd_$w${pre:+_nomemfd}
			unshare -m sh -c "exec 4>$o.out 5>$o.err 6>$o.rc; mount --bind /tmp /tmp && mount -o remount,bind,ro /tmp &&
				TMPDIR=/nonexistent LD_PRELOAD=$pre $REPORT --csv - $T/memfd_$w.zst >&4 2>&5; echo \$? >&6" 2>/dev/null
		done
	done
	expect_eq "reader: '-' with no temporary in \$TMPDIR or /tmp: the whole CSV (from memory), status 0" \
		"$(cat $T/memfd_good.rc)/$(cmp -s $T/memfd_good.out $T/memfd_want.out && echo same)/$(cat $T/memfd_good.err)" "0/same/"
	expect_eq "reader: '-' with no temporary in \$TMPDIR or /tmp, a trace corrupt midway: nothing on the standard output, status 1" \
		"$(cat $T/memfd_bad.rc)/$(wc -c <$T/memfd_bad.out)/$(grep -c 'corrupt' $T/memfd_bad.err)" "1/0/1"
	nomemfd_warn="cuzktrace-report: warning: no temporary file to put the output given as '-' together in ('/nonexistent': No such file or directory; '/tmp': Read-only file system; in memory: Function not implemented): it is written straight to standard output, and a trace found corrupt midway leaves part of it there"
	expect_eq "reader: '-' with no temporary anywhere, not even in memory: straight to the standard output, one warning naming each refusal" \
		"$(cat $T/memfd_good_nomemfd.rc)/$(cmp -s $T/memfd_good_nomemfd.out $T/memfd_want.out && echo same)/$(cat $T/memfd_good_nomemfd.err)" \
		"0/same/$nomemfd_warn"
	expect_eq "reader: ... and a trace corrupt midway then leaves part of the CSV, as the warning says (status 1)" \
		"$(cat $T/memfd_bad_nomemfd.rc)/$(($(wc -c <$T/memfd_bad_nomemfd.out) > 0))/$(head -1 $T/memfd_bad_nomemfd.err)" "1/1/$nomemfd_warn"
else
	echo "  skip '-' put together in memory: cannot make /tmp read-only in a new mount namespace"
fi
# $TMPDIR naming no directory: /tmp takes the temporary (it went straight to the output)
TMPDIR=$T/nonexistent $REPORT --csv - $T/known.zst >$T/tmpdir_gone.out 2>$T/tmpdir_gone.err; rc=$?
expect_eq "reader: '-' with \$TMPDIR naming no directory: /tmp takes the temporary, the whole CSV" \
	"$rc/$(cmp -s $T/tmpdir_gone.out $T/memfd_want.out && echo same)/$(cat $T/tmpdir_gone.err)" "0/same/"
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
	PYTHONPATH=tests/integration $PY - $T/late.zst <<'PYEOF'
import sys
from rows import *
frames = [header(),
          bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + alloc(50, 0xA000, 40) + bytes([SYNC]) + uv(120),
          bytes([FRAME]) + uv(1) + uv(120) + bytes([THREAD]) + uv(1) + alloc(10, 0xC000, 5) + bytes([SYNC]) + uv(200),
          bytes([FRAME]) + uv(2) + uv(200) + bytes([THREAD]) + uv(2) + alloc(-90, 0xB000, 70)
          + bytes([SYNC]) + uv(300) + bytes([END]) + uv(310) + uv(0) + uv(3) + uv(0)]
with open(sys.argv[1], "wb") as f:
    for fr in frames:
        f.write(z(fr))
PYEOF
	$REPORT --json $T/late.zst >$T/late.json 2>$T/late.err; rc=$?
	expect_eq "reader: a late event is replayed and counted" \
		"$rc/$(jget $T/late.json late_events)/$(jget $T/late.json event_counts.alloc)/$(jget $T/late.json live_at_exit.heap_bytes)" "0/1/3/115"
	expect_eq "reader: one warning names the late events" "$(cat $T/late.err)" \
		"cuzktrace-report: warning: '$T/late.zst': 1 event came after later events had been replayed (the trace breaks its SYNC promise); peaks near them may be off by their bytes"
	expect_eq "reader: a trace that keeps the promise has no late events" "$(jget $T/known.json late_events)" 0
fi

# A complete trace whose events name a call stack it never defines (the tracer defines each
# before the flush that releases its events): damaged, said in one warning (since 0.2.52: status
# 0 and no word, the bytes under "(stack <id> missing from the trace)"); cut before its end
# record, a stack may be missing with the frame that held it, and nothing is said.
if command -v zstd >/dev/null 2>&1; then
	for und_end in 1 0; do
		PYTHONPATH=tests/integration $PY - $T/undef$und_end.zst $und_end <<'PYEOF'
import sys
from rows import *
end = bytes([END]) + uv(110) + uv(0) + uv(3) + uv(0) if sys.argv[2] == "1" else b""
fr = (bytes([FRAME]) + uv(0) + uv(0) + stack(7, [0x401000]) + bytes([THREAD]) + uv(1)
      + alloc(10, 0xA000, 40, stack=7) + alloc(10, 0x1000, 60, stack=9) + alloc(10, 0x1000, 80, stack=12)
      + bytes([SYNC]) + uv(100) + end)
with open(sys.argv[1], "wb") as f:
    f.write(z(header()) + z(fr))
PYEOF
		$REPORT --json $T/undef$und_end.zst >$T/undef$und_end.json 2>$T/undef$und_end.err
		echo $? >$T/undef$und_end.rc
	done
	expect_eq "reader: a complete trace naming undefined stacks: status 0, the bytes under them, one warning" \
		"$(cat $T/undef1.rc)/$($PY -c 'import json,sys; print(sum(e["bytes"] for e in json.load(open(sys.argv[1]))["sites_at_exit"] if e["site"] == "(stack 9 missing from the trace)"))' $T/undef1.json)/$(cat $T/undef1.err)" \
		"0/60/cuzktrace-report: warning: '$T/undef1.zst': the events name 2 call stacks that the trace never defines (corrupt?), the first id 9: their bytes show as '(stack <id> missing from the trace)'"
	expect_eq "reader: a cut trace naming undefined stacks: only the truncation's warning" \
		"$(cat $T/undef0.rc)/$(grep -c 'never defines' $T/undef0.err)/$(grep -c 'trace is truncated' $T/undef0.err)" "0/0/1"
fi

# AGG's since is nanoseconds, at most (2^32 - 1) x 1000 (the tracer counts whole microseconds
# and caps them at 71 minutes): one over it is a corrupt record (since 0.2.52: 2^64 - 1 was
# read, ran the time it bounds back past the trace's start, and moved a phase's peak without
# a word)
if command -v zstd >/dev/null 2>&1; then
	for agg_since in 4294967295000 4294967295001; do
		PYTHONPATH=tests/integration $PY - $T/aggsince$agg_since.zst $agg_since <<'PYEOF'
import sys
from rows import *
one_frame_trace(sys.argv[1], bytes([0x30]) + sv(10) + sv(1000) + sv(1) + uv(int(sys.argv[2])),
                (b"setting.CUZKTRACE_SAMPLE", b"524288"))
PYEOF
		report_json aggsince$agg_since
	done
	expect_eq "reader: AGG's since at 71 minutes is read; over it, a corrupt record (status 1, the field named)" \
		"$(cat $T/aggsince4294967295000.rc)/$(jget $T/aggsince4294967295000.json live_at_exit.heap_bytes)/$(cat $T/aggsince4294967295000.err)/$(cat $T/aggsince4294967295001.rc)/$(cat $T/aggsince4294967295001.err)" \
		"0/1000//1/cuzktrace-report: error: '$T/aggsince4294967295001.zst': corrupt record (tag 0x30) in frame 1: since 4294967295001 is out of range (at most 4294967295000)"
	# the peak RSS sample's split is its own: a sample with no detail of its own (its status
	# read failed: the program took the descriptors) has none, not an earlier sample's (before
	# 0.2.59 the 1 MB sample's split under the 5 MB peak); hwm_bytes the largest VmHWM read,
	# null where none was
	PYTHONPATH=tests/integration $PY - $T/staledet.zst $T/nodet.zst <<'PYEOF'
import sys
from rows import *
def detail(dts, hwm, anon, file, shmem):
    return bytes([0x17]) + sv(dts) + uv(hwm) + uv(anon) + uv(file) + uv(shmem)
one_frame_trace(sys.argv[1], rss(10, 1000000) + detail(0, 1000000, 900000, 100000, 0) + rss(10, 5000000))
one_frame_trace(sys.argv[2], rss(10, 1000000) + rss(10, 5000000))
PYEOF
	report_json staledet
	report_json nodet
	expect_eq "reader: the peak RSS sample without a detail of its own: no split (text, JSON), hwm_bytes the one VmHWM read; none read: null" \
		"$(cat $T/staledet.rc)/$(jget $T/staledet.json peak_rss.bytes) $(jget $T/staledet.json peak_rss.detail) $(jget $T/staledet.json peak_rss.hwm_bytes)/$($REPORT $T/staledet.zst 2>/dev/null | grep -c 'RSS split')/$(jget $T/nodet.json peak_rss.hwm_bytes) $(jget $T/nodet.json peak_rss.detail)" \
		"0/5000000 null 1000000/0/null null"
fi

# A WAITED record (the program's threads' total wait for room in their rings) longer than its
# threads could wait in the trace's duration: one warning (corrupt?; since 0.2.55 it printed
# 18446744073.710 s of waits for a 0.1 us trace without a word); a possible one, none
if command -v zstd >/dev/null 2>&1; then
	for waited in 18446744073709551615 100; do
		PYTHONPATH=tests/integration $PY - $T/waited$waited.zst $waited <<'PYEOF'
import sys
from rows import *
one_frame_trace(sys.argv[1], rss(10, 1 << 20) + bytes([0x08]) + uv(int(sys.argv[2])) + uv(3))
PYEOF
		report_json waited$waited
	done
	expect_eq "reader: a wait longer than the trace's threads could wait: one warning, status 0; a possible one, none" \
		"$(cat $T/waited18446744073709551615.rc)/$(cat $T/waited18446744073709551615.err)/$(cat $T/waited100.rc)/$(cat $T/waited100.err)/$(jget $T/waited100.json tracer_wait_s)" \
		"0/cuzktrace-report: warning: '$T/waited18446744073709551615.zst': the trace says the program's threads waited 18446744073.710 s for the tracer, more than its 1 thread could in its 0.000 s (corrupt?): the wait figures are not to be trusted/0//0.0"
fi

# Two allocations at one address with no free between them, and no LOST record: the trace lacks
# a free (corrupt, or a frame spliced in from another trace). The stale block is dropped and one
# warning says so (the report's own line said it, stderr did not). With a LOST record the lost
# events' warning explains it, and this one is not given.
if command -v zstd >/dev/null 2>&1; then
	for inc_lost in 0 1; do
		PYTHONPATH=tests/integration $PY - $T/incons$inc_lost.zst $inc_lost <<'PYEOF'
import sys
from rows import *
lost = bytes([0x05]) + uv(1) if sys.argv[2] == "1" else b""  # LOST
fr = (bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + alloc(10, 0xA000, 40) + alloc(10, 0, 60)
      + lost + bytes([SYNC]) + uv(100) + bytes([END]) + uv(110) + uv(0) + uv(2) + uv(0))
with open(sys.argv[1], "wb") as f:
    f.write(z(header()) + z(fr))
PYEOF
		report_json incons$inc_lost
	done
	expect_eq "reader: an allocation at a live address: counted, the stale block dropped, one warning" \
		"$(cat $T/incons0.rc)/$(jget $T/incons0.json inconsistencies)/$(jget $T/incons0.json live_at_exit.heap_bytes)/$(cat $T/incons0.err)" \
		"0/1/60/cuzktrace-report: warning: '$T/incons0.zst': 1 allocation came at an address still live: the trace lacks the frees before them (corrupt, or spliced from another trace?); the blocks they replaced were dropped there"
	# the second allocation stamped after the last SYNC's horizon (15 ns), which no flush
	# promises whole: a process ending while its threads ran on, its last flush taking each
	# thread's ring at another moment (a free on one thread cut, a later allocation of its
	# address on another kept): said as that, not as corruption (since 0.2.50; 2 to 3 runs
	# in 10 of 64 threads calling malloc, realloc and free while main called exit)
	PYTHONPATH=tests/integration $PY - $T/incons2.zst <<'PYEOF2'
import sys
from rows import *
fr = (bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + alloc(10, 0xA000, 40) + alloc(10, 0, 60)
      + bytes([SYNC]) + uv(15) + bytes([END]) + uv(110) + uv(0) + uv(2) + uv(0))
with open(sys.argv[1], "wb") as f:
    f.write(z(header()) + z(fr))
PYEOF2
	report_json incons2
	expect_eq "reader: an allocation at a live address after the last SYNC horizon: counted apart (JSON), the stale block dropped, one warning that says the last flush cut threads" \
		"$(cat $T/incons2.rc)/$(jget $T/incons2.json inconsistencies)/$(jget $T/incons2.json inconsistencies_after_last_sync)/$(jget $T/incons0.json inconsistencies_after_last_sync)/$(jget $T/incons2.json live_at_exit.heap_bytes)/$(cat $T/incons2.err)" \
		"0/1/1/0/60/cuzktrace-report: warning: '$T/incons2.zst': 1 allocation came at an address still live, stamped after the trace's last SYNC horizon (0.000000 s), which no flush promises whole: threads that ran on while the process ended were cut by its last flush at different moments, so frees before them are missing; the blocks they replaced were dropped there"
	expect_eq "reader: the same with a LOST record: the lost events' warning alone" \
		"$(cat $T/incons1.rc)/$(jget $T/incons1.json inconsistencies)/$(cat $T/incons1.err)" \
		"0/1/cuzktrace-report: warning: '$T/incons1.zst': 1 event was lost; totals are inexact"
fi

# The default mode's running totals going below zero: without a LOST record, frees of blocks
# never seen allocated; with one, the lost allocations come first in the warning (it blamed an
# allocator the tracer cannot see, where a signal handler's calls had been lost).
if command -v zstd >/dev/null 2>&1; then
	for bz_lost in 0 1; do
		PYTHONPATH=tests/integration $PY - $T/belowz$bz_lost.zst $bz_lost <<'PYEOF'
import sys
from rows import *
lost = bytes([0x05]) + uv(3) if sys.argv[2] == "1" else b""  # LOST
agg = bytes([0x30]) + sv(10) + sv(-1000000) + sv(-10)       # AGG: 1,000,000 bytes freed
fr = (bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + agg + lost
      + bytes([SYNC]) + uv(100) + bytes([END]) + uv(110) + uv(0) + uv(1) + uv(0))
with open(sys.argv[1], "wb") as f:
    f.write(z(header((b"setting.CUZKTRACE_SAMPLE", b"524288"))) + z(fr))
PYEOF
		report_json belowz$bz_lost
	done
	expect_eq "reader: the default mode's totals 1,000,000 below zero, no events lost: frees never seen allocated" \
		"$(cat $T/belowz0.rc)/$(jget $T/belowz0.json heap_below_zero_bytes)/$(cat $T/belowz0.err)" \
		"0/1000000/cuzktrace-report: warning: '$T/belowz0.zst': the heap's running totals went 977 KiB below zero: the program freed blocks the trace did not see allocated (allocated before the tracer started, or through an entry point it does not hook, such as glibc's __libc_malloc); heap figures may be low by as much (CUZKTRACE_SAMPLE=0 counts only frees of blocks it saw)"
	expect_eq "reader: the same with a LOST record: the lost allocations named first" \
		"$(cat $T/belowz1.rc)/$(jget $T/belowz1.json heap_below_zero_bytes)/$(cat $T/belowz1.err | tr '\n' '|')" \
		"0/1000000/cuzktrace-report: warning: '$T/belowz1.zst': 3 events were lost; totals are inexact|cuzktrace-report: warning: '$T/belowz1.zst': the heap's running totals went 977 KiB below zero: events were lost (above), allocations among them whose frees were counted, or the program freed blocks the trace did not see allocated; heap figures may be low by as much|"
fi

# exactly at the edge: 32,767 bytes of arguments and the kernel's NUL after them are whole (it
# said cut, one byte short: the NUL); one byte more is cut
edge=$((32767 - ${#P} - 11 - 2)) # "$P/bigstacks" and "1", a NUL after each, then the last one
for ek in 0 1; do
	CUZKTRACE_OUT=$T/edgeargv$ek.zst traced edgeargv$ek $P/bigstacks 1 "$(head -c $((edge + ek)) /dev/zero | tr '\0' 'e')"
	$REPORT --json $T/edgeargv$ek.zst >$T/edgeargv$ek.json 2>/dev/null
done
expect_eq "reader: 32,767 bytes of arguments are whole, 32,768 are cut (argv_cut, the last argument's length kept)" \
	"$(jget $T/edgeargv0.json argv_cut)/$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["argv"][2]))' $T/edgeargv0.json)/$(jget $T/edgeargv1.json argv_cut)/$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["argv"][2]))' $T/edgeargv1.json)" \
	"false/$edge/true/$edge"

# a forged args_total (escape codes, or no more than what is kept) is no cut: it was printed
# as it stood, escape codes and all
if command -v zstd >/dev/null 2>&1; then
	for at in esc small; do
		PYTHONPATH=tests/integration $PY - $T/argsfake_$at.zst $at <<'PYEOF'
import sys
from rows import *
total = b"\x1b[2J\x1b[31m" if sys.argv[2] == "esc" else b"3"
fr = bytes([FRAME]) + uv(0) + uv(0) + bytes([SYNC]) + uv(10) + bytes([END]) + uv(20) + uv(0) + uv(0) + uv(0)
with open(sys.argv[1], "wb") as f:
    f.write(z(header((b"args", b"prog\0--flag"), (b"args_total", total))) + z(fr))
PYEOF
		expect_eq "reader: a forged args_total ($at) is not a cut" \
			"$($REPORT $T/argsfake_$at.zst 2>/dev/null | grep '^command line' | od -c | grep -c '033')/$($REPORT $T/argsfake_$at.zst 2>/dev/null | grep -c 'cut:')/$($REPORT --json $T/argsfake_$at.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["argv_cut"])')" \
			"0/0/False"
	done
fi

# report_status NAME DESC WANT: the reader's exit status and stderr on $T/NAME.zst ("rc/stderr")
report_status() {
	$REPORT --json $T/$1.zst >/dev/null 2>$T/$1.err
	expect_eq "$2" "$?/$(cat $T/$1.err)" "$3"
}

# PROT_NONE and mprotect, hand-made (format 5; then the same trace without its MPROTECT records
# in versions 1 to 4, where mappings count by the protection they were made with), the numbers
# worked out by hand (pages of 4096 bytes): A is reserved (64 pages, length rounded up), B is 10
# pages read-write; at 300 us thread 2 closes 4 pages of B (a release: first at equal time) as
# thread 1 opens 8 pages of A (reserved peak 68 pages then); 2 pages of A closed; A[60,68)
# read-only (pages 64..67 are not mapped: ignored) makes the mapped peak, 16 pages at 450 us;
# all unmapped; a file-backed PROT_NONE range is moved and grown to 8 pages by mremap (it keeps
# PROT_NONE) and half of it made read-only
if command -v zstd >/dev/null 2>&1; then
	for mp_v in 5 4 3 2 1; do
		PYTHONPATH=tests/integration $PY - $T/mprot$mp_v.zst $mp_v <<'PYEOF'
import sys
from rows import *
v = int(sys.argv[2])
P, US, A, B, C, D = 4096, 1000, 0x10000000, 0x20000000, 0x30000000, 0x40000000
t1, t2 = Group(1, v), Group(2, v)
t1.mmap(100 * US, A, 64 * P - 100, 1, 0)
t1.mmap(200 * US, B, 10 * P, 1, 3)
if v >= 5:
    t1.mprotect(300 * US, A + 16 * P, 8 * P - 1, 3)
    t1.mprotect(400 * US, A + 20 * P, 2 * P, 0)
    t1.mprotect(450 * US, A + 60 * P, 8 * P, 1)
t1.munmap(500 * US, B, 10 * P)
t1.munmap(600 * US, A, 64 * P)
t1.mmap(700 * US, C, 4 * P, 0, 0)
t1.mremap(800 * US, C, 4 * P, D, 8 * P)
if v >= 5:
    t1.mprotect(900 * US, D, 4 * P, 1)
    t2.mprotect(300 * US, B, 4 * P, 0)
row = bytes([FRAME]) + uv(0) + uv(0) + t1.b + t2.b + bytes([SYNC]) + uv(1000 * US)
row += bytes([END]) + uv(1000 * US) + uv(0) + uv(0) + uv(0)
open(sys.argv[1], 'wb').write(z(header(version=v)) + z(row_frame(row, v)))
PYEOF
		$REPORT --json $T/mprot$mp_v.zst >$T/mprot$mp_v.json 2>$T/mprot$mp_v.err
		mp_got=$($PY - $T/mprot$mp_v.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
c, l = d['event_counts'], d['live_at_exit']
print(c['mmap'], c['munmap'], c['mremap'], c['mprotect'], d['peak_mmap']['bytes'], d['peak_mmap']['t_s'],
      d['peak_mmap_file']['bytes'], d['peak_reserved']['bytes'], d['peak_reserved']['t_s'],
      l['anon_mmap_bytes'], l['file_mmap_bytes'], l['reserved_bytes'])
PYEOF
)
		if [ $mp_v = 5 ]; then
			mp_want="3 2 1 5 65536 0.00045 16384 278528 0.0003 0 16384 16384"
		else
			mp_want="3 2 1 0 40960 0.0002 0 262144 0.0001 0 0 32768"
		fi
		expect_eq "PROT_NONE and mprotect, hand-made, format $mp_v: counts, peaks, live (reader)" \
			"$(cat $T/mprot$mp_v.err)$mp_got" "$mp_want"
		# the independent oracle reads the same numbers from the format specification
		mp_o=$($PY tests/oracle/oracle.py --flat $T/mprot$mp_v.zst | awk '
			{ v[$1] = $2 }
			END { print v["event_counts.mmap"], v["event_counts.munmap"], v["event_counts.mremap"],
			      v["event_counts.mprotect"], v["peak_mmap.bytes"], v["peak_mmap.t_s"] + 0,
			      v["peak_mmap_file.bytes"], v["peak_reserved.bytes"], v["peak_reserved.t_s"] + 0,
			      v["live_at_exit.anon_mmap_bytes"], v["live_at_exit.file_mmap_bytes"],
			      v["live_at_exit.reserved_bytes"] }')
		expect_eq "PROT_NONE and mprotect, hand-made, format $mp_v: the oracle agrees" "$mp_o" "$mp_want"
	done
fi
# --diff of traces two tracers wrote (since 0.2.42): the format 4 trace above against the
# format 5 one of the same calls reads +24 KiB (+60%) at the peak mmap for the mprotect records
# format 5 added; one warning says the tracers differ (before, none), the JSON names both;
# two traces of one format whose tracers differ say it too, their versions cleaned as every
# string from a trace; the same tracer (every other diff here) says nothing
if command -v zstd >/dev/null 2>&1; then
	$REPORT --json --diff $T/mprot4.zst $T/mprot5.zst >$T/dver.json 2>$T/dver.err
	expect_eq "diff of two trace formats: exit 0, the mmap change, one warning, the versions in JSON" \
		"$?/$(jget $T/dver.json peaks.peak_mmap.change)/$(jget $T/dver.json format_version)/$(jget $T/dver.json tracer_version)/$(cat $T/dver.err)" \
		"0/24576/{\"base\": 4, \"trace\": 5}/{\"base\": null, \"trace\": null}/cuzktrace-report: warning: --diff: '$T/mprot4.zst' and '$T/mprot5.zst' were written by different tracers (version unknown, trace format 4, and version unknown, format 5): what a tracer records changed between versions, so part of a change may be the tracer's, not the program's; trace both with the same tracer"
	for dv in a b; do
		PYTHONPATH=tests/integration $PY - $T/dver$dv.zst $dv <<'PYEOF'
import sys
from rows import *
v = 8
ver = b"0.2.40" if sys.argv[2] == "a" else b"0.2.41\x1b[2J"
t1 = Group(1, v)
t1.mmap(100000, 0x10000000, 4 * 4096, 1, 3)
row = bytes([FRAME]) + uv(0) + uv(0) + t1.b + bytes([SYNC]) + uv(200000)
row += bytes([END]) + uv(200000) + uv(0) + uv(0) + uv(0)
open(sys.argv[1], 'wb').write(z(header((b"tracer_version", ver), version=v)) + z(row_frame(row, v)))
PYEOF
	done
	$REPORT --diff $T/dvera.zst $T/dverb.zst >/dev/null 2>$T/dver2.err
	expect_eq "diff of one format by two tracers: exit 0, one warning, the versions cleaned" "$?/$(cat $T/dver2.err)" \
		"0/cuzktrace-report: warning: --diff: '$T/dvera.zst' and '$T/dverb.zst' were written by different tracers (0.2.40, trace format 8, and 0.2.41?[2J, format 8): what a tracer records changed between versions, so part of a change may be the tracer's, not the program's; trace both with the same tracer"
	$REPORT --diff $T/dvera.zst $T/dvera.zst >/dev/null 2>$T/dver3.err
	expect_eq "diff of one tracer's traces: no such warning" "$(grep -c 'different tracers' $T/dver3.err)" 0
fi

# Hand-made corrupt traces (format version 1 rows): a size no allocation can have; sums that
# only overlapping blocks can reach; a block header that claims more bytes than the file has
# left, in a frame followed by whole frames (corrupt, not cut); the same in the last frame
# (which cannot be told from a cut: a warning names it).
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T <<'PYEOF'
import sys
from rows import *
T = sys.argv[1]
head = header()
def frame(i, t0, body, last=False, pre=b""):
    """the i-th data frame (1 is the first, numbered 0); pre: records of no thread group, after FRAME"""
    return (bytes([FRAME]) + uv(i - 1) + uv(t0) + pre + bytes([THREAD]) + uv(1) + body + bytes([SYNC]) + uv(t0 + 100)
            + (bytes([END]) + uv(t0 + 100) + uv(0) + uv(1) + uv(0) if last else b""))
def write(name, frames):
    data = [z(f) for f in frames]
    open(T + "/" + name, "wb").write(b"".join(data))
    return data
write("huge.zst", [head, frame(1, 0, alloc(10, 0xA000, 1 << 60), True)])
# an anonymous mapping 4 KiB below 2^64, and one of 2^57 - 1 bytes, which whole pages made a
# peak of exactly 2^57 (both were read before 0.2.17)
def mmap_rec(addr, n):
    return bytes([MMAP]) + sv(10) + sv(addr) + uv(n) + uv(1) + uv(3) + uv(0) + uv(0)
write("mapwrap.zst", [head, frame(1, 0, mmap_rec(-4096, 8192), True)])
# an end record stamped before the trace's one event (at 1,005 ns; JSON times are in whole microseconds): read, with one warning,
# and the duration runs to that event (before 0.2.17: 0 s, silently, the peak after it)
write("endearly.zst", [head, bytes([FRAME]) + uv(0) + uv(1000) + bytes([THREAD]) + uv(1) + alloc(5, 0xA000, 100)
                       + bytes([SYNC]) + uv(1010) + bytes([END]) + uv(0) + uv(0) + uv(1) + uv(0)])
write("maphuge.zst", [head, frame(1, 0, mmap_rec(0x10000, (1 << 57) - 1), True)])
# an end record stamped 2^63 - 1 ns (292 years) after a trace whose last event and flush are at
# about 1 us: one warning, the duration runs to the flush (before 0.2.55: 9223372036.855 s,
# silently); and one an hour after them, as a process stopped during its final flush can be
for name, end in ((b"endlate", (1 << 63) - 1), (b"endhour", 3600 * 10**9 + 1010)):
    write(name.decode() + ".zst", [head, bytes([FRAME]) + uv(0) + uv(1000) + bytes([THREAD]) + uv(1) + alloc(5, 0xA000, 100)
                                   + bytes([SYNC]) + uv(1010) + bytes([END]) + uv(end) + uv(0) + uv(1) + uv(0)])
# a CUDA allocation on device 2^40 (ordinals fit 32 bits; 2^32 - 1 is "no device"): corrupt,
# where it was taken for no device (since 0.2.21)
write("cudadev.zst", [head, frame(1, 0, bytes([0x28]) + sv(10) + uv(0) + uv(1 << 40) + sv(0x7000000) + uv(4096)
                                  + uv(0) + uv(0) + uv(1), True)])
write("overlap.zst", [head, frame(1, 0, b"".join(alloc(1, 0x1000, 1 << 56) for _ in range(80)), True)])
# the default mode's set of samples full (a LIMIT record of kind 2), then an allocation at an
# address still live: the missed free of a sample, not corruption (since 0.2.36)
write("samplesfull.zst", [head, frame(1, 0, alloc(10, 0xA000, 16) + alloc(10, 0, 16), True, pre=bytes([0x09]) + uv(5) + uv(2))])
# 100,000 modules nested in one another (module i spans [0x400000 + 16 i, + 1 MiB), named
# without a path: shown as module+offset, silently), then 4,000 stacks of 100 frames in the
# oldest 2,000 of them, the frame 0x400008 + 16 k in module k, the newest that holds it: the
# spans cut into more than 16 pieces a module, which the index of pieces left off, and every
# frame scanned the modules down to its own (a minute and more; since 0.2.40 a segment tree of
# the pieces: under a second)
nest = bytearray(bytes([FRAME]) + uv(0) + uv(0))
for i in range(100000):
    nest += module(0x400000 + 16 * i, 0x500000 + 16 * i, b"nest%d" % i)
for k in range(4000):
    nest += stack(k + 1, [0x400008 + 16 * ((k * 100 + f) % 2000) for f in range(100)])
nest += bytes([THREAD]) + uv(1)
for k in range(4000):
    nest += alloc(1, 0x10000 if k == 0 else 0x100, 100 + k, k + 1)
nest += bytes([SYNC]) + uv(9000) + bytes([END]) + uv(9000) + uv(0) + uv(4000) + uv(0)
write("nested.zst", [head, bytes(nest)])
rate = header((b"setting.CUZKTRACE_SAMPLE", str(1 << 62).encode()))
write("rate.zst", [rate, frame(1, 0, alloc(10, 0xA000, 16), True)])
for name, key, val in (("idpid", b"pid", b"-1"), ("idppid", b"ppid", b"4096x"), ("idstart", b"start_wall_ns", b"18446744073709551615")):
    write(name + ".zst", [header((key, val)), frame(1, 0, alloc(10, 0xA000, 16), True)])
def bump_block(data):
    # the first block header of the frame, after the magic, descriptor, window and sizes
    fhd = data[4]; single, fcs = (fhd >> 5) & 1, fhd >> 6
    p = 5 + (0 if single else 1) + [0, 1, 2, 4][fhd & 3] + [1 if single else 0, 2, 4, 8][fcs]
    bh = int.from_bytes(data[p:p + 3], "little")
    bh = (bh & 7) | (4000 << 3)  # 4000 bytes: past the end of these small files
    return data[:p] + bh.to_bytes(3, "little") + data[p + 3:]
fr = [head] + [frame(i, 100 * i, alloc(10, 0xA000 + i * 0x100, 40)) for i in range(1, 4)] + [frame(4, 400, b"", True)]
data = [z(f) for f in fr]
mid = data[:2] + [bump_block(data[2])] + data[3:]
open(T + "/midcut.zst", "wb").write(b"".join(mid))
open(T + "/midcut.off", "w").write("%d %d\n" % (len(b"".join(data[:2])), len(b"".join(data[:3]))))
# the same with 3 zero bytes appended: still corrupt, not a cut
open(T + "/midcutz.zst", "wb").write(b"".join(mid) + bytes(3))
last = data[:-1] + [bump_block(data[-1])]
open(T + "/lastcut.zst", "wb").write(b"".join(last))
open(T + "/lastcut.off", "w").write("%d\n" % len(b"".join(data[:-1])))
# zeros where frames should be: what a file system that lost the last writes of a crash
# leaves (the size updated, the data not), or a preallocated file. At the end: the trace ends
# there (without END: truncated); in the middle, before whole frames: corrupt
open(T + "/zerotail.zst", "wb").write(b"".join(data[:-1]) + bytes(70000))
open(T + "/zerotail.off", "w").write("%d\n" % len(b"".join(data[:-1])))
open(T + "/zeroend.zst", "wb").write(b"".join(data) + bytes(4096))
# ... the same trace with its last frame (the END record) made of raw blocks, empty ones to
# pad, so that it ends on a 4 KiB boundary, then a hole: the file system knows no data past
# it (before the fix of 0.2.57's hole skipping: refused as corrupt)
def raw_blocks_to(prefix, content, align):
    hdr = b"\x28\xb5\x2f\xfd\x00\x00"  # magic, no checksum or size, a 1 KiB window
    m = ((-(len(prefix) + len(hdr) + len(content))) * 2731) % align  # 3 m = the pad (2731 = 1/3 mod 4096)
    while m < len(content):
        m += align
    sizes = [1] * len(content) + [0] * (m - len(content))
    out, at = bytearray(hdr), 0
    for i, n in enumerate(sizes):
        out += ((n << 3) | (i == len(sizes) - 1)).to_bytes(3, "little") + content[at:at + n]
        at += n
    assert (len(prefix) + len(out)) % align == 0
    return bytes(out)
head_and_body = b"".join(data[:-1])
open(T + "/zeroalign.zst", "wb").write(head_and_body + raw_blocks_to(head_and_body, fr[-1], 4096))
open(T + "/zeromid.zst", "wb").write(b"".join(data[:2]) + bytes(100) + b"".join(data[2:]))
# zeros from inside the last frame (its first half written): that frame is dropped
open(T + "/zerocut.zst", "wb").write(b"".join(data[:-1]) + data[-1][:len(data[-1]) // 2] + bytes(5000))
open(T + "/zerocut.off", "w").write("%d %d\n" % (len(b"".join(data[:-1])), len(b"".join(data[:-1])) + len(data[-1]) // 2))
# a zstd frame with no data between data frames; a second trace's header after a cut trace;
# a file of the zstd magic's first two bytes
open(T + "/emptyframe.zst", "wb").write(b"".join(data[:2]) + z(b"") + b"".join(data[2:]))
open(T + "/header2.zst", "wb").write(b"".join(data[:2]) + b"".join(data))
open(T + "/magic2.zst", "wb").write(data[0][:2])
# the header frame cut (its first half written) and zeros after it, at a few cut points
for k in (1, 2, 3):
    cut = data[0][:len(data[0]) * k // 4]
    open(T + "/hdrzero%d.zst" % k, "wb").write(cut + bytes(5000))
    # the zeros start where the bytes written end, or before, at zeros of their own
    z0 = len(cut.rstrip(b"\0"))
    open(T + "/hdrzero%d.off" % k, "w").write("%d %d\n" % (z0, len(cut) + 5000 - z0))
# a whole trace whose last byte (its checksum's) is 0, and the same with a byte of a middle
# frame flipped: corrupt, not a cut with a zero byte after it (one trace in 256 ends so)
for e in range(500, 100000):
    lz = data[:-1] + [z(frame(4, e, b"", True))]
    if lz[-1][-1] == 0:
        break
open(T + "/lastzero.zst", "wb").write(b"".join(lz))
flip = bytearray(b"".join(lz)); flip[len(b"".join(lz[:2])) + len(lz[2]) // 2] ^= 0x55
open(T + "/lastzeroflip.zst", "wb").write(bytes(flip))
# ... and with a byte of the header frame flipped: corrupt too, not a header cut into zeros
hflip = bytearray(b"".join(lz)); hflip[len(lz[0]) // 2] ^= 0x55
open(T + "/lastzerohflip.zst", "wb").write(bytes(hflip))
open(T + "/lastzero.off", "w").write("%d\n" % len(b"".join(lz[:2])))
# a middle frame's byte flipped in a trace that then ends in 3 zero bytes: corrupt (whole frames
# follow it), not a cut
open(T + "/flipzeros.zst", "wb").write(bytes(flip) + bytes(3))
# bytes from the trace that would drive a terminal or break a CSV: a module path with a line
# break and an escape sequence, a phase name with invalid UTF-8, a comma, a line break, a quote
# (and invalid UTF-8, and CSI as a C1 control in UTF-8)
evil = module(0x400000, 0x500000, b"/nonexistent/a\nb\x1b[31m\xff\xc2\x9b1m")
write("evilpath.zst", [head, frame(1, 0, alloc(10, 0xA000, 64, stack=1), True, evil + stack(1, [0x400100]))])
# 30 modules whose files are gone, one of them listed at three spans (dlopened again at
# other addresses), a stack through all 32 spans
mods = b"".join(module(0x1000000 * (i + 1), 0x1000000 * (i + 1) + 0x100000, b"/nonexistent/m%02d.so" % i) for i in range(30))
mods += module(0x40000000, 0x40100000, b"/nonexistent/m00.so") + module(0x50000000, 0x50100000, b"/nonexistent/m00.so")
write("manymods.zst", [head, frame(1, 0, alloc(10, 0xA000, 64, stack=1), True,
      mods + stack(1, [0x1000000 * (i + 1) + 0x10 for i in range(30)] + [0x40000010, 0x50000010]))])
write("evilphase.zst", [head, frame(1, 0, phase_begin(5, 1) + alloc(5, 0xA000, 64, phase=1) + rss(5, 1 << 20),
                                    True, phase_def(1, b"\xff\xfe,a\nb\"c"))])
# a phase at the peak RSS of one trace, and a trace of the same without RSS samples (--diff)
write("phrss.zst", [head, frame(1, 0, phase_begin(5, 1) + alloc(5, 0xA000, 64, phase=1) + rss(5, 1 << 20),
                                True, phase_def(1, b"prove"))])
write("phnorss.zst", [head, frame(1, 0, phase_begin(5, 1) + alloc(5, 0xA000, 64, phase=1), True, phase_def(1, b"prove"))])
# an empty phase name (cuzktrace_phase_push("")): a row of its own, shown as "" (it was blank)
write("emptyph.zst", [head, frame(1, 0, phase_begin(5, 1) + alloc(5, 0xA000, 64, phase=1) + rss(5, 1 << 20),
                                  True, phase_def(1, b""))])
# a phase name with a C1 control (CSI), a bidirectional override and a line separator: valid
# UTF-8 that JSON allows raw, but a terminal or an editor showing the JSON acts on
write("evilu.zst", [head, frame(1, 0, phase_begin(5, 1) + alloc(5, 0xA000, 64, phase=1) + rss(5, 1 << 20),
                                True, phase_def(1, "x\u009by\u202ez\u2028w\u00e9".encode()))])
# header settings that are no numbers, or out of range; stacks longer than any tracer writes
write("rategarbage.zst", [header((b"setting.CUZKTRACE_SAMPLE", b"12k")), frame(1, 0, alloc(10, 0xA000, 16), True)])
# the page size rounds mapping lengths: a mapping of 5,000 bytes under pages of 64 KiB, of 4 KiB
# (no page_size: taken as 4096, and said), and page sizes that are none
pg = Group(1)
pg.mmap(10, 0x10000000, 5000, 1, 3)
for name, ps in ((b"page64k", b"65536"), (b"pagenone", None), (b"pageabc", b"abc"), (b"page3", b"3"),
                 (b"page2g", b"2147483648"), (b"pageempty", b"")):
    open(T + "/" + name.decode() + ".zst", "wb").write(z(header(page_size=ps)) + z(
        bytes([FRAME]) + uv(0) + uv(0) + pg.b + bytes([SYNC]) + uv(100) + bytes([END]) + uv(100) + uv(0) + uv(1) + uv(0)))
write("deep300.zst", [header((b"setting.CUZKTRACE_DEPTH", b"300")), frame(1, 0, alloc(10, 0xA000, 16), True)])
write("flush0.zst", [header((b"setting.CUZKTRACE_FLUSH_MS", b"0")), frame(1, 0, alloc(10, 0xA000, 16), True)])
write("utf8argv.zst", [header((b"argv", "prover\ncafé\n\x1b[2J".encode())), frame(1, 0, alloc(10, 0xA000, 16), True)])
write("rsshuge.zst", [head, frame(1, 0, rss(5, (1 << 64) - 1), True)])
# a thread name ending in digits with no sibling to fold with, longer than the kernel's 15
# characters (the label's buffer was sized for the stem: glibc aborted on the overflow)
write("tname.zst", [head, frame(1, 0, alloc(5, 0xA000, 64), True, thread_name(0, 1, b"x" + b"1" * 100))])
for n in (1024, 1025):
    write("stack%d.zst" % n, [head, frame(1, 0, alloc(10, 0xA000, 16, stack=1), True,
                                         stack(1, [0x400000 + 16 * k for k in range(n)]))])
# a size whose varint's tenth byte holds more than bit 63 (its high bits were dropped); an
# end record twice
write("varint10.zst", [head, frame(1, 0, bytes([ALLOC]) + sv(10) + uv(0) + sv(0xA000) + b"\xff" * 9 + b"\x7f" + uv(0) + uv(0), True)])
write("end2.zst", [head, frame(1, 0, alloc(10, 0xA000, 16), True) + bytes([END]) + uv(200) + uv(0) + uv(1) + uv(0)])
# a module at a kernel file that says it is regular (/proc/kmsg would block the read, and take
# the kernel's messages; /proc/version stands for it): not opened
write("procmod.zst", [head, frame(1, 0, alloc(10, 0xA000, 64, stack=1), True,
      module(0x400000, 0x500000, b"/proc/version") + stack(1, [0x400100]))])
# a frame that decompresses to 17 MiB (a few KB of zstd): no tracer writes over 1 MiB
big = write("bigframe.zst", [head, frame(1, 0, b"") + bytes([5, 0]) * (17 << 19)])  # LOST 0, 17 MiB of them
open(T + "/bigframe.off", "w").write("%d\n" % len(big[0]))
PYEOF
	report_status huge "reader: a size of 2^60 bytes is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/huge.zst': corrupt record (tag 0x10) in frame 1: a size of 2^57 bytes or more"
	$REPORT --json $T/endearly.zst >$T/endearly.json 2>$T/endearly.err
	expect_eq "reader: an end record stamped before an event: status 0, one warning, the duration runs to the event" \
		"$?/$(cat $T/endearly.err)/$(jget $T/endearly.json duration_s) $(jget $T/endearly.json peak_heap.t_s)" \
		"0/cuzktrace-report: warning: '$T/endearly.zst': the end record is stamped at 0.000000 s, before events stamped up to 0.000001 s (corrupt?): the trace's duration runs to its last event/1e-06 1e-06"
	$REPORT --json $T/endlate.zst >$T/endlate.json 2>$T/endlate.err
	expect_eq "reader: an end record stamped 292 years after the last event and flush: status 0, one warning, the duration runs to the flush" \
		"$?/$(cat $T/endlate.err)/$(jget $T/endlate.json duration_s)" \
		"0/cuzktrace-report: warning: '$T/endlate.zst': the end record is stamped at 9223372036.854776 s, over an hour after the trace's last event and flush, at 0.000001 s (corrupt?): the trace's duration runs to that flush/1e-06"
	$REPORT --json $T/endhour.zst >$T/endhour.json 2>$T/endhour.err
	expect_eq "reader: an end record an hour after the last flush: no warning, the duration its" \
		"$?/$(cat $T/endhour.err)/$(jget $T/endhour.json duration_s)" "0//3600.000001"
	report_status mapwrap "reader: a mapping past the top of the address space is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/mapwrap.zst': corrupt record (tag 0x13) in frame 1: a mapping that ends past the top of the address space"
	report_status cudadev "reader: a CUDA device ordinal past 32 bits is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/cudadev.zst': corrupt record (tag 0x28) in frame 1: CUDA device ordinal 1099511627776 is out of range (at most 4294967295)"
	report_status maphuge "reader: a mapping of 2^57 - 1 bytes is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/maphuge.zst': corrupt record (tag 0x13) in frame 1: a mapping of 2^57 - 2^30 bytes or more"
	report_status overlap "reader: 80 live blocks of 2^56 bytes are corruption, not an overflow (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/overlap.zst': corrupt trace: more bytes than any process can have (over 2^59 live in one space, or 2^62 allocated in all)"
	$REPORT $T/samplesfull.zst >/dev/null 2>$T/samplesfull.err
	expect_eq "reader: an allocation at a live address after the set of samples filled: said as the missed frees, not corruption" \
		"$?/$(cat $T/samplesfull.err)" \
		"0/cuzktrace-report: warning: '$T/samplesfull.zst': the tracer's set of sampled blocks filled at 0.000 s: blocks sampled since then may be missing from it, their frees not recorded, so the estimates by site and phase count them live to the end (heap totals are not affected)
cuzktrace-report: warning: '$T/samplesfull.zst': 1 allocation came at an address still live: the frees of samples taken while the tracer's set of sampled blocks was full are not in the trace (above); the blocks they replaced were dropped there"
	timeout 20 $REPORT --folded-heap $T/nested.folded $T/nested.zst >/dev/null 2>$T/nested.err
	expect_eq "reader: 100,000 modules nested in one another, 400,000 frames in them: each frame in the newest module that holds it, in seconds (status 0, no line)" \
		"$?/$(cat $T/nested.err)/$(wc -l <$T/nested.folded)/$(grep -c '^nest199+0x8;nest198+0x8;.*;nest100+0x8 418200$' $T/nested.folded)/$(grep -c '^nest1999+0x8;.*;nest1900+0x8 421800$' $T/nested.folded)" \
		"0//20/1/1"
	# one program listed at 1,000 bases (a forged 10 KB trace), a stack of 3 of its functions at
	# each: it is opened once and serves every base (since 0.2.40), where each base opened it and
	# read its debug information anew (1.9 GB here; 300 bases took 580 MB): within 512 MB of
	# address space, the report, each frame named
	cp $REPORT $T/twin.elf
	nm $T/twin.elf | awk '$2 == "T" && ($3 == "main" || $3 == "ckt_decode_next" || $3 == "ckt_sym_lookup") { print $1 }' >$T/twin.offs
	PYTHONPATH=tests/integration $PY - $T <<'PYEOF'
import sys
from rows import *
T = sys.argv[1]
offs = [int(x, 16) for x in open(T + "/twin.offs").read().split()]
# the span of its loaded segments, as the tracer records it (the reader checks it since 0.2.43:
# the file has no build-id)
import struct
elf = open(T + "/twin.elf", "rb").read()
phoff, = struct.unpack_from("<Q", elf, 0x20)
phsz, phn = struct.unpack_from("<HH", elf, 0x36)
end = max(v + m for t, v, m in (struct.unpack_from("<I12xQ16xQ", elf, phoff + k * phsz) for k in range(phn)) if t == 1)
for name, spelled in (("twin", lambda i: "/"), ("twinpath", lambda i: "/" + "./" * i)):
    body = bytearray(bytes([FRAME]) + uv(0) + uv(0))
    for i in range(1, 1001):
        body += module(i << 28, (i << 28) + end, (T + spelled(i) + "twin.elf").encode())
    for i in range(1, 1001):
        body += stack(i, [(i << 28) + o + 0x10 for o in offs])
    body += bytes([THREAD]) + uv(1)
    for i in range(1, 1001):
        body += alloc(1, 0x10000 if i == 1 else 0x100, 100, i)
    body += bytes([SYNC]) + uv(9000) + bytes([END]) + uv(9000) + uv(0) + uv(1000) + uv(0)
    open(T + "/" + name + ".zst", "wb").write(z(header()) + z(bytes(body)))
PYEOF
	(ulimit -v 524288; $REPORT --top 1 $T/twin.zst >$T/twin.out 2>$T/twin.err)
	expect_eq "reader: one program listed at 1,000 bases: opened once, within 512 MB of address space (status 0, no line, every frame named)" \
		"$?/$(cat $T/twin.err)/$(grep -c '^  #1  97.7 KiB (100000 bytes), 100.0% of the peak, 1000 allocations live$' $T/twin.out)/$(grep -A3 '^  #1 ' $T/twin.out | sed -n 2,4p | sed 's/ (.*//; s/^ *//' | tr '\n' ' ')/$(wc -c <$T/twin.offs)" \
		"0//1/ckt_decode_next <- ckt_sym_lookup <- main /51"
	# the same file under 1,000 spellings of its path (T/./twin.elf, T/././twin.elf, ...,
	# written above): opened once since 0.2.41 (by device and inode), where each spelling
	# opened it anew (out of 512 MB)
	(ulimit -v 524288; $REPORT --top 1 $T/twinpath.zst >$T/twinpath.out 2>$T/twinpath.err)
	expect_eq "reader: one program under 1,000 spellings of its path: opened once, within 512 MB of address space (status 0, no line, every frame named)" \
		"$?/$(cat $T/twinpath.err)/$(grep -c '^  #1  97.7 KiB (100000 bytes), 100.0% of the peak, 1000 allocations live$' $T/twinpath.out)/$(grep -A3 '^  #1 ' $T/twinpath.out | sed -n 2,4p | sed 's/ (.*//; s/^ *//' | tr '\n' ' ')" \
		"0//1/ckt_decode_next <- ckt_sym_lookup <- main "
	report_status rate "reader: a sampling rate of 2^62 bytes in the header is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/rate.zst': corrupt header: CUZKTRACE_SAMPLE=$((1 << 62)) is out of range"
	# the process's identity: pid from 1 to 2^22, ppid from 0, start_wall_ns to 2^63 - 1 (since
	# 0.2.57; the report read "(pid -1)", JSON null, and said nothing)
	report_status idpid "reader: a header's pid of -1 is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/idpid.zst': corrupt header: pid=-1 is not a number"
	report_status idppid "reader: a header's ppid of 4096x is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/idppid.zst': corrupt header: ppid=4096x is not a number"
	report_status idstart "reader: a header's start_wall_ns of 2^64 - 1 is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/idstart.zst': corrupt header: start_wall_ns=18446744073709551615 is out of range"
	read -r mo mn <$T/midcut.off
	report_status midcut "reader: a block header that runs past the end, whole frames after it: corrupt, not cut" \
		"1/cuzktrace-report: error: '$T/midcut.zst': corrupt zstd frame at byte offset $mo: it runs to the end of the file, past a whole frame at byte offset $mn (--salvage reports the trace before byte offset $mo)"
	read -r zo <$T/zerotail.off
	for src in file pipe; do
		if [ $src = file ]; then $REPORT --json $T/zerotail.zst; else cat $T/zerotail.zst | $REPORT --json -; fi \
			>$T/zerotail.json 2>$T/zerotail.err
		expect_eq "reader: a killed trace followed by 70,000 zero bytes ($src): read up to them, truncated, one line names them (before 0.2.16 refused whole as corrupt)" \
			"$?/$(jget $T/zerotail.json truncated)/$(jget $T/zerotail.json event_counts.alloc)/$(grep -v 'trace is truncated' $T/zerotail.err | sed "s|'/dev/stdin'|'F'|; s|$T/zerotail.zst|F|")" \
			"0/true/3/cuzktrace-report: warning: 'F': the file ends in 70000 zero bytes from byte offset $zo (writes lost in a crash, or a preallocated file): the trace is read up to there"
	done
	read -r zf zm <$T/zerocut.off
	$REPORT --json $T/zerocut.zst >$T/zerocut.json 2>$T/zerocut.err
	expect_eq "reader: a trace whose last frame is half written, then 5,000 zero bytes: its frames before read, truncated, one line names both" \
		"$?/$(jget $T/zerocut.json truncated)/$(jget $T/zerocut.json event_counts.alloc)/$(grep -v 'trace is truncated' $T/zerocut.err)" \
		"0/true/3/cuzktrace-report: warning: '$T/zerocut.zst': the file ends inside the zstd frame at byte offset $zf, in 5000 zero bytes from byte offset $zm (writes lost in a crash, or a preallocated file): that frame is not read"
	# a real trace's last frame zeroed in place from each of its offsets (the file's size
	# kept): zstd reads zeros after a block as empty blocks and runs out of file, where above
	# it refuses them; the same zero line (since 0.2.21: "cut while it was written, or
	# corrupt" there) for 16 zero bytes or more (fewer end a plain cut as often: either line),
	# or, for zeros only in the frame's last block and checksum, corrupt; where the frame
	# ends in zero bytes of its own, zeros written over them change nothing
	CUZKTRACE_FLUSH_MS=5 CUZKTRACE_OUT=$T/zin.zst LD_PRELOAD=$LIB $P/diffprog 3000000 2000000 0 same 50 >/dev/null 2>&1
	expect_eq "reader: a last frame zeroed in place from each of its offsets: the zero line (most), or corrupt" \
		"$($PY - $T/zin.zst "$REPORT" <<'PYEOF'
import subprocess, sys
path, report = sys.argv[1], sys.argv[2]
d = open(path, "rb").read()
zf = d.rfind(bytes([0x28, 0xB5, 0x2F, 0xFD]))  # the last frame
n, bad, zero = len(d) - zf, [], 0
for k in range(4, n):
    cut = d[:zf + k] + bytes(n - k)
    frm = len(cut.rstrip(b"\0"))  # zeros written over end where zeros begin
    open(path + ".k", "wb").write(cut)
    r = subprocess.run([report, "--json", path + ".k"], capture_output=True, text=True)
    lines = [l for l in r.stderr.splitlines() if "trace is truncated" not in l]
    want = ("cuzktrace-report: warning: '%s.k': the file ends inside the zstd frame at byte offset %d, in %d zero "
            "bytes from byte offset %d (writes lost in a crash, or a preallocated file): that frame is not read"
            % (path, zf, len(d) - frm, frm))
    cut = ("cuzktrace-report: warning: '%s.k': the file ends inside the zstd frame at byte offset %d (cut while it "
           "was written, or corrupt): that frame is not read" % (path, zf))
    if not d[zf + k:].strip(b"\0"):
        # the frame's own last bytes already zero (its checksum ends in 0 in one trace of
        # 256): the file unchanged, read whole without a line
        if r.returncode != 0 or r.stderr:
            bad.append(k)
    elif r.returncode == 0 and lines == [want] and len(d) - frm >= 16:
        zero += 1
    elif r.returncode == 0 and lines in ([cut], [want]) and len(d) - frm < 16:
        # a few zeros end a plain cut as often: not named as zeros where zstd read them as
        # empty blocks; named where it refused them (a last frame of 44 bytes, zeroed from
        # its 29th: 15 zeros, named, and the test failed)
        pass
    elif not (r.returncode == 1 and len(lines) == 1 and lines[0].startswith("cuzktrace-report: error: ")):
        bad.append(k)
print(bad, zero * 2 > n)
PYEOF
)" "[] True"
	read -r lzo <$T/lastzero.off
	report_status lastzero "reader: a whole trace whose last byte is 0 reads without a warning" "0/"
	report_status lastzeroflip "reader: the same with a middle frame's byte flipped: corrupt (exit 1, one line), not a cut" \
		"1/cuzktrace-report: error: '$T/lastzeroflip.zst': corrupt zstd frame at byte offset $lzo: Restored data doesn't match checksum (--salvage reports the trace before byte offset $lzo)"
	report_status lastzerohflip "reader: the same with a header byte flipped: corrupt (exit 1, one line), not a header cut into zeros" \
		"1/cuzktrace-report: error: '$T/lastzerohflip.zst': corrupt zstd frame at byte offset 0: Restored data doesn't match checksum"
	report_status flipzeros "reader: a corrupt middle frame in a trace that ends in 3 zero bytes: corrupt (exit 1, one line), not a cut" \
		"1/cuzktrace-report: error: '$T/flipzeros.zst': corrupt zstd frame at byte offset $lzo: Restored data doesn't match checksum (--salvage reports the trace before byte offset $lzo)"
	report_status emptyframe "reader: a zstd frame with no data between data frames: corrupt, said so (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/emptyframe.zst': corrupt frame 2: it is empty (a zstd frame with no data) (--salvage reports the trace before byte offset $mo)"
	report_status header2 "reader: a second trace's header after a cut trace: corrupt, said so (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/header2.zst': corrupt trace: frame 2 is a trace header (another trace appended to this one, which was cut?) (--salvage reports the trace before byte offset $mo)"
	report_status magic2 "reader: a file of the zstd magic's first two bytes ends inside the header (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/magic2.zst': the file ends inside the header frame"
	for k in 1 2 3; do
		read -r hzo hzn <$T/hdrzero$k.off
		report_status hdrzero$k "reader: the header frame cut at a $k/4 of it and followed by zeros: said to end there, in zeros (exit 1, one line)" \
			"1/cuzktrace-report: error: '$T/hdrzero$k.zst': the file ends inside the header frame, in $hzn zero bytes from byte offset $hzo (writes lost in a crash, or a preallocated file)"
	done
	report_status zeroend "reader: zero bytes after the end record: the whole trace, one line that says they are zeros" \
		"0/cuzktrace-report: warning: '$T/zeroend.zst': 4096 zero bytes after the end record are not read (a preallocated file, or writes lost in a crash)"
	# ... a trace ending on a 4 KiB boundary, then a hole of 1 MiB: the same line
	truncate -s +1M $T/zeroalign.zst
	report_status zeroalign "reader: a trace ending on a 4 KiB boundary, then a hole: the whole trace, one line that says they are zeros" \
		"0/cuzktrace-report: warning: '$T/zeroalign.zst': 1048576 zero bytes after the end record are not read (a preallocated file, or writes lost in a crash)"
	# ... and 20 GiB of a hole past them (truncate -s, as a preallocated file may be): the
	# same line at once (since 0.2.57 the hole is skipped; its zeros were read a MiB at a time,
	# minutes)
	cp $T/zeroend.zst $T/zerohole.zst
	truncate -s +20G $T/zerohole.zst
	timeout 60 $REPORT --json $T/zerohole.zst >/dev/null 2>$T/zerohole.err
	expect_eq "reader: 20 GiB of a hole after the end record: read at once, one line that says they are zeros" \
		"$?/$(cat $T/zerohole.err)" \
		"0/cuzktrace-report: warning: '$T/zerohole.zst': $((20 * 1073741824 + 4096)) zero bytes after the end record are not read (a preallocated file, or writes lost in a crash)"
	rm -f $T/zerohole.zst
	report_status zeromid "reader: zero bytes between frames, whole frames after them: corrupt (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/zeromid.zst': corrupt zstd frame at byte offset $mo: Unknown frame descriptor (--salvage reports the trace before byte offset $mo)"
	report_status midcutz "reader: the same with 3 zero bytes appended: corrupt, not a cut" \
		"1/cuzktrace-report: error: '$T/midcutz.zst': corrupt zstd frame at byte offset $mo: it runs to the end of the file, past a whole frame at byte offset $mn (--salvage reports the trace before byte offset $mo)"
	# --salvage (since 0.2.45): a trace corrupt after its first data frame is read up to its
	# first corrupt frame, as a trace cut there: its report is that of the file cut at that
	# frame's start, byte for byte (a flipped byte in frame 10 of 26 gave nothing before)
	CUZKTRACE_FLUSH_MS=5 CUZKTRACE_OUT=$T/salv.zst LD_PRELOAD=$LIB $P/diffprog 3000000 2000000 0 same 50 >/dev/null 2>&1
	$PY - $T <<'PYEOF'
import sys
T = sys.argv[1]
d = open(T + "/salv.zst", "rb").read()
offs, i = [], d.find(b"\x28\xb5\x2f\xfd")
while i >= 0:
    offs.append(i)
    i = d.find(b"\x28\xb5\x2f\xfd", i + 1)
k = len(offs) // 2  # a middle data frame: whole frames before and after it
o, e = offs[k], offs[k + 1]
flip = bytearray(d)
flip[(o + e) // 2] ^= 0x55
open(T + "/salvflip.zst", "wb").write(flip)
open(T + "/salvdrop.zst", "wb").write(d[:o] + d[e:])  # a frame missing
open(T + "/salvcut.zst", "wb").write(d[:o])
first = bytearray(d)  # the first data frame corrupt: nothing before it to salvage
first[(offs[1] + offs[2]) // 2] ^= 0x55
open(T + "/salvfirst.zst", "wb").write(first)
open(T + "/salv.off", "w").write("%d %d %d\n" % (o, k, offs[1]))
PYEOF
	read -r so sk sf <$T/salv.off
	$REPORT --json $T/salvcut.zst >$T/salvcut.json 2>/dev/null
	$REPORT $T/salvcut.zst >$T/salvcut.txt 2>/dev/null
	$REPORT --json $T/salvflip.zst >/dev/null 2>$T/salvflip.err
	expect_match "reader: a middle frame's byte flipped: corrupt (exit 1), the line says --salvage reads the frames before it" \
		"$?/$(cat $T/salvflip.err)" \
		"^1/cuzktrace-report: error: '$T/salvflip.zst': corrupt zstd frame at byte offset $so: [A-Za-z' ]+ \(--salvage reports the trace before byte offset $so\)\$"
	for j in 1 2; do
		$REPORT --jobs $j --salvage --json $T/salvflip.zst >$T/salvflip$j.json 2>$T/salvflip$j.err
		expect_eq "reader: --salvage --jobs $j, a flipped byte: status 0, two warnings, the JSON of the trace cut at the corrupt frame (salvaged_at_offset apart)" \
			"$?/$(sed "s/: corrupt zstd frame at byte offset $so: [^;]*;/: CORRUPT;/; s/covers [0-9.]* s/covers T s/" $T/salvflip$j.err | tr '\n' '|')/$(jget $T/salvflip$j.json salvaged_at_offset)/$(jget $T/salvcut.json salvaged_at_offset)/$($PY -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); [x.pop("salvaged_at_offset") for x in (a, b)]; print(a == b, a["truncated"], a["event_counts"]["alloc"] > 0)' $T/salvflip$j.json $T/salvcut.json)" \
			"0/cuzktrace-report: warning: '$T/salvflip.zst': CORRUPT; --salvage: the trace is read up to byte offset $so, where that frame starts, as if it were cut there|cuzktrace-report: warning: '$T/salvflip.zst': trace is truncated (no end record); it covers T s|/$so/null/True True True"
		$REPORT --jobs $j --salvage --phase-rule early=main $T/salvdrop.zst >$T/salvdrop$j.txt 2>$T/salvdrop$j.err
		$REPORT --jobs $j --phase-rule early=main $T/salvcut.zst >$T/salvcutr$j.txt 2>/dev/null
		expect_eq "reader: --salvage --jobs $j --phase-rule, a frame missing: status 0, the line names it, the text report of the trace cut there" \
			"$?/$(head -1 $T/salvdrop$j.err)/$(diff <(sed "s|$T/salvdrop.zst|F|" $T/salvdrop$j.txt) <(sed "s|$T/salvcut.zst|F|" $T/salvcutr$j.txt) && echo same)" \
			"0/cuzktrace-report: warning: '$T/salvdrop.zst': corrupt trace: frame $sk is data frame number $sk, after number $((sk - 2)) (a frame is missing, repeated or out of order); --salvage: the trace is read up to byte offset $so, where that frame starts, as if it were cut there/same"
	done
	$REPORT --salvage $T/salvfirst.zst >$T/salvfirst.txt 2>$T/salvfirst.err
	expect_match "reader: --salvage, the first data frame corrupt: nothing before it, an error as without (exit 1, no hint, no report)" \
		"$?/$(wc -c <$T/salvfirst.txt)/$(cat $T/salvfirst.err)" \
		"^1/0/cuzktrace-report: error: '$T/salvfirst.zst': corrupt zstd frame at byte offset $sf: [A-Za-z' ]+\$"
	# from a pipe nothing is salvaged: the line says why (before 0.2.59 it read as without
	# --salvage)
	cat $T/salvflip.zst | $REPORT --salvage - >$T/salvpipe.txt 2>$T/salvpipe.err
	expect_match "reader: --salvage from a pipe: an error that says a pipe cannot be salvaged (exit 1, no report)" \
		"${PIPESTATUS[1]}/$(wc -c <$T/salvpipe.txt)/$(cat $T/salvpipe.err)" \
		"^1/0/cuzktrace-report: error: '/dev/stdin': corrupt zstd frame at byte offset $so: [A-Za-z' ]+ \(--salvage reads only a file, not a pipe, which cannot be read twice\)\$"
	# an error the replay finds (running totals in an exact trace, frame 2) before a corrupt
	# record the decoder finds (frame 3): --salvage stops before frame 3 and still meets frame
	# 2's error, so the line gives no hint that it would report the trace
	PYTHONPATH=tests/integration $PY - $T/salvrep.zst <<'PYEOF'
import sys
from rows import *
AGG = 0x30
f1 = bytes([FRAME]) + uv(0) + uv(1000) + bytes([THREAD]) + uv(1) + alloc(1, 0x10000, 100) + bytes([SYNC]) + uv(1001)
f2 = (bytes([FRAME]) + uv(1) + uv(2000) + bytes([THREAD]) + uv(1) + bytes([AGG]) + sv(1) + sv(64) + sv(1)
      + alloc(2, 0x20000, 100) + bytes([SYNC]) + uv(2010))
f3 = bytes([FRAME]) + uv(2) + uv(3000) + bytes([THREAD]) + uv(1) + bytes([0x7f]) + uv(1)
open(sys.argv[1], "wb").write(z(header()) + z(f1) + z(f2) + z(f3))
PYEOF
	for j in 1 2; do
		$REPORT --jobs $j $T/salvrep.zst >/dev/null 2>$T/salvrep.err
		expect_eq "reader: --jobs $j, the replay's error before a corrupt record: status 1, the replay's line, no --salvage hint" \
			"$?/$(cat $T/salvrep.err)" \
			"1/cuzktrace-report: error: '$T/salvrep.zst': corrupt trace: running totals (AGG) in a trace of the exact mode (its header's CUZKTRACE_SAMPLE is 0 or missing)"
	done
	# the hint only where --salvage then reads the trace (since 0.2.45): bytes live past any
	# process's in frame 2, found as the replay applies them (held back as the trace ends),
	# before a corrupt frame 3, gave the hint and --salvage failed; an error the replay meets
	# in the corrupt frame itself (running totals in an exact trace, frame 2, before its
	# corrupt record) gave none, and --salvage read frame 1
	sa=$(PYTHONPATH=tests/integration $PY - $T/salvover.zst $T/salvaggk.zst <<'PYEOF'
import sys
from rows import *
AGG, big = 0x30, (1 << 57) - 1
f1 = bytes([FRAME]) + uv(0) + uv(1000) + bytes([THREAD]) + uv(1) + alloc(1, 0x10000, 100) + bytes([SYNC]) + uv(1001)
f2 = bytes([FRAME]) + uv(1) + uv(2000) + bytes([THREAD]) + uv(1)
for i in range(5):
    f2 += alloc(1, 1 << 58 if i == 0 else big + 4096, big)
f2 += bytes([SYNC]) + uv(2010)
f3 = bytes([FRAME]) + uv(2) + uv(3000) + bytes([THREAD]) + uv(1) + bytes([0x7f]) + uv(1)
open(sys.argv[1], "wb").write(z(header()) + z(f1) + z(f2) + z(f3))
g2 = (bytes([FRAME]) + uv(1) + uv(2000) + bytes([THREAD]) + uv(1) + bytes([AGG]) + sv(1) + sv(64) + sv(1)
      + bytes([0x7f]) + uv(1))
open(sys.argv[2], "wb").write(z(header()) + z(f1) + z(g2))
print(len(z(header()) + z(f1)))  # where the corrupt frame 2 starts
PYEOF
	)
	for j in 1 2; do
		$REPORT --jobs $j $T/salvover.zst >/dev/null 2>$T/salvover.err
		r1=$?
		$REPORT --jobs $j --salvage $T/salvover.zst >/dev/null 2>$T/salvover2.err
		r2=$?
		expect_eq "reader: --jobs $j, more bytes live than any process can have before a corrupt frame: no --salvage hint, and --salvage fails as the replay ends" \
			"$r1/$(cat $T/salvover.err)/$r2/$(tail -1 $T/salvover2.err)" \
			"1/cuzktrace-report: error: '$T/salvover.zst': corrupt record (tag 0x7f) in frame 3: no record has this tag/1/cuzktrace-report: error: '$T/salvover.zst': corrupt trace: more bytes than any process can have (over 2^59 live in one space, or 2^62 allocated in all)"
		$REPORT --jobs $j $T/salvaggk.zst >/dev/null 2>$T/salvaggk.err
		r1=$?
		$REPORT --jobs $j --salvage $T/salvaggk.zst >/dev/null 2>$T/salvaggk2.err
		r2=$?
		expect_eq "reader: --jobs $j, the replay's error in the corrupt frame, before its corrupt record: the --salvage hint, and --salvage reads the frame before it" \
			"$r1/$(cat $T/salvaggk.err)/$r2/$(head -1 $T/salvaggk2.err)" \
			"1/cuzktrace-report: error: '$T/salvaggk.zst': corrupt trace: running totals (AGG) in a trace of the exact mode (its header's CUZKTRACE_SAMPLE is 0 or missing) (--salvage reports the trace before byte offset $sa)/0/cuzktrace-report: warning: '$T/salvaggk.zst': corrupt record (tag 0x7f) in frame 2: no record has this tag; --salvage: the trace is read up to byte offset $sa, where that frame starts, as if it were cut there"
	done
	report_status evilpath "reader: a module path's control bytes are shown as '?' in the warning (one line)" \
		"0/cuzktrace-report: warning: cannot read '/nonexistent/a?b?[31m??1m': No such file or directory; its frames are shown as module+offset"
	$REPORT --sites-csv $T/evilpath.scsv --folded $T/evilpath.folded --phase-rule x=nomatch $T/evilpath.zst >$T/evilpath.txt 2>$T/evilpath2.err
	expect_eq "reader: the same path in the text report, sites CSV, folded file and --phase-rule warning: '?', valid UTF-8, one line each (the report's symbolizer does not say it again)" \
		"$?/$($PY - $T/evilpath.txt $T/evilpath.scsv $T/evilpath.folded $T/evilpath2.err <<'PYEOF'
import sys
bad = [f for f in sys.argv[1:] if any(ord(c) < 32 and c != "\n" or 0x7f <= ord(c) < 0xa0
                                      for c in open(f, encoding="utf-8").read())]
seen = [f for f in sys.argv[1:] if "a?b?[31m??1m" in open(f, encoding="utf-8").read()]
print("bad:%s seen:%d" % (",".join(bad), len(seen)))
PYEOF
)/$(wc -l <$T/evilpath2.err)/$(grep -c "^cuzktrace-report: warning: --phase-rule: cannot read '/nonexistent/a" $T/evilpath2.err)/$(grep -c "^cuzktrace-report: warning: --phase-rule 'x=nomatch' gave no allocation its phase" $T/evilpath2.err)" "0/bad: seen:4/2/1/1"
	$REPORT --json --csv $T/evilphase.csv --phases-csv $T/evilphase.pcsv $T/evilphase.zst >/dev/null 2>$T/evilphase.err
	# (the timeline's active_phases quotes the name, which holds a '"', before the cell is
	# quoted: since 0.2.43)
	expect_eq "reader: a phase name's invalid UTF-8 and control bytes are '?' in both CSVs, one row per line" \
		"$?/$($PY -c 'import sys; [open(f, encoding="utf-8").read() for f in sys.argv[1:]]; print("utf-8")' $T/evilphase.csv $T/evilphase.pcsv)/$(sed -n 2p $T/evilphase.csv | cut -d, -f7-)/$(sed -n 2p $T/evilphase.pcsv | cut -d, -f2-)/$(wc -l <$T/evilphase.pcsv)" \
		'0/utf-8/"""??,a?b""""c"""/"??,a?b""c",64,0,0/2'
	$REPORT --json $T/evilu.zst >$T/evilu.json 2>$T/evilu.err
	expect_eq "reader: JSON escapes a C1 control, a bidirectional override and a line separator (\\u), keeps other UTF-8 raw" \
		"$?/$(grep -o '"name": "x[^"]*"' $T/evilu.json | head -1)/$(jget $T/evilu.json phases.0.name | od -An -tx1 | tr -d ' \n')" \
		'0/"name": "x\u009by\u202ez\u2028w'"$(printf '\303\251')"'"/78c29b79e280ae7ae280a877c3a90a'
	expect_eq "reader: the text report shows each of those characters as one '?' (a line separator was three)" \
		"$($REPORT $T/evilu.zst 2>/dev/null | grep -o 'x[^ /]*y[^ /]*z[^ /]*w[^ /]*' | sort -u)" "x?y?z?w$(printf '\303\251')"
	$REPORT --json $T/emptyph.zst >$T/emptyph.json 2>/dev/null
	expect_eq "reader: an empty phase name shows as \"\" in the text report (5 lines: both peaks, their shares, the table), its JSON name empty" \
		"$($REPORT $T/emptyph.zst 2>/dev/null | grep -c '""')/$(jget $T/emptyph.json phases.0.name)/" "5//"
	# and in --diff's text: the peaks' "during" lines and the phase rows (both were blank, 0.2.21)
	$REPORT --diff $T/phrss.zst $T/emptyph.zst >$T/emptyph.diff 2>/dev/null
	expect_eq "reader: --diff shows an empty phase name as \"\" (during lines of both peaks, the rows at both)" \
		"$?/$(grep -c '^  during  *base: prove; trace: ""$' $T/emptyph.diff)/$(grep -cE '^  \+64 B  +0 B  +64 B  ""$' $T/emptyph.diff)" "0/2/2"
	$REPORT --phase-rule x=nomatch $T/manymods.zst >/dev/null 2>$T/manymods.err
	expect_eq "reader: 30 unreadable modules, one at three spans: each said once, 20 at most, then one line counts the rest" \
		"$?/$(grep -c "^cuzktrace-report: warning: --phase-rule: cannot read '/nonexistent/m" $T/manymods.err)/$(grep -c "cannot read '/nonexistent/m00.so'" $T/manymods.err)/$(sed -n 21p $T/manymods.err)/$(wc -l <$T/manymods.err)" \
		"0/20/1/cuzktrace-report: warning: --phase-rule: 10 more modules could not be used (unreadable, or changed since they were traced); their frames are shown as module+offset/22"
	expect_eq "diff text: a base without RSS samples has no phases at the peak RSS: '-' (it read '(no phase)')" \
		"$($REPORT --diff $T/phnorss.zst $T/phrss.zst 2>/dev/null | grep -A1 '^peak RSS' | tail -1)" \
		"  during             base: -; trace: prove"
	report_status rategarbage "reader: a sampling rate that is no number is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/rategarbage.zst': corrupt header: CUZKTRACE_SAMPLE=12k is not a number"
	for pg in page64k pagenone; do
		$REPORT --json $T/$pg.zst >$T/$pg.json 2>$T/$pg.err
		echo "$?/$(jget $T/$pg.json peak_mmap.bytes)/$(jget $T/$pg.json page_size)/$(cat $T/$pg.err)"
	done >$T/pages.got
	expect_eq "reader: a mapping of 5,000 bytes holds a page of 64 KiB, or two of 4 KiB; a header without page_size takes 4096 and says so (before 0.2.15, silently)" \
		"$(cat $T/pages.got)" "0/65536/65536/
0/8192/4096/cuzktrace-report: warning: '$T/pagenone.zst': the header has no page_size (damaged?): mapping lengths are rounded to 4096-byte pages"
	for pg in pageabc page3 page2g pageempty; do
		report_status $pg "reader: page_size '$pg' in the header is corruption (exit 1, one line; before 0.2.15 taken silently as 4096)" \
			"1/cuzktrace-report: error: '$T/$pg.zst': corrupt header: page_size=$(case $pg in pageabc) echo abc ;; page3) echo 3 ;; page2g) echo 2147483648 ;; esac) is not a page size (a power of two from 4096 to 1 GiB)"
	done
	report_status deep300 "reader: a stack depth over 256 in the header is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/deep300.zst': corrupt header: CUZKTRACE_DEPTH=300 is out of range"
	report_status flush0 "reader: a flush interval of 0 ms in the header is corruption (the tracer's is 1 to 60000; before 0.2.50 read as the default)" \
		"1/cuzktrace-report: error: '$T/flush0.zst': corrupt header: CUZKTRACE_FLUSH_MS=0 is out of range"
	expect_eq "reader: the command line keeps valid UTF-8 and shows control bytes as '?'" \
		"$($REPORT $T/utf8argv.zst 2>/dev/null | grep '^command line' | sed 's/^command line *//')" "prover café ?[2J"
	report_status rsshuge "reader: an RSS of 2^64 - 1 bytes is corruption (exit 1, one line)" \
		"1/cuzktrace-report: error: '$T/rsshuge.zst': corrupt record (tag 0x16) in frame 1: a size of 2^57 bytes or more"
	$REPORT --json --by thread $T/tname.zst >$T/tname.json 2>$T/tname.err
	expect_eq "reader: a long thread name ending in digits is its own group, whole" \
		"$?/$(jget $T/tname.json thread_groups.0.name)/$(cat $T/tname.err)" "0/x$(printf '1%.0s' $(seq 100))/"
	$REPORT --json $T/stack1024.zst >/dev/null 2>$T/stack1024.err
	expect_eq "reader: a stack of 1024 frames is read" "$?/$(grep -c error $T/stack1024.err)" "0/0"
	report_status stack1025 "reader: a stack of 1025 frames is corruption (a few bytes of zstd cannot make it symbolize millions)" \
		"1/cuzktrace-report: error: '$T/stack1025.zst': corrupt record (tag 0x20) in frame 1: a stack of 1025 frames (at most 1024)"
	report_status varint10 "reader: a number of more than 64 bits is corruption (it was read with its high bits dropped)" \
		"1/cuzktrace-report: error: '$T/varint10.zst': corrupt record (tag 0x10) in frame 1: a number of more than 64 bits"
	report_status end2 "reader: a second end record is corruption (it was read as fine)" \
		"1/cuzktrace-report: error: '$T/end2.zst': corrupt record (tag 0x04) in frame 1: a second end record"
	$REPORT $T/procmod.zst >/dev/null 2>$T/procmod.err
	expect_eq "reader: a module that is a file of /proc is not read, one warning" "$?/$(cat $T/procmod.err)" \
		"0/cuzktrace-report: warning: cannot read '/proc/version': a kernel file (/proc, /sys), not a program; its frames are shown as module+offset"
	report_status bigframe "reader: a frame over 16 MiB decompressed is corruption, read no further (it took 512 MiB)" \
		"1/cuzktrace-report: error: '$T/bigframe.zst': corrupt zstd frame at byte offset $(cat $T/bigframe.off): frame is larger than 16 MiB"
	# outputs of a trace found corrupt midway: each is written whole or not at all (--csv and
	# --phases-csv, opened before the replay, were left half-written, an existing file emptied)
	echo precious >$T/keep.csv
	$REPORT --csv $T/keep.csv --phases-csv $T/newph.csv --sites-csv $T/newsites.csv $T/huge.zst >/dev/null 2>$T/keep.err
	expect_eq "reader: a corrupt trace leaves the existing --csv as it was, makes no other output, no temporary" \
		"$?/$(cat $T/keep.csv)/$(ls -A $T | grep -c -e newph -e newsites -e '^\.keep')" "1/precious/0"
	# ... with a name of 250 bytes too, whose temporary ".<name>.XXXXXX" is too long for the
	# file system (since 0.2.22 a short one; it was written in place, and emptied)
	long250=$T/$(printf 'k%.0s' $(seq 246)).csv
	echo precious >$long250
	$REPORT --csv $long250 --phases-csv $long250.p $T/huge.zst >/dev/null 2>/dev/null
	expect_eq "reader: a corrupt trace leaves an existing --csv of a 250-byte name as it was, makes no --phases-csv of 252, no temporary" \
		"$?/$(cat $long250)/$(ls -A $T | grep -c -e '^\.ckt\.' -e 'kkk\.csv\.p$')" "1/precious/0"
	# ... and with a trace that reads, an output keeps what it is: a link that leads nowhere yet
	# stays a link and its target is written; a file with two names keeps both (its inode)
	ln -sf $T/ltarget.csv $T/llink.csv
	echo old >$T/hl1.csv && ln -f $T/hl1.csv $T/hl2.csv
	$REPORT --csv $T/llink.csv --sites-csv $T/hl1.csv $T/known.zst >/dev/null 2>/dev/null
	expect_eq "reader: an output through a link to a file not made yet writes the file, the link stays; a hard-linked output keeps its other name" \
		"$?/$(readlink $T/llink.csv)/$(head -c 4 $T/ltarget.csv)/$(head -c 5 $T/hl2.csv)/$(stat -c %h $T/hl1.csv)" \
		"0/$T/ltarget.csv/t_s,/site,/2"
	# a disk too full for the copy over an existing output: the error, the old file as it was
	# (the copy truncated it first: the old content and the report both lost)
	mkdir -p $T/small
	if mount -t tmpfs -o size=64k tmpfs $T/small 2>/dev/null; then
		CUZKTRACE_RSS_MS=1 CUZKTRACE_OUT=$T/rss300.zst LD_PRELOAD=$LIB sleep 0.3 2>/dev/null
		$REPORT --csv $T/full.csv $T/rss300.zst >/dev/null 2>&1
		yes 'old,row' | head -c 800 >$T/small/out.csv
		# room for the temporary (the new CSV, whole pages) but not for a copy beside it
		need_k=$(( ($(wc -c <$T/full.csv) + 4095) / 4096 * 4 ))
		free_k=$(df -k $T/small | awk 'NR==2 {print $4}')
		dd if=/dev/zero of=$T/small/fill bs=1k count=$((free_k - need_k - 2)) 2>/dev/null
		$REPORT --csv $T/small/out.csv $T/rss300.zst >/dev/null 2>$T/small.err
		expect_eq "reader: no room to copy over an existing output: exit 1, one line, the old file as it was, no temporary" \
			"$?/$(grep -c 'No space left on device' $T/small.err)/$(head -c 7 $T/small/out.csv)/$(wc -c <$T/small/out.csv)/$(ls -A $T/small | grep -c '^\.')" \
			"1/1/old,row/800/0"
		umount $T/small
	else
		echo "  skip a full disk under an output: cannot mount a small tmpfs"
	fi
	ln -sf $T/loop2 $T/loop1 && ln -sf $T/loop1 $T/loop2
	$REPORT --csv $T/loop1 $T/known.zst >/dev/null 2>$T/loop.err
	expect_eq "reader: an output through links that lead round: exit 1, one line, the links stay" \
		"$?/$(cat $T/loop.err)/$(readlink $T/loop1)" \
		"1/cuzktrace-report: error: cannot write '$T/loop1': Too many levels of symbolic links/$T/loop2"
	read -r lo <$T/lastcut.off
	$REPORT --json $T/lastcut.zst >$T/lastcut.json 2>$T/lastcut.err
	expect_eq "reader: the same in the last frame: truncated, the frame named" \
		"$?/$(jget $T/lastcut.json truncated)/$(jget $T/lastcut.json event_counts.alloc)/$(sed -n 2p $T/lastcut.err)" \
		"0/true/3/cuzktrace-report: warning: '$T/lastcut.zst': the file ends inside the zstd frame at byte offset $lo (cut while it was written, or corrupt): that frame is not read"
	# a trace path with a line break and an escape sequence: every line that names it is one
	# line, its control bytes '?' (a missing file, a truncated trace, an unwritable output)
	cp $T/lastcut.zst "$T/cut
"$'\e'"[2J.zst"
	$REPORT --json "$T/cut
"$'\e'"[2J.zst" >/dev/null 2>$T/evilname.err
	$REPORT "$T/no
such.zst" >/dev/null 2>>$T/evilname.err
	$REPORT --csv "$T/nodir/x
y.csv" $T/known.zst >/dev/null 2>>$T/evilname.err
	expect_eq "reader: a path with a line break and an escape sequence: one line per message, its control bytes '?'" \
		"$(wc -l <$T/evilname.err)/$(sed -e "s|$T|T|" -e 's/offset [0-9]*/offset N/' $T/evilname.err | tr '\n' '|')" \
		"4/cuzktrace-report: warning: 'T/cut??[2J.zst': trace is truncated (no end record); it covers 0.000 s|cuzktrace-report: warning: 'T/cut??[2J.zst': the file ends inside the zstd frame at byte offset N (cut while it was written, or corrupt): that frame is not read|cuzktrace-report: error: 'T/no?such.zst': No such file or directory|cuzktrace-report: error: cannot write 'T/nodir/x?y.csv': No such file or directory|"
fi

# 100,000 threads with one allocation queued each before the first SYNC: each thread's queue
# started at 64 events (3 KB), 330 MB of queues for 100,000 events; now 4 events at first
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/thr100k.zst <<'PYEOF'
import sys
from rows import *
body = [bytes([FRAME]) + uv(0) + uv(0)]
body += [bytes([THREAD]) + uv(t) + alloc(t, 0x10000 + 64 * t, 64) for t in range(1, 100001)]
body += [bytes([SYNC]) + uv(200000) + bytes([END]) + uv(200000) + uv(0) + uv(100000) + uv(0)]
open(sys.argv[1], "wb").write(z(header()) + z(b"".join(body)))
PYEOF
	expect_eq "reader: 100,000 threads with one event queued each: read, peak heap exact, reader max RSS under 128 MiB" \
		"$($PY - $REPORT $T/thr100k.zst <<'PYEOF'
import json, resource, subprocess, sys
out = subprocess.run([sys.argv[1], "--json", sys.argv[2]], capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
print(out.returncode, json.loads(out.stdout)["peak_heap"]["bytes"], rss < 128 * 1024)
PYEOF
)" "0 6400000 True"
fi

# 100,000 threads of one id (each ended before the next began) that push and pop a phase: the
# reader keeps one phase stack for the id (since 0.2.57; an entry for each thread, up to
# 65,536 an id: 69 MB; a real program that reuses ids past pid_max: 121 MB for 120,000 threads)
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/thrphase.zst <<'PYEOF'
import sys
from rows import *
body = bytearray(bytes([FRAME]) + uv(0) + uv(0) + phase_def(1, b"work"))
for k in range(100000):
    t = 1000 * (k + 1)  # push at t, pop 10 ns later, the thread's end 10 ns after
    body += bytes([THREAD]) + uv(5) + bytes([PHASE]) + sv(t) + uv(0) + uv(1) + bytes([PHASE]) + sv(10) + uv(1) + uv(1)
    body += bytes([0x07]) + uv(t + 20) + uv(5)  # THREAD_EXIT
body += bytes([SYNC]) + uv(1000 * 100001) + bytes([END]) + uv(1000 * 100001 + 10) + uv(0) + uv(1) + uv(0)
open(sys.argv[1], "wb").write(z(header((b"tracer_version", b"0.2.57"), version=8)) + z(row_frame(bytes(body), 8)))
PYEOF
	expect_eq "reader: 100,000 threads of one id pushing a phase: the phase active 100,000 x 10 ns, reader max RSS under 40 MiB" \
		"$($PY - $REPORT $T/thrphase.zst <<'PYEOF'
import resource, subprocess, sys
out = subprocess.run([sys.argv[1], "--jobs", "1", sys.argv[2]], capture_output=True, text=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
print(out.returncode, [l.split()[1] for l in out.stdout.splitlines() if l.startswith("work ")], rss < 40 * 1024)
PYEOF
)" "0 ['0.001000'] True"
fi

# 300,000 heap blocks at addresses chosen to collide in the reader's hash tables without a key
# (60,000 took 3.8 s, quadratic): the key is random per run, so they spread
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY tests/integration/collide.py $T/collide.zst 300000
	expect_eq "reader: 300,000 blocks forged to collide in an unkeyed hash: read, exact, within 60 s" \
		"$(timeout -s KILL 60 $REPORT --json $T/collide.zst >$T/collide.json 2>$T/collide.err; echo $?)/$(jget $T/collide.json peak_heap.bytes)/$(cat $T/collide.err)" \
		"0/4800000/"
fi

# --diff of two traces of 40,000 functions each, none in both (a program rebuilt in place, whose
# frames are module+offset; two builds that share no name): each function's row was compared
# with every other row, looking for a path to join it to (2,000 functions took 1.2 s, 4,000
# 4.6 s, 20,000 of a real program 2 min 33 s); since 0.2.45 through the words of the names
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY tests/integration/disjoint.py $T/disja.zst 40000 0x500000000
	PYTHONPATH=tests/integration $PY tests/integration/disjoint.py $T/disjb.zst 40000 0x600000000
	expect_eq "diff: two traces of 40,000 functions, none in both: every row gone or new, within 60 s" \
		"$(timeout -s KILL 60 $REPORT --diff $T/disja.zst $T/disjb.zst >$T/disj.txt 2>$T/disj.err; echo $?)/$(grep -c '(80000 of 80000 changed; the first 10 shown)$' $T/disj.txt)/$(grep -c '^  -79 B (-100.0%) *79 B *0 B  0x5000' $T/disj.txt)/$(cat $T/disj.err)" \
		"0/3/20/"
fi

# 20 million phase pushes never popped, with no SYNC (a program's bug, or a forged trace: 80 MB
# of records in 5 frames of 16 MB, the most a frame may hold; 7 KB compressed each): pushes
# past 2^20 on all stacks are counted, not stored (each took 8 bytes before: 256 MB for these),
# and --max-held bounds the events queued in the middle of a frame too (it was checked at SYNC
# records only: 1.6 GB); the phase stays active, the allocation in it counted
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/pushes.zst <<'PYEOF'
import sys
from rows import *
push = bytes([PHASE]) + sv(0) + uv(0) + uv(1)
frames = []
for i in range(5):
    body = bytes([FRAME]) + uv(i) + uv(0) + (phase_def(1, b"p") if i == 0 else b"") + bytes([THREAD]) + uv(1)
    frames.append(body + push * 4000000)
frames[-1] += alloc(5, 0xA000, 64, phase=1) + rss(5, 1 << 20)
frames[-1] += bytes([SYNC]) + uv(100) + bytes([END]) + uv(100) + uv(0) + uv(2) + uv(0)
open(sys.argv[1], "wb").write(z(header()) + b"".join(z(f) for f in frames))
PYEOF
	expect_eq "reader: 20 million phase pushes in 5 frames, --max-held 100000: read, the phase active at the peak with its 64 bytes, at most 200,001 events held (twice the bound, inside a frame), reader max RSS under 160 MiB" \
		"$($PY - $REPORT $T/pushes.zst <<'PYEOF'
import json, resource, subprocess, sys
out = subprocess.run([sys.argv[1], "--json", "--max-held", "100000", sys.argv[2]], capture_output=True)
d = json.loads(out.stdout)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
print(out.returncode, d["peak_rss"]["active_phases"], d["peak_heap"]["by_phase"], d["max_held_events"], rss < 160 * 1024)
PYEOF
)" "0 ['p'] [{'phase': 'p', 'bytes': 64, 'samples': 0, 'estimate_error_bytes': 0}] 200001 True"
fi

# 2^20 pushes of phase A, then B pushed and popped, the POP carrying A's id (the tracer writes the
# phase at depth 256 in a POP deeper than that): B ends there; the peak after it is A's alone
# (B was stored past the bound, and its pop taken by the record's id, A: B stayed active)
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/deeppop.zst <<'PYEOF'
import sys
from rows import *
body = bytes([FRAME]) + uv(0) + uv(0) + phase_def(1, b"A") + phase_def(2, b"B") + bytes([THREAD]) + uv(1)
body += (bytes([PHASE]) + sv(0) + uv(0) + uv(1)) * (1 << 20)
body += bytes([PHASE]) + sv(1) + uv(0) + uv(2) + alloc(1, 0xA000, 1 << 20, phase=2)
body += bytes([PHASE]) + sv(1) + uv(1) + uv(1) + alloc(1, 0x200000, 4 << 20, phase=1) + rss(1, 8 << 20)
body += bytes([SYNC]) + uv(100) + bytes([END]) + uv(100) + uv(0) + uv(3) + uv(0)
open(sys.argv[1], "wb").write(z(header()) + z(body))
PYEOF
	$REPORT --json $T/deeppop.zst >$T/deeppop.json 2>$T/deeppop.err
	expect_eq "reader: a phase pushed and popped on top of 2^20 pushes of another ends with its pop" \
		"$?/$(jget $T/deeppop.json peak_heap.active_phases)/$(jget $T/deeppop.json peak_rss.active_phases)/$(cat $T/deeppop.err)" \
		'0/["A"]/["A"]/'
fi

# A real trace less one whole data frame, or with one twice: each frame reads well on its own,
# but the replay would be wrong (frees of blocks never seen, blocks never freed, every event
# twice); the frames' sequence numbers tell, and the reader refuses the trace (exit 1)
CUZKTRACE_FLUSH_MS=5 CUZKTRACE_OUT=$T/seqs.zst traced seqs $P/known
PYTHONPATH=tests/integration $PY - $T/seqs.zst <<'PYEOF'
import sys
from rows import zframes
f = zframes(open(sys.argv[1], "rb").read())
assert len(f) >= 5, len(f)
open(sys.argv[1] + ".less", "wb").write(b"".join(f[:2] + f[3:]))
open(sys.argv[1] + ".twice", "wb").write(b"".join(f[:4] + f[3:]))
open(sys.argv[1] + ".offs", "w").write("%d %d\n" % (len(b"".join(f[:2])), len(b"".join(f[:4]))))
PYEOF
$REPORT $T/seqs.zst >/dev/null 2>$T/seqs.rerr
expect_eq "reader: a real trace of several frames reads" "$?/$(cat $T/seqs.rerr)" "0/"
for k in less twice; do
	$REPORT --json $T/seqs.zst.$k >$T/seqs.$k.json 2>$T/seqs.$k.err
	echo "$?/$(wc -c <$T/seqs.$k.json)/$(cat $T/seqs.$k.err)" >$T/seqs.$k.got
done
read -r sq2 sq4 <$T/seqs.zst.offs
expect_eq "reader: a data frame missing: corrupt (exit 1, one line, no report)" "$(cat $T/seqs.less.got)" \
	"1/0/cuzktrace-report: error: '$T/seqs.zst.less': corrupt trace: frame 2 is data frame number 2, after number 0 (a frame is missing, repeated or out of order) (--salvage reports the trace before byte offset $sq2)"
expect_eq "reader: a data frame twice: corrupt (exit 1, one line, no report)" "$(cat $T/seqs.twice.got)" \
	"1/0/cuzktrace-report: error: '$T/seqs.zst.twice': corrupt trace: frame 4 is data frame number 2, after number 2 (a frame is missing, repeated or out of order) (--salvage reports the trace before byte offset $sq4)"

# a remainder below 0 at the peak RSS says why (since 0.2.45: only README did): a 64 MiB
# table calloc'd and never touched beside 1 MiB filled (tests/progs/untouched.c)
CUZKTRACE_OUT=$T/untouchedr.zst traced untouchedr $P/untouched
$REPORT $T/untouchedr.zst >$T/untouchedr.txt 2>/dev/null
expect_match "untouched: the peak RSS with 65 MiB of heap, its remainders below 0 saying why" \
	"$(grep '^  heap then\|^  unexplained' $T/untouchedr.txt | tr '\n' '|')" \
	'^  heap then +65\.0 MiB \(68157440 bytes\)\|  unexplained +-[0-9.]+ MiB \(-[0-9]+ bytes\) = RSS - heap - anonymous mmap; below 0: memory allocated but never touched, or given back with madvise, is not resident\|(  unexplained anon +-[0-9.]+ MiB \(-[0-9]+ bytes\) = RSS anonymous \+ shmem - heap - anonymous mmap \(file pages left out\); below 0: memory allocated but never touched, or given back with madvise, is not resident\|)?$'
# pages given back with madvise(MADV_DONTNEED) are mapped and not resident, which the line
# names too (since 0.2.46: it named only memory never touched): a 64 MiB scratch mapping
# written and given back, then 80 MiB of heap written (tests/progs/untouched.c madvise)
CUZKTRACE_OUT=$T/untouchedm.zst traced untouchedm $P/untouched madvise
$REPORT $T/untouchedm.zst >$T/untouchedm.txt 2>/dev/null
expect_match "untouched madvise: the peak RSS with 80 MiB of heap and the 64 MiB mapping given back, its remainder below 0 naming madvise" \
	"$(cat $T/untouchedm.rc)|$(grep '^  mmap then\|^  unexplained ' $T/untouchedm.txt | tr '\n' '|')" \
	'^0\|  mmap then +64\.0 MiB \(67108864 bytes\): anonymous 64\.0 MiB, file-backed 0 B\|  unexplained +-[0-9.]+ MiB \(-[0-9]+ bytes\) = RSS - heap - anonymous mmap; below 0: memory allocated but never touched, or given back with madvise, is not resident\|(  unexplained anon +-[0-9.]+ MiB \(-[0-9]+ bytes\) = RSS anonymous \+ shmem - heap - anonymous mmap \(file pages left out\); below 0: memory allocated but never touched, or given back with madvise, is not resident\|)?$'

# a frame in no module (code generated at run time, a JIT's) read as a bare address with no
# word; since 0.2.47 one line says what it is, once, after the first site that shows one: a
# 3 MiB block allocated by generated code that calls malloc (tests/progs/jitcode.c; x86_64)
for m in 0 524288; do
	CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/jitcode$m.zst traced jitcode$m $P/jitcode
	jret=$(cat $T/jitcode$m.out)
	if [ "$jret" = skip ]; then
		ok "jitcode (mode $m): not x86_64, skipped"
		continue
	fi
	$REPORT $T/jitcode$m.zst >$T/jitcode$m.txt 2>/dev/null
	expect_eq "jitcode (mode $m): the 3 MiB block's site is the generated code's address, and one line says what it is" \
		"$(cat $T/jitcode$m.rc)|$(grep -A2 '^  #1  3.00 MiB (3145728 bytes)' $T/jitcode$m.txt | head -3 | tr '\n' '|')$(grep -c 'lies in no module' $T/jitcode$m.txt)|$(grep 'lies in no module' $T/jitcode$m.txt)" \
		"0|  #1  3.00 MiB (3145728 bytes), 99.9% of the peak, 1 allocation live|      $jret|      <- main (tests/progs/jitcode.c:42)|1|      ($jret lies in no module the trace knows: code generated while the program ran, a JIT's (the JVM's, Node.js's V8) or a trampoline, which no symbol names; the named frames around it say which runtime ran it)"
done

# Two outputs given one file would overwrite each other; --phase-rule needs to read the trace
# twice, which a pipe cannot do: both are usage errors, said before anything is written.
$REPORT --csv $T/same.csv --phases-csv $T/same.csv $T/known.zst >/dev/null 2>$T/same.err
expect_eq "reader: one file for --csv and --phases-csv: exit 2" "$?/$(head -1 $T/same.err)" \
	"2/cuzktrace-report: error: '$T/same.csv' is given to both --csv and --phases-csv"
: >$T/same2.csv
ln -sf $T/same2.csv $T/same2.link
$REPORT --sites-csv $T/same2.csv --folded $T/same2.link $T/known.zst >/dev/null 2>$T/same2.err
expect_eq "reader: the same file by another name: exit 2" "$?/$(head -1 $T/same2.err)" \
	"2/cuzktrace-report: error: '$T/same2.link' is given to both --sites-csv and --folded"
$REPORT --csv $T/new.csv --phases-csv $T/./new.csv $T/known.zst >/dev/null 2>$T/new.err
expect_eq "reader: one file not yet made, by two names: exit 2" "$?/$(head -1 $T/new.err)/$(ls $T/new.csv 2>&1 | grep -c 'No such')" \
	"2/cuzktrace-report: error: '$T/./new.csv' is given to both --csv and --phases-csv/1"
ln -sf $T/new3.csv $T/new3.link
$REPORT --csv $T/new3.csv --sites-csv $T/new3.link $T/known.zst >/dev/null 2>$T/new3.err
expect_eq "reader: a link to a file not yet made, and that file: exit 2 (the timeline was lost under the sites)" \
	"$?/$(head -1 $T/new3.err)/$(ls $T/new3.csv 2>&1 | grep -c 'No such')" \
	"2/cuzktrace-report: error: '$T/new3.link' is given to both --csv and --sites-csv/1"
$REPORT --csv /dev/stdout $T/known.zst >$T/both.txt 2>$T/both.err
expect_eq "reader: --csv /dev/stdout with stdout a file: exit 2, the file untouched" "$?/$(head -1 $T/both.err)/$(wc -c <$T/both.txt)" \
	"2/cuzktrace-report: error: '/dev/stdout' given to --csv is the standard output, where the report goes/0"
$REPORT --folded /dev/stdout $T/known.zst 2>$T/both.err | wc -c >$T/both.n
expect_eq "reader: --folded /dev/stdout with stdout a pipe: exit 2, nothing through the pipe (the report followed the folded stacks)" \
	"${PIPESTATUS[0]}/$(head -1 $T/both.err)/$(cat $T/both.n)" \
	"2/cuzktrace-report: error: '/dev/stdout' given to --folded is the standard output, where the report goes/0"
$REPORT --csv /dev/stderr $T/known.zst >/dev/null 2>$T/both.err
expect_eq "reader: --csv /dev/stderr with stderr a file: exit 2 and one line (the CSV went under the warnings)" \
	"$?/$(head -1 $T/both.err)/$(grep -c '^ts' $T/both.err)" \
	"2/cuzktrace-report: error: '/dev/stderr' given to --csv is the standard error, where the warnings go/0"
# "-": an output to stdout in place of the report (it made a file named "-"); TRACE "-" is stdin
$REPORT --sites-csv $T/dash.csv $T/known.zst >/dev/null 2>&1
(cd $T && $REPORT --sites-csv - known.zst >$T/dash.out 2>$T/dash.err; echo $? >$T/dash.rc)
expect_eq "reader: --sites-csv - writes the CSV to stdout, byte for byte, and no report; no file named -" \
	"$(cat $T/dash.rc)/$(cat $T/dash.err)/$(cmp $T/dash.out $T/dash.csv && echo same)/$(ls $T | grep -c '^-$')" "0//same/0"
$REPORT --csv - --json $T/known.zst >$T/dash2.out 2>$T/dash2.err
expect_eq "reader: --csv - with --json: exit 2, nothing on stdout" "$?/$(head -1 $T/dash2.err)/$(wc -c <$T/dash2.out)" \
	"2/cuzktrace-report: error: --json and --csv - both write to standard output/0"
$REPORT --csv - --folded - $T/known.zst >$T/dash3.out 2>$T/dash3.err
expect_eq "reader: - given to two outputs: exit 2" "$?/$(head -1 $T/dash3.err)/$(wc -c <$T/dash3.out)" \
	"2/cuzktrace-report: error: '-' is given to both --csv and --folded/0"
head -c $(( $(wc -c <$T/known.zst) - 3 )) $T/known.zst >$T/dashcut.zst
printf 'garbage' >>$T/dashcut.zst
$REPORT --sites-csv - $T/dashcut.zst >$T/dash4.out 2>$T/dash4.err
expect_eq "reader: --sites-csv - of a corrupt trace: exit 1, nothing on stdout (written whole or not at all)" \
	"$?/$(wc -c <$T/dash4.out)/$(grep -c 'error' $T/dash4.err)" "1/0/1"
$REPORT --json $T/known.zst >$T/dash5.want 2>/dev/null
$REPORT --json - <$T/known.zst >$T/dash5.out 2>$T/dash5.err
expect_eq "reader: TRACE - is the standard input: the same report" \
	"$?/$(cat $T/dash5.err)/$(jget $T/dash5.out peak_heap.bytes)/$(jget $T/dash5.out events)" \
	"0//$(jget $T/dash5.want peak_heap.bytes)/$(jget $T/dash5.want events)"
(ulimit -f 1; $REPORT --sites-csv $T/fsize.csv $T/known.zst >/dev/null 2>$T/fsize.err; echo $? >$T/fsize.rc)
expect_eq "reader: an output past the file-size limit: exit 1, one line, no file (it was killed by SIGXFSZ)" \
	"$(cat $T/fsize.rc)/$(cat $T/fsize.err)/$(ls -A $T | grep -c fsize.csv)" \
	"1/cuzktrace-report: error: cannot write '$T/fsize.csv': File too large/0"
# each output on its own: the sites CSV past the limit, the folded stacks (smaller) after it
# and the report (to a pipe) are written all the same, exit 1 (since 0.2.36 the rest were not written)
(ulimit -f 1; $REPORT --folded $T/fsize2.folded --sites-csv $T/fsize2.csv $T/known.zst 2>$T/fsize2.err; echo $? >$T/fsize2.rc) | cat >$T/fsize2.txt
$REPORT --folded $T/fsize2.want $T/known.zst >$T/fsize2.wtxt 2>/dev/null
expect_eq "reader: one output past the file-size limit: the others and the report written, exit 1, one line" \
	"$(cat $T/fsize2.rc)/$(cat $T/fsize2.err)/$(ls -A $T | grep -c fsize2.csv)/$(cmp $T/fsize2.folded $T/fsize2.want 2>&1 && cmp $T/fsize2.txt $T/fsize2.wtxt && echo same)/$(( $(stat -c %s $T/fsize2.folded 2>/dev/null || echo 0) > 0 && $(stat -c %s $T/fsize2.txt) > 0 ))" \
	"1/cuzktrace-report: error: cannot write '$T/fsize2.csv': File too large/0/same/1"
$REPORT --csv /dev/null --folded /dev/null --sites-csv /dev/null $T/known.zst >/dev/null 2>$T/devnull.err
expect_eq "reader: outputs may share a device (/dev/null)" "$?/$(cat $T/devnull.err)" "0/"
cat $T/known.zst | $REPORT --phase-rule x=main /dev/stdin >/dev/null 2>$T/rulepipe.err
expect_eq "reader: --phase-rule on a pipe: exit 2, says why" "$?/$(head -1 $T/rulepipe.err)" \
	"2/cuzktrace-report: error: --phase-rule reads the trace twice: '/dev/stdin' must be a regular file, not a pipe or device"
cat $T/known.zst | $REPORT --diff /dev/stdin /dev/stdin >/dev/null 2>$T/diffpipe.err
expect_eq "reader: --diff of one pipe as BASE and TRACE: exit 2, says why (the second read said 'empty file')" \
	"$?/$(head -1 $T/diffpipe.err)" \
	"2/cuzktrace-report: error: '/dev/stdin' is given as both BASE and TRACE: a pipe or device can be read once"
$REPORT --phase-rule x=main /dev/stdin <$T/known.zst >/dev/null 2>$T/rulefile.err
expect_eq "reader: --phase-rule on stdin redirected from the file: read" "$?/$(cat $T/rulefile.err)" "0/"


# --diff BASE TRACE (tests/progs/diffprog.c): the base keeps 30,000,000 bytes in load_params
# ("load") and 20,000,000 in grow ("synthesis"); the trace 25,000,000 in grow, from another
# line of it, and 7,000,000 in extra_cache; both keep 1,000 in main. One thread: exact peaks.
# No RSS samples here (the sampler off).
CUZKTRACE_RSS_MS=0 traced_json dbase $P/diffprog 30000000 20000000 0 >/dev/null
CUZKTRACE_RSS_MS=0 traced_json dcur $P/diffprog 30000000 25000000 7000000 moved >/dev/null
expect_eq "no RSS samples: peak_rss bytes, hwm_bytes and a phase's at_peak_rss_bytes null in JSON (as in --diff), phase table's RSS column '-'" \
	"$(jget $T/dbase.json peak_rss.bytes)/$(jget $T/dbase.json peak_rss.hwm_bytes)/$(jget $T/dbase.json phases.0.at_peak_rss_bytes)/$($REPORT $T/dbase.zst 2>/dev/null | grep '^load ' | awk '{print $NF}')" \
	"null/null/null/-"
# --diff compares the kernel's high-water mark beside the sampled peak RSS (since 0.2.35: only
# the samples, which miss what rose and fell between two of them: four runs of one program
# read 198 MiB against 183 MiB, all 199 MiB by VmHWM): each trace's hwm_bytes, a row shown
# where a trace has one, JSON peaks.peak_rss_hwm (null for a trace without RSS samples)
cp $T/known.zst $T/known2.zst
$REPORT --diff $T/known.zst $T/known2.zst >$T/hwmd.txt 2>/dev/null
$REPORT --json --diff $T/known.zst $T/known2.zst >$T/hwmd.json 2>/dev/null
$REPORT --json --diff $T/known.zst $T/dbase.zst >$T/hwmn.json 2>/dev/null
$REPORT --diff $T/dbase.zst $T/dbase.zst >$T/hwmnn.txt 2>/dev/null
hwm=$(jget $T/known.json peak_rss.hwm_bytes)
expect_eq "diff: the peak RSS by VmHWM, each trace's hwm_bytes: text row, JSON, null without RSS samples, no row when neither trace has one" \
	"$(grep '^peak RSS (VmHWM) ' $T/hwmd.txt | sed 's/^peak RSS (VmHWM) *//' | tr -s ' ')/$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["peaks"]["peak_rss_hwm"], json.load(open(sys.argv[2]))["peaks"]["peak_rss_hwm"])' $T/hwmd.json $T/hwmn.json)/$(grep -c 'VmHWM' $T/hwmnn.txt)" \
	"$(h=$($REPORT $T/known.zst 2>/dev/null | sed -n 's/^VmHWM  *\([0-9.]* [KMG]*i*B\) .*/\1/p'); echo "$h $h no change")/{'base': $hwm, 'trace': $hwm, 'change': 0} {'base': $hwm, 'trace': None, 'change': None}/0"
expect_eq "no RSS samples: what was live at the peak RSS, unexplained_bytes and untraced_suspected null too (they read 0 and false)" \
	"$($PY -c 'import json,sys; p=json.load(open(sys.argv[1]))["peak_rss"]; print(sorted(set(repr(p[k]) for k in ("heap_bytes","mmap_bytes","anon_mmap_bytes","file_mmap_bytes","gpu_bytes","pinned_bytes","unexplained_bytes","untraced_suspected"))))' $T/dbase.json)" \
	"['None']"
expect_eq "diff: grow's site moved to another line between the two traces" \
	"$($PY -c 'import json,sys; a,b=[{s["site"].split(" (")[0]: s["site"] for s in json.load(open(f))["sites_at_peak_heap"]} for f in sys.argv[1:]]; print(a["grow"] != b["grow"])' $T/dbase.json $T/dcur.json)" "True"
$REPORT --json --diff $T/dbase.zst $T/dcur.zst >$T/diff.json 2>$T/diff.err
expect_eq "diff --json: exit 0, silent" "$?/$(cat $T/diff.err)" "0/"
expect_eq "diff: peak heap 50,001,000 -> 62,001,000, live at exit 1,000 both, no RSS figures" \
	"$(for k in peak_heap.base peak_heap.trace peak_heap.change live_at_exit_heap.change peak_rss.base peak_rss.change; do jget $T/diff.json peaks.$k; done | tr '\n' ' ')" \
	"50001000 62001000 12000000 0 null null "
expect_eq "diff: the traces named, neither truncated, exact (no estimates)" \
	"$(jget $T/diff.json base) $(jget $T/diff.json trace) $(jget $T/diff.json truncated.base) $(jget $T/diff.json truncated.trace) $(jget $T/diff.json estimates)" \
	"$T/dbase.zst $T/dcur.zst false false false"
diff_rows() { # FILE KEY NAME: "name base trace change" per row
	$PY - "$@" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split('.'):
    d = d[k]
print(' / '.join('%s %s %s %s' % (r[sys.argv[3]], r['base'], r['trace'], r['change']) for r in d))
PYEOF
}
expect_eq "diff: by function at peak heap, largest change first, grow matched across lines" \
	"$(diff_rows $T/diff.json by_function.peak_heap function)" \
	"extra_cache 0 7000000 7000000 / grow 20000000 25000000 5000000 / load_params 30000000 30000000 0 / main 1000 1000 0"
expect_eq "diff: by phase at peak heap" "$(diff_rows $T/diff.json by_phase.peak_heap phase)" \
	"synthesis 20000000 32000000 12000000 / load 30000000 30000000 0 / (none) 1000 1000 0"
expect_eq "diff: no RSS samples, no rows at peak RSS (null, the key there)" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(["peak_rss" in d[k] and d[k]["peak_rss"] for k in ("by_phase", "by_function")])' $T/diff.json)" "[None, None]"
# Two traces of one program whose RSS was sampled every 5 and every 100 ms: a peak of 30 ms
# falls between two samples of one and not the other, and read as a change of the peak RSS,
# in another phase (-16.1 MiB, where VmHWM read -0.8%). Since 0.2.40 one warning says the
# intervals differ; none where they are the same, nor with a trace without RSS samples.
CUZKTRACE_OUT=$T/rss5.zst LD_PRELOAD=$LIB $P/diffprog 8000000 12000000 0 same 30 >/dev/null 2>&1
CUZKTRACE_OUT=$T/rss5b.zst LD_PRELOAD=$LIB $P/diffprog 8000000 12000000 0 same 30 >/dev/null 2>&1
CUZKTRACE_RSS_MS=100 CUZKTRACE_OUT=$T/rss100.zst LD_PRELOAD=$LIB $P/diffprog 8000000 12000000 0 same 30 >/dev/null 2>&1
CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/rss0.zst LD_PRELOAD=$LIB $P/diffprog 8000000 12000000 0 same 30 >/dev/null 2>&1
expect_eq "diff: RSS sampled at different intervals: one warning (none for the same interval, none without RSS samples)" \
	"$($REPORT --diff $T/rss5.zst $T/rss100.zst 2>&1 >/dev/null; echo "rc=$?")/$($REPORT --json --diff $T/rss5.zst $T/rss5b.zst 2>&1 >/dev/null)/$($REPORT --diff $T/rss0.zst $T/rss100.zst 2>&1 >/dev/null)" \
	"cuzktrace-report: warning: --diff: '$T/rss5.zst' and '$T/rss100.zst' sampled RSS at different intervals (CUZKTRACE_RSS_MS 5 and 100): a peak shorter than an interval can fall between two samples, so the peak RSS, its phases and the bytes live at it differ by sampling too (the VmHWM row does not)
rc=0//"
# The same program traced with call stacks of 64 frames and of none (CUZKTRACE_DEPTH=0): every
# function read as gone and "(no call stack)" as new, without a word. Since 0.2.45 one warning
# says the depths differ; none where they are the same.
CUZKTRACE_DEPTH=0 CUZKTRACE_OUT=$T/depth0.zst LD_PRELOAD=$LIB $P/diffprog 8000000 12000000 0 same 30 >/dev/null 2>&1
expect_eq "diff: call stacks of different depths: one warning (none for the same depth)" \
	"$($REPORT --diff $T/rss5.zst $T/depth0.zst 2>&1 >$T/depth0.txt; echo "rc=$?")/$($REPORT --json --diff $T/rss5.zst $T/rss5b.zst 2>&1 >/dev/null)/$(grep -c '(no call stack)$' $T/depth0.txt)" \
	"cuzktrace-report: warning: --diff: '$T/rss5.zst' and '$T/depth0.zst' recorded call stacks of different depths (CUZKTRACE_DEPTH 64 and 0): a stack cut shorter may not reach the function that allocated (with 0 every block is '(no call stack)'), so functions can read as gone in one trace and new in the other; trace both with the same depth
rc=0//4"
# Two static functions called helper, in samename.c and lib/samename2.c (tests/progs/samename.c):
# 4 MiB moves from one to the other. Since 0.2.40 they are two rows, each shown with its file's
# name (JSON "file"), in both traces; they were one row "helper", "no change" (8 MiB both).
# At exit only samename.c's holds any: still shown with its file, as at the peak.
for snv in keep swap; do
	CUZKTRACE_OUT=$T/sname_$snv.zst LD_PRELOAD=$LIB $P/samename $snv >/dev/null 2>&1
done
$REPORT --diff $T/sname_keep.zst $T/sname_swap.zst >$T/sname.txt 2>$T/sname.err
expect_eq "diff: two functions of one name in two files are two rows, each with its file's name (they read as one, no change)" \
	"$?/$(cat $T/sname.err)/$(sed -n '/^live bytes by function at peak heap/,/^$/p' $T/sname.txt)/$(sed -n '/^allocation calls/,/^$/p' $T/sname.txt | tail -n +3)" \
	"0//live bytes by function at peak heap (2 of 2 changed)
  change                         base        trace  function
  +4.00 MiB (+200.0%)        2.00 MiB     6.00 MiB  helper (samename.c)
  -4.00 MiB (-66.7%)         6.00 MiB     2.00 MiB  helper (samename2.c)/  no change                         1            1  helper (samename.c)
  no change                         1            1  helper (samename2.c)"
$REPORT --json --diff $T/sname_keep.zst $T/sname_swap.zst >$T/sname.json 2>/dev/null
expect_eq "diff --json: the two helpers apart, by file, at the peak heap, at exit (where one holds bytes) and their calls" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1]))["by_function"]; print(" / ".join(" ".join(str(r.get(k)) for k in ("function","file","base","trace","change")) for m in ("peak_heap","live_at_exit","allocations") for r in d[m]))' $T/sname.json)" \
	"helper samename.c 2097152 6291456 4194304 / helper samename2.c 6291456 2097152 -4194304 / helper samename.c 2097152 6291456 4194304 / helper samename.c 1 1 0 / helper samename2.c 1 1 0"
# Default mode: an 8 MiB block, recorded on its own, moves from phase load to phase msm,
# beside msm's 20 MB of small blocks (an estimate). msm's row shows the exact part apart, and
# is no change "within sampling noise" (since 0.2.23; it read "+5.21 MiB ... within sampling
# noise, +-12.5 MiB"): tests/progs/phasemove.c. JSON exact_change, the exact part's change.
# The rows' order depends on the estimate (by size of change): each is looked at by name.
for pmv in load msm; do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/pmove_$pmv.zst LD_PRELOAD=$LIB $P/phasemove $pmv >/dev/null 2>&1
done
$REPORT --diff $T/pmove_load.zst $T/pmove_msm.zst >$T/pmove.txt 2>$T/pmove.err
$REPORT --json --diff $T/pmove_load.zst $T/pmove_msm.zst >$T/pmove.json 2>/dev/null
sed -n '/^live bytes by phase at peak heap/,/^$/p' $T/pmove.txt >$T/pmove.rows
expect_match "diff, default mode: a block moved between phases shows in msm's row as exact, not as sampling noise" \
	"$(head -1 $T/pmove.rows)|$(grep ' msm ' $T/pmove.rows)|$(grep ' load$' $T/pmove.rows)" \
	'^live bytes by phase at peak heap \(2 of 2 changed\)\|  ([+-][0-9.]+ (B|KiB|MiB)( \([+-](<0\.1|[0-9.]+)%\))?|no change) +[0-9.]+ MiB +[0-9.]+ MiB  msm  \(exact blocks \+8\.00 MiB; sampled ([+-][0-9.]+ (B|KiB|MiB)( \([+-](<0\.1|[0-9.]+)%\))?|no change), (within|beyond) \+-[0-9.]+ MiB\)\|  -8\.00 MiB \(-100\.0%\) +8\.00 MiB +0 B  load$'
# Default mode: function synth keeps 2,000 blocks of 4 KiB beside one block of 8 MiB, then of 4
# MiB (tests/progs/funcsplit.c). Its row shows the exact part apart from the small blocks'
# estimate, as a phase's, and is a change, not noise (since 0.2.42; it read "-3.00 MiB (-18.7%)
# 16.0 MiB 13.0 MiB synth (within sampling noise, +-8.75 MiB)": the report kept no split for
# functions). params' 16 MiB block, exact in both, is no change; other's small blocks alone are
# an estimate (no split). JSON exact_change on by_function rows too, at the peaks and at exit;
# none where one trace is exact (as by_phase).
for fsp in 8 4; do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/fsplit_$fsp.zst LD_PRELOAD=$LIB $P/funcsplit $fsp >/dev/null 2>&1
done
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/fsplit_x8.zst LD_PRELOAD=$LIB $P/funcsplit 8 >/dev/null 2>&1
$REPORT --diff $T/fsplit_8.zst $T/fsplit_4.zst >$T/fsplit.txt 2>$T/fsplit.err
fsp_rc=$?
$REPORT --json --diff $T/fsplit_8.zst $T/fsplit_4.zst >$T/fsplit.json 2>/dev/null
fsp_change='([+-][0-9.]+ (B|KiB|MiB)( \([+-](<0\.1|[0-9.]+)%\))?|no change)'
for fsp_m in 'peak heap' 'peak RSS' 'exit'; do
	sed -n "/^live bytes by function at $fsp_m/,/^\$/p" $T/fsplit.txt >$T/fsplit.rows
	expect_match "diff, default mode: a function's exact block changed beside its small blocks' estimate: the two parts apart, not sampling noise ($fsp_m)" \
		"$fsp_rc/$(cat $T/fsplit.err)/$(head -1 $T/fsplit.rows)|$(grep ' synth ' $T/fsplit.rows)|$(grep ' params$' $T/fsplit.rows)|$(grep -c ' other  (exact' $T/fsplit.rows)" \
		"^0//live bytes by function at $fsp_m \\([123] of 3 changed(, 1 of them within sampling noise)?\\)\\|  $fsp_change +[0-9.]+ MiB +[0-9.]+ MiB  synth  \\(exact blocks -4\\.00 MiB \\(-50\\.0%\\); sampled $fsp_change, (within|beyond) \\+-[0-9.]+ MiB\\)\\|  no change                  16\\.0 MiB     16\\.0 MiB  params\\|0\$"
done
expect_eq "diff, default mode, JSON: exact_change of each function at the peaks and at exit" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1]))["by_function"]; print(" / ".join(" ".join("%s %d" % (r["function"], r["exact_change"]) for r in sorted(d[m], key=lambda r: r["function"])) for m in ("peak_heap", "peak_rss", "live_at_exit")))' $T/fsplit.json)" \
	"other 0 params 0 synth -4194304 / other 0 params 0 synth -4194304 / other 0 params 0 synth -4194304"
$REPORT --json --diff $T/fsplit_x8.zst $T/fsplit_4.zst >$T/fsplitx.json 2>/dev/null
expect_eq "diff, exact against default mode: no exact_change by function, no split in the text" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1]))["by_function"]; print(sum("exact_change" in r for m in ("peak_heap", "peak_rss", "live_at_exit") for r in d[m]), sum(len(d[m]) for m in ("peak_heap", "peak_rss", "live_at_exit")))' $T/fsplitx.json)/$($REPORT --diff $T/fsplit_x8.zst $T/fsplit_4.zst 2>/dev/null | grep -c '(exact blocks')" \
	"0 9/0"
# Two traces of the default mode at two rates: mid's 40 blocks of 200 KiB are sampled by 524288
# and recorded one by one by 65536, so the exact parts do not compare, and no row sets them
# apart (since 0.2.42; the phase's row read "+885 KiB (+2.2%) ... (exact blocks +7.81 MiB
# (+32.6%); sampled -6.95 MiB (-43.8%), ...)", a change, for one program run twice): no
# exact_change either, by phase, function or thread group (mid's 4 rows: a row whose estimate
# comes out at no change ends at the name)
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/fsplit_r512.zst LD_PRELOAD=$LIB $P/funcsplit 8 mid >/dev/null 2>&1
CUZKTRACE_SAMPLE=65536 CUZKTRACE_OUT=$T/fsplit_r64.zst LD_PRELOAD=$LIB $P/funcsplit 8 mid >/dev/null 2>&1
$REPORT --by thread --diff $T/fsplit_r512.zst $T/fsplit_r64.zst >$T/fsplitr.txt 2>$T/fsplitr.err
$REPORT --by thread --json --diff $T/fsplit_r512.zst $T/fsplit_r64.zst >$T/fsplitr.json 2>/dev/null
expect_eq "diff, default mode at two rates: no row sets exact blocks apart (blocks between the rates are exact in one trace only), text and JSON" \
	"$(grep -c 'were traced with different modes or sampling rates (CUZKTRACE_SAMPLE 524288 and 65536)' $T/fsplitr.err)/$(grep -c '(exact blocks' $T/fsplitr.txt)/$(grep -cE '  mid(  |$)' $T/fsplitr.txt)/$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(sum("exact_change" in r for k in ("by_phase", "by_function", "by_thread") for m, v in d[k].items() if m != "allocations" and v for r in v), sum("noise_bytes" in r for k in ("by_phase", "by_function", "by_thread") for m, v in d[k].items() if m != "allocations" and v for r in v))' $T/fsplitr.json)" \
	"1/0/4/0 16"
# (since 0.2.27 a diff with a default-mode side whose peak heap fell in other phases says that
# the mode knows the moment only to the running totals' sends: diffprog's load, exact, against
# its default-mode run, whose main thread's small blocks, sent at the next phase call, make
# its peak a few bytes higher in synthesis; a line iff the phases differ, none for exact traces)
CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/dmom_x.zst LD_PRELOAD=$LIB $P/diffprog 3000000 0 0 >/dev/null 2>&1
CUZKTRACE_SAMPLE=524288 CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/dmom_d.zst LD_PRELOAD=$LIB $P/diffprog 3000000 0 0 >/dev/null 2>&1
$REPORT --diff $T/dmom_x.zst $T/dmom_d.zst >$T/dmom.txt 2>/dev/null
expect_eq "diff, exact against default mode: the peak heap's phases differ, and a line says the mode knows its moment to the totals' sends; none between exact traces" \
	"$(grep '^  during ' $T/dmom.txt | sed 's/.*base: //')/$(grep -c '^  (default mode: a peak heap.s moment is known to the running totals. sends, and one sent a tick late can move it, and its phases, from run to run; CUZKTRACE_SAMPLE=0 for the exact moment)$' $T/dmom.txt)/$($REPORT --diff $T/dbase.zst $T/dcur.zst 2>/dev/null | grep -c '^  (default mode: a peak heap')" \
	"load; trace: synthesis/1/0"
expect_eq "diff, default mode, JSON: exact_change of msm and load" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(" ".join("%s %d" % (r["phase"], r["exact_change"]) for r in sorted(d["by_phase"]["peak_heap"], key=lambda r: r["phase"])))' $T/pmove.json)" \
	"load -8388608 msm 8388608"
# An exact trace against a default-mode one: map_small's 16 mappings of 64 KiB become 40. The
# default mode records mappings one by one, so this is a real change; it read "within sampling
# noise, +-2.95 MiB" before 0.2.27, the exact side's 64 KiB mappings taken for small heap
# blocks the other side might have left unsampled (tests/progs/diffmaps.c)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/dmap16.zst LD_PRELOAD=$LIB $P/diffmaps 16 >/dev/null 2>&1
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/dmap40.zst LD_PRELOAD=$LIB $P/diffmaps 40 >/dev/null 2>&1
$REPORT --diff $T/dmap16.zst $T/dmap40.zst >$T/dmap.txt 2>/dev/null
$REPORT --json --diff $T/dmap16.zst $T/dmap40.zst >$T/dmap.json 2>/dev/null
expect_eq "diff, exact against default mode: 24 more mappings of 64 KiB are a real change at the peak RSS, no sampling noise" \
	"$(sed -n '/^live bytes by function at peak RSS/,/^$/p' $T/dmap.txt | grep ' map_small$' | sed 's/  */ /g')/$($PY -c 'import json, sys; print([(r["change"], r["noise_bytes"]) for r in json.load(open(sys.argv[1]))["by_function"]["peak_rss"] if r["function"] == "map_small"])' $T/dmap.json)" \
	" +1.50 MiB (+150.0%) 1.00 MiB 2.50 MiB map_small/[(1572864, 0)]"
$REPORT --json --diff $T/dcur.zst $T/dbase.zst >$T/rdiff.json 2>/dev/null
expect_eq "diff the other way: the same rows, changes negative" \
	"$(jget $T/rdiff.json peaks.peak_heap.change) / $(diff_rows $T/rdiff.json by_function.peak_heap function)" \
	"-12000000 / extra_cache 7000000 0 -7000000 / grow 25000000 20000000 -5000000 / load_params 30000000 30000000 0 / main 1000 1000 0"
$REPORT --diff $T/dbase.zst $T/dcur.zst --top 1 >$T/diff.txt 2>$T/difft.err
expect_eq "diff text: exit 0, silent" "$?/$(cat $T/difft.err)" "0/"
expect_eq "diff text: header" "$(head -1 $T/diff.txt)" "cuzktrace diff: $T/dcur.zst (trace) against $T/dbase.zst (base)"
expect_match "diff text: the peak heap row, with when each was reached" "$(cat $T/diff.txt)" $'\npeak heap +47\\.7 MiB +59\\.1 MiB  \\+11\\.4 MiB \\(\\+24\\.0%\\) +[0-9]+\\.[0-9]{3} / [0-9]+\\.[0-9]{3}\n'
expect_match "diff text: under the peak heap, the phases active at it in each trace" "$(cat $T/diff.txt)" \
	$'\npeak heap [^\n]*\n  during             base: synthesis; trace: synthesis\npeak mmap '
expect_eq "diff JSON: the phases active at each peak (none at the peak RSS of traces without samples, nor at a peak mmap of 0 B)" \
	"$($PY -c 'import json,sys; p=json.load(open(sys.argv[1]))["peaks"]; print([(k, p[k]["active_phases"]["base"], p[k]["active_phases"]["trace"]) for k in ("peak_rss", "peak_heap", "peak_mmap")], "active_phases" in p["live_at_exit_heap"])' $T/diff.json)" \
	"[('peak_rss', [], []), ('peak_heap', ['synthesis'], ['synthesis']), ('peak_mmap', [], [])] False"
# (two real runs' durations: a change under 0.05% reads "+<0.1%", none "no change")
expect_match "diff text: duration with its change, events" "$(cat $T/diff.txt)" $'\nduration +[0-9.]+ s +[0-9.]+ s  ([-+][0-9]+\\.([0-9]{3}|000[0-9]{3}|000000[0-9]{3}) s \\([-+]<?[0-9.]+%\\)|no change)\nevents +5 +7\n'
$REPORT --diff $T/dcur.zst $T/dcur.zst >$T/diffself.txt 2>/dev/null
expect_match "diff text: a trace against itself: duration 'no change', as every other row (it said +0.000 s (+0.0%))" \
	"$(grep '^duration' $T/diffself.txt)" '^duration +[0-9.]+ s +[0-9.]+ s  no change$'
# a truncated trace's "live at exit" is where it stops: the diff says so under that row (since
# 0.2.17; it read as a leak), and says nothing for two complete traces
head -c $(( $(stat -c %s $T/dcur.zst) - 8 )) $T/dcur.zst >$T/dcut.zst
$REPORT --diff $T/dbase.zst $T/dcut.zst 2>/dev/null | grep -A1 '^heap live at exit' >$T/diffcut.txt
$REPORT --diff $T/dcut.zst $T/dcut.zst 2>/dev/null | grep -A1 '^heap live at exit' >>$T/diffcut.txt
expect_eq "diff text: a truncated trace's live at exit is said to be where it stops; none for complete ones" \
	"$(sed -n 2p $T/diffcut.txt)/$(sed -n 4p $T/diffcut.txt)/$(grep -c truncated $T/diffself.txt)" \
	"  (the trace is truncated: live where it stops, not at exit)/  (both traces are truncated: live where each stops, not at exit)/0"
expect_eq "diff text: the functions' rows at the end of a truncated trace are not headed 'at exit'" \
	"$($REPORT --diff $T/dbase.zst $T/dcut.zst 2>/dev/null | grep -c '^live bytes by function at exit')/$($REPORT --diff $T/dbase.zst $T/dcut.zst 2>/dev/null | grep -o '^live bytes by function at the end (exit, or where a truncated trace stops)')" \
	"0/live bytes by function at the end (exit, or where a truncated trace stops)"
expect_match "diff text: --top 1 shows the function that changed most" "$(cat $T/diff.txt)" \
	$'live bytes by function at peak heap \\(2 of 4 changed; the first 1 shown\\)\n  change +base +trace  function\n  \\+6\\.68 MiB +0 B +6\\.68 MiB  extra_cache\n\nlive bytes by function at exit \\(0 of 1 changed\\)\n  change +base +trace  function\n  no change +1000 B +1000 B  main\n\nallocation calls by function \\('
expect_match "diff text: every phase, unchanged ones after" "$(cat $T/diff.txt)" \
	$'live bytes by phase at peak heap \\(1 of 3 changed\\)\n.*\n  \\+11\\.4 MiB \\(\\+60\\.0%\\) +19\\.1 MiB +30\\.5 MiB  synthesis\n  no change +28\\.6 MiB +28\\.6 MiB  load\n  no change +1000 B +1000 B  \\(none\\)\n'
expect_match "diff text: no RSS samples said once" "$(cat $T/diff.txt)" $'\npeak RSS +- +-  \\(no RSS samples\\) +- / -\n.*\nlive bytes at peak RSS: no RSS samples in either trace\n'
# the same program under two names (renamed.c: a_ and b_ functions): every function read as
# gone or new, without a word; now one warning names a function of the base only
traced_json ren_a $P/renamed_a >/dev/null
traced_json ren_b $P/renamed_b >/dev/null
$REPORT --diff $T/ren_a.zst $T/ren_b.zst >/dev/null 2>$T/ren.err
$REPORT --diff $T/ren_a.zst $T/ren_a.zst >/dev/null 2>$T/ren_same.err
# ... but two runs of one program whose peak moved to other functions get none
traced_json pm1 $P/peakmove 20 10 >/dev/null
traced_json pm2 $P/peakmove 10 20 >/dev/null
$REPORT --diff $T/pm1.zst $T/pm2.zst >/dev/null 2>>$T/ren_same.err
# ... nor one whose two builds have two names (peakmove_after: a copy), where the functions
# are shared over the run's allocations (before 0.2.56: "'load_params' is in the base only")
cp $P/peakmove $T/peakmove_after
traced_json pm3 $T/peakmove_after 10 20 >/dev/null
$REPORT --diff $T/pm1.zst $T/pm3.zst >/dev/null 2>>$T/ren_same.err
expect_eq "diff of one program under two names: one warning (not this one for a trace against itself, which is one file: since 0.2.33 that is said; none for one program whose peak moved to another function, also under another name)" \
	"$(cat $T/ren.err)/$(cat $T/ren_same.err)" \
	"cuzktrace-report: warning: --diff: the functions found in both traces hold under 5% of the bytes at the peak heap, so nearly every function reads as gone or new: functions are matched by their whole names, crate or namespace included ('a_load_params' is in the base only): were the two built under different names?/cuzktrace-report: warning: --diff: BASE and TRACE are one file ('$T/ren_a.zst'): every change reads 0"
# Each side's program and how it ended, under the heading (since 0.2.33), and one warning for
# a side that did not end by exit: a wrapper's trace (ended by exec: nice's, not the program
# it ran) and a run cut short by a signal read as a change of the program without a word (the
# wrapper's functions are not the program's: the warning about that comes after)
CUZKTRACE_OUT=$T/dwrap.zst traced dwrap nice $P/exitcode
CUZKTRACE_OUT=$T/dsig.zst traced dsig $P/sigend raise 15
$REPORT --diff $T/dwrap.zst $T/dcur.zst >$T/dwrap.txt 2>$T/dwrap.err
expect_match "diff: a base that ended by exec: the heading names both programs and their ends, one warning" \
	"$(sed -n 2,3p $T/dwrap.txt)/$(head -1 $T/dwrap.err)" \
	"^base    /usr/bin/nice \(pid [0-9]+\), ended by exec
trace   $P/[a-z]+ \(pid [0-9]+\), ended by exit/cuzktrace-report: warning: --diff: the base, '$T/dwrap.zst', ended by exec at [0-9.]+ s: it holds '/usr/bin/nice' until it replaced itself, not the program it started \(whose trace is a file of its own\)\$"
$REPORT --json --diff $T/dcur.zst $T/dsig.zst >$T/dsig.json 2>$T/dsig.err
expect_match "diff: a trace ended by a signal: one warning; JSON program and end_reason of each side" \
	"$(cat $T/dsig.err)/$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["end_reason"], d["program"]["trace"])' $T/dsig.json)" \
	"^cuzktrace-report: warning: --diff: the trace, '$T/dsig.zst', ended by signal SIGTERM at [0-9.]+ s: its peaks and live bytes are those of a run cut short/\{'base': 'exit', 'trace': 'signal'\} $P/sigend\$"
# Allocation calls by function (since 0.2.33): a change that takes churn out without moving
# a peak (a buffer made at its size instead of grown by realloc, 10 scratch blocks instead of
# 1000) read as no change at the peaks. tests/progs/callsdiff.c, exact mode; the first scratch
# block after the growth makes the peak heap, so it is no temporary (since 0.2.38): 999 and 9
traced_json cd0 $P/callsdiff >/dev/null
traced_json cd1 $P/callsdiff fixed >/dev/null
$REPORT --diff $T/cd0.zst $T/cd1.zst >$T/cd.txt 2>$T/cd.err
$REPORT --json --diff $T/cd0.zst $T/cd1.zst >$T/cd.json 2>>$T/cd.err
expect_eq "diff: allocation calls by function, text and JSON: grow 21 -> 1, scratch 1000 -> 10 with its temporaries" \
	"$(cat $T/cd.err)/$(sed -n '/^allocation calls by function/,/^$/p' $T/cd.txt | grep -E '^allocation|  (grow|scratch)')/$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(r["function"], r["base"], r["trace"], r["change"], r["temporary"]["base"], r["temporary"]["trace"]) for r in d["by_function"]["allocations"] if r["function"] in ("grow", "scratch")])' $T/cd.json)" \
	"/allocation calls by function (2 of 2 changed)
  -990 (-99.0%)                  1000           10  scratch  (temporary: 999 / 9)
  -20 (-95.2%)                     21            1  grow/[('scratch', 1000, 10, -990, 999, 9), ('grow', 21, 1, -20, 0, 0)]"
# a change of a count too small to show as a percentage reads +<0.1%, as a change of bytes does
# (it read +0.0% before 0.2.56): scratch's 3000 blocks against 3001
traced_json cd2 $P/callsdiff 3000 >/dev/null
traced_json cd3 $P/callsdiff 3001 >/dev/null
expect_eq "diff: a change of allocation calls under 0.05%: +1 (+<0.1%), and -1 (-<0.1%) the other way" \
	"$($REPORT --diff $T/cd2.zst $T/cd3.zst 2>&1 | sed -n '/^allocation calls by function/,/^$/p' | grep '  scratch')/$($REPORT --diff $T/cd3.zst $T/cd2.zst 2>&1 | sed -n '/^allocation calls by function/,/^$/p' | grep '  scratch')" \
	"  +1 (+<0.1%)                    3000         3001  scratch  (temporary: 2999 / 3000)/  -1 (-<0.1%)                    3001         3000  scratch  (temporary: 3000 / 2999)"
# errors: a missing base, no value, an output that is the base (refused before it is truncated),
# a truncated base (a warning naming it, then the diff)
$REPORT --diff $T/nobase.zst $T/dcur.zst >/dev/null 2>$T/dmiss.err
expect_eq "diff: a missing base: exit 1, one line" "$?/$(cat $T/dmiss.err)" "1/cuzktrace-report: error: '$T/nobase.zst': No such file or directory"
$REPORT $T/dcur.zst --diff >/dev/null 2>$T/dnov.err
expect_eq "diff: no BASE given: exit 2" "$?/$(head -1 $T/dnov.err)" "2/cuzktrace-report: error: option '--diff' needs a value (BASE)"
cp $T/dbase.zst $T/dbase2.zst
$REPORT --diff $T/dbase2.zst --sites-csv $T/dbase2.zst $T/dcur.zst >/dev/null 2>$T/dout.err
expect_eq "diff: an output that is the base: exit 1, the base kept" "$?/$(cat $T/dout.err)/$(cmp $T/dbase.zst $T/dbase2.zst && echo same)" \
	"1/cuzktrace-report: error: cannot write '$T/dbase2.zst': it is the base (--diff) being read/same"
# ... refused before any output is opened: a --csv and a --phases-csv given before the output
# that is the trace were created (empty: their header) and so truncated an existing file there
echo keep >$T/dkeep.csv
cp $T/dcur.zst $T/dcur2.zst
$REPORT --csv $T/dkeep.csv --phases-csv $T/dnew.pcsv --folded $T/dcur2.zst $T/dcur2.zst >/dev/null 2>$T/dout2.err
expect_eq "an output that is the trace: exit 1, one line, no output opened (an existing one kept)" \
	"$?/$(cat $T/dout2.err)/$(cat $T/dkeep.csv)/$(ls $T/dnew.pcsv 2>&1 >/dev/null | wc -l)/$(cmp $T/dcur.zst $T/dcur2.zst && echo same)" \
	"1/cuzktrace-report: error: cannot write '$T/dcur2.zst': it is the trace being read/keep/1/same"
# ... nor over another trace (an option's FILE taken for the trace: `--csv before.zst
# after.zst` wrote the CSV over before.zst; since 0.2.51), by every output; '-' and a CSV
# written before are fine
cp $T/dbase.zst $T/dother.zst
for o in --csv --sites-csv --folded --folded-heap --phases-csv; do
	$REPORT $o $T/dother.zst $T/dcur.zst >/dev/null 2>$T/dother.err
	expect_eq "an output that is another trace ($o): exit 1, one line, the trace kept" \
		"$?/$(cat $T/dother.err)/$(cmp $T/dbase.zst $T/dother.zst && echo same)" \
		"1/cuzktrace-report: error: cannot write '$T/dother.zst': it is a trace (an output is never written over one; name another file, or '-')/same"
done
# ... nor into a file of the kernel's, refused before the read (since 0.2.62: /proc/version
# failed after the report with "Input/output error"; /proc/self/comm took the output)
for k in /proc/version /proc/self/comm; do
	$REPORT --csv $k $T/dcur.zst >$T/dkern.out 2>$T/dkern.err
	expect_eq "an output that is a file of the kernel's ($k): exit 1, one line, no report" \
		"$?/$(cat $T/dkern.err)/$(wc -c <$T/dkern.out)" \
		"1/cuzktrace-report: error: cannot write '$k': it is a file of the kernel's (/proc, /sys, a cgroup), not a file for output/0"
done
$REPORT --csv $T/dkeep.csv $T/dcur.zst >/dev/null 2>&1
expect_eq "an output that is a file of another kind is written over" "$?/$(head -c 5 $T/dkeep.csv)" "0/t_s,r"
$REPORT --diff $T/dbase.zst --sites-csv $T/dcur.csv $T/dcur.zst >/dev/null 2>/dev/null
expect_eq "diff: --sites-csv describes the trace" "$(grep -c '^"extra_cache ' $T/dcur.csv)" 1
# (cut from runs that hold their blocks 50 ms and flush every 5 ms, so that events precede
# the last frame: a run of dbase's that ended before its first flush left a cut trace with no
# event, and a third warning)
for d in b:30000000:20000000:0:same c:30000000:25000000:7000000:moved; do
	IFS=: read -r n l1 l2 l3 how <<<"$d"
	CUZKTRACE_RSS_MS=0 CUZKTRACE_FLUSH_MS=5 CUZKTRACE_OUT=$T/dslow$n.zst LD_PRELOAD=$LIB $P/diffprog $l1 $l2 $l3 $how 50 >/dev/null 2>&1
done
head -c $(( $(stat -c %s $T/dslowb.zst) - 20 )) $T/dslowb.zst >$T/dcut.zst
$REPORT --json --diff $T/dcut.zst $T/dcur.zst >$T/dcut.json 2>$T/dcut.err
expect_eq "diff: a truncated base: exit 0, its two warnings (truncated, the frame cut) name it, truncated.base true" \
	"$?/$(grep -c "^cuzktrace-report: warning: '$T/dcut.zst': " $T/dcut.err)/$(wc -l <$T/dcut.err)/$(jget $T/dcut.json truncated.base)" "0/2/2/true"
# --diff reads its two traces at once (--jobs 2, the default with two CPUs) or one after the
# other (--jobs 1): the same report and the same stderr lines in the same order, the base's
# first, with warnings from both traces (each truncated); a base that cannot be read fails
# alone, before the trace is read
head -c $(( $(stat -c %s $T/dslowc.zst) - 20 )) $T/dslowc.zst >$T/dcut2.zst
for j in 1 2; do
	$REPORT --jobs $j --json --diff $T/dcut.zst $T/dcut2.zst >$T/djobs$j.json 2>$T/djobs$j.err
	echo "rc=$?" >>$T/djobs$j.err
done
expect_eq "diff --jobs 1 and 2: the same JSON" "$(cmp $T/djobs1.json $T/djobs2.json && echo same)" same
# (the seconds apart: the line rounds nanoseconds to milliseconds, the JSON to microseconds,
# which printf's %.3f then rounds a second time, one way or the other near a half)
expect_eq "diff --jobs 2: both traces' warnings, the base's first, exit 0" "$(sed "s|$T/||; s|covers [0-9.]* s|covers N s|" $T/djobs2.err)" \
	"cuzktrace-report: warning: 'dcut.zst': trace is truncated (no end record); it covers N s
$(grep "dcut.zst': the file ends" $T/djobs1.err | sed "s|$T/||")
cuzktrace-report: warning: 'dcut2.zst': trace is truncated (no end record); it covers N s
$(grep "dcut2.zst': the file ends" $T/djobs1.err | sed "s|$T/||")
rc=0"
expect_eq "diff --jobs 1: the same lines" "$(cmp $T/djobs1.err $T/djobs2.err && echo same)" same
expect_eq "diff --jobs 2: each warning's seconds are its trace's duration (within the rounding)" \
	"$(sed -n 's/.*it covers \([0-9.]*\) s$/\1/p' $T/djobs2.err | $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))["duration_s"]
print([abs(float(v) - d[k]) <= 0.0006 for v, k in zip(sys.stdin.read().split(), ("base", "trace"))])' $T/djobs2.json)" "[True, True]"
# with file outputs the two are read one after the other, --jobs 2 too: a base found corrupt
# midway leaves no output file, whatever the CPUs (both read at once wrote the trace's)
cp $T/dbase.zst $T/dhalf.zst
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=$T/dhalf.zst bs=1 seek=$(( $(stat -c %s $T/dhalf.zst) * 2 / 3 )) conv=notrunc 2>/dev/null
for j in 1 2; do
	rm -f $T/djout$j.csv
	$REPORT --jobs $j --csv $T/djout$j.csv --diff $T/dhalf.zst $T/dcur.zst >/dev/null 2>$T/djout$j.err
	echo "rc=$?/$(ls $T/djout$j.csv 2>/dev/null | wc -l)/$(wc -l <$T/djout$j.err)" >$T/djout$j.res
done
expect_eq "diff with a file output and a base corrupt midway: --jobs 1 and 2 alike, exit 1, one line, no output file" \
	"$(cat $T/djout1.res) $(cat $T/djout2.res)" "rc=1/0/1 rc=1/0/1"
printf 'CUZKTRC\0\xff\xff' >$T/dbad.zst
$REPORT --jobs 2 --diff $T/dbad.zst $T/dcur.zst >$T/dbad.out 2>$T/dbad.err
expect_eq "diff: a base of an unknown version fails alone: exit 1, one line, no report" \
	"$?/$(wc -l <$T/dbad.err)/$(grep -c "^cuzktrace-report: error: '$T/dbad.zst': " $T/dbad.err)/$(wc -c <$T/dbad.out)" "1/1/1/0"
for v in 0 3 x 2x; do
	expect_eq "reader: --jobs '$v' is a usage error" "$($REPORT --jobs "$v" --diff $T/dcut.zst $T/dcur.zst 2>&1 | head -1; echo "rc=${PIPESTATUS[0]}")" \
		"cuzktrace-report: error: option '--jobs' needs 1 or 2, not '$v'
rc=2"
done
# The records decoded ahead carry copies of their strings and stack frames: bounded (16 MiB),
# where a forged trace of 40,000 STACK records of 1,024 frames each (10 KiB a record, 300 KB of
# file) filled the ring with them (1.3 GB for 140,000 such records).
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/deepstk.zst <<'PYEOF'
import sys
from rows import *
rec = stack(1, [0x400000 + 0x100000000 * (i % 2) for i in range(1024)])
with open(sys.argv[1], "wb") as f:
    f.write(z(header()))
    for k in range(40):
        f.write(z(bytes([FRAME]) + uv(k) + uv(0) + rec * 1000))
PYEOF
	for j in 1 2; do
		/usr/bin/time -f %M -o $T/deepstk$j.rss $REPORT --jobs $j --json $T/deepstk.zst >$T/deepstk$j.json 2>$T/deepstk$j.err
		echo "rc=$?" >>$T/deepstk$j.err
	done
	expect_eq "reader --jobs 2: 40,000 deep STACK records read within 40 MiB of --jobs 1's memory, the same report ($(cat $T/deepstk1.rss) KiB, $(cat $T/deepstk2.rss) KiB)" \
		"$(( $(cat $T/deepstk2.rss) < $(cat $T/deepstk1.rss) + 40960 ))/$(cmp -s $T/deepstk1.json $T/deepstk2.json && cmp -s $T/deepstk1.err $T/deepstk2.err && echo same)" "1/same"
fi
# From a pipe the trace is decoded on the one thread: a replay error is said at once, while the
# writer keeps the pipe open (decoded ahead, the error waited for the writer's close: for good
# when it never closes). Here a sampled allocation in an exact-mode trace, then 5 s of silence.
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/pipeerr.zst <<'PYEOF'
import sys
from rows import *
with open(sys.argv[1], "wb") as f:
    f.write(z(header()))
    sampled = bytes([ALLOC]) + sv(5) + uv(0x80) + sv(0x1000) + uv(16) + uv(0) + uv(0)
    f.write(z(bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + sampled))
    # then a frame of about 200 KB: the reader reads 128 KiB at a time, and reading on past
    # the first frame waits for the writer
    import random
    random.seed(7)
    recs = b"".join(alloc(random.randrange(1, 1 << 20), random.randrange(1, 1 << 30), random.randrange(1, 1 << 20))
                    for _ in range(40000))
    f.write(z(bytes([FRAME]) + uv(1) + uv(0) + bytes([THREAD]) + uv(1) + recs))
PYEOF
	(cat $T/pipeerr.zst; sleep 5) | /usr/bin/time -f %e -o $T/pipeerr.s timeout 30 $REPORT --jobs 2 - >/dev/null 2>$T/pipeerr.err
	pe_rc=${PIPESTATUS[1]}
	expect_eq "reader --jobs 2 from a pipe the writer keeps open: a replay error said at once (under 3 s), status 1" \
		"$pe_rc/$($PY -c 'import sys; print(int(float(open(sys.argv[1]).read().split()[-1]) < 3))' $T/pipeerr.s)/$(cat $T/pipeerr.err)" \
		"1/1/cuzktrace-report: error: '/dev/stdin': corrupt trace: a sampled allocation in a trace of the exact mode (its header's CUZKTRACE_SAMPLE is 0 or missing)"
fi
# with RSS samples (the blocks written and kept 150 ms): the peak RSS rows are those of the
# peak heap; in the default mode the large blocks are still exact, and the diff says that
# its bytes by function are estimates
traced_json drss1 $P/diffprog 30000000 20000000 0 same 150 >/dev/null
traced_json drss2 $P/diffprog 30000000 25000000 7000000 moved 150 >/dev/null
$REPORT --json --diff $T/drss1.zst $T/drss2.zst >$T/drss.json 2>/dev/null
expect_eq "diff with RSS samples: both peaks RSS over the heap's, by function at peak RSS as at peak heap" \
	"$(( $(jget $T/drss.json peaks.peak_rss.base) > 50001000 && $(jget $T/drss.json peaks.peak_rss.trace) > 62001000 )) / $(diff_rows $T/drss.json by_function.peak_rss function)" \
	"1 / extra_cache 0 7000000 7000000 / grow 20000000 25000000 5000000 / load_params 30000000 30000000 0 / main 1000 1000 0"
CUZKTRACE_SAMPLE=524288 traced_json ddef1 $P/diffprog 30000000 20000000 0 >/dev/null
CUZKTRACE_SAMPLE=524288 traced_json ddef2 $P/diffprog 30000000 25000000 7000000 moved >/dev/null
$REPORT --json --diff $T/ddef1.zst $T/ddef2.zst >$T/ddef.json 2>/dev/null
$REPORT --diff $T/ddef1.zst $T/ddef2.zst >$T/ddef.txt 2>/dev/null
expect_eq "diff, default mode: estimates, the large blocks exact, the text says so" \
	"$(jget $T/ddef.json estimates) $(jget $T/ddef.json sample_rate_bytes.trace) $(diff_rows $T/ddef.json by_function.peak_heap function | cut -d/ -f1-2) $(grep -c '^(both: the default mode, sampled by 524288 bytes: the bytes by phase, function and thread are estimates)$' $T/ddef.txt)" \
	"true 524288 extra_cache 0 7000000 7000000 / grow 20000000 25000000 5000000  1"
# the default mode's peak heap is exact to within each trace's bound (one thread with running
# totals: 64 KiB each): the diff says so, and a change inside the two bounds may be none
# (synthesis keeps 1,000 against 2,000 bytes, both under the rate: two runs whose peaks
# differ by about 1,000 bytes of running totals); exact mode: no bound, no line
CUZKTRACE_SAMPLE=524288 traced_json ddefs1 $P/diffprog 30000000 1000 0 >/dev/null
CUZKTRACE_SAMPLE=524288 traced_json ddefs2 $P/diffprog 30000000 2000 0 >/dev/null
$REPORT --json --diff $T/ddefs1.zst $T/ddefs2.zst >$T/ddefs.json 2>/dev/null
$REPORT --diff $T/ddefs1.zst $T/ddefs2.zst >$T/ddefs.txt 2>/dev/null
expect_eq "diff, default mode: each trace's peak heap bound in JSON" \
	"$(jget $T/ddefs.json peak_heap_error_bound_bytes.base)/$(jget $T/ddefs.json peak_heap_error_bound_bytes.trace)/$(jget $T/ddef.json peak_heap_error_bound_bytes.trace)/$(jget $T/diff.json peak_heap_error_bound_bytes.base)/$(jget $T/diff.json peak_heap_error_bound_bytes.trace)" \
	"65536/65536/65536/0/0"
expect_match "diff, default mode: a peak heap change inside both bounds may be none" \
	"$(grep '^(peak heap' $T/ddefs.txt)" \
	'^\(peak heap: exact to within 64\.0 KiB in the base and 64\.0 KiB in the trace \(the default mode.s running totals\): the change, \+[0-9]+ B \(\+<0\.1%\), is within 128 KiB and may be none\)$'
expect_eq "diff, default mode: a change past the bounds (+12 MB) only has the bound; exact mode has no line" \
	"$(grep '^(peak heap' $T/ddef.txt)/$($REPORT --diff $T/dbase.zst $T/dcur.zst 2>/dev/null | grep -c '^(peak heap')" \
	"(peak heap: exact to within 64.0 KiB in the base and 64.0 KiB in the trace (the default mode's running totals))/0"
$REPORT --diff $T/dbase.zst $T/ddefs2.zst >$T/ddefs3.txt 2>/dev/null
expect_eq "diff, exact base against a default-mode trace: the trace's bound only, and that the two modes count a block by different sizes (since 0.2.48)" \
	"$(grep '^(peak heap' $T/ddefs3.txt)" \
	"(peak heap: exact in the base, to within 64.0 KiB in the trace (the default mode's running totals); exact mode counts a block at the size asked for, the default mode a small one at its usable size: the change includes that difference)"
# --by thread: bytes by thread group too (one thread, named after the program)
$REPORT --json --by thread --diff $T/dbase.zst $T/dcur.zst >$T/dthr.json 2>/dev/null
$REPORT --by thread --diff $T/dbase.zst $T/dcur.zst >$T/dthr.txt 2>/dev/null
expect_eq "diff --by thread: the thread group at the peak heap, no key without it" \
	"$(diff_rows $T/dthr.json by_thread.peak_heap thread) / $(jget $T/diff.json by_thread)" "diffprog 50001000 62001000 12000000 / null"
expect_match "diff --by thread text (no thread groups at exit)" "$(cat $T/dthr.txt)" $'\nlive bytes by thread group at peak heap \\(1 of 1 changed\\)\n.*\\+11\\.4 MiB \\(\\+24\\.0%\\) +47\\.7 MiB +59\\.1 MiB  diffprog\n\nlive bytes by function at exit \\(0 of 1 changed\\)\n[^\n]*\n  no change +1000 B +1000 B  main\n\nallocation calls by function \\('
# a program whose name ends in digits: its own thread keeps its name (it read "diffprog*")
cp $P/diffprog $T/diffprog2
CUZKTRACE_RSS_MS=0 traced_json dcur2 $T/diffprog2 30000000 25000000 7000000 moved >/dev/null
$REPORT --json --by thread --diff $T/dbase.zst $T/dcur2.zst >$T/dthr2.json 2>/dev/null
expect_eq "diff --by thread: the program's own name is not folded (diffprog2 is no pool)" \
	"$(diff_rows $T/dthr2.json by_thread.peak_heap thread)" "diffprog2 0 62001000 62001000 / diffprog 50001000 0 -50001000"
# started through a symlink, its threads carry the link's name (the executable's is diffprog)
ln -s $P/diffprog $T/prog2
CUZKTRACE_RSS_MS=0 traced_json dlink2 $T/prog2 30000000 25000000 7000000 moved >/dev/null
$REPORT --json --by thread --diff $T/dbase.zst $T/dlink2.zst >$T/dthr3.json 2>/dev/null
expect_eq "diff --by thread: started through a symlink prog2, its name is not folded either" \
	"$(diff_rows $T/dthr3.json by_thread.peak_heap thread)" "prog2 0 62001000 62001000 / diffprog 50001000 0 -50001000"
# one trace with RSS samples and one without: no rows at the peak RSS (the side without would
# read as 0 B), null in the JSON; an exact trace against a default-mode one: one warning
$REPORT --json --diff $T/dbase.zst $T/drss2.zst >$T/dmix.json 2>/dev/null
$REPORT --diff $T/dbase.zst $T/drss2.zst >$T/dmix.txt 2>/dev/null
expect_eq "diff: RSS samples in one trace only: peak RSS null for the base, no rows" \
	"$(jget $T/dmix.json peaks.peak_rss.base) $(jget $T/dmix.json peaks.peak_rss.change) $(jget $T/dmix.json by_function.peak_rss) $(grep -c '^live bytes at peak RSS: no RSS samples in the base$' $T/dmix.txt)" \
	"null null null 1"
$REPORT --diff $T/dbase.zst $T/ddef2.zst >$T/dmode.txt 2>$T/dmode.err
expect_eq "diff: exact against default mode: exit 0, the trace's estimates said" "$?/$(grep -c '^(trace: the default mode, sampled by 524288 bytes: its bytes by phase, function and thread are estimates)$' $T/dmode.txt)" "0/1"
expect_eq "diff: exact against default mode: one warning" "$(cat $T/dmode.err)" \
	"cuzktrace-report: warning: --diff: '$T/dbase.zst' and '$T/ddef2.zst' were traced with different modes or sampling rates (CUZKTRACE_SAMPLE 0 and 524288): their bytes by phase and by function differ by sampling too, and the heap totals by size (exact mode counts a block at the size asked for, the default mode a small one at its usable size)"
# A change of resident pages alone (since 0.2.42): 16 against 48 MiB written of one 64 MiB
# block, sampled every 5 ms while it is kept. The rows by function read no change; under the
# peak RSS, heap and mmap then are the same and the unexplained rest took the whole change
# (before, no row showed where the +32 MiB came from)
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=5 traced_json dtouch16 $P/touchdiff 16 >/dev/null
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=5 traced_json dtouch48 $P/touchdiff 48 >/dev/null
$REPORT --json --diff $T/dtouch16.zst $T/dtouch48.zst >$T/dtouch.json 2>/dev/null
$REPORT --diff $T/dtouch16.zst $T/dtouch48.zst >$T/dtouch.txt 2>/dev/null
dt_rss=$(jget $T/dtouch.json peaks.peak_rss.change)
expect_eq "diff, resident pages alone: heap and mmap at the peak RSS unchanged, the unexplained rest is the RSS change (over 24 MiB), no function changed" \
	"$(jget $T/dtouch.json peaks.peak_rss.heap_bytes.base) $(jget $T/dtouch.json peaks.peak_rss.heap_bytes.change) $(jget $T/dtouch.json peaks.peak_rss.mmap_bytes.change) $(( $(jget $T/dtouch.json peaks.peak_rss.unexplained_bytes.change) == dt_rss && dt_rss > 25165824 )) $(diff_rows $T/dtouch.json by_function.peak_rss function)" \
	"67108864 0 0 1 main 67108864 67108864 0"
expect_match "diff, resident pages alone: the text's rows under the peak RSS" "$(sed -n '/^peak RSS  /,/^peak RSS (VmHWM)/p' $T/dtouch.txt)" \
	$'^peak RSS  [^\n]*\n  heap then              64\\.0 MiB     64\\.0 MiB  no change\n  mmap then                   0 B          0 B  no change\n  unexplained  +-[0-9.]+ MiB +-[0-9.]+ MiB  \\+[0-9.]+ MiB\npeak RSS \\(VmHWM\\)'
# a program linked without a build-id (lld's and mold's default) has nothing to tell a rebuild
# by: its file modified after the trace began gets one line (since 0.2.42; before, another
# build's names and lines without a word), the report otherwise the same; older, none
mkdir -p $T/nb
cp $P/diffprog_nobid $T/nb/diffprog
touch -d '2020-01-01' $T/nb/diffprog
CUZKTRACE_RSS_MS=0 traced_json nb1 $T/nb/diffprog 30000000 20000000 0 >/dev/null
$REPORT --json $T/nb1.zst >$T/nb1.json 2>$T/nb1.err
touch $T/nb/diffprog
$REPORT --json $T/nb1.zst >$T/nb2.json 2>$T/nb2.err
expect_eq "no build-id: the file older than the trace silent; modified after it, one line, exit 0, the same report" \
	"$?|$(cat $T/nb1.err)|$(cat $T/nb2.err)|$(cmp -s $T/nb1.json $T/nb2.json && echo same)" \
	"0||cuzktrace-report: warning: '$T/nb/diffprog' was modified after the trace began and has no build-id to tell whether it is the build that ran: if it was rebuilt since, the names and lines shown for its frames are wrong (link with -Wl,--build-id to have it checked; lld and mold write none by default)|same"
# rebuilt in place with other code and its old mtime kept (cp -p, a build that sets times):
# the span of its loaded segments, which the trace recorded, differs: one line, and its frames
# as module+offset, not another build's names (since 0.2.43; before, silent)
cp $P/diffprog_v2_nobid $T/nb/diffprog
touch -d '2020-01-01' $T/nb/diffprog
$REPORT --json $T/nb1.zst >$T/nb3.json 2>$T/nb3.err
expect_eq "no build-id, rebuilt with its old mtime: exit 0, one line, its frames as module+offset" \
	"$?|$(cat $T/nb3.err)|$($PY -c 'import json, sys; print(sorted({e["site"].split("+")[0] for e in json.load(open(sys.argv[1]))["sites_at_peak_heap"]}))' $T/nb3.json)" \
	"0|cuzktrace-report: warning: '$T/nb/diffprog' changed since it was traced (its loaded segments' span differs, and it has no build-id to find the traced build by); its frames are shown as module+offset|['diffprog']"
# the usual way to compare: trace, rebuild in place, trace again. The base's program then has
# another build-id: without its old build its functions are module+offset (one warning that
# names the base) and match nothing; with the old build kept in a --modules directory, they
# are found by build-id and match, silently. build/progs/diffprog_v2 is diffprog rebuilt.
mkdir -p $T/rb $T/keep $T/empty
cp $P/diffprog $T/rb/diffprog
CUZKTRACE_RSS_MS=0 traced_json rb1 $T/rb/diffprog 30000000 20000000 0 >/dev/null
cp $T/rb/diffprog $T/keep/diffprog
cp $P/diffprog_v2 $T/rb/diffprog
CUZKTRACE_RSS_MS=0 traced_json rb2 $T/rb/diffprog 30000000 25000000 7000000 moved >/dev/null
$REPORT --json --diff $T/rb1.zst $T/rb2.zst >$T/rb.json 2>$T/rb.err
expect_eq "diff after a rebuild in place: exit 0, one warning naming the base, its functions unmatched" \
	"$?/$(cat $T/rb.err)/$(diff_rows $T/rb.json by_function.peak_heap function | tr '/' '\n' | grep -c '^ *diffprog+0x[0-9a-f]* [0-9]* 0 -')" \
	"0/cuzktrace-report: warning: '$T/rb1.zst': '$T/rb/diffprog' changed since it was traced (build-id differs); its frames are shown as module+offset (--modules DIR finds the traced build in DIR)/3"
$REPORT --json --diff $T/rb1.zst $T/rb2.zst --modules $T/empty --modules $T/keep >$T/rbk.json 2>$T/rbk.err
expect_eq "diff after a rebuild, the old build in --modules: exit 0, silent, the functions match" \
	"$?/$(cat $T/rbk.err)/$(diff_rows $T/rbk.json by_function.peak_heap function)" \
	"0//extra_cache 0 7000000 7000000 / grow 20000000 25000000 5000000 / load_params 30000000 30000000 0 / main 1000 1000 0"
$REPORT --json --diff $T/rb1.zst $T/rb2.zst --modules $T/empty >/dev/null 2>$T/rbe.err
expect_eq "diff after a rebuild, --modules without the old build: the warning says so" "$(cat $T/rbe.err)" \
	"cuzktrace-report: warning: '$T/rb1.zst': '$T/rb/diffprog' changed since it was traced (build-id differs); its frames are shown as module+offset (no file of its name and build-id in --modules)"
$REPORT --json $T/rb1.zst --modules $T/keep >$T/rb1k.json 2>$T/rb1k.err
expect_eq "--modules without --diff: the report of the old build's trace names its functions, silently" \
	"$(cat $T/rb1k.err)/$($PY -c 'import json,sys; print(sorted(s["site"].split(" (")[0] for s in json.load(open(sys.argv[1]))["sites_at_peak_heap"]))' $T/rb1k.json)" \
	"/['grow', 'load_params', 'main']"
$REPORT --modules $T/nodir $T/rb1.zst >/dev/null 2>$T/rbn.err
expect_eq "--modules with no such directory: exit 2" "$?/$(head -1 $T/rbn.err)" \
	"2/cuzktrace-report: error: --modules: '$T/nodir' is not a directory"

# arguments that hold a newline, or are empty: the header's args key (NUL between them) keeps
# them apart; from argv alone ('\n' between them) 'x<newline>y' read as two arguments
CUZKTRACE_OUT=$T/nlargv.zst traced nlargv $P/bigstacks 1 $'x\ny' '' 'a b'
$REPORT --json $T/nlargv.zst >$T/nlargv.json 2>/dev/null
expect_eq "reader: an argument holding a newline stays one argument (JSON argv, text command line)" \
	"$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["argv"][1:])' $T/nlargv.json)/$($REPORT $T/nlargv.zst 2>/dev/null | grep '^command line' | sed 's/^command line *[^ ]*//')" \
	"['1', 'x\\ny', '', 'a b']/ 1 'x?y' '' 'a b'"
expect_eq "reader: a short command line is whole (argv_cut false)" "$(jget $T/nlargv.json argv_cut)" false

# a command line longer than the 32 KiB the header keeps: cut, and said so (it was cut without
# a word); args_total is its whole length, NULs included
longargs=()
for i in $(seq 1000 2999); do longargs+=("$(printf 'a%.0s' {1..100})$i"); done
CUZKTRACE_OUT=$T/longargv.zst traced longargv $P/bigstacks 1 "${longargs[@]}"
$REPORT --json $T/longargv.zst >$T/longargv.json 2>/dev/null
la_total=$(( ${#P} + 11 + 2 + 2000 * 105 )) # "$P/bigstacks", "1" and the 2,000, a NUL after each
expect_eq "reader: a long command line: cut, the whole length in the header, argv_cut true" \
	"$(cat $T/longargv.rc)/$(jget $T/longargv.json header.args_total)/$(jget $T/longargv.json argv_cut)" "0/$la_total/true"
la_line=$($REPORT $T/longargv.zst 2>/dev/null | grep '^command line' | sed -E 's/a{100}/A/g')
expect_match "reader: a long command line: the text says it is cut, and how much is kept (${la_line:0:90} ... ${la_line: -70})" \
	"${la_line:0:90}|${la_line: -70}" \
	"^command line +$P/bigstacks 1 A1000 A1001 .*\|.* \.\.\. \[cut: the trace keeps the first 3276[67] bytes of $la_total\]\$"

# more than 2^62 bytes allocated over a run is no corruption (65,537 mappings of 64 TiB, no page
# touched, in a fraction of a second): the reader, whose sums cannot hold it, says so (since
# 0.2.36 it read "corrupt trace: more bytes than any process can have"); 65,535 are reported
hm_ok=1
for n in 65535 65537; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/hugemaps$n.zst LD_PRELOAD=$LIB $P/hugemaps $n 2>$T/hugemaps$n.err || hm_ok=0
done
if [ $hm_ok = 1 ]; then
	$REPORT --json $T/hugemaps65535.zst >$T/hugemaps.json 2>/dev/null
	hm_rc=$?
	$REPORT $T/hugemaps65537.zst >/dev/null 2>$T/hugemaps.rerr
	expect_eq "2^62 bytes allocated in all: said as more than the reader adds up, not corrupt (exit 1); 65,535 x 64 TiB reported" \
		"$?/$(cat $T/hugemaps.rerr)/$hm_rc $(jget $T/hugemaps.json event_counts.mmap)" \
		"1/cuzktrace-report: error: '$T/hugemaps65537.zst': the trace allocates more than 2^62 bytes in all (blocks and mappings allocated over the run, freed or not), more than this reader can add up: no report/0 65535"
else
	echo "  skip hugemaps: the kernel refused 64 TiB mappings ($(head -1 $T/hugemaps65535.err))"
fi
# The unexplained RSS counts the resident pages of file mappings (a parameter file read through
# mmap: its whole size); since 0.2.38 the report also gives the remainder without them, from the
# peak sample's RssAnon and RssShmem (`unexplained anon`, JSON `peak_rss.unexplained_anon_bytes`).
# The file lies beside the test programs: a tmpfs would make its pages shmem.
fm_file=$P/filemap.data
if [ "$(stat -f -c %T $P 2>/dev/null)" = tmpfs ]; then
	echo "  skip unexplained anon: $P is on a tmpfs, whose file pages are shmem"
else
	CUZKTRACE_OUT=$T/filemap.zst traced filemap $P/filemap $fm_file 64
	rm -f $fm_file
	$REPORT --json --csv $T/filemap.csv $T/filemap.zst >$T/filemap.json 2>/dev/null
	# the timeline's mmap_bytes counts file mappings too: the peak RSS sample's row has the
	# 64 MiB and the anonymous mappings then, and no row passes the peak mmap
	expect_eq "filemap: the CSV row of the peak RSS sample has mmap_bytes = the sample's anonymous + file-backed mappings (64 MiB of file), the column's top the peak mmap" \
		"$($PY -c '
import csv, json, sys
d = json.load(open(sys.argv[1])); p = d["peak_rss"]
rows = list(csv.DictReader(open(sys.argv[2])))
at = [int(r["mmap_bytes"]) for r in rows if r["t_s"] == "%.6f" % p["t_s"] and int(r["rss_bytes"]) == p["bytes"]]
print(at[:1] == [p["anon_mmap_bytes"] + p["file_mmap_bytes"]], p["file_mmap_bytes"] == 64 << 20, max(int(r["mmap_bytes"]) for r in rows) == d["peak_mmap"]["bytes"])' $T/filemap.json $T/filemap.csv)" \
		"True True True"
	$REPORT $T/filemap.zst >$T/filemap.txt 2>/dev/null
	expect_eq "filemap: 64 MiB of a file read through mmap: in the unexplained RSS, not in its anonymous remainder (RssAnon + RssShmem - heap - anonymous mmap, exactly); the text line gives it" \
		"$(cat $T/filemap.rc)/$(cat $T/filemap.out)/$($PY -c '
import json, re, sys
p = json.load(open(sys.argv[1]))["peak_rss"]; d = p["detail"]; u, a = p["unexplained_bytes"], p["unexplained_anon_bytes"]
m = re.search(r"^  unexplained anon +\S+ \S+ \((-?\d+) bytes\) = RSS anonymous \+ shmem - heap - anonymous mmap \(file pages left out\)$", open(sys.argv[2]).read(), re.M)
print(a == d["rss_anon_bytes"] + d["rss_shmem_bytes"] - p["heap_bytes"] - p["anon_mmap_bytes"] - p["pinned_bytes"],
      u - a >= 64 << 20, a < 32 << 20, p["file_mmap_bytes"] == 64 << 20, m is not None and int(m.group(1)) == a)' $T/filemap.json $T/filemap.txt)" \
		"0/filemap: 64 MiB read, sum 0/True True True True True"
fi
# /dev/zero mapped shared (8 MiB) and private (4 MiB): anonymous memory both, as the kernel
# makes them (since 0.2.51 the shared one too: it counted 8 MiB file-backed)
CUZKTRACE_OUT=$T/devzero.zst traced devzero $P/devzero
# each MMAP's length, flags (CKT_MAP_ANON 1, CKT_MAP_SHARED 2) and protection, by the oracle;
# MAP_SHARED_VALIDATE is shared as MAP_SHARED is
CUZKTRACE_OUT=$T/devzerov.zst traced devzerov $P/devzero validate
expect_eq "devzero: the MMAP records' length, flags and protection (the oracle's reading), MAP_SHARED and MAP_SHARED_VALIDATE alike" \
	"$(for z in devzero devzerov; do $PY $ROOT/tests/oracle/oracle.py --records $T/$z.zst | grep -E '^mmap (8388608|4194304) ' | tr '\n' '|'; echo; done)" \
	"mmap 8388608 3 3|mmap 4194304 1 3|
mmap 8388608 3 3|mmap 4194304 1 3|"
expect_eq "devzero: /dev/zero mapped shared and private is anonymous (peak mmap anon/file, at exit anon/file)" \
	"$(cat $T/devzero.rc)/$(cat $T/devzero.out)/$($REPORT --json $T/devzero.zst | $PY -c '
import json, sys
d = json.load(sys.stdin); p, e = d["peak_mmap"], d["live_at_exit"]
print(p["anon_bytes"], p["file_bytes"], e["anon_mmap_bytes"], e["file_mmap_bytes"])')" \
	"0/devzero: 1 2/12582912 0 12582912 0"
# without RSS samples there is no such moment: null, and no line
CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/filemap0.zst traced filemap0 $P/filemap $T/filemap0.data 1
expect_eq "filemap without RSS samples: unexplained_anon_bytes null, no line" \
	"$($REPORT --json $T/filemap0.zst | $PY -c 'import json,sys; print(json.load(sys.stdin)["peak_rss"]["unexplained_anon_bytes"])')/$($REPORT $T/filemap0.zst | grep -c 'unexplained anon')" "None/0"
# A debug file by build-id that cannot be opened (out of descriptors) is said with the open's
# reason, not libdwfl's "No DWARF information found" (before 0.2.56). Needs libc's debug file
# (libc6-dbg); every descriptor limit from 4 to 40 is tried, some fail at that file (where
# depends on what the reader holds open then).
dbg_libc=$(ldd $P/exitcode 2>/dev/null | awk '/libc\.so/ {print $3; exit}')
dbg_id=$(readelf -n "$dbg_libc" 2>/dev/null | awk '/Build ID/ {print $3; exit}')
if [ -n "$dbg_id" ] && [ -r /usr/lib/debug/.build-id/${dbg_id:0:2}/${dbg_id:2}.debug ]; then
	CUZKTRACE_OUT=$T/dbgfd.zst traced dbgfd $P/threadnames
	for n in $(seq 4 40); do
		bash -c "ulimit -n $n; $REPORT $T/dbgfd.zst" 2>&1 >/dev/null | grep 'debug information of'
	done >$T/dbgfd.err
	expect_eq "a debug file out of descriptors' reach: said with the open's reason (libc's, and no other reason for any module)" \
		"$(grep -c "of '$dbg_libc' (Too many open files): its frames are shown without file:line$" $T/dbgfd.err | sed 's/^[1-9][0-9]*$/some/')/$(grep -vc '(Too many open files)' $T/dbgfd.err)" "some/0"
else
	echo "  skip debug file out of descriptors: no debug file of libc by its build-id (libc6-dbg)"
fi

# --diff percentages: a fall that leaves something reads -99.9% at most (100,000 bytes to 1:
# -99.999%, which rounds to -100.0%, the mark of a fall to nothing); to nothing, -100.0%
for n in 100000 1; do CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/grab$n.zst LD_PRELOAD=$LIB $P/grabone $n >/dev/null 2>&1; done
expect_eq "--diff: 100,000 bytes to 1 at one site reads -99.9% (the peak heap's function row)" \
	"$($REPORT --diff $T/grab100000.zst $T/grab1.zst 2>/dev/null | grep -m1 ' main$')" \
	"  -97.7 KiB (-99.9%)         97.7 KiB          1 B  main"

# Orderings and splits no other check pinned (a mutation audit): two sites of 0 bytes live at
# exit ordered by their count of blocks; the sites CSV's stack column of a site whose only
# stack allocated 0 bytes; --by thread's split at the peak heap and at the peak RSS apart
# live at exit, sites of equal bytes (0) ordered by their count of blocks
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/zl.zst traced zl $P/zeroleak
expect_eq "zeroleak: at exit, two sites of 0 bytes by count: b_three (3 blocks) before a_one (1)" \
	"$(cat $T/zl.rc)/$($REPORT --json $T/zl.zst 2>/dev/null | $PY -c 'import json,sys; print([(e["site"].split(" (")[0], e["bytes"], e["count"]) for e in json.load(sys.stdin)["sites_at_exit"] if e["site"].startswith(("a_one ", "b_three "))])')" \
	"0/[('b_three', 0, 3), ('a_one', 0, 1)]"
# the sites CSV's stack column of a site whose only stack allocated 0 bytes is its own
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/zf.zst traced zf $P/zerofree
$REPORT --sites-csv $T/zf.csv $T/zf.zst >/dev/null 2>&1
expect_match "zerofree: the CSV row of zero_churn (one malloc(0), freed) shows zero_churn's own stack" \
	"$(cat $T/zf.rc)/$(grep '^"zero_churn ' $T/zf.csv)" \
	'^0/"zero_churn \([^"]*zerofree\.c:[0-9]+\)",0,0,0,0,1,0,"zero_churn \([^"]*zerofree\.c:[0-9]+\) <- main \('
# --by thread JSON: peak_heap.by_thread holds the bytes at the peak heap, peak_rss.by_thread those at the peak RSS
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/tpk.zst traced tpk $P/threadpeaks
expect_eq "threadpeaks --by thread: early's 8 MiB at the peak heap, late's 32 MiB mapping at the peak RSS, as the thread_groups say" \
	"$(cat $T/tpk.rc)/$($REPORT --json --by thread $T/tpk.zst 2>/dev/null | $PY -c '
import json,sys; d=json.load(sys.stdin)
f = lambda k: [(x["thread"], x["bytes"]) for x in d[k]["by_thread"] if x["thread"] in ("early", "late")]
g = {x["name"]: (x["at_peak_heap_bytes"], x["at_peak_rss_bytes"]) for x in d["thread_groups"]}
print(f("peak_heap"), f("peak_rss"), g["early"], g["late"])')" \
	"0/[('early', 8388608)] [('late', 33554432)] (8388608, 0) (0, 33554432)"

# --diff's own figures, pinned exactly on two hand-made traces (a mutation audit of
# reader/report_diff.c): functions "0x5010".. in no module, each a few blocks live at exit, the
# base ending at 1 ms, the trace at 3 ms. Rows of one change (+-100 B, +-500 B) are ordered by
# the larger of their bytes, then by name; a change under 0.05% reads "+<0.1%" or "-<0.1%"; a
# function new in the trace reads "+500 B" (no percentage); the calls' changes are signed, a
# count from 0 "+2"; the duration's change is in milliseconds
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - "$T" <<'PYEOF'
import sys
from rows import *
T = sys.argv[1]
blocks_trace(T + "/drb.zst", [(0x5010, [100000]), (0x5020, [100000]), (0x5030, [100]), (0x5040, [1000]),
                       (0x5050, [300]), (0x5070, [40, 40, 40]), (0x5080, [500])], 1000000)
blocks_trace(T + "/drt.zst", [(0x5010, [99990]), (0x5020, [100010]), (0x5030, [200]), (0x5040, [1100]),
                       (0x5060, [500]), (0x5070, [60]), (0x5090, [250, 250])], 3000000)
PYEOF
	$REPORT --diff $T/drb.zst $T/drt.zst >$T/dr.txt 2>$T/dr.err
	expect_eq "diff figures: rows of one change by their larger bytes, then by name; under 0.05% '+<0.1%' / '-<0.1%'; a new function '+500 B'" \
		"$?/$(cat $T/dr.err)/$(sed -n '/^live bytes by function at peak heap/,/^$/p' $T/dr.txt)" \
		"0//live bytes by function at peak heap (9 of 9 changed)
  change                         base        trace  function
  +500 B                          0 B        500 B  0x5060
  -500 B (-100.0%)              500 B          0 B  0x5080
  +500 B                          0 B        500 B  0x5090
  -300 B (-100.0%)              300 B          0 B  0x5050
  +100 B (+10.0%)              1000 B     1.07 KiB  0x5040
  +100 B (+100.0%)              100 B        200 B  0x5030
  -60 B (-50.0%)                120 B         60 B  0x5070
  +10 B (+<0.1%)             97.7 KiB     97.7 KiB  0x5020
  -10 B (-<0.1%)             97.7 KiB     97.6 KiB  0x5010"
	expect_eq "diff figures: the calls by function, signed counts (from 0: '+2'), equal changes by name" \
		"$(sed -n '/^allocation calls by function/,/^$/p' $T/dr.txt)" \
		"allocation calls by function (5 of 9 changed)
  change                         base        trace  function
  -2 (-66.7%)                       3            1  0x5070
  +2                                0            2  0x5090
  -1 (-100.0%)                      1            0  0x5050
  +1                                0            1  0x5060
  -1 (-100.0%)                      1            0  0x5080
  no change                         1            1  0x5010
  no change                         1            1  0x5020
  no change                         1            1  0x5030
  no change                         1            1  0x5040"
	expect_eq "diff figures: the duration row, 1 ms to 3 ms, in milliseconds" \
		"$(grep '^duration' $T/dr.txt)" \
		"duration                  0.001 s      0.003 s  +0.002 s (+200.0%)"
fi

# an exact base against a default-mode trace of one program (dmom above: the peaks a few bytes
# apart): a change within the trace's bound alone (the base has none) may be none, said with
# the two modes' sizes (a mutation audit: it was checked only where both traces had a bound)
expect_match "diff, exact against default mode: a change within the trace's bound alone may be none" \
	"$(grep '^(peak heap' $T/dmom.txt)" \
	'^\(peak heap: exact in the base, to within 64\.0 KiB in the trace \(the default mode.s running totals\): the change, [+-][0-9]+ B \([+-](<0\.1|[0-9.]+)%\), is within 64\.0 KiB and may be none; exact mode counts a block at the size asked for, the default mode a small one at its usable size: the change includes that difference\)$'

# a trace without RSS samples against one with (a mutation audit): the peak RSS row says that
# one trace has none, and JSON's parts of the peak RSS sample are null for that side and for
# their change
expect_match "diff: RSS samples in one trace only: the peak RSS row says so, as the VmHWM row does" \
	"$(grep '^peak RSS' $T/dmix.txt | tr -s ' ')" \
	$'^peak RSS - [0-9.]+ MiB \\(no RSS in one trace\\) - / [0-9.]+\npeak RSS \\(VmHWM\\) - [0-9.]+ MiB \\(no VmHWM in one trace\\)$'
expect_eq "diff --json: the parts of the peak RSS null in the trace without RSS samples, and their changes" \
	"$($PY -c 'import json,sys; p=json.load(open(sys.argv[1]))["peaks"]["peak_rss"]; print([(p[k]["trace"], p[k]["change"]) for k in ("heap_bytes", "mmap_bytes", "pinned_bytes", "unexplained_bytes")])' $T/hwmn.json)" \
	"[(None, None), (None, None), (None, None), (None, None)]"

# temporaries (blocks freed soon after) are counted by exact traces alone: none shown where a
# side is of the default mode, in the text (dmom: grow's malloc(0) freed, a temporary in the
# exact base) nor in JSON (ddef, both default: temporary null) (a mutation audit)
expect_eq "diff: no temporaries where a side is of the default mode (text: exact against default; JSON: both default)" \
	"$(grep -c '(temporary:' $T/dmom.txt)/$($PY -c 'import json,sys; print(sorted(set(repr(r["temporary"]) for r in json.load(open(sys.argv[1]))["by_function"]["allocations"])))' $T/ddef.json)" \
	"0/['None']"

# the warning that two traces share no function (programs of two names, '/x/oldprog' and
# '/x/newprog'): said where the functions in both hold under 5% of the bytes at the peak heap
# in each trace, not where they hold 10% in either
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - "$T" <<'PYEOF'
import sys
from rows import *
T = sys.argv[1]
# 0x6020's 1,000 bytes: 10% of a trace's 10,000, or 4% of its 25,000
for name, b, t in (("10_4", 10000, 25000), ("4_10", 25000, 10000), ("4_4", 25000, 25000)):
    blocks_trace("%s/dj%s_a.zst" % (T, name), [(0x6010, [b - 1000]), (0x6020, [1000])], 100, (b"exe", b"/x/oldprog"))
    blocks_trace("%s/dj%s_b.zst" % (T, name), [(0x7010, [t - 1000]), (0x6020, [1000])], 100, (b"exe", b"/x/newprog"))
PYEOF
	expect_eq "diff: two programs whose shared function holds 10% of the base's peak heap and 4% of the trace's (or 4% and 10%): no warning; 4% of both: the warning" \
		"$($REPORT --diff $T/dj10_4_a.zst $T/dj10_4_b.zst 2>&1 >/dev/null; echo "rc=$?")/$($REPORT --diff $T/dj4_10_a.zst $T/dj4_10_b.zst 2>&1 >/dev/null; echo "rc=$?")/$($REPORT --diff $T/dj4_4_a.zst $T/dj4_4_b.zst 2>&1 >/dev/null; echo "rc=$?")" \
		"rc=0/rc=0/cuzktrace-report: warning: --diff: the functions found in both traces hold under 5% of the bytes at the peak heap, so nearly every function reads as gone or new: functions are matched by their whole names, crate or namespace included ('0x6010' is in the base only): were the two built under different names?
rc=0"
fi

# two static functions called helper in two files whose names are of one length (samename.c
# and samenam2.c, a copy of lib/samename2.c): two rows, as for files of two lengths (4 MiB
# moved either way, 6 MiB the larger in each: by file, samenam2.c first)
mkdir -p $T/snlen && cp tests/progs/lib/samename2.c $T/snlen/samenam2.c
if gcc -std=gnu11 -D_GNU_SOURCE -O2 -g -o $T/snlen/samename tests/progs/samename.c $T/snlen/samenam2.c 2>/dev/null; then
	for snv in keep swap; do
		CUZKTRACE_OUT=$T/snlen_$snv.zst LD_PRELOAD=$LIB $T/snlen/samename $snv >/dev/null 2>&1
	done
	expect_eq "diff: two functions of one name in files of names of one length are two rows" \
		"$(sed -n '/^live bytes by function at peak heap/,/^$/p' <($REPORT --diff $T/snlen_keep.zst $T/snlen_swap.zst 2>/dev/null))" \
		"live bytes by function at peak heap (2 of 2 changed)
  change                         base        trace  function
  -4.00 MiB (-66.7%)         6.00 MiB     2.00 MiB  helper (samenam2.c)
  +4.00 MiB (+200.0%)        2.00 MiB     6.00 MiB  helper (samename.c)"
else
	echo "  skip two functions of one name in files of one name length: gcc cannot build them here"
fi

# the join of a bare name to a path that ends in it (Rust's inlined "build_aux" against
# "prover::build_aux"), on a C program whose symbols are so named (asm labels; no debug
# information, so the symbol table names them): joined where the path is held in the other
# trace only and is the one such path; apart where it is held in both traces, or where two
# paths end in the name (which one is not known)
mkdir -p $T/bj
cat >$T/bj/barejoin.c <<'CEOF'
#include <stdlib.h>
#include <string.h>
#define F(cname, sym)                                                   \
	__attribute__((noinline)) void *cname(size_t n) __asm__(sym);     \
	__attribute__((noinline)) void *cname(size_t n)                   \
	{                                                                 \
		void *p = memset(malloc(n), 1, n);                        \
		__asm__ volatile("" ::: "memory");                        \
		return p;                                                 \
	}
F(bare, "build_aux")
F(pa, "\"prover::build_aux\"")
F(pb, "\"other::build_aux\"")
static void *volatile keep[3];
int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	if (!strcmp(m, "bare") || !strcmp(m, "bare+pa"))
		keep[0] = bare(1 << 20);
	if (!strcmp(m, "bare+pa") || !strcmp(m, "pa+pb"))
		keep[1] = pa(2 << 20);
	if (!strcmp(m, "pa"))
		keep[1] = pa(4 << 20);
	if (!strcmp(m, "pa+pb"))
		keep[2] = pb(3 << 20);
	return 0;
}
CEOF
if gcc -O1 -o $T/bj/barejoin $T/bj/barejoin.c 2>/dev/null; then
	for v in bare bare+pa pa pa+pb; do
		CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/bj/$v.zst LD_PRELOAD=$LIB $T/bj/barejoin $v >/dev/null 2>&1
	done
	bj_rows() { $REPORT --diff $T/bj/$1.zst $T/bj/$2.zst 2>/dev/null | sed -n '/^live bytes by function at peak heap/,/^$/p' | tail -n +3; }
	expect_eq "diff: a bare name joined to the one path held in the other trace only; apart from one held in both, or from two" \
		"$(bj_rows bare pa)/$(bj_rows bare+pa pa)/$(bj_rows bare pa+pb)" \
		"  +3.00 MiB (+300.0%)        1.00 MiB     4.00 MiB  prover::build_aux/  +2.00 MiB (+100.0%)        2.00 MiB     4.00 MiB  prover::build_aux
  -1.00 MiB (-100.0%)        1.00 MiB          0 B  build_aux/  +3.00 MiB                       0 B     3.00 MiB  other::build_aux
  +2.00 MiB                       0 B     2.00 MiB  prover::build_aux
  -1.00 MiB (-100.0%)        1.00 MiB          0 B  build_aux"
else
	echo "  skip the join of a bare name: gcc cannot build a symbol named 'prover::build_aux' here"
fi

# three static functions called helper: in sa.c and sb.c (with debug information: each row
# shown with its file) and in sc.c (built without: no file to show); 4 MiB moved in each, 6 MiB
# the larger in each: by name, the one without a file first, then by file
mkdir -p $T/sn3
cat >$T/sn3/sa.c <<'CEOF'
#include <stdlib.h>
#include <string.h>
void *sb_make(size_t n);
void *sc_make(size_t n);
static void *volatile keep[3];
__attribute__((noinline)) static void *helper(size_t n)
{
	return memset(malloc(n), 1, n);
}
int main(int argc, char **argv)
{
	int swap = argc > 1 && !strcmp(argv[1], "swap");
	keep[0] = helper((size_t)(swap ? 6 : 2) << 20);
	keep[1] = sb_make((size_t)(swap ? 2 : 6) << 20);
	keep[2] = sc_make((size_t)(swap ? 2 : 6) << 20);
	return 0;
}
CEOF
for f in sb sc; do
	cat >$T/sn3/$f.c <<CEOF
#include <stdlib.h>
#include <string.h>
__attribute__((noinline)) static void *helper(size_t n)
{
	void *p = memset(malloc(n), 1, n);
	__asm__ volatile("" ::: "memory");
	return p;
}
void *${f}_make(size_t n)
{
	return helper(n);
}
CEOF
done
if (cd $T/sn3 && gcc -O1 -g -c sa.c sb.c && gcc -O1 -g0 -c sc.c && gcc -o sn3 sa.o sb.o sc.o) 2>/dev/null; then
	for v in keep swap; do
		CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/sn3/$v.zst LD_PRELOAD=$LIB $T/sn3/sn3 $v >/dev/null 2>&1
	done
	expect_eq "diff: three functions of one name, one without a file: rows of one change, the one without a file first" \
		"$($REPORT --diff $T/sn3/keep.zst $T/sn3/swap.zst 2>/dev/null | sed -n '/^live bytes by function at peak heap/,/^$/p')" \
		"live bytes by function at peak heap (3 of 3 changed)
  change                         base        trace  function
  -4.00 MiB (-66.7%)         6.00 MiB     2.00 MiB  helper
  +4.00 MiB (+200.0%)        2.00 MiB     6.00 MiB  helper (sa.c)
  -4.00 MiB (-66.7%)         6.00 MiB     2.00 MiB  helper (sb.c)"
else
	echo "  skip three functions of one name: gcc cannot build them here"
fi
