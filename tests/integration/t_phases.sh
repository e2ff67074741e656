# Phases (issue #4): marked by the API, by log lines, by thread names, and re-attributed by
# --phase-rule. Exact mode (CUZKTRACE_SAMPLE=0) so every block is attributed exactly; see the
# header comments of tests/progs/phases.c, logphases.c and threadnames.c for the numbers.

# -- API: nested per-thread phases, overlapping counted process-wide ones, a pool thread that
# inherits the process phase, a block of "inner" freed after "gpu" ended
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/phases.zst traced phases $P/phases
expect_eq "phases: exit status unchanged" "$(cat $T/phases.rc)" 0
# the one warning: its pop with nothing pushed on the main thread (since 0.2.40; silent before)
expect_eq "phases: one warning, for the pop with nothing pushed (and the two tracer lines)" \
	"$(wc -l <$T/phases.err)/$(grep -c 'cuzktrace_phase_pop() on thread [0-9]*, which has no phase pushed' $T/phases.err)" 3/1
$REPORT --json --csv $T/phases.csv --phases-csv $T/phases.pcsv $T/phases.zst >$T/phases.json 2>$T/phases.rerr
expect_eq "phases: reader exit 0" $? 0
expect_eq "phases: reader silent on stderr" "$(cat $T/phases.rerr)" ""
# glibc's thread blocks (allocated by pthread_create before any phase) are the only noise: they
# are still live at exit and belong to (none)
pnoise=$(jget $T/phases.json live_at_exit.heap_bytes)
expect_eq "phases: noise is glibc's thread blocks (< 8 KiB)" "$((pnoise > 0 && pnoise < 8192))" 1
expect_eq "phases: peak heap = 23,100,000 + noise" "$(jget $T/phases.json peak_heap.bytes)" "$((23100000 + pnoise))"
expect_eq "phases: active at the peak heap, oldest first" "$(jget $T/phases.json peak_heap.active_phases)" '["load", "gpu"]'
expect_eq "phases: who owns the peak heap" "$(jget $T/phases.json peak_heap.by_phase)" \
	"[{\"phase\": \"load\", \"bytes\": 12100000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"gpu\", \"bytes\": 5000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"outer\", \"bytes\": 4000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"inner\", \"bytes\": 2000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"(none)\", \"bytes\": $pnoise, \"samples\": 0, \"estimate_error_bytes\": 0}]"
ptable=$($PY - "$T/phases.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(' '.join('%s:%s:%s:%s' % (p['name'], p['allocated_bytes'], p['peak_bytes'], p['at_peak_heap_bytes']) for p in d['phases']))
print(all(p['active_s'] > 0 for p in d['phases'] if p['name'] != '(none)'), [p['active_s'] for p in d['phases'] if p['name'] == '(none)'])
PYEOF
)
expect_eq "phases: table (first-use order; allocated, own peak, at peak heap)" "$(echo "$ptable" | head -1)" \
	"load:12100000:12100000:12100000 outer:4000000:4000000:4000000 inner:2000000:2000000:2000000 gpu:5000000:5000000:5000000 (none):$((900000 + pnoise)):$((900000 + pnoise)):$pnoise"
expect_eq "phases: marked phases were active a while; (none) has no active time" "$(echo "$ptable" | sed -n 2p)" "True [None]"
expect_eq "phases: GPU and pinned peaks have no phase split without CUDA" "$(jget $T/phases.json peak_gpu.by_phase)$(jget $T/phases.json peak_pinned.active_phases)" "[][]"
expect_eq "phases: no log lines stored" "$(jget $T/phases.json phase_notes_total)" 0
expect_eq "phases: timeline csv ends with active_phases" "$(head -1 $T/phases.csv)" "t_s,rss_bytes,heap_bytes,mmap_bytes,gpu_bytes,pinned_bytes,active_phases"
expect_eq "phases: --phases-csv header" "$(head -1 $T/phases.pcsv)" "t_s,phase,heap_bytes,mmap_bytes,estimated"
expect_eq "phases: --phases-csv rows name exactly the allocating phases" "$(tail -n +2 $T/phases.pcsv | cut -d, -f2 | sort -u | tr '\n' ' ')" "(none) gpu inner load outer "
$REPORT $T/phases.zst >$T/phases.txt
expect_match "phases: text names the phases active at the peak heap" "$(cat $T/phases.txt)" 'peak heap +22\.0 MiB at [0-9.]+ s, during load \+ gpu'
expect_match "phases: text lists the owner of the peak" "$(cat $T/phases.txt)" '  load +11\.5 MiB +52\.4%  \(12100000 bytes\)'
# --top caps each peak's phase rows, then one row for the rest (since 0.2.40: every phase, 8,228
# lines for 4,096 names at four peaks); the default, 10, shows all five here
expect_eq "phases: --top 2: two phases at the peak heap, then the rest's bytes in one row" \
	"$($REPORT --top 2 $T/phases.zst 2>/dev/null | sed -n '/^peak heap .*during/,/^peak RSS/p' | grep -v '^peak\|^  (')" \
	"  load                11.5 MiB    52.4%  (12100000 bytes)
  gpu                 4.77 MiB    21.6%  (5000000 bytes)
  3 more phases       5.72 MiB    26.0%  ($((6000000 + pnoise)) bytes; --top shows more)"
expect_eq "phases: the default --top lists the five phases at the peak heap" \
	"$(sed -n '/^peak heap .*during/,/^peak RSS/p' $T/phases.txt | grep -c '^  [a-z(][a-z)]* .*bytes)$')" 5
# two process-wide phases active at a peak (load and gpu, begun by the API; log lines begin
# them so too): one line under the first such moment says what that does to a thread's bytes
# (since 0.2.35: a pipelined prover's workers read as the phase its main thread began last)
expect_eq "phases: overlapping process-wide phases at the peak: one hint line, under the first moment's heading" \
	"$(grep -c 'process-wide phases overlap' $T/phases.txt)/$(sed -n '/^peak heap .*during load + gpu/{n;p;q}' $T/phases.txt)" \
	"1/  (process-wide phases overlap: what a thread with no phase of its own pushed allocates counts under the one begun last, whatever its work; --by thread splits by thread, --phase-rule NAME=FUNCTION assigns by call site)"
expect_match "phases: text per-phase table" "$(cat $T/phases.txt)" 'phase +active s +allocated +own peak +at peak heap +at peak RSS'
expect_eq "phases: no GPU columns in the table of a trace without GPU memory" \
	"$(grep -E '^phase ' $T/phases.txt | sed 's/  (heap bytes estimated from samples)$//' | awk '{print $(NF-2), $(NF-1), $NF}')" "at peak RSS"

# -- --phase-rule: re-attribution after the fact, by function name and by file:line
$REPORT --json --phase-rule 'worker=worker' --phase-rule 'pooled=pool' $T/phases.zst >$T/phases_rule.json 2>$T/phases_rule.err
expect_eq "phase-rule: reader exit 0" $? 0
expect_eq "phase-rule: function-name rules take their stacks' bytes" "$(jget $T/phases_rule.json peak_heap.by_phase)" \
	"[{\"phase\": \"load\", \"bytes\": 11500000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"worker\", \"bytes\": 6000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"gpu\", \"bytes\": 5000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"pooled\", \"bytes\": 600000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"(none)\", \"bytes\": $pnoise, \"samples\": 0, \"estimate_error_bytes\": 0}]"
$REPORT --json --phase-rule 'all=phases.c:*' --phase-rule 'never=worker' $T/phases.zst >$T/phases_rule2.json 2>$T/phases_rule2.err
expect_eq "phase-rule: file:line glob (basename), the first rule given wins" "$(jget $T/phases_rule2.json peak_heap.by_phase)" \
	"[{\"phase\": \"all\", \"bytes\": $((23100000 + pnoise)), \"samples\": 0, \"estimate_error_bytes\": 0}]"
expect_eq "phase-rule: a rule that gave no allocation its phase gets one warning (a name without its path matched nothing without a word)" \
	"$(cat $T/phases_rule2.err)" \
	"cuzktrace-report: warning: --phase-rule 'never=worker' gave no allocation its phase: no frame of their stacks matched it, or an earlier rule matched first (a pattern matches a function's whole name, its path included: 'crate::module::f' or '*::f', or file:line)"
expect_eq "phase-rule: rules that took bytes: no warning" "$(cat $T/phases_rule.err)" ""
# every frame of a stack is tried against the rules: the earliest rule given wins, whichever
# frame it matched (main's blocks are allocated in touch, called by main), and a later rule's
# match in an outer frame does not take them from an earlier rule's in an inner one
$REPORT --json --phase-rule 'm=main' --phase-rule 't=touch' $T/phases.zst >$T/phases_rule3.json 2>$T/phases_rule3.err
expect_eq "phase-rule: the earliest rule wins over a later one that matched an inner frame" \
	"$(jget $T/phases_rule3.json peak_heap.by_phase)/$(cat $T/phases_rule3.err)" \
	"[{\"phase\": \"m\", \"bytes\": $((16500000 + pnoise)), \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"t\", \"bytes\": 6600000, \"samples\": 0, \"estimate_error_bytes\": 0}]/"
$REPORT --json --phase-rule 'w=worker' --phase-rule 't=touch' --phase-rule 'm=main' $T/phases.zst >$T/phases_rule4.json 2>$T/phases_rule4.err
expect_eq "phase-rule: a later rule matching an outer frame does not beat an earlier one's inner match" \
	"$(jget $T/phases_rule4.json peak_heap.by_phase)/$(cat $T/phases_rule4.err)" \
	"[{\"phase\": \"t\", \"bytes\": 17100000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"w\", \"bytes\": 6000000, \"samples\": 0, \"estimate_error_bytes\": 0}, {\"phase\": \"m\", \"bytes\": $pnoise, \"samples\": 0, \"estimate_error_bytes\": 0}]/"
# file:line with the file as the debug info names it, its directories included
$REPORT --json --phase-rule 'all=*tests/progs/phases.c:*' $T/phases.zst >$T/phases_rule5.json 2>$T/phases_rule5.err
expect_eq "phase-rule: file:line glob on the whole path" "$(jget $T/phases_rule5.json peak_heap.by_phase)/$(cat $T/phases_rule5.err)" \
	"[{\"phase\": \"all\", \"bytes\": $((23100000 + pnoise)), \"samples\": 0, \"estimate_error_bytes\": 0}]/"
# a path's last name takes a frame named by that name alone only where the frame is an inlined
# copy (Rust's line-tables-only names those so): worker, a function of its own, is no app::worker
$REPORT --json --phase-rule 'w=app::worker' $T/phases.zst >$T/phases_rule6.json 2>$T/phases_rule6.err
expect_eq "phase-rule: a path's last name does not take a function of that name that is no inlined copy" \
	"$(jget $T/phases_rule6.json peak_heap.by_phase)/$(grep -c "^cuzktrace-report: warning: --phase-rule 'w=app::worker' gave no allocation its phase" $T/phases_rule6.err)" \
	"$(jget $T/phases.json peak_heap.by_phase)/1"
# a C++ function by its name with its parameters, as the symbol demangles (ns::get$u41$it
# has no ABI tag: only that spelling has them)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/cxxparams.zst traced cxxparams $P/cxxdollar
$REPORT --json --phase-rule 'g=ns::get$u41$it(unsigned long)' $T/cxxparams.zst >$T/cxxparams.json 2>$T/cxxparams.rerr
expect_eq "phase-rule: a C++ function by its name with its parameters" \
	"$($PY -c 'import json,sys; print([(p["name"], p["allocated_bytes"]) for p in json.load(open(sys.argv[1]))["phases"] if p["name"] != "(none)"])' $T/cxxparams.json)/$(cat $T/cxxparams.rerr)" \
	"[('g', 123456)]/"
$REPORT --phase-rule 'nameonly' $T/phases.zst >$T/badrule.out 2>$T/badrule.err
expect_eq "phase-rule: bad rule exits 2" $? 2
expect_eq "phase-rule: bad rule message" "$(head -1 $T/badrule.err)" "cuzktrace-report: error: invalid --phase-rule 'nameonly' (expected NAME=PATTERN)"
$REPORT --phase-rule '=x' $T/phases.zst >/dev/null 2>&1
expect_eq "phase-rule: empty name exits 2" $? 2
# a space next to '=' named a phase "synth " with a pattern " *" that matched nothing (since
# 0.2.19 refused at once, as CUZKTRACE_PHASES refuses such names)
$REPORT --phase-rule 'synth = *' $T/phases.zst >$T/badrule2.out 2>$T/badrule2.err
expect_eq "phase-rule: a space next to '=': exit 2, the error line (then the usage line), nothing on stdout" \
	"$?/$(head -1 $T/badrule2.err)/$(cat $T/badrule2.out)" \
	"2/cuzktrace-report: error: invalid --phase-rule 'synth = *' (expected NAME=PATTERN, with no space at the name's start or next to '=')/"
$REPORT --by site $T/phases.zst >/dev/null 2>$T/badby.err
expect_eq "by: unknown value exits 2" $? 2
expect_eq "by: unknown value message" "$(head -1 $T/badby.err)" "cuzktrace-report: error: unknown --by value 'site' (expected 'thread')"

# -- log lines: write(2) and writev(2) to stdout/stderr are seen, stdio (printf) is not.
# Nothing is freed: the peak heap is the end. The 600,000 allocated after the fprintf'd
# "SYNTH_START" stays with "proving" (still begun): the stdio line did not begin synthesis.
LOGRULES='synthesis=SYNTH_START..SYNTH_END;gpu=GPU_START..GPU_END;loading=LOAD_BEGIN;proving=PROVE_BEGIN'
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES="$LOGRULES;;" CUZKTRACE_OUT=$T/logphases.zst traced logphases $P/logphases
expect_eq "logphases: exit status unchanged" "$(cat $T/logphases.rc)" 0
expect_eq "logphases: stdout unchanged" "$(cat $T/logphases.out)" "$(printf 'TIMELINE,3,GPU_START\nTIMELINE,4,GPU_END')"
expect_eq "logphases: stderr unchanged between the tracer lines" "$(sed '1d;$d' $T/logphases.err)" \
	"$(printf 'TIMELINE,1,SYNTH_START,partition=0\nTIMELINE,2,SYNTH_END,partition=0\nLOAD_BEGIN\nPROVE_BEGIN\nx\nstdio: SYNTH_START is not seen')"
$REPORT --json $T/logphases.zst >$T/logphases.json
expect_eq "logphases: peak heap" "$(jget $T/logphases.json peak_heap.bytes)" 7500000
# markers written to stdout on /dev/null (output silenced while traced) are seen: /dev/null
# takes a write without reading it, the scan reads it (see README for a buffer that cannot be)
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='synth=SYNTH_START..SYNTH_END' CUZKTRACE_OUT=$T/nullwrite.zst \
	LD_PRELOAD=$LIB $P/nullwrite >/dev/null 2>$T/nullwrite.err
nw_rc=$?
$REPORT --json $T/nullwrite.zst >$T/nullwrite.json 2>/dev/null
expect_eq "markers written to /dev/null: status 0, the calls' results as untraced, 1,000,000 bytes in synth" \
	"$nw_rc/$(sed -n '2p' $T/nullwrite.err)/$($PY -c 'import json,sys; print([(p["name"], p["allocated_bytes"]) for p in json.load(open(sys.argv[1]))["phases"]])' $T/nullwrite.json)" \
	"0/$($P/nullwrite 2>&1 >/dev/null)/[('synth', 1000000)]"
