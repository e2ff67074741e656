/* test_sites.c: reader/sites.c on hand-built traces: the plumbing-folding rule, aggregation of
 * stacks into sites at the peak heap and peak RSS moments, each site's own peak, and the CSV
 * and folded outputs. Frames lie in no module, so they symbolize as "0x<address>" and the
 * tests need no binary on disk. Every expectation is exact.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include <cmocka.h>

#include "ckt.h"
#include "phases.h"
#include "sites.h"
#include "trace_builder.h"
#include "enc_frames.h"

static void test_plumbing_rule(void **state)
{
	(void)state;
	static const char *const yes[] = {
		"malloc", "calloc", "realloc", "posix_memalign", "strdup", "operator new",
		"operator new[]", "std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>",
		"std::__new_allocator<double>::allocate", "__gnu_cxx::new_allocator<int>::allocate",
		"__rust_alloc", "__rustc::__rust_alloc", "alloc::raw_vec::finish_grow",
		"alloc::raw_vec::RawVec<T,A>::grow_one", "<alloc::alloc::Global as core::alloc::Allocator>::allocate",
		"<u8 as alloc::vec::spec_from_elem::SpecFromElem>::from_elem",
		"<<alloc::boxed::Box<str> as core::convert::From<&str>>::from as core::ops::function::FnOnce<(&str,)>>::call_once",
		"hashbrown::raw::RawTable<T,A>::reserve_rehash", "cudaMallocHost", "cuMemAlloc_v2",
		"g_malloc0", "xmalloc",
		/* glibc's internal aliases, as its debug symbols name the functions */
		"__GI___strdup", "__GI___strndup",
		/* all of hashbrown (std's HashMap), C++ exceptions */
		"hashbrown::map::HashMap<K,V,S,A>::reserve", "hashbrown::set::HashSet<T,S,A>::insert",
		"<hashbrown::map::HashMap<u64, u64, std::hash::random::RandomState>>::find_or_find_insert_index::<u64>",
		"__cxa_allocate_exception",
		/* v0 names of std code for primitive types */
		"<str>::repeat", "<[u8]>::repeat", "<[alloc::vec::Vec<u8>]>::concat::<u8>",
		"<u8 as <[_]>::to_vec_in::ConvertVec>::to_vec::<alloc::alloc::Global>",
		"<i32 as core::fmt::Display>::fmt", "<[u64] as alloc::borrow::ToOwned>::to_owned",
		"<alloc::vec::Vec<T,A> as alloc::vec::spec_extend::SpecExtend<T,I>>::spec_extend",
	};
	static const char *const no[] = {
		"main", "grab_rows", "make_table<int>", "build_grid", "sites_rs::grow_list",
		"<sites_rs::Table as core::clone::Clone>::clone", "mallocx_wrapper", "my::std::thing",
		"allocate_rows", "", NULL, "__GI_", "__GI_main",
		/* a program's own trait on a primitive type, its own types in a slice or a trait */
		"<u8 as mycrate::Pack>::pack", "<[mycrate::Row] as mycrate::Pack>::pack",
		"<mycrate::Row as core::fmt::Display>::fmt", "<stringy::S>::build",
		/* a program's own trait on a standard type (it was taken for Vec's code) */
		"<alloc::vec::Vec<u64> as names2::Grow>::grow_to",
		"<alloc::vec::Vec<u64> as names2::Grow>::grow_to::<u8>",
		"<std::collections::hash::map::HashMap<u64, alloc::vec::Vec<u8>> as app::Index>::add",
		"<<alloc::vec::Vec<u8> as core::clone::Clone>::clone as app::Tap>::tap",
		"<fn() -> alloc::vec::Vec<u8> as app::Make>::make",
	};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!ckt_sites_is_plumbing(yes[i], false))
			fail_msg("'%s' should be plumbing", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (ckt_sites_is_plumbing(no[i], false))
			fail_msg("'%s' should be a site", no[i] ? no[i] : "(null)");
	/* a C++ function: Rust's crate names are a C++ program's own namespaces, the C++
	 * standard library's and the CUDA runtime's stay plumbing */
	static const char *const cxx_site[] = { "core::Buffer::resize", "alloc::arena_get", "hashbrown::Map::grow",
						"panic_unwind::log", "__rustc::x" };
	static const char *const cxx_plumbing[] = { "std::vector<int, std::allocator<int> >::_M_realloc_insert<int>",
						    "operator new", "__gnu_cxx::new_allocator<char>::allocate",
						    "cudart::globalState::initializeDriver", "malloc" };
	for (size_t i = 0; i < sizeof(cxx_site) / sizeof(cxx_site[0]); i++) {
		assert_true(ckt_sites_is_plumbing(cxx_site[i], false));
		if (ckt_sites_is_plumbing(cxx_site[i], true))
			fail_msg("C++ '%s' should be a site", cxx_site[i]);
	}
	for (size_t i = 0; i < sizeof(cxx_plumbing) / sizeof(cxx_plumbing[0]); i++)
		if (!ckt_sites_is_plumbing(cxx_plumbing[i], true))
			fail_msg("C++ '%s' should be plumbing", cxx_plumbing[i]);
	/* by source file: the Rust standard library (names without crate paths under
	 * debuginfo=line-tables-only), hashbrown, the C++ standard library's headers (names
	 * without "std::" for templates of internal linkage) */
	assert_true(ckt_sites_is_plumbing_file("/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/alloc/src/raw_vec.rs"));
	assert_true(ckt_sites_is_plumbing_file("library/core/src/fmt/num.rs"));
	assert_true(ckt_sites_is_plumbing_file("/rust/deps/hashbrown-0.16.1/src/map.rs"));
	assert_true(ckt_sites_is_plumbing_file("/usr/include/c++/12/bits/new_allocator.h"));
	assert_true(ckt_sites_is_plumbing_file("/usr/lib/llvm-14/bin/../include/c++/v1/vector"));
	assert_false(ckt_sites_is_plumbing_file("/home/me/prover/src/synth.rs"));
	assert_false(ckt_sites_is_plumbing_file("/home/me/prover/include/prover/vector.h"));
	assert_false(ckt_sites_is_plumbing_file("/home/me/prover/include/c++/pool.h"));
	assert_false(ckt_sites_is_plumbing_file("/home/me/prover/include/c++/2d/grid.h"));
	assert_false(ckt_sites_is_plumbing_file("/home/me/prover/include/c++/v1beta/pool.h")); /* not libc++'s v1/ */
	assert_true(ckt_sites_is_plumbing_file("/opt/rh/include/c++/4.8.5/bits/stl_vector.h"));
	assert_false(ckt_sites_is_plumbing_file(NULL));
}

