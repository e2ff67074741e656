/* test_summary.c: the exit line's running numbers (preload/summary.c) from hand-made ring
 * slots: heap totals in usable bytes with no table of live blocks, the table kept only for
 * blocks whose usable excess did not fit in the slot, default-mode samples left to AGG, and
 * the peak found in time order across threads. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "ckt.h"
#include "xorshift.h"
#include "summary.h"

static uint64_t sz(uint64_t n, uint64_t u)
{
	uint8_t fn = 0;
	uint64_t b = ckt_slot_size(n, u, &fn);
	assert_int_equal(fn, 0);
	return b;
}

static struct ckt_ring *ring_new(void)
{
	struct ckt_ring *r = calloc(1, sizeof(*r));
	assert_non_null(r);
	return r;
}

static void put(struct ckt_ring *r, uint64_t *h, uint8_t type, uint8_t fn, uint64_t ts, uint64_t a,
		uint64_t b)
{
	struct ckt_slot *s = &r->slots[(*h)++ & ckt_ring_mask(r)];
	memset(s, 0, sizeof(*s));
	s->type = type;
	s->fn = fn;
	s->ts = ts;
	s->a = a;
	s->b = b;
}

static void put_realloc(struct ckt_ring *r, uint64_t *h, uint64_t ts, uint64_t old, uint64_t old_usable,
			uint64_t new_addr, uint64_t b)
{
	put(r, h, CKT_EV_REALLOC, 0, ts, old, b);
	put(r, h, CKT_EV_EXT, 0, ts + 1, new_addr, old_usable);
}

static void test_usable_totals(void **state)
{
	(void)state;
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	struct ckt_ring *a = ring_new(), *b = ring_new();
	uint64_t ha = 0, hb = 0;
	/* thread A: 100 requested (usable 104), 1000 (1016); frees the first at t=40 */
	put(a, &ha, CKT_EV_ALLOC, CKT_FN_MALLOC, 10, 0x1000, sz(100, 104));
	put(a, &ha, CKT_EV_ALLOC, CKT_FN_MALLOC, 20, 0x2000, sz(1000, 1016));
	put(a, &ha, CKT_EV_FREE, 0, 40, 0x1000, 104);
	/* thread B, interleaved in time: 5000 (5016) at t=30, grown by realloc at t=50 to
	 * 20000 (20008), which is the peak: 1016 + 20008 = 21024 */
	put(b, &hb, CKT_EV_ALLOC, CKT_FN_MALLOC, 30, 0x9000, sz(5000, 5016));
	put_realloc(b, &hb, 50, 0x9000, 5016, 0xa000, sz(20000, 20008));
	put(b, &hb, CKT_EV_FREE, 0, 60, 0xa000, 20008);
	/* a block whose excess does not fit (usable 70,000 bytes above the request): the table
	 * keeps its requested size and its free takes that back, whatever the slot says */
	put(b, &hb, CKT_EV_ALLOC, CKT_FN_MEMALIGN, 70, 0xb000, sz(10, 70010));
	put(b, &hb, CKT_EV_FREE, 0, 80, 0xb000, 70010);
	/* a request of 2^48 bytes or more (flagged, whole in b) counts at its requested size */
	put(b, &hb, CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_SLOT_WIDE, 90, 0xc000, (uint64_t)1 << 48);
	put(b, &hb, CKT_EV_FREE, 0, 91, 0xc000, ((uint64_t)1 << 48) + 4080);
	struct ckt_cursor c[2] = { { a, 0, ha, CKT_RING_LIVE, 0, 0 }, { b, 0, hb, CKT_RING_LIVE, 0, 0 } };
	ckt_summary_merge(c, 2);
	assert_int_equal(ckt_summary.events, 10);
	assert_int_equal(ckt_summary.peak_heap, 1016 + ((uint64_t)1 << 48));
	assert_int_equal(ckt_summary.heap, 1016);

	/* merged by time: A's 3000 bytes live from t=10 to 30, B's 4008 from 20 to 40, so the
	 * peak is both (taken one thread after the other it would be 4008) */
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	ha = hb = 0;
	put(a, &ha, CKT_EV_ALLOC, CKT_FN_MALLOC, 10, 0x1000, sz(3000, 3000));
	put(a, &ha, CKT_EV_FREE, 0, 30, 0x1000, 3000);
	put(b, &hb, CKT_EV_ALLOC, CKT_FN_MALLOC, 20, 0x2000, sz(4000, 4008));
	put(b, &hb, CKT_EV_FREE, 0, 40, 0x2000, 4008);
	struct ckt_cursor c2[2] = { { a, 0, ha, CKT_RING_LIVE, 0, 0 }, { b, 0, hb, CKT_RING_LIVE, 0, 0 } };
	ckt_summary_merge(c2, 2);
	assert_int_equal(ckt_summary.peak_heap, 3000 + 4008); /* both live from 20 to 30 */
	assert_int_equal(ckt_summary.heap, 0);
	free(a);
	free(b);
}

