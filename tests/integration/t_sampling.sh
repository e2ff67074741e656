# Default mode (CUZKTRACE_SAMPLE > 0): totals exact to within the stated bound, mmap exact,
# sampled estimates unbiased. run.sh exports CUZKTRACE_SAMPLE=0; these runs set it.
# The rest of the suite runs in exact mode (run.sh): a sweep of programs in the default mode
# with the checks that hold in both, so that the default mode's own paths are run with them:
# the status, output and own stderr of the untraced run, the tracer's two lines and no other,
# the trace complete, in the default mode, with nothing lost or inconsistent, and the reader
# silent (the tracer preloaded twice read every event as exact, with a line more, in the
# default mode alone until 0.2.50: the suite's exact mode hid it)
for sw in known leaks temps exitcode strdups ctor cxxlocal threadnames usable churn smallrow untouched classcap; do
	timeout 60 $P/$sw >$T/sw.uout 2>$T/sw.uerr
	echo $? >>$T/sw.uout
	rm -f $T/sw.zst
	CUZKTRACE_OUT=$T/sw.zst timeout 60 env -u CUZKTRACE_SAMPLE LD_PRELOAD=$LIB $P/$sw >$T/sw.out 2>$T/sw.err
	echo $? >>$T/sw.out
	$REPORT --json $T/sw.zst >$T/sw.json 2>$T/sw.rerr
	expect_eq "default mode: $sw runs as untraced (status, output, its own stderr), the tracer's two lines alone, the trace complete, nothing lost or inconsistent, the reader silent" \
		"$(cmp -s $T/sw.out $T/sw.uout && echo same)/$(grep -v '^cuzktrace: ' $T/sw.err | cmp -s - $T/sw.uerr && echo same)/$(grep -c '^cuzktrace: ' $T/sw.err)/$(sed -n 1p $T/sw.err | sed -E 's/[0-9]+/N/')/$(jget $T/sw.json truncated)/$(jget $T/sw.json sampling.rate_bytes)/$(jget $T/sw.json lost_events)/$(jget $T/sw.json inconsistencies)/$(cat $T/sw.rerr)" \
		"same/same/2/cuzktrace: tracing $sw (pid N) to $T/sw.zst/false/524288/0/0/"
done
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sx.zst traced sx $P/known
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/sd.zst traced sd $P/known
$REPORT --json $T/sx.zst >$T/sx.json
$REPORT --json $T/sd.zst >$T/sd.json
expect_eq "default mode: program output unchanged" "$(cat $T/sd.out)" "known: done"
expect_match "default mode: exit line" "$(tail -1 $T/sd.err)" "^cuzktrace: $T/sd.zst: [0-9]+ events, peak heap 14\.[0-9] MiB"
expect_eq "default mode: rate in the report" "$(jget $T/sd.json sampling.rate_bytes)" 524288
expect_eq "exact mode: rate 0, no estimates" "$(jget $T/sx.json sampling.rate_bytes)/$(jget $T/sx.json sampling.estimates)" "0/false"
# the report says which numbers are estimates and how far off they may be
$REPORT $T/sd.zst >$T/sd.txt
expect_eq "default mode: estimates flagged in the JSON" "$(jget $T/sd.json sampling.estimates)" true
expect_match "default mode: the text says the totals' bound and that sites and phases are estimates, with their error" \
	"$(grep '^mode ' $T/sd.txt)" \
	'^mode +default: heap blocks under 512 KiB counted in running totals at their usable size \(exact to within 320 KiB: 5 threads with totals at once\), [0-9]+ sampled for sites, phases and thread groups, which are estimates \(about \+-sqrt\(512 KiB x bytes\)\)$'
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/sd1.zst traced sd1 $P/exitcode
expect_match "default mode, one thread: '1 thread with totals at once'" "$($REPORT $T/sd1.zst 2>/dev/null | grep '^mode ')" \
	'\(exact to within 64.0 KiB: 1 thread with totals at once\)'
expect_eq "exact mode: the text says every allocation is recorded" "$($REPORT $T/sx.zst | grep '^mode ')" "mode                  exact: every allocation recorded"
bound=$(jget $T/sd.json sampling.heap_error_bound_bytes)
# 5 threads send totals (main and 4 workers): the bound is 5 x 64 KiB
expect_eq "default mode: bound is 64 KiB per thread that sent totals" "$(jget $T/sd.json sampling.threads_with_totals)/$bound" "5/327680"
d=$(( $(jget $T/sd.json peak_heap.bytes) - $(jget $T/sx.json peak_heap.bytes) ))
# small blocks count at their usable size: at most 24 bytes more each (5,000 live at the peak)
expect_eq "default mode: peak heap within the bound of the exact peak (diff $d)" "$(( d <= bound + 24 * 5000 && -d <= bound ))" 1
expect_eq "default mode: mmap peaks exact" \
	"$(jget $T/sd.json peak_mmap.bytes)/$(jget $T/sd.json peak_mmap_anon.bytes)/$(jget $T/sd.json peak_mmap_file.bytes)" \
	"13631488/10485760/3145728"
