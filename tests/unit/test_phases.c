/* test_phases.c: reader/phases.c on hand-built traces: per-thread push stacks and the
 * process-wide counted set, the phases active at a peak (oldest activation first), live bytes
 * by allocating phase at the peaks, a block freed in another phase, per-phase active time,
 * thread-name grouping, notes, --phase-rule decisions and the sample chain (--phases-csv).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "phases.h"
#include "trace_builder.h"

struct collected {
	char active[8][64];
	size_t n;
};

static void collect(void *ctx, const struct ckt_sample *s)
{
	struct collected *c = ctx;
	if (c->n < 8)
		snprintf(c->active[c->n++], sizeof(c->active[0]), "%s", s->active_phases);
}

/* Replays b with a phases observer (rule and csv optional); *st gets the stats. */
static unsigned run_format = CKT_FORMAT_VERSION; /* what run() tells the phases */
static uint64_t run_epoch_base; /* where run() starts the replay's epoch counts */
static bool run_by_thread;      /* run() as with --by thread: runs of changes by thread */

static struct ckt_phases *run(const struct tb *b, struct ckt_replay_stats *st, ckt_phases_rule_fn *rule,
			      const char *csv, struct collected *coll)
{
	char path[64];
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	tb_write(b, path);
	assert_int_equal(ckt_decode_open(path, &d, &err), 0);
	struct ckt_replay *r = ckt_replay_new(4096);
	struct ckt_phases *p = ckt_phases_new();
	assert_non_null(r);
	assert_non_null(p);
	/* the default mode's rate, as the report takes it from the header */
	const char *rate = ckt_decode_header_get(d, "setting.CUZKTRACE_SAMPLE");
	if (rate)
		ckt_replay_set_sample(r, strtoull(rate, NULL, 10));
	ckt_replay_epochs_from(r, run_epoch_base);
	assert_int_equal(ckt_phases_attach(p, r), 0);
	ckt_phases_set_format(p, run_format);
	if (run_by_thread) { /* and threads of one id told apart, as for a trace of 0.2.33 */
		ckt_phases_set_by_thread(p, true);
		ckt_replay_set_thread_gens(r, true);
	}
	if (rule)
		ckt_phases_set_rule(p, rule, NULL);
	if (csv)
		assert_int_equal(ckt_phases_csv_open(p, csv), 0);
	ckt_phases_set_next_sink(p, coll ? collect : NULL, coll);
	ckt_replay_set_sample_sink(r, ckt_phases_sample, p);
	assert_int_equal(ckt_replay_run(d, r, &err), 0);
	*st = *ckt_replay_stats(r);
	assert_int_equal(ckt_phases_csv_close(p, true), 0);
	assert_int_equal(ckt_phases_finish(p, st->duration_ns), 0);
	/* results must not depend on the replay once finished */
	ckt_replay_free(r);
	ckt_decode_close(d);
	unlink(path);
	return p;
}

static uint64_t share(const struct ckt_phases *p, enum ckt_moment m, const char *name)
{
	const struct ckt_phases_share *sh;
	size_t n = ckt_phases_by_phase(p, m, &sh);
	for (size_t i = 0; i < n; i++)
		if (strcmp(sh[i].name, name) == 0)
			return sh[i].bytes;
	return 0;
}

static const struct ckt_phases_row *row(const struct ckt_phases *p, const char *name)
{
	const struct ckt_phases_row *rows;
	size_t n = ckt_phases_table(p, &rows);
	for (size_t i = 0; i < n; i++)
		if (strcmp(rows[i].name, name) == 0)
			return &rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[4096];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return buf;
}

enum { LOAD = 1, GPU = 2, OUTER = 3, INNER = 4 };

/* Thread 1 begins "load", then "gpu", begins "load" a second time and ends it once; thread 2
 * pushes "outer" then "inner", pops "inner". The peak heap (2050 bytes at 1950) has load,
 * outer and gpu active; a block of "inner" is freed after the peak by thread 1. */
static void build_overlap(struct tb *b)
{
	tb_begin(b);
	tb_phase_def(b, LOAD, "load");
	tb_phase_def(b, GPU, "gpu");
	tb_phase_def(b, OUTER, "outer");
	tb_phase_def(b, INNER, "inner");
	tb_thread(b, 1);
	tb_phase(b, 1000, CKT_PHASE_BEGIN, LOAD);
	tb_alloc_ex(b, 1100, 0xa000, 1000, CKT_FN_MALLOC, 0, LOAD);
	tb_phase(b, 1700, CKT_PHASE_BEGIN, GPU);
	tb_alloc_ex(b, 1800, 0xd000, 500, CKT_FN_MALLOC, 0, GPU);
	tb_phase(b, 1850, CKT_PHASE_BEGIN, LOAD);
	tb_phase(b, 1900, CKT_PHASE_END, LOAD);
	tb_alloc_ex(b, 1950, 0xe000, 50, CKT_FN_MALLOC, 0, LOAD);
	tb_rss(b, 1960, 5000);
	tb_phase(b, 2000, CKT_PHASE_END, GPU);
	tb_free(b, 2100, 0xc000);
	tb_phase(b, 2300, CKT_PHASE_END, LOAD);
	tb_alloc_ex(b, 2400, 0xf000, 70, CKT_FN_MALLOC, 0, 0);
	tb_rss(b, 2450, 4000);
	tb_phase(b, 2500, CKT_PHASE_END, LOAD); /* not active any more: ignored */
	tb_phase(b, 2600, CKT_PHASE_POP, 0);    /* nothing pushed on this thread: ignored */
	tb_rss(b, 2700, 3000);
	tb_thread(b, 2);
	tb_phase(b, 1200, CKT_PHASE_PUSH, OUTER);
	tb_alloc_ex(b, 1300, 0xb000, 200, CKT_FN_MALLOC, 0, OUTER);
	tb_phase(b, 1400, CKT_PHASE_PUSH, INNER);
	tb_alloc_ex(b, 1500, 0xc000, 300, CKT_FN_MALLOC, 0, INNER);
	tb_phase(b, 1600, CKT_PHASE_POP, INNER);
	tb_phase(b, 2200, CKT_PHASE_POP, OUTER);
	tb_end(b, 3000, CKT_END_EXIT, 0, 0);
	tb_flush(b);
}