/* Replays b with a sites observer; returns the finished sites (caller frees). */
static struct ckt_sites *run_sites(const struct tb *b, bool own_peaks, struct ckt_replay_stats *st)
{
	char path[64];
	struct ckt_error err = { 0 };
	struct ckt_decoder *d = NULL;
	tb_write(b, path);
	assert_int_equal(ckt_decode_open(path, &d, &err), 0);
	struct ckt_replay *r = ckt_replay_new(ckt_decode_header(d)->page_size);
	struct ckt_sites *s = ckt_sites_new(own_peaks);
	assert_non_null(r);
	assert_non_null(s);
	assert_int_equal(ckt_sites_attach(s, r), 0);
	const char *rate = ckt_decode_header_get(d, "setting.CUZKTRACE_SAMPLE");
	if (rate)
		ckt_replay_set_sample(r, strtoull(rate, NULL, 10));
	ckt_replay_set_thread_gens(r, true); /* as for a trace of 0.2.33 */
	if (ckt_replay_run(d, r, &err) != 0)
		fail_msg("replay failed: %s", err.msg);
	*st = *ckt_replay_stats(r);
	assert_int_equal(ckt_sites_finish(s, st, 10), 0);
	ckt_replay_free(r);
	ckt_decode_close(d);
	unlink(path);
	return s;
}

/* An anonymous read-write mapping made by call stack `stack` (tb_mmap records none) */
static void mmap_anon_stack(struct tb *b, uint64_t ts, uint64_t addr, uint64_t len, uint64_t stack)
{
	tb_u8(b, CKT_TAG_MMAP);
	tb_dts(b, ts);
	tb_daddr(b, addr);
	tb_uv(b, len);
	tb_uv(b, CKT_MAP_ANON);
	tb_uv(b, 3);
	tb_uv(b, stack);
	tb_uv(b, 0);
}

/* Stacks 1 and 2 share their innermost frame (one site, two callers); stack 3 is another
 * site; stack 4 allocates and frees before any peak; stack 5's record comes after its event
 * (allowed by the format). Peak heap at t=40: 300 + 200 + 50 + 70 = 620. Then an anonymous
 * mapping of 8192 from stack 3 and an RSS sample: the peak RSS moment. */
static void build(struct tb *b)
{
	static const uint64_t s1[] = { 0x1000, 0x2000 }, s2[] = { 0x1000, 0x3000 }, s3[] = { 0x5000, 0x2000 },
			      s4[] = { 0x6000 }, s5[] = { 0x7000 };
	tb_begin(b);
	tb_stack(b, 1, s1, 2);
	tb_stack(b, 2, s2, 2);
	tb_stack(b, 3, s3, 2);
	tb_stack(b, 4, s4, 1);
	tb_thread(b, 1);
	tb_alloc_ex(b, 5, 0x90000, 100, CKT_FN_MALLOC, 4, 0);
	tb_free(b, 6, 0x90000);
	tb_alloc_ex(b, 10, 0x10000, 300, CKT_FN_MALLOC, 1, 0);
	tb_alloc_ex(b, 20, 0x20000, 200, CKT_FN_MALLOC, 2, 0);
	tb_alloc_ex(b, 30, 0x30000, 50, CKT_FN_MALLOC, 3, 0);
	tb_alloc_ex(b, 40, 0x40000, 70, CKT_FN_MALLOC, 5, 0);
	tb_sync(b, 45);
	tb_flush(b);
	tb_frame(b, 50);
	tb_stack(b, 5, s5, 1);
	tb_thread(b, 1);
	tb_free(b, 50, 0x20000);
	mmap_anon_stack(b, 60, 0x700000, 8192, 3);
	tb_rss(b, 70, 1 << 20);
	tb_sync(b, 80);
	tb_end(b, 90, CKT_END_EXIT, 0, 0);
	tb_flush(b);
}

/* The i-th site at moment m is site, with bytes (and count blocks, unless count < 0). */
static void assert_top(const struct ckt_sites *s, enum ckt_moment m, size_t i, const char *site, uint64_t bytes,
		       long count)
{
	struct ckt_sites_entry e;
	assert_true(ckt_sites_top(s, m, i, &e));
	assert_string_equal(e.site, site);
	assert_int_equal(e.bytes, bytes);
	if (count >= 0)
		assert_int_equal(e.count, count);
}

/* The allocators linked in under their own names, known by a frame's function or module */
static void test_allocator_rule(void **state)
{
	(void)state;
	/* the allocator, and whether the frame is a way into it ("1": its module, or "alloc"
	 * after the prefix; a stack needs one for its mappings to count as the allocator's) */
	static const char *const yes[][4] = {
		{ "_rjem_je_pages_map", NULL, "jemalloc", "0" },
		{ "_rjem_malloc", "prover", "jemalloc", "1" },
		{ "je_extent_alloc_wrapper", NULL, "jemalloc", "1" },
		{ NULL, "libjemalloc.so.2", "jemalloc", "1" },
		{ "mi_malloc_aligned", NULL, "mimalloc", "1" },
		{ "_mi_os_alloc_aligned", NULL, "mimalloc", "1" },
		{ "mi_table_create", "prover", "mimalloc", "0" },
		{ NULL, "libmimalloc.so.2", "mimalloc", "1" },
		{ "tcmalloc::PageHeap::GrowHeap", NULL, "tcmalloc", "0" },
		{ NULL, "libtcmalloc_minimal.so.4", "tcmalloc", "1" },
		{ "snmalloc::PALLinux::reserve", NULL, "snmalloc", "0" },
		{ "_rpmalloc_mmap_os", NULL, "rpmalloc", "0" },
		{ "rpmalloc", NULL, "rpmalloc", "1" },
		{ "rpmalloc_heap_aligned_alloc", NULL, "rpmalloc", "1" },
		/* CPython's object allocator: the interpreter's module (Debian's has no local
		 * symbols), or its arena function where it is named (since 0.2.49) */
		{ NULL, "python3.11", "pymalloc", "1" },
		{ NULL, "libpython3.12.so.1.0", "pymalloc", "1" },
		{ "_PyObject_ArenaMmap", NULL, "pymalloc", "1" },
		{ "_PyMem_ArenaAlloc", NULL, "pymalloc", "1" }, /* CPython 3.12 and later */
		{ "_PyObject_ArenaMmap", "embedapp", "pymalloc", "1" },
	};
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		bool entry = false;
		const char *got = ckt_sites_allocator_name(yes[i][0], yes[i][1], &entry);
		if (!got || strcmp(got, yes[i][2]) != 0 || entry != (yes[i][3][0] == '1'))
			fail_msg("'%s' in '%s': %s (way in: %d), want %s (%s)", yes[i][0] ? yes[i][0] : "(null)",
				 yes[i][1] ? yes[i][1] : "(null)", got ? got : "none", entry, yes[i][2], yes[i][3]);
	}
	/* glibc's allocator and the program's own functions are none */
	static const char *const no[][2] = {
		{ "malloc", "libc.so.6" }, { "sysmalloc", "libc.so.6" }, { "new_heap", "libc.so.6" },
		{ "mmap64", "libc.so.6" }, { "main", "prover" }, { "jemalloc_stats", "prover" },
		{ "minimize", "prover" }, { "alloc::alloc::alloc", "prover" }, { NULL, NULL },
		{ "tcmalloc", "prover" }, { NULL, "libmim.so" }, { NULL, "python2.7" }, { NULL, "python3x" },
		{ "main", "python3.11" }, { "new_mmap_object", "libpython3.11.so.1.0" },
		{ "PyObject_Malloc", "_multiarray_umath.cpython-311-x86_64-linux-gnu.so" },
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (ckt_sites_allocator_name(no[i][0], no[i][1], NULL))
			fail_msg("'%s' in '%s' taken for an allocator's", no[i][0] ? no[i][0] : "(null)",
				 no[i][1] ? no[i][1] : "(null)");
}