expect_eq "default mode: far fewer records than exact mode" "$(( $(jget $T/sd.json events) * 20 < $(jget $T/sx.json events) ))" 1

# 40 threads one after another, then the main thread's 10,000 blocks make the peak: every
# thread sent totals, but never more than two at once (main and one worker; the others had
# ended: THREAD_EXIT), so the bound stated for the heap figures is two steps, not 41
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/tc.zst traced tc $P/threadchurn
$REPORT --json $T/tc.zst >$T/tc.json 2>$T/tc.rerr
tc_once=$(jget $T/tc.json sampling.threads_with_totals_at_once)
expect_eq "thread churn: 41 threads sent totals, at most 2 at once ($tc_once), the bound that many steps" \
	"$(jget $T/tc.json sampling.threads_with_totals)/$(( tc_once >= 1 && tc_once <= 2 ))/$(jget $T/tc.json sampling.peak_heap_error_bound_bytes)" "41/1/$(( tc_once * 65536 ))"
tc_peak=$(jget $T/tc.json peak_heap.bytes)
# 10,000 blocks of 100 bytes, 104 usable each, and the few blocks glibc keeps for threads
expect_eq "thread churn: peak heap within that bound ($tc_peak)" \
	"$(( tc_peak >= 1040000 - 131072 && tc_peak <= 1040000 + 131072 + 4096 ))" 1
expect_eq "thread churn: reader silent (no late event)" "$(cat $T/tc.rerr)/$(jget $T/tc.json late_events)" "/0"

CUZKTRACE_SAMPLE=4096 CUZKTRACE_OUT=$T/sm.zst traced sm $P/smallmany
$REPORT --json $T/sm.zst >$T/sm.json
# 200,000 x 100 bytes (usable 104 each) + 1,000,000: exact in usable bytes, all live at exit
expect_eq "default mode: heap total exact at exit" "$(jget $T/sm.json live_at_exit.heap_bytes)" 21800000
expect_eq "default mode: peak heap exact" "$(jget $T/sm.json peak_heap.bytes)" 21800000
expect_eq "default mode: a block >= the rate is recorded exactly" "$(jget $T/sm.json peak_heap.by_phase.1.phase)=$(jget $T/sm.json peak_heap.by_phase.1.bytes)" "big=1000000"
est=$(jget $T/sm.json peak_heap.by_phase.0.bytes)
# each 100-byte block is sampled with p = 1 - exp(-100/4096); sd of the estimate of 20,000,000
# requested bytes = sqrt(N * 100^2 * (1-p) / p) = 0.28 MB: allow 5 sd
expect_eq "default mode: sampled estimate of 20,000,000 within 5 sd (got $est)" "$(( est > 18560000 && est < 21440000 ))" 1
# at a rate of 1,024 bytes (about 18,600 samples) the sd is 0.14 MB: 5 sd is 3.5% of the
# estimate, which catches a sampler whose mean gap is 5% off (19.0 M); the usual rate's 5 sd
# (7%) does not
CUZKTRACE_SAMPLE=1024 CUZKTRACE_OUT=$T/sm1k.zst traced sm1k $P/smallmany
est1k=$($REPORT --json $T/sm1k.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["peak_heap"]["by_phase"][0]["bytes"])')
expect_eq "default mode, rate 1 KiB: sampled estimate of 20,000,000 within 5 sd, 0.7 MB (got $est1k)" "$(( est1k > 19300000 && est1k < 20700000 ))" 1
# a small block grown by realloc in the default mode: the old block leaves the running count
# as the new one enters, so the blocks live at exit are the exact mode's
for m in 0 524288; do CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/rsm$m.zst traced rsm$m $P/reallocsmall; done
expect_eq "default mode: 1,000 small blocks grown by realloc and kept: the blocks live at exit are the exact mode's (1,000 and glibc's one)" \
	"$($REPORT --json $T/rsm524288.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_blocks"])')/$($REPORT --json $T/rsm0.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_blocks"])')" "1001/1001"
