# Call sites (issue #3): programs with known call paths, built optimized without frame pointers
# (tests/sites/), must name the function and source line that own exact bytes at the peaks.
S=$ROOT/build/sites
SRC=tests/sites
# line_of FILE TAG: the line of FILE marked TAG (SITE:x or CALL:x)
line_of() { grep -n -- "$2" "$1" | head -1 | cut -d: -f1; }
# site_get JSON LIST REGEX FIELD: FIELD of the first entry of LIST whose site matches REGEX
# (frames.N for a frame), or "none"
site_get() {
	$PY - "$@" <<'PYEOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
for e in d.get(sys.argv[2]) or []:
    if re.search(sys.argv[3], e["site"]):
        v = e
        for k in sys.argv[4].split('.'):
            v = v[int(k)] if isinstance(v, list) else v[k]
        print(v)
        break
else:
    print("none")
PYEOF
}

# ---- C: static inline helper, a dlopened library, an anonymous mapping ----
C_INL=$(line_of $SRC/sites_c.c SITE:c_inline)
C_CALL=$(line_of $SRC/sites_c.c CALL:c_inline)
C_MAP=$(line_of $SRC/sites_c.c SITE:c_mmap)
C_SCR=$(line_of $SRC/sites_c.c SITE:c_scratch)
C_LIB=$(line_of $SRC/sites_lib.c SITE:lib)
CUZKTRACE_OUT=$T/sc.zst traced sc $S/sites_c
expect_eq "sites: C program ran" "$(cat $T/sc.out)" "sites_c: done"
$REPORT --json --sites-csv $T/sc.csv --folded $T/sc.folded --folded-heap $T/sc.hfolded $T/sc.zst >$T/sc.json 2>$T/sc.rerr
expect_eq "sites: reader exit 0" $? 0
expect_eq "sites: reader silent on stderr" "$(cat $T/sc.rerr)" ""
J=$T/sc.json
expect_eq "sites: C inline helper owns its bytes at peak RSS" \
	"$(site_get $J sites_at_peak "^grab_rows \(.*sites_c\.c:$C_INL\)\$" bytes)" 3145851
