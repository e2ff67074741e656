# Allocators linked in under their own names (Rust's tikv-jemallocator: _rjem_malloc, the
# mimalloc crate: mi_malloc): the program's blocks from them never pass through malloc, and the
# trace holds only their mappings. Since 0.2.41 the report names such an allocator (one
# warning, a heading line, JSON untraced_allocators) with its mappings' bytes at the peak RSS;
# before, they read as the program's anonymous mmap, owned by the allocator's function, without
# a word. No word where the allocator serves malloc behind the tracer (its blocks are traced).

# oa_line FILE: the report's heading line on such allocators, without its column
oa_line() { sed -n 's/^untraced allocator    //p' "$1"; }
# oa_json FILE: untraced_allocators, one "name module function rss mmap" line each
oa_json() {
	$PY - "$1" <<'PYEOF'
import json, sys
for u in json.load(open(sys.argv[1])).get("untraced_allocators", ["(no key)"]):
    print(u if isinstance(u, str) else " ".join(str(u[k]) for k in ("name", "module", "function", "bytes_at_peak_rss", "bytes_at_peak_mmap")))
PYEOF
}
oa_warn() {
	printf "cuzktrace-report: warning: '%s': the program allocates through %s, whose blocks are not traced: the trace holds only its mappings, %s of them at the peak %s, whose sites and phases are the allocator's, not the program's calls; to trace its blocks, build the program with the system allocator (Rust: no #[global_allocator]), or preload the allocator's shared library after the tracer where it exports malloc (LD_PRELOAD=\"libcuzktrace.so %s\")" "$@"
}

# ---- a test double of jemalloc under tikv-jemallocator's names (tests/progs/lib/rjem.c): 64 MiB
# in 16 chunks of 4 MiB, mapped in _rjem_je_pages_map; 100,000 bytes through malloc ----
for oa_mode in exact default; do
	oa=oj_$oa_mode
	if [ $oa_mode = exact ]; then oa_s=0; else oa_s=524288; fi
	CUZKTRACE_SAMPLE=$oa_s CUZKTRACE_OUT=$T/$oa.zst traced $oa $P/ownjem
	$REPORT --json $T/$oa.zst >$T/$oa.json 2>$T/$oa.rerr
	$REPORT $T/$oa.zst >$T/$oa.txt 2>/dev/null
	expect_eq "own allocator ($oa_mode mode): program unchanged; its mappings named as jemalloc's at the peak RSS and the peak mmap (JSON)" \
		"$(cat $T/$oa.out)/$(cat $T/$oa.rc)/$(oa_json $T/$oa.json)" \
		"ownjem: 67108864 bytes through _rjem_malloc/0/jemalloc ownjem _rjem_je_pages_map 67108864 67108864"
	expect_eq "own allocator ($oa_mode mode): one warning says it, with the bytes and what to do" \
		"$(cat $T/$oa.rerr)" \
		"$(oa_warn $T/$oa.zst "jemalloc (_rjem_je_pages_map in ownjem)" "64.0 MiB (67108864 bytes)" RSS libjemalloc.so)"
	expect_eq "own allocator ($oa_mode mode): the text report's heading line" "$(oa_line $T/$oa.txt)" \
		"jemalloc (_rjem_je_pages_map in ownjem): the program allocates through it, and its blocks are not traced; its mappings hold 64.0 MiB (67108864 bytes) at the peak RSS"
done
# without RSS samples: at the peak mmap (JSON bytes_at_peak_rss null, as peak_rss's bytes)
CUZKTRACE_RSS_MS=0 CUZKTRACE_OUT=$T/oj_norss.zst traced oj_norss $P/ownjem
$REPORT --json $T/oj_norss.zst >$T/oj_norss.json 2>$T/oj_norss.rerr
$REPORT $T/oj_norss.zst >$T/oj_norss.txt 2>/dev/null
expect_eq "own allocator, no RSS samples: its mappings at the peak mmap (JSON, warning, heading line)" \
	"$(oa_json $T/oj_norss.json)|$(cat $T/oj_norss.rerr)|$(oa_line $T/oj_norss.txt)" \
	"jemalloc ownjem _rjem_je_pages_map None 67108864|$(oa_warn $T/oj_norss.zst "jemalloc (_rjem_je_pages_map in ownjem)" "64.0 MiB (67108864 bytes)" mmap libjemalloc.so)|jemalloc (_rjem_je_pages_map in ownjem): the program allocates through it, and its blocks are not traced; its mappings hold 64.0 MiB (67108864 bytes) at the peak mmap"

