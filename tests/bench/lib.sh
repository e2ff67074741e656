# lib.sh: what the benchmark scripts (run.sh, scale.sh) share, sourced: the paths (from the
# repository's root, made the working directory), RUNS (default 5), and the helpers below.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
ROOT=$PWD
B=$ROOT/build
PROG=$B/bench/prover_bench
LIB=$B/libcuzktrace.so
REPORT=$B/cuzktrace-report
RUNS=${RUNS:-5}
PY=/usr/bin/python3

# measure OUT CMD...: wall seconds and the child's max RSS (KiB) into OUT ("secs kib")
measure() {
	local out=$1; shift
	$PY - "$out" "$@" <<'PYEOF'
import os, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1); os.dup2(fd, 2)
    os.execvp(cmd[0], cmd)
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t
open(out, 'w').write('%.4f %d %d\n' % (wall, ru.ru_maxrss, os.waitstatus_to_exitcode(status)))
PYEOF
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
