/* test_ranges.c: the replay's set of live mappings (reader/replay.c, ckt_rangeset), built here
 * with chunks of 4 ranges (CKT_RANGE_CHUNK=4, see the Makefile), so that a few hundred ranges
 * split, empty and merge chunks all the time. Random mmap (MAP_FIXED: it replaces what was
 * there), munmap, mprotect (to PROT_NONE and back) and mremap over 256 pages are replayed
 * and checked, after every prefix of each trace, against a model that keeps one state per
 * page (a hole in a range mremap moves stays one, and leaves the target's pages under it as
 * they were, unless the range grows or none of it was mapped): the mapped anonymous and file-backed bytes, the reserved (PROT_NONE) bytes and the
 * peak of the mapped ones, exact. How the set cuts its ranges does not show in the bytes, so
 * a range lost or kept twice by the chunks does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "report.h"
#include "trace_builder.h"
#include "xorshift.h"

#define P 4096ull
#define NP 256
#define A 0x7f0000000000ull

enum { NONE, ANON, ANON_RES, FILEB, FILE_RES }; /* a page's state; _RES: PROT_NONE */

struct model {
	uint8_t page[NP];
	uint64_t peak;
};

static uint64_t model_count(const struct model *m, int want)
{
	uint64_t n = 0;
	for (int i = 0; i < NP; i++)
		n += m->page[i] == want;
	return n * P;
}

static void model_note(struct model *m)
{
	uint64_t mapped = model_count(m, ANON) + model_count(m, FILEB);
	if (mapped > m->peak)
		m->peak = mapped;
}

struct op {
	int kind; /* 0 mmap, 1 munmap, 2 mprotect, 3 mremap */
	int a, len, b, len2, arg;
};

static void model_apply(struct model *m, const struct op *o)
{
	switch (o->kind) {
	case 0:
		for (int i = o->a; i < o->a + o->len; i++)
			m->page[i] = o->arg ? ANON : FILEB;
		break;
	case 1:
		for (int i = o->a; i < o->a + o->len; i++)
			m->page[i] = NONE;
		break;
	case 2:
		for (int i = o->a; i < o->a + o->len; i++)
			if (m->page[i] != NONE)
				m->page[i] = (uint8_t)((m->page[i] == ANON || m->page[i] == ANON_RES)
							       ? (o->arg ? ANON : ANON_RES)
							       : (o->arg ? FILEB : FILE_RES));
		break;
	default: { /* the pieces move with their states; pages never mapped are holes, which leave
		    * the target's pages under them as they were, unless the range grows or none of
		    * it was mapped: then they come as anonymous (one area the kernel had, unseen) */
		uint8_t moved[NP];
		bool known = false;
		for (int i = o->a; i < o->a + o->len; i++)
			known = known || m->page[i] != NONE;
		bool fill = o->len2 > o->len || !known;
		for (int k = 0; k < o->len2; k++) {
			int from = o->a + (k < o->len ? k : o->len - 1);
			moved[k] = m->page[from] == NONE && fill ? ANON : m->page[from];
		}
		for (int i = o->a; i < o->a + o->len; i++)
			m->page[i] = NONE;
		for (int k = 0; k < o->len2; k++)
			if (moved[k] != NONE)
				m->page[o->b + k] = moved[k];
		break;
	}
	}
	model_note(m);
}

static void random_op(uint64_t *rng, struct op *o)
{
	uint64_t r = xorshift64(rng);
	int w = (int)(r % 100);
	o->kind = w < 35 ? 0 : w < 60 ? 1 : w < 90 ? 2 : 3;
	o->len = 1 + (int)(xorshift64(rng) % 16);
	o->a = (int)(xorshift64(rng) % (NP - o->len + 1));
	o->arg = (int)(xorshift64(rng) % 2);
	if (o->kind == 3) {
		o->len2 = 1 + (int)(xorshift64(rng) % 16);
		do /* a target apart from the source, as MREMAP_FIXED wants */
			o->b = (int)(xorshift64(rng) % (NP - o->len2 + 1));
		while (o->b < o->a + o->len && o->a < o->b + o->len2);
	}
}

