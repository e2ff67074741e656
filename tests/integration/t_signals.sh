# A signal whose default action ends the process (since 0.2.28): the tracer holds the action,
# finishes the trace (END's reason "signal", end_signal its name), and the process ends as
# untraced: its status, the exit line naming the signal. Before, such a trace ended at its
# last flush and read as truncated (a short run's held no event). sigsetback: sigset's save
# and restore put the tracer's handler back without SA_SIGINFO (the program ran on, status
# 0); refix: another thread made the faulting page writable while the trace was finished,
# and the fault's instruction, run again, went through (the program ran on): the signal is
# sent again with its siginfo instead; smallalt: the tracer's SIGTERM handler ran on the
# program's 2 KiB alternate stack, too small for the frame (SIGSEGV; it runs on the thread's
# own stack now, faults' alone on the alternate one); during: another thread's _exit or abort
# while the trace was finished ended the process with its own status (0, 134), or the trace
# with its END. Signal 29 is named SIGIO, as kill -l and README name it (before 0.2.59
# glibc's alias SIGPOLL)
se_status() { # status of the program untraced, as the shell reports it
	timeout -s KILL 30 "$@" >/dev/null 2>&1
	echo $?
}
for se in "raise 15:143:SIGTERM" "raise 2:130:SIGINT" "raise 1:129:SIGHUP" "raise 3:131:SIGQUIT" \
	"raise 10:138:SIGUSR1" "raise 14:142:SIGALRM" "raise 29:157:SIGIO" "segv:139:SIGSEGV" "altsegv:139:SIGSEGV" "pipe:141:SIGPIPE" "threads:143:SIGTERM" \
	"sigsetback:139:SIGSEGV" "refix:139:SIGSEGV" "smallalt:143:SIGTERM" "during _exit:143:SIGTERM" \
	"during abort:143:SIGTERM"; do
	IFS=: read -r se_arg se_rc se_sig <<<"$se"
	se_u=$(se_status $P/sigend $se_arg)
	CUZKTRACE_OUT=$T/se.zst timeout -s KILL 30 env LD_PRELOAD=$LIB $P/sigend $se_arg >$T/se.out 2>$T/se.err
	echo $? >$T/se.rc
	$REPORT --json $T/se.zst >$T/se.json 2>$T/se.rerr
	expect_eq "signal ($se_arg): status $se_rc as untraced ($se_u), trace complete (END: signal $se_sig), 12 MiB live at the end, the exit line names it, the reader silent" \
		"$(cat $T/se.rc)/$(jget $T/se.json truncated)/$(jget $T/se.json end_reason)/$(jget $T/se.json end_signal)/$(($(jget $T/se.json live_at_exit.heap_bytes) >> 20))/$(grep -c ": [0-9]* events, peak heap .* written; the program ends by $se_sig\$" $T/se.err)/$(cat $T/se.rerr)" \
		"$se_u/false/signal/$se_sig/12/1/"
	[ "$se_arg" = "raise 15" ] && $REPORT $T/se.zst >$T/se15.txt 2>/dev/null
done
# a one-shot crash handler (SA_RESETHAND: LLVM's, backward-cpp's) that raises the signal
# again, or returns to the fault: the kernel's reset of the action let that end the process
# untraced, the trace truncated (7 cases of these 8); the tracer makes the reset, to its own
# handler. "look": the handler reads the action (the default, its flags kept) as untraced
for se in "term:signal:SIGTERM" "term nodefer:signal:SIGTERM" "segv:signal:SIGSEGV" \
	"segv nodefer look:signal:SIGSEGV" "abrt:abort:null" "abrt nodefer:abort:null" \
	"assert:abort:null" "assert nodefer look:abort:null" "term look:signal:SIGTERM"; do
	IFS=: read -r se_arg se_why se_sig <<<"$se"
	timeout -s KILL 30 $P/sigend oneshot $se_arg >$T/so.uout 2>/dev/null
	se_u=$?
	CUZKTRACE_OUT=$T/so.zst timeout -s KILL 30 env LD_PRELOAD=$LIB $P/sigend oneshot $se_arg >$T/so.out 2>$T/so.err
	echo $? >$T/so.rc
	$REPORT --json $T/so.zst >$T/so.json 2>$T/so.rerr
	expect_eq "one-shot handler ($se_arg): status and output as untraced ($se_u), the handler once, trace complete (END: $se_why $se_sig), 12 MiB live" \
		"$(cat $T/so.rc)/$(cmp -s $T/so.uout $T/so.out && echo same)/$(grep -c '^in the handler' $T/so.out)/$(jget $T/so.json truncated)/$(jget $T/so.json end_reason)/$(jget $T/so.json end_signal)/$(($(jget $T/so.json live_at_exit.heap_bytes) >> 20))/$(cat $T/so.rerr)" \
		"$se_u/same/1/false/$se_why/$se_sig/12/"