# bytes by thread group and the --phases-csv heap bytes are estimates too, and say so (they
# carried no mark)
$REPORT --by thread --phases-csv $T/sm.pcsv $T/sm.zst >$T/sm.txt 2>/dev/null
expect_eq "default mode: the phase and thread-group tables and every --phases-csv row say estimated" \
	"$(grep -c '^phase .*at peak RSS  (heap bytes estimated from samples)$' $T/sm.txt)/$(grep -c '^thread group .*at peak RSS  (bytes estimated from samples)$' $T/sm.txt)/$(head -1 $T/sm.pcsv)/$(tail -n +2 $T/sm.pcsv | grep -vc ',1$')/$(( $(wc -l <$T/sm.pcsv) > 1 ))" \
	"1/1/t_s,phase,heap_bytes,mmap_bytes,estimated/0/1"
# its 200,000 small blocks are live at the peak heap: the shares there are estimates, and the
# line says so (as mini_prover's, whose small blocks are gone by its peaks, says they are not)
expect_match "default mode: samples live at the peak heap: its phase shares are estimates" \
	"$(grep '^peak heap .*, during ' $T/sm.txt)" \
	'^peak heap +[0-9.]+ MiB at [0-9.]+ s, during [a-z +]+ \(shares of the [0-9.]+ MiB estimated from samples, of the sizes asked for: the heap counts usable bytes\)$'

# Threads still running at exit (known's workers wait in a barrier) have not sent their last
# running totals; the writer's last flush sends them, so the heap at exit is exact (in usable
# bytes: at most 24 more per block than the exact mode's requested bytes), never negative.
lx=$(jget $T/sx.json live_at_exit.heap_bytes)
ld=$(jget $T/sd.json live_at_exit.heap_bytes)
nb=$(jget $T/sx.json live_at_exit.heap_blocks)
expect_eq "default mode: heap at exit exact with threads still running ($ld vs $lx)" "$(( ld >= lx && ld <= lx + 24 * nb ))" 1

# The samples' allocation counts add their weights unrounded (a sample of a 600 KiB block at
# R = 1 MiB stands for 2.2553 allocations: counted as 2 each, the counts were 11% low), and the
# sample of the block that makes the heap peak is part of the peak's sites (the total that
# counts its block used to come first). Sampling differs from run to run: 6 runs, each exact.
# (a run with no sample, 1 in 120,000, is run again: its checks read none)
for i in 1 2 3 4 5 6; do
	for _ in 1 2 3; do
		CUZKTRACE_SAMPLE=1048576 CUZKTRACE_OUT=$T/sp$i.zst traced sp$i $P/sampled
		$REPORT --json --sites-csv $T/sp$i.csv $T/sp$i.zst >$T/sp$i.json 2>/dev/null
		[ "$(jget $T/sp$i.json sampling.sampled_allocations)" != 0 ] && break
	done
	$PY - $T/sp$i.json $T/sp$i.csv <<'PYEOF'
import csv, json, math, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if 'sampled.c' in r['site']]
w = 1 / -math.expm1(-600 * 1024 / 1048576)          # allocations one sample stands for
b1 = math.floor(w * 600 * 1024)                      # bytes one sample stands for, or one more
s = d['sites_at_peak_heap'][0] if d['sites_at_peak_heap'] else {'bytes': 0, 'count': 0}
r = rows[0] if rows else {'allocated_bytes': '0', 'bytes_at_peak_heap': '0', 'allocations': '0'}
k = int(r['allocated_bytes']) // b1                  # samples taken (each rounded up or down)
print('samples*b1', k * b1 <= int(r['allocated_bytes']) <= k * (b1 + 1),
      'peak_has_all', int(r['bytes_at_peak_heap']) == int(r['allocated_bytes']) == s['bytes'],
      'counts', s['count'] == int(r['allocations']) == math.floor(k * w + 0.5))
# what the list leaves out (since 0.2.26): the exact peak minus every site's estimate, and the
# estimate's standard error, sqrt(R x S), S the small blocks' bytes: R x the samples live then,
# and the shortfall where there is one
rest, sites = d['sites_at_peak_heap_rest'], d['sites_at_peak_heap']
u, R = rest['unattributed_bytes'], 1048576
print('rest', rest['other_sites'] == rest['other_bytes'] == 0,
      u == d['peak_heap']['bytes'] - sum(e['bytes'] for e in sites), s.get('samples') == k,
      rest['estimate_error_bytes'] == int(math.sqrt(R * (R * sum(e['samples'] for e in sites) + max(u, 0)))))
