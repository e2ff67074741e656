# CUDA at the driver layer, against the stub libcuda.so.1 built by tests/cuda/cuda.mk (the
# programs refuse to run against any library without its marker). Every path to the driver
# must give the same exact figures: see tests/cuda/exercise.h for the sums.
C=$ROOT/build/cuda
cuda_case() { # NAME PROGRAM [ARG]
	local name=$1; shift
	CUZKTRACE_OUT=$T/$name.zst traced $name "$@"
	expect_eq "$name: exit status unchanged" "$(cat $T/$name.rc)" 0
	expect_match "$name: program output unchanged" "$(cat $T/$name.out)" ': done$'
	expect_eq "$name: no warning (stderr has the two tracer lines)" "$(wc -l <$T/$name.err)" 2
	$REPORT --json --csv $T/$name.csv $T/$name.zst >$T/$name.json 2>$T/$name.rerr
	expect_eq "$name: reader exit 0" $? 0
	expect_eq "$name: peak GPU = 16 MiB + 102,400 + 8 MiB pool + 3 MiB + 2 MiB VMM" "$(jget $T/$name.json peak_gpu.bytes)" 30511104
	expect_eq "$name: peak pinned = 4 + 2 + 1 MiB" "$(jget $T/$name.json peak_pinned.bytes)" 7340032
	expect_eq "$name: peak managed" "$(jget $T/$name.json peak_managed.bytes)" 8388608
	expect_eq "$name: registered host memory kept apart" "$(jget $T/$name.json peak_registered.bytes)" 1048576
	expect_eq "$name: split at the GPU peak" "$(jget $T/$name.json peak_gpu.device_bytes)/$(jget $T/$name.json peak_gpu.pool_bytes)/$(jget $T/$name.json peak_gpu.vmm_bytes)" "20025344/8388608/2097152"
	expect_eq "$name: device 0 peak and identity" "$(jget $T/$name.json peak_gpu.devices.0.ordinal) $(jget $T/$name.json peak_gpu.devices.0.uuid) $(jget $T/$name.json peak_gpu.devices.0.peak_bytes)" "0 GPU-10111213-1415-1617-1819-1a1b1c1d1e1f 25268224"
	expect_eq "$name: device 1 peak and name" "$(jget $T/$name.json peak_gpu.devices.1.ordinal) $(jget $T/$name.json peak_gpu.devices.1.name) $(jget $T/$name.json peak_gpu.devices.1.peak_bytes)" "1 Stub GPU 1 5242880"
	expect_eq "$name: 12 allocations, 12 frees, each counted once" "$(jget $T/$name.json event_counts.cuda_alloc)/$(jget $T/$name.json event_counts.cuda_free)" "12/12"
	expect_eq "$name: the VMM handle mapped once, unmapped three times (twice refused, once with a size of 2^60)" "$(jget $T/$name.json event_counts.cuda_map)/$(jget $T/$name.json event_counts.cuda_unmap)" "1/3"
	expect_eq "$name: nothing live at exit" "$(jget $T/$name.json live_at_exit.gpu_bytes)/$(jget $T/$name.json live_at_exit.pinned_bytes)/$(jget $T/$name.json live_at_exit.managed_bytes)/$(jget $T/$name.json live_at_exit.cuda_blocks)" "0/0/0/0"
	expect_eq "$name: no inconsistencies" "$(jget $T/$name.json inconsistencies)" 0
	expect_eq "$name: the driver's own mmap of pinned memory is not anonymous mmap" "$(jget $T/$name.json peak_mmap_anon.bytes)" 0
	expect_eq "$name: no phase marked: GPU and pinned peaks owned by (none)" "$(jget $T/$name.json peak_gpu.active_phases) $(jget $T/$name.json peak_gpu.by_phase) $(jget $T/$name.json peak_pinned.by_phase)" '[] [{"phase": "(none)", "bytes": 30511104}] [{"phase": "(none)", "bytes": 7340032}]'
}
cuda_case cu_linked $C/cu_linked
cuda_case cu_linked_both $C/cu_linked both
cuda_case cu_dlopen $C/cu_dlopen
cuda_case cu_static_v2 $C/cu_static v2
cuda_case cu_static_v1 $C/cu_static v1
cuda_case cu_static_ptsz $C/cu_static ptsz

# RSS explanation and the timeline use the same figures
expect_eq "cu_linked: peak RSS sees the pinned memory" "$(jget $T/cu_linked.json peak_rss.pinned_bytes)" 7340032
expect_eq "cu_linked: peak RSS sees the GPU memory" "$(jget $T/cu_linked.json peak_rss.gpu_bytes)" 30511104
expect_eq "cu_linked: unexplained RSS subtracts pinned" "$(jget $T/cu_linked.json peak_rss.unexplained_bytes)" \
	"$(($(jget $T/cu_linked.json peak_rss.bytes) - $(jget $T/cu_linked.json peak_rss.heap_bytes) - $(jget $T/cu_linked.json peak_rss.anon_mmap_bytes) - 7340032))"
