# The tracer never fails silently and never changes the program's output or exit status.
$P/exitcode >$T/plain.out 2>$T/plain.err
plain_rc=$?

CUZKTRACE_OUT=/nonexistent-dir/t.zst traced nodir $P/exitcode
expect_eq "unwritable: output unchanged" "$(cat $T/nodir.out)" "$(cat $T/plain.out)"
expect_eq "unwritable: exit status unchanged" "$(cat $T/nodir.rc)" "$plain_rc"
expect_eq "unwritable: one error line" "$(cat $T/nodir.err)" \
	"cuzktrace: error: cannot trace to '/nonexistent-dir/t.zst': No such file or directory; running untraced"

mkdir -p $T/adir
CUZKTRACE_OUT=$T/adir traced isdir $P/exitcode
expect_eq "directory as path: one error line" "$(cat $T/isdir.err)" \
	"cuzktrace: error: cannot trace to '$T/adir': Is a directory; running untraced"
expect_eq "directory as path: exit status unchanged" "$(cat $T/isdir.rc)" "$plain_rc"
# a name ending in '/': the kernel refuses it with EISDIR whether the directory is there or
# not; one that is not there is said to be missing (it said "Is a directory" before 0.2.44)
CUZKTRACE_OUT=$T/nosuchdir/ traced slashdir $P/exitcode
echo x >$T/plainfile
CUZKTRACE_OUT=$T/plainfile/ traced slashfile $P/exitcode
CUZKTRACE_OUT=$T/adir/ traced slashisdir $P/exitcode
expect_eq "a name ending in '/': the missing directory, a file, an existing directory each said as they are" \
	"$(cat $T/slashdir.err)|$(cat $T/slashfile.err)|$(cat $T/slashisdir.err)|$(cat $T/slashdir.rc)" \
	"cuzktrace: error: cannot trace to '$T/nosuchdir/': No such file or directory; running untraced|cuzktrace: error: cannot trace to '$T/plainfile/': Not a directory; running untraced|cuzktrace: error: cannot trace to '$T/adir/': Is a directory; running untraced|$plain_rc"

echo keep >$T/target
ln -s $T/target $T/link.zst
CUZKTRACE_OUT=$T/link.zst traced symlink $P/exitcode
expect_eq "symlink: refused with one line" "$(cat $T/symlink.err)" \
	"cuzktrace: error: cannot trace to '$T/link.zst': it is a symbolic link; refusing to follow it; running untraced"
expect_eq "symlink: target untouched" "$(cat $T/target)" keep
# a loop of links among the directories: the kernel's reason (it was called a link the tracer
# would not follow, the last component being no link at all)
ln -s $T/loop2 $T/loop1 && ln -s $T/loop1 $T/loop2
CUZKTRACE_OUT=$T/loop1/x.zst traced linkloop $P/exitcode
expect_eq "a loop of symbolic links in the directory: the kernel's reason, exit status unchanged" \
	"$(cat $T/linkloop.err)/$(cat $T/linkloop.rc)" \
	"cuzktrace: error: cannot trace to '$T/loop1/x.zst': Too many levels of symbolic links; running untraced/$plain_rc"

# a FIFO: opening it for writing must not wait for a reader (before main, forever)
mkfifo $T/fifo
timeout 20 env LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fifo $P/exitcode >$T/fifo.out 2>$T/fifo.err
expect_eq "FIFO as path: no hang, exit status unchanged" "$?" "$plain_rc"
expect_eq "FIFO as path: one error line" "$(cat $T/fifo.err)" \
	"cuzktrace: error: cannot trace to '$T/fifo': not a regular file; running untraced"

# a file-size limit below the header: the header is written on the program's own thread,
# where SIGXFSZ would kill it; one line instead, and no empty file left behind
# (output through pipes: under the limit the shell cannot write files either)
fsz0=$( (ulimit -f 0; LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fsz0.zst $P/exitcode >/dev/null; echo "status $?" >&2) 2>&1)
expect_eq "file-size limit 0: one error line, exit status unchanged" "$fsz0" \
	"cuzktrace: error: cannot trace to '$T/fsz0.zst': File too large; running untraced
status $plain_rc"
expect_eq "file-size limit 0: the file it created is removed" "$(ls $T/fsz0.zst 2>&1 >/dev/null | wc -l)" 1
# the same over an existing file (an earlier run's trace): the failed setup leaves it as it was
LD_PRELOAD=$LIB CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null 2>&1
cp $T/fszkeep.zst $T/fszkeep.before
fszk=$( (ulimit -f 0; LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null; echo "status $?" >&2) 2>&1)
expect_eq "file-size limit 0, existing file: one error line" "$fszk" \
	"cuzktrace: error: cannot trace to '$T/fszkeep.zst': File too large; running untraced
status $plain_rc"
expect_eq "file-size limit 0, existing file: its contents are kept" "$(cmp $T/fszkeep.zst $T/fszkeep.before && echo same)" "same"
# a full disk while the header is written over an earlier run's trace (20 KB of arguments that
# do not compress: a header of several pages, of which the disk takes one): the file is left
# empty, which the reader calls an empty file (it kept the page written, and the reader took it
# for a process killed while writing its header)
mkdir -p $T/hfull
if unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs $T/hfull" 2>/dev/null; then
	unshare -m sh -c "mount -t tmpfs -o size=1m tmpfs $T/hfull &&
		{ CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/hfull/h.zst LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>&1
		dd if=/dev/zero of=$T/hfull/fill bs=4k 2>/dev/null; true; } &&
		CUZKTRACE_OUT=$T/hfull/h.zst LD_PRELOAD=$LIB $P/exitcode \"\$(head -c 15000 /dev/urandom | base64 -w0)\" >/dev/null 2>$T/hfull.err
		echo \$? >$T/hfull.rc; wc -c <$T/hfull/h.zst >$T/hfull.size
		$REPORT $T/hfull/h.zst >/dev/null 2>$T/hfull.rerr; echo \$? >>$T/hfull.rc"
	expect_eq "full disk while the header is written over an earlier trace: one line, the program's status, the file left empty, the reader says so" \
		"$(cat $T/hfull.err)/$(cat $T/hfull.rc | tr '\n' ' ')/$(cat $T/hfull.size)/$(cat $T/hfull.rerr)" \
		"cuzktrace: error: cannot trace to '$T/hfull/h.zst': No space left on device; running untraced/$plain_rc 1 /0/cuzktrace-report: error: '$T/hfull/h.zst': empty file"
else
	echo "  skip a full disk under the header: cannot mount a tmpfs in a new mount namespace"
fi

# An existing file is written over only when it is empty or a trace (since 0.2.20): a library
# the program has mapped (truncated, the program died of SIGBUS with no line), a text file, a
# zstd file of something else, a file of /proc (/proc/self/comm took the trace's first bytes
# as the process's name) are left as they were, one line each, the program running untraced.
# Nor the program's standard output or error (the trace was overwritten by the output, the
# path announced holding no trace): also when appended to.
cp $P/libcxxplug.so $T/keep.so
printf 'notes\n' >$T/keep.txt
printf 'data\n' | zstd -q -c >$T/keep.other.zst
head -c 3000000 /dev/urandom | zstd -q -c >$T/keep.big.zst
# a frame that decodes to a trace's header but needs a 128 MiB window (zstd --long=27): not
# a trace (the tracer's header frames need 128 KiB at most; the check does not map more than
# 1 MiB to look)
(zstd -dc $T/fszkeep.before; head -c 3000000 /dev/urandom) | zstd -q --long=27 -c >$T/keep.window.zst
for f in keep.so keep.txt keep.other.zst keep.big.zst keep.window.zst; do
	cp $T/$f $T/$f.before
	CUZKTRACE_OUT=$T/$f traced keep_$f $P/exitcode
	expect_eq "existing file not a trace ($f): one line, exit status unchanged, the file as it was" \
		"$(cat $T/keep_$f.err)/$(cat $T/keep_$f.rc)/$(cmp $T/$f $T/$f.before && echo same)" \
		"cuzktrace: error: cannot trace to '$T/$f': the file exists and is not a cuzktrace trace; it is left as it was (remove it, or name another file); running untraced/$plain_rc/same"
done
comm_out=$(CUZKTRACE_OUT=/proc/self/comm LD_PRELOAD=$LIB cat /proc/self/comm 2>$T/keep_comm.err)
expect_eq "CUZKTRACE_OUT=/proc/self/comm: refused, one line, the process's name unchanged" \
	"$comm_out/$(cat $T/keep_comm.err)" \
	"cat/cuzktrace: error: cannot trace to '/proc/self/comm': a file of the kernel's (/proc, /sys), not one for a trace; it is left as it was; running untraced"
# ... and a read-only one of /sys, which cannot be opened for writing (since 0.2.51: said as
# "Permission denied"); not run where this machine has no such file
sysf=/sys/kernel/address_bits
if [ -f $sysf ]; then
	CUZKTRACE_OUT=$sysf LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/keep_sys.err
	expect_eq "CUZKTRACE_OUT a /sys file: refused as the kernel's, one line" "$(cat $T/keep_sys.err)" \
		"cuzktrace: error: cannot trace to '$sysf': a file of the kernel's (/proc, /sys), not one for a trace; it is left as it was; running untraced"
fi
CUZKTRACE_OUT=$T/keep_err.zst LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/keep_err.zst
expect_eq "CUZKTRACE_OUT is the program's standard error: refused, the line in that file" "$(cat $T/keep_err.zst)" \
	"cuzktrace: error: cannot trace to '$T/keep_err.zst': it is also the program's standard error, which would overwrite the trace; running untraced"
: >$T/keep_out.zst
CUZKTRACE_OUT=$T/keep_out.zst LD_PRELOAD=$LIB $P/exitcode >>$T/keep_out.zst 2>$T/keep_out.err
expect_eq "CUZKTRACE_OUT is the program's standard output (appended to): refused, one line" "$(cat $T/keep_out.err)" \
	"cuzktrace: error: cannot trace to '$T/keep_out.zst': it is also the program's standard output, which would overwrite the trace; running untraced"
# a rerun over its own trace with standard input or output closed: the file opened takes that
# number, and is not the program's (it was refused as its standard input); a trace the program
# has open otherwise (3<) is refused, naming the descriptor
for c in "<&- >/dev/null" ">&-"; do
	eval "LD_PRELOAD=\$LIB CUZKTRACE_OUT=\$T/fszkeep.zst \$P/exitcode 2>\$T/keep_closed.err $c"
	expect_eq "a rerun over an earlier trace with $c: traced" \
		"$(grep -c "^cuzktrace: tracing exitcode (pid [0-9]*) to $T/fszkeep.zst$" $T/keep_closed.err)/$(grep -c error $T/keep_closed.err)" "1/0"
done
LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null 2>$T/keep_fd3.err 3<$T/fszkeep.zst
expect_eq "a trace the program has open as descriptor 3: refused, one line" "$(cat $T/keep_fd3.err)" \
	"cuzktrace: error: cannot trace to '$T/fszkeep.zst': the program has it open already, as descriptor 3; running untraced"
# ... as descriptor 1023, the last the check looks at: found among the open ones that
# /proc/self/fd lists (since 0.2.61; each of 0 to 1023 was tried), and without /proc by trying
# each number
LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null 2>$T/keep_fd1023.err 1023<$T/fszkeep.zst
expect_eq "a trace the program has open as descriptor 1023: refused, one line" "$(cat $T/keep_fd1023.err)" \
	"cuzktrace: error: cannot trace to '$T/fszkeep.zst': the program has it open already, as descriptor 1023; running untraced"
if noproc true; then
	noproc env LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null 2>$T/keep_fdnp.err 1023<$T/fszkeep.zst
	expect_eq "the same without /proc: refused, one line" "$(cat $T/keep_fdnp.err)" \
		"cuzktrace: error: cannot trace to '$T/fszkeep.zst': the program has it open already, as descriptor 1023; running untraced"
else
	echo "  skip descriptor 1023 without /proc: no mount namespace here"
fi
LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/fszkeep.zst $P/exitcode >/dev/null 2>$T/keep_in.err <$T/fszkeep.zst
expect_eq "a trace that is the program's standard input: refused, one line" "$(cat $T/keep_in.err)" \
	"cuzktrace: error: cannot trace to '$T/fszkeep.zst': it is also the program's standard input; running untraced"
# an earlier trace, an empty file and one cut in its header's frame are written over
LD_PRELOAD=$LIB CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/keep_cut.zst $P/exitcode >/dev/null 2>&1
head -c 20 $T/keep_cut.zst >$T/keep_cut.tmp && mv $T/keep_cut.tmp $T/keep_cut.zst
: >$T/keep_empty.zst
for f in fszkeep keep_cut keep_empty; do
	LD_PRELOAD=$LIB CUZKTRACE_OUT=$T/$f.zst $P/exitcode >/dev/null 2>$T/keep_over.err
	expect_eq "an existing $f trace is written over" "$(sed -n 1p $T/keep_over.err)/$($REPORT --json $T/$f.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["truncated"])')" \
		"cuzktrace: tracing exitcode (pid $(sed -n 's/.*(pid \([0-9]*\)).*/\1/p' $T/keep_over.err | head -1)) to $T/$f.zst/False"
done

CUZKTRACE_STRICT=1 CUZKTRACE_OUT=/nonexistent-dir/t.zst traced strict $P/exitcode
expect_eq "strict: exit status 70" "$(cat $T/strict.rc)" 70
expect_eq "strict: the program did not run" "$(cat $T/strict.out)" ""
expect_eq "strict: one error line" "$(cat $T/strict.err)" \
	"cuzktrace: error: cannot trace to '/nonexistent-dir/t.zst': No such file or directory; exiting (CUZKTRACE_STRICT=1)"

CUZKTRACE_FLUSH_MS=abc CUZKTRACE_RSS_MS=-5 CUZKTRACE_OUT=$T/badenv.zst traced badenv $P/exitcode
expect_eq "invalid settings: one line each, naming the default" "$(head -2 $T/badenv.err)" \
"cuzktrace: warning: invalid CUZKTRACE_FLUSH_MS='abc' (expected 1..60000 milliseconds); using the default 100
cuzktrace: warning: invalid CUZKTRACE_RSS_MS='-5' (expected 0..60000 milliseconds, 0 = off); using the default 10"
expect_match "invalid settings: tracing goes on" "$(sed -n 3p $T/badenv.err)" "^cuzktrace: tracing exitcode"
expect_eq "invalid settings: exit status unchanged" "$(cat $T/badenv.rc)" "$plain_rc"