# the list by allocations (since 0.2.26): the samples' weights, as the CSV's count
# and their standard error, sqrt(k w (w - 1)) (each sample taken with probability 1 / w)
calls = [(e['count'], e['estimate'], e['count_error']) for e in d['sites_by_allocations'] if 'sampled.c' in e['site']]
se = math.sqrt(k * w * (w - 1))
print('calls', [c[:2] for c in calls] == ([(math.floor(k * w + 0.5), True)] if k else []) and
      all(abs(c[2] - se) <= 1 for c in calls))
PYEOF
	$REPORT $T/sp$i.zst 2>/dev/null | sed -n '/^top sites at peak heap/,/^$/p' | grep -v '^  #\|^      ' >$T/sp$i.rest
	$PY - $T/sp$i.json $T/sp$i.rest <<'PYEOF'
import json, sys
rest = json.load(open(sys.argv[1]))['sites_at_peak_heap_rest']
text = open(sys.argv[2]).read().split('\n')[1:-2]
u, e = rest['unattributed_bytes'], rest['estimate_error_bytes']
if u > 0:
    want = ['  in no site\'s estimate: %s (%d bytes), %s of the peak, small blocks (sampling error of the sites\' sum: about +-%s)' % ('*', u, '*', '*')]
elif u < 0:
    want = ['  the sites\' estimates exceed the peak by %s (%d bytes) (sampling error of the sites\' sum: about +-%s)' % ('*', -u, '*')]
else:
    want = []
import fnmatch
print('text', len(text) == len(want) and all(fnmatch.fnmatchcase(t, w) for t, w in zip(text, want)))
PYEOF
done >$T/sp.all
expect_eq "default mode: sample counts unrounded, the peak holds every sample, the rest of the peak is the exact peak less the sites' estimates, their error R x sqrt(samples) (6 runs)" \
	"$(sort -u $T/sp.all)" "calls True
rest True True True True
samples*b1 True peak_has_all True counts True
text True"
# --diff of two of them (the same program): main's row carries its noise, 3 standard errors of
# the change, R x sqrt(samples of both): 3 x 1 MiB x sqrt(k1 + k2), every sample live at the
# peak; the text marks the row "within sampling noise" when its change is no more (a
# same-program diff showed megabytes of change as real). An exact diff has no noise_bytes.
$REPORT --json --by thread --diff $T/sp1.zst $T/sp2.zst >$T/spd.json 2>/dev/null
$REPORT --diff $T/sp1.zst $T/sp2.zst >$T/spd.txt 2>/dev/null
expect_eq "diff, default mode: a function's, a phase's and (since 0.2.15) a thread group's noise is 3 x R x sqrt(samples of both traces), the text marks it where the change is within" \
	"$($PY - $T/sp1.csv $T/sp2.csv $T/spd.json $T/spd.txt <<'PYEOF'
import csv, json, math, sys
w = 1 / -math.expm1(-600 * 1024 / 1048576)
b1 = math.floor(w * 600 * 1024)  # each sample's bytes, or one more (rounded at random)
k = [sum(int(r['allocated_bytes']) for r in csv.DictReader(open(f)) if 'sampled.c' in r['site']) // b1 for f in sys.argv[1:3]]
row = [r for r in json.load(open(sys.argv[3]))['by_function']['peak_heap'] if r['function'] == 'main']
noise = math.floor(3 * 1048576 * math.sqrt(k[0] + k[1]))
# the peak heap's rows only, as `want` below (at the peak RSS, sampled before every block was
# made, the counts can differ where those at the peak heap do not)
lines = open(sys.argv[4]).read().split('\n')
at = lines.index(next(l for l in lines if l.startswith('live bytes by function at peak heap')))
sect = lines[at + 1:lines.index('', at)]
text = [l for l in sect if l.rstrip().split('  ')[-1].startswith('(within') or l.rstrip().endswith(' main')]
marked = any('main  (within sampling noise, +-' in l for l in text)
want = 0 < abs(row[0]['change']) <= noise if row else False
ph = [r for r in json.load(open(sys.argv[3]))['by_phase']['peak_heap'] if r['phase'] == '(none)']
th = json.load(open(sys.argv[3]))['by_thread']['peak_heap']  # one thread: every sample is its
print(bool(row) and abs(row[0]['noise_bytes'] - noise) <= 1 and bool(ph) and abs(ph[0]['noise_bytes'] - noise) <= 1
      and len(th) == 1 and abs(th[0]['noise_bytes'] - noise) <= 1, marked == want)
PYEOF
)/$($REPORT --json --diff $T/sx.zst $T/sx.zst 2>/dev/null | $PY -c 'import json,sys; print(any("noise_bytes" in r for r in json.load(sys.stdin)["by_function"]["peak_heap"]))')" \
	"True True/False"