static void test_overlap_and_nesting(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct collected coll = { .n = 0 };
	char csv[64] = "/tmp/ckt_phases_csv_XXXXXX";
	int fd = mkstemp(csv);
	assert_true(fd >= 0);
	close(fd);
	build_overlap(&b);
	struct ckt_phases *p = run(&b, &st, NULL, csv, &coll);

	assert_int_equal(st.peak_heap.bytes, 2050);
	assert_int_equal(st.peak_heap.ts, 1950);
	assert_true(ckt_phases_any(p));

	const char *const *names;
	size_t na = ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names);
	assert_int_equal(na, 3);
	assert_string_equal(names[0], "load");
	assert_string_equal(names[1], "outer");
	assert_string_equal(names[2], "gpu");

	/* who owns the peak: by allocating phase, largest first */
	const struct ckt_phases_share *sh;
	size_t n = ckt_phases_by_phase(p, CKT_AT_PEAK_HEAP, &sh);
	assert_int_equal(n, 4);
	assert_string_equal(sh[0].name, "load");
	assert_int_equal(sh[0].bytes, 1050);
	assert_string_equal(sh[1].name, "gpu");
	assert_int_equal(sh[1].bytes, 500);
	assert_string_equal(sh[2].name, "inner");
	assert_int_equal(sh[2].bytes, 300);
	assert_string_equal(sh[3].name, "outer");
	assert_int_equal(sh[3].bytes, 200);
	/* the peak RSS sample came at 1960: the same split */
	assert_int_equal(share(p, CKT_AT_PEAK_RSS, "load"), 1050);
	assert_int_equal(share(p, CKT_AT_PEAK_RSS, "inner"), 300);
	na = ckt_phases_active_at(p, CKT_AT_PEAK_RSS, &names);
	assert_int_equal(na, 3);

	/* per-phase table: id order, (none) last; active time summed over the counted set */
	const struct ckt_phases_row *rows;
	n = ckt_phases_table(p, &rows);
	assert_int_equal(n, 5);
	assert_string_equal(rows[0].name, "load");
	assert_string_equal(rows[3].name, "inner");
	assert_string_equal(rows[4].name, "(none)");
	assert_false(rows[4].marked);
	assert_int_equal(row(p, "load")->active_ns, 1300);
	assert_int_equal(row(p, "gpu")->active_ns, 300);
	assert_int_equal(row(p, "outer")->active_ns, 1000);
	assert_int_equal(row(p, "inner")->active_ns, 200);
	assert_int_equal(row(p, "load")->allocated_bytes, 1050);
	assert_int_equal(row(p, "inner")->allocated_bytes, 300);
	assert_int_equal(row(p, "inner")->peak_bytes, 300);   /* freed after, by "load"'s thread */
	assert_int_equal(row(p, "inner")->at_peak_heap, 300);
	assert_int_equal(row(p, "(none)")->allocated_bytes, 70);
	assert_int_equal(row(p, "(none)")->at_peak_heap, 0);

	/* the sample chain: active phases at each RSS sample, passed on to the next sink */
	assert_int_equal(coll.n, 3);
	assert_string_equal(coll.active[0], "load+outer+gpu");
	assert_string_equal(coll.active[1], "");
	assert_string_equal(coll.active[2], "");
	/* --phases-csv: a row per phase holding bytes, one zero row when it stops */
	assert_string_equal(slurp(csv), "t_s,phase,heap_bytes,mmap_bytes,estimated\n"
					"0.000002,load,1050,0,0\n"
					"0.000002,gpu,500,0,0\n"
					"0.000002,outer,200,0,0\n"
					"0.000002,inner,300,0,0\n"
					"0.000002,(none),70,0,0\n"
					"0.000002,load,1050,0,0\n"
					"0.000002,gpu,500,0,0\n"
					"0.000002,outer,200,0,0\n"
					"0.000002,inner,0,0,0\n"
					"0.000003,(none),70,0,0\n"
					"0.000003,load,1050,0,0\n"
					"0.000003,gpu,500,0,0\n"
					"0.000003,outer,200,0,0\n");
	unlink(csv);
	ckt_phases_free(p);
	tb_release(&b);
}

/* The same trace with the epoch counts starting 3 peaks short of 2^32, and of 2^64 - 2^32: the
 * figures at the peaks do not change as the counts pass 2^32 (a 32-bit count passed through 0,
 * "no peak yet", and the shares at the peak heap read 0). */
static void test_epochs_past_2_32(void **state)
{
	(void)state;
	static const uint64_t bases[2] = { ((uint64_t)1 << 32) - 3, UINT64_MAX - ((uint64_t)1 << 32) - 3 };
	for (int k = 0; k < 2; k++) {
		struct tb b;
		struct ckt_replay_stats st;
		build_overlap(&b);
		run_epoch_base = bases[k];
		struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
		run_epoch_base = 0;
		assert_int_equal(st.peak_heap.bytes, 2050);
		const struct ckt_phases_share *sh;
		size_t n = ckt_phases_by_phase(p, CKT_AT_PEAK_HEAP, &sh);
		assert_int_equal(n, 4);
		assert_string_equal(sh[0].name, "load");
		assert_int_equal(sh[0].bytes, 1050);
		assert_int_equal(sh[3].bytes, 200);
		assert_int_equal(share(p, CKT_AT_PEAK_RSS, "inner"), 300);
		const char *const *names;
		assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), 3);
		assert_int_equal(row(p, "inner")->at_peak_heap, 300);
		assert_int_equal(row(p, "(none)")->at_peak_heap, 0);
		ckt_phases_free(p);
		tb_release(&b);
	}
}

/* A phase still active at the end counts until the trace's end; an id without PHASE_DEF is
 * named "#id"; a PHASE_DEF that comes after the events naming its id still names them. */