static void test_aggregation(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_sites_entry e;
	build(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	assert_int_equal(st.peak_heap.bytes, 620);

	assert_true(ckt_sites_top(s, CKT_AT_PEAK_HEAP, 0, &e));
	assert_string_equal(e.site, "0x1000");
	assert_int_equal(e.bytes, 500);
	assert_int_equal(e.count, 2);
	assert_string_equal(e.frames[0], "0x1000");
	assert_string_equal(e.frames[1], "0x2000"); /* the larger stack: 300 bytes */
	assert_top(s, CKT_AT_PEAK_HEAP, 1, "0x7000", 70, -1);
	assert_top(s, CKT_AT_PEAK_HEAP, 2, "0x5000", 50, -1);
	assert_false(ckt_sites_top(s, CKT_AT_PEAK_HEAP, 3, &e));

	/* peak RSS: 0x1000 lost stack 2's 200; 0x5000 gained a mapping */
	assert_true(ckt_sites_top(s, CKT_AT_PEAK_RSS, 0, &e));
	assert_string_equal(e.site, "0x5000");
	assert_int_equal(e.bytes, 8242);
	assert_int_equal(e.count, 2);
	assert_top(s, CKT_AT_PEAK_RSS, 1, "0x1000", 300, 1);

	/* live at exit, heap only: stack 3's mapping is not in 0x5000's 50; stack 2's block is
	 * gone, so 0x1000's one stack left shows */
	assert_int_equal(st.heap_bytes, 420);
	assert_true(ckt_sites_top(s, CKT_SITES_EXIT, 0, &e));
	assert_string_equal(e.site, "0x1000");
	assert_int_equal(e.bytes, 300);
	assert_int_equal(e.count, 1);
	assert_int_equal(e.stacks, 1);
	assert_top(s, CKT_SITES_EXIT, 1, "0x7000", 70, -1);
	assert_top(s, CKT_SITES_EXIT, 2, "0x5000", 50, 1);
	assert_false(ckt_sites_top(s, CKT_SITES_EXIT, 3, &e));
	ckt_sites_free(s);
	tb_release(&b);
}

static char *write_to_string(struct ckt_sites *s, int (*fn)(const struct ckt_sites *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(s, f), 0);
	fclose(f);
	return buf;
}

static void test_csv_and_folded(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	build(&b);
	struct ckt_sites *s = run_sites(&b, true, &st);
	char *csv = write_to_string(s, ckt_sites_write_csv);
	assert_string_equal(csv,
		"site,bytes_at_peak_rss,bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,"
		"bytes_at_peak_gpu,stack,bytes_at_exit,estimated,gpu_allocated_bytes,gpu_allocations,"
		"temporary_allocations\n"
		"\"0x5000\",8242,50,8242,8242,2,0,\"0x5000 <- 0x2000\",50,0,0,0,0\n"
		"\"0x1000\",300,500,500,500,2,0,\"0x1000 <- 0x2000\",300,0,0,0,0\n"
		"\"0x7000\",70,70,70,70,1,0,\"0x7000\",70,0,0,0,0\n"
		"\"0x6000\",0,0,100,100,1,0,\"0x6000\",0,0,0,0,1\n"); /* 0x6000's block freed at once */
	free(csv);
	char *folded = write_to_string(s, ckt_sites_write_folded);
	assert_string_equal(folded,
		"0x2000;0x1000 300\n"
		"0x2000;0x5000 8242\n"
		"0x7000 70\n");
	free(folded);
	ckt_sites_free(s);
	tb_release(&b);
}

/* A trace begun with stack 1 (one frame, 0x1000) and stack 2 (0x2000), thread 1's group open */
static void begin_two_stacks(struct tb *b)
{
	static const uint64_t s1[] = { 0x1000 }, s2[] = { 0x2000 };
	tb_begin(b);
	tb_stack(b, 1, s1, 1);
	tb_stack(b, 2, s2, 1);
	tb_thread(b, 1);
}

/* A site's own peak when its stack's first change is a run that allocates and frees below the
 * heap peak (a realloc's new block freed by the next event): the run rose by 300 though it
 * adds nothing; it read 0. The trace has no RSS sample: bytes_at_peak_rss is empty. The
 * 5000 bytes, freed at once, are the peak heap: no temporary (since 0.2.38; the 300 are). */
static void test_own_peak_of_a_run(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	begin_two_stacks(&b);
	tb_alloc_ex(&b, 10, 0x10000, 5000, CKT_FN_MALLOC, 1, 0);
	tb_free(&b, 20, 0x10000);
	tb_alloc_ex(&b, 30, 0x20000, 300, CKT_FN_MALLOC, 2, 0);
	tb_free(&b, 40, 0x20000);
	tb_sync(&b, 50);
	tb_end(&b, 60, CKT_END_EXIT, 4, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, true, &st);
	char *csv = write_to_string(s, ckt_sites_write_csv);
	assert_non_null(strstr(csv, "\n\"0x2000\",,0,300,300,1,0,\"0x2000\",0,0,0,0,1\n"));
	assert_non_null(strstr(csv, "\n\"0x1000\",,5000,5000,5000,1,0,\"0x1000\",0,0,0,0,0\n"));
	free(csv);
	ckt_sites_free(s);
	tb_release(&b);
}

/* A stack's RSS counters are its heap's until it maps memory of its own (since 0.2.48 they are
 * one set of counters until then): stack 1 allocates, maps 8 KiB, allocates again (counted in
 * both), unmaps and allocates 1000 more; stack 2 only allocates. Peak RSS at the 1 MiB sample
 * (t=40), peak heap at t=60. */
static void test_rss_parts_from_heap(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_sites_entry e;
	begin_two_stacks(&b);
	tb_alloc_ex(&b, 10, 0x10000, 100, CKT_FN_MALLOC, 1, 0);
	tb_alloc_ex(&b, 15, 0x18000, 30, CKT_FN_MALLOC, 2, 0);
	mmap_anon_stack(&b, 20, 0x700000, 8192, 1);
	tb_alloc_ex(&b, 30, 0x20000, 50, CKT_FN_MALLOC, 1, 0);
	tb_rss(&b, 40, 1 << 20);
	tb_munmap(&b, 50, 0x700000, 8192);
	tb_alloc_ex(&b, 60, 0x30000, 1000, CKT_FN_MALLOC, 1, 0);
	tb_free(&b, 65, 0x18000);
	tb_rss(&b, 70, 1 << 19);
	tb_sync(&b, 80);
	tb_end(&b, 90, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, true, &st);
	assert_int_equal(st.peak_heap.bytes, 1180);
	assert_top(s, CKT_AT_PEAK_HEAP, 0, "0x1000", 1150, 3);
	assert_top(s, CKT_AT_PEAK_HEAP, 1, "0x2000", 30, 1);
	assert_false(ckt_sites_top(s, CKT_AT_PEAK_HEAP, 2, &e));
	assert_top(s, CKT_AT_PEAK_RSS, 0, "0x1000", 100 + 8192 + 50, 3);
	assert_top(s, CKT_AT_PEAK_RSS, 1, "0x2000", 30, 1);
	assert_false(ckt_sites_top(s, CKT_AT_PEAK_RSS, 2, &e));
	assert_top(s, CKT_SITES_EXIT, 0, "0x1000", 1150, 3);
	assert_false(ckt_sites_top(s, CKT_SITES_EXIT, 1, &e));
	char *csv = write_to_string(s, ckt_sites_write_csv);
	assert_non_null(strstr(csv, "\n\"0x1000\",8342,1150,8342,9342,4,0,\"0x1000\",1150,0,0,0,0\n"));
	assert_non_null(strstr(csv, "\n\"0x2000\",30,30,30,30,1,0,\"0x2000\",0,0,0,0,0\n"));
	free(csv);
	ckt_sites_free(s);
	tb_release(&b);
}

/* 3,000 stacks, one site each (so past the 2,048 that turn the replay's prefetch hint on):
 * stack i allocates i bytes, odd stacks on thread 1 and even ones on thread 2 in one frame,
 * each thread's queue far deeper than the hint's distance; every third block is freed after
 * the peak. Every figure is the one-by-one count. */
static void test_many_stacks(void **state)
{
	(void)state;
	enum { N = 3000 };
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_sites_entry e;
	tb_begin(&b);
	for (uint64_t i = 1; i <= N; i++) {
		uint64_t f = 0x100000 + i * 16;
		tb_stack(&b, i, &f, 1);
	}
	for (uint64_t t = 1; t <= 2; t++) {
		tb_thread(&b, t);
		for (uint64_t i = t; i <= N; i += 2)
			tb_alloc_ex(&b, 10 + i, 0x10000000 + i * 0x1000, i, CKT_FN_MALLOC, i, 0);
		for (uint64_t i = t; i <= N; i += 2)
			if (i % 3 == 0)
				tb_free(&b, 10 + N + i, 0x10000000 + i * 0x1000);
	}
	tb_sync(&b, 20 + 2 * N);
	tb_end(&b, 30 + 2 * N, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, true, &st);
	uint64_t all = (uint64_t)N * (N + 1) / 2, thirds = 3 * ((uint64_t)(N / 3) * (N / 3 + 1) / 2);
	assert_int_equal(st.peak_heap.bytes, all);
	assert_int_equal(st.heap_bytes, all - thirds);
	char site[32];
	for (size_t k = 0; k < 3; k++) {
		uint64_t i = N - k;
		assert_true(ckt_sites_top(s, CKT_AT_PEAK_HEAP, k, &e));
		snprintf(site, sizeof(site), "0x%" PRIx64, 0x100000 + i * 16);
		assert_string_equal(e.site, site);
		assert_int_equal(e.bytes, i);
		assert_int_equal(e.count, 1);
	}
	/* at exit: 3000 and 2997 are gone */
	assert_top(s, CKT_SITES_EXIT, 0, "0x10bb70", 2999, 1);
	assert_top(s, CKT_SITES_EXIT, 1, "0x10bb60", 2998, 1);
	assert_top(s, CKT_SITES_EXIT, 2, "0x10bb40", 2996, 1);
	char *csv = write_to_string(s, ckt_sites_write_csv);
	size_t rows = 0;
	for (const char *c = csv; (c = strchr(c, '\n')); c++)
		rows++;
	assert_int_equal(rows, N + 1);
	assert_non_null(strstr(csv, "\n\"0x10bb50\",,2997,2997,2997,1,0,\"0x10bb50\",0,0,0,0,0\n"));
	free(csv);
	ckt_sites_free(s);
	tb_release(&b);
}

static char *text_of(const struct ckt_sites *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	ckt_sites_print_text(f, s, false);
	fclose(f);
	return buf;
}

/* The list of what is live at the end: "at exit" after an END record, "at cut" without one;
 * in the default mode, heap that no sample stands for is said to be there. */
static void test_live_at_exit_text(void **state)
{
	(void)state;
	static const uint64_t s1[] = { 0x1000 };
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin_sampled(&b, TB_VERSION);
	tb_thread(&b, 1);
	tb_agg(&b, 10, 5000, 5);
	tb_sync(&b, 20);
	tb_end(&b, 30, CKT_END_EXIT, 1, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	char *text = text_of(s);
	/* the peak heap's list, as exit's, says none sampled (since 0.2.26: "none") */
	assert_string_equal(text, "top sites at peak heap: none sampled (4.88 KiB of heap in blocks under the "
				  "default mode's sampling rate; CUZKTRACE_SAMPLE=0 records every block)\n\n"
				  "top sites at peak RSS: no RSS samples in the trace\n\n"
				  "top sites live at exit: none sampled (4.88 KiB of heap in blocks under the default "
				  "mode's sampling rate; CUZKTRACE_SAMPLE=0 records every block)\n\n"
				  "top sites by allocations: none sampled (blocks under the default mode's sampling rate "
				  "count here only through samples; CUZKTRACE_SAMPLE=0 records every block)\n\n"
				  "top sites by temporary allocations: not counted in the default mode "
				  "(CUZKTRACE_SAMPLE=0 counts them)\n\n");
	free(text);
	ckt_sites_free(s);
	tb_release(&b);

	tb_begin(&b);
	tb_stack(&b, 1, s1, 1);
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 10, 0x10000, 3000, CKT_FN_MALLOC, 1, 0);
	tb_alloc_ex(&b, 20, 0x20000, 1000, CKT_FN_MALLOC, 1, 0);
	tb_free(&b, 30, 0x10000);
	tb_sync(&b, 40);
	tb_flush(&b);
	s = run_sites(&b, false, &st);
	text = text_of(s);
	assert_non_null(strstr(text, "top sites live at cut (heap 1000 B at 0.000000 s; 1 of 1 site)\n"
				     "  #1  1000 B (1000 bytes), 100.0% of the heap then, 1 allocation live\n"
				     "      0x1000\n"));
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* The text's lines for a site: the site and at most three callers, and, the first time a frame
 * in no module shows, one line that names the first such frame shown (here the site itself;
 * its callers are in no module too) and says what it is, once in the whole report. */
static void test_text_frames(void **state)
{
	(void)state;
	static const uint64_t deep[] = { 0x1000, 0x2000, 0x3000, 0x4000, 0x5000 };
	static const uint64_t other[] = { 0x1000, 0x2000, 0x3000, 0x6000 }, one[] = { 0x7000, 0x2000 };
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_stack(&b, 1, deep, 5);
	tb_stack(&b, 2, other, 4);
	tb_stack(&b, 3, one, 2);
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 10, 0x100000, 3000, CKT_FN_MALLOC, 1, 0);
	tb_alloc_ex(&b, 11, 0x200000, 1000, CKT_FN_MALLOC, 2, 0);
	tb_alloc_ex(&b, 12, 0x300000, 500, CKT_FN_MALLOC, 3, 0);
	tb_sync(&b, 20);
	tb_end(&b, 30, CKT_END_EXIT, 1, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	char *text = text_of(s);
	assert_string_equal(text,
		"top sites at peak heap (4.39 KiB at 0.000000 s; 2 of 2 sites)\n"
		"  #1  3.91 KiB (4000 bytes), 88.9% of the peak, 2 allocations live\n"
		"      0x1000\n"
		"      <- 0x2000  [3.91 KiB]\n"
		"      <- 0x3000  [3.91 KiB]\n"
		"      <- 0x4000  [2.93 KiB]\n"
		"      (0x1000 lies in no module the trace knows: code generated while the program ran, a "
		"JIT's (the JVM's, Node.js's V8) or a trampoline, which no symbol names; the named frames "
		"around it say which runtime ran it)\n"
		"      (2 call stacks in all; [bytes] through each caller; --folded has every stack)\n"
		"  #2  500 B (500 bytes), 11.1% of the peak, 1 allocation live\n"
		"      0x7000\n"
		"      <- 0x2000\n"
		"\n"
		"top sites at peak RSS: no RSS samples in the trace\n"
		"\n"
		"top sites live at exit (heap 4.39 KiB at 0.000000 s; 2 of 2 sites)\n"
		"  #1  3.91 KiB (4000 bytes), 88.9% of the heap then, 2 allocations live\n"
		"      0x1000\n"
		"      <- 0x2000  [3.91 KiB]\n"
		"      <- 0x3000  [3.91 KiB]\n"
		"      <- 0x4000  [2.93 KiB]\n"
		"      (2 call stacks in all; [bytes] through each caller; --folded has every stack)\n"
		"  #2  500 B (500 bytes), 11.1% of the heap then, 1 allocation live\n"
		"      0x7000\n"
		"      <- 0x2000\n"
		"\n"
		"top sites by allocations (2 of 2 sites; 3 allocations in all)\n"
		"  #1  2 allocations, 66.7% of all, 3.91 KiB (4000 bytes) allocated\n"
		"      0x1000\n"
		"      <- 0x2000\n"
		"      <- 0x3000\n"
		"      <- 0x4000\n"
		"  #2  1 allocation, 33.3% of all, 500 B (500 bytes) allocated\n"
		"      0x7000\n"
		"      <- 0x2000\n"
		"\n"
		"top sites by temporary allocations: none\n"
		"\n");
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* The default mode with no sample live: a 1 MiB block recorded with its site, `small` bytes
 * of small blocks in running totals only (`blocks` of them); the rest at the peak heap in *r */
static struct ckt_sites *rest_sites(struct tb *b, struct ckt_replay_stats *st, uint64_t small, uint64_t blocks,
				    struct ckt_sites_rest *r)
{
	static const uint64_t s1[] = { 0x1000 };
	tb_begin_sampled(b, TB_VERSION);
	tb_stack(b, 1, s1, 1);
	tb_thread(b, 1);
	tb_alloc_ex(b, 10, 0x100000, 1 << 20, CKT_FN_MALLOC, 1, 0);
	tb_agg(b, 20, small, blocks);
	tb_sync(b, 30);
	tb_end(b, 40, CKT_END_EXIT, 2, 0);
	tb_flush(b);
	struct ckt_sites *s = run_sites(b, false, st);
	ckt_sites_rest(s, CKT_AT_PEAK_HEAP, r);
	return s;
}

/* What a list leaves out (since 0.2.26), with 62,400 bytes of small blocks: the shortfall is
 * those bytes, and its error sqrt(R x 62,400) (R x sqrt(samples) said +-0 B). */
static void test_rest_without_samples(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_sites_rest r;
	struct ckt_sites *s = rest_sites(&b, &st, 62400, 624, &r);
	assert_int_equal(st.peak_heap.bytes, (1 << 20) + 62400);
	assert_int_equal(r.other_sites, 0);
	assert_true(r.has_unattributed);
	assert_int_equal(r.unattributed, 62400);
	assert_int_equal(r.error_bytes, 180874); /* sqrt(524288 x 62400) = 180874.46 */
	char *text = text_of(s);
	assert_non_null(strstr(text, "\n  in no site's estimate: 60.9 KiB (62400 bytes), 5.6% of the peak, small blocks "
				     "(sampling error of the sites' sum: about +-177 KiB)\n\n"));
	/* the list by allocations: the default mode's, with no sample: an estimate that says
	 * what it misses (it read "1 allocation in all", exact) */
	assert_non_null(strstr(text, "top sites by allocations (1 of 1 site; 1 allocation in all, estimated from samples, "
				     "+-0)\n  (small blocks count only through their samples: a site none of whose calls "
				     "was sampled is missing, and the error does not cover it, nor a site's calls of "
				     "sizes none of which was sampled; CUZKTRACE_SAMPLE=0 counts every call)\n"));
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* A shortfall past three times its error (5 MiB of small blocks, no sample: +-1.58 MiB) says
 * what it most likely is (since 0.2.44): the usable bytes past the sizes asked for, which the
 * heap counts and no site estimates, not the samples' chance */
static void test_rest_past_error(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_sites_rest r;
	struct ckt_sites *s = rest_sites(&b, &st, 5242880, 50000, &r);
	assert_int_equal(r.unattributed, 5242880);
	assert_int_equal(r.error_bytes, 1657944); /* sqrt(524288 x 5242880) = 1657944.23 */
	char *text = text_of(s);
	assert_non_null(strstr(text, "\n  in no site's estimate: 5.00 MiB (5242880 bytes), 83.3% of the peak, small blocks "
				     "(sampling error of the sites' sum: about +-1.58 MiB; past it, most likely the usable "
				     "bytes the heap counts beyond the sizes asked for, which no site estimates)\n\n"));
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* the default mode's list by allocations for a program that made no block: none, not "none
 * sampled" (no running totals came) */
static void test_calls_none(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin_sampled(&b, TB_VERSION);
	tb_thread(&b, 1);
	tb_sync(&b, 30);
	tb_end(&b, 40, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	char *text = text_of(s);
	assert_non_null(strstr(text, "\ntop sites by allocations: none\n\n"));
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* Temporaries: a block freed by its thread before that thread allocated anything else. Thread
 * 1: A freed at once (yes); B then C allocated, B freed (no: C came after it), C freed (yes);
 * D grown by realloc into E (a realloc is no free: D no), E freed (yes); F allocated, freed by
 * thread 2 (no: not thread 2's). Thread 2 allocates G, freed by thread 1 (no). Thread 1
 * allocates H, thread 2 frees it and allocates again at its address (H2), thread 1 frees H2:
 * thread 1's last allocation was at that address, but the block there is thread 2's (no).
 * Thread 3 allocates J and ends; the next thread with its id frees J first thing (no: a
 * handoff between two threads). One stack per block: 1 A G, 2 B H, 3 C H2, 4 D J, 5 E, 6 F. */
static void test_temporaries(void **state)
{
	(void)state;
	static const uint64_t f[7][1] = { { 0x1000 }, { 0x2000 }, { 0x3000 }, { 0x4000 }, { 0x5000 }, { 0x6000 },
					  { 0x7000 } };
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	for (int i = 0; i < 7; i++)
		tb_stack(&b, (uint64_t)i + 1, f[i], 1);
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 10, 0x10000, 100, CKT_FN_MALLOC, 1, 0); /* A */
	tb_free(&b, 11, 0x10000);
	tb_alloc_ex(&b, 12, 0x20000, 200, CKT_FN_MALLOC, 2, 0); /* B */
	tb_alloc_ex(&b, 13, 0x30000, 300, CKT_FN_MALLOC, 3, 0); /* C */
	tb_free(&b, 14, 0x20000);
	tb_free(&b, 15, 0x30000);
	tb_alloc_ex(&b, 16, 0x40000, 40, CKT_FN_MALLOC, 4, 0);   /* D */
	tb_realloc_ex(&b, 17, 0x40000, 0, 0x50000, 5000, 5);    /* E */
	tb_free(&b, 18, 0x50000);
	tb_alloc_ex(&b, 19, 0x60000, 60, CKT_FN_MALLOC, 6, 0);  /* F */
	tb_thread(&b, 2);
	tb_free(&b, 20, 0x60000);
	tb_alloc_ex(&b, 21, 0x70000, 100, CKT_FN_MALLOC, 1, 0); /* G */
	tb_thread(&b, 1);
	tb_free(&b, 22, 0x70000);
	tb_alloc_ex(&b, 23, 0x80000, 80, CKT_FN_MALLOC, 2, 0);  /* H */
	tb_thread(&b, 2);
	tb_free(&b, 24, 0x80000);
	tb_alloc_ex(&b, 25, 0x80000, 300, CKT_FN_MALLOC, 3, 0); /* H2 */
	tb_thread(&b, 1);
	tb_free(&b, 26, 0x80000);
	/* thread 3 allocates J and ends; the next thread 3 frees J as its first act: a handoff
	 * between two threads of one id, no temporary */
	tb_thread(&b, 3);
	tb_alloc_ex(&b, 27, 0x90000, 90, CKT_FN_MALLOC, 4, 0); /* J */
	tb_sync(&b, 28);
	tb_thread_exit(&b, 27, 3);
	tb_thread(&b, 3);
	tb_free(&b, 29, 0x90000);
	/* a later peak heap (thread 4's block, kept): E, the peak of its time, was not live at
	 * it and is a temporary (it would not be, were it live at the last peak: below) */
	tb_thread(&b, 4);
	tb_alloc_ex(&b, 29, 0xa0000, 10000, CKT_FN_MALLOC, 7, 0);
	tb_sync(&b, 30);
	tb_end(&b, 40, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	assert_int_equal(st.temporary, 3);
	/* one each; ties by allocations (2, 2, 1), then bytes allocated (600 against 200) */
	static const struct { const char *site; uint64_t temps, count, bytes; } want[] = {
		{ "0x3000", 1, 2, 600 }, { "0x1000", 1, 2, 200 }, { "0x5000", 1, 1, 5000 } };
	struct ckt_sites_calls c;
	for (size_t i = 0; i < 3; i++) {
		assert_true(ckt_sites_by_temps(s, i, &c));
		assert_string_equal(c.site, want[i].site);
		assert_int_equal(c.temps, want[i].temps);
		assert_int_equal(c.count, want[i].count);
		assert_int_equal(c.bytes, want[i].bytes);
		assert_true(c.temps_known);
	}
	assert_false(ckt_sites_by_temps(s, 3, &c));
	struct ckt_sites_calls_rest r;
	ckt_sites_calls_total(s, &r);
	assert_true(r.temps_known);
	assert_int_equal(r.temps, 3);
	assert_int_equal(r.temp_sites, 3);
	assert_int_equal(r.other_temp_sites, 0);
	assert_int_equal(r.other_temps, 0);
	char *text = text_of(s);
	assert_non_null(strstr(text, "\ntop sites by temporary allocations (3 of 3 sites; 3 in all, 27.3% of 11 heap "
				     "allocations)\n  #1  1 temporary allocation, 33.3% of them; 50.0% of the site's 2 "
				     "allocations\n      0x3000\n"));
	free(text);
	ckt_sites_free(s);
	tb_release(&b);
}

/* The default mode's burst that makes the peak heap (format version 8, by the real encoder):
 * worker 2 sends its total at 2 ms (the peak: 65,000 bytes), then takes a sample of 200 bytes
 * (stack 1) 100 ns later, and idles; its last total, 30,000 bytes made then, goes out late at
 * 50 ms and counts at the peak, which keeps its moment (held: the heap did not move between).
 * The sample stands for bytes the peak holds: since 0.2.37 it counts at the peak too, where
 * before its site read nothing there (stamped after the peak's moment). Worker 3's sample of
 * 100 bytes (stack 2), taken before the peak, counts as always; its later free, gone before
 * any total carried it, is another matter: worker 4's sample after the peak, freed before its
 * own late total, does not count there. */
static void test_late_samples_at_peak(void **state)
{
	(void)state;
	static uint8_t buf[1 << 16];
	const uint64_t ms = 1000000;
	struct tb b;
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e);
	tb_init(&b);
	static const char *const kv[] = { "page_size", "4096", "setting.CUZKTRACE_SAMPLE", "524288", NULL };
	enc_header(&b, buf, sizeof(buf), kv);

	uint8_t *p = buf;
	ckt_record_frame(&e, &p, 0, 0);
	p = ckt_record_phase_def(p, 1, "burst");
	static const uint64_t f1[] = { 0x1000 }, f2[] = { 0x2000 }, f3[] = { 0x3000 };
	ckt_record_stack(&p, 1, f1, 1);
	ckt_record_stack(&p, 2, f2, 1);
	ckt_record_stack(&p, 3, f3, 1);
	ckt_record_thread(&e, &p, 1);
	enc1(&e, &p, slot(CKT_EV_PHASE, CKT_PHASE_BEGIN, ms / 2, 1, 0, 0, 0));
	ckt_record_thread(&e, &p, 3);
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 1 * ms, 1000, 10, 0, 0));
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, 1 * ms + 100, 0x30000, 100, 2, 1));
	ckt_record_thread(&e, &p, 2);
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 2 * ms, 64000, 640, 0, 0)); /* the peak */
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, 2 * ms + 100, 0x20000, 200, 1, 1));
	ckt_record_thread(&e, &p, 4);
	enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, 2 * ms + 200, 0x40000, 300, 3, 1));
	enc1(&e, &p, slot(CKT_EV_FREE, 0, 2 * ms + 300, 0x40000, 0, 0, 0));
	ckt_record_sync(&p, 3 * ms);
	put_frame(&b, &e, buf, (size_t)(p - buf));

	p = buf;
	ckt_record_frame(&e, &p, 1, 40 * ms);
	/* the late totals, changed 200 ns and 400 ns after the peak (since: microseconds in the
	 * slot, 47,999 and 49,999 of them) */
	ckt_record_thread(&e, &p, 2);
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 50 * ms, 30000, 300, 47999, 0));
	ckt_record_thread(&e, &p, 4);
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 52 * ms, 2000, 20, 49999, 0));
	ckt_record_sync(&p, 60 * ms);
	ckt_record_end(&p, 70 * ms, CKT_END_EXIT, 8, 0);
	put_frame(&b, &e, buf, (size_t)(p - buf));
	free(cols);

	/* the sites, and the phases by thread too */
	char path[64];
	struct ckt_error err = { 0 };
	struct ckt_decoder *d = NULL;
	tb_write(&b, path);
	assert_int_equal(ckt_decode_open(path, &d, &err), 0);
	struct ckt_replay *r = ckt_replay_new(4096);
	struct ckt_sites *s = ckt_sites_new(false);
	struct ckt_phases *ph = ckt_phases_new();
	assert_non_null(r);
	assert_non_null(s);
	assert_non_null(ph);
	assert_int_equal(ckt_sites_attach(s, r), 0);
	assert_int_equal(ckt_phases_attach(ph, r), 0);
	ckt_phases_set_by_thread(ph, true);
	ckt_replay_set_sample(r, 524288);
	ckt_replay_set_thread_gens(r, true);
	assert_int_equal(ckt_replay_run(d, r, &err), 0);
	struct ckt_replay_stats st = *ckt_replay_stats(r);
	assert_int_equal(ckt_sites_finish(s, &st, 10), 0);
	assert_int_equal(ckt_phases_finish(ph, st.duration_ns), 0);
	unlink(path);

	struct ckt_sites_entry x;
	assert_int_equal(st.peak_heap.bytes, 97000);
	assert_int_equal(st.peak_heap.ts, 2 * ms);
	assert_int_equal(st.agg_late_kept, 2);
	assert_int_equal(st.late_samples_at_peak, 1);
	/* each sample stands for size / (1 - exp(-size / 524288)) bytes, rounded */
	assert_top(s, CKT_AT_PEAK_HEAP, 0, "0x1000", 524388, -1);
	assert_top(s, CKT_AT_PEAK_HEAP, 1, "0x2000", 524338, -1);
	assert_false(ckt_sites_top(s, CKT_AT_PEAK_HEAP, 2, &x));
	/* phase burst holds both at the peak, two samples' worth; so do the threads (unnamed:
	 * one group) */
	const struct ckt_phases_share *sh;
	assert_int_equal(ckt_phases_by_phase(ph, CKT_AT_PEAK_HEAP, &sh), 1);
	assert_string_equal(sh[0].name, "burst");
	assert_int_equal(sh[0].bytes, 524388 + 524338);
	assert_int_equal(sh[0].samples, 2);
	const struct ckt_phases_group *g;
	assert_int_equal(ckt_phases_groups(ph, &g), 1);
	assert_int_equal(g[0].at_peak_heap, 524388 + 524338);
	assert_int_equal(g[0].samples_at_peak_heap, 2);
	ckt_phases_free(ph);
	ckt_sites_free(s);
	ckt_replay_free(r);
	ckt_decode_close(d);
	tb_release(&b);
}