# ... and so do the allocation calls by function (since 0.2.35; a same-program diff read
# +54.5% for one function, unmarked): noise_allocations is 3 x sqrt(e1^2 + e2^2), e each
# report's count_error of the function, and the text marks the row where the change is no
# more. An exact diff's noise is 0.
expect_eq "diff, default mode: a function's allocation calls carry 3 x sqrt(e1^2 + e2^2) of noise (each report's count_error), the text marks the row where the change is within" \
	"$($PY - $T/sp1.json $T/sp2.json $T/spd.json $T/spd.txt <<'PYEOF'
import json, math, sys
e = []
for f in sys.argv[1:3]:
    c = [r for r in json.load(open(f))['sites_by_allocations'] if r['site'].startswith('main ')]
    e.append(c[0]['count_error'] if c else 0)
row = [r for r in json.load(open(sys.argv[3]))['by_function']['allocations'] if r['function'] == 'main']
noise = 3 * math.sqrt(e[0] ** 2 + e[1] ** 2)
text = open(sys.argv[4]).read().split('allocation calls by function')[1].split('\n\n')[0].split('\n')
line = [l for l in text if l.split('  ')[-1].startswith('(within') and '  main  ' in l or l.rstrip().endswith('  main')]
marked = bool(line) and '  (within sampling noise, +-%d)' % row[0]['noise_allocations'] in line[0]
want = 0 < abs(row[0]['change']) <= row[0]['noise_allocations']
print(e[0] > 0 and e[1] > 0 and abs(row[0]['noise_allocations'] - noise) <= 1, marked == want)
PYEOF
)/$($REPORT --json --diff $T/sx.zst $T/sx.zst 2>/dev/null | $PY -c 'import json,sys; print(sorted(set(r["noise_allocations"] for r in json.load(sys.stdin)["by_function"]["allocations"])))')" \
	"True True/[0]"
# a row that a trace of the default mode holds no sample of, against an exact trace: 2,000
# blocks of 100 bytes, none sampled at R = 2^30 (a sample among them: 0.02%): within noise,
# 5.9 R, the most bytes of small blocks that go unsampled with a chance of 0.27% (since
# 0.2.22: noise 0, and the row read as a real change, -100%); a block of R or more gone from
# the sampled trace is a real change all the same (every trace records it): diffprog's
# extra_cache, 7,000,000 bytes, at R = 1 MiB. (The text marks the row at the peak RSS, the peak
# heap and exit.)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/srx.zst traced srx $P/smallrow
CUZKTRACE_SAMPLE=1073741824 CUZKTRACE_OUT=$T/srs.zst traced srs $P/smallrow
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sdx.zst traced sdx $P/diffprog 3000000 2000000 7000000
CUZKTRACE_SAMPLE=1048576 CUZKTRACE_OUT=$T/sds.zst traced sds $P/diffprog 3000000 2000000 0
expect_eq "diff against an exact trace: a row of small blocks with no sample is within noise (5.9 R), a large block gone is a change" \
	"$($REPORT --json --diff $T/srx.zst $T/srs.zst 2>/dev/null | $PY -c 'import json,sys; print([(r["change"], r["noise_bytes"]) for r in json.load(sys.stdin)["by_function"]["peak_heap"] if r["function"] == "table_row"])')/$($REPORT --diff $T/srx.zst $T/srs.zst 2>/dev/null | grep -c '  table_row  (within sampling noise, +-5.90 GiB)$')/$($REPORT --json --diff $T/sdx.zst $T/sds.zst 2>/dev/null | $PY -c 'import json,sys; print([(r["change"], r["noise_bytes"]) for r in json.load(sys.stdin)["by_function"]["peak_heap"] if r["function"] == "extra_cache"])')" \
	"[(-200000, 6335076761)]/3/[(-7000000, 0)]"
# ... and so is its allocation calls' row (since 0.2.35, the calls' own term: 5.9 R / 100 calls
# of 100 bytes go unsampled with a chance over 0.27%; it read as a real -2000 with noise 0)
expect_eq "diff against an exact trace: the calls of a function with no sample are within noise (5.9 R / its mean size)" \
	"$($REPORT --json --diff $T/srx.zst $T/srs.zst 2>/dev/null | $PY -c 'import json,sys; print([(r["change"], r["noise_allocations"]) for r in json.load(sys.stdin)["by_function"]["allocations"] if r["function"] == "table_row"])')/$($REPORT --diff $T/srx.zst $T/srs.zst 2>/dev/null | grep -c '  table_row  (within sampling noise, +-63350768)$')" \
	"[(-2000, 63350768)]/1"