static void test_open_phase_and_late_names(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_start(&b, 1);
	tb_phase(&b, 100, CKT_PHASE_PUSH, 5);
	tb_alloc_ex(&b, 200, 0x1000, 64, CKT_FN_MALLOC, 0, 5);
	tb_alloc_ex(&b, 300, 0x2000, 32, CKT_FN_MALLOC, 0, 9);
	tb_phase_def(&b, 5, "prove");
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	assert_int_equal(row(p, "prove")->active_ns, 900);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "prove"), 64);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "#9"), 32);
	const char *const *names;
	assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), 1);
	assert_string_equal(names[0], "prove");
	ckt_phases_free(p);
	tb_release(&b);
}

/* Thread 1 ends "load" at 100; thread 2 begins it at begin_ts (none when 0), then again from
 * 500 to 700 (with a LOST record when lost); the peak heap is an allocation at 1000. */
static void build_end_begin(struct tb *b, uint64_t begin_ts, bool lost)
{
	tb_begin(b);
	tb_phase_def(b, LOAD, "load");
	tb_thread(b, 1);
	tb_phase(b, 100, CKT_PHASE_END, LOAD);
	tb_alloc_ex(b, 1000, 0x1000, 64, CKT_FN_MALLOC, 0, 0);
	tb_thread(b, 2);
	if (begin_ts)
		tb_phase(b, begin_ts, CKT_PHASE_BEGIN, LOAD);
	tb_phase(b, 500, CKT_PHASE_BEGIN, LOAD);
	tb_phase(b, 700, CKT_PHASE_END, LOAD);
	if (lost)
		tb_lost(b, 1);
	tb_end(b, 10000, CKT_END_EXIT, 0, 0);
	tb_flush(b);
}

/* "load" active at the peak heap or not, and for how long */
static void expect_load(const struct tb *b, unsigned format, size_t active_at_peak, uint64_t ns)
{
	struct ckt_replay_stats st;
	run_format = format;
	struct ckt_phases *p = run(b, &st, NULL, NULL, NULL);
	run_format = CKT_FORMAT_VERSION;
	assert_int_equal(st.peak_heap.ts, 1000);
	const char *const *names;
	assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), active_at_peak);
	assert_int_equal(row(p, "load")->active_ns, ns);
	ckt_phases_free(p);
}

/* Two threads end and begin "load" at one timestamp, and the merge (by thread at equal times)
 * puts the END first: the BEGIN at that instant cancels it, so the phase is not left active to
 * the end of the trace. An END whose BEGIN was lost is dropped and does not hide a later
 * BEGIN. */
/* Ends a data frame with SYNC(ts) and starts the next one at ts. */
static void next_frame(struct tb *b, uint64_t ts)
{
	tb_sync(b, ts);
	tb_flush(b);
	tb_frame(b, ts);
}

/* PHASE events that come late (the writer broke the SYNC promise): thread 2's push and pop of
 * "load" are replayed after thread 1's, the pop (ts 60) ending the phase that became active at
 * ts 100. The active time must not wrap (it read 584 years): the late end counts at the latest
 * phase event replayed (250), so "load" was active from 100 to 250. */
static void test_late_pop_no_wrap(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, LOAD, "load");
	tb_thread(&b, 1);
	tb_phase(&b, 100, CKT_PHASE_PUSH, LOAD);
	tb_alloc(&b, 101, 0x10000, 4096);
	next_frame(&b, 200);
	next_frame(&b, 300);
	tb_thread(&b, 2);
	tb_phase(&b, 50, CKT_PHASE_PUSH, LOAD);
	tb_thread(&b, 1);
	tb_phase(&b, 250, CKT_PHASE_POP, LOAD);
	next_frame(&b, 400);
	tb_thread(&b, 2);
	tb_phase(&b, 60, CKT_PHASE_POP, LOAD);
	tb_sync(&b, 500);
	tb_end(&b, 600, CKT_END_EXIT, 6, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	assert_int_equal(st.late_events, 2);
	assert_int_equal(row(p, "load")->active_ns, 150);
	ckt_phases_free(p);
	tb_release(&b);
}

/* A push and pop replayed late, both before anything else of that phase: it was active from 50
 * to 60 (10 ns), not up to the latest phase event replayed (thread 1's pop of "gpu" at 250). */
static void test_late_pair_keeps_its_time(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, LOAD, "load");
	tb_phase_def(&b, GPU, "gpu");
	tb_thread(&b, 1);
	tb_phase(&b, 100, CKT_PHASE_PUSH, GPU);
	tb_phase(&b, 250, CKT_PHASE_POP, GPU);
	next_frame(&b, 300);
	next_frame(&b, 400);
	tb_thread(&b, 2);
	tb_phase(&b, 50, CKT_PHASE_PUSH, LOAD);
	tb_phase(&b, 60, CKT_PHASE_POP, LOAD);
	tb_sync(&b, 500);
	tb_end(&b, 600, CKT_END_EXIT, 4, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	assert_int_equal(st.late_events, 2);
	assert_int_equal(row(p, "gpu")->active_ns, 150);
	assert_int_equal(row(p, "load")->active_ns, 10);
	ckt_phases_free(p);
	tb_release(&b);
}

static void test_end_before_begin(void **state)
{
	(void)state;
	struct tb b;
	build_end_begin(&b, 100, false);
	expect_load(&b, CKT_FORMAT_VERSION, 0, 200);
	tb_release(&b);
	build_end_begin(&b, 0, true);
	expect_load(&b, CKT_FORMAT_VERSION, 0, 200);
	tb_release(&b);
}

/* A trace from a tracer before 0.2.2 (format 3): BEGIN/END were stamped outside the lock that
 * counted them, so an END can sort before the BEGIN it closes by a nanosecond or more; it is
 * held against the next BEGIN (the phase never active), not dropped (active to the end). In a
 * format 4 trace (which cannot have them: 0.2.2 stamps under the lock) that END is dropped. */