expect_eq "logphases: owners of the peak (write, writev, single markers)" "$(jget $T/logphases.json peak_heap.by_phase)" \
	'[{"phase": "gpu", "bytes": 3000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "(none)", "bytes": 2000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "proving", "bytes": 1100000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "synthesis", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "loading", "bytes": 400000, "samples": 0, "estimate_error_bytes": 0}]'
expect_eq "logphases: the header records the rules in force (empty segments dropped)" \
	"$(hdr_setting $T/logphases.json CUZKTRACE_PHASES)" "$LOGRULES"
expect_eq "logphases: a single-marker phase is active until exit" "$(jget $T/logphases.json peak_heap.active_phases)" '["proving"]'
lnotes=$($PY - "$T/logphases.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(d['phase_notes_total'])
for n in d['phase_notes']:
    print('%s|%s' % (n['phase'], n['text']))
PYEOF
)
expect_eq "logphases: the matched lines are stored (writev pieces joined)" "$lnotes" "$(printf '6\nsynthesis|TIMELINE,1,SYNTH_START,partition=0\nsynthesis|TIMELINE,2,SYNTH_END,partition=0\ngpu|TIMELINE,3,GPU_START\ngpu|TIMELINE,4,GPU_END\nloading|LOAD_BEGIN\nproving|PROVE_BEGIN')"
$REPORT $T/logphases.zst >$T/logphases.txt
expect_match "logphases: text shows the log lines" "$(cat $T/logphases.txt)" 'log lines that drove CUZKTRACE_PHASES rules: 6'
expect_match "logphases: text log line" "$(cat $T/logphases.txt)" '  [0-9.]+ s  synthesis +TIMELINE,2,SYNTH_END,partition=0'

# -- a wrapper under the tracer (timeout, sh -c, nice, cargo run) takes the CUZKTRACE_OUT name
# and the program it starts falls back to a per-pid name (an exec'd one, to .exec1): the
# wrapper's report names the traces of what it ran, and each rule the wrapper's trace matched
# nothing for says where they went (since 0.2.21: it blamed printf's stdio alone). Matched by
# the header's parent_process: a copy of the child's trace older than the wrapper (an earlier
# run) is not listed, nor one whose parent_process names another process of the same pid (of
# another run: the same run would list it, as a descendant no link reaches).
mkdir -p $T/wrap
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES="$LOGRULES" CUZKTRACE_OUT=$T/wrap/t.zst traced wrap timeout 60 $P/logphases
wpid=$(sed -n "s/^cuzktrace: tracing logphases (pid \([0-9]*\)) to .*/\1/p" $T/wrap.err)
tpid=$(sed -n "s/^cuzktrace: tracing timeout (pid \([0-9]*\)) to .*/\1/p" $T/wrap.err)
cp $T/wrap/t.$wpid.zst $T/wrap/t.1.zst && touch -d '1 hour ago' $T/wrap/t.1.zst
$PY - $T/wrap/t.$wpid.zst $T/wrap/t.2.zst <<'PYEOF'
import subprocess, sys
raw = subprocess.run(["zstd", "-dc", sys.argv[1]], capture_output=True).stdout
def uv(b, i):
    x = s = 0
    while True:
        c = b[i]; i += 1; x |= (c & 0x7f) << s; s += 7
        if c < 0x80: return x, i
def enc(x):
    o = bytearray()
    while True:
        c = x & 0x7f; x >>= 7
        if not x: o.append(c); return bytes(o)
        o.append(c | 0x80)
i, out = 10, bytearray(raw[:10])
while True:
    kl, i = uv(raw, i)
    if kl == 0: break
    k = raw[i:i + kl]; i += kl; vl, i = uv(raw, i); v = raw[i:i + vl]; i += vl
    if k == b"parent_process": v = v.split(b".")[0] + b".1.1"  # the pid, another start
    if k == b"run": v = b"1.1.1@1"  # another run's
    out += enc(len(k)) + k + enc(len(v)) + v
out += b"\0"
open(sys.argv[2], "wb").write(subprocess.run(["zstd", "-q", "-c"], input=bytes(out), capture_output=True).stdout)
PYEOF
$REPORT $T/wrap/t.zst >$T/wrap.txt 2>$T/wrap.rerr
expect_eq "wrapper: its report names the child's trace, just after the command line" \
	"$(cat $T/wrap.rc)/$(grep -A2 '^command line' $T/wrap.txt | sed 1d)" \
	"0/$(printf '%-22s%s\n%-22s' 'child trace' "$T/wrap/t.$wpid.zst ($P/logphases, pid $wpid)" duration)$(grep '^duration' $T/wrap.txt | cut -c23-)"
expect_eq "wrapper: each unmatched rule's warning names the child's trace" \
	"$(sed "s/phase '[a-z]*'/phase 'X'/" $T/wrap.rerr | sort -u)" \
	"cuzktrace-report: warning: '$T/wrap/t.zst': the CUZKTRACE_PHASES rule for phase 'X' matched no line the program wrote (markers in printf's stdio are not seen: see README); traces of what this process ran: '$T/wrap/t.$wpid.zst'"
expect_eq "wrapper: 4 rules, 4 warnings" "$(wc -l <$T/wrap.rerr)" 4
$REPORT --json $T/wrap/t.zst >$T/wrap.json 2>/dev/null
$REPORT --json $T/wrap/t.$wpid.zst >$T/wrapc.json 2>$T/wrapc.rerr
expect_eq "wrapper: the child's trace holds the program's phases, no child trace of its own, and names the wrapper's process as its parent" \
	"$(cat $T/wrapc.rerr)/$(jget $T/wrapc.json peak_heap.bytes)/$(jget $T/wrapc.json child_traces)/$(jget $T/wrapc.json header.parent_process)" \
	"/7500000/[]/$(jget $T/wrap.json header.process)"
expect_match "wrapper: the process key is pid, start time, pid namespace" "$(jget $T/wrap.json header.process)" "^$tpid\.[0-9]+\.[0-9]+\$"
expect_eq "wrapper: JSON child_traces" "$(jget $T/wrap.json child_traces | sed -E 's/"events": [1-9][0-9]*/"events": N/')/$(jget $T/wrap.json child_traces_not_looked_at)/$(jget $T/wrap.json child_traces_unreadable)" \
	"[{\"path\": \"$T/wrap/t.$wpid.zst\", \"pid\": $wpid, \"exe\": \"$P/logphases\", \"relation\": \"child\", \"parent_pid\": $tpid, \"status\": \"complete\", \"events\": N, \"being_written\": false, \"error\": null, \"after_exec\": false}]/0/[]"
# a shell between them: its child is the wrapper's descendant, named in the warnings too
mkdir -p $T/wrapd
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES="$LOGRULES" CUZKTRACE_OUT=$T/wrapd/t.zst traced wrapd timeout 60 sh -c "$P/logphases; true"
dpid=$(sed -n "s/^cuzktrace: tracing logphases (pid \([0-9]*\)) to .*/\1/p" $T/wrapd.err)
spid=$(sed -n "s/^cuzktrace: tracing \(dash\|bash\|sh\) (pid \([0-9]*\)) to .*/\2/p" $T/wrapd.err)
$REPORT $T/wrapd/t.zst >$T/wrapd.txt 2>$T/wrapd.rerr
expect_eq "wrapper and shell: the shell's trace a child, the program's a descendant started by the shell" \
	"$(grep '^child trace\|^descendant trace' $T/wrapd.txt | sed 's/ *(\/[^ ]*\//(/')" \
	"$(printf '%-22s%s\n%-22s%s' 'child trace' "$T/wrapd/t.$spid.zst($(basename $(readlink -f /bin/sh)), pid $spid)" 'descendant trace' "$T/wrapd/t.$dpid.zst(logphases, pid $dpid, started by pid $spid)")"
expect_eq "wrapper and shell: the warnings name both" "$(sed "s/phase '[a-z]*'/phase 'X'/" $T/wrapd.rerr | sort -u | sed 's/.*ran: //')" \
	"'$T/wrapd/t.$spid.zst', '$T/wrapd/t.$dpid.zst'"
# a child that execs: its later image is a descendant of the wrapper, after an exec (it
# read as a second child of the same pid)
mkdir -p $T/wrape
CUZKTRACE_OUT=$T/wrape/t.zst LD_PRELOAD=$LIB timeout 60 sh -c '/bin/true; exec /bin/echo hi' >/dev/null 2>$T/wrape.err
epid=$(sed -n "s/^cuzktrace: tracing \(dash\|bash\|sh\) (pid \([0-9]*\)) to .*/\2/p" $T/wrape.err)
expect_eq "wrapper whose child execs: the child's later image a descendant, after an exec" \
	"$($REPORT --json $T/wrape/t.zst 2>/dev/null | $PY -c 'import json,sys,re; print(" ".join("%s:%s:%s" % (k["relation"], re.sub(r"^.*/t\.", "t.", k["path"]), k["parent_pid"]) for k in json.load(sys.stdin)["child_traces"]))' | sed -E "s/t\.$epid\./t.SH./g; s/:$epid\b/:SH/g; s/t\.[0-9]+\.zst/t.PID.zst/g")" \
	"child:t.SH.zst:$(sed -n 's/^cuzktrace: tracing timeout (pid \([0-9]*\)).*/\1/p' $T/wrape.err) descendant:t.PID.zst:SH descendant:t.SH.exec1.zst:SH"
# an exec wrapper (nice): the program is this process after an exec
mkdir -p $T/wrapn
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES="$LOGRULES" CUZKTRACE_OUT=$T/wrapn/t.zst traced wrapn nice $P/logphases
$REPORT $T/wrapn/t.zst >$T/wrapn.txt 2>$T/wrapn.rerr
expect_eq "exec wrapper: the program's trace after the exec, named in the warnings" \
	"$(grep '^after exec' $T/wrapn.txt | sed 's/, pid [0-9]*)/)/')/$(sed "s/phase '[a-z]*'/phase 'X'/" $T/wrapn.rerr | sort -u | sed 's/.*ran: //')" \
	"$(printf '%-22s%s' 'after exec' "$T/wrapn/t.exec1.zst ($P/logphases)")/'$T/wrapn/t.exec1.zst'"
# execs: env's trace names the shell's after its exec, the shell's children (one started
# 1.2 s after the exec: its window is the process's life, not env's image's), and the image
# the shell became by exec, in the order they started; read from the directory as a relative
# path; a CUZKTRACE_OUT without .zst (the fallbacks add .exec1, .<pid> to it)
mkdir -p $T/wrapx
(cd $T/wrapx && CUZKTRACE_OUT=t.out LD_PRELOAD=$LIB env sh -c 'sleep 1.2; /bin/true; exec /bin/true' 2>$T/wrapx.err)
expect_eq "wrapper with execs: env's trace lists the shell after exec, its children, /bin/true after exec" \
	"$(cd $T/wrapx && $REPORT --json t.out 2>/dev/null | $PY -c 'import json,sys,os,re; print(" ".join("%s:%s:%s" % (k["relation"], re.sub(r"\.[0-9]+$", ".PID", k["path"]), os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')" \
	"exec:t.out.exec1:$(basename $(readlink -f /bin/sh)) child:t.out.PID:sleep child:t.out.PID:true exec:t.out.exec2:true"

# a relative CUZKTRACE_OUT (the default name too) is passed on anchored to the first process's
# directory: commands run after a cd write beside its trace, and its report lists them (since
# 0.2.23: they wrote theirs in sub/, and the report listed none); the directory's own '%'
# stays a character (its name is a pattern each program expands)
wcd='wrap%p%%cd'
mkdir -p "$T/$wcd/sub" $T/wrapcd2/sub
(cd "$T/$wcd" && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB bash -c 'cd sub && /bin/true && exec /bin/true' 2>/dev/null)
(cd $T/wrapcd2 && LD_PRELOAD=$LIB bash -c 'cd sub; exec /bin/true' 2>/dev/null)
expect_eq "relative CUZKTRACE_OUT, a cd in between: the child and the later image write beside the first trace, which lists them; nothing in sub/ (also the default name)" \
	"$($REPORT --json "$T/$wcd/t.zst" 2>/dev/null | $PY -c 'import json,sys,os,re; print(" ".join("%s:%s:%s" % (k["relation"], re.sub(r"\.[0-9]+\.zst$", ".PID.zst", k["path"]), os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')/$(find "$T/$wcd/sub" $T/wrapcd2/sub -type f | wc -l)/$(cd $T/wrapcd2 && $REPORT --json cuzktrace.bash.*.zst 2>/dev/null | $PY -c 'import json,sys,os,re; print(" ".join("%s:%s" % (k["relation"], re.sub(r"\.[0-9]+\.zst$", ".PID.zst", k["path"])) for k in json.load(sys.stdin)["child_traces"]))')" \
	"child:$T/$wcd/t.PID.zst:true exec:$T/$wcd/t.exec1.zst:true/0/exec:cuzktrace.true.PID.zst"

# ... with CUZKTRACE_CHILDREN=0 too: an exec of the process itself after a cd is traced
# beside the first trace, and listed (it wrote in sub/, unlisted); "./t.zst" is anchored
# without "/./"
mkdir -p $T/wrapc0/sub
(cd $T/wrapc0 && CUZKTRACE_CHILDREN=0 CUZKTRACE_OUT=./t.zst LD_PRELOAD=$LIB dash -c 'cd sub && exec dash -c true' 2>$T/wrapc0.err)
expect_eq "CUZKTRACE_CHILDREN=0, an exec after a cd: the later image beside the first trace, listed; no /./ in its name" \
	"$($REPORT --json $T/wrapc0/t.zst 2>/dev/null | $PY -c 'import json,sys; print(" ".join("%s:%s" % (k["relation"], k["path"]) for k in json.load(sys.stdin)["child_traces"]))')/$(ls $T/wrapc0/sub | wc -l)/$(grep -c '/\./' $T/wrapc0.err)" \
	"exec:$T/wrapc0/t.exec1.zst/0/0"

# a relative LD_PRELOAD naming the tracer is passed on anchored too: the commands run after a
# cd are traced (they got the loader's "cannot be preloaded" line and ran untraced, their
# traces missing), with CUZKTRACE_CHILDREN=0 an exec of the process itself; "./" dropped,
# other entries left as they are
mkdir -p $T/relpre/sub $T/relpre0/sub
cp $LIB $T/relpre/lt.so
cp $LIB $T/relpre0/lt.so
(cd $T/relpre && CUZKTRACE_OUT=t.zst LD_PRELOAD="./lt.so:libdl.so.2" bash -c 'cd sub && printenv LD_PRELOAD && /bin/true' >$T/relpre.out 2>$T/relpre.err)
(cd $T/relpre0 && CUZKTRACE_CHILDREN=0 CUZKTRACE_OUT=t.zst LD_PRELOAD=sub/../lt.so dash -c 'cd sub && exec env true' 2>$T/relpre0.err)
expect_eq "relative LD_PRELOAD, a cd in between: the entry anchored, the children traced and listed (also CUZKTRACE_CHILDREN=0's exec of itself), no loader line" \
	"$(cat $T/relpre.out)/$($REPORT --json $T/relpre/t.zst 2>/dev/null | $PY -c 'import json,sys,os; print(" ".join("%s:%s" % (k["relation"], os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')/$($REPORT --json $T/relpre0/t.zst 2>/dev/null | $PY -c 'import json,sys,os; print(" ".join("%s:%s" % (k["relation"], os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')/$(cat $T/relpre.err $T/relpre0.err | grep -c 'cannot be preloaded')" \
	"$T/relpre/lt.so:libdl.so.2/child:printenv exec:true/exec:env exec:true/0"