expect_eq "cu_linked: csv header" "$(head -1 $T/cu_linked.csv)" "t_s,rss_bytes,heap_bytes,mmap_bytes,gpu_bytes,pinned_bytes,active_phases"
expect_eq "cu_linked: csv max gpu/pinned" "$(awk -F, 'NR>1 { if ($5>g) g=$5; if ($6>p) p=$6 } END { print g+0 "/" p+0 }' $T/cu_linked.csv)" "30511104/7340032"
$REPORT $T/cu_linked.zst >$T/cu_linked.txt
expect_match "cu_linked: text report peak GPU" "$(cat $T/cu_linked.txt)" 'peak GPU memory +29\.1 MiB \(30511104 bytes\)'
expect_match "cu_linked: text report device line" "$(cat $T/cu_linked.txt)" 'device 1 +peak 5\.00 MiB \(Stub GPU 1, GPU-2021'

# A CUDA version the tracer does not know: one line, the program runs on, nothing is counted
CUZKTRACE_OUT=$T/cu_newver.zst traced cu_newver $C/cu_static newver
expect_eq "newver: exit status unchanged" "$(cat $T/cu_newver.rc)" 0
expect_eq "newver: one warning line" "$(grep -c 'warning: cuGetProcAddress asked for CUDA version 14000' $T/cu_newver.err)/$(wc -l <$T/cu_newver.err)" "1/3"
$REPORT --json $T/cu_newver.zst >$T/cu_newver.json
expect_eq "newver: not counted" "$(jget $T/cu_newver.json peak_gpu.bytes)" 0

# --diff: the unknown version's trace (nothing counted) against cu_linked's: the GPU and
# pinned peaks, each GPU by its UUID, the GPU peak's function
$REPORT --json --diff $T/cu_newver.zst $T/cu_linked.zst >$T/cu_diff.json 2>/dev/null
$REPORT --diff $T/cu_newver.zst $T/cu_linked.zst >$T/cu_diff.txt 2>/dev/null
expect_eq "diff: GPU and pinned peaks 0 -> 30,511,104 and 7,340,032" \
	"$(jget $T/cu_diff.json peaks.peak_gpu.change) $(jget $T/cu_diff.json peaks.peak_pinned.change) $(jget $T/cu_diff.json peaks.peak_gpu.t_s.base)" "30511104 7340032 null"
cu_devs() { $PY -c 'import json,sys; print(" / ".join("%s %s %d %d" % (r["device"], r.get("name"), r["base"], r["trace"]) for r in json.load(open(sys.argv[1]))["peaks"]["peak_gpu_devices"]))' "$1"; }
expect_eq "diff: each GPU's peak, by UUID and with its name" "$(cu_devs $T/cu_diff.json)" \
	"GPU-10111213-1415-1617-1819-1a1b1c1d1e1f Stub GPU 0 0 25268224 / GPU-20212223-2425-2627-2829-2a2b2c2d2e2f Stub GPU 1 0 5242880"
$REPORT --json --diff $T/cu_static_v2.zst $T/cu_linked.zst >$T/cu_diff2.json 2>/dev/null
expect_eq "diff: the same two GPUs in both traces match (no change)" "$(cu_devs $T/cu_diff2.json)" \
	"GPU-10111213-1415-1617-1819-1a1b1c1d1e1f Stub GPU 0 25268224 25268224 / GPU-20212223-2425-2627-2829-2a2b2c2d2e2f Stub GPU 1 5242880 5242880"
expect_eq "diff: the GPU peak by phase" "$($PY -c 'import json,sys; print([(r["phase"], r["change"]) for r in json.load(open(sys.argv[1]))["by_phase"]["peak_gpu"]])' $T/cu_diff.json)" \
	"[('(none)', 30511104)]"
expect_match "diff text: a row per GPU under the peak GPU" "$(cat $T/cu_diff.txt)" \
	$'\npeak GPU +0 B +29\\.1 MiB  \\+29\\.1 MiB +- / [0-9.]+\n  GPU +0 B +24\\.1 MiB  \\+24\\.1 MiB +GPU-10111213-1415-1617-1819-1a1b1c1d1e1f \\(Stub GPU 0\\)\n  GPU +0 B +5\\.00 MiB  \\+5\\.00 MiB +GPU-20212223-2425-2627-2829-2a2b2c2d2e2f \\(Stub GPU 1\\)\npeak pinned '
expect_match "diff text: live bytes at the peak GPU" "$(cat $T/cu_diff.txt)" $'\nlive bytes by function at peak GPU \\(1 of 1 changed\\)\n'

# Untraced, the same programs run the same (the stub alone)
$C/cu_static ptsz >$T/untraced.out 2>&1
expect_eq "untraced: static-runtime program runs" "$?/$(cat $T/untraced.out)" "0/cu_static: done"