static void test_end_before_begin_legacy(void **state)
{
	(void)state;
	struct tb b;
	build_end_begin(&b, 101, false);
	expect_load(&b, 3, 0, 200);
	expect_load(&b, CKT_FORMAT_VERSION, 1, 9899);
	tb_release(&b);
	/* an END whose BEGIN was lost is held 1 ms at most: a BEGIN 400 ns later is taken for the
	 * one it closed (the ambiguity of such traces), one 2 ms later opens the phase */
	build_end_begin(&b, 0, true);
	expect_load(&b, 3, 0, 0);
	tb_release(&b);
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, LOAD, "load");
	tb_thread(&b, 1);
	tb_phase(&b, 100, CKT_PHASE_END, LOAD);
	tb_phase(&b, 2000100, CKT_PHASE_BEGIN, LOAD);
	tb_alloc_ex(&b, 2500000, 0x1000, 64, CKT_FN_MALLOC, 0, LOAD);
	tb_phase(&b, 3000100, CKT_PHASE_END, LOAD);
	tb_end(&b, 5000000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	run_format = 3;
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	run_format = CKT_FORMAT_VERSION;
	assert_int_equal(row(p, "load")->active_ns, 1000000);
	const char *const *names;
	assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), 1);
	ckt_phases_free(p);
	tb_release(&b);
}

/* A format 3 trace's END with no BEGIN open is held against a BEGIN up to 1 ms (1,000,000 ns)
 * after it, that bound included: a BEGIN exactly 1 ms later is the one it closed (never
 * active), one 1 ns later opens the phase. */
static void test_legacy_window_bound(void **state)
{
	(void)state;
	static const struct { uint64_t after; size_t active; uint64_t ns; } cases[] = {
		{ 1000000, 0, 0 },
		{ 1000001, 1, 999999 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct tb b;
		struct ckt_replay_stats st;
		tb_begin(&b);
		tb_phase_def(&b, LOAD, "load");
		tb_thread(&b, 1);
		tb_phase(&b, 100, CKT_PHASE_END, LOAD);
		tb_phase(&b, 100 + cases[k].after, CKT_PHASE_BEGIN, LOAD);
		tb_alloc_ex(&b, 1500000, 0x1000, 64, CKT_FN_MALLOC, 0, LOAD);
		tb_phase(&b, 2000100, CKT_PHASE_END, LOAD);
		tb_end(&b, 5000000, CKT_END_EXIT, 0, 0);
		tb_flush(&b);
		run_format = 3;
		struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
		run_format = CKT_FORMAT_VERSION;
		const char *const *names;
		assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), cases[k].active);
		assert_int_equal(row(p, "load")->active_ns, cases[k].ns);
		ckt_phases_free(p);
		tb_release(&b);
	}
}

/* Ties: phases holding the same bytes at a peak are listed by name ("a" before "b", though "b"
 * was defined first); thread groups holding the same bytes at the peak heap by the bytes they
 * allocated, then by name ("zz" allocated 150 and comes before "aa", which allocated 100). */
static void test_ties(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, 1, "b");
	tb_phase_def(&b, 2, "a");
	tb_thread_name(&b, 5, 1, "zz");
	tb_thread_name(&b, 5, 2, "aa");
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 10, 0x1000, 50, CKT_FN_MALLOC, 0, 1);
	tb_free(&b, 20, 0x1000);
	tb_alloc_ex(&b, 30, 0x2000, 100, CKT_FN_MALLOC, 0, 1);
	tb_thread(&b, 2);
	tb_alloc_ex(&b, 40, 0x3000, 100, CKT_FN_MALLOC, 0, 2);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	run_by_thread = true;
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	run_by_thread = false;
	assert_int_equal(st.peak_heap.bytes, 200);
	const struct ckt_phases_share *sh;
	assert_int_equal(ckt_phases_by_phase(p, CKT_AT_PEAK_HEAP, &sh), 2);
	assert_string_equal(sh[0].name, "a");
	assert_int_equal(sh[0].bytes, 100);
	assert_string_equal(sh[1].name, "b");
	assert_int_equal(sh[1].bytes, 100);
	const struct ckt_phases_group *g;
	assert_int_equal(ckt_phases_groups(p, &g), 2);
	assert_string_equal(g[0].name, "zz");
	assert_int_equal(g[0].at_peak_heap, 100);
	assert_int_equal(g[0].allocated_bytes, 150);
	assert_string_equal(g[1].name, "aa");
	assert_int_equal(g[1].at_peak_heap, 100);
	assert_int_equal(g[1].allocated_bytes, 100);
	ckt_phases_free(p);
	tb_release(&b);
}

/* Two names for one thread at one timestamp: the later record wins (as the latest by ts). */
static void test_thread_name_same_ts(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_thread_name(&b, 300, 16, "first");
	tb_thread_name(&b, 300, 16, "second");
	tb_thread(&b, 16);
	tb_alloc(&b, 400, 0x1000, 100);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_group *g;
	assert_int_equal(ckt_phases_groups(p, &g), 1);
	assert_string_equal(g[0].name, "second");
	assert_string_equal(ckt_phases_thread_name(p, 16), "second");
	ckt_phases_free(p);
	tb_release(&b);
}

/* Format 4: ENDs with no BEGIN open at an earlier timestamp are dropped when another comes at a
 * new one: thread 1 ends "load" at 100 and at 500; thread 2 begins it twice at 500 and ends it
 * at 700. The END at 500 cancels one BEGIN at that instant, the one at 100 none: "load" is
 * active from 500 to 700. */
static void test_early_ends_reset(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, LOAD, "load");
	tb_thread(&b, 1);
	tb_phase(&b, 100, CKT_PHASE_END, LOAD);
	tb_phase(&b, 500, CKT_PHASE_END, LOAD);
	tb_thread(&b, 2);
	tb_phase(&b, 500, CKT_PHASE_BEGIN, LOAD);
	tb_phase(&b, 500, CKT_PHASE_BEGIN, LOAD);
	tb_alloc_ex(&b, 600, 0x1000, 64, CKT_FN_MALLOC, 0, LOAD);
	tb_phase(&b, 700, CKT_PHASE_END, LOAD);
	tb_end(&b, 10000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const char *const *names;
	assert_int_equal(ckt_phases_active_at(p, CKT_AT_PEAK_HEAP, &names), 1);
	assert_string_equal(names[0], "load");
	assert_int_equal(row(p, "load")->active_ns, 200);
	ckt_phases_free(p);
	tb_release(&b);
}