/* Default mode: small blocks arrive as AGG deltas; a sampled block's ALLOC and FREE carry
 * its bytes again and must not count twice; a large block counts at its usable size. */
static void test_default_mode(void **state)
{
	(void)state;
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	struct ckt_ring *a = ring_new();
	uint64_t h = 0;
	put(a, &h, CKT_EV_AGG, 0, 10, (uint64_t)(int64_t)70000, 100);
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, 11, 0x1000, sz(500, 504));
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 12, 0x800000, sz(1 << 20, (1 << 20) + 4080));
	put(a, &h, CKT_EV_FREE, CKT_FN_SAMPLED, 13, 0x1000, 504);
	put(a, &h, CKT_EV_AGG, 0, 14, (uint64_t)(int64_t)-65536, (uint64_t)(int64_t)-90);
	put(a, &h, CKT_EV_FREE, 0, 15, 0x800000, (1 << 20) + 4080);
	struct ckt_cursor c = { a, 0, h, CKT_RING_LIVE, 0, 0 };
	ckt_summary_merge(&c, 1);
	assert_int_equal(ckt_summary.peak_heap, 70000 + (1 << 20) + 4080);
	assert_int_equal(ckt_summary.heap, 70000 - 65536);
	free(a);
}

/* The slot packing: requested size below, the excess above; an excess that does not fit, or
 * a usable size below the request (an allocator that reports less), is marked unknown. */
static void test_slot_size(void **state)
{
	(void)state;
	assert_int_equal(sz(100, 104) & CKT_SLOT_SIZE_MASK, 100);
	assert_int_equal(sz(100, 104) >> 48, 4);
	assert_int_equal(sz(100, 100 + 65534) >> 48, 65534);
	assert_int_equal(sz(100, 100 + 65535) >> 48, CKT_SLACK_UNKNOWN);
	assert_int_equal(sz(100, 50) >> 48, CKT_SLACK_UNKNOWN);
	assert_int_equal(sz((size_t)1 << 40, ((size_t)1 << 40) + 16) & CKT_SLOT_SIZE_MASK,
			 (uint64_t)1 << 40);
	/* a request of 2^48 bytes or more is kept whole, flagged in the slot's fn */
	uint8_t fn = CKT_FN_CALLOC;
	assert_int_equal(ckt_slot_size((size_t)1 << 50, ((size_t)1 << 50) + 4080, &fn), (uint64_t)1 << 50);
	assert_int_equal(fn, CKT_FN_CALLOC | CKT_SLOT_WIDE);
	struct ckt_slot s = { .b = (uint64_t)1 << 50, .fn = fn };
	assert_int_equal(ckt_slot_request(&s), (uint64_t)1 << 50);
	s.fn = 0;
	s.b = sz(100, 104);
	assert_int_equal(ckt_slot_request(&s), 100);
}

/* The merge against a second implementation: every event of every ring sorted by time (all
 * stamps distinct), replayed one by one. Random rings over several flushes, spans from a few
 * nanoseconds to hours (the buckets' width), heap shapes that climb, hover under the peak and
 * fall; the merge reads only where its bound reaches the peak, so a wrong bound shows here as a
 * wrong peak. Also: the events of two slots (REALLOC, MREMAP, RSS_DETAIL, and CUDA_ALLOC and
 * CUDA_DEVICE, whose second stamp or both are 0, as the hooks write them), blocks of the table
 * (an excess that does not fit: their free takes back the requested size), rings that start
 * anywhere and wrap round. */
struct oev {
	uint64_t ts;
	int64_t d;
};

static int oev_cmp(const void *x, const void *y)
{
	const struct oev *a = x, *b = y;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return xorshift64(&rnd_state);
}

