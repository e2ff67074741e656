#!/usr/bin/env bash
# tests/gpu/run.sh: the CUDA check for a real NVIDIA machine (a GPU and its driver present).
# Builds tests/gpu/gpu_alloc.cu with nvcc's default static CUDA runtime, runs it once without
# the tracer (to tell a machine that cannot run it from a tracer fault), then under the tracer,
# and compares the traced figures with the sizes the program asked for and with cudaMemGetInfo
# deltas. Without nvcc it builds tests/gpu/gpu_driver.c with the C compiler instead: the same
# allocations (plus one VMM allocation) through the driver API, looked up the way the static
# runtime does. Prints a table; exits 0 when everything matches, 1 on a mismatch or a traced
# run that fails, 2 when it cannot run here (no GPU, no build, the program fails untraced).
# CKT_GPU_TOLERANCE (bytes, default 0) allows the traced GPU figures to exceed the sizes asked
# for, e.g. if a runtime version makes internal device allocations of its own.
# NVCC=path picks the CUDA compiler; CKT_GPU_DRIVER=1 tests through gpu_driver.c even when nvcc
# is there; CKT_GPU_PROG=path runs a gpu_alloc or gpu_driver built elsewhere; CKT_GPU_TIMEOUT
# (seconds, default 300) bounds each run of the program; CKT_GPU_NOBUILD=1 uses build/ as it is
# (a build carried from a machine with the build packages) instead of running make;
# CKT_GPU_KEEP=1 keeps the traces, reports and program output (the folder is named at the end).
# Then, when python3 imports torch and sees a GPU, tests/gpu/torch_alloc.py runs the same way:
# PyTorch's shared CUDA runtime and caching allocator, pinned memory, threads and log-line phases,
# compared with torch's own count of reserved device memory. Exit status: the worse of the two.
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$PWD
TOL=${CKT_GPU_TOLERANCE:-0}
LIMIT=${CKT_GPU_TIMEOUT:-300}
PY=${PYTHON:-$(command -v python3 || echo /usr/bin/python3)}
T=$(mktemp -d /tmp/cuzktrace-gpu.XXXXXX)
keep=${CKT_GPU_KEEP:-0}
trap 'if [ $keep = 1 ]; then echo "gpu: files kept in $T"; else rm -rf "$T"; fi' EXIT

# a GPU: nvidia-smi sees one, or (no nvidia-smi, as in some containers) a device node exists
if command -v nvidia-smi >/dev/null 2>&1; then
	nvidia-smi -L >/dev/null 2>&1 || { echo "gpu: no NVIDIA GPU visible (nvidia-smi -L fails)"; exit 2; }
elif ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	echo "gpu: no NVIDIA GPU visible"; exit 2
fi
# nvcc: $NVCC, else PATH, else the newest toolkit under /usr/local
if [ -z "${NVCC:-}" ]; then
	NVCC=$(command -v nvcc || true)
	for c in /usr/local/cuda/bin/nvcc $(ls -d /usr/local/cuda-*/bin/nvcc 2>/dev/null | sort -rV); do
		[ -n "$NVCC" ] && break
		[ -x "$c" ] && NVCC=$c
	done
elif [ ! -x "$NVCC" ]; then
	echo "gpu: no nvcc at $NVCC"; exit 2
fi
if [ "${CKT_GPU_NOBUILD:-0}" = 1 ]; then
	[ -f build/libcuzktrace.so ] && [ -x build/cuzktrace-report ] || { echo "gpu: CKT_GPU_NOBUILD=1 but build/ holds no tracer"; exit 2; }
else
	make -s all >/dev/null || { echo "gpu: build failed (missing packages? see make deps)"; exit 2; }
fi
# a build carried from another machine needs its shared libraries here too (else LD_PRELOAD
# would be ignored with one line on stderr and nothing traced)
if ldd build/libcuzktrace.so build/cuzktrace-report | grep 'not found'; then
	echo "gpu: the tracer's libraries are missing (see make deps)"; exit 2
fi
build_driver() {
	${CC:-cc} -std=gnu11 -O2 -g -Wall -o "$T/gpu_driver" tests/gpu/gpu_driver.c -ldl || { echo "gpu: cc failed"; exit 2; }
}
# runs $prog untraced: a program that fails so cannot test the tracer
run_untraced() {
	timeout "$LIMIT" "$T/$prog" >"$T/out0" 2>"$T/err0"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -q "^$prog: done" "$T/out0"; then
		echo "gpu: $prog fails without the tracer (exit $rc): no usable GPU, or a driver older than the CUDA toolkit?"
		sed 's/^/gpu: program stderr: /' "$T/err0"
		command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi 2>/dev/null | grep -o 'Driver Version: [^ ]*.*CUDA Version: [^ ]*' | sed 's/^/gpu: /'
		return 1
	fi
}