# how each listed trace ends, from its last frame alone (since 0.2.36: a killed child's trace
# was listed as if whole), and the files named as its traces that are none (they were left
# out without a word): a child killed before its first flush, one killed after flushes (its
# child complete), two complete, one still running as the report reads (started last, the
# shell spinning until its trace has a header, not a fixed count a loaded machine could
# outrun; a child even when its tracer starts after the shell's exit,
# since 0.2.37: see below); a file of junk, a copy of the header's first 100 bytes and an empty
# file (since 0.2.57 listed: a child killed before its header); the exe as the header has it
# (a newline kept in JSON).
# (The test directory is TMP before numbers become N: mktemp's name can hold three digits.)
mkdir -p $T/kinst
cp /bin/true "$T/kinst/tr
ue"
(cd $T/kinst && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c 'sh -c "kill -9 \$\$"; CUZKTRACE_FLUSH_MS=10 sh -c "sleep 0.3; kill -9 \$\$"; ./tr*; echo junk > t.999.zst; head -c 100 t.zst > t.998.zst; : > t.997.zst; CUZKTRACE_FLUSH_MS=10 sleep 3 & i=0; until [ -s t.$!.zst ] || [ $i -ge 3000000 ]; do i=$((i + 1)); done' 2>/dev/null)
(cd $T/kinst && $REPORT t.zst >$T/kinst.txt 2>/dev/null && $REPORT --json t.zst >$T/kinst.json 2>/dev/null)
wait_for_no_writer() { for _ in $(seq 60); do $REPORT --json "$1" 2>/dev/null | $PY -c 'import json,sys; sys.exit(any(k["being_written"] for k in json.load(sys.stdin)["child_traces"]))' && return; sleep 0.1; done; }
expect_eq "child traces: each one's end (no event, truncated, complete, being written), unreadable files named; text and JSON" \
	"$(sed -n 's/^\(child trace\|descendant trace\|unreadable trace\) *\(.*\)/\1: \2/p' $T/kinst.txt | sed "s|$T/|TMP/|g" | sed -E 's/[0-9]{3,}/N/g; s/being written/W/; s/^child trace: t.N.zst .\/usr\/bin\/sleep, pid N; (truncated: no end record|holds no event): a process is still writing it.$/child trace: sleep still running/')/$($PY -c 'import json,sys; d = json.load(open(sys.argv[1])); print([(k["status"], k["events"] if k["status"] != "complete" else k["events"] > 0, k["being_written"], k["error"]) for k in d["child_traces"]], [(b["path"], b["error"]) for b in d["child_traces_unreadable"]], repr([k["exe"] for k in d["child_traces"]][3][-6:]))' $T/kinst.json | sed -E "s/\('(truncated|no_events)', (None|0), True, None\)/('sleep running')/")" \
	"child trace: t.N.zst (/usr/bin/dash, pid N; holds no event (killed before its first flush))
child trace: t.N.zst (/usr/bin/dash, pid N; truncated: no end record)
descendant trace: t.N.zst (/usr/bin/sleep, pid N, started by pid N)
child trace: t.N.zst (TMP/kinst/tr?ue, pid N)
child trace: t.N.zst (/usr/bin/head, pid N)
child trace: sleep still running
unreadable trace: t.N.zst (empty file)
unreadable trace: t.N.zst (the file ends inside the header frame)
unreadable trace: t.N.zst (not a cuzktrace trace)/[('no_events', 0, False, None), ('truncated', None, False, None), ('complete', True, False, None), ('complete', True, False, None), ('complete', True, False, None), ('sleep running')] [('t.997.zst', 'empty file'), ('t.998.zst', 'the file ends inside the header frame'), ('t.999.zst', 'not a cuzktrace trace')] '/tr\\nue'"
wait_for_no_writer $T/kinst/t.zst
# a child's trace with bytes after its header that hold no whole frame (since 0.2.45: listed as
# "killed before its first flush"): its first frame cut halfway, or zeros after its header
mkdir -p $T/kincut
# (the two cut in the order the report lists them, by start: process ids can wrap between them)
(cd $T/kincut && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c '/bin/true; /bin/true' 2>/dev/null)
(cd $T/kincut && $REPORT --json t.zst >$T/kincut0.json 2>/dev/null)
$PY - $T/kincut $T/kincut0.json <<'PYEOF'
import json, os, sys
kids = [os.path.join(sys.argv[1], k["path"]) for k in json.load(open(sys.argv[2]))["child_traces"]]
assert len(kids) == 2, kids
for i, f in enumerate(kids):
    b = open(f, "rb").read()
    off = b.find(b"\x28\xb5\x2f\xfd", 4)  # the first frame after the header's
    open(f, "wb").write(b[:off + (len(b) - off) // 2] if i == 0 else b[:off] + bytes(300))
PYEOF
(cd $T/kincut && $REPORT t.zst >$T/kincut.txt 2>/dev/null; $REPORT --json t.zst >$T/kincut.json 2>/dev/null)
expect_eq "child traces with no whole frame after the header: a first frame cut, zeros; text and JSON" \
	"$(sed -n 's/^child trace *t\.[0-9]*\.zst (\([^,]*\), pid [0-9]*; \(.*\))$/\1: \2/p' $T/kincut.txt)/$($PY -c 'import json,sys; print([(k["status"], k["events"], k["error"]) for k in json.load(open(sys.argv[1]))["child_traces"]])' $T/kincut.json)" \
	"$(readlink -f /bin/true): holds no event: the file ends inside its first frame (cut while written: a full disk, or a copy cut short?)
$(readlink -f /bin/true): holds no event: no zstd frame follows its header (zeros left by a crash, or damage)/[('no_events', 0, 'the file ends inside its first frame (cut while written: a full disk, or a copy cut short?)'), ('no_events', 0, 'no zstd frame follows its header (zeros left by a crash, or damage)')]"
# a child's trace whose first frame is whole but corrupt (its first block header damaged: a walk
# of the block headers fails there as at a cut): unreadable, as its own report says, not "the
# file ends inside its first frame"
mkdir -p $T/kinbad
(cd $T/kinbad && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c '/bin/true' 2>/dev/null)
$PY - $T/kinbad <<'PYEOF'
import glob, os, sys
sys.path.insert(0, "tests/integration")
from rows import zframes
f = glob.glob(os.path.join(sys.argv[1], "t.*.zst"))[0]
b = bytearray(open(f, "rb").read())
off = len(zframes(bytes(b))[0])  # the first frame after the header's
fhd = b[off + 4]
single, dict_flag, fcs = fhd >> 5 & 1, fhd & 3, fhd >> 6
b[off + 5 + (0 if single else 1) + (0, 1, 2, 4)[dict_flag] + (1 if single else 0, 2, 4, 8)[fcs]] |= 0x06  # block type 3
open(f, "wb").write(b)
open(sys.argv[1] + ".off", "w").write("%d\n" % off)
PYEOF
read -r kbo <$T/kinbad.off
(cd $T/kinbad && $REPORT t.zst >$T/kinbad.txt 2>/dev/null; $REPORT --json t.zst >$T/kinbad.json 2>/dev/null)
expect_eq "a child trace whose whole first frame is corrupt: unreadable, with its own report's error; text and JSON" \
	"$(sed -n 's/^child trace *t\.[0-9]*\.zst ([^,]*, pid [0-9]*; \(.*\))$/\1/p' $T/kinbad.txt)/$($PY -c 'import json,sys; print([(k["status"], k["error"]) for k in json.load(open(sys.argv[1]))["child_traces"]])' $T/kinbad.json)" \
	"unreadable: corrupt zstd frame at byte offset $kbo: Data corruption detected/[('corrupt', 'corrupt zstd frame at byte offset $kbo: Data corruption detected')]"
# a child's trace whose last frame holds a corrupt record (in a whole, valid zstd frame): its
# error names that frame by its index in the file, as its own report does (since 0.2.45; it
# named frame 1, whatever the frame)
mkdir -p $T/kinrec
(cd $T/kinrec && CUZKTRACE_RSS_MS=5 CUZKTRACE_FLUSH_MS=5 CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c 'sleep 0.1; /bin/true' 2>/dev/null)
$PY - $T/kinrec >$T/kinrec.want <<'PYEOF'
import glob, os, subprocess, sys
sys.path.insert(0, "tests/integration")
from rows import zframes, z, uv, row_frame
f = max(glob.glob(os.path.join(sys.argv[1], "t.*.zst")), key=os.path.getsize)  # sleep's: frames of RSS samples
fr = zframes(open(f, "rb").read())
raw = subprocess.run(["zstd", "-q", "-dc"], input=fr[-1], capture_output=True, check=True).stdout
p = 0
def get():
    global p
    v, sh = 0, 0
    while True:
        b = raw[p]
        p += 1
        v |= (b & 0x7f) << sh
        sh += 7
        if b < 0x80:
            return v
lens = [get() for _ in range(get())]  # the stream directory
assert raw[p] == 1 and len(fr) > 3  # the row stream starts with FRAME seq base
p += 1
seq, base = get(), get()
fr[-1] = z(row_frame(bytes([1]) + uv(seq) + uv(base) + bytes([0x7f]), 8))
open(f, "wb").write(b"".join(fr))
print(os.path.basename(f))
print("corrupt record (tag 0x7f) in frame %d: no record has this tag" % (len(fr) - 1))
PYEOF
{ read -r kr_child; read -r kr_want; } <$T/kinrec.want
(cd $T/kinrec && $REPORT t.zst >$T/kinrec.txt 2>/dev/null; $REPORT --json t.zst >$T/kinrec.json 2>/dev/null; $REPORT $kr_child >/dev/null 2>$T/kinrec.err)
expect_eq "a child trace whose last frame holds a corrupt record: unreadable, the error names that frame as its own report does; text and JSON" \
	"$(sed -n "s/^child trace *$kr_child ([^,]*, pid [0-9]*; \(.*\))\$/\1/p" $T/kinrec.txt)/$($PY -c 'import json,sys; print([(k["status"], k["error"]) for k in json.load(open(sys.argv[1]))["child_traces"] if k["path"] == sys.argv[2]])' $T/kinrec.json $kr_child)/$(sed -n "s/^cuzktrace-report: error: '[^']*': \(.*\) (--salvage.*/\1/p" $T/kinrec.err)" \
	"unreadable: $kr_want/[('corrupt', '$kr_want')]/$kr_want"

# a program the kernel gave to pid 1 before its tracer started, the process that forked it
# having ended (since 0.2.37; it read "started by pid 1", the process that adopted it): named
# after the traced process it was forked from, a child when that one forked it itself (a
# shell's last command put in the background), a descendant through a fork of its that ended
# first (a daemon's double fork), in text and JSON; the headers say so (parent_process; or
# ancestor_process, parent_process then the adopter's, as ppid); behind a wrapper, started by that process; its later image names it too,
# and where that one's trace is elsewhere the run's report still says it started it
true_exe=$(readlink -f /bin/true)
for m in single double; do
	mkdir -p $T/orph_$m
	orph_out=$(cd $T/orph_$m && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB $P/doublefork $m /bin/true 2>/dev/null)
	oa=$(echo "$orph_out" | sed -n 's/^traced //p')
	oc=$(echo "$orph_out" | sed -n 's/^exec //p')
	$REPORT $T/orph_$m/t.zst >$T/orph_$m.txt 2>/dev/null
	$REPORT --json $T/orph_$m/t.zst >$T/orph_$m.json 2>/dev/null
	$REPORT --json $T/orph_$m/t.$oc.zst >$T/orph_${m}c.json 2>/dev/null
	if [ $m = single ]; then
		want_line="$(printf '%-22s%s' 'child trace' "t.$oc.zst ($true_exe, pid $oc)")"
		want_rel=child want_keys="$(jget $T/orph_$m.json header.process)/null"
	else
		want_line="$(printf '%-22s%s' 'descendant trace' "t.$oc.zst ($true_exe, pid $oc, started by pid $oa)")"
		want_rel=descendant want_keys="$(jget $T/orph_${m}c.json header.parent_process | grep "^$(jget $T/orph_${m}c.json header.ppid)\." | grep -v "^$oa\.")/$(jget $T/orph_$m.json header.process)"
	fi
	expect_eq "a program whose forking process ended first ($m fork): the traced process that forked it named, text and JSON, and in its header" \
		"$(grep '^child trace\|^descendant trace' $T/orph_$m.txt | sed "s| $T/orph_$m/| |")/$($PY -c 'import json,sys; print(" ".join("%s:%s:%s" % (k["relation"], k["pid"], k["parent_pid"]) for k in json.load(open(sys.argv[1]))["child_traces"]))' $T/orph_$m.json)/$(jget $T/orph_${m}c.json header.parent_process)/$(jget $T/orph_${m}c.json header.ancestor_process)" \
		"$want_line/$want_rel:$oc:$oa/$want_keys"
done
# ... behind a wrapper (a shell): the program a descendant started by the traced process, its
# later image (env's exec) after an exec, naming it too; then the same with the forking
# process's trace elsewhere: found by the run alone, still started by it
mkdir -p $T/orph_w $T/orph_w2/else
(cd $T/orph_w && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c "$P/doublefork double env /bin/true >../orph_w.out; true" 2>/dev/null)
(cd $T/orph_w2 && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c "CUZKTRACE_OUT=$T/orph_w2/else/t.zst $P/doublefork double env CUZKTRACE_OUT=$T/orph_w2/t.zst /bin/true >../orph_w2.out; true" 2>/dev/null)
oa=$(sed -n 's/^traced //p' $T/orph_w.out)
oc=$(sed -n 's/^exec //p' $T/orph_w.out)
oa2=$(sed -n 's/^traced //p' $T/orph_w2.out)
oc2=$(sed -n 's/^exec //p' $T/orph_w2.out)
for _ in $(seq 200); do kill -0 $oc 2>/dev/null || kill -0 $oc2 2>/dev/null || break; sleep 0.05; done
$REPORT --json $T/orph_w/t.$oa.zst >$T/orph_wa.json 2>/dev/null
$REPORT --json $T/orph_w/t.$oc.exec1.zst >$T/orph_wc.json 2>/dev/null
expect_eq "a program whose forking process ended first, behind a shell: a descendant started by the traced process, its later image too; that one's trace elsewhere: still started by it" \
	"$($REPORT $T/orph_w/t.zst 2>/dev/null | grep '^child trace\|^descendant trace' | sed "s| $T/orph_w/| |")/$(jget $T/orph_wc.json header.ancestor_process)/$($REPORT $T/orph_w2/t.zst 2>/dev/null | grep '^child trace\|^descendant trace' | sed "s| $T/orph_w2/| |")" \
	"$(printf '%-22s%s\n' 'child trace' "t.$oa.zst ($P/doublefork, pid $oa)" 'descendant trace' "t.$oc.zst ($(readlink -f $(command -v env)), pid $oc, started by pid $oa)" 'descendant trace' "t.$oc.exec1.zst ($true_exe, pid $oc, after an exec)")/$(jget $T/orph_wa.json header.process)/$(printf '%-22s%s' 'descendant trace' "t.$oc2.zst ($true_exe, pid $oc2, started by pid $oa2)")"
# ... a child of many frames: its END's count is its own report's; cut by 50 bytes, truncated
mkdir -p $T/kinmf
(cd $T/kinmf && CUZKTRACE_OUT=t.zst CUZKTRACE_FLUSH_MS=5 LD_PRELOAD=$LIB sh -c "$P/churn 20000 >/dev/null" 2>/dev/null)
kinmf=$(ls $T/kinmf/t.*.zst)
kinmf_before="$($REPORT --json $T/kinmf/t.zst 2>/dev/null | $PY -c 'import json,sys; k = json.load(sys.stdin)["child_traces"][0]; print(k["status"], k["events"])')"
kinmf_own="$($REPORT --json $kinmf 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["events"])')"
truncate -s -50 $kinmf
expect_eq "child trace of many frames: complete with its own report's event count; cut by 50 bytes: truncated" \
	"$kinmf_before/$(( $(stat -c %s $kinmf) > 100000 ))/$($REPORT --json $T/kinmf/t.zst 2>/dev/null | $PY -c 'import json,sys; k = json.load(sys.stdin)["child_traces"][0]; print(k["status"], k["events"])')" \
	"complete $kinmf_own/1/truncated None"

# a later image's report lists what the process did from that image on, not the children of
# the images before it (since 0.2.22; their parent_process is the same, and they were listed),
# allowing the second of slack the clocks get
mkdir -p $T/wrapl
(cd $T/wrapl && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c '/bin/true; sleep 1.2; exec env sh -c "/bin/true"' 2>/dev/null)
expect_eq "a later image's report: its own later image and the child started after it, not the earlier image's children" \
	"$($REPORT --json $T/wrapl/t.exec1.zst 2>/dev/null | $PY -c 'import json,sys,os,re; print(" ".join("%s:%s:%s" % (k["relation"], re.sub(r"\.[0-9]+\.zst$", ".PID.zst", os.path.basename(k["path"])), os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')/$($REPORT --json $T/wrapl/t.zst 2>/dev/null | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["child_traces"]))')" \
	"exec:t.exec2.zst:$(basename $(readlink -f /bin/sh)) child:t.PID.zst:true/5"

# a CUZKTRACE_OUT of ".zst" (the fallbacks are .<pid>.zst, .exec1.zst: they were looked for as
# .zst.*), and a descendant's trace at the very name CUZKTRACE_OUT gives (a descendant takes it
# when it is free; it was never looked at): here the child's trace renamed so
mkdir -p $T/wrapz
(cd $T/wrapz && CUZKTRACE_OUT=.zst LD_PRELOAD=$LIB sh -c '/bin/true; exec env true' 2>/dev/null)
expect_eq "a CUZKTRACE_OUT of .zst: the child and both later images listed" \
	"$($REPORT --json $T/wrapz/.zst 2>/dev/null | $PY -c 'import json,sys,os,re; print(" ".join("%s:%s:%s" % (k["relation"], re.sub(r"\.[0-9]+\.zst$", ".PID.zst", os.path.basename(k["path"])), os.path.basename(k["exe"])) for k in json.load(sys.stdin)["child_traces"]))')" \
	"child:.PID.zst:true exec:.exec1.zst:env exec:.exec2.zst:true"
mkdir -p $T/wrapw
(cd $T/wrapw && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c '/bin/true' 2>/dev/null && mv t.zst t.sh.zst && mv t.[0-9]*.zst t.zst)
expect_eq "a descendant's trace at the name CUZKTRACE_OUT gives is listed" \
	"$($REPORT --json $T/wrapw/t.sh.zst 2>/dev/null | $PY -c 'import json,sys,os; print(" ".join("%s:%s" % (k["relation"], os.path.basename(k["path"])) for k in json.load(sys.stdin)["child_traces"]))')" \
	"child:t.zst"

# a copy and a hard link of the child's trace are one trace, listed once (it was three times);
# the report of a link to the trace looks beside the file it leads to (it listed nothing)
mkdir -p $T/wrapk
(cd $T/wrapk && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c '/bin/true' 2>/dev/null)
kpid=$(cd $T/wrapk && ls t.[0-9]*.zst | sed 's/t\.\([0-9]*\)\.zst/\1/')
cp $T/wrapk/t.$kpid.zst $T/wrapk/t.$kpid.bak.zst
ln $T/wrapk/t.$kpid.zst $T/wrapk/t.hard.zst
cp $T/wrapk/t.zst $T/wrapk/t.self.zst
ln -s wrapk/t.zst $T/wrapk.zst
expect_eq "a copy and a hard link of a child's trace listed once, a copy of the trace itself not at all; through a link to the trace too" \
	"$($REPORT --json $T/wrapk/t.zst 2>/dev/null | $PY -c 'import json,sys,os; print(" ".join("%s:%s" % (k["relation"], os.path.basename(k["path"])) for k in json.load(sys.stdin)["child_traces"]))')/$($REPORT --json $T/wrapk.zst 2>/dev/null | $PY -c 'import json,sys; print(" ".join(k["path"] for k in json.load(sys.stdin)["child_traces"]))')" \
	"child:t.$kpid.zst/$(readlink -f $T/wrapk)/t.$kpid.zst"

# -- a phase name and a log line longer than the trace keeps (1,024 bytes), cut inside a
# multi-byte character: whole characters are kept (since 0.2.19: the name ended in U+FFFD,
# 1,026 bytes as the reader shows it, and the note in two). tests/progs/longnames.c
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='m=MARKX' CUZKTRACE_OUT=$T/longnames.zst traced longnames $P/longnames
$REPORT --json $T/longnames.zst >$T/longnames.json 2>$T/longnames.rerr
lnames=$($PY - "$T/longnames.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
name = [p for p in d['peak_heap']['by_phase'] if p['phase'].startswith('a')]
print(name[0]['phase'] == 'a' * 1023, name[0]['bytes'])
notes = [n['text'] for n in d['phase_notes']]
print(notes[0] == '\u20ac' * 170 + 'MARKX' + '\u20ac' * 169, len(notes[0].encode()))
print(notes[1:3] == ['caf\u00e9 MARKX', '\u20ac' * 42 + 'MARKX'], notes[1:3])
print(notes[3:] == [' MARKX', 'x' * 300 + ' MARKX'], len(notes))
PYEOF
)
expect_eq "longnames: a phase name and a note cut to 1,024 bytes keep whole characters (1,023 and 1,022 bytes); notes of lines begun in earlier writes too" \
	"$(cat $T/longnames.rc)/$(cat $T/longnames.out)/$lnames/$(cat $T/longnames.rerr)" \
	"0/$(printf 'x\nlongnames: done')/$(printf 'True 1000000\nTrue 1022\nTrue %s\nTrue 5' "['café MARKX', '$(printf '€%.0s' $(seq 42))MARKX']")/"

# -- markers split across writes (Rust's eprintln! with arguments writes its pieces one by
# one): each thread's open line is joined to its next write; a write to the other descriptor
# ends it. tests/progs/splitlog.c
SPLITRULES='synthesis=synthesis start..synthesis done;gpu=gpu start..gpu end;prove=prove start..prove end'
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES="$SPLITRULES" CUZKTRACE_OUT=$T/splitlog.zst traced splitlog $P/splitlog
$REPORT --json $T/splitlog.zst >$T/splitlog.json 2>$T/splitlog.rerr
snotes=$($PY - "$T/splitlog.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(d['phase_notes_total'])
for n in d['phase_notes']:
    print('%s|%s' % (n['phase'], n['text'][-20:]))
PYEOF
)
expect_eq "splitlog: status, output, owners of the peak (markers split in 2 and 3 writes, across writev pieces, another thread's line between)" \
	"$(cat $T/splitlog.rc)/$(cat $T/splitlog.out)/$(jget $T/splitlog.json peak_heap.bytes)/$(jget $T/splitlog.json peak_heap.by_phase)" \
	'0/x/10000304/[{"phase": "(none)", "bytes": 4000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "gpu", "bytes": 4000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "synthesis", "bytes": 2000304, "samples": 0, "estimate_error_bytes": 0}]'
expect_eq "splitlog: the rule that matched nothing (prove: its marker split by a write to stdout) gets one warning" \
	"$(cat $T/splitlog.rerr)" \
	"cuzktrace-report: warning: '$T/splitlog.zst': the CUZKTRACE_PHASES rule for phase 'prove' matched no line the program wrote (markers in printf's stdio are not seen: see README)"
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='prove=PROVE..PROVE_DONE;synthesis=SYNTH..DONE' CUZKTRACE_OUT=$T/splitpre.zst traced splitpre $P/splitlog prefix
$REPORT --json $T/splitpre.zst >$T/splitpre.json 2>/dev/null
expect_eq "splitlog prefix: PROVE at the end of a write waits for what follows (PROVE_DONE ends prove, as in one write; the last PROVE acts at the exit)" \
	"$(cat $T/splitpre.rc)/$(jget $T/splitpre.json peak_heap.by_phase)/$($PY -c 'import json,sys; print(" ".join(n["text"] for n in json.load(open(sys.argv[1]))["phase_notes"]))' $T/splitpre.json)" \
	'0/[{"phase": "(none)", "bytes": 3000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "synthesis", "bytes": 2000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "prove", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]/SYNTH PROVE PROVE_DONE DONE PROVE'
CUZKTRACE_PHASES='s=SYNTH_START..SYNTH_END;m=MARK..MARK;p=PROVE..PROVE_DONE' CUZKTRACE_OUT=$T/splitctx.zst traced splitctx $P/splitlog context
expect_eq "splitlog context: the line's text before a marker an earlier write used up, or before one deferred, stays in the stored lines" \
	"$(cat $T/splitctx.rc)/$($REPORT --json $T/splitctx.zst 2>/dev/null | $PY -c 'import json,sys; print("|".join(n["phase"] + ":" + n["text"] for n in json.load(sys.stdin)["phase_notes"]))')" \
	"0/s:job=7 SYNTH_START rows=5 |m:job=7 SYNTH_START rows=5 MARK|m:job=9 MARK and SYNTH_END|s:job=9 MARK and SYNTH_END|p:job=8 PROVE x|p:job=9 PROVE_DONE"
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='prove=PROVE..PROVE_DONE;synthesis=SYNTH..DONE' CUZKTRACE_OUT=$T/splitquiet.zst traced splitquiet $P/splitlog quiet
$REPORT --json $T/splitquiet.zst >$T/splitquiet.json 2>/dev/null
expect_eq "splitlog quiet: PROVE written last by a thread that never allocates acts at that thread's exit" \
	"$(cat $T/splitquiet.rc)/$(jget $T/splitquiet.json peak_heap.by_phase)" \
	'0/[{"phase": "(none)", "bytes": 2000304, "samples": 0, "estimate_error_bytes": 0}, {"phase": "prove", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]'
# a rule named "(none)" makes a phase of its own, shown quoted apart from the row of no phase;
# matched, no warning that it matched nothing (since 0.2.50: the reader looked for it under
# its own name, unquoted); unmatched, the warning
for nm in C:0 CX:1; do
	IFS=: read -r nm_start nm_warn <<<"$nm"
	CUZKTRACE_PHASES="(none)=$nm_start..D" CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/nonerule.zst PYTHONMALLOC=malloc \
		traced nonerule $PY -c 'import os; os.write(1, b"C\n"); x = bytearray(1 << 20); os.write(1, b"D\n")'
	$REPORT --json $T/nonerule.zst >$T/nonerule.json 2>$T/nonerule.rerr
	expect_eq "a rule named (none), start marker $nm_start: the phase \"(none)\" $([ $nm_warn = 0 ] && echo 'holds the 1 MiB, no warning' || echo 'never begins, the warning')" \
		"$(grep -c "rule for phase '(none)' matched no line" $T/nonerule.rerr)/$($PY -c 'import json,sys; print(sum(p["allocated_bytes"] >= 1048576 for p in json.load(open(sys.argv[1]))["phases"] if p["name"] == "\"(none)\""))' $T/nonerule.json)" \
		"$nm_warn/$((1 - nm_warn))"