#define ORINGS 9
static uint64_t tab_next;
static void test_merge_oracle(void **state)
{
	(void)state;
	struct ckt_ring *r[ORINGS];
	for (int i = 0; i < ORINGS; i++)
		r[i] = ring_new();
	size_t cap = 40000;
	struct oev *o = malloc(cap * sizeof(*o));
	assert_non_null(o);
	for (int round = 0; round < 400; round++) {
		memset(&ckt_summary, 0, sizeof(ckt_summary));
		int64_t heap = 0, peak = 0;
		uint64_t events = 0, rss = 0, ts_next = 1000;
		int nr = 1 + (int)(rnd() % ORINGS);
		uint64_t step = (uint64_t)1 << (rnd() % 44); /* the time between events */
		int table_on = round % 4 == 3, cuda_on = round % 3 == 2;
		/* a table block may be freed in a later flush; the table outlives the round, so
		 * its addresses are never used twice */
		uint64_t tab_addr[ORINGS] = { 0 }, tab_req[ORINGS] = { 0 };
		int64_t live[ORINGS] = { 0 }; /* per ring, so frees never exceed allocations */
		for (int flush = 0; flush < 6; flush++) {
			uint64_t h[ORINGS], h0[ORINGS];
			for (int i = 0; i < nr; i++) /* anywhere in the ring, often across its end */
				h[i] = h0[i] = rnd() % 2 ? rnd() % CKT_RING_SLOTS : CKT_RING_SLOTS - rnd() % 64;
			size_t no = 0;
			int n = (int)(rnd() % 3000);
			int bias = (int)(rnd() % 3); /* 0 climb, 1 hover, 2 fall */
			for (int e = 0; e < n && no + 2 < cap; e++) {
				int i = (int)(rnd() % (uint64_t)nr);
				uint64_t ts = ts_next;
				ts_next += 1 + rnd() % step;
				int k = (int)(rnd() % 20);
				uint64_t size = 1 + rnd() % 5000, slack = rnd() % 24, a = 0x1000 + (uint64_t)e;
				int64_t d = 0;
				events++;
				if (k < 7 - 2 * bias || live[i] <= 0) {
					put(r[i], &h[i], CKT_EV_ALLOC, CKT_FN_MALLOC, ts, a, sz(size, size + slack));
					d = (int64_t)(size + slack);
				} else if (k < 12) {
					uint64_t u = 1 + rnd() % (uint64_t)live[i];
					put(r[i], &h[i], CKT_EV_FREE, 0, ts, a, u);
					d = -(int64_t)u;
				} else if (k == 12) {
					uint64_t u = 1 + rnd() % (uint64_t)live[i];
					put(r[i], &h[i], CKT_EV_REALLOC, 0, ts, a, sz(size, size + slack));
					put(r[i], &h[i], CKT_EV_EXT, 0, ts_next++, 0x900000 + a, u);
					d = (int64_t)(size + slack) - (int64_t)u;
				} else if (k == 13) {
					int64_t v = (int64_t)(rnd() % 100000) - (bias == 2 ? 60000 : 40000);
					if (v < -live[i])
						v = -live[i];
					put(r[i], &h[i], CKT_EV_AGG, 0, ts, (uint64_t)v, 1);
					d = v;
				} else if (k == 14) {
					uint64_t v = rnd() % 1000000;
					put(r[i], &h[i], CKT_EV_RSS, 0, ts, 0, v);
					rss = v > rss ? v : rss;
				} else if (k == 15) {
					uint64_t v = rnd() % 1000000; /* VmHWM */
					put(r[i], &h[i], CKT_EV_RSS_DETAIL, 0, ts, v, v / 2);
					put(r[i], &h[i], CKT_EV_EXT, 0, ts, 0, 0);
					rss = v > rss ? v : rss;
				} else if (k == 16) {
					put(r[i], &h[i], CKT_EV_MREMAP, 0, ts, a << 12, 4096);
					put(r[i], &h[i], CKT_EV_EXT, 0, ts_next++, (a + 1) << 12, 8192);
				} else if (k == 17 && cuda_on) {
					/* second stamp 0; CUDA_DEVICE both (before its first allocation) */
					if (rnd() % 4 == 0) {
						put(r[i], &h[i], CKT_EV_CUDA_DEVICE, 0, 0, 0, 0);
						put(r[i], &h[i], CKT_EV_EXT, 0, 0, 0, 0);
						events++;
					}
					put(r[i], &h[i], CKT_EV_CUDA_ALLOC, 0, ts, a << 20, size);
					put(r[i], &h[i], CKT_EV_EXT, 0, 0, 1, 0);
				} else if (k == 18 && table_on && !tab_addr[i]) {
					/* an excess that does not fit: the table keeps the requested size */
					tab_addr[i] = 0x5000000 + tab_next++;
					tab_req[i] = size;
					put(r[i], &h[i], CKT_EV_ALLOC, CKT_FN_MEMALIGN, ts, tab_addr[i], sz(size, size + 70000));
					d = (int64_t)size;
				} else if (k == 19 && tab_addr[i]) {
					put(r[i], &h[i], CKT_EV_FREE, 0, ts, tab_addr[i], tab_req[i] + 70000);
					d = -(int64_t)tab_req[i];
					tab_addr[i] = 0;
				} else {
					/* a default-mode sample: its bytes come with AGG */
					put(r[i], &h[i], CKT_EV_ALLOC, CKT_FN_MALLOC | CKT_FN_SAMPLED, ts, 0x7000 + a,
					    sz(size, size));
				}
				live[i] += d;
				o[no++] = (struct oev){ ts, d };
			}
			if (cuda_on && rnd() % 2) /* every ring ends on a second slot stamped 0 */
				for (int i = 0; i < nr; i++) {
					put(r[i], &h[i], CKT_EV_CUDA_ALLOC, 0, ts_next++, 0x7f0000000000ull, 4096);
					put(r[i], &h[i], CKT_EV_EXT, 0, 0, 1, 0);
					events++;
				}
			qsort(o, no, sizeof(*o), oev_cmp);
			for (size_t j = 0; j < no; j++) {
				heap += o[j].d;
				peak = heap > peak ? heap : peak;
			}
			struct ckt_cursor c[ORINGS];
			for (int i = 0; i < nr; i++)
				c[i] = (struct ckt_cursor){ r[i], h0[i], h[i], CKT_RING_LIVE, 0, 0 };
			ckt_summary_merge(c, (size_t)nr);
			assert_int_equal(ckt_summary.heap, heap);
			assert_int_equal(ckt_summary.peak_heap, peak);
			assert_int_equal(ckt_summary.events, events);
			assert_int_equal(ckt_summary.peak_rss, rss);
		}
	}
	free(o);
	for (int i = 0; i < ORINGS; i++)
		free(r[i]);
}