/* A sample stands for weight x size bytes, a fraction in general: 4,000 samples of 3 bytes at
 * CUZKTRACE_SAMPLE=25 (a weight of 8.8433, 26.530 bytes each) must add up to 4,000 times that,
 * within what rounding each one at random allows (a standard deviation of 32 bytes here). Each
 * rounded to the nearest read 27 bytes: 108,000 for 106,120, 1.8% high, in every run. */
static void test_sample_rounding_unbiased(void **state)
{
	(void)state;
	static uint8_t buf[1 << 17];
	const uint64_t ms = 1000000, n = 4000;
	struct tb b;
	struct ckt_enc e;
	uint8_t *cols = enc_init(&e);
	tb_init(&b);
	static const char *const kv[] = { "page_size", "4096", "setting.CUZKTRACE_SAMPLE", "25", NULL };
	enc_header(&b, buf, sizeof(buf), kv);

	uint8_t *p = buf;
	ckt_record_frame(&e, &p, 0, 0);
	static const uint64_t f1[] = { 0x1000 };
	ckt_record_stack(&p, 1, f1, 1);
	ckt_record_thread(&e, &p, 1);
	for (uint64_t i = 0; i < n; i++)
		enc1(&e, &p, slot(CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, ms + 100 * i, 0x7f0000100000 + 32 * i, 3, 1, 0));
	enc1(&e, &p, slot(CKT_EV_AGG, 0, 2 * ms, 96000, 4000, 0, 0)); /* the peak */
	ckt_record_sync(&p, 3 * ms);
	ckt_record_end(&p, 4 * ms, CKT_END_EXIT, 8, 0);
	put_frame(&b, &e, buf, (size_t)(p - buf));
	free(cols);

	struct ckt_replay_stats st;
	struct ckt_sites *s = run_sites(&b, false, &st);
	assert_int_equal(st.peak_heap.bytes, 96000);
	struct ckt_sites_entry x;
	assert_true(ckt_sites_top(s, CKT_AT_PEAK_HEAP, 0, &x));
	assert_string_equal(x.site, "0x1000");
	double truth = (double)n * 3.0 / -expm1(-3.0 / 25.0);
	if (fabs((double)x.bytes - truth) > 320) /* ten standard deviations */
		fail_msg("%" PRIu64 " bytes estimated for %.1f", x.bytes, truth);
	ckt_sites_free(s);
	tb_release(&b);
}

