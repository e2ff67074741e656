#!/usr/bin/env bash
# tests/gpu/run.sh: the CUDA check for a real NVIDIA machine (nvcc and a GPU present). Builds
# tests/gpu/gpu_alloc.cu with nvcc's default static CUDA runtime, runs it under the tracer and
# compares the traced figures with the sizes the program asked for and with cudaMemGetInfo
# deltas. Prints a table; exits 0 when everything matches, 1 on a mismatch, 2 when it cannot run.
# CKT_GPU_TOLERANCE (bytes, default 0) allows the traced GPU figures to exceed the sizes asked
# for, e.g. if a runtime version makes internal device allocations of its own.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
TOL=${CKT_GPU_TOLERANCE:-0}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/cuzktrace-gpu.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$NVCC" ] || { echo "gpu: no nvcc (set NVCC=...)"; exit 2; }
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "gpu: no NVIDIA GPU visible"; exit 2; }
make -s all >/dev/null || { echo "gpu: build failed"; exit 2; }
"$NVCC" -O2 -o "$T/gpu_alloc" tests/gpu/gpu_alloc.cu || { echo "gpu: nvcc failed"; exit 2; }
if ldd "$T/gpu_alloc" | grep -q libcudart; then
	echo "gpu: warning: the test program links libcudart dynamically; the static path is not tested"
fi

CUZKTRACE_OUT=$T/gpu.zst CUZKTRACE_RSS_MS=10 LD_PRELOAD=$ROOT/build/libcuzktrace.so \
	"$T/gpu_alloc" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q 'gpu_alloc: done' "$T/out"; then
	echo "gpu: the traced program failed (exit $rc):"; cat "$T/err"; exit 1
fi
grep -v '^cuzktrace: tracing\|^cuzktrace: .*events' "$T/err" | sed 's/^/gpu: program stderr: /'
"$ROOT/build/cuzktrace-report" --json "$T/gpu.zst" >"$T/gpu.json" || { echo "gpu: reader failed"; exit 1; }
# the program's device 0: the first of CUDA_VISIBLE_DEVICES (an index or a UUID), else GPU 0
first=${CUDA_VISIBLE_DEVICES:-0}
first=${first%%,*}
case $first in
GPU-*) uuid0=$first ;;
*) uuid0=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "$first" 2>/dev/null || true) ;;
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
got = {'device': g['device_bytes'], 'pool': g['pool_bytes'], 'gpu': g['bytes'],
       'pinned': d['peak_pinned']['bytes'], 'managed': d['peak_managed']['bytes']}
bad = 0
print('%-8s %14s %14s %16s  %s' % ('kind', 'asked', 'traced', 'cudaMemGetInfo', 'result'))
for k in ('device', 'pool', 'gpu', 'pinned', 'managed'):
    e, t = exp[k], got[k]
    slack = tol if k in ('device', 'pool', 'gpu') else 0
    ok = e <= t <= e + slack
    dv = delta.get(k)
    # the driver rounds to its page size and a pool reserves in chunks: it may show more, never less
    if dv is not None and dv < e:
        ok = False
    print('%-8s %14d %14d %16s  %s' % (k, e, t, '-' if dv is None else str(dv), 'ok' if ok else 'MISMATCH'))
    bad += not ok
devs = g['devices']
uuid_ok = bool(devs) and (not uuid0 or devs[0]['uuid'] == uuid0)
print('device   %s (trace) vs %s (nvidia-smi): %s' % (devs[0]['uuid'] if devs else None, uuid0 or '?',
      'ok' if uuid_ok else 'MISMATCH'))
bad += not uuid_ok
live = d['live_at_exit']
if live['gpu_bytes'] or live['pinned_bytes'] or live['managed_bytes']:
    print('live at exit not zero: %s' % live); bad += 1
if d['event_counts']['cuda_alloc'] < 5:
    print('fewer CUDA allocations traced than made: %d' % d['event_counts']['cuda_alloc']); bad += 1
print('gpu: %s' % ('all figures match' if not bad else '%d mismatch(es)' % bad))
sys.exit(1 if bad else 0)
PYEOF