done
# PROVE written last by a thread that ends while another thread's writes keep the scan busy:
# it acts at the thread's exit all the same (the exit waits for the scan: before 0.2.50 one
# try, and the marker was lost, 6 runs in 6, with the warning that the rule matched nothing);
# and by a thread still waiting when main calls exit: it acts at the process's exit (lost
# before: the process's exit acted on its own thread's marker alone). tests/progs/deferexit.c
for de in busy:1048576 alive:0; do
	IFS=: read -r de_mode de_prove <<<"$de"
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='prove=PROVE..PROVE_DONE' CUZKTRACE_OUT=$T/defer_$de_mode.zst \
		traced defer_$de_mode $P/deferexit $de_mode
	$REPORT --json $T/defer_$de_mode.zst >$T/defer_$de_mode.json 2>$T/defer_$de_mode.rerr
	expect_eq "deferexit $de_mode: a deferred PROVE acts at its thread's exit (busy scan: prove holds main's 1 MiB) or the process's (thread alive: prove begins there, with 0 bytes); no warning" \
		"$(cat $T/defer_$de_mode.rc)/$($PY -c 'import json,sys; print(" ".join("%s %d" % (p["name"], p["allocated_bytes"]) for p in json.load(open(sys.argv[1]))["phases"] if p["name"] == "prove"))' $T/defer_$de_mode.json)/$(cat $T/defer_$de_mode.rerr)" \
		"0/prove $de_prove/"
done
# ... acted once: a thread still running writes again after the process's exit acted on its
# marker (a first build of that acted it a second time: prove begun twice, 18 runs in 30)
for de_i in 1 2 3; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='prove=PROVE..PROVE_DONE' CUZKTRACE_OUT=$T/defer_again.zst \
		traced defer_again $P/deferexit again
	$REPORT --json $T/defer_again.zst >$T/defer_again.json 2>$T/defer_again.rerr
	echo "$(cat $T/defer_again.rc)/$(jget $T/defer_again.json phase_notes_total)/$(cat $T/defer_again.rerr)"
done >$T/defer_again.got
expect_eq "deferexit again: the deferred PROVE acted once at the process's exit, not again at the thread's later write (3 runs)" \
	"$(sort -u $T/defer_again.got)" "0/1/"
head -c $(( $(wc -c <$T/splitlog.zst) - 8 )) $T/splitlog.zst >$T/splitcut.zst
$REPORT $T/splitcut.zst >/dev/null 2>$T/splitcut.rerr
expect_eq "splitlog cut in its only data frame: each rule's warning says the trace was cut (the marker may come after)" \
	"$(grep -c "matched no line the program wrote before the trace was cut" $T/splitcut.rerr)/$(grep CUZKTRACE_PHASES $T/splitcut.rerr | tail -1)" \
	"3/cuzktrace-report: warning: '$T/splitcut.zst': the CUZKTRACE_PHASES rule for phase 'prove' matched no line the program wrote before the trace was cut (markers in printf's stdio are not seen: see README)"
expect_eq "splitlog: the stored lines (the last, 1,500 bytes of writev, cut around its marker)" "$snotes" \
	"$(printf '4\nsynthesis|synthesis start\nsynthesis|synthesis done\ngpu|gpu start\ngpu|.............gpu end')"
# The same from Rust: eprintln!("{} start", stage) writes "synthesis", then " start\n"
if command -v rustc >/dev/null 2>&1; then
	cat >$T/elog.rs <<'RSEOF'
use std::hint::black_box;
fn main() {
    let stage = black_box("synthesis");
    let a: Vec<u8> = black_box(vec![1; 1_000_000]);
    eprintln!("{} start", stage);
    let b: Vec<u8> = black_box(vec![2; 2_000_000]);
    eprintln!("{} done", stage);
    let c: Vec<u8> = black_box(vec![3; 3_000_000]);
    println!("{}", a.len() + b.len() + c.len());
}
RSEOF
	rustc_in_make -O -o $T/elog $T/elog.rs 2>$T/elog.build
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='synthesis=synthesis start..synthesis done' CUZKTRACE_OUT=$T/elog.zst traced elog $T/elog
	$REPORT --json $T/elog.zst >$T/elog.json
	expect_eq "Rust eprintln! with arguments: the marker split between its writes is seen, synthesis owns its 2,000,000 bytes" \
		"$(cat $T/elog.rc)/$(cat $T/elog.out)/$(jget $T/elog.json peak_heap.by_phase.1)" \
		'0/6000000/{"phase": "synthesis", "bytes": 2000000, "samples": 0, "estimate_error_bytes": 0}'
	# --phase-rule by a Rust function's name, with v0 symbol names, which keep generic
	# arguments (gen::make::<32>): the rule matches the name without them
	cat >$T/gen.rs <<'RSEOF'