if [ -n "${CKT_GPU_PROG:-}" ]; then
	# a program built elsewhere (named gpu_alloc or gpu_driver), e.g. where no compiler is
	prog=$(basename "$CKT_GPU_PROG")
	cp "$CKT_GPU_PROG" "$T/$prog" || { echo "gpu: cannot read $CKT_GPU_PROG"; exit 2; }
elif [ -n "$NVCC" ] && [ "${CKT_GPU_DRIVER:-0}" != 1 ]; then
	prog=gpu_alloc
	# the program has no device code: a host compiler newer than this nvcc knows is harmless
	if ! "$NVCC" -O2 -o "$T/$prog" tests/gpu/gpu_alloc.cu 2>"$T/nvcc.err" &&
		! "$NVCC" -O2 -allow-unsupported-compiler -o "$T/$prog" tests/gpu/gpu_alloc.cu 2>>"$T/nvcc.err"; then
		cat "$T/nvcc.err"; echo "gpu: nvcc failed"; exit 2
	fi
	if ldd "$T/$prog" | grep -q libcudart; then
		echo "gpu: warning: the test program links libcudart dynamically; the static path is not tested"
	fi
else
	prog=gpu_driver
	[ -n "$NVCC" ] || echo "gpu: no nvcc (set NVCC=...): testing through the driver API (tests/gpu/gpu_driver.c), not the static CUDA runtime"
	build_driver
fi

# device N is nvidia-smi's device N (CUDA's default order is fastest first)
export CUDA_DEVICE_ORDER=${CUDA_DEVICE_ORDER:-PCI_BUS_ID}
if ! run_untraced; then
	# e.g. a toolkit newer than the driver: the driver API alone may still work
	[ "$prog" = gpu_alloc ] && [ -z "${CKT_GPU_PROG:-}" ] || exit 2
	echo "gpu: testing through the driver API (tests/gpu/gpu_driver.c) instead, not the static CUDA runtime"
	prog=gpu_driver
	build_driver
	run_untraced || exit 2
fi

# env after timeout: only the program is traced, not timeout itself
timeout "$LIMIT" env CUZKTRACE_OUT="$T/gpu.zst" CUZKTRACE_RSS_MS=10 LD_PRELOAD="$ROOT/build/libcuzktrace.so" \
	"$T/$prog" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q "^$prog: done" "$T/out"; then
	keep=1
	echo "gpu: the traced program failed (exit $rc$([ $rc = 124 ] && echo ", timed out after ${LIMIT}s")):"; cat "$T/err"; exit 1
fi
grep -v '^cuzktrace: tracing\|^cuzktrace: .*events' "$T/err" | sed 's/^/gpu: program stderr: /'
# cudaDeviceReset after every free: the tracer counted each allocation and free (no line)
if grep -q 'cuDevicePrimaryCtxReset\|cuCtxDestroy' "$T/err"; then
	keep=1
	echo "gpu: the tracer took memory to be live at cudaDeviceReset, after every free"
	exit 1
fi
"$ROOT/build/cuzktrace-report" --json "$T/gpu.zst" >"$T/gpu.json" || { keep=1; echo "gpu: reader failed"; exit 1; }
# the program's device 0: the first of CUDA_VISIBLE_DEVICES (an index, a UUID or a unique UUID
# prefix), else GPU 0; unknown ('?', not compared) when MIG instances make indexes ambiguous
first=${CUDA_VISIBLE_DEVICES:-0}
first=${first%%,*}
case $first in
GPU-* | MIG-*) uuid0=$first ;;
*)
	uuid0=
	if command -v nvidia-smi >/dev/null 2>&1 && ! nvidia-smi -L 2>/dev/null | grep -q 'MIG'; then
		uuid0=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "$first" 2>/dev/null | head -n 1)
	fi
	;;
esac

$PY - "$T/out" "$T/gpu.json" "$TOL" "$uuid0" <<'PYEOF'
import json, sys
out, js, tol, uuid0 = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].strip()
exp, delta = {}, {}
for line in open(out):
    f = line.split()
    if len(f) == 3 and f[0] == 'expect': exp[f[1]] = int(f[2])
    if len(f) == 3 and f[0] == 'delta': delta[f[1]] = int(f[2])