/* A ring whose last event is a CUDA allocation: its second slot is stamped 0 (the last
 * event's own stamp bounds the flush's span, not that slot's: taken from it, the span wrapped
 * round and no event was merged, so the flush's peak was lost). */
static void test_cuda_last(void **state)
{
	(void)state;
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	struct ckt_ring *a = ring_new();
	uint64_t h = 0;
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 1000, 0x1000, sz(100, 112));
	put(a, &h, CKT_EV_FREE, 0, 2000, 0x1000, 112);
	put(a, &h, CKT_EV_CUDA_ALLOC, 0, 3000, 0x7f0000000000ull, 1 << 20);
	put(a, &h, CKT_EV_EXT, 0, 0, 0, 0);
	struct ckt_cursor c = { a, 0, h, CKT_RING_LIVE, 0, 0 };
	ckt_summary_merge(&c, 1);
	assert_int_equal(ckt_summary.events, 3);
	assert_int_equal(ckt_summary.heap, 0);
	assert_int_equal(ckt_summary.peak_heap, 112);
	free(a);
}

/* A ring out of time order counts each change once, in the ring's order (as the full merge
 * did); a bucket of its own would have counted the early event twice. */
static void test_out_of_order(void **state)
{
	(void)state;
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	ckt_summary.peak_heap = 5000; /* an earlier flush's */
	struct ckt_ring *a = ring_new();
	uint64_t h = 0;
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 10, 0x1000, sz(1, 1));
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 2000, 0x2000, sz(100, 100));
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 500, 0x3000, sz(4950, 4950));
	put(a, &h, CKT_EV_FREE, 0, 2001, 0x3000, 5051);
	struct ckt_cursor c = { a, 0, h, CKT_RING_LIVE, 0, 0 };
	ckt_summary_merge(&c, 1);
	assert_int_equal(ckt_summary.heap, 0);
	assert_int_equal(ckt_summary.peak_heap, 5051); /* 1, 101, 5051, 0 */
	free(a);
}

/* The last run of buckets has no upper end: an event stamped UINT64_MAX is merged too. */
static void test_last_stamp(void **state)
{
	(void)state;
	memset(&ckt_summary, 0, sizeof(ckt_summary));
	struct ckt_ring *a = ring_new();
	uint64_t h = 0;
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, 10, 0x1000, sz(100, 100));
	put(a, &h, CKT_EV_ALLOC, CKT_FN_MALLOC, UINT64_MAX, 0x2000, sz(100, 100));
	struct ckt_cursor c = { a, 0, h, CKT_RING_LIVE, 0, 0 };
	ckt_summary_merge(&c, 1);
	assert_int_equal(ckt_summary.heap, 200);
	assert_int_equal(ckt_summary.peak_heap, 200);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usable_totals),
		cmocka_unit_test(test_merge_oracle),
		cmocka_unit_test(test_cuda_last),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_last_stamp),
		cmocka_unit_test(test_default_mode),
		cmocka_unit_test(test_slot_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