use std::hint::black_box;
fn make<const N: usize>() -> Vec<[u8; N]> { black_box(vec![[1u8; N]; 100_000]) }
struct Aux(u8);
impl Aux {
    #[inline(never)]
    fn build(&self) -> Vec<u64> { black_box(vec![self.0 as u64; 50_000]) }
}
struct Prover<T>(T);
impl<T: Copy + Into<u64>> Prover<T> {
    #[inline(never)]
    fn synthesize(&self) -> Vec<u64> { black_box(vec![self.0.into(); 25_000]) }
}
fn main() {
    let a = make::<32>();
    let b = make::<8>();
    let c = Aux(1).build();
    let d = Prover(2u32).synthesize();
    println!("{}", a.len() + b.len() + c.len() + d.len());
}
RSEOF
	# and a method of a type's own impl, which v0 names <gen::Aux>::build: matched as
	# gen::Aux::build, as legacy names write it (since 0.2.17; before, 'x' matched nothing);
	# and a method of a generic type, which v0 names <gen::Prover<u32>>::synthesize and legacy
	# names gen::Prover<T>::synthesize: matched as gen::Prover::synthesize without the type's
	# generic arguments (since 0.2.19; before, 'p' matched nothing and warned)
	# gen_rules NAME WHAT: the three rules on the trace of $T/NAME, one expectation
	gen_rules() {
		CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/$1.zst traced $1 $T/$1
		$REPORT --json --phase-rule 'm=gen::make' --phase-rule 'x=gen::Aux::build' --phase-rule 'p=gen::Prover::synthesize' \
			$T/$1.zst >$T/$1.json 2>$T/$1.rerr
		expect_eq "--phase-rule on Rust $2, no warning" \
			"$(cat $T/$1.rc)/$(cat $T/$1.out)/$(jget $T/$1.json peak_heap.by_phase.0) $(jget $T/$1.json peak_heap.by_phase.1) $(jget $T/$1.json peak_heap.by_phase.2)/$(cat $T/$1.rerr)" \
			'0/275000/{"phase": "m", "bytes": 4000000, "samples": 0, "estimate_error_bytes": 0} {"phase": "x", "bytes": 400000, "samples": 0, "estimate_error_bytes": 0} {"phase": "p", "bytes": 200000, "samples": 0, "estimate_error_bytes": 0}/'
	}
	if rustc_in_make -g -O -C symbol-mangling-version=v0 -o $T/gen $T/gen.rs 2>$T/gen.build; then
		gen_rules gen "v0 names: a generic function without its generic arguments (3,200,000 + 800,000), <gen::Aux>::build as gen::Aux::build (400,000), <gen::Prover<u32>>::synthesize as gen::Prover::synthesize (200,000)"
	else
		echo "  skip --phase-rule on v0 names: rustc has no v0 mangling"
	fi
	rustc_in_make -g -O -o $T/genl $T/gen.rs 2>$T/genl.build
	expect_eq "--phase-rule on Rust legacy names: gen.rs builds" "$?/$(cat $T/genl.build)" "0/"
	gen_rules genl "legacy names: gen::Prover<T>::synthesize as gen::Prover::synthesize (200,000)"
else
	echo "  skip Rust eprintln! markers: no rustc"
fi

# -- bad rule syntax: one clear line, the program runs, no phases from log lines
for bad in 'synthesis' 'a=..END' '=START' 'ok=A..B;broken'; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES=$bad CUZKTRACE_OUT=$T/badphases.zst traced badphases $P/logphases
	expect_eq "bad CUZKTRACE_PHASES '$bad': program runs" "$(cat $T/badphases.rc)/$(cat $T/badphases.out | wc -l)" "0/2"
	expect_eq "bad CUZKTRACE_PHASES '$bad': one warning line" "$(grep '^cuzktrace: warning' $T/badphases.err)" \
		"cuzktrace: warning: invalid CUZKTRACE_PHASES='$bad' (expected NAME=START..END or NAME=TEXT, separated by ';'); phases from log lines are off"
done
$REPORT --json $T/badphases.zst >$T/badphases.json
expect_eq "bad CUZKTRACE_PHASES: tracing goes on, without phases (none recorded in the header)" "$(jget $T/badphases.json peak_heap.by_phase) $(jget $T/badphases.json phase_notes_total) /$(hdr_setting $T/badphases.json CUZKTRACE_PHASES)/" '[{"phase": "(none)", "bytes": 7500000, "samples": 0, "estimate_error_bytes": 0}] 0 //'

# -- thread names: --by thread folds trailing digits shared by several names
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/threadnames.zst traced threadnames $P/threadnames
expect_eq "threadnames: exit status unchanged" "$(cat $T/threadnames.rc)" 0
$REPORT --json --by thread $T/threadnames.zst >$T/threadnames.json
tgroups=$($PY - "$T/threadnames.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d['thread_groups']
print(' '.join('%s:%s:%s' % (x['name'], x['threads'], x['at_peak_heap_bytes']) for x in g[:3]))
print(len(g), g[3]['name'], g[3]['at_peak_heap_bytes'] < 8192, d['peak_heap']['by_thread'][0])
PYEOF
)
expect_eq "threadnames: groups (pthread_setname_np, prctl, renamed by another thread)" "$(echo "$tgroups" | head -1)" \
	"rayon-synth-*:3:3000000 gpu-worker:1:2000000 io-7:1:500000"
expect_eq "threadnames: the main thread holds only glibc's thread blocks" "$(echo "$tgroups" | sed -n 2p)" \
	"4 threadnames True {'thread': 'rayon-synth-*', 'bytes': 3000000}"
$REPORT --by thread $T/threadnames.zst >$T/threadnames.txt
expect_match "threadnames: text thread-group table" "$(cat $T/threadnames.txt)" 'rayon-synth-\* +3 +2\.86 MiB +2\.86 MiB'
$REPORT --json $T/threadnames.zst >$T/threadnames_plain.json
expect_eq "threadnames: thread groups only with --by thread" "$(jget $T/threadnames_plain.json thread_groups)" null
# --diff --by thread folds every name's trailing digits, so that a lone worker-0 in one run
# matches worker-0..3 in another: io-7 is io-* here (against itself: no change)
$REPORT --json --by thread --diff $T/threadnames.zst $T/threadnames.zst >$T/threadnames_diff.json
expect_eq "threadnames: --diff --by thread folds every name's digits" \
	"$($PY -c 'import json,sys; print(" / ".join("%s %d %d" % (r["thread"], r["trace"], r["change"]) for r in json.load(open(sys.argv[1]))["by_thread"]["peak_heap"][:3]))' $T/threadnames_diff.json)" \
	"rayon-synth-* 3000000 0 / gpu-worker 2000000 0 / io-* 500000 0"

# -- the phase API without the tracer: both examples run the same untraced (mini_prover's
# weak symbols, phases_shim's dlsym shim), leave no trace behind; phases_shim traced records
# its two phases
mkdir -p $T/untraced
(cd $T/untraced && env -u LD_PRELOAD $ROOT/build/examples/mini_prover 3 >$T/mini_plain.out 2>&1; echo $? >>$T/mini_plain.out;
 env -u LD_PRELOAD $ROOT/build/examples/phases_shim >$T/shim_plain.out 2>&1; echo $? >>$T/shim_plain.out)
expect_eq "phase API untraced: both examples run, same output, status 0, no file written" \
	"$(tr '\n' '|' <$T/mini_plain.out)$(tr '\n' '|' <$T/shim_plain.out)$(ls $T/untraced | wc -l)" \
	"mini_prover: 3 partitions proved (checksum eb78901c6d00000)|0|phases_shim: done|0|0"
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/shim.zst traced shim $ROOT/build/examples/phases_shim
$REPORT --json $T/shim.zst >$T/shim.json
expect_eq "phases_shim traced: same output, the peak heap owned by 'work' (4 MiB) and 'setup' (1 MiB)" \
	"$(cat $T/shim.out)/$(cat $T/shim.rc)/$(jget $T/shim.json peak_heap.by_phase)" \
	'phases_shim: done/0/[{"phase": "work", "bytes": 4194304, "samples": 0, "estimate_error_bytes": 0}, {"phase": "setup", "bytes": 1048576, "samples": 0, "estimate_error_bytes": 0}]'

# the public headers compile without a warning in strict ISO C and C++ (since 0.2.53: the shim
# stored dlsym's answer through a cast of a function to void *, 4 -Wpedantic warnings, an error
# under -Werror)
printf '#include "cuzktrace.h"\n#include "cuzktrace_shim.h"\nint main(void) { cuzktrace_shim_phase_push("a"); cuzktrace_shim_phase_pop(); cuzktrace_shim_phase_begin("b"); cuzktrace_shim_phase_end("b"); return 0; }\n' >$T/hdr.c
hdr=
for hc in "gcc -std=c99" "gcc -std=c11" "clang -std=c99" "g++ -std=c++11 -x c++" "clang++ -std=c++17 -x c++"; do
	command -v ${hc%% *} >/dev/null 2>&1 || continue
	$hc -pedantic -Wall -Wextra -Werror -I$ROOT/include -c $T/hdr.c -o $T/hdr.o >$T/hdr.err 2>&1 || hdr="$hdr [$hc: $(head -3 $T/hdr.err | tr '\n' ' ')]"
done
expect_eq "public headers: no warning under -pedantic -Wall -Wextra -Werror (C99, C11, C++11, C++17)" "$hdr" ""

# -- the demo: the report names the phase that owns the peaks
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/mini.zst traced mini $ROOT/build/examples/mini_prover 3
expect_eq "mini_prover: output" "$(cat $T/mini.out)" "mini_prover: 3 partitions proved (checksum eb78901c6d00000)"
$REPORT --json --by thread --csv $T/mini.csv --phases-csv $T/mini.pcsv $T/mini.zst >$T/mini.json
expect_eq "mini_prover: load owns most of the peak heap (params + partition array)" "$(jget $T/mini.json peak_heap.by_phase.0)" '{"phase": "load", "bytes": 67109152, "samples": 0, "estimate_error_bytes": 0}'
expect_match "mini_prover: the peak heap happens during prove" "$(jget $T/mini.json peak_heap.active_phases)" '"prove"'
# Which RSS sample is the highest depends on when the sampler ran: during the proofs load holds
# params + SRS mapping + the partition array; a sample after the last proof can see the array
# freed, or the SRS unmapped too (seen once in a dozen runs on a loaded machine).
expect_match "mini_prover: load owns most of the peak RSS (params + SRS mapping while proving)" "$(jget $T/mini.json peak_rss.by_phase.0)" '^\{"phase": "load", "bytes": (100663584|100663296|67108864), "samples": 0, "estimate_error_bytes": 0\}$'
mtable=$($PY - "$T/mini.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(' '.join('%s:%s:%s' % (p['name'], p['allocated_bytes'], p['peak_bytes']) for p in d['phases'] if p['name'] in ('load', 'prove')))
print([(g['name'], g['threads']) for g in d['thread_groups'] if g['name'].startswith('rayon')])
PYEOF
)
expect_eq "mini_prover: load and prove in the table (3 x 16 MiB scratch)" "$(echo "$mtable" | head -1)" "load:100663584:100663584 prove:50331648:16777216"
expect_eq "mini_prover: 12 pool workers grouped" "$(echo "$mtable" | sed -n 2p)" "[('rayon-synth-*', 12)]"
expect_eq "mini_prover: timeline active_phases are phase names joined by +" \
	"$(tail -n +2 $T/mini.csv | cut -d, -f7 | grep -v '^$' | grep -cvE '^(load|synthesis|prove)(\+(load|synthesis|prove))*$')" 0