/* The text report of p (ckt_phases_print_text), malloc'd */
static char *text_of(const struct ckt_phases *p, const struct ckt_replay_stats *st, bool by_thread)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(ckt_phases_print_text(f, p, st, by_thread), 0);
	fclose(f);
	return buf;
}

/* The text with --top 1: the peak's largest phase, then one row for the other ("1 more
 * phase", singular); a peak RSS whose phases' shares add up to it says nothing of what they are
 * shares of; a name of 22 characters fills the table's label column, one space after it. */
static void test_text_top(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, 1, "abcdefghijklmnopqrstuv");
	tb_phase_def(&b, 2, "b");
	tb_thread(&b, 1);
	tb_phase(&b, 50, CKT_PHASE_PUSH, 1);
	tb_alloc_ex(&b, 100, 0x1000, 100, CKT_FN_MALLOC, 0, 1);
	tb_phase(&b, 150, CKT_PHASE_POP, 1);
	tb_phase(&b, 180, CKT_PHASE_BEGIN, 2);
	tb_alloc_ex(&b, 200, 0x2000, 50, CKT_FN_MALLOC, 0, 2);
	tb_rss(&b, 250, 150);
	tb_phase(&b, 300, CKT_PHASE_END, 2);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	ckt_phases_set_top(p, 1);
	char *t = text_of(p, &st, false);
	assert_string_equal(t, "\n"
			       "phases (bytes by the phase that allocated them; active phases oldest first)\n"
			       "peak heap             150 B at 0.000000 s, during b\n"
			       "  abcdefghijklmnopqrstuv 100 B       66.7%  (100 bytes)\n"
			       "  1 more phase        50 B        33.3%  (50 bytes; --top shows more)\n"
			       "peak RSS              150 B at 0.000000 s, during b\n"
			       "  abcdefghijklmnopqrstuv 100 B       66.7%  (100 bytes)\n"
			       "  1 more phase        50 B        33.3%  (50 bytes; --top shows more)\n"
			       "\n"
			       "phase                   active s  allocated   own peak  at peak heap  at peak RSS\n"
			       "abcdefghijklmnopqrstuv   0.000000      100 B      100 B         100 B        100 B\n"
			       "b                       0.000000       50 B       50 B          50 B         50 B\n");
	free(t);
	ckt_phases_free(p);
	tb_release(&b);
}

/* Byte spaces by phase: a phase's heap block, anonymous mapping and file-backed mapping; at the
 * peak RSS the phase holds its heap and anonymous bytes (what the report counts toward RSS),
 * not the file's; at the peak of host memory all three. */
static void test_spaces(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, 1, "map");
	tb_thread(&b, 1);
	tb_phase(&b, 50, CKT_PHASE_BEGIN, 1);
	tb_alloc_ex(&b, 100, 0x1000, 100, CKT_FN_MALLOC, 0, 1);
	tb_mmap_ex(&b, 110, 0x7f0000000000, 4096, CKT_MAP_ANON, 1);
	tb_mmap_ex(&b, 120, 0x7f0000100000, 8192, 0, 1);
	tb_rss(&b, 130, 20000);
	tb_phase(&b, 200, CKT_PHASE_END, 1);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "map"), 100);
	assert_int_equal(share(p, CKT_AT_PEAK_RSS, "map"), 4196);
	assert_int_equal(share(p, CKT_AT_PEAK_MMAP, "map"), 12388);
	assert_int_equal(row(p, "map")->at_peak_rss, 4196);
	assert_int_equal(row(p, "map")->peak_bytes, 12388);
	assert_int_equal(row(p, "map")->allocated_bytes, 12388);
	ckt_phases_free(p);
	tb_release(&b);
}

/* The default mode: a phase's heap sample (4,096 bytes, standing for about 512 KiB) and its
 * 1 MiB of CUDA pinned host memory, both live at the peak of pinned memory. Its share there is
 * the pinned bytes, exact: no sample among them, no standard error (the heap's sample is no
 * part of them); at the peak heap the share is the sample's estimate, with its error. */