# every other setting: an invalid value gets its one line, and the default is what the trace
# records (the header's setting.*)
mkdir -p $T/badset
for kv in "SAMPLE=x|expected 0..1073741824 bytes, 0 = record every event|524288" \
	"SAMPLE=1073741825|expected 0..1073741824 bytes, 0 = record every event|524288" \
	"DEPTH=999|expected 0..256 frames, 0 = no stacks|64" "DEPTH=-1|expected 0..256 frames, 0 = no stacks|64" \
	"ZSTD_LEVEL=50|expected 1..19|1" "ZSTD_LEVEL=0|expected 1..19|1" \
	"STRICT=2|expected 0, 1, yes, no, true or false|0"; do
	IFS='|' read -r setv why dflt <<<"$kv"
	name=${setv%%=*} val=${setv#*=}
	env "CUZKTRACE_$name=$val" CUZKTRACE_OUT=$T/badset/t.zst LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/badset.err
	rc=$?
	$REPORT --json $T/badset/t.zst >$T/badset.json 2>/dev/null
	expect_eq "invalid CUZKTRACE_$name='$val': one line naming the default, the trace records the default, status unchanged" \
		"$(head -1 $T/badset.err)/$(grep -c warning $T/badset.err)/$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["header"]["setting.CUZKTRACE_" + sys.argv[2]])' $T/badset.json $name)/$rc" \
		"cuzktrace: warning: invalid CUZKTRACE_$name='$val' ($why); using the default $dflt/1/$dflt/$plain_rc"
done
# an empty CUZKTRACE_OUT: the default name, in the current directory
mkdir -p $T/emptyout
(cd $T/emptyout && CUZKTRACE_OUT= LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/emptyout.err)
expect_eq "invalid CUZKTRACE_OUT='': one line, the default name used" \
	"$(head -1 $T/emptyout.err)/$(ls $T/emptyout | sed -E 's/[0-9]+/PID/')" \
	"cuzktrace: warning: invalid CUZKTRACE_OUT='' (expected a file path); using the default cuzktrace.%e.%p.zst/cuzktrace.exitcode.PID.zst"
# "-": the default name, not a file called "-" (before 0.2.62), which `cuzktrace-report -` does not read
mkdir -p $T/dashout
(cd $T/dashout && CUZKTRACE_OUT=- LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/dashout.err)
expect_eq "CUZKTRACE_OUT=-: one line, the default name used" \
	"$(head -1 $T/dashout.err)/$(grep -c warning $T/dashout.err)/$(ls $T/dashout | sed -E 's/[0-9]+/PID/')" \
	"cuzktrace: warning: invalid CUZKTRACE_OUT='-' (expected a file path; a trace is not written to standard output: ./- names a file '-'); using the default cuzktrace.%e.%p.zst/1/cuzktrace.exitcode.PID.zst"
(cd $T/dashout && CUZKTRACE_OUT=./- LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/dashout2.err)
expect_eq "CUZKTRACE_OUT=./-: the file '-', no warning" \
	"$(grep -c warning $T/dashout2.err)/$(test -s $T/dashout/- && echo written)" "0/written"
long_out=$(printf '%04032d' 0)
mkdir -p $T/longout && (cd $T/longout && CUZKTRACE_OUT=$long_out LD_PRELOAD=$LIB $P/exitcode 0 >/dev/null 2>$T/longout.err)
expect_eq "CUZKTRACE_OUT of 4032 characters: one line saying how long it may be, the default used" \
	"$(sed -n 1p $T/longout.err)/$(grep -c '^cuzktrace: tracing ' $T/longout.err)" \
	"cuzktrace: warning: invalid CUZKTRACE_OUT='<the value, too long>' (expected a file path of at most 4031 characters); using the default cuzktrace.%e.%p.zst/1"

# a path of 4,000 bytes: the line keeps its start and end, and the reason after it
long=/nonexistent-dir/$(printf 'a%.0s' $(seq 3983))
CUZKTRACE_OUT=$long traced longpath $P/exitcode
expect_eq "4,000-byte path: one line, the path's middle elided, the reason kept" "$(cat $T/longpath.err)" \
	"cuzktrace: error: cannot trace to '${long:0:150}...${long: -240}': No such file or directory; running untraced"

# a path with a line break, an escape sequence and a C1 control (CSI): the init and exit lines
# and a failure line stay one line each, those bytes shown as '?'; the file has the real name
evil="$T/ev"$'\n'"il"$'\e'"[2J"$'\xc2\x9b'"x.zst"
CUZKTRACE_OUT="$evil" traced evilout $P/exitcode
$REPORT --json "$evil" >$T/evilout.json 2>/dev/null
CUZKTRACE_OUT="$T/nodir/a"$'\n'"b.zst" traced evilno $P/exitcode
expect_eq "a path with control characters: init and exit lines one line each, shown with '?'; the trace complete under the real name" \
	"$(wc -l <$T/evilout.err)/$(sed -E "s|$T|T|; s/[0-9]+/N/g" $T/evilout.err | sed "s|, [^,]* written\$|, X written|" | tr '\n' '|')/$(jget $T/evilout.json truncated)/$(cat $T/evilno.err | sed "s|$T|T|")" \
	"2/cuzktrace: tracing exitcode (pid N) to T/ev?il?[NJ?x.zst|cuzktrace: T/ev?il?[NJ?x.zst: N events, peak heap N.N KiB, peak RSS N.N MiB, X written|/false/cuzktrace: error: cannot trace to 'T/nodir/a?b.zst': No such file or directory; running untraced"

CUZKTRACE_QUIET=maybe CUZKTRACE_OUT=$T/badbool.zst traced badbool $P/exitcode
expect_eq "invalid yes/no setting: the line names every accepted value" "$(head -1 $T/badbool.err)" \
	"cuzktrace: warning: invalid CUZKTRACE_QUIET='maybe' (expected 0, 1, yes, no, true or false); using the default 0"

CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/quiet.zst traced quiet $P/exitcode
expect_match "quiet: only the init line" "$(cat $T/quiet.err)" "^cuzktrace: tracing exitcode \(pid [0-9]+\) to $T/quiet.zst\$"

mkdir -p $T/cwd
(umask 000; cd $T/cwd && LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/default.err)
pid=$(sed -E 's/.*\(pid ([0-9]+)\).*/\1/;q' $T/default.err)
expect_eq "default path: cuzktrace.<exe>.<pid>.zst in the current directory" \
	"$(head -1 $T/default.err)" "cuzktrace: tracing exitcode (pid $pid) to $T/cwd/cuzktrace.exitcode.$pid.zst"
expect_eq "default path: file exists" "$(ls $T/cwd)" "cuzktrace.exitcode.$pid.zst"
expect_eq "default path: not world-writable even under umask 000" "$(( 8#$(stat -c %a $T/cwd/cuzktrace.exitcode.$pid.zst) & 2 ))" 0

CUZKTRACE_OUT=$T/exp.%e.%p.zst traced expand $P/exitcode
pid=$(sed -E 's/.*\(pid ([0-9]+)\).*/\1/;q' $T/expand.err)
expect_eq "%e and %p expand" "$(head -1 $T/expand.err)" "cuzktrace: tracing exitcode (pid $pid) to $T/exp.exitcode.$pid.zst"

# An executable name too long for a file name with the default's additions: %e inserts its
# first 128 bytes, cut at a character boundary (before 0.2.16 the default file name passed 255
# bytes and the program ran untraced).
a128=$(printf 'a%.0s' $(seq 1 128)); b127=$(printf 'b%.0s' $(seq 1 127))
mkdir -p $T/longexe
cp $P/exitcode "$T/longexe/${a128}$(printf 'a%.0s' $(seq 1 112))"
cp $P/exitcode "$T/longexe/${b127}é$(printf 'c%.0s' $(seq 1 100))"
for f in $T/longexe/aaa* $T/longexe/bbb*; do
	(cd $T/longexe && LD_PRELOAD=$LIB "$f" >/dev/null 2>>$T/longexe.err)
done
pids=$(sed -E 's/.*\(pid ([0-9]+)\) to.*/\1/;t;d' $T/longexe.err | tr '\n' ' ')
set -- $pids
expect_eq "a 240-byte executable name: default file name of its first 128 bytes" \
	"$(cd $T/longexe && ls cuzktrace.* | sort)" "$(printf '%s\n' cuzktrace.$a128.$1.zst cuzktrace.$b127.$2.zst | sort)"
expect_eq "long executable name: the init line names the file written, the program by its whole name" \
	"$(grep -c "^cuzktrace: tracing ${a128}a.* to $T/longexe/cuzktrace.$a128.$1.zst\$" $T/longexe.err)" 1

# Two live processes given the same file: the second falls back to a per-pid name.
CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/shared.zst LD_PRELOAD=$LIB $P/killed >$T/holder.out 2>$T/holder.err &
holder=$!
for i in $(seq 100); do grep -q ready $T/holder.out 2>/dev/null && break; sleep 0.05; done
CUZKTRACE_OUT=$T/shared.zst traced second $P/exitcode
wait_peak_heap $T/shared.zst 50000000
kill -9 $holder; wait $holder 2>/dev/null
pid=$(sed -E 's/.*\(pid ([0-9]+)\).*/\1/;q' <(grep tracing $T/second.err))
expect_eq "shared path: warning names both files" "$(head -1 $T/second.err)" \
	"cuzktrace: warning: '$T/shared.zst' is being written by another live process; using '$T/shared.$pid.zst'"
expect_eq "shared path: announces the name used" "$(sed -n 2p $T/second.err)" "cuzktrace: tracing exitcode (pid $pid) to $T/shared.$pid.zst"
$REPORT --json $T/shared.$pid.zst >$T/second.json 2>/dev/null
expect_eq "shared path: second trace complete" "$(jget $T/second.json truncated)" false
$REPORT --json $T/shared.zst >$T/holder.json 2>/dev/null
expect_eq "shared path: first trace intact (50,000,000 bytes live)" "$(jget $T/holder.json live_at_exit.heap_bytes)" 50000000

# The same with a name of 252 bytes (124 two-byte characters and .zst): the per-pid name gives
# up the end of the name before its tag, between characters, to stay within 255 bytes (before
# 0.2.62 it was refused, "File name too long", and the child ran untraced)
mkdir -p $T/longpp
long_pp=$(printf 'é%.0s' $(seq 124))
(cd $T/longpp && CUZKTRACE_OUT=$long_pp.zst LD_PRELOAD=$LIB sh -c "$P/exitcode 3" >/dev/null 2>$T/longpp.err)
pid=$(sed -E 's/.*tracing exitcode \(pid ([0-9]+)\).*/\1/;t;d' $T/longpp.err)
pp_name=$($PY -c '
import sys
stem, tag = sys.argv[1].encode(), ("." + sys.argv[2] + ".zst").encode()
k = 255 - len(tag)
while k > 0 and (stem[k] & 0xc0) == 0x80: k -= 1
print((stem[:k] + tag).decode())' "$long_pp" "$pid")
expect_eq "a 252-byte name: the per-pid name is cut to 255 bytes between characters, named once and written" \
	"$(grep -c "^cuzktrace: warning: '$T/longpp/$long_pp.zst' is being written by another live process; using '$T/longpp/$pp_name'\$" $T/longpp.err)/$(grep -c "^cuzktrace: tracing exitcode (pid $pid) to $T/longpp/$pp_name\$" $T/longpp.err)/$(grep -c error $T/longpp.err)/$($REPORT --json $T/longpp/$pp_name >$T/longpp.json 2>/dev/null; jget $T/longpp.json end_reason)" \
	"1/1/0/exit"

# A full disk: writes fail with EFBIG past a 256 KiB file-size limit; tracing stops with one
# line, the program runs on and keeps its exit status.
(ulimit -f 256; trap '' XFSZ; CUZKTRACE_OUT=$T/full.zst LD_PRELOAD=$LIB $P/churn 1500 >$T/full.out 2>$T/full.err; echo $? >$T/full.rc)
expect_eq "disk full: program exit status unchanged" "$(cat $T/full.rc)" 0
expect_eq "disk full: one error line after the init line" "$(sed -n 2p $T/full.err)" \
	"cuzktrace: error: cannot write trace '$T/full.zst': File too large; tracing stopped, the program continues"
expect_eq "disk full: no exit line claiming a whole trace" "$(wc -l <$T/full.err)" 2
$REPORT --json $T/full.zst >$T/full.json 2>$T/full.rerr
expect_eq "disk full: reader still reads what was written" "$(jget $T/full.json truncated)" true

# killed before the writer's first flush: the file holds the header alone; the report's zeros
# read as a program that used no memory, with only the truncation line; now one line more
# (killed once the header is there, up to 5 s)
(CUZKTRACE_FLUSH_MS=10000 CUZKTRACE_OUT=$T/noev.zst LD_PRELOAD=$LIB sleep 5 2>/dev/null & ne_pid=$!
 for _ in $(seq 100); do [ -s $T/noev.zst ] && break; sleep 0.05; done; sleep 0.1; kill -9 $ne_pid; wait $ne_pid 2>/dev/null)
$REPORT $T/noev.zst >/dev/null 2>$T/noev.rerr
expect_eq "killed before the first flush: exit 0, the truncation line and the line that the trace holds no event" \
	"$?/$(sed 's/covers [0-9.]* s/covers N s/' $T/noev.rerr | tr '\n' '|')" \
	"0/cuzktrace-report: warning: '$T/noev.zst': trace is truncated (no end record); it covers N s|cuzktrace-report: warning: '$T/noev.zst': the trace holds no event (the process was killed, or its tracing stopped, before the first flush): its figures are not the program's|"

# A trace read while its process still runs (it holds the file's lock): the truncation line
# says so (since 0.2.20; it read as a killed process's); once the process has ended, whole
(CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/live.zst LD_PRELOAD=$LIB sleep 2 2>/dev/null & lv_pid=$!
 for _ in $(seq 100); do [ -s $T/live.zst ] && break; sleep 0.05; done; sleep 0.1
 $REPORT $T/live.zst >/dev/null 2>$T/live.rerr; echo $? >$T/live.rc; wait $lv_pid)
$REPORT --json $T/live.zst >$T/live.json 2>$T/live.rerr2
expect_eq "a trace read while it is written: the truncation line says a process is still writing it; complete once it ended" \
	"$(cat $T/live.rc)/$(sed 's/covers [0-9.]* s/covers N s/' $T/live.rerr)/$(jget $T/live.json truncated)/$(cat $T/live.rerr2)" \
	"0/cuzktrace-report: warning: '$T/live.zst': trace is truncated (no end record: a process is still writing it); it covers N s/false/"
# ... and is read as it was when the reader opened it (since 0.2.27): beside a program that
# writes faster than it reads (here a reader at the lowest priority beside four busy threads),
# the reader chased the growing file, for good or to the program's end (then it read whole)
# (bounded by CPU time, not the clock: at nice 19 beside other work at nice 0 the reader gets
# under 1% of a core, and 0.06 s of its work took over 60 s once, on one busy CPU; a reader
# chasing the file spends CPU and is still stopped)
(CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/live2.zst LD_PRELOAD=$LIB $P/churn 6000 0 0 3 2>/dev/null & lv_pid=$!; sleep 0.5
 (ulimit -t 20; timeout 300 nice -n 19 $REPORT $T/live2.zst >/dev/null 2>$T/live2.rerr); echo $? >$T/live2.rc; wait $lv_pid)
# (at least a second short of the whole trace, read once the program ended: on a busy machine
# the reader starts late and the program runs long, and a fixed 2 s failed there; at nice 19
# beside other work the reader opened the file 3.2 s late once, in a 4 s program: 6 s now)
lv2_whole=$($REPORT --json $T/live2.zst 2>/dev/null | $PY -c 'import json, sys; print(json.load(sys.stdin)["duration_s"])')
expect_eq "a trace read while a busy program writes it: read as it was when opened (status 0, it covers a second or more less than the whole trace, about 6 s)" \
	"$(cat $T/live2.rc)/$(grep -o 'it covers [0-9.]* s' $T/live2.rerr | awk -v w="$lv2_whole" '{print ($3 + 1.0 <= w) ? "short of the whole" : $3 " s of " w " s"}')" \
	"0/short of the whole"
# a process whose tracing stopped (a file-size limit) runs on: it writes no more, and holds the
# file's lock no more (the reader said it was still writing it)
(ulimit -f 2; CUZKTRACE_CHILDREN=0 CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/stopped.zst LD_PRELOAD=$LIB \
	bash -c 'for i in $(seq 1 3000); do x=$i$i; done; sleep 2; true' 2>$T/stopped.err & sp_pid=$!; sleep 1
 $REPORT $T/stopped.zst >/dev/null 2>$T/stopped.rerr; wait $sp_pid)
expect_match "tracing stopped, the process running on: the reader does not say it is still being written" \
	"$(grep -c 'tracing stopped, the program continues' $T/stopped.err)/$(head -1 $T/stopped.rerr)" \
	"^1/cuzktrace-report: warning: '$T/stopped.zst': trace is truncated \(no end record\); it covers [0-9.]+ s\$"


# thread runs untraced, and its events are counted lost (1,000 mallocs and frees, and the few
# frees glibc makes as the thread exits); the reader says the totals are inexact.
CUZKTRACE_OUT=$T/noring.zst traced noring $P/noring
expect_eq "no ring for a thread: program status, one error line" \
	"$(cat $T/noring.rc)/$(grep -c 'cannot map an event buffer for a new thread; threads without one are not traced (the trace counts what they lose)' $T/noring.err)" "0/1"
# ... and the main thread's at start, under an address-space limit just above what the
# writer needs: named so (before 0.2.56 it said "a new thread" of a program with one). The
# limits where that happens move with the libraries' sizes: a scan of 20 to 40 MB.
for v in $(seq 20000 500 40000); do
	bash -c "ulimit -v $v; CUZKTRACE_OUT=$T/mainring.zst LD_PRELOAD=$LIB $P/exitcode 0" 2>&1 >/dev/null | grep 'event buffer for'
done >$T/mainring.err
if [ -s $T/mainring.err ]; then
	expect_eq "no ring for the main thread at start: named the main thread, never 'a new thread'" \
		"$(grep -c "error: cannot map an event buffer for the program's main thread; threads without one are not traced (the trace counts what they lose)$" $T/mainring.err)/$(grep -c 'for a new thread' $T/mainring.err)" \
		"$(grep -c 'main thread' $T/mainring.err)/0"
else
	echo "  skip no ring for the main thread: no limit from 20 to 40 MB left the writer and not the ring"
fi
$REPORT --json $T/noring.zst >$T/noring.json 2>$T/noring.rerr
nr_lost=$(jget $T/noring.json lost_events)
expect_eq "no ring for a thread: its events counted lost ($nr_lost)" "$((nr_lost >= 2000 && nr_lost < 2100))" 1
expect_match "no ring for a thread: the reader says so" "$(cat $T/noring.rerr)" "$nr_lost events were lost; totals are inexact"
expect_eq "no ring for a thread: the main thread's block after it" "$(($(jget $T/noring.json live_at_exit.heap_bytes) >= 3000000))" 1

# a program that caps its address space below what it uses (setrlimit RLIMIT_AS): the
# tracer's RSS sampler, whose first sample came after the cap, said "cannot map an event
# buffer for a new thread", a thread the program never made, and went on losing a sample
# each period; the writer could not map its merge table, and the exit line read "0 events,
# peak heap 0 B". Now the sampler's own line (when its first sample comes after the cap),
# no sample after it, and the exit line counts each ring's events in its order
CUZKTRACE_OUT=$T/ascap.zst traced ascap $P/ascap
$REPORT --json $T/ascap.zst >$T/ascap.json 2>/dev/null
expect_match "address space capped below use: status and output as untraced, no line of a new thread, the sampler's once at most, the exit line counts the 1 MiB block, the report has it" \
	"$(cat $T/ascap.rc)/$(cat $T/ascap.out)/$(grep -c 'for a new thread' $T/ascap.err)/$(grep -c "^cuzktrace: error: cannot map an event buffer for the tracer's RSS sampler (the address space is exhausted, or capped below what the process uses); RSS is not sampled from here on (the trace counts the samples lost)\$" $T/ascap.err)/$(grep -o '[0-9]* events, peak heap [0-9.]* MiB' $T/ascap.err | sed 's/^[1-9][0-9]* events/N events/')/$(( $(jget $T/ascap.json peak_heap.bytes) >= 1048576 ))/$(( $(jget $T/ascap.json lost_events) <= 2 ))" \
	"^0/8 MiB refused/0/[01]/N events, peak heap 1.0[0-9] MiB/1/1\$"

# a program that caps its address space after start and fills it (as Python allocating until
# MemoryError under resource.setrlimit): the writer must map nothing for its frames (zstd grew
# its workspace with the first full frame; the map failed, the trace stopped holding no event,
# 2 runs in 3): three runs, each trace whole. Then five on one CPU, where the RSS sampler gets
# its core late: it mapped its event buffer at its first sample, after the program's cap (an
# error line, RSS unsampled: 4 runs in 10); since 0.2.39 before main
one_cpu=
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && one_cpu="taskset -c 0"
for as_run in 1 2 3 4 5 6 7 8; do
	cpu=
	[ $as_run -gt 3 ] && { [ -n "$one_cpu" ] || continue; cpu=$one_cpu; }
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/aslate.zst $cpu env LD_PRELOAD=$LIB $P/aslate >$T/aslate.out 2>$T/aslate.err
	echo $? >$T/aslate.rc
	expect_eq "address space capped and filled after start (run $as_run${cpu:+, one CPU}): the program as untraced, no error line, the trace whole with every block" \
		"$(cat $T/aslate.rc)/$(cat $T/aslate.out)/$(grep -c '^cuzktrace: error' $T/aslate.err)/$($REPORT --json $T/aslate.zst 2>&1 | $PY -c 'import json,sys; j=json.load(sys.stdin); c=j["event_counts"]; print(j["end_reason"], j["truncated"], c["alloc"] >= 400000, c["free"] >= 400000)' 2>&1 | tail -1)" \
		"0/aslate: 400000 of 400000 blocks/0/exit False True True"
done

# an address-space limit the program sets on itself after start, as an absolute number (a
# script's `ulimit -v`, Python's resource.setrlimit): the tracer's 4 GiB reservation for call
# stacks counted against it, and the program's first 1 MiB block under a 3 GiB limit was
# refused (an untraced run is a few MiB). After the call the reservation shrinks to 1/32 of the
# limit: every way of setting it, exact mode, the blocks' site still recorded after it
for as_how in set set64 prlimit prlimit64 prlimitpid prlimitsame prlimittid; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/aslimit.$as_how.zst LD_PRELOAD=$LIB $P/aslimit $as_how 3072 >$T/aslimit.out 2>$T/aslimit.err
	echo $? >$T/aslimit.rc
	$REPORT $T/aslimit.$as_how.zst >$T/aslimit.rep 2>&1
	expect_eq "RLIMIT_AS of 3 GiB set after start by $as_how: 200 blocks of 1 MiB and a 256 MiB mapping fit as untraced, no tracer warning, the blocks' site at the peak exact" \
		"$(cat $T/aslimit.rc)/$(cat $T/aslimit.out)/$(grep -c '^cuzktrace: \(error\|warning\)' $T/aslimit.err)/$(grep -m1 -A1 '^  #1 ' $T/aslimit.rep | sed 's/^ *//; s/, [0-9.]*% of the peak//' | tr '\n' ' ')" \
		"0/aslimit: ok/0/#1  200 MiB (209715200 bytes), 200 allocations live main (tests/progs/aslimit.c:$(grep -n 'char \*p = malloc(1 << 20)' tests/progs/aslimit.c | cut -d: -f1)) "
done
# the same from a shell's `ulimit -v` (bash's builtin calls setrlimit), in the traced shell
# and in a subshell (a forked child, not traced, holds the reservation too), and from Python
as_script='ulimit -v 3000000; a=(); for i in $(seq 1 20000); do a+=("$i$i$i$i"); done; x=$(seq 1 300000); echo ${#x} ${#a[@]}'
for as_sh in "$as_script" "($as_script)"; do
	CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/asbash.%p.zst LD_PRELOAD=$LIB bash -c "$as_sh" >$T/asbash.out 2>$T/asbash.err
	echo $? >$T/asbash.rc
	expect_eq "bash: ulimit -v 3000000 then a 2 MB string and 20,000 array entries (${as_sh:0:1}): as untraced, no error from bash or the tracer" \
		"$(cat $T/asbash.rc)/$(cat $T/asbash.out)/$(grep -v '^cuzktrace: tracing\|forked from process' $T/asbash.err)" \
		"0/1988894 20000/"
done
# the subshell tells its memory its own by its fork handler, not by kcmp, which a container's
# seccomp profile may refuse
if $P/seccompdeny 1 kcmp true 2>/dev/null; then
	CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/asbash.%p.zst $P/seccompdeny 1 kcmp env LD_PRELOAD=$LIB bash -c "($as_script)" >$T/asbash.out 2>$T/asbash.err
	echo $? >$T/asbash.rc
	expect_eq "bash subshell: ulimit -v 3000000 then the same, kcmp refused: as untraced" \
		"$(cat $T/asbash.rc)/$(cat $T/asbash.out)/$(grep -v '^cuzktrace: tracing\|forked from process' $T/asbash.err)" \
		"0/1988894 20000/"
else
	echo "  skip subshell ulimit with kcmp refused: no seccomp filter here"
fi
# a vfork child's limit gives nothing of the parent's back (its memory is the parent's: the
# parent's reservation was unmapped under it, 4 GiB), and setrlimit with no struct is as untraced
CUZKTRACE_OUT=$T/asvfork.zst LD_PRELOAD=$LIB $P/aslimit vfork 3072 >$T/asvfork.out 2>$T/asvfork.err
echo $? >$T/asvfork.rc
CUZKTRACE_OUT=$T/asnull.zst LD_PRELOAD=$LIB $P/aslimit null 0 >$T/asnull.out 2>&1
CUZKTRACE_OUT=$T/asbad.zst LD_PRELOAD=$LIB $P/aslimit bad 0 >$T/asbad.out 2>&1
echo $? >$T/asbad.rc
expect_eq "RLIMIT_AS set in a vfork child: the parent's reservation kept; setrlimit(RLIMIT_AS, NULL), and a struct that is no memory, return as untraced (the tracer reads none)" \
	"$(cat $T/asvfork.rc)/$(cat $T/asvfork.out)/$(grep -c '^cuzktrace: \(error\|warning\)' $T/asvfork.err)/$(grep '^aslimit' $T/asnull.out)/$(cat $T/asbad.rc) $(grep '^aslimit' $T/asbad.out)" \
	"0/aslimit: ok/0/aslimit: $($P/aslimit null 0 | sed 's/^aslimit: //')/0 $($P/aslimit bad 0)"
CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/aspy.zst LD_PRELOAD=$LIB $PY -c 'import resource; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); x = bytearray(100 << 20); print(len(x))' >$T/aspy.out 2>$T/aspy.err
echo $? >$T/aspy.rc
expect_eq "Python: resource.setrlimit(RLIMIT_AS) of 2 GiB, then a 100 MiB bytearray: as untraced (MemoryError before)" \
	"$(cat $T/aspy.rc)/$(cat $T/aspy.out)/$(grep -vc '^cuzktrace: tracing' $T/aspy.err)" "0/104857600/0"

# A stuck writer (frozen here with ptrace for 40 s, as a write hung on a network file system
# would be): a full ring waits 10 s for room, then its events are dropped and counted; once one
# thread has given up, others drop at once until the writer moves again, instead of waiting 10 s
# per event (which hung the program). At exit the program waits for the writer only while it
# makes progress: 10 s, one line, and the trace is left incomplete (it exited at the freeze's
# end before). Needs ptrace of a thread of our own child (root, or Yama ptrace_scope 0/1).
# The program runs for 5 s at least, so that the freeze is in place before it ends (400,000
# allocations alone were over once before the freeze started, on a loaded machine).
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ]; then
	CUZKTRACE_RSS_MS=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/stuck.zst LD_PRELOAD=$LIB $P/churn 5000 400 \
		>$T/stuck.out 2>$T/stuck.err &
	st_pid=$!
	freeze $st_pid "$(writer_of $st_pid)" 40 >$T/freeze.out 2>&1
	wait $st_pid
	expect_eq "stuck writer: the program ran to its end and exited while the writer was stuck" \
		"$?/$(cat $T/freeze.out)" "0/exited while frozen"
	expect_eq "stuck writer: one line at exit" "$(sed 1d $T/stuck.err)" \
		"cuzktrace: error: the trace writer made no progress for 10 s at exit (a write that does not return?); '$T/stuck.zst' is left incomplete"
	$REPORT --json $T/stuck.zst >$T/stuck.json 2>$T/stuck.rerr
	expect_match "stuck writer: the reader says the trace is incomplete" "$(cat $T/stuck.rerr)" "trace is truncated \(no end record\)"
fi

# The program's threads' waits for the writer (format version 7's WAITED): the writer frozen
# for 1.5 s while a thread allocates (exact mode) holds the thread for about that long once
# its ring is full; the report counts it (tracer_wait_s, a line in the text), nothing is lost.
# A program of 4 events never waits: 0, and no line.
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ]; then
	CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/waited.zst LD_PRELOAD=$LIB \
		$P/churn 6000 >$T/waited.out 2>$T/waited.err &
	wt_pid=$!
	freeze $wt_pid "$(writer_of $wt_pid)" 1.5 >$T/waitfreeze.out 2>&1
	wait $wt_pid
	wt_rc=$?
	$REPORT --json $T/waited.zst >$T/waited.json 2>$T/waited.rerr
	$REPORT $T/waited.zst >$T/waited.txt 2>/dev/null
	expect_match "writer frozen 1.5 s: the thread's wait counted (>= 1 s, < 10 s), nothing lost, a line in the text" \
		"$wt_rc/$(cat $T/waitfreeze.out)/$(jget $T/waited.json truncated)/$(jget $T/waited.json lost_events)/$($PY -c 'import json, sys; d = json.load(open(sys.argv[1])); print(int(1.0 <= d["tracer_wait_s"] < 10), int(d["tracer_waits"] >= 1))' $T/waited.json)/$(grep -cE '^tracer wait +[0-9]+\.[0-9]{3} s in [0-9]+ waits?: the program.s threads waited for room in the tracer.s buffers \(its writer fell behind them\), so their timing and overlap differ from an untraced run$' $T/waited.txt)" \
		"^0/still running after 1.5 s/false/0/1 1/1\$"
fi
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/nowait.zst traced nowait $P/exitcode
$REPORT --json $T/nowait.zst >$T/nowait.json 2>/dev/null
$REPORT $T/nowait.zst >$T/nowait.txt 2>/dev/null
# (its allocations counted, not its events: one RSS sample or two, as the sampler's first
# comes before or after the exit's on a busy machine)
expect_eq "a program of a few events: no tracer wait (JSON 0 and 0, no line)" \
	"$(jget $T/nowait.json event_counts.alloc)/$(jget $T/nowait.json tracer_wait_s)/$(jget $T/nowait.json tracer_waits)/$(grep -c '^tracer wait' $T/nowait.txt)" "2/0.0/0/0"
if [ -s $T/waited.json ]; then
	$REPORT --json --diff $T/nowait.zst $T/waited.zst >$T/waitdiff.json 2>/dev/null
	expect_eq "--diff --json: each run's tracer wait" \
		"$(jget $T/waitdiff.json tracer_wait_s.base)/$(jget $T/waitdiff.json tracer_wait_s.trace)" \
		"0.0/$(jget $T/waited.json tracer_wait_s)"
	# ... and a row in the text (since 0.2.33), where either run waited
	expect_match "--diff text: the tracer wait row, each run's (none where neither waited)" \
		"$($REPORT --diff $T/nowait.zst $T/waited.zst 2>/dev/null | grep '^tracer wait')/$($REPORT --diff $T/nowait.zst $T/nowait.zst 2>/dev/null | grep -c '^tracer wait')" \
		"^tracer wait               0\\.000 s +[1-9]\\.[0-9]{3} s  \\(the program.s threads waited for the tracer.s buffers\\)/0\$"
	# ... and where the base alone waited (the trace's wait 0): the row too, each run's
	expect_match "--diff text: the tracer wait row where only the base waited" \
		"$($REPORT --diff $T/waited.zst $T/nowait.zst 2>/dev/null | grep '^tracer wait')" \
		"^tracer wait +[1-9]\\.[0-9]{3} s      0\\.000 s  \\(the program.s threads waited for the tracer.s buffers\\)\$"
fi