expect_match "mini_prover: some sample falls in a phase" "$(tail -n +2 $T/mini.csv | cut -d, -f7 | sort -u | tr '\n' ' ')" '(load|synthesis|prove)'
expect_match "mini_prover: --phases-csv holds load's heap and mapping" "$(cat $T/mini.pcsv)" ',load,67109152,33554432'
$REPORT $T/mini.zst >$T/mini.txt
expect_match "mini_prover: text names the phases active at the peak heap" "$(cat $T/mini.txt)" 'peak heap +[0-9.]+ MiB at [0-9.]+ s, during [a-z +]*prove'
expect_match "mini_prover: text first owner is load" "$(sed -n '/^peak heap .*during/{n;p;q}' $T/mini.txt)" '^  load +64\.0 MiB'
cp $T/phases.zst $T/phases_b.zst
expect_eq "phases: --diff says the overlap once, under the first peak where either trace has it" \
	"$($REPORT --diff $T/phases_b.zst $T/phases.zst 2>/dev/null | grep -B1 'process-wide phases overlap' | cut -c1-56 | sed 's/ *$//')" \
	"  during             base: load + gpu; trace: load + gpu
  (process-wide phases overlap: what a thread with no ph"
expect_eq "mini_prover: a pushed phase beside one process-wide phase is no overlap: no hint" "$(grep -c 'process-wide phases overlap' $T/mini.txt)" 0
# process-wide phases that overlapped before the peak heap and not at it: the 4 MiB made
# then count under prove, begun last, and are live at the peak, where synthesis alone is
# active (since 0.2.44 the hint comes under that peak, naming the overlap; it came under no
# peak at all: tests/progs/overlapgone.c)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/overlapgone.zst LD_PRELOAD=$LIB $P/overlapgone >/dev/null 2>&1
$REPORT $T/overlapgone.zst >$T/overlapgone.txt 2>/dev/null
expect_eq "overlapgone: the peak heap, with synthesis alone active, holds prove's 4 MiB made in the overlap" \
	"$(sed -n '/^peak heap .*during synthesis$/,/^peak RSS/p' $T/overlapgone.txt | grep -v '^peak\|^  (')" \
	"  synthesis           8.00 MiB    66.7%  (8388608 bytes)
  prove               4.00 MiB    33.3%  (4194304 bytes)"
expect_eq "overlapgone: one hint, under the peak heap, naming the overlap" \
	"$(grep -c 'process-wide phases overlap' $T/overlapgone.txt)/$(sed -n '/^peak heap .*during synthesis$/{n;p;q}' $T/overlapgone.txt | sed 's/from [0-9.]* s/from T s/')" \
	"1/  (process-wide phases overlapped before this peak (synthesis and prove from T s): what a thread with no phase of its own pushed allocated then counts under the one begun last, whatever its work; --by thread splits by thread, --phase-rule NAME=FUNCTION assigns by call site)"
cp $T/overlapgone.zst $T/overlapgone_b.zst
expect_eq "overlapgone: --diff gives the hint under the first peak too" \
	"$($REPORT --diff $T/overlapgone_b.zst $T/overlapgone.zst 2>/dev/null | grep -B1 'process-wide phases overlap' | cut -c1-56 | sed 's/ *$//')" \
	"  during             base: synthesis; trace: synthesis
  (process-wide phases overlap: what a thread with no ph"
# the same with prove's 4 MiB freed before the 8 MiB are made: no byte of the overlap is live
# at any peak, so no hint (since 0.2.45: one came under the peak heap, of 8 MiB of synthesis)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/overlapfreed.zst LD_PRELOAD=$LIB $P/overlapgone freed >/dev/null 2>&1
$REPORT $T/overlapfreed.zst >$T/overlapfreed.txt 2>/dev/null
expect_eq "overlapgone freed: the peak heap, 8 MiB of synthesis alone; no hint, nor in --diff" \
	"$(sed -n '/^peak heap .*during synthesis$/,/^peak RSS/p' $T/overlapfreed.txt | grep -v '^peak')/$(grep -c 'process-wide phases overlap' $T/overlapfreed.txt)/$($REPORT --diff $T/overlapfreed.zst $T/overlapfreed.zst 2>/dev/null | grep -c 'process-wide phases overlap')" \
	"  synthesis           8.00 MiB   100.0%  (8388608 bytes)/0/0"
# ... with "after": synthesis ends with prove, so the peaks come during no phase, holding
# prove's 4 MiB: the hint under the peak heap, and in --diff under its first peak (before
# 0.2.57 the diff gave none: its hint came only under a peak that had a "during" row)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/overlapafter.zst LD_PRELOAD=$LIB $P/overlapgone after >/dev/null 2>&1
cp $T/overlapafter.zst $T/overlapafter_b.zst
expect_eq "overlapgone after: peaks during no phase; the hint under the peak heap, and in --diff once, under the peak RSS" \
	"$($REPORT $T/overlapafter.zst 2>/dev/null | sed -n '/^peak heap .*during no phase$/{n;p;q}' | cut -c1-60)/$($REPORT --diff $T/overlapafter_b.zst $T/overlapafter.zst 2>/dev/null | grep -B1 'process-wide phases overlap' | cut -c1-40 | sed 's/^peak RSS .*/peak RSS/')" \
	"  (process-wide phases overlapped before this peak (synthesi/peak RSS
  (process-wide phases overlap: what a t"
# two overlaps: synthesis and prove with nothing made, then synthesis and aggregate, whose 4 MiB
# (counted under aggregate, begun last) are live at the peak heap: the hint there, as under
# overlapgone's, though prove, the first overlap's phase begun last, holds nothing
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/overlapsecond.zst LD_PRELOAD=$LIB $P/overlapgone second >/dev/null 2>&1
$REPORT $T/overlapsecond.zst >$T/overlapsecond.txt 2>/dev/null
expect_eq "overlapgone second: the hint under the peak heap, of 4 MiB made in the second overlap; in --diff too" \
	"$(sed -n '/^peak heap .*during synthesis$/,/^peak RSS/p' $T/overlapsecond.txt | grep -v '^peak' | cut -c1-61)/$($REPORT --diff $T/overlapsecond.zst $T/overlapsecond.zst 2>/dev/null | grep -c 'process-wide phases overlap')" \
	"  (process-wide phases overlapped before this peak (synthesis
  synthesis           8.00 MiB    66.7%  (8388608 bytes)
  aggregate           4.00 MiB    33.3%  (4194304 bytes)/1"
# at the peak RSS the shares are of what was allocated then (heap, anonymous mmap, pinned),
# not of the RSS: the line says of what (the JSON's by_phase bytes at peak RSS add up to it)
expect_match "mini_prover: the peak RSS line says what its phases' shares are of" \
	"$(grep '^peak RSS .*, during ' $T/mini.txt)" \
	'^peak RSS +[0-9.]+ MiB at [0-9.]+ s, during [a-z +]+ \(shares of the [0-9.]+ (B|KiB|MiB) allocated then: heap, anonymous mmap, pinned\)$'
# in the default mode the bytes by phase are estimates from samples, whose sum is not the
# exact peak heap: both lines say what the shares are of (the peak heap's 70.6% read as a
# share of the peak, which a site's row gave as 66.0%): estimates where a sample is live at
# that moment, else (since 0.2.53, which called them estimates too) blocks recorded one by
# one, the heap's smaller ones missing from them (mini_prover at R = 64 KiB: its small blocks
# are short-lived; which it is, the JSON's samples by phase say: the lines must agree)
CUZKTRACE_SAMPLE=65536 CUZKTRACE_OUT=$T/minid.zst traced minid $ROOT/build/examples/mini_prover 3
$REPORT $T/minid.zst >$T/minid.txt
$REPORT --json $T/minid.zst >$T/minid.json
md_est() { # MOMENT: "estimated from samples" where a sample is live there, else the recorded form
	if [ "$($PY -c 'import json,sys; print(any(s["samples"] for s in json.load(open(sys.argv[1]))[sys.argv[2]]["by_phase"]))' $T/minid.json $1)" = True ]; then
		echo "$2"
	else
		echo "$3"
	fi
}
expect_match "mini_prover, default mode: the peak heap and peak RSS lines say what their shares are of, estimates where samples are live" \
	"$(grep -e '^peak heap .*, during ' -e '^peak RSS .*, during ' $T/minid.txt | tr '\n' '|')" \
	"^peak heap +[0-9.]+ MiB at [0-9.]+ s, during [a-z +]+ \(shares of the [0-9.]+ (KiB|MiB) $(md_est peak_heap 'estimated from samples, of the sizes asked for: the heap counts usable bytes' 'in blocks recorded one by one: no sample of the smaller blocks the heap counts is live here')\)\|peak RSS +[0-9.]+ MiB at [0-9.]+ s, during [a-z +]+ \(shares of the [0-9.]+ (KiB|MiB) allocated then$(md_est peak_rss ', estimated from samples: heap, anonymous mmap, pinned' ': heap in blocks recorded one by one \(no sample of its smaller blocks is live here\), anonymous mmap, pinned')\)\|\$"

# the default mode's running totals: a phase call sends the calling thread's pending total of
# small blocks first, so the 50,000 bytes made in A reach the trace in A; held back to the
# thread's next large event (a free in B), B owned the peak heap (tests/progs/aggphase.c)
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/aggphase.zst traced aggphase $P/aggphase
$REPORT --json $T/aggphase.zst >$T/aggphase.json 2>$T/aggphase.rerr
expect_eq "aggphase, default mode: the peak heap (8 MiB and 50 small blocks) is during A, where the small blocks were made" \
	"$(cat $T/aggphase.rc)/$(cat $T/aggphase.out)/$(jget $T/aggphase.json peak_heap.bytes)/$(jget $T/aggphase.json peak_heap.active_phases)/$(cat $T/aggphase.rerr)" \
	'0/aggphase: done/8438608/["A"]/'

# An idle pool thread's pending total goes out late (here at its exit, 0.1 s after the peak):
# its bytes were live since it made them, and format 6's AGG says from when at the earliest,
# so the peak keeps its moment, in msm (before 0.2.23 the default mode moved it to the exit, in
# no phase). When the thread made them after msm (after), the peak is not put back into msm;
# when another idle thread freed them before msm (freed), its late total counts there too: the
# peak is the 4 MiB block, within the running totals' bound (the two threads' totals sent
# before msm need not match). Exact mode alike (tests/progs/poolidle.c)
# (freed, default mode: up to 3 runs, until one puts the peak in msm: the moment of a default
# mode's peak is known to the running totals' bound, and on a loaded machine, 3 runs of 30
# beside two other such runs read the peak in no phase, 4,257,224 bytes, still within the
# bound; not seen in runs of the suite one file at a time)
for pv in "" after freed; do
	for pm in 0 524288; do
		for pool_try in 1 2 3; do
			CUZKTRACE_SAMPLE=$pm CUZKTRACE_OUT=$T/pool$pv$pm.zst traced pool$pv$pm $P/poolidle $pv
			$REPORT --json $T/pool$pv$pm.zst >$T/pool$pv$pm.json 2>$T/pool$pv$pm.rerr
			[ "$pv/$pm" = freed/524288 ] && [ "$(jget $T/pool$pv$pm.json peak_heap.active_phases)" != '["msm"]' ] || break
			echo "  note: idle pool threads' totals sent late (freed, default mode): run $pool_try put the peak in $(jget $T/pool$pv$pm.json peak_heap.active_phases); run again"
		done
	done
	case $pv in
	"") pool_want='4257016 ["msm"] 1/4254608 ["msm"]' ;; # and one late total counted at the peak
	after) pool_want='4257016 []/4254608 []' ;;
	freed) pool_want='in ["msm"]/4194912 ["msm"]' ;; # within the bound above the 4194928 of blocks
	esac
	expect_eq "idle pool threads' totals sent late (${pv:-made before msm}): the peak heap and its phases, default mode and exact" \
		"$(cat $T/pool${pv}524288.rc $T/pool${pv}0.rc | tr -d '\n')/$(b=$(jget $T/pool${pv}524288.json peak_heap.bytes); [ "$pv" = freed ] && { [ $b -ge 4194928 ] && [ $b -le $((4194928 + $(jget $T/pool${pv}524288.json sampling.peak_heap_error_bound_bytes))) ] && echo in || echo "$b out"; } || echo $b) $(jget $T/pool${pv}524288.json peak_heap.active_phases)$([ -n "$pv" ] || echo " $(jget $T/pool${pv}524288.json sampling.late_totals_at_peak)")/$(jget $T/pool${pv}0.json peak_heap.bytes) $(jget $T/pool${pv}0.json peak_heap.active_phases)/$(cat $T/pool${pv}524288.rerr $T/pool${pv}0.rerr)" \
		"00/$pool_want/"
done

# ... and frees sent late after a peak the replay let go (latefree: fft's peak was the true
# one, msm's the one the replay holds when the worker's frees come): they must not lower the
# peak below the heap its own timeline showed (a peak below the CSV's top, before the fix);
# which of the two moments it names, the running totals' bound cannot tell
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/poollf.zst traced poollf $P/poolidle latefree
$REPORT --json --csv $T/poollf.csv $T/poollf.zst >$T/poollf.json 2>/dev/null
expect_eq "idle pool thread's frees sent late: the peak heap not below the timeline's highest heap, within the bound of fft's" \
	"$($PY -c '
import csv, json, sys
d = json.load(open(sys.argv[1])); top = max(int(r["heap_bytes"]) for r in csv.DictReader(open(sys.argv[2])))
b = d["peak_heap"]["bytes"]; bound = d["sampling"]["peak_heap_error_bound_bytes"]
print("ok" if b >= top and abs(b - 4287376) <= bound else "peak %d, timeline top %d, bound %d" % (b, top, bound))' $T/poollf.json $T/poollf.csv)" "ok"

# Pool workers' burst of small blocks is the peak heap, in msm; their last totals (65,000
# bytes each) go out late, made within the coarse clock's tick of the peak: they count at it,
# which keeps its moment and phase (since 0.2.24; the peak moved to their next step, in no
# phase, 19 runs in 20). 3 runs of each ending (the workers free, or exit), and exact mode
bp_ok=0 bp_round=0
# (a machine busy with other work can keep the sampler from a core for longer than the rule
# allows in two runs of six: up to three rounds of six, as other timing checks are retried)
while [ $bp_round -lt 3 ] && [ $bp_ok -lt 5 ]; do
bp_ok=0 bp_round=$((bp_round + 1))
for m in "" exit "" exit "" exit; do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/bp.zst traced bp $P/burstpeak $m
	$REPORT --json $T/bp.zst >$T/bp.json 2>/dev/null
	bp_b=$(jget $T/bp.json peak_heap.bytes)
	[ "$(cat $T/bp.rc)/$(jget $T/bp.json peak_heap.active_phases)" = '0/["msm"]' ] && [ "$bp_b" -ge "$(cat $T/bp.out)" ] &&
		[ "$bp_b" -le $(($(cat $T/bp.out) + $(jget $T/bp.json sampling.peak_heap_error_bound_bytes))) ] &&
		bp_ok=$((bp_ok + 1)) || echo "  (burstpeak $m: peak $bp_b in $(jget $T/bp.json peak_heap.active_phases) at $(jget $T/bp.json peak_heap.t_s) s)"
done
done
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/bp0.zst traced bp0 $P/burstpeak
$REPORT --json $T/bp0.zst >$T/bp0.json 2>/dev/null
# (the rule needs the RSS sample after the workers' change within two ticks of it: a sampler
# kept from a core for over 10 ms turns it off, by design, so one run in six may miss under load)
expect_eq "pool workers' burst is the peak heap, their last totals sent late: msm in at least 5 of 6 default-mode runs, the bytes within the bound; exact mode msm" \
	"$([ $bp_ok -ge 5 ] && echo 'at least 5' || echo $bp_ok)/$(jget $T/bp0.json peak_heap.active_phases)" 'at least 5/["msm"]'

# ... and not where the heap moved after the peak: the workers' growth right after main's 1 MiB
# block, which main frees at once (the top stays L's, in A). Counted back at L's moment, it
# took the peak past the bound (their pending frees were in the figure already), 4 runs
# (tests/progs/nearpeak.c; its "phase" mode, growth in the next phase, is in t_oracle.sh: which
# moment the replay names there depends on where RSS peaks)
np_ok=0
for i in 1 2 3 4; do
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/np.zst traced np $P/nearpeak over
	$REPORT --json $T/np.zst >$T/np.json 2>/dev/null
	np_over=$(($(jget $T/np.json peak_heap.bytes) - $(cat $T/np.out)))
	[ "$(cat $T/np.rc)/$(jget $T/np.json peak_heap.active_phases)" = '0/["A"]' ] && [ $np_over -ge 0 ] &&
		[ $np_over -le "$(jget $T/np.json sampling.peak_heap_error_bound_bytes)" ] && np_ok=$((np_ok + 1)) ||
		echo "  (nearpeak over: $np_over bytes above L, in $(jget $T/np.json peak_heap.active_phases))"
done
expect_eq "workers' growth right after a peak main freed at once: 4 of 4 runs name A, the bytes within the bound" "$np_ok" 4

# A worker's small blocks, pending in its running total when main makes the peak heap right
# after them, sent at its exit after the peak RSS sample: they count at the peak RSS (the
# sample came a clock tick after they were made) but not at the replay's own top (within the
# tick), so the heap shown at the peak RSS exceeded the peak heap (16837528 against 16778528
# bytes, the true top being the former). That sample's moment is the peak heap's now: its
# bytes count the worker's blocks (the program's own 16 MiB and 60 small blocks, glibc's few
# on top), and no moment shows more heap (tests/progs/latepeak.c)
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/latepeak.zst traced latepeak $P/latepeak
$REPORT --json $T/latepeak.zst >$T/latepeak.json 2>$T/latepeak.rerr
$REPORT $T/latepeak.zst >$T/latepeak.txt 2>/dev/null
expect_eq "default mode, a worker's pending total sent after the peak RSS: the peak heap counts it, and is no lower than the heap at the peak RSS" \
	"$(cat $T/latepeak.rc)/$(cat $T/latepeak.rerr)/$($PY -c '
import json, sys
d = json.load(open(sys.argv[1])); own = int(open(sys.argv[2]).read())
h, r, s = d["peak_heap"], d["peak_rss"], d["sampling"]
print("counted" if own <= h["bytes"] < own + 4096 else "peak %d, the program held %d" % (h["bytes"], own),
      "not below" if h["bytes"] >= r["heap_bytes"] else "peak %d below the %d at the peak RSS" % (h["bytes"], r["heap_bytes"]),
      "same moment" if not s["peak_heap_at_peak_rss"] or (h["t_s"] == r["t_s"] and s["late_totals_at_peak"] >= 1) else "moment %s, peak RSS at %s" % (h["t_s"], r["t_s"]))' $T/latepeak.json $T/latepeak.out)/$(grep -c '^  moment              the peak RSS sample.s: running totals that threads sent later were live then' $T/latepeak.txt)" \
	"0//counted not below same moment/$(jget $T/latepeak.json sampling.peak_heap_at_peak_rss | sed 's/true/1/;s/false/0/')"