d = json.load(open(js))
g = d['peak_gpu']
got = {'device': g['device_bytes'], 'pool': g['pool_bytes'], 'vmm': g['vmm_bytes'], 'gpu': g['bytes'],
       'pinned': d['peak_pinned']['bytes'], 'managed': d['peak_managed']['bytes']}
bad = 0
print('%-8s %14s %14s %16s  %s' % ('kind', 'asked', 'traced', 'cudaMemGetInfo', 'result'))
for k in ('device', 'pool', 'vmm', 'gpu', 'pinned', 'managed'):
    if k not in exp:
        continue  # vmm: only the driver-API program makes a VMM allocation
    e, t = exp[k], got[k]
    slack = tol if k in ('device', 'pool', 'vmm', 'gpu') else 0
    ok = e <= t <= e + slack
    dv = delta.get(k)
    # the driver rounds to its page size and a pool reserves in chunks: it may show more, never less
    if dv is not None and dv < e:
        ok = False
    print('%-8s %14d %14d %16s  %s' % (k, e, t, '-' if dv is None else str(dv), 'ok' if ok else 'MISMATCH'))
    bad += not ok
def hexid(u):  # nvidia-smi spells MIG devices MIG-..., the trace always GPU-...
    u = (u or '').lower()
    return u[4:] if u.startswith(('gpu-', 'mig-')) else u
devs = g['devices']
tu = devs[0]['uuid'] if devs else None
if '/' in uuid0:
    uuid0 = ''  # the old MIG-GPU-<uuid>/gi/ci spelling names no device UUID we can compare
uuid_ok = bool(devs) and bool(tu) and (not uuid0 or hexid(tu).startswith(hexid(uuid0)))
print('device   %s (trace) vs %s (nvidia-smi): %s' % (tu, uuid0 or '?', 'ok' if uuid_ok else 'MISMATCH'))
bad += not uuid_ok
live = d['live_at_exit']
if live['gpu_bytes'] or live['pinned_bytes'] or live['managed_bytes']:
    print('live at exit not zero: %s' % live); bad += 1
nalloc = 5 + 2 * ('vmm' in exp)
if d['event_counts']['cuda_alloc'] < nalloc:
    print('fewer CUDA allocations traced than made: %d of %d' % (d['event_counts']['cuda_alloc'], nalloc)); bad += 1
if 'vmm' in exp and (d['event_counts'].get('cuda_map', 0) < 1 or d['event_counts'].get('cuda_unmap', 0) < 1):
    print('the VMM mapping was not traced: %s' % d['event_counts']); bad += 1
print('gpu: %s' % ('all figures match' if not bad else '%d mismatch(es)' % bad))
sys.exit(1 if bad else 0)
PYEOF
rc=$?
grep '^host pool ' "$T/out" | sed 's/^/gpu: /'
[ $rc -eq 0 ] || keep=1
[ $keep = 0 ] || "$ROOT/build/cuzktrace-report" "$T/gpu.zst" >"$T/report.txt" 2>&1

# cudaDeviceReset with 1 MiB of device memory live: the tracer says so, once (the CUDA 13.0
# runtime reaches cuDevicePrimaryCtxReset at version 7000, wrapped since 0.2.40)
if [ "$prog" = gpu_alloc ]; then
	timeout "$LIMIT" env CUZKTRACE_OUT="$T/reset.zst" LD_PRELOAD="$ROOT/build/libcuzktrace.so" \
		"$T/$prog" live >"$T/reset_out" 2>"$T/reset_err"
	n=$(grep -c '^cuzktrace: warning: the program called cuDevicePrimaryCtxReset.* while CUDA memory it had allocated was live' "$T/reset_err")
	if grep -q "^$prog: done" "$T/reset_out" && [ "$n" = 1 ]; then
		echo "gpu: cudaDeviceReset with 1 MiB live: the tracer's line: ok"
	else
		keep=1; rc=1
		echo "gpu: cudaDeviceReset with 1 MiB live: $n tracer lines (want 1): MISMATCH"
		sed 's/^/gpu: program stderr: /' "$T/reset_err"
	fi
fi