# A call that needs a single-threaded process (unshare of a user namespace) while the writer
# is stuck (frozen until the call has returned, 30 s at most): after 10 s without progress the
# helpers are left running, one line says the call will fail, and when the writer moves again
# it goes on: the 100,000 blocks the program keeps once the writer runs again are all in a
# complete trace. (A freeze of a fixed 11 s failed on a loaded machine: started late, it still
# held the writer when the program's blocks came, and they were dropped.)
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ]; then
	CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/pausestuck.zst LD_PRELOAD=$LIB $P/pausestuck $T/frozen $T/thawed \
		>$T/pausestuck.out 2>$T/pausestuck.err &
	ps_pid=$!
	freeze $ps_pid "$(writer_of $ps_pid)" 30 $T/frozen $T/pausestuck.out $T/thawed >$T/pausefreeze.out 2>&1
	wait $ps_pid
	expect_eq "stuck writer during unshare: the program ends (status 0), one line about the call" \
		"$?/$(grep -c 'made no progress for 10 s; a call that needs a single-threaded process will fail' $T/pausestuck.err)/$(head -1 $T/pausestuck.out)" \
		"0/1/pausestuck: unshare: Invalid argument"
	$REPORT --json $T/pausestuck.zst >$T/pausestuck.json 2>$T/pausestuck.rerr
	live=$(jget $T/pausestuck.json live_at_exit.heap_bytes)
	expect_eq "stuck writer during unshare: tracing goes on (complete, 100,000 blocks kept after, nothing lost)" \
		"$(jget $T/pausestuck.json truncated)/$(( live >= 10000000 && live < 10016384 ))/$(jget $T/pausestuck.json lost_events)/$(cat $T/pausestuck.rerr)" "false/1/0/"
fi

# The writer's flush before an unshare's pause fails (the file-size limit): one error line,
# the call goes on (as untraced), and at exit the writer that failed is not waited for again
# (no second line, no 10 s wait).
$P/userns >$T/pf.plain 2>&1
CUZKTRACE_FLUSH_MS=60000 CUZKTRACE_OUT=$T/pausefail.zst traced pausefail $P/pausefail
expect_eq "write error in a pause's flush: status 0, the call as untraced, one error line" \
	"$(cat $T/pausefail.rc)/$(sed 's/.*: //' $T/pausefail.out)/$(grep -c '^cuzktrace: error' $T/pausefail.err)/$(grep -c 'no progress' $T/pausefail.err)" \
	"0/$([ "$(cat $T/pf.plain)" = 'userns: ok' ] && echo ok || sed 's/.*: //' $T/pf.plain)/1/0"

# The process stopped for 11 s while a thread waits for ring room (its writer held back, here
# frozen with ptrace for 1 s before and 1 s after the stop), with a 5 kHz interval timer
# cutting the thread's waits short: the bound adds up the thread's own waits, at most 5 ms
# each, so neither the stop nor the signals look like a stuck writer and nothing is dropped
# (with a clock deadline the 13 s dropped events; counting waits, the signals did).
if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ]; then
	# the program is started by the script, so that it is seized within milliseconds of its
	# writer's start (a script started after it, slow to start on a busy machine, found the
	# program gone: ptrace failed, ESRCH)
	$PY - $P/churn $T/stopwait.out $T/stopwait.err $LIB $T/stopwait.zst <<'PYEOF' >$T/stopwait.py 2>&1
import ctypes, os, signal, subprocess, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
env = dict(os.environ, CUZKTRACE_RSS_MS='0', CUZKTRACE_QUIET='1', LD_PRELOAD=sys.argv[4],
           CUZKTRACE_OUT=sys.argv[5])
p = subprocess.Popen([sys.argv[1], '0', '1200', '200'], env=env,
                     stdout=open(sys.argv[2], 'w'), stderr=open(sys.argv[3], 'w'))
pid, tid = p.pid, None
for _ in range(5000):
    try:
        tid = next((int(t) for t in os.listdir('/proc/%d/task' % pid) if int(t) != pid), None)
    except OSError:
        pass
    if tid:
        break
    time.sleep(0.001)
if not tid or libc.ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 or libc.ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0:
    print('ptrace failed: errno %d' % ctypes.get_errno())
    p.wait()
    sys.exit(1)
os.waitpid(tid, 0x40000000)  # __WALL
time.sleep(1)                # the ring fills; the main thread waits for room
os.kill(pid, signal.SIGSTOP)
time.sleep(11)
os.kill(pid, signal.SIGCONT)
time.sleep(1)
libc.ptrace(PTRACE_DETACH, tid, 0, 0)
print('done' if p.wait() == 0 else 'status %d' % p.returncode)
PYEOF
	expect_eq "stopped while waiting for room: status 0" "$(cat $T/stopwait.py)" "done"
	$REPORT --json $T/stopwait.zst >$T/stopwait.json 2>$T/stopwait.rerr
	expect_eq "stopped while waiting for room: nothing lost, reader silent" \
		"$(jget $T/stopwait.json lost_events)/$(cat $T/stopwait.rerr)" "0/"
fi

# The process stopped (Ctrl-Z, a debugger, a frozen container) while a thread is inside a
# realloc that copies: the time the writer itself did not run is not counted against the
# thread's busy mark, so the realloc's events are not written after a SYNC that passed them
# (before, an 11 s stop made its release replay late). The stop must land inside the call
# (the program says how long the call took); a machine too fast for that gets a second try
# with a block four times bigger. The call's own running time (its time less the stop's) must
# stay under the 10 s after which a mark is taken as left behind: on a machine so loaded that
# the copy itself runs longer, the event is written late by design and the reader must say so
# (near the threshold either is right).
for lr_mib in 1024 4096; do
	CUZKTRACE_OUT=$T/stopped.zst CUZKTRACE_QUIET=1 LD_PRELOAD=$LIB $P/longrealloc $lr_mib \
		>$T/stopped.out 2>$T/stopped.err &
	lr_pid=$!
	for _ in $(seq 600); do
		grep -q '^realloc$' $T/stopped.out 2>/dev/null && break
		sleep 0.05
	done
	sleep 0.1
	lr_t0=$(date +%s%N)
	kill -STOP $lr_pid
	sleep 11
	kill -CONT $lr_pid
	lr_stop=$((($(date +%s%N) - lr_t0) / 1000000))
	wait $lr_pid
	lr_rc=$?
	lr_ms=$(sed -n 's/^realloc took \([0-9]*\) ms$/\1/p' $T/stopped.out)
	[ "${lr_ms:-0}" -ge 10000 ] && break
done
expect_eq "stopped inside a realloc: the stop landed inside the call (${lr_ms:-?} ms), status 0" \
	"$((${lr_ms:-0} >= 10000))/$lr_rc" "1/0"
$REPORT --json $T/stopped.zst >$T/stopped.json 2>$T/stopped.rerr
lr_own=$((${lr_ms:-0} - lr_stop))
lr_late="1/cuzktrace-report: warning: '$T/stopped.zst': 1 event came after later events had been replayed (the trace breaks its SYNC promise); peaks near them may be off by their bytes"
lr_got="$(jget $T/stopped.json late_events)/$(cat $T/stopped.rerr)"
if [ $lr_own -lt 8000 ]; then
	expect_eq "stopped inside a realloc: no late event, reader silent (the call ran $lr_own ms of its own)" "$lr_got" "0/"
elif [ $lr_own -gt 12000 ]; then
	expect_eq "stopped inside a realloc that ran $lr_own ms of its own (a loaded machine): written late, the reader says so" "$lr_got" "$lr_late"
else
	expect_match "stopped inside a realloc that ran $lr_own ms of its own, near the 10 s threshold: on time, or late and said" \
		"$lr_got" "^(0/|1/.*1 event came after later events had been replayed.*)$"
fi

# A seccomp filter that denies the stat family, installed while the program runs: the tracer
# cannot tell its descriptors from the program's files by fstat any more, and takes an open one
# as its own. It took every check as a closed descriptor: the trace reopened at every flush, a
# descriptor leaked low in the program's range each time (its open got 20, not 3), then tracing
# stopped without a word, the trace empty. tests/progs/nostat.c
nostat_want=$($P/nostat 2>&1)
if [ "$nostat_want" = "$(printf 'fd 3\ndone')" ]; then
	CUZKTRACE_OUT=$T/nostat.zst traced nostat $P/nostat
	$REPORT --json $T/nostat.zst >$T/nostat.json 2>$T/nostat.rerr
	expect_eq "stat family denied mid-run: status, output (fd 3), the two tracer lines, the trace complete, every event" \
		"$(cat $T/nostat.rc)/$(cat $T/nostat.out | tr '\n' ' ')/$(grep -c '^cuzktrace: ' $T/nostat.err)/$(wc -l <$T/nostat.err)/$(cat $T/nostat.rerr)/$(jget $T/nostat.json truncated)/$(jget $T/nostat.json event_counts.alloc)/$(jget $T/nostat.json event_counts.free)/$(( $(jget $T/nostat.json live_at_exit.heap_bytes) - 3000000 == $(jget $T/nostat.json peak_heap.bytes) - 3000000 ))" \
		"0/fd 3 done /2/2//false/1201/1000/1"
	# ... and a daemon's file opened on descriptor 2 then: the exit line goes to the copy of
	# stderr, not into the file (any open descriptor 2 was taken for stderr)
	CUZKTRACE_OUT=$T/nostat2.zst traced nostat2 $P/nostat $T/nostat2.data
	expect_eq "stat family denied, stderr's number reused for a file: the file holds the program's bytes only, the tracer's two lines on stderr" \
		"$(cat $T/nostat2.rc)/$(cat $T/nostat2.data)/$(grep -c '^cuzktrace: ' $T/nostat2.err)" "0/DATA/2"
else
	echo "  skip stat family denied: no seccomp filter here ($nostat_want)"
fi

# The writer thread refused by a limit on threads (ulimit -u 1 for a user who runs one
# process): the line said the path could not be traced, as if the file were the trouble.
# The user is one no other test runs as: the limit counts the user's processes, and other
# files run side by side (tests/integration/run.sh) start programs as nobody.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	np_uid=54321
	np_d=$(mktemp -d /tmp/cuzktrace-nproc.XXXXXX)
	chmod 777 $np_d && cp $LIB $np_d/lib.so && chmod 755 $np_d/lib.so
	(ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups \
		env CUZKTRACE_OUT=$np_d/t.zst LD_PRELOAD=$np_d/lib.so /bin/echo ran >$T/nproc.out 2>$T/nproc.err; echo $? >$T/nproc.rc)
	expect_eq "writer thread refused (ulimit -u 1): the program runs untraced, one line naming the thread and the limit, no file" \
		"$(cat $T/nproc.rc)/$(cat $T/nproc.out)/$(cat $T/nproc.err)/$(ls $np_d | grep -c zst)" \
		"0/ran/cuzktrace: error: cannot trace to '$np_d/t.zst': cannot start the trace writer thread: Resource temporarily unavailable (a limit on threads: ulimit -u, a container's pids limit?); running untraced/0"
	# ... and the program then has every descriptor untraced has (since 0.2.23: the tracer
	# kept /proc/<pid>/stat, which it opens before it starts the thread)
	cp $P/fdcount $np_d/fdcount && chmod 755 $np_d/fdcount
	np_plain=$( (ulimit -n 200; ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups $np_d/fdcount) 2>/dev/null)
	np_traced=$( (ulimit -n 200; ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups \
		env CUZKTRACE_OUT=$np_d/t.zst LD_PRELOAD=$np_d/lib.so $np_d/fdcount) 2>/dev/null)
	expect_eq "writer thread refused: as many files as untraced" "$np_traced" "$np_plain"
	# ... and its address space: the encoder's columns, zstd's context and buffers and the
	# thread's stack are given back (since 0.2.55; they stayed, 26 MiB above untraced, and
	# under `ulimit -v` the program's own allocations failed for them)
	cp $P/vmsize $np_d/vmsize && chmod 755 $np_d/vmsize
	np_plain=$( (ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups $np_d/vmsize) 2>/dev/null)
	np_traced=$( (ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups \
		env CUZKTRACE_OUT=$np_d/t.zst LD_PRELOAD=$np_d/lib.so $np_d/vmsize) 2>/dev/null)
	expect_eq "writer thread refused: under 16 MiB of address space above untraced ($np_traced KiB against $np_plain)" \
		"$(( np_traced - np_plain < 16384 ))" 1
	# ... and an earlier trace at the path is left as it was, byte for byte (0.2.32 cut it to
	# a new header before it tried the thread: the earlier run's trace was lost, and the stub
	# left read as a trace with no event; CUZKTRACE_STRICT=1 alike)
	CUZKTRACE_OUT=$np_d/t.zst LD_PRELOAD=$np_d/lib.so $P/exitcode 0 >/dev/null 2>&1
	chmod 666 $np_d/t.zst && cp $np_d/t.zst $T/nproc.before
	for np_strict in 0 1; do
		(ulimit -u 1; setpriv --reuid=$np_uid --regid=$np_uid --clear-groups \
			env CUZKTRACE_STRICT=$np_strict CUZKTRACE_OUT=$np_d/t.zst LD_PRELOAD=$np_d/lib.so /bin/echo ran >$T/nproc.out 2>$T/nproc.err; echo $? >$T/nproc.rc)
		expect_eq "writer thread refused (CUZKTRACE_STRICT=$np_strict): an earlier trace at the path is left as it was" \
			"$(cat $T/nproc.rc)/$(grep -c 'cannot start the trace writer thread' $T/nproc.err)/$(cmp -s $T/nproc.before $np_d/t.zst && echo same)" \
			"$([ $np_strict = 1 ] && echo 70 || echo 0)/1/same"
	done
	rm -rf $np_d
else
	echo "  skip writer thread refused: needs root and setpriv"
fi

# The run's first process passes CUZKTRACE_OUT on anchored to its directory (since 0.2.23); a
# command that may not write there (it dropped to another user: setpriv, runuser; or changed
# its root) writes where the name as given says, relative to its own directory, with one
# line (it ran untraced, the anchored directory refused to it)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	fb_d=$(mktemp -d /tmp/cuzktrace-fb.XXXXXX)
	mkdir -p $fb_d/private $fb_d/out
	chmod 700 $fb_d/private && chmod 777 $fb_d/out && chmod 755 $fb_d
	cp $LIB $fb_d/lib.so && chmod 755 $fb_d/lib.so
	(cd $fb_d/private && LD_PRELOAD=$fb_d/lib.so setpriv --reuid=65534 --regid=65534 --clear-groups \
		sh -c "cd $fb_d/out && /bin/true" >/dev/null 2>$T/fb.err)
	fb_pid=$(sed -n 's/^cuzktrace: tracing true (pid \([0-9]*\)).*/\1/p' $T/fb.err)
	expect_eq "anchored name refused to a command run as another user: it writes in its own directory, one line says why" \
		"$(grep "cannot write beside" $T/fb.err)/$(ls $fb_d/out | grep -c zst)" \
		"cuzktrace: warning: cannot write beside the run's first trace ('$fb_d/private/cuzktrace.true.$fb_pid.zst': Permission denied); using '$fb_d/out/cuzktrace.true.$fb_pid.zst'/1"
	# not to the same file (no cd: an exec chain said its rename twice), and not for a name
	# the user gave absolutely to a missing directory under CUZKTRACE_STRICT=1 (exit 70: it
	# was redirected to the run's name, status 0)
	(cd $fb_d/private && CUZKTRACE_OUT=t.zst LD_PRELOAD=$fb_d/lib.so setpriv --reuid=65534 --regid=65534 \
		--clear-groups /bin/true 2>$T/fb2.err)
	(cd $fb_d/out && CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB sh -c "CUZKTRACE_STRICT=1 CUZKTRACE_OUT=$T/nodir/x.zst /bin/true; echo \$?" >$T/fb3.out 2>$T/fb3.err)
	expect_eq "anchored name refused, no cd: one rename line, one error, no fallback; an absolute name to a missing directory with CUZKTRACE_STRICT=1: exit 70" \
		"$(grep -c 'replaced by exec' $T/fb2.err)/$(grep -c 'cannot write beside' $T/fb2.err)/$(grep -c 'cannot trace to' $T/fb2.err)/$(cat $T/fb3.out)/$(grep -c 'cannot write beside' $T/fb3.err)" "1/0/1/70/0"
	rm -rf $fb_d
else
	echo "  skip anchored name refused: needs root and setpriv"
fi

# Libraries with thread-local data loaded at run time (tests/progs/tlsmany.c): glibc grows the
# thread's TLS table with realloc from inside its TLS code, and the capture's libunwind TLS
# access ran that code again inside it (double free, status 134, exact mode, 30 libraries);
# a dlopen/dlclose loop's TLS blocks, freed at the next TLS access (libunwind's, in a hook),
# were lost with a line about signal handlers, and stayed live (20 MB at exit for 200 loops).
mkdir -p $T/tls
for i in $(seq 40); do cp $P/libtlsbare.so $T/tls/$i.so; done
for rate in 0 524288; do
	CUZKTRACE_SAMPLE=$rate traced_json tlsmany $P/tlsmany many 40 $T/tls >/dev/null
	expect_eq "40 libraries with TLS opened (CUZKTRACE_SAMPLE=$rate): status 0, its output, the two tracer lines, complete, nothing lost or inconsistent" \
		"$(cat $T/tlsmany.rc)/$(cat $T/tlsmany.out)/$(wc -l <$T/tlsmany.err)/$(jget $T/tlsmany.json truncated)/$(jget $T/tlsmany.json lost_events)/$(jget $T/tlsmany.json inconsistencies)" \
		"0/ok/2/false/0/0"
	CUZKTRACE_SAMPLE=$rate traced_json tlsloop $P/tlsmany loop 200 $P/libtlsplug.so >/dev/null
	expect_eq "a plugin with TLS opened and closed 200 times (CUZKTRACE_SAMPLE=$rate): status 0, the two tracer lines, nothing lost or inconsistent, its blocks freed (under 200 KB live at exit)" \
		"$(cat $T/tlsloop.rc)/$(cat $T/tlsloop.out)/$(wc -l <$T/tlsloop.err)/$(jget $T/tlsloop.json lost_events)/$(jget $T/tlsloop.json inconsistencies)/$(( $(jget $T/tlsloop.json live_at_exit.heap_bytes) < 200000 ))" \
		"0/ok/2/0/0/1"
done

# signal handlers that map memory while a traced mremap's capture brings the TLS table up to
# date (tests/progs/tlssignal.c, with tests/progs/lib/tlsshim.c after the tracer raising the
# signals then): the capture's guard of 0 let the first run a whole hook, and the second took
# the live mremap hook for one left by a jump; then both were counted lost as any handler's
# call inside a hook. Since 0.2.40 the hook holds them until it ends: both mmaps traced
CUZKTRACE_OUT=$T/tlssig.zst LD_PRELOAD="$LIB $P/libtlsshim.so" $P/tlssignal >$T/tlssig.out 2>$T/tlssig.err
echo $? >$T/tlssig.rc
$REPORT --json $T/tlssig.zst >$T/tlssig.json 2>$T/tlssig.rerr
expect_eq "signals during a capture's TLS update and the mremap after it: both handlers' mmaps traced after the hook, no line about a jump, nothing lost or out of order" \
	"$(cat $T/tlssig.rc)/$(cut -d, -f1 $T/tlssig.out)/$(grep -c 'by a jump' $T/tlssig.err)/$(grep -c 'events lost' $T/tlssig.err)/$(jget $T/tlssig.json lost_events)/$(jget $T/tlssig.json live_at_exit.mmap_bytes)/$(cat $T/tlssig.rerr)" \
	"0/armed 3/0/0/0/$(((2 << 20) + (1 << 20) + (1 << 16)))/"

# exports: only the interposed functions
nm -D --defined-only $LIB | awk '{print $3}' | sort >$T/exports
expect_eq "exports: only the allow-listed symbols" "$(cat $T/exports)" "$(sort tests/exports.allow)"