static void trace_op(struct tb *b, uint64_t ts, const struct op *o)
{
	uint64_t a = A + (uint64_t)o->a * P, len = (uint64_t)o->len * P;
	switch (o->kind) {
	case 0:
		tb_mmap(b, ts, a, len, (o->arg ? CKT_MAP_ANON : 0) | CKT_MAP_FIXED);
		break;
	case 1:
		tb_munmap(b, ts, a, len);
		break;
	case 2:
		tb_mprotect(b, ts, a, len, o->arg ? 3 : 0);
		break;
	default:
		tb_mremap(b, ts, a, len, A + (uint64_t)o->b * P, (uint64_t)o->len2 * P);
		break;
	}
}

#define NOPS 300

static void test_random_against_pages(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		uint64_t rng = 0x9e3779b97f4a7c15ull * seed;
		struct op ops[NOPS];
		for (int i = 0; i < NOPS; i++)
			random_op(&rng, &ops[i]);
		/* every prefix of 10, 20, ... operations, each its own trace */
		for (int upto = 10; upto <= NOPS; upto += 10) {
			struct model m = { { 0 }, 0 };
			struct tb b;
			struct ckt_replay_stats st;
			struct ckt_error err = { 0 };
			tb_start(&b, 1);
			for (int i = 0; i < upto; i++) {
				trace_op(&b, 10 * (uint64_t)(i + 1), &ops[i]);
				model_apply(&m, &ops[i]);
			}
			tb_end(&b, 10 * (uint64_t)(upto + 1), CKT_END_EXIT, (uint64_t)upto, 0);
			tb_flush(&b);
			if (tb_run_tb(&b, &st, &err) != 0)
				fail_msg("seed %llu, %d operations: %s", (unsigned long long)seed, upto, err.msg);
			char got[160], want[160];
			snprintf(got, sizeof(got), "anon %llu file %llu reserved %llu peak %llu",
				 (unsigned long long)st.anon_mmap_bytes, (unsigned long long)st.file_mmap_bytes,
				 (unsigned long long)st.reserved_bytes, (unsigned long long)st.peak_mmap.bytes);
			snprintf(want, sizeof(want), "anon %llu file %llu reserved %llu peak %llu",
				 (unsigned long long)model_count(&m, ANON), (unsigned long long)model_count(&m, FILEB),
				 (unsigned long long)(model_count(&m, ANON_RES) + model_count(&m, FILE_RES)),
				 (unsigned long long)m.peak);
			if (strcmp(got, want) != 0)
				fail_msg("seed %llu, %d operations: got %s, want %s", (unsigned long long)seed, upto,
					 got, want);
			tb_release(&b);
		}
	}
}

/* Many ranges at once: 200 one-page mappings with a page between each, then half of them
 * unmapped from the middle out, so chunks empty and merge in the middle, and one page mapped
 * again there (file-backed), into a merged chunk. */
static void test_middle_churn(void **state)
{
	(void)state;
	struct tb b;
	struct ckt_replay_stats st;
	struct ckt_error err = { 0 };
	uint64_t ts = 10;
	tb_start(&b, 1);
	for (int i = 0; i < 200; i++)
		tb_mmap(&b, ts++, A + 2 * (uint64_t)i * P, P, CKT_MAP_ANON);
	for (int d = 0; d < 100; d += 2) {
		tb_munmap(&b, ts++, A + 2 * (uint64_t)(100 + d) * P, P);
		tb_munmap(&b, ts++, A + 2 * (uint64_t)(99 - d) * P, P);
	}
	tb_mmap(&b, ts++, A + 2 * 100 * P, P, 0); /* one file-backed page back in the middle */
	tb_end(&b, ts, CKT_END_EXIT, 0, 0);
	tb_flush(&b);
	if (tb_run_tb(&b, &st, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(st.anon_mmap_bytes, 100 * P);
	assert_int_equal(st.file_mmap_bytes, P);
	assert_int_equal(st.peak_mmap.bytes, 200 * P);
	tb_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_against_pages),
		cmocka_unit_test(test_middle_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