# a peak heap of small blocks none of which a sample stands for says so, as the list at exit
# does (since 0.2.26; it said "none"), and the peak RSS's list for the heap then
$REPORT $T/srs.zst >$T/srs.txt 2>/dev/null
ph=$(sed -n 's/^peak heap  *\([0-9.]* [KMG]*i*B\) (.*/\1/p' $T/srs.txt)
rh=$(sed -n 's/^  heap then  *\([0-9.]* [KMG]*i*B\) (.*/\1/p' $T/srs.txt)
expect_eq "default mode: a peak heap (and a peak RSS) with no sample live: the lists say none sampled, with the heap's bytes then" \
	"$(grep '^top sites at peak' $T/srs.txt)" \
	"top sites at peak heap: none sampled ($ph of heap in blocks under the default mode's sampling rate; CUZKTRACE_SAMPLE=0 records every block)
top sites at peak RSS: none sampled ($rh of heap then in blocks under the default mode's sampling rate; CUZKTRACE_SAMPLE=0 records every block)"
# a site whose figures come from samples says so (text: "(estimated from samples)", JSON
# "estimate": true); the same blocks at or above the rate are recorded one by one: exact. At
# 1 MiB every run of 6 held a sample (no sample at all: 0.56^20, about 1 in 100,000)
CUZKTRACE_SAMPLE=65536 CUZKTRACE_OUT=$T/spx.zst traced spx $P/sampled
for f in sp1 spx; do
	$REPORT $T/$f.zst 2>/dev/null | sed -n '/^top sites at peak heap/,/^$/p' | grep -A1 '^  #' | grep -B1 'sampled\.c' | head -1 >$T/$f.row
	$REPORT --json $T/$f.zst 2>/dev/null | $PY -c 'import json, sys
print([s["estimate"] for s in json.load(sys.stdin)["sites_at_peak_heap"] if "sampled.c" in s["site"]])' >>$T/$f.row
done
expect_match "default mode: a sampled site's row says its figures are estimates" "$(cat $T/sp1.row)" \
	'^  #1  [0-9.]+ MiB \([0-9]+ bytes\), [0-9.]+% of the peak, [0-9]+ allocations live \(estimated from samples\)
\[True\]$'
$REPORT --sites-csv $T/spx.csv $T/spx.zst >/dev/null 2>&1
expect_eq "sites CSV: the estimated column is 1 for the sampled site, 0 for the same blocks recorded one by one" \
	"$($PY -c 'import csv,sys; print([[r["estimated"] for r in csv.DictReader(open(f)) if "sampled.c" in r["site"]] for f in sys.argv[1:]])' $T/sp1.csv $T/spx.csv)" \
	"[['1'], ['0']]"
# the mark is per moment: a site whose small blocks were sampled and freed holds 4 blocks of
# 1 MiB at the peak and at exit, each recorded one by one: exact there, no mark (20,000 blocks
# of 1,000 bytes at R = 512 KiB: about 38 samples, never none)
# (--sites-csv: every stack is placed then, the sampled ones with no live block too; the
# text's marks of that site only: stdout's buffer, allocated after the 4 blocks, is at the
# peak, and sampled once in 500 runs)
CUZKTRACE_SAMPLE=524288 traced_json estm $P/estmoment >/dev/null
$REPORT --json --sites-csv $T/estm.csv $T/estm.zst >$T/estm.json 2>/dev/null
expect_eq "default mode: a site that had samples but holds only exact blocks at the peak and at exit: no mark" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1]))
print([(s["bytes"], s["estimate"]) for k in ("sites_at_peak_heap", "sites_at_exit") for s in d[k] if "estmoment.c" in s["site"]])' $T/estm.json)/$($REPORT --sites-csv $T/estm.csv $T/estm.zst 2>/dev/null | sed '/^top sites by allocations/,$d' | grep -A1 'estimated from samples' | grep -c 'estmoment\.c')" \
	"[(4194304, False), (4194304, False)]/0"
expect_match "default mode: blocks at or above the rate are exact: no mark" "$(cat $T/spx.row)" \
	'^  #1  11\.7 MiB \(12288000 bytes\), [0-9.]+% of the peak, 20 allocations live
\[False\]$'