static void test_pinned_share_exact(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin_sampled(&b, TB_VERSION);
	tb_phase_def(&b, 1, "p");
	tb_thread(&b, 1);
	tb_phase(&b, 5, CKT_PHASE_BEGIN, 1);
	tb_alloc_ex(&b, 10, 0x1000, 4096, CKT_FN_MALLOC | CKT_FN_SAMPLED, 0, 1);
	tb_agg(&b, 12, 4096, 1);
	tb_cuda_alloc(&b, 20, CKT_CUDA_PINNED, 0, 0x7f0000000000, 1 << 20, 0, 1, 0);
	tb_sync(&b, 30);
	tb_end(&b, 40, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_share *sh;
	assert_int_equal(ckt_phases_by_phase(p, CKT_AT_PEAK_PINNED, &sh), 1);
	assert_string_equal(sh[0].name, "p");
	assert_int_equal(sh[0].bytes, 1 << 20);
	assert_int_equal(sh[0].samples, 0);
	assert_int_equal(sh[0].sampled_bytes, 0);
	assert_int_equal(ckt_phases_share_error(p, &sh[0]), 0);
	assert_int_equal(ckt_phases_by_phase(p, CKT_AT_PEAK_HEAP, &sh), 1);
	assert_int_equal(sh[0].samples, 1);
	assert_true(ckt_phases_share_error(p, &sh[0]) > 0);
	ckt_phases_free(p);
	tb_release(&b);
}

/* The grouping of test_thread_groups, the plain way (every thread against every other), as
 * the oracle for the sorted one in phases.c. */
static size_t naive_stem(const char *name)
{
	size_t n = strlen(name), k = n;
	while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
		k--;
	return k == 0 ? n : k;
}

static void naive_label(char *out, size_t cap, const char *const *names, size_t n, size_t i)
{
	size_t stem = naive_stem(names[i]);
	bool fold = false;
	for (size_t j = 0; j < n && !fold && stem < strlen(names[i]); j++)
		fold = naive_stem(names[j]) == stem && strncmp(names[j], names[i], stem) == 0 &&
		       strcmp(names[j], names[i]) != 0;
	snprintf(out, cap, "%.*s%s", (int)(fold ? stem : strlen(names[i])), names[i], fold ? "*" : "");
}

/* 3,000 threads named from a few stems with and without digits, digits alone, repeats, a
 * literal "w*", a stem with a single name, and no name at all; some never allocate. Every
 * group, its thread count and bytes as the oracle's. */
static void test_thread_groups_many(void **state)
{
	(void)state;
	enum { N = 3000 };
	static const char *const stems[] = { "w", "w-", "pool", "io-", "rayon-synth-", "", "gpu" };
	static const char *const tails[] = { "", "1", "2", "17", "007", "3" };
	static char name_buf[N][32];
	static const char *names[N];
	static char label[N][40];
	struct tb b;
	struct ckt_replay_stats st;
	uint64_t seed = 12345;
	tb_begin(&b);
	for (size_t i = 0; i < N; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		unsigned r = (unsigned)(seed >> 33);
		if (r % 11 == 0) {
			names[i] = "(unnamed)"; /* no THREAD_NAME record */
		} else if (r % 13 == 0 || r % 17 == 0) {
			/* a literal "w*" joins the folded w1, w2...; a stem with one name keeps it */
			names[i] = r % 13 == 0 ? "w*" : "solo9";
			tb_thread_name(&b, 10, 100 + i, names[i]);
		} else {
			snprintf(name_buf[i], sizeof(name_buf[i]), "%s%s", stems[r % 7], tails[(r / 7) % 6]);
			if (!name_buf[i][0])
				strcpy(name_buf[i], "42"); /* digits alone never fold */
			names[i] = name_buf[i];
			tb_thread_name(&b, 10, 100 + i, names[i]);
		}
	}
	for (size_t i = 0; i < N; i++) {
		if (i % 5 == 4)
			continue; /* only ran: counted in no group */
		tb_thread(&b, 100 + i);
		tb_alloc(&b, 20 + i, 0x100000 + i * 0x1000, i + 1);
	}
	tb_end(&b, 100000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	for (size_t i = 0; i < N; i++)
		naive_label(label[i], sizeof(label[i]), names, N, i);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_group *g;
	size_t n = ckt_phases_groups(p, &g), want_groups = 0;
	for (size_t i = 0; i < N; i++) {
		bool first = true, held = false;
		unsigned threads = 0;
		uint64_t bytes = 0;
		for (size_t j = 0; j < N; j++) {
			if (strcmp(label[j], label[i]) != 0)
				continue;
			if (j < i)
				first = false;
			if (j % 5 != 4) {
				threads++;
				bytes += j + 1;
				held = true;
			}
		}
		if (!first || !held)
			continue;
		want_groups++;
		size_t k;
		for (k = 0; k < n && strcmp(g[k].name, label[i]) != 0; k++)
			;
		assert_true(k < n);
		assert_int_equal(g[k].threads, threads);
		assert_int_equal(g[k].allocated_bytes, bytes);
		assert_int_equal(g[k].at_peak_heap, bytes);
	}
	assert_int_equal(n, want_groups);
	assert_true(n > 10);
	size_t solo = 0;
	for (size_t k = 0; k < n; k++) {
		solo += strcmp(g[k].name, "solo9") == 0;
		if (k) /* largest at the peak first */
			assert_true(g[k - 1].at_peak_heap >= g[k].at_peak_heap);
	}
	assert_int_equal(solo, 1);
	ckt_phases_free(p);
	tb_release(&b);
}

/* 80,000 threads, each of a stem of its own with digits (a forged trace: comparing every pair
 * took 40 s): 80,000 groups of one thread, none folded. */
static void test_thread_groups_distinct(void **state)
{
	(void)state;
	enum { N = 80000 };
	struct tb b;
	struct ckt_replay_stats st;
	char name[16];
	tb_begin(&b);
	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "t%c%c%c%c1", 'a' + (int)(i / 17576 % 26), 'a' + (int)(i / 676 % 26),
			 'a' + (int)(i / 26 % 26), 'a' + (int)(i % 26));
		tb_thread_name(&b, 10, 100 + i, name);
		tb_thread(&b, 100 + i);
		tb_alloc(&b, 20 + i, 0x100000 + i * 0x1000, 1 + (i == 4711));
	}
	tb_end(&b, 1000000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_group *g;
	assert_int_equal(ckt_phases_groups(p, &g), N);
	assert_string_equal(g[0].name, "tagzf1"); /* thread 4711, the one of 2 bytes */
	assert_int_equal(g[0].at_peak_heap, 2);
	assert_string_equal(g[1].name, "taaaa1");
	assert_string_equal(g[N - 1].name, "teoix1"); /* thread 79999 */
	for (size_t k = 0; k < N; k++)
		assert_int_equal(g[k].threads, 1);
	ckt_phases_free(p);
	tb_release(&b);
}

/* --phases-csv looks only at the phases whose bytes changed or that held bytes at the last
 * sample; its rows stay in the order of the phases whatever the order of the changes: "c"
 * changes first, "a" then; "b" rises and falls between two samples (no row); "c" and then "a"
 * stop holding bytes (one zero row each); a mapping made in no phase counts in the mmap
 * column of "(none)", the first phase. */
static void test_phases_csv_rows(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	char csv[64] = "/tmp/ckt_phases_csv_XXXXXX";
	int fd = mkstemp(csv);
	assert_true(fd >= 0);
	close(fd);
	tb_begin(&b);
	tb_phase_def(&b, 1, "a");
	tb_phase_def(&b, 2, "b");
	tb_phase_def(&b, 3, "c");
	tb_thread(&b, 1);
	tb_rss(&b, 1000, 4096);
	tb_alloc_ex(&b, 1100, 0xc000, 10, CKT_FN_MALLOC, 0, 3);
	tb_alloc_ex(&b, 1200, 0xa000, 5, CKT_FN_MALLOC, 0, 1);
	tb_rss(&b, 2000, 4096);
	tb_alloc_ex(&b, 2100, 0xb000, 7, CKT_FN_MALLOC, 0, 2);
	tb_free(&b, 2200, 0xb000);
	tb_free(&b, 2300, 0xc000);
	tb_rss(&b, 3000, 4096);
	tb_rss(&b, 4000, 4096);
	tb_free(&b, 4100, 0xa000);
	tb_mmap(&b, 4200, 0x7f0000000000, 8192, 0);
	tb_rss(&b, 5000, 4096);
	tb_rss(&b, 6000, 4096);
	tb_end(&b, 7000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, csv, NULL);
	assert_string_equal(slurp(csv), "t_s,phase,heap_bytes,mmap_bytes,estimated\n"
					"0.000002,a,5,0,0\n"
					"0.000002,c,10,0,0\n"
					"0.000003,a,5,0,0\n"
					"0.000003,c,0,0,0\n"
					"0.000004,a,5,0,0\n"
					"0.000005,(none),0,8192,0\n"
					"0.000005,a,0,0,0\n"
					"0.000006,(none),0,8192,0\n");
	ckt_phases_free(p);
	tb_release(&b);
	unlink(csv);
}

struct longest {
	size_t len, samples;
	char tail[16];
};

static void keep_longest(void *ctx, const struct ckt_sample *s)
{
	struct longest *c = ctx;
	size_t n = strlen(s->active_phases);
	c->samples++;
	if (n >= c->len) {
		c->len = n;
		snprintf(c->tail, sizeof(c->tail), "%s", s->active_phases + (n > 10 ? n - 10 : 0));
	}
}

/* 2,000 phases begun, a sample after each: the samples' active_phases are the open phases
 * joined by '+' up to the first name that reaches 8,192 bytes (745 names of 10 bytes: 8,194),
 * not all of them (a forged trace with 80,000 took 40 s to join them all after each change). */
static void test_active_phases_capped(void **state)
{
	(void)state;
	enum { N = 2000 };
	struct tb b;
	struct longest c = { 0 };
	char name[16];
	tb_begin(&b);
	for (unsigned i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "phase-%04u", i);
		tb_phase_def(&b, i + 1, name);
	}
	tb_thread(&b, 7);
	for (unsigned i = 0; i < N; i++) {
		tb_phase(&b, 100 + 2 * i, CKT_PHASE_BEGIN, i + 1);
		tb_rss(&b, 101 + 2 * i, 4096);
	}
	tb_end(&b, 100000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	char path[64]; /* run()'s steps, with a sink that keeps the longest */
	struct ckt_decoder *d = NULL;
	struct ckt_error err = { 0 };
	tb_write(&b, path);
	assert_int_equal(ckt_decode_open(path, &d, &err), 0);
	struct ckt_replay *r = ckt_replay_new(4096);
	struct ckt_phases *p = ckt_phases_new();
	assert_int_equal(ckt_phases_attach(p, r), 0);
	ckt_phases_set_next_sink(p, keep_longest, &c);
	ckt_replay_set_sample_sink(r, ckt_phases_sample, p);
	assert_int_equal(ckt_replay_run(d, r, &err), 0);
	assert_int_equal(c.samples, N);
	assert_int_equal(c.len, 8194);
	assert_string_equal(c.tail, "phase-0744");
	ckt_replay_free(r);
	ckt_decode_close(d);
	unlink(path);
	ckt_phases_free(p);
	tb_release(&b);
}

/* The latest name of a thread wins (by ts, then file order); trailing digits fold into '*'
 * only when two names differ there. */
static void test_thread_groups(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_thread_name(&b, 10, 11, "rayon-synth-1");
	tb_thread_name(&b, 10, 12, "rayon-synth-17");
	tb_thread_name(&b, 10, 13, "io");
	tb_thread_name(&b, 200, 13, "io-7");
	tb_thread_name(&b, 300, 14, "gpu-worker");
	tb_thread_name(&b, 250, 14, "older"); /* arrives later, but names an earlier moment */
	tb_thread_name(&b, 10, 15, "idle-3");  /* never allocates: not listed */
	tb_thread(&b, 11);
	tb_alloc(&b, 400, 0x1000, 100);
	tb_thread(&b, 12);
	tb_alloc(&b, 410, 0x2000, 200);
	tb_thread(&b, 13);
	tb_alloc(&b, 420, 0x3000, 250);
	tb_thread(&b, 14);
	tb_alloc(&b, 430, 0x4000, 400);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_group *g;
	size_t n = ckt_phases_groups(p, &g);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].name, "gpu-worker");
	assert_int_equal(g[0].at_peak_heap, 400);
	assert_string_equal(g[1].name, "rayon-synth-*");
	assert_int_equal(g[1].threads, 2);
	assert_int_equal(g[1].at_peak_heap, 300);
	assert_int_equal(g[1].allocated_bytes, 300);
	assert_string_equal(g[2].name, "io-7");
	assert_int_equal(g[2].at_peak_heap, 250);
	assert_false(ckt_phases_any(p)); /* no phase records at all */
	ckt_phases_free(p);
	tb_release(&b);
}