# the program's own functions named as mimalloc's are ("mi_table_create", and "mi_setup" over
# a map_pages that maps): 48 MiB of anonymous mappings, none of them an allocator's, as their
# stacks have no way into one (a frame of its module, or a name that says "alloc" after the
# prefix: mi_malloc); before the rule (0.2.41's first form), both were named as mimalloc's
CUZKTRACE_OUT=$T/ownmi.zst traced ownmi $P/ownmi
$REPORT --json $T/ownmi.zst >$T/ownmi.json 2>$T/ownmi.rerr
expect_eq "the program's own mi_* functions that map memory: no allocator named (JSON, stderr, heading line), the 48 MiB the program's anonymous mmap" \
	"$(cat $T/ownmi.out)/$(jget $T/ownmi.json untraced_allocators)/$(cat $T/ownmi.rerr)/$($REPORT $T/ownmi.zst 2>/dev/null | grep -c '^untraced allocator')/$(jget $T/ownmi.json peak_mmap_anon.bytes)" \
	"ownmi: 2 1/[]//0/50331648"

# the allocator's module and function come from the trace and the module's file: the heading
# line shows control characters as '?', as the warning and every other name (a forged trace: a
# module named libmimalloc<ESC>]0;title<BEL><ESC>[2J.so, which would retitle and clear the
# terminal, makes one anonymous 1 MiB mapping)
PYTHONPATH=tests/integration $PY - $T <<'PYEOF'
import sys
from rows import *
T = sys.argv[1]
body = bytes([FRAME]) + uv(0) + uv(0)
body += module(0x10000000, 0x10080000, b"/nonexistent/libmimalloc\x1b]0;title\x07\x1b[2J.so")
body += stack(1, [0x10000010])
body += bytes([THREAD]) + uv(1)
body += bytes([MMAP]) + sv(10) + sv(0x7f0000000000) + uv(1 << 20) + uv(1) + uv(3) + uv(1) + uv(0)
body += bytes([SYNC]) + uv(9000) + bytes([END]) + uv(9000) + uv(0) + uv(1000) + uv(0)
open(T + "/oa_esc.zst", "wb").write(z(header()) + z(bytes(body)))
PYEOF
$REPORT $T/oa_esc.zst >$T/oa_esc.txt 2>/dev/null
expect_eq "own allocator in a module whose name holds control characters: the heading line shows them as '?'" \
	"$(oa_line $T/oa_esc.txt | LC_ALL=C tr -c '[:print:]\n' '#')" \
	"mimalloc (libmimalloc?]0;title??[2J.so): the program allocates through it, and its blocks are not traced; its mappings hold 1.00 MiB (1048576 bytes) at the peak mmap"