/* Folded lines of frames that print alike: three modules whose paths are left unread
 * (/nonexistent/) and whose names differ only where the folded output writes '?' (a ';', which
 * separates frames there, and a control byte) beside one with a real '?': four distinct frames
 * and sites, one folded line holding the bytes of all four. A stack holding nothing at the
 * moment (its block freed before the peak heap) gets no line. */
static void test_folded_alike(void **state)
{
	(void)state;
	static const char *const paths[] = { "/nonexistent/x;y", "/nonexistent/x?y", "/nonexistent/x\001y",
					     "/nonexistent/x\ny" };
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	for (uint64_t m = 0; m < 4; m++)
		tb_module(&b, 0x10000000 * (m + 1), 0x10000000 * (m + 1), 0x10000000 * (m + 1) + 0x1000, paths[m], "");
	for (uint64_t m = 0; m < 4; m++) {
		const uint64_t f[] = { 0x10000000 * (m + 1) + 0x10, 0x9000 };
		tb_stack(&b, m + 1, f, 2);
	}
	static const uint64_t gone[] = { 0x8000, 0x9000 };
	tb_stack(&b, 5, gone, 2);
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 10, 0x100000, 50, CKT_FN_MALLOC, 5, 0);
	tb_free(&b, 20, 0x100000);
	for (uint64_t m = 0; m < 4; m++)
		tb_alloc_ex(&b, 30 + 10 * m, 0x200000 + 0x10000 * m, 100 << m, CKT_FN_MALLOC, m + 1, 0);
	tb_sync(&b, 100);
	tb_flush(&b);
	struct ckt_sites *s = run_sites(&b, false, &st);
	assert_int_equal(st.peak_heap.bytes, 1500);
	char *folded = write_to_string(s, ckt_sites_write_folded_heap);
	assert_string_equal(folded, "0x9000;x?y+0x10 1500\n");
	free(folded);
	char *csv = write_to_string(s, ckt_sites_write_csv);
	assert_string_equal(csv,
		"site,bytes_at_peak_rss,bytes_at_peak_heap,site_peak_bytes,allocated_bytes,allocations,"
		"bytes_at_peak_gpu,stack,bytes_at_exit,estimated,gpu_allocated_bytes,gpu_allocations,"
		"temporary_allocations\n"
		"\"x?y+0x10\",,800,0,800,1,0,\"x?y+0x10 <- 0x9000\",800,0,0,0,0\n"
		"\"x?y+0x10\",,400,0,400,1,0,\"x?y+0x10 <- 0x9000\",400,0,0,0,0\n"
		"\"x?y+0x10\",,200,0,200,1,0,\"x?y+0x10 <- 0x9000\",200,0,0,0,0\n"
		"\"x;y+0x10\",,100,0,100,1,0,\"x;y+0x10 <- 0x9000\",100,0,0,0,0\n"
		"\"0x8000\",,0,0,50,1,0,\"0x8000 <- 0x9000\",0,0,0,0,1\n");
	free(csv);
	ckt_sites_free(s);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plumbing_rule),
		cmocka_unit_test(test_allocator_rule),
		cmocka_unit_test(test_aggregation),
		cmocka_unit_test(test_csv_and_folded),
		cmocka_unit_test(test_live_at_exit_text),
		cmocka_unit_test(test_text_frames),
		cmocka_unit_test(test_rest_without_samples),
		cmocka_unit_test(test_rest_past_error),
		cmocka_unit_test(test_calls_none),
		cmocka_unit_test(test_own_peak_of_a_run),
		cmocka_unit_test(test_rss_parts_from_heap),
		cmocka_unit_test(test_temporaries),
		cmocka_unit_test(test_late_samples_at_peak),
		cmocka_unit_test(test_many_stacks),
		cmocka_unit_test(test_sample_rounding_unbiased),
		cmocka_unit_test(test_folded_alike),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