done
grep -q '^in the handler: SIG_DFL flags 0x[0-9a-f]* usr2 1$' $T/so.out
expect_eq "one-shot handler: it reads the default action, its flags and mask kept" "$?" 0

CUZKTRACE_OUT=$T/sr.zst timeout -s KILL 60 env LD_PRELOAD=$LIB $P/sigend oneshotrace >$T/sr.out 2>/dev/null
expect_eq "one-shot handler raised while another thread sets a plain one: one of them runs, the process lives (it was killed by the signal in under 300 of 3,000 rounds)" \
	"$?/$(cat $T/sr.out)" "0/lived"
# one-shot handlers against actions set before theirs ran: the handler the kernel delivered
# to runs (two one-shot installs in between took its slot back, and the newest ran), the
# reset is not made over an action set since (a fork child's plain handler was reset, and
# the next signal killed it), and siginterrupt's flag holds after the reset
# se_as_untraced LABEL ARGS...: sigend ARGS traced ends with status 0 and prints what it
# prints untraced
se_as_untraced() {
	local label=$1
	shift
	$P/sigend "$@" >$T/sp.uout 2>/dev/null
	CUZKTRACE_OUT=$T/sp.zst timeout -s KILL 60 env LD_PRELOAD=$LIB $P/sigend "$@" >$T/sp.out 2>/dev/null
	expect_eq "$label" "$?/$(tr '\n' '|' <$T/sp.out)" "0/$(tr '\n' '|' <$T/sp.uout)"
}
for a in "" child; do
	se_as_untraced "one-shot handler pending while others are set ($a): status 0, the same handlers run and actions read as untraced" \
		oncepending $a
done
# a one-shot handler set before a fork, siginterrupt by the parent or by the child: the
# child's reset kept the flags of the action as first set (SA_RESTART came back), and its read
# before the reset showed the parent's view
for a in parent child; do
	se_as_untraced "one-shot handler in a forked child, siginterrupt by the $a: status 0, the actions read as untraced" \
		onceflags $a
done
CUZKTRACE_OUT=$T/sv.zst traced sv $P/sigend vforkshot
expect_eq "one-shot handler: a vfork child's own action leaves the parent's handler to run (status 3, its line)" \
	"$(cat $T/sv.rc)/$(cat $T/sv.out)" "3/one-shot handler ran"

# the tracer's hooks of sigaction take a lock of their own: a child made while another
# thread held it spun for good in its first sigaction, every signal blocked (5 to 20
# children of 20 hung); fork's atfork handler frees it, and a child made without one (_Fork)
# finds the holder is not in its memory
for sk in fork _Fork; do
	CUZKTRACE_OUT=$T/sk.zst traced sk $P/forksig $sk 20
	expect_eq "a child made by $sk while another thread reads a signal's action: its own sigaction returns (status 0, no child hung)" \
		"$(cat $T/sk.rc)/$(cat $T/sk.out)" "0/0 of 20 children hung"
done

expect_eq "signal: the text report says how the process ended" \
	"$(grep '^duration' $T/se15.txt | sed 's/.*, //')" "ended by signal SIGTERM"