# The phase API and log-line rules at their edges (tests/progs/phases2.c has the numbers).
p2() { # p2 MODE [RULES]: trace one mode in exact mode, report to $T/p2MODE.json
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES=${2:-} CUZKTRACE_OUT=$T/p2$1.zst traced p2$1 $P/phases2 $1
	$REPORT --json $T/p2$1.zst >$T/p2$1.json 2>$T/p2$1.rerr
}
p2 deep
expect_eq "phases: 40 nested pushes, each block owned by its innermost phase" "$(jget $T/p2deep.json peak_heap.by_phase)" \
	'[{"phase": "d40", "bytes": 1000040, "samples": 0, "estimate_error_bytes": 0}, {"phase": "d39", "bytes": 1000039, "samples": 0, "estimate_error_bytes": 0}, {"phase": "d33", "bytes": 1000033, "samples": 0, "estimate_error_bytes": 0}, {"phase": "d32", "bytes": 1000032, "samples": 0, "estimate_error_bytes": 0}, {"phase": "d01", "bytes": 1000001, "samples": 0, "estimate_error_bytes": 0}, {"phase": "(none)", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]'
p2 deeper
expect_eq "phases: past 256 nested pushes, one warning" "$(grep warning $T/p2deeper.err)" \
	"cuzktrace: warning: phases nested deeper than 256 on one thread; allocations in the deeper ones are charged to the phase at depth 256 (the report still lists them as active)"
expect_eq "phases: past 256, bytes go to the phase at depth 256; all 300 are active" \
	"$(jget $T/p2deeper.json peak_heap.by_phase)/$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["peak_heap"]["active_phases"]))' $T/p2deeper.json)" \
	'[{"phase": "e256", "bytes": 3000000, "samples": 0, "estimate_error_bytes": 0}]/300'
# and back: pops from past 256 leave the phase at depth 256 until the stack is under it again,
# then each pop restores the phase below (since 0.2.32 the stack is kept in the thread's ring)
p2 deeperpop
expect_eq "phases: popped back from past 256, each block owned by the phase then on top" \
	"$(jget $T/p2deeperpop.json peak_heap.by_phase)" \
	'[{"phase": "f256", "bytes": 2000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "f250", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "f001", "bytes": 500000, "samples": 0, "estimate_error_bytes": 0}]'
p2 overlimit
expect_eq "phases: a name past the 4,096-name table leaves its bytes with the enclosing phase" \
	"$(jget $T/p2overlimit.json peak_heap.by_phase)" '[{"phase": "p0001", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]'
p2 exitpush
expect_eq "phases: a phase pushed by a thread ends when the thread exits" \
	"$(jget $T/p2exitpush.json peak_heap.active_phases)/$(jget $T/p2exitpush.json peak_heap.by_phase.1)" \
	'[]/{"phase": "worker", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}'
p2 race 'p1=M1;p2=M2;p3=M3;p4=M4;p5=M5;p6=M6;p7=M7;p8=M8'
expect_eq "phases: single markers from 8 threads at once: one phase active at the end, every line seen" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["peak_heap"]["active_phases"]), d["phase_notes_total"])' $T/p2race.json)" "1 160000"
p2 bigwritev 'synthesis=SYNTH_START..SYNTH_END'
expect_eq "phases: a marker after 9,000 bytes of one writev is seen" "$(jget $T/p2bigwritev.json peak_heap.by_phase)" \
	'[{"phase": "synthesis", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]'
p2 overlap 'proof=PROVE..PROVE_DONE;load=LOAD..SYNTH;synthesis=SYNTH..DONE;x=MARK..MARK'
expect_eq "phases: overlapping markers (longest wins, every rule at a place acts, MARK..MARK toggles)" \
	"$(jget $T/p2overlap.json peak_heap.by_phase)/$(jget $T/p2overlap.json phase_notes_total)" \
	'[{"phase": "(none)", "bytes": 14000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "x", "bytes": 6000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "synthesis", "bytes": 4000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "load", "bytes": 3000000, "samples": 0, "estimate_error_bytes": 0}, {"phase": "proof", "bytes": 1000000, "samples": 0, "estimate_error_bytes": 0}]/8'
p2 manylines 'a=STEP;b=NEVER_SEEN..NEVER_END'
expect_eq "phases: one write of 20,000 matching lines, a rule that never matches beside it" \
	"$(jget $T/p2manylines.json phase_notes_total)/$(jget $T/p2manylines.json peak_heap.active_phases)" '20000/["a"]'
# a marker far into a long line: its note is the 1,024 bytes from 512 before the marker (the
# line's first 1,024 bytes did not show the marker; finding the line's ends for every marker
# made one write of 128 KB of markers take 3 s)
p2 longline 'm=MARK'
expect_eq "phases: the note of a marker 2,000 bytes into a 3,006-byte line shows the marker" \
	"$($PY -c 'import json, sys; t = json.load(open(sys.argv[1]))["phase_notes"][0]["text"]; print(len(t), t == "x" * 511 + " MARK " + "y" * 507)' $T/p2longline.json)" "1024 True"
for bad in "$(printf 'p%d=M%d;' $(seq 1 33 | sed 's/.*/& &/'))" "$(printf 'n%.0s' $(seq 64))=X" "a=$(printf 'm%.0s' $(seq 128))" \
	" x = MARK..MARK " "a=A;b =B"; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES=$bad CUZKTRACE_OUT=$T/limits.zst traced limits $P/phases2 manylines
	echo "$(grep -o '(at most 32 rules)\|(a name is at most 63 bytes)\|(a marker is at most 127 bytes)\|(a name neither starts nor ends with a space)' $T/limits.err)"
done >$T/limits.all
expect_eq "phases: rules over the limits name the limit; a name with a space at an end is refused" "$(cat $T/limits.all)" \
	"$(printf '(at most 32 rules)\n(a name is at most 63 bytes)\n(a marker is at most 127 bytes)\n(a name neither starts nor ends with a space)\n(a name neither starts nor ends with a space)')"
# ... and rules at the limits (32 rules, 63-byte names, 127-byte markers, an end marker with
# ".." in it) are recorded whole in the header, as given
maxrules=$(for i in $(seq 10 41); do printf 'n%s%s=S%s%s..E%s..%s;' $i "$(printf 'x%.0s' $(seq 60))" $i "$(printf 's%.0s' $(seq 124))" $i "$(printf 'e%.0s' $(seq 122))"; done)
maxrules=${maxrules%;}
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES=$maxrules CUZKTRACE_OUT=$T/maxrules.zst traced maxrules $P/phases2 manylines
$REPORT --json $T/maxrules.zst >$T/maxrules.json 2>/dev/null
expect_eq "phases: 32 rules at the limits (${#maxrules} bytes) run and are recorded whole in the header" \
	"$(grep -c warning $T/maxrules.err)/$(hdr_setting $T/maxrules.json CUZKTRACE_PHASES | cmp - <(printf '%s\n' "$maxrules") && echo same)" "0/same"
$REPORT --json --phase-rule '(none)=main' $T/p2deep.zst >$T/p2none.json
expect_eq "phase-rule: '(none)=...' gives bytes back to (none), no second (none)" \
	"$(jget $T/p2none.json peak_heap.by_phase)" '[{"phase": "(none)", "bytes": 6000145, "samples": 0, "estimate_error_bytes": 0}]'
p2 utf8
$REPORT $T/p2utf8.zst >$T/p2utf8.txt
expect_eq "phases: text columns line up after a UTF-8 name (counted in characters)" \
	"$($PY - $T/p2utf8.txt <<'PYEOF'
import re, sys
rows = [l for l in open(sys.argv[1], encoding='utf-8') if re.match(r'\s*(donn\u00e9es|plain)\s', l)]
# rows of one kind (indented shares, the table) must put their second column at one place
cols = {(r[0] == ' ', re.search(r'\S+\s+(\S)', r).start(1)) for r in rows}
print(len(cols) == len({k for k, _ in cols}), len(rows) >= 4)
PYEOF
)" "True True"

# a program linked against the library itself (-lcuzktrace, no rpath; cuzktrace.h's third
# route, README's Rust #[link]) runs with the library in LD_PRELOAD only: the library's SONAME
# names it for the program's NEEDED entry (before, "cannot open shared object file", 127)
traced_json linkapi $P/linkapi >/dev/null
expect_eq "linked with -lcuzktrace, LD_PRELOAD only: runs, status 0, phase 'linked' holds its 1000 bytes at the peak" \
	"$(cat $T/linkapi.rc)/$(cat $T/linkapi.out)/$(jget $T/linkapi.json phases.0.name)/$(jget $T/linkapi.json phases.0.at_peak_heap_bytes)" \
	"0/linkapi: done/linked/1000"

# -- phase names at the limits (tests/progs/phasenames.c, since 0.2.22): two names alike in the
# 1,024 bytes the trace keeps are one phase (they were two rows of one name, which --diff
# added up); a CUZKTRACE_PHASES rule's phase is named after the program used up the 4,096
# names (its lines were seen and lost, and the reader blamed printf's stdio)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnlong.zst traced pnlong $P/phasenames long
expect_eq "phase names alike in their first 1,024 bytes: one phase" \
	"$($REPORT --json $T/pnlong.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print([(len(p["phase"]), p["bytes"]) for p in d["peak_heap"]["by_phase"]], len([p for p in d["phases"] if len(p["name"]) == 1024]))')" \
	"[(1024, 200003)] 1"
# a pop on a thread with nothing pushed (its push was on another thread: a Rust guard held
# across an .await that resumed on another worker) is ignored, and since 0.2.40 one line says
# so, once for two such pops (it was silent); the phase stays pushed on the first thread
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnmoved.zst traced pnmoved $P/phasenames moved
# (the thread named is the popping one, not the process: its id is not the pid)
expect_eq "a pop with nothing pushed: the line names a thread other than the main one" \
	"$(sed -n 's/.*cuzktrace_phase_pop() on thread \([0-9]*\),.*/\1/p' $T/pnmoved.err | grep -vc "^$(sed -E 's/.*\(pid ([0-9]+)\).*/\1/;q' $T/pnmoved.err)$")" 1
expect_eq "a pop with nothing pushed on its thread: one line, the phase stays on the pushing thread" \
	"$(cat $T/pnmoved.rc)/$(grep -v 'tracing\|written' $T/pnmoved.err | sed 's/thread [0-9]*,/thread N,/')/$($REPORT --json $T/pnmoved.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print([(p["phase"], p["bytes"]) for p in d["peak_heap"]["by_phase"] if p["phase"] != "(none)"])')" \
	"0/cuzktrace: warning: cuzktrace_phase_pop() on thread N, which has no phase pushed: a push and its pop must be on one thread (a guard held across an .await that resumed on another thread?), and the phase pushed elsewhere stays on its thread; such pops are ignored, said once/[('task', 3000000)]"
# ... but a pop from the program's thread-specific data destructor, balanced on the pushing
# thread, after the tracer's destructor ended that thread's phases, is no such pop: no line
# (since 0.2.55; it drew the line, which then hid a real one); its 1,000,000 bytes in "worker"
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnkey.zst traced pnkey $P/phasenames keydtor
expect_eq "a pop in a key destructor after the thread's phases ended: no line, the block in its phase" \
	"$(cat $T/pnkey.rc)/$(grep -cv 'tracing\|written' $T/pnkey.err)/$($REPORT --json $T/pnkey.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print([(p["phase"], p["bytes"]) for p in d["peak_heap"]["by_phase"] if p["phase"] != "(none)"])')" \
	"0/0/[('worker', 1000000)]"
# process-wide phases active together at the peak RSS only (printed after the peak heap, which
# has one): the overlap hint goes under the peak RSS, not the note that they "overlapped before"
# under the peak heap (since 0.2.55)
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=5 CUZKTRACE_OUT=$T/pnovl.zst traced pnovl $P/phasenames overlaprss
$REPORT $T/pnovl.zst >$T/pnovl.txt 2>/dev/null
expect_eq "overlap at the peak RSS only: the hint under the peak RSS, no 'overlapped before' note" \
	"$(grep -c 'overlapped before' $T/pnovl.txt)/$(sed -n '/^peak RSS .*during synth + prove/{n;p;q}' $T/pnovl.txt | cut -c1-36)" \
	"0/  (process-wide phases overlap: what"
# ... and in --diff, which prints the peak RSS first: phases overlapping at the peak heap get
# the hint there, not the peak RSS after the overlap ("synth" alone, "prove"'s 1 MiB live; since
# 0.2.56, as the single report does)
for k in 1 2; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=5 CUZKTRACE_OUT=$T/pnoh$k.zst traced pnoh$k $P/phasenames overlapheap
done
$REPORT --diff $T/pnoh1.zst $T/pnoh2.zst >$T/pnoh.txt 2>/dev/null
expect_eq "diff: overlap at the peak heap, printed after the peak RSS: the hint under the peak heap only" \
	"$(grep -c 'process-wide phases overlap' $T/pnoh.txt)/$(sed -n '/^  during  *base: synth + prove; trace: synth + prove$/{n;p;q}' $T/pnoh.txt | cut -c1-36)" \
	"1/  (process-wide phases overlap: what"
# An exact base against a default-mode trace in which a phase drew no sample: its bytes may all
# be in unsampled small blocks, up to 5.9 R (since 0.2.56; a phase's block sizes are not kept,
# and such a row read as a real change, -100%). phasenames tiny: 300,000 bytes in "small",
# 2 MiB in "big", at a rate of 1 GiB: nearly always no sample (a run with one is done again).
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pntx.zst traced pntx $P/phasenames tiny
for k in 1 2 3; do
	CUZKTRACE_SAMPLE=1073741824 CUZKTRACE_OUT=$T/pntd.zst traced pntd $P/phasenames tiny
	[ "$($REPORT --json $T/pntd.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["sampling"]["sampled_allocations"])')" = 0 ] && break
done
$REPORT --diff $T/pntx.zst $T/pntd.zst >$T/pnt.txt 2>/dev/null
expect_eq "diff, exact base against a default-mode trace with no sample in a phase: within sampling noise (5.9 R), by phase and by thread group, at the peak heap and RSS" \
	"$(sed -n '/^live bytes by phase at peak heap/,/^$/p' $T/pnt.txt | grep -c '  (within sampling noise, +-5.90 GiB)$')/$($REPORT --json --by thread --diff $T/pntx.zst $T/pntd.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(sorted((r["phase"], r["change"], r["noise_bytes"]) for r in d["by_phase"]["peak_heap"]), [(r["change"], r["noise_bytes"]) for r in d["by_thread"]["peak_heap"]], sorted((r["phase"], r["change"], r["noise_bytes"]) for r in d["by_phase"]["peak_rss"]))')" \
	"2/[('big', -2097152, 6335076761), ('small', -300000, 6335076761)] [(-2397152, 6335076761)] [('big', -2097152, 6335076761), ('small', -300000, 6335076761)]"
# the default mode's bytes by phase at a peak carry their standard error from samples, R x
# sqrt(samples) (since 0.2.40: only the mode line said how big), JSON samples and
# estimate_error_bytes, text "+-"; a phase of one large block is exact: 0 and 0, no "+-"
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/pnsmall.zst traced pnsmall $P/phasenames small
$REPORT --json $T/pnsmall.zst >$T/pnsmall.json 2>/dev/null
$REPORT $T/pnsmall.zst >$T/pnsmall.txt 2>/dev/null
expect_eq "default mode: each phase's bytes at the peak heap with their standard error (JSON and text)" \
	"$(cat $T/pnsmall.rc)/$($PY - $T/pnsmall.json $T/pnsmall.txt <<'PYEOF'
import json, math, re, sys
d = json.load(open(sys.argv[1]))
rows = {p["phase"]: p for p in d["peak_heap"]["by_phase"]}
small, big = rows["small"], rows["big"]
text = open(sys.argv[2]).read()
def shown(name):
    m = re.search(r"^  " + name + r" .*\(\d+ bytes(, \+-[0-9.]+ [KMG]?i?B)?\)$", text, re.M)
    return m and (m.group(1) or "")