/* A thread id the kernel gave again: thread 7 "alpha" allocates 100 bytes and frees them,
 * ends (THREAD_EXIT at 40); a rename of it stamped before its end comes after the end record;
 * then a new thread 7, "beta", allocates 200 and keeps them. Two groups of one thread each,
 * every byte with its own thread (0.2.32 made one thread of them: "beta" with 300 bytes
 * allocated, the last name winning). The tracer writes the ended thread's end before the new
 * thread's name and events (writer.c, hold_reused). */
static void test_thread_reused(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_thread_name(&b, 10, 7, "alpha");
	tb_thread(&b, 7);
	tb_alloc(&b, 20, 0x1000, 100);
	tb_free(&b, 30, 0x1000);
	tb_sync(&b, 45);
	tb_flush(&b);
	tb_frame(&b, 45);
	tb_thread_exit(&b, 40, 7);
	tb_thread_name(&b, 35, 7, "alpha-late");
	tb_thread_name(&b, 50, 7, "beta");
	tb_thread(&b, 7);
	tb_alloc(&b, 60, 0x2000, 200);
	tb_sync(&b, 80);
	tb_end(&b, 100, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	run_by_thread = true; /* as the report does with --by thread */
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	run_by_thread = false;
	const struct ckt_phases_group *g;
	size_t n = ckt_phases_groups(p, &g);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].name, "beta");
	assert_int_equal(g[0].threads, 1);
	assert_int_equal(g[0].allocated_bytes, 200);
	assert_int_equal(g[0].at_peak_heap, 200);
	assert_string_equal(g[1].name, "alpha-late");
	assert_int_equal(g[1].threads, 1);
	assert_int_equal(g[1].allocated_bytes, 100);
	assert_int_equal(g[1].at_peak_heap, 0);
	assert_int_equal(st.threads_started, 2);
	assert_int_equal(st.backward_events, 0);
	ckt_phases_free(p);
	tb_release(&b);
}