# mimalloc inside CPython (PYTHONMALLOC=mimalloc, the free-threaded build's default): libpython
# exports no malloc to preload after the tracer, so the advice is PYTHONMALLOC=malloc (since
# 0.2.52: it said to preload libpython3.N). A library named as CPython's holding mi_malloc, which
# maps 4 MiB through _mi_os_alloc, called by a program linked with it.
mkdir -p $T/pymi
cat >$T/pymi/mi.c <<'CEOF'
#include <stddef.h>
#include <sys/mman.h>
__attribute__((noinline)) void *_mi_os_alloc(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__asm__ volatile("");
	return p == MAP_FAILED ? NULL : p;
}
__attribute__((noinline)) void *mi_malloc(size_t n)
{
	void *p = _mi_os_alloc(n);
	__asm__ volatile("");
	return p;
}
CEOF
cat >$T/pymi/main.c <<'CEOF'
#include <stdio.h>
#include <string.h>
void *mi_malloc(size_t n);
int main(void)
{
	char *p = mi_malloc(4 << 20);
	if (!p)
		return 3;
	memset(p, 1, 4 << 20);
	puts("pymi: done");
	return 0;
}
CEOF
if gcc -shared -fPIC -O1 -g -o $T/pymi/libpython3.99.so $T/pymi/mi.c &&
	gcc -O1 -g -o $T/pymi/pymi $T/pymi/main.c -L$T/pymi -lpython3.99 -Wl,-rpath,$T/pymi; then
	CUZKTRACE_OUT=$T/pymi.zst traced pymi $T/pymi/pymi
	$REPORT $T/pymi.zst >/dev/null 2>$T/pymi.rerr
	expect_eq "mimalloc inside a library named as CPython's: named, the advice is PYTHONMALLOC=malloc" \
		"$(cat $T/pymi.rc)/$(cat $T/pymi.out)/$(grep -c "^cuzktrace-report: warning: '$T/pymi.zst': the program allocates through mimalloc (_mi_os_alloc in libpython3.99.so), whose blocks are not traced: .*; to trace its blocks, run the program with PYTHONMALLOC=malloc\$" $T/pymi.rerr)" \
		"0/pymi: done/1"
else
	echo "  skip mimalloc inside CPython: gcc cannot build the library here"
fi

# ---- no word for glibc's heap (its big blocks, mapped inside malloc, are heap blocks) nor for
# an allocator behind the tracer's malloc: tcmalloc preloaded after it; the double above
# beside it is named still ----
CUZKTRACE_OUT=$T/oa_glibc.zst traced oa_glibc $P/known
$REPORT --json $T/oa_glibc.zst >$T/oa_glibc.json 2>$T/oa_glibc.rerr
expect_eq "glibc's malloc (blocks of 1 MiB and more, mappings): no allocator named, reader silent" \
	"$(oa_json $T/oa_glibc.json)/$(cat $T/oa_glibc.rerr)" "/"
OA_TC=$(ls /usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 /usr/lib64/libtcmalloc_minimal.so.4 2>/dev/null | head -1)
if [ -n "$OA_TC" ]; then
	CUZKTRACE_OUT=$T/oa_tc.zst LD_PRELOAD="$LIB $OA_TC" $P/known >/dev/null 2>&1
	$REPORT --json $T/oa_tc.zst >$T/oa_tc.json 2>$T/oa_tc.rerr
	expect_eq "tcmalloc preloaded after the tracer (serves malloc, traced): no allocator named, reader silent" \
		"$(oa_json $T/oa_tc.json)/$(cat $T/oa_tc.rerr)" "/"
else
	echo "  skip tcmalloc behind the tracer: libtcmalloc-minimal4 is not installed"
fi