expect_eq "sites: C inline helper: one block live" "$(site_get $J sites_at_peak "^grab_rows \(" count)" 1
expect_match "sites: C inline helper's caller is the function it was inlined into, at the call line" \
	"$(site_get $J sites_at_peak "^grab_rows \(" frames.1)" "^build_rows \(.*sites_c\.c:$C_CALL\)\$"
expect_eq "sites: C dlopened library function at peak RSS" \
	"$(site_get $J sites_at_peak "^sites_lib_alloc \(.*sites_lib\.c:$C_LIB\)\$" bytes)" 2097229
expect_eq "sites: C anonymous mapping at peak RSS" \
	"$(site_get $J sites_at_peak "^map_cache \(.*sites_c\.c:$C_MAP\)\$" bytes)" 1048576
expect_eq "sites: largest site first" "$(jget $J sites_at_peak.0.bytes)" 3145851
expect_eq "sites: C inline helper at peak heap" \
	"$(site_get $J sites_at_peak_heap "^grab_rows \(.*sites_c\.c:$C_INL\)\$" bytes)" 3145851
expect_eq "sites: C library at peak heap" \
	"$(site_get $J sites_at_peak_heap "^sites_lib_alloc \(" bytes)" 2097229
expect_eq "sites: a mapping is not heap" "$(site_get $J sites_at_peak_heap "^map_cache \(" bytes)" none
expect_eq "sites: freed scratch block is not at the peak" "$(site_get $J sites_at_peak "^scratch \(" bytes)" none
expect_eq "sites: sites at peak heap sum to the peak heap" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(e["bytes"] for e in d["sites_at_peak_heap"]) == d["peak_heap"]["bytes"])' $J)" True
expect_eq "sites: csv header" "$(head -1 $T/sc.csv)" \
	"site,bytes_at_peak_rss,bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,bytes_at_peak_gpu,stack,bytes_at_exit,estimated,gpu_allocated_bytes,gpu_allocations,temporary_allocations"
expect_match "sites: csv row of the inline helper" "$(grep '^"grab_rows ' $T/sc.csv)" \
	"^\"grab_rows \(.*sites_c\.c:$C_INL\)\",3145851,3145851,3145851,3145851,1,0,\"grab_rows .* <- build_rows .* <- main .*\",0,0,0,0,0\$"
expect_match "sites: csv row of the scratch block: its own peak, nothing at the peaks" \
	"$(grep '^"scratch ' $T/sc.csv)" "^\"scratch \(.*sites_c\.c:$C_SCR\)\",0,0,1048576,1048576,1,0,"
expect_match "sites: folded line, root first, weighted by bytes at peak RSS" \
	"$(grep 'grab_rows' $T/sc.folded)" "^_start [^;]*;.*;main \([^;]*\);build_rows \([^;]*\);grab_rows \(.*sites_c\.c:$C_INL\) 3145851\$"
expect_eq "sites: folded lines add up to heap + anonymous mmap at the peak RSS" \
	"$(awk '{s += $NF} END {print s}' $T/sc.folded)" \
	"$(($(jget $J peak_rss.heap_bytes) + $(jget $J peak_rss.anon_mmap_bytes) + $(jget $J peak_rss.pinned_bytes)))"
expect_eq "sites: --folded-heap: the heap blocks at the peak heap (no mapping), adding up to the peak heap" \
	"$(grep -c map_cache $T/sc.hfolded)/$(grep 'grab_rows' $T/sc.hfolded | awk '{print $NF}')/$(awk '{s += $NF} END {print s}' $T/sc.hfolded)" \
	"0/3145851/$(jget $J peak_heap.bytes)"
$REPORT $T/sc.zst >$T/sc.txt
expect_match "sites: text report lists the sites at peak heap" "$(grep -A2 '^top sites at peak heap' $T/sc.txt)" \
	"#1  3\.00 MiB \(3145851 bytes\), 60\.0% of the peak, 1 allocation live"
expect_match "sites: text report shows the site and its caller" "$(grep -A3 '^top sites at peak RSS' $T/sc.txt | tr '\n' ' ')" \
	"grab_rows \(.*sites_c\.c:$C_INL\).*<- build_rows"
$REPORT --json --top 1 $T/sc.zst >$T/sc1.json
expect_eq "sites: --top 1 shows one site" "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["sites_at_peak"]))' $T/sc1.json)" 1
$REPORT --top 0 $T/sc.zst >/dev/null 2>$T/top0.err
expect_eq "sites: --top 0 is a usage error" $? 2

# A changed library: one warning, its frames as module+offset, bytes unchanged.
mkdir -p $T/moved && cp $S/sites_c $S/libsites_lib.so $T/moved/
CUZKTRACE_OUT=$T/moved.zst traced moved $T/moved/sites_c
cp $LIB $T/moved/libsites_lib.so
$REPORT --json $T/moved.zst >$T/moved.json 2>$T/moved.rerr
expect_eq "sites: changed module: one warning" "$(cat $T/moved.rerr)" \
	"cuzktrace-report: warning: '$T/moved/libsites_lib.so' changed since it was traced (build-id differs); its frames are shown as module+offset (--modules DIR finds the traced build in DIR)"
expect_eq "sites: changed module: frames as module+offset" \
	"$(site_get $T/moved.json sites_at_peak '^libsites_lib\.so\+0x[0-9a-f]+$' bytes)" 2097229
# The library's path is now a FIFO: opening it would block the reader; it says so instead.
rm -f $T/moved/libsites_lib.so && mkfifo $T/moved/libsites_lib.so
timeout 60 $REPORT --json $T/moved.zst >$T/fifo.json 2>$T/fifo.rerr
expect_eq "sites: module path is a FIFO: reader exit 0, one warning" "$?/$(cat $T/fifo.rerr)" \
	"0/cuzktrace-report: warning: cannot read '$T/moved/libsites_lib.so': not a regular file; its frames are shown as module+offset"
expect_eq "sites: module path is a FIFO: frames as module+offset" \
	"$(site_get $T/fifo.json sites_at_peak '^libsites_lib\.so\+0x[0-9a-f]+$' bytes)" 2097229
# Deleted since (a build directory cleaned): the warning points to --modules, which finds the
# traced build by its build-id in another directory (since 0.2.43).
rm -f $T/moved/libsites_lib.so && mkdir -p $T/kept && cp $S/libsites_lib.so $T/kept/
$REPORT --json $T/moved.zst >$T/gone.json 2>$T/gone.rerr
expect_eq "sites: module deleted since: exit 0, one warning naming --modules" "$?/$(cat $T/gone.rerr)" \
	"0/cuzktrace-report: warning: cannot read '$T/moved/libsites_lib.so': No such file or directory; its frames are shown as module+offset (--modules DIR finds the traced build in DIR)"
$REPORT --json --modules $T/kept $T/moved.zst >$T/kept.json 2>$T/kept.rerr
expect_eq "sites: module deleted since, found by --modules: silent, its function named" \
	"$(cat $T/kept.rerr)/$(site_get $T/kept.json sites_at_peak '^sites_lib_alloc ' bytes)" "/2097229"
# Cut short since (a copy interrupted): its ELF headers describe more bytes than the file has.
# Read as it was, a cut that left the first page called the file stripped (its symbol table
# was past the cut), and one cut inside the first page read as module+offset with nothing
# said (since 0.2.44 both say what happened, and --modules finds the whole build).
full=$(stat -c %s $S/libsites_lib.so)
head -c 6000 $S/libsites_lib.so >$T/moved/libsites_lib.so
$REPORT --json $T/moved.zst >$T/cut.json 2>$T/cut.rerr
rc_cut=$?
head -c 1000 $S/libsites_lib.so >$T/moved/libsites_lib.so
$REPORT --json $T/moved.zst >$T/cut1k.json 2>$T/cut1k.rerr
expect_eq "sites: module cut short since (6000 and 1000 bytes left): exit 0, one warning each naming both sizes" \
	"$rc_cut/$(cat $T/cut.rerr)|$?/$(cat $T/cut1k.rerr)" \
	"0/cuzktrace-report: warning: '$T/moved/libsites_lib.so' is cut short (6000 bytes, where its ELF headers describe $full): it was cut after the run (a copy or unpacking interrupted, a full disk?); its frames are shown as module+offset (--modules DIR finds the traced build in DIR)|0/cuzktrace-report: warning: '$T/moved/libsites_lib.so' is cut short (1000 bytes, where its ELF headers describe $full): it was cut after the run (a copy or unpacking interrupted, a full disk?); its frames are shown as module+offset (--modules DIR finds the traced build in DIR)"
$REPORT --json --modules $T/kept $T/moved.zst >$T/cutkept.json 2>$T/cutkept.rerr
expect_eq "sites: module cut short, whole build found by --modules: silent, its function named" \
	"$(site_get $T/cut.json sites_at_peak '^libsites_lib\.so\+0x[0-9a-f]+$' bytes)/$(cat $T/cutkept.rerr)/$(site_get $T/cutkept.json sites_at_peak '^sites_lib_alloc ' bytes)" "2097229//2097229"
# ... but a separate debug file is whole: made by eu-strip -f (Fedora's and openSUSE's
# debuginfo), it keeps the program headers of the file it came from, whose segments it holds
# as SHT_NOBITS sections, so they describe more bytes than it has. Found by --modules under the
# module's name, it was called cut short and read as module+offset in 0.2.44. Made here by
# objcopy --only-keep-debug with the library's own program headers put back.
if command -v objcopy >/dev/null 2>&1; then
	mkdir -p $T/dbgonly && objcopy --only-keep-debug $S/libsites_lib.so $T/dbgonly/libsites_lib.so
	$PY - $S/libsites_lib.so $T/dbgonly/libsites_lib.so <<'PYEOF'
import struct, sys
src, dst = open(sys.argv[1], 'rb').read(), bytearray(open(sys.argv[2], 'rb').read())
def ph(b):
    off, = struct.unpack_from('<Q', b, 0x20)
    ent, num = struct.unpack_from('<HH', b, 0x36)
    return off, ent * num
so, sn = ph(src)
do, dn = ph(dst)
assert sn == dn
dst[do:do + dn] = src[so:so + sn]
open(sys.argv[2], 'wb').write(dst)
PYEOF
	$REPORT --json --modules $T/dbgonly $T/moved.zst >$T/cutdbg.json 2>$T/cutdbg.rerr
	expect_eq "sites: separate debug file (program headers past its end) found by --modules: silent, its function named" \
		"$(cat $T/cutdbg.rerr)/$(site_get $T/cutdbg.json sites_at_peak '^sites_lib_alloc ' bytes)" "/2097229"
fi

# ---- the two unwinders (preload/stacks.c): a thread steps a cursor until stepping has taken
# 125 us of its time, then uses unw_backtrace; both must give the same stack. libunwcount.so,
# preloaded after the tracer, counts which one took each thread's stacks: thread A (1000 stacks
# as fast as it can) steps some (at least 16, 20 to 30 here), then switches; B (5 stacks) steps
# all of them: a thread steps 16 stacks before it may switch (since 0.2.15; B switched after 2
# or 3 on a loaded machine, and short-lived threads each mapped and zeroed the 256 KiB cache).
# Every 1000-byte block of the one call path is on one stack id (the oracle reads the ids;
# the folded line shows the path).
(CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/uws.zst LD_PRELOAD="$LIB $P/libunwcount.so" \
	$P/unwind_switch >$T/uws.out 2>$T/uws.err; echo $? >$T/uws.rc)
uws=$(head -1 $T/uws.out)
uws_ok=0
if [[ $uws =~ ^A\ fast\ ([0-9]+)\ stepped\ ([0-9]+)\;\ B\ fast\ ([0-9]+)\ stepped\ ([0-9]+)$ ]]; then
	a_f=${BASH_REMATCH[1]} a_s=${BASH_REMATCH[2]} b_f=${BASH_REMATCH[3]} b_s=${BASH_REMATCH[4]}
	# A's 1000 stacks and, when it switches, one call of unw_backtrace for a single frame
	# that makes libunwind map its cache (the tracer drops its pages then; not in this run:
	# see below)
	uws_ok=$((a_f > 0 && a_s >= 16 && a_f + a_s == 1001 && b_s == 5 && b_f == 0))
fi
expect_eq "unwinders: A steps 16 or more, then switches; B steps all 5 ($uws)" "$(cat $T/uws.rc)/$uws_ok" "0/1"
expect_eq "unwinders: stepped and cached stacks are one stack id" \
	"$($PY tests/oracle/oracle.py --stacks-of=1000 $T/uws.zst | awk '{print $2}')" 1005
$REPORT --folded $T/uws.folded $T/uws.zst >/dev/null 2>$T/uws.rerr
expect_match "unwinders: the stack is the call path (one folded line, every block)" \
	"$(grep -c 'common_site' $T/uws.folded) $(grep 'common_site' $T/uws.folded)" \
	"^1 .*start_thread .*;worker \(.*unwind_switch\.c:[0-9]+\);level1 \(.*unwind_switch\.c:[0-9]+\);common_site \(.*unwind_switch\.c:[0-9]+\) 1005000\$"
# libunwind's trace cache: 256 KiB per thread that uses unw_backtrace, every slot written when
# it is made; the tracer drops those pages at once (stacks.c, unw_cache_trim) and the lookups
# bring back a page for each few return addresses. libmapwatch.so notes the 256 KiB mappings
# (the main thread's, made at start, and A's); A counts their resident pages with mincore: 12
# to 16 of 64 here, all 64 before the tracer dropped them. The stacks taken through the
# trimmed cache are the call path, as above (the run with libunwcount trims nothing: the
# tracer takes that library's text for libunwind's, and does not know libunwind's mmap call).
# Skipped where the tracer leaves the cache whole: not x86_64, or a libunwind that maps it
# without calling mmap (1.7 on).
CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/uwm.zst LD_PRELOAD="$LIB $P/libmapwatch.so" \
	$P/unwind_switch >$T/uwm.out 2>$T/uwm.err
uwm=$(sed -n 1p $T/uwm.out)
if [ "$(uname -m)" != x86_64 ] || [[ $uwm =~ ^A:\ 256\ KiB\ mappings\ 0, ]]; then
	echo "  skip unwinders: libunwind's trace cache is kept whole here ($(uname -m); $uwm)"
else
	uwm_ok=0
	if [[ $uwm =~ ^A:\ 256\ KiB\ mappings\ ([0-9]+),\ most\ pages\ resident\ ([0-9]+)\ of\ 64$ ]]; then
		uwm_ok=$((BASH_REMATCH[1] >= 2 && BASH_REMATCH[2] <= 32))
	fi
	expect_eq "unwinders: libunwind's trace caches keep at most half their pages ($uwm)" "$uwm_ok" 1
	$REPORT --folded $T/uwm.folded $T/uwm.zst >/dev/null 2>$T/uwm.rerr
	expect_match "unwinders: stacks through a trimmed cache are the call path (one folded line, every block)" \
		"$(grep -c 'common_site' $T/uwm.folded) $(grep 'common_site' $T/uwm.folded)" \
		"^1 .*start_thread .*;worker \(.*unwind_switch\.c:[0-9]+\);level1 \(.*unwind_switch\.c:[0-9]+\);common_site \(.*unwind_switch\.c:[0-9]+\) 1005000\$"
fi

# A program that sizes libunwind's rule cache (16384 entries: its links table is 256 KiB too),
# with a flush of that cache landing in the tracer's first unw_backtrace of a thread
# (libunwflush.so), whose refill maps the links table inside the trim, after the trace cache:
# the trim must leave it alone (stacks.c: it drops only a mapping that holds a trace cache
# as made). It dropped the last mapping of that size, the links table, whose zeroed chains
# made libunwind's lookups loop for ever: killed by the timeout in 6 runs of 8 (3 runs here:
# all 3 pass by chance 1.5% of the time with that fault).
if [ "$(uname -m)" = x86_64 ]; then
	uwf=""
	for k in 1 2 3; do
		(timeout -s KILL 60 env CUZKTRACE_SAMPLE=0 CUZKTRACE_RSS_MS=0 CUZKTRACE_QUIET=1 CUZKTRACE_OUT=$T/uwf.zst \
			LD_PRELOAD="$LIB $P/libunwflush.so" $P/unwflush >$T/uwf.out 2>$T/uwf.err; echo $? >$T/uwf.rc)
		uwf="$uwf$(cat $T/uwf.rc) $(cat $T/uwf.out);"
	done
	expect_eq "unwinders: a flush of libunwind's sized cache during the trim: the program runs to its end (3 runs)" \
		"$uwf" "0 unwflush: done;0 unwflush: done;0 unwflush: done;"
fi

# ---- C++: a template, operator new, std::vector growth folded into its caller ----
X_T=$(line_of $SRC/sites_cxx.cc SITE:cxx_template)
X_N=$(line_of $SRC/sites_cxx.cc SITE:cxx_new)
X_R=$(line_of $SRC/sites_cxx.cc SITE:cxx_reserve)
X_L=$(line_of $SRC/sites_cxx.cc SITE:cxx_local)
# ... also built by clang++ (since 0.2.27), which writes no .debug_aranges: libdwfl found no
# compile unit for any address, and every site read "main (sites_cxx_clang+0x1243)"
for sxp in sites_cxx sites_cxx_clang; do
	if [ ! -x $S/$sxp ]; then
		echo "  skip sites: C++ built by clang++: clang++ not found when building (tests/sites/sites.mk)"
		continue
	fi
	sxc=; [ $sxp = sites_cxx_clang ] && sxc=" (clang++)"
	CUZKTRACE_OUT=$T/$sxp.zst traced $sxp $S/$sxp
	$REPORT --json $T/$sxp.zst >$T/$sxp.json 2>$T/$sxp.rerr
	expect_eq "sites: C++$sxc reader silent" "$(cat $T/$sxp.rerr)" ""
	expect_eq "sites: C++$sxc template instance owns new T[]" \
		"$(site_get $T/$sxp.json sites_at_peak "^int\* make_table<int>\(unsigned long\) \(.*sites_cxx\.cc:$X_T\)\$" bytes)" 4000000
	# (g++: no linkage name, the class's line; clang++ names them by its own linkage names,
	# "with_lambdas(unsigned long)::$_0::operator()(unsigned long) const")
	for lam in cxx_lambda1:300000 cxx_lambda2:400000; do
		lml=$(line_of $SRC/sites_cxx.cc SITE:${lam%:*})
		expect_eq "sites: C++$sxc an inlined lambda is named by its function and line (both were 'operator()')" \
			"$(site_get $T/$sxp.json sites_at_peak "^with_lambdas(::\{lambda at line $lml\}::operator\(\)|\(unsigned long\)::\\\$_[0-9]::operator\(\)\(unsigned long\) const) \(.*sites_cxx\.cc:$lml\)\$" bytes)" "${lam#*:}"
	done
	expect_eq "sites: C++$sxc vector::reserve folds into its caller's line, and a local type's vector; operator new of an object" \
		"$(site_get $T/$sxp.json sites_at_peak "^build_grid\(unsigned long\) \(.*sites_cxx\.cc:$X_R\)\$" bytes)/$(site_get $T/$sxp.json sites_at_peak "^with_local\(unsigned long\) \(.*sites_cxx\.cc:$X_L\)\$" bytes)/$(site_get $T/$sxp.json sites_at_peak "^build_grid\(unsigned long\) \(.*sites_cxx\.cc:$X_N\)\$" bytes)" \
		2000000/500000/24
done
CUZKTRACE_OUT=$T/sx.zst traced sx $S/sites_cxx
$REPORT --json $T/sx.zst >$T/sx.json 2>$T/sx.rerr
expect_match "sites: C++ the full stack keeps the std:: frames" \
	"$(site_get $T/sx.json sites_at_peak "^build_grid\(unsigned long\) \(.*sites_cxx\.cc:$X_R\)\$" frames)" "std::vector<double, std::allocator<double> >::reserve"
expect_eq "sites: C++ operator new of an object" \
	"$(site_get $T/sx.json sites_at_peak "^build_grid\(unsigned long\) \(.*sites_cxx\.cc:$X_N\)\$" bytes)" 24
# a vector of a function's local type: the library's inlined frames are named without std::
# (internal linkage) and are known by their files, libstdc++'s headers (they were the site)
expect_eq "sites: C++ a vector of a local type folds into its caller's line" \
	"$(site_get $T/sx.json sites_at_peak "^with_local\(unsigned long\) \(.*sites_cxx\.cc:$X_L\)\$" bytes)" 500000
expect_match "sites: C++ a vector of a local type: the full stack keeps the library's frames" \
	"$(site_get $T/sx.json sites_at_peak "^with_local\(unsigned long\) \(.*sites_cxx\.cc:$X_L\)\$" frames)" "_M_allocate.*/include/c\+\+/.*stl_vector\.h:[0-9]+\)"
# --diff matches sites by function: the name with its parameters, without " (file:line)"; the
# two lines of build_grid add up, and so do with_local's (a trace against itself: every row unchanged); the C++
# runtime's own block made before any stack could be taken keeps its whole name
$REPORT --json --diff $T/sx.zst $T/sx.zst >$T/sxd.json 2>/dev/null
expect_match "sites: C++ functions of --diff keep their parameters, a function's lines add up" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" / ".join("%s %d %d" % (r["function"], r["trace"], r["change"]) for r in d["by_function"]["peak_heap"] if r["trace"] >= 24))' $T/sxd.json)" \
	'^int\* make_table<int>\(unsigned long\) 4000000 0 / build_grid\(unsigned long\) 2000024 0 / with_local\(unsigned long\) 500024 0 / with_lambdas::\{lambda at line '"$(line_of $SRC/sites_cxx.cc SITE:cxx_lambda2)"'\}::operator\(\) 400000 0 / with_lambdas::\{lambda at line '"$(line_of $SRC/sites_cxx.cc SITE:cxx_lambda1)"'\}::operator\(\) 300000 0 / (\(no call stack\) [0-9]+ 0 / )?with_callback\(void \(\*\)\(int\), unsigned long\) 3000 0$'

# Functions whose debug info holds only their last name (C++ internal linkage: an anonymous
# namespace, static; Rust's line-tables-only below) are named as the symbol table does: two
# methods called fill were one "fill" in --diff (a change that moved 1 MB from one to the
# other read "no change") and a --phase-rule on Witness::fill matched nothing
for v in "" _v2; do
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sn$v.zst traced sn$v $S/sites_names$v
done
N_W=$(line_of $SRC/sites_names.cc SITE:names_witness)
N_S=$(line_of $SRC/sites_names.cc SITE:names_static)
$REPORT --json $T/sn.zst >$T/sn.json 2>$T/sn.rerr
expect_eq "sites: a method of an anonymous namespace by its whole name, a static function with its parameters, reader silent" \
	"$(site_get $T/sn.json sites_at_peak "^\(anonymous namespace\)::Witness::fill\(unsigned long\) \(.*sites_names\.cc:$N_W\)\$" bytes)/$(site_get $T/sn.json sites_at_peak "^scratch\(unsigned long\) \(.*sites_names\.cc:$N_S\)\$" bytes)/$(cat $T/sn.rerr)" \
	"1000000/3000/"
$REPORT --json --diff $T/sn.zst $T/sn_v2.zst >$T/snd.json 2>/dev/null
expect_eq "sites: --diff tells the two fill methods apart (+1,000,000 and -1,000,000 bytes)" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" / ".join("%s %d %d" % (r["function"], r["base"], r["change"]) for r in d["by_function"]["peak_heap"] if r["base"] >= 3000))' $T/snd.json)" \
	"(anonymous namespace)::Proof::fill(unsigned long) 2000000 -1000000 / (anonymous namespace)::Witness::fill(unsigned long) 1000000 1000000 / scratch(unsigned long) 3000 0"
$REPORT --json --phase-rule 'witness=*Witness::fill*' $T/sn.zst >$T/snr.json 2>/dev/null
expect_eq "sites: a --phase-rule on Witness::fill takes its 1,000,000 bytes" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print([p["at_peak_heap_bytes"] for p in d["phases"] if p["name"] == "witness"])' $T/snr.json)" "[1000000]"

# clang's -gline-tables-only names a function by its last name alone; the symbol's full name is
# taken where it agrees: also a function with an ABI tag ("make_string[abi:cxx11]") and a
# conversion operator ("operator vector" in DWARF, "operator std::vector<int, ...>" in the
# symbol), which kept DWARF's short names before 0.2.58 (a --phase-rule on app::* missed them)
if command -v clang++ >/dev/null 2>&1; then
	cat >$T/ltname.cc <<'CCEOF'
#include <string>
#include <vector>
#include <cstdio>
namespace app {
__attribute__((noinline)) std::string *make_string(size_t n) { return new std::string(n, 'x'); }
struct Buf {
	__attribute__((noinline)) operator std::vector<int>() const { std::vector<int> v(123456); return v; }
};
}
int main()
{
	std::string *s = app::make_string(600000);
	app::Buf b;
	std::vector<int> v = b;
	std::printf("%zu %zu\n", s->size(), v.size());
	return 0;
}
CCEOF
	if clang++ -O2 -gline-tables-only -o $T/ltname $T/ltname.cc 2>/dev/null; then
		CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/ltname.zst traced ltname $T/ltname
		$REPORT --json $T/ltname.zst >$T/ltname.json 2>/dev/null
		expect_eq "sites: clang -gline-tables-only, an ABI-tagged function and a conversion operator by the symbol's full names" \
			"$(site_get $T/ltname.json sites_at_peak_heap '^app::make_string\[abi:cxx11\]\(unsigned long\) \(.*ltname\.cc:5\)$' bytes)/$(site_get $T/ltname.json sites_at_peak_heap '^app::Buf::operator std::vector<int, std::allocator<int> >\(\) const \(.*ltname\.cc:7\)$' bytes)" \
			"600033/493824"
	else
		echo "  skip sites: clang -gline-tables-only names: clang++ cannot build the test program"
	fi
	# --diff of a g++ -O0 build (ns::make_row[abi:cxx11](unsigned long), out of line) against
	# a clang -O2 -gline-tables-only one (inlined: the bare make_row): one function, no change
	# (since 0.2.59; the ABI tag kept them apart, gone and new)
	cat >$T/abidiff.cc <<'CCEOF'
#include <string>
namespace ns {
INL std::string make_row(unsigned long n) { return std::string(n, 'r'); }
}
static std::string keep;
int main() { keep = ns::make_row(200000); return 0; }
CCEOF
	if g++ -std=c++17 -O0 -g -DINL='__attribute__((noinline))' -o $T/abidiff0 $T/abidiff.cc 2>/dev/null &&
		clang++ -std=c++17 -O2 -gline-tables-only -DINL='inline __attribute__((always_inline))' -o $T/abidiff2 $T/abidiff.cc 2>/dev/null; then
		for v in 0 2; do CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/abidiff$v.zst traced abidiff$v $T/abidiff$v; done
		expect_eq "sites: --diff joins an inlined bare make_row (clang -gline-tables-only) to the ABI-tagged ns::make_row" \
			"$($REPORT --diff $T/abidiff0.zst $T/abidiff2.zst 2>/dev/null | sed -n '/^live bytes by function at peak heap/,/^$/p' | grep make_row | tr -s ' ')" \
			" no change 195 KiB 195 KiB ns::make_row[abi:cxx11](unsigned long)"
	else
		echo "  skip sites: --diff of an ABI-tagged function: g++ or clang++ cannot build the test program"
	fi
else
	echo "  skip sites: clang -gline-tables-only names: no clang++"
fi

# One site through several call stacks (tests/sites/sites_paths.c): the stack shown follows the
# callers holding the most (f1's 3,000,000 bytes from three lines of main, not f2's single
# stack of 2,000,000, which was shown before), with the bytes through each caller; stacks that
# symbolize alike (two calls on one line) count as one
P_H=$(line_of $SRC/sites_paths.c SITE:paths_helper)
P_F1=$(line_of $SRC/sites_paths.c SITE:paths_f1)
P_M1=$(line_of $SRC/sites_paths.c SITE:paths_main1)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/spaths.zst traced spaths $S/sites_paths
$REPORT --json --sites-csv $T/spaths.csv $T/spaths.zst >$T/spaths.json 2>/dev/null
expect_eq "sites: a site of several stacks shows the heaviest callers (JSON: frames, stacks, bytes through each caller)" \
	"$($PY -c '
import json, re, sys
e = json.load(open(sys.argv[1]))["sites_at_peak_heap"][0]
strip = lambda f: re.sub(r" \(.*/", " (", f)
print(e["bytes"], e["count"], " <- ".join(strip(f) for f in e["frames"][:3]), e["stacks"], e["callers_bytes"])' $T/spaths.json)" \
	"5000000 4 helper (sites_paths.c:$P_H) <- f1 (sites_paths.c:$P_F1) <- main (sites_paths.c:$P_M1) 4 [3000000, 1000000, 1000000]"
expect_eq "sites: the text report gives the bytes through each caller and the number of stacks" \
	"$($REPORT $T/spaths.zst 2>/dev/null | sed -n '/^top sites at peak heap/,/^$/p' | sed -n '4,5p;7p' | sed 's/ (.*\/\([^/]*:[0-9]*)\)/ (\1/')" \
	"      <- f1 (sites_paths.c:$P_F1)  [2.86 MiB]
      <- main (sites_paths.c:$P_M1)  [977 KiB]
      (4 call stacks in all; [bytes] through each caller; --folded has every stack)"
expect_eq "sites: two calls on one line are one stack (no count of call stacks under it)" \
	"$($PY -c '
import json, sys
e = [e for e in json.load(open(sys.argv[1]))["sites_at_peak_heap"] if e["site"].startswith("twice ")][0]
print(e["bytes"], e["count"], e["stacks"], e["callers_bytes"][0])' $T/spaths.json)/$($REPORT $T/spaths.zst 2>/dev/null | sed -n '/^top sites at peak heap/,/^$/p' | grep -c 'call stacks in all')" \
	"300000 2 1 300000/1"
expect_match "sites: the sites CSV's stack is the same one" "$(grep '^"helper ' $T/spaths.csv)" \
	"\"helper \(.*sites_paths\.c:$P_H\) <- f1 \(.*sites_paths\.c:$P_F1\) <- main \(.*sites_paths\.c:$P_M1\) <- "

# ties and tie-breaks in the order of sites and of the stack shown (without RSS samples, so
# that no site holds bytes at a peak RSS): leaf's two stacks hold 50,000 bytes each and share
# their first three callers (c1, c2, c3): the stack shown is the one seen first (via_b's, called
# first); at exit z_zeros's three blocks of 0 bytes come before a_zero's one (by count, not by
# name); by allocations, sites of one allocation go by bytes allocated (a_churn's 90,000 first,
# a_zero's 0 last), not by name; the sites CSV by bytes at the peak heap before bytes allocated
# (a_churn, freed before the peak, after a_small)
cat >$T/ties.c <<'CEOF'
#include <stdlib.h>
#include <string.h>
void *volatile keep[8];
__attribute__((noinline)) void *leaf(void) { void *p = malloc(50000); memset(p, 1, 50000); return p; }
__attribute__((noinline)) void *c1(void) { void *p = leaf(); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *c2(void) { void *p = c1(); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *c3(void) { void *p = c2(); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *via_b(void) { void *p = c3(); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *via_a(void) { void *p = c3(); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *z_big(void) { void *p = malloc(30000); memset(p, 1, 30000); return p; }
__attribute__((noinline)) void *a_small(void) { void *p = malloc(20000); memset(p, 1, 20000); return p; }
__attribute__((noinline)) void a_churn(void) { void *p = malloc(90000); memset(p, 1, 90000); free(p); }
__attribute__((noinline)) void *a_zero(void) { return malloc(0); }
__attribute__((noinline)) void *z_zeros(void) { return malloc(0); }
int main(void)
{
	a_churn();
	keep[0] = via_b();
	keep[1] = via_a();
	keep[2] = z_big();
	keep[3] = a_small();
	keep[4] = a_zero();
	for (int i = 5; i < 8; i++)
		keep[i] = z_zeros();
	return 0;
}
CEOF
if ${CC:-cc} -O0 -g -o $T/ties $T/ties.c 2>/dev/null; then
	CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/ties.zst traced ties $T/ties
	$REPORT --json --sites-csv $T/ties.csv $T/ties.zst >$T/ties.json 2>/dev/null
	expect_eq "sites: of two stacks alike up to the callers compared, with the same bytes, the one seen first is shown (JSON, CSV)" \
		"$(site_get $T/ties.json sites_at_peak_heap '^leaf ' frames.4 | sed 's/ (.*:/ (/')/$(site_get $T/ties.json sites_at_exit '^leaf ' frames.5 | sed 's/ (.*:/ (/')/$(grep '^"leaf ' $T/ties.csv | cut -d'"' -f4 | sed 's/ ([^)]*:\([0-9]*\))/ (\1)/g; s/ <- __libc_start_call_main.*//')" \
		"via_b (8)/main (18)/leaf (4) <- c1 (5) <- c2 (6) <- c3 (7) <- via_b (8) <- main (18)"
	expect_eq "sites: live at exit, sites of 0 bytes by their blocks' count; by allocations, ties by bytes allocated" \
		"$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("sites_at_exit", "sites_by_allocations"):
    print(k, " ".join("%s:%d:%d" % (e["site"].split(" (")[0], e["bytes"], e["count"]) for e in d[k]))' $T/ties.json)" \
		"sites_at_exit leaf:100000:2 z_big:30000:1 a_small:20000:1 z_zeros:0:3 a_zero:0:1
sites_by_allocations z_zeros:0:3 leaf:100000:2 a_churn:90000:1 z_big:30000:1 a_small:20000:1 a_zero:0:1"
	expect_eq "sites: the sites CSV's rows by bytes at the peak heap, then bytes allocated, then name" \
		"$(tail -n +2 $T/ties.csv | cut -d, -f1-6 | sed 's/ ([^)]*)//')" \
		'"leaf",,100000,100000,100000,2
"z_big",,30000,30000,30000,1
"a_small",,20000,20000,20000,1
"a_churn",,0,90000,90000,1
"a_zero",,0,0,0,1
"z_zeros",,0,0,0,3'
	# a stack that holds nothing at any moment listed is symbolized only as far as the list by
	# allocations shows it: the site and its three callers all the same
	expect_eq "sites: the list by allocations shows a freed block's site with its three callers" \
		"$($REPORT $T/ties.zst 2>/dev/null | sed -n '/^top sites by allocations/,/^$/p' | grep -A4 '^  #3 ' | sed 's/ (.*:\([0-9]*\))$/ (\1)/' | sed -n '2s/^ *//p')/$($REPORT $T/ties.zst 2>/dev/null | sed -n '/^top sites by allocations/,/^$/p' | sed -n '/^  #3 /,/^  #4 /p' | grep -c '^      <- ')" \
		"a_churn (12)/3"
	# ... and JSON names its whole stack, as with --sites-csv (which symbolizes every stack
	# whole): before 0.2.61 the frames stopped at the third caller without it
	$REPORT --json $T/ties.zst >$T/ties0.json 2>/dev/null
	expect_eq "sites: JSON's frames of a site listed only by allocations, whole with or without --sites-csv" \
		"$(for f in ties0 ties; do $PY -c 'import json, sys; print([e["frames"] for e in json.load(open(sys.argv[1]))["sites_by_allocations"] if e["site"].startswith("a_churn ")])' $T/$f.json; done | uniq | wc -l)/$(site_get $T/ties0.json sites_by_allocations '^a_churn ' frames.1 | sed 's/ (.*//')/$($PY -c 'import json, sys; print([e["frames"][-1].split(" ")[0] for e in json.load(open(sys.argv[1]))["sites_by_allocations"] if e["site"].startswith("a_churn ")])' $T/ties0.json)" \
		"1/main/['_start']"
else
	echo "  skip sites: ties: cc cannot build the test program"
fi

# a library loaded by a relative path is named absolutely in the module map, so the reader
# (run from elsewhere) still symbolizes it
(cd $S/.. && CUZKTRACE_OUT=$T/screl.zst LD_PRELOAD=$LIB sites/sites_c ./sites/libsites_lib.so >/dev/null 2>&1)
$REPORT --json $T/screl.zst >$T/screl.json 2>$T/screl.rerr
expect_eq "sites: a library dlopened by a relative path symbolizes, silently" \
	"$(site_get $T/screl.json sites_at_peak "^sites_lib_alloc \(.*sites_lib\.c:$C_LIB\)\$" bytes)/$(cat $T/screl.rerr)" "2097229/"

# a program started by running the dynamic loader (ld.so ./prog): the module map names the
# program by the file the loader was given, not after the loader (/proc/self/exe), so its
# frames symbolize and the reader does not take the loader for changed
(cd $S/.. && CUZKTRACE_OUT=$T/sldso.zst LD_PRELOAD=$LIB /lib64/ld-linux-x86-64.so.2 ./sites/sites_c \
	./sites/libsites_lib.so >/dev/null 2>&1)
$REPORT --json $T/sldso.zst >$T/sldso.json 2>$T/sldso.rerr
expect_eq "sites: a program run by the dynamic loader (ld.so ./prog) symbolizes, silently" \
	"$(site_get $T/sldso.json sites_at_peak "^grab_rows \(.*sites_c\.c:$C_INL\)\$" bytes)/$(cat $T/sldso.rerr)" "3145851/"
# ... also when a library's constructor changes directory before the tracer starts: the file the
# loader mapped is named (a first build took the name the loader was given, relative, from the
# new directory: another program of that name there, "changed since it was traced")
mkdir -p $T/ldcd && cp $P/exitcode $T/ldcd/ctor
(cd $P && CKT_CTORLIB_CHDIR=$T/ldcd CUZKTRACE_OUT=$T/ldcd.zst LD_PRELOAD=$LIB /lib64/ld-linux-x86-64.so.2 ./ctor \
	>/dev/null 2>&1; echo $? >$T/ldcd.rc)
$REPORT --json $T/ldcd.zst >$T/ldcd.json 2>$T/ldcd.rerr
expect_eq "sites: ld.so ./prog whose library's constructor changes directory first: main's block at its line, silently" \
	"$(cat $T/ldcd.rc)/$(site_get $T/ldcd.json sites_at_peak '^main \(.*ctor\.c:11\)$' bytes)/$(cat $T/ldcd.rerr)" "0/222223/"

# a frame without debug info in a gap between one compile unit's ranges gets no file:line
CUZKTRACE_OUT=$T/sgap.zst traced sgap $S/sites_gap
$REPORT --folded $T/sgap.folded $T/sgap.zst >/dev/null 2>&1
expect_eq "sites: _start (no debug info) is shown as module+offset, never with a stray file:line" \
	"$(grep -o '^_start ([^)]*)' $T/sgap.folded | sort -u)" "$(grep -o '^_start (sites_gap+0x[0-9a-f]*)' $T/sgap.folded | sort -u)"
expect_eq "sites: sites_gap's stacks start at _start" "$(grep -c '^_start (' $T/sgap.folded)" "$(grep -vc '^(no call stack)' $T/sgap.folded)"

# a signal handler's allocations: the trampoline named as gdb names it, and the frame the signal
# interrupted looked up at the faulting instruction itself (since 0.2.51; one byte before it, as
# for a return address, deref took the line before the store and crash_first, which faults on
# its first instruction, the function before it)
SIG_H=$(line_of $SRC/sites_sig.c SITE:sig_handler)
SIG_F=$(line_of $SRC/sites_sig.c SITE:sig_fault)
CUZKTRACE_OUT=$T/ssig.zst traced ssig $S/sites_sig
$REPORT --json --folded $T/ssig.folded $T/ssig.zst >$T/ssig.json 2>$T/ssig.rerr
expect_eq "sites: signal handler program ran, the reader silent" "$(cat $T/ssig.out)/$(cat $T/ssig.rc)/$(cat $T/ssig.rerr)" \
	"sites_sig: 10 2/0/"
expect_eq "sites: the handler's line owns both its blocks" \
	"$(site_get $T/ssig.json sites_at_peak_heap "^handler \(.*sites_sig\.c:$SIG_H\)\$" bytes)" 3000000
expect_match "sites: the faulting store's frame has the store's line, past the trampoline" \
	"$(grep ' 1000000$' $T/ssig.folded)" \
	";main \([^;]*sites_sig\.c:[0-9]+\);deref \([^;]*sites_sig\.c:$SIG_F\);<signal handler called> \(libc\.so\.6\+0x[0-9a-f]+\);handler \([^;]*sites_sig\.c:$SIG_H\) 1000000\$"
expect_match "sites: a fault on a function's first instruction names that function" \
	"$(grep ' 2000000$' $T/ssig.folded)" \
	"(^|;)crash_first \(sites_sig\+0x[0-9a-f]+\);<signal handler called> \(libc\.so\.6\+0x[0-9a-f]+\);handler \([^;]*sites_sig\.c:$SIG_H\) 2000000\$"

# C++ namespaces named as Rust's crates ("core", "alloc"): the program's own functions, sites
# (since 0.2.51; they were taken for Rust's allocator plumbing, their callers the sites)
NS_R=$(line_of $SRC/sites_ns.cc SITE:ns_resize)
NS_A=$(line_of $SRC/sites_ns.cc SITE:ns_arena)
NS_F=$(line_of $SRC/sites_ns.cc SITE:ns_fill)
NS_C=$(line_of $SRC/sites_ns.cc CALL:ns_fill)
CUZKTRACE_OUT=$T/sns.zst traced sns $S/sites_ns
$REPORT --json $T/sns.zst >$T/sns.json 2>$T/sns.rerr
expect_eq "sites: C++ core::/alloc:: functions own their bytes (resize/arena_get/inlined fill/reader stderr)" \
	"$(site_get $T/sns.json sites_at_peak_heap "^core::Buffer::resize\(unsigned long\) \(.*sites_ns\.cc:$NS_R\)\$" bytes)/$(site_get $T/sns.json sites_at_peak_heap "^alloc::arena_get\(unsigned long\) \(.*sites_ns\.cc:$NS_A\)\$" bytes)/$(site_get $T/sns.json sites_at_peak_heap "^core::fill\(unsigned long\) \(.*sites_ns\.cc:$NS_F\)\$" bytes)/$(cat $T/sns.rerr)" \
	"2000000/3000000/1000000/"
expect_eq "sites: an inlined function of an anonymous namespace (GCC: no linkage name) keeps DWARF's last name, as --diff and --phase-rule join it" \
	"$(site_get $T/sns.json sites_at_peak_heap "^anon_grab \(.*sites_ns\.cc:$(line_of $SRC/sites_ns.cc SITE:ns_anon)\)\$" bytes)" 700000
expect_match "sites: the inlined core::fill's caller is make_rows at the call's line" \
	"$(site_get $T/sns.json sites_at_peak_heap "^core::fill\(" frames.1)" "^make_rows\(unsigned long\) \(.*sites_ns\.cc:$NS_C\)\$"

# a function of 1,000 call sites (generated: tests/sites/gen_big.sh), past the 512 entries after
# which the symbolizer indexes a function instead of walking it for each address (since 0.2.51:
# a walk per return address, quadratic): every stack's main frame names its call's own line
CUZKTRACE_OUT=$T/sbig.zst traced sbig $S/sites_big
$REPORT --folded-heap $T/sbig.folded $T/sbig.zst >/dev/null 2>$T/sbig.rerr
expect_eq "sites: 1,000 call sites of one function, each stack at its own line" \
	"$(cat $T/sbig.rc)/$(cat $T/sbig.rerr)/$($PY - $S/sites_big.c $T/sbig.folded <<'PYEOF'
import re, sys
lines = {}
for n, l in enumerate(open(sys.argv[1]), 1):
    m = re.search(r"CALL:(\d+)", l)
    if m:
        lines[int(m.group(1))] = n
ok = bad = 0
for l in open(sys.argv[2]):
    stack, w = l.rsplit(" ", 1)
    i = int(w) - 1000
    if not 0 <= i < 1000:
        continue
    m = re.search(r";main \([^;]*sites_big\.c:(\d+)\);f%d \(" % i, stack)
    if m and int(m.group(1)) == lines[i]:
        ok += 1
    else:
        bad += 1
print(ok, bad)
PYEOF
)" "0//1000 0"

# a program whose debug information is in a file its debug link names: found, its sites have
# their lines; gone, the line says where it was looked for; another build's file there (since
# 0.2.51: read "found neither"), the line says that one is another build's
mkdir -p $T/dlink
cp $S/sites_paths $T/dlink/prog
objcopy --only-keep-debug $T/dlink/prog $T/dlink/prog.debug && objcopy --strip-debug $T/dlink/prog &&
	objcopy --add-gnu-debuglink=$T/dlink/prog.debug $T/dlink/prog
CUZKTRACE_OUT=$T/dlink.zst traced dlink $T/dlink/prog
$REPORT --json $T/dlink.zst >$T/dlink.json 2>$T/dlink.rerr
expect_eq "sites: debug link found: the site's line, the reader silent" \
	"$(site_get $T/dlink.json sites_at_peak_heap "^helper \(.*sites_paths\.c:$(line_of $SRC/sites_paths.c SITE:paths_helper)\)\$" bytes)/$(cat $T/dlink.rerr)" "5000000/"
objcopy --only-keep-debug $S/sites_c $T/dlink/prog.debug
$REPORT --json $T/dlink.zst >/dev/null 2>$T/dlink2.rerr
expect_eq "sites: debug link naming another build's file: said so" "$(cat $T/dlink2.rerr)" \
	"cuzktrace-report: warning: '$T/dlink/prog' has no debug information (its debug link names 'prog.debug', and '$T/dlink/prog.debug' is another build's: its checksum is not the one the link records): its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (build with -g, or Cargo's debug = \"line-tables-only\")"
# the right build's file, with no debug information in it either (the program was stripped of
# it before the link was made)
cp $S/sites_paths $T/dlink/p2 && objcopy --strip-debug $T/dlink/p2 && objcopy --only-keep-debug $T/dlink/p2 $T/dlink/p2.debug &&
	objcopy --add-gnu-debuglink=$T/dlink/p2.debug $T/dlink/p2
CUZKTRACE_OUT=$T/dlinkp2.zst traced dlinkp2 $T/dlink/p2
$REPORT --json $T/dlinkp2.zst >/dev/null 2>$T/dlink4.rerr
expect_eq "sites: debug link naming the right build's file, which holds no debug information: said so" "$(cat $T/dlink4.rerr)" \
	"cuzktrace-report: warning: '$T/dlink/p2' has no debug information (its debug link names 'p2.debug', and '$T/dlink/p2.debug' holds none either): its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (build with -g, or Cargo's debug = \"line-tables-only\")"
# a program stripped of everything whose debug link names a copy with its symbol table and no
# debug information: its frames are named by that table, and the line says so (before 0.2.58
# "no debug information and no symbol table ... module+offset", the program alone looked at)
cp $S/sites_paths $T/dlink/p3 && objcopy --strip-debug $T/dlink/p3 $T/dlink/p3.debug && objcopy --strip-all $T/dlink/p3 &&
	objcopy --add-gnu-debuglink=$T/dlink/p3.debug $T/dlink/p3
CUZKTRACE_OUT=$T/dlinkp3.zst traced dlinkp3 $T/dlink/p3
$REPORT --json $T/dlinkp3.zst >$T/dlinkp3.json 2>$T/dlink5.rerr
expect_eq "sites: debug link naming a file with a symbol table and no debug information: frames named, said so" \
	"$(cat $T/dlink5.rerr)/$(site_get $T/dlinkp3.json sites_at_peak_heap '^helper \(p3\+0x[0-9a-f]+\)$' bytes)" \
	"cuzktrace-report: warning: '$T/dlink/p3' has no debug information (its debug link names 'p3.debug', and '$T/dlink/p3.debug' holds none either): its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (build with -g, or Cargo's debug = \"line-tables-only\")/5000000"
# debug information compressed with zstd (ld --compress-debug-sections=zstd), which libdw before
# 0.189 cannot read: the line says so (before 0.2.58 "no debug information (built without it, or
# stripped of it)"); a libdw that reads it names the lines, silent
if gcc -O1 -g -Wl,--compress-debug-sections=zstd -o $T/dlink/pz tests/sites/sites_paths.c 2>/dev/null &&
	readelf -t $T/dlink/pz 2>/dev/null | grep -A4 '\.debug_info' | grep -q ZSTD; then
	CUZKTRACE_OUT=$T/dlinkpz.zst traced dlinkpz $T/dlink/pz
	$REPORT --json $T/dlinkpz.zst >$T/dlinkpz.json 2>$T/dlink6.rerr
	pz_helper=$(site_get $T/dlinkpz.json sites_at_peak_heap '^helper ' frames.0 | sed 's/ (.*sites_paths\.c:[0-9]*)$/ (file:line)/; s/ (pz+0x[0-9a-f]*)$/ (pz+offset)/')
	if [ -s $T/dlink6.rerr ]; then
		expect_eq "sites: debug information compressed with zstd, libdw $(sed -n 's/.*which libdw \([0-9.]*\) cannot.*/\1/p' $T/dlink6.rerr): said so, frames by the symbol table" \
			"$(sed 's/libdw [0-9.]* cannot/libdw V cannot/' $T/dlink6.rerr)/$pz_helper" \
			"cuzktrace-report: warning: '$T/dlink/pz' has its debug information compressed with zstd, which libdw V cannot read: its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (decompress it with objcopy --decompress-debug-sections, or link without --compress-debug-sections=zstd)/helper (pz+offset)"
	else
		expect_eq "sites: debug information compressed with zstd, read by this libdw: lines named" "$pz_helper" "helper (file:line)"
	fi
else
	echo "  skip sites: debug information compressed with zstd: the linker cannot make it"
fi
rm $T/dlink/prog.debug
$REPORT --json $T/dlink.zst >/dev/null 2>$T/dlink3.rerr
expect_eq "sites: debug link naming a file that is nowhere: said where it was looked for" "$(cat $T/dlink3.rerr)" \
	"cuzktrace-report: warning: '$T/dlink/prog' has no debug information (its debug link names 'prog.debug', found neither beside it, in .debug/ there nor under /usr/lib/debug): its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (build with -g, or Cargo's debug = \"line-tables-only\")"

# a stack cut at CUZKTRACE_DEPTH gets one outermost frame that says so (a flame graph's cut
# stacks then share a root); a whole stack does not
for d in 16 256; do
	CUZKTRACE_DEPTH=$d CUZKTRACE_OUT=$T/deep$d.zst traced deep$d $P/deeprec
	$REPORT --folded $T/deep$d.folded $T/deep$d.zst >/dev/null 2>&1
done
expect_eq "sites: a stack cut at CUZKTRACE_DEPTH=16 says so at its root" \
	"$(grep ' 1000000$' $T/deep16.folded | cut -d';' -f1)/$(grep ' 1000000$' $T/deep16.folded | tr ';' '\n' | grep -c '^rec ')" \
	"(stack cut at 16 frames: CUZKTRACE_DEPTH)/16"
expect_eq "sites: a whole stack (depth 256) starts at _start" \
	"$(grep ' 1000000$' $T/deep256.folded | cut -d';' -f1 | sed 's/ (.*//')/$(grep ' 1000000$' $T/deep256.folded | tr ';' '\n' | grep -c '^rec ')" "_start/101"

# the tracer's memory for stack frames full (tests/progs/stackfill.c: 16,384 distinct stacks of
# 256 frames, 2 KiB each, under `ulimit -v` of 512 MiB, where 16 MiB is reserved for them):
# the tracer's one line, and (format version 8, since 0.2.34) the trace says when, so the
# reader says it on stderr and in JSON; the allocations after it are the site
# '(no call stack)' (more than the half that did not fit), every one counted
(ulimit -v 524288; CUZKTRACE_SAMPLE=0 CUZKTRACE_DEPTH=256 CUZKTRACE_OUT=$T/sfill.zst traced sfill $P/stackfill)
$REPORT --json $T/sfill.zst >$T/sfill.json 2>$T/sfill.rerr
expect_eq "sites: the call-stack table full: one tracer line, the trace says when (JSON, stderr), the rest '(no call stack)'" \
	"$(cat $T/sfill.rc)/$(cat $T/sfill.out)/$(grep -c 'cuzktrace: warning: the call-stack table is full; new stacks are not recorded' $T/sfill.err)/$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
l = d["tracer_limits"]
s = {x["site"]: x["count"] for x in d["sites_by_allocations"]}
none = s.get("(no call stack)", 0)
leaf = sum(c for k, c in s.items() if k.startswith("step ("))
print(len(l) == 1 and l[0]["table"] == "call_stacks" and 0 < l[0]["t_s"] <= d["duration_s"],
      none + leaf == d["event_counts"]["alloc"] == 16385, none > 8192)' $T/sfill.json)/$(sed -E 's/ at [0-9]+\.[0-9]{3} s:/ at T s:/' $T/sfill.rerr)" \
	"0/stackfill: 16384/1/True True True/cuzktrace-report: warning: '$T/sfill.zst': the tracer's call-stack table filled at T s: allocations from call stacks new since then may have none (the site '(no call stack)')"
# one LIMIT record, not one per refused stack (the independent decoder counts them)
if command -v zstd >/dev/null; then
	expect_eq "sites: the call-stack table full: one LIMIT record in the trace" \
		"$($PY tests/oracle/oracle.py --flat $T/sfill.zst 2>&1 | sed -n 's/^limit_records //p')" "1"
fi

# the tracer's table of stack hashes (tests/progs/manystacks.c): since 0.2.39 the first 32,768
# distinct stacks take a table of 1 MiB of their own. 8,192 stacks in exact mode: the
# program's peak RSS 1.4 MiB untraced, 8.0 MiB traced; before, 27.4 MiB, of which 20 MiB the
# pages of the 32 MiB table their slots fell on
ms_base=$($P/manystacks 13 | sed -n 's/^hwm //p')
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/mst.zst traced mst $P/manystacks 13
ms_hwm=$(sed -n 's/^hwm //p' $T/mst.out)
expect_eq "sites: 8,192 distinct stacks: the tracer's memory under 12 MiB over untraced ($ms_hwm - $ms_base kB)" \
	"$(cat $T/mst.rc)/$(( ms_hwm - ms_base < 12 * 1024 ))" "0/1"
# 4 threads racing through the same 65,536 stacks (the main thread's have frames of their own:
# 131,072 and the program's few others), past the small table's end into the big one: each
# distinct stack is one STACK record, and every allocation has its stack
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/msr.zst traced msr $P/manystacks 16 4
$REPORT --json --top 1000000 $T/msr.zst >$T/msr.json 2>/dev/null
expect_eq "sites: 4 threads past the small stack table: every allocation has a stack" \
	"$(cat $T/msr.rc)/$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = {x["site"]: x["count"] for x in d["sites_by_allocations"]}
print(s.get("(no call stack)", 0), sum(c for k, c in s.items() if k.startswith("go ")))' $T/msr.json)" "0/0 262144"
if command -v zstd >/dev/null; then
	expect_eq "sites: 4 threads past the small stack table: one STACK record per distinct stack" \
		"$($PY -c '
import sys
sys.path.insert(0, "tests/oracle")
import oracle
tr = oracle.load(sys.argv[1])
n = len(tr.stacks)
print(n == len(set(tr.stacks.values())), 131072 <= n < 131072 + 64)' $T/msr.zst 2>&1)" "True True"
fi

# --folded-heap of 8,192 live stacks of 13 frames named in 240 characters (tests/progs/foldedlong.c:
# 34 MB of folded lines): since 0.2.46 the lines are sorted unformatted, each frame's text made
# once; before, every line was formatted and held until the sort, the whole file in the reader's
# memory (65 MB peak RSS against 32 MB for the report alone)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/flong.zst traced flong $P/foldedlong 13
fl_rss=$($PY -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' $REPORT --folded-heap $T/flong.folded $T/flong.zst)
fl_base=$($PY -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' $REPORT --json $T/flong.zst)
$REPORT --json $T/flong.zst >$T/flong.json 2>/dev/null
expect_eq "sites: --folded-heap of 8,192 long stacks: one line each, 16 bytes, summing to the peak heap; the reader under 8 MiB over the report alone ($fl_rss against $fl_base kB)" \
	"$(cat $T/flong.rc)/$($PY -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
deep = [l for l in lines if l.count(";walk_") == 13 and l.endswith(" 16")]
print(len(lines), len(deep), len(set(deep)), sum(int(l.rsplit(" ", 1)[1]) for l in lines) == d["peak_heap"]["bytes"])' $T/flong.json $T/flong.folded)/$(( fl_rss - fl_base < 8192 ))" \
	"0/8193 8192 8192 True/1"

# the module map past its 256 KiB (tests/progs/modfill.c: 80 libraries under a path of 3,600
# bytes): the tracer's one line, and the trace says when (format version 8, since 0.2.34)
mf_d=$T/mfill
for i in $(seq 15); do mf_d=$mf_d/$(printf 'm%.0s' $(seq 240)); done
mkdir -p "$mf_d" && for i in $(seq 0 79); do cp $P/libplainlib.so "$mf_d/libm$i.so"; done
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/mfill.zst traced mfill $P/modfill "$mf_d" 80
$REPORT --json $T/mfill.zst >$T/mfill.json 2>$T/mfill.rerr
expect_eq "sites: a module map past 256 KiB: one tracer line, the trace says when (JSON, stderr)" \
	"$(cat $T/mfill.rc)/$(cat $T/mfill.out)/$(grep -c 'cuzktrace: warning: the module map exceeds 256 KiB; frames of the modules left out show as addresses' $T/mfill.err)/$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
l = d["tracer_limits"]
print(len(l) == 1 and l[0]["table"] == "module_map" and 0 < l[0]["t_s"] <= d["duration_s"])' $T/mfill.json)/$(sed -E 's/ at [0-9]+\.[0-9]{3} s:/ at T s:/' $T/mfill.rerr)" \
	"0/modfill: 80/1/True/cuzktrace-report: warning: '$T/mfill.zst': the tracer's module map outgrew 256 KiB (or the memory for it ran out) at T s: frames in the modules left out of a map show as addresses"
rm -rf "$T/mfill"
# --diff's JSON carries each side's (since 0.2.34)
$REPORT --json --diff $T/sfill.zst $T/mfill.zst >$T/lmdiff.json 2>/dev/null
expect_eq "sites: --diff JSON: each run's tables that filled" \
	"$($PY -c 'import json,sys; l = json.load(open(sys.argv[1]))["tracer_limits"]; print([x["table"] for x in l["base"]], [x["table"] for x in l["trace"]])' $T/lmdiff.json 2>&1)" \
	"['call_stacks'] ['module_map']"
# and a trace where no table filled says so: an empty list (null only before format 8)
$REPORT --json $T/deep256.zst >$T/deep256.json 2>/dev/null
expect_eq "sites: no table filled: tracer_limits is empty" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["tracer_limits"])' $T/deep256.json 2>&1)" "[]"

# a library dlclosed and another loaded at the same addresses: each stack is symbolized with
# the libraries loaded when it was captured
CUZKTRACE_OUT=$T/sdl.zst traced sdl $S/sites_dl
$REPORT --json $T/sdl.zst >$T/sdl.json 2>/dev/null
expect_eq "sites: dlclose, then another library at the same addresses: each block keeps its own function" \
	"$(site_get $T/sdl.json sites_at_peak_heap "^a_alloc \(.*sites_dla\.c:$(line_of $SRC/sites_dla.c SITE:dla)\)\$" bytes)/$(site_get $T/sdl.json sites_at_peak_heap "^b_alloc \(.*sites_dlb\.c:$(line_of $SRC/sites_dlb.c SITE:dlb)\)\$" bytes)" \
	"1200000/900000"

# ---- Rust (rustc -O -g): vec! and Vec::push growth through alloc:: plumbing ----
if [ -x $S/sites_rs ]; then
	R_V=$(line_of $SRC/sites_rs.rs SITE:rs_vec)
	R_P=$(line_of $SRC/sites_rs.rs SITE:rs_push)
	CUZKTRACE_OUT=$T/sr.zst traced sr $S/sites_rs
	$REPORT --json $T/sr.zst >$T/sr.json 2>$T/sr.rerr
	expect_eq "sites: Rust reader silent" "$(cat $T/sr.rerr)" ""
	expect_eq "sites: Rust vec! owned by its function and line" \
		"$(site_get $T/sr.json sites_at_peak "^sites_rs::make_buffer \(.*sites_rs\.rs:$R_V\)\$" bytes)" 3000000
	expect_eq "sites: Rust Vec::push growth (realloc) owned by the push line" \
		"$(site_get $T/sr.json sites_at_peak "^sites_rs::grow_list \(.*sites_rs\.rs:$R_P\)\$" bytes)" 1048576
	expect_match "sites: Rust RawVec frames stay in the stack" \
		"$(site_get $T/sr.json sites_at_peak "^sites_rs::grow_list " frames)" "alloc::raw_vec::"
	# a name outside ASCII, which legacy mangling escapes: decoded (since 0.2.22 it read
	# sites_rs::gr$uf6$$udf$e_puffer, and a rule by its name matched nothing)
	R_U=$(line_of $SRC/sites_rs.rs SITE:rs_utf8)
	expect_eq "sites: Rust legacy name outside ASCII decoded, and a phase rule by it" \
		"$($REPORT --json --top 50 $T/sr.zst >$T/sr50.json 2>/dev/null; site_get $T/sr50.json sites_at_peak "^sites_rs::größe_puffer \(.*sites_rs\.rs:$R_U\)\$" bytes)/$($REPORT --json --phase-rule 'u=sites_rs::größe_puffer' $T/sr.zst 2>/dev/null | $PY -c 'import json,sys; print([p["bytes"] for p in json.load(sys.stdin)["peak_heap"]["by_phase"] if p["phase"] == "u"])')" \
		"40000/[40000]"
	R_S=$(line_of $SRC/sites_rs.rs SITE:rs_repeat)
	R_T=$(line_of $SRC/sites_rs.rs SITE:rs_to_vec)
	R_M=$(line_of $SRC/sites_rs.rs SITE:rs_map)
	R_F=$(line_of $SRC/sites_rs.rs SITE:rs_trait)
	R_C=$(line_of $SRC/sites_rs.rs SITE:rs_closure)
	R_K=$(line_of $SRC/sites_rs.rs SITE:rs_composed)
	# the same program with debuginfo=line-tables-only and v0 names: std's code for
	# primitive types is "<str>::repeat"; both builds must agree, crate paths included (the
	# debug info names a function by its last name only, the symbol table in full: frames
	# read "make_buffer" before 0.2.10, and a main of the crate merged with C's main)
	CUZKTRACE_OUT=$T/srlt.zst traced srlt $S/sites_rs_lt
	$REPORT --json $T/srlt.zst >$T/srlt.json 2>/dev/null
	for j in sr srlt; do
		for want in "make_buffer:$R_V:3000000" "grow_list:$R_P:1048576" "repeat_str:$R_S:1000000" \
			"copy_slice:$R_T:500000"; do
			IFS=: read -r fn ln by <<<"$want"
			expect_eq "sites: Rust ($j) $fn owned by its line, not std's code" \
				"$(site_get $T/$j.json sites_at_peak "^sites_rs::$fn \(.*sites_rs\.rs:$ln\)\$" bytes)" "$by"
		done
		expect_eq "sites: Rust ($j) the program's trait implemented for Vec owns its pushes (it was taken for Vec's code)" \
			"$(site_get $T/$j.json sites_at_peak "^<alloc::vec::Vec<u32> as sites_rs::Fill>::fill_to \(.*sites_rs\.rs:$R_F\)\$" bytes)" 262144
		expect_match "sites: Rust ($j) a HashMap's table is owned by the with_capacity line, not hashbrown" \
			"$(site_get $T/$j.json sites_at_peak "^sites_rs::make_map \(.*sites_rs\.rs:$R_M\)\$" bytes)" "^[0-9]{7}\$"
		# an inlined closure is named by its function's path in both builds: -g's
		# {closure#0} from its DWARF (since 0.2.38: the legacy symbol's {{closure}}), and
		# line-tables-only's {closure#0} with the path its callers' generic arguments give
		# (since 0.2.20: "{closure#0}" alone)
		expect_eq "sites: Rust ($j) a closure inlined into iterator code: named by its function" \
			"$(site_get $T/$j.json sites_at_peak "^sites_rs::make_rows::\{closure#0\} \(.*sites_rs\.rs:$R_C\)\$" bytes)" 200000
		# a generic function's closure: each instance named, with the path its callers'
		# closure_env types give under line-tables-only (since 0.2.21: "{closure#0}<u32>"
		# alone), with DWARF's name under -g (since 0.2.38: the legacy symbol's {{closure}},
		# which has no arguments, one site for both)
		R_G=$(line_of $SRC/sites_rs.rs SITE:rs_generic_closure)
		# (the top 50: two_threads's sites put these out of the first 10)
		$REPORT --json --top 50 $T/$j.zst >$T/$j.50.json 2>/dev/null
		expect_eq "sites: Rust ($j) a generic function's closure: named by its path, one site per instance" \
			"$(site_get $T/$j.50.json sites_at_peak "^sites_rs::rows_of::\{closure#0\}<u32> \(.*sites_rs\.rs:$R_G\)\$" bytes)/$(site_get $T/$j.50.json sites_at_peak "^sites_rs::rows_of::\{closure#0\}<u16> \(.*sites_rs\.rs:$R_G\)\$" bytes)" "120000/60000"
		# a phase rule by that name takes the u32 instance's bytes (it matched no frame)
		expect_eq "sites: Rust ($j) a phase rule naming the generic closure's instance by its path" \
			"$($REPORT --json --phase-rule 'rows=sites_rs::rows_of::{closure#0}<u32>' $T/$j.zst 2>/dev/null | $PY -c 'import json,sys; print([r["bytes"] for r in json.load(sys.stdin)["peak_heap"]["by_phase"] if r["phase"] == "rows"])')" "[120000]"
		# two closures of two functions in one iterator chain, each #0 of its own: not
		# named after maker (a guess did: maker allocates nothing); -g names it by its path
		# (line-tables-only, whose callers' arguments name two paths, by its name alone)
		re_k='\{closure#0\}'; [ $j = sr ] && re_k='sites_rs::composed::\{closure#0\}'
		expect_eq "sites: Rust ($j) a closure composed with another function's: its line's bytes, not maker's" \
			"$(site_get $T/$j.50.json sites_at_peak "^sites_rs::maker" bytes)/$(site_get $T/$j.50.json sites_at_peak "^$re_k \(.*sites_rs\.rs:$R_K\)\$" bytes)" "none/50000"
		# two thread closures of one function, out of line: each its own name in both
		# builds (since 0.2.38 under -g, whose legacy symbols name both
		# sites_rs::two_threads::{{closure}}: one name, told apart by file:line alone), and
		# a phase rule by one name takes that closure's bytes alone
		expect_eq "sites: Rust ($j) two closures of one function: {closure#0} and {closure#1}, a phase rule by one" \
			"$(site_get $T/$j.50.json sites_at_peak "^sites_rs::two_threads::\{closure#0\} \(.*sites_rs\.rs:$(line_of $SRC/sites_rs.rs SITE:rs_thread0)\)\$" bytes)/$(site_get $T/$j.50.json sites_at_peak "^sites_rs::two_threads::\{closure#1\} \(.*sites_rs\.rs:$(line_of $SRC/sites_rs.rs SITE:rs_thread1)\)\$" bytes)/$($REPORT --json --phase-rule 't=sites_rs::two_threads::{closure#1}' $T/$j.zst 2>/dev/null | $PY -c 'import json,sys; print([r["bytes"] for r in json.load(sys.stdin)["peak_heap"]["by_phase"] if r["phase"] == "t"])')" \
			"700000/900000/[900000]"
	done
	# ... so --diff of the -g build against the line-tables-only one joins each closure
	# (before 0.2.38 it read -1,600,000 sites_rs::two_threads::{{closure}}, +700,000 {closure#0} and
	# +900,000 {closure#1}; rows_of's and make_rows's alike)
	expect_eq "sites: Rust --diff of -g against line-tables-only: the closures of each function matched by name" \
		"$($REPORT --json --diff $T/sr.zst $T/srlt.zst 2>/dev/null | $PY -c 'import json,sys; print(sorted((r["function"], r["change"]) for r in json.load(sys.stdin)["by_function"]["peak_heap"] if r["function"].startswith(("sites_rs::two_threads::", "sites_rs::rows_of::", "sites_rs::make_rows::"))))')" \
		"[('sites_rs::make_rows::{closure#0}', 0), ('sites_rs::rows_of::{closure#0}<u16>', 0), ('sites_rs::rows_of::{closure#0}<u32>', 0), ('sites_rs::two_threads::{closure#0}', 0), ('sites_rs::two_threads::{closure#1}', 0)]"
	# split debug info (-C split-debuginfo=unpacked): the program's units are skeletons with
	# the line table alone, the functions are in the .dwo files they name. Since 0.2.42 the
	# frames are read from those: before, every frame was its symbol's function at its inlined
	# code's line, so the allocator's lines made the site the caller (make_buffer's 3,000,000
	# bytes read "sites_rs::main (sites_rs.rs:<the call>)"), and nothing said why
	if [ -x $S/split/sites_rs_split ]; then
		CUZKTRACE_OUT=$T/srsp.zst traced srsp $S/split/sites_rs_split
		$REPORT --json --top 50 $T/srsp.zst >$T/srsp.json 2>$T/srsp.rerr
		expect_eq "sites: Rust split debug info (.dwo): functions, inlined closures and lines as -g's, reader silent" \
			"$(site_get $T/srsp.json sites_at_peak "^sites_rs::make_buffer \(.*sites_rs\.rs:$R_V\)\$" bytes)/$(site_get $T/srsp.json sites_at_peak "^sites_rs::grow_list \(.*sites_rs\.rs:$R_P\)\$" bytes)/$(site_get $T/srsp.json sites_at_peak "^sites_rs::make_rows::\{closure#0\} \(.*sites_rs\.rs:$R_C\)\$" bytes)/$(site_get $T/srsp.json sites_at_peak "^sites_rs::two_threads::\{closure#1\} \(.*sites_rs\.rs:$(line_of $SRC/sites_rs.rs SITE:rs_thread1)\)\$" bytes)/$(cat $T/srsp.rerr)" \
			"3000000/1048576/200000/900000/"
		# the .dwo files gone (removed, or the program's build directory not kept): one line
		# names the file looked for and what the frames lack (it was silent)
		CUZKTRACE_OUT=$T/srsg.zst traced srsg $S/splitgone/sites_rs_splitgone
		$REPORT --json $T/srsg.zst >$T/srsg.json 2>$T/srsg.rerr
		expect_match "sites: Rust split debug info whose .dwo files are gone: one line says so, exit 0" \
			"$?/$(wc -l <$T/srsg.rerr)/$(cat $T/srsg.rerr)" \
			"^0/1/cuzktrace-report: warning: the debug information of '$S/splitgone/sites_rs_splitgone' is split out \(split DWARF\), and '/.*/splitgone/sites_rs_splitgone\.sites_rs\.[0-9a-f]+-cgu\.[0-9]+\.rcgu\.dwo' was not found: its frames are shown without inlined functions, by their symbols' names, and a site may be library code inlined into its functions\$"
	else
		echo "  skip sites: Rust split debug info: build/sites/split/sites_rs_split not built"
	fi
	# the program without debug information (since 0.2.42: silent, its sites module+offset or
	# RawVec's code inlined into the program's functions): one line says what is missing
	if [ -x $S/sites_rs_strip ]; then
		CUZKTRACE_OUT=$T/srst.zst traced srst $S/sites_rs_strip
		$REPORT --json $T/srst.zst >/dev/null 2>$T/srst.rerr
		expect_eq "sites: Rust program stripped (strip=symbols): one line says it has no symbols nor debug information, exit 0" \
			"$?/$(cat $T/srst.rerr)" \
			"0/cuzktrace-report: warning: '$S/sites_rs_strip' has no debug information and no symbol table (stripped): its frames are shown as module+offset (build with -g, or Cargo's debug = \"line-tables-only\", and do not strip the traced build)"
		CUZKTRACE_OUT=$T/srnd.zst traced srnd $S/sites_rs_nodebug
		$REPORT --json $T/srnd.zst >/dev/null 2>$T/srnd.rerr
		expect_eq "sites: Rust program stripped of its debug information: one line says so, exit 0" \
			"$?/$(cat $T/srnd.rerr)" \
			"0/cuzktrace-report: warning: '$S/sites_rs_nodebug' has no debug information (built without it, or stripped of it): its frames are shown without file:line and without inlined functions, and a site may be library code inlined into its functions (build with -g, or Cargo's debug = \"line-tables-only\")"
	fi
	# a panic unwinding through a function's blocks: its payload and the exception object
	# panic_unwind allocates are the panic line's (since 0.2.42 the exception's 56 bytes were
	# "panic_unwind::imp::panic (library/panic_unwind/src/gcc.rs:62)", as if a site of the
	# program's), in both debug info levels; the peak heap is while they are live
	cat >$T/rspanic.rs <<'RSEOF'
#[inline(never)]
fn stage(n: usize) -> Vec<u8> {
    let big = vec![1u8; n]; // SITE:big
    if std::hint::black_box(n) > 0 {
        panic!("stage failed"); // SITE:panic
    }
    big
}
fn main() {
    let keep = std::hint::black_box(vec![0u8; 1_000_000]);
    let _ = stage(2_000_000);
    drop(keep);
}
RSEOF
	for dbg in 1 line-tables-only; do
		RUST_BACKTRACE=0 rust_traced rspanic -C debuginfo=$dbg
		expect_eq "sites: Rust panic (debuginfo=$dbg): the payload and the exception object are the panic line's" \
			"$(cat $T/rspanic.rc)/$(site_get $T/rspanic.json sites_at_peak_heap "^rspanic::stage \(.*rspanic\.rs:$(line_of $T/rspanic.rs SITE:panic)\)\$" bytes)/$(site_get $T/rspanic.json sites_at_peak_heap "^rspanic::stage \(.*rspanic\.rs:$(line_of $T/rspanic.rs SITE:big)\)\$" bytes)/$(site_get $T/rspanic.json sites_at_peak_heap "panic_unwind" bytes)" \
			"101/72/2000000/none"
	done
	# a #[global_allocator] wrapping System, a generic and a const generic function: each
	# build names the same sites (before 0.2.16 line-tables-only made the wrapper's inlined
	# "alloc" every block's site, and named generic functions "build_aux<u64>", no crate path)
	A_P=$(line_of $SRC/sites_rsalloc.rs SITE:ra_params)
	A_G=$(line_of $SRC/sites_rsalloc.rs SITE:ra_generic)
	A_C=$(line_of $SRC/sites_rsalloc.rs SITE:ra_const)
	A_R=$(line_of $SRC/sites_rsalloc.rs SITE:ra_record)
	for j in sites_rsalloc sites_rsalloc_lt sites_rsalloc_ltv0; do
		CUZKTRACE_OUT=$T/$j.zst traced $j $S/$j
		$REPORT --json --top 30 $T/$j.zst >$T/$j.json 2>/dev/null
		gen=; [ $j = sites_rsalloc_ltv0 ] && gen=::
		expect_eq "sites: Rust ($j) with its own global allocator: each function owns its blocks, by its whole name" \
			"$(site_get $T/$j.json sites_at_peak_heap "^sites_rsalloc::prover::load_params \(.*sites_rsalloc\.rs:$A_P\)\$" bytes)/$(site_get $T/$j.json sites_at_peak_heap "^sites_rsalloc::prover::build_aux${gen:+::<u64>} \(.*sites_rsalloc\.rs:$A_G\)\$" bytes)/$(site_get $T/$j.json sites_at_peak_heap "^sites_rsalloc::prover::make${gen:+::<40000>} \(.*sites_rsalloc\.rs:$A_C\)\$" bytes)" \
			"3000000/800000/40000"
		expect_eq "sites: Rust ($j) a method of the program named free: what it inlines stays the program's" \
			"$(site_get $T/$j.json sites_at_peak_heap "^(sites_rsalloc::Slab::)?record \(.*sites_rsalloc\.rs:$A_R\)\$" bytes)" 500000
		# a generic function given a closure, and one given a dyn Fn type: v0 and DWARF
		# write their arguments differently ({closure#0} and {closure_env#0}, "Output =
		# usize" and "Output=usize"); line-tables-only with v0 kept DWARF's short name
		# (with_fill<sites_rsalloc::main::{closure_env#0}>) before 0.2.25, and phase rules by
		# the path matched nothing
		fill=; dyn=
		[ $j = sites_rsalloc_ltv0 ] && fill='::<sites_rsalloc::main::{closure#0}>' dyn='::<dyn core::ops::function::Fn<(usize,), Output = usize>>'
		re_f=$(printf '%s' "sites_rsalloc::prover::with_fill$fill" | sed 's/[][{}()*.^$|+?\\]/\\&/g')
		re_d=$(printf '%s' "sites_rsalloc::prover::with_dyn$dyn" | sed 's/[][{}()*.^$|+?\\]/\\&/g')
		expect_eq "sites: Rust ($j) generics given a closure and a dyn Fn: named by their whole path (v0: with their arguments)" \
			"$(site_get $T/$j.json sites_at_peak_heap "^$re_f \(.*sites_rsalloc\.rs:$(line_of $SRC/sites_rsalloc.rs SITE:ra_closure_arg)\)\$" bytes)/$(site_get $T/$j.json sites_at_peak_heap "^$re_d \(.*sites_rsalloc\.rs:$(line_of $SRC/sites_rsalloc.rs SITE:ra_dyn_arg)\)\$" bytes)" \
			"60000/70000"
		expect_eq "sites: Rust ($j) phase rules by those generics' paths take their bytes" \
			"$($REPORT --json --phase-rule 'f=sites_rsalloc::prover::with_fill' --phase-rule 'd=*::with_dyn' $T/$j.zst 2>&1 | $PY -c 'import json,sys; print(" ".join("%s=%d" % (r["phase"], r["bytes"]) for r in json.load(sys.stdin)["peak_heap"]["by_phase"] if r["phase"] in ("f", "d")))')" \
			"d=70000 f=60000"
		$REPORT --phase-rule 'aux=*::build_aux*' --phase-rule 'params=sites_rsalloc::prover::load_params' --json $T/$j.zst >$T/$j.pr.json 2>$T/$j.pr.err
		expect_eq "sites: Rust ($j) phase rules by crate path match" \
			"$(cat $T/$j.pr.err)/$($PY -c 'import json, sys; print(" ".join("%s=%d" % (r["phase"], r["bytes"]) for r in json.load(open(sys.argv[1]))["peak_heap"]["by_phase"][:2]))' $T/$j.pr.json)" \
			"/params=3000000 aux=800000"
	done
	# a function inlined in one build and not in the other (line-tables-only both): its
	# inlined copy has its last name alone, the other its path. --diff joins the two (it
	# read -977 KiB build_aux, +1.91 MiB sites_rsinl::prover::build_aux), and a phase rule
	# by path takes the inlined one (since 0.2.20)
	CUZKTRACE_OUT=$T/rsinl.zst traced rsinl $S/sites_rsinl
	CUZKTRACE_OUT=$T/rsinl2.zst traced rsinl2 $S/sites_rsinl_v2
	$REPORT --json --diff $T/rsinl.zst $T/rsinl2.zst >$T/rsinl.diff.json 2>/dev/null
	expect_eq "sites: Rust line-tables-only, a function inlined in one build only: --diff names it once, +1,000,000" \
		"$($PY -c 'import json,sys; print([(r["function"], r["change"]) for r in json.load(open(sys.argv[1]))["by_function"]["peak_heap"] if "build_aux" in r["function"]])' $T/rsinl.diff.json)" \
		"[('sites_rsinl::prover::build_aux', 1000000)]"
	for rule in 'aux=*::build_aux' 'aux=sites_rsinl::prover::build_aux'; do
		expect_eq "sites: Rust line-tables-only, --phase-rule '$rule' takes the inlined copy (named build_aux alone)" \
			"$($REPORT --json --phase-rule "$rule" $T/rsinl.zst 2>/dev/null | $PY -c 'import json,sys; print([r["bytes"] for r in json.load(sys.stdin)["peak_heap"]["by_phase"] if r["phase"] == "aux"])')" "[1000000]"
	done
	# ... and a generic one, whose inlined copy is named with its arguments (build_gen<u64>):
	# --diff joined it to neither the legacy symbol's path (no arguments) nor v0's
	# (...::build_gen::<u64>), and a phase rule by path took nothing (since 0.2.26)
	CUZKTRACE_OUT=$T/rsinl2v0.zst traced rsinl2v0 $S/sites_rsinl_v2v0
	for v2 in rsinl2 rsinl2v0; do
		$REPORT --json --diff $T/rsinl.zst $T/$v2.zst >$T/$v2.diff.json 2>$T/$v2.diff.err
	done
	# (two copies, <u64> and <u32>: a legacy symbol's one path takes both, +1,200,000; a build
	# that joined one alone read the other as gone and overstated the path's change)
	expect_eq "sites: Rust line-tables-only, a generic function inlined in one build only: --diff names each copy once, against legacy (one path for both) and v0 symbols" \
		"$(for v2 in rsinl2 rsinl2v0; do $PY -c 'import json,sys; print(sorted((r["function"], r["change"]) for r in json.load(open(sys.argv[1]))["by_function"]["peak_heap"] if "build_" in r["function"]))' $T/$v2.diff.json; done)" \
		"[('sites_rsinl::prover::build_aux', 1000000), ('sites_rsinl::prover::build_gen', 1200000)]
[('sites_rsinl::prover::build_aux', 1000000), ('sites_rsinl::prover::build_gen::<u32>', 400000), ('sites_rsinl::prover::build_gen::<u64>', 800000)]"
	# ... and says when one build's symbols are v0 and the other's legacy (since 0.2.27: the
	# generic functions and closures of a program that changed nothing read as changed)
	expect_eq "sites: Rust --diff of a legacy build against a v0 one warns, of two legacy builds not" \
		"$(cat $T/rsinl2.diff.err)/$(cat $T/rsinl2v0.diff.err)" \
		"/cuzktrace-report: warning: --diff: '$T/rsinl2v0.zst' names Rust functions by v0 symbols and '$T/rsinl.zst' by legacy ones (-C symbol-mangling-version): a generic function or a closure is named apart in each ('f::<u64>' against 'f'), and reads as gone in one and new in the other; build both with the same mangling"
	for rule in 'gen=*::build_gen' 'gen=sites_rsinl::prover::build_gen'; do
		expect_eq "sites: Rust line-tables-only, --phase-rule '$rule' takes the inlined generic copy (named build_gen<u64>)" \
			"$($REPORT --json --phase-rule "$rule" $T/rsinl.zst 2>/dev/null | $PY -c 'import json,sys; print([r["bytes"] for r in json.load(sys.stdin)["peak_heap"]["by_phase"] if r["phase"] == "gen"])')" "[1200000]"
	done
	# closures and async bodies of line-tables-only, legacy and v0 symbol names (since
	# 0.2.22): each named by the function that defines it, where they read
	# sites_rsclo::install::{closure#0} (the generic function it was given to), start_thread
	# (a thread's closure, under std's __rust_begin_short_backtrace), {closure#0} alone (out
	# of line, its legacy symbol "{{closure}}"), sites_rsclo::{impl#0}::rows::{closure#0},
	# {async_fn#0} and {async_block#N} alone; -g names them alike from its DWARF (since
	# 0.2.38: each "{{closure}}", as its legacy symbols name every closure and async body,
	# "<sites_rsclo::Pippenger as sites_rsclo::Msm>::run::{{closure}}::{{closure}}", and a
	# generic function's instances one site)
	for j in sites_rsclo_lt sites_rsclo_ltv0 sites_rsclo_g; do
		CUZKTRACE_OUT=$T/$j.zst traced $j $S/$j
		$REPORT --json --top 30 $T/$j.zst >$T/$j.json 2>/dev/null
		for want in "sites_rsclo::prove::{closure#0}:rc_install:1100000" \
			"sites_rsclo::spawn_worker::{closure#0}:rc_thread:1200000" \
			"sites_rsclo::make_fn::{closure#0}:rc_boxed:1300000" \
			"sites_rsclo::load_params::{async_fn#0}:rc_async_fn:1500000" \
			"sites_rsclo::make_block::{async_block#1}:rc_async_block:1600000" \
			"sites_rsclo::boxed_task::{async_block#0}:rc_async_task:1700000"; do
			IFS=: read -r fn tag by <<<"${want//::/@}"
			fn=${fn//@/::}
			re=$(printf '%s' "$fn" | sed 's/[][{}()*.^$|+?\\]/\\&/g')
			expect_eq "sites: Rust ($j) $fn owns its bytes" \
				"$(site_get $T/$j.json sites_at_exit "^$re \(.*sites_rsclo\.rs:$(line_of $SRC/sites_rsclo.rs SITE:$tag)\)\$" bytes)" "$by"
		done
		# where every frame up to a thread's start is plumbing, the runtime's own code owns
		# the bytes (since 0.2.33: the signal stack Rust's std maps for each thread it starts,
		# 16 KiB, had the site start_thread, a frame of the C library that allocates nothing)
		expect_eq "sites: Rust ($j) no site is where a thread starts; std's thread start owns what it maps" \
			"$($REPORT --json --top 1000 $T/$j.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
roots = ("start_thread ", "__clone3 ", "clone3 ", "__clone ", "clone ")
s = d["sites_by_allocations"]
print(sum(e["site"].startswith(roots) and "sites_rsclo.rs" not in e["site"] for e in s),
      any(e["site"].startswith("std::") and e["frames"][-1].startswith(roots) for e in s))')" "0 True"
		# ... and on the main thread, where the C main rustc generates calls std's runtime
		# (since 0.2.35: its signal stack and thread info had the site "main", the
		# program's own name to a reader)
		expect_eq "sites: Rust ($j) the main thread's runtime set-up is std's, not main's" \
			"$($REPORT --json --top 1000 $T/$j.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
s = d["sites_by_allocations"]
rt = lambda e: any(f.startswith("std::rt::lang_start_internal ") for f in e["frames"])
print(sum(e["site"].startswith("main ") and rt(e) for e in s),
      any(e["site"].startswith("std::sys::") and rt(e) for e in s))')" "0 True"
		# a derived Clone inlined into its caller owns the copy: line tables alone name it
		# "clone", which was taken for glibc's thread start (since 0.2.52: std's alloc owned
		# the bytes, every frame shown std's)
		expect_eq "sites: Rust ($j) a derived Clone inlined owns the copy, its caller next" \
			"$($PY -c '
import json, re, sys
for e in json.load(open(sys.argv[1]))["sites_at_exit"]:
    if re.search(sys.argv[2], e["site"]):
        print("%d/%s" % (e["bytes"], e["frames"][e["frames"].index(e["site"]) + 1].split(" (")[0]))' \
				$T/$j.json "^(clone|<sites_rsclo::Params as core::clone::Clone>::clone) \(.*sites_rsclo\.rs:$(line_of $SRC/sites_rsclo.rs SITE:rc_clone)\)\$")" \
			"2100000/sites_rsclo::copy_params"
		ty='sites_rsclo::Aux'; [ $j = sites_rsclo_ltv0 ] && ty='<sites_rsclo::Aux>'
		re=$(printf '%s' "$ty::rows::{closure#0}" | sed 's/[][{}()*.^$|+?\\]/\\&/g')
		expect_eq "sites: Rust ($j) a closure of an inherent method: named by its type ($ty::rows), not {impl#0}" \
			"$(site_get $T/$j.json sites_at_exit "^$re \(.*sites_rsclo\.rs:$(line_of $SRC/sites_rsclo.rs SITE:rc_method)\)\$" bytes)" 1400000
		# ... of a trait's method, and of a generic type's two instances, on scoped threads
		# whose stacks lack the method (since 0.2.27: {impl#1}::run, {impl#2}::par; v0 names
		# the instance, whose closure's arguments then go)
		ty='<sites_rsclo::Pippenger as sites_rsclo::Msm>::run::{closure#0}::{closure#0}:rc_trait:1800000'
		if [ $j = sites_rsclo_ltv0 ]; then
			rc_want=("$ty" '<sites_rsclo::Prover<u16>>::par::{closure#0}::{closure#0}:rc_par:1000000' \
				'<sites_rsclo::Prover<u32>>::par::{closure#0}::{closure#0}:rc_par:2000000')
		else
			rc_want=("$ty" 'sites_rsclo::Prover<T>::par::{closure#0}::{closure#0}<u16>:rc_par:1000000' \
				'sites_rsclo::Prover<T>::par::{closure#0}::{closure#0}<u32>:rc_par:2000000')
		fi
		# the other impl's closure (Quick's run, inlined everywhere: no symbol of its own) is
		# Quick's, from the symbols of the functions given its closure: only Pippenger's
		# symbol was left, and it read as Pippenger's
		expect_eq "sites: Rust ($j) a closure of another impl of the trait, inlined everywhere, is named by its type, not Pippenger's" \
			"$(site_get $T/$j.json sites_at_exit "^<sites_rsclo::Quick as sites_rsclo::Msm>::run::\{closure#0\}::\{closure#0\} \(.*sites_rsclo\.rs:$(line_of $SRC/sites_rsclo.rs SITE:rc_trait_inl)\)\$" bytes)" 1900000
		for want in "${rc_want[@]}"; do
			by=${want##*:}; tag=${want%:*}; fn=${tag%:*}; tag=${tag##*:}
			re=$(printf '%s' "$fn" | sed 's/[][{}()*.^$|+?\\]/\\&/g')
			expect_eq "sites: Rust ($j) $fn owns its bytes" \
				"$(site_get $T/$j.json sites_at_exit "^$re \(.*sites_rsclo\.rs:$(line_of $SRC/sites_rsclo.rs SITE:$tag)\)\$" bytes)" "$by"
		done
		# phase rules: by the closure's path without its instance's arguments (rows_of's
		# {closure#0}<u16> and <u32>: it matched nothing), by the method's path, and one that
		# names no function, which took every block through std's inlined alloc (alloc.rs)
		for want in 'sites_rsclo::rows_of::{closure#0}=1200000' 'sites_rsclo::Aux::rows::*=1400000' \
			'<sites_rsclo::Pippenger as sites_rsclo::Msm>::run::{closure#0}::*=1800000' \
			'sites_rsclo::Prover::par::{closure#0}::*=3000000' \
			'sites_rsclo::load_params::*=1500000' 'sites_rsclo::gpu::alloc=0'; do
			expect_eq "sites: Rust ($j) --phase-rule 'x=${want%=*}' takes ${want##*=} bytes" \
				"$($REPORT --json --phase-rule "x=${want%=*}" $T/$j.zst 2>/dev/null | $PY -c 'import json,sys; print(sum(p["allocated_bytes"] for p in json.load(sys.stdin)["phases"] if p["name"] == "x"))')" "${want##*=}"
		done
	done
	# what std's runtime allocates for a thread before the program's code runs (the copy of
	# its name, the main thread's signal stack and thread info) is std's, also under a
	# release profile's fat LTO (since 0.2.39: the name's copy had the site core's
	# "<<alloc::boxed::Box<str> as ...>::from as core::ops::function::FnOnce<...>>::call_once",
	# and with LTO, which inlines std's set-up into the C main rustc generates and keeps
	# only the innermost of its frames, the main thread's set-up had the site "main")
	CUZKTRACE_OUT=$T/sites_rsclo_lto.zst traced sites_rsclo_lto $S/sites_rsclo_lto
	for j in sites_rsclo_lt sites_rsclo_g sites_rsclo_lto; do
		expect_eq "sites: Rust ($j) std's runtime owns each thread's set-up: no site is main, alloc's or core's; the name's copy and the main thread's set-up are std's" \
			"$($REPORT --json --top 1000 $T/$j.zst 2>/dev/null | $PY -c '
import json, sys
d = json.load(sys.stdin)
s = d["sites_by_allocations"]
print(sum(e["site"].lstrip("<").startswith(("main ", "alloc::", "core::")) for e in s),
      any(e["site"].startswith("std::sys::pal::unix::stack_overflow::thread_info::set_current_info::{closure#0} ") for e in s),
      any(e["site"].startswith("std::sys::") and any(f.startswith("main (") for f in e["frames"]) for e in s))')" "0 True True"
	done
	# a #![no_main] program's own main (line-tables-only: named "main", as rustc's) that makes
	# a HashMap itself: its 2 MiB are main's, the line that made it (since 0.2.39 a main whose
	# inner frame is in std's sources is rustc's only where it has no source line of its own;
	# before, the site was alloc's "alloc (.../library/alloc/src/alloc.rs:95)")
	CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sites_rsnomain.zst traced sites_rsnomain $S/sites_rsnomain
	expect_eq "sites: Rust #![no_main]: the program's own main that calls std is the site" \
		"$(cat $T/sites_rsnomain.rc)/$($REPORT --json $T/sites_rsnomain.zst 2>/dev/null | $PY -c '
import json, sys
s = json.load(sys.stdin)["sites_by_allocations"]
print([(e["site"].split(" (")[0], e["site"].split("/")[-1], e["count"]) for e in s if e["bytes"] >= 1 << 21])')" \
		"0/[('main', 'sites_rsnomain.rs:10)', 1)]"
else
	echo "  skip Rust site tests: rustc not found when building (tests/sites/sites.mk)"
fi

# ---- what is live at exit, by site (a leak report): tests/progs/leaks.c leaves 13,000 bytes
# from keep_rows (3 x 1000 from main, 2 x 5000 from a thread, in one loop each) and one block
# that realloc grew to 20,000 in grow_table; a 1 MiB block freed before is live at the peak
# heap only. glibc's own blocks live at exit (a thread's TLS vector) are listed too, so the
# list adds up to the heap live at exit.
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/lk.zst traced lk $P/leaks
$REPORT --json --sites-csv $T/lk.csv $T/lk.zst >$T/lk.json 2>$T/lk.rerr
$REPORT $T/lk.zst >$T/lk.txt 2>>$T/lk.rerr
expect_eq "leaks: program and reader ran" "$(cat $T/lk.rc)/$(cat $T/lk.rerr)" "0/"
expect_eq "leaks: keep_rows, its bytes and blocks at exit" \
	"$(site_get $T/lk.json sites_at_exit '^keep_rows \(.*leaks\.c:[0-9]+\)$' bytes)/$(site_get $T/lk.json sites_at_exit '^keep_rows ' count)" "13000/5"
expect_eq "leaks: keep_rows's heaviest caller is the thread's loop, 10,000 bytes" \
	"$(site_get $T/lk.json sites_at_exit '^keep_rows ' frames.1 | sed 's/ (.*//')/$(site_get $T/lk.json sites_at_exit '^keep_rows ' callers_bytes.0)/$(site_get $T/lk.json sites_at_exit '^keep_rows ' stacks)" \
	"worker/10000/2"
expect_eq "leaks: the realloc'd block belongs to grow_table, 20,000 bytes" \
	"$(site_get $T/lk.json sites_at_exit '^grow_table ' bytes)/$(site_get $T/lk.json sites_at_exit '^grow_table ' count)" "20000/1"
expect_eq "leaks: the two blocks of 0 bytes are listed at exit by their count" \
	"$(site_get $T/lk.json sites_at_exit '^keep_empty ' bytes)/$(site_get $T/lk.json sites_at_exit '^keep_empty ' count)/$(grep -c '^"keep_empty .*",0,0,0,0,2,0,".*",0,0,0,0,0$' $T/lk.csv)" "0/2/1"
expect_eq "leaks: the freed scratch block is not live at exit" "$(site_get $T/lk.json sites_at_exit '^scratch ' bytes)" none
expect_eq "leaks: the freed scratch block was live at the peak heap" "$(site_get $T/lk.json sites_at_peak_heap '^scratch ' bytes)" 1048576
expect_eq "leaks: the sites live at exit add up to the heap live at exit" \
	"$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(e["bytes"] for e in d["sites_at_exit"]), d["live_at_exit"]["heap_bytes"])' $T/lk.json)" \
	"$(jget $T/lk.json live_at_exit.heap_bytes) $(jget $T/lk.json live_at_exit.heap_bytes)"
# (the scratch block, freed at once, is no temporary since 0.2.38: it was live at the peak heap)
expect_match "leaks: csv rows: the bytes live at exit, then estimated and the GPU columns" \
	"$(grep '^"keep_rows ' $T/lk.csv)/$(grep '^"scratch ' $T/lk.csv)" '^"keep_rows .*",13000,0,0,0,0/"scratch .*",[0-9]+,1048576,1048576,1048576,1,0,".*",0,0,0,0,0$'
expect_match "leaks: text list, largest first" "$(sed -n '/^top sites live at exit/,/^$/p' $T/lk.txt | grep -v '^      <-')" \
	'^top sites live at exit \(heap [0-9.]+ KiB at [0-9.]+ s; [0-9]+ of [0-9]+ sites\)
  #1  19\.5 KiB \(20000 bytes\), [0-9.]+% of the heap then, 1 allocation live
      grow_table \(.*leaks\.c:[0-9]+\)
  #2  12\.7 KiB \(13000 bytes\), [0-9.]+% of the heap then, 5 allocations live
      keep_rows \(.*leaks\.c:[0-9]+\)
      \(2 call stacks in all; \[bytes\] through each caller; --folded has every stack\)
(.*
)?  #[0-9]+  0 B \(0 bytes\), 0\.0% of the heap then, 2 allocations live
      keep_empty \(.*leaks\.c:[0-9]+\)$'

# strdup and strndup are the C library's allocation, not a site (since 0.2.39 also under the
# names glibc's debug symbols give them, "__GI___strdup": where those were installed, the site
# read "__GI___strdup (./string/strdup.c:42)" in place of the function that called it)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/sd.zst traced sd $P/strdups
$REPORT --json $T/sd.zst >$T/sd.json 2>$T/sd.rerr
expect_eq "strdups: strdup's and strndup's blocks belong to their callers, no site is the C library's" \
	"$(cat $T/sd.rc)/$(cat $T/sd.rerr)/$(site_get $T/sd.json sites_at_exit '^copy_name \(.*strdups\.c:12\)$' bytes)/$(site_get $T/sd.json sites_at_exit '^copy_part \(.*strdups\.c:19\)$' bytes)/$(site_get $T/sd.json sites_at_exit '^(__GI_)?(__)?str(n)?dup ' bytes)" \
	"0//9/4/none"

# what a list leaves out (since 0.2.26): past --top 2, the other sites live at exit and their
# bytes, every byte of the heap then (exact mode: no byte in no site); the full list has no rest
$REPORT --top 2 --json $T/lk.zst >$T/lk2.json 2>/dev/null
$REPORT --top 2 $T/lk.zst 2>/dev/null | sed -n '/^top sites live at exit/,/^$/p' | grep -v '^  #\|^      ' >$T/lk2.rest
n_exit=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["sites_at_exit"]))' $T/lk.json)
other=$(( $(jget $T/lk.json live_at_exit.heap_bytes) - 33000 ))
expect_eq "leaks --top 2: the other sites live at exit, their bytes, none in no site; the full list leaves none out" \
	"$(jget $T/lk2.json sites_at_exit_rest.other_sites)/$(jget $T/lk2.json sites_at_exit_rest.other_bytes)/$(jget $T/lk2.json sites_at_exit_rest.unattributed_bytes)/$(jget $T/lk2.json sites_at_exit_rest.estimate_error_bytes)/$(jget $T/lk.json sites_at_exit_rest.other_sites)/$(jget $T/lk.json sites_at_exit_rest.unattributed_bytes)/$(jget $T/lk.json sites_at_peak_rest.unattributed_bytes)" \
	"$((n_exit - 2))/$other/0/0/0/0/null"
expect_match "leaks --top 2: the text's line for the sites left out" "$(cat $T/lk2.rest)" \
	"^top sites live at exit \(heap [0-9.]+ KiB at [0-9.]+ s; 2 of $n_exit sites\)
  and $((n_exit - 2)) other sites: [0-9.]+ (B|KiB) \($other bytes\), [0-9.]+% of the heap then \(--top N lists more\)$"

# sites by allocations (since 0.2.26): every call that made a block or a mapping, by site,
# whatever the peaks: keep_rows 5 calls of 13,000 bytes, keep_empty 2 of 0, scratch 1 of 1 MiB
# (freed before the end, at no peak's list); together the trace's allocations, reallocs, mmaps
# and mremaps; past --top 2 the rest adds up to them
expect_eq "leaks: sites by allocations: keep_rows, keep_empty, scratch; all of them the trace's allocation calls" \
	"$($PY - $T/lk.json $T/lk2.json <<'PYEOF'
import json, re, sys
d, d2 = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def one(name):
    e = [e for e in d['sites_by_allocations'] if re.match(name + r' \(.*leaks\.c:\d+\)$', e['site'])]
    return [(x['count'], x['bytes'], x['estimate']) for x in e]
ec, r, r2 = d['event_counts'], d['sites_by_allocations_rest'], d2['sites_by_allocations_rest']
print(one('keep_rows'), one('keep_empty'), one('scratch'),
      r['count'] == ec['alloc'] + ec['realloc'] + ec['mmap'] + ec['mremap'] == sum(e['count'] for e in d['sites_by_allocations']),
      r['other_sites'], r2['other_sites'] == r['sites'] - 2 == len(d['sites_by_allocations']) - 2,
      r2['other_count'] + sum(e['count'] for e in d2['sites_by_allocations']) == r['count'],
      r2['other_bytes'] + sum(e['bytes'] for e in d2['sites_by_allocations']) == sum(e['bytes'] for e in d['sites_by_allocations']))
PYEOF
)" "[(5, 13000, False)] [(2, 0, False)] [(1, 1048576, False)] True 0 True True True"
expect_match "leaks: the text's list by allocations" "$(sed -n '/^top sites by allocations/,/^$/p' $T/lk.txt | grep -v '^      <-' | grep -B1 '^      keep_rows\|^top')" \
	'^top sites by allocations \([0-9]+ of [0-9]+ sites; [0-9]+ allocations in all\)
(.*
)*  #[0-9]+  5 allocations, [0-9.]+% of all, 12\.7 KiB \(13000 bytes\) allocated
      keep_rows \(.*leaks\.c:[0-9]+\)$'

# In the default mode a site's count of allocations is a sum of sample weights, shown rounded:
# the total and the rest are the sums of the rounded counts (since 0.2.56; the total was rounded
# once, 10 over three rows of 3 (3.4 each), a rest of 1 with no other site). A forged trace:
# three sites, one sample each of 182,600 bytes (a weight of 3.4002 at R = 524288)
if command -v zstd >/dev/null 2>&1; then
	PYTHONPATH=tests/integration $PY - $T/cntround.zst <<'PYEOF'
import sys
from rows import *
body = b"".join(stack(k, [0x401000 + 0x100 * k]) for k in (1, 2, 3))
body += b"".join(bytes([ALLOC]) + sv(1) + uv(0x80) + sv(0x100000 if k == 1 else 0x40000) + uv(182600) + uv(k) + uv(0)
                 for k in (1, 2, 3))
body += bytes([0x30]) + sv(1) + sv(3 * 182616) + sv(3)  # AGG (version 1: no since)
row = (bytes([FRAME]) + uv(0) + uv(0) + bytes([THREAD]) + uv(1) + body
       + bytes([SYNC]) + uv(100) + bytes([END]) + uv(110) + uv(0) + uv(7) + uv(0))
open(sys.argv[1], 'wb').write(z(header((b"setting.CUZKTRACE_SAMPLE", b"524288"))) + z(row))
PYEOF
	expect_eq "default mode: sites by allocations, the total and the rest sum the rounded rows (all listed; --top 1)" \
		"$($REPORT --json $T/cntround.zst | $PY -c 'import json,sys; d=json.load(sys.stdin); r=d["sites_by_allocations_rest"]; print([e["count"] for e in d["sites_by_allocations"]], r["count"], r["other_sites"], r["other_count"])')/$($REPORT --top 1 $T/cntround.zst 2>/dev/null | grep -o '^top sites by allocations (1 of 3 sites; [0-9]* allocations\|^  and 2 other sites: [0-9]* allocations')" \
		"[3, 3, 3] 9 0 0/top sites by allocations (1 of 3 sites; 9 allocations
  and 2 other sites: 6 allocations"
fi

# ---- temporaries (since 0.2.33): blocks freed by their thread before it allocated again,
# tests/progs/temps.c: churn_one 1000, pair_inner 500 (pair_outer none: a block came after
# each), grow_step 300 (the realloc's blocks; grow_start's none: realloc is no free), zeroed
# 100 (calloc), own_block 1 (its thread's, though main allocated meanwhile); handoff_make's
# blocks, freed by main, none; main_between's block is kept; held_peak's 4 blocks, live at the
# peak heap and each its thread's next free, none (since 0.2.38: 4, as churn that costs no
# memory), where churn_one's first, whose 100 bytes were a peak the heap passed later, is one
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/tmp.zst traced tmp $P/temps
$REPORT --json --sites-csv $T/tmp.csv $T/tmp.zst >$T/tmp.json 2>$T/tmp.rerr
$REPORT --json --top 2 $T/tmp.zst >$T/tmp2.json 2>>$T/tmp.rerr
$REPORT $T/tmp.zst >$T/tmp.txt 2>>$T/tmp.rerr
expect_eq "temps: each site's temporaries in the sites CSV, their sum the JSON's total and the list's" \
	"$(cat $T/tmp.rc)/$(cat $T/tmp.rerr)/$($PY - $T/tmp.csv $T/tmp.json $T/tmp2.json <<'PYEOF'
import csv, json, sys
rows = {r["site"].split(" ")[0]: r for r in csv.DictReader(open(sys.argv[1]))}
d, d2 = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
names = ("churn_one", "pair_inner", "pair_outer", "grow_step", "grow_start", "zeroed", "handoff_make", "own_block", "main_between", "held_peak")
total = sum(int(r["temporary_allocations"]) for r in rows.values())
l, rest, rest2 = d["sites_by_temporary_allocations"], d["sites_by_temporary_allocations_rest"], d2["sites_by_temporary_allocations_rest"]
print(" ".join("%s=%s/%s" % (n, rows[n]["temporary_allocations"], rows[n]["allocations"]) for n in names),
      total == d["temporary_allocations"] == rest["temporary"] == sum(e["temporary"] for e in l),
      [(e["site"].split(" ")[0], e["temporary"], e["count"]) for e in d2["sites_by_temporary_allocations"]],
      rest2["other_sites"] == rest["sites"] - 2, rest2["other_temporary"] == total - 1500,
      [e["temporary"] for e in d["sites_by_allocations"] if e["site"].startswith(("churn_one", "pair_outer"))])
PYEOF
)" "0//churn_one=1000/1000 pair_inner=500/500 pair_outer=0/500 grow_step=300/300 grow_start=0/300 zeroed=100/100 handoff_make=0/200 own_block=1/1 main_between=0/1 held_peak=0/4 True [('churn_one', 1000, 1000), ('pair_inner', 500, 500)] True True [1000, 0]"
expect_match "temps: the text's list by temporaries" "$(sed -n '/^top sites by temporary allocations/,/^$/p' $T/tmp.txt | grep -v '^      <-' | head -5)" \
	'^top sites by temporary allocations \([0-9]+ of [0-9]+ sites; 19[0-9][0-9] in all, [0-9.]+% of [0-9]+ heap allocations\)
  #1  1000 temporary allocations, 5[0-9]\.[0-9]% of them; 100\.0% of the site.s 1000 allocations
      churn_one \(.*temps\.c:[0-9]+\)
  #2  500 temporary allocations, 2[0-9]\.[0-9]% of them; 100\.0% of the site.s 500 allocations
      pair_inner \(.*temps\.c:[0-9]+\)$'
CUZKTRACE_SAMPLE=524288 CUZKTRACE_OUT=$T/tmpd.zst traced tmpd $P/temps
$REPORT --json --sites-csv $T/tmpd.csv $T/tmpd.zst >$T/tmpd.json 2>$T/tmpd.rerr
expect_eq "temps: not counted in the default mode: the text says so, JSON null, the CSV column empty" \
	"$(cat $T/tmpd.rc)/$(cat $T/tmpd.rerr)/$($REPORT $T/tmpd.zst 2>&1 | grep '^top sites by temporary')/$(jget $T/tmpd.json temporary_allocations)/$(jget $T/tmpd.json sites_by_temporary_allocations)/$(jget $T/tmpd.json sites_by_temporary_allocations_rest)/$(tail -n +2 $T/tmpd.csv | grep -vc ',$')" \
	"0//top sites by temporary allocations: not counted in the default mode (CUZKTRACE_SAMPLE=0 counts them)/null/null/null/0"

# ---- at the peak RSS a site's bytes are those allocated, resident or not: a 64 MiB calloc'd
# table never touched holds more than the RSS, and the line says so (since 0.2.21: a share of
# 2000% of the peak and no word); the 1 MiB written in full is a plain share
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/untouched.zst traced untouched $P/untouched
$REPORT $T/untouched.zst >$T/untouched.txt 2>$T/untouched.rerr
expect_match "untouched: the never-touched table's line at the peak RSS says allocated, not resident; the filled rows' does not" \
	"$(cat $T/untouched.rc)/$(cat $T/untouched.rerr)/$(sed -n '/^top sites at peak RSS/,/^$/p' $T/untouched.txt | grep -A1 '^  #' | grep -v '^--')" \
	'^0//  #1  64\.0 MiB \(67108864 bytes\), [0-9]{3,5}\.[0-9]% of the peak \(allocated, not all resident\), 1 allocation live
      reserve_table \(.*untouched\.c:[0-9]+\)
  #2  1\.00 MiB \(1048576 bytes\), [0-9]{1,2}\.[0-9]% of the peak, 1 allocation live
      fill_rows \(.*untouched\.c:[0-9]+\)'
expect_eq "untouched: the peak heap's list says nothing of residence" \
	"$(grep -c 'not all resident' <(sed -n '/^top sites at peak heap/,/^$/p' $T/untouched.txt))" 0

# --diff of the two: did the change fix the leak? By function at exit (not by phase or thread)
CUZKTRACE_SAMPLE=0 CUZKTRACE_OUT=$T/lkfix.zst traced lkfix $P/leaks fixed
$REPORT --json --diff $T/lk.zst $T/lkfix.zst >$T/lkdiff.json 2>$T/lkdiff.err
expect_eq "leaks --diff: by function at exit, the fixed table -20,000, keep_rows unchanged; no phase or thread rows at exit" \
	"$(cat $T/lkfix.rc)/$(cat $T/lkdiff.err)/$($PY - $T/lkdiff.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {r["function"]: (r["base"], r["trace"], r["change"]) for r in d["by_function"]["live_at_exit"]}
print(rows.get("grow_table"), rows.get("keep_rows"), "live_at_exit" in d["by_phase"])
PYEOF
)" "0//(20000, 0, -20000) (13000, 13000, 0) False"
expect_match "leaks --diff text: the rows at exit" "$($REPORT --diff $T/lk.zst $T/lkfix.zst 2>/dev/null | sed -n '/^live bytes by function at exit/,/^$/p')" \
	'^live bytes by function at exit \([0-9]+ of [0-9]+ changed\)
  change +base +trace  function
  -19\.5 KiB \(-100\.0%\) +19\.5 KiB +0 B  grow_table
'

# a C++ name with '$' in it that looks like a Rust escape ("get$u41$it"): kept as it is (the
# decoding of Rust's escapes took it for one and showed "getAit")
CUZKTRACE_OUT=$T/cxxdollar.zst traced cxxdollar $P/cxxdollar
expect_eq "sites: a C++ name with a Rust-like escape in it is not decoded" \
	"$($REPORT --json $T/cxxdollar.zst 2>/dev/null | $PY -c 'import json,sys; print([(e["site"].split(" (")[0], e["bytes"]) for e in json.load(sys.stdin)["sites_at_exit"] if e["bytes"] == 123456])')" \
	"[('ns::get\$u41\$it(unsigned long)', 123456)]"
# ... and a C++ function with an ABI tag (ns::make_row[abi:cxx11], returning std::string): a
# --phase-rule takes it by its name as written, or as the report shows it, brackets and all
# (before 0.2.59 neither matched: the tag was in the way, and '[' read as a glob's set)
for cx_rule in 'ns::make_row' '*::make_row' 'ns::make_row[abi:cxx11]' 'ns::make_row[abi:cxx11](unsigned long)'; do
	$REPORT --json --phase-rule "rows=$cx_rule" $T/cxxdollar.zst 2>$T/cxxrule.err | $PY -c 'import json,sys; print([(p["name"], p["allocated_bytes"]) for p in json.load(sys.stdin)["phases"] if p["name"] == "rows"])'
	cat $T/cxxrule.err
done >$T/cxxrule.got
expect_eq "sites: --phase-rule on a C++ function with an ABI tag, by its name with and without the tag and its parameters" \
	"$(sort -u $T/cxxrule.got)" "[('rows', 200001)]"

# the sites CSV's stack is the one shown at the peak RSS where the site holds bytes then: leaf's
# 8 MB block through via_heap is the peak heap, freed; then its 1 MB block through via_rss is
# live with a 32 MiB mapping written, the peak RSS (the stack shown at the peak heap is
# via_heap's, in the JSON's list at the peak heap)
cat >$T/rsspick.c <<'CEOF'
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
void *volatile keep;
__attribute__((noinline)) void *leaf(size_t n) { void *p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void *via_heap(size_t n) { void *p = leaf(n); __asm__ volatile("" ::: "memory"); return p; }
__attribute__((noinline)) void *via_rss(size_t n) { void *p = leaf(n); __asm__ volatile("" ::: "memory"); return p; }
int main(void)
{
	void *p = via_heap(8 << 20);
	usleep(30 * 1000);
	free(p);
	keep = via_rss(1 << 20);
	char *m = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(m, 1, 32 << 20);
	usleep(300 * 1000); /* samples every 5 ms: 300 ms leave room for a sampler held off a core */
	munmap(m, 32 << 20);
	return 0;
}
CEOF
if ${CC:-cc} -O0 -g -o $T/rsspick $T/rsspick.c 2>/dev/null; then
	CUZKTRACE_OUT=$T/rsspick.zst traced rsspick $T/rsspick
	$REPORT --json --sites-csv $T/rsspick.csv $T/rsspick.zst >$T/rsspick.json 2>/dev/null
	expect_eq "sites: the sites CSV's stack is the one shown at the peak RSS, before the peak heap's" \
		"$(site_get $T/rsspick.json sites_at_peak '^leaf ' bytes)/$(site_get $T/rsspick.json sites_at_peak_heap '^leaf ' frames.1 | sed 's/ (.*//')/$(grep '^"leaf ' $T/rsspick.csv | cut -d, -f2-3)/$(grep '^"leaf ' $T/rsspick.csv | cut -d'"' -f4 | sed 's/ ([^)]*)//g; s/ <- main .*//')" \
		"1048576/via_heap/1048576,8388608/leaf <- via_rss"
else
	echo "  skip sites: the sites CSV's stack at the peak RSS: cc cannot build the test program"
fi