static void test_notes_bounded(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	char text[32];
	tb_begin(&b);
	tb_phase_def(&b, 1, "synthesis");
	for (int i = 0; i < 105; i++) {
		snprintf(text, sizeof(text), "SYNTH_START %d", i);
		tb_note(&b, 100 + (uint64_t)i, 1, text);
	}
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, NULL, NULL, NULL);
	const struct ckt_phases_note *notes;
	uint64_t total;
	size_t n = ckt_phases_notes(p, &notes, &total);
	assert_int_equal(n, CKT_PHASES_NOTES_KEPT);
	assert_int_equal(total, 105);
	assert_string_equal(notes[0].phase, "synthesis");
	assert_int_equal(notes[0].ts, 100);
	assert_int_equal(notes[99].len, strlen("SYNTH_START 99"));
	assert_memory_equal(notes[99].text, "SYNTH_START 99", notes[99].len);
	assert_true(ckt_phases_any(p));
	ckt_phases_free(p);
	tb_release(&b);
}

static const char *rule_stack7(void *ctx, uint64_t stack)
{
	(void)ctx;
	return stack == 7 ? "ruled" : stack == 8 ? "load" : NULL;
}

/* --phase-rule: the decision per stack overrides the captured phase; a rule may name a phase
 * the trace defines (one row, not two). */
static void test_rule_override(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_begin(&b);
	tb_phase_def(&b, 1, "load");
	tb_thread(&b, 1);
	tb_alloc_ex(&b, 100, 0x1000, 1000, CKT_FN_MALLOC, 7, 1);
	tb_alloc_ex(&b, 110, 0x2000, 10, CKT_FN_MALLOC, 7, 0);
	tb_alloc_ex(&b, 120, 0x3000, 200, CKT_FN_MALLOC, 8, 0);
	tb_alloc_ex(&b, 130, 0x4000, 30, CKT_FN_MALLOC, 9, 1);
	tb_free(&b, 140, 0x2000);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, rule_stack7, NULL, NULL);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "ruled"), 1010);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "load"), 230);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "(none)"), 0);
	assert_int_equal(row(p, "ruled")->allocated_bytes, 1010);
	assert_false(row(p, "ruled")->marked);
	assert_true(ckt_phases_any(p));
	ckt_phases_free(p);
	tb_release(&b);
}

/* A --phase-rule names a phase before the trace defines it (the first allocation its rule
 * decides is replayed before the PHASE_DEF is read): still one phase of that name. */
static void test_rule_before_definition(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	tb_start(&b, 1);
	tb_alloc_ex(&b, 100, 0x1000, 200, CKT_FN_MALLOC, 8, 0);
	next_frame(&b, 200);
	tb_sync(&b, 300); /* replays everything before 200: the allocation above */
	tb_flush(&b);
	tb_frame(&b, 300);
	tb_phase_def(&b, 1, "load");
	tb_thread(&b, 1);
	tb_phase(&b, 400, CKT_PHASE_BEGIN, 1);
	tb_alloc_ex(&b, 500, 0x2000, 30, CKT_FN_MALLOC, 9, 1);
	tb_phase(&b, 600, CKT_PHASE_END, 1);
	tb_end(&b, 1000, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	struct ckt_phases *p = run(&b, &st, rule_stack7, NULL, NULL);
	assert_int_equal(share(p, CKT_AT_PEAK_HEAP, "load"), 230);
	const struct ckt_phases_row *rows;
	size_t n = ckt_phases_table(p, &rows), named = 0;
	for (size_t i = 0; i < n; i++)
		named += strcmp(rows[i].name, "load") == 0;
	assert_int_equal(named, 1);
	assert_int_equal(row(p, "load")->allocated_bytes, 230);
	assert_int_equal(row(p, "load")->active_ns, 200);
	ckt_phases_free(p);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_and_nesting),
		cmocka_unit_test(test_epochs_past_2_32),
		cmocka_unit_test(test_open_phase_and_late_names),
		cmocka_unit_test(test_end_before_begin),
		cmocka_unit_test(test_end_before_begin_legacy),
		cmocka_unit_test(test_legacy_window_bound),
		cmocka_unit_test(test_pinned_share_exact),
		cmocka_unit_test(test_spaces),
		cmocka_unit_test(test_text_top),
		cmocka_unit_test(test_early_ends_reset),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_thread_name_same_ts),
		cmocka_unit_test(test_thread_groups),
		cmocka_unit_test(test_thread_reused),
		cmocka_unit_test(test_thread_groups_many),
		cmocka_unit_test(test_thread_groups_distinct),
		cmocka_unit_test(test_active_phases_capped),
		cmocka_unit_test(test_phases_csv_rows),
		cmocka_unit_test(test_notes_bounded),
		cmocka_unit_test(test_rule_override),
		cmocka_unit_test(test_rule_before_definition),
		cmocka_unit_test(test_late_pop_no_wrap),
		cmocka_unit_test(test_late_pair_keeps_its_time),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
