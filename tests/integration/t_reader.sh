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