# The filter in front of the tracer's set of live samples grows (past 16,384 live samples) while
# samples are taken and freed by four threads, the frees crossing threads: every sampled free
# must still be recognised, so the phase whose blocks were all freed has none at the later peak
# (a sample whose free was missed stays live in the report). About 31,000 samples are live.
CUZKTRACE_SAMPLE=1024 CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/fg.zst traced fg $P/filtergrow
$REPORT --json $T/fg.zst >$T/fg.json 2>$T/fg.rerr
expect_eq "default mode, sampled frees across the filter's growth: only 'after' at the peak, exact peak" \
	"$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); p = d["peak_heap"]
print(sorted(r["phase"] for r in p["by_phase"] if r["phase"] != "(none)"), d["inconsistencies"], 63990000 <= p["bytes"] <= 64100000)' $T/fg.json)/$(cat $T/fg.rerr)" \
	"['after'] 0 True/"

# The heap bound (CKT_AGG_STEP per thread with totals at once) counts a thread from its first
# AGG record: each thread's first small block is sent at once, whatever its first event was.
# Before, a thread that first pushed a phase or made a large block held 62,400 unsent bytes
# without being counted: the peak was 253,368 bytes low against a bound of 65,536.
for m in phase big none; do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/af$m.zst traced af$m $P/aggfirst $m 524288
	$REPORT --json $T/af$m.zst >$T/af$m.json 2>/dev/null
	$PY -c 'import json, sys
d = json.load(open(sys.argv[1])); s = d["sampling"]; truth = int(open(sys.argv[2]).read().split()[1])
diff = d["peak_heap"]["bytes"] - truth
print(s["threads_with_totals"], s["peak_heap_error_bound_bytes"], -s["peak_heap_error_bound_bytes"] <= diff <= s["peak_heap_error_bound_bytes"])' \
		$T/af$m.json $T/af$m.out >$T/af$m.chk
	expect_eq "default mode, workers whose first event is $m: 5 threads counted, the peak within the stated bound" \
		"$(cat $T/af$m.chk)" "5 327680 True"
done

# --diff of two default-mode traces where no sample fell on what is live: the rows say so
# ("none in either trace" read as if nothing were live). Rate 2^30: leaks' blocks all go
# unsampled.
for i in 1 2; do CUZKTRACE_SAMPLE=1073741824 CUZKTRACE_OUT=$T/unsamp$i.zst LD_PRELOAD=$LIB $P/leaks 2>/dev/null; done
expect_eq "diff, nothing sampled live at exit: the row says none was sampled" \
	"$($REPORT --diff $T/unsamp1.zst $T/unsamp2.zst | grep '^live bytes by function at exit')" \
	"live bytes by function at exit: none sampled in either trace (blocks under the default mode's sampling rate count in the totals only; CUZKTRACE_SAMPLE=0 records every block)"
# ... but where nothing is live at exit in either trace, there is nothing to sample; nor at
# the peaks where no heap was live then (since 0.2.59; a program that never allocates read
# "none sampled" at its peak heap of 0 B and peak RSS)
for i in 1 2; do CUZKTRACE_OUT=$T/nolive$i.zst LD_PRELOAD=$LIB /bin/true 2>/dev/null; done
expect_eq "diff, default mode, no heap live at exit or at the peaks in either trace: the rows say none" \
	"$($REPORT --diff $T/nolive1.zst $T/nolive2.zst | grep -e '^heap live at exit' -e '^peak heap ' -e '^live bytes by' | tr -s ' ' | tr '\n' '|')" \
	"peak heap 0 B 0 B no change - / -|heap live at exit 0 B 0 B no change|live bytes by phase at peak RSS: none in either trace|live bytes by function at peak RSS: none in either trace|live bytes by phase at peak heap: none in either trace|live bytes by function at peak heap: none in either trace|live bytes by function at exit: none in either trace|"

# frees of blocks the trace did not see allocated (glibc's __libc_malloc, unhooked): the
# default mode's totals went 19.5 MiB below zero and the report said 164 KiB at the peak for
# 19.5 MiB live, without a word (tests/progs/unseenfree.c); exact mode ignores such frees
CUZKTRACE_SAMPLE=524288 traced_json unseen $P/unseenfree >/dev/null
$REPORT $T/unseen.zst 2>&1 >/dev/null | sed -E 's/went [0-9.]+ MiB/went N MiB/' >$T/unseen.rerr
expect_eq "default mode, frees of blocks never seen allocated: one warning, how far below zero in the JSON (19 to 19.5 MiB)" \
	"$(cat $T/unseen.rc)/$(cat $T/unseen.rerr)/$(( $(jget $T/unseen.json heap_below_zero_bytes) > 19000000 && $(jget $T/unseen.json heap_below_zero_bytes) <= 20480000 ))" \
	"0/cuzktrace-report: warning: '$T/unseen.zst': the heap's running totals went N MiB below zero: the program freed blocks the trace did not see allocated (allocated before the tracer started, or through an entry point it does not hook, such as glibc's __libc_malloc); heap figures may be low by as much (CUZKTRACE_SAMPLE=0 counts only frees of blocks it saw)/1"