# a second namespace (dlmopen) allocating through its own C library: one line says so, in both
# modes (since 0.2.51: nothing did); the program's own block traced
dlm_libc=$(ldd $P/dlmopenalloc | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')
for m in 0 524288; do
	CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/dlmopen$m.zst traced dlmopen$m $P/dlmopenalloc
	live=$($REPORT --json $T/dlmopen$m.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_bytes"] >= 1000000)')
	expect_eq "dlmopen (CUZKTRACE_SAMPLE=$m): it runs, one line, the program's block in the trace" \
		"$(cat $T/dlmopen$m.rc)/$(cat $T/dlmopen$m.out)/$(grep -c warning $T/dlmopen$m.err)/$(grep warning $T/dlmopen$m.err)/$live" \
		"0/dlmopenalloc: done/1/cuzktrace: warning: the program loaded objects into a namespace of their own (dlmopen or LD_AUDIT, first '$dlm_libc'): LD_PRELOAD loads the tracer into the first namespace only, so what runs there allocates past it and is not traced; said once/True"
done

# the library run as a program (a tab completion away from LD_PRELOAD=): one line says what it
# is, status 2, no trace (since 0.2.51: SIGSEGV). Where the build makes it runnable (x86_64,
# aarch64: it names the loader)
if readelf -lW $LIB 2>/dev/null | grep -q 'Requesting program interpreter'; then
	mkdir -p $T/runlib && (cd $T/runlib && $LIB some args >$T/runlib.out 2>$T/runlib.err; echo $? >$T/runlib.rc)
	expect_eq "the library run as a program: one line, status 2, nothing written, no trace" \
		"$(cat $T/runlib.rc)/$(cat $T/runlib.err)/$(wc -c <$T/runlib.out)/$(ls $T/runlib | wc -l)" \
		"2/cuzktrace $(sed -n 's/^#define CKT_TRACER_VERSION "\(.*\)"/\1/p' include/ckt_format.h): '$LIB' is a library to preload, not a program: LD_PRELOAD=$(readlink -f $LIB) PROGRAM [ARGS...], then cuzktrace-report on the trace it announces/0/0"
	# ... also preloaded into itself, run by the loader: the preloaded copy stays idle and
	# says nothing (no "loaded twice" line)
	ldso=$(readelf -lW $LIB | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	(cd $T/runlib && LD_PRELOAD=$LIB $ldso $LIB >$T/runlib2.out 2>$T/runlib2.err; echo $? >$T/runlib2.rc)
	expect_eq "the library preloaded into itself, run by the loader: the one line, status 2, no trace" \
		"$(cat $T/runlib2.rc)/$(cat $T/runlib2.err)/$(ls $T/runlib | wc -l)" "$(cat $T/runlib.rc)/$(cat $T/runlib.err)/0"
fi

CUZKTRACE_SAMPEL=0 CUZKTRACE_OUT=$T/typo.zst traced typo $P/exitcode
expect_eq "misspelt variable: one line naming it" "$(head -1 $T/typo.err)" \
	"cuzktrace: warning: unknown variable CUZKTRACE_SAMPEL ignored (known: CUZKTRACE_OUT, _SAMPLE, _DEPTH, _PHASES, _FLUSH_MS, _RSS_MS, _STRICT, _QUIET, _ZSTD_LEVEL, _CHILDREN, _SIGNALS)"
expect_eq "misspelt variable: program unchanged" "$(cat $T/typo.out)/$(cat $T/typo.rc)" "$(cat $T/plain.out)/$plain_rc"
# a name longer than the 64 characters the line keeps says it is cut; the tracer's own
# hand-over variables across exec are not unknown
lv=$(printf 'X%.0s' $(seq 70))
env CUZKTRACE_$lv=1 CUZKTRACE_EXEC_PID=zz CUZKTRACE_OUT=$T/typolong.zst LD_PRELOAD=$LIB $P/exitcode >/dev/null 2>$T/typolong.err
expect_eq "unknown variable of 70 characters: its first 64, then '...'; CUZKTRACE_EXEC_PID not said" \
	"$(grep -c 'unknown variable' $T/typolong.err)/$(grep 'unknown variable' $T/typolong.err)" \
	"1/cuzktrace: warning: unknown variable CUZKTRACE_${lv:0:64}... ignored (known: CUZKTRACE_OUT, _SAMPLE, _DEPTH, _PHASES, _FLUSH_MS, _RSS_MS, _STRICT, _QUIET, _ZSTD_LEVEL, _CHILDREN, _SIGNALS)"

# An address-space limit (ulimit -v 6 GiB) counts the tracer's reservations, which it sizes
# to the limit: blocks of 64 MiB of address space, untraced and traced (the 4 GiB reservation
# for call stacks left 30 of 95; now 91)
as_plain=$(bash -c 'ulimit -v 6291456; '$P'/asfill' | grep -o '[0-9]*')
[ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" = 2 ] && as_plain=0 # commit, not address space, limits it
[ "${as_plain:-0}" -gt 50 ] || echo "  skip address-space limit: untraced, only ${as_plain:-0} blocks fit (strict overcommit?)"
[ "${as_plain:-0}" -gt 50 ] && for s in 0 524288; do
	as_traced=$(bash -c "ulimit -v 6291456; CUZKTRACE_SAMPLE=$s CUZKTRACE_OUT=$T/asfill.zst LD_PRELOAD=$LIB $P/asfill 2>/dev/null" | grep -o '[0-9]*')
	$REPORT --json $T/asfill.zst >$T/asfill.json 2>/dev/null
	expect_eq "address-space limit (CUZKTRACE_SAMPLE=$s): traced at least 85% of the $as_plain blocks ($as_traced), trace complete" \
		"$(( as_traced * 100 >= as_plain * 85 ))/$(jget $T/asfill.json truncated)" "1/false"
done

# mlockall(MCL_CURRENT | MCL_FUTURE) (cryptsetup, real-time audio): the program's memory is
# populated and locked as untraced, a 32 MiB block mapped before the call and a 16 MiB one
# after it; the tracer's reservations are not (the 4 GiB for call stacks were made resident:
# 4.1 GiB of RSS where untraced 50 MiB, and a memory cgroup of 1 GiB killed the program).
# tests/progs/mlockcur.c; as root (CAP_IPC_LOCK), or under a locked-memory limit above the
# address space.
mlock_plain=$($P/mlockcur 2>&1 | head -1)
if [ "$mlock_plain" = "mlockall: 0" ]; then
	for s in 0 524288; do
		CUZKTRACE_SAMPLE=$s CUZKTRACE_OUT=$T/mlockcur.zst traced mlockcur $P/mlockcur
		$REPORT --json $T/mlockcur.zst >$T/mlockcur.json 2>/dev/null
		expect_eq "mlockall(MCL_CURRENT | MCL_FUTURE) (CUZKTRACE_SAMPLE=$s): the program's blocks resident, the tracer's reservations not, trace complete" \
			"$(cat $T/mlockcur.rc)/$(tr '\n' '|' <$T/mlockcur.out)/$(grep -v '^cuzktrace: ' $T/mlockcur.err)/$(jget $T/mlockcur.json truncated)" \
			"0/mlockall: 0|block before: 32 MiB of 32 resident|block after: 16 MiB of 16 resident|resident: under 256 MiB|//false"
	done
	# without /proc (a mount namespace without it) the program's areas cannot be told from the
	# tracer's: one line says what is mapped then is locked as touched, not made resident at
	# once (the block before the call is not resident; the one after is); before, nothing said
	# it
	if noproc true; then
		CUZKTRACE_OUT=$T/mlocknp.zst noproc env LD_PRELOAD=$LIB $P/mlockcur >$T/mlocknp.out 2>$T/mlocknp.err
		expect_eq "mlockall(MCL_CURRENT) without /proc: one line, the block mapped after it resident" \
			"$?/$(tr '\n' '|' <$T/mlocknp.out)/$(grep -c '^cuzktrace: warning: mlockall(MCL_CURRENT): cannot read /proc/self/maps (No such file or directory); memory mapped now is locked as its pages are touched, not made resident at once$' $T/mlocknp.err)" \
			"0/mlockall: 0|block before: 0 MiB of 32 resident|block after: 16 MiB of 16 resident|resident: unknown|/1"
	fi
else
	echo "  skip mlockall: untraced it fails here ($mlock_plain: not root?)"
fi

# The program renames or deletes its own trace file while it runs: the data goes on into the
# file; at the end one line says the name no longer leads to it (the exit line named a file
# that was gone, without a word), and where a rename took it (since 0.2.20: the exit line
# names it there)
mkdir -p $T/mv
CUZKTRACE_OUT=$T/mv/t.zst traced mvself bash -c 'mv '$T'/mv/t.zst '$T'/mv/moved.zst; echo x'
$REPORT --json $T/mv/moved.zst >$T/mvself.json 2>/dev/null
expect_eq "trace renamed while running: output unchanged, one line naming the old path and the new, the exit line the new, the moved trace complete" \
	"$(cat $T/mvself.out)/$(grep -c "^cuzktrace: warning: '$T/mv/t.zst' no longer names the trace written: the file was renamed '$T/mv/moved.zst'$" $T/mvself.err)/$(grep -c "^cuzktrace: $T/mv/moved.zst: " $T/mvself.err)/$(grep -c "^cuzktrace: $T/mv/t.zst: " $T/mvself.err)/$(jget $T/mvself.json truncated)" \
	"x/1/1/0/false"
CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/mv/d.zst traced rmself bash -c 'rm '$T'/mv/d.zst; echo y'
expect_eq "trace deleted while running: the line comes with CUZKTRACE_QUIET=1 too" \
	"$(cat $T/rmself.out)/$(grep -c "^cuzktrace: warning: '$T/mv/d.zst' no longer names the trace written (the file was deleted, renamed or replaced while the program ran)$" $T/rmself.err)" "y/1"

# ... or cuts it short while it runs (: >, truncate -s 0): one line (since 0.2.22 nothing said
# so, and the exit line counted every byte); since 0.2.43 a cut below the header stops the
# trace, the file left as the cut left it (the writer went on at its offset, into a file that
# could not be read: a hole of zeros where the header was), and no exit line. The shell's own
# `: >` holds the file open for writing for a moment: a flush then says the program writes it
# (either line, exactly). The shell's children are not traced: once the shell's tracer has
# stopped, a child started after it finds the name free and writes its own trace there (with
# its own lines), which a loaded machine's timing made happen before the second sleep
CUZKTRACE_CHILDREN=0 CUZKTRACE_OUT=$T/mv/c.zst traced cutself sh -c 'sleep 0.3; : >'$T'/mv/c.zst; sleep 0.4; echo z'
$REPORT $T/mv/c.zst >/dev/null 2>$T/cutself.rerr
expect_eq "trace cut to 0 bytes while running: output unchanged, one line, tracing stopped, the file left empty" \
	"$(cat $T/cutself.out)/$(cat $T/cutself.rc)/$(sed "s|$T|T|g" $T/cutself.err | grep "'T/mv/c.zst'" | grep -v 'is being written by another live process' | sed \
		-e "s|^cuzktrace: error: 'T/mv/c.zst' was cut or written over from its start while traced (by another program, or by this one: an output of its own with the trace's name?), so the trace cannot be read; tracing stopped, the file left as it is, the program continues\$|STOPPED|" \
		-e "s|^cuzktrace: error: 'T/mv/c.zst' is written by the program itself (its descriptor [0-9]*: an output of its own has the trace's name?); tracing stopped, the file left to the program, which continues (name the trace elsewhere: CUZKTRACE_OUT)\$|STOPPED|")/$(grep -c "^cuzktrace: $T/mv/c.zst: " $T/cutself.err)/$(stat -c %s $T/mv/c.zst)/$(sed "s|$T|T|g" $T/cutself.rerr)" \
	"z/0/STOPPED/0/0/cuzktrace-report: error: 'T/mv/c.zst': empty file"
# A close-all and an open of the program between two of the writer's calls on the trace
# descriptor (libfdswap.so gives its number to another file after the N-th fstat of the trace,
# N = 6..14: each of the writer's checks of a frame in turn): the trace is reopened, one line,
# and reads whole (with the frame's start taken from the descriptor after its check, the
# other file's offset was taken for the trace's, and a frame was lost: the reader refused it)
fs_ok=0
for n in 6 7 8 9 10 11 12 13 14; do
	rm -f $T/fdswap.zst
	# (soft limit raised to the hard one: under a lower soft limit the tracer keeps the trace's
	# descriptor above it, where the library's dup3 cannot reach, as no program could)
	(ulimit -Sn "$(ulimit -Hn)"
	 FDSWAP_N=$n FDSWAP_DECOY=$T/fdswap.decoy CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/fdswap.zst \
		LD_PRELOAD="$P/libfdswap.so $LIB" $P/churn 300 >/dev/null 2>$T/fdswap.err)
	fs_rc=$?
	$REPORT --json $T/fdswap.zst >$T/fdswap.json 2>$T/fdswap.rerr
	[ "$fs_rc/$?/$(grep -c "^cuzktrace: warning: the trace descriptor was closed by the program; reopened '$T/fdswap.zst'$" $T/fdswap.err)/$(jget $T/fdswap.json truncated)/$(cat $T/fdswap.rerr)" = "0/0/1/false/" ] &&
		fs_ok=$((fs_ok + 1)) || echo "  (fdswap N=$n: status $fs_rc, $(cat $T/fdswap.rerr))"
done
expect_eq "the trace's descriptor given to another file between the writer's calls, at each of 9 points: reopened, one line, the trace whole" "$fs_ok" 9

# ... or writes into it (echo >>, truncate -s +600): one line, and the trace goes on at its own
# offset, over those bytes, and reads complete (since 0.2.24: no line, and the frame after was
# taken for one cut short and written again after itself: the reader refused the whole trace,
# "corrupt zstd frame" or "a frame is missing, repeated or out of order")
for g in 'echo hello >>' 'truncate -s +600'; do
	rm -f $T/mv/g.zst
	CUZKTRACE_OUT=$T/mv/g.zst traced growself sh -c 'sleep 0.3; '"$g"' '$T'/mv/g.zst; sleep 0.4; echo g'
	$REPORT --json $T/mv/g.zst >$T/growself.json 2>/dev/null
	g_rc=$?
	expect_eq "another program writes into the trace while it runs ($g): output unchanged, one line, the trace complete" \
		"$(cat $T/growself.out)/$(grep -c "^cuzktrace: warning: '$T/mv/g.zst' was written to by another program while traced (it grew to [0-9]* bytes; [0-9]* were written): the trace goes on over those bytes$" $T/growself.err)/$g_rc/$(jget $T/growself.json truncated)/$(jget $T/growself.json end_reason)" \
		"g/1/0/false/exit"
done

# The program's own output file has the trace's name (CUZKTRACE_OUT=out.zst for a compressor
# that writes out.zst, cp or dd to the trace's name, a log opened to append): the writer went on
# at its own offset, over the program's output (cp's copy differed from the original from byte
# 383 on; tests/progs/ownout.c read back its own file as damaged, status 1). Since 0.2.43 the
# writer sees the size change, finds the program holding the file open for writing (hold,
# append) or the file's start no longer the trace's header (close: written and closed between
# two flushes), stops, and leaves the file to the program: one line, no exit line, the output
# intact. (close: a flush during its few microseconds of writes can find the descriptor open,
# the other line.)
own_hold="cuzktrace: error: 'T/ownout.zst' is written by the program itself (its descriptor 3: an output of its own has the trace's name?); tracing stopped, the file left to the program, which continues (name the trace elsewhere: CUZKTRACE_OUT)"
own_over="cuzktrace: error: 'T/ownout.zst' was cut or written over from its start while traced (by another program, or by this one: an output of its own with the trace's name?), so the trace cannot be read; tracing stopped, the file left as it is, the program continues"
for m in hold append close; do
	for s in 0 524288; do
		rm -f $T/ownout.zst
		CUZKTRACE_SAMPLE=$s CUZKTRACE_FLUSH_MS=20 CUZKTRACE_OUT=$T/ownout.zst traced ownout $P/ownout $m $T/ownout.zst
		got=$(sed "s|$T|T|g" $T/ownout.err | grep -v '^cuzktrace: tracing ')
		[ $m = close ] && [ "$got" = "$own_hold" ] && got=$own_over
		expect_eq "the program writes its own output to the trace's name ($m, CUZKTRACE_SAMPLE=$s): output intact, status 0, one line, tracing stopped" \
			"$(cat $T/ownout.out)/$(cat $T/ownout.rc)/$got" \
			"output intact/0/$([ $m = close ] && echo "$own_over" || echo "$own_hold")"
	done
done
# ... and cp, whose copy has the trace's name: a copy identical to its source
head -c 3000000 /dev/urandom >$T/ownout.src
rm -f $T/ownout.zst
CUZKTRACE_OUT=$T/ownout.zst traced owncp cp $T/ownout.src $T/ownout.zst
expect_eq "cp to the trace's name: the copy identical to its source, status 0, one line" \
	"$(cmp $T/ownout.src $T/ownout.zst && echo same)/$(cat $T/owncp.rc)/$(grep -c '^cuzktrace: error: ' $T/owncp.err)/$(grep -c "^cuzktrace: $T/ownout.zst: " $T/owncp.err)" \
	"same/0/1/0"

# both_modes NAME WHAT WANT PROG...: PROG traced in exact and default mode; "WANT" is its output,
# and each run must end with status 0 and a complete trace
both_modes() {
	local name=$1 what=$2 want=$3 s; shift 3
	for s in 0 524288; do
		CUZKTRACE_SAMPLE=$s CUZKTRACE_OUT=$T/$name$s.zst traced $name$s "$@"
		$REPORT --json $T/$name$s.zst >$T/$name$s.json 2>/dev/null
		expect_eq "$what (CUZKTRACE_SAMPLE=$s): status 0, trace complete" \
			"$(cat $T/$name$s.out)/$(cat $T/$name$s.rc)/$(jget $T/$name$s.json truncated)" "$want/0/false"
	done
}
# A signal handler that allocates on a small alternate stack (the kernel's minimum signal
# frame + 6 KiB, at least 8 KiB): the stack capture's buffers (4 KiB) are the tracer's, not on
# that stack (it overflowed it: 20 of 20 runs aborted with a corrupted heap)
both_modes altstack "allocating on a small signal stack" "altstack: 2000" $P/altstack
# fork from a signal handler that interrupted malloc or free (legal in a program of one
# thread): glibc's fork waited for the arena lock the interrupted call held, for good, as the
# tracer's threads make the process one of several (since 0.2.21: _Fork there). 1,000,000
# rounds, about a thousand forks: each fork of a process of several threads makes the next
# writes to every page copies, with the other CPUs' TLBs flushed (perf: a third of the time
# in page faults and TLB flushes), so a traced run took 20 times as long as an untraced one
# (3,000,000 rounds: 0.6 s untraced, 12 s traced, over 60 s on a loaded machine)
for s in 0 524288; do
	timeout 60 env CUZKTRACE_SAMPLE=$s CUZKTRACE_OUT=$T/sigfork$s.zst LD_PRELOAD=$LIB $P/sigfork 1000000 >$T/sigfork.out 2>$T/sigfork.err
	rc=$?
	$REPORT --json $T/sigfork$s.zst >$T/sigfork.json 2>$T/sigfork.rerr
	expect_eq "fork from a handler that interrupted malloc (CUZKTRACE_SAMPLE=$s): status 0 within 60 s, its output, the trace complete, the reader silent, two lines on stderr" \
		"$rc/$(cat $T/sigfork.out)/$(jget $T/sigfork.json truncated)/$(cat $T/sigfork.rerr)/$(wc -l <$T/sigfork.err)" "0/forks: some/false//2"
done
# malloc is no cancellation point, traced or not: threads cancelled (deferred) between their
# allocations, 240 times in each mode (a capture went through glibc's read, a cancellation
# point: 2 to 120 of 240 threads were unwound from inside malloc or realloc)
both_modes cancel "cancelled threads: none inside an allocation call" "cancelalloc: elsewhere 0" $P/cancelalloc

# An allocator the tracer cannot see (the program exports its own malloc): one line says so.
# The tracer's own memory never comes from that allocator: its mmap inside malloc, the first
# traced call of a new thread, must not make the tracer call malloc (rustc, whose jemalloc
# exports malloc, deadlocked so); the 8 MiB it maps are traced. reallocarray, which the
# program does not define, calls the program's realloc, as glibc's does (since 0.2.21: the
# block came from glibc's heap).
CUZKTRACE_OUT=$T/own.zst traced own $P/ownmalloc
expect_eq "own allocator: program unchanged (not re-entered)" "$(cat $T/own.out)/$(cat $T/own.rc)" "own: done/0"
$REPORT --json $T/own.zst >$T/own.json
expect_eq "own allocator: its mapping is traced" "$(jget $T/own.json peak_mmap.bytes)" 8388608
expect_eq "own allocator: one line names it" "$(grep warning $T/own.err)" \
	"cuzktrace: warning: 'malloc' is provided by '$P/ownmalloc' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap"
# The same allocator with malloc and its kin defined as aliases of functions of other names, as
# allocators define them (tcmalloc's malloc is found as __libc_malloc, its realloc as
# tc_realloc): the same line, and reallocarray through its realloc (before 0.2.23 the tracer
# looked for a symbol named malloc: no line, and reallocarray went to glibc: exit 3; tcmalloc
# ahead of the tracer aborted sort, sed and grep -r). The report says it too, from the
# header (the line on stderr may be gone with the program's stderr).
CUZKTRACE_OUT=$T/ownalias.zst traced ownalias $P/ownalias
$REPORT --json $T/ownalias.zst >$T/ownalias.json 2>$T/ownalias.rerr
expect_eq "allocator of aliases ahead of the tracer: program unchanged, one line names it, the report says it, JSON allocator_ahead" \
	"$(cat $T/ownalias.out)/$(cat $T/ownalias.rc)/$(grep warning $T/ownalias.err)/$(cat $T/ownalias.rerr)/$(jget $T/ownalias.json allocator_ahead.function) $(jget $T/ownalias.json allocator_ahead.object)" \
	"own: done/0/cuzktrace: warning: 'malloc' is provided by '$P/ownalias' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap/cuzktrace-report: warning: '$T/ownalias.zst': 'malloc' was provided by '$P/ownalias' ahead of the tracer: the program's allocations through it are not in this trace/malloc $P/ownalias"
# The C library preloaded ahead of the tracer (LD_PRELOAD="libc.so.6 libcuzktrace.so"): no
# object after the tracer defines malloc, and the tracer takes the one ahead of it, so the
# program runs with the allocator-ahead lines (before 0.2.60: "cannot find the real 'malloc'
# ... cannot run", status 70, the program never ran)
LIBC_SO=$(ldd $P/exitcode | awk '/libc\.so/ {print $3}')
CUZKTRACE_OUT=$T/libcfirst.zst LD_PRELOAD="libc.so.6 $LIB" $P/exitcode >$T/libcfirst.out 2>$T/libcfirst.err
echo $? >$T/libcfirst.rc
expect_eq "libc.so.6 preloaded ahead of the tracer: the program runs (status 3, its output), the malloc and mmap lines name libc, a trace" \
	"$(cat $T/libcfirst.rc)/$(cat $T/libcfirst.out | tr '\n' ' ')/$(grep -c "^cuzktrace: warning: 'malloc' is provided by '$LIBC_SO' ahead of the tracer: " $T/libcfirst.err)$(grep -c "^cuzktrace: warning: 'mmap' is provided by '$LIBC_SO' ahead of the tracer too: " $T/libcfirst.err)/$(grep -c 'cannot find the real' $T/libcfirst.err)/$($REPORT --json $T/libcfirst.zst 2>/dev/null | $PY -c 'import json,sys; j=json.load(sys.stdin); print(j["allocator_ahead"]["function"], j["end_reason"])')" \
	"3/output line one output line two /11/0/malloc exit"
# ... a non-PIE program that takes malloc's address: the first definition found is its PLT
# stub, which defines nothing; the C library's own is taken (the stub was, and the program was
# named an allocator without malloc_usable_size: exact mode, one more line)
CUZKTRACE_OUT=$T/libcfirstnp.zst LD_PRELOAD="libc.so.6 $LIB" $P/nopieaddr >$T/libcfirstnp.out 2>$T/libcfirstnp.err
echo $? >$T/libcfirstnp.rc
expect_eq "libc.so.6 ahead, a non-PIE program taking malloc's address: runs, the lines name libc, no allocator-without-malloc_usable_size line" \
	"$(cat $T/libcfirstnp.rc)/$(cat $T/libcfirstnp.out)/$(grep -c "^cuzktrace: warning: 'malloc' is provided by '$LIBC_SO' ahead of the tracer: " $T/libcfirstnp.err)/$(grep -c 'malloc_usable_size' $T/libcfirstnp.err)" \
	"0/nopieaddr: done/1/0"
$REPORT --json $T/own.zst >$T/own2.json 2>/dev/null
CUZKTRACE_OUT=$T/notahead.zst LD_PRELOAD=$LIB $P/churn >/dev/null 2>&1
$REPORT --json $T/notahead.zst >$T/notahead.json 2>/dev/null
expect_eq "JSON allocator_ahead: the program's own malloc, none for a program without one" \
	"$(jget $T/own2.json allocator_ahead.object)/$(jget $T/notahead.json allocator_ahead)" "$P/ownmalloc/null"
# A non-PIE program that takes malloc's and realloc's addresses, started while another thread
# of it opens and closes a library in a loop (libdlloop.so, preloaded ahead): the tracer's look
# for where those stubs lead opened objects inside dl_iterate_phdr's callback, taking the
# loader's locks in the order opposite to dlopen's, and the start deadlocked (1 run in 4; now
# it opens them after the walk). 12 runs, each must end
dl_ok=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/dlloop.zst DLLOOP_LIB=$P/libplainlib.so timeout -s KILL 20 \
		env LD_PRELOAD="$P/libdlloop.so $LIB" $P/nopieaddr >$T/dlloop.out 2>/dev/null
	[ "$?/$(cat $T/dlloop.out)" = "0/nopieaddr: done" ] && dl_ok=$((dl_ok + 1))
done
expect_eq "non-PIE program, a thread opening libraries while the tracer starts: 12 of 12 runs end, status 0" "$dl_ok" 12
TCMALLOC=$(ls /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 /usr/lib64/libtcmalloc_minimal.so.4 2>/dev/null | head -1)
if [ -n "$TCMALLOC" ]; then
	printf 'b\na\nc\n' >$T/tc.in
	LD_PRELOAD="$TCMALLOC $LIB" CUZKTRACE_OUT=$T/tc.zst sort $T/tc.in >$T/tc.out 2>$T/tc.err
	expect_eq "tcmalloc ahead of the tracer: sort (reallocarray) runs, one line names malloc's provider, one its mmap's (tcmalloc's minimal library defines mmap: the program's mappings bypass the tracer)" \
		"$?/$(tr '\n' ' ' <$T/tc.out)/$(grep warning $T/tc.err | tr '\n' '|')" \
		"0/a b c /cuzktrace: warning: 'malloc' is provided by '$TCMALLOC' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap|cuzktrace: warning: 'mmap' is provided by '$TCMALLOC' ahead of the tracer too: mappings made through it are not traced (the mmap figures leave them out)|"
	# a non-PIE program that takes malloc's and realloc's addresses exports PLT stubs for them,
	# which lead to tcmalloc's: the same line, and reallocarray through tcmalloc's realloc
	# (before 0.2.23: no line, and an abort); without it, the stubs lead to the tracer's: no line
	CUZKTRACE_OUT=$T/npa.zst LD_PRELOAD="$TCMALLOC $LIB" $P/nopieaddr >$T/npa.out 2>$T/npa.err
	echo $? >$T/npa.rc
	CUZKTRACE_OUT=$T/npb.zst LD_PRELOAD="$LIB" $P/nopieaddr >$T/npb.out 2>$T/npb.err
	expect_eq "non-PIE program taking malloc's and realloc's addresses: with tcmalloc ahead, runs and one line names it; without, no line" \
		"$(cat $T/npa.rc)/$(cat $T/npa.out)/$(grep warning $T/npa.err | tr '\n' '|')/$(cat $T/npb.out)/$(grep -c warning $T/npb.err)" \
		"0/nopieaddr: done/cuzktrace: warning: 'malloc' is provided by '$TCMALLOC' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap|cuzktrace: warning: 'mmap' is provided by '$TCMALLOC' ahead of the tracer too: mappings made through it are not traced (the mmap figures leave them out)|/nopieaddr: done/0"
	# the same stub leading to glibc's libc_malloc_debug, whose malloc is a non-default symbol
	# version: found by the version the program binds to
	MDEBUG=$(gcc -print-file-name=libc_malloc_debug.so.0 2>/dev/null)
	if [ -f "$MDEBUG" ]; then
		MALLOC_CHECK_=3 CUZKTRACE_OUT=$T/npd.zst LD_PRELOAD="$MDEBUG $LIB" $P/nopieaddr >$T/npd.out 2>$T/npd.err
		expect_eq "non-PIE program, libc_malloc_debug ahead: runs, the line names malloc" \
			"$?/$(cat $T/npd.out)/$(grep -c "'malloc' is provided by '$MDEBUG'" $T/npd.err)" "0/nopieaddr: done/1"
	fi
	# behind the tracer, in a program whose own operator new calls malloc: tcmalloc's first
	# malloc_usable_size makes an object with that new, inside the tracer's hook; its own
	# call, not a signal handler's (since 0.2.23: a warning, and a lost event)
	CUZKTRACE_OUT=$T/tcnew.zst LD_PRELOAD="$LIB $TCMALLOC" $P/ownnew >$T/tcnew.out 2>$T/tcnew.err
	echo $? >$T/tcnew.rc
	$REPORT --json $T/tcnew.zst >$T/tcnew.json 2>/dev/null
	expect_eq "tcmalloc behind the tracer, the program's own operator new: runs, no warning, no lost event" \
		"$(cat $T/tcnew.rc)/$(cat $T/tcnew.out)/$(grep -c warning $T/tcnew.err)/$(jget $T/tcnew.json lost_events)" \
		"0/ownnew: done/0/0"
else
	echo "  skip tcmalloc ahead of the tracer: libtcmalloc-minimal4 is not installed"
fi
# the same when the tracer cannot trace (no check of the allocators runs then): reallocarray
# still finds the program's realloc
CUZKTRACE_OUT=$T/nodir/own.zst LD_PRELOAD=$LIB $P/ownmalloc >$T/ownu.out 2>$T/ownu.err
expect_eq "own allocator, running untraced: program unchanged" "$?/$(cat $T/ownu.out)/$(grep -c 'running untraced' $T/ownu.err)" "0/own: done/1"

# An allocator behind the tracer's malloc that also serves C++ operator new without malloc
# (tcmalloc, jemalloc, mimalloc preloaded after the tracer or linked; libnewalloc.so here): the
# tracer traces its new and delete itself (before 0.2.15 the trace held 169 KiB of 51 MiB
# without a word). The figures are those of glibc's new, which calls malloc: 50 MiB + 1000 x
# 1000 + 100,000 + libstdc++'s 72,704-byte emergency pool, in both modes. A new that throws
# std::bad_alloc (three times, caught) leaves the hook with its guard down: the 1,000,000
# bytes allocated after it are traced, through either new.
if [ -x $P/cxxnew ]; then
	for cx in 0 524288; do
		CUZKTRACE_SAMPLE=$cx CUZKTRACE_OUT=$T/cxxnew$cx.zst LD_PRELOAD="$LIB $P/libnewalloc.so" $P/cxxnew >$T/cxxnew.out 2>$T/cxxnew.err
		echo "$?/$(cat $T/cxxnew.out)/$(grep -c warning $T/cxxnew.err)/$($REPORT --json $T/cxxnew$cx.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["peak_heap"]["bytes"], d["live_at_exit"]["heap_bytes"])')"
	done >$T/cxxnew.got
	CUZKTRACE_OUT=$T/cxxglibc.zst traced cxxglibc $P/cxxnew
	$REPORT --json $T/cxxglibc.zst >$T/cxxglibc.json 2>/dev/null
	expect_eq "operator new from the allocator behind malloc, exact and default mode: status, output, no line, the peak heap and live at exit of glibc's new" \
		"$(cat $T/cxxnew.got | tr '\n' ' ')/$(jget $T/cxxglibc.json peak_heap.bytes) $(jget $T/cxxglibc.json live_at_exit.heap_bytes)" \
		"0/cxxnew: done/0/53601504 76800 0/cxxnew: done/0/53601504 76800 /$((52428800 + 1000 * 1000 + 100000 + 72704)) 76800"
	# aligned new: libstdc++'s asks aligned_alloc for the size rounded up to the alignment
	# (4096 for 777 bytes aligned to 4096, 128 for 100 aligned to 64), which counted before
	# 0.2.17; the sizes asked for count, as through an allocator that serves new itself
	for cx in glibc newalloc; do
		case $cx in
		glibc) cx_pre=$LIB ;;
		newalloc) cx_pre="$LIB $P/libnewalloc.so" ;;
		esac
		CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/cxxal$cx.zst LD_PRELOAD="$cx_pre" $P/cxxnew aligned >$T/cxxal.out 2>$T/cxxal.err
		echo "$?/$(cat $T/cxxal.out)/$($REPORT --json $T/cxxal$cx.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["live_at_exit"]["heap_bytes"], sorted(s["bytes"] for s in d["sites_at_exit"] if s["bytes"] != 72704))')"
	done >$T/cxxal.got
	# (and a posix_memalign of 4096 after them counts 4096 where the allocator's own aligned new
	# left the size asked for waiting: 777; and new of 0 bytes counted 64 through libstdc++;
	# the block of new of 0 is listed at exit, with its 0 bytes, since 0.2.21)
	expect_eq "aligned new of 777 bytes (alignment 4096), new[] of 100 (64), new of 0 (64), then posix_memalign of 4096, live at exit, exact mode, libstdc++'s new and the allocator's own: the sizes asked for" \
		"$(cat $T/cxxal.got | tr '\n' ' ')" "0/cxxnew: done/$((76800 + 877 + 4096)) [0, 100, 777, 4096, 4096] 0/cxxnew: done/$((76800 + 877 + 4096)) [0, 100, 777, 4096, 4096] "
	# no operator new but the tracer's (a C program calls it by name): its stand-in serves an
	# alignment of 16 with malloc, and the aligned_alloc after it counts its own size (it
	# counted the new's 100 before)
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/cxxfb.zst traced cxxfb $P/cxxfallback
	expect_eq "aligned new with no definition but the tracer's (100 bytes, alignment 16), then aligned_alloc of 112: status, output, each its own size" \
		"$(cat $T/cxxfb.rc)/$(cat $T/cxxfb.out)/$($REPORT --json $T/cxxfb.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(sorted(s["bytes"] for s in d["sites_at_exit"] if "cxxfallback.c:" in s["site"]))')" \
		"0/cxxfallback: done/[100, 112]"
	for cx in glibc newalloc; do
		case $cx in
		glibc) cx_pre=$LIB ;;
		newalloc) cx_pre="$LIB $P/libnewalloc.so" ;;
		esac
		CUZKTRACE_OUT=$T/cxxthrow$cx.zst LD_PRELOAD="$cx_pre" $P/cxxthrow >$T/cxxthrow.out 2>$T/cxxthrow.err
		echo "$?/$(cat $T/cxxthrow.out)/$(grep -c warning $T/cxxthrow.err)/$($REPORT --json $T/cxxthrow$cx.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["peak_heap"]["bytes"])')"
	done >$T/cxxthrow.got
	expect_eq "operator new throws bad_alloc 3 times through the hook (libstdc++'s new; the allocator's own): caught, and the block after it traced (1,000,000 + 72,704)" \
		"$(cat $T/cxxthrow.got | tr '\n' ' ')" "0/cxxthrow: caught 3/0/1072704 0/cxxthrow: caught 3/0/1072704 "
	# the exceptions' blocks (one each, from __cxa_allocate_exception; 136 bytes in GCC 12's
	# libstdc++) belong to the call that failed: a frame a stripped libstdc++ names no symbol
	# for, between them, was their site (since 0.2.20 plumbing: libstdc++.so.6+0x9d500 owned
	# every failed new's exception)
	# ... also where the allocator's own new threw them (since 0.2.56: their malloc passed
	# untraced under the hook's guard and each catch's free was of a block never seen, the
	# default mode's heap below zero; the hook's frame in their stacks is the tracer's, taken
	# out)
	# ... and where tcmalloc, behind the tracer, serves new itself and throws them (since 0.2.59:
	# its frame, libtcmalloc_minimal.so.4+0x..., owned every one)
	cx_line=$(grep -n 'operator new(static_cast' $ROOT/tests/progs/cxxthrow.cc | cut -d: -f1)
	cx_tc=$(ls /usr/lib/*/libtcmalloc_minimal.so.4 2>/dev/null | head -1)
	cx_all="glibc newalloc"
	if [ -n "$cx_tc" ]; then
		CUZKTRACE_OUT=$T/cxxthrowtcmalloc.zst LD_PRELOAD="$LIB $cx_tc" $P/cxxthrow >/dev/null 2>&1
		cx_all="$cx_all tcmalloc"
	else
		echo "  skip the exceptions of tcmalloc's failed new: libtcmalloc_minimal.so.4 is not installed"
	fi
	for cx in $cx_all; do
		$REPORT --sites-csv - $T/cxxthrow$cx.zst 2>/dev/null | $PY -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
mine = [r for r in rows if r["site"] == "main (tests/progs/cxxthrow.cc:%s)" % sys.argv[1]]
print(len(mine), [(r["bytes_at_peak_heap"], r["allocations"], int(r["allocated_bytes"]) == 3 * int(r["site_peak_bytes"]) > 0) for r in mine],
      sum(r["site"].startswith("libstdc++") or "hooks_cxx" in r["site"] for r in rows))' $cx_line
	done >$T/cxxthrowsites.got
	expect_eq "the exceptions of a failed new (libstdc++'s; the allocator's own; tcmalloc's where installed): main's line of the call owns them (3 allocations of one size, freed)" \
		"$(cat $T/cxxthrowsites.got | tr '\n' ' ')" "$(for cx in $cx_all; do printf '%s ' "1 [('0', '3', True)] 0"; done)"
	# ... and in the default mode, 20,000 of them caught: the heap never below zero
	CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/cxxthrowmany.zst LD_PRELOAD="$LIB $P/libnewalloc.so" $P/cxxthrow 20000 >$T/cxxthrowmany.out 2>/dev/null
	expect_eq "20,000 bad_alloc caught from the allocator's own new, default mode: the report silent, the exceptions' bytes freed" \
		"$(cat $T/cxxthrowmany.out)/$($REPORT --json $T/cxxthrowmany.zst 2>&1 >/dev/null)/$($REPORT --json $T/cxxthrowmany.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["peak_heap"]["bytes"] >= 1000000, d["live_at_exit"]["heap_bytes"] < 100000)')" \
		"cxxthrow: caught 20000//True True"
	# a new-handler that frees an emergency reserve: traced with libstdc++'s new (it runs
	# outside any hook); inside the allocator's own new it cannot be recorded: counted lost and
	# said in one line (it passed silently, the reserve left live in the trace)
	for cx in glibc newalloc; do
		case $cx in
		glibc) cx_pre=$LIB ;;
		newalloc) cx_pre="$LIB $P/libnewalloc.so" ;;
		esac
		CUZKTRACE_OUT=$T/cxxh$cx.zst LD_PRELOAD="$cx_pre" $P/cxxthrow handler >$T/cxxh.out 2>$T/cxxh.err
		echo "$?/$(cat $T/cxxh.out)/$(grep -c "^cuzktrace: warning: a C++ new-handler (or other code the allocator's own operator new called) called the allocator while that new ran; such calls cannot be recorded and are counted as lost events\$" $T/cxxh.err)/$($REPORT --json $T/cxxh$cx.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["live_at_exit"]["heap_bytes"], d["lost_events"] > 0)')"
	done >$T/cxxh.got
	expect_eq "a new-handler that frees a reserve: with libstdc++'s new traced (reserve gone at exit); inside the allocator's own new, counted lost, one line" \
		"$(cat $T/cxxh.got | tr '\n' ' ')" "0/cxxthrow: caught 3, reserve freed/0/76800 False 0/cxxthrow: caught 3, reserve freed/1/5076800 True "
	# a C program that opens a C++ plugin RTLD_LOCAL: no libstdc++ after the tracer in the
	# global scope, yet the plugin's new binds to the tracer's; it passes the call on to the
	# definition in the caller's own scope (the plugin's libstdc++), aligned new stays aligned,
	# bad_alloc is caught, and both blocks are traced at their site, under libstdc++'s new
	CUZKTRACE_OUT=$T/cxxlocal.zst traced cxxlocal $P/cxxlocal
	expect_eq "C++ plugin opened RTLD_LOCAL by a C program: status, output (aligned new aligned, bad_alloc caught), its sites through libstdc++'s new" \
		"$(cat $T/cxxlocal.rc)/$(cat $T/cxxlocal.out)/$($REPORT --json $T/cxxlocal.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(sorted((s["bytes"], s["frames"][0].split(" (")[0]) for s in d["sites_at_peak_heap"] if s["site"].startswith("plug_run ")))')" \
		"0/cxxlocal: ok/[(64, 'operator new(unsigned long, std::align_val_t)'), (3000000, 'operator new(unsigned long)')]"
	# a real C++ extension opened RTLD_LOCAL by a C program: Debian's python3-apt (libapt-pkg)
	# under /usr/bin/python3, which does not link libstdc++: a package cache read, an
	# exception thrown in C++ and caught in Python, the same output as untraced, and the
	# heaviest sites under libstdc++'s operator new
	if /usr/bin/python3 -c 'import apt_pkg' 2>/dev/null; then
		cat >$T/aptt.py <<'PYEOF'
import apt_pkg
apt_pkg.init()
c = apt_pkg.Cache(None)
print("packages", sum(1 for p in c.packages) > 100, "cmp", apt_pkg.version_compare("1.2", "1.10") < 0)
try:
    apt_pkg.TagFile("/nonexistent")
except apt_pkg.Error as e:
    print("error caught")
PYEOF
		/usr/bin/python3 $T/aptt.py >$T/aptt.want 2>&1
		CUZKTRACE_OUT=$T/aptt.zst traced aptt /usr/bin/python3 $T/aptt.py
		expect_eq "python3-apt (C++, RTLD_LOCAL under python3): status, output as untraced, its blocks under libstdc++'s operator new" \
			"$(cat $T/aptt.rc)/$(cat $T/aptt.out)/$($REPORT --json $T/aptt.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(d["sites_by_allocations"][0]["frames"][0].split(" (")[0])')" \
			"0/$(cat $T/aptt.want)/operator new(unsigned long)"
	else
		echo "  skip python3-apt under the tracer: /usr/bin/python3 cannot import apt_pkg"
	fi
	# a library that replaces dlsym, preloaded ahead of the tracer (MangoHud, VirtualGL's
	# faker, apitrace): the tracer's "next" lookups go through glibc's own dlsym, not that
	# one, which looked from its own place and found the tracer's functions: every hook
	# called itself (the program spun for good at its first read). C++ plugins, RTLD_LOCAL
	CUZKTRACE_OUT=$T/dlsymshim.zst timeout -s KILL 60 env LD_PRELOAD="$P/libdlsymshim.so $LIB" $P/cxxlocal static >$T/dlsymshim.out 2>$T/dlsymshim.err
	expect_eq "a dlsym-replacing library preloaded ahead of the tracer: status, output, the plugin's 3,000,000 bytes traced" \
		"$?/$(cat $T/dlsymshim.out)/$($REPORT --json $T/dlsymshim.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(sum(s["bytes"] for s in d["sites_at_peak_heap"] if s["site"].startswith("plug_run ")) >= 3000000)')" \
		"0/cxxlocal: ok ok/True"
	# first a plugin built with -static-libstdc++ (its own operator new, exported; its calls
	# bind to the tracer's), RTLD_LOCAL, then the shared-libstdc++ one RTLD_GLOBAL: each gets
	# its own new, and catches its own bad_alloc (the first aborted the host: status 134)
	CUZKTRACE_OUT=$T/cxxstatic.zst traced cxxstatic $P/cxxlocal static
	expect_eq "C++ plugins, one with its own static libstdc++ (RTLD_LOCAL), then one with the shared one (RTLD_GLOBAL): status, each its own new and bad_alloc" \
		"$(cat $T/cxxstatic.rc)/$(cat $T/cxxstatic.out)" "0/cxxlocal: ok ok"
	# the shape of "import torch" (Python opens PyTorch RTLD_LOCAL): libcxxinner's constructor
	# calls new with its registry's mutex held, then libcxxouter's registers through it. The
	# tracer finds the caller's operator new without the loader: a dlopen, even RTLD_NOLOAD,
	# inside that new may run libcxxouter's constructor inside libcxxinner's (glibc 2.39 does,
	# and the process hung for good on the mutex); here the loader's debug output shows it as
	# an extra opening of libcxxinner.so. Both blocks are traced, under libstdc++'s new.
	CUZKTRACE_OUT=$T/cxxnest.zst LD_DEBUG=files timeout -s KILL 60 env LD_PRELOAD=$LIB $P/cxxlocal nested >$T/cxxnest.out 2>$T/cxxnest.err
	expect_eq "C++ library opened RTLD_LOCAL whose dependency's constructor calls new with a mutex held (the shape of import torch): status, output, the loader opens nothing more than untraced, the registry's blocks live at exit" \
		"$?/$(cat $T/cxxnest.out)/$(grep -o 'opening file=[^ ]*' $T/cxxnest.err | sed 's|.*/||' | tr '\n' ' ')/$($REPORT --json $T/cxxnest.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
print([(s["bytes"], s["count"], s["frames"][0].split(" (")[0]) for s in d["sites_at_exit"] if s["site"].startswith("cxx_reg(unsigned long) (tests/progs/lib/cxxinner.cc:17)")])')" \
		"0/cxxlocal: nested 2/libcxxouter.so /[(300019, 3, 'operator new(unsigned long)')]"
	# whose operator new a caller gets is found in its own scope, in the loader's order: not an
	# unrelated RTLD_LOCAL library's that defines one (its count stays 0, and closing it leaves
	# the caller working), the first of the caller's DT_NEEDED that defines one (libcxxown.so
	# ahead of libstdc++, already loaded), a library the loader moved below its link address
	# (its load bias wraps) is read without a fault, and a library with 40 DT_NEEDED entries
	# ahead of libstdc++ finds it (a cap of 32 objects gave it the malloc family's stand-in,
	# which aborts where new throws); after a dlclose, what was found for the closed plugin is
	# not used for the next one mapped over its addresses (it jumped into the first's new); a
	# static-libstdc++ plugin opened RTLD_GLOBAL first is not passed to for good (after its
	# dlclose the next new jumped into it)
	for m in other needed highbias many reload globalfirst; do
		CUZKTRACE_OUT=$T/cxxscope.zst timeout -s KILL 60 env LD_PRELOAD=$LIB $P/cxxlocal $m 2>/dev/null
		echo "/$?"
	done >$T/cxxscope.got
	expect_eq "operator new in the caller's scope (each bad_alloc caught: libstdc++'s new[]): not another RTLD_LOCAL library's, two levels down, the first of its DT_NEEDED, a library below its link address, past 40 C libraries, a static-libstdc++ plugin closed and another opened over its addresses, one opened RTLD_GLOBAL first then closed" \
		"$(tr '\n' ' ' <$T/cxxscope.got)" "cxxlocal: other 7 1 0 7 /0 cxxlocal: needed 7 1 /0 cxxlocal: highbias ok /0 cxxlocal: many 7 1 /0 cxxlocal: reload ok ok /0 cxxlocal: globalfirst ok ok /0 "
else
	echo "  skip operator new from the allocator behind malloc: libstdc++.so.6 not found"
fi
# the program waits in its own dl_iterate_phdr callback for another thread's dlclose of a
# library still open elsewhere (glibc takes only the load lock there): the tracer's dlclose
# takes no lock of the loader (one that walked the loaded objects waited for good)
timeout -s KILL 60 env CUZKTRACE_OUT=$T/closewait.zst LD_PRELOAD=$LIB $P/closewait >$T/closewait.out 2>$T/closewait.err
expect_eq "dlclose from a thread while another waits for it in a dl_iterate_phdr callback: status, output" \
	"$?/$(cat $T/closewait.out)" "0/closewait: ok"

# The same with 40 thread-specific keys taken before the tracer's (a library of the program
# makes them): glibc's pthread_setspecific then callocs, and that calloc is the program's.
# The tracer does without its exit key on such threads (the writer finds them gone).
CUZKTRACE_OUT=$T/ownk.zst traced ownk $P/ownmalloc_keys
$REPORT --json $T/ownk.zst >$T/ownk.json
expect_eq "own allocator, key past glibc's first 32: not re-entered, its mapping traced" \
	"$(cat $T/ownk.out)/$(cat $T/ownk.rc)/$(jget $T/ownk.json peak_mmap.bytes)" "own: done/0/8388608"

# The real thing: rustc links jemalloc and exports its malloc. It must compile a program
# under the tracer (it hung before the tracer kept to glibc's allocator), with the one line.
RUSTC_BIN=
command -v rustc >/dev/null 2>&1 && RUSTC_BIN=$(rustc --print sysroot 2>/dev/null)/bin/rustc
if [ -x "$RUSTC_BIN" ] && nm -D --defined-only "$RUSTC_BIN" 2>/dev/null | grep -q ' T malloc$'; then
	printf 'fn main() { let v: Vec<u64> = (0..1000).collect(); println!("{}", v.len()); }\n' >$T/hello.rs
	# (without make's jobserver variables: under `make -j` rustc warns that it cannot connect)
	CUZKTRACE_OUT=$T/rustc.zst timeout 120 env -u MAKEFLAGS -u MFLAGS -u CARGO_MAKEFLAGS LD_PRELOAD=$LIB "$RUSTC_BIN" -o $T/hello $T/hello.rs >$T/rustc.out 2>$T/rustc.err
	expect_eq "rustc (jemalloc exports malloc) under the tracer: compiles, the program runs, one line" \
		"$?/$($T/hello)/$(grep -c warning $T/rustc.err)/$(grep warning $T/rustc.err)" \
		"0/1000/1/cuzktrace: warning: 'malloc' is provided by '$RUSTC_BIN' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap"
else
	echo "  skip rustc under the tracer: no rustc that exports its own malloc"
fi

# glibc's libc_malloc_debug.so (mtrace, MALLOC_CHECK_) defines malloc and its kin as
# non-default symbol versions, which dlsym does not find. Preloaded ahead of the tracer it took
# every allocation without the line that says so; after it, the tracer called glibc's malloc
# past it and mtrace logged nothing. tests/progs/mtraced.c
MDEBUG=$(gcc -print-file-name=libc_malloc_debug.so.0 2>/dev/null)
if [ -f "$MDEBUG" ]; then
	MALLOC_TRACE=$T/mt.plain LD_PRELOAD=$MDEBUG $P/mtraced >/dev/null
	mtlines=$(wc -l <$T/mt.plain)
	MALLOC_TRACE=$T/mt.first CUZKTRACE_OUT=$T/mtfirst.zst LD_PRELOAD="$MDEBUG $LIB" $P/mtraced >$T/mtfirst.out 2>$T/mtfirst.err
	echo $? >$T/mtfirst.rc
	expect_eq "malloc_debug ahead of the tracer: runs, mtrace logs as untraced ($mtlines lines), one line says the allocations are not traced" \
		"$(cat $T/mtfirst.rc)/$(cat $T/mtfirst.out)/$(wc -l <$T/mt.first)/$(grep warning $T/mtfirst.err)" \
		"0/done/$mtlines/cuzktrace: warning: 'malloc' is provided by '$MDEBUG' ahead of the tracer: allocations through it are not traced (an allocator linked into the program?); expect RSS well above the traced heap"
	MALLOC_TRACE=$T/mt.after CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/mtafter.zst LD_PRELOAD="$LIB $MDEBUG" $P/mtraced >$T/mtafter.out 2>$T/mtafter.err
	echo $? >$T/mtafter.rc
	$REPORT --json $T/mtafter.zst >$T/mtafter.json
	expect_eq "malloc_debug after the tracer: traced (57,821 bytes in 51 blocks live at exit), mtrace still logs ($mtlines lines), no line" \
		"$(cat $T/mtafter.rc)/$(cat $T/mtafter.out)/$(wc -l <$T/mt.after)/$(grep -c warning $T/mtafter.err)/$(jget $T/mtafter.json live_at_exit.heap_bytes)/$(jget $T/mtafter.json live_at_exit.heap_blocks)" \
		"0/done/$mtlines/0/57821/51"
	# mcheck (-lmcheck) puts a header of its own before each block: the usable sizes come from
	# the debug library's malloc_usable_size, found as the loader binds it, not from a glibc
	# chunk header (before 0.2.55 a free of 100 bytes read as 93 TB and the default mode
	# recorded every event); 1,000 blocks of 100 bytes and stdout's 4,096-byte buffer at the peak
	CUZKTRACE_OUT=$T/mcd.zst env -u CUZKTRACE_SAMPLE LD_PRELOAD="$LIB $MDEBUG" $P/mchecked >$T/mcd.out 2>/dev/null
	echo $? >$T/mcd.rc
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/mce.zst LD_PRELOAD="$LIB $MDEBUG" $P/mchecked >/dev/null 2>&1
	$REPORT --json $T/mcd.zst >$T/mcd.json
	$REPORT --json $T/mce.zst >$T/mce.json
	expect_eq "mcheck after the tracer: default mode records few events (the small blocks counted), exact mode's peak exact" \
		"$(cat $T/mcd.rc)/$(tr '\n' ' ' <$T/mcd.out)/$(jget $T/mcd.json events | awk '{print ($1 < 1000)}')/$(jget $T/mce.json peak_heap.bytes)" \
		"0/usable 100 done /1/104096"
	# a failed posix_memalign leaves the program's pointer as the allocator behind the tracer
	# does: the debug library sets NULL (the tracer left the old value, before 0.2.55)
	for order in "$MDEBUG $LIB" "$LIB $MDEBUG"; do
		CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/pmf.zst LD_PRELOAD="$order" $P/memalignfail 2>/dev/null
	done >$T/pmf.out
	expect_eq "posix_memalign failing under the debug library: the pointer as untraced (NULL), both orders" \
		"$(LD_PRELOAD=$MDEBUG $P/memalignfail)/$(tr '\n' '/' <$T/pmf.out)$($P/memalignfail)" \
		"posix_memalign 12 (nil)/posix_memalign 12 (nil)/posix_memalign 12 (nil)/posix_memalign 12 0x1234"
else
	echo "  skip libc_malloc_debug: not found"
fi

# Memory the tracer cannot see (192 MiB mapped by a raw system call): the reader says so.
CUZKTRACE_OUT=$T/raw.zst traced raw $P/rawmap
$REPORT --json $T/raw.zst >$T/raw.json 2>$T/raw.rerr
expect_eq "unseen memory: flagged in JSON" "$(jget $T/raw.json peak_rss.untraced_suspected)" true
expect_match "unseen memory: one warning line" "$(cat $T/raw.rerr)" \
	"^cuzktrace-report: warning: '$T/raw.zst': the peak RSS is [0-9.]+ MiB \([0-9]+% of it\) above everything traced at its own peak: the program may allocate through an allocator the tracer cannot see \(one with its own symbol names, such as Rust's jemallocator\), move the heap's end itself \(brk, sbrk\), map memory with raw system calls, or use it on thread stacks \(glibc maps them out of the tracer's sight\)$"
# ... and taken by sbrk (an allocator of its own moving the heap's end): the same line, its
# share that of the peak RSS (the 192 MiB and more are 90% to 100% of it; before 0.2.57 "(99%) above" with
# no brk among the causes)
CUZKTRACE_OUT=$T/rawbrk.zst traced rawbrk $P/rawmap brk
$REPORT --json $T/rawbrk.zst >$T/rawbrk.json 2>$T/rawbrk.rerr
expect_match "memory taken by sbrk: flagged, the warning's share of the peak RSS, brk among the causes" \
	"$(cat $T/rawbrk.rc)/$(jget $T/rawbrk.json peak_rss.untraced_suspected)/$(cat $T/rawbrk.rerr)" \
	"^0/true/cuzktrace-report: warning: '$T/rawbrk.zst': the peak RSS is 19[0-9] MiB \((9[0-9]|100)% of it\) above everything traced at its own peak: .*move the heap's end itself \(brk, sbrk\), map memory.*$"
# ... and the memory is on thread stacks (8 threads touch 12 MiB each, glibc mapped the stacks
# itself): the warning names stacks as a cause (it named only hidden allocators and raw mmap)
CUZKTRACE_OUT=$T/bigst.zst traced bigst $P/bigstacks
$REPORT --json $T/bigst.zst >$T/bigst.json 2>$T/bigst.rerr
expect_match "memory on thread stacks: flagged, the warning names thread stacks" \
	"$(jget $T/bigst.json peak_rss.untraced_suspected)/$(cat $T/bigst.rerr)" \
	"^true/cuzktrace-report: warning: '$T/bigst.zst': the peak RSS is [0-9.]+ MiB \([0-9]+% of it\) above everything traced at its own peak: .*, or use it on thread stacks \(glibc maps them out of the tracer's sight\)$"
# ... also after 400 threads ran one after another (their tracer buffers, 768 KiB each, were
# allowed for every thread ever seen: 300 MiB, and the warning went silent)
CUZKTRACE_OUT=$T/rawt.zst traced rawt $P/rawmap threads 400
$REPORT --json $T/rawt.zst >$T/rawt.json 2>$T/rawt.rerr
expect_eq "unseen memory, 400 threads one after another: flagged, one warning, 401 threads" \
	"$(jget $T/rawt.json peak_rss.untraced_suspected)/$(grep -c 'above everything traced' $T/rawt.rerr)/$(jget $T/rawt.json threads)" "true/1/401"
expect_match "unseen memory, 400 threads one after another: a few alive at once (a thread's end is recorded a flush or two late)" \
	"$(jget $T/rawt.json threads_at_once)" "^([2-9]|1[0-9])$"
CUZKTRACE_OUT=$T/rawm.zst traced rawm $P/rawmap malloc
$REPORT --json $T/rawm.zst >$T/rawm.json 2>$T/rawm.rerr
expect_eq "the same memory from malloc: not flagged, no warning" \
	"$(jget $T/rawm.json peak_rss.untraced_suspected)/$(cat $T/rawm.rerr)" "false/"
expect_eq "the same memory from malloc: 192 MiB of heap at the peak RSS" "$(jget $T/rawm.json peak_rss.heap_bytes)" 201326592
# ... nor 192 MiB of file pages mapped out of sight (a raw mmap of a file, read through), as the
# loader maps a big library's code: clang's LLVM read as 85 MiB unseen (74 MiB of it file pages)
CUZKTRACE_OUT=$T/rawf.zst traced rawf $P/rawmap file $T/rawf.dat
$REPORT --json $T/rawf.zst >$T/rawf.json 2>$T/rawf.rerr
expect_eq "file pages mapped out of the tracer's sight: not flagged, no warning, at least 192 MiB of file pages at the peak RSS" \
	"$(cat $T/rawf.rc)/$(jget $T/rawf.json peak_rss.untraced_suspected)/$(cat $T/rawf.rerr)/$(($(jget $T/rawf.json peak_rss.detail.rss_file_bytes) >= 201326592))" "0/false//1"
# ... but a non-PIE executable that only takes malloc's address (Debian's python3) exports a PLT
# stub as "malloc" that calls ours: no warning for it.
CUZKTRACE_OUT=$T/py.zst traced py /usr/bin/python3 -c 'print("py: done")'
expect_eq "non-PIE program using the real malloc: no warning" "$(cat $T/py.out)/$(grep -c warning $T/py.err)" "py: done/0"

# The tracer's descriptors (trace, a copy of stderr, libunwind's pipe, the RSS files) sit at or
# above the program's soft limit when the hard limit allows: the program can open exactly as
# many files as untraced (before, 7 fewer: with a soft limit of 8, sort could not open its
# input), and the soft limit it sees is its own.
fd_hard=$(ulimit -H -n)
for lim in 16 1024; do
	if [ "$fd_hard" != unlimited ] && [ "$fd_hard" -lt $((lim + 64)) ]; then
		echo "  skip descriptors (soft limit $lim): the hard limit ($fd_hard) leaves no room above it"
		continue
	fi
	fdc_plain=$(bash -c "ulimit -S -n $lim; $P/fdcount")
	fdc_traced=$(bash -c "ulimit -S -n $lim; CUZKTRACE_OUT=$T/fdcount.zst LD_PRELOAD=$LIB $P/fdcount 2>/dev/null; ulimit -S -n")
	expect_eq "descriptors (soft limit $lim): the program opens as many files traced as untraced, its limit unchanged" \
		"$fdc_traced" "$fdc_plain
$lim"
done

# Running untraced after a failed setup gives back the descriptors the tracer kept (its copy of
# stderr, /proc's): under a hard limit of 5 the trace file cannot be opened, and the program
# then opened 1 file where untraced it opens 2; under 200, with a directory that does not exist,
# as many as untraced too (one fewer before: the copy of stderr)
for lim in 5 200; do
	fdu_dir=$T; fdu_why='Too many open files'
	[ $lim = 200 ] && fdu_dir=$T/nodir fdu_why='No such file or directory'
	fdu_plain=$(bash -c "ulimit -n $lim; $P/fdcount")
	fdu_traced=$(bash -c "ulimit -n $lim; CUZKTRACE_OUT=$fdu_dir/fdu.zst LD_PRELOAD=$LIB $P/fdcount 2>$T/fdu.err")
	expect_eq "running untraced after a failed setup (limit $lim): as many files as untraced, one line" \
		"$fdu_traced/$(cat $T/fdu.err)" "$fdu_plain/cuzktrace: error: cannot trace to '$fdu_dir/fdu.zst': $fdu_why; running untraced"
done

# An exec'd image also holds the old trace and the name it was given locked: above the
# limit as well, or not at all when the hard limit leaves no room (it took one of the
# program's numbers: 5 files instead of 6 under a hard limit of 16)
if [ "$fd_hard" = unlimited ] || [ "$fd_hard" -ge 80 ]; then
	mkdir -p $T/fdx
	fdx_plain=$(bash -c "ulimit -S -n 16; $P/fdcount")
	fdx_exec=$(bash -c "ulimit -S -n 16; CUZKTRACE_OUT=$T/fdx/a.zst LD_PRELOAD=$LIB env env $P/fdcount 2>/dev/null")
	fdx_hard=$(bash -c "ulimit -n 16; CUZKTRACE_OUT=$T/fdx/b.zst LD_PRELOAD=$LIB $P/fdcount 2>/dev/null")
	fdx_hard_exec=$(bash -c "ulimit -n 16; CUZKTRACE_OUT=$T/fdx/c.zst LD_PRELOAD=$LIB env env $P/fdcount 2>/dev/null")
	expect_eq "descriptors after two execs: as many files as untraced (soft limit 16); no fewer than without the execs (hard limit 16)" \
		"$fdx_exec/$fdx_hard_exec" "$fdx_plain/$fdx_hard"
fi

# Under a hard limit of 16 (ulimit -n sets both) the tracer's descriptors go to the top of the
# range: the program's opens get the lowest number, 3, as untraced (every one got 8 before).
# Below 128 descriptors the writer opens /proc/self/stat for a moment once a flush instead of
# keeping one more: an open at that moment gets 4 (about 1 in 10,000 here)
(ulimit -n 16; CUZKTRACE_OUT=$T/lowfd16.zst traced lowfd16 $P/lowfd)
expect_eq "ulimit -n 16: the opens get the lowest free number (3), as untraced, but for under 1% (lowfd's status says whether any missed)" \
	"$(sed -E 's/^lowfd: ([0-9]+) opens, ([0-9]+) not the lowest number$/\1 \2/' $T/lowfd16.out | awk '{print ($1 > 1000 && $2 * 100 < $1) ? "yes" : $0}')" "yes"

# descriptors reopened after the program closed them all go near the top of its range, without
# touching its limit: two threads that read the limit and set it again never see it raised,
# and it ends where it started (it grew from 64 to 512 when reopens raised it for a moment)
expect_eq "descriptor limit read and set again by threads while the tracer reopens its files: never changed" \
	"$(bash -c "ulimit -S -n 64; CUZKTRACE_OUT=$T/rlrace.zst timeout -s KILL 60 env LD_PRELOAD=$LIB $P/rlimitrace 2>/dev/null")" \
	"rlimitrace: start=64 end=64 changed=0"

# stderr appended to a file already past the program's file-size limit (the trace file stays
# under it): the exit line cannot be written, and its SIGXFSZ must not end the program (it
# did: status 153); the trace is complete, stderr keeps only the init line
head -c 10000 /dev/zero | tr '\0' x >$T/fsize.err
CUZKTRACE_OUT=$T/fsize.zst timeout -s KILL 60 env LD_PRELOAD=$LIB $P/fsizelimit 8000 2>>$T/fsize.err
fs_rc=$?
$REPORT --json $T/fsize.zst >$T/fsize.json 2>/dev/null
expect_eq "stderr past the file-size limit: status 0, complete, 3,200 bytes live, stderr only the init line" \
	"$fs_rc/$(jget $T/fsize.json truncated)/$(jget $T/fsize.json live_at_exit.heap_bytes)/$(tail -c +10001 $T/fsize.err | sed "s|^cuzktrace: tracing fsizelimit (pid [0-9]*) to $T/fsize.zst$|init line|")" \
	"0/false/3200/init line"

# a signal handler that allocates while it interrupted a traced malloc or free (undefined in
# POSIX, done anyway): the tracer cannot record those calls (the thread's ring slot or running
# totals are half written) and counts them lost. Every malloc and free of the program is either
# an event of the trace or counted lost (before, about 2,000 of 800,000 calls vanished, nothing
# said); one warning line, and the exit line and the report say how many were lost
for m in 0 524288; do
	CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/sigal$m.zst timeout -s KILL 120 env LD_PRELOAD=$LIB $P/sigalloc \
		>$T/sigal$m.out 2>$T/sigal$m.err
	$REPORT --json $T/sigal$m.zst >$T/sigal$m.json 2>$T/sigal$m.rerr
	sa_lost=$(jget $T/sigal$m.json lost_events)
	sa_warn=$(grep -c '^cuzktrace: warning: a signal handler called the allocator (or mmap) while it interrupted a traced call of it; such calls cannot be recorded and are counted as lost events$' $T/sigal$m.err)
	sa_exit=$(grep -c "^cuzktrace: $T/sigal$m.zst: [0-9]* events, .* written, $sa_lost events lost\$" $T/sigal$m.err)
	sa_rep=$(grep -c "^cuzktrace-report: warning: '$T/sigal$m.zst': $sa_lost events were lost; totals are inexact\$" $T/sigal$m.rerr)
	expect_match "signal handler allocating inside a traced call (CUZKTRACE_SAMPLE=$m): some calls lost, one warning, exit line and report say how many" \
		"$sa_lost/$sa_warn/$sa_exit/$sa_rep/$(wc -l <$T/sigal$m.err)" '^[1-9][0-9]*/1/1/1/3$'
	if [ "$m" = 0 ]; then
		expect_eq "signal handler allocating inside a traced call, exact mode: allocations + frees + lost = every call the program made" \
			"$(sed -n 's/^calls //p' $T/sigal$m.out)" \
			"$(( $(jget $T/sigal$m.json event_counts.alloc) + $(jget $T/sigal$m.json event_counts.free) + sa_lost ))"
	fi
done
# ... the same while the main thread loops on phase pushes and pops (the hook interrupted is the
# phase API's): exact mode, the handler's calls are all in the trace or counted lost
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sigph.zst timeout -s KILL 120 env LD_PRELOAD=$LIB $P/sigalloc 400000 phase \
	>$T/sigph.out 2>$T/sigph.err
$REPORT --json $T/sigph.zst >$T/sigph.json 2>/dev/null
expect_match "signal handler allocating inside a phase push or pop: calls = allocations + frees + lost, some lost, one warning" \
	"$(sed -n 's/^calls //p' $T/sigph.out)=$(( $(jget $T/sigph.json event_counts.alloc) + $(jget $T/sigph.json event_counts.free) + $(jget $T/sigph.json lost_events) ))/$(jget $T/sigph.json lost_events)/$(grep -c '^cuzktrace: warning: a signal handler called the allocator' $T/sigph.err)" \
	'^([0-9]+)=\1/[1-9][0-9]*/1$'
# ... but calls the tracer's hooks make through what they call out to are no signal handler's:
# glibc's pthread_setspecific callocs for a key past the first 32 (the tracer's and libunwind's,
# after a library took 40 keys), and an allocator that maps its memory through the mmap symbol
# does so inside the malloc hook (jemalloc, tcmalloc); both were counted lost (50 and 100).
# mma_run NAME PROG [VAR=VALUE...]: PROG with libmmapalloc.so behind the tracer in mode $m,
# with the variables given; $T/NAME.out, .err and .json
mma_run() {
	local name=$1 prog=$2
	shift 2
	env "$@" CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/$name.zst LD_PRELOAD="$LIB $P/libmmapalloc.so" $prog \
		>$T/$name.out 2>$T/$name.err
	$REPORT --json $T/$name.zst >$T/$name.json 2>/dev/null
}
for m in 0 524288; do
	CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/kth$m.zst traced kth$m $P/keythreads
	mma_run mma$m $P/keythreads
	$REPORT --json $T/kth$m.zst >$T/kth$m.json 2>/dev/null
	expect_eq "calls out of the hooks (many thread keys; an allocator that maps through mmap), CUZKTRACE_SAMPLE=$m: nothing lost, no warning" \
		"$(jget $T/kth$m.json lost_events)/$(wc -l <$T/kth$m.err)/$(jget $T/mma$m.json lost_events)/$(wc -l <$T/mma$m.err)/$(cat $T/kth$m.out $T/mma$m.out | sort -u)" \
		"0/2/0/2/keythreads: done"
	# ... nor the dynamic linker's calloc of the TLS vector of a thread that the allocator
	# starts inside its malloc (jemalloc's background_thread:true; before 0.2.59 one
	# event lost and the signal handler's line, each run)
	mma_run mmt$m $P/keythreads CKT_MMAPALLOC_THREAD=1
	expect_eq "an allocator behind the tracer that starts a thread in a malloc, CUZKTRACE_SAMPLE=$m: nothing lost, no signal handler's line" \
		"$(jget $T/mmt$m.json lost_events)/$(grep -c 'signal handler' $T/mmt$m.err)/$(grep -c 'lost' $T/mmt$m.err)/$(cat $T/mmt$m.out)" \
		"0/0/0/keythreads: done"
	# ... but a signal handler's dlopen that interrupts the hook is counted, its mallocs and
	# its callocs from the loader alike, and said
	mma_run sdl$m $P/sigdlopen CKT_MMAPALLOC_RAISE=1
	expect_eq "a signal handler's dlopen inside the malloc hook, CUZKTRACE_SAMPLE=$m: its calls lost and said once" \
		"$(cat $T/sdl$m.out)/$(( $(jget $T/sdl$m.json lost_events) > 0 ))/$(grep -c '^cuzktrace: warning: a signal handler called the allocator' $T/sdl$m.err)" \
		"sigdlopen: 1 1/1/1"
	# the 512 bytes glibc callocs for the tracer's key were untraced and their frees traced:
	# the default mode's totals went 25,688 bytes below zero (a warning past more threads);
	# now only the dip the running totals allow by design (a thread's free counted before
	# another's allocation: about a block, 104 bytes once)
	expect_eq "many thread keys, CUZKTRACE_SAMPLE=$m: the key's table of each thread traced (heap_below_zero_bytes under 4 KiB, 25,688 before)" \
		"$(( $(jget $T/kth$m.json heap_below_zero_bytes) < 4096 ))" 1
done
# posix_memalign of 0 bytes that the allocator behind answers with success and a null pointer,
# as POSIX allows: the program gets that (0 and NULL), not ENOMEM (before 0.2.55)
expect_eq "posix_memalign of 0 bytes, success with NULL behind the tracer: the same traced" \
	"$(LD_PRELOAD=$P/libmmapalloc.so $P/memalignfail zero)/$(CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/pm0.zst LD_PRELOAD="$LIB $P/libmmapalloc.so" $P/memalignfail zero 2>/dev/null)" \
	"posix_memalign 0 (nil)/posix_memalign 0 (nil)"

# An allocator behind the tracer that has no malloc_usable_size of its own
# (tests/progs/lib/sizeless.c, which keeps a pointer to its arena in the word before each
# block): the next one, glibc's, read that word as a chunk size and looked for the next chunk
# that far on, SIGSEGV at the first malloc, both modes (status 139, untraced 0). Its usable
# sizes cannot be known: exact mode counts the requests; the default mode, which needs a small
# block's size at its free, records every event and says so in one line.
for m in 0 524288; do
	CUZKTRACE_SAMPLE=$m CUZKTRACE_OUT=$T/szl$m.zst timeout -s KILL 60 env LD_PRELOAD="$LIB $P/libsizeless.so" \
		$P/sizeless >$T/szl$m.out 2>$T/szl$m.err
	echo $? >$T/szl$m.rc
	$REPORT --json $T/szl$m.zst >$T/szl$m.json 2>$T/szl$m.rerr
	szl_warn=$(grep -c "^cuzktrace: warning: the allocator behind the tracer ('$P/libsizeless.so') has no malloc_usable_size of its own, which the default mode needs; recording every event (CUZKTRACE_SAMPLE=0)\$" $T/szl$m.err)
	expect_eq "allocator without malloc_usable_size behind the tracer, CUZKTRACE_SAMPLE=$m: runs, exact heap, rate 0, one line in the default mode" \
		"$(cat $T/szl$m.rc)/$(cat $T/szl$m.out)/$(jget $T/szl$m.json live_at_exit.heap_bytes)/$(jget $T/szl$m.json live_at_exit.heap_blocks)/$(jget $T/szl$m.json peak_heap.bytes)/$(jget $T/szl$m.json sampling.rate_bytes)/$szl_warn/$(wc -l <$T/szl$m.err)/$(cat $T/szl$m.rerr)" \
		"0/sizeless: done/425651/500/599500/0/$((m ? 1 : 0))/$((m ? 3 : 2))/"
	expect_match "allocator without malloc_usable_size, CUZKTRACE_SAMPLE=$m: the exit line's peak heap counts the requests" \
		"$(tail -1 $T/szl$m.err)" "^cuzktrace: $T/szl$m.zst: [0-9]+ events, peak heap 585 KiB, peak RSS "
done

# The tracer's own stderr lines into a pipe nobody reads any more: the write raised SIGPIPE,
# whose default action ended the program (status 141: before main when the reader was gone
# at start, no output at all; in the exit handlers when it left after the first line, the
# program's buffered stdout lost). SIGPIPE is taken back as SIGXFSZ is; the lines are lost.
# tests/progs/stderrgone.c never writes to stderr itself (live: its block and stdout's buffer).
for when in start first; do
	rm -f $T/sgo.go
	sg=$($PY - "$LIB" $P/stderrgone $T/sgo.go $T/sgo.zst $when <<'PYEOF'
import os, subprocess, sys
lib, prog, go, out, when = sys.argv[1:]
r, w = os.pipe()
if when == "start":
    os.close(r)
    open(go, "w").close()
env = dict(os.environ, LD_PRELOAD=lib, CUZKTRACE_OUT=out)
p = subprocess.Popen([prog, go], stderr=w, stdout=subprocess.PIPE, env=env, restore_signals=True)
os.close(w)
if when == "first":
    f = os.fdopen(r, "rb")
    first = f.readline()  # the init line, then nobody reads any more
    f.close()
    open(go, "w").close()
so, _ = p.communicate(timeout=60)
print("%d %s" % (p.returncode, so.decode().replace("\n", "|")))
PYEOF
)
	$REPORT --json $T/sgo.zst >$T/sgo.json 2>/dev/null
	expect_eq "stderr a pipe whose reader is gone ($when): status 0, the program's output whole, the trace complete" \
		"$sg/$(jget $T/sgo.json truncated)/$(jget $T/sgo.json live_at_exit.heap_bytes)" \
		"0 stderrgone: start|stderrgone: end|/false/104096"
done

# A program that forbids itself the TSC (prctl PR_SET_TSC, PR_TSC_SIGSEGV) and reads no clock:
# the tracer's clock reads went through the vDSO's TSC read and killed it (SIGSEGV, both
# modes); they go through the system call from then on. tests/progs/notsc.c
for rate in 0 524288; do
	CUZKTRACE_SAMPLE=$rate traced_json notsc $P/notsc >/dev/null
	expect_eq "TSC forbidden (CUZKTRACE_SAMPLE=$rate): status 0, its output, the trace complete, 1 MiB live" \
		"$(cat $T/notsc.rc)/$(cat $T/notsc.out)/$(jget $T/notsc.json truncated)/$(jget $T/notsc.json live_at_exit.heap_bytes)" \
		"0/notsc: ok/false/1048576"
done

# A program that drops root and closes every descriptor: the trace cannot be opened again,
# and the line says why (it said the path no longer named the trace). One that goes into a
# chroot: no warning that the file was moved (it is whole under its name), the trace complete.
# tests/progs/dropped.c; as root only.
if [ "$(id -u)" = 0 ]; then
	CUZKTRACE_OUT=$T/dropped.zst traced dropped $P/dropped setuid
	expect_eq "privileges dropped, descriptors closed: status 0, the reason the trace cannot be opened again" \
		"$(cat $T/dropped.rc)/$(grep -v '^cuzktrace: tracing ' $T/dropped.err)" \
		"0/cuzktrace: error: the trace descriptor was closed and opening it again failed: '$T/dropped.zst': Permission denied; tracing stopped, the program continues"
	# the trace's directory ($T, 0700) may no longer be searched: no false "moved" warning
	CUZKTRACE_OUT=$T/dropkeep.zst traced_json dropkeep $P/dropped setuidkeep >/dev/null
	expect_eq "privileges dropped, descriptors kept: status 0, no warning, the trace complete" \
		"$(cat $T/dropkeep.rc)/$(grep -v -e '^cuzktrace: tracing ' -e "^cuzktrace: $T/dropkeep.zst: " $T/dropkeep.err)/$(jget $T/dropkeep.json truncated)/$(jget $T/dropkeep.json live_at_exit.heap_bytes)" \
		"0//false/1400000"
	mkdir -p $T/jail
	CUZKTRACE_OUT=$T/chrooted.zst traced_json chrooted $P/dropped chroot $T/jail >/dev/null
	expect_eq "chroot: status 0, no warning, the trace complete with every block" \
		"$(cat $T/chrooted.rc)/$(grep -v -e '^cuzktrace: tracing ' -e "^cuzktrace: $T/chrooted.zst: " $T/chrooted.err)/$(jget $T/chrooted.json truncated)/$(jget $T/chrooted.json live_at_exit.heap_bytes)" \
		"0//false/1400000"
	# A mount namespace of its own with a tmpfs over the trace's directory: the name leads
	# elsewhere there, and the trace is whole where it was opened: no warning (0.2.32 said the
	# file was deleted, renamed or replaced); with every descriptor closed after the mount, the
	# trace is reopened where it is (the writer's namespace) and read whole. Every block: 200,000
	# of the churn (the first free, of NULL, is no event) and stdout's buffer. tests/progs/mntns.c
	for mn_how in keep closeall; do
		mkdir -p $T/mntns_$mn_how
		CUZKTRACE_OUT=$T/mntns_$mn_how/t.zst traced mntns_$mn_how $P/mntns $T/mntns_$mn_how $mn_how
		if [ "$(cat $T/mntns_$mn_how.out)" = "no namespace" ]; then
			echo "  skip mount namespace ($mn_how): unshare or mount refused here"
			continue
		fi
		$REPORT --json $T/mntns_$mn_how/t.zst >$T/mntns_$mn_how.json 2>$T/mntns_$mn_how.rerr
		expect_eq "mount namespace, a tmpfs over the trace's directory ($mn_how): status 3, no warning, the trace whole" \
			"$(cat $T/mntns_$mn_how.rc)/$(grep -c 'no longer names' $T/mntns_$mn_how.err)/$(cat $T/mntns_$mn_how.rerr)/$(jget $T/mntns_$mn_how.json end_reason)/$(jget $T/mntns_$mn_how.json event_counts.alloc)/$(jget $T/mntns_$mn_how.json event_counts.free)" \
			"3/0//exit/200001/199999"
	done
	# Dropping root while keeping capabilities (PR_SET_KEEPCAPS and capset act on one thread),
	# then setgroups, which glibc runs in every thread: the tracer's threads, without the kept
	# capability, failed it, and glibc aborted the program (status 134; untraced it runs).
	# tests/progs/keepcaps.c; in the threaded run a second program thread takes the same steps
	# (its 300,000 bytes, and the 304 bytes of glibc's TLS vector for it, live at exit).
	for m in main thread init; do
		groups=$([ $m = init ] && id -G nobody | wc -w || echo 0)
		expect_eq "keepcaps $m untraced: output and status" "$($P/keepcaps $m)/$?" "dropped 65534 65534 $groups/0"
		CUZKTRACE_OUT=$T/keepcaps$m.zst traced_json keepcaps$m $P/keepcaps $m >/dev/null
		expect_eq "keepcaps $m traced: the same output and status, no line, the trace complete with every block" \
			"$(cat $T/keepcaps$m.out)/$(cat $T/keepcaps$m.rc)/$(grep -v -e '^cuzktrace: tracing ' -e "^cuzktrace: $T/keepcaps$m.zst: " $T/keepcaps$m.err)/$(jget $T/keepcaps$m.json truncated)/$(jget $T/keepcaps$m.json lost_events)/$(h=$(jget $T/keepcaps$m.json live_at_exit.heap_bytes); [ $m = init ] && [ "$h" -ge 3000000 ] && echo at least 3000000 || echo $h)" \
			"dropped 65534 65534 $groups/0//false/0/$(case $m in thread) echo 3300304;; init) echo at least 3000000;; *) echo 3000000;; esac)"
		# (initgroups reads the group database and glibc keeps some of it: that run holds at
		# least the program's 3,000,000 bytes)
	done
fi

# writev where little stack is left (a fatal-signal reporter on a 7 KiB alternate stack, a
# thread on a PTHREAD_STACK_MIN stack deep in its calls): the hook took 8 KiB of stack on every
# call (status 139). tests/progs/smallstack.c; both run untraced with these sizes.
# With phase rules set every such write is scanned: the scan's buffers are static (under its
# lock) and the library is bound at load (a first call bound lazily ran the loader's resolver,
# several KiB, on the small stack: 139 with any rule set, matching or not). Each also names
# its thread there (the name's record took 1 KiB of that stack).
for args in "alt 7168 name" "thread 6 name"; do
	for rate in 0 524288; do
		CUZKTRACE_SAMPLE=$rate traced_json smallstack $P/smallstack $args >/dev/null
		expect_eq "smallstack $args (CUZKTRACE_SAMPLE=$rate): status 0, its output, the trace complete" \
			"$($P/smallstack $args 2>/dev/null)/$?/$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)" \
			"ok/0/0/ok/false"
	done
	for rules in 'x=nomatch' 'x=caught..done;y=deep'; do
		CUZKTRACE_PHASES="$rules" traced_json smallstack $P/smallstack $args >/dev/null
		expect_eq "smallstack $args, CUZKTRACE_PHASES='$rules': status 0, its output, the trace complete" \
			"$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)" "0/ok/false"
	done
done
expect_match "smallstack thread 6 name: the thread's 100 bytes under the name it gave itself" \
	"$($REPORT --by thread $T/smallstack.zst 2>&1)" $'\ndeep-worker +1 +100 B +100 B +100 B\n'

# The tracer's static TLS comes out of every thread's stack (glibc carves it out of the stack
# it maps): 976 bytes in 0.2.31, before the thread's pushed phases moved to its event ring
tls_hex=$(readelf -lW $LIB | awk '$1 == "TLS" {print $6}')
tls_bytes=$((${tls_hex:-0x100000}))
expect_eq "the tracer's static TLS is at most 512 bytes ($tls_bytes)" "$([ "$tls_bytes" -le 512 ] && echo small)" "small"

# A block recorded with its stack where little stack is left: a handler on a 16 KiB alternate
# stack with all but 1 KiB of what the program itself needs untraced (found here, as the
# kernel's signal frame differs from CPU to CPU) used, then malloc(1000000), which both modes
# record with its stack. Capturing it took libunwind's context and cursor, 2.2 KiB and more, on
# the alternate stack (status 139, an empty trace); such a capture now unwinds on a stack of
# its own (x86_64). And with signals open meanwhile, a second SA_ONSTACK signal was placed at
# the alternate stack's top, over the running handler's frames (altnest: a 100 us SIGALRM
# beside a handler that allocates; status 139, or 5 for its overwritten frame).
# smallstack_room ARGS...: the most bytes (to 32) the program can use first and still run
smallstack_room() {
	local lo=0 hi=20000 mid
	$P/smallstack "$@" 0 >/dev/null 2>&1 || { echo 0; return; }
	while [ $((hi - lo)) -gt 32 ]; do
		mid=$(((lo + hi) / 2))
		if [ "$($P/smallstack "$@" $mid 2>/dev/null)" = ok ]; then lo=$mid; else hi=$mid; fi
	done
	echo $lo
}
# The stack as the program set it: also with one struct for the new and the old stack
# (sigaltstack(&ss, &ss): the hook read the old one, written over it by the call), and with
# SS_AUTODISARM and a handler that disables it, which the kernel undoes at its return (the
# hook had forgotten the stack).
if [ "$(uname -m)" = x86_64 ]; then
	for how in plain inplace autodisarm; do
		export SMALLSTACK_ALT=$how
		room=$(smallstack_room altmalloc 16384)
		for rate in 0 524288; do
			CUZKTRACE_SAMPLE=$rate traced_json smallstack $P/smallstack altmalloc 16384 $((room - 1024)) >/dev/null
			expect_eq "smallstack altmalloc 16384 ($how), 1 KiB of stack short of the most it runs with untraced (CUZKTRACE_SAMPLE=$rate): status 0, its output, the trace complete, its block with its stack" \
				"$([ "$room" -gt 1536 ] && echo room)/$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)/$($REPORT $T/smallstack.zst 2>/dev/null | grep -A1 -m1 '^  #1  977 KiB (1000000 bytes)' | grep -o "big_in_handler (tests/progs/smallstack.c")" \
				"room/0/ok/false/big_in_handler (tests/progs/smallstack.c"
		done
		unset SMALLSTACK_ALT
	done
	for rate in 0 524288; do
		CUZKTRACE_SAMPLE=$rate traced_json smallstack $P/smallstack altnest 300 >/dev/null
		expect_eq "smallstack altnest 300 (CUZKTRACE_SAMPLE=$rate): status 0, its output, the trace complete, one site of 300 blocks of 1,000,000 bytes under the handler" \
			"$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)/$($REPORT --sites-csv $T/smallstack.csv $T/smallstack.zst >/dev/null 2>&1; grep -c ',1000000,300000000,300,.* <- nest_handler (tests/progs/smallstack.c:' $T/smallstack.csv)" \
			"0/ok/false/1"
	done
	# sigaltstack's hook read the program's struct first: a bad pointer crashed (139) where
	# the call fails with EFAULT
	CUZKTRACE_OUT=$T/smallstack.zst traced smallstack $P/smallstack altbad 0
	expect_eq "sigaltstack with a pointer to no memory: EFAULT as untraced, status 0" \
		"$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)" "0/ok"
	# no side stack can be mapped (the address space capped while the handler runs): one line,
	# and the capture on the alternate stack as before, its 100-byte block with its stack
	SMALLSTACK_CAP=1 CUZKTRACE_SAMPLE=0 traced_json smallstack $P/smallstack altmalloc 16384 0 >/dev/null
	expect_eq "smallstack altmalloc, no side stack to be had: one line, status 0, its output, the trace complete, the block with its stack" \
		"$(grep -c "^cuzktrace: warning: cannot map a stack for call-stack captures on a signal handler's alternate stack (an address-space limit?); they unwind on that stack, which a small one may not hold\$" $T/smallstack.err)/$(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)/$($REPORT --sites-csv $T/smallstack.csv $T/smallstack.zst >/dev/null 2>&1; grep -c '^"big_in_handler (tests/progs/smallstack.c:[0-9]*)",[0-9]*,[0-9]*,100,100,1,' $T/smallstack.csv)" \
		"1/0/ok/false/1"
	# the same with SIGSEGV sent by another thread: a fault's signal left open during a
	# capture landed over the handler (status 139 in 3 runs of 8 at 3,000 rounds, so four
	# runs here: a smoke test, which a build with that fault misses now and then)
	nest_seen=""
	for k in 1 2 3 4; do
		SMALLSTACK_NEST_SIG=11 CUZKTRACE_SAMPLE=0 traced_json smallstack $P/smallstack altnest 3000 >/dev/null
		nest_seen="$nest_seen $(cat $T/smallstack.rc)/$(cat $T/smallstack.out)/$(jget $T/smallstack.json truncated)"
	done
	expect_eq "smallstack altnest 3000, SIGSEGV sent beside it, 4 runs: status 0, its output, the trace complete" \
		"$nest_seen" " 0/ok/false 0/ok/false 0/ok/false 0/ok/false"
fi

# Under a descriptor limit of 6 the sampler can read statm but not status: the samples lose
# VmHWM and the anonymous/file split, now with one line (the report just left them out)
bash -c "ulimit -n 6; CUZKTRACE_OUT=$T/fd6.zst LD_PRELOAD=$LIB /bin/sleep 0.3" >/dev/null 2>$T/fd6.err
$REPORT --json $T/fd6.zst >$T/fd6.json 2>/dev/null
expect_eq "ulimit -n 6: one line for the RSS detail, RSS still sampled" \
	"$(grep -v -e '^cuzktrace: tracing ' -e "^cuzktrace: $T/fd6.zst: " $T/fd6.err)/$(( $(jget $T/fd6.json rss_samples) > 0 ))" \
	"cuzktrace: warning: cannot read /proc/thread-self/status (Too many open files); RSS samples carry no VmHWM and no anonymous/file split/1"

# The working directory was removed: the default name cannot be made absolute; the line names
# the file it tried, expanded (it showed the pattern 'cuzktrace.%e.%p.zst')
mkdir -p $T/gonedir
(cd $T/gonedir && rmdir $T/gonedir && env -u CUZKTRACE_OUT LD_PRELOAD=$LIB /bin/true) 2>$T/gonedir.err
expect_match "working directory removed: status 0, the expanded name in the one line" "$?/$(cat $T/gonedir.err)" \
	"^0/cuzktrace: error: cannot trace to 'cuzktrace\.true\.[0-9]+\.zst': No such file or directory; running untraced\$"
# a working directory whose path, with the name, is longer than PATH_MAX (deep build trees): a
# relative name has no absolute path; the line says why (it said "Numerical result out of
# range" past 4,127 bytes and "File name too long" from 4,096 to there), the program runs
# untraced (status 70 under CUZKTRACE_STRICT=1, as for any file it cannot trace to)
deep=$T/deep
mkdir -p $deep
long=$(printf 'd%.0s' $(seq 200))
cwd_msg="the working directory's path and the name are longer together than a path may be (4096 bytes), so the trace has no path to be found by: name it by a shorter absolute path (CUZKTRACE_OUT=/...)"
(cd $deep && while [ $((${#PWD} + 202)) -lt 4099 ]; do mkdir $long && cd $long || exit 1; done
 # a directory that makes the path 4,100 bytes long, then one past 4,127 under it
 last=$(printf 'e%.0s' $(seq $((4100 - ${#PWD} - 1)))); mkdir $last && cd $last || exit 1
 echo "${#PWD}" >$T/deepcwd.len
 CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB /bin/true 2>$T/deepcwd1.err; echo "$?" >$T/deepcwd1.rc
 mkdir $long $long/$long && cd $long/$long || exit 1
 CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB /bin/true 2>$T/deepcwd.err; echo "$?" >$T/deepcwd.rc
 CUZKTRACE_STRICT=1 CUZKTRACE_OUT=t.zst LD_PRELOAD=$LIB /bin/true 2>/dev/null; echo "$?" >$T/deepcwd.strict; ls t.zst >$T/deepcwd.ls 2>&1)
expect_eq "working directory of 4,100 bytes and one past 4,127: status 0, one line that says why, no file; status 70 under CUZKTRACE_STRICT=1" \
	"$(cat $T/deepcwd.len)/$(cat $T/deepcwd1.rc)/$(cat $T/deepcwd1.err)/$(cat $T/deepcwd.rc)/$(cat $T/deepcwd.err)/$(grep -c 'No such file' $T/deepcwd.ls)/$(cat $T/deepcwd.strict)" \
	"4100/0/cuzktrace: error: cannot trace to 't.zst': $cwd_msg; running untraced/0/cuzktrace: error: cannot trace to 't.zst': $cwd_msg; running untraced/1/70"
rm -rf $deep

# a heap overrun glibc never notices (K bytes past a 100-byte block, into a block never used
# again): the tracer's records lived in the same heap, right after the program's first
# blocks, and the writer crashed on one (status 139, 134 for K = 32); they live in mappings of
# the tracer's own now: the program runs to its end as untraced, the trace complete
for k in 32 40 96; do
	for mode in 0 524288; do
		CUZKTRACE_SAMPLE=$mode traced_json overrun$k.$mode $P/overrun $k >/dev/null
		printf '%s/%s/%s/%s\n' "$(cat $T/overrun$k.$mode.rc)" "$(cat $T/overrun$k.$mode.out)" \
			"$(jget $T/overrun$k.$mode.json truncated)" "$(grep -c '^cuzktrace: ' $T/overrun$k.$mode.err)"
	done
done >$T/overrun.all
expect_eq "heap overrun into the next block: status 0, output, trace complete, two tracer lines (3 lengths x 2 modes)" \
	"$(sort -u $T/overrun.all)" "0/overrun: survived/false/2"

# a timeout around a slow mmap (MAP_POPULATE of 128 MiB under a 2 ms timer whose handler
# leaves by siglongjmp), three times: the hook's guard stayed up and the thread's every later
# call passed untraced, counted lost as a handler's (the 100 MiB kept after: missing). Then
# the next hook took the guard back, and each call left was one lost event (its 128 MiB
# mapping, made and kept, not recorded), said in a line. Since 0.2.40 the hook holds every
# signal through its call, the signal comes as the hook ends, and the jump leaves after the
# record: the three mappings the program lost count live at its end (as their RSS does). A try
# whose timer fired before the call was entered, or whose call beat the timer, is not one of
# the three (the program tries again: on a busy machine a try lost that way read as a
# mapping missing)
CUZKTRACE_SAMPLE=0 traced_json jmpmap $P/jmpmap >/dev/null
$PY - $T/jmpmap.json >$T/jmpmap.res <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
kept = [s["bytes"] for s in d["sites_at_exit"] if "jmpmap.c" in s["site"]]
print(kept, d["lost_events"], d["inconsistencies"], d["live_at_exit"]["mmap_bytes"])
PYEOF
expect_eq "siglongjmp out of slow mmap calls: the thread traced on (100 MiB kept), no call lost, the 3 mappings left live, no line" \
	"$(cat $T/jmpmap.rc)/$(cat $T/jmpmap.out)/$(cat $T/jmpmap.res)/$(grep -c '^cuzktrace: warning: a signal handler left' $T/jmpmap.err)/$(grep -c 'called the allocator' $T/jmpmap.err)" \
	"0/jmpmap: done (3 jumps)/[104857600] 0 0 402653184/0/0"
# the same jump out of fast calls (a 100 us timer over a loop of small mmap, mprotect and
# munmap calls, 300 jumps): most land in the hook's own work around the call (stack capture,
# record), where the guard stayed up for good, and the 100 MiB kept after were missing (every
# run of 6, both modes). Since 0.2.40 the hooks hold every signal: each jump comes after the
# hook, and the thread is traced on
for m in exact default; do
	CUZKTRACE_SAMPLE=$([ $m = exact ] && echo 0 || echo 524288) traced_json jmpfast$m $P/jmpfast >/dev/null
	$PY - $T/jmpfast$m.json >$T/jmpfast$m.res <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
kept = [s["bytes"] for s in d["sites_at_exit"] if "jmpfast.c" in s["site"]]
print(kept, d["lost_events"] <= 300, d["inconsistencies"])
PYEOF
	expect_eq "siglongjmp out of fast mmap-family calls ($m): the thread traced on (100 MiB kept), at most one lost event per jump, no handler's call said" \
		"$(cat $T/jmpfast$m.rc)/$(cat $T/jmpfast$m.out)/$(cat $T/jmpfast$m.res)/$(grep -c 'called the allocator' $T/jmpfast$m.err)" \
		"0/jmpfast: done (300 jumps)/[104857600] True 0/0"
done
# a jump out of the munmap of a 32 MiB mapping, recorded before its call (200 jumps of a
# 100 us timer): the signal the hook held while it recorded came as the call began, the jump
# skipped the call, and the range counted unmapped (and the call lost), still mapped: 50 of
# 200 in a run, 1.6 GB mapped at the end, 0 in the trace. Since 0.2.40 the hook holds the
# signal through the call: the trace counts live at the end what the program finds mapped
CUZKTRACE_SAMPLE=0 traced_json jmpunmap $P/jmpunmap >/dev/null
expect_eq "siglongjmp around a large munmap: the bytes still mapped at the end, as the program finds them, no call lost, no line" \
	"$(cat $T/jmpunmap.rc)/$(sed 's/ [0-9]* bytes still mapped//' $T/jmpunmap.out)/$(($(sed -n 's/.*, \([0-9]*\) bytes still mapped$/\1/p' $T/jmpunmap.out) - $(jget $T/jmpunmap.json live_at_exit.mmap_bytes)))/$(jget $T/jmpunmap.json lost_events)/$(grep -c '^cuzktrace: warning: a signal handler left' $T/jmpunmap.err)" \
	"0/jmpunmap: 200 jumps,/0/0/0"
# a thread's stack that overflows in an mmap-family hook (a recursion that maps a page at
# every level, a SIGSEGV handler on an alternate stack): the program's handler runs, as
# untraced, and the trace ends. Held with the other signals in the hook's own work (stack
# capture), the fault ended the process by the kernel's default: status 139, no line
CUZKTRACE_OUT=$T/mapoverflow.zst traced mapoverflow $P/mapoverflow
expect_eq "a stack overflow inside an mmap hook: the program's SIGSEGV handler runs (status 3, its line)" \
	"$(cat $T/mapoverflow.rc)/$(cat $T/mapoverflow.out)" "3/mapoverflow: stack overflow caught"
# a handler that forks while the main thread loops on small mmap and munmap calls: the
# tracer's fork took _Fork (no atfork handlers) when the handler interrupted a hook outside its
# system call (5 runs of 5 in exact mode, 26 to 44 of 400 forks); since 0.2.40 those hooks
# hold signals there, and the handler's fork is glibc's, with the program's handlers, as
# untraced
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sigforkmap.zst traced sigforkmap $P/sigforkmap
expect_eq "fork from a handler that interrupted mmap or munmap: the program's atfork handlers run for every fork" \
	"$(cat $T/sigforkmap.rc)/$(cat $T/sigforkmap.out)" "0/sigforkmap: atfork handlers ran for every fork"
# a plain fork right after each jump, before any other hook: glibc's, with the program's
# atfork handlers (the guard the jump left up is no handler's fork inside a hook: since 0.2.21
# the tracer's fork takes _Fork only under a malloc-family hook's guard)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/jmpfork.zst traced jmpfork $P/jmpmap fork
expect_eq "siglongjmp out of mmap, then fork: the program's atfork handlers run" \
	"$(cat $T/jmpfork.rc)/$(cat $T/jmpfork.out)" "0/jmpmap: done (3 jumps)
jmpmap: atfork handlers ran for 3 of 3 forks"
# no jump: a handler on an alternate stack above the thread's frames allocates while the mmap
# hook is in its call; it was a handler's call (counted lost, its own line), and the hook was
# not taken for one left by a jump, SS_AUTODISARM (the stack reads as disabled inside)
# included. Since 0.2.40 the hook holds the signal through its call: the handler runs after
# it, and its calls are traced
for a in plain autodisarm; do
	CUZKTRACE_OUT=$T/altnest$a.zst traced altnest$a $P/altnest $([ $a = autodisarm ] && echo x)
	expect_eq "alternate signal stack ($a), no jump: the handler runs after the hook, its calls traced, no jump said" \
		"$(cat $T/altnest$a.rc)/$(cat $T/altnest$a.out)/$(grep -c 'called the allocator' $T/altnest$a.err)/$(grep -c 'by a jump' $T/altnest$a.err)" \
		"0/altnest: handler ran/0/0"
done
# a thread renamed 1,000,000 times in a second: each rename's record waited for the writer in
# 1 KiB of room (the most a name can need), 217 MiB of RSS; now at its own size (about 33 MiB;
# untraced 1.3 MiB). VmHWM as the trace has it
traced_json renames $P/renames >/dev/null
hwm=$(jget $T/renames.json peak_rss.hwm_bytes)
expect_eq "1,000,000 thread renames: status 0, the tracer's queued records under 96 MiB of RSS (VmHWM $hwm)" \
	"$(cat $T/renames.rc)/$(cat $T/renames.out)/$(( hwm > 0 && hwm < 96 * 1048576 ))" "0/renames: done/1"
# a signal handler that execs (and fails) while its thread is inside the tracer's own memory
# (renames queue records there): the exec copies the environment there too and spun on the
# lock its own thread held, for good; now it gets no copy and execs with the environment as
# given. 3 runs, each within the 60 s traced_json allows (untraced about 1 s, traced 1.5 s)
for k in 1 2 3; do
	traced_json hexec$k $P/handlerexec >/dev/null
	echo "$(cat $T/hexec$k.rc)/$(cat $T/hexec$k.out)/$(jget $T/hexec$k.json truncated)"
done >$T/hexec.all
expect_eq "exec from a signal handler inside the tracer's memory: no hang, status 0, trace complete (3 runs)" \
	"$(sort -u $T/hexec.all)" "0/handlerexec: done/false"


# A pid namespace that sees its parent's /proc (unshare -p without --mount-proc; bwrap
# --unshare-pid without --proc): the sampler's tid is the namespace's, which /proc does not
# know; it finds its directory through /proc/thread-self (before 0.2.15: no RSS sample at all,
# and a line about VmHWM only)
if unshare -p -f true 2>/dev/null; then
	CUZKTRACE_OUT=$T/pidns.zst unshare -p -f env LD_PRELOAD=$LIB $P/known >$T/pidns.out 2>$T/pidns.err
	pidns_rc=$?
	$REPORT --json $T/pidns.zst >$T/pidns.json 2>/dev/null
	expect_eq "pid namespace with its parent's /proc: status, output, no warning, RSS sampled with its detail" \
		"$pidns_rc/$(cat $T/pidns.out)/$(grep -c warning $T/pidns.err)/$(($(jget $T/pidns.json event_counts.rss) > 0))/$(($(jget $T/pidns.json event_counts.rss_detail) > 0))" \
		"0/known: done/0/1/1"
else
	echo "  skip pid namespace: unshare -p refused here"
fi

# No /proc (a container or chroot without it), run twice as pid 1 of a new pid namespace:
# the command line from the initial stack, the executable by the name it was started with,
# the exit line's peak RSS from getrusage, and the rerun writes over the first trace (without
# a start time it cannot be told from an exec of the same process). Before 0.2.15: "tracing
# unknown", an empty command line, "peak RSS 0 B" and a rerun sent to <name>.exec1.zst.
if unshare -m -p -f sh -c 'umount -l /proc' 2>/dev/null; then
	mkdir -p $T/noproc
	for np in 1 2; do
		unshare -m -p -f sh -c "umount -l /proc; cd $T/noproc && CUZKTRACE_OUT=$T/noproc/t.zst LD_PRELOAD=$LIB $P/known" \
			>$T/noproc.out 2>$T/noproc$np.err
		echo $? >$T/noproc$np.rc
	done
	$REPORT --json $T/noproc/t.zst >$T/noproc.json 2>/dev/null
	expect_eq "no /proc, run twice: status, the init line names the program, the exit line a peak RSS, one file, its command line" \
		"$(cat $T/noproc2.rc)/$(head -1 $T/noproc2.err)/$(grep -c ', peak RSS 0 B,' $T/noproc2.err)/$(ls $T/noproc | tr '\n' ' ')/$(jget $T/noproc.json argv)" \
		"0/cuzktrace: tracing known (pid 3) to $T/noproc/t.zst/0/t.zst /[\"$P/known\"]"
	# the exit line's peak RSS from getrusage's ru_maxrss (KiB): known's 10 MiB and more
	expect_eq "no /proc: the exit line's peak RSS, from getrusage, in MiB" \
		"$(grep -c ', peak RSS [0-9.]* MiB,' $T/noproc2.err)" 1
	expect_eq "no /proc: one line says RSS is not sampled, and why (since 0.2.16)" \
		"$(grep -c '^cuzktrace: error: cannot read /proc/thread-self/statm (No such file or directory); RSS is not sampled$' $T/noproc2.err)" 1
else
	echo "  skip no /proc: unshare -m -p refused here"
fi

# ... and the program's own frames keep their module without /proc (an empty tmpfs over it):
# the name the kernel ran, made absolute (since 0.2.52: they read "+0x1228", no module, no line)
if noproc true; then
	(cd $ROOT/build && noproc env CUZKTRACE_OUT=$T/noprocsym.zst LD_PRELOAD=$LIB progs/known >/dev/null 2>&1)
	expect_eq "no /proc: the program's frames named by its module, run by a relative path" \
		"$($REPORT --json $T/noprocsym.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["sites_at_peak_heap"][0]["site"])')" \
		"heap_part (tests/progs/known.c:64)"
else
	echo "  skip no /proc (tmpfs): unshare -m refused here"
fi

# Under valgrind's memcheck, whose vgpreload library replaces malloc and free in every object
# (the tracer's too): no allocation reaches the hooks, and one line says so (before 0.2.15 the
# trace read "peak heap 0 B" without a word); the launcher's exec of its static tool gets no
# "statically linked" line (the tool runs the program traced; before 0.2.55 it said "not traced")
if command -v valgrind >/dev/null 2>&1; then
	CUZKTRACE_OUT=$T/vg.zst LD_PRELOAD=$LIB timeout 120 valgrind -q $P/known >$T/vg.out 2>$T/vg.err
	expect_match "valgrind: the program runs, one line says the heap is not traced" \
		"$?/$(cat $T/vg.out)/$(grep -c 'statically linked' $T/vg.err)/$(grep -c 'running under valgrind' $T/vg.err)/$(grep 'running under valgrind' $T/vg.err)" \
		"^0/known: done/0/1/cuzktrace: warning: running under valgrind, whose '[^']*/vgpreload_memcheck-[^']*' replaces malloc and free in every library, the tracer's too: heap allocations are not traced \(mmap and CUDA calls are\)$"
	# libunwind's memory probes (a write of the address to a pipe) under the tracer's stack
	# captures count as the program's errors for --error-exitcode (1 here without the file);
	# preload/valgrind.supp suppresses them, and the mappings are traced
	timeout 120 env CUZKTRACE_OUT=$T/vgs.zst LD_PRELOAD=$LIB valgrind -q --error-exitcode=9 \
		--suppressions=$ROOT/preload/valgrind.supp $P/known >$T/vgs.out 2>$T/vgs.err
	vgrc=$?
	# the program's trace: after Debian's script and its valgrind.bin, or after valgrind itself
	for f in $T/vgs*.zst; do
		$REPORT --json $f 2>/dev/null >$T/vgs.json && [ "$(jget $T/vgs.json exe)" = "$P/known" ] && break
	done
	expect_eq "valgrind --suppressions=preload/valgrind.supp: no error, the mappings traced" \
		"$vgrc/$(grep -c '^==[0-9]*== ' $T/vgs.err)/$(jget $T/vgs.json exe)/$(jget $T/vgs.json peak_mmap.bytes)" \
		"0/0/$P/known/13631488"
	# valgrind's launcher starting its static tool: the line is about the program the tool
	# runs, said where that is static (before 0.2.55 it named the tool, for every program)
	timeout 120 env CUZKTRACE_OUT=$T/vgst.zst LD_PRELOAD=$LIB valgrind -q $P/exitcode_static >/dev/null 2>$T/vgst.err
	expect_eq "valgrind running a static program: status as untraced, one line naming it" \
		"$?/$(grep 'statically linked' $T/vgst.err)" \
		"3/cuzktrace: warning: '$P/exitcode_static' is statically linked: no loader reads LD_PRELOAD in it, so the program it starts is not traced"
else
	echo "  skip valgrind: not installed"
fi

# A program built with a sanitizer whose runtime takes the C library's calls in every object
# (since 0.2.52). gcc's ThreadSanitizer and LeakSanitizer load a runtime of their own after the
# tracer, which starts inside the runtime's start-up: the tracer's calls reached interceptors
# not set up yet (ThreadSanitizer: SIGSEGV; LeakSanitizer: "CHECK failed", status 23); clang's
# MemorySanitizer, linked into the program, stopped the same way (status 1) at the tracer's
# first call of the program's dlsym; clang's ThreadSanitizer took the tracer's threads for data
# races (status 66). Now: one line, the program runs untraced with its own status and output,
# and no trace. LeakSanitizer's runtime preloaded ahead of the tracer, and clang's linked in,
# trace as AddressSanitizer's do (malloc ahead of the tracer: one line).
san_case() { # NAME CC FLAG [PRELOAD-FIRST]: builds sanprog with CC FLAG, traces it
	local name=$1 cc=$2 flag=$3 first=${4-}
	rm -f $T/$name.zst
	if ! command -v $cc >/dev/null 2>&1 ||
		! $cc $flag -o $T/$name $ROOT/tests/progs/sanprog.c -pthread 2>/dev/null ||
		! $T/$name >/dev/null 2>&1; then
		echo "  skip sanitizers: $cc $flag cannot build or run sanprog here"
		return 1
	fi
	CUZKTRACE_OUT=$T/$name.zst timeout 60 env LD_PRELOAD=$first$LIB $T/$name >$T/$name.out 2>$T/$name.err
	echo $? >$T/$name.rc
}
san_untraced() { # NAME SANITIZER OBJECT-REGEX HINT-REGEX
	expect_match "sanitizer $1: status 0, its output, the one line, no trace" \
		"$(cat $T/$1.rc)/$(cat $T/$1.out)/$(wc -l <$T/$1.err)/$(cat $T/$1.err)/$(ls $T/$1.zst 2>/dev/null)" \
		"^0/sanprog: 2/1/cuzktrace: error: the program is built with $2 \('$3'\), whose runtime takes the C library's calls in the tracer too and $4/\$"
}
# With CUZKTRACE_STRICT=1 the program does not run: status 70, as where the trace cannot be
# created (since 0.2.53: it ran untraced with status 0, STRICT ignored)
san_strict() { # NAME SANITIZER OBJECT-REGEX HINT-REGEX: the program NAME built, traced strictly
	CUZKTRACE_STRICT=1 CUZKTRACE_OUT=$T/$1.strict.zst timeout 60 env LD_PRELOAD=$LIB $T/$1 >$T/$1.strict.out 2>$T/$1.strict.err
	expect_match "sanitizer $1 with CUZKTRACE_STRICT=1: status 70, no output, the one line, no trace" \
		"$?/$(cat $T/$1.strict.out)/$(wc -l <$T/$1.strict.err)/$(cat $T/$1.strict.err)/$(ls $T/$1.strict.zst 2>/dev/null)" \
		"^70//1/cuzktrace: error: the program is built with $2 \('$3'\), whose runtime takes the C library's calls in the tracer too and $4/\$"
}
if san_case san_gtsan gcc -fsanitize=thread; then
	san_untraced san_gtsan ThreadSanitizer "/[^']*/libtsan\.so\.[0-9]+" \
		'cannot run beside it; running untraced \(trace a build without -fsanitize=thread\)'
	san_strict san_gtsan ThreadSanitizer "/[^']*/libtsan\.so\.[0-9]+" \
		'cannot run beside it; exiting \(CUZKTRACE_STRICT=1; trace a build without -fsanitize=thread\)'
fi
if san_case san_glsan gcc -fsanitize=leak; then
	san_untraced san_glsan LeakSanitizer "/[^']*/liblsan\.so\.[0-9]+" \
		"starts after it; running untraced \(preload the runtime ahead of the tracer: LD_PRELOAD=/[^:]*/liblsan\.so\.[0-9]+:$LIB\)"
	san_strict san_glsan LeakSanitizer "/[^']*/liblsan\.so\.[0-9]+" \
		"starts after it; exiting \(CUZKTRACE_STRICT=1; preload the runtime ahead of the tracer: LD_PRELOAD=/[^:]*/liblsan\.so\.[0-9]+:$LIB\)"
	lsan=$(grep -o 'LD_PRELOAD=[^:]*' $T/san_glsan.err | cut -d= -f2)
	san_case san_glsan1 gcc -fsanitize=leak "$lsan:"
	expect_eq "sanitizer gcc LeakSanitizer preloaded first, as the line says: traced, malloc ahead of the tracer said" \
		"$(cat $T/san_glsan1.rc)/$(cat $T/san_glsan1.out)/$(grep -c "^cuzktrace: warning: 'malloc' is provided by '$lsan' ahead of the tracer" $T/san_glsan1.err)/$($REPORT --json $T/san_glsan1.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["allocator_ahead"] is not None)')" \
		"0/sanprog: 2/1/True"
fi
# gcc's ThreadSanitizer linked into the program (-static-libtsan) exports no __tsan_init: known
# by its interceptors (a screen of race reports and status 66 before)
if san_case san_gtsanst gcc "-fsanitize=thread -static-libtsan"; then
	san_untraced san_gtsanst ThreadSanitizer 'the program' \
		'cannot run beside it; running untraced \(trace a build without -fsanitize=thread\)'
fi
# ... and not AddressSanitizer's with a program that exports a pthread_cond_wait of its own
# (-rdynamic): its runtime traces (since 0.2.52 a first form of the rule above took it for
# ThreadSanitizer's by that one name, and left it untraced)
for cw in gcc clang; do
	rm -f $T/condwrap_$cw.zst
	if command -v $cw >/dev/null 2>&1 && $cw -fsanitize=address $([ $cw = gcc ] && echo -static-libasan) -rdynamic \
		-o $T/condwrap_$cw $ROOT/tests/progs/condwrap.c -ldl 2>/dev/null && $T/condwrap_$cw >/dev/null 2>&1; then
		CUZKTRACE_OUT=$T/condwrap_$cw.zst timeout 60 env LD_PRELOAD=$LIB $T/condwrap_$cw >$T/condwrap_$cw.out 2>$T/condwrap_$cw.err
		expect_eq "sanitizer: AddressSanitizer ($cw) with its own pthread_cond_wait exported: traced, not taken for ThreadSanitizer" \
			"$?/$(cat $T/condwrap_$cw.out)/$(grep -c 'is built with' $T/condwrap_$cw.err)/$(ls $T/condwrap_$cw.zst)" \
			"0/condwrap: 1 waits 0/0/$T/condwrap_$cw.zst"
	else
		echo "  skip sanitizers: $cw -fsanitize=address cannot build or run condwrap here"
	fi
done
if san_case san_ctsan clang -fsanitize=thread; then
	san_untraced san_ctsan ThreadSanitizer 'the program' \
		'cannot run beside it; running untraced \(trace a build without -fsanitize=thread\)'
fi
if san_case san_cmsan clang -fsanitize=memory; then
	san_untraced san_cmsan MemorySanitizer 'the program' \
		'cannot run beside it; running untraced \(trace a build without -fsanitize=memory\)'
fi
if san_case san_clsan clang -fsanitize=leak; then
	expect_eq "sanitizer clang LeakSanitizer, linked in: traced, malloc ahead of the tracer said, a trace" \
		"$(cat $T/san_clsan.rc)/$(cat $T/san_clsan.out)/$(grep -c "^cuzktrace: warning: 'malloc' is provided by '$T/san_clsan' ahead of the tracer" $T/san_clsan.err)/$(ls $T/san_clsan.zst)" \
		"0/sanprog: 2/1/$T/san_clsan.zst"
fi

# Under a seccomp filter that refuses a system call the tracer needs (since 0.2.52): gettid
# refused from the start (the trace was announced, every thread recorded as id -1, and the
# reader refused it whole as corrupt): one line, untraced, no file; flock refused (some
# network and FUSE file systems' EOPNOTSUPP): one line, and the file the tracer created is
# left empty, as another tracer may have taken it meanwhile (the refusal read "not a regular
# file" for fcntl)
if $P/seccompdeny 1 gettid true 2>/dev/null; then
	mkdir -p $T/scd && rm -f $T/scd/*
	(cd $T/scd && $P/seccompdeny 1 gettid env CUZKTRACE_OUT=$T/scd/g.zst LD_PRELOAD=$LIB $P/known >$T/scd_g.out 2>$T/scd_g.err; echo $? >$T/scd_g.rc)
	expect_eq "seccomp refusing gettid: the program as untraced, one line, no trace file" \
		"$(cat $T/scd_g.rc)/$(cat $T/scd_g.out)/$(cat $T/scd_g.err)/$(ls $T/scd)" \
		"0/known: done/cuzktrace: error: the system call gettid is refused (a seccomp filter?), so the tracer cannot tell threads apart; running untraced/"
	(cd $T/scd && $P/seccompdeny 1 gettid env CUZKTRACE_STRICT=1 CUZKTRACE_OUT=$T/scd/g.zst LD_PRELOAD=$LIB $P/known >$T/scd_gs.out 2>$T/scd_gs.err; echo $? >$T/scd_gs.rc)
	expect_eq "seccomp refusing gettid with CUZKTRACE_STRICT=1: status 70 (since 0.2.53: 0, untraced), no output, one line, no trace file" \
		"$(cat $T/scd_gs.rc)/$(cat $T/scd_gs.out)/$(cat $T/scd_gs.err)/$(ls $T/scd)" \
		"70//cuzktrace: error: the system call gettid is refused (a seccomp filter?), so the tracer cannot tell threads apart; exiting (CUZKTRACE_STRICT=1)/"
	(cd $T/scd && $P/seccompdeny 95 flock env CUZKTRACE_OUT=$T/scd/f.zst LD_PRELOAD=$LIB $P/known >$T/scd_f.out 2>$T/scd_f.err; echo $? >$T/scd_f.rc)
	expect_eq "seccomp refusing flock (EOPNOTSUPP): the program as untraced, one line with the refusal's reason" \
		"$(cat $T/scd_f.rc)/$(cat $T/scd_f.out)/$(cat $T/scd_f.err)" \
		"0/known: done/cuzktrace: error: cannot trace to '$T/scd/f.zst': Operation not supported; running untraced"
else
	echo "  skip seccomp filters: none can be installed here"
fi

# A small stack limit (ulimit -s) with a large environment, as CI jobs have: the tracer's start
# ran 37 KiB deep on the main thread's stack (its path buffers), and under `ulimit -s 64` with
# 24 KiB of environment the program died of SIGSEGV with no line (since 0.2.55 they are
# static: it runs, as untraced)
BIGV=$(head -c 24000 /dev/zero | tr '\0' x) bash -c "ulimit -s 64; CUZKTRACE_OUT=$T/stk.zst LD_PRELOAD=$LIB exec $P/exitcode" \
	>$T/stk.out 2>$T/stk.err
echo $? >$T/stk.rc
expect_eq "ulimit -s 64 with 24 KiB of environment: the program runs traced, status and output as untraced" \
	"$(cat $T/stk.rc)/$(tr '\n' ' ' <$T/stk.out)/$($REPORT --json $T/stk.zst 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["live_at_exit"]["heap_bytes"] >= 12345)')" \
	"3/output line one output line two /True"
# ... and the reader under `ulimit -s 128` (bash sets the hard limit too): libdw's line tables
# recursed past it (SIGSEGV, no line); it now runs on a thread with an 8 MiB stack of its own,
# and the report is the one without the limit
CUZKTRACE_OUT=$T/stkr.zst traced stkr $P/known
$REPORT $T/stkr.zst >$T/stkr.want 2>/dev/null
bash -c "ulimit -s 128; exec $REPORT $T/stkr.zst" >$T/stkr.got 2>$T/stkr.err
echo $? >$T/stkr.rc
bash -c "ulimit -s 128; exec $REPORT --jobs 2 $T/stkr.zst" >$T/stkr.got2 2>>$T/stkr.err
echo $? >>$T/stkr.rc
expect_eq "reader under ulimit -s 128 (--jobs 1 and 2): status 0, no line, the report as without the limit" \
	"$(cat $T/stkr.rc | tr '\n' ' ')/$(cat $T/stkr.err)/$(cmp -s $T/stkr.want $T/stkr.got && cmp -s $T/stkr.want $T/stkr.got2 && echo same)" "0 0 //same"

# The exit line's words: "1 event" for one (a program that allocates once and _exits, no RSS
# samples), and a "%%" in CUZKTRACE_OUT is one '%' in the name
CUZKTRACE_RSS_MS=0 CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/oneev.zst traced oneev $P/oneevent
expect_eq "one event: the exit line says '1 event'" \
	"$(cat $T/oneev.rc)/$(grep -c "^cuzktrace: $T/oneev.zst: 1 event, peak heap 1000 B, " $T/oneev.err)" "0/1"
mkdir -p $T/pct
CUZKTRACE_OUT=$T/pct/a%%b.zst traced pct /bin/true
expect_eq "CUZKTRACE_OUT with %%: the file a%b.zst, the exit line names it" \
	"$(ls $T/pct)/$(grep -c "^cuzktrace: $T/pct/a%b.zst: " $T/pct.err)" "a%b.zst/1"