# from outside, as Ctrl-C and timeout send them (a background job of a shell without job
# control starts with SIGINT ignored: env gives it the default back, as a terminal's has);
# SIGABRT from another process is a signal, not the program's abort
for se in INT:130 TERM:143 HUP:129 ABRT:134; do
	IFS=: read -r se_sig se_rc <<<"$se"
	# (the last round's files gone first: on a loaded machine the wait below saw its "ready"
	# before this round's program had truncated the file, and the signal went early)
	rm -f $T/sw.zst $T/sw.out $T/sw.err
	CUZKTRACE_OUT=$T/sw.zst env --default-signal=INT LD_PRELOAD=$LIB $P/sigend wait >$T/sw.out 2>$T/sw.err &
	se_pid=$!
	for i in $(seq 200); do grep -q ready $T/sw.out 2>/dev/null && break; sleep 0.05; done
	kill -$se_sig $se_pid
	wait $se_pid
	se_got=$?
	$REPORT --json $T/sw.zst >$T/sw.json 2>$T/sw.rerr
	expect_eq "SIG$se_sig from another process: status $se_rc, trace complete (END: signal SIG$se_sig), 12 MiB live at the end" \
		"$se_got/$(jget $T/sw.json truncated)/$(jget $T/sw.json end_reason)/$(jget $T/sw.json end_signal)/$(jget $T/sw.json live_at_exit.heap_bytes)/$(cat $T/sw.rerr)" \
		"$se_rc/false/signal/SIG$se_sig/12582912/"
done

# the program's own handler runs as untraced (its _exit finishes the trace); a forked child's
# signal ends the child alone, the parent's trace untouched
CUZKTRACE_OUT=$T/sh.zst traced sh $P/sigend handler
$REPORT --json $T/sh.zst >$T/sh.json 2>/dev/null
expect_eq "a SIGTERM handler of the program's: it runs (status 5, its line), the trace ends by its _exit" \
	"$(cat $T/sh.rc)/$(grep -c '^sigend: handled$' $T/sh.err)/$(jget $T/sh.json truncated)/$(jget $T/sh.json end_reason)/$(jget $T/sh.json end_signal)" \
	"5/1/false/exit/null"
CUZKTRACE_OUT=$T/sf.zst traced sf $P/sigend fork
$REPORT --json $T/sf.zst >$T/sf.json 2>/dev/null
expect_eq "a forked child's SIGTERM: the child ends by it, the parent's trace ends by its exit, one exit line" \
	"$(cat $T/sf.rc)/$(cat $T/sf.out)/$(jget $T/sf.json truncated)/$(jget $T/sf.json end_reason)/$(grep -c ' events, peak heap ' $T/sf.err)" \
	"0/child: signal 15/false/exit/1"

# what the program reads back of the actions it set is what it reads untraced: the default
# (its flags and mask as it set them, a flag the kernel does not know cleared), the returns
# of signal, sigset (SIG_HOLD too), ssignal, sysv_signal, __sigaction, siginterrupt's flags,
# SIG_IGN kept, and a vfork child's own action not seen by the parent
$P/sigend view >$T/sv.u 2>&1
CUZKTRACE_OUT=$T/sv.zst traced sv $P/sigend view
expect_eq "the actions the program reads back, as untraced (status 0, the same lines)" \
	"$(cat $T/sv.rc)/$(diff $T/sv.u $T/sv.out)/$(wc -l <$T/sv.out)" "0//26"
# a thread sets a handler while another sets the default: one call's effect was lost (the
# tracer took the default over after the handler came: 1769 times in 100,000)
CUZKTRACE_OUT=$T/sr.zst traced sr $P/sigend race
expect_eq "sigaction on two threads at once: no outcome that no order of the calls gives" \
	"$(cat $T/sr.rc)/$(cat $T/sr.out)" "0/impossible outcomes: 0"

# CUZKTRACE_SIGNALS=0: the actions stay the program's; the trace ends at its last flush
CUZKTRACE_SIGNALS=0 CUZKTRACE_OUT=$T/s0.zst traced s0 $P/sigend raise 15
$REPORT --json $T/s0.zst >$T/s0.json 2>/dev/null
expect_eq "CUZKTRACE_SIGNALS=0: status 143, the trace truncated, no exit line" \
	"$(cat $T/s0.rc)/$(jget $T/s0.json truncated)/$(grep -c ' events, peak heap ' $T/s0.err)" "143/true/0"
CUZKTRACE_SIGNALS=maybe CUZKTRACE_OUT=$T/sb.zst traced sb $P/sigend raise 15
expect_eq "CUZKTRACE_SIGNALS=maybe: one line, the default kept (the trace complete)" \
	"$(grep -c "CUZKTRACE_SIGNALS" $T/sb.err)/$(grep "CUZKTRACE_SIGNALS" $T/sb.err)/$(cat $T/sb.rc)/$($REPORT --json $T/sb.zst 2>/dev/null | grep -c '"end_signal": "SIGTERM"')" \
	"1/cuzktrace: warning: invalid CUZKTRACE_SIGNALS='maybe' (expected 0, 1, yes, no, true or false); using the default 1/143/1"