CUZKTRACE_SAMPLE=0 traced_json unseenx $P/unseenfree >/dev/null
expect_eq "exact mode, the same: no warning, nothing below zero, the 20,000 kept blocks live at exit" \
	"$($REPORT $T/unseenx.zst 2>&1 >/dev/null)/$(jget $T/unseenx.json heap_below_zero_bytes)/$(( $(jget $T/unseenx.json live_at_exit.heap_bytes) >= 20000000 ))" "/0/1"

# blocks grown one by one into new ones (realloc) right after a peak that keeps its moment while
# the growth's running totals count there (tests/progs/latefree.c): the frees of the old site's
# samples leave the peak's estimates with those totals (since 0.2.58: make_rows read about
# 1.6 MB at the peak in 28 runs of 30, where none of its blocks is live). Since 0.2.58 the
# tracer also sends a thread's pending totals before a sample's free, so that the AGG after
# it holds it. A sample freed after the peak is taken out at it in about a third of runs: 24
# runs, each's make_rows at the peak heap 0, and such frees (JSON sampling.late_frees_at_peak)
# seen in some
lf_got="" lf_seen=0
for i in $(seq 1 24); do
	CUZKTRACE_SAMPLE=4096 CUZKTRACE_OUT=$T/latefree.zst LD_PRELOAD=$LIB $P/latefree 2>/dev/null
	$REPORT --json $T/latefree.zst >$T/latefree.json 2>/dev/null
	lf_run=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sampling"]
old = sum(e["bytes"] for e in d["sites_at_peak_heap"] if e["site"].startswith("make_rows "))
print(old, int(s.get("late_frees_at_peak", 0) > 0))' $T/latefree.json)
	lf_got="$lf_got ${lf_run% *}"
	lf_seen=$((lf_seen + ${lf_run#* }))
done
expect_eq "default mode, blocks grown by realloc after a held peak: the old site holds nothing at the peak heap in 24 runs, late frees taken out in some ($lf_seen)" \
	"$lf_got/$([ $lf_seen -gt 0 ] && echo some)" "$(printf ' 0%.0s' $(seq 1 24))/some"

# running totals pending at exit (tests/progs/exitagg.c): 16 workers hold 49 KB each unsent;
# as main exits each makes one more block of 20,000 bytes (20,008 usable), whose first
# allocation after the writer's last tick sends what it held, past the last flush's snapshot
# (before 0.2.58 that send was in no drained event and no longer in the totals the writer
# read: 49 KB of a worker lost at exit in about a third of runs). The heap at exit is the
# quiet run's (no last blocks) plus some of the 16 last blocks, whole, in each of 10 runs
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/exitaggq.zst LD_PRELOAD=$LIB $P/exitagg quiet 2>$T/exitaggq.err
# the exit line counts every record written for the program's threads, the totals the last
# flush sends for the 16 live workers too (before 0.2.58 it and END's count were 16 short)
expect_eq "default mode, 16 threads with totals pending at exit: the exit line's events are the report's events and running totals" \
	"$(sed -n 's/^cuzktrace: .*: \([0-9]*\) events, peak heap.*/\1/p' $T/exitaggq.err)" \
	"$($REPORT --json $T/exitaggq.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print(d["events"] + d["event_counts"]["agg"])')"
ea_base=$($REPORT --json $T/exitaggq.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_bytes"])')
ea_got=""
for i in $(seq 1 10); do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/exitagg.zst LD_PRELOAD=$LIB $P/exitagg 2>/dev/null
	ea_live=$($REPORT --json $T/exitagg.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_bytes"])')
	ea_got="$ea_got $($PY -c 'import sys; d = int(sys.argv[1]) - int(sys.argv[2]); print("ok" if d % 20008 == 0 and 0 <= d // 20008 <= 16 else "off by %d" % d)' $ea_live $ea_base)"
done
expect_eq "default mode, running totals sent past the last flush's snapshot: the heap at exit whole in 10 runs (quiet run: $ea_base)" \
	"$ea_got" "$(printf ' ok%.0s' $(seq 1 10))"