# PyTorch: a shared CUDA runtime and a caching allocator (CKT_GPU_TORCH=0 skips it)
torch_check() {
	if [ "${CKT_GPU_TORCH:-1}" = 0 ]; then
		echo "torch: skipped (CKT_GPU_TORCH=0)"
		return 0
	elif ! timeout "$LIMIT" "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
		echo "torch: skipped (no python3 with torch that sees a GPU)"
		return 0
	fi
	local t0 t1 t2 trc
	# the interpreter itself, not a wrapper script that execs it (pyenv's shims): the trace
	# announced at CUZKTRACE_OUT would be the wrapper's, the interpreter's a .execN.zst beside it
	PY=$("$PY" -c 'import sys; print(sys.executable)')
	t0=$(date +%s%N)
	if ! timeout "$LIMIT" "$PY" tests/gpu/torch_alloc.py >"$T/torch_out0" 2>"$T/torch_err0" ||
		! grep -q '^torch_alloc: done' "$T/torch_out0"; then
		echo "torch: tests/gpu/torch_alloc.py fails without the tracer: skipped"
		sed 's/^/torch: program stderr: /' "$T/torch_err0" | tail -n 5
		return 0
	fi
	t1=$(date +%s%N)
	timeout "$LIMIT" env CUZKTRACE_OUT="$T/torch.zst" CUZKTRACE_RSS_MS=10 \
		CUZKTRACE_PHASES='load=LOAD_START..LOAD_END;gpu=GPU_START..GPU_END' \
		LD_PRELOAD="$ROOT/build/libcuzktrace.so" "$PY" tests/gpu/torch_alloc.py >"$T/torch_out" 2>"$T/torch_err"
	trc=$?
	t2=$(date +%s%N)
	if [ $trc -ne 0 ] || ! grep -q '^torch_alloc: done' "$T/torch_out"; then
		keep=1
		echo "torch: the traced program failed (exit $trc):"; tail -n 20 "$T/torch_err"; return 1
	fi
	grep -v '^cuzktrace: tracing\|^cuzktrace: .*events' "$T/torch_err" | sed 's/^/torch: program stderr: /'
	echo "torch: wall time untraced $(((t1 - t0) / 1000000)) ms, traced $(((t2 - t1) / 1000000)) ms (import included)"
	"$ROOT/build/cuzktrace-report" --json "$T/torch.zst" >"$T/torch.json" || { keep=1; echo "torch: reader failed"; return 1; }
	"$PY" - "$T/torch_out" "$T/torch.json" "$TOL" <<'PYEOF'
import json, sys
exp = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 3 and f[0] == 'expect': exp[f[1]] = int(f[2])
d, tol = json.load(open(sys.argv[2])), int(sys.argv[3])
g, p = d['peak_gpu'], d['peak_pinned']
rows = [('gpu', exp['gpu'], g['bytes'], exp['gpu'] <= g['bytes'] <= exp['gpu'] + tol),
        ('pinned', exp['pinned'], p['bytes'], p['bytes'] == exp['pinned']),
        ('live_gpu', exp['live_gpu'], d['live_at_exit']['gpu_bytes'], d['live_at_exit']['gpu_bytes'] == exp['live_gpu'])]
print('torch: %-8s %14s %14s  %s' % ('kind', 'torch says', 'traced', 'result'))
bad = 0
for k, e, t, ok in rows:
    print('torch: %-8s %14d %14d  %s' % (k, e, t, 'ok' if ok else 'MISMATCH'))
    bad += not ok
for what, peak, phase in (('GPU', g, 'gpu'), ('pinned', p, 'load')):
    ok = phase in peak['active_phases']
    print('torch: phase at the %s peak: %s (want %s): %s' % (what, '+'.join(peak['active_phases']) or '-', phase, 'ok' if ok else 'MISMATCH'))
    bad += not ok
# the CUDA driver reserves address space with PROT_NONE mappings (about 14 GiB seen on an H200):
# not memory, so not in the mapped bytes; were they counted, the mapped bytes at the peak RSS
# would be many times the RSS
r = d['peak_rss']
ok = r['anon_mmap_bytes'] <= 2 * r['bytes']
print('torch: at the peak RSS (%d bytes): anonymous mmap %d, PROT_NONE reserved at most %d (not counted): %s'
      % (r['bytes'], r['anon_mmap_bytes'], d['peak_reserved']['bytes'], 'ok' if ok else 'MISMATCH'))
bad += not ok
print('torch: %d CUDA allocations, %d heap, mmap and RSS events traced' % (d['event_counts']['cuda_alloc'], d['events']))
print('torch: %s' % ('all figures match' if not bad else '%d mismatch(es)' % bad))
sys.exit(1 if bad else 0)
PYEOF
	trc=$?
	[ $trc -eq 0 ] || keep=1
	[ $keep = 0 ] || "$ROOT/build/cuzktrace-report" "$T/torch.zst" >"$T/torch_report.txt" 2>&1
	return $trc
}
torch_check
trc=$?
[ $trc -gt $rc ] && rc=$trc
exit $rc