# ---- the real mimalloc (libmimalloc-dev): 64 MiB through mi_malloc, its mappings made in the
# library (stripped: named by its module); and through malloc, which the library serves, linked
# after the tracer or preloaded after it: traced, no word ----
if [ -x $P/mialloc ]; then
	CUZKTRACE_OUT=$T/mi.zst traced mi $P/mialloc
	$REPORT --json $T/mi.zst >$T/mi.json 2>$T/mi.rerr
	$REPORT $T/mi.zst >$T/mi.txt 2>/dev/null
	mi_b=$(jget $T/mi.json untraced_allocators.0.bytes_at_peak_rss)
	# Debian's library is stripped: no function name, unless its debug symbols are installed
	# (then one of mimalloc's own, mi_ or _mi_)
	mi_fn=$(jget $T/mi.json untraced_allocators.0.function)
	mi_who="mimalloc (libmimalloc.so.2)"
	case $mi_fn in null) ;; mi_* | _mi_*) mi_who="mimalloc ($mi_fn in libmimalloc.so.2)"; mi_fn=null ;; esac
	expect_eq "mimalloc through mi_malloc: named by its module; its bytes at the peak RSS are the anonymous mmap then (64 MiB or more)" \
		"$(cat $T/mi.out)/$(jget $T/mi.json untraced_allocators.0.name) $(jget $T/mi.json untraced_allocators.0.module) $mi_fn $(oa_json $T/mi.json | wc -l)/$((mi_b == $(jget $T/mi.json peak_rss.anon_mmap_bytes) && mi_b >= 67108864))" \
		"mialloc: 67108864 bytes through mi_malloc/mimalloc libmimalloc.so.2 null 1/1"
	mi_fmt=$(grep '^untraced allocator    ' $T/mi.txt | sed -n 's/^.*: the program allocates through it, and its blocks are not traced; its mappings hold \(.*\) at the peak RSS$/\1/p')
	expect_eq "mimalloc through mi_malloc: the warning names the library to preload after the tracer" \
		"$(cat $T/mi.rerr)" "$(oa_warn $T/mi.zst "$mi_who" "$mi_fmt" RSS libmimalloc.so.2)"
	expect_match "mimalloc through mi_malloc: the heading line" "$mi_fmt" "^[0-9.]+ MiB \($mi_b bytes\)\$"
	CUZKTRACE_OUT=$T/mim.zst traced mim $P/mialloc malloc
	$REPORT --json $T/mim.zst >$T/mim.json 2>$T/mim.rerr
	CUZKTRACE_OUT=$T/mip.zst LD_PRELOAD="$LIB libmimalloc.so.2" $P/known >/dev/null 2>&1
	$REPORT --json $T/mip.zst >$T/mip.json 2>$T/mip.rerr
	# its 64 MiB are heap blocks: the peak heap holds them
	expect_eq "mimalloc serving malloc behind the tracer (linked; preloaded after it): traced, no allocator named, reader silent" \
		"$(cat $T/mim.out)/$(( $(jget $T/mim.json peak_heap.bytes) >= 67108864 + 100000 ))/$(oa_json $T/mim.json)/$(cat $T/mim.rerr)/$(oa_json $T/mip.json)/$(cat $T/mip.rerr)" \
		"mialloc: 67108864 bytes through malloc/1////"
else
	echo "  skip mimalloc: libmimalloc-dev was not installed when building (Makefile)"
fi

# ---- the shape of the real case: a Rust program whose #[global_allocator] calls _rjem_malloc
# and _rjem_free (the double above, linked in): 64 MiB of Vec<u8> and the Vec holding them
# (384 KiB), with std's few blocks: 17 chunks ----
if command -v rustc >/dev/null 2>&1; then
	cat >$T/rsjem.rs <<'RSEOF'
use std::alloc::{GlobalAlloc, Layout};
use std::hint::black_box;
extern "C" {
    fn _rjem_malloc(size: usize) -> *mut u8;
    fn _rjem_free(p: *mut u8);
}
struct Jemalloc;
unsafe impl GlobalAlloc for Jemalloc {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if l.align() > 16 {
            return std::ptr::null_mut();
        }
        _rjem_malloc(l.size())
    }
    unsafe fn dealloc(&self, p: *mut u8, _l: Layout) {
        _rjem_free(p)
    }
}
#[global_allocator]
static GLOBAL: Jemalloc = Jemalloc;
fn main() {
    let mut blocks: Vec<Vec<u8>> = Vec::with_capacity(16384);
    for i in 0..16384 {
        blocks.push(vec![(i as u8) | 1; 4096]);
    }
    black_box(&blocks);
    std::thread::sleep(std::time::Duration::from_millis(150));
    drop(black_box(blocks));
    println!("rsjem: done");
}
RSEOF
	rust_traced rsjem -g -L $P -l static=rjem
	expect_eq "Rust #[global_allocator] over _rjem_malloc: its mappings named as jemalloc's (JSON), one warning" \
		"$(cat $T/rsjem.out)/$(oa_json $T/rsjem.json)/$(cat $T/rsjem.rerr)" \
		"rsjem: done/jemalloc rsjem _rjem_je_pages_map 71303168 71303168/$(oa_warn $T/rsjem.zst "jemalloc (_rjem_je_pages_map in rsjem)" "68.0 MiB (71303168 bytes)" RSS libjemalloc.so)"
else
	echo "  skip Rust #[global_allocator] over jemalloc's names: rustc not found"
fi