ok = [small["samples"] > 0,
      small["estimate_error_bytes"] == int(524288 * math.sqrt(small["samples"])),
      big["bytes"] == 8 << 20, big["samples"], big["estimate_error_bytes"],
      bool(shown("small")), shown("big")]
print(ok)
PYEOF
)" "0/[True, True, True, 0, 0, True, '']"
# phase calls in a library's constructor before anything allocated: the first starts the tracer,
# as a first malloc does (since 0.2.51: all were dropped, "setup" never began and its bytes were
# of no phase, and the balanced pop of "probe", not counted, took the place of main's last pop,
# which passed without its line); main's pop of "init" says nothing (tests/progs/ctorpop.c,
# lib/ctorpush.c)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/ctorpop.zst traced ctorpop $P/ctorpop
expect_eq "phase calls in a constructor before any allocation: recorded; only main's last pop, with nothing pushed, said" \
	"$(cat $T/ctorpop.rc)/$(grep -vc 'tracing\|written' $T/ctorpop.err)/$(grep -c 'cuzktrace_phase_pop() on thread' $T/ctorpop.err)/$($REPORT --json $T/ctorpop.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print([(p["phase"], p["bytes"]) for p in d["peak_heap"]["by_phase"]], [(p["name"], p["allocated_bytes"]) for p in d["phases"]])')" \
	"0/1/1/[('setup', 2000000), ('init', 1000000), ('(none)', 500000)] [('probe', 0), ('setup', 2000000), ('init', 1000000), ('(none)', 500000)]"
# a push of NULL keeps the enclosing phase and its pop balances it (since 0.2.40: the push was
# ignored and its pop popped "prove", whose last 3,000,000 bytes were of no phase)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnnull.zst traced pnnull $P/phasenames null
expect_eq "a push of NULL and its pop: the enclosing phase keeps its bytes, and is active at the peak" \
	"$(cat $T/pnnull.rc)/$(wc -l <$T/pnnull.err)/$($REPORT --json $T/pnnull.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); h = d["peak_heap"]; print(h["active_phases"], [(p["phase"], p["bytes"]) for p in h["by_phase"] if p["phase"] != "(none)"], [(p["name"], p["allocated_bytes"]) for p in d["phases"] if p["name"] != "(none)"])')" \
	"0/2/['prove'] [('prove', 6000000)] [('prove', 6000000)]"
# on a thread with nothing pushed, a push of NULL leaves its bytes with the process-wide phase
# as it changes: the push took the one active then ("load") for the thread's own, and the
# 3,000,000 bytes made after "load" ended, in "prove", counted in "load"
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnnullproc.zst traced pnnullproc $P/phasenames nullproc
expect_eq "a push of NULL on a thread with nothing pushed: the process-wide phase as it changes owns the bytes" \
	"$(cat $T/pnnullproc.rc)/$(wc -l <$T/pnnullproc.err)/$($REPORT --json $T/pnnullproc.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); print([(p["name"], p["allocated_bytes"]) for p in d["phases"] if p["name"] != "(none)"])')" \
	"0/2/[('load', 1000000), ('prove', 5000000)]"
# a program's phase named "(none)" and thread named "(unnamed)", the report's own labels for
# bytes of no phase and a thread without a name, show quoted (since 0.2.36: two rows of one
# label, which tools keyed by name merged); those names in quotes get one pair more (since
# 0.2.58: the phase "\"(none)\"" read as the program's "(none)", two rows of one name in JSON);
# the no-phase bytes: 14,000 and glibc's own
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnlab.zst traced pnlab $P/phasenames labels
expect_eq "phase \"(none)\" and thread \"(unnamed)\" of the program's: quoted in JSON and text, apart from the report's labels; those names in quotes quoted once more" \
	"$($REPORT --json --by thread $T/pnlab.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); q = lambda n, b: (n, b if n != "(none)" else b >= 14000); print([q(p["name"], p["allocated_bytes"]) for p in d["phases"]], [q(p["phase"], p["bytes"]) for p in d["peak_heap"]["by_phase"]], [(g["name"], g["allocated_bytes"]) for g in d["thread_groups"] if g["name"] != "phasenames"])')/$($REPORT $T/pnlab.zst 2>/dev/null | grep -c '^  "(none)"  *1000 B ')" \
	"[('\"(none)\"', 1000), ('\"\"(none)\"\"', 1500), ('(none)', True)] [('(none)', True), ('\"\"(none)\"\"', 1500), ('\"(none)\"', 1000)] [('\"(unnamed)\"', 8000), ('\"\"(unnamed)\"\"', 6000)]/2"
# a phase named "" in the timeline CSV's active_phases is `""` (a quoted cell), as in the text:
# its cell was empty, as with no phase active (since 0.2.36); without RSS samples the sites
# CSV's bytes_at_peak_rss cells are empty, as JSON's null (they read 0)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnempty.zst traced pnempty $P/phasenames empty
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/pnempty0.zst traced pnempty0 $P/phasenames empty
expect_eq "a phase named \"\" in the CSV's active_phases; no RSS samples: bytes_at_peak_rss empty in the sites CSV" \
	"$($REPORT --csv - $T/pnempty.zst 2>/dev/null | $PY -c 'import csv,sys; r = list(csv.DictReader(sys.stdin)); print(sorted(set(x["active_phases"] for x in r)), len([x for x in r if x["active_phases"] == "\"\""]) >= 3)')/$($REPORT --sites-csv - $T/pnempty0.zst 2>/dev/null | $PY -c 'import csv,sys; r = list(csv.DictReader(sys.stdin)); print(sorted(set(x["bytes_at_peak_rss"] for x in r)), [x["bytes_at_peak_heap"] for x in r if "phasenames.c" in x["site"]])')" \
	"['', '\"\"'] True/[''] ['3000']"
# ... and in --phases-csv's phase column, one name, not a list: an empty cell (a phase named
# `""` is that)
expect_eq "a phase named \"\" in --phases-csv: an empty cell" \
	"$($REPORT --phases-csv - $T/pnempty.zst 2>/dev/null | $PY -c 'import csv,sys; print(sorted(set(x["phase"] for x in csv.DictReader(sys.stdin))))')" \
	"['']"
# a name that holds '+' is quoted in the timeline CSV's active_phases, its own quotes doubled, so
# that the list splits at the '+' outside quotes (since 0.2.43: "fft+msm" read as two phases)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnplus.zst traced pnplus $P/phasenames plus
expect_eq "names holding '+' in the CSV's active_phases: quoted, and split back to the JSON's names" \
	"$($REPORT --csv - $T/pnplus.zst 2>/dev/null | $PY -c 'import csv,re,sys
cells = [x["active_phases"] for x in csv.DictReader(sys.stdin)]
c = max(set(cells), key=cells.count)  # the 50 ms with all four active
split = lambda c: [n[1:-1].replace("\"\"", "\"") if n[:1] == "\"" else n for n in re.findall(r"(?:\"(?:[^\"]|\"\")*\"|[^+\"])+", c)]
print(c, split(c))')/$($REPORT --json $T/pnplus.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["peak_heap"]["active_phases"])')" \
	"\"fft+msm\"+\"C++\"+\"q\"\"+x\"+plain ['fft+msm', 'C++', 'q\"+x', 'plain']/['fft+msm', 'C++', 'q\"+x', 'plain']"
# a list longer than the cell (six quoted names of 999 bytes): cut after the last whole name,
# ending "+...", every name's quotes closed (since 0.2.51: cut inside the fifth, its quote open)
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=5 CUZKTRACE_OUT=$T/pcut.zst traced pcut $P/phasecut
expect_eq "a cut active_phases cell: whole names, then '+...'" \
	"$($REPORT --csv - $T/pcut.zst 2>/dev/null | $PY -c 'import csv,re,sys
cells = [x["active_phases"] for x in csv.DictReader(sys.stdin) if x["active_phases"].endswith("...")]
c = cells[-1]
names = re.findall(r"(?:\"(?:[^\"]|\"\")*\"|[^+\"])+", c)
print(len(cells) > 0, c.count("\"") % 2, "+".join(names) == c, names[-1], [len(n) for n in names[:-1]])')" \
	"True 0 True ... [1003, 1003, 1003, 1003]"
# ... and so is a name that holds '"' without a '+': unquoted, "a and b" read as the one name
# a+b, quoted
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnquote.zst traced pnquote $P/phasenames quote
expect_eq "names holding '\"' in the CSV's active_phases: quoted, and split back to the JSON's names" \
	"$($REPORT --csv - $T/pnquote.zst 2>/dev/null | $PY -c 'import csv,re,sys
cells = [x["active_phases"] for x in csv.DictReader(sys.stdin)]
c = max(set(cells), key=cells.count)
split = lambda c: [n[1:-1].replace("\"\"", "\"") if n[:1] == "\"" else n for n in re.findall(r"(?:\"(?:[^\"]|\"\")*\"|[^+\"])+", c)]
print(c, split(c))')/$($REPORT --json $T/pnquote.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["peak_heap"]["active_phases"])')" \
	"\"\"\"a\"+\"b\"\"\" ['\"a', 'b\"']/['\"a', 'b\"']"
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='logsynth=SYNTH_START..SYNTH_END' CUZKTRACE_OUT=$T/pnmany.zst traced pnmany $P/phasenames many
$REPORT --json $T/pnmany.zst >$T/pnmany.json 2>$T/pnmany.rerr
expect_eq "a rule's phase after 5,000 pushed names: its bytes; the tracer's one line" \
	"$($PY -c 'import json,sys; d = json.load(open(sys.argv[1])); print([(p["name"], p["allocated_bytes"]) for p in d["phases"] if p["name"] == "logsynth"], len(d["phases"]))' $T/pnmany.json)/$(grep -c 'more than 4096 phase names' $T/pnmany.err)" \
	"[('logsynth', 123457)] 4097/1"
# the rules' slots are kept for the rules whose phase has no name yet: logsynth, begun before
# the program's 5,000 names, has its own, so one slot (gpu's) is kept, and the program's names
# fill the other 4,094 (before 0.2.42 two were kept: the table stopped at 4,095 names, n4092 the
# last of the program's); gpu still begins at its line after the table filled
CUZKTRACE_SAMPLE=0 CUZKTRACE_PHASES='logsynth=SYNTH_START..SYNTH_END;gpu=GPU_START' CUZKTRACE_OUT=$T/pnafter.zst traced pnafter $P/phasenames manyafter
expect_eq "rule names defined before the table filled keep no slot: 4,096 names, the program's to n4093; both rules' bytes" \
	"$($REPORT --json $T/pnafter.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin); n = [p["name"] for p in d["phases"] if p["name"] != "(none)"]; print(len(n), [x for x in n if x.startswith("n")][-1], [(p["name"], p["allocated_bytes"]) for p in d["phases"] if p["name"] in ("logsynth", "gpu")])')/$(grep -c 'more than 4096 phase names' $T/pnafter.err)" \
	"4096 n4093 [('logsynth', 123457), ('gpu', 5000)]/1"
# a peak with 40 phases active (40 threads, each in its own): the heading names --top of them,
# then how many more (since 0.2.41: all 40), JSON all of them; --top 50 names all in the text
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/pnwide.zst traced pnwide $P/phasenames wide
expect_eq "40 phases active at the peak heap: the heading names 10, then 30 more; JSON and --top 50 all 40" \
	"$($REPORT $T/pnwide.zst 2>/dev/null | grep '^peak heap.*, during' | sed -E 's/.*, during //; s/w[0-9][0-9]/w/g')/$($REPORT --json $T/pnwide.zst 2>/dev/null | $PY -c 'import json,sys; d = json.load(sys.stdin)["peak_heap"]; print(d["bytes"], sorted(d["active_phases"]) == ["w%02d" % i for i in range(40)])')/$($REPORT --top 50 $T/pnwide.zst 2>/dev/null | grep '^peak heap.*, during' | grep -o 'w[0-9][0-9]' | sort -u | wc -l)" \
	"w + w + w + w + w + w + w + w + w + w + 30 more/$((4000000 + 8388608 + 12160)) True/40"
# and the trace says so (format version 8's LIMIT, since 0.2.34): the reader's one line, the
# JSON's tracer_limits (the moment within the run), the text's row (before, the trace said
# nothing: a report read later did not know that names were lost)
pn_ok=$($PY -c 'import json,sys; d = json.load(open(sys.argv[1])); l = d["tracer_limits"]; print(len(l) == 1 and l[0]["table"] == "phase_names" and 0 < l[0]["t_s"] <= d["duration_s"])' $T/pnmany.json)
expect_eq "phase names past 4,096: the trace says when the table filled (JSON, stderr, text)" \
	"$pn_ok/$(sed -E 's/ at [0-9]+\.[0-9]{3} s:/ at T s:/' $T/pnmany.rerr)/$($REPORT $T/pnmany.zst 2>/dev/null | grep '^tracer limits' | sed -E 's/ at [0-9]+\.[0-9]{3} s:/ at T s:/')" \
	"True/cuzktrace-report: warning: '$T/pnmany.zst': the tracer's table of 4096 phase names filled at T s: phase events of names new since then are not recorded/tracer limits         its table of 4096 phase names filled at T s: phase events of names new since then are not recorded"

# A thread that ends by the exit system call skips the tracer's destructor, which pops its
# phases: the reader ends them at its THREAD_EXIT (since 0.2.60: X stayed active to the end,
# and the main thread's later peak read "during X"). The worker's block stays X's.
CUZKTRACE_OUT=$T/rawphase.zst traced rawphase $P/rawphase
$REPORT --json $T/rawphase.zst >$T/rawphase.json 2>/dev/null
expect_eq "phase pushed by a thread ended by SYS_exit: ends with it (active under 0.1 s of 0.35), the peak heap during no phase, X owns its 1,000,000 bytes there" \
	"$(cat $T/rawphase.out)/$($PY -c 'import json,sys; j=json.load(open(sys.argv[1])); x=[p for p in j["phases"] if p["name"]=="X"][0]; print(x["active_s"] < 0.1, j["peak_heap"]["active_phases"], j["peak_heap"]["bytes"], x["at_peak_heap_bytes"])' $T/rawphase.json)" \
	"rawphase: done/True [] 3000304 1000000"

# A phase named `""` (two quote characters) is shown quoted once more, apart from the empty
# name's "" (since 0.2.60 both read "": two rows and two --diff entries under one name), and
# --phase-rule '""=...' reaches the empty one, as the report shows it
CUZKTRACE_OUT=$T/quotephase.zst traced quotephase $P/quotephase
expect_eq "phases named '' and '\"\"': rows \"\" and \"\"\"\" in the text, JSON names as stored; a rule naming \"\" adds to the empty one" \
	"$(cat $T/quotephase.out)/$($REPORT $T/quotephase.zst 2>/dev/null | sed -n '/^phase  /,/^$/p' | awk 'NR>1 && NF {print $1, $3, $4}' | tr '\n' '|')/$($REPORT --json $T/quotephase.zst 2>/dev/null | $PY -c 'import json,sys; print(" ".join("[%s]=%d" % (p["name"], p["allocated_bytes"]) for p in json.load(sys.stdin)["phases"]))')/$($REPORT --json --phase-rule '""=main' $T/quotephase.zst 2>/dev/null | $PY -c 'import json,sys; print(" ".join("[%s]=%d" % (p["name"], p["allocated_bytes"]) for p in json.load(sys.stdin)["phases"]))')" \
	'quotephase: done/"" 977 KiB|"""" 1.91 MiB|/[]=1000000 [""""]=2000000/[]=3000000 [""""]=0'