# Python at Ctrl-C: KeyboardInterrupt, its cleanup, then SIGINT to itself with the default
# action back (status 130): the trace ended at its last flush and read as truncated. Python
# installs its handler only where SIGINT is not ignored at its start, as it is under a shell
# that runs the suite in the background: installed here by hand
if [ -x /usr/bin/python3 ]; then
	CUZKTRACE_OUT=$T/spy.zst traced spy /usr/bin/python3 -c 'import os, signal
signal.signal(signal.SIGINT, signal.default_int_handler)
keep = bytearray(12 << 20)
os.kill(os.getpid(), signal.SIGINT)'
	$REPORT --json $T/spy.zst >$T/spy.json 2>/dev/null
	expect_eq "Python at SIGINT: KeyboardInterrupt, status 130, the trace complete (END: signal SIGINT)" \
		"$(grep -c '^KeyboardInterrupt' $T/spy.err)/$(cat $T/spy.rc)/$(jget $T/spy.json truncated)/$(jget $T/spy.json end_signal)" \
		"1/130/false/SIGINT"
fi

# Rust: std's handler of SIGSEGV (it watches for stack overflows) takes a fault that is not
# one, sets the default back and returns; the fault comes again, to the tracer's handler
if command -v rustc >/dev/null 2>&1; then
	cat >$T/rsegv.rs <<'RSEOF'
use std::hint::black_box;
fn main() {
    let params: Vec<u8> = black_box(vec![1; 12 << 20]);
    let p: *mut u8 = black_box(std::ptr::null_mut());
    unsafe { p.write_volatile(params[0]) };
}
RSEOF
	rust_traced rsegv
	rs_live=$(jget $T/rsegv.json live_at_exit.heap_bytes)
	expect_eq "Rust: a null write, status 139, the trace complete (END: signal SIGSEGV), the 12 MiB Vec live at the end (and std's few blocks of its start)" \
		"$(cat $T/rsegv.rc)/$(jget $T/rsegv.json truncated)/$(jget $T/rsegv.json end_signal)/$((rs_live >= 12582912 && rs_live < 12582912 + 4096))" \
		"139/false/SIGSEGV/1"
fi

# the first process of a pid namespace: the kernel ignores a signal whose action is the
# default there (SIGTERM to a container's pid 1); the tracer holds only its faults, so the
# program runs on as untraced (a handler let SIGTERM in: the trace ended, the program went on)
if unshare -fp --mount-proc true 2>/dev/null; then
	p1_u=$(se_status unshare -fp --mount-proc $P/sigend raise 15)
	CUZKTRACE_OUT=$T/p1.zst timeout -s KILL 30 unshare -fp --mount-proc env LD_PRELOAD=$LIB $P/sigend raise 15 >/dev/null 2>$T/p1.err
	p1_rc=$?
	$REPORT --json $T/p1.zst >$T/p1.json 2>/dev/null
	expect_eq "pid 1 of a namespace raises SIGTERM: ignored as untraced (status $p1_u), the trace ends by its exit" \
		"$p1_rc/$(jget $T/p1.json truncated)/$(jget $T/p1.json end_reason)" "3/false/exit"
	p1_u=$(se_status unshare -fp --mount-proc $P/sigend segv)
	CUZKTRACE_OUT=$T/p1s.zst timeout -s KILL 30 unshare -fp --mount-proc env LD_PRELOAD=$LIB $P/sigend segv >/dev/null 2>$T/p1s.err
	p1_rc=$?
	$REPORT --json $T/p1s.zst >$T/p1s.json 2>/dev/null
	expect_eq "pid 1 of a namespace faults: SIGSEGV as untraced (status $p1_u), the trace complete (END: signal SIGSEGV)" \
		"$p1_rc/$(jget $T/p1s.json truncated)/$(jget $T/p1s.json end_signal)" "$p1_u/false/SIGSEGV"
else
	echo "  skip pid 1 of a namespace: unshare -p is not allowed here"
fi