# ---- CPython's object allocator by its arena function's name, in a program of another name
# (an interpreter linked in, with symbols; tests/progs/pyarena.c), and a program named as the
# interpreter whose main maps the same 16 MiB: pymalloc for the first, nothing for the second
CUZKTRACE_OUT=$T/pya.zst traced pya $P/pyarena arena
$REPORT --json $T/pya.zst >$T/pya.json 2>/dev/null
cp $P/pyarena $T/python3.11
CUZKTRACE_OUT=$T/pyn.zst traced pyn $T/python3.11 main
$REPORT --json $T/pyn.zst >$T/pyn.json 2>$T/pyn.rerr
expect_eq "pymalloc by its arena function's name in a program of another name; not a program named python3.11 whose main maps (JSON, stderr)" \
	"$(cat $T/pya.out)/$(oa_json $T/pya.json)|$(cat $T/pyn.out)/$(oa_json $T/pyn.json)/$(cat $T/pyn.rerr)" \
	"pyarena: 16 MiB from _PyObject_ArenaMmap/pymalloc pyarena _PyObject_ArenaMmap 16777216 16777216|pyarena: 16 MiB from main//"

# ---- CPython's object allocator (pymalloc, since 0.2.49): objects of 512 bytes and under live in
# arenas of 1 MiB (256 KiB before 3.10) that the interpreter maps itself; its own count of them
# (sys._debugmallocstats: "<N> arenas * <size> bytes/arena") is the oracle of the arenas' bytes
# at the peak mmap. The interpreter's frames' data stack (16 KiB chunks, mapped through the same
# function) is not taken for arenas; PYTHONMALLOC=malloc sends every object to malloc: no word.
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import sys; sys._debugmallocstats' 2>/dev/null; then
	pym_exe=$(basename "$(readlink -f /usr/bin/python3)")
	pym_prog='import sys
x = [str(i) for i in range(1000000)]
sys._debugmallocstats()'
	for pym_mode in exact default; do
		if [ $pym_mode = exact ]; then pym_s=0; else pym_s=524288; fi
		CUZKTRACE_SAMPLE=$pym_s CUZKTRACE_OUT=$T/pym_$pym_mode.zst traced pym_$pym_mode /usr/bin/python3 -c "$pym_prog"
		$REPORT --json $T/pym_$pym_mode.zst >$T/pym_$pym_mode.json 2>$T/pym_$pym_mode.rerr
		$REPORT $T/pym_$pym_mode.zst >$T/pym_$pym_mode.txt 2>/dev/null
		pym_arenas=$(sed -n 's/^\([0-9]*\) arenas \* \([0-9]*\) bytes\/arena .*/\1 \2/p' $T/pym_$pym_mode.err)
		pym_bytes=$(echo "$pym_arenas" | awk '{print $1 * $2}')
		pym_rss=$(oa_json $T/pym_$pym_mode.json | awk '{print $4}')
		expect_eq "pymalloc ($pym_mode mode): its arenas at the peak mmap are the interpreter's own count of them (JSON)" \
			"$(cat $T/pym_$pym_mode.rc)/$(oa_json $T/pym_$pym_mode.json | awk '{print $1, $2, $3, $5}')" \
			"0/pymalloc $pym_exe None $pym_bytes"
		expect_eq "pymalloc ($pym_mode mode): one warning says it, with the bytes at the peak RSS and what to do; the text report's heading line" \
			"$(cat $T/pym_$pym_mode.rerr)|$(oa_line $T/pym_$pym_mode.txt)" \
			"cuzktrace-report: warning: '$T/pym_$pym_mode.zst': the program allocates through pymalloc, CPython's object allocator ($pym_exe), whose objects are not traced: the trace holds only its arenas, $(human "$pym_rss") ($pym_rss bytes) of them at the peak RSS, whose sites and phases are the interpreter's, not the program's calls; to trace its objects, run the program with PYTHONMALLOC=malloc|pymalloc ($pym_exe): the program allocates through it, and its blocks are not traced; its mappings hold $(human "$pym_rss") ($pym_rss bytes) at the peak RSS"
	done
	# 8 anonymous mappings of an arena's size made through ctypes (the call of mmap is libffi's,
	# the interpreter's frames only outside it): not pymalloc's, though a frame of the stack is
	# the interpreter's
	CUZKTRACE_OUT=$T/pym_ffi.zst traced pym_ffi /usr/bin/python3 -c 'import ctypes, sys
libc = ctypes.CDLL(None)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
maps = [libc.mmap(None, 1 << 20, 3, 0x22, -1, 0) for _ in range(8)]
x = [str(i) for i in range(300000)]
sys._debugmallocstats()'
	$REPORT --json $T/pym_ffi.zst >$T/pym_ffi.json 2>/dev/null
	pym_bytes=$(sed -n 's/^\([0-9]*\) arenas \* \([0-9]*\) bytes\/arena .*/\1 \2/p' $T/pym_ffi.err | awk '{print $1 * $2}')
	expect_eq "pymalloc: arena-sized mappings made through ctypes (libffi calls mmap) are not its arenas (JSON: the interpreter's count alone)" \
		"$(cat $T/pym_ffi.rc)/$(oa_json $T/pym_ffi.json | awk '{print $1, $5}')" "0/pymalloc $pym_bytes"
	PYTHONMALLOC=malloc CUZKTRACE_OUT=$T/pym_malloc.zst traced pym_malloc /usr/bin/python3 -c "$pym_prog"
	$REPORT --json $T/pym_malloc.zst >$T/pym_malloc.json 2>$T/pym_malloc.rerr
	expect_eq "PYTHONMALLOC=malloc: no allocator named (JSON, stderr), the million strings on the heap (over 48 MB at its peak)" \
		"$(cat $T/pym_malloc.rc)/$(jget $T/pym_malloc.json untraced_allocators)/$(cat $T/pym_malloc.rerr)/$(jget $T/pym_malloc.json peak_heap.bytes | awk '{print ($1 > 48000000)}')" \
		"0/[]//1"
else
	echo "  skip pymalloc's arenas: no /usr/bin/python3 with sys._debugmallocstats"
fi

# calloc of a count times size that overflows: the allocator's own answer, errno as it leaves
# it (glibc: ENOMEM; tcmalloc behind the tracer: errno as it was, which the tracer set to ENOMEM
# before 0.2.59); nothing recorded
co_tc=$(ls /usr/lib/*/libtcmalloc_minimal.so.4 2>/dev/null | head -1)
for co in glibc tcmalloc; do
	co_pre=
	if [ $co = tcmalloc ]; then
		[ -n "$co_tc" ] || { echo "  skip calloc overflow under tcmalloc: libtcmalloc_minimal.so.4 is not installed"; continue; }
		co_pre=$co_tc
	fi
	co_u=$(LD_PRELOAD=$co_pre $P/callocover)
	CUZKTRACE_OUT=$T/co_$co.zst LD_PRELOAD="$LIB $co_pre" $P/callocover >$T/co_$co.out 2>/dev/null
	expect_eq "calloc overflow ($co): status, output (null, errno) as untraced ($co_u), no allocation recorded" \
		"$?/$(cat $T/co_$co.out)/$($REPORT --json $T/co_$co.zst 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["event_counts"]["alloc"] < 5, d["peak_heap"]["bytes"] < 100000)')" \
		"0/$co_u/True True"
done

# a program's own library named as jemalloc's begins (libjemalloc_wrap.so) is no allocator: its
# function is the site of the block it makes (tests/progs/jemwrap.c; the allocators' own
# libraries' frames are plumbing in a heap block's stack since 0.2.59, by their exact names)
CUZKTRACE_OUT=$T/jemwrap.zst traced jemwrap $P/jemwrap
$REPORT --json $T/jemwrap.zst >$T/jemwrap.json 2>/dev/null
expect_eq "a library named libjemalloc_wrap.so: its function owns its 2 MiB block" \
	"$(cat $T/jemwrap.rc)/$(cat $T/jemwrap.out)/$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print([(s["site"].split(" (")[0], s["bytes"]) for s in d["sites_at_exit"] if s["bytes"] >= 1 << 20])' $T/jemwrap.json)" \
	"0/jemwrap: done/[('jw_fill', 2097152)]"
